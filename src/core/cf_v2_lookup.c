/*
 * cf_v2_lookup.c
 *     Format 2's lookups: one per slot shape (the 64-bit word probes, the
 *     128-bit probe of four slots, slot by slot), chosen by cf2_open for the
 *     view (contains_fn), and the batched lookup.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"
#include "cf_store.h"

#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 cf_u128;

/*
 * The common shape (b = 4, slots of at most 30 bits: a bucket and its bit
 * offset fit 128 bits).  Both buckets are read with two 64-bit loads each
 * and their four fingerprint fields tested at once with the exact zero-field
 * test ~(((x & L) + L) | x) & H (L: the low f-1 bits of each field, H: bit
 * f-1); only a fingerprint that matches has its tail compared, so a negative
 * lookup (the common case of a prefilter) costs about what a version-1
 * lookup costs.
 */
typedef struct probe4
{
	cf_u128		fpx,			/* fp in every fingerprint field */
				lo,
				hi,
				mask,			/* the 4w bits of a bucket */
				tone;			/* bit f of each slot: bit 0 of its tail */
	uint32_t	t,
				tmask;
} probe4;

static CF_ALWAYS_INLINE cf_u128
u128_of(const uint64_t *x)
{
	return ((cf_u128) x[1] << 64) | x[0];
}

static inline void
u128_put(uint64_t *x, cf_u128 v)
{
	x[0] = (uint64_t) v;
	x[1] = (uint64_t) (v >> 64);
}

void
v2_probe4_setup(cf_filter *cf)
{
	cf_u128		ones = 0;

	if (cf->b != 4 || cf->w > 30)
		return;
	for (uint32_t j = 0; j < 4; j++)
		ones |= (cf_u128) 1 << (j * cf->w);
	u128_put(cf->p2_ones, ones);
	u128_put(cf->p2_low, ones * ((UINT64_C(1) << (cf->f - 1)) - 1));
	u128_put(cf->p2_high, ones << (cf->f - 1));
	u128_put(cf->p2_mask, (((cf_u128) 1) << (4 * cf->w)) - 1);
	if (cf->w > 28)
		return;
	/* the probe word (word_at) */
	if (cf->w <= 16)
	{
		cf->lo_ones = cf->p2_ones[0];
		cf->bucket_mask = cf->p2_mask[0];
		cf->v2_tone = cf->lo_ones << cf->f;
		cf->v2_carry = cf->lo_ones << (cf->f + cf->t);
		cf->v2_fpt = cf->v2_carry - cf->lo_ones;
		cf->v2_tails = cf->v2_carry - cf->v2_tone;
	}
	else
	{
		cf->lo_ones = 1 | (UINT64_C(1) << cf->w);
		cf->bucket_mask = (UINT64_C(1) << (2 * cf->w)) - 1;
	}
	cf->hi_bits = cf->lo_ones << (cf->f - 1);
}

static CF_ALWAYS_INLINE void
probe4_init(probe4 *P, const cf_filter *cf, uint32_t fp)
{
	cf_u128		ones = u128_of(cf->p2_ones);

	P->t = cf->t;
	P->tmask = cf->tmask;
	P->fpx = ones * fp;
	P->lo = u128_of(cf->p2_low);
	P->hi = u128_of(cf->p2_high);
	P->mask = u128_of(cf->p2_mask);
	P->tone = ones << cf->f;
}

static CF_ALWAYS_INLINE cf_u128
bucket128(const uint8_t *data, uint64_t pos)
{
	const uint8_t *p = data + (pos >> 3);

	return (((cf_u128) load_le64(p + 8) << 64) | load_le64(p)) >> (pos & 7);
}

/* Slots of the bucket whose fingerprint is fp, as bits f-1 of their fields. */
static CF_ALWAYS_INLINE cf_u128
probe4_fp(const probe4 *P, cf_u128 v)
{
	cf_u128		x = (v & P->mask) ^ P->fpx;

	return ~(((x & P->lo) + P->lo) | x) & P->hi;
}

