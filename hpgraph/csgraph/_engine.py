"""hpgraph-engine implementations of six ``scipy.sparse.csgraph`` routines (see the package
docstring of :mod:`hpgraph.csgraph`)."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from .. import backend as _backend
from ..exceptions import IndexOutOfBound, InvalidGraph
from ._bfs_order import NULL_IDX, bfs_order, with_transpose
from .._arrayops import bincount

__all__ = ["breadth_first_order", "shortest_path", "dijkstra", "bellman_ford", "johnson",
           "connected_components", "NegativeCycleError", "NULL_IDX"]



def _negative_cycle_error():
    from scipy.sparse.csgraph._shortest_path import NegativeCycleError

    return NegativeCycleError


# ---------------------------------------------------------------------------------------------
# input: SciPy's validate_graph, on either side


class _Input:
    """The graph as SciPy's routines see it: CSR arrays (stored order) + where it came from."""

    def __init__(self, indptr, indices, data, n, xp, on_device, raw_data):
        self.indptr = indptr
        self.indices = indices
        self.data = data          # float64, stored order
        self.n = n
        self.xp = xp
        self.on_device = on_device
        self.raw_data = raw_data  # the values SciPy's method='auto' looks at

    def host(self):
        """(indptr, indices, data) as NumPy arrays."""
        h = _backend.to_host
        return (np.asarray(h(self.indptr)), np.asarray(h(self.indices)),
                np.asarray(h(self.data)))


def _is_cupy_sparse(a) -> bool:
    return type(a).__module__.startswith("cupyx.scipy.sparse")


def _parse(csgraph, directed) -> _Input:
    """SciPy's ``validate_graph(csgraph, directed, dense_output=False)`` (CSR, float64)."""
    import scipy.sparse as sp

    on_dev = _is_cupy_sparse(csgraph)
    if on_dev or sp.issparse(csgraph):
        A = csgraph
        if len(A.shape) != 2:
            raise ValueError("compressed-sparse graph must be 2-D")
        raw = A.data if A.format in ("csr", "csc", "coo") else A.tocoo().data
        if not directed and A.format == "csc":
            A = A.T
        A = A.tocsr()
        _check_square(A.shape)
        if on_dev:
            cp = _backend.cupy()
            return _Input(A.indptr, A.indices, A.data.astype(cp.float64), int(A.shape[0]), cp,
                          True, raw)
        return _Input(A.indptr, A.indices, np.asarray(A.data, dtype=np.float64),
                      int(A.shape[0]), np, False, raw)
    if _backend.is_device_array(csgraph):  # dense CuPy
        cp = _backend.cupy()
        a = cp.asarray(csgraph, dtype=cp.float64)
        if a.ndim != 2:
            raise ValueError("compressed-sparse graph must be 2-D")
        _check_square(a.shape)
        keep = (a != 0) & cp.isfinite(a)
        r, c = cp.nonzero(keep)
        n = int(a.shape[0])
        indptr = cp.zeros(n + 1, dtype=cp.int32)
        if r.shape[0]:
            indptr[1:] = cp.cumsum(bincount(cp, r, minlength=n))
        vals = a[r, c]
        return _Input(indptr, c.astype(cp.int32), vals, n, cp, True, vals)
    from scipy.sparse.csgraph._tools import csgraph_from_dense, csgraph_from_masked

    if np.ma.isMaskedArray(csgraph):
        A = csgraph_from_masked(csgraph)
        raw = np.asarray(csgraph.compressed(), dtype=np.float64)
    else:
        a = np.asarray(csgraph)
        if a.ndim != 2:
            raise ValueError("compressed-sparse graph must be 2-D")
        _check_square(a.shape)
        A = csgraph_from_dense(a, null_value=0, infinity_null=True, nan_null=True)
        raw = A.data
    _check_square(A.shape)
    A = sp.csr_array(A)
    return _Input(A.indptr, A.indices, np.asarray(A.data, dtype=np.float64), int(A.shape[0]),
                  np, False, raw)


def _check_square(shape):
    if shape[0] != shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")


def _rows(xp, indptr, nnz):
    """Row of every stored entry (bincount + cumsum: works on NumPy and CuPy alike)."""
    from ..formats._base import expand_indptr

    return expand_indptr(xp, indptr, int(nnz), np.int64)


def _side(inp, backend):
    if backend is None and inp.on_device:
        return "gpu"
    return _backend.resolve(backend, *([inp.indptr] if inp.on_device else []))


