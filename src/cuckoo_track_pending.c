/*
 * cuckoo_track_pending.c
 *     A transaction's pending changes of its stores: queued by the triggers
 *     (track_queue), applied at commit by the transaction callbacks
 *     (cuckoo_store_apply), dropped by an aborted subtransaction, and shown
 *     to the store's probes through the hook it installs (track_init,
 *     store_pending_hook in cuckoo_store.h); and the planner and executor
 *     hooks that keep parallel workers, which cannot see them, out of a
 *     transaction that has some.
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
#include "executor/executor.h"
#include "optimizer/planner.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/inval.h"

#include "cf_store.h"
#include "cuckoo_track_int.h"

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
 * this transaction see them (track_pending, the store's store_pending_hook).
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
	Oid		   *roles;			/* every owner queued (role first), checked at commit */
	int			nroles;
	int			rolecap;
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

/*
 * The (store, role) pairs whose rights this backend has checked (role's
 * SELECT and UPDATE on the store, USAGE on its schema), kept until an
 * invalidation of anything they depend on: the store's pg_class row (its
 * ACL, its owner, its schema: a relcache invalidation, any relation's, is
 * taken), a schema's row, a role's (superuser) or a membership.  Those are
 * the invalidations that make the catalog caches, which pg_class_aclcheck
 * reads, forget: a check served from here answers as the catalog caches
 * would at that moment.
 */
#define RIGHTS_SLOTS	16
static struct
{
	Oid			store;
	Oid			role;
}			rights_ok[RIGHTS_SLOTS];
static int	rights_n = 0;
static int	rights_next = 0;
static uint64 rights_gen = 0;	/* invalidations seen */
static bool rights_callbacks = false;

/* Any relcache invalidation (cuckoo_module.c's callback). */
void
track_rights_forget(Oid relid)
{
	rights_n = 0;
	rights_gen++;
}

static void
rights_forget_syscache(Datum arg, int cacheid, uint32 hashvalue)
{
	rights_n = 0;
	rights_gen++;
}

/*
 * Role may change store (SELECT and UPDATE on it, USAGE on its schema), as
 * the statements naming it need; else 42501.  Checked one right at a time:
 * pg_class_aclcheck with both in its mask passes with either.
 */
static void
track_check_rights(Oid store, Oid role)
{
	uint64		gen;

	for (int i = 0; i < rights_n; i++)
		if (rights_ok[i].store == store && rights_ok[i].role == role)
			return;
	if (!rights_callbacks)
	{
		/*
		 * The syscaches whose invalidations make PostgreSQL forget a right:
		 * acl.c's role membership cache (pg_authid, pg_auth_members, and
		 * pg_database, whose owner is pg_database_owner's member, 14 and
		 * later), superuser.c's (pg_authid), a schema's ACL
		 * (pg_namespace); a relation's ACL and owner come with the
		 * relcache invalidations (track_rights_forget).  Check this list
		 * against acl.c's initialize_acl at each new major version.
		 */
		CacheRegisterSyscacheCallback(NAMESPACEOID, rights_forget_syscache, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHOID, rights_forget_syscache, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, rights_forget_syscache, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHMEMMEMROLE, rights_forget_syscache, (Datum) 0);
		CacheRegisterSyscacheCallback(DATABASEOID, rights_forget_syscache, (Datum) 0);
		rights_callbacks = true;
	}
	gen = rights_gen;
	if (pg_class_aclcheck(store, role, ACL_SELECT) != ACLCHECK_OK ||
		pg_class_aclcheck(store, role, ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for cuckoo store %s", get_rel_name(store)),
				 errdetail("The owner of a tracked table, role \"%s\", needs SELECT and UPDATE on the store that tracks it.",
						   GetUserNameFromId(role, false))));
	if (!cuckoo_store_schema_usage(store, role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for schema %s",
						get_namespace_name(get_rel_namespace(store))),
				 errdetail("The owner of a tracked table, role \"%s\", needs USAGE on the schema of cuckoo store %s.",
						   GetUserNameFromId(role, false), get_rel_name(store))));
	/* kept only if nothing was invalidated while it was checked */
	if (gen != rights_gen)
		return;
	rights_ok[rights_next].store = store;
	rights_ok[rights_next].role = role;
	rights_next = (rights_next + 1) % RIGHTS_SLOTS;
	if (rights_n < RIGHTS_SLOTS)
		rights_n++;
}

