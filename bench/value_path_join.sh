#!/usr/bin/env bash
# The value path in joins, before and after, side by side in one run: stored
# (out-of-line) filters probed by joins in which the filter changes from row
# to row (and, beside them, one filter on every row), on two private
# servers: one running the build of BEFORE (a source tree, e.g. a checkout
# of main), one this tree's (test/pg_private.sh: nothing installed, fsync
# off, no parallel workers).
#
#   bash bench/value_path_join.sh BEFORE [RUNS]      (RUNS default 5)
#
# Shapes, each with cuckoo.slice_read_max_keys = 0 (always read whole)
# and -1 (the default: slices, then one whole read per value and call site):
# - one filter, many keys (the path the change must not slow): filter 1
#   probed with the KEYS keys, the same value on every row;
# - few filters, many keys: FEW (default 5) filters of 150,000 items
#   (267,576 bytes each), each probed with KEYS (default 20000) keys by
#   `FROM filts, LATERAL (SELECT k, cuckoo_contains(f, k) FROM keys)`, which
#   the planner flattens into a join with keys outside: the filter changes on
#   every row.  1.3 to 1.5 kept one value read whole per call site, so with
#   0 each row read a filter whole again.
# - many filters, few keys: MANY (default 400) filters of 30,000 items
#   (53,820 bytes: slices for the first 3 keys of each), each probed with its
#   own 2 keys by a join of a probe table with the filters;
# - many filters in turn: the same filters, each probed with 4 keys, the
#   filter changing on every row (the pairs in key order, each filter fetched
#   by a subquery on its id): after the 3rd key of a filter the default reads
#   it whole if it will be kept (32 of them within work_mem's 4 MB).
# RUNS rounds after one warm-up, each timing every query on both servers in
# turn (EXPLAIN ANALYZE, TIMING OFF: its Execution Time).  Prints the medians
# and the ratios as a Markdown table; progress to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
BEFORE=$(cd "${1:?usage: bench/value_path_join.sh BEFORE-SOURCE-TREE [RUNS]}" && pwd)
RUNS=${2:-5}
FEW=${FEW:-5}
KEYS=${KEYS:-20000}
MANY=${MANY:-400}
. test/lib.sh
. test/pg_private.sh

log() { printf '[value_path_join %s] %s\n' "$(date +%T)" "$*" >&2; }

# start_side NAME SOURCE: builds SOURCE into a private tree, starts its server
start_side() {
  pp_side "$1" "$2" 'shared_buffers = 256MB' 'max_parallel_workers_per_gather = 0'
}

# q NAME PSQL-ARGS...: psql on side NAME's server
q() { pp_side_psql "$@"; }

load() {
  q "$1" <<EOF >/dev/null
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
EOF
}

QFEW="SELECT count(*) FILTER (WHERE found) FROM filts, LATERAL (SELECT k, cuckoo_contains(f, k) AS found FROM keys) s"
QMANY="SELECT count(*) FROM probes p JOIN manyf m USING (id) WHERE cuckoo_contains(m.f, p.k)"
QONE="SELECT count(*) FILTER (WHERE cuckoo_contains(f, k)) FROM (SELECT f FROM filts WHERE id = 1 OFFSET 0) v, keys"
QTURN="SELECT count(*) FILTER (WHERE cuckoo_contains((SELECT f FROM manyf m WHERE m.id = p.id), p.k)) FROM (SELECT id, k FROM probes4 ORDER BY g, id OFFSET 0) p"

# ms SIDE SETTING QUERY: the query's Execution Time (ms)
ms() {
  q "$1" -c "SET cuckoo.slice_read_max_keys = $2" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $3" |
    sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

log "building before ($BEFORE)"
start_side before "$BEFORE"
log "building after ($(pwd))"
start_side after "$(pwd)"
for s in before after; do log "loading $s"; load "$s"; done
for s in before after; do
  check "$s: the same answers, whole and sliced" \
    "$(q "$s" -c "SET cuckoo.slice_read_max_keys = 0" -c "$QONE" -c "$QFEW" -c "$QMANY" -c "$QTURN" | tr '\n' ' ')" \
    "$(q "$s" -c "SET cuckoo.slice_read_max_keys = -1" -c "$QONE" -c "$QFEW" -c "$QMANY" -c "$QTURN" | tr '\n' ' ')" >&2
done
check "before and after: the same answers" \
  "$(q before -c "$QONE" -c "$QFEW" -c "$QMANY" -c "$QTURN" | tr '\n' ' ')" "$(q after -c "$QONE" -c "$QFEW" -c "$QMANY" -c "$QTURN" | tr '\n' ' ')" >&2
echo "Plans (after):" >&2
q after -c "EXPLAIN (COSTS OFF) $QFEW" -c "EXPLAIN (COSTS OFF) $QMANY" -c "EXPLAIN (COSTS OFF) $QTURN" | sed 's/^/    /' >&2

declare -A t
cases="one:0 one:-1 few:0 few:-1 many:0 many:-1 turn:0 turn:-1"
for ((r = 0; r <= RUNS; r++)); do
  log "round $r of $RUNS (0: warm-up)"
  for c in $cases; do
    shape=${c%%:*} setting=${c#*:}
    case $shape in one) query=$QONE ;; few) query=$QFEW ;; many) query=$QMANY ;; *) query=$QTURN ;; esac
    for s in before after; do
      v=$(ms "$s" "$setting" "$query")
      [ "$r" -gt 0 ] && t["$s:$c"]+="$v "
    done
  done
done

echo "PostgreSQL $PG_MAJOR, private servers, shared_buffers 256MB, $(nproc) cores; median of $RUNS"
echo "rounds, EXPLAIN ANALYZE (TIMING OFF) Execution Time; before: $BEFORE, after: this tree."
echo
echo "| shape | cuckoo.slice_read_max_keys | before (ms) | after (ms) | before / after |"
echo "|---|---|---:|---:|---:|"
for c in $cases; do
  shape=${c%%:*} setting=${c#*:}
  b=$(echo ${t["before:$c"]} | tr ' ' '\n' | median)
  a=$(echo ${t["after:$c"]} | tr ' ' '\n' | median)
  case $shape in
    one) label="1 filter of 267,576 bytes, $KEYS keys (the same filter on every row)" ;;
    few) label="$FEW filters of 267,576 bytes, $KEYS keys each (LATERAL)" ;;
    many) label="$MANY filters of 53,820 bytes, 2 keys each (join)" ;;
    *) label="$MANY filters of 53,820 bytes, 4 keys each, in turn (subquery)" ;;
  esac
  echo "| $label | $setting | $b | $a | $(awk -v b="$b" -v a="$a" 'BEGIN {printf "%.2fx", b / a}') |"
done
