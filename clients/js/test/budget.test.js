// Address budget filters (docs/FORMAT.md 13.12, flag 0x08) without a server:
// creation as cuckoo_create(..., expansion => 2) makes them, growth with the
// tails narrowed at the end of a round, unions counted over the pair, across
// the flag, rotation, the validation rules and info's expected_fpr.  Byte
// identity with the server is for the shared vectors (vectors.test.js and
// server.test.js), once they hold budget filters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Filter, FilterV2, FilterFullError } from '../src/index.js';
import { load } from './vectors.js';

const valid = (f) => Filter.fromBytes(f.toBytes());          // throws unless the server's rules pass
const A = (c) => 32 - (32 - Math.clz32(c));                  // 32 - bitlen(c)
const T = (c, k, f, g) => Math.min(A(c) - k + 1, 32 - f - g);
const lengthOf = (m, w, g) => 64 + (g ? 8 * 2 ** g : 0) + Math.ceil((m * 4 * w) / 64) * 8 + 8;
const invalid = (bytes, why) => assert.throws(() => Filter.fromBytes(bytes),
  (e) => e instanceof RangeError && e.message === `invalid cuckoofilter value: ${why}`, why);
// a run of distinct values, and values none of them is
const run = (from, n) => Array.from({ length: n }, (_, j) => from + j);
const ABSENT = 1e12;
// PGCUCKOO_LIGHT=1 (meant for CI): the three largest tests at a smaller
// scale, the same assertions (growth to 50,000 values, not 200,000; the
// overlapping union and the largest capped union of 10 parts, not 30)
const LIGHT = !['', '0', undefined].includes(process.env.PGCUCKOO_LIGHT);  // as Python's: set and not 0

// the empty growing filter cuckoo_create(capacity, fpr, expansion => 2) made
// before the address budget (extension 1.2 and 1.3's first build): the same
// header without flag 0x08, t = 9
function preBudget(capacity, fpr) {
  const b = FilterV2.createGrowing(capacity, fpr).toBytes();
  const m = b[16] | (b[17] << 8) | (b[18] << 16) | (b[19] << 24);
  const h = new Uint8Array(lengthOf(m, b[6] + 9, 0));
  h.set(b.subarray(0, 64));
  h[7] = 4;
  h[10] = 9;
  return Filter.fromBytes(h);
}

function measuredFpr(f, n = 200000) {
  let fp = 0;
  for (let x = 0; x < n; x++) if (f.contains(ABSENT + x)) fp++;
  return fp / n;
}

test('creation: flag 0x08, t = T(k0), the sizing of a growing filter', () => {
  const e = FilterV2.createGrowing(1);
  const b = e.toBytes();
  assert.equal(b[4], 2);
  assert.equal(b[7], 0x0C);
  assert.deepEqual([e.f, e.c, e.m, e.t, e.g], [6, 1, 1, 26, 0]);     // A = 31: T(0) = min(32, 26)
  assert.equal(b.length, lengthOf(1, 32, 0));
  valid(e);
  const big = FilterV2.createGrowing(1000000, 0.01);
  assert.equal(big.c >= 128 && big.c <= 255, true);
  assert.equal(big.t, T(big.c, big.k, big.f, 0));
  assert.equal(big.t, 25 - big.k);                                 // A = 24, below 32 - f
  // the core's sizing: the growing filters of the vectors have the m0, f,
  // capacity and max_kicks createGrowing gives (and, made with the flag,
  // the empty one is createGrowing's to the byte)
  for (const [name, fpr] of [['v2_grow_empty', 0.001], ['v2_grow_fpr01', 0.01], ['v2_grow_fpr001', 0.001]]) {
    const vec = Filter.fromText(load('filters').filters.find((x) => x.name === name).text);
    const old = vec.info();
    const made = FilterV2.createGrowing(old.capacity, fpr, old.max_kicks);
    for (const col of ['initial_buckets', 'fingerprint_bits', 'capacity', 'max_kicks']) {
      assert.equal(made.info()[col], old[col], `${name} ${col}`);
    }
    assert.equal(made.info().expansion, 2);
    if (name === 'v2_grow_empty') {
      if (vec.budget) assert.ok(vec.equals(made), 'the server\'s empty growing filter');
      else assert.ok(vec.equals(preBudget(old.capacity, fpr)), 'the server\'s empty growing filter before the budget');
    }
  }
  assert.throws(() => FilterV2.createGrowing(0), (x) => x.code === '22023' && /capacity must be at least 1/.test(x.message));
  assert.throws(() => FilterV2.createGrowing(10, 1), /outside the open range 0 to 1/);
  assert.throws(() => FilterV2.createGrowing(10, 1e-10), /too small for a growing filter/);
  assert.equal(FilterV2.createGrowing(10, 2e-9).f, 28);
});

