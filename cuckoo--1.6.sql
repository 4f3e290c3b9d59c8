-- cuckoo 1.6: the cuckoofilter type and its functions and aggregates, stored filters and living filters.
\echo Use "CREATE EXTENSION cuckoo" to load this file. \quit

-- ---------------------------------------------------------------------------
-- The type
-- ---------------------------------------------------------------------------

CREATE TYPE cuckoofilter;

CREATE FUNCTION cuckoo_in(cstring) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_out(cuckoofilter) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_recv(internal) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_send(cuckoofilter) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE cuckoofilter (
    INPUT = cuckoo_in,
    OUTPUT = cuckoo_out,
    RECEIVE = cuckoo_recv,
    SEND = cuckoo_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    -- The value path (1.3): a filter is random bits, which never compress,
    -- so a large one is stored out of line uncompressed; a probe of a few
    -- keys then reads only the TOAST chunks of their buckets (docs/DESIGN.md,
    -- "The value path").
    STORAGE = external
);
COMMENT ON TYPE cuckoofilter IS
    'cuckoo filter: approximate set membership with deletion (Fan et al., CoNEXT 2014)';

CREATE FUNCTION cuckoo_from_bytea(bytea) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_from_bytea(bytea) IS
    'validates a serialised filter and returns it as a cuckoofilter';

CREATE CAST (cuckoofilter AS bytea) WITHOUT FUNCTION;
CREATE CAST (bytea AS cuckoofilter) WITH FUNCTION cuckoo_from_bytea(bytea);

-- ---------------------------------------------------------------------------
-- Construction and inspection
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_create(capacity bigint,
                              fpr float8 DEFAULT 0.01,
                              bucket_size int DEFAULT 4,
                              fingerprint_bits int DEFAULT NULL,
                              max_kicks int DEFAULT 500,
                              semisort bool DEFAULT false,
                              expansion int DEFAULT 0)
    RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_create(bigint, float8, int, int, int, bool, int) IS
    'an empty filter that holds at least capacity items at false-positive rate fpr; expansion 2: it grows beyond capacity at that rate';

CREATE FUNCTION cuckoo_info(f cuckoofilter,
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
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_info(cuckoofilter) IS
    'shape, fill and expected false-positive rate of a filter, and its growth and generations';

CREATE FUNCTION cuckoo_hash(value anycompatible) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_hash(anycompatible) IS
    'the 64-bit hash a cuckoo filter uses for a value';

-- ---------------------------------------------------------------------------
-- Adding, probing, removing
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_add(f cuckoofilter, value anycompatible) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, anycompatible) IS
    'the filter with one more occurrence of value (NULL value: unchanged)';

CREATE FUNCTION cuckoo_add_if_absent(f cuckoofilter, value anycompatible) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add_if_absent(cuckoofilter, anycompatible) IS
    'the filter with value added unless it already reports it';

CREATE FUNCTION cuckoo_add_array(f cuckoofilter, vals anycompatiblearray) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add_array(cuckoofilter, anycompatiblearray) IS
    'the filter with every non-null element of vals added';

CREATE FUNCTION cuckoo_add_if_absent_array(f cuckoofilter, vals anycompatiblearray) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add_if_absent_array(cuckoofilter, anycompatiblearray) IS
    'the filter with each non-null element of vals added unless already reported';

CREATE FUNCTION cuckoo_contains_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_contains_sel(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cuckoo_contains(f cuckoofilter, value anycompatible) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
    SUPPORT cuckoo_contains_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, anycompatible) IS
    'false if value is certainly not in the filter, true if it may be';

CREATE OPERATOR @> (
    LEFTARG = cuckoofilter,
    RIGHTARG = anycompatible,
    FUNCTION = cuckoo_contains,
    RESTRICT = cuckoo_contains_sel
);
COMMENT ON OPERATOR @> (cuckoofilter, anycompatible) IS
    'may the value be in the filter (cuckoo_contains)';

CREATE FUNCTION cuckoo_contains_array(f cuckoofilter, vals anycompatiblearray) RETURNS boolean[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_contains_array(cuckoofilter, anycompatiblearray) IS
    'cuckoo_contains for each element, in an array of the same shape';

CREATE FUNCTION cuckoo_count(f cuckoofilter, value anycompatible) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, anycompatible) IS
    'copies of value''s fingerprint in its two buckets: an upper bound on how often it was added';

CREATE FUNCTION cuckoo_remove(f cuckoofilter, value anycompatible) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, anycompatible) IS
    'the filter with one occurrence of value removed; only remove values that were added';

CREATE FUNCTION cuckoo_remove_array(f cuckoofilter, vals anycompatiblearray) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove_array(cuckoofilter, anycompatiblearray) IS
    'the filter with one occurrence of each non-null element removed';

