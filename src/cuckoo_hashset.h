/*
 * cuckoo_hashset.h
 *     The state of cuckoo_agg(value [, fpr]) (cuckoo_hashset.c): the set of
 *     distinct 64-bit hashes seen, and a reader that hands them out in
 *     ascending order without changing the state.  The per-row add is inline.
 *     The same set is the state of the cuckoo_hashset SQL type
 *     (cuckoo_hashset_type.c), which carries it between nodes (Citus).
 */
#ifndef CUCKOO_HASHSET_H
#define CUCKOO_HASHSET_H

#include "cuckoo.h"

#define HASHSET_BUF_MIN		65536
#define HASHSET_CHUNK		4096	/* hashes a reader hands out at a time */
#define HASHSET_DEFAULT_FPR	0.01
#define HASHSET_LOAD		0.95	/* load the data-sized filter is built at */
#define HASHSET_BUCKET		4
#define HASHSET_MAX_TRIES	200		/* builds before giving up (each 0.5% larger) */

typedef struct HashSetState
{
	uint64	   *sorted;			/* distinct hashes, ascending */
	int64		nsorted;
	int64		sorted_cap;
	uint64	   *buf;			/* unsorted, may repeat */
	int64		nbuf;
	int64		buf_cap;
	double		fpr;
	uint16		kind;
	uint32		type_tag;
	MemoryContext cxt;
} HashSetState;

typedef struct HashSetReader
{
	const uint64 *a;
	int64		na,
				ia;
	uint64	   *b;				/* the copy, owned by the reader */
	int64		nb,
				ib;
} HashSetReader;

extern void *hashset_alloc(MemoryContext cxt, int64 n);
extern HashSetState *hashset_new(MemoryContext cxt, double fpr, uint16 kind, uint32 tag);
extern void hashset_flush(HashSetState *s);
extern void hashset_merge_sorted(HashSetState *s, const uint64 *b, int64 nb);
extern int64 hashset_count(const HashSetState *s);
extern void hashset_reader_open(HashSetReader *r, const HashSetState *s);
extern int64 hashset_reader_read(HashSetReader *r, uint64 *out, int64 max);
extern void hashset_reader_rewind(HashSetReader *r);
extern void hashset_reader_close(HashSetReader *r);
extern void hashset_combine(HashSetState *s1, const HashSetState *s2);
extern bool hashset_fpr_valid(double fpr);
extern CuckooFilter *hashset_build_filter(const HashSetState *s);
extern double hashset_fpr_arg(FunctionCallInfo fcinfo, int argno);

/* Fingerprint bits for the data-sized filter: enough for fpr at HASHSET_LOAD. */
static inline uint32
hashset_fp_bits(double fpr)
{
	return plan_fp_bits(fpr, HASHSET_BUCKET, HASHSET_LOAD, "cuckoo_agg");
}

/* Adds one hash (inline: called per row). */
static inline void
hashset_add(HashSetState *s, uint64 h)
{
	if (unlikely(s->nbuf == s->buf_cap))
	{
		if (s->buf_cap < HASHSET_BUF_MIN && s->nsorted == 0)
		{
			/* small inputs: grow the first buffer before sorting anything */
			s->buf_cap *= 4;
			s->buf = repalloc(s->buf, (Size) s->buf_cap * sizeof(uint64));
		}
		else
			hashset_flush(s);
	}
	s->buf[s->nbuf++] = h;
}

#endif							/* CUCKOO_HASHSET_H */
