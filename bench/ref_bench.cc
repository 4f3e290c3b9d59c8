/*
 * ref_bench.cc
 *     Our core beside the reference implementation of the paper
 *     (efficient/cuckoofilter, C++), in the same process, on the same keys:
 *     a (2,4) filter with 12-bit fingerprints filled to 94%, cache-resident
 *     (2^16 buckets) and large (2^24 buckets by default), ns per insert,
 *     lookup (0, 50 and 100% positive; ours also batched through
 *     cf_contains_many) and delete, with the ratio ours / reference.
 *
 *     usage: ref_bench [log2_buckets_large (default 24)] [rounds (default 3)]
 *
 * Built by `make -C bench ref` (bench/Makefile).  With CUCKOO_REF_DIR set to a
 * checkout of efficient/cuckoofilter (not part of this repository, and
 * nothing here fetches it) it is compiled with -DWITH_REF against
 * $CUCKOO_REF_DIR/src; without it, it prints our figures alone.
 *
 * Each figure is the median of `rounds` rounds, with the lowest and highest;
 * in each round both filters are built afresh from the same keys and every
 * measurement alternates between them (which one goes first alternates
 * between rounds).  Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
 * so that time the benchmark spends descheduled on a shared machine does not
 * count; the ratio is that of the medians, and the range of the ratios of the
 * two measurements of each round is given beside it.  The reference
 * hashes each 64-bit key (its TwoIndependentMultiplyShift, one 128-bit
 * multiply); ours takes the key as the 64-bit hash it is given by the
 * extension.  Both use ordinary 4 kB pages (no huge-page advice).
 */
#include "ref_ours.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <ctime>
#include <vector>

#ifdef WITH_REF
#include <climits>				/* its hashutil.h uses CHAR_BIT without it */
#include "cuckoofilter.h"
typedef cuckoofilter::CuckooFilter<uint64_t, 12> RefFilter;
#endif

static uint64_t rng_state;

