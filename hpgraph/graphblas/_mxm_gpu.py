"""The device side of :func:`hpgraph.graphblas.mxm`: which product runs, and the result.

* a mask that is not complemented: the generated masked-dot kernels (:mod:`._mdot_gpu`);
* no mask, ``plus_times`` on float32 / float64: cuSPARSE SpGEMM through cupyx up to
  ``hp.config["mxm_cusparse_max_flops"]`` multiply-adds, checked (an exception, or an empty output row where
  the product has terms, is cuSPARSE giving up: ``CUSPARSE_STATUS_INSUFFICIENT_RESOURCES`` on
  R-MAT 16, an empty product on R-MAT 18), with the generated bitmap SpGEMM
  (:mod:`._spgemm_gpu`) as the fallback and for larger products;
* no mask, any other semiring whose add monoid has an atomic form: the bitmap SpGEMM;
* anything else (complemented masks, bool / 8- and 16-bit outputs): ``None``, and
  :func:`~hpgraph.graphblas.mxm` runs the row-wise expansion (:mod:`._mxm`).

Without ``out`` the result is built straight from the computed CSR (no int64 keys); with
``out`` it goes through the one output step, :func:`._args.write`.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._arrayops import any_true
from .._config import config
from ..exceptions import InvalidValue
from . import _kern
from ._args import binary_op, write
from ._dot import expand_work
from ._objects import Mask, Matrix

__all__ = ["device_mxm", "cusparse_applies"]

_I64 = np.dtype(np.int64)


def cusparse_applies(sr) -> bool:
    """``sr`` is the built-in ``plus_times`` on float32 / float64 (what cuSPARSE computes)."""
    parent = getattr(sr, "parent", None)
    return (parent is not None and getattr(parent, "is_builtin", False)
            and parent.name == "plus_times" and sr.in_dtype in (np.float32, np.float64)
            and sr.out_dtype == sr.in_dtype)


def device_mxm(xp, A, B, sr, mask, out, accum, replace, shape, method):
    """The product on the device as a new Matrix, or None when the expansion must run."""
    from . import _spgemm_gpu
    from ._mdot_gpu import masked_dot_gpu

    if mask is not None:
        if mask.complement or method not in ("auto", "dot"):
            return None
        dmask = mask
        if mask.parent.on_device != (xp is not np):  # the mask on the operands' side
            p = mask.parent.to_device() if xp is not np else mask.parent.to_host()
            dmask = Mask(p, mask.structure)
        if method == "auto" and not _prefer_dot(xp, A, B, dmask.parent):
            return None
        with _guard("computing a masked mxm"):
            rptr, cols, vals, rows = masked_dot_gpu(xp, A, B, sr, dmask)
        return _result(xp, rptr, cols, vals, shape, sr, out, mask, accum, replace, rows=rows)
    if method not in ("auto", "cusparse", "bitmap"):
        return None
    if method == "cusparse" and not cusparse_applies(sr):
        raise InvalidValue("mxm: method='cusparse' needs device operands, no mask and the "
                           "plus_times semiring on float32 / float64")
    prefer = method == "auto" and config["mxm_prefer_cusparse"]
    if (method == "cusparse" or prefer) and cusparse_applies(sr):
        flops = row_flops(xp, A, B)
        if method == "cusparse" or int(flops.sum()) <= config["mxm_cusparse_max_flops"]:
            with _guard("computing mxm with cuSPARSE"):
                hit = cusparse_product(xp, A, B, sr, flops)
            if hit is not None:
                return _result(xp, *hit, shape, sr, out, mask, accum, replace)
    if not _spgemm_gpu.applies(sr):
        if method == "bitmap":
            raise InvalidValue(f"mxm: method='bitmap' needs an add monoid with an atomic form; "
                               f"{sr.add.name} on {sr.out_dtype.name} has none")
        return None
    with _guard("computing mxm (bitmap SpGEMM)"):
        indptr, indices, vals = _spgemm_gpu.spgemm_gpu(xp, A, B, sr)
    return _result(xp, indptr, indices, vals, shape, sr, out, mask, accum, replace)


def _guard(what):
    from .. import backend

    return backend.out_of_memory_guard(what)


def _prefer_dot(xp, A, B, M) -> bool:
    """The dot kernel unless the unmasked product has fewer terms than the mask has entries
    (each mask entry costs at least one step; the expansion then filters fewer products)."""
    return A.nvals == 0 or expand_work(xp, A, B) >= M.nvals


def row_flops(xp, A, B):
    """Terms of each output row of ``A @ B`` (int64, length ``A.nrows``)."""
    blen = xp.diff(B.csr.indptr.astype(_I64))
    per = blen[A.csr.indices] if A.nvals else xp.zeros(0, dtype=_I64)
    csum = xp.zeros(per.shape[0] + 1, dtype=_I64)
    if per.shape[0]:
        csum[1:] = xp.cumsum(per)
    return xp.diff(csum[A.csr.indptr.astype(_I64)])


def cusparse_product(xp, A, B, sr, flops):
    """``(indptr, indices, values)`` of ``A @ B`` from cuSPARSE (through cupyx), or None when
    cuSPARSE fails: an exception, or an empty output row where the product has terms
    (``flops``: :func:`row_flops`)."""
    import cupyx.scipy.sparse as csp

    dt = sr.in_dtype
    try:
        a = csp.csr_matrix((_kern.cast(A._values(), dt, xp), A.csr.indices, A.csr.indptr),
                           shape=A.shape)
        b = csp.csr_matrix((_kern.cast(B._values(), dt, xp), B.csr.indices, B.csr.indptr),
                           shape=B.shape)
        C = a @ b
        if not C.has_sorted_indices:
            C.sort_indices()
    except Exception:  # cuSPARSE gives up (e.g. CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)
        return None
    if any_true(xp, (flops > 0) & (xp.diff(C.indptr) == 0)):
        return None  # cuSPARSE returned an incomplete product
    return C.indptr, C.indices, _kern.cast(C.data, sr.out_dtype, xp)


def _result(xp, indptr, indices, vals, shape, sr, out, mask, accum, replace, rows=None):
    """The output Matrix from a computed CSR (``indptr`` of any integer dtype; ``rows``: a
    function giving each entry's row, when cheaper than expanding ``indptr``)."""
    zdt = np.dtype(sr.out_dtype)
    nnz = int(indices.shape[0])
    if out is None:
        if accum is not None:
            binary_op(accum, zdt, "accum")  # validated even when it has nothing to do
        from ..formats import CSR

        idt = _dt.index_dtype(shape[0], shape[1], nnz)
        csr = CSR._new(indptr.astype(idt, copy=False), indices.astype(idt, copy=False),
                       xp.ascontiguousarray(vals), shape)
        return Matrix._new(csr, zdt)
    if rows is None:
        from ..formats._base import expand_indptr

        rows = expand_indptr(xp, indptr, nnz, _I64)
    else:
        rows = rows()
    keys = rows.astype(_I64, copy=False) * shape[1] + indices.astype(_I64, copy=False)
    return write(xp, keys, vals, zdt, shape, out=out, mask=mask, accum=accum, replace=replace,
                 kind="matrix")
