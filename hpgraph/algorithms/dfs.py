"""Depth-first search reported edge by edge: every edge the search meets, labelled.

The search starts from each start vertex not yet visited, in order, and scans each vertex's
neighbours in their stored order; it reports

* ``(s, s, FORWARD)`` when it starts at ``s`` and ``(s, s, REVERSE)`` when it is done with it;
* ``(u, v, FORWARD)`` when it follows the edge to an unvisited ``v`` (a tree edge), then
  ``(u, v, REVERSE)`` when it backs out of ``v`` -- or ``(u, v, REVERSE_DEPTH_LIMIT)`` at once
  when ``v`` lies at the depth limit and is not expanded;
* ``(u, v, NONTREE)`` for an edge to a vertex already visited.

These are ``networkx.dfs_labeled_edges``'s events, in its order when the rows are in networkx's
neighbour order.  A depth-first search is sequential by nature (each step depends on everything
visited before), so it runs on the host over the CSR arrays with an explicit stack of integer
cursors: O(n + m).  SciPy's ``depth_first_order`` (``hpgraph.csgraph.depth_first_order``) gives
the preorder alone, faster; this gives every event.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import backend as _backend
from ._common import check_sources, finish, prepare

__all__ = ["DFSEvents", "depth_first_events", "dfs_events", "FORWARD", "NONTREE", "REVERSE",
           "REVERSE_DEPTH_LIMIT", "KINDS"]

FORWARD, NONTREE, REVERSE, REVERSE_DEPTH_LIMIT = 0, 1, 2, 3

#: the networkx label of each event kind code
KINDS = ("forward", "nontree", "reverse", "reverse-depth_limit")


class DFSEvents(NamedTuple):
    """Result of :func:`depth_first_events`: one entry per event, in the order of the search.

    Attributes
    ----------
    source, target : arrays of int64
    kind : array of int8
        ``FORWARD`` (0), ``NONTREE`` (1), ``REVERSE`` (2) or ``REVERSE_DEPTH_LIMIT`` (3); the
        networkx labels are ``KINDS[kind]``.
    """

    source: object
    target: object
    kind: object


def dfs_events(indptr, indices, starts, depth_limit=None) -> DFSEvents:
    """The depth-first search of the module docstring over a CSR given as NumPy arrays.

    Parameters
    ----------
    indptr, indices : 1-D NumPy integer arrays
        The adjacency, each row in the order its neighbours are to be scanned (need not be
        sorted).
    starts : iterable of int
        Start vertices, in order (already visited ones are skipped).
    depth_limit : int, optional
        Vertices at this depth (the start is at depth 0) are reached but not expanded
        (``REVERSE_DEPTH_LIMIT``).  Default: no limit.

    Returns
    -------
    DFSEvents
        NumPy arrays.
    """
    n = int(indptr.shape[0]) - 1
    ptr, ind = np.asarray(indptr).tolist(), np.asarray(indices).tolist()
    limit = n if depth_limit is None else depth_limit
    visited = [False] * n
    src: list = []
    dst: list = []
    kind: list = []

    def emit(u, v, k):
        src.append(u)
        dst.append(v)
        kind.append(k)

    for start in starts:
        if visited[start]:
            continue
        emit(start, start, FORWARD)
        visited[start] = True
        stack = [[start, ptr[start], ptr[start + 1]]]
        depth_now = 1
        while stack:
            top = stack[-1]
            parent = top[0]
            pushed = False
            while top[1] < top[2]:
                child = ind[top[1]]
                top[1] += 1
                if visited[child]:
                    emit(parent, child, NONTREE)
                    continue
                emit(parent, child, FORWARD)
                visited[child] = True
                if depth_now < limit:
                    stack.append([child, ptr[child], ptr[child + 1]])
                    depth_now += 1
                    pushed = True
                    break
                emit(parent, child, REVERSE_DEPTH_LIMIT)
            if pushed:
                continue
            stack.pop()
            depth_now -= 1
            if stack:
                emit(stack[-1][0], parent, REVERSE)
        emit(start, start, REVERSE)
    return DFSEvents(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
                     np.asarray(kind, dtype=np.int8))


def depth_first_events(G, source=None, depth_limit=None, *, backend=None, to=None) -> DFSEvents:
    """Every edge a depth-first search meets, labelled (``networkx.dfs_labeled_edges``).

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Directed (out-edges are followed) or undirected.  Neighbours are scanned in increasing
        id (the CSR's row order).
    source : int, optional
        The start vertex; default every vertex in turn (a depth-first forest).
    depth_limit : int, optional
        Depth below which vertices are not expanded (default: none).
    backend : {None, "auto", "cpu", "gpu"}
        The search always runs on the host (it is sequential); a device graph is read back and
        the arrays are returned on the input's side.
    to : {None, "numpy", "cupy"}

    Returns
    -------
    DFSEvents
        ``source``, ``target`` and ``kind`` per event.

    Raises
    ------
    IndexOutOfBound
        ``source`` is out of range.

    Examples
    --------
    >>> import hpgraph as hp
    >>> from hpgraph.algorithms.dfs import KINDS
    >>> G = hp.Graph.from_edges([0, 0, 1], [1, 2, 2], num_vertices=3, backend="cpu")
    >>> ev = hp.depth_first_events(G, 0, backend="cpu")
    >>> events = [(u, v, KINDS[k]) for u, v, k in zip(*(a.tolist() for a in ev))]
    >>> events[:4]
    [(0, 0, 'forward'), (0, 1, 'forward'), (1, 2, 'forward'), (1, 2, 'reverse')]
    >>> events[4:]
    [(0, 1, 'reverse'), (0, 2, 'nontree'), (0, 0, 'reverse')]
    """
    G, _, on_dev = prepare(G, backend)
    starts = range(G.num_vertices) if source is None else check_sources(
        G, source, allow_many=False).tolist()
    A = G.A
    res = dfs_events(np.asarray(_backend.to_host(A.indptr)),
                     np.asarray(_backend.to_host(A.indices)), starts, depth_limit)
    return DFSEvents(*(finish(a, on_dev, to) for a in res))
