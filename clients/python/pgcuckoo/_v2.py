"""Format version 2 (docs/FORMAT.md section 13): growing and rotating filters.

Read-only here: validation as strict as the server's (src/core/cf_v2.c,
cf2_check_header and cf2_validate, the same rules in the same order with the
same wording), lookups (contains, count), info and the two forms.  The
changing operations (add, add_if_absent, remove, union) raise ValueError: a
version-2 filter grows by splitting buckets, copies entries that run out of
address bits, raises the generation of older matches on remove and re-homes
entries on union, and none of that is ported; change such a filter in
PostgreSQL.
"""
import struct

from ._filter import (FLAG_VICTIM, K_BUCKET, K_FP, KIND_MAX, M32, M64, MAX_BYTES, MAX_FP_BITS,
                      MAX_KICKS_LIMIT,
                      MIN_FP_BITS, Filter, expected_fpr, split_buckets, _rd16, _rd32, _rd64)
from ._hash import KIND_ANY, KIND_OTHER, _pack_q, _xxh3

VERSION_2 = 2
HEADER_SIZE_2 = 64
FLAG_GROWS = 0x04
FLAGS_KNOWN_2 = FLAG_VICTIM | FLAG_GROWS
MIN_TAIL_BITS = 2
MAX_TAIL_BITS = 15
MAX_GEN_BITS = 8
ADDR_BITS = 32
MANTISSA_LIMIT = 256

# header offsets (src/core/cf_format.h, CF_V2_HEADER_FIELDS)
OFF_TAIL_BITS, OFF_GEN_BITS = 10, 11
OFF_VICTIM_BUCKET, OFF_VICTIM_SLOT = 40, 44
OFF_MANTISSA, OFF_CUR_GEN, OFF_KEEP, OFF_INITIAL_BUCKETS, OFF_ENTRIES = 48, 50, 51, 52, 56

REFUSAL = ("pgcuckoo reads format-version-2 filters (growing or rotated) but does not change "
           "them: %s them in PostgreSQL")


def _mask(n):
    return (1 << n) - 1


def header_bytes(g):
    return HEADER_SIZE_2 + ((8 << g) if g else 0)


def total_bytes_2(m, b, w, g):
    return header_bytes(g) + (m * b * w + 63) // 64 * 8 + 8


def _log2(x):
    return (x | 1).bit_length() - 1


