/*
 * cuckoo_track_catalog.c
 *     What the living filters' files share: lists of changes, the
 *     extension's schema and tracking table, relations' names and owners,
 *     acting as a table's owner (track_become), reading a tracked column
 *     whole, and the statement triggers of a tracked table and of its
 *     partitions (counted, created, dropped).  Calls no other track file.
 */
#include "cuckoo.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_trigger.h"
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
#include "cuckoo_track_int.h"

/* The four triggers of a tracked table: name, timing and event, transition tables. */
const char *const track_triggers[][2] = {
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
const char *const part_triggers[][2] = {
	{"cuckoo_track_part_insert", "AFTER INSERT ON %s REFERENCING NEW TABLE AS cuckoo_new"},
	{"cuckoo_track_part_update", "AFTER UPDATE ON %s REFERENCING OLD TABLE AS cuckoo_old NEW TABLE AS cuckoo_new"},
	{"cuckoo_track_part_delete", "AFTER DELETE ON %s REFERENCING OLD TABLE AS cuckoo_old"},
	{"cuckoo_track_part_truncate", "BEFORE TRUNCATE ON %s"},
};

/* Adds one change to l. */
void
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
void
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

Oid
ext_namespace(FunctionCallInfo fcinfo)
{
	return get_func_namespace(fcinfo->flinfo->fn_oid);
}

char *
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

Oid
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
Oid
track_table(FunctionCallInfo fcinfo)
{
	Oid			relid = get_relname_relid(TRACK_TABLE, ext_namespace(fcinfo));

	if (!OidIsValid(relid))
		elog(ERROR, "table %s not found in the schema of function %u",
			 TRACK_TABLE, fcinfo->flinfo->fn_oid);
	return relid;
}

/*
 * Becomes role, as PostgreSQL's foreign-key triggers do, with search_path
 * pg_catalog, pg_temp and row_security off.  An error ends the
 * (sub)transaction, which restores all three.
 */
void
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

void
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
void
track_table_exec(Oid tt, const char *sql, int nargs, Oid *types, Datum *values,
				 int expect)
{
	Become		b;

	track_become(&b, rel_owner(tt));
	track_exec(sql, nargs, types, values, expect);
	track_unbecome(&b);
}

/* Raises 42501 unless the current user owns (is a member of the owner of) tab. */
void
track_check_owner(Oid tab)
{
	if (!has_privs_of_role(GetUserId(), rel_owner(tab)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to track or untrack it",
						get_rel_name(tab))));
}

/* The attribute number of tab's column col, or an error naming both. */
AttrNumber
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
void
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

/*
 * Runs sql, a query of pg_trigger (in SPI; under the current snapshot if
 * read_only, else a new one; count rows at most, 0: all) with the
 * arguments $1 tab, $2 the trigger function and $3 the names (text[]) of
 * the nsets sets of triggers (track_triggers, part_triggers, or both).
 */
static void
trigger_query(FunctionCallInfo fcinfo, const char *sql, Oid tab,
			  const char *const (*const sets[])[2], int nsets, bool read_only, long count)
{
	Oid			types[3] = {OIDOID, OIDOID, TEXTARRAYOID};
	Datum		values[3];
	Datum		names[2 * lengthof(track_triggers)];
	int			n = 0;
	int			rc;

	Assert(nsets <= 2);
	for (int j = 0; j < nsets; j++)
		for (int i = 0; i < lengthof(track_triggers); i++)
			names[n++] = CStringGetTextDatum(sets[j][i][0]);
	values[0] = ObjectIdGetDatum(tab);
	/* by OID: a name lookup would need USAGE on the extension's schema */
	values[1] = ObjectIdGetDatum(track_trigger_fn_oid(fcinfo));
	values[2] = PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
	rc = SPI_execute_with_args(sql, 3, types, values, NULL, read_only, count);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading pg_trigger failed: %s", SPI_result_code_string(rc));
}

/*
 * How many of the triggers set of tab call the trigger function (in SPI),
 * under the current snapshot (read_only) or a new one.
 */
