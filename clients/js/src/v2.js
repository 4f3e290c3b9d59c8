// Format version 2 (docs/FORMAT.md section 13): growing and rotating filters.
//
// A port of the server's core (src/core/cf_v2_*.c): validation as strict as
// the server's (cf2_check_header and cf2_validate: the same rules in the same
// order, with the same wording), lookups (contains, count), info, and the
// changing operations with the core's procedures step for step, so that the
// same operations give the same bytes: insert with growth (bucket splits at
// load 0.90, entries that know no spare address bit copied, the kick walk
// seeded from the item, the victim slot and the splits that relieve it),
// insert-if-absent with generations, remove (the most specific match, the
// generation "raise") and union (entries re-homed, with copies where the
// target knows more address bits than the entry).

import { mulhi32 } from './xxh3.js';
import { KIND, KIND_NAMES } from './values.js';
import { Rng } from './rng.js';
import { Filter, FilterFullError, expectedFpr, hv } from './filter.js';
import { registerFormat } from './formats.js';

const HEADER_2 = 64;
const FLAG_VICTIM = 2;
const FLAG_GROWS = 4;
const FLAG_BUDGET = 8;            // the address budget (13.12)
const FLAGS_KNOWN_2 = FLAG_VICTIM | FLAG_GROWS | FLAG_BUDGET;
const MAX_KICKS_LIMIT = 100000;
const MAX_BYTES = 805306368 - 65536;
const ADDR_BITS = 32;
const K_BUCKET_LO = 0x7F4A7C15;   // 0x9E3779B97F4A7C15
const K_BUCKET_HI = 0x9E3779B9;
const K_FP_LO = 0x27D4EB4F;       // 0xC2B2AE3D27D4EB4F
const K_FP_HI = 0xC2B2AE3D;

const OK = 0, OK_STASHED = 1, EXISTS = 2, FULL = 3, TOO_MANY_COPIES = 4;

const rd16 = (p, o) => p[o] | (p[o + 1] << 8);
const rd32 = (p, o) => (p[o] | (p[o + 1] << 8) | (p[o + 2] << 16) | (p[o + 3] << 24)) >>> 0;
const rd64 = (p, o) => rd32(p, o) + rd32(p, o + 4) * 4294967296;      // exact below 2^53
const rd64big = (p, o) => (BigInt(rd32(p, o + 4)) << 32n) | BigInt(rd32(p, o));
// the low n bits (0 <= n <= 32); no 2 ** n, which costs a call to Math.pow
const mask = (n) => (n === 0 ? 0 : 0xFFFFFFFF >>> (32 - n));
const log2 = (x) => 31 - Math.clz32(x | 1);
const hex2 = (x) => x.toString(16).padStart(2, '0');
// the address budget of mantissa c (13.12): A = 32 - bitlen(c), and the tail
// width T(k) = min(A - k + 1, 32 - f - g) of a budget filter at round k
const budgetA = (c) => Math.clz32(c);
const budgetT = (c, k, f, g) => Math.min(budgetA(c) - k + 1, 32 - f - g);
function wr32(p, o, v) {
  p[o] = v & 255; p[o + 1] = (v >>> 8) & 255; p[o + 2] = (v >>> 16) & 255; p[o + 3] = (v >>> 24) & 255;
}
function wr64(p, o, v) {
  wr32(p, o, v >>> 0);
  wr32(p, o + 4, Math.floor(v / 4294967296) >>> 0);
}

const POW2 = Float64Array.from({ length: 33 }, (_, i) => 2 ** i);
const headerBytes = (g) => HEADER_2 + (g ? 8 * 2 ** g : 0);
const totalBytes2 = (m, b, w, g) => headerBytes(g) + Math.ceil((m * b * w) / 64) * 8 + 8;

// the w-bit field (w <= 32) at bit pos of the table that starts at byte base
// (bit positions reach 2^33 in the largest filters: integer shifts below
// 2^31, division above)
function getBitsAt(d, base, pos, w) {
  let byte, sh;
  if (pos < 2147483648) { byte = base + (pos >> 3); sh = pos & 7; } else { byte = base + Math.floor(pos / 8); sh = pos % 8; }
  let v = (d[byte] | (d[byte + 1] << 8) | (d[byte + 2] << 16) | (d[byte + 3] << 24)) >>> sh;
  if (sh + w > 32) v = (v | (d[byte + 4] << (32 - sh))) >>> 0;
  return (v & (0xFFFFFFFF >>> (32 - w))) >>> 0;     // 1 <= w <= 32
}

// the w-bit field (w <= 32) at bit pos of the table that starts at byte base
// := the low w bits of val: the four bytes from the field's first, rewritten
// whole (the bits around the field as they were), and a fifth when the field
// reaches it
function setBitsAt(d, base, pos, w, val) {
  let byte, sh;
  if (pos < 2147483648) { byte = base + (pos >> 3); sh = pos & 7; } else { byte = base + Math.floor(pos / 8); sh = pos % 8; }
  const m = 0xFFFFFFFF >>> (32 - w);
  const word = d[byte] | (d[byte + 1] << 8) | (d[byte + 2] << 16) | (d[byte + 3] << 24);
  const x = (word & ~(m << sh)) | ((val & m) << sh);
  d[byte] = x; d[byte + 1] = x >>> 8; d[byte + 2] = x >>> 16; d[byte + 3] = x >>> 24;
  if (sh + w > 32) {
    const hm = (1 << (sh + w - 32)) - 1;
    d[byte + 4] = (d[byte + 4] & ~hm) | ((val >>> (32 - sh)) & hm);
  }
}

// printf's %.3f of a non-negative x: the exact binary value rounded, ties
// (x = odd / 16) to even, where toFixed rounds them up
function fixed3(x) {
  if (Number.isInteger(x * 16) && !Number.isInteger(x * 8)) {
    const lo = Math.floor(x * 1000);
    return ((lo % 2 === 0 ? lo : lo + 1) / 1000).toFixed(3);
  }
  return x.toFixed(3);
}

/** An error worded as the server's: message, detail, hint and SQLSTATE as node-postgres reports them. */
function serverError(Cls, code, message, detail, hint) {
  const e = new Cls(message);
  e.code = code;
  e.detail = detail;
  e.hint = hint;
  return e;
}

// the parts of cuckoo_info a union's shape errors name, for either version
function shapeOf(x) {
  const v2 = x.version === 2;
  return {
    v2,
    grows: v2 && x.grows,
    budget: v2 && x.budget,
    b: x.b,
    f: x.f,
    t: v2 ? x.t : 0,
    c: x.c,
    m0: v2 ? rd32(x._buf, 52) : x.m,
    capacity: x.capacity,
    g: v2 ? x.g : 0,
    cur: v2 ? x._buf[50] : 0,
    keep: v2 ? x._buf[51] : 0,
  };
}

/**
 * The error cuckoo_union(a, b) raises for filters of different creation
 * shapes, or of one shape whose generations differ (src/cuckoo_error.c,
 * filter_report_status), when either is of version 2.
 */
export function shapeMismatch(a, b) {
  const x = shapeOf(a), y = shapeOf(b);
  // an address-budget filter's t follows its size and g: not compared
  if (x.grows === y.grows && x.b === y.b && x.f === y.f && (x.t === y.t || (x.budget && y.budget))
    && x.c === y.c && x.capacity === y.capacity) {
    const state = (s) => (s.keep === 0 ? 'was never rotated'
      : `is in generation ${s.cur} of ${s.g}-bit tags, rotated last with keep ${s.keep}`);
    return serverError(RangeError, '22023', 'cannot union cuckoo filters that were not rotated in step',
      `The first ${state(x)}; the second ${state(y)}.`,
      'Rotate filters that are to be unioned together, by the same cuckoo_rotate calls, or union them before rotating.');
  }
  const what = (s) => `${s.grows ? 'growing' : (s.v2 ? 'fixed, rotated' : 'fixed')}: ${s.f}-bit fingerprints, `
    + `${s.t} tail bits, created with ${s.m0} buckets for capacity ${s.capacity}`;
  return serverError(RangeError, '22023', 'cannot union cuckoo filters of different shapes',
    `The first is ${what(x)}; the second is ${what(y)}.`,
    'Filters made by cuckoo_create or cuckoo_agg(value, capacity, fpr [, expansion]) with the same arguments have the same shape, however far they have grown.');
}

/** The error cuckoo_union raises for filters of two value kinds. */
export function kindMismatch(dk, sk) {
  return serverError(TypeError, '42804',
    `cannot union a cuckoo filter of ${KIND_NAMES[dk]} values with one of ${KIND_NAMES[sk]} values`);
}

// version 1's mantissa of a bucket count (docs/FORMAT.md section 3)
function mantissa(m) {
  const lg = 31 - Math.clz32(m);
  return Math.floor(m / 2 ** (lg >= 7 ? lg - 7 : 0));
}

// the largest k with c * 2^k <= m
function levels(c, m) {
  let k = 0;
  while (c * 2 ** (k + 1) <= m) k++;
  return k;
}

