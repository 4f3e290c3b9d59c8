/*
 * test_union.c
 *     Unit tests of the core: union and shrink.
 */
#include "unit.h"

/* ========================================================================
 * 5. Union
 * ======================================================================== */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* The (bucket pair, fingerprint) key that an item's copies are counted by. */
static uint64_t
item_key(const cf_filter *cf, uint64_t h)
{
	uint32_t	fp,
				i1,
				i2;

	cf_locate(cf, h, &fp, &i1);
	i2 = cf_alt_bucket(cf, i1, fp);
	return ((uint64_t) (i1 < i2 ? i1 : i2) << 32) | fp;
}

static void
test_union_cfg(uint32_t b, uint32_t f, bool ss)
{
	char		name[64];
	enum
	{
		N0 = 600, NA = 1200, NB = 1200, ND = 60, NP = 20000, NM = N0 + NA + NB
	};
	filt		A = {0},
				B = {0},
				D = {0},
				E = {0},
				C = {0};
	uint64_t   *P = NULL,
			   *keys = NULL;
	uint32_t   *cA = NULL,
			   *cB = NULL;
	uint64_t	s = 0x0410E000 + b * 1000 + f * 10 + (ss ? 1 : 0),
				expect_items = 0,
				sumA = 0,
				sumB = 0;
	uint32_t	m;
	size_t		i,
				nk = 0,
				once = 0;
	cf_status	st;

	snprintf(name, sizeof name, "union b=%u f=%u%s", b, f, ss ? " semisort" : "");
	t_begin();
	m = cf_buckets_for_capacity(4000, b);
	REQUIRE(fnew(&A, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 3000));
	REQUIRE(fnew(&B, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 4000));
	P = malloc((NM + NP) * sizeof *P);
	keys = malloc(NM * sizeof *keys);
	cA = malloc((NM + NP) * sizeof *cA);
	cB = malloc((NM + NP) * sizeof *cB);
	CHECK(P && keys && cA && cB, "out of memory");
	for (i = 0; i < NM + NP; i++)
		P[i] = sm64(&s);
	/* P[0..N0) shared, then A only, then B only, then non-members */
	for (i = 0; i < NM; i++)
	{
		if (i < N0 + NA)
		{
			st = cf_insert(&A.cf, P[i]);
			CHECK(st == CF_OK || st == CF_OK_STASHED, "insert into A returned %s", stname(st));
		}
		if (i < N0 || i >= N0 + NA)
		{
			st = cf_insert(&B.cf, P[i]);
			CHECK(st == CF_OK || st == CF_OK_STASHED, "insert into B returned %s", stname(st));
		}
	}
	/* duplicates: [0,ND/2) twice in A; [ND/2,ND) twice in A, thrice in B; [ND,3ND/2) thrice in B */
	for (i = 0; i < ND; i++)
	{
		st = cf_insert(&A.cf, P[i]);
		CHECK(st == CF_OK || st == CF_OK_STASHED, "duplicate insert into A returned %s", stname(st));
	}
	for (i = ND / 2; i < ND + ND / 2; i++)
		for (int r = 0; r < 2; r++)
		{
			st = cf_insert(&B.cf, P[i]);
			CHECK(st == CF_OK || st == CF_OK_STASHED, "duplicate insert into B returned %s", stname(st));
		}
	REQUIRE(fvalid(&A, "A"));
	REQUIRE(fvalid(&B, "B"));
	for (i = 0; i < NM + NP; i++)
	{
		cA[i] = cf_count(&A.cf, P[i]);
		cB[i] = cf_count(&B.cf, P[i]);
	}
	/* expected item count of the union: sum over distinct keys of the max */
	/* keys[] holds key << 12 | member index (NM < 4096), sorted by key */
	for (i = 0; i < NM; i++)
		keys[i] = (item_key(&A.cf, P[i]) << 12) | i;
	qsort(keys, NM, sizeof *keys, cmp_u64);
	for (i = 0; i < NM; i++)
	{
		size_t		r = (size_t) (keys[i] & 4095);

		if (i > 0 && (keys[i] >> 12) == (keys[i - 1] >> 12))
			continue;			/* same key as a previous member */
		nk++;
		sumA += cA[r];
		sumB += cB[r];
		expect_items += cA[r] > cB[r] ? cA[r] : cB[r];
	}
	CHECK(sumA == cf_items(&A.cf) && sumB == cf_items(&B.cf),
		  "copy counts over keys (%" PRIu64 ", %" PRIu64 ") disagree with cf_items (%" PRIu64 ", %" PRIu64 ")",
		  sumA, sumB, cf_items(&A.cf), cf_items(&B.cf));

	REQUIRE(fclone(&D, &A));
	st = cf_union_into(&D.cf, &B.cf);
	CHECK(st == CF_OK, "cf_union_into returned %s", stname(st));
	REQUIRE(fvalid(&D, "after the union"));
	CHECK(cf_capacity(&D.cf) == 4000, "union capacity %" PRIu64 ", want the larger 4000", cf_capacity(&D.cf));
	CHECK(cf_kind_of(&D.cf) == CF_KIND_INTEGER, "union changed the kind");
	for (i = 0; i < NM + NP; i++)
	{
		uint32_t	c = cf_count(&D.cf, P[i]);
		uint32_t	want = cA[i] > cB[i] ? cA[i] : cB[i];

		CHECK(c == want, "%s %zu: count %u after the union, want max(%u, %u)",
			  i < NM ? "member" : "non-member", i, c, cA[i], cB[i]);
		if (i < NM)
			CHECK(cf_contains(&D.cf, P[i]), "false negative after the union: item %zu", i);
		if (i >= ND + ND / 2 && i < N0)
		{
			CHECK(cA[i] != 1 || cB[i] != 1 || c == 1,
				  "shared item %zu stored %u times, want once", i, c);
			once += c == 1;
		}
	}
	CHECK(cf_items(&D.cf) == expect_items, "union holds %" PRIu64 " items, want %" PRIu64
		  " (A %" PRIu64 ", B %" PRIu64 ")", cf_items(&D.cf), expect_items,
		  cf_items(&A.cf), cf_items(&B.cf));

	/* the other direction gives the same counts */
	REQUIRE(fclone(&E, &B));
	st = cf_union_into(&E.cf, &A.cf);
	CHECK(st == CF_OK, "cf_union_into(B, A) returned %s", stname(st));
	REQUIRE(fvalid(&E, "after the union B <- A"));
	CHECK(cf_items(&E.cf) == cf_items(&D.cf), "union B<-A holds %" PRIu64 " items, A<-B %" PRIu64,
		  cf_items(&E.cf), cf_items(&D.cf));
	for (i = 0; i < NM + NP; i++)
		CHECK(cf_count(&E.cf, P[i]) == cf_count(&D.cf, P[i]),
			  "probe %zu: count %u in B<-A, %u in A<-B", i, cf_count(&E.cf, P[i]), cf_count(&D.cf, P[i]));

	/* idempotent: union again, and union with its own copy, change nothing */
	REQUIRE(fclone(&C, &D));
	st = cf_union_into(&D.cf, &B.cf);
	CHECK(st == CF_OK && memcmp(C.buf, D.buf, D.len) == 0,
		  "repeating the union returned %s or changed bytes", stname(st));
	st = cf_union_into(&D.cf, &C.cf);
	CHECK(st == CF_OK && memcmp(C.buf, D.buf, D.len) == 0,
		  "union with its own copy returned %s or changed bytes", stname(st));
	t_set_note("m=%u: %" PRIu64 " + %" PRIu64 " -> %" PRIu64 " items, %zu shared stored once",
			   m, cf_items(&A.cf), cf_items(&B.cf), cf_items(&D.cf), once);
done:
	free(P);
	free(keys);
	free(cA);
	free(cB);
	ffree(&A);
	ffree(&B);
	ffree(&C);
	ffree(&D);
	ffree(&E);
	t_end(name);
}

