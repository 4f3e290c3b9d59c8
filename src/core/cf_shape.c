/*
 * cf_shape.c
 *     Format 1's item operations by shape: the lookup, insert and delete
 *     functions cf1_open chooses for the common bucket shapes
 *     (cf_choose_paths), with the shape's constants compiled in.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v1.h"

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
 * without the semi-sorted branch; the rest go through the generic functions.
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
		cf1_reinsert_victim(cf);
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
