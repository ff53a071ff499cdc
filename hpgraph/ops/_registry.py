"""The operator registry: the names of built-in and user-registered operators.

One table per kind (``binary``, ``monoid``, ``semiring``) maps a name to its untyped operator;
built-ins are added on first lookup (by :mod:`hpgraph.ops._core`), user operators by
``register_new``.  Built-in semirings are every ``<monoid>_<binary>`` pair of built-in names.
"""

from __future__ import annotations

import builtins
import operator
import re
import threading
from typing import Any

import numpy as np

from ..exceptions import InvalidValue
from . import _builtins as _b

#: guards the registry tables and the per-operator caches of typed versions
_lock = threading.RLock()

# kind -> name -> untyped op (built-ins are added lazily, on first lookup)
_REGISTRY: dict[str, dict[str, Any]] = {"binary": {}, "monoid": {}, "semiring": {}}


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


def builtin_names(kind: str) -> list[str]:
    """Names of the built-in (and registered) ops of ``kind`` (for ``dir()``)."""
    if kind == "binary":
        names = set(_b.BINARY) | {"oneb"}
    elif kind == "monoid":
        names = set(_b.MONOIDS)
    else:
        names = {f"{m}_{b}" for m in _b.MONOIDS for b in _b.BINARY} | set(_b.SEMIRINGS)
    return sorted(names | set(_REGISTRY[kind]))


def _short_list(kind):
    if kind == "semiring":
        return list(_b.SEMIRINGS) + sorted(_REGISTRY["semiring"]) + ["<monoid>_<binary>"]
    return builtin_names(kind)


def _known_callable(f):
    """Built-in op name for NumPy ufuncs / Python functions with the same semantics, or None."""
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
