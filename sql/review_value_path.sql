-- Review (issue 21, the value path): slices answer exactly as whole reads
-- for shapes sql/value_path.sql does not store: full fixed filters whose
-- victim slot is in use (b = 2, 4, 8, semi-sorted), empty filters (fixed
-- and growing, kind not yet set; of capacity 30,000: 41 kB and 105 kB, out
-- of line; at 300,000, 402 kB and 884 kB, their whole reads took 80% of
-- the file's time), a filter grown 7 times and the same
-- rotated twice, and filters of a few TOAST chunks (where most bucket pairs lie in
-- different chunks or straddle a chunk boundary).
SET max_parallel_workers_per_gather = 0;

-- rvp_fill(f): f with the longest prefix 1 .. n of bigint keys it takes
-- before it is full (the last insert that succeeds may leave its
-- fingerprint in the victim slot)
CREATE FUNCTION pg_temp.rvp_fill(f cuckoofilter) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
DECLARE
  i bigint := 0;
  chunk int := 4096;
  g cuckoofilter;
BEGIN
  WHILE chunk >= 1 LOOP
    BEGIN
      g := cuckoo_add_array(f, ARRAY(SELECT x::bigint FROM generate_series(i + 1, i + chunk) x));
      f := g;
      i := i + chunk;
    EXCEPTION WHEN program_limit_exceeded OR insufficient_resources OR others THEN
      chunk := chunk / 2;
    END;
  END LOOP;
  RETURN f;
END $$;

CREATE TABLE rvp (name text PRIMARY KEY, f cuckoofilter);
INSERT INTO rvp VALUES
  ('full_b2', pg_temp.rvp_fill(cuckoo_create(6000, 0.01, 2))),
  ('full_b4', pg_temp.rvp_fill(cuckoo_create(6000, 0.01, 4))),
  ('full_b8', pg_temp.rvp_fill(cuckoo_create(6000, 0.001, 8))),
  ('full_ss', pg_temp.rvp_fill(cuckoo_create(6000, 0.001, semisort => true))),
  ('empty_fixed', cuckoo_create(30000, 0.01)),
  ('empty_growing', cuckoo_create(30000, 0.01, expansion => 2)),
  ('grown', cuckoo_add_array(cuckoo_create(300, 0.01, expansion => 2),
                             ARRAY(SELECT x::bigint FROM generate_series(1, 30000) x)));
INSERT INTO rvp
  SELECT 'rotated2', cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(f, 2),
           ARRAY(SELECT x::bigint FROM generate_series(30001, 35000) x)), 2),
           ARRAY(SELECT x::bigint FROM generate_series(35001, 40000) x))
  FROM rvp WHERE name = 'grown';
-- stored out of line, uncompressed; the full ones hold a victim (b = 2, 4
-- and semi-sorted here) and refuse one more key
SELECT name, (cuckoo_info(f)).format_version AS v, (cuckoo_info(f)).bucket_size AS b,
       (cuckoo_info(f)).semisort AS ss, (cuckoo_info(f)).items, (cuckoo_info(f)).is_full AS victim,
       (cuckoo_info(f)).growth_rounds AS grown, (cuckoo_info(f)).value_type, pg_column_size(f) = octet_length(f::bytea) AS uncompressed,
       pg_column_size(f) > 4000 AS out_of_line
  FROM rvp ORDER BY name;

-- every third key of 1 .. 45000 and a few far ones, by slices, and every
-- fourth of them whole (a whole read copies the value: under ASan the whole
-- reads of every key took 17 of the file's 42 s), with cuckoo_contains, @>,
-- cuckoo_count and cuckoo_contains_array
CREATE TEMP TABLE rvp_keys AS
  SELECT g::bigint AS k FROM generate_series(1, 45000, 3) g
  UNION ALL SELECT g::bigint * 1000003 FROM generate_series(1, 2000) g;
SET cuckoo.slice_read_max_keys = 2147483647;
CREATE TEMP TABLE rvp_s AS
  SELECT name, k, cuckoo_contains(f, k) AS c, f @> k AS o, cuckoo_count(f, k) AS n
  FROM rvp, rvp_keys;
CREATE TEMP TABLE rvp_sa AS
  SELECT name, cuckoo_contains_array(f, ARRAY(SELECT k FROM rvp_keys WHERE k % 20 = 7 ORDER BY k)) AS a
  FROM rvp;
SET cuckoo.slice_read_max_keys = 0;
CREATE TEMP TABLE rvp_w AS
  SELECT name, k, cuckoo_contains(f, k) AS c, f @> k AS o, cuckoo_count(f, k) AS n
  FROM rvp, rvp_keys WHERE k % 4 = 1;
CREATE TEMP TABLE rvp_wa AS
  SELECT name, cuckoo_contains_array(f, ARRAY(SELECT k FROM rvp_keys WHERE k % 20 = 7 ORDER BY k)) AS a
  FROM rvp;
RESET cuckoo.slice_read_max_keys;
SELECT s.name, count(*) AS keys, count(w.k) AS compared,
       count(*) FILTER (WHERE (w.k IS NOT NULL AND (s.c IS DISTINCT FROM w.c OR s.o IS DISTINCT FROM w.o
                                                   OR s.n IS DISTINCT FROM w.n))
                        OR s.c IS DISTINCT FROM s.o OR s.c IS DISTINCT FROM (s.n > 0)) AS differ,
       count(*) FILTER (WHERE s.c) AS found,
       count(*) FILTER (WHERE s.k <= i.items AND s.name NOT LIKE 'rotated%' AND NOT s.c) AS false_negatives
  FROM rvp_s s LEFT JOIN rvp_w w USING (name, k)
       JOIN (SELECT name, (cuckoo_info(f)).items FROM rvp) i USING (name)
 GROUP BY s.name ORDER BY s.name;
SELECT s.name, cardinality(s.a) AS answers, s.a IS NOT DISTINCT FROM w.a AS same
  FROM rvp_sa s JOIN rvp_wa w USING (name) ORDER BY s.name;
-- the rotated filter keeps every key of its last two generations
SELECT count(*) FILTER (WHERE NOT c) AS false_negatives
  FROM rvp_s WHERE name = 'rotated2' AND k BETWEEN 30001 AND 40000;

-- the same by one statement per key (a new call site each time, so each
-- reads its header and the key's slices only)
SELECT name, cuckoo_contains(f, 1::bigint) AS one, cuckoo_count(f, 2::bigint) AS two,
       cuckoo_contains(f, 1000003::bigint * 1999) AS far
  FROM rvp ORDER BY name;

DROP TABLE rvp;
