/*
 * cuckoo_hashset_type.c
 *     The cuckoo_hashset type: the set of distinct 64-bit hashes that
 *     cuckoo_agg(value [, fpr]) collects, as a real SQL type, so that the
 *     aggregate's state can travel between nodes (Citus moves a state from a
 *     worker to the coordinator through its type's text output and input; an
 *     internal state cannot travel, and Citus then pulls every raw row).
 *
 * In memory during aggregation a set of more than HS_FLAT_KEEP hashes is an
 * expanded object (the same HashSetState as cuckoo_agg's internal state,
 * cuckoo_hashset.c), so each transition adds in place; wherever it must be
 * stored or sent it is flattened into its varlena form.  A smaller set stays
 * a flat value (below, at HS_FLAT_KEEP).  The final function builds the same
 * filter, byte for byte, as the internal-state aggregate over the same values.
 *
 * Flat form (docs/FORMAT.md): after the varlena header, u32 magic "CHS1",
 * u16 kind, u16 zero, u32 type tag, f8 fpr, then the distinct hashes as u64,
 * strictly ascending.  In memory in host byte order; the binary wire form
 * (send/recv) is the same bytes in little-endian order, and the text form is
 * their base64.  Text input and binary input run the same full validation.
 */
#include "cuckoo_arg.h"
#include "cuckoo_hashset.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#define HS_MAGIC		0x31534843u	/* "CHS1" read little-endian */
#define HS_WIRE_HEADER	20			/* magic, kind, zero, tag, fpr */

typedef struct CuckooHashSet
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint32		magic;
	uint16		kind;
	uint16		reserved;		/* zero */
	uint32		type_tag;
	double		fpr;
	uint64		hashes[FLEXIBLE_ARRAY_MEMBER];	/* strictly ascending */
} CuckooHashSet;

#define HS_FLAT_HEADER	offsetof(CuckooHashSet, hashes)
#define HS_MAX_HASHES	((int64) ((MaxAllocSize - HS_FLAT_HEADER) / sizeof(uint64)))
#define HS_NHASHES(v)	((int64) ((VARSIZE(v) - HS_FLAT_HEADER) / sizeof(uint64)))

/* The expanded form: a header and the aggregate's hash set. */
typedef struct ExpandedHashSet
{
	ExpandedObjectHeader hdr;
	HashSetState *s;
} ExpandedHashSet;

static Size hashset_expanded_flat_size(ExpandedObjectHeader *eohptr);
static void hashset_expanded_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods hashset_expanded_methods = {
	hashset_expanded_flat_size,
	hashset_expanded_flatten
};

/* A new, empty expanded set in its own context under parent. */
static ExpandedHashSet *
hashset_expanded_new(MemoryContext parent, double fpr, uint16 kind, uint32 tag)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "cuckoo_hashset",
											  ALLOCSET_DEFAULT_SIZES);
	ExpandedHashSet *e = MemoryContextAlloc(cxt, sizeof(ExpandedHashSet));

	EOH_init_header(&e->hdr, &hashset_expanded_methods, cxt);
	e->s = hashset_new(cxt, fpr, kind, tag);
	return e;
}

/* Size of the flat form.  Sorts the parts (the set's content is unchanged). */
static Size
hashset_expanded_flat_size(ExpandedObjectHeader *eohptr)
{
	ExpandedHashSet *e = (ExpandedHashSet *) eohptr;
	int64		n = hashset_count(e->s);

	if (n > HS_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo_hashset of " INT64_FORMAT " hashes is too large to store or send",
						n)));
	return HS_FLAT_HEADER + (Size) n * sizeof(uint64);
}

static void
hashset_expanded_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	ExpandedHashSet *e = (ExpandedHashSet *) eohptr;
	CuckooHashSet *v = (CuckooHashSet *) result;
	int64		n = (int64) ((allocated_size - HS_FLAT_HEADER) / sizeof(uint64)),
				got = 0,
				k;
	HashSetReader r;

	memset(v, 0, HS_FLAT_HEADER);
	SET_VARSIZE(v, allocated_size);
	v->magic = HS_MAGIC;
	v->kind = e->s->kind;
	v->type_tag = e->s->type_tag;
	v->fpr = e->s->fpr;
	/* get_flat_size counted the hashes just before: they fill the value */
	hashset_reader_open(&r, e->s);
	while (got < n && (k = hashset_reader_read(&r, v->hashes + got, n - got)) > 0)
		got += k;
	hashset_reader_close(&r);
	if (got != n)
		elog(ERROR, "cuckoo_hashset changed while it was flattened");
}

