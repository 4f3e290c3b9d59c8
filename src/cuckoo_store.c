/*
 * cuckoo_store.c
 *     Stored filters (extension 1.3): one logical filter kept as a table of
 *     small segments, one row each, so that adding, removing or probing a
 *     value reads (and for a change writes) one segment row.
 *     cuckoo_store_create, cuckoo_store_add, _add_if_absent, _remove,
 *     _contains, their _array forms, and cuckoo_store_info (1.4: with the
 *     store's trackings).
 *
 * The design is in docs/DESIGN.md ("Stored filters"), the routing in
 * docs/FORMAT.md section 14.  Every function is SECURITY INVOKER and reaches
 * the store only through SQL run as the caller (SPI), so a call needs the
 * privileges the same statements in plain SQL would need.  The statements
 * are prepared once per backend and store and kept (SPI_keepplan).
 *
 * A store is the table
 *     segment int4 PRIMARY KEY, f cuckoofilter NOT NULL,
 *     fpr float8, capacity int8, segments int4
 * whose row segment = -1 (the header) records the target fpr, the capacity
 * asked for, the number of segments S and, in its f (an empty filter of the
 * segments' shape), the value family; rows 0 .. S-1 are the segments.
 */
#include "cuckoo.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "access/detoast.h"	/* toast_datum_size (13 and later) */

#include "cf_store.h"
#include "cuckoo_store.h"

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

static HTAB *store_plans = NULL;

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

/* ------------------------------------------------------------------------
 * Call-site cache, types, the relation's shape
 * ------------------------------------------------------------------------
 */

static StoreCallCache *
store_call_cache(FunctionCallInfo fcinfo)
{
	StoreCallCache *cc = (StoreCallCache *) fcinfo->flinfo->fn_extra;

	if (cc == NULL)
	{
		Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);

		cc = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(StoreCallCache));
		cc->filter_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
										  CStringGetDatum("cuckoofilter"),
										  ObjectIdGetDatum(nsp));
		if (!OidIsValid(cc->filter_type))
			elog(ERROR, "type cuckoofilter not found in schema of function %u",
				 fcinfo->flinfo->fn_oid);
		fcinfo->flinfo->fn_extra = cc;
	}
	return cc;
}

/* The hasher of value argument argno (array: of its elements). */
static ValueHasher *
store_hasher(FunctionCallInfo fcinfo, int argno, bool array)
{
	StoreCallCache *cc = store_call_cache(fcinfo);

	if (!cc->hasher_valid)
	{
		Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, argno);

		if (array && OidIsValid(typid))
			typid = get_element_type(getBaseType(typid));
		if (!OidIsValid(typid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not determine the type of the %s",
							array ? "array's elements" : "value")));
		value_hasher_init(&cc->hasher, typid, PG_GET_COLLATION(),
						  fcinfo->flinfo->fn_mcxt);
		cc->hasher_valid = true;
	}
	return &cc->hasher;
}

static void
store_not_a_store(Oid relid, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("\"%s\" is not a cuckoo store", get_rel_name(relid)),
			 errdetail("%s", detail),
			 errhint("Create stores with cuckoo_store_create(name, capacity, fpr).")));
}

/* Checks that relid is a table with a store's columns. */
static void
store_check_shape(Oid relid, Oid filter_type)
{
	static const char *const cols[] = {"segment", "f", "fpr", "capacity", "segments"};
	Oid			types[5];
	char		relkind = get_rel_relkind(relid);

	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (relkind != RELKIND_RELATION)
		store_not_a_store(relid, "It is not an ordinary table.");
	types[0] = INT4OID;
	types[1] = filter_type;
	types[2] = FLOAT8OID;
	types[3] = INT8OID;
	types[4] = INT4OID;
	for (int i = 0; i < 5; i++)
	{
		AttrNumber	att = get_attnum(relid, cols[i]);

		if (att == InvalidAttrNumber || get_atttype(relid, att) != types[i])
			store_not_a_store(relid, "A store has the columns segment int4, f cuckoofilter, fpr float8, capacity int8 and segments int4.");
	}
}

static char *
store_qualname(Oid relid)
{
	char	   *nsp = get_namespace_name(get_rel_namespace(relid));
	char	   *rel = get_rel_name(relid);

	if (nsp == NULL || rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	return quote_qualified_identifier(nsp, rel);
}

/* ------------------------------------------------------------------------
 * Plans
 * ------------------------------------------------------------------------
 */

static SPIPlanPtr
store_prepare(const char *sql, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare(sql, nargs, argtypes);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	return plan;
}

/*
 * The store's plans (inside an SPI connection).  Made on first use in this
 * backend, and again when the table has been renamed since: the statements
 * name it, and a kept plan is re-analysed from its text after DDL.
 */
static StoreEntry *
store_entry(Oid relid, Oid filter_type)
{
	StoreEntry *e;
	bool		found;
	char	   *qualname = store_qualname(relid);
	Oid			types[2];

	if (store_plans == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(StoreEntry);
		store_plans = hash_create("cuckoo store plans", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS);
	}
	e = hash_search(store_plans, &relid, HASH_ENTER, &found);
	if (found && e->qualname != NULL && strcmp(e->qualname, qualname) == 0)
		return e;
	if (found && e->qualname != NULL)
	{
		for (int i = 0; i < NUM_PLANS; i++)
			if (e->plans[i] != NULL)
				SPI_freeplan(e->plans[i]);
		pfree(e->qualname);
	}
	e->qualname = NULL;
	memset(e->plans, 0, sizeof(e->plans));

	types[0] = INT4OID;
	types[1] = filter_type;
	e->plans[PLAN_READ] = store_prepare(
		psprintf("SELECT f, fpr, capacity, segments FROM %s "
				 "WHERE segment OPERATOR(pg_catalog.=) $1", qualname),
		1, types);
	e->plans[PLAN_LOCK] = store_prepare(
		psprintf("SELECT f, fpr, capacity, segments FROM %s "
				 "WHERE segment OPERATOR(pg_catalog.=) $1 FOR UPDATE", qualname),
		1, types);
	e->plans[PLAN_WRITE] = store_prepare(
		psprintf("UPDATE %s SET f = $2 "
				 "WHERE segment OPERATOR(pg_catalog.=) $1", qualname),
		2, types);
	e->plans[PLAN_ALL] = store_prepare(
		psprintf("SELECT segment, f FROM %s "
				 "WHERE segment OPERATOR(pg_catalog.>=) $1", qualname),
		1, types);
	e->qualname = MemoryContextStrdup(TopMemoryContext, qualname);
	return e;
}

/*
 * Set while cuckoo_store_apply(..., latest) runs: the store's rows are then
 * read and written under the newest snapshot (committed changes of other
 * transactions included, whatever the isolation level), not the
 * transaction's.
 */
static bool store_latest = false;

static int
store_exec_plan(SPIPlanPtr plan, Datum *args, bool read_only, long tcount)
{
	if (store_latest)
		return SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(),
									InvalidSnapshot, read_only, true, tcount);
	return SPI_execute_plan(plan, args, NULL, read_only, tcount);
}

