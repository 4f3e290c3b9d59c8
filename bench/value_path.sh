#!/usr/bin/env bash
# The value path (issue 21, point 1): a one-key probe of a stored filter,
# read by slices (1.3) beside the same value read whole (1.2's path, forced
# with cuckoo.slice_read_max_keys = 0), measured side by side in one run on
# one private server built from this tree (test/pg_private.sh: the system
# install is neither read nor changed).
#
#   bash bench/value_path.sh              filters of 10M and 100M items
#   BENCH_ITEMS="1000000" bash bench/value_path.sh      quick
#
# Environment: BENCH_ITEMS (item counts, fixed filters at capacity items/0.9,
# fpr 0.01; default "10000000 100000000"), BENCH_ROUNDS (rounds of the
# side-by-side probe, default 3), BENCH_TX (pgbench transactions per round,
# sliced; the whole reads run BENCH_TX / 25, at least 5).
# Prints markdown tables (docs/BENCHMARKS.md, "The value path").
set -uo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh
. test/pg_private.sh
ITEMS=${BENCH_ITEMS:-10000000 100000000}
ROUNDS=${BENCH_ROUNDS:-3}
TX=${BENCH_TX:-500}
WTX=$((TX / 25 < 5 ? 5 : TX / 25))
PGBENCH="$pp_sysbin/pgbench"
log() { printf '[value_path %s] %s\n' "$(date +%T)" "$*" >&2; }

pp_setup value_path
pp_server 'shared_buffers = 512MB'
q() { pp_psql -v ON_ERROR_STOP=1 "$@"; }
q -c "CREATE EXTENSION cuckoo" >/dev/null
q -c "CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter)" >/dev/null

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# pgbench's average latency (ms) of a one-key probe of filter $1 with
# cuckoo.slice_read_max_keys $2, $3 transactions
probe_ms() {
  printf '\\set k random(1, 2000000000)\nSELECT cuckoo_contains(f, :k::bigint) FROM filters WHERE name = '"'%s'"';\n' "$1" \
    >"$pp_work/probe.sql"
  PGOPTIONS="-c cuckoo.slice_read_max_keys=$2" "$PGBENCH" -n -h "$pp_sock" -p "$pp_port" -U postgres \
    -f "$pp_work/probe.sql" -t "$3" postgres 2>&1 | sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}

# one statement probing $2 keys of filter $1 with cuckoo.slice_read_max_keys $3: ms
keys_ms() {
  q -c "SET cuckoo.slice_read_max_keys = $3" -c '\timing on' \
    -c "SELECT count(*) FILTER (WHERE cuckoo_contains(f, (g * 7919)::bigint)) FROM filters, generate_series(1, $2) g WHERE name = '$1'" |
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}

names=()
for n in $ITEMS; do
  name="fixed_$n"
  log "building $name"
  q -c "INSERT INTO filters SELECT '$name', cuckoo_agg(g::bigint, $((n * 10 / 9)), 0.01) FROM generate_series(1, $n) g" >/dev/null
  names+=("$name")
done
# format version 2: a growing filter grown 10 times past its capacity
n=$(echo $ITEMS | awk '{print $1}')
log "building grown_$n"
q -c "INSERT INTO filters SELECT 'grown_$n', cuckoo_agg(g::bigint, $((n / 10)), 0.01, 2) FROM generate_series(1, $n) g" >/dev/null
names+=("grown_$n")
q -c "VACUUM ANALYZE filters" >/dev/null

echo "### One-key probe of a stored filter: read by slices beside read whole"
echo
echo "PostgreSQL $PG_MAJOR, private server, shared_buffers 512MB, $(nproc) cores; pgbench, one client;"
echo "median over $ROUNDS rounds of the average latency of $TX (sliced) and $WTX (whole) transactions,"
echo "\`SELECT cuckoo_contains(f, :k) FROM filters WHERE name = ...\`, a random key each."
echo
echo "| filter | bytes | storage | goal | read whole (1.2's path) | read by slices (1.3) | whole / slices |"
echo "|---|---:|---|---:|---:|---:|---:|"
for name in "${names[@]}"; do
  bytes=$(q -c "SELECT pg_column_size(f) FROM filters WHERE name = '$name'")
  storage=$(q -c "SELECT CASE WHEN pg_column_size(f) = octet_length(f::bytea) THEN 'out of line, uncompressed' ELSE 'compressed' END FROM filters WHERE name = '$name'")
  probe_ms "$name" -1 20 >/dev/null   # warm the buffers
  w=(); s=()
  for ((r = 0; r < ROUNDS; r++)); do
    log "$name round $r"
    w+=("$(probe_ms "$name" 0 "$WTX")")
    s+=("$(probe_ms "$name" -1 "$TX")")
  done
  wm=$(printf '%s\n' "${w[@]}" | median)
  sm=$(printf '%s\n' "${s[@]}" | median)
  goal="-"
  [ "$bytes" -ge 100000000 ] && goal="<= 0.5 ms"
  echo "| $name | $bytes | $storage | $goal | $wm ms | $sm ms | $(awk -v a="$wm" -v b="$sm" 'BEGIN {printf "%.0fx", a / b}') |"
done
echo

echo "### Where one whole read becomes cheaper (the call-site switch)"
echo
echo "One statement probing N keys of one stored filter (median of $ROUNDS): forced slices"
echo "(slice_read_max_keys = 2147483647), forced whole read (0), and the default (-1: slices for the"
echo "first bytes / SLICE_KEY_BYTES keys, then one whole read; src/cuckoo_arg.c). Break-even: the"
echo "per-key cost of slices (N = 1000) over the per-byte cost of a whole read (N = 100)."
echo
echo "| filter | bytes | N = 100: slices / whole / default (ms) | N = 1000 | N = 10000 | slices us/key | whole ns/byte | break-even bytes/key |"
echo "|---|---:|---|---|---|---:|---:|---:|"
for name in "${names[@]}"; do
  bytes=$(q -c "SELECT pg_column_size(f) FROM filters WHERE name = '$name'")
  row="| $name | $bytes |"
  for nk in 100 1000 10000; do
    a=(); b=(); c=()
    for ((r = 0; r < ROUNDS; r++)); do
      a+=("$(keys_ms "$name" "$nk" 2147483647)")
      b+=("$(keys_ms "$name" "$nk" 0)")
      c+=("$(keys_ms "$name" "$nk" -1)")
    done
    am=$(printf '%s\n' "${a[@]}" | median)
    bm=$(printf '%s\n' "${b[@]}" | median)
    cm=$(printf '%s\n' "${c[@]}" | median)
    row="$row $am / $bm / $cm |"
    [ "$nk" = 100 ] && whole100=$bm
    [ "$nk" = 1000 ] && slices1000=$am
  done
  echo "$row $(awk -v s="$slices1000" -v w="$whole100" -v by="$bytes" 'BEGIN {
    us = s; nsb = w * 1e6 / by; printf "%.1f | %.3f | %.0f |", us, nsb, us * 1000 / nsb }')"
done
echo
pp_stop
