/*
 * cuckoo_track_ddl.c
 *     The living filters' event triggers: cuckoo_track_drop_start
 *     (ddl_command_start of the commands that may drop a partition with
 *     other objects: which root each partition has), cuckoo_track_drop
 *     (sql_drop: the trackings of dropped objects) and cuckoo_track_ddl
 *     (partitions created, attached and detached in a tracked tree, also
 *     by CREATE SCHEMA's subcommands; a store rebuilt when a restore
 *     creates its last tracking trigger); and the triggers of
 *     cuckoo_store_tracking: cuckoo_track_tracking_check (a row inserted
 *     by a role that is not a superuser, checked) and cuckoo_track_restored
 *     (a restore's trackings rebuild their stores).
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
#include "commands/extension.h"
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
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "cf_store.h"
#include "cuckoo_track_int.h"

/* ------------------------------------------------------------------------
 * DROP: the event trigger
 * ------------------------------------------------------------------------
 */

/*
 * The partitions of tracked trees and their roots, as they were when the
 * last command of tag drop_map_tag started (cuckoo_track_drop_start): once
 * the command has dropped them the catalogs no longer say which tree a
 * dropped partition was in.  In TopMemoryContext, replaced at the next
 * start.  A command of that tag always starts (and replaces it) before
 * its sql_drop reads it, so what sql_drop reads is its own command's (the
 * statement's start time is compared too, should that start have been
 * skipped).
 */
static CommandTag drop_map_tag = CMDTAG_UNKNOWN;
static TimestampTz drop_map_statement = 0;	/* the top-level statement's start */
static ArrayType *drop_map_parts = NULL;
static ArrayType *drop_map_roots = NULL;

/*
 * cuckoo_track_drop_start(): on ddl_command_start of DROP SCHEMA, DROP
 * OWNED, DROP EXTENSION and DROP ACCESS METHOD, the commands that may drop
 * a partition of a tracked tree together with objects of other trees (a
 * partition's parent dropped drops it too, which needs no map).  Records
 * each table that carries the partition triggers with its root.
 */
