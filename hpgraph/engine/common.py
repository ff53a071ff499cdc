"""Pieces shared by the CPU and GPU engines: matrix choice, direction rule, change test."""

from __future__ import annotations

import math

import numpy as np

from .. import backend as _backend

#: Indices of the GPU engine's device state words (``templates/engine.cu``: S_*); the words,
#: ST_WORDS of them, are followed by the superstep history ring.
S_HALT, S_EXEC, S_STEP, S_CNT, S_EDG, S_TCNT, S_DONE, S_HCNT = 0, 1, 2, 3, 5, 7, 8, 9
S_FARCNT, S_FARPEND = 11, 14
S_REACHED = 20
ST_WORDS = 32


def matrix_names(edges: str):
    """``[(pull, push), ...]`` Graph matrix names (``"A"``/``"AT"``) for ``edges``, one pair per
    gather side.

    ``"in"``: receiver ``v`` gathers over its in-edges ``u -> v``: pull rows of ``A^T``, push
    from ``u`` along row ``u`` of ``A``.  ``"out"``: over out-edges ``v -> u``: pull rows of
    ``A``, push along rows of ``A^T``.  ``"all"``: both pairs, "in" first.
    """
    if edges == "in":
        return [("AT", "A")]
    if edges == "out":
        return [("A", "AT")]
    return [("AT", "A"), ("A", "AT")]


def matrices(graph, edges: str):
    """The CSR pairs of :func:`matrix_names` for ``edges`` on ``graph``."""
    return [(getattr(graph, pull), getattr(graph, push)) for pull, push in matrix_names(edges)]


def choose_push(frontier_edges: int, pull_edges: int, n: int, alpha: float) -> bool:
    """Beamer's rule generalised: push while the frontier's edges are few.

    A pull superstep reads every stored entry of the pull matrix and applies to every vertex
    (``pull_edges + n``); a push superstep touches only the frontier's edges, at a higher
    cost per edge (random atomics): ``alpha`` is that cost ratio.  A general program has no
    "unexplored" set, so the total stands in for Beamer's unexplored-edge count.
    """
    return frontier_edges * alpha < pull_edges + n


def default_push_alpha(bp, side) -> float:
    """The direction rule's constant when neither the call nor ``hp.config["push_alpha"]``
    gives one.

    On the GPU a push that records no receivers (``hp.config["engine_track_edges"]``) costs
    about what a pull costs per edge, so a pull pays off only when it can skip work: an
    ``any`` reduce stops at the first active sender and a mask skips receivers (4, as
    before); other programs' pulls read every stored entry (1).  Measured on an H100, R-MAT 21
    (``benchmarks/README.md``, session 15): the README SSSP 5.7 -> 4.1-4.6 ms, BFS depths
    3.6-3.8 -> 2.4-2.8 ms with 1, while BFS with parents (``any`` and a mask) took 1.1-1.2 ms
    with 4 and 2.1-2.9 ms with 1.  On the CPU pushes cost more per edge than pulls (R-MAT
    18, 2-core host: the README SSSP 0.26 s with 4, 0.32 s with 1; BFS with parents 0.08 s
    with 4, 0.27 s with 1): 4.
    """
    if side == "gpu" and not (bp.monoid.terminal_any or bp.kernels.mask is not None):
        return 1.0
    return 4.0


def np_changed(new, old, tol):
    """Per-vertex "changed" test (the GPU's APPLY kernel computes exactly this).

    Exact (``tol`` None): ``new != old`` with NaN equal to NaN.  With a tolerance:
    ``|double(new) - double(old)| > tol``, or one of them NaN and the other not.
    """
    new = np.asarray(new)
    old = np.asarray(old)
    if tol is None:
        if new.dtype.kind == "f" or old.dtype.kind == "f":
            return (new != old) & ~(np.isnan(new) & np.isnan(old))
        return new != old
    a = new.astype(np.float64)
    b = old.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        return (np.abs(a - b) > tol) | (np.isnan(a) != np.isnan(b))


def host(a):
    return np.asarray(_backend.to_host(a))


def readonly(props: dict) -> dict:
    """Read-only views of host arrays (device arrays are returned as they are)."""
    out = {}
    for k, v in props.items():
        if isinstance(v, np.ndarray):
            v = v.view()
            v.flags.writeable = False
        out[k] = v
    return out


def priority_threshold(best, delta, descending):
    """The near-far threshold after a split: ``best + delta`` (``best - delta`` for "max"
    order) in the property's dtype, saturating at the dtype's bounds for integers (the GPU's
    ``hp_far_take`` computes exactly this)."""
    best = np.asarray(best)
    dt = best.dtype
    if dt.kind in "iu":
        info = np.iinfo(dt)
        b, d = int(best), int(delta)
        return dt.type(max(info.min, b - d) if descending else min(info.max, b + d))
    return (best - dt.type(delta)) if descending else (best + dt.type(delta))


def cap_message(bp, steps):
    """The message of :class:`~hpgraph.exceptions.SuperstepLimitExceeded`."""
    return (f"vertex program {bp.name} still had active vertices after {steps} supersteps "
            f"(the safety cap hp.config['max_supersteps']; default 10 * n + 1000); a program "
            f"that never settles (an update that keeps changing values) loops forever: fix its "
            f"update, give it max_iterations (run(..., max_iterations=k) stops with "
            f"converged=False), or raise the cap with hp.config.set(max_supersteps=...)")


def push_limit(nnz_pull, n, alpha):
    """The largest frontier edge count for which :func:`.choose_push` says push (the
    device-side form of the direction rule; exact, not a float approximation)."""
    c = max(0, math.ceil((nnz_pull + n) / alpha) - 1)
    while c > 0 and not choose_push(c, nnz_pull, n, alpha):
        c -= 1
    while choose_push(c + 1, nnz_pull, n, alpha):
        c += 1
    return c
