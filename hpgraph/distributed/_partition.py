"""One worker's share of a :class:`~hpgraph.distributed.DistributedGraph` (a row range of
``A^T``), and how the row ranges are cut."""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue

__all__ = ["Partition", "split_rows"]


def split_rows(indptr, parts: int) -> np.ndarray:
    """Boundaries ``b`` (``parts + 1`` ints, ``b[0] = 0``, ``b[-1] = n``, strictly increasing)
    cutting the rows of ``indptr`` into ``parts`` contiguous ranges of about equal entry counts.

    Without entries the rows are split evenly.  Every range holds at least one row.
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    n = len(indptr) - 1
    nnz = int(indptr[-1]) if n >= 0 else 0
    if nnz == 0:
        cuts = (np.arange(1, parts, dtype=np.int64) * n) // parts
    else:
        targets = (np.arange(1, parts, dtype=np.float64) * nnz) / parts
        cuts = np.searchsorted(indptr, targets, side="left").astype(np.int64)
    b = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    for k in range(1, parts):  # at least one row per range, and room for the ranges after k
        b[k] = min(max(b[k], b[k - 1] + 1), n - (parts - k))
    return b


class Partition:
    """One worker's share: the in-edge rows ``[lo, hi)`` as a CSR of shape ``(hi - lo, n)``.

    Attributes
    ----------
    rank, size : int
        This partition's index and the partition count.
    lo, hi, n : int
    counts : tuple of int
        Rows of every partition (what an allgather assembles).
    matrix : CSR
        The in-edges; on the host, or on the worker's GPU after :meth:`placed`.
    directed, weighted : bool
    comm : tuple or None
        ``(epoch, NcclCollective)``: the GPU jobs' communicator, made by the first job and kept
        on the worker between jobs (a new one after a failed job; never pickled).
    cache : dict
        What jobs derive from the partition and reuse (PageRank's out-weights, BFS's degrees
        and level buffers); kept on the worker, never pickled.
    """

    def __init__(self, rank, bounds, matrix, directed, weighted):
        self.rank = int(rank)
        self.size = len(bounds) - 1
        self.lo, self.hi = int(bounds[rank]), int(bounds[rank + 1])
        self.n = int(bounds[-1])
        self.counts = tuple(int(c) for c in np.diff(bounds))
        self.matrix = matrix
        self.directed = bool(directed)
        self.weighted = bool(weighted)
        self.comm = None
        self.cache = {}

    def __getstate__(self):
        state = dict(self.__dict__)
        state["comm"] = None      # a communicator belongs to its worker process
        state["cache"] = {}       # what the worker's jobs derived (device buffers among them)
        return state

    @property
    def side(self) -> str:
        return "gpu" if self.matrix.on_device else "cpu"

    @property
    def xp(self):
        return self.matrix.xp

    def nbytes(self) -> int:
        m = self.matrix
        return int(sum(a.nbytes for a in (m.indptr, m.indices, m.values) if a is not None))

    def graph(self):
        """The whole graph as an ordinary :class:`~hpgraph.Graph` (one partition only: its
        matrix is all of ``A^T``); built once per worker and kept, so the single-partition
        path of a job runs the single-GPU algorithms on it."""
        if self.size != 1:
            raise InvalidValue(f"Partition.graph(): partition {self.rank} is one of {self.size}; "
                               "only a single partition holds the whole graph")
        G = getattr(self, "_graph", None)
        if G is None:
            from ..graph import Graph

            AT = self.matrix
            if self.directed:
                G = Graph._new(AT.transpose(), True, at=AT)
            else:
                G = Graph._new(AT, False)   # A^T is A
            self._graph = G
        return G

    def placed(self, side):
        """This partition with its matrix on ``side`` (run on the worker that keeps it)."""
        if side == "gpu" and not self.matrix.on_device:
            self.matrix = self.matrix.to_device()
        return self
