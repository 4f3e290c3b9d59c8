/*
 * cuckoo_track.c
 *     Living filters (extension 1.3): a stored filter kept in step with a
 *     table's column, in the same transaction as every change of its rows.
 *     cuckoo_store_track, cuckoo_store_untrack, cuckoo_store_verify, the
 *     trigger function cuckoo_track_trigger and the event trigger function
 *     cuckoo_track_drop.
 *
 * The design is in docs/DESIGN.md ("Living filters").  A tracking is a row
 * (store, tab, col) of the extension's table cuckoo_store_tracking; a
 * tracked table has four statement triggers that call cuckoo_track_trigger,
 * which reads the trackings of its table and queues the transition tables'
 * values for their stores; the commit applies them (cuckoo_store_apply),
 * with the rights of the table's owner ("Pending changes" below).  A tracked partitioned table's partitions, every
 * level, have four more (cuckoo_track_part_*), whose calls apply to the
 * trackings of their ancestors; the event triggers keep them on the
 * partitions created, attached and detached later.
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
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "cf_store.h"
#include "cuckoo_store.h"

#define TRACK_TABLE		"cuckoo_store_tracking"

/* Rows read from a table per fetch (bulk load, TRUNCATE). */
#define TRACK_FETCH		10000

/* The four triggers of a tracked table: name, timing and event, transition tables. */
static const char *const track_triggers[][2] = {
	{"cuckoo_track_insert", "AFTER INSERT ON %s REFERENCING NEW TABLE AS cuckoo_new"},
	{"cuckoo_track_update", "AFTER UPDATE ON %s REFERENCING OLD TABLE AS cuckoo_old NEW TABLE AS cuckoo_new"},
	{"cuckoo_track_delete", "AFTER DELETE ON %s REFERENCING OLD TABLE AS cuckoo_old"},
	{"cuckoo_track_truncate", "BEFORE TRUNCATE ON %s"},
};

/*
 * The same four on every partition (every level) of a tracked partitioned
 * table, under names of their own: a statement naming a partition fires the
 * partition's statement triggers, not its parent's.  The names tell the
 * event triggers that a table belongs to a tracked tree.
 */
static const char *const part_triggers[][2] = {
	{"cuckoo_track_part_insert", "AFTER INSERT ON %s REFERENCING NEW TABLE AS cuckoo_new"},
	{"cuckoo_track_part_update", "AFTER UPDATE ON %s REFERENCING OLD TABLE AS cuckoo_old NEW TABLE AS cuckoo_new"},
	{"cuckoo_track_part_delete", "AFTER DELETE ON %s REFERENCING OLD TABLE AS cuckoo_old"},
	{"cuckoo_track_part_truncate", "BEFORE TRUNCATE ON %s"},
};

#define PART_TRIGGER_PREFIX "cuckoo_track_part_"

/* A list of changes being collected. */
typedef struct ChangeList
{
	StoreChange *c;
	int64		n;
	int64		cap;
} ChangeList;

static void
changes_push(ChangeList *l, uint64 h, bool remove)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap == 0 ? 1024 : l->cap * 2;
		if (l->c == NULL)
			l->c = palloc_extended(sizeof(StoreChange) * (Size) l->cap, MCXT_ALLOC_HUGE);
		else
			l->c = repalloc_huge(l->c, sizeof(StoreChange) * (Size) l->cap);
	}
	l->c[l->n].h = h;
	l->c[l->n].remove = remove;
	l->n++;
}

static int
change_cmp(const void *a, const void *b)
{
	const StoreChange *x = a;
	const StoreChange *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (int) x->remove - (int) y->remove;
}

/*
 * Cancels each remove of a hash against an add of the same hash (an update
 * that leaves the value as it was changes nothing); keeps the rest.
 */
static void
changes_cancel(ChangeList *l)
{
	int64		out = 0;
	bool		adds = false,
				removes = false;

	if (l->n < 2)
		return;
	/* only adds, or only removes (a bulk load, a bulk delete): nothing cancels */
	for (int64 i = 0; i < l->n && !(adds && removes); i++)
	{
		if (l->c[i].remove)
			removes = true;
		else
			adds = true;
	}
	if (!(adds && removes))
		return;
	qsort(l->c, l->n, sizeof(StoreChange), change_cmp);
	for (int64 i = 0; i < l->n;)
	{
		int64		j = i,
					adds = 0,
					removes = 0;
		uint64		h = l->c[i].h;

		while (j < l->n && l->c[j].h == h)
		{
			if (l->c[j].remove)
				removes++;
			else
				adds++;
			j++;
		}
		for (; adds > removes; adds--)
		{
			l->c[out].h = h;
			l->c[out++].remove = false;
		}
		for (; removes > adds; removes--)
		{
			l->c[out].h = h;
			l->c[out++].remove = true;
		}
		i = j;
	}
	l->n = out;
}

/* ------------------------------------------------------------------------
 * Names, owners, the tracking table
 * ------------------------------------------------------------------------
 */

static Oid
ext_namespace(FunctionCallInfo fcinfo)
{
	return get_func_namespace(fcinfo->flinfo->fn_oid);
}

static char *
rel_qualname(Oid relid)
{
	char	   *nsp = get_namespace_name(get_rel_namespace(relid));
	char	   *rel = get_rel_name(relid);

	if (nsp == NULL || rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	return quote_qualified_identifier(nsp, rel);
}

static Oid
rel_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/* The tracking table of the extension whose function fcinfo calls. */
static Oid
track_table(FunctionCallInfo fcinfo)
{
	Oid			relid = get_relname_relid(TRACK_TABLE, ext_namespace(fcinfo));

	if (!OidIsValid(relid))
		elog(ERROR, "table %s not found in the schema of function %u",
			 TRACK_TABLE, fcinfo->flinfo->fn_oid);
	return relid;
}

/*
 * The user and security context saved by track_become, restored by
 * track_unbecome.
 */
typedef struct Become
{
	Oid			user;
	int			sec;
	int			guc_level;
} Become;

/*
 * Becomes role, as PostgreSQL's foreign-key triggers do, with search_path
 * pg_catalog, pg_temp and row_security off.  An error ends the
 * (sub)transaction, which restores all three.
 */
static void
track_become(Become *b, Oid role)
{
	GetUserIdAndSecContext(&b->user, &b->sec);
	SetUserIdAndSecContext(role, b->sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	b->guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
	/* a read of a table that row security would filter fails, never skips rows */
	(void) set_config_option("row_security", "off",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
}

static void
track_unbecome(Become *b)
{
	AtEOXact_GUC(false, b->guc_level);
	SetUserIdAndSecContext(b->user, b->sec);
}

static void
track_exec(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "\"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

/* Runs a statement on the tracking table with its owner's rights (in SPI). */
static void
track_table_exec(Oid tt, const char *sql, int nargs, Oid *types, Datum *values,
				 int expect)
{
	Become		b;

	track_become(&b, rel_owner(tt));
	track_exec(sql, nargs, types, values, expect);
	track_unbecome(&b);
}

/* Raises 42501 unless the current user owns (is a member of the owner of) tab. */
static void
track_check_owner(Oid tab)
{
	if (!has_privs_of_role(GetUserId(), rel_owner(tab)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to track or untrack it",
						get_rel_name(tab))));
}

/* The attribute number of tab's column col, or an error naming both. */
static AttrNumber
track_column(Oid tab, const char *col, Oid store)
{
	AttrNumber	att = get_attnum(tab, col);

	if (att == InvalidAttrNumber || att < 0)
	{
		if (OidIsValid(store))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of table \"%s\", tracked by cuckoo store \"%s\", does not exist",
							col, get_rel_name(tab), get_rel_name(store)),
					 errhint("If it was renamed, call cuckoo_store_untrack('%s', '%s', '%s') and track the new name.",
							 get_rel_name(store), get_rel_name(tab), col)));
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table \"%s\" does not exist",
						col, get_rel_name(tab))));
	}
	return att;
}

