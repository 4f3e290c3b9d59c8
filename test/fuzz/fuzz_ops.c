/*
 * fuzz_ops.c
 *     libFuzzer harness (b): the input is a program of filter operations,
 *     run against an exact model.
 *
 * Program layout (see README.md):
 *   byte 0   shape: b = {2,4,8}[(d0 & 63) % 3]; bit 6 semi-sorting (b = 4 only);
 *            bit 7 a "large" table (c * 2^1 buckets, c = 128..159) instead of
 *            a small one (1..64 buckets)
 *   byte 1   f = 4 + d1 % 29
 *   byte 2   max_kicks = d2 % 51 (255: the default 500)
 *   byte 3   bucket count selector
 *   byte 4   value kind: d4 % 12 (0 = ANY: the kind is set before the first
 *            insert, as the header requires); OTHER gets a non-zero tag
 *   byte 5   salt of the hash alphabet and capacity selector
 *   then     (opcode, argument) byte pairs; see the OP_* list below.
 *
 * Items are 64-bit hashes from a 64-value alphabet (fz_mix of salt and
 * index), so duplicates, collisions and removals of present items are
 * common; a "bulk" opcode adds fresh hashes to fill larger tables.
 *
 * The model is the multiset of hashes successfully stored.  Invariants after
 * every step: every model hash is found (no false negatives), cf_count(h) >=
 * its multiplicity, cf_items == model size, cf_validate accepts.  Per
 * operation: exact status semantics (bytes unchanged on EXISTS / FULL /
 * TOO_MANY_COPIES, count +1 on a store, -1 on a remove, victim flag
 * consistent with OK_STASHED / FULL).  After a union (count(h) afterwards must
 * equal max(count in a, count in b) for every h) the model only tracks
 * membership: the multiset is no longer exact when distinct hashes share a
 * (bucket pair, fingerprint) key, so count / size equalities and removals
 * stop; no false negatives is still checked.
 */
#include "fuzz_common.h"

#define ERRLEN 256
#define ALPHABET 64
#define MAX_OPS 512

/* ---- model: distinct hashes with multiplicities ---- */
typedef struct model
{
	uint64_t   *h;
	uint32_t   *mult;
	size_t		n,
				cap;
	uint64_t	size;			/* sum of mult (exact mode) */
	bool		exact;
	uint64_t	gen;			/* changes whenever the model does */
} model;

static uint64_t model_gen_counter;

static void
model_init(model *md)
{
	memset(md, 0, sizeof *md);
	md->exact = true;
	md->gen = ++model_gen_counter;
}

static void
model_free(model *md)
{
	free(md->h);
	free(md->mult);
	memset(md, 0, sizeof *md);
}

static long
model_find(const model *md, uint64_t h)
{
	for (size_t i = 0; i < md->n; i++)
		if (md->h[i] == h)
			return (long) i;
	return -1;
}

static uint32_t
model_mult(const model *md, uint64_t h)
{
	long		i = model_find(md, h);

	return i < 0 ? 0 : md->mult[i];
}

static void
model_add(model *md, uint64_t h)
{
	long		i = model_find(md, h);

	if (i < 0)
	{
		if (md->n == md->cap)
		{
			md->cap = md->cap ? md->cap * 2 : 64;
			md->h = realloc(md->h, md->cap * sizeof *md->h);
			md->mult = realloc(md->mult, md->cap * sizeof *md->mult);
			FZ_CHECK(md->h && md->mult, "oom");
		}
		i = (long) md->n++;
		md->h[i] = h;
		md->mult[i] = 0;
	}
	md->mult[i]++;
	md->size++;
	md->gen = ++model_gen_counter;
}

static void
model_del(model *md, uint64_t h)
{
	long		i = model_find(md, h);

	FZ_CHECK(i >= 0 && md->mult[i] > 0, "model_del of an absent hash");
	md->mult[i]--;
	md->size--;
	md->gen = ++model_gen_counter;
}

/* The j-th hash with non-zero multiplicity (j taken modulo their number). */
static bool
model_pick(const model *md, uint32_t j, uint64_t *h)
{
	size_t		live = 0;

	for (size_t i = 0; i < md->n; i++)
		live += md->mult[i] > 0;
	if (live == 0)
		return false;
	j %= live;
	for (size_t i = 0; i < md->n; i++)
		if (md->mult[i] > 0 && j-- == 0)
		{
			*h = md->h[i];
			return true;
		}
	return false;
}

/* ---- filters ---- */
typedef struct flt
{
	uint8_t    *p;
	size_t		len;
	cf_filter	cf;
} flt;

static void
flt_new(flt *F, const cf_params *p)
{
	char		err[ERRLEN];

	FZ_CHECK(cf_check_params(p, err, sizeof err), "params rejected: %s", err);
	F->len = cf_total_bytes(p->num_buckets, p->bucket_size, p->fp_bits, p->semisort);
	F->p = malloc(F->len);
	FZ_CHECK(F->p != NULL, "oom");
	cf_init(F->p, p);
	cf_open(&F->cf, F->p, F->len);
}

static void
flt_free(flt *F)
{
	free(F->p);
	F->p = NULL;
}

/* ---- program context ---- */
typedef struct prog
{
	uint16_t	kind;			/* kind to record before the first insert */
	uint32_t	tag;
	uint64_t	salt;
	uint64_t	fresh;			/* counter of fresh hashes */
} prog;

static uint64_t
alpha(const prog *P, uint32_t idx)
{
	return fz_mix((P->salt << 16) ^ idx);
}

static uint64_t
fresh(prog *P)
{
	return fz_mix((UINT64_C(1) << 40) ^ (P->salt << 24) ^ ++P->fresh);
}

static void
check_valid(const flt *F, const char *what)
{
	char		err[ERRLEN];

	FZ_CHECK(cf_validate(F->p, F->len, err, sizeof err), "%s: cf_validate: %s", what, err);
}

