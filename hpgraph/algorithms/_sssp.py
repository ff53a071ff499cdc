"""Single-source shortest paths: Bellman-Ford with active sets, as a vertex program.

The paper's Algorithm 1: every vertex gathers ``dist[u] + w(u, v)`` over its in-edges from the
*active* senders (those whose distance dropped in the previous superstep), reduces with ``min``
and keeps the smaller distance; a vertex whose distance drops is active in the next superstep.
:func:`hpgraph.run` picks push (sparse frontier, atomic min) or pull (HYB SpMV with the
x_bitmask) per superstep, so small frontiers cost little.

Predecessors are recovered after the distances, from the *tight* edges
(``dist[u] + w == dist[v]``): first one engine superstep keeps, for every vertex, a tight
in-neighbour with a strictly smaller distance (enough whenever weights are positive); when some
reachable vertex has none (zero or negative weights, where tight edges can form cycles) a BFS
over the tight edges from the sources gives a shortest-path tree instead.

Negative weights are allowed; a negative cycle reachable from a source raises
:class:`~hpgraph.exceptions.NegativeCycleError` (detected as "still improving after ``n``
supersteps": a shortest path has at most ``n - 1`` edges).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..exceptions import InvalidGraph, NegativeCycleError
from ..program import VertexProgram
from ._common import check_sources, finish, prepare

__all__ = ["sssp", "SSSPResult", "distance_dtype"]


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


def _bellman_ford_class(dtype):
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
            return min(v.dist, y)

    BellmanFord.__name__ = BellmanFord.__qualname__ = f"BellmanFord_{np.dtype(dtype).name}"
    return BellmanFord


def _tight_pred_class(dtype, idt):
    class TightPredecessor(VertexProgram):
        """One superstep: pred[v] = a tight in-neighbour u with dist[u] < dist[v], else -1."""

        edges = "in"
        properties = {"dist": (dtype, np.inf), "vid": (idt, 0), "pred": (idt, -1)}
        reduce = "max"
        edge_dtype = dtype
        y_dtype = idt
        gather_from = "all"
        apply_to = "all"
        max_iterations = 1

        def init(self, graph, dist=None, vid=None):
            return {"dist": dist, "vid": vid}, "all"

        def gather(src, edge, dst):
            return src.vid if (src.dist + edge == dst.dist) and (src.dist < dst.dist) else -1

        def update(v, y):
            return {"pred": max(y, -1)}

    TightPredecessor.__name__ = TightPredecessor.__qualname__ = \
        f"TightPredecessor_{np.dtype(dtype).name}_{np.dtype(idt).name}"
    return TightPredecessor


_BF = {}
_TP = {}


def _program(table, factory, *key):
    cls = table.get(key)
    if cls is None:
        cls = table[key] = factory(*key)
    return cls


def sssp(G, source, *, predecessors=True, backend=None, to=None):
    """Shortest path lengths (and a shortest-path tree) from ``source``.

    Parameters
    ----------
    G : hpgraph.Graph (or scipy/cupyx sparse matrix, networkx graph)
        Edge ``u -> v`` of weight ``A[u, v]``; an unweighted graph has weights 1.  Stored zero
        weights are edges.  Negative weights are allowed.
    source : int or sequence of int
        Source vertex (several sources: distance to the nearest one).
    predecessors : bool, default True
        Also compute the shortest-path tree (one more superstep, sometimes a BFS over the tight
        edges); False leaves ``predecessor`` None.
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
    InvalidGraph
        NaN edge weights.
    NegativeCycleError
        A negative-weight cycle is reachable from a source.
    """
    G, side, on_dev = prepare(G, backend)
    sources = check_sources(G, source)
    check_weights(G, "sssp")
    dist, pred = _sssp_arrays(G, sources, side, predecessors)
    return SSSPResult(finish(dist, on_dev, to), finish(pred, on_dev, to))


def check_weights(G, who):
    """Reject NaN weights (InvalidGraph)."""
    A = G.A
    vals = getattr(A, "values", None)
    if not G.weighted or vals is None or np.dtype(vals.dtype).kind != "f" or A.nnz == 0:
        return
    xp = G.xp
    bad = xp.isnan(vals)
    if bool(bad.any()):
        pos = int(xp.argmax(bad))
        rows = A.row_ids() if hasattr(A, "row_ids") else None
        where = f" (edge {int(rows[pos])} -> {int(A.indices[pos])})" if rows is not None else ""
        raise InvalidGraph(f"{who}: edge weights must not be NaN; stored entry {pos}{where} is NaN. "
                           "Drop or replace NaN weights before calling it.")


def _index_dtype(n):
    return np.dtype(np.int64) if n >= 2**31 - 1 else np.dtype(np.int32)


def _sssp_arrays(G, sources, side, predecessors=True):
    from ..program import run

    xp = G.xp
    n = int(G.num_vertices)
    dt = distance_dtype(G)
    idt = _index_dtype(n)
    dist0 = xp.full(n, np.inf, dtype=dt)
    src = xp.asarray(np.unique(sources))
    dist0[src] = 0
    prog = _program(_BF, _bellman_ford_class, dt)
    res = run(prog, G, backend=side, max_iterations=max(n, 1), dist0=dist0, active=np.unique(sources))
    if not res.converged:
        raise NegativeCycleError(
            f"sssp: a negative-weight cycle is reachable from source {_fmt_sources(sources)} "
            f"(distances still decrease after {n} supersteps); shortest paths are undefined")
    dist = res.dist
    pred = tight_predecessors(G, dist, sources, side, dt, idt) if predecessors else None
    return dist, pred


def _fmt_sources(sources):
    s = np.unique(sources)
    return str(int(s[0])) if s.size == 1 else str(s.tolist())


def tight_predecessors(G, dist, sources, side, dt, idt):
    """Shortest-path tree from distances: one engine superstep, a tight-edge BFS if needed."""
    from ..program import run

    xp = G.xp
    n = int(G.num_vertices)
    vid = xp.arange(n, dtype=idt)
    prog = _program(_TP, _tight_pred_class, dt, idt)
    res = run(prog, G, backend=side, dist=dist, vid=vid)
    pred = res.pred
    src = xp.asarray(np.unique(sources))
    pred[src] = -1
    reach = xp.isfinite(dist)
    reach[src] = False
    if bool((reach & (pred < 0)).any()):
        pred = tight_bfs_parents(G, sources, side, lambda du, w, dv: (du + w == dv) & xp.isfinite(du),
                                 dist, dt)
    return pred


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
    counts = xp.bincount(kept_rows, minlength=n) if kept_rows.shape[0] else xp.zeros(n, dtype=np.int64)
    indptr = xp.zeros(n + 1, dtype=A.indptr.dtype)
    indptr[1:] = xp.cumsum(counts)
    At = CSR._new(indptr, xp.ascontiguousarray(cols[keep]), None, (n, n))
    _, parent, _ = bfs_arrays(G, sources, side=side, A=At)
    src = xp.asarray(np.unique(sources))
    parent[src] = -1
    return parent
