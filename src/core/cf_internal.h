/*
 * cf_internal.h
 *     Helpers shared by the files of the core: little-endian and bit-field
 *     access, the hash arithmetic that places an item, bucket coding and the
 *     word-wide bucket tests.  All static inline, so that the per-item paths
 *     (cf_shape.c, cf_table.c) compile to the same straight-line code they did when the
 *     core was one file.  Not for use outside src/core/ (and its tests).
 */
#ifndef CF_INTERNAL_H
#define CF_INTERNAL_H

#include "cf.h"

#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define CF_NOINLINE __attribute__((noinline))
#define CF_ALWAYS_INLINE inline __attribute__((always_inline))
/* shared between the core's files only: no PLT or GOT indirection */
#define CF_HIDDEN __attribute__((visibility("hidden")))
#define CF_UNUSED __attribute__((unused))
#else
#define CF_NOINLINE
#define CF_ALWAYS_INLINE inline
#define CF_HIDDEN
#define CF_UNUSED
#endif

/* cf_checks.c: checks both format versions share, one message each */
extern bool cf_check_magic(uint32_t magic, char *err, size_t errlen) CF_HIDDEN;
extern bool cf_check_bucket_size(uint32_t b, char *err, size_t errlen) CF_HIDDEN;
extern bool cf_check_fp_bits(uint32_t f, char *err, size_t errlen) CF_HIDDEN;
extern bool cf_check_max_kicks(uint32_t max_kicks, char *err, size_t errlen) CF_HIDDEN;
extern bool cf_check_kind_tag(uint32_t kind, uint32_t type_tag, char *err, size_t errlen) CF_HIDDEN;
extern bool cf_check_total_bytes(uint32_t m, uint64_t bytes, char *err, size_t errlen) CF_HIDDEN;
extern bool cf_check_length(size_t len, uint64_t want, uint32_t m, char *err, size_t errlen) CF_HIDDEN;

/* Lets the host cancel loops whose length grows with the filter (cf.h). */
#define CF_CHECK_INTERRUPTS(i) \
	do { if (((i) & 0xFFFF) == 0 && cf_interrupt_hook) cf_interrupt_hook(); } while (0)

/*
 * Debug builds (-DCF_DEBUG: test/unit and test/fuzz) check invariants at the
 * core's boundaries; release builds compile the checks away.
 */
