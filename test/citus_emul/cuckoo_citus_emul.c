/*
 * cuckoo_citus_emul.c
 *     A test-only module that calls an aggregate's support functions the way
 *     Citus does when it pushes the aggregate down to its workers, so that
 *     CI can check cuckoo's aggregates against that calling convention
 *     without a Citus cluster (test/cluster/citus_emulation.sh).  Written from the
 *     behaviour Citus documents and shows in EXPLAIN; no Citus code.
 *
 * What Citus does, and this module does alike:
 *   - An aggregate qualifies when it has a combine function and its state
 *     type is not a pseudo-type (internal).  Otherwise Citus gathers the
 *     rows on the coordinator; here that is an error, as nothing would be
 *     pushed down.
 *   - On a worker, worker_partial_agg(agg, value) (several arguments arrive
 *     as one ROW(...)) first checks that the aggregate's declared argument
 *     types equal the types of the values, then calls the transition
 *     function by OID through a call record of its own: no call expression
 *     (flinfo->fn_expr is NULL), a fresh FmgrInfo on every row, inside the
 *     outer aggregate's context.  A new by-reference state is copied into
 *     the aggregate context unless it is a read-write expanded object that
 *     already lives there, as in nodeAgg.c.  The worker's result is the
 *     state's text, from the state type's output function.
 *   - On the coordinator, coord_combine_agg(agg, text, NULL::result) reads
 *     each worker's text with the state type's input function, combines it
 *     into its state with the combine function (no call expression), and at
 *     the end calls the final function with NULL for the extra arguments.
 *     Its result type must equal the type of the third argument.
 */
#include "postgres.h"

#include "fmgr.h"
#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

PG_MODULE_MAGIC;

/* The pushed-down aggregate and its state, kept in the aggregate context. */
typedef struct EmulState
{
	Oid			agg;
	Oid			transfn;
	Oid			combinefn;
	Oid			finalfn;
	bool		finalextra;
	Oid			transtype;
	int16		typlen;
	bool		typbyval;
	int			nargs;			/* the aggregate's declared arguments */
	Oid			argtypes[FUNC_MAX_ARGS];
	TupleDesc	rowdesc;		/* arguments arriving as ROW(...), or NULL */
	Datum		value;
	bool		isnull;
	bool		init;			/* value set (by initval or a first row) */
} EmulState;

static EmulState *
emul_new(MemoryContext aggcxt, Oid agg)
{
	EmulState  *st = MemoryContextAllocZero(aggcxt, sizeof(EmulState));
	HeapTuple	tup;
	Form_pg_aggregate aggform;
	Form_pg_proc proc;
	Datum		initval;
	bool		initnull;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR, (errmsg("%u is not an aggregate", agg)));
	aggform = (Form_pg_aggregate) GETSTRUCT(tup);
	st->agg = agg;
	st->transfn = aggform->aggtransfn;
	st->combinefn = aggform->aggcombinefn;
	st->finalfn = aggform->aggfinalfn;
	st->finalextra = aggform->aggfinalextra;
	st->transtype = aggform->aggtranstype;
	initval = SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initnull);
	st->isnull = true;
	if (!initnull)
	{
		Oid			typinput,
					ioparam;
		char	   *s = TextDatumGetCString(initval);
		MemoryContext old = MemoryContextSwitchTo(aggcxt);

		getTypeInputInfo(st->transtype, &typinput, &ioparam);
		st->value = OidInputFunctionCall(typinput, s, ioparam, -1);
		st->isnull = false;
		st->init = true;
		MemoryContextSwitchTo(old);
	}
	ReleaseSysCache(tup);
	if (!OidIsValid(st->combinefn) || get_typtype(st->transtype) == TYPTYPE_PSEUDO)
		ereport(ERROR,
				(errmsg("aggregate %s cannot be pushed down: it has no combine function or its state type is %s",
						format_procedure(agg), format_type_be(st->transtype)),
				 errdetail("Citus gathers the rows on the coordinator for such an aggregate.")));
	get_typlenbyval(st->transtype, &st->typlen, &st->typbyval);

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(agg));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", agg);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	st->nargs = proc->pronargs;
	memcpy(st->argtypes, proc->proargtypes.values, st->nargs * sizeof(Oid));
	ReleaseSysCache(tup);
	return st;
}

/* Replaces the state by a function's result, as nodeAgg.c and Citus do. */
static void
emul_set_state(EmulState *st, MemoryContext aggcxt, Datum v, bool isnull)
{
	if (!st->typbyval && DatumGetPointer(v) != DatumGetPointer(st->value))
	{
		if (!isnull &&
			!(DatumIsReadWriteExpandedObject(v, false, st->typlen) &&
			  MemoryContextGetParent(DatumGetEOHP(v)->eoh_context) == aggcxt))
		{
			MemoryContext old = MemoryContextSwitchTo(aggcxt);

			v = datumCopy(v, false, st->typlen);
			MemoryContextSwitchTo(old);
		}
		if (!st->isnull)
		{
			if (DatumIsReadWriteExpandedObject(st->value, false, st->typlen))
				DeleteExpandedObject(st->value);
			else
				pfree(DatumGetPointer(st->value));
		}
	}
	st->value = v;
	st->isnull = isnull;
	st->init = true;
}

