"""Argument handling shared by the operations, and the GraphBLAS output step.

:func:`write` is the one place where a computed result ``T`` meets ``out`` (``C``), the mask,
``accum`` and ``replace``, exactly as the GraphBLAS C API 2.0 specifies::

    Z = accum ? (C (+)accum T) : T            union: accum(c, t) where both, else c or t
                                              (accum typed by C's dtype, as python-graphblas)
    C<M, replace> = Z                         mask True: Z's entry or none;
                                              mask False: C's entry (none with replace)

A structural mask counts every stored entry; a value mask an entry whose value is nonzero
(True); a complemented mask everything else, missing entries included.
"""

from __future__ import annotations

import numpy as np

from .. import ops
from .._arrayops import any_true
from ..exceptions import DimensionMismatch, HpgraphError, InvalidValue
from . import _kern
from ._keys import member, union
from ._objects import Mask, Matrix, Vector

__all__ = ["binary_op", "monoid_op", "semiring_op", "as_mask", "mask_allows", "write", "check_obj",
           "check_out", "same_side"]


def _reraise(exc, msg):
    """Raise ``exc``'s type with ``msg`` (``exc`` itself if that type takes other arguments)."""
    try:
        new = type(exc)(msg)
    except Exception:
        raise exc from None
    raise new from None


def binary_op(op, dtype, what="op"):
    """A TypedBinaryOp for ``op`` (object, name or Python function), typed by ``dtype``.

    A monoid (``"plus"`` names both) gives its binary operator.
    """
    if isinstance(op, ops.TypedBinaryOp):
        return op
    if isinstance(op, ops.TypedMonoid):
        return op.op
    if isinstance(op, ops.Monoid):
        op = op.name
    try:
        b = ops.lookup_binary(op)
    except HpgraphError as exc:
        _reraise(exc, f"{what}: {exc}")
    except Exception as exc:
        raise InvalidValue(f"{what} must be a binary op (object, name such as 'plus' or a Python "
                           f"function), got {op!r}: {exc}") from None
    if isinstance(b, ops.TypedBinaryOp):
        return b
    try:
        return b[dtype]
    except HpgraphError as exc:
        _reraise(exc, f"{what}: {exc}")


def monoid_op(op, dtype, what="monoid"):
    """A TypedMonoid for ``op`` typed by ``dtype``; a binary op without a monoid is refused."""
    if isinstance(op, ops.TypedMonoid):
        return op
    try:
        m = ops.lookup_monoid(op)
    except HpgraphError as exc:
        _reraise(exc, f"{what}: {op!r} is not a monoid (an associative op with an identity, "
                 f"such as 'plus', 'min', 'lor'): {exc}")
    except Exception as exc:
        raise InvalidValue(f"{what} must be a monoid (object or name such as 'plus'), got {op!r}: "
                           f"{exc}") from None
    if isinstance(m, ops.TypedMonoid):
        return m
    try:
        return m[dtype]
    except HpgraphError as exc:
        _reraise(exc, f"{what}: {exc}")


def semiring_op(s, a_dtype, b_dtype, what="semiring"):
    """A TypedSemiring for ``s`` typed by ``ops.default_dtype(s, a_dtype, b_dtype)``."""
    if isinstance(s, ops.TypedSemiring):
        return s
    try:
        u = ops.lookup_semiring(s)
        if isinstance(u, ops.TypedSemiring):
            return u
        return u[ops.default_dtype(u, a_dtype, b_dtype)]
    except HpgraphError as exc:
        _reraise(exc, f"{what}: {exc}")
    except Exception as exc:
        raise InvalidValue(f"{what} must be a semiring (object or name such as 'min_plus'), got "
                           f"{s!r}: {exc}") from None


def check_obj(obj, kind, what):
    """``obj`` if it is a Matrix (kind ``"matrix"``) / Vector (``"vector"``), else a typed error."""
    cls = Matrix if kind == "matrix" else Vector
    if isinstance(obj, cls):
        return obj
    if kind == "matrix" and not isinstance(obj, Vector):
        try:  # scipy / cupyx sparse, hpgraph formats, Graph
            if hasattr(obj, "A") and getattr(getattr(obj, "A"), "format", None) == "csr":
                return Matrix.from_graph(obj)
            return Matrix.from_scipy(obj)
        except HpgraphError:
            pass
    raise InvalidValue(f"{what} must be an hpgraph.{cls.__name__}, got {type(obj).__name__}")


