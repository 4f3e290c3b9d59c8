-- cuckoo_agg(value, capacity, fpr) buffers hashes and adds them a batch at a
-- time (cf_insert_if_absent_many), its state an expanded object in place,
-- when the filter takes 256 kB or more; the smaller filters here are plain
-- states added to row by row (sql/agg_groups.sql has a large one).
-- The result must be byte for byte the filter that cuckoo_add_if_absent
-- makes adding the same values one by one in the same order: across batch
-- boundaries, with repeats, near full load (kicks), for the concrete
-- overloads (no final function) and the polymorphic one (final function).
SET max_parallel_workers_per_gather = 0;

CREATE FUNCTION bb_fold(cap bigint, fpr float8, n int, m int, as_numeric bool)
RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE
  f cuckoofilter := cuckoo_create(cap, fpr);
  r record;
BEGIN
  FOR r IN SELECT (g * 7919) % m AS k FROM generate_series(1, n) g ORDER BY g LOOP
    IF as_numeric THEN
      f := cuckoo_add_if_absent(f, r.k::numeric);
    ELSE
      f := cuckoo_add_if_absent(f, r.k::bigint);
    END IF;
  END LOOP;
  RETURN f;
END $$;

-- bigint (concrete overload): 1 row, exactly one batch, one more, many
-- batches with repeats, and a filter filled to its capacity (load ~0.9)
SELECT n, m,
       cuckoo_agg(((g * 7919) % m)::bigint, 4000, 0.01 ORDER BY g) = bb_fold(4000, 0.01, n, m, false) AS same_bytes,
       (cuckoo_info(cuckoo_agg(((g * 7919) % m)::bigint, 4000, 0.01 ORDER BY g))).items AS items
FROM (VALUES (1, 10), (1024, 100000), (1025, 100000), (9000, 4000), (20000, 3990)) AS t(n, m),
     LATERAL generate_series(1, n) g
GROUP BY n, m ORDER BY n, m;

-- numeric (polymorphic aggregate, with its final function)
SELECT cuckoo_agg(((g * 7919) % 3000)::numeric, 3000, 0.001 ORDER BY g) = bb_fold(3000, 0.001, 7000, 3000, true) AS same_bytes
FROM generate_series(1, 7000) g;

-- every value added is found
SELECT count(*) FILTER (WHERE NOT cuckoo_contains(f, k)) AS false_negatives, count(*) AS probed
FROM (SELECT cuckoo_agg(k, 50000, 0.01) AS f FROM (SELECT (g * 7919)::bigint AS k FROM generate_series(1, 47000) g) s) a,
     LATERAL (SELECT (g * 7919)::bigint AS k FROM generate_series(1, 47000) g) v;

-- a filter that fills up in the middle of a batch: the same error as adding one by one
SELECT cuckoo_agg(((g * 7919) % 100000)::bigint, 100, 0.01 ORDER BY g) FROM generate_series(1, 5000) g;
SELECT bb_fold(100, 0.01, 5000, 100000, false);

-- grouped: one expanded state per group, each equal to its own fold
SELECT g % 3 AS grp,
       cuckoo_agg((((g / 3 + 1) * 7919) % 2000)::bigint, 2000, 0.01 ORDER BY g) =
       bb_fold(2000, 0.01, 3000, 2000, false) AS same_bytes
FROM generate_series(0, 8999) g GROUP BY g % 3 ORDER BY 1;

-- as a window aggregate (the result is read after every row)
SELECT g, has_1, items, same FROM (
  SELECT g, cuckoo_contains(f, 1::bigint) AS has_1, (cuckoo_info(f)).items AS items,
         f = cuckoo_agg(g::bigint, 3000, 0.01) OVER (ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS same
  FROM (SELECT g, cuckoo_agg(g::bigint, 3000, 0.01) OVER (ORDER BY g) AS f FROM generate_series(1, 2100) g) w
) x
WHERE g IN (1, 1023, 1024, 1025, 2048, 2100) OR g % 700 = 0
ORDER BY g;

-- cuckoo_agg(value [, fpr]): the set of hashes is kept in 256 parts that
-- sort and merge their new hashes as they fill.  The filter depends on the
-- set alone: the same values in any order and with any repeats give the
-- same bytes, with as many items as distinct values (200,000 values: each
-- part passes 1,024 hashes and grows to 16,384; the repeats arrive after
-- the parts were first sorted).
CREATE TEMP TABLE bb_vals AS
  SELECT (g * 2654435761) % 1000003 AS k, c, g
  FROM generate_series(1, 200000) g, generate_series(1, 3) c;
SELECT count(DISTINCT f) AS distinct_filters, min((cuckoo_info(f)).items) AS items,
       max((cuckoo_info(f)).items) AS items_max
FROM (
  SELECT cuckoo_agg(k ORDER BY c, g) AS f FROM bb_vals
  UNION ALL SELECT cuckoo_agg(k ORDER BY g DESC, c) FROM bb_vals
  UNION ALL SELECT cuckoo_agg(k ORDER BY k) FROM bb_vals
  UNION ALL SELECT cuckoo_agg(k) FROM bb_vals WHERE c = 2
  UNION ALL SELECT cuckoo_agg(k::bigint) FROM bb_vals WHERE c = 3
) s;
-- the same through the cuckoo_hashset state: flattened, read back as text,
-- merged from states of thirds of the rows (a flat state is spread into the
-- parts of the expanded one), and states that keep growing after a merge
CREATE AGGREGATE bb_hashset_of(bigint) (SFUNC = cuckoo_hashset_trans, STYPE = cuckoo_hashset,
                                        COMBINEFUNC = cuckoo_hashset_combine);
CREATE AGGREGATE bb_hashset_union(cuckoo_hashset) (SFUNC = cuckoo_hashset_combine, STYPE = cuckoo_hashset,
                                                   FINALFUNC = cuckoo_hashset_final);
CREATE TEMP TABLE bb_states AS SELECT c, bb_hashset_of(k) AS h FROM bb_vals GROUP BY c;
SELECT cuckoo_hashset_count(bb_hashset_of(k)) AS hashes,
       cuckoo_hashset_count(bb_hashset_of(k)::text::cuckoo_hashset) AS after_text,
       (SELECT bb_hashset_union(h) FROM bb_states) = cuckoo_agg(k) AS merged_same,
       (SELECT bb_hashset_union(h::text::cuckoo_hashset ORDER BY c DESC) FROM bb_states) = cuckoo_agg(k) AS merged_text_same,
       (SELECT bb_hashset_union(h) FROM (SELECT bb_hashset_of(k) AS h FROM bb_vals WHERE g % 5 = 0 GROUP BY c) x)
         = (SELECT cuckoo_agg(k) FROM bb_vals WHERE g % 5 = 0) AS part_same
FROM bb_vals;
DROP TABLE bb_states;
DROP AGGREGATE bb_hashset_union(cuckoo_hashset);
DROP AGGREGATE bb_hashset_of(bigint);
DROP TABLE bb_vals;

DROP FUNCTION bb_fold(bigint, float8, int, int, bool);
RESET max_parallel_workers_per_gather;
