/*
 * cuckoo_hashset.c
 *     The state of cuckoo_agg(value [, fpr]): the set of distinct 64-bit
 *     hashes seen (HashSetState, declared in cuckoo_hashset.h).
 *
 * The set is a sorted array without duplicates plus an append-only buffer of
 * the latest hashes.  A transition appends (sequential memory, no probing);
 * when the buffer is full it is sorted (radix sort), its duplicates dropped,
 * and it is merged into the sorted array in place, from the back.  The
 * buffer holds an eighth of the sorted array (at least HASHSET_BUF_MIN
 * hashes), so each hash is moved a bounded number of times and memory stays
 * near 8 bytes per distinct value (docs/DESIGN.md).  The final build, combine
 * and serialisation all see the hashes in ascending order (HashSetReader), so
 * serial and parallel plans build byte-identical filters.  No function but
 * the transition and combine ever changes a state: serialisation and the
 * final function merge a sorted copy of the buffer on the fly.
 *
 * The filter a set builds (hashset_build_filter) is the final result of both
 * cuckoo_agg(value [, fpr]) and its cuckoo_hashset-state overloads, so the
 * two give the same filter, byte for byte, over the same values.
 */
#include "cuckoo_hashset.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

/* n hashes in cxt; a count no filter could hold is an error. */
void *
hashset_alloc(MemoryContext cxt, int64 n)
{
	Size		bytes = (Size) Max(n, 1) * sizeof(uint64);

	if ((uint64) n > MaxAllocHugeSize / sizeof(uint64) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct values for one cuckoo filter")));
	return MemoryContextAllocExtended(cxt, bytes, MCXT_ALLOC_HUGE);
}

HashSetState *
hashset_new(MemoryContext cxt, double fpr, uint16 kind, uint32 tag)
{
	HashSetState *s = MemoryContextAllocZero(cxt, sizeof(HashSetState));

	s->cxt = cxt;
	s->fpr = fpr;
	s->kind = kind;
	s->type_tag = tag;
	s->buf_cap = 1024;			/* grows to HASHSET_BUF_MIN and beyond as needed */
	s->buf = hashset_alloc(cxt, s->buf_cap);
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
void
hashset_merge_sorted(HashSetState *s, const uint64 *b, int64 nb)
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
			s->sorted = hashset_alloc(s->cxt, cap);
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
void
hashset_flush(HashSetState *s)
{
	uint64	   *tmp;
	int64		n;

	if (s->nbuf == 0)
		return;
	tmp = hashset_alloc(CurrentMemoryContext, s->nbuf);
	sort_hashes(s->buf, tmp, s->nbuf);
	pfree(tmp);
	n = dedupe_sorted(s->buf, s->nbuf);
	hashset_merge_sorted(s, s->buf, n);
	s->nbuf = 0;
	/* the buffer holds an eighth of the sorted array, at least HASHSET_BUF_MIN */
	if (s->buf_cap < Max(HASHSET_BUF_MIN, s->nsorted / 8))
	{
		pfree(s->buf);
		s->buf_cap = Max(HASHSET_BUF_MIN, s->nsorted / 8);
		s->buf = hashset_alloc(s->cxt, s->buf_cap);
	}
}

/*
 * Reads a state's hashes in ascending order without changing it: the sorted
 * array merged on the fly with a sorted, deduplicated copy of the buffer.
 */

void
hashset_reader_open(HashSetReader *r, const HashSetState *s)
{
	r->a = s->sorted;
	r->na = s->nsorted;
	r->ia = 0;
	r->nb = s->nbuf;
	r->ib = 0;
	r->b = NULL;
	if (s->nbuf > 0)
	{
		uint64	   *tmp = hashset_alloc(CurrentMemoryContext, s->nbuf);

		r->b = hashset_alloc(CurrentMemoryContext, s->nbuf);
		memcpy(r->b, s->buf, (Size) s->nbuf * sizeof(uint64));
		sort_hashes(r->b, tmp, s->nbuf);
		pfree(tmp);
		r->nb = dedupe_sorted(r->b, s->nbuf);
	}
}

/* Up to max next hashes into out; returns how many (0 at the end). */
int64
hashset_reader_read(HashSetReader *r, uint64 *out, int64 max)
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

void
hashset_reader_rewind(HashSetReader *r)
{
	r->ia = 0;
	r->ib = 0;
}

void
hashset_reader_close(HashSetReader *r)
{
	if (r->b)
		pfree(r->b);
	r->b = NULL;
}

/* Number of distinct hashes in a state (one pass, no change). */
int64
hashset_count(const HashSetState *s)
{
	HashSetReader	r;
	uint64		chunk[HASHSET_CHUNK];
	int64		n = 0,
				got;

	hashset_reader_open(&r, s);
	while ((got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
	{
		n += got;
		CHECK_FOR_INTERRUPTS();
	}
	hashset_reader_close(&r);
	return n;
}


/* s1 gains s2's hashes (sorted runs merge); s2 is only read. */
void
hashset_combine(HashSetState *s1, const HashSetState *s2)
{
	hashset_flush(s1);
	hashset_merge_sorted(s1, s2->sorted, s2->nsorted);
	if (s2->nbuf > 0)
	{
		HashSetReader r;

		hashset_reader_open(&r, s2);
		hashset_merge_sorted(s1, r.b, r.nb);
		hashset_reader_close(&r);
	}
}

/* Whether a data-sized filter can be built at fpr (no error raised). */
bool
hashset_fpr_valid(double fpr)
{
	return !isnan(fpr) && fpr > 0.0 && fpr < 1.0 &&
		cf_fp_bits_for_fpr_at(fpr, HASHSET_BUCKET, HASHSET_LOAD) >= 0;
}

/*
 * The filter of a set's hashes, of exactly the size they need, at load
 * HASHSET_LOAD; the set is only read.  If an insert fails (the random walk
 * found no room), the table grows by half a percent and the build starts
 * over; the hashes are all still here.
 */
CuckooFilter *
hashset_build_filter(const HashSetState *s)
{
	cf_params	p = {0};
	uint64		n;
	uint64		m;
	HashSetReader r;
	uint64	   *chunk;
	int64		got;

	p.bucket_size = HASHSET_BUCKET;
	p.max_kicks = CF_DEFAULT_KICKS;
	chunk = palloc(HASHSET_CHUNK * sizeof(uint64));
	hashset_reader_open(&r, s);
	n = 0;
	while ((got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
		n += (uint64) got;
	p.fp_bits = hashset_fp_bits(s->fpr);
	p.kind = s->kind;
	p.type_tag = s->type_tag;
	p.capacity = Max(n, 1);
	/* at least one bucket: a cuckoo_hashset read from text may be empty */
	m = cf_round_buckets(Max(1, (uint64) ceil((double) n / (HASHSET_BUCKET * HASHSET_LOAD))));

	for (int tries = 0; tries < HASHSET_MAX_TRIES; tries++)
	{
		CuckooFilter *v;
		cf_filter	cf;
		bool		ok = true;

		if (m == 0 || cf_total_bytes(m, HASHSET_BUCKET, p.fp_bits, false) > CF_MAX_BYTES)
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
			pfree(chunk);
			return v;
		}
		pfree(v);
		m = cf_round_buckets(m + Max(1, m / 200));
	}
	elog(ERROR, "could not build a cuckoo filter for " UINT64_FORMAT " values", n);
	return NULL;				/* keep compiler quiet */
}

/*
 * The fpr of a new state of cuckoo_agg(value [, fpr]): argument argno when
 * the call has it (checked; NULL is an error), else the default.
 */
double
hashset_fpr_arg(FunctionCallInfo fcinfo, int argno)
{
	double		fpr = HASHSET_DEFAULT_FPR;

	if (PG_NARGS() > argno)
	{
		if (PG_ARGISNULL(argno))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("capacity and fpr of cuckoo_agg must not be NULL")));
		fpr = PG_GETARG_FLOAT8(argno);
	}
	plan_check_fpr(fpr);
	(void) hashset_fp_bits(fpr);
	return fpr;
}
