-- cuckoo_agg(value, capacity, fpr) over many groups.  A group whose filter
-- is small keeps it as a plain state, added to row by row; only a filter
-- large enough to leave the caches gets the buffered state (an expanded
-- object with a 1,024-hash buffer in a memory context of its own).  A
-- context and a buffer per group would cost every small group about 16 kB,
-- and a hashed aggregate sums the memory of every context under its own at
-- each new group (quadratic in the number of groups): 40,000 groups of
-- capacity 10 took 650 MB and 12.8 s with work_mem = 1GB, against 18 MB and
-- 0.17 s for a plain state.
SET max_parallel_workers_per_gather = 0;

-- the "Batches: N" line of a query's EXPLAIN ANALYZE (1: no spill to disk)
CREATE FUNCTION ag_batches(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS off, TIMING off, SUMMARY off) ' || q LOOP
    IF l ~ 'Batches: ' THEN
      RETURN substring(l FROM 'Batches: [0-9]+');
    END IF;
  END LOOP;
  RETURN 'no hashed aggregate';
END $$;

-- the fold of cuckoo_add_if_absent over the keys, in their order
CREATE FUNCTION ag_fold(cap bigint, fpr float8, keys bigint[], as_numeric bool)
RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE
  f cuckoofilter := cuckoo_create(cap, fpr);
  k bigint;
BEGIN
  FOREACH k IN ARRAY keys LOOP
    IF as_numeric THEN
      f := cuckoo_add_if_absent(f, k::numeric);
    ELSE
      f := cuckoo_add_if_absent(f, k);
    END IF;
  END LOOP;
  RETURN f;
END $$;

-- 2,000 groups of 5 rows into filters of capacity 10: the states (a few
-- hundred bytes each) fit in the default 4 MB, one batch, for the concrete
-- overload and the polymorphic aggregate alike
SET work_mem = '4MB';
SET enable_sort = off;
SELECT ag_batches('SELECT g % 2000, cuckoo_agg(g::bigint, 10, 0.01) FROM generate_series(1, 10000) g GROUP BY 1') AS bigint_groups,
       ag_batches('SELECT g % 2000, cuckoo_agg(g::numeric, 10, 0.01) FROM generate_series(1, 10000) g GROUP BY 1') AS numeric_groups;

-- the same groups hashed (spilling at 64 kB of work_mem, or not; a hashed
-- aggregate adds a group's rows in their order) and sorted give the same
-- filters, each the fold of its own values
CREATE TEMP TABLE ag_hashed AS
  SELECT g % 2000 AS k, cuckoo_agg(g::bigint, 10, 0.01) AS f
  FROM generate_series(1, 10000) g GROUP BY 1;
SET work_mem = '64kB';
CREATE TEMP TABLE ag_spilled AS
  SELECT g % 2000 AS k, cuckoo_agg(g::bigint, 10, 0.01) AS f
  FROM generate_series(1, 10000) g GROUP BY 1;
RESET work_mem;
RESET enable_sort;
SET enable_hashagg = off;
CREATE TEMP TABLE ag_sorted AS
  SELECT g % 2000 AS k, cuckoo_agg(g::bigint, 10, 0.01 ORDER BY g) AS f
  FROM generate_series(1, 10000) g GROUP BY 1;
RESET enable_hashagg;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE h.f = s.f) AS same_as_sorted,
       count(*) FILTER (WHERE h.f = p.f) AS same_as_spilled,
       count(*) FILTER (WHERE (cuckoo_info(h.f)).items = 5) AS five_items
FROM ag_hashed h JOIN ag_sorted s USING (k) JOIN ag_spilled p USING (k);
SELECT f = (SELECT cuckoo_add_if_absent(cuckoo_add_if_absent(cuckoo_add_if_absent(
              cuckoo_add_if_absent(cuckoo_add_if_absent(cuckoo_create(10, 0.01),
              7::bigint), 2007::bigint), 4007::bigint), 6007::bigint), 8007::bigint)) AS fold_of_group_7
FROM ag_hashed WHERE k = 7;

