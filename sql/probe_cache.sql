-- The per-call-site probe cache (cuckoo_probe_arg): consecutive rows that
-- carry different filters of the same shape (identical headers apart from
-- the item count, or even identical headers) must each be probed with their
-- own bytes, whatever the storage: in line, compressed in line, out of line.
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE pc_keys AS SELECT g::bigint AS k FROM generate_series(1, 2000) g;
-- Two filters of one shape: odd keys and even keys, 500 each.
CREATE TEMP TABLE pc_src AS
  SELECT 'odd'::text AS name, cuckoo_agg(k, 4000, 0.001) AS f FROM pc_keys WHERE k % 2 = 1 AND k <= 1000
  UNION ALL
  SELECT 'even', cuckoo_agg(k, 4000, 0.001) FROM pc_keys WHERE k % 2 = 0 AND k <= 1000;
SELECT name, (cuckoo_info(f)).items, (cuckoo_info(f)).bytes FROM pc_src ORDER BY name;
-- Same header bytes except the item count?  Make a third filter with the
-- same count as 'odd' but other keys, so the 48-byte headers are identical.
INSERT INTO pc_src SELECT 'odd2', cuckoo_agg(k, 4000, 0.001) FROM pc_keys WHERE k % 2 = 1 AND k > 1000;
SELECT count(DISTINCT substr(cuckoo_send(f), 1, 48)) AS distinct_headers FROM pc_src WHERE name IN ('odd', 'odd2');

-- Each storage: plain in line, compressed in line (pglz), out of line
-- uncompressed (external), out of line compressed (extended).
CREATE TEMP TABLE pc_plain (id int, name text, f cuckoofilter);
ALTER TABLE pc_plain ALTER COLUMN f SET STORAGE plain;
CREATE TEMP TABLE pc_main (id int, name text, f cuckoofilter);
ALTER TABLE pc_main ALTER COLUMN f SET STORAGE main;
CREATE TEMP TABLE pc_ext (id int, name text, f cuckoofilter);
ALTER TABLE pc_ext ALTER COLUMN f SET STORAGE external;
-- Rows alternate between the filters, so every row switches filter (the
-- bytea cast makes fresh, uncompressed values).
INSERT INTO pc_plain SELECT g, s.name, cuckoo_send(s.f)::cuckoofilter FROM generate_series(1, 30) g JOIN pc_src s ON s.name = (ARRAY['odd','even','odd2'])[1 + g % 3];
INSERT INTO pc_main SELECT * FROM pc_plain;
INSERT INTO pc_ext SELECT * FROM pc_plain;
-- How each is stored: compressed or not (the compressed size depends on the
-- PostgreSQL version's compressor, so only "smaller than the raw value" is
-- shown; PostgreSQL keeps a compressed value only when it is smaller, and
-- pg_column_compression() does not exist before 14), and out of line (the
-- TOAST table has chunks) or not.
SELECT 'plain' AS t, count(*) FILTER (WHERE pg_column_size(f) < octet_length(cuckoo_send(f))) AS compressed,
       bool_and(pg_column_size(f) < octet_length(cuckoo_send(f))) AS all_smaller FROM pc_plain
UNION ALL SELECT 'main', count(*) FILTER (WHERE pg_column_size(f) < octet_length(cuckoo_send(f))),
       bool_and(pg_column_size(f) < octet_length(cuckoo_send(f))) FROM pc_main
UNION ALL SELECT 'external', count(*) FILTER (WHERE pg_column_size(f) < octet_length(cuckoo_send(f))),
       bool_and(pg_column_size(f) < octet_length(cuckoo_send(f))) FROM pc_ext;
SELECT c.relname, pg_relation_size(c.reltoastrelid) > 0 AS out_of_line
FROM pg_class c WHERE c.relname IN ('pc_plain', 'pc_main', 'pc_ext') ORDER BY 1;

