"""The format registry: format version -> the class that reads it.

Each format's module registers its class here when it is imported (the
package's __init__ imports them all).  The base class, _filter.Filter, asks
here for the class of a version it does not read itself (from_bytes, the
header check, union's refusal, rotate) instead of importing _v2, so no module
of the package imports one that imports it back.  This module imports none.
"""

# cuckoo_rotate writes this format, whatever the format of its argument
# (docs/FORMAT.md 13.8)
ROTATED_VERSION = 2

_CLASSES = {}


def register(cls):
    """Records cls (a Filter subclass with a version attribute) as the reader of
    its format version; returns cls, so that it serves as a class decorator."""
    if cls.version in _CLASSES:
        raise ValueError("format version %d is registered twice" % cls.version)
    _CLASSES[cls.version] = cls
    return cls


def class_for(version):
    """The class that reads format version; the server's ValueError for a
    version this library does not read."""
    cls = _CLASSES.get(version)
    if cls is None:
        raise ValueError("format version %d is not supported (this library reads versions 1 and 2)"
                         % version)
    return cls
