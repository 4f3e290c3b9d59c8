// Changing format-version-2 filters (growing and rotated) without a server:
// the kick walk's generator against a BigInt reference, and the properties
// every change must keep on the shared vectors' version-2 filters (valid
// bytes, no false negative, the input unchanged, failures that change
// nothing).  Byte identity with the server is checked by server.test.js and,
// where the vectors hold version-2 operations, by vectors.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Filter, FilterV2, FilterFullError } from '../src/index.js';
import { Rng } from '../src/rng.js';
import { load } from './vectors.js';

const M64 = (1n << 64n) - 1n;
function mix64(x) {
  x ^= x >> 33n; x = (x * 0xff51afd7ed558ccdn) & M64;
  x ^= x >> 33n; x = (x * 0xc4ceb9fe1a85ec53n) & M64;
  return x ^ (x >> 33n);
}

test('the walk generator is rng_seed / rng_next of the core, bit for bit', () => {
  let x = 0x0123456789ABCDEFn;
  const next64 = () => { x = (x * 6364136223846793005n + 1442695040888963407n) & M64; return x; };
  const cases = [[0n, 0n], [0n, (M64 - 0x9E3779B97F4A7C15n + 1n) & M64], [M64, M64]];
  for (let n = 0; n < 2000; n++) cases.push([next64(), next64()]);
  for (const [a, b] of cases) {
    let s = mix64(a ^ mix64((b + 0x9E3779B97F4A7C15n) & M64)) || 0x9E3779B97F4A7C15n;
    const r = new Rng(Number(a >> 32n), Number(a & 0xFFFFFFFFn), Number(b >> 32n), Number(b & 0xFFFFFFFFn));
    for (let k = 0; k < 4; k++) {
      s ^= s >> 12n; s ^= (s << 25n) & M64; s ^= s >> 27n;
      r.next();
      assert.equal((BigInt(r.rh) << 32n) | BigInt(r.rl), (s * 0x2545F4914F6CDD1Dn) & M64, `${a} ${b} ${k}`);
    }
  }
});

const V2 = load('filters').filters.filter((f) => f.info.format_version === 2);
const byName = (name) => Filter.fromText(V2.find((f) => f.name === name).text);
const valid = (f) => Filter.fromBytes(f.toBytes());          // throws unless the server's rules pass

for (const vec of V2) {
  test(`v2 changes keep the members: ${vec.name}`, () => {
    const f = Filter.fromText(vec.text);
    assert.ok(f instanceof FilterV2);
    const members = vec.members.map(Number);
    const gone = new Set(members.filter((_, j) => j % 7 === 3));
    let g = f.remove(-1);                            // a copy (-1 is no member)
    assert.ok(g !== f && g.equals(f));
    for (const v of gone) g = g.remove(v);
    const fresh = Array.from({ length: 300 }, (_, j) => 10000000 + 7919 * j);
    let refused = 0;
    for (const v of fresh) {
      try { g.addInPlace(v); } catch (e) {
        // only a fixed filter may be full; it then keeps its bytes
        assert.ok(e instanceof FilterFullError && !g.grows && e.code === '54000', String(e));
        refused++;
      }
    }
    assert.ok(g.grows ? refused === 0 : refused < 300, `${refused} refused`);
    const back = new Set();
    for (const v of members.slice(0, 50)) {
      try { g.addIfAbsentInPlace(v); back.add(v); } catch (e) { assert.ok(e instanceof FilterFullError && !g.grows, String(e)); }
    }
    assert.equal(f.toText(), vec.text, 'the input is unchanged');
    const h = valid(g);
    assert.ok(h.equals(g));
    for (const v of members) if (!gone.has(v) || back.has(v)) assert.ok(g.contains(v), `member ${v}`);
    let added = 0;
    for (const v of fresh) if (g.contains(v)) added++;
    assert.ok(added >= 300 - refused, `${added} of the ${300 - refused} added values found`);
    const info = g.info();
    assert.ok(info.entries >= info.items && info.items > 0);
    if (g.grows) assert.ok(info.buckets >= f.info().buckets);
    assert.equal(info.generation_items.reduce((s, n) => s + n, 0), info.generation_bits ? info.items : info.items);
  });

  test(`v2 union with itself is itself: ${vec.name}`, () => {
    const f = Filter.fromText(vec.text);
    assert.ok(f.union(f).equals(f));
    assert.equal(f.toText(), vec.text);
  });
}

