"""Stored filters (extension 1.3): probing a store from its rows.

A store made by cuckoo_store_create is a table whose row segment = -1 is a
header and whose rows 0 .. S-1 are ordinary cuckoofilter values; a value
belongs to the segment docs/FORMAT.md section 14 names.  Store reads the
rows of ``SELECT segment, f::bytea FROM store`` and answers as
cuckoo_store_contains does.
"""
from ._filter import Filter
from ._hash import cuckoo_hash

_M64 = (1 << 64) - 1


def store_segment(h, segments):
    """The segment (0 .. segments - 1) that holds the value of hash h in a
    store of `segments` segments (docs/FORMAT.md section 14)."""
    if not 1 <= segments <= 0xFFFFFFFF:
        raise ValueError("a store has 1 to 2^32 - 1 segments, not %r" % (segments,))
    x = h & _M64
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & _M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & _M64
    x ^= x >> 33
    return ((x >> 32) * segments) >> 32


class Store:
    """A stored filter from its rows: (segment, f) pairs, f as bytes or Filter.

    The segments must be 0 .. S-1, each once; the header row (-1), if given,
    makes a value of another type than the store's raise TypeError even when
    its segment is still empty, as the server does.
    """

    def __init__(self, rows):
        segs = {}
        self._header = None
        for seg, f in rows:
            flt = f if isinstance(f, Filter) else Filter.from_bytes(f)
            if seg == -1:
                self._header = flt
            elif seg in segs:
                raise ValueError("segment %d given twice" % seg)
            else:
                segs[seg] = flt
        if not segs or sorted(segs) != list(range(len(segs))):
            raise ValueError("a store's segments are 0 .. S-1, each once")
        self._segs = [segs[i] for i in range(len(segs))]

    @property
    def segments(self):
        """S, the number of segments."""
        return len(self._segs)

    def segment_of(self, value):
        """The segment that holds value."""
        return store_segment(cuckoo_hash(value), len(self._segs))

    def contains(self, value):
        """May value be in the store?  (SQL cuckoo_store_contains.)"""
        if self._header is not None:
            self._header.contains(value)      # an empty filter: the type check alone
        return self._segs[self.segment_of(value)].contains(value)

    __contains__ = contains

    def contains_many(self, values):
        """[contains(v) for v in values]."""
        return [self.contains(v) for v in values]
