"""Widest (maximum-bottleneck) paths: the max_min semiring as a vertex program.

``width[v]`` is the largest, over paths from a source to ``v``, of the smallest edge weight on
the path (its capacity).  Every vertex gathers ``min(width[u], w(u, v))`` from its active
in-neighbours, reduces with ``max`` and keeps the larger width; a vertex whose width grows is
active in the next superstep.  Monotone and bounded by the edge weights, so it terminates for
any weights (no analogue of a negative cycle).

Conventions: the sources get ``+inf`` (the empty path has no bottleneck), unreachable vertices
``-inf`` (the identity of ``max``: "no path", distinct from a path of capacity 0, which zero or
negative weights make possible).  Unweighted graphs have capacity 1 on every edge.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..program import Seeded, VertexProgram
from ._common import check_sources, finish, prepare
from ._sssp import _program, check_weights, distance_dtype, tight_bfs_parents

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


def _widest_class(dtype):
    class WidestPath(VertexProgram):
        """width[v] = max(width[v], max over active in-neighbours u of min(width[u], w(u, v)))."""

        edges = "in"
        properties = {"width": (dtype, -np.inf)}
        reduce = "max"
        edge_dtype = dtype
        y_dtype = dtype
        apply_to = "received"  # update(v, -inf) == v

        def init(self, graph, width0=None, active=None):
            return {"width": width0}, active

        def gather(src, edge, dst):
            return min(src.width, edge)

        def update(v, y):
            return max(v.width, y)

    WidestPath.__name__ = WidestPath.__qualname__ = f"WidestPath_{np.dtype(dtype).name}"
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
        Also compute a widest-path tree (a BFS over the tight edges); False leaves
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
    xp = G.xp
    dt = distance_dtype(G)
    prog = _program(_WP, _widest_class, dt)
    # -inf everywhere, inf at the sources: a rule the GPU engine writes in its setup launch
    res = run(prog, G, backend=side, width0=Seeded(-np.inf, np.inf), active=np.unique(sources))
    width = res.width
    # tight edges: min(width[u], w) == width[v], from a reached u.  Following them back from any
    # reachable v reaches a source (induction on width, descending), so a BFS over them from the
    # sources yields a widest-path tree.
    pred = None
    if predecessors:
        pred = tight_bfs_parents(
            G, sources, side,
            lambda wu, w, wv: (xp.minimum(wu, w) == wv) & (wu > -np.inf), width, dt)
    return WidestPathResult(finish(width, on_dev, to), finish(pred, on_dev, to))