/** cf2_check_header: throws RangeError naming the first broken rule. */
export function checkHeader2(p) {
  const n = p.length;
  if (n < HEADER_2) throw new RangeError(`${n} bytes is shorter than the 64-byte version-2 header`);
  const flags = p[7];
  if (flags & ~FLAGS_KNOWN_2) throw new RangeError(`unknown flag bits 0x${hex2(flags & ~FLAGS_KNOWN_2)}`);
  const grows = (flags & FLAG_GROWS) !== 0, budget = (flags & FLAG_BUDGET) !== 0;
  if (budget && !grows) throw new RangeError('the address budget flag is set on a filter that does not grow');
  const b = p[5], f = p[6], t = p[10], g = p[11];
  if (b !== 2 && b !== 4 && b !== 8) throw new RangeError(`bucket size ${b} is not 2, 4 or 8`);
  if (grows && b !== 4) throw new RangeError(`a growing filter has bucket size 4, not ${b}`);
  if (f < 4 || f > 32) throw new RangeError(`fingerprint size ${f} is outside the range 4 to 32 bits`);
  if (budget ? t < 2 : (t > 15 || (grows ? t < 2 : t !== 0))) throw new RangeError(`tail bits ${t} do not fit a ${grows ? 'growing' : 'fixed'} filter`);
  if (g > 8) throw new RangeError(`generation bits ${g} exceed 8`);
  const w = f + t + g;
  if (w > 32) throw new RangeError(`slot of ${w} bits exceeds 32`);
  const kind = rd16(p, 8), tag = rd32(p, 12);
  if (kind > KIND.other) throw new RangeError(`value kind ${kind} is unknown`);
  if ((kind === KIND.other) !== (tag !== 0)) throw new RangeError(`type tag ${tag} does not match value kind ${kind}`);
  const kicks = rd32(p, 20);
  if (kicks > MAX_KICKS_LIMIT) throw new RangeError(`max kicks ${kicks} is outside the range 0 to ${MAX_KICKS_LIMIT}`);
  const c = rd16(p, 48), m = rd32(p, 16), m0 = rd32(p, 52);
  if (c < 1 || c >= 256) throw new RangeError(`bucket mantissa c = ${c} is outside the range 1 to 255`);
  if (m < c) throw new RangeError(`bucket count ${m} is below the mantissa ${c}`);
  const k0 = levels(c, m0);
  if (m0 < c || c * 2 ** k0 !== m0) throw new RangeError(`initial bucket count ${m0} is not c * 2^k for c = ${c}`);
  if (mantissa(m0) !== c) throw new RangeError(`initial bucket count ${m0} has mantissa ${mantissa(m0)}, not ${c}`);
  const k = levels(c, m);
  if (!grows && c * 2 ** k !== m) throw new RangeError(`a fixed version-2 filter has c * 2^k buckets, not ${m}`);
  if (budget && t !== budgetT(c, k, f, g)) {
    throw new RangeError(`tail bits ${t} differ from the ${budgetT(c, k, f, g)} that the address budget gives at round ${k}`);
  }
  const cap = rd64big(p, 32);
  if (cap < 1n || cap > BigInt(m0 * b)) throw new RangeError(`capacity ${cap} is outside the range 1 to ${m0 * b}`);
  const want = totalBytes2(m, b, w, g);
  if (want > MAX_BYTES) throw new RangeError(`a filter of ${m} buckets would take ${want} bytes, more than the limit of ${MAX_BYTES}`);
  if (n !== want) throw new RangeError(`length ${n} does not match the ${want} bytes that ${m} buckets need`);
  const cur = p[50], keep = p[51];
  if (cur > mask(g) || keep > mask(g)) throw new RangeError(`generation ${cur} or keep ${keep} does not fit ${g} generation bits`);
  if (keep === 0 && cur !== 0) throw new RangeError(`generation ${cur} without a rotation`);
  const entries = rd64big(p, 56), items = rd64big(p, 24);
  if (entries > BigInt(m * b + 1)) throw new RangeError(`entry count ${entries} exceeds the ${m * b + 1} slots of the table`);
  if (items > entries) throw new RangeError(`item count ${items} exceeds the entry count ${entries}`);
  if (g > 0) {
    const live = keep || 1;
    let sum = 0n;
    for (let x = 0; x <= mask(g); x++) {
      const cnt = rd64big(p, HEADER_2 + 8 * x);
      const age = (cur - x) & mask(g);
      if (cnt > items || (age >= live && cnt !== 0n)) throw new RangeError(`item count ${cnt} of generation ${x} is inconsistent`);
      sum += cnt;
    }
    if (sum !== items) throw new RangeError(`generation item counts sum to ${sum}, not the ${items} items`);
  }
  const vb = rd32(p, 40), ve = rd32(p, 44);
  if (flags & FLAG_VICTIM) {
    if (vb >= m) throw new RangeError(`victim bucket ${vb} is outside the ${m} buckets`);
    if (((ve & mask(f)) >>> 0) === 0 || ve > mask(w)) throw new RangeError(`victim slot 0x${ve.toString(16)} is not a valid ${w}-bit slot`);
    if (entries < 1n) throw new RangeError('victim in use but no entries counted');
  } else if (vb !== 0 || ve !== 0) throw new RangeError('victim fields are set but the victim flag is not');
  if (kind === KIND.any && entries !== 0n) throw new RangeError('a filter with entries must record the kind of value it holds');
}

/**
 * The class of version-2 filters, a subclass of Filter.  It registers
 * itself in the format registry (formats.js), where filter.js finds it:
 * this file imports filter.js, filter.js does not import this file.
 */
export class FilterV2 extends Filter {
  constructor(buf) {
    super(buf);
    // Filter's constructor read the version-1 geometry: replace it
    this.version = 2;
    this.t = buf[10];
    this.g = buf[11];
    this.w = this.f + this.t + this.g;
    this.grows = (buf[7] & FLAG_GROWS) !== 0;
    this.c = rd16(buf, 48);
    // an address budget filter: entries know at most A address bits (13.12)
    this.budget = (buf[7] & FLAG_BUDGET) !== 0;
    this.A = this.budget ? budgetA(this.c) : ADDR_BITS;
    this._geometry();
    this._mem = null;          // the backing array once the filter has grown
    this._undo = null;         // the slots an in-place change overwrote
    this.hdr = headerBytes(this.g);
    this.semisort = false;
    this.lowBits = 0;
    this.B = this.b * this.w;
    this.fpMask = mask(this.f);
    this.tmask = mask(this.t);
    this.gmask = mask(this.g);
  }

  get entries() { return rd64(this._buf, 56); }

  // t and what follows from it, from the header (a budget filter's t
  // narrows as it grows)
  _shape() {
    this.t = this._buf[10];
    this.w = this.f + this.t + this.g;
    this.B = this.b * this.w;
    this.tmask = mask(this.t);
  }

  /** The columns of SQL cuckoo_info(f). */
  info() {
    const p = this._buf;
    const items = this.items, entries = this.entries;
    const load = (entries - (this.victimUsed ? 1 : 0)) / (this.m * this.b);
    const bytes = p.length + 4;
    const m0 = rd32(p, 52);
    const rounds = this.k - levels(this.c, m0);
    let fpr = expectedFpr(this.b, this.f, load);
    if (this.budget) fpr = Math.min(1, (2 * entries) / ((2 ** this.f - 1) * this.c * 2 ** this.A));
    else if (this.t > 0) fpr = Math.min(1, fpr * (rounds + 2) * 2 ** -this.t);
    const cur = p[50], keep = p[51];
    const genItems = [];
    if (this.g === 0) genItems.push(items);
    else for (let age = 0; age < (keep || 1); age++) genItems.push(rd64(p, HEADER_2 + 8 * ((cur - age) & this.gmask)));
    return {
      buckets: this.m,
      bucket_size: this.b,
      fingerprint_bits: this.f,
      semisort: false,
      items,
      capacity: this.capacity,
      load_factor: load,
      bytes,
      bits_per_item: items > 0 ? (bytes * 8) / items : null,
      expected_fpr: fpr,
      value_type: KIND_NAMES[this.kind],
      max_kicks: this.maxKicks,
      is_full: this.victimUsed,
      format_version: 2,
      expansion: this.grows ? 2 : 0,
      tail_bits: this.t,
      initial_buckets: m0,
      growth_rounds: rounds,
      split_pointer: this.split,
      entries,
      generation_bits: this.g,
      generation: cur,
      keep,
      generation_items: genItems,
    };
  }

  // ---- slots ----

  _slot(i, j) { return getBitsAt(this._buf, this.hdr, (i * this.b + j) * this.w, this.w); }

  _res(i) { return this.k + (i < this.split || i >= this.base ? 1 : 0); }

  // bucket of address (q, a) into this._i, its resolution into this._r
  _locate2(q, a) {
    const i0 = (a & this.rmask) * this.c + q;
    if (i0 < this.split) { this._i = i0 + ((a >>> this.k) & 1) * this.base; this._r = this.k + 1; }
    else { this._i = i0; this._r = this.k; }
  }

  // fp, q, a, q', a' of the hash (hi, lo) into this._v (section 13.4)
  _parts(hi, lo) {
    const fp = 1 + mulhi32(lo, this.fpMask);
    const x = (mulhi32(lo, K_BUCKET_LO) + Math.imul(lo, K_BUCKET_HI) + Math.imul(hi, K_BUCKET_LO)) >>> 0;
    const q = Math.floor((x * this.c) / 4294967296);
    const gl0 = Math.imul(fp, K_FP_LO) >>> 0;
    const gh0 = (mulhi32(fp, K_FP_LO) + Math.imul(fp, K_FP_HI)) >>> 0;
    const gl = (gl0 ^ ((gl0 >>> 29) | (gh0 << 3))) >>> 0;
    const gh = (gh0 ^ (gh0 >>> 29)) >>> 0;
    const hq = Math.floor((gl * this.c) / 4294967296);
    const v = this._v || (this._v = new Array(5));
    v[0] = fp; v[1] = q; v[2] = hi >>> 0; v[3] = hq >= q ? hq - q : hq + this.c - q; v[4] = (hi ^ gh) >>> 0;
    return v;
  }

