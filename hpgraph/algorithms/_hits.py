"""HITS hubs and authorities (Kleinberg), the power iteration of networkx's ``_hits_scipy``.

``networkx.hits`` 3.6 calls ARPACK (``svds``) for the leading singular vectors of ``A``;
its power-iteration twin ``_hits_scipy`` computes the same vectors whenever the leading
singular value is simple, and is what this function reproduces step for step::

    x = nstart / sum(nstart)            (uniform by default)
    repeat:  x_last = x;  x = A^T (A x);  x = x / max(x)
             stop when ||x - x_last||_1 < tol    (ConvergenceError after max_iter + 2 products)
    authorities = x,  hubs = A x,  each divided by its sum when normalized

``A x`` and ``A^T y`` are two plus-times SpMVs (over ``A`` and ``A^T``) per iteration -- the
product ``A^T A`` is never formed -- plus one scalar read (the change) per iteration.  Where
the leading singular value is not simple (e.g. two identical components) both networkx
functions may disagree with each other; this one then agrees with ``_hits_scipy``.

Where the power iteration has not met ``tol`` after ``max_iter + 2`` products (graphs whose
two leading singular values are close: road networks, citation graphs), the result is what
``networkx.hits`` computes: the leading right singular vector of ``A`` from ARPACK
(``scipy.sparse.linalg.svds(A, k=1, maxiter=max_iter, tol=tol)``, on the host, started from
the power iteration's vector), normalised the same way.  A
:class:`~hpgraph.exceptions.ConvergenceError` is raised only where ARPACK fails as well,
which is where ``networkx.hits`` raises ``PowerIterationFailedConvergence``.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import ConvergenceError, InvalidValue
from . import _iterate
from ._common import finish, prepare
from ._pagerank import _check_scalar, vertex_vector

__all__ = ["hits"]


def hits(G, max_iter=100, tol=1e-8, nstart=None, normalized=True, weighted=False, *,
         dtype=np.float64, backend=None, to=None):
    """Hub and authority scores of every vertex.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Directed or undirected.
    max_iter : int, default 100
        As in networkx: once the iteration counter passes ``max_iter`` (at most
        ``max_iter + 2`` power steps), ARPACK takes over (module docstring).  Any size is
        accepted: a vector left bit-for-bit unchanged ends the power iteration as converged,
        and a change that sets no new minimum in 1000 iterations, or is not halved by 1000
        iterations, hands over to ARPACK at once (whose restarts are capped at ``max(10 n, 1000)``).
    tol : float, default 1e-8
        Stop when the L1 change of the max-normalised authority vector is below ``tol``.
    nstart : dict {vertex: value} or array of length n, optional
        Starting authority vector (normalised to sum 1; missing dict keys are 0).
    normalized : bool, default True
        Divide hubs and authorities by their sums.
    weighted : bool, default False
        Use edge weights (networkx's default ``weight="weight"``); default: every edge is 1.
        Weights must be non-negative.
    dtype : float32 or float64, default float64
    backend : {"auto", "cpu", "gpu", None}
    to : {None, "numpy", "cupy"}
        Where the results go (default: the input's side).

    Returns
    -------
    (hubs, authorities) : two arrays of ``dtype``, length n

    Raises
    ------
    ConvergenceError
        Not converged, or the graph has no edge (``A^T A x`` is zero: HITS is undefined).
    InvalidValue
        Bad arguments; negative weights with ``weighted=True``.
    """
    from .. import ops
    from .. import spmv as _spmv

    _check_scalar("max_iter", max_iter, 0, integer=True)
    _check_scalar("tol", tol, 0.0)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InvalidValue(f"dtype must be float32 or float64, got {dtype}")
    G, side, on_dev = prepare(G, backend)
    n = G.num_vertices
    xp = G.xp
    x0 = vertex_vector(nstart, n, "nstart", normalize=True)
    if n == 0:
        e = xp.zeros(0, dtype=dtype)
        return finish(e, on_dev, to), finish(e.copy(), on_dev, to)
    use_w = bool(weighted and G.weighted)
    if use_w and G.A.nnz and bool(xp.any(G.A.values < 0)):
        raise InvalidValue("hits(weighted=True) needs non-negative edge weights; this graph has "
                           "negative ones (use weighted=False to ignore weights)")
    sr = ops.lookup_semiring(f"{'plus_times' if use_w else 'plus_second'}[{dtype.name}]")
    A, AT = G.A, G.AT
    x = xp.full(n, 1.0 / n, dtype=dtype) if x0 is None else xp.asarray(x0, dtype=dtype)
    i = 0
    # a fixed point (the vector bit-for-bit unchanged) ends the power iteration as converged;
    # a stall hands over to ARPACK at once, as running out of iterations does (_iterate)
    progress = _iterate.general(tol)
    while True:
        xlast = x
        x = _spmv.spmv(AT, _spmv.spmv(A, x, sr, backend=side), sr, backend=side)
        m = x.max()
        with np.errstate(invalid="ignore", divide="ignore"):
            x = x / m
        err = float(xp.abs(x - xlast).sum(dtype=np.float64))
        state = progress.update(err)
        if state in (_iterate.CONVERGED, _iterate.FIXED):
            break
        if not np.isfinite(err) and float(m) == 0:
            raise ConvergenceError("hits is undefined here: A^T A x is zero (the graph has no "
                                   "edges, or nstart puts all its weight on vertices without "
                                   "in-edges)")
        if i > max_iter or state == _iterate.STALLED:
            x = _arpack_authorities(G, use_w, x, max_iter, tol, dtype)
            break
        i += 1
    a = x
    h = _spmv.spmv(A, a, sr, backend=side)
    if normalized:
        h = h / h.sum()
        a = a / a.sum()
    return finish(h.astype(dtype, copy=False), on_dev, to), finish(a.astype(dtype, copy=False),
                                                                   on_dev, to)


def _arpack_authorities(G, use_w, x, max_iter, tol, dtype):
    """networkx.hits' computation: the leading right singular vector of ``A`` (ARPACK), scaled
    to max 1 like the power iteration's vector, on the graph's side."""
    import scipy.sparse.linalg as sla

    from .. import backend as _backend

    A = G.to_scipy().astype(np.float64)  # a copy
    if not use_w:
        A.data[:] = 1.0  # every stored entry is an edge of weight 1 (explicit zeros included)
    v0 = np.asarray(_backend.to_host(x), dtype=np.float64)
    if not np.all(np.isfinite(v0)) or not v0.any():
        v0 = None
    n = A.shape[0]
    if n < 2 or max_iter < 1:
        raise ConvergenceError(f"hits did not converge to tol={tol} within max_iter={max_iter} "
                               "iterations; raise max_iter or tol")
    # ARPACK's restarts: max_iter, capped at max(10 n, 1000) (its own default is 10 n; the
    # cap keeps a huge max_iter from reaching its 32-bit argument or running for ever)
    try:
        _, _, vt = sla.svds(A, k=1, v0=v0, maxiter=min(max_iter, max(10 * n, 1000)), tol=tol)
    except (sla.ArpackNoConvergence, sla.ArpackError) as exc:
        raise ConvergenceError(f"hits did not converge to tol={tol} within max_iter={max_iter} "
                               f"iterations (power iteration and ARPACK: {exc}); raise max_iter or tol") from None
    a = vt.ravel().real
    a = a / a[int(np.argmax(np.abs(a)))]  # the sign ARPACK chose, and the scale, as the power iteration's
    if a.min() < -1e-6:
        # A leading singular vector with both signs: sigma_1 is not simple (a bipartite graph, say),
        # so the hub and authority vectors are not unique (networkx.hits returns an arbitrary one).
        raise ConvergenceError(f"hits did not converge to tol={tol} within max_iter={max_iter} "
                               "iterations, and the leading singular value of A is not simple here (a "
                               "bipartite graph, for instance), so hub and authority scores are not "
                               "unique; raise max_iter or tol, or pass nstart")
    return G.xp.asarray(a.astype(dtype, copy=False))
