/*
 * cuckoo_arg.c
 *     Function arguments, cached per call site in fn_extra (CallSiteCache):
 *     a filter argument detoasted once and the core's view of it kept while
 *     the same filter comes back row after row, and the hasher of a value
 *     argument, set up on the first row.
 */
#include "cuckoo_arg.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

/*
 * A detoasted copy of filter datum d in the call site's memory context; a
 * large one is moved into memory advised for huge pages, as it will be probed
 * at random row after row.
 */
static CuckooFilter *
detoast_to_keep(FunctionCallInfo fcinfo, Datum d)
{
	MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	CuckooFilter *v = (CuckooFilter *) PG_DETOAST_DATUM(d);	/* a new copy */
	Size		size = VARSIZE(v);
	CuckooFilter *kept;

	MemoryContextSwitchTo(old);
	if (size < FILTER_HUGE_ADVICE_MIN)
		return v;
	kept = filter_alloc(fcinfo->flinfo->fn_mcxt, size);
	memcpy(kept, v, size);
	pfree(v);
	return kept;
}

/*
 * Argument argno as a read-only filter.  An out-of-line (TOASTed) value is
 * detoasted once per call site and kept in fn_extra, keyed by its TOAST
 * pointer, so probing row after row with the same stored filter costs no
 * detoasting and no copy; a compressed in-line value likewise, keyed by its
 * compressed bytes.  Whenever a kept value is replaced, the view made for it
 * is forgotten (the new value may be allocated at the same address).
 */
CuckooFilter *
arg_filter(FunctionCallInfo fcinfo, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	CallSiteCache *cc;
	struct varatt_external ptr;

	if (VARATT_IS_COMPRESSED(raw))
	{
		/*
		 * Compressed in the row (a sparse filter compresses well): keyed by
		 * the compressed bytes themselves, at most a couple of kilobytes, as
		 * a row's buffer may be reused for another value.
		 */
		Size		rawsize = VARSIZE_ANY(raw);

		cc = arg_cache(fcinfo);
		if (cc->inline_raw != NULL && VARSIZE_ANY(cc->inline_raw) == rawsize &&
			memcmp(cc->inline_raw, raw, rawsize) == 0)
			return cc->inline_value;
		cc->view_value = NULL;
		if (cc->inline_raw != NULL)
		{
			pfree(cc->inline_raw);
			pfree(cc->inline_value);
			cc->inline_raw = NULL;
		}
		cc->inline_value = detoast_to_keep(fcinfo, d);
		cc->inline_raw = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, rawsize);
		memcpy(cc->inline_raw, raw, rawsize);
		return cc->inline_value;
	}
	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return DatumGetCuckooFilterP(d);

	cc = arg_cache(fcinfo);
	VARATT_EXTERNAL_GET_POINTER(ptr, raw);
	if (cc->toast_valid &&
		cc->toast_ptr.va_valueid == ptr.va_valueid &&
		cc->toast_ptr.va_toastrelid == ptr.va_toastrelid)
		return cc->toast_value;

	cc->view_value = NULL;
	if (cc->toast_valid)
	{
		cc->toast_valid = false;
		pfree(cc->toast_value);
	}
	cc->toast_value = detoast_to_keep(fcinfo, d);
	cc->toast_ptr = ptr;
	cc->toast_valid = true;
	return cc->toast_value;
}

/*
 * Filter argument argno opened for probing with values hashed by vh (the
 * kind checked), as a view kept per call site.  Probing row after row with
 * one filter then costs, per row: for a stored (TOASTed) filter, comparing
 * its 16-byte TOAST pointer with the last one; for a compressed in-line one,
 * comparing its compressed bytes; for any other value, comparing its 48-byte
 * header with the last view's (the view holds only values derived from the
 * header, so only the buffer pointers change).  The view must not be
 * modified or kept beyond the call.
 */
