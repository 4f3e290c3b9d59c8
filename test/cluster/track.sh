#!/usr/bin/env bash
# Living filters (cuckoo_store_track) under concurrency, crash and
# dump/restore, inside a throwaway cluster (pg_virtualenv sets PGHOST, PGPORT,
# PGUSER, PG_CLUSTER_CONF_ROOT):
#   1. 8 pgbench clients insert, update and delete rows of a tracked table
#      (values drawn from 500, so about 10 rows share one, past a bucket
#      pair's 8 slots) for SINGLE_SECONDS (default CLIENT_SECONDS, itself
#      LOAD_SECONDS by default; CI: 8 s) under READ COMMITTED: no error (a
#      deadlock would be one), then cuckoo_store_verify finds nothing missing.
#      Then the same with upserts and multi-statement transactions with
#      savepoints in the mix, for CLIENT_SECONDS (CI: 60 s on the host and in
#      every Debian tree): still no error (the changes are applied at
#      commit, segments in one order: docs/DESIGN.md "Living filters",
#      Concurrency).  Then cuckoo_store_rebuild (1.6) again and again while
#      4 clients run the mixed load: no error, nothing missing after.
#   2. The mixed load under REPEATABLE READ for CLIENT_SECONDS: no deadlock, and no
#      serialization failure caused by the tracking (PostgreSQL's own, of
#      two transactions updating one row of the table, are counted apart);
#      nothing missing after.
#   3. 4 clients under the load; the postmaster is killed with SIGKILL in the
#      middle; after recovery nothing is missing.  Then PREPARE TRANSACTION:
#      a prepared transaction's changes are in the store after COMMIT
#      PREPARED, and gone after ROLLBACK PREPARED; until then it holds its
#      segments (another commit changing one waits).  A transaction that
#      also changes the store directly (cuckoo_store_add) can deadlock with
#      another at commit: 40P01 with a hint, nothing missing after.
#   4. pg_dump -Fc | pg_restore into a new database: the trackings (a table
#      and a partitioned table, two levels, a partition attached with rows)
#      and their triggers are restored, nothing is missing, and the restored
#      tables' changes are followed.  4b: a dump without the store's rows
#      (the triggers stand, a warning), the trackings' data restored after
#      the triggers (their insert rebuilds), a writer holding another tracked
#      table while the last trigger is created, the trackings' COPY in
#      flight when the last trigger is created, pg_restore -j 8 of a store
#      tracking 3 tables and 16 partitions (a rebuild's bytes), a trigger
#      of the store's owner on the store (not run as the restoring superuser).
#   5. A tracked partitioned table under 4 clients writing through the root
#      and through partitions while a fifth attaches and detaches a
#      partition: the store's items equal the rows after, but for a few
#      copies kept by the saturation (docs/DESIGN.md, "Duplicates").
#   6. 4 clients writing single rows while a fifth inserts and deletes
#      1,000 rows a statement, a store within its capacity (one-chunk
#      segments, updated at commit without a row lock first): nothing
#      missing after.
#   7. Another backend's VACUUM truncates the store under a session's
#      remembered TIDs, then the table is extended with other rows: that
#      session's commits give no error and nothing is missing.
# Outside pg_virtualenv set PG* and TRACK_RESTART (a command that starts the
# server again after step 3).
set -uo pipefail
cd "$(dirname "$0")"
LOAD_SECONDS="${LOAD_SECONDS:-20}"
CLIENT_SECONDS="${CLIENT_SECONDS:-$LOAD_SECONDS}"
# phase 1's single statements (the mixed loads of 1 and 2 take CLIENT_SECONDS)
SINGLE_SECONDS="${SINGLE_SECONDS:-$CLIENT_SECONDS}"
TMPDIR="${TMPDIR:-/tmp}"
. ../lib.sh
work=$(mktemp -d "$TMPDIR/track_cluster.XXXXXX")
trap 'rm -rf "$work"' EXIT

verify() {  # verify LABEL DB
  local db=$2
  check "$1: cuckoo_store_verify finds nothing missing ($(q "$db" "SELECT count(k) FROM items") values)" 0 \
    "$(q "$db" "SELECT missing FROM cuckoo_store_verify('s')")"
  check "$1: every value of the table is found by a probe" 0 \
    "$(q "$db" "SELECT count(*) FROM items WHERE k IS NOT NULL AND NOT cuckoo_store_contains('s', k)")"
  check "$1: every segment passes the full validator" t \
    "$(q "$db" "SELECT bool_and(f::bytea::cuckoofilter IS NOT NULL) FROM cuckoo_store_segments('s')")"
}

cat >"$work/setup.sql" <<'EOF'
CREATE EXTENSION IF NOT EXISTS cuckoo;
-- 5,000 items: 10 segments, so that concurrent changes meet on them
SELECT cuckoo_store_create('s', 5000);
CREATE TABLE items (id int PRIMARY KEY, k bigint, note text);
INSERT INTO items SELECT g, g % 500, 'x' FROM generate_series(1, 3000) g;
SELECT cuckoo_store_track('s', 'items', 'k');
EOF
# ids 1 .. 20000; values 1 .. 500 (about 10 rows each)
cat >"$work/insert.pgbench" <<'EOF'
\set id random(1, 20000)
\set k random(1, 500)
INSERT INTO items VALUES (:id, :k, 'i') ON CONFLICT DO NOTHING;
EOF
cat >"$work/upsert.pgbench" <<'EOF'
\set id random(1, 20000)
\set k random(1, 500)
INSERT INTO items VALUES (:id, :k, 'u') ON CONFLICT (id) DO UPDATE SET k = excluded.k;
EOF
cat >"$work/insert_many.pgbench" <<'EOF'
\set id random(1, 20000)
\set k random(1, 500)
INSERT INTO items SELECT :id + g, :k + g, 'm' FROM generate_series(0, 7) g ON CONFLICT DO NOTHING;
EOF
cat >"$work/update.pgbench" <<'EOF'
\set id random(1, 20000)
\set k random(1, 500)
UPDATE items SET k = :k WHERE id = :id;
EOF
cat >"$work/update_other.pgbench" <<'EOF'
\set id random(1, 20000)
UPDATE items SET note = 'o' WHERE id = :id;
EOF
cat >"$work/delete.pgbench" <<'EOF'
\set id random(1, 20000)
DELETE FROM items WHERE id = :id;
EOF
cat >"$work/delete_many.pgbench" <<'EOF'
\set id random(1, 20000)
DELETE FROM items WHERE id BETWEEN :id AND :id + 7;
EOF
cat >"$work/rollback.pgbench" <<'EOF'
\set id random(1, 20000)
\set k random(1, 500)
BEGIN;
INSERT INTO items VALUES (:id + 100000, :k, 'r');
SAVEPOINT a;
DELETE FROM items WHERE id = :id;
ROLLBACK TO SAVEPOINT a;
UPDATE items SET k = NULL WHERE id = :id + 100000;
ROLLBACK;
EOF
# one statement, one trigger per transaction
single=(-f "$work/insert.pgbench@4" -f "$work/insert_many.pgbench@1" -f "$work/update.pgbench@3"
        -f "$work/update_other.pgbench@1" -f "$work/delete.pgbench@3" -f "$work/delete_many.pgbench@1")
