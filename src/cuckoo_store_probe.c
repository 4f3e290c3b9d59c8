/*
 * cuckoo_store_probe.c
 *     The probes of a stored filter: cuckoo_store_contains and its _array
 *     form, the call site's cache of the segments read (one read per
 *     segment and query) and the batched probe of the scans
 *     (cuckoo_store_probe_hasher, cuckoo_store_contains_many: once every
 *     segment is kept, through the core's flat lookup, cf_store.h).
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

#include "cf_slice.h"
#include "cuckoo_arg.h"
#include "cf_store.h"
#include "cuckoo_store_int.h"

/*
 * True when the segments in pc were read under the snapshot the next read
 * would use, by the same user, from the same store: then reading again
 * would give the same rows.  A probe reads with the active snapshot
 * (SPI, read-only).  Within one query that snapshot does not change; a
 * new statement (in PL/pgSQL, a new expression evaluation in a volatile
 * function) gets a new one, with a higher command id after a change of
 * this transaction and other xmax, running transactions or (14+) a higher
 * completion count after other transactions end.
 */
static bool
probe_cache_valid(const ProbeCache *pc, Oid relid)
{
	Snapshot	snap;

	if (!pc->valid || pc->relid != relid || pc->userid != GetUserId() ||
		!ActiveSnapshotSet())
		return false;
	snap = GetActiveSnapshot();
	return snap == pc->snap && snap->curcid == pc->curcid &&
		snap->xmin == pc->xmin && snap->xmax == pc->xmax &&
		snap->xcnt == pc->xcnt && snap->subxcnt == pc->subxcnt &&
		snap->suboverflowed == pc->suboverflowed
#if PG_VERSION_NUM >= 140000
		&& snap->snapXactCompletionCount == pc->completions
#endif
		;
}

/*
 * True when row-level security is enabled on the store.  Its policies may
 * depend on more than the user and the snapshot (a setting, the clock), so
 * segments read once may not be what reading again would give: such a store
 * is read at every probe, as plain SQL would read it.
 */
static bool
store_has_rls(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		rls;

	if (!HeapTupleIsValid(tp))
		return true;
	rls = ((Form_pg_class) GETSTRUCT(tp))->relrowsecurity;
	ReleaseSysCache(tp);
	return rls;
}

