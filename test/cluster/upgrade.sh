#!/usr/bin/env bash
# ALTER EXTENSION cuckoo UPDATE from every available version, inside a
# throwaway cluster (pg_virtualenv sets PGHOST, PGPORT, PGUSER).
#
#   1. The chain is complete: every version the server knows
#      (pg_available_extension_versions) has an update path to the default.
#   2. For each version V: a fresh database gets CREATE EXTENSION cuckoo
#      VERSION 'V', tables of filters (with a generated column, a CHECK, a
#      column default, btree and hash indexes), views, a materialized view and
#      SQL functions that use cuckoo (among them cuckoo_create and cuckoo_info,
#      whose parameters 1.2 extends); then ALTER EXTENSION cuckoo UPDATE TO
#      each later version in turn, the answers checked after every step.
#      Afterwards the version is the default; the extension's member objects
#      and their definitions (functions, aggregates, type, casts, operators,
#      operator classes and families, event triggers and their tags, comments,
#      owners, privileges, dependencies; the tables' privileges and triggers) equal those of a fresh CREATE EXTENSION cuckoo in another
#      database; every stored filter is byte-identical, passes the validator and
#      answers every probe (members, absent keys, cuckoo_info, views) exactly as
#      before; the indexes pass amcheck; and the same update also works when
#      run by the database owner (cuckoo is a trusted extension).
#      From 1.3 on the old side: a stored filter tracking two columns and a
#      view of cuckoo_store_info made under the old definition; before the
#      update the library answers with that definition's columns, after it
#      the view answers the same, and from 1.4 the trackings are listed.
#
# Versions come from the installed control and script files, so 1.1, 1.2 ...
# are walked as soon as their cuckoo--A--B.sql scripts are installed.  Only
# functions of version 1.0 are used on the old side, so the test data is the
# same for every starting version.  test/upgrade_selftest.sh shows that this
# test fails when an update script is wrong.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
started=$(date +%s)