# and transactions that change the store more than once: ON CONFLICT DO
# UPDATE (its insert and update triggers) and several statements
scripts=("${single[@]}" -f "$work/upsert.pgbench@2" -f "$work/rollback.pgbench@1")
detailed=
# (not "pgbench --help | grep -q": under pipefail a pgbench killed by SIGPIPE
# after grep's early exit would read as "no such option")
[[ $(pgbench --help 2>/dev/null) == *--failures-detailed* ]] && detailed="--failures-detailed --verbose-errors"

createdb load
psql -X -q -v ON_ERROR_STOP=1 -d load -f "$work/setup.sql" >/dev/null
check "setup: tracked, nothing missing" "0|3000" "$(q load "SELECT missing, rows FROM cuckoo_store_verify('s')")"

# failed LOG: the failed transactions pgbench counted (15 and later), else
# the errors it printed (before 15 an error ends the client)
failed() {
  local n
  n=$(grep -m1 -E '^number of failed transactions' "$1" | sed -E 's/.*: ([0-9]+).*/\1/')
  [ -n "$n" ] || n=$(grep -ciE 'error' "$1")
  echo "$n"
}
# others LOG: error lines that are neither deadlocks nor serialization failures
others() {
  grep -iE 'error' "$1" | grep -viE 'deadlock|could not serialize|client [0-9]+ aborted|run was aborted' | head -5
}

# 1. READ COMMITTED, one statement per transaction: nothing may fail
pgbench -n $detailed -c 8 -j 2 -T "$SINGLE_SECONDS" "${single[@]}" load >"$work/pgbench1.log" 2>&1
rc=$?
check "8 clients for $SINGLE_SECONDS s, READ COMMITTED, single statements: pgbench exit status" 0 "$rc"
check "8 clients, READ COMMITTED, single statements: no failed transaction (no deadlock)" 0 "$(failed "$work/pgbench1.log")"
grep -iE 'error' "$work/pgbench1.log" | head -5 | sed 's/^/#   /'
echo "# read committed, single statements: $(grep -E '^tps' "$work/pgbench1.log" | head -1)"
echo "# $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench1.log")"
verify "after READ COMMITTED load" load
echo "# values held by more than 8 rows: $(q load "SELECT count(*) FROM (SELECT k FROM items GROUP BY k HAVING count(*) > 8) d")"

# tracking_errors LOG: the lines of error messages that involve the
# tracking: their context names the cuckoo store (the commit's apply) or
# shows a statement of the store (a trigger that changes it); pgbench
# prints an error's context lines with it
tracking_errors() {
  grep -iE 'cuckoo store|WHERE segment|cuckoo_track' "$1" | head -5
}

# 1b. READ COMMITTED with upserts and multi-statement transactions: no
# error either (no deadlock: the changes are applied at commit, segments in
# one order)
pgbench -n $detailed -c 8 -j 2 -T "$CLIENT_SECONDS" "${scripts[@]}" load >"$work/pgbench1b.log" 2>&1
rc=$?
check "8 clients for $CLIENT_SECONDS s, READ COMMITTED, mixed: pgbench exit status" 0 "$rc"
check "8 clients, READ COMMITTED, mixed: no failed transaction (no deadlock)" 0 "$(failed "$work/pgbench1b.log")"
check "8 clients, READ COMMITTED, mixed: no error" "" "$(grep -iE 'error' "$work/pgbench1b.log" | head -5)"
echo "# read committed, mixed: $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench1b.log"); $(grep -ciE 'deadlock detected' "$work/pgbench1b.log") deadlocks"
verify "after READ COMMITTED mixed load" load

# 1c. cuckoo_store_rebuild (1.6) while 4 clients write: the writers wait
# for its SHARE lock and it for theirs, no error on either side, nothing
# missing after; the sticky values the loads left are gone (items drop)
items_before=$(q load "SELECT items FROM cuckoo_store_info('s')")
pgbench -n $detailed -c 4 -j 2 -T "$LOAD_SECONDS" "${scripts[@]}" load >"$work/pgbench1c.log" 2>&1 &
bench=$!
rebuilds=0
rebuild_errors=0
sleep 1
while kill -0 "$bench" 2>/dev/null; do
  if q load "SELECT cuckoo_store_rebuild('s')" >>"$work/rebuild1c.log" 2>&1; then
    rebuilds=$((rebuilds + 1))
  else
    rebuild_errors=$((rebuild_errors + 1))
  fi
  sleep 1
done
wait "$bench"
rc=$?
check "rebuilds while 4 clients write: pgbench exit status" 0 "$rc"
check "rebuilds while 4 clients write: no failed transaction" 0 "$(failed "$work/pgbench1c.log")"
check "rebuilds while 4 clients write: no error" "" "$(grep -iE 'error' "$work/pgbench1c.log" "$work/rebuild1c.log" | head -5)"
check "rebuilds while 4 clients write: every rebuild succeeded (at least one)" "0|t" "$rebuild_errors|$([ "$rebuilds" -ge 1 ] && echo t)"
echo "# rebuilds under load: $rebuilds; $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench1c.log")"
verify "after rebuilds under load" load
q load "SELECT cuckoo_store_rebuild('s')" >/dev/null
echo "# items before the rebuilds: $items_before; after a last one: $(q load "SELECT items FROM cuckoo_store_info('s')") ($(q load "SELECT count(DISTINCT k) FROM items") distinct values, $(q load "SELECT count(k) FROM items") rows)"
verify "after a last rebuild" load

# 2. REPEATABLE READ: no deadlock, no serialization failure of the
# tracking; PostgreSQL's own (an update, delete or upsert of a row of the
# table that another transaction changed since the snapshot) are counted
# apart: they are the table's, with or without tracking
PGOPTIONS="-c default_transaction_isolation=repeatable\\ read" \
  pgbench -n $detailed -c 8 -j 2 -T "$CLIENT_SECONDS" "${scripts[@]}" load >"$work/pgbench2.log" 2>&1
check "8 clients for $CLIENT_SECONDS s, REPEATABLE READ: no error but PostgreSQL's own serialization failures" "" "$(others "$work/pgbench2.log")"
others "$work/pgbench2.log" | sed 's/^/#   /'
check "8 clients, REPEATABLE READ: no deadlock" 0 "$(grep -ciE 'deadlock detected' "$work/pgbench2.log")"
check "8 clients, REPEATABLE READ: no error of the tracking" "" "$(tracking_errors "$work/pgbench2.log")"
tracking_errors "$work/pgbench2.log" | sed 's/^/#   /'
grep -A3 -iE 'could not serialize' "$work/pgbench2.log" | head -8 | sed 's/^/#   /'
echo "# repeatable read: $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench2.log"); $(grep -ciE 'could not serialize' "$work/pgbench2.log") serialization failures of the table's rows (PostgreSQL's own), $(grep -ciE 'deadlock detected' "$work/pgbench2.log") deadlocks"
verify "after REPEATABLE READ load" load

