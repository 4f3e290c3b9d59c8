/*
 * test_store.c
 *     Unit tests of the core: routing of a hash to a segment of a stored
 *     filter (cf_store_segment, docs/FORMAT.md section 14).
 */
#include "unit.h"
#include "cf_store.h"

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

void
run_store_tests(void)
{
	test_example();
	test_range();
	test_even();
}
