/*
 * cuckoo.h
 *     The boundary between the plain-C core (core/cf.h) and PostgreSQL: the
 *     varlena type, the value hasher, and the externs of the glue files,
 *     grouped by the file that defines them.  The per-call-site cache of the
 *     SQL functions' arguments (cuckoo_arg.h) and cuckoo_agg's state
 *     (cuckoo_hashset.h) have headers of their own, each with the inline
 *     per-row path of its file, and so have the aggregates' files
 *     (cuckoo_agg.h).
 *
 * Naming: a C function called cuckoo_* is an SQL entry point (its name is
 * the SQL function's, cuckoo--1.0.sql binds it by name); the helpers the
 * glue files share are named after what they work on: filter_* (a filter
 * value), value_* (an SQL value and its hash), arg_* (a function argument,
 * cached per call site), plan_* (the parameters of a new filter), hashset_*
 * (cuckoo_agg's state).
 *
 * Layers, each using only those below it:
 *     cuckoo_module.c     _PG_init: calls the inits of the files below
 *     cuckoo_scan.c       the batched probe (planner hook, CustomScan)
 *     cuckoo_track.c cuckoo_track_trigger.c cuckoo_track_ddl.c  (SQL) the
 *                         living filters: track/untrack/verify, the
 *                         trigger, the event triggers
 *     cuckoo_track_pending.c  a transaction's tracked changes, applied at
 *                         commit (installs the store's pending hook, and
 *                         planner and executor hooks: no parallel worker
 *                         while a transaction has pending changes)
 *     cuckoo_track_catalog.c  trackings, triggers, roles of the living filters
 *     cuckoo_store_change.c cuckoo_store_probe.c cuckoo_store_create.c  (SQL)
 *                         the stored filters: changes, probes, create/info
 *     cuckoo_store_segment.c  a store's rows through SPI (cuckoo_store.h is
 *                         the store's interface, cuckoo_store_int.h its own)
 *     cuckoo_funcs.c cuckoo_type.c cuckoo_planner.c  (SQL)
 *     cuckoo_agg.c cuckoo_agg_fixed.c cuckoo_agg_grow.c  (SQL) the aggregates
 *     cuckoo_agg_split.c  the growing aggregate's partial states
 *     cuckoo_hashset_type.c   (SQL) the cuckoo_hashset type (1.1)
 *     cuckoo_arg.c (.h)   per-call-site cache: detoast, probe view, hasher
 *     cuckoo_hashset.c (.h) cuckoo_agg's state, a sorted set of hashes
 *     cuckoo_growth.c     growing a filter being changed (core realloc hook)
 *     cuckoo_hash.c       SQL values -> 64-bit hashes
 *     cuckoo_alloc.c      allocating and opening filter values
 *     cuckoo_error.c      the errors of failed core statuses
 *     cuckoo_plan.c       a new filter's parameters, a filter's expected fpr
 *     core/               the filter itself, no PostgreSQL header
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

/*
 * The batched probe (cuckoo_scan.c).  From 15 a CustomPath says whether it
 * can project (else a Result is put above it); from 18 EXPLAIN's property
 * functions and state have headers of their own.
 */
#if PG_VERSION_NUM >= 150000
#define CF_CUSTOMPATH_FLAGS		CUSTOMPATH_SUPPORT_PROJECTION
#else
#define CF_CUSTOMPATH_FLAGS		0
#endif
#if PG_VERSION_NUM >= 180000
#define CF_HAVE_EXPLAIN_FORMAT_H 1
#else
#define CF_HAVE_EXPLAIN_FORMAT_H 0
#endif

#include "cf.h"

/*
 * The glue's functions are internal to cuckoo.so: hidden, as PGXS makes
 * every symbol from PostgreSQL 16 on, so that on 13 to 15 they cannot
 * capture or be captured by another library's function of the same name
 * (the SQL entry points keep PG_FUNCTION_INFO_V1's declarations).
 */
#pragma GCC visibility push(hidden)

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

/* cuckoo_module.c: the magic block and _PG_init, which calls the inits below */

/* cuckoo_alloc.c */
#define FILTER_HUGE_ADVICE_MIN	((Size) 4 << 20)
extern void filter_advise_huge_pages(void *p, Size len);
extern void *filter_alloc(MemoryContext cxt, Size size);
extern CuckooFilter *filter_new(const cf_params *p);
extern void filter_open(cf_filter *cf, CuckooFilter *v);

/* cuckoo_growth.c */
typedef enum FilterGrowMode
{
	GROW_NONE,					/* the core may not grow the filter */
	GROW_REPALLOC,				/* enlarge the glue's own buffer in place */
	GROW_COPY,					/* new buffer in CurrentMemoryContext; the old
								 * one is left to its owner */
	GROW_ALLOC					/* new buffer from a function of the caller
								 * (filter_grow_begin_alloc), then as
								 * GROW_REPALLOC */
} FilterGrowMode;
typedef void *(*FilterGrowAllocFn) (void *arg, Size size);
extern void growth_init(void);
extern void filter_grow_begin(cf_filter *cf, FilterGrowMode mode);
extern void filter_grow_begin_alloc(cf_filter *cf, FilterGrowAllocFn fn, void *arg);
extern CuckooFilter *filter_grow_end(cf_filter *cf);
extern CuckooFilter *filter_union_into(cf_filter *dst, const cf_filter *src,
									   FilterGrowMode mode);

/* cuckoo_error.c */
extern void filter_report_status(cf_status st, const cf_filter *cf,
								 const cf_filter *other);

/* cuckoo_plan.c */
extern double filter_load(const cf_filter *cf, const cf_info *info);
extern double filter_expected_fpr(const cf_filter *cf, const cf_info *info);
extern int	filter_growth_rounds(const cf_info *info);
extern void plan_check_fpr(double fpr);
extern uint32 plan_fp_bits(double fpr, uint32 bucket_size, double load,
						   const char *for_what);
extern void plan_params(int64 capacity, double fpr, int bucket_size,
						int fingerprint_bits, bool fp_given,
						int max_kicks, bool semisort, cf_params *p);
extern void plan_expansion(int expansion, int64 capacity, double fpr,
						   int bucket_size, bool fp_given, bool semisort,
						   int max_kicks, cf_params *p);

/* cuckoo_arg.c */
extern void arg_init(void);

/* cuckoo_scan.c */
extern void scan_init(void);

/* cuckoo_planner.c */
extern void planner_init(void);

/* cuckoo_track_pending.c */
extern void track_init(void);
extern void track_rights_forget(Oid relid);

/* cuckoo_track_trigger.c */
extern void track_cache_forget(Oid relid);

/* cuckoo_store_change.c */
extern void store_direct_forget(Oid relid);

/* cuckoo_store_load.c */
extern void load_init(void);

/* cuckoo_hash.c */
extern void value_hasher_init(ValueHasher *vh, Oid typid, Oid collation,
							  MemoryContext mcxt);
extern uint64 value_hash(ValueHasher *vh, Datum value);
extern bool filter_kind_matches(const cf_filter *cf, const ValueHasher *vh);
extern void filter_check_kind(const cf_filter *cf, const ValueHasher *vh);

#pragma GCC visibility pop

#endif							/* CUCKOO_H */
