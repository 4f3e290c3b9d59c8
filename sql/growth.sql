-- Growing filters (1.2): cuckoo_create(..., expansion => 2) makes a filter of
-- format version 2 that grows instead of failing; expansion 0 (the default)
-- is the fixed filter of 1.0, byte for byte.
\set VERBOSITY default

-- expansion 0 and no expansion write the same version-1 bytes.
SELECT cuckoo_create(1000) = cuckoo_create(1000, expansion => 0) AS same_bytes,
       cuckoo_create(1000, 0.001, 8, 20, 50, false) = cuckoo_create(1000, 0.001, 8, 20, 50, false, 0) AS same_bytes_all_args,
       (cuckoo_info(cuckoo_create(1000))).format_version AS fixed_version,
       (cuckoo_info(cuckoo_create(1000))).expansion AS fixed_expansion,
       (cuckoo_info(cuckoo_create(1000))).tail_bits AS fixed_tail_bits;

-- A growing filter: version 2, bucket size 4, fingerprints shorter than a
-- fixed filter's at the same fpr, spare address bits (tail) per entry.
SELECT format_version, expansion, bucket_size, semisort, items, capacity, tail_bits,
       buckets = initial_buckets AS not_grown_yet, growth_rounds, split_pointer, entries,
       generation_bits, generation, keep, value_type, is_full
FROM cuckoo_info(cuckoo_create(1000, 0.01, expansion => 2));
SELECT g.fingerprint_bits < f.fingerprint_bits AS shorter_fingerprints,
       g.fingerprint_bits + g.tail_bits > f.fingerprint_bits AS longer_slots
FROM cuckoo_info(cuckoo_create(1000, 0.01, expansion => 2)) g,
     cuckoo_info(cuckoo_create(1000, 0.01)) f;

-- Wrong expansion: 22023 with the allowed values; arguments a growing filter
-- cannot honour; NULL gives NULL as every other argument.
SELECT cuckoo_create(1000, expansion => 1);
SELECT cuckoo_create(1000, expansion => 3);
SELECT cuckoo_create(1000, expansion => -2);
SELECT cuckoo_create(1000, 0.01, 2, expansion => 2);
SELECT cuckoo_create(1000, fingerprint_bits => 12, expansion => 2);
SELECT cuckoo_create(1000, semisort => true, expansion => 2);
SELECT cuckoo_create(0, expansion => 2);
SELECT cuckoo_create(1000, 1.5, expansion => 2);
SELECT cuckoo_create(1000, expansion => NULL) IS NULL AS null_expansion;
DO $$
DECLARE
  calls text[] := ARRAY['cuckoo_create(10, expansion => 1)', 'cuckoo_create(10, expansion => 4)',
                        'cuckoo_create(10, expansion => -1)', 'cuckoo_create(10, 0.01, 8, expansion => 2)',
                        'cuckoo_create(10, semisort => true, expansion => 2)',
                        'cuckoo_create(0, expansion => 2)'];
  c text;
BEGIN
  FOREACH c IN ARRAY calls LOOP
    BEGIN
      EXECUTE 'SELECT ' || c;
      RAISE NOTICE '% succeeded', c;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE '% -> %', c, SQLSTATE;
    END;
  END LOOP;
END $$;

-- A full fixed filter fails with 54000 and says how to make one that grows.
SELECT cuckoo_add_array(cuckoo_create(100), ARRAY(SELECT generate_series(1, 200)));

-- The issue's story: one customer at a time into a filter created for 100.
CREATE TABLE customers_seen (id int PRIMARY KEY, f cuckoofilter DEFAULT cuckoo_create(100, expansion => 2));
INSERT INTO customers_seen (id) VALUES (1);
DO $$
BEGIN
  FOR i IN 1..3000 LOOP
    UPDATE customers_seen SET f = cuckoo_add(f, i) WHERE id = 1;
  END LOOP;
END $$;
SELECT i.items, i.buckets > i.initial_buckets AS grew, i.growth_rounds >= 4 AS rounds,
       i.format_version, i.is_full,
       (SELECT count(*) FROM generate_series(1, 3000) k WHERE f @> k) AS found,
       (SELECT count(*) FROM generate_series(100001, 200000) k WHERE f @> k) <= 1000 AS fpr_at_most_target
