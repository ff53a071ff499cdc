"""Reciprocity of a directed graph: how many edges have their reverse edge too.

An edge ``u -> v`` is reciprocated when ``v -> u`` is an edge.  Every stored entry's reverse is
looked up at once in the sorted entry keys ``u * n + v`` (one ``searchsorted``), the same code
on NumPy and CuPy.  Repeated edges count once.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue
from ._common import finish, prepare
from ._vec import check_directed
from .._arrayops import bincount

__all__ = ["reciprocity", "vertex_reciprocity"]


def _entries(G):
    """``(rows, cols, reciprocated)`` of the distinct stored entries (int64, int64, bool)."""
    xp = G.xp
    n = G.num_vertices
    A = G.A
    if A.nnz == 0:
        z = xp.zeros(0, dtype=np.int64)
        return z, z, xp.zeros(0, dtype=bool)
    r = A.row_ids().astype(np.int64, copy=False)
    c = A.indices.astype(np.int64, copy=False)
    key = r * n + c
    order = xp.argsort(key)
    key = key[order]
    first = xp.ones(key.shape[0], dtype=bool)
    first[1:] = key[1:] != key[:-1]
    key = key[first]
    r, c = key // n, key % n
    rev = c * n + r
    at = xp.minimum(xp.searchsorted(key, rev), key.shape[0] - 1)
    return r, c, key[at] == rev


def reciprocity(G, *, backend=None) -> float:
    """Fraction of the edges of a directed graph whose reverse edge exists
    (``networkx.overall_reciprocity``; a self-loop is not counted as reciprocated).

    Parameters
    ----------
    G : Graph (directed), scipy/cupyx sparse matrix or networkx DiGraph
    backend : {None, "auto", "cpu", "gpu"}

    Returns
    -------
    float

    Raises
    ------
    InvalidValue
        ``G`` is undirected, or has no edge (the fraction is undefined).

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 2], num_vertices=3, backend="cpu")
    >>> hp.reciprocity(G, backend="cpu")
    0.5
    """
    G, _, _ = prepare(G, backend)
    check_directed(G, "reciprocity", "an undirected graph's edges are all reciprocated")
    r, c, both = _entries(G)
    if r.shape[0] == 0:
        raise InvalidValue("reciprocity is undefined for a graph without edges")
    return int((both & (r != c)).sum()) / int(r.shape[0])


def vertex_reciprocity(G, *, backend=None, to=None):
    """Reciprocity of every vertex of a directed graph (``networkx.reciprocity(G, nodes)``):
    ``2 |succ(u) & pred(u)| / (|succ(u)| + |pred(u)|)``.

    Parameters
    ----------
    G : Graph (directed), scipy/cupyx sparse matrix or networkx DiGraph
        A self-loop puts the vertex in its own successors and predecessors.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, length n
        NaN for a vertex without edges (networkx's None: undefined).

    Raises
    ------
    InvalidValue
        ``G`` is undirected.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 2], num_vertices=4, backend="cpu")
    >>> hp.vertex_reciprocity(G, backend="cpu")
    array([1.        , 0.66666667, 0.66666667,        nan])
    """
    G, _, on_dev = prepare(G, backend)
    check_directed(G, "vertex_reciprocity", "an undirected graph's edges are all reciprocated")
    xp = G.xp
    n = G.num_vertices
    r, c, both = _entries(G)
    overlap = bincount(xp, r[both], minlength=n)[:n] if r.shape[0] else xp.zeros(n, np.int64)
    total = (bincount(xp, r, minlength=n)[:n] + bincount(xp, c, minlength=n)[:n]
             if r.shape[0] else xp.zeros(n, np.int64))
    out = xp.where(total > 0, 2.0 * overlap / xp.where(total > 0, total, 1), xp.nan)
    return finish(out.astype(np.float64), on_dev, to)
