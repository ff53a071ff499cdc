"""Leiden community detection (Traag, Waltman and van Eck 2019) with vectorised phases
(``cugraph.leiden``, ``leidenalg.ModularityVertexPartition``; networkx 3.6 only dispatches
``leiden_communities`` to other backends).

One *iteration* on the graph of a level (its vertices are groups of the original vertices):

1. **local moving** -- :func:`hpgraph.algorithms.louvain`'s sweeps (all vertices at once, the
   best positive-gain community of each) from the partition ``P`` the previous level handed
   down;
2. **refinement** -- inside every community ``C`` of ``P``, start from singletons and merge:
   a vertex ``v`` that is still a singleton and *well connected* to ``C``
   (``E(v, C - v) >= gamma * k_v * (K_C - k_v) / 2m``) joins the subcommunity ``T`` of ``C``
   it gains most modularity by joining (``w(v, T) - gamma * k_v * K_T / 2m > 0``), among the
   ``T`` that are well connected to ``C`` themselves (the same test with ``E(T, C - T)``).
   All singletons choose at once (a *sweep*); a vertex that another vertex chose as target
   stays put in that sweep, so every subcommunity keeps the vertex it is named after and stays
   connected (each member joined it along an edge).  Sweeps repeat until nothing merges;
   the choice is greedy (the ``theta -> 0`` limit of the paper's randomised choice);
3. **aggregation** -- the subcommunities (not the communities) become the vertices of the
   next level, and each starts in the community of ``P`` it came from.

A *run* of iterations stops when local moving leaves every vertex of a level alone (each community is one
refined, hence connected, subcommunity), or when refinement merges nothing.  Finally every
community is split into its connected components (on the edges inside it; splitting a
disconnected community never lowers modularity), so every community returned is connected
whatever stopped the iterations.  The first run starts from singletons; the next runs
(``iterations``, as ``leidenalg``'s ``n_iterations``) start from the best partition so far,
which is :func:`louvain`'s (split into connected parts, same seed) where that has the higher
modularity: the result is never below Louvain's.  Every step is a sort, gather or segmented sum on NumPy or
CuPy arrays; with integer weights (or none) both sides compute the same sums and return the
same communities for the same ``seed``.
"""

from __future__ import annotations

import numpy as np

from ._common import finish
from ._louvain import (LouvainResult, _canonical, _group_sum, _local_moving, _quality, _start,
                       louvain, modularity)
from ._vec import csr_from
from .._arrayops import bincount

__all__ = ["leiden"]


def _refine(xp, r, c, w, k, n, comm, two_m, gamma):
    """Leiden's refinement of the partition ``comm`` of a level: subcommunity of every vertex
    (labelled by a member's id; every subcommunity is connected and lies inside one
    community)."""
    ref = xp.arange(n, dtype=np.int64)
    inside = (r != c) & (comm[r] == comm[c])
    rr, cc, ww = r[inside], c[inside], w[inside]
    if rr.shape[0] == 0:
        return ref
    scale = gamma / two_m
    K_C = bincount(xp, comm, weights=k, minlength=n)
    e_v = bincount(xp, rr, weights=ww, minlength=n)
    well_v = e_v >= scale * k * (K_C[comm] - k)
    single = xp.ones(n, dtype=bool)
    eps = 1e-12 * max(two_m, 1.0) / max(n, 1)
    for _ in range(n):
        K_T = bincount(xp, ref, weights=k, minlength=n)
        rt, ct = ref[rr], ref[cc]
        out = rt != ct
        E_T = bincount(xp, rt[out], weights=ww[out], minlength=n)
        # label T is always the id of one of its members, so comm[T] is its community
        well_T = E_T >= scale * K_T * (K_C[comm] - K_T)
        cand = single[rr] & well_v[rr] & out & well_T[ct]
        if not bool(cand.any()):
            break
        key, kvt = _group_sum(xp, rr[cand] * n + ct[cand], ww[cand])
        iv, T = key // n, key % n
        gain = kvt - scale * k[iv] * K_T[T]
        order = xp.lexsort(xp.stack([T, -gain, iv]))
        iv, T, gain = iv[order], T[order], gain[order]
        first = xp.ones(iv.shape[0], dtype=bool)
        first[1:] = iv[1:] != iv[:-1]
        iv, T, gain = iv[first], T[first], gain[first]
        good = gain > eps
        iv, T = iv[good], T[good]
        targeted = xp.zeros(n, dtype=bool)
        targeted[T] = True
        keep = ~targeted[iv]
        iv, T = iv[keep], T[keep]
        if iv.shape[0] == 0:
            break
        ref[iv] = T
        single[iv] = False
        single[T] = False
    return ref


def _split_disconnected(xp, r, c, labels, n, side):
    """``labels`` with every community split into its connected components (on the edges
    whose two ends share a community); components numbered by their smallest vertex."""
    from ..graph import Graph
    from .components import connected_components

    same = labels[r] == labels[c]
    rr, cc = r[same], c[same]
    M = csr_from(xp, rr, cc, xp.ones(rr.shape[0], dtype=np.float64), n)
    _, comp = connected_components(Graph(M, directed=False), backend=side)
    return comp.astype(np.int64)


