"""A graph split over the workers of a Dask cluster: 1D partitioning by destination rows.

Partition ``r`` holds the in-edges of the contiguous vertex range ``[lo_r, hi_r)``: rows
``lo_r..hi_r-1`` of ``A^T`` as an ordinary hpgraph :class:`~hpgraph.formats.CSR` of shape
``(hi_r - lo_r, n)`` (column ``u`` of row ``v - lo_r`` is the edge ``u -> v``).  The ranges
are cut so that each holds about ``nnz / P`` edges.  A superstep then computes the rows of its
range with :func:`hpgraph.mxv` over the global vector and allgathers the new slices
(:mod:`.algorithms`).  Partitions are built on the client from a Graph (or edge arrays, or
edge files, through :meth:`hpgraph.Graph.from_edges` / :func:`hpgraph.read`) and sent once to
their workers, where they stay (on the worker's GPU for ``backend="gpu"``).
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue, WorkerLost

__all__ = ["DistributedGraph", "Partition", "split_rows"]


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

    def __getstate__(self):
        state = dict(self.__dict__)
        state["comm"] = None      # a communicator belongs to its worker process
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


def _place(part, side):
    return part.placed(side)


def _edges_of(graph):
    """Row, column and value arrays (host) of a Graph's stored entries."""
    A = graph.A
    rows = np.repeat(np.arange(A.nrows, dtype=np.int64), np.diff(np.asarray(A.indptr)))
    vals = None if A.values is None else np.asarray(A.values)
    return rows, np.asarray(A.indices, dtype=np.int64), vals


