/*
 * cf_api.c
 *     The core's entry points that do not depend on the format: each filter's
 *     operations table (cf_ops.h) is chosen here, once, from the bytes (the
 *     VERSION byte) or from the creation parameters, and every entry point
 *     then calls the format's function.  The one file of the core that
 *     compares format versions; the only place of the unknown-version
 *     message.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_ops.h"

#include <stddef.h>
#include <stdio.h>

/* cf.h: a lookup of the common shapes reads the view's first two lines */
_Static_assert(sizeof(void *) != 8 || offsetof(cf_filter, len) == 128,
			   "the lookup's fields of cf_filter fill its first 128 bytes");

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

cf_interrupt_fn cf_interrupt_hook = NULL;
cf_realloc_fn cf_realloc_hook = NULL;

/* ------------------------------------------------------------------------
 * Choosing the format
 * ------------------------------------------------------------------------ */

const cf_ops *
cf_ops_of_version(uint32_t version)
{
	if (version == CF_VERSION)
		return &cf_v1_ops;
	if (version == CF_VERSION_2)
		return &cf_v2_ops;
	return NULL;
}

/* The format cf_init writes for p: version 2 for any of its parameters. */
static const cf_ops *
ops_of_params(const cf_params *p)
{
	if (p->expansion != 0 || p->gen_bits != 0 || p->tail_bits != 0 || p->budget)
		return &cf_v2_ops;
	return &cf_v1_ops;
}

/* ------------------------------------------------------------------------
 * Construction, checks and views
 * ------------------------------------------------------------------------ */

bool
cf_check_params(const cf_params *p, char *err, size_t errlen)
{
	return ops_of_params(p)->check_params(p, err, errlen);
}

uint64_t
cf_init_bytes(const cf_params *p)
{
	return ops_of_params(p)->init_bytes(p);
}

void
cf_init(void *buf, const cf_params *p)
{
	ops_of_params(p)->init(buf, p);
}

/*
 * The checks of the format, after those every format shares: the length of
 * the smallest header, the magic and a known version.
 */
static const cf_ops *
check_common(const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *h = buf;
	const cf_ops *ops;

	if (len < CF_HEADER_SIZE)
	{
		if (err)
			snprintf(err, errlen, "%zu bytes is shorter than the %d-byte header",
					 len, CF_HEADER_SIZE);
		return NULL;
	}
	if (!cf_check_magic(rd32(h + CF_OFF_MAGIC), err, errlen))
		return NULL;
	ops = cf_ops_of_version(h[CF_OFF_VERSION]);
	if (ops == NULL && err)
		snprintf(err, errlen, "format version %u is not supported (this build reads versions %d and %d)",
				 h[CF_OFF_VERSION], CF_VERSION, CF_VERSION_2);
	return ops;
}

bool
cf_check_header(const void *buf, size_t len, char *err, size_t errlen)
{
	const cf_ops *ops = check_common(buf, len, err, errlen);

	return ops != NULL && ops->check_header(buf, len, err, errlen);
}

bool
cf_validate(const void *buf, size_t len, char *err, size_t errlen)
{
	const cf_ops *ops = check_common(buf, len, err, errlen);

	return ops != NULL && ops->validate(buf, len, err, errlen);
}

/*
 * The view of bytes that passed cf_check_header (or that the core wrote).
 * Bytes of no known version are read as format 1, as they always were.
 */
void
cf_open(cf_filter *cf, const void *buf, size_t len)
{
	const cf_ops *ops = len > CF_OFF_VERSION ?
		cf_ops_of_version(((const uint8_t *) buf)[CF_OFF_VERSION]) : NULL;

	(ops != NULL ? ops : &cf_v1_ops)->open(cf, buf, len);
}

void
cf_get_params(const cf_filter *cf, cf_params *p)
{
	cf->ops->get_params(cf, p);
}

uint32_t
cf_version(const cf_filter *cf)
{
	return cf->ops->version;
}

uint32_t
cf_caps(const cf_filter *cf)
{
	return cf->ops->caps;
}

void
cf_get_info(const cf_filter *cf, cf_info *out)
{
	memset(out, 0, sizeof *out);
	out->version = cf->ops->version;
	out->caps = cf->ops->caps;
	cf->ops->get_info(cf, out);
}

