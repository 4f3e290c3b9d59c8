/*
 * cf_v2_validate.c
 *     Checks of untrusted format-2 bytes: the O(1) header checks and the
 *     full structural validation (every slot, the padding, the counts),
 *     after cf_api.c's checks of the length, the magic and the version.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

#include <stdio.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

static bool
bucket_full2(const cf_filter *cf, uint32_t i)
{
	for (uint32_t j = 0; j < cf->b; j++)
		if (rd_slot(cf, i, j) == 0)
			return false;
	return true;
}

/* ------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------ */

bool
cf2_check_header(const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *h = buf;
	uint8_t		flags;
	uint32_t	b,
				f,
				t,
				g,
				w,
				c,
				m,
				m0,
				k0,
				cur,
				keep,
				k;
	uint64_t	want,
				items,
				entries,
				cap,
				sum = 0;
	bool		grows,
				budget;

	if (len < CF_V2_HEADER_SIZE)
		ERR("%zu bytes is shorter than the %d-byte version-2 header", len, CF_V2_HEADER_SIZE);
	flags = h[CF_V2_OFF_FLAGS];
	if (flags & ~CF_V2_FLAGS_KNOWN)
		ERR("unknown flag bits 0x%02x", flags & ~CF_V2_FLAGS_KNOWN);
	grows = (flags & CF_FLAG_GROWS) != 0;
	budget = (flags & CF_FLAG_BUDGET) != 0;
	if (budget && !grows)
		ERR("the address budget flag is set on a filter that does not grow");
	b = h[CF_V2_OFF_BUCKET_SIZE];
	f = h[CF_V2_OFF_FP_BITS];
	t = h[CF_V2_OFF_TAIL_BITS];
	g = h[CF_V2_OFF_GEN_BITS];
	if (!cf_check_bucket_size(b, err, errlen))
		return false;
	if (grows && b != 4)
		ERR("a growing filter has bucket size 4, not %u", b);
	if (!cf_check_fp_bits(f, err, errlen))
		return false;
	if ((t > CF_V2_MAX_TAIL_BITS && !budget) || (grows ? t < CF_V2_MIN_TAIL_BITS : t != 0))
		ERR("tail bits %u do not fit a %s filter", t, grows ? "growing" : "fixed");
	if (g > CF_V2_MAX_GEN_BITS)
		ERR("generation bits %u exceed %d", g, CF_V2_MAX_GEN_BITS);
	w = f + t + g;
	if (w > 32)
		ERR("slot of %u bits exceeds 32", w);
	if (!cf_check_kind_tag(rd16(h + CF_V2_OFF_KIND), rd32(h + CF_V2_OFF_TYPE_TAG), err, errlen) ||
		!cf_check_max_kicks(rd32(h + CF_V2_OFF_MAX_KICKS), err, errlen))
		return false;
	c = rd16(h + CF_V2_OFF_MANTISSA);
	m = rd32(h + CF_V2_OFF_NUM_BUCKETS);
	m0 = rd32(h + CF_V2_OFF_INITIAL_BUCKETS);
	if (c < 1 || c >= (1u << CF_MANTISSA_BITS))
		ERR("bucket mantissa c = %u is outside the range 1 to %d", c, (1 << CF_MANTISSA_BITS) - 1);
	if (m < c)
		ERR("bucket count %u is below the mantissa %u", m, c);
	for (k0 = 0; ((uint64_t) c << (k0 + 1)) <= m0; k0++)
		;
	if (m0 < c || ((uint64_t) c << k0) != m0)
		ERR("initial bucket count %u is not c * 2^k for c = %u", m0, c);
	{
		uint32_t	cc,
					kk;

		split_buckets(m0, &cc, &kk);
		if (cc != c)
			ERR("initial bucket count %u has mantissa %u, not %u", m0, cc, c);
	}
	for (k = 0; ((uint64_t) c << (k + 1)) <= m; k++)
		;
	if (!grows && ((uint64_t) c << k) != m)
		ERR("a fixed version-2 filter has c * 2^k buckets, not %u", m);
	if (budget && (int) t != cf_budget_tail(c, k, f, g))
		ERR("tail bits %u differ from the %d that the address budget gives at round %u",
			t, cf_budget_tail(c, k, f, g), k);
	cap = rd64(h + CF_V2_OFF_CAPACITY);
	if (cap < 1 || cap > (uint64_t) m0 * b)
		ERR("capacity %llu is outside the range 1 to %llu",
			(unsigned long long) cap, (unsigned long long) m0 * b);
	want = cf2_total_bytes(m, b, w, g);
	if (!cf_check_total_bytes(m, want, err, errlen) ||
		!cf_check_length(len, want, m, err, errlen))
		return false;
	cur = h[CF_V2_OFF_CUR_GEN];
	keep = h[CF_V2_OFF_KEEP];
	if (cur > mask32(g) || keep > mask32(g))
		ERR("generation %u or keep %u does not fit %u generation bits", cur, keep, g);
	if (keep == 0 && cur != 0)
		ERR("generation %u without a rotation", cur);
	entries = rd64(h + CF_V2_OFF_ENTRIES);
	items = rd64(h + CF_V2_OFF_ITEMS);
	if (entries > (uint64_t) m * b + 1)
		ERR("entry count %llu exceeds the %llu slots of the table",
			(unsigned long long) entries, (unsigned long long) m * b + 1);
	if (items > entries)
		ERR("item count %llu exceeds the entry count %llu",
			(unsigned long long) items, (unsigned long long) entries);
	if (g > 0)
	{
		uint32_t	live = keep ? keep : 1;

		for (uint32_t x = 0; x <= mask32(g); x++)
		{
			uint64_t	n = rd64(h + CF_V2_HEADER_SIZE + 8 * (size_t) x);
			uint32_t	age = (cur - x) & mask32(g);

			if (n > items || (age >= live && n != 0))
				ERR("item count %llu of generation %u is inconsistent",
					(unsigned long long) n, x);
			sum += n;
		}
		if (sum != items)
			ERR("generation item counts sum to %llu, not the %llu items",
				(unsigned long long) sum, (unsigned long long) items);
	}
	if (flags & CF_FLAG_VICTIM)
	{
		uint32_t	vb = rd32(h + CF_V2_OFF_VICTIM_BUCKET);
		uint32_t	ve = rd32(h + CF_V2_OFF_VICTIM_SLOT);

		if (vb >= m)
			ERR("victim bucket %u is outside the %u buckets", vb, m);
		if ((ve & mask32(f)) == 0 || ve > mask32(w))
			ERR("victim slot 0x%x is not a valid %u-bit slot", ve, w);
		if (entries < 1)
			ERR("victim in use but no entries counted");
	}
	else if (rd32(h + CF_V2_OFF_VICTIM_BUCKET) != 0 || rd32(h + CF_V2_OFF_VICTIM_SLOT) != 0)
		ERR("victim fields are set but the victim flag is not");
	if (rd16(h + CF_V2_OFF_KIND) == CF_KIND_ANY && entries != 0)
		ERR("a filter with entries must record the kind of value it holds");
	return true;
}

