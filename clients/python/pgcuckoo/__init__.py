"""pgcuckoo: read, probe, change and build PostgreSQL cuckoofilter values in Python.

Storage-compatible with the cuckoo extension (docs/FORMAT.md): a filter
fetched from the database answers every lookup as cuckoo_contains would, and
a filter made or changed here is accepted by the server.  Format version 1 is
read, changed and built; format version 2 (growing and rotated filters,
FilterV2; create_growing makes an empty growing one) is read, probed and
changed (add, add_if_absent, remove, union, rotate), with the bytes the
server gives for the same operations.

    >>> import pgcuckoo
    >>> f = pgcuckoo.build([1, 2, 3])
    >>> f.contains(2), pgcuckoo.cuckoo_hash(1)
    (True, 3439722301264460078)
"""
from ._build import agg_fp_bits, build
from ._filter import FORMAT_VERSION, Filter, FilterFullError
from ._hash import cuckoo_hash
from ._store import Store, store_segment
from ._v2 import FilterV2, create_growing

__version__ = "1.0.0"
__all__ = ["Filter", "FilterV2", "FilterFullError", "build", "cuckoo_hash", "agg_fp_bits",
           "FORMAT_VERSION", "Store", "store_segment", "create_growing"]
