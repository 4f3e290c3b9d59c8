-- cuckoo 1.2 -> 1.3: the value path (stored filters are kept out of line,
-- uncompressed, and probed by slices).
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
-- one datum of another type), views (no storage), foreign tables (stored
-- elsewhere), and the catalogs.
-- ---------------------------------------------------------------------------

ALTER TYPE cuckoofilter SET (STORAGE = external);

DO $value_path$
DECLARE
    col record;
BEGIN
    FOR col IN
        SELECT c.oid::regclass AS rel, c.relkind, a.attname
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_type t ON t.oid = a.atttypid
        WHERE c.relkind IN ('r', 'p', 'm')
          AND a.attnum > 0 AND NOT a.attisdropped
          AND a.attstorage = 'x'
          AND (a.atttypid = 'cuckoofilter'::regtype
               OR (t.typtype = 'd' AND t.typbasetype = 'cuckoofilter'::regtype))
          AND c.relnamespace <> 'pg_catalog'::regnamespace
        ORDER BY c.oid, a.attnum
    LOOP
        IF col.relkind = 'm' THEN
            EXECUTE format('ALTER MATERIALIZED VIEW %s ALTER COLUMN %I SET STORAGE EXTERNAL',
                           col.rel, col.attname);
        ELSE
            EXECUTE format('ALTER TABLE ONLY %s ALTER COLUMN %I SET STORAGE EXTERNAL',
                           col.rel, col.attname);
        END IF;
    END LOOP;
END
$value_path$;
