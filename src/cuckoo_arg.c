/*
 * cuckoo_arg.c
 *     Function arguments, cached per call site in fn_extra (CallSiteCache):
 *     a filter argument detoasted once and the core's view of it kept while
 *     the same filter comes back row after row, and the hasher of a value
 *     argument, set up on the first row.
 */
#include "cuckoo_arg.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include <sys/mman.h>

#include "cf_slice.h"

/*
 * A detoasted copy of filter datum d in the call site's memory context; a
 * large one is moved into memory advised for huge pages, as it will be probed
 * at random row after row.
 */
static CuckooFilter *
detoast_to_keep(FunctionCallInfo fcinfo, Datum d)
{
	MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	CuckooFilter *v = (CuckooFilter *) PG_DETOAST_DATUM(d);	/* a new copy */
	Size		size = VARSIZE(v);
	CuckooFilter *kept;

	MemoryContextSwitchTo(old);
	if (size < FILTER_HUGE_ADVICE_MIN)
		return v;
	kept = filter_alloc(fcinfo->flinfo->fn_mcxt, size);
	memcpy(kept, v, size);
	pfree(v);
	return kept;
}

/*
 * Stored filters read whole, kept per call site (CallSiteCache.whole).
 *
 * The key is the value's whole TOAST pointer (struct varatt_external, 16
 * bytes without padding: its size, its stored size, its value OID and its
 * TOAST table's OID), compared with memcmp.  Equal pointers are the same
 * value, for as long as a call site lives, by these facts of PostgreSQL's
 * source:
 * - A value is never changed in place: an UPDATE that changes it stores a
 *   new value under a new value OID (toast_save_datum), and one that leaves
 *   it alone keeps the old pointer and the old bytes.  A table rewrite
 *   (VACUUM FULL, CLUSTER) keeps the TOAST table's OID and each value's OID
 *   for the same bytes (toast_save_datum's rd_toastoid case).
 * - A new value's OID is drawn from the cluster-wide OID counter until one
 *   is found that no chunk in the TOAST table's index carries, dead or alive
 *   (GetNewOidWithIndex scans with SnapshotAny).  So an OID comes back for
 *   another value only after VACUUM has removed every chunk of the old one
 *   and the counter has gone round all 2^32 OIDs.
 * - VACUUM removes a chunk only once it is dead to every snapshot a backend
 *   holds (the xmin horizon).  A query keeps the snapshot its rows were read
 *   under, so within one query a value read is never removed, and no OID of
 *   it is reused, whatever VACUUM runs meanwhile.  The cache lives in the
 *   call's FmgrInfo: one query's execution, or for a PL/pgSQL simple
 *   expression the transaction; across statements of a READ COMMITTED
 *   transaction a value could be removed, but its OID would then have to
 *   come round the whole counter before the transaction ends, into the same
 *   TOAST table and with the same sizes.
 * A different row's value has another pointer, so it is never answered from
 * another's copy.
 */
static inline bool
toast_ptr_equal(const struct varatt_external *a, const struct varatt_external *b)
{
	/* the value OID first: a scan of many pointers mostly stops there */
	return a->va_valueid == b->va_valueid && memcmp(a, b, sizeof(*a)) == 0;
}

static inline WholeValue *
whole_find(CallSiteCache *cc, const struct varatt_external *ptr)
{
	if (likely(cc->whole_last != NULL) && toast_ptr_equal(&cc->whole_last->ptr, ptr))
		return cc->whole_last;
	if (cc->whole == NULL)
		return NULL;
	for (int i = 0; i <= ARG_WHOLE_KEPT; i++)
	{
		if (i == cc->whole_n)
			i = ARG_WHOLE_KEPT;	/* past the kept ones: the replaced slot */
		if (cc->whole[i].value != NULL &&
			toast_ptr_equal(&cc->whole[i].ptr, ptr))
		{
			cc->whole_last = &cc->whole[i];
			return cc->whole_last;
		}
	}
	return NULL;
}

/*
 * Reads the stored filter d (pointer ptr) whole and keeps it.  Kept for the
 * call site's life while the kept values fit in work_mem (at most
 * ARG_WHOLE_KEPT of them), so that a call site meeting a few stored filters
 * in turn, row after row (a join, a LATERAL subquery flattened into one),
 * reads each of them once; any other goes to one more slot, replaced by the
 * next such value (so a value larger than work_mem is still kept while it
 * comes back row after row).  A kept value is never dropped for a newer one:
 * with values met in a cycle, dropping the oldest would miss every time.
 */