/*
 * Reads column col of every row of tab (as the current user) into l: of tab
 * alone if only, else of tab and its partitions.
 */
static void
track_read_table(Oid tab, const char *col, ValueHasher *vh, bool remove,
				 ChangeList *l, bool only)
{
	SPIPlanPtr	plan;
	Portal		portal;

	plan = SPI_prepare(psprintf("SELECT %s FROM %s%s WHERE %s IS NOT NULL",
								quote_identifier(col), only ? "ONLY " : "",
								rel_qualname(tab), quote_identifier(col)), 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, false);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, TRACK_FETCH);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
										  1, &isnull);

			if (!isnull)
				changes_push(l, value_hash(vh, d), remove);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_freeplan(plan);
}

/* The qualified name of the trigger function. */
static char *
track_trigger_fn(FunctionCallInfo fcinfo)
{
	return quote_qualified_identifier(get_namespace_name(ext_namespace(fcinfo)),
									  "cuckoo_track_trigger");
}

/* The OID of the trigger function, InvalidOid if it is gone. */
static Oid
track_trigger_fn_oid(FunctionCallInfo fcinfo)
{
	return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
						   CStringGetDatum("cuckoo_track_trigger"),
						   PointerGetDatum(buildoidvector(NULL, 0)),
						   ObjectIdGetDatum(ext_namespace(fcinfo)));
}

/* How many of the triggers set of tab call the trigger function (in SPI). */
static int64
track_count_triggers(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2])
{
	Oid			types[3] = {OIDOID, OIDOID, TEXTARRAYOID};
	Datum		values[3];
	Datum		names[lengthof(track_triggers)];
	bool		isnull;
	int			rc;

	for (int i = 0; i < lengthof(track_triggers); i++)
		names[i] = CStringGetTextDatum(set[i][0]);
	values[0] = ObjectIdGetDatum(tab);
	/* by OID: a name lookup would need USAGE on the extension's schema */
	values[1] = ObjectIdGetDatum(track_trigger_fn_oid(fcinfo));
	values[2] = PointerGetDatum(construct_array(names, lengthof(track_triggers), TEXTOID,
												-1, false, TYPALIGN_INT));
	rc = SPI_execute_with_args("SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger "
							   "WHERE tgrelid OPERATOR(pg_catalog.=) $1 "
							   "AND tgfoid OPERATOR(pg_catalog.=) $2 "
							   "AND tgname::pg_catalog.text OPERATOR(pg_catalog.=) ANY ($3)",
							   3, types, values, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading pg_trigger failed: %s", SPI_result_code_string(rc));
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * Raises 0A000 if tab cannot be tracked for its place in a tree: a
 * partition (a statement on its parent would not fire its statement
 * triggers: the root partitioned table is tracked, with all its
 * partitions), or an ordinary table with inheritance parents or children (a
 * statement on a parent does not fire a child's statement triggers, and a
 * parent's transition tables hold its children's rows).
 */
static void
track_check_no_inheritance(Oid tab)
{
	if (get_rel_relispartition(tab))
	{
		List	   *anc = get_partition_ancestors(tab);

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot track partition \"%s\" on its own", get_rel_name(tab)),
				 errdetail("A statement on a partitioned table does not fire its partitions' statement triggers."),
				 errhint("Track its root partitioned table \"%s\": that follows every partition.",
						 get_rel_name(llast_oid(anc)))));
	}
	if (get_rel_relkind(tab) != RELKIND_PARTITIONED_TABLE &&
		(has_subclass(tab) || has_superclass(tab)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot track table \"%s\": it is in an inheritance tree",
						get_rel_name(tab)),
				 errdetail("Tracking inheritance trees is not supported.")));
}

/* Drops those of the triggers set of tab that exist (in SPI). */
static void
track_drop_set(Oid tab, const char *const set[][2])
{
	char	   *tabname = rel_qualname(tab);

	for (int i = 0; i < lengthof(track_triggers); i++)
	{
		Oid			types[2] = {OIDOID, TEXTOID};
		Datum		values[2];
		int			rc;

		values[0] = ObjectIdGetDatum(tab);
		values[1] = CStringGetTextDatum(set[i][0]);
		rc = SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_trigger "
								   "WHERE tgrelid OPERATOR(pg_catalog.=) $1 "
								   "AND tgname OPERATOR(pg_catalog.=) $2::pg_catalog.name",
								   2, types, values, NULL, false, 1);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "reading pg_trigger failed: %s", SPI_result_code_string(rc));
		if (SPI_processed > 0)
		{
			Become		b;

			/* as its owner: the caller may own only the store, or the parent */
			track_become(&b, rel_owner(tab));
			track_exec(psprintf("DROP TRIGGER %s ON %s", set[i][0], tabname),
					   0, NULL, NULL, SPI_OK_UTILITY);
			track_unbecome(&b);
		}
	}
}

/* Drops the triggers of tab and, if it is partitioned, of its partitions (in SPI). */
static void
track_drop_triggers(Oid tab)
{
	List	   *tree = find_all_inheritors(tab, ShareRowExclusiveLock, NULL);
	ListCell   *lc;

	foreach(lc, tree)
	{
		Oid			rel = lfirst_oid(lc);

		if (rel == tab)
			track_drop_set(rel, track_triggers);
		track_drop_set(rel, part_triggers);
	}
}

