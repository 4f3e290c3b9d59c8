/*
 * cf_v2_header.c
 *     Format 2's header: the parameters (cf2_check_params, cf_params_growing,
 *     the address budget's tail bits), construction (cf2_init), the view over
 *     a buffer (cf2_open), the information cuckoo_info reports, and format
 *     2's operations table (cf_v2_ops).
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

#include <stdio.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

int
cf_budget_tail(uint32_t c, uint32_t k, uint32_t f, uint32_t g)
{
	int			a = (int) budget_abits(c ? c : 1) - (int) k + 1;
	int			room = 32 - (int) f - (int) g;

	return a < room ? a : room;
}

uint64_t
cf2_total_bytes(uint64_t m, uint32_t b, uint32_t w, uint32_t g)
{
	return v2_hdr_bytes(g) + (m * b * w + 63) / 64 * 8 + CF_DATA_SLACK_BYTES;
}

/* ------------------------------------------------------------------------
 * Construction, views, parameters
 * ------------------------------------------------------------------------ */

bool
cf2_check_params(const cf_params *p, char *err, size_t errlen)
{
	uint64_t	total;

	if (p->expansion != 0 && p->expansion != 2)
		ERR("expansion %u must be 0 (fixed) or 2 (grows)", p->expansion);
	if (p->bucket_size != 4 || p->semisort)
		ERR("a version-2 (growing or rotating) filter needs bucket size 4 without semi-sorting");
	if (!cf_check_fp_bits(p->fp_bits, err, errlen))
		return false;
	if (p->expansion == 2 && !p->budget &&
		(p->tail_bits < CF_V2_MIN_TAIL_BITS || p->tail_bits > CF_V2_MAX_TAIL_BITS))
		ERR("tail bits %u are outside the range %d to %d for a growing filter",
			p->tail_bits, CF_V2_MIN_TAIL_BITS, CF_V2_MAX_TAIL_BITS);
	if (p->expansion == 0 && p->tail_bits != 0)
		ERR("tail bits %u need expansion 2", p->tail_bits);
	if (p->budget && p->expansion != 2)
		ERR("the address budget needs expansion 2");
	if (p->gen_bits > CF_V2_MAX_GEN_BITS)
		ERR("generation bits %u are outside the range 0 to %d",
			p->gen_bits, CF_V2_MAX_GEN_BITS);
	if (p->fp_bits + p->tail_bits + p->gen_bits > 32)
		ERR("fingerprint, tail and generation bits (%u + %u + %u) exceed 32",
			p->fp_bits, p->tail_bits, p->gen_bits);
	if (!cf_buckets_representable(p->num_buckets))
		ERR("bucket count %u is not of the form c * 2^k with c < 256",
			p->num_buckets);
	if (p->budget)
	{
		uint32_t	c,
					k0;
		int			tt;

		split_buckets(p->num_buckets, &c, &k0);
		tt = cf_budget_tail(c, k0, p->fp_bits, p->gen_bits);
		if (tt < CF_V2_MIN_TAIL_BITS)
			ERR("fingerprint and generation bits (%u + %u) leave fewer than %d tail bits for the address budget",
				p->fp_bits, p->gen_bits, CF_V2_MIN_TAIL_BITS);
		if (p->tail_bits != (uint32_t) tt)
			ERR("tail bits %u differ from the %d that the address budget gives %u buckets",
				p->tail_bits, tt, p->num_buckets);
	}
	if (!cf_check_max_kicks(p->max_kicks, err, errlen) ||
		!cf_check_kind_tag(p->kind, p->type_tag, err, errlen))
		return false;
	if (p->capacity < 1 || p->capacity > (uint64_t) p->num_buckets * p->bucket_size)
		ERR("capacity %llu is outside the range 1 to %llu for %u buckets",
			(unsigned long long) p->capacity,
			(unsigned long long) p->num_buckets * p->bucket_size,
			p->num_buckets);
	total = cf2_total_bytes(p->num_buckets, p->bucket_size,
							p->fp_bits + p->tail_bits + p->gen_bits, p->gen_bits);
	return cf_check_total_bytes(p->num_buckets, total, err, errlen);
}

