"""Whether an integer sequence is the degree sequence of a graph (simple, multi- or pseudograph).

A simple graph: the Erdős–Gallai inequalities
``sum(d[:k]) <= k (k - 1) + sum(min(d_i, k) for i >= k)`` (``d`` sorted decreasingly, every
``k``), all checked at once from one sort, the prefix sums and, per ``k``, the number of degrees
``>= k`` (a ``searchsorted``): O(n log n) with no loop over ``k``, the same code on NumPy and
CuPy.  Havel–Hakimi's test accepts exactly the same sequences.  A multigraph (parallel edges,
no self-loops): an even sum and no degree above half of it.  A pseudograph (self-loops too): an
even sum.  Negative degrees are never graphical.
"""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from ..exceptions import InvalidValue

__all__ = ["is_graphical"]

KINDS = ("simple", "multi", "pseudo")


def _erdos_gallai(xp, d):
    """True when the non-negative int64 sequence ``d`` (each < len(d)) is graphical."""
    d = xp.sort(d[d > 0])[::-1]
    n = int(d.shape[0])
    if n == 0:
        return True
    total = int(d.sum())
    if total % 2 or total > n * (n - 1):
        return False
    csum = xp.zeros(n + 1, dtype=np.int64)
    csum[1:] = xp.cumsum(d)
    k = xp.arange(1, n + 1, dtype=np.int64)
    ge = n - xp.searchsorted(d[::-1], k, side="left")      # how many degrees are >= k
    # sum(min(d_i, k) for i >= k): the degrees >= k among them count k, the rest themselves
    split = xp.maximum(k, ge)
    rhs = k * (k - 1) + k * xp.maximum(ge - k, 0) + (total - csum[split])
    return bool(xp.all(csum[1:] <= rhs))


def is_graphical(degrees, kind="simple", *, backend=None) -> bool:
    """Whether ``degrees`` is the degree sequence of a graph of the given kind.

    Parameters
    ----------
    degrees : 1-D array-like of int (NumPy, CuPy or a sequence)
        One degree per vertex, in any order.
    kind : {"simple", "multi", "pseudo"}, default "simple"
        ``"simple"``: no self-loops or parallel edges (Erdős–Gallai); ``"multi"``: parallel
        edges allowed; ``"pseudo"``: parallel edges and self-loops (a self-loop adds 2).
    backend : {None, "auto", "cpu", "gpu"}
        ``None``: the side of ``degrees`` (the GPU for a CuPy array, else the CPU).

    Returns
    -------
    bool
        True for an empty sequence.

    Raises
    ------
    InvalidValue
        ``degrees`` is not a 1-D integer sequence, or ``kind`` is unknown.

    Examples
    --------
    >>> import hpgraph as hp
    >>> hp.is_graphical([3, 3, 3, 3]), hp.is_graphical([3, 3, 1, 1])
    (True, False)
    >>> hp.is_graphical([3, 3, 1, 1], kind="multi"), hp.is_graphical([3, 1], kind="pseudo")
    (True, True)
    """
    if kind not in KINDS:
        raise InvalidValue(f"kind must be one of {KINDS}, got {kind!r}")
    on_dev = _backend.is_device_array(degrees)
    side = _backend.resolve(backend if backend is not None else ("gpu" if on_dev else "cpu"),
                            degrees if on_dev else None)
    xp = _backend.cupy() if side == "gpu" else np
    d = degrees if on_dev else np.asarray(degrees)
    if d.ndim != 1 or (d.shape[0] and d.dtype.kind not in "iub"):
        raise InvalidValue(f"degrees must be a 1-D integer sequence, got shape {d.shape} and "
                           f"dtype {d.dtype}")
    d = xp.asarray(d).astype(np.int64)
    if d.shape[0] == 0:
        return True
    if bool((d < 0).any()):
        return False
    total = int(d.sum())
    if kind == "pseudo":
        return total % 2 == 0
    if kind == "multi":
        return total % 2 == 0 and 2 * int(d.max()) <= total
    if bool((d >= d.shape[0]).any()):
        return False
    return _erdos_gallai(xp, d)
