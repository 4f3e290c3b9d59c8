/*
 * cuckoo_store_load.c
 *     The bulk load of a stored filter (extension 1.5):
 *     cuckoo_store_load_agg(store regclass, value anycompatible), an
 *     aggregate whose transitions hash the values (in parallel workers when
 *     the query is planned so), whose state spills to temporary files by
 *     segment range, and whose final function applies each segment once, in
 *     segment order (docs/DESIGN.md, "The bulk load").  The segments are
 *     read, changed and written by the functions of cuckoo_store_segment.c,
 *     through SQL run as the caller.
 *
 * In the leader of a parallel plan no row may be updated: there the final
 * function checks the store, keeps the state, and the executor's run hook
 * (load_init, from _PG_init) applies it when the query's plan is done.
 */
#include "cuckoo.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodes.h"
#include "nodes/primnodes.h"
#include "storage/buffile.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "cf_store.h"
#include "cuckoo_store_int.h"

/* Temporary files of a spilled state: ranges of segments, in order. */
#define LOAD_PARTS		256

/* A serialised (partial) state: u32 magic, u32 zero, u32 relid, u32 zero, then u64 hashes. */
#define LOAD_MAGIC		0x44414f4cu	/* "LOAD" */

typedef struct LoadSerial
{
	uint32		magic;
	uint32		pad;
	Oid			relid;
	uint32		pad2;
} LoadSerial;

/* At most this many hashes in a serialised state (1 GB). */
#define LOAD_SERIAL_MAX	((int64) ((MaxAllocSize - VARHDRSZ - sizeof(LoadSerial)) / sizeof(uint64)))

typedef struct LoadState
{
	MemoryContext cxt;			/* holds the state (NULL: a deserialised view) */
	Oid			relid;
	bool		partial;		/* to be serialised: no spill */
	uint64	   *buf;
	int64		nbuf;
	int64		capbuf;
	int64		maxbuf;			/* spill past this (not partial) */
	int64		total;			/* hashes added, spilled ones included */
	BufFile   **parts;			/* [LOAD_PARTS], NULL until the first spill */
	int64	   *partn;			/* [LOAD_PARTS], hashes in each */
} LoadState;

/* A load kept by a final function in parallel mode, applied after the plan. */
typedef struct KeptLoad
{
	LoadState  *st;
	Oid			typid;
	Oid			collation;
	Oid			fn_oid;			/* the final function (the extension's schema) */
	int			level;			/* GetCurrentTransactionNestLevel() */
	struct KeptLoad *next;
} KeptLoad;

static KeptLoad *kept = NULL;	/* in TopTransactionContext, newest first */
static bool kept_callbacks = false;

static MemoryContext
load_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

static LoadState *
load_new(MemoryContext parent, Oid relid, FunctionCallInfo fcinfo)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "cuckoo_store_load_agg",
											  ALLOCSET_DEFAULT_SIZES);
	LoadState  *st = MemoryContextAllocZero(cxt, sizeof(LoadState));
	Aggref	   *aggref = AggGetAggref(fcinfo);

	st->cxt = cxt;
	st->relid = relid;
	st->partial = aggref != NULL && DO_AGGSPLIT_SERIALIZE(aggref->aggsplit);
	/* half of maintenance_work_mem: the spill's scratch array is the other */
	st->maxbuf = Max((int64) maintenance_work_mem * 1024, (int64) 1 << 20) /
		(int64) (2 * sizeof(uint64));
	st->capbuf = Min(st->maxbuf, 8192);
	st->buf = MemoryContextAlloc(cxt, sizeof(uint64) * st->capbuf);
	return st;
}

static void
load_check_store(LoadState *st, Oid relid)
{
	if (st->relid != relid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo_store_load_agg loads one store per group, not \"%s\" and \"%s\"",
						get_rel_name(st->relid), get_rel_name(relid)),
				 errhint("Give every row of a group the same store.")));
}

static void
load_write(BufFile *f, const void *p, size_t n)
{
	BufFileWrite(f, (void *) p, n);
}

/*
 * Writes the buffer's hashes to the partitions' temporary files: grouped by
 * partition first (a counting sort into a scratch array), so that each
 * partition gets one write per spill.
 */