/* The expanded set behind d, or NULL when d is not one of ours. */
static ExpandedHashSet *
hashset_expanded_of(Datum d, bool rw_only)
{
	Pointer		p = DatumGetPointer(d);
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(p) ||
		(rw_only && !VARATT_IS_EXTERNAL_EXPANDED_RW(p)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == &hashset_expanded_methods ? (ExpandedHashSet *) eoh : NULL;
}

/*
 * Argument argno as a read-only hash set: the expanded object itself, or a
 * view (*tmp) of the flat value.  Flat values were fully validated on entry;
 * the O(1) check here guards against a damaged datum.
 */
static HashSetState *
hashset_arg(FunctionCallInfo fcinfo, int argno, HashSetState *tmp)
{
	ExpandedHashSet *e = hashset_expanded_of(PG_GETARG_DATUM(argno), false);
	CuckooHashSet *v;

	if (e != NULL)
		return e->s;
	v = (CuckooHashSet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(argno));
	if (VARSIZE(v) < HS_FLAT_HEADER ||
		(VARSIZE(v) - HS_FLAT_HEADER) % sizeof(uint64) != 0 ||
		v->magic != HS_MAGIC || v->kind == CF_KIND_ANY || v->kind > CF_KIND_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoo_hashset value")));
	memset(tmp, 0, sizeof(*tmp));
	tmp->nsorted = HS_NHASHES(v);
	tmp->sorted_cap = tmp->nsorted;
	tmp->fpr = v->fpr;
	tmp->kind = v->kind;
	tmp->type_tag = v->type_tag;
	tmp->cxt = CurrentMemoryContext;
	if (((uintptr_t) v->hashes) % sizeof(uint64) == 0)
		tmp->sorted = v->hashes;
	else
	{
		/* a value stored unaligned: read a copy */
		tmp->sorted = hashset_alloc(CurrentMemoryContext, tmp->nsorted);
		memcpy(tmp->sorted, v->hashes, (Size) tmp->nsorted * sizeof(uint64));
	}
	return tmp;
}

/* ---- wire form: little-endian ---- */

static inline uint64
le64(uint64 x)
{
#ifdef WORDS_BIGENDIAN
	return pg_bswap64(x);
#else
	return x;
#endif
}

static inline uint32
le32(uint32 x)
{
#ifdef WORDS_BIGENDIAN
	return pg_bswap32(x);
#else
	return x;
#endif
}

static inline uint16
le16(uint16 x)
{
#ifdef WORDS_BIGENDIAN
	return pg_bswap16(x);
#else
	return x;
#endif
}

/* The wire form of flat value v, into out (HS_WIRE_HEADER + 8n bytes). */
static void
hashset_to_wire(const CuckooHashSet *v, uint8 *out)
{
	uint32		u32;
	uint16		u16;
	uint64		u64;
	int64		n = HS_NHASHES(v);

	u32 = le32(v->magic);
	memcpy(out, &u32, 4);
	u16 = le16(v->kind);
	memcpy(out + 4, &u16, 2);
	u16 = 0;
	memcpy(out + 6, &u16, 2);
	u32 = le32(v->type_tag);
	memcpy(out + 8, &u32, 4);
	memcpy(&u64, &v->fpr, 8);
	u64 = le64(u64);
	memcpy(out + 12, &u64, 8);
	out += HS_WIRE_HEADER;
	for (int64 i = 0; i < n; i++)
	{
		u64 = le64(v->hashes[i]);
		memcpy(out + i * 8, &u64, 8);
	}
}

/*
 * Validates untrusted wire bytes and returns the flat value, or NULL with a
 * soft error in escontext.  Every invariant is checked: length, magic, kind
 * and tag, the zero field, an fpr a filter can be built at, and strictly
 * ascending hashes (so equal sets have equal values).
 */
static CuckooHashSet *
hashset_from_wire(const uint8 *b, size_t len, int errcode_bad, Node *escontext)
{
	uint32		magic,
				tag;
	uint16		kind,
				zero;
	uint64		u64;
	double		fpr;
	int64		n;
	CuckooHashSet *v;
	const char *why = NULL;

	if (len < HS_WIRE_HEADER || (len - HS_WIRE_HEADER) % 8 != 0)
		why = "wrong length";
	else if ((int64) ((len - HS_WIRE_HEADER) / 8) > HS_MAX_HASHES)
		why = "too many hashes";
	else
	{
		memcpy(&magic, b, 4);
		memcpy(&kind, b + 4, 2);
		memcpy(&zero, b + 6, 2);
		memcpy(&tag, b + 8, 4);
		memcpy(&u64, b + 12, 8);
		magic = le32(magic);
		kind = le16(kind);
		zero = le16(zero);
		tag = le32(tag);
		u64 = le64(u64);
		memcpy(&fpr, &u64, 8);
		if (magic != HS_MAGIC)
			why = "bad magic number";
		else if (kind == CF_KIND_ANY || kind > CF_KIND_MAX)
			why = "unknown value kind";
		else if (zero != 0)
			why = "reserved field not zero";
		else if ((kind == CF_KIND_OTHER) != (tag != 0))
			why = "type tag does not match the value kind";
		else if (!hashset_fpr_valid(fpr))
			why = "fpr out of range";
	}
	if (why == NULL)
	{
		n = (int64) ((len - HS_WIRE_HEADER) / 8);
		v = palloc(HS_FLAT_HEADER + (Size) n * sizeof(uint64));
		SET_VARSIZE(v, HS_FLAT_HEADER + (Size) n * sizeof(uint64));
		v->magic = magic;
		v->kind = kind;
		v->reserved = 0;
		v->type_tag = tag;
		v->fpr = fpr;
		for (int64 i = 0; i < n; i++)
		{
			memcpy(&u64, b + HS_WIRE_HEADER + i * 8, 8);
			v->hashes[i] = le64(u64);
			if (i > 0 && v->hashes[i - 1] >= v->hashes[i])
			{
				why = "hashes not strictly ascending";
				break;
			}
		}
		if (why == NULL)
			return v;
		pfree(v);
	}
	ereturn(escontext, NULL,
			(errcode(errcode_bad),
			 errmsg("invalid cuckoo_hashset value: %s", why)));
}

/* Text input: the base64 of the wire form, nothing before or after. */
PG_FUNCTION_INFO_V1(cuckoo_hashset_in);
Datum
cuckoo_hashset_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		n = strlen(str);
	size_t		len;
	uint8	   *bytes;
	CuckooHashSet *v;
	Node	   *escontext = fcinfo->context;

	if (!cf_b64_decoded_len(str, n, &len) || len > MaxAllocSize ||
		!cf_b64_decode(str, n, (bytes = palloc(len + 1))))
	{
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type cuckoo_hashset"),
				 errdetail("A cuckoo_hashset is written as the base64 encoding of its binary form.")));
	}
	v = hashset_from_wire(bytes, len, ERRCODE_INVALID_TEXT_REPRESENTATION, escontext);
	pfree(bytes);
	if (v == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(v);
}

