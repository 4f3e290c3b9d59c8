-- cuckoo_store_contains in a scan: the batched probe (a CuckooProbe node,
-- as for cuckoo_contains).  Every result is compared with the unbatched
-- path (cuckoo.batched_probe off); every value added is found (no false
-- negative): in a grown store, in the transaction that added it, after a
-- ROLLBACK TO SAVEPOINT, in a PL/pgSQL loop that changes the store between
-- scans, and under a parallel scan.
\set VERBOSITY terse
SET max_parallel_workers_per_gather = 0;

CREATE FUNCTION state(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;

-- Keys 1 .. 20000 in a scrambled order, every 97th NULL.
CREATE TABLE ss_keys (id int PRIMARY KEY, k bigint);
INSERT INTO ss_keys
SELECT id, CASE WHEN id % 97 = 0 THEN NULL ELSE id END
FROM generate_series(1, 20000) id ORDER BY (id * 7919) % 20000;
ANALYZE ss_keys;

-- A store of 13 segments holding the multiples of 3, and one created for
-- 200 values and given 20 times that (its segments grown in place).
SELECT cuckoo_store_create('ss_three', 10000);
SELECT cuckoo_store_add_array('ss_three', ARRAY(SELECT g::bigint FROM generate_series(3, 20000, 3) g));
SELECT cuckoo_store_create('ss_grown', 200);
SELECT cuckoo_store_add_array('ss_grown', ARRAY(SELECT g::bigint FROM generate_series(5, 20000, 5) g));
SELECT segments, items FROM cuckoo_store_info('ss_three');
SELECT segments, items, bytes > 4000 AS grown FROM cuckoo_store_info('ss_grown');

-- The plan: the node over the scan, with the store's probe.  The planner
-- orders quals by their cost per row (the probe's: 4 operators, from its
-- support function): k % 2 = 0 (2) comes before the probe and stays in the
-- scan, the OR (6) after it and moves to the node.
EXPLAIN (COSTS OFF) SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_three', k);
EXPLAIN (COSTS OFF) SELECT id FROM ss_keys WHERE id > 10 AND cuckoo_store_contains('ss_grown', k) AND k % 2 = 0;
EXPLAIN (COSTS OFF) SELECT id FROM ss_keys WHERE id > 10 AND cuckoo_store_contains('ss_grown', k) AND (k % 3 = 0 OR k % 7 = 0 OR k % 11 = 0);

-- same_rows(q): the rows of q batched and unbatched, in order, are equal
CREATE FUNCTION same_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  SET LOCAL cuckoo.batched_probe = on;
  EXECUTE 'SELECT string_agg(r::text, '','') FROM (' || q || ') r' INTO a;
  SET LOCAL cuckoo.batched_probe = off;
  EXECUTE 'SELECT string_agg(r::text, '','') FROM (' || q || ') r' INTO b;
  SET LOCAL cuckoo.batched_probe = on;
  RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT' END;
END $$;

-- Every value added is found, in both stores: the non-null multiples of 3
-- are 6598, of 5 3959 (counted among the rows the probe passes; the NOT of
-- the probe: sql/probe_not.sql).
SELECT count(*) FILTER (WHERE k % 3 = 0) AS present, count(*) <= 6598 + 200 AS few_false
FROM ss_keys WHERE cuckoo_store_contains('ss_three', k);
SELECT count(*) FILTER (WHERE k % 5 = 0) AS present, count(*) <= 3959 + 200 AS few_false
FROM ss_keys WHERE cuckoo_store_contains('ss_grown', k);
SELECT same_rows($$SELECT id FROM ss_keys WHERE cuckoo_store_contains('ss_three', k)$$);
SELECT same_rows($$SELECT id FROM ss_keys WHERE cuckoo_store_contains('ss_grown', k)$$);
SELECT same_rows($$SELECT id, k FROM ss_keys WHERE id > 100 AND cuckoo_store_contains('ss_grown', k) AND k % 2 = 0$$);
SELECT same_rows($$SELECT id, k FROM ss_keys WHERE id > 100 AND cuckoo_store_contains('ss_grown', k) AND (k % 3 = 0 OR k % 7 = 0 OR k % 11 = 0)$$);
SELECT same_rows($$SELECT id FROM ss_keys WHERE cuckoo_store_contains('ss_three', k) ORDER BY id LIMIT 7$$);
SELECT same_rows($$SELECT id FROM ss_keys WHERE cuckoo_store_contains('ss_three', k) AND id BETWEEN 100 AND 300$$);
SELECT same_rows($$SELECT k FROM ss_keys WHERE cuckoo_store_contains('ss_three', k::int)$$);

-- In the transaction that adds, and after ROLLBACK TO SAVEPOINT.
BEGIN;
SELECT cuckoo_store_add_array('ss_three', ARRAY(SELECT g::bigint FROM generate_series(20001, 30000, 7) g));
CREATE TEMP TABLE ss_new AS SELECT g::bigint AS k FROM generate_series(20001, 30000, 7) g;
SELECT count(*) FROM ss_new;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ss_new WHERE cuckoo_store_contains('ss_three', k);
SELECT count(*) FROM ss_new WHERE cuckoo_store_contains('ss_three', k);
SAVEPOINT a;
SELECT cuckoo_store_remove_array('ss_three', ARRAY(SELECT k FROM ss_new));
SELECT count(*) < 20 AS few_false FROM ss_new WHERE cuckoo_store_contains('ss_three', k);
SELECT same_rows($$SELECT k FROM ss_new WHERE cuckoo_store_contains('ss_three', k)$$);
ROLLBACK TO SAVEPOINT a;
SELECT count(*) FROM ss_new WHERE cuckoo_store_contains('ss_three', k);
SELECT count(*) FILTER (WHERE k % 3 = 0) FROM ss_keys WHERE cuckoo_store_contains('ss_three', k);
SAVEPOINT b;
SELECT cuckoo_store_add_array('ss_three', ARRAY[40001, 40002, 40003]::bigint[]);
ROLLBACK TO SAVEPOINT b;
SELECT same_rows($$SELECT k FROM ss_new WHERE cuckoo_store_contains('ss_three', k)$$);
COMMIT;
SELECT count(*) FROM ss_new WHERE cuckoo_store_contains('ss_three', k);

-- A PL/pgSQL loop that changes the store between scans sees every change
-- (a new snapshot per statement: no segment read before it is reused).
CREATE TABLE ss_loop AS SELECT g::bigint AS k FROM generate_series(51000, 55999) g;
DO $$
DECLARE
  n bigint;
BEGIN
  FOR i IN 1 .. 5 LOOP
    PERFORM cuckoo_store_add_array('ss_grown', ARRAY(SELECT k FROM ss_loop
                                                     WHERE k BETWEEN 50000 + i * 1000 AND 50000 + i * 1000 + 999));
    SELECT count(*) INTO n FROM ss_loop
      WHERE k <= 50000 + i * 1000 + 999 AND cuckoo_store_contains('ss_grown', k);
    IF n <> i * 1000 THEN
      RAISE EXCEPTION 'round %: % of % added values found', i, n, i * 1000;
    END IF;
  END LOOP;
  RAISE NOTICE 'every added value found in every round';
END $$;
DO $$
DECLARE
  n bigint;
BEGIN
  FOR i IN 1 .. 3 LOOP
    PERFORM cuckoo_store_remove_array('ss_grown', ARRAY(SELECT k FROM ss_loop WHERE k % 3 = i - 1));
    SELECT count(*) INTO n FROM ss_loop WHERE cuckoo_store_contains('ss_grown', k);
    RAISE NOTICE 'round %: % of 5000 reported', i, n;
    PERFORM cuckoo_store_add_array('ss_grown', ARRAY(SELECT k FROM ss_loop WHERE k % 3 = i - 1));
    SELECT count(*) INTO n FROM ss_loop WHERE cuckoo_store_contains('ss_grown', k);
    IF n <> 5000 THEN
      RAISE EXCEPTION 'round %: % of 5000 found after adding back', i, n;
    END IF;
  END LOOP;
END $$;

-- A prepared statement with the store as its parameter; a NULL store
-- passes no row (the function is strict).
PREPARE ss_p(regclass) AS SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains($1, k);
EXECUTE ss_p('ss_three');
EXECUTE ss_p('ss_grown');
EXECUTE ss_p(NULL);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE ss_p('ss_three');
EXECUTE ss_p('ss_three');
EXECUTE ss_p('ss_grown');
RESET plan_cache_mode;

-- A correlated store (rescans) and a nested loop's inner side.
SELECT s, (SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains(s, k))
FROM (VALUES ('ss_three'::regclass), ('ss_grown'), (NULL)) v(s);

-- Errors as unbatched: a store of another value family, a table that is not
-- a store, a store without a header row.
CREATE TABLE ss_text (t text);
INSERT INTO ss_text VALUES ('a'), ('b');
SELECT state($$SELECT count(*) FROM ss_text WHERE cuckoo_store_contains('ss_three', t)$$);
SET cuckoo.batched_probe = off;
SELECT state($$SELECT count(*) FROM ss_text WHERE cuckoo_store_contains('ss_three', t)$$);
RESET cuckoo.batched_probe;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_keys', k)$$);
SELECT cuckoo_store_create('ss_broken', 1000);
DELETE FROM ss_broken WHERE segment = -1;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_broken', k)$$);
SELECT cuckoo_store_create('ss_holes', 10000);
DELETE FROM ss_holes WHERE segment = 5;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_holes', k)$$);
SET cuckoo.batched_probe = off;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_holes', k)$$);
RESET cuckoo.batched_probe;

-- A store of 124 segments: a scan reads the first ones one by one, then the
-- rest in one statement (DESIGN.md); the same answers, and the same errors
-- at the rows that meet them.
SELECT cuckoo_store_create('ss_big', 100000);
SELECT cuckoo_store_add_array('ss_big', ARRAY(SELECT g::bigint FROM generate_series(3, 20000, 3) g));
SELECT segments FROM cuckoo_store_info('ss_big');
SELECT count(*) FILTER (WHERE k % 3 = 0) AS present, count(*) <= 6598 + 200 AS few_false
FROM ss_keys WHERE cuckoo_store_contains('ss_big', k);
SELECT same_rows($$SELECT id FROM ss_keys WHERE cuckoo_store_contains('ss_big', k)$$);
SELECT same_rows($$SELECT id FROM ss_keys WHERE cuckoo_store_contains('ss_big', k) LIMIT 100$$);
BEGIN;
DELETE FROM ss_big WHERE segment = 100;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_big', k)$$);
SET LOCAL cuckoo.batched_probe = off;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_big', k)$$);
ROLLBACK;
BEGIN;
ALTER TABLE ss_big DROP CONSTRAINT ss_big_pkey;
INSERT INTO ss_big SELECT * FROM ss_big WHERE segment = 100;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_big', k)$$);
ROLLBACK;
-- a segment of another value type: 42804 at the row that probes it, read
-- one by one or with the rest
BEGIN;
UPDATE ss_big SET bytes = cuckoo_add(cuckoo_create(10, expansion => 2), 'x'::text)::bytea WHERE segment IN (2, 99);
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_big', k)$$);
SET LOCAL cuckoo.batched_probe = off;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_big', k)$$);
ROLLBACK;

-- A role without SELECT on the store gets the error plain SQL gives.
CREATE ROLE ss_reader;
GRANT SELECT ON ss_keys TO ss_reader;
SET ROLE ss_reader;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_three', k)$$);
RESET ROLE;
GRANT SELECT ON ss_three TO ss_reader;
SET ROLE ss_reader;
SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_three', k);
RESET ROLE;
-- row-level security: nothing kept, every probe reads as plain SQL does (the
-- policies hide segment 7 from ss_reader)
GRANT SELECT ON ss_big TO ss_reader;
ALTER TABLE ss_big ENABLE ROW LEVEL SECURITY;
CREATE POLICY ss_all ON ss_big TO ss_reader USING (true);
SET ROLE ss_reader;
SELECT count(*) FILTER (WHERE k % 3 = 0) FROM ss_keys WHERE cuckoo_store_contains('ss_big', k);
RESET ROLE;
DROP POLICY ss_all ON ss_big;
CREATE POLICY ss_not7 ON ss_big TO ss_reader USING (segment <> 7);
SET ROLE ss_reader;
SELECT state($$SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_big', k)$$);
RESET ROLE;
DROP POLICY ss_not7 ON ss_big;

-- Under a parallel scan: each process reads the segments it needs.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ss_keys WHERE cuckoo_store_contains('ss_three', k);
SELECT count(*) FILTER (WHERE k % 3 = 0) FROM ss_keys WHERE cuckoo_store_contains('ss_three', k);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

DROP TABLE ss_keys, ss_text, ss_loop, ss_three, ss_grown, ss_broken, ss_holes, ss_big;
REVOKE ALL ON SCHEMA public FROM ss_reader;
DROP ROLE ss_reader;
DROP FUNCTION state(text);
DROP FUNCTION same_rows(text);
