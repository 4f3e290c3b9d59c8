#!/usr/bin/env bash
# A store past the 1 GB limit of one value: cuckoo_store_create(ITEMS, FPR),
# loaded by cuckoo_store_load_agg from generate_series, then probed
# (one-key contains, add and remove: ms and WAL, medians; the false-positive
# rate measured over ABSENT values never added).
#
#   TMPDIR=/var/tmp/DIR bash bench/store_billion.sh [ITEMS [FPR [ABSENT]]]
#       (ITEMS default 1000000000, FPR 0.001, ABSENT 1000000)
#
# Builds this tree into a private copy of the install tree and runs a
# private server whose data directory is under TMPDIR (test/pg_private.sh;
# fsync = off; removed at the end unless KEEP_WORKDIR=1).  The disk it needs
# at 1e9 and 0.001: the store (about 3 to 6 GB), the load's temporary files
# (8 bytes a value, 8 GB) and WAL (max_wal_size 24GB).  Progress to stderr with
# timestamps (each step's seconds), the figures to stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
ITEMS=${1:-1000000000}
FPR=${2:-0.001}
ABSENT=${3:-1000000}
PROBES=${PROBES:-100}
. test/lib.sh
. test/pg_private.sh

log() { printf '[store_billion %s] %s\n' "$(date +%T)" "$*" >&2; }

pp_setup store_billion
pp_server 'shared_buffers = 2GB' 'max_wal_size = 24GB' 'checkpoint_timeout = 1h' \
  'maintenance_work_mem = 1GB'
q() { pp_psql -v ON_ERROR_STOP=1 "$@"; }
step() {			# step LABEL SQL...: runs, logs seconds
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$(q "${@:2}")
  t1=$(date +%s.%N)
  log "$1: $(echo "$t1 - $t0" | bc) s${out:+ ($out)}"
  echo "$1: $(echo "$t1 - $t0" | bc) s${out:+ ($out)}"
}

q -c "CREATE EXTENSION cuckoo" >/dev/null
step "create" -c "SELECT cuckoo_store_create('big', $ITEMS, $FPR)"
step "segments" -c "SELECT segments FROM big WHERE segment = -1"
step "table bytes after create" -c "SELECT pg_total_relation_size('big')"
# the load: serial (generate_series in the select list streams its rows;
# in FROM it would be kept whole first)
l0=$(q -c "SELECT pg_current_wal_insert_lsn()")
step "load" -c "SELECT cuckoo_store_load_agg('big', g) FROM (SELECT generate_series(1::int8, $ITEMS) AS g) t"
step "load WAL bytes" -c "SELECT pg_current_wal_insert_lsn() - '$l0'"
step "table bytes after load" -c "SELECT pg_total_relation_size('big')"
step "info" -c "SELECT items, bytes, segments, fpr, value_type, expected_fpr FROM cuckoo_store_info('big')"

# one-key changes and probes, each its own transaction, timed in the server
q >/dev/null <<'EOF'
CREATE TABLE timings (op text, ms float8, wal bigint);
CREATE PROCEDURE measure(op text, n int, base bigint)
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  l0 pg_lsn;
  ms float8;
  r bool;
BEGIN
  FOR i IN 1 .. n LOOP
    l0 := pg_current_wal_insert_lsn();
    t0 := clock_timestamp();
    IF op = 'remove' THEN
      r := cuckoo_store_remove('big', base + i * 7919);
    ELSIF op = 'add' THEN
      PERFORM cuckoo_store_add('big', base + i * 7919);
    ELSE
      r := cuckoo_store_contains('big', base + i * 7919);
    END IF;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    COMMIT;
    INSERT INTO timings VALUES (op, ms, pg_current_wal_insert_lsn() - l0);
    COMMIT;
  END LOOP;
END $$;
EOF
q -c "CHECKPOINT" >/dev/null
step "contains x$PROBES" -c "CALL measure('contains', $PROBES, 1)"
q -c "CHECKPOINT" >/dev/null
step "remove x$PROBES" -c "CALL measure('remove', $PROBES, 1)"
q -c "CHECKPOINT" >/dev/null
step "add x$PROBES" -c "CALL measure('add', $PROBES, 1)"
step "medians (op, ms, WAL bytes)" -F' ' -c "SELECT op, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3),
  percentile_cont(0.5) WITHIN GROUP (ORDER BY wal) FROM timings GROUP BY op ORDER BY op" 
step "all present after remove+add" -c "SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('big', 1 + i * 7919)) FROM generate_series(1::int8, $PROBES) i"
# false positives: values never added, one statement (the scan probe)
step "false positives of $ABSENT absent" -c "SELECT count(*) FILTER (WHERE cuckoo_store_contains('big', g)) FROM (SELECT generate_series($ITEMS + 1000000001, $ITEMS + 1000000000 + $ABSENT) AS g) t"
