/*
 * cf_v2_grow.c
 *     Format 2's growth: linear hashing, one bucket split at a time, the
 *     narrowing at the end of an address-budget round, and the memory a
 *     growing filter asks its host for (cf_realloc_hook).
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

#include <stdlib.h>

uint64_t	cf_v2_limit_bytes = CF_MAX_BYTES;

/* ------------------------------------------------------------------------
 * Growth: linear hashing, one bucket split at a time
 * ------------------------------------------------------------------------ */

/* Makes at least need bytes usable at cf->buf (cf_realloc_hook). */
bool
v2_reserve(cf_filter *cf, uint64_t need)
{
	uint64_t	want;
	void	   *nb;

	if (need <= cf->alloc)
		return true;
	want = need + need / 8;
	if (want > cf_v2_limit_bytes)
		want = need > cf_v2_limit_bytes ? need : cf_v2_limit_bytes;
	nb = cf_realloc_hook ? cf_realloc_hook(cf->buf, (size_t) want) : realloc(cf->buf, (size_t) want);
	if (nb == NULL)
		return false;
	cf->buf = nb;
	cf->data = cf->buf + cf->hdr;
	cf->alloc = (size_t) want;
	return true;
}

/* The split forms of entry e of bucket p (being split into p and p + base):
 * one entry with one spare bit fewer, or (no spare bit left) two copies. */
static uint32_t
split_forms(const cf_filter *cf, uint32_t e, uint32_t p, uint32_t j, uint32_t *bk, uint32_t *fm)
{
	uint32_t	tail = slot_tail(cf, e);
	uint32_t	s = log2_32(tail);

	if (s == 0)
	{
		bk[0] = p;
		bk[1] = j;
		fm[0] = fm[1] = e;
		return 2;
	}
	/* the generation field: none if g = 0 (then f + t may be 32) */
	fm[0] = (e & (cf->fp_mask | (cf->g ? cf->gmask << (cf->f + cf->t) : 0))) |
		(((UINT32_C(1) << (s - 1)) | ((tail ^ (UINT32_C(1) << s)) >> 1)) << cf->f);
	bk[0] = (tail & 1) ? j : p;
	return 1;
}

/*
 * The end of a round of an address-budget filter (docs/FORMAT.md 13.12 rule
 * 3): every entry has spent a spare bit (the top tail bit is 0 in all), so
 * the table is rewritten with one tail bit fewer, in place (slot n moves from
 * bit n * w down to bit n * (w - 1)), and the value shrinks.  The view's
 * shape (w, masks, the lookup) is chosen anew.
 */

static void
v2_narrow(cf_filter *cf)
{
	uint32_t	ow = cf->w,
				nw = ow - 1,
				nt = cf->t - 1,
				tkeep = mask32(nt);
	uint64_t	n = (uint64_t) cf->m * cf->b;
	uint64_t	newlen = cf2_total_bytes(cf->m, cf->b, nw, cf->g);
	uint32_t	vb,
				ve;

#define NARROW_(e) (((e) & cf->fp_mask) | ((slot_tail(cf, (e)) & tkeep) << cf->f) | \
					(cf->g ? slot_gen(cf, (e)) << (cf->f + nt) : 0))
	for (uint64_t x = 0; x < n; x++)
	{
		uint32_t	e = get_bits(cf->data, x * ow, ow);

		CF_ASSERT(e == 0 || (slot_tail(cf, e) >> nt) == 0);
		/* no interrupt check: a host that does not return would keep a
		 * half-narrowed value */
		set_bits(cf->data, x * nw, nw, e ? NARROW_(e) : 0);
	}
	if (v2_victim(cf, &vb, &ve))
		wr32(cf->buf + CF_V2_OFF_VICTIM_SLOT, NARROW_(ve));
#undef NARROW_
	/* zero everything after the last slot */
	{
		uint64_t	used = n * nw;
		uint64_t	end = (uint64_t) cf->len - cf->hdr;

		if (used & 7)
			cf->data[used >> 3] &= (uint8_t) ((1u << (used & 7)) - 1);
		memset(cf->data + ((used + 7) >> 3), 0, (size_t) (end - ((used + 7) >> 3)));
	}
	cf->buf[CF_V2_OFF_TAIL_BITS] = (uint8_t) nt;
	cf->len = (size_t) newlen;
	v2_refresh(cf);
}