/* Sets the state to a copy of v (strict functions' first non-null input). */
static void
emul_first_value(EmulState *st, MemoryContext aggcxt, Datum v)
{
	MemoryContext old = MemoryContextSwitchTo(aggcxt);

	st->value = datumCopy(v, st->typbyval, st->typlen);
	MemoryContextSwitchTo(old);
	st->isnull = false;
	st->init = true;
}

/*
 * Calls fn by OID with the state and the given arguments: a fresh FmgrInfo,
 * no call expression, the outer call's aggregate context.
 */
static Datum
emul_call(Oid fn, FunctionCallInfo outer, EmulState *st, int n, Datum *args,
		  bool *nulls, bool *isnull)
{
	FmgrInfo	flinfo;
	LOCAL_FCINFO(inner, FUNC_MAX_ARGS);
	Datum		r;

	fmgr_info(fn, &flinfo);
	Assert(flinfo.fn_expr == NULL);
	InitFunctionCallInfoData(*inner, &flinfo, n + 1, outer->fncollation,
							 outer->context, NULL);
	inner->args[0].value = st->value;
	inner->args[0].isnull = st->isnull;
	for (int i = 0; i < n; i++)
	{
		inner->args[i + 1].value = args[i];
		inner->args[i + 1].isnull = nulls[i];
	}
	r = FunctionCallInvoke(inner);
	*isnull = inner->isnull;
	return r;
}

/*
 * emul_partial_sfunc(state, agg, value or ROW(values), check_types): the
 * worker side.  check_types = false skips Citus's type check, to reach the
 * transition function's own handling of a call without a call expression.
 */
PG_FUNCTION_INFO_V1(emul_partial_sfunc);
Datum
emul_partial_sfunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	EmulState  *st;
	Datum		values[FUNC_MAX_ARGS];
	bool		nulls[FUNC_MAX_ARGS];
	int			n;
	bool		isnull;
	Datum		r;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "emul_partial_sfunc called in non-aggregate context");
	if (PG_ARGISNULL(0))
	{
		Oid			valtype = get_fn_expr_argtype(fcinfo->flinfo, 2);

		st = emul_new(aggcxt, PG_GETARG_OID(1));
		if (valtype == RECORDOID)
		{
			HeapTupleHeader th;
			TupleDesc	desc;
			MemoryContext old;

			if (PG_ARGISNULL(2))
				ereport(ERROR, (errmsg("emul_partial_agg: null record")));
			th = PG_GETARG_HEAPTUPLEHEADER(2);
			desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th),
										  HeapTupleHeaderGetTypMod(th));
			old = MemoryContextSwitchTo(aggcxt);
			st->rowdesc = CreateTupleDescCopy(desc);
			MemoryContextSwitchTo(old);
			ReleaseTupleDesc(desc);
		}
		if (PG_GETARG_BOOL(3))
		{
			bool		ok;

			/* Citus: the declared argument types must equal the values' */
			if (st->rowdesc)
			{
				ok = st->rowdesc->natts == st->nargs;
				for (int i = 0; ok && i < st->nargs; i++)
					ok = TupleDescAttr(st->rowdesc, i)->atttypid == st->argtypes[i];
			}
			else
				ok = st->nargs == 1 && valtype == st->argtypes[0];
			if (!ok)
				ereport(ERROR,
						(errmsg("emul_partial_agg could not confirm type correctness"),
						 errdetail("Aggregate %s is declared with other argument types than the values'.",
								   format_procedure(st->agg))));
		}
	}
	else
		st = (EmulState *) PG_GETARG_POINTER(0);

	if (st->rowdesc)
	{
		n = st->rowdesc->natts;
		if (PG_ARGISNULL(2))
			for (int i = 0; i < n; i++)
				values[i] = (Datum) 0, nulls[i] = true;
		else
		{
			HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(2);
			HeapTupleData tuple;

			tuple.t_len = HeapTupleHeaderGetDatumLength(th);
			ItemPointerSetInvalid(&tuple.t_self);
			tuple.t_tableOid = InvalidOid;
			tuple.t_data = th;
			heap_deform_tuple(&tuple, st->rowdesc, values, nulls);
		}
	}
	else
	{
		n = 1;
		values[0] = PG_GETARG_DATUM(2);
		nulls[0] = PG_ARGISNULL(2);
	}

	if (func_strict(st->transfn))
	{
		for (int i = 0; i < n; i++)
			if (nulls[i])
				PG_RETURN_POINTER(st);
		if (!st->init)
		{
			emul_first_value(st, aggcxt, values[0]);
			PG_RETURN_POINTER(st);
		}
		if (st->isnull)
			PG_RETURN_POINTER(st);
	}
	r = emul_call(st->transfn, fcinfo, st, n, values, nulls, &isnull);
	emul_set_state(st, aggcxt, r, isnull);
	PG_RETURN_POINTER(st);
}

