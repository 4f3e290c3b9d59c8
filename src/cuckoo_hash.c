/*
 * cuckoo_hash.c
 *     Turning SQL values into the 64-bit hash a filter stores.
 *
 * Values that are equal under their type's equality must hash alike, across
 * types that compare equal too (int2/int4/int8; numeric 1.0 and 1.00; text,
 * varchar, bpchar and name).  Built-in families get a canonical byte
 * encoding hashed with XXH3-64 (seed 0), which is stable across platforms,
 * PostgreSQL versions and dump/restore; any other type with a hash opclass
 * uses its extended hash function (seed 0), remixed.  docs/DESIGN.md lists
 * the encodings.  The argument side (which hasher a call site uses) is in
 * cuckoo_arg.c.
 */
#include "cuckoo.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/date.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

enum
{
	HM_INT2,
	HM_INT4,
	HM_INT8,
	HM_NUMERIC,
	HM_TEXT,					/* text, varchar */
	HM_BPCHAR,
	HM_NAME,
	HM_BYTEA,
	HM_UUID,
	HM_DATE,
	HM_TIMESTAMP,				/* timestamp and timestamptz */
	HM_BOOL,
	HM_FLOAT4,
	HM_FLOAT8,
	HM_ENUM,					/* by label, which survives dump/restore */
	HM_EXTENDED					/* the type's extended hash function */
};

/*
 * A 32-bit tag naming a type: hash of its name without the schema (so that
 * ALTER ... SET SCHEMA, e.g. of an extension's types, keeps filters usable),
 * never 0.
 */
static uint32
type_tag_for(Oid typid)
{
	HeapTuple	tup;
	uint32		tag;

	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	tag = (uint32) cf_hash_bytes(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname),
								 strlen(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname)));
	ReleaseSysCache(tup);
	return tag ? tag : 1;
}

/*
 * Whether the extended hash of typid sees object identifiers: enums inside
 * arrays, ranges or composites (a top-level enum is hashed by its label), and
 * the reg* types.  OIDs change on dump and restore, so a filter of such values
 * would lose its members; such types are refused.
 */
static bool
hash_uses_oids(Oid typid, int depth)
{
	Oid			base = getBaseType(typid);
	Oid			sub;

	if (depth > 32)
		return true;			/* absurd nesting: refuse rather than guess */
	switch (base)
	{
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCLASSOID:
		case REGTYPEOID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
		case REGNAMESPACEOID:
		case REGROLEOID:
		case REGCOLLATIONOID:
		case RECORDOID:			/* column types only known row by row */
			return true;
	}
	if (type_is_enum(base))
		return true;
	if (OidIsValid(sub = get_element_type(base)))
		return hash_uses_oids(sub, depth + 1);
	if (type_is_range(base))
		return hash_uses_oids(get_range_subtype(base), depth + 1);
#if CF_HAVE_MULTIRANGES
	if (type_is_multirange(base))
		return hash_uses_oids(get_multirange_range(base), depth + 1);
#endif
	if (type_is_rowtype(base))
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(base, -1);
		bool		uses = false;

		for (int i = 0; i < desc->natts && !uses; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (!att->attisdropped)
				uses = hash_uses_oids(att->atttypid, depth + 1);
		}
		ReleaseTupleDesc(desc);
		return uses;
	}
	return false;
}