# Every member object of the extension and its full definition, one sorted
# line each, with no OIDs (they differ between databases).
read -r -d '' CATALOG_SQL <<'SQL'
WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'cuckoo'),
m AS (SELECT d.classid, d.objid, d.objsubid
      FROM pg_depend d, ext
      WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
fam AS (SELECT objid FROM m WHERE classid = 'pg_opfamily'::regclass),
lines(l) AS (
  SELECT 'extension: ' || concat_ws(' ', e.extname, pg_get_userbyid(e.extowner) = current_user,
         e.extnamespace::regnamespace, e.extrelocatable, e.extversion, e.extconfig::regclass[], e.extcondition)
  FROM pg_extension e, ext WHERE e.oid = ext.oid
  UNION ALL
  SELECT 'member: ' || pg_describe_object(classid, objid, objsubid) FROM m
  UNION ALL
  SELECT 'comment: ' || pg_describe_object(m.classid, m.objid, m.objsubid) || ': ' || d.description
  FROM m JOIN pg_description d ON d.classoid = m.classid AND d.objoid = m.objid AND d.objsubid = m.objsubid
  UNION ALL
  SELECT 'depends: ' || pg_describe_object(m.classid, m.objid, m.objsubid) || ' -> '
         || pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) || ' ' || d.deptype::text
  FROM m JOIN pg_depend d ON d.classid = m.classid AND d.objid = m.objid AND d.objsubid = m.objsubid
  WHERE d.deptype <> 'e'
  UNION ALL
  SELECT 'proc: ' || concat_ws(' | ', p.oid::regprocedure, p.pronamespace::regnamespace,
         pg_get_userbyid(p.proowner), l.lanname, p.procost, p.prorows, p.provariadic::regtype,
         p.prosupport::oid::regprocedure, p.prokind, p.prosecdef, p.proleakproof, p.proisstrict,
         p.proretset, p.provolatile, p.proparallel, p.pronargs, p.pronargdefaults,
         pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), p.proargnames,
         p.proargmodes, p.proconfig, p.proacl, p.prosrc, p.probin)
  FROM m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
  JOIN pg_language l ON l.oid = p.prolang
  UNION ALL
  SELECT 'functiondef: ' || pg_get_functiondef(p.oid)
  FROM m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
  WHERE p.prokind <> 'a'
  UNION ALL
  SELECT 'aggregate: ' || concat_ws(' | ', a.aggfnoid::regprocedure, a.aggkind, a.aggnumdirectargs,
         a.aggtransfn::oid::regprocedure, a.aggfinalfn::oid::regprocedure,
         a.aggcombinefn::oid::regprocedure, a.aggserialfn::oid::regprocedure,
         a.aggdeserialfn::oid::regprocedure, a.aggmtransfn::oid::regprocedure,
         a.aggminvtransfn::oid::regprocedure, a.aggmfinalfn::oid::regprocedure,
         a.aggfinalextra, a.aggmfinalextra, a.aggfinalmodify, a.aggmfinalmodify,
         a.aggsortop::regoperator, a.aggtranstype::regtype, a.aggtransspace,
         a.aggmtranstype::regtype, a.aggmtransspace, a.agginitval, a.aggminitval)
  FROM m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
  UNION ALL
  SELECT 'type: ' || concat_ws(' | ', t.oid::regtype, t.typnamespace::regnamespace,
         pg_get_userbyid(t.typowner), t.typlen, t.typbyval, t.typtype, t.typcategory,
         t.typispreferred, t.typisdefined, t.typdelim, t.typrelid::regclass, to_jsonb(t) ->> 'typsubscript',  -- from 14
         t.typelem::regtype, t.typarray::regtype, t.typinput::oid::regprocedure,
         t.typoutput::oid::regprocedure, t.typreceive::oid::regprocedure,
         t.typsend::oid::regprocedure, t.typmodin::oid::regprocedure,
         t.typmodout::oid::regprocedure, t.typanalyze::oid::regprocedure, t.typalign,
         t.typstorage, t.typnotnull, t.typbasetype::regtype, t.typtypmod, t.typndims,
         t.typcollation, t.typdefault, t.typacl)
  FROM m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
  UNION ALL
  SELECT 'cast: ' || concat_ws(' | ', c.castsource::regtype, c.casttarget::regtype,
         c.castfunc::regprocedure, c.castcontext, c.castmethod)
  FROM m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
  UNION ALL
  SELECT 'operator: ' || concat_ws(' | ', o.oid::regoperator, o.oprnamespace::regnamespace,
         pg_get_userbyid(o.oprowner), o.oprkind, o.oprcanmerge, o.oprcanhash,
         o.oprresult::regtype, o.oprcom::regoperator, o.oprnegate::regoperator,
         o.oprcode::oid::regprocedure, o.oprrest::oid::regprocedure, o.oprjoin::oid::regprocedure)
  FROM m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
  UNION ALL
  SELECT 'opclass: ' || concat_ws(' | ', c.opcname, am.amname, c.opcnamespace::regnamespace,
         pg_get_userbyid(c.opcowner), f.opfname, c.opcintype::regtype, c.opcdefault,
         c.opckeytype::regtype)
  FROM m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
  JOIN pg_am am ON am.oid = c.opcmethod JOIN pg_opfamily f ON f.oid = c.opcfamily
  UNION ALL
  SELECT 'opfamily: ' || concat_ws(' | ', f.opfname, am.amname, f.opfnamespace::regnamespace,
         pg_get_userbyid(f.opfowner))
  FROM m JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
  JOIN pg_am am ON am.oid = f.opfmethod
  UNION ALL
  SELECT 'amop: ' || concat_ws(' | ', f.opfname, am.amname, o.amopstrategy, o.amoplefttype::regtype,
         o.amoprighttype::regtype, o.amopopr::regoperator, o.amoppurpose, o.amopsortfamily)
  FROM pg_amop o JOIN fam ON fam.objid = o.amopfamily JOIN pg_opfamily f ON f.oid = o.amopfamily
  JOIN pg_am am ON am.oid = o.amopmethod
  UNION ALL
  SELECT 'event trigger: ' || concat_ws(' | ', e.evtname, e.evtevent, pg_get_userbyid(e.evtowner),
         e.evtfoid::regprocedure, e.evtenabled, e.evttags)
  FROM m JOIN pg_event_trigger e ON m.classid = 'pg_event_trigger'::regclass AND e.oid = m.objid
  UNION ALL
  SELECT 'relation: ' || concat_ws(' | ', c.oid::regclass, c.relkind, pg_get_userbyid(c.relowner), c.relacl)
  FROM m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid AND m.objsubid = 0
  UNION ALL
  SELECT 'trigger: ' || concat_ws(' | ', pg_get_triggerdef(t.oid), t.tgenabled)
  FROM m JOIN pg_trigger t ON m.classid = 'pg_class'::regclass AND t.tgrelid = m.objid AND m.objsubid = 0
  WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'amproc: ' || concat_ws(' | ', f.opfname, am.amname, p.amprocnum, p.amproclefttype::regtype,
         p.amprocrighttype::regtype, p.amproc::oid::regprocedure)
  FROM pg_amproc p JOIN fam ON fam.objid = p.amprocfamily JOIN pg_opfamily f ON f.oid = p.amprocfamily
  JOIN pg_am am ON am.oid = f.opfmethod
)
SELECT l FROM lines ORDER BY l COLLATE "C";
SQL

# User objects that depend on cuckoo, built with version 1.0's functions only.
read -r -d '' SETUP_SQL <<'SQL'
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE filters (
  name text PRIMARY KEY,
  f cuckoofilter DEFAULT cuckoo_create(100),
  items bigint GENERATED ALWAYS AS ((cuckoo_info(f)).items) STORED,
  CHECK (f IS NULL OR (cuckoo_info(f)).bucket_size IN (2, 4, 8)));
INSERT INTO filters (name, f)
SELECT 'ints', cuckoo_agg(g) FROM generate_series(1, 50000) g
UNION ALL SELECT 'texts', cuckoo_agg('key ' || g, 0.001) FROM generate_series(1, 20000) g
UNION ALL SELECT 'fixed', cuckoo_agg(g, 100000, 0.01) FROM generate_series(1, 30000) g
UNION ALL SELECT 'semisort', cuckoo_add_array(cuckoo_create(1000, semisort => true), ARRAY(SELECT generate_series(1, 900)))
UNION ALL SELECT 'b2', cuckoo_add_array(cuckoo_create(1000, 0.05, 2), ARRAY(SELECT generate_series(1, 700)))
UNION ALL SELECT 'b8', cuckoo_add_array(cuckoo_create(1000, 0.001, 8, max_kicks => 50), ARRAY(SELECT generate_series(1, 900)))
UNION ALL SELECT 'removed', cuckoo_remove_array(cuckoo_add_array(cuckoo_create(2000), ARRAY(SELECT generate_series(1, 1000))),
                                                ARRAY(SELECT generate_series(2, 1000, 2)))
