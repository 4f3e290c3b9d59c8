/*
 * cf_table.c
 *     The item operations: partial-key cuckoo hashing over m = c * 2^k
 *     buckets (insert, lookup, count, delete), one at a time and batched,
 *     with the word-wide probe of the common bucket shapes.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_table.h"
#include "cf_v2.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t
cf_hash_bytes(const void *data, size_t len)
{
	return XXH3_64bits(data, len);
}

uint64_t
cf_hash_u64(uint64_t v)
{
	uint8_t		b[8];

	wr64(b, v);
	return XXH3_64bits(b, 8);
}

void
cf_locate(const cf_filter *cf, uint64_t h, uint32_t *fp, uint32_t *i1)
{
	locate(cf, h, fp, i1);
}

uint32_t
cf_alt_bucket(const cf_filter *cf, uint32_t i, uint32_t fp)
{
	return alt_bucket(cf, i, fp);
}

/*
 * The first kick, breadth-first: if an entry of bucket i1 or i2 has room in
 * its own alternate bucket, it moves there and fp takes its place.  The (up
 * to) 2b alternate buckets are requested from memory together, so this costs
 * about one memory round trip where each step of a random walk costs one of
 * its own; near full load it settles most inserts that need a kick (fills
 * got about 1.5x faster: docs/BENCHMARKS.md).  Deterministic: candidates are
 * tried in bucket and slot order.  Counts as the first of max_kicks.
 */
static bool
move_one_aside(cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	home[16],
				slot[16],
				moved[16],
				alt[16];
	uint32_t	nc = 0;

	for (int side = 0; side < 2; side++)
	{
		uint32_t	bi = side ? i2 : i1;
		uint32_t	fps[8];

		if (side && i2 == i1)
			break;
		read_bucket(cf, bi, fps);
		for (uint32_t j = 0; j < cf->b; j++)
		{
			home[nc] = bi;
			slot[nc] = j;
			moved[nc] = fps[j];
			alt[nc] = alt_bucket(cf, bi, fps[j]);
			prefetch_bucket(cf, alt[nc]);
			nc++;
		}
	}
	for (uint32_t c = 0; c < nc; c++)
	{
		uint32_t	fps[8];

		if (alt[c] == home[c] || !bucket_place(cf, alt[c], moved[c]))
			continue;
		read_bucket(cf, home[c], fps);
		fps[slot[c]] = fp;
		write_bucket(cf, home[c], fps);
		return true;
	}
	return false;
}

/* True when both buckets of the pair hold nothing but fp. */
static bool
pair_only_fp(const cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	n = bucket_count_fp(cf, i1, fp);

	if (i2 == i1)
		return n == cf->b;
	return n == cf->b && bucket_count_fp(cf, i2, fp) == cf->b;
}

/*
 * Stores fp with first candidate bucket i1 (the alternate is derived).
 * Algorithm 1 of the paper with a random victim on each kick; when the kicks
 * run out, the fingerprint left in hand goes to the victim slot, where
 * lookups still see it, and the filter is full.
 */
cf_status
cf_insert_fingerprint(cf_filter *cf, uint32_t i1, uint32_t fp, uint64_t seed, bool check_copies)
{
	uint32_t	i2 = alt_bucket(cf, i1, fp);
	uint32_t	i;
	uint64_t	rng;

	CF_ASSERT(i1 < cf->m && fp >= 1 && fp <= cf->fp_range);

	if (bucket_place(cf, i1, fp) || (i2 != i1 && bucket_place(cf, i2, fp)))
	{
		add_items(cf, 1);
		return CF_OK;
	}
	if (check_copies && pair_only_fp(cf, i1, i2, fp))
		return CF_TOO_MANY_COPIES;
	if (victim_in_use(cf))
		return CF_FULL;

	if (cf->max_kicks > 0 && move_one_aside(cf, i1, i2, fp))
	{
		add_items(cf, 1);
		return CF_OK;
	}

	rng = rng_seed(seed, ((uint64_t) i1 << 32) | fp);
	i = (rng_next(&rng) & 1) ? i2 : i1;
	for (uint32_t n = 1; n < cf->max_kicks; n++)
	{
		uint32_t	fps[8];
		uint32_t	slot = (uint32_t) (rng_next(&rng) >> 32) & (cf->b - 1);
		uint32_t	out;
		uint64_t	pos = (uint64_t) i * cf->bucket_bits;

		if (plain_word_bucket(cf, pos))
		{
			/* swap the entry in one load and one store */
			uint8_t    *p = cf->data + (pos >> 3);
			unsigned	at = (unsigned) (pos & 7) + slot * cf->f;
			uint64_t	w = load_le64(p);

			out = (uint32_t) (w >> at) & cf->fp_mask;
			w = (w & ~((uint64_t) cf->fp_mask << at)) | ((uint64_t) fp << at);
			store_le64(p, w);
		}
		else
		{
			read_bucket(cf, i, fps);
			out = fps[slot];
			fps[slot] = fp;
			write_bucket(cf, i, fps);
		}
		fp = out;
		i = alt_bucket(cf, i, fp);
		if (bucket_place(cf, i, fp))
		{
			add_items(cf, 1);
			return CF_OK;
		}
	}
	set_victim(cf, i, fp);
	add_items(cf, 1);
	return CF_OK_STASHED;
}