def check_header_2(buf):
    """cf2_check_header: ValueError naming the first broken rule."""
    n = len(buf)
    if n < HEADER_SIZE_2:
        raise ValueError("%d bytes is shorter than the %d-byte version-2 header" % (n, HEADER_SIZE_2))
    flags = buf[7]
    if flags & ~FLAGS_KNOWN_2:
        raise ValueError("unknown flag bits 0x%02x" % (flags & ~FLAGS_KNOWN_2))
    grows = bool(flags & FLAG_GROWS)
    b, f, t, g = buf[5], buf[6], buf[OFF_TAIL_BITS], buf[OFF_GEN_BITS]
    if b not in (2, 4, 8):
        raise ValueError("bucket size %d is not 2, 4 or 8" % b)
    if grows and b != 4:
        raise ValueError("a growing filter has bucket size 4, not %d" % b)
    if not MIN_FP_BITS <= f <= MAX_FP_BITS:
        raise ValueError("fingerprint size %d is outside the range %d to %d bits"
                         % (f, MIN_FP_BITS, MAX_FP_BITS))
    if t > MAX_TAIL_BITS or (t < MIN_TAIL_BITS if grows else t != 0):
        raise ValueError("tail bits %d do not fit a %s filter" % (t, "growing" if grows else "fixed"))
    if g > MAX_GEN_BITS:
        raise ValueError("generation bits %d exceed %d" % (g, MAX_GEN_BITS))
    w = f + t + g
    if w > 32:
        raise ValueError("slot of %d bits exceeds 32" % w)
    kind, tag = _rd16(buf, 8), _rd32(buf, 12)
    if kind > KIND_MAX:
        raise ValueError("value kind %d is unknown" % kind)
    if (kind == KIND_OTHER) != (tag != 0):
        raise ValueError("type tag %d does not match value kind %d" % (tag, kind))
    kicks = _rd32(buf, 20)
    if kicks > MAX_KICKS_LIMIT:
        raise ValueError("max kicks %d is outside the range 0 to %d" % (kicks, MAX_KICKS_LIMIT))
    c, m, m0 = _rd16(buf, OFF_MANTISSA), _rd32(buf, 16), _rd32(buf, OFF_INITIAL_BUCKETS)
    if c < 1 or c >= MANTISSA_LIMIT:
        raise ValueError("bucket mantissa c = %d is outside the range 1 to %d" % (c, MANTISSA_LIMIT - 1))
    if m < c:
        raise ValueError("bucket count %d is below the mantissa %d" % (m, c))
    k0 = 0
    while (c << (k0 + 1)) <= m0:
        k0 += 1
    if m0 < c or (c << k0) != m0:
        raise ValueError("initial bucket count %d is not c * 2^k for c = %d" % (m0, c))
    cc, _ = split_buckets(m0)
    if cc != c:
        raise ValueError("initial bucket count %d has mantissa %d, not %d" % (m0, cc, c))
    k = 0
    while (c << (k + 1)) <= m:
        k += 1
    if not grows and (c << k) != m:
        raise ValueError("a fixed version-2 filter has c * 2^k buckets, not %d" % m)
    cap = _rd64(buf, 32)
    if cap < 1 or cap > m0 * b:
        raise ValueError("capacity %d is outside the range 1 to %d" % (cap, m0 * b))
    want = total_bytes_2(m, b, w, g)
    if want > MAX_BYTES:
        raise ValueError("a filter of %d buckets would take %d bytes, more than the limit of %d"
                         % (m, want, MAX_BYTES))
    if n != want:
        raise ValueError("length %d does not match the %d bytes that %d buckets need" % (n, want, m))
    cur, keep = buf[OFF_CUR_GEN], buf[OFF_KEEP]
    if cur > _mask(g) or keep > _mask(g):
        raise ValueError("generation %d or keep %d does not fit %d generation bits" % (cur, keep, g))
    if keep == 0 and cur != 0:
        raise ValueError("generation %d without a rotation" % cur)
    entries, items = _rd64(buf, OFF_ENTRIES), _rd64(buf, 24)
    if entries > m * b + 1:
        raise ValueError("entry count %d exceeds the %d slots of the table" % (entries, m * b + 1))
    if items > entries:
        raise ValueError("item count %d exceeds the entry count %d" % (items, entries))
    if g > 0:
        live = keep if keep else 1
        total = 0
        for x in range(1 << g):
            cnt = _rd64(buf, HEADER_SIZE_2 + 8 * x)
            age = (cur - x) & _mask(g)
            if cnt > items or (age >= live and cnt != 0):
                raise ValueError("item count %d of generation %d is inconsistent" % (cnt, x))
            total += cnt
        if total != items:
            raise ValueError("generation item counts sum to %d, not the %d items" % (total, items))
    vb, ve = _rd32(buf, OFF_VICTIM_BUCKET), _rd32(buf, OFF_VICTIM_SLOT)
    if flags & FLAG_VICTIM:
        if vb >= m:
            raise ValueError("victim bucket %d is outside the %d buckets" % (vb, m))
        if (ve & _mask(f)) == 0 or ve > _mask(w):
            raise ValueError("victim slot 0x%x is not a valid %d-bit slot" % (ve, w))
        if entries < 1:
            raise ValueError("victim in use but no entries counted")
    elif vb != 0 or ve != 0:
        raise ValueError("victim fields are set but the victim flag is not")
    if kind == KIND_ANY and entries != 0:
        raise ValueError("a filter with entries must record the kind of value it holds")


