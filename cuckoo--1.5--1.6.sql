-- cuckoo 1.5 -> 1.6: a stored filter keeps each segment as chunk rows
-- (segment, chunk, bytes) instead of one value, so that a one-key change
-- of a grown store writes a few kB of WAL (docs/DESIGN.md, "Growth", and
-- docs/FORMAT.md section 14); cuckoo_store_segments reads a store's
-- segments back as filters; cuckoo_store_rebuild makes a tracked store
-- exact again.
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.6'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- cuckoo_store_segments(store): the header and the segments of a store as
-- filters, each put together from its chunk rows and validated, read in one
-- statement (one snapshot).  Clients read a store through it.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_store_segments(store regclass)
    RETURNS TABLE (segment int, f cuckoofilter)
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION cuckoo_store_segments(regclass) IS
    'the header (segment -1) and every segment of a stored filter as filters, put together from their chunk rows and validated';

-- ---------------------------------------------------------------------------
-- Every store is converted in place (its OID, owner, privileges, trackings
-- and storage parameters kept): a store is an ordinary table with the
-- columns segment int4, f cuckoofilter, fpr float8, capacity int8 and
-- segments int4, as the library recognises it (store_check_shape).  Each
-- row's f becomes its chunk rows: chunk 0 in the row itself, chunks 1 ..
-- in new rows, 1,984 bytes each (the last 1 to 1,984); f is dropped and the
-- primary key becomes (segment, chunk).  Run by a superuser for whoever
-- updates (cuckoo is trusted).  A store with a view or a constraint on its
-- column f stops the update (DROP COLUMN f names the object), as it
-- should: the column goes.
-- ---------------------------------------------------------------------------

DO $cuckoo_update$
DECLARE
  st record;
  pk name;
BEGIN
  FOR st IN
    SELECT c.oid::pg_catalog.regclass AS rel
    FROM pg_catalog.pg_class c
    WHERE c.relkind OPERATOR(pg_catalog.=) 'r'
      AND c.relnamespace OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.regnamespace
      AND (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute a
           WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0
             AND NOT a.attisdropped
             AND (a.attname, a.atttypid) IN (('segment', 'pg_catalog.int4'::pg_catalog.regtype),
                                             ('f', 'cuckoofilter'::pg_catalog.regtype),
                                             ('fpr', 'pg_catalog.float8'::pg_catalog.regtype),
                                             ('capacity', 'pg_catalog.int8'::pg_catalog.regtype),
                                             ('segments', 'pg_catalog.int4'::pg_catalog.regtype)))
          OPERATOR(pg_catalog.=) 5
    ORDER BY c.oid
  LOOP
    SELECT con.conname INTO pk FROM pg_catalog.pg_constraint con
    WHERE con.conrelid OPERATOR(pg_catalog.=) st.rel AND con.contype OPERATOR(pg_catalog.=) 'p';
    IF pk IS NOT NULL THEN
      EXECUTE pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', st.rel, pk);
    END IF;
    EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN chunk pg_catalog.int4, '
                              'ADD COLUMN bytes pg_catalog.bytea, ALTER COLUMN f DROP NOT NULL', st.rel);
    EXECUTE pg_catalog.format('UPDATE %s SET chunk = 0, bytes = pg_catalog.substr(f::pg_catalog.bytea, 1, 1984)', st.rel);
    EXECUTE pg_catalog.format('INSERT INTO %1$s (segment, chunk, bytes) '
                              'SELECT s.segment, g, pg_catalog.substr(s.f::pg_catalog.bytea, g OPERATOR(pg_catalog.*) 1984 OPERATOR(pg_catalog.+) 1, 1984) '
                              'FROM %1$s s, pg_catalog.generate_series(1, (pg_catalog.octet_length(s.f::pg_catalog.bytea) OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) 1984) g '
                              'WHERE s.chunk OPERATOR(pg_catalog.=) 0', st.rel);
    EXECUTE pg_catalog.format('ALTER TABLE %s DROP COLUMN f, ALTER COLUMN chunk SET NOT NULL, '
                              'ALTER COLUMN bytes SET NOT NULL, ALTER COLUMN bytes SET STORAGE EXTERNAL, '
                              'ADD PRIMARY KEY (segment, chunk)', st.rel);
  END LOOP;
