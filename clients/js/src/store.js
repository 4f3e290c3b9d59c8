// Stored filters (extension 1.3): probing a store from its rows.  A store made
// by cuckoo_store_create is a table whose segment = -1 is a header and whose
// segments 0 .. S-1 are ordinary cuckoofilter values; a value belongs to the
// segment docs/FORMAT.md section 14 names.  From extension 1.6 a segment is
// kept as chunk rows (segment, chunk, bytes), its bytes in chunk order:
// `SELECT segment, f::bytea FROM cuckoo_store_segments(store)` returns the
// segments put together by the server, Store.fromChunks the chunk rows.
import { Filter } from './filter.js';
import { cuckooHash } from './values.js';

const M64 = (1n << 64n) - 1n;

/** Bytes of every chunk row of a segment but the last (docs/FORMAT.md section 14). */
export const STORE_CHUNK_BYTES = 1984;

/** The segment (0 .. segments - 1) that holds the value of hash h (a BigInt) in a
 *  store of `segments` segments (docs/FORMAT.md section 14). */
export function storeSegment(h, segments) {
  if (!Number.isInteger(segments) || segments < 1 || segments > 0xFFFFFFFF) {
    throw new RangeError(`a store has 1 to 2^32 - 1 segments, not ${segments}`);
  }
  let x = BigInt(h) & M64;
  x ^= x >> 33n;
  x = (x * 0xFF51AFD7ED558CCDn) & M64;
  x ^= x >> 33n;
  x = (x * 0xC4CEB9FE1A85EC53n) & M64;
  x ^= x >> 33n;
  return Number(((x >> 32n) * BigInt(segments)) >> 32n);
}

/** A stored filter from its rows: [segment, f] pairs, f as bytes or a Filter.
 *  The segments must be 0 .. S-1, each once; the header row (-1), if given,
 *  makes a value of another type raise TypeError even where its segment is empty. */
export class Store {
  constructor(rows) {
    const segs = new Map();
    this.header = null;
    for (const [seg, f] of rows) {
      const flt = f instanceof Filter ? f : Filter.fromBytes(f);
      if (Number(seg) === -1) this.header = flt;
      else if (segs.has(Number(seg))) throw new RangeError(`segment ${seg} given twice`);
      else segs.set(Number(seg), flt);
    }
    this.segs = [];
    for (let i = 0; i < segs.size; i++) {
      if (!segs.has(i)) throw new RangeError("a store's segments are 0 .. S-1, each once");
      this.segs.push(segs.get(i));
    }
    if (this.segs.length === 0) throw new RangeError('a store has at least one segment');
  }

  /** A store from its chunk rows (1.6): [segment, chunk, bytes] triples in any
   *  order.  Each segment's chunks must be numbered 0, 1, ... with no gap and
   *  none twice, every one but the last STORE_CHUNK_BYTES bytes, the last 1 to
   *  STORE_CHUNK_BYTES, as the server requires (RangeError if not). */
  static fromChunks(rows) {
    const segs = new Map();
    for (const [seg, chunk, data] of rows) {
      const s = Number(seg);
      const c = Number(chunk);
      if (!segs.has(s)) segs.set(s, new Map());
      const per = segs.get(s);
      if (per.has(c)) throw new RangeError(`segment ${s}: chunk ${c} given twice`);
      per.set(c, data instanceof Uint8Array ? data : new Uint8Array(data));
    }
    const out = [];
    for (const [s, per] of segs) {
      const n = per.size;
      let len = 0;
      for (let c = 0; c < n; c++) {
        if (!per.has(c)) throw new RangeError(`segment ${s}: chunk ${c} is missing`);
        const size = per.get(c).length;
        if (size < 1 || size > STORE_CHUNK_BYTES || (c < n - 1 && size !== STORE_CHUNK_BYTES)) {
          throw new RangeError(`segment ${s}: chunk ${c} has ${size} bytes`);
        }
        len += size;
      }
      const bytes = new Uint8Array(len);
      for (let c = 0, off = 0; c < n; c++) {
        bytes.set(per.get(c), off);
        off += per.get(c).length;
      }
      out.push([s, bytes]);
    }
    return new Store(out);
  }

  /** S, the number of segments. */
  get segments() { return this.segs.length; }

  /** The segment that holds value. */
  segmentOf(value) { return storeSegment(cuckooHash(value), this.segs.length); }

  /** May value be in the store?  (SQL cuckoo_store_contains.) */
  contains(value) {
    if (this.header !== null) this.header.contains(value);   // an empty filter: the type check
    return this.segs[this.segmentOf(value)].contains(value);
  }
}
