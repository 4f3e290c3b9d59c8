/*
 * Growth prototype for cuckoo (research only; not project code).
 *
 * One table scheme for all candidates, after docs/DESIGN.md and FORMAT.md:
 *   b = 4 plain buckets; an entry is an f-bit fingerprint (non-zero) plus, in
 *   growing tables, a t-bit "tail" holding s spare address bits under a unary
 *   marker:  tail = (1 << s) | spare,  0 <= s <= t-1  (tail 0 = empty slot).
 *   Slots are stored as uint32 (the real format would pack W = f + t bits);
 *   bits per item are computed from W.
 *
 *   h = XXH3_64(key)
 *   fp  = 1 + range(lo32(h), 2^f - 1)
 *   q   = range(hi32(h * K), c)            rf = hi32(h)  (32 address bits)
 *   g   = fp * K2; g ^= g >> 29;  Hq = range(lo32(g), c),  Hr = hi32(g)
 *   alternate:  q' = (Hq - q) mod c,   rf' = rf XOR Hr    (bitwise, so partial
 *   knowledge of rf works: an entry knows the low L bits of its address)
 *
 * Linear-hashing layout (version 2 proposal): m = c*2^k + p buckets, bucket
 * index i = r*c + q.  Address (q, rf): x = rf mod 2^k, i0 = x*c + q; if i0 < p
 * (already split) the bucket is i0 + c*2^k when bit k of rf is set, with
 * resolution k+1; otherwise i0 with resolution k.  Splitting bucket p moves
 * the entries whose next spare bit is 1 to bucket p + c*2^k (appended at the
 * end); an entry with no spare bit left ("void") is copied into both.
 *
 * mode FIXED : v1-like right-sized table (t = 0, m = c*2^k).
 * mode LIN   : single table, split one bucket at a time while load > alpha.
 * mode DBL   : single table, split a whole round (doubling) when load > alpha.
 * CHAIN      : list of fixed tables, level i capacity C0*E^i, f_i = f0 + i*df.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <xxhash.h>

#define B 4
#define K1 0x9E3779B97F4A7C15ULL
#define K2 0xC2B2AE3D27D4EB4FULL

enum { FIXED, LIN, DBL };

typedef struct { uint64_t idx; uint32_t e; } stash_t;

typedef struct {
	int mode, f, t, gbits;      /* gbits: generation tag bits (rotation) */
	uint32_t c; int k; uint64_t p, m, alloc;
	uint32_t *s;                /* alloc*B slots */
	uint64_t entries, items, dups, fails, splits, stuck, refused;
	double alpha;
	uint64_t rng;
	int maxkicks;
	stash_t stash[64]; int nstash;
	uint32_t fmask;
} T;

static inline uint32_t range32(uint32_t x, uint64_t n) { return (uint32_t)(((uint64_t)x * n) >> 32); }
static inline uint64_t xs(uint64_t *r) { uint64_t x = *r; x ^= x << 13; x ^= x >> 7; x ^= x << 17; return *r = x; }
static inline uint32_t mask32(int n) { return n >= 32 ? 0xFFFFFFFFu : ((1u << n) - 1); }
static inline int ilog2(uint32_t x) { return 31 - __builtin_clz(x); }

typedef struct { uint32_t fp, q, rf, hq, hr; } H;

static inline void hsplit(const T *t, uint64_t h, H *o)
{
	o->fp = 1 + range32((uint32_t)h, (1ull << t->f) - 1);
	o->q = range32((uint32_t)((h * K1) >> 32), t->c);
	o->rf = (uint32_t)(h >> 32);
	uint64_t g = (uint64_t)o->fp * K2; g ^= g >> 29;
	o->hq = range32((uint32_t)g, t->c);
	o->hr = (uint32_t)(g >> 32);
}

/* bucket of address (q, rf) and its resolution */
static inline uint64_t locate(const T *t, uint32_t q, uint32_t rf, int *res)
{
	/* branch-free: a mispredicted branch here delays the second bucket's load
	 * and serialises the two cache misses of a lookup (measured 1.9x on 64 MB) */
	uint64_t x = rf & mask32(t->k);
	uint64_t i = x * t->c + q;
	uint64_t split = i < t->p;
	*res = t->k + (int)split;
	return i + ((split & (rf >> t->k)) * ((uint64_t)t->c << t->k));
}
static inline int bres(const T *t, uint64_t i)
{
	return (i < t->p || i >= ((uint64_t)t->c << t->k)) ? t->k + 1 : t->k;
}

/* tail helpers; generation tag sits above the tail: slot = fp | tail<<f | gen<<(f+t) */
static inline uint32_t tail_of(const T *t, uint32_t e) { return (e >> t->f) & mask32(t->t); }
static inline uint32_t gen_of(const T *t, uint32_t e) { return t->gbits ? (e >> (t->f + t->t)) & mask32(t->gbits) : 0; }
static inline uint32_t mk(const T *t, uint32_t fp, uint32_t tail, uint32_t gen)
{ return fp | (tail << t->f) | (gen << (t->f + t->t)); }

/* entry for a value placed in a bucket of resolution res whose address is rf */
static inline uint32_t tail_for(const T *t, uint32_t rf, int res)
{
	if (t->t == 0) return 0;
	int s = t->t - 1; if (res + s > 32) s = 32 - res;
	return (1u << s) | ((rf >> res) & mask32(s));
}

/* known address bits and their count for entry e in bucket i */
static inline uint32_t known(const T *t, uint64_t i, uint32_t e, int *L)
{
	int res = bres(t, i);
	uint32_t r = (uint32_t)(i / t->c);
	if (t->t == 0) { *L = res; return r; }
	uint32_t tl = tail_of(t, e); int s = ilog2(tl);
	*L = res + s;
	return r | ((tl ^ (1u << s)) << res);
}

static uint32_t g_cur_gen;

/* move entry e out of bucket i to its alternate; returns 0 if impossible (void entry
 * going to a finer bucket) */
static int move_alt(const T *t, uint64_t i, uint32_t e, uint64_t *ni, uint32_t *ne)
{
	uint32_t fp = e & t->fmask;
	int L; uint32_t a = known(t, i, e, &L);
	uint32_t q = (uint32_t)(i % t->c);
	uint64_t g = (uint64_t)fp * K2; g ^= g >> 29;
	uint32_t hq = range32((uint32_t)g, t->c), hr = (uint32_t)(g >> 32);
	uint32_t q2 = (hq + t->c - q) % t->c;
	uint32_t a2 = (a ^ hr) & mask32(L);
	uint64_t x = a2 & mask32(t->k);
	uint64_t j = x * t->c + q2; int res2 = t->k;
	if (j < t->p) {
		if (L < t->k + 1) return 0;
		res2 = t->k + 1;
		if ((a2 >> t->k) & 1) j += (uint64_t)t->c << t->k;
	}
	uint32_t tl = 0;
	if (t->t) {
		int s = L - res2; if (s > t->t - 1) s = t->t - 1;
		tl = (1u << s) | ((a2 >> res2) & mask32(s));
	}
	*ni = j; *ne = mk(t, fp, tl, gen_of(t, e));
	return 1;
}

