/*
 * cuckoo_agg.c
 *     The aggregates that build filters inside queries.
 *
 * cuckoo_agg(value [, fpr]) sizes the filter to the data.  Its state is the
 * set of distinct 64-bit hashes seen (an ordered linear-probing table, read in
 * ascending order); the final function counts them and builds a filter of
 * exactly the size they need.  Equal hashes are one value, so each distinct
 * value is stored once, and serial and parallel plans build byte-identical
 * filters (the final function inserts in sorted hash order).
 *
 * cuckoo_agg(value, capacity, fpr) has a fixed shape, so filters built apart
 * can be unioned.  Its state is the filter itself (a real type, not
 * internal, so the state can travel between nodes as text or binary); the
 * transition adds each value unless already reported, and the combine
 * function is the union.
 *
 * Transition functions update their state in place, in the aggregate
 * context; final functions never change the state's contents.
 */
#include "cuckoo.h"

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

/*
 * State of cuckoo_agg(value [, fpr]): the set of distinct 64-bit hashes, in an
 * ordered linear-probing table.  A hash's home slot is its top lg bits, which
 * grow with the hash, and each run of occupied slots is kept sorted, so the
 * table read from start to end lists the hashes in ascending order: no sort is
 * ever needed, and the final build, combine and serialisation all see one
 * canonical order.  Runs never wrap around; OVERFLOW slots past the end absorb
 * the last run.  Slot value 0 means empty; the hash 0 is kept in has_zero.
 */
#define HS_OVERFLOW		64
#define HS_MAX_LOAD		0.75

typedef struct HashSetState
{
	uint64	   *slots;			/* (1 << lg) + HS_OVERFLOW slots */
	int			lg;
	int64		n;				/* distinct hashes stored, has_zero included */
	bool		has_zero;
	double		fpr;
	uint16		kind;
	uint32		type_tag;
	MemoryContext cxt;
} HashSetState;

static inline int64
hs_nslots(const HashSetState *s)
{
	return ((int64) 1 << s->lg) + HS_OVERFLOW;
}

static inline int64
hs_home(const HashSetState *s, uint64 h)
{
	return s->lg == 0 ? 0 : (int64) (h >> (64 - s->lg));
}