UNION ALL SELECT 'full', cuckoo_add_array(cuckoo_create(4, max_kicks => 0), ARRAY[1, 2, 3, 4, 5])
UNION ALL SELECT 'moods', cuckoo_add_array(cuckoo_create(10), ARRAY['ok', 'happy']::mood[])
UNION ALL SELECT 'uuids', cuckoo_agg(md5(g::text)::uuid) FROM generate_series(1, 3000) g
UNION ALL SELECT 'empty', cuckoo_create(1000)
UNION ALL SELECT 'null', NULL;
INSERT INTO filters (name) VALUES ('default');
CREATE INDEX filters_f_hash ON filters USING hash (f);
-- btree index rows must stay under about 2.7 kB: small filters of their own
CREATE TABLE small AS
  SELECT g AS id, cuckoo_agg(k, 40, 0.01) AS f FROM generate_series(1, 300) g, generate_series(g, g + 20) k GROUP BY g;
CREATE INDEX small_f_btree ON small (f);
CREATE INDEX small_f_hash ON small USING hash (f);
CREATE VIEW filter_shapes AS
  SELECT name, i.buckets, i.bucket_size, i.fingerprint_bits, i.semisort, i.items, i.capacity,
         i.bytes, i.value_type, i.max_kicks, i.is_full
  FROM filters, cuckoo_info(f) i;
CREATE VIEW int_hits AS
  SELECT k, (SELECT f FROM filters WHERE name = 'ints') @> k AS hit,
         cuckoo_count((SELECT f FROM filters WHERE name = 'ints'), k) AS copies
  FROM generate_series(1::bigint, 60000) k;
CREATE MATERIALIZED VIEW daily AS
  SELECT g % 3 AS d, cuckoo_agg(g, 5000, 0.01) AS f FROM generate_series(1, 3000) g GROUP BY 1;
CREATE FUNCTION has_key(n text, k bigint) RETURNS boolean LANGUAGE sql STABLE
  AS $$ SELECT cuckoo_contains(f, k) FROM filters WHERE name = n $$;
-- objects that depend on cuckoo_create and cuckoo_info, whose parameters 1.2
-- extends (the update rewrites them in place): views calling them with
-- defaults and by name, every column of cuckoo_info, and, from 14, a SQL
-- function body parsed at creation (it records a dependency)
CREATE VIEW made AS
  SELECT cuckoo_create(500) AS a, cuckoo_create(500, 0.001, 8, max_kicks => 20) AS b,
         cuckoo_create(300, 0.01, 4, NULL, 500, true) AS c;
CREATE VIEW all_info AS SELECT name, i.* FROM filters, cuckoo_info(f) i;
-- column storage, which 1.3 switches from EXTENDED to EXTERNAL where it is
-- still the type's old default: a domain column, a column its owner set to
-- MAIN (kept), an array column (not switched), a partitioned table and its
-- partition; the materialized view daily and the tables above too
CREATE DOMAIN filter_dom AS cuckoofilter;
CREATE TABLE storage_cases (a cuckoofilter, m cuckoofilter, d filter_dom, arr cuckoofilter[]);
ALTER TABLE storage_cases ALTER COLUMN m SET STORAGE MAIN;
INSERT INTO storage_cases SELECT f, f, f, ARRAY[f] FROM filters WHERE name = 'ints';
CREATE TABLE parted (k int, f cuckoofilter) PARTITION BY RANGE (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100);
INSERT INTO parted SELECT 1, f FROM filters WHERE name = 'ints';
DO $do$ BEGIN
  IF current_setting('server_version_num')::int >= 140000 THEN
    EXECUTE $f$CREATE FUNCTION made_in_body() RETURNS cuckoofilter LANGUAGE sql IMMUTABLE
               BEGIN ATOMIC SELECT cuckoo_create(700, 0.001); END$f$;
  ELSE
    EXECUTE $f$CREATE FUNCTION made_in_body() RETURNS cuckoofilter LANGUAGE sql IMMUTABLE
               AS 'SELECT cuckoo_create(700, 0.001)'$f$;
  END IF;
END $do$;
SQL

# What the stored data answers: bytes, shapes, members, absent keys, views.
read -r -d '' ANSWERS_SQL <<'SQL'
WITH probes AS (  -- name, how many keys 1..n were added, the keys probed
  SELECT * FROM (VALUES ('ints', 50000, 60000), ('fixed', 30000, 60000), ('semisort', 900, 60000),
                        ('b2', 700, 60000), ('b8', 900, 60000), ('full', 5, 60000)) v(name, n, upto))
SELECT 'bytes ' || name || ' ' || coalesce(md5(f::bytea), 'NULL') FROM filters
UNION ALL SELECT 'generated ' || name || ' ' || coalesce(items::text, 'NULL') FROM filters
UNION ALL SELECT 'shape ' || s::text FROM filter_shapes s
UNION ALL SELECT name || ' ' || count(*) FILTER (WHERE hit AND i <= n) || ' ' || count(*) FILTER (WHERE hit AND i > n)
          FROM filters JOIN probes USING (name),
               unnest(cuckoo_contains_array(f, ARRAY(SELECT generate_series(1, upto)))) WITH ORDINALITY u(hit, i)
          GROUP BY name
UNION ALL SELECT 'texts ' || count(*) FILTER (WHERE hit AND i <= 20000) || ' ' || count(*) FILTER (WHERE hit AND i > 20000)
          FROM filters, unnest(cuckoo_contains_array(f, ARRAY(SELECT 'key ' || g FROM generate_series(1, 40000) g)))
                        WITH ORDINALITY u(hit, i) WHERE name = 'texts'
