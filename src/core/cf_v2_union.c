/*
 * cf_v2_union.c
 *     Format 2's whole-filter operations: re-homing entries into a table
 *     of another geometry, used by union (cf2_union_into) and by compaction
 *     (cf_compact_*), the shrink of a version-2 filter.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

/* ------------------------------------------------------------------------
 * Re-homing entries into a table of another geometry (union, compaction)
 * ------------------------------------------------------------------------ */

/*
 * The copies of entry e of bucket i that F holds over e's pair (docs/
 * FORMAT.md 13.12 rule 4): the slots of i equal to e, those of its other
 * bucket j equal to the entry as stored there e2 (when named; when j = i,
 * the slots of i equal to e2 != e too), and the victim when it is either.
 */
static uint32_t
paircount(const cf_filter *F, uint32_t i, uint32_t e)
{
	uint32_t	n = 0,
				j = i,
				e2 = e,
				vb,
				ve;
	bool		two;

	two = slot_alt(F, i, e, &j, &e2) && (j != i || e2 != e);
	for (uint32_t x = 0; x < F->b; x++)
		n += rd_slot(F, i, x) == e || (two && j == i && rd_slot(F, i, x) == e2);
	if (two && j != i)
		for (uint32_t x = 0; x < F->b; x++)
			n += rd_slot(F, j, x) == e2;
	if (v2_victim(F, &vb, &ve) &&
		((vb == i && ve == e) || (two && vb == j && ve == e2)))
		n++;
	return n;
}

/*
 * Whether slot x of a bucket stands for the value of entry e of that bucket
 * (e knowing L bits a there): the same fingerprint and generation, and the
 * fewer of their known bits agree.  1: x knows no more than e (it matches
 * every value e matches); 2: x knows more (e's form matches every value
 * both match); 0: no.
 */
static int
covers(const cf_filter *F, uint32_t bk, uint32_t x, uint32_t e, uint32_t a, uint32_t L)
{
	uint32_t	Lx,
				ax;

	if (x == 0 || (x & F->fp_mask) != (e & F->fp_mask) || slot_gen(F, x) != slot_gen(F, e))
		return 0;
	ax = slot_known(F, bk, x, &Lx);
	if (((ax ^ a) & mask32(Lx < L ? Lx : L)) != 0)
		return 0;
	return Lx > L ? 2 : 1;
}

/*
 * docs/FORMAT.md 13.12 rule 4, both operands with the address budget: the
 * entries of e's pair that stand for e's value (covers), in the order bucket
 * i, its other bucket j (also when j = i with another form), the victim; each
 * counted, up to want.  With W (the same filter as F, writable: rehome's
 * have), one that knows more than e is replaced by e's form in its bucket
 * first; without (the sweep's want), nothing changes.
 */
static uint32_t
paircover(const cf_filter *F, cf_filter *W, uint32_t i, uint32_t e, uint32_t want)
{
	uint32_t	n = 0,
				j = i,
				e2 = e,
				L,
				L2 = 0,
				a,
				a2 = 0,
				vb,
				ve;
	bool		two;
	int			c;

	a = slot_known(F, i, e, &L);
	two = slot_alt(F, i, e, &j, &e2) && (j != i || e2 != e);
	if (two)
		a2 = slot_known(F, j, e2, &L2);
	for (uint32_t x = 0; x < F->b && n < want; x++)
	{
		uint32_t	s = rd_slot(F, i, x);

		if ((c = covers(F, i, s, e, a, L)) != 0)
		{
			if (c == 2 && W)
				wr_slot(W, i, x, e);
		}
		else if (two && j == i && (c = covers(F, i, s, e2, a2, L2)) != 0)
		{
			if (c == 2 && W)
				wr_slot(W, i, x, e2);
		}
		else
			continue;
		n++;
	}
	if (two && j != i)
		for (uint32_t x = 0; x < F->b && n < want; x++)
			if ((c = covers(F, j, rd_slot(F, j, x), e2, a2, L2)) != 0)
			{
				if (c == 2 && W)
					wr_slot(W, j, x, e2);
				n++;
			}
	if (n < want && v2_victim(F, &vb, &ve))
	{
		uint32_t	form = 0;

		if (vb == i && (c = covers(F, i, ve, e, a, L)) != 0)
			form = e;
		else if (two && vb == j && (c = covers(F, j, ve, e2, a2, L2)) != 0)
			form = e2;
		if (form)
		{
			if (c == 2 && W)
				wr32(W->buf + CF_V2_OFF_VICTIM_SLOT, form);
			n++;
		}
	}
	return n;
}

