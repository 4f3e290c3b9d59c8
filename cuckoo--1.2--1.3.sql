-- cuckoo 1.2 -> 1.3: the value path (stored filters are kept out of line,
-- uncompressed, and probed by slices) and stored filters (cuckoo_store_*).
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.3'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- The value path (issue 21, point 1)
--
-- A filter is random bits: pglz and lz4 never shrink it, and every attempt
-- costs a pass over the value on each write.  From 1.3 the type's storage is
-- EXTERNAL: a large value goes out of line uncompressed, and a probe of a few
-- keys reads only the TOAST chunks that hold their buckets (docs/DESIGN.md,
-- "The value path").
--
-- ALTER TYPE ... SET (STORAGE = ...) (PostgreSQL 13 on) changes the type's
-- default for columns created from now on, and is carried to the domains
-- over the type; it changes no existing column and no stored value.  So the
-- columns that already hold filters are switched here too, one ALTER TABLE
-- ... SET STORAGE EXTERNAL each: a catalog change only (no table rewrite, no
-- stored value changes: values already compressed stay so and are read whole
-- until they are written again).  Only columns still at the old default
-- (EXTENDED) are switched: a column its owner set to MAIN, EXTERNAL or PLAIN
-- on purpose keeps its setting.  Switched: columns of the type, or of a
-- domain over it, in tables, partitioned tables (ONLY: each partition is
-- switched by its own row) and materialized views.  Not switched: arrays of
-- filters and composite types holding one (their values are stored whole, as
-- one datum of another type), views (no storage) and foreign tables
-- (stored elsewhere).
-- ---------------------------------------------------------------------------

-- Run by a superuser for whoever updates (cuckoo is trusted): catalogs,
-- functions and operators are named with their schema, so that nothing a
-- role planted in the extension's schema is called; the type is the
-- extension's own, found by the extension's schema.

DO $value_path$
DECLARE
    filter_type pg_catalog.oid;
    col record;
BEGIN
    SELECT t.oid INTO STRICT filter_type
      FROM pg_catalog.pg_type t, pg_catalog.pg_extension e
     WHERE e.extname OPERATOR(pg_catalog.=) 'cuckoo'
       AND t.typnamespace OPERATOR(pg_catalog.=) e.extnamespace
       AND t.typname OPERATOR(pg_catalog.=) 'cuckoofilter';
    EXECUTE pg_catalog.format('ALTER TYPE %s SET (STORAGE = external)',
                              filter_type::pg_catalog.regtype);
    FOR col IN
        WITH RECURSIVE filter_types(oid) AS (
            SELECT filter_type
            UNION
            SELECT d.oid FROM pg_catalog.pg_type d, filter_types f
             WHERE d.typtype OPERATOR(pg_catalog.=) 'd'::pg_catalog."char"
               AND d.typbasetype OPERATOR(pg_catalog.=) f.oid)
        SELECT c.oid::pg_catalog.regclass AS rel, c.relkind, a.attname
          FROM pg_catalog.pg_attribute a
          JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid
          JOIN filter_types f ON f.oid OPERATOR(pg_catalog.=) a.atttypid
         WHERE c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,m}'::pg_catalog."char"[])
           AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
           AND a.attstorage OPERATOR(pg_catalog.=) 'x'::pg_catalog."char"
         ORDER BY c.oid, a.attnum
    LOOP
        IF col.relkind OPERATOR(pg_catalog.=) 'm'::pg_catalog."char" THEN
            EXECUTE pg_catalog.format('ALTER MATERIALIZED VIEW %s ALTER COLUMN %I SET STORAGE EXTERNAL',
                                      col.rel, col.attname);
        ELSE
            EXECUTE pg_catalog.format('ALTER TABLE ONLY %s ALTER COLUMN %I SET STORAGE EXTERNAL',
                                      col.rel, col.attname);
        END IF;
    END LOOP;
END
$value_path$;

