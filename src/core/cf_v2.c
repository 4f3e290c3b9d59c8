/*
 * cf_v2.c
 *     Format version 2 (issue 11; docs/FORMAT.md section "Version 2",
 *     docs/DESIGN.md "Growth and rotation"): filters that grow by linear
 *     hashing and filters that rotate through generations.
 *
 * One table of m = c * 2^k + split buckets, stored r-major (bucket index
 * i = r * c + q), so that splitting bucket `split` appends bucket
 * c * 2^k + split at the end.  A slot of w = f + t + g bits holds a
 * fingerprint (low f bits, non-zero), a tail (t bits: 2^s | spare, the s
 * spare address bits of its bucket beyond the bucket's resolution) and a
 * generation tag (g bits).  The design and its measurements are in
 * docs/GROWTH_RESEARCH.md; the logic follows its prototype
 * (bench/growth_proto/proto.c).
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v2.h"

#include <stdio.h>
#include <stdlib.h>

uint64_t	cf_v2_limit_bytes = CF_MAX_BYTES;
cf_realloc_fn cf_realloc_hook = NULL;

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

/* ------------------------------------------------------------------------
 * Sizes and header fields
 * ------------------------------------------------------------------------ */

static inline uint32_t
mask32(uint32_t n)
{
	return n >= 32 ? UINT32_MAX : (UINT32_C(1) << n) - 1;
}

static inline uint32_t
log2_32(uint32_t x)
{
	return 31 - (uint32_t) __builtin_clz(x | 1);
}

/* The address budget A = 32 - bitlen(c) (docs/FORMAT.md 13.12). */
static inline uint32_t
budget_abits(uint32_t c)
{
	return 32 - (log2_32(c) + 1);
}

int
cf_budget_tail(uint32_t c, uint32_t k, uint32_t f, uint32_t g)
{
	int			a = (int) budget_abits(c ? c : 1) - (int) k + 1;
	int			room = 32 - (int) f - (int) g;

	return a < room ? a : room;
}

static inline uint32_t
v2_hdr_bytes(uint32_t g)
{
	return CF_V2_HEADER_SIZE + (g ? (8u << g) : 0);
}

uint64_t
cf2_total_bytes(uint64_t m, uint32_t b, uint32_t w, uint32_t g)
{
	return v2_hdr_bytes(g) + (m * b * w + 63) / 64 * 8 + CF_DATA_SLACK_BYTES;
}

static inline uint64_t
v2_entries(const cf_filter *cf)
{
	return rd64(cf->buf + CF_V2_OFF_ENTRIES);
}

static inline void
v2_add_entries(cf_filter *cf, int64_t d)
{
	wr64(cf->buf + CF_V2_OFF_ENTRIES, v2_entries(cf) + (uint64_t) d);
}

static inline uint32_t
v2_cur_gen(const cf_filter *cf)
{
	return cf->buf[CF_V2_OFF_CUR_GEN];
}

static inline uint32_t
v2_keep(const cf_filter *cf)
{
	return cf->buf[CF_V2_OFF_KEEP];
}

static inline uint8_t *
gi_at(const cf_filter *cf, uint32_t gen)
{
	return cf->buf + CF_V2_HEADER_SIZE + 8 * (size_t) gen;
}

/* One more logical item, in generation gen. */
static void
v2_item_added(cf_filter *cf, uint32_t gen)
{
	add_items(cf, 1);
	if (cf->g)
		wr64(gi_at(cf, gen), rd64(gi_at(cf, gen)) + 1);
}

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
 * Slots and addresses
 * ------------------------------------------------------------------------ */

static inline uint32_t
rd_slot(const cf_filter *cf, uint32_t i, uint32_t j)
{
	return get_bits(cf->data, (uint64_t) i * cf->bucket_bits + (uint64_t) j * cf->w, cf->w);
}

static inline void
wr_slot(cf_filter *cf, uint32_t i, uint32_t j, uint32_t e)
{
	set_bits(cf->data, (uint64_t) i * cf->bucket_bits + (uint64_t) j * cf->w, cf->w, e);
}

static inline uint32_t
slot_tail(const cf_filter *cf, uint32_t e)
{
	return (e >> cf->f) & cf->tmask;
}

static inline uint32_t
slot_gen(const cf_filter *cf, uint32_t e)
{
	return cf->g ? (e >> (cf->f + cf->t)) & cf->gmask : 0;
}

static inline uint32_t
slot_s(const cf_filter *cf, uint32_t e)
{
	return log2_32(slot_tail(cf, e));
}

static inline uint32_t
slot_age(const cf_filter *cf, uint32_t e)
{
	return (v2_cur_gen(cf) - slot_gen(cf, e)) & cf->gmask;
}

static inline uint32_t
slot_with_gen(const cf_filter *cf, uint32_t e, uint32_t gen)
{
	uint32_t	sh = cf->f + cf->t;

	if (cf->g == 0)
		return e;				/* no field (and sh may be 32) */
	return (e & ~(cf->gmask << sh)) | (gen << sh);
}

/* Resolution (address bits the bucket's position fixes) of bucket i. */
static inline uint32_t
bucket_res(const cf_filter *cf, uint32_t i)
{
	return cf->k + (uint32_t) (i < cf->split || i >= cf->base);
}

/*
 * The entry of a value whose low L address bits are a, for a bucket of
 * resolution res <= L: its spare bits are a's bits res .. L-1, at most t-1.
 */
static inline uint32_t
make_slot(const cf_filter *cf, uint32_t fp, uint32_t a, uint32_t L, uint32_t res, uint32_t gen)
{
	uint32_t	tail = 0;

	if (cf->t)
	{
		uint32_t	s = L - res;

		if (s > cf->t - 1)
			s = cf->t - 1;
		tail = (UINT32_C(1) << s) | (uint32_t) (((uint64_t) a >> res) & mask32(s));
	}
	return fp | (tail << cf->f) | (cf->g ? gen << (cf->f + cf->t) : 0);
}

/* The low *L address bits an entry in bucket i knows. */
static inline uint32_t
slot_known(const cf_filter *cf, uint32_t i, uint32_t e, uint32_t *L)
{
	uint32_t	res = bucket_res(cf, i);
	uint32_t	r = i / cf->c;
	uint32_t	tail,
				s;

	if (cf->t == 0)
	{
		*L = res;
		return r;
	}
	tail = slot_tail(cf, e);
	s = log2_32(tail);
	*L = res + s;
	return r | (uint32_t) ((uint64_t) (tail ^ (UINT32_C(1) << s)) << res);
}

/* Bucket of address (q, a) and its resolution; branch-free (a mispredicted
 * branch here serialises the two cache misses of a lookup). */
static CF_ALWAYS_INLINE uint32_t
locate2(const cf_filter *cf, uint32_t q, uint32_t a, uint32_t *res)
{
	uint32_t	i0 = (a & cf->rmask) * cf->c + q;
	uint32_t	sp = (uint32_t) (i0 < cf->split);

	*res = cf->k + sp;
	return i0 + (cf->base & (0u - (sp & (a >> cf->k))));
}

/* The same as the bit position of the bucket (bucket_bits * index): the
 * index's multiply does not wait for the split test. */
static CF_ALWAYS_INLINE uint64_t
locate2_pos(const cf_filter *cf, uint32_t q, uint32_t a, uint32_t *res)
{
	uint32_t	i0 = (a & cf->rmask) * cf->c + q;
	uint32_t	sp = (uint32_t) (i0 < cf->split);

	*res = cf->k + sp;
	return (uint64_t) i0 * cf->bucket_bits +
		(cf->v2_base_bits & ((uint64_t) 0 - (uint64_t) (sp & (a >> cf->k))));
}

typedef struct v2_hash
{
	uint32_t	fp,
				q,
				a,
				q2,
				a2;
} v2_hash;

static CF_ALWAYS_INLINE void
v2_parts(const cf_filter *cf, uint64_t h, v2_hash *v)
{
	uint64_t	hf;
	uint32_t	hq;

	v->fp = 1 + fastrange32((uint32_t) h, cf->fp_range);
	v->q = fastrange32((uint32_t) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32), cf->c);
	v->a = (uint32_t) (h >> 32);
	hf = fp_hash(v->fp);
	hq = fastrange32((uint32_t) hf, cf->c);
	v->q2 = hq >= v->q ? hq - v->q : hq + cf->c - v->q;
	v->a2 = v->a ^ (uint32_t) (hf >> 32);
}

/*
 * The alternate bucket *j of entry e of bucket i, and the entry as stored
 * there (*e2).  False when the entry does not know enough address bits to
 * tell which bucket of a split pair it belongs to.
 */
static bool
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

static bool
place2(cf_filter *cf, uint32_t i, uint32_t e)
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

static bool
bucket_full2(const cf_filter *cf, uint32_t i)
{
	for (uint32_t j = 0; j < cf->b; j++)
		if (rd_slot(cf, i, j) == 0)
			return false;
	return true;
}

/* Whether entry e matches a value whose address bits above the bucket's
 * resolution are ahi (a >> res): fingerprint equal, spare bits a prefix. */
