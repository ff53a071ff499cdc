"""Graph construction from an edge list: the checks of :meth:`hpgraph.Graph.from_edges` on
its arguments (ids, weights, sizes, memory), then the counting-sort build of
:func:`hpgraph.formats._build.build_csr`, from whole arrays or from chunks of edges."""

from __future__ import annotations

import contextlib
import numbers

import numpy as np

from . import backend, dtypes
from ._memory import check_host_bytes, format_bytes, host_memory_guard
from .exceptions import (DeviceOutOfMemory, DimensionMismatch, IndexOutOfBound, InvalidGraph,
                         InvalidValue)
from .formats import CSR
from .formats._base import check_weight_values, first_bad, safe_asarray
from .formats._build import build_csr
from .formats._chunks import array_chunks, chunk_source, is_chunk_source
from .formats.coo import DUPLICATE_POLICIES
from ._arrayops import any_true


def csr_from_edges(src, dst, weights, num_vertices, directed, duplicates, backend_arg, index_dtype,
                   self_loops, chunk_size) -> CSR:
    """The adjacency matrix of :meth:`hpgraph.Graph.from_edges` (same arguments, same errors)."""
    who = "Graph.from_edges"
    if dst is None and weights is None and is_chunk_source(src):
        return csr_from_chunks(src, num_vertices, directed, duplicates, backend_arg, index_dtype,
                               self_loops, who)
    if dst is None:
        raise InvalidValue(f"{who}: dst is missing; pass src and dst arrays, or chunks of edges as the "
                           "only positional argument")
    if duplicates not in DUPLICATE_POLICIES:
        raise InvalidValue(f"{who}: duplicates must be one of {DUPLICATE_POLICIES}, got {duplicates!r}")
    if not isinstance(directed, (bool, np.bool_)):
        raise InvalidValue(f"{who}: directed must be True or False, got {directed!r}")
    xp = _edge_xp(backend_arg, src, dst, weights)
    src = _vertex_ids(src, "src", xp, who)
    dst = _vertex_ids(dst, "dst", xp, who)
    m = int(src.shape[0])
    if dst.shape[0] != m:
        raise DimensionMismatch(f"{who}: src and dst must have the same length, got {m} and {dst.shape[0]}")
    lo, top = _id_range(xp, src, dst)
    if lo < 0:
        for name, a in (("src", src), ("dst", dst)):
            neg = a < 0
            if any_true(xp, neg):
                pos = first_bad(xp, neg)
                raise IndexOutOfBound(f"{who}: {name}[{pos}] = {int(a[pos])} is negative; vertex ids must "
                                      "lie in [0, num_vertices)")
    if num_vertices is None:
        n = top + 1
    else:
        if isinstance(num_vertices, bool) or not isinstance(num_vertices, numbers.Integral) \
                or int(num_vertices) < 0:
            raise InvalidValue(f"{who}: num_vertices must be a non-negative integer, got {num_vertices!r}")
        n = int(num_vertices)
        if top >= n:
            for name, a in (("src", src), ("dst", dst)):
                over = a >= n
                if any_true(xp, over):
                    pos = first_bad(xp, over)
                    raise IndexOutOfBound(f"{who}: {name}[{pos}] = {int(a[pos])} is out of range for "
                                          f"num_vertices={n} (ids must lie in [0, {n}))")
    w = _edge_weights(weights, m, xp, who)
    chunk = _chunk_size_arg(chunk_size, who)
    nnz_bound = m if directed else 2 * m
    if index_dtype is not None:
        from .formats._base import check_index_dtype_arg

        idt = check_index_dtype_arg(index_dtype, who, (n, nnz_bound))
    else:
        idt = dtypes.index_dtype(n, nnz_bound)
    # sizes checked against the memory there is before anything n-sized is allocated
    _check_build_size(n, nnz_bound, np.dtype(idt), w, xp, who)
    what = f"building a graph of {n:,} vertices and {m:,} edges"
    guard = host_memory_guard(what) if xp is np else contextlib.nullcontext()
    with guard:
        csr = build_csr(array_chunks(src, dst, w, chunk), num_vertices=n, directed=bool(directed),
                        duplicates=duplicates, self_loops=self_loops, index_dtype=index_dtype,
                        xp=xp, chunk_hint=chunk, validate=False, owner=who)
    return csr


