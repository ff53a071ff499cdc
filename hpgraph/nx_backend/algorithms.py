"""networkx functions implemented on hpgraph (what ``backend="hpgraph"`` runs).

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
import math
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._order import bfs_depths, bfs_levels, max_level
from .graph import HpGraph

__all__ = ["REGISTRY", "implements", "Implementation"]


@dataclass
class Implementation:
    """One networkx function implemented here."""

    name: str
    func: object             # the implementation (networkx's signature, plus ``device=``)
    needs: tuple             # hpgraph.algorithms names it calls
    check: object            # callable(bound arguments) -> True or a reason string
    signature: inspect.Signature


#: name -> Implementation
REGISTRY: dict = {}

_DEVICE = contextvars.ContextVar("hpgraph_nx_device", default=None)


def implements(name, *, needs=(), check=None):
    """Register ``func`` as the hpgraph implementation of networkx's ``name``."""
    def deco(func):
        sig = inspect.signature(func)

        def wrapper(*args, device=None, **kwargs):
            token = _DEVICE.set(device)
            try:
                return func(*args, **kwargs)
            finally:
                _DEVICE.reset(token)

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
        depth = _depth(hg, sid, reverse) if max_level(depth_limit) >= 1 else None
        levels = bfs_levels(hg, [sid], reverse=reverse and hg.is_directed(), limit=depth_limit,
                            depth=depth, backend=dev)
    finally:
        _DEVICE.reset(token)
    edges = []
    for verts, pars in levels[1:]:
        edges.extend(zip(hg.labels_of(pars), hg.labels_of(verts)))
    return edges


# ---------------------------------------------------------------------------------------------
# BFS family (exact networkx order)



@implements("bfs_edges", needs=("bfs",), check=_no_sort_neighbors)
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Edges of a breadth-first search from ``source``, in networkx's order (a generator)."""
    return _bfs_edges_gen(G, source, reverse, depth_limit, device())


def _bfs_edges_gen(hg, source, reverse, depth_limit, dev):
    sid = _neighbors_source(hg, source)
    yield from _bfs_edge_list(hg, sid, reverse, depth_limit, dev)


