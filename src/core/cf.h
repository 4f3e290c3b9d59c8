/*
 * cf.h
 *     The cuckoo filter core's API: table layout, partial-key cuckoo hashing,
 *     insert / lookup / delete / count, union, shrink, validation and the
 *     text codec.  Plain C99: no PostgreSQL header may be included here or in
 *     any file of src/core/, so the core can be unit-tested, fuzzed and
 *     benchmarked on its own.
 *
 * A filter lives in one contiguous byte buffer, the serialised form
 * (cf_format.h, docs/FORMAT.md).  The in-memory and on-disk forms are the
 * same bytes, so a value read from a table is probed without any conversion.
 * A cf_filter is a small view over such a buffer with the derived
 * quantities precomputed.
 *
 * Files (docs/DESIGN.md, "Layers"): cf_api.c, the entry points that do not
 * depend on the format, chooses each filter's format once (cf_ops.h: a table
 * of operations per format); format 1 is cf_header.c, cf_validate.c,
 * cf_table.c, cf_shape.c, cf_build.c and cf_union.c (private header
 * cf_v1.h), format 2 the cf_v2_*.c files (cf_v2.h); cf_checks.c, cf_sizing.c,
 * cf_semisort.c and cf_base64.c serve both; cf_internal.h holds the inline
 * helpers they share; cf_slice.c and cf_store.c sit above the API.
 */
#ifndef CF_H
#define CF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cf_format.h"

/* Results of the mutating operations. */
typedef enum cf_status
{
	CF_OK = 0,					/* stored */
	CF_OK_STASHED = 1,			/* stored, but the victim slot is now in use:
								 * the filter is full */
	CF_EXISTS = 2,				/* insert_if_absent: already present, no change */
	CF_FULL = 3,				/* no room; nothing was changed */
	CF_TOO_MANY_COPIES = 4,		/* both candidate buckets hold only this
								 * fingerprint; nothing was changed */
	CF_SHAPE_MISMATCH = 5,		/* union of filters of different shape */
	CF_KIND_MISMATCH = 6		/* union of filters of different value kinds */
} cf_status;

/* Parameters of a new filter. */
typedef struct cf_params
{
	uint32_t	num_buckets;	/* m, must be representable (cf_round_buckets) */
	uint32_t	bucket_size;	/* b: 2, 4 or 8 */
	uint32_t	fp_bits;		/* f: 4 .. 32 */
	bool		semisort;		/* only with b = 4 */
	uint32_t	max_kicks;		/* 0 .. CF_MAX_KICKS_LIMIT */
	uint16_t	kind;			/* cf_kind */
	uint32_t	type_tag;		/* non-zero only for CF_KIND_OTHER */
	uint64_t	capacity;		/* rated capacity, 1 .. m * b */
	/*
	 * Format version 2 (issue 11, docs/FORMAT.md).  All zero: a version-1
	 * filter, written byte for byte as 1.0 writes it.
	 */
	uint32_t	expansion;		/* 0: fixed; 2: grows by linear hashing
								 * (version 2, b = 4, plain buckets) */
	uint32_t	tail_bits;		/* t: spare address bits per entry; 0 unless
								 * expansion = 2 (then 2 .. 15, or T(k0)
								 * with the address budget) */
	uint32_t	gen_bits;		/* g: generation tag bits, 0 .. CF_V2_MAX_GEN_BITS */
	bool		budget;			/* address budget (docs/FORMAT.md 13.12, flag
								 * 0x08): only with expansion 2; then
								 * tail_bits must be T(k0) (cf_budget_tail) */
} cf_params;

