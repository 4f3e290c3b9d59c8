/*
 * cuckoo_type.c
 *     The cuckoofilter type: text and binary I/O, the bytea casts,
 *     construction (cuckoo_create), cuckoo_info, and helpers that every fmgr
 *     file uses to open filter arguments and report core errors.
 *
 * Every way in (text, binary, bytea) runs the same full validation
 * (cf_validate), so nothing that one path rejects can enter through another.
 */
#include "cuckoo.h"

#include <math.h>
#include <sys/mman.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

CF_MODULE_MAGIC;

void		_PG_init(void);

/* Lets a query cancel or time out inside the core's long loops. */
static void
cuckoo_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
_PG_init(void)
{
	cf_interrupt_hook = cuckoo_check_interrupts;
}

/*
 * Large filters are read at random: one or two cache lines per lookup, each
 * in a different 4 kB page, so with ordinary pages nearly every lookup of a
 * filter of many megabytes also misses the TLB (on a virtual machine a TLB
 * miss walks two levels of page tables).  Asking the kernel for transparent
 * huge pages over such a buffer, before it is first written, halved the time
 * of random lookups in a 13 MB filter here (66-113 ns to 32-56 ns; see
 * docs/BENCHMARKS.md).  Only advice: where the kernel has no huge pages to
 * give, or is not Linux, nothing changes.
 */
#define HUGE_ADVICE_MIN		((Size) 4 << 20)
#define HUGE_PAGE			((uintptr_t) 2 << 20)