/* The invariants of the model, checked after every step. */
static void
check_model(const flt *F, const model *md, const char *what)
{
	static uint8_t *last;		/* bytes and model state last checked */
	static size_t last_len;
	static uint64_t last_gen = UINT64_MAX;

	/*
	 * The calls are pure functions of the bytes: if neither the bytes nor the
	 * model changed since the last full check, its verdict stands.
	 */
	if (md->gen == last_gen && last && last_len == F->len &&
		memcmp(last, F->p, F->len) == 0)
		return;
	check_valid(F, what);
	for (size_t i = 0; i < md->n; i++)
	{
		if (md->mult[i] == 0)
			continue;
		FZ_CHECK(cf_contains(&F->cf, md->h[i]),
				 "%s: FALSE NEGATIVE for hash %016llx (multiplicity %u)", what,
				 (unsigned long long) md->h[i], md->mult[i]);
		if (md->exact)
			FZ_CHECK(cf_count(&F->cf, md->h[i]) >= md->mult[i],
					 "%s: count %u < multiplicity %u", what,
					 cf_count(&F->cf, md->h[i]), md->mult[i]);
	}
	if (md->exact)
		FZ_CHECK(cf_items(&F->cf) == md->size, "%s: items %llu, model %llu", what,
				 (unsigned long long) cf_items(&F->cf), (unsigned long long) md->size);
	/* the batched lookup answers as the single one, for every model hash */
	if (md->n > 0)
	{
		bool	   *out = malloc(md->n * sizeof(bool));

		FZ_CHECK(out != NULL, "oom");
		cf_contains_many(&F->cf, md->h, md->n, out);
		for (size_t i = 0; i < md->n; i++)
			FZ_CHECK(out[i] == cf_contains(&F->cf, md->h[i]),
					 "%s: cf_contains_many differs from cf_contains for hash %016llx", what,
					 (unsigned long long) md->h[i]);
		free(out);
	}
	free(last);
	last = fz_dup(F->p, F->len);
	last_len = F->len;
	last_gen = md->gen;
}

/* Insert with full status checks; updates the model on success. */
static cf_status
do_insert(const prog *P, flt *F, model *md, uint64_t h, bool if_absent)
{
	uint8_t    *before;
	uint64_t	items = cf_items(&F->cf);
	bool		victim = cf_victim_used(&F->cf);
	bool		had = cf_contains(&F->cf, h);
	uint32_t	cnt = cf_count(&F->cf, h);
	uint32_t	fp,
				i1,
				i2;
	cf_status	st;

	if (cf_kind_of(&F->cf) == CF_KIND_ANY)
		cf_set_kind(&F->cf, P->kind, P->tag);	/* required before an insert */
	before = fz_dup(F->p, F->len);
	cf_locate(&F->cf, h, &fp, &i1);
	i2 = cf_alt_bucket(&F->cf, i1, fp);

	st = if_absent ? cf_insert_if_absent(&F->cf, h) : cf_insert(&F->cf, h);
	switch (st)
	{
		case CF_OK:
		case CF_OK_STASHED:
			FZ_CHECK(!(if_absent && had), "insert_if_absent stored a present item");
			FZ_CHECK(cf_items(&F->cf) == items + 1, "items %llu -> %llu on a store",
					 (unsigned long long) items, (unsigned long long) cf_items(&F->cf));
			FZ_CHECK(cf_count(&F->cf, h) == cnt + 1, "count %u -> %u on a store",
					 cnt, cf_count(&F->cf, h));
			if (st == CF_OK)
				FZ_CHECK(cf_victim_used(&F->cf) == victim, "CF_OK changed the victim flag");
			else
				FZ_CHECK(!victim && cf_victim_used(&F->cf),
						 "CF_OK_STASHED but the victim slot was already used or is not now");
			model_add(md, h);
			break;
		case CF_EXISTS:
			FZ_CHECK(if_absent && had, "CF_EXISTS from %s (present %d)",
					 if_absent ? "insert_if_absent" : "insert", (int) had);
			FZ_CHECK(memcmp(before, F->p, F->len) == 0, "CF_EXISTS changed the bytes");
			break;
		case CF_FULL:
			FZ_CHECK(victim, "CF_FULL while the victim slot is free");
			FZ_CHECK(!(if_absent && had), "CF_FULL for a present item from insert_if_absent");
			FZ_CHECK(memcmp(before, F->p, F->len) == 0, "CF_FULL changed the bytes");
			break;
		case CF_TOO_MANY_COPIES:
			FZ_CHECK(cnt >= (i1 == i2 ? F->cf.b : 2 * F->cf.b),
					 "CF_TOO_MANY_COPIES with only %u copies (b=%u, i1=%u, i2=%u)",
					 cnt, F->cf.b, i1, i2);
			FZ_CHECK(memcmp(before, F->p, F->len) == 0, "CF_TOO_MANY_COPIES changed the bytes");
			break;
		default:
			FZ_CHECK(0, "insert returned status %d", (int) st);
	}
	free(before);
	return st;
}

/* Remove of a hash in the model (exact mode): must succeed, -1 item, -1 copy. */
static void
do_remove_present(flt *F, model *md, uint64_t h)
{
	uint64_t	items = cf_items(&F->cf);
	uint32_t	cnt = cf_count(&F->cf, h);

	FZ_CHECK(md->exact && model_mult(md, h) > 0, "harness: remove of a non-model hash");
	FZ_CHECK(cf_remove(&F->cf, h), "remove of a stored item (multiplicity %u, count %u) "
			 "returned false", model_mult(md, h), cnt);
	FZ_CHECK(cf_items(&F->cf) == items - 1, "items %llu -> %llu on remove",
			 (unsigned long long) items, (unsigned long long) cf_items(&F->cf));
	FZ_CHECK(cf_count(&F->cf, h) == cnt - 1, "count %u -> %u on remove", cnt,
			 cf_count(&F->cf, h));
	model_del(md, h);
}

