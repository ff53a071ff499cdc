"""Triangle-based clustering coefficients of an undirected graph, as networkx's
``clustering``, ``average_clustering`` and ``transitivity`` (unweighted).

With ``T(v)`` the triangles through ``v`` (:func:`hpgraph.triangles`) and ``d(v)`` the number
of distinct neighbours other than ``v`` (self-loops and repeated edges ignored, as networkx
does):

* local: ``c(v) = 2 T(v) / (d(v) (d(v) - 1))``, 0 where ``d(v) < 2``;
* average: the mean of ``c`` over all vertices (networkx's ``count_zeros=True``);
* transitivity: ``3 * triangles / connected triples = sum T / sum d (d - 1) / 2``, 0 without
  triangles;
* square clustering (Lind et al., networkx's ``square_clustering``): the squares through
  ``v`` over the squares that could close, all counts from one sparse product ``C = S S`` of
  the simple pattern ``S`` (``C[v, x]`` common neighbours of ``v`` and ``x``).
"""

from __future__ import annotations

import numpy as np

from ._common import finish, prepare
from ._vec import check_nonempty, check_undirected, simple_sparse
from .._arrayops import bincount

__all__ = ["clustering", "average_clustering", "transitivity", "square_counts",
           "square_clustering"]


def _parts(G, backend, who):
    from ._triangles import triangles

    G, side, on_dev = prepare(G, backend)
    check_undirected(G, who)
    xp = G.xp
    if G.num_vertices == 0:
        z = xp.zeros(0, dtype=np.int64)
        return G, on_dev, z, z
    t = triangles(G, backend=side)
    d = xp.diff(simple_sparse(G).indptr).astype(np.int64)
    return G, on_dev, t, d


def clustering(G, *, backend=None, to=None):
    """Local clustering coefficient of every vertex, like ``networkx.clustering(G)``.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Weights, self-loops and repeated edges are ignored.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, length n

    Raises
    ------
    InvalidValue
        ``G`` is directed.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False, backend="cpu")
    >>> hp.clustering(G, backend="cpu")
    array([1.        , 1.        , 0.33333333, 0.        ])
    """
    G, on_dev, t, d = _parts(G, backend, "clustering")
    xp = G.xp
    pairs = (d * (d - 1)).astype(np.float64)
    c = xp.where(pairs > 0, 2.0 * t / xp.where(pairs > 0, pairs, 1.0), 0.0)
    return finish(c, on_dev, to)


def average_clustering(G, *, backend=None) -> float:
    """Mean local clustering coefficient over all vertices (``networkx.average_clustering``).

    Raises
    ------
    InvalidValue
        ``G`` is directed or has no vertex (networkx divides by zero there).
    """
    G, side, _ = prepare(G, backend)
    check_nonempty(G, "average_clustering")
    c = clustering(G, backend=side)
    return float(c.sum()) / G.num_vertices


def transitivity(G, *, backend=None) -> float:
    """Fraction of connected triples that close into triangles (``networkx.transitivity``).

    Raises
    ------
    InvalidValue
        ``G`` is directed.
    """
    G, on_dev, t, d = _parts(G, backend, "transitivity")
    tri = int(t.sum())
    if tri == 0:
        return 0.0
    return 2.0 * tri / float((d * (d - 1)).sum())


def square_counts(G, *, backend=None, to=None):
    """Squares through every vertex and the squares that could close there (the numerator and
    denominator of ``networkx.square_clustering``).

    With ``d`` the simple degree and ``C = S S`` (``S`` the simple pattern): squares
    ``sum_{x != v} C[v, x] (C[v, x] - 1) / 2``; potential
    ``(S d)[v] (d(v) - 1) - d(v) (d(v) - 1) - triangles2(v) - squares(v)`` with
    ``triangles2(v) = (S .* C)[v, :].sum()`` (each triangle twice), as networkx counts them.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Self-loops and repeated edges are ignored.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    (array of int64, array of int64)
        ``squares`` and ``potential`` per vertex.

    Raises
    ------
    InvalidValue
        ``G`` is directed.
    """
    G, _, on_dev = prepare(G, backend)
    check_undirected(G, "square_counts")
    xp = G.xp
    n = G.num_vertices
    if n == 0:
        z = xp.zeros(0, dtype=np.int64)
        return finish(z, on_dev, to), finish(z, on_dev, to)
    S = simple_sparse(G)
    deg = xp.diff(S.indptr).astype(np.float64)
    SS = S @ S
    C = SS.tocoo()
    off = C.row != C.col                 # x = v is not a corner
    r, v = C.row[off].astype(np.int64), C.data[off]
    sq2 = bincount(xp, r, weights=v * (v - 1), minlength=n) if r.shape[0] else xp.zeros(n)
    squares = xp.rint(sq2).astype(np.int64) // 2
    tri2 = xp.asarray(S.multiply(SS).sum(axis=1)).reshape(-1)
    uw = xp.asarray(S @ deg).reshape(-1) * (deg - 1)
    potential = xp.rint(uw - deg * (deg - 1) - tri2).astype(np.int64) - squares
    return finish(squares, on_dev, to), finish(potential, on_dev, to)


def square_clustering(G, *, backend=None, to=None):
    """Square clustering coefficient of every vertex (``networkx.square_clustering``):
    squares over potential squares, 0 where none can close.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Self-loops and repeated edges are ignored.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, length n

    Raises
    ------
    InvalidValue
        ``G`` is directed.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 2, 3, 0], [1, 2, 3, 0, 2], directed=False, backend="cpu")
    >>> hp.square_clustering(G, backend="cpu")
    array([0.33333333, 1.        , 0.33333333, 1.        ])
    """
    G, side, on_dev = prepare(G, backend)
    squares, potential = square_counts(G, backend=side)
    xp = G.xp
    ok = potential > 0
    out = xp.where(ok, squares / xp.where(ok, potential, 1), 0.0).astype(np.float64)
    return finish(out, on_dev, to)
