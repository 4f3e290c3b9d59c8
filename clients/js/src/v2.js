// Format version 2 (docs/FORMAT.md section 13): growing and rotating filters.
//
// Read-only here: validation as strict as the server's (src/core/cf_v2.c,
// cf2_check_header and cf2_validate: the same rules in the same order, with
// the same wording), lookups (contains, count), info and the two forms.  The
// changing operations (add, addIfAbsent, remove, union) throw an Error: a
// version-2 filter grows by splitting buckets, copies entries that run out
// of address bits, raises the generation of older matches on remove and
// re-homes entries on union, and none of that is ported; change such a
// filter in PostgreSQL.

import { mulhi32 } from './xxh3.js';
import { KIND, KIND_NAMES } from './values.js';

const HEADER_2 = 64;
const FLAG_VICTIM = 2;
const FLAG_GROWS = 4;
const FLAGS_KNOWN_2 = FLAG_VICTIM | FLAG_GROWS;
const MAX_KICKS_LIMIT = 100000;
const MAX_BYTES = 805306368 - 65536;
const ADDR_BITS = 32;
const K_BUCKET_LO = 0x7F4A7C15;   // 0x9E3779B97F4A7C15
const K_BUCKET_HI = 0x9E3779B9;
const K_FP_LO = 0x27D4EB4F;       // 0xC2B2AE3D27D4EB4F
const K_FP_HI = 0xC2B2AE3D;

export const REFUSAL = 'pgcuckoo reads format-version-2 filters (growing or rotated) but does not change them';

const rd16 = (p, o) => p[o] | (p[o + 1] << 8);
const rd32 = (p, o) => (p[o] | (p[o + 1] << 8) | (p[o + 2] << 16) | (p[o + 3] << 24)) >>> 0;
const rd64 = (p, o) => rd32(p, o) + rd32(p, o + 4) * 4294967296;      // exact below 2^53
const rd64big = (p, o) => (BigInt(rd32(p, o + 4)) << 32n) | BigInt(rd32(p, o));
const mask = (n) => (n >= 32 ? 0xFFFFFFFF : 2 ** n - 1);
const log2 = (x) => 31 - Math.clz32(x | 1);
const hex2 = (x) => x.toString(16).padStart(2, '0');

const headerBytes = (g) => HEADER_2 + (g ? 8 * 2 ** g : 0);
const totalBytes2 = (m, b, w, g) => headerBytes(g) + Math.ceil((m * b * w) / 64) * 8 + 8;

// the w-bit field (w <= 32) at bit pos of the table that starts at byte base
function getBitsAt(d, base, pos, w) {
  const byte = base + Math.floor(pos / 8);
  const sh = pos % 8;
  const lo = (d[byte] | (d[byte + 1] << 8) | (d[byte + 2] << 16) | (d[byte + 3] << 24)) >>> 0;
  const v = sh === 0 ? lo : ((lo >>> sh) | (d[byte + 4] << (32 - sh))) >>> 0;
  return w === 32 ? v : (v & (2 ** w - 1)) >>> 0;
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
  const grows = (flags & FLAG_GROWS) !== 0;
  const b = p[5], f = p[6], t = p[10], g = p[11];
  if (b !== 2 && b !== 4 && b !== 8) throw new RangeError(`bucket size ${b} is not 2, 4 or 8`);
  if (grows && b !== 4) throw new RangeError(`a growing filter has bucket size 4, not ${b}`);
  if (f < 4 || f > 32) throw new RangeError(`fingerprint size ${f} is outside the range 4 to 32 bits`);
  if (t > 15 || (grows ? t < 2 : t !== 0)) throw new RangeError(`tail bits ${t} do not fit a ${grows ? 'growing' : 'fixed'} filter`);
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
 * The class of version-2 filters, a subclass of Filter (made here, not
 * imported, so that filter.js and this file do not import each other).
 * ctx: { hv } (the scratch array Filter#_hashFor writes a hash's halves to)
 * and expectedFpr.
 */
export function defineFilterV2(Filter, ctx) {
  const { hv, expectedFpr } = ctx;

  class FilterV2 extends Filter {
    constructor(buf) {
      super(buf);
      // Filter's constructor read the version-1 geometry: replace it
      this.version = 2;
      this.t = buf[10];
      this.g = buf[11];
      this.w = this.f + this.t + this.g;
      this.grows = (buf[7] & FLAG_GROWS) !== 0;
      this.c = rd16(buf, 48);
      this.k = levels(this.c, this.m);
      this.base = this.c * 2 ** this.k;
      this.split = this.m - this.base;
      this.rmask = 2 ** this.k - 1;
      this.hdr = headerBytes(this.g);
      this.semisort = false;
      this.lowBits = 0;
      this.B = this.b * this.w;
      this.fpMask = mask(this.f);
      this.tmask = mask(this.t);
      this.gmask = mask(this.g);
    }

    get entries() { return rd64(this._buf, 56); }

    /** The columns of SQL cuckoo_info(f). */
    info() {
      const p = this._buf;
      const items = this.items, entries = this.entries;
      const load = (entries - (this.victimUsed ? 1 : 0)) / (this.m * this.b);
      const bytes = p.length + 4;
      const m0 = rd32(p, 52);
      const rounds = this.k - levels(this.c, m0);
      let fpr = expectedFpr(this.b, this.f, load);
      if (this.t > 0) fpr = Math.min(1, fpr * (rounds + 2) * 2 ** -this.t);
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

    // ---- changes: refused ----

    add() { throw new Error(`${REFUSAL}: add values in PostgreSQL`); }
    addIfAbsent() { throw new Error(`${REFUSAL}: add values in PostgreSQL`); }
    remove() { throw new Error(`${REFUSAL}: remove values in PostgreSQL`); }
    addInPlace() { throw new Error(`${REFUSAL}: add values in PostgreSQL`); }
    addIfAbsentInPlace() { throw new Error(`${REFUSAL}: add values in PostgreSQL`); }
    removeInPlace() { throw new Error(`${REFUSAL}: remove values in PostgreSQL`); }
    union() { throw new Error(`${REFUSAL}: union them in PostgreSQL`); }

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
        if (this._res(i) + log2(tail) > ADDR_BITS) throw new RangeError(`bucket ${i} holds a slot 0x${e.toString(16)} with more than ${ADDR_BITS} address bits`);
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
  return FilterV2;
}
