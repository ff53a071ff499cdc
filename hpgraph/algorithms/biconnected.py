"""Biconnected components (blocks) and articulation points of an undirected graph.

Tarjan's lowpoint search (Hopcroft and Tarjan, 1973): one depth-first search per connected
component records each vertex's discovery time and the lowest discovery time reachable through
its subtree and one back edge; when the search backs out of a child whose lowpoint is not below
its parent's discovery time, the edges pushed since the tree edge to that child form a block,
and the parent (unless it is the root) is an articulation point; the root is one when it has
more than one tree child.  The search is sequential by nature (each block closes when the walk
backs out of it), so it runs on the host over the CSR arrays, with an explicit stack of integer
cursors instead of recursion: O(n + m).

The search starts from vertices ``0, 1, ...`` in order and visits each vertex's neighbours in
the order they are stored, so the result's order is fixed by the CSR: with the adjacency in
networkx's neighbour order (as the networkx backend passes it to :func:`tarjan_blocks`) it is
exactly the order of ``networkx.biconnected_component_edges`` and
``networkx.articulation_points``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import backend as _backend
from ._common import finish, prepare
from ._vec import check_undirected

__all__ = ["BiconnectedResult", "biconnected_components", "tarjan_blocks"]


class BiconnectedResult(NamedTuple):
    """Result of :func:`biconnected_components`.

    Attributes
    ----------
    source, target : arrays of int64
        The edges of every block, block after block, each edge once, oriented and ordered as
        the search meets it (tree edges parent to child, back edges descendant to ancestor).
    block_ptr : array of int64, length ``k + 1``
        Block ``i`` is ``source[block_ptr[i]:block_ptr[i + 1]]`` (with ``target``); blocks in
        the order the search closes them.  Isolated vertices are in no block; a self-loop is
        listed in the block open when the search meets it, except at the root of a search (as
        networkx lists them).
    articulation_points : array of int64
        Every cut vertex once, in the order the search finds it.
    """

    source: object
    target: object
    block_ptr: object
    articulation_points: object


def tarjan_blocks(indptr, indices) -> BiconnectedResult:
    """Tarjan's search over a symmetric CSR given as NumPy arrays, in its stored order.

    Parameters
    ----------
    indptr, indices : 1-D NumPy integer arrays
        A symmetric adjacency (every undirected edge stored in both rows), each row in the
        order its neighbours are to be visited (need not be sorted).

    Returns
    -------
    BiconnectedResult
        NumPy arrays.
    """
    n = int(indptr.shape[0]) - 1
    ptr, ind = np.asarray(indptr).tolist(), np.asarray(indices).tolist()
    disc = [-1] * n
    low = [0] * n
    src: list = []
    dst: list = []
    block_ptr = [0]
    cut: list = []

    def close(edge_stack, at):
        """The edges from stack position ``at`` on form a block: move them to the output."""
        for u, v in edge_stack[at:]:
            src.append(u)
            dst.append(v)
        del edge_stack[at:]
        block_ptr.append(len(src))

    for start in range(n):
        if disc[start] >= 0:
            continue
        disc[start] = low[start] = 0
        found = 1
        root_children = 0
        edge_stack: list = []
        edge_index: dict = {}     # (parent, child) -> position of the edge on edge_stack
        stack = [[start, start, ptr[start], ptr[start + 1]]]
        while stack:
            top = stack[-1]
            grandparent, parent = top[0], top[1]
            if top[2] < top[3]:
                child = ind[top[2]]
                top[2] += 1
                if grandparent == child:
                    continue
                if disc[child] >= 0:
                    if disc[child] <= disc[parent]:  # back edge
                        low[parent] = min(low[parent], disc[child])
                        edge_index[parent, child] = len(edge_stack)
                        edge_stack.append((parent, child))
                else:
                    low[child] = disc[child] = found
                    found += 1
                    stack.append([parent, child, ptr[child], ptr[child + 1]])
                    edge_index[parent, child] = len(edge_stack)
                    edge_stack.append((parent, child))
                continue
            stack.pop()
            if len(stack) > 1:
                if low[parent] >= disc[grandparent]:
                    close(edge_stack, edge_index[grandparent, parent])
                    cut.append(grandparent)
                low[grandparent] = min(low[parent], low[grandparent])
            elif stack:  # the grandparent is the root
                root_children += 1
                close(edge_stack, edge_index[grandparent, parent])
        if root_children > 1:
            cut.append(start)
    order = np.asarray(cut, dtype=np.int64)
    if order.shape[0]:
        _, first = np.unique(order, return_index=True)
        order = order[np.sort(first)]
    return BiconnectedResult(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
                             np.asarray(block_ptr, dtype=np.int64), order)


def biconnected_components(G, *, backend=None, to=None) -> BiconnectedResult:
    """Biconnected components (blocks) and articulation points of an undirected graph.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Repeated edges count once; self-loops do not change which vertices share a block.
    backend : {None, "auto", "cpu", "gpu"}
        The search itself always runs on the host (it is sequential); a device graph is read
        back and the arrays are returned on the input's side.
    to : {None, "numpy", "cupy"}

    Returns
    -------
    BiconnectedResult
        ``source``, ``target`` and ``block_ptr`` (the blocks' edges) and
        ``articulation_points``.

    Raises
    ------
    InvalidValue
        ``G`` is directed.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=False, backend="cpu")
    >>> r = hp.biconnected_components(G, backend="cpu")
    >>> r.block_ptr.tolist(), r.articulation_points.tolist()
    ([0, 1, 4], [2])
    >>> r.source.tolist(), r.target.tolist()
    ([2, 0, 1, 2], [3, 1, 2, 0])
    """
    G, _, on_dev = prepare(G, backend)
    check_undirected(G, "biconnected_components")
    A = G.A
    res = tarjan_blocks(np.asarray(_backend.to_host(A.indptr)),
                        np.asarray(_backend.to_host(A.indices)))
    return BiconnectedResult(*(finish(a, on_dev, to) for a in res))
