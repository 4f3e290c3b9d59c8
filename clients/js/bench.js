// Cost of one lookup of an integer in pgcuckoo (a measurement, no assertion).
//   node clients/js/bench.js
import { readFileSync } from 'node:fs';
import { Filter, build, cuckooHash } from './src/index.js';

// the filter cuckoo_agg builds from the integers 0 .. n-1 at fpr 0.01 (or one
// read from a file holding a filter's binary form, argv[2])
function buildFilter(n) {
  const path = process.argv[2];
  if (path) return Filter.fromBytes(new Uint8Array(readFileSync(path)));
  return build(Array.from({ length: n }, (_, i) => i), 0.01);
}

function perCall(fn, values, rounds = 5) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    let hits = 0;
    for (let i = 0; i < values.length; i++) if (fn(values[i])) hits++;
    const ns = Number(process.hrtime.bigint() - t) / values.length;
    if (hits < 0) console.log(hits);
    best = Math.min(best, ns);
  }
  return best;
}

// The version-2 value SQL cuckoo_rotate(f, 2) makes of a version-1 filter
// without a victim (docs/FORMAT.md 13.8: bucket (q << k) | r becomes
// r * c + q, every entry in generation 0, kept), read back through
// Filter.fromBytes, so fully validated.
function rotatedCopy(f) {
  const { m, b, c, k } = f;
  const g = 2, w = f.f + g, hdr = 64 + 8 * 2 ** g;
  const src = f.toBytes();
  const out = new Uint8Array(hdr + Math.ceil((m * b * w) / 64) * 8 + 8);
  out.set(src.subarray(0, 40));
  out.set([2, b, f.f, 0], 4);                  // version 2, no flag
  out.set([0, g], 10);                         // t = 0, g = 2
  out.set([c & 255, c >> 8, 1, 2], 48);        // c, cur_gen 1, keep 2
  out.set(src.subarray(16, 20), 52);           // m0 = m
  out.set(src.subarray(24, 32), 56);           // entries = items
  out.set(src.subarray(24, 32), 64);           // all in generation 0
  const fps = new Uint32Array(8);
  for (let i = 0; i < m; i++) {
    const q = Math.floor(i / 2 ** k), r = i % 2 ** k;
    f._read(i, fps);
    for (let j = 0; j < b; j++) {
      let x = fps[j], pos = ((r * c + q) * b + j) * w;
      for (let n = 0; n < w && x; n++, pos++, x >>>= 1) if (x & 1) out[hdr + (pos >> 3)] |= 1 << (pos & 7);
    }
  }
  return Filter.fromBytes(out);
}

const n = 1000000;
let t = process.hrtime.bigint();
const f = buildFilter(n);
const buildMs = Number(process.hrtime.bigint() - t) / 1e6;
const probes = Array.from({ length: 200000 }, (_, i) => n / 2 + i);   // half members, half not
console.log(`pgcuckoo, Node ${process.version}`);
console.log(`build of ${f.items} integers at fpr 0.01: ${buildMs.toFixed(0)} ms, ${f.toBytes().length} bytes`);
console.log(`contains(number): ${perCall((v) => f.contains(v), probes).toFixed(0)} ns per lookup`);
const big = probes.map(BigInt);
console.log(`contains(bigint): ${perCall((v) => f.contains(v), big).toFixed(0)} ns per lookup`);
console.log(`cuckooHash(number): ${perCall((v) => cuckooHash(v) !== 0n, probes).toFixed(0)} ns per hash`);
console.log(`count(number): ${perCall((v) => f.count(v) > 0, probes).toFixed(0)} ns per call`);
t = process.hrtime.bigint();
const rot = rotatedCopy(f);
console.log(`version 2, that filter rotated (keep 2; made and validated in ${(Number(process.hrtime.bigint() - t) / 1e6).toFixed(0)} ms):`);
console.log(`  contains(number): ${perCall((v) => rot.contains(v), probes).toFixed(0)} ns per lookup`);
const vec = JSON.parse(readFileSync(new URL('../vectors/filters.json', import.meta.url), 'utf8'));
const grown = Filter.fromText(vec.filters.find((x) => x.name === 'v2_grow_fpr01').text);
console.log(`version 2, growing (clients/vectors v2_grow_fpr01: ${grown.items} items, ${grown.toBytes().length} bytes):`);
console.log(`  contains(number): ${perCall((v) => grown.contains(v), probes).toFixed(0)} ns per lookup`);