/* Fills a filter with up to n random items; returns how many went in. */
static size_t
fill_items(filt *F, uint64_t *it, size_t n, uint64_t *s)
{
	size_t		k = 0;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	h = sm64(s);
		cf_status	st = cf_insert(&F->cf, h);

		if (st == CF_OK || st == CF_OK_STASHED)
			it[k++] = h;
	}
	return k;
}

static void
test_union_rules(void)
{
	filt		A = {0},
				B = {0},
				X = {0},
				Z = {0};
	uint8_t    *before = NULL;
	uint64_t	itA[64],
				itB[64],
				s = 0x0410F00D;
	size_t		nA,
				nB;
	uint32_t	m = 64;
	cf_status	st;
	static const struct
	{
		uint32_t	m,
					b,
					f;
		bool		ss;
	}			other[] = {
		{128, 4, 12, false}, {64, 2, 12, false}, {64, 8, 12, false},
		{64, 4, 11, false}, {64, 4, 12, true}
	};

	t_begin();
	REQUIRE(fnew(&A, m, 4, 12, false, 500, CF_KIND_INTEGER, 0, 256));
	nA = fill_items(&A, itA, 40, &s);
	CHECK(nA == 40, "filling A stored %zu of 40", nA);
	before = malloc(A.len);
	CHECK(before != NULL, "out of memory");
	memcpy(before, A.buf, A.len);

	/* shape mismatch: bucket count, bucket size, fingerprint size, semisort */
	for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
	{
		REQUIRE(fnew(&X, other[k].m, other[k].b, other[k].f, other[k].ss, 500, CF_KIND_INTEGER, 0, 8));
		(void) fill_items(&X, itB, 5, &s);
		st = cf_union_into(&A.cf, &X.cf);
		CHECK(st == CF_SHAPE_MISMATCH, "union with m=%u b=%u f=%u ss=%d returned %s",
			  other[k].m, other[k].b, other[k].f, (int) other[k].ss, stname(st));
		CHECK(memcmp(before, A.buf, A.len) == 0, "CF_SHAPE_MISMATCH changed the filter");
		st = cf_union_into(&X.cf, &A.cf);
		CHECK(st == CF_SHAPE_MISMATCH, "reverse union with m=%u b=%u f=%u returned %s",
			  other[k].m, other[k].b, other[k].f, stname(st));
		ffree(&X);
	}

	/* kind mismatch: different kinds, and same kind OTHER with other tags */
	REQUIRE(fnew(&B, m, 4, 12, false, 500, CF_KIND_TEXT, 0, 256));
	nB = fill_items(&B, itB, 30, &s);
	CHECK(nB == 30, "filling B stored %zu", nB);
	st = cf_union_into(&A.cf, &B.cf);
	CHECK(st == CF_KIND_MISMATCH, "union integer <- text returned %s", stname(st));
	CHECK(memcmp(before, A.buf, A.len) == 0, "CF_KIND_MISMATCH changed the filter");
	cf_set_kind(&A.cf, CF_KIND_OTHER, 5);
	cf_set_kind(&B.cf, CF_KIND_OTHER, 6);
	memcpy(before, A.buf, A.len);
	st = cf_union_into(&A.cf, &B.cf);
	CHECK(st == CF_KIND_MISMATCH, "union other(5) <- other(6) returned %s", stname(st));
	CHECK(memcmp(before, A.buf, A.len) == 0, "CF_KIND_MISMATCH changed the filter");
	cf_set_kind(&B.cf, CF_KIND_OTHER, 5);
	st = cf_union_into(&A.cf, &B.cf);
	CHECK(st == CF_OK, "union other(5) <- other(5) returned %s", stname(st));
	REQUIRE(fvalid(&A, "after union of kind other"));
	REQUIRE(all_found(&A, itA, nA, "after union of kind other (A's items)"));
	REQUIRE(all_found(&A, itB, nB, "after union of kind other (B's items)"));

	/* an empty kind-ANY filter takes the other's kind */
	REQUIRE(fnew(&Z, m, 4, 12, false, 500, CF_KIND_ANY, 0, 100));
	cf_set_kind(&B.cf, CF_KIND_TEXT, 0);
	st = cf_union_into(&Z.cf, &B.cf);
	CHECK(st == CF_OK, "union any <- text returned %s", stname(st));
	CHECK(cf_kind_of(&Z.cf) == CF_KIND_TEXT && cf_type_tag(&Z.cf) == 0,
		  "union into an empty ANY filter gave kind %u tag %u, want text", cf_kind_of(&Z.cf),
		  cf_type_tag(&Z.cf));
	CHECK(cf_items(&Z.cf) == cf_items(&B.cf), "union into empty holds %" PRIu64 " of %" PRIu64,
		  cf_items(&Z.cf), cf_items(&B.cf));
	CHECK(cf_capacity(&Z.cf) == 256, "capacity %" PRIu64 " after union, want 256", cf_capacity(&Z.cf));
	REQUIRE(fvalid(&Z, "after union any <- text"));
	REQUIRE(all_found(&Z, itB, nB, "after union any <- text"));
	ffree(&Z);
	REQUIRE(fnew(&Z, m, 4, 12, false, 500, CF_KIND_ANY, 0, 100));
	cf_set_kind(&B.cf, CF_KIND_OTHER, 99);
	st = cf_union_into(&Z.cf, &B.cf);
	CHECK(st == CF_OK && cf_kind_of(&Z.cf) == CF_KIND_OTHER && cf_type_tag(&Z.cf) == 99,
		  "union any <- other(99) returned %s, kind %u tag %u", stname(st), cf_kind_of(&Z.cf),
		  cf_type_tag(&Z.cf));
	REQUIRE(fvalid(&Z, "after union any <- other"));
	ffree(&Z);

	/* an empty kind-ANY source changes nothing */
	REQUIRE(fnew(&Z, m, 4, 12, false, 500, CF_KIND_ANY, 0, 1));
	memcpy(before, A.buf, A.len);
	st = cf_union_into(&A.cf, &Z.cf);
	CHECK(st == CF_OK && memcmp(before, A.buf, A.len) == 0,
		  "union with an empty ANY filter returned %s or changed bytes", stname(st));
	REQUIRE(fvalid(&Z, "empty ANY"));
done:
	free(before);
	ffree(&A);
	ffree(&B);
	ffree(&X);
	ffree(&Z);
	t_end("union rules: shape and kind mismatches, kind ANY");
}

