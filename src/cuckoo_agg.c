/*
 * cuckoo_agg.c
 *     The aggregates that build filters inside queries.
 *
 * cuckoo_agg(value [, fpr]) sizes the filter to the data.  Its state is the
 * set of distinct 64-bit hashes seen (in parts sorted as they fill, read in
 * ascending order: cuckoo_hashset.c); the final function counts
 * them and builds a filter of exactly the size they need.  Equal hashes are one value, so each distinct
 * value is stored once, and serial and parallel plans build byte-identical
 * filters (the final function inserts in sorted hash order).
 *
 * cuckoo_agg(value, capacity, fpr) has a fixed shape, so filters built apart
 * can be unioned.  Its state is the filter itself (a real type, not
 * internal, so the state can travel between nodes as text or binary; while
 * aggregating, an expanded object that buffers hashes, below); the
 * transition adds each value unless already reported, and the combine
 * function is the union, cuckoo_union_trans, which is also the transition of
 * cuckoo_union_agg.
 *
 * From 1.1 the types with a built-in hash encoding also have concrete
 * (non-polymorphic) overloads of both forms, which Citus can push down: the
 * fixed shape reuses the functions here, and the data-sized one has the
 * cuckoo_hashset state type (cuckoo_hashset_type.c).  Over no rows every
 * form returns NULL, as Citus cannot pass fpr, capacity or the value type
 * then.
 *
 * Transition functions update their state in place, in the aggregate
 * context; final functions never change the state's contents.
 *
 * This file holds the data-sized form; cuckoo_agg_fixed.c the fixed shape
 * and cuckoo_union_agg's transition; cuckoo_agg_grow.c the growing form
 * (1.2), and cuckoo_agg_split.c its partial states where PostgreSQL splits
 * the aggregate.  cuckoo_agg.h is what they share.
 */
#include "cuckoo_agg.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#define SER_MAGIC		0x43484153u	/* serialised state: "SAHC" */

/* Transition of cuckoo_agg(value) and cuckoo_agg(value, fpr). */
PG_FUNCTION_INFO_V1(cuckoo_agg_trans);
Datum
cuckoo_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	HashSetState *s;
	ValueHasher *vh;

	aggcxt = agg_context(fcinfo, "cuckoo_agg_trans");
	s = PG_ARGISNULL(0) ? NULL : (HashSetState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	vh = arg_hasher(fcinfo, 1);
	if (s == NULL)
		s = hashset_new(aggcxt, hashset_fpr_arg(fcinfo, 2), vh->kind, vh->type_tag);
	hashset_add(s, value_hash(vh, PG_GETARG_DATUM(1)));
	PG_RETURN_POINTER(s);
}

/* Combine: state1 gains state2's hashes; state2 is left untouched. */
PG_FUNCTION_INFO_V1(cuckoo_agg_combine);
Datum
cuckoo_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	HashSetState *s1,
			   *s2;

	aggcxt = agg_context(fcinfo, "cuckoo_agg_combine");
	s1 = PG_ARGISNULL(0) ? NULL : (HashSetState *) PG_GETARG_POINTER(0);
	s2 = PG_ARGISNULL(1) ? NULL : (HashSetState *) PG_GETARG_POINTER(1);
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = hashset_new(aggcxt, s2->fpr, s2->kind, s2->type_tag);
	else if (s1->kind != s2->kind || s1->type_tag != s2->type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_agg states of different value types cannot be combined")));
	hashset_combine(s1, s2);	/* s2 is only read */
	PG_RETURN_POINTER(s1);
}

/*
 * Serialised state: u32 magic, u16 kind, u16 zero, u32 type tag, u32 zero,
 * f8 fpr, then the sorted distinct hashes as u64; host byte order, as the
 * state only travels between processes of one server.
 */
typedef struct SerialHeader
{
	uint32		magic;
	uint16		kind;
	uint16		pad;
	uint32		type_tag;
	uint32		pad2;
	double		fpr;
} SerialHeader;

