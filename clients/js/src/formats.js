// The format registry: format version -> the class that reads it.  Each
// format's file registers its class when it is loaded (index.js loads them
// all).  The base class (filter.js, version 1) asks here for the class of a
// version it does not read itself (fromBytes, the header check, union's
// refusal, rotate) instead of importing v2.js, so no file of src/ imports one
// that imports it back.  This file imports none.

/** The format cuckoo_rotate writes, whatever the format of its argument (docs/FORMAT.md 13.8). */
export const ROTATED_VERSION = 2;

const classes = new Map();

/** Records cls as the reader of format version. */
export function registerFormat(version, cls) {
  if (classes.has(version)) throw new Error(`format version ${version} is registered twice`);
  classes.set(version, cls);
}

/** The class that reads format version; the server's RangeError for a version this library does not read. */
export function formatClass(version) {
  const cls = classes.get(version);
  if (cls === undefined) throw new RangeError(`format version ${version} is not supported (this library reads versions 1 and 2)`);
  return cls;
}