/*
 * A probe word: the slots of a bucket that one 64-bit load at any bit offset
 * holds, four when w <= 16 (4w <= 64: 4w <= 57, or 4w = 60 at offsets 0
 * and 4, or 64 at 0, as the bucket offsets 4w * i fall), two when
 * w <= 28 (2w + 7 <= 63).  lo_ones, hi_bits and bucket_mask: bit 0 and bit
 * f-1 of each of its slots, its bits.
 */
static CF_ALWAYS_INLINE uint64_t
word_at(const cf_filter *cf, const uint8_t *d, uint64_t pos)
{
	return (load_le64(d + (pos >> 3)) >> (pos & 7)) & cf->bucket_mask;
}

/*
 * Whether a tail 2^s | spare fits the address bits ahi (its s spare bits
 * equal ahi's low s bits; slot_match's test): d = tail XOR ahi has no set
 * bit below s, i.e. the bits up to d's lowest set bit, d XOR (d - 1) (all
 * of them if d = 0), cover the tail.  No bit scan.
 */
static CF_ALWAYS_INLINE uint32_t
tail_fits(uint32_t tail, uint32_t ahi)
{
	uint32_t	d = tail ^ ahi;

	return (uint32_t) ((tail & ~(d ^ (d - 1))) == 0);
}

/*
 * Slots of the word whose fingerprint may be fpx's, as bit f-1 of their
 * fields: the zero-field test (x - L) & ~x & H (L: bit 0 of each slot) of
 * version 1.  Nonzero exactly when some slot's fingerprint is fp, and its
 * lowest set bit is such a slot; a borrow out of a matching field can also
 * flag slots above it (only when a slot's tail is 0, which a valid
 * growing filter never has; the lookups send any second flag to the
 * slot-by-slot test).
 */
static CF_ALWAYS_INLINE uint64_t
word_fp_any(const cf_filter *cf, uint64_t v, uint64_t fpx)
{
	uint64_t	x = v ^ fpx;

	return (x - cf->lo_ones) & ~x & cf->hi_bits;
}

/*
 * Whether the lowest flagged slot of the probe word v (z: word_fp_any's
 * flags) has a tail 2^s | spare whose s spare bits equal the low s bits of
 * ahi (the value's address bits above the bucket's resolution): 1 if z has
 * a flag and that slot's tail fits, without a branch (whether a present
 * value's entry lies in its first or its second bucket is a coin toss,
 * which a branch per bucket mispredicts half the time).  The tail begins
 * just above the flag (bit f-1 of the slot).  The lowest flag is always a
 * slot with the value's fingerprint; the other flagged slots, if any, are
 * left to the caller.  t > 0.
 */
static CF_ALWAYS_INLINE uint32_t
word_first_hit(const cf_filter *cf, uint64_t v, uint64_t z, uint32_t ahi)
{
	uint32_t	tail = (uint32_t) ((v >> 1) >> __builtin_ctzll(z | (UINT64_C(1) << 63))) & cf->tmask;

	return (uint32_t) (z != 0) & tail_fits(tail, ahi);
}

/* The same over a bucket of up to 120 bits (w <= 30) read as 128 bits;
 * every guard bit (at most bit 3w + f + t < 4w) is inside the word.  t > 0. */
static CF_ALWAYS_INLINE cf_u128
probe4_tails(const probe4 *P, cf_u128 v, cf_u128 z, uint32_t ahi)
{
	cf_u128		tails = P->tone * P->tmask,
				low = P->tone * (P->tmask >> 1);
	cf_u128		tl = v & tails;
	cf_u128		d = tl ^ ((cf_u128) (ahi & P->tmask) * P->tone);
	cf_u128		dg = d | (P->tone << P->t);
	cf_u128		x = tl & ~(dg ^ (dg - P->tone));

	return ~(((x & low) + low) | x) & (P->tone << (P->t - 1)) & (z << P->t);
}
#endif

/* shape: CF_SHAPE_ANY (tested here), or a shape the caller has tested */
#define CF_SHAPE_ANY	0
#define CF_SHAPE_W16	1		/* b = 4, w <= 16 */
#define CF_SHAPE_W28	2		/* b = 4, 16 < w <= 28 */
#define CF_SHAPE_SLOTS	3		/* any: slot by slot (bucket_matches) */

