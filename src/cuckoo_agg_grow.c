/*
 * cuckoo_agg_grow.c
 *     cuckoo_agg(value, capacity, fpr, expansion) (1.2), the aggregate of a
 *     growing filter: its state, a filter that grows in place as an expanded
 *     object, and its transition, combine and final functions.  Where
 *     PostgreSQL splits the aggregate the state is a set of hashes instead
 *     (cuckoo_agg_split.c).
 */
#include "cuckoo_agg.h"


#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/*
 * cuckoo_agg(value, capacity, fpr, expansion) (1.2).  Its state is a filter
 * that may grow row after row.  A plain varlena state cannot grow cheaply:
 * whenever a transition returns a new pointer the executor copies the value
 * into the aggregate context at its exact length and frees the old one, so
 * every split of a growing filter would copy the whole filter.  A filter
 * that has to grow therefore becomes an expanded object
 * (utils/expandeddatum.h) living in a memory context of its own under the
 * aggregate context: its buffer keeps the room the core asked for, grows in
 * place (GROW_REPALLOC), and the executor keeps the object as it is.
 *
 * Until then the state is a plain cuckoofilter value, updated in place as
 * the fixed-shape form's is: a context per group costs at least 1 kB, and a
 * hashed aggregate measures its memory by walking every context under its
 * own once per new group, which made GROUP BY over many groups quadratic
 * (40,000 groups that never grew: 6.6 s against 0.29 s for the
 * three-argument form; 8 kB of context per group).  Only the groups whose
 * filter grows pay for a context.  Wherever the state leaves the aggregate
 * (to a parallel leader, to Citus as text, to the final function)
 * PostgreSQL flattens an expanded state into an ordinary cuckoofilter value.
 */
typedef struct GrowState
{
	ExpandedObjectHeader hdr;
	CuckooFilter *v;			/* the filter, in hdr.eoh_context */
	size_t		alloc;			/* bytes usable at v->bytes (>= its length) */
} GrowState;

static Size
grow_state_flat_size(ExpandedObjectHeader *eohptr)
{
	return VARSIZE(((GrowState *) eohptr)->v);
}

static void
grow_state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	GrowState  *gs = (GrowState *) eohptr;

	Assert(allocated_size == VARSIZE(gs->v));
	memcpy(result, gs->v, allocated_size);
}

static const ExpandedObjectMethods grow_state_methods = {
	grow_state_flat_size,
	grow_state_flatten
};

/* The state in argument 0 if it is our read-write expanded object, else NULL. */
static GrowState *
grow_state_rw(FunctionCallInfo fcinfo)
{
	Datum		d = PG_GETARG_DATUM(0);

	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &grow_state_methods)
			return (GrowState *) eoh;
	}
	return NULL;
}

/* What a change to a plain state needs if its filter grows. */
typedef struct GrowExpand
{
	MemoryContext aggcxt;
	GrowState  *gs;				/* made by the first growth, else NULL */
} GrowExpand;

/*
 * GROW_ALLOC function: the first growth of a plain state's filter makes the
 * expanded state, in a small context of its own under the aggregate
 * context, and gives its buffer (size bytes, the length word included).
 */
static void *
grow_state_expand(void *arg, Size size)
{
	GrowExpand *x = (GrowExpand *) arg;
	MemoryContext cxt = AllocSetContextCreate(x->aggcxt, "cuckoo_agg growing filter",
											  ALLOCSET_SMALL_SIZES);
	GrowState  *gs = MemoryContextAlloc(cxt, sizeof(GrowState));

	EOH_init_header(&gs->hdr, &grow_state_methods, cxt);
	gs->v = filter_alloc(cxt, size);
	gs->alloc = size - VARHDRSZ;
	x->gs = gs;
	return gs->v;
}

/* Before a change that may grow the filter cf (of state gs, or plain: x). */
static void
grow_state_begin(GrowState *gs, GrowExpand *x, cf_filter *cf)
{
	if (gs != NULL)
	{
		cf->alloc = gs->alloc;
		filter_grow_begin(cf, GROW_REPALLOC);
	}
	else
		filter_grow_begin_alloc(cf, grow_state_expand, x);
}

/*
 * After the change: the state to return.  An expanded state (kept, or just
 * made by the growth) has its buffer and length as the core left them; a
 * plain one that did not grow is returned as it is, changed in place.
 */
