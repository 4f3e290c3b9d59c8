/*
 * cuckoo_core.c
 *     The cuckoo filter algorithm over the serialised byte layout: partial-key
 *     cuckoo hashing with a bucket count that need not be a power of two,
 *     packed and semi-sorted buckets, the victim slot, union, shrink,
 *     validation of untrusted bytes and the base64 text codec.
 *
 * No PostgreSQL header is used here (see cuckoo_core.h).  docs/DESIGN.md
 * explains the choices; docs/FORMAT.md the byte layout.
 */
#include "cuckoo_core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(__GNUC__) || defined(__clang__)
#define CF_NOINLINE __attribute__((noinline))
#define CF_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define CF_NOINLINE
#define CF_ALWAYS_INLINE inline
#endif

cf_interrupt_fn cf_interrupt_hook = NULL;

#define CF_CHECK_INTERRUPTS(i) \
	do { if (((i) & 0xFFFF) == 0 && cf_interrupt_hook) cf_interrupt_hook(); } while (0)

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

/* Header offsets (docs/FORMAT.md). */
#define OFF_MAGIC		0
#define OFF_VERSION		4
#define OFF_BSIZE		5
#define OFF_FPBITS		6
#define OFF_FLAGS		7
#define OFF_KIND		8
#define OFF_RESERVED	10
#define OFF_TAG			12
#define OFF_BUCKETS		16
#define OFF_KICKS		20
#define OFF_ITEMS		24
#define OFF_CAPACITY	32
#define OFF_VBUCKET		40
#define OFF_VFP			44

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

/* xorshift64*: the random victim choice.  Seeded per operation from the
 * item, so a filter's bytes depend only on its inputs. */
/* The hash of a fingerprint that places its alternate bucket. */
static inline uint64_t
fp_hash(uint32_t fp)
{
	uint64_t	x = (uint64_t) fp * UINT64_C(0xC2B2AE3D27D4EB4F);

	return x ^ (x >> 29);
}

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
 * Semi-sorting (paper section 5.2), b = 4 only.  The four 4-bit prefixes of
 * a bucket, sorted, are one of C(19,4) = 3876 multisets and are stored as
 * their 12-bit rank in the combinatorial number system; the remaining
 * f - 4 bits of each fingerprint follow in the same sorted order.
 * ------------------------------------------------------------------------ */

#define SS_CODES 3876

static uint16_t ss_decode[4096];	/* rank -> four nibbles (n0 lowest) */
static bool ss_ready = false;

static const uint16_t binom[20][5] = {
	/* C(n, r) for n < 20, r <= 4 */
	{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 2, 1, 0, 0}, {1, 3, 3, 1, 0},
	{1, 4, 6, 4, 1}, {1, 5, 10, 10, 5}, {1, 6, 15, 20, 15},
	{1, 7, 21, 35, 35}, {1, 8, 28, 56, 70}, {1, 9, 36, 84, 126},
	{1, 10, 45, 120, 210}, {1, 11, 55, 165, 330}, {1, 12, 66, 220, 495},
	{1, 13, 78, 286, 715}, {1, 14, 91, 364, 1001}, {1, 15, 105, 455, 1365},
	{1, 16, 120, 560, 1820}, {1, 17, 136, 680, 2380},
	{1, 18, 153, 816, 3060}, {1, 19, 171, 969, 3876}
};

/* Rank of a sorted nibble multiset n0 <= n1 <= n2 <= n3. */
static inline uint32_t
ss_rank(uint32_t n0, uint32_t n1, uint32_t n2, uint32_t n3)
{
	return binom[n0][1] + binom[n1 + 1][2] + binom[n2 + 2][3] + binom[n3 + 3][4];
}

static void
ss_init(void)
{
	if (ss_ready)
		return;
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++)
					ss_decode[ss_rank(a, b, c, d)] =
						(uint16_t) (a | (b << 4) | (c << 8) | (d << 12));
	ss_ready = true;
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
		uint32_t	nib = ss_decode[get_bits(cf->data, pos, 12)];
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
	uint32_t	xn = ss_decode[w & 0xFFF] ^ ((fp >> lb) * 0x1111u);
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

static CF_NOINLINE bool
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
 * Sizing
 * ------------------------------------------------------------------------ */

