/*
 * cf_base64.c
 *     The text form of a filter: base64 (RFC 4648, standard alphabet, with
 *     padding), strict on input.
 *
 * Two implementations of each direction, giving the same output:
 * - portable C, four characters (three bytes) at a time through small tables,
 *   about 2 GB/s encoding and 2.8 GB/s decoding here (bench/b64_bench.sh);
 * - on x86-64 with GCC or clang, SSSE3, sixteen characters (twelve bytes) a
 *   step, chosen at run time when the CPU has it (every x86-64 CPU since
 *   2006; the Debian packages are built for baseline x86-64, which lacks it,
 *   so it is compiled with a function target attribute and called only after
 *   __builtin_cpu_supports).  It classifies each character by its two nibbles
 *   with two byte shuffles (the method of Muła and Lemire, "Faster Base64
 *   Encoding and Decoding Using AVX2 Instructions", ACM TWEB 2018), so
 *   decoding stays exactly as strict: any byte outside the alphabet in a
 *   16-character block rejects the whole input.  The last group (the only
 *   one that may carry padding) and whatever is left of the input after the
 *   16-character blocks always go through the portable code.
 * The hex form would be simpler, but is 1.5x longer than base64 (2 characters
 * per byte against 4 per 3) and no faster to produce.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CF_B64_SSSE3 1
#include <tmmintrin.h>
#endif

/*
 * true: always the portable code (tests set it to cover both paths on a CPU
 * with SSSE3).
 */
extern bool cf_b64_portable_only CF_HIDDEN;
bool		cf_b64_portable_only = false;

static const char b64chars[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
cf_b64_encoded_len(size_t n)
{
	return ((n + 2) / 3) * 4;
}

#ifdef CF_B64_SSSE3
static bool
have_ssse3(void)
{
	static int	have = -1;

	if (have < 0)
	{
		__builtin_cpu_init();
		have = __builtin_cpu_supports("ssse3") ? 1 : 0;
	}
	return have == 1 && !cf_b64_portable_only;
}

/*
 * Encodes 12 bytes into 16 characters a step while 16 bytes can be loaded;
 * returns the number of bytes encoded (a multiple of 3).
 */
__attribute__((target("ssse3")))
static size_t
encode_ssse3(const uint8_t *src, size_t n, char *dst)
{
	/* bytes 1 0 2 1 of each 3, one group per 32-bit lane */
	const __m128i shuf = _mm_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1);
	/* the ASCII offset of each class: 0 'a'-26, 1..10 '0'-52, 11 '+', 12 '/', 13 'A' */
	const __m128i offsets = _mm_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
										  '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
										  '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
	size_t		i = 0;

	for (; i + 16 <= n; i += 12, dst += 16)
	{
		__m128i		in = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (src + i)), shuf);
		/* the four 6-bit indices of each lane into its four bytes */
		__m128i		t0 = _mm_mulhi_epu16(_mm_and_si128(in, _mm_set1_epi32(0x0fc0fc00)),
										 _mm_set1_epi32(0x04000040));
		__m128i		t1 = _mm_mullo_epi16(_mm_and_si128(in, _mm_set1_epi32(0x003f03f0)),
										 _mm_set1_epi32(0x01000010));
		__m128i		idx = _mm_or_si128(t0, t1);
		/* class: 52..63 -> 1..12, 26..51 -> 0, 0..25 -> 13 */
		__m128i		cls = _mm_subs_epu8(idx, _mm_set1_epi8(51));

		cls = _mm_or_si128(cls, _mm_and_si128(_mm_cmpgt_epi8(_mm_set1_epi8(26), idx),
											  _mm_set1_epi8(13)));
		_mm_storeu_si128((__m128i *) dst,
						 _mm_add_epi8(_mm_shuffle_epi8(offsets, cls), idx));
	}
	return i;
}

/*
 * Decodes 16 characters into 12 bytes a step while at least 16 characters
 * are left before limit; sets *bad and stops at a block holding any byte
 * outside the alphabet ('=' included).  Returns the characters decoded.
 */
