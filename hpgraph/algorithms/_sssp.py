"""Single-source shortest paths: near-far buckets or Bellman-Ford with active sets.

Two methods (``method=`` of :func:`sssp`):

* ``"near-far"`` (Davidson et al., IPDPS 2014): a near queue of the vertices below a moving
  threshold is relaxed by push with ``atomicMin``; improvements beyond the threshold wait in a
  far pile that is split by the next threshold (``+ delta``) when the near queue empties.
  Work stays close to Dijkstra's on high-diameter graphs, where Bellman-Ford keeps
  re-relaxing a wide band of vertices: on the 2048 x 2048 grid with weights 1..64,
  Bellman-Ford runs 4,317 supersteps with up to 246k active vertices.  Needs non-negative
  weights.  On the CPU a vectorised NumPy loop.  On the GPU, chosen by
  :func:`gpu_nearfar_impl`: :mod:`._sssp_gpu` runs the whole search *and* the predecessors
  in one cooperative launch (dense graphs: R-MAT 21 2.07 ms with predecessors against 3.28 for
  the engine program, one H100: a kept kernel), and on sparse, long-path graphs the engine
  runs it as a vertex program (:func:`_near_far_class`: Bellman-Ford below with ``priority =
  "dist"``, the engine's near-far buckets and relaxation, its device loop; the 2048 x 2048
  grid in 39.2 ms with predecessors on an H100, where the single launch pays about 15 us per
  step for its 4,910 steps).
* ``"bellman-ford"``: the engine vertex program below; any weights, detects negative cycles.

The rule of ``method="auto"`` (:func:`choose_method`): Bellman-Ford when a stored weight is
negative, else near-far.  Near-far won on every graph measured: on the CPU (2 cores: grid
512 x 512 weights 1..64 119 vs 1,043 ms, unweighted 60 vs 186 ms, R-MAT 17 189 vs 260 ms,
Erdos-Renyi 200k / 1M 121 vs 203 ms) and on the GPU (H200, integer weights 1..64, with
predecessors: grid 2048^2 34.2 vs 383.5 ms; R-MAT 21 1.79 vs 5.14 ms; R-MAT 22 4.06 vs
10.5 ms).

Bellman-Ford is the paper's Algorithm 1: every vertex gathers ``dist[u] + w(u, v)`` over its
in-edges from the *active* senders (those whose distance dropped in the previous superstep),
reduces with ``min`` and keeps the smaller distance; a vertex whose distance drops is active in
the next superstep.
:func:`hpgraph.run` picks push (sparse frontier, atomic min) or pull (HYB SpMV with the
x_bitmask) per superstep, so small frontiers cost little.

Predecessors are recovered after the distances, from the *tight* edges
(``dist[u] + w == dist[v]``): first one pass over the stored edges keeps, for every vertex, the
largest tight in-neighbour with a strictly smaller distance (one CUDA kernel on the GPU,
:func:`._sssp_nearfar.tight_parents`; enough whenever weights are positive); when some
reachable vertex has none (zero or negative weights, where tight edges can form cycles, or a
weight too small to change a large distance in floating point) a BFS over the tight edges from
the sources gives a shortest-path tree instead.

Negative weights are allowed; a negative cycle reachable from a source raises
:class:`~hpgraph.exceptions.NegativeCycleError` (detected as "still improving after ``n``
supersteps": a shortest path has at most ``n - 1`` edges).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, NamedTuple

import numpy as np

from ..exceptions import InvalidGraph, InvalidValue, NegativeCycleError
from .._config import config
from ..program import VertexProgram
from . import _scipy_cpu
from ._common import check_sources, finish, kernel_or_engine, prepare, vertex_id_dtype
from .._arrayops import any_true, bincount

__all__ = ["sssp", "SSSPResult", "distance_dtype", "METHODS", "choose_method"]

#: Accepted values of ``sssp(method=...)``.
METHODS = ("auto", "bellman-ford", "near-far")

class SSSPResult(NamedTuple):
    """Result of :func:`sssp`.

    Attributes
    ----------
    distance : array of float32 or float64 (see :func:`distance_dtype`)
        Length of a shortest path from the nearest source; ``inf`` where unreachable; 0 at the
        sources.
    predecessor : array of int32 (int64 when vertex ids need it)
        The vertex before ``v`` on a shortest path (the predecessors form a tree rooted at the
        sources); -1 at the sources and where unreachable.  (scipy uses -9999 instead of -1.)
    """

    distance: Any
    predecessor: Any


def distance_dtype(G) -> np.dtype:
    """dtype of path lengths on ``G``: float32 for float32 (and smaller) weights and for
    unweighted graphs, float64 for float64 and 32/64-bit integer weights (exact sums)."""
    dt = getattr(G, "dtype", None)
    if dt is None or not getattr(G, "weighted", True):
        return np.dtype(np.float32)
    dt = np.dtype(dt)
    if dt.kind == "f":
        return np.dtype(np.float64) if dt.itemsize >= 8 else np.dtype(np.float32)
    return np.dtype(np.float64) if dt.itemsize >= 4 else np.dtype(np.float32)


def _bellman_ford_class(dtype, id_dtype=None):
    """Bellman-Ford with a frontier for distances of ``dtype``; with ``id_dtype``, the
    predecessors as the engine's winner witness (a shortest-path tree: a witness's distance
    was final before the vertex's last change, so the tree has no cycle)."""

    class BellmanFord(VertexProgram):
        """dist[v] = min(dist[v], min over active in-neighbours u of dist[u] + w(u, v))."""

        edges = "in"
        properties = {"dist": (dtype, np.inf)}
        reduce = "min"
        edge_dtype = dtype
        y_dtype = dtype
        apply_to = "received"  # update(v, +inf) == v: untouched vertices are skipped

        def init(self, graph, dist0=None, active=None):
            return {"dist": dist0}, active

        def gather(src, edge, dst):
            return src.dist + edge

        def update(v, y):
            return {"dist": min(v.dist, y)}

    name = f"BellmanFord_{np.dtype(dtype).name}"
    if id_dtype is not None:
        BellmanFord = type(name, (BellmanFord,), {
            "properties": {"dist": (dtype, np.inf), "pred": (id_dtype, -1)},
            "witness": "pred", "__module__": __name__})
    BellmanFord.__name__ = BellmanFord.__qualname__ = name
    return BellmanFord