def _graph(inp, directed, unweighted, side):
    """hpgraph Graph of the input: parallel entries -> min weight; undirected -> both ways."""
    from ..graph import Graph

    xp = inp.xp
    nnz = int(inp.indices.shape[0])
    r = _rows(xp, inp.indptr, nnz)
    c = inp.indices.astype(xp.int64)
    w = None
    if not unweighted:
        w = inp.data
        if nnz and bool(xp.isnan(w).any()):
            raise InvalidGraph("csgraph: NaN edge weights in the sparse input (SciPy leaves the "
                               "result undefined); drop or replace them")
        finite = xp.isfinite(w)
        if not bool(finite.all()):  # an infinite weight is never part of a finite path
            r, c, w = r[finite], c[finite], w[finite]
    return Graph.from_edges(r, c, w, num_vertices=inp.n, directed=bool(directed),
                            duplicates="min", backend=side)


def _out(a, inp):
    """Result on the input's side: NumPy in -> NumPy out, CuPy in -> CuPy out."""
    return _backend.to_device(a) if inp.on_device else np.asarray(_backend.to_host(a))


def _indices(indices, n):
    """SciPy's index handling: (flat int array, return shape prefix)."""
    if indices is None:
        return np.arange(n, dtype=np.int32), (n,)
    idx = np.array(_backend.to_host(indices), dtype=np.int32, copy=True)
    shape = idx.shape
    idx = np.atleast_1d(idx).reshape(-1)
    idx[idx < 0] += n
    if np.any(idx < 0) or np.any(idx >= n):
        raise ValueError("indices out of range 0...N")
    return idx, shape


# ---------------------------------------------------------------------------------------------
# breadth-first order


def breadth_first_order(csgraph, i_start, directed=True, return_predecessors=True, *,
                        backend=None):
    """Breadth-first order from ``i_start``, identical to SciPy's.

    Parameters
    ----------
    csgraph : sparse matrix/array (SciPy or CuPy), or dense array
    i_start : int
        Starting vertex.
    directed : bool, default True
        False follows ``csgraph[i, j]`` and ``csgraph[j, i]``.
    return_predecessors : bool, default True
    backend : {None, "auto", "cpu", "gpu"}, keyword only
        None: SciPy's traversal for host input, the device's level order for CuPy input;
        ``"gpu"`` the device for any input, ``"cpu"`` SciPy, ``"auto"`` the GPU when usable.

    Returns
    -------
    node_array : ndarray of int32
        Reachable vertices in SciPy's BFS order (level by level; within a level in the order
        they are discovered scanning the previous level's CSR rows in stored order, and for
        ``directed=False`` each row of ``csgraph`` before the same row of its transpose).
    predecessors : ndarray of int32, length N
        BFS parent; -9999 for ``i_start`` and unreachable vertices.

    Raises
    ------
    IndexError
        ``i_start`` out of range.
    """
    inp = _parse(csgraph, directed)
    n = inp.n
    start = _vertex(i_start, n, "i_start")
    if (backend is None and not inp.on_device) or _side(inp, backend) == "cpu":
        # host input: SciPy's own traversal is the fastest honest choice
        import scipy.sparse as sp

        from ._scipy import scipy_function

        scipy_bfo = scipy_function("breadth_first_order")   # SciPy's own, never a substitute
        indptr, indices, data = inp.host()
        A = sp.csr_array((data, indices, indptr), shape=(n, n))
        out = scipy_bfo(A, start, directed=directed, return_predecessors=return_predecessors)
        if not return_predecessors:
            return _out(out, inp)
        return _out(out[0], inp), _out(out[1], inp)
    cp = _backend.cupy()
    indptr = cp.asarray(inp.indptr).astype(np.int64)
    indices = cp.asarray(inp.indices).astype(np.int64)
    if not directed:
        indptr, indices = with_transpose(cp, indptr, indices, n)
    order, pred = bfs_order(cp, indptr, indices, start, n)
    if not return_predecessors:
        return _out(order, inp)
    return _out(order, inp), _out(pred, inp)


def _vertex(v, n, name):
    try:
        i = int(v) if isinstance(v, (numbers.Integral, np.integer)) else None
        if i is None and isinstance(v, (float, np.floating)) and float(v).is_integer():
            i = int(v)
    except (TypeError, ValueError):
        i = None
    if i is None:
        raise ValueError(f"{name} must be an integer vertex index, got {v!r}")
    if not 0 <= i < n:
        raise IndexOutOfBound(f"{name} {i} is out of range for a graph of {n} vertices")
    return i


