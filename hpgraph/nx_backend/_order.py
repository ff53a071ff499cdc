"""networkx's exact BFS order, rebuilt on the host from hpgraph's BFS depths.

networkx's breadth-first functions (``generic_bfs_edges``, ``bfs_layers``,
``_single_shortest_path_length``) visit level ``d`` in order and, for each vertex, its
neighbours in the order of ``G._adj[v]``; a vertex is discovered by the first level-``d``
vertex (in that order) that lists it.  So, given the depths (computed by hpgraph's
direction-optimized BFS on the engine), the order within level ``d + 1`` is fixed by the
order of level ``d``:

1. keep the "tree candidate" entries ``u -> v`` with ``depth[v] == depth[u] + 1``, in
   networkx's neighbour order (one vectorised pass over all entries);
2. per level, expand the level's candidate lists in level order and keep the first occurrence
   of every target (``np.unique(..., return_index=True)``): that is the next level, in order,
   with each vertex's networkx parent.

Work is O(m) vectorised plus a few NumPy calls per level.  On the GPU the levels come from
the queue-order BFS of :mod:`hpgraph.algorithms._bfs_fifo` on a device copy of the adjacency
(the depths are then not needed): the same order, without the host's pass over every entry.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bfs_depths", "bfs_levels", "max_level", "ordered_levels"]


def max_level(limit) -> float:
    """Deepest level networkx reaches with ``depth_limit`` / ``cutoff`` = ``limit``.

    networkx expands level ``l`` while ``l < limit``, so levels ``l`` with ``l - 1 < limit``
    are produced (``limit=2.5`` reaches level 3; ``limit=0`` only the sources).
    """
    if limit is None:
        return math.inf
    limit = float(limit)
    if math.isinf(limit):
        return math.inf if limit > 0 else 0
    if math.isnan(limit):
        return 0
    return max(0, math.ceil(limit + 1) - 1)


def bfs_depths(hg, sources, *, reverse=False, backend=None):
    """Hop depths from ``sources`` (vertex ids) on the engine; -1 where unreachable (numpy)."""
    from .. import backend as _backend
    from ..algorithms._bfs import bfs

    G = hg.hp_reverse() if reverse else hg.hp()
    depth = bfs(G, list(sources) if len(sources) != 1 else int(sources[0]), backend=backend).depth
    return np.asarray(_backend.to_host(depth))


def _expand(indptr, indices, rows):
    """Entries of CSR rows ``rows`` in order: ``(cols, owner_row)``."""
    starts = indptr[rows]
    lens = indptr[rows + 1] - starts
    total = int(lens.sum())
    if total == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, e
    offs = np.cumsum(lens) - lens
    # position of every entry: start of its row + offset within the row
    owner_slot = np.repeat(np.arange(rows.shape[0]), lens)
    pos = np.arange(total, dtype=np.int64) - np.repeat(offs, lens) + np.repeat(starts, lens)
    return indices[pos].astype(np.int64, copy=False), rows[owner_slot]


def bfs_levels(hg, sources, *, reverse=False, limit=None, depth=None, backend=None):
    """networkx's BFS levels and parents.

    Parameters
    ----------
    hg : HpGraph
    sources : sequence of int
        Vertex ids of level 0, in networkx's order (duplicates removed by the caller).
    reverse : bool
        Follow predecessors (directed graphs).
    limit : number, optional
        networkx's ``depth_limit`` / ``cutoff`` (see :func:`max_level`).
    depth : array or callable, optional
        Hop depths already computed, or a function computing them (else one engine BFS);
        the GPU path needs none.

    Returns
    -------
    list of (vertices, parents)
        One pair of int64 arrays per level; the parents of level 0 are the sources themselves.
    """
    src = np.asarray(list(sources), dtype=np.int64)
    levels = [(src, src)]
    deepest = max_level(limit)
    if src.size == 0 or deepest < 1:
        return levels
    if _on_gpu(backend):
        return _device_levels(hg, src, reverse, deepest)
    if callable(depth):             # computed only where the host path needs it
        depth = depth()
    if depth is None:
        depth = bfs_depths(hg, src, reverse=reverse, backend=backend)
    indptr, indices = hg.nx_adjacency(reverse)
    if reverse and hg.is_directed():
        rows = np.repeat(np.arange(hg.n, dtype=np.int64), np.diff(indptr))
    else:
        rows = hg.rows()
    return ordered_levels(indptr, indices, depth, src, deepest, rows=rows)


def _on_gpu(backend) -> bool:
    from .. import backend as _backend

    try:
        return _backend.resolve(backend) == "gpu"
    except Exception:  # noqa: BLE001 -- no usable GPU for "auto": the host path
        return False


def _device_levels(hg, src, reverse, deepest):
    """:func:`bfs_levels` on the GPU: the queue-order BFS over the networkx-ordered adjacency
    (copied to the device once per graph and direction), levels brought back in one copy."""
    import cupy as cp

    from ..algorithms._bfs_fifo import fifo_levels

    def upload():
        indptr, indices = hg.nx_adjacency(reverse)
        return cp.asarray(indptr, dtype=cp.int64), cp.asarray(indices, dtype=cp.int64)

    indptr, indices = hg.cached(("nx_adjacency_device", bool(reverse)), upload)
    levels = fifo_levels(cp, indptr, indices, cp.asarray(src), hg.n, deepest)
    sizes = [int(v.shape[0]) for v, _ in levels]
    flat = cp.asnumpy(cp.concatenate([x for pair in levels for x in pair]))
    out, at = [], 0
    for k in sizes:
        out.append((flat[at:at + k], flat[at + k:at + 2 * k]))
        at += 2 * k
    out[0] = (src, src)
    return out


def ordered_levels(indptr, indices, depth, sources, deepest=math.inf, *, rows=None):
    """BFS levels in FIFO-queue order over a CSR adjacency (host NumPy), given the depths.

    A FIFO BFS that scans the adjacency lists in stored order discovers level ``d + 1`` in
    the order of level ``d``'s lists (first occurrence wins).  This rebuilds that order
    level by level from the depths (computed on the engine).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        Adjacency lists in the order the reference BFS scans them.
    depth : numpy.ndarray
        Hop depth of every vertex from ``sources`` (-1 unreachable).
    sources : numpy.ndarray of int64
        Level 0 in order.
    deepest : number
        Deepest level to produce.
    rows : numpy.ndarray, optional
        Row of every entry (computed when not given).

    Returns
    -------
    list of (vertices, parents)
        int64 arrays per level; level 0 is ``(sources, sources)``.
    """
    sources = np.asarray(sources, dtype=np.int64)
    levels = [(sources, sources)]
    if sources.size == 0 or deepest < 1:
        return levels
    n = indptr.shape[0] - 1
    if rows is None:
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    du = depth[rows]
    keep = (du >= 0) & (depth[indices] == du + 1)
    if not math.isinf(deepest):
        keep &= du < deepest
    t_rows = rows[keep]
    t_ind = indices[keep]
    t_ptr = np.zeros(n + 1, dtype=np.int64)
    if t_rows.shape[0]:
        np.cumsum(np.bincount(t_rows, minlength=n), out=t_ptr[1:])
    frontier = sources
    while True:
        cols, owner = _expand(t_ptr, t_ind, frontier)
        if cols.shape[0] == 0:
            break
        _, first = np.unique(cols, return_index=True)
        first.sort()
        frontier = cols[first]
        levels.append((frontier, owner[first]))
    return levels
