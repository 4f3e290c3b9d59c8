-- cuckoo 1.1 -> 1.2: filters that grow (cuckoo_create's expansion, format
-- version 2) and filters that roll over time (cuckoo_rotate); cuckoo_info
-- reports the new figures; a fourth cuckoo_agg form that grows.
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.2'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- cuckoo_create gains a last parameter, expansion int DEFAULT 0, and
-- cuckoo_info gains output columns.  DROP FUNCTION + CREATE FUNCTION would
-- fail (or, with CASCADE, destroy user objects) wherever a column default,
-- a generated column, a CHECK, a view or a function body calls them, and
-- CREATE OR REPLACE cannot change a function's parameters.  So the existing
-- pg_proc rows are rewritten in place: their OIDs, and with them every
-- dependent object, owner, privilege and comment, stay.  The new parameter
-- lists (types, names, modes, defaults) are copied from temporary functions
-- declared with the 1.2 signatures, so they are exactly what CREATE FUNCTION
-- in cuckoo--1.2.sql writes; the temporaries are then dropped.
--
-- Why this is sound:
--  - Calls stored before the update name the function by OID with the
--    arguments they had (6 for cuckoo_create).  The planner adds the new
--    default for a missing trailing argument, and the C function also reads
--    PG_NARGS(), so a 6-argument call gets expansion 0: a 1.1 filter, byte
--    for byte.
--  - cuckoo_info's new columns come after the 13 of 1.1, so a stored
--    reference to column n (a view's (cuckoo_info(f)).items, or
--    cuckoo_info(f) i with i.items) still means the same column.
--  - The scripts of an extension run as a superuser (cuckoo is trusted), who
--    may update pg_proc; the update invalidates the cached catalog rows like
--    any other catalog change.  Nothing else refers to the parameter lists:
--    argument types and defaults of built-in types record no dependency.
-- test/cluster/upgrade.sh checks that an updated database has the same
-- definitions as a fresh 1.2 install, with such dependents present.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_create_1_2_(capacity bigint,
                                   fpr float8 DEFAULT 0.01,
                                   bucket_size int DEFAULT 4,
                                   fingerprint_bits int DEFAULT NULL,
                                   max_kicks int DEFAULT 500,
                                   semisort bool DEFAULT false,
                                   expansion int DEFAULT 0)
    RETURNS cuckoofilter
    AS 'MODULE_PATHNAME', 'cuckoo_create' LANGUAGE C IMMUTABLE PARALLEL SAFE;

UPDATE pg_catalog.pg_proc AS p
   SET pronargs = n.pronargs, pronargdefaults = n.pronargdefaults,
       proargtypes = n.proargtypes, proallargtypes = n.proallargtypes,
       proargmodes = n.proargmodes, proargnames = n.proargnames,
       proargdefaults = n.proargdefaults
  FROM pg_catalog.pg_proc AS n
 WHERE p.oid = 'cuckoo_create(bigint, float8, int, int, int, bool)'::pg_catalog.regprocedure
   AND n.oid = 'cuckoo_create_1_2_(bigint, float8, int, int, int, bool, int)'::pg_catalog.regprocedure;

DROP FUNCTION cuckoo_create_1_2_(bigint, float8, int, int, int, bool, int);

COMMENT ON FUNCTION cuckoo_create(bigint, float8, int, int, int, bool, int) IS
    'an empty filter that holds at least capacity items at false-positive rate fpr; expansion 2: it grows beyond capacity at that rate';

CREATE FUNCTION cuckoo_info_1_2_(f cuckoofilter,
                                 OUT buckets bigint,
                                 OUT bucket_size int,
                                 OUT fingerprint_bits int,
                                 OUT semisort bool,
                                 OUT items bigint,
                                 OUT capacity bigint,
                                 OUT load_factor float8,
                                 OUT bytes bigint,
                                 OUT bits_per_item float8,
                                 OUT expected_fpr float8,
                                 OUT value_type text,
                                 OUT max_kicks int,
                                 OUT is_full bool,
                                 OUT format_version int,
                                 OUT expansion int,
                                 OUT tail_bits int,
                                 OUT initial_buckets bigint,
                                 OUT growth_rounds int,
                                 OUT split_pointer bigint,
                                 OUT entries bigint,
                                 OUT generation_bits int,
                                 OUT generation int,
                                 OUT keep int,
                                 OUT generation_items bigint[])
    RETURNS record
    AS 'MODULE_PATHNAME', 'cuckoo_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

UPDATE pg_catalog.pg_proc AS p
   SET pronargs = n.pronargs, pronargdefaults = n.pronargdefaults,
       proargtypes = n.proargtypes, proallargtypes = n.proallargtypes,
       proargmodes = n.proargmodes, proargnames = n.proargnames,
       proargdefaults = n.proargdefaults
  FROM pg_catalog.pg_proc AS n
 WHERE p.oid = 'cuckoo_info(cuckoofilter)'::pg_catalog.regprocedure
   AND n.oid = 'cuckoo_info_1_2_(cuckoofilter)'::pg_catalog.regprocedure;

