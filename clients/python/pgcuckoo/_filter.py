"""A cuckoofilter value (format version 1) outside PostgreSQL.

A port of the extension's core (src/core/): the same byte layout,
fingerprint and bucket derivation, insertion walk, victim slot, union and
validation, so that a filter read from the database answers every lookup as
cuckoo_contains does, and one changed here is the filter the server would
have produced.  docs/FORMAT.md is the specification.  Format version 2
(growing and rotated filters) is read by _v2.FilterV2, a subclass; this
module reaches it only through the registry (_formats), never by import.
"""
import base64
import functools
import math
import struct

from . import _formats
from ._hash import (KIND_ANY, KIND_INTEGER, KIND_OTHER, KIND_NAMES, _pack_q, _xxh3,
                    kind_and_hash, kind_name)

MAGIC = 0x4F4F4B43
VERSION = 1
FORMAT_VERSION = VERSION
HEADER_SIZE = 48
FLAG_SEMISORT = 0x01
FLAG_VICTIM = 0x02
FLAGS_KNOWN = FLAG_SEMISORT | FLAG_VICTIM
MIN_FP_BITS = 4
MAX_FP_BITS = 32
MAX_KICKS_LIMIT = 100000
DEFAULT_KICKS = 500
MAX_BYTES = 805306368 - 65536
KIND_MAX = KIND_OTHER

_load64 = struct.Struct("<Q").unpack_from

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
K_BUCKET = 0x9E3779B97F4A7C15
K_FP = 0xC2B2AE3D27D4EB4F

# semi-sorted buckets: the 3876 sorted 4-nibble multisets and their ranks
_BINOM = [[math.comb(n, r) for r in range(5)] for n in range(20)]
SS_CODES = 3876


def _ss_rank(n0, n1, n2, n3):
    return _BINOM[n0][1] + _BINOM[n1 + 1][2] + _BINOM[n2 + 2][3] + _BINOM[n3 + 3][4]


_SS_DECODE = [None] * 4096
for _a in range(16):
    for _b in range(_a, 16):
        for _c in range(_b, 16):
            for _d in range(_c, 16):
                _SS_DECODE[_ss_rank(_a, _b, _c, _d)] = (_a, _b, _c, _d)
del _a, _b, _c, _d


class FilterFullError(ValueError):
    """An item could not be stored (the SQL functions raise SQLSTATE 54000)."""


# status codes of the insert walk, as in src/core/cf.h
OK, OK_STASHED, EXISTS, FULL, TOO_MANY_COPIES = 0, 1, 2, 3, 4


def _mix64(x):
    x ^= x >> 33
    x = (x * 0xff51afd7ed558ccd) & M64
    x ^= x >> 33
    x = (x * 0xc4ceb9fe1a85ec53) & M64
    x ^= x >> 33
    return x


def _rng_seed(a, b):
    s = _mix64(a ^ _mix64((b + 0x9E3779B97F4A7C15) & M64))
    return s if s else 0x9E3779B97F4A7C15


class _Rng:
    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s

    def next(self):
        x = self.s
        x ^= x >> 12
        x ^= (x << 25) & M64
        x ^= x >> 27
        self.s = x
        return (x * 0x2545F4914F6CDD1D) & M64


def split_buckets(m):
    """m = c << k with c < 256 (k = 0 below 128)."""
    lg = m.bit_length() - 1
    k = lg - 7 if lg >= 7 else 0
    return m >> k, k


def buckets_representable(m):
    if m < 1 or m > M32:
        return False
    c, k = split_buckets(m)
    return (c << k) == m


def round_buckets(min_buckets):
    """The smallest representable bucket count >= min_buckets (0 if none)."""
    if min_buckets < 1:
        min_buckets = 1
    if min_buckets > M32:
        return 0
    _, k = split_buckets(min_buckets)
    cc = (min_buckets + ((1 << k) - 1)) >> k
    if k > 0 and cc == 256:
        cc >>= 1
        k += 1
    if (cc << k) > M32:
        return 0
    return cc << k


def bucket_bits(b, f, semisort):
    return 4 * (f - 1) if semisort else b * f


