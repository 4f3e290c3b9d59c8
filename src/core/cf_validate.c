/*
 * cf_validate.c
 *     Checks of untrusted bytes: parameters, the O(1) header checks and the
 *     full structural validation (every bucket, the padding, the item count)
 *     of a format-1 filter, after cf_api.c's checks of the length, the magic
 *     and the version.  What passes here is safe for every other function of
 *     the core.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v1.h"

#include <stdio.h>
#include <stdlib.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

bool
cf1_check_params(const cf_params *p, char *err, size_t errlen)
{
	if (!cf_check_bucket_size(p->bucket_size, err, errlen) ||
		!cf_check_fp_bits(p->fp_bits, err, errlen))
		return false;
	if (p->semisort && p->bucket_size != 4)
		ERR("semi-sorting needs bucket size 4, not %u", p->bucket_size);
	if (!cf_buckets_representable(p->num_buckets))
		ERR("bucket count %u is not of the form c * 2^k with c < 256",
			p->num_buckets);
	if (!cf_check_max_kicks(p->max_kicks, err, errlen) ||
		!cf_check_kind_tag(p->kind, p->type_tag, err, errlen))
		return false;
	if (p->capacity < 1 || p->capacity > (uint64_t) p->num_buckets * p->bucket_size)
		ERR("capacity %llu is outside the range 1 to %llu for %u buckets",
			(unsigned long long) p->capacity,
			(unsigned long long) p->num_buckets * p->bucket_size,
			p->num_buckets);
	return cf_check_total_bytes(p->num_buckets,
								cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort),
								err, errlen);
}

/*
 * The checks that need only the header: everything but the bucket contents.
 * O(1); enough to make every later access stay inside the buffer.
 */
bool
cf1_check_header(const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *h = buf;
	cf_params	p;
	uint8_t		flags;
	uint64_t	want;

	flags = h[CF_OFF_FLAGS];
	if (flags & ~CF_FLAGS_KNOWN)
		ERR("unknown flag bits 0x%02x", flags & ~CF_FLAGS_KNOWN);
	if (rd16(h + CF_OFF_RESERVED) != 0)
		ERR("reserved header field is not zero");
	memset(&p, 0, sizeof p);
	p.bucket_size = h[CF_OFF_BUCKET_SIZE];
	p.fp_bits = h[CF_OFF_FP_BITS];
	p.semisort = (flags & CF_FLAG_SEMISORT) != 0;
	p.kind = rd16(h + CF_OFF_KIND);
	p.type_tag = rd32(h + CF_OFF_TYPE_TAG);
	p.num_buckets = rd32(h + CF_OFF_NUM_BUCKETS);
	p.max_kicks = rd32(h + CF_OFF_MAX_KICKS);
	p.capacity = rd64(h + CF_OFF_CAPACITY);
	if (!cf1_check_params(&p, err, errlen))
		return false;
	want = cf_total_bytes(p.num_buckets, p.bucket_size, p.fp_bits, p.semisort);
	if (!cf_check_length(len, want, p.num_buckets, err, errlen))
		return false;
	if (rd64(h + CF_OFF_ITEMS) > (uint64_t) p.num_buckets * p.bucket_size + 1)
		ERR("item count %llu exceeds the %llu entries of the table",
			(unsigned long long) rd64(h + CF_OFF_ITEMS),
			(unsigned long long) p.num_buckets * p.bucket_size + 1);
	if (flags & CF_FLAG_VICTIM)
	{
		uint32_t	vb = rd32(h + CF_OFF_VICTIM_BUCKET);
		uint32_t	vfp = rd32(h + CF_OFF_VICTIM_FP);

		if (vb >= p.num_buckets)
			ERR("victim bucket %u is outside the %u buckets", vb, p.num_buckets);
		if (vfp == 0 || (uint64_t) vfp >= (UINT64_C(1) << p.fp_bits))
			ERR("victim fingerprint %u is not a valid %u-bit fingerprint",
				vfp, p.fp_bits);
	}
	else if (rd32(h + CF_OFF_VICTIM_BUCKET) != 0 || rd32(h + CF_OFF_VICTIM_FP) != 0)
		ERR("victim fields are set but the victim flag is not");
	return true;
}

/*
 * Full validation of untrusted bytes: the header checks plus every bucket,
 * the padding and the agreement of the item count with the table.
 */
bool
cf1_validate(const void *buf, size_t len, char *err, size_t errlen)
{
	cf_filter	cf;
	uint64_t	count = 0;
	uint64_t	used_bits;
	uint64_t	items;

	if (!cf1_check_header(buf, len, err, errlen))
		return false;
	cf1_open(&cf, buf, len);

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

			if (code >= CF_SS_CODES)
				ERR("bucket %u has semi-sort code %u, above the largest (%d)",
					i, code, CF_SS_CODES - 1);
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

	if (victim_in_use(&cf))
	{
		uint32_t	vb = rd32(cf.buf + CF_OFF_VICTIM_BUCKET);
		uint32_t	vfp = rd32(cf.buf + CF_OFF_VICTIM_FP);

		count++;
		if (!bucket_full(&cf, vb) || !bucket_full(&cf, alt_bucket(&cf, vb, vfp)))
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

