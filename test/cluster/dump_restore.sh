#!/usr/bin/env bash
# pg_dump / pg_restore round trip of cuckoo filters, run inside a throwaway
# cluster (pg_virtualenv sets PGHOST, PGPORT, PGUSER).  Filters of several
# shapes and value types are dumped in custom and plain formats, restored
# into fresh databases, and compared byte for byte and by probing.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

createdb cuckoo_src
q cuckoo_src "CREATE EXTENSION cuckoo" >/dev/null
q cuckoo_src "
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter);
INSERT INTO filters
SELECT 'ints', cuckoo_agg(g) FROM generate_series(1, 50000) g
UNION ALL SELECT 'texts', cuckoo_agg('key ' || g, 0.001) FROM generate_series(1, 20000) g
UNION ALL SELECT 'fixed', cuckoo_agg(g, 100000, 0.01) FROM generate_series(1, 30000) g
UNION ALL SELECT 'semisort', cuckoo_add_array(cuckoo_create(1000, semisort => true), ARRAY(SELECT generate_series(1, 900)))
UNION ALL SELECT 'full', cuckoo_add_array(cuckoo_create(4, max_kicks => 0), ARRAY[1, 2, 3, 4, 5])
UNION ALL SELECT 'moods', cuckoo_add_array(cuckoo_create(10), ARRAY['ok', 'happy']::mood[])
UNION ALL SELECT 'empty', cuckoo_create(1000)
UNION ALL SELECT 'null', NULL
-- format version 2 (1.2): grown, rotated (from fixed and from growing), grown by cuckoo_agg
UNION ALL SELECT 'grown', cuckoo_add_array(cuckoo_create(100, expansion => 2), ARRAY(SELECT generate_series(1, 20000)))
UNION ALL SELECT 'rotated', cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(2000), ARRAY(SELECT generate_series(1, 900))), 3),
                                             ARRAY(SELECT generate_series(901, 1800)))
UNION ALL SELECT 'grown_rotated', cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(50, 0.001, expansion => 2),
                                                ARRAY(SELECT 'k' || g FROM generate_series(1, 3000) g)), 2), ARRAY['x', 'y']), 2)
UNION ALL SELECT 'grown_agg', cuckoo_agg(g, 500, 0.01, 2) FROM generate_series(1, 30000) g;
CREATE TABLE probes AS SELECT g AS k FROM generate_series(1, 60000) g;
" >/dev/null
src_sums=$(q cuckoo_src "SELECT string_agg(name || ':' || coalesce(md5(f::bytea), 'NULL'), ',' ORDER BY name) FROM filters")
probe_sql="SELECT (SELECT count(*) FROM probes, filters WHERE name = 'ints' AND k <= 50000 AND cuckoo_contains(f, k))
            || '/' || (SELECT count(*) FILTER (WHERE f @> 'happy'::mood) FROM filters WHERE name = 'moods')
            || '/' || (SELECT count(*) FILTER (WHERE f @> 'sad'::mood) FROM filters WHERE name = 'moods')
            || '/' || (SELECT count(*) FROM probes, filters WHERE name = 'grown' AND k <= 20000 AND f @> k)
            || '/' || (SELECT count(*) FROM probes, filters WHERE name = 'rotated' AND k <= 1800 AND f @> k)
            || '/' || (SELECT count(*) FROM probes, filters WHERE name = 'grown_agg' AND k <= 30000 AND f @> k)
            || '/' || (SELECT (cuckoo_info(f)).items || ',' || (cuckoo_info(f)).generation_items::text FROM filters WHERE name = 'grown_rotated')"
src_probe=$(q cuckoo_src "$probe_sql")

pg_dump -Fc -f "$tmp/db.dump" cuckoo_src
check "pg_dump custom format" 0 $?
pg_dump -Fp -f "$tmp/db.sql" cuckoo_src
check "pg_dump plain format" 0 $?

createdb cuckoo_custom
pg_restore --exit-on-error -d cuckoo_custom "$tmp/db.dump"
check "pg_restore custom format" 0 $?
createdb cuckoo_plain
psql -X -q -v ON_ERROR_STOP=1 -d cuckoo_plain -f "$tmp/db.sql" >/dev/null
check "psql restore of plain format" 0 $?

for db in cuckoo_custom cuckoo_plain; do
  check "$db: filters identical byte for byte" "$src_sums" \
    "$(q $db "SELECT string_agg(name || ':' || coalesce(md5(f::bytea), 'NULL'), ',' ORDER BY name) FROM filters")"
  check "$db: probes answer as before (enum filter too)" "$src_probe" "$(q $db "$probe_sql")"
done
check "every inserted key is found after restore (version-2 filters too)" "50000/1/0/20000/1800/30000/2,{0,2}" \
  "$(q cuckoo_custom "$probe_sql")"

# A dump of a table whose text COPY was edited by hand fails loudly on restore.
sed 's/^ints\tQ0tPTwEE/ints\tQ0tPTwEF/' "$tmp/db.sql" > "$tmp/bad.sql"
createdb cuckoo_bad
psql -X -q -v ON_ERROR_STOP=1 -d cuckoo_bad -f "$tmp/bad.sql" >"$tmp/bad.out" 2>&1
bad_rc=$?
check "a corrupted dump is refused" "3" "$bad_rc"
check "with the validator's message" "1" "$(grep -c 'invalid cuckoofilter value' "$tmp/bad.out")"

# cuckoo_hashset (1.1) columns: dumped and restored in both formats, then the
# same filter is built from them.
createdb cuckoo_hs
q cuckoo_hs "CREATE EXTENSION cuckoo;
CREATE AGGREGATE hashset_of(bigint) (SFUNC = cuckoo_hashset_trans, STYPE = cuckoo_hashset,
                                     COMBINEFUNC = cuckoo_hashset_combine);
