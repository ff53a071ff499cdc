"""networkx's edge-by-edge traversals on the converted CSR: ``edge_dfs``, ``edge_bfs``,
``dfs_labeled_edges`` and ``bfs_labeled_edges``, simple paths, colliders and v-structures.

``bfs_labeled_edges`` labels every edge at once from hpgraph's BFS (depths, networkx's
visiting order and parents), ``edge_bfs`` lists each vertex's edges in the vertex order of
hpgraph's BFS, and ``dfs_labeled_edges`` is hpgraph's depth-first search
(:func:`hpgraph.depth_first_events`) over the adjacency in networkx's order; colliders and
v-structures are :func:`hpgraph.colliders`.  ``edge_dfs`` and the simple paths report every
edge in the order a sequential search meets it, so there is no level-synchronous form: the
search walks the adjacency arrays (kept in networkx's neighbour order, predecessors
too) with integer cursors and marks visited vertices and edges in NumPy bool arrays instead of
Python sets of labels.  An undirected edge is identified by the smaller of its two adjacency
entries, a directed edge by its entry.  Results are generators, lazily, as in networkx.
"""

from __future__ import annotations

import numpy as np

from ._registry import _nx, _no_sort_neighbors, device, implements

FORWARD = "forward"
REVERSE = "reverse"


def _edge_ids(hg):
    """Per adjacency entry: the id of its edge (undirected: the smaller of the two entries)."""
    def make():
        m = hg.indices.shape[0]
        if hg.is_directed():
            return np.arange(m, dtype=np.int64)
        keys = hg.rows() * hg.n + hg.indices
        order = np.argsort(keys, kind="stable")
        mate_keys = hg.indices.astype(np.int64) * hg.n + hg.rows()
        mate = order[np.searchsorted(keys[order], mate_keys)]
        return np.minimum(np.arange(m, dtype=np.int64), mate)
    return hg.cached("edge_ids", make)


def _in_entries(hg):
    """Predecessor lists in networkx's order with the adjacency entry of each edge."""
    def make():
        indptr, preds = hg.nx_adjacency(reverse=True)
        n = hg.n
        heads = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        keys = hg.rows() * n + hg.indices
        order = np.argsort(keys, kind="stable")
        ent = order[np.searchsorted(keys[order], preds.astype(np.int64) * n + heads)]
        return indptr.tolist(), preds.tolist(), ent.tolist()
    return hg.cached("in_entries", make)


def _source_ids(G, source):
    from ._registry import _nbunch

    if source is None:
        return list(range(G.n))
    if source in G:
        return [G.index[source]]
    return [G.index[v] for v in _nbunch(G, source)]


def _walk_setup(G, orientation):
    """``edges_from(vertex) -> iterator of (edge id, tail, head, label, key)`` as networkx's
    (a multigraph's parallel edges one by one, each with its key; ``key`` None otherwise)."""
    nx = _nx()
    directed = G.is_directed()
    if orientation not in (None, "original", "reverse", "ignore"):
        raise nx.NetworkXError("invalid orientation argument.")
    indptr, indices = G.indptr.tolist(), G.indices.tolist()
    eids = _edge_ids(G).tolist()
    use_out = not directed or orientation in (None, "original", "ignore")
    use_in = directed and orientation in ("reverse", "ignore")
    tag = None if orientation is None else FORWARD
    if use_in:
        iptr, ipred, ient = _in_entries(G)

    keys = G.edge_keys

    def edges_from(v):
        if use_out:
            for e in range(indptr[v], indptr[v + 1]):
                if keys is None:
                    yield eids[e], v, indices[e], tag, None
                else:
                    for k in keys[e]:
                        yield (eids[e], k), v, indices[e], tag, k
        if use_in:
            for j in range(iptr[v], iptr[v + 1]):
                e = ient[j]
                if keys is None:
                    yield eids[e], ipred[j], v, REVERSE, None
                else:
                    for k in keys[e]:
                        yield (eids[e], k), ipred[j], v, REVERSE, k
    return edges_from, use_in


