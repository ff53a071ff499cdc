"""``hp.run``: execute a vertex program on a graph (PREPROCESS -> SPMV -> APPLY supersteps).

Binds the program (:mod:`.bind`), then hands it to the CPU engine (:mod:`.cpu`) or the GPU
engine (:mod:`.gpu`) on the side the run takes.
"""

from __future__ import annotations

import time

from .. import backend as _backend
from .._config import config
from ..exceptions import InvalidValue
from . import common
from .bind import bind
from .program import DIRECTIONS
from .results import RunResult

__all__ = ["run"]

#: the values of ``hp.run(engine_loop=)`` (those of ``hp.config["engine_loop"]``)
LOOPS = ("auto", "device", "host")

def run(program, graph, *, backend=None, direction="auto", max_iterations=None,
        push_alpha=None, outputs=None, engine_loop=None, **params) -> RunResult:
    """Run a vertex program on a graph until no vertex is active (or ``max_iterations``).

    Parameters
    ----------
    program : VertexProgram subclass or instance
    graph : hp.Graph
        Any side; the run happens on ``backend``'s side (the graph is copied if needed).
    backend : {"auto", "cpu", "gpu", None}
        ``None``/``"auto"``: the GPU when usable (or when the graph lives there), else the CPU.
    direction : {"auto", "push", "pull"}
        Per-superstep choice of traversal.  ``"pull"``: every vertex scans its gather-side
        edges (rows of the pull matrix), inactive senders skipped through the x_bitmask;
        ``"push"``: active vertices scatter along their edges with atomic reduction (needs a
        monoid with an atomic form).  ``"auto"`` pushes while the frontier's edge count is
        small (``frontier_edges * push_alpha < pull_edges + n``).  All give the same result
        (floating-point sums may round differently on the GPU, where atomics reorder them).
    max_iterations : int, optional
        Overrides the program's ``max_iterations``.
    push_alpha : float, optional
        The direction heuristic's constant (default ``hp.config["push_alpha"]``; if that is
        None, :func:`hpgraph.engine.common.default_push_alpha` chooses by backend and program).
    outputs : sequence of str, optional
        The properties the caller will read (default: all).  Only these are returned; the GPU
        engine neither copies nor hands over the others (saves a copy of ``n`` values per
        property and call).
    engine_loop : {"auto", "device", "host"}, optional
        The GPU superstep loop for this call (default ``hp.config["engine_loop"]``): a call's
        own choice, where setting the process-wide key would also change concurrent calls.
        Ignored on the CPU.
    **params
        Passed to the program's ``init``.

    Returns
    -------
    RunResult
        Properties (NumPy or CuPy arrays, on the run's side) and statistics.

    Raises
    ------
    InvalidProgram, UnsupportedSyntax, UdfTypeError
        A malformed program (missing reduce, unknown property, bad callback syntax or types).
    InvalidValue
        Bad ``direction``/``max_iterations``/parameters; ``direction="push"`` with a monoid
        that has no atomic form or with ``gather_from="all"``.
    SuperstepLimitExceeded
        A program without ``max_iterations`` still had active vertices after
        ``hp.config["max_supersteps"]`` supersteps (default ``10 * n + 1000``).
    """
    if direction not in DIRECTIONS:
        raise InvalidValue(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    if engine_loop is not None and engine_loop not in LOOPS:
        raise InvalidValue(f"engine_loop must be one of {LOOPS} or None, got {engine_loop!r}")
    if push_alpha is None:
        push_alpha = config["push_alpha"]
    if push_alpha is not None and (isinstance(push_alpha, bool) or not isinstance(
            push_alpha, (int, float)) or not push_alpha > 0):
        raise InvalidValue(f"push_alpha must be a positive number, got {push_alpha!r}")
    side = _backend.resolve(backend, _graph_probe_array(graph))
    t0 = time.perf_counter()
    g = graph.to_device() if side == "gpu" else graph.to_host()
    bp = bind(program, g, params, max_iterations, outputs)
    if bp.max_iterations is None:
        cap = config["max_supersteps"]
        bp.superstep_cap = 10 * int(g.num_vertices) + 1000 if cap is None else cap
    if push_alpha is None:
        push_alpha = common.default_push_alpha(bp, side)
    if direction == "push":
        if bp.monoid.atomic is None:
            raise InvalidValue(f"direction='push' needs a monoid with an atomic form; "
                               f"{bp.monoid!r} has none (8/16-bit or bool dtype): use 'pull' "
                               "or 'auto'")
        if bp.gather_from == "all":
            raise InvalidValue(f"{bp.name}.gather_from='all' sends from every vertex every "
                               "superstep, which is a pull; direction='push' is not available")
    if side == "gpu":
        from . import gpu

        res = gpu.execute(bp, g, direction=direction, push_alpha=float(push_alpha), t_start=t0,
                          loop=engine_loop)
    else:
        from . import cpu

        res = cpu.execute(bp, g, direction=direction, push_alpha=float(push_alpha), t_start=t0)
    if config["trace"]:
        _trace(bp, res)
    return res


def _trace(bp, res):
    """Log a run's supersteps (``hp.config["trace"]``) to the "hpgraph.engine" logger."""
    import logging

    log = logging.getLogger("hpgraph.engine")
    loop = res.extra.get("loop", "host") if res.backend == "gpu" else "cpu"
    log.info("run %s on %s (%s loop): %d supersteps, %.3f ms loop, %.3f ms setup%s", bp.name,
             res.backend, loop, res.supersteps, res.time * 1e3, res.setup_time * 1e3,
             f", fallback: {res.extra['loop_fallback']}" if "loop_fallback" in res.extra else "")
    step_ms = res.extra.get("step_ms") or [None] * res.supersteps
    for i, (a, d, e, ms) in enumerate(zip(res.active, res.directions, res.frontier_edges,
                                          step_ms)):
        log.info("  superstep %d: %s, frontier %d vertices (%s), %d frontier edges%s", i, d, a,
                 "queue" if d == "push" else "bitmap", e,
                 "" if ms is None else f", {ms * 1e3:.1f} us on the GPU")


def _graph_probe_array(graph):
    """An array of ``graph`` that says which side it lives on (for backend="auto")."""
    try:
        return graph.A.indptr
    except Exception:
        return None

