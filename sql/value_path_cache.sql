-- The call-site cache of stored filters read whole (src/cuckoo_arg.c,
-- whole_read): a call site that meets a few stored (out-of-line) filters in
-- turn, row after row, reads each of them whole once and keeps them while
-- they fit in work_mem, keyed by their TOAST pointers; any other value goes
-- to one more slot, replaced by the next.  Before, one value was kept, so a
-- join whose inner side cycles through the filters read a filter whole on
-- every row with cuckoo.slice_read_max_keys = 0.  The answers must not
-- depend on any of it: slices, whole reads and a small switch give the same
-- answers, each row answered by its own filter, also after an UPDATE.
SET max_parallel_workers_per_gather = 0;
SET work_mem = '4MB';		-- the kept values' budget (the default)

-- Five stored filters with disjoint contents: filter i holds
-- i * 100000 + 1 .. i * 100000 + 3000; 1 to 4 fixed (version 1, 27,100
-- bytes each), 5 grown from a capacity of 500 (version 2).
CREATE TABLE vc (id int PRIMARY KEY, f cuckoofilter);
INSERT INTO vc
  SELECT i, cuckoo_agg(i * 100000 + g::bigint, 20000, 0.01)
  FROM generate_series(1, 4) i, generate_series(1, 3000) g GROUP BY i;
INSERT INTO vc
  SELECT 5, cuckoo_agg(500000 + g::bigint, 500, 0.01, 2) FROM generate_series(1, 3000) g;
SELECT id, (cuckoo_info(f)).format_version AS v, (cuckoo_info(f)).items,
       pg_column_size(f) AS bytes, pg_column_size(f) = octet_length(f::bytea) AS uncompressed
  FROM vc ORDER BY id;
-- keys: every 50th of each filter's values (present) and as many absent
-- ones past them, 120 per filter, so each filter is probed with its own keys
-- and with the 480 of the other four
CREATE TABLE vc_keys AS
  SELECT i * 100000 + g::bigint AS k, i AS owner, g <= 3000 AS present
  FROM generate_series(1, 5) i, generate_series(1, 6000, 50) g;

-- Every (filter, key) pair, the filter changing on every row: the pairs in
-- key order, each filter fetched by a subquery (its TOAST pointer, not read)
CREATE FUNCTION pg_temp.vc_probe() RETURNS TABLE (id int, k bigint, c bool, n int)
LANGUAGE sql AS $$
  SELECT x.id, x.k, cuckoo_contains((SELECT f FROM vc WHERE vc.id = x.id), x.k),
         cuckoo_count((SELECT f FROM vc WHERE vc.id = x.id), x.k)
  FROM (SELECT id, k FROM vc_keys, generate_series(1, 5) id ORDER BY k, id OFFSET 0) x
