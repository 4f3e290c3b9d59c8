/*
 * test_saturate.c
 *     The living filters' saturating count (docs/DESIGN.md, "Duplicates:
 *     counting copies, saturating at half a pair") against a model of the
 *     rows: random adds and removes of values that repeat, in segments made
 *     as a store makes them (and in shapes a store does not make: few tail
 *     bits, few kicks, short fingerprints, address words alike in their low
 *     bits), every value with a row looked up after every step.  Also the
 *     direct changes of a tracked store (cuckoo_store_add, _remove): a
 *     direct remove must saturate too.
 *
 * CF_SAT_MODEL_SEEDS and CF_SAT_MODEL_STEPS (environment) run the model
 * longer than the default 48 seeds of 10,000 steps (2,500 under UNIT_LIGHT).
 */
#include "unit.h"
#include "cf_v2.h"

/* The apply of one tracked add (store_apply_segment): nothing at b / 2
 * copies, else an insert; false if the insert was refused (the commit
 * fails: the caller puts the bytes back). */
static bool
tracked_add(cf_filter *cf, uint64_t h)
{
	cf_status	st;

	if (cf_count(cf, h) >= cf->b / 2)
		return true;
	st = cf_insert(cf, h);
	return st == CF_OK || st == CF_OK_STASHED;
}

typedef struct sat_model
{
	uint64_t	ops,
				adds_refused,
				removes,
				removes_kept,
				direct;
} sat_model;

/* The bytes of cf before a step, to put back when the step is refused: one
 * buffer (*save, *cap bytes) reused for every step, grown as cf grows. */
static bool
sat_save(uint8_t **save, size_t *cap, const cf_filter *cf)
{
	if (*cap < cf->len)
	{
		uint8_t    *nb = realloc(*save, cf->len);

		if (nb == NULL)
			return false;
		*save = nb;
		*cap = cf->len;
	}
	memcpy(*save, cf->buf, cf->len);
	return true;
}

static bool
sat_restore(cf_filter *cf, const uint8_t *save, size_t len)
{
	uint8_t    *buf = realloc(cf->buf, len);

	if (buf == NULL)
		return false;
	memcpy(buf, save, len);
	cf_open(cf, buf, len);
	return true;
}

/*
 * One seed: a segment of a random shape, nv values (hashes random, or few
 * fingerprints and address words alike in their low bits), steps random
 * changes, half of them of the first 8 values.  With direct, a tenth of the
 * steps are direct changes: an add (cf_insert, unconditional) or a remove
 * of a value added directly before (cf_remove_saturating, as the store
 * applies it to a tracked store).  Returns false (after FAIL) on a false
 * negative, a remove of a live value finding nothing, or invalid bytes.
 */
