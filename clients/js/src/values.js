// JavaScript values to the 64-bit hash SQL cuckoo_hash computes: each value
// family has a canonical byte encoding hashed with XXH3-64, seed 0
// (docs/FORMAT.md, "Value encoding").  A hash is kept as two unsigned 32-bit
// halves (hi, lo) so that the common lookups need no BigInt.

import { xxh3, xxh3Word } from './xxh3.js';

export const KIND = Object.freeze({
  any: 0, integer: 1, numeric: 2, text: 3, bytea: 4, uuid: 5, date: 6,
  timestamp: 7, timestamptz: 8, boolean: 9, float: 10, other: 11,
});
export const KIND_NAMES = ['any', 'integer', 'numeric', 'text', 'bytea', 'uuid', 'date',
  'timestamp', 'timestamptz', 'boolean', 'float', 'other'];

const TWO32 = 4294967296;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const PG_EPOCH_MS = 946684800000;          // 2000-01-01 00:00:00 UTC in Unix milliseconds
const utf8 = new TextEncoder();

/** A value of an explicit SQL kind, made by the helpers below. */
export class PgValue {
  constructor(kind, hi, lo, bytes) {
    this.kind = kind;
    this.hi = hi;     // an 8-byte encoding as two halves, or
    this.lo = lo;
    this.bytes = bytes; // the encoding's bytes (null for 8-byte encodings)
    Object.freeze(this);
  }
}

function splitBig(v) {
  const u = BigInt.asUintN(64, v);
  return [Number(u >> 32n), Number(u & 0xFFFFFFFFn)];
}

function int64Of(v, what) {
  if (typeof v === 'bigint') {
    if (v < INT64_MIN || v > INT64_MAX) throw new RangeError(`${what} ${v} is outside the 64-bit range`);
    return splitBig(v);
  }
  const hi = Math.floor(v / TWO32);
  return [hi >>> 0, (v - hi * TWO32) >>> 0];
}

/** A uuid, from its text form (any case, with or without hyphens or braces). */
export function uuid(s) {
  if (typeof s !== 'string') throw new TypeError('uuid() takes a string');
  const hex = s.replace(/^\{|\}$/g, '').replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new RangeError(`invalid uuid: ${s}`);
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++) b[i] = parseInt(hex.substr(2 * i, 2), 16);
  return new PgValue(KIND.uuid, 0, 0, b);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A float4 / float8 value (a JavaScript number is otherwise an integer). */
export function float8(x) {
  if (typeof x !== 'number') throw new TypeError('float8() takes a number');
  if (Number.isNaN(x)) return new PgValue(KIND.float, 0x7FF80000, 0, null);
  f64[0] = x === 0 ? 0 : x;      // -0 is 0
  return LITTLE ? new PgValue(KIND.float, u32[1], u32[0], null)
    : new PgValue(KIND.float, u32[0], u32[1], null);
}

/** A float4 value: x rounded to 32 bits, then widened as PostgreSQL does. */
export function float4(x) {
  return float8(Math.fround(x));
}

/**
 * A numeric value, from a decimal string (or a number or bigint): hashed as
 * PostgreSQL's numeric_normalize text, so 1.0 and 1.00 are alike.
 */
export function numeric(v) {
  return new PgValue(KIND.numeric, 0, 0, utf8.encode(numericText(v)));
}

export function numericText(v) {
  const s = (typeof v === 'string' ? v : String(v)).trim();
  if (/^nan$/i.test(s)) return 'NaN';
  if (/^\+?inf(inity)?$/i.test(s)) return 'Infinity';
  if (/^-inf(inity)?$/i.test(s)) return '-Infinity';
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) throw new RangeError(`invalid numeric: ${v}`);
  const frac = m[3] || '';
  let digits = (m[2] + frac).replace(/^0+/, '');
  let exp = (m[4] ? parseInt(m[4], 10) : 0) - frac.length;
  if (digits === '') return '0';
  // drop trailing zeros into the exponent: value = digits * 10^exp
  const t = /0+$/.exec(digits);
  if (t) { digits = digits.slice(0, -t[0].length); exp += t[0].length; }
  let out;
  if (exp >= 0) out = digits + '0'.repeat(exp);
  else if (-exp < digits.length) out = digits.slice(0, digits.length + exp) + '.' + digits.slice(digits.length + exp);
  else out = '0.' + '0'.repeat(-exp - digits.length) + digits;
  return (m[1] === '-' ? '-' : '') + out;
}

