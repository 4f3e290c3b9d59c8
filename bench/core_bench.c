/*
 * core_bench.c
 *     Benchmarks of the plain-C core, printing tables: the paper's Table 3
 *     (a (2,4) filter with 12-bit fingerprints filled until the first insert
 *     that finds no room, plain and semi-sorted in the same space), the load
 *     factor reached for f = 4..16 and b = 2, 4, 8, and ns per operation.
 *
 *     usage: core_bench [log2_buckets_table3 (default 20)] [log2_buckets_load (default 16)]
 *                       [log2_buckets_large (default 24)] [log2_buckets_growth_large (default 22)]
 *     BENCH_ONLY=growth: only the growth table (format version 2).
 *     BENCH_GROWTH_LOOKUPS=1: in the growth table, only the rows grown 1000x
 *     and no right-sized filters of other fingerprint sizes (no second
 *     table): the lookup ratios alone, in a fraction of the time.
 */
#define _GNU_SOURCE
#include "cf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <sys/mman.h>

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

/*
 * Filters of 4 MB and more get transparent huge pages advised, as the
 * extension does (src/cuckoo_alloc.c), unless huge_pages is off; the ops
 * table measures large filters both ways.
 */
static bool huge_pages = true;

static void
filter_new(Filter *f, uint32_t m, uint32_t b, uint32_t fp, bool ss)
{
	cf_params	p = {m, b, fp, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 1};
	size_t		align = (size_t) 2 << 20;

	f->len = cf_total_bytes(m, b, fp, ss);
	f->buf = aligned_alloc(align, (f->len + align - 1) & ~(align - 1));
#ifdef MADV_HUGEPAGE
	if (huge_pages && f->len >= ((size_t) 4 << 20))
		(void) madvise(f->buf, (f->len + align - 1) & ~(align - 1), MADV_HUGEPAGE);
#endif
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

/* Two independent random 8-byte reads per step from a 96 MiB array: the
 * memory floor of a lookup that misses the caches in both buckets. */
static double
memory_floor_ns(void)
{
	size_t		words = (size_t) 96 << 17;	/* 96 MiB of uint64_t */
	uint64_t   *a = malloc(words * sizeof(uint64_t));
	uint64_t	sum = 0;
	const int	steps = 4000000;
	double		t0;

	for (size_t i = 0; i < words; i++)
		a[i] = i;
	rng_state = 7;
	t0 = now_ns();
	for (int i = 0; i < steps; i++)
	{
		uint64_t	r = next_key();

		sum += a[(r & 0xFFFFFFFF) % words] + a[(r >> 32) % words];
	}
	t0 = (now_ns() - t0) / steps;
	free(a);
	if (sum == 42)
		printf("#\n");
	return t0;
}

static uint64_t *
keys(size_t n, uint64_t seed)
{
	uint64_t   *k = malloc(n * sizeof(uint64_t));

	rng_state = seed;
	for (size_t i = 0; i < n; i++)
		k[i] = next_key();
	return k;
}

/* ns per lookup over q, one at a time or in batches of 1024 */
static double
time_lookups(Filter *f, const uint64_t *q, size_t n, bool batch, uint64_t *hits)
{
	static bool out[1024];
	double		t0 = now_ns();

	*hits = 0;
	if (!batch)
	{
		for (size_t i = 0; i < n; i++)
			*hits += cf_contains(&f->cf, q[i]);
	}
	else
	{
		for (size_t i = 0; i < n; i += 1024)
		{
			size_t		len = n - i < 1024 ? n - i : 1024;

			cf_contains_many(&f->cf, q + i, len, out);
			for (size_t j = 0; j < len; j++)
				*hits += out[j];
		}
	}
	return (now_ns() - t0) / (double) n;
}

/*
 * Insert, lookup (0, 50 and 100% positive; single and batched) and delete
 * in a (2,4) filter filled to 94%, cache-resident and large, plain (f = 12)
 * and semi-sorted (f = 13), next to the reference C++'s figures from the
 * issue (measured on this kind of machine, not in this run).
 */
static void
ops_table(int lg_small, int lg_large)
{
	const size_t nq = 2000000;

	printf("\n## Operations: (2,4) filter filled to 94%%, ns per operation\n\n");
	printf("Memory floor measured in this run (two independent random 8-byte reads from 96 MiB): %.1f ns\n\n",
		   memory_floor_ns());
	printf("| buckets | MiB | filter | insert | lookup 0%% pos | 50%% | 100%% | batched 0%% | batched 100%% | delete | bits/item | fpr | false neg | reference (issue): lookup / insert |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int big = 0; big <= 2; big++)
	{
		int			lg = big ? lg_large : lg_small;

		huge_pages = big != 2;
		for (int ss = 0; ss <= 1; ss++)
		{
			uint32_t	m = 1u << lg;
			uint32_t	fpb = ss ? 13 : 12;
			size_t		n = (size_t) (0.94 * 4.0 * m);
			uint64_t   *ins = keys(n, 1234 + lg);
			uint64_t   *neg = keys(nq, 98765);
			uint64_t   *mix = malloc(nq * sizeof(uint64_t));
			uint64_t   *pos = malloc(nq * sizeof(uint64_t));
			uint64_t	hits,
						fneg = 0;
			double		t0,
						t_ins,
						t_neg,
						t_mix,
						t_pos,
						tb_neg,
						tb_pos,
						t_del,
						fpr;
			Filter		f;
			size_t		ndel = n / 10;

			for (size_t i = 0; i < nq; i++)
			{
				pos[i] = ins[(next_key() >> 11) % n];
				mix[i] = (i & 1) ? pos[i] : neg[i];
			}
			filter_new(&f, m, 4, fpb, ss);
			t0 = now_ns();
			for (size_t i = 0; i < n; i++)
				if (cf_insert(&f.cf, ins[i]) != CF_OK)
					break;
			t_ins = (now_ns() - t0) / (double) n;
			t_neg = time_lookups(&f, neg, nq, false, &hits);
			fpr = (double) hits / (double) nq;
			t_mix = time_lookups(&f, mix, nq, false, &hits);
			t_pos = time_lookups(&f, pos, nq, false, &hits);
			fneg += nq - hits;
			tb_neg = time_lookups(&f, neg, nq, true, &hits);
			tb_pos = time_lookups(&f, pos, nq, true, &hits);
			fneg += nq - hits;
			t0 = now_ns();
			for (size_t i = 0; i < ndel; i++)
				fneg += !cf_remove(&f.cf, ins[i]);
			t_del = (now_ns() - t0) / (double) ndel;
			printf("| 2^%d%s | %.1f | %s f=%u | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.3f%% | %llu | %s |\n",
				   lg, big == 0 ? "" : big == 1 ? ", huge pages" : ", 4 kB pages",
				   (double) f.len / 1048576.0, ss ? "semi-sorted" : "plain", fpb,
				   t_ins, t_neg, t_mix, t_pos, tb_neg, tb_pos, t_del,
				   (double) f.len * 8.0 / (double) n, 100.0 * fpr,
				   (unsigned long long) fneg,
				   ss ? (big ? "100-200 ns / -" : "-") :
				   (big ? "38-57 ns / 215 ns (2^24, 94%)" : "4 ns / 24 ns (2^16)"));
			free(f.buf);
			free(ins);
			free(neg);
			free(mix);
			free(pos);
		}
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

/* A copy of a filter's bytes in a fresh buffer with the same page treatment
 * as filter_new (huge pages advised from 4 MB). */
static void
rehouse(Filter *f, const cf_filter *src)
{
	size_t		align = (size_t) 2 << 20;

	f->len = src->len;
	f->buf = aligned_alloc(align, (f->len + align - 1) & ~(align - 1));
#ifdef MADV_HUGEPAGE
	if (huge_pages && f->len >= ((size_t) 4 << 20))
		(void) madvise(f->buf, (f->len + align - 1) & ~(align - 1), MADV_HUGEPAGE);
#endif
	memcpy(f->buf, src->buf, f->len);
	cf_open(&f->cf, f->buf, f->len);
}

/*
 * Lookup timings of two filters side by side: 9 rounds, each timing a pass
 * of n lookups in a then in b, the minimum of each kept; on a shared, noisy
 * machine both then see the same conditions, and a slow spell cannot fall
 * on one side only.
 */
static void
paired_lookups(Filter *a, Filter *b, const uint64_t *q, size_t n, double *ta, double *tb,
			   uint64_t *hits_a, uint64_t *hits_b)
{
	*ta = *tb = 1e30;
	for (int r = 0; r < 9; r++)
	{
		double		t = time_lookups(a, q, n, false, hits_a);

		if (t < *ta)
			*ta = t;
		t = time_lookups(b, q, n, false, hits_b);
		if (t < *tb)
			*tb = t;
	}
}

/* Right-sized version-1 filters of n items for f = FV_LO .. FV_HI: their
 * measured fpr and bits per item, to compare at the same measured fpr. */
#define FV_LO 6
#define FV_HI 24

static double
measured_fpr(Filter *f, const uint64_t *q, size_t n)
{
	uint64_t	hits;

	(void) time_lookups(f, q, n, false, &hits);
	return (double) hits / (double) n;
}

/* A right-sized version-1 filter of f-bit fingerprints holding ins[0 .. n). */
static bool
v1_filled(Filter *v, const uint64_t *ins, size_t n, uint32_t f)
{
	filter_new(v, cf_buckets_for_capacity(n, 4), 4, f, false);
	for (size_t i = 0; i < n; i++)
		if (cf_insert(&v->cf, ins[i]) != CF_OK)
		{
			printf("right-sized filter (f = %u) refused item %zu\n", f, i);
			return false;
		}
	return true;
}

/*
 * Bits per item a right-sized version-1 filter needs for a measured fpr
 * `fpr`: between the two fingerprint sizes whose measured rates bracket it
 * (fpr[f] >= fpr > fpr[f+1]), interpolated linearly in log(fpr) (the rate
 * halves per fingerprint bit, bits per item grow by 1 / load per bit).
 * *fle: the smallest f whose measured rate is at or below `fpr`.
 */
static double
v1_bits_at(const double *fprs, const double *bits, double fpr, int *fle)
{
	*fle = -1;
	for (int f = FV_LO; f <= FV_HI; f++)
		if (bits[f] > 0 && fprs[f] <= fpr)
		{
			*fle = f;
			break;
		}
	if (*fle < 0)
		return -1;
	/* no measured rate above fpr: no bracket, the whole-bit figure */
	if (*fle == FV_LO || bits[*fle - 1] <= 0 || fprs[*fle] <= 0 || fprs[*fle - 1] <= fprs[*fle])
		return bits[*fle];
	{
		int			f = *fle - 1;
		double		x = (log(fprs[f]) - log(fpr)) / (log(fprs[f]) - log(fprs[f + 1]));

		return bits[f] + x * (bits[f + 1] - bits[f]);
	}
}

/*
 * Format version 2 (issue 11): a growing filter created for n / G and filled
 * with n, against a version-1 filter created for n (right-sized: the
 * capacity rule of cuckoo_create) at the same target, both holding the same
 * n items, for growth factors G = 1, 10, 100, 1000, targets 0.01 and 0.001,
 * at a cache-resident size (2^lg_small buckets of the right-sized filter)
 * and a large one.  Measured fpr (4M absent hashes, the same for both),
 * bits per item (value bytes * 8 / n), absent and present lookup ns (the
 * same 1M hashes for both; paired_lookups), ratios.  A second table gives
 * bits per item against right-sized version-1 filters at the same measured
 * fpr (v1_bits_at).
 */
static void
growth_table(int lg_small, int lg_large)
{
	const size_t nq = 1000000,
				nf = 4000000;
	const double targets[2] = {0.01, 0.001};
	const uint64_t factors[4] = {1, 10, 100, 1000};
	char		same_fpr[8192] = "";
	size_t		sl = 0;
	const char *lk = getenv("BENCH_GROWTH_LOOKUPS");
	bool		lookups_only = lk != NULL && *lk != '\0' && strcmp(lk, "0") != 0;

	printf("\n## Growing filters (format version 2) against right-sized version-1 filters\n\n");
	printf("n = 0.94 * 4 * 2^lg items (the right-sized filter's load); the growing filter is created for n / G and filled with the same n items. "
		   "Lookup ns: minimum of 9 passes over the same 1M hashes (all absent, then all present), the passes of the two filters alternating.\n\n");
	printf("| target | right-sized buckets | n | G | v2 buckets | fpr v2 | fpr v1 | bits/item v2 | v1 | ratio | neg. lookup ns v2 | v1 | ratio | pos. lookup ns v2 | v1 | ratio | false neg |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int ti = 0; ti < 2; ti++)
	{
		for (int big = 0; big <= 1; big++)
		{
			int			lg = big ? lg_large : lg_small;
			size_t		n = (size_t) (0.94 * 4.0 * (double) ((uint64_t) 1 << lg));
			uint64_t   *ins = keys(n, 4321 + lg);
			uint64_t   *neg = keys(nq, 13579);
			uint64_t   *fq = keys(nf, 24680);
			uint64_t   *pos = malloc(nq * sizeof(uint64_t));
			int			fv1 = cf_fp_bits_for_fpr(targets[ti], 4);
			Filter		v1;
			double		fpr1,
						fprs[FV_HI + 1] = {0},
						bits[FV_HI + 1] = {0};

			huge_pages = true;
			for (size_t i = 0; i < nq; i++)
				pos[i] = ins[(next_key() >> 11) % n];
			/* the fpr curve of right-sized version-1 filters of these n items */
			for (int f = FV_LO; f <= FV_HI; f++)
			{
				Filter		t;

				if (lookups_only || f < fv1 - 2 || f > fv1 + 7)
					continue;
				if (v1_filled(&t, ins, n, (uint32_t) f))
				{
					fprs[f] = measured_fpr(&t, fq, nf);
					bits[f] = (double) t.len * 8.0 / (double) n;
				}
				free(t.buf);
			}
			if (!v1_filled(&v1, ins, n, (uint32_t) fv1))
				break;
			fpr1 = measured_fpr(&v1, fq, nf);
			for (int gi = lookups_only ? 3 : 0; gi < 4; gi++)
			{
				cf_params	p;
				char		err[256];
				cf_filter	g;
				size_t		len;
				uint8_t    *buf;
				Filter		v2;
				double		fpr2,
							n1,
							n2,
							p1,
							p2,
							b2,
							bs;
				uint64_t	fneg = 0,
							h1,
							h2;
				int			fle;

				if (!cf_params_growing(n / factors[gi] ? n / factors[gi] : 1, targets[ti],
									   CF_DEFAULT_KICKS, &p, err, sizeof err))
				{
					printf("cf_params_growing: %s\n", err);
					continue;
				}
				p.kind = CF_KIND_INTEGER;
				len = (size_t) cf_init_bytes(&p);
				buf = malloc(len);
				cf_init(buf, &p);
				cf_open(&g, buf, len);
				for (size_t i = 0; i < n; i++)
					if (cf_insert(&g, ins[i]) != CF_OK)
					{
						printf("growing filter refused item %zu\n", i);
						break;
					}
				rehouse(&v2, &g);
				free(g.buf);
				fpr2 = measured_fpr(&v2, fq, nf);
				paired_lookups(&v2, &v1, neg, nq, &n2, &n1, &h2, &h1);
				paired_lookups(&v2, &v1, pos, nq, &p2, &p1, &h2, &h1);
				fneg += (nq - h2) + (nq - h1);
				for (size_t i = 0; i < n; i++)
					fneg += !cf_contains(&v2.cf, ins[i]);
				b2 = (double) v2.len * 8.0 / (double) n;
				printf("| %g | 2^%d | %zu | %llu | %u | %.5f | %.5f | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %llu |\n",
					   targets[ti], lg, n, (unsigned long long) factors[gi], v2.cf.m, fpr2, fpr1,
					   b2, (double) v1.len * 8.0 / (double) n,
					   (double) v2.len / (double) v1.len, n2, n1, n2 / n1, p2, p1, p2 / p1,
					   (unsigned long long) fneg);
				fflush(stdout);
				bs = v1_bits_at(fprs, bits, fpr2, &fle);
				if (bs > 0 && sl < sizeof same_fpr - 400)
					sl += (size_t) snprintf(same_fpr + sl, sizeof same_fpr - sl,
											"| %g | 2^%d | %llu | %.5f | %.2f | %d: %.5f, %d: %.5f | %.2f | %.2f | %d | %.2f | %.2f |\n",
											targets[ti], lg, (unsigned long long) factors[gi], fpr2, b2,
											fle - 1, fprs[fle - 1], fle, fprs[fle], bs, b2 / bs,
											fle, bits[fle], b2 / bits[fle]);
				free(v2.buf);
			}
			free(v1.buf);
			free(ins);
			free(neg);
			free(fq);
			free(pos);
		}
	}
	if (lookups_only)
		return;
	printf("\n## Bits per item at the same measured fpr\n\n");
	printf("Right-sized version-1 filters of the same n items with f = f1 - 2 .. f1 + 7 (f1: the target's), fpr measured on the same 4M absent hashes. "
		   "Interpolated: the bits per item a right-sized filter needs for the grown filter's measured fpr, linear in log(fpr) between the two f whose rates bracket it. "
		   "Smallest f: the right-sized filter with the fewest fingerprint bits whose measured fpr is at or below the grown filter's (whole bits; favours the grown filter by up to one bit).\n\n");
	printf("| target | right-sized buckets | G | fpr v2 | bits/item v2 | v1 f: fpr (bracket) | v1 bits/item, interpolated | ratio | smallest f | its bits/item | ratio |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	fputs(same_fpr, stdout);
}

int
main(int argc, char **argv)
{
	int			lg3 = argc > 1 ? atoi(argv[1]) : 20;
	int			lgl = argc > 2 ? atoi(argv[2]) : 16;
	int			lgbig = argc > 3 ? atoi(argv[3]) : 24;

	int			lggrow = argc > 4 ? atoi(argv[4]) : 22;
	const char *only = getenv("BENCH_ONLY");

	printf("# cuckoo core benchmark\n");
	if (only == NULL || strcmp(only, "growth") != 0)
	{
		ops_table(16, lgbig);
		table3(lg3);
		load_table(lgl);
	}
	growth_table(16, lggrow);
	return 0;
}
