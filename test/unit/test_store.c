/*
 * test_store.c
 *     Unit tests of the core: routing of a hash to a segment of a stored
 *     filter (cf_store_segment, docs/FORMAT.md section 14).
 */
#include "unit.h"
#include "cf_store.h"

#include <stdlib.h>

/* The specification's steps, written out again. */
static uint32_t
ref_segment(uint64_t h, uint32_t s)
{
	uint64_t	x = h;

	x = x ^ (x >> 33);
	x = x * UINT64_C(0xFF51AFD7ED558CCD);
	x = x ^ (x >> 33);
	x = x * UINT64_C(0xC4CEB9FE1A85EC53);
	x = x ^ (x >> 33);
	return (uint32_t) (((x >> 32) * (uint64_t) s) >> 32);
}

/* the example of FORMAT.md section 14: cuckoo_hash(42::int8) */
static void
test_example(void)
{
	t_begin();
	CHECK(cf_store_segment(UINT64_C(0xD5A6F8C838DF27C8), 1024) == 185,
		  "42 -> segment %u, not 185", cf_store_segment(UINT64_C(0xD5A6F8C838DF27C8), 1024));
	CHECK(cf_store_segment(0, 1) == 0 && cf_store_segment(UINT64_MAX, 1) == 0, "S = 1");
done:
	t_end("cf_store_segment: FORMAT.md example");
}

/* always in range, and as specified */
static void
test_range(void)
{
	static const uint32_t counts[] = {1, 2, 3, 13, 1000, 1024, 65537, 2147483647u, 4294967295u};
	uint64_t	seed = 2126;

	t_begin();
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		for (int i = 0; i < 100000; i++)
		{
			uint64_t	h = sm64(&seed);
			uint32_t	s = cf_store_segment(h, counts[c]);

			CHECK(s < counts[c], "segment %u of %u", s, counts[c]);
			CHECK(s == ref_segment(h, counts[c]), "h %" PRIx64 " S %u", h, counts[c]);
		}
done:
	t_end("cf_store_segment: range and specification");
}

/*
 * even: 1.3M hashes over 13 segments, each count within 6 standard
 * deviations of 100,000; and consecutive integers as hashes too
 */
static void
test_even(void)
{
	uint64_t	seed = 2127;
	uint32_t	hist[13];
	int			ok;

	t_begin();
	memset(hist, 0, sizeof(hist));
	for (int i = 0; i < 1300000; i++)
		hist[cf_store_segment(sm64(&seed), 13)]++;
	ok = 1;
	for (int i = 0; i < 13; i++)
		if (hist[i] < 100000 - 6 * 305 || hist[i] > 100000 + 6 * 305)
			ok = 0;
	CHECK(ok, "uneven: segment 0 has %u", hist[0]);
	memset(hist, 0, sizeof(hist));
	for (uint64_t i = 0; i < 1300000; i++)
		hist[cf_store_segment(i, 13)]++;
	ok = 1;
	for (int i = 0; i < 13; i++)
		if (hist[i] < 100000 - 6 * 305 || hist[i] > 100000 + 6 * 305)
			ok = 0;
	CHECK(ok, "uneven on raw integers: segment 0 has %u", hist[0]);
done:
	t_end("cf_store_segment: even");
}

/*
 * cf_contains_each (a batch of lookups, each in its own view: a store's
 * segments) equals cf_contains of each, for views of version 1 (plain and
 * semi-sorted) and 2 (growing, at 0.01 and 0.001), batches of 0 to 300
 * lookups (shorter and longer than its pipeline), present and absent hashes.
 */
