-- Living filters at commit, the heap path's remembered TIDs (issue 22,
-- docs/DESIGN.md "The segments' TIDs remembered per backend"): a backend
-- remembers per store the TID of each segment's chunk 0 and checks the row
-- it finds there.  In one long session: ten stores (it keeps 32: more
-- are not run here), in one transaction and in a transaction each; a store dropped
-- and created again under its name; the store's tail truncated by VACUUM
-- under the remembered TIDs, then the table extended again so that they
-- point at other rows; a segment whose chunk 0 is exactly 1,984 bytes, and
-- one that grows from one chunk to two at a single-row commit; a segment
-- of two chunks whose chunk 1 is remembered too; a savepoint
-- rolled back after an update of chunk 0 out of its page; a store the SQL
-- path takes (a trigger) beside heap-path ones in one transaction.  After
-- each, nothing tracked is missing and the primary key holds exactly the
-- live rows.

CREATE SCHEMA tdt;
CREATE EXTENSION IF NOT EXISTS amcheck;
-- every value of every table tracked by a store of schema tdt is found,
-- every such store verifies, and its primary key passes amcheck
CREATE FUNCTION tdt.check() RETURNS TABLE (stores bigint, rows bigint, not_found bigint, missing bigint)
LANGUAGE plpgsql AS $$
DECLARE
  tr record;
  n bigint;
  nf bigint;
BEGIN
  stores := 0; rows := 0; not_found := 0; missing := 0;
  FOR tr IN SELECT tk.store, tk.tab, tk.col FROM cuckoo_store_tracking tk
            WHERE tk.store::regclass::text LIKE 'tdt.%' ORDER BY 1, 2, 3 LOOP
    EXECUTE format('SELECT count(*), count(*) FILTER (WHERE NOT cuckoo_store_contains(%L, %I)) FROM %s',
                   tr.store, tr.col, tr.tab::regclass) INTO n, nf;
    rows := rows + n;
    not_found := not_found + nf;
  END LOOP;
  FOR tr IN SELECT DISTINCT tk.store FROM cuckoo_store_tracking tk
            WHERE tk.store::regclass::text LIKE 'tdt.%' LOOP
    stores := stores + 1;
    missing := missing + (SELECT v.missing FROM cuckoo_store_verify(tr.store) v);
    PERFORM bt_index_check(i.indexrelid::regclass, true) FROM pg_index i WHERE i.indrelid = tr.store;
  END LOOP;
  RETURN NEXT;
END $$;

-- ten stores, each tracking a table of its own and all tracking tdt.a
CREATE TABLE tdt.a (id int PRIMARY KEY, k int8);
DO $$
BEGIN
  FOR i IN 1 .. 10 LOOP
    PERFORM cuckoo_store_create(format('tdt.s%s', i), 3000);
    EXECUTE format('CREATE TABLE tdt.t%s (id int PRIMARY KEY, k int8)', i);
    PERFORM cuckoo_store_track(format('tdt.s%s', i)::regclass, format('tdt.t%s', i)::regclass, 'k');
    PERFORM cuckoo_store_track(format('tdt.s%s', i)::regclass, 'tdt.a', 'k');
  END LOOP;
END $$;
-- one of them is the SQL path's (a trigger on the store)
CREATE FUNCTION tdt.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER noop AFTER UPDATE ON tdt.s10 FOR EACH ROW EXECUTE FUNCTION tdt.noop();
CREATE PROCEDURE tdt.load(lo int, hi int) LANGUAGE plpgsql AS $$
BEGIN
  FOR g IN lo .. hi LOOP
    -- all ten stores in one transaction
    INSERT INTO tdt.a VALUES (g, g * 7);
    COMMIT;
    -- each store in a transaction of its own
    FOR i IN 1 .. 10 LOOP
      EXECUTE format('INSERT INTO tdt.t%s VALUES ($1, $2)', i) USING g, g * 11;
      COMMIT;
    END LOOP;
    IF g % 3 = 0 THEN
      DELETE FROM tdt.a WHERE id = g - 1;
      COMMIT;
    END IF;
  END LOOP;
END $$;
CALL tdt.load(1, 60);
SELECT * FROM tdt.check();

-- a store dropped and created again under its name, in this session
DROP TABLE tdt.s3;
SELECT cuckoo_store_create('tdt.s3', 500) IS NOT NULL AS created;
SELECT cuckoo_store_track('tdt.s3', 'tdt.t3', 'k') AS loaded;
SELECT cuckoo_store_track('tdt.s3', 'tdt.a', 'k') AS loaded;
CALL tdt.load(61, 90);
SELECT * FROM tdt.check();

