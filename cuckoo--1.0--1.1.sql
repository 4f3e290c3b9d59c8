-- cuckoo 1.0 -> 1.1: aggregates that Citus can push down (concrete overloads
-- of cuckoo_agg and the cuckoo_hashset state type).
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.1'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- cuckoo_hashset: the state of cuckoo_agg(value [, fpr]) as a real type, so
-- that Citus can move it between nodes (an internal state cannot travel)
-- ---------------------------------------------------------------------------

CREATE TYPE cuckoo_hashset;

CREATE FUNCTION cuckoo_hashset_in(cstring) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_hashset_out(cuckoo_hashset) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_hashset_recv(internal) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_hashset_send(cuckoo_hashset) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE cuckoo_hashset (
    INPUT = cuckoo_hashset_in,
    OUTPUT = cuckoo_hashset_out,
    RECEIVE = cuckoo_hashset_recv,
    SEND = cuckoo_hashset_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = external
);
COMMENT ON TYPE cuckoo_hashset IS
    'the distinct 64-bit value hashes cuckoo_agg(value [, fpr]) collects, with the value kind and fpr: its state between nodes';
COMMENT ON FUNCTION cuckoo_hashset_in(cstring) IS
    'text input of cuckoo_hashset: base64 of the binary form, fully validated';
COMMENT ON FUNCTION cuckoo_hashset_out(cuckoo_hashset) IS
    'text output of cuckoo_hashset: base64 of the binary form';
COMMENT ON FUNCTION cuckoo_hashset_recv(internal) IS
    'binary input of cuckoo_hashset, validated as strictly as text input';
COMMENT ON FUNCTION cuckoo_hashset_send(cuckoo_hashset) IS
    'binary output of cuckoo_hashset (little-endian)';

CREATE FUNCTION cuckoo_hashset_count(cuckoo_hashset) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_count(cuckoo_hashset) IS
    'number of distinct hashes in a cuckoo_hashset';

CREATE FUNCTION cuckoo_hashset_combine(cuckoo_hashset, cuckoo_hashset) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_combine(cuckoo_hashset, cuckoo_hashset) IS
    'combine function of cuckoo_agg(value [, fpr]) over a concrete type: the union of two states (aggregate context only)';
CREATE FUNCTION cuckoo_hashset_final(cuckoo_hashset) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_final(cuckoo_hashset) IS
    'the filter sized to the hashes of a cuckoo_hashset, as cuckoo_agg(value [, fpr]) builds it';

-- ---------------------------------------------------------------------------
-- Concrete (non-polymorphic) overloads of cuckoo_agg for the types with a
-- built-in hash encoding.  A caller without a call expression (Citus's
-- worker_partial_agg) checks the declared argument types against the values'
-- and calls the transition function by OID; the C functions then read the
-- value type from their own declared signature.  Other types keep the
-- polymorphic aggregates of 1.0.
-- ---------------------------------------------------------------------------

-- smallint
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, smallint, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, smallint, bigint, float8) IS
    'transition function of cuckoo_agg(smallint, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(smallint, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(smallint, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, smallint) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, smallint) IS
    'transition function of cuckoo_agg(smallint)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, smallint, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, smallint, float8) IS
    'transition function of cuckoo_agg(smallint, float8)';