static inline int put(T *t, uint64_t i, uint32_t e)
{
	uint32_t *b = t->s + i * B;
	for (int j = 0; j < B; j++) if (!b[j]) { b[j] = e; return 1; }
	return 0;
}

static void ensure(T *t, uint64_t m)
{
	if (m <= t->alloc) return;
	uint64_t na = t->alloc ? t->alloc : 64;
	while (na < m) na *= 2;
	t->s = realloc(t->s, na * B * 4);
	memset(t->s + t->alloc * B, 0, (na - t->alloc) * B * 4);
	t->alloc = na;
}

static int kick_insert(T *t, uint64_t i, uint32_t e);

/* split bucket p */
static void split_one(T *t)
{
	uint64_t base = (uint64_t)t->c << t->k;
	uint64_t i = t->p, j = base + t->p;
	ensure(t, j + 1);
	uint32_t *bi = t->s + i * B, *bj = t->s + j * B;
	uint32_t old[B]; memcpy(old, bi, sizeof old); memset(bi, 0, sizeof old);
	int ni = 0, nj = 0;
	for (int x = 0; x < B; x++) {
		uint32_t e = old[x]; if (!e) continue;
		uint32_t tl = tail_of(t, e); int s = ilog2(tl);
		uint32_t fp = e & t->fmask, gen = gen_of(t, e);
		if (s == 0) { bi[ni++] = e; bj[nj++] = e; t->entries++; t->dups++; continue; }
		uint32_t bit = tl & 1, ntl = (1u << (s - 1)) | ((tl ^ (1u << s)) >> 1);
		uint32_t ne = mk(t, fp, ntl, gen);
		if (bit) bj[nj++] = ne; else bi[ni++] = ne;
	}
	/* stash entries living in bucket i */
	int ns = t->nstash; t->nstash = 0; stash_t st[64]; memcpy(st, t->stash, ns * sizeof *st);
	t->p++; t->splits++;
	if (t->p == base) { t->k++; t->p = 0; }
	t->m = ((uint64_t)t->c << t->k) + t->p;
	for (int x = 0; x < ns; x++) {
		uint64_t si = st[x].idx; uint32_t e = st[x].e;
		if (si == i) {
			uint32_t tl = tail_of(t, e); int s = ilog2(tl);
			if (s == 0) { t->entries++; t->dups++; if (!kick_insert(t, j, e)) {} if (!kick_insert(t, i, e)) {} continue; }
			uint32_t ntl = (1u << (s - 1)) | ((tl ^ (1u << s)) >> 1);
			uint32_t ne = mk(t, e & t->fmask, ntl, gen_of(t, e));
			kick_insert(t, (tl & 1) ? j : i, ne);
		} else kick_insert(t, si, e);
	}
}

/* insert entry e (relative to bucket i) with kicks; on failure the entry in hand
 * goes to the stash (lookups see it). returns 1 if no stash used */
static int kick_insert(T *t, uint64_t i, uint32_t e)
{
	if (put(t, i, e)) return 1;
	uint64_t cur = i;
	for (int n = 0; n < t->maxkicks; n++) {
		uint32_t *b = t->s + cur * B;
		int j0 = xs(&t->rng) & 3, moved = 0;
		for (int d = 0; d < B && !moved; d++) {
			int j = (j0 + d) & 3;
			uint64_t ni; uint32_t ne;
			if (!move_alt(t, cur, b[j], &ni, &ne)) continue;
			b[j] = e; e = ne; cur = ni; moved = 1;
		}
		if (!moved) break;
		if (put(t, cur, e)) return 1;
	}
	if (t->nstash >= 64) { fprintf(stderr, "stash full\n"); exit(3); }
	t->stash[t->nstash].idx = cur; t->stash[t->nstash].e = e; t->nstash++;
	t->fails++;
	return 0;
}

/* growth policy: split while the load is above alpha; if a kick walk failed (entry in
 * the stash = the format's victim slot), split at most m/8 more buckets retrying it.
 * Splitting cannot relieve a congested pair made of copies of a few values (their
 * entries agree on every address bit): an unbounded "split until placed" loop grew a
 * stress-test table to 4x its need (MEMO 4.2). What is left stays in the stash and the
 * filter is "full" for inserts that find no free entry in their two buckets, as in v1. */
static void grow_if_needed(T *t)
{
	if (t->mode == FIXED) return;
	while ((double)(t->entries + 1) > t->alpha * B * (double)t->m) {
		if (t->mode == DBL) { int k0 = t->k; while (t->k == k0) split_one(t); }
		else split_one(t);
	}
	if (t->nstash > 32) { fprintf(stderr, "stash overflow\n"); exit(1); }
}
/* called once per failed kick walk (not on every insert while the victim is stuck) */
static void relieve(T *t)
{
	uint64_t limit = t->m + t->m / 8 + 1;
	while (t->nstash && t->m < limit) split_one(t);
	if (t->nstash) t->stuck++;
}

static int t_count(const T *t, uint64_t h);
static int t_insert(T *t, uint64_t h)
{
	grow_if_needed(t);
	H v; hsplit(t, h, &v);
	int r1, r2;
	uint64_t i1 = locate(t, v.q, v.rf, &r1);
	uint64_t i2 = locate(t, (v.hq + t->c - v.q) % t->c, v.rf ^ v.hr, &r2);
	/* as in v1 (CF_TOO_MANY_COPIES): a value's pair holds at most 2b entries matching
	 * it; growing cannot separate them (they all agree with its address bits) */
	/* count by fingerprint alone, as v1 does: entries with the same fp in this pair can
	 * only live in this pair, and a split separates them only when the split pointer
	 * reaches the bucket (up to a full round later). Counting matching entries only
	 * (tails included) let two colliding values put 9 same-fp entries in one pair and
	 * the table grew without end (stress run, MEMO 4.2). */
	{
		int n = 0;
		for (int j = 0; j < B; j++) n += (t->s[i1 * B + j] & t->fmask) == v.fp;
		if (i2 != i1) for (int j = 0; j < B; j++) n += (t->s[i2 * B + j] & t->fmask) == v.fp;
		if (n >= 2 * B) return -1;
	}
	uint32_t e1 = mk(t, v.fp, tail_for(t, v.rf, r1), g_cur_gen);
	uint32_t e2 = mk(t, v.fp, tail_for(t, v.rf ^ v.hr, r2), g_cur_gen);
	if (put(t, i1, e1) || put(t, i2, e2)) { t->entries++; t->items++; return 1; }
	if (t->nstash) { t->refused++; return -2; }   /* full: victim in use (v1 rule) */
	t->entries++; t->items++;
	int ok = (xs(&t->rng) & 1) ? kick_insert(t, i1, e1) : kick_insert(t, i2, e2);
	if (!ok && t->mode != FIXED) relieve(t);
	return 1;
}

