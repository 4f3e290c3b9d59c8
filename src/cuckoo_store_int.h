/*
 * cuckoo_store_int.h
 *     The stored filters' private declarations, shared by
 *     src/cuckoo_store_*.c (the files above the store use cuckoo_store.h):
 *     the store's constants and types, then the externs grouped by file.
 */
#ifndef CUCKOO_STORE_INT_H
#define CUCKOO_STORE_INT_H

#include "executor/spi.h"
#include "utils/array.h"
#include "utils/snapshot.h"

#include "cuckoo_store.h"
#include "cf_store.h"

#pragma GCC visibility push(hidden)	/* internal: see cuckoo.h */

/* The header row's segment number. */
#define STORE_HEADER	(-1)

/*
 * A new segment is an empty growing filter of at most this many bytes, so
 * that its row stays under PostgreSQL's 2 kB TOAST threshold (DESIGN.md).
 */
#define STORE_SEGMENT_BYTES	1800

/* Segments per store: routing takes a 32-bit count, the key is an int4. */
#define STORE_MAX_SEGMENTS	((int64) PG_INT32_MAX)

/* The statements of a store, prepared once per backend. */
typedef enum StorePlan
{
	PLAN_READ,					/* SELECT f, fpr, capacity, segments WHERE segment = $1 */
	PLAN_LOCK,					/* the same, FOR UPDATE */
	PLAN_WRITE,					/* UPDATE SET f = $2 WHERE segment = $1 */
	PLAN_ALL,					/* SELECT f of every segment (cuckoo_store_info) */
	NUM_PLANS
} StorePlan;

typedef struct StoreEntry
{
	Oid			relid;			/* hash key */
	char	   *qualname;		/* the name the plans were made for */
	SPIPlanPtr	plans[NUM_PLANS];
} StoreEntry;

/* What a call site keeps between rows (fn_extra). */
/*
 * The segments a probing call site has read, valid for one store, one
 * snapshot and one user (see probe_cache_valid): a scan that probes many
 * values reads each segment once per query.
 */
typedef struct ProbeCache
{
	bool		valid;
	Oid			relid;
	Oid			userid;
	Snapshot	snap;			/* the snapshot the segments were read under */
	CommandId	curcid;
	TransactionId xmin;
	TransactionId xmax;
	uint32		xcnt;
	int32		subxcnt;
	bool		suboverflowed;
#if PG_VERSION_NUM >= 140000
	uint64		completions;	/* snapXactCompletionCount */
#endif
	MemoryContext cxt;			/* holds the copies below */
	int32		nsegments;
	cf_filter **segs;			/* [nsegments], opened copies of segments
								 * whose kind was checked; NULL: not read yet */
	Size		bytes;			/* held in segs */
	char	   *arena;			/* free space of the block segments are cut from */
	Size		arena_left;
	int64		reads;			/* segments read one by one */
	cf_filter **raw;			/* [nsegments] after the read of them all:
								 * copies not opened yet (a view's room,
								 * then the value), NULL: not read */
	cf_filter	hcf;			/* the header row's filter (its kind) */
	/*
	 * The flat lookup (cf_store.h): the shape the segments share (taken from
	 * the first opened: flat_state 1; -1 when it has not the flat shape,
	 * 0 before), one record per segment, set as its view is (in segs), and
	 * how many are set: at nsegments a batch goes through the records.
	 */
	int			flat_state;
	cf_store_shape flat_shape;
	cf_store_seg *flat;
	int32		nflat;
} ProbeCache;

/*
 * Segments are cut from blocks of this size, each a view followed by its
 * value, at 64-byte boundaries: allocated one by one, a segment of about
 * 2.1 kB would take a 4 kB chunk, and a store scanned whole would then
 * spread over twice the memory (and the CPU's caches).
 */
#define PROBE_ARENA_BLOCK	((Size) 1 << 20)

/* A call site holds at most this many bytes of segments. */
#define PROBE_CACHE_BYTES	((Size) 256 << 20)
/* ... and caches nothing for a store of more segments than this */
#define PROBE_CACHE_MAX_SEGMENTS	(1 << 24)

typedef struct StoreCallCache
{
	Oid			filter_type;	/* the extension's cuckoofilter type */
	bool		hasher_valid;
	ValueHasher hasher;
	ProbeCache	probe;
} StoreCallCache;

/* A store opened for one call: its plans and its header row. */
typedef struct Store
{
	Oid			relid;
	const char *name;			/* for messages */
	StoreEntry *entry;
	CuckooFilter *header;		/* header row's f (detoasted) */
	cf_filter	hcf;
	double		fpr;
	int64		capacity;
	int32		nsegments;
} Store;

typedef enum StoreOp
{
	OP_ADD,
	OP_ADD_IF_ABSENT,
	OP_REMOVE
} StoreOp;

/* One hash of an array, routed. */
typedef struct StoreItem
{
	int32		segment;
	int			index;			/* position among the array's elements */
	uint64		h;
} StoreItem;

/* cuckoo_store_segment.c */
extern StoreCallCache *store_call_cache(FunctionCallInfo fcinfo);
extern ValueHasher *store_hasher(FunctionCallInfo fcinfo, int argno, bool array);
extern void store_check_shape(Oid relid, Oid filter_type);
extern void store_check_no_children(Oid relid);
extern StoreEntry *store_entry(Oid relid, Oid filter_type);
extern bool store_latest;
extern CuckooFilter *store_read(Store *s, int32 segment, bool lock, bool copy, bool read_only, bool header);
extern void store_write(Store *s, int32 segment, cf_filter *cf);
extern void store_open(Store *s, FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh, bool change, bool read_only);
extern void store_missing_segment(Store *s, int32 segment);
extern bool segment_apply(cf_filter *cf, const ValueHasher *vh, StoreOp op, uint64 h);
extern int64 store_pending(Oid relid, uint32 nsegments, int32 segment,
						   const StoreChange **changes, const ValueHasher **vh);
extern CuckooFilter *store_overlay(Store *s, int32 segment, CuckooFilter *v);
extern void store_sort_items(StoreItem **items, int n, int32 nsegments);
extern StoreItem *store_route_array(Store *s, ValueHasher *vh, ArrayType *arr, int *n, int *nelems, bool **nulls_out);

#pragma GCC visibility pop

#endif							/* CUCKOO_STORE_INT_H */
