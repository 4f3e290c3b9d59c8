/*
 * cf_ref.h
 *     The tests' reference reader of the serialised filter (docs/FORMAT.md),
 *     shared by the unit tests (test/unit/) and the fuzzers (test/fuzz/):
 *     header fields, bucket decoding and encoding, and a reference validator.
 *
 * Offsets and constants come from src/core/cf_format.h, the one definition
 * of the layout; everything else here is written from docs/FORMAT.md, not
 * from the core's code, and bit by bit, so that the tests compare the
 * implementation with the specification.  Only where items go (the hashing:
 * cf_alt_bucket for the victim's pair) is taken from the core.
 *
 * Header-only (static inline), plain C99.
 */
#ifndef CF_REF_H
#define CF_REF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cf.h"

/* ---- little-endian header fields ---- */

static inline uint16_t
ref_get16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
ref_get32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline uint64_t
ref_get64(const uint8_t *p)
{
	return (uint64_t) ref_get32(p) | ((uint64_t) ref_get32(p + 4) << 32);
}

static inline void
ref_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline void
ref_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static inline void
ref_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* A header field of the given width (1, 2, 4 or 8 bytes) at byte off. */
static inline uint64_t
ref_get_field(const uint8_t *buf, unsigned off, unsigned width)
{
	switch (width)
	{
		case 1:
			return buf[off];
		case 2:
			return ref_get16(buf + off);
		case 4:
			return ref_get32(buf + off);
		default:
			return ref_get64(buf + off);
	}
}

static inline void
ref_put_field(uint8_t *buf, unsigned off, unsigned width, uint64_t v)
{
	switch (width)
	{
		case 1:
			buf[off] = (uint8_t) v;
			break;
		case 2:
			ref_put16(buf + off, (uint16_t) v);
			break;
		case 4:
			ref_put32(buf + off, (uint32_t) v);
			break;
		default:
			ref_put64(buf + off, v);
			break;
	}
}

/* The parameters of a new filter, field by field (for cf_check_params, cf_init). */
static inline cf_params
ref_params(uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks,
		   uint16_t kind, uint32_t tag, uint64_t cap)
{
	cf_params	p;

	memset(&p, 0, sizeof p);
	p.num_buckets = m;
	p.bucket_size = b;
	p.fp_bits = f;
	p.semisort = ss;
	p.max_kicks = kicks;
	p.kind = kind;
	p.type_tag = tag;
	p.capacity = cap;
	return p;
}

/* ---- geometry ---- */

/* m = c * 2^k with c < 256: the odd part of m is below 2^8. */
static inline bool
ref_repr(uint64_t m)
{
	if (m < 1 || m > UINT32_MAX)
		return false;
	while ((m & 1) == 0)
		m >>= 1;
	return m < 256;
}

typedef struct ref_geom
{
	uint32_t	m,
				c,				/* m = c << k, c < 256, k smallest with c < 256 */
				k,
				b,
				f;
	bool		ss;				/* semi-sorted */
	uint64_t	bb;				/* bits per bucket */
	uint64_t	fmask;			/* largest fingerprint, 2^f - 1 */
} ref_geom;

/* The geometry a header describes (its fields unchecked). */
static inline ref_geom
ref_geom_of(const uint8_t *buf)
{
	ref_geom	g;
	uint32_t	lg = 0;

	g.b = buf[CF_OFF_BUCKET_SIZE];
	g.f = buf[CF_OFF_FP_BITS];
	g.ss = (buf[CF_OFF_FLAGS] & CF_FLAG_SEMISORT) != 0;
	g.m = ref_get32(buf + CF_OFF_NUM_BUCKETS);
	for (uint64_t v = g.m; v > 1; v >>= 1)
		lg++;
	g.k = lg >= 7 ? lg - 7 : 0;
	g.c = g.m >> g.k;
	/* 12-bit code + four (f - 4)-bit suffixes, or b fields of f bits */
	g.bb = g.ss ? 12 + 4 * ((uint64_t) g.f - 4) : (uint64_t) g.b * g.f;
	/* f comes from untrusted bytes here: keep the shift defined */
	g.fmask = g.f >= 64 ? UINT64_MAX : (UINT64_C(1) << g.f) - 1;
	return g;
}

