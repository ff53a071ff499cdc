"""Minimum spanning forest of an undirected weighted graph by Boruvka's algorithm, every step a
vectorised operation over the edges (``networkx.minimum_spanning_tree``,
``scipy.sparse.csgraph.minimum_spanning_tree``, ``cugraph.minimum_spanning_tree``).

Edges are ranked once by ``(weight, u, v)``, so every edge has a distinct rank and the forest
is unique (the same on both backends).  Each round:

1. every component takes its cheapest outgoing edge: one scatter-min of edge ranks into both
   endpoints' components;
2. the chosen edges join the forest; each component points to the component across its edge,
   and of two components that chose the same edge the smaller id becomes the root (with
   distinct ranks no longer cycle can form);
3. pointer jumping flattens the components; edges inside one component drop out.

At least half of the components merge per round, so there are at most ``log2 n`` rounds.
"""

from __future__ import annotations

import numpy as np

from ._common import prepare
from ._vec import check_undirected, min_edges, pointer_jump, scatter_min

__all__ = ["minimum_spanning_forest", "boruvka"]


def minimum_spanning_forest(G, *, backend=None):
    """Minimum spanning forest (a minimum spanning tree of every connected component).

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Repeated edges count with their smallest weight; self-loops are ignored; zero and
        negative weights are allowed.  An unweighted graph gives a spanning forest (all
        weights 1).
    backend : {None, "auto", "cpu", "gpu"}

    Returns
    -------
    Graph
        Undirected, on the same vertices, holding the forest's ``n - components`` edges with
        their weights (float64; unweighted when ``G`` is).  Ties between equal weights are
        broken by the smaller ``(u, v)`` pair, ``u < v``.

    Raises
    ------
    InvalidValue
        ``G`` is directed.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 2.0, 5.0], directed=False,
    ...                         backend="cpu")
    >>> hp.minimum_spanning_forest(G, backend="cpu").to_scipy().toarray()
    array([[0., 1., 0.],
           [1., 0., 2.],
           [0., 2., 0.]])
    """
    from ..graph import Graph

    G, side, _ = prepare(G, backend)
    check_undirected(G, "minimum_spanning_forest")
    xp = G.xp
    n = G.num_vertices
    r, c, w = min_edges(G, loops=False)
    half = r < c
    u, v, w = r[half], c[half], w[half]
    # rank by (weight, u, v): distinct ranks make the forest unique
    order = xp.lexsort(xp.stack([v, u, w]))
    u, v, w = u[order], v[order], w[order]
    chosen = boruvka(xp, n, u, v)
    fu, fv, fw = u[chosen], v[chosen], w[chosen]
    return Graph.from_edges(fu, fv, fw if G.weighted else None, num_vertices=n, directed=False,
                            backend=side)


def boruvka(xp, n, u, v):
    """Boruvka's rounds over edges ``u[i] - v[i]`` ranked by their position ``i`` (no
    self-loops): the mask of the edges in the minimum spanning forest of that order (unique,
    so Kruskal over the same order picks the same edges)."""
    m = int(u.shape[0])
    chosen = xp.zeros(m, dtype=bool)
    comp = xp.arange(n, dtype=np.int64)
    live = xp.arange(m, dtype=np.int64)
    none = np.int64(m)
    while live.shape[0]:
        cu, cv = comp[u[live]], comp[v[live]]
        cross = cu != cv
        live, cu, cv = live[cross], cu[cross], cv[cross]
        if live.shape[0] == 0:
            break
        best = xp.full(n, none, dtype=np.int64)
        scatter_min(xp, best, cu, live)
        scatter_min(xp, best, cv, live)
        has = best < none
        e = best[has]
        chosen[e] = True
        roots = xp.flatnonzero(has)
        other = xp.where(comp[u[e]] == roots, comp[v[e]], comp[u[e]])
        parent = xp.arange(n, dtype=np.int64)
        parent[roots] = other
        mutual = (parent[other] == roots) & (roots < other)
        parent[roots[mutual]] = roots[mutual]
        comp = pointer_jump(xp, parent)[comp]
    return chosen