/* The victim's test, apart: the fast paths then need not keep the value's
 * parts alive past their bucket tests. */
static CF_NOINLINE bool
victim_matches_h(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r1,
				r2,
				i1,
				i2;

	v2_parts(cf, h, &v);
	i1 = locate2(cf, v.q, v.a, &r1);
	i2 = locate2(cf, v.q2, v.a2, &r2);
	return victim_matches2(cf, &v, i1, r1, i2, r2);
}

static CF_NOINLINE bool contains2_slots(const cf_filter *cf, uint64_t h);

static CF_ALWAYS_INLINE bool
contains2_at(const cf_filter *cf, uint64_t h, int shape)
{
	v2_hash		vh,
			   *v = &vh;
	uint32_t	r1,
				r2,
				i1,
				i2;
	uint32_t	hit;

	v2_parts(cf, h, v);
	if (shape == CF_SHAPE_W16 || shape == CF_SHAPE_W28 ||
		(shape == CF_SHAPE_ANY && cf->b == 4 && cf->w <= 28 && cf->lo_ones != 0))
	{
		/*
		 * w <= 16: a bucket is one probe word; w <= 28: two, of two slots.
		 * Fingerprint flags of every word (word_fp_any); when none is set,
		 * the value is absent from both buckets.  Otherwise each word's
		 * lowest flagged slot has its tail tested (word_first_hit), all
		 * without a branch; a word with a second flag (two entries with
		 * the value's fingerprint in one word: rare) sends the lookup to
		 * the slot-by-slot test.
		 */
		const uint8_t *d = cf->data;
		uint64_t	p1 = locate2_pos(cf, v->q, v->a, &r1),
					p2 = locate2_pos(cf, v->q2, v->a2, &r2);
		uint64_t	fpx = v->fp * cf->lo_ones;
		uint64_t	w1 = word_at(cf, d, p1),
					w2 = word_at(cf, d, p2);
		uint64_t	z1 = word_fp_any(cf, w1, fpx),
					z2 = word_fp_any(cf, w2, fpx);
		uint32_t	ahi1,
					ahi2;

		if (shape == CF_SHAPE_W16 || (shape == CF_SHAPE_ANY && cf->w <= 16))
		{
			if ((z1 | z2) != 0)
			{
				if (cf->t == 0)
					return true;
				ahi1 = v->a >> r1;
				ahi2 = v->a2 >> r2;
				if (word_first_hit(cf, w1, z1, ahi1) | word_first_hit(cf, w2, z2, ahi2))
					return true;
				if (((z1 & (z1 - 1)) | (z2 & (z2 - 1))) != 0)
					return contains2_slots(cf, h);
			}
		}
		else
		{
			uint64_t	w1b = word_at(cf, d, p1 + 2 * cf->w),
						w2b = word_at(cf, d, p2 + 2 * cf->w);
			uint64_t	z1b = word_fp_any(cf, w1b, fpx),
						z2b = word_fp_any(cf, w2b, fpx);

			if ((z1 | z2 | z1b | z2b) != 0)
			{
				if (cf->t == 0)
					return true;
				ahi1 = v->a >> r1;
				ahi2 = v->a2 >> r2;
				if (word_first_hit(cf, w1, z1, ahi1) | word_first_hit(cf, w1b, z1b, ahi1) |
					word_first_hit(cf, w2, z2, ahi2) | word_first_hit(cf, w2b, z2b, ahi2))
					return true;
				if (((z1 & (z1 - 1)) | (z1b & (z1b - 1)) | (z2 & (z2 - 1)) | (z2b & (z2b - 1))) != 0)
					return contains2_slots(cf, h);
			}
		}
		return victim_in_use(cf) && victim_matches_h(cf, h);
	}
	i1 = locate2(cf, v->q, v->a, &r1);
	i2 = locate2(cf, v->q2, v->a2, &r2);
#if defined(__SIZEOF_INT128__)
	if (shape == CF_SHAPE_ANY && cf->b == 4 && cf->w <= 30)
	{
		probe4		P;
		cf_u128		b1 = bucket128(cf->data, (uint64_t) i1 * cf->bucket_bits),
					b2 = bucket128(cf->data, (uint64_t) i2 * cf->bucket_bits),
					z1,
					z2;

		probe4_init(&P, cf, v->fp);
		z1 = probe4_fp(&P, b1);
		z2 = probe4_fp(&P, b2);
		if ((z1 | z2) != 0 &&
			(cf->t == 0 ||
			 (probe4_tails(&P, b1, z1, v->a >> r1) | probe4_tails(&P, b2, z2, v->a2 >> r2)) != 0))
			return true;
		return victim_in_use(cf) && victim_matches2(cf, v, i1, r1, i2, r2);
	}
#endif
	if (cf->b == 4)
		hit = bucket_matches(cf, i1, v->fp, v->a >> r1, 4) |
			bucket_matches(cf, i2, v->fp, v->a2 >> r2, 4);
	else
		hit = bucket_matches(cf, i1, v->fp, v->a >> r1, cf->b) |
			bucket_matches(cf, i2, v->fp, v->a2 >> r2, cf->b);
	return hit != 0 || victim_matches2(cf, v, i1, r1, i2, r2);
}

