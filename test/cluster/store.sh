#!/usr/bin/env bash
# Stored filters (cuckoo_store_*) under concurrency, crash and dump/restore,
# inside a throwaway cluster (pg_virtualenv sets PGHOST, PGPORT, PGUSER,
# PG_CLUSTER_CONF_ROOT):
#   1. 8 pgbench clients add and remove random keys, one at a time and in
#      arrays that change several segments at once, on a store of few
#      segments (so they collide), while others probe, for CLIENT_SECONDS
#      (default LOAD_SECONDS; CI on the host: the issue's 60 s):
#      no error (a deadlock would be one), then every key of the
#      ground-truth table is found and the store's item count equals it.
#      The same changes go, in the same transactions, to a second store
#      created for 1 value (one segment), which grows in place under the
#      concurrent load (bucket splits, the segment moving out of line): the
#      same checks hold for it.  From 1.5 some clients add keys with the
#      bulk load, cuckoo_store_load_agg, 16 keys a call.
#   2. 4 clients under the same load; the postmaster is killed with SIGKILL
#      in the middle; after recovery every committed key is found.
#   3. pg_dump -Fc | pg_restore into a new database: the restored store
#      finds every key and keeps working.
# Outside pg_virtualenv (a private server from test/pg_private.sh, say), set
# PG* for it and STORE_RESTART to a command that starts it again after step 2.
set -uo pipefail
cd "$(dirname "$0")"
LOAD_SECONDS="${LOAD_SECONDS:-20}"
CLIENT_SECONDS="${CLIENT_SECONDS:-$LOAD_SECONDS}"
TMPDIR="${TMPDIR:-/tmp}"
. ../lib.sh
work=$(mktemp -d "$TMPDIR/store_cluster.XXXXXX")
trap 'rm -rf "$work"' EXIT

verify() {  # verify LABEL DB
  local db=$2
  check "$1: no false negatives ($(q "$db" "SELECT count(*) FROM truth") keys in the truth)" 0 \
    "$(q "$db" "SELECT count(*) FROM truth WHERE NOT cuckoo_store_contains('s', k)")"
  check "$1: the store's items equal the truth" t \
    "$(q "$db" "SELECT items = (SELECT count(*) FROM truth) FROM cuckoo_store_info('s')")"
  check "$1: every segment passes the full validator" t \
    "$(q "$db" "SELECT bool_and(f::bytea::cuckoofilter IS NOT NULL) FROM cuckoo_store_segments('s')")"
  check "$1: tiny store: no false negatives" 0 \
    "$(q "$db" "SELECT count(*) FROM truth WHERE NOT cuckoo_store_contains('t', k)")"
  check "$1: tiny store: its segments pass the full validator" t \
    "$(q "$db" "SELECT bool_and(f::bytea::cuckoofilter IS NOT NULL) FROM cuckoo_store_segments('t')")"
  check "$1: tiny store: items equal the truth, its segment grew" t \
    "$(q "$db" "SELECT items = (SELECT count(*) FROM truth) AND ((SELECT count(*) FROM truth) < 1000 OR bytes > 10000) FROM cuckoo_store_info('t')")"
  echo "# $1: false positives among 10,000 absent keys: $(q "$db" "SELECT count(*) FROM generate_series(1000001, 1010000) k WHERE cuckoo_store_contains('s', k::bigint)")"
}

