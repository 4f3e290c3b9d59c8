/*
 * cf_v2_table.c
 *     Format 2's item operations: insert (with the kick walk and its
 *     journal), delete, count and insert-if-absent, one at a time and
 *     batched.  The lookups by slot shape are in cf_v2_lookup.c.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

/*
 * One logical item fewer; it was stored in generation gen.  When that
 * generation's count is already 0 (its entries were raised or copied), the
 * nearest younger generation, then the nearest older one, pays: the counts
 * stay consistent (their sum is items) and never negative.
 */
static void
v2_item_removed(cf_filter *cf, uint32_t gen)
{
	uint32_t	cur = v2_cur_gen(cf);

	if (header_items(cf) == 0)
		return;
	add_items(cf, -1);
	if (cf->g)
	{
		uint32_t	age = (cur - gen) & cf->gmask;

		for (uint32_t d = 0; d <= cf->gmask; d++)
		{
			/* ages age, age-1, ..., 0, then age+1, ... */
			uint32_t	a = d <= age ? age - d : d;
			uint8_t    *p = gi_at(cf, (cur - a) & cf->gmask);

			if (rd64(p) > 0)
			{
				wr64(p, rd64(p) - 1);
				return;
			}
		}
	}
}

/* ------------------------------------------------------------------------
 * Item operations
 * ------------------------------------------------------------------------ */

/* True when both buckets of the pair hold nothing but fp. */
static bool
pair_only_fp2(const cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	n = 0;

	for (uint32_t j = 0; j < cf->b; j++)
		n += (rd_slot(cf, i1, j) & cf->fp_mask) == fp;
	if (i2 == i1)
		return n == cf->b;
	for (uint32_t j = 0; j < cf->b; j++)
		n += (rd_slot(cf, i2, j) & cf->fp_mask) == fp;
	return n == 2 * cf->b;
}

/* True when no entry of the pair has an alternate outside it (a kick walk
 * from the pair cannot leave it). */
static bool
pair_closed(const cf_filter *cf, uint32_t i1, uint32_t i2)
{
	for (int side = 0; side < (i2 == i1 ? 1 : 2); side++)
	{
		uint32_t	i = side ? i2 : i1;

		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	alt,
						e2;

			if (slot_alt(cf, i, rd_slot(cf, i, j), &alt, &e2) && alt != i1 && alt != i2)
				return false;
		}
	}
	return true;
}

/*
 * True when every slot of the pair holds an entry that matches the value
 * (its fingerprint, spare bits a prefix of its address on that side): the
 * value's copies, or entries that know too few bits to tell it apart.  Such
 * entries never leave the pair: their alternate is the pair's other bucket
 * (or unknown), and a split sends them with the value (or copies them).
 * An entry of the fingerprint that does not match belongs to another value:
 * it may have another alternate now, and a split separates it from this
 * value, so the insert goes on (the kick walk, the victim, the splits).
 * Without tails (t = 0, fixed) matching is the fingerprint, as in format 1.
 */
static bool
pair_full_of_matches(const cf_filter *cf, const v2_hash *v, uint32_t i1, uint32_t r1,
					 uint32_t i2, uint32_t r2)
{
	uint32_t	ah1 = v->a >> r1,
				ah2 = v->a2 >> r2;

	for (uint32_t j = 0; j < cf->b; j++)
	{
		uint32_t	e = rd_slot(cf, i1, j);

		/* one bucket for both: an entry may be stored under either address */
		if (!slot_match(cf, e, v->fp, ah1) && !(i2 == i1 && slot_match(cf, e, v->fp, ah2)))
			return false;
	}
	if (i2 == i1)
		return true;
	for (uint32_t j = 0; j < cf->b; j++)
		if (!slot_match(cf, rd_slot(cf, i2, j), v->fp, ah2))
			return false;
	return true;
}