static inline int matches(const T *t, uint32_t e, uint32_t fp, uint32_t rf, int res, int *L)
{
	if ((e & t->fmask) != fp) return 0;
	if (t->t == 0) { *L = res; return 1; }
	uint32_t tl = tail_of(t, e); int s = ilog2(tl);
	if ((tl ^ (1u << s)) != ((rf >> res) & mask32(s))) return 0;
	*L = res + s;
	return 1;
}

static inline int t_lookup(const T *t, uint64_t h)
{
	H v; hsplit(t, h, &v);
	int r1, r2, L;
	uint32_t rf2 = v.rf ^ v.hr;
	uint64_t i1 = locate(t, v.q, v.rf, &r1);
	uint64_t i2 = locate(t, (v.hq + t->c - v.q) % t->c, rf2, &r2);
	const uint32_t *b1 = t->s + i1 * B, *b2 = t->s + i2 * B;
	if (t->t == 0) {
		int hit = 0;
		for (int j = 0; j < B; j++) hit |= ((b1[j] & t->fmask) == v.fp) | ((b2[j] & t->fmask) == v.fp);
		if (hit) return 1;
	} else {
		/* branch-free: slot matches if fp equal and its s spare bits equal the query's */
		uint32_t a1 = v.rf >> r1, a2 = rf2 >> r2; int hit = 0; int f = t->f; uint32_t tm = mask32(t->t);
		for (int j = 0; j < B; j++) {
			uint32_t e = b1[j], tl = (e >> f) & tm; int s = ilog2(tl | 1);
			hit |= ((e & t->fmask) == v.fp) & (((tl ^ a1) & ((1u << s) - 1)) == 0);
			e = b2[j]; tl = (e >> f) & tm; s = ilog2(tl | 1);
			hit |= ((e & t->fmask) == v.fp) & (((tl ^ a2) & ((1u << s) - 1)) == 0);
		}
		if (hit) return 1;
	}
	for (int x = 0; x < t->nstash; x++) {
		uint64_t si = t->stash[x].idx; uint32_t e = t->stash[x].e;
		if (si == i1 && matches(t, e, v.fp, v.rf, r1, &L)) return 1;
		if (si == i2 && matches(t, e, v.fp, rf2, r2, &L)) return 1;
	}
	return 0;
}

static int t_count(const T *t, uint64_t h)
{
	H v; hsplit(t, h, &v);
	int r1, r2, L, n = 0;
	uint32_t rf2 = v.rf ^ v.hr;
	uint64_t i1 = locate(t, v.q, v.rf, &r1);
	uint64_t i2 = locate(t, (v.hq + t->c - v.q) % t->c, rf2, &r2);
	for (int j = 0; j < B; j++) n += matches(t, t->s[i1 * B + j], v.fp, v.rf, r1, &L);
	if (i2 != i1) for (int j = 0; j < B; j++) n += matches(t, t->s[i2 * B + j], v.fp, rf2, r2, &L);
	for (int x = 0; x < t->nstash; x++)
		n += (t->stash[x].idx == i1 && matches(t, t->stash[x].e, v.fp, v.rf, r1, &L)) ||
		     (t->stash[x].idx == i2 && matches(t, t->stash[x].e, v.fp, rf2, r2, &L));
	return n;
}

/* delete: remove the most specific matching entry (longest known prefix) */
static int t_delete(T *t, uint64_t h)
{
	H v; hsplit(t, h, &v);
	int r1, r2, L, best = -1; uint32_t *bp = NULL; int bst = -1;
	uint32_t rf2 = v.rf ^ v.hr;
	uint64_t i1 = locate(t, v.q, v.rf, &r1);
	uint64_t i2 = locate(t, (v.hq + t->c - v.q) % t->c, rf2, &r2);
	static int anymatch = -1; if (anymatch < 0) anymatch = getenv("ANYMATCH") && *getenv("ANYMATCH"); /* ablation: first match */
	for (int j = 0; j < B; j++) if (matches(t, t->s[i1 * B + j], v.fp, v.rf, r1, &L) && L > best && !(anymatch && bp)) { best = L; bp = &t->s[i1 * B + j]; }
	for (int j = 0; j < B; j++) if (matches(t, t->s[i2 * B + j], v.fp, rf2, r2, &L) && L > best && !(anymatch && bp)) { best = L; bp = &t->s[i2 * B + j]; }
	for (int x = 0; x < t->nstash; x++) {
		uint64_t si = t->stash[x].idx; uint32_t e = t->stash[x].e;
		if ((si == i1 && matches(t, e, v.fp, v.rf, r1, &L) && L > best) ||
		    (si == i2 && matches(t, e, v.fp, rf2, r2, &L) && L > best)) { best = L; bp = NULL; bst = x; }
	}
	if (best < 0) return 0;
	if (bp) *bp = 0; else { t->stash[bst] = t->stash[--t->nstash]; }
	t->entries--; t->items--;
	/* re-place stash entries (a slot was freed) */
	int ns = t->nstash; stash_t st[64]; memcpy(st, t->stash, ns * sizeof *st); t->nstash = 0;
	for (int x = 0; x < ns; x++) kick_insert(t, st[x].idx, st[x].e);
	return 1;
}

/* ---- sizing ---- */
static void shape_for(uint64_t want_buckets, uint32_t *c, int *k)
{
	if (want_buckets < 1) want_buckets = 1;
	int kk = 0;
	while ((want_buckets + (1ull << kk) - 1) >> kk >= 256) kk++;
	uint64_t cc = (want_buckets + (1ull << kk) - 1) >> kk;
	if (kk > 0 && cc < 128) cc = 128; /* not reached */
	*c = (uint32_t)cc; *k = kk;
}
static uint64_t need_buckets(uint64_t cap, double load)
{
	uint64_t need = (uint64_t)ceil(cap / (B * load));
	return need + (uint64_t)ceil(sqrt((double)need));
}
static void t_init(T *t, int mode, int f, int tb, uint64_t cap, double alpha)
{
	memset(t, 0, sizeof *t);
	t->mode = mode; t->f = f; t->t = tb; t->alpha = alpha; t->maxkicks = 500;
	t->fmask = mask32(f); t->rng = 0x1234567ULL ^ cap;
	shape_for(need_buckets(cap, 0.94), &t->c, &t->k);
	t->p = 0; t->m = (uint64_t)t->c << t->k;
	ensure(t, t->m);
}
static void t_free(T *t) { free(t->s); t->s = NULL; }
static double t_bits(const T *t) { return (double)t->m * B * (t->f + t->t + t->gbits); }