@implements("bfs_tree", needs=("bfs",), check=_no_sort_neighbors)
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The BFS tree from ``source`` as a ``networkx.DiGraph`` (nodes in networkx's order)."""
    nx = _nx()
    T = nx.DiGraph()
    T.add_node(source)
    sid = _neighbors_source(G, source)
    T.add_edges_from(_bfs_edge_list(G, sid, reverse, depth_limit, device()))
    return T


@implements("bfs_predecessors", needs=("bfs",), check=_no_sort_neighbors)
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """``(node, predecessor)`` pairs in BFS order (a generator)."""
    return _bfs_pred_gen(G, source, depth_limit, device())


def _bfs_pred_gen(hg, source, depth_limit, dev):
    sid = _neighbors_source(hg, source)
    for s, t in _bfs_edge_list(hg, sid, False, depth_limit, dev):
        yield (t, s)


@implements("bfs_successors", needs=("bfs",), check=_no_sort_neighbors)
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """``(node, [successors])`` in BFS order (a generator)."""
    return _bfs_succ_gen(G, source, depth_limit, device())


def _bfs_succ_gen(hg, source, depth_limit, dev):
    sid = _neighbors_source(hg, source)
    parent = source
    children = []
    for p, c in _bfs_edge_list(hg, sid, False, depth_limit, dev):
        if p == parent:
            children.append(c)
            continue
        yield (parent, children)
        children = [c]
        parent = p
    yield (parent, children)


@implements("bfs_layers", needs=("bfs",))
def bfs_layers(G, sources):
    """Lists of nodes at distance 0, 1, 2... from ``sources`` (a generator)."""
    return _bfs_layers_gen(G, sources, device())


def _layer_sources(hg, sources):
    if sources in hg:
        sources = [sources]
    current = list(set(sources))
    for s in current:
        if s not in hg:
            raise _nx().NetworkXError(f"The node {s} is not in the graph.")
    return current


def _bfs_layers_gen(hg, sources, dev):
    current = _layer_sources(hg, sources)
    if not current:
        return
    ids = [hg.index[s] for s in current]
    levels = bfs_levels(hg, ids, backend=dev)
    yield current
    for verts, _ in levels[1:]:
        yield hg.labels_of(verts)


@implements("descendants_at_distance", needs=("bfs",))
def descendants_at_distance(G, source, distance):
    """Nodes at exactly ``distance`` hops from ``source`` (a set)."""
    if source not in G:
        raise _nx().NetworkXError(f"The node {source} is not in the graph.")
    depth = _depth(G, G.index[source])
    try:
        d = int(distance)
    except (TypeError, ValueError, OverflowError):
        d = None
    if d is None or d != distance or d < 0:
        return set()
    return set(G.labels_of(np.flatnonzero(depth == d)))


@implements("descendants", needs=("bfs",))
def descendants(G, source):
    """Nodes reachable from ``source`` (a set, ``source`` excluded)."""
    sid = _neighbors_source(G, source)
    depth = _depth(G, sid)
    return set(G.labels_of(np.flatnonzero(depth > 0)))


@implements("ancestors", needs=("bfs",))
def ancestors(G, source):
    """Nodes from which ``source`` is reachable (a set, ``source`` excluded)."""
    sid = _neighbors_source(G, source)
    depth = _depth(G, sid, reverse=True)
    return set(G.labels_of(np.flatnonzero(depth > 0)))


@implements("has_path", needs=("bfs",))
def has_path(G, source, target):
    """True when ``target`` is reachable from ``source``."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    depth = _depth(G, G.index[source])
    return bool(depth[G.index[target]] >= 0)


def _sssp_length_dict(hg, sid, cutoff, reverse=False):
    """networkx's ``single_source_shortest_path_length`` dict (BFS order) on the engine."""
    dev = device()
    limit = math.inf if cutoff is None else cutoff
    depth = _depth(hg, sid, reverse) if max_level(limit) >= 1 else None
    levels = bfs_levels(hg, [sid], reverse=reverse and hg.is_directed(), limit=limit,
                        depth=depth, backend=dev)
    out = {}
    for d, (verts, _) in enumerate(levels):
        out.update(dict.fromkeys(hg.labels_of(verts), d))
    return out


@implements("single_source_shortest_path_length", needs=("bfs",))
def single_source_shortest_path_length(G, source, cutoff=None):
    """Hop distances from ``source`` (dict, networkx's BFS order)."""
    if source not in G:
        raise _nx().NodeNotFound(f"Source {source} is not in G")
    return _sssp_length_dict(G, G.index[source], cutoff)


@implements("single_target_shortest_path_length", needs=("bfs",))
def single_target_shortest_path_length(G, target, cutoff=None):
    """Hop distances to ``target`` (dict, networkx's BFS order over predecessors)."""
    if target not in G:
        raise _nx().NodeNotFound(f"Target {target} is not in G")
    return _sssp_length_dict(G, G.index[target], cutoff, reverse=True)


# ---------------------------------------------------------------------------------------------
# weighted shortest paths


def _sssp(hg, sid, weight, reverse=False):
    """(distance float64, predecessor) host arrays from the engine's SSSP (cached per source)."""
    from .. import backend as _backend
    sssp = hp_algorithm("sssp")

    dev = device()

    def make():
        G = hg.hp_reverse(weight) if reverse else hg.hp(weight)
        res = sssp(G, sid, backend=dev)
        dist = np.asarray(_backend.to_host(res.distance), dtype=np.float64)
        pred = np.asarray(_backend.to_host(res.predecessor)).astype(np.int64, copy=False)
        return dist, pred
    return _lru(hg, ("sssp", sid, weight, bool(reverse and hg.is_directed())), make)


def _no_negative(hg, weight, who):
    w = hg.min_weight(weight)
    if w is not None and w < 0:
        raise NotImplementedError(f"{who}: negative edge weights (networkx's Dijkstra is not "
                                  "defined there; hpgraph declines and networkx runs)")


def _reached(dist, sid, cutoff):
    """Reached vertex ids ordered by distance (source first), within ``cutoff``."""
    ok = np.isfinite(dist)
    if cutoff is not None:
        ok &= dist <= cutoff
    ids = np.flatnonzero(ok)
    key = dist[ids].copy()
    key[ids == sid] = -np.inf
    return ids[np.argsort(key, kind="stable")]


def _dist_values(hg, weight, dist, ids):
    if hg.weights_integral(weight):
        return dist[ids].astype(np.int64).tolist()
    return dist[ids].tolist()


def _dist_dict(hg, weight, dist, sid, ids):
    keys = hg.labels_of(ids)
    out = dict(zip(keys, _dist_values(hg, weight, dist, ids)))
    out[hg.nodes[sid]] = 0  # networkx's source distance is the int 0
    return out


def _path(hg, pred, sid, t):
    path = [t]
    while path[-1] != sid:
        path.append(int(pred[path[-1]]))
    path.reverse()
    return hg.labels_of(path)


def _all_paths(hg, pred, sid, ids):
    """``{label: path}`` for the vertex ids ``ids`` (parents are built before children)."""
    n = hg.n
    # hops of each vertex in the predecessor tree, by pointer jumping (roots point to themselves)
    par = np.where(pred >= 0, pred, np.arange(n))
    hops = (pred >= 0).astype(np.int64)
    while True:
        nxt = par[par]
        if np.array_equal(nxt, par):
            break
        hops = hops + hops[par]
        par = nxt
    order = ids[np.argsort(hops[ids], kind="stable")]
    labels = hg.nodes
    paths = [None] * n
    paths[sid] = [labels[sid]]
    for v, p in zip(order.tolist(), pred[order].tolist()):
        if v == sid:
            continue
        paths[v] = paths[p] + [labels[v]]
    return {labels[v]: paths[v] for v in ids.tolist()}




@implements("single_source_dijkstra", needs=("sssp",), check=_weight_is_name)
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    """``(distances, paths)`` from ``source`` (or ``(distance, path)`` to ``target``)."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if target == source:
        return (0, [target])
    _no_negative(G, weight, "single_source_dijkstra")
    sid = G.index[source]
    dist, pred = _sssp(G, sid, weight)
    if target is not None:
        tid = G.index.get(target) if target in G else None
        if tid is None or not np.isfinite(dist[tid]) or (cutoff is not None and dist[tid] > cutoff):
            raise nx.NetworkXNoPath(f"No path to {target}.")
        (d,) = _dist_values(G, weight, dist, np.array([tid]))
        return (d, _path(G, pred, sid, tid))
    ids = _reached(dist, sid, cutoff)
    return (_dist_dict(G, weight, dist, sid, ids), _all_paths(G, pred, sid, ids))


@implements("single_source_dijkstra_path_length", needs=("sssp",), check=_weight_is_name)
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Weighted distances from ``source`` (dict)."""
    if source not in G:
        raise _nx().NodeNotFound(f"Node {source} not found in graph")
    _no_negative(G, weight, "single_source_dijkstra_path_length")
    sid = G.index[source]
    dist, _ = _sssp(G, sid, weight)
    return _dist_dict(G, weight, dist, sid, _reached(dist, sid, cutoff))


@implements("single_source_dijkstra_path", needs=("sssp",), check=_weight_is_name)
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    """Shortest paths from ``source`` (dict of node lists)."""
    if source not in G:
        raise _nx().NodeNotFound(f"Node {source} not found in graph")
    _no_negative(G, weight, "single_source_dijkstra_path")
    sid = G.index[source]
    dist, pred = _sssp(G, sid, weight)
    return _all_paths(G, pred, sid, _reached(dist, sid, cutoff))


@implements("dijkstra_path_length", needs=("sssp",), check=_weight_is_name)
def dijkstra_path_length(G, source, target, weight="weight"):
    """Weighted distance from ``source`` to ``target``."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    _no_negative(G, weight, "dijkstra_path_length")
    sid = G.index[source]
    dist, _ = _sssp(G, sid, weight)
    tid = G.index[target] if target in G else None
    if tid is None or not np.isfinite(dist[tid]):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return _dist_values(G, weight, dist, np.array([tid]))[0]


@implements("dijkstra_path", needs=("sssp",), check=_weight_is_name)
def dijkstra_path(G, source, target, weight="weight"):
    """A shortest path from ``source`` to ``target`` (list of nodes)."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return [source]
    _no_negative(G, weight, "dijkstra_path")
    sid = G.index[source]
    dist, pred = _sssp(G, sid, weight)
    tid = G.index[target] if target in G else None
    if tid is None or not np.isfinite(dist[tid]):
        raise nx.NetworkXNoPath(f"No path to {target}.")
    return _path(G, pred, sid, tid)


def _bellman_ford(hg, sid, weight):
    from ..exceptions import NegativeCycleError

    try:
        return _sssp(hg, sid, weight)
    except NegativeCycleError:
        raise _nx().NetworkXUnbounded("Negative cycle detected.") from None




@implements("single_source_bellman_ford_path_length", needs=("sssp",), check=_weight_is_name)
def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """Weighted distances from ``source``, negative weights allowed (dict)."""
    if source not in G:
        raise _nx().NodeNotFound(f"Source {source} not in G")
    sid = G.index[source]
    dist, _ = _bellman_ford(G, sid, weight)
    return _dist_dict(G, weight, dist, sid, _reached(dist, sid, None))


@implements("bellman_ford_path_length", needs=("sssp",), check=_weight_is_name)
def bellman_ford_path_length(G, source, target, weight="weight"):
    """Weighted distance from ``source`` to ``target``, negative weights allowed."""
    nx = _nx()
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    sid = G.index[source]
    dist, _ = _bellman_ford(G, sid, weight)
    tid = G.index[target] if target in G else None
    if tid is None or not np.isfinite(dist[tid]):
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}")
    return _dist_values(G, weight, dist, np.array([tid]))[0]