-- a filter past the threshold (capacity 400,000 at 0.01: 535 kB) takes the
-- buffered state: across batch boundaries, hashed among small groups, for
-- the concrete overload (no final function) and the polymorphic one, the
-- bytes are still the fold's
SELECT pg_column_size(cuckoo_create(400000, 0.01)) AS big_filter_bytes;
SELECT k, (cuckoo_info(f)).items AS items,
       f = ag_fold(cap, 0.01, keys, false) AS same_as_fold
FROM (
  SELECT k, cap, cuckoo_agg(key, cap, 0.01) AS f, array_agg(key) AS keys
  FROM (SELECT CASE WHEN g <= 2100 THEN 0 ELSE g % 3 + 1 END AS k,
               CASE WHEN g <= 2100 THEN 400000 ELSE 10 END AS cap,
               (g * 7919) % 100000 AS key
        FROM generate_series(1::bigint, 2109) g) s
  GROUP BY k, cap
) a ORDER BY k;
SELECT cuckoo_agg(((g * 7919) % 100000)::numeric, 400000, 0.01) =
       ag_fold(400000, 0.01, array_agg((g * 7919) % 100000), true) AS numeric_same_as_fold
FROM generate_series(1::bigint, 2100) g;

-- a window over a big filter: the result is read after every row
SELECT g, (cuckoo_info(f)).items AS items, cuckoo_contains(f, g::bigint) AS has_g,
       cuckoo_contains(f, (g + 1)::bigint) AS has_next
FROM (SELECT g, cuckoo_agg(g::bigint, 400000, 0.01) OVER (ORDER BY g) AS f
      FROM generate_series(1, 2050) g) w
WHERE g IN (1, 1024, 1025, 2048, 2050) ORDER BY g;

-- a big filter that fills up in the middle of a batch: 54000, with the
-- items it held when the value that did not fit came (412,014, as the
-- row-by-row transition before the buffer reported too)
SELECT cuckoo_agg(g, 400000, 0.01) FROM generate_series(1::bigint, 600000) g;

-- cuckoo_agg(value [, fpr]) over a type with a concrete overload keeps its
-- hashes in a cuckoo_hashset state: a set of up to 128 hashes is a flat
-- value, a larger one an expanded object in a context of its own (an
-- expanded object for every group took 24 kB a group and made a hashed
-- GROUP BY over many groups quadratic, as above: 40,000 groups, work_mem
-- 1GB: 17 s and 965 MB).  2,000 groups of 5 values fit in 4 MB:
SET enable_sort = off;
SELECT ag_batches('SELECT g % 2000, cuckoo_agg(g::bigint) FROM generate_series(1, 10000) g GROUP BY 1') AS sized_groups,
       ag_batches('SELECT g % 2000, cuckoo_agg(g::text, 0.001) FROM generate_series(1, 10000) g GROUP BY 1') AS sized_groups_fpr;
RESET enable_sort;

-- the filters equal those of the internal-state aggregate (the polymorphic
-- one, here under another name so that bigint reaches it), for sets below,
-- at and above 128 distinct values, with repeats, hashed (spilling or not)
-- and sorted, serial and with partial states combined in parallel
CREATE AGGREGATE ag_internal(anycompatible, float8) (
  SFUNC = cuckoo_agg_trans, STYPE = internal,
  FINALFUNC = cuckoo_agg_final, FINALFUNC_EXTRA,
  COMBINEFUNC = cuckoo_agg_combine, SERIALFUNC = cuckoo_agg_serialize,
  DESERIALFUNC = cuckoo_agg_deserialize, PARALLEL = SAFE);
CREATE TABLE ag_sets AS
  SELECT k, (g * 7919) % (k * 3 + 2) AS v
  FROM generate_series(0, 59) k, generate_series(1, 600) g;
ANALYZE ag_sets;
SET enable_sort = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE f = ref) AS same,
       min(n) AS fewest, max(n) AS most, count(*) FILTER (WHERE n = 128) AS at_128