/* An insert for every shape (the specialised ones: cf_choose_paths). */
cf_status
cf_insert_generic(cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1;

	cf_status	st;

	if (__builtin_expect(cf->version == CF_VERSION_2, 0))
		return cf2_insert(cf, h);
	locate(cf, h, &fp, &i1);
	st = cf_insert_fingerprint(cf, i1, fp, h ^ header_items(cf), true);
	CF_ASSERT_HEADER(cf);
	return st;
}

/*
 * Inserts h[0 .. n-1] in order, as cf_insert would, while the buckets of the
 * insert CF_BATCH_AHEAD places later are being fetched from memory (a build
 * from a list of hashes otherwise waits for a cache miss at nearly every
 * insert).  Stops at the first status other than CF_OK; returns how many
 * were stored with CF_OK and sets *st to that status (CF_OK if all were).
 */
#define CF_BATCH_AHEAD	8

size_t
cf_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st)
{
	if (cf->version == CF_VERSION_2)
		return cf2_insert_many(cf, h, n, st);
	for (size_t j = 0; j < n; j++)
	{
		cf_status	s;

		if (j + CF_BATCH_AHEAD < n)
		{
			uint32_t	fp,
						i1;

			locate(cf, h[j + CF_BATCH_AHEAD], &fp, &i1);
			prefetch_bucket(cf, i1);
			prefetch_bucket(cf, alt_bucket(cf, i1, fp));
		}
		CF_CHECK_INTERRUPTS(j + 1);
		s = cf_insert(cf, h[j]);
		if (s != CF_OK)
		{
			*st = s;
			return j;
		}
	}
	*st = CF_OK;
	return n;
}

cf_status
cf_insert_if_absent(cf_filter *cf, uint64_t h)
{
	/* with generations, a value seen again is moved to the current one */
	if (cf->version == CF_VERSION_2)
		return cf2_insert_if_absent(cf, h);
	if (cf_contains(cf, h))
		return CF_EXISTS;
	return cf_insert(cf, h);
}

/*
 * The common shape (plain buckets that fit one 64-bit load) probed without
 * branches until the answer: both buckets loaded as words and tested
 * together.  Same arithmetic as locate() and alt_bucket().  The constants are
 * copied out of the view once per call or batch, so a loop keeps them in
 * registers.
 */
typedef struct word_probe
{
	const uint8_t *data;
	uint64_t	lo_ones,
				hi_bits,
				bucket_mask;
	uint32_t	c,
				k,
				rmask,
				fp_range,
				bucket_bits;
} word_probe;

static CF_ALWAYS_INLINE void
word_probe_init(word_probe *w, const cf_filter *cf)
{
	w->data = cf->data;
	w->lo_ones = cf->lo_ones;
	w->hi_bits = cf->hi_bits;
	w->bucket_mask = cf->bucket_mask;
	w->c = cf->c;
	w->k = cf->k;
	w->rmask = cf->rmask;
	w->fp_range = cf->fp_range;
	w->bucket_bits = cf->bucket_bits;
}

/* Fingerprint and both bit positions of h's buckets. */
static CF_ALWAYS_INLINE void
word_probe_locate(const word_probe *w, uint64_t h, uint32_t *fp,
				  uint32_t *i1, uint32_t *i2)
{
	uint32_t	q = fastrange32((uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32), w->c);
	uint32_t	r = (uint32_t) (h >> 32) & w->rmask;
	uint64_t	hf;
	uint32_t	hq,
				q2;

	*fp = 1 + fastrange32((uint32_t) h, w->fp_range);
	hf = fp_hash(*fp);
	hq = fastrange32((uint32_t) hf, w->c);
	q2 = hq - q + (hq < q ? w->c : 0);
	*i1 = (q << w->k) | r;
	*i2 = (q2 << w->k) | (r ^ ((uint32_t) (hf >> 32) & w->rmask));
}

