"""Widest (maximum-bottleneck) paths: the max_min semiring as a vertex program.

``width[v]`` is the largest, over paths from a source to ``v``, of the smallest edge weight on
the path (its capacity).  Every vertex gathers ``min(width[u], w(u, v))`` from its active
in-neighbours, reduces with ``max`` and keeps the larger width; a vertex whose width grows is
active in the next superstep.  Monotone and bounded by the edge weights, so it terminates for
any weights (no analogue of a negative cycle).

The program declares ``priority = "width"`` with ``priority_order = "max"`` (the engine runs
the widest vertices first, in near-far buckets, as Dijkstra-like orderings do) and ``witness =
"pred"`` (the engine records the in-neighbour whose bottleneck won: a widest-path tree; a
witness's value was final before the vertex's last change, so the tree has no cycle).  Both
are engine features any user program can declare; this module adds no kernel.

Conventions: the sources get ``+inf`` (the empty path has no bottleneck), unreachable vertices
``-inf`` (the identity of ``max``: "no path", distinct from a path of capacity 0, which zero or
negative weights make possible).  Unweighted graphs have capacity 1 on every edge.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..program import Seeded, VertexProgram
from ._common import check_sources, finish, prepare, vertex_id_dtype
from ._sssp import _program, check_weights, distance_dtype

__all__ = ["widest_path", "WidestPathResult"]


class WidestPathResult(NamedTuple):
    """Result of :func:`widest_path`.

    Attributes
    ----------
    width : array of float32 or float64 (the dtype rule of :func:`hpgraph.sssp`)
        Bottleneck capacity of a widest path from the sources; ``+inf`` at the sources,
        ``-inf`` where unreachable.
    predecessor : array of int32 (int64 when vertex ids need it)
        The vertex before ``v`` on a widest path (a tree rooted at the sources); -1 at the
        sources and where unreachable.
    """

    width: Any
    predecessor: Any


def _widest_class(dtype, id_dtype=None):
    """The program for widths of ``dtype``; with ``id_dtype``, predecessors as its witness."""

    class WidestPath(VertexProgram):
        """width[v] = max(width[v], max over active in-neighbours u of min(width[u], w(u, v)))."""

        edges = "in"
        properties = {"width": (dtype, -np.inf)}
        reduce = "max"
        edge_dtype = dtype
        y_dtype = dtype
        apply_to = "received"  # update(v, -inf) == v
        priority = "width"
        priority_order = "max"

        def init(self, graph, width0=None, active=None):
            return {"width": width0}, active

        def gather(src, edge, dst):
            return min(src.width, edge)

        def update(v, y):
            return {"width": max(v.width, y)}

    name = f"WidestPath_{np.dtype(dtype).name}"
    if id_dtype is not None:
        WidestPath = type(name, (WidestPath,), {
            "properties": {"width": (dtype, -np.inf), "pred": (id_dtype, -1)},
            "witness": "pred", "__module__": __name__})
    WidestPath.__name__ = WidestPath.__qualname__ = name
    return WidestPath


_WP = {}


def widest_path(G, source, *, predecessors=True, backend=None, to=None):
    """Maximum-bottleneck path capacities (and a widest-path tree) from ``source``.

    Parameters
    ----------
    G : hpgraph.Graph (or scipy/cupyx sparse matrix, networkx graph)
        Edge ``u -> v`` of capacity ``A[u, v]`` (unweighted: 1).
    source : int or sequence of int
        Source vertex, or several (width from the best source).
    predecessors : bool, default True
        Also compute a widest-path tree (the engine's winner witnesses); False leaves
        ``predecessor`` None.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    WidestPathResult
        ``(width, predecessor)``: ``+inf`` at the sources, ``-inf`` where unreachable.

    Raises
    ------
    IndexOutOfBound
        A source outside ``[0, n)``.
    InvalidGraph
        NaN edge weights.
    """
    from ..program import run

    G, side, on_dev = prepare(G, backend)
    sources = check_sources(G, source)
    check_weights(G, "widest_path")
    dt = distance_dtype(G)
    ids = vertex_id_dtype(G.num_vertices) if predecessors else None
    prog = _program(_WP, _widest_class, dt, ids)
    # -inf everywhere, inf at the sources: a rule the GPU engine writes in its setup launch
    res = run(prog, G, backend=side, width0=Seeded(-np.inf, np.inf), active=np.unique(sources),
              outputs=("width", "pred") if predecessors else ("width",))
    pred = res.pred if predecessors else None
    return WidestPathResult(finish(res.width, on_dev, to), finish(pred, on_dev, to))