static WholeValue *
whole_read(FunctionCallInfo fcinfo, CallSiteCache *cc, Datum d,
		   const struct varatt_external *ptr)
{
	/* the value's size as its pointer records it (compressed or not) */
	Size		bytes = (Size) ptr->va_rawsize;
	bool		kept;
	WholeValue *e;

	if (cc->whole == NULL)
	{
		/* slots past whole_n are not read, but for the replaced one */
		cc->whole = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
									   sizeof(WholeValue) * (ARG_WHOLE_KEPT + 1));
		cc->whole[ARG_WHOLE_KEPT].value = NULL;
	}
	kept = cc->whole_n < ARG_WHOLE_KEPT &&
		cc->whole_bytes + bytes <= (Size) work_mem * 1024;
	e = &cc->whole[kept ? cc->whole_n : ARG_WHOLE_KEPT];
	if (cc->whole_last == e)
		cc->whole_last = NULL;
	if (!kept && e->value != NULL)
	{
		/* the replaced value is freed first: peak memory as 1.2's */
		pfree(e->value);
		e->value = NULL;
	}
	e->view_open = false;
	e->value = detoast_to_keep(fcinfo, d);
	e->ptr = *ptr;
	if (kept)
	{
		cc->whole_n++;
		cc->whole_bytes += bytes;
	}
	cc->whole_last = e;
	elog(DEBUG1, "cuckoo: a call site read a stored filter of %zu bytes whole (%s)",
		 (size_t) CUCKOO_BYTES_LEN(e->value),
		 kept ? "kept" : "kept until the next one");
	return e;
}

/* The stored filter d (pointer ptr), read whole once per call site. */
static WholeValue *
whole_get(FunctionCallInfo fcinfo, CallSiteCache *cc, Datum d,
		  const struct varatt_external *ptr)
{
	WholeValue *e = whole_find(cc, ptr);

	return e != NULL ? e : whole_read(fcinfo, cc, d, ptr);
}

/* The view of a stored filter read whole, opened and its kind checked once. */
static inline const cf_filter *
whole_view(WholeValue *e, ValueHasher *vh)
{
	if (unlikely(!e->view_open))
	{
		filter_open(&e->view, e->value);
		e->view_kind_ok = filter_kind_matches(&e->view, vh);
		e->view_open = true;
	}
	if (unlikely(!e->view_kind_ok))
		filter_check_kind(&e->view, vh);	/* raises the error */
	return &e->view;
}

/*
 * Argument argno as a read-only filter.  An out-of-line (TOASTed) value is
 * detoasted once per call site and kept in fn_extra, keyed by its TOAST
 * pointer (whole_read: a few such values are kept at once), so probing row
 * after row with the same stored filter costs no detoasting and no copy; a
 * compressed in-line value likewise, keyed by its compressed bytes.  Whenever
 * the kept in-line value is replaced, the view made for it is forgotten (the
 * new value may be allocated at the same address).
 */
CuckooFilter *
arg_filter(FunctionCallInfo fcinfo, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	CallSiteCache *cc;
	struct varatt_external ptr;

	if (VARATT_IS_COMPRESSED(raw))
	{
		/*
		 * Compressed in the row (a sparse filter compresses well): keyed by
		 * the compressed bytes themselves, at most a couple of kilobytes, as
		 * a row's buffer may be reused for another value.
		 */
		Size		rawsize = VARSIZE_ANY(raw);

		cc = arg_cache(fcinfo);
		if (cc->inline_raw != NULL && VARSIZE_ANY(cc->inline_raw) == rawsize &&
			memcmp(cc->inline_raw, raw, rawsize) == 0)
			return cc->inline_value;
		cc->view_value = NULL;
		if (cc->inline_raw != NULL)
		{
			pfree(cc->inline_raw);
			pfree(cc->inline_value);
			cc->inline_raw = NULL;
		}
		cc->inline_value = detoast_to_keep(fcinfo, d);
		cc->inline_raw = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, rawsize);
		memcpy(cc->inline_raw, raw, rawsize);
		return cc->inline_value;
	}
	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return DatumGetCuckooFilterP(d);

	cc = arg_cache(fcinfo);
	VARATT_EXTERNAL_GET_POINTER(ptr, raw);
	return whole_get(fcinfo, cc, d, &ptr)->value;
}

