/*
 * cuckoo_track_trigger.c
 *     The statement trigger of a tracked table or partition,
 *     cuckoo_track_trigger: hashes the transition tables' values and
 *     queues them for the stores of the table's trackings (and its
 *     ancestors').
 */
#include "cuckoo.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "optimizer/cost.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "cf_store.h"
#include "cuckoo_track_int.h"

/* ------------------------------------------------------------------------
 * The trigger
 * ------------------------------------------------------------------------
 */

/* Hashes column att of every tuple of a transition table into l. */
static void
track_read_transition(Tuplestorestate *ts, TupleTableSlot *slot, AttrNumber att,
					  ValueHasher *vh, bool remove, ChangeList *l)
{
	if (ts == NULL)
		return;
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, att, &isnull);

		if (!isnull)
			changes_push(l, value_hash(vh, d), remove);
		CHECK_FOR_INTERRUPTS();
	}
	ExecClearTuple(slot);
}

/*
 * The statement that reads the trackings of a table and of its ancestors
 * (a partition is followed through its root partitioned table), prepared
 * once per backend (again if the tracking table's name changes: ALTER
 * EXTENSION SET SCHEMA).
 */
SPIPlanPtr
track_lookup_plan(Oid tt)
{
	static SPIPlanPtr plan = NULL;
	static char *plan_for = NULL;
	char	   *name = rel_qualname(tt);
	Oid			type = OIDARRAYOID;

	if (plan != NULL && strcmp(plan_for, name) == 0)
		return plan;
	if (plan != NULL)
	{
		SPI_freeplan(plan);
		plan = NULL;
		pfree(plan_for);
	}
	/* a generic plan: a custom one per call would be planned at every statement */
	plan = SPI_prepare_cursor(psprintf("SELECT store::pg_catalog.oid, col, tab::pg_catalog.oid FROM %s "
									   "WHERE tab::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1) "
									   "ORDER BY 1, 2", name),
							  1, &type, CURSOR_OPT_GENERIC_PLAN);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	plan_for = MemoryContextStrdup(TopMemoryContext, name);
	return plan;
}

/* tab and, if it is a partition, its ancestors: an oid[] */
Datum
track_self_and_ancestors(Oid tab, bool ispartition)
{
	List	   *anc = ispartition ? get_partition_ancestors(tab) : NIL;
	Datum	   *oids = palloc(sizeof(Datum) * (list_length(anc) + 1));
	int			n = 0;
	ListCell   *lc;

	oids[n++] = ObjectIdGetDatum(tab);
	foreach(lc, anc)
		oids[n++] = ObjectIdGetDatum(lfirst_oid(lc));
	return PointerGetDatum(construct_array(oids, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
}

/* ------------------------------------------------------------------------
 * The trackings of a table, cached per backend
 * ------------------------------------------------------------------------
 *
 * A statement's trigger needs the trackings of its table and of the
 * table's ancestors: read by SQL, they cost more than the rest of a
 * single-row statement's tracking.  This backend keeps what it read, per
 * (table, tracking table), until any relcache invalidation arrives: every
 * change of the tracking table (cuckoo_store_track, _untrack, the DDL
 * handler) sends one for it (track_cache_invalidate), as do DDL on a
 * tracked table or store, ALTER/DROP EXTENSION and a lost message queue.
 * The entries hold no rights: the roles and privileges are checked at
 * every statement, as before.  A list read for the cache is read under the
 * newest snapshot, not the statement's: a REPEATABLE READ transaction
 * older than a tracking then follows it (the tracking's own lock on the
 * table, SHARE ROW EXCLUSIVE, made it wait until the tracking committed),
 * and the list cached is the one every later transaction sees.
 */
typedef struct TrackCacheEntry
{
	Oid			tab;
	Oid			tt;
	int			n;
	Oid		   *stores;
	Oid		   *tracked;
	NameData   *cols;
	struct TrackCacheEntry *next;
} TrackCacheEntry;

#define TRACK_CACHE_MAX	256

static MemoryContext track_cache_cxt = NULL;
static TrackCacheEntry *track_cache = NULL;
static int	track_cache_n = 0;
static uint64 track_cache_generation = 0;

/* the tracking table of the trigger function track_tt_fn (InvalidOid: none yet) */
static Oid	track_tt_fn = InvalidOid;
static Oid	track_tt = InvalidOid;

/* Any relcache invalidation (cuckoo_module.c's callback): the cache is emptied. */
void
track_cache_forget(Oid relid)
{
	track_tt_fn = InvalidOid;
	track_cache = NULL;
	track_cache_n = 0;
	track_cache_generation++;
	if (track_cache_cxt != NULL)
		MemoryContextReset(track_cache_cxt);
}

/*
 * Drops every backend's cached trackings when this transaction commits
 * (and this backend's at its next command, or if it rolls back): called by
 * whatever changes the tracking table tt.
 */
void
track_cache_invalidate(Oid tt)
{
	CacheInvalidateRelcacheByRelid(tt);
}

/* The cache's memory, on first use. */
static void
track_cache_setup(void)
{
	if (track_cache_cxt != NULL)
		return;
	track_cache_cxt = AllocSetContextCreate(TopMemoryContext, "cuckoo trackings",
											ALLOCSET_SMALL_SIZES);
}

/*
 * The trackings of tab (and of its ancestors), read by SQL into *stores,
 * *tracked and *cols (allocated in cxt) under the newest snapshot; returns
 * their number.  Called inside an SPI connection.
 */
static int
track_lookup(Oid tab, bool ispartition, Oid tt, Oid **stores, Oid **tracked, NameData **cols,
			 MemoryContext cxt)
{
	Datum		arg = track_self_and_ancestors(tab, ispartition);
	int			rc;
	int			n;
	bool		own;

	/*
	 * With its owner's rights when the writer has no USAGE on its schema
	 * (the statement is schema-qualified throughout and the table readable
	 * by everyone, so the writer's own rights do otherwise)
	 */
#if PG_VERSION_NUM >= 160000
	own = object_aclcheck(NamespaceRelationId, get_rel_namespace(tt), GetUserId(),
						  ACL_USAGE) == ACLCHECK_OK;
#else
	own = pg_namespace_aclcheck(get_rel_namespace(tt), GetUserId(), ACL_USAGE) == ACLCHECK_OK;
#endif
	if (own)
		rc = SPI_execute_snapshot(track_lookup_plan(tt), &arg, NULL, GetLatestSnapshot(),
								  InvalidSnapshot, true, false, 0);
	else
	{
		Become		b;

		track_become(&b, rel_owner(tt));
		rc = SPI_execute_snapshot(track_lookup_plan(tt), &arg, NULL, GetLatestSnapshot(),
								  InvalidSnapshot, true, false, 0);
		track_unbecome(&b);
	}
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	n = (int) SPI_processed;
	*stores = MemoryContextAlloc(cxt, sizeof(Oid) * Max(n, 1));
	*tracked = MemoryContextAlloc(cxt, sizeof(Oid) * Max(n, 1));
	*cols = MemoryContextAlloc(cxt, sizeof(NameData) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*stores)[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													  SPI_tuptable->tupdesc, 1, &isnull));
		namestrcpy(&(*cols)[i], NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[i],
																	SPI_tuptable->tupdesc, 2,
																	&isnull))));
		(*tracked)[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													   SPI_tuptable->tupdesc, 3, &isnull));
	}
	return n;
}