/* Starts a new cache for store s (open, inside SPI) under the active snapshot. */
static void
probe_cache_reset(FunctionCallInfo fcinfo, ProbeCache *pc, Store *s)
{
	Snapshot	snap = GetActiveSnapshot();
	MemoryContext old;

	pc->valid = false;
	if (s->nsegments > PROBE_CACHE_MAX_SEGMENTS)
		return;					/* its index alone would be too large */
	if (store_has_rls(s->relid))
		return;					/* policies may see other rows under this snapshot */
	if (pc->cxt == NULL)
		pc->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
										"cuckoo store probe cache",
										ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(pc->cxt);
	old = MemoryContextSwitchTo(pc->cxt);
	pc->segs = palloc_extended(sizeof(cf_filter *) * (Size) s->nsegments,
								MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	cf_open(&pc->hcf, memcpy(palloc(s->hcf.len), s->hcf.buf, s->hcf.len), s->hcf.len);
	MemoryContextSwitchTo(old);
	pc->relid = s->relid;
	pc->userid = GetUserId();
	pc->snap = snap;
	pc->curcid = snap->curcid;
	pc->xmin = snap->xmin;
	pc->xmax = snap->xmax;
	pc->xcnt = snap->xcnt;
	pc->subxcnt = snap->subxcnt;
	pc->suboverflowed = snap->suboverflowed;
#if PG_VERSION_NUM >= 140000
	pc->completions = snap->snapXactCompletionCount;
#endif
	pc->nsegments = s->nsegments;
	pc->bytes = 0;
	pc->arena = NULL;
	pc->arena_left = 0;
	pc->reads = 0;
	pc->slice_keys = 0;
	pc->raw = NULL;
	pc->flat_state = 0;
	pc->flat = NULL;
	pc->nflat = 0;
	pc->valid = true;
}

/*
 * Segment seg's view c is kept in the cache: its record of the flat lookup
 * too (the shape from the first segment kept; none if that has not the
 * flat shape).
 */
static void
probe_keep(ProbeCache *pc, int32 seg, cf_filter *c)
{
	pc->segs[seg] = c;
	if (pc->flat_state == 0)
		pc->flat_state = cf_store_shape_of(c, &pc->flat_shape) ? 1 : -1;
	if (pc->flat_state < 0)
		return;
	if (pc->flat == NULL)		/* at a line's start: no record spans two */
		pc->flat = (cf_store_seg *)
			TYPEALIGN(64, MemoryContextAllocExtended(pc->cxt,
													 sizeof(cf_store_seg) * (Size) pc->nsegments + 64,
													 MCXT_ALLOC_HUGE));
	cf_store_seg_of(&pc->flat_shape, c, &pc->flat[seg]);
	pc->nflat++;
}

/*
 * Opens store relid for probes at call site fcinfo (inside SPI): in full,
 * starting a new cache, unless the cache holds what reading again would
 * give; then only the relation's shape and the plans, as always.
 */
static void
probe_open(FunctionCallInfo fcinfo, Store *s, Oid relid, const ValueHasher *vh)
{
	StoreCallCache *cc = store_call_cache(fcinfo);
	ProbeCache *pc = &cc->probe;

	if (probe_cache_valid(pc, relid))
	{
		memset(s, 0, sizeof(*s));
		s->chunked = store_check_shape(relid, cc->filter_type);
		s->relid = relid;
		s->name = get_rel_name(relid);
		s->entry = store_entry(relid, cc->filter_type, s->chunked);
		s->nsegments = pc->nsegments;
	}
	else
	{
		store_open(s, fcinfo, relid, vh, false, true);
		probe_cache_reset(fcinfo, pc, s);
	}
}

/* Room for a view and a copy of v in the cache (counted in pc->bytes by the caller). */
static cf_filter *
probe_alloc(ProbeCache *pc, CuckooFilter *v)
{
	Size		need = TYPEALIGN(64, sizeof(cf_filter) + VARSIZE(v));
	cf_filter  *c;

	if (need > pc->arena_left)
	{
		Size		block = Max(need, PROBE_ARENA_BLOCK);

		pc->arena = (char *) TYPEALIGN(64, MemoryContextAlloc(pc->cxt, block + 64));
		pc->arena_left = block;
	}
	c = (cf_filter *) pc->arena;
	pc->arena += need;
	pc->arena_left -= need;
	return c;
}

/*
 * After this many segments read one by one, a call site reads the rest of
 * the store in one statement: a scan probes them all, and one statement
 * reads them with one executor start instead of one per segment.
 */
static int64
probe_read_all_after(int32 nsegments)
{
	return Max(64, nsegments / 8);
}

/*
 * Reads every segment of store s (open, inside SPI) not in the cache yet,
 * in one statement under the same snapshot as the reads one by one, into
 * pc->raw, as far as the cache's budget allows, but for the segments this
 * transaction has pending changes of.  Copies are opened (header
 * checked, kind compared) at their first probe, so a damaged segment gives
 * its error at the row that probes it, as when read alone.  Two rows of one
 * segment are an error here too.
 */
static bool
probe_keep_raw(ProbeCache *pc, Store *s, int32 seg, CuckooFilter *v)
{
	cf_filter  *c;

	if (pc->raw[seg] != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo store \"%s\" has more than one row for segment %d",
						s->name, seg),
				 errhint("A store's table keeps its primary key on segment.")));
	if (pc->bytes + VARSIZE(v) > PROBE_CACHE_BYTES)
		return false;
	c = probe_alloc(pc, v);
	memcpy(c + 1, v, VARSIZE(v));
	pc->raw[seg] = c;
	pc->bytes += VARSIZE(v);
	return true;
}