/*
 * The load factor a filter is sized for.  Below the load at which inserts
 * start to fail (about 0.84, 0.955 and 0.98 for b = 2, 4, 8; see
 * bench/core and docs/DESIGN.md) with a margin so that a filter filled to
 * its rated capacity practically never fails.
 */
double
cf_target_load(uint32_t bucket_size)
{
	switch (bucket_size)
	{
		case 2:
			return 0.80;
		case 4:
			return 0.94;
		default:
			return 0.97;
	}
}

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

bool
cf_buckets_representable(uint64_t m)
{
	uint32_t	c,
				k;

	if (m < 1 || m > UINT32_MAX)
		return false;
	split_buckets(m, &c, &k);
	return ((uint64_t) c << k) == m;
}

uint32_t
cf_round_buckets(uint64_t min_buckets)
{
	uint32_t	c,
				k;
	uint64_t	cc;

	if (min_buckets < 1)
		min_buckets = 1;
	if (min_buckets > UINT32_MAX)
		return 0;
	split_buckets(min_buckets, &c, &k);
	cc = (min_buckets + ((UINT64_C(1) << k) - 1)) >> k;
	if (k > 0 && cc == (UINT64_C(1) << CF_MANTISSA_BITS))
	{
		cc >>= 1;
		k++;
	}
	if ((cc << k) > UINT32_MAX)
		return 0;
	return (uint32_t) (cc << k);
}

/*
 * Buckets for a filter that must hold `capacity` items.  Large tables are
 * sized at the target load; small ones get a few buckets of slack, because
 * the load at which a small table fails varies much more from run to run.
 */
uint32_t
cf_buckets_for_capacity(uint64_t capacity, uint32_t bucket_size)
{
	double		load = cf_target_load(bucket_size);
	double		need;

	if (capacity <= bucket_size)
		return 1;
	need = ceil((double) capacity / (bucket_size * load));
	/* slack for small tables: with it, 2,000 fills per size from 5 to 10^5
	 * items saw no failure for b = 4, 8 (b = 2 needs twice as much) */
	need += ceil((bucket_size == 2 ? 2.0 : 1.0) * sqrt(need));
	if (need > (double) UINT32_MAX)
		return 0;
	return cf_round_buckets((uint64_t) need);
}

double
cf_expected_fpr(uint32_t bucket_size, uint32_t fp_bits, double load)
{
	double		range = ldexp(1.0, (int) fp_bits) - 1.0;

	if (load <= 0)
		return 0.0;
	/* each of up to 2b occupied entries matches with probability 1/range */
	return -expm1(2.0 * bucket_size * load * log1p(-1.0 / range));
}

int
cf_fp_bits_for_fpr(double fpr, uint32_t bucket_size)
{
	double		load = cf_target_load(bucket_size);

	for (int f = CF_MIN_FP_BITS; f <= CF_MAX_FP_BITS; f++)
		if (cf_expected_fpr(bucket_size, (uint32_t) f, load) <= fpr)
			return f;
	return -1;
}

size_t
cf_bucket_bits(uint32_t bucket_size, uint32_t fp_bits, bool semisort)
{
	return semisort ? 4 * ((size_t) fp_bits - 1) : (size_t) bucket_size * fp_bits;
}

/* Sizes are 64-bit everywhere, so no size_t can wrap on a 32-bit build. */
uint64_t
cf_data_bytes(uint64_t m, uint32_t bucket_size, uint32_t fp_bits, bool semisort)
{
	uint64_t	bits = m * cf_bucket_bits(bucket_size, fp_bits, semisort);

	return ((bits + 63) / 64) * 8 + 8;
}

uint64_t
cf_total_bytes(uint64_t m, uint32_t bucket_size, uint32_t fp_bits, bool semisort)
{
	return CF_HEADER_SIZE + cf_data_bytes(m, bucket_size, fp_bits, semisort);
}

/* ------------------------------------------------------------------------
 * Construction, views, validation
 * ------------------------------------------------------------------------ */

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

