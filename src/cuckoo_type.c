/*
 * cuckoo_type.c
 *     The cuckoofilter type: text and binary I/O, the bytea cast, the
 *     comparison and hash operator classes, and cuckoo_info.
 *
 * Every way in (text, binary, bytea) runs the same full validation
 * (cf_validate), so nothing that one path rejects can enter through another.
 */
#include "cuckoo.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"

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

/*
 * Text input: the base64 of the serialised form, nothing before or after.
 * Decoded straight into the new value (huge pages advised when large), then
 * validated in place: one buffer of the filter's size, not two.
 */
PG_FUNCTION_INFO_V1(cuckoo_in);
Datum
cuckoo_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		n = strlen(str);
	size_t		len;
	CuckooFilter *v = NULL;
	Node	   *escontext = fcinfo->context;
	char		err[256];

	if (cf_b64_decoded_len(str, n, &len) && (uint64) len <= CF_MAX_BYTES)
	{
		v = filter_alloc(CurrentMemoryContext, VARHDRSZ + len);
		SET_VARSIZE(v, VARHDRSZ + len);
		if (!cf_b64_decode(str, n, v->bytes))
		{
			pfree(v);
			v = NULL;
		}
	}
	if (v == NULL)
	{
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type cuckoofilter"),
				 errdetail("A cuckoofilter is written as the base64 encoding of its binary form.")));
	}
	if (!cf_validate(v->bytes, len, err, sizeof(err)))
	{
		pfree(v);
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid cuckoofilter value: %s", err)));
	}
	PG_RETURN_CUCKOO_P(v);
}

/*
 * Argument argno, detoasted, refused unless its header is a valid filter
 * header (cf_check_header: O(1), the same check every probe makes).  Output,
 * send, comparison and hashing look at the bytes only, but a value that is
 * not a filter (bytes a C function labelled cuckoofilter, an aggregate's
 * internal state that escaped) must not be printed, sent or compared as one.
 */
static CuckooFilter *
arg_checked(FunctionCallInfo fcinfo, int argno)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(argno);
	char		err[256];

	if (!cf_check_header(v->bytes, CUCKOO_BYTES_LEN(v), err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoofilter value: %s", err)));
	return v;
}

/* Text output; the buffer of a large filter's text gets huge pages advised. */
PG_FUNCTION_INFO_V1(cuckoo_out);
Datum
cuckoo_out(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = arg_checked(fcinfo, 0);
	size_t		len = CUCKOO_BYTES_LEN(v);
	size_t		tlen = cf_b64_encoded_len(len);
	char	   *out = filter_alloc(CurrentMemoryContext, tlen + 1);

	cf_b64_encode(v->bytes, len, out);
	out[tlen] = '\0';
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
	CuckooFilter *v = arg_checked(fcinfo, 0);
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
filter_cmp(CuckooFilter *a, CuckooFilter *b)
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
	PG_RETURN_BOOL(filter_cmp(arg_checked(fcinfo, 0), arg_checked(fcinfo, 1)) == 0);
}

PG_FUNCTION_INFO_V1(cuckoo_ne);
Datum
cuckoo_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filter_cmp(arg_checked(fcinfo, 0), arg_checked(fcinfo, 1)) != 0);
}

/* Byte order of the binary forms, for the btree operator class (sorting). */
PG_FUNCTION_INFO_V1(cuckoo_cmp);
Datum
cuckoo_cmp(PG_FUNCTION_ARGS)
{
	int			c = filter_cmp(arg_checked(fcinfo, 0), arg_checked(fcinfo, 1));

	PG_RETURN_INT32(c < 0 ? -1 : (c > 0 ? 1 : 0));
}

#define CUCKOO_CMP_OP(name, test) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(filter_cmp(arg_checked(fcinfo, 0), arg_checked(fcinfo, 1)) test); \
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
	CuckooFilter *v = arg_checked(fcinfo, 0);

	PG_RETURN_INT32((int32) cf_hash_bytes(v->bytes, CUCKOO_BYTES_LEN(v)));
}

PG_FUNCTION_INFO_V1(cuckoo_hash_filter_extended);
Datum
cuckoo_hash_filter_extended(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = arg_checked(fcinfo, 0);
	uint64		seed = (uint64) PG_GETARG_INT64(1);

	PG_RETURN_INT64((int64) (cf_hash_bytes(v->bytes, CUCKOO_BYTES_LEN(v)) ^ cf_hash_u64(seed)));
}

/*
 * cuckoo_info(f): the shape and fill of a filter, as one record; from 1.2
 * also its format version, growth and generations.  Called through a
 * pg_proc row of 1.0 or 1.1 (13 columns) until the update rewrites it, the
 * function fills only the columns its row type has.
 */
#define INFO_COLUMNS	24

PG_FUNCTION_INFO_V1(cuckoo_info);
Datum
cuckoo_info(PG_FUNCTION_ARGS)
{
	CuckooFilter *v = PG_GETARG_CUCKOO_P(0);
	cf_filter	cf;
	cf_info    *info = palloc(sizeof(cf_info));
	TupleDesc	tupdesc;
	Datum		values[INFO_COLUMNS];
	bool		nulls[INFO_COLUMNS] = {0};
	uint64		items;
	double		load;
	size_t		bytes = VARSIZE(v);

	filter_open(&cf, v);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != 13 && tupdesc->natts != INFO_COLUMNS)
		elog(ERROR, "cuckoo_info: unexpected row type of %d columns", tupdesc->natts);
	tupdesc = BlessTupleDesc(tupdesc);

	cf_get_info(&cf, info);
	items = cf_items(&cf);
	/* the load of the table; an entry in the victim slot is not in it */
	load = filter_load(&cf, info);
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
	values[9] = Float8GetDatum(filter_expected_fpr(&cf, info));
	values[10] = CStringGetTextDatum(cf_kind_name(cf_kind_of(&cf)));
	values[11] = Int32GetDatum((int32) cf.max_kicks);
	values[12] = BoolGetDatum(cf_victim_used(&cf));
	/* 1.2 */
	values[13] = Int32GetDatum((int32) info->version);
	values[14] = Int32GetDatum((int32) info->expansion);
	values[15] = Int32GetDatum((int32) info->tail_bits);
	values[16] = Int64GetDatum((int64) info->initial_buckets);
	values[17] = Int32GetDatum(filter_growth_rounds(info));
	values[18] = Int64GetDatum((int64) info->split);
	values[19] = Int64GetDatum((int64) info->entries);
	values[20] = Int32GetDatum((int32) info->gen_bits);
	values[21] = Int32GetDatum((int32) info->cur_gen);
	values[22] = Int32GetDatum((int32) info->keep);
	if (info->generations > 0)
	{
		Datum	   *gi = palloc(sizeof(Datum) * info->generations);

		for (uint32 i = 0; i < info->generations && i < lengthof(info->gen_items); i++)
			gi[i] = Int64GetDatum((int64) info->gen_items[i]);
		values[23] = PointerGetDatum(construct_array(gi, (int) Min(info->generations, lengthof(info->gen_items)),
													 INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
	else
	{
		/* never rotated: one generation, holding every item */
		Datum		gi = Int64GetDatum((int64) items);

		values[23] = PointerGetDatum(construct_array(&gi, 1, INT8OID, 8, FLOAT8PASSBYVAL,
													 TYPALIGN_DOUBLE));
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
