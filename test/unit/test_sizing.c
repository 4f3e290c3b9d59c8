/*
 * test_sizing.c
 *     Unit tests of the core: sizing (buckets for a capacity, fingerprint bits for a rate,
 *     bytes for a shape) and the checks of new parameters.
 */
#include "unit.h"

/* ========================================================================
 * 7. Sizing
 * ======================================================================== */

/* Smallest representable bucket count >= r, or 0 when none fits in 32 bits. */
static uint64_t
ref_round(uint64_t r)
{
	uint64_t	best = 0;

	if (r < 1)
		r = 1;
	for (unsigned k = 0; k < 40; k++)
	{
		uint64_t	c = (r + (UINT64_C(1) << k) - 1) >> k;

		if (c < 256)
		{
			uint64_t	v = c << k;

			if (v <= UINT32_MAX && (best == 0 || v < best))
				best = v;
		}
	}
	return best;
}

static void
test_sizing(void)
{
	uint64_t	s = 0x512E;
	double		worst = 0,
				bpi1k = 0;
	static const uint64_t rej[] = {0, 257, 514, 515, 511, 1023, 0x1FFu << 10, 0x101u << 20,
	UINT32_MAX, UINT64_C(1) << 32, UINT64_C(255) << 32};
	static const uint64_t acc[] = {1, 2, 255, 256, 258, 510, 512, 0xFFu << 24, UINT64_C(1) << 31,
	128u << 24};

	t_begin();
	for (uint64_t m = 0; m <= (1u << 20); m++)
		CHECK(cf_buckets_representable(m) == ref_repr(m),
			  "cf_buckets_representable(%" PRIu64 ") = %d", m, (int) cf_buckets_representable(m));
	for (size_t i = 0; i < sizeof rej / sizeof rej[0]; i++)
		CHECK(!cf_buckets_representable(rej[i]), "cf_buckets_representable(%" PRIu64 ") is true", rej[i]);
	for (size_t i = 0; i < sizeof acc / sizeof acc[0]; i++)
		CHECK(cf_buckets_representable(acc[i]), "cf_buckets_representable(%" PRIu64 ") is false", acc[i]);

	for (uint64_t i = 0; i < 400000; i++)
	{
		uint64_t	r;
		uint32_t	got;
		uint64_t	want;

		if (i < (1u << 18))
			r = i;
		else
		{
			unsigned	bits = 1 + (unsigned) rnd(&s, 33);

			r = sm64(&s) & ((UINT64_C(1) << bits) - 1);
		}
		got = cf_round_buckets(r);
		want = ref_round(r);
		CHECK(got == want, "cf_round_buckets(%" PRIu64 ") = %u, want %" PRIu64, r, got, want);
		if (got != 0)
		{
			CHECK(cf_buckets_representable(got) && got >= r,
				  "cf_round_buckets(%" PRIu64 ") = %u is not a representable count >= the request", r, got);
			if (r >= 256)
			{
				double		ov = (double) (got - r) / (double) r;

				CHECK(ov <= 1.0 / 128, "cf_round_buckets(%" PRIu64 ") = %u: overhead %.5f > 1/128", r, got, ov);
				if (ov > worst)
					worst = ov;
			}
		}
	}
	CHECK(cf_round_buckets(UINT32_MAX) == 0 && cf_round_buckets(UINT64_C(1) << 32) == 0 &&
		  cf_round_buckets(0xFF000001u) == 0 && cf_round_buckets(0xFF000000u) == 0xFF000000u &&
		  cf_round_buckets(0) == 1,
		  "cf_round_buckets edge cases: %u %u %u %u %u", cf_round_buckets(UINT32_MAX),
		  cf_round_buckets(UINT64_C(1) << 32), cf_round_buckets(0xFF000001u),
		  cf_round_buckets(0xFF000000u), cf_round_buckets(0));

	/* fingerprint size for a target false positive rate */
	CHECK(cf_fp_bits_for_fpr(0.01, 4) == 10, "cf_fp_bits_for_fpr(0.01, 4) = %d, want 10",
		  cf_fp_bits_for_fpr(0.01, 4));
	CHECK(cf_fp_bits_for_fpr(1e-12, 4) == -1 && cf_fp_bits_for_fpr(0.0, 2) == -1 &&
		  cf_fp_bits_for_fpr(1e-15, 8) == -1,
		  "absurdly small rates: %d %d %d", cf_fp_bits_for_fpr(1e-12, 4), cf_fp_bits_for_fpr(0.0, 2),
		  cf_fp_bits_for_fpr(1e-15, 8));
	CHECK(cf_fp_bits_for_fpr(1.0, 4) == 4, "cf_fp_bits_for_fpr(1.0, 4) = %d", cf_fp_bits_for_fpr(1.0, 4));
	for (uint32_t b = 2; b <= 8; b *= 2)
		for (double e = 0.5; e > 1e-9; e *= 0.7)
		{
			int			f = cf_fp_bits_for_fpr(e, b);
			double		tl = cf_target_load(b);

			if (f == -1)
			{
				CHECK(cf_expected_fpr(b, 32, tl) > e, "cf_fp_bits_for_fpr(%g, %u) = -1 but 32 bits suffice", e, b);
				continue;
			}
			CHECK(f >= 4 && f <= 32, "cf_fp_bits_for_fpr(%g, %u) = %d", e, b, f);
			CHECK(cf_expected_fpr(b, (uint32_t) f, tl) <= e &&
				  (f == 4 || cf_expected_fpr(b, (uint32_t) f - 1, tl) > e),
				  "cf_fp_bits_for_fpr(%g, %u) = %d is not the smallest sufficient size", e, b, f);
		}

	/* expected false positive rate */
	for (uint32_t b = 2; b <= 8; b *= 2)
	{
		double		tl = cf_target_load(b);

		CHECK(tl > 0.5 && tl < 1.0, "cf_target_load(%u) = %g", b, tl);
		for (uint32_t f = 4; f <= 32; f++)
		{
			double		e = cf_expected_fpr(b, f, 0.9);
			double		approx = 2.0 * b * 0.9 / (ldexp(1.0, (int) f) - 1);

			CHECK(cf_expected_fpr(b, f, 0.0) == 0.0, "expected fpr at load 0 is not 0");
			CHECK(e > 0 && e <= approx && e >= approx * (1 - approx),
				  "cf_expected_fpr(%u, %u, 0.9) = %g, 2b*load/(2^f-1) = %g", b, f, e, approx);
			CHECK(cf_expected_fpr(b, f, 0.5) < e, "expected fpr not increasing in load");
		}
	}

	/* buckets for a capacity, and bits per item */
	for (uint32_t b = 2; b <= 8; b *= 2)
	{
		for (uint64_t n = 1; n <= 20000; n += (n < 100 ? 1 : 37))
		{
			uint32_t	m = cf_buckets_for_capacity(n, b);

			CHECK(m >= 1 && cf_buckets_representable(m) && (uint64_t) m * b >= n,
				  "cf_buckets_for_capacity(%" PRIu64 ", %u) = %u", n, b, m);
			CHECK(n <= b || (double) m * b * cf_target_load(b) >= (double) n,
				  "cf_buckets_for_capacity(%" PRIu64 ", %u) = %u is below the target load", n, b, m);
		}
		for (uint64_t n = 1000; n <= 1000000; n *= 10)
		{
			uint32_t	m = cf_buckets_for_capacity(n, b);

			for (uint32_t f = 4; f <= 32; f++)
			{
				double		bpi = (double) cf_total_bytes(m, b, f, false) * 8 / (double) n;
				double		lim = 1.08 * f / (b == 2 ? 0.80 : 0.95);

				if (b == 4 && f == 12 && n == 1000)
					bpi1k = bpi;
				if (n >= 10000)
				{
					CHECK(bpi <= lim, "b=%u f=%u n=%" PRIu64 ": %.3f bits per item > %.3f", b, f, n, bpi, lim);
					if (b == 4)
					{
						double		sb = (double) cf_total_bytes(m, 4, f, true) * 8 / (double) n;

						CHECK(sb <= 1.08 * (f - 1) / 0.95,
							  "semisort f=%u n=%" PRIu64 ": %.3f bits per item", f, n, sb);
					}
				}
			}
		}
	}
	CHECK(cf_buckets_for_capacity(UINT64_C(1) << 40, 2) == 0, "capacity 2^40 with b=2 did not return 0");

	/* layout sizes */
	for (uint32_t f = 4; f <= 32; f++)
	{
		CHECK(cf_bucket_bits(4, f, true) == 4 * (f - 1) && cf_bucket_bits(8, f, false) == 8 * f,
			  "cf_bucket_bits wrong for f=%u", f);
		for (uint64_t m = 1; m < 300; m += 7)
		{
			size_t		d = cf_data_bytes(m, 2, f, false);

			CHECK(d % 8 == 0 && d * 8 >= m * 2 * f + 64 && d * 8 < m * 2 * f + 128 &&
				  cf_total_bytes(m, 2, f, false) == d + CF_HEADER_SIZE,
				  "cf_data_bytes(%" PRIu64 ", 2, %u) = %zu", m, f, d);
		}
	}
	t_set_note("max rounding overhead %.5f; b=4 f=12 n=1000: %.2f bits/item", worst, bpi1k);
done:
	t_end("sizing");
}

