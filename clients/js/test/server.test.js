// Cross-checks against a running server with the cuckoo extension (libpq's
// PG* variables select it; node-postgres reads them too).  Skipped unless
// PGCUCKOO_SERVER_TESTS=1; test/cluster/clients.sh runs it in a throwaway cluster.
// For each value family, N values (100,000) are probed here and with
// cuckoo_contains on filters of every shape; filters changed here go back
// through the bytea cast and binary COPY (psql \copy of a file in
// PostgreSQL's binary COPY format) and must pass the validator, equal the
// server's own result of the same changes and answer every probe alike;
// build() must equal cuckoo_agg.  Format version 2 (growing and rotated
// filters, read-only here): the same probes on filters of its shapes, its
// bytes back through the cast and binary COPY, and the client's verdict on
// mutated bytes equal to the server's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Filter, FilterV2, FilterFullError, build } from '../src/index.js';
import { value } from './vectors.js';

const enabled = process.env.PGCUCKOO_SERVER_TESTS === '1';
const N = Number(process.env.PGCUCKOO_PROBES || 100000);

// the same families and shapes as clients/python/tests/test_server.py
const FAMILIES = {
  int8: '(hashint8(i::bigint)::bigint << 16) # i',
  numeric: 'round((hashint4(i)::bigint * 100000 + i)::numeric / 10::numeric ^ (i % 7), i % 7 + i % 3)',
  text: "left(md5(i::text) || md5((-i)::text), i % 61) || CASE WHEN i % 7 = 0 THEN 'ü' ELSE '' END || to_hex(i)",
  bytea: "int4send(i) || substring(decode(md5(i::text) || md5((3 * i)::text), 'hex') from 1 for i % 29)",
  uuid: 'md5(i::text)::uuid',
  date: "'2000-01-01'::date + hashint4(i) % 700000",
  timestamp: "'2000-01-01'::timestamp + hashint4(i) * interval '1 second' + (i % 999983) * interval '1 microsecond'",
  timestamptz: "'2000-01-01 00:00+00'::timestamptz + hashint4(-i) * interval '1 second' + (i % 999983) * interval '1 microsecond'",
  bool: 'i % 2 = 0',
  float8: "CASE WHEN i % 10000 = 0 THEN 'NaN'::float8 WHEN i % 10000 = 1 THEN '-0'::float8 "
    + "WHEN i % 10000 = 2 THEN '-Infinity'::float8 ELSE hashint4(i)::float8 / (i % 97 + 1) END",
};
// name: [capacity, bucket_size, fingerprint_bits, semisort, members, fill until full]
const SHAPES = {
  b2_f8: [3000, 2, 8, false, 2000, false],
  b2_f12_full: [100, 2, 12, false, 1000, true],
  b4_f10: [5000, 4, 10, false, 4000, false],
  b4_f32: [1000, 4, 32, false, 800, false],
  b4_f5_semisort: [3000, 4, 5, true, 2500, false],
  b4_f13_semisort_full: [200, 4, 13, true, 1000, true],
  b4_f18_semisort: [2000, 4, 18, true, 1500, false],
  b8_f9: [3000, 8, 9, false, 2500, false],
  b8_f6_full: [150, 8, 6, false, 1000, true],
};

// format version 2, as in clients/python/tests/test_server.py: name ->
// [the filter as SQL given A(lo, hi), the array of the family's values
// lo .. hi; the rows lo .. hi that are surely kept]
const grow = (fpr, cap = 32) => `cuckoo_create(${cap}, ${fpr}, 4, NULL, 500, false, 2)`;
const V2_SHAPES = {
  v2_grow_fpr01: [(A) => `cuckoo_add_array(${grow(0.01)}, ${A(1, 20000)})`, [1, 20000]],
  v2_grow_fpr001: [(A) => `cuckoo_add_array(${grow(0.001)}, ${A(1, 20000)})`, [1, 20000]],
  v2_grow_rotated: [(A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(
      cuckoo_add_array(${grow(0.01, 100)}, ${A(1, 1000)}), 2), ${A(1001, 2000)}), 2), ${A(2001, 2800)}), 2), ${A(2801, 3000)})`, [2001, 3000]],
  v2_rotated_b2_f8: [(A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(
      cuckoo_create(3000, 0.01, 2, 8), ${A(1, 1500)}), 2), ${A(1501, 2500)}), 2), ${A(2501, 2800)})`, [1501, 2800]],
  v2_rotated_b8_f9: [(A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(
      cuckoo_create(3000, 0.01, 8, 9), ${A(1, 1500)}), 2), ${A(1501, 2500)}), 2), ${A(2501, 2800)})`, [1501, 2800]],
  v2_rotated_b4_f12_full: [(A) => `(xj.fill(cuckoo_rotate(cuckoo_add_array(cuckoo_create(200, 0.01, 4, 12), ${A(1, 150)}), 2),
      ${A(151, 2000)}, true)).filt`, [1, 150]],
};

const SETUP = `
CREATE EXTENSION IF NOT EXISTS cuckoo;
DROP SCHEMA IF EXISTS xj CASCADE;
CREATE SCHEMA xj;
CREATE FUNCTION xj.fill(f cuckoofilter, vals anyarray, until_full bool,
                        OUT filt cuckoofilter, OUT added int)
