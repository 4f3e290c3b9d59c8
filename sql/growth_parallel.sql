-- cuckoo_agg(value, capacity, fpr, expansion) in parallel and partitionwise
-- plans: the partial states are the sets of distinct hashes, not filters (a
-- growing filter does not union without loss), and the final function builds
-- the filter of their union; the result finds every value, as the serial one
-- does, counts each value once and stays at the target rate.
\set VERBOSITY default

CREATE TABLE gpar (k bigint, t text);
INSERT INTO gpar SELECT g, md5(g::text) FROM generate_series(1, 100000) g;
ANALYZE gpar;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;

EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 1000, 0.01, 2) FROM gpar;
CREATE TABLE gbuilt AS
SELECT 'parallel' AS plan, cuckoo_agg(k, 1000, 0.01, 2) AS a, cuckoo_agg(t, 500, 0.001, 2) AS b FROM gpar;
-- over no rows: NULL
SELECT cuckoo_agg(k, 1000, 0.01, 2) IS NULL AS no_rows FROM gpar WHERE k < 0;
-- the three-argument form still fails when the input exceeds its capacity
-- (which worker fails first, with how many items, varies: message only)
\set VERBOSITY terse
SELECT cuckoo_agg(k, 1000, 0.01) FROM gpar;
\set VERBOSITY default

SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(k, 1000, 0.01, 2) FROM gpar;
INSERT INTO gbuilt SELECT 'serial', cuckoo_agg(k, 1000, 0.01, 2), cuckoo_agg(t, 500, 0.001, 2) FROM gpar;
SELECT cuckoo_agg(k, 1000, 0.01, 2) IS NULL AS no_rows FROM gpar WHERE k < 0;

-- (add-if-absent: a value the filter already reports, a false positive, is
-- not stored again, so items may be a little under 100,000, never over)
SELECT plan, (cuckoo_info(a)).format_version, (cuckoo_info(a)).items BETWEEN 99000 AND 100000 AS a_items,
       (cuckoo_info(b)).items BETWEEN 99900 AND 100000 AS b_items,
       (SELECT count(*) FROM gpar WHERE a @> k) AS a_found,
       (SELECT count(*) FROM gpar WHERE b @> t) AS b_found,
       (SELECT count(*) FROM generate_series(1000001, 1200000) g WHERE a @> g::bigint) <= 2000 AS a_fpr_at_most_target,
       (SELECT count(*) FROM generate_series(1000001, 1200000) g WHERE b @> md5(g::text)) <= 200 AS b_fpr_at_most_target
FROM gbuilt ORDER BY plan;
-- a serial build is the same as cuckoo_create + cuckoo_add_if_absent
SELECT a = cuckoo_add_if_absent_array(cuckoo_create(1000, 0.01, expansion => 2), ARRAY(SELECT k FROM gpar ORDER BY ctid)) AS serial_as_create
FROM gbuilt WHERE plan = 'serial';

