"""Numeric building blocks shared by the built-in ops and the callback compiler.

Each operation here exists twice, once as CUDA C (an expression, sometimes calling a small
``__device__`` helper) and once as a vectorised NumPy function, and the two agree bit for bit:

* integer ``+ - *`` and negation wrap modulo 2**bits (C computes them in the unsigned type of
  the same width, so no signed overflow -- undefined behaviour in C -- ever happens);
* GraphBLAS integer division (:func:`c_gb_div` / :func:`np_gb_div`) truncates toward zero, and
  ``x / 0`` is ``INT_MAX`` for ``x > 0``, ``INT_MIN`` for ``x < 0`` and ``0`` for ``x == 0``
  (unsigned: ``UINT_MAX`` or 0); ``INT_MIN / -1`` wraps to ``INT_MIN`` (SuiteSparse ``GB_idiv``);
* Python floor division and modulo (:func:`c_floordiv`, :func:`c_mod`) follow Python for
  integers (the quotient rounds toward minus infinity, the remainder takes the sign of the
  divisor) except that ``x // 0 == x % 0 == 0`` (NumPy's integer convention; Python raises);
  for floats they port NumPy's ``npy_divmod`` so results match ``np.floor_divide`` /
  ``np.remainder`` exactly;
* integer powers are computed by repeated squaring with wrap-around; a negative exponent gives
  ``1`` for base 1, ``+-1`` for base -1 and ``0`` otherwise.

C helpers are emitted inside ``#ifndef`` guards so that preambles can be concatenated freely.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt

__all__ = [
    "c_cast", "c_wrap_binary", "c_neg", "np_wrap_cast",
    "c_gb_div", "np_gb_div", "c_floordiv", "np_floordiv", "c_mod", "np_mod",
    "c_ipow", "np_ipow", "guard",
]


def guard(name: str, body: str) -> str:
    """Wrap a C helper definition in an include guard named after it."""
    macro = "HPGRAPH_" + name.upper()
    return f"#ifndef {macro}\n#define {macro}\n{body.strip()}\n#endif\n"


def _ut(dt: np.dtype) -> str:
    """The unsigned C type used for wrapping arithmetic on integer dtype ``dt``."""
    return "unsigned long long" if dt.itemsize == 8 else "unsigned int"


def _wrapped(expr: str) -> bool:
    """True when ``expr`` is one parenthesised group ``( ... )``."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return False
    depth = 0
    for k, ch in enumerate(expr):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and k < len(expr) - 1:
            return False
    return True


def c_cast(expr: str, dtype) -> str:
    """``expr`` converted to ``dtype`` (C conversion; to bool means ``!= 0``)."""
    dt = _dt.lookup_dtype(dtype)
    t = "bool" if dt.kind == "b" else _dt.c_type(dt)
    pre = f"(({t})"
    if expr.startswith(pre) and expr.endswith(")") and _wrapped(expr[len(pre):-1]):
        return expr  # already exactly this cast
    inner = expr if _wrapped(expr) else f"({expr})"
    return f"(({t}){inner})"


def c_wrap_binary(op: str, x: str, y: str, dtype) -> str:
    """C expression ``x op y`` for ``op`` in ``+ - *`` with wrap-around on integer dtypes."""
    dt = _dt.lookup_dtype(dtype)
    if dt.kind in "iu":
        u = _ut(dt)
        return f"(({_dt.c_type(dt)})(({u})({x}) {op} ({u})({y})))"
    if dt.kind == "b":
        raise TypeError("c_wrap_binary is not defined for bool")
    return f"(({x}) {op} ({y}))"


def c_neg(x: str, dtype) -> str:
    """C expression ``-x`` with wrap-around on integer dtypes (``-INT_MIN == INT_MIN``)."""
    dt = _dt.lookup_dtype(dtype)
    if dt.kind in "iu":
        u = _ut(dt)
        return f"(({_dt.c_type(dt)})(({u})0 - ({u})({x})))"
    return f"(-({x}))"


def np_wrap_cast(a, dtype):
    """``a`` cast to ``dtype`` with C conversion rules where they are defined.

    Integer to integer wraps modulo 2**bits, anything to bool is ``!= 0``.  Float to integer
    truncates toward zero; out-of-range values (undefined in C) produce what NumPy produces.
    """
    dt = _dt.lookup_dtype(dtype)
    a = np.asarray(a)
    if a.dtype == dt:
        return a
    if dt.kind == "b":
        return a != 0
    with np.errstate(all="ignore"):
        return a.astype(dt)


# ---------------------------------------------------------------------------------------
# GraphBLAS integer division (truncating; defined for a zero divisor)