UNION ALL SELECT 'uuids ' || count(*) FILTER (WHERE hit AND i <= 3000) || ' ' || count(*) FILTER (WHERE hit AND i > 3000)
          FROM filters, unnest(cuckoo_contains_array(f, ARRAY(SELECT md5(g::text)::uuid FROM generate_series(1, 6000) g)))
                        WITH ORDINALITY u(hit, i) WHERE name = 'uuids'
UNION ALL SELECT 'removed ' || count(*) FILTER (WHERE hit AND i % 2 = 1) || ' ' || count(*) FILTER (WHERE hit AND i % 2 = 0)
          FROM filters, unnest(cuckoo_contains_array(f, ARRAY(SELECT generate_series(1, 1000)))) WITH ORDINALITY u(hit, i)
          WHERE name = 'removed'
UNION ALL SELECT 'moods ' || string_agg(m::text || '=' || (f @> m), ',' ORDER BY m)
          FROM filters, unnest(enum_range(NULL::mood)) m WHERE name = 'moods'
UNION ALL SELECT 'int_hits ' || count(*) FILTER (WHERE hit AND k <= 50000) || ' ' || count(*) FILTER (WHERE hit AND k > 50000)
                 || ' ' || sum(copies) FROM int_hits
UNION ALL SELECT 'daily ' || d || ' ' || md5(f::bytea) || ' '
                 || (SELECT count(*) FILTER (WHERE hit) FROM unnest(cuckoo_contains_array(f, ARRAY(SELECT g FROM generate_series(1, 3000) g WHERE g % 3 = d))) hit)
          FROM daily
UNION ALL SELECT 'small ' || count(*) || ' ' || md5(string_agg(md5(f::bytea), ',' ORDER BY id))
                 || ' ' || count(*) FILTER (WHERE f @> id AND f @> (id + 20)) FROM small
UNION ALL SELECT 'has_key ' || has_key('ints', 42) || ' ' || has_key('fixed', 29999) || ' ' || has_key('removed', 2)
UNION ALL SELECT 'union ' || name || ' ' || md5(cuckoo_union(f, f)::bytea) FROM filters WHERE f IS NOT NULL AND name <> 'full'
UNION ALL SELECT 'union_agg ' || md5(cuckoo_union_agg(f ORDER BY d)::bytea) FROM daily
UNION ALL SELECT 'shrink ' || name || ' ' || md5(cuckoo_shrink(f)::bytea) FROM filters WHERE f IS NOT NULL
UNION ALL SELECT 'made ' || md5(a::bytea) || ' ' || md5(b::bytea) || ' ' || md5(c::bytea) || ' ' || md5(made_in_body()::bytea) FROM made
UNION ALL SELECT 'all_info ' || md5(string_agg(a::text, ',' ORDER BY name)) FROM all_info a
UNION ALL SELECT 'storage_cases ' || md5(a::bytea) || ' ' || md5(m::bytea) || ' ' || md5(d::bytea) || ' '
                 || md5(arr[1]::bytea) || ' ' || (a @> 4242) || (m @> 4242) || (d @> 4242) || (arr[1] @> 4242)
          FROM storage_cases
UNION ALL SELECT 'parted ' || md5(f::bytea) || ' ' || (f @> 4242) FROM parted
ORDER BY 1;
SQL

# dump DB SQL FILE: the query's output, or a failed check when it fails or is empty
dump() {
  if ! q "$1" "$2" >"$3" 2>"$tmp/dump.err" || [ ! -s "$3" ]; then
    check "$1: query for $(basename "$3") runs and returns rows" "" "$(head -c 300 "$tmp/dump.err")"
  fi
}

# The members that must be found, from the answers above ("name found absent").
expected_members='ints 50000|int_hits 50000|texts 20000|fixed 30000|semisort 900|b2 700|b8 900|full 5|removed 500|uuids 3000'
members_found() {  # members_found ANSWERS-FILE -> the same list from the data
  awk '$1 == "ints" || $1 == "int_hits" || $1 == "texts" || $1 == "fixed" || $1 == "semisort" || $1 == "b2" ||
       $1 == "b8" || $1 == "full" || $1 == "removed" || $1 == "uuids" { print $1 " " $2 }' "$1" |
    sort -t' ' -k1,1 | awk -v order="$expected_members" '
      BEGIN { n = split(order, o, "|"); for (i = 1; i <= n; i++) { split(o[i], p, " "); want[i] = p[1] } }
      { got[$1] = $0 }
      END { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "|" : "") got[want[i]]; print s }'
}

