/*
 * cuckoo_store_create.c
 *     A stored filter's creation and report: cuckoo_store_create (the
 *     table, its header row and its empty segments) and cuckoo_store_info
 *     (1.4: with the store's trackings); cuckoo_store_empty, for
 *     cuckoo_store_rebuild.
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
#include "utils/tuplestore.h"
#include "utils/varlena.h"

#include "access/detoast.h"	/* toast_datum_size (13 and later) */

#include "cf_store.h"
#include "cuckoo_store_int.h"

/* ------------------------------------------------------------------------
 * Creation and info
 * ------------------------------------------------------------------------
 */

/*
 * The parameters of a new growing segment for n items at rate fpr.  Segments
 * keep the shape without the address budget (tail CF_V2_TAIL_BITS, FORMAT
 * 13.12): they are never unioned, a key's segment is fixed by its hash, so
 * the budget's bits would buy nothing and double a small segment's bytes.
 */
static void
store_segment_params(int64 n, double fpr, cf_params *p)
{
	plan_params(n, fpr, 4, 0, false, 500, false, p);
	plan_expansion(2, n, fpr, 4, false, false, 500, p);
	p->budget = false;
	p->tail_bits = CF_V2_TAIL_BITS;
}

/*
 * The largest capacity whose empty growing segment takes at most
 * STORE_SEGMENT_BYTES (at least 1).
 */
