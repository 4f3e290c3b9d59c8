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
 * State of cuckoo_agg(value [, fpr]): the set of distinct 64-bit hashes seen,
 * kept as a sorted array without duplicates plus an append-only buffer of the
 * latest hashes.  A transition appends (sequential memory, no probing); when
 * the buffer is full it is sorted (radix sort), its duplicates dropped, and it
 * is merged into the sorted array in place, from the back.  The buffer holds
 * an eighth of the sorted array (at least BUF_MIN hashes), so each hash is
 * moved a bounded number of times and memory stays near 8 bytes per distinct
 * value (docs/DESIGN.md).  The final build, combine and serialisation all see
 * the hashes in ascending order, so serial and parallel plans build
 * byte-identical filters.  No function but the transition and combine ever
 * changes a state: serialisation and the final function merge a sorted copy
 * of the buffer on the fly.
 */
#define BUF_MIN			65536
#define MERGE_CHUNK		4096

typedef struct HashSetState
{
	uint64	   *sorted;			/* distinct hashes, ascending */
	int64		nsorted;
	int64		sorted_cap;
	uint64	   *buf;			/* unsorted, may repeat */
	int64		nbuf;
	int64		buf_cap;
	double		fpr;
	uint16		kind;
	uint32		type_tag;
	MemoryContext cxt;
} HashSetState;