# ---------------------------------------------------------------------------------------------
# shortest paths


def _warn_negative(inp):
    if inp.data.shape[0] and bool((inp.data < 0).any()):
        warnings.warn("Graph has negative weights: dijkstra will give inaccurate results if the "
                      "graph contains negative cycles. Consider johnson or bellman_ford.",
                      stacklevel=3)


def _has_negative(inp):
    return inp.data.shape[0] > 0 and bool((inp.data < 0).any())


def _check_no_negative_cycle(G, side):
    """Johnson's / Floyd-Warshall's global check: any negative cycle raises."""
    from ..algorithms._sssp import sssp
    from ..exceptions import NegativeCycleError as HpNegativeCycle

    try:
        sssp(G, list(range(G.num_vertices)), backend=side)
    except HpNegativeCycle:
        raise _negative_cycle_error()("Negative cycle detected in the graph") from None


def _solve(inp, directed, idx, unweighted, side, *, limit=math.inf, min_only=False,
           with_pred=True):
    """Distances (k, N) float64 and predecessors (k, N) int32 on the host, one run per source
    (or one multi-source run with ``min_only``; then also the source of every vertex)."""
    from ..algorithms._bfs import bfs
    from ..algorithms._sssp import sssp
    from ..exceptions import NegativeCycleError as HpNegativeCycle

    n = inp.n
    G = _graph(inp, directed, unweighted, side)
    runs = [idx] if min_only else [[int(s)] for s in idx]
    dists, preds = [], []
    for src in runs:
        if unweighted:
            res = bfs(G, src if len(src) > 1 else src[0], backend=side)
            depth = np.asarray(_backend.to_host(res.depth)).astype(np.float64)
            dist = np.where(depth < 0, np.inf, depth)
            pred = np.asarray(_backend.to_host(res.parent)).astype(np.int64)
            pred[np.asarray(src)] = -1
        else:
            try:
                res = sssp(G, src if len(src) > 1 else src[0], backend=side)
            except HpNegativeCycle:
                raise _negative_cycle_error()(
                    f"Negative cycle detected (reachable from node {src[0]})") from None
            dist = np.asarray(_backend.to_host(res.distance), dtype=np.float64)
            pred = np.asarray(_backend.to_host(res.predecessor)).astype(np.int64)
        if limit < math.inf:
            far = dist > limit
            dist[far] = np.inf
            pred[far] = -1
        pred[pred < 0] = NULL_IDX
        dists.append(dist)
        preds.append(pred.astype(np.int32))
    if not min_only:
        return np.stack(dists) if dists else np.zeros((0, n)), \
            (np.stack(preds) if preds else np.zeros((0, n), np.int32)), None
    dist, pred = dists[0], preds[0]
    sources = _roots(pred, np.asarray(idx), np.isfinite(dist))
    return dist, pred, sources


def _roots(pred, idx, reached):
    """The source each vertex hangs from in a predecessor forest (-9999 unreached)."""
    n = pred.shape[0]
    par = np.where(pred >= 0, pred, np.arange(n)).astype(np.int64)
    while True:
        nxt = par[par]
        if np.array_equal(nxt, par):
            break
        par = nxt
    out = np.where(reached, par, NULL_IDX).astype(np.int32)
    out[idx] = idx
    return out