static CuckooFilter *store_overlay(Store *s, int32 segment, CuckooFilter *v);

/*
 * Reads row `segment` (locking it when lock): its f, detoasted (a copy when
 * copy), or NULL when there is no such row.  With header, the other columns
 * too.  The result lives in the SPI procedure's context.
 */
static CuckooFilter *
store_read(Store *s, int32 segment, bool lock, bool copy, bool read_only,
		   bool header)
{
	Datum		arg = Int32GetDatum(segment);
	int			rc;
	HeapTuple	tup;
	TupleDesc	td;
	Datum		d;
	bool		isnull;

	/* two rows asked: a second row for the segment is an error, not a guess */
	rc = store_exec_plan(s->entry->plans[lock ? PLAN_LOCK : PLAN_READ],
						 &arg, read_only, 2);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading cuckoo store \"%s\" failed: %s", s->name,
			 SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return NULL;
	if (SPI_processed > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo store \"%s\" has more than one row for segment %d",
						s->name, segment),
				 errhint("A store's table keeps its primary key on segment.")));
	tup = SPI_tuptable->vals[0];
	td = SPI_tuptable->tupdesc;
	d = SPI_getbinval(tup, td, 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("segment %d of cuckoo store \"%s\" is NULL", segment, s->name)));
	if (header)
	{
		Datum		fpr = SPI_getbinval(tup, td, 2, &isnull);
		bool		n2,
					n3;
		Datum		cap = SPI_getbinval(tup, td, 3, &n2);
		Datum		nseg = SPI_getbinval(tup, td, 4, &n3);

		if (isnull || n2 || n3 || DatumGetInt32(nseg) < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cuckoo store \"%s\" has a damaged header row", s->name),
					 errdetail("The row segment = -1 must have fpr, capacity and segments set, segments >= 1.")));
		s->fpr = DatumGetFloat8(fpr);
		s->capacity = DatumGetInt64(cap);
		s->nsegments = DatumGetInt32(nseg);
	}
	if (copy)
	{
		CuckooFilter *v = DatumGetCuckooFilterPCopy(d);

		/* a bulk change reads many segments: keep only the copies */
		SPI_freetuptable(SPI_tuptable);
		return lock || segment < 0 ? v : store_overlay(s, segment, v);
	}
	/* a read to probe: with this transaction's changes not applied yet */
	return lock || segment < 0 ? DatumGetCuckooFilterP(d) :
		store_overlay(s, segment, DatumGetCuckooFilterP(d));
}

static void
store_write(Store *s, int32 segment, cf_filter *cf)
{
	Datum		args[2];
	CuckooFilter *v = (CuckooFilter *) (cf->buf - VARHDRSZ);
	int			rc;

	/* the filter may have grown and moved: cf->buf and cf->len are current */
	SET_VARSIZE(v, VARHDRSZ + cf->len);
	AssertCheckFilter(cf, "store_write");
	args[0] = Int32GetDatum(segment);
	args[1] = PointerGetDatum(v);
	rc = store_exec_plan(s->entry->plans[PLAN_WRITE], args, false, 0);
	if (rc != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "updating segment %d of cuckoo store \"%s\" failed: %s",
			 segment, s->name, SPI_result_code_string(rc));
}

/* Raises 42804 unless values of vh belong in the store. */
static void
store_check_kind(Store *s, const ValueHasher *vh)
{
	uint16		kind = cf_kind_of(&s->hcf);

	if (filter_kind_matches(&s->hcf, vh))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cuckoo store \"%s\" holds %s values, not %s", s->name,
					cf_kind_name(kind), format_type_be(vh->typid)),
			 errhint("Use a store with values of the type it was first given.")));
}

/*
 * Opens the store (inside an SPI connection): checks the relation, gets its
 * plans and reads its header row.  For a change, a store that has no value
 * family yet gets vh's, under a lock on the header row; a family that
 * differs from vh's is an error either way.  A probe (read_only) reads the
 * header under the query's snapshot; the changing functions (volatile,
 * read_only false, a remove too) under a new one, as their segment reads:
 * they see what calls before them in the same statement changed.
 */
static void
store_open(Store *s, FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
		   bool change, bool read_only)
{
	StoreCallCache *cc = store_call_cache(fcinfo);

	store_check_shape(relid, cc->filter_type);
	s->relid = relid;
	s->name = get_rel_name(relid);
	s->entry = store_entry(relid, cc->filter_type);
	s->header = store_read(s, STORE_HEADER, false, false, read_only, true);
	if (s->header == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a cuckoo store: it has no header row (segment -1)",
						s->name)));
	filter_open(&s->hcf, s->header);
	if (vh == NULL)
		return;
	if (change && cf_kind_of(&s->hcf) == CF_KIND_ANY)
	{
		/* first value: record its family, or find another's just recorded */
		s->header = store_read(s, STORE_HEADER, true, true, false, true);
		if (s->header == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" is not a cuckoo store: it has no header row (segment -1)",
							s->name)));
		filter_open(&s->hcf, s->header);
		if (cf_kind_of(&s->hcf) == CF_KIND_ANY)
		{
			cf_set_kind(&s->hcf, vh->kind, vh->type_tag);
			store_write(s, STORE_HEADER, &s->hcf);
		}
	}
	store_check_kind(s, vh);
}