CREATE TABLE states AS SELECT g % 5 AS part, hashset_of(g) AS s FROM generate_series(1, 40000) g GROUP BY g % 5;" >/dev/null
hs_sums=$(q cuckoo_hs "SELECT string_agg(part || ':' || md5(s::text), ',' ORDER BY part) FROM states")
pg_dump -Fc -f "$tmp/hs.dump" cuckoo_hs && pg_dump -Fp -f "$tmp/hs.sql" cuckoo_hs
check "pg_dump of cuckoo_hashset columns" 0 $?
createdb cuckoo_hs_custom
pg_restore --exit-on-error -d cuckoo_hs_custom "$tmp/hs.dump"
check "pg_restore of cuckoo_hashset columns" 0 $?
createdb cuckoo_hs_plain
psql -X -q -v ON_ERROR_STOP=1 -d cuckoo_hs_plain -f "$tmp/hs.sql" >/dev/null
check "psql restore of cuckoo_hashset columns" 0 $?
for db in cuckoo_hs_custom cuckoo_hs_plain; do
  check "$db: states identical" "$hs_sums" \
    "$(q $db "SELECT string_agg(part || ':' || md5(s::text), ',' ORDER BY part) FROM states")"
done
check "a filter built from the restored states equals cuckoo_agg's" t "$(q cuckoo_hs_custom "
  CREATE AGGREGATE hashset_union(cuckoo_hashset) (SFUNC = cuckoo_hashset_combine, STYPE = cuckoo_hashset,
                                                  FINALFUNC = cuckoo_hashset_final);
  SELECT (SELECT hashset_union(s)::bytea FROM states) = (SELECT cuckoo_agg(g)::bytea FROM generate_series(1, 40000) g)")"

# A dump made with an earlier version (1.0, 1.1, 1.2) restores into a server whose
# default is newer: CREATE EXTENSION installs the default, and the old
# filters, a column default and views that call cuckoo_create and
# cuckoo_info (whose parameters 1.2 extended), and functions come back
# unchanged.
default=$(q postgres "SELECT default_version FROM pg_available_extensions WHERE name = 'cuckoo'")
for old in 1.0 1.1 1.2; do
  if ! q postgres "SELECT 1 FROM pg_available_extension_versions WHERE name = 'cuckoo' AND version = '$old'" | grep -q 1 \
     || [ "$default" = "$old" ]; then
    continue
  fi
  db="cuckoo_v${old/./}"
  createdb "$db"
  q "$db" "CREATE EXTENSION cuckoo VERSION '$old';
CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter DEFAULT cuckoo_create(100));
INSERT INTO filters SELECT 'ints', cuckoo_agg(g) FROM generate_series(1, 50000) g
UNION ALL SELECT 'fixed', cuckoo_agg(g, 100000, 0.01) FROM generate_series(1, 30000) g
UNION ALL SELECT 'texts', cuckoo_agg('key ' || g, 0.001) FROM generate_series(1, 20000) g;
INSERT INTO filters (name) VALUES ('default');
CREATE TABLE nums AS SELECT g AS k FROM generate_series(1, 1000) g;
CREATE VIEW agg_view AS SELECT cuckoo_agg(k) AS f FROM nums;
CREATE VIEW made AS SELECT cuckoo_create(500) AS a, cuckoo_create(500, 0.001, 8, max_kicks => 20) AS b;
CREATE VIEW infos AS SELECT name, i.* FROM filters, cuckoo_info(f) i;
CREATE FUNCTION has(x int) RETURNS boolean LANGUAGE sql STABLE
  AS \$\$SELECT cuckoo_contains(f, x) FROM filters WHERE name = 'ints'\$\$;" >/dev/null
  sums_sql="SELECT string_agg(name || ':' || md5(f::bytea), ',' ORDER BY name) FROM filters"
  views_sql="SELECT md5(f::bytea) || ' ' || (SELECT md5(a::bytea) || md5(b::bytea) FROM made)
                    || ' ' || (SELECT md5(string_agg(i::text, ',' ORDER BY name)) FROM infos i) FROM agg_view"
  old_sums=$(q "$db" "$sums_sql")
  old_views=$(q "$db" "$views_sql")
  pg_dump -Fc -f "$tmp/$db.dump" "$db"
  createdb "${db}_restored"
  pg_restore --exit-on-error -d "${db}_restored" "$tmp/$db.dump"
  check "a $old dump restores into $default" 0 $?
  check "restored as version $default" "$default" \
    "$(q "${db}_restored" "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")"
  check "$old filters identical after restore into $default" "$old_sums" "$(q "${db}_restored" "$sums_sql")"
  check "$old views over cuckoo_agg, cuckoo_create and cuckoo_info give the same answers in $default" \
    "$old_views" "$(q "${db}_restored" "$views_sql")"
  check "a $old SQL function over the filters still answers" "t" "$(q "${db}_restored" "SELECT has(12345)")"
  if [ "$(printf '1.3\n%s\n' "$default" | sort -V | head -n 1)" = 1.3 ]; then
    # the dump says no storage for a column at its type's default, so the
    # restored column takes 1.3's: EXTERNAL
    check "the restored filter column of a $old dump is STORAGE EXTERNAL" "e" \
      "$(q "${db}_restored" "SELECT attstorage FROM pg_attribute WHERE attrelid = 'filters'::regclass AND attname = 'f'")"
  fi
  check "the restored column default still makes the same fixed filter" "t" \
    "$(q "${db}_restored" "INSERT INTO filters (name) VALUES ('default2');
        SELECT (SELECT f FROM filters WHERE name = 'default') = (SELECT f FROM filters WHERE name = 'default2')")"
done

finish
