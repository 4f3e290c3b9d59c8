/*
 * cuckoo_track_int.h
 *     The living filters' private declarations, shared by
 *     src/cuckoo_track*.c: the tracking table's name, lists of changes,
 *     a saved role, then the externs grouped by file.
 */
#ifndef CUCKOO_TRACK_INT_H
#define CUCKOO_TRACK_INT_H

#include "executor/spi.h"

#include "cuckoo_store.h"

#pragma GCC visibility push(hidden)	/* internal: see cuckoo.h */

#define TRACK_TABLE		"cuckoo_store_tracking"

/* Rows read from a table per fetch (bulk load, TRUNCATE). */
#define TRACK_FETCH		10000

#define PART_TRIGGER_PREFIX "cuckoo_track_part_"

/* A list of changes being collected. */
typedef struct ChangeList
{
	StoreChange *c;
	int64		n;
	int64		cap;
} ChangeList;

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

/* cuckoo_track_catalog.c */
extern const char *const track_triggers[4][2];
extern const char *const part_triggers[4][2];
extern void changes_push(ChangeList *l, uint64 h, bool remove);
extern void changes_cancel(ChangeList *l);
extern Oid ext_namespace(FunctionCallInfo fcinfo);
extern char *rel_qualname(Oid relid);
extern Oid rel_owner(Oid relid);
extern Oid track_table(FunctionCallInfo fcinfo);
extern void track_become(Become *b, Oid role);
extern void track_unbecome(Become *b);
extern void track_table_exec(Oid tt, const char *sql, int nargs, Oid *types, Datum *values, int expect);
extern void track_check_owner(Oid tab);
extern AttrNumber track_column(Oid tab, const char *col, Oid store);
extern void track_read_table(Oid tab, const char *col, ValueHasher *vh, bool remove, ChangeList *l, bool only);
extern int64 track_count_triggers(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2]);
extern int64 track_count_triggers_now(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2]);
extern void track_check_no_inheritance(Oid tab);
extern void track_drop_set(Oid tab, const char *const set[][2]);
extern void track_drop_triggers(Oid tab);
extern bool track_create_triggers(FunctionCallInfo fcinfo, Oid tab, const char *const set[][2]);
extern bool track_making_triggers;
extern List *track_tracked_stores(Oid tt, Oid tab, bool as_owner);
extern void track_depend_store(FunctionCallInfo fcinfo, Oid store);
extern void track_undepend_store(FunctionCallInfo fcinfo, Oid store, Oid tab);

/* cuckoo_track_ddl.c */
extern bool track_inserting_tracking;

/* cuckoo_track.c */
extern int	track_store_trackings(const char *ttname, Oid store, Oid **tabs, char ***cols);
extern int64 track_rebuild(FunctionCallInfo fcinfo, const char *ttname, Oid store,
						   int ntrack, Oid *tabs, char **cols);

/* cuckoo_track_pending.c */
extern void track_queue(FunctionCallInfo fcinfo, Oid store, Oid role, Oid typid, Oid collid, const ChangeList *l);
extern int64 track_pending_count(Oid store);

/* cuckoo_track_trigger.c */
extern SPIPlanPtr track_lookup_plan(Oid tt);
extern Datum track_self_and_ancestors(Oid tab, bool ispartition);
extern void track_cache_invalidate(Oid tt);

#pragma GCC visibility pop

#endif							/* CUCKOO_TRACK_INT_H */