#ifdef CF_DEBUG
extern void cf_assert_fail(const char *cond, const char *file, int line) CF_HIDDEN;
#define CF_ASSERT(cond) \
	((cond) ? (void) 0 : cf_assert_fail(#cond, __FILE__, __LINE__))
/* the O(1) header invariants after each item operation */
#define CF_ASSERT_HEADER(cf) \
	CF_ASSERT((cf)->ops->check_header((cf)->buf, (cf)->len, NULL, 0))
/* the full structural check after each whole-filter operation */
#define CF_ASSERT_VALID(cf, where) cf_assert_valid((cf), (where))
#else
#define CF_ASSERT(cond) ((void) 0)
#define CF_ASSERT_HEADER(cf) ((void) 0)
#define CF_ASSERT_VALID(cf, where) ((void) 0)
#endif

/* ------------------------------------------------------------------------
 * Little-endian access.  Header fields are assembled byte by byte; the bucket
 * array is read with unaligned 64-bit loads (the data section carries eight
 * bytes of zero slack so such a load never leaves the buffer).
 * ------------------------------------------------------------------------ */

static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* Buckets of 16 and 32 bits (the shapes with their own code, cf_shape.c). */
static CF_ALWAYS_INLINE uint64_t
load_le32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static CF_ALWAYS_INLINE uint64_t
load_le16(const uint8_t *p)
{
	uint16_t	v;

	memcpy(&v, p, 2);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap16(v);
#endif
	return v;
}

static inline void
store_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline uint64_t
rd64(const uint8_t *p)
{
	return (uint64_t) rd32(p) | ((uint64_t) rd32(p + 4) << 32);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline void
wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

static inline void
wr64(uint8_t *p, uint64_t v)
{
	wr32(p, (uint32_t) v);
	wr32(p + 4, (uint32_t) (v >> 32));
}

static inline uint32_t
get_bits(const uint8_t *data, uint64_t pos, uint32_t width)
{
	uint64_t	w = load_le64(data + (pos >> 3));

	return (uint32_t) ((w >> (pos & 7)) & ((UINT64_C(1) << width) - 1));
}

static inline void
set_bits(uint8_t *data, uint64_t pos, uint32_t width, uint32_t val)
{
	uint8_t    *p = data + (pos >> 3);
	unsigned	sh = (unsigned) (pos & 7);
	uint64_t	mask = ((UINT64_C(1) << width) - 1) << sh;
	uint64_t	w = load_le64(p);

	w = (w & ~mask) | (((uint64_t) val << sh) & mask);
	store_le64(p, w);
}

static inline int
popcount64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_popcountll(x);
#else
	int			n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
#endif
}

/* ------------------------------------------------------------------------
 * Hashing helpers
 * ------------------------------------------------------------------------ */

/* Maps a 32-bit value uniformly onto [0, n) without division (Lemire). */
static inline uint32_t
fastrange32(uint32_t x, uint32_t n)
{
	return (uint32_t) (((uint64_t) x * n) >> 32);
}

/* MurmurHash3's 64-bit finaliser: a bijection that mixes every bit. */
static inline uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/*
 * The segment of a store of n segments that holds hash h (cf_store_segment,
 * docs/FORMAT.md section 14): the high half of mix64(h), range-reduced.
 */
static inline uint32_t
store_route(uint64_t h, uint32_t n)
{
	return (uint32_t) (((mix64(h) >> 32) * (uint64_t) n) >> 32);
}

/* The hash of a fingerprint that places its alternate bucket. */
static inline uint64_t
fp_hash(uint32_t fp)
{
	uint64_t	x = (uint64_t) fp * UINT64_C(0xC2B2AE3D27D4EB4F);

	return x ^ (x >> 29);
}

/* xorshift64*: the random victim choice.  Seeded per operation from the
 * item, so a filter's bytes depend only on its inputs. */
static inline uint64_t
rng_next(uint64_t *s)
{
	uint64_t	x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(0x2545F4914F6CDD1D);
}

static inline uint64_t
rng_seed(uint64_t a, uint64_t b)
{
	uint64_t	s = mix64(a ^ mix64(b + UINT64_C(0x9E3779B97F4A7C15)));

	return s ? s : UINT64_C(0x9E3779B97F4A7C15);
}

/* ------------------------------------------------------------------------
 * Semi-sorting (paper section 5.2), b = 4 only; tables in cf_semisort.c.
 * The four 4-bit prefixes of a bucket, sorted, are one of C(19,4) = 3876
 * multisets and are stored as their 12-bit rank in the combinatorial number
 * system; the remaining f - 4 bits of each fingerprint follow in the same
 * sorted order.
 * ------------------------------------------------------------------------ */

extern uint16_t cf_ss_decode[4096] CF_HIDDEN;	/* rank -> four nibbles (n0 lowest) */
extern const uint16_t cf_ss_binom[20][5] CF_HIDDEN;	/* C(n, r), n < 20, r <= 4 */
extern void cf_ss_init(void) CF_HIDDEN;

/* Rank of a sorted nibble multiset n0 <= n1 <= n2 <= n3. */
static inline uint32_t
ss_rank(uint32_t n0, uint32_t n1, uint32_t n2, uint32_t n3)
{
	return cf_ss_binom[n0][1] + cf_ss_binom[n1 + 1][2] + cf_ss_binom[n2 + 2][3] + cf_ss_binom[n3 + 3][4];
}

static inline void
sort4(uint32_t *v)
{
#define SWAP_IF(x, y) do { if (v[x] > v[y]) { uint32_t t_ = v[x]; v[x] = v[y]; v[y] = t_; } } while (0)
	SWAP_IF(0, 1);
	SWAP_IF(2, 3);
	SWAP_IF(0, 2);
	SWAP_IF(1, 3);
	SWAP_IF(1, 2);
#undef SWAP_IF
}

/* ------------------------------------------------------------------------
 * Buckets
 * ------------------------------------------------------------------------ */

static inline void
read_bucket(const cf_filter *cf, uint32_t i, uint32_t *fps)
{
	uint64_t	pos = (uint64_t) i * cf->bucket_bits;

	if (!cf->semisort)
	{
		unsigned	sh = (unsigned) (pos & 7);

		if (sh + cf->bucket_bits <= 64)
		{
			/* the whole bucket in one load */
			uint64_t	w = load_le64(cf->data + (pos >> 3)) >> sh;

			for (uint32_t j = 0; j < cf->b; j++)
				fps[j] = (uint32_t) ((w >> (j * cf->f)) & cf->fp_mask);
		}
		else
		{
			for (uint32_t j = 0; j < cf->b; j++)
				fps[j] = get_bits(cf->data, pos + (uint64_t) j * cf->f, cf->f);
		}
	}
	else
	{
		uint32_t	nib = cf_ss_decode[get_bits(cf->data, pos, 12)];
		uint32_t	lb = cf->low_bits;

		if (lb <= 13)
		{
			/* the four suffixes in one load: 4 * 13 + 7 < 64 */
			uint64_t	p2 = pos + 12;
			uint64_t	w = load_le64(cf->data + (p2 >> 3)) >> (p2 & 7);
			uint32_t	lmask = (1u << lb) - 1;

			for (uint32_t j = 0; j < 4; j++)
				fps[j] = (((nib >> (4 * j)) & 15) << lb) |
					((uint32_t) (w >> (j * lb)) & lmask);
		}
		else
		{
			for (uint32_t j = 0; j < 4; j++)
				fps[j] = (((nib >> (4 * j)) & 15) << lb) |
					get_bits(cf->data, pos + 12 + (uint64_t) j * lb, lb);
		}
	}
}

static inline void
write_bucket(cf_filter *cf, uint32_t i, uint32_t *fps)
{
	uint64_t	pos = (uint64_t) i * cf->bucket_bits;

	if (!cf->semisort)
	{
		for (uint32_t j = 0; j < cf->b; j++)
			set_bits(cf->data, pos + (uint64_t) j * cf->f, cf->f, fps[j]);
	}
	else
	{
		uint32_t	lb = cf->low_bits;

		sort4(fps);
		set_bits(cf->data, pos, 12,
				 ss_rank(fps[0] >> lb, fps[1] >> lb, fps[2] >> lb, fps[3] >> lb));
		for (uint32_t j = 0; j < 4; j++)
			set_bits(cf->data, pos + 12 + (uint64_t) j * lb, lb,
					 fps[j] & ((1u << lb) - 1));
	}
}

static inline uint32_t
bucket_count_fp(const cf_filter *cf, uint32_t i, uint32_t fp)
{
	uint32_t	fps[8];
	uint32_t	n = 0;

	read_bucket(cf, i, fps);
	for (uint32_t j = 0; j < cf->b; j++)
		n += (fps[j] == fp);
	return n;
}

/*
 * Whether bucket i holds fp.  A plain bucket that fits one 64-bit load is
 * tested without a loop: x = word XOR (fp in every field) has a zero field
 * exactly where fp is stored, and (x - ones) & ~x & highs is non-zero iff some
 * field of x is zero (a borrow only ever runs upward from a zero field).
 */
/*
 * Semi-sorted bucket i, read as one word w: compare the 4-bit prefixes and the
 * suffixes in parallel with an exact zero-field test,
 * ~(((x & low) + low) | x) & high, which (unlike the test for plain buckets)
 * marks only fields that are zero; an entry matches when both parts do.
 */
static CF_ALWAYS_INLINE bool
ss_word_has_fp(const cf_filter *cf, uint64_t w, uint32_t fp)
{
	uint32_t	lb = cf->low_bits;
	uint32_t	xn = cf_ss_decode[w & 0xFFF] ^ ((fp >> lb) * 0x1111u);
	uint32_t	zn = ~(((xn & 0x7777u) + 0x7777u) | xn) & 0x8888u;
	/* gather the four prefix-match bits 3, 7, 11, 15 into bits 0..3 */
	uint32_t	mn = ((((zn >> 3) & 0x1111u) * 0x1248u) >> 12) & 0xFu;
	uint64_t	lowmask,
				xl,
				zl;
	uint32_t	ml;

	if (lb == 0)
		return mn != 0;
	lowmask = cf->ss_hi_bits - cf->ss_lo_ones;
	xl = (w >> 12) ^ ((uint64_t) (fp & ((1u << lb) - 1)) * cf->ss_lo_ones);
	zl = (~(((xl & lowmask) + lowmask) | xl) & cf->ss_hi_bits) >> (lb - 1);
	/* suffix-match bits are now at 0, lb, 2lb, 3lb */
	ml = (uint32_t) ((zl & 1) | ((zl >> (lb - 1)) & 2) |
					 ((zl >> (2 * lb - 2)) & 4) | ((zl >> (3 * lb - 3)) & 8));
	return (mn & ml) != 0;
}

/* Buckets that do not fit one 64-bit load: decoded, then compared.  Out of
 * line, so the word-wide test stays small where it is inlined. */
static CF_NOINLINE CF_UNUSED bool
bucket_has_fp_slow(const cf_filter *cf, uint32_t i, uint32_t fp)
{
	uint32_t	fps[8];

	read_bucket(cf, i, fps);
	for (uint32_t j = 0; j < cf->b; j++)
		if (fps[j] == fp)
			return true;
	return false;
}

static CF_ALWAYS_INLINE bool
bucket_has_fp(const cf_filter *cf, uint32_t i, uint32_t fp)
{
	uint64_t	pos = (uint64_t) i * cf->bucket_bits;
	unsigned	sh = (unsigned) (pos & 7);

	if (sh + cf->bucket_bits <= 64)
	{
		uint64_t	w = load_le64(cf->data + (pos >> 3)) >> sh;

		if (!cf->semisort)
		{
			uint64_t	x = (w & cf->bucket_mask) ^ (fp * cf->lo_ones);

			return ((x - cf->lo_ones) & ~x & cf->hi_bits) != 0;
		}
		return ss_word_has_fp(cf, w & cf->bucket_mask, fp);
	}
	return bucket_has_fp_slow(cf, i, fp);
}

/*
 * A plain bucket that fits one 64-bit load (with its bit offset) is updated
 * with one load and one store.  zero_fields marks the top bit of every field
 * of x that is zero, and only those (no borrow crosses a field).
 */
static CF_ALWAYS_INLINE bool
plain_word_bucket(const cf_filter *cf, uint64_t pos)
{
	return !cf->semisort && (pos & 7) + cf->bucket_bits <= 64;
}

static CF_ALWAYS_INLINE uint64_t
zero_fields(const cf_filter *cf, uint64_t x)
{
	uint64_t	low = cf->hi_bits - cf->lo_ones;

	return ~(((x & low) + low) | x) & cf->hi_bits;
}

/* Puts fp into a free entry of bucket i, if there is one (the first). */
static inline bool
bucket_place(cf_filter *cf, uint32_t i, uint32_t fp)
{
	uint32_t	fps[8];
	uint64_t	pos = (uint64_t) i * cf->bucket_bits;

	if (plain_word_bucket(cf, pos))
	{
		uint8_t    *p = cf->data + (pos >> 3);
		unsigned	sh = (unsigned) (pos & 7);
		uint64_t	w = load_le64(p);
		uint64_t	z = zero_fields(cf, (w >> sh) & cf->bucket_mask);

		if (z == 0)
			return false;
		/* the lowest zero field starts f - 1 bits below its marked top bit */
		w |= (uint64_t) fp << (sh + (unsigned) __builtin_ctzll(z) - (cf->f - 1));
		store_le64(p, w);
		return true;
	}
	read_bucket(cf, i, fps);
	for (uint32_t j = 0; j < cf->b; j++)
	{
		if (fps[j] == 0)
		{
			fps[j] = fp;
			write_bucket(cf, i, fps);
			return true;
		}
	}
	return false;
}

/* Removes one copy of fp from bucket i, if there is one (the first). */
static inline bool
bucket_take(cf_filter *cf, uint32_t i, uint32_t fp)
{
	uint32_t	fps[8];
	uint64_t	pos = (uint64_t) i * cf->bucket_bits;

	if (plain_word_bucket(cf, pos))
	{
		uint8_t    *p = cf->data + (pos >> 3);
		unsigned	sh = (unsigned) (pos & 7);
		uint64_t	w = load_le64(p);
		uint64_t	z = zero_fields(cf, ((w >> sh) & cf->bucket_mask) ^ (fp * cf->lo_ones));

		if (z == 0)
			return false;
		w &= ~((uint64_t) cf->fp_mask << (sh + (unsigned) __builtin_ctzll(z) - (cf->f - 1)));
		store_le64(p, w);
		return true;
	}
	read_bucket(cf, i, fps);
	for (uint32_t j = 0; j < cf->b; j++)
	{
		if (fps[j] == fp)
		{
			fps[j] = 0;
			write_bucket(cf, i, fps);
			return true;
		}
	}
	return false;
}

static inline bool
bucket_full(const cf_filter *cf, uint32_t i)
{
	uint32_t	fps[8];

	read_bucket(cf, i, fps);
	for (uint32_t j = 0; j < cf->b; j++)
		if (fps[j] == 0)
			return false;
	return true;
}

/* ------------------------------------------------------------------------
 * Bucket counts m = c * 2^k
 * ------------------------------------------------------------------------ */

static inline uint32_t
floor_log2_64(uint64_t v)
{
	uint32_t	r = 0;

	while (v >>= 1)
		r++;
	return r;
}

/* Splits m into c << k with c < 2^CF_MANTISSA_BITS (k = 0 for small m). */
static inline void
split_buckets(uint64_t m, uint32_t *c, uint32_t *k)
{
	uint32_t	lg = floor_log2_64(m);

	*k = lg >= CF_MANTISSA_BITS - 1 ? lg - (CF_MANTISSA_BITS - 1) : 0;
	*c = (uint32_t) (m >> *k);
}


/* ------------------------------------------------------------------------
 * Header fields the item operations read and write
 * ------------------------------------------------------------------------ */

static inline uint64_t
header_items(const cf_filter *cf)
{
	return rd64(cf->buf + CF_OFF_ITEMS);
}

static inline void
add_items(cf_filter *cf, int64_t delta)
{
	wr64(cf->buf + CF_OFF_ITEMS, rd64(cf->buf + CF_OFF_ITEMS) + (uint64_t) delta);
}

static inline bool
victim_in_use(const cf_filter *cf)
{
	return (cf->buf[CF_OFF_FLAGS] & CF_FLAG_VICTIM) != 0;
}

static inline bool
victim_matches(const cf_filter *cf, uint32_t fp, uint32_t i1, uint32_t i2)
{
	uint32_t	vb;

	if (!victim_in_use(cf) || rd32(cf->buf + CF_OFF_VICTIM_FP) != fp)
		return false;
	vb = rd32(cf->buf + CF_OFF_VICTIM_BUCKET);
	return vb == i1 || vb == i2;
}

static inline void
set_victim(cf_filter *cf, uint32_t bucket, uint32_t fp)
{
	cf->buf[CF_OFF_FLAGS] |= CF_FLAG_VICTIM;
	wr32(cf->buf + CF_OFF_VICTIM_BUCKET, bucket);
	wr32(cf->buf + CF_OFF_VICTIM_FP, fp);
}

static inline void
clear_victim(cf_filter *cf)
{
	cf->buf[CF_OFF_FLAGS] &= (uint8_t) ~CF_FLAG_VICTIM;
	wr32(cf->buf + CF_OFF_VICTIM_BUCKET, 0);
	wr32(cf->buf + CF_OFF_VICTIM_FP, 0);
}

/* ------------------------------------------------------------------------
 * Partial-key cuckoo hashing over m = c * 2^k buckets.
 *
 * A bucket index is i = (q << k) | r with q < c and r < 2^k.  The alternate
 * bucket of fingerprint fp in bucket (q, r) is
 *     q' = (Hq(fp) - q) mod c,    r' = r xor Hr(fp)
 * Both halves are involutions, so alt(alt(i)) = i for any c: no power-of-two
 * rounding.  Dropping the top bit of r maps a filter onto one of half the
 * size with the same pairs (used by shrink).
 * ------------------------------------------------------------------------ */

static inline void
locate(const cf_filter *cf, uint64_t h, uint32_t *fp, uint32_t *i1)
{
	/*
	 * q comes from the high half of h * an odd constant: for fixed low bits
	 * of h (which give fp) and fixed r, it is still uniform.
	 */
	uint32_t	q = fastrange32((uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32), cf->c);
	uint32_t	r = (uint32_t) (h >> 32) & cf->rmask;

	*fp = 1 + fastrange32((uint32_t) h, cf->fp_range);
	*i1 = (q << cf->k) | r;
}

static inline uint32_t
alt_bucket(const cf_filter *cf, uint32_t i, uint32_t fp)
{
	uint64_t	hf = fp_hash(fp);
	uint32_t	q = i >> cf->k;
	uint32_t	r = i & cf->rmask;
	uint32_t	hq = fastrange32((uint32_t) hf, cf->c);
	uint32_t	q2 = hq >= q ? hq - q : hq + cf->c - q;
	uint32_t	r2 = r ^ ((uint32_t) (hf >> 32) & cf->rmask);

	return (q2 << cf->k) | r2;
}


/* Asks the CPU to start loading the cache line of bucket i of a table. */
static CF_ALWAYS_INLINE void
prefetch_in(const uint8_t *data, uint32_t bucket_bits, uint32_t i)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(data + (((uint64_t) i * bucket_bits) >> 3), 0, 1);
#else
	(void) data;
	(void) bucket_bits;
	(void) i;
#endif
}

static CF_ALWAYS_INLINE void
prefetch_bucket(const cf_filter *cf, uint32_t i)
{
	prefetch_in(cf->data, cf->bucket_bits, i);
}


#endif							/* CF_INTERNAL_H */
