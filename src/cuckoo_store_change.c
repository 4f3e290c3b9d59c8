/*
 * cuckoo_store_change.c
 *     The changes of a stored filter: cuckoo_store_add, _add_if_absent,
 *     _remove and their _array forms, and cuckoo_store_apply, the list of
 *     hashes the living filters apply at commit (cuckoo_store.h), through
 *     SQL or, for a store as cuckoo_store_create makes it, through the heap
 *     (cuckoo_store_apply_direct).
 */
#include "cuckoo.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/tupdesc.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_index.h"
#include "catalog/pg_opfamily.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "access/detoast.h"	/* toast_datum_size (13 and later) */

#include "cf_store.h"
#include "cuckoo_store_int.h"

/*
 * Whether store relid tracks a table (a row of the extension's table
 * cuckoo_store_tracking, 1.4; none before).  Called inside SPI.
 */
static bool
store_tracked(FunctionCallInfo fcinfo, Oid relid)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			tt = get_relname_relid("cuckoo_store_tracking", nsp);
	Oid			type = OIDOID;
	Datum		arg = ObjectIdGetDatum(relid);
	int			rc;

	if (!OidIsValid(tt))
		return false;
	rc = SPI_execute_with_args(
		psprintf("SELECT 1 FROM %s t WHERE t.store::pg_catalog.oid OPERATOR(pg_catalog.=) $1 LIMIT 1",
				 quote_qualified_identifier(get_namespace_name(nsp), get_rel_name(tt))),
		1, &type, &arg, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading cuckoo_store_tracking failed: %s", SPI_result_code_string(rc));
	return SPI_processed > 0;
}

/*
 * op on hash h of the open segment cf; true if it changed cf.  A remove
 * from a tracked store saturates as the commit's removes do (DESIGN.md,
 * "Duplicates"): a value of two or more rows holds b / 2 copies, one of
 * them maybe this direct add's, and a plain remove of the direct add could
 * take one it relies on.
 */