def _labelled(G, tail, head, tag, key=None):
    labels = G.nodes
    edge = (labels[tail], labels[head]) if G.edge_keys is None else \
        (labels[tail], labels[head], key)
    return edge if tag is None else edge + (tag,)


@implements("edge_dfs")
def edge_dfs(G, source=None, orientation=None):
    """Edges in depth-first order, each once (a generator)."""
    def gen():
        nodes = _source_ids(G, source)
        if not nodes:
            return
        edges_from, check_reverse = _walk_setup(G, orientation)
        visited_edges: set = set()
        visited_nodes = np.zeros(G.n, dtype=bool)
        iters: dict = {}
        for start in nodes:
            stack = [start]
            while stack:
                cur = stack[-1]
                if not visited_nodes[cur]:
                    iters[cur] = edges_from(cur)
                    visited_nodes[cur] = True
                edge = next(iters[cur], None)
                if edge is None:
                    stack.pop()
                    continue
                eid, tail, head, tag, key = edge
                if eid not in visited_edges:
                    visited_edges.add(eid)
                    stack.append(tail if check_reverse and tag == REVERSE else head)
                    yield _labelled(G, tail, head, tag, key)
    return gen()


def _both_ways(hg):
    """Per vertex its successors, then its predecessors, in networkx's orders (the neighbours
    ``edge_bfs`` scans with ``orientation="ignore"``), and the undirected hpgraph Graph of the
    same adjacency (cached)."""
    def make():
        from ..graph import Graph

        n = hg.n
        optr, out = hg.indptr.astype(np.int64), hg.indices.astype(np.int64)
        iptr, inn = hg.nx_adjacency(reverse=True)
        iptr, inn = iptr.astype(np.int64), inn.astype(np.int64)
        rows = np.concatenate([np.repeat(np.arange(n), np.diff(optr)),
                               np.repeat(np.arange(n), np.diff(iptr))])
        order = np.argsort(rows, kind="stable")           # a vertex's out-list, then its in-list
        indices = np.concatenate([out, inn])[order]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        U = Graph.from_edges(hg.rows(), out, num_vertices=n, directed=False, backend="cpu")
        return indptr, indices, U
    return hg.cached("both_ways", make)


def _bfs_vertex_order(G, nodes, orientation):
    """The order in which networkx's ``edge_bfs`` dequeues vertices: a FIFO breadth-first
    search from ``nodes`` over the neighbours ``edges_from`` yields; the depths come from
    hpgraph's BFS and the order within each level is rebuilt from the adjacency in that scan
    order (:func:`._order.ordered_levels`)."""
    from .. import backend as _backend
    from ..algorithms._bfs import bfs
    from ._order import ordered_levels

    src = list(dict.fromkeys(nodes))      # a repeated source yields nothing new
    if len(src) == G.n:
        return src
    directed = G.is_directed()
    dev = device()
    if directed and orientation == "ignore":
        indptr, indices, H = _both_ways(G)
    elif directed and orientation == "reverse":
        indptr, indices = G.nx_adjacency(reverse=True)
        H = G.hp_reverse()
    else:
        indptr, indices = G.indptr, G.indices
        H = G.hp()
    depth = np.asarray(_backend.to_host(bfs(H, src if len(src) > 1 else src[0],
                                             backend=dev).depth))
    levels = ordered_levels(indptr.astype(np.int64), indices.astype(np.int64), depth,
                            np.asarray(src, dtype=np.int64))
    return np.concatenate([verts for verts, _ in levels]).tolist()


@implements("edge_bfs", needs=("bfs",))
def edge_bfs(G, source=None, orientation=None):
    """Edges in breadth-first order, each once (a generator): the vertices in the order of
    hpgraph's BFS (:func:`_bfs_vertex_order`), each vertex's edges in networkx's order, every
    edge the first time it is met."""
    def gen():
        nodes = _source_ids(G, source)
        if not nodes:
            return
        edges_from, _ = _walk_setup(G, orientation)
        visited_edges: set = set()
        for v in _bfs_vertex_order(G, nodes, orientation):
            for eid, tail, head, tag, key in edges_from(v):
                if eid not in visited_edges:
                    visited_edges.add(eid)
                    yield _labelled(G, tail, head, tag, key)
    return gen()


