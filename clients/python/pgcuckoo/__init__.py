"""pgcuckoo: read, probe, change and build PostgreSQL cuckoofilter values in Python.

Storage-compatible with the cuckoo extension (format version 1,
docs/FORMAT.md): a filter fetched from the database answers every lookup as
cuckoo_contains would, and a filter made or changed here is accepted by the
server.

    >>> import pgcuckoo
    >>> f = pgcuckoo.build([1, 2, 3])
    >>> f.contains(2), pgcuckoo.cuckoo_hash(1)
    (True, 3439722301264460078)
"""
from ._build import agg_fp_bits, build
from ._filter import FORMAT_VERSION, Filter, FilterFullError
from ._hash import cuckoo_hash

__version__ = "1.0.0"
__all__ = ["Filter", "FilterFullError", "build", "cuckoo_hash", "agg_fp_bits",
           "FORMAT_VERSION"]
