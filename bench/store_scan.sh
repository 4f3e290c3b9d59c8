#!/usr/bin/env bash
# The scan probe of a stored filter, before and after, side by side in one
# run: `SELECT count(*) FROM keys WHERE cuckoo_store_contains('bs', k)`
# against `... WHERE cuckoo_contains((SELECT f FROM filters ...), k)` (the same
# items in one cuckoofilter value), on two private servers: one running the
# build of BEFORE (a source tree, e.g. a checkout of main), one this tree's.
#
#   bash bench/store_scan.sh BEFORE [ITEMS [RUNS]]   (ITEMS default 10000000,
#                                                    RUNS default 5)
#
# Each server (test/pg_private.sh: nothing installed, fsync off,
# shared_buffers 256 MB, no parallel workers) gets ITEMS int8 values 1 ..
# ITEMS in a store made by cuckoo_store_create('bs', ITEMS) and in one value
# made by cuckoo_agg, and a table keys of ITEMS rows (2, 4, 6, ...: half of
# them in the filter).  Then RUNS rounds, each timing the four queries in
# turn (before store, before value, after store, after value;
# EXPLAIN ANALYZE, TIMING OFF, its Execution Time, and the backend's CPU
# time over the query from /proc/self/stat: steadier than the time on a
# shared machine), after one warm-up round.
# Prints the medians and the ratios as a Markdown table; progress to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
BEFORE=$(cd "${1:?usage: bench/store_scan.sh BEFORE-SOURCE-TREE [ITEMS [RUNS]]}" && pwd)
ITEMS=${2:-10000000}
RUNS=${3:-5}
. test/lib.sh
. test/pg_private.sh

log() { printf '[store_scan %s] %s\n' "$(date +%T)" "$*" >&2; }

# start_side NAME SOURCE: builds SOURCE into a private tree, starts its server
start_side() {
  pp_side "$1" "$2" 'shared_buffers = 256MB' 'max_wal_size = 8GB' 'checkpoint_timeout = 1h' \
    'max_parallel_workers_per_gather = 0'
}

# q NAME PSQL-ARGS...: psql on side NAME's server
q() { pp_side_psql "$@"; }

load() {
  q "$1" <<EOF >/dev/null
CREATE EXTENSION cuckoo;
CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter);
SELECT cuckoo_store_create('bs', $ITEMS);
SELECT cuckoo_store_add_array('bs', ARRAY(SELECT g::int8 FROM generate_series(1, $ITEMS) g));
INSERT INTO filters SELECT 'one', cuckoo_agg(g::int8) FROM generate_series(1, $ITEMS) g;
CREATE TABLE keys AS SELECT (g * 2)::int8 AS k FROM generate_series(1, $ITEMS) g;
VACUUM ANALYZE;
EOF
}

STORE_Q="SELECT count(*) FROM keys WHERE cuckoo_store_contains('bs', k)"
ONE_Q="SELECT count(*) FROM keys WHERE cuckoo_contains((SELECT f FROM filters WHERE name = 'one'), k)"

# The library is loaded by the query's session first: with a BEFORE tree of
# extension 1.4 or older, cuckoo_store_contains has no planner support
# function, so planning a session's first query does not load it, and the
# planner hook that batches the probe is installed only once it is loaded
# (DESIGN.md, "The batched probe"); from 1.5 this changes nothing.
WARM="SELECT cuckoo_store_contains('bs', 0::int8)"
# the backend's CPU time (user + system, clock ticks), read by the backend
CPU="SELECT 'cpu ' || split_part(s, ' ', 14)::int8 + split_part(s, ' ', 15)::int8
     FROM pg_read_file('/proc/self/stat') s"
TICK=$(getconf CLK_TCK)
ms() {  # ms SIDE QUERY: its execution time and the backend's CPU time in it, ms
  q "$1" -c "$WARM" -c "$CPU" -c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) $2" -c "$CPU" |
    awk -v tick="$TICK" '/^cpu / { c[n++] = $2 } /^Execution Time:/ { t = $3 }
                         END { printf "%s %.0f", t, (c[1] - c[0]) * 1000 / tick }'
}

log "building $BEFORE (before) and $(pwd) (after)"
start_side before "$BEFORE"
start_side after "$(pwd)"
for s in before after; do
  log "$s: loading $ITEMS items"
  load "$s"
done
for s in before after; do
  counts=$(q "$s" -c "$STORE_Q" -c "$ONE_Q" | tr '\n' ' ')
  log "$s: counts (store, value): $counts"
  q "$s" -c "$WARM" -c "EXPLAIN (COSTS OFF) $STORE_Q" | sed -n 's/^ *//; /Custom Scan\|Cuckoo Probe/p' | sed "s/^/[$s plan] /" >&2
done
res=$(mktemp)
for ((r = 0; r <= RUNS; r++)); do
  log "round $r of $RUNS (0: warm-up)"
  for s in before after; do
    a=$(ms "$s" "$STORE_Q")
    b=$(ms "$s" "$ONE_Q")
    [ "$r" -gt 0 ] && echo "$s $a $b" >>"$res"   # side, store ms, cpu, value ms, cpu
  done
done
med() {  # med SIDE COLUMN
  awk -v s="$1" -v c="$2" '$1 == s { print $c }' "$res" | sort -n |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
bs=$(med before 2); bsc=$(med before 3); bo=$(med before 4); boc=$(med before 5)
as=$(med after 2); asc=$(med after 3); ao=$(med after 4); aoc=$(med after 5)
rm -f "$res"
echo "Scan probe over $ITEMS rows (half in the filter), $ITEMS int8 items, median of $RUNS rounds:"
echo "execution time (EXPLAIN ANALYZE) and the backend's CPU time in it (/proc, ${TICK} Hz ticks), ms."
echo
echo "| | before: time | before: CPU | after: time | after: CPU |"
echo "|---|---|---|---|---|"
printf '| `WHERE cuckoo_store_contains('"'"'bs'"'"', k)` | %.0f | %.0f | %.0f | %.0f |\n' "$bs" "$bsc" "$as" "$asc"
printf '| `WHERE cuckoo_contains((SELECT f ...), k)` | %.0f | %.0f | %.0f | %.0f |\n' "$bo" "$boc" "$ao" "$aoc"
# ratio A B: A / B to two places, or n/a where B is 0 (a small run can take
# no CPU tick on one side)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.2f", a / b }'; }
printf '| ratio store / value (goal <= 1.1) | %s | %s | %s | %s |\n' \
  "$(ratio "$bs" "$bo")" "$(ratio "$bsc" "$boc")" "$(ratio "$as" "$ao")" "$(ratio "$asc" "$aoc")"
printf '| store: after / before | | | %s | %s |\n' "$(ratio "$as" "$bs")" "$(ratio "$asc" "$bsc")"
