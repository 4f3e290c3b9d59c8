-- Correctness sweep through SQL: for bucket sizes 2, 4, 8, several fingerprint
-- sizes, and semi-sorting: every added item is found, after removing half the
-- other half is still found, and the measured fpr is within its bound.
-- (test/unit sweeps every f from 4 to 32 in the core.)
CREATE TEMP TABLE sweep AS
WITH shapes AS (
  SELECT b, f, false AS ss FROM unnest(ARRAY[2, 4, 8]) b, unnest(ARRAY[4, 7, 10, 13, 16, 24, 32]) f
  UNION ALL
  SELECT 4, f, true FROM unnest(ARRAY[4, 5, 9, 13, 20, 32]) f
), built AS (
  SELECT b, f, ss,
         cuckoo_add_array(cuckoo_create(3000, 0.01, b, f, 500, ss), ARRAY(SELECT generate_series(1, 3000))) AS full_f
  FROM shapes
)
SELECT b, f, ss, full_f,
       cuckoo_remove_array(full_f, ARRAY(SELECT generate_series(1, 3000, 2))) AS half_f
FROM built;

SELECT b, f, ss,
       (SELECT count(*) FROM generate_series(1, 3000) g WHERE cuckoo_contains(full_f, g)) AS found_of_3000,
       (SELECT count(*) FROM generate_series(2, 3000, 2) g WHERE cuckoo_contains(half_f, g)) AS found_of_1500,
       (cuckoo_info(half_f)).items AS items_after_removal,
       (SELECT count(*) FROM generate_series(1000001, 1040000) g WHERE cuckoo_contains(full_f, g))::float8 / 40000
         <= 1.3 * (cuckoo_info(full_f)).expected_fpr + 5 * sqrt((cuckoo_info(full_f)).expected_fpr / 40000) + 1e-9
         AS fpr_within_bound
FROM sweep ORDER BY ss, b, f;

-- cuckoo_agg uses at most 1.08 * f / 0.95 bits per item and keeps the fpr it
-- was asked for, at round and awkward sizes (bench/agg_sizing.sql goes to 10^7).
SELECT n, i.fingerprint_bits AS f,
       i.bits_per_item <= 1.08 * i.fingerprint_bits / 0.95 AS bits_within_bound,
       (SELECT count(*) FROM generate_series(1, n) g WHERE cuckoo_contains(a.f, g)) = n AS all_found,
       (SELECT count(*) FROM generate_series(100000000, 100099999) g WHERE cuckoo_contains(a.f, g)) < 1000 AS fpr_below_1pct
FROM unnest(ARRAY[1000, 1337, 2047, 4097, 10000, 65537, 200000]) n,
     LATERAL (SELECT cuckoo_agg(g) AS f FROM generate_series(1, n) g) a,
     LATERAL cuckoo_info(a.f) i
ORDER BY n;