/* The worker's result: the state's text (NULL when there is none). */
PG_FUNCTION_INFO_V1(emul_partial_ffunc);
Datum
emul_partial_ffunc(PG_FUNCTION_ARGS)
{
	EmulState  *st = PG_ARGISNULL(0) ? NULL : (EmulState *) PG_GETARG_POINTER(0);
	Oid			typoutput;
	bool		isvarlena;

	if (st == NULL || st->isnull)
		PG_RETURN_NULL();
	getTypeOutputInfo(st->transtype, &typoutput, &isvarlena);
	PG_RETURN_TEXT_P(cstring_to_text(OidOutputFunctionCall(typoutput, st->value)));
}

/* emul_combine_sfunc(state, agg, text, NULL::result): the coordinator side. */
PG_FUNCTION_INFO_V1(emul_combine_sfunc);
Datum
emul_combine_sfunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	EmulState  *st;
	Datum		value = (Datum) 0;
	bool		valnull = PG_ARGISNULL(2);
	bool		isnull;
	Datum		r;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "emul_combine_sfunc called in non-aggregate context");
	st = PG_ARGISNULL(0) ? emul_new(aggcxt, PG_GETARG_OID(1)) :
		(EmulState *) PG_GETARG_POINTER(0);
	if (!valnull)
	{
		Oid			typinput,
					ioparam;

		/* the state arrives as text: the state type's input function */
		getTypeInputInfo(st->transtype, &typinput, &ioparam);
		value = OidInputFunctionCall(typinput, text_to_cstring(PG_GETARG_TEXT_PP(2)),
									 ioparam, -1);
	}
	if (func_strict(st->combinefn))
	{
		if (valnull)
			PG_RETURN_POINTER(st);
		if (!st->init)
		{
			emul_first_value(st, aggcxt, value);
			PG_RETURN_POINTER(st);
		}
		if (st->isnull)
			PG_RETURN_POINTER(st);
	}
	r = emul_call(st->combinefn, fcinfo, st, 1, &value, &valnull, &isnull);
	emul_set_state(st, aggcxt, r, isnull);
	PG_RETURN_POINTER(st);
}

/* The final value: the final function with NULL extra arguments. */
PG_FUNCTION_INFO_V1(emul_combine_ffunc);
Datum
emul_combine_ffunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	EmulState  *st = PG_ARGISNULL(0) ? NULL : (EmulState *) PG_GETARG_POINTER(0);
	Oid			rettype;
	FmgrInfo	flinfo;
	LOCAL_FCINFO(inner, FUNC_MAX_ARGS);
	Datum		r;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "emul_combine_ffunc called in non-aggregate context");
	if (st == NULL)
	{
		/* no partial state at all: the aggregate's OID from the call */
		Aggref	   *aggref = AggGetAggref(fcinfo);
		TargetEntry *te;

		if (aggref == NULL || aggref->args == NIL)
			PG_RETURN_NULL();
		te = (TargetEntry *) linitial(aggref->args);
		if (!IsA(te->expr, Const) || ((Const *) te->expr)->constisnull)
			PG_RETURN_NULL();
		st = emul_new(aggcxt, DatumGetObjectId(((Const *) te->expr)->constvalue));
	}
	rettype = OidIsValid(st->finalfn) ? get_func_rettype(st->finalfn) : st->transtype;
	if (rettype != get_fn_expr_argtype(fcinfo->flinfo, 3))
		ereport(ERROR,
				(errmsg("emul_combine_agg could not confirm type correctness"),
				 errdetail("Aggregate %s returns %s.", format_procedure(st->agg),
						   format_type_be(rettype))));
	if (!OidIsValid(st->finalfn))
	{
		if (st->isnull)
			PG_RETURN_NULL();
		PG_RETURN_DATUM(st->value);
	}
	if (func_strict(st->finalfn) && st->isnull)
		PG_RETURN_NULL();
	fmgr_info(st->finalfn, &flinfo);
	InitFunctionCallInfoData(*inner, &flinfo, st->finalextra ? PG_NARGS() : 1,
							 fcinfo->fncollation, fcinfo->context, NULL);
	inner->args[0].value = st->value;
	inner->args[0].isnull = st->isnull;
	for (int i = 1; i < inner->nargs; i++)
	{
		inner->args[i].value = (Datum) 0;
		inner->args[i].isnull = true;
	}
	r = FunctionCallInvoke(inner);
	if (inner->isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(r);
}
