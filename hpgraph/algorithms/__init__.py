"""Drop-in graph algorithms, each a plain function over hpgraph's public engine.

One module per algorithm; names are loaded on first use so importing hpgraph stays cheap.
"""

from __future__ import annotations

import importlib

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
