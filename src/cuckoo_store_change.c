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
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/smgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
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
 * SQL, a statement per store and segment step (the header's read, the
 * segment's lock, its read, the UPDATE of each changed chunk), each with
 * its executor start and end: most of a single-row transaction's added
 * time (docs/BENCHMARKS.md).  A store that is exactly what
 * cuckoo_store_create makes, or the update to 1.6 leaves (the six columns
 * by name, dropped columns aside, its primary key on (segment, chunk) its
 * only index, the heap its access method, not a partition, no trigger,
 * rule, row security, check constraint or generated column: nothing a
 * statement would run that this code does not) is read through its
 * primary key and its segments locked and changed by the heap's own
 * functions, as the statements would: under the newest snapshot, each
 * segment's chunk 0 locked in its newest version (waiting for a
 * transaction that holds it), the segment's chunks read under a snapshot
 * taken after the lock, the chunks whose bytes changed updated (a key's
 * index entry made when the update is not HOT), chunks a grown segment
 * gains inserted and indexed (a one-chunk segment is the version locked;
 * rows are found from TIDs remembered per backend, below).  The role holds
 * SELECT and UPDATE on the store table itself and USAGE on its schema (the
 * statements name the store): the commit checked them for every owner
 * queued (pending_check_roles), as the statements would have.  Any other
 * store, and a store still in the layout of 1.3 to 1.5,
 * takes the SQL path, which does all of this through the statements.
 */

/* A store opened for the heap path. */
typedef struct DirectStore
{
	Relation	rel;
	Oid			index_oid;		/* the primary key (segment, chunk) */
	Relation	index;			/* it, opened when first needed */
	IndexInfo  *ii;				/* built when first needed */
	const char *name;
	AttrNumber	a_segment,
				a_chunk,
				a_bytes,
				a_fpr,
				a_capacity,
				a_segments;
	TupleTableSlot *slot;
	TupleTableSlot *slot2;		/* store_direct_find's second row, when made */
	/* the segment being changed: the TIDs of its chunk rows */
	int32		segment;
	ItemPointerData *tids;
	int32		ntids;
	int32		captids;
	/* fetches by a remembered index entry's TID (store_direct_fetch) */
	struct IndexFetchTableData *fetch;
	BlockNumber nblocks;		/* the table's, once asked; else InvalidBlockNumber */
	struct DirectTids *tc;		/* this store's remembered TIDs */
} DirectStore;

/*
 * The TIDs of chunk 0 rows, remembered per backend.
 *
 * Finding a segment's chunk 0 through the primary key descends the btree
 * for each of the header and the segment at every commit.  A backend
 * remembers, per store, the heap TID each chunk 0's index entry pointed to
 * (the root of the row's HOT chain, which a HOT update keeps) and fetches
 * the row from there next time, following the chain as an index scan
 * would (table_index_fetch_tuple) under the same snapshot.  Nothing
 * remembered is trusted: the row found must be visible to the snapshot and
 * be (segment, 0) of the segment asked for, and the primary key allows one
 * such row in a snapshot, so it is the row the index scan would have
 * returned.  Anything else (the TID past the table's end after a TRUNCATE
 * or a VACUUM, its line pointer reused, the row updated out of its page,
 * which makes a new index entry) is a miss: the index scan runs and the
 * TID it found is remembered.  A store's slots are a direct-mapped array
 * (segment modulo its size, at most DIRECT_TIDS_MAX, all stores' together
 * at most DIRECT_TIDS_BUDGET bytes), DIRECT_TIDS_STORES stores are kept,
 * the oldest replaced.
 */
typedef struct DirectTid
{
	int32		segment;
	uint32		gen;			/* valid while it is its store's gen */
	ItemPointerData tid;
	ItemPointerData tid1;		/* chunk 1's, if known; else invalid */
} DirectTid;

typedef struct DirectTids
{
	Oid			relid;			/* InvalidOid: free */
	uint32		mask;			/* slots used - 1 */
	uint32		cap;			/* slots allocated */
	uint32		gen;			/* the current generation, >= 1 */
	DirectTid  *slots;
	DirectTid	header;

	/*
	 * What the commit learnt of the store that only DDL changes, kept until
	 * any relcache invalidation (store_direct_forget): that the heap path
	 * takes it (store_direct_index's verdict, its columns' numbers and its
	 * primary key), and its header row (segments, fpr, capacity, and the
	 * header filter with a value family, opened).
	 */
	bool		shape_ok;
	Oid			index_oid;
	AttrNumber	att[6];
	bool		hdr_ok;
	double		fpr;
	int64		capacity;
	int32		nsegments;
	CuckooFilter *hv;			/* in direct_tids_cxt; hcf.buf is its bytes */
	cf_filter	hcf;
} DirectTids;

#define DIRECT_TIDS_MAX		65536
#define DIRECT_TIDS_STORES	32
#define DIRECT_TIDS_BUDGET	((Size) 4 * 1024 * 1024)	/* bytes, all stores */

static MemoryContext direct_tids_cxt = NULL;
static DirectTids direct_tids[DIRECT_TIDS_STORES];
static int	direct_tids_next = 0;
static Size direct_tids_bytes = 0;	/* allocated, all stores */
static uint64 direct_inval_count = 0;	/* relcache invalidations seen */

