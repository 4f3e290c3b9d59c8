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
 * A new segment is an empty growing filter of at most this many bytes: its
 * row stays under PostgreSQL's 2 kB TOAST threshold, and the segment stays
 * one chunk row (STORE_CHUNK_BYTES) until the store holds about 1.65 times
 * its capacity (DESIGN.md, "Segment size").
 */
#define STORE_SEGMENT_BYTES	1200

/* Segments per store: routing takes a 32-bit count, the key is an int4. */
#define STORE_MAX_SEGMENTS	((int64) PG_INT32_MAX)

/*
 * A segment is kept as rows (segment, chunk, bytes) (extension 1.6,
 * FORMAT.md section 14): its filter's bytes cut into chunks of this many
 * bytes, the last one 1 .. STORE_CHUNK_BYTES.  A chunk row stays under
 * PostgreSQL's 2,032-byte TOAST threshold (36 bytes of tuple header, key
 * and varlena header), and three of them fill a page to the table's
 * fillfactor of 75, leaving room for a HOT update (DESIGN.md, "Growth").
 */
#define STORE_CHUNK_BYTES	1984

/* The chunks of a segment of len bytes (at least 1). */
#define STORE_CHUNKS(len)	((int32) (((len) + STORE_CHUNK_BYTES - 1) / STORE_CHUNK_BYTES))

/*
 * A probe of one key reads chunk 0 of its segment and the chunks of the
 * key's two buckets (a slice read), for a segment of at least this many
 * chunks, for the first STORE_SLICE_KEYS keys a call site probes under one
 * snapshot; then the segments it meets are read whole and kept (a scan).
 */
#define STORE_SLICE_MIN_CHUNKS	4
#define STORE_SLICE_KEYS		16

/* The statements of a store, prepared once per backend. */
typedef enum StorePlan
{
	PLAN_READ,					/* 1.6: SELECT chunk, bytes, fpr, capacity, segments
								 * WHERE segment = $1 ORDER BY chunk; before:
								 * SELECT f, fpr, capacity, segments WHERE segment = $1 */
	PLAN_LOCK,					/* 1.6: chunk 0 of segment $1, FOR UPDATE; before:
								 * PLAN_READ FOR UPDATE */
	PLAN_WRITE,					/* 1.6: UPDATE SET bytes = $3 WHERE (segment, chunk) =
								 * ($1, $2); before: UPDATE SET f = $2 WHERE segment = $1 */
	PLAN_ALL,					/* SELECT segment, (1.6) chunk, bytes or f of the rows
								 * segment >= $1 (1.6: ORDER BY segment, chunk) */
	PLAN_INSERT,				/* 1.6: INSERT chunk ($1, $2, $3) */
	PLAN_DELETE,				/* 1.6: DELETE the chunks of segment $1 from chunk $2 */
	PLAN_SLICE_HEAD,			/* 1.6: chunks 0 .. STORE_SLICE_MIN_CHUNKS - 1 and the
								 * last of segment $1, in order */
	PLAN_SLICE_CHUNKS,			/* 1.6: chunks = ANY ($2) of segment $1, in order */
	NUM_PLANS
} StorePlan;

typedef struct StoreEntry
{
	Oid			relid;			/* hash key */
	char	   *qualname;		/* the name the plans were made for */
	bool		chunked;		/* the layout the plans were made for */
	int32		chunks_seen;	/* chunks of the segment this backend read last:
								 * one-key probes read by slices once it is at
								 * least STORE_SLICE_MIN_CHUNKS (segments grow
								 * alike: routing is uniform) */
	SPIPlanPtr	plans[NUM_PLANS];
} StoreEntry;

/*
 * A segment being put together from its chunk rows, given in chunk order
 * (store_asm_*): the filter as a varlena, VARHDRSZ bytes reserved first.
 */
typedef struct StoreAsm
{
	const char *name;			/* the store, for messages */
	int32		segment;
	int32		next;			/* the chunk expected next */
	Size		last;			/* bytes of the last chunk added */
	char	   *buf;			/* VARHDRSZ + len bytes used of cap */
	Size		len;
	Size		cap;
	MemoryContext cxt;
} StoreAsm;

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
	int64		slice_keys;		/* keys probed by slices (cuckoo_store_probe.c) */
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
	bool		chunked;		/* 1.6 layout: (segment, chunk, bytes) rows */
	StoreEntry *entry;
	/*
	 * The segment last read FOR UPDATE, as it was read (chunked): store_write
	 * writes the chunks that differ from it.  held_seg is meaningful only
	 * while held is set.
	 */
	int32		held_seg;
	char	   *held;			/* its bytes (no varlena header) */
	Size		held_len;
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
extern bool store_check_shape(Oid relid, Oid filter_type);
extern void store_asm_start(StoreAsm *a, const char *name, int32 segment, MemoryContext cxt);
extern void store_asm_add(StoreAsm *a, int32 chunk, bool chunk_null, Datum bytes, bool bytes_null);
extern CuckooFilter *store_asm_finish(StoreAsm *a);
extern void store_hold(Store *s, int32 segment, const CuckooFilter *v);
extern void store_set_header_cols(Store *s, Datum fpr, Datum cap, Datum nseg, const bool *isnull);
extern void store_chunks_damaged(const char *name, int32 segment, const char *detail);
extern void store_check_no_children(Oid relid);
extern StoreEntry *store_entry(Oid relid, Oid filter_type, bool chunked);
extern void store_chunk_diff(const char *old, Size olen, const char *new, Size nlen,
							 void (*write) (void *arg, int32 chunk, const char *p, Size n, bool insert),
							 void (*drop) (void *arg, int32 from), void *arg);
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
