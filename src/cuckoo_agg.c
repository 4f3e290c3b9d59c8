/*
 * cuckoo_agg.c
 *     The aggregates that build filters inside queries.
 *
 * cuckoo_agg(value [, fpr]) sizes the filter to the data.  Its state is the
 * set of distinct 64-bit hashes seen (in parts sorted as they fill, read in
 * ascending order: cuckoo_hashset.c); the final function counts
 * them and builds a filter of exactly the size they need.  Equal hashes are one value, so each distinct
 * value is stored once, and serial and parallel plans build byte-identical
 * filters (the final function inserts in sorted hash order).
 *
 * cuckoo_agg(value, capacity, fpr) has a fixed shape, so filters built apart
 * can be unioned.  Its state is the filter itself (a real type, not
 * internal, so the state can travel between nodes as text or binary; while
 * aggregating, an expanded object that buffers hashes, below); the
 * transition adds each value unless already reported, and the combine
 * function is the union, cuckoo_union_trans, which is also the transition of
 * cuckoo_union_agg.
 *
 * From 1.1 the types with a built-in hash encoding also have concrete
 * (non-polymorphic) overloads of both forms, which Citus can push down: the
 * fixed shape reuses the functions here, and the data-sized one has the
 * cuckoo_hashset state type (cuckoo_hashset_type.c).  Over no rows every
 * form returns NULL, as Citus cannot pass fpr, capacity or the value type
 * then.
 *
 * Transition functions update their state in place, in the aggregate
 * context; final functions never change the state's contents.
 */
#include "cuckoo_arg.h"
#include "cuckoo_hashset.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "executor/nodeAgg.h"
#include "miscadmin.h"
#include "nodes/nodes.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#define SER_MAGIC		0x43484153u	/* serialised state: "SAHC" */

/*
 * The aggregate context of a transition, combine or (de)serialisation
 * function; an error when called outside an aggregate.
 */
static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fname)));
	return aggcxt;
}

/* Transition of cuckoo_agg(value) and cuckoo_agg(value, fpr). */
PG_FUNCTION_INFO_V1(cuckoo_agg_trans);
Datum
cuckoo_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	HashSetState *s;
	ValueHasher *vh;

	aggcxt = agg_context(fcinfo, "cuckoo_agg_trans");
	s = PG_ARGISNULL(0) ? NULL : (HashSetState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	vh = arg_hasher(fcinfo, 1);
	if (s == NULL)
		s = hashset_new(aggcxt, hashset_fpr_arg(fcinfo, 2), vh->kind, vh->type_tag);
	hashset_add(s, value_hash(vh, PG_GETARG_DATUM(1)));
	PG_RETURN_POINTER(s);
}

/* Combine: state1 gains state2's hashes; state2 is left untouched. */
PG_FUNCTION_INFO_V1(cuckoo_agg_combine);
Datum
cuckoo_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	HashSetState *s1,
			   *s2;

	aggcxt = agg_context(fcinfo, "cuckoo_agg_combine");
	s1 = PG_ARGISNULL(0) ? NULL : (HashSetState *) PG_GETARG_POINTER(0);
	s2 = PG_ARGISNULL(1) ? NULL : (HashSetState *) PG_GETARG_POINTER(1);
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = hashset_new(aggcxt, s2->fpr, s2->kind, s2->type_tag);
	else if (s1->kind != s2->kind || s1->type_tag != s2->type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_agg states of different value types cannot be combined")));
	hashset_combine(s1, s2);	/* s2 is only read */
	PG_RETURN_POINTER(s1);
}

/*
 * Serialised state: u32 magic, u16 kind, u16 zero, u32 type tag, u32 zero,
 * f8 fpr, then the sorted distinct hashes as u64; host byte order, as the
 * state only travels between processes of one server.
 */
typedef struct SerialHeader
{
	uint32		magic;
	uint16		kind;
	uint16		pad;
	uint32		type_tag;
	uint32		pad2;
	double		fpr;
} SerialHeader;