/*
 * Gives tab the four triggers of set unless it has them all (none yet, or
 * some dropped by hand: all four again); returns whether it created them.
 */
static bool
track_create_triggers(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2])
{
	char	   *fn;
	char	   *tabname;
	char		relkind = get_rel_relkind(tab);
	Become		b;

	if (track_count_triggers(fcinfo, tab, set) == lengthof(track_triggers))
		return false;
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot track partition \"%s\": it is not an ordinary or partitioned table",
						get_rel_name(tab)),
				 errdetail("Its statement triggers could not have transition tables.")));
	fn = track_trigger_fn(fcinfo);
	tabname = rel_qualname(tab);
	track_drop_set(tab, set);
	/* as its owner: the caller may own only its parent */
	track_become(&b, rel_owner(tab));
	for (int i = 0; i < lengthof(track_triggers); i++)
		track_exec(psprintf("CREATE TRIGGER %s %s FOR EACH STATEMENT EXECUTE PROCEDURE %s()",
							set[i][0], psprintf(set[i][1], tabname), fn),
				   0, NULL, NULL, SPI_OK_UTILITY);
	track_unbecome(&b);
	return true;
}

/* ------------------------------------------------------------------------
 * Pending changes: collected by the triggers, applied at commit
 * ------------------------------------------------------------------------
 *
 * The triggers do not change a store: they add the changes to the
 * transaction's pending changes of the store, and a transaction callback
 * applies them all at pre-commit (and before PREPARE TRANSACTION), store by
 * store in OID order, each store's segments in ascending order, each
 * locked once: two transactions never wait for each other's segments in
 * opposite orders (DESIGN.md, "Living filters", Concurrency).  A segment
 * is applied in its newest version (cuckoo_store_apply, latest), so under
 * REPEATABLE READ a segment changed since the snapshot is no 40001.  A
 * (sub)transaction that aborts drops its changes; probes of the store in
 * this transaction see them (cuckoo_track_pending, for cuckoo_store.c).
 */

/* One pending change: a hash, added or removed, by subtransaction level. */
typedef struct PendingChange
{
	uint64		h;
	int32		level;			/* GetCurrentTransactionNestLevel() */
	bool		remove;
} PendingChange;

typedef struct PendingStore
{
	Oid			store;
	Oid			role;			/* applied with its rights: a tracked table's owner */
	Oid			fn_oid;			/* a function of the extension (its schema) */
	Oid			checked_type;	/* store checked for values of this type */
	ValueHasher vh;
	PendingChange *c;
	int64		n;
	int64		cap;
	/* the net changes by segment, for probes (while net_valid) */
	bool		net_valid;
	uint32		net_nsegments;
	StoreChange *net;
	int32	   *net_seg;
	int64		net_n;
	struct PendingStore *next;
} PendingStore;

/*
 * The (store, value type) pairs this backend has checked (the store's shape
 * and value family), so that a transaction's first change of a store costs
 * no read of its header: a store's family, once recorded, does not change,
 * and the commit checks the store again when it applies.
 */
#define CHECKED_SLOTS	16
static struct
{
	Oid			store;
	Oid			typid;
}			checked[CHECKED_SLOTS];
static int	checked_next = 0;

static bool
track_checked(Oid store, Oid typid)
{
	for (int i = 0; i < CHECKED_SLOTS; i++)
		if (checked[i].store == store && checked[i].typid == typid)
			return true;
	return false;
}

/* The transaction's pending stores, in TopTransactionContext. */
static PendingStore *pending = NULL;
static bool pending_callbacks = false;

static void pending_xact_callback(XactEvent event, void *arg);
static void pending_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
									 SubTransactionId parentSubid, void *arg);

/*
 * Queues the changes l (of values of type typid, collation collid) for
 * store, to be applied with role's rights at commit.  The store is checked
 * now (its shape, its value family, role's privileges on it), so that a
 * store that cannot take the changes fails the statement, not the commit;
 * and it is locked (ROW EXCLUSIVE, as an UPDATE would), so it cannot be
 * dropped before the commit applies them.
 */
static void
track_queue(FunctionCallInfo fcinfo, Oid store, Oid role, Oid typid, Oid collid,
			const ChangeList *l)
{
	PendingStore *e;
	int32		level = GetCurrentTransactionNestLevel();

	if (!pending_callbacks)
	{
		RegisterXactCallback(pending_xact_callback, NULL);
		RegisterSubXactCallback(pending_subxact_callback, NULL);
		pending_callbacks = true;
	}
	for (e = pending; e != NULL; e = e->next)
		if (e->store == store)
			break;
	if (e == NULL)
	{
		e = MemoryContextAllocZero(TopTransactionContext, sizeof(PendingStore));
		e->store = store;
		e->role = role;
		e->fn_oid = fcinfo->flinfo->fn_oid;
		e->next = pending;
		pending = e;
	}
	if (pg_class_aclcheck(store, role, ACL_SELECT | ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for cuckoo store %s", get_rel_name(store)),
				 errdetail("The owner of a tracked table, role \"%s\", needs SELECT and UPDATE on the store that tracks it.",
						   GetUserNameFromId(role, false))));
	if (e->checked_type != typid)
	{
		if (!track_checked(store, typid))
		{
			ValueHasher vh;
			Become		b;

			value_hasher_init(&vh, typid, collid, CurrentMemoryContext);
			track_become(&b, role);
			(void) cuckoo_store_apply(fcinfo, store, &vh, NULL, 0, true, false);
			track_unbecome(&b);
			checked[checked_next].store = store;
			checked[checked_next].typid = typid;
			checked_next = (checked_next + 1) % CHECKED_SLOTS;
		}
		if (!OidIsValid(e->checked_type))
			value_hasher_init(&e->vh, typid, collid, TopTransactionContext);
		e->checked_type = typid;
	}
	LockRelationOid(store, RowExclusiveLock);
	if (l->n == 0)
		return;

	/*
	 * No parallel worker from here to the end of the transaction: a worker
	 * cannot see changes that are not applied yet, so its probes of the
	 * store would miss them.  Plans made from now on have no Gather, and
	 * those made before get no worker (their leader runs them).
	 */
	if (max_parallel_workers != 0 || max_parallel_workers_per_gather != 0)
	{
		(void) set_config_option("max_parallel_workers_per_gather", "0",
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_LOCAL,
								 true, 0, false);
		(void) set_config_option("max_parallel_workers", "0",
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_LOCAL,
								 true, 0, false);
	}
	if (e->n + l->n > e->cap)
	{
		int64		cap = Max(e->cap * 2, e->n + l->n);

		cap = Max(cap, 64);
		if (e->c == NULL)
			e->c = MemoryContextAllocExtended(TopTransactionContext,
											  sizeof(PendingChange) * (Size) cap,
											  MCXT_ALLOC_HUGE);
		else
			e->c = repalloc_huge(e->c, sizeof(PendingChange) * (Size) cap);
		e->cap = cap;
	}
	for (int64 i = 0; i < l->n; i++)
	{
		e->c[e->n].h = l->c[i].h;
		e->c[e->n].remove = l->c[i].remove;
		e->c[e->n].level = level;
		e->n++;
	}
	e->net_valid = false;
}

