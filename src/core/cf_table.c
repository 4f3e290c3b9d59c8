/*
 * cf_table.c
 *     Format 1's item operations: partial-key cuckoo hashing over
 *     m = c * 2^k buckets (insert, lookup, count, delete), one at a time and
 *     batched, for every shape (the generic functions; cf_shape.c has the
 *     specialised ones cf1_open chooses for the common shapes).
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_v1.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t
cf_hash_bytes(const void *data, size_t len)
{
	return XXH3_64bits(data, len);
}

uint64_t
cf_hash_u64(uint64_t v)
{
	uint8_t		b[8];

	wr64(b, v);
	return XXH3_64bits(b, 8);
}

void
cf_locate(const cf_filter *cf, uint64_t h, uint32_t *fp, uint32_t *i1)
{
	locate(cf, h, fp, i1);
}

uint32_t
cf_alt_bucket(const cf_filter *cf, uint32_t i, uint32_t fp)
{
	return alt_bucket(cf, i, fp);
}

/*
 * The first kick, breadth-first: if an entry of bucket i1 or i2 has room in
 * its own alternate bucket, it moves there and fp takes its place.  The (up
 * to) 2b alternate buckets are requested from memory together, so this costs
 * about one memory round trip where each step of a random walk costs one of
 * its own; near full load it settles most inserts that need a kick (fills
 * got about 1.5x faster: docs/BENCHMARKS.md).  Deterministic: candidates are
 * tried in bucket and slot order.  Counts as the first of max_kicks.
 */
static bool
move_one_aside(cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	home[16],
				slot[16],
				moved[16],
				alt[16];
	uint32_t	nc = 0;

	for (int side = 0; side < 2; side++)
	{
		uint32_t	bi = side ? i2 : i1;
		uint32_t	fps[8];

		if (side && i2 == i1)
			break;
		read_bucket(cf, bi, fps);
		for (uint32_t j = 0; j < cf->b; j++)
		{
			home[nc] = bi;
			slot[nc] = j;
			moved[nc] = fps[j];
			alt[nc] = alt_bucket(cf, bi, fps[j]);
			prefetch_bucket(cf, alt[nc]);
			nc++;
		}
	}
	for (uint32_t c = 0; c < nc; c++)
	{
		uint32_t	fps[8];

		if (alt[c] == home[c] || !bucket_place(cf, alt[c], moved[c]))
			continue;
		read_bucket(cf, home[c], fps);
		fps[slot[c]] = fp;
		write_bucket(cf, home[c], fps);
		return true;
	}
	return false;
}

/* True when both buckets of the pair hold nothing but fp. */
static bool
pair_only_fp(const cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	n = bucket_count_fp(cf, i1, fp);

	if (i2 == i1)
		return n == cf->b;
	return n == cf->b && bucket_count_fp(cf, i2, fp) == cf->b;
}

/*
 * Stores fp with first candidate bucket i1 (the alternate is derived).
 * Algorithm 1 of the paper with a random victim on each kick; when the kicks
 * run out, the fingerprint left in hand goes to the victim slot, where
 * lookups still see it, and the filter is full.
 */
cf_status
cf_insert_fingerprint(cf_filter *cf, uint32_t i1, uint32_t fp, uint64_t seed, bool check_copies)
{
	uint32_t	i2 = alt_bucket(cf, i1, fp);
	uint32_t	i;
	uint64_t	rng;

	CF_ASSERT(i1 < cf->m && fp >= 1 && fp <= cf->fp_range);

	if (bucket_place(cf, i1, fp) || (i2 != i1 && bucket_place(cf, i2, fp)))
	{
		add_items(cf, 1);
		return CF_OK;
	}
	if (check_copies && pair_only_fp(cf, i1, i2, fp))
		return CF_TOO_MANY_COPIES;
	if (victim_in_use(cf))
		return CF_FULL;

	if (cf->max_kicks > 0 && move_one_aside(cf, i1, i2, fp))
	{
		add_items(cf, 1);
		return CF_OK;
	}

	rng = rng_seed(seed, ((uint64_t) i1 << 32) | fp);
	i = (rng_next(&rng) & 1) ? i2 : i1;
	for (uint32_t n = 1; n < cf->max_kicks; n++)
	{
		uint32_t	fps[8];
		uint32_t	slot = (uint32_t) (rng_next(&rng) >> 32) & (cf->b - 1);
		uint32_t	out;
		uint64_t	pos = (uint64_t) i * cf->bucket_bits;

		if (plain_word_bucket(cf, pos))
		{
			/* swap the entry in one load and one store */
			uint8_t    *p = cf->data + (pos >> 3);
			unsigned	at = (unsigned) (pos & 7) + slot * cf->f;
			uint64_t	w = load_le64(p);

			out = (uint32_t) (w >> at) & cf->fp_mask;
			w = (w & ~((uint64_t) cf->fp_mask << at)) | ((uint64_t) fp << at);
			store_le64(p, w);
		}
		else
		{
			read_bucket(cf, i, fps);
			out = fps[slot];
			fps[slot] = fp;
			write_bucket(cf, i, fps);
		}
		fp = out;
		i = alt_bucket(cf, i, fp);
		if (bucket_place(cf, i, fp))
		{
			add_items(cf, 1);
			return CF_OK;
		}
	}
	set_victim(cf, i, fp);
	add_items(cf, 1);
	return CF_OK_STASHED;
}

