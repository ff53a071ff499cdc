"""Operators: binary ops, monoids and semirings, built-in and user-defined.

Untyped operators (:class:`BinaryOp`, :class:`Monoid`, :class:`Semiring`) are indexed by a dtype
to give frozen typed versions carrying the CUDA C expression and the NumPy implementation::

    >>> import numpy as np, hpgraph as hp
    >>> s = hp.semiring.min_plus[np.float32]
    >>> s.add.c_identity, s.mul.c_expr("a", "x")
    ('__int_as_float(0x7f800000)', '((float)((a) + (x)))')

Names work everywhere an operator is expected: ``"min_plus"``, ``"min_plus[float32]"``,
``"semiring.min_plus"`` (:func:`lookup_semiring` and friends).  The namespaces
``hp.binary``, ``hp.monoid`` and ``hp.semiring`` build operators on first access.
"""

from ._core import (
    BinaryOp,
    Monoid,
    Semiring,
    TypedBinaryOp,
    TypedMonoid,
    TypedSemiring,
    default_dtype,
    lookup_binary,
    lookup_monoid,
    lookup_semiring,
)

__all__ = [
    "BinaryOp", "Monoid", "Semiring", "TypedBinaryOp", "TypedMonoid", "TypedSemiring",
    "lookup_binary", "lookup_monoid", "lookup_semiring", "default_dtype",
    "binary", "monoid", "semiring",
]


def __getattr__(name):
    if name in ("binary", "monoid", "semiring"):
        import importlib

        mod = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