/*
 * A relcache invalidation of any relation (cuckoo_module.c's callback):
 * every store's shape verdict and header are forgotten (the TIDs need no
 * forgetting: nothing remembered is trusted).  Any, not only the store's:
 * the primary key's own, a catalog's, a lost invalidation queue's (relid
 * InvalidOid) too.  The header's copy is freed when it is read again, not
 * here.
 */
void
store_direct_forget(Oid relid)
{
	direct_inval_count++;
	for (int i = 0; i < DIRECT_TIDS_STORES; i++)
	{
		direct_tids[i].shape_ok = false;
		direct_tids[i].hdr_ok = false;
	}
}

/* The remembered TIDs of store relid, or NULL. */
static DirectTids *
direct_tids_find(Oid relid)
{
	for (int i = 0; i < DIRECT_TIDS_STORES; i++)
		if (direct_tids[i].relid == relid && direct_tids[i].slots != NULL)
			return &direct_tids[i];
	return NULL;
}

/*
 * The remembered TIDs of store relid of nsegments segments, made (empty) if
 * new in the oldest place: its array is kept and emptied by a new
 * generation, so stores written in turn, more than there are places, cost
 * no allocation or clearing.
 */
static DirectTids *
direct_tids_for(Oid relid, int32 nsegments)
{
	DirectTids *t = direct_tids_find(relid);
	uint32		n = 1;

	if (t != NULL)
		return t;
	if (direct_tids_cxt == NULL)
		direct_tids_cxt = AllocSetContextCreate(TopMemoryContext, "cuckoo store TIDs",
												ALLOCSET_SMALL_SIZES);
	t = &direct_tids[direct_tids_next];
	direct_tids_next = (direct_tids_next + 1) % DIRECT_TIDS_STORES;
	t->relid = InvalidOid;
	t->shape_ok = false;
	t->hdr_ok = false;
	while (n < (uint32) Max(nsegments, 1) && n < DIRECT_TIDS_MAX &&
		   direct_tids_bytes - sizeof(DirectTid) * t->cap + sizeof(DirectTid) * n * 2 <=
		   DIRECT_TIDS_BUDGET)
		n <<= 1;
	if (t->slots == NULL || t->cap < n)
	{
		if (t->slots != NULL)
			pfree(t->slots);
		direct_tids_bytes -= sizeof(DirectTid) * t->cap;
		t->slots = NULL;
		t->cap = 0;
		t->slots = MemoryContextAllocZero(direct_tids_cxt, sizeof(DirectTid) * n);
		t->cap = n;
		direct_tids_bytes += sizeof(DirectTid) * n;
		t->gen = 0;
	}
	if (++t->gen == 0)
	{
		/* gone round: every slot made empty once */
		memset(t->slots, 0, sizeof(DirectTid) * t->cap);
		t->gen = 1;
	}
	t->mask = n - 1;
	t->header.gen = 0;
	t->relid = relid;
	return t;
}

/* The slot of segment (the header's apart) in t. */
static DirectTid *
direct_tid_slot(DirectTids *t, int32 segment)
{
	return segment == STORE_HEADER ? &t->header : &t->slots[(uint32) segment & t->mask];
}

/*
 * root, the TID of chunk `chunk` (0 or 1) of segment, remembered in t.
 * Chunk 1's is kept beside its segment's chunk 0's, so only while that is
 * remembered; chunk 0's takes the slot (forgetting another segment's).
 */
static void
direct_tid_remember(DirectTids *t, int32 segment, int32 chunk, ItemPointer root)
{
	DirectTid  *e;
	bool		ours;

	if (t == NULL)
		return;
	e = direct_tid_slot(t, segment);
	ours = e->gen == t->gen && e->segment == segment;
	if (chunk == 1)
	{
		if (ours)
			e->tid1 = *root;
		return;
	}
	if (!ours)
		ItemPointerSetInvalid(&e->tid1);
	e->segment = segment;
	e->gen = t->gen;
	e->tid = *root;
}

/*
 * Whether block blk is within the store's table.  The table cannot shrink
 * while the transaction holds its lock, but a TID remembered in an earlier
 * transaction may point past the end after a VACUUM truncated it.  The size
 * the backend's storage manager last knew (14 and later) is used when it
 * covers blk: the table only grew since it was known, as a truncation sends
 * every backend an invalidation that forgets it (before the file shrinks;
 * the lock this transaction took on the store processed it).  Else the
 * size is asked of the file (a system call).
 */
static bool
store_direct_block_exists(DirectStore *ds, BlockNumber blk)
{
	if (ds->nblocks != InvalidBlockNumber && blk < ds->nblocks)
		return true;
#if PG_VERSION_NUM >= 140000
	{
		BlockNumber known = RelationGetSmgr(ds->rel)->smgr_cached_nblocks[MAIN_FORKNUM];

		if (known != InvalidBlockNumber && blk < known)
		{
			ds->nblocks = known;
			return true;
		}
	}
#endif
	ds->nblocks = RelationGetNumberOfBlocks(ds->rel);
	return blk < ds->nblocks;
}

/*
 * Chunk `chunk` (0 or 1) of `segment` under snapshot, into ds->slot,
 * fetched from the TID remembered for it (above); false if none is
 * remembered or the row found there is not it.
 */
