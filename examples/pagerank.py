"""PageRank (the paper's section 4.3, in the usual normalised form) with a tolerance.

Every vertex sends ``rank / out_degree`` along its out-edges each superstep
(``gather_from = "all"``: skipping converged senders would drop their share), and
``rank = (1 - d) / n + d * y``.  Dangling vertices' rank is not redistributed (as in the
paper's formula), so ranks need not sum to 1 on graphs with sinks.  The run stops when no
rank moves by more than ``tolerance``.
"""

from __future__ import annotations

import numpy as np

import hpgraph as hp


class PageRank(hp.VertexProgram):
    edges = "in"
    properties = {"rank": "float64", "outdeg": "float64"}
    reduce = "plus"
    gather_from = "all"
    tolerance = {"rank": 1e-10}
    max_iterations = 500

    def __init__(self, damping=0.85):
        self.damping = float(damping)

    def init(self, graph, damping=None):
        if damping is not None:
            self.damping = float(damping)
        n = graph.num_vertices
        self.teleport = (1.0 - self.damping) / max(n, 1)
        deg = hp.backend.to_host(graph.out_degree).astype(np.float64)
        return {"rank": np.full(n, 1.0 / max(n, 1)), "outdeg": deg}

    def gather(self, src, edge, dst):
        return src.rank / src.outdeg

    def update(self, v, y):
        return {"rank": self.teleport + self.damping * y}


def pagerank_reference(A, damping=0.85, tol=1e-13, max_iter=10_000):
    """The same iteration in plain NumPy/SciPy (``A`` scipy sparse, ``A[i, j]`` = edge i -> j)."""
    import scipy.sparse as sp

    A = sp.csr_array(A)
    n = A.shape[0]
    A = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    deg = np.asarray(A.sum(axis=1)).ravel()
    r = np.full(n, 1.0 / max(n, 1))
    for _ in range(max_iter):
        share = np.divide(r, deg, out=np.zeros(n), where=deg > 0)
        new = (1 - damping) / n + damping * (A.T @ share)
        if np.max(np.abs(new - r), initial=0.0) <= tol:
            return new
        r = new
    return r
