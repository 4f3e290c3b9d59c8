-- cuckoo 1.4 -> 1.5: cuckoo_store_contains gets a planner support function;
-- the living filters' event triggers follow CREATE SCHEMA's subcommands and
-- let DROP SCHEMA ... CASCADE drop a partition only with its root; the bulk
-- load of a stored filter, cuckoo_store_load_agg.
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.5'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- cuckoo_store_contains gets a planner support function (as cuckoo_contains
-- has): the planner calls it while it estimates the quals, so the library
-- is loaded, and the batched probe applies, from the first query of a
-- session; it also gives the probe's cost.  ALTER FUNCTION keeps the
-- function's OID, and with it every dependent object, owner, privilege and
-- comment.
--
-- Run by a superuser for whoever updates (cuckoo is trusted).
-- test/cluster/upgrade.sh checks that an updated database has the same
-- definitions as a fresh 1.5 install.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_store_contains_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

ALTER FUNCTION cuckoo_store_contains(pg_catalog.regclass, anycompatible)
    SUPPORT cuckoo_store_contains_support;

-- ---------------------------------------------------------------------------
-- Living filters (docs/RELIABILITY.md): a partition of a tracked tree made
-- by CREATE SCHEMA ... CREATE TABLE ... PARTITION OF got no triggers (the
-- subcommands fire no event trigger; cuckoo_track_ddl now also runs at the
-- end of CREATE SCHEMA, and refuses CREATE FOREIGN TABLE ... PARTITION OF
-- such a tree, which also escaped it), and DROP SCHEMA ... CASCADE let such a partition
-- go whenever the command dropped any tracked table (cuckoo_track_drop_start
-- notes each partition's root when such a command starts, so it goes only
-- with its own root).  An event trigger's tags cannot be altered: it is
-- dropped and created again (same name, owner: the superuser running this).
-- ---------------------------------------------------------------------------

DROP EVENT TRIGGER cuckoo_track_ddl;
CREATE EVENT TRIGGER cuckoo_track_ddl ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE SCHEMA', 'CREATE FOREIGN TABLE')
    EXECUTE PROCEDURE cuckoo_track_ddl();

CREATE FUNCTION cuckoo_track_drop_start() RETURNS event_trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_drop_start() IS
    'notes the root of every partition of a tracked tree before a command that may drop partitions with other objects, so that cuckoo_track_drop lets a partition go only with its root (event trigger)';
CREATE EVENT TRIGGER cuckoo_track_drop_start ON ddl_command_start
    WHEN TAG IN ('DROP SCHEMA', 'DROP OWNED', 'DROP EXTENSION', 'DROP ACCESS METHOD')
    EXECUTE PROCEDURE cuckoo_track_drop_start();

COMMENT ON FUNCTION cuckoo_track_drop() IS
    'deletes the trackings of dropped stores, tables and columns; refuses to drop a partition of a tracked partitioned table unless its root is dropped with it (event trigger)';

COMMENT ON FUNCTION cuckoo_track_ddl() IS
    'refuses to make a tracked table a partition or part of an inheritance tree; a partition created (also by CREATE SCHEMA) in or attached to a tracked partitioned table gets the partition triggers and its values are added, a partition detached has both removed; refuses a foreign table as such a partition (event trigger)';

-- ---------------------------------------------------------------------------
-- The bulk load of a stored filter (docs/DESIGN.md, "The bulk load"):
-- cuckoo_store_load_agg(store, value) adds one occurrence of every non-null
-- value of its rows and returns how many.  Its transitions hash the values
-- (in parallel workers when the query is planned so); its state spills to
-- temporary files by segment range; its final function applies each segment
-- once, in segment order, through SQL run as the caller (UPDATE and SELECT on
-- the store).
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_store_load_trans(internal, regclass, anycompatible)
    RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION cuckoo_store_load_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION cuckoo_store_load_serialize(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_store_load_deserialize(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_store_load_final(internal, regclass, anycompatible)
    RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE AGGREGATE cuckoo_store_load_agg(store regclass, value anycompatible) (
    SFUNC = cuckoo_store_load_trans,
    STYPE = internal,
    FINALFUNC = cuckoo_store_load_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = cuckoo_store_load_combine,
    SERIALFUNC = cuckoo_store_load_serialize,
    DESERIALFUNC = cuckoo_store_load_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_store_load_agg(regclass, anycompatible) IS
    'adds one occurrence of every non-null value of the rows to the stored filter (a bulk load, parallel where the query is); returns how many were added';
