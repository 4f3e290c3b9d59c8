/*
 * cf_v2_rotate.c
 *     Rotation (cf_rotate): a new generation is started and the oldest
 *     dropped.  The one conversion between formats: a format-1 filter
 *     rotates into format 2.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

/* ------------------------------------------------------------------------
 * Rotation
 * ------------------------------------------------------------------------ */

static void
rotate_in_place(cf_filter *cf, uint32_t keep)
{
	uint32_t	cur = (v2_cur_gen(cf) + 1) & cf->gmask;
	uint32_t	vb,
				ve;
	uint64_t	items = header_items(cf);

	cf->buf[CF_V2_OFF_CUR_GEN] = (uint8_t) cur;
	cf->buf[CF_V2_OFF_KEEP] = (uint8_t) keep;
	for (uint32_t i = 0; i < cf->m; i++)
	{
		CF_CHECK_INTERRUPTS(i);
		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	e = rd_slot(cf, i, j);

			if (e != 0 && slot_age(cf, e) >= keep)
			{
				wr_slot(cf, i, j, 0);
				v2_add_entries(cf, -1);
			}
		}
	}
	if (v2_victim(cf, &vb, &ve) && slot_age(cf, ve) >= keep)
	{
		clear_victim(cf);
		v2_add_entries(cf, -1);
	}
	for (uint32_t x = 0; x <= cf->gmask; x++)
	{
		if (((cur - x) & cf->gmask) >= keep)
		{
			items -= rd64(gi_at(cf, x));
			wr64(gi_at(cf, x), 0);
		}
	}
	/* items <= entries: the oldest generations give way */
	for (uint32_t age = keep; age-- > 0 && items > v2_entries(cf);)
	{
		uint8_t    *p = gi_at(cf, (cur - age) & cf->gmask);
		uint64_t	cut = items - v2_entries(cf);

		if (cut > rd64(p))
			cut = rd64(p);
		wr64(p, rd64(p) - cut);
		items -= cut;
	}
	wr64(cf->buf + CF_V2_OFF_ITEMS, items);
	victim_retry(cf);
}

/* The tail bits of a version-2 src rotated to g generation bits. */
static uint32_t
rotate_tail(const cf_filter *src, uint32_t g)
{
	uint32_t	t = src->t;

	if (src->budget && g > src->g)
	{
		int			tt = cf_budget_tail(src->c, src->k, src->f, g);

		if (tt >= CF_V2_MIN_TAIL_BITS && (uint32_t) tt < t)
			t = (uint32_t) tt;
	}
	return t;
}

/* A slot of src with its tail cut to t bits (the lowest spare bits kept)
 * and no generation field. */
static uint32_t
rotate_fp_tail(const cf_filter *src, uint32_t e, uint32_t t)
{
	uint32_t	tail = slot_tail(src, e);
	uint32_t	s = log2_32(tail);

	if (src->t && s >= t)
		tail = (UINT32_C(1) << (t - 1)) | (tail & mask32(t - 1));
	return (e & src->fp_mask) | (tail << src->f);
}

/* Generation bits a rotation with keep needs for a filter with g bits. */
static uint32_t
rotate_gen_bits(uint32_t g, uint32_t keep)
{
	while ((UINT32_C(1) << g) <= keep)
		g++;
	return g;
}

size_t
cf_rotate_bytes(const cf_filter *src, uint32_t keep)
{
	uint32_t	g,
				t,
				b = src->b;
	uint64_t	total;

	if (keep < 1 || keep > CF_MAX_KEEP)
		return 0;
	if (src->ops->caps & CF_CAP_GENERATIONS)
	{
		g = rotate_gen_bits(src->g, keep);
		/* docs/FORMAT.md 13.12 rules 1 and 6: the tail gives way */
		if (src->budget && g > src->g &&
			cf_budget_tail(src->c, src->k, src->f, g) < CF_V2_MIN_TAIL_BITS)
			return 0;
		t = rotate_tail(src, g);
	}
	else
	{
		g = rotate_gen_bits(0, keep);
		t = 0;
	}
	if (src->f + t + g > 32)
		return 0;
	total = cf2_total_bytes(src->m, b, src->f + t + g, g);
	if (total > CF_MAX_BYTES)
		return 0;
	return (size_t) total;
}

