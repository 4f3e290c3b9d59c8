/*
 * cf_v2.h
 *     Format version 2 (issue 11; docs/FORMAT.md section 13, docs/DESIGN.md
 *     "Growth and rotation"): filters that grow by linear hashing and filters
 *     that rotate through generations.  What the files of format 2 share:
 *     the sizes, header fields, slot and address arithmetic (static inline,
 *     so that the per-item paths compile as they did in one file) and,
 *     grouped by the file that defines it, what each lends the others.
 *     Internal to src/core/.
 *
 * One table of m = c * 2^k + split buckets, stored r-major (bucket index
 * i = r * c + q), so that splitting bucket `split` appends bucket
 * c * 2^k + split at the end.  A slot of w = f + t + g bits holds a
 * fingerprint (low f bits, non-zero), a tail (t bits: 2^s | spare, the s
 * spare address bits of its bucket beyond the bucket's resolution) and a
 * generation tag (g bits).  The design and its measurements are in
 * docs/GROWTH_RESEARCH.md; the logic follows its prototype
 * (bench/growth_proto/proto.c, at commit 59c7deb).
 */
#ifndef CF_V2_H
#define CF_V2_H

#include "cf_ops.h"

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

static inline uint32_t
v2_hdr_bytes(uint32_t g)
{
	return CF_V2_HEADER_SIZE + (g ? (8u << g) : 0);
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

static inline bool
v2_over_load(const cf_filter *cf, uint64_t extra)
{
	return (v2_entries(cf) + extra) * CF_V2_SPLIT_DEN >
		(uint64_t) CF_V2_SPLIT_NUM * cf->b * cf->m;
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

/* ------------------------------------------------------------------------
 * What the files of format 2 lend each other, by the file that defines it
 * ------------------------------------------------------------------------ */

/* cf_v2_header.c */
extern bool cf2_check_params(const cf_params *p, char *err, size_t errlen) CF_HIDDEN;
extern void cf2_init(void *buf, const cf_params *p) CF_HIDDEN;
extern uint64_t cf2_init_bytes(const cf_params *p) CF_HIDDEN;
extern void cf2_get_params(const cf_filter *cf, cf_params *p) CF_HIDDEN;
extern void cf2_get_info(const cf_filter *cf, cf_info *out) CF_HIDDEN;
extern uint64_t cf2_total_bytes(uint64_t m, uint32_t b, uint32_t w, uint32_t g) CF_HIDDEN;
extern void cf2_open(cf_filter *cf, const void *buf, size_t len) CF_HIDDEN;
extern void v2_set_geometry(cf_filter *cf) CF_HIDDEN;
extern void v2_refresh(cf_filter *cf) CF_HIDDEN;

/* cf_v2_grow.c */
/* The largest value a growing filter may reach (CF_MAX_BYTES; tests lower it). */
extern uint64_t cf_v2_limit_bytes;
extern bool v2_reserve(cf_filter *cf, uint64_t need) CF_HIDDEN;
extern uint64_t v2_max_buckets(const cf_filter *cf) CF_HIDDEN;
extern bool v2_grow(cf_filter *cf, uint64_t extra) CF_HIDDEN;
extern void v2_relieve(cf_filter *cf) CF_HIDDEN;
extern bool v2_split_pair(cf_filter *cf, uint32_t i1, uint32_t i2) CF_HIDDEN;

/* cf_v2_validate.c */
extern bool cf2_check_header(const void *buf, size_t len, char *err, size_t errlen) CF_HIDDEN;
extern bool cf2_validate(const void *buf, size_t len, char *err, size_t errlen) CF_HIDDEN;

/* cf_v2_store.c */
extern void v2_item_added(cf_filter *cf, uint32_t gen) CF_HIDDEN;
extern bool slot_alt(const cf_filter *cf, uint32_t i, uint32_t e, uint32_t *j, uint32_t *e2) CF_HIDDEN;
extern bool v2_place(cf_filter *cf, uint32_t i, uint32_t e) CF_HIDDEN;
extern void v2_journal_undo(cf_filter *cf, const v2_journal *jr) CF_HIDDEN;
extern bool v2_store(cf_filter *cf, uint32_t i, uint32_t e, uint64_t seed) CF_HIDDEN;
extern bool v2_store_journal(cf_filter *cf, uint32_t i, uint32_t e, uint64_t seed, v2_journal *jr) CF_HIDDEN;
extern void victim_try_direct(cf_filter *cf) CF_HIDDEN;
extern void victim_retry(cf_filter *cf) CF_HIDDEN;

/* cf_v2_table.c */
extern cf_status cf2_insert(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern size_t cf2_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st) CF_HIDDEN;
extern uint32_t cf2_count(const cf_filter *cf, uint64_t h) CF_HIDDEN;
extern bool cf2_remove(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern int	cf2_remove_saturating(cf_filter *cf, uint64_t h, uint32_t level) CF_HIDDEN;
extern cf_status cf2_insert_if_absent(cf_filter *cf, uint64_t h) CF_HIDDEN;
extern void cf2_buckets(const cf_filter *cf, uint64_t h, uint32_t *i1, uint32_t *i2) CF_HIDDEN;
extern size_t cf2_insert_if_absent_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st) CF_HIDDEN;

/* cf_v2_lookup.c */
/* the lookup cf2_open chose, by shape name: for the tests */
extern const char *cf2_lookup_name(const cf_filter *cf) CF_HIDDEN;
#if defined(__SIZEOF_INT128__)
extern void v2_probe4_setup(cf_filter *cf) CF_HIDDEN;
#endif
extern void v2_choose_lookup(cf_filter *cf) CF_HIDDEN;
extern void cf2_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out) CF_HIDDEN;

/* cf_v2_union.c */
extern cf_status cf2_union_into(cf_filter *dst, const cf_filter *src) CF_HIDDEN;

#endif							/* CF_V2_H */