# 2b. SERIALIZABLE: two transactions that each probe the store for the
# other's value and then insert their own (write skew through the store):
# the commits' segment updates meet the other's reads as UPDATEs would, so
# one of the two fails with 40001 (the store's heap path and its SQL path,
# a store with a second index, alike)
for path in heap sql; do
  q load "CREATE TABLE ssi_t (id int PRIMARY KEY, k bigint); SELECT cuckoo_store_create('ssi_s', 5000);
          SELECT cuckoo_store_track('ssi_s', 'ssi_t', 'k')" >/dev/null
  [ "$path" = sql ] && q load "CREATE INDEX ON ssi_s (segment, fpr)" >/dev/null
  # a reads, inserts and commits after b has read, inserted and committed
  printf '%s\n' "BEGIN ISOLATION LEVEL SERIALIZABLE;" "SELECT cuckoo_store_contains('ssi_s', 2::bigint);" \
    "INSERT INTO ssi_t VALUES (1, 1);" "SELECT pg_sleep(3);" "COMMIT;" \
    | psql -X -q -d load >"$work/ssi_a.log" 2>&1 &
  ssi_a=$!
  sleep 1
  printf '%s\n' "BEGIN ISOLATION LEVEL SERIALIZABLE;" "SELECT cuckoo_store_contains('ssi_s', 1::bigint);" \
    "INSERT INTO ssi_t VALUES (2, 2);" "COMMIT;" | psql -X -q -d load >"$work/ssi_b.log" 2>&1
  wait "$ssi_a"
  check "SERIALIZABLE write skew through the store ($path path): one commit fails with 40001" "1|1" \
    "$(cat "$work/ssi_a.log" "$work/ssi_b.log" | grep -c 'could not serialize access')|$(q load "SELECT count(*) FROM ssi_t")"
  check "SERIALIZABLE write skew ($path path): nothing missing after" 0 \
    "$(q load "SELECT missing FROM cuckoo_store_verify('ssi_s')")"
  q load "DROP TABLE ssi_t, ssi_s" >/dev/null
done

# 2c. a segment that another transaction changes (cuckoo_store_add) and
# holds while a tracked transaction commits: the commit waits for it and
# changes the segment's newest version, under READ COMMITTED and under
# REPEATABLE READ with a snapshot older than that change (a lost update
# would lose the other's value)
for iso in "read committed" "repeatable read"; do
  q load "CREATE TABLE epq_t (id int PRIMARY KEY, k bigint); SELECT cuckoo_store_create('epq_s', 100);
          SELECT cuckoo_store_track('epq_s', 'epq_t', 'k')" >/dev/null
  printf '%s\n' "BEGIN ISOLATION LEVEL $iso;" "SELECT count(*) FROM epq_t;" "SELECT pg_sleep(1);" \
    "INSERT INTO epq_t VALUES (1, 1);" "COMMIT;" | psql -X -q -v ON_ERROR_STOP=1 -d load >"$work/epq_a.log" 2>&1 &
  epq_a=$!
  printf '%s\n' "BEGIN;" "SELECT cuckoo_store_add('epq_s', 1000::bigint);" "SELECT pg_sleep(3);" "COMMIT;" \
    | psql -X -q -v ON_ERROR_STOP=1 -d load >"$work/epq_b.log" 2>&1
  wait "$epq_a"
  check "a segment held by another transaction ($iso): the commit changes its newest version" "0|t|t|2" \
    "$(grep -c ERROR "$work/epq_a.log")|$(q load "SELECT cuckoo_store_contains('epq_s', 1::bigint), cuckoo_store_contains('epq_s', 1000::bigint), (cuckoo_store_info('epq_s')).items")"
  q load "DROP TABLE epq_t, epq_s" >/dev/null
done

# 3. crash in the middle of the load (the restart also enables PREPARE
# TRANSACTION for the step after it); a second store, created for 20 items,
# tracks the column too: its one segment grows to many chunk rows (1.6), so
# the commit's heap path updates and inserts chunk rows (and, with the
# first store's, leaves their page now and then: index entries), all
# replayed after the kill
datadir=$(q load "SHOW data_directory")
q load "SELECT cuckoo_store_create('sg', 20); SELECT cuckoo_store_track('sg', 'items', 'k');
        SELECT cuckoo_store_add_array('sg', array(SELECT g::int8 FROM generate_series(1000001, 1004000) g))" >/dev/null
check "a store created for 20 items, given 4,000 more: its segment is many chunk rows" t \
  "$(q load "SELECT count(*) > 4 FROM sg WHERE segment = 0")"
q load "ALTER SYSTEM SET max_prepared_transactions = 4" >/dev/null
pgbench -n -c 4 -j 2 -T "$LOAD_SECONDS" "${scripts[@]}" load >"$work/pgbench3.log" 2>&1 &
bench=$!
sleep $((LOAD_SECONDS / 2))
postmaster=$(head -1 "$datadir/postmaster.pid")
children=$(pgrep -P "$postmaster" | tr '\n' ' ')
kill -9 "$postmaster"
wait "$bench"
echo "# crash phase: $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench3.log" | sed 's/.*: //') transactions before the kill"
for i in $(seq 1 60); do
  alive=0
  for c in $postmaster $children; do kill -0 "$c" 2>/dev/null && alive=1; done
  [ "$alive" = 0 ] && break
  sleep 1
done
wait_server_gone "$datadir"   # backends forked after the list was taken too
if [ -n "${TRACK_RESTART:-}" ]; then eval "$TRACK_RESTART"; else pg_ctlcluster "${PGVERSION:-15}" regress start; fi
rc=$?
check "server restarted after kill -9" 0 "$rc"
for i in $(seq 1 30); do pg_isready -q && break; sleep 1; done
verify "after crash recovery" load
check "after crash recovery: the TOASTed store finds every value" "0|$(q load "SELECT count(k) FROM items")" \
  "$(q load "SELECT missing, rows FROM cuckoo_store_verify('sg')")"
if [ "$(q load "SELECT count(*) FROM pg_available_extensions WHERE name = 'amcheck'")" = 1 ]; then
  q load "CREATE EXTENSION amcheck" >/dev/null
  check "after crash recovery: the stores' keys and TOAST indexes pass amcheck (heapallindexed)" 4 \
    "$(q load "SELECT count(bt_index_check(i.indexrelid, true)) FROM pg_class c
               JOIN pg_index i ON i.indrelid IN (c.oid, c.reltoastrelid) WHERE c.relname IN ('s', 'sg')")"
  q load "DROP EXTENSION amcheck" >/dev/null
else
  echo "# amcheck is not installed: the indexes after recovery are not checked"
fi
q load "SELECT cuckoo_store_untrack('sg', 'items', 'k'); DROP TABLE sg" >/dev/null