_BF = {}


def _program(table, factory, *key):
    cls = table.get(key)
    if cls is None:
        cls = table[key] = factory(*key)
    return cls


def sssp(G, source, *, predecessors=True, method="auto", delta=None, backend=None, to=None):
    """Shortest path lengths (and a shortest-path tree) from ``source``.

    Parameters
    ----------
    G : hpgraph.Graph (or scipy/cupyx sparse matrix, networkx graph)
        Edge ``u -> v`` of weight ``A[u, v]``; an unweighted graph has weights 1.  Stored zero
        weights are edges.  Negative weights are allowed.
    source : int or sequence of int
        Source vertex (several sources: distance to the nearest one).
    predecessors : bool, default True
        Also compute the shortest-path tree (one more pass over the edges, sometimes a BFS over
        the tight edges); False leaves ``predecessor`` None.
    method : {"auto", "bellman-ford", "near-far"}
        ``"near-far"``: bucketed push relaxations (non-negative weights only); ``"bellman-ford"``:
        the engine's active-set Bellman-Ford (any weights, negative cycles detected);
        ``"auto"``: Bellman-Ford if any stored weight is negative, else near-far.  All give the
        same distances (up to float rounding order); predecessors may differ where several
        shortest paths exist (each is a valid shortest-path tree).
    delta : float, optional
        Near-far bucket width (> 0; ``inf`` puts every improvement in the near queue).  Default:
        Davidson's rule with a wider factor, ``hp.config["sssp_delta_factor"] * mean weight /
        mean out-degree``.  Ignored by Bellman-Ford.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}
        Where the result arrays live (default: the side of the input graph).

    Returns
    -------
    SSSPResult
        ``(distance, predecessor)``; distances are float32 for float32 (or unweighted) graphs
        and float64 for float64 / integer weights (:func:`distance_dtype`).

    Raises
    ------
    IndexOutOfBound
        A source outside ``[0, n)``.
    InvalidValue
        ``method`` not in :data:`METHODS`, ``delta`` not a positive number, or
        ``method="near-far"`` on a graph with a negative weight.
    InvalidGraph
        NaN edge weights.
    NegativeCycleError
        A negative-weight cycle is reachable from a source.
    """
    check_method(method, delta)
    G, side, on_dev = prepare(G, backend)
    sources = check_sources(G, source)
    check_weights(G, "sssp")
    from ._sssp_nearfar import weight_stats

    dt = distance_dtype(G)
    if (side == "cpu" and method == "auto" and _scipy_cpu.usable(G)
            and (dt == np.float64 or not G.weighted) and not weight_stats(G)[0]):
        # SciPy's Dijkstra: the same float64 distances, or whole hop counts (:mod:`._scipy_cpu`)
        dist, pred = _scipy_cpu.sssp_scipy(G, sources, dt, vertex_id_dtype(G.num_vertices),
                                           predecessors)
    else:
        dist, pred = _sssp_arrays(G, sources, side, predecessors, method=method, delta=delta)
    return SSSPResult(finish(dist, on_dev, to), finish(pred, on_dev, to))