# index_lookup DB TABLE INDEX [SQL...]: in one transaction, rolled back at
# the end, runs each SQL, then plans and runs the self-join of TABLE on f with
# sequential and bitmap scans, hash and merge joins and Materialize nodes
# disabled; prints "L N": L is 1 when the plan looks f up in INDEX (a scan of
# INDEX with an Index Cond on f; a whole-index scan does not count), else 0;
# N is the join's count.  A plan without a lookup has one more disabled node
# (a second sequential scan) or, for a btree, rescans the whole index once per
# row (no Materialize), hundreds of times the cost; so L depends neither on
# statistics or the visibility map (autovacuum) nor on ties between plan
# costs, on any version.  The lock of the DROP INDEX in SQL keeps the table's
# statistics as they are until the count has run with the plan shown.  psql's output (plan and count, or the error)
# stays in $tmp/plan for the failure message.  The plan is matched as a file:
# "echo "$out" | grep -q" under pipefail fails when grep exits at the match
# before echo has written the last line (echo dies of SIGPIPE), which made
# this check flake on a loaded machine with '' for L.
index_lookup() {
  local db=$1 tbl=$2 idx=$3 s pre=()
  shift 3
  for s in "$@"; do pre+=(-c "$s"); done
  # one -c per statement (one session, one transaction): psql before 15
  # prints only the last result of a multi-statement -c, here the ROLLBACK's
  psql -X -qAt -v ON_ERROR_STOP=1 -d "$db" -c "BEGIN" "${pre[@]}" \
    -c "SET LOCAL enable_seqscan = off" -c "SET LOCAL enable_bitmapscan = off" \
    -c "SET LOCAL enable_hashjoin = off" -c "SET LOCAL enable_mergejoin = off" \
    -c "SET LOCAL enable_material = off" -c "SET LOCAL jit = off" \
    -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM $tbl a WHERE EXISTS (SELECT FROM $tbl b WHERE b.f = a.f)" \
    -c "SELECT count(*) FROM $tbl a WHERE EXISTS (SELECT FROM $tbl b WHERE b.f = a.f)" \
    -c "ROLLBACK" >"$tmp/plan" 2>&1
  echo "$(awk -v idx="$idx" '
            scan && $0 ~ /^ *Index Cond: \(f = [ab]\.f\)$/ { n++ }
            { scan = $0 ~ ("(Index (Only )?Scan using|Bitmap Index Scan on) " idx "( |$)") }
            END { print (n > 0) ? 1 : 0 }' "$tmp/plan") $(tail -n 1 "$tmp/plan")"
}

# Databases and the role of an earlier run in this cluster (test/upgrade_selftest.sh runs it repeatedly).
for old in $(q postgres "SELECT datname FROM pg_database WHERE datname LIKE 'up\_%'"); do dropdb "$old"; done
q postgres "DROP ROLE IF EXISTS up_owner" >/dev/null

default=$(q postgres "SELECT default_version FROM pg_available_extensions WHERE name = 'cuckoo'")
check "cuckoo is installed on this server" 1 "$([ -n "$default" ] && echo 1 || echo 0)"
versions=$(q postgres "SELECT version FROM pg_available_extension_versions WHERE name = 'cuckoo'" | sort -V)
echo "# default version $default; available versions: $(echo $versions)"
# UPGRADE_FROM="V ...": start from these versions only (each still updated
# through every later one); test/upgrade_selftest.sh's scenarios that must
# fail use it, their failing check being one of the first start's
starts=$versions
if [ -n "${UPGRADE_FROM:-}" ]; then
  starts=$(for v in $versions; do case " $UPGRADE_FROM " in *" $v "*) echo "$v" ;; esac; done)
  echo "# starting from $(echo $starts) only (UPGRADE_FROM)"
fi

# The scripts tested are the installed ones: each script of this checkout
# must be installed unchanged (a new script missing from the Makefile's DATA
# would otherwise go untested).
extdir="$("${PG_CONFIG:-pg_config}" --sharedir)/extension"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
stale=""
for f in "$repo"/cuckoo.control "$repo"/cuckoo--*.sql; do
  cmp -s "$f" "$extdir/$(basename "$f")" || stale="$stale $(basename "$f")"
done
check "every script and the control file of this checkout are installed unchanged" "" "$stale"

