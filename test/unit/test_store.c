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

void
run_store_tests(void)
{
	test_example();
	test_range();
	test_even();
	test_contains_each();
}
