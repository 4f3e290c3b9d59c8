/*
 * core_count_v2.c
 *     Fixed work for valgrind --tool=callgrind over growing filters (format
 *     version 2): instructions per lookup, exact and repeatable
 *     (bash bench/callgrind.sh --v2 runs it and prints the table).
 *
 *     For targets 0.01 (f = 6, t = 9, slot width w = 15) and 0.001 (f = 9,
 *     w = 18): a growing filter created with cf_params_growing for 246 items
 *     is filled with 246,000 (grown 1000x), then probed with 1,000,000 absent
 *     and 984,000 present keys; the same keys against a version-1 filter
 *     created for 246,000 items (right-sized, f = 10 and 13) for comparison.
 *     The fills are phases too (phase_*_insert: 246,000 inserts, the growing
 *     filters' splits included).  With the address budget (docs/FORMAT.md
 *     13.12) the growing filters' widths differ from the phase names: the
 *     program prints them.
 *     Each phase is one function that is never inlined (see core_count.c).
 *     CF_BENCH_TAIL_BITS=t in the environment gives the growing filters t
 *     tail bits instead of cf_params_growing's (the phases keep their names).
 */
#include "cf.h"

#include <stdio.h>
#include <stdlib.h>

#define N_INSERT	246000u
#define N_LOOKUP	1000000u

static uint64_t key_state;

static uint64_t
next_key(void)
{
	uint64_t	z = (key_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static unsigned
fill(cf_filter *cf)
{
	unsigned	n = 0;

	key_state = 1;
	for (unsigned i = 0; i < N_INSERT; i++)
		n += cf_insert(cf, next_key()) == CF_OK;
	return n;
}

#define PHASE_ABSENT(name) \
static __attribute__((noinline)) unsigned \
name(const cf_filter *cf) \
{ \
	unsigned	n = 0; \
\
	key_state = 99; \
	for (unsigned i = 0; i < N_LOOKUP; i++) \
		n += cf_contains(cf, next_key()); \
	return n; \
}

#define PHASE_PRESENT(name) \
static __attribute__((noinline)) unsigned \
name(const cf_filter *cf) \
{ \
	unsigned	n = 0; \
\
	for (unsigned r = 0; r < 4; r++) \
	{ \
		key_state = 1; \
		for (unsigned i = 0; i < N_INSERT; i++) \
			n += cf_contains(cf, next_key()); \
	} \
	return n; \
}

/* the fills, growth included for the growing filters */
#define PHASE_INSERT(name) \
static __attribute__((noinline)) unsigned \
name(cf_filter *cf) \
{ \
	return fill(cf); \
}

PHASE_INSERT(phase_v2_w15_insert)
PHASE_INSERT(phase_v2_w18_insert)
PHASE_INSERT(phase_v1_f10_insert)
PHASE_INSERT(phase_v1_f13_insert)
PHASE_ABSENT(phase_v2_w15_absent)
PHASE_PRESENT(phase_v2_w15_present)
PHASE_ABSENT(phase_v2_w18_absent)
PHASE_PRESENT(phase_v2_w18_present)
PHASE_ABSENT(phase_v1_f10_absent)
PHASE_PRESENT(phase_v1_f10_present)
PHASE_ABSENT(phase_v1_f13_absent)
PHASE_PRESENT(phase_v1_f13_present)

static void
open_new(cf_filter *cf, const cf_params *p)
{
	size_t		len = (size_t) cf_init_bytes(p);
	void	   *buf = calloc(1, len);

	if (buf == NULL)
		exit(1);
	cf_init(buf, p);
	cf_open(cf, buf, len);
}

static void
growing_new(cf_filter *cf, double fpr)
{
	cf_params	p;
	char		err[256];

	if (!cf_params_growing(N_INSERT / 1000, fpr, CF_DEFAULT_KICKS, &p, err, sizeof err))
	{
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	p.kind = CF_KIND_INTEGER;
	if (getenv("CF_BENCH_TAIL_BITS"))
		p.tail_bits = (uint32_t) atoi(getenv("CF_BENCH_TAIL_BITS"));
	open_new(cf, &p);
}

static void
fixed_new(cf_filter *cf, double fpr)
{
	uint32_t	m = cf_buckets_for_capacity(N_INSERT, 4);
	cf_params	p = {m, 4, (uint32_t) cf_fp_bits_for_fpr(fpr, 4), false, CF_DEFAULT_KICKS,
					 CF_KIND_INTEGER, 0, N_INSERT};

	open_new(cf, &p);
}

/* The growing filters move to larger buffers as they grow (the core
 * reallocates them: no cf_realloc_hook is set). */
int
main(void)
{
	cf_filter	a,
				b,
				c,
				d;
	unsigned	s[4],
				hit[8];
	int			bad = 0;

	growing_new(&a, 0.01);
	growing_new(&b, 0.001);
	fixed_new(&c, 0.01);
	fixed_new(&d, 0.001);
	s[0] = phase_v2_w15_insert(&a);
	s[1] = phase_v2_w18_insert(&b);
	s[2] = phase_v1_f10_insert(&c);
	s[3] = phase_v1_f13_insert(&d);
	hit[0] = phase_v2_w15_absent(&a);
	hit[1] = phase_v2_w15_present(&a);
	hit[2] = phase_v2_w18_absent(&b);
	hit[3] = phase_v2_w18_present(&b);
	hit[4] = phase_v1_f10_absent(&c);
	hit[5] = phase_v1_f10_present(&c);
	hit[6] = phase_v1_f13_absent(&d);
	hit[7] = phase_v1_f13_present(&d);
	for (int i = 0; i < 4; i++)
	{
		printf("filter %d (%s, w/f %u): %u of %u stored, %u false positives in %u, %u of %u found\n",
			   i, i < 2 ? "v2" : "v1", i < 2 ? (i ? b.w : a.w) : (i == 2 ? c.f : d.f),
			   s[i], N_INSERT, hit[2 * i], N_LOOKUP, hit[2 * i + 1], 4 * N_INSERT);
		bad |= hit[2 * i + 1] != 4 * s[i];
	}
	/* no false negatives, ever */
	return bad;
}