FROM customers_seen, cuckoo_info(f) i;

-- The smallest capacities grow too.
SELECT c AS capacity, (cuckoo_info(f)).items, (SELECT count(*) FROM generate_series(1, 1000) k WHERE f @> k) AS found
FROM unnest(ARRAY[1, 2, 5, 10]) c,
     LATERAL (SELECT cuckoo_add_array(cuckoo_create(c, expansion => 2), ARRAY(SELECT generate_series(1, 1000))) AS f OFFSET 0) x
ORDER BY c;

-- Grown 200x through the array form: no error, no false negative, and the
-- measured false-positive rate over 200,000 absent keys at most the target.
CREATE TABLE grown AS
SELECT 'ints' AS name,
       cuckoo_add_array(cuckoo_create(100, 0.01, expansion => 2), ARRAY(SELECT generate_series(1, 20000))) AS f
UNION ALL
SELECT 'texts', cuckoo_add_array(cuckoo_create(50, 0.001, expansion => 2), ARRAY(SELECT 'k' || g FROM generate_series(1, 10000) g));
SELECT name, i.items, i.growth_rounds > 5 AS grew, i.entries >= i.items AS entries_cover_items,
       i.load_factor BETWEEN 0.3 AND 0.96 AS load_ok, i.expected_fpr < 0.01 AS expected_ok
FROM grown, cuckoo_info(f) i ORDER BY name;
SELECT count(*) FILTER (WHERE hit) AS found
FROM grown, unnest(cuckoo_contains_array(f, ARRAY(SELECT generate_series(1, 20000)))) hit WHERE name = 'ints';
SELECT count(*) FILTER (WHERE hit) <= 0.01 * 200000 AS fpr_at_most_target
FROM grown, unnest(cuckoo_contains_array(f, ARRAY(SELECT generate_series(1000001, 1200000)))) hit WHERE name = 'ints';
SELECT count(*) FILTER (WHERE hit) AS found,
       (SELECT count(*) FILTER (WHERE h) FROM unnest(cuckoo_contains_array(f, ARRAY(SELECT 'absent' || g FROM generate_series(1, 200000) g))) h) <= 0.001 * 200000 AS fpr_at_most_target
FROM grown, unnest(cuckoo_contains_array(f, ARRAY(SELECT 'k' || g FROM generate_series(1, 10000) g))) hit
WHERE name = 'texts' GROUP BY f;

-- Every function on a version-2 filter.
CREATE TABLE v2 AS SELECT f FROM grown WHERE name = 'ints';
-- contains, @>, count, contains_array with NULLs
SELECT cuckoo_contains(f, 17) AS contains, f @> 19999 AS op, cuckoo_count(f, 17) AS copies,
       cuckoo_contains_array(f, ARRAY[1, NULL, 20000]) AS arr,
       cuckoo_contains(f, NULL::int) IS NULL AS null_value
FROM v2;
-- add of a value already there: two copies; add_if_absent: still one
SELECT cuckoo_count(cuckoo_add(f, 17), 17) AS after_add,
       cuckoo_count(cuckoo_add_if_absent(f, 17), 17) AS after_add_if_absent,
       (cuckoo_info(cuckoo_add_if_absent_array(f, ARRAY[1, 2, 3]))).items AS items_unchanged,
       (cuckoo_info(cuckoo_add_array(f, ARRAY[20001, 20002, NULL]))).items AS two_more
FROM v2;
-- remove: one copy at a time; every other value still found
SELECT (cuckoo_info(r)).items AS items,
       (SELECT count(*) FROM generate_series(1, 20000, 2) k WHERE r @> k) AS odd_found
FROM (SELECT cuckoo_remove_array(f, ARRAY(SELECT generate_series(2, 20000, 2))) AS r FROM v2 OFFSET 0) s;
SELECT cuckoo_count(cuckoo_remove(cuckoo_add(f, 17), 17), 17) AS back_to_one FROM v2;
-- NULLs: a NULL value or array leaves the filter as it is; a NULL filter gives NULL
SELECT cuckoo_add(f, NULL::int) = f AS add_null, cuckoo_remove(f, NULL::int) = f AS remove_null,
       cuckoo_add_array(f, NULL::int[]) = f AS add_null_array,
       cuckoo_add(NULL::cuckoofilter, 1) IS NULL AS null_filter
