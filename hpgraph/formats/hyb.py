"""HYB = ELL of width K + row-sorted COO of the entries beyond the first K of each row.

K follows Bell and Garland's rule, as quoted in the HPGraph paper: the largest k such that
at least one third of the rows hold k or more entries.  Most rows then fit the coalesced
ELL block, and the few long rows (the power-law tail) spill into the COO part, which a
segmented reduction handles without wasting ELL padding on them.
"""

from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..exceptions import DimensionMismatch, DomainMismatch, InvalidGraph, InvalidValue
from ._base import SparseMatrix, counts_to_indptr, first_bad, rows_sorted
from .coo import COO
from .ell import PAD, ELL, _check_width, split_csr
from .._arrayops import any_true, bincount


def hyb_width(row_lengths) -> int:
    """The paper's K: the largest k such that at least one third of the rows have >= k entries.

    ``count(row_lengths >= k) * 3 >= nrows``; the count only falls as k grows, so K is the
    ``ceil(nrows / 3)``-th largest row length.  0 for a matrix with no rows.

    Parameters
    ----------
    row_lengths : array_like of int (numpy or cupy)

    Returns
    -------
    int
    """
    xp = backend.get_array_module(row_lengths)
    lengths = xp.asarray(row_lengths).ravel()
    n = int(lengths.shape[0])
    if n == 0:
        return 0
    need = -(-n // 3)  # ceil(n / 3) rows must reach K
    kth = n - need     # ascending position of the need-th largest
    return max(int(xp.partition(lengths, kth)[kth]), 0)


class HYB(SparseMatrix):
    """Hybrid ELL + COO format.

    Parameters
    ----------
    ell : ELL
        The first K entries of every row.
    coo : COO
        The remaining entries of rows longer than K.  Sorted by row then column here
        if it is not already.
    check : bool, default False
        Also run the O(nnz) checks of both parts, and that only rows with a full ELL
        slice spill into the COO.

    Attributes
    ----------
    K : int
        ELL width.
    ell, coo : ELL, COO
    ell_fill : float
        Stored ELL entries / (K * nrows) (1.0 when K * nrows == 0).
    coo_share : float
        Share of the entries held by the COO part (0.0 when nnz == 0).
    """

    format = "hyb"

    def __init__(self, ell, coo, *, check=False):
        if not isinstance(ell, ELL):
            raise InvalidValue(f"HYB: ell must be an hpgraph ELL, got {type(ell).__name__}")
        if not isinstance(coo, COO):
            raise InvalidValue(f"HYB: coo must be an hpgraph COO, got {type(coo).__name__}")
        if ell.shape != coo.shape:
            raise DimensionMismatch(f"HYB: ell has shape {ell.shape} but coo has shape {coo.shape}")
        if ell.on_device != coo.on_device:
            raise InvalidGraph("HYB: ell and coo must be on the same side (host/device)")
        if ell.is_pattern != coo.is_pattern:
            raise InvalidGraph("HYB: ell and coo must both have values or both be pattern-only")
        if ell.dtype != coo.dtype:
            raise DomainMismatch(f"HYB: ell values are {ell.dtype} but coo values are {coo.dtype}")
        if ell.index_dtype != coo.index_dtype:
            wide = np.dtype(np.int64)
            ell, coo = ell.with_index_dtype(wide), coo.with_index_dtype(wide)
        coo = coo.sort()
        self._setup(ell, coo, False)
        self._check_cheap()
        if check:
            self._check_full()

    def _setup(self, ell, coo, from_sorted_csr):
        self._ell = ell
        self._coo = coo
        self._xp = ell.xp
        self._shape = ell.shape
        self._index_dtype = ell.index_dtype
        self._dtype = ell.dtype
        self._from_sorted = from_sorted_csr

    @classmethod
    def _new(cls, ell, coo, from_sorted_csr=False):
        obj = cls.__new__(cls)
        obj._setup(ell, coo, from_sorted_csr)
        return obj

    # -- attributes ----------------------------------------------------------------------

    @property
    def ell(self) -> ELL:
        return self._ell

    @property
    def coo(self) -> COO:
        return self._coo

    @property
    def K(self) -> int:
        return self._ell.K

    @property
    def nnz(self) -> int:
        return self._ell.nnz + self._coo.nnz

    @property
    def ell_fill(self) -> float:
        slots = self.K * self.nrows
        return 1.0 if slots == 0 else self._ell.nnz / slots

    @property
    def coo_share(self) -> float:
        nnz = self.nnz
        return 0.0 if nnz == 0 else self._coo.nnz / nnz

    def row_lengths(self):
        """Stored entries per row."""
        xp = self._xp
        lengths = self._ell.row_lengths()
        if self._coo.nnz:
            lengths = lengths + bincount(xp, self._coo.row, minlength=self.nrows).astype(self._index_dtype)
        return lengths

    def _index_sizes(self) -> tuple:
        return (self.nrows, self.ncols, self.nnz, self.K * self.nrows)

    def _repr_extra(self) -> str:
        return f", K={self.K}, ell_fill={self.ell_fill:.3f}, coo_share={self.coo_share:.3f}"

    # -- base-class hooks ----------------------------------------------------------------

    def _map(self, index_fn, values_fn):
        return HYB._new(self._ell._map(index_fn, values_fn), self._coo._map(index_fn, values_fn),
                        self._from_sorted)

    def _with_values(self, values):  # pragma: no cover - astype/pattern go through the parts
        raise NotImplementedError

    def astype(self, dtype):
        dtype = dtypes.lookup_dtype(dtype)
        if self.is_pattern or dtype != self._dtype:
            return HYB._new(self._ell.astype(dtype), self._coo.astype(dtype), self._from_sorted)
        return self

    def pattern(self):
        if self.is_pattern:
            return self
        return HYB._new(self._ell.pattern(), self._coo.pattern(), self._from_sorted)

    def _check_cheap(self):
        ell, coo = self._ell, self._coo
        ell._check_cheap()
        coo._check_cheap()
        if ell.shape != coo.shape:
            raise InvalidGraph(f"HYB: ell has shape {ell.shape} but coo has shape {coo.shape}")
        if ell.index_dtype != coo.index_dtype:
            raise InvalidGraph(f"HYB: ell indices are {ell.index_dtype} but coo indices are {coo.index_dtype}")
        if ell.dtype != coo.dtype:
            raise InvalidGraph(f"HYB: ell values are {ell.dtype} but coo values are {coo.dtype}")

    def _check_full(self):
        xp = self._xp
        self._ell._check_full()
        self._coo._check_full()
        coo = self._coo
        if coo.nnz:
            if not coo.is_sorted:
                raise InvalidGraph("HYB: coo must be sorted by row, then column")
            # A row may spill into the COO only once its K ELL slots are all used.
            full = (self._ell.row_lengths() == self.K)
            bad = ~full[coo.row]
            if any_true(xp, bad):
                pos = first_bad(xp, bad)
                r = int(coo.row[pos])
                raise InvalidGraph(f"HYB: coo holds an entry of row {r} (coo.row[{pos}]) although that "
                                   f"row uses fewer than K={self.K} ELL slots")

    # -- conversions ---------------------------------------------------------------------

    @classmethod
    def from_csr(cls, csr, K=None):
        """HYB of a CSR; ``K`` defaults to :func:`hyb_width` of the row lengths."""
        from .csr import CSR

        if not isinstance(csr, CSR):
            csr = csr.to_csr()
        K = hyb_width(csr.row_lengths()) if K is None else _check_width(K)
        ell, coo = split_csr(csr, K)
        return cls._new(ell, coo, True)

    @classmethod
    def from_coo(cls, coo, K=None, index_dtype=None):
        """HYB of a COO (through a sorted CSR)."""
        from .csr import CSR

        return cls.from_csr(CSR.from_coo(coo, index_dtype=index_dtype), K=K)

    def to_hyb(self, K=None, index_dtype=None):
        if K is None or int(K) == self.K:
            return self.with_index_dtype(index_dtype)
        return HYB.from_csr(self.to_csr(index_dtype=index_dtype), K=K)

    def to_csr(self, index_dtype=None):
        """Direct merge into CSR: every entry is scattered to its final slot, no sort.

        Row r holds its ELL entries first (in slot order), then its COO entries (the COO is
        row-sorted, so entry i of the COO is the ``i - coo_start[r]``-th of its row).
        """
        from .csr import CSR, sort_compressed

        xp = self._xp
        ell, coo = self._ell, self._coo
        idt = self._index_dtype
        nrows, nnz = self.nrows, self.nnz
        valid = ell.indices != PAD                                  # (K, nrows)
        ell_len = valid.sum(axis=0, dtype=idt)                      # (nrows,)
        if coo.nnz:
            coo_len = bincount(xp, coo.row, minlength=nrows).astype(idt)
        else:
            coo_len = xp.zeros(nrows, dtype=idt)
        indptr = counts_to_indptr(xp, ell_len + coo_len, idt)
        indices = xp.empty(nnz, dtype=idt)
        values = None if self.is_pattern else xp.empty(nnz, dtype=self._dtype)
        if ell.nnz:
            slot_in_row = xp.cumsum(valid, axis=0, dtype=idt) - 1  # padding may sit anywhere
            k, r = xp.nonzero(valid)
            dest = indptr[r] + slot_in_row[k, r]
            indices[dest] = ell.indices[k, r]
            if values is not None:
                values[dest] = ell.values[k, r]
        if coo.nnz:
            coo_start = counts_to_indptr(xp, coo_len, idt)
            row = coo.row
            j = xp.arange(coo.nnz, dtype=idt) - coo_start[row]
            dest = indptr[row] + ell_len[row] + j
            indices[dest] = coo.col
            if values is not None:
                values[dest] = coo.values
        if not self._from_sorted and not rows_sorted(xp, indptr, indices):
            indices, values = sort_compressed(xp, indptr, indices, values, nrows, self.ncols, idt)
        return CSR._new(indptr, indices, values, self._shape).with_index_dtype(index_dtype)

    def to_coo(self, index_dtype=None):
        return self.to_csr(index_dtype=index_dtype).to_coo()

    def to_scipy(self, copy: bool = True):
        return self.to_csr().to_scipy(copy=copy)