test('a growing filter grows from empty and keeps every value', () => {
  const f = byName('v2_grow_empty');
  const n = 30000;
  for (let i = 0; i < n; i++) f.addInPlace(i * 2654435761);
  const info = valid(f).info();
  assert.ok(info.growth_rounds >= 7 && info.items === n && info.entries >= n, JSON.stringify(info));
  for (let i = 0; i < n; i++) assert.ok(f.contains(i * 2654435761), `${i}`);
  let fp = 0;
  for (let i = 0; i < 20000; i++) if (f.contains(-1 - i)) fp++;
  assert.ok(fp / 20000 < 5 * info.expected_fpr + 0.002, `${fp} false positives, expected rate ${info.expected_fpr}`);
  // removing every value leaves no item (entries copied by splits may stay)
  for (let i = 0; i < n; i++) assert.ok(f.removeInPlace(i * 2654435761), `${i}`);
  const after = valid(f).info();
  assert.equal(after.items, 0);
  assert.ok(after.entries < n / 50, `${after.entries} entries left`);
});

test('add, remove and addIfAbsent keep counts', () => {
  const f = byName('v2_grow_empty');
  for (let k = 1; k <= 8; k++) f.addInPlace(42);
  assert.ok(f.count(42) >= 8);
  assert.equal(f.addIfAbsentInPlace(42), false);
  for (let k = 0; k < 8; k++) assert.ok(f.removeInPlace(42));
  assert.equal(f.removeInPlace(42), false);
  assert.equal(f.items, 0);
  assert.equal(f.addIfAbsentInPlace('x'.length), true);
  assert.throws(() => f.add('text'), TypeError);
});

test('too many copies: refused with the server\'s error, the filter unchanged', () => {
  const f = byName('v2_grow_empty');
  for (let i = 0; i < 100; i++) f.addInPlace(i);
  let copies = 0;
  for (;;) {
    const before = f.toText();
    try {
      f.addInPlace(7);
      copies++;
    } catch (e) {
      assert.ok(e instanceof FilterFullError);
      assert.equal(e.message, 'value was added to the cuckoo filter too many times');
      assert.equal(e.detail, 'A filter with bucket size 4 holds at most 8 copies of one value.');
      assert.equal(e.code, '54000');
      assert.equal(f.toText(), before);
      break;
    }
    assert.ok(copies < 20);
  }
  assert.ok(copies >= 3 && copies <= 7, `${copies}`);       // 8 in all with the first add of 7
  valid(f);
});

test('a full fixed (rotated) filter refuses adds where the pair has no room, and keeps its bytes', () => {
  const f = byName('v2_rotated_b2_f12_full');
  assert.ok(f.info().is_full);
  let refused = 0, stored = 0;
  for (let i = 0; i < 50; i++) {
    const before = f.toText();
    try { f.addInPlace(5000000 + i); stored++; } catch (e) {
      assert.ok(e instanceof FilterFullError && e.message === 'cuckoo filter is full', String(e));
      assert.match(e.detail, /^It holds \d+ items: 28 buckets of 2 entries \(load factor \d\.\d{3}\) and the one-entry victim slot; its rated capacity is 30\.$/);
      assert.equal(f.toText(), before);
      assert.throws(() => f.add(5000000 + i), FilterFullError);
      refused++;
    }
  }
  assert.ok(refused > 0 && stored > 0, `${refused} refused, ${stored} stored`);
  valid(f);
});

test('union refuses filters of other shapes, and version 1 with version 2', () => {
  const g1 = byName('v2_grow_fpr01'), g2 = byName('v2_grow_fpr001');
  assert.throws(() => g1.union(g2), (e) => e instanceof RangeError && e.message === 'cannot union cuckoo filters of different shapes'
    && e.detail === `The first is growing: 6-bit fingerprints, ${g1.t} tail bits, created with 1 buckets for capacity 4; `
      + `the second is growing: 9-bit fingerprints, ${g2.t} tail bits, created with 1 buckets for capacity 4.` && e.code === '22023');
  const v1 = Filter.fromText(load('filters').filters.find((f) => f.info.format_version === 1 && f.info.items > 0).text);
  assert.throws(() => g1.union(v1), /cannot union cuckoo filters of different shapes/);
  assert.throws(() => v1.union(g1), /cannot union cuckoo filters of different shapes/);
  const r = byName('v2_rotated_b4_f12_keep1');
  assert.throws(() => r.union(byName('v2_rotated_b8_f9')), /different shapes/);
});

test('union of a grown and a smaller filter of one creation shape keeps both', () => {
  const big = byName('v2_grow_empty');
  const small = byName('v2_grow_empty');
  for (let i = 0; i < 5000; i++) big.addInPlace(i);
  for (let i = 4000; i < 4600; i++) small.addInPlace(i);
  small.addInPlace(-5);
  for (const u of [big.union(small), small.union(big)]) {
    valid(u);
    for (let i = 0; i < 5000; i++) assert.ok(u.contains(i), `${i}`);
    assert.ok(u.contains(-5));
    assert.ok(u.info().items >= 5001);
  }
});

