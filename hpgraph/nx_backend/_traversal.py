"""networkx's breadth-first family on hpgraph's BFS (exact networkx order)."""

from __future__ import annotations

import math

import numpy as np

from ._order import bfs_levels
from ._registry import (_bfs_edge_list, _depth, _neighbors_source, _no_sort_neighbors, _nx,
                        device, implements)

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
    levels = bfs_levels(hg, [sid], reverse=reverse and hg.is_directed(), limit=limit,
                        depth=lambda: _depth(hg, sid, reverse), backend=dev)
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




@implements("predecessor", needs=("bfs",))
def predecessor(G, source, target=None, cutoff=None, return_seen=None):
    """Every predecessor of each node on its shortest paths from ``source`` (networkx's dict,
    lists and order: nodes in discovery order, each list in its level's order)."""
    if source not in G:
        raise _nx().NodeNotFound(f"Source {source} not in G")
    sid = G.index[source]
    # networkx builds level after level and stops once ``cutoff <= level`` (a falsy cutoff,
    # 0 included, never stops it; it always builds level 1)
    limit = math.inf if not cutoff else max(1, math.ceil(cutoff))
    levels = bfs_levels(G, [sid], limit=limit, depth=lambda: _depth(G, sid), backend=device())
    order = np.concatenate([verts for verts, _ in levels])
    rank = np.full(G.n, -1, dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    level = np.full(G.n, -1, dtype=np.int64)
    for i, (verts, _) in enumerate(levels):
        level[verts] = i
    rows, cols = G.rows().astype(np.int64), G.indices.astype(np.int64)
    tree = (level[rows] >= 0) & (level[cols] == level[rows] + 1)
    r, c = rows[tree], cols[tree]
    srt = np.lexsort((rank[r], rank[c]))          # by node, then by predecessor's BFS order
    r, c = r[srt], c[srt]
    labels = G.nodes
    pred = {labels[sid]: []}
    cuts = np.flatnonzero(np.diff(c)) + 1
    for w, group in zip(order[1:].tolist(), np.split(r, cuts) if r.shape[0] else []):
        pred[labels[w]] = G.labels_of(group)
    seen = dict(zip(G.labels_of(order), level[order].tolist()))
    if target is not None:
        if target not in pred:
            return ([], -1) if return_seen else []
        return (pred[target], seen[target]) if return_seen else pred[target]
    return (pred, seen) if return_seen else pred
