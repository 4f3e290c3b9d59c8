/*
 * ref_ours.c
 *     Our side of bench/ref_bench.cc: the timed loops over the core, in C, so
 *     that each operation is the same direct call into the core that
 *     bench/core_bench.c makes (no wrapper call per operation).
 */
#define _GNU_SOURCE
#include "cf.h"
#include "ref_ours.h"

#include <stdlib.h>
#include <time.h>

struct Ours
{
	void	   *buf;
	cf_filter	cf;
};

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

Ours *
ours_new(uint32_t num_buckets, uint32_t fp_bits)
{
	Ours	   *o = malloc(sizeof(Ours));
	cf_params	p = {.num_buckets = num_buckets, .bucket_size = 4, .fp_bits = fp_bits,
		.semisort = false, .max_kicks = CF_DEFAULT_KICKS, .kind = CF_KIND_INTEGER,
	.capacity = (uint64_t) num_buckets * 4};
	size_t		len = cf_total_bytes(num_buckets, 4, fp_bits, false);

	/* ordinary pages, like the reference's table (new[]): no huge-page advice */
	o->buf = aligned_alloc(64, (len + 63) & ~(size_t) 63);
	cf_init(o->buf, &p);
	cf_open(&o->cf, o->buf, len);
	return o;
}

void
ours_free(Ours *o)
{
	free(o->buf);
	free(o);
}

size_t
ours_bytes(const Ours *o)
{
	return o->cf.len;
}

double
ours_insert(Ours *o, const uint64_t *k, size_t n, size_t *failed)
{
	double		t0 = now_ns();

	*failed = 0;
	for (size_t i = 0; i < n; i++)
		*failed += cf_insert(&o->cf, k[i]) != CF_OK;
	return (now_ns() - t0) / (double) n;
}

double
ours_lookup(const Ours *o, const uint64_t *k, size_t n, uint64_t *hits)
{
	double		t0 = now_ns();
	uint64_t	h = 0;

	for (size_t i = 0; i < n; i++)
		h += cf_contains(&o->cf, k[i]);
	*hits = h;
	return (now_ns() - t0) / (double) n;
}

double
ours_lookup_batched(const Ours *o, const uint64_t *k, size_t n, uint64_t *hits)
{
	static bool out[1024];
	double		t0 = now_ns();
	uint64_t	h = 0;

	for (size_t i = 0; i < n; i += 1024)
	{
		size_t		len = n - i < 1024 ? n - i : 1024;

		cf_contains_many(&o->cf, k + i, len, out);
		for (size_t j = 0; j < len; j++)
			h += out[j];
	}
	*hits = h;
	return (now_ns() - t0) / (double) n;
}

double
ours_delete(Ours *o, const uint64_t *k, size_t n, uint64_t *missing)
{
	double		t0 = now_ns();
	uint64_t	m = 0;

	for (size_t i = 0; i < n; i++)
		m += !cf_remove(&o->cf, k[i]);
	*missing = m;
	return (now_ns() - t0) / (double) n;
}