const cf_filter *
arg_probe_view(FunctionCallInfo fcinfo, int argno, ValueHasher *vh)
{
	CallSiteCache *cc = arg_cache(fcinfo);
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	CuckooFilter *v;
	size_t		len;

	if (cc->view_value != NULL && cc->view_value == cc->toast_value &&
		VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		/* the same stored filter as the last call? */
		struct varatt_external ptr;

		VARATT_EXTERNAL_GET_POINTER(ptr, raw);
		if (ptr.va_valueid == cc->toast_ptr.va_valueid &&
			ptr.va_toastrelid == cc->toast_ptr.va_toastrelid)
			return &cc->view;
	}
	v = arg_filter(fcinfo, argno);
	if (v == cc->view_value && (v == cc->toast_value || v == cc->inline_value))
		return &cc->view;		/* kept by us, unchanged: the view stands */

	len = CUCKOO_BYTES_LEN(v);
	if (!(cc->view_value != NULL && cc->view_len == len && len >= cc->view_header_len &&
		  memcmp(cc->view_header, v->bytes, cc->view_header_len) == 0))
	{
		cc->view_value = NULL;
		filter_open(&cc->view, v);
		cc->view_kind_ok = filter_kind_matches(&cc->view, vh);
		/*
		 * Version 2 keeps more of what the view derives (the base bucket
		 * count, the generation) in bytes 48-63; its per-generation counts
		 * beyond them are not used for probing.
		 */
		cc->view_header_len = Min(Min(cc->view.data - cc->view.buf, len),
								  sizeof(cc->view_header));
		cc->view_data_off = cc->view.data - cc->view.buf;
		memcpy(cc->view_header, v->bytes, cc->view_header_len);
		cc->view_len = len;
	}
	cc->view.buf = v->bytes;
	cc->view.data = v->bytes + cc->view_data_off;
	Assert(cc->view.len == CUCKOO_BYTES_LEN(v));
	if (!cc->view_kind_ok)
		filter_check_kind(&cc->view, vh);	/* raises the error */
	cc->view_value = v;
	return &cc->view;
}

/* Fills the call site's hasher for typid (once: a call site's argument type
 * and collation never change). */
static ValueHasher *
init_cached_hasher(FunctionCallInfo fcinfo, CallSiteCache *cc, Oid typid)
{
	value_hasher_init(&cc->hasher, typid, PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
	cc->hasher_valid = true;
	return &cc->hasher;
}

/*
 * The declared type of argument argno of the called function, for a call
 * without a call expression.  PostgreSQL's executor gives every call one,
 * from which get_fn_expr_argtype reads the argument types; Citus's
 * worker_partial_agg and coord_combine_agg call an aggregate's transition,
 * combine and final functions through call records of their own, with none
 * (so does any extension that calls a function by OID).  The function's own
 * signature (its pg_proc row, found by fn_oid) still says the type, unless
 * it is polymorphic: then a clear error.
 */
static Oid
arg_declared_type(FunctionCallInfo fcinfo, int argno)
{
	Oid			fn = fcinfo->flinfo ? fcinfo->flinfo->fn_oid : InvalidOid;
	HeapTuple	tup;
	Form_pg_proc proc;
	Oid			typid = InvalidOid;

	if (!OidIsValid(fn))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the data type of the value"),
				 errdetail("The function was called without a call expression and without its OID.")));
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fn);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (argno >= 0 && argno < proc->pronargs)
		typid = proc->proargtypes.values[argno];
	ReleaseSysCache(tup);
	if (!OidIsValid(typid) || IsPolymorphicType(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the data type of the value"),
				 errdetail("%s was called without a call expression (as Citus's worker_partial_agg calls a transition function), and its argument %d is declared %s.",
						   format_procedure(fn), argno + 1,
						   OidIsValid(typid) ? format_type_be(typid) : "missing"),
				 errhint("Cast the value to one of the types that cuckoo_agg has a concrete overload for (integer, numeric, text, bytea, uuid, date, timestamp, boolean or float types).")));
	return typid;
}

/* The hasher for argument argno (of a polymorphic function), first call
 * (arg_hasher in cuckoo.h is the per-row path). */
ValueHasher *
arg_hasher_init(FunctionCallInfo fcinfo, int argno)
{
	CallSiteCache *cc = arg_cache(fcinfo);
	Oid			typid;

	typid = get_fn_expr_argtype(fcinfo->flinfo, argno);
	/* no call expression (Citus): the function's declared argument type */
	if (!OidIsValid(typid))
		typid = arg_declared_type(fcinfo, argno);
	return init_cached_hasher(fcinfo, cc, typid);
}

/* The hasher for the elements of array argument argno, cached. */
ValueHasher *
arg_array_hasher(FunctionCallInfo fcinfo, int argno)
{
	CallSiteCache *cc = arg_cache(fcinfo);
	Oid			arrtype;
	Oid			elemtype = InvalidOid;

	if (cc->hasher_valid)
		return &cc->hasher;
	arrtype = get_fn_expr_argtype(fcinfo->flinfo, argno);
	if (OidIsValid(arrtype))
		elemtype = get_element_type(getBaseType(arrtype));
	if (!OidIsValid(elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the element type of the array")));
	return init_cached_hasher(fcinfo, cc, elemtype);
}

