"""Degree, eigenvector and Katz centrality, with networkx's definitions, normalisations and
convergence tests (``degree_centrality``, ``eigenvector_centrality``, ``katz_centrality``).

Eigenvector and Katz are power iterations whose product is one plus-times SpMV over ``A^T``
(:func:`hpgraph.mxv`; in-edges, networkx's left eigenvector), so they run on the engine's
kernels on the GPU and on SciPy on the CPU:

* eigenvector: ``x <- (A^T + I) x / ||(A^T + I) x||_2`` from ``x = 1/n``, stopping when
  ``||x - x_last||_1 < n * tol``;
* Katz: ``x <- alpha A^T x + beta`` from ``x = 0``, stopping when ``||x - x_last||_1 < n * tol``,
  then divided by its L2 norm when ``normalized``.

networkx iterates over its adjacency dict; the sums here run in another order, so results
agree to rounding (about 1e-12), and the iteration counts agree.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import ConvergenceError, InvalidValue
from . import _iterate
from ._common import finish, prepare
from ._vec import check_nonempty, check_number
from .._arrayops import bincount

__all__ = ["degree_centrality", "eigenvector_centrality", "katz_centrality"]

MODES = ("all", "in", "out")


def degree_centrality(G, mode="all", *, backend=None, to=None):
    """Degree of every vertex divided by ``n - 1`` (``networkx.degree_centrality`` and its
    ``in_`` / ``out_`` forms).

    Degrees count distinct neighbours (repeated edges once); a self-loop adds 2 to the degree
    of an undirected graph and 1 to each of the in- and out-degree of a directed one, as in
    networkx.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
    mode : {"all", "in", "out"}
        ``"all"``: in + out degree on a directed graph, the degree on an undirected one.
        ``"in"`` / ``"out"`` need a directed graph.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, length n (all 1.0 when ``n == 1``, as networkx)

    Raises
    ------
    InvalidValue
        Unknown ``mode``, or ``"in"``/``"out"`` on an undirected graph.
    """
    if mode not in MODES:
        raise InvalidValue(f"mode must be one of {MODES}, got {mode!r}")
    G, side, on_dev = prepare(G, backend)
    if mode != "all" and not G.directed:
        raise InvalidValue(f"degree_centrality(mode={mode!r}) needs a directed graph and G is "
                           "undirected; use mode='all'")
    xp = G.xp
    n = G.num_vertices
    if n <= 1:
        return finish(xp.ones(n, dtype=np.float64), on_dev, to)
    from ._triangles import simple_pairs

    r, c, _ = simple_pairs(G, symmetrize=False)
    loops = xp.zeros(n, dtype=np.int64)
    A = G.A
    if A.nnz:
        rows = A.row_ids().astype(np.int64, copy=False)
        loops[rows[rows == A.indices.astype(np.int64, copy=False)]] = 1
    out = bincount(xp, r, minlength=n) + loops
    if not G.directed:
        deg = out + loops
    else:
        inn = bincount(xp, c, minlength=n) + loops
        deg = {"all": out + inn, "in": inn, "out": out}[mode]
    # networkx multiplies by 1 / (n - 1): the same operation gives the same rounding
    return finish(deg.astype(np.float64) * (1.0 / (n - 1)), on_dev, to)


def _operator(G, weighted, side):
    """``x -> A^T x`` (plus-times over the weights, or plus-second over the pattern)."""
    from ..spmv import mxv

    if weighted and G.weighted:
        if G.A.nnz and bool(G.xp.any(G.A.values < 0)):
            raise InvalidValue("weighted=True needs non-negative edge weights for a power "
                               "iteration; this graph has negative ones (use weighted=False)")
        return lambda x: mxv(G.AT, x, "plus_times[float64]", backend=side)
    return lambda x: mxv(G.AT, x, "plus_second[float64]", backend=side)


def _start(G, nstart, name):
    from ._pagerank import vertex_vector

    v = vertex_vector(nstart, G.num_vertices, name, normalize=False)
    return None if v is None else G.xp.asarray(v)


def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weighted=False, *,
                           backend=None, to=None):
    """Eigenvector centrality (``networkx.eigenvector_centrality``): the principal left
    eigenvector of ``A`` (in-edges), unit L2 norm.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
    max_iter : int, default 100
        Iterations at most.  Any size is accepted: an iteration that leaves the vector
        bit-for-bit unchanged ends the run as converged, and a change that sets no new
        minimum in 1000 iterations, or is not halved by 1000 iterations (too slow to reach
        ``tol``), raises ConvergenceError at once
        (:mod:`hpgraph.algorithms._iterate`).
    tol : float, default 1e-6
        Stop when the L1 change of an iteration is below ``n * tol`` (networkx's rule).
    nstart : dict or array of length n, optional
        Starting vector (normalised to sum 1; default all ones).
    weighted : bool, default False
        Use edge weights (networkx's ``weight="weight"``); default every edge weighs 1.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, length n

    Raises
    ------
    InvalidValue
        Empty graph, bad ``max_iter``/``tol``, or negative weights with ``weighted=True``.
    ConvergenceError
        Not converged in ``max_iter`` iterations (networkx raises
        ``PowerIterationFailedConvergence`` on the same graphs).
    """
    check_number("max_iter", max_iter, lo=0, integer=True)
    check_number("tol", tol, lo=0)
    G, side, on_dev = prepare(G, backend)
    check_nonempty(G, "eigenvector_centrality")
    xp = G.xp
    n = G.num_vertices
    op = _operator(G, weighted, side)
    x0 = _start(G, nstart, "nstart")
    x = xp.ones(n, dtype=np.float64) if x0 is None else x0
    x = x / x.sum()
    # a fixed point or a stall ends any max_iter
    progress = _iterate.general(n * tol)
    for _ in range(int(max_iter)):
        xn = x + op(x)
        norm = float(xp.sqrt((xn * xn).sum())) or 1.0
        xn = xn / norm
        err = float(xp.abs(xn - x).sum())
        x = xn
        state = progress.update(err)
        if state == _iterate.STALLED:
            raise ConvergenceError(progress.stall_message(
                "eigenvector_centrality", f"L1 change < n*tol = {n * tol:g}"))
        if state is not None:
            return finish(x, on_dev, to)
    raise ConvergenceError(f"eigenvector_centrality did not converge (L1 change < n*tol = "
                           f"{n * tol:g}) within max_iter={max_iter} iterations; raise max_iter "
                           "or tol")


def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None,
                    normalized=True, weighted=False, *, backend=None, to=None):
    """Katz centrality (``networkx.katz_centrality``): ``x = alpha A^T x + beta``.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
    alpha : float, default 0.1
        Attenuation; the iteration converges when ``alpha`` is below ``1 / lambda_max``.
    beta : float or array of length n, default 1.0
        Weight attributed to each vertex's immediate neighbourhood.
    max_iter : int, default 1000
        Iterations at most.  Any size is accepted: an iteration that leaves the vector
        bit-for-bit unchanged ends the run as converged, and a change that sets no new
        minimum in 1000 iterations, or is not halved by 1000 iterations (too slow to reach
        ``tol``), raises ConvergenceError at once
        (:mod:`hpgraph.algorithms._iterate`).
    tol : float, default 1e-6
        Stop when the L1 change of an iteration is below ``n * tol`` (networkx's rule).
    nstart : dict or array of length n, optional
        Starting vector (default 0).
    normalized : bool, default True
        Divide the result by its L2 norm.
    weighted : bool, default False
        Use edge weights.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, length n (empty for an empty graph, as networkx's ``{}``)

    Raises
    ------
    InvalidValue
        Bad ``alpha``/``beta``/``max_iter``/``tol``.
    ConvergenceError
        Not converged within ``max_iter`` iterations.
    """
    check_number("alpha", alpha)
    check_number("max_iter", max_iter, lo=0, integer=True)
    check_number("tol", tol, lo=0)
    G, side, on_dev = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    if n == 0:
        return finish(xp.zeros(0, dtype=np.float64), on_dev, to)
    if np.ndim(beta) == 0:
        check_number("beta", beta)
        b = float(beta)
    else:
        from .. import backend as _backend

        bh = np.asarray(_backend.to_host(beta), dtype=np.float64)
        if bh.shape != (n,) or not np.all(np.isfinite(bh)):
            raise InvalidValue(f"beta must be a finite number or a finite array of length {n}, "
                               f"got shape {bh.shape}")
        b = xp.asarray(bh)
    op = _operator(G, weighted, side)
    x0 = _start(G, nstart, "nstart")
    x = xp.zeros(n, dtype=np.float64) if x0 is None else x0
    # a fixed point or a stall ends any max_iter
    progress = _iterate.general(n * tol)
    for _ in range(int(max_iter)):
        xn = alpha * op(x) + b
        err = float(xp.abs(xn - x).sum())
        x = xn
        if not np.isfinite(err):   # diverged (alpha above 1 / lambda_max): it cannot converge
            break
        state = progress.update(err)
        if state == _iterate.STALLED:
            raise ConvergenceError(progress.stall_message(
                "katz_centrality", f"L1 change < n*tol = {n * tol:g}"))
        if state is not None:
            if normalized:
                norm = float(xp.sqrt((x * x).sum()))
                if norm > 0:
                    x = x / norm
            return finish(x, on_dev, to)
    raise ConvergenceError(f"katz_centrality did not converge (L1 change < n*tol = {n * tol:g}) "
                           f"within max_iter={max_iter} iterations; lower alpha (below 1 / the "
                           "largest eigenvalue of A) or raise max_iter")