static void
test_contains_each(void)
{
	enum
	{
		NF = 7, NH = 300, NI = 600
	};
	cf_filter	cfs[NF];
	uint8_t    *bufs[NF] = {0};
	const cf_filter *views[NH];
	uint64_t	hs[NH],
				ins[NF][NI];
	bool		out[NH];
	uint64_t	seed = 2127;

	t_begin();
	for (int i = 0; i < NF; i++)
	{
		cf_params	p;
		char		err[256] = "";
		size_t		len;

		if (i < 4)
			p = ref_params(512, i == 3 ? 4 : (uint32_t) (2 << (i % 3)), i == 3 ? 13 : 8 + 4 * (uint32_t) i,
						   i == 3, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 900);
		else
		{
			CHECK(cf_params_growing(1000, i == 6 ? 0.001 : 0.01, CF_DEFAULT_KICKS, &p, err, sizeof err),
				  "cf_params_growing: %s", err);
			p.kind = CF_KIND_INTEGER;
		}
		CHECK(cf_check_params(&p, err, sizeof err), "filter %d: %s", i, err);
		len = (size_t) cf_init_bytes(&p);
		bufs[i] = malloc(len);
		CHECK(bufs[i] != NULL, "out of memory");
		cf_init(bufs[i], &p);
		cf_open(&cfs[i], bufs[i], len);
		for (int k = 0; k < NI; k++)
		{
			ins[i][k] = sm64(&seed);
			CHECK(cf_insert(&cfs[i], ins[i][k]) <= CF_OK_STASHED, "insert %d into filter %d", k, i);
		}
	}
	for (int n = 0; n <= NH; n += (n < 40 ? 1 : 37))
		for (int pass = 0; pass < 4; pass++)
		{
			for (int j = 0; j < n; j++)
			{
				int			f = (int) (sm64(&seed) % NF);

				views[j] = &cfs[f];
				hs[j] = (sm64(&seed) & 1) ? ins[f][sm64(&seed) % NI] : sm64(&seed);
				out[j] = !(j & 1);	/* every answer must be written */
			}
			cf_contains_each(views, hs, (size_t) n, out);
			for (int j = 0; j < n; j++)
				CHECK(out[j] == cf_contains(views[j], hs[j]),
					  "batch of %d, lookup %d (filter version %u): %d, cf_contains %d",
					  n, j, cf_version(views[j]), out[j], cf_contains(views[j], hs[j]));
		}
	/* every inserted hash is found, all filters in one batch */
	for (int k = 0; k < NI; k += NH / NF)
	{
		int			n = 0;

		for (int i = 0; i < NF; i++)
			for (int r = 0; r < NH / NF; r++, n++)
			{
				views[n] = &cfs[i];
				hs[n] = ins[i][(k + r) % NI];
			}
		cf_contains_each(views, hs, (size_t) n, out);
		for (int j = 0; j < n; j++)
			CHECK(out[j], "inserted hash %d not found (filter version %u)", j, cf_version(views[j]));
	}
done:
	for (int i = 0; i < NF; i++)
		free(bufs[i]);
	t_end("cf_contains_each: equals cf_contains per view, versions 1 and 2, batches of 0 to 300");
}

/*
 * cf_store_contains_flat (the flat lookup of a scan over a store) equals
 * cf_contains of each hash's segment: a store of NS segments created at
 * 0.01 (the flat shape), some grown 1x to 4x (splits under way), some empty,
 * one with its victim slot in use (kept there: no kicks, no room to split), one created at 0.001 and one of version 1
 * (both looked up in their views); batches of 0 to 300, present and absent.
 */
static void *
refuse_realloc(void *buf, size_t n)
{
	(void) buf;
	(void) n;
	return NULL;
}

