"""CSR and CSC: compressed rows / compressed columns.

Both share one implementation over a *major* axis (rows for CSR, columns for CSC).  Entries
of a major slice are sorted by their minor index (duplicates kept, in their original order).
CSR <-> CSC is a direct transposition (one stable sort by the minor index), cheaper than a
trip through COO.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidGraph
from ._base import (
    SparseMatrix,
    array_module_of,
    as_index_array,
    as_values,
    choose_index_dtype,
    expand_indptr,
    first_bad,
    freeze,
    indptr_from_sorted,
    is_sorted_pairs,
    parse_shape,
    rows_sorted,
    sort_perm,
    stable_argsort,
)
from .coo import COO
from .._arrayops import any_true


class _Compressed(SparseMatrix):
    """Shared code of CSR (major = rows) and CSC (major = columns)."""

    _major = "row"      # name of the major axis, for messages
    _minor = "column"

    def __init__(self, indptr, indices, values, shape=None, *, check=False, index_dtype=None):
        owner = type(self).__name__
        xp = array_module_of(owner, indptr=indptr, indices=indices, values=values)
        indptr = as_index_array(indptr, "indptr", owner, xp)
        indices = as_index_array(indices, "indices", owner, xp)
        nnz = indices.shape[0]
        if indptr.shape[0] == 0:
            raise InvalidGraph(f"{owner}: indptr must have at least one element (n{self._major}s + 1), got 0")
        if shape is None:
            nmajor = indptr.shape[0] - 1
            nminor = max(int(indices.max()) + 1, 0) if nnz else 0
            shape = self._from_major_minor(nmajor, nminor)
        shape = parse_shape(shape, owner)
        nmajor, nminor = self._major_minor(shape)
        if indptr.shape[0] != nmajor + 1:
            raise InvalidGraph(f"{owner}: indptr must have length n{self._major}s + 1 = {nmajor + 1} "
                               f"for shape {shape}, got {indptr.shape[0]}")
        values = as_values(values, "values", owner, xp, (nnz,))
        idt = choose_index_dtype(owner, index_dtype, (indptr, indices), (shape[0], shape[1], nnz))
        indptr = xp.ascontiguousarray(indptr.astype(idt, copy=False))
        indices = xp.ascontiguousarray(indices.astype(idt, copy=False))
        self._setup(xp, indptr, indices, values, shape, idt)
        self._check_cheap()
        if check:
            self._check_full()

    def _setup(self, xp, indptr, indices, values, shape, idt):
        self._xp = xp
        self._indptr = freeze(indptr)
        self._indices = freeze(indices)
        self._values = freeze(values)
        self._shape = (int(shape[0]), int(shape[1]))
        self._index_dtype = np.dtype(idt)
        self._dtype = None if values is None else np.dtype(values.dtype)

    @classmethod
    def _new(cls, indptr, indices, values, shape):
        """Trusted constructor for arrays hpgraph built itself (sorted; no validation)."""
        obj = cls.__new__(cls)
        obj._setup(array_module_of(cls.__name__, indptr=indptr), indptr, indices, values, shape, indptr.dtype)
        return obj

    # axis bookkeeping: CSR overrides nothing, CSC swaps
    @staticmethod
    def _major_minor(shape):
        return shape[0], shape[1]

    @staticmethod
    def _from_major_minor(nmajor, nminor):
        return nmajor, nminor

    # -- attributes ----------------------------------------------------------------------

    @property
    def indptr(self):
        return self._indptr

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        """Values array, or None for a pattern-only matrix."""
        return self._values

    @property
    def nnz(self) -> int:
        return int(self._indices.shape[0])

    def _major_lengths(self):
        return self._xp.diff(self._indptr)

    # -- base-class hooks ----------------------------------------------------------------

    def _map(self, index_fn, values_fn):
        v = None if self._values is None else values_fn(self._values)
        return type(self)._new(index_fn(self._indptr), index_fn(self._indices), v, self._shape)

    def _ones(self, dtype):
        return self._xp.ones(self.nnz, dtype=dtype)

    def _with_values(self, values):
        return type(self)._new(self._indptr, self._indices, values, self._shape)

    def _check_cheap(self):
        owner = type(self).__name__
        nmajor, _ = self._major_minor(self._shape)
        self._expect_index(self._indptr, "indptr", (nmajor + 1,))
        self._expect_index(self._indices, "indices", (self.nnz,))
        self._expect_values(self._values, (self.nnz,))
        first, last = int(self._indptr[0]), int(self._indptr[-1])
        if first != 0:
            raise InvalidGraph(f"{owner}: indptr[0] must be 0, got {first}")
        if last != self.nnz:
            raise InvalidGraph(f"{owner}: indptr[-1] must equal the number of stored entries "
                               f"(len(indices) = {self.nnz}), got {last}")

    def _check_full(self):
        owner = type(self).__name__
        xp = self._xp
        nmajor, nminor = self._major_minor(self._shape)
        d = xp.diff(self._indptr)
        bad = d < 0
        if any_true(xp, bad):
            pos = first_bad(xp, bad)
            raise InvalidGraph(f"{owner}: indptr must be non-decreasing, but indptr[{pos + 1}] = "
                               f"{int(self._indptr[pos + 1])} < indptr[{pos}] = {int(self._indptr[pos])}")
        self._expect_range(self._indices, "indices", 0, nminor, f"{self._minor} ids")
        if not rows_sorted(xp, self._indptr, self._indices):
            raise InvalidGraph(f"{owner}: indices must be sorted within each {self._major} "
                               f"(use from_scipy or from_coo, which sort)")

    # -- conversions ---------------------------------------------------------------------

    def _expand_major(self):
        return expand_indptr(self._xp, self._indptr, self.nnz, self._index_dtype)

    @classmethod
    def from_coo(cls, coo, index_dtype=None):
        """Build from a COO (any other format is converted first); sorts stably if needed."""
        if not isinstance(coo, COO):
            from .convert import from_any

            coo = from_any(coo).to_coo()
        coo = coo.with_index_dtype(index_dtype)
        xp = coo.xp
        if cls is CSR:
            major, minor = coo.row, coo.col
            already = coo.is_sorted
        else:
            major, minor = coo.col, coo.row
            already = is_sorted_pairs(xp, major, minor)
        nmajor, nminor = cls._major_minor(coo.shape)
        values = coo.values
        if not already:
            indptr, minor, values = counting_sort(xp, major, minor, values, nmajor, nminor,
                                                  coo.index_dtype)
            return cls._new(indptr, minor, values, coo.shape)
        indptr = indptr_from_sorted(xp, major, nmajor, coo.index_dtype)
        return cls._new(indptr, xp.ascontiguousarray(minor), values, coo.shape)

    def _transposed_arrays(self):
        """(indptr, indices, values) of the other compressed layout of the same matrix.

        Majors are ascending, so one stable sort by minor orders entries by (minor, major):
        the rows of the result come out sorted with no second pass.
        """
        nmajor, nminor = self._major_minor(self._shape)
        major = self._expand_major()
        return counting_sort(self._xp, self._indices, major, self._values, nminor, nmajor,
                             self._index_dtype, minor_sorted=True)

    def _scipy(self, kind: str, copy: bool):
        import scipy.sparse as sp

        from ._base import host_copy, scipy_values

        data = host_copy(scipy_values(self, self._xp), copy)
        cls = sp.csr_array if kind == "csr" else sp.csc_array
        m = cls((data, host_copy(self._indices, copy), host_copy(self._indptr, copy)), shape=self._shape)
        m.has_sorted_indices = True  # hpgraph keeps slices sorted; spares scipy an O(nnz) check
        return m

    def _cupyx(self, kind: str):
        from ._base import cupyx_sparse, cupyx_values

        cs = cupyx_sparse()
        m = self.to_device()
        cls = cs.csr_matrix if kind == "csr" else cs.csc_matrix
        return cls((cupyx_values(m, m.xp), m.indices, m.indptr), shape=self._shape)


class CSR(_Compressed):
    """Compressed sparse rows: row r holds ``indices[indptr[r]:indptr[r+1]]`` (sorted).

    Parameters
    ----------
    indptr : array_like of int, length nrows + 1
    indices : array_like of int, length nnz
        Column ids, sorted within each row.
    values : array_like or None
        One value per entry, or None for a pattern-only matrix.
    shape : (int, int), optional
        Default: ``(len(indptr) - 1, max(indices) + 1)``.
    check : bool, default False
        Also run the O(nnz) checks (indptr monotone, ids in range, rows sorted).
    index_dtype : {None, "int32", "int64"}
    """

    format = "csr"
    _major, _minor = "row", "column"

    def row_lengths(self):
        """Stored entries per row (index dtype, length nrows)."""
        return self._major_lengths()

    def row_ids(self):
        """Row id of each stored entry (the COO row array)."""
        return self._expand_major()

    def to_coo(self, index_dtype=None):
        return COO._new(self._expand_major(), self._indices, self._values, self._shape,
                        True).with_index_dtype(index_dtype)

    def to_csr(self, index_dtype=None):
        return self.with_index_dtype(index_dtype)

    def to_csc(self, index_dtype=None):
        indptr, indices, values = self._transposed_arrays()
        return CSC._new(indptr, indices, values, self._shape).with_index_dtype(index_dtype)

    def to_ell(self, K=None, index_dtype=None):
        from .ell import ELL

        return ELL.from_csr(self.with_index_dtype(index_dtype), K=K)

    def to_hyb(self, K=None, index_dtype=None):
        from .hyb import HYB

        return HYB.from_csr(self.with_index_dtype(index_dtype), K=K)

    def transpose(self):
        """CSR of A^T (row v of the result = column v of A)."""
        indptr, indices, values = self._transposed_arrays()
        return CSR._new(indptr, indices, values, (self.ncols, self.nrows))

    @property
    def T(self):
        return self.transpose()

    def to_scipy(self, copy: bool = True):
        return self._scipy("csr", copy)

    def to_cupyx(self):
        return self._cupyx("csr")


class CSC(_Compressed):
    """Compressed sparse columns: column c holds row ids ``indices[indptr[c]:indptr[c+1]]``.

    Same parameters as :class:`CSR` with the axes swapped (``indptr`` has ncols + 1 entries).
    """

    format = "csc"
    _major, _minor = "column", "row"

    @staticmethod
    def _major_minor(shape):
        return shape[1], shape[0]

    @staticmethod
    def _from_major_minor(nmajor, nminor):
        return nminor, nmajor

    def col_lengths(self):
        """Stored entries per column (index dtype, length ncols)."""
        return self._major_lengths()

    def to_coo(self, index_dtype=None):
        # Column-major order: row-sortedness is unknown (COO checks it when asked).
        return COO._new(self._indices, self._expand_major(), self._values, self._shape,
                        None).with_index_dtype(index_dtype)

    def to_csc(self, index_dtype=None):
        return self.with_index_dtype(index_dtype)

    def to_csr(self, index_dtype=None):
        indptr, indices, values = self._transposed_arrays()
        return CSR._new(indptr, indices, values, self._shape).with_index_dtype(index_dtype)

    def transpose(self):
        """CSC of A^T."""
        indptr, indices, values = self._transposed_arrays()
        return CSC._new(indptr, indices, values, (self.ncols, self.nrows))

    @property
    def T(self):
        return self.transpose()

    def to_scipy(self, copy: bool = True):
        return self._scipy("csc", copy)

    def to_cupyx(self):
        return self._cupyx("csc")


def counting_sort(xp, major, minor, values, nmajor: int, nminor: int, idt, minor_sorted=False):
    """``(indptr, minor, values)`` of entries ordered by (major, minor), duplicates kept in
    their order: the chunked counting sort of :mod:`._build` (linear, bounded temporaries).

    Up to one row batch of entries (``_build.DEFAULT_BATCH``) a single stable sort is faster
    and its temporaries are no larger than a batch's, so it is used there.
    """
    from . import _build
    from ._chunks import array_chunks

    if int(major.shape[0]) <= _build.DEFAULT_BATCH:
        # entries already ordered by minor (a transposition) need only a stable sort by major
        perm = stable_argsort(xp, major) if minor_sorted else sort_perm(xp, major, minor, nmajor, nminor)
        indptr = indptr_from_sorted(xp, major[perm], nmajor, idt)
        return indptr, xp.ascontiguousarray(minor[perm]), (None if values is None else values[perm])

    m = _build.build_csr(array_chunks(major, minor, values, DEFAULT_CHUNK), num_vertices=nmajor, ncols=nminor,
                         directed=True, duplicates="keep", index_dtype=idt, xp=xp, validate=False,
                         batch_size=_build.DEFAULT_BATCH, owner="CSR.from_coo")
    return m.indptr, m.indices, m.values


#: Entries scattered at a time by :func:`counting_sort`.
DEFAULT_CHUNK = 1 << 25


def sort_compressed(xp, indptr, indices, values, nmajor: int, nminor: int, idt):
    """Sort the minor indices within each major slice (stable); returns (indices, values)."""
    major = expand_indptr(xp, indptr, indices.shape[0], idt)
    perm = sort_perm(xp, major, indices, nmajor, nminor)
    return indices[perm], (None if values is None else values[perm])
