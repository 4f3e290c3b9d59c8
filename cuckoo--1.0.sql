-- cuckoo 1.0: the cuckoofilter type and its functions and aggregates.
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
    STORAGE = extended
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
                              semisort bool DEFAULT false)
    RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_create(bigint, float8, int, int, int, bool) IS
    'an empty filter that holds at least capacity items at false-positive rate fpr';

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
                            OUT is_full bool)
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_info(cuckoofilter) IS
    'shape, fill and expected false-positive rate of a filter';

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
