-- Living filters apply a transaction's changes at commit (issue 22): the
-- triggers collect them, and a transaction callback applies them all,
-- store by store, segments in order, before the commit record.  Until then
-- the transaction's own probes (cuckoo_store_contains, _array,
-- cuckoo_store_info, cuckoo_store_verify) see them; a rolled-back
-- (sub)transaction drops exactly its own.

CREATE SCHEMA tq;
SELECT cuckoo_store_create('tq.s', 10000) IS NOT NULL AS created;
CREATE TABLE tq.t (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tq.s', 'tq.t', 'k');
CREATE FUNCTION tq.probe(v int8) RETURNS bool LANGUAGE sql AS
  $$ SELECT cuckoo_store_contains('tq.s', v) $$;
-- segments of the store this transaction has written (none before commit)
CREATE FUNCTION tq.written() RETURNS bigint LANGUAGE sql AS
  $$ SELECT count(*) FROM tq.s WHERE xmin = pg_catalog.xid(pg_current_xact_id()) $$;

-- the transaction's own probes see its changes; the store's rows change at commit
BEGIN;
INSERT INTO tq.t SELECT g, g * 10 FROM generate_series(1, 200) g;
SELECT tq.probe(10) AS inserted, tq.probe(2000) AS inserted_last, tq.probe(7) AS never;
SELECT cuckoo_store_contains_array('tq.s', ARRAY[10, 1000, 2000, NULL]::int8[]);
SELECT items FROM cuckoo_store_info('tq.s');
SELECT * FROM cuckoo_store_verify('tq.s');
SELECT tq.written() AS segments_written_before_commit;
DELETE FROM tq.t WHERE id <= 50;
UPDATE tq.t SET k = k + 1 WHERE id = 100;
SELECT tq.probe(10) AS deleted, tq.probe(1000) AS updated_old, tq.probe(1001) AS updated_new;
SELECT items FROM cuckoo_store_info('tq.s');
SELECT * FROM cuckoo_store_verify('tq.s');
COMMIT;
SELECT * FROM cuckoo_store_verify('tq.s');
SELECT tq.probe(10) AS deleted, tq.probe(1001) AS updated_new, tq.probe(2000) AS kept;

-- an insert and a delete of the same value in one transaction cancel
BEGIN;
INSERT INTO tq.t VALUES (1000, 424242);
DELETE FROM tq.t WHERE id = 1000;
SELECT tq.probe(424242) AS gone;
SELECT tq.written() AS segments_written;
COMMIT;
SELECT * FROM cuckoo_store_verify('tq.s');

-- in a function: each statement's changes are seen by the next
CREATE FUNCTION tq.ins_probe(i int, v int8) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tq.t VALUES (i, v);
  RETURN cuckoo_store_contains('tq.s', v);
END $$;
BEGIN;
SELECT tq.ins_probe(2001, 777001) AS seen_in_function;
ROLLBACK;
SELECT tq.probe(777001) AS rolled_back;

-- savepoints: a rolled-back subtransaction drops exactly its changes
BEGIN;
INSERT INTO tq.t VALUES (3001, 300010);
SAVEPOINT a;
INSERT INTO tq.t VALUES (3002, 300020);
SAVEPOINT b;
INSERT INTO tq.t VALUES (3003, 300030);
DELETE FROM tq.t WHERE id = 3001;
SELECT tq.probe(300010) AS removed, tq.probe(300030) AS added;
ROLLBACK TO SAVEPOINT b;
SELECT tq.probe(300010) AS back, tq.probe(300020) AS kept, tq.probe(300030) AS dropped;
RELEASE SAVEPOINT a;
SAVEPOINT c;
INSERT INTO tq.t VALUES (3004, 300040);
RELEASE SAVEPOINT c;
SAVEPOINT d;
INSERT INTO tq.t VALUES (3005, 300050);
ROLLBACK TO SAVEPOINT d;
COMMIT;
SELECT tq.probe(300010) AS a1, tq.probe(300020) AS a2, tq.probe(300030) AS a3,
       tq.probe(300040) AS a4, tq.probe(300050) AS a5;
SELECT * FROM cuckoo_store_verify('tq.s');

-- an exception block is a subtransaction too
DO $$
BEGIN
  INSERT INTO tq.t VALUES (4001, 400010);
  BEGIN
    INSERT INTO tq.t VALUES (4002, 400020);
    RAISE EXCEPTION 'undo the inner block';
  EXCEPTION WHEN raise_exception THEN
    NULL;
  END;
END $$;
SELECT tq.probe(400010) AS outer_kept, tq.probe(400020) AS inner_dropped;
SELECT * FROM cuckoo_store_verify('tq.s');

-- two stores changed in opposite orders by one transaction; REPEATABLE READ
SELECT cuckoo_store_create('tq.s2', 10000) IS NOT NULL AS created;
CREATE TABLE tq.t2 (k int8);
SELECT cuckoo_store_track('tq.s2', 'tq.t2', 'k');
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO tq.t2 VALUES (1), (2);
INSERT INTO tq.t VALUES (5001, 500010);
INSERT INTO tq.t2 VALUES (3);
SELECT cuckoo_store_contains('tq.s2', 3::int8) AS s2_seen, tq.probe(500010) AS s_seen;
COMMIT;
SELECT (SELECT missing FROM cuckoo_store_verify('tq.s')) AS s_missing,
       (SELECT missing || '|' || rows || '|' || items FROM cuckoo_store_verify('tq.s2')) AS s2;

BEGIN ISOLATION LEVEL SERIALIZABLE;
INSERT INTO tq.t2 VALUES (5);
DELETE FROM tq.t2 WHERE k = 1;
SELECT cuckoo_store_contains('tq.s2', 5::int8) AS serializable_seen;
COMMIT;
SELECT missing || '|' || rows || '|' || items AS s2 FROM cuckoo_store_verify('tq.s2');
SHOW transaction_isolation;

-- a store dropped after this transaction changed it: nothing left to apply
BEGIN;
INSERT INTO tq.t2 VALUES (4);
DROP TABLE tq.s2;
COMMIT;
SELECT count(*) AS trackings_of_t2 FROM cuckoo_store_tracking WHERE tab = 'tq.t2'::regclass;

-- TRUNCATE and tracking a table with rows, in one transaction with probes
BEGIN;
TRUNCATE tq.t;
SELECT tq.probe(2000) AS truncated;
SELECT items FROM cuckoo_store_info('tq.s');
ROLLBACK;
SELECT tq.probe(2000) AS truncate_rolled_back;
SELECT cuckoo_store_create('tq.s3', 10000) IS NOT NULL AS created;
BEGIN;
SELECT cuckoo_store_track('tq.s3', 'tq.t', 'k');
SELECT cuckoo_store_contains('tq.s3', 2000::int8) AS loaded_seen;
SELECT missing, rows = items AS exact FROM cuckoo_store_verify('tq.s3');
COMMIT;
SELECT missing, rows = items AS exact FROM cuckoo_store_verify('tq.s3');

-- parallel workers cannot see the changes not applied yet: a transaction
-- that has some runs its queries without workers until it ends
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
BEGIN;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tq.t WHERE cuckoo_store_contains('tq.s', k);
INSERT INTO tq.t SELECT g, g * 10 FROM generate_series(8001, 9000) g;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tq.t WHERE cuckoo_store_contains('tq.s', k);
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tq.s', k)) = count(k) AS all_found
FROM tq.t;
COMMIT;
-- the next transaction's plans have their workers again
EXPLAIN (COSTS OFF) SELECT count(*) FROM tq.t WHERE cuckoo_store_contains('tq.s', k);

-- whatever the settings say: a function's own SET clause (which also undoes
-- at its exit a SET LOCAL of the same setting made inside it), a plan made before the
-- transaction's first change, the whole query forced into a worker
-- (force_parallel_mode, debug_parallel_query from PostgreSQL 16)
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS forced;
-- the workers scan, the leader only gathers
SET parallel_leader_participation = off;
-- probes in a function that asks for workers (EXECUTE: a query run to its end)
CREATE FUNCTION tq.found_batched(lo int, hi int) RETURNS text LANGUAGE plpgsql
  SET max_parallel_workers_per_gather = 2 SET max_parallel_workers = 8
  SET parallel_setup_cost = 0 SET parallel_tuple_cost = 0
  SET min_parallel_table_scan_size = 0 SET parallel_leader_participation = off
  SET cuckoo.batched_probe = on AS $$
