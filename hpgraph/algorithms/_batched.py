"""Batched BFS and Bellman-Ford from many sources at once (internal).

A batch of ``b`` sources is an ``n x b`` dense block; one level of BFS for the whole batch is
one sparse-dense product ``M @ F`` (SciPy or cupyx), one Bellman-Ford round is a gather of the
block's rows along the edges plus a scatter-min.  Batches are sized so a block holds about
``BLOCK`` entries.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import NegativeCycleError
from ._vec import csr_from, min_edges, scatter_min, stored_edges

BLOCK = 1 << 24


def batches(sources, n, width=None):
    """Split ``sources`` (host int64 array) into chunks of at most ``width`` (default: what
    fits in a block of ``BLOCK`` entries)."""
    b = int(width or max(1, BLOCK // max(n, 1)))
    return [sources[i:i + b] for i in range(0, sources.shape[0], b)]


def bfs_pattern(G, reverse):
    """float32 pattern of the matrix one BFS level multiplies by (cached): ``A^T`` to walk
    out-edges, ``A`` to walk in-edges (``reverse``: distances *to* the sources)."""
    from ._triangles import _cached

    def make():
        r, c, _ = stored_edges(G)
        if not reverse:
            r, c = c, r
        M = csr_from(G.xp, r, c, G.xp.ones(r.shape[0], dtype=np.float32), G.num_vertices)
        M.data[:] = 1.0
        return M

    return _cached(G, f"hpg.bfs_pattern[{bool(reverse)}]", make)


def bfs_block(G, sources, *, reverse=False):
    """Hop distances from each of ``sources`` (columns) to every vertex (rows): an ``n x b``
    int32 block, -1 where unreachable.  ``reverse`` walks the edges backwards."""
    xp = G.xp
    n = G.num_vertices
    b = int(sources.shape[0])
    M = bfs_pattern(G, reverse)
    cols = xp.arange(b)
    src = xp.asarray(sources)
    D = xp.full((n, b), -1, dtype=np.int32)
    D[src, cols] = 0
    F = xp.zeros((n, b), dtype=np.float32)
    F[src, cols] = 1.0
    level = 0
    while True:
        level += 1
        new = (M @ F > 0) & (D < 0)
        if not bool(new.any()):
            return D
        D[new] = level
        F = new.astype(np.float32)


def bellman_ford_block(G, sources):
    """Weighted distances from each of ``sources`` (columns) to every vertex: ``n x b``
    float64, ``inf`` where unreachable.  Negative weights are allowed.

    Raises
    ------
    NegativeCycleError
        A negative cycle is reachable from a source.
    """
    xp = G.xp
    n = G.num_vertices
    b = int(sources.shape[0])
    r, c, w = min_edges(G)
    D = xp.full((n, b), np.inf)
    D[xp.asarray(sources), xp.arange(b)] = 0.0
    for _ in range(n):
        new = D.copy()
        scatter_min(xp, new, c, D[r] + w[:, None])
        if bool((new == D).all()):
            return D
        D = new
    raise NegativeCycleError("a negative cycle is reachable from a source: shortest path "
                             "lengths are undefined; remove the cycle or use non-negative weights")