static void
store_missing_segment(Store *s, int32 segment)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cuckoo store \"%s\" has no segment %d", s->name, segment),
			 errdetail("Its header row says it has %d segments (0 .. %d).",
					   s->nsegments, s->nsegments - 1)));
}

/* ------------------------------------------------------------------------
 * Changes and probes of one segment
 * ------------------------------------------------------------------------
 */

typedef enum StoreOp
{
	OP_ADD,
	OP_ADD_IF_ABSENT,
	OP_REMOVE
} StoreOp;

/* Applies op to hash h in the open segment cf; true if it changed cf. */
static bool
segment_apply(cf_filter *cf, const ValueHasher *vh, StoreOp op, uint64 h)
{
	cf_status	st;

	if (op == OP_REMOVE)
		return cf_kind_of(cf) != CF_KIND_ANY && cf_remove(cf, h);
	if (cf_kind_of(cf) == CF_KIND_ANY)
		cf_set_kind(cf, vh->kind, vh->type_tag);
	/* a growing segment may grow: the copy is ours, enlarged in place */
	filter_grow_begin(cf, GROW_REPALLOC);
	st = op == OP_ADD_IF_ABSENT ? cf_insert_if_absent(cf, h) : cf_insert(cf, h);
	(void) filter_grow_end(cf);
	filter_report_status(st, cf, NULL);
	return st != CF_EXISTS;
}

/*
 * Segment v of store s as this transaction will change it at commit: the
 * changes its tracked tables made, which cuckoo_track.c keeps until then
 * (cuckoo_track_pending), applied to a copy as cuckoo_store_apply would
 * apply them (removes first, saturating).  v itself when there are none.
 */
static CuckooFilter *
store_overlay(Store *s, int32 segment, CuckooFilter *v)
{
	const StoreChange *c;
	const ValueHasher *vh;
	int64		n = cuckoo_track_pending(s->relid, (uint32) s->nsegments, segment, &c, &vh);
	CuckooFilter *copy;
	cf_filter	cf;
	cf_params	p;

	if (n == 0)
		return v;
	copy = palloc(VARSIZE(v));
	memcpy(copy, v, VARSIZE(v));
	filter_open(&cf, copy);
	filter_check_kind(&cf, vh);
	cf_get_params(&cf, &p);
	for (int64 i = 0; i < n; i++)
	{
		if (cf_count(&cf, c[i].h) >= p.bucket_size)
			continue;
		(void) segment_apply(&cf, vh, c[i].remove ? OP_REMOVE : OP_ADD, c[i].h);
	}
	copy = (CuckooFilter *) (cf.buf - VARHDRSZ);
	SET_VARSIZE(copy, VARHDRSZ + cf.len);
	return copy;
}

/* One hash of an array, routed. */
typedef struct StoreItem
{
	int32		segment;
	int			index;			/* position among the array's elements */
	uint64		h;
} StoreItem;

static int
store_item_cmp(const void *a, const void *b)
{
	const StoreItem *x = a;
	const StoreItem *y = b;

	if (x->segment != y->segment)
		return x->segment < y->segment ? -1 : 1;
	return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
}

/*
 * Sorts items by segment, then by position (they come in position order).
 * A counting sort when the segments are not many more than the items: two
 * passes, no comparisons; else qsort.
 */
static void
store_sort_items(StoreItem **items, int n, int32 nsegments)
{
	StoreItem  *in = *items;
	StoreItem  *out;
	uint32	   *start;

	if (n < 2)
		return;
	if ((int64) nsegments > 4 * (int64) n + 1024)
	{
		qsort(in, n, sizeof(StoreItem), store_item_cmp);
		return;
	}
	start = palloc0(sizeof(uint32) * ((Size) nsegments + 1));
	for (int i = 0; i < n; i++)
		start[in[i].segment + 1]++;
	for (int32 sgm = 0; sgm < nsegments; sgm++)
		start[sgm + 1] += start[sgm];
	out = palloc_extended(sizeof(StoreItem) * (Size) n, MCXT_ALLOC_HUGE);
	for (int i = 0; i < n; i++)
		out[start[in[i].segment]++] = in[i];
	pfree(start);
	pfree(in);
	*items = out;
}

/*
 * Hashes and routes the non-null elements of arr: *n items sorted by
 * segment, then by position.  nulls[] (if given) marks the NULL elements.
 */
static StoreItem *
store_route_array(Store *s, ValueHasher *vh, ArrayType *arr, int *n, int *nelems,
				  bool **nulls_out)
{
	int			ne = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	StoreItem  *items = palloc_extended(sizeof(StoreItem) * (Size) Max(ne, 1),
										MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	bool	   *nulls = palloc(sizeof(bool) * Max(ne, 1));
	ArrayIterator it = array_create_iterator(arr, 0, NULL);
	Datum		value;
	bool		isnull;
	int			i = 0,
				k = 0;

	while (array_iterate(it, &value, &isnull))
	{
		CHECK_FOR_INTERRUPTS();
		nulls[i] = isnull;
		if (!isnull)
		{
			uint64		h = value_hash(vh, value);

			items[k].segment = (int32) cf_store_segment(h, (uint32) s->nsegments);
			items[k].index = i;
			items[k].h = h;
			k++;
		}
		i++;
	}
	array_free_iterator(it);
	store_sort_items(&items, k, s->nsegments);
	*n = k;
	*nelems = ne;
	if (nulls_out)
		*nulls_out = nulls;
	return items;
}

/*
 * The shared body of the changing functions: op applied to value argument 1
 * of store argument 0 (array: to each non-null element, the segments
 * locked and changed in ascending order, each once).  Returns how many
 * elements changed the store.
 */
static int64
store_change(FunctionCallInfo fcinfo, StoreOp op, bool array)
{
	Oid			relid = PG_GETARG_OID(0);
	ValueHasher *vh = store_hasher(fcinfo, 1, array);
	Store		s;
	int64		changed = 0;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, vh, op != OP_REMOVE, false);
	if (!array)
	{
		uint64		h = value_hash(vh, PG_GETARG_DATUM(1));
		int32		seg = (int32) cf_store_segment(h, (uint32) s.nsegments);
		CuckooFilter *v;
		cf_filter	cf;

		if (op == OP_REMOVE && cf_kind_of(&s.hcf) == CF_KIND_ANY)
		{
			/* nothing was ever added */
			SPI_finish();
			return 0;
		}
		v = store_read(&s, seg, true, true, false, false);
		if (v == NULL)
			store_missing_segment(&s, seg);
		filter_open(&cf, v);
		filter_check_kind(&cf, vh);
		if (segment_apply(&cf, vh, op, h))
		{
			store_write(&s, seg, &cf);
			changed = 1;
		}
	}
	else
	{
		ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
		int			n,
					ne;
		StoreItem  *items = store_route_array(&s, vh, arr, &n, &ne, NULL);

		if (op == OP_REMOVE && cf_kind_of(&s.hcf) == CF_KIND_ANY)
			n = 0;
		for (int i = 0; i < n;)
		{
			int32		seg = items[i].segment;
			CuckooFilter *v;
			cf_filter	cf;
			bool		dirty = false;

			CHECK_FOR_INTERRUPTS();
			v = store_read(&s, seg, true, true, false, false);
			if (v == NULL)
				store_missing_segment(&s, seg);
			filter_open(&cf, v);
			filter_check_kind(&cf, vh);
			for (; i < n && items[i].segment == seg; i++)
				if (segment_apply(&cf, vh, op, items[i].h))
				{
					dirty = true;
					changed++;
				}
			if (dirty)
				store_write(&s, seg, &cf);
			pfree(cf.buf - VARHDRSZ);
		}
	}
	SPI_finish();
	return changed;
}

