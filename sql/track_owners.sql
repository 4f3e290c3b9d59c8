-- Living filters: one store, tracked tables of two owners (issue 22).  A
-- transaction that writes both queues its changes under both roles; the
-- commit checks each role's SELECT and UPDATE on the store and USAGE on its
-- schema, before it changes the store, and fails naming the role and the
-- store (42501): nothing of the transaction is committed.
CREATE SCHEMA tow;
CREATE ROLE regress_tow_alice;
CREATE ROLE regress_tow_bob;
GRANT USAGE ON SCHEMA tow TO regress_tow_alice, regress_tow_bob;
SELECT cuckoo_store_create('tow.s', 2000) IS NOT NULL AS created;
GRANT SELECT, UPDATE ON tow.s TO regress_tow_alice, regress_tow_bob;
CREATE TABLE tow.a (id int PRIMARY KEY, k int8);
CREATE TABLE tow.b (id int PRIMARY KEY, k int8);
ALTER TABLE tow.a OWNER TO regress_tow_alice;
ALTER TABLE tow.b OWNER TO regress_tow_bob;
SELECT cuckoo_store_track('tow.s', 'tow.a', 'k');
SELECT cuckoo_store_track('tow.s', 'tow.b', 'k');
-- the same store with a trigger of its own: applied through SQL, not the heap
SELECT cuckoo_store_create('tow.q', 2000) IS NOT NULL AS created;
GRANT SELECT, UPDATE ON tow.q TO regress_tow_alice, regress_tow_bob;
CREATE FUNCTION tow.noop() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER noop BEFORE UPDATE ON tow.q FOR EACH ROW EXECUTE FUNCTION tow.noop();
CREATE TABLE tow.qa (id int PRIMARY KEY, k int8);
CREATE TABLE tow.qb (id int PRIMARY KEY, k int8);
ALTER TABLE tow.qa OWNER TO regress_tow_alice;
ALTER TABLE tow.qb OWNER TO regress_tow_bob;
SELECT cuckoo_store_track('tow.q', 'tow.qa', 'k');
SELECT cuckoo_store_track('tow.q', 'tow.qb', 'k');
CREATE FUNCTION tow.items(s regclass) RETURNS bigint LANGUAGE sql AS
  $$ SELECT items FROM cuckoo_store_info(s) $$;

-- both owners with their rights: both rows committed, both in the store
BEGIN;
INSERT INTO tow.a VALUES (1, 10);
INSERT INTO tow.b VALUES (1, 11);
COMMIT;
SELECT cuckoo_store_contains('tow.s', 10::int8) AS a_in,
       cuckoo_store_contains('tow.s', 11::int8) AS b_in,
       tow.items('tow.s') AS items;

-- the second owner queued loses UPDATE, then SELECT, then USAGE on the
-- schema, between the statement and the commit: the commit fails and names
-- him; no row committed, the store unchanged
BEGIN;
INSERT INTO tow.a VALUES (2, 20);
INSERT INTO tow.b VALUES (2, 21);
REVOKE UPDATE ON tow.s FROM regress_tow_bob;
COMMIT;
GRANT UPDATE ON tow.s TO regress_tow_bob;
BEGIN;
INSERT INTO tow.a VALUES (3, 30);
INSERT INTO tow.b VALUES (3, 31);
REVOKE SELECT ON tow.s FROM regress_tow_bob;
COMMIT;
GRANT SELECT ON tow.s TO regress_tow_bob;
BEGIN;
INSERT INTO tow.a VALUES (4, 40);
INSERT INTO tow.b VALUES (4, 41);
REVOKE USAGE ON SCHEMA tow FROM regress_tow_bob;
COMMIT;
GRANT USAGE ON SCHEMA tow TO regress_tow_bob;
-- the first owner queued loses UPDATE (the second keeps his)
BEGIN;
INSERT INTO tow.a VALUES (5, 50);
INSERT INTO tow.b VALUES (5, 51);
REVOKE UPDATE ON tow.s FROM regress_tow_alice;
COMMIT;
GRANT UPDATE ON tow.s TO regress_tow_alice;
SELECT (SELECT count(*) FROM tow.a) AS a_rows, (SELECT count(*) FROM tow.b) AS b_rows,
       tow.items('tow.s') AS items;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tow.s', g::int8)) AS stray_hits
FROM unnest(ARRAY[20, 21, 30, 31, 40, 41, 50, 51]) g;
SELECT * FROM cuckoo_store_verify('tow.s');

-- the store applied through SQL: the same check, before its statements
BEGIN;
INSERT INTO tow.qa VALUES (1, 10);
INSERT INTO tow.qb VALUES (1, 11);
REVOKE UPDATE ON tow.q FROM regress_tow_bob;
COMMIT;
GRANT UPDATE ON tow.q TO regress_tow_bob;
SELECT (SELECT count(*) FROM tow.qa) AS qa_rows, (SELECT count(*) FROM tow.qb) AS qb_rows,
       tow.items('tow.q') AS items;
BEGIN;
INSERT INTO tow.qa VALUES (2, 20);
INSERT INTO tow.qb VALUES (2, 21);
COMMIT;
SELECT cuckoo_store_contains('tow.q', 20::int8) AS qa_in,
       cuckoo_store_contains('tow.q', 21::int8) AS qb_in,
       tow.items('tow.q') AS items;

-- a store with an inheritance child (issue 22): refused by every store
-- function and at commit (0A000), as its statements would read the child's
-- rows as segments; usable again once the child is gone
\set VERBOSITY sqlstate
CREATE TABLE tow.child () INHERITS (tow.s);
SELECT cuckoo_store_contains('tow.s', 10::int8);
SELECT cuckoo_store_add('tow.s', 99::int8);
SELECT cuckoo_store_remove('tow.s', 10::int8);
SELECT items FROM cuckoo_store_info('tow.s');
SELECT * FROM cuckoo_store_verify('tow.s');
INSERT INTO tow.a VALUES (6, 60);
SELECT count(*) AS not_inserted FROM tow.a WHERE id = 6;
-- the child created between the statement and the commit
DROP TABLE tow.child;
BEGIN;
INSERT INTO tow.a VALUES (7, 70);
CREATE TABLE tow.child () INHERITS (tow.s);
COMMIT;
\set VERBOSITY default
SELECT count(*) AS not_inserted FROM tow.a WHERE id = 7;
CREATE TABLE tow.child () INHERITS (tow.s);
SELECT cuckoo_store_contains('tow.s', 10::int8);
DROP TABLE tow.child;
INSERT INTO tow.a VALUES (8, 80);
SELECT cuckoo_store_contains('tow.s', 80::int8) AS follows_again,
       cuckoo_store_contains('tow.s', 60::int8) OR cuckoo_store_contains('tow.s', 70::int8) AS stray;
SELECT * FROM cuckoo_store_verify('tow.s');

DROP SCHEMA tow CASCADE;
DROP ROLE regress_tow_alice;
DROP ROLE regress_tow_bob;
