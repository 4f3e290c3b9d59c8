-- Aggregates in parallel plans answer exactly as in serial ones.
\set VERBOSITY default

CREATE TABLE par (k bigint, t text);
INSERT INTO par SELECT g, md5(g::text) FROM generate_series(1, 200000) g;
ANALYZE par;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
-- partial aggregation of the fixed shape too (the planner's union cost is
-- tested at the end)
SET cuckoo.fixed_agg_union_cost = 0;

EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k) FROM par;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 300000, 0.01) FROM par;
EXPLAIN (COSTS OFF) SELECT cuckoo_union_agg(f) FROM (SELECT cuckoo_create(10) f FROM par) s;

-- Over no rows, parallel and serial plans both give NULL.
CREATE TABLE empty_built AS
SELECT 'parallel' AS plan, cuckoo_agg(k) AS a, cuckoo_agg(k, 0.0001) AS b, cuckoo_agg(k, 5000, 0.001) AS c
FROM par WHERE k < 0;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 0.0001) FROM par WHERE k < 0;
SELECT cuckoo_agg(k, 2.0) IS NULL AS no_rows FROM par WHERE k < 0;

CREATE TABLE built AS
SELECT 'parallel' AS plan, cuckoo_agg(k) AS a, cuckoo_agg(t, 0.001) AS b, cuckoo_agg(k, 300000, 0.01) AS c FROM par;

SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k) FROM par;
INSERT INTO empty_built
SELECT 'serial', cuckoo_agg(k), cuckoo_agg(k, 0.0001), cuckoo_agg(k, 5000, 0.001) FROM par WHERE k < 0;
SELECT cuckoo_agg(k, 2.0) IS NULL AS no_rows FROM par WHERE k < 0;
SELECT plan, a IS NULL AND b IS NULL AND c IS NULL AS all_null FROM empty_built ORDER BY plan;

INSERT INTO built
SELECT 'serial', cuckoo_agg(k), cuckoo_agg(t, 0.001), cuckoo_agg(k, 300000, 0.01) FROM par;

-- The data-sized filters are byte-identical; the fixed-shape one holds the
-- same items (its entries may sit in other slots).
SELECT (SELECT a::bytea FROM built WHERE plan = 'parallel') = (SELECT a::bytea FROM built WHERE plan = 'serial') AS agg_identical,
       (SELECT b::bytea FROM built WHERE plan = 'parallel') = (SELECT b::bytea FROM built WHERE plan = 'serial') AS agg_fpr_identical;
SELECT plan, (cuckoo_info(a)).items AS a_items, (cuckoo_info(c)).items AS c_items FROM built ORDER BY plan;

-- Same answers for members and for non-members.
SELECT plan,
       (SELECT count(*) FROM par WHERE cuckoo_contains(c, k)) AS members_found,
       (SELECT count(*) FROM generate_series(1000001, 1100000) g WHERE cuckoo_contains(c, g::bigint)) AS false_positives
FROM built ORDER BY plan;
SELECT count(*) AS members_found FROM par, built WHERE plan = 'parallel' AND cuckoo_contains(a, k);
SELECT count(*) AS members_found FROM par, built WHERE plan = 'parallel' AND cuckoo_contains(b, t);

-- A large fixed shape (4 MB and more, huge pages advised): the leader
-- unions the workers' partial filters.  Every member is found either way.
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 4000000, 0.01) FROM par;
CREATE TABLE built_large AS SELECT 'parallel' AS plan, cuckoo_agg(k, 4000000, 0.01) AS c FROM par;
SET max_parallel_workers_per_gather = 0;
INSERT INTO built_large SELECT 'serial', cuckoo_agg(k, 4000000, 0.01) FROM par;
SELECT plan, (cuckoo_info(c)).bytes >= 4 * 1024 * 1024 AS large,
       (SELECT count(*) FROM par WHERE cuckoo_contains(c, k)) AS members_found,
       (cuckoo_info(c)).items BETWEEN 199900 AND 200000 AS items_near_200000
FROM built_large ORDER BY plan;

-- The planner charges the leader's unions of fixed-shape partial filters
-- (cuckoo.fixed_agg_union_cost, per entry of each partial filter after the
-- first, at most capacity entries): a large filter built from as many rows is
-- aggregated serially (the scan may still be parallel), a small one from many
-- rows still in parallel; other aggregations are not touched.  The hook is
-- the library's, so it is loaded first, as any earlier use in the session
-- would have.
LOAD 'cuckoo';
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
RESET cuckoo.fixed_agg_union_cost;
SHOW cuckoo.fixed_agg_union_cost;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 300000, 0.01) FROM par;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 300000, 0.01), count(*) FROM par HAVING count(*) > 0;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k % 10, 1000, 0.01) FROM par;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k) FROM par;
EXPLAIN (COSTS OFF) SELECT k % 2, cuckoo_agg(k, 300000, 0.01) FROM par GROUP BY k % 2;
SET cuckoo.fixed_agg_union_cost = 0;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 300000, 0.01) FROM par;
RESET cuckoo.fixed_agg_union_cost;
-- the serial plan the planner now takes answers as before
SELECT (SELECT cuckoo_agg(k, 300000, 0.01) FROM par)::bytea =
       (SELECT c::bytea FROM built WHERE plan = 'serial') AS same_bytes_as_serial;
SELECT f IS NOT NULL AND (SELECT count(*) FROM par WHERE cuckoo_contains(f, k)) = 200000 AS members_found,
       n = 200000 AS counted
FROM (SELECT cuckoo_agg(k, 300000, 0.01) AS f, count(*) AS n FROM par HAVING count(*) > 0) s;
SELECT (cuckoo_info(cuckoo_agg(k % 10, 1000, 0.01))).items AS small_items FROM par;
SET cuckoo.fixed_agg_union_cost = -1;
RESET ALL;