static bool
store_direct_fetch(DirectStore *ds, Snapshot snapshot, int32 segment, int32 chunk)
{
	DirectTid  *e;
	ItemPointerData tid;
	bool		call_again = false,
				all_dead = false,
				n1,
				n2;
	Datum		seg,
				ch;

	if (ds->tc == NULL)
		return false;
	e = direct_tid_slot(ds->tc, segment);
	if (e->gen != ds->tc->gen || e->segment != segment)
		return false;
	tid = chunk == 0 ? e->tid : e->tid1;
	if (!ItemPointerIsValid(&tid) ||
		!store_direct_block_exists(ds, ItemPointerGetBlockNumber(&tid)))
		return false;
	if (ds->fetch == NULL)
#if PG_VERSION_NUM >= 190000
		ds->fetch = table_index_fetch_begin(ds->rel, SO_NONE);
#else
		ds->fetch = table_index_fetch_begin(ds->rel);
#endif
	if (!table_index_fetch_tuple(ds->fetch, &tid, snapshot, ds->slot, &call_again, &all_dead))
		return false;
	seg = slot_getattr(ds->slot, ds->a_segment, &n1);
	ch = slot_getattr(ds->slot, ds->a_chunk, &n2);
	if (n1 || n2 || DatumGetInt32(seg) != segment || DatumGetInt32(ch) != chunk)
	{
		ExecClearTuple(ds->slot);
		return false;
	}
	return true;
}

static void
store_direct_set_atts(DirectStore *ds, const AttrNumber *att)
{
	ds->a_segment = att[0];
	ds->a_chunk = att[1];
	ds->a_bytes = att[2];
	ds->a_fpr = att[3];
	ds->a_capacity = att[4];
	ds->a_segments = att[5];
}

/*
 * The store's primary key, opened (RowExclusiveLock), if rel's shape lets
 * the heap be used directly (and ds's column numbers and index_oid set);
 * else NULL.
 */
static Relation
store_direct_index(Relation rel, DirectStore *ds)
{
	static const char *const cols[] = {"segment", "chunk", "bytes", "fpr", "capacity", "segments"};
	static const Oid types[] = {INT4OID, INT4OID, BYTEAOID, FLOAT8OID, INT8OID, INT4OID};
	AttrNumber	att[6] = {0};
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *indexes;
	Relation	idx;

	/*
	 * A partition's UPDATE checks its partition constraint (which may name
	 * bytes), and simple_heap_update is the heap's only: neither is taken.
	 */
	if (rel->rd_rel->relkind != RELKIND_RELATION || RELATION_IS_OTHER_TEMP(rel) ||
		rel->rd_rel->relam != HEAP_TABLE_AM_OID || rel->rd_rel->relispartition ||
		rel->trigdesc != NULL || rel->rd_rules != NULL || rel->rd_rel->relrowsecurity ||
		(desc->constr != NULL && (desc->constr->num_check > 0 ||
								  desc->constr->has_generated_stored)))
		return NULL;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);
		int			c;

		if (a->attisdropped)
			continue;			/* an updated store keeps its old f, dropped */
		for (c = 0; c < 6; c++)
			if (strcmp(NameStr(a->attname), cols[c]) == 0)
				break;

		/*
		 * another column, a generated one (18's virtual ones are not in the
		 * tuple), a column default (an inserted chunk row would get it: the
		 * statements name the columns they set, the heap does not know
		 * defaults) or a NOT NULL the store does not have (18's NOT VALID
		 * one: the UPDATE checks it on the header-only columns' NULLs) is
		 * the SQL path's
		 */
		if (c == 6 || att[c] != 0 || a->atttypid != types[c] || a->attgenerated != '\0' ||
			a->atthasdef || (c >= 3 && a->attnotnull))
			return NULL;
		att[c] = a->attnum;
	}
	for (int c = 0; c < 6; c++)
		if (att[c] == 0)
			return NULL;
	indexes = RelationGetIndexList(rel);
	if (list_length(indexes) != 1)
		return NULL;
	idx = index_open(linitial_oid(indexes), RowExclusiveLock);
	if (idx->rd_rel->relam == BTREE_AM_OID &&
		idx->rd_index->indnatts == 2 && idx->rd_index->indnkeyatts == 2 &&
		idx->rd_opfamily[0] == INTEGER_BTREE_FAM_OID &&
		idx->rd_opfamily[1] == INTEGER_BTREE_FAM_OID &&
		idx->rd_index->indkey.values[0] == att[0] &&
		idx->rd_index->indkey.values[1] == att[1] &&
		idx->rd_indoption[0] == 0 && idx->rd_indoption[1] == 0 &&
		idx->rd_index->indisunique && idx->rd_index->indimmediate &&
		idx->rd_index->indisvalid && idx->rd_index->indisready &&
		idx->rd_index->indislive &&
		heap_attisnull(idx->rd_indextuple, Anum_pg_index_indexprs, NULL) &&
		heap_attisnull(idx->rd_indextuple, Anum_pg_index_indpred, NULL))
	{
		store_direct_set_atts(ds, att);
		ds->index_oid = RelationGetRelid(idx);
		return idx;
	}
	index_close(idx, RowExclusiveLock);
	return NULL;
}

/*
 * The primary key, opened when first needed (its lock was taken at the
 * start, cuckoo_store_apply_direct): a commit that finds its rows from
 * remembered TIDs and updates them in their HOT chains never opens it.
 */