/* A view over a serialised filter; cheap to build, holds no allocation. */
typedef struct cf_filter
{
	/*
	 * The fields a lookup of the common shapes reads come first, in the
	 * first two 64-byte lines of the struct (a lookup in many views, the
	 * segments of a store, waits for each view's lines: cf_contains_each).
	 *
	 * The lookup, delete and insert cf_open chose for the filter's format and
	 * shape (format 1: cf_shape.c; format 2: cf_v2_lookup.c, cf_v2_table.c),
	 * set for every format: cf_contains is one indirect call.
	 * Process-local: a view is not to be shared between processes.
	 */
	bool		(*contains_fn) (const struct cf_filter *cf, uint64_t h);
	const struct cf_ops *ops;	/* the format's operations (cf_ops.h), set by
								 * cf_open */
	uint8_t    *buf;			/* header + data */
	uint8_t    *data;			/* buf + CF_HEADER_SIZE */
	uint32_t	m;				/* buckets */
	uint32_t	c;				/* m = c << k */
	uint32_t	k;
	uint32_t	rmask;			/* (1 << k) - 1 */
	uint32_t	b;
	uint32_t	f;
	uint32_t	fp_range;		/* 2^f - 1: fingerprints are 1 .. fp_range */
	uint32_t	fp_mask;		/* same value, used as a bit mask */
	uint32_t	low_bits;		/* semisort: bits stored per entry besides the
								 * 4-bit prefix, f - 4 */
	uint32_t	bucket_bits;
	uint32_t	split;			/* v2: m = c * 2^k + split */
	uint32_t	tmask;			/* v2: 2^t - 1 */
	/* SWAR probing of a plain bucket read as one 64-bit word */
	uint64_t	lo_ones;		/* bit 0 of each of the b fields */
	/* v2 lookups (cf_v2_lookup.c): base * bucket_bits */
	uint64_t	v2_base_bits;
	/* v2, b = 4, w <= 16 (cf_v2_lookup.c, contains2_w16): bit f, the f + t
	 * low bits, the t tail bits and bit f + t of each slot */
	uint64_t	v2_tone,
				v2_fpt,
				v2_tails,
				v2_carry;
	/* (end of the lookup's lines: 128 bytes) */
	size_t		len;
	bool		semisort;
	uint32_t	max_kicks;
	/* SWAR probing (with lo_ones above) */
	uint64_t	hi_bits;		/* bit f-1 of each of the b fields */
	uint64_t	bucket_mask;	/* the low bucket_bits bits */
	bool		word_probe;		/* plain, and every bucket fits one 64-bit
								 * load at any bit offset */
	bool		ss_word_probe;	/* the same for a semi-sorted filter */
	/* the other per-item functions cf_open chose (see contains_fn) */
	void		(*contains_many_fn) (const struct cf_filter *cf, const uint64_t *h,
									 size_t n, bool *out);
	bool		(*remove_fn) (struct cf_filter *cf, uint64_t h);
	cf_status	(*insert_fn) (struct cf_filter *cf, uint64_t h);
	/* the same for the four (f-4)-bit suffixes of a semi-sorted bucket */
	uint64_t	ss_lo_ones;
	uint64_t	ss_hi_bits;
	size_t		alloc;			/* usable bytes at buf (>= len) */
	/* version 2 (the core fills these, split and tmask above too; hosts read
	 * them only via cf_get_info) */
	uint32_t	base;			/* v2: c * 2^k */
	uint32_t	t;				/* v2: tail bits */
	uint32_t	g;				/* v2: generation bits */
	uint32_t	w;				/* v2: slot bits f + t + g */
	uint32_t	slot_mask;		/* v2: 2^w - 1 */
	uint32_t	gmask;			/* v2: 2^g - 1 */
	uint32_t	hdr;			/* header bytes (v2: 64 + 8 * 2^g if g > 0) */
	bool		grows;			/* v2: CF_FLAG_GROWS */
	bool		budget;			/* v2: CF_FLAG_BUDGET (docs/FORMAT.md 13.12) */
	uint32_t	abits;			/* v2 with budget: A = 32 - bitlen(c), else 32 */
	/* v2 probe constants (b = 4, w <= 30), 128 bits as low and high words:
	 * bit 0 of each slot, the low f-1 fingerprint bits, bit f-1, 4w bits */
	uint64_t	p2_ones[2],
				p2_low[2],
				p2_high[2],
				p2_mask[2];
	/* v2 probe word (b = 4, w <= 28; cf_v2_lookup.c, word_at): the slots one
	 * 64-bit load holds, 4 if w <= 16, else 2; lo_ones, hi_bits and
	 * bucket_mask above are its bit 0 and bit f-1 of each slot and its bits. */
} cf_filter;

/*
 * Called every 65536 buckets by the loops whose length grows with the filter
 * (validation, union, rehash), so that a host can cancel them; it may not
 * return (PostgreSQL's CHECK_FOR_INTERRUPTS longjmps).  NULL: not called.
 */
typedef void (*cf_interrupt_fn) (void);
extern cf_interrupt_fn cf_interrupt_hook;

