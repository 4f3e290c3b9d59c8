-- Living filters (cuckoo_store_track, extension 1.3): a stored filter kept in
-- step with a table's column by statement triggers.  Each kind of change,
-- duplicates past a bucket pair's slots, NULLs, rollbacks and savepoints,
-- privileges of a writer without rights on the store, untrack, verify and DDL.
-- (MERGE: track_merge.sql, 15 and later.)

-- tstate(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION tstate(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;

CREATE SCHEMA tr;
SELECT cuckoo_store_create('tr.s', 10000) IS NOT NULL AS created;

-- a table with rows, a NULL and a duplicate, tracked: returns the values added
CREATE TABLE tr.t (id int PRIMARY KEY, k int8, other text);
INSERT INTO tr.t SELECT g, g * 10, 'x' FROM generate_series(1, 1000) g;
INSERT INTO tr.t VALUES (1001, NULL, 'null'), (1002, 10, 'dup of 1');
SELECT cuckoo_store_track('tr.s', 'tr.t', 'k');
SELECT * FROM cuckoo_store_verify('tr.s');
SELECT store, tab, col FROM cuckoo_store_tracking;
SELECT tgname, tgtype FROM pg_trigger WHERE tgrelid = 'tr.t'::regclass ORDER BY 1;
SELECT value_type FROM cuckoo_store_info('tr.s');

-- probe(v): is v in the store
CREATE FUNCTION probe(v int8) RETURNS bool LANGUAGE sql AS
  $$ SELECT cuckoo_store_contains('tr.s', v) $$;

-- INSERT, multi-row INSERT, COPY
INSERT INTO tr.t VALUES (2001, 20010, 'i');
INSERT INTO tr.t SELECT g, g * 10, 'm' FROM generate_series(3001, 3100) g;
COPY tr.t (id, k) FROM STDIN;
4001	40010
4002	40020
4003	\N
\.
SELECT probe(20010), probe(31000), probe(40010), probe(40020);
SELECT items FROM cuckoo_store_info('tr.s');

-- UPDATE of the column: old out, new in
UPDATE tr.t SET k = 50010 WHERE id = 2001;
SELECT probe(20010) AS old_found, probe(50010) AS new_found;
-- an UPDATE that leaves the column alone changes no segment: the store's
-- rows keep their versions (xmin)
CREATE TEMP TABLE seg_xmin AS SELECT segment, xmin::text AS x FROM tr.s;
UPDATE tr.t SET other = 'y' WHERE id <= 500;
UPDATE tr.t SET k = k WHERE id <= 500;
SELECT count(*) AS segments_rewritten FROM tr.s JOIN seg_xmin USING (segment) WHERE tr.s.xmin::text <> seg_xmin.x;
-- swapping values between rows changes nothing either
UPDATE tr.t SET k = CASE id WHEN 1 THEN 20 ELSE 10 END WHERE id IN (1, 2);
SELECT count(*) AS segments_rewritten FROM tr.s JOIN seg_xmin USING (segment) WHERE tr.s.xmin::text <> seg_xmin.x;
SELECT * FROM cuckoo_store_verify('tr.s');

-- DELETE; a value still held by another row stays found
DELETE FROM tr.t WHERE id = 1002;      -- k = 10, also held by id 2 now
SELECT probe(10);
DELETE FROM tr.t WHERE id BETWEEN 3001 AND 3050;
SELECT count(*) FILTER (WHERE probe(g * 10)) AS still_found_of_50 FROM generate_series(3001, 3050) g;
SELECT * FROM cuckoo_store_verify('tr.s');

-- INSERT ... ON CONFLICT: DO NOTHING adds nothing; DO UPDATE moves the value
INSERT INTO tr.t VALUES (1, 999999, 'c') ON CONFLICT DO NOTHING;
SELECT probe(999999);
INSERT INTO tr.t VALUES (1, 888888, 'c') ON CONFLICT (id) DO UPDATE SET k = excluded.k;
INSERT INTO tr.t VALUES (5001, 777777, 'c') ON CONFLICT (id) DO UPDATE SET k = excluded.k;
SELECT probe(888888), probe(777777), probe(20) AS old_of_1;
SELECT * FROM cuckoo_store_verify('tr.s');

-- duplicates past a bucket pair's slots (8 at bucket size 4): 40 rows hold
-- one value; it stays found until the last of them is gone
INSERT INTO tr.t SELECT g, 4242, 'dup' FROM generate_series(6001, 6040) g;
SELECT probe(4242);
DELETE FROM tr.t WHERE id BETWEEN 6001 AND 6039;
SELECT probe(4242) AS found_with_one_row_left;
DELETE FROM tr.t WHERE id = 6040;
-- a value held by one row at a time is removed with it; 3 rows at once make
-- it sticky (saturated at b / 2 = 2 copies: track_duplicates.sql), removed
-- one by one, it stays found, a false positive
INSERT INTO tr.t VALUES (6100, 4343, 'one');
DELETE FROM tr.t WHERE id = 6100;
SELECT probe(4343) AS found_after_its_one_row;
INSERT INTO tr.t SELECT g, 4343, 'dup' FROM generate_series(6101, 6103) g;
DELETE FROM tr.t WHERE id = 6101;
SELECT probe(4343);
DELETE FROM tr.t WHERE id = 6102;
SELECT probe(4343);
DELETE FROM tr.t WHERE id = 6103;
SELECT probe(4343) AS found_after_last;
SELECT * FROM cuckoo_store_verify('tr.s');

-- rollback and savepoints leave no trace
CREATE TEMP TABLE items_before AS SELECT items FROM cuckoo_store_info('tr.s');
BEGIN;
INSERT INTO tr.t VALUES (7001, 70010, 'r');
DELETE FROM tr.t WHERE id = 3;
ROLLBACK;
SELECT probe(70010), probe(30);
SELECT (SELECT items FROM cuckoo_store_info('tr.s')) = (SELECT items FROM items_before) AS same_items;
BEGIN;
INSERT INTO tr.t VALUES (7002, 70020, 's');
SAVEPOINT a;
INSERT INTO tr.t VALUES (7003, 70030, 's');
DELETE FROM tr.t WHERE id = 4;
ROLLBACK TO SAVEPOINT a;
COMMIT;
SELECT probe(70020) AS kept, probe(70030) AS rolled_back, probe(40) AS not_removed;
SELECT * FROM cuckoo_store_verify('tr.s');

-- NULLs are not stored: setting a value to NULL removes it, and back
UPDATE tr.t SET k = NULL WHERE id = 5;
SELECT probe(50);
UPDATE tr.t SET k = 50 WHERE id = 5;
SELECT probe(50);

-- TRUNCATE removes the table's values (a second tracked table keeps its own)
CREATE TABLE tr.u (k int8);
INSERT INTO tr.u VALUES (123456789), (10);
SELECT cuckoo_store_track('tr.s', 'tr.u', 'k');
SELECT trackings, missing FROM cuckoo_store_verify('tr.s');
TRUNCATE tr.t;
SELECT probe(10) AS u_still_holds_10, probe(123456789), probe(30) AS t_value_gone;
SELECT * FROM cuckoo_store_verify('tr.s');
BEGIN;
TRUNCATE tr.u;
ROLLBACK;
SELECT probe(123456789) AS after_rolled_back_truncate;

-- privileges: a writer of the table with no right on the store writes, and
-- gains none; a non-owner cannot track or untrack
CREATE ROLE regress_track_writer;
GRANT USAGE ON SCHEMA tr TO regress_track_writer;
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON tr.t TO regress_track_writer;
SET ROLE regress_track_writer;
INSERT INTO tr.t VALUES (8001, 80010, 'w');
UPDATE tr.t SET k = 80020 WHERE id = 8001;
SELECT tstate($$SELECT cuckoo_store_contains('tr.s', 80020::int8)$$);
SELECT tstate($$SELECT cuckoo_store_add('tr.s', 1::int8)$$);
SELECT tstate($$SELECT cuckoo_store_untrack('tr.s', 'tr.t', 'k')$$);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.t', 'other')$$);
-- (1.6: everyone may insert a tracking, checked as cuckoo_store_track checks)
SELECT tstate($$INSERT INTO cuckoo_store_tracking VALUES ('tr.s', 'tr.t', 'other')$$);
-- the trigger ignores the writer's search_path
CREATE TEMP TABLE s (segment int4, chunk int4, bytes bytea, fpr float8, capacity int8, segments int4);
SET search_path = pg_temp, public;
INSERT INTO tr.t VALUES (8002, 80030, 'w');
RESET search_path;
RESET ROLE;
SELECT probe(80010) AS old, probe(80020), probe(80030);
SELECT * FROM cuckoo_store_verify('tr.s');

-- the owner must be able to change the store to track
CREATE TABLE tr.w (k int8);
ALTER TABLE tr.w OWNER TO regress_track_writer;
SET ROLE regress_track_writer;
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.w', 'k')$$);
RESET ROLE;

-- row security: a table whose policies would hide rows from its owner is
-- refused, never loaded in part
CREATE TABLE tr.rls (k int8);
INSERT INTO tr.rls VALUES (1), (2);
ALTER TABLE tr.rls ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY only_one ON tr.rls USING (k = 1);
ALTER TABLE tr.rls OWNER TO regress_track_writer;
GRANT SELECT, UPDATE ON tr.s TO regress_track_writer;
SET ROLE regress_track_writer;
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.rls', 'k')$$);
RESET ROLE;
REVOKE SELECT, UPDATE ON tr.s FROM regress_track_writer;
SELECT count(*) AS rls_trackings FROM cuckoo_store_tracking WHERE tab = 'tr.rls'::regclass;

-- bad arguments
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.t', 'k')$$);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.t', 'nope')$$);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.t', 'ctid')$$);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.t', 'other')$$);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.s', 'segment')$$);
SELECT tstate($$SELECT cuckoo_store_track('tr.t', 'tr.u', 'k')$$);
SELECT tstate($$SELECT cuckoo_store_untrack('tr.s', 'tr.t', 'other')$$);
CREATE VIEW tr.v AS SELECT k FROM tr.t;
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.v', 'k')$$);
-- (a partitioned table is tracked whole, with its partitions: track_partition.sql)
CREATE TABLE tr.p (k int8) PARTITION BY RANGE (k);
SELECT cuckoo_store_track(NULL, 'tr.t', 'k') IS NULL AS strict;
-- a partition on its own and inheritance trees: refused when tracking, and
-- a tracked table cannot join one later (the command is rolled back)
CREATE TABLE tr.p1 PARTITION OF tr.p FOR VALUES FROM (0) TO (100);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.p1', 'k')$$);
CREATE TABLE tr.parent (k int8);
CREATE TABLE tr.kid () INHERITS (tr.parent);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.parent', 'k')$$);
SELECT tstate($$SELECT cuckoo_store_track('tr.s', 'tr.kid', 'k')$$);
SELECT tstate($$CREATE TABLE tr.tchild () INHERITS (tr.t)$$);
CREATE TABLE tr.tparent (id int, k int8, other text);
SELECT tstate($$ALTER TABLE tr.t INHERIT tr.tparent$$);
CREATE TABLE tr.pt (id int, k int8, other text) PARTITION BY RANGE (id);
SELECT tstate($$ALTER TABLE tr.pt ATTACH PARTITION tr.t FOR VALUES FROM (0) TO (100000)$$);
SELECT count(*) AS inherits FROM pg_inherits WHERE inhrelid = 'tr.t'::regclass OR inhparent = 'tr.t'::regclass;