cf_status
cf2_insert(cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	i1,
				i2,
				r1,
				r2,
				e1,
				e2,
				gen;
	bool		placed;

	if (cf->grows && v2_over_load(cf, 1) && !v2_grow(cf, 1))
		return CF_FULL;
	v2_parts(cf, h, &v);
	i1 = locate2(cf, v.q, v.a, &r1);
	i2 = locate2(cf, v.q2, v.a2, &r2);
	gen = v2_cur_gen(cf);
	e1 = make_slot(cf, v.fp, v.a, cf->abits, r1, gen);
	e2 = make_slot(cf, v.fp, v.a2, cf->abits, r2, gen);
	if (v2_place(cf, i1, e1) || (i2 != i1 && v2_place(cf, i2, e2)))
	{
		v2_add_entries(cf, 1);
		v2_item_added(cf, gen);
		CF_ASSERT_HEADER(cf);
		return CF_OK;
	}
	if (pair_only_fp2(cf, i1, i2, v.fp))
	{
		if (pair_full_of_matches(cf, &v, i1, r1, i2, r2))
			return CF_TOO_MANY_COPIES;
		/*
		 * Other values of the fingerprint: when none of the entries can
		 * leave the pair, a kick walk would only fill the victim slot; a
		 * split of one of the buckets separates the values.
		 */
		if (pair_closed(cf, i1, i2))
		{
			if (!v2_split_pair(cf, i1, i2))
				return CF_FULL;
			return cf2_insert(cf, h);
		}
	}
	if (victim_in_use(cf))
	{
		/*
		 * A growing filter splits more buckets to place the victim left by
		 * an earlier walk, then tries again (the geometry has changed);
		 * full only when that did not free it, as a fixed filter is.
		 */
		if (!cf->grows || cf->m >= v2_max_buckets(cf) ||
			!v2_reserve(cf, cf2_total_bytes((uint64_t) cf->m + 1, cf->b, cf->w, cf->g)))
			return CF_FULL;		/* no room to split: the bytes are as they were */
		v2_relieve(cf);
		if (victim_in_use(cf))
			return CF_FULL;
		return cf2_insert(cf, h);
	}
	v2_add_entries(cf, 1);
	v2_item_added(cf, gen);
	placed = (h & 1) ? v2_store(cf, i2, e2, h ^ header_items(cf))
		: v2_store(cf, i1, e1, h ^ header_items(cf));
	if (!placed && cf->grows)
		v2_relieve(cf);
	CF_ASSERT_HEADER(cf);
	return victim_in_use(cf) ? CF_OK_STASHED : CF_OK;
}

size_t
cf2_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st)
{
	for (size_t j = 0; j < n; j++)
	{
		cf_status	s;

		CF_CHECK_INTERRUPTS(j + 1);
		s = cf2_insert(cf, h[j]);
		if (s != CF_OK)
		{
			*st = s;
			return j;
		}
	}
	*st = CF_OK;
	return n;
}

uint32_t
cf2_count(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r1,
				r2,
				i1,
				i2,
				n;

	v2_parts(cf, h, &v);
	i1 = locate2(cf, v.q, v.a, &r1);
	i2 = locate2(cf, v.q2, v.a2, &r2);
	/* one bucket for both: an entry may be stored under either address */
	if (i2 == i1)
		n = (uint32_t) popcount64(bucket_matches(cf, i1, v.fp, v.a >> r1, cf->b) |
								  bucket_matches(cf, i2, v.fp, v.a2 >> r2, cf->b));
	else
		n = (uint32_t) popcount64(bucket_matches(cf, i1, v.fp, v.a >> r1, cf->b)) +
			(uint32_t) popcount64(bucket_matches(cf, i2, v.fp, v.a2 >> r2, cf->b));
	return n + (victim_matches2(cf, &v, i1, r1, i2, r2) ? 1 : 0);
}

/*
 * Removes the matching entry that knows the most address bits (ties: the
 * oldest); entries matching a value are prefixes of its address, so every
 * other value that matched the removed one still matches a remaining one.
 * With generations, the other matching entries older than the removed one
 * take its generation (the "raise" rule, docs/DESIGN.md).
 */
