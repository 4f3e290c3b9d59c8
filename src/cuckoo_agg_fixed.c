/*
 * cuckoo_agg_fixed.c
 *     cuckoo_agg(value, capacity, fpr), the fixed-shape aggregate, and
 *     cuckoo_union_trans, its combine function and cuckoo_union_agg's
 *     transition (cuckoo_agg.c says how the aggregates differ).
 */
#include "cuckoo_agg.h"


#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * cuckoo_agg(value, capacity, fpr): the state is a filter of the given shape
 * (the type cuckoofilter, so that it can travel between nodes), to which
 * each value is added unless the filter already reports it, so repeated
 * values never overflow a bucket pair.
 *
 * A filter of at least FIXED_EXPAND_BYTES is, during aggregation, an
 * expanded object in a memory context of its own under the aggregate
 * context, as the growing form's is (below): the executor keeps a read-write
 * expanded state as it is, so the filter exists once, in place, from the
 * first row on (a flat state built in the per-tuple context was copied into
 * the aggregate context by the executor).  The transition only hashes the
 * value into a buffer; every FIXED_BUF_HASHES rows the buffer goes into the
 * filter with cf_insert_if_absent_many, which does exactly what adding them
 * one by one in the same order does (the same bytes) while the buckets of
 * the hashes a few places later are fetched, so cache misses overlap instead
 * of costing one round trip a row.  Wherever the state leaves the aggregate
 * (a parallel worker's partial result, Citus's text, the result) PostgreSQL
 * flattens it, which first empties the buffer.
 *
 * A smaller filter stays in the caches, where the buffer gains nothing, and
 * the buffered state would cost each group a context and 8 kB of buffer:
 * a hashed aggregate sums the memory of every context under its own at each
 * new group, so GROUP BY over many small groups became quadratic (40,000
 * groups of capacity 10: 12.8 s and 650 MB against 0.17 s and 18 MB, work_mem
 * 1GB; sql/agg_groups.sql).  Such a filter is a plain state, changed in
 * place row by row, as before the buffer.
 */
#define FIXED_BUF_HASHES	1024
#define FIXED_EXPAND_BYTES	(256 * 1024)

typedef struct FixedState
{
	ExpandedObjectHeader hdr;
	CuckooFilter *v;			/* the filter, in hdr.eoh_context */
	int			nbuf;			/* hashes waiting in buf */
	uint16		kind;			/* the filter's value kind and tag */
	uint32		type_tag;
	uint64		buf[FIXED_BUF_HASHES];
} FixedState;

/* Adds the buffered hashes to the filter, in the order they came. */
static void
fixed_state_flush(FixedState *fs)
{
	cf_filter	cf;
	cf_status	st;
	int			n = fs->nbuf;

	if (n == 0)
		return;
	fs->nbuf = 0;
	filter_open(&cf, fs->v);
	(void) cf_insert_if_absent_many(&cf, fs->buf, (size_t) n, &st);
	filter_report_status(st, &cf, NULL);
}

static Size
fixed_state_flat_size(ExpandedObjectHeader *eohptr)
{
	FixedState *fs = (FixedState *) eohptr;

	/* the flat value holds every value added: the buffer goes in first */
	fixed_state_flush(fs);
	return VARSIZE(fs->v);
}

static void
fixed_state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	FixedState *fs = (FixedState *) eohptr;

	/* get_flat_size ran just before: the buffer is empty */
	Assert(fs->nbuf == 0);
	Assert(allocated_size == VARSIZE(fs->v));
	memcpy(result, fs->v, allocated_size);
}

static const ExpandedObjectMethods fixed_state_methods = {
	fixed_state_flat_size,
	fixed_state_flatten
};

/*
 * A new state under the aggregate context: a new filter of shape p when flat
 * is NULL, else a copy of the filter flat.
 */
static FixedState *
fixed_state_new(MemoryContext aggcxt, const cf_params *p, CuckooFilter *flat)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "cuckoo_agg fixed-shape filter",
											  ALLOCSET_DEFAULT_SIZES);
	FixedState *fs = MemoryContextAlloc(cxt, sizeof(FixedState));
	cf_filter	cf;

	EOH_init_header(&fs->hdr, &fixed_state_methods, cxt);
	fs->nbuf = 0;
	if (flat == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		fs->v = filter_new(p);
		MemoryContextSwitchTo(old);
	}
	else
	{
		fs->v = filter_alloc(cxt, VARSIZE(flat));
		memcpy(fs->v, flat, VARSIZE(flat));
	}
	filter_open(&cf, fs->v);
	fs->kind = cf_kind_of(&cf);
	fs->type_tag = cf_type_tag(&cf);
	return fs;
}

