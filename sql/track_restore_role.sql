-- Living filters: a restore by a role that is not a superuser (issue 22;
-- docs/DESIGN.md "Living filters", "Privileges").  A database owner's
-- pg_restore --no-owner, or pg_dump | psql, loads the trackings with its
-- own rights: PUBLIC may insert into cuckoo_store_tracking (nothing else),
-- and the BEFORE INSERT row trigger cuckoo_store_tracking_check refuses
-- (42501, naming store and table) a row the role could not have made with
-- cuckoo_store_track.  A tracking trigger that finds no tracking (the
-- trackings lost) refuses the write (55000) instead of following nothing.
-- test/cluster/track.sh runs a real pg_dump and pg_restore as such a role.

CREATE SCHEMA trr;
CREATE ROLE regress_trr_owner;
CREATE ROLE regress_trr_other;
CREATE ROLE regress_trr_member IN ROLE regress_trr_owner;
GRANT USAGE, CREATE ON SCHEMA trr TO regress_trr_owner, regress_trr_other, regress_trr_member;
-- trr.try(sql): the SQLSTATE and message of sql, or 'ok'
CREATE FUNCTION trr.try(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;
GRANT EXECUTE ON FUNCTION trr.try(text) TO PUBLIC;
-- trr.triggers(tab, create): drops or creates the four tracking triggers, as a dump lacks or has them
CREATE FUNCTION trr.triggers(tab regclass, make bool) RETURNS void LANGUAGE plpgsql AS $$
DECLARE e text;
BEGIN
  FOREACH e IN ARRAY ARRAY['insert', 'update', 'delete', 'truncate'] LOOP
    IF make THEN
      EXECUTE format('CREATE TRIGGER %I %s ON %s %s FOR EACH STATEMENT EXECUTE FUNCTION public.cuckoo_track_trigger()',
                     'cuckoo_track_' || e,
                     CASE e WHEN 'truncate' THEN 'BEFORE TRUNCATE' ELSE 'AFTER ' || upper(e) END, tab,
                     CASE e WHEN 'insert' THEN 'REFERENCING NEW TABLE AS cuckoo_new'
                            WHEN 'update' THEN 'REFERENCING OLD TABLE AS cuckoo_old NEW TABLE AS cuckoo_new'
                            WHEN 'delete' THEN 'REFERENCING OLD TABLE AS cuckoo_old' ELSE '' END);
    ELSE
      EXECUTE format('DROP TRIGGER %I ON %s', 'cuckoo_track_' || e, tab);
    END IF;
  END LOOP;
END $$;
GRANT EXECUTE ON FUNCTION trr.triggers(regclass, bool) TO PUBLIC;

-- the tracking table's privileges: SELECT and INSERT for everyone, nothing else
SELECT grantee::regrole AS grantee, privilege_type
FROM pg_class c, aclexplode(c.relacl) a
WHERE c.oid = 'cuckoo_store_tracking'::regclass AND a.grantee = 0 ORDER BY 2;

-- a role that is not a superuser tracks its table (cuckoo_store_track's own
-- insert is not checked again)
SET ROLE regress_trr_owner;
SELECT cuckoo_store_create('trr.s', 2000) IS NOT NULL AS created;
CREATE TABLE trr.t (id int8 PRIMARY KEY, k int8);
INSERT INTO trr.t SELECT g, g FROM generate_series(1, 100) g;
SELECT cuckoo_store_track('trr.s', 'trr.t', 'k');
DELETE FROM trr.t WHERE id > 50;
RESET ROLE;

-- the trackings lost (as a restore that could not load them left them):
-- the triggers refuse the table's writes, naming the table and what to do
DELETE FROM cuckoo_store_tracking WHERE tab = 'trr.t'::regclass;
-- (a new session: a delete by hand does not clear the sessions' cached trackings)
\c -
SET ROLE regress_trr_owner;
SELECT trr.try($$INSERT INTO trr.t VALUES (1000, 1000)$$) AS insert_refused;
SELECT trr.try($$DELETE FROM trr.t WHERE id = 1$$) AS delete_refused;
SELECT trr.try($$TRUNCATE trr.t$$) AS truncate_refused;
-- a statement that changes no row is let through
UPDATE trr.t SET k = k WHERE id < 0;
SELECT count(*) AS rows FROM trr.t;

-- the restore's order: the table without its triggers, the trackings'
-- COPY by the owner (checked), then the triggers, the last of which
-- rebuilds the store
SELECT trr.triggers('trr.t', false);
COPY cuckoo_store_tracking (store, tab, col) FROM stdin;
trr.s	trr.t	k
\.
SELECT store, tab, col FROM cuckoo_store_tracking WHERE tab = 'trr.t'::regclass;
-- (a value added directly: a rebuild does not keep it)
SELECT cuckoo_store_add('trr.s', 4444::int8) AS added_directly;
SELECT items FROM cuckoo_store_info('trr.s');
SELECT trr.triggers('trr.t', true);
SELECT i.items, v.missing, cuckoo_store_contains('trr.s', 4444::int8) AS direct_kept
FROM cuckoo_store_info('trr.s') i, cuckoo_store_verify('trr.s') v;
-- followed again
INSERT INTO trr.t VALUES (1000, 1000);
SELECT cuckoo_store_contains('trr.s', 1000::int8) AS new_found,
       cuckoo_store_contains('trr.s', 99::int8) AS deleted_found;
SELECT missing, rows, items, trackings FROM cuckoo_store_verify('trr.s');
-- the insert of the trackings after the triggers (pg_restore -j) rebuilds too
RESET ROLE;
DELETE FROM cuckoo_store_tracking WHERE tab = 'trr.t'::regclass;
\c -
SET ROLE regress_trr_owner;
SELECT cuckoo_store_add('trr.s', 5555::int8) AS added_directly;
INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.t', 'k');
SELECT cuckoo_store_contains('trr.s', 5555::int8) AS direct_gone,
       cuckoo_store_contains('trr.s', 1000::int8) AS rows_found;
SELECT missing, rows, items, trackings FROM cuckoo_store_verify('trr.s');
-- a duplicate: the primary key refuses it
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.t', 'k')$$) AS duplicate;
-- NULLs: the NOT NULL constraints refuse them
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES (NULL, 'trr.t', 'k')$$) AS null_store;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', NULL, 'k')$$) AS null_tab;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.t', NULL)$$) AS null_col;
-- nothing else may change
SELECT trr.try($$UPDATE cuckoo_store_tracking SET col = 'id'$$) AS update_refused;
SELECT trr.try($$DELETE FROM cuckoo_store_tracking$$) AS delete_refused;
SELECT trr.try($$TRUNCATE cuckoo_store_tracking$$) AS truncate_refused;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.t', 'k') ON CONFLICT (store, tab, col) DO UPDATE SET col = 'id'$$) AS upsert_refused;
SELECT trr.try($$ALTER TABLE cuckoo_store_tracking DISABLE TRIGGER cuckoo_store_tracking_check$$) AS disable_refused;
-- what cuckoo_store_track refuses: a column that does not exist, the store itself, a view,
-- a store that is not one
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.t', 'nope')$$) AS no_column;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.s', 'segment')$$) AS itself;
CREATE VIEW trr.v AS SELECT k FROM trr.t;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.v', 'k')$$) AS a_view;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.v', 'trr.t', 'k')$$) AS not_a_store;
-- a partition and an inheritance child, as cuckoo_store_track refuses them
CREATE TABLE trr.p (k int8) PARTITION BY RANGE (k);
CREATE TABLE trr.p1 PARTITION OF trr.p FOR VALUES FROM (0) TO (100);
CREATE TABLE trr.parent (k int8);
CREATE TABLE trr.child () INHERITS (trr.parent);
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.p1', 'k')$$) AS a_partition;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.child', 'k')$$) AS a_child;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.parent', 'k')$$) AS a_parent;
-- the root of the tree passes (its triggers come with the restore)
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.p', 'k')$$) AS the_root;
RESET ROLE;

