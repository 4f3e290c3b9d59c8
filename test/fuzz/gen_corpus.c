/*
 * gen_corpus.c
 *     Writes the seed corpora of the fuzzers:
 *       <dir>/validate/  valid serialised filters of varied shapes (plain
 *                        b = 2/4/8, semi-sorted, with the victim slot in use,
 *                        empty, kind OTHER, ...), a few invalid ones and two
 *                        filters as base64 text;
 *       <dir>/ops/       short programs for fuzz_ops (layout in fuzz_ops.c).
 *     Deterministic: the same core gives the same files.
 *
 *     make corpus      (runs ./gen_corpus corpus)
 */
#include "fuzz_common.h"

#include <errno.h>
#include <sys/stat.h>

static const char *outdir;
static int	n_written;

static void
write_file(const char *sub, const char *name, const void *p, size_t n)
{
	char		path[1024];
	FILE	   *fp;

	snprintf(path, sizeof path, "%s/%s", outdir, sub);
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
	{
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof path, "%s/%s/%s", outdir, sub, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(p, 1, n, fp) != n || fclose(fp) != 0)
	{
		perror(path);
		exit(1);
	}
	n_written++;
}

typedef struct gf
{
	uint8_t    *p;
	size_t		len;
	cf_filter	cf;
} gf;

static gf
make(uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks, uint16_t kind, uint32_t tag)
{
	cf_params	p = ref_params(m, b, f, ss, kicks, kind, tag, (uint64_t) m * b);
	gf			g;
	char		err[256];

	if (!cf_check_params(&p, err, sizeof err))
	{
		fprintf(stderr, "gen_corpus: %s\n", err);
		exit(1);
	}
	g.len = cf_total_bytes(m, b, f, ss);
	g.p = malloc(g.len);
	cf_init(g.p, &p);
	cf_open(&g.cf, g.p, g.len);
	return g;
}

/* Inserts n hashes (seeded); stops early at the first failure if stop_full. */
static int
fill(gf *g, int n, uint64_t seed, uint16_t kind)
{
	int			stored = 0;

	if (cf_kind_of(&g->cf) == CF_KIND_ANY)
		cf_set_kind(&g->cf, kind, 0);
	for (int i = 0; i < n; i++)
	{
		cf_status	st = cf_insert(&g->cf, fz_mix(seed * 1000003u + (uint64_t) i));

		if (st == CF_OK || st == CF_OK_STASHED)
			stored++;
		if (st == CF_OK_STASHED || st == CF_FULL)
			break;
	}
	return stored;
}

/* Fills until the victim slot is used. */
static void
fill_to_victim(gf *g, uint64_t seed, uint16_t kind)
{
	if (cf_kind_of(&g->cf) == CF_KIND_ANY)
		cf_set_kind(&g->cf, kind, 0);
	for (uint64_t i = 0; i < 100000 && !cf_victim_used(&g->cf); i++)
		(void) cf_insert(&g->cf, fz_mix(seed * 7919u + i));
	if (!cf_victim_used(&g->cf))
	{
		fprintf(stderr, "gen_corpus: could not reach the victim slot\n");
		exit(1);
	}
}

static void
emit(const char *name, gf *g)
{
	char		err[256];

	if (!cf_validate(g->p, g->len, err, sizeof err))
	{
		fprintf(stderr, "gen_corpus: %s is invalid: %s\n", name, err);
		exit(1);
	}
	write_file("validate", name, g->p, g->len);
}

static void
emit_invalid(const char *name, const uint8_t *p, size_t len)
{
	if (cf_validate(p, len, NULL, 0))
	{
		fprintf(stderr, "gen_corpus: %s should be invalid\n", name);
		exit(1);
	}
	write_file("validate", name, p, len);
}

static void
emit_b64(const char *name, gf *g)
{
	size_t		n = cf_b64_encoded_len(g->len);
	char	   *t = malloc(n);

	cf_b64_encode(g->p, g->len, t);
	write_file("validate", name, t, n);
	free(t);
}