# 3b. PREPARE TRANSACTION: the changes are applied before the prepare
if [ "$(q load "SHOW max_prepared_transactions")" -gt 0 ]; then
  items0=$(q load "SELECT items FROM cuckoo_store_info('s')")
  # (one at a time: a prepared transaction holds the segments it changed,
  # as it holds its rows, until COMMIT or ROLLBACK PREPARED)
  printf '%s\n' "BEGIN;" "INSERT INTO items VALUES (950001, 6000001, 'p');" \
    "PREPARE TRANSACTION 'cuckoo_track_2pc_a';" | psql -X -q -v ON_ERROR_STOP=1 -d load
  check "2PC: prepared, not committed: the store has not changed for others" "$items0" \
    "$(q load "SELECT items FROM cuckoo_store_info('s')")"
  q load "COMMIT PREPARED 'cuckoo_track_2pc_a'" >/dev/null
  printf '%s\n' "BEGIN;" "INSERT INTO items VALUES (950002, 6000002, 'p'), (950003, 6000003, 'p');" \
    "PREPARE TRANSACTION 'cuckoo_track_2pc_b';" | psql -X -q -v ON_ERROR_STOP=1 -d load
  q load "ROLLBACK PREPARED 'cuckoo_track_2pc_b'" >/dev/null
  check "2PC: COMMIT PREPARED adds its value, ROLLBACK PREPARED nothing" "t|$((items0 + 1))" \
    "$(q load "SELECT cuckoo_store_contains('s', 6000001::bigint), (SELECT items FROM cuckoo_store_info('s'))")"
  # a prepared transaction holds the segments it changed until COMMIT
  # PREPARED: another commit that changes one of them waits (here until
  # its lock_timeout, at its commit, rolled back whole)
  printf '%s\n' "BEGIN;" "INSERT INTO items VALUES (950004, 6000004, 'p');" \
    "PREPARE TRANSACTION 'cuckoo_track_2pc_c';" | psql -X -q -v ON_ERROR_STOP=1 -d load
  out=$(printf '%s\n' "SET lock_timeout = '500ms';" "INSERT INTO items VALUES (950005, 6000004, 'w');" |
        psql -X -q -d load 2>&1)
  check "2PC: a commit that changes a segment the prepared transaction holds waits (55P03 at its commit)" 2 \
    "$(grep -cE 'lock timeout|applying, at commit' <<<"$out")"
  check "2PC: ... and is rolled back whole" 0 "$(q load "SELECT count(*) FROM items WHERE id = 950005")"
  q load "COMMIT PREPARED 'cuckoo_track_2pc_c'" >/dev/null
  q load "INSERT INTO items VALUES (950005, 6000004, 'w')" >/dev/null
  check "2PC: after COMMIT PREPARED the value's two rows are found, both counted" "t|$((items0 + 3))" \
    "$(q load "SELECT cuckoo_store_contains('s', 6000004::bigint), (SELECT items FROM cuckoo_store_info('s'))")"
  # a delete prepared then rolled back leaves the value; committed, removes it
  printf '%s\n' "BEGIN;" "DELETE FROM items WHERE id IN (950001, 950004);" \
    "PREPARE TRANSACTION 'cuckoo_track_2pc_d';" | psql -X -q -v ON_ERROR_STOP=1 -d load
  q load "ROLLBACK PREPARED 'cuckoo_track_2pc_d'" >/dev/null
  check "2PC: ROLLBACK PREPARED of a delete: the values stay" "t|t|$((items0 + 3))" \
    "$(q load "SELECT cuckoo_store_contains('s', 6000001::bigint), cuckoo_store_contains('s', 6000004::bigint), (SELECT items FROM cuckoo_store_info('s'))")"
  printf '%s\n' "BEGIN;" "DELETE FROM items WHERE id IN (950001, 950004);" \
    "PREPARE TRANSACTION 'cuckoo_track_2pc_e';" | psql -X -q -v ON_ERROR_STOP=1 -d load
  q load "COMMIT PREPARED 'cuckoo_track_2pc_e'" >/dev/null
  # 6000004 was held by two rows at once: its count saturated at b / 2 = 2
  # copies, which stay (docs/DESIGN.md, "Duplicates"); 6000001's goes
  check "2PC: COMMIT PREPARED of a delete: 6000001's copy out, 6000004's two (saturated) kept and found" "t|$((items0 + 2))" \
    "$(q load "SELECT cuckoo_store_contains('s', 6000004::bigint), (SELECT items FROM cuckoo_store_info('s'))")"
  verify "after PREPARE TRANSACTION" load
else
  echo "# 2PC: max_prepared_transactions is 0 after the restart, not tested"
fi

# 3c. A transaction that also changes a tracked store directly
# (cuckoo_store_add) locks that segment at the call, outside the commit's
# order: two such transactions, each with a tracked insert of the value the
# other adds directly, deadlock at their commits (40P01, with the commit's
# context and a hint); the other commits, nothing is missing.
seg_of() {  # seg_of VALUE: the segment of s that VALUE goes to
  printf '%s\n' "BEGIN;" "SELECT cuckoo_store_add('s', $1::bigint);" \
    "SELECT DISTINCT segment FROM s WHERE xmin = pg_catalog.xid(pg_catalog.pg_current_xact_id());" "ROLLBACK;" |
    psql -X -qAt -v ON_ERROR_STOP=1 -d load | tail -n 1
}
va=7000001
vb=7000002
while [ "$(seg_of $vb)" = "$(seg_of $va)" ]; do vb=$((vb + 1)); done
# both direct calls are made before either commits: each session, after
# its call, takes an advisory lock and waits until the other has its own
barrier="SELECT pg_advisory_lock(k) FROM (VALUES (%s)) v(k);
DO \$\$ BEGIN
  FOR i IN 1 .. 1200 LOOP
    EXIT WHEN (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND objid IN (22001, 22002)) = 2;
    PERFORM pg_sleep(0.05);
  END LOOP;
END \$\$;"
direct_txn() {  # direct_txn ID TRACKED DIRECT LOCK
  printf '%s\n' "BEGIN;" "INSERT INTO items VALUES ($1, $2, 'd');" \
    "SELECT cuckoo_store_add('s', $3::bigint);" "$(printf "$barrier" "$4")" "COMMIT;" |
    psql -X -q -d load >"$work/direct_$1.log" 2>&1
}
direct_txn 960001 $va $vb 22001 &
pa=$!
direct_txn 960002 $vb $va 22002 &
pb=$!
wait $pa $pb
cat "$work/direct_960001.log" "$work/direct_960002.log" >"$work/direct.log"
check "direct and tracked changes in two transactions: one deadlock (40P01)" 1 \
  "$(grep -c 'deadlock detected' "$work/direct.log")"
check "the deadlock is at a commit, with its context and the hint" "1|1" \
  "$(grep -c 'applying, at commit' "$work/direct.log")|$(grep -c 'HINT:.*change a tracked store directly in a transaction of its own' "$work/direct.log")"
check "the other transaction committed" 1 "$(q load "SELECT count(*) FROM items WHERE id IN (960001, 960002)")"
grep -E "ERROR|HINT|CONTEXT" "$work/direct.log" | head -6 | sed 's/^/#   /'
verify "after the direct changes' deadlock" load

