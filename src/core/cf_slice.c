/*
 * cf_slice.c
 *     The byte ranges a lookup reads (cf_slice.h).  The addressing is the
 *     core's: version 1 through cf_locate and cf_alt_bucket, version 2 by
 *     the same arithmetic as cf_v2.c's locate2 (linear hashing: a bucket
 *     below the split pointer uses one more address bit).  test/unit's
 *     test_slice.c checks, for filters of every shape, that lookups over a
 *     buffer holding only the header and these ranges (the rest garbage)
 *     answer exactly as over the whole filter.
 */
#include "cf_slice.h"

#include "cf_internal.h"

/*
 * Slack around a bucket: a word probe loads 8 bytes from the byte that
 * holds the bucket's first bit, a 128-bit probe 16; the ranges are widened
 * to whole 8-byte words and 16 bytes past the bucket's last bit.
 */
#define SLICE_AFTER		16

uint64_t
cf_slice_header_bytes(const void *prefix, size_t n, uint64_t len)
{
	const uint8_t *p = prefix;
	uint64_t	need;

	if (n < CF_HEADER_SIZE || rd32(p + CF_OFF_MAGIC) != CF_MAGIC)
		return 0;
	if (p[CF_OFF_VERSION] == CF_VERSION)
		need = CF_HEADER_SIZE;
	else if (p[CF_OFF_VERSION] == CF_VERSION_2)
	{
		uint32_t	g;

		if (n < CF_V2_HEADER_SIZE)
			return 0;
		g = p[CF_V2_OFF_GEN_BITS];
		if (g > CF_V2_MAX_GEN_BITS)
			return 0;
		need = CF_V2_HEADER_SIZE + (g ? (UINT64_C(8) << g) : 0);
	}
	else
		return 0;
	return need <= len ? need : 0;
}

/* The bytes of bucket i (bits [i * bucket_bits, (i + 1) * bucket_bits) of
 * the data), with the slack of the probes' loads, clamped to the filter. */
static cf_range
bucket_range(const cf_filter *cf, uint64_t bitpos)
{
	uint64_t	data_off = (uint64_t) (cf->data - cf->buf);
	uint64_t	lo = data_off + ((bitpos >> 3) & ~UINT64_C(7));
	uint64_t	hi = data_off + ((bitpos + cf->bucket_bits + 7) >> 3) + SLICE_AFTER;
	cf_range	r;

	if (hi > cf->len)
		hi = cf->len;
	if (lo > hi)
		lo = hi;
	r.off = lo;
	r.len = hi - lo;
	return r;
}

/* Version 2: bucket of address (q, a), as cf_v2.c's locate2. */
static uint32_t
v2_bucket(const cf_filter *cf, uint32_t q, uint32_t a)
{
	uint32_t	i0 = (a & cf->rmask) * cf->c + q;

	if (i0 < cf->split && ((a >> cf->k) & 1))
		i0 += cf->base;
	return i0;
}

int
cf_slice_ranges(const cf_filter *cf, uint64_t h, cf_range out[2])
{
	uint32_t	i1,
				i2;
	cf_range	a,
				b;

	if (cf->version == CF_VERSION_2)
	{
		/* the value's parts, as cf_v2.c's v2_parts */
		uint32_t	fp = 1 + fastrange32((uint32_t) h, cf->fp_range);
		uint32_t	q = fastrange32((uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32), cf->c);
		uint32_t	addr = (uint32_t) (h >> 32);
		uint64_t	hf = fp_hash(fp);
		uint32_t	hq = fastrange32((uint32_t) hf, cf->c);
		uint32_t	q2 = hq >= q ? hq - q : hq + cf->c - q;
		uint32_t	a2 = addr ^ (uint32_t) (hf >> 32);

		i1 = v2_bucket(cf, q, addr);
		i2 = v2_bucket(cf, q2, a2);
	}
	else
	{
		uint32_t	fp;

		cf_locate(cf, h, &fp, &i1);
		i2 = cf_alt_bucket(cf, i1, fp);
	}
	a = bucket_range(cf, (uint64_t) i1 * cf->bucket_bits);
	b = bucket_range(cf, (uint64_t) i2 * cf->bucket_bits);
	if (b.off < a.off)
	{
		cf_range	t = a;

		a = b;
		b = t;
	}
	if (b.off <= a.off + a.len)
	{
		uint64_t	end = b.off + b.len > a.off + a.len ? b.off + b.len : a.off + a.len;

		a.len = end - a.off;
		out[0] = a;
		return 1;
	}
	out[0] = a;
	out[1] = b;
	return 2;
}
