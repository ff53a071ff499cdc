"""Partitions built from a Dask dataframe or Dask arrays of edges, on the cluster itself.

The edge collection is computed on the workers (its partitions stay there), then:

1. each Dask partition counts its rows of ``A^T`` (as :mod:`._chunked` does for one chunk);
   the counts are summed on a worker, which cuts the row ranges (:func:`.graph.split_rows`);
2. each Dask partition is cut, where it lives, into the entries of every range;
3. the worker of range ``r`` receives its pieces (Dask moves them between workers, never
   through the client) and builds its rows with the chunked CSR build, the pieces in the
   collection's order, so duplicates combine as ``Graph.from_edges`` on the concatenated
   arrays combines them.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue
from ._chunked import _entries

__all__ = ["edge_parts"]

_OWNER = "DistributedGraph.from_dask"


def _df_part(df, source, destination, weight):
    cols = list(df.columns)
    for arg, name in (("source", source), ("destination", destination), ("weight", weight)):
        if name is not None and name not in cols:
            raise InvalidValue(f"{_OWNER}: {arg}={name!r} is not a column of the dataframe "
                               f"(columns: {cols})")
    w = None if weight is None else df[weight].to_numpy()
    return df[source].to_numpy(), df[destination].to_numpy(), w


def _array_part(u, v, w=None):
    return np.asarray(u), np.asarray(v), None if w is None else np.asarray(w)


def edge_parts(edges, source, destination, weight):
    """The edge collection as a list of delayed ``(src, dst, weights)`` NumPy parts."""
    import dask

    if hasattr(edges, "to_delayed") and hasattr(edges, "columns"):      # a Dask dataframe
        return [dask.delayed(_df_part)(d, source, destination, weight) for d in edges.to_delayed()]
    if isinstance(edges, (tuple, list)) and len(edges) in (2, 3) \
            and all(hasattr(a, "to_delayed") and hasattr(a, "chunks") for a in edges):
        src = edges[0]
        if any(a.ndim != 1 for a in edges) or any(a.shape != src.shape for a in edges):
            raise InvalidValue(f"{_OWNER}: the edge arrays must be 1-D and of one length, got "
                               f"shapes {[tuple(a.shape) for a in edges]}")
        arrays = [a.rechunk(src.chunks) for a in edges]
        blocks = [a.to_delayed().ravel() for a in arrays]
        return [dask.delayed(_array_part)(*bs) for bs in zip(*blocks)]
    raise InvalidValue(f"{_OWNER}: edges must be a Dask dataframe or a tuple (src, dst[, weights]) "
                       f"of 1-D Dask arrays, got {type(edges).__name__}")


def part_stats(part):
    """``(largest id or -1, weighted, length)`` of one part, checking its ids."""
    u, v, w = part
    if u.shape != v.shape or (w is not None and w.shape != u.shape):
        raise InvalidValue(f"{_OWNER}: a part has src, dst and weights of different lengths")
    for name, a in (("source", u), ("destination", v)):
        if a.dtype.kind not in "iu":
            raise InvalidValue(f"{_OWNER}: {name} ids must be integers, got dtype {a.dtype}")
        if a.size and int(a.min()) < 0:
            raise InvalidValue(f"{_OWNER}: {name} id {int(a.min())} is negative")
    if w is not None:   # what Graph.from_edges checks: dtype, byte order, finite values
        from ..formats._base import check_weight_values

        check_weight_values(np, w, f"{_OWNER}: weights")
    top = max(int(u.max()), int(v.max())) if u.size else -1
    return top, w is not None, int(u.size)


def part_counts(part, n, directed, drop):
    """Entries per row of ``A^T`` of one part."""
    u, v, _ = part
    r, _, _ = _entries(np, u, v, None, directed, drop)
    if r.size and int(r.max()) >= n:
        raise InvalidValue(f"{_OWNER}: vertex id {int(r.max())} is out of range for "
                           f"num_vertices={n}")
    return np.bincount(r, minlength=n)


def sum_counts(*counts):
    return np.sum(counts, axis=0)


def bounds_of(counts, parts):
    from ._partition import split_rows

    return split_rows(np.concatenate([[0], np.cumsum(counts)]), parts)


def part_slice(part, bounds, rank, directed, drop):
    """The entries of range ``rank`` in one part: ``(rows - lo, cols, values)``."""
    u, v, w = part
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])
    r, c, ww = _entries(np, u, v, w, directed, drop)
    keep = (r >= lo) & (r < hi)
    return r[keep] - lo, c[keep], None if ww is None else ww[keep]


def build_from_slices(rank, bounds, directed, weighted, duplicates, side, *slices):
    """Run on the worker of range ``rank``: its partition from the pieces of every part."""
    from ..formats._build import build_csr
    from ._partition import Partition

    lo, hi, n = int(bounds[rank]), int(bounds[rank + 1]), int(bounds[-1])
    xp = np
    if side == "gpu":
        import cupy as xp
    csr = build_csr(lambda: iter(slices), num_vertices=hi - lo, ncols=n, directed=True,
                    duplicates=duplicates, self_loops="keep", xp=xp, validate=False, owner=_OWNER)
    return Partition(rank, bounds, csr, directed, weighted)
