// Cross-checks against a running server with the cuckoo extension (libpq's
// PG* variables select it; node-postgres reads them too).  Skipped unless
// PGCUCKOO_SERVER_TESTS=1; test/cluster/clients.sh runs it in a throwaway cluster.
// For each value family, N values (PGCUCKOO_PROBES, default 100,000; at
// least 22,001: the changes below reach that row) are probed here and with
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
import { Filter, FilterV2, FilterFullError, build, Store } from '../src/index.js';
import { value } from './vectors.js';

const enabled = process.env.PGCUCKOO_SERVER_TESTS === '1';
const N = Number(process.env.PGCUCKOO_PROBES || 100000);
// the highest row the tests below name (sequence's new rows: 20,001 + 2,000)
const MIN_N = 22001;

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
-- the operations ops[i] ('a' add, 'i' add_if_absent, 'r' remove) with vals[i], in order
CREATE FUNCTION xj.apply(f cuckoofilter, ops text[], vals anyarray) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. coalesce(array_length(ops, 1), 0) LOOP
    CASE ops[i]
      WHEN 'a' THEN f := cuckoo_add(f, vals[i]);
      WHEN 'i' THEN f := cuckoo_add_if_absent(f, vals[i]);
      WHEN 'r' THEN f := cuckoo_remove(f, vals[i]);
    END CASE;
  END LOOP;
  RETURN f;
