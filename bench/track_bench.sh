#!/usr/bin/env bash
# Living filters (cuckoo_store_track): the cost of keeping a store in step
# with a table, against the same table without tracking, side by side in one
# run (the two sides alternate, ROUNDS times, medians printed).
#
#   bash bench/track_bench.sh [ROWS [SECONDS]]   (ROWS default 1000000,
#                                                 SECONDS default 10)
#
# Builds this tree into a private copy of the install tree and runs a private
# server (test/pg_private.sh: nothing is installed; fsync = off, so times are
# of the work, not of disk flushes).  Two tables (id int8, k int8), plain and
# tracked (a store of capacity ROWS tracking k).  Per round and side:
# INSERT ... SELECT of ROWS rows, TRUNCATE, COPY of the same ROWS rows from a
# server-side file, DELETE of 10 % of the rows (every tenth id); then pgbench,
# 8 clients for SECONDS s, each transaction one single-row INSERT of a new
# id or one single-row DELETE of a random id of the loaded ones (most
# exist: a tenth were deleted above, and each is deleted once), the side
# that goes first changing each round.  The issue's goals are printed beside
# the ratios (of the medians), then each round's pgbench ratio (of its two
# runs, next to each other in time) and their median; and the WAL each
# side's pgbench transactions wrote, per transaction (pg_current_wal_insert_lsn
# before and after, medians).  Progress to stderr.
#
# CAPACITY=N creates the store for N values (default ROWS).  The pgbench
# part grows the tables (its deletes pick ids of the loaded rows, more of
# them gone each round; its inserts always add): with the default the
# tracked table passes the store's capacity during the rounds, and the
# store's segments grow from one chunk row to two (docs/BENCHMARKS.md,
# "Living filters").  CAPACITY=$((2 * ROWS)) keeps them within it.
#
# PARTITIONS=N makes both tables partitioned, by hash of id into N
# partitions (the statements name the partitioned tables; the tracked one is
# tracked whole: docs/DESIGN.md, "Living filters", "Partitioned tables").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
ROWS=${1:-1000000}
SECONDS_=${2:-10}
ROUNDS=${ROUNDS:-3}
PARTITIONS=${PARTITIONS:-0}
CAPACITY=${CAPACITY:-$ROWS}
. test/lib.sh
. test/pg_private.sh

log() { printf '[track_bench %s] %s\n' "$(date +%T)" "$*" >&2; }

pp_setup track_bench
pp_server 'shared_buffers = 512MB' 'max_wal_size = 8GB' 'checkpoint_timeout = 1h'
q() { pp_psql -v ON_ERROR_STOP=1 "$@"; }
rows_file="$pp_work/rows.tsv"
seq 1 "$ROWS" | awk '{ print $1 "\t" ($1 * 7919) % 1000003 }' >"$rows_file"
chmod 644 "$rows_file"

# tables TAB: the CREATE TABLE of TAB (and of its partitions)
tables() {
  if [ "$PARTITIONS" -gt 0 ]; then
    echo "CREATE TABLE $1 (id int8 PRIMARY KEY, k int8) PARTITION BY HASH (id);"
    for i in $(seq 0 $((PARTITIONS - 1))); do
      echo "CREATE TABLE ${1}_$i PARTITION OF $1 FOR VALUES WITH (MODULUS $PARTITIONS, REMAINDER $i);"
    done
  else
    echo "CREATE TABLE $1 (id int8 PRIMARY KEY, k int8);"
  fi
}
q <<EOF >/dev/null
CREATE EXTENSION cuckoo;
$(tables plain)
$(tables tracked)
SELECT cuckoo_store_create('s', $CAPACITY);
SELECT cuckoo_store_track('s', 'tracked', 'k');
CREATE TABLE timings (side text, op text, v float8, round int);
EOF

# timed SIDE OP SQL: the statement's milliseconds (psql's \timing)
timed() {
  local out ms
  out=$(q -c '\timing on' -c "$3") || { echo "$out" >&2; exit 1; }
  ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
  q -c "INSERT INTO timings VALUES ('$1', '$2', $ms)" >/dev/null
}

for r in $(seq 1 "$ROUNDS"); do
  for side in plain tracked; do
    log "round $r, $side: insert, copy, delete"
    q -c "TRUNCATE $side" -c "CHECKPOINT" >/dev/null
    timed "$side" insert "INSERT INTO $side SELECT g, (g * 7919) % 1000003 FROM generate_series(1::int8, $ROWS) g"
    q -c "TRUNCATE $side" -c "CHECKPOINT" >/dev/null
    timed "$side" copy "COPY $side FROM '$rows_file'"
    q -c "CHECKPOINT" >/dev/null
    timed "$side" delete "DELETE FROM $side WHERE id % 10 = 0"
  done
done
check_missing=$(q -c "SELECT missing FROM cuckoo_store_verify('s')")