static void
advise_huge_pages(void *p, Size len)
{
#if defined(MADV_HUGEPAGE)
	uintptr_t	start = ((uintptr_t) p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t	end = ((uintptr_t) p + len) & ~(HUGE_PAGE - 1);

	if (len >= HUGE_ADVICE_MIN && end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#else
	(void) p;
	(void) len;
#endif
}

/* palloc for a filter of size bytes, huge pages advised when it is large. */
static void *
filter_alloc(MemoryContext cxt, Size size)
{
	void	   *p = MemoryContextAllocExtended(cxt, size, MCXT_ALLOC_HUGE);

	advise_huge_pages(p, size);
	return p;
}

/* Allocates and initialises an empty filter with the given parameters. */
CuckooFilter *
cuckoo_new(const cf_params *p)
{
	size_t		len = (size_t) cf_total_bytes(p->num_buckets, p->bucket_size,
									 p->fp_bits, p->semisort);
	CuckooFilter *v = filter_alloc(CurrentMemoryContext, VARHDRSZ + len);

	SET_VARSIZE(v, VARHDRSZ + len);
	cf_init(v->bytes, p);
	return v;
}

/*
 * Opens a filter argument.  Values of the type were fully validated when
 * they entered the database; the O(1) header check here guards every access
 * against a damaged datum.
 */
void
cuckoo_open(cf_filter *cf, CuckooFilter *v)
{
	char		err[256];

	if (!cf_check_header(v->bytes, CUCKOO_BYTES_LEN(v), err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoofilter value: %s", err)));
	cf_open(cf, v->bytes, CUCKOO_BYTES_LEN(v));
}

/*
 * Argument argno as a read-only filter.  An out-of-line (TOASTed) value is
 * detoasted once per call site and kept in fn_extra, keyed by its TOAST
 * pointer, so probing row after row with the same stored filter costs no
 * detoasting and no copy; a compressed in-line value likewise, keyed by its
 * compressed bytes.  Whenever a kept value is replaced, the view made for it
 * is forgotten (the new value may be allocated at the same address).
 */
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
	if (size < HUGE_ADVICE_MIN)
		return v;
	kept = filter_alloc(fcinfo->flinfo->fn_mcxt, size);
	memcpy(kept, v, size);
	pfree(v);
	return kept;
}

CuckooFilter *
cuckoo_getarg_cached(FunctionCallInfo fcinfo, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	CuckooCallCache *cc;
	struct varatt_external ptr;

	if (VARATT_IS_COMPRESSED(raw))
	{
		/*
		 * Compressed in the row (a sparse filter compresses well): keyed by
		 * the compressed bytes themselves, at most a couple of kilobytes, as
		 * a row's buffer may be reused for another value.
		 */
		Size		rawsize = VARSIZE_ANY(raw);

		cc = cuckoo_call_cache(fcinfo);
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

	cc = cuckoo_call_cache(fcinfo);
	VARATT_EXTERNAL_GET_POINTER(ptr, raw);
	if (cc->toast_valid &&
		cc->toast_ptr.va_valueid == ptr.va_valueid &&
		cc->toast_ptr.va_toastrelid == ptr.va_toastrelid)
		return cc->toast_value;

	cc->view_value = NULL;
	if (cc->toast_valid)
	{
		cc->toast_valid = false;
		pfree(cc->toast_value);
	}
	cc->toast_value = detoast_to_keep(fcinfo, d);
	cc->toast_ptr = ptr;
	cc->toast_valid = true;
	return cc->toast_value;
}

/*
 * Filter argument argno opened for probing with values hashed by vh (the
 * kind checked), as a view kept per call site.  Probing row after row with
 * one filter then costs, per row: for a stored (TOASTed) filter, comparing
 * its 16-byte TOAST pointer with the last one; for a compressed in-line one,
 * comparing its compressed bytes; for any other value, comparing its 48-byte
 * header with the last view's (the view holds only values derived from the
 * header, so only the buffer pointers change).  The view must not be
 * modified or kept beyond the call.
 */
const cf_filter *
cuckoo_probe_arg(FunctionCallInfo fcinfo, int argno, ValueHasher *vh)
{
	CuckooCallCache *cc = cuckoo_call_cache(fcinfo);
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	CuckooFilter *v;
	size_t		len;

	if (cc->view_value != NULL && cc->view_value == cc->toast_value &&
		VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		/* the same stored filter as the last call? */
		struct varatt_external ptr;

		VARATT_EXTERNAL_GET_POINTER(ptr, raw);
		if (ptr.va_valueid == cc->toast_ptr.va_valueid &&
			ptr.va_toastrelid == cc->toast_ptr.va_toastrelid)
			return &cc->view;
	}
	v = cuckoo_getarg_cached(fcinfo, argno);
	if (v == cc->view_value && (v == cc->toast_value || v == cc->inline_value))
		return &cc->view;		/* kept by us, unchanged: the view stands */

	len = CUCKOO_BYTES_LEN(v);
	if (!(cc->view_value != NULL && cc->view_len == len && len >= CF_HEADER_SIZE &&
		  memcmp(cc->view_header, v->bytes, CF_HEADER_SIZE) == 0))
	{
		cc->view_value = NULL;
		cuckoo_open(&cc->view, v);
		cc->view_kind_ok = cuckoo_kind_matches(&cc->view, vh);
		memcpy(cc->view_header, v->bytes, CF_HEADER_SIZE);
		cc->view_len = len;
	}
	cc->view.buf = v->bytes;
	cc->view.data = v->bytes + CF_HEADER_SIZE;
	if (!cc->view_kind_ok)
		cuckoo_check_kind(&cc->view, vh);	/* raises the error */
	cc->view_value = v;
	return &cc->view;
}

/* Turns a failed core status into the user-facing error. */
void
cuckoo_report_status(cf_status st, const cf_filter *cf)
{
	switch (st)
	{
		case CF_OK:
		case CF_OK_STASHED:
		case CF_EXISTS:
			return;
		case CF_FULL:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("cuckoo filter is full"),
					 errdetail("It holds " UINT64_FORMAT " items: %u buckets of %u entries (load factor %.3f)%s; its rated capacity is " UINT64_FORMAT ".",
							   cf_items(cf), cf->m, cf->b,
							   (double) (cf_items(cf) - (cf_victim_used(cf) ? 1 : 0)) /
							   ((double) cf->m * cf->b),
							   cf_victim_used(cf) ? " and the one-entry victim slot" : "",
							   cf_capacity(cf)),
					 errhint("Build a larger filter: cuckoo_agg over the source data, or cuckoo_create with a larger capacity.")));
			break;
		case CF_TOO_MANY_COPIES:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("value was added to the cuckoo filter too many times"),
					 errdetail("A filter with bucket size %u holds at most %u copies of one value.",
							   cf->b, 2 * cf->b),
					 errhint("Use cuckoo_add_if_absent to store each value once.")));
			break;
		case CF_SHAPE_MISMATCH:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cuckoo filters of different shapes cannot be combined")));
			break;
		case CF_KIND_MISMATCH:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cuckoo filters holding different types of values cannot be combined")));
			break;
	}
}

