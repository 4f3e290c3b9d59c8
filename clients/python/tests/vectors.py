"""Reading clients/vectors/*.json: the server's own answers, shared by every client."""
import datetime
import decimal
import json
import os
import re
import struct
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.environ.get("PGCUCKOO_VECTORS", os.path.join(HERE, "..", "..", "vectors"))

# SQL types whose values pgcuckoo cannot hash (kind "other")
OTHER_TYPES = {"interval", "inet"}


def load(name):
    with open(os.path.join(DIR, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def value(sql_type, text):
    """The Python value for a value as PostgreSQL printed it; None if Python has none."""
    if sql_type in ("int2", "int4", "int8"):
        return int(text)
    if sql_type == "numeric":
        return decimal.Decimal(text)
    if sql_type in ("text", "varchar", "bpchar", "name"):
        return text
    if sql_type == "bytea":
        return bytes.fromhex(text)
    if sql_type == "uuid":
        return uuid.UUID(text)
    if sql_type == "bool":
        return {"true": True, "false": False}[text]
    if sql_type == "float8":
        return float(text)
    if sql_type == "float4":
        return struct.unpack("<f", struct.pack("<f", float(text)))[0]
    if text in ("infinity", "-infinity"):
        return None            # no datetime.date / datetime.datetime for these
    if sql_type == "date":
        return datetime.date.fromisoformat(text)
    if sql_type == "timestamp":
        return datetime.datetime.fromisoformat(text)
    if sql_type == "timestamptz":
        if re.search(r"[+-]\d\d$", text):
            text += ":00"
        return datetime.datetime.fromisoformat(text)
    if sql_type in OTHER_TYPES:
        return None
    raise AssertionError("vector of unknown type " + sql_type)
