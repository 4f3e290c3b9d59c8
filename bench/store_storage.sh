#!/usr/bin/env bash
# One-key changes of a store grown past its capacity with the segment column
# STORAGE MAIN, STORAGE EXTERNAL, and EXTERNAL with the table's
# toast_tuple_target at its largest (8160: a segment up to about 8 kB stays
# in its row) (docs/DESIGN.md, "Stored filters"), side by side in one run,
# interleaved.
#
#   bash bench/store_storage.sh [ITEMS [CHANGES]]   (defaults 100000, 400)
#
# Two stores created for ITEMS / 100 (so grown 100x), each given ITEMS int8
# values; then CHANGES rounds, each a cuckoo_store_remove and a
# cuckoo_store_add of one present value in each store, timed inside the
# server (one transaction per call), and its WAL (pg_current_wal_insert_lsn
# after the commit minus before the call; no CHECKPOINT in between, so
# full-page images only where a checkpoint happened to fall).  Prints the
# medians per call.
#
# This measures the layout of extension 1.3 to 1.5 (a segment as one value,
# column f), which the library still serves: the stores are made by
# cuckoo_store_create and then rewritten by hand into that layout.  From 1.6
# a segment is chunk rows (docs/DESIGN.md, "Growth"; bench/store_bench.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
ITEMS=${1:-100000}
CHANGES=${2:-400}
. test/lib.sh
. test/pg_private.sh

pp_setup store_storage
pp_server
q() { pp_psql -v ON_ERROR_STOP=1 "$@"; }
cap=$(( ITEMS / 100 > 0 ? ITEMS / 100 : 1 ))
q <<EOF2 >/dev/null
CREATE EXTENSION cuckoo;
SELECT cuckoo_store_create('s_tmpl', $cap);
DO \$\$
DECLARE st text;
BEGIN
  FOREACH st IN ARRAY ARRAY['s_main', 's_external', 's_inline'] LOOP
    EXECUTE format('CREATE TABLE %I (segment int4 PRIMARY KEY, f cuckoofilter NOT NULL, fpr float8, '
                   'capacity int8, segments int4) WITH (fillfactor = 75)', st);
    EXECUTE format('INSERT INTO %I SELECT segment, string_agg(bytes, ''''::bytea ORDER BY chunk)::cuckoofilter, '
                   'max(fpr), max(capacity), max(segments) FROM s_tmpl GROUP BY segment', st);
  END LOOP;
END \$\$;
DROP TABLE s_tmpl;
ALTER TABLE s_inline SET (toast_tuple_target = 8160);
ALTER TABLE s_main ALTER COLUMN f SET STORAGE MAIN;
ALTER TABLE s_external ALTER COLUMN f SET STORAGE EXTERNAL;
SELECT cuckoo_store_add_array('s_main', ARRAY(SELECT g::int8 FROM generate_series(1, $ITEMS) g)),
       cuckoo_store_add_array('s_external', ARRAY(SELECT g::int8 FROM generate_series(1, $ITEMS) g)),
       cuckoo_store_add_array('s_inline', ARRAY(SELECT g::int8 FROM generate_series(1, $ITEMS) g));
CREATE TABLE timings (store text, ms float8, wal bigint);
CREATE PROCEDURE measure(n int) LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; l0 pg_lsn; ms float8; x int8; st text;
BEGIN
  FOR i IN 1 .. n LOOP
    x := 1 + (i * 7919) % $ITEMS;
    FOREACH st IN ARRAY ARRAY['s_main', 's_external', 's_inline'] LOOP
      l0 := pg_current_wal_insert_lsn();
      t0 := clock_timestamp();
      PERFORM cuckoo_store_remove(st::regclass, x);
      ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
      COMMIT;
      INSERT INTO timings VALUES (st, ms, pg_current_wal_insert_lsn() - l0);
      COMMIT;
      l0 := pg_current_wal_insert_lsn();
      t0 := clock_timestamp();
      PERFORM cuckoo_store_add(st::regclass, x);
      ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
      COMMIT;
      INSERT INTO timings VALUES (st, ms, pg_current_wal_insert_lsn() - l0);
      COMMIT;
    END LOOP;
  END LOOP;
END \$\$;
EOF2
q -c "CALL measure($CHANGES)" >/dev/null
echo "$ITEMS int8 items in stores created for $cap; $CHANGES removes and $CHANGES adds each, interleaved."
echo
echo "| segment column | segments | mean segment bytes | median ms per change | median WAL bytes per change |"
echo "|---|---|---|---|---|"
q -F'|' -c "SELECT '| ' || CASE t.store WHEN 's_main' THEN 'STORAGE MAIN' WHEN 's_external' THEN 'STORAGE EXTERNAL'
                             ELSE 'STORAGE EXTERNAL, toast_tuple_target 8160' END,
                   (SELECT segments FROM cuckoo_store_info(t.store::regclass)),
                   (SELECT bytes FROM cuckoo_store_info(t.store::regclass)) / (SELECT segments FROM cuckoo_store_info(t.store::regclass)),
                   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 'FM990.000'),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY wal)::bigint || ' |'
            FROM timings t GROUP BY t.store ORDER BY t.store"