def _spl_check(b):
    if b.arguments.get("source") is None and b.arguments.get("target") is None:
        return "all-pairs shortest path lengths (source=None, target=None) are not implemented"
    return _weight_is_name(b)


@implements("shortest_path_length", needs=("bfs", "sssp"), check=_spl_check)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Hop or weighted shortest path lengths (networkx's dispatch on source/target/method)."""
    nx = _nx()
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if source is None:
        if target is None:  # pragma: no cover - declined by can_run
            raise NotImplementedError("all-pairs shortest_path_length")
        if method == "unweighted":
            if target not in G:
                raise nx.NodeNotFound(f"Source {target} is not in G")
            return _sssp_length_dict(G, G.index[target], None, reverse=True)
        if method == "dijkstra":
            if target not in G:
                raise nx.NodeNotFound(f"Node {target} not found in graph")
            _no_negative(G, weight, "shortest_path_length")
            tid = G.index[target]
            dist, _ = _sssp(G, tid, weight, reverse=True)
        else:
            if target not in G:
                raise nx.NodeNotFound(f"Source {target} not in G")
            tid = G.index[target]
            from ..exceptions import NegativeCycleError

            try:
                dist, _ = _sssp(G, tid, weight, reverse=True)
            except NegativeCycleError:
                raise nx.NetworkXUnbounded("Negative cycle detected.") from None
        return _dist_dict(G, weight, dist, tid, _reached(dist, tid, None))
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path_length(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path_length(G, source, weight=weight)
        return single_source_bellman_ford_path_length(G, source, weight=weight)
    if method == "unweighted":
        if source not in G:
            raise nx.NodeNotFound(f"Source {source} is not in G")
        if target not in G:
            raise nx.NodeNotFound(f"Target {target} is not in G")
        d = int(_depth(G, G.index[source])[G.index[target]])
        if d < 0:
            raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
        return d
    if method == "dijkstra":
        return dijkstra_path_length(G, source, target, weight)
    return bellman_ford_path_length(G, source, target, weight)


# ---------------------------------------------------------------------------------------------
# link analysis


def _node_vector(hg, d, what):
    """networkx's ``np.array([d.get(n, 0) for n in nodelist], dtype=float)``."""
    if not isinstance(d, Mapping):
        raise NotImplementedError(f"{what} must be a dict")
    return np.array([d.get(v, 0) for v in hg.nodes], dtype=float)


def _link_check(b):
    for name in ("personalization", "nstart", "dangling"):
        v = b.arguments.get(name)
        if v is not None and not isinstance(v, Mapping):
            return f"{name} must be a dict"
    return _weight_is_name(b)


@implements("pagerank", needs=("pagerank",), check=_link_check)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None,
             weight="weight", dangling=None):
    """PageRank (dict of floats)."""
    from .. import backend as _backend
    hp_pagerank = hp_algorithm("pagerank")
    from ..exceptions import ConvergenceError, InvalidValue

    nx = _nx()
    N = len(G)
    if N == 0:
        return {}
    x0 = p = dw = None
    if nstart is not None:
        x0 = _node_vector(G, nstart, "nstart")
        if x0.sum() == 0:
            raise NotImplementedError("nstart sums to zero")
        x0 /= x0.sum()
    if personalization is not None:
        p = _node_vector(G, personalization, "personalization")
        if p.sum() == 0:
            raise ZeroDivisionError
        p /= p.sum()
    if dangling is not None:
        dw = _node_vector(G, dangling, "dangling")
        if dw.sum() == 0:
            raise NotImplementedError("dangling sums to zero")
        dw /= dw.sum()
    try:
        x = hp_pagerank(G.hp(weight), damping=alpha, tol=tol, max_iter=max_iter, variant="networkx",
                        personalization=p, nstart=x0, dangling=dw, weighted=weight is not None,
                        backend=device())
    except ConvergenceError:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    except InvalidValue as exc:  # negative weights or values networkx accepts and we do not
        raise NotImplementedError(f"pagerank: {exc}") from None
    return dict(zip(G.nodes, np.asarray(_backend.to_host(x), dtype=float).tolist()))


@implements("hits", needs=("hits",), check=_link_check)
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """Hub and authority scores (two dicts of floats)."""
    from .. import backend as _backend
    hp_hits = hp_algorithm("hits")
    from ..exceptions import ConvergenceError, InvalidValue

    nx = _nx()
    if len(G) == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    weight = "weight" if "weight" in G.edge_values else None
    x0 = None
    if nstart is not None:
        x0 = _node_vector(G, nstart, "nstart")
        if x0.sum() <= 0 or (x0 < 0).any():
            raise NotImplementedError("hits: nstart must be non-negative with a positive sum")
        x0 = x0 / x0.sum()
    Ghp = G.hp(weight)
    if Ghp.num_edges == 0:
        raise NotImplementedError("hits of a graph without edges (networkx's SVD decides)")
    try:
        h, a = hp_hits(Ghp, max_iter=max_iter, tol=tol, nstart=x0, normalized=True,
                       weighted=weight is not None, backend=device())
    except ConvergenceError:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    except InvalidValue as exc:
        raise NotImplementedError(f"hits: {exc}") from None
    h = np.asarray(_backend.to_host(h), dtype=float)
    a = np.asarray(_backend.to_host(a), dtype=float)
    if not normalized:
        # networkx: the unit-norm principal right singular vector, and hubs = A @ a
        a = a / np.linalg.norm(a)
        h = Ghp.to_scipy().astype(float) @ a
    return dict(zip(G.nodes, h.tolist())), dict(zip(G.nodes, a.tolist()))


# ---------------------------------------------------------------------------------------------
# triangles


@implements("triangles", needs=("triangles",))
def triangles(G, nodes=None):
    """Triangles through each node (dict), or through one node (int)."""
    from .. import backend as _backend
    hp_triangles = hp_algorithm("triangles")

    def counts():
        t = hp_triangles(G.hp(), backend=device())
        return np.asarray(_backend.to_host(t)).astype(np.int64, copy=False)
    t = G.cached("triangles", counts)
    if nodes is not None:
        if nodes in G:
            return int(t[G.index[nodes]])
        return {v: int(t[G.index[v]]) for v in _nbunch(G, nodes)}
    return dict(zip(G.nodes, t.tolist()))


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


def _undirected(b):
    G = b.arguments.get("G")
    if G is not None and G.is_directed():
        return "directed graphs (networkx counts successors only) are not implemented"
    return True


@implements("transitivity", needs=("triangles",), check=_undirected)
def transitivity(G):
    """3 x triangles / connected triples (0 when there are none)."""
    from .. import backend as _backend
    hp_triangles = hp_algorithm("triangles")

    if len(G) == 0:
        return 0
    t = G.cached("triangles", lambda: np.asarray(_backend.to_host(
        hp_triangles(G.hp(), backend=device()))).astype(np.int64, copy=False))
    tri = 2 * int(t.sum())
    deg = np.diff(G.indptr) - G.self_loops()
    contri = int((deg * (deg - 1)).sum())
    return 0 if tri == 0 else tri / contri


# ---------------------------------------------------------------------------------------------
# components


def _components(hg):
    from .. import backend as _backend
    hp_cc = hp_algorithm("connected_components")

    def make():
        k, labels = hp_cc(hg.hp(), backend=device())
        return int(k), np.asarray(_backend.to_host(labels)).astype(np.int64, copy=False)
    return hg.cached("components", make)


@implements("connected_components", needs=("connected_components",))
def connected_components(G):
    """Sets of nodes, one per component, in networkx's order (a generator)."""
    return _cc_gen(G, _components(G))


def _cc_gen(hg, comp):
    k, labels = comp
    if k == 0:
        return
    order = np.argsort(labels, kind="stable")
    bounds = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(labels, minlength=k), out=bounds[1:])
    members = hg.labels_of(order)
    for c in range(k):  # labels are numbered by each component's first node
        yield set(members[bounds[c]:bounds[c + 1]])