FROM v2;
-- the kind of a grown filter is fixed by its first value
SELECT cuckoo_add(f, 'text'::text) FROM v2;
-- scalar functions never modify their argument
SELECT md5(f::bytea) = (SELECT md5(f::bytea) FROM v2) AS unchanged
FROM v2, LATERAL (SELECT cuckoo_add_array(f, ARRAY(SELECT generate_series(30001, 60000))),
                         cuckoo_remove(f, 5), cuckoo_union(f, f), cuckoo_shrink(f), cuckoo_rotate(f, 2)) x;

-- Text and binary forms, bytea casts: a version-2 value round-trips exactly.
SELECT f::text::cuckoofilter = f AS text_round_trip,
       f::bytea::cuckoofilter = f AS bytea_round_trip,
       octet_length(f::bytea) = (cuckoo_info(f)).bytes - 4 AS bytes_match,
       get_byte(f::bytea, 4) AS version_byte
FROM v2;
COPY v2 TO '/tmp/cuckoo_growth_v2.bin' WITH (FORMAT binary);
CREATE TEMP TABLE v2_copy (f cuckoofilter);
COPY v2_copy FROM '/tmp/cuckoo_growth_v2.bin' WITH (FORMAT binary);
SELECT (SELECT f FROM v2_copy) = (SELECT f FROM v2) AS binary_copy_round_trip;

-- Union: filters created alike, grown apart, union (multiset); every member
-- of both is found.  Different creation shapes, or a fixed with a growing
-- filter, cannot be unioned.
CREATE TABLE grow_parts AS
SELECT cuckoo_add_array(cuckoo_create(200, expansion => 2), ARRAY(SELECT generate_series(1, 10000))) AS a,
       cuckoo_add_array(cuckoo_create(200, expansion => 2), ARRAY(SELECT generate_series(10001, 11000))) AS b;
SELECT (SELECT count(*) FROM generate_series(1, 11000) k WHERE u @> k) AS found_ab,
       (SELECT count(*) FROM generate_series(1, 11000) k WHERE w @> k) AS found_ba,
       (cuckoo_info(u)).items >= 11000 AS items_ab
FROM grow_parts, LATERAL (SELECT cuckoo_union(a, b) AS u, cuckoo_union(b, a) AS w OFFSET 0) x;
SELECT cuckoo_union(a, cuckoo_create(300, expansion => 2)) FROM grow_parts;
SELECT cuckoo_union(a, cuckoo_create(200)) FROM grow_parts;
SELECT cuckoo_union(a, cuckoo_add(cuckoo_create(200, expansion => 2), 'x'::text)) FROM grow_parts;
SELECT (SELECT count(*) FROM generate_series(1, 11000) k WHERE u @> k) AS union_agg_found
FROM (SELECT cuckoo_union_agg(f) AS u FROM (SELECT a AS f FROM grow_parts UNION ALL SELECT b FROM grow_parts UNION ALL SELECT NULL) s OFFSET 0) x;

-- Shrink compacts a version-2 filter: fewer buckets after deletes, the same
-- answers for every remaining value, never larger.
SELECT (cuckoo_info(s)).buckets < (cuckoo_info(r)).buckets AS fewer_buckets,
       (cuckoo_info(s)).items = (cuckoo_info(r)).items AS same_items,
       (cuckoo_info(s)).format_version AS version,
       (SELECT count(*) FROM generate_series(1, 1000) k WHERE s @> k) AS kept_found,
       (SELECT count(*) FROM generate_series(1001, 20000) k WHERE s @> k) = (SELECT count(*) FROM generate_series(1001, 20000) k WHERE r @> k) AS same_answers
FROM (SELECT r, cuckoo_shrink(r) AS s
      FROM (SELECT cuckoo_remove_array(f, ARRAY(SELECT generate_series(1001, 20000))) AS r FROM v2 OFFSET 0) x OFFSET 0) y;
SELECT (cuckoo_info(cuckoo_shrink(f))).bytes <= (cuckoo_info(f)).bytes AS never_larger,
       (SELECT count(*) FROM generate_series(1, 20000) k WHERE cuckoo_shrink(f) @> k) AS found