PG_FUNCTION_INFO_V1(cuckoo_track_drop_start);
Datum
cuckoo_track_drop_start(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	int			rc;
	int			n;
	Datum	   *parts;
	Datum	   *roots;
	MemoryContext old;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("cuckoo_track_drop_start must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	drop_map_tag = CMDTAG_UNKNOWN;
	if (drop_map_parts != NULL)
		pfree(drop_map_parts);
	if (drop_map_roots != NULL)
		pfree(drop_map_roots);
	drop_map_parts = drop_map_roots = NULL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute("SELECT t.tgrelid, pg_catalog.pg_partition_root(t.tgrelid) "
					 "FROM pg_catalog.pg_trigger t "
					 "WHERE t.tgname OPERATOR(pg_catalog.=) '" PART_TRIGGER_PREFIX "insert'",
					 true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading the partition triggers failed: %s", SPI_result_code_string(rc));
	n = (int) SPI_processed;
	parts = palloc(sizeof(Datum) * Max(n, 1));
	roots = palloc(sizeof(Datum) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		parts[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		roots[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull);
		if (isnull)
			roots[i] = parts[i];	/* not in a tree any more: its own root */
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	drop_map_parts = construct_array(parts, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT);
	drop_map_roots = construct_array(roots, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT);
	MemoryContextSwitchTo(old);
	drop_map_tag = trigdata->tag;
	drop_map_statement = GetCurrentStatementStartTimestamp();
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * tab is still tracked by a store, after the drop of another store it was
 * tracked by: the triggers of its tree depended on that store too
 * (track_depend_store) and went with it.  Gives them back (only those
 * missing; not a restore's CREATE TRIGGER: nothing is rebuilt) and their
 * dependencies on the stores left (in SPI).
 */
static void
track_retrigger(FunctionCallInfo fcinfo, Oid tt, Oid tab)
{
	List	   *tree = find_all_inheritors(tab, ShareRowExclusiveLock, NULL);
	List	   *stores;
	ListCell   *lc;

	foreach(lc, tree)
		(void) track_create_triggers(fcinfo, lfirst_oid(lc),
									 lfirst_oid(lc) == tab ? track_triggers : part_triggers);
	stores = track_tracked_stores(tt, tab, true);
	foreach(lc, stores)
		track_depend_store(fcinfo, lfirst_oid(lc));
}

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
	 * A dropped table that carried the partition triggers while its
	 * tracked root stays.  Its root: from the map of the command's start
	 * (DROP SCHEMA ... CASCADE, DROP OWNED, ...: refused unless its own
	 * root is dropped too, whether the command named it or not);
	 * otherwise refused when the command named it, and when not, it went
	 * with its parent (DROP TABLE ... CASCADE of a partitioned table),
	 * which the command named (refused here too) or dropped with the root:
	 * refused unless a tracked table was dropped.  Read, as the rest, with
	 * the tracking table's owner's rights: the caller may have no USAGE on
	 * its schema.
	 */
	{
		EventTriggerData *trigdata = (EventTriggerData *) fcinfo->context;
		bool		mapped = drop_map_parts != NULL && trigdata->tag == drop_map_tag &&
			drop_map_statement == GetCurrentStatementStartTimestamp();
		Oid			types[3] = {OIDARRAYOID, OIDARRAYOID, BOOLOID};
		Datum		args[3];

		args[0] = mapped ? PointerGetDatum(drop_map_parts) : PointerGetDatum(construct_empty_array(OIDOID));
		args[1] = mapped ? PointerGetDatum(drop_map_roots) : PointerGetDatum(construct_empty_array(OIDOID));
		args[2] = BoolGetDatum(mapped);
		track_become(&b, rel_owner(tt));
		rc = SPI_execute_with_args(psprintf("SELECT e.object_identity FROM pg_catalog.pg_event_trigger_dropped_objects() d, "
											"pg_catalog.pg_event_trigger_dropped_objects() e "
											"WHERE d.object_type OPERATOR(pg_catalog.=) 'trigger' "
											"AND d.address_names[3] OPERATOR(pg_catalog.~~) '" PART_TRIGGER_PREFIX "%%' "
											"AND e.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
											"AND e.objsubid OPERATOR(pg_catalog.=) 0 "
											"AND e.address_names OPERATOR(pg_catalog.=) d.address_names[1:2] "
											"AND (CASE WHEN $3 THEN NOT EXISTS (SELECT FROM "
											"pg_catalog.pg_event_trigger_dropped_objects() f, "
											"ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) m(part, root) "
											"WHERE m.part OPERATOR(pg_catalog.=) e.objid "
											"AND f.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
											"AND f.objsubid OPERATOR(pg_catalog.=) 0 "
											"AND f.objid OPERATOR(pg_catalog.=) m.root "
											"AND m.root OPERATOR(pg_catalog.<>) m.part) "
											"ELSE e.original OR NOT EXISTS (SELECT FROM "
											"pg_catalog.pg_event_trigger_dropped_objects() f, %s t "
											"WHERE f.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
											"AND f.objsubid OPERATOR(pg_catalog.=) 0 "
											"AND f.objid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid) END) LIMIT 1",
											ttname),
								   3, types, args, NULL, true, 1);
		track_unbecome(&b);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "reading the dropped objects failed: %s", SPI_result_code_string(rc));
		if (SPI_processed > 0 && trigdata->tag == CMDTAG_ALTER_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot drop table %s: it is a partition of a table tracked by a cuckoo store",
							SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)),
					 errdetail("ALTER TABLE commands that replace partitions (SPLIT PARTITION, MERGE PARTITIONS) are not followed in a tracked tree."),
					 errhint("Detach the partitions (ALTER TABLE ... DETACH PARTITION removes their values from the store), "
							 "then create and fill the new ones as partitions, or untrack the table (cuckoo_store_untrack) first.")));
		if (SPI_processed > 0)
			ereport(ERROR,
					(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
					 errmsg("cannot drop table %s: it is a partition of a table tracked by a cuckoo store",
							SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)),
					 errdetail("Its values would stay in the store."),
					 errhint("Detach it first (ALTER TABLE ... DETACH PARTITION), which removes its values from the store, then drop it.")));
	}

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
	if (SPI_processed > 0)
		track_cache_invalidate(tt);
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
		else
			track_retrigger(fcinfo, tt, tab);
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
	for (int i = 0; i < ntrack; i++)
		track_depend_store(fcinfo, stores[i]);
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

/*
 * Another ALTER TABLE subcommand on partitions (PostgreSQL 19's SPLIT
 * PARTITION and MERGE PARTITIONS: new partitions filled by the command
 * itself, with no triggers of the tree): refused in a tracked tree, before
 * anything is half followed.  (Their sql_drop of the replaced partitions
 * refuses them first, cuckoo_track_drop; this is the second guard.)
 */
static void
track_ddl_other_partition_cmd(Oid tt, Oid parent)
{
	Oid		   *stores,
			   *tracked;
	char	  **cols;

	if (!OidIsValid(parent) || track_lookup(tt, parent, &stores, &cols, &tracked) == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("this ALTER TABLE of the partitions of %s is not followed by its cuckoo store",
					get_rel_name(parent)),
			 errdetail("ALTER TABLE commands that replace partitions (SPLIT PARTITION, MERGE PARTITIONS) are not followed in a tracked tree."),
			 errhint("Detach the partitions (ALTER TABLE ... DETACH PARTITION removes their values from the store), "
					 "then create and fill the new ones as partitions, or untrack the table (cuckoo_store_untrack) first.")));
}

