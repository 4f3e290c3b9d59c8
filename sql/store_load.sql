-- The bulk load of a stored filter (extension 1.5): cuckoo_store_load_agg(store,
-- value).  NULLs, duplicates, errors (with their SQLSTATEs), rollbacks and
-- savepoints, the spill to temporary files, a parallel plan, a tracked
-- store's pending changes, and privileges of a second role.  The load is
-- compared with cuckoo_store_add_array of the same values in the same order,
-- which must give the same segments.

-- lstate(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION lstate(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;

CREATE SCHEMA sl;
SET max_parallel_workers_per_gather = 0;

-- 20,000 rows: ids 1 .. 19,000, every 20th NULL, 1,000 repeats of ids 1 .. 1,000
CREATE TABLE sl.src (n int, id int8);
INSERT INTO sl.src SELECT g, CASE WHEN g % 20 = 0 THEN NULL ELSE g END
FROM generate_series(1, 19000) g;
INSERT INTO sl.src SELECT 19000 + g, g FROM generate_series(1, 1000) g;
SELECT count(*) AS rows, count(id) AS values, count(DISTINCT id) AS distinct_values FROM sl.src;

SELECT cuckoo_store_create('sl.a', 20000) IS NOT NULL AS a,
       cuckoo_store_create('sl.b', 20000) IS NOT NULL AS b;
-- the load returns how many values it added: every non-null row, duplicates too
SELECT cuckoo_store_load_agg('sl.a', id ORDER BY n) FROM sl.src;
SELECT cuckoo_store_add_array('sl.b', ARRAY(SELECT id FROM sl.src ORDER BY n));
SELECT items, segments, value_type FROM cuckoo_store_info('sl.a');
-- the same segments as the array form, byte for byte
SELECT count(*) AS rows, count(*) FILTER (WHERE a.f = b.f) AS identical
FROM cuckoo_store_segments('sl.a') a JOIN cuckoo_store_segments('sl.b') b USING (segment);
-- no false negative
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('sl.a', id)) AS missing FROM sl.src;
-- duplicates: a value in two rows is stored twice, removed by two removes
SELECT count(*) FROM sl.src WHERE id = 501;
SELECT cuckoo_store_remove('sl.a', 501::int8) AS first, cuckoo_store_contains('sl.a', 501::int8) AS still_there;
SELECT cuckoo_store_remove('sl.a', 501::int8) AS second, cuckoo_store_remove('sl.a', 501::int8) AS third;

-- NULLs: a NULL value or store adds nothing; over no rows (or NULLs only) 0,
-- the store not read
SELECT cuckoo_store_create('sl.n', 100) IS NOT NULL;
SELECT cuckoo_store_load_agg('sl.n', v) FROM (VALUES (NULL::int8), (NULL)) t(v);
SELECT cuckoo_store_load_agg(NULL, v) FROM (VALUES (1::int8), (2)) t(v);
SELECT cuckoo_store_load_agg('sl.n', v) FROM (VALUES (1::int8)) t(v) WHERE false;
SELECT cuckoo_store_load_agg('sl.src', v) FROM (VALUES (1::int8)) t(v) WHERE false;
SELECT cuckoo_store_load_agg(s, v) FROM (VALUES (NULL::regclass, 1::int8), ('sl.n', 2), ('sl.n', NULL)) t(s, v);
SELECT items, value_type FROM cuckoo_store_info('sl.n');
-- one store per group; a GROUP BY loads each group into its own store
SELECT lstate($$SELECT cuckoo_store_load_agg(s, 1) FROM (VALUES ('sl.n'::regclass), ('sl.a')) t(s)$$);
SELECT s::text, cuckoo_store_load_agg(s, v) FROM (VALUES ('sl.n'::regclass, 10), ('sl.b', 11), ('sl.n', 12)) t(s, v)
GROUP BY s ORDER BY 1;
SELECT cuckoo_store_contains('sl.n', 10), cuckoo_store_contains('sl.n', 12), cuckoo_store_contains('sl.b', 11);

-- errors: another value family (42804), not a store (42809), no header row (22023)
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.a', v) FROM (VALUES ('x'::text)) t(v)$$);
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.src', v) FROM (VALUES (1)) t(v)$$);
CREATE TABLE sl.fake (segment int4 PRIMARY KEY, f cuckoofilter NOT NULL, fpr float8, capacity int8, segments int4);
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.fake', v) FROM (VALUES (1)) t(v)$$);
SELECT lstate($$SELECT cuckoo_store_load_agg(0::regclass, v) FROM (VALUES (1)) t(v)$$);
-- a window is not a load
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.n', v) OVER () FROM (VALUES (1)) t(v)$$);
SELECT items FROM cuckoo_store_info('sl.n');

-- rollback and savepoints
SELECT cuckoo_store_create('sl.r', 1000) IS NOT NULL;
BEGIN;
SELECT cuckoo_store_load_agg('sl.r', g) FROM generate_series(1, 100) g;
SELECT items FROM cuckoo_store_info('sl.r');
ROLLBACK;
SELECT items, value_type FROM cuckoo_store_info('sl.r');
BEGIN;
SELECT cuckoo_store_load_agg('sl.r', g) FROM generate_series(1, 100) g;
SAVEPOINT sp;
SELECT cuckoo_store_load_agg('sl.r', g) FROM generate_series(101, 300) g;
ROLLBACK TO sp;
SELECT cuckoo_store_load_agg('sl.r', g) FROM generate_series(301, 310) g;
COMMIT;
SELECT items FROM cuckoo_store_info('sl.r');
SELECT count(*) FILTER (WHERE cuckoo_store_contains('sl.r', g)) AS found_of_110
FROM (SELECT generate_series(1, 100) UNION ALL SELECT generate_series(301, 310)) t(g);
-- an error inside the load's statement undoes all of it
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.r', g), 1 / (count(*) - count(*)) FROM generate_series(1000, 1100) g$$);
SELECT items FROM cuckoo_store_info('sl.r');

-- the spill: with maintenance_work_mem at 1 MB a state holds 65,536 hashes,
-- the rest goes to the temporary files by segment range; the segments are
-- those of the array form (the same values in each, in order except in a
-- segment two ranges share)
SET maintenance_work_mem = '1MB';
SELECT cuckoo_store_create('sl.c', 300000) IS NOT NULL AS c,
       cuckoo_store_create('sl.d', 300000) IS NOT NULL AS d;
SELECT cuckoo_store_load_agg('sl.c', g ORDER BY g) FROM generate_series(1, 300000) g;
SELECT cuckoo_store_add_array('sl.d', ARRAY(SELECT generate_series(1, 300000)));
SELECT count(*) AS rows,
       count(*) FILTER (WHERE (cuckoo_info(c.f)).items = (cuckoo_info(d.f)).items) AS same_items,
       count(*) FILTER (WHERE c.f = d.f) >= count(*) - 256 AS identical_but_shared
FROM cuckoo_store_segments('sl.c') c JOIN cuckoo_store_segments('sl.d') d USING (segment);
SELECT items FROM cuckoo_store_info('sl.c');
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('sl.c', g)) AS missing
FROM generate_series(1, 300000) g;
RESET maintenance_work_mem;

