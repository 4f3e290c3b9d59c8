/*
 * cuckoo_agg.c
 *     The aggregates that build filters inside queries.
 *
 * cuckoo_agg(value [, fpr]) sizes the filter to the data.  Its state is the
 * set of distinct 64-bit hashes seen (a sorted array and a buffer merged into
 * it, read in ascending order: cuckoo_hashset.c); the final function counts
 * them and builds a filter of exactly the size they need.  Equal hashes are one value, so each distinct
 * value is stored once, and serial and parallel plans build byte-identical
 * filters (the final function inserts in sorted hash order).
 *
 * cuckoo_agg(value, capacity, fpr) has a fixed shape, so filters built apart
 * can be unioned.  Its state is the filter itself (a real type, not
 * internal, so the state can travel between nodes as text or binary); the
 * transition adds each value unless already reported, and the combine
 * function is the union, cuckoo_union_trans, which is also the transition of
 * cuckoo_union_agg.
 *
 * Transition functions update their state in place, in the aggregate
 * context; final functions never change the state's contents.
 */
#include "cuckoo_arg.h"
#include "cuckoo_hashset.h"

#include <math.h>

#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#define DEFAULT_FPR		0.01
#define AGG_LOAD		0.95	/* load the data-sized filter is built at */
#define AGG_BUCKET		4
#define AGG_MAX_TRIES	200
#define SER_MAGIC		0x43484153u	/* serialised state: "SAHC" */

/* Fingerprint bits for the data-sized filter: enough for fpr at AGG_LOAD. */
static inline uint32
agg_fp_bits(double fpr)
{
	return plan_fp_bits(fpr, AGG_BUCKET, AGG_LOAD, "cuckoo_agg");
}

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
	{
		double		fpr = DEFAULT_FPR;

		if (PG_NARGS() > 2)
		{
			if (PG_ARGISNULL(2))
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("capacity and fpr of cuckoo_agg must not be NULL")));
			fpr = PG_GETARG_FLOAT8(2);
		}
		plan_check_fpr(fpr);
		(void) agg_fp_bits(fpr);
		s = hashset_new(aggcxt, fpr, vh->kind, vh->type_tag);
	}
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
	/* sorted runs merge; s2 is only read */
	hashset_flush(s1);
	hashset_merge_sorted(s1, s2->sorted, s2->nsorted);
	if (s2->nbuf > 0)
	{
		HashSetReader	r;
		uint64	   *b;

		hashset_reader_open(&r, s2);
		b = r.b;
		hashset_merge_sorted(s1, b, r.nb);
		hashset_reader_close(&r);
	}
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
 * The Aggref with the call's real arguments.  In a Finalize Aggregate (a
 * parallel or partitionwise plan) the call's only argument is a Var that
 * refers, through the child plans' target lists (Gather, Sort, Append, ...),
 * to the partial Aggref below, which still has them.
 */
static Aggref *
original_aggref(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Plan	   *plan;
	Expr	   *e;

	if (aggref == NULL || !DO_AGGSPLIT_COMBINE(aggref->aggsplit) ||
		fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return aggref;
	if (list_length(aggref->args) != 1)
		return NULL;
	e = ((TargetEntry *) linitial(aggref->args))->expr;
	plan = ((AggState *) fcinfo->context)->ss.ps.plan;
	for (int depth = 0; depth < 16 && plan != NULL; depth++)
	{
		Plan	   *child;
		TargetEntry *tle;

		if (IsA(e, Aggref))
			return (Aggref *) e;
		if (!IsA(e, Var) || ((Var *) e)->varno != OUTER_VAR)
			return NULL;
		if (IsA(plan, Append))
			child = linitial(((Append *) plan)->appendplans);
		else if (IsA(plan, MergeAppend))
			child = linitial(((MergeAppend *) plan)->mergeplans);
		else
			child = plan->lefttree;
		if (child == NULL || ((Var *) e)->varattno < 1 ||
			((Var *) e)->varattno > list_length(child->targetlist))
			return NULL;
		tle = (TargetEntry *) list_nth(child->targetlist, ((Var *) e)->varattno - 1);
		e = tle->expr;
		plan = child;
	}
	return NULL;
}

/*
 * Argument argno of the aggregate call, for the final function over no rows
 * (FINALFUNC_EXTRA passes only NULL placeholders).  Returns false when it is
 * not a constant after planning (a column, or a parameter of a generic plan);
 * a constant NULL is an error, as it is when there are rows.
 */
static bool
agg_const_arg(FunctionCallInfo fcinfo, int argno, Datum *value)
{
	Aggref	   *aggref = original_aggref(fcinfo);
	TargetEntry *tle;
	Const	   *c;

	if (aggref == NULL || list_length(aggref->args) <= argno)
		return false;
	tle = (TargetEntry *) list_nth(aggref->args, argno);
	if (!IsA(tle->expr, Const))
		return false;
	c = (Const *) tle->expr;
	if (c->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("capacity and fpr of cuckoo_agg must not be NULL")));
	*value = c->constvalue;
	return true;
}

/* The empty filter an aggregate over no rows returns. */
static CuckooFilter *
empty_filter(FunctionCallInfo fcinfo, const cf_params *shape)
{
	ValueHasher vh;
	CuckooFilter *v = filter_new(shape);
	cf_filter	cf;

	value_hasher_init(&vh, get_fn_expr_argtype(fcinfo->flinfo, 1),
					   PG_GET_COLLATION(), CurrentMemoryContext);
	cf_open(&cf, v->bytes, CUCKOO_BYTES_LEN(v));
	cf_set_kind(&cf, vh.kind, vh.type_tag);
	return v;
}