  // whether entry e matches fp and the address bits ahi above its bucket's resolution
  _match(e, fp, ahi) {
    if (((e & this.fpMask) >>> 0) !== fp) return false;
    const tail = (e >>> this.f) & this.tmask;
    return ((tail ^ ahi) & ((1 << log2(tail)) - 1)) === 0;
  }

  // the bit set of bucket i's matching slots
  _matches(i, fp, ahi) {
    let hit = 0;
    for (let j = 0; j < this.b; j++) if (this._match(this._slot(i, j), fp, ahi)) hit |= 1 << j;
    return hit;
  }

  _victimMatches2(fp, a, a2, i1, r1, i2, r2) {
    if (!this.victimUsed) return false;
    const vb = rd32(this._buf, 40), ve = rd32(this._buf, 44);
    return (vb === i1 && this._match(ve, fp, a >>> r1)) || (vb === i2 && this._match(ve, fp, a2 >>> r2));
  }

  _containsHash(hi, lo) {
    const [fp, q, a, q2, a2] = this._parts(hi, lo);
    this._locate2(q, a);
    const i1 = this._i, r1 = this._r;
    if (this._matches(i1, fp, a >>> r1)) return true;
    this._locate2(q2, a2);
    const i2 = this._i, r2 = this._r;
    if (this._matches(i2, fp, a2 >>> r2)) return true;
    return this._victimMatches2(fp, a, a2, i1, r1, i2, r2);
  }

  /** Matching entries (an upper bound on the copies of value; SQL cuckoo_count). */
  count(value) {
    this._hashFor(value);
    const [fp, q, a, q2, a2] = this._parts(hv[0], hv[1]);
    this._locate2(q, a);
    const i1 = this._i, r1 = this._r;
    this._locate2(q2, a2);
    const i2 = this._i, r2 = this._r;
    const pop = (x) => { let n = 0; for (; x; x &= x - 1) n++; return n; };
    let n;
    // one bucket for both: an entry may be stored under either address
    if (i1 === i2) n = pop(this._matches(i1, fp, a >>> r1) | this._matches(i1, fp, a2 >>> r2));
    else n = pop(this._matches(i1, fp, a >>> r1)) + pop(this._matches(i2, fp, a2 >>> r2));
    return n + (this._victimMatches2(fp, a, a2, i1, r1, i2, r2) ? 1 : 0);
  }

  // ---- writing: slots, header fields, the buffer ----

  _wslot(i, j, e) {
    const pos = (i * this.b + j) * this.w;
    if (this._undo) this._undo.push(pos, getBitsAt(this._buf, this.hdr, pos, this.w));
    setBitsAt(this._buf, this.hdr, pos, this.w, e);
  }

  _addEntries(d) { wr64(this._buf, 56, this.entries + d); }

  // one more logical item, in generation gen (v2_item_added)
  _itemAdded(gen) {
    const p = this._buf;
    wr64(p, 24, this.items + 1);
    if (this.g) wr64(p, HEADER_2 + 8 * gen, rd64(p, HEADER_2 + 8 * gen) + 1);
  }

  // one logical item fewer, stored in generation gen; when that count is
  // already 0, the nearest younger generation pays, then the nearest older
  // one (v2_item_removed)
  _itemRemoved(gen) {
    const p = this._buf;
    if (this.items === 0) return;
    wr64(p, 24, this.items - 1);
    if (!this.g) return;
    const cur = p[50], gm = this.gmask;
    const age = (cur - gen) & gm;
    for (let d = 0; d <= gm; d++) {
      const a = d <= age ? age - d : d;
      const o = HEADER_2 + 8 * ((cur - a) & gm);
      const n = rd64(p, o);
      if (n > 0) { wr64(p, o, n - 1); return; }
    }
  }

  // the victim's bucket and slot into this._vb, this._ve; false if unused
  _victim() {
    if (!(this._buf[7] & FLAG_VICTIM)) return false;
    this._vb = rd32(this._buf, 40);
    this._ve = rd32(this._buf, 44);
    return true;
  }

  _setVictim(i, e) { this._buf[7] |= FLAG_VICTIM; wr32(this._buf, 40, i); wr32(this._buf, 44, e); }

  _clearVictim() { this._buf[7] &= ~FLAG_VICTIM; wr32(this._buf, 40, 0); wr32(this._buf, 44, 0); }

  // k, base, split pointer and address mask of the current bucket count (v2_set_geometry)
  _geometry() {
    this.m = rd32(this._buf, 16);
    // the largest k with c * 2^k <= m (m >= c): floor(m / c) has k + 1 bits
    this.k = Math.max(0, 31 - Math.clz32(Math.floor(this.m / this.c)));
    this.base = this.c * POW2[this.k];
    this.split = this.m - this.base;
    this.rmask = POW2[this.k] - 1;
  }

  // the filter's bytes become newLen long, the new bytes zero (the core's
  // buffer grows by reallocation; here a backing array with room to spare)
  _resize(newLen) {
    const len = this._buf.length;
    let mem = this._mem || this._buf;
    if (newLen > mem.length) {
      const grown = new Uint8Array(Math.min(Math.max(newLen + Math.floor(newLen / 8), newLen), MAX_BYTES));
      grown.set(this._buf);
      mem = grown;
    }
    if (newLen > len) mem.fill(0, len, newLen);
    this._mem = mem;
    this._buf = mem.subarray(0, newLen);
  }

  // largest bucket count a growing filter may reach (v2_max_buckets)
  _maxBuckets() {
    const fixed = this.hdr + 8;
    return Math.floor((Math.floor((MAX_BYTES - fixed) / 8) * 64) / (this.b * this.w));
  }

  // ---- undo: an in-place change that fails leaves the filter as it was ----

  _begin() {
    this._undo = [];
    this._whole = null;
    this._saved = [this._buf.slice(0, this.hdr), this._buf.length];
  }

  _commit() { this._undo = null; this._saved = null; this._whole = null; }

  _rollback() {
    if (this._whole) {
      // the change narrowed the table: the value before it, kept whole
      const old = this._whole;
      this._whole = null;
      this._undo = null;
      this._saved = null;
      this._mem = null;
      this._buf = new Uint8Array(old);
      this._shape();
      this._geometry();
      return;
    }
    const u = this._undo;
    this._undo = null;
    for (let x = u.length - 2; x >= 0; x -= 2) setBitsAt(this._buf, this.hdr, u[x], this.w, u[x + 1]);
    const [hdr, len] = this._saved;
    this._saved = null;
    if (this._buf.length > len) {
      this._mem.fill(0, len, this._buf.length);
      this._buf = this._mem.subarray(0, len);
    }
    this._buf.set(hdr);
    this._geometry();
  }

  // ---- slots and addresses (section 13.3, 13.4) ----

  _slotGen(e) { return this.g ? (e >>> (this.f + this.t)) & this.gmask : 0; }

  _slotS(e) { return log2((e >>> this.f) & this.tmask); }

  _slotAge(e) { return (this._buf[50] - this._slotGen(e)) & this.gmask; }

  _slotWithGen(e, gen) {
    if (!this.g) return e;
    const sh = this.f + this.t;
    return ((e & ~(this.gmask << sh)) | (gen << sh)) >>> 0;
  }

  // the entry of a value whose low L address bits are a, for a bucket of
  // resolution res: spare bits a's bits res .. L-1, at most t-1 (make_slot)
  _makeSlot(fp, a, L, res, gen) {
    let tail = 0;
    if (this.t) {
      let s = L - res;
      if (s < 0 || s > this.t - 1) s = this.t - 1;      // (unsigned in the core)
      tail = ((1 << s) | ((res >= 32 ? 0 : a >>> res) & mask(s))) >>> 0;
    }
    return (fp | (tail << this.f) | (this.g ? gen << (this.f + this.t) : 0)) >>> 0;
  }

  // the low address bits entry e of bucket i knows; their number into this._L (slot_known)
  _slotKnown(i, e) {
    const res = this._res(i);
    const r = Math.floor(i / this.c);
    if (!this.t) { this._L = res; return r; }
    const tail = (e >>> this.f) & this.tmask;
    const s = log2(tail);
    this._L = res + s;
    return (r | (res >= 32 ? 0 : (tail ^ (1 << s)) << res)) >>> 0;
  }

