-- Living filters at commit without SQL (issue 22): a store that is exactly
-- what cuckoo_store_create makes has its segments locked and updated by
-- the heap's functions (a dropped column too, as the update to 1.6 leaves
-- a store); any other store (a trigger, another index, a role with a column
-- grant only) through SQL.  The
-- trackings of a table are cached per backend: a tracking, an untracking
-- and a rolled-back tracking are followed at once, and rights are checked
-- at every statement and commit (served from a cache that every
-- invalidation of their sources empties).

CREATE SCHEMA td;
CREATE ROLE regress_td_owner;
GRANT USAGE ON SCHEMA td TO regress_td_owner;
SELECT cuckoo_store_create('td.s', 2000) IS NOT NULL AS created;
SELECT cuckoo_store_create('td.s2', 2000) IS NOT NULL AS created;
GRANT SELECT, UPDATE ON td.s, td.s2 TO regress_td_owner;
CREATE TABLE td.t (id int PRIMARY KEY, k int8);
ALTER TABLE td.t OWNER TO regress_td_owner;
SET ROLE regress_td_owner;
SELECT cuckoo_store_track('td.s', 'td.t', 'k');
RESET ROLE;
CREATE FUNCTION td.items(s regclass) RETURNS bigint LANGUAGE sql AS
  $$ SELECT items FROM cuckoo_store_info(s) $$;

-- three segments, many single-row transactions (HOT updates), then updates
-- that leave their page (a new index entry each); the key finds each
-- segment once, and the index holds every row version it must
SELECT segments FROM cuckoo_store_info('td.s');
CREATE PROCEDURE td.one_by_one() LANGUAGE plpgsql AS $$
BEGIN
  FOR g IN 1 .. 150 LOOP
    INSERT INTO td.t VALUES (g, g * 10);
    COMMIT;
  END LOOP;
  FOR g IN 1 .. 150 BY 3 LOOP
    DELETE FROM td.t WHERE id = g;
    COMMIT;
  END LOOP;
END $$;
CALL td.one_by_one();
-- then a transaction that fills the segments' pages with its own versions
-- (cuckoo_store_add, 41 updates no one can prune): the commit's updates of
-- the segments cannot stay in their pages, and add their index entries
BEGIN;
SELECT count(cuckoo_store_add('td.s', g::int8)) AS added
FROM generate_series(100000, 100040) g;
INSERT INTO td.t SELECT g, g * 10 FROM generate_series(500, 599) g;
COMMIT;
DELETE FROM td.t WHERE id BETWEEN 500 AND 599;
SELECT count(cuckoo_store_remove('td.s', g::int8)) AS removed
FROM generate_series(100000, 100040) g;
SELECT td.items('td.s') AS items, (SELECT count(*) FROM td.t) AS rows;
SELECT * FROM cuckoo_store_verify('td.s');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT segment, count(*) FROM td.s GROUP BY segment ORDER BY segment;
RESET enable_seqscan;
RESET enable_bitmapscan;
CREATE EXTENSION IF NOT EXISTS amcheck;
SELECT count(bt_index_check(i.indexrelid::regclass, true)) AS indexes_checked
FROM pg_index i WHERE i.indrelid = 'td.s'::regclass;

-- the trackings cache: a second store tracked after the first writes, an
-- untracking, and a tracking rolled back to a savepoint
INSERT INTO td.t VALUES (1001, 10010);
SET ROLE regress_td_owner;
SELECT cuckoo_store_track('td.s2', 'td.t', 'k') AS loaded;
RESET ROLE;
INSERT INTO td.t VALUES (1002, 10020);
SELECT cuckoo_store_contains('td.s2', 10020::int8) AS s2_follows,
       cuckoo_store_contains('td.s', 10020::int8) AS s_follows;
SET ROLE regress_td_owner;
SELECT cuckoo_store_untrack('td.s', 'td.t', 'k');
RESET ROLE;
INSERT INTO td.t VALUES (1003, 10030);
SELECT cuckoo_store_contains('td.s2', 10030::int8) AS s2_follows,
       cuckoo_store_contains('td.s', 10030::int8) AS s_untracked;