PG_FUNCTION_INFO_V1(cuckoo_agg_serialize);
Datum
cuckoo_agg_serialize(PG_FUNCTION_ARGS)
{
	HashSetState *s;
	SerialHeader hdr = {0};
	Size		len;
	int64		n;
	bytea	   *out;

	(void) agg_context(fcinfo, "cuckoo_agg_serialize");
	s = (HashSetState *) PG_GETARG_POINTER(0);
	n = hashset_count(s);
	len = VARHDRSZ + sizeof(SerialHeader) + (Size) n * sizeof(uint64);
	if (len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo_agg state of " INT64_FORMAT " distinct values is too large to pass between parallel workers",
						n)));
	out = palloc(len);
	SET_VARSIZE(out, len);
	hdr.magic = SER_MAGIC;
	hdr.kind = s->kind;
	hdr.type_tag = s->type_tag;
	hdr.fpr = s->fpr;
	memcpy(VARDATA(out), &hdr, sizeof(hdr));
	{
		/* the hashes start 4 + 24 bytes into the palloc'd value: unaligned */
		char	   *p = VARDATA(out) + sizeof(hdr);
		uint64	   *chunk = palloc(HASHSET_CHUNK * sizeof(uint64));
		HashSetReader	r;
		int64		got;

		hashset_reader_open(&r, s);
		while ((got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
		{
			memcpy(p, chunk, (Size) got * sizeof(uint64));
			p += got * sizeof(uint64);
		}
		hashset_reader_close(&r);
		pfree(chunk);
	}
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(cuckoo_agg_deserialize);
Datum
cuckoo_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	Size		len = VARSIZE_ANY_EXHDR(in);
	SerialHeader hdr;
	HashSetState *s;
	int64		n;

	(void) agg_context(fcinfo, "cuckoo_agg_deserialize");
	if (len < sizeof(hdr) || (len - sizeof(hdr)) % sizeof(uint64) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cuckoo_agg state: wrong length %zu", (size_t) len)));
	memcpy(&hdr, VARDATA_ANY(in), sizeof(hdr));
	/* a state always has the kind of its values: never CF_KIND_ANY */
	if (hdr.magic != SER_MAGIC || hdr.kind == CF_KIND_ANY || hdr.kind > CF_KIND_MAX ||
		hdr.pad || hdr.pad2 ||
		(hdr.kind == CF_KIND_OTHER) != (hdr.type_tag != 0) ||
		isnan(hdr.fpr) || hdr.fpr <= 0.0 || hdr.fpr >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cuckoo_agg state header")));
	n = (int64) ((len - sizeof(hdr)) / sizeof(uint64));
	/*
	 * Only combine reads it, copying what it keeps into the aggregate
	 * context.  The hashes must be strictly ascending, as serialisation
	 * writes them; anything else is refused rather than merged wrongly.
	 */
	s = hashset_new(CurrentMemoryContext, hdr.fpr, hdr.kind, hdr.type_tag);
	s->sorted = hashset_alloc(CurrentMemoryContext, n);
	s->sorted_cap = Max(n, 1);
	memcpy(s->sorted, VARDATA_ANY(in) + sizeof(hdr), (Size) n * sizeof(uint64));
	for (int64 i = 1; i < n; i++)
		if (s->sorted[i - 1] >= s->sorted[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid cuckoo_agg state: hashes out of order at position " INT64_FORMAT, i)));
	s->nsorted = n;
	PG_RETURN_POINTER(s);
}

/*
 * Final function of cuckoo_agg(value [, fpr]): a filter of exactly the size
 * the distinct values need (hashset_build_filter).  No rows give NULL, as
 * under Citus, which cannot pass fpr or the value type then.
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_final);
Datum
cuckoo_agg_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_CUCKOO_P(hashset_build_filter((HashSetState *) PG_GETARG_POINTER(0)));
}

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

/*
 * Partial states of cuckoo_agg(value, capacity, fpr, expansion).
 *
 * A growing filter cannot be unioned without loss: an entry that has spent
 * its spare address bits is copied into every bucket of the larger union it
 * cannot tell apart (docs/DESIGN.md, "Union").  So where PostgreSQL splits
 * the aggregate (parallel workers, partitionwise aggregation: the Aggref's
 * aggsplit skips the final function) the transition keeps the exact set of
 * distinct hashes instead of a filter, and the combine function merges the
 * sets; the final function then inserts the merged set, in ascending hash
 * order, into a filter created as cuckoo_create(capacity, fpr, expansion =>
 * expansion): every value once, as a serial build stores it.  The states
 * travel from the workers to the leader as flat values of the state type
 * (GrowPartialFlat, magic "CGP1", which no filter has: a filter starts with
 * "CKOO"); they never leave the plan, and only these functions read them:
 * the transition keeps a set only where cuckoo_agg_grow_combine combines
 * the partial states, and that function returns a filter where no
 * cuckoo_agg_grow_final follows (aggregates users make of these functions,
 * grow_agg_fns_of below).
 *
 * Memory: 8 bytes a distinct value (plus the hash set's spare room, below
 * 2x while its parts fill).  A partial state that passes GP_MAX_HASHES
 * distinct values (64 MB of hashes) becomes the growing filter of its hashes
 * and adds further values to it, as a serial build does: from then on its
 * combination with another filter is the union (lossy, as above); with a set
 * of hashes it is still exact (the hashes are inserted into the filter).
 * The combined state in the leader does the same past GP_MAX_HASHES.  A
 * state of at most GP_FLAT_KEEP hashes stays a flat value, changed by
 * copying (a hashed aggregate over many small groups then pays no memory
 * context per group).
 *
 * Callers that run the transition outside a split Aggref (Citus's
 * worker_partial_agg, the emulation in test/citus_emul) see filters, as
 * before: their states travel as the type's text, which must be a filter.
 */
#define GP_MAGIC		0x31504743u	/* "CGP1" read little-endian */
#ifndef GP_MAX_HASHES			/* (a test build may set it lower) */
#define GP_MAX_HASHES	((int64) 1 << 23)
#endif
#define GP_FLAT_KEEP	64

typedef struct GrowPartialFlat
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint32		magic;
	uint16		kind;
	uint16		reserved;		/* zero */
	uint32		type_tag;
	int32		expansion;
	int32		reserved2;		/* zero */
	int64		capacity;
	double		fpr;
	uint64		hashes[FLEXIBLE_ARRAY_MEMBER];	/* strictly ascending */
} GrowPartialFlat;

#define GP_FLAT_HEADER	offsetof(GrowPartialFlat, hashes)
#define GP_NHASHES(v)	((int64) ((VARSIZE(v) - GP_FLAT_HEADER) / sizeof(uint64)))

/* The creation arguments a partial state carries to the final filter. */
typedef struct GrowArgs
{
	int64		capacity;
	double		fpr;
	int32		expansion;
	uint16		kind;
	uint32		type_tag;
} GrowArgs;

typedef struct GrowPartial
{
	ExpandedObjectHeader hdr;
	HashSetState *s;			/* the distinct hashes, in hdr.eoh_context */
	GrowArgs	args;
	int64		known;			/* distinct hashes at the last count */
	int64		added;			/* hashes added since (some may repeat) */
} GrowPartial;

static Size
grow_partial_flat_size(ExpandedObjectHeader *eohptr)
{
	GrowPartial *gp = (GrowPartial *) eohptr;

	gp->known = hashset_count(gp->s);
	gp->added = 0;
	return GP_FLAT_HEADER + (Size) gp->known * sizeof(uint64);
}

static void
grow_partial_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	GrowPartial *gp = (GrowPartial *) eohptr;
	GrowPartialFlat *v = (GrowPartialFlat *) result;
	int64		n = (int64) ((allocated_size - GP_FLAT_HEADER) / sizeof(uint64)),
				got = 0,
				k;
	HashSetReader r;

	memset(v, 0, GP_FLAT_HEADER);
	SET_VARSIZE(v, allocated_size);
	v->magic = GP_MAGIC;
	v->kind = gp->args.kind;
	v->type_tag = gp->args.type_tag;
	v->expansion = gp->args.expansion;
	v->capacity = gp->args.capacity;
	v->fpr = gp->args.fpr;
	hashset_reader_open(&r, gp->s);
	while (got < n && (k = hashset_reader_read(&r, v->hashes + got, n - got)) > 0)
		got += k;
	hashset_reader_close(&r);
	if (got != n)
		elog(ERROR, "cuckoo_agg partial state changed while it was flattened");
}

static const ExpandedObjectMethods grow_partial_methods = {
	grow_partial_flat_size,
	grow_partial_flatten
};

/*
 * Which support functions of an aggregate are this module's.  Anyone may
 * make an aggregate of cuckoo_agg_grow_trans and cuckoo_agg_grow_combine
 * (CREATE AGGREGATE; the extension is trusted) with another combine
 * function or with no final function: a set of hashes must then never
 * reach the other function, nor leave the aggregate as its result.  Looked
 * up in the catalogs once per aggregate, kept until they change.
 */
typedef struct GrowAggFns
{
	Oid			aggfnoid;		/* InvalidOid: nothing kept */
	bool		combine_ours;	/* combines with cuckoo_agg_grow_combine */
	bool		final_ours;		/* ends with cuckoo_agg_grow_final */
} GrowAggFns;

#define GROW_AGG_FNS_KEPT 8		/* aggregates kept (a query may use several) */
static GrowAggFns grow_agg_fns[GROW_AGG_FNS_KEPT];
static int	grow_agg_fns_next;		/* the entry replaced next */
static bool grow_agg_fns_watched;

static void
grow_agg_fns_forget(Datum arg, int cacheid, uint32 hashvalue)
{
	for (int i = 0; i < GROW_AGG_FNS_KEPT; i++)
		grow_agg_fns[i].aggfnoid = InvalidOid;
}

/* The C symbol and library of function fn (palloc'd), or false if it is not in C. */
static bool
grow_fn_c_symbol(Oid fn, char **src, char **bin)
{
	HeapTuple	t;
	bool		isnull,
				found = false;
	Datum		d;

	if (!OidIsValid(fn))
		return false;
	t = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(t))
		return false;
	if (((Form_pg_proc) GETSTRUCT(t))->prolang == ClanguageId)
	{
		d = SysCacheGetAttr(PROCOID, t, Anum_pg_proc_prosrc, &isnull);
		if (!isnull)
		{
			*src = TextDatumGetCString(d);
			d = SysCacheGetAttr(PROCOID, t, Anum_pg_proc_probin, &isnull);
			if (!isnull)
			{
				*bin = TextDatumGetCString(d);
				found = true;
			}
		}
	}
	ReleaseSysCache(t);
	return found;
}

/* Whether fn is the C function symbol of the library that self (a function of this module) is in. */
static bool
grow_fn_is(Oid fn, const char *symbol, Oid self)
{
	char	   *src,
			   *bin,
			   *self_src,
			   *self_bin;

	return grow_fn_c_symbol(fn, &src, &bin) && strcmp(src, symbol) == 0 &&
		grow_fn_c_symbol(self, &self_src, &self_bin) && strcmp(bin, self_bin) == 0;
}

static const GrowAggFns *
grow_agg_fns_of(FunctionCallInfo fcinfo, Oid aggfnoid)
{
	HeapTuple	t;
	Form_pg_aggregate agg;
	GrowAggFns *e;

	for (int i = 0; i < GROW_AGG_FNS_KEPT; i++)
		if (grow_agg_fns[i].aggfnoid == aggfnoid)
			return &grow_agg_fns[i];
	if (!grow_agg_fns_watched)
	{
		CacheRegisterSyscacheCallback(AGGFNOID, grow_agg_fns_forget, (Datum) 0);
		CacheRegisterSyscacheCallback(PROCOID, grow_agg_fns_forget, (Datum) 0);
		grow_agg_fns_watched = true;
	}
	e = &grow_agg_fns[grow_agg_fns_next];
	grow_agg_fns_next = (grow_agg_fns_next + 1) % GROW_AGG_FNS_KEPT;
	e->aggfnoid = InvalidOid;	/* until complete (a lookup may fail) */
	t = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(t))
		elog(ERROR, "cache lookup failed for aggregate %u", aggfnoid);
	agg = (Form_pg_aggregate) GETSTRUCT(t);
	e->combine_ours = grow_fn_is(agg->aggcombinefn, "cuckoo_agg_grow_combine",
								 fcinfo->flinfo->fn_oid);
	e->final_ours = grow_fn_is(agg->aggfinalfn, "cuckoo_agg_grow_final",
							   fcinfo->flinfo->fn_oid);
	ReleaseSysCache(t);
	e->aggfnoid = aggfnoid;
	return e;
}

/*
 * Whether every aggregate whose transition state this call updates has
 * its combine function (want_final false) or its final function (true) in
 * this module.  Aggregates with one transition function and the same
 * arguments share one state (PostgreSQL's executor: AggGetAggref gives only
 * the first of them): a user's aggregate without cuckoo_agg_grow_final may
 * share the state of cuckoo_agg(value, capacity, fpr, expansion).
 */
static bool
grow_sharers_ours(FunctionCallInfo fcinfo, bool want_final)
{
	AggState   *as;
	int			transno;
	bool		any = false;

	if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return false;
	as = (AggState *) fcinfo->context;
	if (as->curpertrans == NULL)
		return false;
	transno = (int) (as->curpertrans - as->pertrans);
	for (int i = 0; i < as->numaggs; i++)
	{
		const GrowAggFns *f;

		if (as->peragg[i].transno != transno)
			continue;
		f = grow_agg_fns_of(fcinfo, as->peragg[i].aggref->aggfnoid);
		if (!(want_final ? f->final_ours : f->combine_ours))
			return false;
		any = true;
	}
	return any;
}

/*
 * Whether the transition keeps a set of hashes: an aggregate whose final
 * step runs elsewhere (aggsplit skips the final function) and whose partial
 * states cuckoo_agg_grow_combine combines (for every aggregate sharing the
 * state).
 */
static bool
grow_trans_keeps_set(FunctionCallInfo fcinfo)
{
	Aggref	   *a = AggGetAggref(fcinfo);

	return a != NULL && DO_AGGSPLIT_SKIPFINAL(a->aggsplit) && grow_sharers_ours(fcinfo, false);
}

/*
 * Whether the combine function may return a set of hashes: its result goes
 * to a further combine (aggsplit skips the final function) or to
 * cuckoo_agg_grow_final, for every aggregate sharing the state.  Otherwise
 * it returns a filter: an aggregate without that final function returns
 * its state, which must be a filter.
 */
static bool
grow_combine_keeps_set(FunctionCallInfo fcinfo)
{
	Aggref	   *a = AggGetAggref(fcinfo);

	if (a == NULL)
		return false;
	return DO_AGGSPLIT_SKIPFINAL(a->aggsplit) || grow_sharers_ours(fcinfo, true);
}

/* The expanded partial state behind d (read-write only if rw), or NULL. */
static GrowPartial *
grow_partial_of(Datum d, bool rw)
{
	Pointer		p = DatumGetPointer(d);

	if (rw ? VARATT_IS_EXTERNAL_EXPANDED_RW(p) : VARATT_IS_EXTERNAL_EXPANDED(p))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &grow_partial_methods)
			return (GrowPartial *) eoh;
	}
	return NULL;
}

