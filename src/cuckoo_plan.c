/*
 * cuckoo_plan.c
 *     A filter's parameters and rates: the planning of a new filter's
 *     parameters from the user's arguments, every one checked, and the load
 *     and expected false-positive rate of an existing filter.
 */
#include "cuckoo.h"

#include <math.h>

/*
 * The load of a filter's table (entries, not counting the victim slot, over
 * slots) and its expected false-positive rate.  Version 1 and a rotated fixed
 * filter (no tail bits): cf_expected_fpr of f-bit fingerprints.  A growing
 * filter's entry also matches on s spare address bits, s = t - 1 for an
 * entry added since the last doubling and one fewer per doubling since
 * (docs/DESIGN.md): after G doublings at a constant load about 2^-(j+1) of
 * the entries are j doublings old, so E[2^-s] is about (G + 2) 2^-t, and
 * the rate about that times the rate of f-bit fingerprints (an estimate:
 * entries moved between buckets of different resolution lose spare bits).
 */
double
filter_load(const cf_filter *cf, const cf_info *info)
{
	uint64		entries = (info->caps & CF_CAP_GENERATIONS) ? info->entries : cf_items(cf);

	return (double) (entries - (cf_victim_used(cf) ? 1 : 0)) / ((double) cf->m * cf->b);
}

double
filter_expected_fpr(const cf_filter *cf, const cf_info *info)
{
	double		fpr = cf_expected_fpr(cf->b, cf->f, filter_load(cf, info));

	/*
	 * The address budget (docs/FORMAT.md 13.12 rule 8): every entry knows A
	 * address bits, so each of the value's two buckets' entries matches with
	 * probability 2^-A / (c (2^f - 1)).
	 */
	if (info->addr_budget > 0)
		return Min(1.0, 2.0 * (double) info->entries /
				   (((double) cf->fp_range) * (double) info->c * ldexp(1.0, (int) info->addr_budget)));
	if (info->tail_bits > 0)
	{
		double		rounds = filter_growth_rounds(info);

		fpr = Min(1.0, fpr * (rounds + 2.0) * ldexp(1.0, -(int) info->tail_bits));
	}
	return fpr;
}

/* Table doublings since creation: k now against k at initial_buckets. */
int
filter_growth_rounds(const cf_info *info)
{
	uint64		init = info->initial_buckets;
	int			k0 = 0;

	if (!(info->caps & CF_CAP_GROWS) || info->c == 0)
		return 0;
	while (((uint64) info->c << (k0 + 1)) <= init)
		k0++;
	/* a filter compacted below its creation size has no doublings (not < 0) */
	return Max((int) info->k - k0, 0);
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

/* The false-positive rate a user asked for: 0 < fpr < 1. */
void
plan_check_fpr(double fpr)
{
	if (isnan(fpr) || fpr <= 0.0 || fpr >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fpr must be greater than 0 and less than 1, not %g", fpr)));
}

/*
 * Fingerprint bits for a checked fpr in a table of bucket_size entries filled
 * to load; for_what names the setting in the error when no width suffices.
 */
uint32
plan_fp_bits(double fpr, uint32 bucket_size, double load, const char *for_what)
{
	int			f = cf_fp_bits_for_fpr_at(fpr, bucket_size, load);

	if (f < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fpr must be at least %g for %s, not %g",
						cf_expected_fpr(bucket_size, CF_MAX_FP_BITS, load),
						for_what, fpr),
				 errdetail("That is the rate of %d-bit fingerprints, the longest a filter stores.",
						   CF_MAX_FP_BITS)));
	return (uint32) f;
}

/*
 * Parameters of a new filter from the user's arguments, every one checked.
 * fingerprint_bits overrides the size derived from fpr when fp_given.
 */
void
plan_params(int64 capacity, double fpr, int bucket_size,
			int fingerprint_bits, bool fp_given, int max_kicks,
			bool semisort, cf_params *p)
{
	uint32		m;
	uint64		bytes;

	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	plan_check_fpr(fpr);
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
		fingerprint_bits = (int) plan_fp_bits(fpr, (uint32) bucket_size,
											  cf_target_load((uint32) bucket_size),
											  psprintf("bucket_size %d", bucket_size));

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
	/* a fixed filter: version 1, byte for byte as 1.0 writes it */
	p->expansion = 0;
	p->tail_bits = 0;
	p->gen_bits = 0;
	p->budget = false;
}

/*
 * The parameters of cuckoo_create(..., expansion): 0 keeps the fixed filter
 * plan_params made; 2 replaces it by a growing one (format version 2, whose
 * shape the core derives from capacity and fpr).  Anything else, or an
 * argument a growing filter cannot honour, is an error.
 */
void
plan_expansion(int expansion, int64 capacity, double fpr, int bucket_size,
			   bool fp_given, bool semisort, int max_kicks, cf_params *p)
{
	char		err[256];

	if (expansion != 0 && expansion != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("expansion must be 0 (fixed) or 2 (grows), not %d", expansion)));
	if (expansion == 0)
		return;
	if (bucket_size != 4 || semisort || fp_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a filter with expansion 2 has bucket_size 4, no semisort and fingerprints sized from fpr"),
				 errdetail("It was given%s%s%s.",
						   bucket_size != 4 ? psprintf(" bucket_size %d", bucket_size) : "",
						   semisort ? " semisort" : "",
						   fp_given ? " fingerprint_bits" : "")));
	memset(p, 0, sizeof(*p));
	if (!cf_params_growing((uint64) capacity, fpr, (uint32) max_kicks, p, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot create a growing filter for capacity " INT64_FORMAT " at fpr %g: %s",
						capacity, fpr, err)));
}