static CF_ALWAYS_INLINE bool
word_probe_test(const word_probe *w, uint32_t fp, uint32_t i1, uint32_t i2)
{
	uint64_t	p1 = (uint64_t) i1 * w->bucket_bits;
	uint64_t	p2 = (uint64_t) i2 * w->bucket_bits;
	uint64_t	fpx = fp * w->lo_ones;
	uint64_t	x1 = ((load_le64(w->data + (p1 >> 3)) >> (p1 & 7)) & w->bucket_mask) ^ fpx;
	uint64_t	x2 = ((load_le64(w->data + (p2 >> 3)) >> (p2 & 7)) & w->bucket_mask) ^ fpx;

	return ((((x1 - w->lo_ones) & ~x1) | ((x2 - w->lo_ones) & ~x2)) & w->hi_bits) != 0;
}

static CF_ALWAYS_INLINE void
word_probe_prefetch(const word_probe *w, uint32_t i)
{
	prefetch_in(w->data, w->bucket_bits, i);
}

static CF_ALWAYS_INLINE bool
contains_at(const cf_filter *cf, uint32_t fp, uint32_t i1, uint32_t i2)
{
	return bucket_has_fp(cf, i1, fp) || bucket_has_fp(cf, i2, fp) ||
		victim_matches(cf, fp, i1, i2);
}

/*
 * Other shapes (semi-sorted, or buckets wider than a word).  Both buckets are
 * requested before either is read: a negative lookup, the common case of a
 * prefilter, then waits for one memory round trip, not two.
 */
static CF_NOINLINE bool
contains_general(const cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1,
				i2;

	locate(cf, h, &fp, &i1);
	i2 = alt_bucket(cf, i1, fp);
	prefetch_bucket(cf, i2);
	return contains_at(cf, fp, i1, i2);
}

/*
 * A lookup for every version-1 shape.  Never called on a version-2 view: its
 * callers are contains_fn, which cf_choose_paths sets for version-1 views
 * only (cf2_open does not call it) and cf_contains calls after its own
 * version-2 test, and the unit tests, on version-1 filters.
 */
bool
cf_contains_generic(const cf_filter *cf, uint64_t h)
{
	word_probe	w;
	uint32_t	fp,
				i1,
				i2;

	CF_ASSERT(cf->version != CF_VERSION_2);
	if (cf->word_probe)
	{
		word_probe_init(&w, cf);
		word_probe_locate(&w, h, &fp, &i1, &i2);
		return word_probe_test(&w, fp, i1, i2) || victim_matches(cf, fp, i1, i2);
	}
	if (cf->ss_word_probe)
	{
		/* semi-sorted buckets that fit a word: both loaded, then decoded */
		uint64_t	p1,
					p2,
					w1,
					w2;

		word_probe_init(&w, cf);
		word_probe_locate(&w, h, &fp, &i1, &i2);
		p1 = (uint64_t) i1 * w.bucket_bits;
		p2 = (uint64_t) i2 * w.bucket_bits;
		w1 = (load_le64(w.data + (p1 >> 3)) >> (p1 & 7)) & w.bucket_mask;
		w2 = (load_le64(w.data + (p2 >> 3)) >> (p2 & 7)) & w.bucket_mask;
		return ((int) ss_word_has_fp(cf, w1, fp) | (int) ss_word_has_fp(cf, w2, fp)) ||
			victim_matches(cf, fp, i1, i2);
	}
	return contains_general(cf, h);
}

/*
 * Requests the lines of a view that a lookup of the common shapes reads (the
 * first two: cf.h), for cf_contains_each.
 */
static inline void
prefetch_view(const cf_filter *cf)
{
	__builtin_prefetch((const char *) cf, 0, 1);
	__builtin_prefetch((const char *) cf + 64, 0, 1);
}

/* cf_contains_each's distances (set at build time to measure others) */
#ifndef CF_EACH_AHEAD
#define CF_EACH_AHEAD	8
#endif
#ifndef CF_EACH_VIEW_AHEAD
#define CF_EACH_VIEW_AHEAD	16
#endif

/* Requests the two candidate buckets of h in cf (its view in the caches). */
static inline void
prefetch_lookup(const cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1;

	__builtin_prefetch(cf->buf, 0, 1);	/* the header: its victim flag */
	if (cf->version == CF_VERSION_2)
	{
		cf2_prefetch(cf, h);
		return;
	}
	locate(cf, h, &fp, &i1);
	prefetch_bucket(cf, i1);
	prefetch_bucket(cf, alt_bucket(cf, i1, fp));
}

/*
 * Lookups of n hashes, pipelined: the buckets of lookup j + CF_BATCH_AHEAD
 * are requested while lookup j is answered, so up to 2 * CF_BATCH_AHEAD
 * cache misses are in flight instead of one or two.
 */