/*
 * The flat partial state d (detoasted and checked), or NULL if d is not one
 * (a filter).  Only this file makes such values; the check guards against a
 * damaged datum, and the hashes must be strictly ascending as flattening
 * writes them.
 */
static GrowPartialFlat *
grow_partial_flat_of(Datum d)
{
	Pointer		p = DatumGetPointer(d);
	uint32		magic;
	GrowPartialFlat *v;
	int64		n;

	if (VARATT_IS_EXTERNAL_EXPANDED(p) || VARSIZE_ANY_EXHDR(p) < sizeof(magic))
		return NULL;
	memcpy(&magic, VARDATA_ANY(p), sizeof(magic));
	if (magic != GP_MAGIC)
		return NULL;
	v = (GrowPartialFlat *) PG_DETOAST_DATUM(d);
	if (((uintptr_t) v) % sizeof(uint64) != 0)
	{
		/* a value stored unaligned: read an aligned copy */
		GrowPartialFlat *c = palloc(VARSIZE(v));

		memcpy(c, v, VARSIZE(v));
		v = c;
	}
	if (VARSIZE(v) < GP_FLAT_HEADER || (VARSIZE(v) - GP_FLAT_HEADER) % sizeof(uint64) != 0 ||
		v->kind == CF_KIND_ANY || v->kind > CF_KIND_MAX || v->reserved || v->reserved2)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoo_agg partial state")));
	n = GP_NHASHES(v);
	for (int64 i = 1; i < n; i++)
		if (v->hashes[i - 1] >= v->hashes[i])
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("corrupted cuckoo_agg partial state: hashes out of order")));
	return v;
}

