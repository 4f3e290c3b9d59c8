#!/usr/bin/env python3
"""Mutated cuckoofilter values as binary COPY files, for test/recv_mutations.sh.

usage: recv_mutations.py SEEDS OUTDIR COUNT [SEED]

SEEDS has one valid filter per line, "name<TAB>hex of f::bytea".  Writes
OUTDIR/v<i>.bin (i = 1..COUNT): a binary COPY file (PGCOPY header, one row,
one field, trailer) whose field is a mutated seed, and OUTDIR/manifest.tsv:
"i<TAB>class<TAB>length<TAB>md5 of the field".  The COPY framing is always
correct, so that every value reaches cuckoo_recv; the mutations are of the
value (docs/FORMAT.md).  Deterministic for a given SEED.
"""
import hashlib
import os
import random
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from cf_layout import FIELDS, HEADER_SIZE as HEADER, MAX_BYTES  # noqa: E402  (src/core/cf_format.h)

U32 = 0xFFFFFFFF
U64 = 0xFFFFFFFFFFFFFFFF


def get(b, name):
    off, fmt = FIELDS[name]
    if len(b) < off + struct.calcsize(fmt):
        return 0                        # a truncated value: the field is missing
    return struct.unpack_from(fmt, b, off)[0]


def put(b, name, value):
    off, fmt = FIELDS[name]
    mask = (1 << (8 * struct.calcsize(fmt))) - 1
    b = bytearray(b)
    if len(b) >= off + struct.calcsize(fmt):
        struct.pack_into(fmt, b, off, value & mask)
    return bytes(b)


def total_len(m, b, f, semisort):
    bits = 4 * (f - 1) if semisort else b * f
    return HEADER + (m * bits + 63) // 64 * 8 + 8


def valid_buckets(r):
    """A random bucket count of the form c * 2^k (docs/FORMAT.md)."""
    k = r.choice([0, 0, 0, 1, 2, 3, 5, 8, 12, 16, 20, 24])
    c = r.randrange(1, 256) if k == 0 else r.randrange(128, 256)
    return c << k


def interesting(r, width, actual):
    top = (1 << width) - 1
    return r.choice([0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 64, 255, 256, 3876, 65535,
                     100000, 100001, 1 << 31, (1 << 31) - 1, U32, U32 + 1, 1 << 63, U64,
                     actual - 1, actual + 1, actual * 2, actual ^ (1 << r.randrange(width)),
                     r.randrange(top + 1)]) & top


