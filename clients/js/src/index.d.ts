// Type declarations of pgcuckoo (format versions 1 and 2 of the cuckoofilter type:
// fixed, growing and rotated filters, read and changed byte for byte as the server does).

/** The value kinds of the header (docs/FORMAT.md). */
export declare const KIND: Readonly<{
  any: 0; integer: 1; numeric: 2; text: 3; bytea: 4; uuid: 5; date: 6;
  timestamp: 7; timestamptz: 8; boolean: 9; float: 10; other: 11;
}>;
export declare const KIND_NAMES: readonly string[];
/** The format version this library writes (it reads 1 and 2). */
export declare const FORMAT_VERSION: 1;

/** A value of an explicit SQL kind, made by uuid(), float8(), numeric(), date(), ... */
export declare class PgValue {
  readonly kind: number;
  private constructor();
}

/**
 * What a filter can hold: number (a safe integer) and bigint are SQL integers,
 * string is text, Uint8Array is bytea, Date is timestamptz, boolean is bool;
 * the helpers give the other kinds.
 */
export type Value = number | bigint | string | Uint8Array | Date | boolean | PgValue;

/** A uuid from its text form. */
export declare function uuid(s: string): PgValue;
/** A float4/float8 value (a plain number is an integer). */
export declare function float8(x: number): PgValue;
/** A float4 value: rounded to 32 bits, then widened, as PostgreSQL compares them. */
export declare function float4(x: number): PgValue;
/** A numeric value from its decimal text (1.0 and 1.00 alike). */
export declare function numeric(v: string | number | bigint): PgValue;
/** A date: "YYYY-MM-DD", a Date (its UTC day) or days since 2000-01-01. */
export declare function date(v: string | Date | number): PgValue;
/** A timestamp without time zone: ISO string, a Date's UTC fields, or bigint microseconds since 2000-01-01. */
export declare function timestamp(v: string | Date | bigint): PgValue;
/** A timestamptz: ISO string (no zone: UTC), a Date, or bigint microseconds since 2000-01-01 UTC. */
export declare function timestamptz(v: string | Date | bigint): PgValue;
/** A text value. */
export declare function text(s: string): PgValue;

/** The hash SQL cuckoo_hash(value) returns (a signed 64-bit integer). */
export declare function cuckooHash(value: Value): bigint;
/** XXH3-64, seed 0, as an unsigned BigInt. */
export declare function xxh3(data: Uint8Array): bigint;
/**
 * The filter SQL cuckoo_agg(value, fpr) builds from these values, byte for
 * byte (null and undefined are skipped); null when there is no value, as
 * cuckoo_agg gives NULL over no rows.  kind ("integer", "text", ...), when
 * given, is the kind every value must have.
 */
export declare function build(values: Iterable<Value | null | undefined>, fpr?: number, kind?: string): Filter | null;
/** The fingerprint bits cuckoo_agg uses for fpr. */
export declare function aggFpBits(fpr: number): number;
/** The false-positive rate of a filter with b-entry buckets of f-bit fingerprints at this load. */
export declare function expectedFpr(b: number, f: number, load: number): number;

/**
 * An item could not be stored (SQL raises SQLSTATE 54000).  For a
 * version-2 filter the message, detail, hint and code are the server's
 * (as node-postgres reports a server error).
 */
export declare class FilterFullError extends Error {
  code?: string;
  detail?: string;
  hint?: string;
}

/** The columns of SQL cuckoo_info(f). */
export interface FilterInfo {
  buckets: number;
  bucket_size: number;
  fingerprint_bits: number;
  semisort: boolean;
  items: number;
  capacity: number;
  load_factor: number;
  /** the serialised size plus PostgreSQL's 4-byte length word, as cuckoo_info reports it */
  bytes: number;
  bits_per_item: number | null;
  expected_fpr: number;
  value_type: string;
  max_kicks: number;
  is_full: boolean;
  /** the columns extension 1.2 added (a version-1 filter: 1, 0, 0, buckets, 0, 0, items, 0, 0, 0, [items]) */
  format_version: 1 | 2;
  expansion: 0 | 2;
  tail_bits: number;
  initial_buckets: number;
  growth_rounds: number;
  split_pointer: number;
  /** occupied slots (copies made by growth included) */
  entries: number;
  generation_bits: number;
  generation: number;
  keep: number;
  /** items per kept generation, the current one first */
  generation_items: number[];
}

