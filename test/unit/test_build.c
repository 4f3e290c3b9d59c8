/*
 * test_build.c
 *     cf_insert_if_absent_many (src/core/cf_build.c): the batched form of
 *     cf_insert_if_absent that the fixed-shape aggregate feeds.  It must
 *     leave a filter byte for byte as adding the same hashes one by one in
 *     the same order does, stop at the same hash with the same status when
 *     the filter fills up, and lose no item.
 */
#include "unit.h"

/*
 * n hashes, about one in four a repeat of an earlier one, added to two equal
 * filters of m buckets: one by one and in batches of the given size.
 */
static void
test_batch_same(uint32_t m, uint32_t b, uint32_t f, bool ss, size_t n, size_t batch)
{
	char		name[96];
	filt		A = {0},
				B = {0};
	uint64_t   *h = malloc(n * sizeof(uint64_t)),
				s = 0xB17D + m + b * 7 + f * 131 + batch;
	size_t		doneA = n,
				doneB = 0,
				stored = 0;
	cf_status	stA = CF_OK,
				stB = CF_OK;

	snprintf(name, sizeof name, "insert_if_absent_many = one by one: m=%u b=%u f=%u%s n=%zu batch=%zu",
			 m, b, f, ss ? " semisort" : "", n, batch);
	t_begin();
	CHECK(h != NULL, "out of memory");
	for (size_t i = 0; i < n; i++)
		h[i] = (i > 4 && rnd(&s, 4) == 0) ? h[rnd(&s, i)] : sm64(&s);
	REQUIRE(fnew(&A, m, b, f, ss, 500, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	REQUIRE(fnew(&B, m, b, f, ss, 500, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	for (size_t i = 0; i < n; i++)
	{
		cf_status	st = cf_insert_if_absent(&A.cf, h[i]);

		if (st != CF_OK && st != CF_OK_STASHED && st != CF_EXISTS)
		{
			stA = st;
			doneA = i;
			break;
		}
		stored += (st != CF_EXISTS);
	}
	while (doneB < n)
	{
		size_t		k = n - doneB < batch ? n - doneB : batch;
		size_t		got = cf_insert_if_absent_many(&B.cf, h + doneB, k, &stB);

		CHECK(got <= k, "handled %zu of a batch of %zu", got, k);
		doneB += got;
		if (stB != CF_OK)
			break;
		CHECK(got == k, "status CF_OK after %zu of %zu", got, k);
	}
	CHECK(doneA == doneB && stA == stB, "one by one: stopped at %zu with %s; batched: at %zu with %s",
		  doneA, stname(stA), doneB, stname(stB));
	CHECK(A.len == B.len && memcmp(A.buf, B.buf, A.len) == 0, "the filters differ");
	REQUIRE(fvalid(&B, "after the batches"));
	REQUIRE(all_found(&B, h, doneB, "after the batches"));
	t_set_note("%zu hashes handled (%zu stored), then %s", doneB, stored, stname(stB));
done:
	free(h);
	ffree(&A);
	ffree(&B);
	t_end(name);
}

void
run_build_tests(void)
{
	/* well below capacity, near it (kicks, victim slot), and past it (CF_FULL mid-batch) */
	test_batch_same(4096, 4, 12, false, 8000, 1024);
	test_batch_same(4096, 4, 12, false, 20000, 1024);
	test_batch_same(4096, 4, 12, false, 20000, 1);
	test_batch_same(4096, 4, 12, false, 20000, 17);
	test_batch_same(1000, 4, 10, false, 5000, 300);
	test_batch_same(1000, 2, 8, false, 3000, 100);
	test_batch_same(1000, 8, 16, false, 10000, 64);
	test_batch_same(1000, 4, 13, true, 5000, 256);
	test_batch_same(200, 4, 30, false, 1000, 1000);
	test_batch_same(64, 4, 6, false, 400, 33);
	/* edge shapes: one bucket, f = 4 and 32, c = 255, semi-sorted at both ends of f */
	test_batch_same(1, 4, 8, false, 50, 16);
	test_batch_same(1, 2, 32, false, 50, 7);
	test_batch_same(3, 8, 4, false, 200, 5);
	test_batch_same(255, 2, 4, false, 2000, 1024);
	test_batch_same(1020, 8, 32, false, 20000, 500);
	test_batch_same(128, 4, 16, false, 1000, 64);
	test_batch_same(256, 4, 5, true, 2000, 128);
	test_batch_same(256, 4, 32, true, 2000, 1024);
	test_batch_same(1, 4, 9, true, 50, 3);
}