END $$;
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
  if (!(Number.isInteger(N) && N >= MIN_N)) throw new Error(`PGCUCKOO_PROBES must be an integer of at least ${MIN_N}, not ${process.env.PGCUCKOO_PROBES}`);
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
        // grown 8 rounds: split entries copied, unless the address budget
        // (FORMAT.md 13.12) kept every entry's address bits
        assert.ok(info.split_pointer > 0 && (f.budget ? info.entries === info.items : info.entries > info.items), JSON.stringify(info));
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
  test(`v2 goes back: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    for (const { shape, data, lo } of await v2ShapesOf(fam)) {
      const f = Filter.fromBytes(new Uint8Array(data));
      assert.ok(f.union(f).equals(f), `${fam} ${shape}: union with itself`);
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

// ---- format version 2 changed here: the same operations in SQL give the same bytes ----

// rows lo .. hi of the family's table as an SQL array, in order
const rowsOf = (fam, lo, hi) => `(SELECT array_agg(v ORDER BY i) FROM xj.v_${fam} WHERE i BETWEEN ${lo} AND ${hi})`;
// the rows $N (an int[] parameter) in that order
const rowsAt = (fam, n) => `(SELECT array_agg(v ORDER BY o) FROM unnest($${n}::int[]) WITH ORDINALITY u(j, o) JOIN xj.v_${fam} ON i = j)`;
const growSql = (cap, fpr) => `cuckoo_create(${cap}, ${fpr}, expansion => 2)`;
const num = (x) => (typeof x === 'string' && /^-?\d+$/.test(x) ? Number(x) : x);

// cuckoo_info of the filter as the server computes it equals info() here
async function sameInfo(f, label) {
  const [row] = await q('SELECT (cuckoo_info($1::bytea::cuckoofilter)).*', [Buffer.from(f.toBytes())]);
  const mine = f.info();
  assert.deepEqual(Object.keys(mine).sort(), Object.keys(row).sort(), label);
  for (const [k, v] of Object.entries(row)) {
    const want = Array.isArray(v) ? v.map(num) : num(v);
    if (typeof want === 'number' && !Number.isInteger(want)) {
      assert.ok(Math.abs(mine[k] - want) <= 1e-12 * Math.abs(want), `${label}: info ${k} ${mine[k]} != ${want}`);
    } else assert.deepEqual(mine[k], want, `${label}: info ${k}`);
  }
}

// the bytes back through the bytea cast and binary COPY: accepted, the same
// value, cuckoo_contains answering every value of the family as here
async function goesBack(fam, f, label) {
  const vals = values[fam];
  const mine = f.toBytes();
  await q('DELETE FROM xj.back');
  await q("INSERT INTO xj.back VALUES ('cast', $1::bytea::cuckoofilter)", [Buffer.from(mine)]);
  const file = join(tmp, 'filter.copy');
  writeFileSync(file, copyFile(mine));
  execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', `\\copy xj.back (f) FROM '${file}' WITH (FORMAT binary)`]);
  await q("UPDATE xj.back SET how = 'copy' WHERE how IS NULL");
  const rows = await q('SELECT count(*)::int AS n, bool_and(f::bytea = $1) AS same FROM xj.back', [Buffer.from(mine)]);
  assert.deepEqual(rows[0], { n: 2, same: true }, label);
  const want = clientAnswers(f, vals);
  for (const how of ['cast', 'copy']) {
    assert.ok(await sqlAnswers(fam, 'xj.back', 't.how = $1', [how]) === want, `${label}: ${how} answers`);
  }
  await sameInfo(f, label);
}

// the JS error and the server's (node-postgres) are the same refusal
function sameError(mine, theirs, label) {
  assert.ok(mine && theirs, `${label}: ${mine} / ${theirs}`);
  assert.deepEqual([mine.message, mine.detail, mine.code], [theirs.message, theirs.detail, theirs.code], label);
}

// Growing filters of several capacities and fprs grown here from empty,
// 1x, 10x and 100x their capacity (at most N values): after each stage the
// bytes are cuckoo_add_array's, and no value added is missing.
for (const fam of ['int8', 'text']) {
  test(`v2 growth here = the server's: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    for (const cap of [1, 10, 100, 1000]) {
      for (const fpr of [0.01, 0.001]) {
        const [{ e }] = await q(`SELECT ${growSql(cap, fpr)}::bytea AS e`);
        const f = Filter.fromBytes(new Uint8Array(e));
        let n = 0;
        for (const times of [1, 10, 100]) {
          const upto = Math.min(cap * times, N);
          for (; n < upto; n++) f.addInPlace(vals[n]);
          const label = `${fam} cap ${cap} fpr ${fpr} ${upto} values`;
          const [{ g }] = await q(`SELECT cuckoo_add_array(${growSql(cap, fpr)}, ${rowsOf(fam, 1, upto)})::bytea AS g`);
          assert.ok(Buffer.compare(Buffer.from(f.toBytes()), g) === 0, `${label}: bytes differ`);
          for (let j = 0; j < upto; j++) assert.ok(f.contains(vals[j]), `${label}: false negative ${j}`);
        }
        const info = f.info();
        assert.ok(info.growth_rounds >= 4, `${fam} ${cap} ${fpr}: ${JSON.stringify(info)}`);
        if (cap === 100) await goesBack(fam, f, `${fam} cap ${cap} fpr ${fpr} grown`);
      }
    }
  });
}