/**
 * A cuckoofilter value.  add, addIfAbsent, remove, union and rotate return a
 * new Filter; the in-place forms change this one (left unchanged when they
 * throw).  Filter.fromBytes/fromText return a FilterV2 for a
 * format-version-2 value.  Errors of union and rotate that the server
 * raises with a detail carry the server's message, detail, hint and SQLSTATE
 * (code) when a version-2 filter is involved.
 */
export declare class Filter {
  /** The binary (bytea) form; RangeError unless the server would accept it. */
  static fromBytes(data: Uint8Array): Filter;
  /** The text (base64) form; RangeError unless the server would accept it. */
  static fromText(s: string): Filter;
  /** the format version of this value: 1, or 2 (a FilterV2) */
  readonly version: 1 | 2;
  readonly m: number;
  readonly b: number;
  readonly f: number;
  readonly semisort: boolean;
  readonly items: number;
  readonly capacity: number;
  readonly kind: number;
  readonly kindName: string;
  readonly maxKicks: number;
  readonly victimUsed: boolean;
  toBytes(): Uint8Array;
  toText(): string;
  toString(): string;
  equals(other: Filter): boolean;
  info(): FilterInfo;
  contains(value: Value): boolean;
  count(value: Value): number;
  add(value: Value): Filter;
  addIfAbsent(value: Value): Filter;
  remove(value: Value): Filter;
  addInPlace(value: Value): void;
  addIfAbsentInPlace(value: Value): boolean;
  removeInPlace(value: Value): boolean;
  /** SQL cuckoo_union (the multiset union; both of one shape and, for version 2, rotated in step). */
  union(other: Filter): Filter;
  /** SQL cuckoo_rotate(f, keep): a version-2 filter with a new generation, those keep or more old dropped (1 <= keep <= 255). */
  rotate(keep: number): FilterV2;
}

/**
 * A format-version-2 filter (growing or rotated; docs/FORMAT.md section 13):
 * every method of Filter, with the server's procedures (a growing filter
 * grows as values are added; addIfAbsent of a value found only in older
 * generations moves it to the current one), giving the bytes the server
 * gives for the same operations.
 */
export declare class FilterV2 extends Filter {
  readonly version: 2;
  /** tail bits t, generation bits g, slot width w = f + t + g */
  readonly t: number;
  readonly g: number;
  readonly w: number;
  readonly grows: boolean;
  /** the address budget (flag 0x08, docs/FORMAT.md 13.12): entries know at most A address bits */
  readonly budget: boolean;
  /** A = 32 - bitlen(c) with the address budget, else 32 */
  readonly A: number;
  readonly entries: number;
  /**
   * An empty growing filter as cuckoo_create(capacity, fpr, max_kicks =>
   * maxKicks, expansion => 2) makes it from extension 1.3 on: an address
   * budget filter (t = T(k0)).  RangeError (code 22023) for arguments the
   * server refuses.
   */
  static createGrowing(capacity: number, fpr?: number, maxKicks?: number): FilterV2;
}

/** The segment (0 .. segments - 1) that holds the value of hash h in a store of
 *  `segments` segments (docs/FORMAT.md section 14). */
export declare function storeSegment(h: bigint, segments: number): number;

/** Bytes of every chunk row of a store's segment but the last (1.6). */
export declare const STORE_CHUNK_BYTES: number;

/** A stored filter (cuckoo_store_create) from its rows: [segment, f] pairs, as
 *  `SELECT segment, f::bytea FROM cuckoo_store_segments(store)` returns them. */
export declare class Store {
  constructor(rows: Iterable<[number, Uint8Array | Filter]>);
  /** From the chunk rows (1.6): [segment, chunk, bytes] triples, in any order. */
  static fromChunks(rows: Iterable<[number, number, Uint8Array]>): Store;
  readonly segments: number;
  segmentOf(value: Value): number;
  contains(value: Value): boolean;
}
