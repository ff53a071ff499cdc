"""SciPy's breadth-first order with array operations (NumPy or CuPy), for the device path of
:func:`hpgraph.csgraph.breadth_first_order`."""

from __future__ import annotations

import numpy as np

from ..algorithms._bfs_fifo import fifo_levels
from ..formats._base import expand_indptr
from .._arrayops import bincount

__all__ = ["NULL_IDX", "bfs_order", "with_transpose"]

#: SciPy's marker for "no predecessor" / "not reached"
NULL_IDX = -9999


def with_transpose(xp, indptr, indices, n):
    """The adjacency SciPy's undirected BFS scans: row ``i`` of the matrix, then row ``i`` of
    its transpose (columns in row order, as SciPy's transposition leaves them)."""
    nnz = int(indices.shape[0])
    rows = expand_indptr(xp, indptr, nnz, np.int64)
    t_order = xp.lexsort(xp.stack([rows, indices]))     # transpose: by column, then row
    all_rows = xp.concatenate([rows, indices[t_order]])
    adj = xp.concatenate([indices, rows[t_order]])
    order = xp.lexsort(xp.stack([xp.arange(2 * nnz, dtype=np.int64), all_rows]))  # stable
    out_ptr = xp.zeros(n + 1, dtype=np.int64)
    if nnz:
        out_ptr[1:] = xp.cumsum(bincount(xp, all_rows, minlength=n))
    return out_ptr, adj[order]


def bfs_order(xp, indptr, indices, start, n):
    """SciPy's breadth-first order and predecessors (int32, -9999 where SciPy puts it), level by
    level with array operations (NumPy or CuPy): :func:`hpgraph.algorithms._bfs_fifo.fifo_levels`
    (a level's vertices in the order SciPy's queue meets them; the row of a vertex's first
    edge from the previous level is its predecessor)."""
    levels = fifo_levels(xp, indptr, indices, xp.asarray([start], dtype=np.int64), n)
    pred = xp.full(n, NULL_IDX, dtype=np.int32)
    for verts, parents in levels[1:]:
        pred[verts] = parents.astype(np.int32)
    return xp.concatenate([v for v, _ in levels]).astype(np.int32), pred
