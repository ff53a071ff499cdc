"""Structural operations: :func:`reduce_rowwise`, :func:`reduce_columnwise`,
:func:`reduce_scalar`, :func:`extract`, :func:`assign`, :func:`transpose`, :func:`kronecker`
and :func:`diag`.

Each one moves keys with sort / binary search (NumPy or CuPy) and meets values only through
the operator kernels of :mod:`hpgraph.graphblas._kern`.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._arrayops import any_true
from ..exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue
from . import _kern, _rowwise
from ._args import as_mask, binary_op, check_obj, check_out, monoid_op, same_side, write
from ._keys import repeat_index, segment_starts, sort_by, union
from ._objects import Matrix, Vector

__all__ = ["reduce_rowwise", "reduce_columnwise", "reduce_scalar", "extract", "assign",
           "transpose", "kronecker", "diag"]

_I64 = np.dtype(np.int64)


def _reduce_dtype(monoid, dtype):
    """Reductions type a bool input by int64 for ``plus`` (a count), as python-graphblas."""
    name = monoid if isinstance(monoid, str) else getattr(monoid, "name", None)
    if dtype == np.bool_ and name in ("plus", "monoid.plus"):
        return np.dtype(np.int64)
    return dtype


def reduce_rowwise(A, monoid="plus", *, mask=None, accum=None, replace=False, out=None):
    """Vector ``w[i] = ADD_j A[i, j]`` over the rows that hold an entry.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_dense(np.array([[1, 2], [0, 5]]), missing_value=0)
    >>> hp.graphblas.reduce_rowwise(A, "plus").to_coo()[1].tolist()
    [3, 5]
    """
    A = check_obj(A, "matrix", "A")
    m = monoid_op(monoid, _reduce_dtype(monoid, A.dtype))
    mask = as_mask(mask, (A.nrows,))
    out = check_out(out, (A.nrows,), "vector")
    xp, (A,) = same_side(A)
    if _rowwise.plain(mask, accum, out):
        return _rowwise.reduce_rows(A, m)
    _, rows, _ = A._coords()
    starts = segment_starts(xp, rows)
    vals = _kern.reduce_segments(m, _kern.cast(A._values(), m.dtype, xp), starts, xp)
    return write(xp, rows[starts], vals, m.dtype, (A.nrows,), out=out, mask=mask, accum=accum,
                 replace=replace, kind="vector")


def reduce_columnwise(A, monoid="plus", *, mask=None, accum=None, replace=False, out=None):
    """Vector ``w[j] = ADD_i A[i, j]`` over the columns that hold an entry.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_dense(np.array([[1, 2], [0, 5]]), missing_value=0)
    >>> hp.graphblas.reduce_columnwise(A, "max").to_coo()[1].tolist()
    [1, 5]
    """
    A = check_obj(A, "matrix", "A")
    return reduce_rowwise(transpose(A), monoid, mask=mask, accum=accum, replace=replace, out=out)


def reduce_scalar(A, monoid="plus", *, allow_empty=True):
    """``ADD`` of every entry of a Matrix or Vector, as a NumPy scalar.

    An object without entries gives None (``allow_empty=True``, as python-graphblas) or the
    monoid's identity.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_dense(np.array([[1, 2], [0, 5]]), missing_value=0)
    >>> int(hp.graphblas.reduce_scalar(A)), int(hp.graphblas.reduce_scalar(A, "min"))
    (8, 1)
    """
    if not isinstance(A, (Matrix, Vector)):
        raise InvalidValue(f"reduce_scalar: A must be a Matrix or Vector, got {type(A).__name__}")
    m = monoid_op(monoid, _reduce_dtype(monoid, A.dtype))
    if A.nvals == 0:
        return None if allow_empty else m.dtype.type(m.identity)
    xp = A.xp
    v = _kern.reduce_segments(m, _kern.cast(A._values(), m.dtype, xp), xp.zeros(1, dtype=_I64), xp)
    return m.dtype.type(v[0].item() if xp is not np else v[0])


def transpose(A, *, mask=None, accum=None, replace=False, out=None):
    """``A^T`` (as a new Matrix).

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_coo(np.array([0, 1]), np.array([2, 0]), np.array([3, 4]), nrows=2, ncols=3)
    >>> T = hp.graphblas.transpose(A)
    >>> T.shape, [x.tolist() for x in T.to_coo()]
    ((3, 2), [[0, 2], [1, 0], [4, 3]])
    """
    A = check_obj(A, "matrix", "A")
    shape = (A.ncols, A.nrows)
    mask = as_mask(mask, shape)
    out = check_out(out, shape, "matrix")
    xp, (A,) = same_side(A)
    _, r, c = A._coords()
    keys = c * A.nrows + r
    perm = sort_by(xp, keys)
    T = write(xp, keys[perm], A._values()[perm], A.dtype, shape, out=out, mask=mask,
              accum=accum, replace=replace, kind="matrix")
    if mask is None and out is None:
        # T's own transpose is A: mxm(X, A.T) reads B^T's CSR without transposing again
        T._tcsr = A.csr if A.csr.values is not None else A.csr.astype(A.dtype)
    return T


def kronecker(A, B, op="times", *, mask=None, accum=None, replace=False, out=None):
    """Kronecker product: ``C[ia * B.nrows + ib, ja * B.ncols + jb] = op(A[ia, ja], B[ib, jb])``.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_dense(np.array([[1, 2]]), missing_value=0)
    >>> B = hp.Matrix.from_dense(np.array([[1], [10]]), missing_value=0)
    >>> hp.graphblas.kronecker(A, B).to_dense(fill_value=0).tolist()
    [[1, 2], [10, 20]]
    """
    A = check_obj(A, "matrix", "A")
    B = check_obj(B, "matrix", "B")
    shape = (A.nrows * B.nrows, A.ncols * B.ncols)
    t = binary_op(op, _dt.result_type(A.dtype, B.dtype))
    mask = as_mask(mask, shape)
    out = check_out(out, shape, "matrix")
    xp, (A, B) = same_side(A, B)
    from ._objects import _check_key_space

    _check_key_space(*shape)
    _, ar, ac = A._coords()
    _, br, bc = B._coords()
    na, nb = A.nvals, B.nvals
    ia = repeat_index(xp, xp.full(na, nb, dtype=_I64), na * nb)
    ib = xp.arange(na * nb, dtype=_I64) - ia * nb if nb else xp.zeros(0, dtype=_I64)
    rows = ar[ia] * B.nrows + br[ib]
    cols = ac[ia] * B.ncols + bc[ib]
    keys = rows * shape[1] + cols
    perm = sort_by(xp, keys)
    ia, ib, keys = ia[perm], ib[perm], keys[perm]
    if t.is_index_op:
        z = _kern.binary(t, A._values()[ia], B._values()[ib], xp, i=rows[perm], j=cols[perm])
    else:
        z = _kern.binary(t, A._values()[ia], B._values()[ib], xp)
    return write(xp, keys, z, t.out_dtype, shape, out=out, mask=mask, accum=accum,
                 replace=replace, kind="matrix")


def diag(x, k=0):
    """A Vector's diagonal matrix (entries ``(i, i + k)``; size ``n + |k|``), or a Matrix's
    ``k``-th diagonal as a Vector.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> v = hp.Vector.from_coo(np.array([0, 1]), np.array([3, 4]), size=2)
    >>> D = hp.graphblas.diag(v, 1)
    >>> D.shape, [x.tolist() for x in D.to_coo()]
    ((3, 3), [[0, 1], [1, 2], [3, 4]])
    >>> hp.graphblas.diag(D, 1).to_dense().tolist()
    [3, 4]
    """
    k = int(k)
    if isinstance(x, Vector):
        xp = x.xp
        n = x.size + abs(k)
        idx = x._keys()
        r, c = (idx, idx + k) if k >= 0 else (idx - k, idx)
        return Matrix._from_keys(xp, r * n + c, x._values().copy(), n, n, x.dtype)
    A = check_obj(x, "matrix", "x")
    xp = A.xp
    _, r, c = A._coords()
    keep = (c - r) == k
    size = max(0, min(A.nrows, A.ncols - k) if k >= 0 else min(A.nrows + k, A.ncols))
    idx = r[keep] if k >= 0 else c[keep]
    return Vector._new(xp, idx, A._values()[keep].copy(), size, A.dtype)


# ---------------------------------------------------------------------------------------
# extract / assign


def _index(ix, n, xp, what):
    """``ix`` (None, slice, int, or integer array) as an int64 index array, and whether it was
    a scalar."""
    if ix is None:
        return xp.arange(n, dtype=_I64), False
    if isinstance(ix, slice):
        return xp.arange(*ix.indices(n), dtype=_I64), False
    if isinstance(ix, (int, np.integer)):
        v = int(ix)
        if not -n <= v < n:
            raise IndexOutOfBound(f"{what} {v} is out of range for size {n}")
        return xp.asarray([v % n], dtype=_I64), True
    a = xp.asarray(ix)
    if a.size == 0:
        return xp.zeros(0, dtype=_I64), False
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise InvalidValue(f"{what} must be None, a slice, an int or a 1-D integer array, got "
                           f"{type(ix).__name__} of dtype {a.dtype}")
    a = a.astype(_I64)
    lo, hi = int(a.min()), int(a.max())
    if lo < 0 or hi >= n:
        raise IndexOutOfBound(f"{what} holds {lo if lo < 0 else hi}, outside [0, {n})")
    return a, False


def _match(xp, values, J):
    """For every ``values[e]``, the positions ``q`` with ``J[q] == values[e]``: (e, q) pairs."""
    jperm = sort_by(xp, J)
    js = J[jperm]
    lo = xp.searchsorted(js, values, side="left")
    hi = xp.searchsorted(js, values, side="right")
    cnt = (hi - lo).astype(_I64)
    e = repeat_index(xp, cnt)
    first = xp.cumsum(cnt) - cnt
    q = jperm[lo[e] + (xp.arange(e.shape[0], dtype=_I64) - first[e])]
    return e, q


def extract(A, rows=None, cols=None, *, mask=None, accum=None, replace=False, out=None):
    """Sub-matrix ``A[rows, cols]`` or sub-vector ``v[rows]``.

    ``rows`` / ``cols``: None (all), a slice, an int (gives a Vector from a Matrix) or an
    integer array (any order, repeats allowed).

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_dense(np.arange(9).reshape(3, 3))
    >>> hp.graphblas.extract(A, np.array([2, 0]), slice(0, 2)).to_dense().tolist()
    [[6, 7], [0, 1]]
    """
    if isinstance(A, Vector):
        if cols is not None:
            raise InvalidValue("extract: a Vector takes one index argument (rows)")
        xp = A.xp
        I, _ = _index(rows, A.size, xp, "rows")
        e, q = _match(xp, A._keys(), I)
        perm = sort_by(xp, q)
        shape = (int(I.shape[0]),)
        mask, out = as_mask(mask, shape), check_out(out, shape, "vector")
        return write(xp, q[perm], A._values()[e[perm]], A.dtype, shape, out=out, mask=mask,
                     accum=accum, replace=replace, kind="vector")
    A = check_obj(A, "matrix", "A")
    xp = A.xp
    I, iscal = _index(rows, A.nrows, xp, "rows")
    J, jscal = _index(cols, A.ncols, xp, "cols")
    if iscal and jscal:
        raise InvalidValue("extract: use A[i, j] element access through to_coo; extract needs a "
                           "range or an array on at least one axis")
    shape = (int(I.shape[0]), int(J.shape[0]))
    vshape = (shape[1],) if iscal else (shape[0],) if jscal else None
    if vshape is not None:
        mask, out = as_mask(mask, vshape), check_out(out, vshape, "vector")
    else:
        mask, out = as_mask(mask, shape), check_out(out, shape, "matrix")
    ptr = A.csr.indptr.astype(_I64)
    _, _, acols = A._coords()
    # entries of the selected rows, in output-row order
    cnt = ptr[I + 1] - ptr[I]
    p = repeat_index(xp, cnt)
    first = xp.cumsum(cnt) - cnt
    epos = ptr[I[p]] + (xp.arange(p.shape[0], dtype=_I64) - first[p])
    e, q = _match(xp, acols[epos], J)
    p, epos = p[e], epos[e]
    keys = p * shape[1] + q
    perm = sort_by(xp, keys)
    keys, vals = keys[perm], A._values()[epos[perm]]
    if vshape is not None:
        keys = keys % shape[1] if iscal else keys // max(shape[1], 1)
        return write(xp, keys, vals, A.dtype, vshape, out=out, mask=mask, accum=accum,
                     replace=replace, kind="vector")
    return write(xp, keys, vals, A.dtype, shape, out=out, mask=mask, accum=accum, replace=replace,
                 kind="matrix")


def assign(C, value, rows=None, cols=None, *, mask=None, accum=None, replace=False):
    """``C[rows, cols] = value`` (GrB_assign): a new object equal to ``C`` with the region
    replaced by ``value`` (a Matrix / Vector of the region's shape, or a scalar for every
    position), ``accum`` combining with ``C``'s entries there; ``mask`` (over all of ``C``)
    and ``replace`` then select what changes.  Indices must not repeat.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> v = hp.Vector.from_coo(np.array([0, 1]), np.array([1, 2]), size=4)
    >>> hp.graphblas.assign(v, 9, np.array([1, 3])).to_coo()[1].tolist()
    [1, 9, 9]
    """
    is_vec = isinstance(C, Vector)
    C = C if is_vec else check_obj(C, "matrix", "C")
    xp = C.xp
    kind = "vector" if is_vec else "matrix"
    if is_vec:
        if cols is not None:
            raise InvalidValue("assign: a Vector takes one index argument (rows)")
        I, _ = _index(rows, C.size, xp, "rows")
        J, nc = xp.zeros(1, dtype=_I64), 1
        iscal = False
        region = (int(I.shape[0]),)
    else:
        I, iscal = _index(rows, C.nrows, xp, "rows")
        J, jscal = _index(cols, C.ncols, xp, "cols")
        nc = C.ncols
        region = (int(I.shape[0]), int(J.shape[0]))
        if iscal or jscal:
            region = (region[1],) if iscal else (region[0],)
    for what, ix in (("rows", I), ("cols", J)):
        if ix.shape[0] > 1 and int(xp.unique(ix).shape[0]) != int(ix.shape[0]):
            raise InvalidValue(f"assign: {what} holds repeated indices")
    mask = as_mask(mask, tuple(C.shape))
    nJ = int(J.shape[0])
    # the region's entries of value, as keys of C
    if isinstance(value, (Matrix, Vector)):
        if tuple(value.shape) != region:
            raise DimensionMismatch(f"assign: value has shape {tuple(value.shape)} but the region "
                                    f"is {region}")
        _, value = same_side(C, value)[1]
        vk, vv = value._keys(), value._values()
        if isinstance(value, Vector):
            zero = xp.zeros_like(vk)
            pi, qj = (zero, vk) if (not is_vec and iscal) else (vk, zero)
        else:
            pi, qj = vk // max(nJ, 1), vk % max(nJ, 1)
        vdtype = value.dtype
    else:
        try:
            s = np.asarray(value)
            if s.ndim != 0 or s.dtype.kind not in "biuf":
                raise TypeError
        except Exception:
            raise InvalidValue(f"assign: value must be a Matrix, a Vector or a number, got "
                               f"{type(value).__name__}") from None
        nI = int(I.shape[0])
        pi = repeat_index(xp, xp.full(nI, nJ, dtype=_I64), nI * nJ)
        qj = xp.arange(nI * nJ, dtype=_I64) - pi * nJ
        vdtype = _dt.lookup_dtype(s.dtype) if not isinstance(value, (bool, int, float)) else \
            (np.dtype(np.bool_) if isinstance(value, bool) else C.dtype)
        vv = xp.full(pi.shape[0], s.item() if xp is not np else s, dtype=vdtype)
    tk = I[pi] * nc + J[qj]
    perm = sort_by(xp, tk)
    tk, tv = tk[perm], vv[perm]
    # C's entries inside the region
    ck, cv = C._keys(), C._values()
    in_rows = xp.zeros(C.shape[0], dtype=bool)
    in_rows[I] = True
    in_cols = xp.zeros(nc, dtype=bool)
    in_cols[J] = True
    inside = in_rows[ck // nc] & in_cols[ck % nc]
    zdt = C.dtype
    if accum is not None:
        acc = binary_op(accum, C.dtype, "accum")
        rk, pc, pt = union(xp, ck[inside], tk)
        civ, tv2 = cv[inside], tv
        z = xp.empty(rk.shape[0], dtype=zdt)
        both = (pc >= 0) & (pt >= 0)
        oc, ot = (pc >= 0) & ~both, (pt >= 0) & ~both
        z[oc] = civ[pc[oc]]
        z[ot] = _kern.cast(tv2[pt[ot]], zdt, xp)
        if any_true(xp, both):
            z[both] = _kern.cast(_kern.binary(acc, civ[pc[both]], tv2[pt[both]], xp), zdt, xp)
        region_k, region_v = rk, z
    else:
        region_k, region_v = tk, _kern.cast(tv, zdt, xp)
    zk = xp.concatenate([ck[~inside], region_k])
    zv = xp.concatenate([cv[~inside], region_v])
    perm = sort_by(xp, zk)
    return write(xp, zk[perm], zv[perm], zdt, tuple(C.shape), out=C, mask=mask, accum=None,
                 replace=replace, kind=kind)