void
cf2_init(void *buf, const cf_params *p)
{
	uint8_t    *h = buf;
	uint32_t	w = p->fp_bits + p->tail_bits + p->gen_bits;
	size_t		len = (size_t) cf2_total_bytes(p->num_buckets, p->bucket_size, w, p->gen_bits);
	uint32_t	c,
				k;

	split_buckets(p->num_buckets, &c, &k);
	memset(h, 0, len);
	wr32(h + CF_V2_OFF_MAGIC, CF_MAGIC);
	h[CF_V2_OFF_VERSION] = CF_VERSION_2;
	h[CF_V2_OFF_BUCKET_SIZE] = (uint8_t) p->bucket_size;
	h[CF_V2_OFF_FP_BITS] = (uint8_t) p->fp_bits;
	h[CF_V2_OFF_FLAGS] = p->expansion == 2 ? (p->budget ? CF_FLAG_GROWS | CF_FLAG_BUDGET : CF_FLAG_GROWS) : 0;
	wr16(h + CF_V2_OFF_KIND, p->kind);
	h[CF_V2_OFF_TAIL_BITS] = (uint8_t) p->tail_bits;
	h[CF_V2_OFF_GEN_BITS] = (uint8_t) p->gen_bits;
	wr32(h + CF_V2_OFF_TYPE_TAG, p->type_tag);
	wr32(h + CF_V2_OFF_NUM_BUCKETS, p->num_buckets);
	wr32(h + CF_V2_OFF_MAX_KICKS, p->max_kicks);
	wr64(h + CF_V2_OFF_CAPACITY, p->capacity);
	wr16(h + CF_V2_OFF_MANTISSA, (uint16_t) c);
	wr32(h + CF_V2_OFF_INITIAL_BUCKETS, p->num_buckets);
}

void
cf2_open(cf_filter *cf, const void *buf, size_t len)
{
	cf->ops = &cf_v2_ops;
	cf->buf = (uint8_t *) buf;
	cf->len = len;
	cf->alloc = len;
	v2_refresh(cf);
}

/* k, base, split and the masks that follow from m and c. */
void
v2_set_geometry(cf_filter *cf)
{
	uint32_t	k = 0;

	while (((uint64_t) cf->c << (k + 1)) <= cf->m)
		k++;
	cf->k = k;
	cf->base = cf->c << k;
	cf->split = cf->m - cf->base;
	cf->rmask = mask32(k);
	cf->v2_base_bits = (uint64_t) cf->base * cf->b * cf->w;
}

/* The view's fields from the header at cf->buf (cf2_open; after a narrowing). */
void
v2_refresh(cf_filter *cf)
{
	const uint8_t *h = cf->buf;

	cf->b = h[CF_V2_OFF_BUCKET_SIZE];
	cf->f = h[CF_V2_OFF_FP_BITS];
	cf->t = h[CF_V2_OFF_TAIL_BITS];
	cf->g = h[CF_V2_OFF_GEN_BITS];
	cf->w = cf->f + cf->t + cf->g;
	cf->slot_mask = mask32(cf->w);
	cf->tmask = mask32(cf->t);
	cf->gmask = mask32(cf->g);
	cf->hdr = v2_hdr_bytes(cf->g);
	cf->data = cf->buf + cf->hdr;
	cf->grows = (h[CF_V2_OFF_FLAGS] & CF_FLAG_GROWS) != 0;
	cf->budget = (h[CF_V2_OFF_FLAGS] & CF_FLAG_BUDGET) != 0;
	cf->m = rd32(h + CF_V2_OFF_NUM_BUCKETS);
	cf->c = rd16(h + CF_V2_OFF_MANTISSA);
	if (cf->c == 0)
		cf->c = 1;				/* unvalidated bytes: keep arithmetic defined */
	cf->abits = cf->budget ? budget_abits(cf->c) : CF_V2_ADDR_BITS;
	v2_set_geometry(cf);
	cf->semisort = false;
	cf->fp_range = (uint32_t) ((UINT64_C(1) << cf->f) - 1);
	cf->fp_mask = cf->fp_range;
	cf->low_bits = 0;
	cf->bucket_bits = cf->b * cf->w;
	cf->max_kicks = rd32(h + CF_V2_OFF_MAX_KICKS);
	cf->lo_ones = cf->hi_bits = cf->bucket_mask = 0;
	cf->ss_lo_ones = cf->ss_hi_bits = 0;
	cf->word_probe = false;
	cf->ss_word_probe = false;
	memset(cf->p2_ones, 0, sizeof cf->p2_ones);
	cf->v2_tone = cf->v2_fpt = cf->v2_tails = cf->v2_carry = 0;
#if defined(__SIZEOF_INT128__)
	if (cf->f >= CF_MIN_FP_BITS && cf->f <= 32)
		v2_probe4_setup(cf);
#endif
	v2_choose_lookup(cf);
	cf->contains_many_fn = cf2_contains_many;
	cf->insert_fn = cf2_insert;
	cf->remove_fn = cf2_remove;
}