-- a parallel plan: the workers hash, the leader combines and applies when
-- the plan is done
CREATE TABLE sl.big AS SELECT g::int8 AS id FROM generate_series(1, 200000) g;
ANALYZE sl.big;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT cuckoo_store_create('sl.p', 200000) IS NOT NULL;
EXPLAIN (COSTS OFF) SELECT cuckoo_store_load_agg('sl.p', id) FROM sl.big;
SELECT cuckoo_store_load_agg('sl.p', id) FROM sl.big;
SELECT items FROM cuckoo_store_info('sl.p');
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('sl.p', id)) AS missing FROM sl.big;
SET max_parallel_workers_per_gather = 2;
-- parallel, spilled in the leader, inside a savepoint rolled back, then kept
-- (new values each time: a second copy of every stored value can fill a
-- segment's bucket pair with one fingerprint, "added too many times", as
-- cuckoo_store_add_array of the same values twice can, and whether it does
-- depends on the order in which the workers deliver the values)
SET maintenance_work_mem = '1MB';
BEGIN;
SAVEPOINT sp;
SELECT cuckoo_store_load_agg('sl.p', id + 1000000) FROM sl.big;
SELECT items FROM cuckoo_store_info('sl.p');
ROLLBACK TO sp;
SELECT items FROM cuckoo_store_info('sl.p');
SELECT cuckoo_store_load_agg('sl.p', -id) FROM sl.big;
COMMIT;
RESET maintenance_work_mem;
SELECT items FROM cuckoo_store_info('sl.p');
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('sl.p', -id)) AS missing FROM sl.big;
SET max_parallel_workers_per_gather = 2;
-- an error found by the final function fails the parallel query
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.a', id::text) FROM sl.big$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- a tracked store: the transaction's pending changes stay queued, are seen
-- by its probes and applied at commit on top of the load
SELECT cuckoo_store_create('sl.tr', 1000) IS NOT NULL;
CREATE TABLE sl.t (k int8);
INSERT INTO sl.t VALUES (1), (2);
SELECT cuckoo_store_track('sl.tr', 'sl.t', 'k');
BEGIN;
INSERT INTO sl.t VALUES (111);
DELETE FROM sl.t WHERE k = 2;
SELECT cuckoo_store_load_agg('sl.tr', g::int8) FROM generate_series(1000, 1099) g;
SELECT cuckoo_store_contains('sl.tr', 111::int8) AS pending_add_seen,
       cuckoo_store_contains('sl.tr', 1050::int8) AS loaded;
