// 64-bit helpers in 32-bit halves (no BigInt on the insert path): the
// random choices of the core's kick walk (src/core/cf_internal.h: mix64,
// rng_seed, rng_next), bit for bit.
import { mulhi32 } from './xxh3.js';

// (h, l) * (ch, cl) mod 2^64 into out[0] (hi), out[1] (lo)
function mul64(h, l, ch, cl, out) {
  out[0] = (mulhi32(l, cl) + Math.imul(l, ch) + Math.imul(h, cl)) >>> 0;
  out[1] = Math.imul(l, cl) >>> 0;
}

const t = [0, 0];

// MurmurHash3's finaliser of (h, l) into out
function mix64(h, l, out) {
  l = (l ^ (h >>> 1)) >>> 0;                       // x ^= x >> 33
  mul64(h, l, 0xff51afd7, 0xed558ccd, t);
  h = t[0]; l = (t[1] ^ (h >>> 1)) >>> 0;
  mul64(h, l, 0xc4ceb9fe, 0x1a85ec53, t);
  h = t[0]; l = (t[1] ^ (h >>> 1)) >>> 0;
  out[0] = h; out[1] = l;
}

/**
 * The walk's generator, seeded as rng_seed(a, b) = mix64(a ^ mix64(b +
 * 0x9E3779B97F4A7C15)) (that constant if 0); a and b given as 32-bit halves.
 */
export class Rng {
  constructor(ah, al, bh, bl) {
    const lo = bl + 0x7F4A7C15;
    const carry = lo >= 4294967296 ? 1 : 0;
    mix64((bh + 0x9E3779B9 + carry) >>> 0, lo >>> 0, t);
    mix64((ah ^ t[0]) >>> 0, (al ^ t[1]) >>> 0, t);
    if (t[0] === 0 && t[1] === 0) { t[0] = 0x9E3779B9; t[1] = 0x7F4A7C15; }
    this.h = t[0];
    this.l = t[1];
    this.rh = 0;       // the last output's halves
    this.rl = 0;
  }

  /** xorshift64*: advances and sets this.rh, this.rl to the output's halves. */
  next() {
    let h = this.h, l = this.l;
    l = (l ^ ((l >>> 12) | (h << 20))) >>> 0; h = (h ^ (h >>> 12)) >>> 0;
    h = (h ^ ((h << 25) | (l >>> 7))) >>> 0; l = (l ^ (l << 25)) >>> 0;
    l = (l ^ ((l >>> 27) | (h << 5))) >>> 0; h = (h ^ (h >>> 27)) >>> 0;
    this.h = h; this.l = l;
    mul64(h, l, 0x2545F491, 0x4F6CDD1D, t);
    this.rh = t[0]; this.rl = t[1];
  }
}
