"""Triangle-based clustering coefficients of an undirected graph, as networkx's
``clustering``, ``average_clustering`` and ``transitivity`` (unweighted).

With ``T(v)`` the triangles through ``v`` (:func:`hpgraph.triangles`) and ``d(v)`` the number
of distinct neighbours other than ``v`` (self-loops and repeated edges ignored, as networkx
does):

* local: ``c(v) = 2 T(v) / (d(v) (d(v) - 1))``, 0 where ``d(v) < 2``;
* average: the mean of ``c`` over all vertices (networkx's ``count_zeros=True``);
* transitivity: ``3 * triangles / connected triples = sum T / sum d (d - 1) / 2``, 0 without
  triangles.
"""

from __future__ import annotations

import numpy as np

from ._common import finish, prepare
from ._vec import check_nonempty, check_undirected, simple_sparse

__all__ = ["clustering", "average_clustering", "transitivity"]


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
