"""PageRank: networkx's power iteration, and the HPGraph paper's Eq. (2) as a vertex program.

``variant="power"`` (default) and ``variant="networkx"`` run ``networkx.pagerank``'s iteration
(its ``_pagerank_scipy``): with ``M`` the row-normalised adjacency matrix (row ``u`` divided by ``u``'s out-degree, or
by its out-weight sum with ``weighted=True``) and ``D`` the dangling vertices (no out-edges,
or out-weight sum 0)::

    x <- damping * (x M + sum(x[D]) * dangling_weights) + (1 - damping) * p

from ``x = nstart / sum(nstart)`` (uniform by default); ranks sum to 1.  They differ only in
when they stop: "networkx" when ``||x - x_last||_1 < n * tol`` (networkx's rule: a mean change
per vertex, which on a graph of millions of vertices stops after two or three iterations,
0.1-0.4 away in L1 from the converged vector), "power" when ``||x - x_last||_1 < tol``, an L1
bound that means the same at any size (as cuGraph's): the iteration is a ``damping``
contraction in L1, so the result is within ``damping / (1 - damping) * tol`` of the exact
vector.  One iteration is one plus-times SpMV over ``A^T`` of the scaled
vector ``x / outweight`` plus one fused vector update (the new ranks, the next SpMV's input,
the L1 change and the dangling mass in one pass; :mod:`._kernels` on the GPU).  On the GPU
the only host synchronisation per iteration is the convergence check, and it lags one
iteration behind: iteration ``k + 1`` is already queued when the change of iteration ``k`` is
read (from pinned memory, after an event), so Python's launch overhead overlaps the device's
work.  The result is still the ranks of the first iteration whose change is below the
tolerance, as in networkx.

``variant="hpgraph"`` is the paper's Eq. (2), ``PR(v) = d + (1 - d) * sum_{u -> v} PR(u) /
C(u)``, from initial ranks 1.0 (or ``nstart``, not normalised).  **In the paper's formula
``d`` is the teleport (random-jump) share, so ``d = 1 - damping``**: with the default
``damping=0.85``, ``PR(v) = 0.15 + 0.85 * sum PR(u) / C(u)``.  ``C(u)`` is ``u``'s out-degree
(out-weight sum with ``weighted=True``, the sum then weighted by ``A[u, v]``).  Ranks are not
normalised (they average 1 when no vertex is dangling); a dangling vertex's rank is not
redistributed, as in the paper.  It runs on :func:`hpgraph.run` as a residual ("delta")
vertex program: each vertex keeps its rank and the change not yet passed on (``pend``); a
vertex is active -- in the paper's bitmask, sending ``damping * pend / C(u)`` to its
out-neighbours and folding ``pend`` into its rank -- only while ``|pend| > tol``.  Converged
vertices thus leave the active set, and this is exact: a converged vertex's small change is
kept and sent later if it grows past ``tol`` (nothing is dropped), so the fixed point is the
one of Eq. (2), and at the end every vertex's pending change is at most ``tol``.  The returned
ranks include the final pending changes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import backend as _backend
from ..exceptions import ConvergenceError, IndexOutOfBound, InvalidValue
from . import _iterate
from ._common import finish, prepare
from .._arrayops import any_true

__all__ = ["pagerank", "PageRankInfo"]

VARIANTS = ("power", "networkx", "hpgraph")


class PageRankInfo(NamedTuple):
    """How a :func:`pagerank` run ended (``return_info=True``).

    Attributes
    ----------
    iterations : int
        Power iterations (SpMVs) run; supersteps for ``variant="hpgraph"``.
    residual : float
        L1 norm of the last iteration's change, ``||x_k - x_(k-1)||_1`` ("power" and
        "networkx"); for "hpgraph", the L1 norm of the changes still pending at the end.
    error_bound : float
        Bound on the L1 distance of the result from the exact PageRank vector:
        ``damping / (1 - damping) * residual`` for "power" and "networkx" (the iteration is a
        ``damping``-contraction in L1; rounding aside), ``inf`` at ``damping == 1``; NaN for
        "hpgraph".
    """

    iterations: int
    residual: float
    error_bound: float


# ---------------------------------------------------------------------------------------------
# arguments


def _check_scalar(name, value, lo=None, hi=None, integer=False):
    ok_types = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    # ints are finite at any size (np.isfinite cannot take one beyond 64 bits)
    if isinstance(value, bool) or not isinstance(value, ok_types) or (
            isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        kind = "an int" if integer else "a finite number"
        raise InvalidValue(f"{name} must be {kind}, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise InvalidValue(f"{name} must be in {rng}, got {value!r}")
    return value


def vertex_vector(value, n: int, name: str, *, normalize: bool):
    """A host float64 array of length ``n`` from an array or a ``{vertex: value}`` dict.

    Missing dict keys are 0 (networkx's rule).  Values must be finite and non-negative with a
    positive sum; ``normalize`` divides by the sum.
    """
    if value is None:
        return None
    if isinstance(value, dict):
        arr = np.zeros(n, dtype=np.float64)
        for k, v in value.items():
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
                raise InvalidValue(f"{name}: keys must be vertex ids (ints), got {k!r}")
            if not 0 <= int(k) < n:
                raise IndexOutOfBound(f"{name}: vertex {int(k)} is out of range for a graph of {n} "
                                      f"vertices")
            try:
                arr[int(k)] = float(v)
            except (ValueError, TypeError, OverflowError):
                raise InvalidValue(f"{name}[{int(k)}] must be a number, got {v!r}") from None
    else:
        try:
            arr = np.asarray(_backend.to_host(value), dtype=np.float64)
        except (ValueError, TypeError, OverflowError) as exc:
            raise InvalidValue(f"{name} must be a dict {{vertex: value}} or an array of {n} numbers "
                               f"({type(exc).__name__}: {exc})") from None
        if arr.shape != (n,):
            raise InvalidValue(f"{name} must be a dict {{vertex: value}} or an array of length {n}, "
                               f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InvalidValue(f"{name} must hold finite values")
    if np.any(arr < 0):
        raise InvalidValue(f"{name} must hold non-negative values (vertex {int(np.argmax(arr < 0))} "
                           f"has {float(arr[np.argmax(arr < 0)])})")
    s = float(arr.sum())
    if not s > 0:
        raise InvalidValue(f"{name} must have a positive sum (at least one nonzero entry)")
    return arr / s if normalize else arr


def _out_weights(G, weighted, dtype):
    """Out-degree (or out-weight sum) per vertex as ``dtype``, on ``G``'s side."""
    xp = G.xp
    n = G.num_vertices
    if weighted and G.weighted:
        vals = G.A.values
        if G.A.nnz and any_true(xp, vals < 0):
            raise InvalidValue("pagerank(weighted=True) needs non-negative edge weights; this graph "
                               "has negative ones (use weighted=False to ignore weights)")
        from .. import spmv as _spmv

        ones = xp.ones(n, dtype=dtype)
        return _spmv.spmv(G.A, ones, f"plus_times[{np.dtype(dtype).name}]", backend=G.side)
    return G.out_degree.astype(dtype)


def _operands(G, weighted, dtype):
    """``(S, AT, semiring)``, cached on the graph: ``S = 1 / out-weight`` (0 where dangling), the
    SpMV matrix (A^T; pattern-only unless weighted, so the kernel reads no values) and the
    plus-times / plus-second semiring."""
    from .. import ops
    from ..formats import CSR
    from ._triangles import _cached

    use_w = bool(weighted and G.weighted)
    dtype = np.dtype(dtype)

    def make_S():
        xp = G.xp
        W = _out_weights(G, use_w, dtype)
        return xp.where(W != 0, 1.0 / xp.where(W != 0, W, 1), 0).astype(dtype)

    S = _cached(G, f"hpg.pagerank.S[{use_w},{dtype.name}]", make_S)
    AT = G.AT
    if not use_w and not AT.is_pattern:
        AT = _cached(G, "hpg.AT_pattern", lambda: CSR(G.AT.indptr, G.AT.indices, None,
                                                     shape=G.AT.shape))
    sr = ops.lookup_semiring(f"{'plus_times' if use_w else 'plus_second'}[{dtype.name}]")
    return S, AT, sr


# ---------------------------------------------------------------------------------------------
# networkx variant


def _networkx(G, side, damping, thresh, max_iter, p, x0, dw, weighted, dtype, rule):
    """Power iteration until the L1 change is below ``thresh`` (or a fixed point, or a stall:
    :mod:`._iterate`); ``(x, iterations, change)``."""
    from .. import spmv as _spmv

    n = G.num_vertices
    S, AT, sr = _operands(G, weighted, dtype)
    if damping < 1.0:   # a contraction: the change falls at every step down to rounding
        progress = _iterate.contracting(thresh)
    else:
        progress = _iterate.general(thresh, min_window=2 * n)
    if side == "gpu":
        return _networkx_gpu(AT, S, sr, n, damping, progress, max_iter, p, x0, dw, dtype, rule)

    # CPU: the same steps in NumPy
    x = np.full(n, 1.0 / n, dtype=dtype) if x0 is None else x0.astype(dtype)
    pv = dtype.type(1.0 / n) if p is None else p.astype(dtype)
    dwv = pv if dw is None else dw.astype(dtype)
    dang = S == 0
    for k in range(max_iter):
        y = _spmv.spmv(AT, x * S, sr, backend="cpu")
        dsum = x[dang].sum(dtype=np.float64)
        xn = (damping * (y + dsum * dwv) + (1 - damping) * pv).astype(dtype, copy=False)
        err = float(np.abs(xn.astype(np.float64) - x).sum())
        x = xn
        state = progress.update(err)
        if state == _iterate.STALLED:
            raise ConvergenceError(progress.stall_message("pagerank", rule))
        if state is not None:
            return x, k + 1, err
    raise ConvergenceError(f"pagerank did not converge ({rule}) within "
                           f"max_iter={max_iter} iterations; raise max_iter or tol")


#: Rows of the per-iteration scalars (L1 change, dangling mass) on the device and in pinned
#: host memory: a ring, zeroed half at a time, so memory does not grow with ``max_iter``.
_RING = 64


def _networkx_gpu(AT, S, sr, n, damping, progress, max_iter, p, x0, dw, dtype, rule):
    """The power iteration on the device: a semiring SpMV and the vector update (one kernel) per
    iteration.  (A kernel fusing both, on an in-degree renumbering, measured 0.425 ms per
    iteration against 0.420 for these two on R-MAT 21 float32, one H100: no gain, so not kept.)"""
    from .. import spmv as _spmv
    from . import _kernels

    cp = _backend.cupy()
    import cupyx

    bufs = [cp.empty(n, dtype=dtype) for _ in range(3)]
    wbufs = [cp.empty(n, dtype=dtype) for _ in range(3)]
    x = bufs[2]
    if x0 is None:
        x.fill(1.0 / n)
    else:
        x[...] = cp.asarray(x0, dtype=dtype)
    cp.multiply(x, S, out=wbufs[2])
    pd = None if p is None else cp.asarray(p, dtype=dtype)
    dwd = None if (dw is None or dw is p) else cp.asarray(dw, dtype=dtype)
    # row j % _RING holds iteration j's scalars (row 0: the starting vector's dangling mass);
    # the update kernel adds into its row with atomics, so a row is zero before its reuse
    acc = cp.zeros((_RING, 2), dtype=cp.float64)
    acc[0, 1] = cp.sum(cp.where(S == 0, x, 0), dtype=cp.float64)
    host = cupyx.zeros_pinned((_RING, 2), dtype=np.float64)
    events = [None] * _RING
    launched = -1  # the last iteration queued
    half = _RING // 2
    stream = cp.cuda.get_current_stream()

    def launch(k):
        # iteration k (0-based) reads buffers (k-1) % 3 (k == 0: the initial ones, slot 2)
        nonlocal launched
        prev = (k - 1) % 3
        cur = k % 3
        row = (k + 1) % _RING
        if row % half == 0 and k + 1 >= _RING:
            # the half starting here last held iterations k + 1 - _RING ..., all read already
            # (the host waited for them); one memset per `half` iterations, in stream order
            acc[row:row + half] = 0
        y = _spmv.spmv(AT, wbufs[prev], sr, backend="gpu")
        _kernels.pagerank_update(y, bufs[prev], S, pd, dwd, acc[k % _RING], acc[row], bufs[cur],
                                 wbufs[cur], damping, 1.0 / n)
        acc[row].get(stream=stream, out=host[row], blocking=False)
        ev = cp.cuda.Event(block=False, disable_timing=True)
        ev.record(stream)
        events[k % _RING] = ev
        launched = k

    # Iteration k + 1 is queued before waiting for iteration k's error (the GPU stays busy
    # while the host reads it), unless iteration k is sure to converge: the iteration is a
    # damping-contraction in L1 (x -> damping * M x + c with M column-stochastic, dangling
    # columns included), so err_k <= damping * err_(k-1), and err_0 <= 2 (two probability
    # vectors).  Without this check a run that converges at iteration k pays one SpMV more
    # (at n * tol >= 2, networkx's criterion holds after one iteration: half the time).
    thresh = progress.thresh
    if max_iter > 0:
        launch(0)
    bound = 2.0  # upper bound on err_k, for the k about to be waited for
    for k in range(max_iter):
        if k + 1 < max_iter and not bound * (1.0 + 1e-6) < thresh:
            launch(k + 1)          # queued before we wait for iteration k
        events[k % _RING].synchronize()
        err = float(host[(k + 1) % _RING, 0])
        bound = damping * err
        state = progress.update(err)
        if state is None and k + 1 < max_iter and launched == k:
            launch(k + 1)          # the bound was not tight enough after all
        if state is not None:
            stream.synchronize()   # the speculative iteration must not outlive the buffers' use
            if state == _iterate.STALLED:
                raise ConvergenceError(progress.stall_message("pagerank", rule))
            return bufs[k % 3].copy(), k + 1, err
    raise ConvergenceError(f"pagerank did not converge ({rule}) within "
                           f"max_iter={max_iter} iterations; raise max_iter or tol")


# ---------------------------------------------------------------------------------------------
# hpgraph variant (the paper's Eq. 2) as a residual vertex program

_PROGRAMS: dict = {}

#: Supersteps per engine run of the hpgraph variant (see :func:`_hpgraph`).
_HPGRAPH_CHUNK = 1000


def _program(weighted: bool, dtype):
    """The vertex program class for (weighted, dtype), built once."""
    key = (weighted, np.dtype(dtype).name)
    cls = _PROGRAMS.get(key)
    if cls is not None:
        return cls
    from ..program import VertexProgram

    dt = np.dtype(dtype).name

    def init(self, graph, rank=None, pend=None, scale=None):
        return {"rank": rank, "pend": pend, "scale": scale}, "all"

    def update(self, v, y):
        return {"rank": v.rank + v.pend if abs(v.pend) > self.theta else v.rank,
                "pend": (0.0 if abs(v.pend) > self.theta else v.pend) + y}

    if weighted:
        def gather(self, src, edge, dst):
            return src.pend * src.scale * edge if abs(src.pend) > self.theta else 0.0
    else:
        def gather(self, src, edge, dst):
            return src.pend * src.scale if abs(src.pend) > self.theta else 0.0

    def __init__(self, theta=1e-6):
        self.theta = float(theta)

    attrs = {
        "__doc__": "PageRank, Eq. (2) of the HPGraph paper, as a residual push program.",
        "__module__": __name__,
        "edges": "in",
        "properties": {"rank": dt, "pend": dt, "scale": dt},
        "reduce": "plus",
        "y_dtype": dt,
        "apply_to": "all",
        "gather_from": "active",
        "__init__": __init__,
        "init": init,
        "gather": gather,
        "update": update,
    }
    if weighted:
        attrs["edge_dtype"] = dt
    cls = type(f"PageRankEq2{'Weighted' if weighted else ''}_{dt}", (VertexProgram,), attrs)
    _PROGRAMS[key] = cls
    return cls


def _hpgraph(G, side, damping, tol, max_iter, nstart, weighted, dtype):
    from .. import spmv as _spmv
    from ..program import run

    xp = G.xp
    n = G.num_vertices
    use_w = bool(weighted and G.weighted)
    S, AT, sr = _operands(G, weighted, dtype)
    rank0 = xp.ones(n, dtype=dtype) if nstart is None else xp.asarray(nstart, dtype=dtype)
    # residual of the starting ranks: r = (1 - damping) + damping * M rank0 - rank0
    if nstart is None:  # rank0 = 1: M rank0 = spmv(AT, S), the same for every call on G
        from ._triangles import _cached

        y0 = _cached(G, f"hpg.pagerank.MS[{use_w},{np.dtype(dtype).name}]",
                     lambda: _spmv.spmv(AT, S, sr, backend=side))
    else:
        y0 = _spmv.spmv(AT, rank0 * S, sr, backend=side)
    pend0 = ((1.0 - damping) + damping * y0 - rank0).astype(dtype)
    scale = (damping * S).astype(dtype)
    prog = _program(use_w, dtype)(theta=tol)
    # The engine stops when no vertex's state changes (a fixed point).  A huge max_iter runs
    # in chunks of _HPGRAPH_CHUNK supersteps, restarted from the state reached (every vertex
    # active again: the same values, since gather and update test |pend| > tol themselves);
    # the pending L1 mass cannot grow (each push sends damping * |pend| on), so a chunk that
    # does not lower it is a stall (damping = 1 on a cycle: pend circulates for ever).
    left, steps = max_iter + 1, 0
    progress = _iterate.Progress(-1.0, window=1)
    rank, pend = rank0, pend0
    while True:
        res = run(prog, G, backend=side, max_iterations=min(left, _HPGRAPH_CHUNK), rank=rank,
                  pend=pend, scale=scale)
        steps += int(res.supersteps)
        left -= int(res.supersteps)
        resid = float(xp.abs(res.pend).sum(dtype=np.float64))
        if res.converged:
            break
        # The pending mass only shrinks (or circulates, damping = 1), so once all of it is below
        # a quarter of the smallest rank's rounding step (eps * r / 4 <= ulp(r) / 2), no fold
        # can change a rank again: x = rank + pend is final even where tol lies below what the
        # dtype resolves (tol = 0 with damping 0.999 would otherwise take ~7e5 supersteps).
        # Ranks of 0 (an isolated vertex at damping = 1) have no rounding step and receive
        # nothing: the smallest non-zero rank sets the floor (else the mass would be followed
        # down through the subnormals, ~3e5 supersteps).
        ar = xp.abs(res.rank)
        smallest = float(xp.where(ar > 0, ar, xp.inf).min()) if n else 0.0
        floor = smallest * float(np.finfo(np.dtype(dtype)).eps) / 4 if np.isfinite(smallest) else 0.0
        if resid < floor:
            break
        if left <= 0:
            raise ConvergenceError(f"pagerank(variant='hpgraph') did not converge: vertices "
                                   f"still changed by more than tol={tol} after "
                                   f"max_iter={max_iter} supersteps; raise max_iter or tol")
        if progress.update(resid) == _iterate.STALLED:
            raise ConvergenceError(
                f"pagerank(variant='hpgraph') stopped converging: the pending L1 change has not "
                f"gone below {progress.best:.3g} in {_HPGRAPH_CHUNK} supersteps, so no vertex "
                f"reaches |pend| <= tol={tol} (damping=1 on a cycle, or the rounding level of "
                f"the dtype); raise tol or lower damping")
        rank, pend = res.rank, res.pend
    x = (res.rank + res.pend).astype(dtype, copy=False)
    return x, steps, resid


# ---------------------------------------------------------------------------------------------
# public


def pagerank(G, damping=0.85, tol=1e-6, max_iter=100, personalization=None, nstart=None,
             dangling=None, weighted=False, *, variant="power", dtype=np.float64,
             return_info=False, backend=None, to=None):
    """PageRank of every vertex.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Directed or undirected (an undirected edge is a link both ways).  Self-loops are links
        (as in networkx); repeated entries count as parallel links (networkx multigraphs).
    damping : float in [0, 1], default 0.85
        networkx's ``alpha``: the probability of following a link.  (The paper's ``d`` is
        ``1 - damping``; see the module docstring.)
    tol : float, default 1e-6
        ``variant="power"`` (default): stop when the L1 change of an iteration,
        ``||x_k - x_(k-1)||_1``, is below ``tol`` -- the same bound at any size; the result is
        then within ``damping / (1 - damping) * tol`` (L1) of the exact vector (5.7e-6 with the
        defaults).  ``variant="networkx"``: networkx's rule, L1 change below ``n * tol`` (a
        mean change per vertex: on a large graph it stops after a few iterations, far from
        the converged vector).  ``variant="hpgraph"``: a vertex is converged while its pending
        change is at most ``tol``; with a ``tol`` below the dtype's rounding level (``tol=0``)
        the run also ends once the whole pending mass is too small to change any rank.
    max_iter : int, default 100
        Iterations (SpMVs) at most; :class:`~hpgraph.exceptions.ConvergenceError` after.
        With ``variant="power"`` and ``damping <= 0.85``, 100 iterations always reach
        ``tol >= 1e-6`` (the change shrinks by ``damping`` per iteration from at most 2).
        Any size is accepted (no memory grows with it), and every run ends in bounded time
        (:mod:`hpgraph.algorithms._iterate`): an iteration that leaves the ranks bit-for-bit
        unchanged is a fixed point and ends the run as converged (so ``tol=0`` returns the
        floating-point fixed point), and a change that stops shrinking (100 iterations without
        a new minimum; at ``damping=1``, ``max(1000, 2n)`` or a window of as many that does
        not halve it; 1000 supersteps for "hpgraph")
        raises ConvergenceError at once instead of running ``max_iter`` iterations.
    personalization, nstart, dangling : dict {vertex: value} or array of length n, optional
        networkx's meanings (normalised to sum 1; missing dict keys are 0): the teleport
        distribution (default uniform), the starting vector (default uniform) and where a
        dangling vertex's rank goes (default: ``personalization``).  The hpgraph variant takes
        only ``nstart`` (initial ranks, not normalised; default 1.0).
    weighted : bool, default False
        Use edge weights (networkx's ``weight="weight"``): links are followed in proportion to
        their weight.  Default: every stored edge weighs 1 (networkx's ``weight=None``).
        Weights must be non-negative.
    variant : {"power", "networkx", "hpgraph"}
        "power" and "networkx" run networkx's power iteration (the same vector, with the
        stopping rules of ``tol``); "hpgraph" is the paper's Eq. (2) (module docstring).
    dtype : numpy float dtype, default float64
        Rank dtype (float32 halves the memory traffic; float64 matches networkx to ~1e-12).
    return_info : bool, default False
        Also return a :class:`PageRankInfo` (iterations run, final residual, error bound).
    backend : {"auto", "cpu", "gpu", None}
    to : {None, "numpy", "cupy"}
        Where the result goes (default: the input's side).

    Returns
    -------
    array of ``dtype``, length n
        Or ``(ranks, PageRankInfo)`` with ``return_info=True``.

    Raises
    ------
    ConvergenceError
        Not converged within ``max_iter`` iterations, or the change stopped shrinking above
        the tolerance (see ``max_iter``).
    InvalidValue
        Bad ``damping``/``tol``/``max_iter``/``variant``; personalization (etc.) of the wrong
        length, with negative or non-finite values or a zero sum; negative weights with
        ``weighted=True``; personalization/dangling with the hpgraph variant.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.generators.path(3, directed=True, backend="cpu")
    >>> hp.pagerank(G, backend="cpu").round(4)
    array([0.1844, 0.3412, 0.4744])
    >>> x, info = hp.pagerank(G, return_info=True, backend="cpu")
    >>> info.residual < 1e-6
    True
    """
    if variant not in VARIANTS:
        raise InvalidValue(f"variant must be one of {VARIANTS}, got {variant!r}")
    _check_scalar("damping", damping, 0.0, 1.0)
    _check_scalar("tol", tol, 0.0)
    _check_scalar("max_iter", max_iter, 0, integer=True)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InvalidValue(f"dtype must be float32 or float64, got {dtype}")
    damping, tol, max_iter = float(damping), float(tol), int(max_iter)
    G, side, on_dev = prepare(G, backend)
    n = G.num_vertices

    def done(x, iterations, residual):
        x = finish(x, on_dev, to)
        if not return_info:
            return x
        if variant == "hpgraph":
            bound = float("nan")
        else:
            bound = damping / (1.0 - damping) * residual if damping < 1.0 else float("inf")
        return x, PageRankInfo(int(iterations), float(residual), bound)

    if variant == "hpgraph":
        if personalization is not None or dangling is not None:
            raise InvalidValue("pagerank(variant='hpgraph') is the paper's Eq. (2), which has no "
                               "personalization or dangling weights; use variant='power'")
        x0 = vertex_vector(nstart, n, "nstart", normalize=False)
        if n == 0:
            return done(G.xp.zeros(0, dtype=dtype), 0, 0.0)
        return done(*_hpgraph(G, side, damping, tol, max_iter, x0, weighted, dtype))
    p = vertex_vector(personalization, n, "personalization", normalize=True)
    x0 = vertex_vector(nstart, n, "nstart", normalize=True)
    dw = vertex_vector(dangling, n, "dangling", normalize=True)
    if dw is None:
        dw = p
    if n == 0:
        return done(G.xp.zeros(0, dtype=dtype), 0, 0.0)
    if variant == "networkx":
        thresh, rule = n * tol, f"L1 change < n*tol = {n * tol:g}"
    else:
        thresh, rule = tol, f"L1 change < tol = {tol:g}"
    return done(*_networkx(G, side, damping, thresh, max_iter, p, x0, dw, weighted, dtype, rule))
