/*
 * cuckoo_funcs.c
 *     Scalar SQL functions on filters: create, add, add_if_absent, contains,
 *     count, remove (single values and arrays), union, shrink, hash.
 *
 * Scalar functions never modify their arguments: a function that changes a
 * filter works on a copy and returns it.  Adding or removing NULL returns
 * the filter unchanged, so UPDATE ... SET f = cuckoo_add(f, x) can never
 * wipe a stored filter.
 */
#include "cuckoo_arg.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

/*
 * cuckoo_create(capacity, fpr, bucket_size, fingerprint_bits, max_kicks,
 * semisort): an empty filter.  NULL fingerprint_bits means "derive from
 * fpr"; any other NULL argument gives a NULL result, as a strict function.
 */
PG_FUNCTION_INFO_V1(cuckoo_create);
Datum
cuckoo_create(PG_FUNCTION_ARGS)
{
	cf_params	p;

	/*
	 * expansion (1.2) is the seventh argument; a call stored by 1.0 or 1.1
	 * (a column default, a view) may still pass six: expansion 0.
	 */
	bool		has_expansion = PG_NARGS() > 6;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(4) || PG_ARGISNULL(5) || (has_expansion && PG_ARGISNULL(6)))
		PG_RETURN_NULL();
	plan_params(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1),
				PG_GETARG_INT32(2),
				PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3), !PG_ARGISNULL(3),
				PG_GETARG_INT32(4), PG_GETARG_BOOL(5), &p);
	if (has_expansion)
		plan_expansion(PG_GETARG_INT32(6), PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1),
					   PG_GETARG_INT32(2), !PG_ARGISNULL(3), PG_GETARG_BOOL(5),
					   PG_GETARG_INT32(4), &p);
	PG_RETURN_CUCKOO_P(filter_new(&p));
}

typedef enum AddMode
{
	ADD_ALWAYS,
	ADD_IF_ABSENT
} AddMode;

/* What a modifying function does with one non-null value. */
typedef void (*element_fn) (cf_filter *cf, ValueHasher *vh, Datum value, void *arg);

/* Adds one value (arg: its AddMode), raising the error on failure. */
static void
elem_add(cf_filter *cf, ValueHasher *vh, Datum value, void *arg)
{
	uint64		h = value_hash(vh, value);
	cf_status	st;

	if (cf_kind_of(cf) == CF_KIND_ANY)
		cf_set_kind(cf, vh->kind, vh->type_tag);
	/* a growing filter may grow: the copy is ours, enlarged in place */
	filter_grow_begin(cf, GROW_REPALLOC);
	st = *(AddMode *) arg == ADD_IF_ABSENT ? cf_insert_if_absent(cf, h) : cf_insert(cf, h);
	(void) filter_grow_end(cf);
	filter_report_status(st, cf, NULL);
}

/* Removes one occurrence of a value, if the filter has it. */
static void
elem_remove(cf_filter *cf, ValueHasher *vh, Datum value, void *arg)
{
	(void) arg;
	if (cf_kind_of(cf) != CF_KIND_ANY)
		(void) cf_remove(cf, value_hash(vh, value));
}

/*
 * Shared body of the functions that return a modified copy of filter
 * argument 0: fn applied to value argument 1 or, for the array forms, to each
 * non-null element of it.  A NULL filter gives NULL; a NULL value or array
 * the filter unchanged.
 */
static Datum
modify_copy(FunctionCallInfo fcinfo, bool array, element_fn fn, void *arg)
{
	CuckooFilter *v;
	cf_filter	cf;
	ValueHasher *vh;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	vh = array ? arg_array_hasher(fcinfo, 1) : arg_hasher(fcinfo, 1);
	v = PG_GETARG_CUCKOO_P_COPY(0);
	filter_open(&cf, v);
	filter_check_kind(&cf, vh);
	if (array)
	{
		ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
		ArrayIterator it = array_create_iterator(arr, 0, NULL);
		Datum		value;
		bool		isnull;

		while (array_iterate(it, &value, &isnull))
		{
			CHECK_FOR_INTERRUPTS();
			if (!isnull)
				fn(&cf, vh, value, arg);
		}
		array_free_iterator(it);
	}
	else
		fn(&cf, vh, PG_GETARG_DATUM(1), arg);
	/* the filter may have grown and moved: cf.buf and cf.len are current */
	v = (CuckooFilter *) (cf.buf - VARHDRSZ);
	SET_VARSIZE(v, VARHDRSZ + cf.len);
	AssertCheckFilter(&cf, "modify_copy");
	PG_RETURN_CUCKOO_P(v);
}

/* cuckoo_add(f, value): f with one more occurrence of value. */
PG_FUNCTION_INFO_V1(cuckoo_add);
Datum
cuckoo_add(PG_FUNCTION_ARGS)
{
	AddMode		mode = ADD_ALWAYS;

	return modify_copy(fcinfo, false, elem_add, &mode);
}