/* cuckoo_store_add(store, value): one more occurrence of value. */
PG_FUNCTION_INFO_V1(cuckoo_store_add);
Datum
cuckoo_store_add(PG_FUNCTION_ARGS)
{
	(void) store_change(fcinfo, OP_ADD, false);
	PG_RETURN_VOID();
}

/* cuckoo_store_add_if_absent(store, value): true if value was stored. */
PG_FUNCTION_INFO_V1(cuckoo_store_add_if_absent);
Datum
cuckoo_store_add_if_absent(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(store_change(fcinfo, OP_ADD_IF_ABSENT, false) > 0);
}

/* cuckoo_store_remove(store, value): true if an occurrence was removed. */
PG_FUNCTION_INFO_V1(cuckoo_store_remove);
Datum
cuckoo_store_remove(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(store_change(fcinfo, OP_REMOVE, false) > 0);
}

/* cuckoo_store_add_array(store, values[]): how many elements were added. */
PG_FUNCTION_INFO_V1(cuckoo_store_add_array);
Datum
cuckoo_store_add_array(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(store_change(fcinfo, OP_ADD, true));
}

/* cuckoo_store_add_if_absent_array(store, values[]): how many were stored. */
PG_FUNCTION_INFO_V1(cuckoo_store_add_if_absent_array);
Datum
cuckoo_store_add_if_absent_array(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(store_change(fcinfo, OP_ADD_IF_ABSENT, true));
}

/* cuckoo_store_remove_array(store, values[]): how many were removed. */
PG_FUNCTION_INFO_V1(cuckoo_store_remove_array);
Datum
cuckoo_store_remove_array(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(store_change(fcinfo, OP_REMOVE, true));
}

/*
 * True when the segments in pc were read under the snapshot the next read
 * would use, by the same user, from the same store: then reading again
 * would give the same rows.  A probe reads with the active snapshot
 * (SPI, read-only).  Within one query that snapshot does not change; a
 * new statement (in PL/pgSQL, a new expression evaluation in a volatile
 * function) gets a new one, with a higher command id after a change of
 * this transaction and other xmax, running transactions or (14+) a higher
 * completion count after other transactions end.
 */
static bool
probe_cache_valid(const ProbeCache *pc, Oid relid)
{
	Snapshot	snap;

	if (!pc->valid || pc->relid != relid || pc->userid != GetUserId() ||
		!ActiveSnapshotSet())
		return false;
	snap = GetActiveSnapshot();
	return snap == pc->snap && snap->curcid == pc->curcid &&
		snap->xmin == pc->xmin && snap->xmax == pc->xmax &&
		snap->xcnt == pc->xcnt && snap->subxcnt == pc->subxcnt &&
		snap->suboverflowed == pc->suboverflowed
#if PG_VERSION_NUM >= 140000
		&& snap->snapXactCompletionCount == pc->completions
#endif
		;
}

/*
 * True when row-level security is enabled on the store.  Its policies may
 * depend on more than the user and the snapshot (a setting, the clock), so
 * segments read once may not be what reading again would give: such a store
 * is read at every probe, as plain SQL would read it.
 */
static bool
store_has_rls(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		rls;

	if (!HeapTupleIsValid(tp))
		return true;
	rls = ((Form_pg_class) GETSTRUCT(tp))->relrowsecurity;
	ReleaseSysCache(tp);
	return rls;
}

