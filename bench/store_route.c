/*
 * store_route.c: the false-positive rate of a stored filter's segments as
 * the store grows 2^D times, under three ways of keeping segments for it
 * (docs/DESIGN.md, "Stored filters", "Growth"):
 *
 *   inplace  one segment that grows in place (format 2, linear hashing):
 *            what a store does per root segment.
 *   free     2^D segments chosen by bits the entries do not keep (the
 *            routing finaliser of FORMAT.md section 14): segments that are
 *            there from the start.
 *   kept     2^D segments chosen by D bits every entry keeps and that are
 *            the same from both buckets of its pair (bit j of a + a',
 *            j < D): what segments that split would need, in the best case
 *            that every entry was added after the last split.
 *   min      the same with the pair function of the earlier plan in
 *            DESIGN.md: the segment is min(a mod 2^D, a' mod 2^D).
 *
 * Each segment is created for N0 items (default 800, about a 1.8 kB
 * segment at fpr 0.01) and the store holds N0 * 2^D items.  Prints, per D,
 * the measured rate over 1,000,000 absent values and the bytes per item
 * ("insert failed": a segment refused an insert, CF_TOO_MANY_COPIES or
 * full).
 *
 *   make -C bench bin/store_route && bench/bin/store_route [N0 [FPR [DMAX]]]
 *
 * No PostgreSQL needed: the core only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf.h"
#include "cf_store.h"

typedef struct seg
{
	cf_filter	cf;
} seg;

static uint32_t
kept_route(uint64_t h, uint32_t f, uint32_t D)
{
	uint32_t	fp = 1 + (uint32_t) (((uint64_t) (uint32_t) h * ((UINT32_C(1) << f) - 1)) >> 32);
	uint64_t	G = (uint64_t) fp * UINT64_C(0xC2B2AE3D27D4EB4F);
	uint32_t	a,
				a2;

	G ^= G >> 29;
	a = (uint32_t) (h >> 32);
	a2 = a ^ (uint32_t) (G >> 32);
	return (a + a2) & ((UINT32_C(1) << D) - 1);
}

static uint32_t
min_route(uint64_t h, uint32_t f, uint32_t D)
{
	uint32_t	fp = 1 + (uint32_t) (((uint64_t) (uint32_t) h * ((UINT32_C(1) << f) - 1)) >> 32);
	uint64_t	G = (uint64_t) fp * UINT64_C(0xC2B2AE3D27D4EB4F);
	uint32_t	m = (UINT32_C(1) << D) - 1,
				a,
				a2;

	G ^= G >> 29;
	a = (uint32_t) (h >> 32) & m;
	a2 = (a ^ (uint32_t) (G >> 32)) & m;
	return a < a2 ? a : a2;
}

static uint32_t
route(const char *mode, uint64_t h, uint32_t f, uint32_t D, uint32_t S)
{
	if (S == 1)
		return 0;
	if (strcmp(mode, "free") == 0)
		return cf_store_segment(h, S);
	if (strcmp(mode, "kept") == 0)
		return kept_route(h, f, D);
	return min_route(h, f, D);
}

static double
run(const char *mode, uint64_t n0, double fpr, uint32_t D, double *bytes_per_item)
{
	uint32_t	S = strcmp(mode, "inplace") == 0 ? 1 : (UINT32_C(1) << D);
	uint64_t	n = n0 << D;
	cf_params	p;
	char		err[256];
	seg		   *s = calloc(S, sizeof(seg));
	uint64_t	fp = 0,
				bytes = 0;
	const uint64_t probes = 1000000;

	if (!cf_params_growing(n0, fpr, 500, &p, err, sizeof err))
	{
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	for (uint32_t i = 0; i < S; i++)
	{
		size_t		len = (size_t) cf_init_bytes(&p);
		void	   *buf = malloc(len);

		cf_init(buf, &p);
		cf_open(&s[i].cf, buf, len);
	}
	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	h = cf_hash_u64(i);
		uint32_t	x = route(mode, h, p.fp_bits, D, S);

		if (cf_insert(&s[x].cf, h) != CF_OK)
		{
			for (uint32_t j = 0; j < S; j++)
				free(s[j].cf.buf);
			free(s);
			*bytes_per_item = 0;
			return -1;			/* a segment refused an insert */
		}
	}
	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	h = cf_hash_u64(i);
		uint32_t	x = route(mode, h, p.fp_bits, D, S);

		if (!cf_contains(&s[x].cf, h))
		{
			fprintf(stderr, "%s D=%u: false negative\n", mode, D);
			exit(1);
		}
	}
	for (uint64_t i = 0; i < probes; i++)
	{
		uint64_t	h = cf_hash_u64(i + (UINT64_C(1) << 40));
		uint32_t	x = route(mode, h, p.fp_bits, D, S);

		fp += cf_contains(&s[x].cf, h);
	}
	for (uint32_t i = 0; i < S; i++)
	{
		bytes += s[i].cf.len;
		free(s[i].cf.buf);
	}
	free(s);
	*bytes_per_item = (double) bytes / (double) n;
	return (double) fp / (double) probes;
}

int
main(int argc, char **argv)
{
	uint64_t	n0 = argc > 1 ? strtoull(argv[1], NULL, 10) : 800;
	double		fpr = argc > 2 ? atof(argv[2]) : 0.01;
	uint32_t	dmax = argc > 3 ? (uint32_t) atoi(argv[3]) : 10;
	static const char *modes[] = {"inplace", "free", "kept", "min"};

	printf("N0 = %llu items per segment at creation, target fpr %g\n\n",
		   (unsigned long long) n0, fpr);
	printf("| growth | inplace fpr | free fpr | kept fpr | min fpr | inplace B/item | free B/item | kept B/item | min B/item |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (uint32_t D = 0; D <= dmax; D++)
	{
		double		r[4],
					b[4];

		for (int m = 0; m < 4; m++)
			r[m] = run(modes[m], n0, fpr, D, &b[m]);
		printf("| %ux |", 1u << D);
		for (int m = 0; m < 4; m++)
			r[m] < 0 ? printf(" insert failed |") : printf(" %.5f |", r[m]);
		for (int m = 0; m < 4; m++)
			r[m] < 0 ? printf(" |") : printf(" %.2f |", b[m]);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}
