/*
 * test_slice.c
 *     cf_slice.c (issue 21, the value path): a lookup over a buffer that
 *     holds only the header and the ranges cf_slice_ranges names, every
 *     other byte garbage, answers exactly as over the whole filter, for
 *     version 1 (plain and semi-sorted, b = 2, 4, 8) and version 2 (grown,
 *     rotated, with generations); and a damaged header is refused.
 */
#include "unit.h"
#include "cf_slice.h"

/*
 * Copies of buf (len bytes) that hold its header and, for each of n keys,
 * the ranges of the key: one with every other byte 0x00, one 0xFF, one
 * random; each then answers cf_contains and cf_count for every key as the
 * whole filter does.  present: the keys were added (never a false negative).
 */
static bool
check_sliced(const char *name, const cf_filter *whole, const uint64_t *keys, size_t n,
			 bool present, uint64_t seed)
{
	uint64_t	len = whole->len;
	uint64_t	hdr = cf_slice_header_bytes(whole->buf, len < CF_SLICE_PREFIX ? len : CF_SLICE_PREFIX, len);
	uint8_t    *sp = malloc(len);
	uint64_t	s = seed;
	bool		ok = false;

	if (!sp)
	{
		FAIL("%s: out of memory", name);
		return false;
	}
	if (hdr == 0 || hdr > len)
	{
		FAIL("%s: cf_slice_header_bytes gave %llu for a valid filter of %llu bytes",
			 name, (unsigned long long) hdr, (unsigned long long) len);
		goto done;
	}
	for (int fill = 0; fill < 3; fill++)
	{
		cf_filter	cf;
		char		err[256] = "";

		for (uint64_t i = 0; i < len; i++)
			sp[i] = fill == 0 ? 0x00 : fill == 1 ? 0xFF : (uint8_t) sm64(&s);
		memcpy(sp, whole->buf, hdr);
		if (!cf_check_header(sp, len, err, sizeof err))
		{
			FAIL("%s: the header alone does not check: %s", name, err);
			goto done;
		}
		cf_open(&cf, sp, len);
		for (size_t j = 0; j < n; j++)
		{
			cf_range	r[2];
			int			nr = cf_slice_ranges(&cf, keys[j], r);

			if (nr < 1 || nr > 2)
			{
				FAIL("%s: %d ranges", name, nr);
				goto done;
			}
			for (int k = 0; k < nr; k++)
			{
				if (r[k].off < hdr || r[k].len == 0 || r[k].off + r[k].len > len ||
					(k == 1 && r[1].off <= r[0].off + r[0].len))
				{
					FAIL("%s: range %d [%llu, +%llu) of a %llu-byte filter (header %llu)", name, k,
						 (unsigned long long) r[k].off, (unsigned long long) r[k].len,
						 (unsigned long long) len, (unsigned long long) hdr);
					goto done;
				}
				memcpy(sp + r[k].off, whole->buf + r[k].off, r[k].len);
			}
			/* the key's own ranges are loaded: its answers are the whole filter's */
			if (cf_contains(&cf, keys[j]) != cf_contains(whole, keys[j]) ||
				cf_count(&cf, keys[j]) != cf_count(whole, keys[j]))
			{
				FAIL("%s (fill %d): key %zu answers %d/%u sliced, %d/%u whole", name, fill, j,
					 cf_contains(&cf, keys[j]), cf_count(&cf, keys[j]),
					 cf_contains(whole, keys[j]), cf_count(whole, keys[j]));
				goto done;
			}
			{
				bool		many = !cf_contains(whole, keys[j]);

				cf_contains_many(&cf, &keys[j], 1, &many);
				if (many != cf_contains(whole, keys[j]))
				{
					FAIL("%s (fill %d): key %zu: cf_contains_many answers %d sliced", name, fill, j, many);
					goto done;
				}
			}
			if (present && !cf_contains(&cf, keys[j]))
			{
				FAIL("%s: false negative for key %zu", name, j);
				goto done;
			}
			/* garbage again where this key was read, so the next key sees only its own */
			for (int k = 0; k < nr; k++)
				for (uint64_t i = r[k].off; i < r[k].off + r[k].len; i++)
					sp[i] = fill == 0 ? 0x00 : fill == 1 ? 0xFF : (uint8_t) sm64(&s);
		}
	}
	ok = true;
done:
	free(sp);
	return ok;
}

/* n keys from seed; the first half added to the filter by the caller */
static uint64_t *
keys_from(uint64_t seed, size_t n)
{
	uint64_t   *k = malloc(n * sizeof *k);
	uint64_t	s = seed;

	for (size_t i = 0; k && i < n; i++)
		k[i] = sm64(&s);
	return k;
}

