// A cuckoofilter value (format version 1) outside PostgreSQL: a port of the
// extension's core (src/core/) with the same byte layout, bucket
// derivation, insertion walk, victim slot, union and validation.
// docs/FORMAT.md is the specification.  Format version 2 (growing and
// rotated filters) is FilterV2 (v2.js), a subclass; this file reaches it
// only through the format registry (formats.js), never by import.

import { mulhi32 } from './xxh3.js';
import { KIND, KIND_NAMES, kindAndHash } from './values.js';
import { ROTATED_VERSION, formatClass, registerFormat } from './formats.js';

const MAGIC = 0x4F4F4B43;
export const FORMAT_VERSION = 1;
const HEADER = 48;
const FLAG_SEMISORT = 1;
const FLAG_VICTIM = 2;
const FLAGS_KNOWN = 3;
const MAX_KICKS_LIMIT = 100000;
const MAX_BYTES = 805306368 - 65536;
const SS_CODES = 3876;
const K_BUCKET_LO = 0x7F4A7C15;   // 0x9E3779B97F4A7C15
const K_BUCKET_HI = 0x9E3779B9;
const K_FP_LO = 0x27D4EB4F;       // 0xC2B2AE3D27D4EB4F
const K_FP_HI = 0xC2B2AE3D;
const M64 = (1n << 64n) - 1n;

const OK = 0, OK_STASHED = 1, EXISTS = 2, FULL = 3, TOO_MANY_COPIES = 4;

/** An item could not be stored (the SQL functions raise SQLSTATE 54000). */
export class FilterFullError extends Error {
  constructor(msg) { super(msg); this.name = 'FilterFullError'; }
}

// ---- semi-sorted buckets: ranks of the sorted 4-nibble multisets ----
const BINOM = [];
for (let n = 0; n < 20; n++) {
  BINOM.push([]);
  for (let r = 0; r < 5; r++) BINOM[n].push(r === 0 ? 1 : n < r ? 0 : (BINOM[n - 1][r - 1] + BINOM[n - 1][r]));
}
const ssRank = (a, b, c, d) => BINOM[a][1] + BINOM[b + 1][2] + BINOM[c + 2][3] + BINOM[d + 3][4];
const SS_DECODE = new Uint16Array(4096);
for (let a = 0; a < 16; a++)
  for (let b = a; b < 16; b++)
    for (let c = b; c < 16; c++)
      for (let d = c; d < 16; d++) SS_DECODE[ssRank(a, b, c, d)] = a | (b << 4) | (c << 8) | (d << 12);

// ---- little-endian fields ----
const rd16 = (p, o) => p[o] | (p[o + 1] << 8);
const rd32 = (p, o) => (p[o] | (p[o + 1] << 8) | (p[o + 2] << 16) | (p[o + 3] << 24)) >>> 0;
const rd64 = (p, o) => rd32(p, o) + rd32(p, o + 4) * 4294967296;      // exact below 2^53
function wr32(p, o, v) {
  p[o] = v & 255; p[o + 1] = (v >>> 8) & 255; p[o + 2] = (v >>> 16) & 255; p[o + 3] = (v >>> 24) & 255;
}
function wr64(p, o, v) {
  wr32(p, o, v >>> 0);
  wr32(p, o + 4, Math.floor(v / 4294967296) >>> 0);
}
const rd64big = (p, o) => (BigInt(rd32(p, o + 4)) << 32n) | BigInt(rd32(p, o));

// the field of width w (<= 32) at bit position pos of the table
function getBits(d, pos, w) {
  const byte = HEADER + Math.floor(pos / 8);
  const sh = pos % 8;
  const lo = (d[byte] | (d[byte + 1] << 8) | (d[byte + 2] << 16) | (d[byte + 3] << 24)) >>> 0;
  let v = sh === 0 ? lo : ((lo >>> sh) | (d[byte + 4] << (32 - sh))) >>> 0;
  return w === 32 ? v : (v & ((1 << w) - 1)) >>> 0;
}
function setBits(d, pos, w, val) {
  let byte = HEADER + Math.floor(pos / 8);
  let sh = pos % 8;
  let done = 0;
  while (done < w) {
    const n = Math.min(8 - sh, w - done);
    const m = ((1 << n) - 1) << sh;
    d[byte] = (d[byte] & ~m) | ((((val >>> done) & ((1 << n) - 1)) << sh) & m);
    done += n;
    byte++;
    sh = 0;
  }
}

