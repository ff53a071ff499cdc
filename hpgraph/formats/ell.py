"""ELL: a dense K x nrows block of column ids, column-major (entry k of row r at k*nrows + r).

Column-major means consecutive GPU threads (one per row) read consecutive addresses for
the same k: the coalesced layout of Bell and Garland.  Rows shorter than K are padded with
column -1 and value 0.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidGraph, InvalidValue
from ._base import (
    SparseMatrix,
    array_module_of,
    as_index_array,
    as_values,
    choose_index_dtype,
    expand_indptr,
    freeze,
    parse_shape,
)
from .coo import COO
from .._arrayops import any_true, count_true

#: Column id that marks an ELL padding slot.
PAD = -1


class ELL(SparseMatrix):
    """ELLPACK format, column-major.

    Parameters
    ----------
    indices : array_like of int, shape (K, nrows)
        ``indices[k, r]`` is the column of the k-th entry of row r, or -1 for padding.
    values : array_like or None, shape (K, nrows)
        Values (0 at padding), or None for a pattern-only matrix.
    shape : (int, int), optional
        Default: ``(indices.shape[1], max(indices) + 1)``.
    check : bool, default False
        Also run the O(K * nrows) checks (ids in [-1, ncols), zero padding values).
    index_dtype : {None, "int32", "int64"}

    Attributes
    ----------
    K : int
        Width (slots per row).
    """

    format = "ell"

    def __init__(self, indices, values, shape=None, *, check=False, index_dtype=None):
        owner = "ELL"
        xp = array_module_of(owner, indices=indices, values=values)
        indices = as_index_array(indices, "indices", owner, xp, ndim=2)
        K, nrows = int(indices.shape[0]), int(indices.shape[1])
        if shape is None:
            shape = (nrows, max(int(indices.max()) + 1, 0) if indices.size else 0)
        shape = parse_shape(shape, owner)
        if shape[0] != nrows:
            raise InvalidGraph(f"ELL: indices must have shape (K, nrows) = (K, {shape[0]}), "
                               f"got {tuple(indices.shape)}")
        values = as_values(values, "values", owner, xp, (K, nrows))
        if indices.dtype.kind == "u":
            raise InvalidGraph("ELL: indices must be signed (padding is -1), got dtype "
                               f"{indices.dtype}")
        idt = choose_index_dtype(owner, index_dtype, (indices,), (shape[0], shape[1], K * nrows))
        indices = xp.ascontiguousarray(indices.astype(idt, copy=False))
        self._setup(xp, indices, values, shape, idt, None, False)
        self._check_cheap()
        if check:
            self._check_full()

    def _setup(self, xp, indices, values, shape, idt, nnz, rows_sorted):
        self._xp = xp
        self._indices = freeze(indices)
        self._values = freeze(values)
        self._shape = (int(shape[0]), int(shape[1]))
        self._index_dtype = np.dtype(idt)
        self._dtype = None if values is None else np.dtype(values.dtype)
        self._nnz = nnz
        # True when built from a sorted CSR: entries of a row are in slots 0.. in column
        # order, so to_coo() is already row-major sorted.
        self._rows_sorted = rows_sorted

    @classmethod
    def _new(cls, indices, values, shape, nnz=None, rows_sorted=False):
        obj = cls.__new__(cls)
        obj._setup(array_module_of("ELL", indices=indices), indices, values, shape, indices.dtype,
                   nnz, rows_sorted)
        return obj

    # -- attributes ----------------------------------------------------------------------

    @property
    def indices(self):
        """(K, nrows) column ids, -1 at padding."""
        return self._indices

    @property
    def values(self):
        """(K, nrows) values, 0 at padding; None for a pattern-only matrix."""
        return self._values

    @property
    def K(self) -> int:
        return int(self._indices.shape[0])

    @property
    def nnz(self) -> int:
        if self._nnz is None:
            self._nnz = count_true(self._xp, self._indices != PAD)
        return self._nnz

    def row_lengths(self):
        """Stored (non-padding) entries per row."""
        return (self._indices != PAD).sum(axis=0, dtype=self._index_dtype)

    def _index_sizes(self) -> tuple:
        return (self.nrows, self.ncols, self.nnz, self.K * self.nrows)

    def _repr_extra(self) -> str:
        return f", K={self.K}"

    # -- base-class hooks ----------------------------------------------------------------

    def _map(self, index_fn, values_fn):
        v = None if self._values is None else values_fn(self._values)
        return ELL._new(index_fn(self._indices), v, self._shape, self._nnz, self._rows_sorted)

    def _ones(self, dtype):
        return (self._indices != PAD).astype(dtype)

    def _with_values(self, values):
        return ELL._new(self._indices, values, self._shape, self._nnz, self._rows_sorted)

    def _check_cheap(self):
        if self._indices.ndim != 2 or self._indices.shape[1] != self.nrows:
            raise InvalidGraph(f"ELL: indices must have shape (K, {self.nrows}), got {tuple(self._indices.shape)}")
        self._expect_index(self._indices, "indices", (self.K, self.nrows))
        self._expect_values(self._values, (self.K, self.nrows))

    def _check_full(self):
        self._expect_range(self._indices, "indices", PAD, self.ncols, "column ids (or -1 for padding)")
        if self._values is not None and self._values.size:
            bad = (self._indices == PAD) & (self._values != 0)
            if any_true(self._xp, bad):
                k, r = (int(x[0]) for x in self._xp.nonzero(bad))
                raise InvalidGraph(f"ELL: values[{k}, {r}] is padding (indices = -1) and must be 0")

    # -- conversions ---------------------------------------------------------------------

    @classmethod
    def from_csr(cls, csr, K=None):
        """ELL of a CSR; ``K`` defaults to the longest row and may not be shorter."""
        lengths = csr.row_lengths()
        longest = int(lengths.max()) if csr.nrows else 0
        if K is None:
            K = longest
        K = _check_width(K)
        if K < longest:
            raise InvalidValue(f"ELL: K={K} is narrower than the longest row ({longest} entries); "
                               "use a larger K or the HYB format")
        ell, _ = split_csr(csr, K)
        return ell

    @classmethod
    def from_coo(cls, coo, K=None, index_dtype=None):
        from .csr import CSR

        return cls.from_csr(CSR.from_coo(coo, index_dtype=index_dtype), K=K)

    def to_ell(self, K=None, index_dtype=None):
        if K is None or int(K) == self.K:
            return self.with_index_dtype(index_dtype)
        return ELL.from_csr(self.to_csr(index_dtype=index_dtype), K=K)

    def to_coo(self, index_dtype=None):
        xp = self._xp
        idt = self._index_dtype
        # Transposed view (nrows, K): nonzero walks it row by row, so entries come out
        # ordered by row, then slot.
        valid_t = (self._indices != PAD).T
        r, k = xp.nonzero(valid_t)
        cols = self._indices[k, r]
        vals = None if self._values is None else self._values[k, r]
        coo = COO._new(r.astype(idt), xp.ascontiguousarray(cols), vals, self._shape,
                       True if self._rows_sorted else None)
        return coo.with_index_dtype(index_dtype)


def _check_width(K) -> int:
    try:
        k = int(K)
        if k != K:
            raise TypeError
    except (TypeError, ValueError):
        raise InvalidValue(f"K must be a non-negative integer, got {K!r}") from None
    if k < 0:
        raise InvalidValue(f"K must be a non-negative integer, got {K!r}")
    return k


def split_csr(csr, K: int):
    """Split a (sorted) CSR into an ELL of width K and a COO of the remaining entries.

    Vectorised: the slot of each entry within its row is ``arange(nnz) - indptr[row]``;
    entries with slot < K go to ELL position ``slot * nrows + row``, the rest, still in CSR
    order (row-sorted, then column-sorted), to the COO.
    """
    xp = csr.xp
    nrows, nnz = csr.nrows, csr.nnz
    idt = csr.index_dtype
    if K * nrows >= np.iinfo(np.int32).max:
        # kernels address the ELL block as k * nrows + r: keep that in the index dtype.
        idt = np.dtype(np.int64)
    rows = expand_indptr(xp, csr.indptr, nnz, idt)
    slot = xp.arange(nnz, dtype=idt) - csr.indptr[rows].astype(idt)
    in_ell = slot < K
    # Flat positions in int64: K * nrows may exceed the int32 range for a given K.
    flat = slot[in_ell].astype(np.int64) * nrows + rows[in_ell]
    ell_idx = xp.full(K * nrows, PAD, dtype=idt)
    ell_idx[flat] = csr.indices[in_ell]
    if csr.values is None:
        ell_val = None
    else:
        ell_val = xp.zeros(K * nrows, dtype=csr.values.dtype)
        ell_val[flat] = csr.values[in_ell]
        ell_val = ell_val.reshape(K, nrows)
    n_ell = count_true(xp, in_ell) if nnz else 0
    ell = ELL._new(ell_idx.reshape(K, nrows), ell_val, csr.shape, n_ell, True)
    rest = ~in_ell
    coo_vals = None if csr.values is None else csr.values[rest]
    coo = COO._new(rows[rest], csr.indices[rest].astype(idt), coo_vals, csr.shape, True)
    return ell, coo