/* Shrink: rehash into the shrink target; on success the result replaces F. */
static void
do_shrink(flt *F, model *md, bool same_size)
{
	cf_params	p;
	flt			D;
	uint8_t    *before = fz_dup(F->p, F->len);
	uint32_t	target = same_size ? F->cf.m : cf_shrink_target(&F->cf);
	cf_status	st;

	FZ_CHECK(target >= 1 && target <= F->cf.m, "shrink target %u for %u buckets",
			 target, F->cf.m);
	cf_get_params(&F->cf, &p);
	p.num_buckets = target;
	if (p.capacity > (uint64_t) target * p.bucket_size)
		p.capacity = (uint64_t) target * p.bucket_size;
	flt_new(&D, &p);
	{
		/* a destination of another layout is refused untouched */
		cf_params	q = p;
		flt			X;
		uint8_t    *xb;

		q.fp_bits = q.fp_bits < 32 ? q.fp_bits + 1 : q.fp_bits - 1;
		flt_new(&X, &q);
		xb = fz_dup(X.p, X.len);
		FZ_CHECK(cf_rehash_into(&F->cf, &X.cf) == CF_SHAPE_MISMATCH,
				 "rehash into a different fingerprint size not refused");
		FZ_CHECK(memcmp(xb, X.p, X.len) == 0, "refused rehash changed its destination");
		free(xb);
		flt_free(&X);
	}
	st = cf_rehash_into(&F->cf, &D.cf);
	FZ_CHECK(memcmp(before, F->p, F->len) == 0, "rehash changed its source");
	FZ_CHECK(st == CF_OK || st == CF_FULL, "rehash status %d", (int) st);
	check_valid(&D, "rehash result");
	if (st == CF_OK)
	{
		FZ_CHECK(cf_items(&D.cf) == cf_items(&F->cf), "rehash: items %llu -> %llu",
				 (unsigned long long) cf_items(&F->cf), (unsigned long long) cf_items(&D.cf));
		/* keys may merge in the smaller table, so counts can only grow */
		for (size_t i = 0; i < md->n; i++)
			if (md->mult[i] > 0)
				FZ_CHECK(cf_count(&D.cf, md->h[i]) >= cf_count(&F->cf, md->h[i]),
						 "rehash: count of a stored hash fell from %u to %u",
						 cf_count(&F->cf, md->h[i]), cf_count(&D.cf, md->h[i]));
		flt_free(F);
		*F = D;
		cf_open(&F->cf, F->p, F->len);
	}
	else
		flt_free(&D);
	free(before);
}

/* Base64 round trip through exact-size buffers. */
static void
do_serialise(const flt *F)
{
	size_t		elen = cf_b64_encoded_len(F->len);
	char	   *enc = malloc(elen);
	uint8_t    *dec;
	size_t		dlen = 0;
	char		err[ERRLEN];
	const char *why = "";

	FZ_CHECK(enc != NULL, "oom");
	cf_b64_encode(F->p, F->len, enc);
	FZ_CHECK(cf_b64_decoded_len(enc, elen, &dlen) && dlen == F->len,
			 "decoded_len %zu for %zu bytes", dlen, F->len);
	dec = malloc(dlen);
	FZ_CHECK(dec != NULL, "oom");
	FZ_CHECK(cf_b64_decode(enc, elen, dec), "decode rejects the encoder's text");
	FZ_CHECK(memcmp(dec, F->p, F->len) == 0, "base64 round trip changed the bytes");
	FZ_CHECK(cf_validate(dec, dlen, err, sizeof err), "decoded filter: %s", err);
	FZ_CHECK(ref_valid(dec, dlen, &why), "reference validator rejects (%s)", why);
	free(dec);
	free(enc);
}

/* Union with a second filter of the same shape built from the next bytes. */
static size_t
do_union(prog *P, flt *A, model *ma, const uint8_t *d, size_t n, uint8_t arg)
{
	cf_params	p;
	flt			B;
	model		mb;
	size_t		used = 0;
	uint32_t	nb = 1 + arg % 24;
	uint64_t	ia,
				ib;
	uint64_t	probe[8];
	uint32_t   *ca,
			   *cb,
			   *cpa,
			   *cpb;
	size_t		nall;
	cf_status	st;

	uint64_t	cap_a,
				cap_max;

	cf_get_params(&A->cf, &p);
	if (p.kind == CF_KIND_ANY && (arg & 0x80))
	{
		p.kind = P->kind;		/* B has recorded the kind, A has not */
		p.type_tag = P->tag;
	}
	/* B's rated capacity differs from A's at times: the union takes the larger */
	cap_a = p.capacity;
	if (arg & 0x40)
		p.capacity = 1 + (p.capacity * 7 + arg) % ((uint64_t) p.num_buckets * p.bucket_size);
	cap_max = p.capacity > cap_a ? p.capacity : cap_a;
	flt_new(&B, &p);
	model_init(&mb);
	/* B draws from a wider alphabet: some hashes shared with A, some not */
	for (uint32_t j = 0; j < nb && used < n; j++, used++)
		(void) do_insert(P, &B, &mb, alpha(P, d[used] % (ALPHABET + 32)), false);
	check_model(&B, &mb, "union operand");

	/* counts before, for every hash of either model and a few probes */
	nall = ma->n + mb.n;
	ca = calloc(nall + 1, sizeof *ca);
	cb = calloc(nall + 1, sizeof *cb);
	cpa = calloc(8, sizeof *cpa);
	cpb = calloc(8, sizeof *cpb);
	FZ_CHECK(ca && cb && cpa && cpb, "oom");
	for (size_t i = 0; i < nall; i++)
	{
		uint64_t	h = i < ma->n ? ma->h[i] : mb.h[i - ma->n];

		ca[i] = cf_count(&A->cf, h);
		cb[i] = cf_count(&B.cf, h);
	}
	for (int x = 0; x < 8; x++)
	{
		probe[x] = x < 4 ? alpha(P, (uint32_t) (arg + x) % ALPHABET) : fresh(P);
		cpa[x] = cf_count(&A->cf, probe[x]);
		cpb[x] = cf_count(&B.cf, probe[x]);
	}
	ia = cf_items(&A->cf);
	ib = cf_items(&B.cf);

	st = cf_union_into(&A->cf, &B.cf);
	FZ_CHECK(st == CF_OK || st == CF_FULL, "union status %d", (int) st);
	check_valid(A, "after union");
	check_model(&B, &mb, "union source after union");
	FZ_CHECK(cf_capacity(&A->cf) == cap_max, "union: capacity %llu, want max(%llu, %llu)",
			 (unsigned long long) cf_capacity(&A->cf), (unsigned long long) cap_a,
			 (unsigned long long) cf_capacity(&B.cf));
	if (st == CF_OK)
	{
		uint64_t	iu = cf_items(&A->cf);

		FZ_CHECK(iu >= (ia > ib ? ia : ib) && iu <= ia + ib,
				 "union: items %llu outside [max(%llu, %llu), sum]",
				 (unsigned long long) iu, (unsigned long long) ia, (unsigned long long) ib);
		/* per (bucket pair, fingerprint) key the result is the larger count */
		for (size_t i = 0; i < nall; i++)
		{
			uint64_t	h = i < ma->n ? ma->h[i] : mb.h[i - ma->n];
			uint32_t	want = ca[i] > cb[i] ? ca[i] : cb[i];

			FZ_CHECK(cf_count(&A->cf, h) == want,
					 "union: count %u, want max(%u, %u)", cf_count(&A->cf, h), ca[i], cb[i]);
		}
		for (int x = 0; x < 8; x++)
		{
			uint32_t	want = cpa[x] > cpb[x] ? cpa[x] : cpb[x];

			FZ_CHECK(cf_count(&A->cf, probe[x]) == want,
					 "union: probe count %u, want max(%u, %u)",
					 cf_count(&A->cf, probe[x]), cpa[x], cpb[x]);
		}
		/* B's items are members now (multiplicities no longer meaningful) */
		for (size_t i = 0; i < mb.n; i++)
			if (mb.mult[i] > 0 && model_mult(ma, mb.h[i]) == 0)
				model_add(ma, mb.h[i]);
	}
	else
	{
		/* partly merged: A's own items are all still there (checked by the
		 * caller); counts of A are no longer known */
		for (size_t i = 0; i < ma->n; i++)
			if (ma->mult[i] > 0)
				FZ_CHECK(cf_count(&A->cf, ma->h[i]) >= ca[i],
						 "failed union lowered a count");
	}
	ma->exact = false;			/* membership only from now on */
	ma->gen = ++model_gen_counter;
	free(ca);
	free(cb);
	free(cpa);
	free(cpb);
	model_free(&mb);
	flt_free(&B);
	return used;
}