def same_side(*objs):
    """numpy or cupy for the operands; host operands move to the device if any is there."""
    live = [o for o in objs if o is not None]
    if any(o.on_device for o in live):
        return _gpu(), [o.to_device() if o is not None else None for o in objs]
    return np, list(objs)


def _gpu():
    from .. import backend

    return backend.cupy()


def as_mask(mask, shape, what="mask"):
    """A :class:`Mask` over an output of ``shape``, or None."""
    if mask is None:
        return None
    if isinstance(mask, (Matrix, Vector)):
        mask = Mask(mask, structure=False)
    if not isinstance(mask, Mask):
        raise InvalidValue(f"{what} must be a Matrix / Vector or its .S / .V (optionally ~), got "
                           f"{type(mask).__name__}")
    if tuple(mask.parent.shape) != tuple(shape):
        raise DimensionMismatch(f"{what} has shape {tuple(mask.parent.shape)} but the output has "
                                f"shape {tuple(shape)}")
    return mask


def mask_allows(xp, mask, keys):
    """Bool array: the mask lets ``keys`` through (complement applied)."""
    hit = member(xp, keys, _mask_keys(xp, mask))
    return ~hit if mask.complement else hit


def _mask_keys(xp, mask):
    p = mask.parent
    if p.on_device != (xp is not np):
        p = p.to_device() if xp is not np else p.to_host()
    return Mask(p, mask.structure).true_keys()


def check_out(out, shape, kind, what="out"):
    if out is None:
        return None
    out = check_obj(out, kind, what)
    if tuple(out.shape) != tuple(shape):
        raise DimensionMismatch(f"{what} has shape {tuple(out.shape)} but the result has shape "
                                f"{tuple(shape)}")
    return out


def write(xp, tkeys, tvals, tdtype, shape, *, out=None, mask=None, accum=None, replace=False,
          kind="matrix"):
    """The result object of ``out<mask, replace> (accum)= T`` (see the module docstring).

    ``tkeys`` sorted and distinct; ``tvals`` of ``tdtype``.  Returns a new Matrix / Vector
    of ``out.dtype`` (of ``tdtype`` without ``out``).  ``out`` is never written.
    """
    tdtype = np.dtype(tdtype)
    if out is not None and out.on_device != (xp is not np):
        out = out.to_device() if xp is not np else out.to_host()
    if out is None:
        cdtype = tdtype
        ckeys = xp.zeros(0, dtype=np.int64)
        cvals = xp.zeros(0, dtype=cdtype)
    else:
        cdtype = out.dtype
        ckeys, cvals = out._keys(), out._values()
    if accum is not None and out is not None:
        acc = binary_op(accum, cdtype, "accum")  # typed by out's dtype, as python-graphblas
        keys, pc, pt = union(xp, ckeys, tkeys)
        both = (pc >= 0) & (pt >= 0)
        zdt = acc.out_dtype
        z = xp.empty(keys.shape[0], dtype=zdt)
        onlyc, onlyt = (pc >= 0) & ~both, (pt >= 0) & ~both
        z[onlyc] = _kern.cast(cvals[pc[onlyc]], zdt, xp)
        z[onlyt] = _kern.cast(tvals[pt[onlyt]], zdt, xp)
        if any_true(xp, both):
            z[both] = _kern.binary(acc, cvals[pc[both]], tvals[pt[both]], xp)
        zkeys, zvals = keys, _kern.cast(z, cdtype, xp)
    else:
        if accum is not None:
            binary_op(accum, tdtype, "accum")  # validate it even when it has nothing to do
        zkeys, zvals = tkeys, _kern.cast(tvals, cdtype, xp)
    if mask is None:
        if replace and out is None:
            pass
        keys, vals = zkeys, zvals
    else:
        zin = mask_allows(xp, mask, zkeys)
        if replace or out is None:
            keys, vals = zkeys[zin], zvals[zin]
        else:
            keep_c = ~mask_allows(xp, mask, ckeys)
            keys = xp.concatenate([zkeys[zin], ckeys[keep_c]])
            vals = xp.concatenate([zvals[zin], cvals[keep_c]])
            perm = xp.argsort(keys)
            keys, vals = keys[perm], vals[perm]
    vals = xp.ascontiguousarray(vals)
    if kind == "matrix":
        return Matrix._from_keys(xp, keys, vals, shape[0], shape[1], cdtype)
    return Vector._new(xp, keys, vals, shape[0], cdtype)