SELECT cuckoo_store_create('td.s3', 2000) IS NOT NULL AS created;
GRANT SELECT, UPDATE ON td.s3 TO regress_td_owner;
BEGIN;
INSERT INTO td.t VALUES (1004, 10040);
SAVEPOINT a;
SET LOCAL ROLE regress_td_owner;
SELECT cuckoo_store_track('td.s3', 'td.t', 'k') AS loaded;
INSERT INTO td.t VALUES (1005, 10050);
SELECT cuckoo_store_contains('td.s3', 10050::int8) AS s3_follows_in_savepoint;
ROLLBACK TO SAVEPOINT a;
INSERT INTO td.t VALUES (1006, 10060);
COMMIT;
SELECT td.items('td.s3') AS s3_items,
       cuckoo_store_contains('td.s2', 10060::int8) AS s2_follows;
SELECT * FROM cuckoo_store_verify('td.s2');
-- and a store dropped since it was cached: its tracking goes with it
SET ROLE regress_td_owner;
SELECT cuckoo_store_track('td.s', 'td.t', 'k') AS loaded;
RESET ROLE;
INSERT INTO td.t VALUES (1007, 10070);
DROP TABLE td.s2;
INSERT INTO td.t VALUES (1008, 10080);
SELECT cuckoo_store_contains('td.s', 10080::int8) AS s_follows;
SELECT count(*) AS trackings FROM cuckoo_store_tracking WHERE tab = 'td.t'::regclass;

-- rights, at every statement: the table's owner loses UPDATE, then SELECT
-- on the store (the statement fails, nothing is applied), then gets both
-- back; tracking needs both too
REVOKE UPDATE ON td.s FROM regress_td_owner;
INSERT INTO td.t VALUES (2001, 20010);
SELECT count(*) AS not_inserted FROM td.t WHERE id = 2001;
REVOKE SELECT ON td.s FROM regress_td_owner;
GRANT UPDATE ON td.s TO regress_td_owner;
INSERT INTO td.t VALUES (2002, 20020);
SELECT count(*) AS not_inserted FROM td.t WHERE id = 2002;
REVOKE UPDATE ON td.s3 FROM regress_td_owner;
SET ROLE regress_td_owner;
SELECT cuckoo_store_track('td.s3', 'td.t', 'k');
RESET ROLE;
GRANT SELECT ON td.s TO regress_td_owner;
INSERT INTO td.t VALUES (2003, 20030);
-- a right lost between the statement and the commit: the commit fails
BEGIN;
INSERT INTO td.t VALUES (2007, 20070);
REVOKE UPDATE ON td.s FROM regress_td_owner;
COMMIT;
GRANT UPDATE ON td.s TO regress_td_owner;
SELECT count(*) AS not_inserted FROM td.t WHERE id = 2007;
SELECT cuckoo_store_contains('td.s', 20030::int8) AS follows_again;
-- a grant of the store's columns only is not enough (the statement fails)
REVOKE SELECT, UPDATE ON td.s FROM regress_td_owner;
GRANT SELECT (segment, chunk, bytes, fpr, capacity, segments), UPDATE (bytes) ON td.s TO regress_td_owner;
INSERT INTO td.t VALUES (2004, 20040);
SELECT count(*) AS column_grant_inserted FROM td.t WHERE id = 2004;
REVOKE SELECT (segment, chunk, bytes, fpr, capacity, segments), UPDATE (bytes) ON td.s FROM regress_td_owner;
GRANT SELECT, UPDATE ON td.s TO regress_td_owner;
-- the table changes hands: the new owner's rights count
CREATE ROLE regress_td_other;
ALTER TABLE td.t OWNER TO regress_td_other;
INSERT INTO td.t VALUES (2005, 20050);
ALTER TABLE td.t OWNER TO regress_td_owner;
INSERT INTO td.t VALUES (2006, 20060);
SELECT count(*) FILTER (WHERE id = 2005) AS other_owner_inserted,
       count(*) FILTER (WHERE id = 2006) AS owner_inserted