-- another role: a table it does not own, a store it cannot update
SET ROLE regress_trr_other;
SELECT cuckoo_store_create('trr.so', 2000) IS NOT NULL AS created;
CREATE TABLE trr.ot (k int8);
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.so', 'trr.t', 'id')$$) AS not_its_table;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.ot', 'k')$$) AS not_its_store;
RESET ROLE;
GRANT SELECT ON trr.s TO regress_trr_other;
SET ROLE regress_trr_other;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.ot', 'k')$$) AS select_only;
-- the same refusals as cuckoo_store_track's
SELECT trr.try($$SELECT cuckoo_store_track('trr.so', 'trr.t', 'id')$$) AS track_not_its_table;
SELECT trr.try($$SELECT cuckoo_store_track('trr.s', 'trr.ot', 'k')$$) AS track_not_its_store;
RESET ROLE;
GRANT UPDATE ON trr.s TO regress_trr_other;
SET ROLE regress_trr_other;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.s', 'trr.ot', 'k')$$) AS granted;
RESET ROLE;

-- a member of the table's owner may; the owner, too, needs SELECT and
-- UPDATE on the store
SET ROLE regress_trr_member;
SELECT cuckoo_store_create('trr.ms', 2000) IS NOT NULL AS created;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.ms', 'trr.t', 'id')$$) AS owner_lacks_rights;
RESET ROLE;
GRANT SELECT, UPDATE ON trr.ms TO regress_trr_owner;
SET ROLE regress_trr_member;
SELECT trr.try($$INSERT INTO cuckoo_store_tracking VALUES ('trr.ms', 'trr.t', 'id')$$) AS member;
RESET ROLE;

-- a superuser's insert is not checked (a superuser's restore grants the
-- store's privileges after the data)
INSERT INTO cuckoo_store_tracking VALUES ('trr.so', 'trr.t', 'id');
SELECT store, tab, col FROM cuckoo_store_tracking WHERE store::text LIKE 'trr.%' ORDER BY 1, 2, 3;

DELETE FROM cuckoo_store_tracking WHERE store::text LIKE 'trr.%';
DROP SCHEMA trr CASCADE;
DROP OWNED BY regress_trr_owner, regress_trr_other, regress_trr_member;
DROP ROLE regress_trr_member, regress_trr_owner, regress_trr_other;