// start filters for operation sequences: [name, SQL given A(lo, hi), the
// rows lo .. hi surely in it, rows free for new values]
const SEQ_STARTS = [
  ['grow_c100_fpr01', (A) => `cuckoo_add_array(${growSql(100, 0.01)}, ${A(1, 1000)})`, [1, 1000]],
  ['grow_c1000_fpr001', (A) => `cuckoo_add_array(${growSql(1000, 0.001)}, ${A(1, 8000)})`, [1, 8000]],
  ['grow_c10_fpr01_x100', (A) => `cuckoo_add_array(${growSql(10, 0.01)}, ${A(1, 1000)})`, [1, 1000]],
  // g = 1 (keep 1), g = 2 (keep 2 and 3), g = 3 (keep 4 and 7)
  ['rot_keep1', (A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(4000, 0.01), ${A(1, 1500)}), 1), ${A(1501, 2500)})`, [1501, 2500]],
  ['rot_keep2', (A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(4000, 0.01), ${A(1, 1500)}), 2), ${A(1001, 2500)}), 2), ${A(2001, 3000)})`, [1001, 3000]],
  ['rot_keep3_b2', (A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(8000, 0.01, 2, 12), ${A(1, 1500)}), 3), ${A(1001, 2500)}), 3), ${A(2001, 3000)})`, [1, 3000]],
  ['rot_keep4_b8', (A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(4000, 0.01, 8, 11), ${A(1, 1500)}), 4), ${A(1001, 2500)}), 4), ${A(2001, 3000)})`, [1, 3000]],
  ['rot_keep7', (A) => `cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(4000, 0.001), ${A(1, 1500)}), 7), ${A(1001, 2500)}), 7)`, [1, 2500]],
  ['rot_grow_keep2', (A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(${growSql(100, 0.01)}, ${A(1, 1500)}), 2), ${A(1001, 2500)}), 2), ${A(2001, 3000)})`, [1001, 3000]],
  ['rot_grow_keep3_fpr001', (A) => `cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(${growSql(300, 0.001)}, ${A(1, 2000)}), 3), ${A(1001, 4000)}), 3)`, [1, 4000]],
  ['rot_full_b2', (A) => `(xj.fill(cuckoo_rotate(cuckoo_add_array(cuckoo_create(200, 0.01, 2, 12), ${A(1, 150)}), 2), ${A(151, 2000)}, true)).filt`, [1, 150]],
];

// a deterministic operation sequence over the start's rows: adds of new
// rows and of present ones (copies), add_if_absent of present rows (older
// generations: the raise) and new ones, removes of present rows only (a
// remove of an absent value may take a false positive's entry)
function sequence(seed, lo, hi, fresh, n) {
  let s = seed;
  const rnd = () => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return s / 4294967296; };
  const ops = [];
  for (let k = 0; k < n; k++) {
    const x = rnd();
    const old = lo + Math.floor(rnd() * (hi - lo + 1));
    const nw = fresh + Math.floor(rnd() * n);
    if (x < 0.35) ops.push(['a', nw]);
    else if (x < 0.45) ops.push(['a', old]);
    else if (x < 0.6) ops.push(['i', old]);
    else if (x < 0.7) ops.push(['i', nw]);
    else ops.push(['r', x < 0.85 ? old : nw]);
  }
  return ops;
}

for (const fam of ['int8', 'text']) {
  test(`v2 add, addIfAbsent, remove here = the server's: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    const A = (a, b) => rowsOf(fam, a, b);
    let errors = 0, steps = 0;
    for (const [name, make, [lo, hi]] of SEQ_STARTS) {
      const [{ data }] = await q(`SELECT (${make(A)})::bytea AS data`);
      const f = Filter.fromBytes(new Uint8Array(data));
      const label = `${fam} ${name}`;
      // the model: copies of each row added and not removed (the start's sure rows once)
      const have = new Map();
      for (let r = lo; r <= hi; r++) have.set(r, 1);
      const ops = sequence(hi * 7 + name.length, lo, hi, 20001, 2000);
      let done = 0;
      for (const chunk of [ops.slice(0, 700), ops.slice(700, 1400), ops.slice(1400)]) {
        const start = f.toBytes();
        const applied = [];
        for (const [op, row] of chunk) {
          const v = vals[row - 1];
          let err = null, added = false;
          // a remove only of a row the model holds (else it is skipped)
          if (op === 'r' && !(have.get(row) > 0)) continue;
          try {
            if (op === 'a') f.addInPlace(v);
            else if (op === 'i') added = f.addIfAbsentInPlace(v);
            else assert.ok(f.removeInPlace(v), `${label}: remove of present row ${row}`);
          } catch (e) { err = e; }
          if (err) {
            // refused (the server must refuse the same step) and unchanged
            assert.ok(err instanceof FilterFullError, String(err));
            // (the filter here is the server's up to this step: the bytes compared after each chunk)
            let theirs = null;
            try { await q(`SELECT xj.apply($1::bytea::cuckoofilter, $2, ${rowsAt(fam, 3)})`, [Buffer.from(f.toBytes()), [op], [row]]); } catch (e) { theirs = e; }
            sameError(err, theirs, `${label} step ${done + applied.length}`);
            errors++;
            continue;
          }
          applied.push([op, row]);
          if (op === 'a') have.set(row, (have.get(row) || 0) + 1);
          else if (op === 'i') { if (added) have.set(row, 1); }     // (not added: present, or a false positive)
          else have.set(row, have.get(row) - 1);
          if (have.get(row) > 0) assert.ok(f.contains(v), `${label}: false negative after ${op} ${row}`);
        }
        steps += applied.length;
        done += applied.length;
        const [{ g }] = await q(`SELECT xj.apply($1::bytea::cuckoofilter, $2, ${rowsAt(fam, 3)})::bytea AS g`,
          [Buffer.from(start), applied.map((x) => x[0]), applied.map((x) => x[1])]);
        assert.ok(Buffer.compare(Buffer.from(f.toBytes()), g) === 0, `${label}: bytes differ after ${done} steps`);
        for (const [row, n] of have) if (n > 0) assert.ok(f.contains(vals[row - 1]), `${label}: false negative ${row}`);
      }
      if (name === 'grow_c1000_fpr001' || name === 'rot_keep2' || name === 'rot_grow_keep2') await goesBack(fam, f, label);
    }
    assert.ok(steps > 15000 && errors > 0, `${steps} steps, ${errors} refused`);
  });
}

