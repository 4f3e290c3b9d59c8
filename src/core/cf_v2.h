/*
 * cf_v2.h
 *     Format version 2 (growing and rotating filters, docs/FORMAT.md): what
 *     the version-1 entry points of the core call when they are handed a
 *     version-2 filter.  Internal to src/core/.
 */
#ifndef CF_V2_H
#define CF_V2_H

#include "cf_internal.h"

/* The largest value a growing filter may reach (CF_MAX_BYTES; tests lower it). */
extern uint64_t cf_v2_limit_bytes;

extern uint64_t cf2_total_bytes(uint64_t m, uint32_t b, uint32_t w, uint32_t g) CF_HIDDEN;
extern bool cf2_check_params(const cf_params *p, char *err, size_t errlen) CF_HIDDEN;
extern void cf2_init(void *buf, const cf_params *p) CF_HIDDEN;
extern void cf2_open(cf_filter *cf, const void *buf, size_t len) CF_HIDDEN;
extern bool cf2_check_header(const void *buf, size_t len, char *err, size_t errlen) CF_HIDDEN;
extern bool cf2_validate(const void *buf, size_t len, char *err, size_t errlen) CF_HIDDEN;
extern void cf2_get_params(const cf_filter *cf, cf_params *p) CF_HIDDEN;

extern cf_status cf2_insert(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern size_t cf2_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st) CF_HIDDEN;
extern bool cf2_contains(const cf_filter *cf, uint64_t h) CF_HIDDEN;
extern const char *cf2_lookup_name(const cf_filter *cf) CF_HIDDEN;
extern void cf2_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out) CF_HIDDEN;
extern void cf2_prefetch(const cf_filter *cf, uint64_t h) CF_HIDDEN;
extern uint32_t cf2_count(const cf_filter *cf, uint64_t h) CF_HIDDEN;
extern bool cf2_remove(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern cf_status cf2_insert_if_absent(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern cf_status cf2_union_into(cf_filter *dst, const cf_filter *src) CF_HIDDEN;

#endif							/* CF_V2_H */