/* The largest capacity whose filter stays within CF_MAX_BYTES. */
static uint64
max_capacity(uint32 b, uint32 f, bool semisort)
{
	uint64		lo = 1,
				hi = UINT64CONST(1) << 40;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo + 1) / 2;
		uint32		m = cf_buckets_for_capacity(mid, b);

		if (m != 0 && cf_total_bytes(m, b, f, semisort) <= CF_MAX_BYTES)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Parameters of a new filter from the user's arguments, every one checked.
 * fingerprint_bits overrides the size derived from fpr when fp_given.
 */
void
cuckoo_plan_params(int64 capacity, double fpr, int bucket_size,
				   int fingerprint_bits, bool fp_given, int max_kicks,
				   bool semisort, cf_params *p)
{
	uint32		m;
	uint64		bytes;

	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	if (isnan(fpr) || fpr <= 0.0 || fpr >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fpr must be greater than 0 and less than 1, not %g", fpr)));
	if (bucket_size != 2 && bucket_size != 4 && bucket_size != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bucket_size must be 2, 4 or 8, not %d", bucket_size)));
	if (fp_given && (fingerprint_bits < CF_MIN_FP_BITS || fingerprint_bits > CF_MAX_FP_BITS))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fingerprint_bits must be between %d and %d, not %d",
						CF_MIN_FP_BITS, CF_MAX_FP_BITS, fingerprint_bits)));
	if (max_kicks < 0 || max_kicks > CF_MAX_KICKS_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_kicks must be between 0 and %d, not %d",
						CF_MAX_KICKS_LIMIT, max_kicks)));
	if (semisort && bucket_size != 4)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("semisort requires bucket_size 4, not %d", bucket_size)));
	if (!fp_given)
	{
		fingerprint_bits = cf_fp_bits_for_fpr(fpr, (uint32) bucket_size);
		if (fingerprint_bits < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("fpr must be at least %g for bucket_size %d, not %g",
							cf_expected_fpr((uint32) bucket_size, CF_MAX_FP_BITS,
											cf_target_load((uint32) bucket_size)),
							bucket_size, fpr),
					 errdetail("That is the rate of %d-bit fingerprints, the longest a filter stores.",
							   CF_MAX_FP_BITS)));
	}

	m = cf_buckets_for_capacity((uint64) capacity, (uint32) bucket_size);
	bytes = m ? cf_total_bytes(m, (uint32) bucket_size, (uint32) fingerprint_bits, semisort) : 0;
	if (m == 0 || bytes > CF_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be between 1 and " UINT64_FORMAT " for bucket_size %d and %d-bit fingerprints, not " INT64_FORMAT,
						max_capacity((uint32) bucket_size, (uint32) fingerprint_bits, semisort),
						bucket_size, fingerprint_bits, capacity),
				 errdetail("A filter may take at most %zu bytes, so that its text form fits in 1 GB.",
						   (size_t) CF_MAX_BYTES)));

	p->num_buckets = m;
	p->bucket_size = (uint32) bucket_size;
	p->fp_bits = (uint32) fingerprint_bits;
	p->semisort = semisort;
	p->max_kicks = (uint32) max_kicks;
	p->kind = CF_KIND_ANY;
	p->type_tag = 0;
	p->capacity = (uint64) capacity;
}

