"""What a name or expression in a callback can stand for while it is translated: Python scalar
constants ("weak", NEP 50), captured ``math`` / ``numpy`` modules and supported functions,
``dict`` returns, views, and the dtype categories used to promote weak values."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import dtypes as _dt
from . import _ir

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)

_MATH_CONSTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}
_NP_DTYPE_FUNCS = {d.name: d for d in _dt.ALL_DTYPES}
_NP_DTYPE_FUNCS.update({"bool_": _BOOL, "float_": _F64, "double": _F64, "single": np.dtype(np.float32)})
_NP_ALIASES = {"absolute": "abs", "abs": "abs", "fabs": "fabs", "where": "where",
               "arctan": "atan", "arcsin": "asin", "arccos": "acos", "arctan2": "atan2",
               "power": "pow", "fmin": "fmin", "fmax": "fmax"}
_BUILTIN_FUNCS = ("min", "max", "abs", "float", "int", "bool")


def _supported_function(value):
    """Name of a supported callable (``"min"``, ``"math.sqrt"``, ``"dtype:float32"``) or None."""
    for nm in _BUILTIN_FUNCS:
        if value is getattr(builtins, nm):
            return nm
    for nm in (*_ir.MATH_FUNCS, *_ir.MATH_PREDICATES):
        if hasattr(math, nm) and value is getattr(math, nm):
            return "math." + nm
        if hasattr(np, nm) and value is getattr(np, nm):
            return "math." + nm
    for nm, canon in _NP_ALIASES.items():
        if hasattr(np, nm) and value is getattr(np, nm):
            return "np." + canon
    if isinstance(value, type) and issubclass(value, np.generic):
        try:
            return "dtype:" + _dt.lookup_dtype(value).name
        except Exception:
            return None
    return None


class ModuleRef:
    """A captured or global ``math`` / ``numpy`` module (its attributes are looked up)."""

    def __init__(self, name):
        self.name = name  # "math" or "numpy"


class FuncRef:
    """A supported function (:func:`_supported_function` names it: ``"min"``, ``"math.sqrt"``)."""

    def __init__(self, name):
        self.name = name


class Weak:
    """A Python scalar constant (NEP 50 "weak": adopts the other operand's dtype)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class WeakExpr:
    """An expression computed only from Python scalars and Python-typed results (weak)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


class ViewRef:
    """A parameter with declared properties, read by attribute (``v.rank``)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class DictVal:
    """A ``dict`` display (the multi-field return of a vertex program): name -> value."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


class Undefined:
    """A local assigned on only some branches of an ``if`` (an error if read afterwards)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _cat_dtype(dt):
    return {"b": 0, "i": 1, "u": 1, "f": 2}[dt.kind]


def _cat_weak(v):
    if isinstance(v, Weak):
        x = v.value
        return 0 if isinstance(x, bool) else (1 if isinstance(x, int) else 2)
    return _cat_dtype(v.node.dtype)


_DEFAULT_BY_CAT = {0: _BOOL, 1: _I64, 2: _F64}


def _fits(value, dt):
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return info.min <= int(value) <= info.max
    return True
