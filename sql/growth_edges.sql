-- Edge cases of growing and rotating filters (1.2) found in review: a value
-- seen again through cuckoo_add_if_absent in a rolling window, the figures
-- of a filter compacted below its creation size, the error of a union of
-- filters not rotated in step, and cuckoo_agg(value, capacity, fpr,
-- expansion) with many groups.
\set VERBOSITY default

-- A rolling window kept with cuckoo_add_if_absent (the README's pattern):
-- a value seen in every period must be found after each rotate, as long as
-- it was seen in one of the kept periods.  Before the fix, add_if_absent
-- did nothing for a value the filter reported from an older generation, so
-- the value expired with the period of its first add.
CREATE TABLE edge_win (shape text, keep int, p int, f cuckoofilter);
DO $$
DECLARE
  s record;
  f cuckoofilter;
BEGIN
  FOR s IN SELECT * FROM (VALUES ('growing', cuckoo_create(100, 0.01, expansion => 2), 2),
                                 ('growing', cuckoo_create(100, 0.01, expansion => 2), 3),
                                 ('fixed', cuckoo_create(5000), 2),
                                 ('fixed b8', cuckoo_create(5000, 0.001, 8), 4),
                                 ('semisort', cuckoo_create(5000, semisort => true), 2)) v(shape, f0, keep)
  LOOP
    f := s.f0;
    FOR p IN 1..8 LOOP
      -- 42 every period, one value at a time; 7 and 8 every period, as an
      -- array; 1000 * p + 1 .. 1000 * p + 300 only in period p
      f := cuckoo_add_if_absent(f, 42);
      f := cuckoo_add_if_absent_array(f, ARRAY[7, 8] || ARRAY(SELECT generate_series(1000 * p + 1, 1000 * p + 300)));
      INSERT INTO edge_win VALUES (s.shape, s.keep, p, f);
      f := cuckoo_rotate(f, s.keep);
    END LOOP;
  END LOOP;
END $$;
-- after the rotate that follows period p, the values of periods
-- p - keep + 2 .. p are found, 42, 7 and 8 among them
SELECT shape, keep,
       bool_and(r @> 42 AND r @> 7 AND r @> 8) AS every_period_found,
       bool_and((SELECT count(*) FROM generate_series(1000 * greatest(1, p - keep + 2) + 1, 1000 * p + 300) k
                 WHERE k % 1000 BETWEEN 1 AND 300 AND r @> k) = 300 * (p - greatest(1, p - keep + 2) + 1)) AS window_found
FROM edge_win, LATERAL (SELECT cuckoo_rotate(f, keep) AS r OFFSET 0) x
GROUP BY shape, keep ORDER BY shape, keep;
-- a value seen again moves to the newest generation: items stay, the
-- per-generation counts follow; a value already in the newest generation,
-- or absent, is not touched by it
SELECT i.items, i.generation_items
FROM cuckoo_info(cuckoo_add_if_absent(cuckoo_rotate(cuckoo_add_array(cuckoo_create(100), ARRAY[1, 2, 3]), 3), 1)) i;
SELECT i.items, i.generation_items
FROM cuckoo_info(cuckoo_add_if_absent_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(100, expansion => 2), ARRAY[1, 2, 3]), 3),
                                            ARRAY[1, 1, 2, 4])) i;
SELECT f = cuckoo_add_if_absent(f, 5) AS newest_unchanged
FROM (SELECT cuckoo_add(cuckoo_rotate(cuckoo_create(100), 3), 5) AS f OFFSET 0) s;
-- a value added twice in two periods, seen again, removed once: still
-- found, and it survives the next rotate as a value of the newest period
SELECT r @> 9 AS found_after_remove, cuckoo_rotate(r, 2) @> 9 AS found_next_period
FROM (SELECT cuckoo_remove(cuckoo_add_if_absent(cuckoo_rotate(cuckoo_add(cuckoo_rotate(cuckoo_add(cuckoo_create(100), 9), 3), 9), 3), 9), 9) AS r
      OFFSET 0) s;
-- not rotated: cuckoo_add_if_absent stores a present value once, as before
SELECT cuckoo_count(cuckoo_add_if_absent(cuckoo_add(cuckoo_create(100, expansion => 2), 3), 3), 3) AS one_copy;

-- A growing filter compacted below its creation size: no negative growth
-- rounds, a positive expected rate at most the target, the same answers.
SELECT i.buckets < i.initial_buckets AS below_creation_size, i.growth_rounds,
       i.expected_fpr > 0 AND i.expected_fpr <= 0.01 AS expected_fpr_ok,
       (SELECT count(*) FROM generate_series(1, 50) k WHERE s @> k) AS found
FROM (SELECT cuckoo_shrink(cuckoo_add_array(cuckoo_create(100000, expansion => 2), ARRAY(SELECT generate_series(1, 50)))) AS s
      OFFSET 0) x, cuckoo_info(s) i;
SELECT i.growth_rounds, i.expected_fpr > 0 AS expected_fpr_positive
FROM cuckoo_info(cuckoo_shrink(cuckoo_rotate(cuckoo_add_array(cuckoo_create(100000), ARRAY[1, 2, 3]), 2))) i;

-- Union of filters of one creation shape rotated apart: the error says so
-- (before: a "different shapes" error whose detail showed two equal shapes).
SELECT cuckoo_union(cuckoo_rotate(cuckoo_create(100, expansion => 2), 2), cuckoo_create(100, expansion => 2));
SELECT cuckoo_union(cuckoo_rotate(cuckoo_create(100), 2), cuckoo_rotate(cuckoo_rotate(cuckoo_create(100), 2), 2));
SELECT cuckoo_union(cuckoo_create(100), cuckoo_rotate(cuckoo_create(100), 4));
-- shapes that differ still say how
SELECT cuckoo_union(cuckoo_create(100, expansion => 2), cuckoo_create(100, 0.001, expansion => 2));
-- filters rotated in step union
SELECT (SELECT count(*) FROM generate_series(1, 200) k WHERE u @> k) AS union_found
FROM (SELECT cuckoo_union(cuckoo_rotate(cuckoo_add_array(cuckoo_create(100, expansion => 2), ARRAY(SELECT generate_series(1, 100))), 2),
                          cuckoo_rotate(cuckoo_add_array(cuckoo_create(100, expansion => 2), ARRAY(SELECT generate_series(101, 200))), 2)) AS u
      OFFSET 0) s;