cat >"$work/setup.sql" <<'EOF'
CREATE EXTENSION IF NOT EXISTS cuckoo;
-- 5,000 items: 10 segments, so that concurrent changes meet on them
SELECT cuckoo_store_create('s', 5000);
-- and a store for 1 value that grows under the load (changed after s: one lock order)
SELECT cuckoo_store_create('t', 1);
CREATE TABLE truth (k bigint PRIMARY KEY);
-- each operation changes the truth and the store in one transaction
CREATE FUNCTION op_add(key bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO truth VALUES (key) ON CONFLICT DO NOTHING;
  IF FOUND THEN PERFORM cuckoo_store_add('s', key); PERFORM cuckoo_store_add('t', key); END IF;
END $$;
CREATE FUNCTION op_remove(key bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM truth WHERE k = key;
  IF FOUND THEN PERFORM cuckoo_store_remove('s', key); PERFORM cuckoo_store_remove('t', key); END IF;
END $$;
-- several segments in one call: locked in segment order
CREATE FUNCTION op_add_many(key bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE added bigint[];
BEGIN
  WITH ins AS (INSERT INTO truth SELECT key + 7 * g FROM generate_series(0, 7) g
               ON CONFLICT DO NOTHING RETURNING k)
  SELECT array_agg(k) INTO added FROM ins;
  IF added IS NOT NULL THEN
    PERFORM cuckoo_store_add_array('s', added); PERFORM cuckoo_store_add_array('t', added);
  END IF;
END $$;
CREATE FUNCTION op_remove_many(key bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE gone bigint[];
BEGIN
  WITH del AS (DELETE FROM truth WHERE k IN (SELECT key + 7 * g FROM generate_series(0, 7) g)
               RETURNING k)
  SELECT array_agg(k) INTO gone FROM del;
  IF gone IS NOT NULL THEN
    PERFORM cuckoo_store_remove_array('s', gone); PERFORM cuckoo_store_remove_array('t', gone);
  END IF;
END $$;
-- the bulk load (cuckoo_store_load_agg, 1.5): 16 keys a call, several segments
CREATE FUNCTION op_load_many(key bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE added bigint[];
BEGIN
  WITH ins AS (INSERT INTO truth SELECT key + 11 * g FROM generate_series(0, 15) g
               ON CONFLICT DO NOTHING RETURNING k)
  SELECT array_agg(k) INTO added FROM ins;
  IF added IS NOT NULL THEN
    PERFORM cuckoo_store_load_agg('s', k) FROM unnest(added) k;
    PERFORM cuckoo_store_load_agg('t', k) FROM unnest(added) k;
  END IF;
END $$;
EOF
printf '\\set k random(1, 20000)\nSELECT op_add(:k);\n' >"$work/add.pgbench"
printf '\\set k random(1, 20000)\nSELECT op_remove(:k);\n' >"$work/remove.pgbench"
printf '\\set k random(1, 20000)\nSELECT op_add_many(:k);\n' >"$work/add_many.pgbench"
printf '\\set k random(1, 20000)\nSELECT op_remove_many(:k);\n' >"$work/remove_many.pgbench"
printf '\\set k random(1, 20000)\nSELECT op_load_many(:k);\n' >"$work/load_many.pgbench"
printf '\\set k random(1, 20000)\nSELECT cuckoo_store_contains_array('"'"'s'"'"', ARRAY[:k, :k + 1]::bigint[]);\nSELECT cuckoo_store_contains('"'"'s'"'"', :k::bigint);\n' >"$work/probe.pgbench"
scripts=(-f "$work/add.pgbench@4" -f "$work/remove.pgbench@2" -f "$work/add_many.pgbench@2"
         -f "$work/remove_many.pgbench@1" -f "$work/load_many.pgbench@1" -f "$work/probe.pgbench@2")

createdb load
psql -X -q -v ON_ERROR_STOP=1 -d load -f "$work/setup.sql" >/dev/null
check "setup" 10 "$(q load "SELECT segments FROM cuckoo_store_info('s')")"

# 1. load
pgbench -n -c 8 -j 2 -T "$CLIENT_SECONDS" "${scripts[@]}" load >"$work/pgbench1.log" 2>&1
rc=$?
check "8 clients for $CLIENT_SECONDS s: pgbench ran without errors (no deadlock)" 0 "$rc"
[ "$rc" = 0 ] || grep -iE 'error|deadlock' "$work/pgbench1.log" | head -5 | sed 's/^/#   /'
echo "# $(grep -E '^tps' "$work/pgbench1.log" | head -1)"
echo "# $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench1.log")"
verify "after load" load

# 2. crash in the middle of the load
datadir=$(q load "SHOW data_directory")
pgbench -n -c 4 -j 2 -T "$LOAD_SECONDS" "${scripts[@]}" load >"$work/pgbench2.log" 2>&1 &
bench=$!
sleep $((LOAD_SECONDS / 2))
postmaster=$(head -1 "$datadir/postmaster.pid")
children=$(pgrep -P "$postmaster" | tr '\n' ' ')
kill -9 "$postmaster"
wait "$bench"
echo "# crash phase: $(grep -m1 -E 'number of transactions actually processed' "$work/pgbench2.log" | sed 's/.*: //') transactions before the kill"
for i in $(seq 1 60); do
  alive=0
  # the postmaster too: until its parent has reaped it, a new one refuses
  # to start on its lock files (seen in the Debian 11 tree)
  for c in $postmaster $children; do kill -0 "$c" 2>/dev/null && alive=1; done
  [ "$alive" = 0 ] && break
  sleep 1
done
wait_server_gone "$datadir"   # backends forked after the list was taken too
# STORE_RESTART (a command) restarts a server that is not pg_virtualenv's
if [ -n "${STORE_RESTART:-}" ]; then eval "$STORE_RESTART"; else pg_ctlcluster "${PGVERSION:-15}" regress start; fi
rc=$?
check "server restarted after kill -9" 0 "$rc"
for i in $(seq 1 30); do pg_isready -q && break; sleep 1; done
verify "after crash recovery" load

# 3. dump and restore
pg_dump -Fc -d load -f "$work/load.dump"
check "pg_dump" 0 "$?"
createdb restored
pg_restore -d restored "$work/load.dump"
check "pg_restore" 0 "$?"
verify "restored" restored
check "restored: the same chunk rows as the original" \
  "$(q load "SELECT md5(string_agg(segment || ':' || chunk || ':' || md5(bytes), ',' ORDER BY segment, chunk)) FROM s")" \
  "$(q restored "SELECT md5(string_agg(segment || ':' || chunk || ':' || md5(bytes), ',' ORDER BY segment, chunk)) FROM s")"
check "restored: still a store that changes" "t|t|f" \
  "$(q restored "SELECT cuckoo_store_add_if_absent('s', 5000002::bigint), cuckoo_store_remove('s', 5000002::bigint), cuckoo_store_contains('s', 5000003::bigint)")"
check "restored: same rows as the original" t \
  "$(q restored "SELECT (SELECT array_agg(segment ORDER BY segment) FROM cuckoo_store_segments('s')) = (SELECT array_agg(g ORDER BY g) FROM generate_series(-1, 9) g)")"

finish
