-- Union of filters of one shape, the union aggregate, and shrink.
\set VERBOSITY default

CREATE TABLE parts (day int, f cuckoofilter);
-- Three days of customer ids with overlaps; same shape for every day.
INSERT INTO parts
SELECT d, cuckoo_agg(c, 5000, 0.01)
FROM generate_series(1, 3) d, generate_series(d * 1000, d * 1000 + 1499) c
GROUP BY d;

-- The union finds every value of every part; a value present in two parts
-- is stored once (multiset union: the larger count wins).
WITH u AS (SELECT cuckoo_union_agg(f) AS f FROM parts)
SELECT (cuckoo_info(f)).items AS items,
       (SELECT count(*) FROM generate_series(1000, 4499) c WHERE cuckoo_contains(f, c)) AS found_of_3500,
       cuckoo_count(f, 2100) AS count_of_shared_value
FROM u;
SELECT (cuckoo_info(cuckoo_union(a.f, b.f))).items AS two_days
FROM parts a, parts b WHERE a.day = 1 AND b.day = 2;

-- Union does not modify its arguments.
SELECT cuckoo_union(a.f, b.f) IS NOT NULL AS unioned,
       md5(a.f::bytea) = md5((SELECT f::bytea FROM parts WHERE day = 1)) AS a_unchanged
FROM parts a, parts b WHERE a.day = 1 AND b.day = 2 \gset
SELECT :'unioned' AS unioned, :'a_unchanged' AS a_unchanged;

-- Union with an empty filter of the same shape; union of a filter with itself.
SELECT cuckoo_union(cuckoo_create(1000), cuckoo_add(cuckoo_create(1000), 'x')) @> 'x' AS took_kind_and_item,
       (cuckoo_info(cuckoo_union(f, f))).items AS self_union_items
FROM parts WHERE day = 1;

-- The union aggregate skips NULLs and gives NULL over no rows.
SELECT (cuckoo_info(cuckoo_union_agg(f))).items FROM (SELECT f FROM parts UNION ALL SELECT NULL) s;
SELECT cuckoo_union_agg(f) IS NULL AS no_rows FROM parts WHERE day > 10;

-- Shapes must agree; value types must agree; the result must fit.
SELECT cuckoo_union(cuckoo_create(1000), cuckoo_create(2000));
SELECT cuckoo_union(cuckoo_create(1000), cuckoo_create(1000, 0.001));
SELECT cuckoo_union(cuckoo_create(1000, semisort => true), cuckoo_create(1000));
SELECT cuckoo_union(cuckoo_add(cuckoo_create(1000), 1), cuckoo_add(cuckoo_create(1000), 'x'));
SELECT cuckoo_union(cuckoo_add_array(cuckoo_create(4), ARRAY[1, 2, 3, 4]),
                    cuckoo_add_array(cuckoo_create(4), ARRAY[5, 6, 7, 8]));
SELECT cuckoo_union_agg(f) FROM (VALUES (cuckoo_create(10)), (cuckoo_create(100000))) v(f);

-- Shrink: after deleting most items, the table halves until the rest fit
-- at the target load; every remaining item is still found.
CREATE TABLE big AS
SELECT cuckoo_add_array(cuckoo_create(100000), ARRAY(SELECT generate_series(1, 100000))) AS f;
UPDATE big SET f = cuckoo_remove_array(f, ARRAY(SELECT generate_series(1, 90000)));
SELECT b.buckets AS before_buckets, a.buckets AS after_buckets, a.items, b.bytes AS before_bytes, a.bytes AS after_bytes,
       round(a.load_factor::numeric, 3) AS load_after
FROM big, cuckoo_info(f) b, cuckoo_info(cuckoo_shrink(f)) a;
WITH s AS MATERIALIZED (SELECT cuckoo_shrink(f) AS f FROM big)
SELECT count(*) AS found_of_10000 FROM s, generate_series(90001, 100000) g WHERE cuckoo_contains(f, g);
-- A full filter, or a small one, keeps its size.
SELECT (cuckoo_info(cuckoo_shrink(f))).buckets = (cuckoo_info(f)).buckets AS unchanged
FROM (SELECT cuckoo_add_array(cuckoo_create(1000), ARRAY(SELECT generate_series(1, 1000))) f) s;
SELECT cuckoo_shrink(cuckoo_create(10))::bytea = cuckoo_create(10)::bytea AS small_unchanged;

-- Large filters of one shape (4 MB and more, huge pages advised): the union
-- aggregate's bytes are those of the fold of cuckoo_union, also as a running
-- (window) aggregate and per group, and every value of every part is found.
CREATE TABLE bigparts (day int, f cuckoofilter);
INSERT INTO bigparts
SELECT d, cuckoo_agg(c, 4000000, 0.01)
FROM generate_series(1, 3) d, generate_series(d * 20000, d * 20000 + 29999) c
GROUP BY d;
SELECT day, (cuckoo_info(f)).bytes >= 4 * 1024 * 1024 AS large, (cuckoo_info(f)).items FROM bigparts ORDER BY day;
CREATE TABLE bigfold AS
SELECT 1 AS day, f FROM bigparts WHERE day = 1
UNION ALL
SELECT 2, cuckoo_union(a.f, b.f) FROM bigparts a, bigparts b WHERE a.day = 1 AND b.day = 2
UNION ALL
SELECT 3, cuckoo_union(cuckoo_union(a.f, b.f), c.f)
FROM bigparts a, bigparts b, bigparts c WHERE a.day = 1 AND b.day = 2 AND c.day = 3;
WITH u AS MATERIALIZED (SELECT cuckoo_union_agg(f ORDER BY day) AS f FROM bigparts)
SELECT md5(u.f::bytea) = (SELECT md5(f::bytea) FROM bigfold WHERE day = 3) AS same_bytes_as_fold,
       (cuckoo_info(u.f)).items,
       (SELECT count(*) FROM generate_series(20000, 89999) c WHERE cuckoo_contains(u.f, c)) AS found_of_70000
FROM u;
SELECT w.day, md5(w.f::bytea) = md5(bigfold.f::bytea) AS same_bytes_as_fold
FROM (SELECT day, cuckoo_union_agg(f) OVER (ORDER BY day) AS f FROM bigparts) w JOIN bigfold USING (day)
ORDER BY w.day;
-- one group per pair of days (the first day twice): each group's own state
SELECT g, md5(cuckoo_union_agg(f ORDER BY day)::bytea) = md5(CASE g WHEN 0 THEN (SELECT f FROM bigfold WHERE day = 2)
           ELSE cuckoo_union((SELECT f FROM bigparts WHERE day = 1), (SELECT f FROM bigparts WHERE day = 3)) END::bytea) AS same_bytes
FROM (SELECT day, f, (day % 2) AS g FROM bigparts UNION ALL SELECT day, f, 0 FROM bigparts WHERE day = 1) s
GROUP BY g ORDER BY g;
-- shapes must still agree
SELECT cuckoo_union_agg(f ORDER BY day) FROM (SELECT day, f FROM bigparts WHERE day = 1
                                               UNION ALL SELECT 2, cuckoo_create(10)) s;
DROP TABLE bigparts, bigfold;
