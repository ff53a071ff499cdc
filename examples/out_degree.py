"""Out-degree with one SPMV: the HPGraph paper's Figure 1.

``y = A x`` with ``x`` all ones: every vertex gathers over its out-edges (rows of ``A``) the
value 1 and adds them up.  One superstep: afterwards nothing changes any more... except that
a vertex whose degree differs from the initial 0 is "changed" and active; the second superstep
recomputes the same degrees, nothing changes, and the run stops.  ``max_iterations = 1`` makes
it the single SPMV of the figure.
"""

from __future__ import annotations

import hpgraph as hp


class OutDegree(hp.VertexProgram):
    edges = "out"                 # y[v] = sum over out-neighbours u of gather(...)
    properties = {"degree": "int64"}
    reduce = "plus"
    max_iterations = 1            # one generalized SpMV, as in Figure 1

    def gather(src, edge, dst):
        return 1                  # x = all ones (counts duplicate-free stored edges)

    def update(v, y):
        return y


class WeightedOutDegree(OutDegree):
    """Sum of out-edge weights (the ``A x`` of the figure with the stored values)."""

    properties = {"degree": "float64"}

    def gather(src, edge, dst):
        return edge


def out_degree(graph, **run_kw):
    return hp.run(OutDegree, graph, **run_kw).degree