/* The relation a RangeVar of the command names, InvalidOid if none. */
static Oid
track_rangevar(RangeVar *rv)
{
	return rv == NULL ? InvalidOid : RangeVarGetRelid(rv, NoLock, true);
}

/*
 * Rebuilds store after a CREATE TRIGGER on rel (not track_create_triggers')
 * made one of the tracking triggers, if now every table the store tracks,
 * and every partition of those, has all its triggers (in SPI).  This is how
 * a restore gives what a rebuild would: pg_dump's data, the store's rows
 * and the trackings included, comes before any trigger, so the last
 * tracking trigger the restore creates for a store finds the tables full
 * and the store as dumped, sticky values and all.  The same holds for
 * triggers dropped by hand and put back.  A parallel restore may load the
 * trackings after the triggers: their insert rebuilds the store then
 * (cuckoo_track_restored, rel invalid).  DESIGN.md, "Living filters",
 * "Where the tracking is recorded".
 *
 * The other tables are locked SHARE first, so that the count of their
 * triggers (under a new snapshot) sees every CREATE TRIGGER before it, and
 * none can run until this transaction ends.  A parallel pg_restore creates
 * the triggers of two tables at once, each holding its own table: a table
 * of a higher OID is waited for, one of a lower OID is only tried.  If it
 * is held and still lacks some of its triggers, this command leaves the
 * rebuild to that table's last CREATE TRIGGER, which waits for this one
 * (so no two wait for each other).  If it is held but has all its
 * triggers, the holder is not that command (a writer, autovacuum, an
 * ALTER TABLE): this one waits for it, as cuckoo_store_rebuild would (a
 * deadlock ends in track_rebuild_guarded's warning).
 */
