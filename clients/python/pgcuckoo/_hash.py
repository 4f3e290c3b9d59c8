"""The value hash: Python values to the 64-bit hash cuckoo_hash computes in SQL.

Each value family has a canonical byte encoding, hashed with XXH3-64 (seed 0);
docs/FORMAT.md, "Value encoding", is the specification.  Kinds are the
header's value_kind codes.
"""
import datetime
import decimal
import struct
import uuid

import xxhash

KIND_ANY = 0
KIND_INTEGER = 1
KIND_NUMERIC = 2
KIND_TEXT = 3
KIND_BYTEA = 4
KIND_UUID = 5
KIND_DATE = 6
KIND_TIMESTAMP = 7
KIND_TIMESTAMPTZ = 8
KIND_BOOL = 9
KIND_FLOAT = 10
KIND_OTHER = 11

KIND_NAMES = ("any", "integer", "numeric", "text", "bytea", "uuid", "date",
              "timestamp", "timestamptz", "boolean", "float", "other")

_xxh3 = xxhash.xxh3_64_intdigest
_pack_q = struct.Struct("<q").pack
_pack_d = struct.Struct("<d").pack
_NAN_BITS = b"\x00\x00\x00\x00\x00\x00\xf8\x7f"   # 0x7ff8000000000000, little-endian

_PG_EPOCH_DATE = datetime.date(2000, 1, 1).toordinal()
_PG_EPOCH = datetime.datetime(2000, 1, 1)
_PG_EPOCH_UTC = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def numeric_text(d):
    """PostgreSQL's numeric_normalize: plain notation, no trailing fractional zeros."""
    if d.is_nan():
        if d.is_snan():
            raise ValueError("a signalling NaN is not a numeric value")
        return "NaN"
    if d.is_infinite():
        return "-Infinity" if d < 0 else "Infinity"
    if d == 0:
        return "0"
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def _micros(delta):
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds


def encode(value):
    """(kind, canonical bytes) of a Python value; TypeError for other types."""
    t = type(value)
    if t is int:
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError("integer %d is outside int8 (bigint); pass decimal.Decimal for numeric"
                             % value)
        return KIND_INTEGER, _pack_q(value)
    if t is str:
        return KIND_TEXT, value.encode("utf-8")
    if t is bool:
        return KIND_BOOL, _pack_q(1 if value else 0)
    if t is float:
        if value != value:
            return KIND_FLOAT, _NAN_BITS
        return KIND_FLOAT, _pack_d(value + 0.0 if value == 0.0 else value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return KIND_BYTEA, bytes(value)
    if isinstance(value, uuid.UUID):
        return KIND_UUID, value.bytes
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            return KIND_TIMESTAMP, _pack_q(_micros(value - _PG_EPOCH))
        return KIND_TIMESTAMPTZ, _pack_q(_micros(value - _PG_EPOCH_UTC))
    if isinstance(value, datetime.date):
        return KIND_DATE, _pack_q(value.toordinal() - _PG_EPOCH_DATE)
    if isinstance(value, decimal.Decimal):
        return KIND_NUMERIC, numeric_text(value).encode("ascii")
    if isinstance(value, bool):
        return KIND_BOOL, _pack_q(1 if value else 0)
    if isinstance(value, int):
        return encode(int(value))
    if isinstance(value, float):
        return encode(float(value))
    if isinstance(value, str):
        return encode(str(value))
    raise TypeError("cannot hash a value of type %s: pgcuckoo hashes int, str, bytes, "
                    "uuid.UUID, datetime.date, datetime.datetime, bool, float and "
                    "decimal.Decimal (other SQL types are not reproducible outside "
                    "PostgreSQL)" % t.__name__)


def kind_and_hash(value):
    """(kind, unsigned 64-bit hash) of a value."""
    if type(value) is int and _INT64_MIN <= value <= _INT64_MAX:
        return KIND_INTEGER, _xxh3(_pack_q(value))
    kind, data = encode(value)
    return kind, _xxh3(data)


def cuckoo_hash(value):
    """The hash SQL cuckoo_hash(value) returns: a signed 64-bit integer."""
    h = kind_and_hash(value)[1]
    return h - (1 << 64) if h >= (1 << 63) else h


def kind_name(kind):
    return KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else "unknown"


def kind_of(value):
    return kind_and_hash(value)[0]


__all__ = ["cuckoo_hash", "encode", "kind_and_hash", "numeric_text", "kind_name"]