/*
 * Filter argument argno opened for probing with values hashed by vh (the
 * kind checked), as a view kept per call site.  Probing row after row with
 * one filter then costs, per row: for a stored (TOASTed) filter, comparing
 * its 16-byte TOAST pointer with the last one (and with the others kept, when
 * a few come in turn); for a compressed in-line one, comparing its compressed
 * bytes; for any other value, comparing its 48-byte header with the last
 * view's (the view holds only values derived from the header, so only the
 * buffer pointers change).  The view must not be modified or kept beyond the
 * call.
 */
const cf_filter *
arg_probe_view(FunctionCallInfo fcinfo, int argno, ValueHasher *vh)
{
	CallSiteCache *cc = arg_cache(fcinfo);
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	CuckooFilter *v;
	size_t		len;

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external ptr;
		WholeValue *e = cc->whole_last;

		VARATT_EXTERNAL_GET_POINTER(ptr, raw);
		/* the same stored filter as the last call (the per-row path) */
		if (likely(e != NULL && toast_ptr_equal(&e->ptr, &ptr) &&
				   e->view_open && e->view_kind_ok))
			return &e->view;
		return whole_view(whole_get(fcinfo, cc, d, &ptr), vh);
	}
	v = arg_filter(fcinfo, argno);
	if (v == cc->view_value && v == cc->inline_value)
		return &cc->view;		/* kept by us, unchanged: the view stands */

	len = CUCKOO_BYTES_LEN(v);
	if (!(cc->view_value != NULL && cc->view_len == len && len >= cc->view_header_len &&
		  memcmp(cc->view_header, v->bytes, cc->view_header_len) == 0))
	{
		cc->view_value = NULL;
		filter_open(&cc->view, v);
		cc->view_kind_ok = filter_kind_matches(&cc->view, vh);
		/*
		 * Version 2 keeps more of what the view derives (the base bucket
		 * count, the generation) in bytes 48-63; its per-generation counts
		 * beyond them are not used for probing.
		 */
		cc->view_header_len = Min(Min(cc->view.data - cc->view.buf, len),
								  sizeof(cc->view_header));
		cc->view_data_off = cc->view.data - cc->view.buf;
		memcpy(cc->view_header, v->bytes, cc->view_header_len);
		cc->view_len = len;
	}
	cc->view.buf = v->bytes;
	cc->view.data = v->bytes + cc->view_data_off;
	Assert(cc->view.len == CUCKOO_BYTES_LEN(v));
	if (!cc->view_kind_ok)
		filter_check_kind(&cc->view, vh);	/* raises the error */
	cc->view_value = v;
	return &cc->view;
}

/* ------------------------------------------------------------------------
 * The value path: probing a stored filter by slices (docs/DESIGN.md)
 * ------------------------------------------------------------------------ */

/*
 * One key probed by slices costs about as much as reading this many bytes of
 * the value whole (measured: docs/BENCHMARKS.md, "The value path").  A call
 * site probing one stored value switches to one whole read once the keys it
 * has probed by slices would have paid for it: after len / SLICE_KEY_BYTES
 * keys (0 for a value smaller than that: read whole at once).
 */
#define SLICE_KEY_BYTES		((int64) 16 * 1024)

/*
 * cuckoo.slice_read_max_keys: -1 (the default) switches by the value's size
 * as above; 0 never reads slices (every probe reads the value whole, as 1.2
 * did); N > 0 reads slices for the first N keys of a value at a call site.
 */
int			slice_read_max_keys = -1;

void
arg_init(void)
{
	DefineCustomIntVariable("cuckoo.slice_read_max_keys",
							"Keys a call site probes by slices of a stored filter before reading it whole.",
							"A stored (out-of-line, uncompressed) filter probed for a few keys is read "
							"only where their buckets lie; after this many keys at one call site it is "
							"read whole once and kept.  -1: chosen by the filter's size; 0: always read "
							"whole.",
							&slice_read_max_keys, -1, -1, PG_INT32_MAX, PGC_USERSET, 0,
							NULL, NULL, NULL);
}

