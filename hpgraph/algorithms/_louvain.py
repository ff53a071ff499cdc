"""Louvain community detection (Blondel et al. 2008) with vectorised local moving, and
modularity (``networkx.community.louvain_communities`` / ``modularity``, ``cugraph.louvain``).

Modularity, with ``A_ii`` twice the weight of a self-loop (networkx's degree convention),
``k_i`` the weighted degree, ``2m = sum(A)`` and ``gamma`` the resolution::

    Q = 1/(2m) * sum over communities c of [ sum_{i,j in c} A_ij - gamma * K_c**2 / (2m) ]

Local moving, all vertices at once (one *sweep*): for every vertex ``i`` and every community
``D`` next to it, ``k_iD`` (the weight from ``i`` into ``D``) comes from one segmented sum over
the edges keyed by ``(i, community of the neighbour)`` (on the host, with positive weights, from
SciPy's product of the edges with the membership matrix: linear instead of a sort); the gain of
moving ``i`` from ``C`` to ``D`` is ``(k_iD - k_i,C\\i) - gamma * k_i * (K_D - K_C + k_i) /
(2m)`` (over ``m``), and each vertex takes its best community (ties: the smallest id) when the
gain is positive.  Moving every vertex at once can undo itself (two vertices swapping
communities), so, as in cuGraph, sweeps alternate between allowing only moves to a larger
community id and only to a smaller one; a sweep whose moves together do not raise ``Q`` (the
change counted exactly on the moved vertices' edges with integer weights) is retried with a
random half of them.  A level ends when two sweeps in a row gain less than ``threshold``; the
communities then become the vertices of the next level (one keyed segmented sum of the edges),
until a level merges nothing.  Every step is a sort, gather, segmented sum, atomic min / max or
sparse product on NumPy or CuPy arrays: no Python loop over vertices.  With integer weights (or
none) every sum is exact, so both sides compute the same gains up to the rounding of one
elementwise expression, take the same decisions and return the same communities.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import backend as _backend
from ..exceptions import InvalidValue
from ._common import finish, prepare
from ._vec import (check_number, check_undirected, expand_rows, scatter_max, scatter_min,
                   stored_edges)
from .._arrayops import bincount

__all__ = ["louvain", "modularity", "LouvainResult"]


class LouvainResult(NamedTuple):
    """Result of :func:`louvain`.

    Attributes
    ----------
    labels : array of int32
        Community of each vertex, numbered 0, 1, ... in the order of each community's smallest
        vertex id.
    modularity : float
        Modularity of the partition at the given resolution (0.0 for a graph without edges).
    levels : int
        Aggregation levels run.
    """

    labels: object
    modularity: float
    levels: int


def _level_graph(G, weighted):
    """``(r, c, w)`` of the first level: stored entries, self-loops doubled (float64)."""
    xp = G.xp
    r, c, w = stored_edges(G)
    if not (weighted and G.weighted):
        w = xp.ones(r.shape[0], dtype=np.float64)
    elif r.shape[0] and bool((w < 0).any()):
        raise InvalidValue("louvain needs non-negative edge weights and G has negative ones; "
                           "use weighted=False or shift the weights")
    w = xp.where(r == c, 2.0 * w, w)
    return r, c, w


def _start(G, backend, name, resolution, threshold, max_levels, weighted, iterations=None):
    """The argument checks and first level shared by Louvain and Leiden (``iterations``: Leiden's
    only): ``(G, side, on_dev, (r, c, w) of the level graph, 2m)``."""
    check_number("resolution", resolution, lo=0, lo_open=True)
    check_number("threshold", threshold, lo=0)
    if max_levels is not None:
        check_number("max_levels", max_levels, lo=1, integer=True)
    if iterations is not None:
        check_number("iterations", iterations, lo=1, integer=True)
    G, side, on_dev = prepare(G, backend)
    check_undirected(G, name)
    r, c, w = _level_graph(G, weighted)
    return G, side, on_dev, (r, c, w), float(w.sum())


def _group_sum(xp, key, w):
    """Distinct keys (sorted) and the sum of ``w`` per key."""
    if key.shape[0] == 0:
        return key, w
    uk, inv = xp.unique(key, return_inverse=True)
    return uk, bincount(xp, inv.reshape(-1), weights=w, minlength=uk.shape[0])


def _quality(xp, r, c, w, comm, k, two_m, gamma, nc):
    inside = float(w[comm[r] == comm[c]].sum())
    K = bincount(xp, comm, weights=k, minlength=nc)
    return (inside - gamma * float((K * K).sum()) / two_m) / two_m


class _Edges(NamedTuple):
    """A level graph's loop-free entries in CSR order, fixed for one local moving: rows, columns,
    weights, row pointers, and on the host with positive weights the SciPy matrix of them and
    the constant parts of a membership matrix (its values and row pointers)."""

    rr: object
    cc: object
    ww: object
    ptr: object
    S: object
    member: tuple = ()


def _edges(xp, r, c, w, n):
    """:class:`_Edges` of the level graph ``(r, c, w)`` (``r`` sorted)."""
    off = r != c
    rr, cc, ww = r[off], c[off], w[off]
    ptr = xp.zeros(n + 1, dtype=np.int64)
    ptr[1:] = xp.cumsum(bincount(xp, rr, minlength=n))
    if xp is np and ww.shape[0] and float(ww.min()) > 0:
        import scipy.sparse as sp

        return _Edges(rr, cc, ww, ptr, sp.csr_matrix((ww, cc, ptr), shape=(n, n)),
                      (np.ones(n), np.arange(n + 1)))
    return _Edges(rr, cc, ww, ptr, None)


def _neighbour_weights(xp, e, comm, n):
    """``(i, D, k_iD)``: every vertex ``i`` with an edge in ``e`` (:class:`_Edges`) and each
    community ``D`` next to it with the weight from ``i`` into ``D``, grouped by ``i``.  With
    ``e.S`` (host, positive weights) the product of the edges with the membership matrix (SciPy's
    accumulator per row: linear, where the keyed sum sorts every edge); else one keyed sum."""
    if e.S is not None:
        import scipy.sparse as sp

        ones, rows = e.member
        P = sp.csr_matrix((ones, comm, rows), shape=(n, n))
        M = e.S @ P                    # positive sums: no entry dropped
        return (np.repeat(np.arange(n, dtype=np.int64), np.diff(M.indptr)),
                M.indices.astype(np.int64), M.data)
    uk, kid = _group_sum(xp, e.rr * n + comm[e.cc], e.ww)
    return uk // n, uk % n, kid


def _sweep_moves(xp, e, comm, k, K, two_m, gamma, n, direction):
    """Best move in one direction of every vertex with an edge in ``e`` (:class:`_Edges`):
    ``(vertices, targets)`` with positive gain; the best target has the largest score, then the
    smallest id."""
    iv, D, kid = _neighbour_weights(xp, e, comm, n)
    own = comm[iv] == D
    k_in_own = xp.zeros(n, dtype=np.float64)
    k_in_own[iv[own]] = kid[own]
    stay = k_in_own - gamma * k * (K[comm] - k) / two_m
    score = kid - gamma * k[iv] * K[D] / two_m
    ok = ~own & ((D > comm[iv]) if direction > 0 else (D < comm[iv]))
    iv, D, score = iv[ok], D[ok], score[ok]
    if iv.shape[0] == 0:
        return iv, D
    # per vertex: the largest score, then the smallest target, by atomic max / min on uint64
    # (scores as order-preserving keys; + 0.0 makes a -0.0 score +0.0)
    key = _order_key(xp, score + 0.0)
    top_key = xp.zeros(n, dtype=np.uint64)
    scatter_max(xp, top_key, iv, key)
    top = key == top_key[iv]
    best = xp.full(n, -np.inf)
    best[iv[top]] = score[top]
    target = xp.full(n, n, dtype=np.uint64)
    scatter_min(xp, target, iv[top], D[top].astype(np.uint64))
    iv = xp.flatnonzero(target < n)
    good = best[iv] - stay[iv] > 1e-12 * max(two_m, 1.0) / max(n, 1)
    iv = iv[good]
    return iv, target[iv].astype(np.int64)


def _order_key(xp, x):
    """uint64 keys of float64 ``x`` in the same order (negative: the bits inverted; else the
    sign bit set)."""
    u = x.view(np.uint64)
    return xp.where((u >> np.uint64(63)) != 0, ~u, u | np.uint64(1 << 63))


def _move_gain(xp, e, comm, trial, iv, k, K, two_m, gamma, n):
    """Modularity of ``trial`` minus that of ``comm`` (they differ at the vertices ``iv``;
    ``K``: the community degrees of ``comm``) from the moved vertices' edges only (``e``:
    :class:`_Edges`; a self-loop stays inside whatever its vertex's community).  An entry
    ``(u, v)`` with only ``u`` moved stands for its mirror ``(v, u)`` too."""
    pos = expand_rows(xp, e.ptr, iv)
    u, v, ww = e.rr[pos], e.cc[pos], e.ww[pos]
    moved = xp.zeros(n, dtype=bool)
    moved[iv] = True
    change = ((trial[u] == trial[v]).astype(np.float64) - (comm[u] == comm[v]))
    inside = (ww * change * xp.where(moved[v], 1.0, 2.0)).sum()
    dK = (bincount(xp, trial[iv], weights=k[iv], minlength=n)
          - bincount(xp, comm[iv], weights=k[iv], minlength=n))
    squares = (dK * (2.0 * K + dK)).sum()
    return float((inside - gamma * squares / two_m) / two_m)     # one host read


def _local_moving(xp, r, c, w, n, k, two_m, gamma, threshold, rng, comm=None):
    """Sweeps from ``comm`` (default: singletons) until two in a row gain < ``threshold``;
    returns ``(comm, moved)``.  ``r`` is sorted (CSR order) at every level, so the edges of the
    vertices a sweep moves are found by their row pointers."""
    comm = xp.arange(n, dtype=np.int64) if comm is None else comm
    e = _edges(xp, r, c, w, n)
    moved_any = False
    quiet = 0
    direction = 1
    for _ in range(10_000):
        K = bincount(xp, comm, weights=k, minlength=n)
        iv, D = _sweep_moves(xp, e, comm, k, K, two_m, gamma, n, direction)
        direction = -direction
        gained = 0.0
        while iv.shape[0]:
            trial = comm.copy()
            trial[iv] = D
            delta = _move_gain(xp, e, comm, trial, iv, k, K, two_m, gamma, n)
            if delta > 0:
                gained = delta
                comm = trial
                moved_any = True
                break
            half = xp.asarray(rng.random(int(iv.shape[0])) < 0.5)
            iv, D = iv[half], D[half]
        quiet = quiet + 1 if gained < threshold else 0
        if quiet >= 2:
            break
    return comm, moved_any


def louvain(G, resolution=1.0, threshold=1e-7, max_levels=None, weighted=True, seed=0, *,
            backend=None, to=None):
    """Louvain communities of an undirected graph.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Repeated entries count as parallel edges (their weights add); self-loops count as in
        networkx.
    resolution : float > 0, default 1.0
        Below 1 favours larger communities, above 1 smaller ones.
    threshold : float >= 0, default 1e-7
        A level ends when two sweeps in a row gain less modularity than this (networkx's
        ``threshold``).
    max_levels : int, optional
        Aggregation levels at most (default: until a level merges nothing).
    weighted : bool, default True
        Use the edge weights (networkx's ``weight="weight"``); they must be non-negative.
    seed : int, default 0
        Seed of the random halving of a sweep whose moves together lower modularity.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    LouvainResult
        ``(labels, modularity, levels)``.

    Raises
    ------
    InvalidValue
        ``G`` is directed, ``resolution <= 0``, negative weights, or bad ``threshold``.
    """
    G, side, on_dev, (r, c, w), two_m = _start(G, backend, "louvain", resolution, threshold,
                                               max_levels, weighted)
    xp = G.xp
    n = G.num_vertices
    gamma = float(resolution)
    rng = np.random.default_rng(seed)
    labels = xp.arange(n, dtype=np.int64)
    levels = 0
    if n == 0 or two_m == 0:
        return LouvainResult(finish(labels.astype(np.int32), on_dev, to), 0.0, 0)
    k = bincount(xp, r, weights=w, minlength=n)
    size = n
    stack = []                      # (graph of the level, its vertices' communities)
    while max_levels is None or levels < max_levels:
        comm, moved = _local_moving(xp, r, c, w, size, k, two_m, gamma, threshold, rng)
        levels += 1
        if not moved:
            break
        ids, comm = xp.unique(comm, return_inverse=True)
        comm = comm.reshape(-1)
        stack.append(((r, c, w, k, size), comm))
        new = int(ids.shape[0])
        key, w = _group_sum(xp, comm[r] * new + comm[c], w)
        r, c = key // new, key % new
        k = bincount(xp, comm, weights=k, minlength=new)
        if new == size:
            break
        size = new
    # refinement (a V-cycle): from the coarsest level down, project the communities onto the
    # level below and let its vertices move again (single vertices can leave a community the
    # coarse level could only move as a whole)
    top = None
    while stack:
        (r, c, w, k, size), comm = stack.pop()
        start = comm if top is None else top[comm]
        top, _ = _local_moving(xp, r, c, w, size, k, two_m, gamma, threshold, rng,
                                  comm=start)
    labels = _canonical(xp, top if top is not None else labels)
    q = modularity(G, labels, resolution=gamma, weighted=weighted, backend=side)
    return LouvainResult(finish(labels, on_dev, to), q, levels)


def _canonical(xp, labels):
    """Renumber communities 0, 1, ... by their smallest vertex id (int32)."""
    n = int(labels.shape[0])
    first = xp.full(n, n, dtype=np.int64)
    scatter_min(xp, first, labels, xp.arange(n, dtype=np.int64))
    root = first[labels]
    is_root = root == xp.arange(n, dtype=np.int64)
    rank = xp.cumsum(is_root, dtype=np.int64) - 1
    return rank[root].astype(np.int32)


def modularity(G, labels, resolution=1.0, weighted=True, *, backend=None) -> float:
    """Modularity of a partition (``networkx.community.modularity``).

    Undirected: ``sum_c L_c / m - resolution * (K_c / 2m)^2``; directed (Leicht and Newman):
    ``sum_c L_c / m - resolution * Kout_c * Kin_c / m^2``, where ``L_c`` is the weight of the
    edges inside community ``c``, ``K_c`` its total degree (a self-loop counts twice in an
    undirected graph) and ``m`` the total edge weight.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
    labels : array of int, length n
        Community of each vertex (any integer ids >= 0).
    resolution : float, default 1.0
        Any finite number (networkx's ``resolution``; Louvain itself needs it > 0).
    weighted : bool, default True

    Returns
    -------
    float (0.0 for a graph without edges)

    Raises
    ------
    InvalidValue
        ``labels`` of the wrong length or negative, ``resolution`` not a finite number.
    """
    check_number("resolution", resolution)
    G, side, _ = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    lab = np.asarray(_backend.to_host(labels))
    if lab.shape != (n,) or (n and (lab.dtype.kind not in "iu" or lab.min() < 0)):
        raise InvalidValue(f"labels must be a non-negative integer array of length {n}, got "
                           f"shape {lab.shape} and dtype {lab.dtype}")
    r, c, w = stored_edges(G)
    if not (weighted and G.weighted):
        w = xp.ones(r.shape[0], dtype=np.float64)
    comm = xp.asarray(lab.astype(np.int64))
    nc = int(lab.max()) + 1 if n else 0
    if G.directed:
        m = float(w.sum())
        if m == 0:
            return 0.0
        inside = float(w[comm[r] == comm[c]].sum())
        k_out = bincount(xp, comm[r], weights=w, minlength=nc)
        k_in = bincount(xp, comm[c], weights=w, minlength=nc)
        return inside / m - float(resolution) * float((k_out * k_in).sum()) / (m * m)
    w = xp.where(r == c, 2.0 * w, w)   # a self-loop adds 2 to its vertex's degree
    two_m = float(w.sum())
    if two_m == 0:
        return 0.0
    k = bincount(xp, r, weights=w, minlength=n)
    return float(_quality(xp, r, c, w, comm, k, two_m, float(resolution), nc))
