"""Algorithms on a :class:`~hpgraph.distributed.DistributedGraph`, as BSP supersteps.

Every rank holds the whole current vector (length n) and its partition's in-edge rows.  A
superstep is one :func:`hpgraph.mxv` over the partition (a semiring SpMV computing the rows
of its vertex range from the global vector), a local update of those rows, and an allgather
of the updated slices (a dense slice, or a bitmap for BFS frontiers) plus, where needed, an
allreduce of a counter.  On the GPUs, BFS levels and PageRank iterations run the device steps
of :mod:`._gpu_steps` instead (frontier-only level kernels; PageRank's fused update).  Every
rank thus takes the same decisions (stop, next level) without a coordinator.  Results are
gathered to the client as NumPy (``to="cupy"``: CuPy).  On a graph of one partition,
:func:`pagerank` and :func:`bfs` run the single-GPU functions on it instead (no collective;
same results), so one worker costs what one GPU does.

Each result equals the single-process function's: :func:`pagerank` runs
:func:`hpgraph.pagerank`'s default variant ("power": networkx's iteration, stopping at an L1
change below ``tol``); :func:`bfs` returns :func:`hpgraph.bfs`'s depths (direction-optimising
on undirected graphs, pull steps on directed ones; no parents); :func:`sssp` the distances of
:func:`hpgraph.sssp` (synchronous Bellman-Ford: no near-far order, no predecessors);
:func:`connected_components` the labels of :func:`hpgraph.connected_components` (min-label
propagation with pointer jumping).
"""

from __future__ import annotations

import numpy as np

from .._config import config
from ..exceptions import ConvergenceError, IndexOutOfBound, InvalidValue, NegativeCycleError
from ..backend import to_host as backend_host
from ._collective import allgather_bitmap
from ._job import run_job
from .._arrayops import bincount

__all__ = ["pagerank", "bfs", "sssp", "connected_components"]


def _mxv(part, x, semiring, **kw):
    from ..spmv import mxv

    return mxv(part.matrix, x, semiring, backend=part.side, **kw)


def _finish(values, to):
    """Concatenate the ranks' slices on the host, or on the device for ``to="cupy"``."""
    out = np.concatenate(values) if values else np.empty(0)
    if to == "cupy":
        import cupy

        return cupy.asarray(out)
    return out


def _check_to(to):
    if to not in (None, "numpy", "cupy"):
        raise InvalidValue(f"to must be None, 'numpy' or 'cupy', got {to!r}")


def _sources(dg, source, name="source"):
    vals = np.atleast_1d(np.asarray(source))
    if vals.ndim != 1 or vals.size == 0 or vals.dtype.kind not in "iu":
        raise InvalidValue(f"{name} must be a vertex id or a non-empty list of them, got {source!r}")
    bad = vals[(vals < 0) | (vals >= dg.num_vertices)]
    if bad.size:
        raise IndexOutOfBound(f"{name} {int(bad[0])} is out of range for a graph of "
                              f"{dg.num_vertices} vertices")
    return [int(v) for v in vals]


# ---------------------------------------------------------------------------------------------
# PageRank


def _pagerank_kernel(part, coll, damping, tol, max_iter, weighted, dtype):
    xp, n, lo, hi = part.xp, part.n, part.lo, part.hi
    dtype = np.dtype(dtype)
    A = part.matrix
    use_w = bool(weighted and part.weighted)
    key = ("pagerank", use_w, dtype.name)
    if key not in part.cache:
        # out-weight of every vertex: its column sums over the in-edge rows of all partitions
        # (a bincount and an allreduce of n numbers, kept for the partition's next jobs)
        if use_w:
            local = bincount(xp, A.indices, weights=A.values.astype(np.float64), minlength=n)
        else:
            local = bincount(xp, A.indices, minlength=n).astype(np.float64)
        W = coll.allreduce(local, "sum").astype(dtype)
        part.cache[key] = xp.where(W != 0, 1.0 / xp.where(W != 0, W, 1), 0).astype(dtype)[lo:hi].copy()
    S = part.cache[key]
    dang = S == 0
    sr = f"{'plus_times' if use_w else 'plus_second'}[{dtype.name}]"
    pv = dtype.type(1.0 / n)
    # each rank keeps only its slice of x; a superstep allgathers x * S (what the SpMV reads)
    # and allreduces one pair: the L1 change and the next dangling mass
    x = xp.full(hi - lo, 1.0 / n, dtype=dtype)
    dsum = float(coll.allreduce(x[dang].sum(dtype=np.float64), "sum"))
    if part.side == "gpu":
        from ._gpu_steps import pagerank_loop

        x, k = pagerank_loop(part, coll, S, dsum, damping, tol, max_iter, sr, dtype)
        if x is not None:
            return x, k, 3 * n * dtype.itemsize
    for k in range(max_iter if part.side != "gpu" else 0):   # the GPU loop ran above
        y = _mxv(part, coll.allgather(x * S, part.counts), sr)
        xn = (damping * (y + dsum * pv) + (1 - damping) * pv).astype(dtype, copy=False)
        pair = xp.stack([xp.abs(xn.astype(np.float64) - x).sum(),
                         xn[dang].sum(dtype=np.float64)])
        err, dsum = (float(v) for v in backend_host(coll.allreduce(pair, "sum")))
        x = xn
        if err < tol:
            return xn, k + 1, 3 * n * dtype.itemsize
    raise ConvergenceError(f"pagerank did not converge (L1 change < tol = {tol:g}) within "
                           f"max_iter={max_iter} iterations; raise max_iter or tol")