bool
cf_check_params(const cf_params *p, char *err, size_t errlen)
{
	if (p->bucket_size != 2 && p->bucket_size != 4 && p->bucket_size != 8)
		ERR("bucket size %u is not 2, 4 or 8", p->bucket_size);
	if (p->fp_bits < CF_MIN_FP_BITS || p->fp_bits > CF_MAX_FP_BITS)
		ERR("fingerprint size %u is outside the range %d to %d bits",
			p->fp_bits, CF_MIN_FP_BITS, CF_MAX_FP_BITS);
	if (p->semisort && p->bucket_size != 4)
		ERR("semi-sorting needs bucket size 4, not %u", p->bucket_size);
	if (!cf_buckets_representable(p->num_buckets))
		ERR("bucket count %u is not of the form c * 2^k with c < 256",
			p->num_buckets);
	if (p->max_kicks > CF_MAX_KICKS_LIMIT)
		ERR("max kicks %u is outside the range 0 to %d",
			p->max_kicks, CF_MAX_KICKS_LIMIT);
	if (p->kind > CF_KIND_MAX)
		ERR("value kind %u is unknown", (unsigned) p->kind);
	if ((p->kind == CF_KIND_OTHER) != (p->type_tag != 0))
		ERR("type tag %u does not match value kind %u",
			p->type_tag, (unsigned) p->kind);
	if (p->capacity < 1 || p->capacity > (uint64_t) p->num_buckets * p->bucket_size)
		ERR("capacity %llu is outside the range 1 to %llu for %u buckets",
			(unsigned long long) p->capacity,
			(unsigned long long) p->num_buckets * p->bucket_size,
			p->num_buckets);
	if (cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort) > CF_MAX_BYTES)
		ERR("a filter of %u buckets would take %llu bytes, more than the limit of %llu",
			p->num_buckets,
			(unsigned long long) cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort),
			(unsigned long long) CF_MAX_BYTES);
	return true;
}

void
cf_init(void *buf, const cf_params *p)
{
	uint8_t    *h = buf;
	size_t		len = (size_t) cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort);

	memset(h, 0, len);
	wr32(h + OFF_MAGIC, CF_MAGIC);
	h[OFF_VERSION] = CF_VERSION;
	h[OFF_BSIZE] = (uint8_t) p->bucket_size;
	h[OFF_FPBITS] = (uint8_t) p->fp_bits;
	h[OFF_FLAGS] = p->semisort ? CF_FLAG_SEMISORT : 0;
	wr16(h + OFF_KIND, p->kind);
	wr32(h + OFF_TAG, p->type_tag);
	wr32(h + OFF_BUCKETS, p->num_buckets);
	wr32(h + OFF_KICKS, p->max_kicks);
	wr64(h + OFF_CAPACITY, p->capacity);
}

void
cf_open(cf_filter *cf, const void *buf, size_t len)
{
	const uint8_t *h = buf;

	ss_init();
	cf->buf = (uint8_t *) buf;
	cf->len = len;
	cf->data = cf->buf + CF_HEADER_SIZE;
	cf->m = rd32(h + OFF_BUCKETS);
	split_buckets(cf->m, &cf->c, &cf->k);
	cf->rmask = (1u << cf->k) - 1;
	cf->b = h[OFF_BSIZE];
	cf->f = h[OFF_FPBITS];
	cf->semisort = (h[OFF_FLAGS] & CF_FLAG_SEMISORT) != 0;
	cf->fp_range = (uint32_t) ((UINT64_C(1) << cf->f) - 1);
	cf->fp_mask = cf->fp_range;
	cf->low_bits = cf->semisort ? cf->f - 4 : 0;
	cf->bucket_bits = (uint32_t) cf_bucket_bits(cf->b, cf->f, cf->semisort);
	cf->max_kicks = rd32(h + OFF_KICKS);
	cf->lo_ones = 0;
	cf->hi_bits = 0;
	for (uint32_t j = 0; j < cf->b && (uint64_t) (j + 1) * cf->f <= 64; j++)
	{
		cf->lo_ones |= UINT64_C(1) << (j * cf->f);
		cf->hi_bits |= UINT64_C(1) << (j * cf->f + cf->f - 1);
	}
	cf->bucket_mask = cf->bucket_bits >= 64 ? ~UINT64_C(0) :
		(UINT64_C(1) << cf->bucket_bits) - 1;
	cf->word_probe = !cf->semisort && cf->bucket_bits + 7 <= 64;
	cf->ss_word_probe = cf->semisort && cf->bucket_bits + 7 <= 64;
	cf->ss_lo_ones = 0;
	cf->ss_hi_bits = 0;
	if (cf->semisort && cf->low_bits > 0 && cf->low_bits <= 13)
	{
		for (uint32_t j = 0; j < 4; j++)
		{
			cf->ss_lo_ones |= UINT64_C(1) << (j * cf->low_bits);
			cf->ss_hi_bits |= UINT64_C(1) << (j * cf->low_bits + cf->low_bits - 1);
		}
	}
}

