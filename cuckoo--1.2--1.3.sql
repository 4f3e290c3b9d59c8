-- cuckoo 1.2 -> 1.3: stored filters (cuckoo_store_*).
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.3'" to load this file. \quit

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
