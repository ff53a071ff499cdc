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