/* The transaction's pending stores, in TopTransactionContext. */
static PendingStore *pending = NULL;
static bool pending_callbacks = false;

static void pending_xact_callback(XactEvent event, void *arg);
static void pending_add_role(PendingStore *e, Oid role);
static void pending_check_roles(PendingStore *e);
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
void
track_queue(FunctionCallInfo fcinfo, Oid store, Oid role, Oid typid, Oid collid,
			const ChangeList *l)
{
	PendingStore *e;
	int32		level = GetCurrentTransactionNestLevel();

	/*
	 * Workers already running would not see the change (parallel mode
	 * forbids the writes that queue changes, so only a function wrongly
	 * marked PARALLEL SAFE can get here).
	 */
	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot change a cuckoo store during a parallel operation")));
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
	pending_add_role(e, role);
	track_check_rights(store, role);
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

/*
 * How many changes of store this transaction has queued and not applied
 * (those of aborted subtransactions gone): cuckoo_store_rebuild refuses a
 * store that has some.
 */
int64
track_pending_count(Oid store)
{
	for (PendingStore *e = pending; e != NULL; e = e->next)
		if (e->store == store)
			return e->n;
	return 0;
}

/*
 * Adds role to e's owners, once: the commit checks the rights of each
 * owner whose table's changes it applies, not only of the first.  An owner
 * stays even if its changes are rolled back to a savepoint (the commit
 * then checks a right it does not need: an error, never a missed check).
 */
static void
pending_add_role(PendingStore *e, Oid role)
{
	for (int i = 0; i < e->nroles; i++)
		if (e->roles[i] == role)
			return;
	if (e->nroles == e->rolecap)
	{
		e->rolecap = Max(e->rolecap * 2, 4);
		if (e->roles == NULL)
			e->roles = MemoryContextAlloc(TopTransactionContext,
										  sizeof(Oid) * e->rolecap);
		else
			e->roles = repalloc(e->roles, sizeof(Oid) * e->rolecap);
	}
	e->roles[e->nroles++] = role;
}

/*
 * At commit, before e's store is changed (by the heap or through SQL):
 * every owner queued still has SELECT and UPDATE on the store and USAGE on
 * its schema.
 */
static void
pending_check_roles(PendingStore *e)
{
	for (int i = 0; i < e->nroles; i++)
		track_check_rights(e->store, e->roles[i]);
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

/* The store's store_pending_hook (cuckoo_store.h). */
static int64
track_pending(Oid relid, uint32 nsegments, int32 segment,
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
 * Rethrows the error being handled; a deadlock gets a hint.  The commit
 * locks segments in one order, so a deadlock at commit means that another
 * transaction holds a segment it took outside that order: a direct change
 * of the store (cuckoo_store_add, _remove and their forms lock a segment
 * at the call) or a statement on the store's table.
 */
static void
pending_deadlock_hint(MemoryContext mcxt)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(mcxt);
	edata = CopyErrorData();
	if (edata->sqlerrcode != ERRCODE_T_R_DEADLOCK_DETECTED)
	{
		FreeErrorData(edata);
		PG_RE_THROW();
	}
	FlushErrorState();
	/* before PostgreSQL's own ("See server log for query details.") */
	edata->hint = psprintf("A transaction that changes a tracked store directly (cuckoo_store_add, cuckoo_store_remove and their forms) "
						   "locks that segment at the call, outside the order of the commit: change a tracked store directly "
						   "in a transaction of its own, with one call (the _array forms lock their segments in order), or retry.%s%s",
						   edata->hint ? " " : "", edata->hint ? edata->hint : "");
	ReThrowError(edata);
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
		MemoryContext mcxt = CurrentMemoryContext;

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
				int64		changed;

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
				pending_check_roles(e);
				/* without SQL when the store allows it (no user switch needed) */
				if (!cuckoo_store_apply_direct(fc, e->store, e->role, &e->vh, l.c, l.n,
											   true, &changed))
				{
					track_become(&b, e->role);
					(void) cuckoo_store_apply(fc, e->store, &e->vh, l.c, l.n, true, true);
					track_unbecome(&b);
				}
				error_context_stack = ctx.previous;
				pfree(l.c);
			}
		}
		PG_CATCH();
		{
			XactIsoLevel = save_iso;
			pending_deadlock_hint(mcxt);
		}
		PG_END_TRY();
		XactIsoLevel = save_iso;
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
 * No parallel worker while the transaction has pending changes
 * ------------------------------------------------------------------------
 *
 * A parallel worker cannot see them (they are in this backend's memory),
 * so a probe of the store in a worker would miss them.  From the first
 * pending change to the end of the transaction no plan is made parallel
 * (the planner hook drops CURSOR_OPT_PARALLEL_OK) and no plan runs with
 * workers (the executor hook runs a plan made parallel before, a cached
 * plan, without parallel mode: its Gather nodes launch no worker and the
 * leader runs their plans).  Both are checked at each query, whatever the
 * settings (a function's SET clause can restore any of them), and parallel
 * mode is decided when the executor runs the plan (ExecutePlan, from
 * PlannedStmt.parallelModeNeeded, PostgreSQL 13 to 19).  Changes are never
 * queued in parallel mode (track_queue), so none can appear while workers
 * run.
 */
static planner_hook_type prev_planner_hook = NULL;
static ExecutorRun_hook_type prev_executor_run_hook = NULL;

/* Has this transaction a pending change of any store? */
static bool
pending_any(void)
{
	for (PendingStore *e = pending; e != NULL; e = e->next)
		if (e->n > 0)
			return true;
	return false;
}

#if PG_VERSION_NUM >= 190000
static PlannedStmt *
pending_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams, ExplainState *es)
#else
static PlannedStmt *
pending_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
#endif
{
	if ((cursorOptions & CURSOR_OPT_PARALLEL_OK) != 0 && pending_any())
		cursorOptions &= ~CURSOR_OPT_PARALLEL_OK;
#if PG_VERSION_NUM >= 190000
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams, es);
	return standard_planner(parse, query_string, cursorOptions, boundParams, es);
#else
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
#endif
}

#if PG_VERSION_NUM >= 180000
#define RUN_ARGS(qd)	(qd), direction, count
static void
pending_executor_run(QueryDesc *queryDesc, ScanDirection direction, uint64 count)
#else
#define RUN_ARGS(qd)	(qd), direction, count, execute_once
static void
pending_executor_run(QueryDesc *queryDesc, ScanDirection direction, uint64 count,
					 bool execute_once)
#endif
{
	PlannedStmt *plan = queryDesc->plannedstmt;
	PlannedStmt serial;

	if (plan == NULL || !plan->parallelModeNeeded || !pending_any())
	{
		if (prev_executor_run_hook)
			prev_executor_run_hook(RUN_ARGS(queryDesc));
		else
			standard_ExecutorRun(RUN_ARGS(queryDesc));
		return;
	}

	/*
	 * The plan may be cached and shared: this run reads a copy of its
	 * statement that asks for no parallel mode (the plan tree itself is
	 * the same), and the query descriptor gets the original back after.
	 */
	serial = *plan;
	serial.parallelModeNeeded = false;
	queryDesc->plannedstmt = &serial;
	PG_TRY();
	{
		if (prev_executor_run_hook)
			prev_executor_run_hook(RUN_ARGS(queryDesc));
		else
			standard_ExecutorRun(RUN_ARGS(queryDesc));
	}
	PG_FINALLY();
	{
		queryDesc->plannedstmt = plan;
	}
	PG_END_TRY();
}

/*
 * Installs the store's hook, so that a probe of a store sees this
 * transaction's pending changes of it, and the planner's and executor's
 * that keep parallel workers out of a transaction that has some (called by
 * _PG_init).
 */
void
track_init(void)
{
	store_pending_hook = track_pending;
	prev_planner_hook = planner_hook;
	planner_hook = pending_planner;
	prev_executor_run_hook = ExecutorRun_hook;
	ExecutorRun_hook = pending_executor_run;
}
