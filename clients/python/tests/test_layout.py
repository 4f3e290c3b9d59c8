"""The package's layout: its modules import one another without a circle, and
the base class reaches the other formats only through the registry."""
import ast
import os

import pgcuckoo
from pgcuckoo import _formats

PKG = os.path.dirname(pgcuckoo.__file__)


def _imports(name):
    """The package modules the module name imports, at any depth (function-level
    imports included)."""
    with open(os.path.join(PKG, name + ".py"), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:            # from ._x import y
                out.add(node.module)
            elif node.level == 1:                          # from . import _x
                out.update(a.name for a in node.names)
            elif node.module and node.module.startswith("pgcuckoo."):
                out.add(node.module.split(".")[1])
            elif node.module == "pgcuckoo":
                out.update(a.name for a in node.names if a.name.startswith("_"))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("pgcuckoo."):
                    out.add(a.name.split(".")[1])
    return out


def _graph():
    names = sorted(f[:-3] for f in os.listdir(PKG) if f.endswith(".py"))
    assert "_filter" in names and "_v2" in names and "_formats" in names
    return {n: _imports(n) for n in names if n != "__init__"}


def _reach(graph, start):
    seen, todo = set(), list(graph.get(start, ()))
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(graph.get(n, ()))
    return seen


def test_no_import_circle():
    graph = _graph()
    for name in graph:
        assert name not in _reach(graph, name), "%s imports itself through %s" % (
            name, sorted(_reach(graph, name)))


def test_base_does_not_import_the_version_2_module():
    graph = _graph()
    assert "_v2" not in _reach(graph, "_filter")
    assert _imports("_formats") == set()


def test_registry_holds_both_formats():
    assert _formats.class_for(1) is pgcuckoo.Filter
    assert _formats.class_for(2) is pgcuckoo.FilterV2
    for v in (0, 3, 255):
        try:
            _formats.class_for(v)
        except ValueError as e:
            assert str(e) == ("format version %d is not supported (this library reads versions "
                              "1 and 2)" % v)
        else:
            raise AssertionError("version %d was accepted" % v)
