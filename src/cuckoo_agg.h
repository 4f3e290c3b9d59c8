/*
 * cuckoo_agg.h
 *     What the files of the aggregates share: the check of the aggregate
 *     context, and the partial states of the growing form, which
 *     cuckoo_agg_split.c makes and reads for cuckoo_agg_grow.c.
 */
#ifndef CUCKOO_AGG_H
#define CUCKOO_AGG_H

#include "cuckoo_arg.h"
#include "cuckoo_hashset.h"

#include "utils/expandeddatum.h"

#pragma GCC visibility push(hidden)	/* internal: see cuckoo.h */

/*
 * The aggregate context of a transition, combine or (de)serialisation
 * function; an error when called outside an aggregate.
 */
static inline MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fname)));
	return aggcxt;
}

/*
 * cuckoo_agg_split.c: the partial states of cuckoo_agg(value, capacity, fpr,
 * expansion) in a split aggregate, a set of distinct hashes (described
 * there); a state of fewer than GP_FLAT_KEEP hashes stays a flat value.
 */
#define GP_FLAT_KEEP	64

typedef struct GrowPartialFlat
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint32		magic;
	uint16		kind;
	uint16		reserved;		/* zero */
	uint32		type_tag;
	int32		expansion;
	int32		reserved2;		/* zero */
	int64		capacity;
	double		fpr;
	uint64		hashes[FLEXIBLE_ARRAY_MEMBER];	/* strictly ascending */
} GrowPartialFlat;

#define GP_FLAT_HEADER	offsetof(GrowPartialFlat, hashes)
#define GP_NHASHES(v)	((int64) ((VARSIZE(v) - GP_FLAT_HEADER) / sizeof(uint64)))

/* The creation arguments a partial state carries to the final filter. */
typedef struct GrowArgs
{
	int64		capacity;
	double		fpr;
	int32		expansion;
	uint16		kind;
	uint32		type_tag;
} GrowArgs;

typedef struct GrowPartial
{
	ExpandedObjectHeader hdr;
	HashSetState *s;			/* the distinct hashes, in hdr.eoh_context */
	GrowArgs	args;
	int64		known;			/* distinct hashes at the last count */
	int64		added;			/* hashes added since (some may repeat) */
} GrowPartial;

extern bool grow_trans_keeps_set(FunctionCallInfo fcinfo);
extern bool grow_combine_keeps_set(FunctionCallInfo fcinfo);
extern GrowPartial *grow_partial_of(Datum d, bool rw);
extern GrowPartialFlat *grow_partial_flat_of(Datum d);
extern void grow_args_of_flat(const GrowPartialFlat *v, GrowArgs *a);
extern HashSetState *grow_flat_view(GrowPartialFlat *v, HashSetState *tmp);
extern GrowPartialFlat *grow_flat_merge(const GrowArgs *args, const uint64 *a,
										int64 na, uint64 h);
extern GrowPartial *grow_partial_new(MemoryContext aggcxt, const GrowArgs *args);
extern void grow_args_check(const GrowArgs *a, const GrowArgs *b);
extern bool grow_partial_full(GrowPartial *gp);
extern HashSetState *grow_arg_set(FunctionCallInfo fcinfo, int argno,
								  HashSetState *tmp, GrowArgs *args);

#pragma GCC visibility pop

#endif							/* CUCKOO_AGG_H */
