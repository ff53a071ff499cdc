"""networkx's weighted and unweighted shortest paths on hpgraph's SSSP and BFS."""

from __future__ import annotations

import numpy as np

from ._registry import _depth, _lru, _nx, _weight_is_name, device, hp_algorithm, implements
from ._traversal import _sssp_length_dict, single_source_shortest_path_length

# ---------------------------------------------------------------------------------------------
# weighted shortest paths


def _sssp(hg, sid, weight, reverse=False):
    """(distance float64, predecessor) host arrays from the engine's SSSP (cached per source;
    ``sid`` a tuple of ids: multi-source)."""
    from .. import backend as _backend
    sssp = hp_algorithm("sssp")

    dev = device()

    def make():
        G = hg.hp_reverse(weight) if reverse else hg.hp(weight)
        res = sssp(G, list(sid) if isinstance(sid, tuple) else sid, backend=dev)
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
        paths[v] = [labels[v]] if p < 0 else paths[p] + [labels[v]]  # p < 0: another source
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
    return _weight_is_name(b)


@implements("shortest_path_length", needs=("bfs", "sssp"), check=_spl_check)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Hop or weighted shortest path lengths (networkx's dispatch on source/target/method)."""
    nx = _nx()
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if source is None:
        if target is None:
            from . import _paths_all as pa

            if method == "unweighted":
                return pa.all_pairs_shortest_path_length(G)
            if method == "dijkstra":
                return pa.all_pairs_dijkstra_path_length(G, weight=weight)
            return pa.all_pairs_bellman_ford_path_length(G, weight=weight)
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
# A* without a heuristic (a zero heuristic makes A* Dijkstra's search)


def _astar_check(b):
    if b.arguments.get("heuristic") is not None:
        return "a heuristic (a Python callback per node) is not supported; only heuristic=None"
    return _weight_is_name(b)


def _astar(G, source, target, weight, cutoff):
    """``(distance, path)`` of a shortest path, or NetworkXNoPath as networkx's A*."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    sid, tid = G.index[source], G.index[target]
    if sid == tid:
        return 0, [source]
    _no_negative(G, weight, "astar_path")
    dist, pred = _sssp(G, sid, weight)
    if not np.isfinite(dist[tid]) or (cutoff and dist[tid] > cutoff):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    (d,) = _dist_values(G, weight, dist, np.array([tid]))
    return d, _path(G, pred, sid, tid)


@implements("astar_path", needs=("sssp",), check=_astar_check)
def astar_path(G, source, target, heuristic=None, weight="weight", *, cutoff=None):
    """A shortest path from ``source`` to ``target`` (heuristic None: engine SSSP)."""
    return _astar(G, source, target, weight, cutoff)[1]


@implements("astar_path_length", needs=("sssp",), check=_astar_check)
def astar_path_length(G, source, target, heuristic=None, weight="weight", *, cutoff=None):
    """Length of a shortest path from ``source`` to ``target``."""
    if source not in G or target not in G:
        raise _nx().NodeNotFound(f"Either source {source} or target {target} is not in G")
    return _astar(G, source, target, weight, cutoff)[0]