/* Unions that cannot fit return CF_FULL and leave a valid filter. */
static void
test_union_full(uint32_t b, uint32_t f, bool ss)
{
	char		name[64];
	filt		A = {0},
				B = {0};
	uint64_t	itA[128],
				itB[128],
				s = 0xF011 + b + f;
	const uint32_t m = 8;
	size_t		nA,
				nB,
				want = (size_t) m * b * 5 / 8;
	cf_status	st;

	snprintf(name, sizeof name, "union overflow b=%u f=%u%s", b, f, ss ? " semisort" : "");
	t_begin();
	REQUIRE(fnew(&A, m, b, f, ss, 500, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	REQUIRE(fnew(&B, m, b, f, ss, 500, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	nA = fill_items(&A, itA, want, &s);
	nB = fill_items(&B, itB, want, &s);
	CHECK(nA == want && nB == want, "filling stored %zu and %zu of %zu", nA, nB, want);
	st = cf_union_into(&A.cf, &B.cf);
	CHECK(st == CF_FULL, "union of %zu + %zu items into %u entries returned %s", nA, nB, m * b,
		  stname(st));
	REQUIRE(fvalid(&A, "after a union that ran out of room"));
	REQUIRE(all_found(&A, itA, nA, "after a union that ran out of room"));
	t_set_note("%zu + %zu items into %u entries: CF_FULL", nA, nB, m * b);
done:
	ffree(&A);
	ffree(&B);
	t_end(name);
}

/* Union from a source whose victim slot is in use. */
static void
test_union_victim(uint32_t b, uint32_t f, bool ss)
{
	char		name[64];
	filt		S = {0},
				D = {0};
	uint64_t	it[128],
				s = 0x1C7143 + b * 7 + f;
	const uint32_t m = 8;
	size_t		n = 0;
	cf_status	st = CF_OK;

	snprintf(name, sizeof name, "union victim b=%u f=%u%s", b, f, ss ? " semisort" : "");
	t_begin();
	REQUIRE(fnew(&S, m, b, f, ss, 0, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	while (st != CF_OK_STASHED)
	{
		uint64_t	h = sm64(&s);

		CHECK(n < 100, "no stash");
		st = cf_insert(&S.cf, h);
		CHECK(st == CF_OK || st == CF_OK_STASHED, "insert returned %s", stname(st));
		it[n++] = h;
	}
	REQUIRE(fclone(&D, &S));
	CHECK(cf_remove(&D.cf, it[0]), "cf_remove returned false");
	REQUIRE(fvalid(&D, "after removing one item"));
	st = cf_union_into(&D.cf, &S.cf);
	CHECK(st == CF_OK, "union back from the source returned %s", stname(st));
	REQUIRE(fvalid(&D, "after the union"));
	CHECK(cf_items(&D.cf) == cf_items(&S.cf), "union holds %" PRIu64 " items, source %" PRIu64,
		  cf_items(&D.cf), cf_items(&S.cf));
	REQUIRE(all_found(&D, it, n, "after the union"));
	for (size_t i = 0; i < n; i++)
		CHECK(cf_count(&D.cf, it[i]) == cf_count(&S.cf, it[i]), "item %zu: count %u, source %u",
			  i, cf_count(&D.cf, it[i]), cf_count(&S.cf, it[i]));
	/* and union of the full source into an empty filter */
	ffree(&D);
	REQUIRE(fnew(&D, m, b, f, ss, 0, CF_KIND_ANY, 0, 1));
	st = cf_union_into(&D.cf, &S.cf);
	CHECK(st == CF_OK || st == CF_FULL, "union into an empty filter returned %s", stname(st));
	REQUIRE(fvalid(&D, "after union into an empty filter"));
	if (st == CF_OK)
		REQUIRE(all_found(&D, it, n, "after union into an empty filter"));
	t_set_note("%zu items with victim; union into empty: %s", n, stname(st));
done:
	ffree(&S);
	ffree(&D);
	t_end(name);
}

/* ========================================================================
 * 6. Shrink
 * ======================================================================== */

static void
test_shrink(uint32_t b, uint32_t f, bool ss)
{
	char		name[64];
	filt		F = {0},
				D = {0},
				X = {0};
	const uint64_t cap = 200000,
				keep_from = 160000;
	uint64_t   *it = NULL;
	uint64_t	s = 0x5B1200 + b * 64 + f,
				items,
				dcap;
	uint32_t	m,
				c,
				k,
				t,
				tc,
				tk;
	double		load = cf_target_load(b);
	cf_status	st;

	snprintf(name, sizeof name, "shrink b=%u f=%u%s", b, f, ss ? " semisort" : "");
	t_begin();
	m = cf_buckets_for_capacity(cap, b);
	split_m(m, &c, &k);
	CHECK(k > 0, "bucket count %u for capacity %" PRIu64 " has k = 0", m, cap);
	REQUIRE(fnew(&F, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, cap));
	it = malloc(cap * sizeof *it);
	CHECK(it != NULL, "out of memory");
	for (uint64_t i = 0; i < cap; i++)
	{
		it[i] = sm64(&s);
		st = cf_insert(&F.cf, it[i]);
		CHECK(st == CF_OK || st == CF_OK_STASHED, "insert %" PRIu64 " returned %s", i + 1, stname(st));
	}
	for (uint64_t i = 0; i < keep_from; i++)
		CHECK(cf_remove(&F.cf, it[i]), "cf_remove of item %" PRIu64 " returned false", i);
	items = cf_items(&F.cf);
	CHECK(items == cap - keep_from, "cf_items %" PRIu64, items);
	REQUIRE(fvalid(&F, "before shrinking"));

	t = cf_shrink_target(&F.cf);
	split_m(t, &tc, &tk);
	CHECK(t < m, "cf_shrink_target gave %u, not below m = %u (%" PRIu64 " items)", t, m, items);
	CHECK(cf_buckets_representable(t) && tc == c && tk < k,
		  "shrink target %u is not %u << j for j < %u", t, c, k);
	CHECK((double) items <= floor((double) t * b * load),
		  "shrink target %u cannot hold %" PRIu64 " items at load %.2f", t, items, load);
	CHECK(tk == 0 || (double) items > floor((double) (t / 2) * b * load),
		  "shrink target %u is not the smallest: %u would do", t, t / 2);

	dcap = cap < (uint64_t) t * b ? cap : (uint64_t) t * b;
	REQUIRE(fnew(&D, t, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, dcap));
	st = cf_rehash_into(&F.cf, &D.cf);
	CHECK(st == CF_OK, "cf_rehash_into %u -> %u buckets returned %s", m, t, stname(st));
	CHECK(cf_items(&D.cf) == items, "shrunk filter holds %" PRIu64 " items, want %" PRIu64,
		  cf_items(&D.cf), items);
	REQUIRE(fvalid(&D, "after rehash"));
	REQUIRE(all_found(&D, it + keep_from, cap - keep_from, "in the shrunk filter"));
	for (uint64_t i = keep_from; i < cap; i++)
		CHECK(cf_count(&D.cf, it[i]) >= cf_count(&F.cf, it[i]), "item %" PRIu64 ": count %u < %u before",
			  i, cf_count(&D.cf, it[i]), cf_count(&F.cf, it[i]));
	CHECK(cf_shrink_target(&D.cf) == t, "shrunk filter's own target is %u, not %u",
		  cf_shrink_target(&D.cf), t);

	/* rehash into a filter of another shape is refused */
	REQUIRE(fnew(&X, m * 2, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, cap));
	st = cf_rehash_into(&F.cf, &X.cf);
	CHECK(st == CF_SHAPE_MISMATCH, "rehash into a larger k returned %s", stname(st));
	ffree(&X);
	{
		uint32_t	m2 = cf_round_buckets((uint64_t) (c + 1) << tk);
		uint32_t	c2,
					k2;

		split_m(m2, &c2, &k2);
		CHECK(c2 != c, "test setup: %u has the same mantissa", m2);
		REQUIRE(fnew(&X, m2, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 1));
		st = cf_rehash_into(&F.cf, &X.cf);
		CHECK(st == CF_SHAPE_MISMATCH, "rehash into another mantissa (%u buckets) returned %s",
			  m2, stname(st));
		ffree(&X);
	}
	REQUIRE(fnew(&X, t, b, f == 32 ? 31 : f + 1, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 1));
	st = cf_rehash_into(&F.cf, &X.cf);
	CHECK(st == CF_SHAPE_MISMATCH, "rehash into another fingerprint size returned %s", stname(st));
	t_set_note("m %u -> %u with %" PRIu64 " items (load %.3f)", m, t, items,
			   (double) items / ((double) t * b));
done:
	free(it);
	ffree(&F);
	ffree(&D);
	ffree(&X);
	t_end(name);
}

/* Shrinking a filter whose victim slot is in use (k > 0). */
static void
test_shrink_victim(uint32_t b, uint32_t f, bool ss)
{
	char		name[64];
	filt		F = {0},
				C = {0},
				D = {0};
	const uint32_t m = 256;
	uint64_t	it[2100],
				s = 0x5B1C + b + f;
	size_t		n = 0,
				j;
	uint32_t	t;
	cf_status	st = CF_OK;

	snprintf(name, sizeof name, "shrink with victim b=%u f=%u%s", b, f, ss ? " semisort" : "");
	t_begin();
	REQUIRE(fnew(&F, m, b, f, ss, 0, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	while (st != CF_OK_STASHED)
	{
		uint64_t	h = sm64(&s);

		CHECK(n < (size_t) m * b, "no stash");
		st = cf_insert(&F.cf, h);
		CHECK(st == CF_OK || st == CF_OK_STASHED, "insert returned %s", stname(st));
		it[n++] = h;
	}
	/* remove items, skipping those whose removal would move the victim back */
	for (j = 0; j + 1 < n && (double) cf_items(&F.cf) > floor((m / 2) * b * cf_target_load(b));)
	{
		REQUIRE(fclone(&C, &F));
		CHECK(cf_remove(&C.cf, it[j]), "cf_remove returned false");
		if (cf_victim_used(&C.cf))
		{
			CHECK(cf_remove(&F.cf, it[j]), "cf_remove returned false");
			it[j] = it[--n - 1];	/* keep the stashed item last */
			it[n - 1] = it[n];
		}
		else
			j++;
		ffree(&C);
	}
	CHECK(cf_victim_used(&F.cf), "test setup: victim no longer in use");
	REQUIRE(fvalid(&F, "before shrinking"));
	t = cf_shrink_target(&F.cf);
	CHECK(t < m, "cf_shrink_target gave %u with %" PRIu64 " items", t, cf_items(&F.cf));
	REQUIRE(fnew(&D, t, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, (uint64_t) t * b));
	st = cf_rehash_into(&F.cf, &D.cf);
	CHECK(st == CF_OK, "cf_rehash_into returned %s", stname(st));
	CHECK(cf_items(&D.cf) == cf_items(&F.cf), "rehash kept %" PRIu64 " of %" PRIu64 " items",
		  cf_items(&D.cf), cf_items(&F.cf));
	REQUIRE(fvalid(&D, "after rehash"));
	REQUIRE(all_found(&D, it, n, "after rehash of a filter with a victim"));
	t_set_note("m %u -> %u with %zu items, victim in use", m, t, n);
done:
	ffree(&F);
	ffree(&C);
	ffree(&D);
	t_end(name);
}

static void
test_shrink_small(void)
{
	filt		F = {0},
				D = {0};
	uint64_t	it[64],
				s = 0x5A11;
	static const uint32_t ms[] = {1, 7, 100, 128, 200, 255};
	size_t		n;
	cf_status	st;

	t_begin();
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
	{
		REQUIRE(fnew(&F, ms[i], 4, 12, false, 500, CF_KIND_INTEGER, 0, ms[i]));
		CHECK(cf_shrink_target(&F.cf) == ms[i], "empty m=%u: target %u", ms[i], cf_shrink_target(&F.cf));
		n = fill_items(&F, it, ms[i] < 16 ? ms[i] : 16, &s);
		CHECK(cf_shrink_target(&F.cf) == ms[i], "m=%u with %zu items: target %u", ms[i], n,
			  cf_shrink_target(&F.cf));
		/* rehash into the same size works and loses nothing */
		REQUIRE(fnew(&D, ms[i], 4, 12, false, 500, CF_KIND_INTEGER, 0, ms[i]));
		st = cf_rehash_into(&F.cf, &D.cf);
		CHECK(st == CF_OK, "rehash m=%u into itself returned %s", ms[i], stname(st));
		REQUIRE(fvalid(&D, "after a same-size rehash"));
		REQUIRE(all_found(&D, it, n, "after a same-size rehash"));
		ffree(&F);
		ffree(&D);
	}
	/* a big but empty filter shrinks all the way to k = 0 */
	REQUIRE(fnew(&F, 200u << 10, 4, 12, false, 500, CF_KIND_INTEGER, 0, 1));
	CHECK(cf_shrink_target(&F.cf) == 200, "empty m=%u: target %u, want 200", 200u << 10,
		  cf_shrink_target(&F.cf));
done:
	ffree(&F);
	ffree(&D);
	t_end("shrink small filters (k = 0) keep m");
}

/* All of this file's test cases, in order. */
void
run_union_tests(void)
{
	test_union_cfg(4, 12, false);
	test_union_cfg(2, 10, false);
	test_union_cfg(8, 16, false);
	test_union_cfg(4, 13, true);
	test_union_cfg(4, 32, false);
	test_union_rules();
	test_union_full(4, 12, false);
	test_union_full(2, 10, false);
	test_union_full(8, 9, false);
	test_union_full(4, 13, true);
	test_union_victim(4, 12, false);
	test_union_victim(2, 10, false);
	test_union_victim(8, 9, false);
	test_union_victim(4, 13, true);

	test_shrink(4, 12, false);
	test_shrink(2, 8, false);
	test_shrink(8, 16, false);
	test_shrink(4, 13, true);
	test_shrink_victim(4, 12, false);
	test_shrink_victim(2, 9, false);
	test_shrink_victim(8, 14, false);
	test_shrink_victim(4, 13, true);
	test_shrink_small();
}