static CF_ALWAYS_INLINE uint32_t
slot_match(const cf_filter *cf, uint32_t e, uint32_t fp, uint32_t ahi)
{
	uint32_t	tail = (e >> cf->f) & cf->tmask;
	uint32_t	s = log2_32(tail);

	return (uint32_t) ((e & cf->fp_mask) == fp) &
		(uint32_t) (((tail ^ ahi) & ((UINT32_C(1) << s) - 1)) == 0);
}

static inline bool
v2_victim(const cf_filter *cf, uint32_t *vb, uint32_t *ve)
{
	if (!victim_in_use(cf))
		return false;
	*vb = rd32(cf->buf + CF_V2_OFF_VICTIM_BUCKET);
	*ve = rd32(cf->buf + CF_V2_OFF_VICTIM_SLOT);
	return true;
}

/*
 * Stores entry e of bucket i: in i, in its alternate, else by a random walk
 * of kicks; the entry left in hand when the kicks run out goes to the victim
 * slot, which must be free.  True if it went into the table.  The entry
 * count is the caller's.
 */
/*
 * The slot writes of one store, so that it can be taken back (v2_split's
 * bucket of copies); NULL: not recorded.  A recorded walk stops kicking
 * when the journal could not hold one more kick and its final place.
 */
#define CF_V2_JOURNAL	1024

typedef struct v2_journal
{
	uint32_t	n;
	uint32_t	bucket[CF_V2_JOURNAL];
	uint8_t		slot[CF_V2_JOURNAL];
	uint32_t	old[CF_V2_JOURNAL];
} v2_journal;

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
static void
jr_undo(cf_filter *cf, const v2_journal *jr)
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

static CF_NOINLINE bool
v2_store(cf_filter *cf, uint32_t i, uint32_t e, uint64_t seed)
{
	return v2_store_j(cf, i, e, seed, NULL);
}

static CF_NOINLINE bool
v2_store_journal(cf_filter *cf, uint32_t i, uint32_t e, uint64_t seed, v2_journal *jr)
{
	return v2_store_j(cf, i, e, seed, jr);
}

/* After room may have appeared: the victim goes back into the table if its
 * bucket or its alternate has a free entry (no kicks). */
static void
victim_try_direct(cf_filter *cf)
{
	uint32_t	vb,
				ve,
				j,
				e2;

	if (!v2_victim(cf, &vb, &ve))
		return;
	if (place2(cf, vb, ve) || (slot_alt(cf, vb, ve, &j, &e2) && place2(cf, j, e2)))
		clear_victim(cf);
}

/* The victim is taken out and stored again with kicks. */
static void
victim_retry(cf_filter *cf)
{
	uint32_t	vb,
				ve;

	if (!v2_victim(cf, &vb, &ve))
		return;
	clear_victim(cf);
	(void) v2_store(cf, vb, ve, v2_entries(cf) ^ header_items(cf));
}

/* ------------------------------------------------------------------------
 * Growth: linear hashing, one bucket split at a time
 * ------------------------------------------------------------------------ */

/* Makes at least need bytes usable at cf->buf (cf_realloc_hook). */
static bool
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

