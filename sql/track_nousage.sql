-- Living filters and a role without USAGE on the extension's schema: the
-- event triggers and the tracking trigger read cuckoo_store_tracking with
-- its owner's rights (issue 22), so such a role creates, alters and drops
-- its own tables, and writes a tracked table it may write.
CREATE SCHEMA nu;
CREATE ROLE regress_nousage;
GRANT USAGE, CREATE ON SCHEMA nu TO regress_nousage;
SELECT cuckoo_store_create('nu.s', 10000) IS NOT NULL AS created;
CREATE TABLE nu.t (id int PRIMARY KEY, v int);
INSERT INTO nu.t SELECT g, g FROM generate_series(1, 50) g;
SELECT cuckoo_store_track('nu.s', 'nu.t', 'v');
GRANT SELECT, INSERT, UPDATE, DELETE ON nu.t TO regress_nousage;
CREATE TABLE nu.p (id int, v int) PARTITION BY RANGE (id);
CREATE TABLE nu.p1 PARTITION OF nu.p FOR VALUES FROM (0) TO (1000);
SELECT cuckoo_store_create('nu.ps', 10000) IS NOT NULL AS created;
SELECT cuckoo_store_track('nu.ps', 'nu.p', 'v');
GRANT SELECT, INSERT, UPDATE, DELETE ON nu.p, nu.p1 TO regress_nousage;

REVOKE USAGE ON SCHEMA public FROM PUBLIC;
SET ROLE regress_nousage;
SELECT has_schema_privilege('public', 'USAGE') AS usage_on_public;
-- its own tables: CREATE, ALTER, DROP (each fires an event trigger)
CREATE TABLE nu.mine (a int);
ALTER TABLE nu.mine ADD COLUMN b text;
ALTER TABLE nu.mine RENAME TO mine2;
CREATE TABLE nu.mp (a int) PARTITION BY LIST (a);
CREATE TABLE nu.mp1 PARTITION OF nu.mp FOR VALUES IN (1);
ALTER TABLE nu.mp DETACH PARTITION nu.mp1;
DROP TABLE nu.mine2, nu.mp, nu.mp1;
-- the tracked tables it may write
INSERT INTO nu.t SELECT g, g FROM generate_series(51, 100) g;
UPDATE nu.t SET v = v + 1000 WHERE id <= 10;
DELETE FROM nu.t WHERE id > 90;
INSERT INTO nu.p SELECT g, g FROM generate_series(1, 20) g;
INSERT INTO nu.p1 VALUES (21, 21);
DELETE FROM nu.p1 WHERE id = 1;
RESET ROLE;
GRANT USAGE ON SCHEMA public TO PUBLIC;

SELECT * FROM cuckoo_store_verify('nu.s');
SELECT * FROM cuckoo_store_verify('nu.ps');
DROP SCHEMA nu CASCADE;
DROP ROLE regress_nousage;
