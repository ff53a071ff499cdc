"""NumPy dtype <-> CUDA C type names, literals, and the index dtype rule.

One table maps each supported dtype to its C type and a short name used in kernel names
(``hpgraph_ell_min_plus_f32_i32``).  :func:`lookup_dtype` accepts a NumPy dtype, a string
(``"float32"``, ``"f32"``, ``"FP32"``, ``"INT64"``) or a Python type.
"""

from __future__ import annotations

import math

import numpy as np

from .exceptions import DomainMismatch

# dtype -> (C type, short name)
_TABLE = {
    np.dtype(np.bool_): ("bool", "bool"),
    np.dtype(np.int8): ("signed char", "i8"),
    np.dtype(np.int16): ("short", "i16"),
    np.dtype(np.int32): ("int", "i32"),
    np.dtype(np.int64): ("long long", "i64"),
    np.dtype(np.uint8): ("unsigned char", "u8"),
    np.dtype(np.uint16): ("unsigned short", "u16"),
    np.dtype(np.uint32): ("unsigned int", "u32"),
    np.dtype(np.uint64): ("unsigned long long", "u64"),
    np.dtype(np.float32): ("float", "f32"),
    np.dtype(np.float64): ("double", "f64"),
}

#: Every value dtype hpgraph supports, in a stable order.
ALL_DTYPES: tuple = tuple(_TABLE)
INT_DTYPES: tuple = tuple(d for d in ALL_DTYPES if d.kind in "iu")
FLOAT_DTYPES: tuple = (np.dtype(np.float32), np.dtype(np.float64))

_ALIASES = {}
for _dt, (_c, _short) in _TABLE.items():
    _ALIASES[_dt.name] = _dt
    _ALIASES[_short] = _dt
    _ALIASES[_dt.name.upper()] = _dt
    _ALIASES[_short.upper()] = _dt
_ALIASES.update({"BOOL": np.dtype(np.bool_), "FP32": np.dtype(np.float32), "FP64": np.dtype(np.float64),
                 "float": np.dtype(np.float64), "int": np.dtype(np.int64), "bool_": np.dtype(np.bool_)})


def lookup_dtype(dtype) -> np.dtype:
    """Return the NumPy dtype for ``dtype`` (NumPy dtype, string alias or Python type).

    Raises
    ------
    DomainMismatch
        If the dtype is not one hpgraph supports (complex, strings, objects...).
    """
    if isinstance(dtype, str) and dtype in _ALIASES:
        return _ALIASES[dtype]
    if dtype is bool:
        return np.dtype(np.bool_)
    if dtype is int:
        return np.dtype(np.int64)
    if dtype is float:
        return np.dtype(np.float64)
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise DomainMismatch(
            f"unknown dtype {dtype!r}: expected one of {', '.join(d.name for d in ALL_DTYPES)}"
        ) from None
    if dt not in _TABLE:
        raise DomainMismatch(
            f"unsupported dtype {dt.name!r}: expected one of {', '.join(d.name for d in ALL_DTYPES)}"
        )
    return dt


def c_type(dtype) -> str:
    """CUDA C type name for ``dtype`` (``float32`` -> ``"float"``)."""
    return _TABLE[lookup_dtype(dtype)][0]


def short_name(dtype) -> str:
    """Short name used in kernel names (``float32`` -> ``"f32"``)."""
    return _TABLE[lookup_dtype(dtype)][1]


def is_float(dtype) -> bool:
    return lookup_dtype(dtype).kind == "f"


def is_signed(dtype) -> bool:
    return lookup_dtype(dtype).kind in "if"


def result_type(*dtypes) -> np.dtype:
    """NumPy promotion of the given dtypes (``None`` entries, meaning pattern-only, are skipped)."""
    dts = [lookup_dtype(d) for d in dtypes if d is not None]
    if not dts:
        return np.dtype(np.bool_)
    return lookup_dtype(np.result_type(*dts))


def index_dtype(*sizes: int) -> np.dtype:
    """int32 when every size fits in int32 (strictly below 2**31 - 1), else int64."""
    limit = np.iinfo(np.int32).max
    return np.dtype(np.int64) if any(int(s) >= limit for s in sizes) else np.dtype(np.int32)


def c_literal(value, dtype) -> str:
    """A C literal for ``value`` as ``dtype``; infinities and NaN for floats, exact integers.

    NVRTC has no ``INFINITY`` macro, so float infinities are spelled as bit patterns.
    """
    dt = lookup_dtype(dtype)
    if dt.kind == "b":
        return "true" if bool(value) else "false"
    if dt.kind == "f":
        v = float(value)
        if dt == np.float32:
            if math.isnan(v):
                return "__int_as_float(0x7fc00000)"
            if math.isinf(v):
                return "__int_as_float(0xff800000U)" if v < 0 else "__int_as_float(0x7f800000)"
            return _float_lit(v, True)
        if math.isnan(v):
            return "__longlong_as_double(0x7ff8000000000000LL)"
        if math.isinf(v):
            return ("__longlong_as_double(0xfff0000000000000ULL)" if v < 0
                    else "__longlong_as_double(0x7ff0000000000000LL)")
        return _float_lit(v, False)
    v = int(value)
    info = np.iinfo(dt)
    if not info.min <= v <= info.max:
        raise DomainMismatch(f"value {value!r} does not fit in {dt.name}")
    if dt == np.int64:
        if v == info.min:  # -9223372036854775808LL is not a valid literal in C
            return "(-9223372036854775807LL - 1LL)"
        return f"{v}LL"
    if dt == np.uint64:
        return f"{v}ULL"
    if dt == np.uint32:
        return f"{v}U"
    if dt == np.int32 and v == info.min:
        return "(-2147483647 - 1)"
    return f"(({_TABLE[dt][0]}){v})"


def _float_lit(v: float, single: bool) -> str:
    text = repr(float(np.float32(v))) if single else repr(v)
    if "e" not in text and "." not in text and "inf" not in text and "nan" not in text:
        text += ".0"
    return f"({text}f)" if single else f"({text})"