# 4. dump and restore, with a tracked partitioned table (two levels, a
# partition attached with rows) beside the tracked table
cat >"$work/parted.sql" <<'EOF'
SELECT cuckoo_store_create('sp', 5000);
CREATE TABLE pitems (id int, k bigint) PARTITION BY RANGE (id);
CREATE TABLE pitems1 PARTITION OF pitems FOR VALUES FROM (0) TO (1000);
CREATE TABLE pitems2 PARTITION OF pitems FOR VALUES FROM (1000) TO (3000) PARTITION BY RANGE (id);
CREATE TABLE pitems2a PARTITION OF pitems2 FOR VALUES FROM (1000) TO (2000);
INSERT INTO pitems SELECT g, g % 700 FROM generate_series(1, 1999) g;
SELECT cuckoo_store_track('sp', 'pitems', 'k');
CREATE TABLE pitems2b (id int, k bigint);
INSERT INTO pitems2b SELECT g, g FROM generate_series(2000, 2999) g;
ALTER TABLE pitems2 ATTACH PARTITION pitems2b FOR VALUES FROM (2000) TO (3000);
DELETE FROM pitems2a WHERE id < 1100;
EOF
psql -X -q -v ON_ERROR_STOP=1 -d load -f "$work/parted.sql" >/dev/null
# 2,400 items for 2,899 rows: the 1,000 distinct values of pitems2b and the
# 700 values of g % 700, each held by two or three rows at once, saturated
# at b / 2 = 2 copies (docs/DESIGN.md, "Duplicates")
check "partitioned: tracked, exact" "0|2899|2400" "$(q load "SELECT missing, rows, items FROM cuckoo_store_verify('sp')")"
# a sticky value (three rows at once, saturated at two copies, then deleted
# in another transaction):
# the dump has it, a restore gives what a rebuild would, without it
q load "INSERT INTO pitems SELECT 5, 777777 FROM generate_series(1, 3)" >/dev/null
q load "DELETE FROM pitems WHERE k = 777777" >/dev/null
check "partitioned: the deleted value 777777 stays in the store before the dump (sticky)" "t|2402" \
  "$(q load "SELECT cuckoo_store_contains('sp', 777777::int8), items FROM cuckoo_store_info('sp')")"
pg_dump -Fc -d load -f "$work/load.dump"
check "pg_dump" 0 "$?"
createdb restored
pg_restore -d restored "$work/load.dump"
check "pg_restore" 0 "$?"
# a parallel restore creates the triggers of several tables at once
createdb restored_j
pg_restore -j 4 -d restored_j "$work/load.dump"
check "pg_restore -j 4" 0 "$?"
check "restored: the trackings" "s|items|k sp|pitems|k" "$(q restored "SELECT string_agg(store || '|' || tab || '|' || col, ' ' ORDER BY store) FROM cuckoo_store_tracking")"
info_trackings_sql="SELECT string_agg(i.trackings::text, ' ' ORDER BY s) FROM unnest('{s,sp}'::regclass[]) s, cuckoo_store_info(s) i"
if [ "$(q load "SELECT count(*) FROM pg_proc WHERE proname = 'cuckoo_store_info' AND 'trackings' = ANY (proargnames)")" = 1 ]; then
  check "restored: cuckoo_store_info lists the same trackings (1.4)" "{public.items.k} {public.pitems.k}|$(q load "$info_trackings_sql")" \
    "$(q restored "$info_trackings_sql")|$(q restored "$info_trackings_sql")"
fi
check "restored: the four triggers" 4 "$(q restored "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'items'::regclass AND tgname LIKE 'cuckoo_track_%'")"
rows_sql="SELECT md5(string_agg(segment || ':' || chunk || ':' || encode(bytes, 'hex'), ',' ORDER BY segment, chunk)) FROM s"
psrows_sql="SELECT md5(string_agg(segment || ':' || chunk || ':' || encode(bytes, 'hex'), ',' ORDER BY segment, chunk)) FROM sp"
# the restore rebuilt both stores when it created their last triggers: a
# rebuild now changes no byte, and the parallel restore gave the same bytes
s_restored=$(q restored "$rows_sql")
sp_restored=$(q restored "$psrows_sql")
check "restored: the sticky value is gone (the store was rebuilt)" "f|2400" \
  "$(q restored "SELECT cuckoo_store_contains('sp', 777777::int8), items FROM cuckoo_store_info('sp')")"
q restored "SELECT cuckoo_store_rebuild('s'), cuckoo_store_rebuild('sp')" >/dev/null
check "restored: the stores are what a rebuild gives, byte for byte" "$s_restored|$sp_restored" \
  "$(q restored "$rows_sql")|$(q restored "$psrows_sql")"
check "restored: the stores differ from the dumped ones (sticky values gone)" "t" \
  "$(q load "SELECT ($rows_sql) <> '$s_restored' OR ($psrows_sql) <> '$sp_restored'")"
check "pg_restore -j 4: the same stores, byte for byte" "$s_restored|$sp_restored" \
  "$(q restored_j "$rows_sql")|$(q restored_j "$psrows_sql")"
deps_sql="SELECT count(*) FROM pg_depend d JOIN pg_trigger t ON d.classid = 'pg_trigger'::regclass AND d.objid = t.oid
          WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid IN ('s'::regclass, 'sp'::regclass) AND d.deptype = 'a'"
check "restored, pg_restore -j 4: each tracking trigger depends on its store again (for the next dump)" "24|24|24" \
  "$(q load "$deps_sql")|$(q restored "$deps_sql")|$(q restored_j "$deps_sql")"
check "pg_restore -j 4: the trackings and their 24 triggers" "2|24|0|0" \
  "$(q restored_j "SELECT (SELECT count(*) FROM cuckoo_store_tracking), (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'cuckoo_track_%'),
                          (SELECT missing FROM cuckoo_store_verify('s')), (SELECT missing FROM cuckoo_store_verify('sp'))")"
verify "restored" restored
items0=$(q restored "SELECT items FROM cuckoo_store_info('s')")
q restored "INSERT INTO items VALUES (900001, 5000001, 'n')"
check "restored: an insert is followed" "t|$((items0 + 1))" \
  "$(q restored "SELECT cuckoo_store_contains('s', 5000001::bigint), (SELECT items FROM cuckoo_store_info('s'))")"
q restored "DELETE FROM items WHERE id = 900001"
check "restored: a delete is followed" "$items0" "$(q restored "SELECT items FROM cuckoo_store_info('s')")"
verify "restored, after a change" restored
check "restored partitioned: four triggers on each of its 5 tables" "5|20" \
  "$(q restored "SELECT count(DISTINCT tgrelid), count(*) FROM pg_trigger WHERE tgrelid IN (SELECT relid FROM pg_partition_tree('pitems')) AND tgname LIKE 'cuckoo_track_%'")"
check "restored partitioned: exact" "0|2899|2400" "$(q restored "SELECT missing, rows, items FROM cuckoo_store_verify('sp')")"
q restored "INSERT INTO pitems VALUES (5, 900001); INSERT INTO pitems2b VALUES (2500, 900002); DELETE FROM pitems2a WHERE id = 1500; UPDATE pitems SET id = id + 1000 WHERE id BETWEEN 10 AND 19"
# two new values; the delete and the moves are of saturated values (100, 10 .. 19)
check "restored partitioned: changes through the root and a partition are followed" "t|t|0|2900|2402" \
  "$(q restored "SELECT cuckoo_store_contains('sp', 900001::bigint), cuckoo_store_contains('sp', 900002::bigint), missing, rows, items FROM cuckoo_store_verify('sp')")"