/*
 * Stores the entry whose known address bits are the low L bits of a (bucket
 * mantissa q) into dst, in every bucket its bits cannot tell apart (Aleph
 * duplication when dst needs more bits than it knows).  With want > 0 (union)
 * a bucket already holding `want` identical slots gets none.  *added counts
 * the slots stored at the first bucket; false when an entry would need the
 * victim slot while it is taken (dst is valid, the entry is lost: the caller
 * fails).
 */
static bool
rehome(cf_filter *dst, uint32_t fp, uint32_t a, uint32_t L, uint32_t gen, uint32_t q,
	   uint32_t want, uint32_t *added, bool first, bool cover)
{
	uint32_t	i0 = (a & dst->rmask) * dst->c + q;
	uint32_t	res = dst->k + (uint32_t) (i0 < dst->split);
	uint32_t	i,
				e,
				have = 0,
				n;

	if (L < res)
	{
		uint32_t	lo = a & mask32(L);

		return rehome(dst, fp, lo, L + 1, gen, q, want, added, first, cover) &&
			rehome(dst, fp, lo | (UINT32_C(1) << L), L + 1, gen, q, want, added, false, cover);
	}
	i = i0 + ((res > dst->k) ? ((a >> dst->k) & 1) * dst->base : 0);
	e = make_slot(dst, fp, a, L, res, gen);
	n = want ? want : 1;
	if (want && dst->budget && cover)
		have = paircover(dst, dst, i, e, want);
	else if (want && dst->budget)
		have = paircount(dst, i, e);
	else if (want)
	{
		uint32_t	vb,
					ve;

		for (uint32_t j = 0; j < dst->b; j++)
			have += rd_slot(dst, i, j) == e;
		if (v2_victim(dst, &vb, &ve) && vb == i && ve == e)
			have++;
	}
	for (uint32_t t0 = dst->t; have < n; have++)
	{
		if (dst->grows && v2_over_load(dst, 1) && !v2_grow(dst, 1))
			return false;
		if (i >= dst->m || bucket_res(dst, i) != res || dst->t != t0)
		{
			/* a split moved this bucket's contents: place anew */
			return rehome(dst, fp, a, L, gen, q, want ? want : n - have, added, first, cover);
		}
		v2_add_entries(dst, 1);
		if (first)
			(*added)++;
		if (!v2_place(dst, i, e))
		{
			if (victim_in_use(dst))
			{
				uint32_t	j,
							e2;

				if (!(slot_alt(dst, i, e, &j, &e2) && v2_place(dst, j, e2)))
				{
					v2_add_entries(dst, -1);
					if (first)
						(*added)--;
					/* as an insert does: split to free the victim slot, and
					 * place anew (the splits may have moved this bucket) */
					if (dst->grows)
					{
						v2_relieve(dst);
						if (!victim_in_use(dst))
							return rehome(dst, fp, a, L, gen, q, want ? want : n - have, added, first, cover);
					}
					return false;
				}
			}
			else if (!v2_store(dst, i, e, v2_entries(dst) ^ ((uint64_t) i << 20)) && dst->grows)
				v2_relieve(dst);
		}
	}
	return true;
}

/*
 * Every entry of src (slots and victim) into dst, which has src's f, g, c (t
 * may differ: entries are read with src's and written with dst's).
 *
 * A union counts items, not copies: src's entries exceed its items by the
 * copies its splits made (and by what removes left of them), so the items
 * it adds are, per generation, src's items in the share of src's entries
 * (slots and victim, counted first) that were new in dst (an entry dst
 * already held as often adds none): after each entry, the generation's
 * count is brought to round(new * items / entries), at most the items and
 * the new entries.
 * Disjoint filters add exactly their items; a filter unioned with itself
 * adds none.  The items grow as the entries go in (the relief's cap reads
 * them).
 */