/* Header, bucket bits rounded up to 64-bit words, 8 bytes of slack. */
static inline uint64_t
ref_total_bytes(uint64_t m, uint64_t bucket_bits)
{
	return CF_HEADER_SIZE + (m * bucket_bits + 63) / 64 * 8 + 8;
}

/* ---- bit fields of the bucket array: LSB first in little-endian bytes ---- */

static inline uint64_t
ref_get_bits(const uint8_t *d, uint64_t pos, unsigned w)
{
	uint64_t	v = 0;

	for (unsigned i = 0; i < w; i++)
		v |= (uint64_t) ((d[(pos + i) >> 3] >> ((pos + i) & 7)) & 1) << i;
	return v;
}

static inline void
ref_set_bits(uint8_t *d, uint64_t pos, unsigned w, uint64_t val)
{
	for (unsigned i = 0; i < w; i++)
	{
		uint64_t	p = pos + i;
		uint8_t		bit = (uint8_t) (1u << (p & 7));

		if ((val >> i) & 1)
			d[p >> 3] |= bit;
		else
			d[p >> 3] &= (uint8_t) ~bit;
	}
}

/* ---- semi-sorted buckets: nibble multiset <-> 12-bit rank ---- */

static inline uint64_t
ref_binomial(unsigned n, unsigned k)
{
	uint64_t	r = 1;

	if (k > n)
		return 0;
	for (unsigned i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

/* Rank of the sorted nibbles nib[0] <= .. <= nib[3]. */
static inline uint32_t
ref_ss_rank(const uint32_t *nib)
{
	return (uint32_t) (ref_binomial(nib[0], 1) + ref_binomial(nib[1] + 1, 2) +
					   ref_binomial(nib[2] + 2, 3) + ref_binomial(nib[3] + 3, 4));
}

static uint16_t ref_ss_nibbles[CF_SS_CODES];	/* rank -> n0 | n1<<4 | n2<<8 | n3<<12 */

/* Fills ref_ss_nibbles; false if the ranks are not a bijection onto 0..3875. */
static inline bool
ref_ss_init(void)
{
	static bool done = false;
	static bool ok = true;
	bool		seen[CF_SS_CODES];

	if (done)
		return ok;
	memset(seen, 0, sizeof seen);
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++)
				{
					uint32_t	nib[4] = {a, b, c, d};
					uint32_t	r = ref_ss_rank(nib);

					if (r >= CF_SS_CODES || seen[r])
						ok = false;
					else
					{
						seen[r] = true;
						ref_ss_nibbles[r] = (uint16_t) (a | (b << 4) | (c << 8) | (d << 12));
					}
				}
	done = true;
	return ok;
}

/* ---- buckets ---- */

/* Decodes bucket i into fps; false if a semi-sorted bucket has a bad code. */
static inline bool
ref_read_bucket(const uint8_t *buf, const ref_geom *g, uint32_t i, uint32_t *fps)
{
	const uint8_t *d = buf + CF_HEADER_SIZE;
	uint64_t	pos = (uint64_t) i * g->bb;

	if (!g->ss)
	{
		for (uint32_t j = 0; j < g->b; j++)
			fps[j] = (uint32_t) ref_get_bits(d, pos + (uint64_t) j * g->f, g->f);
		return true;
	}
	else
	{
		uint32_t	code = (uint32_t) ref_get_bits(d, pos, 12);
		unsigned	lb = g->f - 4;

		(void) ref_ss_init();
		if (code >= CF_SS_CODES)
			return false;
		for (uint32_t j = 0; j < 4; j++)
			fps[j] = (uint32_t) (((uint64_t) ((ref_ss_nibbles[code] >> (4 * j)) & 15) << lb) |
								 ref_get_bits(d, pos + 12 + (uint64_t) j * lb, lb));
		return true;
	}
}

/*
 * Writes bucket i.  For semi-sorted buckets with full_sort false the entries
 * are only ordered by their 4-bit prefix (stable), so low bits may end up
 * out of order: the one kind of unsorted bucket the format can express.
 */
static inline void
ref_write_bucket(uint8_t *buf, const ref_geom *g, uint32_t i, const uint32_t *in, bool full_sort)
{
	uint8_t    *d = buf + CF_HEADER_SIZE;
	uint64_t	pos = (uint64_t) i * g->bb;
	uint32_t	fps[8];

	memcpy(fps, in, sizeof(uint32_t) * g->b);
	if (!g->ss)
	{
		for (uint32_t j = 0; j < g->b; j++)
			ref_set_bits(d, pos + (uint64_t) j * g->f, g->f, fps[j]);
	}
	else
	{
		unsigned	lb = g->f - 4;
		uint32_t	nib[4];

		for (int a = 1; a < 4; a++)		/* insertion sort: stable */
			for (int c = a; c > 0; c--)
			{
				uint32_t	x = full_sort ? fps[c - 1] : fps[c - 1] >> lb;
				uint32_t	y = full_sort ? fps[c] : fps[c] >> lb;

				if (x > y)
				{
					uint32_t	t = fps[c];

					fps[c] = fps[c - 1];
					fps[c - 1] = t;
				}
			}
		for (int j = 0; j < 4; j++)
			nib[j] = fps[j] >> lb;
		ref_set_bits(d, pos, 12, ref_ss_rank(nib));
		for (uint32_t j = 0; j < 4; j++)
			ref_set_bits(d, pos + 12 + (uint64_t) j * lb, lb, fps[j] & ((UINT64_C(1) << lb) - 1));
	}
}

static inline bool
ref_bucket_full(const uint8_t *buf, const ref_geom *g, uint32_t i)
{
	uint32_t	fps[8];

	if (!ref_read_bucket(buf, g, i, fps))
		return false;
	for (uint32_t j = 0; j < g->b; j++)
		if (fps[j] == 0)
			return false;
	return true;
}

/* Non-empty entries in the table, plus one for a used victim slot. */
static inline uint64_t
ref_count(const uint8_t *buf)
{
	ref_geom	g = ref_geom_of(buf);
	uint64_t	n = 0;
	uint32_t	fps[8];

	for (uint32_t i = 0; i < g.m; i++)
	{
		if (!ref_read_bucket(buf, &g, i, fps))
			continue;
		for (uint32_t j = 0; j < g.b; j++)
			n += fps[j] != 0;
	}
	return n + ((buf[CF_OFF_FLAGS] & CF_FLAG_VICTIM) ? 1 : 0);
}

/*
 * Copies of fp in the pair of bucket i (once if the pair coincides) plus the
 * victim slot, read with the reference decoder.
 */
static inline uint32_t
ref_pair_count(const cf_filter *cf, const uint8_t *buf, const ref_geom *g,
			   uint32_t i, uint32_t fp)
{
	uint32_t	a = cf_alt_bucket(cf, i, fp);
	uint32_t	n = 0;
	uint32_t	fps[8];

	ref_read_bucket(buf, g, i, fps);
	for (uint32_t j = 0; j < g->b; j++)
		n += fps[j] == fp;
	if (a != i)
	{
		ref_read_bucket(buf, g, a, fps);
		for (uint32_t j = 0; j < g->b; j++)
			n += fps[j] == fp;
	}
	if ((buf[CF_OFF_FLAGS] & CF_FLAG_VICTIM) && ref_get32(buf + CF_OFF_VICTIM_FP) == fp &&
		(ref_get32(buf + CF_OFF_VICTIM_BUCKET) == i || ref_get32(buf + CF_OFF_VICTIM_BUCKET) == a))
		n++;
	return n;
}

/*
 * The rules of a well-formed version-1 filter, written down from
 * docs/FORMAT.md independently of cf_validate.  Only the victim's alternate
 * bucket is computed with the core (cf_alt_bucket), once the header is
 * known to be sane.  On false, *why (if why) names the broken rule.
 */
static inline bool
ref_valid(const uint8_t *buf, size_t len, const char **why)
{
#define REF_NO(s) do { if (why) *why = (s); return false; } while (0)
	uint32_t	b,
				f,
				m,
				kicks,
				tag,
				vb,
				vfp;
	uint16_t	kind;
	uint64_t	items,
				cap,
				bits,
				total,
				count = 0;
	uint8_t		fl;
	bool		ss;
	ref_geom	g;

	if (len < CF_HEADER_SIZE)
		REF_NO("shorter than the header");
	if (ref_get32(buf + CF_OFF_MAGIC) != CF_MAGIC)
		REF_NO("magic");
	if (buf[CF_OFF_VERSION] != 1)
		REF_NO("version");
	fl = buf[CF_OFF_FLAGS];
	if (fl & ~3)
		REF_NO("unknown flags");
	if (ref_get16(buf + CF_OFF_RESERVED) != 0)
		REF_NO("reserved");
	b = buf[CF_OFF_BUCKET_SIZE];
	f = buf[CF_OFF_FP_BITS];
	ss = fl & 1;
	kind = ref_get16(buf + CF_OFF_KIND);
	tag = ref_get32(buf + CF_OFF_TYPE_TAG);
	m = ref_get32(buf + CF_OFF_NUM_BUCKETS);
	kicks = ref_get32(buf + CF_OFF_MAX_KICKS);
	items = ref_get64(buf + CF_OFF_ITEMS);
	cap = ref_get64(buf + CF_OFF_CAPACITY);
	vb = ref_get32(buf + CF_OFF_VICTIM_BUCKET);
	vfp = ref_get32(buf + CF_OFF_VICTIM_FP);
	if (b != 2 && b != 4 && b != 8)
		REF_NO("bucket size");
	if (f < 4 || f > 32)
		REF_NO("fingerprint size");
	if (ss && b != 4)
		REF_NO("semisort with b != 4");
	if (!ref_repr(m))
		REF_NO("bucket count not representable");
	if (kicks > 100000)
		REF_NO("max kicks");
	if (kind > 11)
		REF_NO("kind");
	if ((kind == 11) != (tag != 0))
		REF_NO("type tag vs kind");
	if (cap < 1 || cap > (uint64_t) m * b)
		REF_NO("capacity");
	g = ref_geom_of(buf);
	bits = (uint64_t) m * g.bb;
	total = ref_total_bytes(m, g.bb);
	/* 768 MiB - 64 KiB, so that the base64 text form fits in 1 GB */
	if (total > UINT64_C(805240832))
		REF_NO("too big");
	if (len != total)
		REF_NO("length");
	if (fl & 2)
	{
		if (vb >= m)
			REF_NO("victim bucket");
		if (vfp == 0 || vfp > g.fmask)
			REF_NO("victim fingerprint");
	}
	else if (vb != 0 || vfp != 0)
		REF_NO("victim fields without flag");
	for (uint32_t i = 0; i < m; i++)
	{
		uint32_t	fps[8];

		if (!ref_read_bucket(buf, &g, i, fps))
			REF_NO("semisort code");
		if (ss)
			for (int j = 0; j < 3; j++)
				if (fps[j] > fps[j + 1])
					REF_NO("semisort order");
		for (uint32_t j = 0; j < b; j++)
			count += fps[j] != 0;
	}
	for (uint64_t p = bits; p < (uint64_t) (len - CF_HEADER_SIZE) * 8; p++)
		if ((buf[CF_HEADER_SIZE + (p >> 3)] >> (p & 7)) & 1)
			REF_NO("padding");
	if (fl & 2)
	{
		cf_filter	cf;

		cf_open(&cf, buf, len);
		count++;
		if (!ref_bucket_full(buf, &g, vb) ||
			!ref_bucket_full(buf, &g, cf_alt_bucket(&cf, vb, vfp)))
			REF_NO("victim with room in its buckets");
	}
	if (items != count)
		REF_NO("item count");
	if (kind == 0 && items != 0)
		REF_NO("kind ANY with items");
	return true;
#undef REF_NO
}

/* ======================================================================
 * Format version 2 (docs/FORMAT.md, "Version 2"), from the specification:
 * header fields from CF_V2_HEADER_FIELDS, slots read bit by bit, the
 * linear-hashing geometry and the alternate rule restated here.
 * ====================================================================== */

typedef struct ref_v2
{
	uint32_t	b,
				f,
				t,
				g,
				w,				/* slot bits f + t + g */
				c,
				m,
				k,				/* m = c * 2^k + p, p < c * 2^k */
				p,
				cur,
				keep;
	uint64_t	hdr;			/* 64 + 8 * 2^g (g > 0) */
	bool		grows;
	bool		budget;			/* flag 0x08 (FORMAT.md 13.12) */
	uint32_t	abits;			/* A: c * 2^A in [2^31, 2^32); 32 without the flag */
} ref_v2;

static inline ref_v2
ref_v2_geom(const uint8_t *buf)
{
	ref_v2		v;

	v.b = buf[CF_V2_OFF_BUCKET_SIZE];
	v.f = buf[CF_V2_OFF_FP_BITS];
	v.t = buf[CF_V2_OFF_TAIL_BITS];
	v.g = buf[CF_V2_OFF_GEN_BITS];
	v.w = v.f + v.t + v.g;
	v.c = ref_get16(buf + CF_V2_OFF_MANTISSA);
	v.m = ref_get32(buf + CF_V2_OFF_NUM_BUCKETS);
	v.k = 0;
	while (v.c && ((uint64_t) v.c << (v.k + 1)) <= v.m)
		v.k++;
	v.p = (uint32_t) (v.m - ((uint64_t) v.c << v.k));
	v.cur = buf[CF_V2_OFF_CUR_GEN];
	v.keep = buf[CF_V2_OFF_KEEP];
	v.hdr = 64 + (v.g && v.g <= 8 ? (UINT64_C(8) << v.g) : 0);
	v.grows = (buf[CF_V2_OFF_FLAGS] & CF_FLAG_GROWS) != 0;
	v.budget = (buf[CF_V2_OFF_FLAGS] & 0x08) != 0;
	v.abits = 32;
	if (v.budget && v.c)
		for (v.abits = 0; ((uint64_t) v.c << v.abits) < (UINT64_C(1) << 31); v.abits++)
			;
	return v;
}

static inline uint32_t
ref_v2_slot(const uint8_t *buf, const ref_v2 *v, uint32_t i, uint32_t j)
{
	return (uint32_t) ref_get_bits(buf + v->hdr, ((uint64_t) i * v->b + j) * v->w, v->w);
}

/* bucket i: q = i mod c, r = i div c; resolution k + 1 if split or new */
static inline uint32_t
ref_v2_res(const ref_v2 *v, uint32_t i)
{
	return (i < v->p || i >= (v->c << v->k)) ? v->k + 1 : v->k;
}

static inline uint32_t
ref_v2_log2(uint32_t x)
{
	uint32_t	r = 0;

	while (x >>= 1)
		r++;
	return r;
}

/*
 * The alternate bucket of slot e in bucket i (false: e knows too few address
 * bits to name it).  Known bits: r (res bits) then the spare bits of the
 * tail; alternate: q' = (Hq - q) mod c, address XOR Hr, Hq / Hr from
 * fp * 0xC2B2AE3D27D4EB4F with x ^= x >> 29.
 */
static inline bool
ref_v2_alt(const ref_v2 *v, uint32_t i, uint32_t e, uint32_t *j)
{
	uint32_t	fp = e & (uint32_t) ((UINT64_C(1) << v->f) - 1);
	uint32_t	res = ref_v2_res(v, i),
				L = res;
	uint64_t	a = i / v->c,
				x;
	uint32_t	q = i % v->c,
				hq,
				q2;

	if (v->t)
	{
		uint32_t	tail = (e >> v->f) & ((1u << v->t) - 1);
		uint32_t	s = ref_v2_log2(tail);

		a |= (uint64_t) (tail - (1u << s)) << res;
		L = res + s;
	}
	x = (uint64_t) fp * UINT64_C(0xC2B2AE3D27D4EB4F);
	x ^= x >> 29;
	hq = (uint32_t) (((uint64_t) (uint32_t) x * v->c) >> 32);
	q2 = (hq + v->c - q) % v->c;
	a = (a ^ (x >> 32)) & ((UINT64_C(1) << L) - 1);
	*j = (uint32_t) (a & ((UINT64_C(1) << v->k) - 1)) * v->c + q2;
	if (*j < v->p)
	{
		if (L < v->k + 1)
			return false;
		if ((a >> v->k) & 1)
			*j += v->c << v->k;
	}
	return true;
}

static inline bool
ref_v2_full(const uint8_t *buf, const ref_v2 *v, uint32_t i)
{
	for (uint32_t j = 0; j < v->b; j++)
		if (ref_v2_slot(buf, v, i, j) == 0)
			return false;
	return true;
}

/* The rules of a well-formed version-2 filter (docs/FORMAT.md). */
static inline bool
ref_v2_valid(const uint8_t *buf, size_t len, const char **why)
{
#define REF_NO(s) do { if (why) *why = (s); return false; } while (0)
	ref_v2		v;
	uint8_t		fl;
	uint32_t	m0,
				k0 = 0,
				gm,
				live;
	uint64_t	items,
				entries,
				cap,
				total,
				count = 0,
				sum = 0;
	uint16_t	kind;

	if (len < 64)
		REF_NO("shorter than the version-2 header");
	if (ref_get32(buf) != CF_MAGIC)
		REF_NO("magic");
	if (buf[4] != 2)
		REF_NO("version");
	fl = buf[CF_V2_OFF_FLAGS];
	if (fl & ~14)
		REF_NO("unknown flags");
	if ((fl & 8) && !(fl & 4))
		REF_NO("address budget without growth");
	v = ref_v2_geom(buf);
	if (v.b != 2 && v.b != 4 && v.b != 8)
		REF_NO("bucket size");
	if (v.grows && v.b != 4)
		REF_NO("growing with b != 4");
	if (v.f < 4 || v.f > 32)
		REF_NO("fingerprint size");
	if ((v.t > 15 && !v.budget) || (v.grows ? v.t < 2 : v.t != 0))
		REF_NO("tail bits vs grows");
	if (v.g > 8)
		REF_NO("generation bits");
	if (v.w > 32)
		REF_NO("slot wider than 32 bits");
	kind = ref_get16(buf + CF_V2_OFF_KIND);
	if (kind > 11 || (kind == 11) != (ref_get32(buf + CF_V2_OFF_TYPE_TAG) != 0))
		REF_NO("kind / type tag");
	if (ref_get32(buf + CF_V2_OFF_MAX_KICKS) > 100000)
		REF_NO("max kicks");
	if (v.c < 1 || v.c > 255)
		REF_NO("mantissa");
	if (v.m < v.c)
		REF_NO("bucket count below c");
	m0 = ref_get32(buf + CF_V2_OFF_INITIAL_BUCKETS);
	while (((uint64_t) v.c << (k0 + 1)) <= m0)
		k0++;
	if (m0 < v.c || ((uint64_t) v.c << k0) != m0 || (k0 > 0 && v.c < 128))
		REF_NO("initial bucket count");
	if (!v.grows && v.p != 0)
		REF_NO("fixed filter with a split pointer");
	if (v.budget)
	{
		/* T(k) = min(A - k + 1, 32 - f - g) */
		int64_t		tk = (int64_t) v.abits - v.k + 1;

		if (tk > 32 - (int64_t) v.f - v.g)
			tk = 32 - (int64_t) v.f - v.g;
		if ((int64_t) v.t != tk)
			REF_NO("tail bits are not T(k)");
	}
	cap = ref_get64(buf + CF_V2_OFF_CAPACITY);
	if (cap < 1 || cap > (uint64_t) m0 * v.b)
		REF_NO("capacity");
	total = v.hdr + ((uint64_t) v.m * v.b * v.w + 63) / 64 * 8 + 8;
	if (total > UINT64_C(805240832))
		REF_NO("too big");
	if (len != total)
		REF_NO("length");
	gm = v.g ? (1u << v.g) - 1 : 0;
	if (v.cur > gm || v.keep > gm || (v.keep == 0 && v.cur != 0))
		REF_NO("generation / keep");
	live = v.keep ? v.keep : 1;
	items = ref_get64(buf + CF_V2_OFF_ITEMS);
	entries = ref_get64(buf + CF_V2_OFF_ENTRIES);
	if (items > entries)
		REF_NO("items above entries");
	if (v.g)
	{
		for (uint32_t x = 0; x <= gm; x++)
		{
			uint64_t	n = ref_get64(buf + 64 + 8 * x);

			if (n > items || (((v.cur - x) & gm) >= live && n))
				REF_NO("generation item count");
			sum += n;
		}
		if (sum != items)
			REF_NO("generation counts do not sum to items");
	}
	for (uint32_t i = 0; i < v.m; i++)
		for (uint32_t j = 0; j < v.b; j++)
		{
			uint32_t	e = ref_v2_slot(buf, &v, i, j);

			if (!e)
				continue;
			if ((e & ((UINT64_C(1) << v.f) - 1)) == 0)
				REF_NO("slot with fingerprint 0");
			if (v.t)
			{
				uint32_t	tail = (e >> v.f) & ((1u << v.t) - 1);

				if (!tail)
					REF_NO("slot without tail");
				if (ref_v2_res(&v, i) + ref_v2_log2(tail) > v.abits)
					REF_NO("slot knows more than A (32) address bits");
			}
			if (v.g && ((v.cur - (e >> (v.f + v.t))) & gm) >= live)
				REF_NO("slot of a dropped generation");
			count++;
		}
	for (uint64_t p = (uint64_t) v.m * v.b * v.w; p < (uint64_t) (len - v.hdr) * 8; p++)
		if ((buf[v.hdr + (p >> 3)] >> (p & 7)) & 1)
			REF_NO("padding");
	if (fl & 2)
	{
		uint32_t	vb = ref_get32(buf + CF_V2_OFF_VICTIM_BUCKET),
					ve = ref_get32(buf + CF_V2_OFF_VICTIM_SLOT),
					alt;

		if (vb >= v.m)
			REF_NO("victim bucket");
		if ((ve & ((UINT64_C(1) << v.f) - 1)) == 0 || (uint64_t) ve >= (UINT64_C(1) << v.w))
			REF_NO("victim slot");
		if (v.t)
		{
			uint32_t	tail = (ve >> v.f) & ((1u << v.t) - 1);

			if (!tail || ref_v2_res(&v, vb) + ref_v2_log2(tail) > v.abits)
				REF_NO("victim tail");
		}
		if (v.g && ((v.cur - (ve >> (v.f + v.t))) & gm) >= live)
			REF_NO("victim of a dropped generation");
		count++;
		if (!ref_v2_full(buf, &v, vb) || (ref_v2_alt(&v, vb, ve, &alt) && !ref_v2_full(buf, &v, alt)))
			REF_NO("victim with room in its buckets");
	}
	else if (ref_get32(buf + CF_V2_OFF_VICTIM_BUCKET) || ref_get32(buf + CF_V2_OFF_VICTIM_SLOT))
		REF_NO("victim fields without flag");
	if (entries != count)
		REF_NO("entry count");
	if (kind == 0 && entries)
		REF_NO("kind ANY with entries");
	return true;
#undef REF_NO
}

/* Either version, by the version byte. */
static inline bool
ref_any_valid(const uint8_t *buf, size_t len, const char **why)
{
	if (len > 4 && buf[4] == 2)
		return ref_v2_valid(buf, len, why);
	return ref_valid(buf, len, why);
}

#endif							/* CF_REF_H */
