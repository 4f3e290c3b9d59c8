-- A scale test (the Makefile's REGRESS_SCALE: the host's plain pg_regress run
-- has it; the runs under ASan, in the version matrix's trees, of the archive
-- and of the package leave it out): cuckoo_agg(value, capacity, fpr,
-- expansion) over 4,000,000 values in a parallel plan, the size of the bug
-- it guards against (the smaller cases are in sql/growth_parallel.sql).
\set VERBOSITY default
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;

-- 4,000,000 distinct values in two workers (issue 24: partial filters
-- unioned counted 4,003,637 items, and 1.22% false positives against a
-- target of 1%).  Now: no false negative, items at most the distinct
-- values and within 1% of them, the rate on absent values under the target.
CREATE UNLOGGED TABLE g4m (k bigint);
INSERT INTO g4m SELECT generate_series(1, 4000000);
ANALYZE g4m;
SELECT regress_plan_has('SELECT cuckoo_agg(k, 1000, 0.01, 2) FROM g4m', 'Partial Aggregate') AS partial_4m;
CREATE TABLE g4built AS SELECT cuckoo_agg(k, 1000, 0.01, 2) AS f FROM g4m;
SELECT (cuckoo_info(f)).items BETWEEN 3960000 AND 4000000 AS items_within_1pct,
       (SELECT count(*) FROM g4m WHERE NOT f @> k) AS false_negatives,
       (SELECT count(*) FROM generate_series(10000001, 10200000) g WHERE f @> g::bigint) <= 2000 AS fpr_at_most_target
FROM g4built;
DROP TABLE g4m, g4built;
RESET ALL;
