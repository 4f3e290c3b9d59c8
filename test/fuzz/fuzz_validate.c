/*
 * fuzz_validate.c
 *     libFuzzer harness (a): untrusted bytes into the validator, then every
 *     operation on whatever it accepts.
 *
 * For each input:
 *   1. cf_check_header and cf_validate on an exact-size copy; cf_validate must
 *      agree with an independent reference validator written from
 *      docs/FORMAT.md (fuzz_common.h), and must imply cf_check_header.
 *   2. The input as base64 text (exact-size buffer, no NUL): cf_b64_decoded_len
 *      / cf_b64_decode must stay inside the n bytes and the output buffer, and
 *      whatever the strict decoder accepts must re-encode to the same text.
 *      Decoded bytes that validate are exercised as in 3.
 *      Any input also round-trips through cf_b64_encode / cf_b64_decode.
 *   3. For an accepted filter: validate a copy again (same verdict); read-only
 *      calls leave the bytes identical; base64 round-trip is exact; every
 *      stored entry is found (cf_contains, and cf_count equals the copies in
 *      the pair plus the victim, read by the reference decoder); then on a
 *      mutable exact-size copy: remove of stored entries (must succeed),
 *      insert / insert_if_absent / remove of hashes derived from the input
 *      with status checks, union with a copy of itself (identity), union with
 *      the original, shrink (cf_shrink_target + cf_rehash_into); cf_validate
 *      must accept every result.
 */
#include "fuzz_common.h"

#include <math.h>

#define ERRLEN 256

static void
check_valid(const uint8_t *buf, size_t len, const char *what)
{
	char		err[ERRLEN];
	const char *why = "";

	FZ_CHECK(cf_validate(buf, len, err, sizeof err),
			 "%s: cf_validate rejects: %s", what, err);
	FZ_CHECK(ref_any_valid(buf, len, &why),
			 "%s: reference validator rejects (%s)", what, why);
}

/* Base64 round trip of n bytes through exact-size buffers. */
static void
b64_roundtrip(const uint8_t *src, size_t n)
{
	size_t		elen = cf_b64_encoded_len(n);
	char	   *enc;
	uint8_t    *dec;
	size_t		dlen = 0;

	if (n == 0)
		return;
	FZ_CHECK(elen == (n + 2) / 3 * 4, "encoded_len(%zu) = %zu", n, elen);
	enc = malloc(elen);
	FZ_CHECK(enc != NULL, "oom");
	cf_b64_encode(src, n, enc);
	FZ_CHECK(cf_b64_decoded_len(enc, elen, &dlen), "decoded_len rejects encoder output");
	FZ_CHECK(dlen == n, "decoded_len %zu != %zu", dlen, n);
	dec = malloc(dlen);
	FZ_CHECK(dec != NULL, "oom");
	FZ_CHECK(cf_b64_decode(enc, elen, dec), "decode rejects encoder output");
	FZ_CHECK(memcmp(dec, src, n) == 0, "base64 round trip changed the bytes");
	free(dec);
	free(enc);
}

/* A mutable exact-size copy with its view. */
typedef struct fbuf
{
	uint8_t    *p;
	size_t		len;
	cf_filter	cf;
} fbuf;

static void
fb_copy(fbuf *d, const uint8_t *src, size_t len)
{
	d->p = fz_dup(src, len);
	d->len = len;
	cf_open(&d->cf, d->p, len);
}

static void
fb_free(fbuf *d)
{
	free(d->p);
	d->p = NULL;
}

#define MAX_ENTRIES 8
#define N_EXTRA 6

static void exercise_v2(const uint8_t *orig, size_t len, uint64_t seed);