/*
 * cuckoo_create(capacity, fpr, bucket_size, fingerprint_bits, max_kicks,
 * semisort): an empty filter.  NULL fingerprint_bits means "derive from
 * fpr"; any other NULL argument gives a NULL result, as a strict function.
 */
PG_FUNCTION_INFO_V1(cuckoo_create);
Datum
cuckoo_create(PG_FUNCTION_ARGS)
{
	cf_params	p;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(4) || PG_ARGISNULL(5))
		PG_RETURN_NULL();
	cuckoo_plan_params(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1),
					   PG_GETARG_INT32(2),
					   PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3), !PG_ARGISNULL(3),
					   PG_GETARG_INT32(4), PG_GETARG_BOOL(5), &p);
	PG_RETURN_CUCKOO_P(cuckoo_new(&p));
}

/* Validates untrusted bytes and wraps them as a new filter value. */
static CuckooFilter *
bytes_to_filter(const uint8 *bytes, size_t len, int errcode_bad, Node *escontext)
{
	char		err[256];
	CuckooFilter *v;

	if (!cf_validate(bytes, len, err, sizeof(err)))
	{
		ereturn(escontext, NULL,
				(errcode(errcode_bad),
				 errmsg("invalid cuckoofilter value: %s", err)));
	}
	v = palloc(VARHDRSZ + len);
	SET_VARSIZE(v, VARHDRSZ + len);
	memcpy(v->bytes, bytes, len);
	return v;
}

/* Text input: the base64 of the serialised form, nothing before or after. */
PG_FUNCTION_INFO_V1(cuckoo_in);
Datum
cuckoo_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		n = strlen(str);
	size_t		len;
	uint8	   *bytes;
	CuckooFilter *v;
	Node	   *escontext = fcinfo->context;

	if (!cf_b64_decoded_len(str, n, &len) || (uint64) len > CF_MAX_BYTES ||
		!cf_b64_decode(str, n, (bytes = palloc(len + 1))))
	{
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type cuckoofilter"),
				 errdetail("A cuckoofilter is written as the base64 encoding of its binary form.")));
	}
	v = bytes_to_filter(bytes, len, ERRCODE_INVALID_TEXT_REPRESENTATION, escontext);
	pfree(bytes);
	if (v == NULL)
		PG_RETURN_NULL();
	PG_RETURN_CUCKOO_P(v);
}

PG_FUNCTION_INFO_V1(cuckoo_out);
Datum
cuckoo_out(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	size_t		len = CUCKOO_BYTES_LEN(v);
	char	   *out = palloc(cf_b64_encoded_len(len) + 1);

	cf_b64_encode(v->bytes, len, out);
	out[cf_b64_encoded_len(len)] = '\0';
	PG_RETURN_CSTRING(out);
}

/* Binary input: the serialised form itself, validated as strictly as text. */
PG_FUNCTION_INFO_V1(cuckoo_recv);
Datum
cuckoo_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	size_t		len = (size_t) (buf->len - buf->cursor);
	CuckooFilter *v;

	v = bytes_to_filter((const uint8 *) buf->data + buf->cursor, len,
						ERRCODE_INVALID_BINARY_REPRESENTATION, NULL);
	buf->cursor = buf->len;
	PG_RETURN_CUCKOO_P(v);
}

PG_FUNCTION_INFO_V1(cuckoo_send);
Datum
cuckoo_send(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) v->bytes, CUCKOO_BYTES_LEN(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* bytea -> cuckoofilter, with the full validation. */
PG_FUNCTION_INFO_V1(cuckoo_from_bytea);
Datum
cuckoo_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_CUCKOO_P(bytes_to_filter((const uint8 *) VARDATA_ANY(b),
									   VARSIZE_ANY_EXHDR(b),
									   ERRCODE_INVALID_BINARY_REPRESENTATION,
									   NULL));
}

/* Byte-wise comparison of two filters' binary forms. */
static int
cuckoo_cmp_internal(CuckooFilter *a, CuckooFilter *b)
{
	size_t		la = CUCKOO_BYTES_LEN(a);
	size_t		lb = CUCKOO_BYTES_LEN(b);
	int			c = memcmp(a->bytes, b->bytes, Min(la, lb));

	if (c != 0)
		return c;
	return la < lb ? -1 : (la > lb ? 1 : 0);
}