PG_FUNCTION_INFO_V1(cuckoo_agg_serialize);
Datum
cuckoo_agg_serialize(PG_FUNCTION_ARGS)
{
	HashSetState *s;
	SerialHeader hdr = {0};
	Size		len;
	int64		n;
	bytea	   *out;

	(void) agg_context(fcinfo, "cuckoo_agg_serialize");
	s = (HashSetState *) PG_GETARG_POINTER(0);
	n = hashset_count(s);
	len = VARHDRSZ + sizeof(SerialHeader) + (Size) n * sizeof(uint64);
	if (len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo_agg state of " INT64_FORMAT " distinct values is too large to pass between parallel workers",
						n)));
	out = palloc(len);
	SET_VARSIZE(out, len);
	hdr.magic = SER_MAGIC;
	hdr.kind = s->kind;
	hdr.type_tag = s->type_tag;
	hdr.fpr = s->fpr;
	memcpy(VARDATA(out), &hdr, sizeof(hdr));
	{
		/* the hashes start 4 + 24 bytes into the palloc'd value: unaligned */
		char	   *p = VARDATA(out) + sizeof(hdr);
		uint64	   *chunk = palloc(HASHSET_CHUNK * sizeof(uint64));
		HashSetReader	r;
		int64		got;

		hashset_reader_open(&r, s);
		while ((got = hashset_reader_read(&r, chunk, HASHSET_CHUNK)) > 0)
		{
			memcpy(p, chunk, (Size) got * sizeof(uint64));
			p += got * sizeof(uint64);
		}
		hashset_reader_close(&r);
		pfree(chunk);
	}
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(cuckoo_agg_deserialize);
Datum
cuckoo_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	Size		len = VARSIZE_ANY_EXHDR(in);
	SerialHeader hdr;
	HashSetState *s;
	int64		n;

	(void) agg_context(fcinfo, "cuckoo_agg_deserialize");
	if (len < sizeof(hdr) || (len - sizeof(hdr)) % sizeof(uint64) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cuckoo_agg state: wrong length %zu", (size_t) len)));
	memcpy(&hdr, VARDATA_ANY(in), sizeof(hdr));
	/* a state always has the kind of its values: never CF_KIND_ANY */
	if (hdr.magic != SER_MAGIC || hdr.kind == CF_KIND_ANY || hdr.kind > CF_KIND_MAX ||
		hdr.pad || hdr.pad2 ||
		(hdr.kind == CF_KIND_OTHER) != (hdr.type_tag != 0) ||
		isnan(hdr.fpr) || hdr.fpr <= 0.0 || hdr.fpr >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cuckoo_agg state header")));
	n = (int64) ((len - sizeof(hdr)) / sizeof(uint64));
	/*
	 * Only combine reads it, copying what it keeps into the aggregate
	 * context.  The hashes must be strictly ascending, as serialisation
	 * writes them; anything else is refused rather than merged wrongly.
	 */
	s = hashset_new(CurrentMemoryContext, hdr.fpr, hdr.kind, hdr.type_tag);
	s->sorted = hashset_alloc(CurrentMemoryContext, n);
	s->sorted_cap = Max(n, 1);
	memcpy(s->sorted, VARDATA_ANY(in) + sizeof(hdr), (Size) n * sizeof(uint64));
	for (int64 i = 1; i < n; i++)
		if (s->sorted[i - 1] >= s->sorted[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid cuckoo_agg state: hashes out of order at position " INT64_FORMAT, i)));
	s->nsorted = n;
	PG_RETURN_POINTER(s);
}

/*
 * Final function of cuckoo_agg(value [, fpr]): a filter of exactly the size
 * the distinct values need (hashset_build_filter).  No rows give NULL, as
 * under Citus, which cannot pass fpr or the value type then.
 */
PG_FUNCTION_INFO_V1(cuckoo_agg_final);
Datum
cuckoo_agg_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_CUCKOO_P(hashset_build_filter((HashSetState *) PG_GETARG_POINTER(0)));
}