static int64
count_triggers(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2], bool read_only)
{
	const char *const (*sets[1])[2] = {set};
	bool		isnull;

	trigger_query(fcinfo, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger "
				  "WHERE tgrelid OPERATOR(pg_catalog.=) $1 "
				  "AND tgfoid OPERATOR(pg_catalog.=) $2 "
				  "AND tgname::pg_catalog.text OPERATOR(pg_catalog.=) ANY ($3)",
				  tab, sets, lengthof(sets), read_only, 1);
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/* How many of the triggers set of tab call the trigger function (in SPI). */
int64
track_count_triggers(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2])
{
	return count_triggers(fcinfo, tab, set, true);
}

/*
 * The same under a new snapshot (READ COMMITTED): sees the triggers of the
 * transactions that committed since the statement began, as after a lock.
 */
int64
track_count_triggers_now(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2])
{
	return count_triggers(fcinfo, tab, set, false);
}

/*
 * The tracking triggers (the eight names, calling the trigger function) of
 * the tables of tab's tree, every level (in SPI): their OIDs, how many.
 */
static int
tree_triggers(FunctionCallInfo fcinfo, Oid tab, Oid **trigs)
{
	const char *const (*sets[2])[2] = {track_triggers, part_triggers};
	int			n;

	/* pg_partition_tree gives nothing for a table outside a partition tree */
	trigger_query(fcinfo, "SELECT t.oid FROM (SELECT $1::pg_catalog.regclass AS relid UNION "
				  "SELECT p.relid FROM pg_catalog.pg_partition_tree($1) p) p "
				  "JOIN pg_catalog.pg_trigger t ON t.tgrelid OPERATOR(pg_catalog.=) p.relid "
				  "WHERE t.tgfoid OPERATOR(pg_catalog.=) $2 "
				  "AND t.tgname::pg_catalog.text OPERATOR(pg_catalog.=) ANY ($3) ORDER BY 1",
				  tab, sets, lengthof(sets), false, 0);
	n = (int) SPI_processed;
	*trigs = palloc(sizeof(Oid) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*trigs)[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													 SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
	return n;
}

/*
 * The stores of the trackings in the tracking table tt, each once, as a
 * list of OIDs (in SPI): of table tab's trackings, or of all if tab is
 * InvalidOid; read with tt's owner's rights if as_owner, else the caller's.
 */
List *
track_tracked_stores(Oid tt, Oid tab, bool as_owner)
{
	Oid			type = OIDOID;
	Datum		arg = ObjectIdGetDatum(tab);
	List	   *stores = NIL;
	Become		b;
	int			rc;

	if (as_owner)
		track_become(&b, rel_owner(tt));
	if (OidIsValid(tab))
		rc = SPI_execute_with_args(psprintf("SELECT DISTINCT store::pg_catalog.oid FROM %s "
											"WHERE tab::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
											rel_qualname(tt)),
								   1, &type, &arg, NULL, false, 0);
	else
		rc = SPI_execute(psprintf("SELECT DISTINCT store::pg_catalog.oid FROM %s", rel_qualname(tt)),
						 false, 0);
	if (as_owner)
		track_unbecome(&b);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		stores = lappend_oid(stores, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																	SPI_tuptable->tupdesc, 1, &isnull)));
	}
	return stores;
}

/*
 * Gives every tracking trigger of the tables store tracks (every partition
 * too) an AUTO dependency on store, unless it has one (in SPI).  pg_dump
 * orders by dependencies, and pg_restore -j makes a trigger that depends on
 * a table wait for that table's data: so a restore creates a tracking
 * trigger only after the store's rows are loaded, and the last one finds
 * the store whole to rebuild (track_ddl_trigger_created).  AUTO: dropping
 * the store drops the triggers with it, and cuckoo_track_drop gives the
 * tables that other stores still track their triggers again
 * (track_retrigger).  DESIGN.md, "Living filters", "Where the tracking is
 * recorded".
 */
