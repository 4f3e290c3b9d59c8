-- Living filters (issue 22): the rights a backend keeps per (store, owner)
-- are forgotten with every invalidation that makes PostgreSQL forget a
-- right.  A tracked table's owner whose rights on the store come only
-- through pg_database_owner (14 and later; this file runs there only)
-- loses them with ALTER DATABASE ... OWNER TO, which sends a pg_database
-- invalidation alone: the next statement, and a commit after the change in
-- the same transaction, fail as a backend that kept nothing fails.
SELECT datdba::regrole AS dbowner FROM pg_database WHERE datname = current_database() \gset
CREATE SCHEMA rx;
CREATE ROLE regress_rx_dbo;
GRANT USAGE ON SCHEMA rx TO PUBLIC;
SELECT cuckoo_store_create('rx.s', 2000) IS NOT NULL AS created;
GRANT SELECT, UPDATE ON rx.s TO pg_database_owner;
CREATE TABLE rx.t (id int PRIMARY KEY, k int8);
ALTER TABLE rx.t OWNER TO regress_rx_dbo;
CREATE FUNCTION rx.set_dbowner(r regrole) RETURNS void LANGUAGE plpgsql AS
  $$BEGIN EXECUTE format('ALTER DATABASE %I OWNER TO %I', current_database(), r); END$$;
SELECT rx.set_dbowner('regress_rx_dbo');
SELECT cuckoo_store_track('rx.s', 'rx.t', 'k');
SELECT has_table_privilege('regress_rx_dbo', 'rx.s', 'UPDATE') AS owner_may_update;
-- the owner's rights pass through pg_database_owner: this backend keeps them
INSERT INTO rx.t VALUES (1, 10);
INSERT INTO rx.t VALUES (2, 20);
-- the database given back: no right on the store now, the statement fails
SELECT rx.set_dbowner(:'dbowner');
SELECT has_table_privilege('regress_rx_dbo', 'rx.s', 'UPDATE') AS owner_may_update;
INSERT INTO rx.t VALUES (3, 30);
-- the same between the statement and the commit, in one transaction
SELECT rx.set_dbowner('regress_rx_dbo');
INSERT INTO rx.t VALUES (4, 40);
BEGIN;
INSERT INTO rx.t VALUES (5, 50);
SELECT rx.set_dbowner(:'dbowner');
COMMIT;
-- (the failed commit rolled the owner's change back too)
SELECT rx.set_dbowner(:'dbowner');
SELECT id FROM rx.t ORDER BY id;
SELECT cuckoo_store_contains_array('rx.s', ARRAY[10, 20, 30, 40, 50]::int8[]) AS found;
SELECT missing FROM cuckoo_store_verify('rx.s');
SELECT datdba::regrole = :'dbowner'::regrole AS owner_back FROM pg_database
WHERE datname = current_database();
DROP SCHEMA rx CASCADE;
DROP ROLE regress_rx_dbo;
