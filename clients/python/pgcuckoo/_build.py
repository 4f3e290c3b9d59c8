"""build(values, fpr): the filter SQL cuckoo_agg(value, fpr) returns, byte for byte.

src/cuckoo_agg.c and src/cuckoo_hashset.c: the distinct 64-bit hashes, in ascending order, inserted
into a table of 4-entry buckets sized for load 0.95 with the fewest
fingerprint bits whose expected rate at that load is at most fpr; when an
insert does not fit (the victim slot would be needed), the table grows by
half a percent and the build starts over.
"""
import math

from ._filter import (DEFAULT_KICKS, MAX_BYTES, MAX_FP_BITS, MIN_FP_BITS, OK, Filter,
                      expected_fpr, round_buckets, total_bytes)
from ._hash import KIND_NAMES, kind_and_hash

AGG_BUCKET = 4
AGG_LOAD = 0.95
AGG_MAX_TRIES = 200


def agg_fp_bits(fpr):
    """Fingerprint bits cuckoo_agg uses for fpr."""
    if isinstance(fpr, bool) or not isinstance(fpr, (int, float)):
        raise TypeError("fpr must be a number")
    fpr = float(fpr)
    if math.isnan(fpr) or fpr <= 0.0 or fpr >= 1.0:
        raise ValueError("fpr must be greater than 0 and less than 1, not %g" % fpr)
    for f in range(MIN_FP_BITS, MAX_FP_BITS + 1):
        if expected_fpr(AGG_BUCKET, f, AGG_LOAD) <= fpr:
            return f
    raise ValueError("fpr must be at least %g for cuckoo_agg, not %g"
                     % (expected_fpr(AGG_BUCKET, MAX_FP_BITS, AGG_LOAD), fpr))


def build(values, fpr=0.01, kind=None):
    """The filter cuckoo_agg(value, fpr) builds from these values (None is skipped).

    None when there is no value (or only None), as cuckoo_agg gives NULL over
    no rows (extension 1.1; 1.0 gave an empty one-bucket filter).  kind (a
    value type name such as "integer" or "text"), when given, is the kind
    every value must have (TypeError otherwise), like the column's type in SQL.
    """
    f = agg_fp_bits(fpr)
    want_kind = None
    if kind is not None:
        if kind not in KIND_NAMES[1:-1]:
            raise ValueError("kind must be one of %s" % ", ".join(KIND_NAMES[1:-1]))
        want_kind = KIND_NAMES.index(kind)
    hashes = set()
    for v in values:
        if v is None:
            continue
        k, h = kind_and_hash(v)
        if want_kind is None:
            want_kind = k
        elif k != want_kind:
            raise TypeError("values of different kinds in one filter: %s and %s"
                            % (KIND_NAMES[want_kind], KIND_NAMES[k]))
        hashes.add(h)
    n = len(hashes)
    if n == 0:
        return None
    ordered = sorted(hashes)
    m = round_buckets(math.ceil(n / (AGG_BUCKET * AGG_LOAD)))
    for _ in range(AGG_MAX_TRIES):
        if m == 0 or total_bytes(m, AGG_BUCKET, f, False) > MAX_BYTES:
            raise ValueError("too many distinct values for one cuckoo filter: %d" % n)
        flt = Filter._new(m, AGG_BUCKET, f, False, DEFAULT_KICKS, want_kind, 0, n)
        ins = flt._insert_hash
        if all(ins(h) == OK for h in ordered):
            return flt
        m = round_buckets(m + max(1, m // 200))
    raise ValueError("could not build a cuckoo filter for %d values" % n)