static void
test_v1(uint32_t m, uint32_t b, uint32_t f, bool ss)
{
	filt		F = {0};
	size_t		n = (size_t) m * b * 8 / 10;
	uint64_t   *k = keys_from(m * 31 + b * 7 + f + ss, 2 * n);
	char		name[128];

	snprintf(name, sizeof name, "slice: version 1, m %u, b %u, f %u%s", m, b, f, ss ? ", semi-sorted" : "");
	t_begin();
	CHECK(k != NULL, "out of memory");
	REQUIRE(fnew(&F, m, b, f, ss, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, (uint64_t) m * b));
	for (size_t i = 0; i < n; i++)
		CHECK(cf_insert(&F.cf, k[i]) <= CF_OK_STASHED, "insert %zu failed", i);
	REQUIRE(check_sliced(name, &F.cf, k, n, true, 1));
	REQUIRE(check_sliced(name, &F.cf, k + n, n, false, 2));
done:
	ffree(&F);
	free(k);
	t_end(name);
}

/* A growing filter grown about 20x, then rotated with keep (0: not rotated). */
static void
test_v2(uint64_t cap, uint32_t keep)
{
	cf_params	p;
	char		err[256] = "";
	cf_filter	cf = {0};
	uint8_t    *buf = NULL,
			   *rot = NULL;
	size_t		n = (size_t) cap * 20;
	uint64_t   *k = keys_from(cap + keep, 2 * n);
	char		name[128];

	snprintf(name, sizeof name, "slice: version 2, capacity %llu grown 20x%s",
			 (unsigned long long) cap, keep ? ", rotated" : "");
	t_begin();
	CHECK(k != NULL, "out of memory");
	CHECK(cf_params_growing(cap, 0.01, CF_DEFAULT_KICKS, &p, err, sizeof err), "%s", err);
	p.kind = CF_KIND_INTEGER;
	buf = malloc((size_t) cf_init_bytes(&p));
	CHECK(buf != NULL, "out of memory");
	cf_init(buf, &p);
	cf_open(&cf, buf, (size_t) cf_init_bytes(&p));
	for (size_t i = 0; i < n; i++)
		CHECK(cf_insert(&cf, k[i]) <= CF_OK_STASHED, "insert %zu failed", i);
	buf = cf.buf;				/* it grew by realloc */
	CHECK(cf_version(&cf) == CF_VERSION_2, "not version 2");
	if (keep)
	{
		size_t		len = cf_rotate_bytes(&cf, keep);

		CHECK(len > 0, "cannot rotate");
		rot = malloc(len);
		CHECK(rot != NULL, "out of memory");
		cf_rotate(&cf, keep, rot);
		cf_open(&cf, rot, len);
		/* the new generation's keys: added after the rotation */
		for (size_t i = 0; i < n / 4; i++)
			CHECK(cf_insert(&cf, k[i]) <= CF_OK_STASHED, "insert after rotation %zu failed", i);
		rot = cf.buf;
	}
	REQUIRE(check_sliced(name, &cf, k, n, true, 3));
	REQUIRE(check_sliced(name, &cf, k + n, n, false, 4));
done:
	free(rot);
	free(buf);
	free(k);
	t_end(name);
}

/* A damaged header is refused before any bucket is read. */
static void
test_damaged(void)
{
	filt		F = {0};
	uint8_t		hdr[CF_SLICE_PREFIX + 8];
	char		err[256];

	t_begin();
	REQUIRE(fnew(&F, 1024, 4, 12, false, CF_DEFAULT_KICKS, CF_KIND_INTEGER, 0, 1000));
	memcpy(hdr, F.buf, CF_HEADER_SIZE);
	CHECK(cf_slice_header_bytes(hdr, CF_HEADER_SIZE, F.len) == CF_HEADER_SIZE, "version-1 header bytes");
	CHECK(cf_slice_header_bytes(hdr, CF_HEADER_SIZE, CF_HEADER_SIZE - 1) == 0, "header longer than the value");
	hdr[0] ^= 1;
	CHECK(cf_slice_header_bytes(hdr, CF_HEADER_SIZE, F.len) == 0, "bad magic accepted");
	hdr[0] ^= 1;
	hdr[CF_OFF_VERSION] = 3;
	CHECK(cf_slice_header_bytes(hdr, CF_HEADER_SIZE, F.len) == 0, "unknown version accepted");
	/* a bucket count that does not match the length: the header check refuses it */
	F.buf[CF_OFF_NUM_BUCKETS] ^= 2;
	CHECK(!cf_check_header(F.buf, F.len, err, sizeof err), "a header with the wrong bucket count checks");
	F.buf[CF_OFF_NUM_BUCKETS] ^= 2;
	CHECK(cf_check_header(F.buf, F.len, err, sizeof err), "restored header: %s", err);
	CHECK(!cf_check_header(F.buf, F.len - 8, err, sizeof err), "a header checks against a shorter length");
done:
	ffree(&F);
	t_end("slice: damaged headers and lengths are refused");
}

void
run_slice_tests(void)
{
	test_v1(1024, 4, 12, false);
	test_v1(1000, 4, 13, true);
	test_v1(3 << 9, 2, 7, false);
	test_v1(640, 8, 16, false);
	test_v1(1 << 12, 4, 32, false);
	test_v1(200, 4, 4, false);
	test_v2(1000, 0);
	test_v2(3000, 0);
	test_v2(1000, 3);
	test_damaged();
}