void
cf_contains_many_generic(const cf_filter *cf, const uint64_t *h, size_t n, bool *out)
{
	uint32_t	fps[CF_BATCH_AHEAD],
				b1[CF_BATCH_AHEAD],
				b2[CF_BATCH_AHEAD];
	size_t		ahead = n < CF_BATCH_AHEAD ? n : CF_BATCH_AHEAD;
	word_probe	w;

	if (!cf->word_probe)
	{
		if (cf->version == CF_VERSION_2)
		{
			cf2_contains_many(cf, h, n, out);
			return;
		}
		for (size_t j = 0; j < ahead; j++)
		{
			locate(cf, h[j], &fps[j], &b1[j]);
			b2[j] = alt_bucket(cf, b1[j], fps[j]);
			prefetch_bucket(cf, b1[j]);
			prefetch_bucket(cf, b2[j]);
		}
		for (size_t j = 0; j < n; j++)
		{
			size_t		s = j % CF_BATCH_AHEAD;

			out[j] = contains_at(cf, fps[s], b1[s], b2[s]);
			if (j + CF_BATCH_AHEAD < n)
			{
				locate(cf, h[j + CF_BATCH_AHEAD], &fps[s], &b1[s]);
				b2[s] = alt_bucket(cf, b1[s], fps[s]);
				prefetch_bucket(cf, b1[s]);
				prefetch_bucket(cf, b2[s]);
			}
		}
		return;
	}
	word_probe_init(&w, cf);
	for (size_t j = 0; j < ahead; j++)
	{
		word_probe_locate(&w, h[j], &fps[j], &b1[j], &b2[j]);
		word_probe_prefetch(&w, b1[j]);
		word_probe_prefetch(&w, b2[j]);
	}
	for (size_t j = 0; j < n; j++)
	{
		size_t		s = j % CF_BATCH_AHEAD;
		uint32_t	fp = fps[s],
					i1 = b1[s],
					i2 = b2[s];

		if (j + CF_BATCH_AHEAD < n)
		{
			word_probe_locate(&w, h[j + CF_BATCH_AHEAD], &fps[s], &b1[s], &b2[s]);
			word_probe_prefetch(&w, b1[s]);
			word_probe_prefetch(&w, b2[s]);
		}
		out[j] = word_probe_test(&w, fp, i1, i2) || victim_matches(cf, fp, i1, i2);
	}
}

/* Copies of fp in the pair (i1, i2), the victim slot included. */
uint32_t
cf_pair_count(const cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	n = bucket_count_fp(cf, i1, fp);

	if (i2 != i1)
		n += bucket_count_fp(cf, i2, fp);
	return n + (victim_matches(cf, fp, i1, i2) ? 1 : 0);
}

uint32_t
cf_count(const cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1;

	if (cf->version == CF_VERSION_2)
		return cf2_count(cf, h);
	locate(cf, h, &fp, &i1);
	return cf_pair_count(cf, i1, alt_bucket(cf, i1, fp), fp);
}

/* After an entry was freed, moves the victim back into the table if it can. */
static void
reinsert_victim(cf_filter *cf)
{
	uint32_t	vb,
				vfp;

	if (!victim_in_use(cf))
		return;
	vb = rd32(cf->buf + CF_OFF_VICTIM_BUCKET);
	vfp = rd32(cf->buf + CF_OFF_VICTIM_FP);
	clear_victim(cf);
	add_items(cf, -1);
	(void) cf_insert_fingerprint(cf, vb, vfp, header_items(cf), false);
}

