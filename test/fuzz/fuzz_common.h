/*
 * fuzz_common.h
 *     Helpers shared by the libFuzzer harnesses and the corpus generator:
 *     a check macro that aborts (so libFuzzer records the input), exact-size
 *     copies, an independent reading of the byte layout of docs/FORMAT.md
 *     (bucket decoding, a reference validator) and a search for a 64-bit hash
 *     that lands on a given (bucket, fingerprint).
 *
 * The layout code here is written from docs/FORMAT.md, not from
 * cuckoo_core.c, so that the harnesses compare the implementation with the
 * spec; item placement (cf_locate, cf_alt_bucket) is taken from the core.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf.h"

#define FZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "\n*** CHECK FAILED at %s:%d: %s\n*** ", \
					__FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

/* Header offsets (docs/FORMAT.md). */
#define FZ_MAGIC	0
#define FZ_VERSION	4
#define FZ_BSIZE	5
#define FZ_FPBITS	6
#define FZ_FLAGS	7
#define FZ_KIND		8
#define FZ_RESERVED	10
#define FZ_TAG		12
#define FZ_BUCKETS	16
#define FZ_KICKS	20
#define FZ_ITEMS	24
#define FZ_CAPACITY	32
#define FZ_VBUCKET	40
#define FZ_VFP		44

static inline uint32_t
fz_g16(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8);
}

static inline uint32_t
fz_g32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline uint64_t
fz_g64(const uint8_t *p)
{
	return (uint64_t) fz_g32(p) | ((uint64_t) fz_g32(p + 4) << 32);
}

static inline void
fz_p32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static inline void
fz_p64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* An exact-size heap copy (ASan then catches a read one byte past the end). */
static inline uint8_t *
fz_dup(const void *src, size_t n)
{
	uint8_t    *p = malloc(n ? n : 1);

	FZ_CHECK(p != NULL, "out of memory (%zu bytes)", n);
	if (n)
		memcpy(p, src, n);
	return p;
}

/* splitmix64 finaliser: the fixed function that turns small indices into
 * well-spread 64-bit item hashes. */
static inline uint64_t
fz_mix(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/* ---- geometry per docs/FORMAT.md ---- */

typedef struct fz_geom
{
	uint32_t	m,
				c,
				k,
				b,
				f;
	bool		semisort;
	uint64_t	bucket_bits;
} fz_geom;

static inline void
fz_split(uint32_t m, uint32_t *c, uint32_t *k)
{
	uint32_t	lg = 0;

	for (uint64_t v = m; v > 1; v >>= 1)
		lg++;
	*k = lg >= 7 ? lg - 7 : 0;
	*c = m >> *k;
}

static inline void
fz_geom_from_header(const uint8_t *buf, fz_geom *g)
{
	g->m = fz_g32(buf + FZ_BUCKETS);
	fz_split(g->m, &g->c, &g->k);
	g->b = buf[FZ_BSIZE];
	g->f = buf[FZ_FPBITS];
	g->semisort = (buf[FZ_FLAGS] & 1) != 0;
	g->bucket_bits = g->semisort ? 4 * ((uint64_t) g->f - 1) : (uint64_t) g->b * g->f;
}

static inline uint64_t
fz_total_bytes(uint64_t m, uint64_t bucket_bits)
{
	return 48 + (m * bucket_bits + 63) / 64 * 8 + 8;
}

/* Field of w bits at bit position p of the array, LSB first, bit by bit. */
static inline uint32_t
fz_field(const uint8_t *data, uint64_t p, uint32_t w)
{
	uint32_t	v = 0;

	for (uint32_t j = 0; j < w; j++)
		v |= (uint32_t) ((data[(p + j) >> 3] >> ((p + j) & 7)) & 1) << j;
	return v;
}

/* Semi-sort ranks: nibble multiset <-> 12-bit rank (docs/FORMAT.md). */
static uint16_t fz_ss_nib[4096];	/* rank -> n0 | n1<<4 | n2<<8 | n3<<12 */
static bool fz_ss_valid[4096];

static inline uint32_t
fz_binom(uint32_t n, uint32_t r)
{
	uint64_t	v = 1;

	if (r > n)
		return 0;
	for (uint32_t i = 1; i <= r; i++)
		v = v * (n - r + i) / i;
	return (uint32_t) v;
}

static inline void
fz_ss_init(void)
{
	static bool done = false;

	if (done)
		return;
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++)
				{
					uint32_t	r = fz_binom(a, 1) + fz_binom(b + 1, 2) +
						fz_binom(c + 2, 3) + fz_binom(d + 3, 4);

					FZ_CHECK(r < 3876 && !fz_ss_valid[r], "semi-sort rank table");
					fz_ss_valid[r] = true;
					fz_ss_nib[r] = (uint16_t) (a | (b << 4) | (c << 8) | (d << 12));
				}
	done = true;
}

