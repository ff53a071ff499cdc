"""The built-in operators, as data.

Three tables drive everything: :data:`BINARY` (name -> output rule, C template per dtype kind,
NumPy implementation per dtype kind), :data:`MONOIDS` (name -> binary op, identity,
terminal, idempotence) and :data:`SEMIRINGS` (the names listed by ``dir(hp.semiring)``; any
``<monoid>_<binary>`` combination of built-ins is also accepted on lookup).

Semantics follow SuiteSparse:GraphBLAS:

* on ``bool``: ``plus`` = ``lor``, ``times`` = ``land``, ``minus`` = ``rminus`` = ``lxor``,
  ``div`` = ``first``, ``min`` = ``land``, ``max`` = ``lor``;
* ``land``/``lor``/``lxor`` on a non-bool type ``T`` return ``T`` (1 or 0; any nonzero value,
  NaN included, is true);
* comparisons return ``bool``;
* integer ``+ - *`` wrap; integer ``div`` truncates toward zero and defines ``x / 0``
  (see :mod:`hpgraph.compiler._numerics`);
* float ``min``/``max`` are ``fmin``/``fmax``: a NaN operand is ignored (NaN only if both are);
* ``any`` returns its second operand (as a monoid: "any one of the values");
* ``firsti`` = row index ``i`` of the first operand's entry, ``secondi`` = ``j``, its column
  index (= the row index of the second operand's entry); their output dtype is ``int32`` when
  typed by ``int32``, else ``int64`` (python-graphblas' rule), and the operand values are unused.

C templates use ``{x}``, ``{y}``, ``{i}``, ``{j}`` (C expressions, already of the input type)
and ``{T}`` (the C input type).  A template may instead be a function
``(x, y, dtype) -> (expression, preamble)``.
"""

from __future__ import annotations

import numpy as np

from ..compiler import _numerics as _n

# ---------------------------------------------------------------------------------------
# helpers for the table


def _wrap(op):
    def c(x, y, dt):
        return _n.c_wrap_binary(op, x, y, dt), ""
    return c


def _rwrap(op):
    def c(x, y, dt):
        return _n.c_wrap_binary(op, y, x, dt), ""
    return c


def _gbdiv(x, y, dt):
    return _n.c_gb_div(x, y, dt)


def _fminmax(name):
    def c(x, y, dt):
        f = "f" if dt == np.float32 else ""
        return f"{name}{f}({x}, {y})", ""
    return c


def _logical(op):
    # result of the same type T: 1 or 0
    return "(({T})(((({x}) != 0) " + op + " (({y}) != 0)) ? 1 : 0))"


def _np_logical(ufunc):
    def f(x, y, dt):
        return ufunc(x, y).astype(dt)
    return f


def _np_first(x, y, dt):
    return np.broadcast_arrays(x, y)[0].copy()


def _np_second(x, y, dt):
    return np.broadcast_arrays(x, y)[1].copy()


def _np_pair(x, y, dt):
    return np.ones(np.broadcast_shapes(np.shape(x), np.shape(y)), dt)


#: name -> (output rule, {kind: C template}, {kind: numpy function(x, y, dtype)}).
#: Output rule: "same" (the input dtype), "bool", or "index".  Kinds: "b" bool, "i" signed int,
#: "u" unsigned int, "f" float, "*" any kind not listed.
BINARY = {
    "first":  ("same", {"*": "{x}"}, {"*": _np_first}),
    "second": ("same", {"*": "{y}"}, {"*": _np_second}),
    "pair":   ("same", {"*": "(({T})1)"}, {"*": _np_pair}),
    "any":    ("same", {"*": "{y}"}, {"*": _np_second}),
    "plus":   ("same", {"b": "(({x}) || ({y}))", "i": _wrap("+"), "u": _wrap("+"), "f": "(({x}) + ({y}))"},
               {"b": np.logical_or, "*": np.add}),
    "minus":  ("same", {"b": "(({x}) != ({y}))", "i": _wrap("-"), "u": _wrap("-"), "f": "(({x}) - ({y}))"},
               {"b": np.not_equal, "*": np.subtract}),
    "rminus": ("same", {"b": "(({x}) != ({y}))", "i": _rwrap("-"), "u": _rwrap("-"), "f": "(({y}) - ({x}))"},
               {"b": np.not_equal, "*": lambda x, y, dt: np.subtract(y, x)}),
    "times":  ("same", {"b": "(({x}) && ({y}))", "i": _wrap("*"), "u": _wrap("*"), "f": "(({x}) * ({y}))"},
               {"b": np.logical_and, "*": np.multiply}),
    "div":    ("same", {"b": "{x}", "i": _gbdiv, "u": _gbdiv, "f": "(({x}) / ({y}))"},
               {"b": _np_first, "i": _n.np_gb_div, "u": _n.np_gb_div, "f": np.true_divide}),
    "rdiv":   ("same", {"b": "{y}", "i": lambda x, y, dt: _gbdiv(y, x, dt),
                        "u": lambda x, y, dt: _gbdiv(y, x, dt), "f": "(({y}) / ({x}))"},
               {"b": _np_second, "i": lambda x, y, dt: _n.np_gb_div(y, x, dt),
                "u": lambda x, y, dt: _n.np_gb_div(y, x, dt), "f": lambda x, y, dt: np.true_divide(y, x)}),
    "min":    ("same", {"b": "(({x}) && ({y}))", "i": "(({x}) < ({y}) ? ({x}) : ({y}))",
                        "u": "(({x}) < ({y}) ? ({x}) : ({y}))", "f": _fminmax("fmin")},
               {"b": np.logical_and, "i": np.minimum, "u": np.minimum, "f": np.fmin}),
    "max":    ("same", {"b": "(({x}) || ({y}))", "i": "(({x}) > ({y}) ? ({x}) : ({y}))",
                        "u": "(({x}) > ({y}) ? ({x}) : ({y}))", "f": _fminmax("fmax")},
               {"b": np.logical_or, "i": np.maximum, "u": np.maximum, "f": np.fmax}),
    "land":   ("same", {"b": "(({x}) && ({y}))", "*": _logical("&&")},
               {"b": np.logical_and, "*": _np_logical(np.logical_and)}),
    "lor":    ("same", {"b": "(({x}) || ({y}))", "*": _logical("||")},
               {"b": np.logical_or, "*": _np_logical(np.logical_or)}),
    "lxor":   ("same", {"b": "(({x}) != ({y}))", "*": _logical("!=")},
               {"b": np.not_equal, "*": _np_logical(np.logical_xor)}),
    "eq":     ("bool", {"*": "(({x}) == ({y}))"}, {"*": np.equal}),
    "ne":     ("bool", {"*": "(({x}) != ({y}))"}, {"*": np.not_equal}),
    "lt":     ("bool", {"*": "(({x}) < ({y}))"}, {"*": np.less}),
    "le":     ("bool", {"*": "(({x}) <= ({y}))"}, {"*": np.less_equal}),
    "gt":     ("bool", {"*": "(({x}) > ({y}))"}, {"*": np.greater}),
    "ge":     ("bool", {"*": "(({x}) >= ({y}))"}, {"*": np.greater_equal}),
    "firsti":  ("index", {"*": "{i}"}, {"*": None}),
    "secondi": ("index", {"*": "{j}"}, {"*": None}),
}

