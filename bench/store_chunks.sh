#!/usr/bin/env bash
# What one-key changes of a large segment would cost if the segment were kept
# as rows of 2 kB chunks instead of one value (docs/DESIGN.md, "Stored
# filters", "Growth"): plain bytea, no filter code, side by side in one run.
#
#   bash bench/store_chunks.sh [SEGMENT_BYTES [CHANGES]]   (defaults 185000, 100)
#
# 100 segments of SEGMENT_BYTES random bytes, kept (a) as one value per row
# (STORAGE MAIN, fillfactor 75: the store's layout today) and (b) as rows of
# 2,000-byte chunks, primary key (segment, chunk).  A change of (a) sets one
# byte of the value (the whole value is read and written, as a segment's
# update is).  A change of (b) locks chunk 0 (FOR UPDATE: the segment's
# lock), reads every chunk of the segment in order (what running the core's
# insert on the reassembled segment needs), and sets one byte in chunk 0 (the
# filter's header: its counts change on every change) and one in another
# chunk (the key's bucket; a segment of 2,000 bytes or fewer is one chunk,
# and both bytes are in chunk 0; byte offsets wrap at the length of a short
# value or last chunk).  Each change is its own transaction; a
# CHECKPOINT precedes each series, so every page a change touches first pays
# its full-page image (the worst case, as in bench/store_bench.sh).  Medians
# of the time inside the server and of the WAL (pg_current_wal_insert_lsn
# after the commit minus before the change).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
BYTES=${1:-185000}
CHANGES=${2:-100}
[[ $BYTES =~ ^[1-9][0-9]*$ && $CHANGES =~ ^[1-9][0-9]*$ ]] ||
  { echo "usage: bench/store_chunks.sh [SEGMENT_BYTES [CHANGES]] (whole numbers from 1)" >&2; exit 2; }
. test/lib.sh
. test/pg_private.sh

pp_setup store_chunks
pp_server 'shared_buffers = 256MB' 'max_wal_size = 8GB' 'checkpoint_timeout = 1h'
q() { pp_psql -v ON_ERROR_STOP=1 "$@"; }

q -v bytes="$BYTES" <<'EOF2' >/dev/null
CREATE TABLE whole (seg int PRIMARY KEY, v bytea) WITH (fillfactor = 75);
ALTER TABLE whole ALTER COLUMN v SET STORAGE MAIN;
CREATE TABLE chunks (seg int, chunk int, v bytea, PRIMARY KEY (seg, chunk)) WITH (fillfactor = 75);
ALTER TABLE chunks ALTER COLUMN v SET STORAGE MAIN;
CREATE TABLE timings (kind text, ms float8, wal bigint);
INSERT INTO whole
SELECT s, substring((SELECT string_agg(decode(md5(s::text || ':' || i::text), 'hex'), ''::bytea)
                     FROM generate_series(0, :bytes / 16) i) FROM 1 FOR :bytes)
FROM generate_series(0, 99) s;
INSERT INTO chunks
SELECT seg, c, substring(v FROM 1 + 2000 * c FOR 2000)
FROM whole, generate_series(0, (:bytes - 1) / 2000) c;
VACUUM ANALYZE;
CREATE PROCEDURE measure(kind text, n int)
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  ms float8;
  l0 pg_lsn;
  s int;
  c int;
  nch int;
  buf bytea;
BEGIN
  SELECT max(chunk) + 1 INTO nch FROM chunks WHERE seg = 0;
  FOR i IN 1 .. n LOOP
    s := (i * 37) % 100;
    -- a segment of one chunk: its key's byte is in chunk 0 too
    c := CASE WHEN nch > 1 THEN 1 + (i * 7919) % (nch - 1) ELSE 0 END;
    l0 := pg_current_wal_insert_lsn();
    t0 := clock_timestamp();
    IF kind = 'whole' THEN
      UPDATE whole SET v = set_byte(v, (1000 + i) % length(v), i % 256) WHERE seg = s;
    ELSE
      PERFORM 1 FROM chunks WHERE seg = s AND chunk = 0 FOR UPDATE;
      SELECT string_agg(v, ''::bytea ORDER BY chunk) INTO buf FROM chunks WHERE seg = s;
      UPDATE chunks SET v = set_byte(v, 24 % length(v), i % 256) WHERE seg = s AND chunk = 0;
      UPDATE chunks SET v = set_byte(v, i % length(v), i % 256) WHERE seg = s AND chunk = c;
    END IF;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    COMMIT;
    INSERT INTO timings VALUES (kind, ms, pg_current_wal_insert_lsn() - l0);
    COMMIT;
  END LOOP;
END $$;
EOF2
for kind in whole chunks; do
  q -c "CHECKPOINT" -c "CALL measure('$kind', $CHANGES)" >/dev/null
done
echo "100 segments of $BYTES bytes; $CHANGES one-byte changes each way, medians."
echo
echo "| segment kept as | rows per segment | ms | WAL bytes |"
echo "|---|---|---|---|"
q -F'|' -c "SELECT '| ' || CASE kind WHEN 'whole' THEN 'one value (STORAGE MAIN, out of line)' ELSE 'rows of 2,000-byte chunks' END,
                   CASE kind WHEN 'whole' THEN '1' ELSE ((SELECT count(*) FROM chunks WHERE seg = 0))::text END,
                   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 'FM990.000'),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY wal)::bigint || ' |'
            FROM timings GROUP BY kind ORDER BY kind DESC"