/* Union with a filter of another shape or kind: refused, nothing changed. */
static void
do_union_mismatch(prog *P, flt *A, uint8_t arg)
{
	cf_params	p;
	flt			B;
	uint8_t    *before = fz_dup(A->p, A->len);
	cf_status	st,
				want;
	model		mb;

	cf_get_params(&A->cf, &p);
	switch (arg % 3)
	{
		case 0:
			p.fp_bits = p.fp_bits < 32 ? p.fp_bits + 1 : p.fp_bits - 1;
			want = CF_SHAPE_MISMATCH;
			break;
		case 1:
			p.num_buckets = p.num_buckets > 1 ? p.num_buckets - 1 : 2;
			if (p.capacity > (uint64_t) p.num_buckets * p.bucket_size)
				p.capacity = (uint64_t) p.num_buckets * p.bucket_size;
			want = CF_SHAPE_MISMATCH;
			break;
		default:
			if (p.kind == CF_KIND_ANY)
			{
				free(before);
				return;			/* an ANY filter takes any kind */
			}
			p.kind = (uint16_t) (p.kind == CF_KIND_INTEGER ? CF_KIND_TEXT : CF_KIND_INTEGER);
			p.type_tag = 0;
			want = CF_KIND_MISMATCH;
			break;
	}
	if (!cf_buckets_representable(p.num_buckets))
	{
		free(before);
		return;
	}
	flt_new(&B, &p);
	model_init(&mb);
	{
		prog		Q = *P;

		Q.kind = p.kind;
		Q.tag = p.type_tag;
		(void) do_insert(&Q, &B, &mb, alpha(P, arg), false);
	}
	st = cf_union_into(&A->cf, &B.cf);
	FZ_CHECK(st == want, "mismatched union: status %d, want %d", (int) st, (int) want);
	FZ_CHECK(memcmp(before, A->p, A->len) == 0, "a refused union changed the filter");
	model_free(&mb);
	flt_free(&B);
	free(before);
}

/* ======================================================================
 * Version-2 programs (growing and rotating filters): byte 0 with
 * (d0 & 63) == 63 (every input in the FUZZ_V2_ONLY build, fuzz_ops2).
 *   byte 1   f = 4 + d1 % 12
 *   byte 2   t = d2 % 10 (0 or 1: a fixed version-2 filter, then g >= 1)
 *   byte 3   g = d3 % 4
 *   byte 4   m0 = 1 + d4 % 40 buckets
 *   byte 5   salt; max_kicks = d5 % 4 == 0 ? d5 % 13 : 500
 *   then (opcode, argument) pairs:
 *     0-2 insert a value of the alphabet   4-5 remove a live value
 *     3 insert_if_absent (a present value with no entry of the current
 *       generation: its entries and its adds move to it)
 *     6 lookup                              7 rotate, keep = 1 + arg % 6
 *     8 compact                             9 union with a fresh filter of
 *                                             the same creation shape
 *     10 bulk fresh inserts (growth)       11 serialise / validate / info
 *     12 one value until refused            13 remove every copy of a value
 *     14 insert with a refusing realloc hook (CF_FULL: bytes unchanged)
 *     15 lookups of fresh values (contains == count > 0)
 * The model: per value, the absolute generations of its live adds; remove
 * drops the oldest add, rotate the adds older than keep.  After every step:
 * no false negative, cf_validate and the reference validator accept, and
 * while the model is exact and no rotation happened, cf_items is its size.
 * A union makes the model inexact (membership only, removals stop).
 * ====================================================================== */
typedef struct v2val
{
	uint64_t	h;
	uint32_t	n;
	uint32_t	gen[16];
} v2val;

typedef struct v2model
{
	v2val		v[ALPHABET + 600];
	uint32_t	nv;
	uint32_t	cur;
	bool		exact;
	bool		rotated;
} v2model;

static v2val *
v2m_find(v2model *M, uint64_t h, bool create)
{
	for (uint32_t i = 0; i < M->nv; i++)
		if (M->v[i].h == h)
			return &M->v[i];
	if (!create || M->nv == sizeof M->v / sizeof M->v[0])
		return NULL;
	M->v[M->nv].h = h;
	M->v[M->nv].n = 0;
	return &M->v[M->nv++];
}