/* cuckoo_add_if_absent(f, value): adds value unless f already reports it. */
PG_FUNCTION_INFO_V1(cuckoo_add_if_absent);
Datum
cuckoo_add_if_absent(PG_FUNCTION_ARGS)
{
	AddMode		mode = ADD_IF_ABSENT;

	return modify_copy(fcinfo, false, elem_add, &mode);
}

/* cuckoo_remove(f, value): f with one occurrence of value removed. */
PG_FUNCTION_INFO_V1(cuckoo_remove);
Datum
cuckoo_remove(PG_FUNCTION_ARGS)
{
	return modify_copy(fcinfo, false, elem_remove, NULL);
}

/* cuckoo_add_array(f, values[]): adds every non-null element. */
PG_FUNCTION_INFO_V1(cuckoo_add_array);
Datum
cuckoo_add_array(PG_FUNCTION_ARGS)
{
	AddMode		mode = ADD_ALWAYS;

	return modify_copy(fcinfo, true, elem_add, &mode);
}

/* cuckoo_add_if_absent_array(f, values[]): adds each element not reported yet. */
PG_FUNCTION_INFO_V1(cuckoo_add_if_absent_array);
Datum
cuckoo_add_if_absent_array(PG_FUNCTION_ARGS)
{
	AddMode		mode = ADD_IF_ABSENT;

	return modify_copy(fcinfo, true, elem_add, &mode);
}

/* cuckoo_remove_array(f, values[]): removes one occurrence of each element. */
PG_FUNCTION_INFO_V1(cuckoo_remove_array);
Datum
cuckoo_remove_array(PG_FUNCTION_ARGS)
{
	return modify_copy(fcinfo, true, elem_remove, NULL);
}

/* cuckoo_contains(f, value) and the @> operator: may value be in f? */
PG_FUNCTION_INFO_V1(cuckoo_contains);
Datum
cuckoo_contains(PG_FUNCTION_ARGS)
{
	ValueHasher *vh = arg_hasher(fcinfo, 1);
	uint64		h = value_hash(vh, PG_GETARG_DATUM(1));
	const cf_filter *cf = arg_probe_keys(fcinfo, 0, vh, &h, 1);

	PG_RETURN_BOOL(cf_contains(cf, h));
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
	ValueHasher *vh = arg_array_hasher(fcinfo, 1);
	const cf_filter *cf = NULL;
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

	/*
	 * A few keys (one chunk): hashed first, so that a stored filter is read
	 * only where their buckets lie (arg_probe_keys); more: read whole.
	 */
	if (n > PROBE_CHUNK)
		cf = arg_probe_view(fcinfo, 0, vh);
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
				hashes[pending] = value_hash(vh, value);
				where[pending++] = i;
			}
			i++;
		}
		if (cf == NULL && (!more || pending == PROBE_CHUNK))
			cf = arg_probe_keys(fcinfo, 0, vh, hashes, pending);
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
	ValueHasher *vh = arg_hasher(fcinfo, 1);
	uint64		h = value_hash(vh, PG_GETARG_DATUM(1));
	const cf_filter *cf = arg_probe_keys(fcinfo, 0, vh, &h, 1);

	PG_RETURN_INT32((int32) cf_count(cf, h));
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

	filter_open(&ca, a);
	filter_open(&cb, b);
	/* a is our copy: a growing union enlarges it in place */
	PG_RETURN_CUCKOO_P(filter_union_into(&ca, &cb, GROW_REPALLOC));
}

/*
 * cuckoo_shrink(f): f rebuilt into the smallest table (halving the bucket
 * count) that holds its items at the target load.  Unchanged when no
 * smaller table would do.  A version-2 filter (grown or rotated) is
 * compacted by the core instead: the smallest table of any bucket count
 * that holds its entries, same fingerprints and tails, so the same answers.
 */