def _shape(arr, prefix, n, min_only):
    return arr.reshape((n,) if min_only else tuple(prefix) + (n,))


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False,
             limit=np.inf, min_only=False, *, backend=None):
    """Shortest paths from ``indices`` (SciPy's ``dijkstra``), on hpgraph's SSSP.

    Parameters
    ----------
    csgraph : sparse matrix/array (SciPy or CuPy), or dense array
    directed : bool, default True
    indices : int or array_like of int, optional
        Sources (negative values count from the end); None: all vertices.
    return_predecessors : bool, default False
    unweighted : bool, default False
        Hop counts instead of weights.
    limit : float, default inf
        Distances above ``limit`` are reported as ``inf`` (predecessor -9999).
    min_only : bool, default False
        One multi-source run: the distance from the nearest source, shape ``(N,)``; with
        ``return_predecessors`` also the ``sources`` array.
    backend : {None, "auto", "cpu", "gpu"}, keyword only

    Returns
    -------
    dist_matrix : ndarray of float64, shape ``indices.shape + (N,)`` (or ``(N,)``)
    predecessors : ndarray of int32, same shape (if ``return_predecessors``)
    sources : ndarray of int32, shape ``(N,)`` (if ``min_only`` and ``return_predecessors``)

    Raises
    ------
    ValueError
        ``indices`` out of range, ``limit < 0``.
    scipy.sparse.csgraph.NegativeCycleError
        A negative cycle reachable from a source (SciPy's Dijkstra would return arbitrary
        values there; negative weights otherwise give exact distances, with SciPy's warning).
    """
    inp = _parse(csgraph, directed)
    _warn_negative(inp)
    n = inp.n
    idx, prefix = _indices(indices, n)
    if float(limit) < 0:
        raise ValueError("limit must be >= 0")
    side = _side(inp, backend)
    dist, pred, sources = _solve(inp, directed, idx, unweighted, side, limit=float(limit),
                                 min_only=bool(min_only))
    dist = _shape(dist, prefix, n, min_only)
    if not return_predecessors:
        return _out(dist, inp)
    pred = _shape(pred, prefix, n, min_only)
    if min_only:
        return _out(dist, inp), _out(pred, inp), _out(sources, inp)
    return _out(dist, inp), _out(pred, inp)


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False, *, backend=None):
    """Shortest paths with negative weights allowed (SciPy's ``bellman_ford``).

    Parameters are SciPy's (see :func:`dijkstra`).  A negative cycle reachable from one of
    ``indices`` raises :class:`scipy.sparse.csgraph.NegativeCycleError`.

    Returns
    -------
    dist_matrix : ndarray of float64
    predecessors : ndarray of int32 (if ``return_predecessors``)
    """
    inp = _parse(csgraph, directed)
    n = inp.n
    idx, prefix = _indices(indices, n)
    side = _side(inp, backend)
    dist, pred, _ = _solve(inp, directed, idx, unweighted, side)
    dist = _shape(dist, prefix, n, False)
    if not return_predecessors:
        return _out(dist, inp)
    return _out(dist, inp), _out(_shape(pred, prefix, n, False), inp)


def johnson(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False,
            *, backend=None):
    """Shortest paths with negative weights (SciPy's ``johnson``).

    Like SciPy, any negative cycle in the graph raises
    :class:`scipy.sparse.csgraph.NegativeCycleError` (not only those reachable from
    ``indices``): one multi-source Bellman-Ford run from every vertex checks it, then one SSSP
    per source gives the distances.
    """
    inp = _parse(csgraph, directed)
    n = inp.n
    idx, prefix = _indices(indices, n)
    side = _side(inp, backend)
    if not unweighted and _has_negative(inp):
        _check_no_negative_cycle(_graph(inp, directed, False, side), side)
    dist, pred, _ = _solve(inp, directed, idx, unweighted, side)
    dist = _shape(dist, prefix, n, False)
    if not return_predecessors:
        return _out(dist, inp)
    return _out(dist, inp), _out(_shape(pred, prefix, n, False), inp)


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None, *, backend=None):
    """Shortest paths (SciPy's ``shortest_path``), every method on hpgraph's engine.

    Parameters
    ----------
    csgraph : sparse matrix/array (SciPy or CuPy), or dense array
    method : {"auto", "FW", "D", "BF", "J"}
        Chosen like SciPy (``auto``: ``J`` for negative weights, else ``D``, or ``FW`` when
        ``indices`` is None and the graph is dense).  All give the same distances here; they
        differ in negative-cycle checks: ``BF``/``D`` raise for cycles reachable from
        ``indices``, ``J``/``FW`` for any cycle.
    directed, return_predecessors, unweighted, indices
        As SciPy.  ``FW`` does not take ``indices`` (ValueError, as SciPy).
    overwrite : bool
        Accepted for compatibility; the input is never modified.
    backend : {None, "auto", "cpu", "gpu"}, keyword only

    Returns
    -------
    dist_matrix : ndarray of float64
    predecessors : ndarray of int32 (if ``return_predecessors``)
    """
    if method == "auto":
        inp = _parse(csgraph, directed)
        n = inp.n
        raw = np.asarray(_backend.to_host(inp.raw_data))
        nk = raw.shape[0]
        if indices is not None or nk < n * n / 4:
            method = "J" if bool((raw < 0).any()) else "D"
        else:
            method = "FW"
    if method == "FW":
        if indices is not None:
            raise ValueError("Cannot specify indices with method == 'FW'.")
        inp = _parse(csgraph, directed)
        side = _side(inp, backend)
        if not unweighted and _has_negative(inp):
            _check_no_negative_cycle(_graph(inp, directed, False, side), side)
        return bellman_ford(csgraph, directed, None, return_predecessors, unweighted,
                            backend=backend)
    if method == "D":
        return dijkstra(csgraph, directed, indices, return_predecessors, unweighted,
                        backend=backend)
    if method == "BF":
        return bellman_ford(csgraph, directed, indices, return_predecessors, unweighted,
                            backend=backend)
    if method == "J":
        return johnson(csgraph, directed, indices, return_predecessors, unweighted,
                       backend=backend)
    raise ValueError("unrecognized method '%s'" % method)


