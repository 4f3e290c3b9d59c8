/*
 * cuckoo_hashset.h
 *     The state of cuckoo_agg(value [, fpr]) (cuckoo_hashset.c): the set of
 *     distinct 64-bit hashes seen, and a reader that hands them out in
 *     ascending order without changing the state.  The per-row add is inline.
 */
#ifndef CUCKOO_HASHSET_H
#define CUCKOO_HASHSET_H

#include "cuckoo.h"

#define HASHSET_BUF_MIN		65536
#define HASHSET_CHUNK		4096	/* hashes a reader hands out at a time */

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
