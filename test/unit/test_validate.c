/*
 * test_validate.c
 *     Unit tests of the core: validation of untrusted bytes against the reference validator
 *     of test/common/cf_ref.h.
 */
#include "unit.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
	ref_put_field(c, off, width, v);
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
	uint8_t		hdr[CF_HEADER_SIZE];
	size_t		nlen;
	uint8_t    *c;
	bool		ok;
	ref_geom		g;

	memcpy(hdr, B->buf, CF_HEADER_SIZE);
	ref_put_field(hdr, off, width, v);
	g = ref_geom_of(hdr);
	if ((uint64_t) g.m * g.bb > (UINT64_C(64) << 23))
		return true;			/* more than 64 MB: the unresized case covers it */
	nlen = CF_HEADER_SIZE + (size_t) (((uint64_t) g.m * g.bb + 63) / 64 * 8 + 8);
	if (nlen == B->len)
		return true;
	c = variant(B, nlen);
	if (!c)
	{
		FAIL("out of memory");
		return false;
	}
	memcpy(c, hdr, CF_HEADER_SIZE);
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
		uint32_t	b = h[CF_OFF_BUCKET_SIZE],
					f = h[CF_OFF_FP_BITS],
					m = ref_get32(h + CF_OFF_NUM_BUCKETS),
					vb = ref_get32(h + CF_OFF_VICTIM_BUCKET);
		uint16_t	kind = ref_get16(h + CF_OFF_KIND);
		uint64_t	items = ref_get64(h + CF_OFF_ITEMS);
		bool		victim = (h[CF_OFF_FLAGS] & CF_FLAG_VICTIM) != 0;
		bool		ss = (h[CF_OFF_FLAGS] & CF_FLAG_SEMISORT) != 0;
		uint64_t	mb = (uint64_t) m * b;
		static const uint64_t bad_b[] = {0, 1, 3, 5, 6, 7, 9, 16, 32, 255};
		static const uint64_t bad_f[] = {0, 1, 2, 3, 33, 34, 64, 128, 255};

		/* magic */
		for (unsigned i = 0; i < 4; i++)
		{
			REQUIRE(field_case(B, i, 1, h[i] ^ 0xFFu, 0, "magic byte"));
			REQUIRE(field_case(B, i, 1, h[i] ^ 0x01u, 0, "magic byte"));
		}
		REQUIRE(field_case(B, CF_OFF_MAGIC, 4, 0, 0, "magic"));
		REQUIRE(field_case(B, CF_OFF_MAGIC, 4, 0x4F4B4F43u, 0, "magic (byte-swapped)"));
		/* every unsupported version */
		for (unsigned v = 0; v < 256; v++)
			if (v != CF_VERSION)
				REQUIRE(field_case(B, CF_OFF_VERSION, 1, v, 0, "version"));
		/* unknown flags */
		for (unsigned bit = 2; bit < 8; bit++)
			REQUIRE(field_case(B, CF_OFF_FLAGS, 1, h[CF_OFF_FLAGS] | (1u << bit), 0, "flags"));
		/* bucket size and fingerprint size */
		for (size_t i = 0; i < sizeof bad_b / sizeof bad_b[0]; i++)
		{
			REQUIRE(field_case(B, CF_OFF_BUCKET_SIZE, 1, bad_b[i], 0, "bucket size"));
			REQUIRE(field_case_resized(B, CF_OFF_BUCKET_SIZE, 1, bad_b[i], 0, "bucket size"));
		}
		for (size_t i = 0; i < sizeof bad_f / sizeof bad_f[0]; i++)
		{
			REQUIRE(field_case(B, CF_OFF_FP_BITS, 1, bad_f[i], 0, "fingerprint bits"));
			REQUIRE(field_case_resized(B, CF_OFF_FP_BITS, 1, bad_f[i], 0, "fingerprint bits"));
		}
		/* semisort needs b = 4 */
		if (!ss && b != 4)
		{
			REQUIRE(field_case(B, CF_OFF_FLAGS, 1, h[CF_OFF_FLAGS] | CF_FLAG_SEMISORT, 0, "flags (semisort, b != 4)"));
			REQUIRE(field_case_resized(B, CF_OFF_FLAGS, 1, h[CF_OFF_FLAGS] | CF_FLAG_SEMISORT, 0,
									   "flags (semisort, b != 4)"));
		}
		if (ss)
		{
			REQUIRE(field_case(B, CF_OFF_BUCKET_SIZE, 1, 2, 0, "semisort bucket size"));
			REQUIRE(field_case(B, CF_OFF_BUCKET_SIZE, 1, 8, 0, "semisort bucket size"));
			REQUIRE(field_case_resized(B, CF_OFF_BUCKET_SIZE, 1, 8, 0, "semisort bucket size"));
		}
		/* reserved */
		REQUIRE(field_case(B, CF_OFF_RESERVED, 2, 1, 0, "reserved"));
		REQUIRE(field_case(B, CF_OFF_RESERVED, 2, 0x100, 0, "reserved"));
		REQUIRE(field_case(B, CF_OFF_RESERVED, 2, 0xFFFF, 0, "reserved"));
		/* kind and type tag */
		REQUIRE(field_case(B, CF_OFF_KIND, 2, CF_KIND_MAX + 1, 0, "kind"));
		REQUIRE(field_case(B, CF_OFF_KIND, 2, 0x100 | kind, 0, "kind"));
		REQUIRE(field_case(B, CF_OFF_KIND, 2, 0xFFFF, 0, "kind"));
		if (kind != CF_KIND_OTHER)
		{
			REQUIRE(field_case(B, CF_OFF_KIND, 2, CF_KIND_OTHER, 0, "kind OTHER with tag 0"));
			REQUIRE(field_case(B, CF_OFF_TYPE_TAG, 4, 1, 0, "type tag with a non-OTHER kind"));
			REQUIRE(field_case(B, CF_OFF_TYPE_TAG, 4, 0xFFFFFFFF, 0, "type tag with a non-OTHER kind"));
		}
		else
		{
			REQUIRE(field_case(B, CF_OFF_TYPE_TAG, 4, 0, 0, "type tag 0 with kind OTHER"));
			REQUIRE(field_case(B, CF_OFF_TYPE_TAG, 4, 4242, 1, "another type tag with kind OTHER"));
			REQUIRE(field_case(B, CF_OFF_KIND, 2, CF_KIND_INTEGER, 0, "kind INTEGER with a tag"));
		}
		if (items > 0)
		{
			REQUIRE(field_case(B, CF_OFF_KIND, 2, CF_KIND_ANY, 0, "kind ANY with items"));
			if (kind != CF_KIND_OTHER)
				REQUIRE(field_case(B, CF_OFF_KIND, 2, kind == CF_KIND_TEXT ? CF_KIND_BYTEA : CF_KIND_TEXT, 1,
								   "another kind"));
		}
		else if (kind == CF_KIND_ANY)
			REQUIRE(field_case(B, CF_OFF_KIND, 2, CF_KIND_NUMERIC, 1, "a kind on an empty filter"));
		/* bucket count */
		REQUIRE(field_case(B, CF_OFF_NUM_BUCKETS, 4, 0, 0, "bucket count"));
		REQUIRE(field_case(B, CF_OFF_NUM_BUCKETS, 4, 257, 0, "bucket count"));
		REQUIRE(field_case(B, CF_OFF_NUM_BUCKETS, 4, m + 1, -1, "bucket count"));
		REQUIRE(field_case(B, CF_OFF_NUM_BUCKETS, 4, 0xFFFFFFFF, 0, "bucket count"));
		REQUIRE(field_case(B, CF_OFF_NUM_BUCKETS, 4, 0xFF000000, 0, "bucket count (huge)"));
		REQUIRE(field_case(B, CF_OFF_NUM_BUCKETS, 4, 0x80000000, 0, "bucket count (huge)"));
		REQUIRE(field_case(B, CF_OFF_NUM_BUCKETS, 4, 0x01FF0000, 0, "bucket count (not representable)"));
		/* max kicks */
		REQUIRE(field_case(B, CF_OFF_MAX_KICKS, 4, CF_MAX_KICKS_LIMIT + 1, 0, "max kicks"));
		REQUIRE(field_case(B, CF_OFF_MAX_KICKS, 4, 0xFFFFFFFF, 0, "max kicks"));
		REQUIRE(field_case(B, CF_OFF_MAX_KICKS, 4, CF_MAX_KICKS_LIMIT, 1, "max kicks"));
		REQUIRE(field_case(B, CF_OFF_MAX_KICKS, 4, 0, 1, "max kicks"));
		/* capacity */
		REQUIRE(field_case(B, CF_OFF_CAPACITY, 8, 0, 0, "capacity"));
		REQUIRE(field_case(B, CF_OFF_CAPACITY, 8, mb + 1, 0, "capacity"));
		REQUIRE(field_case(B, CF_OFF_CAPACITY, 8, UINT64_MAX, 0, "capacity"));
		REQUIRE(field_case(B, CF_OFF_CAPACITY, 8, mb, 1, "capacity"));
		REQUIRE(field_case(B, CF_OFF_CAPACITY, 8, 1, 1, "capacity"));
		/* item count */
		REQUIRE(field_case(B, CF_OFF_ITEMS, 8, items + 1, 0, "item count + 1"));
		REQUIRE(field_case(B, CF_OFF_ITEMS, 8, items - 1, 0, "item count - 1"));
		REQUIRE(field_case(B, CF_OFF_ITEMS, 8, mb + 2, 0, "item count"));
		REQUIRE(field_case(B, CF_OFF_ITEMS, 8, UINT64_MAX, 0, "item count"));
		/* victim */
		if (!victim)
		{
			REQUIRE(field_case(B, CF_OFF_FLAGS, 1, h[CF_OFF_FLAGS] | CF_FLAG_VICTIM, 0, "victim flag without fields"));
			REQUIRE(field_case(B, CF_OFF_VICTIM_BUCKET, 4, 1, 0, "victim bucket without flag"));
			REQUIRE(field_case(B, CF_OFF_VICTIM_FP, 4, 1, 0, "victim fingerprint without flag"));
		}
		else
		{
			uint64_t	fmax = (UINT64_C(1) << f) - 1;

			REQUIRE(field_case(B, CF_OFF_FLAGS, 1, h[CF_OFF_FLAGS] & ~CF_FLAG_VICTIM, 0, "victim fields without flag"));
			REQUIRE(field_case(B, CF_OFF_VICTIM_BUCKET, 4, m, 0, "victim bucket"));
			REQUIRE(field_case(B, CF_OFF_VICTIM_BUCKET, 4, m + 1, 0, "victim bucket"));
			REQUIRE(field_case(B, CF_OFF_VICTIM_BUCKET, 4, 0xFFFFFFFF, 0, "victim bucket"));
			REQUIRE(field_case(B, CF_OFF_VICTIM_FP, 4, 0, 0, "victim fingerprint"));
			if (f < 32)
			{
				REQUIRE(field_case(B, CF_OFF_VICTIM_FP, 4, fmax + 1, 0, "victim fingerprint"));
				REQUIRE(field_case(B, CF_OFF_VICTIM_FP, 4, 0xFFFFFFFF, 0, "victim fingerprint"));
			}
			/* the other bucket of the pair and any fingerprint: fine when all is full */
			REQUIRE(field_case(B, CF_OFF_VICTIM_FP, 4, fmax, items == mb + 1 ? 1 : -1, "victim fingerprint"));
			REQUIRE(field_case(B, CF_OFF_VICTIM_BUCKET, 4, (vb + 1) % m, items == mb + 1 ? 1 : -1, "victim bucket"));
		}
	}

	/* bucket counts checked in isolation: zero-filled buffers of the right length */
	{
		static const uint64_t ms[] = {257, 259, 511, 1023, 0x1FF00, 256, 255, 510, 1, 4096};
		const base_t *B = &bases[8];	/* empty, kind ANY, b=4 f=12 */

		CHECK(B->buf[CF_OFF_BUCKET_SIZE] == 4 && B->buf[CF_OFF_FP_BITS] == 12 && ref_get64(B->buf + CF_OFF_ITEMS) == 0 &&
			  !(B->buf[CF_OFF_FLAGS] & CF_FLAG_SEMISORT), "test setup: base 8 is not the empty b=4 f=12 one");
		for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		{
			size_t		len = cf_total_bytes(ms[i], 4, 12, false);
			uint8_t    *c = calloc(len, 1);
			char		what[96];

			CHECK(c != NULL, "out of memory");
			memcpy(c, B->buf, CF_HEADER_SIZE);
			ref_put32(c + CF_OFF_NUM_BUCKETS, (uint32_t) ms[i]);
			ref_put64(c + CF_OFF_CAPACITY, 1);
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
		c[CF_OFF_VERSION] = 99;
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
	ref_geom		g;

	if (!c)
		return NULL;
	g = ref_geom_of(c);
	ref_write_bucket(c, &g, i, fps, full_sort);
	if (fix_count)
	{
		ref_put64(c + CF_OFF_ITEMS, ref_count(c));
		if (ref_count(c) > 0 && ref_get16(c + CF_OFF_KIND) == CF_KIND_ANY)
			ref_put16(c + CF_OFF_KIND, CF_KIND_INTEGER);
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
		ref_geom		g = ref_geom_of(B->buf);
		bool		victim = (B->buf[CF_OFF_FLAGS] & CF_FLAG_VICTIM) != 0;
		uint64_t	used = (uint64_t) g.m * g.bb;
		uint64_t	total_bits = (uint64_t) (B->len - CF_HEADER_SIZE) * 8;
		uint32_t	fps[8];

		if (B->big)
			continue;
		/* every padding bit */
		for (uint64_t p = used; p < total_bits; p++)
		{
			c = variant(B, B->len);
			if (c)
				c[CF_HEADER_SIZE + (p >> 3)] |= (uint8_t) (1u << (p & 7));
			VERDICT(c, 0, "%s: padding bit %" PRIu64 " set", B->name, p);
		}
		if (g.ss)
		{
			/* impossible semi-sort codes, first and last bucket */
			for (uint32_t code = CF_SS_CODES; code < 4096; code++)
				for (int w = 0; w < 2; w++)
				{
					uint32_t	bi2 = w ? g.m - 1 : 0;

					c = variant(B, B->len);
					if (c)
						ref_set_bits(c + CF_HEADER_SIZE, (uint64_t) bi2 * g.bb, 12, code);
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
			uint32_t	vb = ref_get32(B->buf + CF_OFF_VICTIM_BUCKET);

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

/*
 * Every header byte set to every value, on every small base.  UNIT_LIGHT:
 * a fourth of the values of each byte (v = off mod 4, so that each residue
 * is tried at every fourth byte) and the edges 0, 1, 0x7f, 0x80, 0xfe, 0xff
 * (the plain run has them all).
 */
static bool
header_value_light(unsigned off, unsigned v)
{
	return v % 4 == off % 4 || v <= 1 || v == 0x7f || v == 0x80 || v >= 0xfe;
}

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
		for (unsigned off = 0; off < CF_HEADER_SIZE; off++)
			for (unsigned v = 0; v < 256; v++)
			{
				if (v == B->buf[off] || (unit_light && !header_value_light(off, v)))
					continue;
				c[off] = (uint8_t) v;
				snprintf(what, sizeof what, "%s: header byte %u = 0x%02x", B->name, off, v);
				REQUIRE(verdict(c, B->len, -1, what, off * 256 + v));
				c[off] = B->buf[off];
			}
		free(c);
		c = NULL;
	}
	t_set_note("%" PRIu64 " rejected, %" PRIu64 " accepted and exercised%s", v_rejected, v_accepted,
			   unit_light ? " (UNIT_LIGHT: a fourth of the values and the edges)" : "");
done:
	free(c);
	t_end("validate: every header byte value");
}

static const struct
{
	unsigned	off,
				width;
}			hfields[] = {
	{CF_OFF_MAGIC, 4}, {CF_OFF_VERSION, 1}, {CF_OFF_BUCKET_SIZE, 1}, {CF_OFF_FP_BITS, 1}, {CF_OFF_FLAGS, 1}, {CF_OFF_KIND, 2},
	{CF_OFF_RESERVED, 2}, {CF_OFF_TYPE_TAG, 4}, {CF_OFF_NUM_BUCKETS, 4}, {CF_OFF_MAX_KICKS, 4}, {CF_OFF_ITEMS, 8}, {CF_OFF_CAPACITY, 8},
	{CF_OFF_VICTIM_BUCKET, 4}, {CF_OFF_VICTIM_FP, 4}
};

static void
mutate_random(uint8_t *buf, size_t len, uint64_t *s)
{
	switch (rnd(s, 4))
	{
		case 0:				/* one bit, header or anywhere */
			{
				size_t		pos = (size_t) (rnd(s, 2) ? rnd(s, CF_HEADER_SIZE) : rnd(s, len));

				buf[pos] ^= (uint8_t) (1u << rnd(s, 8));
				break;
			}
		case 1:				/* several bits */
			{
				int			n = 2 + (int) rnd(s, 7);

				for (int i = 0; i < n; i++)
				{
					size_t		pos = (size_t) (rnd(s, 3) == 0 ? rnd(s, CF_HEADER_SIZE) : rnd(s, len));

					buf[pos] ^= (uint8_t) (1u << rnd(s, 8));
				}
				break;
			}
		case 2:				/* a byte */
			{
				size_t		pos = (size_t) (rnd(s, 2) ? rnd(s, CF_HEADER_SIZE) : rnd(s, len));

				buf[pos] = (uint8_t) sm64(s);
				break;
			}
		default:			/* a header field, often an edge value */
			{
				size_t		fi = (size_t) rnd(s, sizeof hfields / sizeof hfields[0]);
				unsigned	off = hfields[fi].off,
							w = hfields[fi].width;
				uint64_t	cur = ref_get_field(buf, off, w),
							v;
				uint32_t	m = ref_get32(buf + CF_OFF_NUM_BUCKETS);

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
				ref_put_field(buf, off, w, v);
				break;
			}
	}
}

static void
test_validate_random(void)
{
	const uint64_t N = UNIT_LIGHT_DIV(240000);
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
	ref_geom		g = ref_geom_of(buf);
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
				fps[j] = (buf[CF_OFF_FLAGS] & CF_FLAG_VICTIM) ? ref_get32(buf + CF_OFF_VICTIM_FP) : (uint32_t) g.fmask;
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
			buf[CF_OFF_FLAGS] |= CF_FLAG_VICTIM;
			ref_put32(buf + CF_OFF_VICTIM_BUCKET, (uint32_t) rnd(s, g.m));
			ref_put32(buf + CF_OFF_VICTIM_FP, (uint32_t) (1 + rnd(s, g.fmask)));
			break;
		case 1:					/* drop it */
			buf[CF_OFF_FLAGS] &= (uint8_t) ~CF_FLAG_VICTIM;
			ref_put32(buf + CF_OFF_VICTIM_BUCKET, 0);
			ref_put32(buf + CF_OFF_VICTIM_FP, 0);
			break;
		default:
			break;
	}
	if (rnd(s, 10) < 8)
		ref_put64(buf + CF_OFF_ITEMS, ref_count(buf));
	if (ref_get64(buf + CF_OFF_ITEMS) > 0 && ref_get16(buf + CF_OFF_KIND) == CF_KIND_ANY && rnd(s, 10) < 9)
		ref_put16(buf + CF_OFF_KIND, CF_KIND_INTEGER);
}

static void
test_validate_struct(void)
{
	const uint64_t N = UNIT_LIGHT_DIV(60000);
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

/*
 * This build has the core's debug checks on (-DCF_DEBUG): a union into a
 * filter whose item count disagrees with its table must abort (the full
 * validation after cf_union_into), here in a child process.
 */
static void
test_debug_checks(void)
{
	filt		A = {0},
				B = {0};
	pid_t		pid;
	int			status = 0;

	t_begin();
	REQUIRE(fnew(&A, 64, 4, 12, false, 500, CF_KIND_INTEGER, 0, 100));
	REQUIRE(fnew(&B, 64, 4, 12, false, 500, CF_KIND_INTEGER, 0, 100));
	CHECK(cf_insert(&A.cf, 1) == CF_OK && cf_insert(&B.cf, 2) == CF_OK, "inserts failed");
	ref_put64(A.buf + CF_OFF_ITEMS, 7);	/* the table holds 1 */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
	{
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(2);
		(void) cf_union_into(&A.cf, &B.cf);
		_exit(0);
	}
	CHECK(pid > 0, "fork failed");
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid failed");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		  "cf_union_into into a filter with a wrong item count did not abort (wait status %d)",
		  status);
done:
	ffree(&A);
	ffree(&B);
	t_end("debug checks (CF_DEBUG): cf_union_into aborts on a broken invariant");
}

/* All of this file's test cases, in order. */
void
run_validate_tests(void)
{
	test_validate_bases();
	test_validate_lengths();
	test_validate_header();
	test_validate_contents();
	test_validate_header_bytes();
	test_validate_random();
	test_validate_struct();
	test_debug_checks();

	for (int i = 0; i < nbases; i++)
		free(bases[i].buf);
}