/* True when a probe reads segment seg of s one by one, not from the read of all. */
static bool
probe_skip_seg(ProbeCache *pc, Store *s, int32 seg)
{
	const StoreChange *pending;
	const ValueHasher *pending_vh;

	/* rows a probe never reads are left to the probes' own reads */
	if (seg < 0 || seg >= pc->nsegments || pc->segs[seg] != NULL)
		return true;
	/*
	 * So is a segment this transaction has changes of, not applied until its
	 * commit: the read one by one lays them over the copy (store_overlay), so
	 * its probes find what the transaction added.
	 */
	return store_pending(s->relid, (uint32) pc->nsegments, seg, &pending, &pending_vh) > 0;
}

static void
probe_read_all(ProbeCache *pc, Store *s)
{
	Datum		arg = Int32GetDatum(0);
	Portal		portal;
	bool		full = false;
	StoreAsm	a;
	bool		in_seg = false;	/* a is collecting a segment's chunks */
	MemoryContext asmcxt = NULL;

	pc->raw = MemoryContextAllocExtended(pc->cxt, sizeof(cf_filter *) * (Size) pc->nsegments,
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	portal = SPI_cursor_open(NULL, s->entry->plans[PLAN_ALL], &arg, NULL, true);
	if (portal == NULL)
		elog(ERROR, "reading cuckoo store \"%s\" failed: %s", s->name,
			 SPI_result_code_string(SPI_result));
	if (s->chunked)
		asmcxt = AllocSetContextCreate(CurrentMemoryContext, "cuckoo store chunks",
									   ALLOCSET_DEFAULT_SIZES);
	while (!full)
	{
		SPI_cursor_fetch(portal, true, 256);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed && !full; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			TupleDesc	td = SPI_tuptable->tupdesc;
			bool		isnull;
			int32		seg = DatumGetInt32(SPI_getbinval(tup, td, 1, &isnull));
			Datum		d;
			CuckooFilter *v;

			if (s->chunked)
			{
				bool		n1,
							n2;
				Datum		c,
							b;

				/*
				 * Rows come by segment, then chunk: a segment is put together
				 * from its rows, and kept when the next segment's rows start.
				 * A damaged segment is left to its own read (its error at the
				 * row that probes it), but for two segments of one number.
				 */
				if (in_seg && (isnull || seg != a.segment))
				{
					in_seg = false;
					v = store_asm_finish(&a);
					if (!probe_keep_raw(pc, s, a.segment, v))
						full = true;
					MemoryContextReset(asmcxt);
					if (full)
						break;
				}
				if (isnull || probe_skip_seg(pc, s, seg))
					continue;
				c = SPI_getbinval(tup, td, 2, &n1);
				b = SPI_getbinval(tup, td, 3, &n2);
				if (!in_seg)
				{
					if (pc->raw[seg] != NULL)
						(void) probe_keep_raw(pc, s, seg, NULL);	/* raises the error */
					store_asm_start(&a, s->name, seg, asmcxt);
					in_seg = true;
				}
				store_asm_add(&a, n1 ? 0 : DatumGetInt32(c), n1, b, n2);
				continue;
			}
			if (isnull || probe_skip_seg(pc, s, seg))
				continue;
			d = SPI_getbinval(tup, td, 2, &isnull);
			if (isnull)
			{
				if (pc->raw[seg] != NULL)
					(void) probe_keep_raw(pc, s, seg, NULL);	/* raises the error */
				continue;		/* its own read raises the error */
			}
			v = DatumGetCuckooFilterP(d);
			if (!probe_keep_raw(pc, s, seg, v))
			{
				full = true;
				break;
			}
			if ((Pointer) v != DatumGetPointer(d))
				pfree(v);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	if (in_seg && !full)
	{
		CuckooFilter *v = store_asm_finish(&a);

		(void) probe_keep_raw(pc, s, a.segment, v);
	}
	if (asmcxt != NULL)
		MemoryContextDelete(asmcxt);
	SPI_cursor_close(portal);
}

/* The view of segment seg from its copy in pc->raw, opened and checked now. */
static const cf_filter *
probe_open_raw(ProbeCache *pc, const ValueHasher *vh, int32 seg)
{
	cf_filter  *c = pc->raw[seg];

	filter_open(c, (CuckooFilter *) (c + 1));
	filter_check_kind(c, vh);
	probe_keep(pc, seg, c);
	return c;
}

static int
probe_int32_cmp(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * Copies chunk c of segment seg of store name, the bytes d of a chunk that
 * is not the last, to its place in buf: STORE_CHUNK_BYTES of them, or the
 * segment is damaged.
 */
static void
probe_put_chunk(const char *name, int32 seg, char *buf, int32 c, Datum d)
{
	bytea	   *b = DatumGetByteaPP(d);

	if (VARSIZE_ANY_EXHDR(b) != STORE_CHUNK_BYTES)
		store_chunks_damaged(name, seg,
							 psprintf("Chunk %d has %zu bytes, not %d, and is not the last.",
									  c, VARSIZE_ANY_EXHDR(b), STORE_CHUNK_BYTES));
	memcpy(buf + (Size) c * STORE_CHUNK_BYTES, VARDATA_ANY(b), STORE_CHUNK_BYTES);
}

/*
 * A read of segment seg of store s (1.6 layout; open, inside SPI) for a
 * probe of hash h, under the query's snapshot (read-only statements: one
 * snapshot).  One statement reads chunks 0 .. STORE_SLICE_MIN_CHUNKS - 1
 * and the last: a segment of no more chunks is then whole, returned in
 * *whole (put together and checked as a whole read is).  A larger one is
 * probed by a slice read when slices is set: the chunks of h's two buckets
 * (cf_slice_ranges) are read by a second statement, the answer is put in
 * *found and true returned.  *whole NULL and false: read the segment whole
 * (store_read): slices not wanted, this transaction has pending changes of
 * it (store_overlay needs it whole), or its header is not one slices can
 * address (the whole read's checks report it).  The rows read are checked
 * as a whole read checks them (numbers, lengths, the header against the
 * segment's length); the rows a slice read does not read are not.
 */
static bool
probe_chunks(Store *s, const ValueHasher *vh, int32 seg, uint64 h, bool slices,
			 bool *found, CuckooFilter **whole)
{
	Datum		args[2];
	const StoreChange *pending;
	const ValueHasher *pending_vh;
	TupleDesc	td;
	bool		n1,
				n2;
	int32		last;
	Size		lastlen,
				len;
	char	   *buf;
	uint64		hdr;
	cf_filter	view;
	cf_range	r[2];
	int			nr;
	int32		want[16];
	int			nwant = 0;
	int32		have;			/* chunks 0 .. have - 1 are in buf */
	char		err[256];
	int			rc;
	uint64		nrows;

	*whole = NULL;
	args[0] = Int32GetDatum(seg);
	rc = SPI_execute_plan(s->entry->plans[PLAN_SLICE_HEAD], args, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading cuckoo store \"%s\" failed: %s", s->name,
			 SPI_result_code_string(rc));
	nrows = SPI_processed;
	if (nrows == 0)
		return false;			/* no such segment: the whole read says so */
	td = SPI_tuptable->tupdesc;
	last = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[nrows - 1], td, 1, &n1));
	if (n1 || last < STORE_SLICE_MIN_CHUNKS)
	{
		/* the whole segment (or damage the checks name) */
		StoreAsm	a;

		store_asm_start(&a, s->name, seg, CurrentMemoryContext);
		for (uint64 i = 0; i < nrows; i++)
		{
			Datum		c = SPI_getbinval(SPI_tuptable->vals[i], td, 1, &n1);
			Datum		b = SPI_getbinval(SPI_tuptable->vals[i], td, 2, &n2);

			store_asm_add(&a, n1 ? 0 : DatumGetInt32(c), n1, b, n2);
		}
		SPI_freetuptable(SPI_tuptable);
		s->entry->chunks_seen = a.next;
		*whole = store_overlay(s, seg, store_asm_finish(&a));
		return false;
	}
	if (!slices ||
		store_pending(s->relid, (uint32) s->nsegments, seg, &pending, &pending_vh) > 0)
	{
		SPI_freetuptable(SPI_tuptable);
		return false;
	}
	{
		Datum		b = SPI_getbinval(SPI_tuptable->vals[nrows - 1], td, 2, &n2);

		if (n2)
			store_chunks_damaged(s->name, seg, "A chunk row has a NULL bytes.");
		lastlen = VARSIZE_ANY_EXHDR(DatumGetByteaPP(b));
	}
	if (lastlen < 1 || lastlen > STORE_CHUNK_BYTES)
		store_chunks_damaged(s->name, seg,
							 psprintf("Chunk %d has %zu bytes (1 to %d).", last, lastlen,
									  STORE_CHUNK_BYTES));
	s->entry->chunks_seen = last + 1;
	len = (Size) last * STORE_CHUNK_BYTES + lastlen;
	if (len > MaxAllocSize - VARHDRSZ)
		store_chunks_damaged(s->name, seg, "It has more bytes than a filter can.");
	buf = palloc(len);
	/* chunks 0 .. have - 1 from the first rows, checked as a whole read would */
	have = 0;
	for (uint64 i = 0; i + 1 < nrows; i++)
	{
		int32		c = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], td, 1, &n1));
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], td, 2, &n2);

		if (n1 || n2)
			store_chunks_damaged(s->name, seg, "A chunk row has a NULL chunk or bytes.");
		if (c != have)
			store_chunks_damaged(s->name, seg, c < have ?
								 psprintf("Chunk %d is there more than once.", c) :
								 psprintf("Chunk %d is missing (the next is chunk %d).", have, c));
		probe_put_chunk(s->name, seg, buf, c, d);
		have++;
	}
	if (have != STORE_SLICE_MIN_CHUNKS)
		store_chunks_damaged(s->name, seg, psprintf("Chunk %d is missing.", have));
	{
		bytea	   *b = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[nrows - 1], td, 2, &n2));

		memcpy(buf + (Size) last * STORE_CHUNK_BYTES, VARDATA_ANY(b), lastlen);
	}
	SPI_freetuptable(SPI_tuptable);
	hdr = cf_slice_header_bytes(buf, (Size) have * STORE_CHUNK_BYTES, len);
	if (hdr == 0 || hdr > (uint64) have * STORE_CHUNK_BYTES)
	{
		pfree(buf);
		return false;
	}
	if (!cf_check_header(buf, len, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoofilter value: %s", err)));
	cf_open(&view, buf, len);
	filter_check_kind(&view, vh);
	nr = cf_slice_ranges(&view, h, r);
	for (int i = 0; i < nr; i++)
	{
		int32		first = (int32) (r[i].off / STORE_CHUNK_BYTES);
		int32		end = (int32) ((r[i].off + r[i].len - 1) / STORE_CHUNK_BYTES);

		for (int32 c = Max(first, have); c <= end && c < last; c++)
		{
			if (nwant == (int) lengthof(want))
			{
				pfree(buf);
				return false;	/* a bucket wider than chunks: read whole */
			}
			want[nwant++] = c;
		}
	}
	if (nwant > 0)
	{
		ArrayType  *arr;
		Datum		elems[lengthof(want)];
		int			got = 0;
		int			n = 0;

		qsort(want, nwant, sizeof(int32), probe_int32_cmp);
		for (int i = 0; i < nwant; i++)
			if (n == 0 || want[n - 1] != want[i])
				want[n++] = want[i];
		nwant = n;
		for (int i = 0; i < nwant; i++)
			elems[i] = Int32GetDatum(want[i]);
		arr = construct_array(elems, nwant, INT4OID, sizeof(int32), true, TYPALIGN_INT);
		args[1] = PointerGetDatum(arr);
		rc = SPI_execute_plan(s->entry->plans[PLAN_SLICE_CHUNKS], args, NULL, true, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "reading cuckoo store \"%s\" failed: %s", s->name,
				 SPI_result_code_string(rc));
		td = SPI_tuptable->tupdesc;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			int32		c = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], td, 1, &n1));
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], td, 2, &n2);

			if (n1 || n2)
				store_chunks_damaged(s->name, seg, "A chunk row has a NULL chunk or bytes.");
			/* rows come in chunk order: each wanted chunk once */
			if (got >= nwant || c != want[got])
				store_chunks_damaged(s->name, seg,
									 psprintf("Chunk %d is there more than once.", c));
			probe_put_chunk(s->name, seg, buf, c, d);
			got++;
		}
		if (got < nwant)
			store_chunks_damaged(s->name, seg,
								 psprintf("Chunk %d is missing.", want[got]));
		SPI_freetuptable(SPI_tuptable);
		pfree(arr);
	}
	*found = cf_contains(&view, h);
	pfree(buf);
	return true;
}

