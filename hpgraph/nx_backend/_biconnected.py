"""networkx's biconnected components, articulation points, chains and bridges.

Blocks and articulation points are :func:`hpgraph.algorithms.biconnected.tarjan_blocks` (the
search behind :func:`hpgraph.biconnected_components`) run over the adjacency in networkx's
neighbour order, which gives networkx's order; bridges are the blocks of a single edge
(self-loops aside).  Parallel edges of a multigraph do not change the blocks (the search follows
neighbours), so multigraphs are served (a bridge must also be a single edge).  The chain
decomposition follows hpgraph's labelled depth-first search (:func:`hpgraph.depth_first_events`,
in networkx's neighbour order).
"""

from __future__ import annotations

import numpy as np

from ._components import _undirected_only
from ._registry import implements


def _blocks(G):
    """:func:`~hpgraph.algorithms.biconnected.tarjan_blocks` on the adjacency in networkx's
    neighbour order (cached)."""
    from ..algorithms.biconnected import tarjan_blocks

    _undirected_only(G)
    return G.cached("blocks", lambda: tarjan_blocks(G.indptr, G.indices))


def _block_edges(G):
    """Edge lists of the blocks, as vertex-id pairs, in networkx's order."""
    res = _blocks(G)
    src, dst, ptr = res.source.tolist(), res.target.tolist(), res.block_ptr.tolist()
    for a, b in zip(ptr[:-1], ptr[1:]):
        yield list(zip(src[a:b], dst[a:b]))


@implements("biconnected_component_edges", needs=("biconnected_components",))
def biconnected_component_edges(G):
    """Edge lists of the biconnected components (a generator)."""
    labels = G.nodes
    _undirected_only(G)
    return ([(labels[u], labels[v]) for u, v in comp] for comp in _block_edges(G))


@implements("biconnected_components", needs=("biconnected_components",))
def biconnected_components(G):
    """Node sets of the biconnected components (a generator)."""
    labels = G.nodes
    _undirected_only(G)
    return ({labels[x] for e in comp for x in e} for comp in _block_edges(G))


@implements("is_biconnected", needs=("biconnected_components",))
def is_biconnected(G):
    """True when the graph is connected and has no articulation point."""
    res = _blocks(G)
    if res.block_ptr.shape[0] != 2:   # no block, or more than one
        return False
    a, b = int(res.block_ptr[0]), int(res.block_ptr[1])
    return np.union1d(res.source[a:b], res.target[a:b]).shape[0] == len(G)


@implements("articulation_points", needs=("biconnected_components",))
def articulation_points(G):
    """Cut vertices, each once, in networkx's order (a generator)."""
    _undirected_only(G)
    return (v for v in G.labels_of(_blocks(G).articulation_points))


# ---------------------------------------------------------------------------------------------
# chain decomposition and bridges


def _chains(G, root_id):
    """networkx's ``chain_decomposition`` on vertex ids (a generator of edge-id lists): the
    depth-first forest of :func:`._edge_traversal._dfs_labeled_ids` with each non-tree edge
    oriented from ancestor to descendant, then one chain per non-tree edge."""
    from ._edge_traversal import _dfs_labeled_ids

    n = G.n
    parent = np.full(n, -1, dtype=np.int64)
    out: list = [None] * n          # H's successors of each vertex: {v: nontree}
    nodes = []
    starts = range(n) if root_id is None else [root_id]
    for u, v, d in _dfs_labeled_ids(G, starts, None):
        if d == "forward":
            if u == v:
                out[v] = {}
            else:
                parent[v] = u
                out[v] = {u: False}
            nodes.append(v)
        elif d == "nontree" and v not in out[u]:
            out[v][u] = True
    visited = np.zeros(n, dtype=bool)
    for u in nodes:
        visited[u] = True
        for v, nontree in list(out[u].items()):
            if not nontree:
                continue
            chain = []
            a, b = u, v
            while not visited[b]:
                chain.append((a, b))
                visited[b] = True
                a, b = b, int(parent[b])
            chain.append((a, b))
            yield chain


def _root_id(G, root):
    if root is not None and root not in G:
        from ._registry import _nx

        raise _nx().NodeNotFound(f"Root node {root} is not in graph")
    return None if root is None else G.index[root]


@implements("chain_decomposition", needs=("depth_first_events",))
def chain_decomposition(G, root=None):
    """Chains of the depth-first chain decomposition (lists of edges; a generator)."""
    _undirected_only(G)
    labels = G.nodes

    def gen():
        for chain in _chains(G, _root_id(G, root)):
            yield [(labels[a], labels[b]) for a, b in chain]
    return gen()


def _bridge_ids(G, root):
    """Bridges as ``(u, v)`` vertex ids in ``G.edges()`` order: the edges that are a block by
    themselves, self-loops aside (networkx's rule, the edges in no chain of the chain
    decomposition, selects the same edges)."""
    from ._matrix import _edge_entries

    rid = _root_id(G, root)
    n = G.n
    res = _blocks(G)
    # a block whose only edge, besides self-loops, is (u, v)
    proper = res.source != res.target
    block = np.repeat(np.arange(res.block_ptr.shape[0] - 1), np.diff(res.block_ptr))
    count = np.bincount(block[proper], minlength=res.block_ptr.shape[0] - 1)
    single = proper & (count[block] == 1)
    u, v = res.source[single], res.target[single]
    alone = np.concatenate([u * n + v, v * n + u])
    keep, r, c = _edge_entries(G)
    ok = np.isin(r * n + c, alone)
    if rid is not None:
        from ._analysis import _components

        _, comp = _components(G)
        ok &= comp[r] == comp[rid]
    if G.multiplicity is not None:
        ok &= G.multiplicity[keep] == 1
    return r[ok], c[ok]


@implements("bridges", needs=("biconnected_components",))
def bridges(G, root=None):
    """Edges whose removal disconnects their component (a generator, ``G.edges()`` order)."""
    _undirected_only(G)

    def gen():
        r, c = _bridge_ids(G, root)
        yield from zip(G.labels_of(r), G.labels_of(c))
    return gen()


@implements("has_bridges", needs=("biconnected_components",))
def has_bridges(G, root=None):
    """True when the graph (or the component of ``root``) has a bridge."""
    _undirected_only(G)
    return bool(_bridge_ids(G, root)[0].shape[0])
