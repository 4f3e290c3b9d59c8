/*
 * cuckoo_store_segment.c
 *     Stored filters (extension 1.3): one logical filter kept as a table of
 *     small segments, one row each, so that adding, removing or probing a
 *     value reads (and for a change writes) one segment row.  This file is
 *     the store's access to its rows: the call-site cache, the relation's
 *     shape, the statements (prepared per backend and store), reading,
 *     locking and writing a segment, opening a store, one change of one
 *     segment, the overlay of a transaction's pending changes
 *     (store_pending_hook) and the routing of an array's hashes.  The SQL
 *     functions are in cuckoo_store_change.c, cuckoo_store_probe.c and
 *     cuckoo_store_create.c, above it.
 *
 * The design is in docs/DESIGN.md ("Stored filters"), the routing in
 * docs/FORMAT.md section 14.  Every function is SECURITY INVOKER and reaches
 * the store only through SQL run as the caller (SPI), so a call needs the
 * privileges the same statements in plain SQL would need (the one
 * exception: the living filters' commit, cuckoo_store_apply_direct in
 * cuckoo_store_change.c, which checks the tracking role's rights itself
 * and changes a plain store through the heap).  The statements
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
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
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
#include "cuckoo_store_int.h"

static HTAB *store_plans = NULL;

/* ------------------------------------------------------------------------
 * Call-site cache, types, the relation's shape
 * ------------------------------------------------------------------------
 */

StoreCallCache *
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
ValueHasher *
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

/*
 * A store with inheritance children is refused (DESIGN.md, "Living
 * filters"): its statements read FROM the store, so they would read and
 * change the children's rows as segments, while the commit's heap path and
 * the flat lookup see the store's own rows only.  relhassubclass may stay
 * set after the last child is gone: the children are looked up then.
 */
void
store_check_no_children(Oid relid)
{
	if (has_subclass(relid) && find_inheritance_children(relid, NoLock) != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo store \"%s\" has inheritance children", get_rel_name(relid)),
				 errdetail("A store's segments are its own rows: a child table's rows would be read as segments."),
				 errhint("Drop the children, or detach them with ALTER TABLE ... NO INHERIT.")));
}

static bool
store_has_column(Oid relid, const char *name, Oid type)
{
	AttrNumber	att = get_attnum(relid, name);

	return att != InvalidAttrNumber && get_atttype(relid, att) == type;
}

/*
 * Checks that relid is a table with a store's columns; returns whether it
 * has the layout of extension 1.6 (segment, chunk, bytes, fpr, capacity,
 * segments: a segment as chunk rows) rather than that of 1.3 to 1.5
 * (segment, f, fpr, capacity, segments: a segment as one value), which this
 * library still reads and changes until ALTER EXTENSION cuckoo UPDATE
 * converts it (cuckoo--1.5--1.6.sql).  Columns are found by name: an
 * updated store keeps the dropped f among its attributes.
 */
bool
store_check_shape(Oid relid, Oid filter_type)
{
	char		relkind = get_rel_relkind(relid);
	bool		chunked;

	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (relkind != RELKIND_RELATION)
		store_not_a_store(relid, "It is not an ordinary table.");
	store_check_no_children(relid);
	chunked = get_attnum(relid, "chunk") != InvalidAttrNumber ||
		get_attnum(relid, "bytes") != InvalidAttrNumber;
	if (!store_has_column(relid, "segment", INT4OID) ||
		!store_has_column(relid, "fpr", FLOAT8OID) ||
		!store_has_column(relid, "capacity", INT8OID) ||
		!store_has_column(relid, "segments", INT4OID) ||
		(chunked ? (!store_has_column(relid, "chunk", INT4OID) ||
					!store_has_column(relid, "bytes", BYTEAOID) ||
					get_attnum(relid, "f") != InvalidAttrNumber) :
		 !store_has_column(relid, "f", filter_type)))
		store_not_a_store(relid, "A store has the columns segment int4, chunk int4, bytes bytea, fpr float8, capacity int8 and segments int4.");
	return chunked;
}

void
cuckoo_store_check_shape(FunctionCallInfo fcinfo, Oid relid)
{
	(void) store_check_shape(relid, store_call_cache(fcinfo)->filter_type);
}

/* ------------------------------------------------------------------------
 * Chunks: a segment put together from its rows
 * ------------------------------------------------------------------------
 */

