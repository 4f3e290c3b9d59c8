/*
 * cf_slice.h
 *     Which bytes of a serialised filter a lookup reads (cf_slice.c): the
 *     header, then the two candidate buckets of the value.  A host that keeps
 *     a filter in pieces (PostgreSQL's TOAST chunks) reads only these and
 *     still gets the lookup's answer from the core's own lookup
 *     (docs/DESIGN.md, "The value path").  Plain C99; no PostgreSQL header.
 */
#ifndef CF_SLICE_H
#define CF_SLICE_H

#include "cf.h"

/* Bytes of the first read: enough for any header's fixed part. */
#define CF_SLICE_PREFIX		CF_V2_HEADER_SIZE

/* A byte range [off, off + len) of a serialised filter. */
typedef struct cf_range
{
	uint64_t	off;
	uint64_t	len;
} cf_range;

/*
 * The bytes at the start of a filter of len bytes that hold its whole header
 * (version 2: with the per-generation counts), given its first n bytes
 * (n >= CF_SLICE_PREFIX, or n == len).  0 when the prefix is not the start
 * of a filter of a known version: the caller then reads the value whole and
 * its checks report the damage.  Never more than len.
 */
extern uint64_t cf_slice_header_bytes(const void *prefix, size_t n, uint64_t len);

/*
 * The ranges beyond the header that a lookup of h in cf (cf_contains,
 * cf_count, cf_contains_many) reads: the two candidate buckets with the
 * slack of their word loads, sorted, merged when they meet.  cf is a view
 * opened over a buffer of the filter's full length whose header bytes
 * (cf_slice_header_bytes) are loaded; nothing else of it is read.  Returns
 * the number of ranges, 1 or 2.
 */
extern int	cf_slice_ranges(const cf_filter *cf, uint64_t h, cf_range out[2]);

#endif							/* CF_SLICE_H */