# 1. The chain: every version reaches the default.
missing=$(q postgres "SELECT coalesce(string_agg(source, ', ' ORDER BY source), '')
                      FROM pg_extension_update_paths('cuckoo')
                      WHERE target = '$default' AND source <> target AND path IS NULL")
check "every version has an update path to $default" "" "$missing"
q postgres "SELECT '# path ' || source || ': ' || path FROM pg_extension_update_paths('cuckoo')
            WHERE target = '$default' AND source <> target AND path IS NOT NULL ORDER BY source"

# The reference: a fresh install of the default version.
createdb up_fresh
q up_fresh "CREATE EXTENSION cuckoo" >/dev/null
dump up_fresh "$CATALOG_SQL" "$tmp/fresh.catalog"
check "fresh install is version $default" "$default" \
  "$(q up_fresh "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")"
echo "# a fresh install has $(grep -c '^member: ' "$tmp/fresh.catalog") member objects; $(wc -l <"$tmp/fresh.catalog") catalog lines are compared"
# The index check can fail: a btree index whose operator class has another
# equality operator than the column's = (here === on the same function) can
# be scanned whole but not looked up with =.
got=$(index_lookup up_fresh small small_f_other_eq \
  "CREATE TABLE small AS SELECT g AS id, cuckoo_agg(k, 40, 0.01) AS f FROM generate_series(1, 300) g, generate_series(g, g + 20) k GROUP BY g" \
  "CREATE OPERATOR === (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_eq)" \
  "CREATE OPERATOR CLASS up_other_eq_ops FOR TYPE cuckoofilter USING btree AS
     OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 ===, OPERATOR 4 >=, OPERATOR 5 >, FUNCTION 1 cuckoo_cmp(cuckoofilter, cuckoofilter)" \
  "CREATE INDEX small_f_other_eq ON small (f up_other_eq_ops)")
check "the index check finds no lookup through an index whose operator class lacks the column's =" "0 300" "$got"
[ "$got" = "0 300" ] || sed 's/^/# /' "$tmp/plan"
q postgres "CREATE ROLE up_owner LOGIN PASSWORD 'up_pw'" >/dev/null
have_amcheck=$(q postgres "SELECT count(*) FROM pg_available_extensions WHERE name = 'amcheck'")

walked=0
for v in $starts; do
  db="up_$(echo "$v" | tr -c 'a-zA-Z0-9\n' '_')"
  createdb "$db"
  if ! q "$db" "CREATE EXTENSION cuckoo VERSION '$v'" >"$tmp/create.out" 2>&1; then
    check "$v: CREATE EXTENSION cuckoo VERSION '$v'" "" "$(cat "$tmp/create.out")"
    continue
  fi
  q "$db" "$SETUP_SQL" >/dev/null || check "$v: test tables and views created" "" "failed"
  dump "$db" "$ANSWERS_SQL" "$tmp/before.answers"
  dump "$db" "$CATALOG_SQL" "$tmp/old.catalog"
  # From 1.3: a stored filter tracking two columns, and a view of
  # cuckoo_store_info made under the old definition.  Before the update the
  # library (of the default version) serves that definition's columns.
  has_store=0
  if [ "$(printf '1.3\n%s\n' "$v" | sort -V | head -n 1)" = 1.3 ]; then
    has_store=1
    q "$db" "SELECT cuckoo_store_create('up_store', 1000);
             CREATE TABLE tracked (id int, k int8, k2 int8);
             INSERT INTO tracked SELECT g, g, -g FROM generate_series(1, 300) g;
             SELECT cuckoo_store_track('up_store', 'tracked', 'k');
             SELECT cuckoo_store_track('up_store', 'tracked', 'k2');
             CREATE VIEW store_info AS SELECT * FROM cuckoo_store_info('up_store')" >/dev/null \
      || check "$v: a tracked store and a view of cuckoo_store_info created" "" "failed"
    # A store grown 300 times in the layout of 1.3 to 1.5 (a segment as one
    # value in f), made by hand from a store of the current library's
    # layout (chunk rows, 1.6), so that the update to 1.6 converts it: its
    # bytes and every value must survive.  Also a table shaped like a store
    # in a quoted schema with a primary key of its own name.
    q "$db" "SELECT cuckoo_store_create('up_chunked', 100);
             SELECT cuckoo_store_add_array('up_chunked', ARRAY(SELECT generate_series(1, 30000)::int8));
             CREATE TABLE up_grown (segment int4 PRIMARY KEY, f cuckoofilter NOT NULL, fpr float8,
                                    capacity int8, segments int4) WITH (fillfactor = 75, toast_tuple_target = 8160);
             INSERT INTO up_grown SELECT segment, string_agg(bytes, ''::bytea ORDER BY chunk)::cuckoofilter,
                                         max(fpr), max(capacity), max(segments) FROM up_chunked GROUP BY segment;
             DROP TABLE up_chunked;
             CREATE SCHEMA \"up S\";
             CREATE TABLE \"up S\".\"T x\" (segment int4 CONSTRAINT odd_pk PRIMARY KEY, f cuckoofilter NOT NULL,
                                          fpr float8, capacity int8, segments int4);
             INSERT INTO \"up S\".\"T x\" SELECT * FROM up_grown" >/dev/null \
      || check "$v: a grown store in the layout of 1.5 made by hand" "" "failed"
    grown_before=$(q "$db" "SELECT md5(string_agg(f::bytea, ''::bytea ORDER BY segment)) || ' ' || count(*) FROM up_grown")
    store_cols_sql="SELECT string_agg(key, ',' ORDER BY key) FROM cuckoo_store_info('up_store') i, json_object_keys(row_to_json(i)) key"
    store_view_before=$(q "$db" "SELECT row_to_json(s)::text FROM store_info s")
    old_cols=$(q "$db" "$store_cols_sql" 2>&1)
  fi
  # Walk the chain one version at a time (1.0 -> 1.1 -> 1.2 ...): after each
  # step the stored data and the dependent objects answer as before.
  step_failed=0
  for w in $versions; do
    if [ "$(printf '%s\n%s\n' "$v" "$w" | sort -V | head -n 1)" = "$w" ]; then continue; fi
    if ! q "$db" "ALTER EXTENSION cuckoo UPDATE TO '$w'" >"$tmp/update.out" 2>&1; then
      check "$v: ALTER EXTENSION cuckoo UPDATE TO '$w'" "" "$(cat "$tmp/update.out")"
      step_failed=1
      break
    fi
    if [ "$w" != "$default" ]; then
      dump "$db" "$ANSWERS_SQL" "$tmp/step.answers"
      check "$v: after the step to $w, stored filters, probes, unions and views answer as before" \
        "$(md5sum <"$tmp/before.answers")" "$(md5sum <"$tmp/step.answers")"
    fi
  done
  [ "$step_failed" = 0 ] || continue
  if ! q "$db" "ALTER EXTENSION cuckoo UPDATE" >"$tmp/update.out" 2>&1; then
    check "$v: ALTER EXTENSION cuckoo UPDATE" "" "$(cat "$tmp/update.out")"
    continue
  fi
  walked=$((walked + 1))
  check "$v: version after update is the default" "$default" \
    "$(q "$db" "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")"

  dump "$db" "$CATALOG_SQL" "$tmp/updated.catalog"
  diff "$tmp/fresh.catalog" "$tmp/updated.catalog" >"$tmp/catalog.diff"
  check "$v: member objects equal a fresh install (lines that differ)" 0 \
    "$(grep '^[<>] member: ' "$tmp/catalog.diff" | wc -l)"
  check "$v: definitions, comments, owners, privileges, dependencies equal a fresh install" \
    0 "$(grep -c '^[<>]' "$tmp/catalog.diff")"
  grep '^[<>]' "$tmp/catalog.diff" | head -n 20 | cut -c1-200 | sed 's/^</# only in a fresh install:/; s/^>/# only after the update:/'
  echo "# $v: $(diff "$tmp/old.catalog" "$tmp/updated.catalog" | grep -c '^[<>]') catalog lines changed by the update"

  dump "$db" "$ANSWERS_SQL" "$tmp/after.answers"
  check "$v: stored filters, shapes, probes and views answer exactly as before the update" \
    "$(md5sum <"$tmp/before.answers")" "$(md5sum <"$tmp/after.answers")"
  diff "$tmp/before.answers" "$tmp/after.answers" | grep '^[<>]' | head -n 10 | sed 's/^/# /'
  check "$v: every member key is found, before and after" \
    "$expected_members/$expected_members" "$(members_found "$tmp/before.answers")/$(members_found "$tmp/after.answers")"
  check "$v: every stored filter passes the validator and round-trips as text and binary" "t" \
    "$(q "$db" "SELECT bool_and(f::bytea::cuckoofilter = f AND f::text::cuckoofilter = f) FROM filters WHERE f IS NOT NULL")"
  if [ "$have_amcheck" = 1 ]; then
    q "$db" "CREATE EXTENSION amcheck" >/dev/null
    check "$v: the btree index on filters passes amcheck (order and every row)" "" \
      "$(q "$db" "SELECT bt_index_check('small_f_btree', true)" 2>&1)"
  fi
  for idx in small_f_btree small_f_hash filters_f_hash; do
    tbl=${idx%%_f_*}
    other=$([ "$idx" = small_f_btree ] && echo small_f_hash || echo small_f_btree)
    want="1 $(q "$db" "SELECT count(f) FROM $tbl")"
    got=$(index_lookup "$db" "$tbl" "$idx" "DROP INDEX $other")
    check "$v: index $idx is used and finds every stored filter" "$want" "$got"
    [ "$got" = "$want" ] || sed 's/^/# /' "$tmp/plan"
  done
  check "$v: the updated extension works on the stored data" "t|t|5|t|t" \
    "$(q "$db" "UPDATE filters SET f = cuckoo_add(f, 60001::bigint) WHERE name = 'ints';
                REFRESH MATERIALIZED VIEW daily;
                SELECT has_key('ints', 60001), (SELECT f @> 'sad'::mood FROM filters WHERE name = 'moods') IS NOT NULL,
                       (SELECT (cuckoo_info(f)).items FROM filters WHERE name = 'full'),
                       (SELECT cuckoo_union_agg(f) @> 2999 FROM daily),
                       (SELECT items = 50001 FROM filters WHERE name = 'ints')")"
  check "$v: the stored column default, views and function body still make version-1 filters, as a fresh install does" \
    "$(q up_fresh "SELECT md5(cuckoo_create(100)::bytea) || md5(cuckoo_create(500)::bytea) || md5(cuckoo_create(700, 0.001)::bytea)")" \
    "$(q "$db" "INSERT INTO filters (name) VALUES ('default2');
                SELECT (SELECT md5(f::bytea) FROM filters WHERE name = 'default2') || (SELECT md5(a::bytea) FROM made)
                       || md5(made_in_body()::bytea)")"
  if [ "$(printf '1.2\n%s\n' "$default" | sort -V | head -n 1)" = 1.2 ]; then
    check "$v: the 1.2 functions work in the updated database" "2|2|t|1" \
      "$(q "$db" "SELECT (cuckoo_info(cuckoo_create(100, expansion => 2))).format_version,
                         (cuckoo_info(cuckoo_rotate(f, 2))).format_version,
                         (SELECT count(*) FROM unnest(cuckoo_contains_array(cuckoo_rotate(f, 2), ARRAY(SELECT generate_series(1, 50000)))) h WHERE h) = 50000,
                         (SELECT (cuckoo_info(f)).format_version FROM filters WHERE name = 'fixed')
                  FROM filters WHERE name = 'ints'")"
  fi
  # 1.3: columns of the type still at the old default storage (EXTENDED)
  # are switched to EXTERNAL, the type's new default; others are kept
  storage_sql="SELECT string_agg(a.attrelid::regclass || '.' || a.attname || '=' || a.attstorage::text, ' '
                                 ORDER BY a.attrelid::regclass::text, a.attname)
               FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
               WHERE c.relname IN ('filters', 'small', 'daily', 'storage_cases', 'parted', 'parted_1')
                 AND a.attnum > 0 AND NOT a.attisdropped
                 AND format_type(a.atttypid, NULL) IN ('cuckoofilter', 'filter_dom', 'cuckoofilter[]')"
  if [ "$(printf '1.3\n%s\n' "$default" | sort -V | head -n 1)" = 1.3 ]; then
    check "$v: the update switched the filter columns to STORAGE EXTERNAL (MAIN and arrays kept)" \
      "daily.f=e filters.f=e parted.f=e parted_1.f=e small.f=e storage_cases.a=e storage_cases.arr=x storage_cases.d=e storage_cases.m=m" \
      "$(q "$db" "$storage_sql")"
    check "$v: the type and the domain over it default to EXTERNAL" "e e" \
      "$(q "$db" "SELECT (SELECT typstorage::text FROM pg_type WHERE oid = 'cuckoofilter'::regtype) || ' ' || (SELECT typstorage::text FROM pg_type WHERE oid = 'filter_dom'::regtype)")"
  fi
  if [ "$has_store" = 1 ]; then
    old_want=bytes,capacity,expected_fpr,fpr,items,segments,value_type
    [ "$(printf '1.4\n%s\n' "$v" | sort -V | head -n 1)" = 1.4 ] && old_want=bytes,capacity,expected_fpr,fpr,items,segments,trackings,value_type
    check "$v: before the update, cuckoo_store_info answered with $v's definition (its columns)" "$old_want" "$old_cols"
    check "$v: the view of cuckoo_store_info answers as before the update" \
      "$store_view_before" "$(q "$db" "SELECT row_to_json(s)::text FROM store_info s" 2>&1)"
    if [ "$(printf '1.6\n%s\n' "$default" | sort -V | head -n 1)" = 1.6 ] && [ "$(printf '1.6\n%s\n' "$v" | sort -V | head -n 1)" != 1.6 ]; then
      check "$v: the update converted the grown store to chunk rows, byte for byte, every value found" \
        "$grown_before|0|0|t|t|t" \
        "$(q "$db" "SELECT (SELECT md5(string_agg(f::bytea, ''::bytea ORDER BY segment)) || ' ' || count(*) FROM cuckoo_store_segments('up_grown')),
                           (SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('up_grown', g::int8)) FROM generate_series(1, 30000) g),
                           (SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('\"up S\".\"T x\"', g::int8)) FROM generate_series(1, 30000) g),
                           (SELECT count(*) > 20 FROM up_grown),
                           (SELECT pg_get_indexdef(indexrelid) LIKE '%(segment, chunk)' FROM pg_index WHERE indrelid = 'up_grown'::regclass),
                           (SELECT NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'up_grown'::regclass AND attname = 'f'))" 2>&1)"
      check "$v: the converted store changes and grows" "10000 0" \
        "$(q "$db" "SELECT cuckoo_store_add_array('up_grown', ARRAY(SELECT generate_series(30001, 40000)::int8))" 2>&1) $(q "$db" "SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('up_grown', g::int8)) FROM generate_series(1, 40000) g" 2>&1)"
    fi
    if [ "$(printf '1.4\n%s\n' "$default" | sort -V | head -n 1)" = 1.4 ]; then
      check "$v: after the update cuckoo_store_info lists the trackings; verify finds nothing missing" \
        "{public.tracked.k,public.tracked.k2}|600|0|600" \
        "$(q "$db" "SELECT i.trackings, i.items, v.missing, v.rows FROM cuckoo_store_info('up_store') i, cuckoo_store_verify('up_store') v" 2>&1)"
    fi
    if [ "$(printf '1.6\n%s\n' "$default" | sort -V | head -n 1)" = 1.6 ]; then
      check "$v: after the update the four tracking triggers depend (AUTO) on their store (1.6: pg_restore -j orders by it)" 4 \
        "$(q "$db" "SELECT count(*) FROM pg_depend d JOIN pg_trigger t ON d.classid = 'pg_trigger'::regclass AND d.objid = t.oid
                    WHERE t.tgrelid = 'tracked'::regclass AND d.refclassid = 'pg_class'::regclass
                      AND d.refobjid = 'up_store'::regclass AND d.deptype = 'a'" 2>&1)"
    fi
  fi
  check "$v: aggregates build the same bytes as in a fresh install" \
    "$(q up_fresh "SELECT md5(cuckoo_agg(g)::bytea) || md5(cuckoo_agg(g, 1000, 0.01)::bytea) FROM generate_series(1, 900) g")" \
    "$(q "$db" "SELECT md5(cuckoo_agg(g)::bytea) || md5(cuckoo_agg(g, 1000, 0.01)::bytea) FROM generate_series(1, 900) g")"

  # The same update run by a database owner who is not a superuser.
  odb="${db}_owner"
  q postgres "CREATE DATABASE $odb OWNER up_owner" >/dev/null
  out=$(PGPASSWORD=up_pw psql -X -qAt -v ON_ERROR_STOP=1 -U up_owner -d "$odb" \
        -c "SET client_min_messages = warning" -c "CREATE EXTENSION cuckoo VERSION '$v'" \
        -c "CREATE TABLE t AS SELECT cuckoo_agg(g) AS f FROM generate_series(1, 1000) g" \
        -c "ALTER EXTENSION cuckoo UPDATE" \
        -c "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'" \
        -c "SELECT count(*) FROM t, generate_series(1, 1000) g WHERE f @> g" 2>&1 | tr '\n' ' ' | sed 's/ $//')
  check "$v: a non-superuser database owner can update too" "$default 1000" "$out"
  dump "$odb" "$CATALOG_SQL" "$tmp/owner.catalog.all"
  grep -v '^extension: ' "$tmp/owner.catalog.all" >"$tmp/owner.catalog"
  check "$v: and gets the same definitions" 0 \
    "$(grep -v '^extension: ' "$tmp/fresh.catalog" | diff - "$tmp/owner.catalog" | grep -c '^[<>]')"
done

check "every available version was created and updated" "$(echo $starts | wc -w)" "$walked"
echo "# walked $walked version(s) to $default in $(( $(date +%s) - started )) s"
finish
