/*
 * cf_table.h
 *     What cf_table.c lends the whole-filter operations (cf_union.c): storing
 *     a fingerprint at a given bucket, and counting its copies in a pair.
 *     Internal to src/core/.
 */
#ifndef CF_TABLE_H
#define CF_TABLE_H

#include "cf_internal.h"

/* Stores fp with first candidate bucket i1. */
extern cf_status cf_insert_fingerprint(cf_filter *cf, uint32_t i1, uint32_t fp,
									   uint64_t seed, bool check_copies) CF_HIDDEN;
/* Copies of fp in the pair (i1, i2), the victim slot included. */
extern uint32_t cf_pair_count(const cf_filter *cf, uint32_t i1, uint32_t i2,
							  uint32_t fp) CF_HIDDEN;

/*
 * Sets the view's lookup, insert and delete functions for its shape (cf_open,
 * version 1).  The generic ones work for every shape; the unit tests compare
 * the chosen ones with them.
 */
extern void cf_choose_paths(cf_filter *cf) CF_HIDDEN;
extern bool cf_contains_generic(const cf_filter *cf, uint64_t h) CF_HIDDEN;
extern void cf_contains_many_generic(const cf_filter *cf, const uint64_t *h, size_t n,
									 bool *out) CF_HIDDEN;
extern bool cf_remove_generic(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern cf_status cf_insert_generic(cf_filter *cf, uint64_t h) CF_HIDDEN;

#endif							/* CF_TABLE_H */