void
cf2_get_params(const cf_filter *cf, cf_params *p)
{
	memset(p, 0, sizeof *p);
	p->num_buckets = rd32(cf->buf + CF_V2_OFF_INITIAL_BUCKETS);
	p->bucket_size = cf->b;
	p->fp_bits = cf->f;
	p->semisort = false;
	p->max_kicks = cf->max_kicks;
	p->kind = cf_kind_of(cf);
	p->type_tag = cf_type_tag(cf);
	p->capacity = cf_capacity(cf);
	p->expansion = cf->grows ? 2 : 0;
	p->tail_bits = cf->t;
	p->gen_bits = cf->g;
	p->budget = cf->budget;
	if (cf->budget)
	{
		uint32_t	c,
					k0;

		split_buckets(p->num_buckets, &c, &k0);
		p->tail_bits = (uint32_t) cf_budget_tail(c, k0, cf->f, cf->g);
	}
}

uint64_t
cf2_init_bytes(const cf_params *p)
{
	return cf2_total_bytes(p->num_buckets, p->bucket_size,
						   p->fp_bits + p->tail_bits + p->gen_bits, p->gen_bits);
}

bool
cf_params_growing(uint64_t capacity, double fpr, uint32_t max_kicks,
				  cf_params *p, char *err, size_t errlen)
{
	int			ff;
	uint32_t	m;

	memset(p, 0, sizeof *p);
	if (!(fpr > 0.0 && fpr < 1.0))
		ERR("false-positive rate %g is outside the open range 0 to 1", fpr);
	if (capacity < 1)
		ERR("capacity must be at least 1");
	ff = cf_fp_bits_for_fpr(fpr, 4);
	if (ff < 0 || ff - 4 + CF_V2_MIN_TAIL_BITS > 32)
		ERR("false-positive rate %g is too small for a growing filter", fpr);
	m = cf_buckets_for_capacity(capacity, 4);
	if (m == 0)
		ERR("capacity %llu is too large", (unsigned long long) capacity);
	p->num_buckets = m;
	p->bucket_size = 4;
	p->fp_bits = (uint32_t) (ff - 4 < CF_MIN_FP_BITS ? CF_MIN_FP_BITS : ff - 4);
	p->semisort = false;
	p->max_kicks = max_kicks;
	p->kind = CF_KIND_ANY;
	p->type_tag = 0;
	p->capacity = capacity;
	p->expansion = 2;
	p->budget = true;
	p->gen_bits = 0;
	{
		uint32_t	c,
					k0;

		split_buckets(m, &c, &k0);
		p->tail_bits = (uint32_t) cf_budget_tail(c, k0, p->fp_bits, 0);
	}
	return cf2_check_params(p, err, errlen);
}

/* ------------------------------------------------------------------------
 * Information
 * ------------------------------------------------------------------------ */

void
cf2_get_info(const cf_filter *cf, cf_info *out)
{
	out->expansion = cf->grows ? 2 : 0;
	out->addr_budget = cf->budget ? cf->abits : 0;
	out->tail_bits = cf->t;
	out->gen_bits = cf->g;
	out->c = cf->c;
	out->k = cf->k;
	out->split = cf->split;
	out->initial_buckets = rd32(cf->buf + CF_V2_OFF_INITIAL_BUCKETS);
	out->entries = v2_entries(cf);
	out->cur_gen = v2_cur_gen(cf);
	out->keep = v2_keep(cf);
	if (cf->g == 0)
	{
		out->generations = 1;
		out->gen_items[0] = cf_items(cf);
		return;
	}
	out->generations = out->keep ? out->keep : 1;
	for (uint32_t age = 0; age < out->generations; age++)
		out->gen_items[age] = rd64(gi_at(cf, (out->cur_gen - age) & cf->gmask));
}

/* Bytes of the header with the per-generation counts, given its first n
 * (n >= CF_V2_HEADER_SIZE or the whole filter); 0 if g is out of range. */
static uint64_t
cf2_header_bytes(const uint8_t *prefix, size_t n)
{
	uint32_t	g;

	if (n < CF_V2_HEADER_SIZE)
		return 0;
	g = prefix[CF_V2_OFF_GEN_BITS];
	if (g > CF_V2_MAX_GEN_BITS)
		return 0;
	return CF_V2_HEADER_SIZE + (g ? (UINT64_C(8) << g) : 0);
}

const cf_ops cf_v2_ops = {
	.version = CF_VERSION_2,
	.caps = CF_CAP_GROWS | CF_CAP_GENERATIONS | CF_CAP_COMPACTS | CF_CAP_CREATION_SHAPE,
	.check_params = cf2_check_params,
	.init_bytes = cf2_init_bytes,
	.init = cf2_init,
	.check_header = cf2_check_header,
	.validate = cf2_validate,
	.header_bytes = cf2_header_bytes,
	.open = cf2_open,
	.get_params = cf2_get_params,
	.get_info = cf2_get_info,
	.insert_if_absent = cf2_insert_if_absent,
	.insert_many = cf2_insert_many,
	.insert_if_absent_many = cf2_insert_if_absent_many,
	.count = cf2_count,
	.remove_saturating = cf2_remove_saturating,
	.buckets = cf2_buckets,
	.union_into = cf2_union_into,
};
