"""Format version 2 (docs/FORMAT.md section 13): growing and rotating filters.

Validation as strict as the server's (src/core/cf_v2_*.c, cf2_check_header
and cf2_validate: the same rules in the same order with the same wording),
lookups (contains, count), info, the two forms, and the changes (add,
add_if_absent, remove, union, rotate): a port of cf_v2_*.c step for step
(growth by bucket splits with the copies of entries out of address bits,
the kick walk and its victim, the remove rule and its generation raise,
union's re-homing, rotation), so that a sequence of operations gives the
bytes the server gives (docs/FORMAT.md 13.6 to 13.9), and the address
budget (13.12, flag 0x08: entries capped at A address bits, the table
narrowed at the end of each round, unions counted over the bucket pair),
with create_growing making such a filter as cuckoo_create(..., expansion
=> 2) does.
"""
import functools
import math
import struct

from . import _formats
from ._filter import (DEFAULT_KICKS, EXISTS, FLAG_VICTIM, FULL, K_BUCKET, K_FP, KIND_MAX, M32, M64, MAX_BYTES,
                      MAX_FP_BITS, MAX_KICKS_LIMIT, MIN_FP_BITS, OK, OK_STASHED, TOO_MANY_COPIES,
                      Filter, FilterFullError, expected_fpr, kind_name, round_buckets, split_buckets, _Rng, _load64, _rd16,
                      _rd32, _rd64, _rng_seed, _wr32, _wr64)
from ._hash import KIND_ANY, KIND_OTHER, _pack_q, _xxh3

VERSION_2 = 2
HEADER_SIZE_2 = 64
FLAG_GROWS = 0x04
FLAG_BUDGET = 0x08          # the address budget (docs/FORMAT.md 13.12); only with FLAG_GROWS
FLAGS_KNOWN_2 = FLAG_VICTIM | FLAG_GROWS | FLAG_BUDGET
MIN_TAIL_BITS = 2
MAX_TAIL_BITS = 15
MAX_GEN_BITS = 8
ADDR_BITS = 32
MANTISSA_LIMIT = 256

# header offsets (src/core/cf_format.h, CF_V2_HEADER_FIELDS)
OFF_TAIL_BITS, OFF_GEN_BITS = 10, 11
OFF_VICTIM_BUCKET, OFF_VICTIM_SLOT = 40, 44
OFF_MANTISSA, OFF_CUR_GEN, OFF_KEEP, OFF_INITIAL_BUCKETS, OFF_ENTRIES = 48, 50, 51, 52, 56


def _mask(n):
    return (1 << n) - 1


def header_bytes(g):
    return HEADER_SIZE_2 + ((8 << g) if g else 0)


def total_bytes_2(m, b, w, g):
    return header_bytes(g) + (m * b * w + 63) // 64 * 8 + 8


def _log2(x):
    return (x | 1).bit_length() - 1


def addr_budget(c):
    """A = 32 - bitlen(c): the address bits every entry of an address-budget
    filter of mantissa c knows (docs/FORMAT.md 13.12)."""
    return ADDR_BITS - c.bit_length()


def budget_tail(c, k, f, g):
    """T(k) = min(A - k + 1, 32 - f - g): the tail bits of an address-budget
    filter at round k (may be below 2: then no such filter exists)."""
    return min(addr_budget(c) - k + 1, 32 - f - g)


def check_header_2(buf):
    """cf2_check_header: ValueError naming the first broken rule."""
    n = len(buf)
    if n < HEADER_SIZE_2:
        raise ValueError("%d bytes is shorter than the %d-byte version-2 header" % (n, HEADER_SIZE_2))
    flags = buf[7]
    if flags & ~FLAGS_KNOWN_2:
        raise ValueError("unknown flag bits 0x%02x" % (flags & ~FLAGS_KNOWN_2))
    grows = bool(flags & FLAG_GROWS)
    budget = bool(flags & FLAG_BUDGET)
    if budget and not grows:
        raise ValueError("the address budget flag is set on a filter that does not grow")
    b, f, t, g = buf[5], buf[6], buf[OFF_TAIL_BITS], buf[OFF_GEN_BITS]
    if b not in (2, 4, 8):
        raise ValueError("bucket size %d is not 2, 4 or 8" % b)
    if grows and b != 4:
        raise ValueError("a growing filter has bucket size 4, not %d" % b)
    if not MIN_FP_BITS <= f <= MAX_FP_BITS:
        raise ValueError("fingerprint size %d is outside the range %d to %d bits"
                         % (f, MIN_FP_BITS, MAX_FP_BITS))
    if (t > MAX_TAIL_BITS and not budget) or (t < MIN_TAIL_BITS if grows else t != 0):
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
    if budget and t != budget_tail(c, k, f, g):
        raise ValueError("tail bits %d differ from the %d that the address budget gives at round %d"
                         % (t, budget_tail(c, k, f, g), k))
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


_INT_PROBE_MAX_F = 14      # the alternate-bucket table: 2^f entries
_WORDS_MAX_BUCKETS = 1 << 14   # the list of bucket words (about 40 bytes a bucket): in cache


@functools.lru_cache(maxsize=32)
def _alt_table_2(c, f, lo):
    """Per fingerprint fp (at index fp - 1): (the alternate bucket's hashed
    quotient, the 32 bits the address word is XORed with, fp in every slot's
    fingerprint field: fp * lo); shared by the filters of one shape."""
    tab = [None] * ((1 << f) - 1)
    for fp in range(1, 1 << f):
        g = (fp * K_FP) & M64
        g ^= g >> 29
        tab[fp - 1] = ((((g & M32) * c) >> 32), g >> 32, fp * lo)
    return tab


