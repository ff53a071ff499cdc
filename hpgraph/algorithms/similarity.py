"""Vertex-pair similarity from shared neighbours: Jaccard, overlap and cosine (like
``cugraph.jaccard`` / ``cugraph.overlap`` / ``cugraph.cosine`` and networkx's
``jaccard_coefficient``).

With ``N(u)`` the set of neighbours of ``u`` in the simple graph (self-loops and repeated
edges ignored) and ``I = |N(u) & N(v)|``:

* Jaccard ``I / |N(u) | N(v)|``, overlap ``I / min(|N(u)|, |N(v)|)``, cosine
  ``I / sqrt(|N(u)| |N(v)|)``; 0 where the denominator is 0 (networkx's convention).

Given pairs: ``I`` is the row sum of ``S[u] .* S[v]`` over the simple pattern ``S`` (sparse
row gathers and an element-wise product, SciPy or cupyx, in chunks).  Every edge on the GPU:
the masked product ``mxm(S, S, plus_pair, mask=S.S)`` of :mod:`hpgraph.graphblas`.  Top-k per vertex: every pair at
distance two is a nonzero of ``S @ S`` (one sparse-sparse product), scored, and the best ``k``
of each row are kept by one sort on ``(row, -score, column)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import backend as _backend
from ..exceptions import IndexOutOfBound, InvalidValue
from ._common import finish, prepare
from ._vec import check_number, check_undirected, csr_from, min_edges, simple_sparse

__all__ = ["jaccard", "overlap", "cosine", "similarity_topk", "SimilarityResult",
           "common_neighbors", "CommonNeighbors"]

METRICS = ("jaccard", "overlap", "cosine")

#: Row entries gathered at once when scoring given pairs (``S[u]`` and ``S[v]`` together);
#: cupyx counts a gather's entries in int32.
GATHER_CHUNK = 1 << 26


class SimilarityResult(NamedTuple):
    """Scores of vertex pairs: ``score[i]`` is the similarity of ``first[i]`` and ``second[i]``."""

    first: object
    second: object
    score: object


class CommonNeighbors(NamedTuple):
    """Result of :func:`common_neighbors`.

    Attributes
    ----------
    pair, vertex : arrays of int64
        One entry per common neighbour ``vertex`` of pair number ``pair`` (the pair's own two
        vertices left out), sorted by pair, then by vertex.
    count : array of int64
        ``|N(u) & N(v)|`` per pair, the pair's own vertices included when they are common
        neighbours (a self-loop makes a vertex its own neighbour; an edge ``u - v`` with loops).
    """

    pair: object
    vertex: object
    count: object


def common_neighbors(G, pairs, *, backend=None, to=None) -> CommonNeighbors:
    """The common neighbours of vertex pairs, listed (networkx's ``common_neighbors`` behind
    its link-prediction scores).

    ``N(u)`` is the set of distinct neighbours of ``u``, with ``u`` itself when it has a
    self-loop (as in networkx).  One sparse row gather and element-wise product
    ``S[u] .* S[v]`` over the pattern ``S``, SciPy or cupyx.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
    pairs : integer array of shape (k, 2)
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    CommonNeighbors

    Raises
    ------
    InvalidValue
        ``G`` is directed, or ``pairs`` is not a (k, 2) integer array.
    IndexOutOfBound
        A vertex of ``pairs`` is out of range.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 3], directed=False, backend="cpu")
    >>> cn = hp.common_neighbors(G, [[0, 3], [1, 2], [3, 3]], backend="cpu")
    >>> cn.pair.tolist(), cn.vertex.tolist(), cn.count.tolist()
    ([0, 1, 2], [2, 0, 2], [1, 1, 2])
    """
    if pairs is None:
        raise InvalidValue("common_neighbors needs the pairs, an integer array of shape (k, 2)")
    G, _, on_dev = prepare(G, backend)
    check_undirected(G, "common_neighbors")
    xp = G.xp
    u, v = _pairs(G, pairs, xp)
    n = G.num_vertices
    if u.shape[0] == 0:
        e = xp.zeros(0, dtype=np.int64)
        return CommonNeighbors(*(finish(e, on_dev, to) for _ in range(3)))
    from ._triangles import _cached

    def pattern():
        r, c, _ = min_edges(G, loops=True)
        return csr_from(xp, r, c, xp.ones(r.shape[0], dtype=np.float64), n)

    S = _cached(G, "hpg.pattern_with_loops", pattern)
    both = S[u].multiply(S[v]).tocsr()
    both.sum_duplicates()
    both.sort_indices()
    indptr = both.indptr.astype(np.int64)
    count = xp.diff(indptr)
    pair = xp.repeat(xp.arange(u.shape[0], dtype=np.int64), count) if xp is np else \
        xp.searchsorted(indptr[1:], xp.arange(int(indptr[-1]), dtype=np.int64), side="right")
    w = both.indices.astype(np.int64)
    keep = (w != u[pair]) & (w != v[pair])
    return CommonNeighbors(finish(pair[keep], on_dev, to), finish(w[keep], on_dev, to),
                           finish(count, on_dev, to))


def _score(xp, metric, inter, du, dv):
    inter = inter.astype(np.float64)
    du = du.astype(np.float64)
    dv = dv.astype(np.float64)
    if metric == "jaccard":
        den = du + dv - inter
    elif metric == "overlap":
        den = xp.minimum(du, dv)
    else:
        den = xp.sqrt(du * dv)
    return xp.where(den > 0, inter / xp.where(den > 0, den, 1.0), 0.0)


def _pairs(G, pairs, xp):
    """``(u, v)`` int64 arrays of the pairs argument (an (k, 2) array; None: every edge)."""
    n = G.num_vertices
    if pairs is None:
        from ._triangles import simple_pairs

        u, v, _ = simple_pairs(G, symmetrize=False)
        return u, v
    P = np.asarray(_backend.to_host(pairs))
    if P.size == 0:
        z = xp.zeros(0, dtype=np.int64)
        return z, z
    if P.ndim != 2 or P.shape[1] != 2 or P.dtype.kind not in "iu":
        raise InvalidValue(f"pairs must be an integer array of shape (k, 2), got shape {P.shape} "
                           f"and dtype {P.dtype}")
    bad = (P < 0) | (P >= n)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise IndexOutOfBound(f"pairs[{i}, {j}] = {int(P[i, j])} is out of range for a graph of "
                              f"{n} vertices (valid ids are 0..{n - 1})")
    P = xp.asarray(P.astype(np.int64))
    return P[:, 0].copy(), P[:, 1].copy()


def _intersections(G, S, deg, u, v, every_edge):
    """``|N(u[i]) & N(v[i])|`` as float64, ``S`` the simple pattern and ``deg`` its row lengths.

    Every edge on the GPU (``u, v`` = the entries of ``S`` in order): the masked product
    ``mxm(S, S, plus_pair, mask=S.S)`` (R-MAT 21 on an H100: 337 ms, where the row gathers
    below overflow cupyx's int32 entry count).  Otherwise the rows ``S[u] .* S[v]`` summed,
    gathered ``GATHER_CHUNK`` entries at a time (65,536 random pairs of R-MAT 21: 1.27 ms,
    against 12.1 ms for a product masked by the pairs; on the host SciPy's gathers are 2-5x
    faster than the NumPy masked product, every edge included).
    """
    xp = G.xp
    if every_edge and xp is not np:
        inter = _edge_intersections(G)
        if inter.shape[0] != u.shape[0]:  # u, v are the pattern's entries in order
            raise AssertionError("every-edge pairs differ from the simple pattern's entries")
        return inter
    ends = xp.cumsum(deg[u] + deg[v])
    ends = ends if xp is np else ends.get()
    out, lo = [], 0
    while lo < u.shape[0]:
        base = int(ends[lo - 1]) if lo else 0
        hi = max(int(np.searchsorted(ends, base + GATHER_CHUNK, side="right")), lo + 1)
        part = S[u[lo:hi]].multiply(S[v[lo:hi]]).sum(axis=1)
        out.append(xp.asarray(part, dtype=np.float64).reshape(-1))
        lo = hi
    return out[0] if len(out) == 1 else xp.concatenate(out)


def _edge_intersections(G):
    """``|N(u) & N(v)|`` (float64) for every entry ``(u, v)`` of the simple pattern, in its
    order: ``mxm(S, S, plus_pair, mask=S.S)``, with zeros where ``S`` has no term."""
    from .. import graphblas as gb
    from ._triangles import simple_matrix

    xp = G.xp
    C = gb.Matrix.from_csr_format(simple_matrix(G))._symmetric()
    R = gb.mxm(C, C, "plus_pair[int64]", mask=C.S)
    inter = xp.zeros(C.nvals, dtype=np.float64)
    inter[xp.searchsorted(C._keys(), R._keys())] = R._values()
    return inter


def _similarity(metric, G, pairs, backend, to):
    G, side, on_dev = prepare(G, backend)
    check_undirected(G, metric)
    xp = G.xp
    u, v = _pairs(G, pairs, xp)
    if u.shape[0] == 0:
        e = xp.zeros(0, dtype=np.int64)
        return SimilarityResult(finish(e, on_dev, to), finish(e, on_dev, to),
                                finish(xp.zeros(0, dtype=np.float64), on_dev, to))
    S = simple_sparse(G)
    deg = xp.diff(S.indptr).astype(np.int64)
    inter = _intersections(G, S, deg, u, v, every_edge=pairs is None)
    score = _score(xp, metric, inter, deg[u], deg[v])
    return SimilarityResult(finish(u, on_dev, to), finish(v, on_dev, to), finish(score, on_dev, to))


def jaccard(G, pairs=None, *, backend=None, to=None):
    """Jaccard similarity ``|N(u) & N(v)| / |N(u) | N(v)|`` of vertex pairs.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Weights, self-loops and repeated edges are ignored.
    pairs : array of shape (k, 2), optional
        The pairs ``(u, v)`` to score.  Default: every edge, both directions (as
        ``cugraph.jaccard`` without ``vertex_pair``).
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    SimilarityResult
        ``first``, ``second`` (int64) and ``score`` (float64), in the order of ``pairs``.

    Raises
    ------
    InvalidValue
        ``G`` is directed, or ``pairs`` is not a (k, 2) integer array.
    IndexOutOfBound
        A vertex of ``pairs`` is out of range.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 0, 1], [1, 2, 2], num_vertices=4, directed=False, backend="cpu")
    >>> hp.jaccard(G, [[0, 1], [0, 3]], backend="cpu").score
    array([0.33333333, 0.        ])
    """
    return _similarity("jaccard", G, pairs, backend, to)


def overlap(G, pairs=None, *, backend=None, to=None):
    """Overlap coefficient ``|N(u) & N(v)| / min(|N(u)|, |N(v)|)`` of vertex pairs.

    Parameters and result as :func:`jaccard`.
    """
    return _similarity("overlap", G, pairs, backend, to)


def cosine(G, pairs=None, *, backend=None, to=None):
    """Cosine similarity ``|N(u) & N(v)| / sqrt(|N(u)| |N(v)|)`` of vertex pairs.

    Parameters and result as :func:`jaccard`.
    """
    return _similarity("cosine", G, pairs, backend, to)


def similarity_topk(G, k, metric="jaccard", *, backend=None, to=None):
    """The ``k`` most similar other vertices of every vertex.

    Only vertices sharing at least one neighbour have a nonzero score, so candidates are the
    pairs at distance two.  Ties are broken by the smaller vertex id.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
    k : int >= 1
        Pairs kept per vertex (fewer where a vertex has fewer candidates).
    metric : {"jaccard", "overlap", "cosine"}
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    SimilarityResult
        Sorted by ``first``, then by decreasing score, then by ``second``; every score > 0.

    Raises
    ------
    InvalidValue
        ``G`` is directed, ``k < 1`` or an unknown ``metric``.
    """
    check_number("k", k, lo=1, integer=True)
    if metric not in METRICS:
        raise InvalidValue(f"metric must be one of {METRICS}, got {metric!r}")
    G, side, on_dev = prepare(G, backend)
    check_undirected(G, "similarity_topk")
    xp = G.xp
    n = G.num_vertices
    if n == 0:
        e = xp.zeros(0, dtype=np.int64)
        return SimilarityResult(finish(e, on_dev, to), finish(e, on_dev, to),
                                finish(xp.zeros(0, dtype=np.float64), on_dev, to))
    S = simple_sparse(G)
    deg = xp.diff(S.indptr).astype(np.int64)
    C = (S @ S).tocoo()
    u = C.row.astype(np.int64)
    v = C.col.astype(np.int64)
    inter = C.data
    off = u != v
    u, v, inter = u[off], v[off], inter[off]
    score = _score(xp, metric, xp.rint(inter), deg[u], deg[v])
    order = xp.lexsort(xp.stack([v, -score, u]))
    u, v, score = u[order], v[order], score[order]
    start = xp.searchsorted(u, xp.arange(n, dtype=np.int64))
    rank = xp.arange(u.shape[0], dtype=np.int64) - start[u]
    keep = rank < int(k)
    return SimilarityResult(finish(u[keep], on_dev, to), finish(v[keep], on_dev, to),
                            finish(score[keep], on_dev, to))