/* The net changes of e (equal hashes added and removed cancel), in l. */
static void
pending_net(PendingStore *e, ChangeList *l)
{
	l->n = 0;
	l->cap = Max(e->n, 1);
	l->c = palloc_extended(sizeof(StoreChange) * (Size) l->cap, MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < e->n; i++)
	{
		l->c[i].h = e->c[i].h;
		l->c[i].remove = e->c[i].remove;
	}
	l->n = e->n;
	changes_cancel(l);
}

typedef struct SegChange
{
	int32		seg;
	StoreChange c;
} SegChange;

static int
segchange_cmp(const void *a, const void *b)
{
	const SegChange *x = a;
	const SegChange *y = b;

	if (x->seg != y->seg)
		return x->seg < y->seg ? -1 : 1;
	if (x->c.remove != y->c.remove)
		return x->c.remove ? -1 : 1;	/* removes first */
	return x->c.h < y->c.h ? -1 : (x->c.h > y->c.h ? 1 : 0);
}

int64
cuckoo_track_pending(Oid relid, uint32 nsegments, int32 segment,
					 const StoreChange **changes, const ValueHasher **vh)
{
	PendingStore *e;
	int64		lo,
				hi;

	for (e = pending; e != NULL; e = e->next)
		if (e->store == relid)
			break;
	if (e == NULL || e->n == 0)
		return 0;
	if (!e->net_valid || e->net_nsegments != nsegments)
	{
		MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
		ChangeList	l;
		SegChange  *sc;

		if (e->net != NULL)
			pfree(e->net);
		if (e->net_seg != NULL)
			pfree(e->net_seg);
		pending_net(e, &l);
		sc = palloc_extended(sizeof(SegChange) * (Size) Max(l.n, 1), MCXT_ALLOC_HUGE);
		for (int64 i = 0; i < l.n; i++)
		{
			sc[i].seg = (int32) cf_store_segment(l.c[i].h, nsegments);
			sc[i].c = l.c[i];
		}
		qsort(sc, l.n, sizeof(SegChange), segchange_cmp);
		for (int64 i = 0; i < l.n; i++)
			l.c[i] = sc[i].c;
		e->net_seg = (int32 *) sc;	/* reused: the segments, in place */
		for (int64 i = 0; i < l.n; i++)
			e->net_seg[i] = sc[i].seg;
		e->net = l.c;
		e->net_n = l.n;
		e->net_nsegments = nsegments;
		e->net_valid = true;
		MemoryContextSwitchTo(old);
	}
	/* the first of segment's changes, then past its last */
	lo = 0;
	hi = e->net_n;
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (e->net_seg[mid] < segment)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = lo;
	while (hi < e->net_n && e->net_seg[hi] == segment)
		hi++;
	*changes = e->net + lo;
	*vh = &e->vh;
	return hi - lo;
}

static int
pending_store_cmp(const void *a, const void *b)
{
	Oid			x = (*(PendingStore *const *) a)->store;
	Oid			y = (*(PendingStore *const *) b)->store;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* The store being applied at commit, for the error context. */
static void
pending_error_context(void *arg)
{
	PendingStore *e = arg;
	char	   *name = get_rel_name(e->store);

	errcontext("applying, at commit, this transaction's changes of the tables tracked by cuckoo store \"%s\"",
			   name ? name : "?");
}

/*
 * Applies every pending change (at pre-commit, pre-prepare): store by store
 * in OID order, each in one call, under the newest snapshot with the
 * isolation level read committed (a segment changed since the
 * transaction's snapshot is locked and changed in its newest version).
 */
static void
pending_apply_all(void)
{
	for (int round = 0; pending != NULL; round++)
	{
		PendingStore *list = pending;
		PendingStore **v;
		int			nv = 0,
					k = 0;
		int			save_iso = XactIsoLevel;

		/* a store that is itself tracked queues its own changes as we go */
		if (round >= 100)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("cuckoo stores track each other in a cycle"),
					 errhint("A store's own table cannot be tracked by a store that it tracks.")));
		pending = NULL;
		for (PendingStore *e = list; e != NULL; e = e->next)
			nv++;
		v = palloc(sizeof(PendingStore *) * nv);
		for (PendingStore *e = list; e != NULL; e = e->next)
			v[k++] = e;
		qsort(v, nv, sizeof(PendingStore *), pending_store_cmp);
		XactIsoLevel = XACT_READ_COMMITTED;
		PG_TRY();
		{
			for (int i = 0; i < nv; i++)
			{
				PendingStore *e = v[i];
				ErrorContextCallback ctx;
				FmgrInfo	flinfo;
				ChangeList	l;
				Become		b;

				LOCAL_FCINFO(fc, 0);

				if (e->n == 0)
					continue;
				/*
				 * dropped by this transaction since (no other could: it is
				 * locked), or the extension was (DROP EXTENSION ... CASCADE)
				 */
				if (get_rel_relkind(e->store) == '\0' ||
					!SearchSysCacheExists1(PROCOID, ObjectIdGetDatum(e->fn_oid)))
					continue;
				pending_net(e, &l);
				if (l.n == 0)
					continue;
				memset(&flinfo, 0, sizeof(flinfo));
				flinfo.fn_oid = e->fn_oid;
				flinfo.fn_mcxt = CurrentMemoryContext;
				InitFunctionCallInfoData(*fc, &flinfo, 0, InvalidOid, NULL, NULL);
				ctx.callback = pending_error_context;
				ctx.arg = e;
				ctx.previous = error_context_stack;
				error_context_stack = &ctx;
				track_become(&b, e->role);
				(void) cuckoo_store_apply(fc, e->store, &e->vh, l.c, l.n, true, true);
				track_unbecome(&b);
				error_context_stack = ctx.previous;
				pfree(l.c);
			}
		}
		PG_FINALLY();
		{
			XactIsoLevel = save_iso;
		}
		PG_END_TRY();
		pfree(v);
	}
}