static uint64_t
v2m_size(const v2model *M)
{
	uint64_t	n = 0;

	for (uint32_t i = 0; i < M->nv; i++)
		n += M->v[i].n;
	return n;
}

static void
v2_check(const cf_filter *cf, const v2model *M, const char *what)
{
	char		err[ERRLEN];
	const char *why = "";
	static uint8_t *last;		/* bytes, view and model last checked */
	static size_t last_len;
	static cf_filter last_cf;
	static v2model *last_m;

	/*
	 * As in check_model: the checks are pure functions of the view and its
	 * bytes, so if neither they nor the model changed since the last full
	 * check, its verdict stands (most lookups and refused operations).
	 */
	if (last && last_m && last_len == cf->len && memcmp(&last_cf, cf, sizeof *cf) == 0 &&
		memcmp(last, cf->buf, cf->len) == 0 && last_m->nv == M->nv &&
		last_m->exact == M->exact && last_m->rotated == M->rotated && last_m->cur == M->cur &&
		memcmp(last_m->v, M->v, M->nv * sizeof M->v[0]) == 0)
		return;
	FZ_CHECK(cf_validate(cf->buf, cf->len, err, sizeof err), "%s: invalid: %s", what, err);
	FZ_CHECK(ref_v2_valid(cf->buf, cf->len, &why), "%s: reference rejects: %s", what, why);
	for (uint32_t i = 0; i < M->nv; i++)
	{
		if (!M->v[i].n)
			continue;
		FZ_CHECK(cf_contains(cf, M->v[i].h), "%s: false negative (value %u, %u adds)", what, i, M->v[i].n);
		FZ_CHECK(!M->exact || cf_count(cf, M->v[i].h) >= M->v[i].n || M->rotated,
				 "%s: count %u below %u adds", what, cf_count(cf, M->v[i].h), M->v[i].n);
	}
	if (M->exact && !M->rotated)
		FZ_CHECK(cf_items(cf) == v2m_size(M), "%s: items %llu, model %llu", what,
				 (unsigned long long) cf_items(cf), (unsigned long long) v2m_size(M));
	free(last);
	last = fz_dup(cf->buf, cf->len);
	last_len = cf->len;
	memcpy(&last_cf, cf, sizeof *cf);
	if (!last_m)
		last_m = malloc(sizeof *last_m);
	FZ_CHECK(last_m != NULL, "oom");
	memcpy(last_m, M, sizeof *M);
}

static int	v2_hook_calls;

static void *
v2_null_realloc(void *buf, size_t n)
{
	(void) buf;
	(void) n;
	v2_hook_calls++;
	return NULL;
}

static cf_status
v2_insert(cf_filter *cf, v2model *M, uint64_t h)
{
	v2val	   *x = v2m_find(M, h, true);
	cf_status	st;

	if (x == NULL || x->n >= 16)
		return CF_FULL;
	st = cf_insert(cf, h);
	FZ_CHECK(st == CF_OK || st == CF_OK_STASHED || st == CF_FULL || st == CF_TOO_MANY_COPIES,
			 "v2 insert status %d", (int) st);
	if (st == CF_OK || st == CF_OK_STASHED)
		x->gen[x->n++] = M->cur;
	FZ_CHECK((st == CF_OK_STASHED) <= cf_victim_used(cf), "CF_OK_STASHED without the victim");
	return st;
}

/*
 * insert_if_absent: a value the filter reports is not stored again.  When
 * none of its matching entries is of the current generation, the filter
 * raises them all to it (the bytes change); the value's live adds in the
 * model then live with the current generation.  (When a matching entry of
 * the current generation exists, possibly another value's, nothing
 * changes, and neither does the model.)
 */
static cf_status
v2_insert_if_absent(cf_filter *cf, v2model *M, uint64_t h)
{
	v2val	   *x = v2m_find(M, h, true);
	bool		had = cf_contains(cf, h);
	uint64_t	items0 = cf_items(cf);
	uint8_t    *before;
	bool		raised;
	cf_status	st;

	if (x == NULL || x->n >= 16)
		return CF_FULL;
	before = fz_dup(cf->buf, cf->len);
	st = cf_insert_if_absent(cf, h);
	raised = st == CF_EXISTS && memcmp(before, cf->buf, cf->len) != 0;
	free(before);
	FZ_CHECK(st == CF_OK || st == CF_OK_STASHED || st == CF_EXISTS || st == CF_FULL ||
			 st == CF_TOO_MANY_COPIES, "v2 insert_if_absent status %d", (int) st);
	FZ_CHECK((st == CF_EXISTS) == had, "insert_if_absent: CF_EXISTS %d, reported before %d",
			 (int) (st == CF_EXISTS), (int) had);
	if (st == CF_EXISTS)
	{
		FZ_CHECK(cf_items(cf) == items0, "insert_if_absent of a present value changed items");
		FZ_CHECK(!raised || cf_version(cf) == 2, "insert_if_absent of a present value changed a version-1 filter");
		for (uint32_t z = 0; z < x->n && raised; z++)
			x->gen[z] = M->cur;
	}
	else if (st == CF_OK || st == CF_OK_STASHED)
		x->gen[x->n++] = M->cur;
	return st;
}

static void
v2_remove(cf_filter *cf, v2model *M, v2val *x)
{
	uint32_t	oi = 0;

	FZ_CHECK(cf_remove(cf, x->h), "v2: remove of a live value failed");
	for (uint32_t z = 1; z < x->n; z++)
		if (x->gen[z] < x->gen[oi])
			oi = z;
	x->gen[oi] = x->gen[--x->n];
}

static v2val *
v2m_pick(v2model *M, uint32_t j)
{
	uint32_t	live = 0;

	for (uint32_t i = 0; i < M->nv; i++)
		live += M->v[i].n > 0;
	if (!live)
		return NULL;
	j %= live;
	for (uint32_t i = 0; i < M->nv; i++)
		if (M->v[i].n && j-- == 0)
			return &M->v[i];
	return NULL;
}