void
cf_get_params(const cf_filter *cf, cf_params *p)
{
	p->num_buckets = cf->m;
	p->bucket_size = cf->b;
	p->fp_bits = cf->f;
	p->semisort = cf->semisort;
	p->max_kicks = cf->max_kicks;
	p->kind = cf_kind_of(cf);
	p->type_tag = cf_type_tag(cf);
	p->capacity = cf_capacity(cf);
}

/*
 * The checks that need only the header: everything but the bucket contents.
 * O(1); enough to make every later access stay inside the buffer.
 */
bool
cf_check_header(const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *h = buf;
	cf_params	p;
	uint8_t		flags;
	uint64_t	want;

	if (len < CF_HEADER_SIZE)
		ERR("%zu bytes is shorter than the %d-byte header", len, CF_HEADER_SIZE);
	if (rd32(h + OFF_MAGIC) != CF_MAGIC)
		ERR("wrong magic number 0x%08x", rd32(h + OFF_MAGIC));
	if (h[OFF_VERSION] != CF_VERSION)
		ERR("format version %u is not supported (this build reads version %d)",
			h[OFF_VERSION], CF_VERSION);
	flags = h[OFF_FLAGS];
	if (flags & ~CF_FLAGS_KNOWN)
		ERR("unknown flag bits 0x%02x", flags & ~CF_FLAGS_KNOWN);
	if (rd16(h + OFF_RESERVED) != 0)
		ERR("reserved header field is not zero");
	p.bucket_size = h[OFF_BSIZE];
	p.fp_bits = h[OFF_FPBITS];
	p.semisort = (flags & CF_FLAG_SEMISORT) != 0;
	p.kind = rd16(h + OFF_KIND);
	p.type_tag = rd32(h + OFF_TAG);
	p.num_buckets = rd32(h + OFF_BUCKETS);
	p.max_kicks = rd32(h + OFF_KICKS);
	p.capacity = rd64(h + OFF_CAPACITY);
	if (!cf_check_params(&p, err, errlen))
		return false;
	want = cf_total_bytes(p.num_buckets, p.bucket_size, p.fp_bits, p.semisort);
	if ((uint64_t) len != want)
		ERR("length %zu does not match the %llu bytes that %u buckets need",
			len, (unsigned long long) want, p.num_buckets);
	if (rd64(h + OFF_ITEMS) > (uint64_t) p.num_buckets * p.bucket_size + 1)
		ERR("item count %llu exceeds the %llu entries of the table",
			(unsigned long long) rd64(h + OFF_ITEMS),
			(unsigned long long) p.num_buckets * p.bucket_size + 1);
	if (flags & CF_FLAG_VICTIM)
	{
		uint32_t	vb = rd32(h + OFF_VBUCKET);
		uint32_t	vfp = rd32(h + OFF_VFP);

		if (vb >= p.num_buckets)
			ERR("victim bucket %u is outside the %u buckets", vb, p.num_buckets);
		if (vfp == 0 || (uint64_t) vfp >= (UINT64_C(1) << p.fp_bits))
			ERR("victim fingerprint %u is not a valid %u-bit fingerprint",
				vfp, p.fp_bits);
	}
	else if (rd32(h + OFF_VBUCKET) != 0 || rd32(h + OFF_VFP) != 0)
		ERR("victim fields are set but the victim flag is not");
	return true;
}

/*
 * Full validation of untrusted bytes: the header checks plus every bucket,
 * the padding and the agreement of the item count with the table.
 */
