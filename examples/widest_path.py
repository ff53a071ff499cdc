"""Widest (maximum-bottleneck) paths with a user-defined monoid, and a program whose gather
reads both endpoints' properties.
"""

from __future__ import annotations

import numpy as np

import hpgraph as hp


def _wider(a, b):
    return a if a > b else b


class WidestPath(hp.VertexProgram):
    """``width[v]`` = max over paths source -> v of the smallest edge weight on the path."""

    edges = "in"
    properties = {"width": ("float64", 0.0)}
    reduce = (_wider, 0.0)        # a user-defined monoid: (function, identity)
    apply_to = "received"

    def init(self, graph, source=0):
        w = np.zeros(graph.num_vertices)
        w[source] = np.inf
        return {"width": w}, [source]

    def gather(src, edge, dst):
        return min(src.width, edge)

    def update(v, y):
        return max(v.width, y)


class MinLabelBelow(hp.VertexProgram):
    """Connected-component-like labelling that only accepts labels from neighbours of lower
    rank: gather reads the sender's label and *both* endpoints' ranks."""

    edges = "all"
    properties = {"label": "int64", "rank": "int64"}
    reduce = "min"
    apply_to = "received"

    def init(self, graph, ranks=None):
        n = graph.num_vertices
        rank = np.arange(n, dtype=np.int64) if ranks is None else np.asarray(ranks, np.int64)
        return {"label": np.arange(n, dtype=np.int64), "rank": rank}

    def gather(src, edge, dst):
        return src.label if src.rank < dst.rank else 9223372036854775807

    def update(v, y):
        return {"label": min(v.label, y)}


def min_label_below_reference(n, src, dst, rank):
    """Plain Python fixed point of :class:`MinLabelBelow` (edges both ways)."""
    label = list(range(n))
    changed = True
    while changed:
        changed = False
        new = label[:]
        for a, b in zip(src, dst):
            for u, v in ((a, b), (b, a)):
                if rank[u] < rank[v] and label[u] < new[v]:
                    new[v] = label[u]
        if new != label:
            changed = True
            label = new
    return np.array(label, dtype=np.int64)