FROM td.t;
-- the owner loses USAGE on the store's schema, in a backend that has
-- applied to the store already, then between the statement and the commit:
-- each fails, as the store's UPDATE run by the owner would
REVOKE USAGE ON SCHEMA td FROM regress_td_owner;
INSERT INTO td.t VALUES (2008, 20080);
GRANT USAGE ON SCHEMA td TO regress_td_owner;
BEGIN;
INSERT INTO td.t VALUES (2009, 20090);
REVOKE USAGE ON SCHEMA td FROM regress_td_owner;
COMMIT;
GRANT USAGE ON SCHEMA td TO regress_td_owner;
SELECT count(*) FILTER (WHERE id = 2008) AS no_usage_inserted,
       count(*) FILTER (WHERE id = 2009) AS usage_lost_inserted
FROM td.t;
-- a transaction made read-only after its write: its commit fails, as the
-- store's UPDATE in a read-only transaction does
BEGIN;
INSERT INTO td.t VALUES (2010, 20100);
SET TRANSACTION READ ONLY;
COMMIT;
SELECT count(*) AS read_only_inserted FROM td.t WHERE id = 2010;

-- a store the heap path does not take is applied through SQL (another
-- index), one with a dropped column (as the update to 1.6 leaves a store)
-- through the heap, and a store renamed since it was cached: each stays
-- exact
CREATE INDEX ON td.s (segment, fpr);
INSERT INTO td.t VALUES (3001, 30010);
DROP INDEX td.s_segment_fpr_idx;
ALTER TABLE td.s ADD COLUMN extra int;
ALTER TABLE td.s DROP COLUMN extra;
INSERT INTO td.t VALUES (3002, 30020);
ALTER TABLE td.s RENAME TO s_renamed;
INSERT INTO td.t VALUES (3003, 30030);
SELECT cuckoo_store_contains('td.s_renamed', 30010::int8) AS other_index,
       cuckoo_store_contains('td.s_renamed', 30020::int8) AS dropped_column,
       cuckoo_store_contains('td.s_renamed', 30030::int8) AS renamed;
SELECT * FROM cuckoo_store_verify('td.s_renamed');

-- a backend keeps its verdict on a store's shape, and the store's header,
-- until an invalidation: a trigger made on the store after this backend's
-- commits took the heap path is seen at the next commit (the SQL path's
-- UPDATE runs it), and so is its drop
CREATE TABLE td.store_log (segment int);
CREATE FUNCTION td.store_logged() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog AS
  $$BEGIN INSERT INTO td.store_log VALUES (NEW.segment); RETURN NULL; END$$;
INSERT INTO td.t VALUES (3004, 30040);
INSERT INTO td.t VALUES (3005, 30050);
CREATE TRIGGER store_logged AFTER UPDATE ON td.s_renamed
  FOR EACH ROW EXECUTE FUNCTION td.store_logged();
INSERT INTO td.t VALUES (3006, 30060);
SELECT count(*) AS store_updates_logged FROM td.store_log;
DROP TRIGGER store_logged ON td.s_renamed;
INSERT INTO td.t VALUES (3007, 30070);
SELECT count(*) AS store_updates_logged FROM td.store_log;
SELECT cuckoo_store_contains_array('td.s_renamed', ARRAY[30040, 30050, 30060, 30070]::int8[]) AS found;
SELECT * FROM cuckoo_store_verify('td.s_renamed');