CREATE AGGREGATE cuckoo_agg(smallint) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(smallint) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(smallint, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(smallint, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- integer
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, integer, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, integer, bigint, float8) IS
    'transition function of cuckoo_agg(integer, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(integer, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(integer, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, integer) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, integer) IS
    'transition function of cuckoo_agg(integer)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, integer, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, integer, float8) IS
    'transition function of cuckoo_agg(integer, float8)';
CREATE AGGREGATE cuckoo_agg(integer) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(integer) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(integer, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(integer, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- bigint
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, bigint, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, bigint, bigint, float8) IS
    'transition function of cuckoo_agg(bigint, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(bigint, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bigint, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bigint) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bigint) IS
    'transition function of cuckoo_agg(bigint)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bigint, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bigint, float8) IS
    'transition function of cuckoo_agg(bigint, float8)';
CREATE AGGREGATE cuckoo_agg(bigint) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bigint) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(bigint, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bigint, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- numeric
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, numeric, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, numeric, bigint, float8) IS
    'transition function of cuckoo_agg(numeric, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(numeric, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(numeric, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, numeric) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, numeric) IS
    'transition function of cuckoo_agg(numeric)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, numeric, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, numeric, float8) IS
    'transition function of cuckoo_agg(numeric, float8)';
CREATE AGGREGATE cuckoo_agg(numeric) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(numeric) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(numeric, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(numeric, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- text
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, text, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, text, bigint, float8) IS
    'transition function of cuckoo_agg(text, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(text, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(text, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, text) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, text) IS
    'transition function of cuckoo_agg(text)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, text, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, text, float8) IS
    'transition function of cuckoo_agg(text, float8)';
CREATE AGGREGATE cuckoo_agg(text) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(text) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(text, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(text, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- varchar
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, varchar, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, varchar, bigint, float8) IS
    'transition function of cuckoo_agg(varchar, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(varchar, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(varchar, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, varchar) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, varchar) IS
    'transition function of cuckoo_agg(varchar)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, varchar, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, varchar, float8) IS
    'transition function of cuckoo_agg(varchar, float8)';
CREATE AGGREGATE cuckoo_agg(varchar) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(varchar) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(varchar, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(varchar, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- bpchar
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, bpchar, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, bpchar, bigint, float8) IS
    'transition function of cuckoo_agg(bpchar, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(bpchar, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bpchar, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bpchar) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bpchar) IS
    'transition function of cuckoo_agg(bpchar)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bpchar, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bpchar, float8) IS
    'transition function of cuckoo_agg(bpchar, float8)';
CREATE AGGREGATE cuckoo_agg(bpchar) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bpchar) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(bpchar, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bpchar, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- name
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, name, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, name, bigint, float8) IS
    'transition function of cuckoo_agg(name, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(name, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(name, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, name) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, name) IS
    'transition function of cuckoo_agg(name)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, name, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, name, float8) IS
    'transition function of cuckoo_agg(name, float8)';
CREATE AGGREGATE cuckoo_agg(name) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(name) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(name, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(name, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- "char" (its implicit cast to text would make a call ambiguous)
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, "char", bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, "char", bigint, float8) IS
    'transition function of cuckoo_agg("char", bigint, float8)';
CREATE AGGREGATE cuckoo_agg("char", bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg("char", bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, "char") RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, "char") IS
    'transition function of cuckoo_agg("char")';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, "char", float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, "char", float8) IS
    'transition function of cuckoo_agg("char", float8)';
CREATE AGGREGATE cuckoo_agg("char") (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg("char") IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg("char", float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg("char", float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- bytea
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, bytea, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, bytea, bigint, float8) IS
    'transition function of cuckoo_agg(bytea, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(bytea, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bytea, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bytea) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bytea) IS
    'transition function of cuckoo_agg(bytea)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bytea, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, bytea, float8) IS
    'transition function of cuckoo_agg(bytea, float8)';
CREATE AGGREGATE cuckoo_agg(bytea) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bytea) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(bytea, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bytea, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- uuid
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, uuid, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, uuid, bigint, float8) IS
    'transition function of cuckoo_agg(uuid, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(uuid, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(uuid, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, uuid) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, uuid) IS
    'transition function of cuckoo_agg(uuid)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, uuid, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, uuid, float8) IS
    'transition function of cuckoo_agg(uuid, float8)';
CREATE AGGREGATE cuckoo_agg(uuid) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(uuid) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(uuid, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(uuid, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- date
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, date, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, date, bigint, float8) IS
    'transition function of cuckoo_agg(date, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(date, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(date, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, date) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, date) IS
    'transition function of cuckoo_agg(date)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, date, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, date, float8) IS
    'transition function of cuckoo_agg(date, float8)';
CREATE AGGREGATE cuckoo_agg(date) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(date) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(date, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(date, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- timestamp
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, timestamp, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, timestamp, bigint, float8) IS
    'transition function of cuckoo_agg(timestamp, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(timestamp, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamp, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamp) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamp) IS
    'transition function of cuckoo_agg(timestamp)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamp, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamp, float8) IS
    'transition function of cuckoo_agg(timestamp, float8)';
CREATE AGGREGATE cuckoo_agg(timestamp) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamp) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(timestamp, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamp, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- timestamptz
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, timestamptz, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, timestamptz, bigint, float8) IS
    'transition function of cuckoo_agg(timestamptz, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(timestamptz, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamptz, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamptz) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamptz) IS
    'transition function of cuckoo_agg(timestamptz)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamptz, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, timestamptz, float8) IS
    'transition function of cuckoo_agg(timestamptz, float8)';
CREATE AGGREGATE cuckoo_agg(timestamptz) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamptz) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(timestamptz, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(timestamptz, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- boolean
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, boolean, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, boolean, bigint, float8) IS
    'transition function of cuckoo_agg(boolean, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(boolean, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(boolean, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, boolean) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, boolean) IS
    'transition function of cuckoo_agg(boolean)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, boolean, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, boolean, float8) IS
    'transition function of cuckoo_agg(boolean, float8)';
CREATE AGGREGATE cuckoo_agg(boolean) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(boolean) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(boolean, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(boolean, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- real
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, real, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, real, bigint, float8) IS
    'transition function of cuckoo_agg(real, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(real, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(real, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, real) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, real) IS
    'transition function of cuckoo_agg(real)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, real, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, real, float8) IS
    'transition function of cuckoo_agg(real, float8)';
CREATE AGGREGATE cuckoo_agg(real) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(real) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(real, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(real, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';

-- double precision
CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, double precision, bigint, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, double precision, bigint, float8) IS
    'transition function of cuckoo_agg(double precision, bigint, float8)';
CREATE AGGREGATE cuckoo_agg(double precision, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(double precision, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr); no rows: NULL';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, double precision) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, double precision) IS
    'transition function of cuckoo_agg(double precision)';
CREATE FUNCTION cuckoo_hashset_trans(cuckoo_hashset, double precision, float8) RETURNS cuckoo_hashset
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hashset_trans(cuckoo_hashset, double precision, float8) IS
    'transition function of cuckoo_agg(double precision, float8)';
CREATE AGGREGATE cuckoo_agg(double precision) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(double precision) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01; no rows: NULL';
CREATE AGGREGATE cuckoo_agg(double precision, float8) (
    SFUNC = cuckoo_hashset_trans,
    STYPE = cuckoo_hashset,
    FINALFUNC = cuckoo_hashset_final,
    COMBINEFUNC = cuckoo_hashset_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(double precision, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr; no rows: NULL';