/* ---- chain ---- */
typedef struct { int n; T lv[40]; uint64_t c0; double E; int f0, df; uint64_t items; uint64_t fails; } CH;
static void ch_init(CH *c, uint64_t c0, double E, int f0, int df)
{ memset(c, 0, sizeof *c); c->c0 = c0; c->E = E; c->f0 = f0; c->df = df; c->n = 1; t_init(&c->lv[0], FIXED, f0, 0, c0, 0); }
static uint64_t ch_cap(const CH *c, int i) { return (uint64_t)(c->c0 * pow(c->E, i)); }
static void ch_insert(CH *c, uint64_t h)
{
	T *t = &c->lv[c->n - 1];
	if (t->items >= ch_cap(c, c->n - 1)) {
		int f = c->f0 + c->df * c->n; if (f > 32) f = 32;
		t_init(&c->lv[c->n], FIXED, f, 0, ch_cap(c, c->n), 0); c->n++; t = &c->lv[c->n - 1];
	}
	if (!t_insert(t, h)) c->fails++;
	c->items++;
}
static int ch_lookup(const CH *c, uint64_t h)
{ for (int i = c->n - 1; i >= 0; i--) if (t_lookup(&c->lv[i], h)) return 1; return 0; }
static double ch_bits(const CH *c) { double s = 0; for (int i = 0; i < c->n; i++) s += t_bits(&c->lv[i]); return s; }

/* ---- keys ---- */
static inline uint64_t hkey(uint64_t k) { return XXH3_64bits(&k, 8); }
static inline uint64_t negkey(uint64_t i) { return (1ull << 62) + i; }

static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }

/* ---- re-home an entry (known low L bits a of its address, fingerprint fp) into
 * table d: duplicate into every bucket its prefix cannot tell apart ---- */
static void rehome(T *d, uint32_t fp, uint32_t a, int L, uint32_t gen, uint32_t q)
{
	if (d->nstash) return; /* caller sees nstash and retries larger */
	uint32_t x = a & mask32(d->k);
	int res = d->k;
	uint64_t i0 = (uint64_t)x * d->c + q;
	if (i0 < d->p) res = d->k + 1;
	if (L >= res) {
		uint64_t i = (res > d->k && ((a >> d->k) & 1)) ? i0 + ((uint64_t)d->c << d->k) : i0;
		uint32_t tl = 0;
		if (d->t) { int s = L - res; if (s > d->t - 1) s = d->t - 1; tl = (1u << s) | ((a >> res) & mask32(s)); }
		d->entries++;
		kick_insert(d, i, mk(d, fp, tl, gen));
		return;
	}
	/* L < res: both values of bit L */
	rehome(d, fp, a & mask32(L), L + 1, gen, q);
	rehome(d, fp, (a & mask32(L)) | (1u << L), L + 1, gen, q);
	d->dups++;
}

/* geometry with m buckets: k = floor(log2(m/c)), p = m - c*2^k */
static void set_geom(T *t, uint64_t m)
{
	int k = 0; while (((uint64_t)t->c << (k + 1)) <= m) k++;
	t->k = k; t->p = m - ((uint64_t)t->c << k); t->m = m;
	ensure(t, m + 1);
}

/* copy every entry of s into d (d's geometry already set) */
static void pour(T *d, const T *s)
{
	for (uint64_t i = 0; i < s->m; i++)
		for (int j = 0; j < B; j++) {
			uint32_t e = s->s[i * B + j]; if (!e) continue;
			int L; uint32_t a = known(s, i, e, &L);
			rehome(d, e & s->fmask, a, L, gen_of(s, e), (uint32_t)(i % s->c));
		}
	for (int x = 0; x < s->nstash; x++) {
		int L; uint32_t e = s->stash[x].e; uint32_t a = known(s, s->stash[x].idx, e, &L);
		rehome(d, e & s->fmask, a, L, gen_of(s, e), (uint32_t)(s->stash[x].idx % s->c));
	}
}

/* compaction: smallest table (same c, f; tail bits tb; tb = 0 gives a fixed v1-like
 * table of c*2^k buckets) that takes every entry at load <= alpha */
static int compact(const T *s, T *d, int tb, double alpha)
{
	uint64_t m = (uint64_t)ceil(s->entries / (B * alpha)); if (m < s->c) m = s->c;
	for (int tries = 0; tries < 50; tries++) {
		memset(d, 0, sizeof *d);
		d->mode = tb ? LIN : FIXED; d->f = s->f; d->t = tb; d->gbits = s->gbits; d->c = s->c; d->alpha = s->alpha;
		d->maxkicks = 500; d->fmask = s->fmask; d->rng = 99;
		if (!tb) { int k = 0; while (((uint64_t)d->c << k) < m) k++; m = (uint64_t)d->c << k; }
		set_geom(d, m);
		pour(d, s);
		d->items = s->items;
		if (d->nstash == 0) return 1;
		if (getenv("DBG")) fprintf(stderr, "compact try m=%lu entries=%lu placed=%lu nstash=%d\n", m, s->entries, d->entries, d->nstash);
		t_free(d);
		m = tb ? m + m / 10 + 1 : m * 2;
	}
	return 0;
}

/* ---- measurement ---- */
static int f_for(double fpr)
{
	for (int f = 4; f <= 32; f++)
		if (1 - pow(1 - 1.0 / ((double)(1ull << f) - 1), 2 * B * 0.94) <= fpr) return f;
	return 32;
}
/* right-sized fixed filter for n items: load and the continuous f giving fpr */
static double rs_load(uint64_t n)
{
	uint32_t c; int k; shape_for(need_buckets(n, 0.94), &c, &k);
	return (double)n / (B * (double)((uint64_t)c << k));
}
static double f_equiv(double fpr, double load)
{
	double x = 1 - pow(1 - fpr, 1.0 / (2 * B * load));
	return log2(1 + 1 / x);
}

typedef struct { int mode; T t; CH ch; } F;
static int F_lookup(const F *x, uint64_t h) { return x->mode < 3 ? t_lookup(&x->t, h) : ch_lookup(&x->ch, h); }
static double F_bits(const F *x) { return x->mode < 3 ? t_bits(&x->t) : ch_bits(&x->ch); }
static uint64_t F_items(const F *x) { return x->mode < 3 ? x->t.items : x->ch.items; }
static int F_levels(const F *x) { return x->mode < 3 ? 1 : x->ch.n; }

static uint64_t *probe_h;
static uint64_t nprobe = 1000000;
static double fpr_of(const F *x)
{
	uint64_t fp = 0;
	for (uint64_t i = 0; i < nprobe; i++) fp += F_lookup(x, probe_h[i]);
	return (double)fp / nprobe;
}
static volatile uint64_t sink;
static double ns_neg(const F *x, uint64_t n)
{
	double best = 1e9;
	for (int r = 0; r < 3; r++) {
		uint64_t s = 0; double t0 = now();
		for (uint64_t i = 0; i < n; i++) s += F_lookup(x, hkey(negkey(i * 7 + 3)));
		double dt = (now() - t0) / n * 1e9; sink += s; if (dt < best) best = dt;
	}
	return best;
}
static double ns_pos(const F *x, uint64_t n, uint64_t items)
{
	double best = 1e9; uint64_t r0 = 88172645463325252ULL;
	for (int r = 0; r < 3; r++) {
		uint64_t s = 0; double t0 = now();
		for (uint64_t i = 0; i < n; i++) s += F_lookup(x, hkey(xs(&r0) % items));
		double dt = (now() - t0) / n * 1e9; sink += s; if (dt < best) best = dt;
		if (s != n) { fprintf(stderr, "FALSE NEGATIVE in timing loop\n"); exit(2); }
	}
	return best;
}