static Relation
store_direct_pkey(DirectStore *ds)
{
	if (ds->index == NULL)
		ds->index = index_open(ds->index_oid, RowExclusiveLock);
	return ds->index;
}

static IndexScanDesc
store_direct_scan(DirectStore *ds, Snapshot snapshot, int32 segment, bool chunk0)
{
	ScanKeyData key[2];
	int			nkeys = chunk0 ? 2 : 1;
	IndexScanDesc scan;

	ScanKeyInit(&key[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(segment));
	ScanKeyInit(&key[1], 2, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(0));
#if PG_VERSION_NUM >= 190000
	scan = index_beginscan(ds->rel, store_direct_pkey(ds), snapshot, NULL, nkeys, 0, SO_NONE);
#elif PG_VERSION_NUM >= 180000
	scan = index_beginscan(ds->rel, store_direct_pkey(ds), snapshot, NULL, nkeys, 0);
#else
	scan = index_beginscan(ds->rel, store_direct_pkey(ds), snapshot, nkeys, 0);
#endif
	index_rescan(scan, key, nkeys, NULL, 0);
	return scan;
}

/*
 * The next row of scan into slot, as index_getnext_slot (an MVCC snapshot:
 * one row a HOT chain), and *root the TID its index entry holds.
 */
static bool
store_direct_next(IndexScanDesc scan, TupleTableSlot *slot, ItemPointer root)
{
	ItemPointer tid;

	while ((tid = index_getnext_tid(scan, ForwardScanDirection)) != NULL)
	{
		ItemPointerData r = *tid;

		if (index_fetch_heap(scan, slot))
		{
			*root = r;
			return true;
		}
	}
	return false;
}

/*
 * Chunk 0 of `segment` under snapshot, into ds->slot: false if there is
 * none.  A second row is an error, as in store_read.  Its index entry's TID
 * is remembered.
 */
static bool
store_direct_find(DirectStore *ds, Snapshot snapshot, int32 segment)
{
	IndexScanDesc scan = store_direct_scan(ds, snapshot, segment, true);
	ItemPointerData root;
	bool		found = false;

	if (store_direct_next(scan, ds->slot, &root))
	{
		found = true;
		direct_tid_remember(ds->tc, segment, 0, &root);

		/*
		 * two rows asked: a second row for the segment is an error, not a
		 * guess.  Looked for in another slot: a fetch that finds nothing
		 * visible still overwrites its slot's tuple (the HOT chain member
		 * it looked at), leaving ds->slot's TID beside another version's
		 * bytes.
		 */
		if (ds->slot2 == NULL)
			ds->slot2 = table_slot_create(ds->rel, NULL);
		if (index_getnext_slot(scan, ForwardScanDirection, ds->slot2))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("segment %d of cuckoo store \"%s\" has damaged chunk rows",
							segment, ds->name),
					 errdetail("Chunk 0 is there more than once."),
					 errhint("A store's table keeps its primary key on (segment, chunk).")));
	}
	index_endscan(scan);
	return found;
}

static void
store_direct_push_tid(DirectStore *ds, ItemPointer tid)
{
	if (ds->ntids == ds->captids)
	{
		ds->captids = Max(16, ds->captids * 2);
		ds->tids = ds->tids == NULL ?
			palloc(sizeof(ItemPointerData) * ds->captids) :
			repalloc(ds->tids, sizeof(ItemPointerData) * ds->captids);
	}
	ds->tids[ds->ntids++] = *tid;
}

/* The header row's fpr, capacity and segments, from its chunk 0 in ds->slot, into s. */
static void
store_direct_header_cols(DirectStore *ds, Store *s)
{
	bool		isnull[3];
	Datum		fpr = slot_getattr(ds->slot, ds->a_fpr, &isnull[0]);
	Datum		cap = slot_getattr(ds->slot, ds->a_capacity, &isnull[1]);
	Datum		nseg = slot_getattr(ds->slot, ds->a_segments, &isnull[2]);

	store_set_header_cols(s, fpr, cap, nseg, isnull);
}

/*
 * The chunks of `segment` put together, their TIDs in ds->tids; NULL if
 * there are none.  Read under snapshot, or if it is NULL under a new one
 * (taken after the segment's chunk 0 was locked, so they are what the
 * transaction that held the lock left).  With hdr (the header, segment -1)
 * its columns are read into hdr, and *root is set to its chunk 0's index
 * entry's TID.
 */
static CuckooFilter *
store_direct_read(DirectStore *ds, int32 segment, Snapshot snapshot, Store *hdr,
				  ItemPointer root)
{
	Snapshot	snap = snapshot != NULL ? snapshot : RegisterSnapshot(GetLatestSnapshot());
	IndexScanDesc scan = store_direct_scan(ds, snap, segment, false);
	StoreAsm	a;
	ItemPointerData r;

	store_asm_start(&a, ds->name, segment, CurrentMemoryContext);
	ds->segment = segment;
	ds->ntids = 0;
	while (store_direct_next(scan, ds->slot, &r))
	{
		bool		n1,
					n2;
		Datum		c = slot_getattr(ds->slot, ds->a_chunk, &n1);
		Datum		b = slot_getattr(ds->slot, ds->a_bytes, &n2);

		store_asm_add(&a, n1 ? 0 : DatumGetInt32(c), n1, b, n2);
		if (ds->ntids == 0 && hdr != NULL)
		{
			store_direct_header_cols(ds, hdr);
			*root = r;
		}
		if (ds->ntids == 1 && hdr == NULL)
			direct_tid_remember(ds->tc, segment, 1, &r);
		store_direct_push_tid(ds, &ds->slot->tts_tid);
	}
	index_endscan(scan);
	if (snapshot == NULL)
		UnregisterSnapshot(snap);
	ExecClearTuple(ds->slot);
	return store_asm_finish(&a);
}