// 200,000 values (50,000 with PGCUCKOO_LIGHT: rounds 7 to 13, not 7 to 15)
const GROWN = LIGHT ? 50000 : 200000;
test(`grow 1 -> ${GROWN.toLocaleString('en')} values: tails narrow at the end of a round, valid bytes, no false negative`, () => {
  const f = FilterV2.createGrowing(1);
  const N = GROWN, k0 = f.k;
  let t = f.t, narrowings = 0, k = f.k;
  const seq = [];                                   // [k, t] after each narrowing
  // the length of the value before each add: info's bytes (the length and
  // the 4-byte varlena header), not a copy of the value per add
  const size = (x) => x.info().bytes - 4;
  for (let v = 0; v < N; v++) {
    const len = size(f), m = f.m, w = f.w;
    f.addInPlace(v);
    assert.equal(f.t, T(f.c, f.k, f.f, 0));
    if (f.k !== k) {
      k = f.k;
      assert.equal(f.split, 0);
    }
    if (f.t !== t) {
      // narrowed by one bit at the end of a round: the value shrinks
      assert.equal(f.t, t - 1);
      assert.equal(f.split, 0);
      assert.equal(f.toBytes().length, lengthOf(f.m, f.w, 0));
      assert.equal(size(f), f.toBytes().length);
      assert.ok(lengthOf(f.m, w + 0, 0) > f.toBytes().length);
      assert.ok(f.toBytes().length <= len + lengthOf(f.m, w, 0) - lengthOf(m, w, 0));
      const g = valid(f);
      assert.ok(g.equals(f));
      for (let u = 0; u <= v; u++) assert.ok(f.contains(u), `member ${u} after narrowing to t = ${f.t}`);
      t = f.t;
      narrowings++;
      seq.push([f.k, f.t]);
    }
  }
  const info = valid(f).info();
  assert.equal(info.items, N);
  assert.equal(info.entries, N, 'no split copied an entry');
  // one narrowing at the end of each round where T(k) drops, in order, and
  // none elsewhere (T(k) = 32 - k from round 7 on: 9 for 200,000 values, 7
  // for 50,000)
  const want = [];
  for (let r = k0 + 1; r <= f.k; r++) if (T(f.c, r, f.f, 0) < T(f.c, r - 1, f.f, 0)) want.push([r, T(f.c, r, f.f, 0)]);
  assert.deepEqual(seq, want);
  assert.ok(narrowings >= (LIGHT ? 7 : 9), `${narrowings} narrowings`);
  for (let u = 0; u < N; u++) assert.ok(f.contains(u), `member ${u}`);
  const rate = measuredFpr(f);
  assert.ok(rate <= 0.01, `measured rate ${rate}`);
  // remove every value: nothing is left
  for (let u = 0; u < N; u += 1) assert.ok(f.removeInPlace(u), `remove ${u}`);
  const after = valid(f).info();
  assert.equal(after.items, 0);
  assert.equal(after.entries, 0);
});

test('expected_fpr of a budget filter is min(1, 2 entries / ((2^f - 1) c 2^A))', () => {
  const f = FilterV2.createGrowing(1000, 0.01);
  assert.equal(f.info().expected_fpr, 0);
  for (const v of run(0, 5000)) f.addInPlace(v);
  const i = f.info();
  assert.equal(i.expected_fpr, Math.min(1, (2 * i.entries) / ((2 ** i.fingerprint_bits - 1) * f.c * 2 ** A(f.c))));
  assert.ok(i.expected_fpr > 0 && i.expected_fpr < 1e-4);
});