cat >"$pp_work/ins.pgbench" <<'EOF'
\set id random(2000000000, 4000000000)
INSERT INTO :tab VALUES (:id, :id) ON CONFLICT DO NOTHING;
EOF
cat >"$pp_work/del.pgbench" <<'EOF'
\set id random(1, :rows)
DELETE FROM :tab WHERE id = :id;
EOF
# the two sides in turn, the first one changing each round (plain, tracked;
# tracked, plain; ...), so that a machine whose speed drifts over minutes
# favours neither; each round's ratio is of two runs next to each other
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then order="plain tracked"; else order="tracked plain"; fi
  for side in $order; do
    log "round $r, $side: pgbench, 8 clients, $SECONDS_ s"
    lsn=$(q -c "SELECT pg_current_wal_insert_lsn()")
    out=$(PGHOST="$pp_sock" PGPORT="$pp_port" PGUSER=postgres pgbench -n -c 8 -j 2 -T "$SECONDS_" \
            -D tab="$side" -D rows="$ROWS" -f "$pp_work/ins.pgbench" -f "$pp_work/del.pgbench" postgres 2>&1)
    tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1)
    n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' | head -1)
    q -c "INSERT INTO timings VALUES ('$side', 'pgbench_tps', $tps, $r)" \
      -c "INSERT INTO timings VALUES ('$side', 'pgbench_wal', pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn') / $n, $r)" >/dev/null
  done
done
check_missing2=$(q -c "SELECT missing FROM cuckoo_store_verify('s')")
grown=$(q -c "SELECT count(DISTINCT segment) FILTER (WHERE chunk > 0) || ' of ' || count(DISTINCT segment) FROM s WHERE segment >= 0")
tracked_rows=$(q -c "SELECT count(*) FROM tracked")

[ "$PARTITIONS" -gt 0 ] && echo "Both tables partitioned by hash of id into $PARTITIONS partitions."
echo "$ROWS rows, a store for $CAPACITY values, $ROUNDS rounds, medians; PostgreSQL $(q -c 'SHOW server_version' | cut -d' ' -f1), $(nproc) cores."
echo "cuckoo_store_verify after the statements: missing = $check_missing; after pgbench: missing = $check_missing2."
echo "After pgbench: $tracked_rows tracked rows; segments of more than one chunk row: $grown."
echo
echo "| operation | plain | tracked | tracked / plain | goal |"
echo "|---|---|---|---|---|"
q -F' | ' <<'EOF'
WITH m AS (SELECT side, op, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS v
           FROM timings GROUP BY side, op)
SELECT '| ' || CASE p.op WHEN 'insert' THEN 'INSERT ... SELECT, ms'
                        WHEN 'copy' THEN 'COPY, ms'
                        WHEN 'delete' THEN 'DELETE of 10 %, ms'
                        WHEN 'pgbench_wal' THEN 'pgbench: WAL per transaction, bytes'
                        ELSE 'pgbench single-row INSERT/DELETE, 8 clients, tps' END,
       to_char(p.v, 'FM9999990.0'), to_char(t.v, 'FM9999990.0'), to_char(t.v / p.v, 'FM990.00'),
       CASE p.op WHEN 'pgbench_tps' THEN '>= 0.7: ' || CASE WHEN t.v / p.v >= 0.7 THEN 'met' ELSE 'NOT met' END
                 WHEN 'pgbench_wal' THEN '(none)'
                 WHEN 'delete' THEN '<= 2: ' || CASE WHEN t.v / p.v <= 2 THEN 'met' ELSE 'NOT met' END
                 ELSE '<= 1.5: ' || CASE WHEN t.v / p.v <= 1.5 THEN 'met' ELSE 'NOT met' END END || ' |'
FROM m p JOIN m t ON t.op = p.op AND t.side = 'tracked'
WHERE p.side = 'plain'
ORDER BY CASE p.op WHEN 'insert' THEN 1 WHEN 'copy' THEN 2 WHEN 'delete' THEN 3 WHEN 'pgbench_tps' THEN 4 ELSE 5 END;
EOF
echo
# each round's pgbench ratio (the two runs next to each other), in order
q -F' ' <<'EOF2'
SELECT 'pgbench tracked / plain by round: ' ||
       string_agg(to_char(t.v / p.v, 'FM990.00'), ', ' ORDER BY p.round) ||
       '; median ' || to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY t.v / p.v), 'FM990.00') ||
       ', lowest ' || to_char(min(t.v / p.v), 'FM990.00') ||
       ', rounds at 0.7 or more: ' || count(*) FILTER (WHERE t.v / p.v >= 0.7) || ' of ' || count(*)
FROM timings p JOIN timings t ON t.round = p.round AND t.op = p.op AND t.side = 'tracked'
WHERE p.side = 'plain' AND p.op = 'pgbench_tps';
EOF2
