"""Colliders and v-structures of a directed graph: pairs of in-neighbours of a vertex.

A collider is a triple ``(p1, v, p2)`` with ``p1`` and ``p2`` in-neighbours of ``v``; a
v-structure (an unshielded collider) also has ``p1`` and ``p2`` not adjacent.  Every pair of
positions ``i < j`` in each in-neighbour list is generated at once (one cumulative sum and one
sorted search over the pair counts ``d - 1 - i`` of every entry), and adjacency is one sorted
search over the edge keys, the same code on NumPy and CuPy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._common import finish, prepare
from ._vec import check_directed
from .._arrayops import bincount

__all__ = ["Colliders", "colliders", "collider_triples"]


class Colliders(NamedTuple):
    """Result of :func:`colliders`: triple ``k`` is ``(first[k], node[k], second[k])``."""

    first: object
    node: object
    second: object


def collider_triples(xp, indptr, preds, lo, hi, edge_keys=None):
    """The colliders of the vertices ``lo <= v < hi`` from their in-neighbour lists.

    Parameters
    ----------
    xp : numpy or cupy
    indptr, preds : int64 arrays
        In-neighbour lists (row ``v`` lists the tails of the edges into ``v``) in the order
        the pairs are to be formed: ``(preds[i], preds[j])`` for positions ``i < j`` of a row.
    lo, hi : int
        The vertex range.
    edge_keys : sorted int64 array, optional
        ``u * n + v`` of every edge; when given, pairs whose two vertices are adjacent (either
        way) are left out (v-structures).

    Returns
    -------
    Colliders
        Vertices in order, each vertex's pairs in ``(i, j)`` order.
    """
    n = int(indptr.shape[0]) - 1
    start, stop = int(indptr[lo]), int(indptr[hi])
    p = xp.arange(start, stop, dtype=np.int64)
    rows = xp.searchsorted(indptr[1:], p, side="right")          # the vertex of each entry
    length = indptr[rows + 1] - 1 - p                             # later entries in the row
    ends = xp.cumsum(length)
    total = int(ends[-1]) if ends.shape[0] else 0
    if total == 0:
        e = xp.zeros(0, dtype=np.int64)
        return Colliders(e, e, e)
    pos = xp.arange(total, dtype=np.int64)
    owner = xp.searchsorted(ends, pos, side="right")
    second_at = p[owner] + 1 + pos - (ends[owner] - length[owner])
    first, node, second = preds[p[owner]], rows[owner], preds[second_at]
    if edge_keys is not None and edge_keys.shape[0]:
        adjacent = xp.zeros(total, dtype=bool)
        for key in (first * n + second, second * n + first):
            at = xp.minimum(xp.searchsorted(edge_keys, key), edge_keys.shape[0] - 1)
            adjacent |= edge_keys[at] == key
        keep = ~adjacent
        first, node, second = first[keep], node[keep], second[keep]
    return Colliders(first, node, second)


def colliders(G, *, unshielded=False, backend=None, to=None) -> Colliders:
    """Every collider ``(p1, v, p2)`` of a directed graph (``networkx.dag.colliders``), or only
    the v-structures (``unshielded=True``: ``p1`` and ``p2`` not adjacent;
    ``networkx.dag.v_structures``).

    Parameters
    ----------
    G : Graph (directed), scipy/cupyx sparse matrix or networkx DiGraph
        Repeated edges count once; a self-loop makes a vertex its own in-neighbour.
    unshielded : bool, default False
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    Colliders
        int64 arrays, by vertex, each vertex's in-neighbours paired in increasing id.

    Raises
    ------
    InvalidValue
        ``G`` is undirected.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 2, 0], [3, 3, 3, 1], num_vertices=4, backend="cpu")
    >>> c = hp.colliders(G, backend="cpu")
    >>> list(zip(c.first.tolist(), c.node.tolist(), c.second.tolist()))
    [(0, 3, 1), (0, 3, 2), (1, 3, 2)]
    >>> hp.colliders(G, unshielded=True, backend="cpu").first.tolist()
    [0, 1]
    """
    G, _, on_dev = prepare(G, backend)
    check_directed(G, "colliders", "a graph with directions (directed=True)")
    xp = G.xp
    n = G.num_vertices
    AT = G.AT     # row v: the in-neighbours of v, sorted
    indptr = AT.indptr.astype(np.int64)
    preds = AT.indices.astype(np.int64)
    if AT.nnz:   # repeated edges once
        key = xp.searchsorted(indptr[1:], xp.arange(AT.nnz, dtype=np.int64), side="right") * n
        key = key + preds
        first = xp.ones(AT.nnz, dtype=bool)
        first[1:] = key[1:] != key[:-1]
        if not bool(first.all()):
            rows = key[first] // n
            preds = preds[first]
            indptr = xp.zeros(n + 1, dtype=np.int64)
            indptr[1:] = xp.cumsum(bincount(xp, rows, minlength=n))
    keys = None
    if unshielded:
        A = G.A
        r = A.row_ids().astype(np.int64) if A.nnz else xp.zeros(0, dtype=np.int64)
        keys = xp.unique(r * n + A.indices.astype(np.int64))
    res = collider_triples(xp, indptr, preds, 0, n, keys)
    return Colliders(*(finish(a, on_dev, to) for a in res))