-- the store's rows at its table's tail, remembered there by single-row
-- commits; then they move to the front and VACUUM truncates the tail: the
-- remembered TIDs are past the table's end; then rows fill the table again
-- and the TIDs point at rows of other keys
CREATE TABLE tdt.vt (id int PRIMARY KEY, k int8);
-- (VACUUM removes the dead rows, and so frees and truncates pages, only
-- when no other session's snapshot is older: autovacuum's ANALYZE, in the
-- same cluster, can hold one; each VACUUM below waits up to 30 s for none)
CREATE FUNCTION tdt.wait_horizon() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    PERFORM pg_stat_clear_snapshot();
    EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
                          WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid());
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT cuckoo_store_create('tdt.vs', 3000) IS NOT NULL AS created;
SELECT cuckoo_store_track('tdt.vs', 'tdt.vt', 'k') AS loaded;
INSERT INTO tdt.vs (segment, chunk, bytes)
SELECT 100000 + g, 0, '\x00' FROM generate_series(1, 2000) g;
BEGIN;
UPDATE tdt.vs SET bytes = bytes WHERE segment < 100000;
UPDATE tdt.vs SET bytes = bytes WHERE segment < 100000;
UPDATE tdt.vs SET bytes = bytes WHERE segment < 100000;
COMMIT;
VACUUM tdt.vs;
SELECT pg_relation_size('tdt.vs') / 8192 AS blocks_before \gset
SELECT min((ctid::text::point)[0]) > 8 AS at_the_tail FROM tdt.vs WHERE segment < 100000;
INSERT INTO tdt.vt VALUES (1, 1);
INSERT INTO tdt.vt VALUES (2, 2);
DELETE FROM tdt.vs WHERE segment >= 100000;
SELECT tdt.wait_horizon();
VACUUM tdt.vs;
BEGIN;
UPDATE tdt.vs SET bytes = bytes;
UPDATE tdt.vs SET bytes = bytes;
UPDATE tdt.vs SET bytes = bytes;
UPDATE tdt.vs SET bytes = bytes;
UPDATE tdt.vs SET bytes = bytes;
UPDATE tdt.vs SET bytes = bytes;
UPDATE tdt.vs SET bytes = bytes;
UPDATE tdt.vs SET bytes = bytes;
COMMIT;
SELECT tdt.wait_horizon();
VACUUM tdt.vs;
SELECT pg_relation_size('tdt.vs') / 8192 < :blocks_before AS truncated;
INSERT INTO tdt.vt VALUES (3, 3);
INSERT INTO tdt.vt VALUES (4, 4);
INSERT INTO tdt.vs (segment, chunk, bytes)
SELECT 100000 + g, 0, '\x00' FROM generate_series(1, 6000) g;
SELECT pg_relation_size('tdt.vs') / 8192 >= :blocks_before AS extended;
INSERT INTO tdt.vt VALUES (5, 5);
INSERT INTO tdt.vt VALUES (6, 6);
DELETE FROM tdt.vs WHERE segment >= 100000;
INSERT INTO tdt.vt VALUES (7, 7);
SELECT * FROM tdt.check();