/*
 * Splits bucket `split`.  False (nothing changed) at the size limit, when
 * memory cannot be had, or in the one case where the victim could not be
 * kept: it and every entry of its bucket know no spare bit, so both halves
 * would be full and need the victim slot twice.
 */
static bool
v2_split(cf_filter *cf, uint32_t *copies)
{
	uint64_t	newlen = cf2_total_bytes((uint64_t) cf->m + 1, cf->b, cf->w, cf->g);
	uint32_t	old[8];
	uint32_t	p = cf->split,
				j = cf->m;
	uint32_t	vb = 0,
				ve = 0;
	bool		vic;
	uint8_t		hsave[CF_V2_HEADER_SIZE];
	size_t		oldlen;

	*copies = 0;
	if (!cf->grows || newlen > cf_v2_limit_bytes || (uint64_t) cf->m + 1 > UINT32_MAX)
		return false;
	/* 13.12 rule 1: no round may end with fewer than 2 tail bits (no table
	 * below the size limit gets there) */
	if (cf->budget && cf->split + 1 == cf->base &&
		cf_budget_tail(cf->c, cf->k + 1, cf->f, cf->g) < CF_V2_MIN_TAIL_BITS)
		return false;
	vic = v2_victim(cf, &vb, &ve);
	if (vic && vb == p && slot_s(cf, ve) == 0)
	{
		bool		all_void = true;

		for (uint32_t x = 0; x < cf->b; x++)
			all_void &= slot_s(cf, rd_slot(cf, p, x)) == 0;
		/* both halves get the b copies and a copy of the victim: one of
		 * them must walk, which needs kicks */
		if (all_void && cf->max_kicks == 0)
			return false;
	}
	if (!v2_reserve(cf, newlen))
		return false;
	memcpy(hsave, cf->buf, CF_V2_HEADER_SIZE);
	oldlen = cf->len;
	memset(cf->buf + cf->len, 0, (size_t) (newlen - cf->len));
	cf->len = (size_t) newlen;

	for (uint32_t x = 0; x < cf->b; x++)
	{
		old[x] = rd_slot(cf, p, x);
		wr_slot(cf, p, x, 0);
	}
	cf->m++;
	wr32(cf->buf + CF_V2_OFF_NUM_BUCKETS, cf->m);
	v2_set_geometry(cf);

	for (uint32_t x = 0; x < cf->b; x++)
	{
		uint32_t	bk[2],
					fm[2],
					n;

		if (old[x] == 0)
			continue;
		n = split_forms(cf, old[x], p, j, bk, fm);
		for (uint32_t y = 0; y < n; y++)
		{
			bool		ok CF_UNUSED = v2_place(cf, bk[y], fm[y]);

			CF_ASSERT(ok);
		}
		if (n == 2)
		{
			v2_add_entries(cf, 1);
			(*copies)++;
		}
	}
	if (vic && vb == p)
	{
		uint32_t	bk[2],
					fm[2],
					n,
					left[2],
					nl = 0;

		clear_victim(cf);
		n = split_forms(cf, ve, p, j, bk, fm);
		if (n == 2)
			v2_add_entries(cf, 1);
		/* the forms that fit first; then the walks */
		for (uint32_t y = 0; y < n; y++)
			if (!v2_place(cf, bk[y], fm[y]))
				left[nl++] = y;
		if (nl == 1)
			(void) v2_store(cf, bk[left[0]], fm[left[0]], v2_entries(cf));
		else if (nl == 2)
		{
			/*
			 * The victim and every entry of the bucket knew no spare bit:
			 * both halves are full and both copies of the victim are left.
			 * The first walks (the entries of both halves now have their
			 * alternates); if it ends in the victim slot, the second must
			 * fit its bucket or alternate, else the split is taken back.
			 */
			v2_journal	jr;
			uint32_t	j2,
						e2;

			jr.n = 0;
			if (v2_store_journal(cf, bk[0], fm[0], v2_entries(cf), &jr))
				(void) v2_store(cf, bk[1], fm[1], v2_entries(cf) ^ 1);
			else if (!v2_place(cf, bk[1], fm[1]) &&
					 !(slot_alt(cf, bk[1], fm[1], &j2, &e2) && v2_place(cf, j2, e2)))
			{
				clear_victim(cf);
				v2_journal_undo(cf, &jr);
				for (uint32_t x = 0; x < cf->b; x++)
				{
					wr_slot(cf, p, x, old[x]);
					wr_slot(cf, j, x, 0);
				}
				memcpy(cf->buf, hsave, CF_V2_HEADER_SIZE);
				memset(cf->buf + oldlen, 0, cf->len - oldlen);
				cf->len = oldlen;
				cf->m = j;
				v2_set_geometry(cf);
				*copies = 0;
				CF_ASSERT_HEADER(cf);
				return false;
			}
		}
	}
	else
		victim_try_direct(cf);
	if (cf->budget && cf->split == 0 &&
		cf_budget_tail(cf->c, cf->k, cf->f, cf->g) < (int) cf->t)
		v2_narrow(cf);
	CF_ASSERT_HEADER(cf);
	return true;
}