/* A delete for every shape (the specialised ones: cf_choose_paths). */
bool
cf_remove_generic(cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1,
				i2;

	if (cf->version == CF_VERSION_2)
		return cf2_remove(cf, h);
	locate(cf, h, &fp, &i1);
	i2 = alt_bucket(cf, i1, fp);
	if (bucket_take(cf, i1, fp) || (i2 != i1 && bucket_take(cf, i2, fp)))
	{
		add_items(cf, -1);
		reinsert_victim(cf);
		CF_ASSERT_HEADER(cf);
		return true;
	}
	if (victim_matches(cf, fp, i1, i2))
	{
		clear_victim(cf);
		add_items(cf, -1);
		CF_ASSERT_HEADER(cf);
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * Item operations by shape.
 *
 * cf_open chooses, once per view, the lookup, insert and delete functions for
 * the filter's shape (cf_choose_paths): for the common plain shapes (b = 4 with f = 8, 12 or 16;
 * b = 2 and 8 with f = 8 or 16) a copy of the word probe in which b, f, the
 * bucket's byte width and the SWAR constants are compile-time constants, so
 * that a bucket is one load at i * (b * f / 8) bytes, with no bit offset, no
 * mask and no constant loaded from the view; and, when the table has a
 * power-of-two number of buckets (mantissa c = 128), the two range reductions
 * onto [0, c) are shifts and the modular subtraction a mask.  The arithmetic
 * is that of locate() and alt_bucket(), the answer that of
 * cf_contains_generic and the bytes an insert or a delete leaves those of
 * cf_insert_generic and cf_remove_generic (test/unit/test_table.c compares them over random
 * filters of every shape).  Other word-probe shapes get the word probe
 * without the semi-sorted and version-2 branches; the rest go through the
 * generic functions.
 * ------------------------------------------------------------------------ */

#define CF_POW2_C	(UINT32_C(1) << (CF_MANTISSA_BITS - 1))	/* c of m = 2^j, j >= 7 */
#define CF_POW2_SHIFT	(32 - (CF_MANTISSA_BITS - 1))	/* fastrange32(x, CF_POW2_C) = x >> this */

/* Bit 0 of each of the fields of f bits that fit in min(b * f, 64) bits. */
static CF_ALWAYS_INLINE uint64_t
shape_lo_ones(const uint32_t B, const uint32_t F)
{
	uint64_t	v = 0;

	for (uint32_t j = 0; j < B && (j + 1) * F <= 64; j++)
		v |= UINT64_C(1) << (j * F);
	return v;
}

/*
 * locate() and alt_bucket() with f (and, if P2, c = CF_POW2_C) constant.  In
 * 64-bit arithmetic (all values below 2^32): the bucket indexes then scale
 * to byte offsets without a zero extension.
 */
static CF_ALWAYS_INLINE void
shape_locate(const cf_filter *cf, uint64_t h, const uint32_t F, const bool P2,
			 uint32_t *fp, uint64_t *i1, uint64_t *i2)
{
	const uint64_t lo32 = UINT64_C(0xFFFFFFFF);
	unsigned	k = cf->k;
	uint64_t	rmask = cf->rmask,
				c = P2 ? CF_POW2_C : cf->c;
	uint64_t	hh = (h * UINT64_C(0x9E3779B97F4A7C15)) >> 32;
	uint64_t	q = P2 ? hh >> CF_POW2_SHIFT : (hh * c) >> 32;
	uint64_t	r = (h >> 32) & rmask;
	uint64_t	f = 1 + (((h & lo32) * ((UINT64_C(1) << F) - 1)) >> 32);
	uint64_t	hf = fp_hash((uint32_t) f);
	uint64_t	hq = P2 ? (hf & lo32) >> CF_POW2_SHIFT : ((hf & lo32) * c) >> 32;
	uint64_t	q2 = P2 ? (hq - q) & (CF_POW2_C - 1) : hq - q + (hq < q ? c : 0);

	*fp = (uint32_t) f;
	*i1 = (q << k) | r;
	*i2 = (q2 << k) | (r ^ ((hf >> 32) & rmask));
}

/* Word `half` (0, or 1 for 128-bit buckets) of bucket i, from its first bit. */
static CF_ALWAYS_INLINE uint64_t
shape_word(const uint8_t *data, uint64_t i, const uint32_t B, const uint32_t F, const int half)
{
	const uint32_t bytes = B * F / 8;
	const uint8_t *p = data + i * bytes + 8 * half;

	if (bytes == 2)
		return load_le16(p);
	if (bytes == 4)
		return load_le32(p);
	/*
	 * 6 bytes: the load also takes the next bucket's first two bytes (or the
	 * data's zero slack).  No mask is needed: the fields above b * f bits
	 * are outside lo and hi below, and a borrow only runs upward.
	 */
	return load_le64(p);
}

/* Whether bucket i1 or i2 holds fp (the word probe with constant shape). */
static CF_ALWAYS_INLINE bool
shape_test(const uint8_t *data, uint32_t fp, uint64_t i1, uint64_t i2,
		   const uint32_t B, const uint32_t F)
{
	const uint64_t lo = shape_lo_ones(B, F);
	const uint64_t hi = lo << (F - 1);
	uint64_t	lor = lo,
				fpx,
				x1,
				x2,
				z;

#if defined(__GNUC__) || defined(__clang__)
	/*
	 * One multiplication: with lo in sight, gcc spreads fp over the fields
	 * with shifts and additions instead (six instructions for f = 12).
	 */
	__asm__("" : "+r"(lor));
#endif
	fpx = fp * lor;
	x1 = shape_word(data, i1, B, F, 0) ^ fpx;
	x2 = shape_word(data, i2, B, F, 0) ^ fpx;
	z = ((x1 - lo) & ~x1) | ((x2 - lo) & ~x2);

	if (B * F > 64)
	{
		uint64_t	y1 = shape_word(data, i1, B, F, 1) ^ fpx;
		uint64_t	y2 = shape_word(data, i2, B, F, 1) ^ fpx;

		z |= ((y1 - lo) & ~y1) | ((y2 - lo) & ~y2);
	}
	return (z & hi) != 0;
}

/*
 * victim_matches() of a version-1 filter, whose header sits just before the
 * data (one load fewer than through cf->buf).
 */
static CF_ALWAYS_INLINE bool
shape_victim_used(const uint8_t *data)
{
	return (data[CF_OFF_FLAGS - CF_HEADER_SIZE] & CF_FLAG_VICTIM) != 0;
}

static CF_ALWAYS_INLINE bool
shape_victim(const uint8_t *data, uint32_t fp, uint64_t i1, uint64_t i2)
{
	const uint8_t *hdr = data - CF_HEADER_SIZE;
	uint64_t	vb;

	if (__builtin_expect(!shape_victim_used(data), 1) ||
		rd32(hdr + CF_OFF_VICTIM_FP) != fp)
		return false;
	vb = rd32(hdr + CF_OFF_VICTIM_BUCKET);
	return vb == i1 || vb == i2;
}

static CF_ALWAYS_INLINE bool
shape_contains(const cf_filter *cf, uint64_t h, const uint32_t B, const uint32_t F, const bool P2)
{
	uint32_t	fp;
	uint64_t	i1,
				i2;

	shape_locate(cf, h, F, P2, &fp, &i1, &i2);
	return shape_test(cf->data, fp, i1, i2, B, F) || shape_victim(cf->data, fp, i1, i2);
}

static CF_ALWAYS_INLINE void
shape_prefetch(const uint8_t *data, uint64_t i, const uint32_t B, const uint32_t F)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(data + i * (B * F / 8), 0, 1);
#else
	(void) data;
	(void) i;
#endif
}