/*
 * Final function of cuckoo_agg(value [, fpr]): a filter of exactly the
 * size the distinct values need, at load AGG_LOAD.  If an insert fails (the
 * random walk found no room), the table grows by half a percent and the
 * build starts over; the hashes are all still here.
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_final);
Datum
cuckoo_agg_final(PG_FUNCTION_ARGS)
{
	HashSetState *s = PG_ARGISNULL(0) ? NULL : (HashSetState *) PG_GETARG_POINTER(0);
	cf_params	p = {0};
	uint64		n;
	uint64		m;
	HashSetReader	r;
	uint64	   *chunk;
	int64		got;

	p.bucket_size = AGG_BUCKET;
	p.max_kicks = CF_DEFAULT_KICKS;
	if (s == NULL)
	{
		Datum		d;
		double		fpr = DEFAULT_FPR;

		if (PG_NARGS() > 2)
		{
			if (!agg_const_arg(fcinfo, 1, &d))
				PG_RETURN_NULL();	/* no row to take the fpr from */
			fpr = DatumGetFloat8(d);
		}
		plan_check_fpr(fpr);
		p.fp_bits = agg_fp_bits(fpr);
		p.num_buckets = 1;
		p.capacity = 1;
		PG_RETURN_CUCKOO_P(empty_filter(fcinfo, &p));
	}

	chunk = palloc(HASHSET_CHUNK * sizeof(uint64));
	hashset_reader_open(&r, s);
	n = 0;
	while ((got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
		n += (uint64) got;
	p.fp_bits = agg_fp_bits(s->fpr);
	p.kind = s->kind;
	p.type_tag = s->type_tag;
	p.capacity = Max(n, 1);
	m = cf_round_buckets((uint64) ceil((double) n / (AGG_BUCKET * AGG_LOAD)));

	for (int tries = 0; tries < AGG_MAX_TRIES; tries++)
	{
		CuckooFilter *v;
		cf_filter	cf;
		bool		ok = true;

		if (m == 0 || cf_total_bytes(m, AGG_BUCKET, p.fp_bits, false) > CF_MAX_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many distinct values for one cuckoo filter: " UINT64_FORMAT, n),
					 errdetail("A filter may take at most %zu bytes.", (size_t) CF_MAX_BYTES)));
		p.num_buckets = (uint32) m;
		v = filter_new(&p);
		cf_open(&cf, v->bytes, CUCKOO_BYTES_LEN(v));
		/* ascending hash order, whatever the plan: byte-identical results */
		hashset_reader_rewind(&r);
		while (ok && (got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
		{
			cf_status	st;

			if (cf_insert_many(&cf, chunk, (size_t) got, &st) != (size_t) got)
				ok = false;
		}
		if (ok)
		{
			hashset_reader_close(&r);
			PG_RETURN_CUCKOO_P(v);
		}
		pfree(v);
		m = cf_round_buckets(m + Max(1, m / 200));
	}
	elog(ERROR, "could not build a cuckoo filter for " UINT64_FORMAT " values", n);
	PG_RETURN_NULL();			/* keep compiler quiet */
}

/*
 * Transition of cuckoo_agg(value, capacity, fpr): the state is a filter of
 * the given shape; each value is added unless the filter already reports it,
 * so repeated values never overflow a bucket pair.
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_fixed_trans);
Datum
cuckoo_agg_fixed_trans(PG_FUNCTION_ARGS)
{
	CuckooFilter *state;
	ValueHasher *vh;
	cf_filter	cf;
	cf_status	st;

	(void) agg_context(fcinfo, "cuckoo_agg_fixed_trans");
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
		plan_params(PG_GETARG_INT64(2), PG_GETARG_FLOAT8(3), AGG_BUCKET,
					0, false, CF_DEFAULT_KICKS, false, &p);
		p.kind = vh->kind;
		p.type_tag = vh->type_tag;
		/*
		 * Built in the per-tuple context: the executor copies a new
		 * by-reference state into the aggregate context itself, so building
		 * it there would keep two copies until the end of the group.
		 */
		state = filter_new(&p);
	}
	else
		state = (CuckooFilter *) PG_GETARG_POINTER(0);

	filter_open(&cf, state);
	filter_check_kind(&cf, vh);
	st = cf_insert_if_absent(&cf, value_hash(vh, PG_GETARG_DATUM(1)));
	filter_report_status(st, &cf, NULL);
	PG_RETURN_CUCKOO_P(state);
}

/*
 * Final function of cuckoo_agg(value, capacity, fpr): the state as it is,
 * or over no rows an empty filter of the requested shape (when capacity and
 * fpr are constants; otherwise NULL, as there is no row to take them from).
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_fixed_final);
Datum
cuckoo_agg_fixed_final(PG_FUNCTION_ARGS)
{
	Datum		cap,
				fpr;
	cf_params	p;

	if (!PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	if (!agg_const_arg(fcinfo, 1, &cap) || !agg_const_arg(fcinfo, 2, &fpr))
		PG_RETURN_NULL();
	plan_params(DatumGetInt64(cap), DatumGetFloat8(fpr), AGG_BUCKET, 0,
				false, CF_DEFAULT_KICKS, false, &p);
	PG_RETURN_CUCKOO_P(empty_filter(fcinfo, &p));
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
	state = (CuckooFilter *) PG_GETARG_POINTER(0);
	filter_open(&cs, state);
	filter_open(&cv, PG_GETARG_CUCKOO_P(1));
	filter_union_into(&cs, &cv);
	PG_RETURN_CUCKOO_P(state);
}
