/*
 * cf_store.h
 *     Routing of a value's hash to a segment of a stored filter (extension
 *     1.3, docs/FORMAT.md section 14), and the flat lookup of a scan that
 *     probes a store's segments all at once.  No PostgreSQL header.
 */
#ifndef CF_STORE_H
#define CF_STORE_H

#include "cf.h"

/*
 * The segment (0 .. nsegments - 1) of a store of nsegments segments that
 * holds the value of 64-bit hash h.  nsegments >= 1.
 */
extern uint32_t cf_store_segment(uint64_t h, uint32_t nsegments);

/*
 * The flat lookup (docs/DESIGN.md, "The scan probe is batched"): a scan over
 * many rows meets every segment of a store, and a lookup in a segment's view
 * waits for the view's lines and the header's victim flag before it can
 * even ask for the two buckets.  A host that holds every segment's view
 * lays out, once, what a lookup needs of each: the shape the segments share
 * (cf_store_shape) once, and per segment one 16-byte record
 * (cf_store_seg: its bucket array and its size), so that a lookup routes
 * the hash, reads one record (an array of 16 bytes per segment, 200 kB for
 * 12,000 segments, mostly stays in the CPU's second-level cache) and then
 * the two buckets, with every step requested ahead in the batch.
 *
 * Only the common shape of a growing filter (format 2, b = 4, a bucket in
 * one word: contains2_w15 in cf_v2_lookup.c, target rates 0.01 and near)
 * is laid out flat; a segment of another shape, or with its victim slot in
 * use, has a record of data NULL and is looked up in its view.  The answers
 * are cf_contains' of each segment's view, bit for bit.
 */
typedef struct cf_store_shape
{
	uint32_t	fp_range;
	uint32_t	tmask;
	uint32_t	bucket_bits;
	uint32_t	c;				/* buckets at creation: m = c * 2^k + split */
	uint64_t	lo_ones,
				tone,
				fpt,
				tails,
				carry;
} cf_store_shape;

typedef struct cf_store_seg
{
	const uint8_t *data;		/* the bucket array; NULL: use the view */
	uint32_t	k;				/* the segment's size: c * 2^k + split */
	uint32_t	split;
} cf_store_seg;

/*
 * True when cf (a view) has the shape the flat lookup takes; then *shape is
 * filled from it.  False: the host keeps to cf_contains_each.
 */
extern bool cf_store_shape_of(const cf_filter *cf, cf_store_shape *shape);

/*
 * Fills *seg for the view cf (kept alive and unchanged by the host as long
 * as the record is used): its bucket array when cf has shape and no victim
 * in use, else data NULL.  Returns whether it is flat.
 */
extern bool cf_store_seg_of(const cf_store_shape *shape, const cf_filter *cf,
							cf_store_seg *seg);

/*
 * out[j] = cf_contains(views[s], h[j]) for s = cf_store_segment(h[j],
 * nsegments), through segs[s] when its data is set.  Every views[s] of a
 * record of data NULL must be set.
 */
extern void cf_store_contains_flat(const cf_store_shape *shape, const cf_store_seg *segs,
								   const cf_filter *const *views, uint32_t nsegments,
								   const uint64_t *h, size_t n, bool *out);

#endif							/* CF_STORE_H */
