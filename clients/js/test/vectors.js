// Reading clients/vectors/*.json: the server's own answers, shared by every client.
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { uuid, float8, float4, numeric, date, timestamp, timestamptz } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const DIR = process.env.PGCUCKOO_VECTORS || join(here, '..', '..', 'vectors');

export const OTHER_TYPES = new Set(['interval', 'inet']);

/** Whether the vectors include name.json. */
export function has(name) {
  return existsSync(join(DIR, `${name}.json`));
}

export function load(name) {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'));
}

/** The JavaScript value for a value as PostgreSQL printed it; undefined if there is none. */
export function value(type, text) {
  switch (type) {
    case 'int2': case 'int4': case 'int8': {
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : BigInt(text);
    }
    case 'numeric': return numeric(text);
    case 'text': case 'varchar': case 'bpchar': case 'name': return text;
    case 'bytea': return Uint8Array.from(Buffer.from(text, 'hex'));
    case 'uuid': return uuid(text);
    case 'bool': return { true: true, false: false }[text];
    case 'float8': return float8(Number(text.replace(/^(-?)Infinity$/, '$1Infinity')));
    case 'float4': return float4(Number(text));
    default: break;
  }
  if (OTHER_TYPES.has(type) || /infinity/.test(text)) return undefined;
  if (type === 'date') return date(text);
  if (type === 'timestamp') return timestamp(text);
  if (type === 'timestamptz') return timestamptz(text);
  throw new Error(`vector of unknown type ${type}`);
}