/* The expanded fixed-shape state behind d, or NULL if d is not one (read-write). */
static FixedState *
fixed_state_of(Datum d)
{
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &fixed_state_methods)
			return (FixedState *) eoh;
	}
	return NULL;
}

/*
 * Transition of cuckoo_agg(value, capacity, fpr): the first value creates
 * the filter as cuckoo_create(capacity, fpr) would; each value is added
 * unless already reported (in FIXED_BUF_HASHES batches, in order, if the
 * filter is large).
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_fixed_trans);
Datum
cuckoo_agg_fixed_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	FixedState *fs = NULL;
	ValueHasher *vh;
	CuckooFilter *state = NULL;

	aggcxt = agg_context(fcinfo, "cuckoo_agg_fixed_trans");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	vh = arg_hasher(fcinfo, 1);
	if (PG_ARGISNULL(0))
	{
		cf_params	p;

		if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("capacity and fpr of cuckoo_agg must not be NULL")));
		plan_params(PG_GETARG_INT64(2), PG_GETARG_FLOAT8(3), HASHSET_BUCKET,
					0, false, CF_DEFAULT_KICKS, false, &p);
		p.kind = vh->kind;
		p.type_tag = vh->type_tag;
		if (cf_init_bytes(&p) + VARHDRSZ >= FIXED_EXPAND_BYTES)
			fs = fixed_state_new(aggcxt, &p, NULL);
		else
		{
			/*
			 * Built in the per-tuple context: the executor copies a new
			 * plain state into the aggregate context itself.
			 */
			state = filter_new(&p);
		}
	}
	else if ((fs = fixed_state_of(PG_GETARG_DATUM(0))) == NULL)
	{
		state = (CuckooFilter *) PG_GETARG_POINTER(0);
		/*
		 * A large flat state (a caller that copied the expanded one, as
		 * datumCopy does) is expanded again.
		 */
		if (VARSIZE(state) >= FIXED_EXPAND_BYTES)
		{
			fs = fixed_state_new(aggcxt, NULL, PG_GETARG_CUCKOO_P(0));
			state = NULL;
		}
	}

	if (state != NULL)
	{
		/* a small filter: the value goes in now, in place */
		cf_filter	cf;
		cf_status	st;

		filter_open(&cf, state);
		filter_check_kind(&cf, vh);
		st = cf_insert_if_absent(&cf, value_hash(vh, PG_GETARG_DATUM(1)));
		filter_report_status(st, &cf, NULL);
		PG_RETURN_CUCKOO_P(state);
	}

	if (unlikely(fs->kind != vh->kind || fs->type_tag != vh->type_tag))
	{
		cf_filter	cf;

		filter_open(&cf, fs->v);
		filter_check_kind(&cf, vh);
	}
	fs->buf[fs->nbuf++] = value_hash(vh, PG_GETARG_DATUM(1));
	if (fs->nbuf == FIXED_BUF_HASHES)
		fixed_state_flush(fs);
	PG_RETURN_DATUM(EOHPGetRWDatum(&fs->hdr));
}

/*
 * Final function of cuckoo_agg(value, capacity, fpr): the state as a plain
 * cuckoofilter value; no rows give NULL (Citus cannot pass capacity and fpr
 * then).  The concrete overloads have no final function: the executor
 * flattens the state itself.
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_fixed_final);
Datum
cuckoo_agg_fixed_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	/* a flat state as it is; an expanded one flattened into a new value */
	PG_RETURN_POINTER(PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
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

	(void) agg_context(fcinfo, "cuckoo_union_trans");
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
		filter_open(&cs, state);
		PG_RETURN_CUCKOO_P(state);
	}
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(0))))
	{
		/*
		 * The expanded state of cuckoo_agg(value, capacity, fpr), handed to
		 * its combine function by a caller that combines transition states
		 * (PostgreSQL's own plans combine only flat partial results): its
		 * flat copy, in the per-tuple context, becomes the state, and the
		 * executor replaces the expanded one with it.
		 */
		state = PG_GETARG_CUCKOO_P_COPY(0);
	}
	else
		state = (CuckooFilter *) PG_GETARG_POINTER(0);
	filter_open(&cs, state);
	filter_open(&cv, PG_GETARG_CUCKOO_P(1));

	/*
	 * Growing filters may grow the state.  The executor owns it and frees it
	 * when the transition returns another pointer, so the grown state is a
	 * new value (GROW_COPY), which the executor then moves into the
	 * aggregate context.
	 */
	PG_RETURN_CUCKOO_P(filter_union_into(&cs, &cv, GROW_COPY));
}