PG_FUNCTION_INFO_V1(cuckoo_hashset_out);
Datum
cuckoo_hashset_out(PG_FUNCTION_ARGS)
{
	CuckooHashSet *v = (CuckooHashSet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	size_t		len = HS_WIRE_HEADER + (size_t) HS_NHASHES(v) * 8;
	uint8	   *wire = palloc(len);
	char	   *out = palloc(cf_b64_encoded_len(len) + 1);

	hashset_to_wire(v, wire);
	cf_b64_encode(wire, len, out);
	out[cf_b64_encoded_len(len)] = '\0';
	pfree(wire);
	PG_RETURN_CSTRING(out);
}

/* Binary input: the wire form, validated as strictly as text. */
PG_FUNCTION_INFO_V1(cuckoo_hashset_recv);
Datum
cuckoo_hashset_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	CuckooHashSet *v;

	v = hashset_from_wire((const uint8 *) buf->data + buf->cursor,
						  (size_t) (buf->len - buf->cursor),
						  ERRCODE_INVALID_BINARY_REPRESENTATION, NULL);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(v);
}

PG_FUNCTION_INFO_V1(cuckoo_hashset_send);
Datum
cuckoo_hashset_send(PG_FUNCTION_ARGS)
{
	CuckooHashSet *v = (CuckooHashSet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	size_t		len = HS_WIRE_HEADER + (size_t) HS_NHASHES(v) * 8;
	uint8	   *wire = palloc(len);
	StringInfoData buf;

	hashset_to_wire(v, wire);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) wire, len);
	pfree(wire);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * During aggregation a set of up to HS_FLAT_KEEP hashes stays a flat value,
 * replaced by a new one (the executor copies it into the aggregate context)
 * when a hash is added; only a larger set becomes an expanded object, in a
 * memory context of its own.  A context and the set's parts cost every group
 * about 24 kB, and a hashed aggregate sums the memory of every context under
 * its own at each new group: a GROUP BY over 40,000 groups of 5 values took
 * 17 s and 965 MB with work_mem at 1GB, 0.12 s and 9.7 MB with flat sets
 * (sql/agg_groups.sql).  Adding to a flat set copies at most 1 kB.
 */
