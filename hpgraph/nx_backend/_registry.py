"""Registration of the networkx functions implemented on hpgraph, and shared helpers.

Every function takes the networkx signature, receives an :class:`~.graph.HpGraph` (networkx
converts the input) and returns what networkx returns: dicts / sets / lists of plain Python
numbers keyed by networkx's node labels, generators where networkx yields, and networkx's
exceptions.  Registration (:func:`implements`) records, per function, the hpgraph algorithms it
needs (a function whose algorithm is missing is declined by ``can_run``) and an optional
argument check (``can_run`` declines what it does not support, and networkx runs its own code).
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass


from ._order import bfs_depths, bfs_levels

__all__ = ["REGISTRY", "CALLS", "DECLINED", "STRICT", "logger", "implements", "Implementation",
           "device", "hp_algorithm", "strict_decline"]


@dataclass
class Implementation:
    """One networkx function implemented here."""

    name: str
    func: object             # the implementation (networkx's signature, plus ``device=``)
    needs: tuple             # hpgraph.algorithms names it calls
    check: object            # callable(bound arguments) -> True or a reason string
    signature: inspect.Signature


#: the backend's logger (a child of ``logging.getLogger("hpgraph")``): DEBUG records say which
#: call ran on hpgraph (and how long it took) and which was declined and why; INFO records
#: report graph conversions (see :mod:`.graph`)
logger = logging.getLogger("hpgraph.nx_backend")

#: name -> Implementation
REGISTRY: dict = {}

#: name -> number of calls whose result the hpgraph implementation produced (read by the
#: test-count plugin :mod:`hpgraph.nx_backend.testing`; one dict increment per call; a call that
#: raised NotImplementedError is counted in DECLINED instead)
CALLS: dict = {}

#: name -> number of calls hpgraph declined (``can_run`` said no, or the implementation raised
#: NotImplementedError): networkx then ran the call itself (with fallback) or xfailed the test
DECLINED: dict = {}

_DEVICE = contextvars.ContextVar("hpgraph_nx_device", default=None)

#: strict test mode, switched on by the test-count plugin while networkx's own tests run against
#: the backend: a call of a function hpgraph dispatches that hpgraph cannot serve (``can_run``
#: says no, or the implementation raises NotImplementedError) xfails the test with hpgraph's
#: reason instead of falling back to networkx, whatever ``nx.config.fallback_to_nx`` says.
#: Only the functions hpgraph does not dispatch at all can then run in networkx.
STRICT = {"on": False}


def strict_decline(name, reason):
    """In strict test mode, xfail the running test: hpgraph cannot serve ``name``."""
    if not STRICT["on"]:
        return
    try:
        from networkx.utils.backends import _dispatchable
    except ImportError:  # pragma: no cover
        return
    if not getattr(_dispatchable, "_is_testing", False):
        return
    import pytest

    pytest.xfail(f"hpgraph cannot run networkx's {name}: {reason}")


def implements(name, *, needs=(), check=None):
    """Register ``func`` as the hpgraph implementation of networkx's ``name``."""
    def deco(func):
        sig = inspect.signature(func)

        def wrapper(*args, device=None, **kwargs):
            token = _DEVICE.set(device)
            where = globals()["device"]() if logger.isEnabledFor(logging.DEBUG) else None
            t0 = time.perf_counter()
            try:
                out = func(*args, **kwargs)
            except NotImplementedError as exc:
                DECLINED[name] = DECLINED.get(name, 0) + 1
                logger.debug("hpgraph declined networkx's %s: %s", name, exc)
                strict_decline(name, exc)
                raise
            finally:
                _DEVICE.reset(token)
            CALLS[name] = CALLS.get(name, 0) + 1
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug("networkx's %s ran on hpgraph (device=%s) in %.3f ms%s", name,
                             where or "auto", 1e3 * (time.perf_counter() - t0),
                             " (a generator: the work runs as it is consumed)"
                             if inspect.isgenerator(out) else "")
            return out

        wrapper.__name__ = wrapper.__qualname__ = name
        wrapper.__doc__ = func.__doc__
        wrapper.__wrapped__ = func
        REGISTRY[name] = Implementation(name, wrapper, tuple(needs), check, sig)
        return func
    return deco


def device():
    """Where hpgraph runs: the call's ``device=``, else ``nx.config.backends.hpgraph.device``."""
    d = _DEVICE.get()
    if d is not None:
        return d
    try:
        import networkx as nx

        return nx.config.backends.hpgraph.get("device", None)
    except Exception:  # no config (networkx without our backend_info): hpgraph's default
        return None


def hp_algorithm(name):
    """``hpgraph.algorithms.<name>`` (the function), imported from its own module.

    ``from hpgraph.algorithms import pagerank`` can return the *module* of that name once it
    has been imported by a sibling, so the function is always taken from its module.
    """
    import importlib

    from .. import algorithms

    module = importlib.import_module(f"hpgraph.algorithms.{algorithms._WHERE[name]}")
    return getattr(module, name)


def _nx():
    import networkx as nx

    return nx


# ---------------------------------------------------------------------------------------------
# argument checks used by can_run (a string says why not)


def _weight_is_name(b):
    w = b.arguments.get("weight")
    if callable(w):
        return "weight functions are not supported (only an edge attribute name or None)"
    return True


def _no_sort_neighbors(b):
    if b.arguments.get("sort_neighbors") is not None:
        return "sort_neighbors is not supported (a Python callback per vertex)"
    return True


def _all(*checks):
    def check(b):
        for c in checks:
            r = c(b)
            if r is not True:
                return r
        return True
    return check


# ---------------------------------------------------------------------------------------------
# helpers


def _lru(hg, key, make, size=8):
    """Small per-graph LRU of results (repeated calls from one source cost nothing)."""
    cache = hg.cached("lru", OrderedDict)
    try:
        cache.move_to_end(key)
        return cache[key]
    except KeyError:
        val = make()
        cache[key] = val
        if len(cache) > size:
            cache.popitem(last=False)
        return val


def _nbunch(hg, nbunch):
    """networkx's ``G.nbunch_iter`` (nodes of ``nbunch`` that are in the graph)."""
    nx = _nx()
    try:
        it = iter(nbunch)
    except TypeError as err:
        raise nx.NetworkXError(f"nbunch is not a node or a sequence of nodes: {nbunch}") from err
    out = []
    try:
        for v in it:
            if v in hg.index:
                out.append(v)
    except TypeError as err:
        raise nx.NetworkXError(f"Node {err} in sequence nbunch is not a valid node.") from err
    return out


def _neighbors_source(hg, source):
    """Vertex id for ``G.neighbors(source)``-style access (networkx's NetworkXError wording)."""
    try:
        return hg.index[source]
    except KeyError:
        kind = "digraph" if hg.is_directed() else "graph"
        raise _nx().NetworkXError(f"The node {source} is not in the {kind}.") from None


def _depth(hg, sid, reverse=False):
    dev = device()
    return _lru(hg, ("depth", sid, bool(reverse and hg.is_directed())),
                lambda: bfs_depths(hg, [sid], reverse=reverse and hg.is_directed(), backend=dev))


def _bfs_edge_list(hg, sid, reverse, depth_limit, dev):
    token = _DEVICE.set(dev)
    try:
        levels = bfs_levels(hg, [sid], reverse=reverse and hg.is_directed(), limit=depth_limit,
                            depth=lambda: _depth(hg, sid, reverse), backend=dev)
    finally:
        _DEVICE.reset(token)
    edges = []
    for verts, pars in levels[1:]:
        edges.extend(zip(hg.labels_of(pars), hg.labels_of(verts)))
    return edges