static bool
sat_seed(uint64_t seed, uint64_t steps, bool direct, sat_model *mo)
{
	static const uint64_t caps[] = {1, 2, 3, 5, 10, 20, 50, 100, 300, 807};
	static const double fprs[] = {0.01, 0.01, 0.01, 0.05, 0.3};
	uint64_t	s = seed;
	cf_params	p;
	char		err[256] = "";
	cf_filter	cf = {0};
	uint8_t    *buf = NULL,
			   *save = NULL;
	size_t		save_cap = 0;
	uint64_t   *h = NULL;
	int64_t    *rows = NULL,
			   *dir = NULL;
	uint32_t	nv,
				style;
	bool		store_shape = rnd(&s, 2) == 0,
				ok = false;

	if (!cf_params_growing(caps[rnd(&s, 10)], store_shape ? 0.01 : fprs[rnd(&s, 5)],
						   store_shape || rnd(&s, 3) ? CF_DEFAULT_KICKS : (uint32_t) rnd(&s, 8),
						   &p, err, sizeof err))
	{
		FAIL("seed %llu: %s", (unsigned long long) seed, err);
		return false;
	}
	p.kind = CF_KIND_INTEGER;
	p.budget = false;
	p.tail_bits = store_shape || rnd(&s, 3) ? CF_V2_TAIL_BITS : 2 + (uint32_t) rnd(&s, 4);
	buf = malloc((size_t) cf_init_bytes(&p));
	nv = 4 + (uint32_t) rnd(&s, rnd(&s, 2) ? 60 : 600);
	h = calloc(nv, sizeof *h);
	rows = calloc(nv, sizeof *rows);
	dir = calloc(nv, sizeof *dir);
	if (!buf || !h || !rows || !dir)
	{
		FAIL("out of memory");
		goto out;
	}
	cf_init(buf, &p);
	cf_open(&cf, buf, (size_t) cf_init_bytes(&p));
	buf = NULL;
	style = (uint32_t) rnd(&s, 3);
	{
		/* style 1: 1 to 4 fingerprints (low words), address words equal
		 * above their low abits bits; style 2: equal in their low bits */
		uint32_t	nlo = 1 + (uint32_t) rnd(&s, 4),
					abits = (uint32_t) rnd(&s, 12);
		uint64_t	lo[4],
					abase = sm64(&s);

		for (int i = 0; i < 4; i++)
			lo[i] = sm64(&s) & 0xffffffffu;
		for (uint32_t v = 0; v < nv; v++)
		{
			uint64_t	a;

			if (style == 0)
			{
				h[v] = cf_hash_u64(seed << 32 | v);
				continue;
			}
			if (style == 1)
				a = (abase & ~(uint64_t) 0 << abits) ^ (sm64(&s) & ((UINT64_C(1) << abits) - 1));
			else
				a = abase ^ (sm64(&s) << (abits + 1));
			h[v] = (a & 0xffffffffu) << 32 | lo[rnd(&s, nlo)];
		}
	}
	for (uint64_t st = 0; st < steps; st++)
	{
		uint32_t	v = (uint32_t) (rnd(&s, 2) ? rnd(&s, nv < 8 ? nv : 8) : rnd(&s, nv)),
					op = (uint32_t) rnd(&s, 100);
		size_t		len = cf.len;

		mo->ops++;
		if (direct && op >= 90)
		{
			mo->direct++;
			if (op < 95 || dir[v] == 0)
			{
				cf_status	r;

				CHECK(sat_save(&save, &save_cap, &cf), "out of memory");
				r = cf_insert(&cf, h[v]);
				if (r == CF_OK || r == CF_OK_STASHED)
					dir[v]++;
				else
					CHECK(sat_restore(&cf, save, len), "out of memory");
			}
			else
			{
				CHECK(cf_remove_saturating(&cf, h[v], cf.b / 2) != 0,
					  "seed %llu step %llu: a direct remove of a value added directly found nothing",
					  (unsigned long long) seed, (unsigned long long) st);
				dir[v]--;
			}
		}
		else if (op < 55 || rows[v] == 0)
		{
			CHECK(sat_save(&save, &save_cap, &cf), "out of memory");
			if (tracked_add(&cf, h[v]))
				rows[v]++;
			else
			{
				/* the commit fails, the transaction is rolled back */
				mo->adds_refused++;
				CHECK(sat_restore(&cf, save, len), "out of memory");
			}
		}
		else
		{
			int			r = cf_remove_saturating(&cf, h[v], cf.b / 2);

			CHECK(r != 0, "seed %llu step %llu: the remove of a value of %lld rows found nothing",
				  (unsigned long long) seed, (unsigned long long) st, (long long) rows[v]);
			mo->removes++;
			mo->removes_kept += r < 0;
			rows[v]--;
		}
		for (uint32_t w = 0; w < nv; w++)
			CHECK((rows[w] == 0 && dir[w] == 0) || cf_contains(&cf, h[w]),
				  "seed %llu step %llu: value %u of %lld rows (%lld direct adds) not found "
				  "(m %u, f %u, t %u, max_kicks %u, hashes of style %u)",
				  (unsigned long long) seed, (unsigned long long) st, w, (long long) rows[w],
				  (long long) dir[w], cf.m, cf.f, p.tail_bits, cf.max_kicks, style);
		if ((st & 1023) == 1023 || st + 1 == steps)
			CHECK(cf_validate(cf.buf, cf.len, err, sizeof err), "seed %llu step %llu: %s",
				  (unsigned long long) seed, (unsigned long long) st, err);
	}
	ok = true;
done:
out:
	free(save);
	free(cf.buf);
	free(buf);
	free(h);
	free(rows);
	free(dir);
	return ok;
}

static uint64_t
env_count(const char *name, uint64_t dflt)
{
	const char *e = getenv(name);

	return e && *e ? strtoull(e, NULL, 10) : dflt;
}

