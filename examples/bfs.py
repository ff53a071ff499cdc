"""Breadth-first search depth (the paper's equation (1)) as a vertex program.

``depth(v) = min over in-neighbours u of depth(u) + 1``; the frontier is the last level.  A
vertex is reached once: the first non-infinite depth is final, so each edge is gathered from
at most once per direction choice.
"""

from __future__ import annotations

import numpy as np

import hpgraph as hp

UNREACHED = np.iinfo(np.int32).max


class BFSDepth(hp.VertexProgram):
    edges = "in"
    properties = {"depth": ("int32", UNREACHED)}
    reduce = "min"
    apply_to = "received"         # min(depth, INT_MAX) == depth

    def init(self, graph, source=0):
        depth = np.full(graph.num_vertices, UNREACHED, dtype=np.int32)
        depth[source] = 0
        return {"depth": depth}, [source]

    def gather(src, edge, dst):
        return src.depth + 1

    def update(v, y):
        return min(v.depth, y)


class BFSParents(hp.VertexProgram):
    """Depths and parents: the winner of each vertex's reduction is its parent (``witness``).

    ``any`` stops a pull row at the first active in-neighbour (Beamer's bottom-up step), and
    ``mask`` keeps visited vertices from receiving at all -- every active vertex among them,
    which ``mask_excludes_active`` declares: the GPU then runs each push superstep as one
    launch (the first parent to reach a vertex updates it at once)."""

    edges = "in"
    properties = {"depth": ("int32", -1), "parent": ("int64", -1)}
    reduce = "any"
    apply_to = "received"
    witness = "parent"
    mask_excludes_active = True

    def init(self, graph, source=0):
        return {"depth": hp.Seeded(-1, 0), "parent": hp.Seeded(-1, "id")}, [int(source)]

    def mask(v):
        return v.depth < 0

    def gather(src, edge, dst):
        return src.depth + 1

    def update(v, y):
        return {"depth": y if v.depth < 0 else v.depth}


def bfs_depth(graph, source=0, **run_kw):
    """Depths (int32; ``-1`` for unreached), NumPy or CuPy like the run."""
    d = hp.run(BFSDepth, graph, source=source, **run_kw).depth
    xp = hp.backend.get_array_module(d)
    return xp.where(d == UNREACHED, -1, d)