# 4b. restores that went wrong before (review of "a restore gives what a
# rebuild would"): a store whose rows were not dumped (the rebuild fails:
# the CREATE TRIGGER must stand, with a warning, else the table's updates
# are followed by nothing); a tracked table of lower OID held by a writer
# while the last trigger of another is created (the rebuild waits for it,
# it was silently skipped); pg_restore -j 8 of a store tracking three
# tables and a tree of 16 partitions (no deadlock, a rebuild's bytes)
pg_dump --exclude-table-data=s -d load -f "$work/nostore.sql"
createdb restored_nostore
psql -X -q -d restored_nostore -f "$work/nostore.sql" >/dev/null 2>"$work/nostore.err"
check "psql of a plain dump without the store's rows: no error" 0 "$(grep -c 'ERROR:' "$work/nostore.err")"
check "without the store's rows: a warning names the store" 1 "$(grep -c 'WARNING:  cuckoo store "s" was not rebuilt' "$work/nostore.err")"
check "without the store's rows: the four triggers on items stand" 4 \
  "$(q restored_nostore "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'items'::regclass AND tgname LIKE 'cuckoo_track_%'")"
# pg_restore -j schedules the trackings' data by its size, often after the
# tables' triggers, whose CREATE TRIGGER then finds no tracking: in that
# order (pg_restore -L), the insert of the trackings rebuilds the stores
pg_restore -l "$work/load.dump" | grep -v 'TABLE DATA [^ ]* cuckoo_store_tracking ' >"$work/late.list"
pg_restore -l "$work/load.dump" | grep 'TABLE DATA [^ ]* cuckoo_store_tracking ' >>"$work/late.list"
createdb restored_late
pg_restore -L "$work/late.list" -d restored_late "$work/load.dump"
check "pg_restore with the trackings' data after the triggers" 0 "$?"
check "trackings restored last: the stores are a rebuild's, byte for byte" "$s_restored|$sp_restored" \
  "$(q restored_late "$rows_sql")|$(q restored_late "$psrows_sql")"
# last_trigger_while HELD TABLE: in busy, another session runs HELD in a
# transaction it keeps open for 3 s; a second in, TABLE's last tracking
# trigger (cuckoo_track_truncate) is created; returns once both are done
last_trigger_while() {
  q busy "BEGIN; $1; SELECT pg_sleep(3); COMMIT" >/dev/null &
  local holder=$!
  sleep 1
  q busy "CREATE TRIGGER cuckoo_track_truncate BEFORE TRUNCATE ON $2 FOR EACH STATEMENT EXECUTE FUNCTION public.cuckoo_track_trigger()"
  wait $holder
}
createdb busy
q busy "CREATE EXTENSION cuckoo; SELECT cuckoo_store_create('bs', 2000);
        CREATE TABLE b1 (k bigint); CREATE TABLE b2 (k bigint);
        INSERT INTO b1 SELECT 777777 FROM generate_series(1, 3); INSERT INTO b1 SELECT g FROM generate_series(1, 100) g;
        INSERT INTO b2 SELECT g FROM generate_series(1001, 1100) g;
        SELECT cuckoo_store_track('bs', 'b1', 'k'), cuckoo_store_track('bs', 'b2', 'k')" >/dev/null
q busy "DELETE FROM b1 WHERE k = 777777; DROP TRIGGER cuckoo_track_truncate ON b2"
check "busy: b1's OID is the lower, the deleted value 777777 is sticky" "t|t" \
  "$(q busy "SELECT 'b1'::regclass::oid < 'b2'::regclass::oid, cuckoo_store_contains('bs', 777777::bigint)")"
last_trigger_while "LOCK TABLE b1 IN ROW EXCLUSIVE MODE" b2
check "busy: the last trigger waited for b1's writer and rebuilt the store" "f|0|200" \
  "$(q busy "SELECT cuckoo_store_contains('bs', 777777::bigint), missing, items FROM cuckoo_store_verify('bs')")"
# a parallel restore may create a table's last trigger while the COPY of
# the trackings is still in flight: the command waits for it (it saw no
# tracking and did not rebuild)
q busy "SELECT cuckoo_store_untrack('bs', 'b2', 'k')" >/dev/null
q busy "SELECT cuckoo_store_add('bs', 888888::bigint)" >/dev/null
q busy "DROP TRIGGER cuckoo_track_truncate ON b1; DELETE FROM cuckoo_store_tracking"
check "trackings in flight: 888888, added directly, is in the store (a rebuild drops it)" t "$(q busy "SELECT cuckoo_store_contains('bs', 888888::bigint)")"
last_trigger_while "INSERT INTO cuckoo_store_tracking VALUES ('bs', 'b1', 'k')" b1
check "trackings in flight: the last trigger waited for them and rebuilt the store" "f|0|100" \
  "$(q busy "SELECT cuckoo_store_contains('bs', 888888::bigint), missing, items FROM cuckoo_store_verify('bs')")"
createdb many
q many "CREATE EXTENSION cuckoo; SELECT cuckoo_store_create('sm', 20000);
        CREATE TABLE a1 (id bigint, k bigint); CREATE TABLE a2 (id bigint, k bigint); CREATE TABLE a3 (id bigint, k bigint);
        CREATE TABLE pm (id bigint, k bigint) PARTITION BY RANGE (id)" >/dev/null
for i in $(seq 0 15); do q many "CREATE TABLE pm$i PARTITION OF pm FOR VALUES FROM ($((i * 1000))) TO ($((i * 1000 + 1000)))"; done
q many "INSERT INTO a1 SELECT g, g % 3000 FROM generate_series(1, 6000) g;
        INSERT INTO a2 SELECT g, 10000 + g FROM generate_series(1, 2000) g;
        INSERT INTO a3 SELECT g, 20000 + g % 50 FROM generate_series(1, 200) g;
        INSERT INTO pm SELECT g, 30000 + g % 4000 FROM generate_series(0, 15999) g;
        SELECT cuckoo_store_track('sm', 'a1', 'k'), cuckoo_store_track('sm', 'a2', 'k'),
               cuckoo_store_track('sm', 'a3', 'k'), cuckoo_store_track('sm', 'pm', 'k');
        DELETE FROM a1 WHERE k >= 1500; DELETE FROM pm WHERE k >= 32000; DELETE FROM a3 WHERE k >= 20025" >/dev/null
pg_dump -Fc -d many -f "$work/many.dump"
smrows_sql="SELECT md5(string_agg(segment || ':' || chunk || ':' || encode(bytes, 'hex'), ',' ORDER BY segment, chunk)) FROM sm"
for run in 1 2 3; do
  createdb "many_j$run"
  pg_restore -j 8 -d "many_j$run" "$work/many.dump"
  check "pg_restore -j 8, run $run" 0 "$?"
  before=$(q "many_j$run" "$smrows_sql")
  q "many_j$run" "SELECT cuckoo_store_rebuild('sm')" >/dev/null
  check "pg_restore -j 8, run $run: 80 triggers, nothing missing, a rebuild's bytes" "80|0|$before" \
    "$(q "many_j$run" "SELECT (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'cuckoo_track_%'), (SELECT missing FROM cuckoo_store_verify('sm')), ($smrows_sql)")"
