#!/usr/bin/env bash
# Living filters: the instructions a single-row transaction costs, plain
# table against tracked table, counted by callgrind (exact and repeatable on
# a shared machine, unlike times).
#
#   bash bench/track_callgrind.sh [N]            (default 1000)
#   CUCKOO_SRC=DIR bash bench/track_callgrind.sh  (another checkout)
#   KEEP=DIR bash bench/track_callgrind.sh        (keep the callgrind files
#                                                  in DIR, for
#                                                  callgrind_annotate)
#
# A private server (test/pg_private.sh) makes the tables of
# bench/track_cpu.sh (id int8 PRIMARY KEY, k int8; 100,000 rows; the
# tracked one followed by a store of capacity 200,000) and stops; then a
# single-user backend (postgres --single) under valgrind runs, per side, 20
# warm-up INSERTs and N single-row INSERTs of new ids and N single-row
# DELETEs of loaded ids, each its own transaction.  Prints both sides' totals
# and the tracked side's extra instructions per transaction (the backend's
# start is in both totals and cancels).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
N=${1:-1000}
. test/lib.sh
. test/pg_private.sh

pp_setup track_callgrind
out=${KEEP:-$pp_work/cg}
mkdir -p "$out"
chmod 777 "$out"
pp_server 'autovacuum = off'
pp_psql -v ON_ERROR_STOP=1 <<SQL >/dev/null
CREATE EXTENSION cuckoo;
CREATE TABLE plain (id int8 PRIMARY KEY, k int8);
CREATE TABLE tracked (id int8 PRIMARY KEY, k int8);
INSERT INTO plain SELECT g, (g * 7919) % 1000003 FROM generate_series(1, 100000) g;
INSERT INTO tracked SELECT * FROM plain;
SELECT cuckoo_store_create('s', 200000);
SELECT cuckoo_store_track('s', 'tracked', 'k');
VACUUM ANALYZE;
SQL
pp_stop
declare -A total
for side in plain tracked; do
  {
    for i in $(seq 1 20); do
      echo "INSERT INTO $side VALUES ($((3000000000 + i)), $((3000000000 + i))) ON CONFLICT DO NOTHING;"
    done
    for i in $(seq 1 "$N"); do
      echo "INSERT INTO $side VALUES ($((2000000000 + i)), $((2000000000 + i))) ON CONFLICT DO NOTHING;"
      echo "DELETE FROM $side WHERE id = $((i * 37 % 100000 + 1));"
    done
  } >"$pp_work/$side.sql"
  chmod 644 "$pp_work/$side.sql"
  # valgrind writes a file to TMPDIR at start: one the server user can write
  pp_as_server env TMPDIR="$out" valgrind --tool=callgrind --callgrind-out-file="$out/$side.cg" \
    "$pp_postgres" --single -D "$pp_data" -c autovacuum=off postgres \
    <"$pp_work/$side.sql" >"$pp_work/$side.log" 2>&1 || { tail "$pp_work/$side.log" >&2; exit 1; }
  if grep -q ERROR "$pp_work/$side.log"; then grep -m 3 ERROR "$pp_work/$side.log" >&2; exit 1; fi
  total[$side]=$(callgrind_annotate "$out/$side.cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
done
xacts=$((20 + 2 * N))
echo "transactions per side: $xacts"
echo "plain:   ${total[plain]} instructions"
echo "tracked: ${total[tracked]} instructions"
echo "tracked - plain, per transaction: $(( (total[tracked] - total[plain]) / xacts ))"