def _pagerank_single(G, damping, tol, max_iter, weighted, dtype):
    """One partition: :func:`hpgraph.pagerank` itself (the loop above computes the same)."""
    from ..algorithms import pagerank as _pagerank

    x, info = _pagerank(G, damping, tol, max_iter, weighted=weighted, dtype=dtype,
                        return_info=True)
    return x, info.iterations, 4 * G.num_vertices * np.dtype(dtype).itemsize


def pagerank(dg, damping=0.85, tol=1e-6, max_iter=100, weighted=False, *, dtype=np.float64,
             return_info=False, to=None, timeout=None):
    """PageRank of every vertex, as :func:`hpgraph.pagerank` (``variant="power"``) computes it.

    Parameters
    ----------
    dg : DistributedGraph
    damping, tol, max_iter, weighted, dtype
        :func:`hpgraph.pagerank`'s meanings (uniform teleport and dangling distribution; stop
        at an L1 change below ``tol``).
    return_info : bool, default False
        Also return a :class:`~hpgraph.distributed.JobInfo`.
    to : {None, "numpy", "cupy"}
        Where the gathered result goes (default NumPy).
    timeout : float, optional
        Seconds before the job is abandoned (:class:`~hpgraph.exceptions.ClusterError`).

    Returns
    -------
    ndarray of ``dtype``, length n (and a JobInfo with ``return_info=True``)

    Raises
    ------
    ConvergenceError, InvalidValue, WorkerLost, ClusterError
    """
    _check_to(to)
    for name, v, lo, hi in (("damping", damping, 0, 1), ("tol", tol, 0, None)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) or not np.isfinite(v) \
                or v < lo or (hi is not None and v > hi):
            raise InvalidValue(f"{name} must be a finite number in [{lo}, {hi or 'inf'}), got {v!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise InvalidValue(f"max_iter must be a non-negative int, got {max_iter!r}")
    if np.dtype(dtype) not in (np.float32, np.float64):
        raise InvalidValue(f"dtype must be float32 or float64, got {dtype!r}")
    if weighted and dg.negative_weights:
        raise InvalidValue("pagerank(weighted=True) needs non-negative edge weights; this graph "
                           "has negative ones (use weighted=False to ignore weights)")
    values, info = run_job(dg, _pagerank_kernel, dict(
        damping=float(damping), tol=float(tol), max_iter=int(max_iter), weighted=bool(weighted),
        dtype=np.dtype(dtype).name), timeout=timeout, name="pagerank", single=_pagerank_single)
    out = _finish(values, to)
    return (out, info) if return_info else out


# ---------------------------------------------------------------------------------------------
# BFS


def _push_reached(part, rows, ones):
    """Bool array over all n vertices: the neighbours of local rows ``rows`` (undirected
    partition: row ``v - lo`` lists the neighbours of ``v``); ``ones``: the GPU push's source
    values (length ``hi - lo``, never read by ``any_pair``)."""
    xp, A, n = part.xp, part.matrix, part.n
    if part.side == "gpu":
        from .. import ops
        from ..spmv import gpu as _gpu

        y = xp.zeros(n, dtype=np.int32)
        _gpu.push(A, rows, ones, ops.lookup_semiring("any_pair[int32]"), y)
        return y != 0
    ip = np.asarray(A.indptr)
    starts, ends = ip[rows], ip[rows + 1]
    lens = ends - starts
    reached = np.zeros(n, dtype=np.bool_)
    if lens.sum():
        # positions starts[k] .. ends[k]-1 of every frontier row, one vectorised gather
        offs = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        reached[np.asarray(A.indices)[offs + np.arange(int(lens.sum()))]] = True
    return reached


def _bfs_kernel(part, coll, sources, push_alpha):
    """Level-synchronous BFS: each level is a pull over the partition's in-edge rows (an
    unvisited vertex joins if an in-neighbour is in the frontier; then an allgather of the new
    slices), or, on an undirected graph while the frontier is small (its edges times
    ``push_alpha`` below the unvisited vertices' edges, summed over all ranks), a push
    from the rank's frontier rows to their neighbours followed by an OR of the ranks' reached
    bitmaps.  Every rank holds the whole frontier and visited bitmaps, so all take the same
    direction."""
    from ._collective import allreduce_or_bitmap

    if part.side == "gpu":
        from ._gpu_steps import bfs_levels

        return bfs_levels(part, coll, sources, push_alpha)
    xp, n, lo, hi = part.xp, part.n, part.lo, part.hi
    depth = xp.full(hi - lo, -1, dtype=np.int32)
    frontier = xp.zeros(n, dtype=np.bool_)
    frontier[xp.asarray(sources)] = True
    visited = frontier.copy()
    depth[frontier[lo:hi]] = 0
    deg = xp.diff(part.matrix.indptr).astype(np.int64)
    # the push's source values (any_pair reads none), made once for every push level
    ones = xp.ones(hi - lo, dtype=np.int32) if part.side == "gpu" and not part.directed else None
    level = 0
    while bool(frontier.any()):
        mine = frontier[lo:hi]
        unvisited = ~visited[lo:hi]
        push = False
        if not part.directed:
            work = xp.stack([deg[mine].sum(), deg[unvisited].sum()])
            m_f, m_u = (int(v) for v in backend_host(coll.allreduce(work, "sum")))
            push = m_f * push_alpha < m_u
        if push:
            rows = xp.flatnonzero(mine)
            new = allreduce_or_bitmap(coll, xp, _push_reached(part, rows, ones)) & ~visited
        else:
            y = _mxv(part, frontier, "lor_second[bool]", mask=unvisited, replace=True)
            new = allgather_bitmap(coll, xp, y & unvisited, part.counts)
        level += 1
        depth[new[lo:hi]] = level
        visited |= new
        frontier = new
    return depth, level, 3 * n


def _bfs_single(G, sources, push_alpha):
    """One partition: :func:`hpgraph.bfs`'s depths (direction-optimising); the superstep count
    is the loop's above (levels + 1)."""
    from ..algorithms import bfs as _bfs

    depth = _bfs(G, sources).depth
    return depth, depth.max() + 1, 2 * G.num_vertices   # read after the timed part


def bfs(dg, source, *, push_alpha=None, return_info=False, to=None, timeout=None):
    """Breadth-first depths from ``source`` (a vertex or a list of them, all at depth 0).

    Parameters
    ----------
    dg : DistributedGraph
    source : int or list of int
    push_alpha : float, optional
        Undirected graphs: a level pushes from the frontier while the frontier's edges times
        ``push_alpha`` are fewer than the unvisited vertices' edges, else pulls (0: push
        whenever unvisited edges remain; ``inf``: always pull; Beamer's alpha).  Default:
        ``hp.config["distributed_bfs_push_alpha"]`` (14).  Directed graphs always pull.
        One partition runs :func:`hpgraph.bfs` (its own direction choice).
    return_info, to, timeout
        As in :func:`pagerank`.

    Returns
    -------
    ndarray of int32, length n
        :func:`hpgraph.bfs`'s ``depth``: hops from the nearest source, -1 where unreachable
        (and a JobInfo with ``return_info=True``).

    Raises
    ------
    IndexOutOfBound, InvalidValue, WorkerLost, ClusterError
    """
    _check_to(to)
    srcs = _sources(dg, source)
    if push_alpha is None:
        push_alpha = config["distributed_bfs_push_alpha"]
    if isinstance(push_alpha, bool) or not isinstance(push_alpha, (int, float, np.number)) \
            or not push_alpha >= 0:
        raise InvalidValue(f"push_alpha must be a number >= 0 (inf allowed), got {push_alpha!r}")
    values, info = run_job(dg, _bfs_kernel, dict(sources=srcs, push_alpha=float(push_alpha)),
                           timeout=timeout, name="bfs",
                           single=_bfs_single)
    out = _finish(values, to)
    return (out, info) if return_info else out


# ---------------------------------------------------------------------------------------------
# SSSP


def _sssp_kernel(part, coll, sources, dtype):
    xp, n, lo, hi = part.xp, part.n, part.lo, part.hi
    dtype = np.dtype(dtype)
    dist = xp.full(n, np.inf, dtype=dtype)
    dist[xp.asarray(sources)] = 0
    sr = f"min_plus[{dtype.name}]"
    for step in range(n + 1):
        y = _mxv(part, dist, sr)
        mine = dist[lo:hi]
        new = xp.minimum(mine, y.astype(dtype, copy=False))
        changed = coll.allreduce(np.int64(int((new < mine).sum())), "sum")
        if int(changed) == 0:
            return mine, step, n * dtype.itemsize
        dist = coll.allgather(new, part.counts)
    # still relaxing after n rounds: a path of n edges or more improves a distance
    raise NegativeCycleError("sssp: a negative cycle is reachable from the source")


def sssp(dg, source, *, return_info=False, to=None, timeout=None):
    """Shortest-path distances from ``source`` (synchronous Bellman-Ford over the partitions).

    Negative weights are allowed; a reachable negative cycle raises
    :class:`~hpgraph.exceptions.NegativeCycleError`.

    Returns
    -------
    ndarray, length n
        :func:`hpgraph.sssp`'s ``distance`` (same dtype: float32 for unweighted / float32
        graphs, float64 otherwise), ``inf`` where unreachable (and a JobInfo with
        ``return_info=True``).

    Raises
    ------
    IndexOutOfBound, NegativeCycleError, WorkerLost, ClusterError
    """
    from ..algorithms._sssp import distance_dtype

    _check_to(to)
    srcs = _sources(dg, source)
    dtype = distance_dtype(dg)
    values, info = run_job(dg, _sssp_kernel, dict(sources=srcs, dtype=dtype.name),
                           timeout=timeout, name="sssp")
    out = _finish(values, to).astype(dtype, copy=False)
    return (out, info) if return_info else out


# ---------------------------------------------------------------------------------------------
# connected components


def _cc_kernel(part, coll):
    from ..spmv import vxm

    xp, n, lo, hi = part.xp, part.n, part.lo, part.hi
    labels = xp.arange(n, dtype=np.int64)
    steps = 0
    while True:
        steps += 1
        mine = labels[lo:hi]
        new = xp.minimum(mine, _mxv(part, labels, "min_second[int64]"))
        if part.directed:
            # the other direction of each stored edge u -> v (weak components): v's label
            # reaches u, which may live in any partition
            back = vxm(mine, part.matrix, "min_first[int64]", backend=part.side)
            back = coll.allreduce(back, "min")
            new = xp.minimum(new, back[lo:hi])
        changed = coll.allreduce(np.int64(int((new < mine).sum())), "sum")
        labels = coll.allgather(new, part.counts)
        labels = labels[labels]  # pointer jumping: a label's own label is in the same component
        if int(changed) == 0:
            return labels[lo:hi], steps, (2 if part.directed else 1) * n * 8


def connected_components(dg, *, return_info=False, to=None, timeout=None):
    """Connected components (weak components of a directed graph).

    Returns
    -------
    (int, ndarray of int32)
        The component count and :func:`hpgraph.connected_components`'s labels: components
        numbered 0, 1, ... in the order of their smallest vertex id (scipy's numbering); with
        ``return_info=True``, ``(count, labels, JobInfo)``.

    Raises
    ------
    WorkerLost, ClusterError
    """
    _check_to(to)
    values, info = run_job(dg, _cc_kernel, {}, timeout=timeout, name="connected_components")
    roots = np.concatenate(values) if values else np.empty(0, np.int64)
    uniq, labels = np.unique(roots, return_inverse=True)
    labels = labels.astype(np.int32).reshape(-1)
    if to == "cupy":
        import cupy

        labels = cupy.asarray(labels)
    return (len(uniq), labels, info) if return_info else (len(uniq), labels)
