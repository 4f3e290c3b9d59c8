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
UNION ALL SELECT 'null', NULL;
CREATE TABLE probes AS SELECT g AS k FROM generate_series(1, 60000) g;
" >/dev/null
src_sums=$(q cuckoo_src "SELECT string_agg(name || ':' || coalesce(md5(f::bytea), 'NULL'), ',' ORDER BY name) FROM filters")
probe_sql="SELECT (SELECT count(*) FROM probes, filters WHERE name = 'ints' AND k <= 50000 AND cuckoo_contains(f, k))
            || '/' || (SELECT count(*) FILTER (WHERE f @> 'happy'::mood) FROM filters WHERE name = 'moods')
            || '/' || (SELECT count(*) FILTER (WHERE f @> 'sad'::mood) FROM filters WHERE name = 'moods')"
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
check "every inserted key is found after restore" "50000/1/0" "$(q cuckoo_custom "$probe_sql")"

# A dump of a table whose text COPY was edited by hand fails loudly on restore.
sed 's/^ints\tQ0tPTwEE/ints\tQ0tPTwEF/' "$tmp/db.sql" > "$tmp/bad.sql"
createdb cuckoo_bad
psql -X -q -v ON_ERROR_STOP=1 -d cuckoo_bad -f "$tmp/bad.sql" >"$tmp/bad.out" 2>&1
bad_rc=$?
check "a corrupted dump is refused" "3" "$bad_rc"
check "with the validator's message" "1" "$(grep -c 'invalid cuckoofilter value' "$tmp/bad.out")"

finish
