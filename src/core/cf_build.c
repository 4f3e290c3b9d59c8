/*
 * cf_build.c
 *     Building a filter from a run of hashes: cf_insert_if_absent_many, the
 *     batched form of cf_insert_if_absent that the fixed-shape aggregate
 *     (cuckoo_agg(value, capacity, fpr)) feeds a buffer of rows at a time.
 *
 * Kept apart from cf_table.c (the item operations) so that work on the
 * lookup and insert paths there and on the build here do not collide.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v1.h"

/*
 * How far ahead the buckets of a later hash are requested: each insert costs
 * about two cache misses in a table larger than the caches, so 16 in flight
 * covers the round trip of one with the work of the next few.
 */
#define CF_BUILD_AHEAD	16

/*
 * cf_insert_if_absent of a version-1 filter with the hash located once:
 * cf_contains (both buckets, the victim slot), then what cf_insert does.
 */
static inline cf_status
insert_if_absent_v1(cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1,
				i2;
	cf_status	st;

	locate(cf, h, &fp, &i1);
	i2 = alt_bucket(cf, i1, fp);
	if (bucket_has_fp(cf, i1, fp) || bucket_has_fp(cf, i2, fp) ||
		victim_matches(cf, fp, i1, i2))
		return CF_EXISTS;
	st = cf_insert_fingerprint(cf, i1, fp, h ^ header_items(cf), true);
	CF_ASSERT_HEADER(cf);
	return st;
}

/*
 * The same as calling cf_insert_if_absent(cf, h[j]) for j = 0 .. n-1 in
 * order (the filter ends byte for byte the same), while the two buckets of
 * the hash CF_BUILD_AHEAD places later are being fetched.  Stops at the first
 * status other than CF_OK, CF_OK_STASHED or CF_EXISTS (that hash is not
 * inserted); returns how many hashes were handled before it and sets *st to
 * that status, or to CF_OK when all n were.
 */
size_t
cf1_insert_if_absent_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st)
{
	for (size_t j = 0; j < n && j < CF_BUILD_AHEAD; j++)
	{
		uint32_t	fp,
					i1;

		locate(cf, h[j], &fp, &i1);
		prefetch_bucket(cf, i1);
		prefetch_bucket(cf, alt_bucket(cf, i1, fp));
	}
	for (size_t j = 0; j < n; j++)
	{
		cf_status	s;

		if (j + CF_BUILD_AHEAD < n)
		{
			uint32_t	fp,
						i1;

			locate(cf, h[j + CF_BUILD_AHEAD], &fp, &i1);
			prefetch_bucket(cf, i1);
			prefetch_bucket(cf, alt_bucket(cf, i1, fp));
		}
		s = insert_if_absent_v1(cf, h[j]);
		if (s != CF_OK && s != CF_OK_STASHED && s != CF_EXISTS)
		{
			*st = s;
			return j;
		}
	}
	*st = CF_OK;
	return n;
}
