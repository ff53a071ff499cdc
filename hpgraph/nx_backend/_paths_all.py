"""networkx's path-returning, multi-source and all-pairs shortest paths on hpgraph's BFS and SSSP.

Unweighted paths come from the BFS levels rebuilt in networkx's order (:mod:`._order`), so
``single_source_shortest_path`` returns exactly networkx's paths.  Weighted paths follow the
engine's shortest-path tree (equal-length alternatives may differ from networkx's).  All-pairs
functions run one engine BFS / SSSP per source and, like networkx, yield ``(node, result)``
lazily; argument checks that networkx makes before yielding are made before the generator is
returned.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ._order import bfs_levels
from ._paths import (_all_paths, _bellman_ford, _dist_dict, _dist_values, _no_negative,
                     _path, _reached, _sssp, single_source_dijkstra,
                     single_source_dijkstra_path, single_source_dijkstra_path_length,
                     single_source_bellman_ford_path_length)
from ._registry import _depth, _nx, _weight_is_name, device, implements
from ._traversal import single_source_shortest_path_length


def _bfs_paths(hg, sid, cutoff, reverse=False):
    """networkx's ``single_source_shortest_path`` (or ``single_target_...``) dict."""
    levels = bfs_levels(hg, [sid], reverse=reverse and hg.is_directed(),
                        limit=float("inf") if cutoff is None else cutoff,
                        depth=lambda: _depth(hg, sid, reverse), backend=device())
    labels = hg.nodes
    paths = {labels[sid]: [labels[sid]]}
    byid = {sid: paths[labels[sid]]}
    for verts, pars in levels[1:]:
        for v, p in zip(verts.tolist(), pars.tolist()):
            path = [*byid[p], labels[v]]
            byid[v] = path
            paths[labels[v]] = path
    if reverse:
        for k in paths:
            paths[k] = paths[k][::-1]
    return paths


@implements("single_source_shortest_path", needs=("bfs",))
def single_source_shortest_path(G, source, cutoff=None):
    """Hop-shortest paths from ``source`` (dict of node lists, networkx's paths and order)."""
    if source not in G:
        raise _nx().NodeNotFound(f"Source {source} not in G")
    return _bfs_paths(G, G.index[source], cutoff)


@implements("single_target_shortest_path", needs=("bfs",))
def single_target_shortest_path(G, target, cutoff=None):
    """Hop-shortest paths to ``target`` (dict of node lists)."""
    if target not in G:
        raise _nx().NodeNotFound(f"Target {target} not in G")
    return _bfs_paths(G, G.index[target], cutoff, reverse=True)


@implements("all_pairs_shortest_path_length", needs=("bfs",))
def all_pairs_shortest_path_length(G, cutoff=None):
    """``(node, {target: hops})`` for every node (a generator)."""
    return ((v, single_source_shortest_path_length(G, v, cutoff=cutoff)) for v in list(G.nodes))


@implements("all_pairs_shortest_path", needs=("bfs",))
def all_pairs_shortest_path(G, cutoff=None):
    """``(node, {target: path})`` for every node (a generator)."""
    return ((v, _bfs_paths(G, G.index[v], cutoff)) for v in list(G.nodes))