/* ------------------------------------------------------------------------
 * Item operations: one indirect call each
 * ------------------------------------------------------------------------ */

bool
cf_contains(const cf_filter *cf, uint64_t h)
{
	return cf->contains_fn(cf, h);
}

void
cf_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out)
{
	cf->contains_many_fn(cf, h, n, out);
}

/*
 * Requests the lines of a view that a lookup of the common shapes reads (the
 * first two: cf.h), for cf_contains_each.
 */
static inline void
prefetch_view(const cf_filter *cf)
{
	__builtin_prefetch((const char *) cf, 0, 1);
	__builtin_prefetch((const char *) cf + 64, 0, 1);
}

/* cf_contains_each's distances (set at build time to measure others) */
#ifndef CF_EACH_AHEAD
#define CF_EACH_AHEAD	8
#endif
#ifndef CF_EACH_VIEW_AHEAD
#define CF_EACH_VIEW_AHEAD	16
#endif

/* Requests the header (its victim flag) and the two candidate buckets of h. */
static inline void
prefetch_lookup(const cf_filter *cf, uint64_t h)
{
	uint32_t	i1,
				i2;

	__builtin_prefetch(cf->buf, 0, 1);
	cf->ops->buckets(cf, h, &i1, &i2);
	prefetch_bucket(cf, i1);
	prefetch_bucket(cf, i2);
}

/*
 * Lookups of h[j] in cfs[j], each in its own view (a stored filter's
 * segments: one key per segment in a batch is the rule), pipelined as
 * cf_contains_many: the view of lookup j + CF_EACH_VIEW_AHEAD and the
 * buckets of lookup j + CF_EACH_AHEAD are requested while lookup j is
 * answered.  The view comes first because the buckets' addresses depend on
 * it.
 */
void
cf_contains_each(const cf_filter *const *cfs, const uint64_t *h, size_t n, bool *out)
{
	const size_t ahead = CF_EACH_AHEAD,
				view_ahead = CF_EACH_VIEW_AHEAD;

	for (size_t j = 0; j < n && j < view_ahead; j++)
		prefetch_view(cfs[j]);
	for (size_t j = 0; j < n && j < ahead; j++)
		prefetch_lookup(cfs[j], h[j]);
	for (size_t j = 0; j < n; j++)
	{
		if (j + view_ahead < n)
			prefetch_view(cfs[j + view_ahead]);
		if (j + ahead < n)
			prefetch_lookup(cfs[j + ahead], h[j + ahead]);
		out[j] = cf_contains(cfs[j], h[j]);
	}
}

bool
cf_remove(cf_filter *cf, uint64_t h)
{
	return cf->remove_fn(cf, h);
}

cf_status
cf_insert(cf_filter *cf, uint64_t h)
{
	return cf->insert_fn(cf, h);
}

/* with generations, a value seen again is moved to the current one */
cf_status
cf_insert_if_absent(cf_filter *cf, uint64_t h)
{
	return cf->ops->insert_if_absent(cf, h);
}

size_t
cf_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st)
{
	return cf->ops->insert_many(cf, h, n, st);
}

size_t
cf_insert_if_absent_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st)
{
	return cf->ops->insert_if_absent_many(cf, h, n, st);
}

uint32_t
cf_count(const cf_filter *cf, uint64_t h)
{
	return cf->ops->count(cf, h);
}

int
cf_remove_saturating(cf_filter *cf, uint64_t h, uint32_t level)
{
	/* without tails every entry of the fingerprint matches every value of it */
	if (cf->ops->remove_saturating == NULL || cf->t == 0)
	{
		if (cf_count(cf, h) >= level)
			return -1;
		return cf_remove(cf, h) ? 1 : 0;
	}
	return cf->ops->remove_saturating(cf, h, level);
}

/* ------------------------------------------------------------------------
 * Whole-filter operations
 * ------------------------------------------------------------------------ */

/* Filters of different formats have different shapes. */
cf_status
cf_union_into(cf_filter *dst, const cf_filter *src)
{
	if (dst->ops != src->ops)
		return CF_SHAPE_MISMATCH;
	return dst->ops->union_into(dst, src);
}