static void
test_params(void)
{
	cf_params	ok,
				p;
	char		err[256];

	t_begin();
	memset(&ok, 0, sizeof ok);
	ok.num_buckets = 256;
	ok.bucket_size = 4;
	ok.fp_bits = 12;
	ok.max_kicks = 500;
	ok.kind = CF_KIND_INTEGER;
	ok.capacity = 1000;
	CHECK(cf_check_params(&ok, err, sizeof err), "valid parameters rejected: %s", err);
#define BAD(field, val) do { \
		p = ok; p.field = (val); err[0] = '\0'; \
		CHECK(!cf_check_params(&p, err, sizeof err) && err[0] != '\0', \
			  "cf_check_params accepted " #field " = %llu", (unsigned long long) (val)); \
	} while (0)
	BAD(bucket_size, 0);
	BAD(bucket_size, 3);
	BAD(bucket_size, 16);
	BAD(fp_bits, 3);
	BAD(fp_bits, 33);
	BAD(num_buckets, 0);
	BAD(num_buckets, 257);
	BAD(max_kicks, CF_MAX_KICKS_LIMIT + 1);
	BAD(kind, CF_KIND_MAX + 1);
	BAD(type_tag, 5);
	BAD(kind, CF_KIND_OTHER);
	BAD(capacity, 0);
	BAD(capacity, 1025);
	p = ok;
	p.bucket_size = 2;
	p.semisort = true;
	CHECK(!cf_check_params(&p, err, sizeof err), "semisort with b=2 accepted");
	p = ok;
	p.num_buckets = 255u << 24;
	p.bucket_size = 8;
	p.fp_bits = 32;
	CHECK(!cf_check_params(&p, err, sizeof err), "a filter of %zu bytes accepted",
		  cf_total_bytes(p.num_buckets, 8, 32, false));
	p = ok;
	p.kind = CF_KIND_OTHER;
	p.type_tag = 1234;
	p.max_kicks = CF_MAX_KICKS_LIMIT;
	p.capacity = 1024;
	CHECK(cf_check_params(&p, err, sizeof err), "kind other with a tag rejected: %s", err);
	for (uint16_t k = 0; k <= CF_KIND_MAX + 1; k++)
		CHECK(cf_kind_name(k) != NULL && cf_kind_name(k)[0] != '\0', "cf_kind_name(%u) empty", k);
	CHECK(strcmp(cf_kind_name(CF_KIND_MAX + 1), cf_kind_name(CF_KIND_MAX)) != 0,
		  "cf_kind_name of an unknown kind equals that of the last kind");
#undef BAD
done:
	t_end("cf_check_params");
}

/* All of this file's test cases, in order. */
void
run_sizing_tests(void)
{
	test_params();
	test_sizing();
}