static uint64_t
next_key()
{
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double
now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum
{
	INSERT, LOOK0, LOOK50, LOOK100, BATCH0, BATCH100, DELETE, NOPS
};
static const char *const opname[NOPS] = {
	"insert (to 94%)", "lookup, 0% positive", "lookup, 50% positive",
	"lookup, 100% positive", "lookup batched (ours: cf_contains_many), 0% positive",
	"lookup batched, 100% positive", "delete (10% of the items)"
};

#ifdef WITH_REF
struct RefTimes
{
	static double insert(RefFilter &f, const uint64_t *k, size_t n, size_t *failed)
	{
		double		t0 = now_ns();

		*failed = 0;
		for (size_t i = 0; i < n; i++)
			*failed += f.Add(k[i]) != cuckoofilter::Ok;
		return (now_ns() - t0) / (double) n;
	}
	static double lookup(const RefFilter &f, const uint64_t *k, size_t n, uint64_t *hits)
	{
		double		t0 = now_ns();
		uint64_t	h = 0;

		for (size_t i = 0; i < n; i++)
			h += f.Contain(k[i]) == cuckoofilter::Ok;
		*hits = h;
		return (now_ns() - t0) / (double) n;
	}
	static double remove(RefFilter &f, const uint64_t *k, size_t n, uint64_t *missing)
	{
		double		t0 = now_ns();
		uint64_t	m = 0;

		for (size_t i = 0; i < n; i++)
			m += f.Delete(k[i]) != cuckoofilter::Ok;
		*missing = m;
		return (now_ns() - t0) / (double) n;
	}
};
#endif

/* ratios ours / reference per size, for the goals table (index 0: 2^16, 1: large) */
static double goal_ratio[2][NOPS];

/* per-round samples of one operation; reported as the median and the range */
typedef std::vector<double> Samples;

static void
add_sample(Samples *s, double v)
{
	s->push_back(v);
}

static double
median(Samples s)
{
	std::sort(s.begin(), s.end());
	return s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
}

static double
lowest(const Samples &s)
{
	return *std::min_element(s.begin(), s.end());
}

static double
highest(const Samples &s)
{
	return *std::max_element(s.begin(), s.end());
}

static void
run_size(int lg, int rounds, int slot)
{
	uint32_t	m = 1u << lg;
	size_t		n = (size_t) (0.94 * 4.0 * m);
	size_t		nq = 2000000,
				ndel = n / 10,
				failed;
	std::vector<uint64_t> ins(n), neg(nq), pos(nq), mix(nq);
	Samples		ours[NOPS],
				ref[NOPS];
	uint64_t	hits,
				fneg_ours = 0,
				fneg_ref = 0,
				fp_ours = 0,
				fp_ref = 0;
	size_t		bytes_ours = 0,
				bytes_ref = 0,
				items_ref = 0;

	rng_state = 1234 + lg;
	for (size_t i = 0; i < n; i++)
		ins[i] = next_key();
	rng_state = 98765;
	for (size_t i = 0; i < nq; i++)
		neg[i] = next_key();
	for (size_t i = 0; i < nq; i++)
	{
		pos[i] = ins[(next_key() >> 11) % n];
		mix[i] = (i & 1) ? pos[i] : neg[i];
	}
	for (int r = 0; r < rounds; r++)
	{
		Ours	   *o = ours_new(m, 12);

		bytes_ours = ours_bytes(o);
#ifdef WITH_REF
		RefFilter  *f = new RefFilter(n);

		bytes_ref = f->SizeInBytes();
		for (int side = 0; side < 2; side++)
		{
			if ((side ^ (r & 1)) == 0)
			{
				add_sample(&ours[INSERT], ours_insert(o, ins.data(), n, &failed));
				fneg_ours += failed;
			}
			else
			{
				add_sample(&ref[INSERT], RefTimes::insert(*f, ins.data(), n, &failed));
				fneg_ref += failed;
				items_ref = f->Size();
			}
		}
		for (int side = 0; side < 2; side++)
		{
			if ((side ^ (r & 1)) == 0)
			{
				add_sample(&ours[LOOK0], ours_lookup(o, neg.data(), nq, &hits));
				fp_ours = hits;
				add_sample(&ours[LOOK50], ours_lookup(o, mix.data(), nq, &hits));
				add_sample(&ours[LOOK100], ours_lookup(o, pos.data(), nq, &hits));
				fneg_ours += nq - hits;
				add_sample(&ours[BATCH0], ours_lookup_batched(o, neg.data(), nq, &hits));
				add_sample(&ours[BATCH100], ours_lookup_batched(o, pos.data(), nq, &hits));
				fneg_ours += nq - hits;
			}
			else
			{
				add_sample(&ref[LOOK0], RefTimes::lookup(*f, neg.data(), nq, &hits));
				fp_ref = hits;
				add_sample(&ref[LOOK50], RefTimes::lookup(*f, mix.data(), nq, &hits));
				add_sample(&ref[LOOK100], RefTimes::lookup(*f, pos.data(), nq, &hits));
				fneg_ref += nq - hits;
			}
		}
		for (int side = 0; side < 2; side++)
		{
			if ((side ^ (r & 1)) == 0)
			{
				add_sample(&ours[DELETE], ours_delete(o, ins.data(), ndel, &hits));
				fneg_ours += hits;
			}
			else
			{
				add_sample(&ref[DELETE], RefTimes::remove(*f, ins.data(), ndel, &hits));
				fneg_ref += hits;
			}
		}
		delete f;
#else
		add_sample(&ours[INSERT], ours_insert(o, ins.data(), n, &failed));
		fneg_ours += failed;
		add_sample(&ours[LOOK0], ours_lookup(o, neg.data(), nq, &hits));
		fp_ours = hits;
		add_sample(&ours[LOOK50], ours_lookup(o, mix.data(), nq, &hits));
		add_sample(&ours[LOOK100], ours_lookup(o, pos.data(), nq, &hits));
		fneg_ours += nq - hits;
		add_sample(&ours[BATCH0], ours_lookup_batched(o, neg.data(), nq, &hits));
		add_sample(&ours[BATCH100], ours_lookup_batched(o, pos.data(), nq, &hits));
		fneg_ours += nq - hits;
		add_sample(&ours[DELETE], ours_delete(o, ins.data(), ndel, &hits));
		fneg_ours += hits;
#endif
		ours_free(o);
	}

	printf("\n### 2^%d buckets (%.1f MiB), %zu items, median [lowest-highest] of %d rounds\n\n", lg,
		   (double) bytes_ours / 1048576.0, n, rounds);
#ifdef WITH_REF
	printf("| operation | ours ns | reference ns | ours / reference (medians) | per round |\n|---|---|---|---|---|\n");
	for (int op = 0; op < NOPS; op++)
	{
		/* the reference has no batched lookup: ours batched against its one at a time */
		const Samples &rv = op == BATCH0 ? ref[LOOK0] : op == BATCH100 ? ref[LOOK100] : ref[op];
		Samples		ratio;

		for (size_t r = 0; r < ours[op].size() && r < rv.size(); r++)
			ratio.push_back(ours[op][r] / rv[r]);
		printf("| %s | %.1f [%.1f-%.1f] | %.1f [%.1f-%.1f]%s | %.2f | %.2f-%.2f |\n", opname[op],
			   median(ours[op]), lowest(ours[op]), highest(ours[op]),
			   median(rv), lowest(rv), highest(rv),
			   (op == BATCH0 || op == BATCH100) ? " (one at a time)" : "",
			   median(ours[op]) / median(rv), lowest(ratio), highest(ratio));
		goal_ratio[slot][op] = median(ours[op]) / median(rv);
	}
	printf("\nours: %.2f bits/item, fpr %.3f%%; reference: %.2f bits/item (%zu items), fpr %.3f%%; "
		   "inserts refused or items not found: ours %llu, reference %llu\n",
		   (double) bytes_ours * 8 / (double) n, 100.0 * (double) fp_ours / (double) nq,
		   (double) bytes_ref * 8 / (double) items_ref, items_ref,
		   100.0 * (double) fp_ref / (double) nq,
		   (unsigned long long) fneg_ours, (unsigned long long) fneg_ref);
#else
	(void) ref;
	(void) fneg_ref;
	(void) fp_ref;
	(void) bytes_ref;
	(void) items_ref;
	(void) slot;
	printf("| operation | ours ns |\n|---|---|\n");
	for (int op = 0; op < NOPS; op++)
		printf("| %s | %.1f [%.1f-%.1f] |\n", opname[op], median(ours[op]), lowest(ours[op]),
			   highest(ours[op]));
	printf("\nours: %.2f bits/item, fpr %.3f%%; inserts refused or items not found: %llu\n",
		   (double) bytes_ours * 8 / (double) n, 100.0 * (double) fp_ours / (double) nq,
		   (unsigned long long) fneg_ours);
#endif
}

#ifdef WITH_REF
static const char *
verdict(double r)
{
	return r <= 1.0 ? "met" : "not met";
}

static double
max3(double a, double b, double c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

static double
min3(double a, double b, double c)
{
	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

/* Issue 15's core rows: each goal beside this run's ratio (ours / reference). */
static void
print_goals(int lgbig)
{
	const double *s = goal_ratio[0],
			   *l = goal_ratio[1];

	printf("\n### Goals of issue 15 (core), measured in this run\n\n");
	printf("Lookups: the range over 0, 50 and 100%% positive; the verdict takes the worst.\n\n");
	printf("| what | goal | measured | verdict |\n|---|---|---|---|\n");
	printf("| core lookup, cache-resident (2^16 buckets, f = 12) / efficient/cuckoofilter | <= 1.0 | %.2f-%.2f | %s |\n",
		   min3(s[LOOK0], s[LOOK50], s[LOOK100]), max3(s[LOOK0], s[LOOK50], s[LOOK100]),
		   verdict(max3(s[LOOK0], s[LOOK50], s[LOOK100])));
	if (lgbig > 16)
	{
		printf("| core lookup, 2^%d buckets, one at a time / the same | <= 1.0 | %.2f-%.2f | %s |\n", lgbig,
			   min3(l[LOOK0], l[LOOK50], l[LOOK100]), max3(l[LOOK0], l[LOOK50], l[LOOK100]),
			   verdict(max3(l[LOOK0], l[LOOK50], l[LOOK100])));
		printf("| the same, ours batched (cf_contains_many) / its one at a time | <= 1.0 | %.2f, %.2f (0%%, 100%% positive) | %s |\n",
			   l[BATCH0], l[BATCH100], verdict(l[BATCH0] > l[BATCH100] ? l[BATCH0] : l[BATCH100]));
	}
	printf("| core insert, cache-resident / the same | <= 1.0 | %.2f | %s |\n", s[INSERT], verdict(s[INSERT]));
	if (lgbig > 16)
	{
		printf("| core insert, 2^%d buckets / the same | <= 1.0 | %.2f | %s |\n", lgbig, l[INSERT], verdict(l[INSERT]));
		printf("| core delete, 2^%d buckets / the same | <= 1.0 | %.2f | %s |\n", lgbig, l[DELETE], verdict(l[DELETE]));
	}
	printf("| core delete, cache-resident / the same | <= 1.0 | %.2f | %s |\n", s[DELETE], verdict(s[DELETE]));
}
#endif

int
main(int argc, char **argv)
{
	int			lgbig = argc > 1 ? atoi(argv[1]) : 24;
	int			rounds = argc > 2 ? atoi(argv[2]) : 3;

#ifdef WITH_REF
	printf("## Core against the reference (efficient/cuckoofilter), same process, same keys\n");
#else
	printf("## Core alone (set CUCKOO_REF_DIR to a checkout of efficient/cuckoofilter to run the reference beside it)\n");
#endif
	run_size(16, rounds, 0);
	if (lgbig > 16)
		run_size(lgbig, rounds, 1);
#ifdef WITH_REF
	print_goals(lgbig);
#endif
	return 0;
}