@implements("number_connected_components", needs=("connected_components",))
def number_connected_components(G):
    """Number of connected components."""
    return _components(G)[0]


@implements("is_connected", needs=("connected_components",))
def is_connected(G):
    """True when the graph has one component (NetworkXPointlessConcept for the null graph)."""
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _components(G)[0] == 1


@implements("node_connected_component", needs=("connected_components",))
def node_connected_component(G, n):
    """The set of nodes in ``n``'s component."""
    i = G.index[n]  # KeyError, as networkx
    _, labels = _components(G)
    return set(G.labels_of(np.flatnonzero(labels == labels[i])))


# ---------------------------------------------------------------------------------------------
# cores and centrality


@implements("core_number", needs=("k_core",))
def core_number(G):
    """Core number of each node (dict of ints)."""
    from .. import backend as _backend
    k_core = hp_algorithm("k_core")

    if G.self_loops().any():
        raise _nx().NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; Consider using "
            "G.remove_edges_from(nx.selfloop_edges(G)).")
    core = k_core(G.hp(), backend=device())
    return dict(zip(G.nodes, np.asarray(_backend.to_host(core)).astype(np.int64).tolist()))


def _bc_check(b):
    if b.arguments.get("weight") is not None:
        return "weighted betweenness centrality is not implemented (weight must be None)"
    k = b.arguments.get("k")
    G = b.arguments.get("G")
    if k is not None and G is not None and not (isinstance(k, int) and 1 <= k <= len(G)):
        return "k outside [1, len(G)]: networkx raises its own error"
    return True


@implements("betweenness_centrality", needs=("betweenness_centrality",), check=_bc_check)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """Betweenness centrality (dict of floats)."""
    from .. import backend as _backend
    hp_bc = hp_algorithm("betweenness_centrality")

    if len(G) == 0:
        return {}
    bc = hp_bc(G.hp(), k=k, seed=seed, normalized=normalized, endpoints=endpoints,
               backend=device())
    return dict(zip(G.nodes, np.asarray(_backend.to_host(bc), dtype=float).tolist()))


# the public names networkx dispatches; HpGraph is re-exported for convenience
__all__ += sorted(REGISTRY) + ["HpGraph"]