def c_gb_div(x: str, y: str, dtype) -> tuple[str, str]:
    """(expression, preamble) of GraphBLAS ``DIV`` on integer ``dtype``."""
    dt = _dt.lookup_dtype(dtype)
    s = _dt.short_name(dt)
    t = _dt.c_type(dt)
    name = f"hp_gb_div_{s}"
    if dt.kind == "i":
        info = np.iinfo(dt)
        lo, hi = _dt.c_literal(info.min, dt), _dt.c_literal(info.max, dt)
        body = f"""
__device__ __forceinline__ {t} {name}({t} x, {t} y) {{
    if (y == 0) return x == 0 ? ({t})0 : (x < 0 ? {lo} : {hi});
    if (y == -1) return {c_neg('x', dt)};
    return ({t})(x / y);
}}"""
    else:
        hi = _dt.c_literal(np.iinfo(dt).max, dt)
        body = f"""
__device__ __forceinline__ {t} {name}({t} x, {t} y) {{
    if (y == 0) return x == 0 ? ({t})0 : {hi};
    return ({t})(x / y);
}}"""
    return f"{name}({x}, {y})", guard(name, body)


def np_gb_div(x, y, dtype):
    """NumPy twin of :func:`c_gb_div` (no warnings)."""
    dt = _dt.lookup_dtype(dtype)
    x, y = np.broadcast_arrays(np.asarray(x, dt), np.asarray(y, dt))
    info = np.iinfo(dt)
    zero = y == 0
    if dt.kind == "i":
        minus1 = y == -1
        ysafe = np.where(zero | minus1, np.ones((), dt), y)
        q = _np_trunc_div(x, ysafe, dt)
        with np.errstate(all="ignore"):
            neg = np.negative(x)
        q = np.where(minus1, neg, q)
        special = np.where(x == 0, np.zeros((), dt), np.where(x < 0, dt.type(info.min), dt.type(info.max)))
    else:
        ysafe = np.where(zero, np.ones((), dt), y)
        q = x // ysafe
        special = np.where(x == 0, np.zeros((), dt), dt.type(info.max))
    return np.where(zero, special, q).astype(dt, copy=False)


def _np_trunc_div(x, y, dt):
    """Truncating integer division; ``y`` has no 0 and (signed) no -1 entries."""
    q = np.floor_divide(x, y)
    r = x - q * y
    fix = (r != 0) & ((x < 0) != (y < 0))
    return (q + fix.astype(dt)).astype(dt, copy=False)


# ---------------------------------------------------------------------------------------
# Python floor division / modulo


def _float_divmod_helper(dt: np.dtype) -> tuple[str, str]:
    """Port of NumPy's ``npy_divmod`` (floor quotient + Python remainder) to CUDA C."""
    s = _dt.short_name(dt)
    t = _dt.c_type(dt)
    f = "f" if dt == np.float32 else ""
    half = "0.5f" if f else "0.5"
    one = "1.0f" if f else "1.0"
    zero = "0.0f" if f else "0.0"
    name = f"hp_divmod_{s}"
    body = f"""
__device__ __forceinline__ {t} {name}({t} a, {t} b, {t} *modulus) {{
    {t} mod = fmod{f}(a, b);
    if (!b) {{ *modulus = mod; return a / b; }}
    {t} div = (a - mod) / b;
    if (mod) {{
        if ((b < {zero}) != (mod < {zero})) {{ mod += b; div -= {one}; }}
    }} else {{
        mod = copysign{f}({zero}, b);
    }}
    {t} floordiv;
    if (div) {{
        floordiv = floor{f}(div);
        if (div - floordiv > {half}) floordiv += {one};
    }} else {{
        floordiv = copysign{f}({zero}, a / b);
    }}
    *modulus = mod;
    return floordiv;
}}
__device__ __forceinline__ {t} hp_floordiv_{s}({t} a, {t} b) {{
    if (!b) return a / b;
    {t} m;
    return {name}(a, b, &m);
}}
__device__ __forceinline__ {t} hp_mod_{s}({t} a, {t} b) {{
    {t} m;
    if (!b) return fmod{f}(a, b);
    {name}(a, b, &m);
    return m;
}}"""
    return name, guard(name, body)


def _int_floor_helpers(dt: np.dtype) -> tuple[str, str]:
    s = _dt.short_name(dt)
    t = _dt.c_type(dt)
    name = f"hp_ifloor_{s}"
    if dt.kind == "i":
        body = f"""
__device__ __forceinline__ {t} hp_floordiv_{s}({t} x, {t} y) {{
    if (y == 0) return ({t})0;
    if (y == -1) return {c_neg('x', dt)};
    {t} q = ({t})(x / y);
    if (({t})(x % y) != 0 && ((x < 0) != (y < 0))) q = ({t})(q - 1);
    return q;
}}
__device__ __forceinline__ {t} hp_mod_{s}({t} x, {t} y) {{
    if (y == 0 || y == -1) return ({t})0;
    {t} r = ({t})(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = ({t})(r + y);
    return r;
}}"""
    else:
        body = f"""
__device__ __forceinline__ {t} hp_floordiv_{s}({t} x, {t} y) {{
    return y == 0 ? ({t})0 : ({t})(x / y);
}}
__device__ __forceinline__ {t} hp_mod_{s}({t} x, {t} y) {{
    return y == 0 ? ({t})0 : ({t})(x % y);
}}"""
    return name, guard(name, body)


