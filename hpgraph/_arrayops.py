"""Array operations on NumPy or CuPy that keep CuPy's slow first compiles out of common paths.

CuPy reduces ``bool`` arrays (``any``, ``all``, ``count_nonzero``, and the ``(x < 0).any()``
check inside ``cupy.bincount``) with kernels it builds from the CUB headers on first use:
about 1.4-2.9 s of NVRTC each on an H200, nine seconds of a cold ``hpgraph demo``.  Its
device-wide reductions over integer arrays (``min``, ``max``, ``sum`` of int64) come
precompiled.  The helpers here give the same results through those: a ``bool`` array is read
as ``uint8``, and :func:`bincount` checks its ids with ``min`` instead of a bool reduction.
Host arrays (also under a NumPy stand-in for CuPy in tests) go to NumPy's own functions.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["any_true", "all_true", "count_true", "bincount"]


def _on_host(a) -> bool:
    return not hasattr(a, "__cuda_array_interface__")


#: Elements a device count widens to int64 at a time (bounds its temporary to 128 MiB).
_COUNT_CHUNK = 1 << 24


def _as_bytes(xp, b):
    """``b != 0`` as a contiguous 1-D ``uint8`` view (1 where nonzero), which CuPy reduces with
    precompiled CUB; a bool array is only viewed."""
    if b.dtype != np.bool_:
        b = b != 0
    b = xp.ascontiguousarray(b).reshape(-1)
    return b.view(np.uint8)


def any_true(xp, b) -> bool:
    """``bool(b.any())``: whether an element of ``b`` is nonzero (True)."""
    if _on_host(b):
        return bool(np.any(b))
    return b.size > 0 and bool(int(_as_bytes(xp, b).max()))


def all_true(xp, b) -> bool:
    """``bool(b.all())``: whether every element of ``b`` is nonzero (True when empty)."""
    if _on_host(b):
        return bool(np.all(b))
    return b.size == 0 or bool(int(_as_bytes(xp, b).min()))


def count_true(xp, b) -> int:
    """``int(count_nonzero(b))``: how many elements of ``b`` are nonzero."""
    if _on_host(b):
        return int(np.count_nonzero(b))
    u = _as_bytes(xp, b)
    return sum(int(u[i:i + _COUNT_CHUNK].astype(np.int64).sum())
               for i in range(0, int(u.shape[0]), _COUNT_CHUNK))


@functools.lru_cache(maxsize=None)
def _count_kernels():
    from . import backend

    cp = backend.cupy()
    plain = cp.ElementwiseKernel("S x", "raw U bin", "atomicAdd(&bin[x], U(1))",
                                 "hpgraph_bincount")
    weighted = cp.ElementwiseKernel("S x, T w", "raw U bin", "atomicAdd(&bin[x], U(w))",
                                    "hpgraph_bincount_weighted")
    return plain, weighted


def bincount(xp, x, weights=None, minlength=0):
    """``xp.bincount(x, weights, minlength)``: counts (int64) or sums of ``weights`` (float64)
    per value of the non-negative integer array ``x``.

    Raises
    ------
    ValueError
        ``x`` is not 1-D, holds a negative value, or ``weights`` has another shape (NumPy's
        and CuPy's own errors).
    TypeError
        ``x`` is not an integer array.
    """
    if _on_host(x):
        return np.bincount(x, weights=weights, minlength=minlength)
    if x.ndim != 1:
        raise ValueError("object too deep for desired array")
    if x.dtype.kind == "b":
        x = _as_bytes(xp, x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"bincount needs an integer array, got dtype {x.dtype}")
    if minlength is None:
        minlength = 0
    if minlength < 0:
        raise ValueError("minlength must be non-negative")
    if weights is not None and weights.shape != x.shape:
        raise ValueError("The weights and list don't have the same length.")
    size = int(minlength)
    if x.size:
        if x.dtype.kind == "i" and int(x.min()) < 0:
            raise ValueError("The first argument of bincount must be non-negative")
        size = max(size, int(x.max()) + 1)
    plain, weighted = _count_kernels()
    if weights is None:
        out = xp.zeros(size, dtype=np.int64)
        if x.size:
            plain(x, out)
    else:
        out = xp.zeros(size, dtype=np.float64)
        if x.size:
            weighted(x, weights, out)
    return out