/*
 * Reads segment seg of store s (open, inside SPI) for a probe of hash h:
 * its view kept in the call site's cache and returned, or, when the cache
 * cannot keep it (or it was probed by a slice read, probe_slice), NULL with
 * the answer for h in *found.
 */
static const cf_filter *
probe_read_segment(ProbeCache *pc, Store *s, const ValueHasher *vh, int32 seg,
				   uint64 h, bool *found)
{
	CuckooFilter *v;
	cf_filter	cf;
	const cf_filter *kept = NULL;

	v = NULL;
	if (s->chunked && s->entry->chunks_seen >= STORE_SLICE_MIN_CHUNKS)
	{
		/*
		 * The first keys of a call site by slices (cuckoo.slice_read_max_keys
		 * = 0 turns them off, as for a stored value)
		 */
		bool		slices = (!pc->valid || pc->slice_keys < STORE_SLICE_KEYS) &&
			slice_read_max_keys != 0;

		if (probe_chunks(s, vh, seg, h, slices, found, &v))
		{
			pc->slice_keys++;
			return NULL;
		}
	}
	if (v == NULL)
		v = store_read(s, seg, false, false, true, false);

	if (v == NULL)
		store_missing_segment(s, seg);
	filter_open(&cf, v);
	filter_check_kind(&cf, vh);
	if (pc->valid && pc->bytes + VARSIZE(v) <= PROBE_CACHE_BYTES)
	{
		cf_filter  *c = probe_alloc(pc, v);
		CuckooFilter *copy = (CuckooFilter *) (c + 1);

		memcpy(copy, v, VARSIZE(v));
		cf_open(c, copy->bytes, CUCKOO_BYTES_LEN(copy));
		probe_keep(pc, seg, c);
		pc->bytes += VARSIZE(v);
		kept = c;
	}
	else
		*found = cf_contains(&cf, h);
	SPI_freetuptable(SPI_tuptable);
	return kept;
}

