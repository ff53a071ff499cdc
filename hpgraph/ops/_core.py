"""Operator classes and the one registry.

Untyped :class:`BinaryOp`, :class:`Monoid` and :class:`Semiring` give their frozen typed versions
(:class:`TypedBinaryOp`, :class:`TypedMonoid`, :class:`TypedSemiring`) when indexed by a dtype::

    hp.semiring.min_plus[np.float32]
    lookup_semiring("min_plus[float32]")
    lookup_semiring("semiring.min_plus", np.float32)

Typed versions are built on first use and cached on their untyped parent.  User-defined ops
come from Python functions (compiled to CUDA C and to NumPy by :mod:`hpgraph.compiler`) or, for
experts, from a C expression (:meth:`BinaryOp.from_c`).
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from ..exceptions import DomainMismatch, InvalidValue, UdfTypeError
from ..compiler import _numerics as _n
from . import _builtins as _b

__all__ = [
    "BinaryOp", "Monoid", "Semiring", "TypedBinaryOp", "TypedMonoid", "TypedSemiring",
    "lookup_binary", "lookup_monoid", "lookup_semiring", "default_dtype",
]

_lock = threading.RLock()

# kind -> name -> untyped op (built-ins are added lazily, on first lookup)
_REGISTRY: dict[str, dict[str, Any]] = {"binary": {}, "monoid": {}, "semiring": {}}


def _canon_dtype(dtype) -> np.dtype:
    return _dt.lookup_dtype(dtype)


def _broadcast_shape(*arrays) -> tuple:
    return np.broadcast_shapes(*(np.shape(a) for a in arrays if a is not None))


# =======================================================================================
# Typed (frozen) operators


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

    def c_atomic_body(self) -> str | None:
        """The body of ``void f(y_t* p, y_t v)`` combining ``v`` into ``*p`` concurrently (None
        without an atomic form): the one atomic table of every generated kernel.

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
        code = _NATIVE_ATOMICS.get((kind, dt.kind, dt.itemsize))
        if code is not None:
            return code
        if dt.kind == "f" and self.name in ("min", "max") and \
                getattr(self.parent, "is_builtin", False):
            i, u = ("int", "unsigned int") if dt.itemsize == 4 else \
                ("long long", "unsigned long long")
            fi, fu = ("__float_as_int", "__float_as_uint") if dt.itemsize == 4 else \
                ("__double_as_longlong", "(unsigned long long)__double_as_longlong")
            pos, neg = ("atomicMin", "atomicMax") if self.name == "min" else \
                ("atomicMax", "atomicMin")
            return (f"if (v != v) return;\n"
                    f"if (!signbit(v)) {pos}(({i}*)p, {fi}(v));\n"
                    f"else {neg}(({u}*)p, {fu}(v));")
        if dt.itemsize not in (4, 8):
            return None
        w = "unsigned int" if dt.itemsize == 4 else "unsigned long long"
        return (f"{w}* wp = ({w}*)p;\n"
                f"{w} old = *(volatile {w}*)wp;\n"
                "while (true) {\n"
                "    y_t cur; memcpy(&cur, &old, sizeof(y_t));\n"
                "    const y_t nv = hp_add(cur, v);\n"
                f"    {w} nw = 0; memcpy(&nw, &nv, sizeof(y_t));\n"
                "    if (nw == old) return;\n"
                f"    const {w} prev = atomicCAS(wp, old, nw);\n"
                "    if (prev == old) return;\n"
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


# =======================================================================================
# Untyped operators


class _OpBase:
    _kind = "op"

    def __init__(self, name):
        self.name = name
        self._typed = {}

    def __getitem__(self, dtype):
        return self._type(_canon_dtype(dtype))

    def __repr__(self):
        return f"{self._kind}.{self.name}"

    def __reduce__(self):  # pickle built-ins/registered ops by name
        if _REGISTRY[self._kind].get(self.name) is self:
            return (_lookup_registered, (self._kind, self.name))
        raise TypeError(f"cannot pickle anonymous {self._kind} {self.name!r}; register it with "
                        f"{type(self).__name__}.register_new")

    @property
    def is_builtin(self) -> bool:
        return getattr(self, "_builtin", False)


def _lookup_registered(kind, name):
    return _get(kind, name)


def _udf_name(func) -> str:
    n = getattr(func, "__name__", "udf")
    return "lambda" if n == "<lambda>" else n


class BinaryOp(_OpBase):
    """A binary operator ``z = f(x, y)``, untyped; ``op[dtype]`` gives a :class:`TypedBinaryOp`.

    Parameters
    ----------
    func : callable
        A lambda or ``def`` of two parameters ``(x, y)`` -- or four, ``(x, y, i, j)``, to read
        the entry's indices -- written in hpgraph's callback subset (see
        :mod:`hpgraph.compiler`).  Checked now (unsupported syntax raises
        :class:`~hpgraph.exceptions.UnsupportedSyntax` quoting the line); typing it by a dtype
        compiles it to CUDA C and NumPy and caches the result.  Module globals and closure
        variables it reads are captured by value at typing time; when they change, the next
        typing recompiles.
    name : str, optional
        Defaults to the function's name.

    Examples
    --------
    >>> op = BinaryOp(lambda x, y: x if x > y else y - 1, name="odd_max")
    >>> op[np.float32].c_expr("a", "b")  # doctest: +SKIP
    """

    _kind = "binary"

    def __init__(self, func=None, name=None, *, _spec=None):
        super().__init__(name)
        self._builtin = False
        self._func = None
        self._cspec = None
        if _spec is not None:  # built-in
            self._builtin = True
            self._table = _spec
            return
        if not callable(func):
            raise UdfTypeError(f"BinaryOp expects a Python function, got {type(func).__name__}; "
                               "for a C expression use BinaryOp.from_c")
        from ..compiler import analyze_function

        self._func = func
        self._analysis = analyze_function(func)  # raises UnsupportedSyntax now
        nparams = len(self._analysis.params)
        if nparams not in (2, 4):
            raise UdfTypeError(f"a binary op takes 2 parameters (x, y) or 4 (x, y, i, j); "
                               f"{_udf_name(func)} takes {nparams}")
        self.name = name or _udf_name(func)

    # -- construction ---------------------------------------------------------------
    @classmethod
    def from_c(cls, c_expr: str, numpy_func=None, name: str = None, *, out_dtype=None,
               preamble: str = "") -> "BinaryOp":
        """A binary op from a C expression template (for experts).

        Parameters
        ----------
        c_expr : str
            C expression over ``{x}``, ``{y}`` (operands, of the input type), optionally
            ``{i}``, ``{j}`` (entry indices) and ``{T}`` (the C input type), e.g.
            ``"({x} + {y} - 1)"``.  Bare ``x``/``y`` are accepted as shorthand when no braces
            appear.
        numpy_func : callable, optional
            ``numpy_func(x, y)`` (or ``(x, y, i, j)`` for index templates) computing the same
            thing on arrays; without it the op works only in generated kernels and
            :meth:`TypedBinaryOp.np_call` raises ``NotImplementedError``.
        name : str, optional
        out_dtype : dtype, optional
            Result dtype (default: the input dtype).
        preamble : str
            ``__device__`` helper definitions the expression calls.
        """
        op = cls.__new__(cls)
        _OpBase.__init__(op, name or "c_op")
        op._builtin = False
        op._func = None
        if "{" not in c_expr:
            c_expr = re.sub(r"\bx\b", "{x}", c_expr)
            c_expr = re.sub(r"\by\b", "{y}", c_expr)
        op._cspec = (c_expr, numpy_func, None if out_dtype is None else _canon_dtype(out_dtype),
                     preamble)
        return op

    @classmethod
    def register_new(cls, name: str, func, **kwargs) -> "BinaryOp":
        """Create a binary op from ``func`` and register it as ``binary.<name>``."""
        op = func if isinstance(func, BinaryOp) else cls(func, name=name, **kwargs)
        op.name = name
        _register("binary", name, op)
        return op

    # -- typing ---------------------------------------------------------------------
    def _type(self, dt: np.dtype, result_dtype=None) -> TypedBinaryOp:
        if self._builtin:
            return self._type_builtin(dt)
        if self._cspec is not None:
            return self._type_c(dt)
        return self._type_udf(dt, result_dtype)

    def _type_builtin(self, dt):
        with _lock:
            t = self._typed.get(dt)
            if t is not None:
                return t
            rule, ctable, nptable = self._table
            ctmpl = _b.kind_lookup(ctable, dt)
            npf = _b.kind_lookup(nptable, dt)
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
                src = "i" if self.name == "firsti" else "j"

                def npfun(x, y, i, j, _src=src, _out=out):
                    idx = np.asarray(i if _src == "i" else j)
                    shape = _broadcast_shape(x, y, i, j)
                    return np.broadcast_to(idx, shape).astype(_out)
            else:
                def npfun(x, y, i, j, _f=npf, _dt_=dt):
                    if isinstance(_f, np.ufunc):
                        return _f(x, y)
                    return _f(x, y, _dt_)
            t = TypedBinaryOp(self.name, dt, out, is_index, pre, ("binary", self.name, dt.name),
                              cfun, npfun, self)
            self._typed[dt] = t
            return t

    def _type_c(self, dt):
        with _lock:
            t = self._typed.get(dt)
            if t is not None:
                return t
            tmpl, npf, out, pre = self._cspec
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
            t = TypedBinaryOp(self.name, dt, out, is_index, pre, ("binary_c", self.name, h, dt.name),
                              cfun, npfun, self)
            self._typed[dt] = t
            return t

    def _type_udf(self, dt, result_dtype=None):
        from ..compiler import compile_function

        params = self._analysis.params
        arg_types = {params[0]: dt, params[1]: dt}
        if len(params) == 4:
            arg_types[params[2]] = np.int64
            arg_types[params[3]] = np.int64
        cf = compile_function(self._func, arg_types=arg_types, result_dtype=result_dtype)
        with _lock:
            t = self._typed.get(cf.cache_key)
            if t is not None:
                return t
            is_index = len(params) == 4

            def cfun(x, y, i, j, _cf=cf):
                return _cf.c_call(x, y, i, j) if is_index else _cf.c_call(x, y)

            def npfun(x, y, i, j, _cf=cf):
                if is_index:
                    return _cf.np_call(x, y, i, j)
                return _cf.np_call(x, y)

            t = TypedBinaryOp(self.name, dt, cf.result_dtype, is_index, cf.c_preamble,
                              ("udf", self.name, cf.cache_key), cfun, npfun, self)
            self._typed[cf.cache_key] = t
            return t

    def _type_as_monoid_op(self, dt) -> TypedBinaryOp:
        """Typed ``dt x dt -> dt`` (the result cast to ``dt`` if needed)."""
        if self._func is not None:
            return self._type_udf(dt, result_dtype=dt)
        t = self._type(dt)
        return t if t.out_dtype == dt else _retype_output(t, dt)


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
        raise InvalidValue(f"a monoid identity / terminal string must be 'min' or 'max', got {rule[:60]!r}")
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


class Monoid(_OpBase):
    """An associative, commutative binary operator with an identity; ``m[dtype]`` is typed.

    Parameters
    ----------
    op : BinaryOp, str or callable
        The operator; a Python function is wrapped in :class:`BinaryOp`.
    identity : scalar or dict
        ``op(identity, x) == x``.  A dict maps dtypes to values.  ``float("inf")`` /
        ``-float("inf")`` mean the largest / smallest value on integer dtypes.
    name : str, optional
    terminal : scalar, dict, or "any", optional
        An absorbing value (``op(t, x) == t``): reductions may stop early.  ``"any"`` means
        every value is absorbing.
    idempotent : bool
        ``op(x, x) == x``.

    Notes
    -----
    hpgraph does not check that ``op`` is associative and commutative: a monoid that is not
    gives results that depend on the reduction order (and differ between backends); that is
    the user's responsibility.
    """

    _kind = "monoid"

    def __init__(self, op=None, identity=None, name=None, terminal=None, idempotent=False, *,
                 _spec=None):
        super().__init__(name)
        self._builtin = False
        if _spec is not None:
            self._builtin = True
            self._table = _spec
            opname = _spec[0]
            self.binaryop = _get("binary", opname)
            self.idempotent = _spec[3]
            return
        if identity is None:
            raise InvalidValue("Monoid needs an identity value (e.g. 0 for plus, inf for min)")
        if isinstance(op, (str, BinaryOp, TypedBinaryOp)):
            self.binaryop = _untyped(lookup_binary(_untyped(op)))
        elif callable(op):
            self.binaryop = BinaryOp(op, name=name)
        else:
            raise UdfTypeError(f"Monoid expects a BinaryOp, a name or a function, got {type(op).__name__}")
        self.name = name or self.binaryop.name
        self._identity = identity
        self._terminal = terminal
        self.idempotent = bool(idempotent)

    @classmethod
    def register_new(cls, name: str, op, identity, terminal=None, idempotent=False) -> "Monoid":
        """Create a monoid and register it as ``monoid.<name>``."""
        m = cls(op, identity, name=name, terminal=terminal, idempotent=idempotent)
        _register("monoid", name, m)
        return m

    def _type(self, dt: np.dtype) -> TypedMonoid:
        if self._builtin:
            return self._type_builtin(dt)
        return self._type_user(dt)

    def _type_builtin(self, dt):
        opname, ident, terms, idem, logical = self._table
        if logical:
            dt = np.dtype(np.bool_)
        with _lock:
            t = self._typed.get(dt)
            if t is not None:
                return t
            op = self.binaryop._type(dt)
            if op.out_dtype != dt:
                op = _retype_output(op, dt)
            identity = _identity_value(ident, dt)
            term = None
            for k in (dt.kind, "*"):
                if k in terms:
                    term = terms[k]
                    break
            terminal_any = term == "any"
            terminal = None if term is None or terminal_any else _identity_value(term, dt)
            ufunc = _b.kind_lookup(_b.MONOID_UFUNCS[self.name], dt)
            t = TypedMonoid(
                name=self.name, dtype=dt, op=op, identity=identity,
                c_identity=_dt.c_literal(identity, dt), terminal=terminal,
                c_terminal=None if terminal is None else _dt.c_literal(terminal, dt),
                terminal_any=terminal_any, idempotent=idem, atomic=_b.monoid_atomic(self.name, dt),
                ufunc=ufunc, key=("monoid", self.name, dt.name), c_preamble=op.c_preamble,
                parent=self)
            self._typed[dt] = t
            return t

    def _type_user(self, dt):
        op = self.binaryop._type_as_monoid_op(dt)
        with _lock:
            ck = (dt, op.key)
            t = self._typed.get(ck)
            if t is not None:
                return t
            ident = self._identity
            if isinstance(ident, dict):
                ident = _per_dtype(ident, dt, "identity")
            identity = _identity_value(ident, dt)
            term = self._terminal
            if isinstance(term, dict):
                term = _per_dtype(term, dt, "terminal", missing_ok=True)
            terminal_any = isinstance(term, str) and term == "any"
            terminal = None if term is None or terminal_any else _identity_value(term, dt)
            ufunc = None
            if self.binaryop.is_builtin:
                # a user monoid over a built-in op (e.g. max with another identity) keeps its ufunc
                nm = self.binaryop.name
                logical = nm in ("land", "lor", "lxor")
                if nm in _b.MONOID_UFUNCS and (dt.kind == "b" or not logical):
                    ufunc = _b.kind_lookup(_b.MONOID_UFUNCS[nm], dt)
            atomic = None if dt.itemsize < 4 else "cas"
            if self.binaryop.is_builtin and self.binaryop.name in _b.MONOIDS:
                atomic = _b.monoid_atomic(self.binaryop.name, dt)
            t = TypedMonoid(
                name=self.name, dtype=dt, op=op, identity=identity,
                c_identity=_dt.c_literal(identity, dt), terminal=terminal,
                c_terminal=None if terminal is None else _dt.c_literal(terminal, dt),
                terminal_any=terminal_any, idempotent=self.idempotent, atomic=atomic, ufunc=ufunc,
                key=("monoid_udf", self.name, op.key, repr(identity), repr(terminal), terminal_any),
                c_preamble=op.c_preamble, parent=self)
            self._typed[ck] = t
            return t


def _untyped(op):
    """The untyped parent of a typed op (ops are re-typed by the semiring's dtype)."""
    if isinstance(op, (TypedBinaryOp, TypedMonoid, TypedSemiring)):
        if op.parent is None:
            raise UdfTypeError(f"{op!r} has no untyped parent to build from; pass the untyped op")
        return op.parent
    return op


def _per_dtype(d: dict, dt: np.dtype, what: str, missing_ok=False):
    for k, v in d.items():
        if _canon_dtype(k) == dt:
            return v
    if missing_ok:
        return None
    raise DomainMismatch(f"no {what} given for dtype {dt.name} (have {', '.join(map(str, d))})")


class Semiring(_OpBase):
    """A monoid ``add`` and a binary op ``multiply``; ``s[dtype]`` gives a :class:`TypedSemiring`.

    Parameters
    ----------
    add : Monoid or str
        A monoid (a built-in binary op with a monoid, like ``binary.min``, is accepted too).
    multiply : BinaryOp, str or callable
        A Python function is compiled as a :class:`BinaryOp`.
    name : str, optional
        Defaults to ``"<add>_<multiply>"``.

    Notes
    -----
    Typing by ``T`` types ``multiply`` by ``T`` and then ``add`` by the multiply's output type,
    so ``min_plus[float32]`` adds float32, ``lor_land[float32]`` reduces bools (the ``land``
    result is converted to bool), ``min_secondi[float32]`` reduces int64 indices.
    """

    _kind = "semiring"

    def __init__(self, add=None, multiply=None, name=None, *, _builtin=False):
        super().__init__(name)
        if add is None or multiply is None:
            raise InvalidValue("Semiring needs both add= (a monoid) and multiply= (a binary op)")
        self.monoid = _untyped(lookup_monoid(_untyped(add)))
        if isinstance(multiply, (str, BinaryOp, TypedBinaryOp)) or callable(multiply):
            self.binaryop = _untyped(lookup_binary(_untyped(multiply)))
        else:
            raise UdfTypeError(f"Semiring multiply= expects a BinaryOp, a name or a function, "
                               f"got {type(multiply).__name__}")
        self.name = name or f"{self.monoid.name}_{self.binaryop.name}"
        self._builtin = _builtin

    @classmethod
    def register_new(cls, name: str, add, multiply) -> "Semiring":
        """Create a semiring and register it as ``semiring.<name>``."""
        s = cls(add=add, multiply=multiply, name=name)
        _register("semiring", name, s)
        return s

    @property
    def is_logical(self) -> bool:
        """The add monoid is ``lor``/``land``/``lxor`` (results are bool)."""
        return self.monoid.is_builtin and self.monoid._table[4]

    @property
    def is_index(self) -> bool:
        """The multiply is a built-in index op (``firsti``/``secondi``)."""
        return self.binaryop.is_builtin and self.binaryop._table[0] == "index"

    def _type(self, dt: np.dtype) -> TypedSemiring:
        mul = self.binaryop._type(dt)
        add = self.monoid._type(mul.out_dtype)
        if add.dtype != mul.out_dtype:
            mul = _retype_output(mul, add.dtype)
        key = ("semiring", self.name, add.key, mul.key)
        with _lock:
            t = self._typed.get(key)
            if t is not None:
                return t
            t = TypedSemiring(self.name, add, mul, mul.in_dtype, add.dtype, key,
                              _join_preambles(mul.c_preamble, add.c_preamble), self)
            self._typed[key] = t
            return t


# =======================================================================================
# Registry and lookup

_NAME_RE = re.compile(r"^\s*(?:(binary|monoid|semiring)\.)?([A-Za-z_][A-Za-z0-9_]*)\s*"
                      r"(?:\[\s*([A-Za-z0-9_]+)\s*\])?\s*$")


def _register(kind: str, name: str, op) -> None:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
        raise InvalidValue(f"{kind} name must be an identifier, got {name!r}")
    with _lock:
        if name in _REGISTRY[kind] or _builtin_exists(kind, name):
            raise InvalidValue(f"{kind}.{name} already exists; pick another name")
        _REGISTRY[kind][name] = op


def _builtin_exists(kind, name) -> bool:
    if kind == "binary":
        return name in _b.BINARY or name in _b.BINARY_ALIASES
    if kind == "monoid":
        return name in _b.MONOIDS or name in _b.MONOID_ALIASES
    return _split_semiring(name) is not None


def _split_semiring(name):
    """``"min_plus"`` -> ("min", "plus") for built-in monoid/binary names, else None."""
    if "_" not in name:
        return None
    m, _, b = name.partition("_")
    m = _b.MONOID_ALIASES.get(m, m)
    b = _b.BINARY_ALIASES.get(b, b)
    if m in _b.MONOIDS and b in _b.BINARY:
        return m, b
    return None


def _get(kind: str, name: str):
    """The registered (or built-in, created on first use) op ``kind.name``, or None."""
    reg = _REGISTRY[kind]
    op = reg.get(name)
    if op is not None:
        return op
    with _lock:
        op = reg.get(name)
        if op is not None:
            return op
        if kind == "binary":
            canon = _b.BINARY_ALIASES.get(name, name)
            if canon not in _b.BINARY:
                return None
            op = reg.get(canon) or BinaryOp(name=canon, _spec=_b.BINARY[canon])
            reg[canon] = op
        elif kind == "monoid":
            canon = _b.MONOID_ALIASES.get(name, name)
            if canon not in _b.MONOIDS:
                return None
            op = reg.get(canon) or Monoid(name=canon, _spec=_b.MONOIDS[canon])
            reg[canon] = op
        else:
            split = _split_semiring(name)
            if split is None:
                return None
            canon = "_".join(split)
            op = reg.get(canon) or Semiring(_get("monoid", split[0]), _get("binary", split[1]),
                                            name=canon, _builtin=True)
            reg[canon] = op
        reg[name] = op
        return op


def builtin_names(kind: str) -> list[str]:
    """Names of the built-in (and registered) ops of ``kind`` (for ``dir()``)."""
    if kind == "binary":
        names = set(_b.BINARY) | {"oneb"}
    elif kind == "monoid":
        names = set(_b.MONOIDS)
    else:
        names = {f"{m}_{b}" for m in _b.MONOIDS for b in _b.BINARY} | set(_b.SEMIRINGS)
    return sorted(names | set(_REGISTRY[kind]))


_KIND_CLASSES = {"binary": (BinaryOp, TypedBinaryOp), "monoid": (Monoid, TypedMonoid),
                 "semiring": (Semiring, TypedSemiring)}


def _lookup(kind: str, obj, dtype=None):
    untyped_cls, typed_cls = _KIND_CLASSES[kind]
    if isinstance(obj, typed_cls):
        if dtype is not None and _canon_dtype(dtype) != _typed_dtype(obj):
            return _lookup(kind, obj.parent, dtype)
        return obj
    if isinstance(obj, untyped_cls):
        return obj if dtype is None else obj[dtype]
    if isinstance(obj, str):
        m = _NAME_RE.match(obj)
        if not m:
            raise InvalidValue(f"cannot parse {kind} name {obj!r}; expected e.g. "
                               f"{_EXAMPLE[kind]!r} or {_EXAMPLE[kind] + '[float32]'!r}")
        prefix, name, dts = m.groups()
        if prefix is not None and prefix != kind:
            raise InvalidValue(f"{obj!r} names a {prefix}, but a {kind} was expected")
        op = _get(kind, name)
        if op is None:
            raise InvalidValue(f"unknown {kind} {name!r}; known: {', '.join(_short_list(kind))}")
        if dts is not None:
            if dtype is not None and _canon_dtype(dtype) != _canon_dtype(dts):
                raise DomainMismatch(f"{obj!r} names dtype {dts} but dtype={dtype!r} was given")
            dtype = dts
        return op if dtype is None else op[dtype]
    if kind == "monoid" and isinstance(obj, (BinaryOp, TypedBinaryOp)):
        base = obj if isinstance(obj, BinaryOp) else obj.parent
        if isinstance(base, BinaryOp) and base.is_builtin and base.name in _b.MONOIDS:
            return _lookup(kind, _get("monoid", base.name),
                           dtype if dtype is not None or isinstance(obj, BinaryOp) else obj.in_dtype)
        raise DomainMismatch(f"binary op {obj!r} has no monoid; build one with "
                             "hp.Monoid(op, identity)")
    if kind == "binary" and callable(obj) and not isinstance(obj, (Monoid, Semiring, TypedMonoid,
                                                                   TypedSemiring)):
        known = _known_callable(obj)
        if known is not None:
            return _lookup(kind, known, dtype)
        op = BinaryOp(obj)
        return op if dtype is None else op[dtype]
    raise UdfTypeError(f"expected a {kind} (object or name such as {_EXAMPLE[kind]!r}), "
                       f"got {type(obj).__name__}: {obj!r}")


def _known_callable(f):
    """Built-in op name for NumPy ufuncs / Python functions with the same semantics, or None."""
    import builtins
    import operator

    table = [(np.add, "plus"), (np.subtract, "minus"), (np.multiply, "times"),
             (np.fmin, "min"), (np.fmax, "max"), (np.logical_and, "land"),
             (np.logical_or, "lor"), (np.logical_xor, "lxor"), (np.equal, "eq"),
             (np.not_equal, "ne"), (np.less, "lt"), (np.less_equal, "le"), (np.greater, "gt"),
             (np.greater_equal, "ge"), (operator.add, "plus"), (operator.sub, "minus"),
             (operator.mul, "times"), (operator.eq, "eq"), (operator.ne, "ne"),
             (operator.lt, "lt"), (operator.le, "le"), (operator.gt, "gt"), (operator.ge, "ge"),
             (builtins.min, "min"), (builtins.max, "max")]
    for g, name in table:
        if f is g:
            return name
    return None


_EXAMPLE = {"binary": "plus", "monoid": "min", "semiring": "min_plus"}


def _short_list(kind):
    if kind == "semiring":
        return list(_b.SEMIRINGS) + sorted(_REGISTRY["semiring"]) + ["<monoid>_<binary>"]
    return builtin_names(kind)


def _typed_dtype(t):
    if isinstance(t, TypedMonoid):
        return t.dtype
    return t.in_dtype


def lookup_binary(obj, dtype=None):
    """A :class:`BinaryOp` (or :class:`TypedBinaryOp` with ``dtype`` or ``"name[dtype]"``).

    ``obj`` may be an op object, a name (``"plus"``, ``"binary.plus"``, ``"plus[int32]"``) or a
    Python function (compiled as a user-defined op).
    """
    return _lookup("binary", obj, dtype)


def lookup_monoid(obj, dtype=None):
    """A :class:`Monoid` or :class:`TypedMonoid`; see :func:`lookup_binary`.

    Built-in binary ops that have a monoid (``binary.plus``) are accepted too.
    """
    return _lookup("monoid", obj, dtype)


def lookup_semiring(obj, dtype=None):
    """A :class:`Semiring` or :class:`TypedSemiring`; see :func:`lookup_binary`.

    Any ``"<monoid>_<binary>"`` combination of built-ins is accepted (``"max_div"``).
    """
    return _lookup("semiring", obj, dtype)


def default_dtype(semiring, a_dtype=None, x_dtype=None) -> np.dtype:
    """The dtype to type ``semiring`` by for operands of ``a_dtype`` and ``x_dtype``.

    ``None`` (a pattern-only operand) is ignored.  Logical semirings (``lor``/``land``/
    ``lxor`` monoids) give ``bool``, index semirings (``firsti``/``secondi``) give ``int64``,
    others the NumPy promotion of the operand dtypes (``bool`` when both are patterns).
    A typed semiring gives its own ``in_dtype``.
    """
    if isinstance(semiring, TypedSemiring):
        return semiring.in_dtype
    s = lookup_semiring(semiring)
    if isinstance(s, TypedSemiring):
        return s.in_dtype
    if s.is_logical:
        return np.dtype(np.bool_)
    if s.is_index:
        return np.dtype(np.int64)
    return _dt.result_type(a_dtype, x_dtype)


def namespace_hooks(kind: str):
    """Module ``__getattr__`` and ``__dir__`` for the lazy ``hp.binary``/``monoid``/``semiring``
    namespaces: an operator is looked up (and built) on first access, so importing a namespace
    builds nothing; registered user operators appear there too."""
    lookup = {"binary": lookup_binary, "monoid": lookup_monoid, "semiring": lookup_semiring}[kind]

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        from ..exceptions import HpgraphError

        try:
            return lookup(name)
        except HpgraphError:
            raise AttributeError(f"hpgraph.{kind} has no operator {name!r}") from None

    def __dir__():
        return builtin_names(kind)

    return __getattr__, __dir__