  // entry e of bucket i in the other bucket of its pair: that bucket, the
  // entry as stored there into this._e2; -1 if it cannot be named (slot_alt;
  // slot_known inline, and this._L left alone)
  _slotAlt(i, e) {
    const f = this.f, c = this.c, k = this.k;
    const fp = (e & this.fpMask) >>> 0;
    const res = k + (i < this.split || i >= this.base ? 1 : 0);
    const r = Math.floor(i / c);
    let a = r, L = res;
    if (this.t) {
      const tail = (e >>> f) & this.tmask;
      const s = log2(tail);
      L = res + s;
      a = (r | (res >= 32 ? 0 : (tail ^ (1 << s)) << res)) >>> 0;
    }
    const q = i - r * c;
    const gl0 = Math.imul(fp, K_FP_LO) >>> 0;
    const gh0 = (mulhi32(fp, K_FP_LO) + Math.imul(fp, K_FP_HI)) >>> 0;
    const gl = (gl0 ^ ((gl0 >>> 29) | (gh0 << 3))) >>> 0;
    const gh = (gh0 ^ (gh0 >>> 29)) >>> 0;
    const hq = Math.floor((gl * c) / 4294967296);
    const q2 = hq >= q ? hq - q : hq + c - q;
    const a2 = ((a ^ gh) & mask(L)) >>> 0;
    let j0 = (a2 & this.rmask) * c + q2;
    let res2 = k;
    if (j0 < this.split) {
      if (L < k + 1) return -1;
      res2 = k + 1;
      j0 += ((a2 >>> k) & 1) * this.base;
    }
    this._e2 = this._makeSlot(fp, a2, L, res2, this.g ? (e >>> (f + this.t)) & this.gmask : 0);
    return j0;
  }

  // e into the first free slot of bucket i; false if it has none
  _place2(i, e) {
    const d = this._buf, hdr = this.hdr, w = this.w, b = this.b;
    const pos = i * b * w;
    for (let j = 0; j < b; j++) {
      if (getBitsAt(d, hdr, pos + j * w, w) === 0) { this._wslot(i, j, e); return true; }
    }
    return false;
  }

  // ---- storing an entry: the kick walk (v2_store) ----

  // entry e of bucket i into i, its alternate, else by a random walk of
  // kicks seeded from (seed, i, e); what is left in hand goes to the victim
  // slot, which must be free.  True if it went into the table.
  // journal: v2_store_j's recorded walk, at most 1023 kicks
  _store(i, e, sh, sl, journal) {
    if (this._place2(i, e)) return true;
    const j = this._slotAlt(i, e);
    const e2 = this._e2;
    if (j >= 0 && this._place2(j, e2)) return true;
    const rng = new Rng(sh, sl, i, e);
    let cur = i, ce = e;
    if (j >= 0) {
      rng.next();
      if (rng.rl & 1) { cur = j; ce = e2; }
    }
    const b = this.b, kicks = journal ? Math.min(this.maxKicks, 1024) : this.maxKicks;
    // (a walk neither splits nor resizes: the table stays where it is)
    const buf = this._buf, hdr = this.hdr, w = this.w;
    for (let n = 1; n < kicks; n++) {
      rng.next();
      const j0 = rng.rh & (b - 1);
      let moved = false;
      for (let d = 0; d < b; d++) {
        // the slot's entry out (as _wslot, journalled), the one in hand in
        const pos = (cur * b + ((j0 + d) & (b - 1))) * w;
        const old = getBitsAt(buf, hdr, pos, w);
        const ni = this._slotAlt(cur, old);
        if (ni < 0) continue;
        if (this._undo) this._undo.push(pos, old);
        setBitsAt(buf, hdr, pos, w, ce);
        ce = this._e2;
        cur = ni;
        moved = true;
        break;
      }
      if (!moved) break;
      if (this._place2(cur, ce)) return true;
    }
    this._setVictim(cur, ce);
    return false;
  }

  // the victim back into its bucket or its alternate if either has room (victim_try_direct)
  _victimTryDirect() {
    if (!this._victim()) return;
    const vb = this._vb, ve = this._ve;
    if (this._place2(vb, ve)) { this._clearVictim(); return; }
    const j = this._slotAlt(vb, ve);
    if (j >= 0 && this._place2(j, this._e2)) this._clearVictim();
  }

  // the victim taken out and stored again with kicks (victim_retry)
  _victimRetry() {
    if (!this._victim()) return;
    const vb = this._vb, ve = this._ve;
    this._clearVictim();
    const p = this._buf;
    this._store(vb, ve, (rd32(p, 60) ^ rd32(p, 28)) >>> 0, (rd32(p, 56) ^ rd32(p, 24)) >>> 0);
  }

  // ---- growth: linear hashing, one bucket split at a time (13.6) ----

  // splits bucket `split`: the number of entries copied (they knew no
  // spare bit), or -1 when nothing changed (not growing, the size limit,
  // or a victim that could not be kept) (v2_split); a budget filter
  // narrows its tails at the end of a round (13.12 rule 3)
  _split() {
    if (this.budget && budgetT(this.c, levels(this.c, this.m + 1), this.f, this.g) < 2) return -1;
    const copies = this._split1();
    if (copies >= 0 && this.budget) this._narrow();
    return copies;
  }

  // after a split that ended a round (p = 0): if T(k) < t, every slot and
  // the victim lose the tail's top bit (0 in all of them: s <= A - k), t
  // is one less, and the value shrinks to the length of the new width
  _narrow() {
    const t = this.t;
    if (budgetT(this.c, this.k, this.f, this.g) >= t) return;
    if (this._undo) this._snapshot();
    const f = this.f, g = this.g, w = this.w, n = this.m * this.b;
    const low = mask(f + t - 1);        // fingerprint and the tail below its top bit
    const narrow = (e) => (g ? ((e & low) | ((e >>> (f + t)) << (f + t - 1))) : (e & low)) >>> 0;
    const d = this._buf, hdr = this.hdr;
    // in place, ascending: slot x goes to bit x * (w - 1), below the
    // slots not read yet
    for (let x = 0; x < n; x++) {
      const e = getBitsAt(d, hdr, x * w, w);
      setBitsAt(d, hdr, x * (w - 1), w - 1, narrow(e));
    }
    const end = n * (w - 1);
    const eb = hdr + Math.floor(end / 8);
    const len = d.length;
    if (end % 8) { d[eb] &= (1 << (end % 8)) - 1; d.fill(0, eb + 1, len); } else d.fill(0, eb, len);
    if (this._victim()) wr32(d, 44, narrow(this._ve));
    d[10] = t - 1;
    this._shape();
    this._buf = (this._mem || d).subarray(0, totalBytes2(this.m, this.b, this.w, g));
  }

  // an in-place change about to narrow the table: the slot journal of
  // _begin cannot undo that, so the value as it was before the change is
  // rebuilt from it and kept whole for _rollback
  _snapshot() {
    const u = this._undo;
    const [hdr, len] = this._saved;
    const was = this._buf.slice();
    for (let x = u.length - 2; x >= 0; x -= 2) setBitsAt(was, this.hdr, u[x], this.w, u[x + 1]);
    const old = was.subarray(0, len);
    old.set(hdr);
    this._whole = old;
    this._undo = null;
  }

  _split1() {
    const newLen = totalBytes2(this.m + 1, this.b, this.w, this.g);
    const p = this.split, jn = this.m;
    if (!this.grows || newLen > MAX_BYTES || this.m + 1 > 0xFFFFFFFF) return -1;
    const vic = this._victim();
    const vb = this._vb, ve = this._ve;
    let saved = null;
    if (vic && vb === p && this._slotS(ve) === 0) {
      let allVoid = true;
      for (let x = 0; x < this.b; x++) allVoid = allVoid && this._slotS(this._slot(p, x)) === 0;
      // both halves get the b copies and a copy of the victim
      if (allVoid) {
        if (this.maxKicks === 0) return -1;
        saved = this._buf.slice();
      }
    }
    this._resize(newLen);
    const old = [];
    for (let x = 0; x < this.b; x++) {
      old.push(this._slot(p, x));
      this._wslot(p, x, 0);
    }
    wr32(this._buf, 16, this.m + 1);
    this._geometry();
    let copies = 0;
    const forms = this._forms || (this._forms = [0, 0, 0, 0]);
    for (let x = 0; x < this.b; x++) {
      if (old[x] === 0) continue;
      const n = this._splitForms(old[x], p, jn, forms);
      for (let y = 0; y < n; y++) this._place2(forms[2 * y], forms[2 * y + 1]);
      if (n === 2) { this._addEntries(1); copies++; }
    }
    if (vic && vb === p) {
      this._clearVictim();
      const n = this._splitForms(ve, p, jn, forms);
      if (n === 2) this._addEntries(1);
      // the forms that fit first; then the walks
      const left = [];
      for (let y = 0; y < n; y++) if (!this._place2(forms[2 * y], forms[2 * y + 1])) left.push(y);
      const e = this.entries;
      if (left.length === 1) {
        this._store(forms[2 * left[0]], forms[2 * left[0] + 1], Math.floor(e / 4294967296) >>> 0, e >>> 0);
      } else if (left.length === 2) {
        // v2_split: the first walks (recorded); if it ends in the victim
        // slot the second must fit its bucket or alternate, else the split
        // is taken back
        const b0 = forms[0], f0 = forms[1], b1 = forms[2], f1 = forms[3];
        if (this._store(b0, f0, Math.floor(e / 4294967296) >>> 0, e >>> 0, true)) {
          const e1 = this.entries;
          this._store(b1, f1, Math.floor(e1 / 4294967296) >>> 0, (e1 ^ 1) >>> 0);
        } else if (!this._place2(b1, f1)) {
          const ja = this._slotAlt(b1, f1);
          if (ja < 0 || !this._place2(ja, this._e2)) {
            this._buf = this._mem.subarray(0, saved.length);
            this._buf.set(saved);
            this._mem.fill(0, saved.length, this._mem.length);
            this._geometry();
            return -1;
          }
        }
      }
    } else this._victimTryDirect();
    return copies;
  }