static void
exercise(const uint8_t *orig, size_t len, uint64_t seed)
{
	if (len > 4 && orig[4] == CF_VERSION_2)
	{
		exercise_v2(orig, len, seed);
		return;
	}

	char		err[ERRLEN];
	ref_geom		g;
	fbuf		ro,
				mu,
				other;
	cf_params	prm;
	uint64_t	ent_h[MAX_ENTRIES + 1];
	int			n_ent = 0;
	uint32_t	victim_h_idx = UINT32_MAX;

	g = ref_geom_of(orig);

	/* ---- read-only: a copy validates the same and stays byte-identical ---- */
	fb_copy(&ro, orig, len);
	FZ_CHECK(cf_check_header(ro.p, len, err, sizeof err), "check_header on copy: %s", err);
	FZ_CHECK(cf_validate(ro.p, len, err, sizeof err), "validate on copy: %s", err);
	FZ_CHECK(!cf_check_header(ro.p, len - 1, NULL, 0), "check_header accepts len-1");
	cf_get_params(&ro.cf, &prm);
	FZ_CHECK(cf_check_params(&prm, err, sizeof err), "params of a valid filter rejected: %s", err);
	FZ_CHECK(cf_total_bytes(prm.num_buckets, prm.bucket_size, prm.fp_bits, prm.semisort) == len,
			 "cf_total_bytes disagrees with length");
	FZ_CHECK(prm.num_buckets == g.m && prm.bucket_size == g.b && prm.fp_bits == g.f &&
			 prm.semisort == g.ss, "cf_get_params disagrees with the header");
	FZ_CHECK(ro.cf.c == g.c && ro.cf.k == g.k, "c/k: core %u/%u, spec %u/%u",
			 ro.cf.c, ro.cf.k, g.c, g.k);
	(void) cf_capacity(&ro.cf);
	(void) cf_kind_name(cf_kind_of(&ro.cf));
	(void) cf_shrink_target(&ro.cf);

	/*
	 * Find stored entries: a spread of up to MAX_ENTRIES non-empty entries,
	 * plus the victim.  For each, a hash that lands on (bucket, fp) is found
	 * by search; it must be reported present, and cf_count must equal the
	 * copies of fp in the pair plus the victim.
	 */
	{
		uint32_t	start = (uint32_t) (seed % g.m);

		for (uint32_t s = 0; s < g.m && n_ent < MAX_ENTRIES; s++)
		{
			uint32_t	i = (start + s * 7919u) % g.m;	/* not a permutation for
														 * every m; fine */
			uint32_t	fps[8];

			ref_read_bucket(ro.p, &g, i, fps);
			for (uint32_t j = 0; j < g.b && n_ent < MAX_ENTRIES; j++)
			{
				uint64_t	h;
				uint32_t	fp,
							i1;

				if (fps[j] == 0)
					continue;
				FZ_CHECK(fps[j] <= ro.cf.fp_range, "decoded fingerprint out of range");
				FZ_CHECK(cf_alt_bucket(&ro.cf, i, fps[j]) < g.m, "alternate bucket out of range");
				FZ_CHECK(cf_alt_bucket(&ro.cf, cf_alt_bucket(&ro.cf, i, fps[j]), fps[j]) == i,
						 "alt is not an involution (bucket %u, fp %u)", i, fps[j]);
				if (!fz_find_hash(&ro.cf, i, fps[j], &h))
					continue;
				cf_locate(&ro.cf, h, &fp, &i1);
				FZ_CHECK(fp == fps[j] && i1 == i, "fz_find_hash");
				ent_h[n_ent++] = h;
				break;			/* one per bucket */
			}
		}
		if (cf_victim_used(&ro.cf))
		{
			uint64_t	h;

			if (fz_find_hash(&ro.cf, ref_get32(ro.p + CF_OFF_VICTIM_BUCKET), ref_get32(ro.p + CF_OFF_VICTIM_FP), &h))
			{
				victim_h_idx = (uint32_t) n_ent;
				ent_h[n_ent++] = h;
			}
		}
	}
	for (int e = 0; e < n_ent; e++)
	{
		uint32_t	fp,
					i1;
		uint32_t	want;

		cf_locate(&ro.cf, ent_h[e], &fp, &i1);
		want = ref_pair_count(&ro.cf, ro.p, &g, i1, fp);
		FZ_CHECK(cf_contains(&ro.cf, ent_h[e]), "stored entry %d (bucket %u fp %u) not found",
				 e, i1, fp);
		FZ_CHECK(cf_count(&ro.cf, ent_h[e]) == want, "cf_count %u, reference %u",
				 cf_count(&ro.cf, ent_h[e]), want);
	}
	for (int x = 0; x < N_EXTRA; x++)
	{
		uint64_t	h = fz_mix(seed + (uint64_t) x);
		uint32_t	fp,
					i1;

		cf_locate(&ro.cf, h, &fp, &i1);
		FZ_CHECK(cf_count(&ro.cf, h) == ref_pair_count(&ro.cf, ro.p, &g, i1, fp),
				 "cf_count disagrees with the reference for a random hash");
		FZ_CHECK(cf_contains(&ro.cf, h) == (cf_count(&ro.cf, h) > 0),
				 "contains and count disagree");
	}
	FZ_CHECK(memcmp(ro.p, orig, len) == 0, "read-only operations changed the bytes");
	b64_roundtrip(ro.p, len);
	FZ_CHECK(memcmp(ro.p, orig, len) == 0, "encoding changed the bytes");

	/* ---- union with an identical copy is the identity ---- */
	{
		fbuf		same;
		cf_status	st;

		fb_copy(&same, orig, len);
		st = cf_union_into(&same.cf, &ro.cf);
		FZ_CHECK(st == CF_OK, "union with a copy of itself: status %d", (int) st);
		FZ_CHECK(memcmp(same.p, orig, len) == 0, "union with a copy of itself changed it");
		FZ_CHECK(memcmp(ro.p, orig, len) == 0, "union changed its source");
		fb_free(&same);
	}

	/* ---- mutations on an exact-size copy ---- */
	fb_copy(&mu, orig, len);
	if (cf_kind_of(&mu.cf) == CF_KIND_ANY)
	{
		uint16_t	kind = (uint16_t) (1 + seed % CF_KIND_MAX);

		cf_set_kind(&mu.cf, kind, kind == CF_KIND_OTHER ? 0x5EED | 1u : 0);
	}

	/* remove stored entries: each must succeed and take exactly one item */
	for (int e = 0; e < n_ent; e++)
	{
		uint64_t	before = cf_items(&mu.cf);

		if (((seed >> e) & 1) == 0 && e != (int) victim_h_idx)
			continue;			/* keep some, so union/shrink see them */
		if (cf_count(&mu.cf, ent_h[e]) == 0)
			continue;			/* an earlier removal took the shared key */
		FZ_CHECK(cf_remove(&mu.cf, ent_h[e]), "remove of a stored entry failed");
		FZ_CHECK(cf_items(&mu.cf) == before - 1, "remove: items %llu -> %llu",
				 (unsigned long long) before, (unsigned long long) cf_items(&mu.cf));
		check_valid(mu.p, len, "after remove");
	}

	/* inserts of derived hashes, with status checks */
	for (int x = 0; x < N_EXTRA; x++)
	{
		uint64_t	h = fz_mix(seed ^ (UINT64_C(0xA5A5) + (uint64_t) x));
		uint8_t    *before = fz_dup(mu.p, len);
		uint64_t	items = cf_items(&mu.cf);
		bool		had = cf_contains(&mu.cf, h);
		bool		victim = cf_victim_used(&mu.cf);
		cf_status	st = (x & 1) ? cf_insert_if_absent(&mu.cf, h) : cf_insert(&mu.cf, h);

		switch (st)
		{
			case CF_OK:
			case CF_OK_STASHED:
				FZ_CHECK(!(x & 1) || !had, "insert_if_absent stored a present item");
				FZ_CHECK(cf_items(&mu.cf) == items + 1, "insert: items not +1");
				FZ_CHECK(cf_contains(&mu.cf, h), "inserted item not found");
				FZ_CHECK((st == CF_OK_STASHED) == (cf_victim_used(&mu.cf) && !victim),
						 "OK_STASHED (%d) disagrees with the victim flag", (int) st);
				break;
			case CF_EXISTS:
				FZ_CHECK((x & 1) && had, "CF_EXISTS from plain insert or absent item");
				FZ_CHECK(memcmp(before, mu.p, len) == 0, "CF_EXISTS changed bytes");
				break;
			case CF_FULL:
				FZ_CHECK(victim, "CF_FULL with the victim slot free");
				FZ_CHECK(memcmp(before, mu.p, len) == 0, "CF_FULL changed bytes");
				break;
			case CF_TOO_MANY_COPIES:
				FZ_CHECK(cf_count(&mu.cf, h) >= g.b, "TOO_MANY_COPIES with count %u",
						 cf_count(&mu.cf, h));
				FZ_CHECK(memcmp(before, mu.p, len) == 0, "TOO_MANY_COPIES changed bytes");
				break;
			default:
				FZ_CHECK(0, "insert returned status %d", (int) st);
		}
		free(before);
		check_valid(mu.p, len, "after insert");
	}
	/* remove one derived hash if present: must succeed */
	{
		uint64_t	h = fz_mix(seed ^ UINT64_C(0xA5A5));	/* inserted above */

		if (cf_contains(&mu.cf, h))
		{
			uint64_t	items = cf_items(&mu.cf);

			FZ_CHECK(cf_remove(&mu.cf, h), "remove of a present hash failed");
			FZ_CHECK(cf_items(&mu.cf) == items - 1, "remove: items not -1");
			check_valid(mu.p, len, "after remove of derived hash");
		}
	}

	/* ---- union of the mutated copy with the original ---- */
	fb_copy(&other, mu.p, len);
	{
		uint64_t	ia = cf_items(&other.cf),
					ib = cf_items(&ro.cf);
		cf_status	st = cf_union_into(&other.cf, &ro.cf);

		/* same shape; kinds agree (mu's kind was set only if ro's is ANY) */
		FZ_CHECK(st == CF_OK || st == CF_FULL, "union status %d", (int) st);
		check_valid(other.p, len, "after union");
		if (st == CF_OK)
		{
			uint64_t	iu = cf_items(&other.cf);

			FZ_CHECK(iu >= (ia > ib ? ia : ib) && iu <= ia + ib,
					 "union items %llu outside [max(%llu,%llu), sum]",
					 (unsigned long long) iu, (unsigned long long) ia,
					 (unsigned long long) ib);
			for (int e = 0; e < n_ent; e++)
				FZ_CHECK(cf_count(&other.cf, ent_h[e]) >= cf_count(&ro.cf, ent_h[e]),
						 "union lost copies of a source entry");
		}
	}
	fb_free(&other);

	/* ---- shrink: rehash into the target size (and into the same size) ---- */
	for (int pass = 0; pass < 2; pass++)
	{
		cf_params	p;
		uint32_t	target = pass == 0 ? cf_shrink_target(&mu.cf) : mu.cf.m;
		fbuf		d;
		size_t		dlen;
		cf_status	st;
		uint8_t    *before = fz_dup(mu.p, len);

		FZ_CHECK(target >= 1 && target <= mu.cf.m, "shrink target %u of %u", target, mu.cf.m);
		cf_get_params(&mu.cf, &p);
		p.num_buckets = target;
		if (p.capacity > (uint64_t) target * p.bucket_size)
			p.capacity = (uint64_t) target * p.bucket_size;
		FZ_CHECK(cf_check_params(&p, err, sizeof err), "shrink params: %s", err);
		dlen = cf_total_bytes(p.num_buckets, p.bucket_size, p.fp_bits, p.semisort);
		d.p = malloc(dlen);
		FZ_CHECK(d.p != NULL, "oom");
		d.len = dlen;
		cf_init(d.p, &p);
		cf_open(&d.cf, d.p, dlen);
		check_valid(d.p, dlen, "empty shrink target");
		st = cf_rehash_into(&mu.cf, &d.cf);
		FZ_CHECK(memcmp(before, mu.p, len) == 0, "rehash changed its source");
		FZ_CHECK(st == CF_OK || st == CF_FULL, "rehash status %d", (int) st);
		check_valid(d.p, dlen, "after rehash");
		if (st == CF_OK)
		{
			FZ_CHECK(cf_items(&d.cf) == cf_items(&mu.cf), "rehash items %llu != %llu",
					 (unsigned long long) cf_items(&d.cf),
					 (unsigned long long) cf_items(&mu.cf));
			for (int e = 0; e < n_ent; e++)
				if (cf_contains(&mu.cf, ent_h[e]))
					FZ_CHECK(cf_count(&d.cf, ent_h[e]) >= cf_count(&mu.cf, ent_h[e]),
							 "rehash lost an entry");
			for (int x = 0; x < N_EXTRA; x++)
			{
				uint64_t	h = fz_mix(seed ^ (UINT64_C(0xA5A5) + (uint64_t) x));

				if (cf_contains(&mu.cf, h))
					FZ_CHECK(cf_contains(&d.cf, h), "rehash lost an inserted item");
			}
		}
		free(before);
		fb_free(&d);
	}

	FZ_CHECK(memcmp(ro.p, orig, len) == 0, "the read-only copy changed");
	fb_free(&mu);
	fb_free(&ro);
}