static bool
pour(cf_filter *dst, const cf_filter *src, bool as_union)
{
	uint32_t	vb = 0,
				ve = 0;
	bool		vic = v2_victim(src, &vb, &ve);
	uint64_t	had[256],
				fresh[256],
				done[256];

	memset(had, 0, sizeof had);
	memset(fresh, 0, sizeof fresh);
	memset(done, 0, sizeof done);
	if (as_union)
	{
		for (uint32_t i = 0; i < src->m; i++)
		{
			CF_CHECK_INTERRUPTS(i);
			for (uint32_t j = 0; j < src->b; j++)
			{
				uint32_t	e = rd_slot(src, i, j);

				if (e != 0)
					had[slot_gen(src, e)]++;
			}
		}
		if (vic)
			had[slot_gen(src, ve)]++;
	}
	for (uint32_t i = 0; i < src->m; i++)
	{
		uint32_t	s[9],
					n = 0;

		CF_CHECK_INTERRUPTS(i);
		for (uint32_t j = 0; j < src->b; j++)
			if ((s[n] = rd_slot(src, i, j)) != 0)
				n++;
		if (vic && vb == i)
			s[n++] = ve;
		for (uint32_t x = 0; x < n; x++)
		{
			uint32_t	L,
						a,
						want = 0,
						added = 0,
						gen = slot_gen(src, s[x]);
			bool		dup = false;

			if (as_union)
			{
				for (uint32_t y = 0; y < x; y++)
					dup |= s[y] == s[x];
				if (dup)
					continue;
				if (dst->budget && src->budget)
					want = paircover(src, NULL, i, s[x], UINT32_MAX);
				else if (dst->budget)
					want = paircount(src, i, s[x]);
				else
					for (uint32_t y = x; y < n; y++)
						want += s[y] == s[x];
			}
			a = slot_known(src, i, s[x], &L);
			if (dst->budget && L > dst->abits)
			{
				/* docs/FORMAT.md 13.12 rule 4: known bits capped at A */
				L = dst->abits;
				a &= mask32(L);
			}
			if (!rehome(dst, s[x] & src->fp_mask, a, L, gen, i % src->c,
						want, &added, true, src->budget))
				return false;
			if (as_union && added)
			{
				uint64_t	items = src->g ? rd64(gi_at(src, gen)) : cf_items(src),
							goal;

				/* fresh <= had <= 2^35 and items <= had: below 2^64 for
				 * any filter within CF_MAX_BYTES */
				fresh[gen] += added;
				goal = (fresh[gen] * items + had[gen] / 2) / had[gen];
				if (goal > items)
					goal = items;
				/* never more items than new entries (a generation's count
				 * may exceed its entries: raised entries, valid values) */
				if (goal > fresh[gen])
					goal = fresh[gen];
				for (; done[gen] < goal; done[gen]++)
					v2_item_added(dst, gen);
			}
		}
	}
	return true;
}

/*
 * Union of version-2 filters of one creation shape (b, f, c, capacity,
 * expansion; t too unless they grow) and one generation state (g, cur_gen,
 * keep): src's entries are
 * re-homed into dst; an entry already present in dst as often (same slot in
 * the same bucket) is not added again (the multiset union of version 1).
 * dst grows as needed (cf_realloc_hook); CF_FULL leaves it valid, partly
 * merged.
 */
cf_status
cf2_union_into(cf_filter *dst, const cf_filter *src)
{
	uint16_t	dk = cf_kind_of(dst),
				sk = cf_kind_of(src);

	/*
	 * Growing filters may differ in t: src's entries are read with its t and
	 * stored with dst's (make_slot keeps at most dst's t - 1 spare bits; a
	 * shorter tail only matches more).  Filters of one creation shape but
	 * another default tail (or, with an address budget, another size: docs/
	 * DESIGN.md "Unions to the size limit") union.
	 */
	if (dst->b != src->b || dst->f != src->f ||
		(!dst->grows && dst->t != src->t) || dst->g != src->g || dst->c != src->c ||
		dst->grows != src->grows || cf_capacity(dst) != cf_capacity(src) ||
		v2_cur_gen(dst) != v2_cur_gen(src) || v2_keep(dst) != v2_keep(src))
		return CF_SHAPE_MISMATCH;
	if (sk != CF_KIND_ANY && dk != CF_KIND_ANY &&
		(sk != dk || cf_type_tag(src) != cf_type_tag(dst)))
		return CF_KIND_MISMATCH;
	if (dk == CF_KIND_ANY && v2_entries(src) > 0)
		cf_set_kind(dst, sk, cf_type_tag(src));
	if (!pour(dst, src, true))
		return CF_FULL;
	CF_ASSERT_VALID(dst, "cf_union_into");
	return CF_OK;
}

/* ------------------------------------------------------------------------
 * Compaction
 * ------------------------------------------------------------------------ */

/*
 * Bucket counts of the compacted filter, tried in order until the entries fit
 * (cf_compact_try_bytes).  Attempt 0 is the fewer of (a) the smallest
 * c * 2^k that holds the entries at the version-1 target load (all buckets
 * of one resolution), and, for a growing filter, (b) the smallest m >= c at
 * the growth load CF_V2_LOAD.  A table poured at once, without splits and
 * without the relief a growing filter has, can fail its kick walks at that
 * load (linear hashing: between two powers of two the unsplit buckets cover
 * twice the addresses of the split ones): a growing filter then tries
 * (b) + a * ceil((b) / 8) for a = 1, 2, ..., up to CF_COMPACT_TRIES, a fixed
 * one the next powers of two.  Every candidate is smaller than the source.
 */
#define CF_COMPACT_TRIES	24