/* Starts a new cache for store s (open, inside SPI) under the active snapshot. */
static void
probe_cache_reset(FunctionCallInfo fcinfo, ProbeCache *pc, Store *s)
{
	Snapshot	snap = GetActiveSnapshot();
	MemoryContext old;

	pc->valid = false;
	if (s->nsegments > PROBE_CACHE_MAX_SEGMENTS)
		return;					/* its index alone would be too large */
	if (store_has_rls(s->relid))
		return;					/* policies may see other rows under this snapshot */
	if (pc->cxt == NULL)
		pc->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
										"cuckoo store probe cache",
										ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(pc->cxt);
	old = MemoryContextSwitchTo(pc->cxt);
	pc->segs = palloc_extended(sizeof(cf_filter *) * (Size) s->nsegments,
								MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	cf_open(&pc->hcf, memcpy(palloc(s->hcf.len), s->hcf.buf, s->hcf.len), s->hcf.len);
	MemoryContextSwitchTo(old);
	pc->relid = s->relid;
	pc->userid = GetUserId();
	pc->snap = snap;
	pc->curcid = snap->curcid;
	pc->xmin = snap->xmin;
	pc->xmax = snap->xmax;
	pc->xcnt = snap->xcnt;
	pc->subxcnt = snap->subxcnt;
	pc->suboverflowed = snap->suboverflowed;
#if PG_VERSION_NUM >= 140000
	pc->completions = snap->snapXactCompletionCount;
#endif
	pc->nsegments = s->nsegments;
	pc->bytes = 0;
	pc->arena = NULL;
	pc->arena_left = 0;
	pc->reads = 0;
	pc->raw = NULL;
	pc->valid = true;
}

/*
 * Opens store relid for probes at call site fcinfo (inside SPI): in full,
 * starting a new cache, unless the cache holds what reading again would
 * give; then only the relation's shape and the plans, as always.
 */
static void
probe_open(FunctionCallInfo fcinfo, Store *s, Oid relid, const ValueHasher *vh)
{
	StoreCallCache *cc = store_call_cache(fcinfo);
	ProbeCache *pc = &cc->probe;

	if (probe_cache_valid(pc, relid))
	{
		store_check_shape(relid, cc->filter_type);
		s->relid = relid;
		s->name = get_rel_name(relid);
		s->entry = store_entry(relid, cc->filter_type);
		s->nsegments = pc->nsegments;
	}
	else
	{
		store_open(s, fcinfo, relid, vh, false, true);
		probe_cache_reset(fcinfo, pc, s);
	}
}

/* Room for a view and a copy of v in the cache (counted in pc->bytes by the caller). */
static cf_filter *
probe_alloc(ProbeCache *pc, CuckooFilter *v)
{
	Size		need = TYPEALIGN(64, sizeof(cf_filter) + VARSIZE(v));
	cf_filter  *c;

	if (need > pc->arena_left)
	{
		Size		block = Max(need, PROBE_ARENA_BLOCK);

		pc->arena = (char *) TYPEALIGN(64, MemoryContextAlloc(pc->cxt, block + 64));
		pc->arena_left = block;
	}
	c = (cf_filter *) pc->arena;
	pc->arena += need;
	pc->arena_left -= need;
	return c;
}

/*
 * After this many segments read one by one, a call site reads the rest of
 * the store in one statement: a scan probes them all, and one statement
 * reads them with one executor start instead of one per segment.
 */
static int64
probe_read_all_after(int32 nsegments)
{
	return Max(64, nsegments / 8);
}

/*
 * Reads every segment of store s (open, inside SPI) not in the cache yet,
 * in one statement under the same snapshot as the reads one by one, into
 * pc->raw, as far as the cache's budget allows, but for the segments this
 * transaction has pending changes of.  Copies are opened (header
 * checked, kind compared) at their first probe, so a damaged segment gives
 * its error at the row that probes it, as when read alone.  Two rows of one
 * segment are an error here too.
 */
static void
probe_read_all(ProbeCache *pc, Store *s)
{
	Datum		arg = Int32GetDatum(0);
	Portal		portal;
	bool		full = false;
	const StoreChange *pending;
	const ValueHasher *pending_vh;

	pc->raw = MemoryContextAllocExtended(pc->cxt, sizeof(cf_filter *) * (Size) pc->nsegments,
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	portal = SPI_cursor_open(NULL, s->entry->plans[PLAN_ALL], &arg, NULL, true);
	if (portal == NULL)
		elog(ERROR, "reading cuckoo store \"%s\" failed: %s", s->name,
			 SPI_result_code_string(SPI_result));
	while (!full)
	{
		SPI_cursor_fetch(portal, true, 256);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed && !full; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			TupleDesc	td = SPI_tuptable->tupdesc;
			bool		isnull;
			int32		seg = DatumGetInt32(SPI_getbinval(tup, td, 1, &isnull));
			Datum		d;
			CuckooFilter *v;
			cf_filter  *c;

			/* rows a probe never reads are left to the probes' own reads */
			if (isnull || seg < 0 || seg >= pc->nsegments || pc->segs[seg] != NULL)
				continue;
			/*
			 * So is a segment this transaction has changes of, not applied
			 * until its commit: the read one by one lays them over the copy
			 * (store_overlay), so its probes find what the transaction added.
			 */
			if (cuckoo_track_pending(s->relid, (uint32) pc->nsegments, seg,
									 &pending, &pending_vh) > 0)
				continue;
			if (pc->raw[seg] != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("cuckoo store \"%s\" has more than one row for segment %d",
								s->name, seg),
						 errhint("A store's table keeps its primary key on segment.")));
			d = SPI_getbinval(tup, td, 2, &isnull);
			if (isnull)
				continue;		/* its own read raises the error */
			v = DatumGetCuckooFilterP(d);
			if (pc->bytes + VARSIZE(v) > PROBE_CACHE_BYTES)
			{
				full = true;
				break;
			}
			c = probe_alloc(pc, v);
			memcpy(c + 1, v, VARSIZE(v));
			pc->raw[seg] = c;
			pc->bytes += VARSIZE(v);
			if ((Pointer) v != DatumGetPointer(d))
				pfree(v);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
}

/* The view of segment seg from its copy in pc->raw, opened and checked now. */
static const cf_filter *
probe_open_raw(ProbeCache *pc, const ValueHasher *vh, int32 seg)
{
	cf_filter  *c = pc->raw[seg];

	filter_open(c, (CuckooFilter *) (c + 1));
	filter_check_kind(c, vh);
	pc->segs[seg] = c;
	return c;
}

/*
 * Reads segment seg of store s (open, inside SPI) for a probe of hash h:
 * its view kept in the call site's cache and returned, or, when the cache
 * cannot keep it, NULL with the answer for h in *found.
 */
static const cf_filter *
probe_read_segment(ProbeCache *pc, Store *s, const ValueHasher *vh, int32 seg,
				   uint64 h, bool *found)
{
	CuckooFilter *v = store_read(s, seg, false, false, true, false);
	cf_filter	cf;
	const cf_filter *kept = NULL;

	if (v == NULL)
		store_missing_segment(s, seg);
	filter_open(&cf, v);
	filter_check_kind(&cf, vh);
	if (pc->valid && pc->bytes + VARSIZE(v) <= PROBE_CACHE_BYTES)
	{
		cf_filter  *c = probe_alloc(pc, v);
		CuckooFilter *copy = (CuckooFilter *) (c + 1);

		memcpy(copy, v, VARSIZE(v));
		cf_open(c, copy->bytes, CUCKOO_BYTES_LEN(copy));
		pc->segs[seg] = c;
		pc->bytes += VARSIZE(v);
		kept = c;
	}
	else
		*found = cf_contains(&cf, h);
	SPI_freetuptable(SPI_tuptable);
	return kept;
}

/* cuckoo_store_contains(store, value): may value be in the store? */
PG_FUNCTION_INFO_V1(cuckoo_store_contains);
Datum
cuckoo_store_contains(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ValueHasher *vh = store_hasher(fcinfo, 1, false);
	uint64		h = value_hash(vh, PG_GETARG_DATUM(1));
	bool		found;

	cuckoo_store_contains_many(fcinfo, relid, vh, &h, 1, &found);
	PG_RETURN_BOOL(found);
}

ValueHasher *
cuckoo_store_probe_hasher(FunctionCallInfo fcinfo)
{
	return store_hasher(fcinfo, 1, false);
}

void
cuckoo_store_contains_many(FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
						   const uint64 *h, int n, bool *out)
{
	StoreCallCache *cc = store_call_cache(fcinfo);
	ProbeCache *pc = &cc->probe;
	const cf_filter *one_cf;
	uint64		one_h;
	const cf_filter **cfs = &one_cf;	/* views of the lookups left */
	uint64	   *hs = &one_h;
	int		   *where = NULL;
	bool	   *res;
	int			m = 0;
	Store		s;

	if (n <= 0)
		return;

	/*
	 * The cache holds what reading again would give; a value of another
	 * family goes the whole way, which raises the error.
	 */
	if (probe_cache_valid(pc, relid) && !filter_kind_matches(&pc->hcf, vh))
		pc->valid = false;
	if (probe_cache_valid(pc, relid))
	{
		if (n > 1)
			cfs = palloc(sizeof(cf_filter *) * n);
		for (m = 0; m < n; m++)
		{
			cfs[m] = pc->segs[cf_store_segment(h[m], (uint32) pc->nsegments)];
			if (cfs[m] == NULL)
				break;
		}
		if (m == n)
		{
			/* every segment cached: the common case of a scan */
			cf_contains_each(cfs, h, n, out);
			if (cfs != &one_cf)
				pfree(cfs);
			return;
		}
		if (cfs != &one_cf)
			pfree(cfs);
		cfs = &one_cf;
	}

	/* some segment to read: in order, the errors at the first row that meets them */
	if (n > 1)
	{
		cfs = palloc(sizeof(cf_filter *) * n);
		hs = palloc(sizeof(uint64) * n);
		where = palloc(sizeof(int) * n);
		res = palloc(sizeof(bool) * n);
	}
	else
		res = out;
	m = 0;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	probe_open(fcinfo, &s, relid, vh);
	for (int j = 0; j < n; j++)
	{
		int32		seg = (int32) cf_store_segment(h[j], (uint32) s.nsegments);
		const cf_filter *c = pc->valid ? pc->segs[seg] : NULL;

		if (c == NULL && pc->valid && pc->raw == NULL &&
			++pc->reads > probe_read_all_after(pc->nsegments))
			probe_read_all(pc, &s);
		if (c == NULL && pc->valid && pc->raw != NULL && pc->raw[seg] != NULL)
			c = probe_open_raw(pc, vh, seg);
		if (c == NULL)
			c = probe_read_segment(pc, &s, vh, seg, h[j], &out[j]);
		if (c != NULL)
		{
			cfs[m] = c;
			hs[m] = h[j];
			if (where != NULL)
				where[m] = j;
			m++;
		}
	}
	SPI_finish();
	if (m > 0)
		cf_contains_each(cfs, hs, m, res);
	if (where != NULL)
	{
		for (int k = 0; k < m; k++)
			out[where[k]] = res[k];
		pfree(cfs);
		pfree(hs);
		pfree(where);
		pfree(res);
	}
}

/*
 * cuckoo_store_contains_array(store, values[]): one answer per element, NULL
 * for NULL; each segment read once.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_contains_array);
Datum
cuckoo_store_contains_array(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ValueHasher *vh = store_hasher(fcinfo, 1, true);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int			ndim = ARR_NDIM(arr);
	Store		s;
	StoreItem  *items;
	bool	   *nulls;
	Datum	   *out;
	int			n,
				ne;
	MemoryContext outer = CurrentMemoryContext;
	ArrayType  *result;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, vh, false, true);
	items = store_route_array(&s, vh, arr, &n, &ne, &nulls);
	out = palloc0(sizeof(Datum) * Max(ne, 1));
	for (int i = 0; i < n;)
	{
		int32		seg = items[i].segment;
		CuckooFilter *v;
		cf_filter	cf;

		CHECK_FOR_INTERRUPTS();
		v = store_read(&s, seg, false, false, true, false);
		if (v == NULL)
			store_missing_segment(&s, seg);
		filter_open(&cf, v);
		filter_check_kind(&cf, vh);
		for (; i < n && items[i].segment == seg; i++)
			out[items[i].index] = BoolGetDatum(cf_contains(&cf, items[i].h));
		SPI_freetuptable(SPI_tuptable);
	}
	{
		MemoryContext old = MemoryContextSwitchTo(outer);

		if (ndim == 0)
			result = construct_empty_array(BOOLOID);
		else
			result = construct_md_array(out, nulls, ndim, ARR_DIMS(arr),
										ARR_LBOUND(arr), BOOLOID, 1, true,
										TYPALIGN_CHAR);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	PG_RETURN_ARRAYTYPE_P(result);
}

/* ------------------------------------------------------------------------
 * Creation and info
 * ------------------------------------------------------------------------
 */

/*
 * The parameters of a new growing segment for n items at rate fpr.  Segments
 * keep the shape without the address budget (tail CF_V2_TAIL_BITS, FORMAT
 * 13.12): they are never unioned, a key's segment is fixed by its hash, so
 * the budget's bits would buy nothing and double a small segment's bytes.
 */
static void
store_segment_params(int64 n, double fpr, cf_params *p)
{
	plan_params(n, fpr, 4, 0, false, 500, false, p);
	plan_expansion(2, n, fpr, 4, false, false, 500, p);
	p->budget = false;
	p->tail_bits = CF_V2_TAIL_BITS;
}

/*
 * The largest capacity whose empty growing segment takes at most
 * STORE_SEGMENT_BYTES (at least 1).
 */
static int64
store_segment_capacity(double fpr)
{
	int64		lo = 1,
				hi = 1 << 20;

	while (lo < hi)
	{
		int64		mid = (lo + hi + 1) / 2;
		cf_params	p;

		store_segment_params(mid, fpr, &p);
		if (cf_init_bytes(&p) <= STORE_SEGMENT_BYTES)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void
store_exec(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "\"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

/*
 * cuckoo_store_create(name, capacity, fpr): a new store, a table of
 * ceil(capacity / n) empty growing segments (n from the segment size),
 * owned by the caller, in the schema the name gives or the current one.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_create);
Datum
cuckoo_store_create(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	int64		capacity = PG_GETARG_INT64(1);
	double		fpr = PG_GETARG_FLOAT8(2);
	StoreCallCache *cc = store_call_cache(fcinfo);
	RangeVar   *rv;
	Oid			nsp;
	char	   *qualname;
	char	   *typname;
	int64		per,
				nseg;
	cf_params	p;
	CuckooFilter *empty;
	Oid			relid;
	Oid			types[5];
	Datum		values[5];

	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	plan_check_fpr(fpr);
	per = store_segment_capacity(fpr);
	nseg = (capacity + per - 1) / per;
	if (nseg > STORE_MAX_SEGMENTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("capacity " INT64_FORMAT " needs more than %d segments",
						capacity, PG_INT32_MAX)));
	store_segment_params((capacity + nseg - 1) / nseg, fpr, &p);
	empty = filter_new(&p);

	rv = makeRangeVarFromNameList(textToQualifiedNameList(name));
	nsp = RangeVarGetCreationNamespace(rv);
	qualname = quote_qualified_identifier(get_namespace_name(nsp), rv->relname);
	typname = quote_qualified_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)),
										 "cuckoofilter");

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_exec(psprintf("CREATE TABLE %s (segment pg_catalog.int4 PRIMARY KEY, "
						"f %s NOT NULL, fpr pg_catalog.float8, "
						"capacity pg_catalog.int8, segments pg_catalog.int4) "
						"WITH (fillfactor = 75, toast_tuple_target = 8160)", qualname, typname),
			   0, NULL, NULL, SPI_OK_UTILITY);
	store_exec(psprintf("ALTER TABLE %s ALTER COLUMN f SET STORAGE EXTERNAL", qualname),
			   0, NULL, NULL, SPI_OK_UTILITY);
	types[0] = INT4OID;
	types[1] = cc->filter_type;
	types[2] = FLOAT8OID;
	types[3] = INT8OID;
	types[4] = INT4OID;
	values[0] = Int32GetDatum(STORE_HEADER);
	values[1] = PointerGetDatum(empty);
	values[2] = Float8GetDatum(fpr);
	values[3] = Int64GetDatum(capacity);
	values[4] = Int32GetDatum((int32) nseg);
	store_exec(psprintf("INSERT INTO %s (segment, f, fpr, capacity, segments) "
						"VALUES ($1, $2, $3, $4, $5)", qualname),
			   5, types, values, SPI_OK_INSERT);
	values[0] = Int32GetDatum((int32) (nseg - 1));
	store_exec(psprintf("INSERT INTO %s (segment, f) "
						"SELECT g, $2 FROM pg_catalog.generate_series(0, $1) g",
						qualname),
			   2, types, values, SPI_OK_INSERT);
	SPI_finish();
	relid = get_relname_relid(rv->relname, nsp);
	if (!OidIsValid(relid))
		elog(ERROR, "new cuckoo store %s not found", qualname);
	PG_RETURN_OID(relid);
}

/*
 * The columns cuckoo_store_info can return: 1.3 declares the first seven,
 * 1.4 adds trackings.  The tuple is built from the call's result tupdesc,
 * column by name, so that the library serves both definitions (a database
 * still at 1.3 after the library was upgraded).
 */
typedef enum StoreInfoCol
{
	SI_ITEMS,
	SI_BYTES,
	SI_SEGMENTS,
	SI_FPR,
	SI_VALUE_TYPE,
	SI_CAPACITY,
	SI_EXPECTED_FPR,
	SI_TRACKINGS,
	SI_NCOLS
} StoreInfoCol;

static const struct
{
	const char *name;
	Oid			type;
}			store_info_cols[SI_NCOLS] = {
	{"items", INT8OID},
	{"bytes", INT8OID},
	{"segments", INT4OID},
	{"fpr", FLOAT8OID},
	{"value_type", TEXTOID},
	{"capacity", INT8OID},
	{"expected_fpr", FLOAT8OID},
	{"trackings", TEXTARRAYOID},
};

/*
 * The trackings of store relid (rows of the extension's table
 * cuckoo_store_tracking; a partitioned table is its root's one row), as a
 * text[] of schema.table.column, each part quoted as needed (format's %I,
 * so parse_ident splits it back), sorted; (Datum) 0 if none.  Called
 * inside SPI; the array is copied out to the caller's context.
 */
static Datum
store_info_trackings(FunctionCallInfo fcinfo, Oid relid)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			tt = get_relname_relid("cuckoo_store_tracking", nsp);
	Oid			type = OIDOID;
	Datum		arg = ObjectIdGetDatum(relid);
	bool		isnull;
	Datum		d;
	int			rc;

	if (!OidIsValid(tt))
		elog(ERROR, "table cuckoo_store_tracking not found in the schema of function %u",
			 fcinfo->flinfo->fn_oid);
	rc = SPI_execute_with_args(
		psprintf("SELECT pg_catalog.array_agg(pg_catalog.format('%%I.%%I.%%I', n.nspname, c.relname, t.col) "
				 "ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\", t.col COLLATE \"C\") "
				 "FROM %s t "
				 "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid "
				 "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
				 "WHERE t.store::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
				 quote_qualified_identifier(get_namespace_name(nsp), get_rel_name(tt))),
		1, &type, &arg, NULL, true, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading cuckoo_store_tracking failed: %s", SPI_result_code_string(rc));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return (Datum) 0;
	return SPI_datumTransfer(d, false, -1);
}

/*
 * cuckoo_store_info(store): items, bytes, segments, fpr (the target),
 * value_type, capacity, expected_fpr and (1.4) trackings.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_info);
Datum
cuckoo_store_info(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	TupleDesc	tupdesc;
	Store		s;
	Portal		portal;
	Datum		arg = Int32GetDatum(0);
	int64		items = 0,
				bytes = 0,
				rows = 0;
	double		fpr_sum = 0;
	const char *kind;
	int			colmap[SI_NCOLS];
	Datum		all[SI_NCOLS];
	Datum	   *values;
	bool	   *nulls;
	HeapTuple	result;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	for (int c = 0; c < SI_NCOLS; c++)
		colmap[c] = -1;
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		int			c;

		for (c = 0; c < SI_NCOLS; c++)
			if (strcmp(NameStr(att->attname), store_info_cols[c].name) == 0)
				break;
		if (c == SI_NCOLS || att->atttypid != store_info_cols[c].type || colmap[c] >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cuckoo_store_info cannot return column \"%s\" of type %s",
							NameStr(att->attname), format_type_be(att->atttypid)),
					 errhint("Update the extension: ALTER EXTENSION cuckoo UPDATE.")));
		colmap[c] = i;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, NULL, false, true);
	kind = cf_kind_name(cf_kind_of(&s.hcf));
	portal = SPI_cursor_open(NULL, s.entry->plans[PLAN_ALL], &arg, NULL, true);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
										  2, &isnull);
			CuckooFilter *v;
			cf_filter	cf;
			cf_info		info;

			CHECK_FOR_INTERRUPTS();
			if (isnull)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("a segment of cuckoo store \"%s\" is NULL", s.name)));
			bytes += (int64) toast_datum_size(d);
			/* with this transaction's changes not applied yet */
			v = store_overlay(&s, DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i],
															  SPI_tuptable->tupdesc,
															  1, &isnull)),
							  DatumGetCuckooFilterP(d));
			filter_open(&cf, v);
			cf_get_info(&cf, &info);
			items += (int64) cf_items(&cf);
			fpr_sum += filter_expected_fpr(&cf, &info) * (double) cf_items(&cf);
			rows++;
			if ((Pointer) v != DatumGetPointer(d))
				pfree(v);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	if (rows != s.nsegments)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo store \"%s\" has " INT64_FORMAT " segment rows, not %d",
						s.name, rows, s.nsegments)));
	all[SI_TRACKINGS] = colmap[SI_TRACKINGS] >= 0 ? store_info_trackings(fcinfo, relid) : (Datum) 0;
	SPI_finish();
	if (colmap[SI_TRACKINGS] >= 0 && all[SI_TRACKINGS] == (Datum) 0)
		all[SI_TRACKINGS] = PointerGetDatum(construct_empty_array(TEXTOID));	/* none */
	all[SI_ITEMS] = Int64GetDatum(items);
	all[SI_BYTES] = Int64GetDatum(bytes);
	all[SI_SEGMENTS] = Int32GetDatum(s.nsegments);
	all[SI_FPR] = Float8GetDatum(s.fpr);
	all[SI_VALUE_TYPE] = CStringGetTextDatum(kind);
	all[SI_CAPACITY] = Int64GetDatum(s.capacity);
	all[SI_EXPECTED_FPR] = Float8GetDatum(items > 0 ? fpr_sum / (double) items : 0.0);
	values = palloc(sizeof(Datum) * Max(tupdesc->natts, 1));
	nulls = palloc0(sizeof(bool) * Max(tupdesc->natts, 1));
	for (int c = 0; c < SI_NCOLS; c++)
		if (colmap[c] >= 0)
			values[colmap[c]] = all[c];
	result = heap_form_tuple(tupdesc, values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(result));
}