-- Whether a plan has a node (setup.sql's regress_plan_has).
CREATE FUNCTION plan_has(q text, node text) RETURNS boolean LANGUAGE sql AS $$ SELECT public.regress_plan_has(q, node) $$;

-- The result does not depend on how the rows were split: partitionwise
-- aggregation, whose partitions' partial states are combined the same way,
-- gives the same bytes as the two workers (the union of the sets, inserted
-- in ascending hash order).
SET max_parallel_workers_per_gather = 0;
SET enable_partitionwise_aggregate = on;
CREATE TABLE gpart (k bigint, t text) PARTITION BY HASH (k);
CREATE TABLE gpart_0 PARTITION OF gpart FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE gpart_1 PARTITION OF gpart FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE gpart_2 PARTITION OF gpart FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO gpart SELECT * FROM gpar;
ANALYZE gpart;
SELECT plan_has('SELECT cuckoo_agg(k, 1000, 0.01, 2) FROM gpart', 'Partial Aggregate') AS partial_partitionwise;
SELECT cuckoo_agg(k, 1000, 0.01, 2)::bytea = (SELECT a::bytea FROM gbuilt WHERE plan = 'parallel') AS partitionwise_same_as_parallel,
       cuckoo_agg(t, 500, 0.001, 2)::bytea = (SELECT b::bytea FROM gbuilt WHERE plan = 'parallel') AS partitionwise_same_as_parallel_text
FROM gpart;

-- Small partial states (kept flat while they hold few hashes): 40 values
-- over two workers, and over the three partitions.
SELECT (cuckoo_info(f)).items AS items, (SELECT count(*) FROM gpar WHERE k <= 40 AND f @> k) AS found
FROM (SELECT cuckoo_agg(k, 10, 0.01, 2) AS f FROM gpart WHERE k <= 40) s;
SET max_parallel_workers_per_gather = 2;
SELECT plan_has('SELECT cuckoo_agg(k, 10, 0.01, 2) FROM gpar WHERE k <= 40', 'Partial Aggregate') AS partial_small;
SELECT (cuckoo_info(f)).items AS items, (SELECT count(*) FROM gpar WHERE k <= 40 AND f @> k) AS found,
       f::bytea = (SELECT cuckoo_agg(k, 10, 0.01, 2)::bytea FROM gpart WHERE k <= 40) AS same_as_partitionwise
FROM (SELECT cuckoo_agg(k, 10, 0.01, 2) AS f FROM gpar WHERE k <= 40) s;
-- With the leader taking part, its own partial state reaches the combine
-- function in memory, not through a queue: the same bytes.
SET parallel_leader_participation = on;
SELECT plan_has('SELECT cuckoo_agg(k, 1000, 0.01, 2) FROM gpar', 'Partial Aggregate') AS partial_with_leader;
SELECT cuckoo_agg(k, 1000, 0.01, 2)::bytea = (SELECT a::bytea FROM gbuilt WHERE plan = 'parallel') AS same_with_leader
FROM gpar;
SET parallel_leader_participation = off;

-- Repeated values are one value: 100,000 rows of 1,000 values, a NULL per
-- 100 rows (990 distinct values), over two workers.
SELECT plan_has('SELECT cuckoo_agg(CASE WHEN k % 100 = 0 THEN NULL ELSE k % 1000 + 1 END, 10, 0.01, 2) FROM gpar', 'Partial Aggregate') AS partial_repeated;
SELECT (cuckoo_info(f)).items AS items,
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE (g - 1) % 100 <> 0 AND f @> g::bigint) AS found
FROM (SELECT cuckoo_agg(CASE WHEN k % 100 = 0 THEN NULL ELSE k % 1000 + 1 END, 10, 0.01, 2) AS f FROM gpar) s;
RESET enable_partitionwise_aggregate;

-- (4,000,000 values over two workers: sql/growth_parallel_4m.sql, a scale test)
RESET max_parallel_workers_per_gather;