/* cuckoo_store_contains(store, value): may value be in the store? */
PG_FUNCTION_INFO_V1(cuckoo_store_contains);
Datum
cuckoo_store_contains(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ValueHasher *vh = store_hasher(fcinfo, 1, false);
	uint64		h = value_hash(vh, PG_GETARG_DATUM(1));
	bool		found;

	cuckoo_store_contains_many(fcinfo, relid, vh, &h, 1, &found);
	PG_RETURN_BOOL(found);
}

ValueHasher *
cuckoo_store_probe_hasher(FunctionCallInfo fcinfo)
{
	return store_hasher(fcinfo, 1, false);
}

void
cuckoo_store_contains_many(FunctionCallInfo fcinfo, Oid relid, const ValueHasher *vh,
						   const uint64 *h, int n, bool *out)
{
	StoreCallCache *cc = store_call_cache(fcinfo);
	ProbeCache *pc = &cc->probe;
	const cf_filter *one_cf;
	uint64		one_h;
	const cf_filter **cfs = &one_cf;	/* views of the lookups left */
	uint64	   *hs = &one_h;
	int		   *where = NULL;
	bool	   *res;
	int			m = 0;
	Store		s;

	if (n <= 0)
		return;

	/*
	 * The cache holds what reading again would give; a value of another
	 * family goes the whole way, which raises the error.
	 */
	if (probe_cache_valid(pc, relid) && !filter_kind_matches(&pc->hcf, vh))
		pc->valid = false;
	if (probe_cache_valid(pc, relid) && pc->nflat == pc->nsegments)
	{
		/* every segment kept, with its record: the common case of a scan */
		cf_store_contains_flat(&pc->flat_shape, pc->flat,
							   (const cf_filter *const *) pc->segs,
							   (uint32) pc->nsegments, h, n, out);
		return;
	}
	if (probe_cache_valid(pc, relid))
	{
		if (n > 1)
			cfs = palloc(sizeof(cf_filter *) * n);
		for (m = 0; m < n; m++)
		{
			cfs[m] = pc->segs[cf_store_segment(h[m], (uint32) pc->nsegments)];
			if (cfs[m] == NULL)
				break;
		}
		if (m == n)
		{
			/* every segment cached (not all of them yet, or not flat) */
			cf_contains_each(cfs, h, n, out);
			if (cfs != &one_cf)
				pfree(cfs);
			return;
		}
		if (cfs != &one_cf)
			pfree(cfs);
		cfs = &one_cf;
	}

	/* some segment to read: in order, the errors at the first row that meets them */
	if (n > 1)
	{
		cfs = palloc(sizeof(cf_filter *) * n);
		hs = palloc(sizeof(uint64) * n);
		where = palloc(sizeof(int) * n);
		res = palloc(sizeof(bool) * n);
	}
	else
		res = out;
	m = 0;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	probe_open(fcinfo, &s, relid, vh);
	for (int j = 0; j < n; j++)
	{
		int32		seg = (int32) cf_store_segment(h[j], (uint32) s.nsegments);
		const cf_filter *c = pc->valid ? pc->segs[seg] : NULL;

		if (c == NULL && pc->valid && pc->raw == NULL &&
			++pc->reads > probe_read_all_after(pc->nsegments))
			probe_read_all(pc, &s);
		if (c == NULL && pc->valid && pc->raw != NULL && pc->raw[seg] != NULL)
			c = probe_open_raw(pc, vh, seg);
		if (c == NULL)
			c = probe_read_segment(pc, &s, vh, seg, h[j], &out[j]);
		if (c != NULL)
		{
			cfs[m] = c;
			hs[m] = h[j];
			if (where != NULL)
				where[m] = j;
			m++;
		}
	}
	SPI_finish();
	if (m > 0)
		cf_contains_each(cfs, hs, m, res);
	if (where != NULL)
	{
		for (int k = 0; k < m; k++)
			out[where[k]] = res[k];
		pfree(cfs);
		pfree(hs);
		pfree(where);
		pfree(res);
	}
}