static void
track_rebuild_restored(FunctionCallInfo fcinfo, Oid tt, Oid rel, Oid store)
{
	char	   *ttname = rel_qualname(tt);
	int			ntrack;
	Oid		   *tabs;
	char	  **cols;
	List	   *tables = NIL;
	ListCell   *lc;
	const char *why = NULL;
	Oid			storeowner = rel_owner(store);
	Become		b;

	track_become(&b, rel_owner(tt));
	ntrack = track_store_trackings(ttname, store, &tabs, &cols);
	track_unbecome(&b);
	for (int i = 0; i < ntrack; i++)
		tables = list_concat_unique_oid(tables, find_all_inheritors(tabs[i], NoLock, NULL));
	list_sort(tables, list_oid_cmp);
	foreach(lc, tables)
	{
		Oid			t = lfirst_oid(lc);

		if (OidIsValid(rel) && t > rel)
			LockRelationOid(t, ShareLock);
		else if (t != rel && !ConditionalLockRelationOid(t, ShareLock))
		{
			bool		tracked = false;

			for (int i = 0; i < ntrack; i++)
				tracked = tracked || tabs[i] == t;
			if (track_count_triggers_now(fcinfo, t, tracked ? track_triggers : part_triggers) !=
				lengthof(track_triggers))
			{
				elog(DEBUG1, "cuckoo store \"%s\" is not rebuilt here: table \"%s\" is busy and lacks triggers",
					 get_rel_name(store), get_rel_name(t));
				return;
			}
			LockRelationOid(t, ShareLock);
		}
	}
	/* every tracked table has its four triggers, every partition its four */
	for (int i = 0; i < ntrack; i++)
	{
		List	   *tree = find_all_inheritors(tabs[i], NoLock, NULL);

		foreach(lc, tree)
		{
			Oid			t = lfirst_oid(lc);

			if (track_count_triggers_now(fcinfo, t, t == tabs[i] ? track_triggers : part_triggers) !=
				lengthof(track_triggers))
				return;
		}
	}

	/*
	 * cuckoo_store_rebuild's refusals, as a warning: the command stands.
	 * The rebuild runs with the rights of the store's owner (a restore's
	 * role is often a superuser, and writing the store fires the triggers
	 * its owner may have put on it), so those rights are checked, and the
	 * caller must have them.
	 */
	if (IsolationUsesXactSnapshot())
		why = "A rebuild runs only under READ COMMITTED.";
	else if (!has_privs_of_role(GetUserId(), storeowner))
		why = "A rebuild here runs with the rights of the store's owner, which the role creating the trigger does not have.";
	else if (pg_class_aclcheck(store, storeowner, ACL_SELECT) != ACLCHECK_OK ||
			 pg_class_aclcheck(store, storeowner, ACL_UPDATE) != ACLCHECK_OK)
		why = "A rebuild needs SELECT and UPDATE on the store (here, its owner's).";
	else if (track_pending_count(store) > 0)
		why = "This transaction has changes of the store pending.";
	for (int i = 0; why == NULL && i < ntrack; i++)
		if (!has_privs_of_role(storeowner, rel_owner(tabs[i])))
			why = psprintf("A rebuild here runs with the rights of the store's owner, which does not have those of the owner of table %s.",
						   get_rel_name(tabs[i]));
	if (why != NULL)
	{
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("cuckoo store \"%s\" was not rebuilt when its tracking triggers were created",
						get_rel_name(store)),
				 errdetail("%s", why),
				 errhint("Call cuckoo_store_rebuild('%s') in a READ COMMITTED transaction of its own.",
						 rel_qualname(store))));
		return;
	}
	/*
	 * A parallel restore may still be loading the store's rows: wait for
	 * the store's writers (a lock let go at once), so that the rebuild
	 * replaces the rows as restored rather than failing on a store without
	 * them.  Then, as the store's owner, in a security-restricted operation.
	 */
	LockRelationOid(store, ShareLock);
	UnlockRelationOid(store, ShareLock);
	track_become(&b, storeowner);
	(void) cuckoo_store_apply(fcinfo, store, NULL, NULL, 0, false, false);
	(void) track_rebuild(fcinfo, ttname, store, ntrack, tabs, cols);
	track_unbecome(&b);
}

/*
 * track_rebuild_restored in a subtransaction: an error of the rebuild (a
 * store without its header row, as when pg_dump left out its data, a
 * deadlock, ...) becomes a WARNING, and the CREATE TRIGGER stands: the
 * trigger, not the rebuild, is what keeps the store from false negatives
 * (a restore that goes on after an error would otherwise leave the table
 * with writes no trigger follows).  A cancel is not caught.
 */