def _make_int_probe(flt):
    """This filter's own contains(value) for ints, a closure over its constants.

    The lookup of _contains_hash with the key's hash inlined and each
    bucket's fingerprint fields tested at once (Python ints as wide words):
    y = the bucket XOR fp in every slot, masked to the fingerprint bits;
    (y - lo) & ~y & hi is non-zero exactly when some field is zero (the
    borrows of a zero field only run upward, into the masked-off bits and the
    fields above, so the lowest zero field is always reported).  Only in a
    bucket with a matching fingerprint are the slots' tails compared (none
    when t = 0); a victim goes to _contains_hash.  None for filters of other kinds (a version-2
    filter is never changed here, so its kind is fixed).
    """
    if flt._buf[8] > 1 or flt._buf[9]:
        return None
    buf, general, slow = flt._buf, Filter.contains, flt._contains_hash
    xxh3, pack = _xxh3, _pack_q
    c, k, base, split, rmask, fp_range = flt.c, flt.k, flt.base, flt.split, flt.rmask, flt.fp_range
    B, nb, hdr = flt.B, flt._nbytes, flt.hdr
    lo = sum(1 << (j * flt.w) for j in range(flt.b))
    hi = lo << (flt.f - 1)
    fmask = lo * fp_range
    victim = bool(buf[7] & FLAG_VICTIM)
    frombytes = int.from_bytes

    f, t, w, b, smask, tmask = flt.f, flt.t, flt.w, flt.b, flt._smask, flt._tmask

    def tails(x, fp, ahi):
        # a slot of word x with fingerprint fp whose spare bits are ahi's
        for j in range(b):
            e = (x >> (j * w)) & smask
            if (e & fp_range) == fp:
                tail = (e >> f) & tmask
                if not (tail ^ ahi) & ((1 << (tail.bit_length() - 1)) - 1):
                    return True
        return False

    def probe(value):
        if type(value) is not int:
            return general(flt, value)
        try:
            h = xxh3(pack(value))
        except struct.error:
            return general(flt, value)      # outside bigint: its error
        fp = 1 + (((h & 0xFFFFFFFF) * fp_range) >> 32)
        fpx = fp * lo
        a = h >> 32
        q = ((((h * 0x9E3779B97F4A7C15) >> 32) & 0xFFFFFFFF) * c) >> 32
        i = (a & rmask) * c + q
        r = k
        if i < split:
            i += ((a >> k) & 1) * base
            r = k + 1
        pos = i * B
        o = hdr + (pos >> 3)
        x = frombytes(buf[o:o + nb], "little") >> (pos & 7)
        y = (x ^ fpx) & fmask
        if (y - lo) & ~y & hi and (not t or tails(x, fp, a >> r)):
            return True
        G = (fp * 0xC2B2AE3D27D4EB4F) & 0xFFFFFFFFFFFFFFFF
        G ^= G >> 29
        q = (((G & 0xFFFFFFFF) * c) >> 32) - q
        if q < 0:
            q += c
        a ^= G >> 32
        i = (a & rmask) * c + q
        r = k
        if i < split:
            i += ((a >> k) & 1) * base
            r = k + 1
        pos = i * B
        o = hdr + (pos >> 3)
        x = frombytes(buf[o:o + nb], "little") >> (pos & 7)
        y = (x ^ fpx) & fmask
        if (y - lo) & ~y & hi and (not t or tails(x, fp, a >> r)):
            return True
        return victim and slow(h)
    probe.__doc__ = general.__doc__
    return probe