/* The rules every occupied slot (and the victim) must follow. */
static bool
slot_ok(const cf_filter *cf, uint32_t i, uint32_t e, char *err, size_t errlen)
{
	uint32_t	live = v2_keep(cf) ? v2_keep(cf) : 1;

	if ((e & cf->fp_mask) == 0)
		ERR("bucket %u holds a slot 0x%x with a zero fingerprint", i, e);
	if (cf->t)
	{
		uint32_t	tail = slot_tail(cf, e);

		if (tail == 0)
			ERR("bucket %u holds a slot 0x%x without a tail", i, e);
		if (bucket_res(cf, i) + log2_32(tail) > cf->abits)
			ERR("bucket %u holds a slot 0x%x with more than %u address bits", i, e, cf->abits);
	}
	if (slot_age(cf, e) >= live)
		ERR("bucket %u holds a slot 0x%x of a dropped generation", i, e);
	return true;
}

bool
cf2_validate(const void *buf, size_t len, char *err, size_t errlen)
{
	cf_filter	cf;
	uint64_t	count = 0;
	uint32_t	vb,
				ve;

	if (!cf2_check_header(buf, len, err, errlen))
		return false;
	cf2_open(&cf, buf, len);
	for (uint32_t i = 0; i < cf.m; i++)
	{
		CF_CHECK_INTERRUPTS(i);
		for (uint32_t j = 0; j < cf.b; j++)
		{
			uint32_t	e = rd_slot(&cf, i, j);

			if (e == 0)
				continue;
			if (!slot_ok(&cf, i, e, err, errlen))
				return false;
			count++;
		}
	}
	{
		uint64_t	used = (uint64_t) cf.m * cf.bucket_bits;
		uint64_t	end = (uint64_t) (len - cf.hdr) * 8;

		for (uint64_t pos = used; pos < end;)
		{
			uint64_t	byte = pos >> 3;

			if ((cf.data[byte] >> (pos & 7)) != 0)
				ERR("padding after the bucket array is not zero");
			pos = (byte + 1) * 8;
		}
	}
	if (v2_victim(&cf, &vb, &ve))
	{
		uint32_t	j,
					e2;

		if (!slot_ok(&cf, vb, ve, err, errlen))
			return false;
		count++;
		if (!bucket_full2(&cf, vb) ||
			(slot_alt(&cf, vb, ve, &j, &e2) && !bucket_full2(&cf, j)))
			ERR("victim slot is in use although its buckets have room");
	}
	if (count != v2_entries(&cf))
		ERR("entry count %llu disagrees with the %llu occupied slots",
			(unsigned long long) v2_entries(&cf), (unsigned long long) count);
	return true;
}