LANGUAGE plpgsql AS $$
BEGIN
  added := 0;
  filt := f;
  FOR i IN 1 .. coalesce(array_length(vals, 1), 0) LOOP
    filt := cuckoo_add(filt, vals[i]);
    added := added + 1;
    EXIT WHEN until_full AND (cuckoo_info(filt)).is_full;
  END LOOP;
END $$;
CREATE TABLE xj.filters (fam text, shape text, f cuckoofilter, members int, PRIMARY KEY (fam, shape));
CREATE TABLE xj.back (how text, f cuckoofilter);
CREATE TABLE xj.filters2 (fam text, shape text, f cuckoofilter, lo int, hi int, PRIMARY KEY (fam, shape));
CREATE FUNCTION xj.verdict(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b::cuckoofilter;
  RETURN NULL;
EXCEPTION WHEN invalid_binary_representation THEN
  RETURN SQLERRM;
END $$;
`;

let client;
let tmp;
const values = {};

before(async () => {
  if (!enabled) return;
  const { default: pg } = await import('pg');
  client = new pg.Client();
  await client.connect();
  await client.query("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET extra_float_digits = 1");
  await client.query(SETUP);
  tmp = mkdtempSync(join(tmpdir(), 'pgcuckoo-'));
});

after(async () => {
  if (client) await client.end();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function q(sql, params) {
  return (await client.query(sql, params)).rows;
}

async function familyValues(fam) {
  if (values[fam]) return values[fam];
  await q(`CREATE TABLE xj.v_${fam} AS SELECT i, ${FAMILIES[fam]} AS v FROM generate_series(1, ${N}) i`);
  const rows = await q(`SELECT ${fam === 'bytea' ? "encode(v, 'hex')" : 'v::text'} AS t FROM xj.v_${fam} ORDER BY i`);
  values[fam] = rows.map((r) => value(fam, r.t));
  for (const [shape, [cap, b, f, ss, n, full]] of Object.entries(SHAPES)) {
    if (fam === 'bool' && full) continue;
    await q(`INSERT INTO xj.filters SELECT $1, $2, (r).filt, (r).added FROM
               (SELECT xj.fill(cuckoo_create(${cap}, 0.01, ${b}, ${f}, 500, ${ss}), array_agg(v ORDER BY i), ${full}) r
                FROM xj.v_${fam} WHERE i <= ${fam === 'bool' ? 1 : n}) s`, [fam, shape]);
  }
  for (const [shape, [make, [lo0, hi0]]] of Object.entries(V2_SHAPES)) {
    let A, lo = lo0, hi = hi0;
    if (fam === 'bool') {
      if (shape.endsWith('_full')) continue;      // two values cannot fill a filter
      lo = hi = lo0;                               // one value per batch: its first row
      A = (a) => `(SELECT array_agg(v) FROM xj.v_bool WHERE i = ${a})`;
    } else A = (a, b) => `(SELECT array_agg(v ORDER BY i) FROM xj.v_${fam} WHERE i BETWEEN ${a} AND ${b})`;
    await q(`INSERT INTO xj.filters2 VALUES ($1, $2, ${make(A)}, $3, $4)`, [fam, shape, lo, hi]);
  }
  return values[fam];
}

async function sqlAnswers(fam, table, where, params) {
  const rows = await q(`SELECT string_agg(CASE WHEN cuckoo_contains(f, v) THEN '1' ELSE '0' END, '' ORDER BY i) AS a
                        FROM ${table} t, xj.v_${fam} WHERE ${where}`, params);
  return rows[0].a;
}

function clientAnswers(f, vals) {
  const out = new Array(vals.length);
  for (let i = 0; i < vals.length; i++) out[i] = f.contains(vals[i]) ? '1' : '0';
  return out.join('');
}

// one-column file in PostgreSQL's binary COPY format
function copyFile(bytes) {
  const head = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  const tuple = Buffer.alloc(6);
  tuple.writeInt16BE(1, 0);
  tuple.writeInt32BE(bytes.length, 2);
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1, 0);
  return Buffer.concat([head, tuple, Buffer.from(bytes), trailer]);
}

async function shapesOf(fam) {
  return q(`SELECT shape, f::bytea AS data, members, (cuckoo_info(f)).is_full AS full FROM xj.filters
            WHERE fam = $1 ORDER BY shape`, [fam]);
}

for (const fam of Object.keys(FAMILIES)) {
  test(`probes agree: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    const shapes = await shapesOf(fam);
    assert.equal(shapes.length, fam === 'bool' ? 6 : 9);
    for (const { shape, data, members } of shapes) {
      const f = Filter.fromBytes(new Uint8Array(data));
      const mine = clientAnswers(f, vals);
      const theirs = await sqlAnswers(fam, 'xj.filters', 't.fam = $1 AND t.shape = $2', [fam, shape]);
      assert.ok(mine === theirs, `${fam} ${shape}: answers differ`);
      assert.ok(!mine.slice(0, members).includes('0'), `${fam} ${shape}: false negative`);
    }
  });

  test(`changes go back: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    for (const { shape, data, members, full } of await shapesOf(fam)) {
      const f = Filter.fromBytes(new Uint8Array(data));
      let removes, adds, absent;
      const range = (a, b) => Array.from({ length: b - a }, (_, k) => a + k);
      if (fam === 'bool') [removes, adds, absent] = [[1], [0], [0]];
      else if (full) [removes, adds, absent] = [[0, 1, 2], [members], []];
      else {
        removes = range(0, Math.floor(members / 10));
        adds = range(N - 100, N);
        absent = range(Math.floor(members / 2), Math.floor(members / 2) + 50).concat(range(N - 200, N - 150));
      }
      const apply = () => {
        let g = f;
        for (const j of removes) g = g.remove(vals[j]);
        for (const j of adds) g = g.add(vals[j]);
        for (const j of absent) g = g.addIfAbsent(vals[j]);
        return g;
      };
      let changed;
      try {
        changed = apply();
      } catch (e) {
        // a full filter may stay full: then the server refuses the same add
        assert.ok(e instanceof FilterFullError && full, String(e));
        await assert.rejects(q(`SELECT cuckoo_add_array(cuckoo_remove_array(f,
              ARRAY(SELECT v FROM xj.v_${fam} WHERE i = ANY($1) ORDER BY i)),
              ARRAY(SELECT v FROM xj.v_${fam} WHERE i = ANY($2) ORDER BY i))
            FROM xj.filters WHERE fam = $3 AND shape = $4`,
        [removes.map((j) => j + 1), adds.map((j) => j + 1), fam, shape]), /54000|full/);
        adds = [];
        changed = apply();
      }
      const mine = changed.toBytes();
      assert.deepEqual(f.toBytes(), new Uint8Array(data));
      await q('DELETE FROM xj.back');
      await q("INSERT INTO xj.back VALUES ('cast', $1::bytea::cuckoofilter)", [Buffer.from(mine)]);
      const file = join(tmp, 'filter.copy');
      writeFileSync(file, copyFile(mine));
      execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c',
        `\\copy xj.back (f) FROM '${file}' WITH (FORMAT binary)`]);
      await q("UPDATE xj.back SET how = 'copy' WHERE how IS NULL");
      const arr = `(SELECT array_agg(v ORDER BY o) FROM unnest($N::int[]) WITH ORDINALITY u(j, o) JOIN xj.v_${fam} ON i = j)`;
      const rows = await q(`SELECT bool_and(b.f = cuckoo_add_if_absent_array(cuckoo_add_array(cuckoo_remove_array(x.f,
          ${arr.replace('$N', '$1')}), ${arr.replace('$N', '$2')}), ${arr.replace('$N', '$3')})) AS same,
          count(*)::int AS n, bool_and(b.f::bytea = $4) AS bytes
        FROM xj.back b, xj.filters x WHERE x.fam = $5 AND x.shape = $6`,
      [removes.map((j) => j + 1), adds.map((j) => j + 1), absent.map((j) => j + 1), Buffer.from(mine), fam, shape]);
      assert.deepEqual(rows[0], { same: true, n: 2, bytes: true }, `${fam} ${shape}`);
      const want = clientAnswers(changed, vals);
      for (const how of ['cast', 'copy']) {
        assert.ok(await sqlAnswers(fam, 'xj.back', 't.how = $1', [how]) === want, `${fam} ${shape} ${how}`);
      }
    }
  });

  test(`union agrees: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    for (const { shape, data, members, full } of await shapesOf(fam)) {
      if (full || fam === 'bool') continue;
      const a = Filter.fromBytes(new Uint8Array(data));
      const b = Filter.fromBytes(new Uint8Array(data));
      for (let j = members; j < members + Math.floor(members / 4); j++) b.addInPlace(vals[j]);
      const rows = await q('SELECT cuckoo_union($1::bytea::cuckoofilter, $2::bytea::cuckoofilter)::bytea AS u',
        [Buffer.from(a.toBytes()), Buffer.from(b.toBytes())]);
      assert.deepEqual(a.union(b).toBytes(), new Uint8Array(rows[0].u), `${fam} ${shape}`);
    }
  });

  test(`hashes agree: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    const { cuckooHash } = await import('../src/index.js');
    const rows = await q(`SELECT cuckoo_hash(v)::text AS h FROM xj.v_${fam} WHERE i <= 5000 ORDER BY i`);
    for (let j = 0; j < rows.length; j++) assert.equal(cuckooHash(vals[j]), BigInt(rows[j].h), `${fam} ${j}`);
  });
}

// build() against cuckoo_agg(value, fpr), byte for byte
const BUILDS = [['int8', 0.01, N], ['text', 0.01, N], ['int8', 0.3, 20000], ['numeric', 0.001, 20000],
  ['bytea', 0.05, 20000], ['uuid', 0.0001, 20000], ['date', 0.01, 20000], ['timestamp', 0.01, 20000],
  ['timestamptz', 0.02, 20000], ['bool', 0.01, 20000], ['float8', 1e-6, 20000], ['text', 0.5, 3]];
for (const [fam, fpr, n] of BUILDS) {
  test(`build = cuckoo_agg: ${fam} ${fpr} ${n}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    const rows = await q(`SELECT cuckoo_agg(v, $1)::bytea AS f FROM xj.v_${fam} WHERE i <= ${n}`, [fpr]);
    assert.deepEqual(build(vals.slice(0, n), fpr).toBytes(), new Uint8Array(rows[0].f));
  });
}