done

# a store's owner puts a trigger on the store whose name sorts before the
# tracking triggers': the restore's rebuild, which writes the store, must not
# run it as the superuser running pg_restore (it made its owner a superuser)
createdb esc
q esc "CREATE EXTENSION cuckoo; CREATE ROLE regress_track_mallory; GRANT CREATE ON SCHEMA public TO regress_track_mallory" >/dev/null
q esc "SET ROLE regress_track_mallory; SELECT cuckoo_store_create('es', 1000);
       CREATE TABLE et (k bigint); INSERT INTO et SELECT g FROM generate_series(1, 100) g;
       SELECT cuckoo_store_track('es', 'et', 'k');
       CREATE FUNCTION escalate() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
         IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN EXECUTE 'ALTER ROLE regress_track_mallory SUPERUSER'; END IF;
         RETURN NULL; END \$\$;
       CREATE TRIGGER a_escalate AFTER UPDATE ON es FOR EACH STATEMENT EXECUTE FUNCTION escalate()" >/dev/null
pg_dump -Fc -d esc -f "$work/esc.dump"
createdb esc_restored
pg_restore -d esc_restored "$work/esc.dump"
check "a store owner's trigger on the store did not run as the restoring superuser" "f|0|100" \
  "$(q esc_restored "SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_track_mallory'), missing, items FROM cuckoo_store_verify('es')")"
dropdb esc; dropdb esc_restored; q postgres "DROP ROLE regress_track_mallory"

# 5. a tracked partitioned table under 4 clients writing through the root and
# through partitions (inserts, updates in place, rows moving between
# partitions, deletes; values almost all distinct, so the store's items
# must equal the rows but for a few kept copies) while a fifth attaches and
# detaches a partition with rows
cat >"$work/pt.sql" <<'EOF'
SELECT cuckoo_store_create('ps', 20000);
CREATE TABLE pt (id int, k bigint) PARTITION BY RANGE (id);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (10000);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (10000) TO (20000);
INSERT INTO pt SELECT g, g * 3 FROM generate_series(1, 19999, 7) g;
SELECT cuckoo_store_track('ps', 'pt', 'k');
CREATE TABLE pt3 (id int, k bigint);
INSERT INTO pt3 SELECT g, g FROM generate_series(20000, 20999) g;
EOF
psql -X -q -v ON_ERROR_STOP=1 -d load -f "$work/pt.sql" >/dev/null
cat >"$work/pt_root.pgbench" <<'EOF'
\set id random(0, 19999)
\set k random(1, 100000000)
INSERT INTO pt VALUES (:id, :k);
EOF
cat >"$work/pt_leaf.pgbench" <<'EOF'
\set id random(0, 9999)
\set k random(1, 100000000)
INSERT INTO pt1 VALUES (:id, :k);
EOF
cat >"$work/pt_move.pgbench" <<'EOF'
\set id random(0, 9999)
UPDATE pt SET id = id + 10000 WHERE id = :id;
EOF
cat >"$work/pt_update.pgbench" <<'EOF'
\set id random(10000, 19999)
UPDATE pt2 SET k = k + 1 WHERE id = :id;
EOF
cat >"$work/pt_delete.pgbench" <<'EOF'
\set id random(0, 19999)
DELETE FROM pt WHERE id = :id;
EOF
cat >"$work/pt_ddl.pgbench" <<'EOF'
ALTER TABLE pt ATTACH PARTITION pt3 FOR VALUES FROM (20000) TO (21000);
ALTER TABLE pt DETACH PARTITION pt3;
EOF
pgbench -n $detailed -c 4 -j 2 -T "$LOAD_SECONDS" -f "$work/pt_root.pgbench@3" -f "$work/pt_leaf.pgbench@2" \
  -f "$work/pt_move.pgbench@2" -f "$work/pt_update.pgbench@2" -f "$work/pt_delete.pgbench@2" load >"$work/pgbench5.log" 2>&1 &
bench=$!
pgbench -n $detailed -c 1 -T "$LOAD_SECONDS" -f "$work/pt_ddl.pgbench" load >"$work/pgbench5ddl.log" 2>&1
wait "$bench"
# PostgreSQL itself refuses an UPDATE or DELETE whose row a concurrent UPDATE
# moved to another partition (40001, "tuple to be locked was already moved to
# another partition due to concurrent update"): the moving script causes it,
# with or without tracking, and pgbench ends that client.  Any other error
# is the tracking's.
moved=$(grep -c 'already moved to another partition due to concurrent update' "$work/pgbench5.log")
echo "# partitioned: $moved client(s) ended by PostgreSQL's cross-partition update conflict (40001, not the tracking's)"
check "partitioned under load: no error" "" "$(grep -iE 'error' "$work/pgbench5.log" "$work/pgbench5ddl.log" \
  | grep -vE 'already moved to another partition due to concurrent update|Run was aborted|run was aborted' | head -5)"
echo "# partitioned: $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench5.log" | sed 's/.*: //') writes, $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench5ddl.log" | sed 's/.*: //') attach-detach cycles"
# The items equal the rows but for the copies removes keep, never fewer: a
# value held by two rows at once (pt3's values, attached again and again,
# meet the k + 1 of updates), or a remove that finds another value's entry
# among its copies (docs/DESIGN.md, "Duplicates": a few in 100,000
# removes; each attach and detach adds and removes pt3's 1,000 values).
# At most one kept copy per 1,000 changes.
writes5=$(grep -m1 -E 'number of transactions actually processed' "$work/pgbench5.log" | sed 's/.*: //; s/[^0-9].*//')
cycles5=$(grep -m1 -E 'number of transactions actually processed' "$work/pgbench5ddl.log" | sed 's/.*: //; s/[^0-9].*//')
changes5=$(( ${writes5:-0} + 2000 * ${cycles5:-0} ))
# (A value of n rows counts min(n, 2) copies.)
counted5="(SELECT sum(least(n, 2)) FROM (SELECT count(k) AS n FROM pt GROUP BY k) c)"
echo "# partitioned: the store's items exceed the rows' copies by $(q load "SELECT items - $counted5 FROM cuckoo_store_verify('ps')") after $changes5 changes"
check "partitioned under load: nothing missing, the store's items = the rows' copies (+ at most 1 per 1,000 changes)" "0|t" \
  "$(q load "SELECT missing, items - $counted5 BETWEEN 0 AND $changes5 / 1000 AND rows = (SELECT count(k) FROM pt) FROM cuckoo_store_verify('ps')")"
check "partitioned under load: the detached partition has no triggers" 0 \
  "$(q load "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pt3'::regclass")"