static bool
store_change_one(cf_filter *cf, const ValueHasher *vh, StoreOp op, uint64 h, bool tracked)
{
	if (op == OP_REMOVE && tracked)
		return cf_kind_of(cf) != CF_KIND_ANY && cf_remove_saturating(cf, h, cf->b / 2) > 0;
	return segment_apply(cf, vh, op, h);
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
	bool		tracked;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* (before store_open, whose results stay in use) */
	tracked = op == OP_REMOVE && store_tracked(fcinfo, relid);
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
		if (store_change_one(&cf, vh, op, h, tracked))
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
				if (store_change_one(&cf, vh, op, items[i].h, tracked))
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

/* The routed, sorted items of changes (removes first): *nremove of them removes. */
static StoreItem *
store_apply_items(const StoreChange *changes, int64 n, int32 nsegments, int *k_out,
				  int *nremove_out)
{
	StoreItem  *items = palloc_extended(sizeof(StoreItem) * (Size) Max(n, 1), MCXT_ALLOC_HUGE);
	int			k = 0,
				nremove = 0;

	/* removes first, then adds: the sort keeps that order within a segment */
	for (int pass = 0; pass < 2; pass++)
		for (int64 i = 0; i < n; i++)
			if (changes[i].remove == (pass == 0))
			{
				items[k].segment = (int32) cf_store_segment(changes[i].h, (uint32) nsegments);
				items[k].index = k;
				items[k].h = changes[i].h;
				k++;
				if (pass == 0)
					nremove++;
			}
	store_sort_items(&items, k, nsegments);
	*k_out = k;
	*nremove_out = nremove;
	return items;
}

/*
 * Applies the items of one segment (from *i, those of items[*i].segment) to
 * the open segment cf; true if one changed it.
 */
static bool
store_apply_segment(cf_filter *cf, const ValueHasher *vh, const StoreItem *items, int k,
					int *i, int nremove, bool saturate, int64 *changed)
{
	int32		seg = items[*i].segment;
	bool		dirty = false;
	cf_params	p;

	filter_check_kind(cf, vh);
	cf_get_params(cf, &p);
	for (; *i < k && items[*i].segment == seg; (*i)++)
	{
		bool		remove = items[*i].index < nremove;

		/*
		 * Saturating at half a pair, b / 2 copies; a remove never takes an
		 * entry a saturated value may rely on (DESIGN.md, "Duplicates").
		 */
		if (saturate && remove)
		{
			if (cf_kind_of(cf) != CF_KIND_ANY &&
				cf_remove_saturating(cf, items[*i].h, p.bucket_size / 2) > 0)
			{
				dirty = true;
				(*changed)++;
			}
			continue;
		}
		if (saturate && cf_count(cf, items[*i].h) >= p.bucket_size / 2)
			continue;
		if (segment_apply(cf, vh, remove ? OP_REMOVE : OP_ADD, items[*i].h))
		{
			dirty = true;
			(*changed)++;
		}
	}
	return dirty;
}

/* ------------------------------------------------------------------------
 * The commit's apply without SQL
 * ------------------------------------------------------------------------
 *
 * At commit (cuckoo_store_apply, latest) a tracked table's changes cost, in
 * SQL, three statements per store (the header's read, the segment's read
 * FOR UPDATE, its UPDATE), each with its executor start and end: most of a
 * single-row transaction's added time (docs/BENCHMARKS.md).  A store that is
 * exactly what cuckoo_store_create makes (the five columns in their order,
 * its primary key on segment its only index, the heap its access method,
 * not a partition, no trigger, rule, row security, check constraint or
 * generated column: nothing a statement would run that this code does not)
 * is read through its primary key and its
 * segments locked and updated by the heap's own functions, as the
 * statements would: under the newest snapshot, each segment locked in its
 * newest version (waiting for a transaction that holds it), updated, and
 * its key's index entry made when the update is not HOT.  The role must
 * hold SELECT and UPDATE on the store table itself (a grant of its
 * columns only takes the SQL path, which checks them) and USAGE on its
 * schema (the statements name the store).  Any other store
 * takes the SQL path, which does all of this through the statements.
 */

/*
 * The store's primary key, opened (RowExclusiveLock), if rel's shape lets
 * the heap be used directly; else NULL.
 */
static Relation
store_direct_index(Relation rel, Oid filter_type)
{
	static const char *const cols[] = {"segment", "f", "fpr", "capacity", "segments"};
	TupleDesc	desc = RelationGetDescr(rel);
	Oid			types[5];
	List	   *indexes;
	Relation	idx;

	/*
	 * A partition's UPDATE checks its partition constraint (which may name
	 * f), and simple_heap_update is the heap's only: neither is taken.
	 */
	if (rel->rd_rel->relkind != RELKIND_RELATION || RELATION_IS_OTHER_TEMP(rel) ||
		rel->rd_rel->relam != HEAP_TABLE_AM_OID || rel->rd_rel->relispartition ||
		rel->trigdesc != NULL || rel->rd_rules != NULL || rel->rd_rel->relrowsecurity ||
		desc->natts != 5 ||
		(desc->constr != NULL && (desc->constr->num_check > 0 ||
								  desc->constr->has_generated_stored)))
		return NULL;
	types[0] = INT4OID;
	types[1] = filter_type;
	types[2] = FLOAT8OID;
	types[3] = INT8OID;
	types[4] = INT4OID;
	for (int i = 0; i < 5; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);

		/*
		 * a generated column (18's virtual ones are not in the tuple) or a
		 * NOT NULL the store does not have (18's NOT VALID one: the UPDATE
		 * checks it on the header-only columns' NULLs) is the SQL path's
		 */
		if (a->attisdropped || a->atttypid != types[i] ||
			strcmp(NameStr(a->attname), cols[i]) != 0 || a->attgenerated != '\0' ||
			(i >= 2 && a->attnotnull))
			return NULL;
	}
	indexes = RelationGetIndexList(rel);
	if (list_length(indexes) != 1)
		return NULL;
	idx = index_open(linitial_oid(indexes), RowExclusiveLock);
	if (idx->rd_rel->relam == BTREE_AM_OID &&
		idx->rd_opfamily[0] == INTEGER_BTREE_FAM_OID &&
		idx->rd_index->indnatts == 1 && idx->rd_index->indkey.values[0] == 1 &&
		idx->rd_index->indisunique && idx->rd_index->indimmediate &&
		idx->rd_index->indisvalid && idx->rd_index->indisready &&
		idx->rd_index->indislive &&
		heap_attisnull(idx->rd_indextuple, Anum_pg_index_indexprs, NULL) &&
		heap_attisnull(idx->rd_indextuple, Anum_pg_index_indpred, NULL))
		return idx;
	index_close(idx, RowExclusiveLock);
	return NULL;
}

