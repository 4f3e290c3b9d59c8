-- Rolling windows (1.2): cuckoo_rotate(f, keep) starts a new generation and
-- drops the generations older than the last keep.  Works on any filter; the
-- result is format version 2.
\set VERBOSITY default

-- keep out of 1 .. 255: 22023 with the range; NULL filter or keep: NULL.
SELECT cuckoo_rotate(cuckoo_create(10), 0);
SELECT cuckoo_rotate(cuckoo_create(10), 256);
SELECT cuckoo_rotate(cuckoo_create(10), -1);
SELECT cuckoo_rotate(NULL::cuckoofilter, 2) IS NULL AS null_filter,
       cuckoo_rotate(cuckoo_create(10), NULL) IS NULL AS null_keep,
       cuckoo_rotate(NULL::cuckoofilter, 0) IS NULL AS null_filter_bad_keep;
DO $$
DECLARE
  k int;
BEGIN
  FOREACH k IN ARRAY ARRAY[0, 256, -5, 100000] LOOP
    BEGIN
      PERFORM cuckoo_rotate(cuckoo_create(10), k);
      RAISE NOTICE 'keep % succeeded', k;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'keep % -> %', k, SQLSTATE;
    END;
  END LOOP;
END $$;

-- A 1.0-style fixed filter rotated: version 2, no tail bits, generation
-- tags; its items are all kept (they are the newest complete generation).
SELECT format_version, expansion, tail_bits, generation_bits > 0 AS tagged, generation, keep,
       items, generation_items, buckets = (cuckoo_info(cuckoo_create(1000))).buckets AS same_buckets
FROM cuckoo_info(cuckoo_rotate(cuckoo_add_array(cuckoo_create(1000), ARRAY(SELECT generate_series(1, 500))), 3));
SELECT (SELECT count(*) FROM generate_series(1, 500) k WHERE r @> k) AS found
FROM (SELECT cuckoo_rotate(cuckoo_add_array(cuckoo_create(1000), ARRAY(SELECT generate_series(1, 500))), 3) AS r OFFSET 0) s;
-- every filter shape can be rotated, and still finds its values
SELECT shape, (cuckoo_info(r)).format_version, (SELECT count(*) FROM generate_series(1, 300) k WHERE r @> k) AS found
FROM (VALUES ('b2', cuckoo_create(400, 0.05, 2)), ('b8', cuckoo_create(400, 0.001, 8)),
             ('semisort', cuckoo_create(400, semisort => true)), ('f30', cuckoo_create(400, fingerprint_bits => 30)),
             ('growing', cuckoo_create(20, expansion => 2))) v(shape, f),
     LATERAL (SELECT cuckoo_rotate(cuckoo_add_array(f, ARRAY(SELECT generate_series(1, 300))), 2) AS r OFFSET 0) x
ORDER BY shape;
-- a generation tag must fit beside the fingerprint in 32 bits
SELECT cuckoo_rotate(cuckoo_create(400, fingerprint_bits => 30), 2) IS NOT NULL AS f30_keep_2;
SELECT cuckoo_rotate(cuckoo_create(400, fingerprint_bits => 30), 4);
SELECT cuckoo_rotate(cuckoo_create(400, fingerprint_bits => 32), 1);

-- A rolling window of 3 periods: 1,000 new values per period, one rotate
-- after each.  The values of the last 3 periods are found; older ones are
-- gone (found only at the false-positive rate); items and the
-- per-generation counts (newest first) follow.
CREATE TABLE win (f cuckoofilter);
INSERT INTO win VALUES (cuckoo_create(1000, 0.01, expansion => 2));
CREATE TABLE win_log (period int, items bigint, generation_items bigint[], recent_found bigint, old_found bigint);
DO $$
BEGIN
  FOR p IN 1..6 LOOP
    UPDATE win SET f = cuckoo_rotate(cuckoo_add_array(f, ARRAY(SELECT generate_series(p * 1000 + 1, p * 1000 + 1000))), 3);
    INSERT INTO win_log
    SELECT p, i.items, i.generation_items,
           (SELECT count(*) FROM generate_series(greatest(1, p - 1) * 1000 + 1, p * 1000 + 1000) k WHERE f @> k),
           (SELECT count(*) FROM generate_series(1001, greatest(1, p - 1) * 1000) k WHERE f @> k)
    FROM win, cuckoo_info(f) i;
  END LOOP;
