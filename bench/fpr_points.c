/*
 * fpr_points.c
 *     Data for the false-positive plot (bench/plots.sh): (2,4) filters, plain
 *     with f = 4..16 and semi-sorted with f = 5..17 (one bit fewer per entry
 *     stored), each filled until the first insert that finds no room; prints
 *     one line per filter: kind, f, bits per entry stored, load factor, bits
 *     per item, measured false-positive rate, the rate expected from the load
 *     (cf_expected_fpr).
 *
 *     usage: fpr_points [log2_buckets (default 18)] [queries (default 4000000)]
 */
#include "cf.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state;

static uint64_t
next_key(void)
{
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

int
main(int argc, char **argv)
{
	int			lg = argc > 1 ? atoi(argv[1]) : 18;
	uint64_t	queries = argc > 2 ? strtoull(argv[2], NULL, 10) : 4000000;
	uint32_t	m = 1u << lg;

	printf("# kind f bits_per_entry load bits_per_item measured_fpr expected_fpr\n");
	for (int ss = 0; ss <= 1; ss++)
		for (uint32_t f = 4 + (uint32_t) ss; f <= 16 + (uint32_t) ss; f++)
		{
			cf_params	p = {.num_buckets = m, .bucket_size = 4, .fp_bits = f,
				.semisort = ss, .max_kicks = CF_DEFAULT_KICKS, .kind = CF_KIND_INTEGER,
			.capacity = (uint64_t) m * 4};
			size_t		len;
			void	   *buf;
			cf_filter	cf;
			uint64_t	n = 0,
						fps = 0;
			double		load;

			if (!cf_check_params(&p, NULL, 0))
				continue;
			len = cf_total_bytes(m, 4, f, ss);
			buf = calloc(1, len);
			cf_init(buf, &p);
			cf_open(&cf, buf, len);
			rng_state = 1000 + f * 7 + ss;
			while (cf_insert(&cf, next_key()) == CF_OK)
				n++;
			rng_state = 0xFEEDFACE0000ULL + f;
			for (uint64_t i = 0; i < queries; i++)
				fps += cf_contains(&cf, next_key());
			load = (double) n / ((double) m * 4);
			printf("%s %u %u %.4f %.3f %.6g %.6g\n", ss ? "semisorted" : "plain", f,
				   ss ? f - 1 : f, load, (double) len * 8 / (double) n,
				   (double) fps / (double) queries, cf_expected_fpr(4, f, load));
			free(buf);
		}
	return 0;
}