/*
 * The segment whose chunk 0 is in ds->slot, if that chunk is all of it
 * (shorter than STORE_CHUNK_BYTES: the last), its TID in ds->tids.  With
 * chunk1 (chunk 0 locked in its newest version), a segment of two chunks
 * too: chunk 1 fetched from its remembered TID under a snapshot taken now
 * (after the lock, as store_direct_read reads it), if it is there and is
 * the last.  NULL otherwise: store_direct_read reads the chunks.
 */
static CuckooFilter *
store_direct_whole(DirectStore *ds, int32 segment, bool chunk1)
{
	StoreAsm	a;
	bool		isnull;
	Datum		b = slot_getattr(ds->slot, ds->a_bytes, &isnull);
	ItemPointerData tid0 = ds->slot->tts_tid;

	store_asm_start(&a, ds->name, segment, CurrentMemoryContext);
	store_asm_add(&a, 0, false, b, isnull);
	ds->segment = segment;
	ds->ntids = 0;
	if (a.last == STORE_CHUNK_BYTES)
	{
		Snapshot	snap;
		bool		found;

		if (!chunk1)
		{
			pfree(store_asm_finish(&a));
			return NULL;
		}
		snap = RegisterSnapshot(GetLatestSnapshot());
		found = store_direct_fetch(ds, snap, segment, 1);
		UnregisterSnapshot(snap);
		if (found)
		{
			b = slot_getattr(ds->slot, ds->a_bytes, &isnull);
			store_asm_add(&a, 1, false, b, isnull);
		}
		if (!found || a.last == STORE_CHUNK_BYTES)
		{
			/* not remembered, moved, or more chunks: through the primary key */
			pfree(store_asm_finish(&a));
			return NULL;
		}
		store_direct_push_tid(ds, &tid0);
		store_direct_push_tid(ds, &ds->slot->tts_tid);
		return store_asm_finish(&a);
	}
	store_direct_push_tid(ds, &tid0);
	return store_asm_finish(&a);
}

/*
 * Locks chunk 0 of `segment` in its newest version (waiting for a
 * transaction that changes it), found from its remembered TID or else
 * through the primary key; false if there is no such row (as a SELECT ...
 * FOR UPDATE under READ COMMITTED finds none).  The version locked stays in
 * ds->slot.
 */
static bool
store_direct_lock(DirectStore *ds, Snapshot snapshot, int32 segment)
{
	for (bool first = true;; first = false)
	{
		ItemPointerData tid;
		TM_FailureData tmfd;
		TM_Result	r;
		bool		isnull,
					isnull2;

		if (!(first && store_direct_fetch(ds, snapshot, segment, 0)) &&
			!store_direct_find(ds, snapshot, segment))
			return false;
		tid = ds->slot->tts_tid;
		ExecClearTuple(ds->slot);
		r = table_tuple_lock(ds->rel, &tid, snapshot, ds->slot, GetCurrentCommandId(true),
							 LockTupleExclusive, LockWaitBlock,
							 TUPLE_LOCK_FLAG_FIND_LAST_VERSION, &tmfd);
		switch (r)
		{
			case TM_Ok:
				/* the newest version is still that segment's chunk 0 */
				if (DatumGetInt32(slot_getattr(ds->slot, ds->a_segment, &isnull)) != segment ||
					isnull ||
					DatumGetInt32(slot_getattr(ds->slot, ds->a_chunk, &isnull2)) != 0 ||
					isnull2)
					ereport(ERROR,
							(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
							 errmsg("segment %d of cuckoo store \"%s\" was renumbered concurrently",
									segment, ds->name)));
				return true;
			case TM_Deleted:
				/* deleted since: look again, under a new snapshot */
				snapshot = GetLatestSnapshot();
				continue;
			default:
				elog(ERROR, "locking segment %d of cuckoo store \"%s\" failed: %d",
					 segment, ds->name, (int) r);
		}
	}
}

static void
store_direct_index_insert(DirectStore *ds, HeapTuple tup, int32 chunk)
{
	Datum		key[2];
	bool		keynull[2] = {false, false};

	if (ds->ii == NULL)
		ds->ii = BuildIndexInfo(store_direct_pkey(ds));
	key[0] = Int32GetDatum(ds->segment);
	key[1] = Int32GetDatum(chunk);
	/*
	 * indexUnchanged (14 and later): for an update the key is not changed,
	 * as the executor tells the index for an UPDATE that leaves its columns
	 * alone (btree's bottom-up deletion of the older versions' entries)
	 */
	(void) index_insert(store_direct_pkey(ds), key, keynull, &tup->t_self, ds->rel, UNIQUE_CHECK_YES,
#if PG_VERSION_NUM >= 140000
						chunk < ds->ntids,
#endif
						ds->ii);
}

