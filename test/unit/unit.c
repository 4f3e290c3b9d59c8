/*
 * unit.c
 *     The unit tests of the plain-C core of the cuckoo extension (src/core/):
 *     the harness the test_*.c files share, and main.  No PostgreSQL is
 *     involved: items are random 64-bit hashes from a fixed-seed splitmix64
 *     stream, so every run is identical.  The core is built with -DCF_DEBUG,
 *     so its own invariant checks run too.
 *
 * Output: one line per test case, "ok - <name>" or "not ok - <name>: <detail>"
 * (an ok line may carry figures after ": "), and as the last line
 * "N passed, N failed".  An ok line ends with the test's time, " [1.2s]",
 * when it took half a second or more; with UNIT_TIMES=1 every ok line ends
 * with its time in milliseconds, " [12ms]" (to see where a run's time goes).  The exit status is 0 iff nothing failed.
 *
 * The validation tests allocate every mutated buffer with malloc at its
 * exact length, so that a run under AddressSanitizer catches any read
 * outside the buffer (make -C test/unit EXTRA_CFLAGS=-fsanitize=address,undefined).
 */
#include "unit.h"

/* ========================================================================
 * Harness
 * ======================================================================== */

bool unit_light;
bool unit_times;
int	n_skipped;

/* true (and a "# skipped" line) when UNIT_LIGHT leaves the scale test `what` out */
bool
unit_skip(const char *what)
{
	if (!unit_light)
		return false;
	printf("# skipped (UNIT_LIGHT, the plain run has it): %s\n", what);
	n_skipped++;
	return true;
}

int	n_passed,
			n_failed;
bool t_failed;
char t_msg[2048];
char t_note[1024];
double t_start;

double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

void
t_begin(void)
{
	t_failed = false;
	t_msg[0] = '\0';
	t_note[0] = '\0';
	t_start = now_sec();
}

void
t_fail_at(const char *file, int line, const char *fmt,...)
{
	va_list		ap;
	int			n;

	if (t_failed)
		return;					/* keep the first failure */
	t_failed = true;
	n = snprintf(t_msg, sizeof t_msg, "[%s:%d] ", file, line);
	va_start(ap, fmt);
	vsnprintf(t_msg + n, sizeof t_msg - (size_t) n, fmt, ap);
	va_end(ap);
}

void
t_set_note(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(t_note, sizeof t_note, fmt, ap);
	va_end(ap);
}

void
t_end(const char *name)
{
	double		el = now_sec() - t_start;
	char		tm[32] = "";

	if (unit_times)
		snprintf(tm, sizeof tm, " [%.0fms]", el * 1000);
	else if (el >= 0.5)
		snprintf(tm, sizeof tm, " [%.1fs]", el);
	if (t_failed)
	{
		printf("not ok - %s: %s\n", name, t_msg);
		n_failed++;
	}
	else
	{
		if (t_note[0])
			printf("ok - %s: %s%s\n", name, t_note, tm);
		else if (tm[0])
			printf("ok - %s:%s\n", name, tm);
		else
			printf("ok - %s\n", name);
		n_passed++;
	}
	fflush(stdout);
}


const char *
stname(cf_status st)
{
	switch (st)
	{
		case CF_OK:
			return "CF_OK";
		case CF_OK_STASHED:
			return "CF_OK_STASHED";
		case CF_EXISTS:
			return "CF_EXISTS";
		case CF_FULL:
			return "CF_FULL";
		case CF_TOO_MANY_COPIES:
			return "CF_TOO_MANY_COPIES";
		case CF_SHAPE_MISMATCH:
			return "CF_SHAPE_MISMATCH";
		case CF_KIND_MISMATCH:
			return "CF_KIND_MISMATCH";
	}
	return "(unknown status)";
}

/* ========================================================================
 * Deterministic PRNG: splitmix64.  One stream never repeats a value, so the
 * items drawn from one stream are distinct, and non-members drawn later
 * from the same stream are certainly not members.
 * ======================================================================== */