/* Decodes bucket i; returns false if a semi-sorted bucket has a bad code. */
static inline bool
fz_read_bucket(const uint8_t *buf, const fz_geom *g, uint32_t i, uint32_t *fps)
{
	const uint8_t *data = buf + 48;
	uint64_t	pos = (uint64_t) i * g->bucket_bits;

	if (!g->semisort)
	{
		for (uint32_t j = 0; j < g->b; j++)
			fps[j] = fz_field(data, pos + (uint64_t) j * g->f, g->f);
		return true;
	}
	else
	{
		uint32_t	code = fz_field(data, pos, 12);
		uint32_t	lb = g->f - 4;

		fz_ss_init();
		if (code >= 3876)
			return false;
		for (uint32_t j = 0; j < 4; j++)
			fps[j] = (((uint32_t) (fz_ss_nib[code] >> (4 * j)) & 15) << lb) |
				fz_field(data, pos + 12 + (uint64_t) j * lb, lb);
		return true;
	}
}

/*
 * Where items go (fingerprint, first bucket, alternate bucket) is the core's
 * hashing, which this file does not restate: it uses cf_locate and
 * cf_alt_bucket.  What is checked independently is the byte layout and the
 * rules of docs/FORMAT.md, and that the core's answers agree with the table
 * as decoded here.
 */

static inline uint32_t
fz_fp_range(uint32_t f)
{
	return (uint32_t) ((UINT64_C(1) << f) - 1);
}

/*
 * A 64-bit hash h with cf_locate(h) = (fp, i), by search.  The search
 * assumes the low 32 bits of h choose fp monotonically and bits 32..32+k-1
 * are r (docs/FORMAT.md), and tries the other high bits for q; every
 * candidate is confirmed with cf_locate, so a change of hashing can make
 * this fail (false) but never lie.
 */
static inline bool
fz_find_hash(const cf_filter *cf, uint32_t i, uint32_t fp, uint64_t *out)
{
	uint32_t	range = cf->fp_range;
	uint64_t	lo = (((uint64_t) (fp - 1) << 32) + range - 1) / range;
	uint32_t	k = cf->k;
	uint32_t	r = i & ((1u << k) - 1);
	uint64_t	tmax = UINT64_C(1) << (32 - k);
	int			tries = 0;

	for (; lo <= UINT32_MAX && tries < 20000; lo++)
	{
		uint32_t	tfp,
					ti;

		cf_locate(cf, lo, &tfp, &ti);
		if (tfp != fp)
			break;
		for (uint64_t t = 0; t < tmax && tries < 20000; t++, tries++)
		{
			uint64_t	h = ((((t << k) | r) & 0xFFFFFFFFu) << 32) | lo;

			cf_locate(cf, h, &tfp, &ti);
			if (tfp == fp && ti == i)
			{
				*out = h;
				return true;
			}
		}
	}
	return false;
}

/*
 * Reference validator written from docs/FORMAT.md.  Returns true if the
 * bytes are a valid version-1 filter.  Slow (bit-by-bit) but independent.
 */
