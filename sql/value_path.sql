-- The value path (issue 21, point 1): the type is stored EXTERNAL from 1.3,
-- and cuckoo_contains / cuckoo_count read a stored (out-of-line,
-- uncompressed) filter by slices: its header, then the TOAST chunks of the
-- key's two buckets, until the call site has probed enough keys that one
-- whole read is cheaper.  Slices answer exactly as whole reads, for both
-- formats; a damaged stored value is still refused.
SET max_parallel_workers_per_gather = 0;

-- EXTERNAL by default: new columns, and columns of a domain over the type
SELECT typname, typstorage FROM pg_type
 WHERE typname IN ('cuckoofilter', '_cuckoofilter') ORDER BY typname;
CREATE DOMAIN vp_dom AS cuckoofilter;
CREATE TABLE vp (name text PRIMARY KEY, f cuckoofilter, d vp_dom);
SELECT attname, attstorage FROM pg_attribute
 WHERE attrelid = 'vp'::regclass AND attname IN ('f', 'd') ORDER BY attname;

-- Stored filters of both formats, large enough to be stored out of line:
-- fixed (version 1), growing grown 50 times (version 2), rotated (version 2
-- with generation counts in the header: a header of more than 64 bytes)
INSERT INTO vp (name, f)
  SELECT 'fixed', cuckoo_agg(g::bigint, 200000, 0.01) FROM generate_series(1, 150000) g
  UNION ALL
  SELECT 'grown', cuckoo_agg(g::bigint, 2000, 0.01, 2) FROM generate_series(1, 100000) g
  UNION ALL
  SELECT 'semisorted', cuckoo_add_array(cuckoo_create(200000, 0.001, semisort => true),
                                        ARRAY(SELECT g::bigint FROM generate_series(1, 150000) g))
  UNION ALL
  SELECT 'bucket8', cuckoo_add_array(cuckoo_create(200000, 0.001, 8),
                                     ARRAY(SELECT g::bigint FROM generate_series(1, 150000) g))
  UNION ALL
  SELECT 'bucket2', cuckoo_add_array(cuckoo_create(200000, 0.01, 2),
                                     ARRAY(SELECT g::bigint FROM generate_series(1, 150000) g));
INSERT INTO vp (name, f)
  SELECT 'rotated', cuckoo_add_array(cuckoo_rotate(f, 3), ARRAY(SELECT g::bigint FROM generate_series(100001, 120000) g))
  FROM vp WHERE name = 'grown';
UPDATE vp SET d = f WHERE name = 'fixed';
-- out of line and uncompressed: the stored size is the value's size
SELECT name, (cuckoo_info(f)).format_version, (cuckoo_info(f)).items,
       (cuckoo_info(f)).bucket_size, (cuckoo_info(f)).semisort,
       pg_column_size(f) = octet_length(f::bytea) AS uncompressed,
       pg_column_size(f) > 100000 AS large
  FROM vp ORDER BY name;

-- Slices for every key, then whole reads for every fourth of them: the same
-- answers, keys present (1 .. items) and absent (beyond; the growing filters
-- carry the address budget, so among 8,065 absent keys they match none).
-- Every 31st key by slices, every 124th whole: a whole read copies the
-- whole value (267 to 433 kB; 0.7 ms under ASan), so the number of whole
-- reads is what the test's time is made of (every 7th key both ways: 38 s,
-- 57,143 keys of each filter)
SET cuckoo.slice_read_max_keys = 2147483647;
CREATE TEMP TABLE vp_sliced AS
  SELECT name, g, cuckoo_contains(f, g::bigint) AS c, cuckoo_count(f, g::bigint) AS n
  FROM vp, generate_series(1, 400000, 31) g;
SELECT count(*) FILTER (WHERE cuckoo_contains(d, g::bigint)) AS domain_members
  FROM vp, generate_series(1, 150000) g WHERE name = 'fixed';
SET cuckoo.slice_read_max_keys = 0;
CREATE TEMP TABLE vp_whole AS
  SELECT name, g, cuckoo_contains(f, g::bigint) AS c, cuckoo_count(f, g::bigint) AS n
  FROM vp, generate_series(1, 400000, 124) g;
RESET cuckoo.slice_read_max_keys;
SELECT s.name, count(*) AS keys, count(w.g) AS compared,
       count(*) FILTER (WHERE w.g IS NOT NULL AND (s.c IS DISTINCT FROM w.c OR s.n IS DISTINCT FROM w.n)) AS differ,
       count(*) FILTER (WHERE s.g <= CASE s.name WHEN 'rotated' THEN 120000 WHEN 'grown' THEN 100000 ELSE 150000 END
                        AND NOT s.c) AS false_negatives,
       count(*) FILTER (WHERE s.g > 150000 AND s.c) > 0 AS some_false_positives
  FROM vp_sliced s LEFT JOIN vp_whole w USING (name, g)
 GROUP BY s.name ORDER BY s.name;