/*
 * Row `segment` of the store under snapshot, into slot (a buffer slot of
 * rel): false if there is none.  A second row is an error, as in
 * store_read.
 */
static bool
store_direct_find(Relation rel, Relation index, Snapshot snapshot, int32 segment,
				  TupleTableSlot *slot, const char *name)
{
	ScanKeyData key;
	IndexScanDesc scan;
	bool		found = false;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(segment));
#if PG_VERSION_NUM >= 190000
	scan = index_beginscan(rel, index, snapshot, NULL, 1, 0, SO_NONE);
#elif PG_VERSION_NUM >= 180000
	scan = index_beginscan(rel, index, snapshot, NULL, 1, 0);
#else
	scan = index_beginscan(rel, index, snapshot, 1, 0);
#endif
	index_rescan(scan, &key, 1, NULL, 0);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		found = true;
		/* two rows asked: a second row for the segment is an error, not a guess */
		if (index_getnext_slot(scan, ForwardScanDirection, slot))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cuckoo store \"%s\" has more than one row for segment %d",
							name, segment),
					 errhint("A store's table keeps its primary key on segment.")));
	}
	index_endscan(scan);
	return found;
}

/* The f of the row in slot, a copy (detoasted). */
static CuckooFilter *
store_direct_f(TupleTableSlot *slot, int32 segment, const char *name)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, 2, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("segment %d of cuckoo store \"%s\" is NULL", segment, name)));
	return DatumGetCuckooFilterPCopy(d);
}

/*
 * Locks row `segment` in its newest version (waiting for a transaction that
 * changes it), into slot; false if there is no such row (as a SELECT ... FOR
 * UPDATE under READ COMMITTED finds none).
 */
static bool
store_direct_lock(Relation rel, Relation index, Snapshot snapshot, int32 segment,
				  TupleTableSlot *slot, const char *name)
{
	for (;;)
	{
		ItemPointerData tid;
		TM_FailureData tmfd;
		TM_Result	r;
		bool		isnull;

		if (!store_direct_find(rel, index, snapshot, segment, slot, name))
			return false;
		tid = slot->tts_tid;
		ExecClearTuple(slot);
		r = table_tuple_lock(rel, &tid, snapshot, slot, GetCurrentCommandId(true),
							 LockTupleExclusive, LockWaitBlock,
							 TUPLE_LOCK_FLAG_FIND_LAST_VERSION, &tmfd);
		switch (r)
		{
			case TM_Ok:
				/* the newest version is still that segment's row */
				if (DatumGetInt32(slot_getattr(slot, 1, &isnull)) != segment || isnull)
					ereport(ERROR,
							(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
							 errmsg("segment %d of cuckoo store \"%s\" was renumbered concurrently",
									segment, name)));
				return true;
			case TM_Deleted:
				/* deleted since: look again, under a new snapshot */
				snapshot = GetLatestSnapshot();
				continue;
			default:
				elog(ERROR, "locking segment %d of cuckoo store \"%s\" failed: %d",
					 segment, name, (int) r);
		}
	}
}