/* Sets up hashing for values of type typid compared under collation. */
void
value_hasher_init(ValueHasher *vh, Oid typid, Oid collation, MemoryContext mcxt)
{
	Oid			base = getBaseType(typid);

	memset(vh, 0, sizeof(*vh));
	vh->typid = typid;
	vh->collation = collation;
	vh->type_tag = 0;

	switch (base)
	{
		case INT2OID:
			vh->kind = CF_KIND_INTEGER, vh->method = HM_INT2;
			break;
		case INT4OID:
			vh->kind = CF_KIND_INTEGER, vh->method = HM_INT4;
			break;
		case INT8OID:
			vh->kind = CF_KIND_INTEGER, vh->method = HM_INT8;
			break;
		case NUMERICOID:
			vh->kind = CF_KIND_NUMERIC, vh->method = HM_NUMERIC;
			break;
		case TEXTOID:
		case VARCHAROID:
			vh->kind = CF_KIND_TEXT, vh->method = HM_TEXT;
			break;
		case BPCHAROID:
			vh->kind = CF_KIND_TEXT, vh->method = HM_BPCHAR;
			break;
		case NAMEOID:
			vh->kind = CF_KIND_TEXT, vh->method = HM_NAME;
			break;
		case BYTEAOID:
			vh->kind = CF_KIND_BYTEA, vh->method = HM_BYTEA;
			break;
		case UUIDOID:
			vh->kind = CF_KIND_UUID, vh->method = HM_UUID;
			break;
		case DATEOID:
			vh->kind = CF_KIND_DATE, vh->method = HM_DATE;
			break;
		case TIMESTAMPOID:
			vh->kind = CF_KIND_TIMESTAMP, vh->method = HM_TIMESTAMP;
			break;
		case TIMESTAMPTZOID:
			vh->kind = CF_KIND_TIMESTAMPTZ, vh->method = HM_TIMESTAMP;
			break;
		case BOOLOID:
			vh->kind = CF_KIND_BOOL, vh->method = HM_BOOL;
			break;
		case FLOAT4OID:
			vh->kind = CF_KIND_FLOAT, vh->method = HM_FLOAT4;
			break;
		case FLOAT8OID:
			vh->kind = CF_KIND_FLOAT, vh->method = HM_FLOAT8;
			break;
		default:
			vh->kind = CF_KIND_OTHER;
			vh->type_tag = type_tag_for(base);
			if (type_is_enum(base))
			{
				Oid			outfn;
				bool		isvarlena;

				getTypeOutputInfo(base, &outfn, &isvarlena);
				fmgr_info_cxt(outfn, &vh->proc, mcxt);
				vh->method = HM_ENUM;
			}
			else
			{
				TypeCacheEntry *tce;

				if (hash_uses_oids(base, 0))
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("type %s cannot be stored in a cuckoo filter",
									format_type_be(typid)),
							 errdetail("Its hash depends on object identifiers (of enum labels, relations, types or anonymous records), which change when a database is dumped and restored; the filter would then lose its values."),
							 errhint("Cast the values to text, or to a named composite type.")));
				tce = lookup_type_cache(base, TYPECACHE_HASH_EXTENDED_PROC_FINFO);
				if (!OidIsValid(tce->hash_extended_proc))
					ereport(ERROR,
							(errcode(ERRCODE_UNDEFINED_FUNCTION),
							 errmsg("type %s cannot be stored in a cuckoo filter",
									format_type_be(typid)),
							 errdetail("A cuckoo filter needs a hash function for the type, and %s has no hash operator class with an extended hash function.",
									   format_type_be(base)),
							 errhint("Cast the values to a type that has one, such as text.")));
				fmgr_info_copy(&vh->proc, &tce->hash_extended_proc_finfo, mcxt);
				vh->method = HM_EXTENDED;
			}
			break;
	}

	/* Byte-wise hashing is equality only under a deterministic collation. */
	if ((vh->method == HM_TEXT || vh->method == HM_BPCHAR || vh->method == HM_NAME) &&
		OidIsValid(collation) && !get_collation_isdeterministic(collation))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("nondeterministic collations are not supported by cuckoo filters"),
				 errhint("Use a deterministic collation, for example with COLLATE \"C\".")));
}

static inline uint64
hash_cstring(const char *s)
{
	return cf_hash_bytes(s, strlen(s));
}

