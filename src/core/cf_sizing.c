/*
 * cf_sizing.c
 *     How large a filter must be: buckets for a capacity, fingerprint bits
 *     for a false-positive rate, bytes for a shape.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_internal.h"

#include <math.h>

/*
 * The load factor a filter is sized for.  Below the load at which inserts
 * start to fail (about 0.84, 0.955 and 0.98 for b = 2, 4, 8; see
 * bench/core and docs/DESIGN.md) with a margin so that a filter filled to
 * its rated capacity practically never fails.
 */
double
cf_target_load(uint32_t bucket_size)
{
	switch (bucket_size)
	{
		case 2:
			return 0.80;
		case 4:
			return 0.94;
		default:
			return 0.97;
	}
}

bool
cf_buckets_representable(uint64_t m)
{
	uint32_t	c,
				k;

	if (m < 1 || m > UINT32_MAX)
		return false;
	split_buckets(m, &c, &k);
	return ((uint64_t) c << k) == m;
}

uint32_t
cf_round_buckets(uint64_t min_buckets)
{
	uint32_t	c,
				k;
	uint64_t	cc;

	if (min_buckets < 1)
		min_buckets = 1;
	if (min_buckets > UINT32_MAX)
		return 0;
	split_buckets(min_buckets, &c, &k);
	cc = (min_buckets + ((UINT64_C(1) << k) - 1)) >> k;
	if (k > 0 && cc == (UINT64_C(1) << CF_MANTISSA_BITS))
	{
		cc >>= 1;
		k++;
	}
	if ((cc << k) > UINT32_MAX)
		return 0;
	return (uint32_t) (cc << k);
}

/*
 * Buckets for a filter that must hold `capacity` items.  Large tables are
 * sized at the target load; small ones get a few buckets of slack, because
 * the load at which a small table fails varies much more from run to run.
 */
uint32_t
cf_buckets_for_capacity(uint64_t capacity, uint32_t bucket_size)
{
	double		load = cf_target_load(bucket_size);
	double		need;

	if (capacity <= bucket_size)
		return 1;
	need = ceil((double) capacity / (bucket_size * load));
	/* slack for small tables: with it, 2,000 fills per size from 5 to 10^5
	 * items saw no failure for b = 4, 8 (b = 2 needs twice as much) */
	need += ceil((bucket_size == 2 ? 2.0 : 1.0) * sqrt(need));
	if (need > (double) UINT32_MAX)
		return 0;
	return cf_round_buckets((uint64_t) need);
}

double
cf_expected_fpr(uint32_t bucket_size, uint32_t fp_bits, double load)
{
	double		range = ldexp(1.0, (int) fp_bits) - 1.0;

	if (load <= 0)
		return 0.0;
	/* each of up to 2b occupied entries matches with probability 1/range */
	return -expm1(2.0 * bucket_size * load * log1p(-1.0 / range));
}

/* The fewest fingerprint bits whose rate at this load is at most fpr; -1 if
 * even CF_MAX_FP_BITS bits are not enough. */
int
cf_fp_bits_for_fpr_at(double fpr, uint32_t bucket_size, double load)
{
	for (int f = CF_MIN_FP_BITS; f <= CF_MAX_FP_BITS; f++)
		if (cf_expected_fpr(bucket_size, (uint32_t) f, load) <= fpr)
			return f;
	return -1;
}

/* The same at the load a filter is sized for (cf_target_load). */
int
cf_fp_bits_for_fpr(double fpr, uint32_t bucket_size)
{
	return cf_fp_bits_for_fpr_at(fpr, bucket_size, cf_target_load(bucket_size));
}

size_t
cf_bucket_bits(uint32_t bucket_size, uint32_t fp_bits, bool semisort)
{
	return semisort ? 4 * ((size_t) fp_bits - 1) : (size_t) bucket_size * fp_bits;
}

/* Sizes are 64-bit everywhere, so no size_t can wrap on a 32-bit build. */
uint64_t
cf_data_bytes(uint64_t m, uint32_t bucket_size, uint32_t fp_bits, bool semisort)
{
	uint64_t	bits = m * cf_bucket_bits(bucket_size, fp_bits, semisort);

	return ((bits + 63) / 64) * 8 + 8;
}

uint64_t
cf_total_bytes(uint64_t m, uint32_t bucket_size, uint32_t fp_bits, bool semisort)
{
	return CF_HEADER_SIZE + cf_data_bytes(m, bucket_size, fp_bits, semisort);
}