function splitBuckets(m) {
  const lg = 31 - Math.clz32(m);
  const k = lg >= 7 ? lg - 7 : 0;
  return [Math.floor(m / 2 ** k), k];
}
function bucketsRepresentable(m) {
  if (!(m >= 1 && m <= 0xFFFFFFFF)) return false;
  const [c, k] = splitBuckets(m);
  return c * 2 ** k === m;
}
const bucketBits = (b, f, ss) => (ss ? 4 * (f - 1) : b * f);
const totalBytes = (m, b, f, ss) => HEADER + Math.ceil((m * bucketBits(b, f, ss)) / 64) * 8 + 8;

export function expectedFpr(b, f, load) {
  if (load <= 0) return 0;
  return -Math.expm1(2 * b * load * Math.log1p(-1 / (2 ** f - 1)));
}

// ---- the random victim choice (xorshift64*, seeded from the item) ----
function mix64(x) {
  x ^= x >> 33n; x = (x * 0xff51afd7ed558ccdn) & M64;
  x ^= x >> 33n; x = (x * 0xc4ceb9fe1a85ec53n) & M64;
  return x ^ (x >> 33n);
}
function rngSeed(a, b) {
  const s = mix64(a ^ mix64((b + 0x9E3779B97F4A7C15n) & M64));
  return s ? s : 0x9E3779B97F4A7C15n;
}
function rngNext(st) {
  let x = st.s;
  x ^= x >> 12n;
  x ^= (x << 25n) & M64;
  x ^= x >> 27n;
  st.s = x;
  return (x * 0x2545F4914F6CDD1Dn) & M64;
}

function checkHeader(p) {
  const n = p.length;
  if (n < HEADER) throw new RangeError(`${n} bytes is shorter than the 48-byte header`);
  if (rd32(p, 0) !== MAGIC) throw new RangeError(`wrong magic number 0x${rd32(p, 0).toString(16).padStart(8, '0')}`);
  if (p[4] !== FORMAT_VERSION) return formatClass(p[4])._checkHeader(p);
  const flags = p[7];
  if (flags & ~FLAGS_KNOWN) throw new RangeError(`unknown flag bits 0x${(flags & ~FLAGS_KNOWN).toString(16).padStart(2, '0')}`);
  if (rd16(p, 10) !== 0) throw new RangeError('reserved header field is not zero');
  const b = p[5], f = p[6], ss = (flags & FLAG_SEMISORT) !== 0;
  const kind = rd16(p, 8), tag = rd32(p, 12), m = rd32(p, 16), kicks = rd32(p, 20);
  const cap = rd64big(p, 32);
  if (b !== 2 && b !== 4 && b !== 8) throw new RangeError(`bucket size ${b} is not 2, 4 or 8`);
  if (f < 4 || f > 32) throw new RangeError(`fingerprint size ${f} is outside the range 4 to 32 bits`);
  if (ss && b !== 4) throw new RangeError(`semi-sorting needs bucket size 4, not ${b}`);
  if (!bucketsRepresentable(m)) throw new RangeError(`bucket count ${m} is not of the form c * 2^k with c < 256`);
  if (kicks > MAX_KICKS_LIMIT) throw new RangeError(`max kicks ${kicks} is outside the range 0 to ${MAX_KICKS_LIMIT}`);
  if (kind > KIND.other) throw new RangeError(`value kind ${kind} is unknown`);
  if ((kind === KIND.other) !== (tag !== 0)) throw new RangeError(`type tag ${tag} does not match value kind ${kind}`);
  if (cap < 1n || cap > BigInt(m * b)) throw new RangeError(`capacity ${cap} is outside the range 1 to ${m * b} for ${m} buckets`);
  const want = totalBytes(m, b, f, ss);
  if (want > MAX_BYTES) throw new RangeError(`a filter of ${m} buckets would take ${want} bytes, more than the limit of ${MAX_BYTES}`);
  if (n !== want) throw new RangeError(`length ${n} does not match the ${want} bytes that ${m} buckets need`);
  const items = rd64big(p, 24);
  if (items > BigInt(m * b + 1)) throw new RangeError(`item count ${items} exceeds the ${m * b + 1} entries of the table`);
  const vb = rd32(p, 40), vfp = rd32(p, 44);
  if (flags & FLAG_VICTIM) {
    if (vb >= m) throw new RangeError(`victim bucket ${vb} is outside the ${m} buckets`);
    if (vfp === 0 || vfp >= 2 ** f) throw new RangeError(`victim fingerprint ${vfp} is not a valid ${f}-bit fingerprint`);
  } else if (vb !== 0 || vfp !== 0) throw new RangeError('victim fields are set but the victim flag is not');
}

