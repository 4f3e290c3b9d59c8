/*
 * cuckoo_store.h
 *     The interface of the stored filters (src/cuckoo_store_*.c) to the
 *     files above them: a list of hashes applied to a stored filter (the
 *     living filters, src/cuckoo_track*.c, use it), the hook through which
 *     the store sees the living filters' pending changes, and the batched
 *     probe (src/cuckoo_scan.c).  The store's private declarations are in
 *     cuckoo_store_int.h.
 */
#ifndef CUCKOO_STORE_H
#define CUCKOO_STORE_H

#include "cuckoo.h"

#pragma GCC visibility push(hidden)	/* internal: see cuckoo.h */

/* One change of a store: add or remove one copy of a hash. */
typedef struct StoreChange
{
	uint64		h;
	bool		remove;
} StoreChange;

/*
 * Applies changes[0 .. n-1] to store relid, as the current user and inside
 * the caller's transaction: segments locked and changed in segment order,
 * each once, removes before adds within a segment.  With latest, the
 * store's rows are read, locked and written under the newest snapshot, not
 * the transaction's (the caller runs it at commit with the isolation level
 * read committed: a segment another transaction changed since the
 * transaction's snapshot is changed in its newest version, no 40001).  vh gives the value
 * family (recorded in a store that has none yet; another is 42804), and
 * fcinfo a call of one of the extension's functions (its schema and
 * fn_extra are used).  With saturate, an add of a hash of which the
 * segment already holds b / 2 copies (half its pair: b is its bucket
 * size) adds nothing, and a remove removes nothing when the entry it would
 * take may be one of b / 2 copies a value relies on (cf_remove_saturating;
 * DESIGN.md, "Living filters", "Duplicates").  The store is opened and
 * checked even when n is 0.  Returns how many changes changed a segment.
 */
extern int64 cuckoo_store_apply(FunctionCallInfo fcinfo, Oid relid,
								const ValueHasher *vh,
								const StoreChange *changes, int64 n,
								bool saturate, bool latest);

/*
 * Raises the store functions' errors (42P01, 42809) unless relid has a
 * store's columns (its shape only: no row is read, no privilege checked).
 * fcinfo is a call of one of the extension's functions (its schema and
 * fn_extra are used).
 */
extern void cuckoo_store_check_shape(FunctionCallInfo fcinfo, Oid relid);

/*
 * cuckoo_store_apply(..., latest), for the commit, without SQL: the store's
 * rows read through its primary key and its segments locked and updated by
 * the heap's functions, under the newest snapshot.  The caller has checked
 * that role holds SELECT and UPDATE on the store table and USAGE on its
 * schema (the commit's pending_check_roles raises 42501 otherwise); nothing
 * runs as anyone (no SQL, no function but the int4 key's comparisons), so
 * the caller needs no user or search_path switch for it.  Returns false,
 * having done nothing, for a store it does not take (one that is not
 * exactly what cuckoo_store_create makes, one with no value family yet,
 * a transaction made read-only): cuckoo_store_apply does those.
 */
extern bool cuckoo_store_apply_direct(FunctionCallInfo fcinfo, Oid relid, Oid role,
									  const ValueHasher *vh,
									  const StoreChange *changes, int64 n,
									  bool saturate, int64 *changed);

/*
 * Empties every segment of store relid, as the current user and inside the
 * caller's transaction (cuckoo_store_rebuild): each segment is locked and
 * made again what cuckoo_store_create made, an empty segment of the
 * store's created size (a grown segment's extra chunk rows deleted); the
 * header (its value family) stays.  Needs SELECT and UPDATE on the store,
 * as a change does; returns the number of segments.
 */
extern int32 cuckoo_store_empty(FunctionCallInfo fcinfo, Oid relid);

/* True if role has USAGE on the schema of store relid. */
extern bool cuckoo_store_schema_usage(Oid relid, Oid role);

/*
 * The changes this transaction's tracked tables made to store relid that
 * are not applied yet (they are at commit), in segment segment of its
 * nsegments: sets *changes to them (net, removes first) and *vh to their
 * hasher, returns how many.  Every read of a segment for a probe applies
 * them to its copy, so the transaction's own probes see them.  The store
 * asks through this hook, which src/cuckoo_track_pending.c installs
 * (track_init, from _PG_init), so that the store calls no function of the
 * files above it; NULL (no tracking part): there are none.
 */
typedef int64 (*store_pending_hook_type) (Oid relid, uint32 nsegments,
										  int32 segment,
										  const StoreChange **changes,
										  const ValueHasher **vh);
extern store_pending_hook_type store_pending_hook;

/*
 * The batched probe of cuckoo_store_contains (src/cuckoo_scan.c): fcinfo is
 * a call record of cuckoo_store_contains (its flinfo's fn_extra keeps the
 * call site's cache, its expression gives the value's type).
 * cuckoo_store_probe_hasher gives the value's hasher;
 * cuckoo_store_contains_many answers n hashes of such values as n calls at
 * that call site would (the same snapshot, segments read and errors), with
 * the lookups' memory accesses overlapped: out[j] for h[j].
 */
extern ValueHasher *cuckoo_store_probe_hasher(FunctionCallInfo fcinfo);
extern void cuckoo_store_contains_many(FunctionCallInfo fcinfo, Oid relid,
									   const ValueHasher *vh, const uint64 *h,
									   int n, bool *out);

#pragma GCC visibility pop

#endif							/* CUCKOO_STORE_H */