/* Largest bucket count a growing filter may reach. */
uint64_t
v2_max_buckets(const cf_filter *cf)
{
	uint64_t	room = cf_v2_limit_bytes;
	uint64_t	fixed = cf->hdr + CF_DATA_SLACK_BYTES;

	if (room <= fixed)
		return 0;
	return ((room - fixed) / 8 * 64) / ((uint64_t) cf->b * cf->w);
}

/*
 * Splits buckets of a growing filter over the load (v2_over_load, which its
 * callers test first) until `extra` more entries keep the load at CF_V2_LOAD
 * (or the size limit stops it).  The memory for that is requested once,
 * before anything changes: false when the hook refused it (filter
 * unchanged).
 */
bool
v2_grow(cf_filter *cf, uint64_t extra)
{
	uint64_t	want,
				mmax;

	mmax = v2_max_buckets(cf);
	want = ((v2_entries(cf) + extra) * CF_V2_SPLIT_DEN + (uint64_t) CF_V2_SPLIT_NUM * cf->b - 1) /
		((uint64_t) CF_V2_SPLIT_NUM * cf->b);
	if (want > mmax)
		want = mmax;
	if (want > cf->m &&
		!v2_reserve(cf, cf2_total_bytes(want, cf->b, cf->w, cf->g)))
		return false;
	/*
	 * At most one doubling per call: entries that know no spare bit are
	 * copied by every split, so a table of such entries does not get less
	 * loaded by splitting (then the insert proceeds in the table as it is).
	 */
	{
		/* ... and none that makes no progress: each split adds the room of
		 * CF_V2_LOAD * b entries and takes one per copy it makes */
		int64_t		credit = 0;
		uint64_t	done = 0;

		for (uint64_t budget = (uint64_t) cf->m + 1; budget > 0 && v2_over_load(cf, extra); budget--)
		{
			uint32_t	copies;

			if (!v2_split(cf, &copies))
				break;
			done++;
			credit += (int64_t) CF_V2_SPLIT_NUM * cf->b - (int64_t) CF_V2_SPLIT_DEN * copies;
			if (done >= 8 && credit <= 0)
				break;
		}
	}
	return true;
}

#define CF_V2_RELIEVE_CAP	4

/*
 * Proportional growth: never beyond CF_V2_RELIEVE_CAP times the buckets the
 * items need at the growth load (twice that with max_kicks under 8: such
 * filters run at load 0.17 to 0.75), plus 256.  A victim whose pair is full
 * of entries without spare bits (copies) is not helped by splitting, which
 * copies them again, and every refused insert used to split again (the fuzz
 * finding ops2-growth-blowup: 211 -> 2,339,162 buckets for 313 items, its
 * entries growing with the table: a cap on the entries' need does not
 * hold).
 */