/*
 * The trackings of tab, from the cache or read (and cached): copies in the
 * current context, so that an invalidation while they are used (any lock
 * taken) frees nothing they point to.  A read connects to SPI for itself
 * unless the caller is connected (spi): a statement whose trackings are
 * cached runs no SPI at all.
 */
static int
track_trackings(Oid tab, bool ispartition, Oid tt, Oid **stores, Oid **tracked, NameData **cols,
				bool spi)
{
	TrackCacheEntry *e;
	uint64		generation;
	int			n;
	MemoryContext old;

	track_cache_setup();
	for (e = track_cache; e != NULL; e = e->next)
		if (e->tab == tab && e->tt == tt)
		{
			*stores = palloc(sizeof(Oid) * Max(e->n, 1));
			*tracked = palloc(sizeof(Oid) * Max(e->n, 1));
			*cols = palloc(sizeof(NameData) * Max(e->n, 1));
			memcpy(*stores, e->stores, sizeof(Oid) * e->n);
			memcpy(*tracked, e->tracked, sizeof(Oid) * e->n);
			memcpy(*cols, e->cols, sizeof(NameData) * e->n);
			return e->n;
		}
	generation = track_cache_generation;
	if (spi)
		n = track_lookup(tab, ispartition, tt, stores, tracked, cols, CurrentMemoryContext);
	else
	{
		MemoryContext caller = CurrentMemoryContext;

		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		n = track_lookup(tab, ispartition, tt, stores, tracked, cols, caller);
		SPI_finish();
	}
	/* an invalidation during the read: its list is this statement's only */
	if (generation != track_cache_generation)
		return n;
	if (track_cache_n >= TRACK_CACHE_MAX)
		track_cache_forget(InvalidOid);
	old = MemoryContextSwitchTo(track_cache_cxt);
	e = palloc(sizeof(TrackCacheEntry));
	e->tab = tab;
	e->tt = tt;
	e->n = n;
	e->stores = palloc(sizeof(Oid) * Max(n, 1));
	e->tracked = palloc(sizeof(Oid) * Max(n, 1));
	e->cols = palloc(sizeof(NameData) * Max(n, 1));
	memcpy(e->stores, *stores, sizeof(Oid) * n);
	memcpy(e->tracked, *tracked, sizeof(Oid) * n);
	memcpy(e->cols, *cols, sizeof(NameData) * n);
	MemoryContextSwitchTo(old);
	e->next = track_cache;
	track_cache = e;
	track_cache_n++;
	return n;
}

