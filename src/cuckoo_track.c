/*
 * cuckoo_track.c
 *     Living filters (extension 1.3): a stored filter kept in step with a
 *     table's column, in the same transaction as every change of its rows.
 *     This file holds the SQL functions cuckoo_store_track,
 *     cuckoo_store_untrack, cuckoo_store_rebuild (1.6) and
 *     cuckoo_store_verify; the trigger function
 *     cuckoo_track_trigger is in cuckoo_track_trigger.c, the event trigger
 *     functions in cuckoo_track_ddl.c, the pending changes applied at
 *     commit in cuckoo_track_pending.c, what they share (trackings,
 *     triggers, roles) in cuckoo_track_catalog.c.
 *
 * The design is in docs/DESIGN.md ("Living filters").  A tracking is a row
 * (store, tab, col) of the extension's table cuckoo_store_tracking; a
 * tracked table has four statement triggers that call cuckoo_track_trigger,
 * which reads the trackings of its table and queues the transition tables'
 * values for their stores; the commit applies them (cuckoo_store_apply),
 * with the rights of the table's owner.  A tracked partitioned table's
 * partitions, every level, have four more (cuckoo_track_part_*), whose
 * calls apply to the trackings of their ancestors; the event triggers keep
 * them on the partitions created, attached and detached later.
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
#include "cuckoo_track_int.h"

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
	/* each right on its own: a mask of both passes with either */
	if (pg_class_aclcheck(store, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
		pg_class_aclcheck(store, GetUserId(), ACL_UPDATE) != ACLCHECK_OK ||
		pg_class_aclcheck(store, rel_owner(tab), ACL_SELECT) != ACLCHECK_OK ||
		pg_class_aclcheck(store, rel_owner(tab), ACL_UPDATE) != ACLCHECK_OK)
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

	/* its insert rebuilds nothing (cuckoo_track_restored): the values are added below */
	track_inserting_tracking = true;
	PG_TRY();
	{
		track_table_exec(tt, psprintf("INSERT INTO %s (store, tab, col) VALUES ($1, $2, $3)", ttname),
						 3, types, values, SPI_OK_INSERT);
	}
	PG_FINALLY();
	{
		track_inserting_tracking = false;
	}
	PG_END_TRY();
	track_cache_invalidate(tt);
	/* the triggers depend on the store: a restore loads it before them */
	track_depend_store(fcinfo, store);

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
	track_cache_invalidate(tt);
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
	else
	{
		/* the triggers stay for other trackings: their dependencies follow */
		track_undepend_store(fcinfo, store, tab);
		track_depend_store(fcinfo, store);
	}
	SPI_finish();
	PG_RETURN_VOID();
}


/* ------------------------------------------------------------------------
 * Rebuild
 * ------------------------------------------------------------------------
 */

/*
 * The trackings of store (read in SPI under a new snapshot): sets *tabs and
 * *cols, in (tab, col) order, returns how many.
 */
int
track_store_trackings(const char *ttname, Oid store, Oid **tabs, char ***cols)
{
	Oid			type = REGCLASSOID;
	Datum		arg = ObjectIdGetDatum(store);
	bool		isnull;
	int			rc;
	int			n;

	rc = SPI_execute_with_args(psprintf("SELECT tab::pg_catalog.oid, col FROM %s "
										"WHERE store OPERATOR(pg_catalog.=) $1 ORDER BY 1, 2",
										ttname),
							   1, &type, &arg, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading %s failed: %s", TRACK_TABLE, SPI_result_code_string(rc));
	n = (int) SPI_processed;
	*tabs = palloc(sizeof(Oid) * Max(n, 1));
	*cols = palloc(sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		(*tabs)[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													SPI_tuptable->tupdesc, 1, &isnull));
		(*cols)[i] = pstrdup(NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[i],
																 SPI_tuptable->tupdesc, 2,
																 &isnull))));
	}
	SPI_freetuptable(SPI_tuptable);
	return n;
}

/*
 * The rebuild itself, once its caller has checked the rights, the
 * isolation level and the pending changes (in SPI): locks the tracked
 * tables (every partition) SHARE in OID order, again for partitions
 * attached meanwhile, then the store SHARE ROW EXCLUSIVE; reads the
 * trackings again (40001 if they changed), empties the store and queues
 * the tracked columns' values, as cuckoo_store_track's first fill does
 * (applied at commit, saturating, with the caller's rights).  Returns how
 * many values it queued.
 */
