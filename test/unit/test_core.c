/*
 * test_core.c
 *     Unit tests for the plain-C core of the cuckoo extension
 *     (src/cuckoo_core.[ch]).  No PostgreSQL is involved: items are random
 *     64-bit hashes from a fixed-seed splitmix64 stream, so every run is
 *     identical.
 *
 * Output: one line per test case, "ok - <name>" or "not ok - <name>: <detail>"
 * (an ok line may carry figures after ": "), and as the last line
 * "N passed, N failed".  The exit status is 0 iff nothing failed.
 *
 * The validation tests allocate every mutated buffer with malloc at its
 * exact length, so that a run under AddressSanitizer catches any read
 * outside the buffer (make -C test/unit EXTRA_CFLAGS=-fsanitize=address,undefined).
 */
#define _POSIX_C_SOURCE 200809L

#include "cf.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* Diagnostic texts are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 7
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* ========================================================================
 * Harness
 * ======================================================================== */

static int	n_passed,
			n_failed;
static bool t_failed;
static char t_msg[2048];
static char t_note[1024];
static double t_start;

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static void
t_begin(void)
{
	t_failed = false;
	t_msg[0] = '\0';
	t_note[0] = '\0';
	t_start = now_sec();
}

static void t_fail_at(int line, const char *fmt,...) __attribute__((format(printf, 2, 3)));
static void
t_fail_at(int line, const char *fmt,...)
{
	va_list		ap;
	int			n;

	if (t_failed)
		return;					/* keep the first failure */
	t_failed = true;
	n = snprintf(t_msg, sizeof t_msg, "[test_core.c:%d] ", line);
	va_start(ap, fmt);
	vsnprintf(t_msg + n, sizeof t_msg - (size_t) n, fmt, ap);
	va_end(ap);
}

static void t_set_note(const char *fmt,...) __attribute__((format(printf, 1, 2)));
static void
t_set_note(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(t_note, sizeof t_note, fmt, ap);
	va_end(ap);
}