/* The input as base64 text: exact-size, not NUL-terminated. */
static void
text_path(const uint8_t *data, size_t size, uint64_t seed)
{
	char	   *txt = (char *) fz_dup(data, size);
	size_t		dlen = 0;

	if (size > 0 && cf_b64_decoded_len(txt, size, &dlen))
	{
		uint8_t    *dec;
		char		err[ERRLEN];

		FZ_CHECK(size % 4 == 0 && dlen <= size / 4 * 3 && dlen + 2 >= size / 4 * 3,
				 "decoded_len %zu for %zu characters", dlen, size);
		dec = malloc(dlen ? dlen : 1);
		FZ_CHECK(dec != NULL, "oom");
		if (cf_b64_decode(txt, size, dec))
		{
			/* strict decoder: only canonical text is accepted */
			char	   *re = malloc(cf_b64_encoded_len(dlen));

			FZ_CHECK(re != NULL, "oom");
			FZ_CHECK(cf_b64_encoded_len(dlen) == size, "re-encoded length differs");
			cf_b64_encode(dec, dlen, re);
			FZ_CHECK(memcmp(re, txt, size) == 0, "decoder accepted non-canonical text");
			free(re);
			{
				const char *why = "";
				bool		ok = cf_validate(dec, dlen, err, sizeof err);

				FZ_CHECK(ok == ref_any_valid(dec, dlen, &why),
						 "decoded text: cf_validate %d (%s), reference (%s)",
						 (int) ok, ok ? "" : err, why);
				if (ok)
					exercise(dec, dlen, seed);
			}
		}
		free(dec);
	}
	else
	{
		uint8_t		dummy[1];

		/* decoded_len rejects only n = 0 or n % 4 != 0; decode must too,
		 * without writing anything */
		FZ_CHECK(size == 0 || size % 4 != 0, "decoded_len rejects %zu characters", size);
		FZ_CHECK(!cf_b64_decode(txt, size, dummy), "decode accepts what decoded_len rejects");
	}
	free(txt);
}