/* Each common shape has its own copy of the lookup, so that the compiler
 * keeps it in registers; cf2_open chooses the filter's (contains_fn), which
 * cf_contains jumps to. */
static CF_NOINLINE bool
contains2_any(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_ANY);
}

/* Slot by slot (slot_match): every shape; the fast paths' rare case. */
static CF_NOINLINE bool
contains2_slots(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_SLOTS);
}

static CF_NOINLINE bool
contains2_w16(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_W16);
}

static CF_NOINLINE bool
contains2_w28(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_W28);
}

/*
 * Shape B72 (target 0.001's default slots: f = 9, t = 9, g = 0, w = 18):
 * b = 4, buckets of a whole number of bytes (4w a multiple of 8), the four
 * fingerprints in the bucket's first 64 bits (3w + f <= 64) and the four
 * tails in its bits 8 .. 71 (f >= 8, 3w + f + t <= 72).  A bucket is then
 * two 64-bit loads at its first and second byte, without a shift: the first
 * gets version 1's exact zero-field test on the four fingerprint fields
 * (p2_low, p2_high: their low f-1 bits and bit f-1), one word per bucket
 * instead of two.  The tail test is done once, on the lowest flagged slot of
 * the first bucket that has a flag (a slot with the value's fingerprint);
 * when it fails and another slot of the pair has the fingerprint (about 7 in
 * 2^f of the lookups that reach it), the slot-by-slot lookup decides.
 */
static bool
shape_b72(const cf_filter *cf)
{
	return cf->b == 4 && cf->t > 0 && cf->f >= 8 && cf->p2_ones[0] != 0 &&
		(4 * cf->w) % 8 == 0 && 3 * cf->w + cf->f <= 64 &&
		3 * cf->w + cf->f + cf->t <= 72;
}

static CF_NOINLINE bool
contains2_b72(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r1,
				r2;
	const uint8_t *d = cf->data;
	const uint8_t *b1,
			   *b2;
	uint64_t	lo = cf->p2_low[0],
				hi = cf->p2_high[0];
	uint64_t	fpx,
				x1,
				x2,
				z1,
				z2;

	v2_parts(cf, h, &v);
	b1 = d + (locate2_pos(cf, v.q, v.a, &r1) >> 3);
	b2 = d + (locate2_pos(cf, v.q2, v.a2, &r2) >> 3);
	fpx = v.fp * cf->p2_ones[0];
	x1 = load_le64(b1) ^ fpx;
	x2 = load_le64(b2) ^ fpx;
	z1 = ~(((x1 & lo) + lo) | x1) & hi;
	z2 = ~(((x2 & lo) + lo) | x2) & hi;
	if ((z1 | z2) != 0)
	{
		/*
		 * The first flagged bucket, chosen with a mask: which bucket holds
		 * a present value is a coin toss, which a branch would mispredict
		 * half the time.  Its tails are bits 8 .. 71.
		 */
		uint64_t	t1 = load_le64(b1 + 1),
					t2 = load_le64(b2 + 1);
		uint64_t	m = (uint64_t) 0 - (uint64_t) (z1 != 0);
		uint64_t	z = z2 ^ ((z1 ^ z2) & m);
		uint64_t	tw = t2 ^ ((t1 ^ t2) & m);
		uint32_t	ahi1 = v.a >> r1,
					ahi2 = v.a2 >> r2;
		uint32_t	ahi = ahi2 ^ ((ahi1 ^ ahi2) & (uint32_t) m);
		uint32_t	tail = (uint32_t) (tw >> (__builtin_ctzll(z) - 7)) & cf->tmask;
		uint32_t	dd = tail ^ ahi;

		/* tail_fits for a nonzero tail: tail <= dd XOR (dd - 1) */
		if (tail - 1 < (dd ^ (dd - 1)))
			return true;
		if (((z1 != 0) & (z2 != 0)) | ((z & (z - 1)) != 0))
			return contains2_slots(cf, h);
	}
	return victim_in_use(cf) && victim_matches_h(cf, h);
}