static const char *mname[] = { "fixed", "lin", "dbl", "chain" };

/* grow: start capacity C0, insert up to G*C0, print rows at growth 1,10,100,1000
 * plus the worst fpr over 4 checkpoints per doubling. */
static void exp_grow(int mode, uint64_t C0, double target, int tb, double alpha, double E, int fdelta, uint64_t G, int timing)
{
	F x; memset(&x, 0, sizeof x); x.mode = mode;
	int f = f_for(target) + fdelta;
	if (mode == 3) ch_init(&x.ch, C0, E, f_for(target / 2) + fdelta, 1);
	else t_init(&x.t, mode, f, tb, C0, alpha);
	uint64_t N = C0 * G;
	double nextcp = C0, worst = 0; uint64_t worst_n = 0;
	uint64_t rows[] = { C0, C0 * 10, C0 * 100, C0 * 1000, 0 }; int ri = 0;
	double t0 = now();
	for (uint64_t i = 0; i < N; i++) {
		uint64_t h = hkey(i);
		if (mode == 3) ch_insert(&x.ch, h); else t_insert(&x.t, h);
		uint64_t n = i + 1;
		int row = rows[ri] && n == rows[ri];
		if (n >= (uint64_t)nextcp || row) {
			double fr = fpr_of(&x);
			if (fr > worst) { worst = fr; worst_n = n; }
			if (n >= (uint64_t)nextcp) nextcp *= pow(2, 0.25);
		}
		if (row) {
			ri++;
			double fr = fpr_of(&x), bpi = F_bits(&x) / n, al = rs_load(n);
			double fe = f_equiv(fr > 0 ? fr : 0.5 / nprobe, al), bpi_rs = fe / al;
			double bpi_tgt = f_for(target) / al;
			/* false negatives: every inserted key */
			uint64_t fn = 0; for (uint64_t j = 0; j < n; j++) fn += !F_lookup(&x, hkey(j));
			double nsn = 0, nsp = 0;
			if (timing) { nsn = ns_neg(&x, 1000000); nsp = ns_pos(&x, 1000000, n); }
			uint64_t ent = mode == 3 ? 0 : x.t.entries, dups = mode == 3 ? 0 : x.t.dups;
			uint64_t fails = mode == 3 ? x.ch.fails : x.t.fails, refused = mode == 3 ? 0 : x.t.refused;
			printf("%-5s C0=%-6lu tgt=%.3f f=%d t=%d a=%.2f E=%.0f | grow=%4lux n=%-8lu fpr=%.5f bpi=%6.2f | rs@fpr f*=%5.2f bpi=%6.2f ratio=%.2f | rs@tgt bpi=%5.2f ratio=%.2f | load=%.3f lv=%d dup%%=%.2f walkfails=%lu refused=%lu FN=%lu | ns neg=%.1f pos=%.1f\n",
			       mname[mode], C0, target, mode == 3 ? x.ch.f0 : f, tb, alpha, E, n / C0, n, fr, bpi, fe, bpi_rs, bpi / bpi_rs,
			       bpi_tgt, bpi / bpi_tgt, mode == 3 ? 0 : (double)x.t.entries / (B * (double)x.t.m), F_levels(&x), ent ? 100.0 * dups / n : 0, fails, refused, fn, nsn, nsp);
			fflush(stdout);
		}
	}
	printf("%-5s C0=%-6lu tgt=%.3f f=%d t=%d a=%.2f: worst fpr over 1x..%lux = %.5f at n=%lu (%s); build %.1fs\n",
	       mname[mode], C0, target, f, tb, alpha, G, worst, worst_n, worst <= target ? "OK" : "ABOVE TARGET", now() - t0);
	if (mode < 3) {
		/* compaction */
		T d; double tc = now();
		if (compact(&x.t, &d, tb, 0.94)) {
			F y; y.mode = d.mode; y.t = d;
			uint64_t fn = 0; for (uint64_t j = 0; j < N; j++) fn += !t_lookup(&d, hkey(j));
			printf("  compact(t=%d): m %lu -> %lu buckets, bpi %.2f -> %.2f, fpr %.5f, FN=%lu (%.2fs)\n", tb, x.t.m, d.m,
			       t_bits(&x.t) / N, t_bits(&d) / N, fpr_of(&y), fn, now() - tc);
			t_free(&d);
		} else printf("  compact(t=%d) failed\n", tb);
		if (compact(&x.t, &d, 0, 0.94)) {
			F y; y.mode = FIXED; y.t = d;
			uint64_t fn = 0; for (uint64_t j = 0; j < N; j++) fn += !t_lookup(&d, hkey(j));
			printf("  compact to fixed (t=0): m -> %lu buckets (c=%u k=%d), bpi %.2f, fpr %.5f, FN=%lu\n", d.m, d.c, d.k,
			       t_bits(&d) / N, fpr_of(&y), fn);
			t_free(&d);
		}
		t_free(&x.t);
	} else for (int i = 0; i < x.ch.n; i++) t_free(&x.ch.lv[i]);
}

/* fixed reference check: measured fpr vs formula at integer f */
static void exp_fixedref(uint64_t n)
{
	for (int f = 7; f <= 16; f++) {
		F x; memset(&x, 0, sizeof x); x.mode = FIXED; t_init(&x.t, FIXED, f, 0, n, 0);
		for (uint64_t i = 0; i < n; i++) t_insert(&x.t, hkey(i));
		double fr = fpr_of(&x), al = rs_load(n);
		printf("fixed n=%lu f=%d load=%.3f fpr=%.6f formula=%.6f f_equiv(measured)=%.2f bpi=%.2f fails=%lu\n", n, f, al, fr,
		       1 - pow(1 - 1.0 / ((double)(1ull << f) - 1), 2 * B * al), f_equiv(fr, al), t_bits(&x.t) / n, x.t.fails);
		t_free(&x.t);
	}
}