  // the split forms of entry e of bucket p (split into p and jn) into out
  // as [bucket, entry] pairs: one with one spare bit fewer, or two copies
  _splitForms(e, p, jn, out) {
    const tail = (e >>> this.f) & this.tmask;
    const s = log2(tail);
    if (s === 0) {
      out[0] = p; out[1] = e; out[2] = jn; out[3] = e;
      return 2;
    }
    const keepBits = (this.fpMask | (this.g ? this.gmask << (this.f + this.t) : 0)) >>> 0;
    out[1] = ((e & keepBits) | ((((1 << (s - 1)) | ((tail ^ (1 << s)) >>> 1)) << this.f))) >>> 0;
    out[0] = (tail & 1) ? jn : p;
    return 1;
  }

  _overLoad(extra) { return (this.entries + extra) * 10 > 9 * this.b * this.m; }

  // splits buckets until extra more entries keep the load at 0.90, at most
  // one doubling, and none that makes no progress (v2_grow)
  _grow(extra) {
    if (!this.grows || !this._overLoad(extra)) return;
    let credit = 0, done = 0;
    for (let budget = this.m + 1; budget > 0 && this._overLoad(extra); budget--) {
      const copies = this._split();
      if (copies < 0) break;
      done++;
      credit += 9 * this.b - 10 * copies;
      if (done >= 8 && credit <= 0) break;
    }
  }

  // the bucket count relieve splits up to (and _splitPair)
  _relieveLimit() {
    const small = this.m < 256 ? this.m : 256;
    let extra = Math.max(Math.floor(this.m / 8), small);
    if (this.maxKicks < 8) extra = 2 * this.m;
    const limit = this.m + extra + 1;
    const cap = this._relieveCap();
    return limit > cap ? cap : limit;
  }

  // proportional growth: at most 4x (8x with max_kicks < 8) the buckets
  // the items need at the growth load, plus 256
  _relieveCap() {
    const need = Math.floor(((this.items + 1) * 10 + 9 * this.b - 1) / (9 * this.b));
    return (this.maxKicks < 8 ? 2 : 1) * 4 * need + 256;
  }

  // FORMAT 13.7 step 4b: splits until bucket i1 or i2 is split; false when
  // beyond relieve's limit or the size limit (nothing changed) or a split
  // was refused (the splits done stay) (v2_split_pair)
  _splitPair(i1, i2) {
    const until = (i) => (i >= this.split && i < this.base) ? i - this.split + 1 : this.base - this.split + i + 1;
    const to = this.m + Math.min(until(i1), until(i2));
    // a pair of one bucket: its split can be a round away, up to the cap
    const limit = i1 === i2 ? this._relieveCap() : this._relieveLimit();
    if (!this.grows || to > limit || totalBytes2(to, this.b, this.w, this.g) > MAX_BYTES) return false;
    while (this.m < to) if (this._split() < 0) return false;
    return true;
  }

  // after a walk left an entry in the victim slot: split up to
  // max(m/8, min(m, 256)) more buckets (2m with fewer than 8 kicks),
  // retrying the victim after the 1st, 2nd, 4th, ... split (v2_relieve)
  _relieve() {
    const limit = this._relieveLimit();
    let n = 0;
    while (this.victimUsed && this.m < limit) {
      if (this._split() < 0) break;
      n++;
      if ((n & (n - 1)) === 0) this._victimRetry();
    }
    if (this.victimUsed) this._victimRetry();
  }

  // ---- item operations (13.6, 13.7) ----

  // whether every slot of the pair holds fingerprint fp (all b of i1 when
  // i2 = i1); the first that does not answers
  _pairOnlyFp2(i1, i2, fp) {
    for (let j = 0; j < this.b; j++) if (((this._slot(i1, j) & this.fpMask) >>> 0) !== fp) return false;
    if (i2 === i1) return true;
    for (let j = 0; j < this.b; j++) if (((this._slot(i2, j) & this.fpMask) >>> 0) !== fp) return false;
    return true;
  }

  // cf2_insert of the hash (hi, lo)
  _insert(hi, lo) {
    this._grow(1);
    const [fp, q, a, q2, a2] = this._parts(hi, lo);
    this._locate2(q, a);
    const i1 = this._i, r1 = this._r;
    this._locate2(q2, a2);
    const i2 = this._i, r2 = this._r;
    const gen = this._buf[50];
    // a budget filter's entries know the low A bits of the address word
    const am = mask(this.A);
    const e1 = this._makeSlot(fp, (a & am) >>> 0, this.A, r1, gen);
    const e2 = this._makeSlot(fp, (a2 & am) >>> 0, this.A, r2, gen);
    if (this._place2(i1, e1) || (i2 !== i1 && this._place2(i2, e2))) {
      this._addEntries(1);
      this._itemAdded(gen);
      return OK;
    }
    if (this._pairOnlyFp2(i1, i2, fp)) {
      // FORMAT 13.7 step 4: the value's own entries (all match) cannot leave
      // the pair; other values' leave it by a kick or a split
      const ah1 = a >>> r1, ah2 = a2 >>> r2;
      let all = true, closed = true;
      for (let j = 0; j < this.b; j++) {
        const e = this._slot(i1, j);
        if (!this._match(e, fp, ah1) && !(i2 === i1 && this._match(e, fp, ah2))) all = false;
        if (i2 !== i1 && !this._match(this._slot(i2, j), fp, ah2)) all = false;
      }
      if (all) return TOO_MANY_COPIES;
      for (const i of (i2 === i1 ? [i1] : [i1, i2])) {
        for (let j = 0; j < this.b; j++) {
          const alt = this._slotAlt(i, this._slot(i, j));
          if (alt >= 0 && alt !== i1 && alt !== i2) closed = false;
        }
      }
      if (closed) {
        if (!this._splitPair(i1, i2)) return FULL;
        return this._insert(hi, lo);
      }
    }
    if (this.victimUsed) {
      // a growing filter splits more buckets to place the victim left by
      // an earlier walk, then tries again; else (or if that did not free
      // it) full
      if (!this.grows || this.m >= this._maxBuckets() || totalBytes2(this.m + 1, this.b, this.w, this.g) > MAX_BYTES) return FULL;
      this._relieve();
      if (this.victimUsed) return FULL;
      return this._insert(hi, lo);
    }
    this._addEntries(1);
    this._itemAdded(gen);
    const p = this._buf;
    const sh = (hi ^ rd32(p, 28)) >>> 0, sl = (lo ^ rd32(p, 24)) >>> 0;
    const placed = (lo & 1) ? this._store(i2, e2, sh, sl) : this._store(i1, e1, sh, sl);
    if (!placed && this.grows) this._relieve();
    return this.victimUsed ? OK_STASHED : OK;
  }

  // cf2_insert_if_absent: with generations, a value found only in older
  // generations is moved to the current one (its matching entries raised)
  _insertIfAbsent(hi, lo) {
    if (this.g === 0) return this._containsHash(hi, lo) ? EXISTS : this._insert(hi, lo);
    const [fp, q, a, q2, a2] = this._parts(hi, lo);
    this._locate2(q, a);
    const bi = [this._i, 0], ahi = [a >>> this._r, 0];
    this._locate2(q2, a2);
    bi[1] = this._i; ahi[1] = a2 >>> this._r;
    const vic = this._victim();
    const vb = this._vb, ve = this._ve;
    let found = false, oldest = 0;
    for (let side = 0; side < 2; side++) {
      for (let j = 0; j < this.b; j++) {
        const e = this._slot(bi[side], j);
        if (e === 0 || !this._match(e, fp, ahi[side])) continue;
        const age = this._slotAge(e);
        if (age === 0) return EXISTS;
        found = true;
        if (age > oldest) oldest = age;
      }
      if (vic && vb === bi[side] && this._match(ve, fp, ahi[side])) {
        const age = this._slotAge(ve);
        if (age === 0) return EXISTS;
        found = true;
        if (age > oldest) oldest = age;
      }
    }
    if (!found) return this._insert(hi, lo);
    const cur = this._buf[50];
    for (let side = 0; side < 2; side++) {
      for (let j = 0; j < this.b; j++) {
        const e = this._slot(bi[side], j);
        if (e !== 0 && this._match(e, fp, ahi[side])) this._wslot(bi[side], j, this._slotWithGen(e, cur));
      }
      // (the victim as read before the loop, as the core does)
      if (vic && vb === bi[side] && this._match(ve, fp, ahi[side])) wr32(this._buf, 44, this._slotWithGen(ve, cur));
    }
    if (this.items > 0) {
      this._itemRemoved((cur - oldest) & this.gmask);
      this._itemAdded(cur);
    }
    return EXISTS;
  }