-- One key per statement, as an application probes: slices, same answers
SELECT name, cuckoo_contains(f, 42::bigint), cuckoo_contains(f, 399999::bigint), f @> 77::bigint
  FROM vp ORDER BY name;

-- cuckoo_contains_array of up to 1024 elements: hashed first, then by slices
-- (NULL elements answer NULL); 1024 exactly, and 1025 (read whole)
SET cuckoo.slice_read_max_keys = 2147483647;
CREATE TEMP TABLE vp_arr_sliced AS
  SELECT name, n, cuckoo_contains_array(f, ARRAY(SELECT CASE WHEN g % 100 = 0 THEN NULL ELSE g * 97 END::bigint
                                                 FROM generate_series(1, n) g)) AS a
  FROM vp, (VALUES (3), (1024), (1025)) v(n);
SET cuckoo.slice_read_max_keys = 0;
CREATE TEMP TABLE vp_arr_whole AS
  SELECT name, n, cuckoo_contains_array(f, ARRAY(SELECT CASE WHEN g % 100 = 0 THEN NULL ELSE g * 97 END::bigint
                                                 FROM generate_series(1, n) g)) AS a
  FROM vp, (VALUES (3), (1024), (1025)) v(n);
RESET cuckoo.slice_read_max_keys;
SELECT n, count(*) AS filters, count(*) FILTER (WHERE s.a IS DISTINCT FROM w.a) AS differ,
       sum(cardinality(s.a)) AS answers,
       sum((SELECT count(*) FROM unnest(s.a) x WHERE x IS NULL)) AS null_answers
  FROM vp_arr_sliced s JOIN vp_arr_whole w USING (name, n) GROUP BY n ORDER BY n;

-- The call-site switch: with cuckoo.slice_read_max_keys = 5 a call site
-- reads 5 keys by slices, then the filter whole (once: DEBUG1 says when);
-- the answers do not change.  By default the switch comes after
-- bytes / 16384 keys (src/cuckoo_arg.c, SLICE_KEY_BYTES).
SET cuckoo.slice_read_max_keys = 5;
SET client_min_messages = debug1;
SELECT count(*) FILTER (WHERE cuckoo_contains(f, g::bigint)) AS found
  FROM vp, generate_series(1, 20) g WHERE name = 'fixed';
RESET cuckoo.slice_read_max_keys;
SELECT count(*) FILTER (WHERE cuckoo_contains(f, g::bigint)) AS found
  FROM vp, generate_series(1, 40) g WHERE name = 'grown';
RESET client_min_messages;

-- A compressed stored value keeps the whole read (a sparse filter compresses)
CREATE TABLE vp_x (f cuckoofilter);
ALTER TABLE vp_x ALTER COLUMN f SET STORAGE extended;
INSERT INTO vp_x SELECT cuckoo_agg(g::bigint, 200000, 0.01) FROM generate_series(1, 100) g;
SELECT pg_column_size(f) < octet_length(f::bytea) AS compressed,
       (SELECT count(*) FROM generate_series(1, 100) g WHERE cuckoo_contains(f, g::bigint)) AS found
  FROM vp_x;

-- A damaged stored value is refused by the slice path as by the whole read.
-- (A superuser's function that labels any bytes a cuckoofilter: the only way
-- to store bytes the type's input would refuse.)
CREATE FUNCTION pg_temp.vp_unchecked(bytea) RETURNS cuckoofilter
  LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';
CREATE TABLE vp_bad (name text, f cuckoofilter);
-- the bucket count of the header changed (the length no longer matches)
INSERT INTO vp_bad SELECT 'buckets', pg_temp.vp_unchecked(set_byte(f::bytea, 17, get_byte(f::bytea, 17) # 1))
  FROM vp WHERE name = 'fixed';
-- the magic changed
INSERT INTO vp_bad SELECT 'magic', pg_temp.vp_unchecked(set_byte(f::bytea, 0, 0))
  FROM vp WHERE name = 'grown';
SELECT name, pg_column_size(f) = octet_length(f::bytea) AS uncompressed FROM vp_bad ORDER BY name;
SET cuckoo.slice_read_max_keys = 2147483647;
SELECT cuckoo_contains(f, 1::bigint) FROM vp_bad WHERE name = 'buckets';
SELECT cuckoo_count(f, 1::bigint) FROM vp_bad WHERE name = 'magic';
SET cuckoo.slice_read_max_keys = 0;
SELECT cuckoo_contains(f, 1::bigint) FROM vp_bad WHERE name = 'buckets';
SELECT cuckoo_count(f, 1::bigint) FROM vp_bad WHERE name = 'magic';
RESET cuckoo.slice_read_max_keys;

-- the setting's range
SET cuckoo.slice_read_max_keys = -2;

DROP TABLE vp, vp_x, vp_bad;
DROP DOMAIN vp_dom;