/*
 * cuckoo_store_contains_array(store, values[]): one answer per element, NULL
 * for NULL; each segment read once.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_contains_array);
Datum
cuckoo_store_contains_array(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ValueHasher *vh = store_hasher(fcinfo, 1, true);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int			ndim = ARR_NDIM(arr);
	Store		s;
	StoreItem  *items;
	bool	   *nulls;
	Datum	   *out;
	int			n,
				ne;
	MemoryContext outer = CurrentMemoryContext;
	ArrayType  *result;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	store_open(&s, fcinfo, relid, vh, false, true);
	items = store_route_array(&s, vh, arr, &n, &ne, &nulls);
	out = palloc0(sizeof(Datum) * Max(ne, 1));
	for (int i = 0; i < n;)
	{
		int32		seg = items[i].segment;
		CuckooFilter *v;
		cf_filter	cf;

		CHECK_FOR_INTERRUPTS();
		v = store_read(&s, seg, false, false, true, false);
		if (v == NULL)
			store_missing_segment(&s, seg);
		filter_open(&cf, v);
		filter_check_kind(&cf, vh);
		for (; i < n && items[i].segment == seg; i++)
			out[items[i].index] = BoolGetDatum(cf_contains(&cf, items[i].h));
		SPI_freetuptable(SPI_tuptable);
	}
	{
		MemoryContext old = MemoryContextSwitchTo(outer);

		if (ndim == 0)
			result = construct_empty_array(BOOLOID);
		else
			result = construct_md_array(out, nulls, ndim, ARR_DIMS(arr),
										ARR_LBOUND(arr), BOOLOID, 1, true,
										TYPALIGN_CHAR);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	PG_RETURN_ARRAYTYPE_P(result);
}