/* ---- sizing ---- */
extern double cf_target_load(uint32_t bucket_size);
extern uint32_t cf_round_buckets(uint64_t min_buckets);
extern bool cf_buckets_representable(uint64_t m);
extern uint32_t cf_buckets_for_capacity(uint64_t capacity, uint32_t bucket_size);
extern int	cf_fp_bits_for_fpr(double fpr, uint32_t bucket_size);
extern int	cf_fp_bits_for_fpr_at(double fpr, uint32_t bucket_size, double load);
extern size_t cf_bucket_bits(uint32_t bucket_size, uint32_t fp_bits, bool semisort);
extern uint64_t cf_data_bytes(uint64_t m, uint32_t bucket_size, uint32_t fp_bits, bool semisort);
extern uint64_t cf_total_bytes(uint64_t m, uint32_t bucket_size, uint32_t fp_bits, bool semisort);
extern double cf_expected_fpr(uint32_t bucket_size, uint32_t fp_bits, double load);

/* ---- construction and views ---- */
extern bool cf_check_params(const cf_params *p, char *err, size_t errlen);
extern void cf_init(void *buf, const cf_params *p);
extern void cf_open(cf_filter *cf, const void *buf, size_t len);
extern bool cf_check_header(const void *buf, size_t len, char *err, size_t errlen);
extern bool cf_validate(const void *buf, size_t len, char *err, size_t errlen);

/* ---- header accessors ---- */
extern uint64_t cf_items(const cf_filter *cf);
extern uint64_t cf_capacity(const cf_filter *cf);
extern uint16_t cf_kind_of(const cf_filter *cf);
extern uint32_t cf_type_tag(const cf_filter *cf);
extern bool cf_victim_used(const cf_filter *cf);
extern void cf_set_kind(cf_filter *cf, uint16_t kind, uint32_t type_tag);
extern void cf_get_params(const cf_filter *cf, cf_params *p);

/*
 * ---- item operations; h is the item's 64-bit hash ----
 * The caller records the value kind (cf_set_kind) before the first insert into
 * a CF_KIND_ANY filter: cf_validate rejects a kind-ANY filter with items.
 */
extern cf_status cf_insert(cf_filter *cf, uint64_t h);
extern cf_status cf_insert_if_absent(cf_filter *cf, uint64_t h);
/* Inserts in order until a status other than CF_OK; returns how many were
 * stored with CF_OK and sets *st (memory accesses overlapped). */
extern size_t cf_insert_many(cf_filter *cf, const uint64_t *h, size_t n, cf_status *st);
/* cf_insert_if_absent of h[0 .. n-1] in order, with memory accesses
 * overlapped (cf_build.c); stops at the first status other than CF_OK,
 * CF_OK_STASHED or CF_EXISTS, returns how many were handled and sets *st. */
extern size_t cf_insert_if_absent_many(cf_filter *cf, const uint64_t *h, size_t n,
									   cf_status *st);
extern bool cf_contains(const cf_filter *cf, uint64_t h);
/* n lookups at once, with memory accesses overlapped: out[j] = contains(h[j]) */
extern void cf_contains_many(const cf_filter *cf, const uint64_t *h, size_t n, bool *out);
/* out[j] = cf_contains(cfs[j], h[j]) for n lookups in as many views (a store's
 * segments), with memory accesses overlapped, the views' own included */
extern void cf_contains_each(const cf_filter *const *cfs, const uint64_t *h, size_t n,
							 bool *out);
extern uint32_t cf_count(const cf_filter *cf, uint64_t h);
extern bool cf_remove(cf_filter *cf, uint64_t h);
/*
 * The remove of a count that saturates at level copies (the living
 * filters: docs/DESIGN.md, "Duplicates"): -1, nothing removed, when the
 * entry cf_remove would take is compatible with level or more entries of
 * h's pair (they agree on the address bits both know: some value matching
 * it may have level or more copies, saturated, and rely on it), which
 * includes every case of cf_count(h) >= level; else cf_remove: 1 removed,
 * 0 not there.
 */
extern int	cf_remove_saturating(cf_filter *cf, uint64_t h, uint32_t level);

/* Where an item lives: its fingerprint and first candidate bucket. */
extern void cf_locate(const cf_filter *cf, uint64_t h, uint32_t *fp, uint32_t *i1);
extern uint32_t cf_alt_bucket(const cf_filter *cf, uint32_t i, uint32_t fp);

/* ---- whole-filter operations ---- */
extern cf_status cf_union_into(cf_filter *dst, const cf_filter *src);
extern uint32_t cf_shrink_target(const cf_filter *cf);
extern cf_status cf_rehash_into(const cf_filter *src, cf_filter *dst);