static uint64_t
v2_relieve_cap(const cf_filter *cf)
{
	uint64_t	need = ((header_items(cf) + 1) * CF_V2_SPLIT_DEN + (uint64_t) CF_V2_SPLIT_NUM * cf->b - 1) /
		((uint64_t) CF_V2_SPLIT_NUM * cf->b);

	return (cf->max_kicks < 8 ? 2 : 1) * CF_V2_RELIEVE_CAP * need + 256;
}

/* The bucket count v2_relieve splits up to (and v2_split_pair). */
static uint64_t
v2_relieve_limit(const cf_filter *cf)
{
	/*
	 * A small table may double: its victim's pair can be far from the split
	 * pointer, and a few buckets' worth of splits did not reach it (growing
	 * filters of capacity 1 to 10 refused 2-9% of 100-value fills).
	 */
	uint64_t	small = cf->m < 256 ? cf->m : 256;
	uint64_t	extra = cf->m / 8 > small ? cf->m / 8 : small;
	uint64_t	limit;

	/*
	 * With almost no kicks the victim goes back only into its own pair,
	 * which gets room when the split pointer reaches one of its buckets:
	 * within 2m splits.
	 */
	if (cf->max_kicks < 8)
		extra = 2 * (uint64_t) cf->m;
	limit = (uint64_t) cf->m + extra + 1;
	if (limit > v2_relieve_cap(cf))
		limit = v2_relieve_cap(cf);
	return limit;
}

/* Splits until bucket i has been split: this round's, or the next's. */
static uint64_t
splits_until(const cf_filter *cf, uint32_t i)
{
	if (i >= cf->split && i < cf->base)
		return (uint64_t) (i - cf->split) + 1;
	return (uint64_t) (cf->base - cf->split) + i + 1;
}

/*
 * A pair full of entries of one fingerprint, some of other values, none
 * with an alternate outside the pair (cf2_insert): no kick can make room,
 * only a split of one of its buckets, which separates the values by an
 * address bit.  Splits up to the first of the two, within v2_relieve's
 * limit.  False when that is beyond the limit, the size limit or the memory
 * the hook gives (nothing changed), or a split was refused (the filter is
 * valid, with the splits done before).
 */
bool
v2_split_pair(cf_filter *cf, uint32_t i1, uint32_t i2)
{
	uint64_t	need = splits_until(cf, i1),
				n2 = splits_until(cf, i2),
				to;

	if (n2 < need)
		need = n2;
	to = (uint64_t) cf->m + need;
	/*
	 * A pair that is one bucket (one column, its address bits alike so far)
	 * holds b entries, not 2b, and the split that may separate it can be a
	 * round away: beyond the relief's share of m, within its proportional
	 * cap (docs/DESIGN.md, "Duplicates: ... one bucket").
	 */
	if (!cf->grows || to > (i1 == i2 ? v2_relieve_cap(cf) : v2_relieve_limit(cf)) ||
		to > v2_max_buckets(cf) ||
		!v2_reserve(cf, cf2_total_bytes(to, cf->b, cf->w, cf->g)))
		return false;
	while (cf->m < to)
	{
		uint32_t	copies;

		if (!v2_split(cf, &copies))
			return false;
	}
	return true;
}

/*
 * After a failed walk left an entry in the victim slot: split at most
 * max(m/8, min(m, 256)) more buckets, retrying the victim (directly after
 * every split, with kicks after the 1st, 2nd, 4th, 8th, ... split).  What is
 * still left stays in the victim slot (cf2_insert tries again before it
 * reports the filter full).
 */
void
v2_relieve(cf_filter *cf)
{
	uint64_t	limit = v2_relieve_limit(cf);
	uint32_t	n = 0;

	while (victim_in_use(cf) && cf->m < limit)
	{
		uint32_t	copies;

		if (!v2_split(cf, &copies))
			break;
		n++;
		if ((n & (n - 1)) == 0)
			victim_retry(cf);
	}
	if (victim_in_use(cf))
		victim_retry(cf);
}