static void
load_spill(LoadState *st)
{
	int64		start[LOAD_PARTS + 1];
	uint64	   *out;

	if (st->parts == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		st->parts = palloc0(sizeof(BufFile *) * LOAD_PARTS);
		st->partn = palloc0(sizeof(int64) * LOAD_PARTS);
		for (int p = 0; p < LOAD_PARTS; p++)
			st->parts[p] = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	if (st->nbuf == 0)
		return;
	memset(start, 0, sizeof(start));
	for (int64 i = 0; i < st->nbuf; i++)
		start[cf_store_segment(st->buf[i], LOAD_PARTS) + 1]++;
	for (int p = 0; p < LOAD_PARTS; p++)
		start[p + 1] += start[p];
	out = MemoryContextAllocHuge(st->cxt, sizeof(uint64) * (Size) st->nbuf);
	for (int64 i = 0; i < st->nbuf; i++)
		out[start[cf_store_segment(st->buf[i], LOAD_PARTS)]++] = st->buf[i];
	/* start[p] is now the end of partition p */
	for (int p = 0; p < LOAD_PARTS; p++)
	{
		int64		b = p == 0 ? 0 : start[p - 1];

		if (start[p] > b)
			load_write(st->parts[p], out + b, sizeof(uint64) * (Size) (start[p] - b));
		st->partn[p] += start[p] - b;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(out);
	st->nbuf = 0;
}

static void
load_push(LoadState *st, uint64 h)
{
	if (st->nbuf == st->capbuf)
	{
		if (st->partial)
		{
			if (st->total >= LOAD_SERIAL_MAX)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("cuckoo_store_load_agg: one process's share of a parallel load is limited to " INT64_FORMAT " values",
								LOAD_SERIAL_MAX),
						 errhint("Load it without parallel workers (SET max_parallel_workers_per_gather = 0): a serial load spills to temporary files and has no such limit.")));
			st->capbuf = Min(st->capbuf * 2, LOAD_SERIAL_MAX);
			st->buf = repalloc_huge(st->buf, sizeof(uint64) * st->capbuf);
		}
		else if (st->capbuf < st->maxbuf)
		{
			st->capbuf = Min(st->capbuf * 2, st->maxbuf);
			st->buf = repalloc_huge(st->buf, sizeof(uint64) * st->capbuf);
		}
		else
			load_spill(st);
	}
	st->buf[st->nbuf++] = h;
	st->total++;
}

/* Transition: (state, store, value). */
PG_FUNCTION_INFO_V1(cuckoo_store_load_trans);
Datum
cuckoo_store_load_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = load_agg_context(fcinfo, "cuckoo_store_load_trans");
	LoadState  *st = PG_ARGISNULL(0) ? NULL : (LoadState *) PG_GETARG_POINTER(0);
	ValueHasher *vh;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	vh = store_hasher(fcinfo, 2, false);
	if (st == NULL)
		st = load_new(aggcxt, PG_GETARG_OID(1), fcinfo);
	else
		load_check_store(st, PG_GETARG_OID(1));
	load_push(st, value_hash(vh, PG_GETARG_DATUM(2)));
	PG_RETURN_POINTER(st);
}

/* Combine: state 1 gains state 2's hashes; state 2 is only read. */
PG_FUNCTION_INFO_V1(cuckoo_store_load_combine);
Datum
cuckoo_store_load_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = load_agg_context(fcinfo, "cuckoo_store_load_combine");
	LoadState  *s1 = PG_ARGISNULL(0) ? NULL : (LoadState *) PG_GETARG_POINTER(0);
	LoadState  *s2 = PG_ARGISNULL(1) ? NULL : (LoadState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s2->parts != NULL)
		elog(ERROR, "cuckoo_store_load_agg: a spilled state cannot be combined");
	if (s1 == NULL)
		s1 = load_new(aggcxt, s2->relid, fcinfo);
	else
		load_check_store(s1, s2->relid);
	/* a hash at a time where the buffer is full (it grows or spills), else copied in runs */
	for (int64 i = 0; i < s2->nbuf;)
	{
		int64		run = Min(s1->capbuf - s1->nbuf, s2->nbuf - i);

		if (run == 0)
		{
			load_push(s1, s2->buf[i++]);
			continue;
		}
		memcpy(s1->buf + s1->nbuf, s2->buf + i, sizeof(uint64) * (Size) run);
		s1->nbuf += run;
		s1->total += run;
		i += run;
		CHECK_FOR_INTERRUPTS();
	}
	PG_RETURN_POINTER(s1);
}