def _floor_helpers(dtype):
    dt = _dt.lookup_dtype(dtype)
    if dt.kind == "b":
        raise TypeError("floor division is not defined for bool; cast first")
    if dt.kind == "f":
        return _float_divmod_helper(dt)[1]
    return _int_floor_helpers(dt)[1]


def c_floordiv(x: str, y: str, dtype) -> tuple[str, str]:
    """(expression, preamble) of Python ``x // y`` on ``dtype`` (``x // 0 == 0`` for ints)."""
    dt = _dt.lookup_dtype(dtype)
    return f"hp_floordiv_{_dt.short_name(dt)}({x}, {y})", _floor_helpers(dt)


def c_mod(x: str, y: str, dtype) -> tuple[str, str]:
    """(expression, preamble) of Python ``x % y`` on ``dtype`` (``x % 0 == 0`` for ints)."""
    dt = _dt.lookup_dtype(dtype)
    return f"hp_mod_{_dt.short_name(dt)}({x}, {y})", _floor_helpers(dt)


def np_floordiv(x, y, dtype):
    """NumPy twin of :func:`c_floordiv` (no warnings)."""
    dt = _dt.lookup_dtype(dtype)
    x, y = np.broadcast_arrays(np.asarray(x, dt), np.asarray(y, dt))
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            return np.floor_divide(x, y)
    zero = y == 0
    if dt.kind == "i":
        minus1 = y == -1
        ysafe = np.where(zero | minus1, np.ones((), dt), y)
        q = np.floor_divide(x, ysafe)
        with np.errstate(all="ignore"):
            q = np.where(minus1, np.negative(x), q)
    else:
        ysafe = np.where(zero, np.ones((), dt), y)
        q = np.floor_divide(x, ysafe)
    return np.where(zero, np.zeros((), dt), q).astype(dt, copy=False)


def np_mod(x, y, dtype):
    """NumPy twin of :func:`c_mod` (no warnings)."""
    dt = _dt.lookup_dtype(dtype)
    x, y = np.broadcast_arrays(np.asarray(x, dt), np.asarray(y, dt))
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            return np.remainder(x, y)
    bad = (y == 0) | (y == -1) if dt.kind == "i" else (y == 0)
    ysafe = np.where(bad, np.ones((), dt), y)
    r = np.remainder(x, ysafe)
    return np.where(bad, np.zeros((), dt), r).astype(dt, copy=False)


# ---------------------------------------------------------------------------------------
# Integer power


def c_ipow(x: str, y: str, dtype) -> tuple[str, str]:
    """(expression, preamble) of integer ``x ** y`` on integer ``dtype`` (wrapping)."""
    dt = _dt.lookup_dtype(dtype)
    s = _dt.short_name(dt)
    t = _dt.c_type(dt)
    u = _ut(dt)
    name = f"hp_ipow_{s}"
    neg = ""
    if dt.kind == "i":
        neg = f"""
    if (y < 0) {{
        if (x == 1) return ({t})1;
        if (x == -1) return (y & 1) ? ({t})-1 : ({t})1;
        return ({t})0;
    }}"""
    body = f"""
__device__ __forceinline__ {t} {name}({t} x, {t} y) {{{neg}
    {u} r = 1, b = ({u})x, e = ({u})y;
    while (e) {{
        if (e & 1) r = r * b;
        b = b * b;
        e >>= 1;
    }}
    return ({t})r;
}}"""
    return f"{name}({x}, {y})", guard(name, body)


def np_ipow(x, y, dtype):
    """NumPy twin of :func:`c_ipow`."""
    dt = _dt.lookup_dtype(dtype)
    x, y = np.broadcast_arrays(np.asarray(x, dt), np.asarray(y, dt))
    udt = np.dtype(f"u{dt.itemsize if dt.itemsize >= 4 else 4}")
    with np.errstate(all="ignore"):
        b = x.astype(udt)
        e = y.astype(udt)
        r = np.ones(x.shape, udt)
        one = udt.type(1)
        while np.any(e):
            r = np.where((e & one) != 0, r * b, r)
            b = b * b
            e = e >> one
        out = r.astype(dt)
    if dt.kind == "i":
        neg = y < 0
        if np.any(neg):
            alt = np.where(x == 1, dt.type(1),
                           np.where(x == -1, np.where((y & 1) != 0, dt.type(-1), dt.type(1)), dt.type(0)))
            out = np.where(neg, alt, out)
    return out.astype(dt, copy=False)