def check_method(method, delta):
    """Validate ``method`` and ``delta`` (InvalidValue)."""
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidValue(f"sssp: method must be one of {', '.join(map(repr, METHODS))}, "
                           f"got {method!r}")
    if delta is not None:
        ok = isinstance(delta, Real) and not isinstance(delta, bool) and float(delta) > 0
        if not ok or math.isnan(float(delta)):
            raise InvalidValue(f"sssp: delta (near-far bucket width) must be a number > 0 "
                               f"(or inf), got {delta!r}")


def choose_method(G, side, method="auto"):
    """The method :func:`sssp` runs on ``side``: ``"bellman-ford"`` or ``"near-far"`` (the
    ``"auto"`` rule is in the module docstring).

    Raises InvalidValue for ``"near-far"`` on a graph with a negative stored weight.
    """
    from ._sssp_nearfar import weight_stats

    if method == "bellman-ford":
        return method
    negative, _ = weight_stats(G)
    if method == "near-far":
        if negative:
            raise InvalidValue("sssp: method='near-far' needs non-negative weights and this graph "
                               "has a negative one; use method='bellman-ford' (or 'auto')")
        return method
    if negative:
        return "bellman-ford"
    return "near-far"


def gpu_nearfar_impl(G) -> str:
    """Which GPU near-far runs on ``G``: ``"kernel"`` (:mod:`._sssp_gpu`, one cooperative
    launch) or ``"engine"`` (the engine program of :func:`_near_far_class`);
    ``hp.config["sssp_gpu_nearfar"]`` decides, ``"auto"`` by the mean out-degree
    (``hp.config["sssp_gpu_kernel_degree"]``)."""
    return kernel_or_engine(G, config["sssp_gpu_nearfar"], config["sssp_gpu_kernel_degree"])


def check_weights(G, who):
    """Reject NaN weights (InvalidGraph)."""
    A = G.A
    vals = getattr(A, "values", None)
    if not G.weighted or vals is None or np.dtype(vals.dtype).kind != "f" or A.nnz == 0:
        return
    xp = G.xp
    # one pass and one host read per graph, not per call (the graph's weights do not change)
    if G.derived("hpg.weights_have_nan", lambda: any_true(xp, xp.isnan(vals))):
        pos = int(xp.argmax(xp.isnan(vals)))
        rows = A.row_ids() if hasattr(A, "row_ids") else None
        where = f" (edge {int(rows[pos])} -> {int(A.indices[pos])})" if rows is not None else ""
        raise InvalidGraph(f"{who}: edge weights must not be NaN; stored entry {pos}{where} is NaN. "
                           "Drop or replace NaN weights before calling it.")


def _sssp_arrays(G, sources, side, predecessors=True, method="auto", delta=None, info=None):
    """``(dist, pred or None)`` on ``side``; ``info`` (a dict) receives the method and, for
    near-far, its step counts."""
    n = int(G.num_vertices)
    dt = distance_dtype(G)
    idt = vertex_id_dtype(n)
    how = choose_method(G, side, method)
    if info is not None:
        info["method"] = how
    if how == "near-far":
        from . import _sssp_nearfar as nf

        d = nf.default_delta(G) if delta is None else float(delta)
        if side == "gpu" and gpu_nearfar_impl(G) == "kernel":
            from ._coop import CooperativeLaunchRefused
            from ._sssp_gpu import sssp_gpu

            try:
                dist, pred, missing = sssp_gpu(G, sources, dt, idt, d, predecessors)
            except CooperativeLaunchRefused:
                pass
            else:
                if info is not None:
                    info.update(impl="kernel", delta=d)
                if missing:   # zero-weight ties: a shortest-path tree over the tight edges
                    pred = tight_bfs_parents(G, sources, side, _tight_edge(G.xp), dist, dt)
                return dist, pred
        if side == "gpu":
            dist, stats = _near_far_engine(G, sources, dt, d)
        else:
            dist, stats = nf.near_far_cpu(G, sources, dt, d)
        if info is not None:
            info.update(stats, impl="engine" if side == "gpu" else "numpy")
    else:
        return _bellman_ford(G, sources, side, dt, idt if predecessors else None)
    pred = tight_predecessors(G, dist, sources, side, dt, idt) if predecessors else None
    return dist, pred