/*
 * A row for chunk `chunk` of ds->segment with bytes p[0 .. n-1]: made
 * anew, (segment, chunk, bytes) and NULL elsewhere, as every segment's
 * chunk row is (the header-only columns are the header row's; a dropped
 * column is NULL in a new row).
 */
static HeapTuple
store_direct_chunk_row(DirectStore *ds, int32 chunk, const bytea *b)
{
	TupleDesc	desc = RelationGetDescr(ds->rel);
	Datum	   *values = palloc0(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);
	HeapTuple	tup;

	memset(nulls, true, sizeof(bool) * desc->natts);
	values[ds->a_segment - 1] = Int32GetDatum(ds->segment);
	nulls[ds->a_segment - 1] = false;
	values[ds->a_chunk - 1] = Int32GetDatum(chunk);
	nulls[ds->a_chunk - 1] = false;
	values[ds->a_bytes - 1] = PointerGetDatum(unconstify(bytea *, b));
	nulls[ds->a_bytes - 1] = false;
	tup = heap_form_tuple(desc, values, nulls);
	pfree(values);
	pfree(nulls);
	return tup;
}

/* store_direct_chunk_row of bytes p[0 .. n-1] */
static HeapTuple
store_direct_chunk_tuple(DirectStore *ds, int32 chunk, const char *p, Size n)
{
	bytea	   *b = palloc(VARHDRSZ + n);
	HeapTuple	tup;

	SET_VARSIZE(b, VARHDRSZ + n);
	memcpy(VARDATA(b), p, n);
	tup = store_direct_chunk_row(ds, chunk, b);
	pfree(b);
	return tup;
}

/*
 * The new version of ds->segment's chunk `chunk`, tup, written: its index
 * entry made when the update was not HOT (or the row is new), and
 * remembered.
 */
static void
store_direct_indexed(DirectStore *ds, HeapTuple tup, int32 chunk, bool index_it)
{
	if (index_it)
	{
		store_direct_index_insert(ds, tup, chunk);
		/* out of its HOT chain, or a new row: the new index entry's TID */
		if (chunk <= 1)
			direct_tid_remember(ds->tc, ds->segment, chunk, &tup->t_self);
	}
}

/*
 * store_chunk_diff's write: chunk `chunk` of ds->segment gets bytes
 * p[0 .. n-1] (the row locked before, or a new one).
 */
static void
store_direct_write_chunk(void *arg, int32 chunk, const char *p, Size n, bool insert)
{
	DirectStore *ds = arg;
	HeapTuple	tup = store_direct_chunk_tuple(ds, chunk, p, n);
	bool		index_it;

	if (insert)
	{
		simple_heap_insert(ds->rel, tup);
		index_it = true;
	}
	else
	{
		ItemPointerData tid = ds->tids[chunk];

#if PG_VERSION_NUM >= 160000
		TU_UpdateIndexes upd;

		simple_heap_update(ds->rel, &tid, tup, &upd);
		index_it = upd == TU_All;
#else
		simple_heap_update(ds->rel, &tid, tup);
		index_it = !HeapTupleIsHeapOnly(tup);
#endif
	}
	store_direct_indexed(ds, tup, chunk, index_it);
	heap_freetuple(tup);
}

/*
 * The update of ds->segment's chunk 0, at ds->tids[0], to tup, without a
 * lock taken before: heap_update waits for a transaction that changes or
 * locks the row, and answers TM_Updated or TM_Deleted if the version was
 * not the newest (nothing written then).  index_it: the update was not HOT.
 */
static TM_Result
store_direct_update0(DirectStore *ds, HeapTuple tup, bool *index_it)
{
	TM_FailureData tmfd;
	LockTupleMode lockmode;
	TM_Result	r;
#if PG_VERSION_NUM >= 160000
	TU_UpdateIndexes upd = TU_None;
#endif

#if PG_VERSION_NUM >= 190000
	r = heap_update(ds->rel, &ds->tids[0], tup, GetCurrentCommandId(true), 0,
					InvalidSnapshot, true, &tmfd, &lockmode, &upd);
#elif PG_VERSION_NUM >= 160000
	r = heap_update(ds->rel, &ds->tids[0], tup, GetCurrentCommandId(true),
					InvalidSnapshot, true, &tmfd, &lockmode, &upd);
#else
	r = heap_update(ds->rel, &ds->tids[0], tup, GetCurrentCommandId(true),
					InvalidSnapshot, true, &tmfd, &lockmode);
#endif
#if PG_VERSION_NUM >= 160000
	*index_it = upd == TU_All;
#else
	*index_it = !HeapTupleIsHeapOnly(tup);
#endif
	return r;
}

#define DIRECT_UNLOCKED_TRIES	3

/*
 * Applies items[*i ..] of segment seg as one update of its chunk 0, with no
 * row lock before it, when the segment is one chunk before and after: the
 * newest version read under the snapshot, changed, and written by
 * heap_update, which succeeds only on the newest version (it waits for a
 * transaction that holds the row, and then reports whether it changed
 * it), so the change is applied to the segment as the locked path would
 * apply it, without the lock's own write.  A version changed since it was
 * read is read again (a new snapshot), a few times.  False, with *i and
 * *changed as they were and nothing written, when the segment takes the
 * locked path: more than one chunk, before or after; a change that leaves
 * it as it is (the locked path decides it on the version it holds); a row
 * not found; too many tries.
 */