static void
track_rebuild_guarded(FunctionCallInfo fcinfo, Oid tt, Oid rel, Oid store)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	char	   *storename = get_rel_name(store);
	char	   *storequal;

	/* a tracking row inserted by hand may name a relation dropped since */
	if (storename == NULL)
		return;
	storequal = rel_qualname(store);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		track_rebuild_restored(fcinfo, tt, rel, store);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			PG_RE_THROW();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("cuckoo store \"%s\" was not rebuilt when its tracking triggers were created",
						storename),
				 errdetail("The rebuild failed: %s", edata->message),
				 errhint("Call cuckoo_store_rebuild('%s') once the store is whole, in a READ COMMITTED transaction of its own.",
						 storequal)));
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

/*
 * CREATE TRIGGER of one of the tracking triggers' names, not by
 * track_create_triggers: each store tracking the table or its root is
 * rebuilt once its triggers are all there (track_rebuild_guarded).
 */
static void
track_ddl_trigger_created(FunctionCallInfo fcinfo, Oid tt, CreateTrigStmt *stmt)
{
	bool		named = false;
	Oid			rel;
	Oid		   *stores,
			   *tracked;
	char	  **cols;
	int			ntrack;
	List	   *done = NIL;

	for (int i = 0; i < lengthof(track_triggers); i++)
		if (strcmp(stmt->trigname, track_triggers[i][0]) == 0 ||
			strcmp(stmt->trigname, part_triggers[i][0]) == 0)
			named = true;
	rel = named ? track_rangevar(stmt->relation) : InvalidOid;
	if (!OidIsValid(rel))
		return;

	/*
	 * A parallel restore may still be loading the trackings (a COPY in
	 * flight when the table's triggers come): wait for the tracking
	 * table's writers, then read it under a new snapshot.  The lock is let
	 * go at once: only their end is waited for.
	 */
	LockRelationOid(tt, ShareLock);
	UnlockRelationOid(tt, ShareLock);
	ntrack = track_lookup(tt, rel, &stores, &cols, &tracked);
	for (int i = 0; i < ntrack; i++)
		if (!list_member_oid(done, stores[i]))
		{
			done = lappend_oid(done, stores[i]);
			/* the restored triggers depend on the store again, for the next dump */
			track_depend_store(fcinfo, stores[i]);
			track_rebuild_guarded(fcinfo, tt, rel, stores[i]);
		}
}

/*
 * Set while cuckoo_store_track inserts its tracking: that insert rebuilds
 * nothing (the function fills the store itself).
 */
bool		track_inserting_tracking = false;

/*
 * cuckoo_track_tracking_check(): the BEFORE INSERT row trigger of
 * cuckoo_store_tracking (1.6), on which PUBLIC has INSERT (and nothing
 * else) so that a restore by a role that is not a superuser (a database
 * owner's pg_restore --no-owner, or pg_dump | psql) loads the trackings.
 * A row passes only if the inserting role could have made it with
 * cuckoo_store_track: the store has a store's columns; the table exists,
 * is an ordinary or partitioned table, not a partition nor in an
 * inheritance tree, not the store, and has the column; the role is a member of the table's owner; the role and
 * the table's owner have SELECT and UPDATE on the store.  Otherwise 42501
 * (0A000, 42P01, 42703, 42809 for what cuckoo_store_track refuses so).
 * NULLs are left to the NOT NULL constraints, duplicates to the primary
 * key.  Not checked: cuckoo_store_track's own insert (its checks are
 * made), a superuser's (who may write any table, and whose restore grants
 * the store's privileges only after the data), CREATE or ALTER EXTENSION.
 * DESIGN.md, "Living filters", "Privileges".
 */
