"""Untyped operators and their lookup by object or name.

Untyped :class:`BinaryOp`, :class:`Monoid` and :class:`Semiring` give their frozen typed versions
(:class:`TypedBinaryOp`, :class:`TypedMonoid`, :class:`TypedSemiring`, in :mod:`._typed`) when
indexed by a dtype::

    hp.semiring.min_plus[np.float32]
    lookup_semiring("min_plus[float32]")
    lookup_semiring("semiring.min_plus", np.float32)

Typed versions are built on first use and cached on their untyped parent.  Names resolve through
the one registry (:mod:`._registry`); built-ins are created on first lookup.  User-defined ops
come from Python functions (compiled to CUDA C and to NumPy by :mod:`hpgraph.compiler`) or, for
experts, from a C expression (:meth:`BinaryOp.from_c`).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..exceptions import DomainMismatch, InvalidValue, UdfTypeError
from . import _builtins as _b
from ._registry import (_REGISTRY, _known_callable, _lock, _register, _short_list, _split_semiring,
                        builtin_names)
from ._typed import (TypedBinaryOp, TypedMonoid, TypedSemiring, _canon_dtype, _identity_value,
                     _join_preambles, _per_dtype, _retype_output, _untyped, typed_builtin_binary,
                     typed_c_binary)
from ._typed import _tree_reduce_segments  # noqa: F401  (hpgraph.graphblas imports it from here)

__all__ = [
    "BinaryOp", "Monoid", "Semiring", "TypedBinaryOp", "TypedMonoid", "TypedSemiring",
    "lookup_binary", "lookup_monoid", "lookup_semiring", "default_dtype",
]


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
    def from_c(cls, c_expr: str, numpy_func=None, name: str | None = None, *, out_dtype=None,
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
            if t is None:
                t = self._typed[dt] = typed_builtin_binary(self.name, self._table, dt, self)
            return t

    def _type_c(self, dt):
        with _lock:
            t = self._typed.get(dt)
            if t is None:
                t = self._typed[dt] = typed_c_binary(self.name, self._cspec, dt, self)
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


_KIND_CLASSES: dict[str, tuple[Any, Any]] = {
    "binary": (BinaryOp, TypedBinaryOp), "monoid": (Monoid, TypedMonoid),
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


_EXAMPLE = {"binary": "plus", "monoid": "min", "semiring": "min_plus"}


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
