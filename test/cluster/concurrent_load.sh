#!/usr/bin/env bash
# Concurrent load and crash recovery, inside a throwaway cluster
# (pg_virtualenv sets PGHOST, PGPORT, PGUSER, PG_CLUSTER_CONF_ROOT).
#   1. 8 pgbench clients add and remove keys in 4 shared filter rows
#      (UPDATE ... SET f = cuckoo_add(f, k)) while others probe, for
#      LOAD_SECONDS; then every key in the ground-truth table must be found.
#   2. The same load again; the postmaster is killed with SIGKILL in the
#      middle; after restart every committed filter is valid and complete.
set -uo pipefail
cd "$(dirname "$0")"
LOAD_SECONDS="${LOAD_SECONDS:-20}"
TMPDIR="${TMPDIR:-/tmp}"
. ../lib.sh
verify() {  # verify LABEL
  local fn items
  fn=$(q load "SELECT count(*) FILTER (WHERE NOT cuckoo_contains(f.f, t.k)) FROM truth t JOIN filters f USING (id)")
  check "$1: no false negatives ($(q load "SELECT count(*) FROM truth") keys in the truth)" 0 "$fn"
  items=$(q load "SELECT bool_and((cuckoo_info(f)).items = (SELECT count(*) FROM truth t WHERE t.id = filters.id)) FROM filters")
  check "$1: item counts equal the truth" t "$items"
  check "$1: every filter passes the full validator" t \
    "$(q load "SELECT bool_and(f::bytea::cuckoofilter IS NOT NULL) FROM filters")"
  echo "# $1: false positives among 10,000 absent keys: $(q load "SELECT count(*) FROM filters, generate_series(200001, 202500) k WHERE cuckoo_contains(f, k::bigint)")"
}

createdb load
psql -X -q -v ON_ERROR_STOP=1 -d load -f load/setup.sql >/dev/null

# 1. load
pgbench -n -c 8 -j 2 -T "$LOAD_SECONDS" -f load/add.pgbench@5 -f load/remove.pgbench@2 \
        -f load/probe.pgbench@3 load >"$TMPDIR/pgbench1.log" 2>&1
rc=$?
check "pgbench ran without errors" 0 "$rc"
echo "# $(grep -E '^tps' "$TMPDIR/pgbench1.log" | head -1)"
echo "# $(grep -m1 -E 'number of transactions actually processed' "$TMPDIR/pgbench1.log"); $(grep -m1 -E 'number of failed transactions' "$TMPDIR/pgbench1.log")"
verify "after load"

# 2. crash in the middle of the same load
datadir=$(q load "SHOW data_directory")
pgbench -n -c 8 -j 2 -T "$LOAD_SECONDS" -f load/add.pgbench@5 -f load/remove.pgbench@2 \
        -f load/probe.pgbench@3 load >"$TMPDIR/pgbench2.log" 2>&1 &
bench=$!
sleep $((LOAD_SECONDS / 2))
postmaster=$(head -1 "$datadir/postmaster.pid")
children=$(pgrep -P "$postmaster" | tr '\n' ' ')
kill -9 "$postmaster"
wait "$bench"
echo "# crash phase: $(grep -m1 -E 'number of transactions actually processed' "$TMPDIR/pgbench2.log" | sed 's/.*: //') transactions committed in the $((LOAD_SECONDS / 2)) s before the kill ($(grep -m1 -E '^tps' "$TMPDIR/pgbench2.log" | sed 's/ (.*//')); $(grep -m1 -E 'number of failed transactions' "$TMPDIR/pgbench2.log")"
echo "# $(grep -cE 'server closed|terminat|connection' "$TMPDIR/pgbench2.log") pgbench lines report the lost server"
# the orphaned children exit when they notice the postmaster is gone; the
# shared memory is free only when the last one has
for i in $(seq 1 60); do
  alive=0
  for c in $postmaster $children; do kill -0 "$c" 2>/dev/null && alive=1; done
  [ "$alive" = 0 ] && break
  sleep 1
done
wait_server_gone "$datadir"   # backends forked after the list was taken too
pg_ctlcluster "${PGVERSION:-15}" regress start
rc=$?
check "server restarted after kill -9" 0 "$rc"
[ "$rc" = 0 ] || tail -n 20 "$PG_CLUSTER_CONF_ROOT"/../log/postgresql-*-regress.log
for i in $(seq 1 30); do pg_isready -q && break; sleep 1; done
verify "after crash recovery"

finish