class Mutator:
    def __init__(self, seeds, r):
        self.seeds = seeds
        self.r = r

    def bitflip(self, b):
        if not b:
            return b
        b = bytearray(b)
        for _ in range(self.r.randint(1, 4)):
            p = self.r.randrange(len(b))
            b[p] ^= 1 << self.r.randrange(8)
        return bytes(b)

    def byte(self, b):
        if not b:
            return b
        b = bytearray(b)
        b[self.r.randrange(len(b))] = self.r.randrange(256)
        return bytes(b)

    def header_byte(self, b):
        if not b:
            return b
        b = bytearray(b)
        b[self.r.randrange(min(HEADER, len(b)))] = self.r.randrange(256)
        return bytes(b)

    def truncate(self, b):
        if not b:
            return b
        # anywhere, or inside the header, or just short of the end
        n = self.r.choice([self.r.randrange(len(b)), self.r.randrange(HEADER + 1),
                           len(b) - self.r.randint(1, 16)])
        return b[:max(0, n)]

    def extend(self, b):
        n = self.r.choice([1, 7, 8, 9, 16, 64, self.r.randint(1, 300)])
        return b + (bytes(n) if self.r.random() < 0.5 else self.r.randbytes(n))

    def field(self, b):
        name = self.r.choice(list(FIELDS))
        off, fmt = FIELDS[name]
        width = 8 * struct.calcsize(fmt)
        return put(b, name, interesting(self.r, width, get(b, name)))

    def item_count(self, b):
        items = get(b, "items")
        return put(b, "items", self.r.choice([items - 1, items + 1, items + 2, 0, items * 2,
                                              get(b, "num_buckets") * get(b, "bucket_size") + 1]))

    def relength(self, b):
        """Another valid bucket count, the payload cut or padded to its length."""
        m = valid_buckets(self.r) if self.r.random() < 0.7 else self.r.randrange(1, 4096)
        bs, f, semi = get(b, "bucket_size"), get(b, "fp_bits"), get(b, "flags") & 1
        b = put(b, "num_buckets", m)
        want = total_len(m, bs, f, semi) if bs in (2, 4, 8) and 4 <= f <= 32 else len(b)
        want = min(want, 1 << 16)       # cut: the values stay small
        fill = self.r.choice(["zero", "random", "repeat"])
        if want <= len(b):
            return b[:want]
        extra = want - len(b)
        if fill == "zero":
            pad = bytes(extra)
        elif fill == "random":
            pad = self.r.randbytes(extra)
        else:
            body = b[HEADER:] or b"\0"
            pad = (body * (extra // len(body) + 1))[:extra]
        return b + pad

    def padding(self, b):
        b = bytearray(b)
        p = len(b) - self.r.randint(1, 16)
        if p >= HEADER:
            b[p] |= 1 << self.r.randrange(8)
        return bytes(b)

    def victim(self, b):
        b = put(b, "flags", get(b, "flags") | 2)
        m, f = get(b, "num_buckets"), get(b, "fp_bits")
        b = put(b, "victim_bucket", self.r.choice([0, max(m - 1, 0), m, self.r.randrange(max(m, 1))]))
        top = (1 << f) - 1 if 0 < f <= 32 else U32
        b = put(b, "victim_fp", self.r.choice([0, 1, top, top + 1, self.r.randrange(top + 1)]))
        return put(b, "items", get(b, "items") + self.r.choice([0, 1]))

    def semisort_code(self, b):
        if not get(b, "flags") & 1 or len(b) <= HEADER + 2:
            return self.bitflip(b)
        b = bytearray(b)
        m = get(b, "num_buckets")
        bits = 4 * (get(b, "fp_bits") - 1)
        i = self.r.randrange(max(m, 1))
        pos = HEADER * 8 + i * bits
        code = self.r.choice([3875, 3876, 4095, self.r.randrange(4096)])
        for j in range(12):
            byte, bit = divmod(pos + j, 8)
            if byte < len(b):
                if code >> j & 1:
                    b[byte] |= 1 << bit
                else:
                    b[byte] &= ~(1 << bit)
        return bytes(b)

    def huge(self, b):
        """Parameters that would need a huge value; the data stays small."""
        choice = self.r.randrange(5)
        if choice == 0:
            b = put(b, "num_buckets", self.r.choice([U32, 1 << 31, 255 << 24, 128 << 24]))
        elif choice == 1:
            b = put(b, "capacity", self.r.choice([U64, 1 << 63, 1 << 40]))
        elif choice == 2:
            b = put(b, "items", self.r.choice([U64, 1 << 63, U32 + 1]))
        elif choice == 3:
            b = put(put(b, "num_buckets", 255 << 23), "fp_bits", 32)
            b = put(b, "bucket_size", 8)   # 48 + 255*2^23*256/8 bytes: over the limit
        else:
            b = put(b, "max_kicks", self.r.choice([U32, 1 << 31, 100001]))
        return b

    def random_bytes(self, b):
        n = self.r.choice([0, 1, 4, 5, 47, 48, 49, 56, 64, self.r.randrange(400)])
        out = self.r.randbytes(n)
        if self.r.random() < 0.5:
            out = (b"CKOO" + self.r.choice([b"\x01", b"\x02"]) + out[5:])[:max(n, 5)]
        return out

    def splice(self, b):
        other = self.r.choice(self.seeds)
        return b[:HEADER] + other[HEADER:] if self.r.random() < 0.5 else other[:HEADER] + b[HEADER:]

    def v2_header(self, b):
        """Format version 2 (1.2): its header goes on past the 48 bytes of
        version 1 (base bucket count, generation, keep, entries, then one
        8-byte count per generation slot; docs/FORMAT.md).  A field-sized
        boundary value, or a random byte, anywhere in that stretch."""
        if len(b) <= 64 or b[4] != 2:
            return self.version_swap(b)
        end = min(len(b), 64 + 8 * 256)
        width = self.r.choice([1, 2, 4, 8])
        off = self.r.randrange(48, max(49, end - width))
        b = bytearray(b)
        if off + width > len(b):
            return bytes(b)
        if self.r.random() < 0.3:
            b[off] = self.r.randrange(256)
        else:
            actual = int.from_bytes(b[off:off + width], "little")
            value = interesting(self.r, 8 * width, actual)
            b[off:off + width] = value.to_bytes(width, "little")
        return bytes(b)

    def version_swap(self, b):
        """A version-1 value that says it is version 2, or the reverse."""
        if len(b) <= 4:
            return b
        b = bytearray(b)
        b[4] = {1: 2, 2: 1}.get(b[4], self.r.choice([1, 2, 3]))
        return bytes(b)

    def multi(self, b):
        for _ in range(self.r.randint(2, 3)):
            b = getattr(self, self.r.choice(SIMPLE))(b)
            if not b:
                break
        return b


SIMPLE = ["bitflip", "byte", "header_byte", "truncate", "extend", "field", "item_count",
          "relength", "padding", "victim", "semisort_code", "huge", "splice", "v2_header",
          "version_swap"]
WEIGHTS = {"bitflip": 14, "byte": 8, "header_byte": 10, "truncate": 8, "extend": 5,
           "field": 14, "item_count": 6, "relength": 8, "padding": 4, "victim": 5,
           "semisort_code": 3, "huge": 5, "random_bytes": 3, "splice": 3, "multi": 4,
           "v2_header": 10, "version_swap": 2}


def big(seed, random_body, r):
    """A large value: an empty (any-kind) filter of 32 MB, valid with a zero
    body, or the same header over random bytes."""
    m = 200 << 15
    b = seed[:HEADER]
    for name, value in (("version", 1), ("bucket_size", 4), ("fp_bits", 10), ("flags", 0),
                        ("kind", 0), ("reserved", 0), ("type_tag", 0), ("num_buckets", m),
                        ("items", 0), ("capacity", 4 * m), ("victim_bucket", 0), ("victim_fp", 0)):
        b = put(b, name, value)
    n = total_len(m, 4, 10, False) - HEADER
    return b + (r.randbytes(n) if random_body else bytes(n))


def copy_file(payload):
    return (b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
            + struct.pack(">hi", 1, len(payload)) + payload + struct.pack(">h", -1))


def main():
    seeds_path, outdir, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    r = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 42)
    seeds = []
    for line in open(seeds_path):
        name, hexed = line.rstrip("\n").split("\t")
        seeds.append(bytes.fromhex(hexed[2:] if hexed.startswith("\\x") else hexed))
    mut = Mutator(seeds, r)
    classes = list(WEIGHTS)
    weights = [WEIGHTS[c] for c in classes]
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "manifest.tsv"), "w") as manifest:
        for i in range(1, count + 1):
            if i > count - 2:           # the last two: 32 MB values
                cls = "big_empty" if i == count else "big_random"
                value = big(seeds[0], cls == "big_random", r)
            else:
                cls = r.choices(classes, weights)[0]
                value = getattr(mut, cls)(seeds[i % len(seeds)])
            with open(os.path.join(outdir, "v%d.bin" % i), "wb") as out:
                out.write(copy_file(value))
            manifest.write("%d\t%s\t%d\t%s\n" % (i, cls, len(value), hashlib.md5(value).hexdigest()))


if __name__ == "__main__":
    main()
