/*
 * union_proto.c
 *     Throwaway prototype for issue 24's second round (docs/DESIGN.md,
 *     "Unions to the size limit: the address budget"): the rate and the size
 *     of unions of growing filters as a function of the bits their entries
 *     carry.  Built by run.sh against a patched copy of src/core (tail bits
 *     up to 26, and proto_addr_bits: the address bits an insert gives its
 *     entries, 32 in the shipped core).  Not part of the extension.
 *
 *   union_proto T A parts cap per      unions `parts` growing filters created
 *                                      for cap (target 0.01) with per distinct
 *                                      values each, tail bits T, entries
 *                                      given A address bits at insert
 *   union_proto T A parts cap per half same, part d holding values
 *                                      d * per / 2 .. d * per / 2 + per - 1:
 *                                      half shared with the next part
 *   union_proto cost                   bytes per item of a growing filter by
 *                                      size: today's t = 9, t = 15, and the
 *                                      narrowing tail (t = A - k + 1)
 */
#include "cf.h"
#include "cf_internal.h"
#include "cf_v2.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern uint32_t proto_addr_bits;

static uint32_t tail_bits = 9;

static uint64_t
mix(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static void *
grow(void *p, size_t n)
{
	return realloc(p, n);
}

static cf_filter
make(uint64_t cap, double fpr)
{
	cf_params	p;
	char		err[256];
	size_t		len;
	void	   *buf;
	cf_filter	cf;

	if (!cf_params_growing(cap, fpr, CF_DEFAULT_KICKS, &p, err, sizeof err))
	{
		fprintf(stderr, "cf_params_growing: %s\n", err);
		exit(1);
	}
	p.tail_bits = tail_bits;
	p.kind = CF_KIND_INTEGER;
	if (!cf_check_params(&p, err, sizeof err))
	{
		fprintf(stderr, "cf_check_params: %s\n", err);
		exit(1);
	}
	len = cf_init_bytes(&p);
	buf = malloc(len);
	cf_init(buf, &p);
	cf_open(&cf, buf, len);
	return cf;
}

static double
rate(const cf_filter *cf, uint64_t seed, uint32_t n)
{
	uint64_t	s = seed;
	uint32_t	hits = 0;

	for (uint32_t i = 0; i < n; i++)
		hits += cf_contains(cf, mix(&s));
	return (double) hits / n;
}

/* Bytes of a growing filter created for cap at target 0.01 once it holds n
 * items, with slots of f + t bits; t_of_k < 0: t = A - k + 1 (narrowing). */
static uint64_t
bytes_at(uint64_t cap, uint64_t n, int t_fixed, uint32_t A, uint32_t f)
{
	uint32_t	m0 = cf_buckets_for_capacity(cap, 4),
				c = m0,
				k = 0;
	uint64_t	m = (uint64_t) ceil(n / 3.6);
	int			t;

	while (c >= 256)
	{
		c >>= 1;
		k++;
	}
	if (m < m0)
		m = m0;
	while (((uint64_t) c << (k + 1)) <= m)
		k++;
	t = t_fixed > 0 ? t_fixed : (int) A - (int) k + 1;
	if (t < 2)
		t = 2;
	if (t > (int) (32 - f))
		t = (int) (32 - f);
	return cf2_total_bytes(m, 4, f + (uint32_t) t, 0);
}

/* Items at the size limit, and the address budget A that keeps a union of
 * that many items at the target: 2 U / (c (2^f - 1) 2^A) <= e. */
static uint32_t
budget(uint64_t cap, uint32_t f, double e, uint64_t *ulim)
{
	uint32_t	c = cf_buckets_for_capacity(cap, 4);

	while (c >= 256)
		c >>= 1;
	for (uint32_t A = 8; A <= 32; A++)
	{
		uint64_t	lo = 1,
					hi = UINT64_C(1) << 34;

		while (lo < hi)			/* the most items within CF_MAX_BYTES */
		{
			uint64_t	mid = (lo + hi + 1) / 2;

			if (bytes_at(cap, mid, -1, A, f) <= CF_MAX_BYTES)
				lo = mid;
			else
				hi = mid - 1;
		}
		if (2.0 * lo / (c * (ldexp(1, (int) f) - 1) * ldexp(1, (int) A)) <= e)
		{
			*ulim = lo;
			return A;
		}
	}
	*ulim = 0;
	return 32;
}

static void
cost(void)
{
	static const uint64_t caps[] = {100, 1000, 100000};
	uint32_t	f = 6;

	printf("| created for | A | items at the size limit | items | t = 9 (today) | t = 15 | narrowing (t = A - k + 1) | narrowing / today |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (size_t ci = 0; ci < 3; ci++)
	{
		uint64_t	ulim;
		uint32_t	A = budget(caps[ci], f, 0.01, &ulim);

		for (uint64_t n = caps[ci]; n <= UINT64_C(100000000); n *= 10)
		{
			double		b9 = 8.0 * bytes_at(caps[ci], n, 9, A, f) / n,
						b15 = 8.0 * bytes_at(caps[ci], n, 15, A, f) / n,
						bn = 8.0 * bytes_at(caps[ci], n, -1, A, f) / n;

			printf("| %llu | %u | %.2e | %llu | %.1f | %.1f | %.1f | %.2f |\n",
				   (unsigned long long) caps[ci], A, (double) ulim, (unsigned long long) n,
				   b9, b15, bn, bn / b9);
		}
	}
}

int
main(int argc, char **argv)
{
	cf_filter	U;
	uint32_t	parts,
				merged = 0;
	uint64_t	cap,
				per,
				stride,
				distinct,
				fn = 0;
	cf_status	st = CF_OK;
	double		part_rate = 0;
	size_t		part_bytes = 0;
	char		err[256] = "";
	int			valid;

	if (argc == 2 && strcmp(argv[1], "cost") == 0)
	{
		cost();
		return 0;
	}
	if (argc != 6 && !(argc == 7 && strcmp(argv[6], "half") == 0))
	{
		fprintf(stderr, "usage: union_proto T A parts cap per [half] | union_proto cost\n");
		return 2;
	}
	tail_bits = (uint32_t) atoi(argv[1]);
	proto_addr_bits = (uint32_t) atoi(argv[2]);
	parts = (uint32_t) atoi(argv[3]);
	cap = strtoull(argv[4], NULL, 10);
	per = strtoull(argv[5], NULL, 10);
	stride = argc == 7 ? per / 2 : per;
	cf_realloc_hook = grow;
	U = make(cap, 0.01);
	for (uint32_t d = 0; d < parts; d++)
	{
		cf_filter	P = make(cap, 0.01);

		for (uint64_t i = 0; i < per; i++)
		{
			if (cf_insert(&P, cf_hash_u64(d * stride + i)) != CF_OK)
			{
				fprintf(stderr, "insert into part %u refused\n", d);
				return 1;
			}
		}
		if (d == 0)
		{
			part_rate = rate(&P, 4242, 400000);
			part_bytes = P.len;
		}
		st = cf_union_into(&U, &P);
		free(P.buf);
		if (st != CF_OK)
			break;
		merged++;
	}
	distinct = merged ? (uint64_t) (merged - 1) * stride + per : 0;
	for (uint64_t i = 0; i < distinct; i++)
		fn += !cf_contains(&U, cf_hash_u64(i));
	valid = cf_validate(U.buf, U.len, err, sizeof err);
	printf("| %u | %u | %u x %llu (for %llu)%s | %u%s | %llu / %llu | %zu | %.1f | %.5f | %.5f | %llu | %s |\n",
		   tail_bits, proto_addr_bits, parts, (unsigned long long) per, (unsigned long long) cap,
		   stride < per ? ", half shared with the next" : "", merged, st == CF_OK ? "" : ", then 54000",
		   (unsigned long long) cf_items(&U), (unsigned long long) distinct,
		   U.len, 8.0 * U.len / (double) (distinct ? distinct : 1),
		   rate(&U, 777, 1000000), part_rate, (unsigned long long) fn,
		   valid ? "valid" : err);
	free(U.buf);
	return 0;
}
