/*
 * cf_format.h
 *     The serialised form of a cuckoo filter (docs/FORMAT.md): the one place
 *     where its byte offsets, field widths and format constants are written.
 *     The core, the unit tests' and fuzzers' reference reader (test/common/)
 *     and the mutation generator (test/common/cf_layout.py reads the
 *     CF_HEADER_FIELDS table below) all take the layout from here.
 *
 * A filter is a 48-byte little-endian header followed by the bucket array:
 * m buckets of bucket_bits bits each, packed from bit 0 of the first data
 * byte upward (little-endian bit order), then zero padding up to a multiple
 * of 64 bits, then eight bytes of zero slack, so that an unaligned 64-bit
 * load at any bucket never leaves the buffer.
 *
 * Plain C99; no PostgreSQL header.
 */
#ifndef CF_FORMAT_H
#define CF_FORMAT_H

#include <stdint.h>

#define CF_MAGIC			0x4F4F4B43u	/* bytes 'C' 'K' 'O' 'O' */
#define CF_VERSION			1
#define CF_HEADER_SIZE		48

/*
 * The header, field by field: X(NAME, byte offset, width in bytes).  Every
 * field is little-endian.  Keep one field per line: test/common/cf_layout.py
 * parses these lines.
 */
#define CF_HEADER_FIELDS(X) \
	X(MAGIC,          0, 4)	/* CF_MAGIC */ \
	X(VERSION,        4, 1)	/* CF_VERSION */ \
	X(BUCKET_SIZE,    5, 1)	/* b: 2, 4 or 8 */ \
	X(FP_BITS,        6, 1)	/* f: CF_MIN_FP_BITS .. CF_MAX_FP_BITS */ \
	X(FLAGS,          7, 1)	/* CF_FLAG_* */ \
	X(KIND,           8, 2)	/* cf_kind */ \
	X(RESERVED,      10, 2)	/* must be zero */ \
	X(TYPE_TAG,      12, 4)	/* non-zero only for CF_KIND_OTHER */ \
	X(NUM_BUCKETS,   16, 4)	/* m = c * 2^k, c < 2^CF_MANTISSA_BITS */ \
	X(MAX_KICKS,     20, 4)	/* 0 .. CF_MAX_KICKS_LIMIT */ \
	X(ITEMS,         24, 8)	/* stored fingerprints, victim included */ \
	X(CAPACITY,      32, 8)	/* rated capacity, 1 .. m * b */ \
	X(VICTIM_BUCKET, 40, 4)	/* with CF_FLAG_VICTIM, else zero */ \
	X(VICTIM_FP,     44, 4)	/* with CF_FLAG_VICTIM, else zero */

#define CF_FIELD_OFFSET_(name, off, width)	CF_OFF_##name = (off),
#define CF_FIELD_WIDTH_(name, off, width)	CF_WIDTH_##name = (width),
enum cf_header_offset
{
	CF_HEADER_FIELDS(CF_FIELD_OFFSET_)
	CF_OFF_END_ = CF_HEADER_SIZE
};
enum cf_header_width
{
	CF_HEADER_FIELDS(CF_FIELD_WIDTH_)
	CF_WIDTH_END_ = 0
};

/* The fields tile the header exactly. */
#define CF_FIELD_END_(name, off, width)	+ 0 * (off) + (width)
typedef char cf_header_fields_fill_header_[(0 CF_HEADER_FIELDS(CF_FIELD_END_)) == CF_HEADER_SIZE ? 1 : -1];

/* Header flag bits; any other bit set is an error. */
#define CF_FLAG_SEMISORT	0x01	/* buckets are semi-sorted (b = 4 only) */
#define CF_FLAG_VICTIM		0x02	/* the victim slot holds a fingerprint */
#define CF_FLAGS_KNOWN		(CF_FLAG_SEMISORT | CF_FLAG_VICTIM)

/* Format version 2 (growing / rotating filters, docs/FORMAT.md). */
#define CF_VERSION_2		2
#define CF_V2_TAIL_BITS		9	/* t of a growing filter */
#define CF_V2_MIN_TAIL_BITS	2	/* one spare bit at least: with t = 1 every
								 * split would copy every entry */
