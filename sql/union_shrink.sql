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
