-- A second copy of values that share a fingerprint and a bucket pair with
-- other values (issue: "stored filters, a second copy of many values fails
-- 'added too many times'").  Growing filters, and the stores made of them,
-- store it: the other values' entries leave the pair when a split separates
-- them.  A value's own copies are still limited to 8 per bucket pair.

-- the issue's case: a store for 200,000 (248 segments), 1 to 200,000 twice
-- (the second add of 124,944 was refused)
SELECT cuckoo_store_create('dup_s', 200000);
CREATE TABLE dup_big AS SELECT g::int8 AS id FROM generate_series(1, 200000) g;
SELECT cuckoo_store_add_array('dup_s', ARRAY(SELECT id FROM dup_big)) AS first;
SELECT cuckoo_store_add_array('dup_s', ARRAY(SELECT id FROM dup_big)) AS second;
SELECT items, segments FROM cuckoo_store_info('dup_s');
SELECT count(*) FILTER (WHERE cuckoo_store_contains('dup_s', id)) AS found FROM dup_big;
-- each removed once: each still a member (it was stored twice)
SELECT cuckoo_store_remove_array('dup_s', ARRAY(SELECT id FROM dup_big)) AS removed;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('dup_s', id)) AS found FROM dup_big;
DROP TABLE dup_s, dup_big;

-- a growing filter of 20 buckets: 1, 300, 2228, 3734 and 7364 have one
-- fingerprint and one bucket pair; twice each is ten entries for the pair's
-- eight slots (the ninth was refused with 54000)
SELECT (cuckoo_info(f)).items, (cuckoo_info(f)).buckets > 20 AS split,
       array_agg(cuckoo_count(f, v) ORDER BY v) AS counts
FROM (SELECT cuckoo_add_array(cuckoo_create(60, 0.01, expansion => 2),
                              ARRAY[1, 300, 2228, 3734, 7364, 1, 300, 2228, 3734, 7364]) AS f) s,
     unnest(ARRAY[1, 300, 2228, 3734, 7364]) v
GROUP BY f;
-- one value's ninth copy: refused, growing or not
SELECT cuckoo_add_array(cuckoo_create(60, 0.01, expansion => 2), array_fill(5, ARRAY[9]));
SELECT cuckoo_add_array(cuckoo_create(60), array_fill(5, ARRAY[9]));