$$;
SET cuckoo.slice_read_max_keys = 0;
CREATE TEMP TABLE vc_whole AS SELECT * FROM pg_temp.vc_probe();
SET cuckoo.slice_read_max_keys = 2147483647;
CREATE TEMP TABLE vc_sliced AS SELECT * FROM pg_temp.vc_probe();
SET cuckoo.slice_read_max_keys = 3;
CREATE TEMP TABLE vc_three AS SELECT * FROM pg_temp.vc_probe();
RESET cuckoo.slice_read_max_keys;
CREATE TEMP TABLE vc_default AS SELECT * FROM pg_temp.vc_probe();
-- The same answers every way; no false negative; a key of another filter is
-- found only as a false positive (at most a few of 480 each: answering one
-- row from another row's filter would find 60 of them)
SELECT w.id, count(*) AS pairs,
       count(*) FILTER (WHERE s.c IS DISTINCT FROM w.c OR t.c IS DISTINCT FROM w.c OR d.c IS DISTINCT FROM w.c
                        OR s.n IS DISTINCT FROM w.n OR t.n IS DISTINCT FROM w.n OR d.n IS DISTINCT FROM w.n
                        OR w.c IS DISTINCT FROM (w.n > 0)) AS differ,
       count(*) FILTER (WHERE o.owner = w.id AND o.present AND NOT w.c) AS false_negatives,
       count(*) FILTER (WHERE o.owner = w.id AND o.present AND w.c) AS own_found,
       count(*) FILTER (WHERE o.owner <> w.id AND w.c) AS others_found
  FROM vc_whole w JOIN vc_sliced s USING (id, k) JOIN vc_three t USING (id, k)
  JOIN vc_default d USING (id, k) JOIN vc_keys o ON o.k = w.k
 GROUP BY w.id ORDER BY w.id;

-- The LATERAL form of the same (a join the planner may run either way
-- round): the same answers with whole reads as with slices
SET cuckoo.slice_read_max_keys = 0;
CREATE TEMP TABLE vc_lat_whole AS
  SELECT v.id, s.k, s.c FROM vc v, LATERAL (SELECT k, cuckoo_contains(v.f, k) AS c FROM vc_keys) s;
RESET cuckoo.slice_read_max_keys;
SELECT count(*) AS pairs, count(*) FILTER (WHERE l.c IS DISTINCT FROM w.c) AS differ
  FROM vc_lat_whole l JOIN vc_whole w USING (id, k);

-- Whole reads counted (DEBUG1 names each one): 5 filters met in turn, 2
-- keys each (10 rows, each filter from a subquery), read whole once each
-- and kept
SET cuckoo.slice_read_max_keys = 0;
SET client_min_messages = debug1;
SELECT count(*) FILTER (WHERE cuckoo_contains((SELECT f FROM vc WHERE vc.id = x.id), x.k)) AS found,
       count(*) AS pairs
  FROM (SELECT id, k FROM vc_keys, generate_series(1, 5) id
         WHERE k IN (100001, 200001) ORDER BY k, id OFFSET 0) x;
-- work_mem of 64 kB keeps two of them (54,192 bytes); the other three take
-- turns in the last slot, each read whole again when it comes back
SET work_mem = '64kB';
SELECT count(*) FILTER (WHERE cuckoo_contains((SELECT f FROM vc WHERE vc.id = x.id), x.k)) AS found,
       count(*) AS pairs
  FROM (SELECT id, k FROM vc_keys, generate_series(1, 5) id
         WHERE k IN (100001, 200001) ORDER BY k, id OFFSET 0) x;
SET work_mem = '4MB';
-- The switch from slices to one whole read counts a value's keys across the
-- rows where other values come between: with cuckoo.slice_read_max_keys = 3,
-- 5 filters met in turn, 12 keys each, each is read by slices for 3 keys,
-- then whole once (and kept)
SET cuckoo.slice_read_max_keys = 3;
SELECT count(*) FILTER (WHERE cuckoo_contains((SELECT f FROM vc WHERE vc.id = x.id), x.k)) AS found,
       count(*) AS pairs
  FROM (SELECT id, k FROM vc_keys, generate_series(1, 5) id
         WHERE k % 100000 <= 251 AND k < 300000 ORDER BY k, id OFFSET 0) x;
-- ... but only those that will be kept: with work_mem of 64 kB, filters 1
-- and 2 met in turn are (kept); then filter 4, 6 keys in a row, is read
-- whole after 3 of them, but only until the next one comes; then filters
-- 3, 4 and 5 met in turn: 3 and 5 are never read whole (each would be read
-- whole again every time it came back), 4 still answers from its copy
SET work_mem = '64kB';
SELECT phase, id, count(*) FILTER (WHERE c) AS found, count(*) AS pairs
  FROM (SELECT x.phase, x.id, cuckoo_contains((SELECT f FROM vc WHERE vc.id = x.id), x.k) AS c
          FROM (SELECT 1 AS phase, id, k FROM vc_keys, generate_series(1, 2) id
                 WHERE owner <= 2 AND k % 100000 <= 251
                UNION ALL
                SELECT 2, 4, k FROM vc_keys WHERE owner = 4 AND k % 100000 <= 251
                UNION ALL
                SELECT 3, id, k FROM vc_keys, generate_series(3, 5) id
                 WHERE owner = 4 AND k % 100000 <= 251
                ORDER BY 1, 3, 2 OFFSET 0) x
        OFFSET 0) y
 GROUP BY phase, id ORDER BY phase, id;
SET work_mem = '4MB';
RESET cuckoo.slice_read_max_keys;
RESET client_min_messages;

-- An UPDATE between statements, in one transaction and after it: the
-- updated row's new value (a new TOAST pointer) is read, never the old one
-- kept (filter 2 gains 777777; filter 3 loses 300001 .. 300500)
BEGIN;
UPDATE vc SET f = cuckoo_add(f, 777777::bigint) WHERE id = 2;
UPDATE vc SET f = cuckoo_remove_array(f, ARRAY(SELECT 300000 + g::bigint FROM generate_series(1, 500) g))
 WHERE id = 3;
SET LOCAL cuckoo.slice_read_max_keys = 0;
SELECT v.id, cuckoo_contains(v.f, 777777::bigint) AS has_777777,
       (SELECT count(*) FROM vc_keys o WHERE o.owner = v.id AND o.present AND cuckoo_contains(v.f, o.k)) AS own_found
  FROM vc v, generate_series(1, 3) r ORDER BY r, v.id;
COMMIT;
SET cuckoo.slice_read_max_keys = 0;
CREATE TEMP TABLE vc_after AS SELECT * FROM pg_temp.vc_probe();
SET cuckoo.slice_read_max_keys = 2147483647;
CREATE TEMP TABLE vc_after_sliced AS SELECT * FROM pg_temp.vc_probe();
RESET cuckoo.slice_read_max_keys;
-- only filter 3's own answers changed (the 10 keys of 300001 .. 300500, and
-- maybe a false positive of another key)
SELECT a.id, count(*) FILTER (WHERE a.c IS DISTINCT FROM s.c OR a.n IS DISTINCT FROM s.n) AS differ,
       count(*) FILTER (WHERE a.c IS DISTINCT FROM w.c) AS changed,
       count(*) FILTER (WHERE a.c IS DISTINCT FROM w.c AND a.k BETWEEN 300001 AND 300500) AS changed_removed
  FROM vc_after a JOIN vc_after_sliced s USING (id, k) JOIN vc_whole w USING (id, k)
 GROUP BY a.id ORDER BY a.id;

-- VACUUM FULL keeps each value's TOAST pointer for the same bytes: the
-- answers stay
VACUUM FULL vc;
SET cuckoo.slice_read_max_keys = 0;
SELECT count(*) AS pairs, count(*) FILTER (WHERE p.c IS DISTINCT FROM a.c OR p.n IS DISTINCT FROM a.n) AS differ
  FROM pg_temp.vc_probe() p JOIN vc_after a USING (id, k);
RESET cuckoo.slice_read_max_keys;

DROP TABLE vc, vc_keys;
