// Stored filters (extension 1.3): probing a store from its rows.  A store made
// by cuckoo_store_create is a table whose row segment = -1 is a header and whose
// rows 0 .. S-1 are ordinary cuckoofilter values; a value belongs to the segment
// docs/FORMAT.md section 14 names.
import { Filter } from './filter.js';
import { cuckooHash } from './values.js';

const M64 = (1n << 64n) - 1n;

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
