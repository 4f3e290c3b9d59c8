/*
 * test_base64.c
 *     Unit tests of the core: the base64 text codec.
 */
#include "unit.h"

/* ========================================================================
 * 9. Base64
 * ======================================================================== */

/* true: the codec uses its portable code only (src/core/cf_base64.c) */
extern bool cf_b64_portable_only;

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
test_base64(bool portable)
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
	cf_b64_portable_only = portable;
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
	cf_b64_portable_only = false;
	t_end(portable ? "base64, portable code" : "base64, SIMD code where the CPU has it");
}

/* Base64 of src[0..n) by a bit accumulator, independent of the codec. */
static void
ref_b64_encode(const uint8_t *src, size_t n, char *dst)
{
	uint32_t	acc = 0;
	int			bits = 0;
	size_t		k = 0;

	for (size_t i = 0; i < n; i++)
	{
		acc = (acc << 8) | src[i];
		bits += 8;
		while (bits >= 6)
		{
			bits -= 6;
			dst[k++] = b64alpha[(acc >> bits) & 63];
		}
	}
	if (bits > 0)
		dst[k++] = b64alpha[(acc << (6 - bits)) & 63];
	while (k % 4 != 0)
		dst[k++] = '=';
}

/*
 * The SIMD and portable paths against an independent encoder and against
 * the canonical-form oracle: every input length 0..200 (every length mod 3
 * and mod 4, across several 16-character blocks and every tail), and, for
 * lengths up to 52 bytes and a few longer ones, every one of the 256 byte
 * values at every position of the text.
 */
static void
test_base64_paths(void)
{
	uint64_t	s = 0xB64B64;
	uint8_t		src[256],
				dec[256];
	char		enc[400],
				want[400],
				enc_port[400];
	size_t		subst = 0,
				accepted = 0;

	t_begin();
	for (size_t n = 0; n <= 200; n++)
	{
		size_t		el = cf_b64_encoded_len(n),
					dl = 0;

		for (size_t i = 0; i < n; i++)
			src[i] = (uint8_t) sm64(&s);
		ref_b64_encode(src, n, want);
		for (int portable = 0; portable <= 1; portable++)
		{
			cf_b64_portable_only = portable;
			memset(enc, '#', sizeof enc);
			cf_b64_encode(src, n, portable ? enc_port : enc);
			CHECK(memcmp(portable ? enc_port : enc, want, el) == 0,
				  "%s encoding of %zu bytes differs from the reference",
				  portable ? "portable" : "SIMD", n);
			CHECK(portable || enc[el] == '#', "encoding of %zu bytes wrote past its end", n);
			if (n == 0)
				continue;
			memset(dec, 0xA5, sizeof dec);
			CHECK(cf_b64_decoded_len(want, el, &dl) && dl == n && cf_b64_decode(want, el, dec) &&
				  memcmp(dec, src, n) == 0 && dec[n] == 0xA5,
				  "%s decoding of %zu bytes failed or wrote past its end",
				  portable ? "portable" : "SIMD", n);
		}
		if (n == 0 || (n > 52 && n % 47 != 0))
			continue;
		/* every byte value at every position, both paths */
		memcpy(enc, want, el);
		for (size_t pos = 0; pos < el; pos++)
		{
			char		saved = enc[pos];

			for (int c = 0; c < 256; c++)
			{
				bool		wanted,
							got[2];

				enc[pos] = (char) c;
				wanted = ref_b64_canonical(enc, el);
				for (int portable = 0; portable <= 1; portable++)
				{
					cf_b64_portable_only = portable;
					got[portable] = cf_b64_decode(enc, el, dec);
				}
				subst++;
				accepted += wanted;
				CHECK(got[0] == wanted && got[1] == wanted,
					  "%zu-byte text with 0x%02x at %zu: SIMD %s, portable %s, but it is %scanonical",
					  el, (unsigned) c, pos, got[0] ? "accepts" : "rejects",
					  got[1] ? "accepts" : "rejects", wanted ? "" : "not ");
			}
			enc[pos] = saved;
		}
	}
	t_set_note("%zu substitutions, %zu canonical", subst, accepted);
done:
	cf_b64_portable_only = false;
	t_end("base64: SIMD and portable paths, every length 0..200, every byte at every position");
}

/* All of this file's test cases, in order. */
void
run_base64_tests(void)
{
	test_base64(false);
	test_base64(true);
	test_base64_paths();
}
