/*
 * cuckoo_store_change.c
 *     The changes of a stored filter: cuckoo_store_add, _add_if_absent,
 *     _remove and their _array forms, and cuckoo_store_apply, the list of
 *     hashes the living filters apply at commit (cuckoo_store.h).
 */
#include "cuckoo.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "access/detoast.h"	/* toast_datum_size (13 and later) */

#include "cf_store.h"
#include "cuckoo_store_int.h"

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

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
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
		if (segment_apply(&cf, vh, op, h))
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
				if (segment_apply(&cf, vh, op, items[i].h))
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

static int64
store_apply(FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
			const StoreChange *changes, int64 n, bool saturate)
{
	Store		s;
	StoreItem  *items;
	int64		changed = 0;
	int			k = 0,
				nremove = 0;

	if (n > PG_INT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many changes for cuckoo store in one call: " INT64_FORMAT, n)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, vh, true, false);
	items = palloc_extended(sizeof(StoreItem) * (Size) Max(n, 1), MCXT_ALLOC_HUGE);
	/* removes first, then adds: the sort keeps that order within a segment */
	for (int pass = 0; pass < 2; pass++)
		for (int64 i = 0; i < n; i++)
			if (changes[i].remove == (pass == 0))
			{
				items[k].segment = (int32) cf_store_segment(changes[i].h,
															(uint32) s.nsegments);
				items[k].index = k;
				items[k].h = changes[i].h;
				k++;
				if (pass == 0)
					nremove++;
			}
	store_sort_items(&items, k, s.nsegments);
	for (int i = 0; i < k;)
	{
		int32		seg = items[i].segment;
		CuckooFilter *v;
		cf_filter	cf;
		bool		dirty = false;
		cf_params	p;

		CHECK_FOR_INTERRUPTS();
		v = store_read(&s, seg, true, true, false, false);
		if (v == NULL)
			store_missing_segment(&s, seg);
		filter_open(&cf, v);
		filter_check_kind(&cf, vh);
		cf_get_params(&cf, &p);
		for (; i < k && items[i].segment == seg; i++)
		{
			bool		remove = items[i].index < nremove;

			if (saturate && cf_count(&cf, items[i].h) >= p.bucket_size)
				continue;
			if (segment_apply(&cf, vh, remove ? OP_REMOVE : OP_ADD, items[i].h))
			{
				dirty = true;
				changed++;
			}
		}
		if (dirty)
			store_write(&s, seg, &cf);
		pfree(cf.buf - VARHDRSZ);
	}
	SPI_finish();
	return changed;
}