test('a refused change that narrowed the table leaves the filter as it was', () => {
  const f = FilterV2.createGrowing(1);
  let v = 0;
  // up to the add before a narrowing
  for (;;) {
    const g = f.add(v);
    if (g.t !== f.t) break;
    f.addInPlace(v++);
  }
  const before = f.toText();
  const insert = f._insert;
  f._insert = function failing(hi, lo) {
    insert.call(this, hi, lo);
    assert.notEqual(this.t, Filter.fromText(before).t);          // it did narrow
    throw new Error('refused late');
  };
  assert.throws(() => f.addInPlace(v), /refused late/);
  delete f._insert;
  assert.equal(f.toText(), before);
  assert.equal(f.t, Filter.fromText(before).t);
  f.addInPlace(v);
  valid(f);
  for (let u = 0; u <= v; u++) assert.ok(f.contains(u));
});

const OVERLAPPING = LIGHT ? 10 : 30;
test(`union of ${OVERLAPPING} overlapping parts counts items within 1% of the distinct values`, () => {
  const P = OVERLAPPING, STEP = 3000, SPAN = 6000;
  const parts = [];
  for (let p = 0; p < P; p++) {
    const f = FilterV2.createGrowing(1000);
    for (const v of run(p * STEP, SPAN)) f.addInPlace(v);
    parts.push(f);
  }
  const before = parts.map((p) => p.toText());
  let u = parts[0];
  for (let p = 1; p < P; p++) u = u.union(parts[p]);
  assert.deepEqual(parts.map((p) => p.toText()), before, 'the operands are unchanged');
  const distinct = (P - 1) * STEP + SPAN;
  const info = valid(u).info();
  assert.ok(Math.abs(info.items - distinct) <= distinct / 100, `${info.items} items for ${distinct} values`);
  assert.ok(Math.abs(info.entries - distinct) <= distinct / 100, `${info.entries} entries for ${distinct} values`);
  for (let v = 0; v < distinct; v++) assert.ok(u.contains(v), `member ${v}`);
  assert.ok(measuredFpr(u) <= 0.01);
  // the same union in another order holds the same items
  let w = parts[P - 1];
  for (let p = P - 2; p >= 0; p--) w = w.union(parts[p]);
  assert.ok(Math.abs(valid(w).items - distinct) <= distinct / 100);
  // a union with itself is itself; with a part it already holds, nothing changes in the count
  assert.ok(u.union(u).equals(u));
  assert.equal(u.union(parts[7]).items, u.items);
});

// where 32 - f - g caps T(k), a part's first-round entries know fewer than A
// bits: 13.12 rule 4's covering counts a value shared with such an entry once
test('unions of parts whose first rounds are capped by the slot count shared values once', () => {
  for (const [P, SPAN, STEP, cap, fpr] of [[30, 2000, 1000, 100, 0.01], [10, 2000, 1000, 1000, 0.001],
    [LIGHT ? 10 : 30, 20000, 10000, 100, 0.01]]) {
    let u = null;
    for (let p = 0; p < P; p++) {
      const f = FilterV2.createGrowing(cap, fpr);
      for (const v of run(p * STEP, SPAN)) f.addInPlace(v);
      u = u ? u.union(f) : f;
    }
    const distinct = (P - 1) * STEP + SPAN;
    const info = valid(u).info();
    const what = `${P} parts of ${SPAN} created for ${cap} at ${fpr}: ${info.items} items for ${distinct}`;
    assert.ok(info.items <= distinct && info.items * 100 >= distinct * 99, what);
    for (let v = 0; v < distinct; v++) assert.ok(u.contains(v), `member ${v}`);
    assert.ok(measuredFpr(u) <= fpr, what);
  }
  // a value first inserted in a capped first round and again in a later part: one entry
  const a = FilterV2.createGrowing(100);
  for (const v of run(0, 2000)) a.addInPlace(v);
  const b = FilterV2.createGrowing(100);
  for (const v of run(1000, 2000)) b.addInPlace(v);
  const u = valid(a.union(b));
  assert.deepEqual([u.items, u.entries], [3000, 3000]);
  for (const v of run(0, 3000)) assert.equal(u.count(v), 1, `count ${v}`);
});

