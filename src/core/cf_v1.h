/*
 * cf_v1.h
 *     Format version 1 (fixed filters, docs/FORMAT.md sections 1-12): what
 *     its files lend each other, grouped by the file that defines it, and
 *     the word probe that its lookups share.  Internal to src/core/.
 */
#ifndef CF_V1_H
#define CF_V1_H

#include "cf_ops.h"

/*
 * How far ahead a batch requests the buckets of a later hash (insert_many,
 * contains_many).
 */
#define CF_BATCH_AHEAD	8

/* cf_header.c */
extern void cf1_init(void *buf, const cf_params *p) CF_HIDDEN;
extern void cf1_open(cf_filter *cf, const void *buf, size_t len) CF_HIDDEN;
extern void cf1_get_params(const cf_filter *cf, cf_params *p) CF_HIDDEN;

/* cf_validate.c */
extern bool cf1_check_params(const cf_params *p, char *err, size_t errlen) CF_HIDDEN;
extern bool cf1_check_header(const void *buf, size_t len, char *err, size_t errlen) CF_HIDDEN;
extern bool cf1_validate(const void *buf, size_t len, char *err, size_t errlen) CF_HIDDEN;

/* cf_table.c */
/* Stores fp with first candidate bucket i1. */
extern cf_status cf_insert_fingerprint(cf_filter *cf, uint32_t i1, uint32_t fp,
									   uint64_t seed, bool check_copies) CF_HIDDEN;
/* Copies of fp in the pair (i1, i2), the victim slot included. */
extern uint32_t cf_pair_count(const cf_filter *cf, uint32_t i1, uint32_t i2,
							  uint32_t fp) CF_HIDDEN;
extern void cf1_reinsert_victim(cf_filter *cf) CF_HIDDEN;
/*
 * The lookup, insert and delete for every shape; the unit tests compare the
 * ones cf_choose_paths chooses with them.
 */
extern bool cf_contains_generic(const cf_filter *cf, uint64_t h) CF_HIDDEN;
extern void cf_contains_many_generic(const cf_filter *cf, const uint64_t *h, size_t n,
									 bool *out) CF_HIDDEN;
extern bool cf_remove_generic(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern cf_status cf_insert_generic(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern size_t cf1_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st) CF_HIDDEN;
extern cf_status cf1_insert_if_absent(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern uint32_t cf1_count(const cf_filter *cf, uint64_t h) CF_HIDDEN;
extern void cf1_buckets(const cf_filter *cf, uint64_t h, uint32_t *i1, uint32_t *i2) CF_HIDDEN;

/* cf_shape.c: sets the view's lookup, insert and delete for its shape */
extern void cf_choose_paths(cf_filter *cf) CF_HIDDEN;

/* cf_build.c */
extern size_t cf1_insert_if_absent_many(cf_filter *cf, const uint64_t *h, size_t n,
										cf_status *st) CF_HIDDEN;

/* cf_union.c */
extern cf_status cf1_union_into(cf_filter *dst, const cf_filter *src) CF_HIDDEN;

/*
 * The common shape (plain buckets that fit one 64-bit load) probed without
 * branches until the answer: both buckets loaded as words and tested
 * together.  Same arithmetic as locate() and alt_bucket().  The constants are
 * copied out of the view once per call or batch, so a loop keeps them in
 * registers.
 */
typedef struct word_probe
{
	const uint8_t *data;
	uint64_t	lo_ones,
				hi_bits,
				bucket_mask;
	uint32_t	c,
				k,
				rmask,
				fp_range,
				bucket_bits;
} word_probe;

static CF_ALWAYS_INLINE void
word_probe_init(word_probe *w, const cf_filter *cf)
{
	w->data = cf->data;
	w->lo_ones = cf->lo_ones;
	w->hi_bits = cf->hi_bits;
	w->bucket_mask = cf->bucket_mask;
	w->c = cf->c;
	w->k = cf->k;
	w->rmask = cf->rmask;
	w->fp_range = cf->fp_range;
	w->bucket_bits = cf->bucket_bits;
}

/* Fingerprint and both bit positions of h's buckets. */
static CF_ALWAYS_INLINE void
word_probe_locate(const word_probe *w, uint64_t h, uint32_t *fp,
				  uint32_t *i1, uint32_t *i2)
{
	uint32_t	q = fastrange32((uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32), w->c);
	uint32_t	r = (uint32_t) (h >> 32) & w->rmask;
	uint64_t	hf;
	uint32_t	hq,
				q2;

	*fp = 1 + fastrange32((uint32_t) h, w->fp_range);
	hf = fp_hash(*fp);
	hq = fastrange32((uint32_t) hf, w->c);
	q2 = hq - q + (hq < q ? w->c : 0);
	*i1 = (q << w->k) | r;
	*i2 = (q2 << w->k) | (r ^ ((uint32_t) (hf >> 32) & w->rmask));
}

static CF_ALWAYS_INLINE bool
word_probe_test(const word_probe *w, uint32_t fp, uint32_t i1, uint32_t i2)
{
	uint64_t	p1 = (uint64_t) i1 * w->bucket_bits;
	uint64_t	p2 = (uint64_t) i2 * w->bucket_bits;
	uint64_t	fpx = fp * w->lo_ones;
	uint64_t	x1 = ((load_le64(w->data + (p1 >> 3)) >> (p1 & 7)) & w->bucket_mask) ^ fpx;
	uint64_t	x2 = ((load_le64(w->data + (p2 >> 3)) >> (p2 & 7)) & w->bucket_mask) ^ fpx;

	return ((((x1 - w->lo_ones) & ~x1) | ((x2 - w->lo_ones) & ~x2)) & w->hi_bits) != 0;
}

static CF_ALWAYS_INLINE void
word_probe_prefetch(const word_probe *w, uint32_t i)
{
	prefetch_in(w->data, w->bucket_bits, i);
}

#endif							/* CF_V1_H */
