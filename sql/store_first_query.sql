-- The first query of a session that probes a store gets the batched probe:
-- cuckoo_store_contains has a planner support function, which the planner
-- calls (loading the library, and with it the probe's planner hook) before
-- it builds the scan's paths.  The session made by \c below has not loaded
-- the library when it plans its first query.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sfq_keys (id int, k bigint);
INSERT INTO sfq_keys SELECT g, g FROM generate_series(1, 2000) g;
ANALYZE sfq_keys;
SELECT cuckoo_store_create('sfq_store', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_add_array('sfq_store', ARRAY(SELECT g::bigint FROM generate_series(2, 2000, 2) g));
SELECT p.prosupport::regproc AS support
FROM pg_proc p WHERE p.oid = 'cuckoo_store_contains(regclass, anycompatible)'::regprocedure;

\c
-- a new backend: nothing of cuckoo loaded yet
SELECT count(*) AS loaded FROM pg_settings WHERE name = 'cuckoo.batched_probe';
EXPLAIN (COSTS OFF) SELECT count(*) FROM sfq_keys WHERE cuckoo_store_contains('sfq_store', k);
SELECT count(*) FROM sfq_keys WHERE cuckoo_store_contains('sfq_store', k);
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('sfq_store', k)) AS missing
FROM sfq_keys WHERE k % 2 = 0;

-- the cost: per row more than cuckoo_contains' (a segment lookup), and the
-- store's pages once; the selectivity: the default (0.1) of a filter not
-- known at plan time
\c
SELECT count(*) AS loaded FROM pg_settings WHERE name = 'cuckoo.batched_probe';
SET max_parallel_workers_per_gather = 0;
SET cuckoo.batched_probe = off;
CREATE FUNCTION sfq_plan(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN j -> 0 -> 'Plan';
END $$;
SELECT (p ->> 'Plan Rows')::int AS rows,
       (p ->> 'Startup Cost')::float8 > 0 AS startup,
       (p ->> 'Total Cost')::float8 >
         (sfq_plan('SELECT * FROM sfq_keys WHERE k > 0') ->> 'Total Cost')::float8
         + 2000 * 3 * current_setting('cpu_operator_cost')::float8 AS per_row
FROM sfq_plan($$SELECT * FROM sfq_keys WHERE cuckoo_store_contains('sfq_store', k)$$) p;

DROP FUNCTION sfq_plan(text);
DROP TABLE sfq_keys, sfq_store;
