"""networkx's ``betweenness_centrality_subset`` and ``edge_betweenness_centrality_subset``.

Brandes' accumulation restricted to paths from ``sources`` to ``targets``, level-synchronous
per source: the distances come from hpgraph's BFS (unweighted) or SSSP (weighted), the
shortest-path DAG is the set of adjacency entries ``u -> v`` with ``d[u] + w == d[v]``, path
counts are summed forward one distance level at a time and dependencies backward the same
way, each level one ``numpy.bincount`` over its DAG edges.  Sums are grouped by level rather
than in networkx's stack order, so values agree to rounding.
"""

from __future__ import annotations

import numpy as np

from ._registry import _depth, _weight_is_name, implements


def _check(b):
    return _weight_is_name(b)


def _edge_check(b):
    G = b.arguments.get("G")
    if G is not None and G.is_multigraph():
        return "multigraph edge keys are not kept by hpgraph"
    return _weight_is_name(b)


def _dag(hg, s, weight):
    """``(level, order_levels, u, v, e)``: the distance level of each vertex (-1 unreached),
    the number of levels and the DAG entries ``u -> v`` (entry ids ``e``)."""
    rows, cols = hg.rows(), hg.indices.astype(np.int64)
    if weight is None:
        d = _depth(hg, s).astype(np.int64)
        ok = (d[rows] >= 0) & (d[cols] == d[rows] + 1)
        level = d
        nlev = int(d.max()) + 1
    else:
        from ._paths import _sssp

        dist, _ = _sssp(hg, s, weight)
        w = hg.edge_values[weight].astype(np.float64)
        fin = np.isfinite(dist)
        ok = fin[rows] & (rows != cols) & (dist[rows] + w == dist[cols])
        uniq, inv = np.unique(dist[fin], return_inverse=True)
        level = np.full(hg.n, -1, dtype=np.int64)
        level[fin] = inv
        nlev = int(uniq.shape[0])
    e = np.flatnonzero(ok)
    u, v = rows[e], cols[e]
    order = np.argsort(level[v], kind="stable")
    return level, nlev, u[order], v[order], e[order]


def _accumulate(hg, s, weight, is_target, edges):
    """Node dependencies (and, with ``edges``, per-entry edge credits) of source ``s``."""
    n = hg.n
    level, nlev, u, v, e = _dag(hg, s, weight)
    lv = level[v]
    bounds = np.searchsorted(lv, np.arange(nlev + 1))
    sigma = np.zeros(n)
    sigma[s] = 1.0
    for L in range(1, nlev):
        a, b = bounds[L], bounds[L + 1]
        sigma += np.bincount(v[a:b], weights=sigma[u[a:b]], minlength=n)
    delta = np.zeros(n)
    credit = np.zeros(hg.indices.shape[0]) if edges else None
    npred = np.bincount(v, minlength=n) if edges else None
    for L in range(nlev - 1, 0, -1):
        a, b = bounds[L], bounds[L + 1]
        uu, vv = u[a:b], v[a:b]
        if edges:
            c = np.where(is_target[vv], sigma[uu] / sigma[vv] * (1.0 + delta[vv]),
                         delta[vv] / np.maximum(npred[vv], 1))
            credit[e[a:b]] += c
        else:
            coeff = (delta[vv] + is_target[vv]) / sigma[vv]
            c = sigma[uu] * coeff
        delta += np.bincount(uu, weights=c, minlength=n)
    reached = level >= 0
    reached[s] = False
    return np.where(reached, delta, 0.0), credit


def _scale(n, normalized, directed, endpoints):
    N = n if endpoints else n - 1
    if N < 2:
        return 1.0
    if normalized:
        return 1 / (N * (N - 1))
    return N / (N * (1 if directed else 2))


def _targets(hg, targets, s=None):
    t = np.zeros(hg.n, dtype=bool)
    ids = [hg.index[x] for x in targets if x in hg]
    t[ids] = True
    if s is not None:
        t[s] = False
    return t


@implements("betweenness_centrality_subset", needs=("bfs", "sssp"), check=_check)
def betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
    """Betweenness counting only the shortest paths from ``sources`` to ``targets``."""
    if weight is not None and G.indices.shape[0] and G.min_weight(weight) <= 0:
        raise NotImplementedError("zero or negative weights")
    targets = list(targets)
    bc = np.zeros(G.n)
    for x in sources:
        s = G.index[x]
        dep, _ = _accumulate(G, s, weight, _targets(G, targets, s), edges=False)
        bc += dep
    bc *= _scale(G.n, normalized, G.is_directed(), endpoints=False)
    return dict(zip(G.nodes, bc.tolist()))


@implements("edge_betweenness_centrality_subset", needs=("bfs", "sssp"), check=_edge_check)
def edge_betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
    """Edge betweenness counting only the shortest paths from ``sources`` to ``targets``
    (keys in ``G.edges()`` order)."""
    from ._edge_traversal import _edge_ids
    from ._matrix import _edge_entries

    if weight is not None and G.indices.shape[0] and G.min_weight(weight) <= 0:
        raise NotImplementedError("zero or negative weights")
    is_target = _targets(G, list(targets))
    credit = np.zeros(G.indices.shape[0])
    for x in sources:
        _, c = _accumulate(G, G.index[x], weight, is_target, edges=True)
        credit += c
    ids = _edge_ids(G)
    per_edge = np.bincount(ids, weights=credit, minlength=G.indices.shape[0])
    keep, rows, cols = _edge_entries(G)
    vals = per_edge[ids[keep]] * _scale(G.n, normalized, G.is_directed(), endpoints=True)
    return dict(zip(zip(G.labels_of(rows), G.labels_of(cols)), vals.tolist()))