static void
v2_set_geometry(cf_filter *cf)
{
	uint32_t	k = 0;

	while (((uint64_t) cf->c << (k + 1)) <= cf->m)
		k++;
	cf->k = k;
	cf->base = cf->c << k;
	cf->split = cf->m - cf->base;
	cf->rmask = mask32(k);
	cf->v2_base_bits = (uint64_t) cf->base * cf->b * cf->w;
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
static void v2_refresh(cf_filter *cf);

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
			bool		ok CF_UNUSED = place2(cf, bk[y], fm[y]);

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
			if (!place2(cf, bk[y], fm[y]))
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
			else if (!place2(cf, bk[1], fm[1]) &&
					 !(slot_alt(cf, bk[1], fm[1], &j2, &e2) && place2(cf, j2, e2)))
			{
				clear_victim(cf);
				jr_undo(cf, &jr);
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
static uint64_t
v2_max_buckets(const cf_filter *cf)
{
	uint64_t	room = cf_v2_limit_bytes;
	uint64_t	fixed = cf->hdr + CF_DATA_SLACK_BYTES;

	if (room <= fixed)
		return 0;
	return ((room - fixed) / 8 * 64) / ((uint64_t) cf->b * cf->w);
}

static inline bool
v2_over_load(const cf_filter *cf, uint64_t extra)
{
	return (v2_entries(cf) + extra) * CF_V2_SPLIT_DEN >
		(uint64_t) CF_V2_SPLIT_NUM * cf->b * cf->m;
}

/*
 * Splits buckets until `extra` more entries keep the load at CF_V2_LOAD (or
 * the size limit stops it).  The memory for that is requested once, before
 * anything changes: false when the hook refused it (filter unchanged).
 */
static bool
v2_grow(cf_filter *cf, uint64_t extra)
{
	uint64_t	want,
				mmax;

	if (!cf->grows || !v2_over_load(cf, extra))
		return true;
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

/*
 * After a failed walk left an entry in the victim slot: split at most
 * max(m/8, min(m, 256)) more buckets, retrying the victim (directly after
 * every split, with kicks after the 1st, 2nd, 4th, 8th, ... split).  What is
 * still left stays in the victim slot (cf2_insert tries again before it
 * reports the filter full).
 */
#define CF_V2_RELIEVE_CAP	4

static void
v2_relieve(cf_filter *cf)
{
	/*
	 * A small table may double: its victim's pair can be far from the split
	 * pointer, and a few buckets' worth of splits did not reach it (growing
	 * filters of capacity 1 to 10 refused 2-9% of 100-value fills).
	 */
	uint64_t	small = cf->m < 256 ? cf->m : 256;
	uint64_t	extra = cf->m / 8 > small ? cf->m / 8 : small;
	uint64_t	limit;
	uint32_t	n = 0;

	/*
	 * With almost no kicks the victim goes back only into its own pair,
	 * which gets room when the split pointer reaches one of its buckets:
	 * within 2m splits.
	 */
	if (cf->max_kicks < 8)
		extra = 2 * (uint64_t) cf->m;
	limit = (uint64_t) cf->m + extra + 1;

	/*
	 * Proportional growth: never beyond CF_V2_RELIEVE_CAP times the buckets
	 * the items need at the growth load (twice that with max_kicks under 8:
	 * such filters run at load 0.17 to 0.75), plus 256.  A victim whose pair is
	 * full of entries without spare bits (copies) is not helped by
	 * splitting, which copies them again, and every refused insert used to
	 * split again (the fuzz finding ops2-growth-blowup: 211 -> 2,339,162
	 * buckets for 313 items, its entries growing with the table: a cap on
	 * the entries' need does not hold).
	 */
	{
		uint64_t	need = ((header_items(cf) + 1) * CF_V2_SPLIT_DEN + (uint64_t) CF_V2_SPLIT_NUM * cf->b - 1) /
			((uint64_t) CF_V2_SPLIT_NUM * cf->b);
		uint64_t	cap = (cf->max_kicks < 8 ? 2 : 1) * CF_V2_RELIEVE_CAP * need + 256;

		if (limit > cap)
			limit = cap;
	}

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

/* ------------------------------------------------------------------------
 * Construction, views, parameters
 * ------------------------------------------------------------------------ */

#if defined(__SIZEOF_INT128__)
static void probe4_setup(cf_filter *cf);
#endif
static void v2_choose_lookup(cf_filter *cf);

bool
cf2_check_params(const cf_params *p, char *err, size_t errlen)
{
	uint64_t	total;

	if (p->expansion != 0 && p->expansion != 2)
		ERR("expansion %u must be 0 (fixed) or 2 (grows)", p->expansion);
	if (p->bucket_size != 4 || p->semisort)
		ERR("a version-2 (growing or rotating) filter needs bucket size 4 without semi-sorting");
	if (!cf_check_fp_bits(p->fp_bits, err, errlen))
		return false;
	if (p->expansion == 2 && !p->budget &&
		(p->tail_bits < CF_V2_MIN_TAIL_BITS || p->tail_bits > CF_V2_MAX_TAIL_BITS))
		ERR("tail bits %u are outside the range %d to %d for a growing filter",
			p->tail_bits, CF_V2_MIN_TAIL_BITS, CF_V2_MAX_TAIL_BITS);
	if (p->expansion == 0 && p->tail_bits != 0)
		ERR("tail bits %u need expansion 2", p->tail_bits);
	if (p->budget && p->expansion != 2)
		ERR("the address budget needs expansion 2");
	if (p->gen_bits > CF_V2_MAX_GEN_BITS)
		ERR("generation bits %u are outside the range 0 to %d",
			p->gen_bits, CF_V2_MAX_GEN_BITS);
	if (p->fp_bits + p->tail_bits + p->gen_bits > 32)
		ERR("fingerprint, tail and generation bits (%u + %u + %u) exceed 32",
			p->fp_bits, p->tail_bits, p->gen_bits);
	if (!cf_buckets_representable(p->num_buckets))
		ERR("bucket count %u is not of the form c * 2^k with c < 256",
			p->num_buckets);
	if (p->budget)
	{
		uint32_t	c,
					k0;
		int			tt;

		split_buckets(p->num_buckets, &c, &k0);
		tt = cf_budget_tail(c, k0, p->fp_bits, p->gen_bits);
		if (tt < CF_V2_MIN_TAIL_BITS)
			ERR("fingerprint and generation bits (%u + %u) leave fewer than %d tail bits for the address budget",
				p->fp_bits, p->gen_bits, CF_V2_MIN_TAIL_BITS);
		if (p->tail_bits != (uint32_t) tt)
			ERR("tail bits %u differ from the %d that the address budget gives %u buckets",
				p->tail_bits, tt, p->num_buckets);
	}
	if (!cf_check_max_kicks(p->max_kicks, err, errlen) ||
		!cf_check_kind_tag(p->kind, p->type_tag, err, errlen))
		return false;
	if (p->capacity < 1 || p->capacity > (uint64_t) p->num_buckets * p->bucket_size)
		ERR("capacity %llu is outside the range 1 to %llu for %u buckets",
			(unsigned long long) p->capacity,
			(unsigned long long) p->num_buckets * p->bucket_size,
			p->num_buckets);
	total = cf2_total_bytes(p->num_buckets, p->bucket_size,
							p->fp_bits + p->tail_bits + p->gen_bits, p->gen_bits);
	return cf_check_total_bytes(p->num_buckets, total, err, errlen);
}

void
cf2_init(void *buf, const cf_params *p)
{
	uint8_t    *h = buf;
	uint32_t	w = p->fp_bits + p->tail_bits + p->gen_bits;
	size_t		len = (size_t) cf2_total_bytes(p->num_buckets, p->bucket_size, w, p->gen_bits);
	uint32_t	c,
				k;

	split_buckets(p->num_buckets, &c, &k);
	memset(h, 0, len);
	wr32(h + CF_V2_OFF_MAGIC, CF_MAGIC);
	h[CF_V2_OFF_VERSION] = CF_VERSION_2;
	h[CF_V2_OFF_BUCKET_SIZE] = (uint8_t) p->bucket_size;
	h[CF_V2_OFF_FP_BITS] = (uint8_t) p->fp_bits;
	h[CF_V2_OFF_FLAGS] = p->expansion == 2 ? (p->budget ? CF_FLAG_GROWS | CF_FLAG_BUDGET : CF_FLAG_GROWS) : 0;
	wr16(h + CF_V2_OFF_KIND, p->kind);
	h[CF_V2_OFF_TAIL_BITS] = (uint8_t) p->tail_bits;
	h[CF_V2_OFF_GEN_BITS] = (uint8_t) p->gen_bits;
	wr32(h + CF_V2_OFF_TYPE_TAG, p->type_tag);
	wr32(h + CF_V2_OFF_NUM_BUCKETS, p->num_buckets);
	wr32(h + CF_V2_OFF_MAX_KICKS, p->max_kicks);
	wr64(h + CF_V2_OFF_CAPACITY, p->capacity);
	wr16(h + CF_V2_OFF_MANTISSA, (uint16_t) c);
	wr32(h + CF_V2_OFF_INITIAL_BUCKETS, p->num_buckets);
}

void
cf2_open(cf_filter *cf, const void *buf, size_t len)
{
	cf->buf = (uint8_t *) buf;
	cf->len = len;
	cf->alloc = len;
	v2_refresh(cf);
}

/* The view's fields from the header at cf->buf (cf2_open; after a narrowing). */
static void
v2_refresh(cf_filter *cf)
{
	const uint8_t *h = cf->buf;

	cf->version = CF_VERSION_2;
	cf->b = h[CF_V2_OFF_BUCKET_SIZE];
	cf->f = h[CF_V2_OFF_FP_BITS];
	cf->t = h[CF_V2_OFF_TAIL_BITS];
	cf->g = h[CF_V2_OFF_GEN_BITS];
	cf->w = cf->f + cf->t + cf->g;
	cf->slot_mask = mask32(cf->w);
	cf->tmask = mask32(cf->t);
	cf->gmask = mask32(cf->g);
	cf->hdr = v2_hdr_bytes(cf->g);
	cf->data = cf->buf + cf->hdr;
	cf->grows = (h[CF_V2_OFF_FLAGS] & CF_FLAG_GROWS) != 0;
	cf->budget = (h[CF_V2_OFF_FLAGS] & CF_FLAG_BUDGET) != 0;
	cf->m = rd32(h + CF_V2_OFF_NUM_BUCKETS);
	cf->c = rd16(h + CF_V2_OFF_MANTISSA);
	if (cf->c == 0)
		cf->c = 1;				/* unvalidated bytes: keep arithmetic defined */
	cf->abits = cf->budget ? budget_abits(cf->c) : CF_V2_ADDR_BITS;
	v2_set_geometry(cf);
	cf->semisort = false;
	cf->fp_range = (uint32_t) ((UINT64_C(1) << cf->f) - 1);
	cf->fp_mask = cf->fp_range;
	cf->low_bits = 0;
	cf->bucket_bits = cf->b * cf->w;
	cf->max_kicks = rd32(h + CF_V2_OFF_MAX_KICKS);
	cf->lo_ones = cf->hi_bits = cf->bucket_mask = 0;
	cf->ss_lo_ones = cf->ss_hi_bits = 0;
	cf->word_probe = false;
	cf->ss_word_probe = false;
	memset(cf->p2_ones, 0, sizeof cf->p2_ones);
	cf->v2_tone = cf->v2_fpt = cf->v2_tails = cf->v2_carry = 0;
#if defined(__SIZEOF_INT128__)
	if (cf->f >= CF_MIN_FP_BITS && cf->f <= 32)
		probe4_setup(cf);
#endif
	v2_choose_lookup(cf);
}

void
cf2_get_params(const cf_filter *cf, cf_params *p)
{
	memset(p, 0, sizeof *p);
	p->num_buckets = rd32(cf->buf + CF_V2_OFF_INITIAL_BUCKETS);
	p->bucket_size = cf->b;
	p->fp_bits = cf->f;
	p->semisort = false;
	p->max_kicks = cf->max_kicks;
	p->kind = cf_kind_of(cf);
	p->type_tag = cf_type_tag(cf);
	p->capacity = cf_capacity(cf);
	p->expansion = cf->grows ? 2 : 0;
	p->tail_bits = cf->t;
	p->gen_bits = cf->g;
	p->budget = cf->budget;
	if (cf->budget)
	{
		uint32_t	c,
					k0;

		split_buckets(p->num_buckets, &c, &k0);
		p->tail_bits = (uint32_t) cf_budget_tail(c, k0, cf->f, cf->g);
	}
}

uint32_t
cf_version(const cf_filter *cf)
{
	return cf->version == CF_VERSION_2 ? CF_VERSION_2 : CF_VERSION;
}

uint64_t
cf_init_bytes(const cf_params *p)
{
	if (p->expansion == 2 || p->gen_bits > 0 || p->tail_bits > 0 || p->budget)
		return cf2_total_bytes(p->num_buckets, p->bucket_size,
							   p->fp_bits + p->tail_bits + p->gen_bits, p->gen_bits);
	return cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort);
}

bool
cf_params_growing(uint64_t capacity, double fpr, uint32_t max_kicks,
				  cf_params *p, char *err, size_t errlen)
{
	int			ff;
	uint32_t	m;

	memset(p, 0, sizeof *p);
	if (!(fpr > 0.0 && fpr < 1.0))
		ERR("false-positive rate %g is outside the open range 0 to 1", fpr);
	if (capacity < 1)
		ERR("capacity must be at least 1");
	ff = cf_fp_bits_for_fpr(fpr, 4);
	if (ff < 0 || ff - 4 + CF_V2_MIN_TAIL_BITS > 32)
		ERR("false-positive rate %g is too small for a growing filter", fpr);
	m = cf_buckets_for_capacity(capacity, 4);
	if (m == 0)
		ERR("capacity %llu is too large", (unsigned long long) capacity);
	p->num_buckets = m;
	p->bucket_size = 4;
	p->fp_bits = (uint32_t) (ff - 4 < CF_MIN_FP_BITS ? CF_MIN_FP_BITS : ff - 4);
	p->semisort = false;
	p->max_kicks = max_kicks;
	p->kind = CF_KIND_ANY;
	p->type_tag = 0;
	p->capacity = capacity;
	p->expansion = 2;
	p->budget = true;
	p->gen_bits = 0;
	{
		uint32_t	c,
					k0;

		split_buckets(m, &c, &k0);
		p->tail_bits = (uint32_t) cf_budget_tail(c, k0, p->fp_bits, 0);
	}
	return cf_check_params(p, err, errlen);
}

/* ------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------ */

bool
cf2_check_header(const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *h = buf;
	uint8_t		flags;
	uint32_t	b,
				f,
				t,
				g,
				w,
				c,
				m,
				m0,
				k0,
				cur,
				keep,
				k;
	uint64_t	want,
				items,
				entries,
				cap,
				sum = 0;
	bool		grows,
				budget;

	if (len < CF_V2_HEADER_SIZE)
		ERR("%zu bytes is shorter than the %d-byte version-2 header", len, CF_V2_HEADER_SIZE);
	if (!cf_check_magic(rd32(h + CF_V2_OFF_MAGIC), err, errlen))
		return false;
	if (h[CF_V2_OFF_VERSION] != CF_VERSION_2)
		ERR("format version %u is not supported", h[CF_V2_OFF_VERSION]);
	flags = h[CF_V2_OFF_FLAGS];
	if (flags & ~CF_V2_FLAGS_KNOWN)
		ERR("unknown flag bits 0x%02x", flags & ~CF_V2_FLAGS_KNOWN);
	grows = (flags & CF_FLAG_GROWS) != 0;
	budget = (flags & CF_FLAG_BUDGET) != 0;
	if (budget && !grows)
		ERR("the address budget flag is set on a filter that does not grow");
	b = h[CF_V2_OFF_BUCKET_SIZE];
	f = h[CF_V2_OFF_FP_BITS];
	t = h[CF_V2_OFF_TAIL_BITS];
	g = h[CF_V2_OFF_GEN_BITS];
	if (!cf_check_bucket_size(b, err, errlen))
		return false;
	if (grows && b != 4)
		ERR("a growing filter has bucket size 4, not %u", b);
	if (!cf_check_fp_bits(f, err, errlen))
		return false;
	if ((t > CF_V2_MAX_TAIL_BITS && !budget) || (grows ? t < CF_V2_MIN_TAIL_BITS : t != 0))
		ERR("tail bits %u do not fit a %s filter", t, grows ? "growing" : "fixed");
	if (g > CF_V2_MAX_GEN_BITS)
		ERR("generation bits %u exceed %d", g, CF_V2_MAX_GEN_BITS);
	w = f + t + g;
	if (w > 32)
		ERR("slot of %u bits exceeds 32", w);
	if (!cf_check_kind_tag(rd16(h + CF_V2_OFF_KIND), rd32(h + CF_V2_OFF_TYPE_TAG), err, errlen) ||
		!cf_check_max_kicks(rd32(h + CF_V2_OFF_MAX_KICKS), err, errlen))
		return false;
	c = rd16(h + CF_V2_OFF_MANTISSA);
	m = rd32(h + CF_V2_OFF_NUM_BUCKETS);
	m0 = rd32(h + CF_V2_OFF_INITIAL_BUCKETS);
	if (c < 1 || c >= (1u << CF_MANTISSA_BITS))
		ERR("bucket mantissa c = %u is outside the range 1 to %d", c, (1 << CF_MANTISSA_BITS) - 1);
	if (m < c)
		ERR("bucket count %u is below the mantissa %u", m, c);
	for (k0 = 0; ((uint64_t) c << (k0 + 1)) <= m0; k0++)
		;
	if (m0 < c || ((uint64_t) c << k0) != m0)
		ERR("initial bucket count %u is not c * 2^k for c = %u", m0, c);
	{
		uint32_t	cc,
					kk;

		split_buckets(m0, &cc, &kk);
		if (cc != c)
			ERR("initial bucket count %u has mantissa %u, not %u", m0, cc, c);
	}
	for (k = 0; ((uint64_t) c << (k + 1)) <= m; k++)
		;
	if (!grows && ((uint64_t) c << k) != m)
		ERR("a fixed version-2 filter has c * 2^k buckets, not %u", m);
	if (budget && (int) t != cf_budget_tail(c, k, f, g))
		ERR("tail bits %u differ from the %d that the address budget gives at round %u",
			t, cf_budget_tail(c, k, f, g), k);
	cap = rd64(h + CF_V2_OFF_CAPACITY);
	if (cap < 1 || cap > (uint64_t) m0 * b)
		ERR("capacity %llu is outside the range 1 to %llu",
			(unsigned long long) cap, (unsigned long long) m0 * b);
	want = cf2_total_bytes(m, b, w, g);
	if (!cf_check_total_bytes(m, want, err, errlen) ||
		!cf_check_length(len, want, m, err, errlen))
		return false;
	cur = h[CF_V2_OFF_CUR_GEN];
	keep = h[CF_V2_OFF_KEEP];
	if (cur > mask32(g) || keep > mask32(g))
		ERR("generation %u or keep %u does not fit %u generation bits", cur, keep, g);
	if (keep == 0 && cur != 0)
		ERR("generation %u without a rotation", cur);
	entries = rd64(h + CF_V2_OFF_ENTRIES);
	items = rd64(h + CF_V2_OFF_ITEMS);
	if (entries > (uint64_t) m * b + 1)
		ERR("entry count %llu exceeds the %llu slots of the table",
			(unsigned long long) entries, (unsigned long long) m * b + 1);
	if (items > entries)
		ERR("item count %llu exceeds the entry count %llu",
			(unsigned long long) items, (unsigned long long) entries);
	if (g > 0)
	{
		uint32_t	live = keep ? keep : 1;

		for (uint32_t x = 0; x <= mask32(g); x++)
		{
			uint64_t	n = rd64(h + CF_V2_HEADER_SIZE + 8 * (size_t) x);
			uint32_t	age = (cur - x) & mask32(g);

			if (n > items || (age >= live && n != 0))
				ERR("item count %llu of generation %u is inconsistent",
					(unsigned long long) n, x);
			sum += n;
		}
		if (sum != items)
			ERR("generation item counts sum to %llu, not the %llu items",
				(unsigned long long) sum, (unsigned long long) items);
	}
	if (flags & CF_FLAG_VICTIM)
	{
		uint32_t	vb = rd32(h + CF_V2_OFF_VICTIM_BUCKET);
		uint32_t	ve = rd32(h + CF_V2_OFF_VICTIM_SLOT);

		if (vb >= m)
			ERR("victim bucket %u is outside the %u buckets", vb, m);
		if ((ve & mask32(f)) == 0 || ve > mask32(w))
			ERR("victim slot 0x%x is not a valid %u-bit slot", ve, w);
		if (entries < 1)
			ERR("victim in use but no entries counted");
	}
	else if (rd32(h + CF_V2_OFF_VICTIM_BUCKET) != 0 || rd32(h + CF_V2_OFF_VICTIM_SLOT) != 0)
		ERR("victim fields are set but the victim flag is not");
	if (rd16(h + CF_V2_OFF_KIND) == CF_KIND_ANY && entries != 0)
		ERR("a filter with entries must record the kind of value it holds");
	return true;
}

/* The rules every occupied slot (and the victim) must follow. */
static bool
slot_ok(const cf_filter *cf, uint32_t i, uint32_t e, char *err, size_t errlen)
{
	uint32_t	live = v2_keep(cf) ? v2_keep(cf) : 1;

	if ((e & cf->fp_mask) == 0)
		ERR("bucket %u holds a slot 0x%x with a zero fingerprint", i, e);
	if (cf->t)
	{
		uint32_t	tail = slot_tail(cf, e);

		if (tail == 0)
			ERR("bucket %u holds a slot 0x%x without a tail", i, e);
		if (bucket_res(cf, i) + log2_32(tail) > cf->abits)
			ERR("bucket %u holds a slot 0x%x with more than %u address bits", i, e, cf->abits);
	}
	if (slot_age(cf, e) >= live)
		ERR("bucket %u holds a slot 0x%x of a dropped generation", i, e);
	return true;
}

bool
cf2_validate(const void *buf, size_t len, char *err, size_t errlen)
{
	cf_filter	cf;
	uint64_t	count = 0;
	uint32_t	vb,
				ve;

	if (!cf2_check_header(buf, len, err, errlen))
		return false;
	cf2_open(&cf, buf, len);
	for (uint32_t i = 0; i < cf.m; i++)
	{
		CF_CHECK_INTERRUPTS(i);
		for (uint32_t j = 0; j < cf.b; j++)
		{
			uint32_t	e = rd_slot(&cf, i, j);

			if (e == 0)
				continue;
			if (!slot_ok(&cf, i, e, err, errlen))
				return false;
			count++;
		}
	}
	{
		uint64_t	used = (uint64_t) cf.m * cf.bucket_bits;
		uint64_t	end = (uint64_t) (len - cf.hdr) * 8;

		for (uint64_t pos = used; pos < end;)
		{
			uint64_t	byte = pos >> 3;

			if ((cf.data[byte] >> (pos & 7)) != 0)
				ERR("padding after the bucket array is not zero");
			pos = (byte + 1) * 8;
		}
	}
	if (v2_victim(&cf, &vb, &ve))
	{
		uint32_t	j,
					e2;

		if (!slot_ok(&cf, vb, ve, err, errlen))
			return false;
		count++;
		if (!bucket_full2(&cf, vb) ||
			(slot_alt(&cf, vb, ve, &j, &e2) && !bucket_full2(&cf, j)))
			ERR("victim slot is in use although its buckets have room");
	}
	if (count != v2_entries(&cf))
		ERR("entry count %llu disagrees with the %llu occupied slots",
			(unsigned long long) v2_entries(&cf), (unsigned long long) count);
	return true;
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

	if (!v2_grow(cf, 1))
		return CF_FULL;
	v2_parts(cf, h, &v);
	i1 = locate2(cf, v.q, v.a, &r1);
	i2 = locate2(cf, v.q2, v.a2, &r2);
	gen = v2_cur_gen(cf);
	e1 = make_slot(cf, v.fp, v.a, cf->abits, r1, gen);
	e2 = make_slot(cf, v.fp, v.a2, cf->abits, r2, gen);
	if (place2(cf, i1, e1) || (i2 != i1 && place2(cf, i2, e2)))
	{
		v2_add_entries(cf, 1);
		v2_item_added(cf, gen);
		CF_ASSERT_HEADER(cf);
		return CF_OK;
	}
	if (pair_only_fp2(cf, i1, i2, v.fp))
		return CF_TOO_MANY_COPIES;
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

/* Matches of the value in bucket i (resolution res, address a), as a bit set. */
static CF_ALWAYS_INLINE uint32_t
bucket_matches(const cf_filter *cf, uint32_t i, uint32_t fp, uint32_t ahi, uint32_t b)
{
	uint64_t	pos = (uint64_t) i * cf->bucket_bits;
	uint32_t	hit = 0;

	for (uint32_t j = 0; j < b; j++)
	{
		uint64_t	p = pos + (uint64_t) j * cf->w;
		uint32_t	e = (uint32_t) (load_le64(cf->data + (p >> 3)) >> (p & 7)) & cf->slot_mask;

		hit |= slot_match(cf, e, fp, ahi) << j;
	}
	return hit;
}

static inline bool
victim_matches2(const cf_filter *cf, const v2_hash *v, uint32_t i1, uint32_t r1,
				uint32_t i2, uint32_t r2)
{
	uint32_t	vb,
				ve;

	if (!v2_victim(cf, &vb, &ve))
		return false;
	return (vb == i1 && slot_match(cf, ve, v->fp, v->a >> r1)) ||
		(vb == i2 && slot_match(cf, ve, v->fp, v->a2 >> r2));
}

#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 cf_u128;

/*
 * The common shape (b = 4, slots of at most 30 bits: a bucket and its bit
 * offset fit 128 bits).  Both buckets are read with two 64-bit loads each
 * and their four fingerprint fields tested at once with the exact zero-field
 * test ~(((x & L) + L) | x) & H (L: the low f-1 bits of each field, H: bit
 * f-1); only a fingerprint that matches has its tail compared, so a negative
 * lookup (the common case of a prefilter) costs about what a version-1
 * lookup costs.
 */
typedef struct probe4
{
	cf_u128		fpx,			/* fp in every fingerprint field */
				lo,
				hi,
				mask,			/* the 4w bits of a bucket */
				tone;			/* bit f of each slot: bit 0 of its tail */
	uint32_t	t,
				tmask;
} probe4;

static CF_ALWAYS_INLINE cf_u128
u128_of(const uint64_t *x)
{
	return ((cf_u128) x[1] << 64) | x[0];
}

static inline void
u128_put(uint64_t *x, cf_u128 v)
{
	x[0] = (uint64_t) v;
	x[1] = (uint64_t) (v >> 64);
}

static void
probe4_setup(cf_filter *cf)
{
	cf_u128		ones = 0;

	if (cf->b != 4 || cf->w > 30)
		return;
	for (uint32_t j = 0; j < 4; j++)
		ones |= (cf_u128) 1 << (j * cf->w);
	u128_put(cf->p2_ones, ones);
	u128_put(cf->p2_low, ones * ((UINT64_C(1) << (cf->f - 1)) - 1));
	u128_put(cf->p2_high, ones << (cf->f - 1));
	u128_put(cf->p2_mask, (((cf_u128) 1) << (4 * cf->w)) - 1);
	if (cf->w > 28)
		return;
	/* the probe word (word_at) */
	if (cf->w <= 16)
	{
		cf->lo_ones = cf->p2_ones[0];
		cf->bucket_mask = cf->p2_mask[0];
		cf->v2_tone = cf->lo_ones << cf->f;
		cf->v2_carry = cf->lo_ones << (cf->f + cf->t);
		cf->v2_fpt = cf->v2_carry - cf->lo_ones;
		cf->v2_tails = cf->v2_carry - cf->v2_tone;
	}
	else
	{
		cf->lo_ones = 1 | (UINT64_C(1) << cf->w);
		cf->bucket_mask = (UINT64_C(1) << (2 * cf->w)) - 1;
	}
	cf->hi_bits = cf->lo_ones << (cf->f - 1);
}

static CF_ALWAYS_INLINE void
probe4_init(probe4 *P, const cf_filter *cf, uint32_t fp)
{
	cf_u128		ones = u128_of(cf->p2_ones);

	P->t = cf->t;
	P->tmask = cf->tmask;
	P->fpx = ones * fp;
	P->lo = u128_of(cf->p2_low);
	P->hi = u128_of(cf->p2_high);
	P->mask = u128_of(cf->p2_mask);
	P->tone = ones << cf->f;
}

static CF_ALWAYS_INLINE cf_u128
bucket128(const uint8_t *data, uint64_t pos)
{
	const uint8_t *p = data + (pos >> 3);

	return (((cf_u128) load_le64(p + 8) << 64) | load_le64(p)) >> (pos & 7);
}

/* Slots of the bucket whose fingerprint is fp, as bits f-1 of their fields. */
static CF_ALWAYS_INLINE cf_u128
probe4_fp(const probe4 *P, cf_u128 v)
{
	cf_u128		x = (v & P->mask) ^ P->fpx;

	return ~(((x & P->lo) + P->lo) | x) & P->hi;
}

/*
 * A probe word: the slots of a bucket that one 64-bit load at any bit offset
 * holds, four when w <= 16 (4w <= 64: 4w <= 57, or 4w = 60 at offsets 0
 * and 4, or 64 at 0, as the bucket offsets 4w * i fall), two when
 * w <= 28 (2w + 7 <= 63).  lo_ones, hi_bits and bucket_mask: bit 0 and bit
 * f-1 of each of its slots, its bits.
 */
static CF_ALWAYS_INLINE uint64_t
word_at(const cf_filter *cf, const uint8_t *d, uint64_t pos)
{
	return (load_le64(d + (pos >> 3)) >> (pos & 7)) & cf->bucket_mask;
}

/*
 * Whether a tail 2^s | spare fits the address bits ahi (its s spare bits
 * equal ahi's low s bits; slot_match's test): d = tail XOR ahi has no set
 * bit below s, i.e. the bits up to d's lowest set bit, d XOR (d - 1) (all
 * of them if d = 0), cover the tail.  No bit scan.
 */
static CF_ALWAYS_INLINE uint32_t
tail_fits(uint32_t tail, uint32_t ahi)
{
	uint32_t	d = tail ^ ahi;

	return (uint32_t) ((tail & ~(d ^ (d - 1))) == 0);
}

/*
 * Slots of the word whose fingerprint may be fpx's, as bit f-1 of their
 * fields: the zero-field test (x - L) & ~x & H (L: bit 0 of each slot) of
 * version 1.  Nonzero exactly when some slot's fingerprint is fp, and its
 * lowest set bit is such a slot; a borrow out of a matching field can also
 * flag slots above it (only when a slot's tail is 0, which a valid
 * growing filter never has; the lookups send any second flag to the
 * slot-by-slot test).
 */
static CF_ALWAYS_INLINE uint64_t
word_fp_any(const cf_filter *cf, uint64_t v, uint64_t fpx)
{
	uint64_t	x = v ^ fpx;

	return (x - cf->lo_ones) & ~x & cf->hi_bits;
}

/*
 * Whether the lowest flagged slot of the probe word v (z: word_fp_any's
 * flags) has a tail 2^s | spare whose s spare bits equal the low s bits of
 * ahi (the value's address bits above the bucket's resolution): 1 if z has
 * a flag and that slot's tail fits, without a branch (whether a present
 * value's entry lies in its first or its second bucket is a coin toss,
 * which a branch per bucket mispredicts half the time).  The tail begins
 * just above the flag (bit f-1 of the slot).  The lowest flag is always a
 * slot with the value's fingerprint; the other flagged slots, if any, are
 * left to the caller.  t > 0.
 */
static CF_ALWAYS_INLINE uint32_t
word_first_hit(const cf_filter *cf, uint64_t v, uint64_t z, uint32_t ahi)
{
	uint32_t	tail = (uint32_t) ((v >> 1) >> __builtin_ctzll(z | (UINT64_C(1) << 63))) & cf->tmask;

	return (uint32_t) (z != 0) & tail_fits(tail, ahi);
}

/* The same over a bucket of up to 120 bits (w <= 30) read as 128 bits;
 * every guard bit (at most bit 3w + f + t < 4w) is inside the word.  t > 0. */
static CF_ALWAYS_INLINE cf_u128
probe4_tails(const probe4 *P, cf_u128 v, cf_u128 z, uint32_t ahi)
{
	cf_u128		tails = P->tone * P->tmask,
				low = P->tone * (P->tmask >> 1);
	cf_u128		tl = v & tails;
	cf_u128		d = tl ^ ((cf_u128) (ahi & P->tmask) * P->tone);
	cf_u128		dg = d | (P->tone << P->t);
	cf_u128		x = tl & ~(dg ^ (dg - P->tone));

	return ~(((x & low) + low) | x) & (P->tone << (P->t - 1)) & (z << P->t);
}
#endif

/* shape: CF_SHAPE_ANY (tested here), or a shape the caller has tested */
#define CF_SHAPE_ANY	0
#define CF_SHAPE_W16	1		/* b = 4, w <= 16 */
#define CF_SHAPE_W28	2		/* b = 4, 16 < w <= 28 */
#define CF_SHAPE_SLOTS	3		/* any: slot by slot (bucket_matches) */

/* The victim's test, apart: the fast paths then need not keep the value's
 * parts alive past their bucket tests. */
static CF_NOINLINE bool
victim_matches_h(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r1,
				r2,
				i1,
				i2;

	v2_parts(cf, h, &v);
	i1 = locate2(cf, v.q, v.a, &r1);
	i2 = locate2(cf, v.q2, v.a2, &r2);
	return victim_matches2(cf, &v, i1, r1, i2, r2);
}

static CF_NOINLINE bool contains2_slots(const cf_filter *cf, uint64_t h);

static CF_ALWAYS_INLINE bool
contains2_at(const cf_filter *cf, uint64_t h, int shape)
{
	v2_hash		vh,
			   *v = &vh;
	uint32_t	r1,
				r2,
				i1,
				i2;
	uint32_t	hit;

	v2_parts(cf, h, v);
	if (shape == CF_SHAPE_W16 || shape == CF_SHAPE_W28 ||
		(shape == CF_SHAPE_ANY && cf->b == 4 && cf->w <= 28 && cf->lo_ones != 0))
	{
		/*
		 * w <= 16: a bucket is one probe word; w <= 28: two, of two slots.
		 * Fingerprint flags of every word (word_fp_any); when none is set,
		 * the value is absent from both buckets.  Otherwise each word's
		 * lowest flagged slot has its tail tested (word_first_hit), all
		 * without a branch; a word with a second flag (two entries with
		 * the value's fingerprint in one word: rare) sends the lookup to
		 * the slot-by-slot test.
		 */
		const uint8_t *d = cf->data;
		uint64_t	p1 = locate2_pos(cf, v->q, v->a, &r1),
					p2 = locate2_pos(cf, v->q2, v->a2, &r2);
		uint64_t	fpx = v->fp * cf->lo_ones;
		uint64_t	w1 = word_at(cf, d, p1),
					w2 = word_at(cf, d, p2);
		uint64_t	z1 = word_fp_any(cf, w1, fpx),
					z2 = word_fp_any(cf, w2, fpx);
		uint32_t	ahi1,
					ahi2;

		if (shape == CF_SHAPE_W16 || (shape == CF_SHAPE_ANY && cf->w <= 16))
		{
			if ((z1 | z2) != 0)
			{
				if (cf->t == 0)
					return true;
				ahi1 = v->a >> r1;
				ahi2 = v->a2 >> r2;
				if (word_first_hit(cf, w1, z1, ahi1) | word_first_hit(cf, w2, z2, ahi2))
					return true;
				if (((z1 & (z1 - 1)) | (z2 & (z2 - 1))) != 0)
					return contains2_slots(cf, h);
			}
		}
		else
		{
			uint64_t	w1b = word_at(cf, d, p1 + 2 * cf->w),
						w2b = word_at(cf, d, p2 + 2 * cf->w);
			uint64_t	z1b = word_fp_any(cf, w1b, fpx),
						z2b = word_fp_any(cf, w2b, fpx);

			if ((z1 | z2 | z1b | z2b) != 0)
			{
				if (cf->t == 0)
					return true;
				ahi1 = v->a >> r1;
				ahi2 = v->a2 >> r2;
				if (word_first_hit(cf, w1, z1, ahi1) | word_first_hit(cf, w1b, z1b, ahi1) |
					word_first_hit(cf, w2, z2, ahi2) | word_first_hit(cf, w2b, z2b, ahi2))
					return true;
				if (((z1 & (z1 - 1)) | (z1b & (z1b - 1)) | (z2 & (z2 - 1)) | (z2b & (z2b - 1))) != 0)
					return contains2_slots(cf, h);
			}
		}
		return victim_in_use(cf) && victim_matches_h(cf, h);
	}
	i1 = locate2(cf, v->q, v->a, &r1);
	i2 = locate2(cf, v->q2, v->a2, &r2);
#if defined(__SIZEOF_INT128__)
	if (shape == CF_SHAPE_ANY && cf->b == 4 && cf->w <= 30)
	{
		probe4		P;
		cf_u128		b1 = bucket128(cf->data, (uint64_t) i1 * cf->bucket_bits),
					b2 = bucket128(cf->data, (uint64_t) i2 * cf->bucket_bits),
					z1,
					z2;

		probe4_init(&P, cf, v->fp);
		z1 = probe4_fp(&P, b1);
		z2 = probe4_fp(&P, b2);
		if ((z1 | z2) != 0 &&
			(cf->t == 0 ||
			 (probe4_tails(&P, b1, z1, v->a >> r1) | probe4_tails(&P, b2, z2, v->a2 >> r2)) != 0))
			return true;
		return victim_in_use(cf) && victim_matches2(cf, v, i1, r1, i2, r2);
	}
#endif
	if (cf->b == 4)
		hit = bucket_matches(cf, i1, v->fp, v->a >> r1, 4) |
			bucket_matches(cf, i2, v->fp, v->a2 >> r2, 4);
	else
		hit = bucket_matches(cf, i1, v->fp, v->a >> r1, cf->b) |
			bucket_matches(cf, i2, v->fp, v->a2 >> r2, cf->b);
	return hit != 0 || victim_matches2(cf, v, i1, r1, i2, r2);
}

/* Each common shape has its own copy of the lookup, so that the compiler
 * keeps it in registers; cf2_open chooses the filter's (v2_contains), which
 * cf_contains jumps to. */
static CF_NOINLINE bool
contains2_any(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_ANY);
}

/* Slot by slot (slot_match): every shape; the fast paths' rare case. */
static CF_NOINLINE bool
contains2_slots(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_SLOTS);
}

static CF_NOINLINE bool
contains2_w16(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_W16);
}

static CF_NOINLINE bool
contains2_w28(const cf_filter *cf, uint64_t h)
{
	return contains2_at(cf, h, CF_SHAPE_W28);
}

/*
 * Shape B72 (target 0.001's default slots: f = 9, t = 9, g = 0, w = 18):
 * b = 4, buckets of a whole number of bytes (4w a multiple of 8), the four
 * fingerprints in the bucket's first 64 bits (3w + f <= 64) and the four
 * tails in its bits 8 .. 71 (f >= 8, 3w + f + t <= 72).  A bucket is then
 * two 64-bit loads at its first and second byte, without a shift: the first
 * gets version 1's exact zero-field test on the four fingerprint fields
 * (p2_low, p2_high: their low f-1 bits and bit f-1), one word per bucket
 * instead of two.  The tail test is done once, on the lowest flagged slot of
 * the first bucket that has a flag (a slot with the value's fingerprint);
 * when it fails and another slot of the pair has the fingerprint (about 7 in
 * 2^f of the lookups that reach it), the slot-by-slot lookup decides.
 */
static bool
shape_b72(const cf_filter *cf)
{
	return cf->b == 4 && cf->t > 0 && cf->f >= 8 && cf->p2_ones[0] != 0 &&
		(4 * cf->w) % 8 == 0 && 3 * cf->w + cf->f <= 64 &&
		3 * cf->w + cf->f + cf->t <= 72;
}

static CF_NOINLINE bool
contains2_b72(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r1,
				r2;
	const uint8_t *d = cf->data;
	const uint8_t *b1,
			   *b2;
	uint64_t	lo = cf->p2_low[0],
				hi = cf->p2_high[0];
	uint64_t	fpx,
				x1,
				x2,
				z1,
				z2;

	v2_parts(cf, h, &v);
	b1 = d + (locate2_pos(cf, v.q, v.a, &r1) >> 3);
	b2 = d + (locate2_pos(cf, v.q2, v.a2, &r2) >> 3);
	fpx = v.fp * cf->p2_ones[0];
	x1 = load_le64(b1) ^ fpx;
	x2 = load_le64(b2) ^ fpx;
	z1 = ~(((x1 & lo) + lo) | x1) & hi;
	z2 = ~(((x2 & lo) + lo) | x2) & hi;
	if ((z1 | z2) != 0)
	{
		/*
		 * The first flagged bucket, chosen with a mask: which bucket holds
		 * a present value is a coin toss, which a branch would mispredict
		 * half the time.  Its tails are bits 8 .. 71.
		 */
		uint64_t	t1 = load_le64(b1 + 1),
					t2 = load_le64(b2 + 1);
		uint64_t	m = (uint64_t) 0 - (uint64_t) (z1 != 0);
		uint64_t	z = z2 ^ ((z1 ^ z2) & m);
		uint64_t	tw = t2 ^ ((t1 ^ t2) & m);
		uint32_t	ahi1 = v.a >> r1,
					ahi2 = v.a2 >> r2;
		uint32_t	ahi = ahi2 ^ ((ahi1 ^ ahi2) & (uint32_t) m);
		uint32_t	tail = (uint32_t) (tw >> (__builtin_ctzll(z) - 7)) & cf->tmask;
		uint32_t	dd = tail ^ ahi;

		/* tail_fits for a nonzero tail: tail <= dd XOR (dd - 1) */
		if (tail - 1 < (dd ^ (dd - 1)))
			return true;
		if (((z1 != 0) & (z2 != 0)) | ((z & (z - 1)) != 0))
			return contains2_slots(cf, h);
	}
	return victim_in_use(cf) && victim_matches_h(cf, h);
}

/*
 * Shape W15 (target 0.01's default slots: f = 6, t = 9, g = 0, w = 15):
 * b = 4, a bucket in one 64-bit word (w <= 16), t > 0, and bit f + t of the
 * highest slot inside the word (3w + f + t <= 63).  Every slot of both
 * buckets is tested at once, fingerprint and tail together, without a bit
 * scan and without a branch before the answer (a first test of the
 * fingerprints alone, with a branch, flags about 1 absent lookup in 8 at
 * f = 6 and mispredicts there: measured no faster for absent values and
 * slower for present ones, docs/BENCHMARKS.md): with
 * y = (slot XOR (fp | (ahi mod 2^t) << f)) mod 2^(f+t), the slot matches
 * exactly when its tail bits and bit f all lie at or below y's lowest set
 * bit, i.e. ((tail << f) | 2^f) AND NOT (y XOR (y - 1)) = 0: a fingerprint
 * that differs puts y's lowest bit below f (and bit f outside the mask),
 * one that agrees puts it at f plus the lowest bit where tail and address
 * differ (FORMAT 13.5: the spare bits below the tail's marker agree).  The
 * y - 1 of every slot comes from one subtraction: a borrow crosses into
 * the slot above only from a y of 0, a match.  The zero test of the
 * result: adding the tail mask carries into bit f + t of each slot whose
 * result is not 0.
 */
static bool
shape_w15(const cf_filter *cf)
{
	return cf->b == 4 && cf->w <= 16 && cf->lo_ones != 0 && cf->t > 0 &&
		3 * cf->w + cf->f + cf->t <= 63;
}

static CF_ALWAYS_INLINE uint64_t
w15_misses(const cf_filter *cf, uint64_t v, uint64_t x)
{
	uint64_t	y = (v ^ x) & cf->v2_fpt;
	uint64_t	r = (v | cf->v2_tone) & cf->v2_tails & ~(y ^ (y - cf->lo_ones));

	return (r + cf->v2_tails) & cf->v2_carry;
}

static CF_NOINLINE bool
contains2_w15(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r1,
				r2;
	const uint8_t *d = cf->data;
	uint64_t	p1,
				p2,
				fpx,
				x1,
				x2,
				w1,
				w2;

	v2_parts(cf, h, &v);
	p1 = locate2_pos(cf, v.q, v.a, &r1);
	p2 = locate2_pos(cf, v.q2, v.a2, &r2);
	fpx = v.fp * cf->lo_ones;
	x1 = fpx | ((v.a >> r1) & cf->tmask) * cf->v2_tone;
	x2 = fpx | ((v.a2 >> r2) & cf->tmask) * cf->v2_tone;
	w1 = load_le64(d + (p1 >> 3)) >> (p1 & 7);
	w2 = load_le64(d + (p2 >> 3)) >> (p2 & 7);
	if ((w15_misses(cf, w1, x1) & w15_misses(cf, w2, x2)) != cf->v2_carry)
		return true;
	return victim_in_use(cf) && victim_matches_h(cf, h);
}

static void
v2_choose_lookup(cf_filter *cf)
{
	if (shape_w15(cf))
		cf->v2_contains = contains2_w15;
	else if (cf->b == 4 && cf->w <= 16 && cf->lo_ones != 0)
		cf->v2_contains = contains2_w16;
	else if (shape_b72(cf))
		cf->v2_contains = contains2_b72;
	else if (cf->b == 4 && cf->w <= 28 && cf->lo_ones != 0)
		cf->v2_contains = contains2_w28;
	else
		cf->v2_contains = contains2_any;
}

/* The lookup cf_open chose (v2_contains), by shape name: for the tests. */
const char *
cf2_lookup_name(const cf_filter *cf)
{
	if (cf->v2_contains == contains2_w15)
		return "w15";
	if (cf->v2_contains == contains2_b72)
		return "b72";
	if (cf->v2_contains == contains2_w16)
		return "w16";
	if (cf->v2_contains == contains2_w28)
		return "w28";
	return "any";
}

bool
cf2_contains(const cf_filter *cf, uint64_t h)
{
	return cf->v2_contains(cf, h);
}

void
cf2_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out)
{
	for (size_t j = 0; j < n; j++)
	{
		v2_hash		v;

		if (j + 8 < n)
		{
			uint32_t	r,
						i1,
						i2;

			v2_parts(cf, h[j + 8], &v);
			i1 = locate2(cf, v.q, v.a, &r);
			i2 = locate2(cf, v.q2, v.a2, &r);
			prefetch_bucket(cf, i1);
			prefetch_bucket(cf, i2);
		}
		out[j] = contains2_at(cf, h[j], CF_SHAPE_ANY);
	}
}

