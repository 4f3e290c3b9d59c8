/*
 * cuckoo_error.c
 *     The errors that failed core statuses become: what the user reads when
 *     a filter is full, a value was added too often, or two filters cannot
 *     be unioned.
 */
#include "cuckoo.h"

/* The hint of the "full" error: a fixed filter could have been made to grow. */
static int
full_hint(const cf_filter *cf)
{
	cf_info		info;

	cf_get_info(cf, &info);
	if (info.expansion == 0)
		return errhint("Build a larger filter (cuckoo_agg over the source data, or cuckoo_create with a larger capacity), or one that grows: cuckoo_create(..., expansion => 2) or cuckoo_agg(value, capacity, fpr, 2).");
	return errhint("A growing filter stops growing at %zu bytes, or when many copies of a few values crowd one pair of buckets; cuckoo_add_if_absent stores each value once.",
				   (size_t) CF_MAX_BYTES);
}

/* "was never rotated" or where its generations stand, for an error detail */
static const char *
rotation_state(const cf_info *info)
{
	if (info->keep == 0)
		return "was never rotated";
	return psprintf("is in generation %u of %u-bit tags, rotated last with keep %u",
					info->cur_gen, info->gen_bits, info->keep);
}

/*
 * Turns a failed core status into the user-facing error.  other is the
 * second filter of a union (NULL for an operation on one filter): the
 * union's errors name both.
 */
void
filter_report_status(cf_status st, const cf_filter *cf, const cf_filter *other)
{
	switch (st)
	{
		case CF_OK:
		case CF_OK_STASHED:
		case CF_EXISTS:
			return;
		case CF_FULL:
			if (other != NULL && (cf_caps(cf) & CF_CAP_GROWS))
			{
				cf_info		info;

				cf_get_info(cf, &info);
				if (info.addr_budget > 0)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("the union does not fit in a cuckoo filter of this shape"),
							 errdetail("The growing filter has %u buckets of %u entries and reached the size limit of a filter (" UINT64_FORMAT " bytes).",
									   cf->m, cf->b, (uint64) CF_MAX_BYTES),
							 errhint("Keep a set this large in a stored filter (cuckoo_store_create), which is split into segments and has no such limit, or split the set into several filters.")));
				if (info.expansion != 0)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("the union does not fit in a cuckoo filter of this shape"),
							 errdetail("The growing filter has %u buckets of %u entries and could not grow further: it reached the size limit, or the next bucket to split holds only copies that know no spare address bit (docs/RELIABILITY.md, known limits).",
									   cf->m, cf->b),
							 errhint("Rebuild the filters from their values: growing filters made by the library of extension 1.4 carry the address budget and union to the size limit without copies (docs/FORMAT.md 13.12). Or build one filter over the sources with cuckoo_agg(value, fpr), which sizes it to the data and combines partial results exactly.")));
			}
			if (other != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("the union does not fit in a cuckoo filter of this shape"),
						 errdetail("The filter has %u buckets of %u entries.", cf->m, cf->b),
						 errhint("Union filters built by cuckoo_create or cuckoo_agg(value, capacity, fpr) with a capacity for all their values; filters that cuckoo_agg(value) sized to their own data have no room to spare.")));
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("cuckoo filter is full"),
					 errdetail("It holds " UINT64_FORMAT " items: %u buckets of %u entries (load factor %.3f)%s; its rated capacity is " UINT64_FORMAT ".",
							   cf_items(cf), cf->m, cf->b,
							   (double) (cf_items(cf) - (cf_victim_used(cf) ? 1 : 0)) /
							   ((double) cf->m * cf->b),
							   cf_victim_used(cf) ? " and the one-entry victim slot" : "",
							   cf_capacity(cf)),
					 full_hint(cf)));
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
			Assert(other != NULL);
			if ((cf_caps(cf) | cf_caps(other)) & CF_CAP_CREATION_SHAPE)
			{
				/* version 2: the creation shape counts, not the current size */
				cf_info		a,
							o;

				cf_get_info(cf, &a);
				cf_get_info(other, &o);
				if (a.expansion == o.expansion &&
					cf->b == other->b && cf->f == other->f &&
					/* an address-budget filter's t follows its size and g */
					(a.tail_bits == o.tail_bits || (a.addr_budget && o.addr_budget)) &&
					a.c == o.c && cf_capacity(cf) == cf_capacity(other))
				{
					/* one creation shape: the generations differ */
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("cannot union cuckoo filters that were not rotated in step"),
							 errdetail("The first %s; the second %s.",
									   rotation_state(&a), rotation_state(&o)),
							 errhint("Rotate filters that are to be unioned together, by the same cuckoo_rotate calls, or union them before rotating.")));
				}
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("cannot union cuckoo filters of different shapes"),
						 errdetail("The first is %s: %u-bit fingerprints, %u tail bits, created with %u buckets for capacity " UINT64_FORMAT "; the second is %s: %u-bit fingerprints, %u tail bits, created with %u buckets for capacity " UINT64_FORMAT ".",
								   a.expansion ? "growing" : ((a.caps & CF_CAP_GENERATIONS) ? "fixed, rotated" : "fixed"),
								   cf->f, a.tail_bits, a.initial_buckets, cf_capacity(cf),
								   o.expansion ? "growing" : ((o.caps & CF_CAP_GENERATIONS) ? "fixed, rotated" : "fixed"),
								   other->f, o.tail_bits, o.initial_buckets, cf_capacity(other)),
						 errhint("Filters made by cuckoo_create or cuckoo_agg(value, capacity, fpr [, expansion]) with the same arguments have the same shape, however far they have grown.")));
			}
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot union cuckoo filters of different shapes"),
					 errdetail("The first has %u buckets of %u %u-bit fingerprints%s, the second %u buckets of %u %u-bit fingerprints%s.",
							   cf->m, cf->b, cf->f, cf->semisort ? " (semi-sorted)" : "",
							   other->m, other->b, other->f, other->semisort ? " (semi-sorted)" : ""),
					 errhint("Filters made by cuckoo_create or cuckoo_agg(value, capacity, fpr) with the same arguments have the same shape.")));
			break;
		case CF_KIND_MISMATCH:
			Assert(other != NULL);
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cannot union a cuckoo filter of %s values with one of %s values",
							cf_kind_name(cf_kind_of(cf)), cf_kind_name(cf_kind_of(other)))));
			break;
	}
}