def _bellman_ford(G, sources, side, dt, idt=None):
    """``(dist, pred or None)`` by the engine's Bellman-Ford (``pred``: its witness)."""
    from ..program import Seeded, run

    n = int(G.num_vertices)
    prog = _program(_BF, _bellman_ford_class, dt, idt)
    # inf everywhere, 0 at the sources: a rule the GPU engine writes in its setup launch
    res = run(prog, G, backend=side, max_iterations=max(n, 1),
              push_alpha=config["sssp_bf_push_alpha"],
              dist0=Seeded(np.inf, 0), active=np.unique(sources))
    if not res.converged:
        raise NegativeCycleError(
            f"sssp: a negative-weight cycle is reachable from source {_fmt_sources(sources)} "
            f"(distances still decrease after {n} supersteps); shortest paths are undefined")
    return res.dist, (res.pred if idt is not None else None)


def _near_far_class(dtype, delta):
    """Bellman-Ford ordered by distance on the engine: near-far buckets of width ``delta``
    (``priority = "dist"``); ``delta = inf`` (every improvement near) is Bellman-Ford itself.
    Non-negative weights only: no superstep limit, so the engine relaxes
    (:mod:`hpgraph.engine.relax`)."""
    base = _program(_BF, _bellman_ford_class, dtype, None)
    if math.isinf(delta):
        return base
    name = base.__name__.replace("BellmanFord", "NearFar")
    # a width below the dtype's smallest normal number would round to 0 on the device
    delta = max(float(delta), float(np.finfo(dtype).tiny))
    cls = type(name, (base,), {"priority": "dist", "priority_delta": delta,
                               "__module__": __name__})
    cls.__qualname__ = name
    return cls


_NF: dict = {}


def _near_far_engine(G, sources, dt, delta):
    """``(dist, info)``: near-far on the device graph ``G`` as the engine program of
    :func:`_near_far_class`, on the engine's device loop (sparse, long-path graphs: on the
    2048 x 2048 grid the user program of the same kind, ``examples.sssp.SSSPNearFar``, takes
    37.5 ms there against 55.5 on the host loop, one H100)."""
    from ..program import Seeded, run

    if len(_NF) > 64:               # one class per (dtype, delta): bounded
        _NF.clear()
    prog = _program(_NF, _near_far_class, np.dtype(dt), float(delta))
    res = run(prog, G, backend="gpu", engine_loop="device", dist0=Seeded(np.inf, 0),
              active=np.unique(sources))
    return res.dist, {"supersteps": res.supersteps, "delta": delta,
                      "loop": res.extra.get("loop")}


def _fmt_sources(sources):
    s = np.unique(sources)
    return str(int(s[0])) if s.size == 1 else str(s.tolist())


def tight_predecessors(G, dist, sources, side, dt, idt):
    """Shortest-path tree from distances: one pass over the edges, a tight-edge BFS if needed."""
    from ._sssp_nearfar import tight_parents

    xp = G.xp
    pred = tight_parents(G, dist, idt)
    src = xp.asarray(np.unique(sources))
    pred[src] = -1
    reach = xp.isfinite(dist)
    reach[src] = False
    if any_true(xp, reach & (pred < 0)):
        pred = tight_bfs_parents(G, sources, side, _tight_edge(xp), dist, dt)
    return pred


def _tight_edge(xp):
    """The tight-edge test of the shortest-path tree: ``dist[u] + w == dist[v]``, u reached."""
    return lambda du, w, dv: (du + w == dv) & xp.isfinite(du)


def tight_bfs_parents(G, sources, side, tight, value, dt):
    """BFS parents over the edges ``u -> v`` with ``tight(value[u], w, value[v])`` (sources: -1).

    The filtered adjacency matrix is built with vectorised array operations and traversed by
    :func:`hpgraph.algorithms._bfs.bfs_arrays` (top-down: tight edges are few).
    """
    from ..formats import CSR
    from ._bfs import bfs_arrays

    xp = G.xp
    A = G.A
    n = int(G.num_vertices)
    rows = A.row_ids()
    cols = A.indices
    if getattr(A, "values", None) is None or not G.weighted:
        w = xp.ones(1, dtype=dt)
    else:
        w = A.values.astype(dt, copy=False)
    with np.errstate(invalid="ignore", over="ignore"):
        keep = tight(value[rows], w, value[cols])
    kept_rows = rows[keep]
    counts = bincount(xp, kept_rows, minlength=n) if kept_rows.shape[0] else xp.zeros(n, dtype=np.int64)
    indptr = xp.zeros(n + 1, dtype=A.indptr.dtype)
    indptr[1:] = xp.cumsum(counts)
    At = CSR._new(indptr, xp.ascontiguousarray(cols[keep]), None, (n, n))
    _, parent, _ = bfs_arrays(G, sources, side=side, A=At)
    src = xp.asarray(np.unique(sources))
    parent[src] = -1
    return parent