// union here = cuckoo_union: filters of one creation shape grown to other
// sizes (entries re-homed, copied where the target knows more address bits),
// rotated in step, a full one; and the same refusals as the server
const rot2 = (A, s, cap = 4000) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(${cap}, 0.01), ${A(s, s + 1499)}), 2), ${A(s + 1000, s + 2499)}), 2), ${A(s + 2000, s + 2999)})`;
const rotGrow3 = (A, s) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(${growSql(100, 0.001)}, ${A(s, s + 1999)}), 3), ${A(s + 1000, s + 3999)}), 3), ${A(s + 3000, s + 4999)})`;
const UNIONS = [
  // [name, a (null: grown here from empty of b's creation shape over rows aRows), b, rows surely in a, in b]
  ['grow_c100_fpr01', null, (A) => `cuckoo_add_array(${growSql(100, 0.01)}, ${A(2001, 6000)})`, [1, 3000], [2001, 6000], growSql(100, 0.01)],
  ['grow_c1000_fpr001_small_big', null, (A) => `cuckoo_add_array(${growSql(1000, 0.001)}, ${A(1, 20000)})`, [1, 500], [1, 20000], growSql(1000, 0.001)],
  ['grow_c10_fpr01', null, (A) => `cuckoo_add_array(${growSql(10, 0.01)}, ${A(500, 1500)})`, [1, 1000], [500, 1500], growSql(10, 0.01)],
  ['grow_empty', null, (A) => `cuckoo_add_array(${growSql(100, 0.01)}, ${A(1, 2000)})`, [1, 0], [1, 2000], growSql(100, 0.01)],
  ['rot_keep2', (A) => rot2(A, 1, 10000), (A) => rot2(A, 501, 10000), [1001, 3000], [1501, 3500]],
  ['rot_keep2_full', (A) => rot2(A, 1), (A) => rot2(A, 501), [1001, 3000], [1501, 3500]],
  ['rot_grow_keep3', (A) => rotGrow3(A, 1), (A) => rotGrow3(A, 2001), [1, 5000], [2001, 7000]],
  ['rot_full_b2', (A) => `(xj.fill(cuckoo_rotate(cuckoo_add_array(cuckoo_create(200, 0.01, 2, 12), ${A(1, 150)}), 2), ${A(151, 2000)}, true)).filt`,
    (A) => `cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(200, 0.01, 2, 12), ${A(1, 150)}), 2), ${A(3001, 3040)})`, [1, 150], [3001, 3040]],
];

