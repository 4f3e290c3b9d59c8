/*
 * cf_ops.h
 *     The operations of one format version: a table of functions per format
 *     (format 1: cf_header.c, format 2: cf_v2_header.c), chosen once from the
 *     bytes (cf_open, cf_check_header, cf_validate) or from the creation
 *     parameters (cf_check_params, cf_init, cf_init_bytes) by cf_api.c, the
 *     one file of the core that compares format versions.  A view keeps its
 *     table (cf_filter.ops); the per-item functions sit in the view itself
 *     (contains_fn, insert_fn, remove_fn, contains_many_fn), set by the
 *     format's open for the filter's shape.  Internal to src/core/.
 */
#ifndef CF_OPS_H
#define CF_OPS_H

#include "cf_internal.h"

typedef struct cf_ops
{
	uint32_t	version;		/* the header's VERSION byte */
	uint32_t	caps;			/* CF_CAP_* (cf.h) */

	/* creation (the parameters chose the format) */
	bool		(*check_params) (const cf_params *p, char *err, size_t errlen);
	uint64_t	(*init_bytes) (const cf_params *p);
	void		(*init) (void *buf, const cf_params *p);

	/*
	 * Untrusted bytes whose length (>= CF_HEADER_SIZE), magic and version
	 * cf_api.c has checked: the O(1) header checks, and the full validation
	 * (the header checks again, then every bucket).
	 */
	bool		(*check_header) (const void *buf, size_t len, char *err, size_t errlen);
	bool		(*validate) (const void *buf, size_t len, char *err, size_t errlen);
	/* the bytes of the whole header given its first n (cf_slice.c); 0: unknown */
	uint64_t	(*header_bytes) (const uint8_t *prefix, size_t n);

	/* the view: sets every field, ops and the four per-item functions */
	void		(*open) (cf_filter *cf, const void *buf, size_t len);
	void		(*get_params) (const cf_filter *cf, cf_params *p);
	/* cf_get_info after cf_api.c zeroed *out and set caps */
	void		(*get_info) (const cf_filter *cf, cf_info *out);

	/* item operations besides the per-view ones */
	cf_status	(*insert_if_absent) (cf_filter *cf, uint64_t h);
	size_t		(*insert_many) (cf_filter *cf, const uint64_t *h, size_t n, cf_status *st);
	size_t		(*insert_if_absent_many) (cf_filter *cf, const uint64_t *h, size_t n,
										  cf_status *st);
	uint32_t	(*count) (const cf_filter *cf, uint64_t h);
	/* cf_remove_saturating; NULL: entries match by fingerprint alone */
	int			(*remove_saturating) (cf_filter *cf, uint64_t h, uint32_t level);
	/* the two candidate buckets of h (cf_slice.c) */
	void		(*buckets) (const cf_filter *cf, uint64_t h, uint32_t *i1, uint32_t *i2);
	/* dst and src of this format (cf_api.c checked that) */
	cf_status	(*union_into) (cf_filter *dst, const cf_filter *src);
} cf_ops;

/* cf_header.c */
extern const cf_ops cf_v1_ops CF_HIDDEN;

/* cf_v2_header.c */
extern const cf_ops cf_v2_ops CF_HIDDEN;

/* cf_api.c: the table of the format whose VERSION byte is version, or NULL */
extern const cf_ops *cf_ops_of_version(uint32_t version) CF_HIDDEN;

#endif							/* CF_OPS_H */