# 6. statements of 1,000 rows beside single-row writes, a store within its
# capacity (every segment one chunk row, which the commit updates without
# locking it first: docs/DESIGN.md, "Two-chunk segments, the table's size, and
# one-chunk segments without the row lock"): 4 clients insert and delete
# single rows while a fifth inserts and deletes 1,000 rows a statement, so
# its commits meet segments that others changed after its snapshot, some
# moved out of their pages.  Before the
# find through the primary key kept its second fetch out of the row's slot
# (2026-11-27), it left a newer version's TID beside an older version's
# bytes, and this load lost changes (57 values missing in a 15 s run).
psql -X -q -v ON_ERROR_STOP=1 -d load >/dev/null <<'EOF'
SELECT cuckoo_store_create('bs', 200000);
CREATE TABLE bt (id int, k bigint);
INSERT INTO bt SELECT g, g * 3 FROM generate_series(1, 19999, 7) g;
SELECT cuckoo_store_track('bs', 'bt', 'k');
EOF
cat >"$work/bt_ins.pgbench" <<'EOF'
\set id random(0, 19999)
\set k random(1, 100000000)
INSERT INTO bt VALUES (:id, :k);
EOF
cat >"$work/bt_del.pgbench" <<'EOF'
\set id random(0, 19999)
DELETE FROM bt WHERE id = :id;
EOF
cat >"$work/bt_bulk.pgbench" <<'EOF'
\set b random(1, 100000000)
INSERT INTO bt SELECT 30000 + g, :b + g FROM generate_series(1, 1000) g;
DELETE FROM bt WHERE id > 30000;
EOF
pgbench -n $detailed -c 4 -j 2 -T "$LOAD_SECONDS" -f "$work/bt_ins.pgbench" -f "$work/bt_del.pgbench" \
  load >"$work/pgbench6.log" 2>&1 &
bench=$!
pgbench -n $detailed -c 1 -T "$LOAD_SECONDS" -f "$work/bt_bulk.pgbench" load >"$work/pgbench6bulk.log" 2>&1
wait "$bench"
check "bulk beside single rows: no error" "" "$(grep -iE 'error' "$work/pgbench6.log" "$work/pgbench6bulk.log" || true)"
single6=$(grep -m1 -E 'number of transactions actually processed' "$work/pgbench6.log" | sed 's/.*: //; s/[^0-9].*//')
bulk6=$(grep -m1 -E 'number of transactions actually processed' "$work/pgbench6bulk.log" | sed 's/.*: //; s/[^0-9].*//')
echo "# bulk beside single rows: $single6 single-row and $bulk6 1,000-row transactions"
counted6="(SELECT sum(least(n, 2)) FROM (SELECT count(k) AS n FROM bt GROUP BY k) c)"
check "bulk beside single rows: nothing missing, every segment one chunk row, no fewer items than the rows' copies" "0|t|t" \
  "$(q load "SELECT missing, (SELECT max(chunk) FROM bs) = 0, items >= $counted6 AND rows = (SELECT count(k) FROM bt) FROM cuckoo_store_verify('bs')")"


# 7. another backend's VACUUM truncates the store under a backend's
# remembered TIDs (docs/DESIGN.md, "Two-chunk segments, the table's size, and
# one-chunk segments without the row lock": the size the storage manager
# knew is trusted while it covers a TID, since a truncation's invalidation
# reaches every backend at its next lock on the store).  Session A, one
# psql kept open, commits single rows while the store's rows are at its
# table's tail; another session moves them to the front and VACUUM
# truncates the tail; A commits again (its TIDs past the end), the table is
# extended with other rows (its TIDs at rows of other keys) and A commits
# again.  sql/track_direct_tids.sql does this in one session, whose own
# truncation sets its known size.
# (each VACUUM waits first, up to 30 s, until no other session holds an
# older snapshot: autovacuum's ANALYZE of the tables the steps before
# changed did, and that VACUUM then truncated nothing, once on 13)
psql -X -q -v ON_ERROR_STOP=1 -d load >/dev/null <<'EOF'
CREATE FUNCTION wait_horizon() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    PERFORM pg_stat_clear_snapshot();
    EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
                          WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid());
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
CREATE TABLE vt (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_create('vs', 3000);
SELECT cuckoo_store_track('vs', 'vt', 'k');
INSERT INTO vs (segment, chunk, bytes) SELECT 100000 + g, 0, '\x00' FROM generate_series(1, 2000) g;
BEGIN;
UPDATE vs SET bytes = bytes WHERE segment < 100000;
UPDATE vs SET bytes = bytes WHERE segment < 100000;
UPDATE vs SET bytes = bytes WHERE segment < 100000;
COMMIT;
SELECT wait_horizon();
VACUUM vs;
EOF
blocks7=$(q load "SELECT pg_relation_size('vs') / 8192")
check "truncated under another backend: the store's rows at its table's tail" t \
  "$(q load "SELECT min((ctid::text::point)[0]) > $blocks7 / 2 FROM vs WHERE segment < 100000")"
mkfifo "$work/a7.in"
psql -X -q -d load <"$work/a7.in" >"$work/a7.out" 2>&1 &
a7=$!
exec 7>"$work/a7.in"
# wait7 N: until session A has run everything written to it so far
wait7() {
  echo "\\! touch $work/a7.mark$1" >&7
  for _ in $(seq 1 600); do [ -e "$work/a7.mark$1" ] && return; sleep 0.1; done
}
for i in $(seq 1 40); do echo "INSERT INTO vt VALUES ($i, $i);" >&7; done
wait7 1
psql -X -q -v ON_ERROR_STOP=1 -d load >/dev/null <<'EOF'
DELETE FROM vs WHERE segment >= 100000;
SELECT wait_horizon();
VACUUM vs;
BEGIN;
UPDATE vs SET bytes = bytes; UPDATE vs SET bytes = bytes; UPDATE vs SET bytes = bytes;
UPDATE vs SET bytes = bytes; UPDATE vs SET bytes = bytes; UPDATE vs SET bytes = bytes;
UPDATE vs SET bytes = bytes; UPDATE vs SET bytes = bytes;
COMMIT;
SELECT wait_horizon();
VACUUM vs;
EOF
check "truncated under another backend: VACUUM truncated the table" t \
  "$(q load "SELECT pg_relation_size('vs') / 8192 < $blocks7")"
for i in $(seq 41 80); do echo "INSERT INTO vt VALUES ($i, $i);" >&7; done
wait7 2
q load "INSERT INTO vs (segment, chunk, bytes) SELECT 100000 + g, 0, '\x00' FROM generate_series(1, 6000) g"
check "truncated under another backend: the table extended again" t \
  "$(q load "SELECT pg_relation_size('vs') / 8192 >= $blocks7")"
for i in $(seq 81 120); do echo "INSERT INTO vt VALUES ($i, $i);" >&7; done
exec 7>&-
wait "$a7"
check "truncated under another backend: the session's commits gave no error" "" "$(grep -iE 'error' "$work/a7.out" || true)"
q load "DELETE FROM vs WHERE segment >= 100000"
check "truncated under another backend: 120 rows, nothing missing, every value found" "120|0|0" \
  "$(q load "SELECT rows, missing, (SELECT count(*) FROM vt WHERE NOT cuckoo_store_contains('vs', k)) FROM cuckoo_store_verify('vs')")"

finish