static bool
store_direct_unlocked(DirectStore *ds, Snapshot snapshot, const ValueHasher *vh,
					  const StoreItem *items, int k, int *i, int nremove, bool saturate,
					  int64 *changed)
{
	int32		seg = items[*i].segment;

	for (int t = 0; t < DIRECT_UNLOCKED_TRIES; t++)
	{
		int			i0 = *i;
		int64		changed0 = *changed;
		CuckooFilter *v;
		cf_filter	cf;
		HeapTuple	tup;
		bool		index_it;
		TM_Result	r;

		if (t > 0)
			snapshot = GetLatestSnapshot();
		if (!store_direct_fetch(ds, snapshot, seg, 0) && !store_direct_find(ds, snapshot, seg))
			return false;
		v = store_direct_whole(ds, seg, false);
		ExecClearTuple(ds->slot);
		if (v == NULL)
			return false;
		filter_open(&cf, v);	/* cf.buf is v's, changed in place or reallocated */
		if (!store_apply_segment(&cf, vh, items, k, i, nremove, saturate, changed) ||
			cf.len > STORE_CHUNK_BYTES)
		{
			pfree(cf.buf - VARHDRSZ);
			*i = i0;
			*changed = changed0;
			return false;
		}
		/* the filter is a varlena (cf.buf - VARHDRSZ): the row's bytes as they are */
		SET_VARSIZE(cf.buf - VARHDRSZ, VARHDRSZ + cf.len);
		tup = store_direct_chunk_row(ds, 0, (const bytea *) (cf.buf - VARHDRSZ));
		pfree(cf.buf - VARHDRSZ);
		r = store_direct_update0(ds, tup, &index_it);
		if (r == TM_Ok)
		{
			store_direct_indexed(ds, tup, 0, index_it);
			heap_freetuple(tup);
			return true;
		}
		heap_freetuple(tup);
		*i = i0;
		*changed = changed0;
		if (r != TM_Updated && r != TM_Deleted)
			elog(ERROR, "updating segment %d of cuckoo store \"%s\" failed: %d",
				 seg, ds->name, (int) r);
	}
	return false;
}

/* store_chunk_diff's drop: the chunks of ds->segment from `from` go. */
static void
store_direct_drop_chunks(void *arg, int32 from)
{
	DirectStore *ds = arg;

	for (int32 c = from; c < ds->ntids; c++)
		simple_heap_delete(ds->rel, &ds->tids[c]);
}

/*
 * The header row just read into s (with a value family: a store's family,
 * once recorded, never changes), kept in t until a relcache invalidation.
 * Its columns and filter change only when the store is made again
 * (cuckoo_store_create, a restore: a new table, or DDL) or by hand: an
 * UPDATE of the row sends no invalidation, and a commit does not see it
 * until one comes (docs/DESIGN.md, "Living filters").
 */