-- For every row and key, the answer must match the row's own filter:
-- members always found; a non-member found only as a false positive, which
-- must then also be reported by probing that filter alone.
CREATE TEMP TABLE pc_truth AS
  SELECT s.name, k.k, cuckoo_contains(s.f, k.k) AS ans FROM pc_src s, pc_keys k;
SELECT count(*) FILTER (WHERE NOT ans AND ((name = 'odd' AND k % 2 = 1 AND k <= 1000) OR
                                          (name = 'even' AND k % 2 = 0 AND k <= 1000) OR
                                          (name = 'odd2' AND k % 2 = 1 AND k > 1000))) AS false_negatives,
       count(*) FILTER (WHERE ans) AS positives
FROM pc_truth;
-- Join-column probes, row after row, against the truth; nested loops with the
-- filter rows innermost, so the filter argument changes every row (the
-- truth is looked up through its index: a scan of it per key would cost
-- 12 million comparisons a storage).
CREATE INDEX pc_truth_k ON pc_truth (k, name);
ANALYZE pc_truth, pc_keys, pc_plain, pc_main, pc_ext;
SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT 'plain' AS t, count(*) FILTER (WHERE cuckoo_contains(p.f, k.k) <> t.ans) AS wrong, count(*) AS probes
FROM pc_plain p CROSS JOIN pc_keys k JOIN pc_truth t ON t.name = p.name AND t.k = k.k
UNION ALL
SELECT 'main', count(*) FILTER (WHERE cuckoo_contains(p.f, k.k) <> t.ans), count(*)
FROM pc_main p CROSS JOIN pc_keys k JOIN pc_truth t ON t.name = p.name AND t.k = k.k
UNION ALL
SELECT 'external', count(*) FILTER (WHERE cuckoo_contains(p.f, k.k) <> t.ans), count(*)
FROM pc_ext p CROSS JOIN pc_keys k JOIN pc_truth t ON t.name = p.name AND t.k = k.k;
-- Keys on the outer side, filters inner: the filter changes every row too.
SELECT count(*) FILTER (WHERE (SELECT bool_and(cuckoo_contains(p.f, k.k) = t.ans)
                               FROM pc_ext p JOIN pc_truth t ON t.name = p.name AND t.k = k.k)
                        IS NOT TRUE) AS keys_with_a_wrong_answer
FROM pc_keys k;
-- cuckoo_count through the same cache agrees with a fresh probe.
SELECT count(*) FILTER (WHERE cuckoo_count(p.f, k.k) <> cuckoo_count(cuckoo_send(p.f)::bytea::cuckoofilter, k.k)) AS count_mismatch
FROM pc_main p CROSS JOIN pc_keys k WHERE p.id <= 6;
RESET enable_hashjoin; RESET enable_mergejoin;

-- cuckoo_contains_array hashes in chunks of 1024 and looks them up together:
-- arrays longer than a chunk, with NULLs in them, answer element by element
-- as cuckoo_contains does.
WITH a AS (SELECT array_agg(CASE WHEN g % 97 = 0 THEN NULL ELSE g::bigint END ORDER BY g) AS arr
           FROM generate_series(1, 2600) g),
     b AS MATERIALIZED (SELECT s.name, s.f, cuckoo_contains_array(s.f, a.arr) AS res, a.arr FROM pc_src s, a),
     r AS (SELECT b.name, u.v, u.ord, cuckoo_contains(b.f, u.v) AS single, b.res[u.ord] AS batched
           FROM b, unnest(b.arr) WITH ORDINALITY u(v, ord))
SELECT count(*) AS elements,
       count(*) FILTER (WHERE v IS NULL) AS nulls,
       count(*) FILTER (WHERE single IS DISTINCT FROM batched) AS differ,
       count(*) FILTER (WHERE batched) AS found
FROM r;
SELECT cuckoo_contains_array(f, '{}'::bigint[]) AS empty, cuckoo_contains_array(f, ARRAY[NULL::bigint]) AS just_null,
       cuckoo_contains_array(f, '{{1,2},{3,NULL}}'::bigint[]) AS two_d
FROM pc_src WHERE name = 'odd';