/*
 * Shape W15 (target 0.01's default slots: f = 6, t = 9, g = 0, w = 15):
 * b = 4, a bucket in one 64-bit word (w <= 16), t > 0, and bit f + t of the
 * highest slot inside the word (3w + f + t <= 63).  Every slot of both
 * buckets is tested at once, fingerprint and tail together, without a bit
 * scan and without a branch before the answer (a first test of the
 * fingerprints alone, with a branch, flags about 1 absent lookup in 8 at
 * f = 6 and mispredicts there: measured no faster for absent values and
 * slower for present ones, docs/BENCHMARKS.md): with
 * y = (slot XOR (fp | (ahi mod 2^t) << f)) mod 2^(f+t), the slot matches
 * exactly when its tail bits and bit f all lie at or below y's lowest set
 * bit, i.e. ((tail << f) | 2^f) AND NOT (y XOR (y - 1)) = 0: a fingerprint
 * that differs puts y's lowest bit below f (and bit f outside the mask),
 * one that agrees puts it at f plus the lowest bit where tail and address
 * differ (FORMAT 13.5: the spare bits below the tail's marker agree).  The
 * y - 1 of every slot comes from one subtraction: a borrow crosses into
 * the slot above only from a y of 0, a match.  The zero test of the
 * result: adding the tail mask carries into bit f + t of each slot whose
 * result is not 0.
 */
static bool
shape_w15(const cf_filter *cf)
{
	return cf->b == 4 && cf->w <= 16 && cf->lo_ones != 0 && cf->t > 0 &&
		3 * cf->w + cf->f + cf->t <= 63;
}

static CF_ALWAYS_INLINE uint64_t
w15_misses(const cf_filter *cf, uint64_t v, uint64_t x)
{
	uint64_t	y = (v ^ x) & cf->v2_fpt;
	uint64_t	r = (v | cf->v2_tone) & cf->v2_tails & ~(y ^ (y - cf->lo_ones));

	return (r + cf->v2_tails) & cf->v2_carry;
}

static CF_NOINLINE bool
contains2_w15(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r1,
				r2;
	const uint8_t *d = cf->data;
	uint64_t	p1,
				p2,
				fpx,
				x1,
				x2,
				w1,
				w2;

	v2_parts(cf, h, &v);
	p1 = locate2_pos(cf, v.q, v.a, &r1);
	p2 = locate2_pos(cf, v.q2, v.a2, &r2);
	fpx = v.fp * cf->lo_ones;
	x1 = fpx | ((v.a >> r1) & cf->tmask) * cf->v2_tone;
	x2 = fpx | ((v.a2 >> r2) & cf->tmask) * cf->v2_tone;
	w1 = load_le64(d + (p1 >> 3)) >> (p1 & 7);
	w2 = load_le64(d + (p2 >> 3)) >> (p2 & 7);
	if ((w15_misses(cf, w1, x1) & w15_misses(cf, w2, x2)) != cf->v2_carry)
		return true;
	return victim_in_use(cf) && victim_matches_h(cf, h);
}