/* An insert for every shape (the specialised ones: cf_choose_paths). */
cf_status
cf_insert_generic(cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1;

	cf_status	st;

	locate(cf, h, &fp, &i1);
	st = cf_insert_fingerprint(cf, i1, fp, h ^ header_items(cf), true);
	CF_ASSERT_HEADER(cf);
	return st;
}

/*
 * Inserts h[0 .. n-1] in order, as cf_insert would, while the buckets of the
 * insert CF_BATCH_AHEAD places later are being fetched from memory (a build
 * from a list of hashes otherwise waits for a cache miss at nearly every
 * insert).  Stops at the first status other than CF_OK; returns how many
 * were stored with CF_OK and sets *st to that status (CF_OK if all were).
 */
size_t
cf1_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st)
{
	for (size_t j = 0; j < n; j++)
	{
		cf_status	s;

		if (j + CF_BATCH_AHEAD < n)
		{
			uint32_t	fp,
						i1;

			locate(cf, h[j + CF_BATCH_AHEAD], &fp, &i1);
			prefetch_bucket(cf, i1);
			prefetch_bucket(cf, alt_bucket(cf, i1, fp));
		}
		CF_CHECK_INTERRUPTS(j + 1);
		s = cf->insert_fn(cf, h[j]);
		if (s != CF_OK)
		{
			*st = s;
			return j;
		}
	}
	*st = CF_OK;
	return n;
}

cf_status
cf1_insert_if_absent(cf_filter *cf, uint64_t h)
{
	if (cf->contains_fn(cf, h))
		return CF_EXISTS;
	return cf->insert_fn(cf, h);
}

static CF_ALWAYS_INLINE bool
contains_at(const cf_filter *cf, uint32_t fp, uint32_t i1, uint32_t i2)
{
	return bucket_has_fp(cf, i1, fp) || bucket_has_fp(cf, i2, fp) ||
		victim_matches(cf, fp, i1, i2);
}

/*
 * Other shapes (semi-sorted, or buckets wider than a word).  Both buckets are
 * requested before either is read: a negative lookup, the common case of a
 * prefilter, then waits for one memory round trip, not two.
 */
static CF_NOINLINE bool
contains_general(const cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1,
				i2;

	locate(cf, h, &fp, &i1);
	i2 = alt_bucket(cf, i1, fp);
	prefetch_bucket(cf, i2);
	return contains_at(cf, fp, i1, i2);
}

/*
 * A lookup for every format-1 shape (the specialised ones: cf_choose_paths,
 * which only cf1_open calls).
 */
bool
cf_contains_generic(const cf_filter *cf, uint64_t h)
{
	word_probe	w;
	uint32_t	fp,
				i1,
				i2;

	if (cf->word_probe)
	{
		word_probe_init(&w, cf);
		word_probe_locate(&w, h, &fp, &i1, &i2);
		return word_probe_test(&w, fp, i1, i2) || victim_matches(cf, fp, i1, i2);
	}
	if (cf->ss_word_probe)
	{
		/* semi-sorted buckets that fit a word: both loaded, then decoded */
		uint64_t	p1,
					p2,
					w1,
					w2;

		word_probe_init(&w, cf);
		word_probe_locate(&w, h, &fp, &i1, &i2);
		p1 = (uint64_t) i1 * w.bucket_bits;
		p2 = (uint64_t) i2 * w.bucket_bits;
		w1 = (load_le64(w.data + (p1 >> 3)) >> (p1 & 7)) & w.bucket_mask;
		w2 = (load_le64(w.data + (p2 >> 3)) >> (p2 & 7)) & w.bucket_mask;
		return ((int) ss_word_has_fp(cf, w1, fp) | (int) ss_word_has_fp(cf, w2, fp)) ||
			victim_matches(cf, fp, i1, i2);
	}
	return contains_general(cf, h);
}

