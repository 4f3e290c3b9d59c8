/*
 * cf_semisort.c
 *     The tables of semi-sorted buckets (paper section 5.2, b = 4): the
 *     rank of a sorted multiset of four 4-bit prefixes and its inverse.
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_internal.h"

uint16_t	cf_ss_decode[4096];	/* rank -> four nibbles (n0 lowest) */
static bool ss_ready = false;

const uint16_t cf_ss_binom[20][5] = {
	/* C(n, r) for n < 20, r <= 4 */
	{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 2, 1, 0, 0}, {1, 3, 3, 1, 0},
	{1, 4, 6, 4, 1}, {1, 5, 10, 10, 5}, {1, 6, 15, 20, 15},
	{1, 7, 21, 35, 35}, {1, 8, 28, 56, 70}, {1, 9, 36, 84, 126},
	{1, 10, 45, 120, 210}, {1, 11, 55, 165, 330}, {1, 12, 66, 220, 495},
	{1, 13, 78, 286, 715}, {1, 14, 91, 364, 1001}, {1, 15, 105, 455, 1365},
	{1, 16, 120, 560, 1820}, {1, 17, 136, 680, 2380},
	{1, 18, 153, 816, 3060}, {1, 19, 171, 969, 3876}
};

/* Fills cf_ss_decode; called by cf_open, idempotent. */
void
cf_ss_init(void)
{
	if (ss_ready)
		return;
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++)
					cf_ss_decode[ss_rank(a, b, c, d)] =
						(uint16_t) (a | (b << 4) | (c << 8) | (d << 12));
	ss_ready = true;
}
