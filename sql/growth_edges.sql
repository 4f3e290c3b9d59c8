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

-- Small growing filters grow: fills of 100 distinct values into filters of
-- capacity 1 to 10, 200 per capacity, none refused (before: 2-9% raised
-- "cuckoo filter is full" at a load near 0.7).
CREATE FUNCTION edge_fill_fails(cap int, vals int[], kicks int DEFAULT 500) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cuckoo_add_array(cuckoo_create(cap, 0.01, max_kicks => kicks, expansion => 2), vals);
  RETURN false;
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN true;
END $$;
SELECT cap, count(*) FILTER (WHERE edge_fill_fails(cap, vals)) AS refused, count(*) AS fills
FROM unnest(ARRAY[1, 2, 5, 10]) cap,
     LATERAL (SELECT ARRAY(SELECT s * 100000 + k FROM generate_series(1, 100) k) AS vals FROM generate_series(1, 200) s) x
GROUP BY cap ORDER BY cap;
-- and so do growing filters with almost no kicks (max_kicks 0 to 2 ran full
-- near load 0.33)
SELECT mk AS max_kicks, NOT edge_fill_fails(100, ARRAY(SELECT generate_series(1, 20000)), mk) AS grew
FROM unnest(ARRAY[0, 1, 2, 3]) mk;
SELECT (cuckoo_info(f)).items, (SELECT count(*) FROM generate_series(1800001, 1800100) k WHERE f @> k) AS found
FROM (SELECT cuckoo_add_array(cuckoo_create(10, 0.01, expansion => 2), ARRAY(SELECT 18 * 100000 + k FROM generate_series(1, 100) k)) AS f
      OFFSET 0) s;

-- cuckoo_agg(value, capacity, fpr, expansion) over many groups: a group
-- whose filter never grows costs what the three-argument form's does (its
-- state stays a plain value); before, every group had a memory context of
-- its own (8 kB) and a hashed GROUP BY over 40,000 groups took 20 times as
-- long, the hash table measuring its memory by walking every context.
-- (Within 2x: a growing value is wider than a fixed one, its tail carrying
-- the address budget: 20,000 values of 156 against 92 bytes.)
CREATE FUNCTION edge_peak_kb(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Peak Memory Usage')::bigint;
END $$;
SET work_mem = '1GB';
SET enable_sort = off;
SELECT edge_peak_kb('SELECT g % 20000, cuckoo_agg(g, 10, 0.01, 2) FROM generate_series(1, 60000) g GROUP BY 1')
       <= 2 * edge_peak_kb('SELECT g % 20000, cuckoo_agg(g, 10, 0.01) FROM generate_series(1, 60000) g GROUP BY 1') AS memory_as_fixed_form;
-- groups that grow, hashed and sorted, every value found, the same answers
SELECT bool_and(h = s) AS same, sum(found) AS found, min(rounds) > 0 AS every_group_grew
FROM (SELECT g % 5000 AS grp, cuckoo_agg(g, 2, 0.01, 2) AS h FROM generate_series(1, 100000) g GROUP BY 1) a
JOIN (SELECT grp, f AS s, (SELECT count(*) FROM generate_series(0, 19) j WHERE f @> (grp + 5000 * j + CASE WHEN grp = 0 THEN 5000 ELSE 0 END)) AS found,
             (cuckoo_info(f)).growth_rounds AS rounds
      FROM (SELECT g % 5000 AS grp, cuckoo_agg(g, 2, 0.01, 2 ORDER BY g) AS f FROM generate_series(1, 100000) g GROUP BY 1) x) b USING (grp);
RESET enable_sort;
RESET work_mem;
-- as a window function: running and sliding frames
SELECT bool_and((SELECT count(*) FROM generate_series(1, g) k WHERE f @> k) = g) AS running_found
FROM (SELECT g, cuckoo_agg(g, 3, 0.01, 2) OVER (ORDER BY g) AS f FROM generate_series(1, 200) g) s;
SELECT bool_and(f @> g AND f @> greatest(g - 2, 1) AND (cuckoo_info(f)).items = least(g, 3)) AS sliding_ok
FROM (SELECT g, cuckoo_agg(g, 1, 0.01, 2) OVER (ORDER BY g ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS f
      FROM generate_series(1, 200) g) s;
-- the same with a state that never grows (it stays a plain value), the
-- window's results kept by a sort above it, and peers of a RANGE frame
SELECT array_agg((cuckoo_info(f)).items::int ORDER BY g) = array_agg(g ORDER BY g) AS running_plain_ok
FROM (SELECT g, cuckoo_agg(g, 1000, 0.01, 2) OVER (ORDER BY g) AS f FROM generate_series(1, 300) g ORDER BY md5(g::text)) s;
SELECT array_agg((cuckoo_info(f)).items::int ORDER BY g) = array_agg(least(g, 3) ORDER BY g) AS sliding_plain_ok
FROM (SELECT g, cuckoo_agg(g, 1000, 0.01, 2) OVER (ORDER BY g ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS f
      FROM generate_series(1, 300) g ORDER BY md5(g::text)) s;
SELECT array_agg((cuckoo_info(f)).items ORDER BY g) AS peer_items
FROM (SELECT g, cuckoo_agg(g, 1000, 0.01, 2) OVER (ORDER BY g / 3) AS f FROM generate_series(0, 11) g) s;

-- Once a known limit (before the address budget, docs/FORMAT.md 13.12): 40
-- growing filters created for 100 with 3,000 values each union into one,
-- every value counted once.
CREATE TABLE edge_parts AS
SELECT s, cuckoo_add_array(cuckoo_create(100, 0.01, expansion => 2), ARRAY(SELECT s * 10000 + k FROM generate_series(1, 3000) k)) AS f
FROM generate_series(1, 40) s;
SELECT (cuckoo_info(cuckoo_union_agg(f ORDER BY s))).items FROM edge_parts;
SELECT (cuckoo_info(cuckoo_union_agg(f ORDER BY s))).items FROM edge_parts WHERE s <= 20;