END $$;
-- after the rotate that ends period p, the live generations are the new,
-- empty one (it counts among the 3 kept: it is the one being filled) and
-- those of periods p and p-1
SELECT period, items, generation_items, recent_found, old_found <= 0.01 * (greatest(1, period - 1) - 1) * 1000 + 5 AS old_gone
FROM win_log ORDER BY period;
-- values added after the last rotate are in the newest generation
SELECT (cuckoo_info(f)).generation_items[1] AS newest, (cuckoo_info(f)).items
FROM (SELECT cuckoo_add_array(f, ARRAY[1, 2, 3]) AS f FROM win OFFSET 0) s;

-- Removing from a rotated filter: the value goes, every other stays found.
SELECT (cuckoo_info(r)).items AS items, r @> 6001 AS removed_gone_or_fp,
       (SELECT count(*) FROM generate_series(6002, 7000) k WHERE r @> k) AS others_found
FROM (SELECT cuckoo_remove(f, 6001) AS r FROM win OFFSET 0) s;

-- keep may change: a larger keep widens the generation tags (the values of
-- the generation before survive both rotates: 2 kept, then 200).
SELECT (cuckoo_info(r2)).keep, (cuckoo_info(r2)).generation_bits >= (cuckoo_info(r1)).generation_bits AS wider,
       (SELECT count(*) FROM generate_series(1, 100) k WHERE r2 @> k) AS found
FROM (SELECT r1, cuckoo_rotate(r1, 200) AS r2
      FROM (SELECT cuckoo_rotate(cuckoo_add_array(cuckoo_create(100), ARRAY(SELECT generate_series(1, 100))), 2) AS r1 OFFSET 0) a OFFSET 0) b;
-- keep 1: each rotate drops everything added before it
SELECT (cuckoo_info(r)).items AS items,
       (SELECT count(*) FROM generate_series(1, 500) k WHERE r @> k) <= 10 AS dropped
FROM (SELECT cuckoo_rotate(cuckoo_rotate(cuckoo_add_array(cuckoo_create(1000), ARRAY(SELECT generate_series(1, 500))), 1), 1) AS r OFFSET 0) s;

-- A rotated filter keeps growing; text and binary forms round-trip; the
-- argument is never modified.
SELECT (cuckoo_info(g)).growth_rounds > 0 AS grew, (SELECT count(*) FROM generate_series(1, 5000) k WHERE g @> k) AS found,
       g::text::cuckoofilter = g AS text_round_trip, g::bytea::cuckoofilter = g AS bytea_round_trip
FROM (SELECT cuckoo_add_array(cuckoo_rotate(cuckoo_create(100, expansion => 2), 4), ARRAY(SELECT generate_series(1, 5000))) AS g OFFSET 0) s;
SELECT md5(f::bytea) = md5((SELECT f FROM win)::bytea) AS unchanged
FROM win, LATERAL (SELECT cuckoo_rotate(f, 1)) x;

-- Union of rotated filters, shrink of a rotated filter, union_agg.
SELECT (SELECT count(*) FROM generate_series(1, 2000) k WHERE u @> k) AS union_found
FROM (SELECT cuckoo_union(cuckoo_rotate(cuckoo_add_array(cuckoo_create(3000), ARRAY(SELECT generate_series(1, 1000))), 2),
                          cuckoo_rotate(cuckoo_add_array(cuckoo_create(3000), ARRAY(SELECT generate_series(1001, 2000))), 2)) AS u OFFSET 0) s;
SELECT (SELECT count(*) FROM generate_series(6001, 7000) k WHERE s @> k) AS shrink_found,
       (cuckoo_info(s)).items = (cuckoo_info(f)).items AS same_items
FROM win, LATERAL (SELECT cuckoo_shrink(f) AS s OFFSET 0) x;