__attribute__((target("ssse3")))
static size_t
decode_ssse3(const unsigned char *s, size_t limit, uint8_t *dst, bool *bad)
{
	/*
	 * Valid iff lo_bits[low nibble] & hi_bits[high nibble] != 0.  High
	 * nibble 2: '+' (B) and '/' (F); 3: '0'-'9'; 4 and 6: 1..F ('A'-'O',
	 * 'a'-'o'); 5 and 7: 0..A ('P'-'Z', 'p'-'z'); any other: none.
	 */
	const __m128i hi_bits = _mm_setr_epi8(0, 0, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08,
										  0, 0, 0, 0, 0, 0, 0, 0);
	const __m128i lo_bits = _mm_setr_epi8(0x0A, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E,
										  0x0E, 0x0E, 0x0C, 0x05, 0x04, 0x04, 0x04, 0x05);
	/* value - character, by high nibble ('/' looks up index 1) */
	const __m128i roll = _mm_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71,
									   0, 0, 0, 0, 0, 0, 0, 0);
	const __m128i nib = _mm_set1_epi8(0x0f);
	/* output bytes 2 1 0 of each lane */
	const __m128i pack = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
	size_t		i = 0;

	for (; i + 16 <= limit; i += 16, dst += 12)
	{
		__m128i		in = _mm_loadu_si128((const __m128i *) (s + i));
		__m128i		hi = _mm_and_si128(_mm_srli_epi32(in, 4), nib);
		__m128i		lo = _mm_and_si128(in, nib);
		__m128i		ok = _mm_and_si128(_mm_shuffle_epi8(lo_bits, lo),
									   _mm_shuffle_epi8(hi_bits, hi));
		__m128i		v,
					out;

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(ok, _mm_setzero_si128())) != 0)
		{
			*bad = true;
			return i;
		}
		v = _mm_add_epi8(in, _mm_shuffle_epi8(roll,
											  _mm_add_epi8(hi, _mm_cmpeq_epi8(in, _mm_set1_epi8('/')))));
		/* 6-bit values -> 12 bits per 16-bit lane -> 24 bits per 32-bit lane */
		v = _mm_maddubs_epi16(v, _mm_set1_epi32(0x01400140));
		v = _mm_madd_epi16(v, _mm_set1_epi32(0x00011000));
		out = _mm_shuffle_epi8(v, pack);
		_mm_storel_epi64((__m128i *) dst, out);
		{
			uint32_t	w = (uint32_t) _mm_cvtsi128_si32(_mm_srli_si128(out, 8));

			memcpy(dst + 8, &w, 4);
		}
	}
	return i;
}
#endif

void
cf_b64_encode(const uint8_t *src, size_t n, char *dst)
{
	size_t		i = 0;

#ifdef CF_B64_SSSE3
	if (n >= 16 && have_ssse3())
	{
		i = encode_ssse3(src, n, dst);
		dst += i / 3 * 4;
	}
#endif
	for (; i + 3 <= n; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = b64chars[v & 63];
	}
	if (n - i == 1)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = '=';
		*dst++ = '=';
	}
	else if (n - i == 2)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8);

		*dst++ = b64chars[v >> 18];
		*dst++ = b64chars[(v >> 12) & 63];
		*dst++ = b64chars[(v >> 6) & 63];
		*dst++ = '=';
	}
}

/* Character -> 6-bit value; 0x80 marks every other character ('=' too). */
static uint8_t b64lut[256];
static bool b64lut_ready = false;

static void
b64_init(void)
{
	if (b64lut_ready)
		return;
	memset(b64lut, 0x80, sizeof(b64lut));
	for (int i = 0; i < 64; i++)
		b64lut[(unsigned char) b64chars[i]] = (uint8_t) i;
	b64lut_ready = true;
}

bool
cf_b64_decoded_len(const char *src, size_t n, size_t *out)
{
	size_t		pad = 0;

	if (n == 0 || n % 4 != 0)
		return false;
	if (src[n - 1] == '=')
		pad++;
	if (src[n - 2] == '=')
		pad++;
	*out = n / 4 * 3 - pad;
	return true;
}

/*
 * Decodes exactly n characters; false on any character, padding or trailing
 * bit that a canonical encoder would not have produced.  The full groups go
 * through SSSE3 sixteen characters at a time where the CPU has it, the rest
 * through a lookup table, four characters and one validity test at a time.
 */
bool
cf_b64_decode(const char *src, size_t n, uint8_t *dst)
{
	const unsigned char *s = (const unsigned char *) src;
	size_t		full,
				i = 0;
	uint32_t	a,
				b,
				c,
				d;

	if (n == 0 || n % 4 != 0)
		return false;
	b64_init();
	full = n - 4;				/* the last group may carry padding */
#ifdef CF_B64_SSSE3
	if (full >= 16 && have_ssse3())
	{
		bool		bad = false;

		i = decode_ssse3(s, full, dst, &bad);
		if (bad)
			return false;
		dst += i / 4 * 3;
	}
#endif
	for (; i < full; i += 4)
	{
		a = b64lut[s[i]];
		b = b64lut[s[i + 1]];
		c = b64lut[s[i + 2]];
		d = b64lut[s[i + 3]];
		if ((a | b | c | d) & 0x80)
			return false;
		a = (a << 18) | (b << 12) | (c << 6) | d;
		dst[0] = (uint8_t) (a >> 16);
		dst[1] = (uint8_t) (a >> 8);
		dst[2] = (uint8_t) a;
		dst += 3;
	}
	s += full;
	a = b64lut[s[0]];
	b = b64lut[s[1]];
	if ((a | b) & 0x80)
		return false;
	if (s[2] == '=' && s[3] == '=')
	{
		if (b & 15)
			return false;
		*dst = (uint8_t) ((a << 2) | (b >> 4));
		return true;
	}
	c = b64lut[s[2]];
	if (c & 0x80)
		return false;
	if (s[3] == '=')
	{
		if (c & 3)
			return false;
		dst[0] = (uint8_t) ((a << 2) | (b >> 4));
		dst[1] = (uint8_t) (((b & 15) << 4) | (c >> 2));
		return true;
	}
	d = b64lut[s[3]];
	if (d & 0x80)
		return false;
	dst[0] = (uint8_t) ((a << 2) | (b >> 4));
	dst[1] = (uint8_t) (((b & 15) << 4) | (c >> 2));
	dst[2] = (uint8_t) (((c & 3) << 6) | d);
	return true;
}