/* Forgets the sliced value (its buffer is freed). */
static void
slice_reset(CallSiteCache *cc)
{
	if (cc->slice_buf != NULL)
		pfree(cc->slice_buf);
	cc->slice_buf = NULL;
	cc->slice_valid = false;
}

/*
 * Reads bytes [off, off + len) of the stored filter d into the slice buffer.
 * PostgreSQL checks the chunks it reads (their numbers and sizes; a missing
 * chunk is an error); a slice shorter than asked means the value is shorter
 * than its TOAST pointer says: an error too.
 */
static void
slice_read(CallSiteCache *cc, Datum d, uint64 off, uint64 len)
{
	struct varlena *piece = PG_DETOAST_DATUM_SLICE(d, (int32) off, (int32) len);

	if ((uint64) VARSIZE_ANY_EXHDR(piece) != len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoofilter value: bytes %llu to %llu of a stored value of %zu bytes could not be read",
						(unsigned long long) off, (unsigned long long) (off + len),
						(size_t) CUCKOO_BYTES_LEN(cc->slice_buf))));
	memcpy(cc->slice_buf->bytes + off, VARDATA_ANY(piece), len);
	pfree(piece);
}

/*
 * Starts probing the stored filter d (pointer ptr, len bytes) by slices:
 * reads its header and checks it against the value's length, as filter_open
 * does for a whole value, and its kind against the hasher's.  False when
 * the header is not one that slices can address (the caller reads the value
 * whole, whose checks then report it).
 */
static bool
slice_open(FunctionCallInfo fcinfo, CallSiteCache *cc, Datum d,
		   const struct varatt_external *ptr, uint64 len, ValueHasher *vh)
{
	uint64		n = Min(len, (uint64) CF_SLICE_PREFIX);
	uint64		hdr;
	char		err[256];

	cc->slice_buf = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, VARHDRSZ + len);
	SET_VARSIZE(cc->slice_buf, VARHDRSZ + len);
#if defined(MADV_NOHUGEPAGE)
	{
		/*
		 * Only a few pages of the buffer are ever written: a huge page would
		 * make each of them cost 2 MB of zeroing.
		 */
		uintptr_t	start = ((uintptr_t) cc->slice_buf + 4095) & ~(uintptr_t) 4095;
		uintptr_t	end = ((uintptr_t) cc->slice_buf + VARHDRSZ + len) & ~(uintptr_t) 4095;

		if (end > start)
			(void) madvise((void *) start, end - start, MADV_NOHUGEPAGE);
	}
