"""Closeness and harmonic centrality from hop distances (``networkx.closeness_centrality`` and
``networkx.harmonic_centrality``, unweighted), by batched BFS.

Both use the distances *to* each vertex (``d(v, u)`` for every other ``v``), as networkx does
on a directed graph, so the BFS walks in-edges from ``u``.  A batch of sources is one dense
block and a BFS level of the whole batch one sparse-dense product
(:mod:`hpgraph.algorithms._batched`).

* closeness ``C(u) = (r - 1) / sum_v d(v, u)``, times ``(r - 1) / (n - 1)`` with
  ``wf_improved`` (Wasserman and Faust), where ``r`` counts the vertices reaching ``u`` (``u``
  included); 0 when nothing else reaches ``u``;
* harmonic ``H(u) = sum_{v != u} 1 / d(v, u)`` (unreachable vertices add 0).
"""

from __future__ import annotations

import numpy as np

from ._batched import batches, bfs_block
from ._common import check_sources, finish, prepare

__all__ = ["closeness_centrality", "harmonic_centrality"]


def _vertices(G, vertices):
    n = G.num_vertices
    if vertices is None:
        return np.arange(n, dtype=np.int64)
    return check_sources(G, vertices, argname="vertices")


def closeness_centrality(G, vertices=None, wf_improved=True, *, batch=None, backend=None,
                         to=None):
    """Closeness centrality of ``vertices`` (default: all), unweighted.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Directed or undirected; weights are ignored (hop counts).
    vertices : int or sequence of int, optional
        Vertices to score (default every vertex, in id order).
    wf_improved : bool, default True
        Scale by the fraction of vertices that reach ``u`` (networkx's default).
    batch : int, optional
        BFS sources per batch (default: as many as fit a 2**24-entry block).
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, one value per vertex of ``vertices``

    Raises
    ------
    IndexOutOfBound
        A vertex of ``vertices`` is out of range.
    """
    G, side, on_dev = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    vs = _vertices(G, vertices)
    out = []
    for chunk in batches(vs, n, batch):
        D = bfs_block(G, chunk, reverse=True)
        reach = (D >= 0).sum(axis=0).astype(np.float64)
        tot = xp.where(D > 0, D, 0).sum(axis=0).astype(np.float64)
        c = xp.where(tot > 0, (reach - 1.0) / xp.where(tot > 0, tot, 1.0), 0.0)
        if wf_improved and n > 1:
            c = c * ((reach - 1.0) / (n - 1))   # networkx's operation order (same rounding)
        out.append(c)
    res = xp.concatenate(out) if out else xp.zeros(0, dtype=np.float64)
    return finish(res, on_dev, to)


def harmonic_centrality(G, vertices=None, *, batch=None, backend=None, to=None):
    """Harmonic centrality of ``vertices`` (default: all), unweighted.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Directed or undirected; weights are ignored.
    vertices : int or sequence of int, optional
    batch : int, optional
        BFS sources per batch.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, one value per vertex of ``vertices``
    """
    G, side, on_dev = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    vs = _vertices(G, vertices)
    out = []
    for chunk in batches(vs, n, batch):
        D = bfs_block(G, chunk, reverse=True).astype(np.float64)
        out.append(xp.where(D > 0, 1.0 / xp.where(D > 0, D, 1.0), 0.0).sum(axis=0))
    res = xp.concatenate(out) if out else xp.zeros(0, dtype=np.float64)
    return finish(res, on_dev, to)