/* The 64-bit hash of a non-null value. */
uint64
value_hash(ValueHasher *vh, Datum value)
{
	switch (vh->method)
	{
		case HM_INT2:
			return cf_hash_u64((uint64) (int64) DatumGetInt16(value));
		case HM_INT4:
			return cf_hash_u64((uint64) (int64) DatumGetInt32(value));
		case HM_INT8:
			return cf_hash_u64((uint64) DatumGetInt64(value));
		case HM_DATE:
			return cf_hash_u64((uint64) (int64) DatumGetDateADT(value));
		case HM_TIMESTAMP:
			return cf_hash_u64((uint64) DatumGetInt64(value));
		case HM_BOOL:
			return cf_hash_u64(DatumGetBool(value) ? 1 : 0);
		case HM_FLOAT4:
		case HM_FLOAT8:
			{
				/* float4 widens exactly, as in float48eq; -0 = 0; NaN = NaN */
				double		d = vh->method == HM_FLOAT4 ?
					(double) DatumGetFloat4(value) : DatumGetFloat8(value);
				uint64		bits;

				if (d == 0.0)
					d = 0.0;
				if (isnan(d))
					bits = UINT64CONST(0x7ff8000000000000);
				else
					memcpy(&bits, &d, sizeof(bits));
				return cf_hash_u64(bits);
			}
		case HM_NUMERIC:
			{
				/* numeric_normalize drops trailing zeroes: 1.0 -> "1" */
				char	   *s = numeric_normalize(DatumGetNumeric(value));
				uint64		h = hash_cstring(s);

				pfree(s);
				return h;
			}
		case HM_TEXT:
		case HM_BYTEA:
			{
				struct varlena *t = PG_DETOAST_DATUM_PACKED(value);
				uint64		h = cf_hash_bytes(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));

				if ((Pointer) t != DatumGetPointer(value))
					pfree(t);
				return h;
			}
		case HM_BPCHAR:
			{
				/* trailing blanks are insignificant for character(n) */
				struct varlena *t = PG_DETOAST_DATUM_PACKED(value);
				const char *s = VARDATA_ANY(t);
				size_t		n = VARSIZE_ANY_EXHDR(t);
				uint64		h;

				while (n > 0 && s[n - 1] == ' ')
					n--;
				h = cf_hash_bytes(s, n);
				if ((Pointer) t != DatumGetPointer(value))
					pfree(t);
				return h;
			}
		case HM_NAME:
			return hash_cstring(NameStr(*DatumGetName(value)));
		case HM_UUID:
			return cf_hash_bytes(DatumGetUUIDP(value)->data, UUID_LEN);
		case HM_ENUM:
			{
				char	   *label = OutputFunctionCall(&vh->proc, value);
				uint64		h = hash_cstring(label);

				pfree(label);
				return h;
			}
		case HM_EXTENDED:
			return cf_hash_u64(DatumGetUInt64(FunctionCall2Coll(&vh->proc,
																 vh->collation,
																 value,
																 Int64GetDatum(0))));
	}
	elog(ERROR, "unknown cuckoo hash method %d", vh->method);
	return 0;					/* keep compiler quiet */
}

/* True when a value hashed by vh may be looked up in (or added to) cf. */
bool
filter_kind_matches(const cf_filter *cf, const ValueHasher *vh)
{
	uint16		kind = cf_kind_of(cf);

	return kind == CF_KIND_ANY ||
		(kind == vh->kind && cf_type_tag(cf) == vh->type_tag);
}

/* Raises the type-mismatch error when vh's values do not belong in cf. */
void
filter_check_kind(const cf_filter *cf, const ValueHasher *vh)
{
	uint16		kind = cf_kind_of(cf);

	if (filter_kind_matches(cf, vh))
		return;
	if (kind == CF_KIND_OTHER)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo filter holds values of a different type than %s",
						format_type_be(vh->typid)),
				 errdetail("The filter was built from values of a type outside the built-in families, recorded by the type's name (tag %08x); %s has another name.",
						   cf_type_tag(cf), format_type_be(vh->typid)),
				 errhint("Probe a filter with values of the type it was built from (after ALTER TYPE ... RENAME, rebuild the filter).")));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cuckoo filter holds %s values, not %s",
					cf_kind_name(kind), format_type_be(vh->typid)),
			 errhint("Probe a filter with values of the type it was built from.")));
}