#endif
	slice_read(cc, d, 0, n);
	hdr = cf_slice_header_bytes(cc->slice_buf->bytes, n, len);
	if (hdr == 0)
	{
		slice_reset(cc);
		return false;
	}
	if (hdr > n)
		slice_read(cc, d, n, hdr - n);
	if (!cf_check_header(cc->slice_buf->bytes, len, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoofilter value: %s", err)));
	cf_open(&cc->slice_view, cc->slice_buf->bytes, len);
	filter_check_kind(&cc->slice_view, vh);
	cc->slice_ptr = *ptr;
	cc->slice_valid = true;
	cc->slice_keys = 0;
	cc->slice_total = 0;
	return true;
}

/*
 * Would a value of bytes read whole now be kept for the call site's life
 * (whole_read)?
 */
static inline bool
whole_fits(CallSiteCache *cc, Size bytes)
{
	return cc->whole_n < ARG_WHOLE_KEPT &&
		cc->whole_bytes + bytes <= (Size) work_mem * 1024;
}

/*
 * slice_counts is a small hash table on the value OID: a value's entry is
 * one of the SLICE_COUNT_PROBES entries from its hash on (consecutive OIDs
 * hash far apart), so that a call site meeting many values in turn pays no
 * search.  When they are all taken by other values, the first gives way (its
 * value's count then starts from 0 again: more slices, never another answer).
 */
#define SLICE_COUNT_PROBES	4

static inline uint32
slice_count_home(const struct varatt_external *ptr)
{
	return ((uint32) ptr->va_valueid * 2654435761U) >> (32 - ARG_SLICE_COUNTS_BITS);
}

/* The keys probed by slices before of the stored value ptr (0: none kept). */
static inline int64
slice_count_get(CallSiteCache *cc, const struct varatt_external *ptr)
{
	uint32		h = slice_count_home(ptr);

	if (cc->slice_counts == NULL)
		return 0;
	for (int i = 0; i < SLICE_COUNT_PROBES; i++)
	{
		SliceCount *c = &cc->slice_counts[(h + i) & ((1 << ARG_SLICE_COUNTS_BITS) - 1)];

		if (c->keys > 0 && toast_ptr_equal(&c->ptr, ptr))
			return c->keys;
	}
	return 0;
}

/* Remembers the keys probed by slices of the value sliced now, if any. */
static void
slice_count_save(FunctionCallInfo fcinfo, CallSiteCache *cc)
{
	uint32		h = slice_count_home(&cc->slice_ptr);
	SliceCount *c = NULL;

	if (!cc->slice_valid || cc->slice_total == 0)
		return;
	if (cc->slice_counts == NULL)
		cc->slice_counts = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
												  sizeof(SliceCount) << ARG_SLICE_COUNTS_BITS);
	for (int i = 0; i < SLICE_COUNT_PROBES; i++)
	{
		SliceCount *e = &cc->slice_counts[(h + i) & ((1 << ARG_SLICE_COUNTS_BITS) - 1)];

		if (e->keys > 0 && toast_ptr_equal(&e->ptr, &cc->slice_ptr))
		{
			c = e;				/* its own entry */
			break;
		}
		if (e->keys == 0 && c == NULL)
			c = e;				/* the first free one */
	}
	if (c == NULL)
		c = &cc->slice_counts[h];
	c->ptr = cc->slice_ptr;
	c->keys = cc->slice_total;
}

/*
 * Filter argument argno opened for probing the n hashes given (and only
 * those: the view must not be used for any other hash, modified or kept
 * beyond the call).  A stored filter (out of line, uncompressed) is read by
 * slices: its header once per call site, then for each key the TOAST chunks
 * that hold its two buckets, until the call site has probed enough keys of
 * it that one whole read is cheaper (slice_limit); from then on, and for any
 * other value (in line, compressed, in memory), this is arg_probe_view.
 *
 * The keys of a value are counted across the rows where other values come
 * between (a join cycling through a few stored filters; slice_counts): past the limit,
 * such a value is read whole if it will be kept (whole_fits: it then costs
 * nothing more, whichever values come between).  One that would not be kept
 * is read whole only after the limit's keys in a row, as it would otherwise
 * be read whole again each time it came back.
 */
const cf_filter *
arg_probe_keys(FunctionCallInfo fcinfo, int argno, ValueHasher *vh,
			   const uint64 *hashes, int n)
{
	CallSiteCache *cc = arg_cache(fcinfo);
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varatt_external ptr;
	uint64		len;

	if (!VARATT_IS_EXTERNAL_ONDISK(raw) || slice_read_max_keys == 0)
		return arg_probe_view(fcinfo, argno, vh);
	VARATT_EXTERNAL_GET_POINTER(ptr, raw);
	if (VARATT_EXTERNAL_IS_COMPRESSED(ptr))
		return arg_probe_view(fcinfo, argno, vh);
	/* read whole at this call site already (and kept) */
	{
		WholeValue *e = whole_find(cc, &ptr);

		if (e != NULL)
			return whole_view(e, vh);
	}

	len = (uint64) ptr.va_rawsize - VARHDRSZ;
	if (!(cc->slice_valid && toast_ptr_equal(&cc->slice_ptr, &ptr)))
	{
		int64		limit;
		int64		before;

		slice_count_save(fcinfo, cc);
		slice_reset(cc);
		limit = slice_read_max_keys > 0 ? slice_read_max_keys :
			(int64) (len / SLICE_KEY_BYTES);
		before = slice_count_get(cc, &ptr);
		if (len < CF_HEADER_SIZE || limit < n ||
			(before + n > limit && whole_fits(cc, (Size) ptr.va_rawsize)))
		{
			if (before > 0)
				elog(DEBUG1, "cuckoo: a call site read a stored filter of " UINT64_FORMAT " bytes whole after probing " INT64_FORMAT " keys by slices",
					 len, before);
			return arg_probe_view(fcinfo, argno, vh);
		}
		if (!slice_open(fcinfo, cc, d, &ptr, len, vh))
			return arg_probe_view(fcinfo, argno, vh);
		cc->slice_limit = limit;
		cc->slice_total = before;
	}
	if (cc->slice_total + n > cc->slice_limit &&
		(cc->slice_keys + n > cc->slice_limit || whole_fits(cc, (Size) ptr.va_rawsize)))
	{
		elog(DEBUG1, "cuckoo: a call site read a stored filter of " UINT64_FORMAT " bytes whole after probing " INT64_FORMAT " keys by slices",
			 len, cc->slice_total);
		slice_reset(cc);
		return arg_probe_view(fcinfo, argno, vh);
	}
	cc->slice_keys += n;
	cc->slice_total += n;
	for (int i = 0; i < n; i++)
	{
		cf_range	r[2];
		int			nr = cf_slice_ranges(&cc->slice_view, hashes[i], r);

		for (int j = 0; j < nr; j++)
			slice_read(cc, d, r[j].off, r[j].len);
	}
	return &cc->slice_view;
}