bool
cf_validate(const void *buf, size_t len, char *err, size_t errlen)
{
	cf_filter	cf;
	uint64_t	count = 0;
	uint64_t	used_bits;
	uint64_t	items;

	if (!cf_check_header(buf, len, err, errlen))
		return false;
	cf_open(&cf, buf, len);

	for (uint32_t i = 0; i < cf.m; i++)
	{
		uint32_t	fps[8];

		CF_CHECK_INTERRUPTS(i);
		if (!cf.semisort)
		{
			uint64_t	pos = (uint64_t) i * cf.bucket_bits;
			unsigned	sh = (unsigned) (pos & 7);

			if (sh + cf.bucket_bits <= 64)
			{
				/* count the empty entries of the bucket word: an exact
				 * zero-field test, ~(((w & low) + low) | w) & high */
				uint64_t	w = (load_le64(cf.data + (pos >> 3)) >> sh) & cf.bucket_mask;
				uint64_t	low = cf.hi_bits - cf.lo_ones;
				uint64_t	z = ~(((w & low) + low) | w) & cf.hi_bits;

				count += cf.b - (uint32_t) popcount64(z);
				continue;
			}
		}
		if (cf.semisort)
		{
			uint32_t	code = get_bits(cf.data, (uint64_t) i * cf.bucket_bits, 12);

			if (code >= SS_CODES)
				ERR("bucket %u has semi-sort code %u, above the largest (%d)",
					i, code, SS_CODES - 1);
			read_bucket(&cf, i, fps);
			for (uint32_t j = 0; j + 1 < 4; j++)
				if (fps[j] > fps[j + 1])
					ERR("bucket %u is not in semi-sorted order", i);
		}
		else
			read_bucket(&cf, i, fps);
		for (uint32_t j = 0; j < cf.b; j++)
			count += (fps[j] != 0);
	}

	/* bits after the last bucket, up to the end of the buffer, are zero */
	used_bits = (uint64_t) cf.m * cf.bucket_bits;
	for (uint64_t pos = used_bits; pos < (uint64_t) (len - CF_HEADER_SIZE) * 8;)
	{
		uint64_t	byte = pos >> 3;
		uint32_t	sh = (uint32_t) (pos & 7);

		if ((cf.data[byte] >> sh) != 0)
			ERR("padding after the bucket array is not zero");
		pos = (byte + 1) * 8;
	}

	if (cf_victim_used(&cf))
	{
		uint32_t	vb = rd32(cf.buf + OFF_VBUCKET);
		uint32_t	vfp = rd32(cf.buf + OFF_VFP);

		count++;
		if (!bucket_full(&cf, vb) || !bucket_full(&cf, cf_alt_bucket(&cf, vb, vfp)))
			ERR("victim slot is in use although its buckets have room");
	}
	items = cf_items(&cf);
	if (items != count)
		ERR("item count %llu disagrees with the %llu fingerprints in the table",
			(unsigned long long) items, (unsigned long long) count);
	if (cf_kind_of(&cf) == CF_KIND_ANY && items != 0)
		ERR("a filter with items must record the kind of value it holds");
	return true;
}

/* ------------------------------------------------------------------------
 * Header accessors
 * ------------------------------------------------------------------------ */

uint64_t
cf_items(const cf_filter *cf)
{
	return rd64(cf->buf + OFF_ITEMS);
}

static inline void
add_items(cf_filter *cf, int64_t delta)
{
	wr64(cf->buf + OFF_ITEMS, rd64(cf->buf + OFF_ITEMS) + (uint64_t) delta);
}

uint64_t
cf_capacity(const cf_filter *cf)
{
	return rd64(cf->buf + OFF_CAPACITY);
}

uint16_t
cf_kind_of(const cf_filter *cf)
{
	return rd16(cf->buf + OFF_KIND);
}

uint32_t
cf_type_tag(const cf_filter *cf)
{
	return rd32(cf->buf + OFF_TAG);
}

void
cf_set_kind(cf_filter *cf, uint16_t kind, uint32_t type_tag)
{
	wr16(cf->buf + OFF_KIND, kind);
	wr32(cf->buf + OFF_TAG, type_tag);
}

bool
cf_victim_used(const cf_filter *cf)
{
	return (cf->buf[OFF_FLAGS] & CF_FLAG_VICTIM) != 0;
}

static inline bool
victim_matches(const cf_filter *cf, uint32_t fp, uint32_t i1, uint32_t i2)
{
	uint32_t	vb;

	if (!cf_victim_used(cf) || rd32(cf->buf + OFF_VFP) != fp)
		return false;
	vb = rd32(cf->buf + OFF_VBUCKET);
	return vb == i1 || vb == i2;
}

static inline void
set_victim(cf_filter *cf, uint32_t bucket, uint32_t fp)
{
	cf->buf[OFF_FLAGS] |= CF_FLAG_VICTIM;
	wr32(cf->buf + OFF_VBUCKET, bucket);
	wr32(cf->buf + OFF_VFP, fp);
}

