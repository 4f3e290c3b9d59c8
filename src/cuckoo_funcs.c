/*
 * cuckoo_funcs.c
 *     Scalar SQL functions on filters: add, add_if_absent, contains, count,
 *     remove (single values and arrays), union, shrink, hash.
 *
 * Scalar functions never modify their arguments: a function that changes a
 * filter works on a copy and returns it.  Adding or removing NULL returns
 * the filter unchanged, so UPDATE ... SET f = cuckoo_add(f, x) can never
 * wipe a stored filter.
 */
#include "cuckoo.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

typedef enum AddMode
{
	ADD_ALWAYS,
	ADD_IF_ABSENT
} AddMode;

/* Adds one hashed value to a writable filter, raising the error on failure. */
static void
add_one(cf_filter *cf, ValueHasher *vh, Datum value, AddMode mode)
{
	uint64		h = cuckoo_hash_datum(vh, value);
	cf_status	st;

	if (cf_kind_of(cf) == CF_KIND_ANY)
		cf_set_kind(cf, vh->kind, vh->type_tag);
	st = mode == ADD_IF_ABSENT ? cf_insert_if_absent(cf, h) : cf_insert(cf, h);
	cuckoo_report_status(st, cf);
}

static Datum
add_common(FunctionCallInfo fcinfo, AddMode mode)
{
	CuckooFilter *v;
	cf_filter	cf;
	ValueHasher *vh;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	vh = cuckoo_hasher_for_arg(fcinfo, 1);
	v = PG_GETARG_CUCKOO_P_COPY(0);
	cuckoo_open(&cf, v);
	cuckoo_check_kind(&cf, vh);
	add_one(&cf, vh, PG_GETARG_DATUM(1), mode);
	PG_RETURN_CUCKOO_P(v);
}

/* cuckoo_add(f, value): f with one more occurrence of value. */
PG_FUNCTION_INFO_V1(cuckoo_add);
Datum
cuckoo_add(PG_FUNCTION_ARGS)
{
	return add_common(fcinfo, ADD_ALWAYS);
}

/* cuckoo_add_if_absent(f, value): adds value unless f already reports it. */
PG_FUNCTION_INFO_V1(cuckoo_add_if_absent);
Datum
cuckoo_add_if_absent(PG_FUNCTION_ARGS)
{
	return add_common(fcinfo, ADD_IF_ABSENT);
}

/* Calls fn for every non-null element of an array argument. */
typedef void (*element_fn) (cf_filter *cf, ValueHasher *vh, Datum value, void *arg);

static void
for_each_element(FunctionCallInfo fcinfo, int argno, cf_filter *cf,
				 ValueHasher *vh, element_fn fn, void *arg)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(argno);
	ArrayIterator it = array_create_iterator(arr, 0, NULL);
	Datum		value;
	bool		isnull;

	while (array_iterate(it, &value, &isnull))
	{
		CHECK_FOR_INTERRUPTS();
		if (!isnull)
			fn(cf, vh, value, arg);
	}
	array_free_iterator(it);
}

static void
elem_add(cf_filter *cf, ValueHasher *vh, Datum value, void *arg)
{
	add_one(cf, vh, value, *(AddMode *) arg);
}

static void
elem_remove(cf_filter *cf, ValueHasher *vh, Datum value, void *arg)
{
	(void) arg;
	if (cf_kind_of(cf) != CF_KIND_ANY)
		(void) cf_remove(cf, cuckoo_hash_datum(vh, value));
}

/* Shared body of the array forms that return a modified copy. */
static Datum
array_modify(FunctionCallInfo fcinfo, element_fn fn, void *arg)
{
	CuckooFilter *v;
	cf_filter	cf;
	ValueHasher *vh;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	vh = cuckoo_hasher_for_array_arg(fcinfo, 1);
	v = PG_GETARG_CUCKOO_P_COPY(0);
	cuckoo_open(&cf, v);
	cuckoo_check_kind(&cf, vh);
	for_each_element(fcinfo, 1, &cf, vh, fn, arg);
	PG_RETURN_CUCKOO_P(v);
}

/* cuckoo_add_array(f, values[]): adds every non-null element. */
PG_FUNCTION_INFO_V1(cuckoo_add_array);
Datum
cuckoo_add_array(PG_FUNCTION_ARGS)
{
	AddMode		mode = ADD_ALWAYS;

	return array_modify(fcinfo, elem_add, &mode);
}

/* cuckoo_add_if_absent_array(f, values[]): adds each element not reported yet. */
PG_FUNCTION_INFO_V1(cuckoo_add_if_absent_array);
Datum
cuckoo_add_if_absent_array(PG_FUNCTION_ARGS)
{
	AddMode		mode = ADD_IF_ABSENT;

	return array_modify(fcinfo, elem_add, &mode);
}