/*
 * Lookups of n hashes, pipelined: the buckets of lookup j + CF_BATCH_AHEAD
 * are requested while lookup j is answered, so up to 2 * CF_BATCH_AHEAD
 * cache misses are in flight instead of one or two.
 */
void
cf_contains_many_generic(const cf_filter *cf, const uint64_t *h, size_t n, bool *out)
{
	uint32_t	fps[CF_BATCH_AHEAD],
				b1[CF_BATCH_AHEAD],
				b2[CF_BATCH_AHEAD];
	size_t		ahead = n < CF_BATCH_AHEAD ? n : CF_BATCH_AHEAD;
	word_probe	w;

	if (!cf->word_probe)
	{
		for (size_t j = 0; j < ahead; j++)
		{
			locate(cf, h[j], &fps[j], &b1[j]);
			b2[j] = alt_bucket(cf, b1[j], fps[j]);
			prefetch_bucket(cf, b1[j]);
			prefetch_bucket(cf, b2[j]);
		}
		for (size_t j = 0; j < n; j++)
		{
			size_t		s = j % CF_BATCH_AHEAD;

			out[j] = contains_at(cf, fps[s], b1[s], b2[s]);
			if (j + CF_BATCH_AHEAD < n)
			{
				locate(cf, h[j + CF_BATCH_AHEAD], &fps[s], &b1[s]);
				b2[s] = alt_bucket(cf, b1[s], fps[s]);
				prefetch_bucket(cf, b1[s]);
				prefetch_bucket(cf, b2[s]);
			}
		}
		return;
	}
	word_probe_init(&w, cf);
	for (size_t j = 0; j < ahead; j++)
	{
		word_probe_locate(&w, h[j], &fps[j], &b1[j], &b2[j]);
		word_probe_prefetch(&w, b1[j]);
		word_probe_prefetch(&w, b2[j]);
	}
	for (size_t j = 0; j < n; j++)
	{
		size_t		s = j % CF_BATCH_AHEAD;
		uint32_t	fp = fps[s],
					i1 = b1[s],
					i2 = b2[s];

		if (j + CF_BATCH_AHEAD < n)
		{
			word_probe_locate(&w, h[j + CF_BATCH_AHEAD], &fps[s], &b1[s], &b2[s]);
			word_probe_prefetch(&w, b1[s]);
			word_probe_prefetch(&w, b2[s]);
		}
		out[j] = word_probe_test(&w, fp, i1, i2) || victim_matches(cf, fp, i1, i2);
	}
}

/* Copies of fp in the pair (i1, i2), the victim slot included. */
uint32_t
cf_pair_count(const cf_filter *cf, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	n = bucket_count_fp(cf, i1, fp);

	if (i2 != i1)
		n += bucket_count_fp(cf, i2, fp);
	return n + (victim_matches(cf, fp, i1, i2) ? 1 : 0);
}

uint32_t
cf1_count(const cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1;

	locate(cf, h, &fp, &i1);
	return cf_pair_count(cf, i1, alt_bucket(cf, i1, fp), fp);
}

/* The two candidate buckets of h (cf_slice.c). */
void
cf1_buckets(const cf_filter *cf, uint64_t h, uint32_t *i1, uint32_t *i2)
{
	uint32_t	fp;

	locate(cf, h, &fp, i1);
	*i2 = alt_bucket(cf, *i1, fp);
}

/* After an entry was freed, moves the victim back into the table if it can. */
void
cf1_reinsert_victim(cf_filter *cf)
{
	uint32_t	vb,
				vfp;

	if (!victim_in_use(cf))
		return;
	vb = rd32(cf->buf + CF_OFF_VICTIM_BUCKET);
	vfp = rd32(cf->buf + CF_OFF_VICTIM_FP);
	clear_victim(cf);
	add_items(cf, -1);
	(void) cf_insert_fingerprint(cf, vb, vfp, header_items(cf), false);
}

/* A delete for every shape (the specialised ones: cf_choose_paths). */
bool
cf_remove_generic(cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1,
				i2;

	locate(cf, h, &fp, &i1);
	i2 = alt_bucket(cf, i1, fp);
	if (bucket_take(cf, i1, fp) || (i2 != i1 && bucket_take(cf, i2, fp)))
	{
		add_items(cf, -1);
		cf1_reinsert_victim(cf);
		CF_ASSERT_HEADER(cf);
		return true;
	}
	if (victim_matches(cf, fp, i1, i2))
	{
		clear_victim(cf);
		add_items(cf, -1);
		CF_ASSERT_HEADER(cf);
		return true;
	}
	return false;
}