class FilterV2(Filter):
    """A format-version-2 cuckoofilter value (growing or rotated): read-only."""

    version = VERSION_2

    def __init__(self, buf):
        # buf: a bytearray that has passed check_header_2
        self._buf = buf
        self.b, self.f = buf[5], buf[6]
        self.t, self.g = buf[OFF_TAIL_BITS], buf[OFF_GEN_BITS]
        self.w = self.f + self.t + self.g
        self.grows = bool(buf[7] & FLAG_GROWS)
        self.m = _rd32(buf, 16)
        self.c = _rd16(buf, OFF_MANTISSA)
        k = 0
        while (self.c << (k + 1)) <= self.m:
            k += 1
        self.k = k
        self.base = self.c << k             # c * 2^k
        self.split = self.m - self.base     # the split pointer p
        self.rmask = _mask(k)
        self.hdr = header_bytes(self.g)
        self.semisort = False
        self.fp_range = _mask(self.f)
        self.B = self.b * self.w
        self._nbytes = (7 + self.B + 7) // 8
        self._bmask = _mask(self.B)
        self._smask = _mask(self.w)
        self._tmask = _mask(self.t)
        self._gmask = _mask(self.g)
        probe = _make_int_probe(self)
        if probe is not None:
            self.contains = probe        # shadows the method for this filter

    # ---- header ----

    @property
    def entries(self):
        return _rd64(self._buf, OFF_ENTRIES)

    def info(self):
        """The columns of SQL cuckoo_info(f), as a dict."""
        buf = self._buf
        items, entries = self.items, self.entries
        load = (entries - (1 if self.victim_used else 0)) / (self.m * self.b)
        nbytes = len(buf) + 4
        m0 = _rd32(buf, OFF_INITIAL_BUCKETS)
        k0 = 0
        while (self.c << (k0 + 1)) <= m0:
            k0 += 1
        rounds = self.k - k0
        fpr = expected_fpr(self.b, self.f, load)
        if self.t > 0:
            fpr = min(1.0, fpr * (rounds + 2.0) * 2.0 ** -self.t)
        cur, keep = buf[OFF_CUR_GEN], buf[OFF_KEEP]
        if self.g == 0:
            gen_items = [items]
        else:
            gen_items = [_rd64(buf, HEADER_SIZE_2 + 8 * ((cur - age) & self._gmask))
                         for age in range(keep if keep else 1)]
        return {
            "buckets": self.m,
            "bucket_size": self.b,
            "fingerprint_bits": self.f,
            "semisort": False,
            "items": items,
            "capacity": self.capacity,
            "load_factor": load,
            "bytes": nbytes,
            "bits_per_item": nbytes * 8.0 / items if items > 0 else None,
            "expected_fpr": fpr,
            "value_type": self.kind_name,
            "max_kicks": self.max_kicks,
            "is_full": self.victim_used,
            "format_version": VERSION_2,
            "expansion": 2 if self.grows else 0,
            "tail_bits": self.t,
            "initial_buckets": m0,
            "growth_rounds": rounds,
            "split_pointer": self.split,
            "entries": entries,
            "generation_bits": self.g,
            "generation": cur,
            "keep": keep,
            "generation_items": gen_items,
        }

    def __repr__(self):
        return "<pgcuckoo.Filter v2 %s items=%d buckets=%d b=%d f=%d t=%d g=%d>" % (
            self.kind_name, self.items, self.m, self.b, self.f, self.t, self.g)

    # ---- slots ----

    def _bucket(self, i):
        """Bucket i's b * w bits as an int."""
        pos = i * self.B
        o = self.hdr + (pos >> 3)
        return (int.from_bytes(self._buf[o:o + self._nbytes], "little") >> (pos & 7)) & self._bmask

    def _slots(self, i):
        x, w, sm = self._bucket(i), self.w, self._smask
        return [(x >> (j * w)) & sm for j in range(self.b)]

    def _res(self, i):
        return self.k + (1 if (i < self.split or i >= self.base) else 0)

    def _locate2(self, q, a):
        """Bucket of address (q, a) and its resolution."""
        i0 = (a & self.rmask) * self.c + q
        if i0 < self.split:
            return i0 + ((a >> self.k) & 1) * self.base, self.k + 1
        return i0, self.k

    def _parts(self, h):
        """fp, q, a, q', a' of a hash (section 13.4)."""
        c = self.c
        fp = 1 + (((h & M32) * self.fp_range) >> 32)
        q = ((((h * K_BUCKET) & M64) >> 32) * c) >> 32
        a = h >> 32
        G = (fp * K_FP) & M64
        G ^= G >> 29
        q2 = ((((G & M32) * c) >> 32) - q) % c
        return fp, q, a, q2, a ^ (G >> 32)

    def _match(self, e, fp, ahi):
        """Entry e matches fp and the address bits ahi above its bucket's resolution."""
        if (e & self.fp_range) != fp:
            return False
        tail = (e >> self.f) & self._tmask
        return ((tail ^ ahi) & (_mask(_log2(tail)))) == 0

    def _matches(self, i, fp, ahi):
        """Bit set of bucket i's slots that match."""
        hit = 0
        for j, e in enumerate(self._slots(i)):
            if self._match(e, fp, ahi):
                hit |= 1 << j
        return hit

    def _victim(self):
        if not self._buf[7] & FLAG_VICTIM:
            return None
        return _rd32(self._buf, OFF_VICTIM_BUCKET), _rd32(self._buf, OFF_VICTIM_SLOT)

    def _victim_matches(self, fp, a, a2, i1, r1, i2, r2):
        v = self._victim()
        if v is None:
            return False
        vb, ve = v
        return ((vb == i1 and self._match(ve, fp, a >> r1))
                or (vb == i2 and self._match(ve, fp, a2 >> r2)))

    # ---- lookups ----

    def _contains_hash(self, h):
        fp, q, a, q2, a2 = self._parts(h)
        i1, r1 = self._locate2(q, a)
        if self._matches(i1, fp, a >> r1):
            return True
        i2, r2 = self._locate2(q2, a2)
        if self._matches(i2, fp, a2 >> r2):
            return True
        return self._victim_matches(fp, a, a2, i1, r1, i2, r2)

    def contains(self, value):
        """May value be in the filter?  (SQL cuckoo_contains.)"""
        if type(value) is int and self._buf[8] < 2 and not self._buf[9]:
            try:
                return self._contains_hash(_xxh3(_pack_q(value)))
            except struct.error:
                pass          # outside bigint: _hash_for says so
        return self._contains_hash(self._hash_for(value)[1])

    __contains__ = contains

    def contains_many(self, values):
        """[contains(v) for v in values]."""
        probe = self.__dict__.get("contains")
        if probe is not None:
            return list(map(probe, values))      # this filter's own contains
        return [self._contains_hash(self._hash_for(v)[1]) for v in values]

    def count(self, value):
        """Matching entries (an upper bound on the copies of value; SQL cuckoo_count)."""
        fp, q, a, q2, a2 = self._parts(self._hash_for(value)[1])
        i1, r1 = self._locate2(q, a)
        i2, r2 = self._locate2(q2, a2)
        if i1 == i2:
            # one bucket for both: an entry may be stored under either address
            n = bin(self._matches(i1, fp, a >> r1) | self._matches(i1, fp, a2 >> r2)).count("1")
        else:
            n = (bin(self._matches(i1, fp, a >> r1)).count("1")
                 + bin(self._matches(i2, fp, a2 >> r2)).count("1"))
        return n + (1 if self._victim_matches(fp, a, a2, i1, r1, i2, r2) else 0)

    # ---- changes: refused ----

    def _refuse(self, what):
        raise ValueError(REFUSAL % what)

    def add(self, value):
        self._refuse("add")

    def add_if_absent(self, value):
        self._refuse("add")

    def remove(self, value):
        self._refuse("remove")

    def add_in_place(self, value):
        self._refuse("add")

    def add_if_absent_in_place(self, value):
        self._refuse("add")

    def remove_in_place(self, value):
        self._refuse("remove")

    def union(self, other):
        self._refuse("union")

    def _copy(self):
        return FilterV2(bytearray(self._buf))

    # ---- validation (cf2_validate, after the header) ----

    def _known(self, i, e):
        """The low L address bits entry e of bucket i knows: (bits, L)."""
        res = self._res(i)
        r = i // self.c
        if self.t == 0:
            return r, res
        tail = (e >> self.f) & self._tmask
        s = _log2(tail)
        return (r | ((tail ^ (1 << s)) << res)) & M32, res + s

    def _alt_bucket(self, i, e):
        """The other bucket of entry e of bucket i; None if it cannot be named."""
        fp = e & self.fp_range
        a, L = self._known(i, e)
        q = i % self.c
        G = (fp * K_FP) & M64
        G ^= G >> 29
        q2 = ((((G & M32) * self.c) >> 32) - q) % self.c
        a2 = (a ^ (G >> 32)) & _mask(L)
        j0 = (a2 & self.rmask) * self.c + q2
        if j0 < self.split:
            if L < self.k + 1:
                return None
            j0 += ((a2 >> self.k) & 1) * self.base
        return j0

    def _slot_ok(self, i, e, live, cur):
        if (e & self.fp_range) == 0:
            raise ValueError("bucket %d holds a slot 0x%x with a zero fingerprint" % (i, e))
        if self.t:
            tail = (e >> self.f) & self._tmask
            if tail == 0:
                raise ValueError("bucket %d holds a slot 0x%x without a tail" % (i, e))
            if self._res(i) + _log2(tail) > ADDR_BITS:
                raise ValueError("bucket %d holds a slot 0x%x with more than %d address bits"
                                 % (i, e, ADDR_BITS))
        gen = (e >> (self.f + self.t)) & self._gmask
        if ((cur - gen) & self._gmask) >= live:
            raise ValueError("bucket %d holds a slot 0x%x of a dropped generation" % (i, e))

    def _validate_table(self):
        buf = self._buf
        keep, cur = buf[OFF_KEEP], buf[OFF_CUR_GEN]
        live = keep if keep else 1
        count = 0
        w, sm, b = self.w, self._smask, self.b
        for i in range(self.m):
            x = self._bucket(i)
            if not x:
                continue
            for j in range(b):
                e = (x >> (j * w)) & sm
                if e:
                    self._slot_ok(i, e, live, cur)
                    count += 1
        used = self.m * self.B
        end_bits = (len(buf) - self.hdr) * 8
        if used < end_bits:
            first = self.hdr + (used >> 3)
            if buf[first] >> (used & 7) or any(buf[first + 1:]):
                raise ValueError("padding after the bucket array is not zero")
        v = self._victim()
        if v is not None:
            vb, ve = v
            self._slot_ok(vb, ve, live, cur)
            count += 1
            alt = self._alt_bucket(vb, ve)
            if 0 in self._slots(vb) or (alt is not None and 0 in self._slots(alt)):
                raise ValueError("victim slot is in use although its buckets have room")
        if count != self.entries:
            raise ValueError("entry count %d disagrees with the %d occupied slots"
                             % (self.entries, count))