void
store_asm_start(StoreAsm *a, const char *name, int32 segment, MemoryContext cxt)
{
	a->name = name;
	a->segment = segment;
	a->next = 0;
	a->last = STORE_CHUNK_BYTES;
	a->cxt = cxt;
	a->len = 0;
	a->cap = 0;
	a->buf = NULL;
}

void
store_chunks_damaged(const char *name, int32 segment, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("segment %d of cuckoo store \"%s\" has damaged chunk rows",
					segment, name),
			 errdetail_internal("%s", detail),
			 errhint("A segment is the rows chunk = 0, 1, 2 ... of its segment number, every chunk but the last %d bytes, the last 1 to %d (docs/FORMAT.md, section 14).",
					 STORE_CHUNK_BYTES, STORE_CHUNK_BYTES)));
	pg_unreachable();
}

static void
store_asm_damaged(StoreAsm *a, const char *detail)
{
	store_chunks_damaged(a->name, a->segment, detail);
}

/* Adds the next chunk row (chunk, bytes), in chunk order. */
void
store_asm_add(StoreAsm *a, int32 chunk, bool chunk_null, Datum bytes, bool bytes_null)
{
	bytea	   *b;
	Size		n;

	if (chunk_null || bytes_null)
		store_asm_damaged(a, psprintf("A chunk row has a NULL %s.", chunk_null ? "chunk" : "bytes"));
	if (chunk != a->next)
		store_asm_damaged(a, chunk < a->next ?
						  psprintf("Chunk %d is there more than once.", chunk) :
						  psprintf("Chunk %d is missing (the next is chunk %d).", a->next, chunk));
	if (a->last != STORE_CHUNK_BYTES)
		store_asm_damaged(a, psprintf("Chunk %d has %zu bytes, not %d, and is not the last.",
									  chunk - 1, a->last, STORE_CHUNK_BYTES));
	b = DatumGetByteaPP(bytes);
	n = VARSIZE_ANY_EXHDR(b);
	if (n == 0 || n > STORE_CHUNK_BYTES)
		store_asm_damaged(a, psprintf("Chunk %d has %zu bytes (1 to %d).", chunk, n,
									  STORE_CHUNK_BYTES));
	if (a->buf == NULL || VARHDRSZ + a->len + n > a->cap)
	{
		Size		want = Max(VARHDRSZ + a->len + n, a->cap * 2);

		want = Max(want, VARHDRSZ + STORE_CHUNK_BYTES);
		if (want > MaxAllocSize)
			store_asm_damaged(a, "It has more bytes than a filter can.");
		if (a->buf == NULL)
			a->buf = MemoryContextAlloc(a->cxt, want);
		else
			a->buf = repalloc(a->buf, want);
		a->cap = want;
	}
	memcpy(a->buf + VARHDRSZ + a->len, VARDATA_ANY(b), n);
	a->len += n;
	a->last = n;
	a->next++;
	if ((Pointer) b != DatumGetPointer(bytes))
		pfree(b);
}

/*
 * The segment put together (a varlena in a->cxt, not validated yet: the
 * caller opens it), or NULL when no chunk row was added.
 */
CuckooFilter *
store_asm_finish(StoreAsm *a)
{
	CuckooFilter *v;

	if (a->next == 0)
		return NULL;
	v = (CuckooFilter *) a->buf;
	SET_VARSIZE(v, VARHDRSZ + a->len);
	a->buf = NULL;
	return v;
}