static void
test_contains_flat(void)
{
	enum
	{
		NS = 24, NH = 300, NI = 4000
	};
	cf_filter	cfs[NS];
	const cf_filter *views[NS];
	cf_store_seg segs[NS];
	cf_store_shape shape;
	uint64_t	ins[NI],
				hs[NH];
	bool		out[NH];
	int			nflat = 0,
				ngrown = 0,
				victim = -1;
	uint64_t	seed = 2128;

	t_begin();
	for (int s = 0; s < NS; s++)
	{
		cf_params	p;
		char		err[256] = "";
		size_t		len;
		uint8_t    *buf;

		if (s == NS - 1)
			p = ref_params(64, 4, 12, false, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 200);
		else
		{
			CHECK(cf_params_growing(60, s == NS - 2 ? 0.001 : 0.01, CF_DEFAULT_KICKS, &p, err, sizeof err),
				  "cf_params_growing: %s", err);
			p.kind = CF_KIND_INTEGER;
			p.budget = false;	/* a store's segments (cuckoo_store_create.c) */
			p.tail_bits = CF_V2_TAIL_BITS;
			if (s == 1)
				p.max_kicks = 0;	/* the first full pair of buckets stashes */
		}
		len = (size_t) cf_init_bytes(&p);
		buf = malloc(len);
		CHECK(buf != NULL, "out of memory");
		cf_init(buf, &p);
		cf_open(&cfs[s], buf, len);
		views[s] = &cfs[s];
	}
	CHECK(cf_store_shape_of(&cfs[0], &shape), "a growing filter at 0.01 has the flat shape");
	CHECK(!cf_store_shape_of(&cfs[NS - 2], &shape) && !cf_store_shape_of(&cfs[NS - 1], &shape),
		  "filters at 0.001 and of version 1 have not");
	CHECK(cf_store_shape_of(&cfs[0], &shape), "shape");
	/* NI values routed to their segments; segment s takes them while its
	 * share is under (s % 5) times its 60 (0: empty); segment 1 until stashed */
	for (int i = 0; i < NI; i++)
	{
		uint32_t	s;

		ins[i] = sm64(&seed);
		s = cf_store_segment(ins[i], NS);
		if (s == 1)
		{
			if (victim < 0)
			{
				cf_status	st;

				/* no room to split, so the victim stays (no kicks either) */
				cf_realloc_hook = refuse_realloc;
				st = cf_insert(&cfs[s], ins[i]);
				cf_realloc_hook = NULL;
				CHECK(st <= CF_OK_STASHED, "insert into segment 1: %d", (int) st);
				if (st == CF_OK_STASHED)
					victim = 1;
			}
			else
				ins[i] = 0;		/* not stored */
		}
		else if (cf_items(&cfs[s]) < (uint64_t) (s % 5) * 60 + (s % 5 == 4 ? 120 : 0))
			CHECK(cf_insert(&cfs[s], ins[i]) <= CF_OK_STASHED, "insert into segment %u", s);
		else
			ins[i] = 0;
	}
	CHECK(victim == 1, "segment 1 never stashed");
	for (int s = 0; s < NS; s++)
	{
		bool		flat = cf_store_seg_of(&shape, &cfs[s], &segs[s]);

		CHECK(flat == (s != 1 && s < NS - 2), "segment %d flat: %d", s, flat);
		CHECK(flat == (segs[s].data != NULL), "segment %d: data", s);
		nflat += flat;
		ngrown += flat && cfs[s].m > cfs[0].m;
	}
	CHECK(ngrown >= 4, "only %d segments grew", ngrown);
	for (int n = 0; n <= NH; n += (n < 40 ? 1 : 37))
		for (int pass = 0; pass < 4; pass++)
		{
			for (int j = 0; j < n; j++)
			{
				hs[j] = (sm64(&seed) & 1) ? ins[sm64(&seed) % NI] : sm64(&seed);
				out[j] = !(j & 1);	/* every answer must be written */
			}
			cf_store_contains_flat(&shape, segs, views, NS, hs, (size_t) n, out);
			for (int j = 0; j < n; j++)
			{
				const cf_filter *v = views[cf_store_segment(hs[j], NS)];

				CHECK(out[j] == cf_contains(v, hs[j]),
					  "batch of %d, lookup %d: %d, cf_contains %d", n, j, out[j], cf_contains(v, hs[j]));
			}
		}
	/* every stored value found */
	for (int i = 0; i < NI; i += NH)
	{
		int			n = 0;

		for (int j = i; j < NI && n < NH; j++)
			if (ins[j] != 0)
				hs[n++] = ins[j];
		cf_store_contains_flat(&shape, segs, views, NS, hs, (size_t) n, out);
		for (int j = 0; j < n; j++)
			CHECK(out[j], "stored hash %" PRIx64 " not found", hs[j]);
	}
done:
	for (int s = 0; s < NS; s++)
		free(cfs[s].buf);
	t_end("cf_store_contains_flat: equals cf_contains per segment (grown, empty, victim, other shapes)");
}

void
run_store_tests(void)
{
	test_example();
	test_range();
	test_even();
	test_contains_each();
	test_contains_flat();
}
