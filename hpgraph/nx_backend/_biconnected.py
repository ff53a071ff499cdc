"""networkx's biconnected components and articulation points on the converted CSR.

Tarjan's lowpoint search is one sequential depth-first walk (each block closes when the walk
backs out of it), so it has no level-synchronous form: it runs over the adjacency arrays in
networkx's neighbour order with integer cursors and NumPy discovery / lowpoint arrays, which
yields the blocks and articulation points in networkx's order.  Parallel edges of a multigraph
do not change the result (the walk follows neighbours), so multigraphs are served.
"""

from __future__ import annotations

import numpy as np

from ._components import _undirected_only
from ._registry import implements


def _bcc_walk(G, components=True):
    """networkx's ``_biconnected_dfs`` on vertex ids: edge lists of the blocks (``components``)
    or articulation points, in networkx's order."""
    _undirected_only(G)
    indptr, indices = G.indptr.tolist(), G.indices.tolist()
    n = G.n
    disc = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    for start in range(n):
        if disc[start] >= 0:
            continue
        disc[start] = low[start] = 0
        found = 1
        root_children = 0
        edge_stack: list = []
        edge_index: dict = {}
        stack = [[start, start, indptr[start], indptr[start + 1]]]
        while stack:
            top = stack[-1]
            grandparent, parent = top[0], top[1]
            if top[2] < top[3]:
                child = indices[top[2]]
                top[2] += 1
                if grandparent == child:
                    continue
                if disc[child] >= 0:
                    if disc[child] <= disc[parent]:  # back edge
                        low[parent] = min(low[parent], disc[child])
                        if components:
                            edge_index[parent, child] = len(edge_stack)
                            edge_stack.append((parent, child))
                else:
                    low[child] = disc[child] = found
                    found += 1
                    stack.append([parent, child, indptr[child], indptr[child + 1]])
                    if components:
                        edge_index[parent, child] = len(edge_stack)
                        edge_stack.append((parent, child))
                continue
            stack.pop()
            if len(stack) > 1:
                if low[parent] >= disc[grandparent]:
                    if components:
                        ind = edge_index[grandparent, parent]
                        yield edge_stack[ind:]
                        del edge_stack[ind:]
                    else:
                        yield grandparent
                low[grandparent] = min(low[parent], low[grandparent])
            elif stack:  # the grandparent is the root
                root_children += 1
                if components:
                    ind = edge_index[grandparent, parent]
                    yield edge_stack[ind:]
                    del edge_stack[ind:]
        if not components and root_children > 1:
            yield start


@implements("biconnected_component_edges")
def biconnected_component_edges(G):
    """Edge lists of the biconnected components (a generator)."""
    labels = G.nodes
    _undirected_only(G)
    return ([(labels[u], labels[v]) for u, v in comp] for comp in _bcc_walk(G))


@implements("biconnected_components")
def biconnected_components(G):
    """Node sets of the biconnected components (a generator)."""
    labels = G.nodes
    _undirected_only(G)
    return ({labels[x] for e in comp for x in e} for comp in _bcc_walk(G))


@implements("is_biconnected")
def is_biconnected(G):
    """True when the graph is connected and has no articulation point."""
    _undirected_only(G)
    blocks = _bcc_walk(G)
    first = next(blocks, None)
    if first is None:
        return False
    if next(blocks, None) is not None:
        return False
    return len({x for e in first for x in e}) == len(G)


@implements("articulation_points")
def articulation_points(G):
    """Cut vertices, each once, in networkx's order (a generator)."""
    _undirected_only(G)
    labels = G.nodes

    def gen():
        seen = np.zeros(G.n, dtype=bool)
        for v in _bcc_walk(G, components=False):
            if not seen[v]:
                seen[v] = True
                yield labels[v]
    return gen()


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


@implements("chain_decomposition")
def chain_decomposition(G, root=None):
    """Chains of the depth-first chain decomposition (lists of edges; a generator)."""
    _undirected_only(G)
    labels = G.nodes

    def gen():
        for chain in _chains(G, _root_id(G, root)):
            yield [(labels[a], labels[b]) for a, b in chain]
    return gen()


def _bridge_ids(G, root):
    """Bridges as ``(u, v)`` vertex ids in ``G.edges()`` order."""
    from ._matrix import _edge_entries

    rid = _root_id(G, root)
    n = G.n
    in_chain = np.zeros(0, dtype=np.int64)
    pairs = [a * n + b for chain in _chains(G, rid) for a, b in chain]
    if pairs:
        p = np.asarray(pairs, dtype=np.int64)
        in_chain = np.concatenate([p, (p % n) * n + p // n])
    keep, r, c = _edge_entries(G)
    ok = ~np.isin(r * n + c, in_chain)
    if rid is not None:
        from ._analysis import _components

        _, comp = _components(G)
        ok &= comp[r] == comp[rid]
    if G.multiplicity is not None:
        ok &= G.multiplicity[keep] == 1
    return r[ok], c[ok]


@implements("bridges")
def bridges(G, root=None):
    """Edges whose removal disconnects their component (a generator, ``G.edges()`` order)."""
    _undirected_only(G)

    def gen():
        r, c = _bridge_ids(G, root)
        yield from zip(G.labels_of(r), G.labels_of(c))
    return gen()


@implements("has_bridges")
def has_bridges(G, root=None):
    """True when the graph (or the component of ``root``) has a bridge."""
    _undirected_only(G)
    return bool(_bridge_ids(G, root)[0].shape[0])