def _dfs_labeled_ids(G, starts, depth_limit):
    """networkx's ``dfs_labeled_edges`` on vertex ids: ``(u, v, label)`` triples, from
    :func:`hpgraph.algorithms.dfs.dfs_events` over the adjacency in networkx's neighbour
    order (networkx's exact events and order)."""
    from ..algorithms.dfs import KINDS, dfs_events

    ev = dfs_events(G.indptr, G.indices, starts, depth_limit)
    return zip(ev.source.tolist(), ev.target.tolist(), [KINDS[k] for k in ev.kind.tolist()])


@implements("dfs_labeled_edges", needs=("depth_first_events",), check=_no_sort_neighbors)
def dfs_labeled_edges(G, source=None, depth_limit=None, *, sort_neighbors=None):
    """``(u, v, label)`` for every edge a depth-first search meets (a generator)."""
    from ._registry import _neighbors_source

    def gen():
        labels = G.nodes
        starts = range(G.n) if source is None else [_neighbors_source(G, source)]
        for u, v, d in _dfs_labeled_ids(G, starts, depth_limit):
            yield labels[u], labels[v], d
    return gen()


@implements("bfs_labeled_edges", needs=("bfs",))
def bfs_labeled_edges(G, sources):
    """``(u, v, label)`` for every edge a breadth-first search meets: tree, level, forward
    and (directed) reverse edges (a generator).

    hpgraph's BFS gives the depths and networkx's visiting order (:func:`._order.bfs_levels`);
    every edge is then labelled at once: networkx scans the vertices in that order and each
    one's neighbours in order, calls the edge to a vertex's BFS parent "tree", an edge within a
    level "level" (undirected: only towards a vertex not scanned yet), one level down
    "forward" and (directed) one level up or more "reverse".
    """
    def gen():
        from ._order import _expand, bfs_levels

        srcs = [sources] if sources in G else sources
        ids = []
        for s in srcs:
            i = G.index[s]  # KeyError for a source not in G, as networkx's G._adj[s]
            if i not in ids:
                ids.append(i)
        if not ids:
            return
        levels = bfs_levels(G, ids, backend=device())
        order = np.concatenate([verts for verts, _ in levels])
        n = G.n
        depth = np.full(n, -1, dtype=np.int64)
        parent = np.full(n, -1, dtype=np.int64)
        for d, (verts, pars) in enumerate(levels):
            depth[verts] = d
            if d:
                parent[verts] = pars
        pos = np.empty(n, dtype=np.int64)
        pos[order] = np.arange(order.shape[0])
        v, u = _expand(G.indptr, G.indices.astype(np.int64), order)
        du, dv = depth[u], depth[v]
        tree = parent[v] == u
        level = ~tree & (du == dv)
        forward = ~tree & (du < dv)
        reverse = ~tree & (du > dv)
        if G.is_directed():
            keep = tree | level | forward | reverse
        else:
            level &= pos[v] >= pos[u]      # networkx skips vertices already scanned
            reverse[:] = False
            keep = tree | level | forward
        label = np.where(tree, 0, np.where(level, 1, np.where(forward, 2, 3)))[keep]
        names = ("tree", "level", "forward", "reverse")
        yield from zip(G.labels_of(u[keep]), G.labels_of(v[keep]),
                       [names[k] for k in label.tolist()])
    return gen()


# ---------------------------------------------------------------------------------------------
# simple paths (depth-first enumeration over the CSR)