void
v2_choose_lookup(cf_filter *cf)
{
	if (shape_w15(cf))
		cf->contains_fn = contains2_w15;
	else if (cf->b == 4 && cf->w <= 16 && cf->lo_ones != 0)
		cf->contains_fn = contains2_w16;
	else if (shape_b72(cf))
		cf->contains_fn = contains2_b72;
	else if (cf->b == 4 && cf->w <= 28 && cf->lo_ones != 0)
		cf->contains_fn = contains2_w28;
	else
		cf->contains_fn = contains2_any;
}

/* The lookup cf2_open chose (contains_fn), by shape name: for the tests. */
const char *
cf2_lookup_name(const cf_filter *cf)
{
	if (cf->contains_fn == contains2_w15)
		return "w15";
	if (cf->contains_fn == contains2_b72)
		return "b72";
	if (cf->contains_fn == contains2_w16)
		return "w16";
	if (cf->contains_fn == contains2_w28)
		return "w28";
	return "any";
}

void
cf2_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out)
{
	for (size_t j = 0; j < n; j++)
	{
		v2_hash		v;

		if (j + 8 < n)
		{
			uint32_t	r,
						i1,
						i2;

			v2_parts(cf, h[j + 8], &v);
			i1 = locate2(cf, v.q, v.a, &r);
			i2 = locate2(cf, v.q2, v.a2, &r);
			prefetch_bucket(cf, i1);
			prefetch_bucket(cf, i2);
		}
		out[j] = contains2_at(cf, h[j], CF_SHAPE_ANY);
	}
}

/* ------------------------------------------------------------------------
 * The flat lookup of a store's segments (cf_store.h)
 * ------------------------------------------------------------------------ */

bool
cf_store_shape_of(const cf_filter *cf, cf_store_shape *shape)
{
	if (cf->contains_fn != contains2_w15)
		return false;
	memset(shape, 0, sizeof *shape);
	shape->fp_range = cf->fp_range;
	shape->tmask = cf->tmask;
	shape->bucket_bits = cf->bucket_bits;
	shape->c = cf->c;
	shape->lo_ones = cf->lo_ones;
	shape->tone = cf->v2_tone;
	shape->fpt = cf->v2_fpt;
	shape->tails = cf->v2_tails;
	shape->carry = cf->v2_carry;
	return true;
}

bool
cf_store_seg_of(const cf_store_shape *shape, const cf_filter *cf, cf_store_seg *seg)
{
	cf_store_shape own;

	memset(seg, 0, sizeof *seg);
	if (!cf_store_shape_of(cf, &own) || memcmp(&own, shape, sizeof own) != 0 ||
		victim_in_use(cf))
		return false;
	seg->data = cf->data;
	seg->k = cf->k;
	seg->split = cf->split;
	return true;
}

/* One lookup on its way: its segment, then its buckets' bit positions and
 * the words they are compared with (contains2_w15's p1, p2, x1, x2). */
typedef struct flat_step
{
	uint32_t	seg;
	const uint8_t *d;			/* NULL: in the view */
	uint64_t	p1,
				p2,
				x1,
				x2;
} flat_step;

#define FLAT_RING		32		/* > FLAT_SEG_AHEAD, a power of 2 */
#define FLAT_SEG_AHEAD	24		/* records requested this far ahead */
#define FLAT_AHEAD		14		/* buckets requested this far ahead */

/* contains2_w15's v2_parts and locate2_pos with a record's fields. */
static CF_ALWAYS_INLINE void
flat_locate(const cf_store_shape *S, const cf_store_seg *r, uint64_t h, flat_step *st)
{
	uint32_t	c = S->c;
	uint32_t	rmask = mask32(r->k);
	uint64_t	base_bits = ((uint64_t) c << r->k) * S->bucket_bits;
	uint32_t	fp = 1 + fastrange32((uint32_t) h, S->fp_range);
	uint32_t	q = fastrange32((uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32), c);
	uint32_t	a = (uint32_t) (h >> 32);
	uint64_t	hf = fp_hash(fp);
	uint32_t	hq = fastrange32((uint32_t) hf, c);
	uint32_t	q2 = hq >= q ? hq - q : hq + c - q;
	uint32_t	a2 = a ^ (uint32_t) (hf >> 32);
	uint32_t	i1 = (a & rmask) * c + q;
	uint32_t	i2 = (a2 & rmask) * c + q2;
	uint32_t	sp1 = (uint32_t) (i1 < r->split);
	uint32_t	sp2 = (uint32_t) (i2 < r->split);
	uint32_t	r1 = r->k + sp1;
	uint32_t	r2 = r->k + sp2;
	uint64_t	fpx = fp * S->lo_ones;

	st->d = r->data;
	st->p1 = (uint64_t) i1 * S->bucket_bits +
		(base_bits & ((uint64_t) 0 - (uint64_t) (sp1 & (a >> r->k))));
	st->p2 = (uint64_t) i2 * S->bucket_bits +
		(base_bits & ((uint64_t) 0 - (uint64_t) (sp2 & (a2 >> r->k))));
	st->x1 = fpx | ((a >> r1) & S->tmask) * S->tone;
	st->x2 = fpx | ((a2 >> r2) & S->tmask) * S->tone;
}