def csr_from_chunks(chunks, num_vertices, directed, duplicates, backend_arg, index_dtype,
                    self_loops, who) -> CSR:
    """:func:`csr_from_edges` for chunks of edges (validated one chunk at a time by the build)."""
    if not isinstance(directed, (bool, np.bool_)):
        raise InvalidValue(f"{who}: directed must be True or False, got {directed!r}")
    if num_vertices is not None and (isinstance(num_vertices, bool)
                                     or not isinstance(num_vertices, numbers.Integral)
                                     or int(num_vertices) < 0):
        raise InvalidValue(f"{who}: num_vertices must be a non-negative integer, got {num_vertices!r}")
    source = chunk_source(chunks, who)
    if backend_arg is None:
        first = next(iter(source()), None)
        on_dev = first is not None and any(a is not None and backend.is_device_array(a) for a in first)
        xp = backend.cupy() if on_dev else np
    else:
        xp = backend.cupy() if backend.resolve(backend_arg) == "gpu" else np
    csr = build_csr(source, num_vertices=None if num_vertices is None else int(num_vertices),
                    directed=bool(directed), duplicates=duplicates, self_loops=self_loops,
                    index_dtype=index_dtype, xp=xp, owner=who)
    return csr


def _id_range(xp, src, dst) -> tuple:
    """``(smallest, largest)`` id over ``src`` and ``dst`` (``(0, -1)`` without edges); device
    arrays in one pass of :func:`hpgraph.formats._build_gpu.id_range` (uint64 ids, which a
    signed 64-bit range cannot hold, through CuPy's reductions)."""
    if int(src.shape[0]) == 0:
        return 0, -1
    if xp is not np and np.dtype(np.uint64) not in (src.dtype, dst.dtype):
        from .formats import _build_gpu

        return _build_gpu.id_range(xp, src, dst)
    lo = min(int(src.min()), int(dst.min()))
    return lo, max(int(src.max()), int(dst.max()))


def _chunk_size_arg(chunk_size, who):
    if chunk_size is None:
        from .formats._build import DEFAULT_CHUNK

        return DEFAULT_CHUNK
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, numbers.Integral) or chunk_size < 1:
        raise InvalidValue(f"{who}: chunk_size must be a positive integer, got {chunk_size!r}")
    return int(chunk_size)


def _edge_xp(backend_arg, *arrays):
    """numpy or cupy for from_edges (see its ``backend`` parameter)."""
    if backend_arg is None:
        on_dev = any(a is not None and backend.is_device_array(a) for a in arrays)
        return backend.cupy() if on_dev else np
    return backend.cupy() if backend.resolve(backend_arg, *arrays) == "gpu" else np


def _to_side(a, xp, name, who, numeric):
    if xp is np and backend.is_device_array(a):
        a = backend.to_host(a)
    return safe_asarray(a, name, who, xp, numeric=numeric)


def _check_build_size(n, nnz, idt, w, xp, who):
    """Refuse a graph whose CSR arrays cannot fit, before any of them is allocated."""
    vbytes = 0 if w is None else w.dtype.itemsize
    # the finished CSR alone (indptr, indices, values): a lower bound on what the build needs
    need = (n + 1) * idt.itemsize + nnz * (idt.itemsize + vbytes)
    what = f"{who}: a graph of num_vertices={n:,} and {nnz:,} stored edges"
    hint = ("pass a smaller num_vertices, or compact sparse ids first (hpgraph.io.read(..., relabel=True) "
            "or numpy.unique(..., return_inverse=True))")
    if xp is np:
        check_host_bytes(need, what, hint)
        return
    total = backend.cupy().cuda.runtime.memGetInfo()[1]
    if need > total:
        raise DeviceOutOfMemory(f"{what} needs at least {format_bytes(need)} ({need:,} bytes) of GPU "
                                f"memory, more than the device has ({format_bytes(total)}); {hint}")


def _vertex_ids(a, name, xp, who):
    a = _to_side(a, xp, name, who, "ids")
    if a.ndim != 1:
        raise InvalidGraph(f"{who}: {name} must be a 1-D array of vertex ids, got shape {tuple(a.shape)}")
    if a.size == 0 and a.dtype.kind not in "iu":
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise InvalidGraph(f"{who}: {name} must hold integer vertex ids, got dtype {a.dtype} "
                           "(cast with .astype(np.int64))")
    return a


def _edge_weights(weights, m, xp, who):
    if weights is None:
        return None
    w = _to_side(weights, xp, "weights", who, "values")
    if w.ndim != 1:
        raise InvalidGraph(f"{who}: weights must be a 1-D array (one value per edge), got shape {tuple(w.shape)}")
    if w.shape[0] != m:
        raise DimensionMismatch(f"{who}: weights has {w.shape[0]} values but there are {m} edges (len(src))")
    # the build copies the values into its own arrays, so the graph never shares this buffer
    return check_weight_values(xp, w, f"{who}: weights")