/*
 * cuckoo_track_trigger(): the statement trigger of a tracked table and of
 * the partitions of a tracked partitioned table.  For each tracking of the
 * table or of its root, the values of the transition tables (for TRUNCATE,
 * of the table, read with the rights of its owner) are applied to the store
 * with the rights of the tracked table's owner.
 */
PG_FUNCTION_INFO_V1(cuckoo_track_trigger);
Datum
cuckoo_track_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			tab;
	Oid			tt;
	Oid			owner;
	TupleDesc	desc;
	bool		truncate;
	int			ntrack;
	Oid		   *stores;
	Oid		   *tracked;
	NameData   *cols;
	TupleTableSlot *slot = NULL;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("cuckoo_track_trigger must be called as a statement trigger")));
	truncate = TRIGGER_FIRED_BY_TRUNCATE(td->tg_event);
	tab = RelationGetRelid(td->tg_relation);
	desc = RelationGetDescr(td->tg_relation);
	/*
	 * A statement that changed no row costs nothing more; nor does TRUNCATE
	 * of a partitioned table, which holds no rows: TRUNCATE fires the
	 * truncate triggers of each of its partitions too.
	 */
	if (truncate ? td->tg_relation->rd_rel->relkind == RELKIND_PARTITIONED_TABLE :
		((td->tg_oldtable == NULL || tuplestore_tuple_count(td->tg_oldtable) == 0) &&
		 (td->tg_newtable == NULL || tuplestore_tuple_count(td->tg_newtable) == 0)))
		return PointerGetDatum(NULL);
	/* the tracking table, cached as the trackings are (moved or renamed: an invalidation) */
	track_cache_setup();
	if (fcinfo->flinfo->fn_oid != track_tt_fn)
	{
		track_tt = track_table(fcinfo);
		track_tt_fn = fcinfo->flinfo->fn_oid;
	}
	tt = track_tt;
	owner = td->tg_relation->rd_rel->relowner;

	/* SQL: TRUNCATE's read of the table (and a trackings read not cached) */
	if (truncate && SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ntrack = track_trackings(tab, td->tg_relation->rd_rel->relispartition, tt,
							 &stores, &tracked, &cols, truncate);

	/*
	 * No tracking: the trackings were lost (cuckoo_store_untrack and the
	 * sql_drop trigger take the triggers off with a table's last one), as
	 * when a restore could not load them.  The changes would be followed
	 * by no store, maybe a store that should hold them: refused.
	 */
	if (ntrack == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has the cuckoo tracking trigger \"%s\", but no cuckoo store tracks it%s",
						RelationGetRelationName(td->tg_relation), td->tg_trigger->tgname,
						td->tg_relation->rd_rel->relispartition ? " or its partitioned ancestors" : ""),
				 errdetail("Its changes would be followed by no store: the trackings (rows of cuckoo_store_tracking) were lost, as when a restore could not load them."),
				 errhint("Track it again (cuckoo_store_track, then cuckoo_store_rebuild of the store), or drop its triggers cuckoo_track_* if it is tracked no more.")));
	if (!truncate)
		slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);

	for (int i = 0; i < ntrack; i++)
	{
		AttrNumber	att = track_column(tab, NameStr(cols[i]), stores[i]);
		Form_pg_attribute a = TupleDescAttr(desc, att - 1);
		ValueHasher vh;
		ChangeList	l = {0};
		Become		b;

		value_hasher_init(&vh, a->atttypid, a->attcollation, CurrentMemoryContext);
		if (truncate)
		{
			track_become(&b, owner);
			track_read_table(tab, NameStr(cols[i]), &vh, true, &l, true);
			track_unbecome(&b);
		}
		else
		{
			track_read_transition(td->tg_oldtable, slot, att, &vh, true, &l);
			track_read_transition(td->tg_newtable, slot, att, &vh, false, &l);
			if (td->tg_oldtable != NULL && td->tg_newtable != NULL)
				changes_cancel(&l);
		}
		if (l.n > 0)
			track_queue(fcinfo, stores[i], tracked[i] == tab ? owner : rel_owner(tracked[i]),
						a->atttypid, a->attcollation, &l);
		if (l.c != NULL)
			pfree(l.c);
	}
	if (slot != NULL)
		ExecDropSingleTupleTableSlot(slot);
	if (truncate)
		SPI_finish();
	return PointerGetDatum(NULL);
}
