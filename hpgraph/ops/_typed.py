"""Typed (frozen) operators: a binary op, monoid or semiring fixed to one dtype.

:class:`TypedBinaryOp`, :class:`TypedMonoid` and :class:`TypedSemiring` carry everything a
kernel generator or the CPU backend needs: the CUDA C expression (and its ``__device__``
preamble), the NumPy implementation, identities and terminals as C literals, the GPU atomic
that combines concurrent updates, and a hashable key stable across processes.  They are built
by indexing the untyped operators of :mod:`hpgraph.ops._core` by a dtype.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from ..compiler import _numerics as _n
from ..exceptions import DomainMismatch, InvalidValue, UdfTypeError
from . import _builtins as _b

__all__ = ["TypedBinaryOp", "TypedMonoid", "TypedSemiring"]


def _canon_dtype(dtype) -> np.dtype:
    return _dt.lookup_dtype(dtype)


def _broadcast_shape(*arrays) -> tuple:
    return np.broadcast_shapes(*(np.shape(a) for a in arrays if a is not None))


@dataclass(frozen=True, eq=False)
class TypedBinaryOp:
    """A binary operator for one input dtype.

    Attributes
    ----------
    name : str
        ``"plus"``, ``"min"``, ... or the user's name.
    in_dtype : numpy.dtype
        Both operands are cast to it before the operator is applied.
    out_dtype : numpy.dtype
        Dtype of the result.
    is_index_op : bool
        The operator reads the entry's indices ``i``/``j`` (``firsti``, ``secondi``, user
        ops with four parameters); built-in index ops ignore the operand values.
    c_preamble : str
        ``__device__`` helpers the expression calls (include-guarded; may be ``""``).
    key : tuple
        Hashable identity, stable across processes (includes the source hash of UDFs).
    """

    name: str
    in_dtype: np.dtype
    out_dtype: np.dtype
    is_index_op: bool
    c_preamble: str
    key: tuple
    _c: Callable = field(repr=False)
    _np: Callable | None = field(repr=False)
    parent: Any = field(default=None, repr=False)

    @cached_property
    def ufunc(self):
        """The NumPy ufunc computing this built-in op on ``in_dtype`` operands into
        ``in_dtype`` (usable in place, ``out=``), or None (user ops, index ops, ops whose
        result type differs or whose NumPy form is not a single ufunc)."""
        parent = self.parent
        if (self.is_index_op or not getattr(parent, "is_builtin", False)
                or self.out_dtype != self.in_dtype):
            return None
        spec = _b.BINARY.get(parent.name)
        if spec is None or spec[0] != "same":
            return None
        f = _b.kind_lookup(spec[2], self.in_dtype)
        return f if isinstance(f, np.ufunc) and f.nin == 2 and f.nout == 1 else None

    def c_expr(self, x: str, y: str, i: str = "i", j: str = "j") -> str:
        """C expression of ``op(x, y)``, of type ``c_type(out_dtype)``.

        Parameters
        ----------
        x, y : str
            C expressions of type ``c_type(in_dtype)`` (the caller casts).
        i, j : str
            C expressions of the entry's row index (``i``: row of the first operand's entry)
            and the contracted index (``j``: its column, the second operand's row); only
            index ops read them.

        Operand expressions may be evaluated more than once (``min`` is ``x < y ? x : y``)
        or not at all (``pair``): pass expressions without side effects.
        """
        return self._c(x, y, i, j)

    def np_call(self, x, y, i=None, j=None):
        """Apply the operator elementwise to NumPy arrays (same semantics as the C version).

        ``x`` and ``y`` are cast to ``in_dtype``; index ops need ``i``/``j`` (integer arrays
        broadcastable with ``x`` and ``y``).  Never warns; never modifies its inputs.
        """
        if self._np is None:
            raise NotImplementedError(
                f"binary op {self.name!r} was defined from C without a NumPy implementation, so it "
                "cannot run on the CPU; pass numpy_func= to BinaryOp.from_c")
        if self.is_index_op and (i is None or j is None):
            raise InvalidValue(f"index op {self.name!r} needs the entry indices i and j")
        x = _n.np_wrap_cast(x, self.in_dtype)
        y = _n.np_wrap_cast(y, self.in_dtype)
        with np.errstate(all="ignore"):
            out = self._np(x, y, i, j)
        out = np.asarray(out)
        if out.dtype != self.out_dtype:
            out = _n.np_wrap_cast(out, self.out_dtype)
        return out

    __call__ = np_call

    def __eq__(self, other):
        return isinstance(other, TypedBinaryOp) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"binary.{self.name}[{self.in_dtype.name}]"


#: Native CUDA atomics: (monoid atomic kind, dtype kind, itemsize) -> body of f(y_t* p, y_t v).
_NATIVE_ATOMICS = {
    ("add", "f", 4): "atomicAdd(p, v);",
    ("add", "f", 8): "atomicAdd(p, v);",
    ("add", "i", 4): "atomicAdd((int*)p, (int)v);",
    ("add", "u", 4): "atomicAdd((unsigned int*)p, (unsigned int)v);",
    ("add", "i", 8): "atomicAdd((unsigned long long*)p, (unsigned long long)v);",
    ("add", "u", 8): "atomicAdd((unsigned long long*)p, (unsigned long long)v);",
    ("min", "i", 4): "atomicMin((int*)p, (int)v);",
    ("min", "u", 4): "atomicMin((unsigned int*)p, (unsigned int)v);",
    ("min", "i", 8): "atomicMin((long long*)p, (long long)v);",
    ("min", "u", 8): "atomicMin((unsigned long long*)p, (unsigned long long)v);",
    ("max", "i", 4): "atomicMax((int*)p, (int)v);",
    ("max", "u", 4): "atomicMax((unsigned int*)p, (unsigned int)v);",
    ("max", "i", 8): "atomicMax((long long*)p, (long long)v);",
    ("max", "u", 8): "atomicMax((unsigned long long*)p, (unsigned long long)v);",
    ("or", "i", 4): "atomicOr((unsigned int*)p, (unsigned int)v);",
    ("or", "u", 4): "atomicOr((unsigned int*)p, (unsigned int)v);",
    ("or", "i", 8): "atomicOr((unsigned long long*)p, (unsigned long long)v);",
    ("or", "u", 8): "atomicOr((unsigned long long*)p, (unsigned long long)v);",
    ("and", "i", 4): "atomicAnd((unsigned int*)p, (unsigned int)v);",
    ("and", "u", 4): "atomicAnd((unsigned int*)p, (unsigned int)v);",
    ("and", "i", 8): "atomicAnd((unsigned long long*)p, (unsigned long long)v);",
    ("and", "u", 8): "atomicAnd((unsigned long long*)p, (unsigned long long)v);",
}


@dataclass(frozen=True, eq=False)
class TypedMonoid:
    """An associative, commutative binary operator with an identity, for one dtype.

    Attributes
    ----------
    name : str
    dtype : numpy.dtype
        Operands and result.
    op : TypedBinaryOp
        The binary operator (``dtype x dtype -> dtype``).
    identity : numpy scalar
    c_identity : str
        The identity as a C literal.
    terminal : numpy scalar or None
        A value ``t`` with ``op(t, x) == t`` for every ``x``: a reduction may stop there.
    c_terminal : str or None
        ``terminal`` as a C literal.
    terminal_any : bool
        Every value is terminal (the ``any`` monoid): a reduction may stop after the first
        value.  ``terminal``/``c_terminal`` are None then.
    idempotent : bool
        ``op(x, x) == x``.
    atomic : {"add", "min", "max", "or", "and", "cas", None}
        How the GPU combines concurrent updates: a native ``atomicAdd``/``atomicMin``/
        ``atomicMax`` for this dtype (``"add"`` on int64 goes through ``unsigned long long``),
        ``"cas"`` for an ``atomicCAS`` loop on the 32/64-bit word, or None (bool and 8/16-bit
        dtypes): push is then not allowed.
    ufunc : numpy.ufunc or None
        A ufunc with the same semantics (``.reduceat``, ``.at``), or None.
    key : tuple
    c_preamble : str
    """

    name: str
    dtype: np.dtype
    op: TypedBinaryOp
    identity: Any
    c_identity: str
    terminal: Any
    c_terminal: str | None
    terminal_any: bool
    idempotent: bool
    atomic: str | None
    ufunc: Any
    key: tuple
    c_preamble: str
    parent: Any = field(default=None, repr=False)

    def c_add(self, a: str, b: str) -> str:
        """C expression combining ``a`` and ``b`` (C expressions of type ``c_type(dtype)``)."""
        return self.op.c_expr(a, b)

    def c_is_terminal(self, a: str) -> str | None:
        """C boolean expression "``a`` is terminal", ``"true"`` for ``any``, None if no terminal."""
        if self.terminal_any:
            return "true"
        if self.c_terminal is None:
            return None
        return f"(({a}) == {self.c_terminal})"

    def c_atomic_body(self, returning: bool = False) -> str | None:
        """The body of ``void f(y_t* p, y_t v)`` combining ``v`` into ``*p`` concurrently (None
        without an atomic form): the one atomic table of every generated kernel.  With
        ``returning``, the body of ``y_t f(y_t* p, y_t v)`` returning ``*p``'s value before
        (a NaN ``v`` of float ``min``/``max``: the value now, unchanged).

        A native atomic where CUDA has one for the dtype; for the built-in float ``min``/``max``
        one integer atomic on the bit pattern (IEEE floats of one sign order like their bits:
        non-negative ones as signed ints, negative ones reversed as unsigned; NaN skipped, as
        ``fmin``/``fmax`` ignore it); otherwise an ``atomicCAS`` loop over the 32/64-bit word
        applying ``hp_add`` (which the including template defines as this monoid's combine).
        """
        dt = self.dtype
        kind = self.atomic
        if kind is None:
            return None
        ret = "return (y_t)" if returning else ""
        code = _NATIVE_ATOMICS.get((kind, dt.kind, dt.itemsize))
        if code is not None:
            return ret + code
        if dt.kind == "f" and self.name in ("min", "max") and \
                getattr(self.parent, "is_builtin", False):
            i, u = ("int", "unsigned int") if dt.itemsize == 4 else \
                ("long long", "unsigned long long")
            fi, fu = ("__float_as_int", "__float_as_uint") if dt.itemsize == 4 else \
                ("__double_as_longlong", "(unsigned long long)__double_as_longlong")
            pos, neg = ("atomicMin", "atomicMax") if self.name == "min" else \
                ("atomicMax", "atomicMin")
            if not returning:
                return (f"if (v != v) return;\n"
                        f"if (!signbit(v)) {pos}(({i}*)p, {fi}(v));\n"
                        f"else {neg}(({u}*)p, {fu}(v));")
            back = "__int_as_float" if dt.itemsize == 4 else "__longlong_as_double"
            return (f"if (v != v) return *(volatile y_t*)p;\n"
                    f"if (!signbit(v)) return {back}(({i}){pos}(({i}*)p, {fi}(v)));\n"
                    f"return {back}(({i}){neg}(({u}*)p, {fu}(v)));")
        if dt.itemsize not in (4, 8):
            return None
        w = "unsigned int" if dt.itemsize == 4 else "unsigned long long"
        done = "return cur;" if returning else "return;"
        return (f"{w}* wp = ({w}*)p;\n"
                f"{w} old = *(volatile {w}*)wp;\n"
                "while (true) {\n"
                "    y_t cur; memcpy(&cur, &old, sizeof(y_t));\n"
                "    const y_t nv = hp_add(cur, v);\n"
                f"    {w} nw = 0; memcpy(&nw, &nv, sizeof(y_t));\n"
                f"    if (nw == old) {done}\n"
                f"    const {w} prev = atomicCAS(wp, old, nw);\n"
                f"    if (prev == old) {done}\n"
                "    old = prev;\n"
                "}")

    def np_add(self, a, b):
        """Elementwise ``op(a, b)`` on NumPy arrays."""
        return self.op.np_call(a, b)

    def np_reduce(self, values):
        """Reduce a 1-D array to one scalar (the identity if it is empty)."""
        values = _n.np_wrap_cast(values, self.dtype).reshape(-1)
        if values.size == 0:
            return self.identity
        return self.np_reduce_segments(values, np.zeros(1, np.int64), 1)[0]

    def np_reduce_segments(self, values, seg_starts, nseg=None):
        """Reduce consecutive segments of ``values``.

        Parameters
        ----------
        values : numpy.ndarray
            1-D, grouped by segment (e.g. COO entries sorted by row); cast to ``dtype``.
        seg_starts : numpy.ndarray of int
            Strictly increasing offsets of the first value of each non-empty segment
            (``seg_starts[0] == 0`` when ``values`` is not empty).
        nseg : int, optional
            ``len(seg_starts)``.

        Returns
        -------
        numpy.ndarray
            ``nseg`` reduced values, of ``dtype``.

        Uses ``ufunc.reduceat`` when the monoid has a ufunc; otherwise a vectorised log-step
        (tree) reduction applying the NumPy form of the operator to all pairs at once, so
        the cost is O(len(values)) work in O(log(longest segment)) NumPy calls.  Only
        associativity is assumed (operands keep their order).
        """
        values = _n.np_wrap_cast(values, self.dtype).reshape(-1)
        seg_starts = np.asarray(seg_starts, dtype=np.int64).reshape(-1)
        if nseg is None:
            nseg = seg_starts.size
        if nseg != seg_starts.size:
            raise InvalidValue(f"nseg={nseg} but len(seg_starts)={seg_starts.size}")
        if nseg == 0:
            return np.empty(0, self.dtype)
        if self.terminal_any:
            return values[seg_starts].copy()
        if self.ufunc is not None:
            with np.errstate(all="ignore"):
                out = self.ufunc.reduceat(values, seg_starts, dtype=self.dtype)
            return np.asarray(out, dtype=self.dtype)
        return _tree_reduce_segments(self.op.np_call, values, seg_starts, self.dtype)

    def __eq__(self, other):
        return isinstance(other, TypedMonoid) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"monoid.{self.name}[{self.dtype.name}]"


def _tree_reduce_segments(np_op, values, seg_starts, dtype):
    """Vectorised segmented reduction with a binary NumPy callable (log-step pairing)."""
    n = values.size
    nseg = seg_starts.size
    lengths = np.diff(np.append(seg_starts, n))
    seg = np.repeat(np.arange(nseg, dtype=np.int64), lengths)
    vals = values
    while vals.size > nseg:
        starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
        seglen = np.diff(np.append(starts, seg.size))
        pos = np.arange(seg.size) - np.repeat(starts, seglen)
        left = np.flatnonzero(pos % 2 == 0)
        right = left + 1
        has_right = right < seg.size
        has_right[has_right] = seg[right[has_right]] == seg[left[has_right]]
        new = vals[left].copy()
        li = left[has_right]
        if li.size:
            new[has_right] = np_op(vals[li], vals[li + 1])
        vals = new
        seg = seg[left]
    return np.asarray(vals, dtype=dtype)


@dataclass(frozen=True, eq=False)
class TypedSemiring:
    """A monoid ``add`` and a binary op ``mul`` for one input dtype.

    Attributes
    ----------
    name : str
    add : TypedMonoid
    mul : TypedBinaryOp
        ``mul.out_dtype == add.dtype`` always (when a built-in multiply would give another
        type, e.g. ``land`` on float32 under the bool ``lor`` monoid, ``mul`` casts its result).
    in_dtype : numpy.dtype
        A's values and x are cast to it (index semirings ignore them).
    out_dtype : numpy.dtype
        ``add.dtype``.
    key : tuple
    c_preamble : str
        Helpers of ``mul`` and ``add`` (include-guarded, safe to concatenate).
    """

    name: str
    add: TypedMonoid
    mul: TypedBinaryOp
    in_dtype: np.dtype
    out_dtype: np.dtype
    key: tuple
    c_preamble: str
    parent: Any = field(default=None, repr=False)

    @property
    def is_index_op(self) -> bool:
        return self.mul.is_index_op

    def __eq__(self, other):
        return isinstance(other, TypedSemiring) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"semiring.{self.name}[{self.in_dtype.name}]"


def _join_preambles(*parts: str) -> str:
    seen = []
    for p in parts:
        if p and p not in seen:
            seen.append(p)
    return "".join(seen)


def _retype_output(t: TypedBinaryOp, out: np.dtype) -> TypedBinaryOp:
    """``t`` with its result converted to ``out`` (C conversion rules, bool = nonzero)."""
    if t.out_dtype == out:
        return t

    def cfun(x, y, i, j, _t=t):
        return _n.c_cast(_t.c_expr(x, y, i, j), out)

    npfun = None
    if t._np is not None:
        def npfun(x, y, i, j, _t=t):
            return _n.np_wrap_cast(_t.np_call(x, y, i, j), out)
    return TypedBinaryOp(t.name, t.in_dtype, out, t.is_index_op, t.c_preamble,
                         t.key + ("->", out.name), cfun, npfun, t.parent)


def _identity_value(rule, dt: np.dtype):
    """The numpy scalar of an identity/terminal rule for ``dt``."""
    if isinstance(rule, str):
        if rule == "max":
            if dt.kind == "b":
                return np.True_
            if dt.kind == "f":
                return dt.type(np.inf)
            return dt.type(np.iinfo(dt).max)
        if rule == "min":
            if dt.kind == "b":
                return np.False_
            if dt.kind == "f":
                return dt.type(-np.inf)
            return dt.type(np.iinfo(dt).min)
        raise InvalidValue(f"a monoid identity / terminal string must be 'min' or 'max', "
                           f"got {rule[:60]!r}")
    numeric = (bool, int, float, np.bool_, np.integer, np.floating)
    if not (isinstance(rule, numeric) or (isinstance(rule, np.ndarray) and rule.ndim == 0)):
        raise InvalidValue(f"a monoid identity / terminal must be a real number, 'min' or 'max', "
                           f"got {type(rule).__name__}")
    if dt.kind == "b":
        return np.bool_(bool(rule))
    if dt.kind in "iu" and isinstance(rule, float) and not np.isfinite(rule):
        if np.isnan(rule):
            raise DomainMismatch(f"NaN cannot be an identity of an integer monoid ({dt.name})")
        info = np.iinfo(dt)
        return dt.type(info.max if rule > 0 else info.min)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = int(rule)
        if not info.min <= v <= info.max:
            raise DomainMismatch(f"identity/terminal {rule!r} does not fit in {dt.name}")
        return dt.type(v)
    return dt.type(rule)


def _untyped(op):
    """The untyped parent of a typed op (ops are re-typed by the semiring's dtype)."""
    if isinstance(op, (TypedBinaryOp, TypedMonoid, TypedSemiring)):
        if op.parent is None:
            raise UdfTypeError(f"{op!r} has no untyped parent to build from; pass the untyped op")
        return op.parent
    return op


def _per_dtype(d: dict, dt: np.dtype, what: str, missing_ok=False):
    """The entry of ``d`` (dtype-like -> value) for ``dt``: a user monoid's per-dtype identity or
    terminal."""
    for k, v in d.items():
        if _canon_dtype(k) == dt:
            return v
    if missing_ok:
        return None
    raise DomainMismatch(f"no {what} given for dtype {dt.name} (have {', '.join(map(str, d))})")


def typed_builtin_binary(name: str, table: tuple, dt: np.dtype, parent) -> TypedBinaryOp:
    """The built-in binary op ``name`` typed by ``dt``.

    ``table`` is its entry of :data:`hpgraph.ops._builtins.BINARY`: ``(rule, C templates by
    dtype kind, NumPy functions by dtype kind)``, where ``rule`` is ``"same"`` (result of the
    operand dtype), ``"bool"`` (comparisons) or ``"index"`` (``firsti``/``secondi``: int32 or
    int64 result, read from the entry's indices).
    """
    rule, ctable, nptable = table
    ctmpl = _b.kind_lookup(ctable, dt)
    npf = _b.kind_lookup(nptable, dt)
    out: np.dtype
    if rule == "bool":
        out = np.dtype(np.bool_)
    elif rule == "index":
        out = dt if dt in (np.dtype(np.int32), np.dtype(np.int64)) else np.dtype(np.int64)
    else:
        out = dt
    is_index = rule == "index"
    ct = _dt.c_type(dt)
    if callable(ctmpl):
        _, pre = ctmpl("x", "y", dt)

        def cfun(x, y, i, j, _t=ctmpl, _dt_=dt, _out=out):
            return _n.c_cast(_t(x, y, _dt_)[0], _out)
    else:
        pre = ""

        def cfun(x, y, i, j, _t=ctmpl, _ct=ct, _out=out):
            return _n.c_cast(_t.format(x=x, y=y, i=i, j=j, T=_ct), _out)
    if is_index:
        src = "i" if name == "firsti" else "j"

        def npfun(x, y, i, j, _src=src, _out=out):
            idx = np.asarray(i if _src == "i" else j)
            shape = _broadcast_shape(x, y, i, j)
            return np.broadcast_to(idx, shape).astype(_out)
    else:
        def npfun(x, y, i, j, _f=npf, _dt_=dt):
            if isinstance(_f, np.ufunc):
                return _f(x, y)
            return _f(x, y, _dt_)
    return TypedBinaryOp(name, dt, out, is_index, pre, ("binary", name, dt.name), cfun, npfun,
                         parent)


def typed_c_binary(name: str, cspec: tuple, dt: np.dtype, parent) -> TypedBinaryOp:
    """A binary op given as a C expression template (:meth:`BinaryOp.from_c`) typed by ``dt``;
    ``cspec`` is ``(template, numpy_func or None, out_dtype or None, preamble)``."""
    tmpl, npf, out, pre = cspec
    out = dt if out is None else out
    ct = _dt.c_type(dt)
    is_index = "{i}" in tmpl or "{j}" in tmpl

    def cfun(x, y, i, j):
        return _n.c_cast(tmpl.format(x=x, y=y, i=i, j=j, T=ct), out)

    npfun = None
    if npf is not None:
        def npfun(x, y, i, j):
            return npf(x, y, i, j) if is_index else npf(x, y)
    h = hashlib.sha256(f"{tmpl}\0{pre}\0{out}".encode()).hexdigest()[:16]
    return TypedBinaryOp(name, dt, out, is_index, pre, ("binary_c", name, h, dt.name), cfun, npfun,
                         parent)
