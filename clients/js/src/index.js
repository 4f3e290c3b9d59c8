// pgcuckoo: read, probe, change and build-compatible PostgreSQL cuckoofilter
// values in JavaScript (format versions 1 and 2, docs/FORMAT.md).  No dependencies;
// runs in Node 20 and in browsers (ES2020: BigInt, TextEncoder).
export { Filter, FilterFullError, FORMAT_VERSION, expectedFpr, build, aggFpBits } from './filter.js';
export { FilterV2 } from './v2.js';
export {
  cuckooHash, uuid, float8, float4, numeric, date, timestamp, timestamptz, text,
  PgValue, KIND, KIND_NAMES,
} from './values.js';
export { xxh3 } from './xxh3.js';
export { Store, storeSegment, STORE_CHUNK_BYTES } from './store.js';