/* Keeps a copy of segment v as it was read FOR UPDATE, for store_write. */
void
store_hold(Store *s, int32 segment, const CuckooFilter *v)
{
	if (s->held != NULL)
		pfree(s->held);
	s->held = palloc(Max(CUCKOO_BYTES_LEN(v), 1));
	memcpy(s->held, v->bytes, CUCKOO_BYTES_LEN(v));
	s->held_len = CUCKOO_BYTES_LEN(v);
	s->held_seg = segment;
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
store_prepare_opts(const char *sql, int nargs, Oid *argtypes, int cursor_options)
{
	SPIPlanPtr	plan = SPI_prepare_cursor(sql, nargs, argtypes, cursor_options);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	return plan;
}

static SPIPlanPtr
store_prepare(const char *sql, int nargs, Oid *argtypes)
{
	return store_prepare_opts(sql, nargs, argtypes, 0);
}

/*
 * The store's plans (inside an SPI connection).  Made on first use in this
 * backend, and again when the table has been renamed since: the statements
 * name it, and a kept plan is re-analysed from its text after DDL.
 */
StoreEntry *
store_entry(Oid relid, Oid filter_type, bool chunked)
{
	StoreEntry *e;
	bool		found;
	char	   *qualname = store_qualname(relid);
	Oid			types[3];

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
	if (found && e->qualname != NULL && strcmp(e->qualname, qualname) == 0 &&
		e->chunked == chunked)
		return e;
	if (found && e->qualname != NULL)
	{
		for (int i = 0; i < NUM_PLANS; i++)
			if (e->plans[i] != NULL)
				SPI_freeplan(e->plans[i]);
		pfree(e->qualname);
	}
	e->qualname = NULL;
	e->chunks_seen = 0;
	memset(e->plans, 0, sizeof(e->plans));

	types[0] = INT4OID;
	if (chunked)
	{
		types[1] = INT4OID;
		types[2] = BYTEAOID;
		e->plans[PLAN_READ] = store_prepare(
			psprintf("SELECT chunk, bytes, fpr, capacity, segments FROM %s "
					 "WHERE segment OPERATOR(pg_catalog.=) $1 "
					 "ORDER BY chunk USING OPERATOR(pg_catalog.<)", qualname),
			1, types);
		e->plans[PLAN_LOCK] = store_prepare(
			psprintf("SELECT chunk, bytes, fpr, capacity, segments FROM %s "
					 "WHERE segment OPERATOR(pg_catalog.=) $1 "
					 "AND chunk OPERATOR(pg_catalog.=) 0 FOR UPDATE", qualname),
			1, types);
		e->plans[PLAN_WRITE] = store_prepare(
			psprintf("UPDATE %s SET bytes = $3 "
					 "WHERE segment OPERATOR(pg_catalog.=) $1 "
					 "AND chunk OPERATOR(pg_catalog.=) $2", qualname),
			3, types);
		e->plans[PLAN_INSERT] = store_prepare(
			psprintf("INSERT INTO %s (segment, chunk, bytes) VALUES ($1, $2, $3)", qualname),
			3, types);
		e->plans[PLAN_DELETE] = store_prepare(
			psprintf("DELETE FROM %s WHERE segment OPERATOR(pg_catalog.=) $1 "
					 "AND chunk OPERATOR(pg_catalog.>=) $2", qualname),
			2, types);
		/*
		 * In key order: through the primary key, not a sort of the whole
		 * store (a fast-start plan; a sort would spill to disk past
		 * work_mem).  The rows come in physical order for a store whose
		 * chunks were written in order, as most are.
		 */
		e->plans[PLAN_SLICE_HEAD] = store_prepare(
			psprintf("(SELECT chunk, bytes FROM %s "
					 "WHERE segment OPERATOR(pg_catalog.=) $1 "
					 "AND chunk OPERATOR(pg_catalog.<) %d) "
					 "UNION ALL "
					 "(SELECT chunk, bytes FROM %s "
					 "WHERE segment OPERATOR(pg_catalog.=) $1 "
					 "AND chunk OPERATOR(pg_catalog.>=) %d "
					 "ORDER BY chunk USING OPERATOR(pg_catalog.>) LIMIT 1) "
					 "ORDER BY 1 USING OPERATOR(pg_catalog.<)",
					 qualname, STORE_SLICE_MIN_CHUNKS, qualname, STORE_SLICE_MIN_CHUNKS),
			1, types);
		types[1] = INT4ARRAYOID;
		e->plans[PLAN_SLICE_CHUNKS] = store_prepare(
			psprintf("SELECT chunk, bytes FROM %s "
					 "WHERE segment OPERATOR(pg_catalog.=) $1 "
					 "AND chunk OPERATOR(pg_catalog.=) ANY ($2) "
					 "ORDER BY chunk USING OPERATOR(pg_catalog.<)", qualname),
			2, types);
		types[1] = INT4OID;
		e->plans[PLAN_ALL] = store_prepare_opts(
			psprintf("SELECT segment, chunk, bytes FROM %s "
					 "WHERE segment OPERATOR(pg_catalog.>=) $1 "
					 "ORDER BY segment USING OPERATOR(pg_catalog.<), "
					 "chunk USING OPERATOR(pg_catalog.<)", qualname),
			1, types, CURSOR_OPT_FAST_PLAN);
	}
	else
	{
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
	}
	e->chunked = chunked;
	e->qualname = MemoryContextStrdup(TopMemoryContext, qualname);
	return e;
}

/*
 * Set while cuckoo_store_apply(..., latest) runs: the store's rows are then
 * read and written under the newest snapshot (committed changes of other
 * transactions included, whatever the isolation level), not the
 * transaction's.
 */
bool store_latest = false;

static int
store_exec_plan(SPIPlanPtr plan, Datum *args, bool read_only, long tcount)
{
	if (store_latest)
		return SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(),
									InvalidSnapshot, read_only, true, tcount);
	return SPI_execute_plan(plan, args, NULL, read_only, tcount);
}