FROM v2;

-- cuckoo_agg(value, capacity, fpr, expansion): with expansion 2 it grows past
-- capacity; the three-argument form (and expansion 0) still fails with 54000.
SELECT (cuckoo_info(f)).items, (cuckoo_info(f)).format_version, (cuckoo_info(f)).growth_rounds > 3 AS grew,
       (SELECT count(*) FROM generate_series(1, 5000) k WHERE f @> k) AS found
FROM (SELECT cuckoo_agg(g, 200, 0.01, 2) AS f FROM generate_series(1, 5000) g OFFSET 0) s;
SELECT cuckoo_agg(g, 200, 0.01) FROM generate_series(1, 5000) g;
SELECT cuckoo_agg(g, 200, 0.01, 0) FROM generate_series(1, 5000) g;
SELECT cuckoo_agg(g, 200, 0.01, 0) = cuckoo_agg(g, 200, 0.01) AS fixed_same_bytes FROM generate_series(1, 150) g;
SELECT cuckoo_agg(g, 200, 0.01, 2 ORDER BY g) = cuckoo_add_if_absent_array(cuckoo_create(200, 0.01, expansion => 2),
                                                                            array_agg(g ORDER BY g)) AS same_as_create
FROM generate_series(1, 3000) g;
SELECT cuckoo_agg(g, 200, 0.01, 3) FROM generate_series(1, 10) g;
SELECT cuckoo_agg(g, 200, 0.01, NULL::int) FROM generate_series(1, 10) g;
SELECT cuckoo_agg(g, 200, 0.01, 2) IS NULL AS no_rows FROM generate_series(1, 0) g;
SELECT cuckoo_agg(NULL::int, 200, 0.01, 2) IS NULL AS only_nulls FROM generate_series(1, 10) g;
-- repeated values are stored once; several groups, each its own filter
SELECT g % 3 AS grp, (cuckoo_info(cuckoo_agg(g % 1000, 100, 0.01, 2))).items
FROM generate_series(1, 30000) g GROUP BY 1 ORDER BY 1;
-- a polymorphic type without a concrete overload (an enum)
CREATE TYPE grow_mood AS ENUM ('a', 'b', 'c');
SELECT cuckoo_agg(m, 1, 0.01, 2) @> 'c'::grow_mood AS enum_found
FROM unnest(enum_range(NULL::grow_mood)) m;

-- The planner's estimate for a grown filter known at plan time.
CREATE TABLE probe_me AS SELECT g AS id FROM generate_series(1, 100000) g;
ANALYZE probe_me;
SELECT format('EXPLAIN SELECT * FROM probe_me WHERE %L::cuckoofilter @> id', f) AS q FROM v2 \gset
\set QUIET on
CREATE FUNCTION explain_rows(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE q LOOP
    RETURN (regexp_match(l, 'rows=(\d+)'))[1]::int;
  END LOOP;
END $$;
\set QUIET off
SELECT explain_rows(:'q') BETWEEN 19000 AND 25000 AS estimate_near_20000;

-- The per-call-site cache with version-2 filters: a stored (TOASTed) grown
-- filter probed row after row; many grown filters of one shape probed in
-- turn at one call site (each answers for its own values); and a compressed
-- in-line one.
SELECT count(*) FILTER (WHERE id <= 20000) AS members_found,
       count(*) FILTER (WHERE id > 20000) <= 0.01 * 80000 AS fpr_ok
FROM probe_me, v2 WHERE v2.f @> probe_me.id;
CREATE TABLE many_grown AS
SELECT g AS id, cuckoo_add_array(cuckoo_create(30, expansion => 2), ARRAY(SELECT generate_series(g * 1000, g * 1000 + 99))) AS f
FROM generate_series(1, 40) g;
SELECT count(*) AS rows, bool_and(f @> (id * 1000 + 50)) AS own_found,
       count(*) FILTER (WHERE f @> ((id % 40 + 1) * 1000 + 50)) <= 2 AS others_absent
FROM many_grown;
CREATE TABLE inline_grown AS SELECT cuckoo_add(cuckoo_create(2000, expansion => 2), 7) AS f;
SELECT count(*) FILTER (WHERE f @> id) AS found FROM probe_me, inline_grown WHERE id <= 1000;
