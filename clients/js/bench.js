// Cost of one lookup of an integer in pgcuckoo, and of one add to a growing
// filter (a measurement, no assertion).
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
const rot = f.rotate(2);                     // SQL cuckoo_rotate(f, 2): version 2, every entry kept
console.log(`version 2, that filter rotated (keep 2; made in ${(Number(process.hrtime.bigint() - t) / 1e6).toFixed(0)} ms):`);
console.log(`  contains(number): ${perCall((v) => rot.contains(v), probes).toFixed(0)} ns per lookup`);
const vec = JSON.parse(readFileSync(new URL('../vectors/filters.json', import.meta.url), 'utf8'));
const grown = Filter.fromText(vec.filters.find((x) => x.name === 'v2_grow_fpr01').text);
console.log(`version 2, growing (clients/vectors v2_grow_fpr01: ${grown.items} items, ${grown.toBytes().length} bytes):`);
console.log(`  contains(number): ${perCall((v) => grown.contains(v), probes).toFixed(0)} ns per lookup`);
// adds: the empty growing filter of the vectors (cuckoo_create(100, 0.001,
// expansion => 2)) grown here to nAdd integers, then probed
const nAdd = 300000;
const g = Filter.fromText(vec.filters.find((x) => x.name === 'v2_grow_empty').text);
t = process.hrtime.bigint();
for (let i = 0; i < nAdd; i++) g.addInPlace(i);
const addS = Number(process.hrtime.bigint() - t) / 1e9;
const gi = g.info();
console.log(`version 2, growing from empty (v2_grow_empty: capacity 100, fpr 0.001) to ${nAdd} integers by addInPlace:`);
console.log(`  ${(nAdd / addS).toFixed(0)} adds per second (${(addS * 1e9 / nAdd).toFixed(0)} ns per add; ${gi.buckets} buckets, ${gi.growth_rounds} doublings, ${gi.entries} entries)`);
const gProbes = Array.from({ length: 200000 }, (_, i) => nAdd / 2 + i);
console.log(`  contains(number): ${perCall((v) => g.contains(v), gProbes).toFixed(0)} ns per lookup`);