DROP FUNCTION cuckoo_info_1_2_(cuckoofilter);

COMMENT ON FUNCTION cuckoo_info(cuckoofilter) IS
    'shape, fill and expected false-positive rate of a filter, and its growth and generations';

-- ---------------------------------------------------------------------------
-- Rolling windows: cuckoo_rotate
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_rotate(f cuckoofilter, keep int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_rotate(cuckoofilter, int) IS
    'the filter with a new generation started and the generations older than the last keep (1 .. 255) dropped';

-- ---------------------------------------------------------------------------
-- cuckoo_agg(value, capacity, fpr, expansion): a fixed-shape filter that
-- grows (expansion 2) instead of failing when the input exceeds capacity.
-- Its state is the filter, held as an expanded object while it grows.
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, anycompatible, bigint, float8, int)
    RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, anycompatible, bigint, float8, int) IS
    'transition function of cuckoo_agg(value, capacity, fpr, expansion) (aggregate context only)';
CREATE FUNCTION cuckoo_agg_grow_combine(cuckoofilter, cuckoofilter) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_combine(cuckoofilter, cuckoofilter) IS
    'combine function of cuckoo_agg(value, capacity, fpr, expansion): the union of two states (aggregate context only)';
CREATE FUNCTION cuckoo_agg_grow_final(cuckoofilter) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_final(cuckoofilter) IS
    'final function of cuckoo_agg(value, capacity, fpr, expansion): the state as a plain filter value';

CREATE AGGREGATE cuckoo_agg(anycompatible, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(anycompatible, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion): with expansion 2 it grows instead of failing; no rows: NULL';

-- smallint
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, smallint, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, smallint, bigint, float8, int) IS
    'transition function of cuckoo_agg(smallint, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(smallint, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(smallint, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- integer
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, integer, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, integer, bigint, float8, int) IS
    'transition function of cuckoo_agg(integer, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(integer, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(integer, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- bigint
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, bigint, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, bigint, bigint, float8, int) IS
    'transition function of cuckoo_agg(bigint, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(bigint, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bigint, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- numeric
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, numeric, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, numeric, bigint, float8, int) IS
    'transition function of cuckoo_agg(numeric, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(numeric, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(numeric, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- text
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, text, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, text, bigint, float8, int) IS
    'transition function of cuckoo_agg(text, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(text, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(text, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- varchar
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, varchar, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, varchar, bigint, float8, int) IS
    'transition function of cuckoo_agg(varchar, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(varchar, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(varchar, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- bpchar
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, bpchar, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, bpchar, bigint, float8, int) IS
    'transition function of cuckoo_agg(bpchar, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(bpchar, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bpchar, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- name
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, name, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, name, bigint, float8, int) IS
    'transition function of cuckoo_agg(name, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(name, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(name, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- "char"
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, "char", bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, "char", bigint, float8, int) IS
    'transition function of cuckoo_agg("char", bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg("char", bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg("char", bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- bytea
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, bytea, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, bytea, bigint, float8, int) IS
    'transition function of cuckoo_agg(bytea, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(bytea, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bytea, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- uuid
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, uuid, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, uuid, bigint, float8, int) IS
    'transition function of cuckoo_agg(uuid, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(uuid, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(uuid, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- date
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, date, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, date, bigint, float8, int) IS
    'transition function of cuckoo_agg(date, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(date, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(date, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- timestamp
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, timestamp, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, timestamp, bigint, float8, int) IS
    'transition function of cuckoo_agg(timestamp, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(timestamp, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamp, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- timestamptz
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, timestamptz, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, timestamptz, bigint, float8, int) IS
    'transition function of cuckoo_agg(timestamptz, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(timestamptz, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamptz, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- boolean
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, boolean, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, boolean, bigint, float8, int) IS
    'transition function of cuckoo_agg(boolean, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(boolean, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(boolean, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- real
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, real, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, real, bigint, float8, int) IS
    'transition function of cuckoo_agg(real, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(real, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(real, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';

-- double precision
CREATE FUNCTION cuckoo_agg_grow_trans(cuckoofilter, double precision, bigint, float8, int) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_grow_trans(cuckoofilter, double precision, bigint, float8, int) IS
    'transition function of cuckoo_agg(double precision, bigint, float8, int)';
CREATE AGGREGATE cuckoo_agg(double precision, bigint, float8, int) (
    SFUNC = cuckoo_agg_grow_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_grow_final,
    COMBINEFUNC = cuckoo_agg_grow_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(double precision, bigint, float8, int) IS
    'a filter of the distinct non-null values created as cuckoo_create(capacity, fpr, expansion => expansion); no rows: NULL';
