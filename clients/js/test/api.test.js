// pgcuckoo's own behaviour: value mapping, immutability, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Filter, FilterFullError, build, cuckooHash, uuid, float8, numeric, date, timestamp, timestamptz,
} from '../src/index.js';
import { load } from './vectors.js';

const ints = load('agg').aggs.find((a) => a.name === 'agg_int_1000');
const base = () => Filter.fromText(ints.filter);          // integers 1 .. 1000, fpr 0.01

test('integers: number and bigint alike, in the 64-bit range', () => {
  assert.equal(cuckooHash(42), cuckooHash(42n));
  assert.equal(cuckooHash(-1), cuckooHash(-1n));
  assert.equal(cuckooHash(1), 3439722301264460078n);
  assert.throws(() => cuckooHash(1.5), TypeError);
  assert.throws(() => cuckooHash(2n ** 63n), RangeError);
  assert.equal(cuckooHash(-(2n ** 63n)), cuckooHash(-9223372036854775808n));
});

test('build of no values is null, as cuckoo_agg over no rows', () => {
  assert.equal(build([]), null);
  assert.equal(build([null, undefined], 0.001), null);
  assert.equal(build([], 0.01, 'text'), null);
  assert.throws(() => build([1], 0.01, 'text'), TypeError);   // kind: what every value must be
  assert.ok(build([null, 'a'], 0.01, 'text').contains('a'));
});

test('numeric text is normalised', () => {
  assert.equal(cuckooHash(numeric('1.0')), cuckooHash(numeric('1.00')));
  assert.equal(cuckooHash(numeric('1e2')), cuckooHash(numeric('100')));
  assert.equal(cuckooHash(numeric('-0.0')), cuckooHash(numeric('0')));
  assert.equal(cuckooHash(numeric('.5')), cuckooHash(numeric('0.50')));
  assert.notEqual(cuckooHash(numeric('1')), cuckooHash(1));
  assert.throws(() => numeric('1.2.3'), RangeError);
});

test('floats, dates and times', () => {
  assert.equal(cuckooHash(float8(-0)), cuckooHash(float8(0)));
  assert.equal(cuckooHash(float8(NaN)), cuckooHash(float8(-NaN)));
  const d = new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 123));
  assert.equal(cuckooHash(d), cuckooHash(timestamptz('2024-05-06 09:08:09.123+02')));
  assert.equal(cuckooHash(timestamp(d)), cuckooHash(timestamp('2024-05-06 07:08:09.123')));
  assert.equal(cuckooHash(timestamptz(0n)), cuckooHash(new Date(Date.UTC(2000, 0, 1))));
  assert.equal(cuckooHash(date('2000-01-02')), cuckooHash(date(1)));
  assert.equal(cuckooHash(date(new Date(Date.UTC(1999, 11, 31, 23)))), cuckooHash(date(-1)));
});

test('kinds are checked', () => {
  const f = base();
  assert.ok(f.contains(500));
  assert.throws(() => f.contains('500'), TypeError);
  assert.throws(() => f.contains(true), TypeError);
  assert.throws(() => f.contains(float8(500)), TypeError);
  assert.throws(() => f.contains(null), TypeError);
  assert.throws(() => f.add(uuid('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')), TypeError);
});

test('changes return new filters; in-place forms change this one', () => {
  const f = base();
  const text = f.toText();
  const g = f.add(5000);
  assert.equal(f.toText(), text);
  assert.ok(!f.contains(5000) || f.count(5000) < g.count(5000));
  assert.ok(g.contains(5000));
  assert.equal(g.remove(5000).items, f.items);
  assert.ok(f.addIfAbsent(7).equals(f));
  const h = base();
  assert.equal(h.addIfAbsentInPlace(7), false);
  h.addInPlace(7);
  assert.equal(h.count(7), 2);
  assert.ok(h.removeInPlace(7) && h.removeInPlace(7));
  assert.ok(!h.contains(7) || h.count(7) > 0);
});

