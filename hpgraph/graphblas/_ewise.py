"""Element-wise operations: :func:`ewise_add`, :func:`ewise_mult`, :func:`ewise_union`,
:func:`apply` and :func:`select`.

All work on the sorted keys of the operands (union / intersection by binary search) and
apply the operator once over the entries that meet, with the operator's NumPy form on the
host and its compiled CUDA expression on the device (:mod:`hpgraph.graphblas._kern`);
``ewise_add``, ``ewise_mult`` and ``select`` of matrices with a plain output (no mask,
accumulator or ``out``) work on the rows of ``A``'s CSR instead (:mod:`._rowwise`).
Every one takes ``mask``, ``accum``, ``replace`` and ``out`` as :func:`hpgraph.graphblas.mxm`.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._arrayops import any_true
from ..exceptions import DimensionMismatch, DomainMismatch, InvalidValue
from . import _kern, _rowwise, _select_gpu
from ._args import as_mask, binary_op, check_out, same_side, write
from ._keys import lookup, union
from ._objects import Matrix, Vector

__all__ = ["ewise_add", "ewise_mult", "ewise_union", "apply", "select", "UNARY", "SELECT",
           "INDEXUNARY"]

_I64 = np.dtype(np.int64)


def _pair(A, B, name):
    if isinstance(A, Matrix) and isinstance(B, Matrix):
        kind = "matrix"
    elif isinstance(A, Vector) and isinstance(B, Vector):
        kind = "vector"
    else:
        raise InvalidValue(f"{name}: A and B must both be Matrix or both Vector, got "
                           f"{type(A).__name__} and {type(B).__name__}")
    if tuple(A.shape) != tuple(B.shape):
        raise DimensionMismatch(f"{name}: A has shape {tuple(A.shape)} but B has shape {tuple(B.shape)}")
    return kind


def _kind(A, what):
    if isinstance(A, Matrix):
        return "matrix"
    if isinstance(A, Vector):
        return "vector"
    raise InvalidValue(f"{what} must be an hpgraph Matrix or Vector, got {type(A).__name__}")


def _finish(xp, keys, vals, dtype, A, kind, mask, accum, replace, out):
    shape = tuple(A.shape)
    return write(xp, keys, vals, dtype, shape, out=out, mask=mask, accum=accum, replace=replace,
                 kind=kind)


def _prep(A, B, name, mask, out):
    kind = _pair(A, B, name) if B is not None else _kind(A, "A")
    mask = as_mask(mask, tuple(A.shape))
    out = check_out(out, tuple(A.shape), kind)
    return kind, mask, out


def ewise_add(A, B, op="plus", *, mask=None, accum=None, replace=False, out=None):
    """Union: ``op(a, b)`` where both have an entry, ``a`` or ``b`` (cast) where one has.

    ``op`` is a binary op or monoid (object, name or Python function), typed by the
    promotion of the operand dtypes.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> u = hp.Vector.from_coo(np.array([0, 1]), np.array([1, 2]), size=3)
    >>> v = hp.Vector.from_coo(np.array([1, 2]), np.array([10, 20]), size=3)
    >>> hp.graphblas.ewise_add(u, v, "plus").to_dense().tolist()
    [1, 12, 20]
    """
    kind, mask, out = _prep(A, B, "ewise_add", mask, out)
    t = binary_op(op, _dt.result_type(A.dtype, B.dtype))
    xp, (A, B) = same_side(A, B)
    if kind == "matrix" and _rowwise.plain(mask, accum, out):
        return _rowwise.add_rows(A, B, t)
    keys, pa, pb = union(xp, A._keys(), B._keys())
    both = (pa >= 0) & (pb >= 0)
    z = xp.empty(keys.shape[0], dtype=t.out_dtype)
    oa, ob = (pa >= 0) & ~both, (pb >= 0) & ~both
    z[oa] = _kern.cast(A._values()[pa[oa]], t.out_dtype, xp)
    z[ob] = _kern.cast(B._values()[pb[ob]], t.out_dtype, xp)
    if any_true(xp, both):
        z[both] = _apply_op(xp, t, A._values()[pa[both]], B._values()[pb[both]], keys[both], A)
    return _finish(xp, keys, z, t.out_dtype, A, kind, mask, accum, replace, out)


def ewise_union(A, B, op, left_default, right_default, *, mask=None, accum=None, replace=False,
                out=None):
    """Union with defaults: ``op(a, b)`` where both have an entry, ``op(a, right_default)``
    where only ``A`` has one, ``op(left_default, b)`` where only ``B`` has one.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> u = hp.Vector.from_coo(np.array([0, 1]), np.array([5, 7]), size=3)
    >>> v = hp.Vector.from_coo(np.array([1, 2]), np.array([1, 2]), size=3)
    >>> hp.graphblas.ewise_union(u, v, "minus", 0, 0).to_dense().tolist()
    [5, 6, -2]
    """
    kind, mask, out = _prep(A, B, "ewise_union", mask, out)
    for what, dv in (("left_default", left_default), ("right_default", right_default)):
        _scalar(dv, np.float64, what)
    # typed by the operands and the defaults, as python-graphblas does
    t = binary_op(op, _dt.result_type(A.dtype, B.dtype, _scalar_dtype(left_default),
                                      _scalar_dtype(right_default)))
    xp, (A, B) = same_side(A, B)
    keys, pa, pb = union(xp, A._keys(), B._keys())
    av = xp.empty(keys.shape[0], dtype=t.in_dtype)
    bv = xp.empty(keys.shape[0], dtype=t.in_dtype)
    ha, hb = pa >= 0, pb >= 0
    av[ha] = _kern.cast(A._values()[pa[ha]], t.in_dtype, xp)
    av[~ha] = _scalar(left_default, t.in_dtype, "left_default")
    bv[hb] = _kern.cast(B._values()[pb[hb]], t.in_dtype, xp)
    bv[~hb] = _scalar(right_default, t.in_dtype, "right_default")
    z = _apply_op(xp, t, av, bv, keys, A)
    return _finish(xp, keys, z, t.out_dtype, A, kind, mask, accum, replace, out)


def ewise_mult(A, B, op="times", *, mask=None, accum=None, replace=False, out=None):
    """Intersection: ``op(a, b)`` where both have an entry.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> u = hp.Vector.from_coo(np.array([0, 1]), np.array([5, 7]), size=3)
    >>> v = hp.Vector.from_coo(np.array([1, 2]), np.array([2, 3]), size=3)
    >>> w = hp.graphblas.ewise_mult(u, v, "times")
    >>> w.to_coo()[0].tolist(), w.to_coo()[1].tolist()
    ([1], [14])
    """
    kind, mask, out = _prep(A, B, "ewise_mult", mask, out)
    t = binary_op(op, _dt.result_type(A.dtype, B.dtype))
    xp, (A, B) = same_side(A, B)
    if kind == "matrix" and _rowwise.plain(mask, accum, out):
        return _rowwise.mult_rows(A, B, t)
    ka, kb = A._keys(), B._keys()
    found, pos = lookup(xp, ka, kb)
    keys = ka[found]
    z = _apply_op(xp, t, A._values()[found], B._values()[pos[found]], keys, A)
    return _finish(xp, keys, z, t.out_dtype, A, kind, mask, accum, replace, out)


def _rc(xp, keys, A):
    """(row, col) of keys of A (a vector's index is its row; its column is 0)."""
    if isinstance(A, Matrix):
        nc = max(A.ncols, 1)
        return keys // nc, keys % nc
    return keys, xp.zeros_like(keys)


def _apply_op(xp, t, a, b, keys, A):
    if t.is_index_op:
        i, j = _rc(xp, keys, A)
        return _kern.binary(t, a, b, xp, i=i, j=j)
    return _kern.binary(t, a, b, xp)


def _scalar(value, dtype, what):
    try:
        arr = np.asarray(value)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf":
            raise TypeError
    except Exception:
        raise InvalidValue(f"{what} must be a number, got {value!r}") from None
    return _kern.cast(arr.reshape(1), dtype, np)[0]


# ---------------------------------------------------------------------------------------
# apply

#: unary operators, as (binary op name, bound scalar, bound side) of a registry op
UNARY = {
    "identity": ("first", 0, "right"),
    "ainv": ("minus", 0, "left"),
    "minv": ("div", 1, "left"),
    "one": ("pair", 0, "right"),
    "lnot": ("eq", 0, "right"),
    "abs": None,
}

#: index-unary operators for apply: name -> f(i, j, thunk) on int64 arrays
INDEXUNARY = {
    "rowindex": lambda i, j, t: i + t,
    "colindex": lambda i, j, t: j + t,
    "diagindex": lambda i, j, t: j - (i + t),
}


def apply(A, op, left=None, right=None, thunk=None, *, mask=None, accum=None, replace=False,
          out=None):
    """``op`` applied to every entry of ``A``.

    ``op`` is one of:

    * a unary op name (:data:`UNARY`: ``"identity"``, ``"ainv"``, ``"minv"``, ``"abs"``,
      ``"lnot"``, ``"one"``) or a Python function of the value array (host only);
    * a binary op with a bound scalar: ``apply(A, "plus", right=1)`` gives ``a + 1``,
      ``apply(A, "minus", left=1)`` gives ``1 - a``;
    * an index-unary op (:data:`INDEXUNARY`: ``"rowindex"``, ``"colindex"``, ``"diagindex"``)
      with ``thunk`` (int64 results), or a Python function ``f(x, i, j, thunk)``
      (given ``thunk=``; array in, array out, on either backend).

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> v = hp.Vector.from_coo(np.array([0, 2]), np.array([1, -2]), size=3)
    >>> hp.graphblas.apply(v, "plus", right=10).to_coo()[1].tolist()
    [11, 8]
    """
    kind, mask, out = _prep(A, None, "apply", mask, out)
    xp, (A,) = same_side(A)
    keys, vals = A._keys(), A._values()
    if left is not None and right is not None:
        raise InvalidValue("apply: give left= or right=, not both")
    if isinstance(op, str) and op in INDEXUNARY:
        i, j = _rc(xp, keys, A)
        z = INDEXUNARY[op](i, j, int(thunk or 0)).astype(_I64)
    elif isinstance(op, str) and op in UNARY and left is None and right is None:
        z = _unary(xp, op, vals, A.dtype)
    elif left is not None or right is not None:
        sval = left if left is not None else right
        sdt = np.asarray(sval).dtype if np.asarray(sval).dtype.kind in "biuf" else None
        if sdt is None:
            raise InvalidValue(f"apply: the bound scalar must be a number, got {sval!r}")
        t = binary_op(op, _dt.result_type(A.dtype, _scalar_dtype(sval)))
        s = _scalar(sval, t.in_dtype, "left" if left is not None else "right")
        z = _kern.binary(t, s, vals, xp) if left is not None else _kern.binary(t, vals, s, xp)
    elif callable(op) and thunk is not None:
        i, j = _rc(xp, keys, A)
        z = xp.asarray(op(vals, i, j, thunk))
    elif callable(op):
        if xp is not np:
            raise NotImplementedError("apply with a Python unary function runs on the host only; "
                                      "on the GPU use a binary op with a bound scalar")
        z = np.asarray(op(vals.copy()))
    else:
        raise InvalidValue(f"apply: op must be a unary op name ({', '.join(UNARY)}), an index-unary "
                           f"name ({', '.join(INDEXUNARY)}), a binary op with left= or right=, or "
                           f"a Python function; got {op!r}")
    if z.shape != keys.shape:
        raise InvalidValue(f"apply: op returned shape {tuple(z.shape)}, expected {tuple(keys.shape)}")
    try:
        zdt = _dt.lookup_dtype(z.dtype)
    except DomainMismatch as exc:
        raise DomainMismatch(f"apply: op result: {exc}") from None
    return _finish(xp, keys, z, zdt, A, kind, mask, accum, replace, out)


def _scalar_dtype(v):
    if isinstance(v, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(v, int):
        return np.dtype(np.int64)
    if isinstance(v, float):
        return np.dtype(np.float64)
    return _dt.lookup_dtype(np.asarray(v).dtype)


def _unary(xp, name, vals, dtype):
    if name == "abs":
        if dtype.kind in "bu":
            return vals.copy()
        neg = _kern.binary(binary_op("minus", dtype), _scalar(0, dtype, "0"), vals, xp)
        return _kern.binary(binary_op("max", dtype), vals, neg, xp)
    opname, s, side = UNARY[name]
    t = binary_op(opname, dtype)
    sv = _scalar(s, dtype, name)
    z = _kern.binary(t, sv, vals, xp) if side == "left" else _kern.binary(t, vals, sv, xp)
    return _kern.cast(z, dtype, xp)


# ---------------------------------------------------------------------------------------
# select

#: built-in selectors: name -> f(x, i, j, thunk) giving the entries kept
SELECT = {
    "tril": lambda x, i, j, t: j <= i + t,
    "triu": lambda x, i, j, t: j >= i + t,
    "diag": lambda x, i, j, t: j == i + t,
    "offdiag": lambda x, i, j, t: j != i + t,
    "rowle": lambda x, i, j, t: i <= t,
    "rowgt": lambda x, i, j, t: i > t,
    "colle": lambda x, i, j, t: j <= t,
    "colgt": lambda x, i, j, t: j > t,
}
_VALUE_SELECT = {"valueeq": "eq", "valuene": "ne", "valuelt": "lt", "valuele": "le",
                 "valuegt": "gt", "valuege": "ge", "==": "eq", "!=": "ne", "<": "lt", "<=": "le",
                 ">": "gt", ">=": "ge"}
_INDEX_DEFAULT = {"tril", "triu", "diag", "offdiag"}


def _select_in_place(A, op, thunk):
    """``select(A, op, thunk)`` of a built-in selector with a plain output, by the generated
    kernels of :mod:`._select_gpu` (``thunk`` checked by the caller)."""
    if op in _select_gpu.RANGE_BOUNDS:
        return _select_gpu.range_rows(A, op, int(thunk or 0))
    if op in SELECT:
        return _select_gpu.select_rows(A, _select_gpu.INDEX_PRED[op], int(thunk or 0), _I64,
                                       needs_row=op not in ("colle", "colgt"))
    t = binary_op(_VALUE_SELECT[op], A.dtype)
    return _select_gpu.select_rows(A, t.c_expr("xv", "yv", "i", "j"),
                                   _scalar(thunk, A.dtype, "thunk"), A.dtype,
                                   in_dtype=t.in_dtype, preamble=t.c_preamble, needs_row=False)


def select(A, op, thunk=None, *, mask=None, accum=None, replace=False, out=None):
    """The entries of ``A`` that ``op`` keeps.

    ``op``: ``"tril"``, ``"triu"``, ``"diag"``, ``"offdiag"`` (``thunk`` = diagonal offset,
    default 0), ``"rowle"``, ``"rowgt"``, ``"colle"``, ``"colgt"`` (``thunk`` = index),
    ``"valueeq"`` / ``"=="``, ``"valuene"`` / ``"!="``, ``"valuelt"`` / ``"<"``,
    ``"valuele"`` / ``"<="``, ``"valuegt"`` / ``">"``, ``"valuege"`` / ``">="`` (``thunk`` =
    the value compared with, cast to ``A.dtype``), or a user predicate ``f(x, i, j, thunk)``
    returning a bool array (``x``, ``i``, ``j`` arrays of the backend ``A`` lives on).
    Vectors: ``i`` is the index, ``j`` is 0.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_dense(np.arange(9).reshape(3, 3))
    >>> hp.graphblas.select(A, "tril").nvals, hp.graphblas.select(A, ">", 4).nvals
    (6, 4)
    """
    kind, mask, out = _prep(A, None, "select", mask, out)
    xp, (A,) = same_side(A)
    rowwise = kind == "matrix" and _rowwise.plain(mask, accum, out)
    # a built-in selector into a plain device matrix: generated kernels on the CSR
    in_place = rowwise and xp is not np
    if isinstance(op, str) and op in SELECT:
        if thunk is None and op not in _INDEX_DEFAULT:
            raise InvalidValue(f"select {op!r} needs thunk= (the row / column index)")
        if in_place:
            return _select_in_place(A, op, thunk)
        keys, vals = A._keys(), A._values()
        i, j = A._coords()[1:] if kind == "matrix" else _rc(xp, keys, A)
        keep = SELECT[op](vals, i, j, int(thunk or 0))
    elif isinstance(op, str) and op in _VALUE_SELECT:
        if thunk is None:
            raise InvalidValue(f"select {op!r} needs thunk= (the value compared with)")
        if in_place:
            return _select_in_place(A, op, thunk)
        t = binary_op(_VALUE_SELECT[op], A.dtype)
        keys, vals = A._keys(), A._values()
        keep = _kern.binary(t, vals, _scalar(thunk, A.dtype, "thunk"), xp)
    elif callable(op) and not isinstance(op, str):
        keys, vals = A._keys(), A._values()
        # copies: the user's predicate may write to its arguments
        i, j = (a.copy() for a in A._coords()[1:]) if kind == "matrix" else _rc(xp, keys, A)
        keep = xp.asarray(op(vals, i, j, thunk))
        if keep.dtype != np.bool_ or keep.shape != keys.shape:
            raise InvalidValue(f"select: the predicate must return a bool array of shape "
                               f"{tuple(keys.shape)}, got {keep.dtype} {tuple(keep.shape)}")
    else:
        names = list(SELECT) + list(_VALUE_SELECT)
        raise InvalidValue(f"select: op must be one of {', '.join(names)} or a predicate "
                           f"f(x, i, j, thunk); got {op!r}")
    if rowwise:
        return _rowwise.select_rows(A, keep)
    return _finish(xp, keys[keep], vals[keep], A.dtype, A, kind, mask, accum, replace, out)

