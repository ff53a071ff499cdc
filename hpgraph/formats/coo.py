"""COO: the hub format (row, col, values triples)."""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidGraph, InvalidValue
from ._base import (
    SparseMatrix,
    array_module_of,
    as_index_array,
    as_values,
    choose_index_dtype,
    freeze,
    is_sorted_pairs,
    parse_shape,
    sort_perm,
    stable_argsort,
)
from .._arrayops import bincount

#: How :meth:`COO.deduplicate` combines entries with the same (row, col).
DUPLICATE_POLICIES = ("min", "max", "sum", "first", "last", "keep")


class COO(SparseMatrix):
    """Coordinate format: entry ``i`` is ``A[row[i], col[i]] = values[i]``.

    Entries may come in any order and may repeat (duplicates are kept and counted by
    ``nnz``).  COO is the hub every other format converts through.

    Parameters
    ----------
    row, col : array_like of int
        Row and column ids (numpy or cupy, same length).
    values : array_like or None
        One value per entry, or None for a pattern-only matrix.
    shape : (int, int), optional
        Default: one more than the largest row / column id.
    check : bool, default True
        Also check that every id is within ``shape`` (O(nnz)).
    index_dtype : {None, "int32", "int64"}
        Force the index dtype (default: keep the arrays' int32/int64, else the smallest
        that fits).
    """

    format = "coo"

    def __init__(self, row, col, values=None, shape=None, *, check=True, index_dtype=None):
        owner = "COO"
        xp = array_module_of(owner, row=row, col=col, values=values)
        row = as_index_array(row, "row", owner, xp)
        col = as_index_array(col, "col", owner, xp)
        if row.shape != col.shape:
            raise InvalidGraph(f"COO: row and col must have the same length, got {row.shape[0]} and {col.shape[0]}")
        nnz = row.shape[0]
        if shape is None:
            shape = (max(int(row.max()) + 1, 0) if nnz else 0, max(int(col.max()) + 1, 0) if nnz else 0)
        shape = parse_shape(shape, owner)
        values = as_values(values, "values", owner, xp, (nnz,))
        idt = choose_index_dtype(owner, index_dtype, (row, col), (shape[0], shape[1], nnz))
        row = xp.ascontiguousarray(row.astype(idt, copy=False))
        col = xp.ascontiguousarray(col.astype(idt, copy=False))
        self._setup(xp, row, col, values, shape, idt, None)
        self._check_cheap()
        if check:
            self._check_full()

    def _setup(self, xp, row, col, values, shape, idt, is_sorted):
        self._xp = xp
        self._row = freeze(row)
        self._col = freeze(col)
        self._values = freeze(values)
        self._shape = (int(shape[0]), int(shape[1]))
        self._index_dtype = np.dtype(idt)
        self._dtype = None if values is None else np.dtype(values.dtype)
        self._sorted = is_sorted  # True / False / None (= not known yet)

    @classmethod
    def _new(cls, row, col, values, shape, is_sorted=None):
        """Trusted constructor for arrays hpgraph built itself (no validation, no copy)."""
        obj = cls.__new__(cls)
        obj._setup(array_module_of("COO", row=row), row, col, values, shape, row.dtype, is_sorted)
        return obj

    # -- attributes ----------------------------------------------------------------------

    @property
    def row(self):
        return self._row

    @property
    def col(self):
        return self._col

    @property
    def values(self):
        """Values array, or None for a pattern-only matrix."""
        return self._values

    @property
    def nnz(self) -> int:
        return int(self._row.shape[0])

    @property
    def is_sorted(self) -> bool:
        """True when entries are ordered by row, then column (computed once, O(nnz))."""
        if self._sorted is None:
            self._sorted = is_sorted_pairs(self._xp, self._row, self._col)
        return self._sorted

    # -- internals for the base class ----------------------------------------------------

    def _map(self, index_fn, values_fn):
        v = None if self._values is None else values_fn(self._values)
        return COO._new(index_fn(self._row), index_fn(self._col), v, self._shape, self._sorted)

    def _ones(self, dtype):
        return self._xp.ones(self.nnz, dtype=dtype)

    def _with_values(self, values):
        return COO._new(self._row, self._col, values, self._shape, self._sorted)

    def _check_cheap(self):
        self._expect_index(self._row, "row", (self.nnz,))
        self._expect_index(self._col, "col", (self.nnz,))
        self._expect_values(self._values, (self.nnz,))

    def _check_full(self):
        self._expect_range(self._row, "row", 0, self.nrows, "row ids")
        self._expect_range(self._col, "col", 0, self.ncols, "column ids")

    # -- conversions ---------------------------------------------------------------------

    def to_coo(self, index_dtype=None):
        return self.with_index_dtype(index_dtype)

    @classmethod
    def from_coo(cls, coo, index_dtype=None):
        """``coo`` itself (any other format is converted); ``index_dtype`` casts the indices."""
        if not isinstance(coo, COO):
            from .convert import from_any

            coo = from_any(coo).to_coo()
        return coo.with_index_dtype(index_dtype)

    def to_scipy(self, copy: bool = True):
        import scipy.sparse as sp

        from ._base import host_copy, scipy_values

        data = host_copy(scipy_values(self, self._xp), copy)
        return sp.coo_array((data, (host_copy(self._row, copy), host_copy(self._col, copy))),
                            shape=self._shape)

    def to_cupyx(self):
        from ._base import cupyx_sparse, cupyx_values

        cs = cupyx_sparse()
        m = self.to_device()
        return cs.coo_matrix((cupyx_values(m, m.xp), (m.row, m.col)), shape=self._shape)

    # -- COO operations ------------------------------------------------------------------

    def sort(self):
        """Entries ordered by (row, col); stable, so duplicates keep their relative order."""
        if self.is_sorted:
            return self
        xp = self._xp
        perm = sort_perm(xp, self._row, self._col, self.nrows, self.ncols)
        v = None if self._values is None else self._values[perm]
        return COO._new(self._row[perm], self._col[perm], v, self._shape, True)

    def transpose(self):
        """COO of A^T (ids swapped; O(1))."""
        return COO._new(self._col, self._row, self._values, (self.ncols, self.nrows), None)

    @property
    def T(self):
        return self.transpose()

    def deduplicate(self, how: str = "sum"):
        """Combine entries with the same (row, col); the result is sorted by (row, col).

        Parameters
        ----------
        how : {"sum", "min", "max", "first", "last", "keep"}
            ``"first"``/``"last"`` keep the value that comes first/last in the current
            entry order; ``"sum"`` of bool values is logical or, of integers wraps like
            the dtype; ``"keep"`` keeps duplicates (only sorts).  Pattern-only matrices
            keep one entry per position whatever ``how`` (except ``"keep"``).
        """
        if how not in DUPLICATE_POLICIES:
            raise InvalidValue(f"duplicates must be one of {DUPLICATE_POLICIES}, got {how!r}")
        s = self.sort()
        if how == "keep" or s.nnz <= 1:
            return s
        xp = self._xp
        row, col, val = s._row, s._col, s._values
        n = s.nnz
        new = xp.empty(n, dtype=bool)
        new[0] = True
        new[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
        starts = xp.flatnonzero(new)
        ngroups = int(starts.shape[0])
        if ngroups == n:
            return s  # no duplicates
        out_row, out_col = row[starts], col[starts]
        if val is None:
            out_val = None
        else:
            ends = xp.empty(ngroups, dtype=starts.dtype)
            ends[:-1] = starts[1:] - 1
            ends[-1] = n - 1
            out_val = _combine(xp, how, val, new, starts, ends, ngroups)
        return COO._new(out_row, out_col, out_val, self._shape, True)


_REDUCEAT = {  # (how, is_bool) -> numpy ufunc whose reduceat combines one group
    ("sum", False): np.add, ("min", False): np.minimum, ("max", False): np.maximum,
    ("sum", True): np.logical_or, ("min", True): np.logical_and, ("max", True): np.logical_or,
}


def _combine(xp, how, val, new, starts, ends, ngroups):
    """One value per group of equal (row, col); groups are contiguous runs of ``val``.

    NaN values give an unspecified result (Graph.from_edges rejects them).
    """
    if how == "first":
        return val[starts]
    if how == "last":
        return val[ends]
    if xp is np:
        # O(nnz) and sequential in entry order; the device uses the generic path below.
        ufunc = _REDUCEAT[(how, val.dtype.kind == "b")]
        return ufunc.reduceat(val, starts).astype(val.dtype, copy=False)
    return _combine_generic(xp, how, val, new, starts, ends, ngroups)


def _combine_generic(xp, how, val, new, starts, ends, ngroups):
    """sum / min / max with sorts, cumsums and bincounts only (runs on cupy as on numpy)."""
    group = xp.cumsum(new, dtype=np.int64) - 1
    kind = val.dtype.kind
    if kind == "b":
        # logical or / and: count the True (or False) entries of each group.
        if how in ("sum", "max"):
            return bincount(xp, group, weights=val.astype(np.float64), minlength=ngroups) > 0
        return bincount(xp, group, weights=(~val).astype(np.float64), minlength=ngroups) == 0
    if how == "sum":
        if kind in "iu":
            # Exact in modular arithmetic: the difference of running sums in the value's
            # own dtype equals the (wrapping) group sum.
            cs = xp.cumsum(val, dtype=val.dtype)
            total = cs[ends]
            prev = xp.zeros(ngroups, dtype=val.dtype)
            prev[1:] = cs[ends[:-1]]
            return (total - prev).astype(val.dtype)
        # Floats: bincount accumulates in float64, then cast back.
        return bincount(xp, group, weights=val, minlength=ngroups).astype(val.dtype)
    # min / max: order each group by value (two stable sorts), then take its first / last.
    order = stable_argsort(xp, val)
    order = order[stable_argsort(xp, group[order])]
    pick = starts if how == "min" else ends
    return val[order[pick]]