  // cf2_remove: the matching entry that knows the most address bits
  // (ties: the oldest); with generations, older matches take its generation
  _remove(hi, lo) {
    const [fp, q, a, q2, a2] = this._parts(hi, lo);
    this._locate2(q, a);
    const bi = [this._i, 0], r = [this._r, 0];
    this._locate2(q2, a2);
    bi[1] = this._i; r[1] = this._r;
    const ahi = [a >>> r[0], a2 >>> r[1]];
    let bestB = -1, bestJ = -1, bestL = 0, bestAge = 0, bestVictim = false;
    for (let side = 0; side < 2; side++) {
      for (let j = 0; j < this.b; j++) {
        const e = this._slot(bi[side], j);
        if (e === 0 || !this._match(e, fp, ahi[side])) continue;
        const L = r[side] + (this.t ? this._slotS(e) : 0);
        const age = this._slotAge(e);
        if (bestB < 0 || L > bestL || (L === bestL && age > bestAge)) {
          bestB = side; bestJ = j; bestL = L; bestAge = age;
        }
      }
    }
    let vic = this._victim();
    const vb = this._vb, ve = this._ve;
    if (vic) {
      for (let side = 0; side < 2; side++) {
        if (vb !== bi[side] || !this._match(ve, fp, ahi[side])) continue;
        const L = r[side] + (this.t ? this._slotS(ve) : 0);
        const age = this._slotAge(ve);
        if ((bestB < 0 && !bestVictim) || L > bestL || (L === bestL && age > bestAge)) {
          bestVictim = true; bestL = L; bestAge = age;
        }
        break;
      }
    }
    if (bestB < 0 && !bestVictim) return false;
    const vicMatches = () => (vb === bi[0] && this._match(ve, fp, ahi[0])) || (vb === bi[1] && this._match(ve, fp, ahi[1]));
    let oldest = bestAge;
    for (let side = 0; side < 2; side++) {
      for (let j = 0; j < this.b; j++) {
        const e = this._slot(bi[side], j);
        if (e !== 0 && this._match(e, fp, ahi[side]) && this._slotAge(e) > oldest) oldest = this._slotAge(e);
      }
    }
    if (vic && this._slotAge(ve) > oldest && vicMatches()) oldest = this._slotAge(ve);
    let gen;
    if (bestVictim) {
      gen = this._slotGen(ve);
      this._clearVictim();
      vic = false;
    } else {
      gen = this._slotGen(this._slot(bi[bestB], bestJ));
      this._wslot(bi[bestB], bestJ, 0);
    }
    this._addEntries(-1);
    this._itemRemoved((this._buf[50] - oldest) & this.gmask);
    if (this.g) {
      // raise: matching entries older than the removed one
      for (let side = 0; side < 2; side++) {
        for (let j = 0; j < this.b; j++) {
          const e = this._slot(bi[side], j);
          if (e !== 0 && this._match(e, fp, ahi[side]) && this._slotAge(e) > bestAge) {
            this._wslot(bi[side], j, this._slotWithGen(e, gen));
          }
        }
      }
      if (vic && this._slotAge(ve) > bestAge && vicMatches()) wr32(this._buf, 44, this._slotWithGen(ve, gen));
    }
    if (vic) this._victimRetry();
    return true;
  }

  // ---- the public changing methods ----

  _fullError() {
    const items = this.items, vic = this.victimUsed;
    const load = (items - (vic ? 1 : 0)) / (this.m * this.b);
    return serverError(FilterFullError, '54000', 'cuckoo filter is full',
      `It holds ${items} items: ${this.m} buckets of ${this.b} entries (load factor ${fixed3(load)})`
      + `${vic ? ' and the one-entry victim slot' : ''}; its rated capacity is ${this.capacity}.`,
      this.grows
        ? `A growing filter stops growing at ${MAX_BYTES} bytes, or when many copies of a few values crowd one pair of buckets; cuckoo_add_if_absent stores each value once.`
        : 'Build a larger filter (cuckoo_agg over the source data, or cuckoo_create with a larger capacity), or one that grows: cuckoo_create(..., expansion => 2) or cuckoo_agg(value, capacity, fpr, 2).');
  }

  _copiesError() {
    return serverError(FilterFullError, '54000', 'value was added to the cuckoo filter too many times',
      `A filter with bucket size ${this.b} holds at most ${2 * this.b} copies of one value.`,
      'Use cuckoo_add_if_absent to store each value once.');
  }

  // add / addIfAbsent in place; on failure the filter is restored and the
  // server's error thrown
  _add(value, ifAbsent) {
    const kind = this._hashFor(value);
    const hi = hv[0], lo = hv[1];
    this._begin();
    let st;
    try {
      if (this.kind === KIND.any) { this._buf[8] = kind; this._buf[9] = 0; }
      st = ifAbsent ? this._insertIfAbsent(hi, lo) : this._insert(hi, lo);
    } catch (e) {
      this._rollback();
      throw e;
    }
    if (st === FULL || st === TOO_MANY_COPIES) {
      const err = st === FULL ? this._fullError() : this._copiesError();
      this._rollback();
      throw err;
    }
    this._commit();
    return st;
  }

  add(value) { const g = this._copy(); g._add(value, false); return g; }

  addIfAbsent(value) { const g = this._copy(); g._add(value, true); return g; }

  remove(value) { const g = this._copy(); g.removeInPlace(value); return g; }

  addInPlace(value) { this._add(value, false); }

  addIfAbsentInPlace(value) { return this._add(value, true) !== EXISTS; }

  removeInPlace(value) {
    this._hashFor(value);
    if (this.kind === KIND.any) return false;
    return this._remove(hv[0], hv[1]);
  }

  // ---- union (13.9): every entry of src re-homed into this filter ----

  // stores the entry whose known address bits are the low L bits of a
  // (mantissa q) in every bucket its bits cannot tell apart; with want > 0
  // a bucket already holding want identical slots gets none.  this._added
  // counts the slots stored at the first bucket; false when an entry would
  // need the victim slot while it is taken (rehome)
  _rehome(fp, a, L, gen, q, want, first, cover) {
    const i0 = (a & this.rmask) * this.c + q;
    const res = this.k + (i0 < this.split ? 1 : 0);
    if (L < res) {
      const lo = (a & mask(L)) >>> 0;
      return this._rehome(fp, lo, L + 1, gen, q, want, first, cover)
        && this._rehome(fp, (lo | (1 << L)) >>> 0, L + 1, gen, q, want, false, cover);
    }
    const i = i0 + (res > this.k ? ((a >>> this.k) & 1) * this.base : 0);
    const e = this._makeSlot(fp, a, L, res, gen);
    const n = want || 1;
    const t = this.t;
    let have = 0;
    if (want && this.budget && cover) have = this._pairCover(i, e, want);
    else if (want && this.budget) have = this._pairCount(i, e);
    else if (want) {
      for (let j = 0; j < this.b; j++) if (this._slot(i, j) === e) have++;
      if (this._victim() && this._vb === i && this._ve === e) have++;
    }
    for (; have < n; have++) {
      this._grow(1);
      // a split moved this bucket's contents, or narrowed the tails: place anew
      if (i >= this.m || this._res(i) !== res || this.t !== t) return this._rehome(fp, a, L, gen, q, want ? want : n - have, first, cover);
      this._addEntries(1);
      if (first) this._added++;
      if (!this._place2(i, e)) {
        if (this.victimUsed) {
          const j = this._slotAlt(i, e);
          if (!(j >= 0 && this._place2(j, this._e2))) {
            this._addEntries(-1);
            if (first) this._added--;
            // as an insert does: split to free the victim slot
            if (this.grows) {
              this._relieve();
              if (!this.victimUsed) return this._rehome(fp, a, L, gen, q, want ? want : n - have, first, cover);
            }
            return false;
          }
        } else {
          const en = this.entries;
          // seed: entries ^ (i << 20), 64-bit
          const sh = ((Math.floor(en / 4294967296) >>> 0) ^ (i >>> 12)) >>> 0;
          const sl = ((en >>> 0) ^ (i << 20)) >>> 0;
          if (!this._store(i, e, sh, sl) && this.grows) this._relieve();
        }
      }
    }
    return true;
  }

  // the copies of entry e of bucket i over its pair (13.12 rule 4): the
  // slots of i equal to e, those of the other bucket j equal to e as stored
  // there e2 (when it can be named; when j = i, the slots of i equal to
  // e2 !== e too), and the victim as either
  _pairCount(i, e) {
    let n = 0;
    const j = this._slotAlt(i, e);
    const e2 = this._e2;
    const two = j >= 0 && (j !== i || e2 !== e);
    for (let x = 0; x < this.b; x++) {
      const v = this._slot(i, x);
      if (v === e || (two && j === i && v === e2)) n++;
    }
    if (two && j !== i) for (let x = 0; x < this.b; x++) if (this._slot(j, x) === e2) n++;
    if (this._victim() && ((this._vb === i && this._ve === e) || (two && this._vb === j && this._ve === e2))) n++;
    return n;
  }

  // whether slot x of bucket bk stands for the value of entry e of that
  // bucket (knowing the L bits a there): 1 if x knows no more than e, 2 if
  // it knows more, 0 if not (covers)
  _covers(bk, x, e, a, L) {
    if (x === 0 || ((x ^ e) & this.fpMask) !== 0 || this._slotGen(x) !== this._slotGen(e)) return 0;
    const ax = this._slotKnown(bk, x);
    const Lx = this._L;
    if ((((ax ^ a) & mask(Lx < L ? Lx : L)) >>> 0) !== 0) return 0;
    return Lx > L ? 2 : 1;
  }