def _simple_paths(G, source, target, cutoff, as_edges):
    """networkx's ``_all_simple_edge_paths`` on vertex ids: node paths (``as_edges`` False,
    parallel edges of a multigraph each give the path again) or edge paths."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"source node {source} not in graph")
    if target in G:
        tids = [G.index[target]]
    else:
        try:
            tids = [G.index[t] for t in set(target) if t in G]
            extra = any(t not in G for t in set(target))
        except TypeError as err:
            raise nx.NodeNotFound(f"target node {target} not in graph") from err
        if extra:  # a target that is not a node can never be reached but still counts
            tids.append(-1)
    cutoff = cutoff if cutoff is not None else len(G) - 1
    if cutoff < 0 or not tids:
        return
    labels = G.nodes
    indptr, indices = G.indptr.tolist(), G.indices.tolist()
    keys = G.edge_keys  # a multigraph: one step per parallel edge (its key on edge paths)
    is_target = np.zeros(G.n, dtype=bool)
    real = [t for t in tids if t >= 0]
    is_target[real] = True
    n_targets = len(tids)
    on_path = np.zeros(G.n, dtype=bool)
    path: list = []          # vertex ids on the current path
    steps: list = []         # the edge (label tuple) that reached each vertex of the path
    hits = 0                 # targets on the current path

    def entries(u):
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if keys is None:
                yield u, v, (labels[u], labels[v])
            else:
                for k in keys[e]:
                    yield u, v, (labels[u], labels[v], k)
    sid = G.index[source]
    stack = [iter([(-1, sid, None)])]
    while stack:
        nxt = next((e for e in stack[-1] if not on_path[e[1]]), None)
        if nxt is None:
            stack.pop()
            if path:
                v = path.pop()
                steps.pop()
                on_path[v] = False
                hits -= int(is_target[v])
            continue
        _, v, step = nxt
        if is_target[v]:
            if as_edges:
                yield steps[1:] + [step] if path else []
            else:
                yield [labels[a] for a in path] + [labels[v]]
        if len(path) < cutoff and n_targets - hits - int(is_target[v]) > 0:
            path.append(v)
            steps.append(step)
            on_path[v] = True
            hits += int(is_target[v])
            stack.append(entries(v))


@implements("all_simple_paths")
def all_simple_paths(G, source, target, cutoff=None):
    """Every simple path from ``source`` to ``target`` (a node or nodes), as node lists, in
    networkx's depth-first order (a generator)."""
    return _simple_paths(G, source, target, cutoff, as_edges=False)


@implements("all_simple_edge_paths")
def all_simple_edge_paths(G, source, target, cutoff=None):
    """Every simple path from ``source`` to ``target`` as a list of edges (a generator)."""
    return _simple_paths(G, source, target, cutoff, as_edges=True)


# ---------------------------------------------------------------------------------------------
# colliders and v-structures (pairs of predecessors)


def _require_directed(G):
    if not G.is_directed():
        raise _nx().NetworkXNotImplemented("not implemented for undirected type")


#: colliders are produced for blocks of vertices of about this many triples at a time (the
#: generators stay lazy on vertices with huge in-degrees)
_BLOCK = 1 << 20


def _colliders(G, unshielded=False):
    """``(p1, node, p2)`` vertex ids for every pair of predecessors, networkx's order:
    :func:`hpgraph.algorithms._colliders.collider_triples` over the predecessor lists in
    networkx's order, one block of vertices at a time."""
    from ..algorithms._colliders import collider_triples

    indptr, preds = G.nx_adjacency(reverse=True)
    indptr = indptr.astype(np.int64)
    preds = preds.astype(np.int64)
    keys = np.unique(G.rows() * G.n + G.indices) if unshielded else None
    d = np.diff(indptr)
    ends = np.cumsum(d * (d - 1) // 2)
    lo = 0
    while lo < G.n:
        base = int(ends[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + _BLOCK, side="right")))
        res = collider_triples(np, indptr, preds, lo, min(hi, G.n), keys)
        yield from zip(res.first.tolist(), res.node.tolist(), res.second.tolist())
        lo = hi


@implements("colliders", needs=("colliders",))
def colliders(G):
    """Every ``(p1, node, p2)`` with ``p1`` and ``p2`` predecessors of ``node`` (a generator)."""
    _require_directed(G)
    labels = G.nodes
    return ((labels[a], labels[v], labels[b]) for a, v, b in _colliders(G))


@implements("v_structures", needs=("colliders",))
def v_structures(G):
    """Colliders whose two parents are not adjacent (a generator)."""
    _require_directed(G)
    labels = G.nodes
    return ((labels[a], labels[v], labels[b]) for a, v, b in _colliders(G, unshielded=True))