def total_bytes(m, b, f, semisort):
    bits = m * bucket_bits(b, f, semisort)
    return HEADER_SIZE + ((bits + 63) // 64) * 8 + 8


def expected_fpr(b, f, load):
    if load <= 0:
        return 0.0
    rng = float((1 << f) - 1)
    return -math.expm1(2.0 * b * load * math.log1p(-1.0 / rng))


def _rd16(buf, o):
    return buf[o] | (buf[o + 1] << 8)


def _rd32(buf, o):
    return int.from_bytes(buf[o:o + 4], "little")


def _rd64(buf, o):
    return int.from_bytes(buf[o:o + 8], "little")


def _wr32(buf, o, v):
    buf[o:o + 4] = v.to_bytes(4, "little")


def _wr64(buf, o, v):
    buf[o:o + 8] = v.to_bytes(8, "little")


def _check_header(buf):
    """The server's cf_check_header: ValueError naming the first broken rule."""
    n = len(buf)
    if n < HEADER_SIZE:
        raise ValueError("%d bytes is shorter than the %d-byte header" % (n, HEADER_SIZE))
    if _rd32(buf, 0) != MAGIC:
        raise ValueError("wrong magic number 0x%08x" % _rd32(buf, 0))
    if buf[4] != VERSION:
        return _formats.class_for(buf[4])._check_header(buf)
    flags = buf[7]
    if flags & ~FLAGS_KNOWN:
        raise ValueError("unknown flag bits 0x%02x" % (flags & ~FLAGS_KNOWN))
    if _rd16(buf, 10) != 0:
        raise ValueError("reserved header field is not zero")
    b, f = buf[5], buf[6]
    semisort = bool(flags & FLAG_SEMISORT)
    kind, tag = _rd16(buf, 8), _rd32(buf, 12)
    m, kicks, cap = _rd32(buf, 16), _rd32(buf, 20), _rd64(buf, 32)
    if b not in (2, 4, 8):
        raise ValueError("bucket size %d is not 2, 4 or 8" % b)
    if not MIN_FP_BITS <= f <= MAX_FP_BITS:
        raise ValueError("fingerprint size %d is outside the range %d to %d bits"
                         % (f, MIN_FP_BITS, MAX_FP_BITS))
    if semisort and b != 4:
        raise ValueError("semi-sorting needs bucket size 4, not %d" % b)
    if not buckets_representable(m):
        raise ValueError("bucket count %d is not of the form c * 2^k with c < 256" % m)
    if kicks > MAX_KICKS_LIMIT:
        raise ValueError("max kicks %d is outside the range 0 to %d" % (kicks, MAX_KICKS_LIMIT))
    if kind > KIND_MAX:
        raise ValueError("value kind %d is unknown" % kind)
    if (kind == KIND_OTHER) != (tag != 0):
        raise ValueError("type tag %d does not match value kind %d" % (tag, kind))
    if cap < 1 or cap > m * b:
        raise ValueError("capacity %d is outside the range 1 to %d for %d buckets"
                         % (cap, m * b, m))
    want = total_bytes(m, b, f, semisort)
    if want > MAX_BYTES:
        raise ValueError("a filter of %d buckets would take %d bytes, more than the limit of %d"
                         % (m, want, MAX_BYTES))
    if n != want:
        raise ValueError("length %d does not match the %d bytes that %d buckets need"
                         % (n, want, m))
    if _rd64(buf, 24) > m * b + 1:
        raise ValueError("item count %d exceeds the %d entries of the table"
                         % (_rd64(buf, 24), m * b + 1))
    vb, vfp = _rd32(buf, 40), _rd32(buf, 44)
    if flags & FLAG_VICTIM:
        if vb >= m:
            raise ValueError("victim bucket %d is outside the %d buckets" % (vb, m))
        if vfp == 0 or vfp >= (1 << f):
            raise ValueError("victim fingerprint %d is not a valid %d-bit fingerprint" % (vfp, f))
    elif vb != 0 or vfp != 0:
        raise ValueError("victim fields are set but the victim flag is not")


@functools.lru_cache(maxsize=32)
def _alt_table(c, k, f, b):
    """Per fingerprint fp (at index fp - 1): (the alternate bucket's hashed
    quotient, the bits its remainder is XORed with, fp repeated in each of the
    b fields); shared by the filters of one shape."""
    rmask = (1 << k) - 1
    lo = sum(1 << (j * f) for j in range(b))
    tab = [None] * ((1 << f) - 1)
    for fp in range(1, 1 << f):
        g = (fp * K_FP) & M64
        g ^= g >> 29
        tab[fp - 1] = ((((g & M32) * c) >> 32), (g >> 32) & rmask, fp * lo)
    return tab


_INT_PROBE_MAX_F = 14      # the alternate-bucket table: 2^f entries


def _make_int_probe(flt):
    """This filter's own contains(value), a closure over its constants.

    Values other than an int in bigint's range go to Filter.contains.  For
    ints: the lookup of _contains_hash, for plain integer filters whose
    buckets fit a 64-bit load and whose f is at most 14, with the key's hash
    inlined, every constant a closure variable (no attribute or tuple loads,
    one Python call per lookup), the fingerprint's alternate-bucket arithmetic
    looked up in a table (_alt_table) and, where each bucket starts on a byte
    (B a multiple of 8: f = 8, 10, 12, 14 with b = 4), no bit shift.  The
    bits the 64-bit load reads above the bucket are not masked off: the
    zero-field test's borrows only run upward, so they cannot change the
    bucket's own fields.  None for other filters (kind not integer: the kind
    of an integer filter never changes; semi-sorted; wide buckets; f > 14).
    """
    c, k, rmask, fp_range, B, nb, lo, hi, bmask, semisort = flt._probe_consts
    if (semisort or nb > 8 or flt.f > _INT_PROBE_MAX_F or flt._buf[8] != KIND_INTEGER
            or flt._buf[9]):
        return None
    buf = flt._buf
    slow = flt._contains_hash
    general = Filter.contains
    xxh3, pack, load = _xxh3, _pack_q, _load64
    tab = []

    def table():
        tab.extend(_alt_table(c, k, flt.f, flt.b))
        return tab

    if B % 8 == 0:
        Bb = B >> 3

        def probe(value):
            if type(value) is not int:
                return general(flt, value)
            try:
                h = xxh3(pack(value))
            except struct.error:
                return general(flt, value)      # outside bigint: its error
            hq, rx, fpx = (tab or table())[((h & 0xFFFFFFFF) * fp_range) >> 32]   # fp - 1
            q = (((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFF00000000) * c) >> 64
            r = (h >> 32) & rmask
            x = load(buf, 48 + ((q << k) | r) * Bb)[0] ^ fpx
            if (x - lo) & ~x & hi:
                return True
            q = hq - q
            if q < 0:
                q += c
            x = load(buf, 48 + ((q << k) | (r ^ rx)) * Bb)[0] ^ fpx
            if (x - lo) & ~x & hi:
                return True
            return bool(buf[7] & FLAG_VICTIM) and slow(h)
        probe.__doc__ = general.__doc__
        return probe

    def probe(value):
        if type(value) is not int:
            return general(flt, value)
        try:
            h = xxh3(pack(value))
        except struct.error:
            return general(flt, value)      # outside bigint: its error
        hq, rx, fpx = (tab or table())[((h & 0xFFFFFFFF) * fp_range) >> 32]   # fp - 1
        q = (((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFF00000000) * c) >> 64
        r = (h >> 32) & rmask
        pos = ((q << k) | r) * B
        x = (load(buf, 48 + (pos >> 3))[0] >> (pos & 7)) ^ fpx
        if (x - lo) & ~x & hi:
            return True
        q = hq - q
        if q < 0:
            q += c
        pos = ((q << k) | (r ^ rx)) * B
        x = (load(buf, 48 + (pos >> 3))[0] >> (pos & 7)) ^ fpx
        if (x - lo) & ~x & hi:
            return True
        return bool(buf[7] & FLAG_VICTIM) and slow(h)
    probe.__doc__ = general.__doc__
    return probe


@_formats.register
class Filter:
    """A cuckoofilter value.  The changing methods return a new Filter."""

    version = VERSION        # the format version (FilterV2: 2)

    __slots__ = ("_buf", "m", "c", "k", "rmask", "b", "f", "semisort", "fp_range",
                 "low_bits", "B", "_lo_ones", "_hi_bits", "_bmask", "_nbytes", "_probe_consts",
                 "__dict__")     # __dict__: an instance's own contains (_make_int_probe)

    # ---- construction ----

    def __init__(self, buf):
        # buf: a bytearray whose header has passed _check_header
        self._buf = buf
        self.m = _rd32(buf, 16)
        self.c, self.k = split_buckets(self.m)
        self.rmask = (1 << self.k) - 1
        self.b = buf[5]
        self.f = buf[6]
        self.semisort = bool(buf[7] & FLAG_SEMISORT)
        self.fp_range = (1 << self.f) - 1
        self.low_bits = self.f - 4 if self.semisort else 0
        self.B = bucket_bits(self.b, self.f, self.semisort)
        lo = hi = 0
        for j in range(self.b):
            lo |= 1 << (j * self.f)
            hi |= 1 << (j * self.f + self.f - 1)
        self._lo_ones, self._hi_bits = lo, hi
        self._bmask = (1 << self.B) - 1
        self._nbytes = (7 + self.B + 7) // 8      # bytes that hold a bucket at any bit offset
        # the lookup's constants in one tuple: one attribute load per lookup
        self._probe_consts = (self.c, self.k, self.rmask, self.fp_range, self.B, self._nbytes,
                              lo, hi, self._bmask, self.semisort)
        probe = _make_int_probe(self)
        if probe is not None:
            self.contains = probe        # shadows the method below for this filter

    @classmethod
    def from_bytes(cls, data):
        """The bytea (binary) form, validated as strictly as the server does."""
        if isinstance(data, str):
            raise TypeError("from_bytes takes bytes; use Filter.from_text for the text form")
        buf = bytearray(data)
        if len(buf) > MAX_BYTES:
            raise ValueError("invalid cuckoofilter value: %d bytes is more than the limit of %d"
                             % (len(buf), MAX_BYTES))
        try:
            _check_header(buf)
            flt = _formats.class_for(buf[4])(buf)
            flt._validate_table()
        except ValueError as e:
            raise ValueError("invalid cuckoofilter value: %s" % e) from None
        return flt

    @classmethod
    def from_text(cls, s):
        """The text form: the base64 of the binary form, canonical, nothing else."""
        if isinstance(s, (bytes, bytearray)):
            try:
                s = s.decode("ascii")
            except UnicodeDecodeError:
                raise ValueError("invalid input syntax for type cuckoofilter") from None
        if not isinstance(s, str):
            raise TypeError("from_text takes a str")
        ok = len(s) > 0 and len(s) % 4 == 0 and s.isascii()
        if ok:
            try:
                data = base64.b64decode(s, validate=True)
            except ValueError:
                ok = False
            else:
                # b64decode ignores non-zero bits after the last byte: re-encode
                ok = base64.b64encode(data).decode("ascii") == s
        if not ok:
            raise ValueError("invalid input syntax for type cuckoofilter: a cuckoofilter is "
                             "written as the base64 encoding of its binary form")
        return cls.from_bytes(data)

    @classmethod
    def _new(cls, m, b, f, semisort=False, max_kicks=DEFAULT_KICKS, kind=KIND_ANY,
             type_tag=0, capacity=None):
        """An empty filter of this shape (parameters checked as cf_check_params does)."""
        if capacity is None:
            capacity = m * b
        buf = bytearray(total_bytes(m, b, f, semisort) if buckets_representable(m) else 48)
        _wr32(buf, 0, MAGIC)
        buf[4] = VERSION
        buf[5] = b & 0xFF
        buf[6] = f & 0xFF
        buf[7] = FLAG_SEMISORT if semisort else 0
        buf[8:10] = kind.to_bytes(2, "little")
        _wr32(buf, 12, type_tag)
        _wr32(buf, 16, m)
        _wr32(buf, 20, max_kicks)
        _wr64(buf, 32, capacity)
        _check_header(buf)
        return cls(buf)

    def _copy(self):
        return Filter(bytearray(self._buf))

    # ---- forms ----

    def to_bytes(self):
        """The binary form (what f::bytea returns and bytea::cuckoofilter reads)."""
        return bytes(self._buf)

    def to_text(self):
        """The text form (what the server prints): base64 of the binary form."""
        return base64.b64encode(self._buf).decode("ascii")

    def __bytes__(self):
        return self.to_bytes()

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return "<pgcuckoo.Filter %s items=%d buckets=%d b=%d f=%d%s>" % (
            self.kind_name, self.items, self.m, self.b, self.f,
            " semisort" if self.semisort else "")

    def __eq__(self, other):
        return isinstance(other, Filter) and self._buf == other._buf

    # the in-place forms change a filter: not hashable
    __hash__ = None

    def __len__(self):
        return self.items

    # ---- header ----

    @property
    def items(self):
        return _rd64(self._buf, 24)

    @property
    def capacity(self):
        return _rd64(self._buf, 32)

    @property
    def kind(self):
        return _rd16(self._buf, 8)

    @property
    def kind_name(self):
        return kind_name(self.kind)

    @property
    def type_tag(self):
        return _rd32(self._buf, 12)

    @property
    def max_kicks(self):
        return _rd32(self._buf, 20)

    @property
    def victim_used(self):
        return bool(self._buf[7] & FLAG_VICTIM)

    def info(self):
        """The columns of SQL cuckoo_info(f), as a dict."""
        items = self.items
        load = (items - (1 if self.victim_used else 0)) / (self.m * self.b)
        nbytes = len(self._buf) + 4      # cuckoo_info counts PostgreSQL's 4-byte length word
        return {
            "buckets": self.m,
            "bucket_size": self.b,
            "fingerprint_bits": self.f,
            "semisort": self.semisort,
            "items": items,
            "capacity": self.capacity,
            "load_factor": load,
            "bytes": nbytes,
            "bits_per_item": nbytes * 8.0 / items if items > 0 else None,
            "expected_fpr": expected_fpr(self.b, self.f, load),
            "value_type": self.kind_name,
            "max_kicks": self.max_kicks,
            "is_full": self.victim_used,
            # the columns of extension 1.2, as a version-1 filter has them
            "format_version": VERSION,
            "expansion": 0,
            "tail_bits": 0,
            "initial_buckets": self.m,
            "growth_rounds": 0,
            "split_pointer": 0,
            "entries": items,
            "generation_bits": 0,
            "generation": 0,
            "keep": 0,
            "generation_items": [items],
        }

    def _add_items(self, delta):
        _wr64(self._buf, 24, self.items + delta)

    # ---- buckets ----

    def _word(self, i):
        """Bucket i's bits as an int (B bits)."""
        pos = i * self.B
        o = HEADER_SIZE + (pos >> 3)
        if self._nbytes <= 8:
            return (_load64(self._buf, o)[0] >> (pos & 7)) & self._bmask
        return (int.from_bytes(self._buf[o:o + self._nbytes], "little") >> (pos & 7)) & self._bmask

    def _read(self, i):
        """Bucket i's fingerprints (semi-sorted: in ascending order)."""
        w = self._word(i)
        if not self.semisort:
            f, mask = self.f, self.fp_range
            return [(w >> (j * f)) & mask for j in range(self.b)]
        nib = _SS_DECODE[w & 0xFFF]
        lb = self.low_bits
        lmask = (1 << lb) - 1
        return [(nib[j] << lb) | ((w >> (12 + j * lb)) & lmask) for j in range(4)]

    def _write(self, i, fps):
        if not self.semisort:
            w = 0
            for j in range(self.b):
                w |= fps[j] << (j * self.f)
        else:
            fps.sort()
            lb = self.low_bits
            w = _ss_rank(fps[0] >> lb, fps[1] >> lb, fps[2] >> lb, fps[3] >> lb)
            lmask = (1 << lb) - 1
            for j in range(4):
                w |= (fps[j] & lmask) << (12 + j * lb)
        pos = i * self.B
        sh = pos & 7
        o = HEADER_SIZE + (pos >> 3)
        cur = int.from_bytes(self._buf[o:o + self._nbytes], "little")
        cur = (cur & ~(self._bmask << sh)) | (w << sh)
        self._buf[o:o + self._nbytes] = cur.to_bytes(self._nbytes, "little")

    def _has(self, i, fp):
        if not self.semisort:
            x = self._word(i) ^ (fp * self._lo_ones)
            return ((x - self._lo_ones) & ~x & self._hi_bits) != 0
        return fp in self._read(i)

    def _count_in(self, i, fp):
        return self._read(i).count(fp)

    def _place(self, i, fp):
        fps = self._read(i)
        for j in range(self.b):
            if fps[j] == 0:
                fps[j] = fp
                self._write(i, fps)
                return True
        return False

    def _take(self, i, fp):
        fps = self._read(i)
        for j in range(self.b):
            if fps[j] == fp:
                fps[j] = 0
                self._write(i, fps)
                return True
        return False

    def _full(self, i):
        return 0 not in self._read(i)

    # ---- hashing to places ----

    def _locate(self, h):
        q = ((((h * K_BUCKET) & M64) >> 32) * self.c) >> 32
        r = (h >> 32) & self.rmask
        fp = 1 + (((h & M32) * self.fp_range) >> 32)
        return fp, (q << self.k) | r

    def _alt(self, i, fp):
        g = (fp * K_FP) & M64
        g ^= g >> 29
        q = i >> self.k
        hq = ((g & M32) * self.c) >> 32
        q2 = hq - q if hq >= q else hq + self.c - q
        return (q2 << self.k) | ((i & self.rmask) ^ ((g >> 32) & self.rmask))

    def _victim_matches(self, fp, i1, i2):
        buf = self._buf
        if not buf[7] & FLAG_VICTIM or _rd32(buf, 44) != fp:
            return False
        vb = _rd32(buf, 40)
        return vb == i1 or vb == i2

    def _set_victim(self, i, fp):
        self._buf[7] |= FLAG_VICTIM
        _wr32(self._buf, 40, i)
        _wr32(self._buf, 44, fp)

    def _clear_victim(self):
        self._buf[7] &= ~FLAG_VICTIM & 0xFF
        _wr32(self._buf, 40, 0)
        _wr32(self._buf, 44, 0)

    # ---- the insertion walk (src/core/cf_table.c cf_insert_fingerprint) ----

    def _move_one_aside(self, i1, i2, fp):
        cands = []
        for side in (0, 1):
            bi = i2 if side else i1
            if side and i2 == i1:
                break
            for j, x in enumerate(self._read(bi)):
                cands.append((bi, j, x, self._alt(bi, x)))
        for home, slot, moved, alt in cands:
            if alt == home or not self._place(alt, moved):
                continue
            fps = self._read(home)
            fps[slot] = fp
            self._write(home, fps)
            return True
        return False

    def _pair_only_fp(self, i1, i2, fp):
        n = self._count_in(i1, fp)
        if i2 == i1:
            return n == self.b
        return n == self.b and self._count_in(i2, fp) == self.b

    def _insert_fp(self, i1, fp, seed, check_copies):
        i2 = self._alt(i1, fp)
        if self._place(i1, fp) or (i2 != i1 and self._place(i2, fp)):
            self._add_items(1)
            return OK
        if check_copies and self._pair_only_fp(i1, i2, fp):
            return TOO_MANY_COPIES
        if self.victim_used:
            return FULL
        kicks = self.max_kicks
        if kicks > 0 and self._move_one_aside(i1, i2, fp):
            self._add_items(1)
            return OK
        rng = _Rng(_rng_seed(seed, ((i1 << 32) | fp) & M64))
        i = i2 if rng.next() & 1 else i1
        for _ in range(1, kicks):
            slot = (rng.next() >> 32) & (self.b - 1)
            fps = self._read(i)
            out = fps[slot]
            fps[slot] = fp
            self._write(i, fps)
            fp = out
            i = self._alt(i, fp)
            if self._place(i, fp):
                self._add_items(1)
                return OK
        self._set_victim(i, fp)
        self._add_items(1)
        return OK_STASHED

    def _insert_hash(self, h):
        fp, i1 = self._locate(h)
        return self._insert_fp(i1, fp, h ^ self.items, True)

    def _contains_hash(self, h):
        # _locate, _alt, _word and _has written out in one function: a lookup
        # costs about a third as much as through the helpers
        c, k, rmask, fp_range, B, nb, lo, hi, bmask, semisort = self._probe_consts
        buf = self._buf
        fp = 1 + (((h & 0xFFFFFFFF) * fp_range) >> 32)
        q = ((((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 32) * c) >> 32
        r = (h >> 32) & rmask
        g = (fp * 0xC2B2AE3D27D4EB4F) & 0xFFFFFFFFFFFFFFFF
        g ^= g >> 29
        q2 = (((g & 0xFFFFFFFF) * c) >> 32) - q
        if q2 < 0:
            q2 += c
        i1 = (q << k) | r
        i2 = (q2 << k) | (r ^ ((g >> 32) & rmask))
        if semisort:
            if fp in self._read(i1) or fp in self._read(i2):
                return True
        elif nb <= 8:
            # a bucket and its bit offset fit one 64-bit load (the table is
            # followed by 8 zero bytes, so the load never leaves the buffer)
            fpx = fp * lo
            pos = i1 * B
            x = ((_load64(buf, 48 + (pos >> 3))[0] >> (pos & 7)) & bmask) ^ fpx
            if (x - lo) & ~x & hi:
                return True
            pos = i2 * B
            x = ((_load64(buf, 48 + (pos >> 3))[0] >> (pos & 7)) & bmask) ^ fpx
            if (x - lo) & ~x & hi:
                return True
        else:
            fpx = fp * lo
            pos = i1 * B
            o = 48 + (pos >> 3)
            x = ((int.from_bytes(buf[o:o + nb], "little") >> (pos & 7)) & bmask) ^ fpx
            if (x - lo) & ~x & hi:
                return True
            pos = i2 * B
            o = 48 + (pos >> 3)
            x = ((int.from_bytes(buf[o:o + nb], "little") >> (pos & 7)) & bmask) ^ fpx
            if (x - lo) & ~x & hi:
                return True
        return bool(buf[7] & FLAG_VICTIM) and self._victim_matches(fp, i1, i2)

    def _pair_count(self, i1, i2, fp):
        n = self._count_in(i1, fp)
        if i2 != i1:
            n += self._count_in(i2, fp)
        return n + (1 if self._victim_matches(fp, i1, i2) else 0)

    def _reinsert_victim(self):
        if not self.victim_used:
            return
        vb, vfp = _rd32(self._buf, 40), _rd32(self._buf, 44)
        self._clear_victim()
        self._add_items(-1)
        self._insert_fp(vb, vfp, self.items, False)

    def _remove_hash(self, h):
        fp, i1 = self._locate(h)
        i2 = self._alt(i1, fp)
        if self._take(i1, fp) or (i2 != i1 and self._take(i2, fp)):
            self._add_items(-1)
            self._reinsert_victim()
            return True
        if self._victim_matches(fp, i1, i2):
            self._clear_victim()
            self._add_items(-1)
            return True
        return False

    # ---- values ----

    def _hash_for(self, value):
        """The value's hash, after checking it belongs in this filter (TypeError if not)."""
        kind, h = kind_and_hash(value)
        fk = self.kind
        if fk != KIND_ANY and fk != kind:
            if fk == KIND_OTHER:
                raise TypeError("the filter holds values of a type outside the built-in "
                                "families (tag %08x), which pgcuckoo cannot hash" % self.type_tag)
            raise TypeError("cuckoo filter holds %s values, not %s"
                            % (kind_name(fk), KIND_NAMES[kind]))
        return kind, h

    def contains(self, value):
        """May value be in the filter?  (SQL cuckoo_contains.)"""
        # (integer filters of the common shapes answer through their own
        # contains, made by _make_int_probe)
        if type(value) is int and self._buf[8] < 2 and not self._buf[9]:
            # an integer probing an integer (or empty) filter: the common case, inlined
            try:
                return self._contains_hash(_xxh3(_pack_q(value)))
            except struct.error:
                pass          # outside bigint: _hash_for says so
        return self._contains_hash(self._hash_for(value)[1])

    def contains_many(self, values):
        """[contains(v) for v in values], with less overhead per value."""
        probe = self.__dict__.get("contains")
        if probe is not None:
            return list(map(probe, values))      # this filter's own contains
        hashes = []
        append = hashes.append
        ints_ok = self._buf[8] < 2 and not self._buf[9]
        for v in values:
            if ints_ok and type(v) is int and -0x8000000000000000 <= v <= 0x7FFFFFFFFFFFFFFF:
                append(_xxh3(_pack_q(v)))
            else:
                append(self._hash_for(v)[1])
        c, k, rmask, fp_range, B, nb, lo, hi, bmask, semisort = self._probe_consts
        if semisort or nb > 8 or self.victim_used:
            return [self._contains_hash(h) for h in hashes]
        buf = self._buf
        out = []
        push = out.append
        for h in hashes:
            fp = 1 + (((h & 0xFFFFFFFF) * fp_range) >> 32)
            q = ((((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 32) * c) >> 32
            r = (h >> 32) & rmask
            fpx = fp * lo
            pos = ((q << k) | r) * B
            x = ((_load64(buf, 48 + (pos >> 3))[0] >> (pos & 7)) & bmask) ^ fpx
            if (x - lo) & ~x & hi:
                push(True)
                continue
            g = (fp * 0xC2B2AE3D27D4EB4F) & 0xFFFFFFFFFFFFFFFF
            g ^= g >> 29
            q2 = (((g & 0xFFFFFFFF) * c) >> 32) - q
            if q2 < 0:
                q2 += c
            pos = ((q2 << k) | (r ^ ((g >> 32) & rmask))) * B
            x = ((_load64(buf, 48 + (pos >> 3))[0] >> (pos & 7)) & bmask) ^ fpx
            push(bool((x - lo) & ~x & hi))
        return out

    __contains__ = contains

    def count(self, value):
        """Stored copies of value's fingerprint: an upper bound (SQL cuckoo_count)."""
        fp, i1 = self._locate(self._hash_for(value)[1])
        return self._pair_count(i1, self._alt(i1, fp), fp)

    def _add(self, value, if_absent):
        kind, h = self._hash_for(value)
        if self.kind == KIND_ANY:
            self._buf[8:10] = kind.to_bytes(2, "little")
        if if_absent and self._contains_hash(h):
            return EXISTS
        st = self._insert_hash(h)
        if st == FULL:
            raise FilterFullError(
                "cuckoo filter is full: it holds %d items in %d buckets of %d entries%s; "
                "its rated capacity is %d" % (self.items, self.m, self.b,
                                              " and the victim slot" if self.victim_used else "",
                                              self.capacity))
        if st == TOO_MANY_COPIES:
            raise FilterFullError("value was added to the cuckoo filter too many times: a filter "
                                  "with bucket size %d holds at most %d copies of one value"
                                  % (self.b, 2 * self.b))
        return st

    def add(self, value):
        """A new filter with one more occurrence of value (SQL cuckoo_add)."""
        g = self._copy()
        g._add(value, False)
        return g

    def add_if_absent(self, value):
        """A new filter with value added unless already reported (SQL cuckoo_add_if_absent)."""
        g = self._copy()
        g._add(value, True)
        return g

    def remove(self, value):
        """A new filter with one occurrence of value removed (SQL cuckoo_remove)."""
        g = self._copy()
        g.remove_in_place(value)
        return g

    def add_in_place(self, value):
        """Adds value to this filter; raises FilterFullError (filter unchanged) if it cannot."""
        self._add(value, False)

    def add_if_absent_in_place(self, value):
        """Adds value unless already reported; returns whether it was added."""
        return self._add(value, True) != EXISTS

    def remove_in_place(self, value):
        """Removes one occurrence of value; returns whether one was found."""
        kind, h = self._hash_for(value)
        if self.kind == KIND_ANY:
            return False
        return self._remove_hash(h)

    # ---- union ----

    def _same_shape(self, o):
        return self.m == o.m and self.b == o.b and self.f == o.f and self.semisort == o.semisort

    def _union_key(self, src, i, a, fp):
        want = src._pair_count(i, a, fp)
        have = self._pair_count(i, a, fp)
        while have < want:
            st = self._insert_fp(i, fp, self.items, False)
            if st not in (OK, OK_STASHED):
                return st
            have += 1
        return OK

    def union(self, other):
        """A new filter holding the items of both (multiset union, SQL cuckoo_union)."""
        if not isinstance(other, Filter):
            raise TypeError("union takes a Filter")
        if other.version != VERSION:
            raise _formats.class_for(other.version)._shape_error(self, other)
        if not self._same_shape(other):
            raise ValueError("cannot union cuckoo filters of different shapes: %d buckets of %d "
                             "%d-bit fingerprints%s and %d buckets of %d %d-bit fingerprints%s"
                             % (self.m, self.b, self.f, " (semi-sorted)" if self.semisort else "",
                                other.m, other.b, other.f,
                                " (semi-sorted)" if other.semisort else ""))
        dk, sk = self.kind, other.kind
        if sk != KIND_ANY and dk != KIND_ANY and (sk != dk or self.type_tag != other.type_tag):
            raise TypeError("cannot union a cuckoo filter of %s values with one of %s values"
                            % (kind_name(dk), kind_name(sk)))
        dst = self._copy()
        src = other
        if dk == KIND_ANY and src.items > 0:
            dst._buf[8:10] = sk.to_bytes(2, "little")
            _wr32(dst._buf, 12, src.type_tag)
        if src.capacity > dst.capacity:
            _wr64(dst._buf, 32, src.capacity)
        for i in range(src.m):
            fps = src._read(i)
            for j in range(src.b):
                fp = fps[j]
                if fp == 0 or fp in fps[:j]:
                    continue
                a = src._alt(i, fp)
                if a < i and src._has(a, fp):
                    continue
                if dst._union_key(src, i, a, fp) != OK:
                    raise FilterFullError("the union does not fit in a cuckoo filter of this shape")
        if src.victim_used:
            vb, vfp = _rd32(src._buf, 40), _rd32(src._buf, 44)
            a = src._alt(vb, vfp)
            if not src._has(vb, vfp) and not src._has(a, vfp):
                if dst._union_key(src, vb, a, vfp) != OK:
                    raise FilterFullError("the union does not fit in a cuckoo filter of this shape")
        return dst

    def rotate(self, keep):
        """A new version-2 filter, as SQL cuckoo_rotate(f, keep) makes it (docs/FORMAT.md 13.8)."""
        return _formats.class_for(_formats.ROTATED_VERSION)._rotated(self, keep)

    # ---- validation (src/core/cf_validate.c cf_validate, after the header) ----

    def _validate_table(self):
        count = 0
        for i in range(self.m):
            if self.semisort:
                code = self._word(i) & 0xFFF
                if code >= SS_CODES:
                    raise ValueError("bucket %d has semi-sort code %d, above the largest (%d)"
                                     % (i, code, SS_CODES - 1))
                fps = self._read(i)
                if fps[0] > fps[1] or fps[1] > fps[2] or fps[2] > fps[3]:
                    raise ValueError("bucket %d is not in semi-sorted order" % i)
            else:
                fps = self._read(i)
            count += self.b - fps.count(0)
        used = self.m * self.B
        data = self._buf
        end_bits = (len(data) - HEADER_SIZE) * 8
        if used < end_bits:
            first = HEADER_SIZE + (used >> 3)
            if data[first] >> (used & 7) or any(data[first + 1:]):
                raise ValueError("padding after the bucket array is not zero")
        if self.victim_used:
            vb, vfp = _rd32(data, 40), _rd32(data, 44)
            count += 1
            if not self._full(vb) or not self._full(self._alt(vb, vfp)):
                raise ValueError("victim slot is in use although its buckets have room")
        items = self.items
        if items != count:
            raise ValueError("item count %d disagrees with the %d fingerprints in the table"
                             % (items, count))
        if self.kind == KIND_ANY and items != 0:
            raise ValueError("a filter with items must record the kind of value it holds")