/* The slot width of src's shape at m buckets: an address-budget filter has
 * t = T(k) for that m (docs/FORMAT.md 13.12 rule 5). */
static uint32_t
compact_w(const cf_filter *src, uint64_t m)
{
	uint32_t	k = 0;

	if (!src->budget)
		return src->w;
	while (((uint64_t) src->c << (k + 1)) <= m)
		k++;
	return src->f + (uint32_t) cf_budget_tail(src->c, k, src->f, src->g) + src->g;
}

static uint32_t
compact_buckets(const cf_filter *src, uint32_t attempt)
{
	uint64_t	e = v2_entries(src);
	double		load = cf_target_load(src->b);
	uint64_t	m = src->c;

	if (attempt > CF_COMPACT_TRIES)
		return 0;
	while ((double) e > (double) m * src->b * load)
		m <<= 1;
	if (src->grows)
	{
		uint64_t	lin = (e * CF_V2_SPLIT_DEN + (uint64_t) CF_V2_SPLIT_NUM * src->b - 1) /
			((uint64_t) CF_V2_SPLIT_NUM * src->b);

		if (lin < src->c)
			lin = src->c;
		if (attempt == 0)
		{
			if (lin < m)
				m = lin;
		}
		else
			m = lin + (uint64_t) attempt * ((lin + 7) / 8);
	}
	else
		m <<= attempt;
	if (attempt == 0 && m > src->m)
		m = src->m;				/* attempt 0 may give the source's size */
	else if (attempt > 0 && m >= src->m)
		return 0;
	return (uint32_t) m;
}

size_t
cf_compact_try_bytes(const cf_filter *src, uint32_t attempt, uint32_t *m)
{
	uint32_t	n;

	*m = 0;
	if (!(src->ops->caps & CF_CAP_COMPACTS) || (n = compact_buckets(src, attempt)) == 0)
		return 0;
	*m = n;
	return (size_t) cf2_total_bytes(n, src->b, compact_w(src, n), src->g);
}

size_t
cf_compact_fresh_bytes(const cf_filter *src)
{
	uint64_t	n = cf_items(src),
				m;

	if (!(src->ops->caps & CF_CAP_COMPACTS))
		return 0;
	m = (n * CF_V2_SPLIT_DEN + (uint64_t) CF_V2_SPLIT_NUM * src->b - 1) /
		((uint64_t) CF_V2_SPLIT_NUM * src->b);
	/* no compaction goes below the creation mantissa c (nor, for a fixed
	 * filter, off c * 2^k) */
	if (m < src->c)
		m = src->c;
	if (!src->grows)
	{
		uint64_t	f = src->c;

		while (f < m)
			f <<= 1;
		m = f;
	}
	return (size_t) cf2_total_bytes(m, src->b, compact_w(src, m), src->g);
}

cf_status
cf_compact_try_into(const cf_filter *src, uint32_t m, void *dst, size_t len)
{
	cf_filter	d;
	uint8_t    *h = dst;

	if (!(src->ops->caps & CF_CAP_COMPACTS) || m < src->c || m > src->m ||
		len != cf2_total_bytes(m, src->b, compact_w(src, m), src->g))
		return CF_SHAPE_MISMATCH;
	memcpy(h, src->buf, src->hdr);
	memset(h + src->hdr, 0, len - src->hdr);
	wr32(h + CF_V2_OFF_NUM_BUCKETS, m);
	h[CF_V2_OFF_TAIL_BITS] = (uint8_t) (compact_w(src, m) - src->f - src->g);
	wr64(h + CF_V2_OFF_ENTRIES, 0);
	h[CF_V2_OFF_FLAGS] &= (uint8_t) ~CF_FLAG_VICTIM;
	wr32(h + CF_V2_OFF_VICTIM_BUCKET, 0);
	wr32(h + CF_V2_OFF_VICTIM_SLOT, 0);
	cf2_open(&d, h, len);
	d.grows = false;			/* no split while pouring */
	if (!pour(&d, src, false) || victim_in_use(&d))
		return CF_FULL;
	d.grows = src->grows;
	CF_ASSERT_VALID(&d, "cf_compact_into");
	return CF_OK;
}

size_t
cf_compact_bytes(const cf_filter *src)
{
	uint32_t	m;

	return cf_compact_try_bytes(src, 0, &m);
}

cf_status
cf_compact_into(const cf_filter *src, void *dst, size_t len)
{
	uint32_t	m;

	if (!(src->ops->caps & CF_CAP_COMPACTS) || len != cf_compact_try_bytes(src, 0, &m))
		return CF_SHAPE_MISMATCH;
	return cf_compact_try_into(src, m, dst, len);
}
