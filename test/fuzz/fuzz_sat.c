/*
 * fuzz_sat.c
 *     libFuzzer harness (c): the living filters' saturating count
 *     (docs/DESIGN.md, "Duplicates: counting copies, saturating at half a
 *     pair") against a model of the rows.  The input chooses a growing
 *     segment's shape, up to 16 values whose 64-bit hashes it spells out
 *     (so fingerprints, columns and address bits collide as it likes), and
 *     a program of tracked adds and removes, direct adds and removes, and
 *     bulk rows of fresh values that make the segment grow.  An add is
 *     applied as the commit applies it (nothing at b / 2 copies; a refused
 *     add adds no row), a remove of a
 *     value with rows by cf_remove_saturating, a direct remove of a direct
 *     add likewise (cuckoo_store_remove on a tracked store).  After every
 *     step every value with a row or a direct add must be found (the fresh
 *     values every 64 steps and at the end), and cf_validate accepts.
 *
 * Bytes: 0 capacity, 1 fpr, 2 tail bits, 3 max_kicks, 4 number of values
 * (1 + d4 % 16), then 8 bytes per value (its hash; with bit 7 of byte 2 set,
 * the low 32 bits of the first value's hash are kept for all: one
 * fingerprint), then (opcode, argument) pairs.
 */
#include "fuzz_common.h"

#define NV		16
#define NFRESH	2048

typedef struct sat_state
{
	cf_filter	cf;
	uint64_t	h[NV];
	int32_t		rows[NV],
				direct[NV];
	uint32_t	nv;
	uint64_t	fresh[NFRESH];
	uint32_t	nfresh;
	uint64_t	salt;
} sat_state;

/*
 * An add (tracked: nothing at b / 2 copies); false if the insert was
 * refused.  A refused insert may have split buckets (the bytes differ, the
 * filter is valid and holds what it held): the server's failed commit puts
 * the old bytes back, and either state must find every value.
 */
static bool
sat_add(sat_state *S, uint64_t h, bool tracked)
{
	cf_status	st;

	if (tracked && cf_count(&S->cf, h) >= S->cf.b / 2)
		return true;
	st = cf_insert(&S->cf, h);
	FZ_CHECK(st == CF_OK || st == CF_OK_STASHED || st == CF_FULL || st == CF_TOO_MANY_COPIES,
			 "insert: status %d", (int) st);
	return st == CF_OK || st == CF_OK_STASHED;
}

static void
sat_check(const sat_state *S, bool all, size_t step)
{
	char		err[256] = "";

	for (uint32_t v = 0; v < S->nv; v++)
		FZ_CHECK((S->rows[v] == 0 && S->direct[v] == 0) || cf_contains(&S->cf, S->h[v]),
				 "step %zu: value %u (hash %016llx) of %d rows and %d direct adds not found "
				 "(m %u, f %u, max_kicks %u)",
				 step, v, (unsigned long long) S->h[v], S->rows[v], S->direct[v],
				 S->cf.m, S->cf.f, S->cf.max_kicks);
	if (all)
	{
		for (uint32_t j = 0; j < S->nfresh; j++)
			FZ_CHECK(cf_contains(&S->cf, S->fresh[j]), "step %zu: fresh value %u not found", step, j);
		FZ_CHECK(cf_validate(S->cf.buf, S->cf.len, err, sizeof err), "step %zu: %s", step, err);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const uint64_t caps[] = {1, 2, 3, 5, 10, 20, 50, 100, 300, 807};
	static const double fprs[] = {0.01, 0.05, 0.2, 0.5};
	static sat_state S;
	cf_params	p;
	char		err[256] = "";
	size_t		pos,
				len;
	uint8_t    *buf;

	if (n < 5)
		return 0;
	memset(&S, 0, sizeof S);
	if (!cf_params_growing(caps[d[0] % 10], fprs[d[1] % 4], d[3] < 64 ? d[3] % 8 : 500, &p, err, sizeof err))
		return 0;
	p.kind = CF_KIND_INTEGER;
	p.budget = false;
	p.tail_bits = (d[2] & 0x7f) < 64 ? CF_V2_TAIL_BITS : 2 + (d[2] & 0x7f) % 8;
	len = (size_t) cf_init_bytes(&p);
	buf = malloc(len);
	FZ_CHECK(buf != NULL, "out of memory");
	cf_init(buf, &p);
	cf_open(&S.cf, buf, len);
	S.nv = 1 + d[4] % NV;
	pos = 5;
	for (uint32_t v = 0; v < S.nv; v++)
	{
		uint64_t	h = 0;

		for (int b = 0; b < 8; b++)
			h |= (uint64_t) (pos < n ? d[pos++] : v * 37 + b) << (8 * b);
		if ((d[2] & 0x80) && v > 0)
			h = (h & ~(uint64_t) 0xffffffffu) | (S.h[0] & 0xffffffffu);
		S.h[v] = h;
	}
	S.salt = fz_mix(n);
	for (size_t step = 0; pos + 1 < n; pos += 2, step++)
	{
		uint32_t	op = d[pos] % 8,
					arg = d[pos + 1],
					v = arg % S.nv;

		switch (op)
		{
			case 0:
			case 1:
			case 2:				/* a row of value v */
				if (sat_add(&S, S.h[v], true))
					S.rows[v]++;
				break;
			case 3:
			case 4:				/* a row of value v deleted */
				if (S.rows[v] > 0)
				{
					FZ_CHECK(cf_remove_saturating(&S.cf, S.h[v], S.cf.b / 2) != 0,
							 "step %zu: the remove of value %u of %d rows found nothing", step, v, S.rows[v]);
					S.rows[v]--;
				}
				break;
			case 5:				/* a direct add, or the direct remove of one */
				if (arg & 0x80 && S.direct[v] > 0)
				{
					FZ_CHECK(cf_remove_saturating(&S.cf, S.h[v], S.cf.b / 2) != 0,
							 "step %zu: the direct remove of value %u found nothing", step, v);
					S.direct[v]--;
				}
				else if (sat_add(&S, S.h[v], false))
					S.direct[v]++;
				break;
			case 6:				/* rows of fresh values: the segment grows */
				for (uint32_t j = 0; j <= arg % 64 && S.nfresh < NFRESH; j++)
				{
					uint64_t	h = fz_mix(S.salt + S.nfresh);

					if (sat_add(&S, h, true))
						S.fresh[S.nfresh++] = h;
				}
				break;
			case 7:				/* a row of a fresh value deleted */
				if (S.nfresh > 0)
				{
					uint32_t	j = arg % S.nfresh;

					FZ_CHECK(cf_remove_saturating(&S.cf, S.fresh[j], S.cf.b / 2) != 0,
							 "step %zu: the remove of fresh value %u found nothing", step, j);
					S.fresh[j] = S.fresh[--S.nfresh];
				}
				break;
		}
		sat_check(&S, (step & 63) == 63, step);
	}
	sat_check(&S, true, (size_t) -1);
	free(S.cf.buf);
	return 0;
}