PG_FUNCTION_INFO_V1(cuckoo_store_load_serialize);
Datum
cuckoo_store_load_serialize(PG_FUNCTION_ARGS)
{
	LoadState  *st;
	LoadSerial	hdr = {0};
	bytea	   *out;
	Size		len;

	(void) load_agg_context(fcinfo, "cuckoo_store_load_serialize");
	st = (LoadState *) PG_GETARG_POINTER(0);
	if (st->parts != NULL || st->nbuf > LOAD_SERIAL_MAX)
		elog(ERROR, "cuckoo_store_load_agg: a spilled state cannot be serialised");
	len = VARHDRSZ + sizeof(LoadSerial) + (Size) st->nbuf * sizeof(uint64);
	out = palloc_extended(len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(out, len);
	hdr.magic = LOAD_MAGIC;
	hdr.relid = st->relid;
	memcpy(VARDATA(out), &hdr, sizeof(hdr));
	memcpy(VARDATA(out) + sizeof(hdr), st->buf, (Size) st->nbuf * sizeof(uint64));
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(cuckoo_store_load_deserialize);
Datum
cuckoo_store_load_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	LoadSerial	hdr;
	LoadState  *st;
	Size		n;

	(void) load_agg_context(fcinfo, "cuckoo_store_load_deserialize");
	in = PG_GETARG_BYTEA_P(0);
	if (VARSIZE(in) < VARHDRSZ + sizeof(LoadSerial) ||
		(VARSIZE(in) - VARHDRSZ - sizeof(LoadSerial)) % sizeof(uint64) != 0)
		elog(ERROR, "cuckoo_store_load_agg: bad serialised state");
	memcpy(&hdr, VARDATA(in), sizeof(hdr));
	if (hdr.magic != LOAD_MAGIC)
		elog(ERROR, "cuckoo_store_load_agg: bad serialised state");
	n = (VARSIZE(in) - VARHDRSZ - sizeof(LoadSerial)) / sizeof(uint64);
	/* a view of the hashes, read by the combine function only */
	st = palloc0(sizeof(LoadState));
	st->relid = hdr.relid;
	st->nbuf = st->total = (int64) n;
	st->capbuf = (int64) n;
	st->buf = palloc_extended(Max(n, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	memcpy(st->buf, VARDATA(in) + sizeof(LoadSerial), n * sizeof(uint64));
	PG_RETURN_POINTER(st);
}

/* ------------------------------------------------------------------------
 * The apply
 * ------------------------------------------------------------------------
 */

/*
 * Adds items[0 .. n-1] (sorted by segment) to their segments, each read FOR
 * UPDATE, changed and written once.  With hold, the items of the last
 * segment are not applied: their hashes go to carry (*ncarry of them).
 */
static int64
load_apply_items(Store *s, const ValueHasher *vh, StoreItem *items, int64 n,
				 bool hold, uint64 *carry, int64 *ncarry)
{
	int64		changed = 0;
	int64		end = n;

	*ncarry = 0;
	if (hold && n > 0)
	{
		int32		last = items[n - 1].segment;

		while (end > 0 && items[end - 1].segment == last)
			end--;
		for (int64 i = end; i < n; i++)
			carry[(*ncarry)++] = items[i].h;
	}
	for (int64 i = 0; i < end;)
	{
		int32		seg = items[i].segment;
		CuckooFilter *v;
		cf_filter	cf;
		bool		dirty = false;

		CHECK_FOR_INTERRUPTS();
		v = store_read(s, seg, true, true, false, false);
		if (v == NULL)
			store_missing_segment(s, seg);
		filter_open(&cf, v);
		filter_check_kind(&cf, vh);
		for (; i < end && items[i].segment == seg; i++)
			if (segment_apply(&cf, vh, OP_ADD, items[i].h))
			{
				dirty = true;
				changed++;
			}
		if (dirty)
			store_write(s, seg, &cf);
		pfree(cf.buf - VARHDRSZ);
	}
	return changed;
}

/* Routes h[0 .. n-1] to their segments, sorted by segment. */
static StoreItem *
load_route(const uint64 *h, int64 n, int32 nsegments)
{
	StoreItem  *items;

	if (n > PG_INT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo_store_load_agg: " INT64_FORMAT " values in one segment range are too many",
						n),
				 errhint("Load the values in parts.")));
	items = palloc_extended(sizeof(StoreItem) * (Size) Max(n, 1), MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < n; i++)
	{
		items[i].segment = (int32) cf_store_segment(h[i], (uint32) nsegments);
		items[i].index = (int) i;
		items[i].h = h[i];
	}
	store_sort_items(&items, (int) n, nsegments);
	return items;
}

/* Reads the k hashes of partition file f into h, after the n0 there. */
static uint64 *
load_read_part(BufFile *f, int64 k, uint64 *h, int64 n0, int64 *n)
{
	size_t		got;

	if (BufFileSeek(f, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind a temporary file of cuckoo_store_load_agg: %m")));
	h = repalloc_huge(h, sizeof(uint64) * (Size) Max(n0 + k, 1));
	got = BufFileRead(f, h + n0, sizeof(uint64) * (Size) k);
	if (got != sizeof(uint64) * (Size) k)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read a temporary file of cuckoo_store_load_agg: read %zu of %zu bytes",
						got, sizeof(uint64) * (Size) k)));
	*n = n0 + k;
	return h;
}

