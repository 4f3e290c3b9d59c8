/*
 * core_bench.c
 *     Benchmarks of the plain-C core, printing tables: the paper's Table 3
 *     (a (2,4) filter with 12-bit fingerprints filled until the first insert
 *     that finds no room, plain and semi-sorted in the same space), the load
 *     factor reached for f = 4..16 and b = 2, 4, 8, and ns per operation.
 *
 *     usage: core_bench [log2_buckets_table3 (default 20)] [log2_buckets_load (default 16)]
 */
#include "cuckoo_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t
next_key(void)
{
	/* splitmix64 */
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

typedef struct
{
	void	   *buf;
	size_t		len;
	cf_filter	cf;
} Filter;

static void
filter_new(Filter *f, uint32_t m, uint32_t b, uint32_t fp, bool ss)
{
	cf_params	p = {m, b, fp, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 1};

	f->len = cf_total_bytes(m, b, fp, ss);
	f->buf = malloc(f->len);
	cf_init(f->buf, &p);
	cf_open(&f->cf, f->buf, f->len);
}

/* Fills until the first insert that does not return CF_OK; returns items. */
static uint64_t
fill(Filter *f, uint64_t seed, double *ns_per_insert)
{
	uint64_t	n = 0;
	double		t0;

	rng_state = seed;
	t0 = now_ns();
	while (cf_insert(&f->cf, next_key()) == CF_OK)
		n++;
	*ns_per_insert = (now_ns() - t0) / (double) n;
	return n;
}

static void
table3(int lg)
{
	uint32_t	m = 1u << lg;
	const uint64_t queries = 4000000;

	printf("\n## Table 3: filled until the first failed insert, 2^%d buckets of 4\n\n", lg);
	printf("| filter | bits/entry | load factor | bits/item | measured fpr | expected fpr | ns/insert | ns/lookup (negative) | false negatives |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (int ss = 0; ss <= 1; ss++)
	{
		Filter		f;
		double		ns_ins,
					t0,
					ns_look;
		uint64_t	n,
					fps = 0,
					fneg = 0;
		uint32_t	fpbits = ss ? 13 : 12;

		filter_new(&f, m, 4, fpbits, ss);
		n = fill(&f, 42, &ns_ins);
		rng_state = 42;
		for (uint64_t i = 0; i < n; i++)
			fneg += !cf_contains(&f.cf, next_key());
		rng_state = 0xdeadbeef12345ULL;
		t0 = now_ns();
		for (uint64_t i = 0; i < queries; i++)
			fps += cf_contains(&f.cf, next_key());
		ns_look = (now_ns() - t0) / (double) queries;
		printf("| %s, f=%u | %u | %.4f | %.2f | %.4f%% | %.4f%% | %.0f | %.0f | %llu |\n",
			   ss ? "semi-sorted" : "plain", fpbits, ss ? fpbits - 1 : fpbits,
			   (double) n / ((double) m * 4), (double) f.len * 8 / (double) n,
			   100.0 * (double) fps / (double) queries,
			   100.0 * cf_expected_fpr(4, fpbits, (double) n / ((double) m * 4)),
			   ns_ins, ns_look, (unsigned long long) fneg);
		free(f.buf);
	}
}

static void
load_table(int lg)
{
	uint32_t	m = 1u << lg;

	printf("\n## Load factor at the first failed insert, 2^%d buckets (minimum of 3 runs)\n\n", lg);
	printf("| f | b=2 | b=4 | b=8 |\n|---|---|---|---|\n");
	for (uint32_t fp = 4; fp <= 16; fp++)
	{
		printf("| %u |", fp);
		for (uint32_t b = 2; b <= 8; b *= 2)
		{
			double		minload = 1.0;

			for (int run = 0; run < 3; run++)
			{
				Filter		f;
				double		ns;
				uint64_t	n;

				filter_new(&f, m, b, fp, false);
				n = fill(&f, 1000 + run * 7 + fp * 31 + b, &ns);
				if ((double) n / ((double) m * b) < minload)
					minload = (double) n / ((double) m * b);
				free(f.buf);
			}
			printf(" %.3f |", minload);
		}
		printf("\n");
	}
}

int
main(int argc, char **argv)
{
	int			lg3 = argc > 1 ? atoi(argv[1]) : 20;
	int			lgl = argc > 2 ? atoi(argv[2]) : 16;

	printf("# cuckoo core benchmark\n");
	table3(lg3);
	load_table(lgl);
	return 0;
}
