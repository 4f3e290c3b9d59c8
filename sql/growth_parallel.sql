-- cuckoo_agg(value, capacity, fpr, expansion) in parallel plans: partial
-- filters grown apart in the workers are unioned (the combine function);
-- the result finds every value, as the serial one does, at the target rate.
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
-- not stored again, so items may be a little under 100,000)
SELECT plan, (cuckoo_info(a)).format_version, (cuckoo_info(a)).items BETWEEN 99000 AND 101000 AS a_items,
       (cuckoo_info(b)).items BETWEEN 99900 AND 100100 AS b_items,
       (SELECT count(*) FROM gpar WHERE a @> k) AS a_found,
       (SELECT count(*) FROM gpar WHERE b @> t) AS b_found,
       (SELECT count(*) FROM generate_series(1000001, 1200000) g WHERE a @> g::bigint) <= 2000 AS a_fpr_at_most_target,
       (SELECT count(*) FROM generate_series(1000001, 1200000) g WHERE b @> md5(g::text)) <= 200 AS b_fpr_at_most_target
FROM gbuilt ORDER BY plan;
-- a serial build is the same as cuckoo_create + cuckoo_add_if_absent
SELECT a = cuckoo_add_if_absent_array(cuckoo_create(1000, 0.01, expansion => 2), ARRAY(SELECT k FROM gpar ORDER BY ctid)) AS serial_as_create
FROM gbuilt WHERE plan = 'serial';
RESET max_parallel_workers_per_gather;
