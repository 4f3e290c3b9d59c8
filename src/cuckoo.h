/*
 * cuckoo.h
 *     The boundary between the plain-C core (cuckoo_core.h) and PostgreSQL:
 *     the varlena type, value hashing, and helpers shared by the fmgr files.
 */
#ifndef CUCKOO_H
#define CUCKOO_H

#include "postgres.h"

#include "fmgr.h"

/*
 * Every PostgreSQL version check of the extension is here; the .c files test
 * the feature macros below.  CI builds and tests 13, 15, 17, 18 and 19
 * (README, "Versions"); 14 and 16 are expected to build.
 */
#if PG_VERSION_NUM < 130000
#error "cuckoo needs PostgreSQL 13 or later"
#endif

#if PG_VERSION_NUM >= 140000
#define CF_HAVE_MULTIRANGES 1	/* multirange types arrived in 14 */
#else
#define CF_HAVE_MULTIRANGES 0
#endif

/*
 * From 18 the module names itself and its version in its magic block
 * (pg_get_loaded_modules()).  CUCKOO_VERSION comes from cuckoo.control by way
 * of the Makefile.
 */
#ifndef CUCKOO_VERSION
#define CUCKOO_VERSION "unknown"
#endif
#if PG_VERSION_NUM >= 180000
#define CF_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "cuckoo", .version = CUCKOO_VERSION)
#else
#define CF_MODULE_MAGIC PG_MODULE_MAGIC
#endif

#if PG_VERSION_NUM >= 160000
#include "varatt.h"			/* struct varatt_external moved here in 16 */
#include "nodes/miscnodes.h"	/* soft input errors: ErrorSaveContext */
#else
/*
 * No soft errors before 16 (pg_input_is_valid does not exist there): an
 * input function's ereturn() raises the error as ereport(ERROR) would.
 */
#define ereturn(context, dummy_value, ...) \
	do { \
		(void) (context); \
		ereport(ERROR, __VA_ARGS__); \
		return dummy_value; \
	} while (0)
#endif

#include "cuckoo_core.h"

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

/* What a call site keeps in fn_extra between rows. */
typedef struct CuckooCallCache
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
} CuckooCallCache;

/* The call site's cache, allocated on first use (inline: called per row). */
static inline CuckooCallCache *
cuckoo_call_cache(FunctionCallInfo fcinfo)
{
	if (unlikely(fcinfo->flinfo->fn_extra == NULL))
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CuckooCallCache));
	return (CuckooCallCache *) fcinfo->flinfo->fn_extra;
}

/* cuckoo_hash.c */
extern void cuckoo_hasher_init(ValueHasher *vh, Oid typid, Oid collation,
							   MemoryContext mcxt);
extern uint64 cuckoo_hash_datum(ValueHasher *vh, Datum value);
extern ValueHasher *cuckoo_hasher_for_arg_init(FunctionCallInfo fcinfo, int argno);
extern ValueHasher *cuckoo_hasher_for_array_arg(FunctionCallInfo fcinfo, int argno);
extern void cuckoo_check_kind(const cf_filter *cf, const ValueHasher *vh);
extern bool cuckoo_kind_matches(const cf_filter *cf, const ValueHasher *vh);

/* The hasher for argument argno (of a polymorphic function), cached. */
static inline ValueHasher *
cuckoo_hasher_for_arg(FunctionCallInfo fcinfo, int argno)
{
	CuckooCallCache *cc = cuckoo_call_cache(fcinfo);

	if (likely(cc->hasher_valid))
		return &cc->hasher;
	return cuckoo_hasher_for_arg_init(fcinfo, argno);
}

/* cuckoo_type.c */
extern CuckooFilter *cuckoo_new(const cf_params *p);
extern void cuckoo_open(cf_filter *cf, CuckooFilter *v);
extern CuckooFilter *cuckoo_getarg_cached(FunctionCallInfo fcinfo, int argno);
extern const cf_filter *cuckoo_probe_arg(FunctionCallInfo fcinfo, int argno,
										 ValueHasher *vh);
extern void cuckoo_report_status(cf_status st, const cf_filter *cf);
extern void cuckoo_plan_params(int64 capacity, double fpr, int bucket_size,
							   int fingerprint_bits, bool fp_given,
							   int max_kicks, bool semisort, cf_params *p);

#endif							/* CUCKOO_H */