test('a value added twice in a capped first round and later keeps both entries through a union', () => {
  const a = FilterV2.createGrowing(10);
  for (const v of [...run(0, 8), ...run(100, 2900), ...run(0, 8)]) a.addInPlace(v);
  const b = FilterV2.createGrowing(10);
  for (const v of run(5000, 1000)) b.addInPlace(v);
  const u = valid(b.union(a));
  for (const v of run(0, 8)) assert.equal(u.count(v), 2, `count ${v}`);
  for (const v of run(0, 8)) u.removeInPlace(v);
  for (const v of run(0, 8)) assert.ok(u.contains(v), `member ${v} after one remove`);
});

test('a value held n times keeps n entries through a union (the multiset union)', () => {
  const a = FilterV2.createGrowing(100), b = FilterV2.createGrowing(100);
  for (const v of run(0, 2000)) a.addInPlace(v);
  for (const v of run(1000, 2000)) b.addInPlace(v);
  for (let n = 0; n < 3; n++) b.addInPlace(1500);
  for (let n = 0; n < 2; n++) a.addInPlace(1500);
  const u = a.union(b);
  assert.equal(u.count(1500), 4);
  assert.equal(b.union(a).count(1500), 4);
  assert.equal(u.count(10), 1);
  assert.equal(u.count(2500), 1);
  valid(u);
});

test('union across the flag: the first operand keeps its flag and t, no false negative', () => {
  for (const [name, fpr] of [['cap 4 fpr 0.01', 0.01], ['cap 4 fpr 0.001', 0.001]]) {
    const old = preBudget(4, fpr);
    const members = run(0, 2000).map((v) => v * 7919);
    for (const v of members) old.addInPlace(v);
    assert.ok(old.k >= 8 && !old.budget);
    const fresh = FilterV2.createGrowing(old.capacity, fpr, old.maxKicks);
    const mine = fresh.union(FilterV2.createGrowing(old.capacity, fpr, old.maxKicks));
    for (const v of run(5000000, 3000)) mine.addInPlace(v);
    for (const [x, y] of [[mine, old], [old, mine], [fresh, old]]) {
      const u = valid(x.union(y));
      assert.equal(u.toBytes()[7], x.toBytes()[7], `${name}: the flag of the first`);
      assert.equal(u.budget, x.budget);
      if (!u.budget) assert.equal(u.t, x.t);
      else assert.equal(u.t, T(u.c, u.k, u.f, u.g));
      for (const v of members) assert.ok(u.contains(v), `${name} member ${v}`);
      if (y === mine || x === mine) for (const v of run(5000000, 3000)) assert.ok(u.contains(v), `${name} ${v}`);
      assert.ok(u.items >= members.length && u.items <= u.entries);
    }
  }
});

test('rotation keeps the flag; wider tags narrow the tails to T(k) with the new g', () => {
  const f = FilterV2.createGrowing(1);
  for (const v of run(0, 300)) f.addInPlace(v);
  assert.equal(f.t, 26);                                  // 32 - f - 0 with f = 6: capped
  const r = f.rotate(2);                                  // g 0 -> 2: t = min(32 - k, 32 - 6 - 2)
  assert.equal(r.toBytes()[7] & 0x0C, 0x0C);
  assert.deepEqual([r.g, r.t], [2, 24]);
  valid(r);
  for (const v of run(0, 300)) assert.ok(r.contains(v), `member ${v}`);
  assert.equal(r.items, 300);
  // grow on through narrowings with generation tags in the slots
  for (const v of run(300, 30000)) r.addInPlace(v);
  valid(r);
  assert.ok(r.t < 24);
  assert.equal(r.t, T(r.c, r.k, r.f, r.g));
  // in place (g stays 2): keep 3 drops nothing
  const s = r.rotate(3);
  assert.deepEqual([s.g, s.t], [r.g, r.t]);
  for (const v of run(100000, 20000)) s.addInPlace(v);
  const info = valid(s).info();
  assert.equal(info.generation, 2);
  assert.equal(info.items, 50300);
  for (const v of [...run(0, 30300), ...run(100000, 20000)]) assert.ok(s.contains(v), `member ${v}`);
  // keep 2: a new generation and the last one; the two before it go
  const d = s.rotate(2);
  valid(d);
  for (const v of run(100000, 20000)) assert.ok(d.contains(v), `member ${v}`);
  assert.equal(d.items, 20000);
  // 32 - f - g < 2 is refused
  const tight = FilterV2.createGrowing(10, 2e-9);
  assert.equal(tight.f, 28);
  for (const v of run(0, 100)) tight.addInPlace(v);
  const t2 = tight.rotate(3);
  assert.deepEqual([t2.g, t2.t], [2, 2]);
  valid(t2);
  for (const v of run(0, 100)) assert.ok(t2.contains(v), `member ${v}`);
  assert.throws(() => tight.rotate(4), (e) => e instanceof RangeError && e.code === '54000' && /cannot rotate/.test(e.message));
});

