"""Products: :func:`mxm` (masked SpGEMM over any semiring), :func:`mxv`, :func:`vxm`.

``mxm`` (``method="expand"``) expands row ``i`` of ``A`` against the rows of ``B`` it selects
(Gustavson's row-wise product), keeps only the products whose output entry the mask lets
through (a masked product never holds the unmasked result), sorts them by output key and
reduces equal keys with the semiring's monoid.  Rows of ``A`` are processed in blocks of at
most ``max_products`` products, so memory stays bounded when the output does not fit at
once.  With a mask that is not complemented, ``method="dot"`` computes one dot product per
mask entry instead (:mod:`._dot` on the host; on the device the generated kernels of
:mod:`._mdot_gpu`), which triangle counting's ``L .* (L @ L)`` prefers.  Unmasked products
on the device run the generated bitmap SpGEMM (:mod:`._spgemm_gpu`, ``method="bitmap"``;
3.6x faster than cuSPARSE on R-MAT 15 with a tenth of its memory) or, asked for, cuSPARSE
for ``plus_times`` on floats (``method="cusparse"``) with the bitmap kernels as the fallback
where cuSPARSE gives up (:mod:`._mxm_gpu`).

``mxv`` / ``vxm`` run through :func:`hpgraph.spmv.spmv` (the engine's product, CPU or GPU)
with the vector's pattern as the active sources, then apply the GraphBLAS output step.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import DimensionMismatch, InvalidValue
from . import _kern
from ._args import _mask_keys, as_mask, check_obj, check_out, mask_allows, same_side, semiring_op, write
from ._dot import dot_work, expand_work, masked_dot
from ._keys import repeat_index, segment_starts, sort_by

__all__ = ["mxm", "mxv", "vxm"]

_I64 = np.dtype(np.int64)

#: default bound on the products held at once (per row block): 2**25 on the host, 2**27 on
#: the device (each product costs ~40 bytes of temporaries)
_MAX_PRODUCTS = {"cpu": 1 << 25, "gpu": 1 << 27}


def mxm(A, B, semiring="plus_times", *, mask=None, accum=None, replace=False, out=None,
        max_products=None, method="auto"):
    """Matrix-matrix product over a semiring: ``C[i, j] = ADD_k MUL(A[i, k], B[k, j])``.

    Parameters
    ----------
    A, B : Matrix
        ``A.ncols == B.nrows``.
    semiring : Semiring, TypedSemiring or str
        ``"plus_times"``, ``"min_plus"``, ``"plus_pair"``, a user ``hp.Semiring``...  Untyped
        semirings are typed by the promotion of ``A.dtype`` and ``B.dtype``
        (:func:`hpgraph.ops.default_dtype`).
    mask : Matrix, ``M.S``, ``M.V`` or ``~M.S`` / ``~M.V``, optional
        Output entries to compute; only those products are formed.
    accum : binary op, optional
        ``C = accum(out, T)`` where both have an entry.
    replace : bool
        Entries of ``out`` outside the mask are dropped instead of kept.
    out : Matrix, optional
        The current output ``C`` (read, never written).
    max_products : int, optional
        Bound on the products held at once (row blocks); default 2**25 on the host, 2**27
        on the device.
    method : {"auto", "expand", "dot", "cusparse", "bitmap"}
        ``"expand"``: the row-wise expansion described in the module docstring (every
        semiring, both backends).  ``"dot"``: one dot product per mask entry (needs a mask
        that is not complemented; on the device a generated kernel per semiring,
        :mod:`hpgraph.graphblas._mdot_gpu`).  ``"bitmap"``: the generated unmasked SpGEMM
        (device, no mask, an add monoid with an atomic form: not bool or 8/16-bit outputs;
        :mod:`hpgraph.graphblas._spgemm_gpu`).  ``"cusparse"``: cuSPARSE SpGEMM through
        cupyx (device, unmasked ``plus_times`` on float32 / float64 only), falling back to
        ``"bitmap"`` when cuSPARSE raises (``CUSPARSE_STATUS_INSUFFICIENT_RESOURCES``) or
        returns an empty row where the product has entries (its silent failure on very
        large products).  ``"auto"``: with a mask that is not complemented, ``"dot"`` (on
        the host when its searches are fewer than the expansion's products; on the device
        unless the unmasked product has fewer terms than the mask has entries); unmasked on
        the device, ``"bitmap"`` where it applies (``"cusparse"`` first, up to
        ``hp.config["mxm_cusparse_max_flops"]`` multiply-adds, with
        ``hp.config["mxm_prefer_cusparse"]``); else
        ``"expand"``.

    Returns
    -------
    Matrix
        New matrix of ``out.dtype`` (the semiring's output dtype without ``out``).

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_coo(np.array([0, 0, 1]), np.array([0, 1, 1]), np.array([1., 2., 3.]))
    >>> C = hp.graphblas.mxm(A, A, "min_plus")
    >>> [a.tolist() for a in C.to_coo()]
    [[0, 0, 1], [0, 1, 1], [2.0, 3.0, 6.0]]
    """
    A = check_obj(A, "matrix", "A")
    B = check_obj(B, "matrix", "B")
    if A.ncols != B.nrows:
        raise DimensionMismatch(f"mxm: A has {A.ncols} columns but B has {B.nrows} rows "
                                f"(A is {A.shape}, B is {B.shape})")
    shape = (A.nrows, B.ncols)
    sr = semiring_op(semiring, A.dtype, B.dtype)
    mask = as_mask(mask, shape)
    out = check_out(out, shape, "matrix")
    if method not in ("auto", "expand", "dot", "cusparse", "bitmap"):
        raise InvalidValue(f"mxm: method must be 'auto', 'expand', 'dot', 'cusparse' or "
                           f"'bitmap', got {method!r}")
    if method == "dot" and (mask is None or mask.complement):
        raise InvalidValue("mxm: method='dot' needs a mask that is not complemented")
    xp, (A, B) = same_side(A, B)
    if method in ("cusparse", "bitmap") and (xp is np or mask is not None):
        raise InvalidValue(f"mxm: method={method!r} needs device operands and no mask")
    if xp is not np:
        from ._mxm_gpu import device_mxm

        res = device_mxm(xp, A, B, sr, mask, out, accum, replace, shape, method)
        if res is not None:
            return res
    if max_products is None:
        max_products = _MAX_PRODUCTS["cpu" if xp is np else "gpu"]
    if method in ("auto", "dot") and mask is not None and not mask.complement:
        mkeys = _mask_keys(xp, mask)
        if method == "dot" or dot_work(xp, A, B, mkeys) < expand_work(xp, A, B):
            keys, vals = masked_dot(xp, A, B, sr, mkeys, int(max_products))
            return write(xp, keys, vals, sr.out_dtype, shape, out=out, mask=mask, accum=accum,
                         replace=replace, kind="matrix")
    keys, vals = _spgemm(xp, A, B, sr, mask, int(max_products))
    return write(xp, keys, vals, sr.out_dtype, shape, out=out, mask=mask, accum=accum,
                 replace=replace, kind="matrix")


def _spgemm(xp, A, B, sr, mask, max_products):
    """Sorted keys and values of ``A (+).(x) B`` restricted to the mask (complement applied)."""
    n = B.ncols
    _, arows, acols = A._coords()
    avals = A._values()
    bptr = B.csr.indptr.astype(_I64)
    bcols = B._coords()[2]
    bvals = B._values()
    blen = xp.diff(bptr)
    per_entry = blen[acols] if acols.shape[0] else xp.zeros(0, dtype=_I64)
    # cumulative products at each row boundary of A, to cut row blocks
    csum = xp.zeros(per_entry.shape[0] + 1, dtype=_I64)
    if per_entry.shape[0]:
        csum[1:] = xp.cumsum(per_entry)
    aptr = A.csr.indptr.astype(_I64)
    row_cum = csum[aptr]
    total = int(row_cum[-1])
    if total == 0:
        return xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=sr.out_dtype)
    cuts = [0]
    nrows = A.nrows
    if total > max_products:
        targets = xp.arange(max_products, total, max_products, dtype=_I64)
        b = xp.searchsorted(row_cum, targets, side="right") - 1
        host_cuts = np.unique(np.asarray(b.get() if xp is not np else b))
        cuts += [int(c) for c in host_cuts if 0 < c < nrows]
    cuts.append(nrows)
    key_parts, val_parts = [], []
    for r0, r1 in zip(cuts[:-1], cuts[1:]):
        if r1 <= r0:
            continue
        e0, e1 = int(aptr[r0]), int(aptr[r1])
        k, v = _block(xp, arows[e0:e1], acols[e0:e1], avals[e0:e1], per_entry[e0:e1],
                      bptr, bcols, bvals, n, sr, mask)
        key_parts.append(k)
        val_parts.append(v)
    if not key_parts:
        return xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=sr.out_dtype)
    return xp.concatenate(key_parts), xp.concatenate(val_parts)


def _block(xp, arows, acols, avals, counts, bptr, bcols, bvals, n, sr, mask):
    total = int(counts.sum()) if counts.shape[0] else 0
    if total == 0:
        return xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=sr.out_dtype)
    owner = repeat_index(xp, counts, total)            # A entry of each product
    first = xp.cumsum(counts) - counts                 # first product of each A entry
    bpos = bptr[acols[owner]] + (xp.arange(total, dtype=_I64) - first[owner])
    i = arows[owner]
    keys = i * n + bcols[bpos]
    if mask is not None:
        keep = mask_allows(xp, mask, keys)
        owner, bpos, i, keys = owner[keep], bpos[keep], i[keep], keys[keep]
        if keys.shape[0] == 0:
            return xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=sr.out_dtype)
    if sr.mul.is_index_op:
        prod = _kern.binary(sr.mul, avals[owner], bvals[bpos], xp, i=i, j=acols[owner])
    else:
        prod = _kern.binary(sr.mul, avals[owner], bvals[bpos], xp)
    perm = sort_by(xp, keys)
    keys, prod = keys[perm], prod[perm]
    starts = segment_starts(xp, keys)
    red = _kern.reduce_segments(sr.add, prod, starts, xp)
    return keys[starts], _kern.cast(red, sr.out_dtype, xp)


# ---------------------------------------------------------------------------------------
# matrix-vector products through hpgraph.spmv


def _mv(A, v, sr, mask, out, accum, replace, what, transposed):
    from ..spmv import flip_semiring, spmv

    xp, (A, v) = same_side(A, v)
    nout = A.ncols if transposed else A.nrows
    M = A._transpose_csr() if transposed else A.csr
    if transposed:
        sr_run = flip_semiring(sr)
    else:
        sr_run = sr
    active = xp.zeros(v.size, dtype=bool)
    active[v._keys()] = True
    x = xp.zeros(v.size, dtype=v.dtype)
    x[v._keys()] = v._values()
    row_mask, complement = None, False
    if mask is not None and not mask.complement:
        row_mask = xp.zeros(nout, dtype=bool)
        row_mask[_mask_true(xp, mask)] = True
    backend = "gpu" if xp is not np else "cpu"
    Mv = M if M.values is not None else M.astype(A.dtype)
    y = spmv(Mv, x, sr_run, row_mask=row_mask, complement=complement, x_active=active,
             backend=backend)
    # rows with a value: at least one stored entry in an active column
    hit = active[Mv.indices].astype(_I64)
    c = xp.zeros(hit.shape[0] + 1, dtype=_I64)
    if hit.shape[0]:
        c[1:] = xp.cumsum(hit)
    ptr = Mv.indptr.astype(_I64)
    has = (c[ptr[1:]] - c[ptr[:-1]]) > 0
    if row_mask is not None:
        has &= row_mask
    keys = xp.flatnonzero(has).astype(_I64)
    return write(xp, keys, _kern.cast(y[keys], sr.out_dtype, xp), sr.out_dtype, (nout,), out=out,
                 mask=mask, accum=accum, replace=replace, kind="vector")


def _mask_true(xp, mask):
    return _mask_keys(xp, mask)


def mxv(A, v, semiring="plus_times", *, mask=None, accum=None, replace=False, out=None):
    """Matrix-vector product ``w[i] = ADD_j MUL(A[i, j], v[j])`` of a Matrix and a sparse
    Vector (only stored entries of ``v`` contribute; an output entry exists where row ``i``
    meets one).  Runs through :func:`hpgraph.spmv.spmv`; mask / accum / replace / out as in
    :func:`mxm`.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_coo(np.array([0, 1]), np.array([1, 1]), np.array([2., 5.]), nrows=3, ncols=2)
    >>> w = hp.graphblas.mxv(A, hp.Vector.from_coo(np.array([1]), np.array([10.]), size=2), "min_plus")
    >>> [a.tolist() for a in w.to_coo()]
    [[0, 1], [12.0, 15.0]]
    """
    A = check_obj(A, "matrix", "A")
    v = check_obj(v, "vector", "v")
    if A.ncols != v.size:
        raise DimensionMismatch(f"mxv: A has {A.ncols} columns but v has size {v.size}")
    sr = semiring_op(semiring, A.dtype, v.dtype)
    mask = as_mask(mask, (A.nrows,))
    out = check_out(out, (A.nrows,), "vector")
    return _mv(A, v, sr, mask, out, accum, replace, "mxv", False)


def vxm(v, A, semiring="plus_times", *, mask=None, accum=None, replace=False, out=None):
    """Vector-matrix product ``w[j] = ADD_i MUL(v[i], A[i, j])`` (the vector is the first
    operand); otherwise as :func:`mxv`.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_coo(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([4.0, 1.0, 1.0]))
    >>> v = hp.Vector.from_coo(np.array([0, 1]), np.array([0.0, 2.0]), size=2)
    >>> hp.graphblas.vxm(v, A, "min_plus").to_dense(fill_value=np.inf).tolist()   # one relaxation
    [inf, 4.0, 1.0]
    """
    v = check_obj(v, "vector", "v")
    A = check_obj(A, "matrix", "A")
    if A.nrows != v.size:
        raise DimensionMismatch(f"vxm: v has size {v.size} but A has {A.nrows} rows")
    sr = semiring_op(semiring, v.dtype, A.dtype)
    mask = as_mask(mask, (A.ncols,))
    out = check_out(out, (A.ncols,), "vector")
    return _mv(A, v, sr, mask, out, accum, replace, "vxm", True)