#define HS_FLAT_KEEP	128

/*
 * A new flat value (in the current context) with the given header fields and
 * the union of a[0 .. na-1] and b[0 .. nb-1], both strictly ascending.
 */
static CuckooHashSet *
hashset_flat_merge(double fpr, uint16 kind, uint32 tag,
				   const uint64 *a, int64 na, const uint64 *b, int64 nb)
{
	CuckooHashSet *v = palloc(HS_FLAT_HEADER + (Size) (na + nb) * sizeof(uint64));
	int64		i = 0,
				j = 0,
				n = 0;

	memset(v, 0, HS_FLAT_HEADER);
	v->magic = HS_MAGIC;
	v->kind = kind;
	v->type_tag = tag;
	v->fpr = fpr;
	while (i < na || j < nb)
	{
		if (j >= nb || (i < na && a[i] < b[j]))
			v->hashes[n++] = a[i++];
		else if (i >= na || b[j] < a[i])
			v->hashes[n++] = b[j++];
		else
		{
			v->hashes[n++] = a[i++];
			j++;
		}
	}
	SET_VARSIZE(v, HS_FLAT_HEADER + (Size) n * sizeof(uint64));
	return v;
}

/* Whether the strictly ascending a[0 .. n-1] holds h. */
static bool
hashes_have(const uint64 *a, int64 n, uint64 h)
{
	int64		lo = 0,
				hi = n;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (a[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == h;
}

/* The state argument argno as an expanded set to update in place. */
static ExpandedHashSet *
hashset_state(FunctionCallInfo fcinfo, MemoryContext aggcxt, int argno)
{
	ExpandedHashSet *e = hashset_expanded_of(PG_GETARG_DATUM(argno), true);
	HashSetState tmp;
	HashSetState *s;

	if (e != NULL)
		return e;
	/* a flat state (read from text, or copied by the caller): expand it */
	s = hashset_arg(fcinfo, argno, &tmp);
	e = hashset_expanded_new(aggcxt, s->fpr, s->kind, s->type_tag);
	hashset_combine(e->s, s);
	return e;
}

/*
 * Transition of cuckoo_agg(value [, fpr]) with a cuckoo_hashset state.  The
 * value's type comes from the call expression or, when a caller such as
 * Citus gives none, from this function's declared signature.
 */
PG_FUNCTION_INFO_V1(cuckoo_hashset_trans);
Datum
cuckoo_hashset_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	ExpandedHashSet *e;
	ValueHasher *vh;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_hashset_trans called in non-aggregate context")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	vh = arg_hasher(fcinfo, 1);
	if (PG_ARGISNULL(0))
	{
		/* the first value: a flat set of one hash */
		uint64		h = value_hash(vh, PG_GETARG_DATUM(1));

		PG_RETURN_POINTER(hashset_flat_merge(hashset_fpr_arg(fcinfo, 2), vh->kind,
											 vh->type_tag, NULL, 0, &h, 1));
	}
	e = hashset_expanded_of(PG_GETARG_DATUM(0), true);
	if (e == NULL)
	{
		/* a flat set: kept flat while it is small (HS_FLAT_KEEP) */
		HashSetState tmp;
		HashSetState *s = hashset_arg(fcinfo, 0, &tmp);
		uint64		h;

		if (s->kind != vh->kind || s->type_tag != vh->type_tag)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cuckoo_hashset holds %s values, not %s",
							cf_kind_name(s->kind), format_type_be(vh->typid))));
		h = value_hash(vh, PG_GETARG_DATUM(1));
		if (hashes_have(s->sorted, s->nsorted, h))
			PG_RETURN_DATUM(PG_GETARG_DATUM(0));
		if (s->nsorted < HS_FLAT_KEEP)
			PG_RETURN_POINTER(hashset_flat_merge(s->fpr, s->kind, s->type_tag,
												 s->sorted, s->nsorted, &h, 1));
		e = hashset_state(fcinfo, aggcxt, 0);
		hashset_add(e->s, h);
		PG_RETURN_DATUM(EOHPGetRWDatum(&e->hdr));
	}
	if (e->s->kind != vh->kind || e->s->type_tag != vh->type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_hashset holds %s values, not %s",
						cf_kind_name(e->s->kind), format_type_be(vh->typid))));
	hashset_add(e->s, value_hash(vh, PG_GETARG_DATUM(1)));
	PG_RETURN_DATUM(EOHPGetRWDatum(&e->hdr));
}