  // 13.12 rule 4 with both operands under the budget: the entries of e's
  // pair standing for e's value (bucket i, its other bucket j, also j = i
  // with another form, the victim), counted up to want, each that knows
  // more than e replaced by e's form in its bucket first when write (rehome's
  // have; the sweep's want changes nothing) (paircover)
  _pairCover(i, e, want, write = true) {
    const a = this._slotKnown(i, e);
    const L = this._L;
    const j = this._slotAlt(i, e);
    const e2 = this._e2;
    const two = j >= 0 && (j !== i || e2 !== e);
    let a2 = 0, L2 = 0, n = 0, c;
    if (two) { a2 = this._slotKnown(j, e2); L2 = this._L; }
    for (let x = 0; x < this.b && n < want; x++) {
      const sv = this._slot(i, x);
      if ((c = this._covers(i, sv, e, a, L)) !== 0) {
        if (c === 2 && write) this._wslot(i, x, e);
      } else if (two && j === i && (c = this._covers(i, sv, e2, a2, L2)) !== 0) {
        if (c === 2 && write) this._wslot(i, x, e2);
      } else continue;
      n++;
    }
    if (two && j !== i) {
      for (let x = 0; x < this.b && n < want; x++) {
        if ((c = this._covers(j, this._slot(j, x), e2, a2, L2)) !== 0) {
          if (c === 2 && write) this._wslot(j, x, e2);
          n++;
        }
      }
    }
    if (n < want && this._victim()) {
      const vb = this._vb, ve = this._ve;
      let form = 0;
      if (vb === i && (c = this._covers(i, ve, e, a, L)) !== 0) form = e;
      else if (two && vb === j && (c = this._covers(j, ve, e2, a2, L2)) !== 0) form = e2;
      if (form) {
        if (c === 2 && write) wr32(this._buf, 44, form);
        n++;
      }
    }
    return n;
  }

  // every entry of src (slots and victim) into this filter (pour, as a union)
  // items added per generation in the share of src's entries that were
  // new here: round(new * items / entries), at most the items
  _pour(src) {
    const vic = src._victim();
    const vb = src._vb, ve = src._ve;
    const s = new Array(9);
    const had = new Map(), fresh = new Map(), done = new Map();
    for (let i = 0; i < src.m; i++) {
      for (let j = 0; j < src.b; j++) {
        const e = src._slot(i, j);
        if (e !== 0) had.set(src._slotGen(e), (had.get(src._slotGen(e)) || 0) + 1);
      }
    }
    if (vic) had.set(src._slotGen(ve), (had.get(src._slotGen(ve)) || 0) + 1);
    for (let i = 0; i < src.m; i++) {
      let n = 0;
      for (let j = 0; j < src.b; j++) if ((s[n] = src._slot(i, j)) !== 0) n++;
      if (vic && vb === i) s[n++] = ve;
      for (let x = 0; x < n; x++) {
        let dup = false, want = 0;
        for (let y = 0; y < x; y++) dup = dup || s[y] === s[x];
        if (dup) continue;
        let a = src._slotKnown(i, s[x]), L = src._L;
        if (this.budget) {
          // counted over the pair; known bits capped at A
          want = src.budget ? src._pairCover(i, s[x], Infinity, false) : src._pairCount(i, s[x]);
          if (L > this.A) { L = this.A; a = (a & mask(L)) >>> 0; }
        } else for (let y = x; y < n; y++) want += s[y] === s[x] ? 1 : 0;
        const gen = src._slotGen(s[x]);
        this._added = 0;
        if (!this._rehome((s[x] & src.fpMask) >>> 0, a, L, gen, i % src.c, want, true, src.budget)) return false;
        if (this._added) {
          const items = src.g ? rd64(src._buf, HEADER_2 + 8 * gen) : src.items;
          const f = (fresh.get(gen) || 0) + this._added;
          const h = had.get(gen);
          fresh.set(gen, f);
          let goal = Number((BigInt(f) * BigInt(items) + BigInt(Math.floor(h / 2))) / BigInt(h));
          if (goal > items) goal = items;
          if (goal > f) goal = f;
          for (let y = done.get(gen) || 0; y < goal; y++) this._itemAdded(gen);
          if (goal > (done.get(gen) || 0)) done.set(gen, goal);
        }
      }
    }
    return true;
  }

  /** A new filter holding the items of both (multiset union, SQL cuckoo_union). */
  union(other) {
    if (!(other instanceof Filter)) throw new TypeError('union takes a Filter');
    // growing filters may differ in t: other's entries are read with its t
    // and stored with this one's (cf2_union_into)
    if (other.version !== 2 || this.b !== other.b || this.f !== other.f || (!this.grows && this.t !== other.t)
      || this.g !== other.g || this.c !== other.c || this.grows !== other.grows
      || this.capacity !== other.capacity || this._buf[50] !== other._buf[50] || this._buf[51] !== other._buf[51]) {
      throw shapeMismatch(this, other);
    }
    const dk = this.kind, sk = other.kind;
    if (sk !== KIND.any && dk !== KIND.any && (sk !== dk || rd32(this._buf, 12) !== rd32(other._buf, 12))) {
      throw kindMismatch(dk, sk);
    }
    const dst = this._copy();
    if (dk === KIND.any && other.entries > 0) {
      dst._buf[8] = other._buf[8]; dst._buf[9] = other._buf[9];
      wr32(dst._buf, 12, rd32(other._buf, 12));
    }
    if (!dst._pour(other)) {
      throw serverError(FilterFullError, '54000', 'the union does not fit in a cuckoo filter of this shape',
        dst.grows
          ? `The growing filter has ${dst.m} buckets of ${dst.b} entries and could not grow further: it reached the size limit, or the next bucket to split holds only copies that know no spare address bit (docs/RELIABILITY.md, known limits).`
          : `The filter has ${dst.m} buckets of ${dst.b} entries.`,
        dst.grows
          ? 'Create the filters with a capacity for all their values together (cuckoo_create(total, fpr, expansion => 2) or cuckoo_agg(value, total, fpr, 2)): filters that have not grown union without copies. Or build one filter over the sources with cuckoo_agg(value, fpr), which sizes it to the data and combines partial results exactly.'
          : 'Union filters built by cuckoo_create or cuckoo_agg(value, capacity, fpr) with a capacity for all their values; filters that cuckoo_agg(value) sized to their own data have no room to spare.');
    }
    return dst;
  }


  // ---- rotation (13.8, cf_rotate) ----

  // a new generation: cur_gen + 1, the generations keep or more old
  // dropped, the counts cut to the entries left (rotate_in_place)
  _rotateInPlace(keep) {
    const p = this._buf, gm = this.gmask;
    const cur = (p[50] + 1) & gm;
    p[50] = cur;
    p[51] = keep;
    for (let i = 0; i < this.m; i++) {
      for (let j = 0; j < this.b; j++) {
        const e = this._slot(i, j);
        if (e !== 0 && this._slotAge(e) >= keep) { this._wslot(i, j, 0); this._addEntries(-1); }
      }
    }
    if (this._victim() && this._slotAge(this._ve) >= keep) { this._clearVictim(); this._addEntries(-1); }
    let items = this.items;
    for (let x = 0; x <= gm; x++) {
      if (((cur - x) & gm) >= keep) { items -= rd64(p, HEADER_2 + 8 * x); wr64(p, HEADER_2 + 8 * x, 0); }
    }
    // items <= entries: the oldest generations give way
    for (let age = keep; age-- > 0 && items > this.entries;) {
      const o = HEADER_2 + 8 * ((cur - age) & gm);
      const cut = Math.min(items - this.entries, rd64(p, o));
      wr64(p, o, rd64(p, o) - cut);
      items -= cut;
    }
    wr64(p, 24, items);
    this._victimRetry();
  }

  /**
   * cuckoo_rotate(src, keep) of a filter of either version: a new
   * version-2 filter (src unchanged), generation tags widened or added
   * first where 2^g <= keep (a version-1 filter: bucket (q << k) | r
   * becomes r * c + q, every entry in generation 0).
   */
  static _rotate(src, keep) {
    if (!Number.isInteger(keep) || keep < 1 || keep > 255) {
      throw serverError(RangeError, '22023', `keep must be between 1 and 255, not ${keep}`);
    }
    const v2 = src.version === 2;
    const sg = v2 ? src.g : 0, t = v2 ? src.t : 0;
    const budget = v2 && src.budget;
    let g = sg;
    while (2 ** g <= keep) g++;
    // a budget filter's tails take T(k) with the new g (13.12 rule 6)
    const nt = budget ? budgetT(src.c, src.k, src.f, g) : t;
    const w = src.f + nt + g;
    if (w > 32 || (budget && 32 - src.f - g < 2)) {
      throw serverError(RangeError, '54000', `cannot rotate a filter of ${src.f}-bit fingerprints${t ? ` and ${t} tail bits` : ''} with keep ${keep}`,
        `Keeping ${keep} generations takes ${g} tag bits per entry, and an entry holds at most 32 bits.`,
        'Use a smaller keep, or a filter with shorter fingerprints (a larger fpr).');
    }
    const len = totalBytes2(src.m, src.b, w, g);
    if (len > MAX_BYTES) {
      throw serverError(RangeError, '54000', `the rotated filter would be larger than ${MAX_BYTES} bytes`,
        'Rotation adds generation tags to every entry.');
    }
    if (v2 && g === sg) {
      const d = src._copy();
      d._rotateInPlace(keep);
      return d;
    }
    const h = new Uint8Array(len);
    const s = src._buf;
    h.set(s.subarray(0, 4));                                // magic
    h[4] = 2; h[5] = src.b; h[6] = src.f;
    h[7] = (v2 && src.grows ? FLAG_GROWS : 0) | (budget ? FLAG_BUDGET : 0);
    h.set(s.subarray(8, 10), 8);                            // kind
    h[10] = nt; h[11] = g;
    h.set(s.subarray(12, 16), 12);                          // type tag
    wr32(h, 16, src.m);
    h.set(s.subarray(20, 24), 20);                          // max kicks
    h.set(s.subarray(24, 40), 24);                          // items, capacity
    h[48] = src.c & 255; h[49] = src.c >> 8;
    if (v2) {
      h[50] = s[50]; h[51] = s[51];
      h.set(s.subarray(52, 56), 52);
      h.set(s.subarray(56, 64), 56);
    } else {
      wr32(h, 52, src.m);
      h.set(s.subarray(24, 32), 56);                        // entries = items
    }
    const d = new FilterV2(h);
    if (v2) {
      const cur = s[50];
      // the same ages under wider tags
      for (let age = 0; age <= src.gmask; age++) {
        wr64(h, HEADER_2 + 8 * ((cur - age) & d.gmask),
          sg ? rd64(s, HEADER_2 + 8 * ((cur - age) & src.gmask)) : (age === 0 ? src.items : 0));
      }
      const keepBits = (src.fpMask | (src.tmask << src.f)) >>> 0;
      // narrower tails: s >= nt keeps the lowest nt - 1 spare bits
      const narrow = (e) => {
        const tail = (e >>> src.f) & src.tmask, sp = log2(tail);
        if (!budget || sp < nt) return (e & keepBits) >>> 0;
        return ((e & src.fpMask) | (((1 << (nt - 1)) | ((tail ^ (1 << sp)) & mask(nt - 1))) << src.f)) >>> 0;
      };
      const retag = (e) => (narrow(e) | (((cur - src._slotAge(e)) & d.gmask) << (d.f + d.t))) >>> 0;
      for (let i = 0; i < src.m; i++) {
        for (let j = 0; j < src.b; j++) {
          const e = src._slot(i, j);
          if (e) d._wslot(i, j, retag(e));
        }
      }
      if (src._victim()) d._setVictim(src._vb, retag(src._ve));
    } else {
      wr64(h, HEADER_2, src.items);
      const fps = new Uint32Array(8);
      for (let i = 0; i < src.m; i++) {
        const ni = (i & src.rmask) * src.c + Math.floor(i / 2 ** src.k);
        src._read(i, fps);
        for (let j = 0; j < src.b; j++) if (fps[j]) d._wslot(ni, j, fps[j]);
      }
      if (src.victimUsed) {
        const vb = rd32(s, 40);
        d._setVictim((vb & src.rmask) * src.c + Math.floor(vb / 2 ** src.k), rd32(s, 44));
      }
    }
    d._rotateInPlace(keep);
    return d;
  }

