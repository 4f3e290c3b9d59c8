-- Stored filters keep each segment as chunk rows (segment, chunk, bytes),
-- extension 1.6 (docs/FORMAT.md section 14, docs/DESIGN.md "Growth"): a
-- grown store's chunks, the rows a one-key change writes (chunk 0 and the
-- chunks whose bytes changed, not the whole segment), the heap path of the
-- living filters growing a segment, privileges (SELECT and UPDATE, no
-- INSERT or DELETE, even when a segment gains or loses chunks), damaged
-- chunk rows (missing, extra, short, misnumbered, twice: a clear error,
-- never a wrong answer), cuckoo_store_segments, and a store still in the
-- layout of 1.3 to 1.5, which the library reads and changes until the
-- update converts it.

-- cks_state(sql): 'ok', or the SQLSTATE, message and detail of its error
CREATE FUNCTION cks_state(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(d, '') || ')', '');
END $$;

CREATE SCHEMA ck;
-- created for 1,000 values, given 60,000: segments grown 60 times
SELECT cuckoo_store_create('ck.g', 1000)::text AS created;
SELECT cuckoo_store_add_array('ck.g', ARRAY(SELECT generate_series(1, 60000)::int8)) AS added;
SELECT items, segments FROM cuckoo_store_info('ck.g');
-- the chunks: numbered from 0, every one but the last 1,984 bytes, the last
-- 1 to 1,984; together the segment's filter, byte for byte
SELECT segment, count(*) > 5 AS many_chunks, min(chunk) AS first, max(chunk) = count(*) - 1 AS numbered,
       bool_and(octet_length(bytes) = 1984 OR chunk = (SELECT max(chunk) FROM ck.g h WHERE h.segment = g.segment)) AS full_chunks,
       max(octet_length(bytes)) AS largest,
       string_agg(bytes, ''::bytea ORDER BY chunk) = (SELECT f::bytea FROM cuckoo_store_segments('ck.g') s WHERE s.segment = g.segment) AS same_bytes
FROM ck.g g GROUP BY segment ORDER BY segment;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.g', g::int8)) AS missing FROM generate_series(1, 60000) g;
SELECT count(*) FILTER (WHERE a) <= 600 AS few_false
FROM unnest(cuckoo_store_contains_array('ck.g', ARRAY(SELECT generate_series(100001, 160000)::int8))) a;

-- the bulk load writes chunks too: the same bytes as the array form
SELECT cuckoo_store_create('ck.l', 1000)::text AS created;
SELECT cuckoo_store_load_agg('ck.l', g::int8) AS loaded FROM generate_series(1, 60000) g;
SELECT count(*) AS segments, count(*) FILTER (WHERE l.f = g.f) AS identical
FROM cuckoo_store_segments('ck.l') l JOIN cuckoo_store_segments('ck.g') g USING (segment);
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.l', g::int8)) AS missing FROM generate_series(1, 60000) g;