# ---------------------------------------------------------------------------------------------
# connected components


def connected_components(csgraph, directed=True, connection="weak", return_labels=True, *,
                         backend=None):
    """Connected components (SciPy's ``connected_components``).

    Parameters
    ----------
    csgraph : sparse matrix/array (SciPy or CuPy), or dense array
    directed : bool, default True
    connection : {"weak", "strong"}
        For directed graphs.  ``weak``: hpgraph's FastSV on the undirected graph (labels equal
        SciPy's).  ``strong``: coloring on the engine (min-label propagation with
        ``min_second`` SpMVs, then backward marking with ``max_second`` SpMVs, after trimming
        vertices without in- or out-edges); labels numbered by smallest vertex (SciPy's
        partition, possibly different numbers).
    return_labels : bool, default True
    backend : {None, "auto", "cpu", "gpu"}, keyword only

    Returns
    -------
    n_components : int
    labels : ndarray of int32, length N (if ``return_labels``)
    """
    if connection.lower() not in ("weak", "strong"):
        raise ValueError("connection must be 'weak' or 'strong'")
    from ..algorithms.components import connected_components as hp_cc

    weak = connection.lower() == "weak" or not directed
    inp = _parse(csgraph, not weak)
    side = _side(inp, backend)
    G = _graph(inp, not weak, True, side)
    if weak:
        k, labels = hp_cc(G, backend=side)
    else:
        k, labels = _strong(G, side)
    labels = np.asarray(_backend.to_host(labels)).astype(np.int32)
    if return_labels:
        return int(k), _out(labels, inp)
    return int(k)


def _strong(G, side):
    """Strongly connected components by coloring on the engine; labels by smallest vertex."""
    from ..spmv import mxv

    G = G.to_device() if side == "gpu" else G.to_host()
    xp = G.xp
    n = G.num_vertices
    A, AT = G.A, G.AT
    ids = xp.arange(n, dtype=np.int64)
    rep = xp.full(n, -1, dtype=np.int64)      # representative (smallest vertex) of each SCC
    active = xp.ones(n, dtype=bool)
    while bool(active.any()):
        # trimming: a vertex with no in- or no out-edge inside the active set is its own SCC
        while True:
            a = active.astype(np.int32)
            outd = mxv(A, a, "plus_second", mask=active, backend=side)
            ind = mxv(AT, a, "plus_second", mask=active, backend=side)
            trivial = active & ((outd == 0) | (ind == 0))
            if not bool(trivial.any()):
                break
            rep[trivial] = ids[trivial]
            active &= ~trivial
        if not bool(active.any()):
            break
        # forward coloring: color[v] = smallest active vertex that reaches v
        color = xp.where(active, ids, n)
        while True:
            new = mxv(AT, color, "min_second", mask=active, accum="min", out=color, backend=side)
            new = xp.where(active, new, n)
            if bool((new == color).all()):
                break
            color = new
        # roots (color == id) and everything that reaches them within the same color: one SCC
        mark = active & (color == ids)
        while True:
            x = xp.where(mark, color, -1)
            y = mxv(A, x, "max_second", mask=active & ~mark, backend=side)
            grow = active & ~mark & (y == color)
            if not bool(grow.any()):
                break
            mark |= grow
        rep[mark] = color[mark]
        active &= ~mark
    # number components by their smallest vertex (the representative is that vertex)
    reps, labels = xp.unique(rep, return_inverse=True)
    return int(reps.shape[0]), labels.reshape(-1)