// strict base64 (RFC 4648, standard alphabet, padded, nothing else)
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_LUT = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_LUT[B64.charCodeAt(i)] = i;

function b64encode(p) {
  const parts = [];
  let s = '';
  let i = 0;
  for (; i + 3 <= p.length; i += 3) {
    const v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
    if (s.length >= 65536) { parts.push(s); s = ''; }
  }
  if (p.length - i === 1) {
    const v = p[i] << 16;
    s += B64[v >> 18] + B64[(v >> 12) & 63] + '==';
  } else if (p.length - i === 2) {
    const v = (p[i] << 16) | (p[i + 1] << 8);
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + '=';
  }
  parts.push(s);
  return parts.join('');
}

function b64decode(s) {
  const n = s.length;
  if (n === 0 || n % 4 !== 0) return null;
  const pad = (s[n - 1] === '=' ? 1 : 0) + (s[n - 2] === '=' ? 1 : 0);
  const out = new Uint8Array((n / 4) * 3 - pad);
  const val = (i) => { const c = s.charCodeAt(i); return c < 128 ? B64_LUT[c] : -1; };
  let o = 0;
  for (let i = 0; i < n; i += 4) {
    const last = i + 4 === n;
    const a = val(i), b = val(i + 1);
    if (a < 0 || b < 0) return null;
    if (last && pad === 2) {
      if (s[i + 2] !== '=' || (b & 15)) return null;
      out[o] = (a << 2) | (b >> 4);
      return out;
    }
    const c = val(i + 2);
    if (c < 0) return null;
    if (last && pad === 1) {
      if (c & 3) return null;
      out[o] = (a << 2) | (b >> 4);
      out[o + 1] = ((b & 15) << 4) | (c >> 2);
      return out;
    }
    const d = val(i + 3);
    if (d < 0) return null;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  return out;
}

export const hv = [0, 0];       // scratch for a hash's halves (v2.js reads it too)

export class Filter {
  /** @param {Uint8Array} buf bytes whose header has been checked; owned by the filter */
  constructor(buf) {
    this._buf = buf;
    this.version = FORMAT_VERSION;
    this.m = rd32(buf, 16);
    [this.c, this.k] = splitBuckets(this.m);
    this.rmask = 2 ** this.k - 1;
    this.b = buf[5];
    this.f = buf[6];
    this.semisort = (buf[7] & FLAG_SEMISORT) !== 0;
    this.fpRange = 2 ** this.f - 1;
    this.lowBits = this.semisort ? this.f - 4 : 0;
    this.B = bucketBits(this.b, this.f, this.semisort);
    this._fps = new Uint32Array(8);
  }

  // ---- forms ----

  /** The binary (bytea) form, validated as strictly as the server does; RangeError if invalid. */
  static fromBytes(data) {
    if (!(data instanceof Uint8Array)) throw new TypeError('fromBytes takes a Uint8Array');
    if (data.length > MAX_BYTES) throw new RangeError(`invalid cuckoofilter value: ${data.length} bytes is more than the limit of ${MAX_BYTES}`);
    const buf = new Uint8Array(data);          // a copy: the caller's bytes stay theirs
    try {
      checkHeader(buf);
      const f = new (formatClass(buf[4]))(buf);
      f._validateTable();
      return f;
    } catch (e) {
      if (e instanceof RangeError) throw new RangeError(`invalid cuckoofilter value: ${e.message}`);
      throw e;
    }
  }

  /** The text form (base64 of the binary form), validated; RangeError if invalid. */
  static fromText(s) {
    if (typeof s !== 'string') throw new TypeError('fromText takes a string');
    const data = b64decode(s);
    if (data === null) throw new RangeError('invalid input syntax for type cuckoofilter: a cuckoofilter is written as the base64 encoding of its binary form');
    return Filter.fromBytes(data);
  }

  /** A copy of the binary form. */
  toBytes() { return new Uint8Array(this._buf); }

  /** The text form, as the server prints it. */
  toText() { return b64encode(this._buf); }

  toString() { return this.toText(); }

  equals(other) {
    if (!(other instanceof Filter) || other._buf.length !== this._buf.length) return false;
    for (let i = 0; i < this._buf.length; i++) if (this._buf[i] !== other._buf[i]) return false;
    return true;
  }

  _copy() { return new Filter(new Uint8Array(this._buf)); }

  static _new(m, b, f, semisort, maxKicks, kind, capacity) {
    const buf = new Uint8Array(totalBytes(m, b, f, semisort));
    wr32(buf, 0, MAGIC);
    buf[4] = FORMAT_VERSION; buf[5] = b; buf[6] = f; buf[7] = semisort ? FLAG_SEMISORT : 0;
    buf[8] = kind; wr32(buf, 16, m); wr32(buf, 20, maxKicks); wr64(buf, 32, capacity);
    checkHeader(buf);
    return new Filter(buf);
  }

  // ---- header ----

  get items() { return rd64(this._buf, 24); }
  get capacity() { return rd64(this._buf, 32); }
  get kind() { return rd16(this._buf, 8); }
  get kindName() { return KIND_NAMES[this.kind]; }
  get maxKicks() { return rd32(this._buf, 20); }
  get victimUsed() { return (this._buf[7] & FLAG_VICTIM) !== 0; }
  _addItems(d) { wr64(this._buf, 24, this.items + d); }

  /** The columns of SQL cuckoo_info(f). */
  info() {
    const items = this.items;
    const load = (items - (this.victimUsed ? 1 : 0)) / (this.m * this.b);
    const bytes = this._buf.length + 4;       // cuckoo_info counts PostgreSQL's length word
    return {
      buckets: this.m,
      bucket_size: this.b,
      fingerprint_bits: this.f,
      semisort: this.semisort,
      items,
      capacity: this.capacity,
      load_factor: load,
      bytes,
      bits_per_item: items > 0 ? (bytes * 8) / items : null,
      expected_fpr: expectedFpr(this.b, this.f, load),
      value_type: this.kindName,
      max_kicks: this.maxKicks,
      is_full: this.victimUsed,
      // the columns of extension 1.2, as a version-1 filter has them
      format_version: FORMAT_VERSION,
      expansion: 0,
      tail_bits: 0,
      initial_buckets: this.m,
      growth_rounds: 0,
      split_pointer: 0,
      entries: items,
      generation_bits: 0,
      generation: 0,
      keep: 0,
      generation_items: [items],
    };
  }

  // ---- buckets ----

  // bucket i's fingerprints into this._fps (semi-sorted: ascending); returns it
  _read(i, out = this._fps) {
    const d = this._buf;
    const pos = i * this.B;
    if (!this.semisort) {
      const f = this.f;
      for (let j = 0; j < this.b; j++) out[j] = getBits(d, pos + j * f, f);
    } else {
      const nib = SS_DECODE[getBits(d, pos, 12)];
      const lb = this.lowBits;
      for (let j = 0; j < 4; j++) {
        out[j] = (((nib >> (4 * j)) & 15) * 2 ** lb) + (lb ? getBits(d, pos + 12 + j * lb, lb) : 0);
      }
    }
    return out;
  }

  _write(i, fps) {
    const d = this._buf;
    const pos = i * this.B;
    if (!this.semisort) {
      for (let j = 0; j < this.b; j++) setBits(d, pos + j * this.f, this.f, fps[j]);
      return;
    }
    const s = Array.from(fps.subarray ? fps.subarray(0, 4) : fps.slice(0, 4)).sort((x, y) => x - y);
    for (let j = 0; j < 4; j++) fps[j] = s[j];
    const lb = this.lowBits;
    const div = 2 ** lb;
    setBits(d, pos, 12, ssRank(Math.floor(s[0] / div), Math.floor(s[1] / div), Math.floor(s[2] / div), Math.floor(s[3] / div)));
    if (lb) for (let j = 0; j < 4; j++) setBits(d, pos + 12 + j * lb, lb, s[j] % div);
  }

  _has(i, fp) {
    const fps = this._read(i);
    for (let j = 0; j < this.b; j++) if (fps[j] === fp) return true;
    return false;
  }

  _countIn(i, fp) {
    const fps = this._read(i);
    let n = 0;
    for (let j = 0; j < this.b; j++) if (fps[j] === fp) n++;
    return n;
  }

  _place(i, fp) {
    const fps = this._read(i);
    for (let j = 0; j < this.b; j++) {
      if (fps[j] === 0) { fps[j] = fp; this._write(i, fps); return true; }
    }
    return false;
  }

  _take(i, fp) {
    const fps = this._read(i);
    for (let j = 0; j < this.b; j++) {
      if (fps[j] === fp) { fps[j] = 0; this._write(i, fps); return true; }
    }
    return false;
  }

  _full(i) {
    const fps = this._read(i);
    for (let j = 0; j < this.b; j++) if (fps[j] === 0) return false;
    return true;
  }

  // ---- hashing to places ----

  // fingerprint and first bucket of the hash (hi, lo): returns fp, sets this._i1
  _locate(hi, lo) {
    const fp = 1 + mulhi32(lo, this.fpRange);
    // hi32 of the 64-bit product h * 0x9E3779B97F4A7C15
    const x = (mulhi32(lo, K_BUCKET_LO) + Math.imul(lo, K_BUCKET_HI) + Math.imul(hi, K_BUCKET_LO)) >>> 0;
    const q = Math.floor((x * this.c) / 4294967296);
    this._i1 = q * 2 ** this.k + (hi & this.rmask);
    return fp;
  }

  _alt(i, fp) {
    const gl0 = Math.imul(fp, K_FP_LO) >>> 0;
    const gh0 = (mulhi32(fp, K_FP_LO) + Math.imul(fp, K_FP_HI)) >>> 0;
    const gl = (gl0 ^ ((gl0 >>> 29) | (gh0 << 3))) >>> 0;
    const gh = (gh0 ^ (gh0 >>> 29)) >>> 0;
    const k2 = 2 ** this.k;
    const q = Math.floor(i / k2);
    const r = i - q * k2;
    const hq = Math.floor((gl * this.c) / 4294967296);
    const q2 = hq >= q ? hq - q : hq + this.c - q;
    return q2 * k2 + ((r ^ (gh & this.rmask)) >>> 0);
  }

  _victimMatches(fp, i1, i2) {
    const p = this._buf;
    if (!(p[7] & FLAG_VICTIM) || rd32(p, 44) !== fp) return false;
    const vb = rd32(p, 40);
    return vb === i1 || vb === i2;
  }

  _setVictim(i, fp) { this._buf[7] |= FLAG_VICTIM; wr32(this._buf, 40, i); wr32(this._buf, 44, fp); }

  _clearVictim() { this._buf[7] &= ~FLAG_VICTIM; wr32(this._buf, 40, 0); wr32(this._buf, 44, 0); }

  _containsHash(hi, lo) {
    const fp = this._locate(hi, lo);
    const i1 = this._i1;
    if (this._has(i1, fp)) return true;
    const i2 = this._alt(i1, fp);
    return this._has(i2, fp) || this._victimMatches(fp, i1, i2);
  }

  // ---- the insertion walk (src/core/cf_table.c cf_insert_fingerprint) ----

  _moveOneAside(i1, i2, fp) {
    const cands = [];
    for (let side = 0; side < 2; side++) {
      const bi = side ? i2 : i1;
      if (side && i2 === i1) break;
      const fps = this._read(bi, new Uint32Array(8));
      for (let j = 0; j < this.b; j++) cands.push([bi, j, fps[j], this._alt(bi, fps[j])]);
    }
    for (const [home, slot, moved, alt] of cands) {
      if (alt === home || !this._place(alt, moved)) continue;
      const fps = this._read(home);
      fps[slot] = fp;
      this._write(home, fps);
      return true;
    }
    return false;
  }

  _pairOnlyFp(i1, i2, fp) {
    const n = this._countIn(i1, fp);
    if (i2 === i1) return n === this.b;
    return n === this.b && this._countIn(i2, fp) === this.b;
  }

  _insertFp(i1, fp, seed, checkCopies) {
    const i2 = this._alt(i1, fp);
    if (this._place(i1, fp) || (i2 !== i1 && this._place(i2, fp))) { this._addItems(1); return OK; }
    if (checkCopies && this._pairOnlyFp(i1, i2, fp)) return TOO_MANY_COPIES;
    if (this.victimUsed) return FULL;
    const kicks = this.maxKicks;
    if (kicks > 0 && this._moveOneAside(i1, i2, fp)) { this._addItems(1); return OK; }
    const st = { s: rngSeed(seed, ((BigInt(i1) << 32n) | BigInt(fp)) & M64) };
    let i = (rngNext(st) & 1n) ? i2 : i1;
    for (let n = 1; n < kicks; n++) {
      const slot = Number((rngNext(st) >> 32n) & BigInt(this.b - 1));
      const fps = this._read(i);
      const out = fps[slot];
      fps[slot] = fp;
      this._write(i, fps);
      fp = out;
      i = this._alt(i, fp);
      if (this._place(i, fp)) { this._addItems(1); return OK; }
    }
    this._setVictim(i, fp);
    this._addItems(1);
    return OK_STASHED;
  }

  _pairCount(i1, i2, fp) {
    let n = this._countIn(i1, fp);
    if (i2 !== i1) n += this._countIn(i2, fp);
    return n + (this._victimMatches(fp, i1, i2) ? 1 : 0);
  }

  _reinsertVictim() {
    if (!this.victimUsed) return;
    const vb = rd32(this._buf, 40), vfp = rd32(this._buf, 44);
    this._clearVictim();
    this._addItems(-1);
    this._insertFp(vb, vfp, BigInt(this.items), false);
  }

  // ---- values ----

  _hashFor(value) {
    const kind = kindAndHash(value, hv);
    const fk = this.kind;
    if (fk !== KIND.any && fk !== kind) {
      if (fk === KIND.other) throw new TypeError(`the filter holds values of a type outside the built-in families (tag ${rd32(this._buf, 12).toString(16)}), which pgcuckoo cannot hash`);
      throw new TypeError(`cuckoo filter holds ${KIND_NAMES[fk]} values, not ${KIND_NAMES[kind]}`);
    }
    return kind;
  }

  /** May value be in the filter? (SQL cuckoo_contains) */
  contains(value) {
    this._hashFor(value);
    return this._containsHash(hv[0], hv[1]);
  }

  /** Stored copies of value's fingerprint: an upper bound (SQL cuckoo_count). */
  count(value) {
    this._hashFor(value);
    const fp = this._locate(hv[0], hv[1]);
    return this._pairCount(this._i1, this._alt(this._i1, fp), fp);
  }

  _add(value, ifAbsent) {
    const kind = this._hashFor(value);
    const hi = hv[0], lo = hv[1];
    if (this.kind === KIND.any) { this._buf[8] = kind; this._buf[9] = 0; }
    if (ifAbsent && this._containsHash(hi, lo)) return EXISTS;
    const fp = this._locate(hi, lo);
    const h = (BigInt(hi) << 32n) | BigInt(lo);
    const st = this._insertFp(this._i1, fp, h ^ BigInt(this.items), true);
    if (st === FULL) {
      throw new FilterFullError(`cuckoo filter is full: it holds ${this.items} items in ${this.m} buckets of ${this.b} entries and the victim slot; its rated capacity is ${this.capacity}`);
    }
    if (st === TOO_MANY_COPIES) {
      throw new FilterFullError(`value was added to the cuckoo filter too many times: a filter with bucket size ${this.b} holds at most ${2 * this.b} copies of one value`);
    }
    return st;
  }

  /** A new filter with one more occurrence of value (SQL cuckoo_add). */
  add(value) { const g = this._copy(); g._add(value, false); return g; }

  /** A new filter with value added unless already reported (SQL cuckoo_add_if_absent). */
  addIfAbsent(value) { const g = this._copy(); g._add(value, true); return g; }

  /** A new filter with one occurrence of value removed (SQL cuckoo_remove). */
  remove(value) { const g = this._copy(); g.removeInPlace(value); return g; }

  /** Adds value to this filter; throws FilterFullError (filter unchanged) if it cannot. */
  addInPlace(value) { this._add(value, false); }

  /** Adds value unless already reported; returns whether it was added. */
  addIfAbsentInPlace(value) { return this._add(value, true) !== EXISTS; }

  /** Removes one occurrence of value; returns whether one was found. */
  removeInPlace(value) {
    this._hashFor(value);
    if (this.kind === KIND.any) return false;
    const fp = this._locate(hv[0], hv[1]);
    const i1 = this._i1;
    const i2 = this._alt(i1, fp);
    if (this._take(i1, fp) || (i2 !== i1 && this._take(i2, fp))) {
      this._addItems(-1);
      this._reinsertVictim();
      return true;
    }
    if (this._victimMatches(fp, i1, i2)) {
      this._clearVictim();
      this._addItems(-1);
      return true;
    }
    return false;
  }

  // ---- union ----

  _unionKey(src, i, a, fp) {
    const want = src._pairCount(i, a, fp);
    for (let have = this._pairCount(i, a, fp); have < want; have++) {
      const st = this._insertFp(i, fp, BigInt(this.items), false);
      if (st !== OK && st !== OK_STASHED) return st;
    }
    return OK;
  }

  /** A new filter holding the items of both (multiset union, SQL cuckoo_union). */
  union(other) {
    if (!(other instanceof Filter)) throw new TypeError('union takes a Filter');
    if (other.version !== FORMAT_VERSION) throw formatClass(other.version)._shapeMismatch(this, other);
    if (this.m !== other.m || this.b !== other.b || this.f !== other.f || this.semisort !== other.semisort) {
      throw new RangeError(`cannot union cuckoo filters of different shapes: ${this.m} buckets of ${this.b} ${this.f}-bit fingerprints${this.semisort ? ' (semi-sorted)' : ''} and ${other.m} buckets of ${other.b} ${other.f}-bit fingerprints${other.semisort ? ' (semi-sorted)' : ''}`);
    }
    const dk = this.kind, sk = other.kind;
    if (sk !== KIND.any && dk !== KIND.any && (sk !== dk || rd32(this._buf, 12) !== rd32(other._buf, 12))) {
      throw new TypeError(`cannot union a cuckoo filter of ${KIND_NAMES[dk]} values with one of ${KIND_NAMES[sk]} values`);
    }
    const dst = this._copy();
    const src = other;
    if (dk === KIND.any && src.items > 0) {
      dst._buf[8] = src._buf[8]; dst._buf[9] = src._buf[9];
      wr32(dst._buf, 12, rd32(src._buf, 12));
    }
    if (src.capacity > dst.capacity) wr64(dst._buf, 32, src.capacity);
    const fps = new Uint32Array(8);
    for (let i = 0; i < src.m; i++) {
      src._read(i, fps);
      for (let j = 0; j < src.b; j++) {
        const fp = fps[j];
        if (fp === 0) continue;
        let seen = false;
        for (let t = 0; t < j; t++) if (fps[t] === fp) seen = true;
        if (seen) continue;
        const a = src._alt(i, fp);
        if (a < i && src._has(a, fp)) continue;
        if (dst._unionKey(src, i, a, fp) !== OK) throw new FilterFullError('the union does not fit in a cuckoo filter of this shape');
      }
    }
    if (src.victimUsed) {
      const vb = rd32(src._buf, 40), vfp = rd32(src._buf, 44);
      const a = src._alt(vb, vfp);
      if (!src._has(vb, vfp) && !src._has(a, vfp) && dst._unionKey(src, vb, a, vfp) !== OK) {
        throw new FilterFullError('the union does not fit in a cuckoo filter of this shape');
      }
    }
    return dst;
  }

  // ---- validation (cf_validate, after the header) ----

  _validateTable() {
    let count = 0;
    const d = this._buf;
    for (let i = 0; i < this.m; i++) {
      if (this.semisort) {
        const code = getBits(d, i * this.B, 12);
        if (code >= SS_CODES) throw new RangeError(`bucket ${i} has semi-sort code ${code}, above the largest (${SS_CODES - 1})`);
      }
      const fps = this._read(i);
      if (this.semisort && (fps[0] > fps[1] || fps[1] > fps[2] || fps[2] > fps[3])) {
        throw new RangeError(`bucket ${i} is not in semi-sorted order`);
      }
      for (let j = 0; j < this.b; j++) if (fps[j] !== 0) count++;
    }
    const used = this.m * this.B;
    const first = HEADER + Math.floor(used / 8);
    if (first < d.length) {
      let bad = (d[first] >> (used % 8)) !== 0;
      for (let o = first + 1; o < d.length && !bad; o++) bad = d[o] !== 0;
      if (bad) throw new RangeError('padding after the bucket array is not zero');
    }
    if (this.victimUsed) {
      const vb = rd32(d, 40), vfp = rd32(d, 44);
      count++;
      if (!this._full(vb) || !this._full(this._alt(vb, vfp))) throw new RangeError('victim slot is in use although its buckets have room');
    }
    const items = this.items;
    if (items !== count) throw new RangeError(`item count ${items} disagrees with the ${count} fingerprints in the table`);
    if (this.kind === KIND.any && items !== 0) throw new RangeError('a filter with items must record the kind of value it holds');
  }
}

registerFormat(FORMAT_VERSION, Filter);

/** A new version-2 filter: SQL cuckoo_rotate(f, keep) (f unchanged). */
Filter.prototype.rotate = function rotate(keep) { return formatClass(ROTATED_VERSION)._rotate(this, keep); };

// ---- building like cuckoo_agg(value, fpr) (docs/FORMAT.md, section 10) ----

function roundBuckets(n) {
  if (n < 1) n = 1;
  if (n > 0xFFFFFFFF) return 0;
  let [, k] = splitBuckets(n);
  let cc = Math.ceil(n / 2 ** k);
  if (k > 0 && cc === 256) { cc = 128; k++; }
  const m = cc * 2 ** k;
  return m > 0xFFFFFFFF ? 0 : m;
}

/** Fingerprint bits cuckoo_agg uses for fpr. */
export function aggFpBits(fpr) {
  if (typeof fpr !== 'number' || Number.isNaN(fpr) || fpr <= 0 || fpr >= 1) {
    throw new RangeError(`fpr must be greater than 0 and less than 1, not ${fpr}`);
  }
  for (let f = 4; f <= 32; f++) if (expectedFpr(4, f, 0.95) <= fpr) return f;
  throw new RangeError(`fpr must be at least ${expectedFpr(4, 32, 0.95)} for cuckoo_agg, not ${fpr}`);
}

/**
 * The filter cuckoo_agg(value, fpr) builds from these values (null and
 * undefined are skipped); null when there is no value, as cuckoo_agg gives
 * NULL over no rows (extension 1.1; 1.0 gave an empty one-bucket filter).
 * kind ("integer", "text", ...), when given, is the kind every value must
 * have (TypeError otherwise), like the column's type in SQL.
 */
export function build(values, fpr = 0.01, kind = undefined) {
  const f = aggFpBits(fpr);
  let want = kind === undefined ? -1 : KIND_NAMES.indexOf(kind);
  if (kind !== undefined && (want < 1 || want > 10)) throw new RangeError(`unknown kind ${kind}`);
  const set = new Set();
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const k = kindAndHash(v, hv);
    if (want < 0) want = k;
    else if (k !== want) throw new TypeError(`values of different kinds in one filter: ${KIND_NAMES[want]} and ${KIND_NAMES[k]}`);
    set.add((BigInt(hv[0]) << 32n) | BigInt(hv[1]));
  }
  const n = set.size;
  if (n === 0) return null;
  const hashes = BigUint64Array.from(set).sort();
  let m = roundBuckets(Math.ceil(n / (4 * 0.95)));
  for (let tries = 0; tries < 200; tries++) {
    if (m === 0 || totalBytes(m, 4, f, false) > MAX_BYTES) throw new RangeError(`too many distinct values for one cuckoo filter: ${n}`);
    const flt = Filter._new(m, 4, f, false, 500, want, n);
    let ok = true;
    for (let j = 0; j < n && ok; j++) {
      const h = hashes[j];
      const fp = flt._locate(Number(h >> 32n), Number(h & 0xFFFFFFFFn));
      ok = flt._insertFp(flt._i1, fp, h ^ BigInt(flt.items), true) === OK;
    }
    if (ok) return flt;
    m = roundBuckets(m + Math.max(1, Math.floor(m / 200)));
  }
  throw new RangeError(`could not build a cuckoo filter for ${n} values`);
}