/* Fills the call site's hasher for typid (once: a call site's argument type
 * and collation never change). */
static ValueHasher *
init_cached_hasher(FunctionCallInfo fcinfo, CallSiteCache *cc, Oid typid)
{
	value_hasher_init(&cc->hasher, typid, PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
	cc->hasher_valid = true;
	return &cc->hasher;
}

/*
 * The declared type of argument argno of the called function, for a call
 * without a call expression.  PostgreSQL's executor gives every call one,
 * from which get_fn_expr_argtype reads the argument types; Citus's
 * worker_partial_agg and coord_combine_agg call an aggregate's transition,
 * combine and final functions through call records of their own, with none
 * (so does any extension that calls a function by OID).  The function's own
 * signature (its pg_proc row, found by fn_oid) still says the type, unless
 * it is polymorphic: then a clear error.
 */
static Oid
arg_declared_type(FunctionCallInfo fcinfo, int argno)
{
	Oid			fn = fcinfo->flinfo ? fcinfo->flinfo->fn_oid : InvalidOid;
	HeapTuple	tup;
	Form_pg_proc proc;
	Oid			typid = InvalidOid;

	if (!OidIsValid(fn))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the data type of the value"),
				 errdetail("The function was called without a call expression and without its OID.")));
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fn);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (argno >= 0 && argno < proc->pronargs)
		typid = proc->proargtypes.values[argno];
	ReleaseSysCache(tup);
	if (!OidIsValid(typid) || IsPolymorphicType(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the data type of the value"),
				 errdetail("%s was called without a call expression (as Citus's worker_partial_agg calls a transition function), and its argument %d is declared %s.",
						   format_procedure(fn), argno + 1,
						   OidIsValid(typid) ? format_type_be(typid) : "missing"),
				 errhint("Cast the value to one of the types that cuckoo_agg has a concrete overload for (integer, numeric, text, bytea, uuid, date, timestamp, boolean or float types).")));
	return typid;
}

/* The hasher for argument argno (of a polymorphic function), first call
 * (arg_hasher in cuckoo.h is the per-row path). */
ValueHasher *
arg_hasher_init(FunctionCallInfo fcinfo, int argno)
{
	CallSiteCache *cc = arg_cache(fcinfo);
	Oid			typid;

	typid = get_fn_expr_argtype(fcinfo->flinfo, argno);
	/* no call expression (Citus): the function's declared argument type */
	if (!OidIsValid(typid))
		typid = arg_declared_type(fcinfo, argno);
	return init_cached_hasher(fcinfo, cc, typid);
}

/* The hasher for the elements of array argument argno, cached. */
ValueHasher *
arg_array_hasher(FunctionCallInfo fcinfo, int argno)
{
	CallSiteCache *cc = arg_cache(fcinfo);
	Oid			arrtype;
	Oid			elemtype = InvalidOid;

	if (cc->hasher_valid)
		return &cc->hasher;
	arrtype = get_fn_expr_argtype(fcinfo->flinfo, argno);
	if (OidIsValid(arrtype))
		elemtype = get_element_type(getBaseType(arrtype));
	if (!OidIsValid(elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the element type of the array")));
	return init_cached_hasher(fcinfo, cc, elemtype);
}

