/*
 * cf_slice.c
 *     The byte ranges a lookup reads (cf_slice.h).  The addressing is the
 *     format's (the buckets function of its operations table: version 1
 *     that of locate and alt_bucket, version 2 that of locate2 in cf_v2.h,
 *     where a bucket below the split pointer uses one more address bit).  test/unit's
 *     test_slice.c checks, for filters of every shape, that lookups over a
 *     buffer holding only the header and these ranges (the rest garbage)
 *     answer exactly as over the whole filter.
 */
#include "cf_slice.h"

#include "cf_ops.h"

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
	const cf_ops *ops;
	uint64_t	need;

	if (n < CF_HEADER_SIZE || rd32(p + CF_OFF_MAGIC) != CF_MAGIC ||
		(ops = cf_ops_of_version(p[CF_OFF_VERSION])) == NULL)
		return 0;
	need = ops->header_bytes(p, n);
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

int
cf_slice_ranges(const cf_filter *cf, uint64_t h, cf_range out[2])
{
	uint32_t	i1,
				i2;
	cf_range	a,
				b;

	cf->ops->buckets(cf, h, &i1, &i2);
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
