// XXH3-64 with seed 0 (xxHash 0.8), written from the algorithm's
// description: BigInt for inputs of any length, and 32-bit integer arithmetic
// for 8-byte inputs (integers, dates, timestamps, floats, booleans), which a
// lookup hashes most often.  Checked against the server's cuckoo_hash of
// bytea values of every length class (clients/vectors/hashes.json).

const SECRET = new Uint8Array([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);

const M64 = (1n << 64n) - 1n;
const PRIME32_1 = 0x9E3779B1n;
const PRIME32_2 = 0x85EBCA77n;
const PRIME32_3 = 0xC2B2AE3Dn;
const PRIME64_1 = 0x9E3779B185EBCA87n;
const PRIME64_2 = 0xC2B2AE3D27D4EB4Fn;
const PRIME64_3 = 0x165667B19E3779F9n;
const PRIME64_4 = 0x85EBCA77C2B2AE63n;
const PRIME64_5 = 0x27D4EB2F165667C5n;
const PRIME_MX1 = 0x165667919E3779F9n;
const PRIME_MX2 = 0x9FB21C651E98DF25n;

function r32(p, o) {
  return (p[o] | (p[o + 1] << 8) | (p[o + 2] << 16) | (p[o + 3] << 24)) >>> 0;
}
function r64(p, o) {
  return (BigInt(r32(p, o + 4)) << 32n) | BigInt(r32(p, o));
}
function mul(a, b) {
  return (a * b) & M64;
}
function fold(a, b) {
  const p = a * b;
  return (p ^ (p >> 64n)) & M64;
}
function xxh64Avalanche(h) {
  h ^= h >> 33n;
  h = mul(h, PRIME64_2);
  h ^= h >> 29n;
  h = mul(h, PRIME64_3);
  return h ^ (h >> 32n);
}
function avalanche(h) {
  h ^= h >> 37n;
  h = mul(h, PRIME_MX1);
  return h ^ (h >> 32n);
}
function rotl(x, r) {
  return ((x << r) | (x >> (64n - r))) & M64;
}
function rrmxmx(h, len) {
  h ^= rotl(h, 49n) ^ rotl(h, 24n);
  h = mul(h, PRIME_MX2);
  h ^= (h >> 35n) + BigInt(len);
  h = mul(h, PRIME_MX2);
  return h ^ (h >> 28n);
}
function mix16(p, o, so) {
  return fold(r64(p, o) ^ r64(SECRET, so), r64(p, o + 8) ^ r64(SECRET, so + 8));
}
function bswap64(x) {
  let r = 0n;
  for (let i = 0n; i < 64n; i += 8n) r = (r << 8n) | ((x >> i) & 0xFFn);
  return r;
}

function accumulate512(acc, p, o, so) {
  for (let i = 0; i < 8; i++) {
    const v = r64(p, o + 8 * i);
    const k = v ^ r64(SECRET, so + 8 * i);
    acc[i ^ 1] = (acc[i ^ 1] + v) & M64;
    acc[i] = (acc[i] + (k & 0xFFFFFFFFn) * (k >> 32n)) & M64;
  }
}

function hashLong(p) {
  const len = p.length;
  const acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1];
  const stripesPerBlock = (SECRET.length - 64) / 8;
  const blockLen = 64 * stripesPerBlock;
  const nbBlocks = Math.floor((len - 1) / blockLen);
  for (let n = 0; n < nbBlocks; n++) {
    for (let s = 0; s < stripesPerBlock; s++) accumulate512(acc, p, n * blockLen + s * 64, s * 8);
    for (let i = 0; i < 8; i++) {
      let a = acc[i];
      a ^= a >> 47n;
      a ^= r64(SECRET, SECRET.length - 64 + 8 * i);
      acc[i] = mul(a, PRIME32_1);
    }
  }
  const nbStripes = Math.floor((len - 1 - blockLen * nbBlocks) / 64);
  for (let s = 0; s < nbStripes; s++) accumulate512(acc, p, nbBlocks * blockLen + s * 64, s * 8);
  accumulate512(acc, p, len - 64, SECRET.length - 64 - 7);
  let result = mul(BigInt(len), PRIME64_1);
  for (let i = 0; i < 4; i++) {
    result = (result + fold(acc[2 * i] ^ r64(SECRET, 11 + 16 * i), acc[2 * i + 1] ^ r64(SECRET, 11 + 16 * i + 8))) & M64;
  }
  return avalanche(result);
}