/* cf_contains_many_generic's pipeline over shape_locate and shape_test. */
static CF_ALWAYS_INLINE void
shape_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out,
					const uint32_t B, const uint32_t F, const bool P2)
{
	uint32_t	fps[CF_BATCH_AHEAD];
	uint64_t	b1[CF_BATCH_AHEAD],
				b2[CF_BATCH_AHEAD];
	size_t		ahead = n < CF_BATCH_AHEAD ? n : CF_BATCH_AHEAD;
	const uint8_t *data = cf->data;

	for (size_t j = 0; j < ahead; j++)
	{
		shape_locate(cf, h[j], F, P2, &fps[j], &b1[j], &b2[j]);
		shape_prefetch(data, b1[j], B, F);
		shape_prefetch(data, b2[j], B, F);
	}
	for (size_t j = 0; j < n; j++)
	{
		size_t		s = j % CF_BATCH_AHEAD;
		uint32_t	fp = fps[s];
		uint64_t	i1 = b1[s],
					i2 = b2[s];

		if (j + CF_BATCH_AHEAD < n)
		{
			shape_locate(cf, h[j + CF_BATCH_AHEAD], F, P2, &fps[s], &b1[s], &b2[s]);
			shape_prefetch(data, b1[s], B, F);
			shape_prefetch(data, b2[s], B, F);
		}
		out[j] = shape_test(data, fp, i1, i2, B, F) || shape_victim(data, fp, i1, i2);
	}
}

/*
 * Deletes: bucket_take on i1, then on i2, with the shape's constants.  Both
 * words are loaded before either is tested (a large filter waits for one
 * memory round trip, not two, when the copy is in i2), and nothing is stored
 * before the choice is made, so two buckets that share bytes read the same.
 * The exact zero-field test marks only the fields equal to fp; the lowest is
 * cleared, as bucket_take clears the first.
 */
static CF_ALWAYS_INLINE uint64_t
shape_zero_fields(uint64_t x, const uint32_t B, const uint32_t F)
{
	const uint64_t lo = shape_lo_ones(B, F);
	const uint64_t hi = lo << (F - 1);
	const uint64_t low = hi - lo;

	return ~(((x & low) + low) | x) & hi;
}

static CF_ALWAYS_INLINE void
shape_store(uint8_t *data, uint64_t i, uint64_t w, const uint32_t B, const uint32_t F)
{
	const uint32_t bytes = B * F / 8;
	uint8_t    *p = data + i * bytes;

	if (bytes == 2)
		wr16(p, (uint16_t) w);
	else if (bytes == 4)
		wr32(p, (uint32_t) w);
	else
		store_le64(p, w);		/* 6 bytes: the next two written back unchanged */
}

/* The rest of a delete that found no copy in the table: the victim's. */
static CF_NOINLINE bool
remove_victim_only(cf_filter *cf, uint32_t fp, uint32_t i1, uint32_t i2)
{
	if (!victim_matches(cf, fp, i1, i2))
		return false;
	clear_victim(cf);
	add_items(cf, -1);
	CF_ASSERT_HEADER(cf);
	return true;
}