test('rotate: a rolling window keeps the last keep generations', () => {
  const agg = load('agg').aggs.find((a) => a.name === 'agg_int_1000');     // integers 1 .. 1000, version 1
  const v1 = Filter.fromText(agg.filter);
  let f = v1.rotate(2);
  assert.ok(f instanceof FilterV2 && f.info().generation_bits === 2 && f.info().keep === 2);
  assert.equal(v1.toText(), agg.filter);
  for (let i = 1; i <= 1000; i++) assert.ok(f.contains(i));
  f = byName('v2_grow_empty');                       // a growing filter, to go on adding
  for (let i = 1; i <= 1000; i++) f.addInPlace(i);
  f = f.rotate(2);
  for (let i = 1001; i <= 1500; i++) f.addInPlace(i);
  f = f.rotate(2);                                   // 1 .. 1000 dropped, 1001 .. 1500 kept
  for (let i = 1501; i <= 1600; i++) f.addInPlace(i);
  f.addIfAbsentInPlace(1001);                        // seen again: raised to the current generation
  valid(f);
  for (let i = 1001; i <= 1600; i++) assert.ok(f.contains(i), `${i}`);
  assert.deepEqual(f.info().generation_items, [101, 499]);
  f = f.rotate(2);
  for (let i = 1002; i <= 1500; i++) assert.equal(f.count(i) > 0, f.contains(i));
  for (const i of [1001, 1501, 1600]) assert.ok(f.contains(i), `${i}`);
  let gone = 0;
  for (let i = 1002; i <= 1500; i++) if (!f.contains(i)) gone++;
  assert.ok(gone > 450, `${gone} of 499 dropped`);
  assert.throws(() => f.rotate(0), (e) => e instanceof RangeError && e.message === 'keep must be between 1 and 255, not 0');
  const wide = Filter.fromText(load('filters').filters.find((x) => x.info.fingerprint_bits === 32).text);
  assert.throws(() => wide.rotate(1), /cannot rotate a filter of 32-bit fingerprints with keep 1/);
});

test('growing filters with 9 and 15 tail bits union both ways (cf2_union_into)', () => {
  // the same empty filter with a 9-bit and a 15-bit tail (and without the
  // address budget, FORMAT.md 13.12, if the vectors' has it): header bytes
  // 7 and 10, the table for the slot width
  const e = byName('v2_grow_empty');
  const hdr = 64 + (e.g ? 8 << e.g : 0);
  const withTail = (t) => {
    const bytes = new Uint8Array(hdr + Math.ceil((e.m * e.b * (e.f + t + e.g)) / 64) * 8 + 8);
    bytes.set(e.toBytes().subarray(0, hdr));
    bytes[7] &= ~8;
    bytes[10] = t;
    return Filter.fromBytes(bytes);
  };
  const a = withTail(9);
  assert.equal(a.info().tail_bits, 9);
  const b = withTail(15);
  assert.equal(b.info().tail_bits, 15);
  const n = 1500;
  for (let i = 0; i < n; i++) { a.addInPlace(i); b.addInPlace(n + i); }
  for (const [x, y] of [[a, b], [b, a]]) {
    const u = valid(x.union(y));
    assert.equal(u.info().tail_bits, x.info().tail_bits);
    assert.equal(u.info().items, 2 * n);
    for (let i = 0; i < 2 * n; i++) assert.ok(u.contains(i), `false negative of ${i}`);
  }
});

test('second copies of values of one fingerprint and bucket pair (FORMAT 13.7 step 4)', () => {
  // 1, 300, 2228, 3734 and 7364 share a fingerprint and a bucket pair of a
  // growing filter of 20 buckets: twice each is ten entries for eight slots
  const f = FilterV2.createGrowing(60);
  const vals = [1, 300, 2228, 3734, 7364];
  for (const v of [...vals, ...vals]) f.addInPlace(v);
  assert.ok(f.info().buckets > 20);
  assert.deepEqual(vals.map((v) => f.count(v)), [2, 2, 2, 2, 2]);
  // one value's ninth copy: refused, the bytes unchanged
  const g = FilterV2.createGrowing(60);
  for (let i = 0; i < 8; i++) g.addInPlace(5);
  const before = g.toBytes();
  assert.throws(() => g.addInPlace(5), /too many times/);
  assert.deepEqual(g.toBytes(), before);
});