DECLARE
  r text;
BEGIN
  EXECUTE 'SELECT count(*) FILTER (WHERE cuckoo_store_contains(''tq.s'', k)) || ''/'' || count(k) FROM tq.t WHERE id BETWEEN $1 AND $2'
    INTO r USING lo, hi;
  RETURN r;
END $$;
CREATE FUNCTION tq.found_unbatched(lo int, hi int) RETURNS text LANGUAGE plpgsql
  SET max_parallel_workers_per_gather = 2 SET max_parallel_workers = 8
  SET parallel_setup_cost = 0 SET parallel_tuple_cost = 0
  SET min_parallel_table_scan_size = 0 SET parallel_leader_participation = off
  SET cuckoo.batched_probe = off AS $$
DECLARE
  r text;
BEGIN
  EXECUTE 'SELECT count(*) FILTER (WHERE cuckoo_store_contains(''tq.s'', k)) || ''/'' || count(k) FROM tq.t WHERE id BETWEEN $1 AND $2'
    INTO r USING lo, hi;
  RETURN r;
END $$;
-- a tracked write in a function with a SET clause of its own
CREATE FUNCTION tq.ins_set(lo int, hi int) RETURNS void LANGUAGE plpgsql
  SET max_parallel_workers_per_gather = 2 SET max_parallel_workers = 8 AS $$