static CF_ALWAYS_INLINE bool
shape_remove(cf_filter *cf, uint64_t h, const uint32_t B, const uint32_t F, const bool P2)
{
	uint8_t    *data = cf->data;
	uint32_t	fp;
	uint64_t	i1,
				i2,
				lor = shape_lo_ones(B, F),
				fpx,
				w1,
				w2,
				z;

	shape_locate(cf, h, F, P2, &fp, &i1, &i2);
#if defined(__GNUC__) || defined(__clang__)
	__asm__("" : "+r"(lor));	/* one multiplication (see shape_test) */
#endif
	fpx = fp * lor;
	w1 = shape_word(data, i1, B, F, 0);
	w2 = shape_word(data, i2, B, F, 0);
	z = shape_zero_fields(w1 ^ fpx, B, F);
	if (z == 0)
	{
		z = shape_zero_fields(w2 ^ fpx, B, F);
		if (__builtin_expect(z == 0 || i2 == i1, 0))
			return remove_victim_only(cf, fp, (uint32_t) i1, (uint32_t) i2);
		i1 = i2;
		w1 = w2;
	}
	w1 &= ~(((UINT64_C(1) << F) - 1) << ((unsigned) __builtin_ctzll(z) - (F - 1)));
	shape_store(data, i1, w1, B, F);
	add_items(cf, -1);
	if (__builtin_expect(shape_victim_used(data), 0))
		reinsert_victim(cf);
	CF_ASSERT_HEADER(cf);
	return true;
}

/*
 * Inserts: bucket_place on i1, then on i2 (the first free entry), with the
 * shape's constants and both words loaded first; when neither has room, the
 * generic cf_insert_fingerprint takes over from the start (its own
 * bucket_place calls fail the same way), with the seed cf_insert gives it.
 */
static CF_ALWAYS_INLINE cf_status
shape_insert(cf_filter *cf, uint64_t h, const uint32_t B, const uint32_t F, const bool P2)
{
	uint8_t    *data = cf->data;
	uint32_t	fp;
	uint64_t	i1,
				i2,
				w1,
				w2,
				z;
	cf_status	st;

	shape_locate(cf, h, F, P2, &fp, &i1, &i2);
	w1 = shape_word(data, i1, B, F, 0);
	w2 = shape_word(data, i2, B, F, 0);
	z = shape_zero_fields(w1, B, F);
	if (z == 0)
	{
		z = shape_zero_fields(w2, B, F);
		if (z == 0 || i2 == i1)
		{
			st = cf_insert_fingerprint(cf, (uint32_t) i1, fp, h ^ header_items(cf), true);
			CF_ASSERT_HEADER(cf);
			return st;
		}
		i1 = i2;
		w1 = w2;
	}
	w1 |= (uint64_t) fp << ((unsigned) __builtin_ctzll(z) - (F - 1));
	shape_store(data, i1, w1, B, F);
	add_items(cf, 1);
	CF_ASSERT_HEADER(cf);
	return CF_OK;
}

/* The specialised functions: one per shape, for any c and for c = 128. */
#define CF_SHAPE_FUNCS(B, F) \
static bool \
contains_b##B##_f##F(const cf_filter *cf, uint64_t h) \
{ \
	return shape_contains(cf, h, B, F, false); \
} \
static bool \
contains_b##B##_f##F##_pow2(const cf_filter *cf, uint64_t h) \
{ \
	return shape_contains(cf, h, B, F, true); \
} \
static void \
contains_many_b##B##_f##F(const cf_filter *cf, const uint64_t *h, size_t n, bool *out) \
{ \
	shape_contains_many(cf, h, n, out, B, F, false); \
} \
static void \
contains_many_b##B##_f##F##_pow2(const cf_filter *cf, const uint64_t *h, size_t n, bool *out) \
{ \
	shape_contains_many(cf, h, n, out, B, F, true); \
} \
static bool \
remove_b##B##_f##F(cf_filter *cf, uint64_t h) \
{ \
	return B * F > 64 ? cf_remove_generic(cf, h) : shape_remove(cf, h, B, F, false); \
} \
static bool \
remove_b##B##_f##F##_pow2(cf_filter *cf, uint64_t h) \
{ \
	return B * F > 64 ? cf_remove_generic(cf, h) : shape_remove(cf, h, B, F, true); \
} \
static cf_status \
insert_b##B##_f##F(cf_filter *cf, uint64_t h) \
{ \
	return B * F > 64 ? cf_insert_generic(cf, h) : shape_insert(cf, h, B, F, false); \
} \
static cf_status \
insert_b##B##_f##F##_pow2(cf_filter *cf, uint64_t h) \
{ \
	return B * F > 64 ? cf_insert_generic(cf, h) : shape_insert(cf, h, B, F, true); \
}

/* The shapes with their own code; each keeps b * f a multiple of 8 bits. */
#define CF_SPECIAL_SHAPES(X) \
	X(4, 8) X(4, 12) X(4, 16) X(2, 8) X(2, 16) X(8, 8) X(8, 16)

