/*
 * test_table.c
 *     Unit tests of the core: items in and out of a filter (the sweep over every shape, the paper's
 *     Table 3, batched lookups, the victim slot, duplicates, determinism) and
 *     the item hash.
 */
#include "unit.h"
#include "cf_v1.h"			/* the generic item operations, to compare with */

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ========================================================================
 * 1. Correctness sweep over every fingerprint size and bucket size
 * ======================================================================== */

static void
test_sweep_one(uint32_t b, uint32_t f, bool ss)
{
	char		name[80];
	filt		F = {0},
				E = {0};
	uint64_t   *it = NULL;
	uint64_t	cap,
				s,
				n,
				i,
				stashed = 0,
				fpcount = 0,
				mismatch = 0;
	uint32_t	m;
	const uint64_t Q = 200000;
	double		load,
				expv,
				meas,
				bound;

	snprintf(name, sizeof name, "sweep b=%u f=%u%s", b, f, ss ? " semisort" : "");
	t_begin();
	cap = 2000 + (f * 131u + b * 977u + (ss ? 500u : 0u)) % 3001u;
	s = UINT64_C(0x5EED000000000000) ^ ((uint64_t) f << 16) ^ ((uint64_t) b << 8) ^ (ss ? 1u : 0u);
	m = cf_buckets_for_capacity(cap, b);
	CHECK(m > 0 && cf_buckets_representable(m) && (uint64_t) m * b >= cap,
		  "cf_buckets_for_capacity(%" PRIu64 ", %u) = %u", cap, b, m);
	REQUIRE(fnew(&F, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, cap));
	it = malloc(cap * sizeof *it);
	CHECK(it != NULL, "out of memory");
	for (n = 0; n < cap; n++)
	{
		cf_status	st;

		it[n] = sm64(&s);
		st = cf_insert(&F.cf, it[n]);
		CHECK(st == CF_OK || st == CF_OK_STASHED,
			  "insert %" PRIu64 " of %" PRIu64 " (m=%u, load %.4f) returned %s",
			  n + 1, cap, m, (double) n / ((double) m * b), stname(st));
		stashed += st == CF_OK_STASHED;
	}
	CHECK(cf_items(&F.cf) == cap, "cf_items %" PRIu64 " after %" PRIu64 " inserts",
		  cf_items(&F.cf), cap);
	REQUIRE(fvalid(&F, "after filling"));
	REQUIRE(all_found(&F, it, cap, "after filling"));

	for (i = 0; i < cap; i += 2)
		CHECK(cf_remove(&F.cf, it[i]), "cf_remove of inserted item %" PRIu64 " returned false", i);
	REQUIRE(fvalid(&F, "after removing half"));
	CHECK(cf_items(&F.cf) == cap / 2, "cf_items %" PRIu64 " after removing half, want %" PRIu64,
		  cf_items(&F.cf), cap / 2);
	for (i = 1; i < cap; i += 2)
		CHECK(cf_contains(&F.cf, it[i]) && cf_count(&F.cf, it[i]) >= 1,
			  "false negative after removing the other half: item %" PRIu64 " (hash %016" PRIx64 ")",
			  i, it[i]);

	load = (double) cf_items(&F.cf) / ((double) m * b);
	expv = cf_expected_fpr(b, f, load);
	for (i = 0; i < Q; i++)
	{
		uint64_t	h = sm64(&s);	/* same stream: never a member */
		bool		c = cf_contains(&F.cf, h);

		fpcount += c;
		if ((i & 7) == 0 && c != (cf_count(&F.cf, h) > 0))
			mismatch++;
	}
	CHECK(mismatch == 0, "cf_contains and cf_count disagree on %" PRIu64 " queries", mismatch);
	meas = (double) fpcount / (double) Q;
	bound = 1.3 * expv + 5.0 * sqrt(expv / (double) Q) + 1e-6;
	CHECK(meas <= bound,
		  "false positive rate %.5f%% above the bound %.5f%% (expected %.5f%% at load %.4f, %" PRIu64 " queries)",
		  100 * meas, 100 * bound, 100 * expv, load, Q);

	for (i = 1; i < cap; i += 2)
		CHECK(cf_remove(&F.cf, it[i]), "cf_remove of inserted item %" PRIu64 " returned false", i);
	CHECK(cf_items(&F.cf) == 0 && !cf_victim_used(&F.cf),
		  "after removing everything: %" PRIu64 " items, victim %d",
		  cf_items(&F.cf), (int) cf_victim_used(&F.cf));
	REQUIRE(fnew(&E, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, cap));
	CHECK(memcmp(E.buf, F.buf, F.len) == 0,
		  "a filter with every item removed is not byte-identical to an empty one");
	t_set_note("m=%u load %.3f fpr %.4f%% expected %.4f%%%s", m, load, 100 * meas, 100 * expv,
			   stashed ? " (stashed once)" : "");
done:
	free(it);
	ffree(&F);
	ffree(&E);
	t_end(name);
}

