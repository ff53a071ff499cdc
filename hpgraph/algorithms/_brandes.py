"""Brandes' dependency accumulation on the shortest-path DAG, for weighted betweenness and edge
betweenness (internal; ``networkx``'s ``_single_source_dijkstra_path_basic`` /
``_accumulate_basic`` / ``_accumulate_edges``).

For a batch of sources, distances come first (``n x b``): Dijkstra from SciPy csgraph on the
CPU, hpgraph's SSSP per source on the GPU (weighted), or the batched BFS of :mod:`._batched`
(unweighted).  Edge ``u -> v`` of weight ``w`` is on a shortest path from source ``j`` exactly
when ``D[u, j] + w == D[v, j]`` -- the same float64 sum and comparison networkx's Dijkstra
makes, and the fixed point of any exact relaxation, so the DAGs agree.  The DAG edges of the
whole batch live in one edge list over *nodes* ``j * n + v``; then

* **forward** -- Kahn's order: a node whose in-edges are all counted joins the next frontier;
  ``sigma`` (path counts) flows along the frontier's out-edges, one segmented sum per step;
* **backward** -- the frontiers in reverse: every in-edge ``v -> w`` of a frontier node ``w``
  carries ``c = sigma[v] * (1 + delta[w]) / sigma[w]`` to ``delta[v]`` (and to the edge's
  betweenness), one segmented sum per step.

Each node's successors lie on later frontiers, so its ``delta`` is final when its frontier is
reached.  No Python loop over vertices or edges.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue
from . import _scipy_cpu
from ._batched import BLOCK, bfs_block
from ._vec import csr_from, csr_of_pairs, expand_rows, min_edges, stored_edges
from .._arrayops import bincount

__all__ = ["dag_brandes", "positive_edges"]


def positive_edges(G, who):
    """``(r, c, w)``: the distinct non-loop pairs of ``G`` with their smallest weight (float64),
    sorted by ``(r, c)``; every stored weight, self-loops included, must be positive (> 0)."""
    _, _, stored = stored_edges(G)
    if G.weighted and stored.shape[0] and not bool((stored > 0).all()):
        raise InvalidValue(
            f"{who} with weights needs positive edge weights and G has a zero or negative one: "
            "with zero weights the number of shortest paths is not defined (networkx's result "
            "then depends on its heap order); add a small positive amount to those weights, or "
            "pass weight=None for hop counts")
    return min_edges(G, loops=False)


def _distance_operator(G, edges, weighted, side):
    """What :func:`_distances` searches: None (unweighted: the batched BFS on ``G``), a SciPy
    CSR matrix of ``edges`` (CPU), or an hpgraph Graph of them (GPU); built once per call."""
    if not weighted:
        return None
    r, c, w = edges
    M = csr_from(G.xp, r, c, w, G.num_vertices)
    if side == "cpu":
        return M
    from ..graph import Graph

    return Graph(M, directed=True)


def _distances(G, op, sources, side):
    """``n x b`` float64 distances from ``sources`` (inf: unreachable)."""
    xp = G.xp
    if op is None and side == "cpu" and _scipy_cpu.usable(G):
        # SciPy's BFS per source: a level of the dense batched BFS below costs a product with
        # all n x b entries, which on a road graph's hundreds of levels is most of the time
        cols = [_scipy_cpu.bfs_scipy(G, np.asarray([s]), np.int64)[0] for s in sources]
        D = np.stack(cols, axis=1).astype(np.float64)
        D[D < 0] = np.inf
        return D
    if op is None:
        D = bfs_block(G, sources).astype(np.float64)
        D[D < 0] = np.inf
        return D
    if side == "cpu":
        from scipy.sparse.csgraph import dijkstra

        return np.ascontiguousarray(dijkstra(op, directed=True, indices=sources).T)
    from ._sssp import sssp

    cols = [sssp(op, int(s), predecessors=False, backend="gpu").distance for s in sources]
    return xp.stack(cols, axis=1).astype(np.float64)


def dag_brandes(G, sources, *, weighted, side, endpoints=False, edge_values=False):
    """Dependencies of ``sources`` (host int64 array) summed over the sources.

    Returns
    -------
    (bc, edges, eb)
        ``bc``: per-vertex sums (networkx's ``_accumulate_basic`` or ``_accumulate_endpoints``
        before rescaling); ``edges = (r, c, w)`` the distinct non-loop pairs; ``eb``: per pair
        the sum of the dependencies carried along ``r -> c`` (None unless ``edge_values``).
    """
    xp = G.xp
    n = G.num_vertices
    edges = positive_edges(G, "betweenness") if weighted else min_edges(G, loops=False)
    r, c, w = edges
    if not weighted:
        w = xp.ones(r.shape[0], dtype=np.float64)
    m = int(r.shape[0])
    bc = xp.zeros(n, dtype=np.float64)
    eb = xp.zeros(m, dtype=np.float64) if edge_values else None
    width = max(1, min(BLOCK // max(n, 1), BLOCK // max(m, 1)))
    op = _distance_operator(G, (r, c, w), weighted, side)
    for i in range(0, sources.shape[0], width):
        batch = sources[i:i + width]
        D = _distances(G, op, batch, side)
        bc, eb = _accumulate(xp, r, c, w, D, batch, n, bc, eb, endpoints)
    return bc, (r, c, w), eb


def _add_at(xp, out, index, values=None, negate=False):
    """``out[index] += values`` (1 where None; ``-=`` with ``negate``), in place, repeats
    summed: ``np.add.at`` for a small frontier on the host (it costs the frontier, where a
    ``bincount`` of length ``n * b`` costs every node: most of the time on a road graph's
    hundreds of levels), else one ``bincount``."""
    if xp is np and index.shape[0] * 8 < out.shape[0]:
        (np.subtract if negate else np.add).at(out, index, 1 if values is None else values)
    elif negate:
        out -= bincount(xp, index, weights=values, minlength=out.shape[0])
    else:
        out += bincount(xp, index, weights=values, minlength=out.shape[0])


def _accumulate(xp, r, c, w, D, batch, n, bc, eb, endpoints):
    b = int(batch.shape[0])
    N = n * b
    du = D[r]
    on = xp.isfinite(du) & (du + w[:, None] == D[c])
    eid, j = xp.nonzero(on)
    src = j * n + r[eid]
    dst = j * n + c[eid]
    roots = xp.asarray(batch) + xp.arange(b, dtype=np.int64) * n
    sigma = xp.zeros(N, dtype=np.float64)
    sigma[roots] = 1.0
    out_ptr, out_order = csr_of_pairs(xp, src, xp.arange(src.shape[0], dtype=np.int64), N)
    in_ptr, in_order = csr_of_pairs(xp, dst, xp.arange(dst.shape[0], dtype=np.int64), N)
    indeg = bincount(xp, dst, minlength=N) if dst.shape[0] else xp.zeros(N, dtype=np.int64)
    fronts = []
    front = roots
    while front.shape[0]:                    # forward, in Kahn's order
        fronts.append(front)
        e = out_order[expand_rows(xp, out_ptr, front)]
        if e.shape[0] == 0:
            break
        t = dst[e]
        _add_at(xp, sigma, t, sigma[src[e]])
        _add_at(xp, indeg, t, negate=True)
        t = xp.unique(t)
        front = t[indeg[t] == 0]
    delta = xp.zeros(N, dtype=np.float64)
    for front in reversed(fronts[1:]):       # backward, last frontier first
        e = in_order[expand_rows(xp, in_ptr, front)]
        v, t = src[e], dst[e]
        cval = sigma[v] * ((1.0 + delta[t]) / sigma[t])
        _add_at(xp, delta, v, cval)
        if eb is not None:
            _add_at(xp, eb, eid[e], cval)
    delta = delta.reshape(b, n)
    reached = xp.isfinite(D).T                  # b x n
    cols = xp.arange(b)
    src_v = xp.asarray(batch)
    reached[cols, src_v] = False
    if endpoints:
        bc = bc + xp.where(reached, delta + 1.0, 0.0).sum(axis=0)
        counts = reached.sum(axis=1).astype(np.float64)
        return bc + bincount(xp, src_v, weights=counts, minlength=n), eb
    delta[cols, src_v] = 0.0
    return bc + delta.sum(axis=0), eb