test('build of no values = cuckoo_agg over no rows: null', { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
  const rows = await q('SELECT cuckoo_agg(v, 0.001)::bytea AS f FROM xj.v_text WHERE false');
  assert.equal(rows[0].f, null);
  assert.equal(build([], 0.001, 'text'), null);
});

async function v2ShapesOf(fam) {
  return q(`SELECT shape, f::bytea AS data, lo, hi, (cuckoo_info(f)).format_version AS version,
              (cuckoo_info(f)).is_full AS full FROM xj.filters2 WHERE fam = $1 ORDER BY shape`, [fam]);
}

for (const fam of Object.keys(FAMILIES)) {
  test(`v2 probes agree: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    const shapes = await v2ShapesOf(fam);
    assert.equal(shapes.length, fam === 'bool' ? 5 : 6);
    for (const { shape, data, lo, hi, version, full } of shapes) {
      assert.ok(version === 2 && full === shape.endsWith('_full'), shape);
      const f = Filter.fromBytes(new Uint8Array(data));
      if (shape.startsWith('v2_grow_fpr') && fam !== 'bool') {
        const info = f.info();
        assert.ok(info.split_pointer > 0 && info.entries > info.items, JSON.stringify(info));
      }
      assert.ok(f instanceof FilterV2);
      const mine = clientAnswers(f, vals);
      const theirs = await sqlAnswers(fam, 'xj.filters2', 't.fam = $1 AND t.shape = $2', [fam, shape]);
      assert.ok(mine === theirs, `${fam} ${shape}: answers differ`);
      assert.ok(!mine.slice(lo - 1, hi).includes('0'), `${fam} ${shape}: false negative`);
      const rows = await q(`SELECT cuckoo_count(t.f, v) AS n FROM xj.filters2 t, xj.v_${fam}
                            WHERE t.fam = $1 AND t.shape = $2 AND (i BETWEEN ${lo} AND ${lo + 199} OR i > ${N - 200}) ORDER BY i`, [fam, shape]);
      const sample = vals.slice(lo - 1, lo + 199).concat(vals.slice(N - 200));
      assert.deepEqual(sample.map((v) => f.count(v)), rows.map((r) => r.n), `${fam} ${shape}: counts differ`);
    }
  });
}

for (const fam of ['int8', 'text', 'bool']) {
  test(`v2 goes back, changes refused: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    for (const { shape, data, lo } of await v2ShapesOf(fam)) {
      const f = Filter.fromBytes(new Uint8Array(data));
      assert.throws(() => f.add(vals[0]), /does not change them/);
      assert.throws(() => f.remove(vals[lo - 1]), /does not change them/);
      assert.throws(() => f.union(f), /does not change them/);
      const mine = f.toBytes();
      await q('DELETE FROM xj.back');
      await q("INSERT INTO xj.back VALUES ('cast', $1::bytea::cuckoofilter)", [Buffer.from(mine)]);
      const file = join(tmp, 'filter.copy');
      writeFileSync(file, copyFile(mine));
      execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', `\\copy xj.back (f) FROM '${file}' WITH (FORMAT binary)`]);
      const rows = await q(`SELECT count(*)::int AS n, bool_and(b.f = x.f) AS same FROM xj.back b, xj.filters2 x
                            WHERE x.fam = $1 AND x.shape = $2`, [fam, shape]);
      assert.deepEqual(rows[0], { n: 2, same: true }, `${fam} ${shape}`);
      assert.ok(Filter.fromText(f.toText()).equals(f));
    }
  });
}