/*
 * Applies state st to its store, as the current user, inside an SPI
 * connection of its own; vh gives the value family.  Returns how many
 * hashes changed the store.
 */
static int64
load_apply(FunctionCallInfo fcinfo, LoadState *st, ValueHasher *vh)
{
	Store		s;
	int64		changed = 0;
	MemoryContext work;
	MemoryContext old;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, st->relid, vh, true, false);
	work = AllocSetContextCreate(CurrentMemoryContext, "cuckoo_store_load_agg apply",
								 ALLOCSET_DEFAULT_SIZES);
	if (st->parts == NULL)
	{
		StoreItem  *items;
		int64		nc;

		old = MemoryContextSwitchTo(work);
		items = load_route(st->buf, st->nbuf, s.nsegments);
		MemoryContextSwitchTo(old);
		changed = load_apply_items(&s, vh, items, st->nbuf, false, NULL, &nc);
	}
	else
	{
		uint64	   *h;
		int64		ncarry = 0;

		load_spill(st);
		old = MemoryContextSwitchTo(work);
		h = palloc(sizeof(uint64));
		MemoryContextSwitchTo(old);
		for (int p = 0; p < LOAD_PARTS; p++)
		{
			int64		n;
			StoreItem  *items;
			uint64	   *carry;

			old = MemoryContextSwitchTo(work);
			h = load_read_part(st->parts[p], st->partn[p], h, ncarry, &n);
			BufFileClose(st->parts[p]);
			st->parts[p] = NULL;
			items = load_route(h, n, s.nsegments);
			carry = palloc(sizeof(uint64) * (Size) Max(n, 1));
			MemoryContextSwitchTo(old);
			changed += load_apply_items(&s, vh, items, n, p < LOAD_PARTS - 1,
										carry, &ncarry);
			pfree(items);
			pfree(h);
			h = carry;
		}
	}
	MemoryContextDelete(work);
	SPI_finish();
	return changed;
}