bool
cf2_remove(cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r[2],
				bi[2],
				ahi[2],
				vb = 0,
				ve = 0;
	int			best_b = -1,
				best_j = -1;
	uint32_t	bestL = 0,
				bestage = 0,
				oldest,
				gen;
	bool		vic,
				best_victim = false;

	v2_parts(cf, h, &v);
	bi[0] = locate2(cf, v.q, v.a, &r[0]);
	bi[1] = locate2(cf, v.q2, v.a2, &r[1]);
	ahi[0] = v.a >> r[0];
	ahi[1] = v.a2 >> r[1];
	for (int side = 0; side < 2; side++)
	{
		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	e = rd_slot(cf, bi[side], j),
						L,
						age;

			if (e == 0 || !slot_match(cf, e, v.fp, ahi[side]))
				continue;
			/* (when both addresses share one bucket, a slot may be seen twice) */
			L = r[side] + (cf->t ? slot_s(cf, e) : 0);
			age = slot_age(cf, e);
			if (best_b < 0 || L > bestL || (L == bestL && age > bestage))
			{
				best_b = side;
				best_j = (int) j;
				bestL = L;
				bestage = age;
			}
		}
	}
	vic = v2_victim(cf, &vb, &ve);
	if (vic)
	{
		for (int side = 0; side < 2; side++)
		{
			uint32_t	L,
						age;

			if (vb != bi[side] || !slot_match(cf, ve, v.fp, ahi[side]))
				continue;
			L = r[side] + (cf->t ? slot_s(cf, ve) : 0);
			age = slot_age(cf, ve);
			if ((best_b < 0 && !best_victim) || L > bestL || (L == bestL && age > bestage))
			{
				best_victim = true;
				bestL = L;
				bestage = age;
			}
			break;
		}
	}
	if (best_b < 0 && !best_victim)
		return false;
	/*
	 * The item removed is the value's oldest add: after the raise below, the
	 * matching entries left carry the generations of its younger adds.
	 */
	oldest = bestage;
	for (int side = 0; side < 2; side++)
		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	e = rd_slot(cf, bi[side], j);

			if (e != 0 && slot_match(cf, e, v.fp, ahi[side]) && slot_age(cf, e) > oldest)
				oldest = slot_age(cf, e);
		}
	if (vic && slot_age(cf, ve) > oldest &&
		((vb == bi[0] && slot_match(cf, ve, v.fp, ahi[0])) ||
		 (vb == bi[1] && slot_match(cf, ve, v.fp, ahi[1]))))
		oldest = slot_age(cf, ve);
	if (best_victim)
	{
		gen = slot_gen(cf, ve);
		clear_victim(cf);
		vic = false;
	}
	else
	{
		gen = slot_gen(cf, rd_slot(cf, bi[best_b], (uint32_t) best_j));
		wr_slot(cf, bi[best_b], (uint32_t) best_j, 0);
	}
	v2_add_entries(cf, -1);
	v2_item_removed(cf, (v2_cur_gen(cf) - oldest) & cf->gmask);
	if (cf->g)
	{
		/* raise: matching entries older than the removed one */
		for (int side = 0; side < 2; side++)
		{
			for (uint32_t j = 0; j < cf->b; j++)
			{
				uint32_t	e = rd_slot(cf, bi[side], j);

				if (e != 0 && slot_match(cf, e, v.fp, ahi[side]) && slot_age(cf, e) > bestage)
					wr_slot(cf, bi[side], j, slot_with_gen(cf, e, gen));
			}
		}
		if (vic && slot_age(cf, ve) > bestage &&
			((vb == bi[0] && slot_match(cf, ve, v.fp, ahi[0])) ||
			 (vb == bi[1] && slot_match(cf, ve, v.fp, ahi[1]))))
			wr32(cf->buf + CF_V2_OFF_VICTIM_SLOT, slot_with_gen(cf, ve, gen));
	}
	if (vic)
		victim_retry(cf);
	CF_ASSERT_HEADER(cf);
	return true;
}

/*
 * Whether entry e of bucket i (read on side 1, address a, or side 2, a ^
 * x) and the prefix of a of Lmax bits agree on the bits both know.
 */
