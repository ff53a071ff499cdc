"""When the iterative algorithms stop, whatever ``max_iter`` is.

PageRank, HITS, eigenvector and Katz centrality iterate a vector until its L1 change ``err``
is below a tolerance or ``max_iter`` iterations have run.  ``max_iter`` may be huge (``2**63``
is accepted), so two more rules end every run in bounded time, on both backends, without any
per-iteration storage (:class:`Progress` keeps three numbers):

* **fixed point**: an iteration that leaves the vector bit-for-bit unchanged (``err == 0``:
  a sum of absolute differences is zero only when every difference is) ends the run as
  converged, whatever ``tol`` -- the next iteration is the same function of the same vector,
  so no number of further iterations can change the result.  ``tol=0`` thus asks for the
  floating-point fixed point, which the power iterations reach in a few dozen to a few
  hundred iterations on the graphs tried (float64 and float32).
* **stall**: when ``err`` has not set a new minimum for ``window`` consecutive iterations, or
  (with ``shrink``) when a window of iterations has not cut the smallest change by the factor
  ``shrink``, the iteration has stopped making useful progress: it circles at the rounding
  level of its dtype, does not contract (a periodic graph at ``damping=1``), or converges so
  slowly (polynomially, on a defective matrix such as ``I + A^T`` of a path, where the change
  falls like ``1/k^2``) that the tolerance is out of reach.  The caller then raises
  :class:`~hpgraph.exceptions.ConvergenceError` naming the smallest change reached, rather
  than running ``max_iter`` iterations.  The windows and the factor are ``hp.config`` keys
  (``iterate_stall_contracting``, ``iterate_stall_general``, ``iterate_stall_shrink``; the
  numbers here are their defaults).  A window must halve the change (``shrink=0.5``) for
  the general iterations, so a run ends within about ``window * (1130 + log2(err_0))``
  iterations, whatever ``max_iter``.  For PageRank with ``damping < 1`` the exact iteration
  is a ``damping``-contraction in L1, ``err`` falls at every iteration until rounding takes
  over, so a 100-iteration window without a new minimum happens only at the rounding floor,
  and the floor is reached within about ``745 / (1 - damping)`` iterations (float64).
"""

from __future__ import annotations

from .._config import config


def contracting(thresh: float) -> "Progress":
    """A :class:`Progress` for a contracting iteration (PageRank with ``damping < 1``): the
    window is ``hp.config["iterate_stall_contracting"]`` iterations without a new minimum of
    the L1 change, after which the iteration is at its rounding floor."""
    return Progress(thresh, config["iterate_stall_contracting"])


def general(thresh: float, min_window: int = 0) -> "Progress":
    """A :class:`Progress` for an iteration that need not shrink the change at every step
    (eigenvector, Katz and HITS power iterations, PageRank with ``damping == 1``): a longer
    window, ``hp.config["iterate_stall_general"]`` iterations (at least ``min_window``), so a
    slow transient is not mistaken for a stall; each window must also cut the smallest change
    by ``hp.config["iterate_stall_shrink"]``."""
    return Progress(thresh, max(config["iterate_stall_general"], min_window),
                    config["iterate_stall_shrink"])


CONVERGED = "converged"
FIXED = "fixed point"
STALLED = "stalled"


class Progress:
    """Tracks the L1 changes of an iteration and says when it must stop.

    Parameters
    ----------
    thresh : float
        Converged when a change is below it.
    window : int
        Iterations without a new smallest change that count as a stall.
    shrink : float, optional
        Also a stall: a window of ``window`` iterations (counted from the first) after which
        the smallest change is above ``shrink`` times what it was one window before.

    Examples
    --------
    >>> p = Progress(1e-3, window=2)
    >>> [p.update(e) for e in (0.5, 0.6, 0.7)]
    [None, None, 'stalled']
    >>> Progress(0.0, window=2).update(0.0)
    'fixed point'
    >>> q = Progress(0.0, window=2, shrink=0.5)
    >>> [q.update(e) for e in (1.0, 0.9, 0.8, 0.7)]
    [None, None, None, 'stalled']
    """

    __slots__ = ("thresh", "window", "shrink", "best", "best_at", "count", "mark")

    def __init__(self, thresh: float, window: int, shrink: float | None = None):
        self.thresh = float(thresh)
        self.window = int(window)
        self.shrink = shrink
        self.best = float("inf")
        self.best_at = 0
        self.count = 0
        self.mark = float("inf")   # the smallest change one window ago

    def update(self, err: float) -> str | None:
        """Record the change of one more iteration: :data:`CONVERGED`, :data:`FIXED`,
        :data:`STALLED` or None (go on)."""
        self.count += 1
        if err < self.thresh:
            return CONVERGED
        if err == 0.0:
            return FIXED
        if err < self.best:
            self.best, self.best_at = err, self.count
        elif self.count - self.best_at >= self.window:
            return STALLED
        if self.shrink is not None and self.count % self.window == 0:
            if self.best > self.shrink * self.mark:
                return STALLED
            self.mark = self.best
        return None

    def stall_message(self, what: str, goal: str) -> str:
        """The ConvergenceError text for a stall of ``what`` (an algorithm's name) whose
        stopping rule ``goal`` (e.g. ``"L1 change < tol = 0"``) cannot be met."""
        return (f"{what} stopped converging: its L1 change has not gone below {self.best:.3g} "
                f"(reached at iteration {self.best_at}; {self.count} iterations run, windows of "
                f"{self.window}), "
                f"so its stopping rule ({goal}) cannot be met (the iteration is at the rounding "
                f"level of its dtype, does not contract on this graph, or converges too slowly); "
                f"raise tol so that "
                f"the rule holds at {self.best:.3g}")
