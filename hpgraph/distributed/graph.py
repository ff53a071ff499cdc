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
from ._partition import Partition, split_rows

__all__ = ["DistributedGraph", "Partition", "split_rows"]


def _partition_workers(cluster, num_partitions, how):
    """The workers of ``num_partitions`` partitions (default: every worker), checked."""
    workers = cluster.check()
    P = len(workers) if num_partitions is None else num_partitions
    if isinstance(P, bool) or not isinstance(P, (int, np.integer)) or not 1 <= P <= len(workers):
        raise InvalidValue(f"DistributedGraph.{how}: num_partitions must be an int in "
                           f"[1, {len(workers)}] (one partition per worker), got {P!r}")
    return workers[:int(P)]


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
        from ._chunked import build_partition

        if not callable(make_chunks):
            raise InvalidValue("DistributedGraph.from_chunks: make_chunks must be a callable "
                               f"returning a chunk source, got {type(make_chunks).__name__}")
        workers = _partition_workers(cluster, num_partitions, "from_chunks")
        P = len(workers)
        client = cluster.client
        futures = [client.submit(build_partition, r, P, make_chunks, bool(directed), duplicates,
                                 self_loops, cluster.backend, workers=[w],
                                 allow_other_workers=False, pure=False)
                   for r, w in enumerate(workers)]
        return cls._from_partitions(cluster, futures, workers, directed,
                                    "make_chunks() does not give the same chunks everywhere")

    @classmethod
    def _from_partitions(cls, cluster, futures, workers, directed, why):
        """A DistributedGraph of partitions built on their workers (``futures``)."""
        from ._chunked import partition_meta

        client = cluster.client
        metas = client.gather([client.submit(partition_meta, f, workers=[w], pure=False)
                               for f, w in zip(futures, workers)])
        bounds = metas[0]["bounds"]
        if any(not np.array_equal(m["bounds"], bounds) for m in metas):
            client.cancel(futures)
            raise InvalidValue(f"DistributedGraph: the workers found different row ranges: {why}")
        self = cls.__new__(cls)
        self.cluster = cluster
        self.num_vertices = int(bounds[-1])
        self.num_edges = sum(m["nnz"] for m in metas)
        self.directed = bool(directed)
        self.weighted = bool(metas[0]["weighted"])
        self.dtype = metas[0]["dtype"] if self.weighted else None
        self.num_partitions = len(futures)
        self.negative_weights = any(m["negative"] for m in metas)
        self.bounds = np.asarray(bounds, dtype=np.int64)
        self.partition_edges = np.array([m["nnz"] for m in metas], dtype=np.int64)
        self.workers = list(workers)
        self.backend = cluster.backend
        self.partition_bytes = np.array([m["nbytes"] for m in metas], dtype=np.int64)
        self._futures = list(futures)
        self.comm_epoch = 0
        return self

    @classmethod
    def from_dask(cls, cluster, edges, *, source="source", destination="destination",
                  weight=None, num_vertices=None, directed=True, duplicates="min",
                  self_loops="keep", num_partitions=None):
        """Partition the graph of a Dask dataframe or of Dask arrays of edges.

        The collection is computed on the cluster's workers and its pieces move between
        workers to the partition that stores them (:mod:`._dask_input`); nothing passes
        through the client.

        Parameters
        ----------
        cluster : Cluster
        edges : dask.dataframe.DataFrame, or tuple of dask.array.Array
            A dataframe with the columns named by ``source``, ``destination`` (and
            ``weight``), or ``(src, dst)`` / ``(src, dst, weights)`` 1-D arrays of one length.
            Vertex ids are integers in ``[0, num_vertices)``.
        source, destination, weight : str
            Column names (dataframe only); ``weight=None``: unweighted.
        num_vertices : int, optional
            Default: the largest id + 1.
        directed, duplicates, self_loops
            :meth:`hpgraph.Graph.from_edges`'s meanings; the partitions equal the row slices
            of ``A^T`` of ``Graph.from_edges`` on the concatenated arrays (in partition order).
        num_partitions : int, optional
            Default: one per worker.

        Raises
        ------
        InvalidValue
            A bad argument, a missing column, non-integer or negative ids, ids past
            ``num_vertices``, or parts that disagree on weights.
        """
        from ..formats._build import SELF_LOOP_POLICIES
        from ..formats.coo import DUPLICATE_POLICIES
        from . import _dask_input as D

        if self_loops not in SELF_LOOP_POLICIES:
            raise InvalidValue(f"DistributedGraph.from_dask: self_loops must be one of "
                               f"{SELF_LOOP_POLICIES}, got {self_loops!r}")
        if duplicates not in DUPLICATE_POLICIES:
            raise InvalidValue(f"DistributedGraph.from_dask: duplicates must be one of "
                               f"{DUPLICATE_POLICIES}, got {duplicates!r}")
        workers = _partition_workers(cluster, num_partitions, "from_dask")
        P = len(workers)
        client = cluster.client
        parts = client.compute(D.edge_parts(edges, source, destination, weight))
        stats = client.gather([client.submit(D.part_stats, p, pure=False) for p in parts])
        weighted = {w for _, w, size in stats if size} or {weight is not None}
        if len(weighted) > 1:
            raise InvalidValue("DistributedGraph.from_dask: some parts have weights and others not")
        is_weighted = weighted.pop()
        top = max((t for t, _, _ in stats), default=-1)
        n = top + 1 if num_vertices is None else num_vertices
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < max(top + 1, P):
            raise InvalidValue(f"DistributedGraph.from_dask: num_vertices must be an int of at least "
                               f"{max(top + 1, P)} (the largest id + 1, and one vertex per "
                               f"partition), got {num_vertices!r}")
        drop = self_loops == "drop"
        counts = [client.submit(D.part_counts, p, int(n), bool(directed), drop, pure=False)
                  for p in parts]
        total = client.submit(D.sum_counts, *counts, pure=False)
        bounds = client.submit(D.bounds_of, total, P, pure=False)
        futures = []
        for r, w in enumerate(workers):
            pieces = [client.submit(D.part_slice, p, bounds, r, bool(directed), drop, pure=False)
                      for p in parts]
            futures.append(client.submit(D.build_from_slices, r, bounds, bool(directed), is_weighted,
                                         duplicates, cluster.backend, *pieces, workers=[w],
                                         allow_other_workers=False, pure=False))
        return cls._from_partitions(cluster, futures, workers, directed,
                                    "the edge collection changed while it was read")

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