/*
 * ---- version 2: growing and rotating filters (issue 11) ----
 *
 * Every operation above (insert, insert_if_absent, insert_many, contains,
 * contains_many, count, remove, union_into, validate, check_header, items,
 * victim_used, get_params, ...) accepts a version-2 filter as well and
 * dispatches inside the core; a host never needs to branch on the version:
 * where it must choose (shrink: cf_compact_* below; messages), it asks
 * cf_caps.
 *
 * Growth needs a larger buffer.  cf_filter.alloc is the number of bytes
 * usable at cf_filter.buf (cf_open sets it to len; a host that over-allocates
 * may raise it).  When a growing filter needs more, the core calls
 * cf_realloc_hook(buf, new_alloc) at a point where the filter is valid, then
 * updates cf->buf, cf->data, cf->alloc and (after the split) cf->len.  The
 * hook returns the new buffer with the old contents, or NULL: the operation
 * then fails with CF_FULL and leaves the filter unchanged and valid.  A hook
 * may also not return (PostgreSQL's repalloc ERRORs), which is safe for the
 * same reason.  NULL hook: the core uses realloc().  After any mutating call
 * on a growing filter the host must re-read cf->buf and cf->len.
 * A split that would make len exceed CF_MAX_BYTES is not done: the insert
 * proceeds in the current table and fails with CF_FULL only if no room.
 * A growing filter's CF_FULL or CF_TOO_MANY_COPIES leaves its items as they
 * were, but buckets may have been split before the insert was refused (the
 * bytes then differ; the filter is valid).  A NULL from the hook at the
 * first growth step of a call leaves identical bytes (CF_FULL); a NULL at a
 * later step (more splits needed than reserved, or the bounded splits after
 * a failed kick walk) stops the growth and the insert goes on in the table
 * as it is.
 */
typedef void *(*cf_realloc_fn) (void *buf, size_t new_alloc);
extern cf_realloc_fn cf_realloc_hook;

/* Tail bits T(k) of an address-budget filter of mantissa c, fingerprint
 * f, generation bits g at round k (docs/FORMAT.md 13.12); may be below 2
 * (then no such filter exists). */
extern int	cf_budget_tail(uint32_t c, uint32_t k, uint32_t f, uint32_t g);
/* Parameters of a growing filter for capacity items at rate fpr:
 * expansion 2, b 4, f = f_fixed - 4 (>= CF_MIN_FP_BITS), the address budget
 * (t = T(k0), docs/FORMAT.md 13.12), m for capacity at the growth load.
 * false + err when it cannot be made. */
extern bool cf_params_growing(uint64_t capacity, double fpr, uint32_t max_kicks,
							  cf_params *p, char *err, size_t errlen);

/* 1 or 2 */
extern uint32_t cf_version(const cf_filter *cf);

/*
 * What a filter's format can do, for a host that must choose between
 * operations or messages (instead of comparing format versions):
 *   CF_CAP_GROWS        the format can grow (linear hashing): cf_info's c,
 *                       k, split and initial_buckets describe its growth
 *   CF_CAP_GENERATIONS  the format keeps generations: cf_rotate stays in it,
 *                       and items counts the live generations while
 *                       cf_info.entries counts the occupied slots
 *   CF_CAP_COMPACTS     shrinking is cf_compact_* (else cf_shrink_target
 *                       and cf_rehash_into)
 *   CF_CAP_CREATION_SHAPE  unions need the same creation shape (cf_info's
 *                       initial_buckets, tail_bits, generations), not the
 *                       same current size
 * Format 1 has none of them, format 2 all.
 */
#define CF_CAP_GROWS			0x01
#define CF_CAP_GENERATIONS		0x02
#define CF_CAP_COMPACTS			0x04
#define CF_CAP_CREATION_SHAPE	0x08
extern uint32_t cf_caps(const cf_filter *cf);

/* The exact length cf_init writes for p (version 1 or 2); p must pass
 * cf_check_params.  For version 1 it equals cf_total_bytes(). */
extern uint64_t cf_init_bytes(const cf_params *p);

/*
 * cf_get_params on a version-2 filter gives its creation shape: num_buckets
 * is the bucket count at creation (cf_info.initial_buckets), not the current
 * cf->m, so that cf_init of it makes an empty filter that unions with it.
 */

