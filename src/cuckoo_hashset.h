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

#pragma GCC visibility push(hidden)	/* internal: see cuckoo.h */

#define HASHSET_PART_BITS	8		/* the set is split by the top 8 bits of a hash */
#define HASHSET_PARTS		(1 << HASHSET_PART_BITS)
#define HASHSET_PART_MIN	16		/* first room of a part */
#define HASHSET_FLAT_MAX	16000	/* most hashes of the one flat part (125 kB) */
#define HASHSET_CHUNK		4096	/* hashes a reader hands out at a time */
#define HASHSET_DEFAULT_FPR	0.01
#define HASHSET_LOAD		0.95	/* load the data-sized filter is built at */
#define HASHSET_BUCKET		4
#define HASHSET_MAX_TRIES	200		/* builds before giving up (each 0.5% larger) */

/*
 * One part of the set: the hashes whose top HASHSET_PART_BITS bits are its
 * index.  a[0 .. nsorted-1] are ascending and distinct; a[nsorted .. n-1]
 * were appended since, unsorted, and may repeat.
 */
typedef struct HashSetPart
{
	uint64	   *a;
	int64		n;
	int64		nsorted;
	int64		cap;
} HashSetPart;

typedef struct HashSetState
{
	uint64	   *sorted;			/* a run of distinct hashes, ascending (a
								 * deserialised or flat state; may be NULL) */
	int64		nsorted;
	int64		sorted_cap;
	HashSetPart flat;			/* the set while parts is NULL: one part for
								 * every hash (sorted on all 64 bits) */
	HashSetPart *parts;			/* HASHSET_PARTS parts, NULL until the flat
								 * part outgrows HASHSET_FLAT_MAX */
	uint64	   *scratch;		/* sorting room, scratch_cap hashes */
	int64		scratch_cap;
	double		fpr;
	uint16		kind;
	uint32		type_tag;
	MemoryContext cxt;
} HashSetState;

typedef struct HashSetReader
{
	const uint64 *a;			/* the sorted run */
	int64		na,
				ia;
	const HashSetPart *parts;	/* the parts, each sorted (hashset_flush) */
	int			nparts;			/* HASHSET_PARTS, or 1 (the flat part) */
	int			pi;				/* current part */
	int64		pj;				/* next position in it */
} HashSetReader;

extern void *hashset_alloc(MemoryContext cxt, int64 n);
extern HashSetState *hashset_new(MemoryContext cxt, double fpr, uint16 kind, uint32 tag);
extern void hashset_flush(HashSetState *s);
extern int64 hashset_count(HashSetState *s);
extern void hashset_reader_open(HashSetReader *r, HashSetState *s);
extern int64 hashset_reader_read(HashSetReader *r, uint64 *out, int64 max);
extern void hashset_reader_rewind(HashSetReader *r);
extern void hashset_reader_close(HashSetReader *r);
extern void hashset_combine(HashSetState *s1, HashSetState *s2);
extern bool hashset_fpr_valid(double fpr);
extern CuckooFilter *hashset_build_filter(HashSetState *s);
extern double hashset_fpr_arg(FunctionCallInfo fcinfo, int argno);

/* Fingerprint bits for the data-sized filter: enough for fpr at HASHSET_LOAD. */
static inline uint32
hashset_fp_bits(double fpr)
{
	return plan_fp_bits(fpr, HASHSET_BUCKET, HASHSET_LOAD, "cuckoo_agg");
}

extern HashSetPart *hashset_part_full(HashSetState *s, HashSetPart *p, uint64 h);

/*
 * Adds one hash (inline: called per row): appended to the flat part, or,
 * once the set is split, to its part.
 */
static inline void
hashset_add(HashSetState *s, uint64 h)
{
	HashSetPart *p;

	p = likely(s->parts == NULL) ? &s->flat : &s->parts[h >> (64 - HASHSET_PART_BITS)];
	if (unlikely(p->n == p->cap))
		p = hashset_part_full(s, p, h);
	p->a[p->n++] = h;
}

#pragma GCC visibility pop

#endif							/* CUCKOO_HASHSET_H */
