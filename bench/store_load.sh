#!/usr/bin/env bash
# The bulk load of a stored filter, cuckoo_store_load_agg(store, value),
# against cuckoo_agg over the same rows, serial and parallel, side by side in
# one run (the stored-filters issue's goal: bulk load <= 1.0x cuckoo_agg).
#
#   bash bench/store_load.sh [ROWS [ROUNDS]]    (ROWS default 10000000,
#                                                ROUNDS default 3)
#
# Builds this tree into a private copy of the install tree and runs a
# private server (test/pg_private.sh: nothing is installed, fsync = off).
# The rows are a table src(id int8) of ids 1 .. ROWS.  Each round times, in
# an order that alternates between rounds:
#   cuckoo_agg            CREATE TABLE one AS SELECT cuckoo_agg(id) AS f FROM src
#                         (CREATE TABLE AS: a parallel plan may be used, and
#                         the value is written as a load writes its rows)
#   cuckoo_store_load_agg SELECT cuckoo_store_load_agg('st', id) FROM src, into
#                         a store just made by cuckoo_store_create('st', ROWS)
#   cuckoo_store_add_array (serial only) one call over ARRAY(SELECT id FROM src)
# each with max_parallel_workers_per_gather = 0 (serial) and = 2 (parallel),
# parallel plans forced by zero parallel costs.  Wall time of the statement
# from the client (psql -c), medians printed in a Markdown table; progress
# to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
ROWS=${1:-10000000}
ROUNDS=${2:-3}
. test/lib.sh
. test/pg_private.sh

log() { printf '[store_load %s] %s\n' "$(date +%T)" "$*" >&2; }

pp_setup store_load
pp_server 'shared_buffers = 1GB' 'max_wal_size = 16GB' 'checkpoint_timeout = 1h' \
  'max_worker_processes = 8' 'max_parallel_workers = 4'
q() { pp_psql -v ON_ERROR_STOP=1 "$@"; }

log "making src: $ROWS rows"
q -c "CREATE EXTENSION cuckoo" -c "CREATE TABLE src AS SELECT g::int8 AS id FROM generate_series(1, $ROWS) g" \
  -c "VACUUM ANALYZE src" >/dev/null

par() {
  if [ "$1" = parallel ]; then
    echo "SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;"
  else
    echo "SET max_parallel_workers_per_gather = 0;"
  fi
}

# timed MODE SQL: prints the seconds the statement took (the SETs before it untimed)
timed() {
  local t0 t1
  t0=$(date +%s.%N)
  q -c "$(par "$1")" -c "$2" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}

declare -A T
run() {				# run NAME MODE
  local s
  case $1 in
    agg)
      q -c "DROP TABLE IF EXISTS one" >/dev/null
      s=$(timed "$2" "CREATE TABLE one AS SELECT cuckoo_agg(id) AS f FROM src") ;;
    load)
      q -c "DROP TABLE IF EXISTS st" -c "SELECT cuckoo_store_create('st', $ROWS)" >/dev/null
      s=$(timed "$2" "SELECT cuckoo_store_load_agg('st', id) FROM src")
      [ "$(q -c "SELECT items FROM cuckoo_store_info('st')")" = "$ROWS" ] ||
        { log "store_load: wrong item count"; exit 1; } ;;
    array)
      q -c "DROP TABLE IF EXISTS sa" -c "SELECT cuckoo_store_create('sa', $ROWS)" >/dev/null
      s=$(timed "$2" "SELECT cuckoo_store_add_array('sa', ARRAY(SELECT id FROM src))") ;;
  esac
  T[$1.$2]="${T[$1.$2]:-} $s"
  log "$1 $2: $s s"
}

log "plans:"
q -c "$(par parallel)" -c "EXPLAIN (COSTS OFF) SELECT cuckoo_store_load_agg('src', id) FROM src" | sed 's/^/    /' >&2 || true
q -c "$(par parallel)" -c "EXPLAIN (COSTS OFF) CREATE TABLE one AS SELECT cuckoo_agg(id) AS f FROM src" | sed 's/^/    /' >&2

for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    order="agg.serial load.serial agg.parallel load.parallel array.serial"
  else
    order="array.serial load.parallel agg.parallel load.serial agg.serial"
  fi
  for x in $order; do run "${x%.*}" "${x#*.}"; done
done

med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
as=$(med "${T[agg.serial]}"); ap=$(med "${T[agg.parallel]}")
ls=$(med "${T[load.serial]}"); lp=$(med "${T[load.parallel]}")
ar=$(med "${T[array.serial]}")
printf '\n| bulk load of %s rows, median of %s | serial s | parallel s (2 workers) |\n|---|---|---|\n' "$ROWS" "$ROUNDS"
printf '| `cuckoo_agg` into one value (CREATE TABLE AS) | %.2f | %.2f |\n' "$as" "$ap"
printf '| `cuckoo_store_load_agg` into a store | %.2f | %.2f |\n' "$ls" "$lp"
printf '| `cuckoo_store_add_array(ARRAY(SELECT ...))` | %.2f | - |\n' "$ar"
printf '| ratio load / cuckoo_agg (goal <= 1.0) | %.2f | %.2f |\n' "$(echo "$ls / $as" | bc -l)" "$(echo "$lp / $ap" | bc -l)"
printf '\nAll times (s): agg serial%s; agg parallel%s; load serial%s; load parallel%s; array%s\n' \
  "${T[agg.serial]}" "${T[agg.parallel]}" "${T[load.serial]}" "${T[load.parallel]}" "${T[array.serial]}"