/*
 * Final: (state, store, value).  Returns how many values the store gained.
 * In parallel mode (a parallel plan's leader) the state is kept and
 * applied by load_run when the plan is done.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_load_final);
Datum
cuckoo_store_load_final(PG_FUNCTION_ARGS)
{
	LoadState  *st;
	ValueHasher *vh;

	(void) load_agg_context(fcinfo, "cuckoo_store_load_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_INT64(0);
	st = (LoadState *) PG_GETARG_POINTER(0);
	if (st->total == 0)
		PG_RETURN_INT64(0);
	vh = store_hasher(fcinfo, 2, false);
	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cuckoo_store_load_agg cannot finish in a parallel worker"),
				 errhint("Load from a query whose aggregate is finished by the leader (not inside a subquery a parallel join runs in each worker).")));
	if (IsInParallelMode())
	{
		KeptLoad   *k;
		Store		s;

		/* what can be checked read-only fails the query here */
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		store_open(&s, fcinfo, st->relid, vh, false, true);
		SPI_finish();
		if (!kept_callbacks)
			elog(ERROR, "cuckoo_store_load_agg: the module's executor hook is not installed");
		k = MemoryContextAllocZero(TopTransactionContext, sizeof(KeptLoad));
		MemoryContextSetParent(st->cxt, TopTransactionContext);
		k->st = st;
		k->typid = vh->typid;
		k->collation = vh->collation;
		k->fn_oid = fcinfo->flinfo->fn_oid;
		k->level = GetCurrentTransactionNestLevel();
		k->next = kept;
		kept = k;
		PG_RETURN_INT64(st->total);
	}
	(void) load_apply(fcinfo, st, vh);
	PG_RETURN_INT64(st->total);
}

/* ------------------------------------------------------------------------
 * Loads kept in parallel mode
 * ------------------------------------------------------------------------
 */

/* Applies the kept loads, oldest first (out of parallel mode). */
static void
load_apply_kept(void)
{
	while (kept != NULL)
	{
		KeptLoad   *k = kept;
		KeptLoad   *prev = NULL;
		FmgrInfo	flinfo;
		ValueHasher vh;

		LOCAL_FCINFO(fc, 0);

		/* the oldest */
		while (k->next != NULL)
		{
			prev = k;
			k = k->next;
		}
		if (prev == NULL)
			kept = NULL;
		else
			prev->next = NULL;
		memset(&flinfo, 0, sizeof(flinfo));
		flinfo.fn_oid = k->fn_oid;
		flinfo.fn_mcxt = k->st->cxt;
		InitFunctionCallInfoData(*fc, &flinfo, 0, k->collation, NULL, NULL);
		value_hasher_init(&vh, k->typid, k->collation, k->st->cxt);
		(void) load_apply(fc, k->st, &vh);
		MemoryContextDelete(k->st->cxt);
		pfree(k);
	}
}

static ExecutorRun_hook_type prev_executor_run = NULL;

#if PG_VERSION_NUM >= 180000
static void
load_run(QueryDesc *queryDesc, ScanDirection direction, uint64 count)
{
	if (prev_executor_run)
		prev_executor_run(queryDesc, direction, count);
	else
		standard_ExecutorRun(queryDesc, direction, count);
	if (kept != NULL && !IsInParallelMode())
		load_apply_kept();
}
#else
static void
load_run(QueryDesc *queryDesc, ScanDirection direction, uint64 count,
		 bool execute_once)
{
	if (prev_executor_run)
		prev_executor_run(queryDesc, direction, count, execute_once);
	else
		standard_ExecutorRun(queryDesc, direction, count, execute_once);
	if (kept != NULL && !IsInParallelMode())
		load_apply_kept();
}
#endif

/*
 * A load still kept at commit (none should be: the run hook applies them
 * when its statement's plan is done) fails the commit, never dropped in
 * silence (its temporary files went with its statement); a transaction
 * that aborts drops them.
 */
static void
load_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (kept != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("a cuckoo_store_load_agg of store \"%s\" was not applied by the end of its statement",
								get_rel_name(kept->st->relid)),
						 errhint("Another module's executor hook may not call cuckoo's; load without parallel workers (SET max_parallel_workers_per_gather = 0).")));
			break;
		default:
			kept = NULL;		/* its memory goes with the transaction */
			break;
	}
}

static void
load_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					  SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();

	if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		/* the parent's now */
		for (KeptLoad *k = kept; k != NULL; k = k->next)
			if (k->level >= level)
				k->level = level - 1;
		return;
	}
	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	while (kept != NULL && kept->level >= level)
	{
		KeptLoad   *k = kept;

		kept = k->next;
		if (k->st->cxt != NULL)
			MemoryContextDelete(k->st->cxt);
		pfree(k);
	}
}

/* Installs the executor's run hook (called by _PG_init). */
void
load_init(void)
{
	prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = load_run;
	RegisterXactCallback(load_xact_callback, NULL);
	RegisterSubXactCallback(load_subxact_callback, NULL);
	kept_callbacks = true;
}