for (const fam of ['int8', 'text']) {
  test(`v2 union here = the server's: ${fam}`, { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
    const vals = await familyValues(fam);
    const A = (a, b) => rowsOf(fam, a, b);
    const refused = [];
    let merged = 0;
    for (const [name, makeA, makeB, ra, rb, empty] of UNIONS) {
      let a;
      if (makeA) a = Filter.fromBytes(new Uint8Array((await q(`SELECT (${makeA(A)})::bytea AS x`))[0].x));
      else {
        a = Filter.fromBytes(new Uint8Array((await q(`SELECT ${empty}::bytea AS x`))[0].x));
        for (let r = ra[0]; r <= ra[1]; r++) a.addInPlace(vals[r - 1]);
      }
      const b = Filter.fromBytes(new Uint8Array((await q(`SELECT (${makeB(A)})::bytea AS x`))[0].x));
      for (const [x, y, label] of [[a, b, `${fam} ${name} a+b`], [b, a, `${fam} ${name} b+a`]]) {
        const before = [x.toText(), y.toText()];
        let mine = null, err = null, theirs = null, serr = null;
        try { mine = x.union(y); } catch (e) { err = e; }
        try {
          [{ u: theirs }] = await q('SELECT cuckoo_union($1::bytea::cuckoofilter, $2::bytea::cuckoofilter)::bytea AS u',
            [Buffer.from(x.toBytes()), Buffer.from(y.toBytes())]);
        } catch (e) { serr = e; }
        assert.deepEqual([x.toText(), y.toText()], before, `${label}: inputs unchanged`);
        if (err || serr) {
          assert.ok(err instanceof FilterFullError, String(err));
          sameError(err, serr, label);
          refused.push(label);
          continue;
        }
        assert.ok(Buffer.compare(Buffer.from(mine.toBytes()), theirs) === 0, `${label}: bytes differ`);
        for (const [lo, hi] of [ra, rb]) for (let r = lo; r <= hi; r++) assert.ok(mine.contains(vals[r - 1]), `${label}: false negative ${r}`);
        merged++;
        if (name === 'grow_c1000_fpr001_small_big' || name === 'rot_grow_keep3') await goesBack(fam, mine, label);
      }
    }
    // (rot_*full: they do not fit; a value of two generations is two entries)
    assert.deepEqual(refused, ['rot_keep2_full a+b', 'rot_keep2_full b+a', 'rot_full_b2 a+b', 'rot_full_b2 b+a'].map((x) => `${fam} ${x}`));
    assert.equal(merged, 12);

    // the refusals: message, detail and SQLSTATE as the server's
    const one = (sql) => q(`SELECT (${sql})::bytea AS x`).then((r) => Filter.fromBytes(new Uint8Array(r[0].x)));
    const g100 = await one(`cuckoo_add_array(${growSql(100, 0.01)}, ${A(1, 50)})`);
    const pairs = [
      ['other capacity', g100, await one(`cuckoo_add_array(${growSql(200, 0.01)}, ${A(1, 50)})`)],
      ['other fpr', g100, await one(`cuckoo_add_array(${growSql(100, 0.001)}, ${A(1, 50)})`)],
      ['growing and fixed', g100, await one(`cuckoo_add_array(cuckoo_create(100, 0.01), ${A(1, 50)})`)],
      ['fixed (version 1) and growing', await one(`cuckoo_add_array(cuckoo_create(100, 0.01), ${A(1, 50)})`), g100],
      ['not rotated in step', await one(rot2(A, 1)), await one(`cuckoo_rotate(${rot2(A, 1)}, 2)`)],
      ['other keep', await one(rot2(A, 1)), await one(`cuckoo_rotate(cuckoo_rotate(cuckoo_create(4000, 0.01), 3), 3)`)],
      ['rotated and version 1', await one(rot2(A, 1)), await one(`cuckoo_add_array(cuckoo_create(4000, 0.01), ${A(1, 50)})`)],
      ['version 1 and rotated', await one(`cuckoo_add_array(cuckoo_create(4000, 0.01), ${A(1, 50)})`), await one(rot2(A, 1))],
      ['kinds', g100, await one(`cuckoo_add(${growSql(100, 0.01)}, ${fam === 'text' ? '1::bigint' : "'x'::text"})`)],
    ];
    for (const [label, x, y] of pairs) {
      let err = null, serr = null;
      try { x.union(y); } catch (e) { err = e; }
      try {
        await q('SELECT cuckoo_union($1::bytea::cuckoofilter, $2::bytea::cuckoofilter)', [Buffer.from(x.toBytes()), Buffer.from(y.toBytes())]);
      } catch (e) { serr = e; }
      assert.ok(err instanceof (label === 'kinds' ? TypeError : RangeError), `${label}: ${err}`);
      sameError(err, serr, `${fam} ${label}`);
    }
  });
}