class DistributedGraph:
    """A graph partitioned over a :class:`~hpgraph.distributed.Cluster`'s workers.

    Parameters
    ----------
    cluster : Cluster
    graph : Graph, or anything :class:`hpgraph.Graph` accepts (scipy sparse matrix, ...)
        Read on the client, split, and sent to the workers (a device graph is copied to the
        host first; each GPU worker moves its partition to its device).
    num_partitions : int, optional
        Default: one per worker.  At most the worker count and the vertex count.

    Attributes
    ----------
    num_vertices, num_edges, num_partitions : int
    directed, weighted : bool
    dtype : numpy dtype or None
        The edge weights' dtype (None: unweighted).
    negative_weights : bool
        Some edge weight is negative.
    bounds : ndarray of int64
        ``num_partitions + 1`` row boundaries: partition r holds vertices
        ``bounds[r]..bounds[r+1]-1``.
    partition_edges : ndarray of int64
        In-edges held by each partition.
    partition_bytes : ndarray of int64
        Bytes of each partition's CSR arrays.
    workers : list of str
        The worker of each partition.
    comm_epoch : int
        Raised after a failed job, so that the next job makes new GPU communicators.

    Raises
    ------
    InvalidValue
        ``num_partitions`` not a positive int, above the vertex count or the worker count.
    ClusterError, VersionMismatch, DeviceUnavailable
        From :meth:`Cluster.check`.
    """

    def __init__(self, cluster, graph, *, num_partitions=None):
        from ..graph import Graph

        workers = cluster.check()
        G = graph if isinstance(graph, Graph) else Graph(graph)
        if G.on_device:
            G = G.to_host()
        n = int(G.num_vertices)
        P = len(workers) if num_partitions is None else num_partitions
        if isinstance(P, bool) or not isinstance(P, (int, np.integer)) or P < 1:
            raise InvalidValue(f"DistributedGraph: num_partitions must be a positive int, got {P!r}")
        P = int(P)
        if P > n:
            raise InvalidValue(f"DistributedGraph: num_partitions ({P}) is larger than the vertex "
                               f"count ({n}); every partition needs at least one vertex")
        if P > len(workers):
            raise InvalidValue(f"DistributedGraph: num_partitions ({P}) is larger than the worker "
                               f"count ({len(workers)}); one partition per worker")
        self.cluster = cluster
        self.num_vertices = n
        self.num_edges = int(G.num_edges)
        self.directed = bool(G.directed)
        self.weighted = bool(G.weighted)
        self.dtype = G.dtype if self.weighted else None
        self.num_partitions = P
        vals = G.A.values
        self.negative_weights = bool(self.weighted and G.num_edges and (np.asarray(vals) < 0).any())
        AT = G.AT
        indptr = np.asarray(AT.indptr)
        self.bounds = split_rows(indptr, P)
        self.partition_edges = np.diff(indptr[self.bounds]).astype(np.int64)
        self.workers = list(workers[:P])
        self.backend = cluster.backend
        parts = [self._slice(AT, r) for r in range(P)]
        self.partition_bytes = np.array([p.nbytes() for p in parts], dtype=np.int64)
        client = cluster.client
        self._futures = []
        self.comm_epoch = 0
        for part, w in zip(parts, self.workers):
            sent = client.scatter(part, workers=[w], hash=False)
            self._futures.append(client.submit(_place, sent, self.backend, workers=[w],
                                               allow_other_workers=False, pure=False))
            del sent
        client.gather(self._futures)  # partitions placed (device copies made) before any job

    def _slice(self, AT, r):
        from ..formats import CSR

        lo, hi = int(self.bounds[r]), int(self.bounds[r + 1])
        ip = np.asarray(AT.indptr)
        s, e = int(ip[lo]), int(ip[hi])
        vals = None if AT.values is None else np.array(AT.values[s:e])
        m = CSR((ip[lo: hi + 1] - s).astype(ip.dtype), np.array(AT.indices[s:e]), vals,
                shape=(hi - lo, self.num_vertices))
        return Partition(r, self.bounds, m, self.directed, self.weighted)

    # -- other sources -------------------------------------------------------------------

    @classmethod
    def from_chunks(cls, cluster, make_chunks, *, directed=True, duplicates="min",
                    self_loops="keep", num_partitions=None):
        """Partition a graph that each worker builds from the same chunks of edges.

        No edge crosses the network: every worker calls ``make_chunks()`` and keeps the rows of
        its range (see :mod:`hpgraph.distributed._chunked`), so the graph never exists whole on
        one device or on the client -- the way to run a graph larger than one GPU.

        Parameters
        ----------
        cluster : Cluster
        make_chunks : callable
            Picklable, no arguments; returns a chunk source as
            :meth:`hpgraph.Graph.from_edges` takes it (a callable iterating ``(src, dst,
            weights)`` chunks, the same on every call) with a ``num_vertices`` attribute, e.g.
            ``functools.partial(hp.generators.rmat_chunks, 26, seed=1, backend="gpu")``.  It
            must give the same chunks on every worker.
        directed, duplicates, self_loops
            :meth:`hpgraph.Graph.from_edges`'s meanings; the partitions equal the row slices of
            ``A^T`` of the graph ``Graph.from_edges(make_chunks(), ...)`` builds.
        num_partitions : int, optional
            Default: one per worker.

        Raises
        ------
        InvalidValue
            A bad argument, a chunk source without ``num_vertices``, ids out of range, or
            partitions that disagree on their row ranges (the chunks differ between workers).
        """
        from ._chunked import build_partition, partition_meta

        if not callable(make_chunks):
            raise InvalidValue("DistributedGraph.from_chunks: make_chunks must be a callable "
                               f"returning a chunk source, got {type(make_chunks).__name__}")
        workers = cluster.check()
        P = len(workers) if num_partitions is None else num_partitions
        if isinstance(P, bool) or not isinstance(P, (int, np.integer)) or not 1 <= P <= len(workers):
            raise InvalidValue("DistributedGraph.from_chunks: num_partitions must be an int in "
                               f"[1, {len(workers)}] (one partition per worker), got {P!r}")
        P = int(P)
        client = cluster.client
        futures = [client.submit(build_partition, r, P, make_chunks, bool(directed), duplicates,
                                 self_loops, cluster.backend, workers=[w],
                                 allow_other_workers=False, pure=False)
                   for r, w in enumerate(workers[:P])]
        metas = client.gather([client.submit(partition_meta, f, workers=[w], pure=False)
                               for f, w in zip(futures, workers[:P])])
        bounds = metas[0]["bounds"]
        if any(not np.array_equal(m["bounds"], bounds) for m in metas):
            client.cancel(futures)
            raise InvalidValue("DistributedGraph.from_chunks: the workers found different row "
                               "ranges: make_chunks() does not give the same chunks everywhere")
        self = cls.__new__(cls)
        self.cluster = cluster
        self.num_vertices = int(bounds[-1])
        self.num_edges = sum(m["nnz"] for m in metas)
        self.directed = bool(directed)
        self.weighted = bool(metas[0]["weighted"])
        self.dtype = metas[0]["dtype"] if self.weighted else None
        self.num_partitions = P
        self.negative_weights = any(m["negative"] for m in metas)
        self.bounds = np.asarray(bounds, dtype=np.int64)
        self.partition_edges = np.array([m["nnz"] for m in metas], dtype=np.int64)
        self.workers = list(workers[:P])
        self.backend = cluster.backend
        self.partition_bytes = np.array([m["nbytes"] for m in metas], dtype=np.int64)
        self._futures = futures
        self.comm_epoch = 0
        return self

    @classmethod
    def from_edges(cls, cluster, src, dst, weights=None, num_vertices=None, directed=True, *,
                   duplicates="min", self_loops="keep", num_partitions=None):
        """Partition the graph of an edge list (:meth:`hpgraph.Graph.from_edges`'s meanings)."""
        from ..graph import Graph

        G = Graph.from_edges(src, dst, weights, num_vertices, directed, duplicates, "cpu",
                             self_loops=self_loops)
        return cls(cluster, G, num_partitions=num_partitions)

    @classmethod
    def from_files(cls, cluster, paths, *, directed=True, weighted=None, duplicates="min",
                   num_vertices=None, num_partitions=None):
        """Partition the union of the edges of several graph files (:func:`hpgraph.read`).

        The files share one vertex numbering (ids as written, no relabelling); ``directed``
        applies to all of them.  Duplicate edges across files combine by ``duplicates``.
        """
        from ..io import read

        if isinstance(paths, (str, bytes)) or not hasattr(paths, "__iter__"):
            paths = [paths]
        paths = list(paths)
        if not paths:
            raise InvalidValue("DistributedGraph.from_files: paths is empty")
        chunks = []
        for path in paths:
            g = read(path, directed=True, weighted=weighted, backend="cpu")
            chunks.append(_edges_of(g))
        has_w = [c[2] is not None for c in chunks]
        if any(has_w) and not all(has_w):
            raise InvalidValue("DistributedGraph.from_files: some files have weights and others "
                               "do not; pass weighted=False to drop them")
        src = np.concatenate([c[0] for c in chunks])
        dst = np.concatenate([c[1] for c in chunks])
        w = np.concatenate([c[2] for c in chunks]) if all(has_w) else None
        n = num_vertices
        if n is None:
            n = max(int(g_n) for g_n in (0, *(int(c[0].max()) + 1 for c in chunks if len(c[0])),
                                         *(int(c[1].max()) + 1 for c in chunks if len(c[1]))))
        return cls.from_edges(cluster, src, dst, w, n, directed, duplicates=duplicates,
                              num_partitions=num_partitions)

    # -- state ---------------------------------------------------------------------------

    def check_alive(self):
        """Raise :class:`WorkerLost` if a partition's worker has left the cluster."""
        if self._futures is None:
            raise WorkerLost("this DistributedGraph was released (a worker was lost, or "
                             "release() was called); build it again")
        now = set(self.cluster.workers)
        gone = [w for w in self.workers if w not in now]
        if gone or any(f.status in ("lost", "error", "cancelled") for f in self._futures):
            self.release()
            raise WorkerLost(f"the workers {gone} holding partitions of this graph are gone; "
                             "build the DistributedGraph again on the cluster's workers")

    @property
    def futures(self) -> list:
        """The Dask futures of the placed partitions (one per worker)."""
        self.check_alive()
        return list(self._futures)

    def release(self):
        """Free the partitions on the workers."""
        if self._futures:
            try:
                self.cluster.client.cancel(self._futures)
            except Exception:  # noqa: BLE001 - a closed client has nothing left to free
                pass
        self._futures = None

    def __repr__(self):
        return (f"DistributedGraph(n={self.num_vertices}, edges={self.num_edges}, "
                f"partitions={self.num_partitions}, backend={self.backend!r})")