static inline bool
fz_ref_valid(const uint8_t *buf, size_t len, const char **why)
{
	fz_geom		g;
	uint32_t	flags,
				kind,
				tag,
				kicks;
	uint64_t	items,
				cap,
				count = 0;
	uint32_t	odd;

#define FZ_BAD(s) do { if (why) *why = (s); return false; } while (0)
	if (len < 48)
		FZ_BAD("short");
	if (fz_g32(buf) != 0x4F4F4B43u)
		FZ_BAD("magic");
	if (buf[FZ_VERSION] != 1)
		FZ_BAD("version");
	fz_geom_from_header(buf, &g);
	flags = buf[FZ_FLAGS];
	if (flags & ~3u)
		FZ_BAD("flags");
	if (g.b != 2 && g.b != 4 && g.b != 8)
		FZ_BAD("b");
	if (g.f < 4 || g.f > 32)
		FZ_BAD("f");
	if (g.semisort && g.b != 4)
		FZ_BAD("semisort b");
	kind = fz_g16(buf + FZ_KIND);
	if (kind > 11)
		FZ_BAD("kind");
	if (fz_g16(buf + FZ_RESERVED) != 0)
		FZ_BAD("reserved");
	tag = fz_g32(buf + FZ_TAG);
	if ((kind == 11) != (tag != 0))
		FZ_BAD("tag");
	if (g.m < 1)
		FZ_BAD("m zero");
	odd = g.m;
	while ((odd & 1) == 0)
		odd >>= 1;
	if (odd >= 256)
		FZ_BAD("m form");
	kicks = fz_g32(buf + FZ_KICKS);
	if (kicks > 100000)
		FZ_BAD("kicks");
	cap = fz_g64(buf + FZ_CAPACITY);
	if (cap < 1 || cap > (uint64_t) g.m * g.b)
		FZ_BAD("capacity");
	if (fz_total_bytes(g.m, g.bucket_bits) > 805240832u)
		FZ_BAD("too large");
	if (len != fz_total_bytes(g.m, g.bucket_bits))
		FZ_BAD("length");
	if (flags & 2)
	{
		uint32_t	vb = fz_g32(buf + FZ_VBUCKET),
					vfp = fz_g32(buf + FZ_VFP);

		if (vb >= g.m)
			FZ_BAD("victim bucket");
		if (vfp == 0 || (uint64_t) vfp > fz_fp_range(g.f))
			FZ_BAD("victim fp");
	}
	else if (fz_g32(buf + FZ_VBUCKET) != 0 || fz_g32(buf + FZ_VFP) != 0)
		FZ_BAD("victim fields without flag");

	for (uint32_t i = 0; i < g.m; i++)
	{
		uint32_t	fps[8];

		if (!fz_read_bucket(buf, &g, i, fps))
			FZ_BAD("semisort code");
		for (uint32_t j = 0; j < g.b; j++)
		{
			count += fps[j] != 0;
			if (g.semisort && j > 0 && fps[j - 1] > fps[j])
				FZ_BAD("semisort order");
		}
	}
	for (uint64_t p = (uint64_t) g.m * g.bucket_bits; p < (uint64_t) (len - 48) * 8; p++)
		if ((buf[48 + (p >> 3)] >> (p & 7)) & 1)
			FZ_BAD("padding");
	if (flags & 2)
	{
		uint32_t	vb = fz_g32(buf + FZ_VBUCKET),
					vfp = fz_g32(buf + FZ_VFP);
		cf_filter	cf;
		uint32_t	pair[2];

		cf_open(&cf, buf, len);	/* header checked above */
		pair[0] = vb;
		pair[1] = cf_alt_bucket(&cf, vb, vfp);

		count++;
		for (int t = 0; t < 2; t++)
		{
			uint32_t	fps[8];

			fz_read_bucket(buf, &g, pair[t], fps);
			for (uint32_t j = 0; j < g.b; j++)
				if (fps[j] == 0)
					FZ_BAD("victim with room");
		}
	}
	items = fz_g64(buf + FZ_ITEMS);
	if (items != count)
		FZ_BAD("item count");
	if (kind == 0 && items != 0)
		FZ_BAD("kind any with items");
	return true;
#undef FZ_BAD
}

/* Copies of fp in the pair of bucket i (once if the pair coincides) plus
 * the victim slot, read with the reference decoder. */
static inline uint32_t
fz_pair_count(const cf_filter *cf, const uint8_t *buf, const fz_geom *g,
			  uint32_t i, uint32_t fp)
{
	uint32_t	a = cf_alt_bucket(cf, i, fp);
	uint32_t	n = 0;
	uint32_t	fps[8];

	fz_read_bucket(buf, g, i, fps);
	for (uint32_t j = 0; j < g->b; j++)
		n += fps[j] == fp;
	if (a != i)
	{
		fz_read_bucket(buf, g, a, fps);
		for (uint32_t j = 0; j < g->b; j++)
			n += fps[j] == fp;
	}
	if ((buf[FZ_FLAGS] & 2) && fz_g32(buf + FZ_VFP) == fp &&
		(fz_g32(buf + FZ_VBUCKET) == i || fz_g32(buf + FZ_VBUCKET) == a))
		n++;
	return n;
}

#endif							/* FUZZ_COMMON_H */