static void
pending_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (pending != NULL)
				pending_apply_all();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			pending = NULL;		/* its memory goes with the transaction */
			break;
		default:
			break;
	}
}

/*
 * A subtransaction that aborts drops its changes (the last ones: each is
 * queued after all those of the subtransactions around it); one that
 * commits gives them to its parent.
 */
static void
pending_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	int32		level = GetCurrentTransactionNestLevel();

	if (event != SUBXACT_EVENT_ABORT_SUB && event != SUBXACT_EVENT_COMMIT_SUB)
		return;
	for (PendingStore *e = pending; e != NULL; e = e->next)
	{
		int64		i = e->n;

		while (i > 0 && e->c[i - 1].level >= level)
		{
			i--;
			if (event == SUBXACT_EVENT_COMMIT_SUB)
				e->c[i].level = level - 1;
		}
		if (event == SUBXACT_EVENT_ABORT_SUB && i != e->n)
		{
			e->n = i;
			e->net_valid = false;
		}
	}
}

/* ------------------------------------------------------------------------
 * cuckoo_store_track, cuckoo_store_untrack
 * ------------------------------------------------------------------------
 */

/*
 * cuckoo_store_track(store, tab, col): adds the non-NULL values of tab.col to
 * store and keeps it in step from now on; returns how many values it added.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_track);
Datum
cuckoo_store_track(PG_FUNCTION_ARGS)
{
	Oid			store = PG_GETARG_OID(0);
	Oid			tab = PG_GETARG_OID(1);
	char	   *col = NameStr(*PG_GETARG_NAME(2));
	Oid			tt = track_table(fcinfo);
	char	   *ttname = rel_qualname(tt);
	List	   *tree;
	ListCell   *lc;
	char		relkind;
	AttrNumber	att;
	ValueHasher vh;
	ChangeList	l = {0};
	Oid			types[3] = {REGCLASSOID, REGCLASSOID, NAMEOID};
	Datum		values[3];
	int			rc;
	Oid			atttype,
				attcoll;
	int32		atttypmod;

	relkind = get_rel_relkind(tab);
	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", tab)));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot track \"%s\": it is not an ordinary or partitioned table",
						get_rel_name(tab))));
	track_check_no_inheritance(tab);
	if (tab == store)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a cuckoo store cannot track itself")));
	track_check_owner(tab);
	/* the caller loads the rows there now, the table's owner keeps them in step */
	if (pg_class_aclcheck(store, GetUserId(), ACL_SELECT | ACL_UPDATE) != ACLCHECK_OK ||
		pg_class_aclcheck(store, rel_owner(tab), ACL_SELECT | ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for cuckoo store %s", get_rel_name(store)),
				 errdetail("Tracking needs SELECT and UPDATE on the store, for the caller and for the table's owner.")));
	att = track_column(tab, col, InvalidOid);

	/*
	 * No write of the table, or of any of its partitions, from here to the
	 * end of the transaction.
	 */
	LockRelationOid(tab, ShareRowExclusiveLock);
	tree = find_all_inheritors(tab, ShareRowExclusiveLock, NULL);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	values[0] = ObjectIdGetDatum(store);
	values[1] = ObjectIdGetDatum(tab);
	values[2] = PointerGetDatum(PG_GETARG_NAME(2));
	rc = SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE store OPERATOR(pg_catalog.=) $1 "
										"AND tab OPERATOR(pg_catalog.=) $2 "
										"AND col OPERATOR(pg_catalog.=) $3", ttname),
							   3, types, values, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("cuckoo store \"%s\" already tracks column \"%s\" of table \"%s\"",
						get_rel_name(store), col, get_rel_name(tab))));

	/* the store: its shape, privileges, and its value family against the column's */
	get_atttypetypmodcoll(tab, att, &atttype, &atttypmod, &attcoll);
	value_hasher_init(&vh, atttype, attcoll, CurrentMemoryContext);
	(void) cuckoo_store_apply(fcinfo, store, &vh, NULL, 0, true, false);

	/* the triggers, once per table; and on every partition, every level */
	foreach(lc, tree)
		(void) track_create_triggers(fcinfo, lfirst_oid(lc),
									 lfirst_oid(lc) == tab ? track_triggers : part_triggers);

	track_table_exec(tt, psprintf("INSERT INTO %s (store, tab, col) VALUES ($1, $2, $3)", ttname),
					 3, types, values, SPI_OK_INSERT);

	/* the values already there (all of them: row security off) */
	{
		Become		b;

		track_become(&b, GetUserId());
		track_read_table(tab, col, &vh, false, &l, false);
		track_unbecome(&b);
	}
	if (l.n > 0)
		track_queue(fcinfo, store, GetUserId(), atttype, attcoll, &l);
	SPI_finish();
	PG_RETURN_INT64(l.n);
}

/*
 * cuckoo_store_untrack(store, tab, col): stops keeping store in step with
 * tab.col (the values stay in the store); the table's triggers go with its
 * last tracking.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_untrack);
Datum
cuckoo_store_untrack(PG_FUNCTION_ARGS)
{
	Oid			store = PG_GETARG_OID(0);
	Oid			tab = PG_GETARG_OID(1);
	char	   *col = NameStr(*PG_GETARG_NAME(2));
	Oid			tt = track_table(fcinfo);
	char	   *ttname = rel_qualname(tt);
	Oid			types[3] = {REGCLASSOID, REGCLASSOID, NAMEOID};
	Datum		values[3];
	Become		b;
	int			rc;
	uint64		deleted;

	if (get_rel_relkind(tab) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", tab)));
	track_check_owner(tab);
	LockRelationOid(tab, ShareRowExclusiveLock);
	(void) find_all_inheritors(tab, ShareRowExclusiveLock, NULL);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	values[0] = ObjectIdGetDatum(store);
	values[1] = ObjectIdGetDatum(tab);
	values[2] = PointerGetDatum(PG_GETARG_NAME(2));
	track_become(&b, rel_owner(tt));
	rc = SPI_execute_with_args(psprintf("DELETE FROM %s WHERE store OPERATOR(pg_catalog.=) $1 "
										"AND tab OPERATOR(pg_catalog.=) $2 "
										"AND col OPERATOR(pg_catalog.=) $3", ttname),
							   3, types, values, NULL, false, 0);
	deleted = SPI_processed;
	track_unbecome(&b);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "deleting from %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	if (deleted == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("cuckoo store \"%s\" does not track column \"%s\" of table \"%s\"",
						get_rel_name(store), col, get_rel_name(tab))));
	rc = SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE tab OPERATOR(pg_catalog.=) $1",
										ttname),
							   1, &types[1], &values[1], NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	if (SPI_processed == 0)
		track_drop_triggers(tab);
	SPI_finish();
	PG_RETURN_VOID();
}

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
static SPIPlanPtr
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
static Datum
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
	Datum		arg;
	int			rc;
	int			ntrack;
	Oid		   *stores;
	Oid		   *tracked;
	char	  **cols;
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
	tt = track_table(fcinfo);
	owner = td->tg_relation->rd_rel->relowner;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	arg = track_self_and_ancestors(tab, td->tg_relation->rd_rel->relispartition);
	/*
	 * With its owner's rights when the writer has no USAGE on its schema
	 * (the statement is schema-qualified throughout and the table readable
	 * by everyone, so the writer's own rights do otherwise)
	 */