static bool
slot_compatible(const cf_filter *cf, uint32_t i, uint32_t e, int side, uint32_t x,
				uint32_t a, uint32_t Lmax)
{
	uint32_t	L;
	uint32_t	known = slot_known(cf, i, e, &L);

	if (side)
		known ^= x;
	return ((known ^ a) & mask32(L < Lmax ? L : Lmax)) == 0;
}

/*
 * cf_remove_saturating (cf.h): the entry cf2_remove would take is one that
 * knows the most address bits of those matching h (Lmax); every value
 * matching it agrees with h on Lmax bits, so the entries such a value
 * matches are all compatible with h's prefix of Lmax bits (they agree on
 * the bits both know).  When level or more entries of the pair are, some
 * value may rely on this one for its saturated count: nothing is removed.
 */
int
cf2_remove_saturating(cf_filter *cf, uint64_t h, uint32_t level)
{
	v2_hash		v;
	uint32_t	r[2],
				bi[2],
				x,
				vb = 0,
				ve = 0,
				Lmax = 0,
				n = 0;
	bool		any = false,
				vic;

	v2_parts(cf, h, &v);
	bi[0] = locate2(cf, v.q, v.a, &r[0]);
	bi[1] = locate2(cf, v.q2, v.a2, &r[1]);
	x = v.a ^ v.a2;
	vic = v2_victim(cf, &vb, &ve);
	for (int side = 0; side < 2; side++)
	{
		uint32_t	ahi = (side ? v.a2 : v.a) >> r[side];

		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	e = rd_slot(cf, bi[side], j),
						L;

			if (e == 0 || !slot_match(cf, e, v.fp, ahi))
				continue;
			(void) slot_known(cf, bi[side], e, &L);
			Lmax = L > Lmax ? L : Lmax;
			any = true;
		}
		if (vic && vb == bi[side] && slot_match(cf, ve, v.fp, ahi))
		{
			uint32_t	L;

			(void) slot_known(cf, vb, ve, &L);
			Lmax = L > Lmax ? L : Lmax;
			any = true;
		}
	}
	if (!any)
		return 0;

	/*
	 * The buckets of a value matching it: h's, and when Lmax = k (every
	 * match knows k bits, in buckets not split this round) the other half
	 * of a side's split bucket, which bit k of that value picks.
	 */
	for (int scan = 0; scan < 4; scan++)
	{
		int			side = scan & 1;
		uint32_t	i = bi[side];

		if (scan >= 2)
		{
			if (Lmax > cf->k || r[side] == cf->k)
				continue;
			i = i >= cf->base ? i - cf->base : i + cf->base;
		}
		else if (side == 1 && bi[1] == bi[0])
			continue;
		for (uint32_t j = 0; j <= cf->b; j++)
		{
			uint32_t	e = j < cf->b ? rd_slot(cf, i, j) : (vic && vb == i ? ve : 0);

			/* one bucket for both: an entry may be read on either side */
			if (e != 0 && (e & cf->fp_mask) == v.fp &&
				(slot_compatible(cf, i, e, side, x, v.a, Lmax) ||
				 (bi[1] == bi[0] && slot_compatible(cf, i, e, 1, x, v.a, Lmax))))
				n++;
		}
	}
	if (n >= level)
		return -1;
	return cf2_remove(cf, h) ? 1 : 0;
}

/*
 * insert_if_absent on a filter with generation tags (a rotated filter).  A
 * value the filter already reports, but only through entries of older
 * generations, is being seen again now: it must live as long as a value
 * added in the current generation, or a rolling window kept up to date with
 * cuckoo_add_if_absent would drop a value seen in every period when the
 * period of its first add expired.  So every matching entry of its two
 * buckets (and the victim) takes the current generation: raising only
 * extends lifetimes (as the raise rule of cf2_remove), never loses a value,
 * and stores nothing new.  The value's logical item moves with it: one item
 * is charged to the generation of the oldest matching entry (as a remove
 * charges it) and counted in the current one; items is unchanged.  A value
 * with a matching entry of the current generation is left as it is.
 */