/* w15_misses with the shape's constants. */
static CF_ALWAYS_INLINE uint64_t
flat_misses(const cf_store_shape *S, uint64_t v, uint64_t x)
{
	uint64_t	y = (v ^ x) & S->fpt;
	uint64_t	r = (v | S->tone) & S->tails & ~(y ^ (y - S->lo_ones));

	return (r + S->tails) & S->carry;
}

/* Stage 2 of lookup j: its record is (nearly) in the cache; its buckets
 * are requested (or, in a view, the view's lines). */
static CF_ALWAYS_INLINE void
flat_request(const cf_store_shape *S, const cf_store_seg *segs,
			 const cf_filter *const *views, uint64_t h, flat_step *st)
{
	const cf_store_seg *r = &segs[st->seg];

	if (r->data != NULL)
	{
		flat_locate(S, r, h, st);
		/* the word's first and last byte: one line in 8 holds only part */
		__builtin_prefetch(st->d + (st->p1 >> 3), 0, 1);
		__builtin_prefetch(st->d + (st->p1 >> 3) + 7, 0, 1);
		__builtin_prefetch(st->d + (st->p2 >> 3), 0, 1);
		__builtin_prefetch(st->d + (st->p2 >> 3) + 7, 0, 1);
	}
	else
	{
		st->d = NULL;
		__builtin_prefetch(views[st->seg], 0, 1);
		__builtin_prefetch((const char *) views[st->seg] + 64, 0, 1);
	}
}

void
cf_store_contains_flat(const cf_store_shape *S, const cf_store_seg *segs,
					   const cf_filter *const *views, uint32_t nsegments,
					   const uint64_t *h, size_t n, bool *out)
{
	flat_step	ring[FLAT_RING];

	for (size_t j = 0; j < n && j < FLAT_SEG_AHEAD; j++)
	{
		ring[j].seg = store_route(h[j], nsegments);
		__builtin_prefetch(&segs[ring[j].seg], 0, 1);
	}
	for (size_t j = 0; j < n && j < FLAT_AHEAD; j++)
		flat_request(S, segs, views, h[j], &ring[j]);
	for (size_t j = 0; j < n; j++)
	{
		flat_step  *st = &ring[j % FLAT_RING];

		if (j + FLAT_SEG_AHEAD < n)
		{
			flat_step  *ahead = &ring[(j + FLAT_SEG_AHEAD) % FLAT_RING];

			ahead->seg = store_route(h[j + FLAT_SEG_AHEAD], nsegments);
			__builtin_prefetch(&segs[ahead->seg], 0, 1);
		}
		if (j + FLAT_AHEAD < n)
			flat_request(S, segs, views, h[j + FLAT_AHEAD],
						 &ring[(j + FLAT_AHEAD) % FLAT_RING]);
		if (st->d != NULL)
		{
			uint64_t	w1 = load_le64(st->d + (st->p1 >> 3)) >> (st->p1 & 7);
			uint64_t	w2 = load_le64(st->d + (st->p2 >> 3)) >> (st->p2 & 7);

			out[j] = (flat_misses(S, w1, st->x1) & flat_misses(S, w2, st->x2)) != S->carry;
		}
		else
			out[j] = cf_contains(views[st->seg], h[j]);
	}
}