/*
 * The input mapped onto the base64 alphabet, so that almost every input is
 * text the decoder has to look at closely: length cut to a multiple of 4,
 * one or two '=' at the end and, at times, one stray character or '=' inside.
 */
static void
text_variant(const uint8_t *data, size_t size, uint64_t seed)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t		n = size - size % 4;
	char	   *t;

	if (n == 0)
		return;
	t = malloc(n);
	FZ_CHECK(t != NULL, "oom");
	for (size_t i = 0; i < n; i++)
		t[i] = abc[data[i] & 63];
	if (data[0] & 0x40)
		t[n - 1] = '=';
	if ((data[0] & 0xC0) == 0xC0)
		t[n - 2] = '=';
	if (n >= 8 && (data[1] & 0xC0) == 0xC0)
		t[data[2] % n] = (data[3] & 1) ? '=' : (char) data[4];
	text_path((const uint8_t *) t, n, seed);
	free(t);
}

/* Sizing helpers, driven by the first bytes of the input. */
static void
sizing(const uint8_t *data, size_t size)
{
	uint8_t		x[16] = {0};
	uint64_t	v,
				w;
	uint32_t	b,
				r;

	memcpy(x, data, size < 16 ? size : 16);
	v = ref_get64(x) >> (x[8] & 31);
	w = ref_get64(x + 8);
	b = 2u << (x[9] % 3);

	/* bucket counts round up to the form c * 2^k, by less than 1/128 */
	r = cf_round_buckets(v);
	if (v <= UINT32_MAX && r != 0)
	{
		uint64_t	want = v ? v : 1;

		FZ_CHECK(cf_buckets_representable(r), "cf_round_buckets(%llu) = %u not representable",
				 (unsigned long long) v, r);
		FZ_CHECK(r >= want && (uint64_t) (r - want) * 128 <= r,
				 "cf_round_buckets(%llu) = %u", (unsigned long long) v, r);
		if (cf_buckets_representable(want))
			FZ_CHECK(r == want, "cf_round_buckets(%llu) = %u", (unsigned long long) v, r);
	}
	else if (v > UINT32_MAX)
		FZ_CHECK(r == 0, "cf_round_buckets(%llu) = %u", (unsigned long long) v, r);

	/* a capacity gets enough entries at the target load */
	v = w >> 30;
	r = cf_buckets_for_capacity(v, b);
	if (r != 0)
	{
		FZ_CHECK(cf_buckets_representable(r), "cf_buckets_for_capacity not representable");
		FZ_CHECK((double) r * b * cf_target_load(b) >= (double) v || v <= b,
				 "cf_buckets_for_capacity(%llu, %u) = %u is too small",
				 (unsigned long long) v, b, r);
	}

	/* the fingerprint size for an fpr is the smallest that reaches it */
	{
		double		fpr = ldexp((double) (w & 0xFFFFF) + 1.0, -20 - (int) (x[10] % 20));
		int			f = cf_fp_bits_for_fpr(fpr, b);

		if (f >= 0)
		{
			FZ_CHECK(f >= CF_MIN_FP_BITS && f <= CF_MAX_FP_BITS, "fp bits %d", f);
			FZ_CHECK(cf_expected_fpr(b, (uint32_t) f, cf_target_load(b)) <= fpr, "fpr not met");
			if (f > CF_MIN_FP_BITS)
				FZ_CHECK(cf_expected_fpr(b, (uint32_t) f - 1, cf_target_load(b)) > fpr,
						 "fp bits %d not the smallest", f);
		}
		else
			FZ_CHECK(cf_expected_fpr(b, CF_MAX_FP_BITS, cf_target_load(b)) > fpr,
					 "cf_fp_bits_for_fpr gave up too early");
	}

	/* cf_hash_u64 is XXH3 over the little-endian bytes */
	{
		uint8_t		le[8];

		ref_put64(le, w);
		FZ_CHECK(cf_hash_u64(w) == cf_hash_bytes(le, 8), "cf_hash_u64");
	}
}