/* ---- ops programs ---- */
typedef struct prog
{
	uint8_t		b[1024];
	size_t		n;
} prog;

static void
p_head(prog *P, uint8_t shape, uint8_t f, uint8_t kicks, uint8_t msel, uint8_t kind, uint8_t salt)
{
	P->n = 0;
	P->b[P->n++] = shape;
	P->b[P->n++] = f;
	P->b[P->n++] = kicks;
	P->b[P->n++] = msel;
	P->b[P->n++] = kind;
	P->b[P->n++] = salt;
}

static void
p_op(prog *P, uint8_t op, uint8_t arg)
{
	if (P->n + 2 > sizeof P->b)
		exit(1);
	P->b[P->n++] = op;
	P->b[P->n++] = arg;
}

static void
p_raw(prog *P, uint8_t v)
{
	P->b[P->n++] = v;
}

enum
{
	OP_INSERT = 0, OP_INSERT_IF_ABSENT = 3, OP_REMOVE = 4, OP_LOOKUP = 6,
	OP_UNION = 7, OP_SHRINK = 8, OP_SERIALISE = 9, OP_BULK = 10,
	OP_UNION_MISMATCH = 11, OP_DUP = 12, OP_REMOVE_ALL = 13, OP_INS_REM = 14,
	OP_PROBE = 15
};

static void
emit_prog(const char *name, const prog *P)
{
	write_file("ops", name, P->b, P->n);
}

