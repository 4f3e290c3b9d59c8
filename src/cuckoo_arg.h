/*
 * cuckoo_arg.h
 *     The SQL functions' arguments, cached per call site in fn_extra
 *     (cuckoo_arg.c): the filter argument detoasted once, the core's view of
 *     it, and the hasher of the value argument.  The per-row fast paths are
 *     inline here.
 */
#ifndef CUCKOO_ARG_H
#define CUCKOO_ARG_H

#include "cuckoo.h"

/* What a call site keeps in fn_extra between rows (cuckoo_arg.c). */
typedef struct CallSiteCache
{
	ValueHasher hasher;
	bool		hasher_valid;
	/* the last out-of-line filter argument, detoasted once */
	bool		toast_valid;
	struct varatt_external toast_ptr;
	CuckooFilter *toast_value;
	/* the last compressed in-line filter argument and its decompressed form */
	struct varlena *inline_raw;
	CuckooFilter *inline_value;
	/* the view of the last filter opened (NULL: none), keyed by its header */
	CuckooFilter *view_value;
	bool		view_kind_ok;	/* its kind matched the hasher's */
	size_t		view_len;
	size_t		view_header_len;	/* header bytes compared: 48 (version 1)
									 * or 64 (version 2) */
	size_t		view_data_off;	/* where the buckets start (view.data - view.buf) */
	uint8		view_header[64];
	cf_filter	view;
} CallSiteCache;

extern ValueHasher *arg_hasher_init(FunctionCallInfo fcinfo, int argno);
extern ValueHasher *arg_array_hasher(FunctionCallInfo fcinfo, int argno);
extern CuckooFilter *arg_filter(FunctionCallInfo fcinfo, int argno);
extern const cf_filter *arg_probe_view(FunctionCallInfo fcinfo, int argno,
									   ValueHasher *vh);

/* The call site's cache, allocated on first use (inline: called per row). */
static inline CallSiteCache *
arg_cache(FunctionCallInfo fcinfo)
{
	if (unlikely(fcinfo->flinfo->fn_extra == NULL))
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallSiteCache));
	return (CallSiteCache *) fcinfo->flinfo->fn_extra;
}

/* The hasher for argument argno (of a polymorphic function), cached. */
static inline ValueHasher *
arg_hasher(FunctionCallInfo fcinfo, int argno)
{
	CallSiteCache *cc = arg_cache(fcinfo);

	if (likely(cc->hasher_valid))
		return &cc->hasher;
	return arg_hasher_init(fcinfo, argno);
}

#endif							/* CUCKOO_ARG_H */