static void
test_sat_model(bool direct)
{
	/* UNIT_LIGHT: every seed (shape), a fourth of the steps */
	uint64_t	seeds = env_count("CF_SAT_MODEL_SEEDS", 48),
				steps = env_count("CF_SAT_MODEL_STEPS", UNIT_LIGHT_DIV(10000));
	sat_model	mo = {0};

	t_begin();
	for (uint64_t sd = 1; sd <= seeds; sd++)
		REQUIRE(sat_seed(sd * UINT64_C(0x9E3779B97F4A7C15) + (direct ? 7 : 0), steps, direct, &mo));
	t_set_note("%llu seeds, %llu steps (%llu direct), %llu removes (%llu kept), %llu adds refused and rolled back",
			   (unsigned long long) seeds, (unsigned long long) mo.ops, (unsigned long long) mo.direct,
			   (unsigned long long) mo.removes, (unsigned long long) mo.removes_kept,
			   (unsigned long long) mo.adds_refused);
done:
	t_end(direct ? "duplicates: the model of rows, with direct adds and removes (saturating), finds every value with a row"
		  : "duplicates: the model of rows (repeats, tiny and growing segments) finds every value with a row");
}

/*
 * A direct change of a tracked store: a row of value x (one copy), a
 * direct add of x (two), a second row (at b / 2: nothing added), then the
 * direct remove of the direct add and the delete of one row.  A direct
 * remove by cf_remove (the store's plain remove) takes one of the two
 * copies, and the tracked remove then finds one copy and takes it: x is
 * not found while a row holds it.  A direct remove by cf_remove_saturating
 * keeps both.
 */
static void
test_direct_remove(void)
{
	cf_params	p;
	char		err[256] = "";
	cf_filter	cf = {0};
	uint8_t    *buf = NULL;
	const uint64_t x = cf_hash_u64(42);
	bool		lost_plain = false;

	t_begin();
	CHECK(cf_params_growing(807, 0.01, CF_DEFAULT_KICKS, &p, err, sizeof err), "%s", err);
	p.kind = CF_KIND_INTEGER;
	p.budget = false;
	p.tail_bits = CF_V2_TAIL_BITS;
	for (int saturating = 0; saturating < 2; saturating++)
	{
		buf = malloc((size_t) cf_init_bytes(&p));
		CHECK(buf, "out of memory");
		cf_init(buf, &p);
		cf_open(&cf, buf, (size_t) cf_init_bytes(&p));
		buf = NULL;
		CHECK(tracked_add(&cf, x) && cf_count(&cf, x) == 1, "row 1");
		CHECK(cf_insert(&cf, x) == CF_OK && cf_count(&cf, x) == 2, "the direct add");
		CHECK(tracked_add(&cf, x) && cf_count(&cf, x) == 2, "row 2: at b / 2, nothing added");
		if (saturating)
			CHECK(cf_remove_saturating(&cf, x, cf.b / 2) == -1 && cf_count(&cf, x) == 2,
				  "the direct remove, saturating: kept");
		else
			CHECK(cf_remove(&cf, x) && cf_count(&cf, x) == 1, "the direct remove, plain: one copy taken");
		(void) cf_remove_saturating(&cf, x, cf.b / 2);
		if (saturating)
			CHECK(cf_contains(&cf, x), "a direct remove saturating: x lost while row 1 holds it");
		else
			lost_plain = !cf_contains(&cf, x);
		free(cf.buf);
		cf.buf = NULL;
	}
	/* what makes the store saturate a tracked store's direct removes */
	CHECK(lost_plain, "a plain direct remove did not lose x: the case no longer shows why");
done:
	t_end("duplicates: a direct remove of a tracked store saturates (a plain one loses a value of two rows)");
	free(cf.buf);
	free(buf);
}

/*
 * The other half of a split bucket (cf_remove_saturating's scans 2 and 3):
 * a sequence a model run found (a segment of capacity 3 at fpr 0.5: c = 1,
 * 4-bit fingerprints, 5 tail bits, max_kicks 4; hashes of three low words,
 * address words alike but for bits 24 to 28), cut down to 47 rows and two
 * deletes.  The first delete's value matches one entry, which knows k
 * bits, in its unsplit bucket; a value of two rows matching that entry has
 * its other copy in the other half of the value's split bucket: counted,
 * the remove keeps the entry.  Counting the pair alone, it was taken and the
 * second delete took that value's last copy while a row held it.
 */
