/*
 * cf_base64.c
 *     The text form of a filter: base64 (RFC 4648, standard alphabet, with
 *     padding), strict on input.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_internal.h"

static const char b64chars[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
cf_b64_encoded_len(size_t n)
{
	return ((n + 2) / 3) * 4;
}

void
cf_b64_encode(const uint8_t *src, size_t n, char *dst)
{
	size_t		i = 0;

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
 * through a lookup table, four characters and one validity test at a time.
 */
bool
cf_b64_decode(const char *src, size_t n, uint8_t *dst)
{
	const unsigned char *s = (const unsigned char *) src;
	size_t		full;
	uint32_t	a,
				b,
				c,
				d;

	if (n == 0 || n % 4 != 0)
		return false;
	b64_init();
	full = n - 4;				/* the last group may carry padding */
	for (size_t i = 0; i < full; i += 4)
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

