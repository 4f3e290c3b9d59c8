#!/usr/bin/env bash
# The queries of bench/value_path_join.sh, before and after, counted by
# callgrind instead of timed (exact and repeatable on a shared machine): the
# instructions spent inside cuckoo_contains and what it calls (detoasting,
# slice reads, the cache), per query.
#
#   bash bench/value_path_join_callgrind.sh BEFORE
#   KEEP=DIR bash bench/value_path_join_callgrind.sh BEFORE   (keeps the
#                              callgrind files in DIR, for callgrind_annotate)
#
# BEFORE is a source tree (e.g. a checkout of main).  For each side a
# private tree and cluster (test/pg_private.sh) get the tables of
# bench/value_path_join.sh (FEW filters of 267,576 bytes with KEYS keys,
# default 5 and 2000; MANY filters of 53,820 bytes, default 400); then for
# each query and setting (and one more: filter 1 alone probed with the KEYS
# keys, the same value on every row) a single-user backend (postgres --single) under
# valgrind --tool=callgrind --toggle-collect=cuckoo_contains runs it once.
# Prints a Markdown table; progress to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
BEFORE=$(cd "${1:?usage: bench/value_path_join_callgrind.sh BEFORE-SOURCE-TREE}" && pwd)
FEW=${FEW:-5}
KEYS=${KEYS:-2000}
MANY=${MANY:-400}
AFTER=$(pwd)
. test/lib.sh
. test/pg_private.sh

log() { printf '[value_path_join_callgrind %s] %s\n' "$(date +%T)" "$*" >&2; }

QFEW="SELECT count(*) FILTER (WHERE found) FROM filts, LATERAL (SELECT k, cuckoo_contains(f, k) AS found FROM keys) s"
QMANY="SELECT count(*) FROM probes p JOIN manyf m USING (id) WHERE cuckoo_contains(m.f, p.k)"
QONE="SELECT count(*) FILTER (WHERE cuckoo_contains(f, k)) FROM (SELECT f FROM filts WHERE id = 1 OFFSET 0) v, keys"
QTURN="SELECT count(*) FILTER (WHERE cuckoo_contains((SELECT f FROM manyf m WHERE m.id = p.id), p.k)) FROM (SELECT id, k FROM probes4 ORDER BY g, id OFFSET 0) p"
cases="one:0 one:-1 few:0 few:-1 many:0 many:-1 turn:0 turn:-1"
declare -A ir

# side NAME SOURCE: build, load, then count each case
side() {
  pp_src=$2
  pp_pid=""
  pp_setup "value_path_join_callgrind_$1"
  mkdir -p "$pp_work/cg"
  chmod 777 "$pp_work/cg"
  log "building $1 ($2)"
  pp_server 'autovacuum = off'
  log "loading $1"
  pp_psql -v ON_ERROR_STOP=1 <<SQL >/dev/null
CREATE EXTENSION cuckoo;
CREATE TABLE filts (id int PRIMARY KEY, f cuckoofilter);
INSERT INTO filts SELECT i, cuckoo_agg(i * 1000000 + g::int8, 200000, 0.01)
  FROM generate_series(1, $FEW) i, generate_series(1, 150000) g GROUP BY i;
CREATE TABLE keys AS SELECT (1000000 + g * 7)::int8 AS k FROM generate_series(1, $KEYS) g;
CREATE TABLE manyf (id int PRIMARY KEY, f cuckoofilter);
INSERT INTO manyf SELECT i, cuckoo_agg(i * 1000000 + g::int8, 40000, 0.01)
  FROM generate_series(1, $MANY) i, generate_series(1, 30000) g GROUP BY i;
CREATE TABLE probes AS SELECT i AS id, (i * 1000000 + g * 10000)::int8 AS k
  FROM generate_series(1, $MANY) i, generate_series(1, 2) g;
CREATE TABLE probes4 AS SELECT i AS id, g, (i * 1000000 + g * 10000)::int8 AS k
  FROM generate_series(1, $MANY) i, generate_series(1, 4) g;
VACUUM ANALYZE;
SQL
  pp_stop
  for c in $cases; do
    local shape=${c%%:*} setting=${c#*:} query
    case $shape in one) query=$QONE ;; few) query=$QFEW ;; many) query=$QMANY ;; *) query=$QTURN ;; esac
    log "$1 $c"
    printf 'SET max_parallel_workers_per_gather = 0;\nSET cuckoo.slice_read_max_keys = %s;\n%s;\n' \
      "$setting" "$query" >"$pp_work/q.sql"
    chmod 644 "$pp_work/q.sql"
    pp_as_server env TMPDIR="$pp_work/cg" valgrind --tool=callgrind --toggle-collect=cuckoo_contains \
      --callgrind-out-file="$pp_work/cg/$c.cg" \
      "$pp_postgres" --single -D "$pp_data" -c autovacuum=off postgres \
      <"$pp_work/q.sql" >"$pp_work/cg/$c.out" 2>&1 || { tail "$pp_work/cg/$c.out" >&2; exit 1; }
    if grep -q ERROR "$pp_work/cg/$c.out"; then grep -m 3 ERROR "$pp_work/cg/$c.out" >&2; exit 1; fi
    grep -A 3 'count' "$pp_work/cg/$c.out" | grep -m 1 -o '= "[0-9]*"' | sed 's/^/#   answer /' >&2 || true
    ir["$1:$c"]=$(callgrind_annotate "$pp_work/cg/$c.cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
  done
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP/$1" && cp "$pp_work"/cg/*.cg "$KEEP/$1/"; fi
  pp_cleanup
  trap - EXIT
}

side before "$BEFORE"
side after "$AFTER"

echo "Instructions inside cuckoo_contains per query (valgrind --tool=callgrind"
echo "--toggle-collect=cuckoo_contains, postgres --single, PostgreSQL $PG_MAJOR); before: $BEFORE, after: this tree."
echo
echo "| shape | cuckoo.slice_read_max_keys | before | after | after / before |"
echo "|---|---|---:|---:|---:|"
for c in $cases; do
  shape=${c%%:*} setting=${c#*:}
  case $shape in
    one) label="1 filter of 267,576 bytes, $KEYS keys (the same filter on every row)" ;;
    few) label="$FEW filters of 267,576 bytes, $KEYS keys each (LATERAL)" ;;
    many) label="$MANY filters of 53,820 bytes, 2 keys each (join)" ;;
    *) label="$MANY filters of 53,820 bytes, 4 keys each, in turn (subquery)" ;;
  esac
  b=${ir["before:$c"]} a=${ir["after:$c"]}
  echo "| $label | $setting | $b | $a | $(awk -v b="$b" -v a="$a" 'BEGIN {printf "%.4f", a / b}') |"
done