static void *
hs_alloc(MemoryContext cxt, int64 n)
{
	Size		bytes = (Size) Max(n, 1) * sizeof(uint64);

	if ((uint64) n > MaxAllocHugeSize / sizeof(uint64) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct values for one cuckoo filter")));
	return MemoryContextAllocExtended(cxt, bytes, MCXT_ALLOC_HUGE);
}

static HashSetState *
hs_new(MemoryContext cxt, double fpr, uint16 kind, uint32 tag)
{
	HashSetState *s = MemoryContextAllocZero(cxt, sizeof(HashSetState));

	s->cxt = cxt;
	s->fpr = fpr;
	s->kind = kind;
	s->type_tag = tag;
	s->buf_cap = 1024;			/* grows to BUF_MIN and beyond as needed */
	s->buf = hs_alloc(cxt, s->buf_cap);
	return s;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64		a = *(const uint64 *) x,
				b = *(const uint64 *) y;

	return a < b ? -1 : a > b;
}

/*
 * Sorts a[0 .. n-1] ascending using tmp (n entries) as scratch.  Hashes are
 * uniform, so three stable counting passes over the top 33 bits leave only
 * rare runs with equal top bits out of order; one insertion pass, linear on
 * such input, finishes the sort exactly.
 */
static void
sort_hashes(uint64 *a, uint64 *tmp, int64 n)
{
	static int64 count[2048];
	uint64	   *src = a,
			   *dst = tmp;
	int64		moves = 0;

	if (n < 2)
		return;
	for (int pass = 0; pass < 3; pass++)
	{
		int			shift = 31 + 11 * pass;
		int64		sum = 0;

		memset(count, 0, sizeof(count));
		for (int64 i = 0; i < n; i++)
			count[(src[i] >> shift) & 2047]++;
		for (int d = 0; d < 2048; d++)
		{
			int64		c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (int64 i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 2047]++] = src[i];
		{
			uint64	   *t = src;

			src = dst;
			dst = t;
		}
		if ((pass & 0xF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	/* three passes: the result is in tmp; copy back while finishing */
	a[0] = src[0];
	for (int64 i = 1; i < n; i++)
	{
		uint64		v = src[i];
		int64		j = i;

		while (j > 0 && a[j - 1] > v)
		{
			a[j] = a[j - 1];
			j--;
			/* values chosen to collide in their top bits: stop being linear */
			if (unlikely(++moves > 8 * n))
			{
				memcpy(a + i + 1, src + i + 1, (Size) (n - i - 1) * sizeof(uint64));
				a[j] = v;
				qsort(a, (size_t) n, sizeof(uint64), cmp_u64);
				return;
			}
		}
		a[j] = v;
	}
}

/* Drops repeats from the sorted a[0 .. n-1]; returns the new length. */
static int64
dedupe_sorted(uint64 *a, int64 n)
{
	int64		w = 0;

	for (int64 i = 0; i < n; i++)
		if (w == 0 || a[w - 1] != a[i])
			a[w++] = a[i];
	return w;
}

/* Merges the sorted, distinct b[0 .. nb-1] into s->sorted, in place. */
static void
hs_merge_sorted(HashSetState *s, const uint64 *b, int64 nb)
{
	int64		need = s->nsorted + nb,
				i = s->nsorted - 1,
				j = nb - 1,
				w = need - 1;

	if (nb == 0)
		return;
	if (need > s->sorted_cap)
	{
		int64		cap = Max(need, s->sorted_cap + s->sorted_cap / 4);

		if (s->sorted == NULL)
			s->sorted = hs_alloc(s->cxt, cap);
		else
		{
			if ((uint64) cap > MaxAllocHugeSize / sizeof(uint64) / 2)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("too many distinct values for one cuckoo filter")));
			s->sorted = repalloc_huge(s->sorted, (Size) cap * sizeof(uint64));
		}
		s->sorted_cap = cap;
	}
	/* from the back: larger first; equal values are written once */
	while (j >= 0)
	{
		if (i >= 0 && s->sorted[i] > b[j])
			s->sorted[w--] = s->sorted[i--];
		else
		{
			if (i >= 0 && s->sorted[i] == b[j])
				i--;
			s->sorted[w--] = b[j--];
		}
		if ((w & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	/*
	 * What is left of the old array, [0, i], is in place; the merged tail is
	 * [w + 1, need).  Each repeat left one slot between them: close the gap.
	 * (While merging, w - i = j + 1 + repeats so far > 0: no unread element
	 * is ever overwritten.)
	 */
	if (w > i)
		memmove(&s->sorted[i + 1], &s->sorted[w + 1], (Size) (need - 1 - w) * sizeof(uint64));
	s->nsorted = need - (w - i);
}

/* Moves the buffer into the sorted array. */
static void
hs_flush(HashSetState *s)
{
	uint64	   *tmp;
	int64		n;

	if (s->nbuf == 0)
		return;
	tmp = hs_alloc(CurrentMemoryContext, s->nbuf);
	sort_hashes(s->buf, tmp, s->nbuf);
	pfree(tmp);
	n = dedupe_sorted(s->buf, s->nbuf);
	hs_merge_sorted(s, s->buf, n);
	s->nbuf = 0;
	/* the buffer holds an eighth of the sorted array, at least BUF_MIN */
	if (s->buf_cap < Max(BUF_MIN, s->nsorted / 8))
	{
		pfree(s->buf);
		s->buf_cap = Max(BUF_MIN, s->nsorted / 8);
		s->buf = hs_alloc(s->cxt, s->buf_cap);
	}
}

static inline void
hs_add(HashSetState *s, uint64 h)
{
	if (unlikely(s->nbuf == s->buf_cap))
	{
		if (s->buf_cap < BUF_MIN && s->nsorted == 0)
		{
			/* small inputs: grow the first buffer before sorting anything */
			s->buf_cap *= 4;
			s->buf = repalloc(s->buf, (Size) s->buf_cap * sizeof(uint64));
		}
		else
			hs_flush(s);
	}
	s->buf[s->nbuf++] = h;
}

/*
 * Reads a state's hashes in ascending order without changing it: the sorted
 * array merged on the fly with a sorted, deduplicated copy of the buffer.
 */
typedef struct HashReader
{
	const uint64 *a;
	int64		na,
				ia;
	uint64	   *b;				/* the copy, owned by the reader */
	int64		nb,
				ib;
} HashReader;

static void
hr_open(HashReader *r, const HashSetState *s)
{
	r->a = s->sorted;
	r->na = s->nsorted;
	r->ia = 0;
	r->nb = s->nbuf;
	r->ib = 0;
	r->b = NULL;
	if (s->nbuf > 0)
	{
		uint64	   *tmp = hs_alloc(CurrentMemoryContext, s->nbuf);

		r->b = hs_alloc(CurrentMemoryContext, s->nbuf);
		memcpy(r->b, s->buf, (Size) s->nbuf * sizeof(uint64));
		sort_hashes(r->b, tmp, s->nbuf);
		pfree(tmp);
		r->nb = dedupe_sorted(r->b, s->nbuf);
	}
}

/* Up to max next hashes into out; returns how many (0 at the end). */
static int64
hr_read(HashReader *r, uint64 *out, int64 max)
{
	int64		n = 0;

	while (n < max && (r->ia < r->na || r->ib < r->nb))
	{
		if (r->ib >= r->nb || (r->ia < r->na && r->a[r->ia] < r->b[r->ib]))
			out[n++] = r->a[r->ia++];
		else
		{
			if (r->ia < r->na && r->a[r->ia] == r->b[r->ib])
				r->ia++;
			out[n++] = r->b[r->ib++];
		}
	}
	return n;
}

static void
hr_rewind(HashReader *r)
{
	r->ia = 0;
	r->ib = 0;
}

static void
hr_close(HashReader *r)
{
	if (r->b)
		pfree(r->b);
	r->b = NULL;
}

/* Number of distinct hashes in a state (one pass, no change). */
static int64
hs_count(const HashSetState *s)
{
	HashReader	r;
	uint64		chunk[MERGE_CHUNK];
	int64		n = 0,
				got;

	hr_open(&r, s);
	while ((got = hr_read(&r, chunk, MERGE_CHUNK)) > 0)
	{
		n += got;
		CHECK_FOR_INTERRUPTS();
	}
	hr_close(&r);
	return n;
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
		s = hs_new(aggcxt, fpr, vh->kind, vh->type_tag);
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
		s1 = hs_new(aggcxt, s2->fpr, s2->kind, s2->type_tag);
	else if (s1->kind != s2->kind || s1->type_tag != s2->type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_agg states of different value types cannot be combined")));
	/* sorted runs merge; s2 is only read */
	hs_flush(s1);
	hs_merge_sorted(s1, s2->sorted, s2->nsorted);
	if (s2->nbuf > 0)
	{
		HashReader	r;
		uint64	   *b;

		hr_open(&r, s2);
		b = r.b;
		hs_merge_sorted(s1, b, r.nb);
		hr_close(&r);
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

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_agg_serialize called in non-aggregate context")));
	s = (HashSetState *) PG_GETARG_POINTER(0);
	n = hs_count(s);
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
		uint64	   *chunk = palloc(MERGE_CHUNK * sizeof(uint64));
		HashReader	r;
		int64		got;

		hr_open(&r, s);
		while ((got = hr_read(&r, chunk, MERGE_CHUNK)) > 0)
		{
			memcpy(p, chunk, (Size) got * sizeof(uint64));
			p += got * sizeof(uint64);
		}
		hr_close(&r);
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

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_agg_deserialize called in non-aggregate context")));
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
	s = hs_new(CurrentMemoryContext, hdr.fpr, hdr.kind, hdr.type_tag);
	s->sorted = hs_alloc(CurrentMemoryContext, n);
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
	HashReader	r;
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
		check_fpr(fpr);
		p.fp_bits = agg_fp_bits(fpr);
		p.num_buckets = 1;
		p.capacity = 1;
		PG_RETURN_CUCKOO_P(empty_filter(fcinfo, &p));
	}

	chunk = palloc(MERGE_CHUNK * sizeof(uint64));
	hr_open(&r, s);
	n = 0;
	while ((got = hr_read(&r, chunk, MERGE_CHUNK)) > 0)
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
		v = cuckoo_new(&p);
		cf_open(&cf, v->bytes, CUCKOO_BYTES_LEN(v));
		/* ascending hash order, whatever the plan: byte-identical results */
		hr_rewind(&r);
		while (ok && (got = hr_read(&r, chunk, MERGE_CHUNK)) > 0)
		{
			cf_status	st;

			if (cf_insert_many(&cf, chunk, (size_t) got, &st) != (size_t) got)
				ok = false;
		}
		if (ok)
		{
			hr_close(&r);
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
