/*
 * cf_store.c
 *     Routing of a value's hash to a segment of a stored filter (extension
 *     1.3; docs/FORMAT.md section 14, docs/DESIGN.md "Stored filters").
 *
 * The segment's filter is given the unchanged hash, so the routing must not
 * tell it anything about the bits it uses (fingerprint, mantissa, address
 * word): the hash goes through a 64-bit finaliser, a bijection that mixes
 * every bit into every other, and the high half of the result picks the
 * segment by a multiply-shift range reduction.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_store.h"
#include "cf_internal.h"

uint32_t
cf_store_segment(uint64_t h, uint32_t nsegments)
{
	return store_route(h, nsegments);
}