test('validation: each rule of 13.12 rule 7 with the spec\'s message', () => {
  const f = FilterV2.createGrowing(1, 0.01);
  for (const v of run(0, 500)) f.addInPlace(v);             // m = 1 * 2^7 + p, A = 31
  assert.ok(f.k === 7 && f.split > 0 && f.t === 25, `k ${f.k} p ${f.split} t ${f.t}`);
  const ok = f.toBytes();
  valid(f);
  const poke = (o, x) => { const b = new Uint8Array(ok); b[o] = x; return b; };
  // rule 2: the flag without bit 2; other bits stay unknown
  invalid(poke(7, 0x08), 'the address budget flag is set on a filter that does not grow');
  invalid(poke(7, 0x09), 'unknown flag bits 0x01');
  invalid(poke(7, 0x1C), 'unknown flag bits 0x10');
  // rule 6: any t >= 2 (rule 8 bounds it), then t = T(k) after rule 16
  invalid(poke(10, 1), 'tail bits 1 do not fit a growing filter');
  invalid(poke(10, 27), 'slot of 33 bits exceeds 32');
  invalid(poke(10, 24), 'tail bits 24 differ from the 25 that the address budget gives at round 7');
  invalid(poke(10, 20), 'tail bits 20 differ from the 25 that the address budget gives at round 7');
  // rule 28: res(i) + s <= A; bucket 0 is split (resolution 8): s = 24 is one too many
  const g = Filter.fromBytes(ok);
  let j = 0;
  while (g._slot(0, j) !== 0) j++;
  const tooMany = (1 | ((1 << 24) << g.f)) >>> 0;
  const fine = (1 | ((1 << 23) << g.f)) >>> 0;
  const h = Filter.fromBytes(ok);
  h._wslot(0, j, fine);
  invalid(h.toBytes(), `entry count ${h.entries} disagrees with the ${h.entries + 1} occupied slots`);
  g._wslot(0, j, tooMany);
  invalid(g.toBytes(), `bucket 0 holds a slot 0x${tooMany.toString(16)} with more than 31 address bits`);
  // rule 30: the victim as a slot of its bucket
  const vb = Filter.fromBytes(ok);
  const b = vb.toBytes();
  b[7] |= 2;
  b.set([0, 0, 0, 0], 40);
  b.set([tooMany & 255, (tooMany >>> 8) & 255, (tooMany >>> 16) & 255, tooMany >>> 24], 44);
  invalid(b, `bucket 0 holds a slot 0x${tooMany.toString(16)} with more than 31 address bits`);
  // a filter without the flag: t = 9 is no T(k)
  const plain = preBudget(4, 0.01);
  for (const v of run(0, 2000)) plain.addInPlace(v);
  const p = plain.toBytes();
  assert.equal(p[7] & 8, 0);
  p[7] |= 8;
  invalid(p, `tail bits 9 differ from the ${T(1, plain.k, 6, 0)} that the address budget gives at round ${plain.k}`);
});