static void
grow_args_of_flat(const GrowPartialFlat *v, GrowArgs *a)
{
	a->capacity = v->capacity;
	a->fpr = v->fpr;
	a->expansion = v->expansion;
	a->kind = v->kind;
	a->type_tag = v->type_tag;
}

/* A read-only view of a flat partial state's hashes as a set. */
static HashSetState *
grow_flat_view(GrowPartialFlat *v, HashSetState *tmp)
{
	memset(tmp, 0, sizeof(*tmp));
	tmp->nsorted = GP_NHASHES(v);
	tmp->sorted = v->hashes;	/* aligned (grow_partial_flat_of) */
	tmp->sorted_cap = Max(tmp->nsorted, 1);
	tmp->fpr = v->fpr;
	tmp->kind = v->kind;
	tmp->type_tag = v->type_tag;
	tmp->cxt = CurrentMemoryContext;
	return tmp;
}

/* A flat partial state: the ascending a[0 .. na-1] and h merged (h may be there). */
static GrowPartialFlat *
grow_flat_merge(const GrowArgs *args, const uint64 *a, int64 na, uint64 h)
{
	GrowPartialFlat *v = palloc(GP_FLAT_HEADER + (Size) (na + 1) * sizeof(uint64));
	int64		i = 0,
				n = 0;

	memset(v, 0, GP_FLAT_HEADER);
	v->magic = GP_MAGIC;
	v->kind = args->kind;
	v->type_tag = args->type_tag;
	v->expansion = args->expansion;
	v->capacity = args->capacity;
	v->fpr = args->fpr;
	while (i < na && a[i] < h)
		v->hashes[n++] = a[i++];
	if (i == na || a[i] != h)
		v->hashes[n++] = h;
	while (i < na)
		v->hashes[n++] = a[i++];
	SET_VARSIZE(v, GP_FLAT_HEADER + (Size) n * sizeof(uint64));
	return v;
}

