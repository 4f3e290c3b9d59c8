#!/usr/bin/env bash
# Living filters: the server's CPU time per single-row transaction, plain
# table against tracked table, with one pgbench client (so the figure is
# the work of a transaction, not the machine's load or lock waits).
#
#   bash bench/track_cpu.sh [TRANSACTIONS]        (default 20000 per side
#                                                 and round)
#   CUCKOO_SRC=DIR bash bench/track_cpu.sh        (another checkout: compare
#                                                 trees run after run)
#
# A private server (test/pg_private.sh; fsync off, autovacuum off), two
# tables (id int8 PRIMARY KEY, k int8) of 100,000 rows, one tracked by a
# store of capacity 200,000.  Per round and side, pgbench -c 1 runs
# TRANSACTIONS transactions, each one single-row INSERT of a new id or
# DELETE of a random loaded id (as bench/track_bench.sh's pgbench part); the
# CPU time of the backend is read from the postmaster's reaped children
# (/proc/PID/stat, cutime + cstime) once it has exited.  3 rounds,
# alternating sides; prints the median microseconds per transaction and
# the ratio.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
N=${1:-20000}
ROUNDS=${ROUNDS:-3}
. test/lib.sh
. test/pg_private.sh

pp_setup track_cpu
pp_server 'autovacuum = off' 'shared_buffers = 256MB'
q() { pp_psql -v ON_ERROR_STOP=1 "$@"; }
q <<EOF >/dev/null
CREATE EXTENSION cuckoo;
CREATE TABLE plain (id int8 PRIMARY KEY, k int8);
CREATE TABLE tracked (id int8 PRIMARY KEY, k int8);
INSERT INTO plain SELECT g, (g * 7919) % 1000003 FROM generate_series(1, 100000) g;
INSERT INTO tracked SELECT * FROM plain;
SELECT cuckoo_store_create('s', 200000);
SELECT cuckoo_store_track('s', 'tracked', 'k');
VACUUM ANALYZE;
CREATE TABLE cpu (side text, us float8);
EOF
cat >"$pp_work/ins.pgbench" <<'EOF'
\set id random(2000000000, 4000000000)
INSERT INTO :tab VALUES (:id, :id) ON CONFLICT DO NOTHING;
EOF
cat >"$pp_work/del.pgbench" <<'EOF'
\set id random(1, 100000)
DELETE FROM :tab WHERE id = :id;
EOF
postmaster=$(head -1 "$pp_data/postmaster.pid")
ticks=$(getconf CLK_TCK)
reaped() { awk '{ print $16 + $17 }' "/proc/$postmaster/stat"; }
for r in $(seq 1 "$ROUNDS"); do
  for side in plain tracked; do
    before=$(reaped)
    PGHOST="$pp_sock" PGPORT="$pp_port" PGUSER=postgres pgbench -n -c 1 -t "$N" \
      -D tab="$side" -f "$pp_work/ins.pgbench" -f "$pp_work/del.pgbench" postgres >/dev/null 2>&1
    sleep 1   # the backend has exited and been reaped
    after=$(reaped)
    q -c "INSERT INTO cpu VALUES ('$side', ($after - $before) * 1e6 / $ticks / $N)" >/dev/null
  done
done
echo "missing after: $(q -c "SELECT missing FROM cuckoo_store_verify('s')")"
q -c "SELECT side, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY us)::numeric, 1) AS us_per_xact,
             string_agg(round(us::numeric, 1)::text, ' ') AS rounds
      FROM cpu GROUP BY side ORDER BY side" \
  -c "SELECT 'tracked / plain: ' || round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY us) FROM cpu WHERE side = 'tracked')::numeric
             / (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY us) FROM cpu WHERE side = 'plain')::numeric, 2)"