/* delete correctness against an exact multiset model */
static void exp_delete(uint64_t C0, uint64_t ops, int tb, int mode, uint64_t seed)
{
	T t; t_init(&t, mode, 10, tb, C0, 0.94);
	uint64_t U = ops / 3 + 10; /* key universe: repeats happen */
	uint32_t *cnt = calloc(U, 4);
	uint64_t r = seed, fn = 0, badrm = 0, live = 0, checks = 0;
	for (uint64_t o = 0; o < ops; o++) {
		uint64_t key = xs(&r) % U;
		int op = xs(&r) % 100;
		if (op < 60 || cnt[key] == 0) {
			if (cnt[key] >= (getenv("MAXCOPIES") ? atoi(getenv("MAXCOPIES")) : 6)) continue; /* stay below 2b copies per pair */
			t_insert(&t, hkey(key)); cnt[key]++; live++;
		} else {
			if (!t_delete(&t, hkey(key))) badrm++;
			cnt[key]--; live--;
		}
		if ((o & (o - 1)) == 0 || o == ops - 1) {
			for (uint64_t k2 = 0; k2 < U; k2++) if (cnt[k2]) { checks++; fn += !t_lookup(&t, hkey(k2)); }
		}
	}
	/* remove everything: each remove must find an entry, and the table must end empty
	   apart from void-duplicate leftovers */
	for (uint64_t k2 = 0; k2 < U; k2++) while (cnt[k2]) { if (!t_delete(&t, hkey(k2))) badrm++; cnt[k2]--; 
		for (uint64_t z = 0; z < 0; z++); }
	printf("delete %-4s C0=%lu ops=%lu t=%d: final m=%lu grow=%.0fx checks=%lu FN=%lu failed_removes=%lu leftover entries=%lu (void copies=%lu) stashfails=%lu\n",
	       mname[mode], C0, ops, tb, t.m, (double)t.m / t.c / (1 << 0) , checks, fn, badrm, t.entries, t.dups, t.fails);
	free(cnt); t_free(&t);
}

static void exp_stress(int mode, int f, int tb, int gbits, int keep, uint64_t C0, uint64_t ops, uint64_t seed);
static int g_raise;
static void exp_union(uint64_t, uint64_t, uint64_t, double);
static void exp_compact_del(uint64_t, uint64_t, uint64_t, double);
static void exp_timing(uint64_t n, double target, int reps);
static void exp_rotation(uint64_t per, double target, int maxkeep);
int main(int argc, char **argv)
{
	if (argc < 2) { fprintf(stderr, "usage: see MEMO.md\n"); return 1; }
	probe_h = malloc(nprobe * 8);
	for (uint64_t i = 0; i < nprobe; i++) probe_h[i] = hkey(negkey(i));
	const char *cmd = argv[1];
	if (!strcmp(cmd, "grow")) {
		/* grow MODE C0 FPR T ALPHA E FDELTA G TIMING */
		int mode = !strcmp(argv[2], "fixed") ? 0 : !strcmp(argv[2], "lin") ? 1 : !strcmp(argv[2], "dbl") ? 2 : 3;
		exp_grow(mode, strtoull(argv[3], 0, 10), atof(argv[4]), argc > 5 ? atoi(argv[5]) : 0, argc > 6 ? atof(argv[6]) : 0.94,
		         argc > 7 ? atof(argv[7]) : 2, argc > 8 ? atoi(argv[8]) : 0, argc > 9 ? strtoull(argv[9], 0, 10) : 1000,
		         argc > 10 ? atoi(argv[10]) : 1);
	} else if (!strcmp(cmd, "fixedref")) exp_fixedref(strtoull(argv[2], 0, 10));
	else if (!strcmp(cmd, "timing")) exp_timing(strtoull(argv[2], 0, 10), atof(argv[3]), argc > 4 ? atoi(argv[4]) : 5);
	else if (!strcmp(cmd, "rotation")) exp_rotation(strtoull(argv[2], 0, 10), atof(argv[3]), atoi(argv[4]));
	else if (!strcmp(cmd, "union")) exp_union(strtoull(argv[2], 0, 10), strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10), atof(argv[5]));
	else if (!strcmp(cmd, "compactdel")) exp_compact_del(strtoull(argv[2], 0, 10), strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10), atof(argv[5]));
	else if (!strcmp(cmd, "stress")) {
		/* stress MODE F T GBITS KEEP C0 OPS SEED RAISE */
		int mode = !strcmp(argv[2], "lin") ? 1 : !strcmp(argv[2], "dbl") ? 2 : 0;
		g_raise = argc > 10 ? atoi(argv[10]) : 1;
		exp_stress(mode, atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), strtoull(argv[7], 0, 10), strtoull(argv[8], 0, 10), argc > 9 ? strtoull(argv[9], 0, 10) : 1);
	} else if (!strcmp(cmd, "delete")) {
		int mode = !strcmp(argv[2], "lin") ? 1 : 2;
		exp_delete(strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10), atoi(argv[5]), mode, argc > 6 ? strtoull(argv[6], 0, 10) : 1);
	}
	return 0;
}

/* ================= rotation (generation tags) and delete stress ================= */
static int g_raise = 1;   /* raise rule on delete (see MEMO) */
static int g_keep_mod;    /* 2^gbits */
static inline uint32_t age_of(const T *t, uint32_t e) { return (g_cur_gen - gen_of(t, e)) & mask32(t->gbits); }
static inline uint32_t set_gen(const T *t, uint32_t e, uint32_t g)
{ return (e & ~(mask32(t->gbits) << (t->f + t->t))) | (g << (t->f + t->t)); }

/* delete with generations: most specific matching entry, ties -> oldest; then the other
 * matching entries in the two buckets get at least the removed entry's generation */
static int t_delete_gen(T *t, uint64_t h)
{
	H v; hsplit(t, h, &v);
	int r1, r2, L, bestL = -1; uint32_t bestage = 0; uint32_t *bp = NULL;
	uint32_t rf2 = v.rf ^ v.hr;
	uint64_t i1 = locate(t, v.q, v.rf, &r1);
	uint64_t i2 = locate(t, (v.hq + t->c - v.q) % t->c, rf2, &r2);
	uint32_t *m1 = t->s + i1 * B, *m2 = t->s + i2 * B;
	for (int w = 0; w < 2; w++) for (int j = 0; j < B; j++) {
		uint32_t *sp = (w ? m2 : m1) + j;
		if (w && i2 == i1) continue;
		if (!matches(t, *sp, v.fp, w ? rf2 : v.rf, w ? r2 : r1, &L)) continue;
		uint32_t a = age_of(t, *sp);
		if (L > bestL || (L == bestL && a > bestage)) { bestL = L; bestage = a; bp = sp; }
	}
	int sx = -1;
	for (int x = 0; x < t->nstash; x++) {
		uint64_t si = t->stash[x].idx; uint32_t e = t->stash[x].e; int ok = 0;
		if (si == i1 && matches(t, e, v.fp, v.rf, r1, &L)) ok = 1;
		else if (si == i2 && matches(t, e, v.fp, rf2, r2, &L)) ok = 1;
		if (ok) { uint32_t a = age_of(t, e); if (L > bestL || (L == bestL && a > bestage)) { bestL = L; bestage = a; bp = NULL; sx = x; } }
	}
	if (!bp && sx < 0) return 0;
	uint32_t g;
	if (bp) { g = gen_of(t, *bp); *bp = 0; }
	else { g = gen_of(t, t->stash[sx].e); t->stash[sx] = t->stash[--t->nstash]; }
	t->entries--; t->items--;
	for (int x = 0; x < t->nstash; x++) {   /* raise stash entries too */
		uint64_t si = t->stash[x].idx; uint32_t e = t->stash[x].e;
		if (g_raise && t->gbits && ((si == i1 && matches(t, e, v.fp, v.rf, r1, &L)) || (si == i2 && matches(t, e, v.fp, rf2, r2, &L))) && age_of(t, e) > bestage)
			t->stash[x].e = set_gen(t, e, g);
	}
	if (g_raise && t->gbits)
		for (int w = 0; w < 2; w++) for (int j = 0; j < B; j++) {
			uint32_t *sp = (w ? m2 : m1) + j;
			if (w && i2 == i1) continue;
			if (!matches(t, *sp, v.fp, w ? rf2 : v.rf, w ? r2 : r1, &L)) continue;
			if (age_of(t, *sp) > bestage) *sp = set_gen(t, *sp, g);
		}
	return 1;
}