@implements("bidirectional_shortest_path", needs=("bfs",))
def bidirectional_shortest_path(G, source, target):
    """A hop-shortest path from ``source`` to ``target`` (from one BFS; ties may differ)."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    if source == target:
        return [source]
    sid = G.index[source]
    if _depth(G, sid)[G.index[target]] < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return _bfs_paths(G, sid, None)[target]


def _sp_check(b):
    m = b.arguments.get("method", "dijkstra")
    if m not in ("dijkstra", "bellman-ford"):
        return True  # networkx's ValueError is raised by the implementation
    return _weight_is_name(b)


@implements("shortest_path", needs=("bfs", "sssp"), check=_sp_check)
def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    """Shortest paths, dispatched on source / target / method as networkx does."""
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if source is None:
        if target is None:
            if method == "unweighted":
                return all_pairs_shortest_path(G)
            if method == "dijkstra":
                return all_pairs_dijkstra_path(G, weight=weight)
            return all_pairs_bellman_ford_path(G, weight=weight)
        if method == "unweighted":
            return single_target_shortest_path(G, target)
        nx = _nx()
        if target not in G:
            raise nx.NodeNotFound(f"Node {target} not found in graph" if method == "dijkstra"
                                  else f"Source {target} not in G")
        if method == "dijkstra":
            _no_negative(G, weight, "shortest_path")
        tid = G.index[target]
        if method == "dijkstra":
            dist, pred = _sssp(G, tid, weight, reverse=True)
        else:
            dist, pred = _bf_reverse(G, tid, weight)
        paths = _all_paths(G, pred, tid, _reached(dist, tid, None))
        return {k: p[::-1] for k, p in paths.items()}
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path(G, source, weight=weight)
        return single_source_bellman_ford_path(G, source, weight=weight)
    if method == "unweighted":
        return bidirectional_shortest_path(G, source, target)
    if method == "dijkstra":
        return bidirectional_dijkstra(G, source, target, weight)[1]
    return bellman_ford_path(G, source, target, weight)


def _bf_reverse(hg, tid, weight):
    from ..exceptions import NegativeCycleError

    try:
        return _sssp(hg, tid, weight, reverse=True)
    except NegativeCycleError:
        raise _nx().NetworkXUnbounded("Negative cycle detected.") from None


@implements("bidirectional_dijkstra", needs=("sssp",), check=_weight_is_name)
def bidirectional_dijkstra(G, source, target, weight="weight"):
    """``(length, path)`` from ``source`` to ``target`` (one engine SSSP; ties may differ)."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    if source == target:
        return (0, [source])
    _no_negative(G, weight, "bidirectional_dijkstra")
    sid, tid = G.index[source], G.index[target]
    dist, pred = _sssp(G, sid, weight)
    if not np.isfinite(dist[tid]):
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return (_dist_values(G, weight, dist, np.array([tid]))[0], _path(G, pred, sid, tid))


# ---------------------------------------------------------------------------------------------
# all pairs (weighted)


@implements("all_pairs_dijkstra", needs=("sssp",), check=_weight_is_name)
def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    """``(node, (distances, paths))`` for every node (a generator)."""
    if len(G):
        _no_negative(G, weight, "all_pairs_dijkstra")
    return ((v, single_source_dijkstra(G, v, cutoff=cutoff, weight=weight))
            for v in list(G.nodes))


@implements("all_pairs_dijkstra_path_length", needs=("sssp",), check=_weight_is_name)
def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """``(node, {target: distance})`` for every node (a generator)."""
    if len(G):
        _no_negative(G, weight, "all_pairs_dijkstra_path_length")
    return ((v, single_source_dijkstra_path_length(G, v, cutoff=cutoff, weight=weight))
            for v in list(G.nodes))


@implements("all_pairs_dijkstra_path", needs=("sssp",), check=_weight_is_name)
def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    """``(node, {target: path})`` for every node (a generator)."""
    if len(G):
        _no_negative(G, weight, "all_pairs_dijkstra_path")
    return ((v, single_source_dijkstra_path(G, v, cutoff=cutoff, weight=weight))
            for v in list(G.nodes))


@implements("all_pairs_bellman_ford_path_length", needs=("sssp",), check=_weight_is_name)
def all_pairs_bellman_ford_path_length(G, weight="weight"):
    """``(node, {target: distance})`` for every node (a generator); negative weights allowed."""
    return ((v, single_source_bellman_ford_path_length(G, v, weight=weight))
            for v in list(G.nodes))


@implements("all_pairs_bellman_ford_path", needs=("sssp",), check=_weight_is_name)
def all_pairs_bellman_ford_path(G, weight="weight"):
    """``(node, {target: path})`` for every node (a generator); negative weights allowed."""
    return ((v, single_source_bellman_ford_path(G, v, weight=weight)) for v in list(G.nodes))


# ---------------------------------------------------------------------------------------------
# Bellman-Ford with paths