static void
t_end(const char *name)
{
	double		el = now_sec() - t_start;
	char		tm[32] = "";

	if (el >= 0.5)
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

#define FAIL(...)		t_fail_at(__LINE__, __VA_ARGS__)
/* On failure: record the message (first one wins) and jump to cleanup. */
#define CHECK(cond, ...) \
	do { if (!(cond)) { FAIL(__VA_ARGS__); goto done; } } while (0)
/* For helpers that record their own failure message. */
#define REQUIRE(call)	do { if (!(call)) goto done; } while (0)

static const char *
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

static uint64_t
sm64(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static uint64_t
rnd(uint64_t *s, uint64_t n)
{
	return n ? sm64(s) % n : 0;
}

static void
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
 * Byte layout (as written by cf_init; see src/cuckoo_core.c)
 * ======================================================================== */

#define H_MAGIC		0
#define H_VERSION	4
#define H_BSIZE		5
#define H_FPBITS	6
#define H_FLAGS		7
#define H_KIND		8
#define H_RESERVED	10
#define H_TAG		12
#define H_BUCKETS	16
#define H_KICKS		20
#define H_ITEMS		24
#define H_CAPACITY	32
#define H_VBUCKET	40
#define H_VFP		44
#define HDR			48

static uint16_t
g16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static uint32_t
g32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static uint64_t
g64(const uint8_t *p)
{
	return (uint64_t) g32(p) | ((uint64_t) g32(p + 4) << 32);
}

static void
p16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static void
p32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void
p64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* Writes a header field of the given width (1, 2, 4 or 8 bytes). */
static void
pfield(uint8_t *buf, unsigned off, unsigned width, uint64_t v)
{
	switch (width)
	{
		case 1:
			buf[off] = (uint8_t) v;
			break;
		case 2:
			p16(buf + off, (uint16_t) v);
			break;
		case 4:
			p32(buf + off, (uint32_t) v);
			break;
		default:
			p64(buf + off, v);
			break;
	}
}

static uint64_t
gfield(const uint8_t *buf, unsigned off, unsigned width)
{
	switch (width)
	{
		case 1:
			return buf[off];
		case 2:
			return g16(buf + off);
		case 4:
			return g32(buf + off);
		default:
			return g64(buf + off);
	}
}

/* ========================================================================
 * An independent reading of the format, used as an oracle for cf_validate
 * ======================================================================== */

static bool
ref_repr(uint64_t m)
{
	if (m < 1 || m > UINT32_MAX)
		return false;
	while ((m & 1) == 0)
		m >>= 1;
	return m < 256;				/* odd part below 2^8: m = c * 2^k, c < 256 */
}

static uint64_t
binomial(unsigned n, unsigned k)
{
	uint64_t	r = 1;

	if (k > n)
		return 0;
	for (unsigned i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

#define SS_NCODES 3876
static uint16_t ref_ss_nibbles[SS_NCODES];

static uint32_t
ref_ss_rank(const uint32_t *nib)	/* nib sorted ascending */
{
	return (uint32_t) (binomial(nib[0], 1) + binomial(nib[1] + 1, 2) +
					   binomial(nib[2] + 2, 3) + binomial(nib[3] + 3, 4));
}

static bool
ref_ss_init(void)
{
	static bool done_ = false;
	static bool ok_ = true;
	bool		seen[SS_NCODES];

	if (done_)
		return ok_;
	memset(seen, 0, sizeof seen);
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++)
				{
					uint32_t	nib[4] = {a, b, c, d};
					uint32_t	r = ref_ss_rank(nib);

					if (r >= SS_NCODES || seen[r])
						ok_ = false;
					else
					{
						seen[r] = true;
						ref_ss_nibbles[r] = (uint16_t) (a | (b << 4) | (c << 8) | (d << 12));
					}
				}
	done_ = true;
	return ok_;
}

/* Bits are numbered LSB first within little-endian bytes. */
static uint64_t
rbits(const uint8_t *d, uint64_t pos, unsigned w)
{
	uint64_t	v = 0;
	size_t		byte = (size_t) (pos >> 3);
	unsigned	sh = (unsigned) (pos & 7);
	unsigned	nb = (sh + w + 7) / 8;

	if (w == 0)
		return 0;
	for (unsigned i = 0; i < nb; i++)
		v |= (uint64_t) d[byte + i] << (8 * i);
	return (v >> sh) & ((UINT64_C(1) << w) - 1);
}

static void
wbits(uint8_t *d, uint64_t pos, unsigned w, uint64_t val)
{
	for (unsigned i = 0; i < w; i++)
	{
		uint64_t	p = pos + i;
		uint8_t		bit = (uint8_t) (1u << (p & 7));

		if ((val >> i) & 1)
			d[p >> 3] |= bit;
		else
			d[p >> 3] &= (uint8_t) ~bit;
	}
}

typedef struct geom
{
	uint32_t	m,
				b,
				f;
	bool		ss;
	uint64_t	bb;				/* bits per bucket */
	uint64_t	fmask;			/* largest fingerprint */
} geom;

static geom
hgeom(const uint8_t *buf)
{
	geom		g;

	g.b = buf[H_BSIZE];
	g.f = buf[H_FPBITS];
	g.ss = (buf[H_FLAGS] & 1) != 0;
	g.m = g32(buf + H_BUCKETS);
	g.bb = g.ss ? 12 + 4 * ((uint64_t) g.f - 4) : (uint64_t) g.b * g.f;
	/* f comes from untrusted bytes here: keep the shift defined */
	g.fmask = g.f >= 64 ? UINT64_MAX : (UINT64_C(1) << g.f) - 1;
	return g;
}

/* False when a semi-sorted bucket carries an impossible code. */
static bool
ref_read_bucket(const uint8_t *buf, const geom *g, uint32_t i, uint32_t *fps)
{
	const uint8_t *d = buf + HDR;
	uint64_t	pos = (uint64_t) i * g->bb;

	if (!g->ss)
	{
		for (uint32_t j = 0; j < g->b; j++)
			fps[j] = (uint32_t) rbits(d, pos + (uint64_t) j * g->f, g->f);
		return true;
	}
	else
	{
		uint32_t	code = (uint32_t) rbits(d, pos, 12);
		unsigned	lb = g->f - 4;

		if (code >= SS_NCODES)
			return false;
		for (uint32_t j = 0; j < 4; j++)
			fps[j] = (uint32_t) (((uint64_t) ((ref_ss_nibbles[code] >> (4 * j)) & 15) << lb) |
								 rbits(d, pos + 12 + (uint64_t) j * lb, lb));
		return true;
	}
}

/*
 * Writes bucket i.  For semi-sorted buckets with full_sort false the entries
 * are only ordered by their 4-bit prefix (stable), so low bits may end up
 * out of order: the one kind of unsorted bucket the format can express.
 */
static void
ref_write_bucket(uint8_t *buf, const geom *g, uint32_t i, const uint32_t *in, bool full_sort)
{
	uint8_t    *d = buf + HDR;
	uint64_t	pos = (uint64_t) i * g->bb;
	uint32_t	fps[8];

	memcpy(fps, in, sizeof(uint32_t) * g->b);
	if (!g->ss)
	{
		for (uint32_t j = 0; j < g->b; j++)
			wbits(d, pos + (uint64_t) j * g->f, g->f, fps[j]);
	}
	else
	{
		unsigned	lb = g->f - 4;
		uint32_t	nib[4];

		for (int a = 1; a < 4; a++)		/* insertion sort: stable */
			for (int c = a; c > 0; c--)
			{
				uint32_t	x = full_sort ? fps[c - 1] : fps[c - 1] >> lb;
				uint32_t	y = full_sort ? fps[c] : fps[c] >> lb;

				if (x > y)
				{
					uint32_t	t = fps[c];

					fps[c] = fps[c - 1];
					fps[c - 1] = t;
				}
			}
		for (int j = 0; j < 4; j++)
			nib[j] = fps[j] >> lb;
		wbits(d, pos, 12, ref_ss_rank(nib));
		for (uint32_t j = 0; j < 4; j++)
			wbits(d, pos + 12 + (uint64_t) j * lb, lb, fps[j] & ((UINT64_C(1) << lb) - 1));
	}
}

static bool
ref_bucket_full(const uint8_t *buf, const geom *g, uint32_t i)
{
	uint32_t	fps[8];

	if (!ref_read_bucket(buf, g, i, fps))
		return false;
	for (uint32_t j = 0; j < g->b; j++)
		if (fps[j] == 0)
			return false;
	return true;
}

/* Non-empty entries in the table, plus one for a used victim slot. */
static uint64_t
ref_count(const uint8_t *buf)
{
	geom		g = hgeom(buf);
	uint64_t	n = 0;
	uint32_t	fps[8];

	for (uint32_t i = 0; i < g.m; i++)
	{
		if (!ref_read_bucket(buf, &g, i, fps))
			continue;
		for (uint32_t j = 0; j < g.b; j++)
			n += fps[j] != 0;
	}
	return n + ((buf[H_FLAGS] & 2) ? 1 : 0);
}

/*
 * The rules of a well-formed filter, written down independently of
 * cf_validate.  Only the victim's alternate bucket is computed with the
 * library (cf_alt_bucket), after the header is known to be sane.
 */
static bool
ref_valid(const uint8_t *buf, size_t len, const char **why)
{
#define NO(s) do { if (why) *why = (s); return false; } while (0)
	uint32_t	b,
				f,
				m,
				kicks,
				tag,
				vb,
				vfp;
	uint16_t	kind;
	uint64_t	items,
				cap,
				bits,
				dbytes,
				total,
				count = 0;
	uint8_t		fl;
	bool		ss;
	geom		g;

	if (len < HDR)
		NO("shorter than the header");
	if (g32(buf) != CF_MAGIC)
		NO("magic");
	if (buf[H_VERSION] != 1)
		NO("version");
	fl = buf[H_FLAGS];
	if (fl & ~3)
		NO("unknown flags");
	if (g16(buf + H_RESERVED) != 0)
		NO("reserved");
	b = buf[H_BSIZE];
	f = buf[H_FPBITS];
	ss = fl & 1;
	kind = g16(buf + H_KIND);
	tag = g32(buf + H_TAG);
	m = g32(buf + H_BUCKETS);
	kicks = g32(buf + H_KICKS);
	items = g64(buf + H_ITEMS);
	cap = g64(buf + H_CAPACITY);
	vb = g32(buf + H_VBUCKET);
	vfp = g32(buf + H_VFP);
	if (b != 2 && b != 4 && b != 8)
		NO("bucket size");
	if (f < 4 || f > 32)
		NO("fingerprint size");
	if (ss && b != 4)
		NO("semisort with b != 4");
	if (!ref_repr(m))
		NO("bucket count not representable");
	if (kicks > 100000)
		NO("max kicks");
	if (kind > 11)
		NO("kind");
	if ((kind == 11) != (tag != 0))
		NO("type tag vs kind");
	if (cap < 1 || cap > (uint64_t) m * b)
		NO("capacity");
	g = hgeom(buf);
	bits = (uint64_t) m * g.bb;
	dbytes = ((bits + 63) / 64) * 8 + 8;
	total = HDR + dbytes;
	if (total > CF_MAX_BYTES)
		NO("too big");
	if (len != total)
		NO("length");
	if (fl & 2)
	{
		if (vb >= m)
			NO("victim bucket");
		if (vfp == 0 || vfp > g.fmask)
			NO("victim fingerprint");
	}
	else if (vb != 0 || vfp != 0)
		NO("victim fields without flag");
	for (uint32_t i = 0; i < m; i++)
	{
		uint32_t	fps[8];

		if (!ref_read_bucket(buf, &g, i, fps))
			NO("semisort code");
		if (ss)
			for (int j = 0; j < 3; j++)
				if (fps[j] > fps[j + 1])
					NO("semisort order");
		for (uint32_t j = 0; j < b; j++)
			count += fps[j] != 0;
	}
	for (uint64_t p = bits; p < dbytes * 8; p++)
		if ((buf[HDR + (p >> 3)] >> (p & 7)) & 1)
			NO("padding");
	if (fl & 2)
	{
		cf_filter	cf;

		cf_open(&cf, buf, len);
		count++;
		if (!ref_bucket_full(buf, &g, vb) ||
			!ref_bucket_full(buf, &g, cf_alt_bucket(&cf, vb, vfp)))
			NO("victim with room in its buckets");
	}
	if (items != count)
		NO("item count");
	if (kind == 0 && items != 0)
		NO("kind ANY with items");
	return true;
#undef NO
}

/* ========================================================================
 * Filter helpers
 * ======================================================================== */

typedef struct filt
{
	uint8_t    *buf;
	size_t		len;
	cf_filter	cf;
} filt;

static bool
fnew(filt *F, uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks,
	 uint16_t kind, uint32_t tag, uint64_t cap)
{
	cf_params	p;
	char		err[256] = "";

	memset(&p, 0, sizeof p);
	p.num_buckets = m;
	p.bucket_size = b;
	p.fp_bits = f;
	p.semisort = ss;
	p.max_kicks = kicks;
	p.kind = kind;
	p.type_tag = tag;
	p.capacity = cap;
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

static bool
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

static void
ffree(filt *F)
{
	free(F->buf);
	F->buf = NULL;
}

static bool
fvalid_at(int line, const filt *F, const char *when)
{
	char		err[256] = "";

	if (!cf_validate(F->buf, F->len, err, sizeof err))
	{
		t_fail_at(line, "cf_validate failed %s: %s", when, err);
		return false;
	}
	return true;
}
#define fvalid(F, when) fvalid_at(__LINE__, (F), (when))

static bool
all_found_at(int line, const filt *F, const uint64_t *it, size_t n, const char *when)
{
	for (size_t i = 0; i < n; i++)
	{
		if (!cf_contains(&F->cf, it[i]) || cf_count(&F->cf, it[i]) < 1)
		{
			t_fail_at(line, "false negative %s: item %zu of %zu (hash %016" PRIx64
					  ") not found (contains %d, count %u)", when, i, n, it[i],
					  (int) cf_contains(&F->cf, it[i]), cf_count(&F->cf, it[i]));
			return false;
		}
	}
	return true;
}
#define all_found(F, it, n, when) all_found_at(__LINE__, (F), (it), (n), (when))

/* m = c << k with c < 256, k as small as possible but c >= 128 when k > 0 */
static void
split_m(uint32_t m, uint32_t *c, uint32_t *k)
{
	uint32_t	kk = 0;

	while ((m >> kk) >= 256)
		kk++;
	*c = m >> kk;
	*k = kk;
}

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
 *    first failure
 * ======================================================================== */

static void
test_table3(bool ss)
{
	const char *name = ss ? "table3 semisort" : "table3 plain";
	const uint32_t m = 1u << 20,
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
	t_set_note("load %.4f fpr %.4f%% (expected %.4f%%), %.2f bits/item", load, 100 * fpr,
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

/* ========================================================================
 * 8. Validation of untrusted bytes
 * ======================================================================== */

typedef struct base_t
{
	char		name[64];
	uint8_t    *buf;
	size_t		len;
	bool		big;
} base_t;

#define MAXBASES 24
static base_t bases[MAXBASES];
static int	nbases;
static bool bases_built;

static uint64_t v_accepted,
			v_rejected;

/*
 * Runs every operation on a buffer that cf_validate accepted: nothing may
 * crash, stored items stay found, and the buffer is still valid afterwards.
 */
static bool
exercise(uint8_t *buf, size_t len, uint64_t seed, const char *what)
{
	cf_filter	cf,
				cc,
				dc;
	uint8_t    *copy = NULL,
			   *dst = NULL;
	uint64_t	s = seed,
				stored[8];
	int			ns = 0;
	uint32_t	t;
	cf_params	p;
	char		err[256] = "";
	cf_status	st;
	bool		ok = false;

	cf_open(&cf, buf, len);
	for (int i = 0; i < 16; i++)
	{
		uint64_t	h = sm64(&s);

		if (cf_contains(&cf, h) != (cf_count(&cf, h) > 0))
		{
			FAIL("%s: cf_contains and cf_count disagree", what);
			goto out;
		}
	}
	copy = malloc(len);
	if (!copy)
		goto oom;
	memcpy(copy, buf, len);
	cf_open(&cc, copy, len);
	st = cf_union_into(&cf, &cc);
	if (st != CF_OK || memcmp(buf, copy, len) != 0)
	{
		FAIL("%s: union with its own copy returned %s or changed bytes", what, stname(st));
		goto out;
	}

	t = cf_shrink_target(&cf);
	if (t == 0 || t > cf.m || !cf_buckets_representable(t))
	{
		FAIL("%s: cf_shrink_target gave %u for m = %u", what, t, cf.m);
		goto out;
	}
	cf_get_params(&cf, &p);
	p.num_buckets = t;
	if (p.capacity > (uint64_t) t * p.bucket_size)
		p.capacity = (uint64_t) t * p.bucket_size;
	if (!cf_check_params(&p, err, sizeof err))
	{
		FAIL("%s: parameters of the shrunk filter rejected: %s", what, err);
		goto out;
	}
	dst = malloc(cf_total_bytes(t, p.bucket_size, p.fp_bits, p.semisort));
	if (!dst)
		goto oom;
	cf_init(dst, &p);
	cf_open(&dc, dst, cf_total_bytes(t, p.bucket_size, p.fp_bits, p.semisort));
	st = cf_rehash_into(&cf, &dc);
	if (st != CF_OK && st != CF_FULL)
	{
		FAIL("%s: cf_rehash_into returned %s", what, stname(st));
		goto out;
	}
	if (!cf_validate(dst, dc.len, err, sizeof err))
	{
		FAIL("%s: filter rehashed into %u buckets (%s) fails validation: %s", what, t, stname(st), err);
		goto out;
	}
	if (st == CF_OK && cf_items(&dc) != cf_items(&cf))
	{
		FAIL("%s: rehash kept %" PRIu64 " of %" PRIu64 " items", what, cf_items(&dc), cf_items(&cf));
		goto out;
	}

	if (cf_kind_of(&cf) == CF_KIND_ANY)
		cf_set_kind(&cf, CF_KIND_INTEGER, 0);	/* as a caller does first */
	for (int i = 0; i < 8; i++)
	{
		uint64_t	h = sm64(&s);

		memcpy(copy, buf, len);
		st = cf_insert(&cf, h);
		if (st == CF_OK || st == CF_OK_STASHED)
		{
			stored[ns++] = h;
			if (!cf_contains(&cf, h))
			{
				FAIL("%s: item not found right after %s", what, stname(st));
				goto out;
			}
		}
		else if (st == CF_FULL || st == CF_TOO_MANY_COPIES)
		{
			if (memcmp(copy, buf, len) != 0)
			{
				FAIL("%s: insert returning %s changed the filter", what, stname(st));
				goto out;
			}
		}
		else
		{
			FAIL("%s: cf_insert returned %s", what, stname(st));
			goto out;
		}
	}
	if (ns > 0)
	{
		memcpy(copy, buf, len);
		st = cf_insert_if_absent(&cf, stored[0]);
		if (st != CF_EXISTS || memcmp(copy, buf, len) != 0)
		{
			FAIL("%s: cf_insert_if_absent of a stored item returned %s", what, stname(st));
			goto out;
		}
	}
	(void) cf_insert_if_absent(&cf, sm64(&s));
	for (int i = ns - 1; i >= 0; i--)
	{
		for (int j = 0; j <= i; j++)
			if (!cf_contains(&cf, stored[j]))
			{
				FAIL("%s: false negative for an item inserted into the accepted buffer", what);
				goto out;
			}
		if (!cf_remove(&cf, stored[i]))
		{
			FAIL("%s: cf_remove of an inserted item returned false", what);
			goto out;
		}
	}
	for (int i = 0; i < 4; i++)
		(void) cf_remove(&cf, sm64(&s));
	if (!cf_validate(buf, len, err, sizeof err))
	{
		FAIL("%s: valid buffer fails validation after operations: %s", what, err);
		goto out;
	}
	ok = true;
	goto out;
oom:
	FAIL("out of memory");
out:
	free(copy);
	free(dst);
	return ok;
}

/*
 * Checks cf_validate on an exact-size copy of src[0..len).  want: 1 must
 * accept, 0 must reject, -1 whatever the reference validator says.  The
 * reference must agree with cf_validate in every case.
 */
static bool
verdict(const uint8_t *src, size_t len, int want, const char *what, uint64_t seed)
{
	uint8_t    *buf = malloc(len ? len : 1);
	char		err[256];
	const char *why = "valid";
	bool		ref,
				got,
				ok = false;

	if (!buf)
	{
		FAIL("out of memory");
		return false;
	}
	memcpy(buf, src, len);
	ref = ref_valid(buf, len, &why);
	err[0] = '\0';
	got = cf_validate(buf, len, err, sizeof err);
	if (want >= 0 && ref != (want == 1))
		FAIL("%s: the test expects %s but its reference validator says %s (%s)",
			 what, want ? "valid" : "invalid", ref ? "valid" : "invalid", why);
	else if (got != ref)
		FAIL("%s: cf_validate %s it (\"%s\"), expected %s (%s)", what,
			 got ? "accepted" : "rejected", err, ref ? "accept" : "reject", why);
	else if (!got && err[0] == '\0')
		FAIL("%s: rejected with an empty error message", what);
	else if (cf_validate(buf, len, NULL, 0) != got)
		FAIL("%s: verdict differs without an error buffer", what);
	else if (got && !cf_check_header(buf, len, NULL, 0))
		FAIL("%s: cf_check_header rejects what cf_validate accepts", what);
	else if (got)
	{
		v_accepted++;
		ok = exercise(buf, len, seed, what);
	}
	else
	{
		v_rejected++;
		ok = true;
	}
	free(buf);
	return ok;
}

/* A malloc'ed copy of a base resized to len (zero-extended). */
static uint8_t *
variant(const base_t *B, size_t len)
{
	uint8_t    *v = calloc(len ? len : 1, 1);

	if (v)
		memcpy(v, B->buf, len < B->len ? len : B->len);
	return v;
}

static bool
add_base(const char *name, uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks,
		 uint16_t kind, uint32_t tag, double fill, int victim_mode, bool big)
{
	filt		F = {0};
	uint64_t	s = 0xBA5E0000 + (uint64_t) nbases * 7919;
	uint64_t	want = (uint64_t) (fill * m * b + 0.5);
	cf_status	st;

	if (!fnew(&F, m, b, f, ss, kicks, kind, tag, (uint64_t) m * b))
		return false;
	if (victim_mode == 0)
	{
		for (uint64_t i = 0; i < want; i++)
		{
			st = cf_insert(&F.cf, sm64(&s));
			if (st != CF_OK)
			{
				FAIL("base %s: insert %" PRIu64 " returned %s", name, i, stname(st));
				ffree(&F);
				return false;
			}
		}
	}
	else
	{
		int			tries = 0;

		do
		{
			st = cf_insert(&F.cf, sm64(&s));
		} while (st != CF_OK_STASHED && ++tries < 100000);
		while (victim_mode == 2 && cf_items(&F.cf) < (uint64_t) m * b + 1 && ++tries < 200000)
			(void) cf_insert(&F.cf, sm64(&s));
		if (!cf_victim_used(&F.cf) ||
			(victim_mode == 2 && cf_items(&F.cf) != (uint64_t) m * b + 1))
		{
			FAIL("base %s: could not fill (%" PRIu64 " items)", name, cf_items(&F.cf));
			ffree(&F);
			return false;
		}
	}
	if (!fvalid(&F, name))
	{
		ffree(&F);
		return false;
	}
	snprintf(bases[nbases].name, sizeof bases[nbases].name, "%s", name);
	bases[nbases].buf = F.buf;
	bases[nbases].len = F.len;
	bases[nbases].big = big;
	nbases++;
	return true;
}

static bool
build_bases(void)
{
	if (bases_built)
		return nbases > 0;
	bases_built = true;
	if (!ref_ss_init())
	{
		FAIL("the test's semisort table is not a bijection");
		return false;
	}
	return
		add_base("b2 f7 m64 half", 64, 2, 7, false, 500, CF_KIND_INTEGER, 0, 0.5, 0, false) &&
		add_base("b4 f12 m300 70%", 300, 4, 12, false, 500, CF_KIND_TEXT, 0, 0.7, 0, false) &&
		add_base("b8 f19 m40 60%", 40, 8, 19, false, 500, CF_KIND_INTEGER, 0, 0.6, 0, false) &&
		add_base("b4 f32 m16 50%", 16, 4, 32, false, 500, CF_KIND_UUID, 0, 0.5, 0, false) &&
		add_base("b8 f4 m1 6 items", 1, 8, 4, false, 500, CF_KIND_BOOL, 0, 0.75, 0, false) &&
		add_base("semisort f13 m64 70%", 64, 4, 13, true, 500, CF_KIND_INTEGER, 0, 0.7, 0, false) &&
		add_base("semisort f4 m32 60%", 32, 4, 4, true, 500, CF_KIND_DATE, 0, 0.6, 0, false) &&
		add_base("semisort f32 m16 50%", 16, 4, 32, true, 500, CF_KIND_FLOAT, 0, 0.5, 0, false) &&
		add_base("b4 f12 m128 empty any", 128, 4, 12, false, 500, CF_KIND_ANY, 0, 0, 0, false) &&
		add_base("semisort f9 m8 empty other", 8, 4, 9, true, 500, CF_KIND_OTHER, 77, 0, 0, false) &&
		add_base("b4 f12 m8 full+victim k0", 8, 4, 12, false, 0, CF_KIND_TEXT, 0, 0, 2, false) &&
		add_base("b2 f9 m16 victim k500", 16, 2, 9, false, 500, CF_KIND_INTEGER, 0, 0, 1, false) &&
		add_base("semisort f13 m8 victim k0", 8, 4, 13, true, 0, CF_KIND_UUID, 0, 0, 1, false) &&
		add_base("b8 f5 m4 full+victim k0", 4, 8, 5, false, 0, CF_KIND_BYTEA, 0, 0, 2, false) &&
		add_base("semisort f10 m8 full+victim k0", 8, 4, 10, true, 0, CF_KIND_TEXT, 0, 0, 2, false) &&
		add_base("b4 f16 m512 60%", 512, 4, 16, false, 500, CF_KIND_INTEGER, 0, 0.6, 0, false) &&
		add_base("b2 f20 m200 other 30%", 200, 2, 20, false, 500, CF_KIND_OTHER, 12345, 0.3, 0, false) &&
		add_base("b4 f12 m8192 80%", 8192, 4, 12, false, 500, CF_KIND_INTEGER, 0, 0.8, 0, true);
}

static void
test_validate_bases(void)
{
	t_begin();
	v_accepted = v_rejected = 0;
	REQUIRE(build_bases());
	for (int i = 0; i < nbases; i++)
	{
		char		err[256] = "";
		const char *why = "";

		CHECK(cf_validate(bases[i].buf, bases[i].len, err, sizeof err),
			  "base %s rejected: %s", bases[i].name, err);
		CHECK(ref_valid(bases[i].buf, bases[i].len, &why),
			  "base %s fails the test's reference validator (%s)", bases[i].name, why);
		REQUIRE(verdict(bases[i].buf, bases[i].len, 1, bases[i].name, 1));
	}
	t_set_note("%d base filters valid", nbases);
done:
	t_end("validate: base filters (plain b=2/4/8, semisort, victim, empty, partly full)");
}

static void
test_validate_lengths(void)
{
	char		what[128];
	uint64_t	s = 0x7E57;
	size_t		tested = 0;

	t_begin();
	v_accepted = v_rejected = 0;
	REQUIRE(build_bases());
	for (int bi = 0; bi < nbases; bi++)
	{
		const base_t *B = &bases[bi];

		for (size_t L = 0; L < B->len; L++)
		{
			bool		sampled = B->len <= 8192 || L <= 256 || L + 256 >= B->len ||
				rnd(&s, B->len / 1000 + 1) == 0;

			if (!sampled)
				continue;
			snprintf(what, sizeof what, "%s truncated to %zu of %zu bytes", B->name, L, B->len);
			REQUIRE(verdict(B->buf, L, 0, what, L));
			tested++;
		}
		for (size_t extra = 1; extra <= 8; extra++)
			for (int fillv = 0; fillv < 2; fillv++)
			{
				uint8_t    *v = variant(B, B->len + extra);

				CHECK(v != NULL, "out of memory");
				if (fillv)
					memset(v + B->len, 0xA5, extra);
				snprintf(what, sizeof what, "%s extended by %zu bytes of 0x%02x", B->name, extra,
						 fillv ? 0xA5 : 0);
				if (!verdict(v, B->len + extra, 0, what, extra))
				{
					free(v);
					goto done;
				}
				free(v);
				tested++;
			}
	}
	t_set_note("%zu lengths rejected", tested);
done:
	t_end("validate: truncated and extended buffers");
}

/* Sets one header field in a copy of a base and checks the verdict. */
static bool
field_case(const base_t *B, unsigned off, unsigned width, uint64_t v, int want, const char *label)
{
	char		what[160];
	uint8_t    *c = variant(B, B->len);
	bool		ok;

	if (!c)
	{
		FAIL("out of memory");
		return false;
	}
	pfield(c, off, width, v);
	snprintf(what, sizeof what, "%s: %s = %" PRIu64, B->name, label, v);
	ok = verdict(c, B->len, want, what, v);
	free(c);
	return ok;
}

/*
 * Same, but the buffer gets the length that the mutated header describes
 * (when that is computable and modest), so the length check cannot be what
 * rejects it.
 */
static bool
field_case_resized(const base_t *B, unsigned off, unsigned width, uint64_t v, int want, const char *label)
{
	char		what[160];
	uint8_t		hdr[HDR];
	size_t		nlen;
	uint8_t    *c;
	bool		ok;
	geom		g;

	memcpy(hdr, B->buf, HDR);
	pfield(hdr, off, width, v);
	g = hgeom(hdr);
	if ((uint64_t) g.m * g.bb > (UINT64_C(64) << 23))
		return true;			/* more than 64 MB: the unresized case covers it */
	nlen = HDR + (size_t) (((uint64_t) g.m * g.bb + 63) / 64 * 8 + 8);
	if (nlen == B->len)
		return true;
	c = variant(B, nlen);
	if (!c)
	{
		FAIL("out of memory");
		return false;
	}
	memcpy(c, hdr, HDR);
	snprintf(what, sizeof what, "%s: %s = %" PRIu64 " (length %zu)", B->name, label, v, nlen);
	ok = verdict(c, nlen, want, what, v);
	free(c);
	return ok;
}

static void
test_validate_header(void)
{
	uint8_t		canary[16];

	t_begin();
	v_accepted = v_rejected = 0;
	REQUIRE(build_bases());
	for (int bi = 0; bi < nbases; bi++)
	{
		const base_t *B = &bases[bi];
		const uint8_t *h = B->buf;
		uint32_t	b = h[H_BSIZE],
					f = h[H_FPBITS],
					m = g32(h + H_BUCKETS),
					vb = g32(h + H_VBUCKET);
		uint16_t	kind = g16(h + H_KIND);
		uint64_t	items = g64(h + H_ITEMS);
		bool		victim = (h[H_FLAGS] & CF_FLAG_VICTIM) != 0;
		bool		ss = (h[H_FLAGS] & CF_FLAG_SEMISORT) != 0;
		uint64_t	mb = (uint64_t) m * b;
		static const uint64_t bad_b[] = {0, 1, 3, 5, 6, 7, 9, 16, 32, 255};
		static const uint64_t bad_f[] = {0, 1, 2, 3, 33, 34, 64, 128, 255};

		/* magic */
		for (unsigned i = 0; i < 4; i++)
		{
			REQUIRE(field_case(B, i, 1, h[i] ^ 0xFFu, 0, "magic byte"));
			REQUIRE(field_case(B, i, 1, h[i] ^ 0x01u, 0, "magic byte"));
		}
		REQUIRE(field_case(B, H_MAGIC, 4, 0, 0, "magic"));
		REQUIRE(field_case(B, H_MAGIC, 4, 0x4F4B4F43u, 0, "magic (byte-swapped)"));
		/* every unsupported version */
		for (unsigned v = 0; v < 256; v++)
			if (v != CF_VERSION)
				REQUIRE(field_case(B, H_VERSION, 1, v, 0, "version"));
		/* unknown flags */
		for (unsigned bit = 2; bit < 8; bit++)
			REQUIRE(field_case(B, H_FLAGS, 1, h[H_FLAGS] | (1u << bit), 0, "flags"));
		/* bucket size and fingerprint size */
		for (size_t i = 0; i < sizeof bad_b / sizeof bad_b[0]; i++)
		{
			REQUIRE(field_case(B, H_BSIZE, 1, bad_b[i], 0, "bucket size"));
			REQUIRE(field_case_resized(B, H_BSIZE, 1, bad_b[i], 0, "bucket size"));
		}
		for (size_t i = 0; i < sizeof bad_f / sizeof bad_f[0]; i++)
		{
			REQUIRE(field_case(B, H_FPBITS, 1, bad_f[i], 0, "fingerprint bits"));
			REQUIRE(field_case_resized(B, H_FPBITS, 1, bad_f[i], 0, "fingerprint bits"));
		}
		/* semisort needs b = 4 */
		if (!ss && b != 4)
		{
			REQUIRE(field_case(B, H_FLAGS, 1, h[H_FLAGS] | CF_FLAG_SEMISORT, 0, "flags (semisort, b != 4)"));
			REQUIRE(field_case_resized(B, H_FLAGS, 1, h[H_FLAGS] | CF_FLAG_SEMISORT, 0,
									   "flags (semisort, b != 4)"));
		}
		if (ss)
		{
			REQUIRE(field_case(B, H_BSIZE, 1, 2, 0, "semisort bucket size"));
			REQUIRE(field_case(B, H_BSIZE, 1, 8, 0, "semisort bucket size"));
			REQUIRE(field_case_resized(B, H_BSIZE, 1, 8, 0, "semisort bucket size"));
		}
		/* reserved */
		REQUIRE(field_case(B, H_RESERVED, 2, 1, 0, "reserved"));
		REQUIRE(field_case(B, H_RESERVED, 2, 0x100, 0, "reserved"));
		REQUIRE(field_case(B, H_RESERVED, 2, 0xFFFF, 0, "reserved"));
		/* kind and type tag */
		REQUIRE(field_case(B, H_KIND, 2, CF_KIND_MAX + 1, 0, "kind"));
		REQUIRE(field_case(B, H_KIND, 2, 0x100 | kind, 0, "kind"));
		REQUIRE(field_case(B, H_KIND, 2, 0xFFFF, 0, "kind"));
		if (kind != CF_KIND_OTHER)
		{
			REQUIRE(field_case(B, H_KIND, 2, CF_KIND_OTHER, 0, "kind OTHER with tag 0"));
			REQUIRE(field_case(B, H_TAG, 4, 1, 0, "type tag with a non-OTHER kind"));
			REQUIRE(field_case(B, H_TAG, 4, 0xFFFFFFFF, 0, "type tag with a non-OTHER kind"));
		}
		else
		{
			REQUIRE(field_case(B, H_TAG, 4, 0, 0, "type tag 0 with kind OTHER"));
			REQUIRE(field_case(B, H_TAG, 4, 4242, 1, "another type tag with kind OTHER"));
			REQUIRE(field_case(B, H_KIND, 2, CF_KIND_INTEGER, 0, "kind INTEGER with a tag"));
		}
		if (items > 0)
		{
			REQUIRE(field_case(B, H_KIND, 2, CF_KIND_ANY, 0, "kind ANY with items"));
			if (kind != CF_KIND_OTHER)
				REQUIRE(field_case(B, H_KIND, 2, kind == CF_KIND_TEXT ? CF_KIND_BYTEA : CF_KIND_TEXT, 1,
								   "another kind"));
		}
		else if (kind == CF_KIND_ANY)
			REQUIRE(field_case(B, H_KIND, 2, CF_KIND_NUMERIC, 1, "a kind on an empty filter"));
		/* bucket count */
		REQUIRE(field_case(B, H_BUCKETS, 4, 0, 0, "bucket count"));
		REQUIRE(field_case(B, H_BUCKETS, 4, 257, 0, "bucket count"));
		REQUIRE(field_case(B, H_BUCKETS, 4, m + 1, -1, "bucket count"));
		REQUIRE(field_case(B, H_BUCKETS, 4, 0xFFFFFFFF, 0, "bucket count"));
		REQUIRE(field_case(B, H_BUCKETS, 4, 0xFF000000, 0, "bucket count (huge)"));
		REQUIRE(field_case(B, H_BUCKETS, 4, 0x80000000, 0, "bucket count (huge)"));
		REQUIRE(field_case(B, H_BUCKETS, 4, 0x01FF0000, 0, "bucket count (not representable)"));
		/* max kicks */
		REQUIRE(field_case(B, H_KICKS, 4, CF_MAX_KICKS_LIMIT + 1, 0, "max kicks"));
		REQUIRE(field_case(B, H_KICKS, 4, 0xFFFFFFFF, 0, "max kicks"));
		REQUIRE(field_case(B, H_KICKS, 4, CF_MAX_KICKS_LIMIT, 1, "max kicks"));
		REQUIRE(field_case(B, H_KICKS, 4, 0, 1, "max kicks"));
		/* capacity */
		REQUIRE(field_case(B, H_CAPACITY, 8, 0, 0, "capacity"));
		REQUIRE(field_case(B, H_CAPACITY, 8, mb + 1, 0, "capacity"));
		REQUIRE(field_case(B, H_CAPACITY, 8, UINT64_MAX, 0, "capacity"));
		REQUIRE(field_case(B, H_CAPACITY, 8, mb, 1, "capacity"));
		REQUIRE(field_case(B, H_CAPACITY, 8, 1, 1, "capacity"));
		/* item count */
		REQUIRE(field_case(B, H_ITEMS, 8, items + 1, 0, "item count + 1"));
		REQUIRE(field_case(B, H_ITEMS, 8, items - 1, 0, "item count - 1"));
		REQUIRE(field_case(B, H_ITEMS, 8, mb + 2, 0, "item count"));
		REQUIRE(field_case(B, H_ITEMS, 8, UINT64_MAX, 0, "item count"));
		/* victim */
		if (!victim)
		{
			REQUIRE(field_case(B, H_FLAGS, 1, h[H_FLAGS] | CF_FLAG_VICTIM, 0, "victim flag without fields"));
			REQUIRE(field_case(B, H_VBUCKET, 4, 1, 0, "victim bucket without flag"));
			REQUIRE(field_case(B, H_VFP, 4, 1, 0, "victim fingerprint without flag"));
		}
		else
		{
			uint64_t	fmax = (UINT64_C(1) << f) - 1;

			REQUIRE(field_case(B, H_FLAGS, 1, h[H_FLAGS] & ~CF_FLAG_VICTIM, 0, "victim fields without flag"));
			REQUIRE(field_case(B, H_VBUCKET, 4, m, 0, "victim bucket"));
			REQUIRE(field_case(B, H_VBUCKET, 4, m + 1, 0, "victim bucket"));
			REQUIRE(field_case(B, H_VBUCKET, 4, 0xFFFFFFFF, 0, "victim bucket"));
			REQUIRE(field_case(B, H_VFP, 4, 0, 0, "victim fingerprint"));
			if (f < 32)
			{
				REQUIRE(field_case(B, H_VFP, 4, fmax + 1, 0, "victim fingerprint"));
				REQUIRE(field_case(B, H_VFP, 4, 0xFFFFFFFF, 0, "victim fingerprint"));
			}
			/* the other bucket of the pair and any fingerprint: fine when all is full */
			REQUIRE(field_case(B, H_VFP, 4, fmax, items == mb + 1 ? 1 : -1, "victim fingerprint"));
			REQUIRE(field_case(B, H_VBUCKET, 4, (vb + 1) % m, items == mb + 1 ? 1 : -1, "victim bucket"));
		}
	}

	/* bucket counts checked in isolation: zero-filled buffers of the right length */
	{
		static const uint64_t ms[] = {257, 259, 511, 1023, 0x1FF00, 256, 255, 510, 1, 4096};
		const base_t *B = &bases[8];	/* empty, kind ANY, b=4 f=12 */

		CHECK(B->buf[H_BSIZE] == 4 && B->buf[H_FPBITS] == 12 && g64(B->buf + H_ITEMS) == 0 &&
			  !(B->buf[H_FLAGS] & CF_FLAG_SEMISORT), "test setup: base 8 is not the empty b=4 f=12 one");
		for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		{
			size_t		len = cf_total_bytes(ms[i], 4, 12, false);
			uint8_t    *c = calloc(len, 1);
			char		what[96];

			CHECK(c != NULL, "out of memory");
			memcpy(c, B->buf, HDR);
			p32(c + H_BUCKETS, (uint32_t) ms[i]);
			p64(c + H_CAPACITY, 1);
			snprintf(what, sizeof what, "empty filter of %" PRIu64 " buckets", ms[i]);
			if (!verdict(c, len, ref_repr(ms[i]) ? 1 : 0, what, i))
			{
				free(c);
				goto done;
			}
			free(c);
		}
	}

	/* a short error buffer is filled without overflow */
	{
		uint8_t    *c = variant(&bases[0], bases[0].len);
		char		small[4 + sizeof canary];

		CHECK(c != NULL, "out of memory");
		c[H_VERSION] = 99;
		memset(canary, 0x5C, sizeof canary);
		memcpy(small + 4, canary, sizeof canary);
		small[0] = 'x';
		if (cf_validate(c, bases[0].len, small, 4) || memcmp(small + 4, canary, sizeof canary) != 0 ||
			strlen(small) > 3)
		{
			free(c);
			CHECK(false, "cf_validate with errlen 4 overflowed or did not reject");
		}
		free(c);
	}
	t_set_note("%" PRIu64 " header mutations rejected, %" PRIu64 " controls accepted", v_rejected, v_accepted);
done:
	t_end("validate: header fields");
}

/* Replaces bucket i of a copy and fixes the item count. */
static uint8_t *
with_bucket(const base_t *B, uint32_t i, const uint32_t *fps, bool full_sort, bool fix_count)
{
	uint8_t    *c = variant(B, B->len);
	geom		g;

	if (!c)
		return NULL;
	g = hgeom(c);
	ref_write_bucket(c, &g, i, fps, full_sort);
	if (fix_count)
	{
		p64(c + H_ITEMS, ref_count(c));
		if (ref_count(c) > 0 && g16(c + H_KIND) == CF_KIND_ANY)
			p16(c + H_KIND, CF_KIND_INTEGER);
	}
	return c;
}

static void
test_validate_contents(void)
{
	size_t		cases = 0;
	uint8_t    *c = NULL;
	char		what[160];

	t_begin();
	v_accepted = v_rejected = 0;
	REQUIRE(build_bases());
#define VERDICT(buf, want, ...) do { \
		snprintf(what, sizeof what, __VA_ARGS__); \
		CHECK((buf) != NULL, "out of memory"); \
		if (!verdict((buf), B->len, (want), what, cases)) goto done; \
		free(buf); (buf) = NULL; cases++; \
	} while (0)
	for (int bi = 0; bi < nbases; bi++)
	{
		const base_t *B = &bases[bi];
		geom		g = hgeom(B->buf);
		bool		victim = (B->buf[H_FLAGS] & CF_FLAG_VICTIM) != 0;
		uint64_t	used = (uint64_t) g.m * g.bb;
		uint64_t	total_bits = (uint64_t) (B->len - HDR) * 8;
		uint32_t	fps[8];

		if (B->big)
			continue;
		/* every padding bit */
		for (uint64_t p = used; p < total_bits; p++)
		{
			c = variant(B, B->len);
			if (c)
				c[HDR + (p >> 3)] |= (uint8_t) (1u << (p & 7));
			VERDICT(c, 0, "%s: padding bit %" PRIu64 " set", B->name, p);
		}
		if (g.ss)
		{
			/* impossible semi-sort codes, first and last bucket */
			for (uint32_t code = SS_NCODES; code < 4096; code++)
				for (int w = 0; w < 2; w++)
				{
					uint32_t	bi2 = w ? g.m - 1 : 0;

					c = variant(B, B->len);
					if (c)
						wbits(c + HDR, (uint64_t) bi2 * g.bb, 12, code);
					VERDICT(c, 0, "%s: bucket %u semisort code %u", B->name, bi2, code);
				}
			/* the largest code is fine: four fingerprints with prefix 15 */
			if (!victim && g.f >= 5)
			{
				uint32_t	lb = g.f - 4;

				for (int j = 0; j < 4; j++)
					fps[j] = (15u << lb) | (uint32_t) j;
				c = with_bucket(B, 0, fps, true, true);
				VERDICT(c, 1, "%s: bucket 0 with code 3875", B->name);
				/* same prefix, low bits out of order */
				fps[0] = (1u << lb) | 5;
				fps[1] = (1u << lb) | 3;
				fps[2] = 0;
				fps[3] = (2u << lb) | 1;
				c = with_bucket(B, 0, fps, false, true);
				VERDICT(c, 0, "%s: bucket 0 not in semi-sorted order", B->name);
				c = with_bucket(B, 0, fps, true, true);
				VERDICT(c, 1, "%s: bucket 0 re-sorted", B->name);
				fps[0] = (7u << lb) | 2;
				fps[1] = (7u << lb) | 1;
				fps[2] = (7u << lb) | 1;
				fps[3] = (7u << lb) | 3;
				c = with_bucket(B, g.m - 1, fps, false, true);
				VERDICT(c, 0, "%s: last bucket not in semi-sorted order", B->name);
			}
		}
		/* an entry appears without the item count knowing, or with it */
		if (!victim)
		{
			uint32_t	i,
						j = 0;
			bool		found = false;

			for (i = 0; i < g.m && !found; i++)
			{
				ref_read_bucket(B->buf, &g, i, fps);
				for (j = 0; j < g.b; j++)
					if (fps[j] == 0)
					{
						found = true;
						break;
					}
			}
			if (found)
			{
				i--;
				fps[j] = (uint32_t) g.fmask;
				c = with_bucket(B, i, fps, true, false);
				VERDICT(c, 0, "%s: extra entry in bucket %u, item count unchanged", B->name, i);
				c = with_bucket(B, i, fps, true, true);
				VERDICT(c, 1, "%s: extra entry in bucket %u, item count fixed", B->name, i);
			}
		}
		else
		{
			/* the victim's bucket gets room: the victim should have moved */
			uint32_t	vb = g32(B->buf + H_VBUCKET);

			ref_read_bucket(B->buf, &g, vb, fps);
			fps[0] = 0;
			c = with_bucket(B, vb, fps, true, true);
			VERDICT(c, 0, "%s: victim bucket %u has room", B->name, vb);
		}
	}
#undef VERDICT
	t_set_note("%zu cases: %" PRIu64 " rejected, %" PRIu64 " controls accepted", cases, v_rejected, v_accepted);
done:
	free(c);
	t_end("validate: bucket contents, padding, semisort codes and order");
}

/* Every header byte set to every value, on every small base. */
static void
test_validate_header_bytes(void)
{
	char		what[128];
	uint8_t    *c = NULL;

	t_begin();
	v_accepted = v_rejected = 0;
	REQUIRE(build_bases());
	for (int bi = 0; bi < nbases; bi++)
	{
		const base_t *B = &bases[bi];

		if (B->big)
			continue;
		c = variant(B, B->len);
		CHECK(c != NULL, "out of memory");
		for (unsigned off = 0; off < HDR; off++)
			for (unsigned v = 0; v < 256; v++)
			{
				if (v == B->buf[off])
					continue;
				c[off] = (uint8_t) v;
				snprintf(what, sizeof what, "%s: header byte %u = 0x%02x", B->name, off, v);
				REQUIRE(verdict(c, B->len, -1, what, off * 256 + v));
				c[off] = B->buf[off];
			}
		free(c);
		c = NULL;
	}
	t_set_note("%" PRIu64 " rejected, %" PRIu64 " accepted and exercised", v_rejected, v_accepted);
done:
	free(c);
	t_end("validate: every header byte value");
}

static const struct
{
	unsigned	off,
				width;
}			hfields[] = {
	{H_MAGIC, 4}, {H_VERSION, 1}, {H_BSIZE, 1}, {H_FPBITS, 1}, {H_FLAGS, 1}, {H_KIND, 2},
	{H_RESERVED, 2}, {H_TAG, 4}, {H_BUCKETS, 4}, {H_KICKS, 4}, {H_ITEMS, 8}, {H_CAPACITY, 8},
	{H_VBUCKET, 4}, {H_VFP, 4}
};

static void
mutate_random(uint8_t *buf, size_t len, uint64_t *s)
{
	switch (rnd(s, 4))
	{
		case 0:				/* one bit, header or anywhere */
			{
				size_t		pos = (size_t) (rnd(s, 2) ? rnd(s, HDR) : rnd(s, len));

				buf[pos] ^= (uint8_t) (1u << rnd(s, 8));
				break;
			}
		case 1:				/* several bits */
			{
				int			n = 2 + (int) rnd(s, 7);

				for (int i = 0; i < n; i++)
				{
					size_t		pos = (size_t) (rnd(s, 3) == 0 ? rnd(s, HDR) : rnd(s, len));

					buf[pos] ^= (uint8_t) (1u << rnd(s, 8));
				}
				break;
			}
		case 2:				/* a byte */
			{
				size_t		pos = (size_t) (rnd(s, 2) ? rnd(s, HDR) : rnd(s, len));

				buf[pos] = (uint8_t) sm64(s);
				break;
			}
		default:			/* a header field, often an edge value */
			{
				size_t		fi = (size_t) rnd(s, sizeof hfields / sizeof hfields[0]);
				unsigned	off = hfields[fi].off,
							w = hfields[fi].width;
				uint64_t	cur = gfield(buf, off, w),
							v;
				uint32_t	m = g32(buf + H_BUCKETS);

				switch (rnd(s, 8))
				{
					case 0:
						v = 0;
						break;
					case 1:
						v = cur + 1;
						break;
					case 2:
						v = cur - 1;
						break;
					case 3:
						v = cur ^ (UINT64_C(1) << rnd(s, 8 * w));
						break;
					case 4:
						v = UINT64_MAX;
						break;
					case 5:
						v = rnd(s, 300);
						break;
					case 6:
						v = rnd(s, (uint64_t) m * 9 + 2);
						break;
					default:
						v = sm64(s);
						break;
				}
				pfield(buf, off, w, v);
				break;
			}
	}
}

static void
test_validate_random(void)
{
	const uint64_t N = 240000;
	uint64_t	s = 0xF022;
	uint8_t    *c = NULL;
	int			nsmall = 0;
	char		what[160];

	t_begin();
	v_accepted = v_rejected = 0;
	REQUIRE(build_bases());
	for (int bi = 0; bi < nbases; bi++)
		nsmall += !bases[bi].big;
	for (uint64_t it = 0; it < N; it++)
	{
		const base_t *B;
		int			pick = (int) rnd(&s, (uint64_t) nsmall * 200 + 1);
		uint64_t	mseed = s;

		/* one mutation in 200*nsmall+1 goes to the big base */
		if (pick == nsmall * 200)
		{
			B = NULL;
			for (int bi = 0; bi < nbases; bi++)
				if (bases[bi].big)
					B = &bases[bi];
		}
		else
		{
			int			k = pick % nsmall;

			B = NULL;
			for (int bi = 0; bi < nbases && B == NULL; bi++)
				if (!bases[bi].big && k-- == 0)
					B = &bases[bi];
		}
		CHECK(B != NULL, "no base");
		c = variant(B, B->len);
		CHECK(c != NULL, "out of memory");
		mutate_random(c, B->len, &s);
		snprintf(what, sizeof what, "random mutation %" PRIu64 " (seed state %016" PRIx64 ") of %s",
				 it, mseed, B->name);
		REQUIRE(verdict(c, B->len, -1, what, it));
		free(c);
		c = NULL;
	}
	t_set_note("%" PRIu64 " mutations: %" PRIu64 " rejected, %" PRIu64 " accepted and exercised",
			   N, v_rejected, v_accepted);
done:
	free(c);
	t_end("validate: random bit flips and byte writes");
}

/*
 * Mutations that keep the buffer well-formed most of the time: entries
 * rewritten (duplicates, other buckets' fingerprints, zeros), the item count
 * recomputed, victims added or dropped.  These reach odd but valid states
 * that the operations must cope with.
 */
static void
mutate_struct(uint8_t *buf, uint64_t *s)
{
	geom		g = hgeom(buf);
	uint32_t	fps[8],
				other[8];
	int			nw = 1 + (int) rnd(s, 4);

	for (int w = 0; w < nw; w++)
	{
		uint32_t	i = (uint32_t) rnd(s, g.m),
					j = (uint32_t) rnd(s, g.b);

		ref_read_bucket(buf, &g, i, fps);
		switch (rnd(s, 8))
		{
			case 0:
			case 1:
				fps[j] = 0;
				break;
			case 2:
			case 3:
				fps[j] = (uint32_t) (1 + rnd(s, g.fmask));
				break;
			case 4:
				fps[j] = fps[(j + 1) % g.b];
				break;
			case 5:
				ref_read_bucket(buf, &g, (uint32_t) rnd(s, g.m), other);
				fps[j] = other[rnd(s, g.b)];
				break;
			case 6:
				fps[j] = (buf[H_FLAGS] & CF_FLAG_VICTIM) ? g32(buf + H_VFP) : (uint32_t) g.fmask;
				break;
			default:
				fps[j] ^= 1u << rnd(s, g.f);
				break;
		}
		ref_write_bucket(buf, &g, i, fps, g.ss ? rnd(s, 10) != 0 : true);
	}
	switch (rnd(s, 10))
	{
		case 0:					/* take the victim slot */
			buf[H_FLAGS] |= CF_FLAG_VICTIM;
			p32(buf + H_VBUCKET, (uint32_t) rnd(s, g.m));
			p32(buf + H_VFP, (uint32_t) (1 + rnd(s, g.fmask)));
			break;
		case 1:					/* drop it */
			buf[H_FLAGS] &= (uint8_t) ~CF_FLAG_VICTIM;
			p32(buf + H_VBUCKET, 0);
			p32(buf + H_VFP, 0);
			break;
		default:
			break;
	}
	if (rnd(s, 10) < 8)
		p64(buf + H_ITEMS, ref_count(buf));
	if (g64(buf + H_ITEMS) > 0 && g16(buf + H_KIND) == CF_KIND_ANY && rnd(s, 10) < 9)
		p16(buf + H_KIND, CF_KIND_INTEGER);
}

static void
test_validate_struct(void)
{
	const uint64_t N = 60000;
	uint64_t	s = 0x57A7;
	uint8_t    *c = NULL;
	int			small[MAXBASES],
				nsmall = 0;
	char		what[160];

	t_begin();
	v_accepted = v_rejected = 0;
	REQUIRE(build_bases());
	for (int bi = 0; bi < nbases; bi++)
		if (!bases[bi].big)
			small[nsmall++] = bi;
	for (uint64_t it = 0; it < N; it++)
	{
		const base_t *B = &bases[small[rnd(&s, (uint64_t) nsmall)]];
		uint64_t	mseed = s;

		c = variant(B, B->len);
		CHECK(c != NULL, "out of memory");
		mutate_struct(c, &s);
		snprintf(what, sizeof what, "structured mutation %" PRIu64 " (seed state %016" PRIx64 ") of %s",
				 it, mseed, B->name);
		REQUIRE(verdict(c, B->len, -1, what, it));
		free(c);
		c = NULL;
	}
	t_set_note("%" PRIu64 " mutations: %" PRIu64 " rejected, %" PRIu64 " accepted and exercised",
			   N, v_rejected, v_accepted);
done:
	free(c);
	t_end("validate: structured mutations (entries, counts, victims)");
}

/* ========================================================================
 * 9. Base64
 * ======================================================================== */

static const char b64alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Canonical iff some byte string encodes to exactly s. */
static bool
ref_b64_canonical(const char *s, size_t n)
{
	size_t		pad = 0,
				nb,
				k = 0;
	uint8_t    *bytes;
	char	   *enc;
	uint32_t	acc = 0;
	int			accbits = 0;
	bool		ok;

	if (n == 0 || n % 4 != 0)
		return false;
	while (pad < n && s[n - 1 - pad] == '=')
		pad++;
	if (pad > 2)
		return false;
	for (size_t i = 0; i < n - pad; i++)
		if (s[i] == '\0' || strchr(b64alpha, s[i]) == NULL)
			return false;
	nb = n / 4 * 3 - pad;
	bytes = malloc(nb + 1);
	enc = malloc(n + 1);
	for (size_t i = 0; i < n - pad; i++)
	{
		acc = (acc << 6) | (uint32_t) (strchr(b64alpha, s[i]) - b64alpha);
		accbits += 6;
		if (accbits >= 8)
		{
			accbits -= 8;
			if (k < nb)
				bytes[k++] = (uint8_t) (acc >> accbits);
			acc &= (1u << accbits) - 1;
		}
	}
	cf_b64_encode(bytes, nb, enc);
	ok = memcmp(enc, s, n) == 0;
	free(bytes);
	free(enc);
	return ok;
}

/* Decodes s[0..n) into an exact-size buffer; true iff cf_b64_decode accepts. */
static bool
try_decode(const char *s, size_t n, uint8_t **out, size_t *outlen)
{
	size_t		dl = 0;
	uint8_t    *d;
	char	   *cp = malloc(n ? n : 1);
	bool		ok;

	*out = NULL;
	memcpy(cp, s, n);
	if (!cf_b64_decoded_len(cp, n, &dl))
	{
		ok = cf_b64_decode(cp, n, (uint8_t[4]) {0});	/* n % 4 != 0: must refuse without writing */
		free(cp);
		return ok;
	}
	d = malloc(dl ? dl : 1);
	ok = cf_b64_decode(cp, n, d);
	free(cp);
	if (ok)
	{
		*out = d;
		*outlen = dl;
	}
	else
		free(d);
	return ok;
}

static void
test_base64(void)
{
	uint64_t	s = 0xB64;
	static const char *const vec[][2] = {
		{"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="},
		{"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}
	};
	static const char *const bad[] = {
		"Q", "QQ", "QQ=", "QUFBQ", "QUFBQUE", "QR==", "QUF=", "QUG=", "Zh==", "Zm9=",
		"QQ==QUFB", "QUE=QUFB", "=QUF", "Q=QQ", "QU=B", "====", "A===", "AB=C",
		"QUF B", "QUFB\n", "QUFB\nQUF", " QUF", "QUF\t", "QUFB    ", "QUFB\r\n\r\n",
		"QU-B", "QU_B", "QU.B", "Zm9v\0mFy", "QUFB===="
	};
	uint8_t    *src = NULL,
			   *out = NULL;
	char	   *enc = NULL;
	size_t		olen = 0,
				fuzz_ok = 0;

	t_begin();
	CHECK(cf_b64_encoded_len(0) == 0, "cf_b64_encoded_len(0) = %zu", cf_b64_encoded_len(0));
	CHECK(!cf_b64_decode("", 0, (uint8_t[4]) {0}), "cf_b64_decode accepts the empty string");
	for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
	{
		char		e[16] = "";
		size_t		n = strlen(vec[i][0]);

		cf_b64_encode((const uint8_t *) vec[i][0], n, e);
		CHECK(cf_b64_encoded_len(n) == strlen(vec[i][1]) && memcmp(e, vec[i][1], strlen(vec[i][1])) == 0,
			  "encoding of \"%s\" is \"%.*s\", want \"%s\"", vec[i][0], (int) cf_b64_encoded_len(n), e, vec[i][1]);
		CHECK(try_decode(vec[i][1], strlen(vec[i][1]), &out, &olen) && olen == n &&
			  memcmp(out, vec[i][0], n) == 0, "decoding \"%s\" failed", vec[i][1]);
		free(out);
		out = NULL;
	}
	/* round trips */
	for (size_t n = 1; n <= 300; n++)
		for (int rep = 0; rep < 4; rep++)
		{
			size_t		el = cf_b64_encoded_len(n);

			CHECK(el == (n + 2) / 3 * 4, "cf_b64_encoded_len(%zu) = %zu", n, el);
			src = malloc(n);
			enc = malloc(el);
			CHECK(src && enc, "out of memory");
			for (size_t i = 0; i < n; i++)
				src[i] = rep == 1 ? 0xFF : rep == 2 ? 0 : (uint8_t) sm64(&s);
			cf_b64_encode(src, n, enc);
			for (size_t i = 0; i < el; i++)
				CHECK(strchr(b64alpha, enc[i]) != NULL || (enc[i] == '=' && i + 2 >= el),
					  "encoding of %zu bytes has character 0x%02x at %zu", n, (unsigned char) enc[i], i);
			CHECK(try_decode(enc, el, &out, &olen), "decoding the encoding of %zu bytes failed", n);
			CHECK(olen == n && memcmp(out, src, n) == 0, "round trip of %zu bytes gave %zu different bytes", n, olen);
			free(out);
			out = NULL;
			/* one character replaced: canonical iff the reference says so */
			for (int k = 0; k < 6; k++)
			{
				size_t		pos = (size_t) rnd(&s, el);
				char		saved = enc[pos];
				static const char junk[] = "=-_ \n\t.\x80\xff";
				char		ch = rnd(&s, 3) ? b64alpha[rnd(&s, 64)] : junk[rnd(&s, sizeof junk - 1)];
				bool		got,
							want;

				enc[pos] = ch;
				want = ref_b64_canonical(enc, el);
				got = try_decode(enc, el, &out, &olen);
				CHECK(got == want, "\"%.*s\": cf_b64_decode %s, but it is %scanonical", (int) el, enc,
					  got ? "accepts" : "rejects", want ? "" : "not ");
				if (got)
				{
					char	   *re = malloc(el);
					size_t		dl2 = 0;
					bool		same;

					cf_b64_encode(out, olen, re);
					same = cf_b64_decoded_len(enc, el, &dl2) && dl2 == olen && memcmp(re, enc, el) == 0;
					free(re);
					fuzz_ok++;
					CHECK(same, "decoded \"%.*s\" does not re-encode to itself", (int) el, enc);
				}
				free(out);
				out = NULL;
				enc[pos] = saved;
			}
			free(src);
			free(enc);
			src = NULL;
			enc = NULL;
		}
	/* explicit rejects */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
	{
		size_t		n = strlen(bad[i]);

		if (i == sizeof bad / sizeof bad[0] - 2)
			n = 8;				/* "Zm9v\0mFy" with its NUL */
		CHECK(!try_decode(bad[i], n, &out, &olen), "cf_b64_decode accepted \"%s\"", bad[i]);
	}
	/* trailing bits of a 1- and 2-byte tail: only the canonical ones pass */
	for (int v = 0; v < 64; v++)
	{
		char		t1[5] = {'Q', b64alpha[v], '=', '=', 0};
		char		t2[5] = {'Q', 'U', b64alpha[v], '=', 0};
		bool		g1 = try_decode(t1, 4, &out, &olen);

		free(out);
		out = NULL;
		CHECK(g1 == ((v & 15) == 0), "\"%s\" %s", t1, g1 ? "accepted" : "rejected");
		g1 = try_decode(t2, 4, &out, &olen);
		free(out);
		out = NULL;
		CHECK(g1 == ((v & 3) == 0), "\"%s\" %s", t2, g1 ? "accepted" : "rejected");
	}
	t_set_note("%zu mutated strings were canonical and round-tripped", fuzz_ok);
done:
	free(src);
	free(enc);
	free(out);
	t_end("base64");
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
 * main
 * ======================================================================== */

int
main(void)
{
	double		t0 = now_sec();

	test_hash();
	test_params();
	test_sizing();
	test_base64();

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

	test_validate_bases();
	test_validate_lengths();
	test_validate_header();
	test_validate_contents();
	test_validate_header_bytes();
	test_validate_random();
	test_validate_struct();

	test_determinism(8, 4, 12, false, 0);
	test_determinism(64, 4, 12, true, 500);
	test_determinism(100, 2, 9, false, 500);
	test_determinism(40, 8, 17, false, 500);
	test_determinism(2048, 4, 16, false, 500);

	for (int i = 0; i < nbases; i++)
		free(bases[i].buf);
	fprintf(stderr, "# total %.1fs\n", now_sec() - t0);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