PG_FUNCTION_INFO_V1(cuckoo_shrink);
Datum
cuckoo_shrink(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	cf_filter	cf;
	uint32		m;

	filter_open(&cf, v);
	if (cf_caps(&cf) & CF_CAP_COMPACTS)
	{
		size_t		fresh = cf_compact_fresh_bytes(&cf);
		cf_info		info;
		uint32		cm;
		size_t		len;

		for (uint32 attempt = 0; (len = cf_compact_try_bytes(&cf, attempt, &cm)) > 0; attempt++)
		{
			CuckooFilter *out;

			CHECK_FOR_INTERRUPTS();
			if (len >= cf.len)
				continue;
			out = filter_alloc(CurrentMemoryContext, VARHDRSZ + len);
			SET_VARSIZE(out, VARHDRSZ + len);
			if (cf_compact_try_into(&cf, cm, out->bytes, len) == CF_OK)
			{
#ifdef USE_ASSERT_CHECKING
				cf_filter	co;

				cf_open(&co, out->bytes, len);
				AssertCheckFilter(&co, "cuckoo_shrink");
#endif
				if (len > 2 * fresh)
				{
					cf_get_info(&cf, &info);
					ereport(NOTICE,
							(errmsg("cuckoo_shrink compacted the filter to %zu bytes, more than twice the %zu bytes of a growing filter made for its items",
									len, fresh),
							 errdetail("It holds %llu entries for %llu items.",
									   (unsigned long long) info.entries,
									   (unsigned long long) cf_items(&cf)),
							 errhint("Entries beyond the items are copies that splits made of values added while the filter was small; they stay when those values are removed. Rebuild the filter from its values (cuckoo_agg) to compact it further.")));
				}
				PG_RETURN_CUCKOO_P(out);
			}
			pfree(out);
		}
		/* nothing smaller holds the entries: fine if it is compact already */
		if (cf.len <= 2 * fresh)
			PG_RETURN_CUCKOO_P(PG_GETARG_CUCKOO_P_COPY(0));
		cf_get_info(&cf, &info);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo_shrink cannot compact this filter"),
				 errdetail("It holds %llu entries for %llu items in %zu bytes; no smaller table holds the entries, and a growing filter made for its items would take %zu bytes.",
						   (unsigned long long) info.entries,
						   (unsigned long long) cf_items(&cf), cf.len, fresh),
				 errhint("Entries beyond the items are copies that splits made of values added while the filter was small; they stay when those values are removed. Rebuild the filter from its values (cuckoo_agg) to compact it.")));
	}
	for (m = cf_shrink_target(&cf); m < cf.m; m *= 2)
	{
		cf_params	p;
		CuckooFilter *out;
		cf_filter	co;
		uint64		rated;

		CHECK_FOR_INTERRUPTS();
		memset(&p, 0, sizeof(p));	/* a version-1 filter: no version-2 fields */
		cf_get_params(&cf, &p);
		p.num_buckets = m;
		rated = (uint64) ((double) m * cf.b * cf_target_load(cf.b));
		p.capacity = Min(Max(rated, 1), (uint64) m * cf.b);
		out = filter_new(&p);
		cf_open(&co, out->bytes, CUCKOO_BYTES_LEN(out));
		if (cf_rehash_into(&cf, &co) == CF_OK && !cf_victim_used(&co))
			PG_RETURN_CUCKOO_P(out);
		pfree(out);
	}
	PG_RETURN_CUCKOO_P(PG_GETARG_CUCKOO_P_COPY(0));
}

/*
 * cuckoo_rotate(f, keep): f with a new generation started and the
 * generations older than the last keep dropped (cf_rotate).  Any filter; the
 * result is format version 2.  f itself is not changed.
 */
PG_FUNCTION_INFO_V1(cuckoo_rotate);
Datum
cuckoo_rotate(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	int32		keep = PG_GETARG_INT32(1);
	cf_filter	cf;
	size_t		len;
	CuckooFilter *out;

	if (keep < 1 || keep > CF_MAX_KEEP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keep must be between 1 and %d, not %d", CF_MAX_KEEP, keep)));
	filter_open(&cf, v);
	len = cf_rotate_bytes(&cf, (uint32) keep);
	if (len == 0)
	{
		/* the generation tag must fit in the entry's 32 bits, or the value in the size limit */
		cf_info		info;
		uint32		g = 0;

		cf_get_info(&cf, &info);
		while ((1u << g) <= (uint32) keep)
			g++;
		g = Max(g, info.gen_bits);
		/*
		 * An address-budget filter's tail gives way down to 2 bits (13.12);
		 * refused below that, f + t + g exceeds 32 with its own t too, and
		 * the message is the one the clients reproduce.
		 */
		if (cf.f + info.tail_bits + g > 32)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("cannot rotate a filter of %u-bit fingerprints%s with keep %d",
							cf.f, info.tail_bits ? psprintf(" and %u tail bits", info.tail_bits) : "", keep),
					 errdetail("Keeping %d generations takes %u tag bits per entry, and an entry holds at most 32 bits.",
							   keep, g),
					 errhint("Use a smaller keep, or a filter with shorter fingerprints (a larger fpr).")));
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the rotated filter would be larger than %zu bytes",
						(size_t) CF_MAX_BYTES),
				 errdetail("Rotation adds generation tags to every entry.")));
	}
	out = filter_alloc(CurrentMemoryContext, VARHDRSZ + len);
	SET_VARSIZE(out, VARHDRSZ + len);
	cf_rotate(&cf, (uint32) keep, out->bytes);
#ifdef USE_ASSERT_CHECKING
	{
		cf_filter	co;

		cf_open(&co, out->bytes, len);
		AssertCheckFilter(&co, "cuckoo_rotate");
	}
#endif
	PG_RETURN_CUCKOO_P(out);
}

/* cuckoo_hash(value): the 64-bit hash a filter uses for value. */
PG_FUNCTION_INFO_V1(cuckoo_hash);
Datum
cuckoo_hash(PG_FUNCTION_ARGS)
{
	ValueHasher *vh = arg_hasher(fcinfo, 0);

	PG_RETURN_INT64((int64) value_hash(vh, PG_GETARG_DATUM(0)));
}