/** XXH3-64 (seed 0) of the bytes, as an unsigned BigInt. */
export function xxh3(p) {
  const len = p.length;
  if (len === 0) return xxh64Avalanche(r64(SECRET, 56) ^ r64(SECRET, 64));
  if (len <= 3) {
    const combined = ((p[0] << 16) | (p[len >> 1] << 24) | p[len - 1] | (len << 8)) >>> 0;
    return xxh64Avalanche(BigInt(combined) ^ BigInt((r32(SECRET, 0) ^ r32(SECRET, 4)) >>> 0));
  }
  if (len <= 8) {
    const input64 = BigInt(r32(p, len - 4)) + (BigInt(r32(p, 0)) << 32n);
    return rrmxmx(input64 ^ (r64(SECRET, 8) ^ r64(SECRET, 16)), len);
  }
  if (len <= 16) {
    const lo = r64(p, 0) ^ (r64(SECRET, 24) ^ r64(SECRET, 32));
    const hi = r64(p, len - 8) ^ (r64(SECRET, 40) ^ r64(SECRET, 48));
    return avalanche((BigInt(len) + bswap64(lo) + hi + fold(lo, hi)) & M64);
  }
  if (len <= 128) {
    let acc = mul(BigInt(len), PRIME64_1);
    if (len > 32) {
      if (len > 64) {
        if (len > 96) {
          acc += mix16(p, 48, 96);
          acc += mix16(p, len - 64, 112);
        }
        acc += mix16(p, 32, 64);
        acc += mix16(p, len - 48, 80);
      }
      acc += mix16(p, 16, 32);
      acc += mix16(p, len - 32, 48);
    }
    acc += mix16(p, 0, 0);
    acc += mix16(p, len - 16, 16);
    return avalanche(acc & M64);
  }
  if (len <= 240) {
    let acc = mul(BigInt(len), PRIME64_1);
    for (let i = 0; i < 8; i++) acc += mix16(p, 16 * i, 16 * i);
    acc = avalanche(acc & M64);
    const rounds = Math.floor(len / 16);
    for (let i = 8; i < rounds; i++) acc += mix16(p, 16 * i, 16 * (i - 8) + 3);
    acc += mix16(p, len - 16, 136 - 17);
    return avalanche(acc & M64);
  }
  return hashLong(p);
}

// ---- 32-bit arithmetic for 8-byte inputs ----

/** High 32 bits of the 64-bit product of two unsigned 32-bit numbers. */
export function mulhi32(a, b) {
  // 16-bit halves: every partial product is below 2^32 and every sum exact
  // (no float modulo, which costs a call)
  const a0 = a & 0xFFFF, a1 = a >>> 16, b0 = b & 0xFFFF, b1 = b >>> 16;
  const m1 = a1 * b0, m2 = a0 * b1;
  const mid = ((a0 * b0) >>> 16) + (m1 & 0xFFFF) + (m2 & 0xFFFF);     // < 3 * 2^16
  return (a1 * b1 + (m1 >>> 16) + (m2 >>> 16) + (mid >>> 16)) >>> 0;
}

// (hi, lo) of the secret words the 4..8-byte path uses: s[8..16) ^ s[16..24)
const BF_LO = (r32(SECRET, 8) ^ r32(SECRET, 16)) >>> 0;
const BF_HI = (r32(SECRET, 12) ^ r32(SECRET, 20)) >>> 0;
const MX2_LO = 0x1E98DF25;
const MX2_HI = 0x9FB21C65;

/**
 * XXH3-64 of the 8 little-endian bytes of the 64-bit value (hi, lo), both
 * halves unsigned 32-bit.  Writes the hash's halves to out[0] (hi) and
 * out[1] (lo).
 */
export function xxh3Word(hi, lo, out) {
  // input64 = lo32(value) << 32 | hi32(value), xor the secret words
  let h = (lo ^ BF_HI) >>> 0;
  let l = (hi ^ BF_LO) >>> 0;
  // h ^= rotl(h, 49) ^ rotl(h, 24)
  const r49h = ((l << 17) | (h >>> 15)) >>> 0;
  const r49l = ((h << 17) | (l >>> 15)) >>> 0;
  const r24h = ((h << 24) | (l >>> 8)) >>> 0;
  const r24l = ((l << 24) | (h >>> 8)) >>> 0;
  h = (h ^ r49h ^ r24h) >>> 0;
  l = (l ^ r49l ^ r24l) >>> 0;
  // h *= MX2
  let nh = (mulhi32(l, MX2_LO) + Math.imul(l, MX2_HI) + Math.imul(h, MX2_LO)) >>> 0;
  let nl = Math.imul(l, MX2_LO) >>> 0;
  // h ^= (h >> 35) + 8
  let sl = (nh >>> 3) + 8;               // (h >> 35) < 2^29: no carry out of the low word
  h = nh;
  l = (nl ^ sl) >>> 0;
  // h *= MX2
  nh = (mulhi32(l, MX2_LO) + Math.imul(l, MX2_HI) + Math.imul(h, MX2_LO)) >>> 0;
  nl = Math.imul(l, MX2_LO) >>> 0;
  // h ^= h >> 28
  out[0] = (nh ^ (nh >>> 28)) >>> 0;
  out[1] = (nl ^ ((nl >>> 28) | (nh << 4))) >>> 0;
}
