"""Column relabeling for the CSR SpMV kernels (see :mod:`hpgraph.spmv.gpu`'s docstring): the
columns renumbered by descending count, so the hot entries of ``x`` share cache lines."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..exceptions import CompileError
from ..formats._base import DerivedCache
from . import codegen
from ._shared import BLOCK, _as_csr, _cached, _derived, _grid, _lock
from .._arrayops import bincount

_GATHER: dict = {}            # (itemsize, index dtype) -> RawKernel of x2 = x[perm]


class ColumnRelabel(DerivedCache):
    """The CSR of a matrix with its columns renumbered by descending column count.

    Attributes
    ----------
    perm : cupy.ndarray (index dtype, length ncols)
        ``perm[new] = old``: column ids by descending count (number of stored entries in the
        column), ties by id.  A product gathers ``x2 = x[perm]``.
    rank : cupy.ndarray (index dtype, length ncols)
        Inverse of ``perm``: ``rank[old] = new``.
    indptr, values : the source CSR's arrays (shared, not copied)
    indices : cupy.ndarray
        ``rank[cols]``, each row's entries in their original order (so not sorted by the new
        id): every kernel reduces each row in the same order as on the source matrix.
    shape, nnz, dtype, index_dtype : as the source CSR's
    """

    def __init__(self, perm, rank, indptr, indices, values, shape, dtype, index_dtype):
        self.perm, self.rank = perm, rank
        self.indptr, self.indices, self.values = indptr, indices, values
        self.shape = (int(shape[0]), int(shape[1]))
        self.nrows, self.ncols = self.shape
        self.nnz = int(indices.size)
        self.dtype, self.index_dtype = dtype, np.dtype(index_dtype)

    def __repr__(self):
        return f"ColumnRelabel(shape={self.shape}, nnz={self.nnz}, index_dtype={self.index_dtype})"


def column_relabel(A, *, cached: bool = True) -> ColumnRelabel:
    """The column relabeling of ``A`` (its CSR), built on the device once and cached.

    Parameters
    ----------
    A : hpgraph sparse matrix with cupy arrays
    cached : bool
        False builds a new one and leaves the cache alone (the benchmark times the build).

    Notes
    -----
    Cost: a column count (``bincount`` over the ``nnz`` column ids), one sort of ``ncols``
    64-bit keys ``(max count - count) * ncols + id`` (unique, so the order of ties is fixed
    without relying on a stable sort; their low part is ``perm``), a scatter for ``rank`` and a
    gather of ``nnz`` column ids; memory: one more column-index array (``nnz`` ids) and two of
    ``ncols``.
    """
    csr = _as_csr(A)
    if cached:
        return _cached(csr, "relabel", lambda: _build_relabel(csr))
    return _build_relabel(csr)


def relabel_bytes(A) -> int:
    """Device bytes :func:`column_relabel` allocates for ``A``: the relabeled columns, ``perm``
    and ``rank`` (index dtype), and the int64 column counts and sort keys (with the sort's
    output)."""
    isz = np.dtype(A.index_dtype).itemsize
    return int(A.nnz) * isz + int(A.shape[1]) * (2 * isz + 3 * 8)


def relabel_fits(A, share: float) -> bool:
    """True when ``A``'s relabeling is built already, or its :func:`relabel_bytes` are at most
    ``share`` of the device memory available now (free plus the pool's cached blocks)."""
    if "relabel" in _derived(_as_csr(A)):
        return True
    return relabel_bytes(A) <= share * _available_bytes()


def _available_bytes() -> int:
    return backend.device_free_bytes()


_KEY_LIMIT = 2 ** 63   # sort keys (max count - count) * ncols + id must stay below this


def _build_relabel(csr) -> ColumnRelabel:
    cp = backend.cupy()
    idx_dt = np.dtype(csr.index_dtype)
    n = int(csr.shape[1])
    nnz = int(csr.nnz)
    if nnz:
        counts = bincount(cp, csr.indices, minlength=n).astype(cp.int64)
        top = int(counts.max())
    else:
        counts = cp.zeros(n, cp.int64)
        top = 0
    if (top + 1) * n >= _KEY_LIMIT:
        # keys would overflow: rank the distinct counts first (there are fewer than
        # sqrt(2 * nnz) + 1 of them), which keeps the order and the tie rule
        distinct, inv = cp.unique(counts, return_inverse=True)
        counts = inv.ravel().astype(cp.int64)
        top = int(distinct.size) - 1
        if (top + 1) * n >= _KEY_LIMIT:
            raise NotImplementedError(f"column relabeling of a matrix with {n} columns and "
                                      f"{top + 1} distinct column counts (sort keys overflow)")
    keys = (top - counts) * n + cp.arange(n, dtype=cp.int64)
    perm = (cp.sort(keys) % n).astype(idx_dt) if n else cp.zeros(0, idx_dt)
    rank = cp.empty(n, dtype=idx_dt)
    rank[perm] = cp.arange(n, dtype=idx_dt)
    cols2 = rank[csr.indices] if nnz else csr.indices.copy()
    return ColumnRelabel(perm, rank, csr.indptr, cols2, csr.values, csr.shape, csr.dtype, idx_dt)


def _gather_kernel(itemsize: int, idx_dt):
    key = (int(itemsize), np.dtype(idx_dt).str)
    k = _GATHER.get(key)
    if k is None:
        with _lock:
            k = _GATHER.get(key)
            if k is None:
                src, name = codegen.gather_source(itemsize, idx_dt)
                try:
                    k = backend.raw_module(src, ("-std=c++17",), None).get_function(name)
                except CompileError as exc:
                    raise CompileError(f"NVRTC failed to compile {name}", source=src, log=exc.log,
                                       name=name) from None
                _GATHER[key] = k
    return k


def gather(x, perm):
    """``x[perm]`` with one launch (the relabeled products' operand vector)."""
    cp = backend.cupy()
    x2 = cp.empty(int(perm.size), dtype=x.dtype)
    n = int(perm.size)
    if n:
        k = _gather_kernel(x.dtype.itemsize, perm.dtype)
        k((_grid(n, BLOCK, cap=backend.num_sms() * 16),), (BLOCK,), (np.int64(n), perm, x, x2))
    return x2