/* ------------------------------------------------------------------------
 * The entry point for other files (cuckoo_store.h)
 * ------------------------------------------------------------------------
 */

static int64 store_apply(FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
						 const StoreChange *changes, int64 n, bool saturate);

int64
cuckoo_store_apply(FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
				   const StoreChange *changes, int64 n, bool saturate, bool latest)
{
	int64		changed;

	if (!latest)
		return store_apply(fcinfo, relid, vh, changes, n, saturate);
	store_latest = true;
	PG_TRY();
	{
		changed = store_apply(fcinfo, relid, vh, changes, n, saturate);
	}
	PG_FINALLY();
	{
		store_latest = false;
	}
	PG_END_TRY();
	return changed;
}

static int64
store_apply(FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
			const StoreChange *changes, int64 n, bool saturate)
{
	Store		s;
	StoreItem  *items;
	int64		changed = 0;
	int			k = 0,
				nremove = 0;

	if (n > PG_INT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many changes for cuckoo store in one call: " INT64_FORMAT, n)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, vh, true, false);
	items = palloc_extended(sizeof(StoreItem) * (Size) Max(n, 1), MCXT_ALLOC_HUGE);
	/* removes first, then adds: the sort keeps that order within a segment */
	for (int pass = 0; pass < 2; pass++)
		for (int64 i = 0; i < n; i++)
			if (changes[i].remove == (pass == 0))
			{
				items[k].segment = (int32) cf_store_segment(changes[i].h,
															(uint32) s.nsegments);
				items[k].index = k;
				items[k].h = changes[i].h;
				k++;
				if (pass == 0)
					nremove++;
			}
	store_sort_items(&items, k, s.nsegments);
	for (int i = 0; i < k;)
	{
		int32		seg = items[i].segment;
		CuckooFilter *v;
		cf_filter	cf;
		bool		dirty = false;
		cf_params	p;

		CHECK_FOR_INTERRUPTS();
		v = store_read(&s, seg, true, true, false, false);
		if (v == NULL)
			store_missing_segment(&s, seg);
		filter_open(&cf, v);
		filter_check_kind(&cf, vh);
		cf_get_params(&cf, &p);
		for (; i < k && items[i].segment == seg; i++)
		{
			bool		remove = items[i].index < nremove;

			if (saturate && cf_count(&cf, items[i].h) >= p.bucket_size)
				continue;
			if (segment_apply(&cf, vh, remove ? OP_REMOVE : OP_ADD, items[i].h))
			{
				dirty = true;
				changed++;
			}
		}
		if (dirty)
			store_write(&s, seg, &cf);
		pfree(cf.buf - VARHDRSZ);
	}
	SPI_finish();
	return changed;
}