@implements("single_source_bellman_ford", needs=("sssp",), check=_weight_is_name)
def single_source_bellman_ford(G, source, target=None, weight="weight"):
    """``(distances, paths)`` from ``source`` (or ``(distance, path)`` to ``target``)."""
    nx = _nx()
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} is not found in the graph")
        return (0, [source])
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    sid = G.index[source]
    dist, pred = _bellman_ford(G, sid, weight)
    if target is not None:
        tid = G.index.get(target) if target in G else None
        if tid is None or not np.isfinite(dist[tid]):
            raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
        return (_dist_values(G, weight, dist, np.array([tid]))[0], _path(G, pred, sid, tid))
    ids = _reached(dist, sid, None)
    return (_dist_dict(G, weight, dist, sid, ids), _all_paths(G, pred, sid, ids))


@implements("single_source_bellman_ford_path", needs=("sssp",), check=_weight_is_name)
def single_source_bellman_ford_path(G, source, weight="weight"):
    """Shortest paths from ``source``, negative weights allowed (dict of node lists)."""
    return single_source_bellman_ford(G, source, weight=weight)[1]


@implements("bellman_ford_path", needs=("sssp",), check=_weight_is_name)
def bellman_ford_path(G, source, target, weight="weight"):
    """A shortest path from ``source`` to ``target``, negative weights allowed."""
    return single_source_bellman_ford(G, source, target=target, weight=weight)[1]


@implements("negative_edge_cycle", needs=("sssp",), check=_weight_is_name)
def negative_edge_cycle(G, weight="weight", heuristic=True):
    """True when some negative cycle exists (one multi-source engine SSSP from every node)."""
    from ..exceptions import NegativeCycleError

    if G.number_of_edges() == 0:
        return False
    if G.min_weight(weight) >= 0:
        return False
    try:
        _sssp(G, tuple(range(G.n)), weight)
    except NegativeCycleError:
        return True
    return False


# ---------------------------------------------------------------------------------------------
# multi-source Dijkstra


def _multi(hg, sources, weight, who):
    nx = _nx()
    sources = list(sources) if not isinstance(sources, (list, tuple, set, frozenset)) \
        else sources
    if not sources:
        raise ValueError("sources must not be empty")
    for s in sources:
        if s not in hg:
            raise nx.NodeNotFound(f"Node {s} not found in graph")
    _no_negative(hg, weight, who)
    sids = tuple(dict.fromkeys(hg.index[s] for s in sources))
    dist, pred = _sssp(hg, sids, weight)
    return sources, sids, dist, pred


def _multi_dist(hg, weight, dist, sids, cutoff):
    ids = _reached(dist, sids[0], cutoff)
    out = _dist_dict(hg, weight, dist, sids[0], ids)
    for s in sids:
        out[hg.nodes[s]] = 0
    return out, ids


@implements("multi_source_dijkstra", needs=("sssp",), check=_weight_is_name)
def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
    """``(distances, paths)`` from the nearest of ``sources`` (or ``(distance, path)``)."""
    nx = _nx()
    if not sources:
        raise ValueError("sources must not be empty")
    if target in sources:
        for s in sources:
            if s not in G:
                raise nx.NodeNotFound(f"Node {s} not found in graph")
        return (0, [target])
    sources, sids, dist, pred = _multi(G, sources, weight, "multi_source_dijkstra")
    out, ids = _multi_dist(G, weight, dist, sids, cutoff)
    if target is not None:
        if target not in out:
            raise nx.NetworkXNoPath(f"No path to {target}.")
        tid = G.index[target]
        path = [tid]
        while pred[path[-1]] >= 0:
            path.append(int(pred[path[-1]]))
        return (out[target], G.labels_of(path[::-1]))
    return (out, _all_paths(G, pred, sids[0], ids))


@implements("multi_source_dijkstra_path_length", needs=("sssp",), check=_weight_is_name)
def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    """Distances from the nearest of ``sources`` (dict)."""
    sources, sids, dist, _ = _multi(G, sources, weight, "multi_source_dijkstra_path_length")
    return _multi_dist(G, weight, dist, sids, cutoff)[0]


@implements("multi_source_dijkstra_path", needs=("sssp",), check=_weight_is_name)
def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
    """Shortest paths from the nearest of ``sources`` (dict of node lists)."""
    sources, sids, dist, pred = _multi(G, sources, weight, "multi_source_dijkstra_path")
    return _all_paths(G, pred, sids[0], _multi_dist(G, weight, dist, sids, cutoff)[1])