CF_SPECIAL_SHAPES(CF_SHAPE_FUNCS)

/* Other plain shapes whose buckets fit a word: the word probe alone. */
static bool
contains_word(const cf_filter *cf, uint64_t h)
{
	word_probe	w;
	uint32_t	fp,
				i1,
				i2;

	word_probe_init(&w, cf);
	word_probe_locate(&w, h, &fp, &i1, &i2);
	return word_probe_test(&w, fp, i1, i2) || victim_matches(cf, fp, i1, i2);
}

/* Semi-sorted buckets that fit a word: cf_contains_generic's branch for them. */
static bool
contains_ss_word(const cf_filter *cf, uint64_t h)
{
	word_probe	w;
	uint32_t	fp,
				i1,
				i2;
	uint64_t	p1,
				p2,
				w1,
				w2;

	word_probe_init(&w, cf);
	word_probe_locate(&w, h, &fp, &i1, &i2);
	p1 = (uint64_t) i1 * w.bucket_bits;
	p2 = (uint64_t) i2 * w.bucket_bits;
	w1 = (load_le64(w.data + (p1 >> 3)) >> (p1 & 7)) & w.bucket_mask;
	w2 = (load_le64(w.data + (p2 >> 3)) >> (p2 & 7)) & w.bucket_mask;
	return ((int) ss_word_has_fp(cf, w1, fp) | (int) ss_word_has_fp(cf, w2, fp)) ||
		victim_matches(cf, fp, i1, i2);
}

void
cf_choose_paths(cf_filter *cf)
{
	bool		pow2 = cf->c == CF_POW2_C;

	cf->contains_fn = cf->word_probe ? contains_word :
		cf->ss_word_probe ? contains_ss_word : cf_contains_generic;
	cf->contains_many_fn = cf_contains_many_generic;
	cf->remove_fn = cf_remove_generic;
	cf->insert_fn = cf_insert_generic;
	if (cf->semisort)
		return;
#define CF_CHOOSE_(B, F) \
	if (cf->b == B && cf->f == F) \
	{ \
		cf->contains_fn = pow2 ? contains_b##B##_f##F##_pow2 : contains_b##B##_f##F; \
		cf->contains_many_fn = pow2 ? contains_many_b##B##_f##F##_pow2 : contains_many_b##B##_f##F; \
		cf->remove_fn = pow2 ? remove_b##B##_f##F##_pow2 : remove_b##B##_f##F; \
		cf->insert_fn = pow2 ? insert_b##B##_f##F##_pow2 : insert_b##B##_f##F; \
	}
	CF_SPECIAL_SHAPES(CF_CHOOSE_)
#undef CF_CHOOSE_
}

bool
cf_contains(const cf_filter *cf, uint64_t h)
{
	if (__builtin_expect(cf->version == CF_VERSION_2, 0))
		return cf2_contains(cf, h);
	return cf->contains_fn(cf, h);
}

void
cf_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out)
{
	if (__builtin_expect(cf->version == CF_VERSION_2, 0))
		cf2_contains_many(cf, h, n, out);
	else
		cf->contains_many_fn(cf, h, n, out);
}

/*
 * Lookups of h[j] in cfs[j], each filter its own (a stored filter's
 * segments: one key per segment in a batch is the rule), pipelined as
 * cf_contains_many: the view of lookup j + CF_EACH_VIEW_AHEAD, and the
 * header and buckets of lookup j + CF_EACH_AHEAD, are requested while
 * lookup j is answered.  The view comes first because the buckets'
 * addresses depend on it.
 */
void
cf_contains_each(const cf_filter *const *cfs, const uint64_t *h, size_t n, bool *out)
{
	const size_t ahead = CF_EACH_AHEAD,
				view_ahead = CF_EACH_VIEW_AHEAD;

	for (size_t j = 0; j < n && j < view_ahead; j++)
		prefetch_view(cfs[j]);
	for (size_t j = 0; j < n && j < ahead; j++)
		prefetch_lookup(cfs[j], h[j]);
	for (size_t j = 0; j < n; j++)
	{
		if (j + view_ahead < n)
			prefetch_view(cfs[j + view_ahead]);
		if (j + ahead < n)
			prefetch_lookup(cfs[j + ahead], h[j + ahead]);
		out[j] = cf_contains(cfs[j], h[j]);
	}
}

bool
cf_remove(cf_filter *cf, uint64_t h)
{
	if (__builtin_expect(cf->version == CF_VERSION_2, 0))
		return cf2_remove(cf, h);
	return cf->remove_fn(cf, h);
}

cf_status
cf_insert(cf_filter *cf, uint64_t h)
{
	if (__builtin_expect(cf->version == CF_VERSION_2, 0))
		return cf2_insert(cf, h);
	return cf->insert_fn(cf, h);
}
