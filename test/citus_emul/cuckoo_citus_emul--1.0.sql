-- Test-only aggregates that call another aggregate's support functions the
-- way Citus does when it pushes an aggregate down (see cuckoo_citus_emul.c).
\echo Use "CREATE EXTENSION cuckoo_citus_emul" to load this file. \quit

CREATE FUNCTION emul_partial_sfunc(internal, oid, "any", boolean) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C;
CREATE FUNCTION emul_partial_ffunc(internal) RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C;
-- emul_partial_agg(agg, value or ROW(values...), check_types): a worker's
-- partial state of agg over its rows, as the text of the state type.
CREATE AGGREGATE emul_partial_agg(oid, "any", boolean) (
    SFUNC = emul_partial_sfunc,
    STYPE = internal,
    FINALFUNC = emul_partial_ffunc
);

CREATE FUNCTION emul_combine_sfunc(internal, oid, text, anyelement) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C;
CREATE FUNCTION emul_combine_ffunc(internal, oid, text, anyelement) RETURNS anyelement
    AS 'MODULE_PATHNAME' LANGUAGE C;
-- emul_combine_agg(agg, partial state text, NULL::result type): the
-- coordinator's combination of the partial states and the final value.
CREATE AGGREGATE emul_combine_agg(oid, text, anyelement) (
    SFUNC = emul_combine_sfunc,
    STYPE = internal,
    FINALFUNC = emul_combine_ffunc,
    FINALFUNC_EXTRA
);