-- a one-key change rewrites chunk 0 (the header's counts) and the chunks
-- whose bytes changed (the key's bucket, those its kicks moved entries of,
-- a split bucket's and the last): over 40 adds and 40 removes, each its own
-- transaction, chunk 0 every time, never the whole segment, under a
-- quarter of its rows in all; a remove changes one bucket (at most two
-- chunks, a bucket may straddle them) and chunk 0
CREATE TEMP TABLE before (segment int, chunk int, x text);
CREATE TEMP TABLE written (op text, rows int, chunk_0 bool, segment_chunks int);
CREATE PROCEDURE ck_changes(op text) LANGUAGE plpgsql AS $$
DECLARE
  v int8;
  seg int;
BEGIN
  FOR i IN 1 .. 40 LOOP
    v := 700000 + i * 7919;
    DELETE FROM before;
    INSERT INTO before SELECT segment, chunk, xmin::text FROM ck.g;
    IF op = 'add' THEN PERFORM cuckoo_store_add('ck.g', v);
    ELSE PERFORM cuckoo_store_remove('ck.g', v);
    END IF;
    COMMIT;
    INSERT INTO written
    SELECT op, count(*), bool_or(g.chunk = 0), (SELECT count(*) FROM ck.g h WHERE h.segment = min(g.segment))
    FROM ck.g g JOIN before b USING (segment, chunk) WHERE g.xmin::text <> b.x;
    COMMIT;
  END LOOP;
END $$;
CALL ck_changes('add');
CALL ck_changes('remove');
SELECT op, count(*) AS changes, bool_and(chunk_0) AS chunk_0_each_time,
       max(rows) < min(segment_chunks) AS never_whole,
       sum(rows) * 4 < sum(segment_chunks) AS under_a_quarter,
       CASE op WHEN 'remove' THEN max(rows) <= 3 END AS remove_at_most_3
FROM written GROUP BY op ORDER BY op;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.g', g::int8)) AS missing FROM generate_series(1, 60000) g;
-- a one-key probe reads chunk 0 and the chunks of the key's two buckets
-- (a slice read: the first 16 keys of a call site under one snapshot, then
-- whole segments, kept for the scan): each answer as the whole read's, for
-- present and absent keys, one statement each
CREATE TEMP TABLE probes (k int8, sliced bool, whole bool);
DO $$
DECLARE r bool;
BEGIN
  FOR i IN 0 .. 399 LOOP
    EXECUTE 'SELECT cuckoo_store_contains(''ck.g'', $1)' INTO r USING (1 + i * 299)::int8;
    INSERT INTO probes VALUES (1 + i * 299, r, NULL);
    EXECUTE 'SELECT cuckoo_store_contains(''ck.g'', $1)' INTO r USING (200001 + i)::int8;
    INSERT INTO probes VALUES (200001 + i, r, NULL);
  END LOOP;
END $$;
SET cuckoo.slice_read_max_keys = 0;
UPDATE probes SET whole = cuckoo_store_contains('ck.g', k);
RESET cuckoo.slice_read_max_keys;
SELECT count(*) AS probes, count(*) FILTER (WHERE k <= 60000 AND NOT sliced) AS false_negatives,
       count(*) FILTER (WHERE sliced IS DISTINCT FROM whole) AS different,
       count(*) FILTER (WHERE k > 60000 AND sliced) < 20 AS few_false
FROM probes;

-- an unchanged segment is not written at all
INSERT INTO before SELECT segment, chunk, xmin::text FROM ck.g;
SELECT cuckoo_store_remove('ck.g', 999999999::int8) AS removed_absent;
SELECT count(*) AS rows_written FROM ck.g JOIN before USING (segment, chunk) WHERE ck.g.xmin::text <> before.x;

-- growth one value at a time: the segment gains chunk rows as it grows
-- (its second chunk row comes at about 1,000 values, the third at 2,000,
-- the fourth at 3,000: the first 1,800 are added in one call, the rest one
-- at a time), every value found after; a rollback takes the new rows back
SELECT cuckoo_store_create('ck.one', 50)::text AS created;
SELECT count(*) AS rows_before FROM ck.one;
SELECT cuckoo_store_add_array('ck.one', ARRAY(SELECT generate_series(1, 1800))) AS bulk;
SELECT count(*) AS rows_bulk FROM ck.one;
DO $$
BEGIN
  FOR i IN 1801 .. 3000 LOOP
    PERFORM cuckoo_store_add('ck.one', i);
  END LOOP;
END $$;
SELECT count(*) > 3 AS rows_after, max(chunk) > 2 AS chunks FROM ck.one;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.one', g)) AS missing FROM generate_series(1, 3000) g;
BEGIN;
SELECT count(*) AS rows_in FROM ck.one \gset
SELECT cuckoo_store_add_array('ck.one', ARRAY(SELECT generate_series(3001, 9000))) AS added;
SELECT count(*) > :rows_in AS grew FROM ck.one;
ROLLBACK;
SELECT count(*) = :rows_in AS same_rows FROM ck.one;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.one', g)) AS missing FROM generate_series(1, 3000) g;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('ck.one', g)) < 100 AS few_false FROM generate_series(3001, 9000) g;
-- removes: the segment keeps its size (a filter does not shrink on remove)
SELECT cuckoo_store_remove_array('ck.one', ARRAY(SELECT generate_series(1, 2999))) AS removed;
SELECT cuckoo_store_contains('ck.one', 3000) AS last_one, items FROM cuckoo_store_info('ck.one');


-- privileges: SELECT and UPDATE change a store, its segments growing by
-- new chunk rows included (no INSERT or DELETE needed); UPDATE without
-- SELECT, or SELECT alone, do not
CREATE ROLE regress_ck_user;
GRANT USAGE ON SCHEMA ck TO regress_ck_user;
SELECT cuckoo_store_create('ck.p', 50)::text AS created;
GRANT SELECT, UPDATE ON ck.p TO regress_ck_user;
SET ROLE regress_ck_user;
SELECT cuckoo_store_add_array('ck.p', ARRAY(SELECT generate_series(1, 5000))) AS added;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.p', g)) AS missing FROM generate_series(1, 5000) g;
SELECT count(*) > 1 AS segments_read FROM cuckoo_store_segments('ck.p');
SELECT cks_state($$INSERT INTO ck.p (segment, chunk, bytes) VALUES (7, 7, '\x00')$$);
RESET ROLE;
SELECT count(*) > 3 AS grown FROM ck.p;
REVOKE SELECT ON ck.p FROM regress_ck_user;
SET ROLE regress_ck_user;
SELECT cks_state($$SELECT cuckoo_store_add_array('ck.p', ARRAY(SELECT generate_series(5001, 9000)))$$);
SELECT cks_state($$SELECT count(*) FROM cuckoo_store_segments('ck.p')$$);
RESET ROLE;
GRANT SELECT ON ck.p TO regress_ck_user;
REVOKE UPDATE ON ck.p FROM regress_ck_user;
SET ROLE regress_ck_user;
SELECT cks_state($$SELECT cuckoo_store_add_array('ck.p', ARRAY(SELECT generate_series(5001, 9000)))$$);
RESET ROLE;
-- a grant of the columns a change reads and writes does as well
REVOKE ALL ON ck.p FROM regress_ck_user;
GRANT SELECT (segment, chunk, bytes, fpr, capacity, segments), UPDATE (bytes) ON ck.p TO regress_ck_user;
SET ROLE regress_ck_user;
SELECT cuckoo_store_add_array('ck.p', ARRAY(SELECT generate_series(5001, 9000))) AS added_with_column_grants;
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.p', g)) AS missing FROM generate_series(1, 9000) g;
RESET ROLE;
REVOKE ALL ON ck.p FROM regress_ck_user;
REVOKE ALL ON SCHEMA ck FROM regress_ck_user;
DROP ROLE regress_ck_user;

-- the living filters' commit through the heap grows segments too
SELECT cuckoo_store_create('ck.tr', 50)::text AS created;
CREATE TABLE ck.t (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_track('ck.tr', 'ck.t', 'k') AS loaded;
INSERT INTO ck.t SELECT g, g FROM generate_series(1, 4000) g;
BEGIN;
INSERT INTO ck.t VALUES (4001, 4001);
COMMIT;
SELECT count(*) > 3 AS grown FROM ck.tr;
SELECT * FROM cuckoo_store_verify('ck.tr');
DELETE FROM ck.t WHERE id <= 3990;
-- a tracked remove keeps an entry other entries of its pair may rely on
-- (DESIGN, "Duplicates"): in a store grown 80x a few removes keep theirs
SELECT missing, rows, items BETWEEN rows AND rows + 20 AS few_kept, trackings FROM cuckoo_store_verify('ck.tr');
SELECT count(*) FILTER (WHERE cuckoo_store_contains('ck.tr', g::int8)) < 100 AS few_false FROM generate_series(1, 3990) g;
SELECT cuckoo_store_untrack('ck.tr', 'ck.t', 'k');

-- damaged chunk rows: each a clear error (XX001, the validator's too),
-- for probes one by one and in a scan, changes, info and
-- cuckoo_store_segments; never a wrong answer.  A probe of one key by a
-- slice read checks the rows it reads (chunks 0 to 3, the last, its
-- buckets'): damage elsewhere does not stop it, and its answer is right.
CREATE TEMP TABLE ck_keys AS SELECT g::int8 AS k FROM generate_series(1, 60000) g;
-- one line per way in: a scan, a probe of 5 alone, an add, info, the segments
CREATE FUNCTION cks_all(q text) RETURNS SETOF text LANGUAGE sql AS $f$
  SELECT cks_state(format($$SELECT count(*) FROM ck_keys WHERE cuckoo_store_contains(%L, k)$$, q))
  UNION ALL SELECT cks_state(format($$SELECT cuckoo_store_contains(%L, 5::int8)$$, q))
  UNION ALL SELECT cks_state(format($$SELECT cuckoo_store_add(%L, 5::int8)$$, q))
  UNION ALL SELECT cks_state(format($$SELECT cuckoo_store_info(%L)$$, q))
  UNION ALL SELECT cks_state(format($$SELECT count(*) FROM cuckoo_store_segments(%L)$$, q))
$f$;
SELECT segment AS seg5 FROM cuckoo_store_segments('ck.g') WHERE segment >= 0 AND cuckoo_contains(f, 5::int8) LIMIT 1 \gset
SELECT max(chunk) AS last FROM ck.g WHERE segment = :seg5 \gset
-- a missing chunk
BEGIN;
DELETE FROM ck.g WHERE segment = :seg5 AND chunk = 3;
SELECT cks_all('ck.g');
ROLLBACK;
-- a missing last chunk (the segment is too short for its header)
BEGIN;
DELETE FROM ck.g WHERE segment = :seg5 AND chunk = :last;
SELECT cks_all('ck.g');
ROLLBACK;
-- an extra chunk after the last
BEGIN;
INSERT INTO ck.g (segment, chunk, bytes) VALUES (:seg5, :last + 1, '\x0102');
SELECT cks_all('ck.g');
ROLLBACK;
-- a short chunk that is not the last
BEGIN;
UPDATE ck.g SET bytes = substr(bytes, 1, 1000) WHERE segment = :seg5 AND chunk = 2;
SELECT cks_all('ck.g');
ROLLBACK;
-- a chunk longer than a chunk
BEGIN;
UPDATE ck.g SET bytes = bytes || '\x00'::bytea WHERE segment = :seg5 AND chunk = 2;
SELECT cks_all('ck.g');
ROLLBACK;
-- misnumbered: a chunk renumbered past the end (a gap)
BEGIN;
UPDATE ck.g SET chunk = 1000 WHERE segment = :seg5 AND chunk = 1;
SELECT cks_all('ck.g');
ROLLBACK;
-- a chunk twice (the primary key dropped)
BEGIN;
ALTER TABLE ck.g DROP CONSTRAINT g_pkey;
INSERT INTO ck.g (segment, chunk, bytes) SELECT segment, chunk, bytes FROM ck.g WHERE segment = :seg5 AND chunk = 6;
SELECT cks_all('ck.g');
ROLLBACK;
-- chunk 0 twice
BEGIN;
ALTER TABLE ck.g DROP CONSTRAINT g_pkey;
INSERT INTO ck.g (segment, chunk, bytes) SELECT segment, chunk, bytes FROM ck.g WHERE segment = :seg5 AND chunk = 0;
SELECT cks_all('ck.g');
ROLLBACK;
-- an empty chunk
BEGIN;
UPDATE ck.g SET bytes = '' WHERE segment = :seg5 AND chunk = :last;
SELECT cks_all('ck.g');
ROLLBACK;
-- all of it again: the store is whole
SELECT cks_all('ck.g');
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.g', g::int8)) AS missing FROM generate_series(1, 60000) g;

-- a store in the layout of 1.3 to 1.5 (one value per segment row): read,
-- probed and changed as before, until ALTER EXTENSION cuckoo UPDATE
-- converts it
CREATE TABLE ck.old (segment int4 PRIMARY KEY, f cuckoofilter NOT NULL, fpr float8, capacity int8, segments int4)
  WITH (fillfactor = 75, toast_tuple_target = 8160);
INSERT INTO ck.old SELECT s.segment, s.f, g.fpr, g.capacity, g.segments
FROM cuckoo_store_segments('ck.g') s JOIN ck.g g ON g.segment = s.segment AND g.chunk = 0;
SELECT items, segments, value_type FROM cuckoo_store_info('ck.old');
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('ck.old', g::int8)) AS missing FROM generate_series(1, 60000) g;
SELECT cuckoo_store_add('ck.old', 123456789::int8), cuckoo_store_remove('ck.old', 1::int8) AS removed;
SELECT cuckoo_store_contains('ck.old', 123456789::int8) AS added;
SELECT count(*) = (SELECT segments + 1 FROM cuckoo_store_info('ck.old')) AS rows FROM ck.old;
SELECT count(*) = (SELECT count(*) FROM ck.old) AS segments_read FROM cuckoo_store_segments('ck.old');

DROP SCHEMA ck CASCADE;
DROP FUNCTION cks_state(text);