test('a full filter throws and keeps its bytes', () => {
  let f = base();
  let n = 0;
  assert.throws(() => { for (;;) { f = f.add(100000 + n); n++; } }, FilterFullError);
  assert.ok(f.info().is_full);
  const before = f.toText();
  assert.throws(() => f.addInPlace(-5), FilterFullError);
  assert.equal(f.toText(), before);
  for (let i = 0; i < n; i++) assert.ok(f.contains(100000 + i));
  for (let i = 1; i <= 1000; i++) assert.ok(f.contains(i));
});

test('union checks shape and kind', () => {
  const f = base();
  const other = Filter.fromText(load('agg').aggs.find((a) => a.name === 'agg_text_2000').filter);
  assert.throws(() => f.union(other), RangeError);
  assert.ok(f.union(f).equals(f));
});

test('fromText and fromBytes reject what the server rejects', () => {
  const t = base().toText();
  for (const bad of ['', 'abc', 'Q0tPTw==', ` ${t}`, `${t}\n`, 'Q0tP\u00e9w==']) {
    assert.throws(() => Filter.fromText(bad), RangeError, JSON.stringify(bad));
  }
  assert.throws(() => Filter.fromText(new Uint8Array(4)), TypeError);
  assert.throws(() => Filter.fromBytes('abc'), TypeError);
  const bytes = base().toBytes();
  const f = Filter.fromBytes(bytes);
  bytes[60] ^= 1;                      // the filter keeps its own copy
  assert.ok(f.equals(base()));
});

test('stored filters: routing (FORMAT.md section 14) and probes from rows', async () => {
  const { Store, storeSegment } = await import('../src/index.js');
  assert.equal(cuckooHash(42), -3051478158665635896n);
  assert.equal(storeSegment(cuckooHash(42), 1024), 185);
  assert.equal(storeSegment(cuckooHash(42), 1), 0);
  assert.throws(() => storeSegment(1n, 0), RangeError);
  const parts = [[], [], [], []];
  for (let v = 1; v <= 2000; v++) parts[storeSegment(cuckooHash(v), 4)].push(v);
  const st = new Store(parts.map((vs, s) => [s, build(vs).toBytes()]));
  assert.equal(st.segments, 4);
  for (let v = 1; v <= 2000; v++) assert.equal(st.contains(v), true);
  let fp = 0;
  for (let v = 100001; v <= 110000; v++) fp += st.contains(v) ? 1 : 0;
  assert.ok(fp < 500);
  assert.throws(() => st.contains('1'), TypeError);
  assert.throws(() => new Store([[0, build([1]).toBytes()], [2, build([2]).toBytes()]]), RangeError);
});

test('stored filters (1.6): a store from its chunk rows', async () => {
  const { Store, storeSegment, STORE_CHUNK_BYTES } = await import('../src/index.js');
  const parts = [[], []];
  for (let v = 1; v <= 6000; v++) parts[storeSegment(cuckooHash(v), 2)].push(v);
  const whole = parts.map((vs) => build(vs).toBytes());
  assert.ok(whole.every((b) => b.length > 2 * STORE_CHUNK_BYTES));
  const rows = [];
  whole.forEach((b, s) => {
    for (let c = 0; c * STORE_CHUNK_BYTES < b.length; c++) {
      rows.push([s, c, b.slice(c * STORE_CHUNK_BYTES, (c + 1) * STORE_CHUNK_BYTES)]);
    }
  });
  const st = Store.fromChunks([...rows].reverse());
  assert.equal(st.segments, 2);
  for (let v = 1; v <= 6000; v++) assert.equal(st.contains(v), true);
  assert.deepEqual(st.segs.map((f) => Buffer.from(f.toBytes()).toString('hex')),
    whole.map((b) => Buffer.from(b).toString('hex')));
  assert.throws(() => Store.fromChunks(rows.filter(([s, c]) => !(s === 0 && c === 1))), /chunk 1 is missing/);
  assert.throws(() => Store.fromChunks([...rows, rows[0]]), /given twice/);
  assert.throws(() => Store.fromChunks(rows.map(([s, c, b]) => [s, c, s === 0 && c === 1 ? b.slice(0, 10) : b])),
    /chunk 1 has 10 bytes/);
});