static void
direct_tids_keep_header(DirectTids *t, const Store *s)
{
	Size		len = VARSIZE(s->header);

	if (t->hv != NULL)
		pfree(t->hv);
	t->hv = NULL;
	t->hv = MemoryContextAlloc(direct_tids_cxt, len);
	memcpy(t->hv, s->header, len);
	cf_open(&t->hcf, t->hv->bytes, CUCKOO_BYTES_LEN(t->hv));
	t->fpr = s->fpr;
	t->capacity = s->capacity;
	t->nsegments = s->nsegments;
	t->hdr_ok = true;
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
	DirectStore ds;
	Snapshot	snapshot;
	Store		s;
	StoreItem  *items;
	CuckooFilter *hv;
	DirectTids *t;
	uint64		inval0;
	bool		cached;
	int			k,
				nremove;

	/*
	 * Too many changes, or a transaction made read-only since its writes
	 * (SET TRANSACTION READ ONLY): the SQL path reports it, as the store's
	 * statements would.
	 */
	if (n > PG_INT32_MAX / 2 || XactReadOnly)
		return false;
	/* role's SELECT, UPDATE and schema USAGE: checked by the caller (cuckoo_store.h) */

	/*
	 * The store's kind, children and shape, or the verdict on them kept
	 * since no relcache invalidation came (store_direct_forget): each of
	 * them changes only by DDL, which sends one.
	 */
	t = direct_tids_find(relid);
	cached = t != NULL && t->shape_ok;
	if (!cached && get_rel_relkind(relid) != RELKIND_RELATION)
		return false;
	memset(&ds, 0, sizeof(ds));
	ds.rel = table_open(relid, RowExclusiveLock);
	/*
	 * The primary key's lock is taken now, as its open did: taken only when
	 * it is first used, after segment rows were written, it could close a
	 * cycle with a session that holds the index alone and waits for one of
	 * those rows (ALTER INDEX ... SET TABLESPACE, then SELECT ... FOR
	 * UPDATE).  Taking it may process invalidations: the verdict is looked
	 * at after it.
	 */
	if (cached)
		LockRelationOid(t->index_oid, RowExclusiveLock);
	inval0 = direct_inval_count;
	if (cached && t->shape_ok)
	{
		store_direct_set_atts(&ds, t->att);
		ds.index_oid = t->index_oid;
	}
	else
	{
		/* (forgotten while the table was opened: its relkind is checked below) */
		store_check_no_children(relid);
		ds.index = store_direct_index(ds.rel, &ds);
		if (ds.index == NULL)
		{
			table_close(ds.rel, RowExclusiveLock);
			return false;
		}
		if (t != NULL && direct_inval_count == inval0)
		{
			t->att[0] = ds.a_segment;
			t->att[1] = ds.a_chunk;
			t->att[2] = ds.a_bytes;
			t->att[3] = ds.a_fpr;
			t->att[4] = ds.a_capacity;
			t->att[5] = ds.a_segments;
			t->index_oid = ds.index_oid;
			t->shape_ok = true;
		}
	}
	memset(&s, 0, sizeof(s));
	s.relid = relid;
	s.chunked = true;
	s.name = ds.name = RelationGetRelationName(ds.rel);
	/* a published store without a replica identity fails as its UPDATE would */
	CheckCmdReplicaIdentity(ds.rel, CMD_UPDATE);
	CheckCmdReplicaIdentity(ds.rel, CMD_DELETE);
	CommandCounterIncrement();
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	ds.slot = table_slot_create(ds.rel, NULL);
	ds.nblocks = InvalidBlockNumber;
	ds.tc = t;
	hv = NULL;
	if (t != NULL && t->hdr_ok)
	{
		/* the header as this backend last read it (store_direct_forget) */
		s.fpr = t->fpr;
		s.capacity = t->capacity;
		s.nsegments = t->nsegments;
		s.header = t->hv;
		s.hcf = t->hcf;
	}
	else if (store_direct_fetch(&ds, snapshot, STORE_HEADER, 0))
	{
		store_direct_header_cols(&ds, &s);
		hv = store_direct_whole(&ds, STORE_HEADER, false);
		ExecClearTuple(ds.slot);
	}
	if (hv == NULL && s.header == NULL)
	{
		ItemPointerData root;

		hv = store_direct_read(&ds, STORE_HEADER, snapshot, &s, &root);
		if (hv == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" is not a cuckoo store: it has no header row (segment -1)",
							s.name)));
		if (ds.tc == NULL)
			ds.tc = direct_tids_for(relid, s.nsegments);
		direct_tid_remember(ds.tc, STORE_HEADER, 0, &root);
	}
	if (hv != NULL)
	{
		s.header = hv;
		filter_open(&s.hcf, s.header);
		if (cf_kind_of(&s.hcf) != CF_KIND_ANY && ds.tc != NULL && !ds.tc->hdr_ok &&
			direct_inval_count == inval0)
			direct_tids_keep_header(ds.tc, &s);
	}
	if (cf_kind_of(&s.hcf) == CF_KIND_ANY)
	{
		/* the first value's family is recorded under the header's lock: SQL */
		if (ds.fetch != NULL)
			table_index_fetch_end(ds.fetch);
		ExecDropSingleTupleTableSlot(ds.slot);
		if (ds.slot2 != NULL)
			ExecDropSingleTupleTableSlot(ds.slot2);
		UnregisterSnapshot(snapshot);
		if (ds.index != NULL)
			index_close(ds.index, RowExclusiveLock);
		table_close(ds.rel, RowExclusiveLock);
		return false;
	}
	if (!filter_kind_matches(&s.hcf, vh))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo store \"%s\" holds %s values, not %s", s.name,
						cf_kind_name(cf_kind_of(&s.hcf)), format_type_be(vh->typid)),
				 errhint("Use a store with values of the type it was first given.")));
	items = store_apply_items(changes, n, s.nsegments, &k, &nremove);
	*changed = 0;
	for (int i = 0; i < k;)
	{
		int32		seg = items[i].segment;
		CuckooFilter *v = NULL;
		char	   *held;
		Size		held_len;
		cf_filter	cf;

		CHECK_FOR_INTERRUPTS();
		if (store_direct_unlocked(&ds, snapshot, vh, items, k, &i, nremove, saturate, changed))
			continue;
		if (!store_direct_lock(&ds, snapshot, seg))
			store_missing_segment(&s, seg);
		/* one chunk: the version locked; more: read after the lock */
		v = store_direct_whole(&ds, seg, true);
		ExecClearTuple(ds.slot);
		if (v == NULL && (v = store_direct_read(&ds, seg, NULL, NULL, NULL)) == NULL)
			store_missing_segment(&s, seg);
		held_len = CUCKOO_BYTES_LEN(v);
		held = palloc(Max(held_len, 1));
		memcpy(held, v->bytes, held_len);
		filter_open(&cf, v);
		if (store_apply_segment(&cf, vh, items, k, &i, nremove, saturate, changed))
			store_chunk_diff(held, held_len, (const char *) cf.buf, cf.len,
							 store_direct_write_chunk, store_direct_drop_chunks, &ds);
		pfree(held);
		pfree(cf.buf - VARHDRSZ);
	}
	CommandCounterIncrement();
	pfree(items);
	if (ds.fetch != NULL)
		table_index_fetch_end(ds.fetch);
	ExecDropSingleTupleTableSlot(ds.slot);
	if (ds.slot2 != NULL)
		ExecDropSingleTupleTableSlot(ds.slot2);
	UnregisterSnapshot(snapshot);
	if (ds.index != NULL)
		index_close(ds.index, RowExclusiveLock);
	table_close(ds.rel, RowExclusiveLock);
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