int64
track_rebuild(FunctionCallInfo fcinfo, const char *ttname, Oid store,
			  int ntrack, Oid *tabs, char **cols)
{
	int			ntrack2;
	Oid		   *tabs2;
	char	  **cols2;
	List	   *locked = NIL;
	int64		added = 0;

	for (;;)
	{
		List	   *want = NIL;
		ListCell   *lc;
		bool		more = false;

		for (int i = 0; i < ntrack; i++)
			want = list_concat_unique_oid(want, find_all_inheritors(tabs[i], NoLock, NULL));
		list_sort(want, list_oid_cmp);
		foreach(lc, want)
			if (!list_member_oid(locked, lfirst_oid(lc)))
			{
				LockRelationOid(lfirst_oid(lc), ShareLock);
				locked = lappend_oid(locked, lfirst_oid(lc));
				more = true;
			}
		if (!more)
			break;
	}
	LockRelationOid(store, ShareRowExclusiveLock);
	ntrack2 = track_store_trackings(ttname, store, &tabs2, &cols2);
	for (int i = 0; i < ntrack; i++)
		if (ntrack2 != ntrack || tabs2[i] != tabs[i] || strcmp(cols2[i], cols[i]) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("the trackings of cuckoo store \"%s\" changed while it was being rebuilt",
							get_rel_name(store)),
					 errhint("Call cuckoo_store_rebuild again.")));

	(void) cuckoo_store_empty(fcinfo, store);

	for (int i = 0; i < ntrack; i++)
	{
		AttrNumber	att = track_column(tabs[i], cols[i], store);
		Oid			atttype,
					attcoll;
		int32		atttypmod;
		ValueHasher vh;
		ChangeList	l = {0};
		Become		b;

		get_atttypetypmodcoll(tabs[i], att, &atttype, &atttypmod, &attcoll);
		value_hasher_init(&vh, atttype, attcoll, CurrentMemoryContext);
		/* all the rows (row security off), under a snapshot after the locks */
		track_become(&b, GetUserId());
		track_read_table(tabs[i], cols[i], &vh, false, &l, false);
		track_unbecome(&b);
		/* as the first fill: queued, applied at commit with the caller's rights */
		if (l.n > 0)
			track_queue(fcinfo, store, GetUserId(), atttype, attcoll, &l);
		added += l.n;
		if (l.c != NULL)
			pfree(l.c);
	}
	return added;
}

/*
 * cuckoo_store_rebuild(store): empties the store and adds the values of the
 * columns it tracks again (track_rebuild); returns how many values it added.
 * The tracked tables are locked first: their writers in flight have
 * committed, their changes applied, and new ones wait for this
 * transaction's end; the store is locked after the tables, as a writer
 * takes them, so a tracking added meanwhile is seen.  The columns are then
 * read under a snapshot taken after the locks, which only READ COMMITTED
 * gives (the statement's or the transaction's snapshot may be older).
 * DESIGN.md, "Living filters", "Rebuild".
 */
PG_FUNCTION_INFO_V1(cuckoo_store_rebuild);
Datum
cuckoo_store_rebuild(PG_FUNCTION_ARGS)
{
	Oid			store = PG_GETARG_OID(0);
	Oid			tt = track_table(fcinfo);
	char	   *ttname = rel_qualname(tt);
	int			ntrack;
	Oid		   *tabs;
	char	  **cols;
	int64		added;

	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cuckoo_store_rebuild cannot run in a %s transaction",
						IsolationIsSerializable() ? "SERIALIZABLE" : "REPEATABLE READ"),
				 errdetail("It reads the tracked columns after locking their tables; this transaction's snapshot may be older than the locks, and would miss values committed in between."),
				 errhint("Run it in a READ COMMITTED transaction.")));
	if (get_rel_relkind(store) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", store)));
	/* each right on its own: a mask of both passes with either */
	if (pg_class_aclcheck(store, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
		pg_class_aclcheck(store, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for cuckoo store %s", get_rel_name(store)),
				 errdetail("A rebuild needs SELECT and UPDATE on the store, for the caller and for the tracked tables' owners.")));
	/* the store: its shape and header, with the store functions' errors */
	(void) cuckoo_store_apply(fcinfo, store, NULL, NULL, 0, false, false);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ntrack = track_store_trackings(ttname, store, &tabs, &cols);
	if (ntrack == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cuckoo store \"%s\" tracks no column: there is nothing to rebuild it from",
						get_rel_name(store)),
				 errhint("cuckoo_store_track adds a column's values and keeps the store in step with it.")));
	/* the rights cuckoo_store_track asks, for every tracking */
	for (int i = 0; i < ntrack; i++)
	{
		track_check_owner(tabs[i]);
		if (pg_class_aclcheck(store, rel_owner(tabs[i]), ACL_SELECT) != ACLCHECK_OK ||
			pg_class_aclcheck(store, rel_owner(tabs[i]), ACL_UPDATE) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for cuckoo store %s", get_rel_name(store)),
					 errdetail("A rebuild needs SELECT and UPDATE on the store, for the caller and for the tracked tables' owners.")));
	}

	/*
	 * The changes this transaction queued for the store are of rows the
	 * rebuild reads: applied at commit after it, they would count twice.
	 */
	if (track_pending_count(store) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cuckoo store \"%s\" has changes pending in this transaction",
						get_rel_name(store)),
				 errdetail("This transaction changed a table the store tracks (or tracked one): the rebuild reads those rows, and the changes, applied at commit, would count twice."),
				 errhint("Rebuild the store in a transaction of its own, or before changing its tracked tables.")));

	added = track_rebuild(fcinfo, ttname, store, ntrack, tabs, cols);
	SPI_finish();
	PG_RETURN_INT64(added);
}

/*
 * cuckoo_track_depend_all(): gives the tracking triggers of every tracking
 * their dependency on its store (track_depend_store).  Called once by the
 * update from 1.5, whose trackings have none, and dropped there: not part
 * of any version's SQL interface.
 */
PG_FUNCTION_INFO_V1(cuckoo_track_depend_all);
Datum
cuckoo_track_depend_all(PG_FUNCTION_ARGS)
{
	Oid			tt = track_table(fcinfo);
	List	   *stores;
	ListCell   *lc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	stores = track_tracked_stores(tt, InvalidOid, false);
	foreach(lc, stores)
		track_depend_store(fcinfo, lfirst_oid(lc));
	SPI_finish();
	PG_RETURN_INT32(list_length(stores));
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