static void
test_split_half(void)
{
	static const uint64_t rows[] = {
		UINT64_C(0xa7d40e7fddf9c527), UINT64_C(0xa7d40e797f75da53), UINT64_C(0xa7d40e73ddf9c527),
		UINT64_C(0xa7d40e727f75da53), UINT64_C(0xa7d40e687f75da53), UINT64_C(0xa7d40e7f7f75da53),
		UINT64_C(0xa7d40e727f75da53), UINT64_C(0xa7d40e7c7f75da53), UINT64_C(0xa7d40e67ddf9c527),
		UINT64_C(0xa7d40e697f75da53), UINT64_C(0xa7d40e7fddf9c527), UINT64_C(0xa7d40e617f75da53),
		UINT64_C(0xa7d40e67ddf9c527), UINT64_C(0xa7d40e7f7f75da53), UINT64_C(0xa7d40e79c2159921),
		UINT64_C(0xa7d40e6c7f75da53), UINT64_C(0xa7d40e76ddf9c527), UINT64_C(0xa7d40e73ddf9c527),
		UINT64_C(0xa7d40e647f75da53), UINT64_C(0xa7d40e787f75da53), UINT64_C(0xa7d40e65c2159921),
		UINT64_C(0xa7d40e74ddf9c527), UINT64_C(0xa7d40e7fc2159921), UINT64_C(0xa7d40e6cddf9c527),
		UINT64_C(0xa7d40e607f75da53), UINT64_C(0xa7d40e66ddf9c527), UINT64_C(0xa7d40e6eddf9c527),
		UINT64_C(0xa7d40e697f75da53), UINT64_C(0xa7d40e6bc2159921), UINT64_C(0xa7d40e6c7f75da53),
		UINT64_C(0xa7d40e71ddf9c527), UINT64_C(0xa7d40e78c2159921), UINT64_C(0xa7d40e74ddf9c527),
		UINT64_C(0xa7d40e7bc2159921), UINT64_C(0xa7d40e687f75da53), UINT64_C(0xa7d40e62c2159921),
		UINT64_C(0xa7d40e667f75da53), UINT64_C(0xa7d40e70c2159921), UINT64_C(0xa7d40e6e7f75da53),
		UINT64_C(0xa7d40e65ddf9c527), UINT64_C(0xa7d40e627f75da53), UINT64_C(0xa7d40e7cc2159921),
		UINT64_C(0xa7d40e7fc2159921), UINT64_C(0xa7d40e7a7f75da53), UINT64_C(0xa7d40e667f75da53),
		UINT64_C(0xa7d40e70c2159921), UINT64_C(0xa7d40e66ddf9c527),
	};
	const uint64_t del1 = UINT64_C(0xa7d40e797f75da53),
				del2 = UINT64_C(0xa7d40e697f75da53);
	cf_params	p;
	char		err[256] = "";
	cf_filter	cf = {0};
	uint8_t    *buf;
	int			r1 = 0;

	t_begin();
	CHECK(cf_params_growing(3, 0.5, 4, &p, err, sizeof err), "%s", err);
	p.kind = CF_KIND_INTEGER;
	p.budget = false;
	p.tail_bits = 5;
	buf = malloc((size_t) cf_init_bytes(&p));
	CHECK(buf, "out of memory");
	cf_init(buf, &p);
	cf_open(&cf, buf, (size_t) cf_init_bytes(&p));
	for (size_t j = 0; j < sizeof rows / sizeof rows[0]; j++)
		CHECK(tracked_add(&cf, rows[j]), "row %zu refused", j);
	CHECK(cf.f == 4 && cf.c == 1 && cf.m == 17, "f %u, c %u, m %u: not the shape the case was found in",
		  cf.f, cf.c, cf.m);
	r1 = cf_remove_saturating(&cf, del1, cf.b / 2);
	CHECK(r1 == -1, "the first delete: %d, not kept", r1);
	(void) cf_remove_saturating(&cf, del2, cf.b / 2);
	/* del1 had one row, now none; del2 two, now one; the others all theirs */
	for (size_t j = 0; j < sizeof rows / sizeof rows[0]; j++)
		CHECK(rows[j] == del1 || cf_contains(&cf, rows[j]), "the value of row %zu (%016llx) not found", j,
			  (unsigned long long) rows[j]);
done:
	t_end("duplicates: a remove counts the other half of a split bucket (a sequence a model run found)");
	free(cf.buf);
}

void
run_saturate_tests(void)
{
	test_sat_model(false);
	test_sat_model(true);
	test_direct_remove();
	test_split_half();
}