/* Requests the two candidate buckets of h (cf_contains_each's pipeline). */
void
cf2_prefetch(const cf_filter *cf, uint64_t h)
{
	v2_hash		v;
	uint32_t	r;

	v2_parts(cf, h, &v);
	prefetch_bucket(cf, locate2(cf, v.q, v.a, &r));
	prefetch_bucket(cf, locate2(cf, v.q2, v.a2, &r));
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
		return cf2_contains(cf, h) ? CF_EXISTS : cf2_insert(cf, h);
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

/* ------------------------------------------------------------------------
 * Re-homing entries into a table of another geometry (union, compaction)
 * ------------------------------------------------------------------------ */

/*
 * Stores the entry whose known address bits are the low L bits of a (bucket
 * mantissa q) into dst, in every bucket its bits cannot tell apart (Aleph
 * duplication when dst needs more bits than it knows).  With want > 0 (union)
 * a bucket already holding `want` identical slots gets none.  *added counts
 * the slots stored at the first bucket; false when an entry would need the
 * victim slot while it is taken (dst is valid, the entry is lost: the caller
 * fails).
 */
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
		if (!v2_grow(dst, 1))
			return false;
		if (i >= dst->m || bucket_res(dst, i) != res || dst->t != t0)
		{
			/* a split moved this bucket's contents: place anew */
			return rehome(dst, fp, a, L, gen, q, want ? want : n - have, added, first, cover);
		}
		v2_add_entries(dst, 1);
		if (first)
			(*added)++;
		if (!place2(dst, i, e))
		{
			if (victim_in_use(dst))
			{
				uint32_t	j,
							e2;

				if (!(slot_alt(dst, i, e, &j, &e2) && place2(dst, j, e2)))
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
	if (src->version != CF_VERSION_2 || dst->b != src->b || dst->f != src->f ||
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
 * Rotation
 * ------------------------------------------------------------------------ */

static void
rotate_in_place(cf_filter *cf, uint32_t keep)
{
	uint32_t	cur = (v2_cur_gen(cf) + 1) & cf->gmask;
	uint32_t	vb,
				ve;
	uint64_t	items = header_items(cf);

	cf->buf[CF_V2_OFF_CUR_GEN] = (uint8_t) cur;
	cf->buf[CF_V2_OFF_KEEP] = (uint8_t) keep;
	for (uint32_t i = 0; i < cf->m; i++)
	{
		CF_CHECK_INTERRUPTS(i);
		for (uint32_t j = 0; j < cf->b; j++)
		{
			uint32_t	e = rd_slot(cf, i, j);

			if (e != 0 && slot_age(cf, e) >= keep)
			{
				wr_slot(cf, i, j, 0);
				v2_add_entries(cf, -1);
			}
		}
	}
	if (v2_victim(cf, &vb, &ve) && slot_age(cf, ve) >= keep)
	{
		clear_victim(cf);
		v2_add_entries(cf, -1);
	}
	for (uint32_t x = 0; x <= cf->gmask; x++)
	{
		if (((cur - x) & cf->gmask) >= keep)
		{
			items -= rd64(gi_at(cf, x));
			wr64(gi_at(cf, x), 0);
		}
	}
	/* items <= entries: the oldest generations give way */
	for (uint32_t age = keep; age-- > 0 && items > v2_entries(cf);)
	{
		uint8_t    *p = gi_at(cf, (cur - age) & cf->gmask);
		uint64_t	cut = items - v2_entries(cf);

		if (cut > rd64(p))
			cut = rd64(p);
		wr64(p, rd64(p) - cut);
		items -= cut;
	}
	wr64(cf->buf + CF_V2_OFF_ITEMS, items);
	victim_retry(cf);
}

/* The tail bits of a version-2 src rotated to g generation bits. */
static uint32_t
rotate_tail(const cf_filter *src, uint32_t g)
{
	uint32_t	t = src->t;

	if (src->budget && g > src->g)
	{
		int			tt = cf_budget_tail(src->c, src->k, src->f, g);

		if (tt >= CF_V2_MIN_TAIL_BITS && (uint32_t) tt < t)
			t = (uint32_t) tt;
	}
	return t;
}

/* A slot of src with its tail cut to t bits (the lowest spare bits kept)
 * and no generation field. */
static uint32_t
rotate_fp_tail(const cf_filter *src, uint32_t e, uint32_t t)
{
	uint32_t	tail = slot_tail(src, e);
	uint32_t	s = log2_32(tail);

	if (src->t && s >= t)
		tail = (UINT32_C(1) << (t - 1)) | (tail & mask32(t - 1));
	return (e & src->fp_mask) | (tail << src->f);
}

/* Generation bits a rotation with keep needs for a filter with g bits. */
static uint32_t
rotate_gen_bits(uint32_t g, uint32_t keep)
{
	while ((UINT32_C(1) << g) <= keep)
		g++;
	return g;
}

size_t
cf_rotate_bytes(const cf_filter *src, uint32_t keep)
{
	uint32_t	g,
				t,
				b = src->b;
	uint64_t	total;

	if (keep < 1 || keep > CF_MAX_KEEP)
		return 0;
	if (src->version == CF_VERSION_2)
	{
		g = rotate_gen_bits(src->g, keep);
		/* docs/FORMAT.md 13.12 rules 1 and 6: the tail gives way */
		if (src->budget && g > src->g &&
			cf_budget_tail(src->c, src->k, src->f, g) < CF_V2_MIN_TAIL_BITS)
			return 0;
		t = rotate_tail(src, g);
	}
	else
	{
		g = rotate_gen_bits(0, keep);
		t = 0;
	}
	if (src->f + t + g > 32)
		return 0;
	total = cf2_total_bytes(src->m, b, src->f + t + g, g);
	if (total > CF_MAX_BYTES)
		return 0;
	return (size_t) total;
}

void
cf_rotate(const cf_filter *src, uint32_t keep, void *dst)
{
	uint8_t    *h = dst;
	size_t		len = cf_rotate_bytes(src, keep);
	cf_filter	d;
	uint32_t	g = src->version == CF_VERSION_2 ? rotate_gen_bits(src->g, keep) : rotate_gen_bits(0, keep);

	if (len == 0)
		return;
	if (src->version == CF_VERSION_2 && g == src->g)
	{
		memcpy(h, src->buf, len);
		cf2_open(&d, h, len);
		rotate_in_place(&d, keep);
		CF_ASSERT_VALID(&d, "cf_rotate");
		return;
	}
	memset(h, 0, len);
	wr32(h + CF_V2_OFF_MAGIC, CF_MAGIC);
	h[CF_V2_OFF_VERSION] = CF_VERSION_2;
	h[CF_V2_OFF_BUCKET_SIZE] = (uint8_t) src->b;
	h[CF_V2_OFF_FP_BITS] = (uint8_t) src->f;
	h[CF_V2_OFF_FLAGS] = src->version == CF_VERSION_2 && src->grows ?
		(src->budget ? CF_FLAG_GROWS | CF_FLAG_BUDGET : CF_FLAG_GROWS) : 0;
	wr16(h + CF_V2_OFF_KIND, cf_kind_of(src));
	/* the tail of the result's width (13.12 rule 6: narrower with a budget) */
	h[CF_V2_OFF_TAIL_BITS] = (uint8_t) (src->version == CF_VERSION_2 ? rotate_tail(src, g) : 0);
	h[CF_V2_OFF_GEN_BITS] = (uint8_t) g;
	wr32(h + CF_V2_OFF_TYPE_TAG, cf_type_tag(src));
	wr32(h + CF_V2_OFF_NUM_BUCKETS, src->m);
	wr32(h + CF_V2_OFF_MAX_KICKS, src->max_kicks);
	wr64(h + CF_V2_OFF_ITEMS, cf_items(src));
	wr64(h + CF_V2_OFF_CAPACITY, cf_capacity(src));
	wr16(h + CF_V2_OFF_MANTISSA, (uint16_t) src->c);
	if (src->version == CF_VERSION_2)
	{
		h[CF_V2_OFF_CUR_GEN] = (uint8_t) v2_cur_gen(src);
		h[CF_V2_OFF_KEEP] = (uint8_t) v2_keep(src);
		wr32(h + CF_V2_OFF_INITIAL_BUCKETS, rd32(src->buf + CF_V2_OFF_INITIAL_BUCKETS));
		wr64(h + CF_V2_OFF_ENTRIES, v2_entries(src));
	}
	else
	{
		wr32(h + CF_V2_OFF_INITIAL_BUCKETS, src->m);
		wr64(h + CF_V2_OFF_ENTRIES, cf_items(src));
	}
	cf2_open(&d, h, len);
	if (src->version == CF_VERSION_2)
	{
		uint32_t	cur = v2_cur_gen(src);

		/* same ages under wider tags */
		for (uint32_t age = 0; age <= src->gmask; age++)
			wr64(gi_at(&d, (cur - age) & d.gmask),
				 src->g ? rd64(gi_at(src, (cur - age) & src->gmask)) : (age == 0 ? cf_items(src) : 0));
		for (uint32_t i = 0; i < src->m; i++)
		{
			CF_CHECK_INTERRUPTS(i);
			for (uint32_t j = 0; j < src->b; j++)
			{
				uint32_t	e = rd_slot(src, i, j);

				if (e)
					wr_slot(&d, i, j, rotate_fp_tail(src, e, d.t) |
							(((cur - slot_age(src, e)) & d.gmask) << (d.f + d.t)));
			}
		}
		if (victim_in_use(src))
		{
			uint32_t	ve = rd32(src->buf + CF_V2_OFF_VICTIM_SLOT);

			set_victim(&d, rd32(src->buf + CF_V2_OFF_VICTIM_BUCKET),
					   rotate_fp_tail(src, ve, d.t) |
					   (((cur - slot_age(src, ve)) & d.gmask) << (d.f + d.t)));
		}
	}
	else
	{
		/* version 1: bucket (q << k) | r becomes r * c + q, generation 0 */
		wr64(gi_at(&d, 0), cf_items(src));
		for (uint32_t i = 0; i < src->m; i++)
		{
			uint32_t	fps[8];
			uint32_t	ni = (i & src->rmask) * src->c + (i >> src->k);

			CF_CHECK_INTERRUPTS(i);
			read_bucket(src, i, fps);
			for (uint32_t j = 0; j < src->b; j++)
				if (fps[j])
					wr_slot(&d, ni, j, fps[j]);
		}
		if (victim_in_use(src))
		{
			uint32_t	vb = rd32(src->buf + CF_OFF_VICTIM_BUCKET);

			set_victim(&d, (vb & src->rmask) * src->c + (vb >> src->k),
					   rd32(src->buf + CF_OFF_VICTIM_FP));
		}
	}
	rotate_in_place(&d, keep);
	CF_ASSERT_VALID(&d, "cf_rotate");
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
	if (src->version != CF_VERSION_2 || (n = compact_buckets(src, attempt)) == 0)
		return 0;
	*m = n;
	return (size_t) cf2_total_bytes(n, src->b, compact_w(src, n), src->g);
}

size_t
cf_compact_fresh_bytes(const cf_filter *src)
{
	uint64_t	n = cf_items(src),
				m;

	if (src->version != CF_VERSION_2)
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

	if (src->version != CF_VERSION_2 || m < src->c || m > src->m ||
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

	if (src->version != CF_VERSION_2 || len != cf_compact_try_bytes(src, 0, &m))
		return CF_SHAPE_MISMATCH;
	return cf_compact_try_into(src, m, dst, len);
}

/* ------------------------------------------------------------------------
 * Information
 * ------------------------------------------------------------------------ */

void
cf_get_info(const cf_filter *cf, cf_info *out)
{
	memset(out, 0, sizeof *out);
	if (cf->version != CF_VERSION_2)
	{
		out->version = CF_VERSION;
		out->c = cf->c;
		out->k = cf->k;
		out->initial_buckets = cf->m;
		out->entries = cf_items(cf);
		out->generations = 1;
		out->gen_items[0] = cf_items(cf);
		return;
	}
	out->version = CF_VERSION_2;
	out->expansion = cf->grows ? 2 : 0;
	out->addr_budget = cf->budget ? cf->abits : 0;
	out->tail_bits = cf->t;
	out->gen_bits = cf->g;
	out->c = cf->c;
	out->k = cf->k;
	out->split = cf->split;
	out->initial_buckets = rd32(cf->buf + CF_V2_OFF_INITIAL_BUCKETS);
	out->entries = v2_entries(cf);
	out->cur_gen = v2_cur_gen(cf);
	out->keep = v2_keep(cf);
	if (cf->g == 0)
	{
		out->generations = 1;
		out->gen_items[0] = cf_items(cf);
		return;
	}
	out->generations = out->keep ? out->keep : 1;
	for (uint32_t age = 0; age < out->generations; age++)
		out->gen_items[age] = rd64(gi_at(cf, (out->cur_gen - age) & cf->gmask));
}
