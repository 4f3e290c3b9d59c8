// The layout of src/: its files import one another without a circle, and the
// base class (filter.js) reaches the other formats only through the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Filter, FilterV2 } from '../src/index.js';
import { formatClass } from '../src/formats.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

// the files of src/ a file imports: static imports, re-exports and dynamic import()
function imports(name) {
  const text = readFileSync(join(src, name), 'utf8');
  const out = new Set();
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]\.\/([^'"]+)['"]/g)) out.add(m[1]);
  return out;
}

function graph() {
  const names = readdirSync(src).filter((n) => n.endsWith('.js'));
  assert.ok(names.includes('filter.js') && names.includes('v2.js') && names.includes('formats.js'));
  return new Map(names.map((n) => [n, imports(n)]));
}

function reach(g, start) {
  const seen = new Set();
  const todo = [...(g.get(start) || [])];
  while (todo.length) {
    const n = todo.pop();
    if (!seen.has(n)) { seen.add(n); todo.push(...(g.get(n) || [])); }
  }
  return seen;
}

test('no import circle among the files of src/', () => {
  const g = graph();
  for (const n of g.keys()) assert.ok(!reach(g, n).has(n), `${n} imports itself through ${[...reach(g, n)]}`);
});

test('the base class does not import the version-2 file', () => {
  const g = graph();
  assert.ok(!reach(g, 'filter.js').has('v2.js'));
  assert.equal(g.get('formats.js').size, 0);
  assert.ok(g.get('v2.js').has('filter.js'));
});

test('the registry holds both formats and refuses the others', () => {
  assert.equal(formatClass(1), Filter);
  assert.equal(formatClass(2), FilterV2);
  for (const v of [0, 3, 255]) {
    assert.throws(() => formatClass(v), { name: 'RangeError', message: `format version ${v} is not supported (this library reads versions 1 and 2)` });
  }
});
