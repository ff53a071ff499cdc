"""The levels of a FIFO breadth-first search, in the queue's order, with array operations
(NumPy or CuPy): the order SciPy's ``breadth_first_order`` and networkx's BFS functions give,
on the host or on the device."""

from __future__ import annotations

import math

import numpy as np

from ._vec import scatter_min

__all__ = ["fifo_levels"]

_NONE = np.iinfo(np.uint64).max       # uint64: a dtype the device's scatter-min does atomically


def fifo_levels(xp, indptr, indices, sources, n, deepest=math.inf):
    """Levels of the BFS a FIFO queue does from ``sources``, scanning each row in stored order.

    A level's vertices come in the order the queue meets them: by the position of their first
    edge from the previous level, scanned in that level's order; that edge's row is the
    parent.  One pass per level over the level's rows (a scatter-min of edge positions).

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy`` (the arrays' module).
    indptr, indices : array
        The adjacency (CSR), int64.
    sources : array of int64
        Level 0 in order, without repeats.
    n : int
        Number of vertices.
    deepest : number
        Deepest level to produce (``inf``: all).

    Returns
    -------
    list of (vertices, parents)
        int64 arrays of ``xp`` per level; the parents of level 0 are the sources themselves.
    """
    level = xp.asarray(sources, dtype=np.int64)
    levels = [(level, level)]
    if level.shape[0] == 0:
        return levels
    visited = xp.zeros(n, dtype=bool)
    visited[level] = True
    first_edge = xp.full(n, _NONE, dtype=np.uint64)
    depth = 0
    while depth < deepest:
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
        levels.append((nxt, level[owner]))
        level = nxt
        depth += 1
    return levels