static Datum
grow_state_close(GrowState *gs, GrowExpand *x, cf_filter *cf)
{
	CuckooFilter *v = filter_grow_end(cf);

	if (gs == NULL)
		gs = x->gs;
	if (gs == NULL)
		return PointerGetDatum(v);
	gs->v = v;
	gs->alloc = cf->alloc;
	return EOHPGetRWDatum(&gs->hdr);
}

/* The parameters of the filter cuckoo_create(capacity, fpr, expansion => expansion) makes. */
static void
grow_plan(const GrowArgs *a, cf_params *p)
{
	plan_params(a->capacity, a->fpr, HASHSET_BUCKET, 0, false, CF_DEFAULT_KICKS, false, p);
	plan_expansion(a->expansion, a->capacity, a->fpr, HASHSET_BUCKET, false, false,
				   CF_DEFAULT_KICKS, p);
	p->kind = a->kind;
	p->type_tag = a->type_tag;
}

/* The kind and tag of a set must be the filter's (a filter of other values). */
static void
grow_kind_check(const cf_filter *cf, uint16 kind, uint32 tag)
{
	if (cf_kind_of(cf) != kind || cf_type_tag(cf) != tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_agg states of different value types cannot be combined")));
}

/*
 * Adds s's hashes (ascending) to the open filter cf, each unless already
 * reported; growth as set up by the caller.  The first status that is not
 * a success is returned (the caller closes the growth, then reports it).
 */
static cf_status
grow_insert_set(cf_filter *cf, HashSetState *s)
{
	HashSetReader r;
	uint64	   *chunk = palloc(HASHSET_CHUNK * sizeof(uint64));
	int64		got;
	cf_status	st = CF_OK;

	hashset_reader_open(&r, s);
	while (st == CF_OK && (got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
	{
		for (int64 i = 0; i < got; i++)
		{
			cf_status	one = cf_insert_if_absent(cf, chunk[i]);

			if (one != CF_OK && one != CF_OK_STASHED && one != CF_EXISTS)
			{
				st = one;
				break;
			}
		}
		CHECK_FOR_INTERRUPTS();
	}
	hashset_reader_close(&r);
	pfree(chunk);
	return st;
}

/*
 * The aggregate state that holds the filter of s's hashes, created from
 * args: a growing-filter state under aggcxt (or a plain filter, if it never
 * grew).
 */
static Datum
grow_state_from_set(MemoryContext aggcxt, const GrowArgs *args, HashSetState *s)
{
	cf_params	p;
	cf_filter	cf;
	cf_status	st;
	GrowExpand	x;
	Datum		result;

	grow_plan(args, &p);
	filter_open(&cf, filter_new(&p));
	x.aggcxt = aggcxt;
	x.gs = NULL;
	grow_state_begin(NULL, &x, &cf);
	st = grow_insert_set(&cf, s);
	result = grow_state_close(NULL, &x, &cf);
	filter_report_status(st, &cf, NULL);
	return result;
}

/* GROW_ALLOC function of the final filter: a buffer in the context arg. */
static void *
grow_final_alloc(void *arg, Size size)
{
	return filter_alloc((MemoryContext) arg, size);
}

/*
 * The filter of s's hashes as a plain value in the current context (the
 * final function's result).
 */
static CuckooFilter *
grow_filter_from_set(const GrowArgs *args, HashSetState *s)
{
	cf_params	p;
	cf_filter	cf;
	cf_status	st;
	CuckooFilter *v;

	grow_plan(args, &p);
	filter_open(&cf, filter_new(&p));
	filter_grow_begin_alloc(&cf, grow_final_alloc, CurrentMemoryContext);
	st = grow_insert_set(&cf, s);
	v = filter_grow_end(&cf);
	filter_report_status(st, &cf, NULL);
	return v;
}

/*
 * Transition of cuckoo_agg(value, capacity, fpr, expansion): the first value
 * creates the filter as cuckoo_create(capacity, fpr, expansion =>
 * expansion) would; each value is added unless already reported.  In a
 * split aggregate the state is the set of distinct hashes (above).
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_grow_trans);
Datum
cuckoo_agg_grow_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	ValueHasher *vh;
	GrowState  *gs = NULL;
	GrowPartial *gp;
	GrowPartialFlat *gf;
	GrowExpand	x;
	CuckooFilter *state;
	cf_filter	cf;
	cf_status	st;
	uint64		h;
	Datum		result;

	aggcxt = agg_context(fcinfo, "cuckoo_agg_grow_trans");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	vh = arg_hasher(fcinfo, 1);
	h = value_hash(vh, PG_GETARG_DATUM(1));
	if (PG_ARGISNULL(0))
	{
		GrowArgs	a;
		cf_params	p;

		if (PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("capacity, fpr and expansion of cuckoo_agg must not be NULL")));
		a.capacity = PG_GETARG_INT64(2);
		a.fpr = PG_GETARG_FLOAT8(3);
		a.expansion = PG_GETARG_INT32(4);
		a.kind = vh->kind;
		a.type_tag = vh->type_tag;
		grow_plan(&a, &p);		/* validates the arguments */
		if (grow_trans_keeps_set(fcinfo))
		{
			/* the set of one hash, flat; the executor copies it */
			PG_RETURN_POINTER(grow_flat_merge(&a, NULL, 0, h));
		}
		/* in the per-tuple context: the executor copies a new plain state */
		state = filter_new(&p);
	}
	else if ((gp = grow_partial_of(PG_GETARG_DATUM(0), true)) != NULL)
	{
		if (gp->args.kind != vh->kind || gp->args.type_tag != vh->type_tag)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cuckoo_agg state holds %s values, not %s",
							cf_kind_name(gp->args.kind), format_type_be(vh->typid))));
		hashset_add(gp->s, h);
		gp->added++;
		if (grow_partial_full(gp))
		{
			/* past the bound: the filter of the hashes, as a serial build's */
			/* (the executor deletes the replaced state) */
			PG_RETURN_DATUM(grow_state_from_set(aggcxt, &gp->args, gp->s));
		}
		PG_RETURN_DATUM(EOHPGetRWDatum(&gp->hdr));
	}
	else if ((gf = grow_partial_flat_of(PG_GETARG_DATUM(0))) != NULL)
	{
		GrowArgs	a;
		HashSetState tmp;

		grow_args_of_flat(gf, &a);
		if (a.kind != vh->kind || a.type_tag != vh->type_tag)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cuckoo_agg state holds %s values, not %s",
							cf_kind_name(a.kind), format_type_be(vh->typid))));
		if (GP_NHASHES(gf) < GP_FLAT_KEEP)
			PG_RETURN_POINTER(grow_flat_merge(&a, gf->hashes, GP_NHASHES(gf), h));
		gp = grow_partial_new(aggcxt, &a);
		hashset_combine(gp->s, grow_flat_view(gf, &tmp));
		hashset_add(gp->s, h);
		gp->added = GP_NHASHES(gf) + 1;
		PG_RETURN_DATUM(EOHPGetRWDatum(&gp->hdr));
	}
	else if ((gs = grow_state_rw(fcinfo)) != NULL)
		state = gs->v;
	else
		state = PG_GETARG_CUCKOO_P(0);	/* plain: ours to change (or a copy) */

	filter_open(&cf, state);
	filter_check_kind(&cf, vh);
	x.aggcxt = aggcxt;
	x.gs = NULL;
	grow_state_begin(gs, &x, &cf);
	st = cf_insert_if_absent(&cf, h);
	result = grow_state_close(gs, &x, &cf);
	filter_report_status(st, &cf, NULL);
	PG_RETURN_DATUM(result);
}