#: other spellings accepted on lookup
BINARY_ALIASES = {"oneb": "pair", "truediv": "div", "cdiv": "div", "minimum": "min", "maximum": "max",
                  "add": "plus", "subtract": "minus", "multiply": "times", "equal": "eq",
                  "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
                  "greater_equal": "ge", "logical_and": "land", "logical_or": "lor",
                  "logical_xor": "lxor", "firstj": "secondi"}

# identity / terminal rules: a value, "max" / "min" (of the dtype: +inf / -inf for floats,
# True / False for bool), "any" (every value is terminal), or None
#: name -> (binary op, identity, terminal by kind, idempotent, logical (typed as bool))
MONOIDS = {
    "plus":  ("plus", 0, {"b": True}, False, False),
    "times": ("times", 1, {"b": False, "i": 0, "u": 0}, False, False),
    "min":   ("min", "max", {"*": "min"}, True, False),
    "max":   ("max", "min", {"*": "max"}, True, False),
    "land":  ("land", True, {"*": False}, True, True),
    "lor":   ("lor", False, {"*": True}, True, True),
    "lxor":  ("lxor", False, {}, False, True),
    "any":   ("any", 0, {"*": "any"}, True, False),
}

MONOID_ALIASES = {"add": "plus", "multiply": "times", "minimum": "min", "maximum": "max",
                  "logical_and": "land", "logical_or": "lor", "logical_xor": "lxor"}

#: numpy ufunc per (monoid, kind); None: no ufunc (``np_reduce_segments`` handles it)
MONOID_UFUNCS = {
    "plus":  {"b": np.logical_or, "*": np.add},
    "times": {"b": np.logical_and, "*": np.multiply},
    "min":   {"b": np.logical_and, "i": np.minimum, "u": np.minimum, "f": np.fmin},
    "max":   {"b": np.logical_or, "i": np.maximum, "u": np.maximum, "f": np.fmax},
    "land":  {"*": np.logical_and},
    "lor":   {"*": np.logical_or},
    "lxor":  {"*": np.logical_xor},
    "any":   {"*": None},
}

_NATIVE_ADD = {"int32", "uint32", "int64", "uint64", "float32", "float64"}
_NATIVE_MINMAX = {"int32", "uint32", "int64", "uint64"}


def monoid_atomic(name: str, dtype: np.dtype):
    """How a GPU kernel combines concurrent updates for built-in monoid ``name`` on ``dtype``.

    ``"add"`` (``atomicAdd``; int64 through ``unsigned long long``), ``"min"``/``"max"``
    (``atomicMin``/``atomicMax``), ``"cas"`` (an ``atomicCAS`` loop on the 32/64-bit word),
    or ``None`` (bool and 8/16-bit dtypes: no atomic form; push is not allowed).
    """
    if dtype.itemsize < 4:
        return None
    if name == "plus":
        return "add" if dtype.name in _NATIVE_ADD else "cas"
    if name in ("min", "max"):
        return name if dtype.name in _NATIVE_MINMAX else "cas"
    return "cas"


#: semiring names listed by ``dir(hp.semiring)`` besides every monoid_binary combination
SEMIRINGS = (
    "plus_times", "plus_pair", "plus_first", "plus_second", "plus_min", "plus_plus",
    "min_plus", "max_plus", "min_times", "max_times", "max_min", "min_max",
    "min_first", "min_second", "max_first", "max_second", "lor_land", "land_lor",
    "lor_pair", "lor_first", "lor_second", "any_pair", "any_first", "any_second",
    "any_secondi", "any_firsti", "min_secondi", "min_firsti", "max_secondi", "max_firsti",
)


def kind_lookup(table: dict, dtype: np.dtype):
    """Entry of a per-kind ``table`` for ``dtype`` (``"*"`` is the fallback), or KeyError."""
    k = dtype.kind
    if k in table:
        return table[k]
    return table["*"]