-- a store that is a partition is not taken: a commit whose segment update
-- leaves the partition's range fails, as the store's UPDATE does (through
-- the heap the row stayed there, out of its range and unseen through the
-- parent)
SELECT cuckoo_store_create('td.ps', 100) IS NOT NULL AS created;
CREATE TABLE td.psp (LIKE td.ps) PARTITION BY RANGE (octet_length(bytes));
ALTER TABLE td.psp ATTACH PARTITION td.ps FOR VALUES FROM (0) TO (1500);
CREATE TABLE td.pt (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_track('td.ps', 'td.pt', 'k') AS loaded;
INSERT INTO td.pt SELECT g, g FROM generate_series(1, 100) g;
\set VERBOSITY terse
INSERT INTO td.pt SELECT g, g FROM generate_series(101, 2000) g;
\set VERBOSITY default
SELECT (SELECT count(*) FROM td.pt) AS rows,
       (SELECT count(*) FROM td.ps WHERE octet_length(bytes) >= 1500) AS out_of_range;
SELECT * FROM cuckoo_store_verify('td.ps');

-- a grown segment (1.6): chunk rows in the table, nothing out of line
-- (TOAST); the commit's update writes the chunks that changed and inserts
-- the ones the segment gains, at an explicit COMMIT and at a statement's
-- own; the indexes hold exactly the live rows
SELECT cuckoo_store_create('td.ts', 20) IS NOT NULL AS created;
CREATE TABLE td.tt (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_track('td.ts', 'td.tt', 'k') AS loaded;
INSERT INTO td.tt SELECT g, g FROM generate_series(1, 8000) g;
SELECT c.reltoastrelid::regclass AS ts_toast FROM pg_class c WHERE c.oid = 'td.ts'::regclass \gset
SELECT count(DISTINCT chunk_id) AS toast_values, (SELECT count(*) > 4 FROM td.ts WHERE segment = 0) AS chunked
FROM :ts_toast;
BEGIN;
INSERT INTO td.tt VALUES (8001, 8001);
COMMIT;
DELETE FROM td.tt WHERE id <= 100;
UPDATE td.tt SET k = k + 100000 WHERE id BETWEEN 101 AND 200;
SELECT count(DISTINCT chunk_id) AS toast_values FROM :ts_toast;
SELECT * FROM cuckoo_store_verify('td.ts');
SELECT count(bt_index_check(i.indexrelid::regclass, true)) AS indexes_checked
FROM pg_class c JOIN pg_index i ON i.indrelid IN (c.oid, c.reltoastrelid)
WHERE c.oid = 'td.ts'::regclass;

-- the commit finds a segment's chunk 0 from the TID this backend
-- remembered for it, checked (visible to the snapshot, the segment asked
-- for): after the store's rows move (VACUUM FULL, CLUSTER, an UPDATE of
-- every row, cuckoo_store_rebuild) the TIDs point at other rows or past the
-- table's end, and the primary key is asked again; nothing is missing and
-- the index holds exactly the live rows
SELECT cuckoo_store_create('td.ms', 20000) IS NOT NULL AS created;
SELECT count(*) > 8 AS several_segments FROM td.ms WHERE segment >= 0;
CREATE TABLE td.mt (id int PRIMARY KEY, k int8);
SELECT cuckoo_store_track('td.ms', 'td.mt', 'k') AS loaded;
CREATE PROCEDURE td.one_by_one(lo int, hi int) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN lo .. hi LOOP
    INSERT INTO td.mt VALUES (i, i);
    COMMIT;
    IF i % 3 = 0 THEN
      DELETE FROM td.mt WHERE id = i - 1;
      COMMIT;
    END IF;
  END LOOP;
END $$;
CALL td.one_by_one(1, 300);
VACUUM FULL td.ms;
CALL td.one_by_one(301, 600);
CLUSTER td.ms USING ms_pkey;
CALL td.one_by_one(601, 900);
UPDATE td.ms SET bytes = bytes WHERE segment >= 0;
CALL td.one_by_one(901, 1200);
DELETE FROM td.mt WHERE id % 7 = 0;
SELECT cuckoo_store_rebuild('td.ms') > 0 AS rebuilt;
CALL td.one_by_one(1201, 1500);
VACUUM td.ms;
CALL td.one_by_one(1501, 1800);
SELECT count(*) AS rows, count(*) FILTER (WHERE NOT cuckoo_store_contains('td.ms', k)) AS not_found
FROM td.mt;
SELECT * FROM cuckoo_store_verify('td.ms');
SELECT bt_index_check('td.ms_pkey', true) IS NOT NULL AS index_checked;

DROP SCHEMA td CASCADE;
DROP EXTENSION amcheck;
DROP ROLE regress_td_owner;
DROP ROLE regress_td_other;