void
track_depend_store(FunctionCallInfo fcinfo, Oid store)
{
	Oid			tt = track_table(fcinfo);
	Oid			type = OIDOID;
	Datum		arg = ObjectIdGetDatum(store);
	Become		b;
	int			rc;
	int			ntab;
	Oid		   *tabs;
	ObjectAddress referenced;

	if (get_rel_relkind(store) == '\0')
		return;
	track_become(&b, rel_owner(tt));
	rc = SPI_execute_with_args(psprintf("SELECT DISTINCT tab::pg_catalog.oid FROM %s "
										"WHERE store::pg_catalog.oid OPERATOR(pg_catalog.=) $1 ORDER BY 1",
										rel_qualname(tt)),
							   1, &type, &arg, NULL, false, 0);
	track_unbecome(&b);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	ntab = (int) SPI_processed;
	tabs = palloc(sizeof(Oid) * Max(ntab, 1));
	for (int i = 0; i < ntab; i++)
	{
		bool		isnull;

		tabs[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
												 SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
	ObjectAddressSet(referenced, RelationRelationId, store);
	for (int i = 0; i < ntab; i++)
	{
		Oid		   *trigs;
		int			n;

		if (get_rel_relkind(tabs[i]) == '\0')
			continue;
		n = tree_triggers(fcinfo, tabs[i], &trigs);
		for (int j = 0; j < n; j++)
		{
			ObjectAddress depender;

			ObjectAddressSet(depender, TriggerRelationId, trigs[j]);
			/* one entry: drop this store's, then record it */
			(void) deleteDependencyRecordsForSpecific(TriggerRelationId, trigs[j], DEPENDENCY_AUTO,
													  RelationRelationId, store);
			recordDependencyOn(&depender, &referenced, DEPENDENCY_AUTO);
		}
	}
	CommandCounterIncrement();
}

/*
 * Takes off the dependencies on store of the tracking triggers of tab's
 * tree (in SPI): cuckoo_store_untrack, before track_depend_store puts back
 * those of the trackings left.
 */
void
track_undepend_store(FunctionCallInfo fcinfo, Oid store, Oid tab)
{
	Oid		   *trigs;
	int			n = tree_triggers(fcinfo, tab, &trigs);

	for (int j = 0; j < n; j++)
		(void) deleteDependencyRecordsForSpecific(TriggerRelationId, trigs[j], DEPENDENCY_AUTO,
												  RelationRelationId, store);
	CommandCounterIncrement();
}

/*
 * Raises 0A000 if tab cannot be tracked for its place in a tree: a
 * partition (a statement on its parent would not fire its statement
 * triggers: the root partitioned table is tracked, with all its
 * partitions), or an ordinary table with inheritance parents or children (a
 * statement on a parent does not fire a child's statement triggers, and a
 * parent's transition tables hold its children's rows).
 */
void
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
void
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
void
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
 * Whether track_create_triggers is creating triggers: their CREATE TRIGGER
 * commands fire cuckoo_track_ddl, which rebuilds a store whose triggers
 * are all there again only for a CREATE TRIGGER of someone else's (a
 * restore's): the caller of this one fills the store itself.
 */
bool		track_making_triggers = false;

/*
 * Gives tab the four triggers of set unless it has them all (none yet, or
 * some dropped by hand: all four again); returns whether it created them.
 */
bool
track_create_triggers(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2])
{
	char	   *fn;
	char	   *tabname;
	char		relkind = get_rel_relkind(tab);
	Become		b;

	/* under a new snapshot: a drop in this command may have taken them */
	if (track_count_triggers_now(fcinfo, tab, set) == lengthof(track_triggers))
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
	track_making_triggers = true;
	PG_TRY();
	{
		for (int i = 0; i < lengthof(track_triggers); i++)
			track_exec(psprintf("CREATE TRIGGER %s %s FOR EACH STATEMENT EXECUTE PROCEDURE %s()",
								set[i][0], psprintf(set[i][1], tabname), fn),
					   0, NULL, NULL, SPI_OK_UTILITY);
	}
	PG_FINALLY();
	{
		track_making_triggers = false;
	}
	PG_END_TRY();
	track_unbecome(&b);
	return true;
}
