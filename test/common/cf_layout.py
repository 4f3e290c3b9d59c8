"""The serialised filter's header layout, read from src/core/cf_format.h.

The C header is the one definition of the byte layout; this module parses its
CF_HEADER_FIELDS table (one "X(NAME, offset, width)" line per field) and a few
#define constants, so that the Python tests use the same offsets as the core.

    from cf_layout import FIELDS, HEADER_SIZE, MAX_BYTES
    FIELDS["num_buckets"] == (16, "<I")
    FIELDS_V2["entries"] == (56, "<Q")
"""
import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
FORMAT_H = os.path.join(_HERE, "..", "..", "src", "core", "cf_format.h")

_STRUCT = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}


def _fields(text, table, path):
    block = re.search(r"#define " + table + r"\(X\)(.*?)\n\n", text, re.S)
    if block is None:
        raise RuntimeError(table + " not found in " + path)
    fields = {}
    for name, off, width in re.findall(r"X\((\w+),\s*(\d+),\s*(\d+)\)", block.group(1)):
        fields[name.lower()] = (int(off), _STRUCT[int(width)])
    return fields


def _parse(path):
    text = open(path).read()
    fields = _fields(text, "CF_HEADER_FIELDS", path)
    fields_v2 = _fields(text, "CF_V2_HEADER_FIELDS", path)
    consts = dict(re.findall(r"^#define (CF_\w+)\s+(\d+)\s*(?:/\*.*)?$", text, re.M))
    return fields, fields_v2, {k: int(v) for k, v in consts.items()}


# FIELDS: version 1 (48-byte header); FIELDS_V2: version 2 (64 bytes, then
# 8 * 2^g bytes of per-generation item counts when g > 0; docs/FORMAT.md)
FIELDS, FIELDS_V2, CONSTANTS = _parse(FORMAT_H)
HEADER_SIZE = CONSTANTS["CF_HEADER_SIZE"]
# "(UINT64_C(805306368) - 65536)" in the header: the largest serialised filter
_max = re.search(r"#define CF_MAX_BYTES\s+\(UINT64_C\((\d+)\) - (\d+)\)", open(FORMAT_H).read())
MAX_BYTES = int(_max.group(1)) - int(_max.group(2))

_WIDTH = {fmt: width for width, fmt in _STRUCT.items()}
if sum(_WIDTH[fmt] for _, fmt in FIELDS.values()) != HEADER_SIZE:
    raise RuntimeError("the header fields of %s do not fill %d bytes" % (FORMAT_H, HEADER_SIZE))
HEADER_SIZE_V2 = CONSTANTS["CF_V2_HEADER_SIZE"]
if sum(_WIDTH[fmt] for _, fmt in FIELDS_V2.values()) != HEADER_SIZE_V2:
    raise RuntimeError("the version-2 header fields of %s do not fill %d bytes" % (FORMAT_H, HEADER_SIZE_V2))