# ---------------------------------------------------------------------------------------------
# dense all-pairs


def _all_dist(hg, weight):
    """n x n float64 distances (one engine SSSP per source; inf unreachable)."""
    from ..exceptions import NegativeCycleError

    n = hg.n
    D = np.full((n, n), np.inf)
    try:
        for s in range(n):
            D[s] = _sssp(hg, s, weight)[0]
    except NegativeCycleError:
        raise NotImplementedError("a negative cycle (networkx's Floyd-Warshall returns "
                                  "unspecified values there)") from None
    return D


@implements("floyd_warshall_numpy", needs=("sssp",), check=_weight_is_name)
def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
    """All-pairs distances as a NumPy array in ``nodelist`` order."""
    if nodelist is not None:
        if not len(nodelist) == len(G) == len(set(nodelist)):
            raise _nx().NetworkXError(
                "nodelist must contain every node in G with no repeats."
                "If you wanted a subgraph of G use G.subgraph(nodelist)")
    D = _all_dist(G, weight)
    if nodelist is not None:
        order = np.array([G.index[v] for v in nodelist], dtype=np.int64)
        D = D[np.ix_(order, order)]
    np.fill_diagonal(D, 0)
    return D


@implements("floyd_warshall", needs=("sssp",), check=_weight_is_name)
def floyd_warshall(G, weight="weight"):
    """All-pairs distances as networkx's dict of defaultdicts (inf where unreachable)."""
    D = _all_dist(G, weight)
    integral = G.weights_integral(weight)
    dist = defaultdict(lambda: defaultdict(lambda: float("inf")))
    labels = G.nodes
    for i, u in enumerate(labels):
        row = D[i]
        vals = [int(x) if integral and np.isfinite(x) else float(x) for x in row.tolist()]
        du = dist[u]
        du.update(zip(labels, vals))
        du[u] = 0 if D[i, i] >= 0 else du[u]
    return dist


@implements("johnson", needs=("sssp",), check=_weight_is_name)
def johnson(G, weight="weight"):
    """All-pairs shortest paths with negative weights allowed (dict of dicts of paths)."""
    out = {}
    for v in G.nodes:
        sid = G.index[v]
        dist, pred = _bellman_ford(G, sid, weight)
        out[v] = _all_paths(G, pred, sid, _reached(dist, sid, None))
    return out


# ---------------------------------------------------------------------------------------------
# average shortest path length


@implements("average_shortest_path_length", needs=("bfs", "sssp", "connected_components"),
            check=_weight_is_name)
def average_shortest_path_length(G, weight=None, method=None):
    """Mean distance over all ordered pairs of distinct nodes."""
    from ._components import is_connected, is_strongly_connected

    nx = _nx()
    single = ["unweighted", "dijkstra", "bellman-ford"]
    supported = single + ["floyd-warshall", "floyd-warshall-numpy"]
    if method is None:
        method = "unweighted" if weight is None else "dijkstra"
    if method not in supported:
        raise ValueError(f"method not supported: {method}")
    n = len(G)
    if n == 0:
        raise nx.NetworkXPointlessConcept(
            "the null graph has no paths, thus there is no average shortest path length")
    if n == 1:
        return 0
    if G.is_directed() and not is_strongly_connected(G):
        raise nx.NetworkXError("Graph is not strongly connected.")
    if not G.is_directed() and not is_connected(G):
        raise nx.NetworkXError("Graph is not connected.")
    if method == "unweighted":
        total = sum(int(_depth(G, s).sum()) for s in range(n))
    else:
        if method == "dijkstra":
            _no_negative(G, weight, "average_shortest_path_length")
        if method == "bellman-ford":
            total = 0
            for s in range(n):
                total += _bellman_ford(G, s, weight)[0].sum()
        else:
            D = _all_dist(G, weight)
            if method != "dijkstra":
                np.fill_diagonal(D, 0)
            total = D.sum()
        if G.weights_integral(weight):
            total = int(total)
        else:
            total = float(total)
    return total / (n * (n - 1))