void
cf_rotate(const cf_filter *src, uint32_t keep, void *dst)
{
	uint8_t    *h = dst;
	size_t		len = cf_rotate_bytes(src, keep);
	cf_filter	d;
	bool		gens = (src->ops->caps & CF_CAP_GENERATIONS) != 0;
	uint32_t	g = gens ? rotate_gen_bits(src->g, keep) : rotate_gen_bits(0, keep);

	if (len == 0)
		return;
	if (gens && g == src->g)
	{
		memcpy(h, src->buf, len);
		cf2_open(&d, h, len);
		rotate_in_place(&d, keep);
		CF_ASSERT_VALID(&d, "cf_rotate");
		return;
	}
	memset(h, 0, len);
	wr32(h + CF_V2_OFF_MAGIC, CF_MAGIC);
	h[CF_V2_OFF_VERSION] = CF_VERSION_2;
	h[CF_V2_OFF_BUCKET_SIZE] = (uint8_t) src->b;
	h[CF_V2_OFF_FP_BITS] = (uint8_t) src->f;
	h[CF_V2_OFF_FLAGS] = gens && src->grows ?
		(src->budget ? CF_FLAG_GROWS | CF_FLAG_BUDGET : CF_FLAG_GROWS) : 0;
	wr16(h + CF_V2_OFF_KIND, cf_kind_of(src));
	/* the tail of the result's width (13.12 rule 6: narrower with a budget) */
	h[CF_V2_OFF_TAIL_BITS] = (uint8_t) (gens ? rotate_tail(src, g) : 0);
	h[CF_V2_OFF_GEN_BITS] = (uint8_t) g;
	wr32(h + CF_V2_OFF_TYPE_TAG, cf_type_tag(src));
	wr32(h + CF_V2_OFF_NUM_BUCKETS, src->m);
	wr32(h + CF_V2_OFF_MAX_KICKS, src->max_kicks);
	wr64(h + CF_V2_OFF_ITEMS, cf_items(src));
	wr64(h + CF_V2_OFF_CAPACITY, cf_capacity(src));
	wr16(h + CF_V2_OFF_MANTISSA, (uint16_t) src->c);
	if (gens)
	{
		h[CF_V2_OFF_CUR_GEN] = (uint8_t) v2_cur_gen(src);
		h[CF_V2_OFF_KEEP] = (uint8_t) v2_keep(src);
		wr32(h + CF_V2_OFF_INITIAL_BUCKETS, rd32(src->buf + CF_V2_OFF_INITIAL_BUCKETS));
		wr64(h + CF_V2_OFF_ENTRIES, v2_entries(src));
	}
	else
	{
		wr32(h + CF_V2_OFF_INITIAL_BUCKETS, src->m);
		wr64(h + CF_V2_OFF_ENTRIES, cf_items(src));
	}
	cf2_open(&d, h, len);
	if (gens)
	{
		uint32_t	cur = v2_cur_gen(src);

		/* same ages under wider tags */
		for (uint32_t age = 0; age <= src->gmask; age++)
			wr64(gi_at(&d, (cur - age) & d.gmask),
				 src->g ? rd64(gi_at(src, (cur - age) & src->gmask)) : (age == 0 ? cf_items(src) : 0));
		for (uint32_t i = 0; i < src->m; i++)
		{
			CF_CHECK_INTERRUPTS(i);
			for (uint32_t j = 0; j < src->b; j++)
			{
				uint32_t	e = rd_slot(src, i, j);

				if (e)
					wr_slot(&d, i, j, rotate_fp_tail(src, e, d.t) |
							(((cur - slot_age(src, e)) & d.gmask) << (d.f + d.t)));
			}
		}
		if (victim_in_use(src))
		{
			uint32_t	ve = rd32(src->buf + CF_V2_OFF_VICTIM_SLOT);

			set_victim(&d, rd32(src->buf + CF_V2_OFF_VICTIM_BUCKET),
					   rotate_fp_tail(src, ve, d.t) |
					   (((cur - slot_age(src, ve)) & d.gmask) << (d.f + d.t)));
		}
	}
	else
	{
		/* version 1: bucket (q << k) | r becomes r * c + q, generation 0 */
		wr64(gi_at(&d, 0), cf_items(src));
		for (uint32_t i = 0; i < src->m; i++)
		{
			uint32_t	fps[8];
			uint32_t	ni = (i & src->rmask) * src->c + (i >> src->k);

			CF_CHECK_INTERRUPTS(i);
			read_bucket(src, i, fps);
			for (uint32_t j = 0; j < src->b; j++)
				if (fps[j])
					wr_slot(&d, ni, j, fps[j]);
		}
		if (victim_in_use(src))
		{
			uint32_t	vb = rd32(src->buf + CF_OFF_VICTIM_BUCKET);

			set_victim(&d, (vb & src->rmask) * src->c + (vb >> src->k),
					   rd32(src->buf + CF_OFF_VICTIM_FP));
		}
	}
	rotate_in_place(&d, keep);
	CF_ASSERT_VALID(&d, "cf_rotate");
}
