/*
 * b64_bench.c
 *     MB/s of the core's base64 codec (src/core/cf_base64.c): encoding and
 *     decoding a buffer of random bytes, best of several runs.  MB are
 *     10^6 bytes of the binary form, as in bench/sql_bench.sh.
 *
 *     usage: b64_bench [megabytes (default 64)] [runs (default 7)]
 *
 * Built by bench/b64_bench.sh, which can also compile another revision's
 * codec into the same program (BEFORE_* symbols) to print both side by side.
 */
#define _GNU_SOURCE
#include "cf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WITH_BEFORE
extern void before_b64_encode(const uint8_t *src, size_t n, char *dst);
extern bool before_b64_decode(const char *src, size_t n, uint8_t *dst);
#endif

typedef void (*enc_fn) (const uint8_t *, size_t, char *);
typedef bool (*dec_fn) (const char *, size_t, uint8_t *);

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
run(const char *name, enc_fn enc, dec_fn dec, const uint8_t *src, size_t n,
	char *text, uint8_t *back, int runs)
{
	size_t		tl = cf_b64_encoded_len(n);
	double		best_e = 1e9,
				best_d = 1e9;

	for (int r = 0; r < runs; r++)
	{
		double		t0 = now_s();

		enc(src, n, text);
		t0 = now_s() - t0;
		if (t0 < best_e)
			best_e = t0;
		t0 = now_s();
		if (!dec(text, tl, back))
		{
			fprintf(stderr, "%s: decoding rejected its own encoding\n", name);
			exit(1);
		}
		t0 = now_s() - t0;
		if (t0 < best_d)
			best_d = t0;
		if (memcmp(src, back, n) != 0)
		{
			fprintf(stderr, "%s: round trip changed the bytes\n", name);
			exit(1);
		}
	}
	printf("| %s | %.0f | %.0f |\n", name, n / 1e6 / best_e, n / 1e6 / best_d);
}

int
main(int argc, char **argv)
{
	size_t		mb = argc > 1 ? (size_t) atol(argv[1]) : 64;
	int			runs = argc > 2 ? atoi(argv[2]) : 7;
	size_t		n = mb * 1000000 + 1;	/* a tail group with padding */
	uint8_t    *src = malloc(n),
			   *back = malloc(n + 8);
	char	   *text = malloc(cf_b64_encoded_len(n) + 8);
	uint64_t	s = 0x9E3779B97F4A7C15ULL;

	if (!src || !back || !text)
		return 1;
	for (size_t i = 0; i < n; i++)
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		src[i] = (uint8_t) (s >> 24);
	}
	/* touch every page before timing */
	memset(text, 'A', cf_b64_encoded_len(n) + 8);
	memset(back, 0, n + 8);
	printf("| codec (%zu MB of random bytes, best of %d) | encode MB/s | decode MB/s |\n|---|---|---|\n", mb, runs);
#ifdef WITH_BEFORE
	run("before (" BEFORE_NAME ")", before_b64_encode, before_b64_decode, src, n, text, back, runs);
#endif
	run("this tree", cf_b64_encode, cf_b64_decode, src, n, text, back, runs);
#ifdef WITH_BEFORE
	run("before (" BEFORE_NAME ") again", before_b64_encode, before_b64_decode, src, n, text, back, runs);
	run("this tree again", cf_b64_encode, cf_b64_decode, src, n, text, back, runs);
#endif
	free(src);
	free(back);
	free(text);
	return 0;
}