#if PG_VERSION_NUM >= 160000
	if (object_aclcheck(NamespaceRelationId, get_rel_namespace(tt), GetUserId(),
						ACL_USAGE) == ACLCHECK_OK)
#else
	if (pg_namespace_aclcheck(get_rel_namespace(tt), GetUserId(), ACL_USAGE) == ACLCHECK_OK)
#endif
		rc = SPI_execute_plan(track_lookup_plan(tt), &arg, NULL, true, 0);
	else
	{
		Become		b;

		track_become(&b, rel_owner(tt));
		rc = SPI_execute_plan(track_lookup_plan(tt), &arg, NULL, true, 0);
		track_unbecome(&b);
	}
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	ntrack = (int) SPI_processed;
	stores = palloc(sizeof(Oid) * Max(ntrack, 1));
	tracked = palloc(sizeof(Oid) * Max(ntrack, 1));
	cols = palloc(sizeof(char *) * Max(ntrack, 1));
	for (int i = 0; i < ntrack; i++)
	{
		bool		isnull;

		stores[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
												   SPI_tuptable->tupdesc, 1, &isnull));
		cols[i] = pstrdup(NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[i],
															  SPI_tuptable->tupdesc, 2,
															  &isnull))));
		tracked[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													SPI_tuptable->tupdesc, 3, &isnull));
	}
	if (!truncate)
		slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);

	for (int i = 0; i < ntrack; i++)
	{
		AttrNumber	att = track_column(tab, cols[i], stores[i]);
		Form_pg_attribute a = TupleDescAttr(desc, att - 1);
		ValueHasher vh;
		ChangeList	l = {0};
		Become		b;

		value_hasher_init(&vh, a->atttypid, a->attcollation, CurrentMemoryContext);
		if (truncate)
		{
			track_become(&b, owner);
			track_read_table(tab, cols[i], &vh, true, &l, true);
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
	SPI_finish();
	return PointerGetDatum(NULL);
}

/* ------------------------------------------------------------------------
 * DROP: the event trigger
 * ------------------------------------------------------------------------
 */

/*
 * cuckoo_track_drop(): on sql_drop.  Refuses to drop a partition of a
 * tracked partitioned table on its own (its values would stay in the store,
 * counted copies that no row holds: the command is rolled back; detaching
 * it first removes them).  Deletes the trackings of a dropped table, store
 * or column, so that no tracking names a dropped object, and takes the
 * triggers off the tables (and their partitions) left with no tracking.
 */
PG_FUNCTION_INFO_V1(cuckoo_track_drop);
Datum
cuckoo_track_drop(PG_FUNCTION_ARGS)
{
	Oid			tt;
	char	   *ttname;
	Become		b;
	int			rc;
	List	   *untracked = NIL;
	ListCell   *lc;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("cuckoo_track_drop must be called as an event trigger")));
	tt = get_relname_relid(TRACK_TABLE, ext_namespace(fcinfo));
	if (!OidIsValid(tt))
		PG_RETURN_VOID();		/* the extension itself is being dropped */
	ttname = rel_qualname(tt);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * A dropped table that carried the partition triggers, named by the
	 * command (or dropped by a command that drops no tracked table: DROP
	 * SCHEMA ... CASCADE of its schema), while its tracked root stays.
	 * Read, as the rest, with the tracking table's owner's rights: the
	 * caller may have no USAGE on its schema.
	 */
	track_become(&b, rel_owner(tt));
	rc = SPI_execute(psprintf("SELECT e.object_identity FROM pg_catalog.pg_event_trigger_dropped_objects() d, "
							  "pg_catalog.pg_event_trigger_dropped_objects() e "
							  "WHERE d.object_type OPERATOR(pg_catalog.=) 'trigger' "
							  "AND d.address_names[3] OPERATOR(pg_catalog.~~) '" PART_TRIGGER_PREFIX "%%' "
							  "AND e.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
							  "AND e.objsubid OPERATOR(pg_catalog.=) 0 "
							  "AND e.address_names OPERATOR(pg_catalog.=) d.address_names[1:2] "
							  "AND (e.original OR NOT EXISTS (SELECT FROM "
							  "pg_catalog.pg_event_trigger_dropped_objects() f, %s t "
							  "WHERE f.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
							  "AND f.objsubid OPERATOR(pg_catalog.=) 0 "
							  "AND f.objid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid)) LIMIT 1",
							  ttname), true, 1);
	track_unbecome(&b);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading the dropped objects failed: %s", SPI_result_code_string(rc));
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 errmsg("cannot drop table %s: it is a partition of a table tracked by a cuckoo store",
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)),
				 errdetail("Its values would stay in the store."),
				 errhint("Detach it first (ALTER TABLE ... DETACH PARTITION), which removes its values from the store, then drop it.")));

	track_become(&b, rel_owner(tt));
	rc = SPI_execute(psprintf("DELETE FROM %s t USING pg_catalog.pg_event_trigger_dropped_objects() d "
							  "WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
							  "AND ((d.objsubid OPERATOR(pg_catalog.=) 0 "
							  "AND (d.objid OPERATOR(pg_catalog.=) t.store::pg_catalog.oid "
							  "OR d.objid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid)) "
							  "OR (d.objsubid OPERATOR(pg_catalog.<>) 0 "
							  "AND d.objid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid "
							  "AND d.address_names[3] OPERATOR(pg_catalog.=) t.col::pg_catalog.text)) "
							  "RETURNING t.tab::pg_catalog.oid", ttname), false, 0);
	if (rc != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "deleting from %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		untracked = list_append_unique_oid(untracked,
										   DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																		  SPI_tuptable->tupdesc,
																		  1, &isnull)));
	}
	track_unbecome(&b);

	/* a table that is still there with no tracking left: its triggers go */
	foreach(lc, untracked)
	{
		Oid			tab = lfirst_oid(lc);
		Oid			type = OIDOID;
		Datum		arg = ObjectIdGetDatum(tab);

		if (get_rel_relkind(tab) == '\0')
			continue;
		track_become(&b, rel_owner(tt));
		rc = SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE tab::pg_catalog.oid "
											"OPERATOR(pg_catalog.=) $1", ttname),
								   1, &type, &arg, NULL, false, 1);
		track_unbecome(&b);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
		if (SPI_processed == 0)
			track_drop_triggers(tab);
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * The trackings of tab and of its ancestors (store, column, tracked table),
 * in SPI: a partition of a tracked tree finds its root's.
 */