def leiden(G, resolution=1.0, threshold=1e-7, max_levels=None, weighted=True, seed=0,
           iterations=2, *, backend=None, to=None):
    """Leiden communities of an undirected graph (modularity with a resolution).

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Repeated entries count as parallel edges (their weights add); self-loops count as in
        networkx.
    resolution : float > 0, default 1.0
        Below 1 favours larger communities, above 1 smaller ones.
    threshold : float >= 0, default 1e-7
        Local moving on a level ends when two sweeps in a row gain less modularity than this.
    max_levels : int, optional
        Iterations (local moving, refinement, aggregation) at most; default: until one changes
        nothing.
    weighted : bool, default True
        Use the edge weights; they must be non-negative.
    seed : int, default 0
        Seed of the random halving of a local-moving sweep whose moves together lower
        modularity (the same seed gives the same communities on both backends).
    iterations : int >= 1 or None, default 2
        Runs of the whole algorithm, each starting from the previous one's communities
        (``leidenalg``'s ``n_iterations``, default 2); None: until a run gains less than
        ``threshold``.  A run that gains nothing ends the iterations early.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    LouvainResult
        ``(labels, modularity, levels)``: ``labels`` numbered 0, 1, ... in the order of each
        community's smallest vertex; every community is connected.

    Raises
    ------
    InvalidValue
        ``G`` is directed, ``resolution <= 0``, negative weights, or bad ``threshold`` /
        ``max_levels``.
    """
    G, side, on_dev, (r0, c0, w0), two_m = _start(G, backend, "leiden", resolution, threshold,
                                                  max_levels, weighted, iterations)
    xp = G.xp
    n = G.num_vertices
    gamma = float(resolution)
    rng = np.random.default_rng(seed)
    if n == 0 or two_m == 0:
        return LouvainResult(finish(xp.arange(n, dtype=np.int32), on_dev, to), 0.0, 0)
    k0 = bincount(xp, r0, weights=w0, minlength=n)

    def connected(comm):
        comm = _canonical(xp, _split_disconnected(xp, r0, c0, comm, n, side)).astype(np.int64)
        return comm, _quality(xp, r0, c0, w0, comm, k0, two_m, gamma, n)

    # the first run from singletons; Louvain's communities (split into connected parts) are
    # the start of the next runs instead when their modularity is higher
    comm, levels = _one_pass(xp, (r0, c0, w0, k0, n), two_m, gamma, threshold, max_levels,
                             rng, None)
    labels, q = connected(comm)
    lv = louvain(G, resolution, threshold, max_levels, weighted, seed, backend=side)
    alt, q_alt = connected(xp.asarray(lv.labels).astype(np.int64))
    if q_alt > q:
        labels, q = alt, q_alt
    for _ in range((iterations or 1000) - 1):
        comm, lv = _one_pass(xp, (r0, c0, w0, k0, n), two_m, gamma, threshold, max_levels, rng,
                             labels)
        comm, q_new = connected(comm)
        levels += lv
        if q_new <= q:                      # no better: keep the previous partition
            break
        gained = q_new - q
        labels, q = comm, q_new
        if gained < threshold:
            break
    labels = labels.astype(np.int32)
    q = modularity(G, labels, resolution=gamma, weighted=weighted, backend=side)
    return LouvainResult(finish(labels, on_dev, to), q, levels)


def _one_pass(xp, graph, two_m, gamma, threshold, max_levels, rng, start):
    """One run of the Leiden iterations from the partition ``start`` of the original
    vertices (None: singletons): ``(communities of the original vertices, levels)``."""
    r, c, w, k, size = graph
    levels = 0
    stack = []                             # (graph of a level, its vertices' next-level ids)
    while True:
        comm, moved = _local_moving(xp, r, c, w, size, k, two_m, gamma, threshold, rng,
                                       comm=start)
        levels += 1
        ids, comm = xp.unique(comm, return_inverse=True)
        comm = comm.reshape(-1)
        # stop when every community is one vertex of the level (Traag et al.'s rule), or when
        # nothing moved: the levels above would only merge what refinement left apart inside
        # communities that stay the same
        if (int(ids.shape[0]) == size or (levels > 1 and not moved)
                or (max_levels is not None and levels >= max_levels)):
            break
        ref = _refine(xp, r, c, w, k, size, comm, two_m, gamma)
        sub_ids, sub = xp.unique(ref, return_inverse=True)
        sub = sub.reshape(-1)
        new = int(sub_ids.shape[0])
        if new == size:                    # refinement merged nothing: aggregation would too
            break
        start = xp.zeros(new, dtype=np.int64)
        start[sub] = comm                  # every subcommunity lies inside one community
        stack.append(((r, c, w, k, size), sub))
        key, w = _group_sum(xp, sub[r] * new + sub[c], w)
        r, c = key // new, key % new
        k = bincount(xp, sub, weights=k, minlength=new)
        size = new
    # from the last level down, project the communities onto the level below and let its
    # vertices (connected subcommunities) move again: a subcommunity the coarse level could
    # only move with the rest of its community may fit better elsewhere
    while stack:
        (r, c, w, k, size), sub = stack.pop()
        comm, _ = _local_moving(xp, r, c, w, size, k, two_m, gamma, threshold, rng,
                                   comm=comm[sub])
    return comm, levels