cf_status
cf2_insert_if_absent(cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r[2],
				bi[2],
				ahi[2],
				vb = 0,
				ve = 0,
				cur,
				oldest = 0;
	bool		found = false,
				vic;

	if (cf->g == 0)
		return cf->contains_fn(cf, h) ? CF_EXISTS : cf2_insert(cf, h);
	v2_parts(cf, h, &v);
	bi[0] = locate2(cf, v.q, v.a, &r[0]);
	bi[1] = locate2(cf, v.q2, v.a2, &r[1]);
	ahi[0] = v.a >> r[0];
	ahi[1] = v.a2 >> r[1];
	vic = v2_victim(cf, &vb, &ve);
	for (int side = 0; side < 2; side++)
	{
		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	e = rd_slot(cf, bi[side], j);

			if (e == 0 || !slot_match(cf, e, v.fp, ahi[side]))
				continue;
			if (slot_age(cf, e) == 0)
				return CF_EXISTS;
			found = true;
			if (slot_age(cf, e) > oldest)
				oldest = slot_age(cf, e);
		}
		if (vic && vb == bi[side] && slot_match(cf, ve, v.fp, ahi[side]))
		{
			if (slot_age(cf, ve) == 0)
				return CF_EXISTS;
			found = true;
			if (slot_age(cf, ve) > oldest)
				oldest = slot_age(cf, ve);
		}
	}
	if (!found)
		return cf2_insert(cf, h);
	cur = v2_cur_gen(cf);
	for (int side = 0; side < 2; side++)
	{
		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	e = rd_slot(cf, bi[side], j);

			if (e != 0 && slot_match(cf, e, v.fp, ahi[side]))
				wr_slot(cf, bi[side], j, slot_with_gen(cf, e, cur));
		}
		if (vic && vb == bi[side] && slot_match(cf, ve, v.fp, ahi[side]))
			wr32(cf->buf + CF_V2_OFF_VICTIM_SLOT, slot_with_gen(cf, ve, cur));
	}
	/* items stays (a value with entries has items > 0 unless counts drifted) */
	if (header_items(cf) > 0)
	{
		v2_item_removed(cf, (cur - oldest) & cf->gmask);
		v2_item_added(cf, cur);
	}
	CF_ASSERT_HEADER(cf);
	return CF_EXISTS;
}

/* Bucket of address (q, a), as locate2. */
static uint32_t
slice_bucket(const cf_filter *cf, uint32_t q, uint32_t a)
{
	uint32_t	i0 = (a & cf->rmask) * cf->c + q;

	if (i0 < cf->split && ((a >> cf->k) & 1))
		i0 += cf->base;
	return i0;
}

/* The two candidate buckets of h (cf_slice.c), from the value's parts as
 * v2_parts computes them. */
void
cf2_buckets(const cf_filter *cf, uint64_t h, uint32_t *i1, uint32_t *i2)
{
	uint32_t	fp = 1 + fastrange32((uint32_t) h, cf->fp_range);
	uint32_t	q = fastrange32((uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32), cf->c);
	uint32_t	addr = (uint32_t) (h >> 32);
	uint64_t	hf = fp_hash(fp);
	uint32_t	hq = fastrange32((uint32_t) hf, cf->c);
	uint32_t	q2 = hq >= q ? hq - q : hq + cf->c - q;
	uint32_t	a2 = addr ^ (uint32_t) (hf >> 32);

	*i1 = slice_bucket(cf, q, addr);
	*i2 = slice_bucket(cf, q2, a2);
}

/* cf_insert_if_absent of h[0 .. n-1] in order (cf_insert_if_absent_many). */
size_t
cf2_insert_if_absent_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st)
{
	for (size_t j = 0; j < n; j++)
	{
		cf_status	s = cf2_insert_if_absent(cf, h[j]);

		if (s != CF_OK && s != CF_OK_STASHED && s != CF_EXISTS)
		{
			*st = s;
			return j;
		}
	}
	*st = CF_OK;
	return n;
}