/* cuckoo_remove_array(f, values[]): removes one occurrence of each element. */
PG_FUNCTION_INFO_V1(cuckoo_remove_array);
Datum
cuckoo_remove_array(PG_FUNCTION_ARGS)
{
	return array_modify(fcinfo, elem_remove, NULL);
}

/* cuckoo_contains(f, value) and the @> operator: may value be in f? */
PG_FUNCTION_INFO_V1(cuckoo_contains);
Datum
cuckoo_contains(PG_FUNCTION_ARGS)
{
	ValueHasher *vh = cuckoo_hasher_for_arg(fcinfo, 1);
	const cf_filter *cf = cuckoo_probe_arg(fcinfo, 0, vh);

	PG_RETURN_BOOL(cf_contains(cf, cuckoo_hash_datum(vh, PG_GETARG_DATUM(1))));
}

/*
 * cuckoo_contains_array(f, values[]): one answer per element, NULL for NULL.
 * The elements are hashed in chunks and looked up together
 * (cf_contains_many), so the memory accesses of a large filter overlap.
 */
#define PROBE_CHUNK 1024

PG_FUNCTION_INFO_V1(cuckoo_contains_array);
Datum
cuckoo_contains_array(PG_FUNCTION_ARGS)
{
	ValueHasher *vh = cuckoo_hasher_for_array_arg(fcinfo, 1);
	const cf_filter *cf = cuckoo_probe_arg(fcinfo, 0, vh);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int			ndim = ARR_NDIM(arr);
	int			n = ArrayGetNItems(ndim, ARR_DIMS(arr));
	Datum	   *out = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *outnull = palloc(sizeof(bool) * Max(n, 1));
	uint64	   *hashes = palloc(sizeof(uint64) * Min(Max(n, 1), PROBE_CHUNK));
	int		   *where = palloc(sizeof(int) * Min(Max(n, 1), PROBE_CHUNK));
	bool		found[PROBE_CHUNK];
	ArrayIterator it;
	Datum		value;
	bool		isnull;
	int			i = 0,
				pending = 0;

	it = array_create_iterator(arr, 0, NULL);
	for (;;)
	{
		bool		more = array_iterate(it, &value, &isnull);

		if (more)
		{
			outnull[i] = isnull;
			out[i] = BoolGetDatum(false);
			if (!isnull)
			{
				hashes[pending] = cuckoo_hash_datum(vh, value);
				where[pending++] = i;
			}
			i++;
		}
		if (pending == PROBE_CHUNK || (!more && pending > 0))
		{
			CHECK_FOR_INTERRUPTS();
			cf_contains_many(cf, hashes, pending, found);
			for (int j = 0; j < pending; j++)
				out[where[j]] = BoolGetDatum(found[j]);
			pending = 0;
		}
		if (!more)
			break;
	}
	array_free_iterator(it);
	if (ndim == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(BOOLOID));
	PG_RETURN_ARRAYTYPE_P(construct_md_array(out, outnull, ndim, ARR_DIMS(arr),
											 ARR_LBOUND(arr), BOOLOID, 1, true,
											 TYPALIGN_CHAR));
}

/* cuckoo_count(f, value): stored copies of value's fingerprint (upper bound). */
PG_FUNCTION_INFO_V1(cuckoo_count);
Datum
cuckoo_count(PG_FUNCTION_ARGS)
{
	ValueHasher *vh = cuckoo_hasher_for_arg(fcinfo, 1);
	const cf_filter *cf = cuckoo_probe_arg(fcinfo, 0, vh);

	PG_RETURN_INT32((int32) cf_count(cf, cuckoo_hash_datum(vh, PG_GETARG_DATUM(1))));
}

/* cuckoo_remove(f, value): f with one occurrence of value removed. */
PG_FUNCTION_INFO_V1(cuckoo_remove);
Datum
cuckoo_remove(PG_FUNCTION_ARGS)
{
	CuckooFilter *v;
	cf_filter	cf;
	ValueHasher *vh;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	vh = cuckoo_hasher_for_arg(fcinfo, 1);
	v = PG_GETARG_CUCKOO_P_COPY(0);
	cuckoo_open(&cf, v);
	cuckoo_check_kind(&cf, vh);
	elem_remove(&cf, vh, PG_GETARG_DATUM(1), NULL);
	PG_RETURN_CUCKOO_P(v);
}