static uint64 *
hs_alloc_slots(MemoryContext cxt, int lg)
{
	Size		bytes = (((Size) 1 << lg) + HS_OVERFLOW) * sizeof(uint64);

	if (bytes > MaxAllocHugeSize / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct values for one cuckoo filter")));
	return (uint64 *) MemoryContextAllocExtended(cxt, bytes, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/* Rebuilds the table with at least 2^lg home slots; a sequential pass. */
static void
hs_resize(HashSetState *s, int lg)
{
	for (;; lg++)
	{
		uint64	   *old = s->slots;
		int64		oldn = hs_nslots(s);
		int			oldlg = s->lg;
		int64		last = -1;
		bool		ok = true;

		s->lg = lg;
		s->slots = hs_alloc_slots(s->cxt, lg);
		for (int64 i = 0; i < oldn && ok; i++)
		{
			int64		pos;

			if (old[i] == 0)
				continue;
			pos = Max(hs_home(s, old[i]), last + 1);
			if (pos >= hs_nslots(s))
				ok = false;		/* the last run does not fit: grow more */
			else
				s->slots[last = pos] = old[i];
		}
		if (ok)
		{
			pfree(old);
			return;
		}
		pfree(s->slots);
		s->slots = old;
		s->lg = oldlg;
	}
}

static void
hs_add(HashSetState *s, uint64 h)
{
	int64		nslots,
				pos,
				e;

	if (h == 0)
	{
		if (!s->has_zero)
			s->has_zero = true, s->n++;
		return;
	}
	for (;;)
	{
		nslots = hs_nslots(s);
		pos = hs_home(s, h);
		while (pos < nslots && s->slots[pos] != 0 && s->slots[pos] < h)
			pos++;
		if (pos < nslots && s->slots[pos] == h)
			return;				/* seen before */
		for (e = pos; e < nslots && s->slots[e] != 0; e++)
			;
		if (e < nslots && (double) (s->n + 1) <= HS_MAX_LOAD * (double) ((int64) 1 << s->lg))
			break;
		hs_resize(s, s->lg + 1);
	}
	memmove(&s->slots[pos + 1], &s->slots[pos], (Size) (e - pos) * sizeof(uint64));
	s->slots[pos] = h;
	s->n++;
}

/* Calls fn for every hash in ascending order. */
#define HS_FOREACH(s, h, body) \
	do { \
		if ((s)->has_zero) { uint64 h = 0; body; } \
		for (int64 i_ = 0; i_ < hs_nslots(s); i_++) \
			if ((s)->slots[i_] != 0) { uint64 h = (s)->slots[i_]; body; } \
	} while (0)

static HashSetState *
hs_new(MemoryContext cxt, double fpr, uint16 kind, uint32 tag, int64 expect)
{
	HashSetState *s = MemoryContextAllocZero(cxt, sizeof(HashSetState));
	int			lg = 6;

	while (lg < 40 && (double) expect > HS_MAX_LOAD * (double) ((int64) 1 << lg))
		lg++;
	s->cxt = cxt;
	s->lg = lg;
	s->slots = hs_alloc_slots(cxt, lg);
	s->fpr = fpr;
	s->kind = kind;
	s->type_tag = tag;
	return s;
}

static void
check_fpr(double fpr)
{
	if (isnan(fpr) || fpr <= 0.0 || fpr >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fpr must be greater than 0 and less than 1, not %g", fpr)));
}

/* Fingerprint bits for the data-sized filter: enough for fpr at AGG_LOAD. */
static uint32
agg_fp_bits(double fpr)
{
	for (uint32 f = CF_MIN_FP_BITS; f <= CF_MAX_FP_BITS; f++)
		if (cf_expected_fpr(AGG_BUCKET, f, AGG_LOAD) <= fpr)
			return f;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("fpr must be at least %g for cuckoo_agg, not %g",
					cf_expected_fpr(AGG_BUCKET, CF_MAX_FP_BITS, AGG_LOAD), fpr),
			 errdetail("That is the rate of %d-bit fingerprints, the longest a filter stores.",
					   CF_MAX_FP_BITS)));
	return 0;					/* keep compiler quiet */
}

/* Transition of cuckoo_agg(value) and cuckoo_agg(value, fpr). */
PG_FUNCTION_INFO_V1(cuckoo_agg_trans);
Datum
cuckoo_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	HashSetState *s;
	ValueHasher *vh;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_agg_trans called in non-aggregate context")));
	s = PG_ARGISNULL(0) ? NULL : (HashSetState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	vh = cuckoo_hasher_for_arg(fcinfo, 1);
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
		check_fpr(fpr);
		(void) agg_fp_bits(fpr);
		s = hs_new(aggcxt, fpr, vh->kind, vh->type_tag, 0);
	}
	hs_add(s, cuckoo_hash_datum(vh, PG_GETARG_DATUM(1)));
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

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_agg_combine called in non-aggregate context")));
	s1 = PG_ARGISNULL(0) ? NULL : (HashSetState *) PG_GETARG_POINTER(0);
	s2 = PG_ARGISNULL(1) ? NULL : (HashSetState *) PG_GETARG_POINTER(1);
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = hs_new(aggcxt, s2->fpr, s2->kind, s2->type_tag, s2->n);
	else if (s1->kind != s2->kind || s1->type_tag != s2->type_tag)
		elog(ERROR, "cuckoo_agg states of different value types");
	HS_FOREACH(s2, h, hs_add(s1, h));
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
	bytea	   *out;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_agg_serialize called in non-aggregate context")));
	s = (HashSetState *) PG_GETARG_POINTER(0);
	len = VARHDRSZ + sizeof(SerialHeader) + (Size) s->n * sizeof(uint64);
	if (len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo_agg state of " INT64_FORMAT " distinct values is too large to pass between parallel workers",
						s->n)));
	out = palloc(len);
	SET_VARSIZE(out, len);
	hdr.magic = SER_MAGIC;
	hdr.kind = s->kind;
	hdr.type_tag = s->type_tag;
	hdr.fpr = s->fpr;
	memcpy(VARDATA(out), &hdr, sizeof(hdr));
	{
		char	   *p = VARDATA(out) + sizeof(hdr);

		HS_FOREACH(s, h, (memcpy(p, &h, sizeof(uint64)), p += sizeof(uint64)));
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

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_agg_deserialize called in non-aggregate context")));
	if (len < sizeof(hdr) || (len - sizeof(hdr)) % sizeof(uint64) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cuckoo_agg state: wrong length %zu", (size_t) len)));
	memcpy(&hdr, VARDATA_ANY(in), sizeof(hdr));
	if (hdr.magic != SER_MAGIC || hdr.kind > CF_KIND_MAX || hdr.pad || hdr.pad2 ||
		(hdr.kind == CF_KIND_OTHER) != (hdr.type_tag != 0) ||
		isnan(hdr.fpr) || hdr.fpr <= 0.0 || hdr.fpr >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cuckoo_agg state header")));
	n = (int64) ((len - sizeof(hdr)) / sizeof(uint64));
	/* only combine reads it, copying what it keeps into the aggregate context */
	s = hs_new(CurrentMemoryContext, hdr.fpr, hdr.kind, hdr.type_tag, n);
	for (int64 i = 0; i < n; i++)
	{
		uint64		h;

		memcpy(&h, VARDATA_ANY(in) + sizeof(hdr) + i * sizeof(uint64), sizeof(uint64));
		hs_add(s, h);
	}
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
	CuckooFilter *v = cuckoo_new(shape);
	cf_filter	cf;

	cuckoo_hasher_init(&vh, get_fn_expr_argtype(fcinfo->flinfo, 1),
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
		check_fpr(fpr);
		p.fp_bits = agg_fp_bits(fpr);
		p.num_buckets = 1;
		p.capacity = 1;
		PG_RETURN_CUCKOO_P(empty_filter(fcinfo, &p));
	}

	n = (uint64) s->n;
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
		v = cuckoo_new(&p);
		cf_open(&cf, v->bytes, CUCKOO_BYTES_LEN(v));
		if (s->has_zero && cf_insert(&cf, 0) != CF_OK)
			ok = false;
		for (int64 i = 0; ok && i < hs_nslots(s); i++)
		{
			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (s->slots[i] != 0 && cf_insert(&cf, s->slots[i]) != CF_OK)
				ok = false;
		}
		if (ok)
			PG_RETURN_CUCKOO_P(v);
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

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_agg_fixed_trans called in non-aggregate context")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	vh = cuckoo_hasher_for_arg(fcinfo, 1);
	if (PG_ARGISNULL(0))
	{
		cf_params	p;

		if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("capacity and fpr of cuckoo_agg must not be NULL")));
		cuckoo_plan_params(PG_GETARG_INT64(2), PG_GETARG_FLOAT8(3), AGG_BUCKET,
						   0, false, CF_DEFAULT_KICKS, false, &p);
		p.kind = vh->kind;
		p.type_tag = vh->type_tag;
		/*
		 * Built in the per-tuple context: the executor copies a new
		 * by-reference state into the aggregate context itself, so building
		 * it there would keep two copies until the end of the group.
		 */
		state = cuckoo_new(&p);
	}
	else
		state = (CuckooFilter *) PG_GETARG_POINTER(0);

	cuckoo_open(&cf, state);
	cuckoo_check_kind(&cf, vh);
	st = cf_insert_if_absent(&cf, cuckoo_hash_datum(vh, PG_GETARG_DATUM(1)));
	cuckoo_report_status(st, &cf);
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
	cuckoo_plan_params(DatumGetInt64(cap), DatumGetFloat8(fpr), AGG_BUCKET, 0,
					   false, CF_DEFAULT_KICKS, false, &p);
	PG_RETURN_CUCKOO_P(empty_filter(fcinfo, &p));
}