/* rotate: new generation; drop entries older than the last keep generations */
static uint64_t t_rotate(T *t, int keep)
{
	g_cur_gen = (g_cur_gen + 1) & mask32(t->gbits);
	uint64_t dropped = 0;
	for (uint64_t i = 0; i < t->m * B; i++)
		if (t->s[i] && age_of(t, t->s[i]) >= (uint32_t)keep) { t->s[i] = 0; t->entries--; dropped++; }
	for (int x = 0; x < t->nstash; )
		if (age_of(t, t->stash[x].e) >= (uint32_t)keep) { t->stash[x] = t->stash[--t->nstash]; t->entries--; dropped++; }
		else x++;
	t->items -= dropped < t->items ? dropped : t->items;
	return dropped;
}

/* stress: random add / remove / rotate against an exact model.
 * model: per key, list of generations of its live adds; remove drops the oldest add;
 * rotate drops adds older than keep. Every key with a live add must be found. */
static void exp_stress(int mode, int f, int tb, int gbits, int keep, uint64_t C0, uint64_t ops, uint64_t seed)
{
	T t; t_init(&t, mode, f, tb, C0, 0.90); t.gbits = gbits; g_cur_gen = 0;
	uint64_t U = ops / (getenv("UDIV") ? atoi(getenv("UDIV")) : 4) + 10;
	uint8_t (*gens)[8] = calloc(U, 8); uint8_t *cnt = calloc(U, 1);
	uint64_t r = seed, fn = 0, badrm = 0, checks = 0, rot = 0, maxm = 0, toomany = 0, full = 0;
	uint32_t curabs = 0; /* absolute generation number in the model */
	for (uint64_t o = 0; o < ops; o++) {
		uint64_t key = xs(&r) % U; int op = xs(&r) % 1000;
		if (gbits && op < 2) { /* rotate */
			t_rotate(&t, keep); curabs++; rot++;
			for (uint64_t k2 = 0; k2 < U; k2++) { int w = 0; for (int z = 0; z < cnt[k2]; z++) if (curabs - gens[k2][z] < (uint32_t)keep) gens[k2][w++] = gens[k2][z]; cnt[k2] = w; }
		} else if (op < 600 || cnt[key] == 0) {
			if (cnt[key] >= (getenv("MAXCOPIES") ? atoi(getenv("MAXCOPIES")) : 6)) continue;
			int rc = t_insert(&t, hkey(key));
			if (rc == -1) { toomany++; continue; }
			if (rc == -2) { full++; continue; }
			gens[key][cnt[key]++] = (uint8_t)curabs;
		} else {
			int ok = gbits ? t_delete_gen(&t, hkey(key)) : t_delete(&t, hkey(key));
			if (!ok) badrm++;
			/* remove the oldest add */
			int oi = 0; for (int z = 1; z < cnt[key]; z++) if ((uint8_t)(curabs - gens[key][z]) > (uint8_t)(curabs - gens[key][oi])) oi = z;
			gens[key][oi] = gens[key][--cnt[key]];
		}
		if (t.m > maxm) maxm = t.m;
		if ((o & (getenv("CHK") ? atoi(getenv("CHK")) : 4095)) == 0 || o == ops - 1)
			for (uint64_t k2 = 0; k2 < U; k2++) if (cnt[k2]) { checks++; fn += !t_lookup(&t, hkey(k2)); }
	}
	printf("stress %-4s f=%d t=%d g=%d keep=%d raise=%d C0=%lu ops=%lu: max m=%lu (%.0fx initial) rotations=%lu lookups checked=%lu FN=%lu failed_removes=%lu walkfails=%lu refused(too many copies)=%lu refused(full: victim in use)=%lu stuck_after_relief=%lu\n",
	       mname[mode], f, tb, gbits, keep, g_raise, C0, ops, maxm, (double)maxm / (t.c << 0) / (1 << 0) / ((double)need_buckets(C0, 0.94) / t.c), rot, checks, fn, badrm, t.fails, toomany, full, t.stuck);
	free(gens); free(cnt); t_free(&t);
}

/* ================= timing: right-sized fixed vs grown, same memory treatment ============ */
#include <sys/mman.h>
static void rehouse(T *t)
{
	size_t sz = (t->m * B * 4 + (2u << 20) - 1) & ~((size_t)(2u << 20) - 1);
	void *p = aligned_alloc(2u << 20, sz);
	madvise(p, sz, MADV_HUGEPAGE);
	memset(p, 0, sz);
	memcpy(p, t->s, t->m * B * 4);
	free(t->s); t->s = p; t->alloc = sz / (B * 4);
}
static void build(F *x, int mode, uint64_t C0, uint64_t n, int f, int tb, double E, int f0)
{
	memset(x, 0, sizeof *x); x->mode = mode;
	if (mode == 3) { ch_init(&x->ch, C0, E, f0, 1); for (uint64_t i = 0; i < n; i++) ch_insert(&x->ch, hkey(i)); for (int i = 0; i < x->ch.n; i++) rehouse(&x->ch.lv[i]); }
	else { t_init(&x->t, mode, f, tb, C0, 0.90); for (uint64_t i = 0; i < n; i++) t_insert(&x->t, hkey(i)); rehouse(&x->t); }
}
static void exp_timing(uint64_t n, double target, int reps)
{
	F a, b, c;
	int ff = f_for(target);
	build(&a, FIXED, n, n, ff, 0, 0, 0);
	build(&b, LIN, n / 1000, n, ff - 4, 9, 0, 0);
	build(&c, 3, n / 1000, n, 0, 0, 2, f_for(target / 2));
	double ba = 1e9, bb = 1e9, bc = 1e9, pa = 1e9, pb = 1e9, pc = 1e9;
	uint64_t np = n < 2000000 ? 2000000 : n;
	for (int r = 0; r < reps; r++) {
		double v;
		v = ns_neg(&a, np); if (v < ba) ba = v;
		v = ns_neg(&b, np); if (v < bb) bb = v;
		v = ns_neg(&c, np); if (v < bc) bc = v;
		v = ns_pos(&a, np, n); if (v < pa) pa = v;
		v = ns_pos(&b, np, n); if (v < pb) pb = v;
		v = ns_pos(&c, np, n); if (v < pc) pc = v;
	}
	printf("timing n=%lu tgt=%.3f (proto table bytes: fixed %.1f MB, lin %.1f MB, chain %.1f MB; chain levels %d)\n", n, target,
	       a.t.m * 16 / 1e6, b.t.m * 16 / 1e6, ch_bits(&c.ch) / (8 * ff) * 4 / 1e6 * 0 + 0.0, c.ch.n);
	printf("  negative lookup ns: fixed %.1f  lin-grown-1000x %.1f (x%.2f)  chain %.1f (x%.2f)\n", ba, bb, bb / ba, bc, bc / ba);
	printf("  positive lookup ns: fixed %.1f  lin-grown-1000x %.1f (x%.2f)  chain %.1f (x%.2f)\n", pa, pb, pb / pa, pc, pc / pa);
	t_free(&a.t); t_free(&b.t); for (int i = 0; i < c.ch.n; i++) t_free(&c.ch.lv[i]);
}