// microseconds since 2000-01-01 of a date-time string "YYYY-MM-DD[ T]HH:MM:SS[.ffffff][zone]"
// (zone: Z, +HH, +HH:MM, +HHMM; none: read as UTC)
function parseMicros(s) {
  const m = /^(\d{4,})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/i.exec(s.trim());
  if (!m) throw new RangeError(`invalid date/time: ${s}`);
  const d = new Date(0);
  d.setUTCFullYear(+m[1], +m[2] - 1, +m[3]);
  d.setUTCHours(+(m[4] || 0), +(m[5] || 0), +(m[6] || 0), 0);
  let micros = BigInt(d.getTime() - PG_EPOCH_MS) * 1000n + BigInt((m[7] || '').padEnd(6, '0') || 0);
  if (m[8] && m[8].toUpperCase() !== 'Z') {
    const z = /^([+-])(\d\d):?(\d\d)?$/.exec(m[8]);
    const off = BigInt((+z[2] * 60 + +(z[3] || 0)) * 60) * 1000000n;
    micros = z[1] === '+' ? micros - off : micros + off;
  }
  return micros;
}

function microsOf(v, what) {
  if (v instanceof Date) {
    const ms = v.getTime();
    if (Number.isNaN(ms)) throw new RangeError('invalid Date');
    return BigInt(ms - PG_EPOCH_MS) * 1000n;
  }
  if (typeof v === 'bigint') return v;       // microseconds since 2000-01-01
  if (typeof v === 'string') return parseMicros(v);
  throw new TypeError(`${what}() takes a Date, a string or microseconds since 2000-01-01 as a bigint`);
}

/** A timestamptz: a Date, an ISO string (no zone: UTC) or bigint microseconds since 2000-01-01 UTC. */
export function timestamptz(v) {
  const [hi, lo] = int64Of(microsOf(v, 'timestamptz'), 'timestamp');
  return new PgValue(KIND.timestamptz, hi, lo, null);
}

/** A timestamp without time zone: its fields are read as given (a Date's UTC fields). */
export function timestamp(v) {
  const [hi, lo] = int64Of(microsOf(v, 'timestamp'), 'timestamp');
  return new PgValue(KIND.timestamp, hi, lo, null);
}

/** A date: "YYYY-MM-DD", a Date (its UTC day) or a number of days since 2000-01-01. */
export function date(v) {
  let days;
  if (typeof v === 'number' && Number.isSafeInteger(v)) days = v;
  else if (v instanceof Date) days = Math.floor((v.getTime() - PG_EPOCH_MS) / 86400000);
  else if (typeof v === 'string' && /^\s*\d{4,}-\d\d-\d\d\s*$/.test(v)) days = Number(parseMicros(v) / 86400000000n);
  else throw new TypeError('date() takes "YYYY-MM-DD", a Date or a number of days since 2000-01-01');
  if (Number.isNaN(days)) throw new RangeError('invalid Date');
  const [hi, lo] = int64Of(days, 'date');
  return new PgValue(KIND.date, hi, lo, null);
}

/** A text value explicitly (a string is text anyway). */
export function text(s) {
  return new PgValue(KIND.text, 0, 0, utf8.encode(String(s)));
}

/**
 * Kind and hash of a value: writes hash halves to out[0] (hi), out[1] (lo)
 * and returns the kind.  Throws TypeError for values of no known kind.
 */
export function kindAndHash(v, out) {
  switch (typeof v) {
    case 'number': {
      if (!Number.isSafeInteger(v)) {
        throw new TypeError(`${v} is not a safe integer: pass float8(x) for a float, or a bigint`);
      }
      const hi = Math.floor(v / TWO32);
      xxh3Word(hi >>> 0, (v - hi * TWO32) >>> 0, out);
      return KIND.integer;
    }
    case 'bigint': {
      const [hi, lo] = int64Of(v, 'integer');
      xxh3Word(hi, lo, out);
      return KIND.integer;
    }
    case 'string':
      setBig(xxh3(utf8.encode(v)), out);
      return KIND.text;
    case 'boolean':
      xxh3Word(0, v ? 1 : 0, out);
      return KIND.boolean;
    case 'object':
      if (v instanceof PgValue) {
        if (v.bytes) setBig(xxh3(v.bytes), out);
        else xxh3Word(v.hi, v.lo, out);
        return v.kind;
      }
      if (v instanceof Uint8Array) {
        setBig(xxh3(v), out);
        return KIND.bytea;
      }
      if (v instanceof Date) {
        const t = timestamptz(v);
        xxh3Word(t.hi, t.lo, out);
        return KIND.timestamptz;
      }
      break;
    default:
      break;
  }
  throw new TypeError(`cannot hash ${v === null ? 'null' : typeof v}: pgcuckoo hashes integers (number, bigint), `
    + 'strings, Uint8Array, Date, booleans and the values of uuid(), float8(), numeric(), date(), timestamp()');
}

function setBig(h, out) {
  out[0] = Number(h >> 32n);
  out[1] = Number(h & 0xFFFFFFFFn);
}

const scratch = [0, 0];

/** The hash SQL cuckoo_hash(value) returns, as a signed 64-bit BigInt. */
export function cuckooHash(v) {
  kindAndHash(v, scratch);
  return BigInt.asIntN(64, (BigInt(scratch[0]) << 32n) | BigInt(scratch[1]));
}