-- one segment (capacity 20): single-row commits until its chunk 0 is
-- exactly 1,984 bytes, then until it has two chunks; every value is found
-- after each commit
SELECT cuckoo_store_create('tdt.gs', 20) IS NOT NULL AS created;
CREATE TABLE tdt.gt (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdt.gs', 'tdt.gt', 'k') AS loaded;
CREATE TABLE tdt.glog (id int, chunks int, len int, lost bool);
CREATE PROCEDURE tdt.grow(lo int, hi int) LANGUAGE plpgsql AS $$
BEGIN
  FOR g IN lo .. hi LOOP
    INSERT INTO tdt.gt VALUES (g, g);
    COMMIT;
    INSERT INTO tdt.glog
    SELECT g, count(*), sum(octet_length(bytes)), NOT cuckoo_store_contains('tdt.gs', g::int8)
    FROM tdt.gs WHERE segment = 0;
    COMMIT;
  END LOOP;
END $$;
CALL tdt.grow(1, 3400);
SELECT count(*) FILTER (WHERE chunks = 1 AND len = 1984) > 0 AS one_full_chunk,
       count(*) FILTER (WHERE chunks = 2) > 0 AS two_chunks,
       count(*) FILTER (WHERE lost) AS lost
FROM tdt.glog;
SELECT * FROM tdt.check();

-- two chunks: one segment (capacity 20) loaded past 1,984 bytes in one
-- transaction, then single-row commits, each an insert or a delete: the
-- commit fetches chunk 1 from the TID it remembers beside chunk 0's, so the
-- primary key is not scanned (counted on 15 and later, whose statistics can
-- be flushed on demand); then chunk 1 updated out of its page, the table
-- rewritten by VACUUM FULL, and commits until the segment has three chunks
-- (chunk 1 full: the primary key is read); every value found after each
SELECT cuckoo_store_create('tdt.cs', 20) IS NOT NULL AS created;
CREATE TABLE tdt.ct (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdt.cs', 'tdt.ct', 'k') AS loaded;
INSERT INTO tdt.ct SELECT g, g FROM generate_series(1, 1500) g;
SELECT count(*) AS chunks, max(chunk) AS last_chunk FROM tdt.cs WHERE segment = 0;
CREATE TABLE tdt.clog (id int, chunks int, lost bigint);
-- inserts of lo .. hi, each row of id - del deleted (del = 0: none)
CREATE PROCEDURE tdt.churn(lo int, hi int, del int) LANGUAGE plpgsql AS $$
BEGIN
  FOR g IN lo .. hi LOOP
    INSERT INTO tdt.ct VALUES (g, g);
    COMMIT;
    IF del > 0 THEN
      DELETE FROM tdt.ct WHERE id = g - del;
      COMMIT;
    END IF;
  END LOOP;
END $$;
CREATE PROCEDURE tdt.churn_log(lo int, hi int, del int) LANGUAGE plpgsql AS $$
BEGIN
  FOR g IN lo .. hi LOOP
    CALL tdt.churn(g, g, del);
    INSERT INTO tdt.clog
    SELECT g, (SELECT count(*) FROM tdt.cs WHERE segment = 0),
           (SELECT count(*) FROM tdt.ct WHERE id > g - 50 AND NOT cuckoo_store_contains('tdt.cs', k));
    COMMIT;
  END LOOP;
END $$;
CALL tdt.churn_log(1501, 1510, 1400);
-- statistics flushed on demand (15 and later; 13's collector is late)
CREATE PROCEDURE tdt.flush() LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('server_version_num')::int >= 150000 THEN
    EXECUTE 'SELECT pg_stat_force_next_flush()';
  END IF;
END $$;
CALL tdt.flush();
SELECT idx_scan AS scans_before FROM pg_stat_user_indexes WHERE indexrelid = 'tdt.cs_pkey'::regclass \gset
CALL tdt.churn(1511, 1560, 1400);
CALL tdt.flush();
SELECT CASE WHEN current_setting('server_version_num')::int >= 150000
            THEN idx_scan - :scans_before ELSE 0 END AS primary_key_scans
FROM pg_stat_user_indexes WHERE indexrelid = 'tdt.cs_pkey'::regclass;
SELECT count(*) AS chunks FROM tdt.cs WHERE segment = 0;
SELECT * FROM tdt.check();
-- chunk 1 updated out of its page (the page filled by its own versions)
BEGIN;
UPDATE tdt.cs SET bytes = bytes WHERE segment = 0 AND chunk = 1;
UPDATE tdt.cs SET bytes = bytes WHERE segment = 0 AND chunk = 1;
UPDATE tdt.cs SET bytes = bytes WHERE segment = 0 AND chunk = 1;
UPDATE tdt.cs SET bytes = bytes WHERE segment = 0 AND chunk = 1;
UPDATE tdt.cs SET bytes = bytes WHERE segment = 0 AND chunk = 1;
COMMIT;
CALL tdt.churn_log(1561, 1570, 1400);
VACUUM FULL tdt.cs;
CALL tdt.churn_log(1571, 1580, 1400);
-- past two chunks: inserts only
CALL tdt.churn_log(1581, 4000, 0);
SELECT min(chunks) AS fewest_chunks, max(chunks) AS most_chunks, sum(lost) AS lost FROM tdt.clog;
CALL tdt.churn_log(4001, 4010, 1400);
SELECT * FROM tdt.check();

-- a savepoint rolled back after the segments' chunk 0 rows were updated
-- out of their pages (new index entries, in an aborted subtransaction)
BEGIN;
INSERT INTO tdt.t1 VALUES (100001, 100001);
CREATE TEMP TABLE tdt_before AS SELECT segment, (ctid::text::point)[0] AS blk FROM tdt.s1 WHERE chunk = 0;
SAVEPOINT a;
SELECT count(cuckoo_store_add('tdt.s1', g::int8)) AS added
FROM generate_series(900000, 900200) g;
SELECT count(*) > 0 AS moved_out_of_their_pages
FROM tdt.s1 s JOIN tdt_before b USING (segment) WHERE s.chunk = 0 AND (s.ctid::text::point)[0] <> b.blk;
ROLLBACK TO SAVEPOINT a;
INSERT INTO tdt.t1 VALUES (100002, 100002);
COMMIT;
INSERT INTO tdt.t1 VALUES (100003, 100003);
CALL tdt.load(91, 100);
SELECT * FROM tdt.check();

SET client_min_messages = warning;
DROP SCHEMA tdt CASCADE;
DROP EXTENSION amcheck;
RESET client_min_messages;