PG_FUNCTION_INFO_V1(cuckoo_track_tracking_check);
Datum
cuckoo_track_tracking_check(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	HeapTuple	row;
	Datum		d[3];
	bool		isnull[3];
	const char *const names[3] = {"store", "tab", "col"};
	Oid			store,
				tab,
				owner;
	char	   *col;
	char	   *storename;
	char	   *tabname;
	char		relkind;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!TRIGGER_FIRED_BY_INSERT(td->tg_event) || !TRIGGER_FIRED_BEFORE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("cuckoo_track_tracking_check must be called as a BEFORE INSERT row trigger")));
	row = td->tg_trigtuple;
	if (track_inserting_tracking || creating_extension || IsBinaryUpgrade || superuser())
		return PointerGetDatum(row);
	desc = RelationGetDescr(td->tg_relation);
	for (int i = 0; i < 3; i++)
	{
		AttrNumber	att = get_attnum(RelationGetRelid(td->tg_relation), names[i]);

		if (att == InvalidAttrNumber)
			elog(ERROR, "%s has no column \"%s\"", TRACK_TABLE, names[i]);
		d[i] = heap_getattr(row, att, desc, &isnull[i]);
		/* the NOT NULL constraints refuse it, after this trigger */
		if (isnull[i])
			return PointerGetDatum(row);
	}
	store = DatumGetObjectId(d[0]);
	tab = DatumGetObjectId(d[1]);
	col = NameStr(*DatumGetName(d[2]));
	storename = get_rel_name(store);
	tabname = get_rel_name(tab);
	if (storename == NULL || tabname == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("cannot insert a tracking of cuckoo store %u and table %u: relation with OID %u does not exist",
						store, tab, storename == NULL ? store : tab)));
	relkind = get_rel_relkind(tab);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot insert a tracking of table \"%s\" by cuckoo store \"%s\": it is not an ordinary or partitioned table",
						tabname, storename)));
	if (tab == store)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a cuckoo store cannot track itself")));
	/* a store (its columns: its rows may come later in a restore) */
	cuckoo_store_check_shape(fcinfo, store);
	/* a partition, a table in an inheritance tree: as cuckoo_store_track refuses them */
	track_check_no_inheritance(tab);
	owner = rel_owner(tab);
	if (!has_privs_of_role(GetUserId(), owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to insert a tracking of table \"%s\" by cuckoo store \"%s\"",
						tabname, storename),
				 errdetail("Only a member of the table's owner may track it (cuckoo_store_track).")));
	/* each right on its own: a mask of both passes with either */
	if (pg_class_aclcheck(store, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
		pg_class_aclcheck(store, GetUserId(), ACL_UPDATE) != ACLCHECK_OK ||
		pg_class_aclcheck(store, owner, ACL_SELECT) != ACLCHECK_OK ||
		pg_class_aclcheck(store, owner, ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to insert a tracking of table \"%s\" by cuckoo store \"%s\"",
						tabname, storename),
				 errdetail("Tracking needs SELECT and UPDATE on the store, for the caller and for the table's owner (cuckoo_store_track).")));
	(void) track_column(tab, col, InvalidOid);
	return PointerGetDatum(row);
}

/*
 * cuckoo_track_restored(): the AFTER INSERT statement trigger of
 * cuckoo_store_tracking (1.6).  pg_restore -j schedules the data of the
 * trackings by its size, often after the triggers of the tables they
 * track: each CREATE TRIGGER then found no tracking and rebuilt nothing.
 * Here the insert of the trackings rebuilds each store they name whose
 * tables have all their triggers (track_rebuild_guarded, every table only
 * tried: a table held by a CREATE TRIGGER that lacks triggers is left to
 * that command, which waits for this insert's end before it reads the
 * trackings).  Not for cuckoo_store_track's own insert, nor in CREATE or
 * ALTER EXTENSION, nor in pg_upgrade.
 */
