"""NetworkX backend ``"hpgraph"``: run networkx functions on hpgraph's engine.

Installed through the entry points ``networkx.backends`` (:mod:`hpgraph.nx_backend.interface`)
and ``networkx.backend_info`` (:mod:`hpgraph.nx_backend._info`, which imports nothing heavy).
Use it per call, ``nx.pagerank(G, backend="hpgraph")``, for every call with
``NETWORKX_BACKEND_PRIORITY=hpgraph``, or by passing a converted graph::

    import networkx as nx
    from hpgraph.nx_backend import from_networkx

    H = from_networkx(G, weight="weight")    # an HpGraph; networkx dispatches on it
    nx.pagerank(H)

The package itself stays light: names are loaded on first use.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "HpGraph": ("hpgraph.nx_backend.graph", "HpGraph"),
    "from_networkx": ("hpgraph.nx_backend.graph", "from_networkx"),
    "convert_from_nx": ("hpgraph.nx_backend.graph", "convert_from_nx"),
    "convert_to_nx": ("hpgraph.nx_backend.graph", "convert_to_nx"),
    "BackendInterface": ("hpgraph.nx_backend.interface", "BackendInterface"),
    "backend_interface": ("hpgraph.nx_backend.interface", "backend_interface"),
    "get_info": ("hpgraph.nx_backend._info", "get_info"),
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'hpgraph.nx_backend' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
