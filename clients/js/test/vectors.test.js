// pgcuckoo against the server's answers in clients/vectors (made by generate.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Filter, FilterV2, cuckooHash, build } from '../src/index.js';
import { load, has, value, OTHER_TYPES } from './vectors.js';

const INT_KIND = { int2: 'integer', int4: 'integer', int8: 'integer' };

test('hash vectors', () => {
  let checked = 0, skipped = 0;
  for (const v of load('hashes').hashes) {
    const x = value(v.type, v.value);
    if (x === undefined) { skipped++; continue; }
    assert.equal(cuckooHash(x), BigInt(v.hash), `${v.type} ${v.value}`);
    checked++;
  }
  assert.ok(checked > 150 && skipped < 20, `${checked} checked, ${skipped} skipped`);
});

for (const vec of load('filters').filters) {
  test(`filter ${vec.name}`, () => {
    const f = Filter.fromText(vec.text);
    assert.equal(f.toText(), vec.text);
    assert.ok(Filter.fromBytes(f.toBytes()).equals(f));
    const info = f.info();
    for (const [k, want] of Object.entries(vec.info)) {
      if (typeof want === 'number' && !Number.isInteger(want)) {
        assert.ok(Math.abs(info[k] - want) <= 1e-12 * Math.abs(want), `${k}: ${info[k]} != ${want}`);
      } else assert.deepEqual(info[k], want, k);
    }
    assert.deepEqual(Object.keys(info).sort(), Object.keys(vec.info).sort());
    const members = new Set(vec.members);
    for (const [text, contains, count] of vec.probes) {
      if (OTHER_TYPES.has(vec.type)) {
        assert.throws(() => f.contains(text), TypeError);
        continue;
      }
      const x = value(vec.type, text);
      if (x === undefined) continue;
      assert.equal(f.contains(x), contains, text);
      assert.equal(f.count(x), count, text);
      if (members.has(text)) assert.ok(contains, `false negative for ${text}`);
    }
  });
}

const V2 = load('filters').filters.filter((f) => f.info.format_version === 2);
test('the v2 vectors cover the shapes', () => {
  const infos = V2.map((f) => f.info);
  // grown 3 rounds or more with the split pointer inside a round; with split
  // entries copied, unless it has the address budget (FORMAT.md 13.12)
  assert.ok(V2.some((v) => v.info.expansion === 2 && v.info.split_pointer > 0 && v.info.growth_rounds >= 3
    && (v.info.entries > v.info.items || Filter.fromText(v.text).budget)));
  const grownF = new Set(infos.filter((i) => i.expansion === 2).map((i) => i.fingerprint_bits));
  assert.ok(grownF.has(6) && grownF.has(9));
  assert.ok(infos.some((i) => i.expansion === 2 && i.generation_bits > 0));
  assert.deepEqual([...new Set(infos.filter((i) => i.generation_bits > 0).map((i) => i.bucket_size))].sort(), [2, 4, 8]);
  assert.ok(infos.some((i) => i.is_full));
});
const METHOD = { add: 'add', add_if_absent: 'addIfAbsent', remove: 'remove' };
for (const vec of load('ops').ops) {
  test(`ops ${vec.name}`, () => {
    let f = Filter.fromText(vec.start);
    for (const [op, text, after] of vec.steps) {
      const before = f;
      f = f[METHOD[op]](value(vec.type, text));
      assert.equal(f.toText(), after, `${op} ${text}`);
      assert.notEqual(before, f);
    }
    const g = Filter.fromText(vec.start);
    for (const [op, text] of vec.steps) g[`${METHOD[op]}InPlace`](value(vec.type, text));
    assert.equal(g.toText(), vec.steps[vec.steps.length - 1][2]);
  });
}

// format version 2 (ops_v2.json, where the vectors have it): add,
// add_if_absent, remove, rotate and union steps, the server's filter after
// many of them
const V2_METHOD = { add: 'add', add_if_absent: 'addIfAbsent', remove: 'remove' };
for (const vec of has('ops_v2') ? load('ops_v2').ops : []) {
  test(`ops_v2 ${vec.name}`, () => {
    let f = Filter.fromText(vec.start);
    let checked = 0;
    for (const [k, [op, arg, after]] of vec.steps.entries()) {
      if (op === 'rotate') f = f.rotate(Number(arg));
      else if (op === 'union') f = f.union(Filter.fromText(arg));
      else f = f[V2_METHOD[op]](value(vec.type, arg));
      if (after !== null) {
        assert.equal(f.toText(), after, `step ${k}: ${op} ${String(arg).slice(0, 20)}`);
        checked++;
      }
    }
    assert.ok(checked > 0 && f instanceof FilterV2);
  });
}

for (const vec of load('unions').unions) {
  test(`union ${vec.name}`, () => {
    const a = Filter.fromText(vec.a), b = Filter.fromText(vec.b);
    assert.equal(a.union(b).toText(), vec.union);
    assert.equal(a.toText(), vec.a);
    assert.equal(b.toText(), vec.b);
  });
}

for (const vec of load('agg').aggs) {
  test(`agg ${vec.name}`, () => {
    const f = Filter.fromText(vec.filter);
    const vals = vec.values.map((t) => value(vec.type, t));
    for (let j = 0; j < vals.length; j++) assert.ok(f.contains(vals[j]), `${vec.name} ${vec.values[j]}`);
    const kind = vals.length ? undefined : { float8: 'float', bool: 'boolean' }[vec.type] || INT_KIND[vec.type] || vec.type;
    assert.equal(build(vals, vec.fpr, kind).toText(), vec.filter);
  });
}

const invalid = load('invalid');
for (const vec of invalid.binary) {
  test(`binary ${vec.name}`, () => {
    const data = Uint8Array.from(Buffer.from(vec.hex, 'hex'));
    if (vec.error === null) {
      assert.deepEqual(Filter.fromBytes(data).toBytes(), data);
    } else {
      // the same rule, worded as the server words it
      assert.throws(() => Filter.fromBytes(data), (e) => e instanceof RangeError
        && e.message.replace('this library', 'this build') === vec.error);
    }
  });
}
for (const vec of invalid.text) {
  test(`text ${vec.name}`, () => {
    if (vec.error === null) assert.equal(Filter.fromText(vec.text).toText(), vec.text);
    else assert.throws(() => Filter.fromText(vec.text), RangeError);
  });
}