test('a budget filter full of one value refuses as before, unchanged', () => {
  const f = FilterV2.createGrowing(10);
  for (const v of run(0, 50)) f.addInPlace(v);
  let n = 0;
  for (;;) {
    const before = f.toText();
    try { f.addInPlace(7); n++; } catch (e) {
      assert.ok(e instanceof FilterFullError && e.code === '54000');
      assert.equal(f.toText(), before);
      break;
    }
    assert.ok(n < 20);
  }
  valid(f);
});

test('union of budget filters rotated apart: the error says so, whatever their t', () => {
  const a = FilterV2.createGrowing(1000), b = FilterV2.createGrowing(1000);
  for (const v of run(0, 20000)) a.addInPlace(v);
  const ra = a.rotate(2), rb = b.rotate(3).rotate(3);
  assert.notEqual(ra.t, b.t);
  for (const [x, y] of [[ra, b], [b, ra], [ra, rb], [a, b.rotate(2)]]) {
    assert.throws(() => x.union(y), (e) => e instanceof RangeError && e.code === '22023'
      && e.message === 'cannot union cuckoo filters that were not rotated in step', `${x.t} ${y.t}`);
  }
  // of different creation shapes: the shapes are named
  assert.throws(() => a.union(FilterV2.createGrowing(1000, 0.001)), (e) => e.message === 'cannot union cuckoo filters of different shapes'
    && /^The first is growing: 6-bit fingerprints, 20 tail bits, created with 284 buckets for capacity 1000; the second is growing: 9-bit fingerprints, \d+ tail bits, created with 284 buckets for capacity 1000\.$/.test(e.detail));
});

test('rotation with wider tags keeps the fingerprint, tail and age of every entry of a filter without the flag', () => {
  let checked = 0;
  const grown = preBudget(100, 0.01);
  for (const v of run(0, 5000)) grown.addInPlace(v);
  const filters = load('filters').filters.filter((x) => x.info.format_version === 2)
    .concat([{ name: 'pre-budget grown', text: grown.toText() }, { name: 'pre-budget grown, rotated', text: grown.rotate(2).add(-1).toText() }]);
  for (const vec of filters) {
    const f = Filter.fromText(vec.text);
    if (f.budget) continue;
    // fingerprint and tail of every entry (slots and victim), counted
    // and age (one more after the rotation)
    const entries = (x, older = 0) => {
      const n = new Map();
      const ft = (e) => `${(e & (2 ** (x.f + x.t) - 1)) >>> 0} ${x._slotAge(e) - older}`;
      for (let i = 0; i < x.m; i++) for (let j = 0; j < x.b; j++) if (x._slot(i, j)) n.set(ft(x._slot(i, j)), (n.get(ft(x._slot(i, j))) || 0) + 1);
      if (x._victim()) n.set(ft(x._ve), (n.get(ft(x._ve)) || 0) + 1);
      return n;
    };
    const before = entries(f);
    for (const keep of [2, 3, 4, 7]) {
      if (2 ** f.g > keep || f.f + f.t + 3 > 32) continue;             // only rotations that widen the tags
      const r = f.rotate(keep);
      assert.ok(r.g > f.g && r.t === f.t, `${vec.name} keep ${keep}`);
      valid(r);
      const after = entries(r, 1);
      let n = 0;
      for (const [e, k] of after) { assert.ok(k <= (before.get(e) || 0), `${vec.name} keep ${keep}: entry ${e}`); n += k; }
      assert.equal(n, r.entries);
      assert.ok(n > 0 || f.entries === 0, `${vec.name} keep ${keep}: no entry kept`);
      checked++;
    }
  }
  assert.ok(checked >= 8, `${checked}`);
});

test('a union keeps both copies of a value added twice across the splits it makes', () => {
  // review 2026-11-26: the copies placed before a split were counted again
  // after it, so one remove lost 3 of 1,000 values
  const s = FilterV2.createGrowing(10, 0.01);
  for (let v = 1; v <= 1000; v++) { s.addInPlace(v); s.addInPlace(v); }
  const u = FilterV2.createGrowing(10, 0.01).union(s);
  assert.equal(u.info().items, 2000);
  for (let v = 1; v <= 1000; v++) assert.ok(u.remove(v).contains(v), `value ${v} lost after one remove`);
});
