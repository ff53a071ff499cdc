"""Row-wise forms of ``select``, ``reduce_rowwise``, ``ewise_mult`` and ``ewise_add`` on a
Matrix's CSR.

The general forms of :mod:`._ewise` / :mod:`._ops2` move int64 keys ``row * ncols + col``:
they divide keys back into rows and columns, compact keys, search one key array in the other
and build the result's CSR from keys.  When the output is a plain new object (no mask, no
accumulator, no ``out``), the result's entries are a row-ordered subset of ``A``'s, so these
forms keep ``A``'s rows: the kept entries' row pointers are one prefix sum read at ``A``'s
row pointers, and the result is built from its CSR directly.  ``ewise_mult`` looks each
entry of ``A`` up in ``B``'s keys.  ``ewise_add`` looks up both ways and places every entry of
the union at once: an entry lands after the entries of ``A`` and the entries only ``B`` has
that come before it in row-major order, both counts read from a lower bound in the other
operand and one prefix sum -- instead of a sort of both key arrays.  On the device
``ewise_mult`` and ``ewise_add`` are generated kernels (:mod:`._rowwise_gpu`) doing the same
placement in place, walking the entries in chunks without a row array, ``select`` with a
built-in selector is two such kernels (:mod:`._select_gpu`; a user predicate stays here),
and ``reduce_rowwise`` reads the row pointers in two generated kernels (:mod:`._reduce_gpu`).
Same results as the general forms, on NumPy and CuPy.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._arrayops import any_true
from ..formats import CSR
from ..formats._base import counts_to_indptr
from . import _kern, _reduce_gpu, _rowwise_gpu
from ._objects import Matrix, Vector

__all__ = ["plain", "select_rows", "reduce_rows", "mult_rows", "add_rows"]

_I64 = np.dtype(np.int64)


def plain(mask, accum, out) -> bool:
    """True when the result is just the operation's value (the row-wise forms apply)."""
    return mask is None and accum is None and out is None


def _subset(A, idx, vals, dtype):
    """The Matrix of ``A``'s entries at positions ``idx`` (ascending, CSR order) with ``vals``
    (one per kept entry).  The row pointers are ``idx``'s lower bounds at ``A``'s (one binary
    search per row, not a prefix sum over every entry)."""
    xp, csr = A.xp, A.csr
    # the index dtype the general form picks for the result (int32 where it fits)
    idt = _dt.index_dtype(A.nrows, A.ncols, int(idx.shape[0]))
    indptr = xp.searchsorted(idx, csr.indptr.astype(_I64, copy=False)).astype(idt, copy=False)
    cols = xp.ascontiguousarray(csr.indices[idx].astype(idt, copy=False))
    return Matrix._new(CSR._new(indptr, cols, xp.ascontiguousarray(vals), tuple(A.shape)), dtype)


def select_rows(A, keep):
    """``A``'s entries where ``keep`` (bool per stored entry), with their values (explicit
    ones for a pattern matrix, as the general form stores)."""
    idx = A.xp.flatnonzero(keep)
    return _subset(A, idx, A._values()[idx], A.dtype)


def reduce_rows(A, monoid):
    """``reduce_rowwise(A, monoid)``: one value per non-empty row (``monoid`` typed)."""
    xp, csr = A.xp, A.csr
    if xp is not np and not monoid.terminal_any:
        rows, vals = _reduce_gpu.reduce_rows(xp, csr.indptr, A._values(), monoid)
        return Vector._new(xp, rows, vals, A.nrows, monoid.dtype)
    ptr = csr.indptr.astype(_I64, copy=False)
    rows = xp.flatnonzero(ptr[1:] != ptr[:-1]).astype(_I64, copy=False)
    vals = _kern.reduce_segments(monoid, _kern.cast(A._values(), monoid.dtype, xp), ptr[rows], xp)
    return Vector._new(xp, rows, vals, A.nrows, monoid.dtype)


def _positions(A, B):
    """``(pos, low)`` for every entry of ``A`` (int64, host arrays): its position in ``B``'s
    CSR or -1, and the position of the first entry of ``B``'s row at or right of its column."""
    _, rows, cols = A._coords()
    # keys sort row-major, so the global lower bound is the row-local one
    kb = B._keys()
    ka = rows * max(B.ncols, 1) + cols
    low = np.searchsorted(kb, ka)
    at = np.minimum(low, max(kb.shape[0] - 1, 0))
    hit = (kb[at] == ka) if kb.shape[0] else np.zeros(ka.shape[0], dtype=bool)
    return np.where(hit, low, -1), low


def mult_rows(A, B, op):
    """``ewise_mult(A, B, op)`` (``op`` typed) of two matrices."""
    xp = A.xp
    if xp is not np:
        return _rowwise_gpu.mult_rows(A, B, op)
    pos, _ = _positions(A, B)
    idx = xp.flatnonzero(pos >= 0)
    pb = pos[idx]
    av, bv = A._values()[idx], B._values()[pb]
    if op.is_index_op:
        _, rows, cols = A._coords()
        z = _kern.binary(op, av, bv, xp, i=rows[idx], j=cols[idx])
    else:
        z = _kern.binary(op, av, bv, xp)
    return _subset(A, idx, z, op.out_dtype)


def add_rows(A, B, op):
    """``ewise_add(A, B, op)`` (``op`` typed) of two matrices: ``op(a, b)`` where both have
    an entry, the one value (cast) where one has."""
    xp = A.xp
    if xp is not np:
        return _rowwise_gpu.add_rows(A, B, op)
    a, b = A.csr, B.csr
    out_dt = op.out_dtype
    pos_b, low_b = _positions(A, B)            # per entry of A
    pos_a, low_a = _positions(B, A)            # per entry of B
    shared = pos_b >= 0
    b_only = pos_a < 0
    only_b = xp.flatnonzero(b_only)
    c_only = counts_to_indptr(xp, b_only, _I64)      # B-only entries before each entry of B
    outptr = a.indptr.astype(_I64) + c_only[b.indptr.astype(_I64)]
    # Row-major order: an entry of A (index i) comes after the i entries of A before it and the
    # B-only entries of B before its lower bound in B; the k-th B-only entry comes after the k
    # before it and the entries of A before its lower bound in A.
    at_a = xp.arange(int(a.nnz), dtype=_I64) + c_only[low_b]
    at_b = low_a[only_b] + xp.arange(int(only_b.shape[0]), dtype=_I64)
    m = int(a.nnz) + int(only_b.shape[0])
    idt = _dt.index_dtype(A.nrows, A.ncols, m)
    cols = xp.empty(m, dtype=idt)
    cols[at_a] = a.indices
    cols[at_b] = b.indices[only_b]
    z = _kern.cast(A._values(), out_dt, xp).copy()      # A's own values stay as they are
    if any_true(xp, shared):
        pb = pos_b[shared]
        av, bv = A._values()[shared], B._values()[pb]
        if op.is_index_op:
            _, ra, ca = A._coords()
            z[shared] = _kern.binary(op, av, bv, xp, i=ra[shared], j=ca[shared])
        else:
            z[shared] = _kern.binary(op, av, bv, xp)
    vals = xp.empty(m, dtype=out_dt)
    vals[at_a] = z
    vals[at_b] = _kern.cast(B._values()[only_b], out_dt, xp)
    return Matrix._new(CSR._new(outptr.astype(idt), cols, vals, tuple(A.shape)), out_dt)