/*
 * The header row's fpr, capacity and segments (isnull[i] for each) into s,
 * or 22023 if one is NULL or segments < 1.
 */
void
store_set_header_cols(Store *s, Datum fpr, Datum cap, Datum nseg, const bool *isnull)
{
	if (isnull[0] || isnull[1] || isnull[2] || DatumGetInt32(nseg) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo store \"%s\" has a damaged header row", s->name),
				 errdetail("The row segment = -1 must have fpr, capacity and segments set, segments >= 1.")));
	s->fpr = DatumGetFloat8(fpr);
	s->capacity = DatumGetInt64(cap);
	s->nsegments = DatumGetInt32(nseg);
}

static void
store_read_header_cols(Store *s, HeapTuple tup, TupleDesc td, int first)
{
	bool		isnull[3];
	Datum		fpr = SPI_getbinval(tup, td, first, &isnull[0]);
	Datum		cap = SPI_getbinval(tup, td, first + 1, &isnull[1]);
	Datum		nseg = SPI_getbinval(tup, td, first + 2, &isnull[2]);

	store_set_header_cols(s, fpr, cap, nseg, isnull);
}

/*
 * The chunk rows of `segment` (1.6 layout), read and put together: NULL
 * when there are none.  With header, the header's columns from chunk 0.
 * Locking takes chunk 0 FOR UPDATE first (the segment's lock), then reads
 * the chunks with a statement of its own: under READ COMMITTED its new
 * snapshot sees the chunks the transaction that held the lock wrote.
 */
static CuckooFilter *
store_read_chunks(Store *s, int32 segment, bool lock, bool read_only, bool header)
{
	Datum		arg = Int32GetDatum(segment);
	int			rc;
	StoreAsm	a;
	TupleDesc	td;

	if (lock)
	{
		rc = store_exec_plan(s->entry->plans[PLAN_LOCK], &arg, false, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "locking segment %d of cuckoo store \"%s\" failed: %s", segment,
				 s->name, SPI_result_code_string(rc));
		if (SPI_processed == 0)
			return NULL;
		if (SPI_processed > 1)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("segment %d of cuckoo store \"%s\" has damaged chunk rows",
							segment, s->name),
					 errdetail("Chunk 0 is there more than once."),
					 errhint("A store's table keeps its primary key on (segment, chunk).")));
		else
		{
			/*
			 * A chunk 0 shorter than a chunk is the last: the segment is that
			 * row (the one a segment at its created size has), locked in its
			 * newest version; no second statement.
			 */
			bool		n2;
			Datum		b = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &n2);

			if (!n2 && toast_raw_datum_size(b) - VARHDRSZ < STORE_CHUNK_BYTES)
			{
				td = SPI_tuptable->tupdesc;
				if (header)
					store_read_header_cols(s, SPI_tuptable->vals[0], td, 3);
				store_asm_start(&a, s->name, segment, CurrentMemoryContext);
				store_asm_add(&a, 0, false, b, false);
				SPI_freetuptable(SPI_tuptable);
				if (segment >= 0)
					s->entry->chunks_seen = 1;
				return store_asm_finish(&a);
			}
		}
		SPI_freetuptable(SPI_tuptable);
	}
	rc = store_exec_plan(s->entry->plans[PLAN_READ], &arg, read_only && !lock, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading cuckoo store \"%s\" failed: %s", s->name,
			 SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return NULL;
	td = SPI_tuptable->tupdesc;
	if (header)
		store_read_header_cols(s, SPI_tuptable->vals[0], td, 3);
	store_asm_start(&a, s->name, segment, CurrentMemoryContext);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		n1,
					n2;
		Datum		c = SPI_getbinval(SPI_tuptable->vals[i], td, 1, &n1);
		Datum		b = SPI_getbinval(SPI_tuptable->vals[i], td, 2, &n2);

		store_asm_add(&a, n1 ? 0 : DatumGetInt32(c), n1, b, n2);
	}
	SPI_freetuptable(SPI_tuptable);
	if (segment >= 0)
		s->entry->chunks_seen = a.next;
	return store_asm_finish(&a);
}