-- Grouped over two workers: 50 groups of 2,000 values, each grown from a
-- capacity of 100.  Hashed, with a work_mem small enough that the leader's
-- hash table spills partial states to disk, and sorted (Gather Merge): each
-- group finds all its values, counts each once, and both plans give the
-- same bytes (each group's filter depends only on its set of hashes).
CREATE TABLE gsrc AS SELECT k, (k % 50)::int AS g FROM gpar;
ANALYZE gsrc;
SET max_parallel_workers_per_gather = 2;
SET work_mem = '64kB';
SET enable_sort = off;
SELECT plan_has('SELECT g, cuckoo_agg(k, 100, 0.01, 2) FROM gsrc GROUP BY g', 'Partial HashAggregate') AS partial_hashed;
CREATE TABLE ggrp AS SELECT 'hashed' AS plan, g, cuckoo_agg(k, 100, 0.01, 2) AS f FROM gsrc GROUP BY g;
RESET enable_sort;
SET enable_hashagg = off;
SELECT plan_has('SELECT g, cuckoo_agg(k, 100, 0.01, 2) FROM gsrc GROUP BY g', 'Partial GroupAggregate') AS partial_sorted;
-- (CREATE TABLE AS: an INSERT's query runs without workers)
CREATE TABLE ggrp_sorted AS SELECT 'sorted' AS plan, g, cuckoo_agg(k, 100, 0.01, 2) AS f FROM gsrc GROUP BY g;
INSERT INTO ggrp SELECT * FROM ggrp_sorted;
RESET enable_hashagg;
RESET work_mem;
SELECT plan, count(*) AS groups, bool_and((cuckoo_info(f)).items BETWEEN 1980 AND 2000) AS items,
       sum((SELECT count(*) FROM gsrc WHERE gsrc.g = ggrp.g AND NOT f @> k)) AS false_negatives
FROM ggrp GROUP BY plan ORDER BY plan;
SELECT count(*) AS same_bytes FROM ggrp h JOIN ggrp s ON h.g = s.g
WHERE h.plan = 'hashed' AND s.plan = 'sorted' AND h.f::bytea = s.f::bytea;
DROP TABLE ggrp, ggrp_sorted, gsrc;

-- A partial state (a set of hashes) never leaves the aggregate.  An
-- ordinary role (the extension is trusted) can make aggregates of the
-- support functions: without cuckoo_agg_grow_final, or with another combine
-- function.  In parallel and partitionwise plans each still returns a
-- filter (its text form reads back), which finds every value and counts
-- each once, also when such an aggregate shares its partial states with
-- cuckoo_agg(value, capacity, fpr, expansion) in one query.
CREATE ROLE regress_gp_user;
GRANT CREATE ON SCHEMA public TO regress_gp_user;
GRANT SELECT ON gpar, gpart TO regress_gp_user;
SET ROLE regress_gp_user;
CREATE AGGREGATE gp_nofinal(bigint, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans, STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_agg_grow_combine, PARALLEL = SAFE);
CREATE AGGREGATE gp_unioncombine(bigint, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans, STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union, FINALFUNC = cuckoo_agg_grow_final, PARALLEL = SAFE);
SET max_parallel_workers_per_gather = 2;
SELECT plan_has('SELECT gp_nofinal(k, 1000, 0.01, 2) FROM gpar', 'Partial Aggregate') AS partial_nofinal,
       plan_has('SELECT gp_unioncombine(k, 1000, 0.01, 2) FROM gpar', 'Partial Aggregate') AS partial_unioncombine;
-- (each built by CREATE TABLE AS: an INSERT's query runs without workers)
CREATE TABLE gpu1 AS
SELECT 'parallel' AS plan, gp_nofinal(k, 1000, 0.01, 2) AS a, NULL::cuckoofilter AS b,
       gp_nofinal(k, 10, 0.01, 2) FILTER (WHERE k <= 40) AS c FROM gpar;
CREATE TABLE gpu2 AS
SELECT 'parallel' AS plan, NULL::cuckoofilter AS a, gp_unioncombine(k, 1000, 0.01, 2) AS b, NULL::cuckoofilter AS c FROM gpar;
CREATE TABLE gpu3 AS
SELECT 'shared' AS plan, gp_nofinal(k, 1000, 0.01, 2) AS a, NULL::cuckoofilter AS b, cuckoo_agg(k, 1000, 0.01, 2) AS c FROM gpar;
CREATE TABLE gpu4 AS
SELECT 'shared2' AS plan, cuckoo_agg(k, 1000, 0.01, 2) AS a, NULL::cuckoofilter AS b, gp_nofinal(k, 1000, 0.01, 2) AS c FROM gpar;
SET parallel_leader_participation = on;
CREATE TABLE gpu5 AS
SELECT 'leader' AS plan, gp_nofinal(k, 1000, 0.01, 2) AS a, gp_unioncombine(k, 1000, 0.01, 2) AS b,
       gp_nofinal(k, 10, 0.01, 2) FILTER (WHERE k <= 40) AS c FROM gpar;
SET parallel_leader_participation = off;
SET max_parallel_workers_per_gather = 0;
SET enable_partitionwise_aggregate = on;
SELECT plan_has('SELECT gp_nofinal(k, 1000, 0.01, 2) FROM gpart', 'Partial Aggregate') AS partial_partitionwise_nofinal;
CREATE TABLE gpu6 AS
SELECT 'partitionwise' AS plan, gp_nofinal(k, 1000, 0.01, 2) AS a, gp_unioncombine(k, 1000, 0.01, 2) AS b,
       gp_nofinal(k, 10, 0.01, 2) FILTER (WHERE k <= 40) AS c FROM gpart;
CREATE VIEW gp_user AS
SELECT * FROM gpu1 UNION ALL SELECT * FROM gpu2 UNION ALL SELECT * FROM gpu3
UNION ALL SELECT * FROM gpu4 UNION ALL SELECT * FROM gpu5 UNION ALL SELECT * FROM gpu6;
RESET enable_partitionwise_aggregate;
SELECT plan, substr(f::bytea, 1, 4) = '\x434b4f4f'::bytea AS is_filter,
       f::text::cuckoofilter = f AS text_reads_back,
       (cuckoo_info(f)).items BETWEEN n * 0.99 AND n AS items,
       (SELECT count(*) FROM gpar WHERE k <= n AND f @> k) = n AS finds_all
FROM gp_user, LATERAL (VALUES (a, 100000), (b, 100000), (c, CASE WHEN plan LIKE 'shared%' THEN 100000 ELSE 40 END)) v(f, n)
WHERE f IS NOT NULL ORDER BY plan, n;
RESET ROLE;
DROP VIEW gp_user;
DROP TABLE gpu1, gpu2, gpu3, gpu4, gpu5, gpu6;
DROP AGGREGATE gp_nofinal(bigint, bigint, float8, int);
DROP AGGREGATE gp_unioncombine(bigint, bigint, float8, int);
REVOKE SELECT ON gpar, gpart FROM regress_gp_user;
REVOKE CREATE ON SCHEMA public FROM regress_gp_user;
DROP ROLE regress_gp_user;
RESET max_parallel_workers_per_gather;
