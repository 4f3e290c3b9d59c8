-- Living filters: a restore gives what a rebuild would (extension 1.6,
-- issue 22; docs/DESIGN.md "Living filters", "Where the tracking is
-- recorded").  pg_dump writes a tracked table's triggers after all the
-- data: the store's rows come back as dumped, sticky values and all, and
-- the CREATE TRIGGER that gives the last tracked table of a store all its
-- triggers rebuilds the store (cuckoo_track_ddl).  Here the restore's
-- statements are run by hand: the triggers are dropped and created again
-- with the names and function of the dump.  test/cluster/track.sh runs a
-- real pg_dump and pg_restore.

CREATE SCHEMA rr;
-- rr.differ(a, b): how many segments (the header included) of two stores differ
CREATE FUNCTION rr.differ(a regclass, b regclass) RETURNS bigint LANGUAGE sql AS
  $$ SELECT count(*) FROM cuckoo_store_segments(a) x FULL JOIN cuckoo_store_segments(b) y USING (segment)
     WHERE x.f::bytea IS DISTINCT FROM y.f::bytea $$;
-- rr.sticky(store): how many of the deleted values 500 .. 999 it finds
CREATE FUNCTION rr.sticky(s regclass) RETURNS bigint LANGUAGE sql AS
  $$ SELECT count(*) FILTER (WHERE cuckoo_store_contains(s, g::int8)) FROM generate_series(500, 999) g $$;
-- rr.drop_triggers(tab, prefix): drops tab's four triggers, as a dump lacks them
CREATE FUNCTION rr.drop_triggers(tab regclass, prefix text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE e text;
BEGIN
  FOREACH e IN ARRAY ARRAY['insert', 'update', 'delete', 'truncate'] LOOP
    EXECUTE format('DROP TRIGGER %I ON %s', prefix || e, tab);
  END LOOP;
END $$;
-- the restore's CREATE TRIGGER statements, as pg_dump writes them
CREATE FUNCTION rr.create_trigger(tab regclass, prefix text, e text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TRIGGER %I %s ON %s %s FOR EACH STATEMENT EXECUTE FUNCTION public.cuckoo_track_trigger()',
                 prefix || e,
                 CASE e WHEN 'truncate' THEN 'BEFORE TRUNCATE' ELSE 'AFTER ' || upper(e) END, tab,
                 CASE e WHEN 'insert' THEN 'REFERENCING NEW TABLE AS cuckoo_new'
                        WHEN 'update' THEN 'REFERENCING OLD TABLE AS cuckoo_old NEW TABLE AS cuckoo_new'
                        WHEN 'delete' THEN 'REFERENCING OLD TABLE AS cuckoo_old' ELSE '' END);
END $$;

-- sticky values: 1,000 values each held by 3 rows, 500 of them deleted
SELECT cuckoo_store_create('rr.s', 2000) IS NOT NULL AS created;
CREATE TABLE rr.t (id int8 PRIMARY KEY, k int8);
INSERT INTO rr.t SELECT g, g % 1000 FROM generate_series(1, 3000) g;
SELECT cuckoo_store_track('rr.s', 'rr.t', 'k');
DELETE FROM rr.t WHERE k >= 500;
SELECT items, rr.sticky('rr.s') AS sticky FROM cuckoo_store_info('rr.s');
-- what a rebuild gives, made aside: a store created and tracked afresh
SELECT cuckoo_store_create('rr.fresh', 2000) IS NOT NULL AS created;
SELECT cuckoo_store_track('rr.fresh', 'rr.t', 'k');
SELECT rr.differ('rr.s', 'rr.fresh') > 0 AS differs_before;

-- the dump has the data, then the triggers: three of four change nothing
SELECT rr.drop_triggers('rr.t', 'cuckoo_track_');
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete']) e;
SELECT items, rr.sticky('rr.s') AS sticky FROM cuckoo_store_info('rr.s');
-- the fourth rebuilds: the sticky values are gone, the bytes are a rebuild's
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', 'truncate');
SELECT items, rr.sticky('rr.s') <= 20 AS sticky_few FROM cuckoo_store_info('rr.s');
SELECT rr.differ('rr.s', 'rr.fresh') AS segments_differing;
SELECT missing, rows, items FROM cuckoo_store_verify('rr.s');
-- and the table is followed again
INSERT INTO rr.t VALUES (5000, 123456);
SELECT cuckoo_store_contains('rr.s', 123456::int8) AS new_found;
DELETE FROM rr.t WHERE id = 5000;

-- the rebuild is the creating transaction's: rolled back with it
SELECT rr.drop_triggers('rr.t', 'cuckoo_track_');
DELETE FROM rr.t WHERE k >= 400;
SELECT items FROM cuckoo_store_info('rr.s');
BEGIN;
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT items FROM cuckoo_store_info('rr.s');
ROLLBACK;
SELECT items FROM cuckoo_store_info('rr.s');
-- under REPEATABLE READ: no rebuild, a warning that says what to do
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
COMMIT;
SELECT items FROM cuckoo_store_info('rr.s');
SELECT cuckoo_store_rebuild('rr.s');
SELECT items FROM cuckoo_store_info('rr.s');

-- cuckoo_store_track's own triggers do not rebuild (it fills the store
-- itself): a direct add before the track stays, each value counted once
SELECT cuckoo_store_create('rr.d', 1000) IS NOT NULL AS created;
CREATE TABLE rr.dt (k int8);
INSERT INTO rr.dt SELECT g FROM generate_series(1, 100) g;
SELECT cuckoo_store_add('rr.d', 424242::int8);
SELECT cuckoo_store_track('rr.d', 'rr.dt', 'k');
SELECT cuckoo_store_contains('rr.d', 424242::int8) AS direct_kept, items FROM cuckoo_store_info('rr.d');

-- a store tracking two tables: rebuilt when the second has its triggers
CREATE TABLE rr.u (k int8);
INSERT INTO rr.u SELECT g FROM generate_series(10001, 10100) g;
INSERT INTO rr.u SELECT 10001 FROM generate_series(1, 3);
SELECT cuckoo_store_track('rr.s', 'rr.u', 'k');
DELETE FROM rr.u WHERE k = 10001;
SELECT cuckoo_store_contains('rr.s', 10001::int8) AS sticky_u;
SELECT rr.drop_triggers('rr.t', 'cuckoo_track_');
SELECT rr.drop_triggers('rr.u', 'cuckoo_track_');
SELECT rr.create_trigger('rr.u', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT cuckoo_store_contains('rr.s', 10001::int8) AS sticky_u_one_table;
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT cuckoo_store_contains('rr.s', 10001::int8) AS sticky_u_both;
SELECT missing, rows, items FROM cuckoo_store_verify('rr.s');
SELECT cuckoo_store_untrack('rr.s', 'rr.u', 'k');

-- a partitioned table: the root's four and every partition's four
SELECT cuckoo_store_create('rr.sp', 2000) IS NOT NULL AS created;
CREATE TABLE rr.p (id int8, k int8) PARTITION BY RANGE (id);
CREATE TABLE rr.p1 PARTITION OF rr.p FOR VALUES FROM (0) TO (2000);
CREATE TABLE rr.p2 PARTITION OF rr.p FOR VALUES FROM (2000) TO (4000);
INSERT INTO rr.p SELECT g, g % 1000 FROM generate_series(1, 3000) g;
SELECT cuckoo_store_track('rr.sp', 'rr.p', 'k');
DELETE FROM rr.p WHERE k >= 500;
SELECT items, rr.sticky('rr.sp') AS sticky FROM cuckoo_store_info('rr.sp');
SELECT rr.drop_triggers('rr.p', 'cuckoo_track_');
SELECT rr.drop_triggers(p, 'cuckoo_track_part_') FROM unnest('{rr.p1,rr.p2}'::regclass[]) p;
SELECT rr.create_trigger('rr.p', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT rr.create_trigger('rr.p1', 'cuckoo_track_part_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT items, rr.sticky('rr.sp') AS sticky FROM cuckoo_store_info('rr.sp');
SELECT rr.create_trigger('rr.p2', 'cuckoo_track_part_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT items, rr.sticky('rr.sp') <= 20 AS sticky_few FROM cuckoo_store_info('rr.sp');
SELECT missing, rows, items FROM cuckoo_store_verify('rr.sp');

-- a trigger of another name, or of another function, or on an untracked
-- table rebuilds nothing: the sticky value 777 stays
INSERT INTO rr.t SELECT 6000 + g, 777 FROM generate_series(1, 3) g;
DELETE FROM rr.t WHERE k = 777;
SELECT cuckoo_store_contains('rr.s', 777::int8) AS sticky;
CREATE TABLE rr.other (k int8);
CREATE FUNCTION rr.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER cuckoo_track_insert AFTER INSERT ON rr.other FOR EACH STATEMENT EXECUTE FUNCTION rr.noop();
SELECT rr.create_trigger('rr.other', 'cuckoo_track_', e) FROM unnest(ARRAY['update', 'delete', 'truncate']) e;
CREATE TRIGGER other_trigger AFTER INSERT ON rr.t FOR EACH STATEMENT EXECUTE FUNCTION rr.noop();
DROP TRIGGER cuckoo_track_truncate ON rr.t;
CREATE TRIGGER cuckoo_track_truncate BEFORE TRUNCATE ON rr.t FOR EACH STATEMENT EXECUTE FUNCTION rr.noop();
SELECT cuckoo_store_contains('rr.s', 777::int8) AS sticky;
-- the right function again: rebuilt
DROP TRIGGER cuckoo_track_truncate ON rr.t;
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', 'truncate');
SELECT cuckoo_store_contains('rr.s', 777::int8) AS sticky;
SELECT missing, rows, items FROM cuckoo_store_verify('rr.s');

-- pg_restore -j may load the trackings after the tables' triggers: each
-- CREATE TRIGGER finds no tracking then, and the insert of the trackings
-- rebuilds the store (cuckoo_track_restored); a value added directly goes
CREATE TABLE rr.saved AS SELECT * FROM cuckoo_store_tracking WHERE store = 'rr.s'::regclass;
SELECT cuckoo_store_add('rr.s', 31337::int8);
SELECT rr.drop_triggers('rr.t', 'cuckoo_track_');
DELETE FROM cuckoo_store_tracking WHERE store = 'rr.s'::regclass;
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT cuckoo_store_contains('rr.s', 31337::int8) AS direct_before;
INSERT INTO cuckoo_store_tracking SELECT * FROM rr.saved;
SELECT cuckoo_store_contains('rr.s', 31337::int8) AS direct_after;
SELECT missing, rows, items FROM cuckoo_store_verify('rr.s');
-- a tracking inserted while a tracked table lacks triggers rebuilds nothing
SELECT cuckoo_store_add('rr.s', 31337::int8);
DELETE FROM cuckoo_store_tracking WHERE store = 'rr.s'::regclass;
DROP TRIGGER cuckoo_track_update ON rr.t;
INSERT INTO cuckoo_store_tracking SELECT * FROM rr.saved;
SELECT cuckoo_store_contains('rr.s', 31337::int8) AS direct_kept;
SELECT rr.create_trigger('rr.t', 'cuckoo_track_', 'update');
SELECT cuckoo_store_contains('rr.s', 31337::int8) AS direct_gone;

-- a rebuild that fails is a warning, and the CREATE TRIGGER stands: a
-- store whose rows were not restored (pg_dump --exclude-table-data) has no
-- header row; without the trigger, a restore that goes on after the error
-- would leave updates that nothing follows
SELECT cuckoo_store_create('rr.e', 1000) IS NOT NULL AS created;
CREATE TABLE rr.et (k int8);
INSERT INTO rr.et SELECT g FROM generate_series(1, 10) g;
SELECT cuckoo_store_track('rr.e', 'rr.et', 'k');
SELECT rr.drop_triggers('rr.et', 'cuckoo_track_');
CREATE TABLE rr.e_rows AS SELECT * FROM rr.e;
DELETE FROM rr.e;
SELECT rr.create_trigger('rr.et', 'cuckoo_track_', e) FROM unnest(ARRAY['insert', 'update', 'delete', 'truncate']) e;
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'rr.et'::regclass AND tgname LIKE 'cuckoo_track_%';
-- the writes are followed: the broken store refuses them, none is lost
UPDATE rr.et SET k = 11 WHERE k = 10;
-- the store's rows restored, then rebuilt
INSERT INTO rr.e SELECT * FROM rr.e_rows;
SELECT cuckoo_store_rebuild('rr.e');
SELECT missing, rows, items FROM cuckoo_store_verify('rr.e');

-- the rebuild writes the store with the rights of the store's owner, in a
-- security-restricted operation, not with the restoring superuser's: a
-- trigger the store's owner put on the store (pg_dump restores it before
-- the tracking triggers when its name sorts first) runs as that owner
CREATE ROLE regress_rr_alice;
GRANT USAGE, CREATE ON SCHEMA rr TO regress_rr_alice;
SET ROLE regress_rr_alice;
SELECT cuckoo_store_create('rr.astore', 1000) IS NOT NULL AS created;
CREATE TABLE rr.at (k int8);
INSERT INTO rr.at SELECT g FROM generate_series(1, 10) g;
SELECT cuckoo_store_track('rr.astore', 'rr.at', 'k');
CREATE TABLE rr.who (who name);
CREATE FUNCTION rr.who() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO rr.who VALUES (current_user); RETURN NULL; END $$;
CREATE TRIGGER a_who AFTER UPDATE ON rr.astore FOR EACH STATEMENT EXECUTE FUNCTION rr.who();
RESET ROLE;
DROP TRIGGER cuckoo_track_insert ON rr.at;
SELECT rr.create_trigger('rr.at', 'cuckoo_track_', 'insert');
SELECT count(*) > 0 AS fired, bool_and(who = 'regress_rr_alice') AS as_store_owner FROM rr.who;
SELECT missing, rows, items FROM cuckoo_store_verify('rr.astore');
-- a store whose owner is not a member of a tracked table's owner is not
-- rebuilt here (the rebuild would read the table with the owner's rights)
CREATE ROLE regress_rr_bob;
ALTER TABLE rr.astore OWNER TO regress_rr_bob;
DROP TRIGGER cuckoo_track_insert ON rr.at;
SELECT rr.create_trigger('rr.at', 'cuckoo_track_', 'insert');
ALTER TABLE rr.astore OWNER TO regress_rr_alice;

-- the tracking triggers depend (AUTO) on the stores of their table's
-- trackings, so that pg_restore -j creates them after the stores' rows:
-- two stores track rr.w, each of its four triggers depends on both
CREATE TABLE rr.w (k int8);
INSERT INTO rr.w SELECT g FROM generate_series(1, 100) g;
SELECT cuckoo_store_create('rr.w1', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_create('rr.w2', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_track('rr.w1', 'rr.w', 'k'), cuckoo_store_track('rr.w2', 'rr.w', 'k');
CREATE FUNCTION rr.deps(tab regclass) RETURNS text LANGUAGE sql AS
  $$ SELECT coalesce(string_agg(t.tgname || '>' || d.refobjid::regclass::text || ':' || d.deptype::text, ' ' ORDER BY t.tgname, d.refobjid::regclass::text), '')
     FROM pg_trigger t JOIN pg_depend d ON d.classid = 'pg_trigger'::regclass AND d.objid = t.oid
                                        AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> tab
     WHERE t.tgrelid = tab $$;
SELECT rr.deps('rr.w');
-- untracking one keeps the triggers for the other, and only its dependencies
SELECT cuckoo_store_untrack('rr.w1', 'rr.w', 'k');
SELECT rr.deps('rr.w');
SELECT cuckoo_store_track('rr.w1', 'rr.w', 'k');
-- dropping a store drops the triggers with it; those of a table another
-- store still tracks are given back, and the table is still followed
DROP TABLE rr.w1;
SELECT rr.deps('rr.w');
INSERT INTO rr.w VALUES (5555);
SELECT cuckoo_store_contains('rr.w2', 5555::int8) AS followed,
       (SELECT count(*) FROM cuckoo_store_tracking WHERE tab = 'rr.w'::regclass) AS trackings;
-- the last store dropped: no trigger left
DROP TABLE rr.w2;
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgrelid = 'rr.w'::regclass;
-- a partitioned tree: every level's triggers depend on the store; a
-- partition attached later too
SELECT cuckoo_store_create('rr.wp', 1000) IS NOT NULL AS created;
CREATE TABLE rr.pw (id int, k int8) PARTITION BY RANGE (id);
CREATE TABLE rr.pw1 PARTITION OF rr.pw FOR VALUES FROM (0) TO (10);
SELECT cuckoo_store_track('rr.wp', 'rr.pw', 'k');
CREATE TABLE rr.pw2 PARTITION OF rr.pw FOR VALUES FROM (10) TO (20);
SELECT p::regclass AS tab, rr.deps(p) FROM unnest('{rr.pw,rr.pw1,rr.pw2}'::regclass[]) p;

DROP SCHEMA rr CASCADE;
DROP ROLE regress_rr_alice;
DROP ROLE regress_rr_bob;
