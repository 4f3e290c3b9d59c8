-- cuckoo 1.3 -> 1.4: cuckoo_store_info lists the store's trackings; the
-- comments of the living filters' functions say what partition tracking
-- made them do.
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.4'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- cuckoo_store_info gains a last output column, trackings text[]: the
-- (table, column) pairs the store is kept in step with, as
-- schema.table.column (a partitioned table once, by its root).
--
-- As 1.1 -> 1.2 did for cuckoo_info: DROP FUNCTION + CREATE FUNCTION would
-- fail (or, with CASCADE, destroy user objects) wherever a view or a
-- function body calls cuckoo_store_info, and CREATE OR REPLACE cannot change
-- a function's output columns.  So the existing pg_proc row is rewritten in
-- place (its OID, and with it every dependent object, owner, privilege and
-- comment, stays), its argument lists copied from a temporary function
-- declared with the 1.4 signature, which is then dropped.  The new column
-- comes after the 7 of 1.3, so a stored reference to column n still means
-- the same column.  The C function builds its row from the call's result
-- type, column by name, so it serves both definitions.
--
-- Run by a superuser for whoever updates (cuckoo is trusted): catalogs and
-- operators are named with their schema.  test/cluster/upgrade.sh checks
-- that an updated database has the same definitions as a fresh 1.4 install.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_store_info_1_4_(store pg_catalog.regclass,
                                       OUT items pg_catalog.int8,
                                       OUT bytes pg_catalog.int8,
                                       OUT segments pg_catalog.int4,
                                       OUT fpr pg_catalog.float8,
                                       OUT value_type pg_catalog.text,
                                       OUT capacity pg_catalog.int8,
                                       OUT expected_fpr pg_catalog.float8,
                                       OUT trackings pg_catalog.text[])
    RETURNS record
    AS 'MODULE_PATHNAME', 'cuckoo_store_info' LANGUAGE C STABLE STRICT PARALLEL SAFE;

UPDATE pg_catalog.pg_proc AS p
   SET pronargs = n.pronargs, pronargdefaults = n.pronargdefaults,
       proargtypes = n.proargtypes, proallargtypes = n.proallargtypes,
       proargmodes = n.proargmodes, proargnames = n.proargnames,
       proargdefaults = n.proargdefaults
  FROM pg_catalog.pg_proc AS n
 WHERE p.oid OPERATOR(pg_catalog.=) 'cuckoo_store_info(pg_catalog.regclass)'::pg_catalog.regprocedure
   AND n.oid OPERATOR(pg_catalog.=) 'cuckoo_store_info_1_4_(pg_catalog.regclass)'::pg_catalog.regprocedure;

DROP FUNCTION cuckoo_store_info_1_4_(pg_catalog.regclass);

COMMENT ON FUNCTION cuckoo_store_info(pg_catalog.regclass) IS
    'items, stored bytes, segments, target and expected false-positive rate, value type and tracked columns (schema.table.column) of a stored filter';

-- ---------------------------------------------------------------------------
-- Comments that partition tracking made untrue (docs/DESIGN.md, "Living
-- filters", partitioned tables).
-- ---------------------------------------------------------------------------

COMMENT ON FUNCTION cuckoo_store_track(pg_catalog.regclass, pg_catalog.regclass, pg_catalog.name) IS
    'adds the values of tab.col (every partition of a partitioned tab) to the store and keeps it in step with every change; returns how many values were added';

COMMENT ON FUNCTION cuckoo_track_trigger() IS
    'statement trigger of a table tracked by a stored filter and of every partition of a tracked partitioned table (cuckoo_store_track)';

COMMENT ON FUNCTION cuckoo_track_drop() IS
    'deletes the trackings of dropped stores, tables and columns; refuses to drop a partition of a tracked partitioned table (event trigger)';

COMMENT ON FUNCTION cuckoo_track_ddl() IS
    'refuses to make a tracked table a partition or part of an inheritance tree; a partition created in or attached to a tracked partitioned table gets the partition triggers and its values are added, a partition detached has both removed (event trigger)';