/* What cuckoo_info reports beyond cf_get_params. */
typedef struct cf_info
{
	uint32_t	version;
	uint32_t	expansion;		/* 0 or 2 */
	uint32_t	tail_bits;
	uint32_t	gen_bits;
	uint32_t	c;				/* m = c * 2^k + split (version 2) */
	uint32_t	k;
	uint32_t	split;			/* linear-hashing split pointer p */
	uint32_t	initial_buckets;	/* m at creation */
	uint64_t	entries;		/* occupied slots, victim included (>= items) */
	uint32_t	cur_gen;		/* generation being filled */
	uint32_t	keep;			/* last keep given to cf_rotate (0: never) */
	uint32_t	generations;	/* live generations reported in gen_items */
	uint64_t	gen_items[256];	/* items per live generation, newest first */
	uint32_t	addr_budget;	/* A of an address-budget filter (13.12), else 0 */
	uint32_t	caps;			/* cf_caps */
} cf_info;
extern void cf_get_info(const cf_filter *cf, cf_info *out);

/*
 * Rotation: a new generation is started and the generations older than the
 * last keep (the new one included) are dropped.  Works on version 1 and 2;
 * the result is version 2 (a fixed filter stays fixed: t = 0).
 * cf_rotate_bytes: the exact length of the result, 0 if keep is out of
 * range (1 .. CF_MAX_KEEP), the result would exceed CF_MAX_BYTES, or the
 * generation bits keep needs (the smallest g with 2^g > keep) do not fit the
 * 32-bit slot beside f and t (f + t + g > 32: a version-1 filter with
 * f = 32 cannot be rotated at all, one with f = 31 only with keep 1).
 * Union of rotated filters needs the same g, cur_gen and keep (filters
 * rotated in step); otherwise CF_SHAPE_MISMATCH.
 * cf_rotate writes the result into dst (that many bytes; src is not changed).
 */
extern size_t cf_rotate_bytes(const cf_filter *src, uint32_t keep);
extern void cf_rotate(const cf_filter *src, uint32_t keep, void *dst);

/*
 * Compaction of a version-2 filter: the smallest table that holds its
 * entries, without the keys (docs/DESIGN.md says where it cannot go).
 * cf_compact_bytes: exact length of the result (0 for a version-1 filter:
 * use cf_shrink_target / cf_rehash_into); cf_compact_into writes it (CF_OK,
 * or CF_FULL if it did not fit: the host then keeps src; CF_SHAPE_MISMATCH
 * for a version-1 src or a len other than cf_compact_bytes).  The result has
 * src's header (creation shape, generations, items) and fewer or as many
 * buckets.
 */
extern size_t cf_compact_bytes(const cf_filter *src);
extern cf_status cf_compact_into(const cf_filter *src, void *dst, size_t len);

/*
 * Compaction tries tables of growing size until the entries fit (a table
 * poured at once, without splits, can fail its kick walks at the growth
 * load).  cf_compact_try_bytes(src, attempt, &m): the length of the
 * attempt-th candidate (attempt 0 is cf_compact_bytes) and its bucket count
 * m, or 0 when no candidate is left (every candidate after the first is
 * smaller than src).  cf_compact_try_into(src, m, dst, len) pours into it
 * (CF_OK, CF_FULL, or CF_SHAPE_MISMATCH for a version-1 src or a len that
 * does not match m).  cf_compact_fresh_bytes(src): the length of an empty
 * filter of src's slot shape made for src's items at the growth load, with
 * at least c buckets (c * 2^k for a fixed filter): the yardstick
 * cuckoo_shrink reports against.
 */
extern size_t cf_compact_try_bytes(const cf_filter *src, uint32_t attempt, uint32_t *m);
extern cf_status cf_compact_try_into(const cf_filter *src, uint32_t m, void *dst, size_t len);
extern size_t cf_compact_fresh_bytes(const cf_filter *src);

/* ---- hashing and text codec ---- */
extern uint64_t cf_hash_bytes(const void *data, size_t len);
extern uint64_t cf_hash_u64(uint64_t v);
extern size_t cf_b64_encoded_len(size_t n);
extern void cf_b64_encode(const uint8_t *src, size_t n, char *dst);
extern bool cf_b64_decoded_len(const char *src, size_t n, size_t *out);
extern bool cf_b64_decode(const char *src, size_t n, uint8_t *dst);

extern const char *cf_kind_name(uint16_t kind);


/*
 * Debug builds (CF_DEBUG defined: the unit-test and fuzz builds) check the
 * filter's invariants at the core's boundaries and abort with a message when
 * one fails; cf_assert_valid is the full check (the structural validation of
 * cf_validate), callable from a host's own assertion builds.
 */
extern void cf_assert_valid(const cf_filter *cf, const char *where);

#endif							/* CF_H */
