-- Growing filters that union and shrink (issue "Growing filters that union
-- and shrink"): cuckoo_shrink of a grown filter that lost most of its items
-- compacts it, and a union counts items, not the copies splits made.
-- The large cases (30-day rollup, 100 filters of 3,000, 10 filters grown
-- 1,000x, overlapping parts) are in sql/union_budget.sql.

-- the shrink case: created for 100, 100,000 values added, all but 1,000 removed
CREATE TEMP TABLE shr AS
SELECT cuckoo_remove_array(cuckoo_add_array(cuckoo_create(100, expansion => 2),
                                            ARRAY(SELECT generate_series(1, 100000))),
                           ARRAY(SELECT generate_series(1001, 100000))) AS f;
SELECT (cuckoo_info(f)).bytes AS bytes_before, (cuckoo_info(f)).items,
       (cuckoo_info(cuckoo_shrink(f))).bytes AS bytes_after,
       (cuckoo_info(cuckoo_shrink(f))).items AS items_after,
       (cuckoo_info(cuckoo_add_array(cuckoo_create(1000, expansion => 2),
                                     ARRAY(SELECT generate_series(1, 1000))))).bytes AS made_for_1000
FROM shr;
-- within 2x of a growing filter made for its items, same answers, no false negative
SELECT (cuckoo_info(s)).bytes <= 2 * (cuckoo_info(cuckoo_create(1000, expansion => 2))).bytes AS within_2x,
       (SELECT count(*) FROM generate_series(1, 1000) k WHERE cuckoo_contains(s, k)) AS found_of_1000,
       (SELECT count(*) FROM generate_series(1, 100000) k WHERE cuckoo_contains(s, k))
         = (SELECT count(*) FROM generate_series(1, 100000) k WHERE cuckoo_contains(f, k)) AS same_answers,
       (cuckoo_info(s)).expansion, (cuckoo_info(s)).entries <= (cuckoo_info(f)).entries AS no_new_entries
FROM (SELECT f, cuckoo_shrink(f) AS s FROM shr OFFSET 0) x;
-- shrinking again changes nothing
SELECT md5(cuckoo_shrink(cuckoo_shrink(f))::bytea) = md5(cuckoo_shrink(f)::bytea) AS stable FROM shr;
DROP TABLE shr;

-- union of growing filters of one creation shape: items are the distinct
-- values; parts grown 3,000x hold no copies (every entry carries the
-- address budget, so no split copies it)
CREATE TEMP TABLE parts AS
SELECT d, cuckoo_add_array(cuckoo_create(2, expansion => 2),
                           ARRAY(SELECT generate_series(d * 6000 + 1, d * 6000 + 6000))) AS f
FROM generate_series(0, 3) d;
SELECT count(*) AS parts, sum((cuckoo_info(f)).items) AS items,
       sum((cuckoo_info(f)).entries) = sum((cuckoo_info(f)).items) AS parts_hold_no_copies
FROM parts;
WITH u AS MATERIALIZED (SELECT cuckoo_union_agg(f ORDER BY d) AS f FROM parts)
SELECT abs((cuckoo_info(f)).items - 24000) <= 240 AS items_within_1pct,
       (cuckoo_info(f)).items <= 24000 AS not_above_distinct,
       (SELECT count(*) FROM generate_series(1, 24000) k WHERE cuckoo_contains(u.f, k)) AS found_of_24000
FROM u;
-- a filter unioned with itself adds no item
SELECT (cuckoo_info(cuckoo_union(f, f))).items = (cuckoo_info(f)).items AS self_union_same_items
FROM parts WHERE d = 3;
DROP TABLE parts;