static int64
store_segment_capacity(double fpr)
{
	int64		lo = 1,
				hi = 1 << 20;

	while (lo < hi)
	{
		int64		mid = (lo + hi + 1) / 2;
		cf_params	p;

		store_segment_params(mid, fpr, &p);
		if (cf_init_bytes(&p) <= STORE_SEGMENT_BYTES)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void
store_exec(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "\"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

/*
 * cuckoo_store_create(name, capacity, fpr): a new store, a table of
 * ceil(capacity / n) empty growing segments (n from the segment size),
 * owned by the caller, in the schema the name gives or the current one.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_create);
Datum
cuckoo_store_create(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	int64		capacity = PG_GETARG_INT64(1);
	double		fpr = PG_GETARG_FLOAT8(2);
	RangeVar   *rv;
	Oid			nsp;
	char	   *qualname;
	int64		per,
				nseg;
	cf_params	p;
	CuckooFilter *empty;
	Oid			relid;
	Oid			types[5];
	Datum		values[5];

	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	plan_check_fpr(fpr);
	per = store_segment_capacity(fpr);
	nseg = (capacity + per - 1) / per;
	if (nseg > STORE_MAX_SEGMENTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("capacity " INT64_FORMAT " needs more than %d segments",
						capacity, PG_INT32_MAX)));
	store_segment_params((capacity + nseg - 1) / nseg, fpr, &p);
	empty = filter_new(&p);

	rv = makeRangeVarFromNameList(textToQualifiedNameList(name));
	nsp = RangeVarGetCreationNamespace(rv);
	qualname = quote_qualified_identifier(get_namespace_name(nsp), rv->relname);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * Chunk rows stay under the TOAST threshold (STORE_CHUNK_BYTES); the
	 * target and EXTERNAL keep the toaster from trying pglz on a row that a
	 * damaged or hand-made chunk makes larger.
	 */
	store_exec(psprintf("CREATE TABLE %s (segment pg_catalog.int4, "
						"chunk pg_catalog.int4, bytes pg_catalog.bytea NOT NULL, "
						"fpr pg_catalog.float8, capacity pg_catalog.int8, "
						"segments pg_catalog.int4, PRIMARY KEY (segment, chunk)) "
						"WITH (fillfactor = 75, toast_tuple_target = 8160)", qualname),
			   0, NULL, NULL, SPI_OK_UTILITY);
	store_exec(psprintf("ALTER TABLE %s ALTER COLUMN bytes SET STORAGE EXTERNAL", qualname),
			   0, NULL, NULL, SPI_OK_UTILITY);
	types[0] = INT4OID;
	types[1] = BYTEAOID;
	types[2] = FLOAT8OID;
	types[3] = INT8OID;
	types[4] = INT4OID;
	values[0] = Int32GetDatum(STORE_HEADER);
	values[1] = PointerGetDatum(empty);	/* one chunk: at most STORE_SEGMENT_BYTES */
	values[2] = Float8GetDatum(fpr);
	values[3] = Int64GetDatum(capacity);
	values[4] = Int32GetDatum((int32) nseg);
	StaticAssertStmt(STORE_SEGMENT_BYTES <= STORE_CHUNK_BYTES,
					 "a new segment is one chunk");
	store_exec(psprintf("INSERT INTO %s (segment, chunk, bytes, fpr, capacity, segments) "
						"VALUES ($1, 0, $2, $3, $4, $5)", qualname),
			   5, types, values, SPI_OK_INSERT);
	values[0] = Int32GetDatum((int32) (nseg - 1));
	store_exec(psprintf("INSERT INTO %s (segment, chunk, bytes) "
						"SELECT g, 0, $2 FROM pg_catalog.generate_series(0, $1) g",
						qualname),
			   2, types, values, SPI_OK_INSERT);
	SPI_finish();
	relid = get_relname_relid(rv->relname, nsp);
	if (!OidIsValid(relid))
		elog(ERROR, "new cuckoo store %s not found", qualname);
	PG_RETURN_OID(relid);
}

/*
 * Empties every segment of store relid (see cuckoo_store.h): each locked
 * FOR UPDATE in segment order and written as cuckoo_store_create made it,
 * an empty growing segment of the header's capacity and fpr; only the
 * chunks whose bytes differ are written, and a grown segment's extra chunk
 * rows are deleted (as the store's owner, as a shrinking segment's are).
 */
int32
cuckoo_store_empty(FunctionCallInfo fcinfo, Oid relid)
{
	Store		s;
	cf_params	p;
	CuckooFilter *empty;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, NULL, true, false);
	store_segment_params((s.capacity + s.nsegments - 1) / s.nsegments, s.fpr, &p);
	empty = filter_new(&p);
	for (int32 seg = 0; seg < s.nsegments; seg++)
	{
		CuckooFilter *v;
		cf_filter	cf;

		CHECK_FOR_INTERRUPTS();
		v = store_read(&s, seg, true, true, false, false);
		if (v == NULL)
			store_missing_segment(&s, seg);
		pfree(v);
		filter_open(&cf, empty);
		store_write(&s, seg, &cf);
	}
	SPI_finish();
	return s.nsegments;
}

/*
 * The columns cuckoo_store_info can return: 1.3 declares the first seven,
 * 1.4 adds trackings.  The tuple is built from the call's result tupdesc,
 * column by name, so that the library serves both definitions (a database
 * still at 1.3 after the library was upgraded).
 */
typedef enum StoreInfoCol
{
	SI_ITEMS,
	SI_BYTES,
	SI_SEGMENTS,
	SI_FPR,
	SI_VALUE_TYPE,
	SI_CAPACITY,
	SI_EXPECTED_FPR,
	SI_TRACKINGS,
	SI_NCOLS
} StoreInfoCol;

static const struct
{
	const char *name;
	Oid			type;
}			store_info_cols[SI_NCOLS] = {
	{"items", INT8OID},
	{"bytes", INT8OID},
	{"segments", INT4OID},
	{"fpr", FLOAT8OID},
	{"value_type", TEXTOID},
	{"capacity", INT8OID},
	{"expected_fpr", FLOAT8OID},
	{"trackings", TEXTARRAYOID},
};

/*
 * The trackings of store relid (rows of the extension's table
 * cuckoo_store_tracking; a partitioned table is its root's one row), as a
 * text[] of schema.table.column, each part quoted as needed (format's %I,
 * so parse_ident splits it back), sorted; (Datum) 0 if none.  Called
 * inside SPI; the array is copied out to the caller's context.
 */
static Datum
store_info_trackings(FunctionCallInfo fcinfo, Oid relid)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			tt = get_relname_relid("cuckoo_store_tracking", nsp);
	Oid			type = OIDOID;
	Datum		arg = ObjectIdGetDatum(relid);
	bool		isnull;
	Datum		d;
	int			rc;

	if (!OidIsValid(tt))
		elog(ERROR, "table cuckoo_store_tracking not found in the schema of function %u",
			 fcinfo->flinfo->fn_oid);
	rc = SPI_execute_with_args(
		psprintf("SELECT pg_catalog.array_agg(pg_catalog.format('%%I.%%I.%%I', n.nspname, c.relname, t.col) "
				 "ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\", t.col COLLATE \"C\") "
				 "FROM %s t "
				 "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.tab::pg_catalog.oid "
				 "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
				 "WHERE t.store::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
				 quote_qualified_identifier(get_namespace_name(nsp), get_rel_name(tt))),
		1, &type, &arg, NULL, true, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading cuckoo_store_tracking failed: %s", SPI_result_code_string(rc));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return (Datum) 0;
	return SPI_datumTransfer(d, false, -1);
}

/*
 * Calls fn for every row of store s (open, inside SPI) from segment `from`
 * on, in segment order for the 1.6 layout (in the table's order before):
 * the segment's filter (a chunked one put together, not validated yet) and
 * the bytes it takes in its rows.
 */
static void
store_scan_segments(Store *s, int32 from,
					void (*fn) (void *arg, int32 seg, CuckooFilter *v, int64 stored), void *arg)
{
	Datum		a0 = Int32GetDatum(from);
	Portal		portal = SPI_cursor_open(NULL, s->entry->plans[PLAN_ALL], &a0, NULL, true);
	MemoryContext asmcxt = AllocSetContextCreate(CurrentMemoryContext, "cuckoo store chunks",
												 ALLOCSET_DEFAULT_SIZES);
	StoreAsm	a;
	bool		in_seg = false;

	if (portal == NULL)
		elog(ERROR, "reading cuckoo store \"%s\" failed: %s", s->name,
			 SPI_result_code_string(SPI_result));
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			TupleDesc	td = SPI_tuptable->tupdesc;
			bool		isnull,
						n1,
						n2;
			Datum		segd = SPI_getbinval(tup, td, 1, &isnull);
			int32		seg = DatumGetInt32(segd);
			Datum		d;

			CHECK_FOR_INTERRUPTS();
			if (isnull)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("a row of cuckoo store \"%s\" has a NULL segment", s->name)));
			if (!s->chunked)
			{
				CuckooFilter *v;

				d = SPI_getbinval(tup, td, 2, &n2);
				if (n2)
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("a segment of cuckoo store \"%s\" is NULL", s->name)));
				v = DatumGetCuckooFilterP(d);
				fn(arg, seg, v, (int64) toast_datum_size(d));
				if ((Pointer) v != DatumGetPointer(d))
					pfree(v);
				continue;
			}
			if (in_seg && seg != a.segment)
			{
				CuckooFilter *v = store_asm_finish(&a);

				fn(arg, a.segment, v, (int64) VARSIZE(v));
				MemoryContextReset(asmcxt);
				in_seg = false;
			}
			if (!in_seg)
			{
				store_asm_start(&a, s->name, seg, asmcxt);
				in_seg = true;
			}
			{
				/* n1 is set by this call: not in the argument list that reads it */
				int32		chunk = DatumGetInt32(SPI_getbinval(tup, td, 2, &n1));

				d = SPI_getbinval(tup, td, 3, &n2);
				store_asm_add(&a, chunk, n1, d, n2);
			}
		}
		SPI_freetuptable(SPI_tuptable);
	}
	if (in_seg)
	{
		CuckooFilter *v = store_asm_finish(&a);

		fn(arg, a.segment, v, (int64) VARSIZE(v));
	}
	MemoryContextDelete(asmcxt);
	SPI_cursor_close(portal);
}