static void
test_sweep(void)
{
	static const uint32_t bs[] = {2, 4, 8};

	for (int bi = 0; bi < 3; bi++)
		for (uint32_t f = 4; f <= 32; f++)
			test_sweep_one(bs[bi], f, false);
	for (uint32_t f = 4; f <= 32; f++)
		test_sweep_one(4, f, true);
}

/* ========================================================================
 * 2. Table 3 of the paper: a (2,4) filter of 2^20 buckets filled to its
 *    first failure (2^18 under UNIT_LIGHT: the plain run has the paper's
 *    size; the false-positive rate is measured on as many probes)
 * ======================================================================== */

static void
test_table3(bool ss)
{
	const char *name = ss ? "table3 semisort" : "table3 plain";
	const uint32_t m = unit_light ? 1u << 18 : 1u << 20,
				b = 4,
				f = ss ? 13 : 12;
	const uint64_t Q = 2000000;
	const double max_fpr = ss ? 0.001 : 0.002;
	filt		F = {0};
	uint64_t   *it = NULL;
	uint64_t	s = ss ? 0x7AB1E3A5 : 0x7AB1E3B0,
				n = 0,
				fp = 0;
	cf_status	st = CF_OK;
	double		load,
				fpr;

	t_begin();
	CHECK(cf_total_bytes(m, 4, 13, true) == cf_total_bytes(m, 4, 12, false),
		  "semisort f=13 does not take the space of plain f=12 (%zu vs %zu bytes)",
		  cf_total_bytes(m, 4, 13, true), cf_total_bytes(m, 4, 12, false));
	REQUIRE(fnew(&F, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	it = malloc(((uint64_t) m * b + 1) * sizeof *it);
	CHECK(it != NULL, "out of memory");
	for (;;)
	{
		uint64_t	h = sm64(&s);

		CHECK(n <= (uint64_t) m * b, "more inserts succeeded than the table has entries");
		st = cf_insert(&F.cf, h);
		if (st == CF_OK || st == CF_OK_STASHED)
			it[n++] = h;
		if (st != CF_OK)
			break;
	}
	CHECK(st == CF_OK_STASHED, "filling ended with %s, expected CF_OK_STASHED", stname(st));
	load = (double) n / ((double) m * b);
	CHECK(cf_items(&F.cf) == n, "cf_items %" PRIu64 " != %" PRIu64, cf_items(&F.cf), n);
	REQUIRE(fvalid(&F, "after filling"));
	REQUIRE(all_found(&F, it, n, "after filling"));
	for (uint64_t i = 0; i < Q; i++)
		fp += cf_contains(&F.cf, sm64(&s));
	fpr = (double) fp / (double) Q;
	CHECK(load >= 0.95, "load factor at the first failure is %.4f, want >= 0.95", load);
	CHECK(fpr <= max_fpr, "false positive rate %.4f%% (load %.4f), want <= %.2f%%",
		  100 * fpr, load, 100 * max_fpr);
	t_set_note("%u buckets: load %.4f fpr %.4f%% (expected %.4f%%), %.2f bits/item", m, load, 100 * fpr,
			   100 * cf_expected_fpr(b, f, load), (double) F.len * 8 / (double) n);
done:
	free(it);
	ffree(&F);
	t_end(name);
}

/* ========================================================================
 * 3. The victim slot
 * ======================================================================== */

/*
 * cf_contains_many answers exactly as cf_contains, for every batch length
 * around the pipeline depth, on word-probed and general shapes, with the
 * victim slot in use (filled until the first stash) and without.
 */
static void
test_contains_many(uint32_t m, uint32_t b, uint32_t f, bool ss, bool stash)
{
	char		name[96];
	filt		F = {0};
	uint64_t   *q = NULL;
	bool	   *out = NULL;
	uint64_t	s = 0xBA7C4 + m + b * 7 + f * 131 + ss + stash * 3;
	const size_t nq = 4000;
	const size_t lens[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 1000, 4000};
	size_t		hits = 0,
				members = 0;

	snprintf(name, sizeof name, "contains_many b=%u f=%u m=%u%s%s", b, f, m,
			 ss ? " semisort" : "", stash ? " victim in use" : "");
	t_begin();
	REQUIRE(fnew(&F, m, b, f, ss, 50, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	q = malloc(nq * sizeof *q);
	out = malloc(nq * sizeof *out);
	CHECK(q && out, "out of memory");
	/* queries: every other one a member */
	for (size_t i = 0; i < nq; i++)
		q[i] = sm64(&s);
	for (size_t i = 0; i < nq; i += 2)
	{
		cf_status	st;

		if (!stash && cf_items(&F.cf) >= (uint64_t) (0.85 * m * b))
			break;
		st = cf_insert(&F.cf, q[i]);
		if (st == CF_FULL)
			break;
		CHECK(st == CF_OK || st == CF_OK_STASHED, "insert returned %s", stname(st));
		members++;
		if (st == CF_OK_STASHED)
			break;
	}
	CHECK(!stash || cf_victim_used(&F.cf), "the victim slot was never used");
	for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
	{
		size_t		len = lens[l];

		memset(out, 0xAA, nq * sizeof *out);
		cf_contains_many(&F.cf, q, len, out);
		for (size_t i = 0; i < len; i++)
			CHECK(out[i] == cf_contains(&F.cf, q[i]),
				  "batch of %zu: answer %zu is %d, cf_contains says %d", len, i,
				  (int) out[i], (int) cf_contains(&F.cf, q[i]));
		for (size_t i = len; i < nq && i < len + 8; i++)
			CHECK(*(unsigned char *) &out[i] == 0xAA, "batch of %zu wrote past its end", len);
	}
	for (size_t i = 0; i < nq; i++)
		hits += out[i];
	CHECK(hits >= members, "%zu hits for %zu members", hits, members);
	t_set_note("%zu members, %zu hits of %zu", members, hits, nq);
done:
	free(q);
	free(out);
	ffree(&F);
	t_end(name);
}

static void
test_victim(uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks, uint64_t seed)
{
	char		name[96];
	filt		F = {0},
				C = {0},
				E = {0};
	uint64_t   *it = NULL;
	uint8_t    *before = NULL;
	size_t		n = 0,
				nmax = (size_t) m * b + 1,
				nfull = 0,
				stash_at = 0,
				tries;
	uint64_t	s = seed;
	bool		moved_back = false,
				complete = false;

	snprintf(name, sizeof name, "victim slot b=%u f=%u m=%u%s kicks=%u", b, f, m,
			 ss ? " semisort" : "", kicks);
	t_begin();
	REQUIRE(fnew(&F, m, b, f, ss, kicks, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	it = malloc((nmax + 1) * sizeof *it);
	before = malloc(F.len);
	CHECK(it && before, "out of memory");

	/* fill until the victim slot is taken */
	for (tries = 0;; tries++)
	{
		uint64_t	h = sm64(&s);
		cf_status	st;

		CHECK(tries < 100000, "no CF_OK_STASHED after %zu inserts", tries);
		st = cf_insert(&F.cf, h);
		CHECK(st == CF_OK || st == CF_OK_STASHED, "insert %zu returned %s", n + 1, stname(st));
		it[n++] = h;
		REQUIRE(fvalid(&F, "while filling"));
		CHECK(cf_items(&F.cf) == n, "cf_items %" PRIu64 " after %zu inserts", cf_items(&F.cf), n);
		if (st == CF_OK_STASHED)
			break;
		CHECK(!cf_victim_used(&F.cf), "victim slot in use after CF_OK");
	}
	stash_at = n;
	CHECK(cf_victim_used(&F.cf), "CF_OK_STASHED but cf_victim_used is false");
	REQUIRE(all_found(&F, it, n, "right after the stash"));

	/* further inserts: CF_OK where there is room, else CF_FULL with no change */
	for (tries = 0; tries < 4000 && n < nmax; tries++)
	{
		uint64_t	h = sm64(&s);
		cf_status	st;

		memcpy(before, F.buf, F.len);
		st = cf_insert(&F.cf, h);
		if (st == CF_OK)
			it[n++] = h;
		else
		{
			CHECK(st == CF_FULL, "insert with the victim slot in use returned %s", stname(st));
			CHECK(memcmp(before, F.buf, F.len) == 0, "an insert returning CF_FULL changed the filter");
			nfull++;
		}
		CHECK(cf_victim_used(&F.cf), "victim slot emptied by an insert");
		REQUIRE(fvalid(&F, "after an insert with the victim slot in use"));
	}
	if (n == nmax)
	{
		complete = true;
		for (int j = 0; j < 200; j++)
		{
			cf_status	st;

			memcpy(before, F.buf, F.len);
			st = cf_insert(&F.cf, sm64(&s));
			CHECK(st == CF_FULL, "insert into a completely full filter returned %s", stname(st));
			CHECK(memcmp(before, F.buf, F.len) == 0, "CF_FULL changed a completely full filter");
			nfull++;
		}
		REQUIRE(fvalid(&F, "completely full"));
	}
	CHECK(nfull > 0, "no insert returned CF_FULL in %zu tries", tries);
	REQUIRE(all_found(&F, it, n, "with the victim slot in use"));

	/*
	 * With max_kicks = 0 the victim can only go back into one of its own two
	 * buckets: find an item (other than the stashed one) whose removal frees
	 * a slot there, and check the victim moves back.
	 */
	if (kicks == 0)
	{
		size_t		j;

		for (j = 0; j < n; j++)
		{
			if (j == stash_at - 1)
				continue;
			REQUIRE(fclone(&C, &F));
			CHECK(cf_remove(&C.cf, it[j]), "cf_remove of stored item %zu returned false", j);
			if (!cf_victim_used(&C.cf))
			{
				ffree(&C);
				break;
			}
			ffree(&C);
		}
		CHECK(j < n, "no removal moved the victim back into the table");
		CHECK(cf_remove(&F.cf, it[j]), "cf_remove returned false");
		CHECK(!cf_victim_used(&F.cf), "victim not moved back after its bucket got room");
		moved_back = true;
		it[j] = it[--n];
		CHECK(cf_items(&F.cf) == n, "cf_items %" PRIu64 ", want %zu", cf_items(&F.cf), n);
		REQUIRE(fvalid(&F, "after the victim moved back"));
		REQUIRE(all_found(&F, it, n, "after the victim moved back"));
	}

	/* remove the rest in random order; the filter stays valid throughout */
	shuffle_u64(it, n, &s);
	while (n > 0)
	{
		CHECK(cf_remove(&F.cf, it[n - 1]), "cf_remove of a stored item returned false (%zu left)", n);
		n--;
		if (!cf_victim_used(&F.cf))
			moved_back = true;
		CHECK(cf_items(&F.cf) == n, "cf_items %" PRIu64 ", want %zu", cf_items(&F.cf), n);
		REQUIRE(fvalid(&F, "while emptying"));
		REQUIRE(all_found(&F, it, n, "while emptying"));
	}
	CHECK(moved_back && !cf_victim_used(&F.cf), "victim slot still in use in an empty filter");
	REQUIRE(fnew(&E, m, b, f, ss, kicks, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	CHECK(memcmp(E.buf, F.buf, F.len) == 0, "emptied filter differs from a fresh one");
	t_set_note("stashed at item %zu of %zu entries, %zu CF_FULL%s", stash_at, nmax - 1, nfull,
			   complete ? ", filled completely" : "");
done:
	free(it);
	free(before);
	ffree(&F);
	ffree(&C);
	ffree(&E);
	t_end(name);
}

/* ========================================================================
 * 4. Duplicates
 * ======================================================================== */

static void
test_dups(uint32_t b, uint32_t f, bool ss)
{
	char		name[64];
	filt		F = {0},
				E = {0};
	uint8_t    *before = NULL;
	const uint32_t m = 64;
	uint64_t	s = 0xD0B1E5 + b * 100 + f + (ss ? 7 : 0),
				h,
				h2,
				h3 = 0;
	uint32_t	fp,
				i1,
				i2,
				fp2,
				j1,
				j2;
	cf_status	st;
	int			tries;

	snprintf(name, sizeof name, "duplicates b=%u f=%u%s", b, f, ss ? " semisort" : "");
	t_begin();
	REQUIRE(fnew(&F, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	REQUIRE(fnew(&E, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	before = malloc(F.len);
	CHECK(before != NULL, "out of memory");
	do
	{
		h = sm64(&s);
		cf_locate(&F.cf, h, &fp, &i1);
		i2 = cf_alt_bucket(&F.cf, i1, fp);
	} while (i1 == i2);
	CHECK(fp >= 1 && fp < (1ull << f) && i1 < m && i2 < m, "cf_locate out of range");
	CHECK(cf_alt_bucket(&F.cf, i2, fp) == i1, "cf_alt_bucket is not an involution");

	for (uint32_t k = 0; k < 2 * b; k++)
	{
		st = cf_insert(&F.cf, h);
		CHECK(st == CF_OK, "copy %u of %u returned %s", k + 1, 2 * b, stname(st));
		CHECK(cf_count(&F.cf, h) == k + 1, "cf_count %u after %u copies", cf_count(&F.cf, h), k + 1);
	}
	memcpy(before, F.buf, F.len);
	st = cf_insert(&F.cf, h);
	CHECK(st == CF_TOO_MANY_COPIES, "copy %u returned %s, want CF_TOO_MANY_COPIES", 2 * b + 1, stname(st));
	CHECK(memcmp(before, F.buf, F.len) == 0, "CF_TOO_MANY_COPIES changed the filter");
	CHECK(cf_count(&F.cf, h) == 2 * b, "cf_count %u, want %u", cf_count(&F.cf, h), 2 * b);
	CHECK(cf_items(&F.cf) == 2 * b, "cf_items %" PRIu64, cf_items(&F.cf));
	REQUIRE(fvalid(&F, "with 2b copies"));
	st = cf_insert_if_absent(&F.cf, h);
	CHECK(st == CF_EXISTS, "cf_insert_if_absent of a present item returned %s", stname(st));
	CHECK(memcmp(before, F.buf, F.len) == 0, "cf_insert_if_absent of a present item changed the filter");

	CHECK(cf_remove(&F.cf, h), "cf_remove of a stored duplicate returned false");
	CHECK(cf_count(&F.cf, h) == 2 * b - 1, "cf_count %u after one removal, want %u",
		  cf_count(&F.cf, h), 2 * b - 1);
	CHECK(cf_contains(&F.cf, h), "duplicate not found after removing one copy");
	REQUIRE(fvalid(&F, "after removing one copy"));
	memcpy(before, F.buf, F.len);
	st = cf_insert_if_absent(&F.cf, h);
	CHECK(st == CF_EXISTS && memcmp(before, F.buf, F.len) == 0,
		  "cf_insert_if_absent with 2b-1 copies returned %s or changed bytes", stname(st));
	st = cf_insert(&F.cf, h);
	CHECK(st == CF_OK && cf_count(&F.cf, h) == 2 * b, "re-adding copy 2b returned %s, count %u",
		  stname(st), cf_count(&F.cf, h));

	/* another item, in other buckets with another fingerprint, still goes in */
	do
	{
		h2 = sm64(&s);
		cf_locate(&F.cf, h2, &fp2, &j1);
		j2 = cf_alt_bucket(&F.cf, j1, fp2);
	} while (fp2 == fp || j1 == i1 || j1 == i2 || j2 == i1 || j2 == i2);
	CHECK(!cf_contains(&F.cf, h2), "false positive in a filter holding one fingerprint");
	st = cf_insert_if_absent(&F.cf, h2);
	CHECK(st == CF_OK, "cf_insert_if_absent of an absent item returned %s", stname(st));
	memcpy(before, F.buf, F.len);
	st = cf_insert_if_absent(&F.cf, h2);
	CHECK(st == CF_EXISTS && memcmp(before, F.buf, F.len) == 0,
		  "second cf_insert_if_absent returned %s or changed bytes", stname(st));
	CHECK(cf_count(&F.cf, h2) == 1, "cf_count of a single item is %u", cf_count(&F.cf, h2));

	for (uint32_t k = 2 * b; k > 0; k--)
	{
		CHECK(cf_remove(&F.cf, h), "removing copy %u returned false", k);
		CHECK(cf_count(&F.cf, h) == k - 1, "cf_count %u, want %u", cf_count(&F.cf, h), k - 1);
	}
	CHECK(!cf_contains(&F.cf, h), "item found after every copy was removed");
	memcpy(before, F.buf, F.len);
	CHECK(!cf_remove(&F.cf, h), "cf_remove of an absent item returned true");
	CHECK(memcmp(before, F.buf, F.len) == 0, "cf_remove of an absent item changed the filter");
	CHECK(cf_remove(&F.cf, h2), "cf_remove of the other item returned false");
	CHECK(memcmp(E.buf, F.buf, F.len) == 0, "emptied filter differs from a fresh one");

	/* an item whose two candidate buckets coincide holds only b copies */
	for (tries = 0; tries < 1000000; tries++)
	{
		h3 = sm64(&s);
		cf_locate(&F.cf, h3, &fp, &i1);
		if (cf_alt_bucket(&F.cf, i1, fp) == i1)
			break;
	}
	CHECK(tries < 1000000, "found no item whose alternate bucket is its own");
	for (uint32_t k = 0; k < b; k++)
	{
		st = cf_insert(&F.cf, h3);
		CHECK(st == CF_OK, "self-paired copy %u returned %s", k + 1, stname(st));
	}
	memcpy(before, F.buf, F.len);
	st = cf_insert(&F.cf, h3);
	CHECK(st == CF_TOO_MANY_COPIES && memcmp(before, F.buf, F.len) == 0,
		  "self-paired copy %u returned %s (want CF_TOO_MANY_COPIES, no change)", b + 1, stname(st));
	CHECK(cf_count(&F.cf, h3) == b, "self-paired count %u, want %u", cf_count(&F.cf, h3), b);
	REQUIRE(fvalid(&F, "with a full self-paired bucket"));
	for (uint32_t k = 0; k < b; k++)
		CHECK(cf_remove(&F.cf, h3), "removing self-paired copy returned false");
	CHECK(memcmp(E.buf, F.buf, F.len) == 0, "emptied filter differs from a fresh one");
done:
	free(before);
	ffree(&F);
	ffree(&E);
	t_end(name);
}

/* ========================================================================
 * 10. Determinism
 * ======================================================================== */

static void
test_determinism(uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks)
{
	char		name[80];
	filt		A = {0},
				B = {0};
	uint64_t   *it = NULL;
	uint64_t	s = 0xDE7E + m + b + f;
	size_t		n = (size_t) m * b + 40,
				stored = 0,
				nfull = 0;

	snprintf(name, sizeof name, "determinism b=%u f=%u m=%u%s kicks=%u", b, f, m, ss ? " semisort" : "", kicks);
	t_begin();
	REQUIRE(fnew(&A, m, b, f, ss, kicks, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	REQUIRE(fnew(&B, m, b, f, ss, kicks, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	it = malloc(n * sizeof *it);
	CHECK(it != NULL, "out of memory");
	for (size_t i = 0; i < n; i++)
	{
		cf_status	sa,
					sb;

		it[i] = sm64(&s);
		sa = cf_insert(&A.cf, it[i]);
		sb = cf_insert(&B.cf, it[i]);
		CHECK(sa == sb, "insert %zu: %s vs %s", i, stname(sa), stname(sb));
		stored += sa == CF_OK || sa == CF_OK_STASHED;
		nfull += sa == CF_FULL;
		CHECK(memcmp(A.buf, B.buf, A.len) == 0, "filters differ after insert %zu", i);
		if (i % 3 == 2)
		{
			bool		ra = cf_remove(&A.cf, it[i - 1]),
						rb = cf_remove(&B.cf, it[i - 1]);

			CHECK(ra == rb && memcmp(A.buf, B.buf, A.len) == 0, "filters differ after a removal");
		}
	}
	REQUIRE(fvalid(&A, "at the end"));
	t_set_note("%zu inserts stored, %zu CF_FULL, %zu bytes identical", stored, nfull, A.len);
done:
	free(it);
	ffree(&A);
	ffree(&B);
	t_end(name);
}

/* ========================================================================
 * 11. Hashing
 * ======================================================================== */

static void
test_hash(void)
{
	uint64_t	s = 0x4A54;
	uint8_t		buf[320];
	static const uint64_t edge[] = {0, 1, UINT64_MAX, UINT64_C(0x0102030405060708), UINT64_C(1) << 63};

	t_begin();
	CHECK(cf_hash_bytes("", 0) == UINT64_C(0x2D06800538D394C2),
		  "cf_hash_bytes of the empty string is %016" PRIx64 ", want XXH3 2d06800538d394c2",
		  cf_hash_bytes("", 0));
	for (int i = 0; i < 20000; i++)
	{
		uint64_t	v = i < 5 ? edge[i] : sm64(&s);
		uint8_t		le[8];

		for (int k = 0; k < 8; k++)
			le[k] = (uint8_t) (v >> (8 * k));
		CHECK(cf_hash_u64(v) == cf_hash_bytes(le, 8),
			  "cf_hash_u64(%016" PRIx64 ") differs from cf_hash_bytes of its little-endian bytes", v);
		CHECK(cf_hash_u64(v) == XXH3_64bits(le, 8), "cf_hash_u64(%016" PRIx64 ") is not XXH3_64bits", v);
	}
	for (size_t n = 0; n <= 300; n++)
	{
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t) sm64(&s);
		CHECK(cf_hash_bytes(buf, n) == XXH3_64bits(buf, n), "cf_hash_bytes of %zu bytes is not XXH3_64bits", n);
	}
done:
	t_end("hash: cf_hash_u64 = cf_hash_bytes(le64) = XXH3_64bits");
}

/* ========================================================================
 * 7. The item operations chosen by shape against the generic ones
 * ======================================================================== */

/*
 * cf_open chooses per-shape lookup, insert and delete functions
 * (cf_choose_paths in cf_shape.c).  A random filter of the given shape is
 * filled to about 90% or, with `victim`, until the victim slot is in use (and
 * one insert more), through cf_insert, and a second one through
 * cf_insert_generic: the same statuses and bytes after every insert.  Then
 * cf_contains and
 * cf_contains_many answer as cf_contains_generic and cf_contains_many_generic
 * for members and non-members (and every member is found); then the keys are
 * deleted in random order, with non-members and repeats among them, through
 * cf_remove on the first and cf_remove_generic on the second: the same
 * answers and, after every delete, the same bytes.
 */
static bool
is_special_shape(uint32_t b, uint32_t f)
{
	return (b == 4 && (f == 8 || f == 12 || f == 16)) ||
		((b == 2 || b == 8) && (f == 8 || f == 16));
}

static void
test_shape_paths(uint32_t m, uint32_t b, uint32_t f, bool ss, bool victim, uint64_t seed)
{
	char		name[112];
	filt		F = {0},
				G = {0};
	uint64_t   *it = NULL,
			   *q = NULL,
			   *del = NULL;
	bool	   *out = NULL,
			   *gout = NULL;
	uint64_t	s = seed;
	size_t		n = 0,
				nmax = (size_t) m * b + 1,
				nq,
				nd = 0,
				removed = 0;
	const size_t lens[] = {0, 1, 7, 8, 9, 100};

	snprintf(name, sizeof name, "shape paths b=%u f=%u m=%u%s%s", b, f, m,
			 ss ? " semisort" : "", victim ? " victim in use" : "");
	t_begin();
	REQUIRE(fnew(&F, m, b, f, ss, 100, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	REQUIRE(fnew(&G, m, b, f, ss, 100, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	if (!ss && is_special_shape(b, f))
	{
		CHECK(F.cf.contains_fn != cf_contains_generic &&
			  F.cf.contains_many_fn != cf_contains_many_generic,
			  "no specialised lookup chosen for this shape");
		CHECK(b * f > 64 || (F.cf.remove_fn != cf_remove_generic &&
							 F.cf.insert_fn != cf_insert_generic),
			  "no specialised insert or delete chosen for this shape");
	}
	it = malloc(nmax * sizeof *it);
	nq = 2 * nmax + 200;
	q = malloc(nq * sizeof *q);
	del = malloc((2 * nmax + 100) * sizeof *del);
	out = malloc(nq * sizeof *out);
	gout = malloc(nq * sizeof *gout);
	CHECK(it && q && del && out && gout, "out of memory");
	while (n < nmax)
	{
		uint64_t	h = sm64(&s);
		cf_status	st,
					gst;

		if (!victim && cf_items(&F.cf) >= (uint64_t) (0.9 * m * b))
			break;
		st = cf_insert(&F.cf, h);
		gst = cf_insert_generic(&G.cf, h);
		CHECK(st == gst, "insert %zu: cf_insert %s, generic %s", n, stname(st), stname(gst));
		CHECK(memcmp(F.buf, G.buf, F.len) == 0, "bytes differ after insert %zu", n);
		if (st == CF_FULL)
			break;
		CHECK(st == CF_OK || st == CF_OK_STASHED, "insert returned %s", stname(st));
		it[n++] = h;
		if (st == CF_OK_STASHED)
		{
			/* and the next, refused with the victim slot in use */
			h = sm64(&s);
			st = cf_insert(&F.cf, h);
			gst = cf_insert_generic(&G.cf, h);
			CHECK(st == gst, "insert after the stash: cf_insert %s, generic %s",
				  stname(st), stname(gst));
			CHECK(memcmp(F.buf, G.buf, F.len) == 0, "bytes differ after the stash");
			if (st == CF_OK)
				it[n++] = h;
			break;
		}
	}
	CHECK(!victim || cf_victim_used(&F.cf), "the victim slot was never used");

	/* lookups: members, then as many non-members */
	for (size_t i = 0; i < nq; i++)
		q[i] = i < n ? it[i] : sm64(&s);
	for (size_t i = 0; i < nq; i++)
	{
		bool		a = cf_contains(&F.cf, q[i]),
					g = cf_contains_generic(&F.cf, q[i]);

		CHECK(a == g, "lookup %zu: cf_contains %d, generic %d", i, (int) a, (int) g);
		CHECK(i >= n || a, "member %zu not found", i);
	}
	for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
	{
		size_t		len = lens[l] < nq ? lens[l] : nq;

		for (size_t off = 0; off + len <= nq; off += len > 0 ? len : nq)
		{
			cf_contains_many(&F.cf, q + off, len, out);
			cf_contains_many_generic(&F.cf, q + off, len, gout);
			for (size_t i = 0; i < len; i++)
				CHECK(out[i] == gout[i], "batch of %zu at %zu: answer %zu is %d, generic %d",
					  len, off, i, (int) out[i], (int) gout[i]);
			if (len == 0)
				break;
		}
	}

	/* deletes: members in random order, non-members and repeats between them */
	for (size_t i = 0; i < n; i++)
	{
		del[nd++] = it[i];
		if (rnd(&s, 4) == 0)
			del[nd++] = sm64(&s);
		if (rnd(&s, 8) == 0)
			del[nd++] = it[rnd(&s, i + 1)];
	}
	shuffle_u64(del, nd, &s);
	for (size_t i = 0; i < nd; i++)
	{
		bool		a = cf_remove(&F.cf, del[i]),
					g = cf_remove_generic(&G.cf, del[i]);

		CHECK(a == g, "delete %zu: cf_remove %d, generic %d", i, (int) a, (int) g);
		CHECK(memcmp(F.buf, G.buf, F.len) == 0, "bytes differ after delete %zu", i);
		removed += a;
	}
	CHECK(cf_items(&F.cf) == 0 && !cf_victim_used(&F.cf),
		  "%" PRIu64 " items left after deleting every member", cf_items(&F.cf));
	REQUIRE(fvalid(&F, "after the deletes"));
	t_set_note("%zu members, %zu deletes, %zu removed", n, nd, removed);
done:
	free(it);
	free(q);
	free(del);
	free(out);
	free(gout);
	ffree(&F);
	ffree(&G);
	t_end(name);
}

/* Every shape, at a power-of-two table (c = 128), at others and at a small one. */
static void
test_shape_paths_all(void)
{
	static const uint32_t ms[] = {1024, 1000, 96, 64};
	static const uint32_t bs[] = {2, 4, 8};
	uint64_t	seed = 0x5A9E;

	for (uint32_t f = CF_MIN_FP_BITS; f <= CF_MAX_FP_BITS; f++)
	{
		bool		special = is_special_shape(2, f) || is_special_shape(4, f) ||
			is_special_shape(8, f);

		for (size_t bi = 0; bi < 3; bi++)
		{
			/* all table sizes for the shapes with their own code, two for the rest */
			for (size_t mi = 0; mi < 4; mi += special ? 1 : 2)
			{
				test_shape_paths(ms[mi], bs[bi], f, false, false, seed++);
				test_shape_paths(ms[mi] / 4, bs[bi], f, false, true, seed++);
			}
		}
		test_shape_paths(ms[f & 1], 4, f, true, false, seed++);
		test_shape_paths(ms[2 + (f & 1)] / 4, 4, f, true, true, seed++);
	}
}

/*
 * The shapes with their own code, and f = 4 and 32 of the generic path, at
 * the table sizes at the ends of the range: one bucket (i1 = i2 always), two
 * and three, mantissa c = 127, 255 (the largest) and 1 with k > 0, and
 * c = 128 with k = 0 (the power-of-two path with no low bits); filled to 90%
 * and until the victim slot is in use.
 */
static void
test_shape_paths_edges(void)
{
	static const uint32_t ms[] = {1, 2, 3, 127, 128, 255, 255 * 4, 256};
	static const uint32_t shapes[][2] = {
		{4, 8}, {4, 12}, {4, 16}, {2, 8}, {2, 16}, {8, 8}, {8, 16},
		{2, 4}, {4, 4}, {8, 4}, {2, 32}, {4, 32}, {8, 32}
	};
	uint64_t	seed = 0xED6E;

	for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
		for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
		{
			test_shape_paths(ms[mi], shapes[si][0], shapes[si][1], false, false, seed++);
			test_shape_paths(ms[mi], shapes[si][0], shapes[si][1], false, true, seed++);
		}
}

/* All of this file's test cases, in order. */
void
run_table_tests(void)
{
	test_hash();

	test_sweep();
	test_table3(false);
	test_table3(true);

	test_contains_many(1024, 4, 12, false, false);
	test_contains_many(1000, 4, 12, false, false);
	test_contains_many(64, 4, 12, false, true);
	test_contains_many(200, 2, 9, false, true);
	test_contains_many(300, 8, 7, false, false);
	test_contains_many(64, 8, 16, false, true);
	test_contains_many(512, 4, 13, true, false);
	test_contains_many(64, 4, 13, true, true);
	test_contains_many(256, 2, 32, false, true);
	test_contains_many(256, 4, 20, false, false);

	test_victim(8, 4, 16, false, 0, 0x71C0);
	test_victim(16, 2, 12, false, 0, 0x71C1);
	test_victim(8, 8, 10, false, 0, 0x71C2);
	test_victim(8, 4, 13, true, 0, 0x71C3);
	test_victim(8, 4, 16, false, 500, 0x71C4);
	test_victim(16, 2, 12, false, 500, 0x71C5);
	test_victim(64, 4, 9, true, 100, 0x71C6);

	test_dups(2, 12, false);
	test_dups(4, 12, false);
	test_dups(8, 12, false);
	test_dups(4, 13, true);
	test_dups(4, 4, true);
	test_dups(8, 4, false);
	test_dups(2, 32, false);

	test_determinism(8, 4, 12, false, 0);
	test_determinism(64, 4, 12, true, 500);
	test_determinism(100, 2, 9, false, 500);
	test_determinism(40, 8, 17, false, 500);
	test_determinism(2048, 4, 16, false, 500);

	test_shape_paths_all();
	test_shape_paths_edges();
}