/* Replaces the f of the locked row in slot by cf's filter. */
static void
store_direct_write(Relation rel, Relation index, IndexInfo **ii, TupleTableSlot *slot,
				   int32 segment, cf_filter *cf)
{
	CuckooFilter *v = (CuckooFilter *) (cf->buf - VARHDRSZ);
	Datum		values[5] = {0};
	bool		nulls[5] = {0};
	bool		repl[5] = {0};
	bool		should_free;
	HeapTuple	old = ExecFetchSlotHeapTuple(slot, false, &should_free);
	HeapTuple	tup;
	bool		index_it;

	SET_VARSIZE(v, VARHDRSZ + cf->len);
	AssertCheckFilter(cf, "store_direct_write");
	values[1] = PointerGetDatum(v);
	repl[1] = true;
	tup = heap_modify_tuple(old, RelationGetDescr(rel), values, nulls, repl);
#if PG_VERSION_NUM >= 160000
	{
		TU_UpdateIndexes upd;

		simple_heap_update(rel, &slot->tts_tid, tup, &upd);
		index_it = upd == TU_All;
	}
#else
	simple_heap_update(rel, &slot->tts_tid, tup);
	index_it = !HeapTupleIsHeapOnly(tup);
#endif
	if (index_it)
	{
		Datum		key = Int32GetDatum(segment);
		bool		keynull = false;

		if (*ii == NULL)
			*ii = BuildIndexInfo(index);
		/*
		 * indexUnchanged (14 and later): the key is not changed, as the
		 * executor tells the index for an UPDATE that leaves its columns
		 * alone (btree's bottom-up deletion of the older versions' entries)
		 */
		(void) index_insert(index, &key, &keynull, &tup->t_self, rel, UNIQUE_CHECK_YES,
#if PG_VERSION_NUM >= 140000
							true,
#endif
							*ii);
	}
	heap_freetuple(tup);
	if (should_free)
		heap_freetuple(old);
}

/*
 * cuckoo_store_schema_usage (cuckoo_store.h): role may use the schema of
 * store relid, as the SQL path's statements naming it need.
 */
bool
cuckoo_store_schema_usage(Oid relid, Oid role)
{
	Oid			nsp = get_rel_namespace(relid);

#if PG_VERSION_NUM >= 160000
	return object_aclcheck(NamespaceRelationId, nsp, role, ACL_USAGE) == ACLCHECK_OK;
#else
	return pg_namespace_aclcheck(nsp, role, ACL_USAGE) == ACLCHECK_OK;
#endif
}

/*
 * cuckoo_store_apply_direct (cuckoo_store.h): false (and nothing done) if
 * the store is not one it takes (above), or has no value family yet (the
 * SQL path records it under the header's lock).
 */
