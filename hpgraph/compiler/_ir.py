"""Typed expression IR shared by the C and NumPy back ends.

A callback compiles to a DAG of :class:`Node` (hash-consed, so equal subexpressions are
shared).  Every node has a concrete dtype and its operands are already of the dtype the
operation needs (explicit ``cast`` nodes), so the C and NumPy back ends only translate
node by node and cannot disagree on promotion.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from . import _numerics as _n

_BOOL = np.dtype(np.bool_)


class Node:
    """One typed operation.  ``op`` names it, ``args`` are Nodes, ``attr`` a hashable extra."""

    __slots__ = ("op", "args", "dtype", "attr", "_key")

    def __init__(self, op, args, dtype, attr=None):
        self.op = op
        self.args = tuple(args)
        self.dtype = np.dtype(dtype)
        self.attr = attr
        self._key = (op, tuple(id(a) for a in self.args), self.dtype.str, _attr_key(attr))

    def __repr__(self):
        return f"Node({self.op}, {self.dtype.name}, {self.attr!r}, {len(self.args)} args)"


def _attr_key(attr):
    if isinstance(attr, float):
        return ("f", attr.hex() if not math.isnan(attr) else "nan")
    return attr


class Builder:
    """Creates hash-consed nodes (common subexpressions are shared)."""

    def __init__(self):
        self._memo = {}
        self._keep = []  # keep args alive so ids stay unique

    def node(self, op, args, dtype, attr=None) -> Node:
        n = Node(op, args, dtype, attr)
        hit = self._memo.get(n._key)
        if hit is not None:
            return hit
        self._memo[n._key] = n
        self._keep.append(n)
        return n

    def const(self, value, dtype) -> Node:
        dt = np.dtype(dtype)
        if dt.kind == "b":
            v = bool(value)
        elif dt.kind == "f":
            v = float(value)
        else:
            v = int(value)
        return self.node("const", (), dt, v)

    def cast(self, x: Node, dtype) -> Node:
        dt = np.dtype(dtype)
        if x.dtype == dt:
            return x
        if x.op == "const":
            if dt.kind == "b":
                return self.const(bool(x.attr), dt)
            if dt.kind == "f":
                return self.const(float(np.asarray(x.attr, x.dtype).astype(dt)), dt)
            if x.dtype.kind in "iub":
                with np.errstate(all="ignore"):
                    return self.const(int(np.asarray(x.attr, x.dtype).astype(dt)), dt)
        return self.node("cast", (x,), dt)


def topo(outputs) -> list:
    """Nodes reachable from ``outputs`` in dependency order (each once)."""
    order, seen = [], set()
    stack = [(n, False) for n in reversed(list(outputs))]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        for a in reversed(n.args):
            if id(a) not in seen:
                stack.append((a, False))
    return order


# ---------------------------------------------------------------------------------------
# math functions: name -> (C float name, C double name, numpy function)

MATH_FUNCS = {
    "sqrt": ("sqrtf", "sqrt", np.sqrt),
    "exp": ("expf", "exp", np.exp),
    "exp2": ("exp2f", "exp2", np.exp2),
    "expm1": ("expm1f", "expm1", np.expm1),
    "log": ("logf", "log", np.log),
    "log2": ("log2f", "log2", np.log2),
    "log10": ("log10f", "log10", np.log10),
    "log1p": ("log1pf", "log1p", np.log1p),
    "floor": ("floorf", "floor", np.floor),
    "ceil": ("ceilf", "ceil", np.ceil),
    "trunc": ("truncf", "trunc", np.trunc),
    "fabs": ("fabsf", "fabs", np.fabs),
    "sin": ("sinf", "sin", np.sin),
    "cos": ("cosf", "cos", np.cos),
    "tan": ("tanf", "tan", np.tan),
    "asin": ("asinf", "asin", np.arcsin),
    "acos": ("acosf", "acos", np.arccos),
    "atan": ("atanf", "atan", np.arctan),
    "sinh": ("sinhf", "sinh", np.sinh),
    "cosh": ("coshf", "cosh", np.cosh),
    "tanh": ("tanhf", "tanh", np.tanh),
    "pow": ("powf", "pow", np.power),
    "atan2": ("atan2f", "atan2", np.arctan2),
    "hypot": ("hypotf", "hypot", np.hypot),
    "fmod": ("fmodf", "fmod", np.fmod),
    "copysign": ("copysignf", "copysign", np.copysign),
}
MATH_PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}

_CMP_C = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_CMP_NP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}


# ---------------------------------------------------------------------------------------
# C back end


def c_node(n: Node, a: list, helpers: dict) -> str:
    """C expression of node ``n`` whose operands are the C expressions ``a``."""
    dt = n.dtype
    ct = _dt.c_type(dt) if dt.kind != "b" else "bool"
    op = n.op
    if op == "const":
        return _dt.c_literal(n.attr, dt)
    if op == "cast":
        return _n.c_cast(a[0], dt)
    if op in ("add", "sub", "mul"):
        sym = {"add": "+", "sub": "-", "mul": "*"}[op]
        return _n.c_wrap_binary(sym, a[0], a[1], dt)
    if op == "truediv":
        return f"(({a[0]}) / ({a[1]}))"
    if op in ("floordiv", "mod", "ipow"):
        f = {"floordiv": _n.c_floordiv, "mod": _n.c_mod, "ipow": _n.c_ipow}[op]
        expr, pre = f(a[0], a[1], dt)
        helpers[pre] = None
        return expr
    if op in ("min", "max"):
        if dt.kind == "b":
            return f"(({a[0]}) {'&&' if op == 'min' else '||'} ({a[1]}))"
        if dt.kind == "f":
            f = "f" if dt == np.float32 else ""
            return f"f{op}{f}({a[0]}, {a[1]})"
        sym = "<" if op == "min" else ">"
        return f"(({a[0]}) {sym} ({a[1]}) ? ({a[0]}) : ({a[1]}))"
    if op in _CMP_C:
        return f"(({a[0]}) {_CMP_C[op]} ({a[1]}))"
    if op == "not":
        return f"(!({a[0]}))"
    if op == "and":
        return f"(({a[0]}) && ({a[1]}))"
    if op == "or":
        return f"(({a[0]}) || ({a[1]}))"
    if op in ("bitand", "bitor", "bitxor"):
        sym = {"bitand": "&", "bitor": "|", "bitxor": "^"}[op]
        if dt.kind == "b":
            return f"((bool)(({a[0]}) {sym} ({a[1]})))"
        return f"(({ct})(({a[0]}) {sym} ({a[1]})))"
    if op == "invert":
        return f"(({ct})(~({a[0]})))"
    if op == "neg":
        return _n.c_neg(a[0], dt)
    if op == "abs":
        if dt.kind == "f":
            return f"fabs{'f' if dt == np.float32 else ''}({a[0]})"
        if dt.kind == "u":
            return a[0]
        return f"(({a[0]}) < 0 ? {_n.c_neg(a[0], dt)} : ({a[0]}))"
    if op == "where":
        return f"(({a[0]}) ? ({a[1]}) : ({a[2]}))"
    if op == "math":
        fname = MATH_FUNCS[n.attr][0 if dt == np.float32 else 1]
        return f"{fname}({', '.join(a)})"
    if op == "pred":
        return f"((bool){n.attr}({a[0]}))"
    raise AssertionError(f"no C form for {op}")  # pragma: no cover (safety)


# ---------------------------------------------------------------------------------------
# NumPy back end


def np_node(n: Node, a: list):
    """NumPy value of node ``n`` given operand arrays ``a`` (warnings are suppressed by caller)."""
    dt = n.dtype
    op = n.op
    if op == "const":
        return np.asarray(n.attr, dtype=dt)
    if op == "cast":
        return _n.np_wrap_cast(a[0], dt)
    if op == "add":
        return np.add(a[0], a[1], dtype=dt)
    if op == "sub":
        return np.subtract(a[0], a[1], dtype=dt)
    if op == "mul":
        return np.multiply(a[0], a[1], dtype=dt)
    if op == "truediv":
        return np.true_divide(a[0], a[1], dtype=dt)
    if op == "floordiv":
        return _n.np_floordiv(a[0], a[1], dt)
    if op == "mod":
        return _n.np_mod(a[0], a[1], dt)
    if op == "ipow":
        return _n.np_ipow(a[0], a[1], dt)
    if op == "min":
        if dt.kind == "b":
            return np.logical_and(a[0], a[1])
        return (np.fmin if dt.kind == "f" else np.minimum)(a[0], a[1])
    if op == "max":
        if dt.kind == "b":
            return np.logical_or(a[0], a[1])
        return (np.fmax if dt.kind == "f" else np.maximum)(a[0], a[1])
    if op in _CMP_NP:
        return _CMP_NP[op](a[0], a[1])
    if op == "not":
        return np.logical_not(a[0])
    if op == "and":
        return np.logical_and(a[0], a[1])
    if op == "or":
        return np.logical_or(a[0], a[1])
    if op == "bitand":
        return np.bitwise_and(a[0], a[1])
    if op == "bitor":
        return np.bitwise_or(a[0], a[1])
    if op == "bitxor":
        return np.bitwise_xor(a[0], a[1])
    if op == "invert":
        return np.invert(a[0])
    if op == "neg":
        return np.negative(a[0])
    if op == "abs":
        return np.abs(a[0])
    if op == "where":
        return np.where(a[0], a[1], a[2])
    if op == "math":
        return MATH_FUNCS[n.attr][2](*a, dtype=dt)
    if op == "pred":
        return MATH_PREDICATES[n.attr](a[0])
    raise AssertionError(f"no NumPy form for {op}")  # pragma: no cover (safety)
