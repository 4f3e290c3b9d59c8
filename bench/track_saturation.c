/*
 * track_saturation.c: the commit's apply of a tracked store (docs/DESIGN.md,
 * "Living filters", "Duplicates") on the core alone, for a column whose
 * values repeat: a store made as cuckoo_store_create(name, CAPACITY) makes it
 * (ceil(CAPACITY / 807) growing segments of ceil(CAPACITY / segments) items
 * at fpr 0.01, no address budget), rows g = 1 .. ROWS with the value
 * (g * 7919) % VALS hashed as the extension hashes int8, each add made only
 * while the segment counts fewer than SAT copies of the hash (the
 * saturation; the extension's is b / 2 = 2); then every tenth row deleted
 * as the commit deletes (cf_remove_saturating: nothing when SAT or more
 * entries may be copies of one value) and every value of a remaining row
 * looked up.  Prints the adds refused (the commit would fail
 * with "cuckoo filter is full"), the values of remaining rows not found
 * (refused adds let a later remove take a copy a row still needs) and the
 * buckets the segments grew to.
 *
 *   make -C bench bin/track_saturation
 *   bench/bin/track_saturation [ROWS [VALS [CAPACITY [SAT]]]]
 *       (defaults 1000000 100003 1000000 2: the case)
 *
 * No PostgreSQL needed: the core only.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cf.h"
#include "cf_store.h"

int
main(int argc, char **argv)
{
	int64_t		rows = argc > 1 ? atoll(argv[1]) : 1000000;
	int64_t		vals = argc > 2 ? atoll(argv[2]) : 100003;
	int64_t		capacity = argc > 3 ? atoll(argv[3]) : 1000000;
	uint32_t	sat = argc > 4 ? (uint32_t) atoi(argv[4]) : 2;
	uint32_t	nseg = (uint32_t) ((capacity + 806) / 807);
	cf_filter  *segs = calloc(nseg, sizeof *segs);
	cf_params	p;
	char		err[256] = "";
	int64_t		added = 0,
				skipped = 0,
				refused = 0,
				removed = 0,
				missing = 0;
	uint64_t	buckets = 0,
				largest = 0;

	if (rows < 1 || vals < 1 || capacity < 1 || sat < 1 || !segs)
	{
		fprintf(stderr, "usage: track_saturation [ROWS [VALS [CAPACITY [SAT]]]] (all at least 1)\n");
		return 2;
	}
	if (!cf_params_growing((uint64_t) ((capacity + nseg - 1) / nseg), 0.01, CF_DEFAULT_KICKS, &p,
						   err, sizeof err))
	{
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	p.kind = CF_KIND_INTEGER;
	p.budget = false;
	p.tail_bits = CF_V2_TAIL_BITS;
	for (uint32_t s = 0; s < nseg; s++)
	{
		size_t		len = (size_t) cf_init_bytes(&p);
		uint8_t    *buf = malloc(len);

		if (!buf)
			return 2;
		cf_init(buf, &p);
		cf_open(&segs[s], buf, len);
	}
	for (int64_t g = 1; g <= rows; g++)
	{
		uint64_t	h = cf_hash_u64((uint64_t) ((g * 7919) % vals));
		cf_filter  *cf = &segs[cf_store_segment(h, nseg)];
		cf_status	st;

		if (cf_count(cf, h) >= sat)
		{
			skipped++;
			continue;
		}
		st = cf_insert(cf, h);
		if (st == CF_OK || st == CF_OK_STASHED)
			added++;
		else
			refused++;
	}
	for (int64_t g = 10; g <= rows; g += 10)
	{
		uint64_t	h = cf_hash_u64((uint64_t) ((g * 7919) % vals));
		cf_filter  *cf = &segs[cf_store_segment(h, nseg)];

		if (cf_remove_saturating(cf, h, sat) > 0)
			removed++;
	}
	for (int64_t g = 1; g <= rows; g++)
	{
		uint64_t	h = cf_hash_u64((uint64_t) ((g * 7919) % vals));

		if (g % 10 != 0 && !cf_contains(&segs[cf_store_segment(h, nseg)], h))
			missing++;
	}
	for (uint32_t s = 0; s < nseg; s++)
	{
		buckets += segs[s].m;
		if (segs[s].m > largest)
			largest = segs[s].m;
		free(segs[s].buf);
	}
	printf("rows %lld, values %lld, capacity %lld (%u segments of %u buckets), saturation %u:\n"
		   "  copies added %lld, adds at saturation %lld, adds refused %lld;"
		   " removes %lld; values of remaining rows not found %lld;\n"
		   "  buckets %llu (created %llu), largest segment %llu\n",
		   (long long) rows, (long long) vals, (long long) capacity, nseg, p.num_buckets, sat,
		   (long long) added, (long long) skipped, (long long) refused, (long long) removed,
		   (long long) missing, (unsigned long long) buckets,
		   (unsigned long long) p.num_buckets * nseg, (unsigned long long) largest);
	free(segs);
	return refused > 0 || missing > 0;
}
