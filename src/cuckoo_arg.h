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

#pragma GCC visibility push(hidden)	/* internal: see cuckoo.h */

/*
 * Stored (out-of-line) filter arguments read whole and kept per call site,
 * keyed by their TOAST pointer: up to ARG_WHOLE_KEPT of them while their
 * bytes fit in work_mem, and one more of any size that the next one not kept
 * replaces (cuckoo_arg.c, whole_read).
 */
#define ARG_WHOLE_KEPT		32

typedef struct WholeValue
{
	struct varatt_external ptr; /* the key: the whole TOAST pointer */
	CuckooFilter *value;		/* NULL: an empty slot */
	bool		view_open;		/* view made (and its kind checked) */
	bool		view_kind_ok;	/* its kind matched the hasher's */
	cf_filter	view;
} WholeValue;

/*
 * Keys probed by slices of stored values other than the one sliced now, so
 * that a call site meeting a few stored filters in turn still switches each
 * to one whole read (cuckoo_arg.c, arg_probe_keys): a hash table of
 * 2^ARG_SLICE_COUNTS_BITS entries on the value OID (a value whose entry
 * another took counts from 0 again).
 */
#define ARG_SLICE_COUNTS_BITS	6

typedef struct SliceCount
{
	struct varatt_external ptr;
	int64		keys;
} SliceCount;

/* What a call site keeps in fn_extra between rows (cuckoo_arg.c). */
typedef struct CallSiteCache
{
	ValueHasher hasher;
	bool		hasher_valid;
	/*
	 * Stored filter arguments read whole: whole[0 .. whole_n - 1] kept
	 * (whole_bytes of them), whole[ARG_WHOLE_KEPT] the one replaced by the
	 * next value not kept; whole_last the slot found last (NULL: none).
	 * NULL until the first stored value is read whole.
	 */
	WholeValue *whole;
	int			whole_n;
	WholeValue *whole_last;
	Size		whole_bytes;
	/* the last compressed in-line filter argument and its decompressed form */
	struct varlena *inline_raw;
	CuckooFilter *inline_value;
	/*
	 * the view of the last filter opened other than a stored one read whole
	 * (those have their own, in whole[]) (NULL: none), keyed by its header
	 */
	CuckooFilter *view_value;
	bool		view_kind_ok;	/* its kind matched the hasher's */
	size_t		view_len;
	size_t		view_header_len;	/* header bytes compared: 48 (version 1)
									 * or 64 (version 2) */
	size_t		view_data_off;	/* where the buckets start (view.data - view.buf) */
	uint8		view_header[64];
	cf_filter	view;
	/*
	 * The value path (docs/DESIGN.md): the last stored, out-of-line,
	 * uncompressed filter argument probed by slices.  slice_buf is a buffer
	 * of the value's full length in which only the header and the buckets
	 * of the keys probed so far were read (the rest is never touched, so it
	 * costs address space, not memory); slice_view is the core's view of it.
	 */
	bool		slice_valid;
	struct varatt_external slice_ptr;
	CuckooFilter *slice_buf;
	cf_filter	slice_view;
	int64		slice_keys;		/* keys probed by slices of this value
								 * since it came (back) */
	int64		slice_total;	/* ... and in all at this call site */
	int64		slice_limit;	/* after that many, one whole read is cheaper */
	/* the counts of values sliced before (NULL until a second one comes) */
	SliceCount *slice_counts;
} CallSiteCache;

extern ValueHasher *arg_hasher_init(FunctionCallInfo fcinfo, int argno);
extern ValueHasher *arg_array_hasher(FunctionCallInfo fcinfo, int argno);
extern CuckooFilter *arg_filter(FunctionCallInfo fcinfo, int argno);
extern const cf_filter *arg_probe_view(FunctionCallInfo fcinfo, int argno,
									   ValueHasher *vh);
extern const cf_filter *arg_probe_keys(FunctionCallInfo fcinfo, int argno,
									   ValueHasher *vh, const uint64 *hashes,
									   int n);
extern int	slice_read_max_keys;

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

#pragma GCC visibility pop

#endif							/* CUCKOO_ARG_H */