#define CF_V2_MAX_TAIL_BITS	15
#define CF_V2_MAX_GEN_BITS	8
#define CF_MAX_KEEP			255	/* cf_rotate's keep: 1 .. CF_MAX_KEEP */
#define CF_V2_LOAD			0.90	/* a growing filter splits a bucket when
									 * an insert would pass this load */
#define CF_V2_SPLIT_NUM		9	/* the same load as an exact fraction:
								 * split while 10 * (entries + 1) > 9 * b * m */
#define CF_V2_SPLIT_DEN		10
#define CF_V2_HEADER_SIZE	64	/* followed by 8 * 2^g bytes of
								 * per-generation item counts when g > 0 */
#define CF_V2_ADDR_BITS		32	/* address bits of an item: hi32(h) */

/*
 * The version-2 header, X(NAME, byte offset, width in bytes), one field per
 * line (test/common/cf_layout.py parses these lines too).  Offsets 0-47 keep
 * their version-1 meaning except RESERVED (now TAIL_BITS and GEN_BITS),
 * VICTIM_FP (now the whole victim slot) and ITEMS (logical items, not slots).
 */
#define CF_V2_HEADER_FIELDS(X) \
	X(MAGIC,          0, 4)	/* CF_MAGIC */ \
	X(VERSION,        4, 1)	/* CF_VERSION_2 */ \
	X(BUCKET_SIZE,    5, 1)	/* b: 4 (2 and 8 only when made by rotating a version-1 filter) */ \
	X(FP_BITS,        6, 1)	/* f: CF_MIN_FP_BITS .. 32, f + t + g <= 32 */ \
	X(FLAGS,          7, 1)	/* CF_FLAG_VICTIM, CF_FLAG_GROWS, CF_FLAG_BUDGET */ \
	X(KIND,           8, 2)	/* cf_kind */ \
	X(TAIL_BITS,     10, 1)	/* t: 0 (fixed) or CF_V2_MIN_TAIL_BITS .. CF_V2_MAX_TAIL_BITS (grows) */ \
	X(GEN_BITS,      11, 1)	/* g: 0 .. CF_V2_MAX_GEN_BITS */ \
	X(TYPE_TAG,      12, 4)	/* non-zero only for CF_KIND_OTHER */ \
	X(NUM_BUCKETS,   16, 4)	/* m = c * 2^k + split, split < c * 2^k */ \
	X(MAX_KICKS,     20, 4)	/* 0 .. CF_MAX_KICKS_LIMIT */ \
	X(ITEMS,         24, 8)	/* logical items of the live generations, <= ENTRIES */ \
	X(CAPACITY,      32, 8)	/* creation capacity, 1 .. INITIAL_BUCKETS * b */ \
	X(VICTIM_BUCKET, 40, 4)	/* with CF_FLAG_VICTIM, else zero */ \
	X(VICTIM_SLOT,   44, 4)	/* the victim's whole slot, with CF_FLAG_VICTIM, else zero */ \
	X(MANTISSA,      48, 2)	/* c: 1 .. 255, fixed at creation */ \
	X(CUR_GEN,       50, 1)	/* generation being filled, < 2^g */ \
	X(KEEP,          51, 1)	/* last keep given to rotate, < 2^g; 0: never rotated */ \
	X(INITIAL_BUCKETS, 52, 4)	/* m at creation, c * 2^k0 */ \
	X(ENTRIES,       56, 8)	/* occupied slots, victim included */

