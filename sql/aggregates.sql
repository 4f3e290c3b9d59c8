-- The aggregates that build filters: cuckoo_agg sized to the data, with a
-- target fpr, or with a fixed shape.
\set VERBOSITY default

CREATE TABLE customers (id bigint, name text);
INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(1, 20000) g;
CREATE TABLE orders (id bigint, customer_id bigint);
INSERT INTO orders SELECT g, (g * 7919) % 40000 FROM generate_series(1, 50000) g;

-- Sized to the data: about f / 0.95 bits per item.
SELECT buckets, fingerprint_bits, items, capacity, round(load_factor::numeric, 2) AS load,
       round(bits_per_item::numeric, 1) AS bits_per_item, value_type
FROM customers, LATERAL (SELECT * FROM cuckoo_info((SELECT cuckoo_agg(id) FROM customers))) i LIMIT 1;
SELECT fingerprint_bits, items FROM cuckoo_info((SELECT cuckoo_agg(id, 0.0001) FROM customers));
SELECT value_type, items FROM cuckoo_info((SELECT cuckoo_agg(name) FROM customers));

-- Prefiltering a join: no order of a known customer is lost.
WITH f AS (SELECT cuckoo_agg(id) AS f FROM customers)
SELECT count(*) FILTER (WHERE cuckoo_contains(f, o.customer_id)) AS passed_filter,
       count(*) FILTER (WHERE o.customer_id BETWEEN 1 AND 20000) AS true_matches,
       count(*) FILTER (WHERE o.customer_id BETWEEN 1 AND 20000 AND NOT cuckoo_contains(f, o.customer_id)) AS false_negatives
FROM orders o, f;

-- Each distinct value is stored once, however often it repeats.
SELECT items, cuckoo_count(cuckoo_agg, 3) AS count_of_3
FROM (SELECT cuckoo_agg(g % 10) FROM generate_series(1, 100000) g) s, cuckoo_info(cuckoo_agg);

-- NULLs are skipped; no rows (or only NULLs) give NULL, as sum() does, and as
-- on Citus, where the coordinator sees neither the value type nor the fpr of
-- an empty input.
SELECT items, value_type FROM cuckoo_info((SELECT cuckoo_agg(x) FROM (VALUES (1), (NULL), (2)) v(x)));
SELECT cuckoo_agg(id) IS NULL AS no_rows FROM customers WHERE false;
SELECT cuckoo_agg(NULL::text) IS NULL AS only_nulls FROM generate_series(1, 5);
SELECT cuckoo_agg(id, 0.0001) IS NULL AS no_rows FROM customers WHERE false;

-- Bad arguments.
SELECT cuckoo_agg(id, 0) FROM customers;
SELECT cuckoo_agg(id, 2.0) FROM customers;
SELECT cuckoo_agg(id, NULL::float8) FROM customers;
SELECT cuckoo_agg(id, 1e-15) FROM customers;
SELECT cuckoo_agg(point(id, id)) FROM customers;

-- Fixed shape: filters built apart can be unioned.
SELECT buckets, items, capacity FROM cuckoo_info((SELECT cuckoo_agg(id, 30000, 0.01) FROM customers));
SELECT cuckoo_info(cuckoo_union(
         (SELECT cuckoo_agg(id, 30000, 0.01) FROM customers WHERE id <= 10000),
         (SELECT cuckoo_agg(id, 30000, 0.01) FROM customers WHERE id > 10000))) IS NOT NULL AS unioned;
SELECT count(*) AS found_of_20000
FROM customers, (SELECT cuckoo_union_agg(f) AS f FROM
                   (SELECT cuckoo_agg(id, 30000, 0.01) AS f FROM customers GROUP BY id % 4) p) u
WHERE cuckoo_contains(u.f, id);
-- Repeated values do not overflow: each is added once.
SELECT items FROM cuckoo_info((SELECT cuckoo_agg(g % 3, 100, 0.01) FROM generate_series(1, 1000) g));
-- No rows: NULL, whatever the arguments (constants, or a generic plan's
-- parameters); as with any aggregate, the arguments are not evaluated then.
SELECT cuckoo_agg(id, 30000, 0.01) IS NULL AS no_rows FROM customers WHERE false;
PREPARE empty_agg(float8, bigint) AS
  SELECT cuckoo_agg(id, $1) IS NULL AS agg_null, cuckoo_agg(id, $2, $1) IS NULL AS fixed_null
  FROM customers WHERE id < 0;
SET plan_cache_mode = force_generic_plan;
EXECUTE empty_agg(0.001, 1000);
SET plan_cache_mode = force_custom_plan;
EXECUTE empty_agg(0.001, 1000);
RESET plan_cache_mode;
SELECT cuckoo_agg(id, NULL::float8) IS NULL AS no_rows FROM customers WHERE false;
SELECT cuckoo_agg(id, NULL, 0.01) IS NULL AS no_rows FROM customers WHERE false;
-- The polymorphic forms (a type without a concrete overload) do the same.
SELECT cuckoo_agg(x) IS NULL AS a, cuckoo_agg(x, 0.001) IS NULL AS b, cuckoo_agg(x, 10, 0.01) IS NULL AS c
FROM (SELECT ARRAY[id] AS x FROM customers WHERE false) s;
-- More distinct values than the shape holds: an error, nothing lost silently.
SELECT cuckoo_agg(id, 1000, 0.01) FROM customers;
SELECT cuckoo_agg(id, 0, 0.01) FROM customers;
SELECT cuckoo_agg(id, NULL, 0.01) FROM customers;

-- Grouped builds: one filter per group.
SELECT id % 3 AS grp, (cuckoo_info(cuckoo_agg(id))).items FROM customers GROUP BY 1 ORDER BY 1;