/* f = g: the same binary form (same shape, same entries in the same slots). */
PG_FUNCTION_INFO_V1(cuckoo_eq);
Datum
cuckoo_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cuckoo_cmp_internal(PG_GETARG_CUCKOO_P(0), PG_GETARG_CUCKOO_P(1)) == 0);
}

PG_FUNCTION_INFO_V1(cuckoo_ne);
Datum
cuckoo_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cuckoo_cmp_internal(PG_GETARG_CUCKOO_P(0), PG_GETARG_CUCKOO_P(1)) != 0);
}

/* Byte order of the binary forms, for the btree operator class (sorting). */
PG_FUNCTION_INFO_V1(cuckoo_cmp);
Datum
cuckoo_cmp(PG_FUNCTION_ARGS)
{
	int			c = cuckoo_cmp_internal(PG_GETARG_CUCKOO_P(0), PG_GETARG_CUCKOO_P(1));

	PG_RETURN_INT32(c < 0 ? -1 : (c > 0 ? 1 : 0));
}

#define CUCKOO_CMP_OP(name, test) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(cuckoo_cmp_internal(PG_GETARG_CUCKOO_P(0), PG_GETARG_CUCKOO_P(1)) test); \
}

CUCKOO_CMP_OP(cuckoo_lt, < 0)
CUCKOO_CMP_OP(cuckoo_le, <= 0)
CUCKOO_CMP_OP(cuckoo_gt, > 0)
CUCKOO_CMP_OP(cuckoo_ge, >= 0)

/* Hash of the binary form, for the hash operator class (GROUP BY, DISTINCT). */
PG_FUNCTION_INFO_V1(cuckoo_hash_filter);
Datum
cuckoo_hash_filter(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);

	PG_RETURN_INT32((int32) cf_hash_bytes(v->bytes, CUCKOO_BYTES_LEN(v)));
}

PG_FUNCTION_INFO_V1(cuckoo_hash_filter_extended);
Datum
cuckoo_hash_filter_extended(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	uint64		seed = (uint64) PG_GETARG_INT64(1);

	PG_RETURN_INT64((int64) (cf_hash_bytes(v->bytes, CUCKOO_BYTES_LEN(v)) ^ cf_hash_u64(seed)));
}

/* cuckoo_info(f): the shape and fill of a filter, as one record. */
PG_FUNCTION_INFO_V1(cuckoo_info);
Datum
cuckoo_info(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	cf_filter	cf;
	TupleDesc	tupdesc;
	Datum		values[13];
	bool		nulls[13] = {0};
	uint64		items;
	double		load;
	size_t		bytes = VARSIZE(v);

	cuckoo_open(&cf, v);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

	items = cf_items(&cf);
	/* the load of the table; an item in the victim slot is not in it */
	load = (double) (items - (cf_victim_used(&cf) ? 1 : 0)) / ((double) cf.m * cf.b);
	values[0] = Int64GetDatum(cf.m);
	values[1] = Int32GetDatum((int32) cf.b);
	values[2] = Int32GetDatum((int32) cf.f);
	values[3] = BoolGetDatum(cf.semisort);
	values[4] = Int64GetDatum((int64) items);
	values[5] = Int64GetDatum((int64) cf_capacity(&cf));
	values[6] = Float8GetDatum(load);
	values[7] = Int64GetDatum((int64) bytes);
	if (items > 0)
		values[8] = Float8GetDatum((double) bytes * 8.0 / (double) items);
	else
		nulls[8] = true;
	values[9] = Float8GetDatum(cf_expected_fpr(cf.b, cf.f, load));
	values[10] = CStringGetTextDatum(cf_kind_name(cf_kind_of(&cf)));
	values[11] = Int32GetDatum((int32) cf.max_kicks);
	values[12] = BoolGetDatum(cf_victim_used(&cf));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
