-- cuckoo 1.4 -> 1.5: cuckoo_store_contains gets a planner support function;
-- the living filters' event trigger follows CREATE SCHEMA's subcommands.
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
