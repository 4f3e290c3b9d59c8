/*
 * core_count.c
 *     Fixed work for valgrind --tool=callgrind: instructions per insert and
 *     per lookup are then exact and repeatable, where nanoseconds on a shared
 *     machine are not (bench/callgrind.sh runs it and prints the table).
 *
 *     A (2,4) filter of 2^16 buckets with 12-bit fingerprints is filled with
 *     246,000 keys (94%), then probed with 1,000,000 absent and 984,000
 *     present keys; the same for a semi-sorted filter with 13-bit
 *     fingerprints (fill, then 1,000,000 absent keys); last, the first
 *     24,600 keys inserted into the plain filter (10%) are deleted.  Each
 *     phase is one
 *     function that is never inlined, so callgrind's inclusive count of it,
 *     divided by its operations, is the cost of one operation (the splitmix64
 *     key generation, a few instructions, included).
 */
#include "cf.h"

#include <stdio.h>
#include <stdlib.h>

#define N_INSERT	246000u
#define N_LOOKUP	1000000u
#define N_DELETE	24600u

static uint64_t key_state;

static uint64_t
next_key(void)
{
	uint64_t	z = (key_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/*
 * The phases, one function each (never inlined), so that callgrind counts
 * them apart; the plain and the semi-sorted filter get copies of the same
 * definitions.
 */
#define PHASE_INSERT(name) \
static __attribute__((noinline)) unsigned \
name(cf_filter *cf) \
{ \
	unsigned	n = 0; \
\
	key_state = 1; \
	for (unsigned i = 0; i < N_INSERT; i++) \
		n += cf_insert(cf, next_key()) == CF_OK; \
	return n; \
}

/* Keys of another seed: absent (a hit is a false positive). */
#define PHASE_LOOKUP_ABSENT(name) \
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

/* Keys 1 .. N_INSERT of seed 1, inserted; returns how many were stored. */
PHASE_INSERT(phase_insert)
PHASE_INSERT(phase_ss_insert)
PHASE_LOOKUP_ABSENT(phase_lookup_absent)
PHASE_LOOKUP_ABSENT(phase_ss_lookup_absent)

/* The inserted keys, four times over: present. */
static __attribute__((noinline)) unsigned
phase_lookup_present(const cf_filter *cf)
{
	unsigned	n = 0;

	for (unsigned r = 0; r < 4; r++)
	{
		key_state = 1;
		for (unsigned i = 0; i < N_INSERT; i++)
			n += cf_contains(cf, next_key());
	}
	return n;
}

/* The first N_DELETE keys of seed 1, deleted; returns how many were found. */
static __attribute__((noinline)) unsigned
phase_delete(cf_filter *cf)
{
	unsigned	n = 0;

	key_state = 1;
	for (unsigned i = 0; i < N_DELETE; i++)
		n += cf_remove(cf, next_key());
	return n;
}

static void
filter_new(cf_filter *cf, uint32_t fp_bits, bool semisort)
{
	uint32_t	m = UINT32_C(1) << 16;
	cf_params	p = {m, 4, fp_bits, semisort, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 1};
	size_t		len = cf_total_bytes(m, 4, fp_bits, semisort);
	void	   *buf = calloc(1, len);

	if (buf == NULL)
		exit(1);
	cf_init(buf, &p);
	cf_open(cf, buf, len);
}

int
main(void)
{
	cf_filter	plain,
				ss;
	unsigned	stored,
				absent,
				present,
				ss_stored,
				ss_absent,
				deleted;

	filter_new(&plain, 12, false);
	filter_new(&ss, 13, true);
	stored = phase_insert(&plain);
	absent = phase_lookup_absent(&plain);
	present = phase_lookup_present(&plain);
	ss_stored = phase_ss_insert(&ss);
	ss_absent = phase_ss_lookup_absent(&ss);
	deleted = phase_delete(&plain);
	printf("plain: %u of %u stored, %u false positives in %u, %u of %u found\n",
		   stored, N_INSERT, absent, N_LOOKUP, present, 4 * N_INSERT);
	printf("semi-sorted: %u of %u stored, %u false positives in %u\n",
		   ss_stored, N_INSERT, ss_absent, N_LOOKUP);
	printf("plain: %u of %u deleted\n", deleted, N_DELETE);
	/* no false negatives, ever */
	return present == 4 * stored && deleted == N_DELETE ? 0 : 1;
}