/*
 * Combine function of cuckoo_agg(value, capacity, fpr, expansion).  Two sets
 * of hashes merge (exact); a set and a filter: the set's hashes are added to
 * the filter (exact: the filter gains each value as an insert would); two
 * filters (states that passed GP_MAX_HASHES, or callers that do not split
 * the Aggref, such as Citus): the second is unioned into the first, which
 * may cost accuracy (docs/DESIGN.md, "Union").  The second state is only
 * read.
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_grow_combine);
Datum
cuckoo_agg_grow_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	GrowState  *gs;
	GrowPartial *gp;
	GrowExpand	x;
	CuckooFilter *other;
	cf_filter	cs,
				co;
	cf_status	st;
	Datum		result;
	HashSetState tmp1,
				tmp2;
	HashSetState *s1,
			   *s2;
	GrowArgs	a1,
				a2;
	bool		made;

	aggcxt = agg_context(fcinfo, "cuckoo_agg_grow_combine");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	s2 = grow_arg_set(fcinfo, 1, &tmp2, &a2);
	s1 = PG_ARGISNULL(0) ? NULL : grow_arg_set(fcinfo, 0, &tmp1, &a1);

	if (s2 != NULL && (PG_ARGISNULL(0) || s1 != NULL))
	{
		bool		keep = grow_combine_keeps_set(fcinfo);

		if (!keep && PG_ARGISNULL(0))
		{
			/* the result must be a filter: the filter of the second's hashes */
			PG_RETURN_DATUM(grow_state_from_set(aggcxt, &a2, s2));
		}
		/* sets: the first's hashes (if any) and the second's, in a new or kept state */
		gp = PG_ARGISNULL(0) ? NULL : grow_partial_of(PG_GETARG_DATUM(0), true);
		if (!PG_ARGISNULL(0))
			grow_args_check(&a1, &a2);
		made = (gp == NULL);
		if (made)
		{
			gp = grow_partial_new(aggcxt, &a2);
			if (s1 != NULL)
			{
				hashset_combine(gp->s, s1);
				gp->added += hashset_count(s1);
			}
		}
		hashset_combine(gp->s, s2);
		gp->added += hashset_count(s2);
		if (grow_partial_full(gp) || !keep)
		{
			/*
			 * The filter replaces the set: the executor deletes the replaced
			 * state (the first argument), not a set made here.
			 */
			result = grow_state_from_set(aggcxt, &gp->args, gp->s);
			if (made)
				DeleteExpandedObject(EOHPGetRWDatum(&gp->hdr));
			PG_RETURN_DATUM(result);
		}
		PG_RETURN_DATUM(EOHPGetRWDatum(&gp->hdr));
	}

	if (s1 != NULL)
	{
		/* a set and a filter: a copy of the filter gains the set's hashes */
		other = PG_GETARG_CUCKOO_P(1);
		filter_open(&co, other);
		grow_kind_check(&co, a1.kind, a1.type_tag);
		x.aggcxt = aggcxt;
		x.gs = NULL;
		filter_open(&cs, PG_GETARG_CUCKOO_P_COPY(1));
		grow_state_begin(NULL, &x, &cs);
		st = grow_insert_set(&cs, s1);
		result = grow_state_close(NULL, &x, &cs);
		filter_report_status(st, &cs, NULL);
		/* (the executor deletes or frees the replaced state) */
		PG_RETURN_DATUM(result);
	}

	if (PG_ARGISNULL(0))
	{
		/* a plain copy of the filter becomes the state (the executor makes it) */
		other = PG_GETARG_CUCKOO_P(1);
		filter_open(&co, other);
		PG_RETURN_CUCKOO_P(other);
	}

	gs = grow_state_rw(fcinfo);
	filter_open(&cs, gs != NULL ? gs->v : PG_GETARG_CUCKOO_P(0));
	x.aggcxt = aggcxt;
	x.gs = NULL;
	if (s2 != NULL)
	{
		/* a filter and a set: the filter gains the set's hashes */
		grow_kind_check(&cs, a2.kind, a2.type_tag);
		grow_state_begin(gs, &x, &cs);
		st = grow_insert_set(&cs, s2);
		result = grow_state_close(gs, &x, &cs);
		filter_report_status(st, &cs, NULL);
		PG_RETURN_DATUM(result);
	}

	/* two filters: the union */
	other = PG_GETARG_CUCKOO_P(1);
	filter_open(&co, other);
	AssertCheckFilter(&co, "cuckoo_agg_grow_combine");
	grow_state_begin(gs, &x, &cs);
	st = cf_union_into(&cs, &co);
	result = grow_state_close(gs, &x, &cs);
	filter_report_status(st, &cs, &co);
	AssertCheckFilter(&cs, "cuckoo_agg_grow_combine");
	PG_RETURN_DATUM(result);
}

/*
 * Final function of cuckoo_agg(value, capacity, fpr, expansion): the state
 * as a plain cuckoofilter value (a flat copy of an expanded state); a set of
 * hashes (a split aggregate) becomes the filter of its hashes, inserted in
 * ascending order.  The state is only read.
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_grow_final);
Datum
cuckoo_agg_grow_final(PG_FUNCTION_ARGS)
{
	HashSetState tmp;
	HashSetState *s;
	GrowArgs	a;

	s = grow_arg_set(fcinfo, 0, &tmp, &a);
	if (s != NULL)
		PG_RETURN_CUCKOO_P(grow_filter_from_set(&a, s));
	PG_RETURN_POINTER(PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
}
