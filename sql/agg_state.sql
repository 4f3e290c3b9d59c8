-- cuckoo_agg(value)'s state: a sorted array of distinct hashes plus an
-- append buffer that is sorted and merged in when full (65,536 hashes at
-- first, then an eighth of the array).  These inputs make it flush and merge
-- many times, with repeats inside one buffer, across buffers, and across
-- merges; the filter must count each distinct value once, find them all, and
-- not depend on the order the rows arrive in.
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE st AS
  SELECT ((g::bigint * 7919) % 150001) AS k FROM generate_series(1, 450000) g;
SELECT count(*) AS rows, count(DISTINCT k) AS distinct_values FROM st;
CREATE TEMP TABLE st_f AS
  SELECT (SELECT cuckoo_agg(k) FROM st) AS rows_order,
         (SELECT cuckoo_agg(k ORDER BY k DESC) FROM (SELECT DISTINCT k FROM st) d) AS distinct_desc,
         (SELECT cuckoo_agg(k ORDER BY k) FROM st) AS sorted_with_repeats;
SELECT (cuckoo_info(rows_order)).items AS items,
       rows_order = distinct_desc AS same_as_distinct_desc,
       rows_order = sorted_with_repeats AS same_as_sorted
FROM st_f;
SELECT count(*) FILTER (WHERE NOT cuckoo_contains(f.rows_order, st.k)) AS false_negatives
FROM st, st_f f;
-- Many groups, each its own small state (the first buffer grows before
-- anything is sorted), next to the same groups built one by one.
CREATE TEMP TABLE st_g AS
  SELECT k % 40 AS g, cuckoo_agg(k) AS f, count(DISTINCT k) AS n FROM st GROUP BY k % 40;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE (cuckoo_info(f)).items <> n) AS wrong_counts,
       count(*) FILTER (WHERE f <> (SELECT cuckoo_agg(k) FROM st WHERE k % 40 = st_g.g)) AS differ_from_alone
FROM st_g;
-- Values repeated far more often than the buffer holds.
SELECT (cuckoo_info(cuckoo_agg(g % 3))).items AS three FROM generate_series(1, 300000) g;
SELECT (cuckoo_info(cuckoo_agg(1))).items AS one FROM generate_series(1, 200000) g;
RESET max_parallel_workers_per_gather;