/*
 * Reads segment `segment` (locking it when lock): its filter, detoasted (a
 * copy when copy; chunk rows are always put together in a copy), or NULL
 * when there is no such row.  With header, the other columns too.  The
 * result lives in the SPI procedure's context.  A segment read to be
 * changed (lock) is also held for store_write.
 */
CuckooFilter *
store_read(Store *s, int32 segment, bool lock, bool copy, bool read_only,
		   bool header)
{
	Datum		arg = Int32GetDatum(segment);
	int			rc;
	HeapTuple	tup;
	TupleDesc	td;
	Datum		d;
	bool		isnull;

	if (s->chunked)
	{
		CuckooFilter *v = store_read_chunks(s, segment, lock, read_only, header);

		if (v == NULL)
			return NULL;
		if (lock)
			store_hold(s, segment, v);
		return lock || segment < 0 ? v : store_overlay(s, segment, v);
	}
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
		store_read_header_cols(s, tup, td, 2);
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
store_exec_chunk(Store *s, StorePlan plan, int32 segment, int32 chunk, const char *p, Size n,
				 int expect)
{
	Datum		args[3];
	bytea	   *b = NULL;
	int			rc;

	args[0] = Int32GetDatum(segment);
	args[1] = Int32GetDatum(chunk);
	if (p != NULL)
	{
		b = palloc(VARHDRSZ + n);
		SET_VARSIZE(b, VARHDRSZ + n);
		memcpy(VARDATA(b), p, n);
		args[2] = PointerGetDatum(b);
	}
	rc = store_exec_plan(s->entry->plans[plan], args, false, 0);
	if (rc != expect || (plan != PLAN_DELETE && SPI_processed != 1))
		elog(ERROR, "writing chunk %d of segment %d of cuckoo store \"%s\" failed: %s",
			 chunk, segment, s->name, SPI_result_code_string(rc));
	if (b != NULL)
		pfree(b);
}

/*
 * The chunks of a segment that changed from old (olen bytes) to new (nlen):
 * calls write(c, bytes, n, insert) for every chunk c of new whose bytes
 * differ (insert: a chunk old did not have), then, when new has fewer
 * chunks, drop(first chunk to remove).  Shared by the SQL path and the
 * heap path (cuckoo_store_change.c).
 */
void
store_chunk_diff(const char *old, Size olen, const char *new, Size nlen,
				 void (*write) (void *arg, int32 chunk, const char *p, Size n, bool insert),
				 void (*drop) (void *arg, int32 from), void *arg)
{
	int32		nold = STORE_CHUNKS(olen);
	int32		nnew = STORE_CHUNKS(nlen);

	for (int32 c = 0; c < nnew; c++)
	{
		Size		off = (Size) c * STORE_CHUNK_BYTES;
		Size		n = Min((Size) STORE_CHUNK_BYTES, nlen - off);

		if (c < nold)
		{
			Size		on = Min((Size) STORE_CHUNK_BYTES, olen - off);

			if (on == n && memcmp(old + off, new + off, n) == 0)
				continue;
		}
		write(arg, c, new + off, n, c >= nold);
	}
	if (nnew < nold)
		drop(arg, nnew);
}

/*
 * A segment that grows (or shrinks) gains (loses) chunk rows.  Changing a
 * store needs SELECT and UPDATE on it, as for any table's rows, not INSERT
 * or DELETE: the chunk rows are the segment's bytes, not rows of their own
 * (DESIGN.md, "Chunk rows").  So a caller who may UPDATE the store (checked
 * here; its chunk 0 was locked FOR UPDATE as the caller, and is updated as
 * the caller too) has the rows inserted and deleted as the store's owner,
 * in a security-restricted operation, by these fixed statements.
 */
static void
store_exec_chunk_as_owner(Store *s, StorePlan plan, int32 chunk, const char *p, Size n,
						  int expect)
{
	Oid			save_user;
	int			save_sec;
	Oid			owner;
	HeapTuple	tup;

	/* UPDATE of the table, or of its column bytes, as the chunks' UPDATE needs */
	if (pg_class_aclcheck(s->relid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK &&
		pg_attribute_aclcheck(s->relid, get_attnum(s->relid, "bytes"), GetUserId(),
							  ACL_UPDATE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, s->name);
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(s->relid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", s->relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	PG_TRY();
	{
		store_exec_chunk(s, plan, s->held_seg, chunk, p, n, expect);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_user, save_sec);
	}
	PG_END_TRY();
}

static void
store_write_chunk(void *arg, int32 chunk, const char *p, Size n, bool insert)
{
	Store	   *s = arg;

	if (insert)
		store_exec_chunk_as_owner(s, PLAN_INSERT, chunk, p, n, SPI_OK_INSERT);
	else
		store_exec_chunk(s, PLAN_WRITE, s->held_seg, chunk, p, n, SPI_OK_UPDATE);
}

static void
store_drop_chunks(void *arg, int32 from)
{
	store_exec_chunk_as_owner((Store *) arg, PLAN_DELETE, from, NULL, 0, SPI_OK_DELETE);
}

void
store_write(Store *s, int32 segment, cf_filter *cf)
{
	Datum		args[2];
	CuckooFilter *v = (CuckooFilter *) (cf->buf - VARHDRSZ);
	int			rc;

	/* the filter may have grown and moved: cf->buf and cf->len are current */
	SET_VARSIZE(v, VARHDRSZ + cf->len);
	AssertCheckFilter(cf, "store_write");
	if (s->chunked)
	{
		/* only the chunks whose bytes changed since the locked read */
		if (s->held == NULL || s->held_seg != segment)
			elog(ERROR, "segment %d of cuckoo store \"%s\" written without being read FOR UPDATE",
				 segment, s->name);
		store_chunk_diff(s->held, s->held_len, (const char *) cf->buf, cf->len,
						 store_write_chunk, store_drop_chunks, s);
		/* what is stored now */
		store_hold(s, segment, v);
		return;
	}
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
void
store_open(Store *s, FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
		   bool change, bool read_only)
{
	StoreCallCache *cc = store_call_cache(fcinfo);

	memset(s, 0, sizeof(*s));
	s->chunked = store_check_shape(relid, cc->filter_type);
	s->relid = relid;
	s->name = get_rel_name(relid);
	s->entry = store_entry(relid, cc->filter_type, s->chunked);
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

void
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

/* Applies op to hash h in the open segment cf; true if it changed cf. */
bool
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

/* Installed by the living filters (cuckoo_store.h). */
store_pending_hook_type store_pending_hook = NULL;

/* store_pending_hook's answer, or none when no hook is installed. */
int64
store_pending(Oid relid, uint32 nsegments, int32 segment,
			  const StoreChange **changes, const ValueHasher **vh)
{
	if (store_pending_hook == NULL)
		return 0;
	return store_pending_hook(relid, nsegments, segment, changes, vh);
}

/*
 * Segment v of store s as this transaction will change it at commit: the
 * changes its tracked tables made, which cuckoo_track_pending.c keeps until
 * then (store_pending), applied to a copy as cuckoo_store_apply would
 * apply them (removes first, saturating).  v itself when there are none.
 */
CuckooFilter *
store_overlay(Store *s, int32 segment, CuckooFilter *v)
{
	const StoreChange *c;
	const ValueHasher *vh;
	int64		n = store_pending(s->relid, (uint32) s->nsegments, segment, &c, &vh);
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
		if (c[i].remove)
		{
			if (cf_kind_of(&cf) != CF_KIND_ANY)
				(void) cf_remove_saturating(&cf, c[i].h, p.bucket_size / 2);
			continue;
		}
		if (cf_count(&cf, c[i].h) >= p.bucket_size / 2)
			continue;
		(void) segment_apply(&cf, vh, OP_ADD, c[i].h);
	}
	copy = (CuckooFilter *) (cf.buf - VARHDRSZ);
	SET_VARSIZE(copy, VARHDRSZ + cf.len);
	return copy;
}

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
void
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
StoreItem *
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
