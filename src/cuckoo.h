/*
 * cuckoo.h
 *     The boundary between the plain-C core (core/cf.h) and PostgreSQL: the
 *     varlena type, the per-call-site cache, and the externs of the glue
 *     files, grouped by the file that defines them.
 *
 * Naming: a C function called cuckoo_* is an SQL entry point (its name is
 * the SQL function's, cuckoo--1.0.sql binds it by name); the helpers the
 * glue files share are named after what they work on: filter_* (a filter
 * value), value_* (an SQL value and its hash), arg_* (a function argument,
 * cached per call site), plan_* (the parameters of a new filter).
 *
 * Layers, each using only those below it:
 *     cuckoo_funcs.c cuckoo_agg.c cuckoo_type.c cuckoo_planner.c  (SQL)
 *     cuckoo_arg.c        per-call-site cache: detoast, probe view, hasher
 *     cuckoo_hash.c       SQL values -> 64-bit hashes
 *     cuckoo_utils.c      _PG_init, allocation, errors, parameter planning
 *     core/               the filter itself, no PostgreSQL header
 */
#ifndef CUCKOO_H
#define CUCKOO_H

#include "postgres.h"

#include "fmgr.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"			/* struct varatt_external moved here in 16 */
#endif

#include "cf.h"

/*
 * The cuckoofilter varlena: the core's serialised form behind the usual
 * 4-byte length word.  The bytes are the filter (docs/FORMAT.md); nothing
 * is stored anywhere else.
 */
typedef struct CuckooFilter
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint8		bytes[FLEXIBLE_ARRAY_MEMBER];	/* header + packed buckets */
} CuckooFilter;

#define CUCKOO_BYTES_LEN(x)		(VARSIZE(x) - VARHDRSZ)
#define DatumGetCuckooFilterP(X)	((CuckooFilter *) PG_DETOAST_DATUM(X))
#define DatumGetCuckooFilterPCopy(X)	((CuckooFilter *) PG_DETOAST_DATUM_COPY(X))
#define PG_GETARG_CUCKOO_P(n)	DatumGetCuckooFilterP(PG_GETARG_DATUM(n))
#define PG_GETARG_CUCKOO_P_COPY(n)	DatumGetCuckooFilterPCopy(PG_GETARG_DATUM(n))
#define PG_RETURN_CUCKOO_P(x)	PG_RETURN_POINTER(x)

/*
 * Assertion builds (--enable-cassert) check every filter the glue hands to or
 * takes from the core in full (cf_validate); tdigest's AssertCheckTDigest
 * is the model.  Other builds compile the check away.
 */
#ifdef USE_ASSERT_CHECKING
#define AssertCheckFilter(cf, where)	cf_assert_valid((cf), (where))
#else
#define AssertCheckFilter(cf, where)	((void) 0)
#endif

/* How one SQL type is turned into the 64-bit hash the filter uses. */
typedef struct ValueHasher
{
	Oid			typid;			/* the type as called (may be a domain) */
	Oid			collation;
	uint16		kind;			/* cf_kind */
	uint32		type_tag;		/* for CF_KIND_OTHER */
	int			method;			/* private to cuckoo_hash.c */
	FmgrInfo	proc;			/* extended hash or output function */
} ValueHasher;

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
	uint8		view_header[CF_HEADER_SIZE];
	cf_filter	view;
} CallSiteCache;

/* cuckoo_utils.c */
extern void *filter_alloc(MemoryContext cxt, Size size);
extern CuckooFilter *filter_new(const cf_params *p);
extern void filter_open(cf_filter *cf, CuckooFilter *v);
extern void filter_report_status(cf_status st, const cf_filter *cf,
								 const cf_filter *other);
extern void filter_union_into(cf_filter *dst, const cf_filter *src);
extern void plan_check_fpr(double fpr);
extern uint32 plan_fp_bits(double fpr, uint32 bucket_size, double load,
						   const char *for_what);
extern void plan_params(int64 capacity, double fpr, int bucket_size,
						int fingerprint_bits, bool fp_given,
						int max_kicks, bool semisort, cf_params *p);

#define FILTER_HUGE_ADVICE_MIN	((Size) 4 << 20)

/* cuckoo_hash.c */
extern void value_hasher_init(ValueHasher *vh, Oid typid, Oid collation,
							  MemoryContext mcxt);
extern uint64 value_hash(ValueHasher *vh, Datum value);
extern bool filter_kind_matches(const cf_filter *cf, const ValueHasher *vh);
extern void filter_check_kind(const cf_filter *cf, const ValueHasher *vh);

/* cuckoo_hashset.c: the state of cuckoo_agg(value [, fpr]) */
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

/* cuckoo_arg.c */
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

#endif							/* CUCKOO_H */