// rotate here = cuckoo_rotate, for the version-1 shapes (b = 2, 4, 8,
// semi-sorted, full) and the version-2 ones, several keeps; and its refusals
test('v2 rotate here = the server\'s', { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
  await familyValues('int8');
  const rows = await q(`SELECT shape, f::bytea AS data FROM xj.filters WHERE fam = 'int8'
                        UNION ALL SELECT shape, f::bytea FROM xj.filters2 WHERE fam = 'int8' ORDER BY 1`);
  assert.equal(rows.length, 15);
  let refused = 0;
  for (const { shape, data } of rows) {
    const f = Filter.fromBytes(new Uint8Array(data));
    for (const keep of [1, 2, 3, 4, 7, 255]) {
      let mine = null, err = null, theirs = null, serr = null;
      try { mine = f.rotate(keep).toBytes(); } catch (e) { err = e; }
      try { [{ r: theirs }] = await q('SELECT cuckoo_rotate($1::bytea::cuckoofilter, $2)::bytea AS r', [data, keep]); } catch (e) { serr = e; }
      if (err || serr) { sameError(err, serr, `${shape} keep ${keep}`); refused++; continue; }
      assert.ok(Buffer.compare(Buffer.from(mine), theirs) === 0, `${shape} keep ${keep}: bytes differ`);
    }
  }
  assert.ok(refused >= 2, `${refused}`);          // the 32-bit fingerprints: no room for a tag
  for (const keep of [0, 256]) {
    let err = null, serr = null;
    try { Filter.fromBytes(new Uint8Array(rows[0].data)).rotate(keep); } catch (e) { err = e; }
    try { await q('SELECT cuckoo_rotate($1::bytea::cuckoofilter, $2)', [rows[0].data, keep]); } catch (e) { serr = e; }
    sameError(err, serr, `keep ${keep}`);
  }
});

test('a stored filter (1.3) read from its rows answers as cuckoo_store_contains', { skip: !enabled && 'needs a server: PGCUCKOO_SERVER_TESTS=1' }, async () => {
  const vals = await familyValues('int8');
  const n = Math.min(20000, Math.floor(vals.length / 2));
  await q(`SELECT cuckoo_store_create('xj.store_int8', ${n})::text AS s`);
  await q(`SELECT cuckoo_store_add_array('xj.store_int8', ARRAY(SELECT v FROM xj.v_int8 WHERE i <= ${n} ORDER BY i)) AS n`);
  const rows = await q("SELECT segment, f::bytea AS data FROM cuckoo_store_segments('xj.store_int8')");
  const st = new Store(rows.map((r) => [r.segment, new Uint8Array(r.data)]));
  // the chunk rows themselves (1.6), put together by the client: the same filters
  const chunks = await q('SELECT segment, chunk, bytes FROM xj.store_int8');
  const fromChunks = Store.fromChunks(chunks.map((r) => [r.segment, r.chunk, new Uint8Array(r.bytes)]));
  assert.deepEqual(fromChunks.segs.map((f) => Buffer.from(f.toBytes()).toString('hex')),
    st.segs.map((f) => Buffer.from(f.toBytes()).toString('hex')));
  const theirs = (await q(`SELECT string_agg(CASE WHEN cuckoo_store_contains('xj.store_int8', v) THEN '1' ELSE '0' END, ''
                                   ORDER BY i) AS a FROM xj.v_int8`))[0].a;
  const mine = clientAnswers(st, vals);
  assert.equal(mine, theirs);
  assert.equal(mine.slice(0, n), '1'.repeat(n));
});