bool
cuckoo_store_apply_direct(FunctionCallInfo fcinfo, Oid relid, Oid role, const ValueHasher *vh,
						  const StoreChange *changes, int64 n, bool saturate, int64 *changed)
{
	StoreCallCache *cc = store_call_cache(fcinfo);
	Relation	rel;
	Relation	index;
	IndexInfo  *ii;
	TupleTableSlot *slot;
	Snapshot	snapshot;
	Store		s;
	StoreItem  *items;
	int			k,
				nremove;
	bool		isnull[3];

	/*
	 * Too many changes, or a transaction made read-only since its writes
	 * (SET TRANSACTION READ ONLY): the SQL path reports it, as the store's
	 * statements would.
	 */
	if (n > PG_INT32_MAX / 2 || XactReadOnly)
		return false;
	if (get_rel_relkind(relid) != RELKIND_RELATION ||
		pg_class_aclcheck(relid, role, ACL_SELECT) != ACLCHECK_OK ||
		pg_class_aclcheck(relid, role, ACL_UPDATE) != ACLCHECK_OK ||
		!cuckoo_store_schema_usage(relid, role))
		return false;
	store_check_no_children(relid);
	rel = table_open(relid, RowExclusiveLock);
	index = store_direct_index(rel, cc->filter_type);
	if (index == NULL)
	{
		table_close(rel, RowExclusiveLock);
		return false;
	}
	memset(&s, 0, sizeof(s));
	s.relid = relid;
	s.name = RelationGetRelationName(rel);
	/* a published store without a replica identity fails as its UPDATE would */
	CheckCmdReplicaIdentity(rel, CMD_UPDATE);
	CommandCounterIncrement();
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	slot = table_slot_create(rel, NULL);
	if (!store_direct_find(rel, index, snapshot, STORE_HEADER, slot, s.name))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a cuckoo store: it has no header row (segment -1)",
						s.name)));
	{
		Datum		fpr = slot_getattr(slot, 3, &isnull[0]);
		Datum		cap = slot_getattr(slot, 4, &isnull[1]);
		Datum		nseg = slot_getattr(slot, 5, &isnull[2]);

		if (isnull[0] || isnull[1] || isnull[2] || DatumGetInt32(nseg) < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cuckoo store \"%s\" has a damaged header row", s.name),
					 errdetail("The row segment = -1 must have fpr, capacity and segments set, segments >= 1.")));
		s.fpr = DatumGetFloat8(fpr);
		s.capacity = DatumGetInt64(cap);
		s.nsegments = DatumGetInt32(nseg);
	}
	s.header = store_direct_f(slot, STORE_HEADER, s.name);
	filter_open(&s.hcf, s.header);
	if (cf_kind_of(&s.hcf) == CF_KIND_ANY)
	{
		/* the first value's family is recorded under the header's lock: SQL */
		ExecDropSingleTupleTableSlot(slot);
		UnregisterSnapshot(snapshot);
		index_close(index, RowExclusiveLock);
		table_close(rel, RowExclusiveLock);
		return false;
	}
	if (!filter_kind_matches(&s.hcf, vh))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo store \"%s\" holds %s values, not %s", s.name,
						cf_kind_name(cf_kind_of(&s.hcf)), format_type_be(vh->typid)),
				 errhint("Use a store with values of the type it was first given.")));
	ExecClearTuple(slot);
	ii = NULL;					/* built when an update leaves its page */
	items = store_apply_items(changes, n, s.nsegments, &k, &nremove);
	*changed = 0;
	for (int i = 0; i < k;)
	{
		int32		seg = items[i].segment;
		cf_filter	cf;

		CHECK_FOR_INTERRUPTS();
		if (!store_direct_lock(rel, index, snapshot, seg, slot, s.name))
			store_missing_segment(&s, seg);
		filter_open(&cf, store_direct_f(slot, seg, s.name));
		if (store_apply_segment(&cf, vh, items, k, &i, nremove, saturate, changed))
			store_direct_write(rel, index, &ii, slot, seg, &cf);
		ExecClearTuple(slot);
		pfree(cf.buf - VARHDRSZ);
	}
	CommandCounterIncrement();
	pfree(items);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
	index_close(index, RowExclusiveLock);
	table_close(rel, RowExclusiveLock);
	return true;
}

static int64
store_apply(FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
			const StoreChange *changes, int64 n, bool saturate)
{
	Store		s;
	StoreItem  *items;
	int64		changed = 0;
	int			k,
				nremove;

	if (n > PG_INT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many changes for cuckoo store in one call: " INT64_FORMAT, n)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, vh, true, false);
	items = store_apply_items(changes, n, s.nsegments, &k, &nremove);
	for (int i = 0; i < k;)
	{
		int32		seg = items[i].segment;
		CuckooFilter *v;
		cf_filter	cf;

		CHECK_FOR_INTERRUPTS();
		v = store_read(&s, seg, true, true, false, false);
		if (v == NULL)
			store_missing_segment(&s, seg);
		filter_open(&cf, v);
		if (store_apply_segment(&cf, vh, items, k, &i, nremove, saturate, &changed))
			store_write(&s, seg, &cf);
		pfree(cf.buf - VARHDRSZ);
	}
	SPI_finish();
	return changed;
}