static int
track_lookup(Oid tt, Oid tab, Oid **stores, char ***cols, Oid **tracked)
{
	Datum		arg = track_self_and_ancestors(tab, get_rel_relispartition(tab));
	int			rc;
	int			n;
	Become		b;

	/* with its owner's rights: the caller may have no USAGE on its schema */
	track_become(&b, rel_owner(tt));
	rc = SPI_execute_plan(track_lookup_plan(tt), &arg, NULL, false, 0);
	track_unbecome(&b);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	n = (int) SPI_processed;
	*stores = palloc(sizeof(Oid) * Max(n, 1));
	*cols = palloc(sizeof(char *) * Max(n, 1));
	*tracked = palloc(sizeof(Oid) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*stores)[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													  SPI_tuptable->tupdesc, 1, &isnull));
		(*cols)[i] = pstrdup(NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[i],
																 SPI_tuptable->tupdesc, 2,
																 &isnull))));
		(*tracked)[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													   SPI_tuptable->tupdesc, 3, &isnull));
	}
	return n;
}

/*
 * Applies the rows of the ordinary tables leaves (read each alone, with its
 * owner's rights) to every tracking of the tracked tree: adds them, or
 * removes them (in SPI).
 */
static void
track_apply_tables(FunctionCallInfo fcinfo, int ntrack, Oid *stores, char **cols,
				   Oid *tracked, List *leaves, bool remove)
{
	for (int i = 0; i < ntrack; i++)
	{
		AttrNumber	att = track_column(tracked[i], cols[i], stores[i]);
		Oid			atttype,
					attcoll;
		int32		atttypmod;
		ValueHasher vh;
		ChangeList	l = {0};
		ListCell   *lc;
		Become		b;

		get_atttypetypmodcoll(tracked[i], att, &atttype, &atttypmod, &attcoll);
		value_hasher_init(&vh, atttype, attcoll, CurrentMemoryContext);
		foreach(lc, leaves)
		{
			Oid			leaf = lfirst_oid(lc);

			(void) track_column(leaf, cols[i], stores[i]);
			track_become(&b, rel_owner(leaf));
			track_read_table(leaf, cols[i], &vh, remove, &l, true);
			track_unbecome(&b);
		}
		if (l.n > 0)
			track_queue(fcinfo, stores[i], rel_owner(tracked[i]), atttype, attcoll, &l);
		if (l.c != NULL)
			pfree(l.c);
	}
}

/*
 * child has just become a partition of parent (ATTACH PARTITION, CREATE
 * TABLE ... PARTITION OF).  If parent's root is tracked, every table of
 * child's tree that lacks the partition triggers gets them, and the values
 * of those that hold rows are added to the stores (in SPI).
 */
static void
track_ddl_attached(FunctionCallInfo fcinfo, Oid tt, Oid parent, Oid child)
{
	Oid		   *stores,
			   *tracked;
	char	  **cols;
	int			ntrack;
	List	   *tree;
	List	   *leaves = NIL;
	ListCell   *lc;

	if (!OidIsValid(parent) || !OidIsValid(child) || !get_rel_relispartition(child))
		return;
	ntrack = track_lookup(tt, parent, &stores, &cols, &tracked);
	if (ntrack == 0)
		return;
	LockRelationOid(child, ShareRowExclusiveLock);
	tree = find_all_inheritors(child, ShareRowExclusiveLock, NULL);
	foreach(lc, tree)
	{
		Oid			rel = lfirst_oid(lc);

		if (track_create_triggers(fcinfo, rel, part_triggers) &&
			get_rel_relkind(rel) == RELKIND_RELATION)
			leaves = lappend_oid(leaves, rel);
	}
	track_apply_tables(fcinfo, ntrack, stores, cols, tracked, leaves, false);
}

/*
 * child has just been detached from parent (DETACH PARTITION, and its
 * FINALIZE).  The values of the tables of its tree that carry the partition
 * triggers are removed from the stores of parent's root, and the triggers
 * taken off (in SPI).  A partition still pending detach is left as it is.
 */
static void
track_ddl_detached(FunctionCallInfo fcinfo, Oid tt, Oid parent, Oid child)
{
	Oid		   *stores,
			   *tracked;
	char	  **cols;
	int			ntrack;
	List	   *tree;
	List	   *members = NIL;
	List	   *leaves = NIL;
	ListCell   *lc;

	if (!OidIsValid(parent) || !OidIsValid(child) || get_rel_relispartition(child))
		return;
	LockRelationOid(child, ShareRowExclusiveLock);
	tree = find_all_inheritors(child, ShareRowExclusiveLock, NULL);
	foreach(lc, tree)
	{
		Oid			rel = lfirst_oid(lc);

		if (track_count_triggers(fcinfo, rel, part_triggers) > 0)
		{
			members = lappend_oid(members, rel);
			if (get_rel_relkind(rel) == RELKIND_RELATION)
				leaves = lappend_oid(leaves, rel);
		}
	}
	if (members == NIL)
		return;
	ntrack = track_lookup(tt, parent, &stores, &cols, &tracked);
	track_apply_tables(fcinfo, ntrack, stores, cols, tracked, leaves, true);
	foreach(lc, members)
		track_drop_set(lfirst_oid(lc), part_triggers);
}

/* The relation a RangeVar of the command names, InvalidOid if none. */
static Oid
track_rangevar(RangeVar *rv)
{
	return rv == NULL ? InvalidOid : RangeVarGetRelid(rv, NoLock, true);
}

