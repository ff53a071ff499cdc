"""Drop-in graph algorithms, each a plain function over hpgraph's public engine.

One module per algorithm; names are loaded on first use so importing hpgraph stays cheap.
"""

from __future__ import annotations

import importlib
import sys
import types

_WHERE = {
    "bfs": "bfs", "BFSResult": "bfs",
    "sssp": "sssp", "SSSPResult": "sssp",
    "widest_path": "widest_path", "WidestPathResult": "widest_path",
    "connected_components": "components",
    "betweenness_centrality": "betweenness",
    "pagerank": "pagerank",
    "hits": "hits",
    "triangle_count": "triangles", "triangles": "triangles",
    "k_core": "kcore",
    "label_propagation": "label_propagation",
}

__all__ = sorted(_WHERE)


def __getattr__(name):
    try:
        module = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module 'hpgraph.algorithms' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))


class _Index(types.ModuleType):
    """This package's module type.

    Importing a submodule sets an attribute of its package to the submodule -- and most
    modules here share the name of their function (``pagerank.py`` defines ``pagerank``).
    Without this, ``hpgraph.algorithms.pagerank`` (and so ``hp.pagerank``) would be the
    *module* once any sibling or user imported ``hpgraph.algorithms.pagerank`` before the name
    was first looked up.  The submodule stays in ``sys.modules`` (``from
    hpgraph.algorithms.pagerank import x`` and ``importlib.import_module`` still give it).
    """

    def __setattr__(self, name, value):
        if (isinstance(value, types.ModuleType) and _WHERE.get(name) == name
                and getattr(value, "__name__", "") == f"{__name__}.{name}" and hasattr(value, name)):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Index