BEGIN
  INSERT INTO tq.t SELECT g, g * 10 FROM generate_series(lo, hi) g;
END $$;
-- the committed rows are found by workers too (a worker does run the query)
SELECT tq.found_batched(8001, 9000) AS batched, tq.found_unbatched(8001, 9000) AS unbatched;
BEGIN;
INSERT INTO tq.t SELECT g, g * 10 FROM generate_series(9001, 9500) g;
SELECT tq.found_batched(9001, 9500) AS batched, tq.found_unbatched(9001, 9500) AS unbatched;
ROLLBACK;
BEGIN;
SELECT tq.ins_set(9001, 9500);
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tq.s', k)) || '/' || count(k) AS top_level
FROM tq.t WHERE id BETWEEN 9001 AND 9500;
SET LOCAL cuckoo.batched_probe = off;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tq.s', k)) || '/' || count(k) AS top_level_unbatched
FROM tq.t WHERE id BETWEEN 9001 AND 9500;
SELECT tq.found_batched(9001, 9500) AS batched, tq.found_unbatched(9001, 9500) AS unbatched;
ROLLBACK;
-- a plan made before the transaction's first change, with its Gather
SET plan_cache_mode = force_generic_plan;
PREPARE tq_found(int, int) AS
  SELECT count(*) FILTER (WHERE cuckoo_store_contains('tq.s', k)) || '/' || count(k)
  FROM tq.t WHERE id BETWEEN $1 AND $2;
-- its Gather's lines in EXPLAIN ANALYZE (the rest differs between versions)
CREATE FUNCTION tq.gather_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
    IF l ~ 'Workers' THEN
      RETURN NEXT trim(l);
    END IF;
  END LOOP;
END $$;
BEGIN;
EXECUTE tq_found(8001, 9000);
SELECT tq.ins_set(9001, 9500);
EXECUTE tq_found(9001, 9500);
SELECT tq.gather_lines('EXECUTE tq_found(9001, 9500)');
ROLLBACK;
DEALLOCATE tq_found;
RESET plan_cache_mode;
RESET parallel_leader_participation;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false) AS unforced;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- a store of more than 64 segments: a scan reads the first segments one by
-- one, then the rest in one statement (DESIGN.md, Stored filters); both
-- reads see the transaction's pending changes
SELECT cuckoo_store_create('tq.big', 100000) IS NOT NULL AS created;
CREATE TABLE tq.bt (k int8);
SELECT cuckoo_store_track('tq.big', 'tq.bt', 'k');
SELECT segments > 100 AS many_segments FROM cuckoo_store_info('tq.big');
BEGIN;
INSERT INTO tq.bt SELECT g FROM generate_series(1, 20000) g;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tq.big', k)) AS found, count(*) AS rows
FROM tq.bt;
SET LOCAL cuckoo.batched_probe = off;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tq.big', k)) AS found, count(*) AS rows
FROM tq.bt;
COMMIT;
SELECT missing FROM cuckoo_store_verify('tq.big');

-- an error at commit names the store, and rolls the whole transaction back
CREATE FUNCTION tq.refuse() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'segment writes refused'; END $$;
CREATE TRIGGER refuse BEFORE UPDATE ON tq.s3 FOR EACH ROW EXECUTE FUNCTION tq.refuse();
BEGIN;
INSERT INTO tq.t VALUES (6001, 600010);
COMMIT;
SELECT count(*) AS rolled_back FROM tq.t WHERE id = 6001;
DROP TRIGGER refuse ON tq.s3;

DROP SCHEMA tq CASCADE;
