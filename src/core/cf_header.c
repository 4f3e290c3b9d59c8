/*
 * cf_header.c
 *     A filter's header: construction (cf_init), the view over a buffer
 *     (cf_open) and the fields a caller reads or sets.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_table.h"
#include "cf_v2.h"

cf_interrupt_fn cf_interrupt_hook = NULL;

void
cf_init(void *buf, const cf_params *p)
{
	uint8_t    *h = buf;
	size_t		len;

	if (p->expansion != 0 || p->gen_bits != 0 || p->tail_bits != 0 || p->budget)
	{
		cf2_init(buf, p);
		return;
	}
	len = (size_t) cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort);
	memset(h, 0, len);
	wr32(h + CF_OFF_MAGIC, CF_MAGIC);
	h[CF_OFF_VERSION] = CF_VERSION;
	h[CF_OFF_BUCKET_SIZE] = (uint8_t) p->bucket_size;
	h[CF_OFF_FP_BITS] = (uint8_t) p->fp_bits;
	h[CF_OFF_FLAGS] = p->semisort ? CF_FLAG_SEMISORT : 0;
	wr16(h + CF_OFF_KIND, p->kind);
	wr32(h + CF_OFF_TYPE_TAG, p->type_tag);
	wr32(h + CF_OFF_NUM_BUCKETS, p->num_buckets);
	wr32(h + CF_OFF_MAX_KICKS, p->max_kicks);
	wr64(h + CF_OFF_CAPACITY, p->capacity);
}

void
cf_open(cf_filter *cf, const void *buf, size_t len)
{
	const uint8_t *h = buf;

	cf_ss_init();
	if (len > CF_OFF_VERSION && h[CF_OFF_VERSION] == CF_VERSION_2)
	{
		cf2_open(cf, buf, len);
		return;
	}
	cf->buf = (uint8_t *) buf;
	cf->len = len;
	cf->alloc = len;
	cf->version = CF_VERSION;
	cf->hdr = CF_HEADER_SIZE;
	cf->split = 0;
	cf->t = cf->g = 0;
	cf->grows = false;
	cf->v2_base_bits = 0;
	cf->v2_contains = NULL;		/* cf_contains tests the version first */
	cf->data = cf->buf + CF_HEADER_SIZE;
	cf->m = rd32(h + CF_OFF_NUM_BUCKETS);
	split_buckets(cf->m, &cf->c, &cf->k);
	cf->base = cf->m;
	cf->rmask = (1u << cf->k) - 1;
	cf->b = h[CF_OFF_BUCKET_SIZE];
	cf->f = h[CF_OFF_FP_BITS];
	cf->w = cf->f;
	cf->slot_mask = cf->tmask = cf->gmask = 0;
	cf->semisort = (h[CF_OFF_FLAGS] & CF_FLAG_SEMISORT) != 0;
	cf->fp_range = (uint32_t) ((UINT64_C(1) << cf->f) - 1);
	cf->fp_mask = cf->fp_range;
	cf->low_bits = cf->semisort ? cf->f - 4 : 0;
	cf->bucket_bits = (uint32_t) cf_bucket_bits(cf->b, cf->f, cf->semisort);
	cf->max_kicks = rd32(h + CF_OFF_MAX_KICKS);
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
	cf_choose_paths(cf);
}

void
cf_get_params(const cf_filter *cf, cf_params *p)
{
	if (cf->version == CF_VERSION_2)
	{
		cf2_get_params(cf, p);
		return;
	}
	p->expansion = p->tail_bits = p->gen_bits = 0;
	p->budget = false;
	p->num_buckets = cf->m;
	p->bucket_size = cf->b;
	p->fp_bits = cf->f;
	p->semisort = cf->semisort;
	p->max_kicks = cf->max_kicks;
	p->kind = cf_kind_of(cf);
	p->type_tag = cf_type_tag(cf);
	p->capacity = cf_capacity(cf);
}


/* ------------------------------------------------------------------------
 * Header accessors
 * ------------------------------------------------------------------------ */

uint64_t
cf_items(const cf_filter *cf)
{
	return rd64(cf->buf + CF_OFF_ITEMS);
}

uint64_t
cf_capacity(const cf_filter *cf)
{
	return rd64(cf->buf + CF_OFF_CAPACITY);
}

uint16_t
cf_kind_of(const cf_filter *cf)
{
	return rd16(cf->buf + CF_OFF_KIND);
}

uint32_t
cf_type_tag(const cf_filter *cf)
{
	return rd32(cf->buf + CF_OFF_TYPE_TAG);
}

void
cf_set_kind(cf_filter *cf, uint16_t kind, uint32_t type_tag)
{
	wr16(cf->buf + CF_OFF_KIND, kind);
	wr32(cf->buf + CF_OFF_TYPE_TAG, type_tag);
}

bool
cf_victim_used(const cf_filter *cf)
{
	return (cf->buf[CF_OFF_FLAGS] & CF_FLAG_VICTIM) != 0;
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
