/*
 * fuzz_common.h
 *     Helpers shared by the libFuzzer harnesses and the corpus generator:
 *     a check macro that aborts (so libFuzzer records the input), exact-size
 *     copies and a search for a 64-bit hash that lands on a given (bucket,
 *     fingerprint).  The reference reading of the byte layout (bucket
 *     decoding, a reference validator) is test/common/cf_ref.h, shared with
 *     the unit tests.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf.h"
#include "cf_ref.h"

#define FZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "\n*** CHECK FAILED at %s:%d: %s\n*** ", \
					__FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

/* An exact-size heap copy (ASan then catches a read one byte past the end). */
static inline uint8_t *
fz_dup(const void *src, size_t n)
{
	uint8_t    *p = malloc(n ? n : 1);

	FZ_CHECK(p != NULL, "out of memory (%zu bytes)", n);
	if (n)
		memcpy(p, src, n);
	return p;
}

/* splitmix64 finaliser: the fixed function that turns small indices into
 * well-spread 64-bit item hashes. */
static inline uint64_t
fz_mix(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/*
 * Where items go (fingerprint, first bucket, alternate bucket) is the core's
 * hashing, which this file does not restate: it uses cf_locate and
 * cf_alt_bucket.  What is checked independently is the byte layout and the
 * rules of docs/FORMAT.md, and that the core's answers agree with the table
 * as decoded here.
 */

/*
 * A 64-bit hash h with cf_locate(h) = (fp, i), by search.  The search
 * assumes the low 32 bits of h choose fp monotonically and bits 32..32+k-1
 * are r (docs/FORMAT.md), and tries the other high bits for q; every
 * candidate is confirmed with cf_locate, so a change of hashing can make
 * this fail (false) but never lie.
 */
static inline bool
fz_find_hash(const cf_filter *cf, uint32_t i, uint32_t fp, uint64_t *out)
{
	uint32_t	range = cf->fp_range;
	uint64_t	lo = (((uint64_t) (fp - 1) << 32) + range - 1) / range;
	uint32_t	k = cf->k;
	uint32_t	r = i & ((1u << k) - 1);
	uint64_t	tmax = UINT64_C(1) << (32 - k);
	int			tries = 0;

	for (; lo <= UINT32_MAX && tries < 20000; lo++)
	{
		uint32_t	tfp,
					ti;

		cf_locate(cf, lo, &tfp, &ti);
		if (tfp != fp)
			break;
		for (uint64_t t = 0; t < tmax && tries < 20000; t++, tries++)
		{
			uint64_t	h = ((((t << k) | r) & 0xFFFFFFFFu) << 32) | lo;

			cf_locate(cf, h, &tfp, &ti);
			if (tfp == fp && ti == i)
			{
				*out = h;
				return true;
			}
		}
	}
	return false;
}

#endif							/* FUZZ_COMMON_H */
