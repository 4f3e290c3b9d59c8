/*
 * cf_v2_store.c
 *     Placing a format-2 entry: the free slot of a bucket, the alternate
 *     bucket of an entry, the kick walk (with the journal that undoes it when
 *     a growth step must leave the bytes as they were), the victim slot, and
 *     the per-generation item counts.  Below the item operations
 *     (cf_v2_table.c), the growth (cf_v2_grow.c) and the re-homing
 *     (cf_v2_union.c), which all store entries.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

/* One more logical item, in generation gen. */
void
v2_item_added(cf_filter *cf, uint32_t gen)
{
	add_items(cf, 1);
	if (cf->g)
		wr64(gi_at(cf, gen), rd64(gi_at(cf, gen)) + 1);
}

/*
 * The alternate bucket *j of entry e of bucket i, and the entry as stored
 * there (*e2).  False when the entry does not know enough address bits to
 * tell which bucket of a split pair it belongs to.
 */
bool
slot_alt(const cf_filter *cf, uint32_t i, uint32_t e, uint32_t *j, uint32_t *e2)
{
	uint32_t	fp = e & cf->fp_mask;
	uint32_t	L;
	uint32_t	a = slot_known(cf, i, e, &L);
	uint32_t	q = i % cf->c;
	uint64_t	hf = fp_hash(fp);
	uint32_t	hq = fastrange32((uint32_t) hf, cf->c);
	uint32_t	q2 = hq >= q ? hq - q : hq + cf->c - q;
	uint32_t	a2 = (a ^ (uint32_t) (hf >> 32)) & mask32(L);
	uint32_t	j0 = (a2 & cf->rmask) * cf->c + q2;
	uint32_t	res2 = cf->k;

	if (j0 < cf->split)
	{
		if (L < cf->k + 1)
			return false;
		res2 = cf->k + 1;
		j0 += ((a2 >> cf->k) & 1) * cf->base;
	}
	*j = j0;
	*e2 = make_slot(cf, fp, a2, L, res2, slot_gen(cf, e));
	return true;
}

bool
v2_place(cf_filter *cf, uint32_t i, uint32_t e)
{
	for (uint32_t j = 0; j < cf->b; j++)
	{
		if (rd_slot(cf, i, j) == 0)
		{
			wr_slot(cf, i, j, e);
			return true;
		}
	}
	return false;
}

static CF_ALWAYS_INLINE void
jr_write(cf_filter *cf, v2_journal *jr, uint32_t i, uint32_t j, uint32_t e)
{
	if (jr)
	{
		jr->bucket[jr->n] = i;
		jr->slot[jr->n] = (uint8_t) j;
		jr->old[jr->n++] = rd_slot(cf, i, j);
	}
	wr_slot(cf, i, j, e);
}

static CF_ALWAYS_INLINE bool
place2_j(cf_filter *cf, uint32_t i, uint32_t e, v2_journal *jr)
{
	for (uint32_t j = 0; j < cf->b; j++)
	{
		if (rd_slot(cf, i, j) == 0)
		{
			jr_write(cf, jr, i, j, e);
			return true;
		}
	}
	return false;
}

/* Takes back the writes of a journal, the last first. */
void
v2_journal_undo(cf_filter *cf, const v2_journal *jr)
{
	for (uint32_t x = jr->n; x-- > 0;)
		wr_slot(cf, jr->bucket[x], jr->slot[x], jr->old[x]);
}

/* Always inlined: v2_store (jr = NULL) pays nothing for the journal. */
static CF_ALWAYS_INLINE bool
v2_store_j(cf_filter *cf, uint32_t i, uint32_t e, uint64_t seed, v2_journal *jr)
{
	uint32_t	j = 0,
				e2 = 0,
				cur = i,
				ce = e;
	bool		has_alt;
	uint64_t	rng;

	if (place2_j(cf, i, e, jr))
		return true;
	has_alt = slot_alt(cf, i, e, &j, &e2);
	if (has_alt && place2_j(cf, j, e2, jr))
		return true;
	CF_ASSERT(!victim_in_use(cf));
	rng = rng_seed(seed, ((uint64_t) i << 32) | e);
	if (has_alt && (rng_next(&rng) & 1))
	{
		cur = j;
		ce = e2;
	}
	for (uint32_t n = 1; n < cf->max_kicks && (!jr || jr->n + 2 <= CF_V2_JOURNAL); n++)
	{
		uint32_t	j0 = (uint32_t) (rng_next(&rng) >> 32) & (cf->b - 1);
		bool		moved = false;

		for (uint32_t d = 0; d < cf->b && !moved; d++)
		{
			uint32_t	slot = (j0 + d) & (cf->b - 1);
			uint32_t	old = rd_slot(cf, cur, slot),
						ni,
						ne;

			if (!slot_alt(cf, cur, old, &ni, &ne))
				continue;
			jr_write(cf, jr, cur, slot, ce);
			ce = ne;
			cur = ni;
			moved = true;
		}
		if (!moved)
			break;
		if (place2_j(cf, cur, ce, jr))
			return true;
	}
	set_victim(cf, cur, ce);
	return false;
}

CF_NOINLINE bool
v2_store(cf_filter *cf, uint32_t i, uint32_t e, uint64_t seed)
{
	return v2_store_j(cf, i, e, seed, NULL);
}

CF_NOINLINE bool
v2_store_journal(cf_filter *cf, uint32_t i, uint32_t e, uint64_t seed, v2_journal *jr)
{
	return v2_store_j(cf, i, e, seed, jr);
}

/* After room may have appeared: the victim goes back into the table if its
 * bucket or its alternate has a free entry (no kicks). */
void
victim_try_direct(cf_filter *cf)
{
	uint32_t	vb,
				ve,
				j,
				e2;

	if (!v2_victim(cf, &vb, &ve))
		return;
	if (v2_place(cf, vb, ve) || (slot_alt(cf, vb, ve, &j, &e2) && v2_place(cf, j, e2)))
		clear_victim(cf);
}

/* The victim is taken out and stored again with kicks. */
void
victim_retry(cf_filter *cf)
{
	uint32_t	vb,
				ve;

	if (!v2_victim(cf, &vb, &ve))
		return;
	clear_victim(cf);
	(void) v2_store(cf, vb, ve, v2_entries(cf) ^ header_items(cf));
}
