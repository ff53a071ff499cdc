"""SciPy's breadth-first order with array operations (NumPy or CuPy), for the device path of
:func:`hpgraph.csgraph.breadth_first_order`."""

from __future__ import annotations

import numpy as np

from ..algorithms._vec import scatter_min
from ..formats._base import expand_indptr
from .._arrayops import bincount

__all__ = ["NULL_IDX", "bfs_order", "with_transpose"]

#: SciPy's marker for "no predecessor" / "not reached"
NULL_IDX = -9999
_NONE = np.iinfo(np.uint64).max       # uint64: a dtype the device's scatter-min does atomically


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
    level with array operations (NumPy or CuPy): a level's vertices in the order SciPy's queue
    meets them -- by the position of their first edge from the previous level, scanned in that
    level's order and each row in stored order; that edge's row is the predecessor."""
    visited = xp.zeros(n, dtype=bool)
    visited[start] = True
    pred = xp.full(n, NULL_IDX, dtype=np.int32)
    first_edge = xp.full(n, _NONE, dtype=np.uint64)
    level = xp.asarray([start], dtype=np.int64)
    levels = [level]
    while True:
        first = indptr[level]
        length = indptr[level + 1] - first
        ends = xp.cumsum(length)
        total = int(ends[-1])
        if total == 0:
            break
        pos = xp.arange(total, dtype=np.int64)
        owner = xp.searchsorted(ends, pos, side="right")
        cand = indices[first[owner] + pos - (ends[owner] - length[owner])]
        keep = ~visited[cand]
        cand, pos, owner = cand[keep], pos[keep], owner[keep]
        if cand.shape[0] == 0:
            break
        pos = pos.astype(np.uint64)
        scatter_min(xp, first_edge, cand, pos)            # each vertex's first edge
        win = first_edge[cand] == pos
        nxt, owner = cand[win], owner[win]                # in scan order: the queue's order
        first_edge[nxt] = _NONE
        visited[nxt] = True
        pred[nxt] = level[owner].astype(np.int32)
        levels.append(nxt)
        level = nxt
    return xp.concatenate(levels).astype(np.int32), pred