/* rotation: keep generations of n/keep items each; tags in one growing table vs one
 * fixed sub-filter per generation (each f for target/keep so the sum stays bounded) */
static void exp_rotation(uint64_t per, double target, int maxkeep)
{
	for (int keep = 1; keep <= maxkeep; keep *= 2) {
		int gb = 1; while ((1 << gb) <= keep) gb++;   /* tags: 2^gb > keep */
		F tg; memset(&tg, 0, sizeof tg); tg.mode = LIN;
		t_init(&tg.t, LIN, f_for(target) - 4, 9, per, 0.90); tg.t.gbits = gb; g_cur_gen = 0;
		/* fill keep+2 generations, rotating, so dropped generations really happen */
		uint64_t key = 0;
		for (int g = 0; g < keep + 2; g++) { if (g) t_rotate(&tg.t, keep); for (uint64_t i = 0; i < per; i++) t_insert(&tg.t, hkey(key++)); }
		uint64_t live_from = key - per * keep;
		uint64_t fn = 0; for (uint64_t k2 = live_from; k2 < key; k2++) fn += !t_lookup(&tg.t, hkey(k2));
		uint64_t gone = 0; for (uint64_t k2 = 0; k2 < live_from; k2++) gone += t_lookup(&tg.t, hkey(k2));
		rehouse(&tg.t);
		CH sub; memset(&sub, 0, sizeof sub); sub.n = keep;
		for (int g = 0; g < keep; g++) { t_init(&sub.lv[g], FIXED, f_for(target / keep), 0, per, 0); for (uint64_t i = 0; i < per; i++) t_insert(&sub.lv[g], hkey(live_from + g * per + i)); rehouse(&sub.lv[g]); }
		F sf; memset(&sf, 0, sizeof sf); sf.mode = 3; sf.ch = sub;
		double nt = 1e9, ns = 1e9;
		for (int r = 0; r < 3; r++) { double v = ns_neg(&tg, 1000000); if (v < nt) nt = v; v = ns_neg(&sf, 1000000); if (v < ns) ns = v; }
		double items = (double)per * keep;
		printf("rotation per-gen=%lu keep=%d tgt=%.3f | tags (g=%d bits): fpr %.5f bpi %.2f neg ns %.1f FN %lu dropped-still-found %.5f | sub-filters: fpr %.5f bpi %.2f neg ns %.1f buckets read %d\n",
		       per, keep, target, gb, fpr_of(&tg), t_bits(&tg.t) / items, nt, fn, (double)gone / live_from,
		       fpr_of(&sf), ch_bits(&sf.ch) / items, ns, 2 * keep);
		t_free(&tg.t); for (int g = 0; g < keep; g++) t_free(&sub.lv[g]);
	}
}

/* ================= union and compaction after deletes ================= */
static void union_into(T *a, const T *b)
{
	/* a must be at least as large as b (same c, f, t); entries of b re-homed into a */
	for (uint64_t i = 0; i < b->m; i++)
		for (int j = 0; j < B; j++) {
			uint32_t e = b->s[i * B + j]; if (!e) continue;
			grow_if_needed(a);
			int L; uint32_t x = known(b, i, e, &L);
			rehome(a, e & b->fmask, x, L, gen_of(b, e), (uint32_t)(i % b->c));
		}
	grow_if_needed(a);
	a->items += b->items;
}
static void exp_union(uint64_t C0, uint64_t na, uint64_t nb, double target)
{
	int f = f_for(target) - 3;
	T a, b; t_init(&a, LIN, f, 8, C0, 0.90); t_init(&b, LIN, f, 8, C0, 0.90);
	for (uint64_t i = 0; i < na; i++) t_insert(&a, hkey(i));
	for (uint64_t i = 0; i < nb; i++) t_insert(&b, hkey((1ull << 40) + i));
	if (b.m > a.m) { T tmp = a; a = b; b = tmp; }
	uint64_t ma = a.m;
	union_into(&a, &b);
	uint64_t fn = 0; for (uint64_t i = 0; i < na; i++) fn += !t_lookup(&a, hkey(i));
	for (uint64_t i = 0; i < nb; i++) fn += !t_lookup(&a, hkey((1ull << 40) + i));
	F x; x.mode = LIN; x.t = a;
	printf("union C0=%lu |A|=%lu |B|=%lu tgt=%.3f: m %lu + %lu -> %lu, bpi %.2f, fpr %.5f, FN=%lu, void copies %lu\n",
	       C0, na, nb, target, ma, b.m, a.m, t_bits(&a) / (na + nb), fpr_of(&x), fn, a.dups);
	t_free(&a); t_free(&b);
}
static void exp_compact_del(uint64_t C0, uint64_t n, uint64_t keep_n, double target)
{
	int tb = getenv("TB") ? atoi(getenv("TB")) : 8;
	int f = f_for(target) - (getenv("FD") ? atoi(getenv("FD")) : 3);
	T a; t_init(&a, LIN, f, tb, C0, 0.90);
	for (uint64_t i = 0; i < n; i++) t_insert(&a, hkey(i));
	for (uint64_t i = keep_n; i < n; i++) t_delete(&a, hkey(i));
	T d;
	if (!compact(&a, &d, tb, 0.90)) { printf("compact failed\n"); return; }
	uint64_t fn = 0; for (uint64_t i = 0; i < keep_n; i++) fn += !t_lookup(&d, hkey(i));
	F x; x.mode = LIN; x.t = d; F y; y.mode = LIN; y.t = a;
	T r; t_init(&r, LIN, f, tb, keep_n, 0.90); for (uint64_t i = 0; i < keep_n; i++) t_insert(&r, hkey(i));
	F z; z.mode = LIN; z.t = r;
	printf("compact-after-delete C0=%lu grown to %lu, %lu left: before m=%lu bpi %.2f fpr %.5f | compacted m=%lu bpi %.2f fpr %.5f FN=%lu | fresh growing filter for %lu: m=%lu bpi %.2f fpr %.5f\n",
	       C0, n, keep_n, a.m, t_bits(&a) / keep_n, fpr_of(&y), d.m, t_bits(&d) / keep_n, fpr_of(&x), fn, keep_n, r.m, t_bits(&r) / keep_n, fpr_of(&z));
	t_free(&a); t_free(&d); t_free(&r);
}
