/*
 * cuckoo_hashset.c
 *     The state of cuckoo_agg(value [, fpr]): the set of distinct 64-bit
 *     hashes seen (HashSetState, declared in cuckoo_hashset.h).
 *
 * A part is an array: a sorted front without repeats, then the hashes
 * appended since.  A transition appends to the hash's part (no probing);
 * when a part is full its new hashes are sorted (radix sort), their repeats
 * dropped, and they are merged into its front, from the back.  A set starts
 * as one part for every hash (the flat part); when that part would grow past
 * HASHSET_FLAT_MAX hashes (125 kB) the set is split into HASHSET_PARTS parts
 * by the top bits of a hash, and stays split.  So a part is small enough for
 * the sort and the merge to stay in the cache (a few hundred kB at 10M
 * values), a small or mid-size set (a group of a GROUP BY) costs one array
 * and no part headers, a part doubles when still full, each hash is moved
 * about twice and memory stays near 8 bytes per distinct value
 * (docs/DESIGN.md).  A state
 * may also hold one sorted run (a deserialised state, or a view of a flat
 * value), merged with the parts on the fly by the reader.  The final build,
 * combine and serialisation all see the hashes in ascending order
 * (HashSetReader), so serial and parallel plans build byte-identical
 * filters.  Reading sorts each part's appended hashes first (hashset_flush),
 * which leaves the set as it was.
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
	/* the flat part's array is allocated by the first add */
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
 * Sorts a[0 .. n-1] ascending using tmp (n entries) as scratch.  The top
 * skip bits of every hash are equal (the part's index).  Hashes are uniform,
 * so three stable counting passes over the 33 bits below them leave only
 * rare runs with equal such bits out of order; one insertion pass, linear on
 * such input, finishes the sort exactly.  Short arrays are insertion-sorted.
 */
static void
sort_hashes(uint64 *a, uint64 *tmp, int64 n, int skip)
{
	static int64 count[2048];
	uint64	   *src = a,
			   *dst = tmp;
	int64		moves = 0;

	if (n < 2)
		return;
	if (n <= 64)
	{
		for (int64 i = 1; i < n; i++)
		{
			uint64		v = a[i];
			int64		j = i;

			while (j > 0 && a[j - 1] > v)
			{
				a[j] = a[j - 1];
				j--;
			}
			a[j] = v;
		}
		return;
	}
	for (int pass = 0; pass < 3; pass++)
	{
		int			shift = 64 - skip - 11 * (3 - pass);
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
			/* values chosen to collide in those bits: stop being linear */
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

/* The state's scratch, at least n hashes. */
static uint64 *
hashset_scratch(HashSetState *s, int64 n)
{
	if (s->scratch_cap < n)
	{
		/* grown in place (not freed and allocated anew), as the parts are */
		if (s->scratch == NULL)
			s->scratch = hashset_alloc(s->cxt, n);
		else
			s->scratch = repalloc_huge(s->scratch, (Size) n * sizeof(uint64));
		s->scratch_cap = n;
	}
	return s->scratch;
}

/*
 * Merges the ascending, distinct b[0 .. nb-1] (outside the part) into the
 * sorted front of part p, which must hold nothing else and have room for
 * both: afterwards p is ascending and distinct.  From the back, larger
 * first; a value in both is written once.
 */
static void
part_merge_sorted(HashSetPart *p, const uint64 *b, int64 nb)
{
	int64		na = p->nsorted,
				need = na + nb,
				i = na - 1,
				j = nb - 1,
				w = need - 1;
	uint64	   *a = p->a;

	Assert(p->n == p->nsorted && need <= p->cap);
	/* without branches: which side is taken is a coin toss on hashes */
	while (i >= 0 && j >= 0)
	{
		uint64		ai = a[i],
					bj = b[j];

		a[w--] = ai > bj ? ai : bj;
		i -= (ai >= bj);
		j -= (bj >= ai);
	}
	if (j >= 0)
	{
		/* the front is used up: the rest of b goes below */
		memcpy(&a[w - j], b, (Size) (j + 1) * sizeof(uint64));
		w -= j + 1;
	}
	/*
	 * What is left of the front, [0, i], is in place; the merged tail is
	 * [w + 1, need).  Each repeat left one slot between them: close the gap.
	 * (While merging, w - i = j + 1 + repeats so far > 0: no unread element
	 * is ever overwritten.)
	 */
	if (w > i)
		memmove(&a[i + 1], &a[w + 1], (Size) (need - 1 - w) * sizeof(uint64));
	p->n = need - (w - i);
	p->nsorted = p->n;
}

/*
 * Sorts a part's appended hashes, drops repeats and merges them into its
 * sorted front: afterwards the whole part is ascending and distinct.  The
 * set it holds is unchanged.
 */
static void
part_normalize(HashSetState *s, HashSetPart *p)
{
	int64		na = p->nsorted,
				nb = p->n - p->nsorted;
	uint64	   *b;

	if (nb == 0)
		return;
	/* the new hashes, sorted and distinct, into the scratch */
	b = hashset_scratch(s, 2 * nb);
	memcpy(b, p->a + na, (Size) nb * sizeof(uint64));
	/* the top bits are equal within a part of a split set, any in the flat one */
	sort_hashes(b, b + nb, nb, p == &s->flat ? 0 : HASHSET_PART_BITS);
	nb = dedupe_sorted(b, nb);
	p->n = na;
	part_merge_sorted(p, b, nb);
}

/* Room for at least want hashes in part p. */
static void
part_reserve(HashSetState *s, HashSetPart *p, int64 want)
{
	int64		cap;

	if (want <= p->cap)
		return;
	/*
	 * Doubled; up to 1,024 hashes (8 kB) the memory context recycles the
	 * small arrays, and from there the part goes straight to 16,384 (128
	 * kB): an array that large gets pages of its own from the C library
	 * (mmap; realloc moves them with mremap, nothing copied), which are
	 * resident only once written, so the room not yet used costs address
	 * space, not memory, and no freed copy is left behind in the heap.
	 * Each hash is merged about twice on its way (part_normalize).  The
	 * flat part only doubles, up to HASHSET_FLAT_MAX hashes (a mid-size
	 * group's set stays near its size, which the hashed aggregation counts),
	 * and stays below the C library's 128 kB mmap threshold: it is freed
	 * when the set is split, and freeing an mmap'd array raises that
	 * threshold, after which the parts' arrays of 128 and 256 kB would come
	 * from the heap and leave their copies there as they grow (a 10M-value
	 * build peaked 35 MB higher with a 256 kB flat part).
	 */
	if (p == &s->flat)
		cap = Min(p->cap * 2, HASHSET_FLAT_MAX);
	else if (p->cap < 1024)
		cap = p->cap * 2;
	else
		cap = Max(p->cap * 2, 16384);
	cap = Max(cap, Max(want, HASHSET_PART_MIN));
	if ((uint64) cap > MaxAllocHugeSize / sizeof(uint64) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct values for one cuckoo filter")));
	if (p->a == NULL)
		p->a = hashset_alloc(s->cxt, cap);
	else
		p->a = repalloc_huge(p->a, (Size) cap * sizeof(uint64));
	p->cap = cap;
}

static void parts_append_run(HashSetState *s, const uint64 *a, int64 n);

/*
 * Splits a flat set into HASHSET_PARTS parts (the set is unchanged): the flat
 * part, sorted, goes to the parts as one run, and its array is freed.
 */
static void
hashset_split(HashSetState *s)
{
	HashSetPart flat;

	Assert(s->parts == NULL);
	part_normalize(s, &s->flat);
	flat = s->flat;
	memset(&s->flat, 0, sizeof(s->flat));
	s->parts = MemoryContextAllocZero(s->cxt, HASHSET_PARTS * sizeof(HashSetPart));
	parts_append_run(s, flat.a, flat.n);
	if (flat.a != NULL)
		pfree(flat.a);
}

/*
 * A part is full (hashset_add, about to append h): its appended hashes are
 * sorted into it, dropping repeats; if that left less than a quarter free, it
 * grows, or, the flat part past HASHSET_FLAT_MAX hashes, the set is split.
 * Returns the part h goes to, with room for it.
 */
HashSetPart *
hashset_part_full(HashSetState *s, HashSetPart *p, uint64 h)
{
	if (p->a != NULL)
	{
		part_normalize(s, p);
		if (p->n <= p->cap - p->cap / 4)
			return p;			/* repeats made room: no need to grow */
	}
	if (p == &s->flat && p->cap >= HASHSET_FLAT_MAX)
	{
		hashset_split(s);
		p = &s->parts[h >> (64 - HASHSET_PART_BITS)];
		if (p->n < p->cap)
			return p;
		return hashset_part_full(s, p, h);
	}
	part_reserve(s, p, p->n + 1);
	return p;
}

/* Appends src[0 .. n-1] (all of part p's range) to p; sorted: ascending and distinct. */
static void
part_append(HashSetState *s, HashSetPart *p, const uint64 *src, int64 n, bool sorted)
{
	if (n == 0)
		return;
	if (p->n + n > p->cap && p->a != NULL)
		part_normalize(s, p);
	part_reserve(s, p, p->n + n);
	if (sorted && p->nsorted == p->n)
	{
		/* a sorted run into a sorted part: merged at once, no sorting */
		part_merge_sorted(p, src, n);
		return;
	}
	memcpy(p->a + p->n, src, (Size) n * sizeof(uint64));
	p->n += n;
}

/* Appends the ascending, distinct run a[0 .. n-1] to the parts of the split s. */
static void
parts_append_run(HashSetState *s, const uint64 *a, int64 n)
{
	int64		i = 0;

	Assert(s->parts != NULL);
	while (i < n)
	{
		uint64		top = a[i] >> (64 - HASHSET_PART_BITS);
		int64		j = i + 1;

		while (j < n && (a[j] >> (64 - HASHSET_PART_BITS)) == top)
			j++;
		part_append(s, &s->parts[top], a + i, j - i, true);
		i = j;
	}
}

/*
 * Appends the ascending, distinct run a[0 .. n-1] to s: merged into the flat
 * part if it stays within HASHSET_FLAT_MAX hashes, else to the parts.
 */
static void
hashset_append_run(HashSetState *s, const uint64 *a, int64 n)
{
	if (n == 0)
		return;
	if (s->parts == NULL && s->flat.n + n <= HASHSET_FLAT_MAX)
	{
		part_append(s, &s->flat, a, n, true);
		return;
	}
	if (s->parts == NULL)
		hashset_split(s);
	parts_append_run(s, a, n);
}

/* Sorts every part (the set is unchanged): each part ascending and distinct. */
void
hashset_flush(HashSetState *s)
{
	if (s->parts == NULL)
	{
		part_normalize(s, &s->flat);
		return;
	}
	for (int i = 0; i < HASHSET_PARTS; i++)
	{
		part_normalize(s, &s->parts[i]);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Reads a state's hashes in ascending order: the sorted run merged on the
 * fly with the parts, taken in order once each is sorted (hashset_flush,
 * which leaves the set as it is).
 */
void
hashset_reader_open(HashSetReader *r, HashSetState *s)
{
	hashset_flush(s);
	r->a = s->sorted;
	r->na = s->sorted ? s->nsorted : 0;
	r->ia = 0;
	r->parts = s->parts != NULL ? s->parts : &s->flat;
	r->nparts = s->parts != NULL ? HASHSET_PARTS : 1;
	r->pi = 0;
	r->pj = 0;
}

/* The next hash of the parts, or false at their end. */
static inline bool
reader_part_peek(HashSetReader *r, uint64 *v)
{
	if (r->parts == NULL)
		return false;
	while (r->pi < r->nparts && r->pj >= r->parts[r->pi].n)
	{
		r->pi++;
		r->pj = 0;
	}
	if (r->pi >= r->nparts)
		return false;
	*v = r->parts[r->pi].a[r->pj];
	return true;
}

/* Up to max next hashes into out; returns how many (0 at the end). */
int64
hashset_reader_read(HashSetReader *r, uint64 *out, int64 max)
{
	int64		n = 0;
	uint64		b;

	if (r->ia >= r->na)
	{
		/* the parts alone (the usual case): copied a stretch at a time */
		while (n < max && reader_part_peek(r, &b))
		{
			const HashSetPart *p = &r->parts[r->pi];
			int64		take = Min(max - n, p->n - r->pj);

			memcpy(out + n, p->a + r->pj, (Size) take * sizeof(uint64));
			n += take;
			r->pj += take;
		}
		return n;
	}
	while (n < max)
	{
		bool		hb = reader_part_peek(r, &b);

		if (r->ia >= r->na && !hb)
			break;
		if (!hb || (r->ia < r->na && r->a[r->ia] < b))
			out[n++] = r->a[r->ia++];
		else
		{
			if (r->ia < r->na && r->a[r->ia] == b)
				r->ia++;
			out[n++] = b;
			r->pj++;
		}
	}
	return n;
}

void
hashset_reader_rewind(HashSetReader *r)
{
	r->ia = 0;
	r->pi = 0;
	r->pj = 0;
}

void
hashset_reader_close(HashSetReader *r)
{
	r->parts = NULL;
}

/* Number of distinct hashes in a state (sorts its parts; the set is unchanged). */
int64
hashset_count(HashSetState *s)
{
	HashSetReader r;
	uint64		chunk[HASHSET_CHUNK];
	int64		n = 0,
				got;

	hashset_flush(s);
	if (s->sorted == NULL || s->nsorted == 0)
	{
		/* the parts alone: distinct within each, disjoint across */
		if (s->parts == NULL)
			n = s->flat.n;
		else
			for (int i = 0; i < HASHSET_PARTS; i++)
				n += s->parts[i].n;
		return n;
	}
	hashset_reader_open(&r, s);
	while ((got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
	{
		n += got;
		CHECK_FOR_INTERRUPTS();
	}
	hashset_reader_close(&r);
	return n;
}


/*
 * s1 gains s2's hashes.  A flat s2 is sorted (its set unchanged) and goes in
 * as one run.  A split s2 goes part by part (s1 split first): a part of s2
 * goes whole into the same part of s1, its sorted front merged at once (no
 * sorting), anything s2 had not sorted yet appended, to be sorted in when the
 * part next fills or is read.  s2's set is only read.
 */
void
hashset_combine(HashSetState *s1, HashSetState *s2)
{
	if (s2->sorted != NULL && s2->nsorted > 0)
		hashset_append_run(s1, s2->sorted, s2->nsorted);
	if (s2->parts == NULL)
	{
		part_normalize(s2, &s2->flat);
		hashset_append_run(s1, s2->flat.a, s2->flat.n);
		return;
	}
	if (s1->parts == NULL)
		hashset_split(s1);
	for (int i = 0; i < HASHSET_PARTS; i++)
	{
		HashSetPart *p2 = &s2->parts[i];

		part_append(s1, &s1->parts[i], p2->a, p2->nsorted, true);
		part_append(s1, &s1->parts[i], p2->a + p2->nsorted, p2->n - p2->nsorted, false);
		CHECK_FOR_INTERRUPTS();
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
hashset_build_filter(HashSetState *s)
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
	/* sorts the parts; without a sorted run besides them, no pass over the hashes */
	n = (uint64) hashset_count(s);
	hashset_reader_open(&r, s);
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