END
$cuckoo_update$;

-- ---------------------------------------------------------------------------
-- cuckoo_store_rebuild(store): a tracked store emptied and filled again from
-- the columns it tracks (docs/DESIGN.md, "Living filters", "Rebuild").
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_store_rebuild(store regclass) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_rebuild(regclass) IS
    'empties the store and adds again the values of every column it tracks, under SHARE locks of the tracked tables (READ COMMITTED only): what untrack, drop, create and track would give; values added directly are not kept; returns how many values were added';

-- ---------------------------------------------------------------------------
-- A restore gives what a rebuild would: cuckoo_track_ddl also runs at the
-- end of CREATE TRIGGER, and when such a command (not cuckoo_store_track's)
-- gives the last of a store's tracked tables all its tracking triggers, the
-- store is rebuilt.  pg_dump writes the triggers after all the data, so the
-- store's dumped rows (sticky values and all) are replaced by a rebuild from
-- the restored rows (docs/DESIGN.md, "Living filters", "Where the tracking
-- is recorded").  An event trigger's tags cannot be altered: it is dropped
-- and created again (same name, owner: the superuser running this).
-- ---------------------------------------------------------------------------

DROP EVENT TRIGGER cuckoo_track_ddl;
CREATE EVENT TRIGGER cuckoo_track_ddl ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE SCHEMA', 'CREATE FOREIGN TABLE', 'CREATE TRIGGER')
    EXECUTE PROCEDURE cuckoo_track_ddl();
COMMENT ON FUNCTION cuckoo_track_ddl() IS
    'refuses to make a tracked table a partition or part of an inheritance tree; a partition created (also by CREATE SCHEMA) in or attached to a tracked partitioned table gets the partition triggers and its values are added, a partition detached has both removed; refuses a foreign table as such a partition; rebuilds a store when a CREATE TRIGGER (a restore) gives the last of its tracked tables all its tracking triggers (event trigger)';

-- pg_restore -j schedules the trackings' data by its size, often after the
-- triggers of the tables they track: their insert rebuilds the stores then.

CREATE FUNCTION cuckoo_track_restored() RETURNS trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_restored() IS
    'rebuilds each store that inserted trackings (a parallel restore''s, loaded after the tables'' triggers) name, once its tracked tables have all their tracking triggers; not for cuckoo_store_track''s own insert (trigger of cuckoo_store_tracking)';
CREATE TRIGGER cuckoo_store_tracking_restored AFTER INSERT ON cuckoo_store_tracking
    REFERENCING NEW TABLE AS cuckoo_new
    FOR EACH STATEMENT EXECUTE PROCEDURE cuckoo_track_restored();

-- ---------------------------------------------------------------------------
-- A restore by a role that is not a superuser (a database owner's
-- pg_restore --no-owner, or pg_dump | psql) loads the trackings: PUBLIC may
-- insert into cuckoo_store_tracking (nothing else), and a BEFORE INSERT row
-- trigger refuses (42501) a row its inserting role could not have made with
-- cuckoo_store_track (docs/DESIGN.md, "Living filters", "Privileges").
-- ---------------------------------------------------------------------------

GRANT INSERT ON cuckoo_store_tracking TO PUBLIC;

CREATE FUNCTION cuckoo_track_tracking_check() RETURNS trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_tracking_check() IS
    'refuses a tracking inserted by a role that is not a superuser unless that role could have made it with cuckoo_store_track: owner of the table, SELECT and UPDATE on the store for it and the table''s owner, a table that may be tracked (trigger of cuckoo_store_tracking)';
CREATE TRIGGER cuckoo_store_tracking_check BEFORE INSERT ON cuckoo_store_tracking
    FOR EACH ROW EXECUTE PROCEDURE cuckoo_track_tracking_check();

-- ---------------------------------------------------------------------------
-- The tracking triggers depend (AUTO) on the stores of their tables'
-- trackings, so that pg_restore -j creates them only after the stores' rows
-- are loaded (docs/DESIGN.md, "Living filters", "Where the tracking is
-- recorded").  1.5's trackings get theirs here, by a function used once.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_track_depend_all() RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
SELECT cuckoo_track_depend_all();
DROP FUNCTION cuckoo_track_depend_all();