#define CF_V2_FIELD_OFFSET_(name, off, width)	CF_V2_OFF_##name = (off),
#define CF_V2_FIELD_WIDTH_(name, off, width)	CF_V2_WIDTH_##name = (width),
enum cf_v2_header_offset
{
	CF_V2_HEADER_FIELDS(CF_V2_FIELD_OFFSET_)
	CF_V2_OFF_END_ = CF_V2_HEADER_SIZE
};
enum cf_v2_header_width
{
	CF_V2_HEADER_FIELDS(CF_V2_FIELD_WIDTH_)
	CF_V2_WIDTH_END_ = 0
};
typedef char cf_v2_header_fields_fill_header_[(0 CF_V2_HEADER_FIELDS(CF_FIELD_END_)) == CF_V2_HEADER_SIZE ? 1 : -1];
/* the fields both versions share sit at the same offsets */
#define CF_V2_SAME_(a) ((int) CF_V2_OFF_##a == (int) CF_OFF_##a)
typedef char cf_v2_shared_offsets_[(CF_V2_SAME_(KIND) && CF_V2_SAME_(TYPE_TAG) && CF_V2_SAME_(ITEMS) &&
									CF_V2_SAME_(CAPACITY) && CF_V2_SAME_(FLAGS) && CF_V2_SAME_(NUM_BUCKETS) &&
									CF_V2_SAME_(VICTIM_BUCKET) && CF_V2_SAME_(MAX_KICKS) &&
									(int) CF_V2_OFF_VICTIM_SLOT == (int) CF_OFF_VICTIM_FP) ? 1 : -1];

/* Version-2 flag bits (bit 0, semi-sorting, must be clear in version 2). */
#define CF_FLAG_GROWS		0x04	/* expansion 2: splits buckets as it fills */
#define CF_FLAG_BUDGET		0x08	/* the address budget (docs/FORMAT.md 13.12);
										 * only with CF_FLAG_GROWS */
#define CF_V2_FLAGS_KNOWN	(CF_FLAG_VICTIM | CF_FLAG_GROWS | CF_FLAG_BUDGET)

#define CF_MIN_FP_BITS		4
#define CF_MAX_FP_BITS		32
#define CF_MAX_KICKS_LIMIT	100000
#define CF_DEFAULT_KICKS	500

/*
 * Largest serialised filter.  Chosen so that the base64 text form (4/3 of
 * it) still fits in PostgreSQL's 1 GB allocation limit: a filter that
 * cannot be printed cannot be dumped.
 */
#define CF_MAX_BYTES		(UINT64_C(805306368) - 65536)

/* Bucket counts: m = c * 2^k with c < 2^CF_MANTISSA_BITS (docs/DESIGN.md). */
#define CF_MANTISSA_BITS	8

/*
 * Buckets.  A plain bucket is b fields of f bits, field 0 lowest; 0 marks an
 * empty field.  A semi-sorted bucket (b = 4) is a 12-bit code, the rank of
 * the sorted multiset of the four 4-bit fingerprint prefixes among the
 * C(19,4) = 3876 such multisets, followed by the four (f - 4)-bit suffixes in
 * the same sorted order.
 */
#define CF_BUCKET_BITS(b, f, semisort) \
	((semisort) ? 4 * ((uint64_t) (f) - 1) : (uint64_t) (b) * (f))
#define CF_SS_PREFIX_BITS	4
#define CF_SS_CODE_BITS		12
#define CF_SS_CODES			3876
#define CF_DATA_SLACK_BYTES	8

/* What kind of value a filter holds (header field KIND). */
typedef enum cf_kind
{
	CF_KIND_ANY = 0,			/* empty filter that has not seen a value yet */
	CF_KIND_INTEGER = 1,		/* int2, int4, int8 */
	CF_KIND_NUMERIC = 2,
	CF_KIND_TEXT = 3,			/* text, varchar, bpchar, name */
	CF_KIND_BYTEA = 4,
	CF_KIND_UUID = 5,
	CF_KIND_DATE = 6,
	CF_KIND_TIMESTAMP = 7,
	CF_KIND_TIMESTAMPTZ = 8,
	CF_KIND_BOOL = 9,
	CF_KIND_FLOAT = 10,			/* float4, float8 */
	CF_KIND_OTHER = 11			/* any type with a hash opclass; type_tag names it */
} cf_kind;
#define CF_KIND_MAX			CF_KIND_OTHER

#endif							/* CF_FORMAT_H */