-- DDL: renames keep working
ALTER TABLE tr.t RENAME TO t2;
ALTER TABLE tr.s RENAME TO s2;
INSERT INTO tr.t2 VALUES (9001, 90010, 'r');
SELECT cuckoo_store_contains('tr.s2', 90010::int8);
SELECT store, tab, col FROM cuckoo_store_tracking ORDER BY 2;
ALTER TABLE tr.t2 RENAME TO t;
ALTER TABLE tr.s2 RENAME TO s;
-- renaming the column: the next change fails, naming the way out
ALTER TABLE tr.t RENAME COLUMN k TO k2;
SELECT tstate($$INSERT INTO tr.t VALUES (9002, 90020, 'r')$$);
ALTER TABLE tr.t RENAME COLUMN k2 TO k;
-- dropping the column drops its tracking (event trigger); a change of the
-- table then costs nothing
CREATE TABLE tr.d (id int, k int8);
INSERT INTO tr.d VALUES (1, 555);
SELECT cuckoo_store_track('tr.s', 'tr.d', 'k');
ALTER TABLE tr.d DROP COLUMN k;
SELECT count(*) AS d_trackings FROM cuckoo_store_tracking WHERE tab = 'tr.d'::regclass;
INSERT INTO tr.d VALUES (2);
-- dropping the tracked table drops its trackings
DROP TABLE tr.u;
SELECT store, tab, col FROM cuckoo_store_tracking ORDER BY 2;
-- untrack removes the triggers with the last tracking; the values stay
SELECT cuckoo_store_untrack('tr.s', 'tr.t', 'k');
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'tr.t'::regclass;
INSERT INTO tr.t VALUES (9003, 90030, 'u');
SELECT probe(90030) AS untracked_insert, probe(90010) AS kept;
-- a tracking of a table whose triggers were dropped by hand puts all four back
CREATE TABLE tr.h (k int8);
SELECT cuckoo_store_track('tr.s', 'tr.h', 'k');
DROP TRIGGER cuckoo_track_delete ON tr.h;
SELECT cuckoo_store_untrack('tr.s', 'tr.h', 'k');
CREATE TRIGGER cuckoo_track_update AFTER UPDATE ON tr.h FOR EACH STATEMENT EXECUTE PROCEDURE cuckoo_track_trigger();
SELECT cuckoo_store_track('tr.s', 'tr.h', 'k');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'tr.h'::regclass ORDER BY 1;
SELECT cuckoo_store_untrack('tr.s', 'tr.h', 'k');
-- track again: the store counts the rows again (a second copy each)
SELECT cuckoo_store_track('tr.s', 'tr.t', 'k') = (SELECT count(k) FROM tr.t) AS counted;
SELECT missing, trackings FROM cuckoo_store_verify('tr.s');
-- DROP EXTENSION is refused while the triggers use its function
SELECT tstate($$DROP EXTENSION cuckoo$$) LIKE '2BP01%' AS refused;
-- dropping the store drops its trackings, and the triggers of a table left
-- with none
DROP TABLE tr.s;
SELECT count(*) AS trackings FROM cuckoo_store_tracking;
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgrelid = 'tr.t'::regclass AND tgname LIKE 'cuckoo_track_%';
INSERT INTO tr.t VALUES (9004, 90040, 'n');
DELETE FROM tr.t WHERE id = 9004;

DROP SCHEMA tr CASCADE;
DROP FUNCTION probe(int8);
REASSIGN OWNED BY regress_track_writer TO CURRENT_USER;
DROP OWNED BY regress_track_writer;
DROP ROLE regress_track_writer;
DROP FUNCTION tstate(text);
