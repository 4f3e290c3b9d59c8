/*
 * cf_header.c
 *     Format 1's header: construction (cf1_init), the view over a buffer
 *     (cf1_open) and its operations table (cf_v1_ops); and the header fields
 *     both formats keep at the same offsets, which a caller reads or sets.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v1.h"

static uint64_t
cf1_init_bytes(const cf_params *p)
{
	return cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort);
}

void
cf1_init(void *buf, const cf_params *p)
{
	uint8_t    *h = buf;
	size_t		len;

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
cf1_open(cf_filter *cf, const void *buf, size_t len)
{
	const uint8_t *h = buf;

	cf_ss_init();
	cf->ops = &cf_v1_ops;
	cf->buf = (uint8_t *) buf;
	cf->len = len;
	cf->alloc = len;
	cf->hdr = CF_HEADER_SIZE;
	cf->split = 0;
	cf->t = cf->g = 0;
	cf->grows = false;
	cf->v2_base_bits = 0;
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
cf1_get_params(const cf_filter *cf, cf_params *p)
{
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

static void
cf1_get_info(const cf_filter *cf, cf_info *out)
{
	out->c = cf->c;
	out->k = cf->k;
	out->initial_buckets = cf->m;
	out->entries = cf_items(cf);
	out->generations = 1;
	out->gen_items[0] = cf_items(cf);
}

/* Bytes of the header, given its first n (n >= CF_HEADER_SIZE). */
static uint64_t
cf1_header_bytes(const uint8_t *prefix, size_t n)
{
	(void) prefix;
	(void) n;
	return CF_HEADER_SIZE;
}

const cf_ops cf_v1_ops = {
	.version = CF_VERSION,
	.caps = 0,
	.check_params = cf1_check_params,
	.init_bytes = cf1_init_bytes,
	.init = cf1_init,
	.check_header = cf1_check_header,
	.validate = cf1_validate,
	.header_bytes = cf1_header_bytes,
	.open = cf1_open,
	.get_params = cf1_get_params,
	.get_info = cf1_get_info,
	.insert_if_absent = cf1_insert_if_absent,
	.insert_many = cf1_insert_many,
	.insert_if_absent_many = cf1_insert_if_absent_many,
	.count = cf1_count,
	.buckets = cf1_buckets,
	.union_into = cf1_union_into,
};


/* ------------------------------------------------------------------------
 * Header accessors (the fields both formats keep at the same offsets)
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
