/*
 * cf_store.h
 *     Routing of a value's hash to a segment of a stored filter (extension
 *     1.3, docs/FORMAT.md section 14).  No PostgreSQL header.
 */
#ifndef CF_STORE_H
#define CF_STORE_H

#include <stdint.h>

/*
 * The segment (0 .. nsegments - 1) of a store of nsegments segments that
 * holds the value of 64-bit hash h.  nsegments >= 1.
 */
extern uint32_t cf_store_segment(uint64_t h, uint32_t nsegments);

#endif							/* CF_STORE_H */