/* Error for a union of filters whose shapes differ, naming both shapes. */
static void
report_shape_mismatch(const cf_filter *a, const cf_filter *b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot union cuckoo filters of different shapes"),
			 errdetail("The first has %u buckets of %u %u-bit fingerprints%s, the second %u buckets of %u %u-bit fingerprints%s.",
					   a->m, a->b, a->f, a->semisort ? " (semi-sorted)" : "",
					   b->m, b->b, b->f, b->semisort ? " (semi-sorted)" : ""),
			 errhint("Filters made by cuckoo_create or cuckoo_agg(value, capacity, fpr) with the same arguments have the same shape.")));
}

/* dst := dst union src, with the errors spelled out. */
static void
union_into(cf_filter *dst, const cf_filter *src)
{
	cf_status	st = cf_union_into(dst, src);

	if (st == CF_SHAPE_MISMATCH)
		report_shape_mismatch(dst, src);
	if (st == CF_KIND_MISMATCH)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot union a cuckoo filter of %s values with one of %s values",
						cf_kind_name(cf_kind_of(dst)), cf_kind_name(cf_kind_of(src)))));
	if (st == CF_FULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the union does not fit in a cuckoo filter of this shape"),
				 errdetail("The filter has %u buckets of %u entries.", dst->m, dst->b),
				 errhint("Union filters built by cuckoo_create or cuckoo_agg(value, capacity, fpr) with a capacity for all their values; filters that cuckoo_agg(value) sized to their own data have no room to spare.")));
	cuckoo_report_status(st, dst);
}

/* cuckoo_union(a, b): a filter holding the items of both (multiset union). */
PG_FUNCTION_INFO_V1(cuckoo_union);
Datum
cuckoo_union(PG_FUNCTION_ARGS)
{
	CuckooFilter *a = PG_GETARG_CUCKOO_P_COPY(0);
	CuckooFilter *b = PG_GETARG_CUCKOO_P(1);
	cf_filter	ca,
				cb;

	cuckoo_open(&ca, a);
	cuckoo_open(&cb, b);
	union_into(&ca, &cb);
	PG_RETURN_CUCKOO_P(a);
}

/*
 * Transition and combine function of cuckoo_union_agg, and combine function
 * of cuckoo_agg(value, capacity, fpr): unions the second filter into the
 * state, in place.  The state lives in the aggregate context.
 */
PG_FUNCTION_INFO_V1(cuckoo_union_trans);
Datum
cuckoo_union_trans(PG_FUNCTION_ARGS)
{
	CuckooFilter *state;
	cf_filter	cs,
				cv;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_union_trans called in non-aggregate context")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(0))
	{
		/*
		 * The first filter becomes the state.  Returned detoasted, in the
		 * per-tuple context: the executor copies a new by-reference state
		 * into the aggregate context itself (a copy made there by us would be
		 * kept twice).
		 */
		state = PG_GETARG_CUCKOO_P(1);
		cuckoo_open(&cs, state);
		PG_RETURN_CUCKOO_P(state);
	}
	state = (CuckooFilter *) PG_GETARG_POINTER(0);
	cuckoo_open(&cs, state);
	cuckoo_open(&cv, PG_GETARG_CUCKOO_P(1));
	union_into(&cs, &cv);
	PG_RETURN_CUCKOO_P(state);
}

/*
 * cuckoo_shrink(f): f rebuilt into the smallest table (halving the bucket
 * count) that holds its items at the target load.  Unchanged when no
 * smaller table would do.
 */
PG_FUNCTION_INFO_V1(cuckoo_shrink);
Datum
cuckoo_shrink(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	cf_filter	cf;
	uint32		m;

	cuckoo_open(&cf, v);
	for (m = cf_shrink_target(&cf); m < cf.m; m *= 2)
	{
		cf_params	p;
		CuckooFilter *out;
		cf_filter	co;
		uint64		rated;

		CHECK_FOR_INTERRUPTS();
		cf_get_params(&cf, &p);
		p.num_buckets = m;
		rated = (uint64) ((double) m * cf.b * cf_target_load(cf.b));
		p.capacity = Min(Max(rated, 1), (uint64) m * cf.b);
		out = cuckoo_new(&p);
		cf_open(&co, out->bytes, CUCKOO_BYTES_LEN(out));
		if (cf_rehash_into(&cf, &co) == CF_OK && !cf_victim_used(&co))
			PG_RETURN_CUCKOO_P(out);
		pfree(out);
	}
	PG_RETURN_CUCKOO_P(PG_GETARG_CUCKOO_P_COPY(0));
}

/* cuckoo_hash(value): the 64-bit hash a filter uses for value. */
PG_FUNCTION_INFO_V1(cuckoo_hash);
Datum
cuckoo_hash(PG_FUNCTION_ARGS)
{
	ValueHasher *vh = cuckoo_hasher_for_arg(fcinfo, 0);

	PG_RETURN_INT64((int64) cuckoo_hash_datum(vh, PG_GETARG_DATUM(0)));
}