typedef struct StoreInfoAcc
{
	Store	   *s;
	int64		items;
	int64		bytes;
	int64		rows;
	double		fpr_sum;
} StoreInfoAcc;

static void
store_info_segment(void *arg, int32 seg, CuckooFilter *v0, int64 stored)
{
	StoreInfoAcc *acc = arg;
	CuckooFilter *v;
	cf_filter	cf;
	cf_info		info;

	acc->bytes += stored;
	/* with this transaction's changes not applied yet */
	v = store_overlay(acc->s, seg, v0);
	filter_open(&cf, v);
	cf_get_info(&cf, &info);
	acc->items += (int64) cf_items(&cf);
	acc->fpr_sum += filter_expected_fpr(&cf, &info) * (double) cf_items(&cf);
	acc->rows++;
	if (v != v0)
		pfree(v);
}

typedef struct StoreSegmentsOut
{
	Tuplestorestate *ts;
	TupleDesc	td;
	int64		rows;
} StoreSegmentsOut;

static void
store_segments_row(void *arg, int32 seg, CuckooFilter *v, int64 stored)
{
	StoreSegmentsOut *o = arg;
	cf_filter	cf;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	/* validated: the validator's error names what is wrong */
	filter_open(&cf, v);
	values[0] = Int32GetDatum(seg);
	values[1] = PointerGetDatum(v);
	tuplestore_putvalues(o->ts, o->td, values, nulls);
	o->rows++;
}