/* A new, empty expanded partial state in a context of its own under aggcxt. */
static GrowPartial *
grow_partial_new(MemoryContext aggcxt, const GrowArgs *args)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "cuckoo_agg growing partial state",
											  ALLOCSET_DEFAULT_SIZES);
	GrowPartial *gp = MemoryContextAlloc(cxt, sizeof(GrowPartial));

	EOH_init_header(&gp->hdr, &grow_partial_methods, cxt);
	gp->args = *args;
	gp->s = hashset_new(cxt, args->fpr, args->kind, args->type_tag);
	gp->known = 0;
	gp->added = 0;
	return gp;
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

static void
grow_args_check(const GrowArgs *a, const GrowArgs *b)
{
	if (a->kind != b->kind || a->type_tag != b->type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_agg states of different value types cannot be combined")));
	if (a->capacity != b->capacity || a->fpr != b->fpr || a->expansion != b->expansion)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo_agg states of different capacity, fpr or expansion cannot be combined")));
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
 * A partial state has passed GP_MAX_HASHES hashes?  Counted exactly (which
 * sorts) only after enough adds since the last count to pass it, or an
 * eighth of it: at most 1.125 times the bound is kept.
 */
static bool
grow_partial_full(GrowPartial *gp)
{
	if (gp->known + gp->added <= GP_MAX_HASHES || gp->added < GP_MAX_HASHES / 8)
		return false;
	gp->known = hashset_count(gp->s);
	gp->added = 0;
	return gp->known > GP_MAX_HASHES;
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
 * The state in argument argno as a set of hashes (read-only), or NULL if it
 * is a filter; *args gets the creation arguments.
 */
static HashSetState *
grow_arg_set(FunctionCallInfo fcinfo, int argno, HashSetState *tmp, GrowArgs *args)
{
	GrowPartial *gp = grow_partial_of(PG_GETARG_DATUM(argno), false);
	GrowPartialFlat *gf;

	if (gp != NULL)
	{
		*args = gp->args;
		return gp->s;
	}
	if ((gf = grow_partial_flat_of(PG_GETARG_DATUM(argno))) != NULL)
	{
		grow_args_of_flat(gf, args);
		return grow_flat_view(gf, tmp);
	}
	return NULL;
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