-- ---------------------------------------------------------------------------
-- Stored filters (cuckoo_store_*)
-- A filter kept as a table of small segments (docs/DESIGN.md, "Stored
-- filters"; routing: docs/FORMAT.md section 14).  SECURITY INVOKER: the
-- functions reach the store table only through SQL run as the caller.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_store_create(name text, capacity bigint DEFAULT 1000000,
                                    fpr float8 DEFAULT 0.01)
    RETURNS regclass
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_create(text, bigint, float8) IS
    'creates a stored filter: a table of small segments for capacity items at false-positive rate fpr';

CREATE FUNCTION cuckoo_store_add(store regclass, value anycompatible) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_add(regclass, anycompatible) IS
    'adds one occurrence of value to the stored filter (changes one segment row)';

CREATE FUNCTION cuckoo_store_add_if_absent(store regclass, value anycompatible) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_add_if_absent(regclass, anycompatible) IS
    'adds value unless the stored filter already reports it; true if it was added';

CREATE FUNCTION cuckoo_store_remove(store regclass, value anycompatible) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_remove(regclass, anycompatible) IS
    'removes one occurrence of value from the stored filter; true if one was found';

CREATE FUNCTION cuckoo_store_contains(store regclass, value anycompatible) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_store_contains(regclass, anycompatible) IS
    'false if value is certainly not in the stored filter, true if it may be';

CREATE FUNCTION cuckoo_store_add_array(store regclass, vals anycompatiblearray) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_add_array(regclass, anycompatiblearray) IS
    'adds every non-null element; returns how many were added';

CREATE FUNCTION cuckoo_store_add_if_absent_array(store regclass, vals anycompatiblearray) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_add_if_absent_array(regclass, anycompatiblearray) IS
    'adds each non-null element not already reported; returns how many were added';

CREATE FUNCTION cuckoo_store_remove_array(store regclass, vals anycompatiblearray) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_remove_array(regclass, anycompatiblearray) IS
    'removes one occurrence of each non-null element; returns how many were found';

CREATE FUNCTION cuckoo_store_contains_array(store regclass, vals anycompatiblearray) RETURNS boolean[]
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_store_contains_array(regclass, anycompatiblearray) IS
    'one answer per element (NULL for NULL), each segment read once';

CREATE FUNCTION cuckoo_store_info(store regclass,
                                  OUT items bigint,
                                  OUT bytes bigint,
                                  OUT segments int,
                                  OUT fpr float8,
                                  OUT value_type text,
                                  OUT capacity bigint,
                                  OUT expected_fpr float8)
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_store_info(regclass) IS
    'items, stored bytes, segments, target and expected false-positive rate, and value type of a stored filter';

-- Living filters (cuckoo_store_track)
-- A tracking keeps a stored filter in step with a table's column, in the
-- same transaction as every change of its rows (docs/DESIGN.md, "Living
-- filters").  The trackings are the rows of cuckoo_store_tracking, which
-- pg_dump dumps; a tracked table has four statement triggers that call
-- cuckoo_track_trigger, which changes the store with the rights of the
-- table's owner.  The table is changed only by cuckoo_store_track and
-- cuckoo_store_untrack (and the event trigger below, on DROP).
CREATE TABLE cuckoo_store_tracking (
    store regclass NOT NULL,
    tab   regclass NOT NULL,
    col   name NOT NULL,
    PRIMARY KEY (store, tab, col)
);
GRANT SELECT ON cuckoo_store_tracking TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('cuckoo_store_tracking', '');
COMMENT ON TABLE cuckoo_store_tracking IS
    'the columns each stored filter is kept in step with (cuckoo_store_track)';

CREATE FUNCTION cuckoo_store_track(store regclass, tab regclass, col name) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_track(regclass, regclass, name) IS
    'adds the values of tab.col to the store and keeps it in step with every change; returns how many values were added';

CREATE FUNCTION cuckoo_store_untrack(store regclass, tab regclass, col name) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_untrack(regclass, regclass, name) IS
    'stops keeping the store in step with tab.col (its values stay in the store)';

CREATE FUNCTION cuckoo_store_verify(store regclass,
                                    OUT missing bigint,
                                    OUT rows bigint,
                                    OUT items bigint,
                                    OUT trackings int)
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_verify(regclass) IS
    'scans the tracked columns: values the store does not find (must be 0), values scanned, the store''s items, trackings';

CREATE FUNCTION cuckoo_track_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_trigger() IS
    'statement trigger of a table tracked by a stored filter (cuckoo_store_track)';

CREATE FUNCTION cuckoo_track_drop() RETURNS event_trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_drop() IS
    'deletes the trackings of dropped tables and columns (event trigger)';
CREATE EVENT TRIGGER cuckoo_track_drop ON sql_drop
    EXECUTE PROCEDURE cuckoo_track_drop();

CREATE FUNCTION cuckoo_track_ddl() RETURNS event_trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_ddl() IS
    'refuses to make a tracked table a partition or part of an inheritance tree (event trigger)';
CREATE EVENT TRIGGER cuckoo_track_ddl ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
    EXECUTE PROCEDURE cuckoo_track_ddl();