-- ---------------------------------------------------------------------------
-- Whole filters
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_union(a cuckoofilter, b cuckoofilter) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_union(cuckoofilter, cuckoofilter) IS
    'a filter holding the items of both filters, which must have the same shape';

CREATE FUNCTION cuckoo_shrink(f cuckoofilter) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_shrink(cuckoofilter) IS
    'the filter rebuilt into the smallest table that holds its items at the target load';

-- ---------------------------------------------------------------------------
-- Aggregates
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_union_trans(cuckoofilter, cuckoofilter) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE cuckoo_union_agg(cuckoofilter) (
    SFUNC = cuckoo_union_trans,
    STYPE = cuckoofilter,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_union_agg(cuckoofilter) IS
    'the union of the filters in a column (NULLs skipped; no rows: NULL)';

CREATE FUNCTION cuckoo_agg_trans(internal, anycompatible) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cuckoo_agg_trans(internal, anycompatible, float8) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cuckoo_agg_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cuckoo_agg_serialize(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_agg_deserialize(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_agg_final(internal, anycompatible) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cuckoo_agg_final(internal, anycompatible, float8) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE cuckoo_agg(anycompatible) (
    SFUNC = cuckoo_agg_trans,
    STYPE = internal,
    FINALFUNC = cuckoo_agg_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = cuckoo_agg_combine,
    SERIALFUNC = cuckoo_agg_serialize,
    DESERIALFUNC = cuckoo_agg_deserialize,
    SSPACE = 600,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(anycompatible) IS
    'a filter of the distinct non-null values, sized to them, at fpr 0.01';

CREATE AGGREGATE cuckoo_agg(anycompatible, float8) (
    SFUNC = cuckoo_agg_trans,
    STYPE = internal,
    FINALFUNC = cuckoo_agg_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = cuckoo_agg_combine,
    SERIALFUNC = cuckoo_agg_serialize,
    DESERIALFUNC = cuckoo_agg_deserialize,
    SSPACE = 600,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(anycompatible, float8) IS
    'a filter of the distinct non-null values, sized to them, at the given fpr';

CREATE FUNCTION cuckoo_agg_fixed_trans(cuckoofilter, anycompatible, bigint, float8)
    RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cuckoo_agg_fixed_final(cuckoofilter, anycompatible, bigint, float8)
    RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE cuckoo_agg(anycompatible, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans,
    STYPE = cuckoofilter,
    FINALFUNC = cuckoo_agg_fixed_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = cuckoo_union_trans,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(anycompatible, bigint, float8) IS
    'a filter of the distinct non-null values with a fixed shape (capacity, fpr), so that filters built apart can be unioned';

-- ---------------------------------------------------------------------------
-- Equality of filters (of their binary forms), for GROUP BY, DISTINCT, UNION
-- ---------------------------------------------------------------------------

CREATE FUNCTION cuckoo_eq(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_ne(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_hash_filter(cuckoofilter) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_hash_filter_extended(cuckoofilter, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (
    LEFTARG = cuckoofilter,
    RIGHTARG = cuckoofilter,
    FUNCTION = cuckoo_eq,
    COMMUTATOR = =,
    NEGATOR = <>,
    RESTRICT = eqsel,
    JOIN = eqjoinsel,
    HASHES,
    MERGES
);
COMMENT ON OPERATOR = (cuckoofilter, cuckoofilter) IS
    'same binary form: same shape and the same entries in the same slots';

CREATE OPERATOR <> (
    LEFTARG = cuckoofilter,
    RIGHTARG = cuckoofilter,
    FUNCTION = cuckoo_ne,
    COMMUTATOR = <>,
    NEGATOR = =,
    RESTRICT = neqsel,
    JOIN = neqjoinsel
);
COMMENT ON OPERATOR <> (cuckoofilter, cuckoofilter) IS
    'different binary forms';

CREATE OPERATOR CLASS cuckoofilter_hash_ops
    DEFAULT FOR TYPE cuckoofilter USING hash AS
        OPERATOR 1 = (cuckoofilter, cuckoofilter),
        FUNCTION 1 cuckoo_hash_filter(cuckoofilter),
        FUNCTION 2 cuckoo_hash_filter_extended(cuckoofilter, bigint);

-- Byte order of the binary forms: no meaning beyond making sorts (DISTINCT,
-- ORDER BY, merge joins) possible.
CREATE FUNCTION cuckoo_cmp(cuckoofilter, cuckoofilter) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_lt(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_le(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_gt(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoo_ge(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR < (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_lt,
                   COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_le,
                    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_gt,
                   COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_ge,
                    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR CLASS cuckoofilter_btree_ops
    DEFAULT FOR TYPE cuckoofilter USING btree AS
        OPERATOR 1 < ,
        OPERATOR 2 <= ,
        OPERATOR 3 = ,
        OPERATOR 4 >= ,
        OPERATOR 5 > ,
        FUNCTION 1 cuckoo_cmp(cuckoofilter, cuckoofilter);

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

-- ---------------------------------------------------------------------------
-- Stored filters (cuckoo_store_*)
-- A filter kept as a table of small segments (docs/DESIGN.md, "Stored
-- filters"; routing: docs/FORMAT.md section 14).  SECURITY INVOKER: the
-- functions reach the store table only through SQL run as the caller, but
-- that a segment growing past a chunk gains its chunk rows through fixed
-- statements run as the store's owner once the caller's UPDATE right is
-- checked (1.6: a segment is rows (segment, chunk, bytes); DESIGN.md,
-- "Growth").
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

CREATE FUNCTION cuckoo_store_contains_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cuckoo_store_contains(store regclass, value anycompatible) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE
    SUPPORT cuckoo_store_contains_support;
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
                                  OUT expected_fpr float8,
                                  OUT trackings text[])
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_store_info(regclass) IS
    'items, stored bytes, segments, target and expected false-positive rate, value type and tracked columns (schema.table.column) of a stored filter';

CREATE FUNCTION cuckoo_store_segments(store regclass)
    RETURNS TABLE (segment int, f cuckoofilter)
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION cuckoo_store_segments(regclass) IS
    'the header (segment -1) and every segment of a stored filter as filters, put together from their chunk rows and validated';

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

-- Living filters (cuckoo_store_track)
-- A tracking keeps a stored filter in step with a table's column, in the
-- same transaction as every change of its rows (docs/DESIGN.md, "Living
-- filters").  The trackings are the rows of cuckoo_store_tracking, which
-- pg_dump dumps; a tracked table has four statement triggers that call
-- cuckoo_track_trigger, which changes the store with the rights of the
-- table's owner.  The partitions of a tracked partitioned table, every
-- level, have four of their own (cuckoo_track_part_*), which the event
-- trigger cuckoo_track_ddl puts on partitions created or attached later and
-- takes off partitions detached.  The table is changed by
-- cuckoo_store_track and cuckoo_store_untrack (and the event trigger
-- below, on DROP); a restore inserts its rows, checked (below).
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
    'adds the values of tab.col (every partition of a partitioned tab) to the store and keeps it in step with every change; returns how many values were added';

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

CREATE FUNCTION cuckoo_store_rebuild(store regclass) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION cuckoo_store_rebuild(regclass) IS
    'empties the store and adds again the values of every column it tracks, under SHARE locks of the tracked tables (READ COMMITTED only): what untrack, drop, create and track would give; values added directly are not kept; returns how many values were added';

CREATE FUNCTION cuckoo_track_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_trigger() IS
    'statement trigger of a table tracked by a stored filter and of every partition of a tracked partitioned table (cuckoo_store_track)';

CREATE FUNCTION cuckoo_track_drop() RETURNS event_trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_drop() IS
    'deletes the trackings of dropped stores, tables and columns; refuses to drop a partition of a tracked partitioned table unless its root is dropped with it (event trigger)';
CREATE EVENT TRIGGER cuckoo_track_drop ON sql_drop
    EXECUTE PROCEDURE cuckoo_track_drop();

CREATE FUNCTION cuckoo_track_drop_start() RETURNS event_trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_drop_start() IS
    'notes the root of every partition of a tracked tree before a command that may drop partitions with other objects, so that cuckoo_track_drop lets a partition go only with its root (event trigger)';
CREATE EVENT TRIGGER cuckoo_track_drop_start ON ddl_command_start
    WHEN TAG IN ('DROP SCHEMA', 'DROP OWNED', 'DROP EXTENSION', 'DROP ACCESS METHOD')
    EXECUTE PROCEDURE cuckoo_track_drop_start();

CREATE FUNCTION cuckoo_track_ddl() RETURNS event_trigger
    AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION cuckoo_track_ddl() IS
    'refuses to make a tracked table a partition or part of an inheritance tree; a partition created (also by CREATE SCHEMA) in or attached to a tracked partitioned table gets the partition triggers and its values are added, a partition detached has both removed; refuses a foreign table as such a partition; rebuilds a store when a CREATE TRIGGER (a restore) gives the last of its tracked tables all its tracking triggers (event trigger)';
CREATE EVENT TRIGGER cuckoo_track_ddl ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE SCHEMA', 'CREATE FOREIGN TABLE', 'CREATE TRIGGER')
    EXECUTE PROCEDURE cuckoo_track_ddl();

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