// n mutated copies of a version-2 filter's bytes, most in the header
function mutations(rnd, data, n) {
  const hdr = 64 + (data[11] ? 8 * 2 ** data[11] : 0);
  const pick = (k) => Math.floor(rnd() * k);
  const fields = [5, 6, 7, 10, 11, 16, 24, 32, 40, 44, 48, 50, 51, 52, 56];
  for (let o = 64; o < hdr; o += 8) fields.push(o);
  const out = [];
  for (let c = 0; c < n; c++) {
    let b = new Uint8Array(data);
    switch (pick(6)) {
      case 0: b[pick(hdr)] ^= 1 << pick(8); break;                     // one header bit
      case 1: b[pick(hdr)] = pick(256); break;                          // one header byte
      case 2: { const o = fields[pick(fields.length)]; b[o] = (b[o] + [-2, -1, 1, 2][pick(4)]) & 255; break; }
      case 3: b[hdr + pick(b.length - hdr)] ^= 1 << pick(8); break;     // one table bit
      case 4: b[hdr + pick(b.length - hdr)] = [0, 255, pick(256)][pick(3)]; break;
      default:                                                          // length
        if (rnd() < 0.5) b = b.slice(0, pick(b.length));
        else { const e = new Uint8Array(b.length + 1 + pick(8)); e.set(b); b = e; }
    }
    out.push(b);
  }
  return out;
}

test('v2 mutations: the client\'s verdicts are the server\'s', { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
  await familyValues('int8');
  let s = 20261125;
  const rnd = () => {           // mulberry32
    s = (s + 0x6D2B79F5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let cases = [];
  for (const { data } of await v2ShapesOf('int8')) cases = cases.concat(mutations(rnd, new Uint8Array(data), 60));
  const rows = await q('SELECT xj.verdict(b) AS v FROM unnest($1::bytea[]) WITH ORDINALITY u(b, o) ORDER BY o',
    [cases.map((c) => Buffer.from(c))]);
  let rejected = 0;
  for (let j = 0; j < cases.length; j++) {
    let mine = null;
    try { Filter.fromBytes(cases[j]); } catch (e) {
      assert.ok(e instanceof RangeError, String(e));
      mine = e.message.replace('this library', 'this build');
      rejected++;
    }
    assert.equal(mine, rows[j].v, Buffer.from(cases[j]).toString('hex').slice(0, 200));
  }
  assert.ok(cases.length === 360 && rejected > 150 && rejected < 360, `${rejected} of ${cases.length} rejected`);
});