PG_FUNCTION_INFO_V1(cuckoo_track_restored);
Datum
cuckoo_track_restored(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			tt;
	AttrNumber	att;
	List	   *stores = NIL;
	ListCell   *lc;
	TupleTableSlot *slot;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		!TRIGGER_FIRED_BY_INSERT(td->tg_event) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		td->tg_newtable == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("cuckoo_track_restored must be called as an AFTER INSERT statement trigger with a new table")));
	tt = RelationGetRelid(td->tg_relation);
	/* every backend's cached trackings (an insert by hand names new ones) */
	track_cache_invalidate(tt);
	if (track_inserting_tracking || creating_extension || IsBinaryUpgrade)
		return PointerGetDatum(NULL);
	att = get_attnum(tt, "store");
	if (att == InvalidAttrNumber)
		elog(ERROR, "%s has no column \"store\"", TRACK_TABLE);
	slot = MakeSingleTupleTableSlot(RelationGetDescr(td->tg_relation), &TTSOpsMinimalTuple);
	tuplestore_rescan(td->tg_newtable);
	while (tuplestore_gettupleslot(td->tg_newtable, true, false, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, att, &isnull);

		if (!isnull)
			stores = list_append_unique_oid(stores, DatumGetObjectId(d));
	}
	ExecDropSingleTupleTableSlot(slot);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	foreach(lc, stores)
	{
		track_depend_store(fcinfo, lfirst_oid(lc));
		track_rebuild_guarded(fcinfo, tt, InvalidOid, lfirst_oid(lc));
	}
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * cuckoo_track_ddl(): on ddl_command_end of CREATE TABLE, ALTER TABLE,
 * CREATE SCHEMA (whose CREATE TABLE subcommands fire no event trigger),
 * CREATE FOREIGN TABLE and CREATE TRIGGER (1.6: a restore's triggers
 * rebuild the store, track_ddl_trigger_created; not in pg_upgrade's
 * schema restore, whose data files come afterwards).
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

	if (parsetree != NULL &&
		(IsA(parsetree, CreateSchemaStmt) || IsA(parsetree, CreateForeignTableStmt)))
	{
		/*
		 * CREATE SCHEMA ... CREATE TABLE ... PARTITION OF: the subcommands
		 * fire no event trigger of their own, but the command's list
		 * (pg_event_trigger_ddl_commands) names the tables created, in
		 * order.  Each partition is followed as a CREATE TABLE of its own
		 * would be (its tree's tables that already carry the triggers are
		 * skipped, so a partition of one created before is not added
		 * twice).  CREATE FOREIGN TABLE ... PARTITION OF a tracked tree is
		 * refused there (track_create_triggers: a foreign table's statement
		 * triggers cannot have transition tables).
		 */
		List	   *created = NIL;
		ListCell   *lc;

		rc = SPI_execute("SELECT c.objid FROM pg_catalog.pg_event_trigger_ddl_commands() c "
						 "WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
						 "AND c.objsubid OPERATOR(pg_catalog.=) 0 "
						 "AND c.command_tag OPERATOR(pg_catalog.=) ANY ('{CREATE TABLE,CREATE FOREIGN TABLE}')", true, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "reading the command's objects failed: %s", SPI_result_code_string(rc));
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;

			created = lappend_oid(created,
								  DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																 SPI_tuptable->tupdesc, 1, &isnull)));
		}
		foreach(lc, created)
		{
			Oid			rel = lfirst_oid(lc);

			/* the partition itself finds its root's trackings */
			if (get_rel_relispartition(rel))
				track_ddl_attached(fcinfo, tt, rel, rel);
		}
	}
	else if (parsetree != NULL && IsA(parsetree, CreateStmt))
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
			else
				track_ddl_other_partition_cmd(tt, parent);
		}
	}
	else if (parsetree != NULL && IsA(parsetree, CreateTrigStmt) &&
			 !track_making_triggers && !creating_extension && !IsBinaryUpgrade)
		track_ddl_trigger_created(fcinfo, tt, (CreateTrigStmt *) parsetree);
	SPI_finish();
	PG_RETURN_VOID();
}