int
main(int argc, char **argv)
{
	gf			g;
	prog		P;

	if (argc != 2)
	{
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0777) != 0 && errno != EEXIST)
	{
		perror(outdir);
		return 1;
	}

	/* ---- valid filters ---- */
	g = make(16, 4, 12, false, 500, CF_KIND_ANY, 0);
	emit("empty_b4_f12_any", &g);
	free(g.p);

	g = make(1, 2, 4, false, 0, CF_KIND_INTEGER, 0);
	emit("empty_m1_b2_f4", &g);
	free(g.p);

	g = make(8, 2, 8, false, 50, CF_KIND_ANY, 0);
	fill(&g, 10, 1, CF_KIND_INTEGER);
	emit("b2_f8_m8_int", &g);
	free(g.p);

	g = make(32, 4, 12, false, 500, CF_KIND_TEXT, 0);
	fill(&g, 100, 2, CF_KIND_TEXT);
	emit("b4_f12_m32_text", &g);
	free(g.p);

	g = make(8, 8, 16, false, 20, CF_KIND_BYTEA, 0);
	fill(&g, 50, 3, CF_KIND_BYTEA);
	emit("b8_f16_m8_bytea", &g);
	free(g.p);

	g = make(16, 4, 9, true, 500, CF_KIND_UUID, 0);
	fill(&g, 40, 4, CF_KIND_UUID);
	emit("semisort_f9_m16", &g);
	free(g.p);

	g = make(4, 4, 13, true, 500, CF_KIND_DATE, 0);
	fill(&g, 10, 5, CF_KIND_DATE);
	emit("semisort_f13_m4", &g);
	free(g.p);

	g = make(3, 4, 32, true, 500, CF_KIND_TIMESTAMP, 0);
	fill(&g, 8, 6, CF_KIND_TIMESTAMP);
	emit("semisort_f32_m3", &g);
	free(g.p);

	g = make(4, 4, 4, true, 5, CF_KIND_INTEGER, 0);
	fill_to_victim(&g, 7, CF_KIND_INTEGER);
	emit("semisort_f4_victim", &g);
	free(g.p);

	g = make(1, 2, 4, false, 0, CF_KIND_INTEGER, 0);
	fill_to_victim(&g, 8, CF_KIND_INTEGER);
	emit("b2_f4_m1_victim", &g);
	free(g.p);

	g = make(5, 2, 7, false, 3, CF_KIND_FLOAT, 0);
	fill_to_victim(&g, 9, CF_KIND_FLOAT);
	emit("b2_f7_m5_victim", &g);
	free(g.p);

	g = make(3, 4, 10, false, 10, CF_KIND_TIMESTAMPTZ, 0);
	fill_to_victim(&g, 10, CF_KIND_TIMESTAMPTZ);
	emit("b4_f10_m3_victim", &g);
	free(g.p);

	g = make(2, 8, 6, false, 1, CF_KIND_BOOL, 0);
	fill_to_victim(&g, 11, CF_KIND_BOOL);
	emit("b8_f6_m2_victim", &g);
	free(g.p);

	g = make(2, 8, 32, false, 500, CF_KIND_NUMERIC, 0);
	fill(&g, 12, 12, CF_KIND_NUMERIC);
	emit("b8_f32_m2_numeric", &g);
	free(g.p);

	g = make(12, 4, 10, false, 500, CF_KIND_OTHER, 0x2B3C4D5Eu);
	fill(&g, 30, 13, CF_KIND_OTHER);
	emit("b4_f10_other", &g);
	free(g.p);

	g = make(3, 2, 31, false, 500, CF_KIND_INTEGER, 0);
	fill(&g, 4, 14, CF_KIND_INTEGER);
	emit("b2_f31_m3", &g);
	free(g.p);

	g = make(127, 2, 4, false, 500, CF_KIND_INTEGER, 0);
	fill(&g, 150, 15, CF_KIND_INTEGER);
	emit("b2_f4_m127", &g);
	free(g.p);

	/* k = 1: shrinkable (256 = 128 << 1) */
	g = make(256, 2, 6, false, 500, CF_KIND_INTEGER, 0);
	fill(&g, 100, 16, CF_KIND_INTEGER);
	emit("b2_f6_m256_shrinkable", &g);
	free(g.p);

	g = make(384, 4, 5, false, 500, CF_KIND_TEXT, 0);
	fill(&g, 200, 17, CF_KIND_TEXT);
	emit("b4_f5_m384_shrinkable", &g);
	free(g.p);

	/* duplicates: one hash 2b times, then the refused copy */
	g = make(4, 2, 8, false, 500, CF_KIND_INTEGER, 0);
	cf_set_kind(&g.cf, CF_KIND_INTEGER, 0);
	for (int i = 0; i < 5; i++)
		(void) cf_insert(&g.cf, fz_mix(18));
	emit("b2_f8_duplicates", &g);
	free(g.p);

	/* inserts then removals */
	g = make(8, 4, 8, true, 500, CF_KIND_INTEGER, 0);
	fill(&g, 30, 19, CF_KIND_INTEGER);
	for (int i = 0; i < 30; i += 2)
		(void) cf_remove(&g.cf, fz_mix(19 * 1000003u + (uint64_t) i));
	emit("semisort_f8_removed", &g);
	free(g.p);

	/* ---- invalid filters ---- */
	g = make(8, 4, 8, false, 500, CF_KIND_INTEGER, 0);
	fill(&g, 10, 20, CF_KIND_INTEGER);
	{
		uint8_t    *x = fz_dup(g.p, g.len);

		x[0] ^= 1;
		emit_invalid("bad_magic", x, g.len);
		memcpy(x, g.p, g.len);
		emit_invalid("truncated", x, g.len - 1);
		ref_put64(x + CF_OFF_ITEMS, 11);
		emit_invalid("bad_items", x, g.len);
		memcpy(x, g.p, g.len);
		x[g.len - 1] = 1;
		emit_invalid("bad_padding", x, g.len);
		memcpy(x, g.p, g.len);
		x[CF_OFF_FLAGS] |= 2;
		ref_put32(x + CF_OFF_VICTIM_BUCKET, 1);
		ref_put32(x + CF_OFF_VICTIM_FP, 3);
		ref_put64(x + CF_OFF_ITEMS, 11);
		emit_invalid("victim_with_room", x, g.len);
		memcpy(x, g.p, g.len);
		x[CF_OFF_KIND] = 0;
		emit_invalid("any_with_items", x, g.len);
		memcpy(x, g.p, g.len);
		x[CF_OFF_FLAGS] = 0x80;
		emit_invalid("unknown_flag", x, g.len);
		free(x);
	}
	free(g.p);
	g = make(4, 4, 8, true, 500, CF_KIND_INTEGER, 0);
	{
		g.p[48] = 0xFF;
		g.p[49] = 0x0F;			/* code 4095 > 3875 */
		emit_invalid("semisort_bad_code", g.p, g.len);
	}
	free(g.p);

	/* ---- base64 text ---- */
	g = make(4, 4, 8, true, 500, CF_KIND_INTEGER, 0);
	fill(&g, 10, 21, CF_KIND_INTEGER);
	emit_b64("text_semisort", &g);
	free(g.p);
	g = make(2, 2, 5, false, 0, CF_KIND_INTEGER, 0);
	fill_to_victim(&g, 22, CF_KIND_INTEGER);
	emit_b64("text_victim", &g);
	free(g.p);

	/* ---- ops programs ---- */
	/* b=2, 2 buckets, no kicks: fills, reaches the victim, removes */
	p_head(&P, 0, 4, 0, 1, 1, 1);
	for (int i = 0; i < 12; i++)
		p_op(&P, OP_INSERT, (uint8_t) i);
	for (int i = 0; i < 6; i++)
		p_op(&P, OP_REMOVE, (uint8_t) i);
	p_op(&P, OP_SERIALISE, 0);
	emit_prog("fill_victim_remove", &P);

	/* semi-sorted b=4, duplicates and removals */
	p_head(&P, 1 | 0x40, 4, 10, 3, 3, 2);
	p_op(&P, OP_DUP, 5);
	p_op(&P, OP_DUP, 6);
	for (int i = 0; i < 10; i++)
		p_op(&P, OP_INSERT, (uint8_t) (i * 3));
	p_op(&P, OP_REMOVE_ALL, 0);
	p_op(&P, OP_INSERT_IF_ABSENT, 6);
	p_op(&P, OP_SERIALISE, 0);
	emit_prog("semisort_dups", &P);

	/* b=8, f=4, one bucket: collisions everywhere */
	p_head(&P, 2, 0, 5, 0, 0, 3);
	for (int i = 0; i < 20; i++)
		p_op(&P, (uint8_t) (i & 1 ? OP_INSERT_IF_ABSENT : OP_INSERT), (uint8_t) i);
	p_op(&P, OP_LOOKUP, 7);
	p_op(&P, OP_PROBE, 0);
	p_op(&P, OP_REMOVE, 3);
	emit_prog("b8_one_bucket", &P);

	/* large table: bulk inserts, shrink, more inserts, shrink again */
	p_head(&P, 0 | 0x80, 2, 30, 0, 1, 4);
	p_op(&P, OP_BULK, 63);
	p_op(&P, OP_BULK, 40);
	p_op(&P, OP_SHRINK, 0);
	p_op(&P, OP_INSERT, 1);
	p_op(&P, OP_REMOVE, 1);
	p_op(&P, OP_SHRINK, 3);
	p_op(&P, OP_SERIALISE, 0);
	emit_prog("large_shrink", &P);

	/* union with a second filter built from the next bytes */
	p_head(&P, 1, 6, 20, 4, 1, 5);
	for (int i = 0; i < 8; i++)
		p_op(&P, OP_INSERT, (uint8_t) i);
	p_op(&P, OP_UNION, 9);		/* 10 operand bytes follow */
	for (int i = 0; i < 10; i++)
		p_raw(&P, (uint8_t) (i * 9));
	p_op(&P, OP_INSERT, 20);
	p_op(&P, OP_LOOKUP, 20);
	p_op(&P, OP_SERIALISE, 0);
	emit_prog("union", &P);

	/* kind ANY: union with an operand that records the kind; mismatches */
	p_head(&P, 2, 10, 50, 2, 0, 6);
	p_op(&P, OP_UNION_MISMATCH, 0);
	p_op(&P, OP_UNION_MISMATCH, 1);
	p_op(&P, OP_UNION, 0x80 | 4);
	for (int i = 0; i < 5; i++)
		p_raw(&P, (uint8_t) (70 + i));
	p_op(&P, OP_UNION_MISMATCH, 2);
	p_op(&P, OP_INSERT, 9);
	emit_prog("kind_any_union", &P);

	/* kind OTHER, f = 32 */
	p_head(&P, 1, 28, 50, 7, 11, 7);
	for (int i = 0; i < 16; i++)
		p_op(&P, OP_INS_REM, (uint8_t) i);
	p_op(&P, OP_BULK, 20);
	p_op(&P, OP_REMOVE, 2);
	p_op(&P, OP_SERIALISE, 0);
	emit_prog("other_f32", &P);

	/* default kicks (500), b=4 small table filled by bulk */
	p_head(&P, 1, 8, 255, 5, 2, 8);
	p_op(&P, OP_BULK, 30);
	p_op(&P, OP_BULK, 0x80 | 10);
	p_op(&P, OP_REMOVE, 0);
	p_op(&P, OP_SHRINK, 3);
	emit_prog("default_kicks", &P);

	/* a long mixed program from a fixed generator */
	{
		uint64_t	s = 12345;

		p_head(&P, 1, 5, 7, 9, 1, 9);
		for (int i = 0; i < 120; i++)
		{
			uint8_t		op;

			s = fz_mix(s);
			op = (uint8_t) (s % 16);
			if (op == OP_UNION || op == OP_BULK)
				op = OP_INSERT;
			p_op(&P, op, (uint8_t) (s >> 8));
		}
		emit_prog("mixed", &P);
	}

	/* a long program over every opcode, b = 8, small table */
	{
		uint64_t	s = 777;

		p_head(&P, 2, 2, 3, 6, 0, 11);
		for (int i = 0; i < 280; i++)
		{
			s = fz_mix(s);
			p_op(&P, (uint8_t) (s % 16), (uint8_t) (s >> 8));
		}
		emit_prog("mixed_long", &P);
	}

	/* large semi-sorted table with default kicks, union at the end */
	p_head(&P, 1 | 0x40 | 0x80, 9, 40, 3, 4, 10);
	p_op(&P, OP_BULK, 63);
	p_op(&P, OP_DUP, 1);
	p_op(&P, OP_UNION, 15);
	for (int i = 0; i < 16; i++)
		p_raw(&P, (uint8_t) (i * 5));
	p_op(&P, OP_SHRINK, 0);
	p_op(&P, OP_SERIALISE, 0);
	emit_prog("large_semisort_union", &P);

	/* ---- version 2 (growing / rotating) ---- */
	{
		struct
		{
			const char *name;
			uint32_t	m0,
						f,
						t,
						g,
						n,
						rot,
						keep;
		}			v2s[] = {
			{"v2_grow_f6_t9_empty", 4, 6, 9, 0, 0, 0, 0},
			{"v2_grow_f6_t9_m1_grown", 1, 6, 9, 0, 60, 0, 0},
			{"v2_grow_f8_t9_m8_grown", 8, 8, 9, 0, 150, 0, 0},
			{"v2_grow_f4_t3_m2_grown", 2, 4, 3, 0, 90, 0, 0},
			{"v2_grow_f6_t9_g2_rotated", 4, 6, 9, 2, 40, 2, 2},
			{"v2_grow_f5_t6_g3_rotated", 3, 5, 6, 3, 50, 3, 4},
			{"v2_fixed_f10_g1", 8, 10, 0, 1, 20, 0, 0},
			{"v2_fixed_f7_g2_rotated", 4, 7, 0, 2, 12, 1, 3},
			/* the address budget (docs/FORMAT.md 13.12): t = T(k0), k0 = 0 */
			{"v2_budget_f6_m1_grown", 1, 6, 99, 0, 300, 0, 0},
			{"v2_budget_f8_g2_rotated", 4, 8, 99, 2, 80, 2, 2},
		};

		for (size_t x = 0; x < sizeof v2s / sizeof v2s[0]; x++)
		{
			cf_params	q = ref_params(v2s[x].m0, 4, v2s[x].f, false, 500, CF_KIND_INTEGER, 0, v2s[x].m0 * 3);
			cf_filter	cf;
			size_t		len;

			q.tail_bits = v2s[x].t;
			q.expansion = v2s[x].t ? 2 : 0;
			q.gen_bits = v2s[x].g;
			if (v2s[x].t == 99)
			{
				q.budget = true;
				q.tail_bits = (uint32_t) cf_budget_tail(v2s[x].m0, 0, v2s[x].f, v2s[x].g);
			}
			len = (size_t) cf_init_bytes(&q);
			g.p = malloc(len);
			cf_init(g.p, &q);
			cf_open(&cf, g.p, len);
			for (uint32_t r = 0; r <= v2s[x].rot; r++)
			{
				for (uint32_t i = 0; i < v2s[x].n; i++)
					(void) cf_insert(&cf, fz_mix(x * 100000 + r * 1000 + i));
				if (r < v2s[x].rot)
				{
					size_t		rl = cf_rotate_bytes(&cf, v2s[x].keep);
					uint8_t    *rb = malloc(rl);

					cf_rotate(&cf, v2s[x].keep, rb);
					free(cf.buf);
					cf_open(&cf, rb, rl);
				}
			}
			g.p = cf.buf;
			g.len = cf.len;
			emit(v2s[x].name, &g);
			free(cf.buf);
		}
		/* a version-1 filter with its victim slot in use, rotated */
		g = make(4, 4, 8, false, 20, CF_KIND_INTEGER, 0);
		fill_to_victim(&g, 99, CF_KIND_INTEGER);
		{
			size_t		rl = cf_rotate_bytes(&g.cf, 3);
			gf			r;

			r.p = malloc(rl);
			r.len = rl;
			cf_rotate(&g.cf, 3, r.p);
			cf_open(&r.cf, r.p, rl);
			emit("v2_from_v1_victim_rotated", &r);
			free(r.p);
		}
		free(g.p);
	}
	/* version-2 programs: growth from one bucket, rotation, union, compaction */
	p_head(&P, 63, 2, 9, 0, 0, 7);
	p_op(&P, OP_BULK, 63);
	p_op(&P, OP_REMOVE, 1);
	p_op(&P, 8, 0);
	p_op(&P, 9, 20);
	p_op(&P, 11, 0);
	emit_prog("v2_grow_union_compact", &P);
	/* the same with the address budget (byte 2's bit 7), unions across
	 * the flag (argument bit 6) */
	p_head(&P, 63, 2, 0x80 | 9, 0, 0, 7);
	p_op(&P, OP_BULK, 63);
	p_op(&P, OP_REMOVE, 1);
	p_op(&P, 8, 0);
	p_op(&P, 9, 20);
	p_op(&P, 9, 0x40 | 20);
	p_op(&P, 11, 0);
	emit_prog("v2_budget_grow_union_compact", &P);
	p_head(&P, 63, 0, 3, 3, 2, 5);
	for (int i = 0; i < 40; i++)
	{
		p_op(&P, (uint8_t) (i % 3 == 0 ? 10 : 0), (uint8_t) (i * 7));
		p_op(&P, OP_REMOVE, (uint8_t) i);
		if (i % 8 == 7)
			p_op(&P, 7, 3);
	}
	emit_prog("v2_rotate_remove", &P);
	p_head(&P, 63, 6, 0, 2, 5, 8);
	p_op(&P, OP_BULK, 20);
	p_op(&P, 7, 1);
	p_op(&P, OP_DUP, 3);
	p_op(&P, 14, 3);
	p_op(&P, 13, 0);
	emit_prog("v2_fixed_rotate", &P);

	printf("gen_corpus: wrote %d files under %s\n", n_written, outdir);
	return 0;
}