/* Combine: state1 gains state2's hashes; state2 is only read. */
PG_FUNCTION_INFO_V1(cuckoo_hashset_combine);
Datum
cuckoo_hashset_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	ExpandedHashSet *e;
	HashSetState tmp;
	HashSetState *s2;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_hashset_combine called in non-aggregate context")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	s2 = hashset_arg(fcinfo, 1, &tmp);
	if (PG_ARGISNULL(0))
	{
		/* a small flat set: a flat copy becomes the state (HS_FLAT_KEEP) */
		if (s2->parts == NULL && s2->nsorted <= HS_FLAT_KEEP)
			PG_RETURN_POINTER(hashset_flat_merge(s2->fpr, s2->kind, s2->type_tag,
												 s2->sorted, s2->nsorted, NULL, 0));
		e = hashset_expanded_new(aggcxt, s2->fpr, s2->kind, s2->type_tag);
	}
	else if ((e = hashset_expanded_of(PG_GETARG_DATUM(0), true)) == NULL)
	{
		HashSetState tmp1;
		HashSetState *s1 = hashset_arg(fcinfo, 0, &tmp1);

		if (s1->kind != s2->kind || s1->type_tag != s2->type_tag)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cuckoo_agg states of different value types cannot be combined")));
		/* two flat sets that stay small: merged into a new flat one */
		if (s2->parts == NULL && s1->nsorted + s2->nsorted <= HS_FLAT_KEEP)
			PG_RETURN_POINTER(hashset_flat_merge(s1->fpr, s1->kind, s1->type_tag,
												 s1->sorted, s1->nsorted,
												 s2->sorted, s2->nsorted));
		e = hashset_state(fcinfo, aggcxt, 0);
	}
	if (e->s->kind != s2->kind || e->s->type_tag != s2->type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_agg states of different value types cannot be combined")));
	hashset_combine(e->s, s2);
	PG_RETURN_DATUM(EOHPGetRWDatum(&e->hdr));
}

/*
 * Final function: the filter sized to the set's hashes, byte-identical to
 * the internal-state cuckoo_agg over the same values.  Only reads the state.
 */
PG_FUNCTION_INFO_V1(cuckoo_hashset_final);
Datum
cuckoo_hashset_final(PG_FUNCTION_ARGS)
{
	HashSetState tmp;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_CUCKOO_P(hashset_build_filter(hashset_arg(fcinfo, 0, &tmp)));
}

/* Number of distinct hashes in a set. */
PG_FUNCTION_INFO_V1(cuckoo_hashset_count);
Datum
cuckoo_hashset_count(PG_FUNCTION_ARGS)
{
	HashSetState tmp;

	PG_RETURN_INT64(hashset_count(hashset_arg(fcinfo, 0, &tmp)));
}