  /**
   * An empty growing filter, as cuckoo_create(capacity, fpr, max_kicks =>
   * maxKicks, expansion => 2) makes it from extension 1.3 on: an address
   * budget filter (flag 0x08, t = T(k0); docs/FORMAT.md 13.12), with the
   * core's sizing (cf_params_growing: fingerprints 4 bits shorter than a
   * fixed filter's for fpr, buckets for capacity at load 0.94).
   */
  static createGrowing(capacity, fpr = 0.01, maxKicks = 500) {
    const refuse = (why) => serverError(RangeError, '22023',
      `cannot create a growing filter for capacity ${capacity} at fpr ${fpr}: ${why}`);
    if (!Number.isSafeInteger(capacity)) throw new TypeError('capacity must be a safe integer');
    if (typeof fpr !== 'number' || !(fpr > 0 && fpr < 1)) throw refuse(`false-positive rate ${fpr} is outside the open range 0 to 1`);
    if (capacity < 1) throw refuse('capacity must be at least 1');
    if (!Number.isInteger(maxKicks) || maxKicks < 0 || maxKicks > MAX_KICKS_LIMIT) {
      throw refuse(`max kicks ${maxKicks} is outside the range 0 to ${MAX_KICKS_LIMIT}`);
    }
    let ff = -1;
    for (let x = 4; x <= 32 && ff < 0; x++) if (expectedFpr(4, x, 0.94) <= fpr) ff = x;
    const f = Math.max(4, ff - 4);
    // T(k0) >= 2 (13.12 rule 1): with g = 0, f <= 30
    if (ff < 0 || 32 - f < 2) throw refuse(`false-positive rate ${fpr} is too small for a growing filter`);
    // cf_buckets_for_capacity(capacity, 4), cf_round_buckets
    let m = 1;
    if (capacity > 4) {
      let need = Math.ceil(capacity / (4 * 0.94));
      need += Math.ceil(Math.sqrt(need));
      if (need > 0xFFFFFFFF) throw refuse(`capacity ${capacity} is too large`);
      let k = Math.max(0, 31 - Math.clz32(need) - 7);
      let cc = Math.ceil(need / 2 ** k);
      if (k > 0 && cc === 256) { cc = 128; k++; }
      m = cc * 2 ** k;
      if (m > 0xFFFFFFFF) throw refuse(`capacity ${capacity} is too large`);
    }
    const k0 = Math.max(0, 31 - Math.clz32(m) - 7);
    const c = m / 2 ** k0;
    const t = budgetT(c, k0, f, 0);
    const len = totalBytes2(m, 4, f + t, 0);
    if (len > MAX_BYTES) throw refuse(`a filter of ${m} buckets would take ${len} bytes, more than the limit of ${MAX_BYTES}`);
    const h = new Uint8Array(len);
    wr32(h, 0, 0x4F4F4B43);                                 // CKOO
    h[4] = 2; h[5] = 4; h[6] = f; h[7] = FLAG_GROWS | FLAG_BUDGET;
    h[10] = t;
    wr32(h, 16, m);
    wr32(h, 20, maxKicks);
    wr64(h, 32, capacity);
    h[48] = c;
    wr32(h, 52, m);
    checkHeader2(h);
    return new FilterV2(h);
  }

  /** A new filter: cuckoo_rotate(f, keep). */
  rotate(keep) { return FilterV2._rotate(this, keep); }

  _copy() { return new FilterV2(new Uint8Array(this._buf)); }

  // ---- validation (cf2_validate, after the header) ----

  // the bucket of entry e's pair other than i; -1 if it cannot be named
  _altBucket(i, e) {
    const fp = (e & this.fpMask) >>> 0;
    const res = this._res(i);
    const r = Math.floor(i / this.c);
    let a = r, L = res;
    if (this.t) {
      const tail = (e >>> this.f) & this.tmask;
      const s = log2(tail);
      L = res + s;
      a = (r | ((tail ^ (1 << s)) << res)) >>> 0;
    }
    const q = i - r * this.c;
    const gl0 = Math.imul(fp, K_FP_LO) >>> 0;
    const gh0 = (mulhi32(fp, K_FP_LO) + Math.imul(fp, K_FP_HI)) >>> 0;
    const gl = (gl0 ^ ((gl0 >>> 29) | (gh0 << 3))) >>> 0;
    const gh = (gh0 ^ (gh0 >>> 29)) >>> 0;
    const hq = Math.floor((gl * this.c) / 4294967296);
    const q2 = hq >= q ? hq - q : hq + this.c - q;
    const a2 = ((a ^ gh) & mask(L)) >>> 0;
    let j0 = (a2 & this.rmask) * this.c + q2;
    if (j0 < this.split) {
      if (L < this.k + 1) return -1;
      j0 += ((a2 >>> this.k) & 1) * this.base;
    }
    return j0;
  }

  _slotOk(i, e, live, cur) {
    if (((e & this.fpMask) >>> 0) === 0) throw new RangeError(`bucket ${i} holds a slot 0x${e.toString(16)} with a zero fingerprint`);
    if (this.t) {
      const tail = (e >>> this.f) & this.tmask;
      if (tail === 0) throw new RangeError(`bucket ${i} holds a slot 0x${e.toString(16)} without a tail`);
      if (this._res(i) + log2(tail) > this.A) throw new RangeError(`bucket ${i} holds a slot 0x${e.toString(16)} with more than ${this.A} address bits`);
    }
    const gen = this.g ? (e >>> (this.f + this.t)) & this.gmask : 0;
    if (((cur - gen) & this.gmask) >= live) throw new RangeError(`bucket ${i} holds a slot 0x${e.toString(16)} of a dropped generation`);
  }

  _full2(i) {
    for (let j = 0; j < this.b; j++) if (this._slot(i, j) === 0) return false;
    return true;
  }

  _validateTable() {
    const d = this._buf;
    const cur = d[50], live = d[51] || 1;
    let count = 0;
    for (let i = 0; i < this.m; i++) {
      for (let j = 0; j < this.b; j++) {
        const e = this._slot(i, j);
        if (e === 0) continue;
        this._slotOk(i, e, live, cur);
        count++;
      }
    }
    const used = this.m * this.B;
    const first = this.hdr + Math.floor(used / 8);
    if (first < d.length) {
      let bad = (d[first] >> (used % 8)) !== 0;
      for (let o = first + 1; o < d.length && !bad; o++) bad = d[o] !== 0;
      if (bad) throw new RangeError('padding after the bucket array is not zero');
    }
    if (this.victimUsed) {
      const vb = rd32(d, 40), ve = rd32(d, 44);
      this._slotOk(vb, ve, live, cur);
      count++;
      const alt = this._altBucket(vb, ve);
      if (!this._full2(vb) || (alt >= 0 && !this._full2(alt))) throw new RangeError('victim slot is in use although its buckets have room');
    }
    if (count !== this.entries) throw new RangeError(`entry count ${this.entries} disagrees with the ${count} occupied slots`);
  }
}

// what the base class asks the registry for (filter.js: fromBytes and the
// header check, union with a version-1 filter, rotate)
FilterV2._checkHeader = checkHeader2;
FilterV2._shapeMismatch = shapeMismatch;
registerFormat(2, FilterV2);