def _make_int_probe(flt):
    """This filter's own contains(value) for ints, a closure over its constants.

    The lookup of _contains_hash with the key's hash inlined and each
    bucket's fingerprint fields tested at once (Python ints as wide words):
    y = the bucket XOR fp in every slot, masked to the fingerprint bits;
    (y - lo) & ~y & hi is non-zero exactly when some field is zero (the
    borrows of a zero field only run upward, into the masked-off bits and the
    fields above, so the lowest zero field is always reported).  Only in a
    bucket with a matching fingerprint are the slots' tails compared (none
    when t = 0); a victim goes to _contains_hash.  When a bucket at any of
    its bit offsets fits one 64-bit load (b * w plus the largest offset,
    8 - gcd(b * w, 8), at most 64 bits) and f <= 14, the alternate bucket's
    arithmetic comes from a per-shape table (_alt_table_2) and the bucket
    from one struct load; else the general arithmetic.  Made anew after every
    change of the filter (FilterV2._refresh): its constants are the
    filter's geometry of the moment.  None for filters of other kinds.
    """
    if flt._buf[8] > 1 or flt._buf[9]:
        return None
    buf, general, slow = flt._buf, Filter.contains, flt._contains_hash
    xxh3, pack, load = _xxh3, _pack_q, _load64
    c, k, base, split, rmask, fp_range = flt.c, flt.k, flt.base, flt.split, flt.rmask, flt.fp_range
    B, nb, hdr = flt.B, flt._nbytes, flt.hdr
    lo = sum(1 << (j * flt.w) for j in range(flt.b))
    hi = lo << (flt.f - 1)
    fmask = lo * fp_range
    victim = bool(buf[7] & FLAG_VICTIM)
    frombytes = int.from_bytes

    f, t, w, b, smask, tmask = flt.f, flt.t, flt.w, flt.b, flt._smask, flt._tmask
    shifts = tuple(j * w for j in range(b))

    def tails(x, fp, ahi):
        # a slot of word x with fingerprint fp whose spare bits are ahi's
        for sh in shifts:
            e = x >> sh
            if (e & fp_range) == fp:
                tail = (e >> f) & tmask
                if not (tail ^ ahi) & ((1 << (tail.bit_length() - 1)) - 1):
                    return True
        return False

    if f <= _INT_PROBE_MAX_F and flt.m <= _WORDS_MAX_BUCKETS:
        # a small table: every bucket's word in a list (flt._words, kept up
        # to date by the changes), made after m / 2 lookups: an index instead
        # of a load
        tab = []
        words = flt._words
        if words is None:
            words = flt._words = []
        narrow = B + 8 - math.gcd(B, 8) <= 64      # a bucket fits one 64-bit load
        bmask = flt._bmask
        m = flt.m
        warm = m // 2 + 1

        def table():
            tab.extend(_alt_table_2(c, f, lo))
            return tab

        def word(i):
            # bucket i's word, until the list of words is made: after m / 2
            # lookups of this filter (the list costs about as much to make)
            n = flt._lookups = flt._lookups + 1
            if n == warm:
                bucket = flt._bucket
                words.extend([bucket(j) for j in range(m)])
                return words[i]
            pos = i * B
            o = hdr + (pos >> 3)
            if narrow:
                return (load(buf, o)[0] >> (pos & 7)) & bmask
            return (frombytes(buf[o:o + nb], "little") >> (pos & 7)) & bmask

        def probe(value):
            if type(value) is not int:
                return general(flt, value)
            try:
                h = xxh3(pack(value))
            except struct.error:
                return general(flt, value)      # outside bigint: its error
            hq, gx, fpx = (tab or table())[((h & 0xFFFFFFFF) * fp_range) >> 32]   # fp - 1
            a = h >> 32
            # bits 32 .. 63 of the 64-bit product, times c, >> 32
            q = (((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFF00000000) * c) >> 64
            i = (a & rmask) * c + q
            if i < split:
                r = k + 1
                if (a >> k) & 1:
                    i += base
            else:
                r = k
            x = words[i] if words else word(i)
            y = (x ^ fpx) & fmask
            z = (y - lo) & ~y & hi
            if z:
                if not t:
                    return True
                # the lowest flagged field is a true match: its tail first
                tail = (x >> (z & -z).bit_length()) & tmask
                if not (tail ^ (a >> r)) & ((1 << (tail.bit_length() - 1)) - 1):
                    return True
                if tails(x, fpx & fp_range, a >> r):
                    return True
            q = hq - q
            if q < 0:
                q += c
            a ^= gx
            i = (a & rmask) * c + q
            if i < split:
                r = k + 1
                if (a >> k) & 1:
                    i += base
            else:
                r = k
            x = words[i] if words else word(i)
            y = (x ^ fpx) & fmask
            z = (y - lo) & ~y & hi
            if z:
                if not t:
                    return True
                tail = (x >> (z & -z).bit_length()) & tmask
                if not (tail ^ (a >> r)) & ((1 << (tail.bit_length() - 1)) - 1):
                    return True
                if tails(x, fpx & fp_range, a >> r):
                    return True
            return victim and slow(h)
        probe.__doc__ = general.__doc__
        return probe

    if f <= _INT_PROBE_MAX_F and B + 8 - math.gcd(B, 8) <= 64:
        # a bucket at any of its bit offsets fits one 64-bit load
        tab = []
        aligned = B % 8 == 0            # every bucket starts on a byte
        Bb = B >> 3
        def table():
            tab.extend(_alt_table_2(c, f, lo))
            return tab

        def probe(value):
            if type(value) is not int:
                return general(flt, value)
            try:
                h = xxh3(pack(value))
            except struct.error:
                return general(flt, value)      # outside bigint: its error
            hq, gx, fpx = (tab or table())[((h & 0xFFFFFFFF) * fp_range) >> 32]   # fp - 1
            a = h >> 32
            # bits 32 .. 63 of the 64-bit product, times c, >> 32
            q = (((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFF00000000) * c) >> 64
            i = (a & rmask) * c + q
            if i < split:
                r = k + 1
                if (a >> k) & 1:
                    i += base
            else:
                r = k
            if aligned:
                x = load(buf, hdr + i * Bb)[0]
            else:
                pos = i * B
                x = load(buf, hdr + (pos >> 3))[0] >> (pos & 7)
            y = (x ^ fpx) & fmask
            z = (y - lo) & ~y & hi
            if z:
                if not t:
                    return True
                # the lowest flagged field is a true match: its tail first
                tail = (x >> (z & -z).bit_length()) & tmask
                if not (tail ^ (a >> r)) & ((1 << (tail.bit_length() - 1)) - 1):
                    return True
                if tails(x, fpx & fp_range, a >> r):
                    return True
            q = hq - q
            if q < 0:
                q += c
            a ^= gx
            i = (a & rmask) * c + q
            if i < split:
                r = k + 1
                if (a >> k) & 1:
                    i += base
            else:
                r = k
            if aligned:
                x = load(buf, hdr + i * Bb)[0]
            else:
                pos = i * B
                x = load(buf, hdr + (pos >> 3))[0] >> (pos & 7)
            y = (x ^ fpx) & fmask
            z = (y - lo) & ~y & hi
            if z:
                if not t:
                    return True
                tail = (x >> (z & -z).bit_length()) & tmask
                if not (tail ^ (a >> r)) & ((1 << (tail.bit_length() - 1)) - 1):
                    return True
                if tails(x, fpx & fp_range, a >> r):
                    return True
            return victim and slow(h)
        probe.__doc__ = general.__doc__
        return probe

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


def _lazy_int_probe(flt):
    """This filter's own contains for ints, made by _make_int_probe at its
    first call (after a change: a run of changes, such as adds in a loop,
    makes no probe it does not use); None for filters of other kinds.  Made
    anew with the filter's geometry of the moment after every change, as
    before, only later."""
    if flt._buf[8] > 1 or flt._buf[9]:
        return None
    made = []

    def resolve():
        if not made:
            made.append(_make_int_probe(flt))
            if flt.__dict__.get("contains") is probe:
                flt.contains = made[0]      # later calls skip this one
        return made[0]

    def probe(value):
        return (made[0] if made else resolve())(value)
    probe.__doc__ = Filter.contains.__doc__
    probe.resolve = resolve
    return probe


# ---------------------------------------------------------------------------
# Changing a version-2 filter: a port of src/core/cf_v2_*.c (cf2_insert,
# cf2_insert_if_absent, cf2_remove, cf2_union_into, cf_rotate and their
# helpers), step for step, so that a sequence of operations gives the bytes
# the server gives (docs/FORMAT.md 13.6 to 13.9).
# ---------------------------------------------------------------------------

SPLIT_NUM, SPLIT_DEN = 9, 10        # split while 10 (entries + extra) > 9 b m
RELIEVE_CAP = 4                     # relieve: at most 4x the buckets the items need
JOURNAL = 1024                      # v2_store_j: a recorded walk's slot writes
MAX_KEEP = 255


_WALK_TABLE_MAX_F = 10     # the kick walk's table: 2^f entries


@functools.lru_cache(maxsize=32)
def _walk_table(c, f):
    """Per fingerprint fp (at index fp): the other bucket's hashed quotient
    and the 32 bits the address is XORed with (_slot_alt's G), for the kick
    walk of filters of mantissa c and f-bit fingerprints."""
    tab = []
    for fp in range(1 << f):
        g = (fp * K_FP) & M64
        g ^= g >> 29
        tab.append((((g & M32) * c) >> 32, g >> 32))
    return tab


class _Mut:
    """The changing operations, mixed into FilterV2 (self: a FilterV2)."""

    __slots__ = ()

    # ---- header fields ----

    def _set_entries(self, v):
        _wr64(self._buf, OFF_ENTRIES, v)

    def _set_items(self, v):
        _wr64(self._buf, 24, v)

    def _gi(self, x):
        return _rd64(self._buf, HEADER_SIZE_2 + 8 * x)

    def _set_gi(self, x, v):
        _wr64(self._buf, HEADER_SIZE_2 + 8 * x, v)

    def _item_added(self, gen):
        self._set_items(self.items + 1)
        if self.g:
            self._set_gi(gen, self._gi(gen) + 1)

    def _item_removed(self, gen):
        """One item fewer, stored in generation gen; when that generation's
        count is 0 the nearest younger, then older one pays (cf_v2_*.c)."""
        items = self.items
        if items == 0:
            return
        self._set_items(items - 1)
        if self.g:
            gm = self._gmask
            cur = self._buf[OFF_CUR_GEN]
            age = (cur - gen) & gm
            for d in range(gm + 1):
                a = age - d if d <= age else d
                x = (cur - a) & gm
                n = self._gi(x)
                if n > 0:
                    self._set_gi(x, n - 1)
                    return

    # ---- slots ----

    def _rd(self, i, j):
        pos = i * self.B + j * self.w
        o = self.hdr + (pos >> 3)
        return (int.from_bytes(self._buf[o:o + 5], "little") >> (pos & 7)) & self._smask

    def _wr(self, i, j, e):
        pos = i * self.B + j * self.w
        o = self.hdr + (pos >> 3)
        sh = pos & 7
        buf = self._buf
        cur = int.from_bytes(buf[o:o + 5], "little")
        cur = (cur & ~(self._smask << sh)) | (e << sh)
        buf[o:o + 5] = cur.to_bytes(5, "little")
        if self._words:
            self._words[i] = self._bucket(i)

    def _gen(self, e):
        return (e >> (self.f + self.t)) & self._gmask if self.g else 0

    def _s(self, e):
        return _log2((e >> self.f) & self._tmask)

    def _age(self, e):
        return (self._buf[OFF_CUR_GEN] - self._gen(e)) & self._gmask

    def _with_gen(self, e, gen):
        if not self.g:
            return e
        sh = self.f + self.t
        return (e & ~(self._gmask << sh)) | (gen << sh)

    def _make_slot(self, fp, a, L, res, gen):
        """The entry of a value whose low L address bits are a, for a bucket of resolution res."""
        tail = 0
        t = self.t
        if t:
            s = L - res
            if s > t - 1:
                s = t - 1
            tail = (1 << s) | ((a >> res) & _mask(s))
        return fp | (tail << self.f) | ((gen << (self.f + t)) if self.g else 0)

    def _slot_alt(self, i, e):
        """(bucket, entry as stored there) of entry e of bucket i in its other
        bucket; None when e knows too few address bits to name it.  (_known
        and _make_slot inlined: the kick walk's step.)"""
        f, c, k, t = self.f, self.c, self.k, self.t
        fp = e & self.fp_range
        split = self.split
        res = k + 1 if (i < split or i >= self.base) else k
        r, q = divmod(i, c)
        if t:
            tail = (e >> f) & self._tmask
            s = (tail | 1).bit_length() - 1
            a = (r | ((tail ^ (1 << s)) << res)) & M32
            L = res + s
        else:
            a, L = r, res
        G = (fp * K_FP) & M64
        G ^= G >> 29
        hq = ((G & M32) * c) >> 32
        q2 = hq - q if hq >= q else hq + c - q
        a2 = (a ^ (G >> 32)) & ((1 << L) - 1)
        j0 = (a2 & self.rmask) * c + q2
        res2 = k
        if j0 < split:
            if L < k + 1:
                return None
            res2 = k + 1
            j0 += ((a2 >> k) & 1) * self.base
        if t:
            s = L - res2
            if s > t - 1:
                s = t - 1
            fp |= ((1 << s) | ((a2 >> res2) & ((1 << s) - 1))) << f
        if self.g:
            sh = f + t
            fp |= ((e >> sh) & self._gmask) << sh
        return j0, fp

    def _paircount(self, i, e):
        """paircount(F, i, e) of docs/FORMAT.md 13.12 rule 4: the slots of
        bucket i equal to e, those of its other bucket j equal to e as stored
        there e2 (when named; when j = i, the slots of i equal to e2 != e
        too), and the victim if it is either."""
        alt = self._slot_alt(i, e)
        if alt is not None and alt == (i, e):
            alt = None
        sl = self._slots(i)
        n = sl.count(e)
        if alt is not None:
            if alt[0] == i:
                n += sl.count(alt[1])
            else:
                n += self._slots(alt[0]).count(alt[1])
        v = self._victim()
        if v is not None and (v == (i, e) or (alt is not None and v == alt)):
            n += 1
        return n

    def _covers(self, bk, x, e, a, L):
        """Whether slot x of bucket bk stands for the value of entry e of that
        bucket (knowing the L bits a there): 1 if x knows no more than e,
        2 if it knows more, 0 if not."""
        fr = self.fp_range
        if x == 0 or (x & fr) != (e & fr) or self._gen(x) != self._gen(e):
            return 0
        ax, Lx = self._known(bk, x)
        if (ax ^ a) & _mask(min(Lx, L)):
            return 0
        return 2 if Lx > L else 1

    def _paircover(self, i, e, want, write=True):
        """13.12 rule 4 with both operands under the budget: the entries of
        e's pair standing for e's value (bucket i, its other bucket j, also
        j = i with another form, the victim), counted up to want; with write
        (rehome's have), each that knows more than e is replaced by e's form
        in its bucket first; without (the sweep's want), nothing changes."""
        a, L = self._known(i, e)
        alt = self._slot_alt(i, e)
        if alt is not None and alt == (i, e):
            alt = None
        if alt is not None:
            j, e2 = alt
            a2, L2 = self._known(j, e2)
        n = 0
        for x, sv in enumerate(self._slots(i)):
            if n >= want:
                break
            c = self._covers(i, sv, e, a, L)
            form = e
            if not c and alt is not None and j == i:
                c = self._covers(i, sv, e2, a2, L2)
                form = e2
            if c:
                if c == 2 and write:
                    self._wr(i, x, form)
                n += 1
        if alt is not None and j != i:
            for x, sv in enumerate(self._slots(j)):
                if n >= want:
                    break
                c = self._covers(j, sv, e2, a2, L2)
                if c:
                    if c == 2 and write:
                        self._wr(j, x, e2)
                    n += 1
        v = self._victim()
        if n < want and v is not None:
            vb, ve = v
            c, form = 0, 0
            if vb == i:
                c, form = self._covers(i, ve, e, a, L), e
            if not c and alt is not None and vb == j:
                c, form = self._covers(j, ve, e2, a2, L2), e2
            if c:
                if c == 2 and write:
                    _wr32(self._buf, OFF_VICTIM_SLOT, form)
                n += 1
        return n

    def _place(self, i, e):
        """e into the first free slot of bucket i; False if it has none."""
        pos = i * self.B
        o = self.hdr + (pos >> 3)
        x = int.from_bytes(self._buf[o:o + self._nbytes], "little") >> (pos & 7)
        w, sm = self.w, self._smask
        for j in range(self.b):
            if not (x >> (j * w)) & sm:
                self._wr(i, j, e)
                return True
        return False

    def _set_victim(self, i, e):
        self._buf[7] |= FLAG_VICTIM
        _wr32(self._buf, OFF_VICTIM_BUCKET, i)
        _wr32(self._buf, OFF_VICTIM_SLOT, e)

    def _clear_victim(self):
        self._buf[7] &= ~FLAG_VICTIM & 0xFF
        _wr32(self._buf, OFF_VICTIM_BUCKET, 0)
        _wr32(self._buf, OFF_VICTIM_SLOT, 0)

    def _store(self, i, e, seed, journal=False):
        """v2_store: e into bucket i, its alternate, else by a kick walk whose
        last entry in hand goes to the (free) victim slot; True if in the table.
        journal: v2_store_j's recorded walk, at most JOURNAL - 1 kicks."""
        if self._place(i, e):
            return True
        slot_alt = self._slot_alt
        alt = slot_alt(i, e)
        if alt is not None and self._place(alt[0], alt[1]):
            return True
        rng = _Rng(_rng_seed(seed & M64, ((i << 32) | e) & M64))
        cur, ce = i, e
        if alt is not None and rng.next() & 1:
            cur, ce = alt
        b = self.b
        kicks = min(self.max_kicks, JOURNAL) if journal else self.max_kicks
        # the walk with _Rng.next, _rd, _wr, _place and _slot_alt inlined
        # (the table's geometry does not change during a walk)
        x = rng.s
        bm = b - 1
        buf, hdr, B, w, sm, nb = self._buf, self.hdr, self.B, self.w, self._smask, self._nbytes
        f, fr, c, k, t, split, base, rmask = self.f, self.fp_range, self.c, self.k, self.t, self.split, self.base, self.rmask
        tmask, g, sh_g, gmask = self._tmask, self.g, self.f + self.t, self._gmask
        k1 = k + 1
        words = self._words
        frombytes = int.from_bytes
        # a free slot of a bucket's word y (masked to b * w bits) at once:
        # (y - lo) & ~y & hi flags the lowest zero field exactly (borrows run
        # only upward)
        lo = sum(1 << (j * w) for j in range(b))
        hi = lo << (w - 1)
        bmask = self._bmask
        tab = _walk_table(c, f) if f <= _WALK_TABLE_MAX_F else None
        # raw: the bytes that hold bucket cur (from o), word: its bits
        pos = cur * B
        o = hdr + (pos >> 3)
        sh0 = pos & 7
        raw = frombytes(buf[o:o + nb], "little")
        word = raw >> sh0
        for _ in range(1, kicks):
            x ^= x >> 12
            x ^= (x << 25) & M64
            x ^= x >> 27
            j0 = (((x * 0x2545F4914F6CDD1D) & M64) >> 32) & bm
            res = k1 if (cur < split or cur >= base) else k
            r = cur // c
            q = cur - r * c
            for d in range(b):
                slot = (j0 + d) & bm
                # _slot_alt(cur, the entry in that slot)
                e = (word >> (slot * w)) & sm
                fp = e & fr
                if t:
                    tail = (e >> f) & tmask
                    s = (tail | 1).bit_length() - 1
                    a = (r | ((tail ^ (1 << s)) << res)) & M32
                    L = res + s
                else:
                    a, L = r, res
                if tab:
                    hq, gx = tab[fp]
                else:
                    G = (fp * K_FP) & M64
                    G ^= G >> 29
                    hq, gx = ((G & M32) * c) >> 32, G >> 32
                a = (a ^ gx) & ((1 << L) - 1)
                nxt = (a & rmask) * c + (hq - q if hq >= q else hq + c - q)
                res2 = k
                if nxt < split:
                    if L < k1:
                        continue        # too few address bits to name the other bucket
                    res2 = k1
                    nxt += ((a >> k) & 1) * base
                if t:
                    s = L - res2
                    if s > t - 1:
                        s = t - 1
                    fp |= ((1 << s) | ((a >> res2) & ((1 << s) - 1))) << f
                if g:
                    fp |= ((e >> sh_g) & gmask) << sh_g
                break
            else:
                break                   # no entry of the bucket can move
            # the kicked entry's slot takes the one in hand (nothing was
            # written since raw was read)
            sh = sh0 + slot * w
            buf[o:o + nb] = ((raw & ~(sm << sh)) | (ce << sh)).to_bytes(nb, "little")
            if words:
                words[cur] = self._bucket(cur)
            cur, ce = nxt, fp
            # (read after the write: the next kick's bucket when it is full)
            pos = cur * B
            o = hdr + (pos >> 3)
            sh0 = pos & 7
            raw = frombytes(buf[o:o + nb], "little")
            word = (raw >> sh0) & bmask
            z = (word - lo) & ~word & hi
            if z:
                self._wr(cur, ((z & -z).bit_length() - w) // w, ce)
                return True
        self._set_victim(cur, ce)
        return False

    def _victim_try_direct(self):
        v = self._victim()
        if v is None:
            return
        vb, ve = v
        if self._place(vb, ve):
            self._clear_victim()
            return
        alt = self._slot_alt(vb, ve)
        if alt is not None and self._place(alt[0], alt[1]):
            self._clear_victim()

    def _victim_retry(self):
        v = self._victim()
        if v is None:
            return
        self._clear_victim()
        self._store(v[0], v[1], self.entries ^ self.items)

    # ---- growth (linear hashing) ----

    def _set_geometry(self):
        c, m = self.c, self.m
        k = 0
        while (c << (k + 1)) <= m:
            k += 1
        self.k = k
        self.base = c << k
        self.split = m - self.base
        self.rmask = _mask(k)

    def _split_forms(self, e, p, j):
        tail = (e >> self.f) & self._tmask
        s = _log2(tail)
        if s == 0:
            return ((p, e), (j, e))
        keepmask = self.fp_range | ((self._gmask << (self.f + self.t)) if self.g else 0)
        fm = (e & keepmask) | (((1 << (s - 1)) | ((tail ^ (1 << s)) >> 1)) << self.f)
        return ((j if tail & 1 else p, fm),)

    def _split(self):
        """Splits bucket p: the copies it made, or None (nothing changed)."""
        m, b, w, g = self.m, self.b, self.w, self.g
        newlen = total_bytes_2(m + 1, b, w, g)
        if not self.grows or newlen > MAX_BYTES or m + 1 > M32:
            return None
        if self.budget:
            k1 = self.k + 1 if (self.c << (self.k + 1)) <= m + 1 else self.k
            if budget_tail(self.c, k1, self.f, g) < MIN_TAIL_BITS:
                return None             # 13.12 rule 1: no table below the size limit gets here
        p, j = self.split, m
        v = self._victim()
        saved = None
        if (v is not None and v[0] == p and self._s(v[1]) == 0
                and all(self._s(x) == 0 for x in self._slots(p))):
            # both halves get the b copies and a copy of the victim
            if self.max_kicks == 0:
                return None
            saved = (bytes(self._buf), list(self._words) if self._words else self._words)
        buf = self._buf
        buf.extend(bytes(newlen - len(buf)))
        if self._words:
            self._words.append(0)           # bucket j, empty
        old = self._slots(p)
        for x in range(b):
            self._wr(p, x, 0)
        self.m = m + 1
        _wr32(buf, 16, self.m)
        self._set_geometry()
        copies = 0
        for e in old:
            if e == 0:
                continue
            forms = self._split_forms(e, p, j)
            for bk, fm in forms:
                self._place(bk, fm)
            if len(forms) == 2:
                self._set_entries(self.entries + 1)
                copies += 1
        if v is not None and v[0] == p:
            self._clear_victim()
            forms = self._split_forms(v[1], p, j)
            if len(forms) == 2:
                self._set_entries(self.entries + 1)
            left = [y for y, (bk, fm) in enumerate(forms) if not self._place(bk, fm)]
            if len(left) == 1:
                self._store(forms[left[0]][0], forms[left[0]][1], self.entries)
            elif len(left) == 2:
                # v2_split: the first walks (recorded); if it ends in the
                # victim slot the second must fit its bucket or alternate,
                # else the split is taken back
                (b0, f0), (b1, f1) = forms
                if self._store(b0, f0, self.entries, journal=True):
                    self._store(b1, f1, self.entries ^ 1)
                elif not self._place(b1, f1):
                    alt = self._slot_alt(b1, f1)
                    if alt is None or not self._place(alt[0], alt[1]):
                        self._buf[:] = saved[0]
                        self._words = saved[1]
                        self.m = m
                        self._set_geometry()
                        return None
        else:
            self._victim_try_direct()
        if self.budget and self.split == 0 and budget_tail(self.c, self.k, self.f, g) < self.t:
            self._narrow()
        return copies

    def _narrow(self):
        """The end of a round of an address-budget filter (docs/FORMAT.md
        13.12 rule 3): every entry has spent a spare bit (the top tail bit is 0
        in all), so every slot and the victim lose that bit, t -= 1 and the
        value takes the length of the narrower slots."""
        f, t, g, b, m = self.f, self.t, self.g, self.b, self.m
        low = _mask(f + t - 1)          # the fingerprint and the tail's t - 1 low bits
        sh = f + t                      # the generation field, moved down one bit

        def narrow(e):
            return (e & low) | ((e >> sh) << (sh - 1))
        ow, nw = self.w, self.w - 1
        oB, nB = b * ow, b * nw
        buf, hdr = self._buf, self.hdr
        out = bytearray()
        # 64 buckets at a time: 8 * B bytes whatever B is
        for i0 in range(0, m, 64):
            n = min(64, m - i0)
            o = hdr + i0 * oB // 8
            x = int.from_bytes(buf[o:o + (n * oB + 7) // 8], "little")
            y = 0
            omask = _mask(ow)
            for z in range(n * b):
                e = (x >> (z * ow)) & omask
                if e:
                    y |= narrow(e) << (z * nw)
            out += y.to_bytes(8 * nB if n == 64 else (n * nB + 7) // 8, "little")
        newlen = total_bytes_2(m, b, nw, g)
        out += bytes(newlen - hdr - len(out))
        del buf[hdr:]
        buf += out
        v = self._victim()
        if v is not None:
            _wr32(buf, OFF_VICTIM_SLOT, narrow(v[1]))
        buf[OFF_TAIL_BITS] = t - 1
        self._set_width()
        self._words = None

    def _max_buckets(self):
        fixed = self.hdr + 8
        if MAX_BYTES <= fixed:
            return 0
        return ((MAX_BYTES - fixed) // 8 * 64) // (self.b * self.w)

    def _over_load(self, extra):
        return (self.entries + extra) * SPLIT_DEN > SPLIT_NUM * self.b * self.m

    def _grow(self, extra):
        """v2_grow: splits until extra more entries keep the load at 0.90."""
        if not self.grows or not self._over_load(extra):
            return
        credit = done = 0
        budget = self.m + 1
        while budget > 0 and self._over_load(extra):
            copies = self._split()
            if copies is None:
                break
            done += 1
            credit += SPLIT_NUM * self.b - SPLIT_DEN * copies
            if done >= 8 and credit <= 0:
                break
            budget -= 1

    def _relieve_limit(self):
        """The bucket count relieve splits up to (and _split_pair)."""
        m = self.m
        small = m if m < 256 else 256
        extra = m // 8 if m // 8 > small else small
        if self.max_kicks < 8:
            extra = 2 * m
        limit = m + extra + 1
        cap = self._relieve_cap()
        return cap if limit > cap else limit

    def _relieve_cap(self):
        """Proportional growth: at most 4x (8x with max_kicks < 8) the
        buckets the items need at the growth load, plus 256."""
        need = ((self.items + 1) * SPLIT_DEN + SPLIT_NUM * self.b - 1) // (SPLIT_NUM * self.b)
        return (2 if self.max_kicks < 8 else 1) * RELIEVE_CAP * need + 256

    def _split_pair(self, i1, i2):
        """FORMAT 13.7 step 4b: splits until bucket i1 or i2 is split; False
        when beyond relieve's limit or the size limit (nothing changed) or a
        split was refused (the splits done stay)."""
        def until(i):
            if self.split <= i < self.base:
                return i - self.split + 1
            return self.base - self.split + i + 1
        to = self.m + min(until(i1), until(i2))
        # a pair of one bucket: its split can be a round away, up to the cap
        limit = self._relieve_cap() if i1 == i2 else self._relieve_limit()
        if (not self.grows or to > limit
                or total_bytes_2(to, self.b, self.w, self.g) > MAX_BYTES):
            return False
        while self.m < to:
            if self._split() is None:
                return False
        return True

    def _relieve(self):
        """v2_relieve: after a walk left the victim, split more buckets retrying it."""
        limit = self._relieve_limit()
        n = 0
        while self._buf[7] & FLAG_VICTIM and self.m < limit:
            if self._split() is None:
                break
            n += 1
            if (n & (n - 1)) == 0:
                self._victim_retry()
        if self._buf[7] & FLAG_VICTIM:
            self._victim_retry()

    # ---- items ----

    def _pair_only_fp(self, i1, i2, fp):
        fr = self.fp_range
        n = sum(1 for e in self._slots(i1) if (e & fr) == fp)
        if i2 == i1:
            return n == self.b
        n += sum(1 for e in self._slots(i2) if (e & fr) == fp)
        return n == 2 * self.b

    def _insert_hash(self, h):
        self._grow(1)
        fp, q, a, q2, a2 = self._parts(h)
        i1, r1 = self._locate2(q, a)
        i2, r2 = self._locate2(q2, a2)
        gen = self._buf[OFF_CUR_GEN]
        ab = self.abits                 # 32, or A with the address budget (13.12 rule 2)
        e1 = self._make_slot(fp, a & _mask(ab), ab, r1, gen)
        e2 = self._make_slot(fp, a2 & _mask(ab), ab, r2, gen)
        if self._place(i1, e1) or (i2 != i1 and self._place(i2, e2)):
            self._set_entries(self.entries + 1)
            self._item_added(gen)
            return OK
        if self._pair_only_fp(i1, i2, fp):
            # FORMAT 13.7 step 4: the value's own entries (all match) cannot
            # leave the pair; other values' leave it by a kick or a split
            ah1, ah2 = a >> r1, a2 >> r2
            if (all(self._match(e, fp, ah1) or (i2 == i1 and self._match(e, fp, ah2))
                    for e in self._slots(i1))
                    and (i2 == i1 or all(self._match(e, fp, ah2) for e in self._slots(i2)))):
                return TOO_MANY_COPIES
            closed = True
            for i in ((i1,) if i2 == i1 else (i1, i2)):
                for e in self._slots(i):
                    alt = self._slot_alt(i, e)
                    if alt is not None and alt[0] != i1 and alt[0] != i2:
                        closed = False
            if closed:
                if not self._split_pair(i1, i2):
                    return FULL
                return self._insert_hash(h)
        if self._buf[7] & FLAG_VICTIM:
            if (not self.grows or self.m >= self._max_buckets()
                    or total_bytes_2(self.m + 1, self.b, self.w, self.g) > MAX_BYTES):
                return FULL
            self._relieve()
            if self._buf[7] & FLAG_VICTIM:
                return FULL
            return self._insert_hash(h)
        self._set_entries(self.entries + 1)
        self._item_added(gen)
        seed = h ^ self.items
        placed = self._store(i2, e2, seed) if h & 1 else self._store(i1, e1, seed)
        if not placed and self.grows:
            self._relieve()
        return OK_STASHED if self._buf[7] & FLAG_VICTIM else OK

    def _sides(self, h):
        fp, q, a, q2, a2 = self._parts(h)
        i1, r1 = self._locate2(q, a)
        i2, r2 = self._locate2(q2, a2)
        return fp, (i1, i2), (r1, r2), (a >> r1, a2 >> r2)

    def _insert_if_absent_hash(self, h):
        if self.g == 0:
            return EXISTS if self._contains_hash(h) else self._insert_hash(h)
        fp, bi, r, ahi = self._sides(h)
        v = self._victim()
        found = False
        oldest = 0
        match, age = self._match, self._age
        for side in (0, 1):
            for e in self._slots(bi[side]):
                if e == 0 or not match(e, fp, ahi[side]):
                    continue
                if age(e) == 0:
                    return EXISTS
                found = True
                oldest = max(oldest, age(e))
            if v is not None and v[0] == bi[side] and match(v[1], fp, ahi[side]):
                if age(v[1]) == 0:
                    return EXISTS
                found = True
                oldest = max(oldest, age(v[1]))
        if not found:
            return self._insert_hash(h)
        cur = self._buf[OFF_CUR_GEN]
        for side in (0, 1):
            for j, e in enumerate(self._slots(bi[side])):
                if e != 0 and match(e, fp, ahi[side]):
                    self._wr(bi[side], j, self._with_gen(e, cur))
            if v is not None and v[0] == bi[side] and match(v[1], fp, ahi[side]):
                # (the victim is re-read: the first side may have raised it)
                ve = _rd32(self._buf, OFF_VICTIM_SLOT)
                _wr32(self._buf, OFF_VICTIM_SLOT, self._with_gen(ve, cur))
        if self.items > 0:
            self._item_removed((cur - oldest) & self._gmask)
            self._item_added(cur)
        return EXISTS

    def _remove_hash(self, h):
        fp, bi, r, ahi = self._sides(h)
        match, age = self._match, self._age
        t = self.t
        best_b = best_j = -1
        bestL = bestage = 0
        best_victim = False
        for side in (0, 1):
            for j, e in enumerate(self._slots(bi[side])):
                if e == 0 or not match(e, fp, ahi[side]):
                    continue
                L = r[side] + (self._s(e) if t else 0)
                ag = age(e)
                if best_b < 0 or L > bestL or (L == bestL and ag > bestage):
                    best_b, best_j, bestL, bestage = side, j, L, ag
        v = self._victim()
        vic = v is not None
        if vic:
            vb, ve = v
            for side in (0, 1):
                if vb != bi[side] or not match(ve, fp, ahi[side]):
                    continue
                L = r[side] + (self._s(ve) if t else 0)
                ag = age(ve)
                if (best_b < 0 and not best_victim) or L > bestL or (L == bestL and ag > bestage):
                    best_victim, bestL, bestage = True, L, ag
                break
        if best_b < 0 and not best_victim:
            return False

        def victim_matches():
            return ((vb == bi[0] and match(ve, fp, ahi[0]))
                    or (vb == bi[1] and match(ve, fp, ahi[1])))

        oldest = bestage
        for side in (0, 1):
            for e in self._slots(bi[side]):
                if e != 0 and match(e, fp, ahi[side]) and age(e) > oldest:
                    oldest = age(e)
        if vic and age(ve) > oldest and victim_matches():
            oldest = age(ve)
        if best_victim:
            gen = self._gen(ve)
            self._clear_victim()
            vic = False
        else:
            gen = self._gen(self._rd(bi[best_b], best_j))
            self._wr(bi[best_b], best_j, 0)
        self._set_entries(self.entries - 1)
        self._item_removed((self._buf[OFF_CUR_GEN] - oldest) & self._gmask)
        if self.g:
            for side in (0, 1):
                for j, e in enumerate(self._slots(bi[side])):
                    if e != 0 and match(e, fp, ahi[side]) and age(e) > bestage:
                        self._wr(bi[side], j, self._with_gen(e, gen))
            if vic and age(ve) > bestage and victim_matches():
                _wr32(self._buf, OFF_VICTIM_SLOT, self._with_gen(ve, gen))
        if vic:
            self._victim_retry()
        return True

    # ---- rotation ----

    def _rotate_in_place(self, keep):
        gm = self._gmask
        cur = (self._buf[OFF_CUR_GEN] + 1) & gm
        items = self.items
        self._buf[OFF_CUR_GEN] = cur
        self._buf[OFF_KEEP] = keep
        entries = self.entries
        for i in range(self.m):
            for j, e in enumerate(self._slots(i)):
                if e != 0 and self._age(e) >= keep:
                    self._wr(i, j, 0)
                    entries -= 1
        v = self._victim()
        if v is not None and self._age(v[1]) >= keep:
            self._clear_victim()
            entries -= 1
        self._set_entries(entries)
        for x in range(gm + 1):
            if ((cur - x) & gm) >= keep:
                items -= self._gi(x)
                self._set_gi(x, 0)
        for age in range(keep - 1, -1, -1):
            if items <= entries:
                break
            x = (cur - age) & gm
            cut = min(items - entries, self._gi(x))
            self._set_gi(x, self._gi(x) - cut)
            items -= cut
        self._set_items(items)
        self._victim_retry()

    # ---- re-homing (union) ----

    def _rehome(self, fp, a, L, gen, q, want, added, first, cover=False):
        """Stores the entry knowing the low L bits a of its address (mantissa
        q) in every bucket those bits cannot tell apart; with want > 0 a bucket
        already holding want identical slots gets none.  False when it would
        need the victim slot while that is taken."""
        i0 = (a & self.rmask) * self.c + q
        res = self.k + (1 if i0 < self.split else 0)
        if L < res:
            lo = a & _mask(L)
            return (self._rehome(fp, lo, L + 1, gen, q, want, added, first, cover)
                    and self._rehome(fp, lo | (1 << L), L + 1, gen, q, want, added, False, cover))
        i = i0 + (((a >> self.k) & 1) * self.base if res > self.k else 0)
        e = self._make_slot(fp, a, L, res, gen)
        n = want if want else 1
        have = 0
        if want:
            if self.budget and cover:
                have = self._paircover(i, e, want)  # 13.12 rule 4, both budget
            elif self.budget:
                have = self._paircount(i, e)        # 13.12 rule 4
            else:
                have = self._slots(i).count(e)
                v = self._victim()
                if v is not None and v[0] == i and v[1] == e:
                    have += 1
        t = self.t
        while have < n:
            self._grow(1)
            # (an address-budget filter may have narrowed: e is made anew)
            if i >= self.m or self._res(i) != res or self.t != t:
                return self._rehome(fp, a, L, gen, q, want if want else n - have, added, first, cover)
            self._set_entries(self.entries + 1)
            if first:
                added[0] += 1
            if not self._place(i, e):
                if self._buf[7] & FLAG_VICTIM:
                    alt = self._slot_alt(i, e)
                    if alt is None or not self._place(alt[0], alt[1]):
                        self._set_entries(self.entries - 1)
                        if first:
                            added[0] -= 1
                        # as an insert does: split to free the victim slot
                        if self.grows:
                            self._relieve()
                            if not self._buf[7] & FLAG_VICTIM:
                                return self._rehome(fp, a, L, gen, q, want if want else n - have, added, first, cover)
                        return False
                elif not self._store(i, e, self.entries ^ (i << 20)) and self.grows:
                    self._relieve()
            have += 1
        return True

    def _pour(self, src):
        """pour (as a union): items added per generation in the share of
        src's entries that were new here, round(new * items / entries)."""
        v = src._victim()
        fr = src.fp_range
        had, fresh, done = {}, {}, {}
        for i in range(src.m):
            for e in src._slots(i):
                if e:
                    had[src._gen(e)] = had.get(src._gen(e), 0) + 1
        if v is not None:
            had[src._gen(v[1])] = had.get(src._gen(v[1]), 0) + 1
        for i in range(src.m):
            s = [e for e in src._slots(i) if e]
            if v is not None and v[0] == i:
                s.append(v[1])
            for x, e in enumerate(s):
                if e in s[:x]:
                    continue
                a, L = src._known(i, e)
                if self.budget:
                    # 13.12 rule 4: known bits capped at A, copies counted over the pair
                    if src.budget:
                        want = src._paircover(i, e, 1 << 40, False)
                    else:
                        want = src._paircount(i, e)
                    if L > self.abits:
                        L = self.abits
                        a &= _mask(L)
                else:
                    want = s[x:].count(e)
                added = [0]
                gen = src._gen(e)
                if not self._rehome(e & fr, a, L, gen, i % src.c, want, added, True, src.budget):
                    return False
                if added[0]:
                    items = src._gi(gen) if src.g else src.items
                    fresh[gen] = fresh.get(gen, 0) + added[0]
                    goal = min((fresh[gen] * items + had[gen] // 2) // had[gen], items, fresh[gen])
                    while done.get(gen, 0) < goal:
                        self._item_added(gen)
                        done[gen] = done.get(gen, 0) + 1
        return True


class FilterV2(_Mut, Filter):
    """A format-version-2 cuckoofilter value (growing or rotated).  The
    changing methods return a new filter (or, *_in_place, change this one)."""

    version = VERSION_2
    _words = None          # the bucket words of the integer lookup (_make_int_probe)
    _lookups = 0           # its lookups while it has no list of words

    def __init__(self, buf):
        # buf: a bytearray that has passed check_header_2
        self._buf = buf
        self.b, self.f = buf[5], buf[6]
        self.g = buf[OFF_GEN_BITS]
        self.grows = bool(buf[7] & FLAG_GROWS)
        self.budget = bool(buf[7] & FLAG_BUDGET)
        self.m = _rd32(buf, 16)
        self.c = _rd16(buf, OFF_MANTISSA)
        # the address bits an insert gives an entry: A with the address budget
        self.abits = addr_budget(self.c) if self.budget else ADDR_BITS
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
        self._gmask = _mask(self.g)
        self._set_width()
        probe = _lazy_int_probe(self)
        if probe is not None:
            self.contains = probe        # shadows the method for this filter

    def _set_width(self):
        """t and the slot and bucket widths from the header (they change when
        an address-budget filter narrows)."""
        self.t = self._buf[OFF_TAIL_BITS]
        self.w = self.f + self.t + self.g
        self.B = self.b * self.w
        self._nbytes = (7 + self.B + 7) // 8
        self._bmask = _mask(self.B)
        self._smask = _mask(self.w)
        self._tmask = _mask(self.t)

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
        if self.budget:
            fpr = min(1.0, 2.0 * entries / (float(self.fp_range) * self.c * 2.0 ** self.abits))
        elif self.t > 0:
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
            resolve = getattr(probe, "resolve", None)
            if resolve is not None:
                probe = resolve()               # made now (_lazy_int_probe)
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

    # ---- changes (docs/FORMAT.md 13.6 to 13.9; the port is _Mut above) ----

    def _refresh(self):
        """After a change: the geometry from the header, and this filter's own
        contains made anew (its constants, the kind and the victim flag may
        have changed; _lazy_int_probe: at its first call)."""
        self.m = _rd32(self._buf, 16)
        self._set_geometry()
        self._set_width()
        self.__dict__.pop("contains", None)
        probe = _lazy_int_probe(self)
        if probe is not None:
            self.contains = probe

    def _in_place(self, fn, *args):
        """fn(*args) on this filter; on an error the filter is as it was."""
        saved = bytes(self._buf)
        try:
            return fn(*args)
        except BaseException:
            self._buf[:] = saved
            self._words = None
            raise
        finally:
            self._refresh()

    def _status_error(self, st):
        if st == FULL:
            items, vic = self.items, self.victim_used
            return FilterFullError(
                "cuckoo filter is full: it holds %d items: %d buckets of %d entries (load factor "
                "%.3f)%s; its rated capacity is %d"
                % (items, self.m, self.b, (items - (1 if vic else 0)) / (self.m * self.b),
                   " and the one-entry victim slot" if vic else "", self.capacity))
        return FilterFullError("value was added to the cuckoo filter too many times: a filter "
                               "with bucket size %d holds at most %d copies of one value"
                               % (self.b, 2 * self.b))

    def _add(self, value, if_absent):
        kind, h = self._hash_for(value)
        if self.kind == KIND_ANY:
            self._buf[8:10] = kind.to_bytes(2, "little")
        st = self._insert_if_absent_hash(h) if if_absent else self._insert_hash(h)
        if st in (FULL, TOO_MANY_COPIES):
            raise self._status_error(st)
        return st

    def _remove(self, value):
        kind, h = self._hash_for(value)
        if self.kind == KIND_ANY:
            return False
        return self._remove_hash(h)

    def add(self, value):
        """A new filter with one more occurrence of value (SQL cuckoo_add); a
        growing filter grows as the server's does."""
        g = self._copy()
        try:
            g._add(value, False)
        finally:
            g._refresh()
        return g

    def add_if_absent(self, value):
        """A new filter with value added unless already reported (SQL
        cuckoo_add_if_absent; with generations, a value found only in older
        generations is moved to the current one)."""
        g = self._copy()
        try:
            g._add(value, True)
        finally:
            g._refresh()
        return g

    def remove(self, value):
        """A new filter with one occurrence of value removed (SQL cuckoo_remove)."""
        g = self._copy()
        g._remove(value)
        g._refresh()
        return g

    def add_in_place(self, value):
        """Adds value to this filter; raises FilterFullError (filter unchanged) if it cannot."""
        self._in_place(self._add, value, False)

    def add_if_absent_in_place(self, value):
        """add_if_absent on this filter; returns whether an entry was stored
        (False also when a value of an older generation was moved to the current one)."""
        return self._in_place(self._add, value, True) != EXISTS

    def remove_in_place(self, value):
        """Removes one occurrence of value; returns whether one was found."""
        return self._in_place(self._remove, value)

    def union(self, other):
        """A new filter holding the items of both (SQL cuckoo_union): the
        entries of other re-homed into a copy of this one, which grows as
        needed; both must have one creation shape and one rotation state."""
        if not isinstance(other, Filter):
            raise TypeError("union takes a Filter")
        return _union(self, other)

    def rotate(self, keep):
        """A new filter, as SQL cuckoo_rotate(f, keep) makes it (docs/FORMAT.md 13.8)."""
        return rotate(self, keep)

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
            if self._res(i) + _log2(tail) > self.abits:
                raise ValueError("bucket %d holds a slot 0x%x with more than %d address bits"
                                 % (i, e, self.abits))
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


# ---- union and rotation (module level: a version-1 Filter uses them too) ----

def _info_of(flt):
    """(version, expansion, tail bits, initial buckets, g, cur_gen, keep) as cf_get_info has them."""
    if flt.version != VERSION_2:
        return VERSION_2 - 1, 0, 0, flt.m, 0, 0, 0
    buf = flt._buf
    return (VERSION_2, 2 if flt.grows else 0, flt.t, _rd32(buf, OFF_INITIAL_BUCKETS), flt.g,
            buf[OFF_CUR_GEN], buf[OFF_KEEP])


def _shape_error(a, o):
    """The server's refusal to union a and o (filter_report_status, CF_SHAPE_MISMATCH,
    when either is version 2)."""
    va, ea, ta, ma, ga, ca, ka = _info_of(a)
    vo, eo, to, mo, go, co, ko = _info_of(o)
    # an address-budget filter's t follows its size and g: not compared
    budgets = getattr(a, "budget", False) and getattr(o, "budget", False)
    if (ea == eo and a.b == o.b and a.f == o.f and (ta == to or budgets) and a.c == o.c
            and a.capacity == o.capacity):
        def state(g, cur, keep):
            if keep == 0:
                return "was never rotated"
            return "is in generation %d of %d-bit tags, rotated last with keep %d" % (cur, g, keep)
        return ValueError("cannot union cuckoo filters that were not rotated in step: the first "
                          "%s; the second %s" % (state(ga, ca, ka), state(go, co, ko)))

    def what(v, e):
        return "growing" if e else ("fixed, rotated" if v >= VERSION_2 else "fixed")
    return ValueError(
        "cannot union cuckoo filters of different shapes: the first is %s: %d-bit fingerprints, "
        "%d tail bits, created with %d buckets for capacity %d; the second is %s: %d-bit "
        "fingerprints, %d tail bits, created with %d buckets for capacity %d"
        % (what(va, ea), a.f, ta, ma, a.capacity, what(vo, eo), o.f, to, mo, o.capacity))


def _union(a, o):
    """cuckoo_union(a, o) with a of version 2 (cf2_union_into on a copy of a)."""
    # growing filters may differ in t: o's entries are read with its t and
    # stored with a's (cf2_union_into)
    if (o.version != VERSION_2 or a.b != o.b or a.f != o.f or (not a.grows and a.t != o.t) or a.g != o.g
            or a.c != o.c or a.grows != o.grows or a.capacity != o.capacity
            or a._buf[OFF_CUR_GEN] != o._buf[OFF_CUR_GEN] or a._buf[OFF_KEEP] != o._buf[OFF_KEEP]):
        raise _shape_error(a, o)
    dk, sk = a.kind, o.kind
    if sk != KIND_ANY and dk != KIND_ANY and (sk != dk or a.type_tag != o.type_tag):
        raise TypeError("cannot union a cuckoo filter of %s values with one of %s values"
                        % (kind_name(dk), kind_name(sk)))
    dst = a._copy()
    if dk == KIND_ANY and o.entries > 0:
        dst._buf[8:10] = sk.to_bytes(2, "little")
        _wr32(dst._buf, 12, o.type_tag)
    try:
        ok = dst._pour(o)
    finally:
        dst._refresh()
    if not ok:
        if dst.grows:
            raise FilterFullError(
                "the union does not fit in a cuckoo filter of this shape: the growing filter has "
                "%d buckets of %d entries and could not grow further: it reached the size limit, "
                "or the next bucket to split holds only copies that know no spare address bit"
                % (dst.m, dst.b))
        raise FilterFullError("the union does not fit in a cuckoo filter of this shape: the "
                              "filter has %d buckets of %d entries" % (dst.m, dst.b))
    return dst


GROW_BUCKET = 4
GROW_TARGET_LOAD = 0.94         # cf_target_load(4): the load a filter is sized for


def create_growing(capacity, fpr=0.01, max_kicks=DEFAULT_KICKS):
    """The empty filter SQL cuckoo_create(capacity, fpr, max_kicks =>
    max_kicks, expansion => 2) makes (cf_params_growing, cf2_init): bucket
    size 4, f = (the fixed filter's f for fpr) - 4 (at least 4), m0 for
    capacity at load 0.94, and the address budget (flag 0x08, t = T(k0),
    docs/FORMAT.md 13.12)."""
    for name, x in (("capacity", capacity), ("max_kicks", max_kicks)):
        if type(x) is not int:
            raise TypeError("%s must be an int" % name)
    if isinstance(fpr, bool) or not isinstance(fpr, (int, float)):
        raise TypeError("fpr must be a number")
    fpr = float(fpr)
    if not 0 <= max_kicks <= MAX_KICKS_LIMIT:
        raise ValueError("max kicks %d is outside the range 0 to %d" % (max_kicks, MAX_KICKS_LIMIT))

    def refuse(why):
        return ValueError("cannot create a growing filter for capacity %d at fpr %g: %s"
                          % (capacity, fpr, why))
    if not 0.0 < fpr < 1.0:
        raise refuse("false-positive rate %g is outside the open range 0 to 1" % fpr)
    if capacity < 1:
        raise refuse("capacity must be at least 1")
    ff = next((f for f in range(MIN_FP_BITS, MAX_FP_BITS + 1)
               if expected_fpr(GROW_BUCKET, f, GROW_TARGET_LOAD) <= fpr), -1)
    if ff < 0 or ff - 4 + MIN_TAIL_BITS > 32:
        raise refuse("false-positive rate %g is too small for a growing filter" % fpr)
    f = max(ff - 4, MIN_FP_BITS)
    # cf_buckets_for_capacity(capacity, 4)
    if capacity <= GROW_BUCKET:
        m = 1
    else:
        need = math.ceil(capacity / (GROW_BUCKET * GROW_TARGET_LOAD))
        need += math.ceil(math.sqrt(need))
        m = round_buckets(need) if need <= M32 else 0
    if m == 0:
        raise refuse("capacity %d is too large" % capacity)
    c, k0 = split_buckets(m)
    t = budget_tail(c, k0, f, 0)
    if t < MIN_TAIL_BITS:
        raise refuse("fingerprint and generation bits (%d + 0) leave fewer than %d tail bits for "
                     "the address budget" % (f, MIN_TAIL_BITS))
    n = total_bytes_2(m, GROW_BUCKET, f + t, 0)
    if n > MAX_BYTES:
        raise refuse("a filter of %d buckets would take %d bytes, more than the limit of %d"
                     % (m, n, MAX_BYTES))
    h = bytearray(n)
    h[0:4] = b"CKOO"
    h[4], h[5], h[6] = VERSION_2, GROW_BUCKET, f
    h[7] = FLAG_GROWS | FLAG_BUDGET
    h[OFF_TAIL_BITS] = t
    _wr32(h, 16, m)
    _wr32(h, 20, max_kicks)
    _wr64(h, 32, capacity)
    h[OFF_MANTISSA:OFF_MANTISSA + 2] = c.to_bytes(2, "little")
    _wr32(h, OFF_INITIAL_BUCKETS, m)
    return FilterV2(h)


def _rotate_gen_bits(g, keep):
    while (1 << g) <= keep:
        g += 1
    return g


def rotate(src, keep):
    """SQL cuckoo_rotate(src, keep) (cf_rotate): a new version-2 filter in
    the next generation, the generations older than the last keep dropped; a
    version-1 filter (or one with too few generation bits) is rewritten
    first with the generation bits keep needs (docs/FORMAT.md 13.8)."""
    if type(keep) is not int or not 1 <= keep <= MAX_KEEP:
        raise ValueError("keep must be between 1 and %d, not %s" % (MAX_KEEP, keep))
    v2 = src.version == VERSION_2
    t = src.t if v2 else 0
    sg = src.g if v2 else 0
    g = _rotate_gen_bits(sg, keep)
    wide = v2 and src.budget and g != sg and budget_tail(src.c, src.k, src.f, g) >= MIN_TAIL_BITS
    if src.f + t + g > 32 and not wide:
        # (an address-budget filter is refused when T(k) with g is below 2:
        # then f + t + g > 32 with its own t, reported as the server does)
        raise ValueError("cannot rotate a filter of %d-bit fingerprints%s with keep %d: keeping "
                         "%d generations takes %d tag bits per entry, and an entry holds at most "
                         "32 bits" % (src.f, " and %d tail bits" % t if t else "", keep, keep, g))
    if wide:
        t = min(t, budget_tail(src.c, src.k, src.f, g))     # 13.12 rule 6: the tail gives way
    total = total_bytes_2(src.m, src.b, src.f + t + g, g)
    if total > MAX_BYTES:
        raise ValueError("the rotated filter would be larger than %d bytes: rotation adds "
                         "generation tags to every entry" % MAX_BYTES)
    if v2 and g == sg:
        d = FilterV2(bytearray(src._buf))
    else:
        h = bytearray(total)
        sb = src._buf
        h[0:4] = sb[0:4]
        h[4] = VERSION_2
        h[5], h[6] = src.b, src.f
        h[7] = (src._buf[7] & (FLAG_GROWS | FLAG_BUDGET)) if v2 else 0
        h[8:10] = sb[8:10]
        h[OFF_TAIL_BITS], h[OFF_GEN_BITS] = t, g
        h[12:16] = sb[12:16]                      # type tag
        _wr32(h, 16, src.m)
        h[20:24] = sb[20:24]                      # max kicks
        h[24:32] = sb[24:32]                      # items
        h[32:40] = sb[32:40]                      # capacity
        h[OFF_MANTISSA:OFF_MANTISSA + 2] = src.c.to_bytes(2, "little")
        if v2:
            h[OFF_CUR_GEN], h[OFF_KEEP] = sb[OFF_CUR_GEN], sb[OFF_KEEP]
            h[OFF_INITIAL_BUCKETS:OFF_INITIAL_BUCKETS + 4] = sb[OFF_INITIAL_BUCKETS:OFF_INITIAL_BUCKETS + 4]
            h[OFF_ENTRIES:OFF_ENTRIES + 8] = sb[OFF_ENTRIES:OFF_ENTRIES + 8]
        else:
            _wr32(h, OFF_INITIAL_BUCKETS, src.m)
            h[OFF_ENTRIES:OFF_ENTRIES + 8] = sb[24:32]
        d = FilterV2(h)
        dg = _mask(g)
        if v2:
            cur = sb[OFF_CUR_GEN]
            for age in range(src._gmask + 1):
                d._set_gi((cur - age) & dg,
                          src._gi((cur - age) & src._gmask) if sg else (src.items if age == 0 else 0))
            keepbits = src.fp_range | (src._tmask << src.f)
            sh = d.f + d.t
            f = src.f
            top = 1 << (t - 1) if t else 0

            def retag(e):
                # the tail narrowed to t bits when t < src.t (13.12 rule 6):
                # 2^(t-1) | the lowest t - 1 spare bits
                x = e & keepbits
                if t < src.t and (x >> f) >= 2 * top:
                    x = (x & src.fp_range) | ((top | ((x >> f) & (top - 1))) << f)
                return x | (((cur - src._age(e)) & dg) << sh)
            for i in range(src.m):
                for j, e in enumerate(src._slots(i)):
                    if e:
                        d._wr(i, j, retag(e))
            v = src._victim()
            if v is not None:
                d._set_victim(v[0], retag(v[1]))
        else:
            d._set_gi(0, src.items)
            c, k, rmask = src.c, src.k, src.rmask
            for i in range(src.m):
                ni = (i & rmask) * c + (i >> k)
                for j, e in enumerate(src._read(i)):
                    if e:
                        d._wr(ni, j, e)
            if src.victim_used:
                vb = _rd32(sb, 40)
                d._set_victim((vb & rmask) * c + (vb >> k), _rd32(sb, 44))
    d._rotate_in_place(keep)
    d._refresh()
    return d


# what the base class asks the registry for (_filter.Filter: from_bytes and
# the header check, union with a version-1 filter, rotate)
FilterV2._check_header = staticmethod(check_header_2)
FilterV2._shape_error = staticmethod(_shape_error)
FilterV2._rotated = staticmethod(rotate)
_formats.register(FilterV2)
