"""Input checks and duplicate combining for building Matrix / Vector objects.

Host or device arrays (NumPy / CuPy) alike; duplicates are combined left to right in input
order with the ``dup_op`` binary operator (only associativity is assumed).
"""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .. import dtypes as _dt
from ..exceptions import DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidValue
from . import _kern
from ._keys import repeat_index, segment_starts, sort_by

_I64 = np.dtype(np.int64)


def _xp_of(*arrays):
    for a in arrays:
        if a is not None and _backend.is_device_array(a):
            return _backend.cupy()
    return np


def _dtype(dtype, what="dtype"):
    try:
        return _dt.lookup_dtype(dtype)
    except DomainMismatch as exc:
        raise DomainMismatch(f"{what}: {exc}") from None


def _size(n, what):
    try:
        v = int(n)
        if v != n or v < 0:
            raise ValueError
    except (TypeError, ValueError):
        raise InvalidValue(f"{what} must be a non-negative integer, got {n!r}") from None
    return v


def _index_array(a, xp, what, bound):
    a = xp.asarray(a)
    if a.size == 0:
        a = a.astype(_I64)
    if a.dtype.kind not in "iu":
        raise InvalidValue(f"{what} must hold integers, got dtype {a.dtype}")
    if a.ndim != 1:
        raise DimensionMismatch(f"{what} must be 1-D, got shape {tuple(a.shape)}")
    a = a.astype(_I64)
    if a.shape[0]:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >= bound:
            bad = lo if lo < 0 else hi
            raise IndexOutOfBound(f"{what} holds {bad}, outside [0, {bound})")
    return a


def _values_array(values, n, xp, dtype, what="values"):
    if values is None:
        values = True if dtype is None else 1
    v = xp.asarray(values)
    if dtype is None:
        dtype = _dtype(v.dtype if v.dtype != np.dtype(object) else np.float64, what)
    else:
        dtype = _dtype(dtype)
    if v.ndim == 0:
        v = xp.full(n, v.item() if xp is np else v, dtype=dtype)
    if v.ndim != 1 or v.shape[0] != n:
        raise DimensionMismatch(f"{what} must be a scalar or have length {n} (one per index), "
                                f"got shape {tuple(v.shape)}")
    _dtype(v.dtype, what)
    return _kern.cast(v, dtype, xp), dtype


def _combine_duplicates(xp, keys, vals, dup_op, dtype, what):
    """Sort entries by key; combine equal keys with ``dup_op`` (error without one)."""
    perm = sort_by(xp, keys)
    keys, vals = keys[perm], vals[perm]
    starts = segment_starts(xp, keys)
    if starts.shape[0] == keys.shape[0]:
        return keys, vals
    if dup_op is None:
        raise InvalidValue(f"{what}: the indices hold duplicates; pass dup_op= (a binary op such "
                           "as 'plus' or 'first') to combine them")
    from ._args import binary_op

    op = binary_op(dup_op, dtype, "dup_op")
    red = _SegmentOp(op)
    out = red.reduce(xp, vals, starts)
    return keys[starts], _kern.cast(out, dtype, xp)


class _SegmentOp:
    """A binary op used as a left-to-right segment reduction (``dup_op``)."""

    def __init__(self, op):
        self.op = op

    def reduce(self, xp, vals, starts):
        if xp is np:
            from ..ops._core import _tree_reduce_segments

            return _tree_reduce_segments(self.op.np_call, _kern.cast(vals, self.op.in_dtype, xp),
                                         starts, self.op.out_dtype)
        # on the device: the same log-step pairing with the compiled operator
        n = vals.shape[0]
        lengths = xp.diff(xp.concatenate([starts, xp.asarray([n], dtype=_I64)]))
        seg = repeat_index(xp, lengths, n)
        v = vals
        nseg = starts.shape[0]
        while v.shape[0] > nseg:
            st = segment_starts(xp, seg)
            pos = xp.arange(seg.shape[0]) - st[repeat_index(xp, xp.diff(xp.concatenate(
                [st, xp.asarray([seg.shape[0]], dtype=_I64)])), seg.shape[0])]
            left = xp.flatnonzero(pos % 2 == 0)
            right = left + 1
            has = right < seg.shape[0]
            has[has] = seg[right[has]] == seg[left[has]]
            new = _kern.cast(v[left], self.op.out_dtype, xp).copy()
            li = left[has]
            if li.shape[0]:
                new[has] = _kern.binary(self.op, v[li], v[li + 1], xp)
            v, seg = new, seg[left]
        return v