uint64_t
sm64(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

uint64_t
rnd(uint64_t *s, uint64_t n)
{
	return n ? sm64(s) % n : 0;
}

void
shuffle_u64(uint64_t *a, size_t n, uint64_t *s)
{
	for (size_t i = n; i > 1; i--)
	{
		size_t		j = (size_t) rnd(s, i);
		uint64_t	t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ========================================================================
 * Filter helpers
 * ======================================================================== */

bool
fnew(filt *F, uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks,
	 uint16_t kind, uint32_t tag, uint64_t cap)
{
	cf_params	p = ref_params(m, b, f, ss, kicks, kind, tag, cap);
	char		err[256] = "";

	F->buf = NULL;
	F->len = 0;
	if (!cf_check_params(&p, err, sizeof err))
	{
		FAIL("cf_check_params(m=%u b=%u f=%u ss=%d kicks=%u cap=%" PRIu64 ") rejected: %s",
			 m, b, f, (int) ss, kicks, cap, err);
		return false;
	}
	F->len = cf_total_bytes(m, b, f, ss);
	F->buf = malloc(F->len);
	if (F->buf == NULL)
	{
		FAIL("out of memory (%zu bytes)", F->len);
		return false;
	}
	cf_init(F->buf, &p);
	cf_open(&F->cf, F->buf, F->len);
	return true;
}

bool
fclone(filt *D, const filt *S)
{
	D->len = S->len;
	D->buf = malloc(S->len);
	if (D->buf == NULL)
	{
		FAIL("out of memory");
		return false;
	}
	memcpy(D->buf, S->buf, S->len);
	cf_open(&D->cf, D->buf, D->len);
	return true;
}

void
ffree(filt *F)
{
	free(F->buf);
	F->buf = NULL;
}

bool
fvalid_at(const char *file, int line, const filt *F, const char *when)
{
	char		err[256] = "";

	if (!cf_validate(F->buf, F->len, err, sizeof err))
	{
		t_fail_at(file, line, "cf_validate failed %s: %s", when, err);
		return false;
	}
	return true;
}

bool
all_found_at(const char *file, int line, const filt *F, const uint64_t *it, size_t n, const char *when)
{
	for (size_t i = 0; i < n; i++)
	{
		if (!cf_contains(&F->cf, it[i]) || cf_count(&F->cf, it[i]) < 1)
		{
			t_fail_at(file, line, "false negative %s: item %zu of %zu (hash %016" PRIx64
					  ") not found (contains %d, count %u)", when, i, n, it[i],
					  (int) cf_contains(&F->cf, it[i]), cf_count(&F->cf, it[i]));
			return false;
		}
	}
	return true;
}

/* m = c << k with c < 256, k as small as possible but c >= 128 when k > 0 */
void
split_m(uint32_t m, uint32_t *c, uint32_t *k)
{
	uint32_t	kk = 0;

	while ((m >> kk) >= 256)
		kk++;
	*c = m >> kk;
	*k = kk;
}

/* ========================================================================
 * main
 * ======================================================================== */

/*
 * UNIT_AREAS=growth,saturate (the test_*.c file names without "test_"):
 * only those areas run, to time or debug a part (a partial run says so).
 * Unset or empty: all of them.
 */
static const char *unit_areas;

static bool
area(const char *name)
{
	size_t		n = strlen(name);

	if (unit_areas == NULL || unit_areas[0] == '\0')
		return true;
	for (const char *p = unit_areas; (p = strstr(p, name)) != NULL; p += n)
		if ((p == unit_areas || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

/* The test_*.c areas, in the order they run (UNIT_AREAS picks by name). */
static const struct
{
	const char *name;
	void		(*run) (void);
}			areas[] = {
	{"sizing", run_sizing_tests},
	{"base64", run_base64_tests},
	{"table", run_table_tests},
	{"union", run_union_tests},
	{"validate", run_validate_tests},
	{"growth", run_growth_tests},
	{"saturate", run_saturate_tests},
	{"build", run_build_tests},
	{"slice", run_slice_tests},
	{"store", run_store_tests},
	{"ops", run_ops_tests},
};

int
main(void)
{
	double		t0 = now_sec();
	const char *light = getenv("UNIT_LIGHT"),
			   *times = getenv("UNIT_TIMES");

	unit_light = light != NULL && light[0] != '\0' && strcmp(light, "0") != 0;
	unit_times = times != NULL && times[0] != '\0' && strcmp(times, "0") != 0;
	unit_areas = getenv("UNIT_AREAS");
	if (unit_areas != NULL && unit_areas[0] != '\0')
		printf("# UNIT_AREAS=%s: only these areas run\n", unit_areas);
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (area(areas[i].name))
			areas[i].run();
	fprintf(stderr, "# total %.1fs\n", now_sec() - t0);
	if (unit_light)
		printf("# UNIT_LIGHT: %d scale tests left out, the long random loops at a fourth\n", n_skipped);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
