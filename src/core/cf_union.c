/*
 * cf_union.c
 *     Format 1's whole-filter operations: union of two filters of one
 *     shape, and shrinking (the smallest bucket count that holds the items, and the
 *     rehash into it).
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v1.h"

#include <math.h>

static bool
same_shape(const cf_filter *a, const cf_filter *b)
{
	return a->m == b->m && a->b == b->b && a->f == b->f &&
		a->semisort == b->semisort;
}

/* Raises dst's copies of fp in the pair (i, alt) to src's, if fewer. */
static cf_status
union_key(cf_filter *dst, const cf_filter *src, uint32_t i, uint32_t a, uint32_t fp)
{
	uint32_t	want = cf_pair_count(src, i, a, fp);
	uint32_t	have = cf_pair_count(dst, i, a, fp);

	for (; have < want; have++)
	{
		cf_status	st = cf_insert_fingerprint(dst, i, fp, header_items(dst), false);

		if (st != CF_OK && st != CF_OK_STASHED)
			return st;
	}
	return CF_OK;
}

/*
 * The union below sweeps src bucket by bucket; each entry also reads its
 * alternate bucket in both filters and its bucket in dst, one random cache
 * miss after another in filters larger than the caches.  Those of the
 * entries CF_UNION_AHEAD buckets later are requested while the current ones
 * are merged, so the misses overlap (the order of the work, and so the
 * result, is unchanged).
 */
#define CF_UNION_AHEAD	8

static inline void
prefetch_pairs(const cf_filter *dst, const cf_filter *src, uint32_t i)
{
	uint32_t	fps[8];

	read_bucket(src, i, fps);
	prefetch_bucket(dst, i);
	for (uint32_t j = 0; j < src->b; j++)
	{
		uint32_t	a;

		if (fps[j] == 0)
			continue;
		a = alt_bucket(src, i, fps[j]);
		prefetch_bucket(src, a);
		prefetch_bucket(dst, a);
	}
}

/*
 * dst := dst union src, for filters of the same shape.  Each (bucket pair,
 * fingerprint) key ends up with the larger of its two copy counts: the
 * multiset union, so a value present in both is stored once, not twice.
 * dst may be left partly merged when CF_FULL is returned.
 */
cf_status
cf1_union_into(cf_filter *dst, const cf_filter *src)
{
	uint16_t	dk = cf_kind_of(dst),
				sk = cf_kind_of(src);

	if (!same_shape(dst, src))
		return CF_SHAPE_MISMATCH;
	if (sk != CF_KIND_ANY && dk != CF_KIND_ANY &&
		(sk != dk || cf_type_tag(src) != cf_type_tag(dst)))
		return CF_KIND_MISMATCH;
	if (dk == CF_KIND_ANY && header_items(src) > 0)
		cf_set_kind(dst, sk, cf_type_tag(src));
	if (cf_capacity(src) > cf_capacity(dst))
		wr64(dst->buf + CF_OFF_CAPACITY, cf_capacity(src));

	for (uint32_t i = 0; i < src->m; i++)
	{
		uint32_t	fps[8];

		CF_CHECK_INTERRUPTS(i);
		if (i + CF_UNION_AHEAD < src->m)
			prefetch_pairs(dst, src, i + CF_UNION_AHEAD);
		read_bucket(src, i, fps);
		for (uint32_t j = 0; j < src->b; j++)
		{
			uint32_t	fp = fps[j];
			uint32_t	a;
			bool		seen = false;
			cf_status	st;

			if (fp == 0)
				continue;
			for (uint32_t t = 0; t < j; t++)
				seen |= (fps[t] == fp);
			if (seen)
				continue;		/* same key earlier in this bucket */
			a = alt_bucket(src, i, fp);
			if (a < i && bucket_has_fp(src, a, fp))
				continue;		/* key was merged at bucket a */
			st = union_key(dst, src, i, a, fp);
			if (st != CF_OK)
				return st;
		}
	}
	if (victim_in_use(src))
	{
		uint32_t	vb = rd32(src->buf + CF_OFF_VICTIM_BUCKET);
		uint32_t	vfp = rd32(src->buf + CF_OFF_VICTIM_FP);
		uint32_t	a = alt_bucket(src, vb, vfp);

		if (!bucket_has_fp(src, vb, vfp) && !bucket_has_fp(src, a, vfp))
		{
			cf_status	st = union_key(dst, src, vb, a, vfp);

			if (st != CF_OK)
				return st;
		}
	}
	CF_ASSERT_VALID(dst, "cf_union_into");
	return CF_OK;
}

/*
 * The smallest bucket count, reachable by halving (m = c * 2^k, smaller k),
 * that holds the current items at the target load.  Returns m itself when
 * the filter cannot get smaller.
 */
uint32_t
cf_shrink_target(const cf_filter *cf)
{
	uint64_t	items = header_items(cf);
	double		load = cf_target_load(cf->b);

	if (cf->ops->caps & CF_CAP_COMPACTS)
		return cf->m;			/* cf_compact_* */
	for (uint32_t k = 0; k < cf->k; k++)
	{
		uint64_t	m = (uint64_t) cf->c << k;

		if ((double) items <= floor((double) m * cf->b * load))
			return (uint32_t) m;
	}
	return cf->m;
}

/*
 * Moves every fingerprint of src into the empty filter dst, which has the same
 * c, b, f and layout and k no larger than src's.  The bucket an entry lies in
 * is folded by dropping high bits of r; that is one of its two buckets in dst.
 */
cf_status
cf_rehash_into(const cf_filter *src, cf_filter *dst)
{
	if ((src->ops->caps | dst->ops->caps) & CF_CAP_COMPACTS)
		return CF_SHAPE_MISMATCH;
	if (dst->c != src->c || dst->k > src->k || dst->b != src->b ||
		dst->f != src->f || dst->semisort != src->semisort)
		return CF_SHAPE_MISMATCH;

	for (uint32_t i = 0; i < src->m; i++)
	{
		uint32_t	fps[8];
		uint32_t	ni = ((i >> src->k) << dst->k) | (i & dst->rmask);

		CF_CHECK_INTERRUPTS(i);
		read_bucket(src, i, fps);
		for (uint32_t j = 0; j < src->b; j++)
		{
			cf_status	st;

			if (fps[j] == 0)
				continue;
			st = cf_insert_fingerprint(dst, ni, fps[j], header_items(dst), false);
			if (st != CF_OK && st != CF_OK_STASHED)
				return st;
		}
	}
	if (victim_in_use(src))
	{
		uint32_t	vb = rd32(src->buf + CF_OFF_VICTIM_BUCKET);
		uint32_t	ni = ((vb >> src->k) << dst->k) | (vb & dst->rmask);
		cf_status	st = cf_insert_fingerprint(dst, ni, rd32(src->buf + CF_OFF_VICTIM_FP),
								   header_items(dst), false);

		if (st != CF_OK && st != CF_OK_STASHED)
			return st;
	}
	CF_ASSERT_VALID(dst, "cf_rehash_into");
	return CF_OK;
}