/*
 * cuckoo_store_segments(store) (1.6): the store's rows as filters, (segment,
 * f) for the header (-1) and each segment, its chunk rows put together and
 * validated, read in one statement (one snapshot); what a client reads to
 * probe a store from its rows.  As the rows are, without this
 * transaction's tracked changes not applied yet.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_segments);
Datum
cuckoo_store_segments(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TupleDesc	tupdesc;
	MemoryContext old;
	StoreSegmentsOut o;
	Store		s;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		!(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo_store_segments: set-valued function called in context that cannot accept a set")));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	o.td = CreateTupleDescCopy(tupdesc);
	o.ts = tuplestore_begin_heap(true, false, work_mem);
	o.rows = 0;
	MemoryContextSwitchTo(old);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, NULL, false, true);
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	MemoryContextSwitchTo(old);
	store_scan_segments(&s, STORE_HEADER, store_segments_row, &o);
	SPI_finish();
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = o.ts;
	rsinfo->setDesc = o.td;
	return (Datum) 0;
}

/*
 * cuckoo_store_info(store): items, bytes, segments, fpr (the target),
 * value_type, capacity, expected_fpr and (1.4) trackings.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_info);
Datum
cuckoo_store_info(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	TupleDesc	tupdesc;
	Store		s;
	int64		items = 0,
				bytes = 0,
				rows = 0;
	double		fpr_sum = 0;
	const char *kind;
	int			colmap[SI_NCOLS];
	Datum		all[SI_NCOLS];
	Datum	   *values;
	bool	   *nulls;
	HeapTuple	result;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	for (int c = 0; c < SI_NCOLS; c++)
		colmap[c] = -1;
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		int			c;

		for (c = 0; c < SI_NCOLS; c++)
			if (strcmp(NameStr(att->attname), store_info_cols[c].name) == 0)
				break;
		if (c == SI_NCOLS || att->atttypid != store_info_cols[c].type || colmap[c] >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cuckoo_store_info cannot return column \"%s\" of type %s",
							NameStr(att->attname), format_type_be(att->atttypid)),
					 errhint("Update the extension: ALTER EXTENSION cuckoo UPDATE.")));
		colmap[c] = i;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, NULL, false, true);
	kind = cf_kind_name(cf_kind_of(&s.hcf));
	{
		StoreInfoAcc acc = {0};

		acc.s = &s;
		store_scan_segments(&s, 0, store_info_segment, &acc);
		items = acc.items;
		bytes = acc.bytes;
		rows = acc.rows;
		fpr_sum = acc.fpr_sum;
	}
	if (rows != s.nsegments)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo store \"%s\" has " INT64_FORMAT " segment rows, not %d",
						s.name, rows, s.nsegments)));
	all[SI_TRACKINGS] = colmap[SI_TRACKINGS] >= 0 ? store_info_trackings(fcinfo, relid) : (Datum) 0;
	SPI_finish();
	if (colmap[SI_TRACKINGS] >= 0 && all[SI_TRACKINGS] == (Datum) 0)
		all[SI_TRACKINGS] = PointerGetDatum(construct_empty_array(TEXTOID));	/* none */
	all[SI_ITEMS] = Int64GetDatum(items);
	all[SI_BYTES] = Int64GetDatum(bytes);
	all[SI_SEGMENTS] = Int32GetDatum(s.nsegments);
	all[SI_FPR] = Float8GetDatum(s.fpr);
	all[SI_VALUE_TYPE] = CStringGetTextDatum(kind);
	all[SI_CAPACITY] = Int64GetDatum(s.capacity);
	all[SI_EXPECTED_FPR] = Float8GetDatum(items > 0 ? fpr_sum / (double) items : 0.0);
	values = palloc(sizeof(Datum) * Max(tupdesc->natts, 1));
	nulls = palloc0(sizeof(bool) * Max(tupdesc->natts, 1));
	for (int c = 0; c < SI_NCOLS; c++)
		if (colmap[c] >= 0)
			values[colmap[c]] = all[c];
	result = heap_form_tuple(tupdesc, values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(result));
}