/*
 * cuckoo_track_ddl(): on ddl_command_end of CREATE TABLE and ALTER TABLE.
 * Refuses a command that made a tracked table a partition, or a tracked
 * ordinary table a parent or child of inheritance (ATTACH PARTITION,
 * INHERIT, PARTITION OF, INHERITS): the command is rolled back.  Keeps the
 * trees of tracked partitioned tables followed: a partition created or
 * attached gets the partition triggers and its values are added; a
 * partition detached has its values removed and its triggers taken off.
 */
PG_FUNCTION_INFO_V1(cuckoo_track_ddl);
Datum
cuckoo_track_ddl(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	Node	   *parsetree;
	Oid			tt;
	int			rc;
	Become		b;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("cuckoo_track_ddl must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	parsetree = trigdata->parsetree;
	tt = get_relname_relid(TRACK_TABLE, ext_namespace(fcinfo));
	if (!OidIsValid(tt))
		PG_RETURN_VOID();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* with the tracking table's owner's rights: the caller may have no USAGE on its schema */
	track_become(&b, rel_owner(tt));
	rc = SPI_execute(psprintf("SELECT t.tab::pg_catalog.text FROM %s t "
							  "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid "
							  "WHERE c.relispartition OR (c.relkind OPERATOR(pg_catalog.<>) 'p' "
							  "AND EXISTS (SELECT FROM pg_catalog.pg_inherits i "
							  "WHERE i.inhrelid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid "
							  "OR i.inhparent OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid)) LIMIT 1",
							  rel_qualname(tt)), false, 1);	/* sees the command's changes */
	track_unbecome(&b);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table %s is tracked by a cuckoo store and cannot be a partition or in an inheritance tree",
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)),
				 errhint("Untrack it first (cuckoo_store_untrack).")));

	if (parsetree != NULL && IsA(parsetree, CreateStmt))
	{
		CreateStmt *cs = (CreateStmt *) parsetree;

		if (cs->partbound != NULL && list_length(cs->inhRelations) == 1)
			track_ddl_attached(fcinfo, tt,
							   track_rangevar(linitial_node(RangeVar, cs->inhRelations)),
							   track_rangevar(cs->relation));
	}
	else if (parsetree != NULL && IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *as = (AlterTableStmt *) parsetree;
		Oid			parent = track_rangevar(as->relation);
		ListCell   *lc;

		foreach(lc, as->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
			PartitionCmd *pc;

			if (cmd->def == NULL || !IsA(cmd->def, PartitionCmd))
				continue;
			pc = (PartitionCmd *) cmd->def;
			if (cmd->subtype == AT_AttachPartition)
				track_ddl_attached(fcinfo, tt, parent, track_rangevar(pc->name));
			else if (cmd->subtype == AT_DetachPartition
#if PG_VERSION_NUM >= 140000
					 || cmd->subtype == AT_DetachPartitionFinalize
#endif
				)
				track_ddl_detached(fcinfo, tt, parent, track_rangevar(pc->name));
		}
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/* ------------------------------------------------------------------------
 * Verification
 * ------------------------------------------------------------------------
 */

/*
 * cuckoo_store_verify(store): scans every column the store tracks (as the
 * caller) and returns missing (non-NULL values the store does not find),
 * rows (non-NULL values scanned), items (the store's items) and trackings.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_verify);
Datum
cuckoo_store_verify(PG_FUNCTION_ARGS)
{
	Oid			store = PG_GETARG_OID(0);
	Oid			tt = track_table(fcinfo);
	const char *ext = quote_identifier(get_namespace_name(ext_namespace(fcinfo)));
	TupleDesc	tupdesc;
	Oid			type = REGCLASSOID;
	Datum		arg = ObjectIdGetDatum(store);
	int			rc;
	int			ntrack;
	Oid		   *tabs;
	char	  **cols;
	int64		missing = 0,
				rows = 0,
				items;
	bool		isnull;
	Datum		values[4];
	bool		nulls[4] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute_with_args(psprintf("SELECT items FROM %s.cuckoo_store_info($1)", ext),
							   1, &type, &arg, NULL, true, 0);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "cuckoo_store_info failed: %s", SPI_result_code_string(rc));
	items = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	rc = SPI_execute_with_args(psprintf("SELECT tab::pg_catalog.oid, col FROM %s "
										"WHERE store OPERATOR(pg_catalog.=) $1 ORDER BY 1, 2",
										rel_qualname(tt)),
							   1, &type, &arg, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	ntrack = (int) SPI_processed;
	tabs = palloc(sizeof(Oid) * Max(ntrack, 1));
	cols = palloc(sizeof(char *) * Max(ntrack, 1));
	for (int i = 0; i < ntrack; i++)
	{
		tabs[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
												 SPI_tuptable->tupdesc, 1, &isnull));
		cols[i] = pstrdup(NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[i],
															  SPI_tuptable->tupdesc, 2,
															  &isnull))));
	}
	for (int i = 0; i < ntrack; i++)
	{
		const char *c = quote_identifier(cols[i]);

		bool		partitioned = get_rel_relkind(tabs[i]) == RELKIND_PARTITIONED_TABLE;

		(void) track_column(tabs[i], cols[i], store);
		if (partitioned)
		{
			/* every partition, every level, must carry the partition triggers */
			List	   *tree = find_all_inheritors(tabs[i], AccessShareLock, NULL);
			ListCell   *lc;

			foreach(lc, tree)
			{
				Oid			rel = lfirst_oid(lc);

				if (rel != tabs[i] &&
					track_count_triggers(fcinfo, rel, part_triggers) != lengthof(part_triggers))
					ereport(WARNING,
							(errmsg("partition \"%s\" of table \"%s\", tracked by cuckoo store \"%s\", lacks the tracking triggers",
									get_rel_name(rel), get_rel_name(tabs[i]), get_rel_name(store)),
							 errdetail("Statements naming it are not followed."),
							 errhint("Untrack the table and track it again, into a new store (tracking adds every value again).")));
			}
		}
		rc = SPI_execute_with_args(psprintf("SELECT pg_catalog.count(%s), pg_catalog.count(*) "
											"FILTER (WHERE NOT %s.cuckoo_store_contains($1, %s)) "
											"FROM %s%s WHERE %s IS NOT NULL",
											c, ext, c, partitioned ? "" : "ONLY ",
											rel_qualname(tabs[i]), c),
								   1, &type, &arg, NULL, true, 0);
		if (rc != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "scanning %s failed: %s", get_rel_name(tabs[i]),
				 SPI_result_code_string(rc));
		rows += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		missing += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	}
	SPI_finish();
	values[0] = Int64GetDatum(missing);
	values[1] = Int64GetDatum(rows);
	values[2] = Int64GetDatum(items);
	values[3] = Int32GetDatum(ntrack);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
