"""Stored filters (extension 1.3): probing a store from its rows.

A store made by cuckoo_store_create is a table whose segment = -1 is a
header and whose segments 0 .. S-1 are ordinary cuckoofilter values; a value
belongs to the segment docs/FORMAT.md section 14 names.  From extension 1.6
a segment is kept as chunk rows (segment, chunk, bytes), the filter's bytes
in chunk order; ``SELECT segment, f::bytea FROM cuckoo_store_segments(store)``
returns each segment put together and validated by the server.  Store reads
those rows (or, with Store.from_chunks, the chunk rows themselves) and
answers as cuckoo_store_contains does.
"""
from ._filter import Filter
from ._hash import cuckoo_hash

_M64 = (1 << 64) - 1

#: Bytes of every chunk row of a segment but the last (docs/FORMAT.md section 14).
CHUNK_BYTES = 1984


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

    @classmethod
    def from_chunks(cls, rows):
        """A store from its chunk rows (extension 1.6): (segment, chunk, bytes)
        triples, as ``SELECT segment, chunk, bytes FROM store`` returns them,
        in any order.  Each segment's chunks must be numbered 0, 1, ... with
        no gap and none twice, every one but the last CHUNK_BYTES bytes, the
        last 1 to CHUNK_BYTES, as the server requires (ValueError if not)."""
        chunks = {}
        for seg, chunk, data in rows:
            per = chunks.setdefault(int(seg), {})
            if int(chunk) in per:
                raise ValueError("segment %d: chunk %d given twice" % (seg, chunk))
            per[int(chunk)] = bytes(data)
        out = []
        for seg, per in chunks.items():
            n = len(per)
            if sorted(per) != list(range(n)):
                missing = min(set(range(n)) - set(per))
                raise ValueError("segment %d: chunk %d is missing" % (seg, missing))
            for c in range(n):
                size = len(per[c])
                if not 1 <= size <= CHUNK_BYTES or (c < n - 1 and size != CHUNK_BYTES):
                    raise ValueError("segment %d: chunk %d has %d bytes" % (seg, c, size))
            out.append((seg, b"".join(per[c] for c in range(n))))
        return cls(out)

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