COMMIT;
SELECT items FROM cuckoo_store_info('sl.tr');
SELECT cuckoo_store_contains('sl.tr', 1::int8) AS one, cuckoo_store_contains('sl.tr', 111::int8) AS added,
       count(*) FILTER (WHERE cuckoo_store_contains('sl.tr', g::int8)) AS loaded
FROM generate_series(1000, 1099) g;
SELECT cuckoo_store_untrack('sl.tr', 'sl.t', 'k');

-- privileges: SELECT on the source, SELECT and UPDATE on the store, as for
-- any table
CREATE ROLE regress_load_user;
GRANT USAGE ON SCHEMA sl TO regress_load_user;
SELECT cuckoo_store_create('sl.pr', 1000) IS NOT NULL;
SET ROLE regress_load_user;
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.pr', id) FROM sl.src$$);
RESET ROLE;
GRANT SELECT ON sl.src TO regress_load_user;
SET ROLE regress_load_user;
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.pr', id) FROM sl.src$$);
RESET ROLE;
GRANT SELECT ON sl.pr TO regress_load_user;
SET ROLE regress_load_user;
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.pr', id) FROM sl.src$$);
RESET ROLE;
REVOKE SELECT ON sl.pr FROM regress_load_user;
GRANT UPDATE ON sl.pr TO regress_load_user;
SET ROLE regress_load_user;
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.pr', id) FROM sl.src$$);
RESET ROLE;
GRANT SELECT ON sl.pr TO regress_load_user;
REVOKE SELECT ON sl.src FROM regress_load_user;
SET ROLE regress_load_user;
SELECT lstate($$SELECT cuckoo_store_load_agg('sl.pr', id) FROM sl.src$$);
RESET ROLE;
GRANT SELECT ON sl.src TO regress_load_user;
SET ROLE regress_load_user;
SELECT cuckoo_store_load_agg('sl.pr', id) FROM sl.src;
RESET ROLE;
SELECT items FROM cuckoo_store_info('sl.pr');

DROP SCHEMA sl CASCADE;
DROP OWNED BY regress_load_user;
DROP ROLE regress_load_user;
DROP FUNCTION lstate(text);
RESET max_parallel_workers_per_gather;