FROM (SELECT k, cuckoo_agg(v, 0.01) AS f, ag_internal(v, 0.01) AS ref,
             (cuckoo_info(cuckoo_agg(v, 0.01))).items AS n
      FROM ag_sets GROUP BY k) a;
SET work_mem = '64kB';
SELECT count(*) AS groups, count(*) FILTER (WHERE f = ref) AS same
FROM (SELECT k, cuckoo_agg(v, 0.01) AS f, ag_internal(v, 0.01) AS ref FROM ag_sets GROUP BY k) a;
RESET work_mem;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE f = ref) AS same
FROM (SELECT k, cuckoo_agg(v, 0.01) AS f, ag_internal(v, 0.01) AS ref FROM ag_sets GROUP BY k) a;
RESET enable_hashagg;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_partitionwise_aggregate = on;
SELECT count(*) AS groups, count(*) FILTER (WHERE f = ref) AS same
FROM (SELECT k, cuckoo_agg(v, 0.01) AS f, ag_internal(v, 0.01) AS ref FROM ag_sets GROUP BY k) a;
SELECT cuckoo_agg(v, 0.01) = ag_internal(v, 0.01) AS same_whole FROM ag_sets;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET enable_partitionwise_aggregate;

-- a set starts as one flat sorted array and is split into 256 parts by the
-- top 8 bits of a hash only past 16,000 hashes: 256 part headers (8 kB) for
-- every group made a GROUP BY over mid-size groups slower and larger (1,000
-- groups of 200 bigints: 48 MB; 40,000 groups of 5 oids: 362 MB).  250
-- groups of 200 bigints (2 MB), and 2,000 groups of 5 oids (the internal
-- state), fit in 4 MB of hash memory (work_mem 2MB, hash_mem_multiplier 2;
-- the groups come one after the other, so that each new group sees the
-- memory of the full ones before it; 5 batches with the 256 parts):
SET max_parallel_workers_per_gather = 0;
SET enable_sort = off;
SET work_mem = '2MB';
SET hash_mem_multiplier = 2;
SELECT ag_batches('SELECT g / 200, cuckoo_agg(g::bigint) FROM generate_series(0, 49999) g GROUP BY 1') AS mid_groups,
       ag_batches('SELECT g / 5, cuckoo_agg(g::oid) FROM generate_series(0, 9999) g GROUP BY 1') AS oid_groups;
RESET hash_mem_multiplier;
RESET work_mem;
RESET enable_sort;

-- the filters' bytes do not depend on the layout: sets below, at and above
-- the split (16,000 hashes), built hashed, sorted and in parallel (partial
-- states combined: flat into flat, flat into split and split into split),
-- for the concrete overload and the internal state, give the md5s the
-- 256-part layout gave (the same for every plan)
CREATE TABLE ag_split AS
  SELECT k, k::bigint * 1000000 + g AS v
  FROM unnest(ARRAY[1, 200, 15999, 16000, 16001, 40000]) k, generate_series(1, k) g;
INSERT INTO ag_split SELECT k, v FROM ag_split WHERE k IN (200, 16001);
ANALYZE ag_split;
CREATE FUNCTION ag_split_md5s() RETURNS TABLE (bigints text, oids text, whole text)
LANGUAGE sql AS $$
  SELECT (SELECT md5(string_agg(md5(f::text), ',' ORDER BY k))
          FROM (SELECT k, cuckoo_agg(v) AS f FROM ag_split GROUP BY k) a),
         (SELECT md5(string_agg(md5(f::text), ',' ORDER BY k))
          FROM (SELECT k, ag_internal((v % 4000000000)::oid, 0.01) AS f FROM ag_split GROUP BY k) a),
         (SELECT md5(cuckoo_agg(v)::text) FROM ag_split) $$;
SELECT 'hashed' AS plan, * FROM ag_split_md5s();
SET enable_hashagg = off;
SELECT 'sorted' AS plan, * FROM ag_split_md5s();
RESET enable_hashagg;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT 'parallel' AS plan, * FROM ag_split_md5s();
SET max_parallel_workers_per_gather = 0;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP FUNCTION ag_split_md5s();
DROP TABLE ag_split;
