"""Partitions built on the workers from chunks of edges (no edge list crosses the network).

Every worker calls the same zero-argument factory, which returns a chunk source: a callable
whose calls iterate the same ``(src, dst, weights)`` chunks, with ``num_vertices`` (what
:func:`hpgraph.generators.rmat_chunks` returns, or any object like it).  Each worker then

1. counts the entries of every row of ``A^T`` (in-edges; both directions of an undirected
   edge, a self-loop once) over all chunks, and cuts the rows into ``P`` ranges of about equal
   entry counts with :func:`~hpgraph.distributed.graph.split_rows` -- the counts are exact
   integers, so every worker finds the same ranges;
2. builds its range's rows with the chunked CSR build (:mod:`hpgraph.formats._build`), from
   the entries of each chunk whose row falls in its range, in the order the whole-graph build
   sees them (the two directions of an undirected edge interleaved), so duplicate policies
   combine the same values as :meth:`hpgraph.Graph.from_edges` does.

A partition thus equals the slice ``[lo, hi)`` of ``A^T`` of the graph ``Graph.from_edges``
builds from the same chunks, without that graph ever existing on one device.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue
from .._arrayops import bincount

__all__ = ["build_partition", "partition_meta"]


def _xp(side):
    if side == "gpu":
        import cupy

        return cupy
    return np


def _entries(xp, u, v, w, directed, drop_loops):
    """Rows and columns of ``A^T`` (and values) one chunk stores, in the build's order."""
    from ..formats._chunks import _side

    u, v = _side(xp, u).astype(np.int64), _side(xp, v).astype(np.int64)
    w = None if w is None else _side(xp, w)
    if drop_loops:
        keep = u != v
        u, v = u[keep], v[keep]
        w = None if w is None else w[keep]
    if directed:
        return v, u, w                      # row of A^T: the destination
    r = xp.stack([u, v], axis=1).ravel()
    c = xp.stack([v, u], axis=1).ravel()
    ww = None if w is None else xp.stack([w, w], axis=1).ravel()
    loop = u == v
    if bool(loop.any()):
        keep = xp.stack([xp.ones_like(loop), ~loop], axis=1).ravel()
        r, c = r[keep], c[keep]
        ww = None if ww is None else ww[keep]
    return r, c, ww


def build_partition(rank, size, make_chunks, directed, duplicates, self_loops, side):
    """Run on a worker: partition ``rank`` of ``size`` of the graph of ``make_chunks()``.

    Returns
    -------
    Partition
        Rows ``[lo, hi)`` of ``A^T`` as a CSR of shape ``(hi - lo, n)``, on ``side``.
    """
    from ..formats._base import check_weight_values
    from ..formats._build import SELF_LOOP_POLICIES, build_csr
    from ..formats._chunks import _side
    from ._partition import Partition, split_rows

    if self_loops not in SELF_LOOP_POLICIES:
        raise InvalidValue(f"self_loops must be one of {SELF_LOOP_POLICIES}, got {self_loops!r}")
    xp = _xp(side)
    chunks = make_chunks()
    n = getattr(chunks, "num_vertices", None)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidValue("DistributedGraph.from_chunks: the chunk source must have a positive int "
                           f"num_vertices, got {n!r}")
    n = int(n)
    drop = self_loops == "drop"
    counts = xp.zeros(n, dtype=np.int64)
    weighted = None
    for u, v, w in chunks():
        if weighted is None:
            weighted = w is not None
        elif weighted != (w is not None):
            raise InvalidValue("DistributedGraph.from_chunks: some chunks have weights and others not")
        if w is not None:   # what Graph.from_edges checks: dtype, byte order, finite values
            check_weight_values(xp, _side(xp, w), "DistributedGraph.from_chunks: weights")
        for name, a in (("src", u), ("dst", v)):   # both ends: a column id is an id too
            if a.shape[0] and (int(a.min()) < 0 or int(a.max()) >= n):
                raise InvalidValue(f"DistributedGraph.from_chunks: a {name} id is outside [0, {n})")
        r, _, _ = _entries(xp, u, v, None, directed, drop)
        if r.shape[0]:
            counts += bincount(xp, r, minlength=n)
    indptr = np.concatenate([[0], np.cumsum(np.asarray(_host(counts)))])
    del counts
    bounds = split_rows(indptr, size)
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])

    def mine():
        for u, v, w in chunks():
            r, c, ww = _entries(xp, u, v, w, directed, drop)
            keep = (r >= lo) & (r < hi)
            yield r[keep] - lo, c[keep], (None if ww is None else ww[keep])

    csr = build_csr(mine, num_vertices=hi - lo, ncols=n, directed=True, duplicates=duplicates,
                    self_loops="keep", xp=xp, validate=False,
                    owner="DistributedGraph.from_chunks")
    return Partition(rank, bounds, csr, directed, bool(weighted))


def _host(a):
    return a.get() if hasattr(a, "get") else a


def partition_meta(part):
    """Run on a worker: what the client keeps of a partition (small)."""
    m = part.matrix
    neg = bool(m.values is not None and m.nnz and bool((m.values < 0).any()))
    return dict(bounds=_bounds(part), nnz=int(m.nnz), nbytes=part.nbytes(), weighted=part.weighted,
                dtype=None if m.values is None else np.dtype(m.values.dtype), negative=neg)


def _bounds(part):
    return np.concatenate([[0], np.cumsum(part.counts)]).astype(np.int64)