/*
 * A version-2 filter the validator accepted: read-only calls leave it
 * identical and agree with each other; on a growable copy, inserts of
 * hashes from the input are found and can be removed again; rotation,
 * compaction and union with itself give valid filters that keep every item
 * they must keep.
 */
#define V2_N 48
static void
exercise_v2(const uint8_t *orig, size_t len, uint64_t seed)
{
	uint8_t    *ro = fz_dup(orig, len);
	cf_filter	cf,
				mu;
	cf_info		info;
	uint64_t	hs[V2_N];
	bool		stored[V2_N];
	uint64_t	s = seed;
	uint32_t	nst = 0;

	cf_open(&cf, ro, len);
	FZ_CHECK(cf_version(&cf) == 2, "version-2 bytes open as version %u", cf_version(&cf));
	cf_get_info(&cf, &info);
	FZ_CHECK(info.entries >= cf_items(&cf), "info: entries below items");
	FZ_CHECK(info.generations >= 1 && info.generations <= 256, "info: %u generations", info.generations);
	for (int i = 0; i < 32; i++)
	{
		uint64_t	h = fz_mix(s++);
		bool		c = cf_contains(&cf, h),
					many;

		cf_contains_many(&cf, &h, 1, &many);
		FZ_CHECK(c == (cf_count(&cf, h) > 0), "contains and count disagree");
		FZ_CHECK(c == many, "contains and contains_many disagree");
	}
	FZ_CHECK(memcmp(ro, orig, len) == 0, "read-only calls changed the bytes");

	/* inserts and removes on a growable copy */
	cf_open(&mu, fz_dup(orig, len), len);
	if (cf_kind_of(&mu) == CF_KIND_ANY)
		cf_set_kind(&mu, CF_KIND_INTEGER, 0);
	for (int i = 0; i < V2_N; i++)
	{
		cf_status	st;

		hs[i] = fz_mix(seed ^ (UINT64_C(0x5bd1e995) * (uint64_t) (i + 1)));
		st = cf_insert(&mu, hs[i]);
		stored[i] = st == CF_OK || st == CF_OK_STASHED;
		FZ_CHECK(stored[i] || st == CF_FULL || st == CF_TOO_MANY_COPIES, "insert status %d", (int) st);
		nst += stored[i];
		check_valid(mu.buf, mu.len, "v2 after insert");
	}
	for (int i = 0; i < V2_N; i++)
		FZ_CHECK(!stored[i] || cf_contains(&mu, hs[i]), "v2: false negative after insert %d", i);
	{
		/* rotation keeping two generations keeps what was just added */
		uint32_t	keep = 2 + (uint32_t) (seed % 5);
		size_t		rl = cf_rotate_bytes(&mu, keep);

		if (rl)
		{
			uint8_t    *rb = malloc(rl);
			cf_filter	r;

			FZ_CHECK(rb, "oom");
			cf_rotate(&mu, keep, rb);
			check_valid(rb, rl, "v2 after rotate");
			cf_open(&r, rb, rl);
			for (int i = 0; i < V2_N; i++)
				FZ_CHECK(!stored[i] || cf_contains(&r, hs[i]), "v2: false negative after rotate");
			free(rb);
		}
	}
	{
		size_t		cl = cf_compact_bytes(&mu);

		if (cl)
		{
			uint8_t    *cb = malloc(cl);
			cf_filter	c2;

			FZ_CHECK(cb, "oom");
			if (cf_compact_into(&mu, cb, cl) == CF_OK)
			{
				check_valid(cb, cl, "v2 after compact");
				cf_open(&c2, cb, cl);
				FZ_CHECK(cf_items(&c2) == cf_items(&mu), "compaction changed items");
				for (int i = 0; i < V2_N; i++)
					FZ_CHECK(!stored[i] || cf_contains(&c2, hs[i]), "v2: false negative after compact");
			}
			free(cb);
		}
	}
	{
		/* union with the original */
		cf_filter	u;
		cf_status	st;

		cf_open(&u, fz_dup(mu.buf, mu.len), mu.len);
		st = cf_union_into(&u, &cf);
		FZ_CHECK(st == CF_OK || st == CF_FULL || st == CF_KIND_MISMATCH, "union with the original: %d", (int) st);
		check_valid(u.buf, u.len, "v2 after union");
		if (st == CF_OK)
			for (int i = 0; i < V2_N; i++)
				FZ_CHECK(!stored[i] || cf_contains(&u, hs[i]), "v2: false negative after union");
		free(u.buf);
	}
	for (int i = 0; i < V2_N; i++)
	{
		if (!stored[i])
			continue;
		FZ_CHECK(cf_remove(&mu, hs[i]), "v2: remove of a stored hash failed");
		check_valid(mu.buf, mu.len, "v2 after remove");
		for (int j = i + 1; j < V2_N; j++)
		{
			/* removing one copy never loses another stored one */
			uint32_t	same = 0;

			for (int x = i + 1; x < V2_N; x++)
				same += stored[x] && hs[x] == hs[j];
			FZ_CHECK(!stored[j] || cf_contains(&mu, hs[j]), "v2: remove lost another item (%u)", same);
		}
	}
	free(mu.buf);
	free(ro);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FUZZ_V2_ONLY
	/* every input read as a version-2 value: the version byte is set to 2 */
	uint8_t    *buf;

	if (size < 5 || data[4] != CF_VERSION_2)
	{
		uint8_t    *v2 = fz_dup(data, size);
		int			r;

		if (size >= 5)
			v2[4] = CF_VERSION_2;
		r = size >= 5 ? LLVMFuzzerTestOneInput(v2, size) : 0;
		free(v2);
		return r;
	}
	buf = fz_dup(data, size);
#else
	uint8_t    *buf = fz_dup(data, size);
#endif
	char		err[ERRLEN];
	const char *why = "";
	bool		hdr,
				ok,
				ref;
	uint64_t	seed = cf_hash_bytes(data, size);

	err[0] = '\0';
	hdr = cf_check_header(buf, size, err, sizeof err);
	FZ_CHECK(memchr(err, '\0', sizeof err) != NULL, "error message not terminated");
	ok = cf_validate(buf, size, err, sizeof err);
	FZ_CHECK(!ok || hdr, "cf_validate accepts what cf_check_header rejects");
	ref = ref_any_valid(buf, size, &why);
	FZ_CHECK(ok == ref, "cf_validate says %s (%s), reference says %s (%s)",
			 ok ? "valid" : "invalid", ok ? "" : err, ref ? "valid" : "invalid", why);
	FZ_CHECK(cf_validate(buf, size, NULL, 0) == ok, "verdict depends on err buffer");
	FZ_CHECK(memcmp(buf, data, size) == 0, "validation changed the bytes");

	b64_roundtrip(buf, size);
	if (ok)
		exercise(buf, size, seed);
	text_path(data, size, seed);
	text_variant(data, size, seed);
	sizing(data, size);

	free(buf);
	return 0;
}