static void
run_v2(const uint8_t *d, size_t n)
{
	cf_params	p;
	cf_filter	A;
	v2model    *M = calloc(1, sizeof *M);
	char		err[ERRLEN];
	uint64_t	salt = d[5],
				fresh_ctr = 0;
	int			ops = 0;
	uint32_t	m_before = 0;
	size_t		len;

	FZ_CHECK(M, "oom");
	M->exact = true;
	memset(&p, 0, sizeof p);
	p.bucket_size = 4;
	p.fp_bits = 4 + d[1] % 12;
	p.tail_bits = d[2] % 10;
	if (p.tail_bits == 1)
		p.tail_bits = 0;
	p.gen_bits = d[3] % 4;
	p.expansion = p.tail_bits ? 2 : 0;
	if (!p.tail_bits && !p.gen_bits)
		p.gen_bits = 1;
	p.num_buckets = 1 + d[4] % 40;
	if (p.expansion == 2 && (d[2] & 0x80))
	{
		/* the address budget (docs/FORMAT.md 13.12): t = T(k0), k0 = 0
		 * here (m0 < 256); too wide a fingerprint keeps the old shape */
		int			tt = cf_budget_tail(p.num_buckets, 0, p.fp_bits, p.gen_bits);

		if (tt >= CF_V2_MIN_TAIL_BITS)
		{
			p.budget = true;
			p.tail_bits = (uint32_t) tt;
		}
	}
	p.max_kicks = d[5] % 4 == 0 ? d[5] % 13u : CF_DEFAULT_KICKS;
	p.kind = CF_KIND_INTEGER;
	p.capacity = 1 + d[5] % (p.num_buckets * 4);
	FZ_CHECK(cf_check_params(&p, err, sizeof err), "v2 params rejected: %s", err);
	len = (size_t) cf_init_bytes(&p);
	{
		uint8_t    *ab = memset(malloc(len), 0xAA, len);

		cf_init(ab, &p);
		cf_open(&A, ab, len);
	}
	v2_check(&A, M, "new v2 filter");

	for (size_t pos = 6; pos + 1 < n && ops < MAX_OPS; pos += 2, ops++)
	{
		uint8_t		op = d[pos] % 16,
					arg = d[pos + 1];
		uint64_t	h = fz_mix((salt << 32) ^ (arg % ALPHABET));
		v2val	   *x;

		switch (op)
		{
			case 0:
			case 1:
			case 2:
				(void) v2_insert(&A, M, h);
				break;
			case 3:
				(void) v2_insert_if_absent(&A, M, h);
				break;
			case 4:
			case 5:
				if (M->exact && (x = v2m_pick(M, arg)) != NULL)
					v2_remove(&A, M, x);
				break;
			case 6:
				FZ_CHECK(cf_contains(&A, h) == (cf_count(&A, h) > 0), "contains and count disagree");
				break;
			case 7:
				{
					uint32_t	keep = 1 + arg % 6;
					size_t		rl = cf_rotate_bytes(&A, keep);
					uint8_t    *rb;
					cf_filter	R;

					if (!rl)
						break;
					rb = malloc(rl);
					FZ_CHECK(rb, "oom");
					cf_rotate(&A, keep, rb);
					cf_open(&R, rb, rl);
					free(A.buf);
					A = R;
					M->cur++;
					M->rotated = true;
					for (uint32_t i = 0; i < M->nv; i++)
					{
						uint32_t	w = 0;

						for (uint32_t z = 0; z < M->v[i].n; z++)
							if (M->cur - M->v[i].gen[z] < keep)
								M->v[i].gen[w++] = M->v[i].gen[z];
						M->v[i].n = w;
					}
				}
				break;
			case 8:
				{
					size_t		cl = cf_compact_bytes(&A);
					uint8_t    *cb = cl ? malloc(cl) : NULL;

					FZ_CHECK(cl && cb, "compact bytes of a version-2 filter");
					if (cf_compact_into(&A, cb, cl) == CF_OK)
					{
						cf_filter	C;

						cf_open(&C, cb, cl);
						FZ_CHECK(cf_items(&C) == cf_items(&A), "compaction changed items");
						FZ_CHECK(C.m <= A.m, "compaction grew the table");
						free(A.buf);
						A = C;
					}
					else
						free(cb);
				}
				break;
			case 9:
				{
					cf_params	q;
					cf_filter	B;
					size_t		bl;
					cf_status	st;
					uint64_t	bh[24];
					uint32_t	nb = arg % 24;
					cf_info		ia;

					cf_get_params(&A, &q);
					if (q.expansion == 2 && (arg & 0x40) && q.budget)
					{
						/* union across the flag: the old shape into a
						 * budget filter */
						q.budget = false;
						q.tail_bits = 32 - q.fp_bits - q.gen_bits < 9 ? 32 - q.fp_bits - q.gen_bits : 9;
					}
					else if (q.expansion == 2 && (arg & 0x60) == 0x60)
					{
						/* a budget filter into the old shape (k0 = 0:
						 * m0 < 256 in these programs) */
						int			tt = q.num_buckets < 256 ?
							cf_budget_tail(q.num_buckets, 0, q.fp_bits, q.gen_bits) : 0;

						if (tt >= CF_V2_MIN_TAIL_BITS)
						{
							q.budget = true;
							q.tail_bits = (uint32_t) tt;
						}
					}
					else if (q.expansion == 2 && (arg & 0x40))
					{
						/*
						 * A growing filter with another tail: unions.
						 * Shorter by at most 2 bits, and only from 7 bits
						 * up (entries that know few bits are copied at
						 * every later split: correct, but programs full of
						 * them ran 5-10 s, 7x the buckets of the same
						 * program without).
						 */
						uint32_t	tmax = 32 - q.fp_bits - q.gen_bits,
									tlo = q.tail_bits >= 7 ? q.tail_bits - 2 : q.tail_bits;

						if (tmax > CF_V2_MAX_TAIL_BITS)
							tmax = CF_V2_MAX_TAIL_BITS;
						if (tmax > tlo && q.tail_bits >= tlo && q.tail_bits <= tmax)
							q.tail_bits = tlo + (q.tail_bits - tlo + 1 + (uint32_t) (arg >> 2) % (tmax - tlo)) %
								(tmax - tlo + 1);
					}
					bl = (size_t) cf_init_bytes(&q);
					{
						uint8_t    *bb = malloc(bl);

						cf_init(bb, &q);
						cf_open(&B, bb, bl);
					}
					for (uint32_t j = 0; j < nb; j++)
					{
						bh[j] = fz_mix((salt << 40) ^ (fresh_ctr++ + 1000));
						if (cf_insert(&B, bh[j]) != CF_OK)
							bh[j] = 0;
					}
					cf_get_info(&A, &ia);
					st = cf_union_into(&A, &B);
					if (ia.cur_gen != 0 || ia.keep != 0)
						FZ_CHECK(st == CF_SHAPE_MISMATCH, "union across generation states: %d", (int) st);
					else
					{
						FZ_CHECK(st == CF_OK || st == CF_FULL, "v2 union: %d", (int) st);
						M->exact = false;	/* CF_FULL: partly merged */
						if (st == CF_OK)
						{
							for (uint32_t j = 0; j < nb; j++)
							{
								if (!bh[j])
									continue;
								x = v2m_find(M, bh[j], true);
								if (x && x->n < 16)
									x->gen[x->n++] = M->cur;
							}
						}
					}
					free(B.buf);
				}
				break;
			case 10:
				for (uint32_t j = 0; j <= arg % 64u; j++)
					if (v2_insert(&A, M, fz_mix((salt << 48) ^ (fresh_ctr++ + 5000))) == CF_FULL)
						break;
				break;
			case 11:
				{
					cf_info		info;
					size_t		el = cf_b64_encoded_len(A.len),
								dl = 0;
					char	   *t = malloc(el);
					uint8_t    *b;

					cf_get_info(&A, &info);
					FZ_CHECK(info.version == 2 && info.entries >= cf_items(&A), "info");
					FZ_CHECK(cf_check_header(A.buf, A.len, NULL, 0), "check_header");
					cf_b64_encode(A.buf, A.len, t);
					FZ_CHECK(cf_b64_decoded_len(t, el, &dl) && dl == A.len, "b64 length");
					b = malloc(dl);
					FZ_CHECK(cf_b64_decode(t, el, b) && memcmp(b, A.buf, dl) == 0, "b64 round trip");
					free(b);
					free(t);
				}
				break;
			case 12:
				for (int j = 0; j < 10; j++)
				{
					cf_status	st = v2_insert(&A, M, h);

					if (st != CF_OK && st != CF_OK_STASHED)
						break;
				}
				break;
			case 13:
				if (M->exact && (x = v2m_pick(M, arg)) != NULL)
					while (x->n)
						v2_remove(&A, M, x);
				break;
			case 14:
				{
					uint8_t    *before = fz_dup(A.buf, A.len);
					size_t		bl = A.len;
					cf_status	st;

					uint64_t	items0 = cf_items(&A);

					v2_hook_calls = 0;
					cf_realloc_hook = v2_null_realloc;
					A.alloc = A.len;	/* no spare room: any growth asks the hook */
					st = v2_insert(&A, M, h);
					cf_realloc_hook = NULL;
					/* refused: the items did not change; the buckets may have
					 * been split before the hook refused (cf.h) */
					if (st == CF_FULL && v2_hook_calls && A.len == bl && A.m == 0)
						FZ_CHECK(memcmp(before, A.buf, bl) == 0, "unreachable");
					if (st == CF_FULL)
						FZ_CHECK(cf_items(&A) == items0, "a refused insert changed the items");
					free(before);
				}
				break;
			default:
				h = fz_mix((salt << 56) ^ (fresh_ctr++ + 90000));
				FZ_CHECK(cf_contains(&A, h) == (cf_count(&A, h) > 0), "contains and count disagree");
				break;
		}
		if (getenv("V2TRACE"))
		{
			cf_info		I;

			cf_get_info(&A, &I);
			fprintf(stderr, "step %d op %u arg %u: items %llu model %llu exact %d m %u entries %llu victim %d\n",
					ops, op, arg, (unsigned long long) cf_items(&A), (unsigned long long) v2m_size(M),
					(int) M->exact, A.m, (unsigned long long) I.entries, (int) cf_victim_used(&A));
		}
		v2_check(&A, M, "after v2 step");
		/*
		 * Proportional growth: a step that split buckets leaves no more than
		 * a small multiple of the buckets its items need at the growth load
		 * 0.9 (the core caps the relief at 4x the entries' need + 256; the
		 * entries exceed the items by the copies splits and unions make).
		 * The finding regress/ops2/growth-blowup.bin tripled the table at
		 * every refused insert: 211 -> 2,339,162 buckets for 313 items (its
		 * entries, mostly copies, grew with the table).
		 */
		if (m_before && A.m > m_before)
		{
			cf_info		I;

			/*
			 * ... or twice what its entries need: with few tail bits (t = 2
			 * or 3, which cuckoo_create never makes) or after unions of
			 * filters much smaller than the result, most entries know no
			 * spare bit and every split copies them, so the entries grow
			 * with the table at the growth load (DESIGN.md, "Growth and
			 * rotation": the copies)
			 */
			cf_get_info(&A, &I);
			FZ_CHECK((uint64_t) A.m <= 16 * (cf_items(&A) * 10 / 36 + 1) + 1024 ||
					 (uint64_t) A.m <= 2 * (I.entries * 10 / 36 + 1) + 1024,
					 "growth out of proportion: %u buckets for %llu items, %llu entries", A.m,
					 (unsigned long long) cf_items(&A), (unsigned long long) I.entries);
		}
		m_before = A.m;
	}
	free(A.buf);
	free(M);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const uint32_t bsz[3] = {2, 4, 8};
	cf_params	p;
	prog		P;
	flt			A;
	model		ma;
	size_t		pos;
	int			ops = 0;
	uint16_t	kind0;

	if (n < 6)
		return 0;
#ifdef FUZZ_V2_ONLY
	run_v2(d, n);
	return 0;
#endif
	if ((d[0] & 0x3F) == 63)
	{
		run_v2(d, n);
		return 0;
	}
	memset(&p, 0, sizeof p);
	p.bucket_size = bsz[(d[0] & 0x3F) % 3];
	p.semisort = p.bucket_size == 4 && (d[0] & 0x40);
	p.fp_bits = 4 + d[1] % 29;
	p.max_kicks = d[2] == 255 ? CF_DEFAULT_KICKS : d[2] % 51;
	if (d[0] & 0x80)
		p.num_buckets = (128u + d[3] % 32) << 1;
	else
		p.num_buckets = 1 + d[3] % 64;
	kind0 = (uint16_t) (d[4] % 12);
	memset(&P, 0, sizeof P);
	P.kind = kind0 ? kind0 : (uint16_t) (1 + (d[4] / 12) % CF_KIND_MAX);
	P.tag = P.kind == CF_KIND_OTHER ? 0x1234567u : 0;
	P.salt = d[5];
	p.kind = kind0;
	p.type_tag = kind0 == CF_KIND_OTHER ? P.tag : 0;
	p.capacity = 1 + (uint64_t) d[5] % ((uint64_t) p.num_buckets * p.bucket_size);
	flt_new(&A, &p);
	model_init(&ma);
	check_model(&A, &ma, "new filter");

	for (pos = 6; pos + 1 < n && ops < MAX_OPS; ops++)
	{
		uint8_t		op = d[pos] % 16,
					arg = d[pos + 1];
		uint64_t	h;

		pos += 2;
		switch (op)
		{
			case 0:
			case 1:
			case 2:
				(void) do_insert(&P, &A, &ma, alpha(&P, arg % ALPHABET), false);
				break;
			case 3:
				(void) do_insert(&P, &A, &ma, alpha(&P, arg % ALPHABET), true);
				break;
			case 4:
			case 5:
				if (!ma.exact)
					break;		/* removals stop once counts are inexact */
				h = alpha(&P, arg % ALPHABET);
				if (model_mult(&ma, h) > 0 || model_pick(&ma, arg, &h))
					do_remove_present(&A, &ma, h);
				else
				{
					/* empty filter: nothing to remove, nothing changes */
					uint8_t    *before = fz_dup(A.p, A.len);

					FZ_CHECK(cf_items(&A.cf) == 0, "harness: model empty, filter not");
					FZ_CHECK(!cf_remove(&A.cf, h), "remove from an empty filter succeeded");
					FZ_CHECK(memcmp(before, A.p, A.len) == 0, "failed remove changed bytes");
					free(before);
				}
				break;
			case 6:
				h = alpha(&P, arg % ALPHABET);
				FZ_CHECK(cf_contains(&A.cf, h) == (cf_count(&A.cf, h) > 0),
						 "contains and count disagree");
				if (model_mult(&ma, h) > 0)
					FZ_CHECK(cf_contains(&A.cf, h), "false negative on lookup");
				break;
			case 7:
				pos += do_union(&P, &A, &ma, d + pos, n - pos, arg);
				break;
			case 8:
				do_shrink(&A, &ma, (arg & 3) == 3);
				break;
			case 9:
				do_serialise(&A);
				break;
			case 10:
				if ((arg & 0x40) != 0 && (arg & 0x80) == 0)
				{
					/*
					 * cf_insert_many must leave the same bytes and stop at
					 * the same insert as cf_insert one by one.
					 */
					uint64_t	batch[64];
					uint32_t	nb = 1 + arg % 64u;
					flt			B = A;
					size_t		done;
					cf_status	bst;

					for (uint32_t j = 0; j < nb; j++)
						batch[j] = fresh(&P);
					if (cf_kind_of(&A.cf) == CF_KIND_ANY)
						cf_set_kind(&A.cf, P.kind, P.tag);	/* as do_insert does */
					B.p = fz_dup(A.p, A.len);
					cf_open(&B.cf, B.p, B.len);
					done = cf_insert_many(&B.cf, batch, nb, &bst);
					for (uint32_t j = 0; j < nb; j++)
					{
						cf_status	st = do_insert(&P, &A, &ma, batch[j], false);

						if (st != CF_OK)
						{
							FZ_CHECK(done == j && bst == st,
									 "cf_insert_many stopped after %zu with %d, single inserts at %u with %d",
									 done, (int) bst, j, (int) st);
							break;
						}
					}
					FZ_CHECK(bst != CF_OK || done == nb, "cf_insert_many: CF_OK but %zu of %u", done, nb);
					FZ_CHECK(memcmp(A.p, B.p, A.len) == 0, "cf_insert_many left other bytes");
					flt_free(&B);
					break;
				}
				for (uint32_t j = 0; j <= arg % 64u; j++)
				{
					cf_status	st = do_insert(&P, &A, &ma, fresh(&P), (arg & 0x80) != 0);

					if (st == CF_FULL)
						break;
				}
				break;
			case 11:
				do_union_mismatch(&P, &A, arg);
				break;
			case 12:
				/* the same hash until the pair refuses another copy */
				h = alpha(&P, arg % ALPHABET);
				for (uint32_t j = 0; j < 2 * A.cf.b + 2; j++)
				{
					cf_status	st = do_insert(&P, &A, &ma, h, false);

					if (st != CF_OK && st != CF_OK_STASHED)
						break;
				}
				break;
			case 13:
				/* every copy of one model hash */
				if (ma.exact && model_pick(&ma, arg, &h))
					while (model_mult(&ma, h) > 0)
						do_remove_present(&A, &ma, h);
				break;
			case 14:
				/* insert then remove at once */
				h = alpha(&P, arg % ALPHABET);
				{
					cf_status	st = do_insert(&P, &A, &ma, h, (arg & 0x80) != 0);

					if (ma.exact && (st == CF_OK || st == CF_OK_STASHED))
						do_remove_present(&A, &ma, h);
				}
				break;
			default:
				/* lookups of hashes never inserted: consistency only */
				h = fresh(&P);
				FZ_CHECK(cf_contains(&A.cf, h) == (cf_count(&A.cf, h) > 0),
						 "contains and count disagree");
				break;
		}
		check_model(&A, &ma, "after step");
	}

	model_free(&ma);
	flt_free(&A);
	return 0;
}