static inline void
clear_victim(cf_filter *cf)
{
	cf->buf[OFF_FLAGS] &= (uint8_t) ~CF_FLAG_VICTIM;
	wr32(cf->buf + OFF_VBUCKET, 0);
	wr32(cf->buf + OFF_VFP, 0);
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

/*
 * The first kick, breadth-first: if an entry of bucket i1 or i2 has room in
 * its own alternate bucket, it moves there and fp takes its place.  The (up
 * to) 2b alternate buckets are requested from memory together, so this costs
 * about one memory round trip where each step of a random walk costs one of
 * its own; near full load it settles most inserts that need a kick.  Filling
 * 2.6M buckets to load 0.95 took 72-91 ns per insert instead of 116-139 ns
 * here (alternating runs).  Deterministic: candidates are tried in bucket and
 * slot order.  Counts as the first of max_kicks.
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
static cf_status
insert_fp(cf_filter *cf, uint32_t i1, uint32_t fp, uint64_t seed, bool check_copies)
{
	uint32_t	i2 = alt_bucket(cf, i1, fp);
	uint32_t	i;
	uint64_t	rng;

	if (bucket_place(cf, i1, fp) || (i2 != i1 && bucket_place(cf, i2, fp)))
	{
		add_items(cf, 1);
		return CF_OK;
	}
	if (check_copies && pair_only_fp(cf, i1, i2, fp))
		return CF_TOO_MANY_COPIES;
	if (cf_victim_used(cf))
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

cf_status
cf_insert(cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1;

	locate(cf, h, &fp, &i1);
	return insert_fp(cf, i1, fp, h ^ cf_items(cf), true);
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

bool
cf_contains(const cf_filter *cf, uint64_t h)
{
	word_probe	w;
	uint32_t	fp,
				i1,
				i2;

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
		return (ss_word_has_fp(cf, w1, fp) | ss_word_has_fp(cf, w2, fp)) ||
			victim_matches(cf, fp, i1, i2);
	}
	return contains_general(cf, h);
}

/*
 * Lookups of n hashes, pipelined: the buckets of lookup j + CF_BATCH_AHEAD
 * are requested while lookup j is answered, so up to 2 * CF_BATCH_AHEAD
 * cache misses are in flight instead of one or two.
 */
void
cf_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out)
{
	uint32_t	fps[CF_BATCH_AHEAD],
				b1[CF_BATCH_AHEAD],
				b2[CF_BATCH_AHEAD];
	size_t		ahead = n < CF_BATCH_AHEAD ? n : CF_BATCH_AHEAD;
	word_probe	w;

	if (!cf->word_probe)
	{
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
static uint32_t
pair_count(const cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
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

	locate(cf, h, &fp, &i1);
	return pair_count(cf, i1, alt_bucket(cf, i1, fp), fp);
}

/* After an entry was freed, moves the victim back into the table if it can. */
static void
reinsert_victim(cf_filter *cf)
{
	uint32_t	vb,
				vfp;

	if (!cf_victim_used(cf))
		return;
	vb = rd32(cf->buf + OFF_VBUCKET);
	vfp = rd32(cf->buf + OFF_VFP);
	clear_victim(cf);
	add_items(cf, -1);
	(void) insert_fp(cf, vb, vfp, cf_items(cf), false);
}

bool
cf_remove(cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1,
				i2;

	locate(cf, h, &fp, &i1);
	i2 = alt_bucket(cf, i1, fp);
	if (bucket_take(cf, i1, fp) || (i2 != i1 && bucket_take(cf, i2, fp)))
	{
		add_items(cf, -1);
		reinsert_victim(cf);
		return true;
	}
	if (victim_matches(cf, fp, i1, i2))
	{
		clear_victim(cf);
		add_items(cf, -1);
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * Union and shrink
 * ------------------------------------------------------------------------ */

static bool
same_shape(const cf_filter *a, const cf_filter *b)
{
	return a->m == b->m && a->b == b->b && a->f == b->f &&
		a->semisort == b->semisort;
}

/* Raises dst's copies of fp in the pair (i, alt) to src's, if fewer. */
static cf_status
union_key(cf_filter *dst, const cf_filter *src, uint32_t i, uint32_t a, uint32_t fp)
{
	uint32_t	want = pair_count(src, i, a, fp);
	uint32_t	have = pair_count(dst, i, a, fp);

	for (; have < want; have++)
	{
		cf_status	st = insert_fp(dst, i, fp, cf_items(dst), false);

		if (st != CF_OK && st != CF_OK_STASHED)
			return st;
	}
	return CF_OK;
}

/*
 * dst := dst union src, for filters of the same shape.  Each (bucket pair,
 * fingerprint) key ends up with the larger of its two copy counts: the
 * multiset union, so a value present in both is stored once, not twice.
 * dst may be left partly merged when CF_FULL is returned.
 */
cf_status
cf_union_into(cf_filter *dst, const cf_filter *src)
{
	uint16_t	dk = cf_kind_of(dst),
				sk = cf_kind_of(src);

	if (!same_shape(dst, src))
		return CF_SHAPE_MISMATCH;
	if (sk != CF_KIND_ANY && dk != CF_KIND_ANY &&
		(sk != dk || cf_type_tag(src) != cf_type_tag(dst)))
		return CF_KIND_MISMATCH;
	if (dk == CF_KIND_ANY && cf_items(src) > 0)
		cf_set_kind(dst, sk, cf_type_tag(src));
	if (cf_capacity(src) > cf_capacity(dst))
		wr64(dst->buf + OFF_CAPACITY, cf_capacity(src));

	for (uint32_t i = 0; i < src->m; i++)
	{
		uint32_t	fps[8];

		CF_CHECK_INTERRUPTS(i);
		read_bucket(src, i, fps);
		for (uint32_t j = 0; j < src->b; j++)
		{
			uint32_t	fp = fps[j];
			uint32_t	a;
			bool		seen = false;
			cf_status	st;

			if (fp == 0)
				continue;
			for (uint32_t t = 0; t < j; t++)
				seen |= (fps[t] == fp);
			if (seen)
				continue;		/* same key earlier in this bucket */
			a = alt_bucket(src, i, fp);
			if (a < i && bucket_has_fp(src, a, fp))
				continue;		/* key was merged at bucket a */
			st = union_key(dst, src, i, a, fp);
			if (st != CF_OK)
				return st;
		}
	}
	if (cf_victim_used(src))
	{
		uint32_t	vb = rd32(src->buf + OFF_VBUCKET);
		uint32_t	vfp = rd32(src->buf + OFF_VFP);
		uint32_t	a = alt_bucket(src, vb, vfp);

		if (!bucket_has_fp(src, vb, vfp) && !bucket_has_fp(src, a, vfp))
		{
			cf_status	st = union_key(dst, src, vb, a, vfp);

			if (st != CF_OK)
				return st;
		}
	}
	return CF_OK;
}

/*
 * The smallest bucket count, reachable by halving (m = c * 2^k, smaller k),
 * that holds the current items at the target load.  Returns m itself when
 * the filter cannot get smaller.
 */
uint32_t
cf_shrink_target(const cf_filter *cf)
{
	uint64_t	items = cf_items(cf);
	double		load = cf_target_load(cf->b);

	for (uint32_t k = 0; k < cf->k; k++)
	{
		uint64_t	m = (uint64_t) cf->c << k;

		if ((double) items <= floor((double) m * cf->b * load))
			return (uint32_t) m;
	}
	return cf->m;
}

/*
 * Moves every fingerprint of src into the empty filter dst, which has the same
 * c, b, f and layout and k no larger than src's.  The bucket an entry lies in
 * is folded by dropping high bits of r; that is one of its two buckets in dst.
 */
cf_status
cf_rehash_into(const cf_filter *src, cf_filter *dst)
{
	if (dst->c != src->c || dst->k > src->k || dst->b != src->b ||
		dst->f != src->f || dst->semisort != src->semisort)
		return CF_SHAPE_MISMATCH;

	for (uint32_t i = 0; i < src->m; i++)
	{
		uint32_t	fps[8];
		uint32_t	ni = ((i >> src->k) << dst->k) | (i & dst->rmask);

		CF_CHECK_INTERRUPTS(i);
		read_bucket(src, i, fps);
		for (uint32_t j = 0; j < src->b; j++)
		{
			cf_status	st;

			if (fps[j] == 0)
				continue;
			st = insert_fp(dst, ni, fps[j], cf_items(dst), false);
			if (st != CF_OK && st != CF_OK_STASHED)
				return st;
		}
	}
	if (cf_victim_used(src))
	{
		uint32_t	vb = rd32(src->buf + OFF_VBUCKET);
		uint32_t	ni = ((vb >> src->k) << dst->k) | (vb & dst->rmask);
		cf_status	st = insert_fp(dst, ni, rd32(src->buf + OFF_VFP),
								   cf_items(dst), false);

		if (st != CF_OK && st != CF_OK_STASHED)
			return st;
	}
	return CF_OK;
}

/* ------------------------------------------------------------------------
 * Base64 (RFC 4648, standard alphabet, with padding), strict on input.
 * ------------------------------------------------------------------------ */

static const char b64chars[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
cf_b64_encoded_len(size_t n)
{
	return ((n + 2) / 3) * 4;
}

void
cf_b64_encode(const uint8_t *src, size_t n, char *dst)
{
	size_t		i = 0;

	for (; i + 3 <= n; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = b64chars[v & 63];
	}
	if (n - i == 1)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = '=';
		*dst++ = '=';
	}
	else if (n - i == 2)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8);

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = '=';
	}
}

/* Character -> 6-bit value; 0x80 marks every other character ('=' too). */
static uint8_t b64lut[256];
static bool b64lut_ready = false;

static void
b64_init(void)
{
	if (b64lut_ready)
		return;
	memset(b64lut, 0x80, sizeof(b64lut));
	for (int i = 0; i < 64; i++)
		b64lut[(unsigned char) b64chars[i]] = (uint8_t) i;
	b64lut_ready = true;
}

bool
cf_b64_decoded_len(const char *src, size_t n, size_t *out)
{
	size_t		pad = 0;

	if (n == 0 || n % 4 != 0)
		return false;
	if (src[n - 1] == '=')
		pad++;
	if (src[n - 2] == '=')
		pad++;
	*out = n / 4 * 3 - pad;
	return true;
}

/*
 * Decodes exactly n characters; false on any character, padding or trailing
 * bit that a canonical encoder would not have produced.  The full groups go
 * through a lookup table, four characters and one validity test at a time.
 */
bool
cf_b64_decode(const char *src, size_t n, uint8_t *dst)
{
	const unsigned char *s = (const unsigned char *) src;
	size_t		full;
	uint32_t	a,
				b,
				c,
				d;

	if (n == 0 || n % 4 != 0)
		return false;
	b64_init();
	full = n - 4;				/* the last group may carry padding */
	for (size_t i = 0; i < full; i += 4)
	{
		a = b64lut[s[i]];
		b = b64lut[s[i + 1]];
		c = b64lut[s[i + 2]];
		d = b64lut[s[i + 3]];
		if ((a | b | c | d) & 0x80)
			return false;
		a = (a << 18) | (b << 12) | (c << 6) | d;
		dst[0] = (uint8_t) (a >> 16);
		dst[1] = (uint8_t) (a >> 8);
		dst[2] = (uint8_t) a;
		dst += 3;
	}
	s += full;
	a = b64lut[s[0]];
	b = b64lut[s[1]];
	if ((a | b) & 0x80)
		return false;
	if (s[2] == '=' && s[3] == '=')
	{
		if (b & 15)
			return false;
		*dst = (uint8_t) ((a << 2) | (b >> 4));
		return true;
	}
	c = b64lut[s[2]];
	if (c & 0x80)
		return false;
	if (s[3] == '=')
	{
		if (c & 3)
			return false;
		dst[0] = (uint8_t) ((a << 2) | (b >> 4));
		dst[1] = (uint8_t) (((b & 15) << 4) | (c >> 2));
		return true;
	}
	d = b64lut[s[3]];
	if (d & 0x80)
		return false;
	dst[0] = (uint8_t) ((a << 2) | (b >> 4));
	dst[1] = (uint8_t) (((b & 15) << 4) | (c >> 2));
	dst[2] = (uint8_t) (((c & 3) << 6) | d);
	return true;
}

const char *
cf_kind_name(uint16_t kind)
{
	static const char *const names[] = {
		"any", "integer", "numeric", "text", "bytea", "uuid", "date",
		"timestamp", "timestamptz", "boolean", "float", "other"
	};

	return kind <= CF_KIND_MAX ? names[kind] : "unknown";
}
