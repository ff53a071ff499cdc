"""Pieces shared by the generated product kernels (:mod:`._mdot_gpu`, :mod:`._mdot_hash`,
:mod:`._spgemm_gpu`).

:func:`semiring_slots` turns a typed semiring from the one operator registry
(:mod:`hpgraph.ops`) into the template slots every generated product kernel uses: the C types,
``hp_mul`` (the multiply's ``c_expr``, reading ``(a, b, i, k)``: ``i`` the output row, ``k``
the contracted index, as the host path's index operators), ``hp_add`` / the terminal test of
the add monoid, its atomic form ``hp_atomic``, and whether the multiply reads each operand's
value at all (``pair``, ``firsti``... do not, so those kernels never load the values); and the
``lower_bound`` search every product kernel uses.
"""

from __future__ import annotations

import re

import numpy as np

from .. import dtypes as _dt

__all__ = ["semiring_slots", "reads_operand", "kernel", "COMMON", "LOWER_BOUND"]

#: ``lower_bound``, the binary search of the generated kernels that look columns up in a
#: sorted row (the products, the row-wise element-wise forms)
LOWER_BOUND = r"""// first position in idx[lo, hi) whose key is >= key (hi if none)
template <typename I>
__device__ __forceinline__ long long lower_bound(const I* __restrict__ idx, long long lo,
                                                 long long hi, long long key) {
    while (lo < hi) {
        long long mid = lo + ((hi - lo) >> 1);
        if ((long long)idx[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}
"""

#: C helpers of every product kernel (``hp_mul`` / ``hp_add`` / ``hp_term`` are filled in)
COMMON = r"""
${PREAMBLE}
typedef ${X} x_t;   // the multiply's input type
typedef ${Z} z_t;   // the add monoid's type (the output's)
typedef ${AV} av_t; // A's stored value type
typedef ${BV} bv_t; // B's stored value type

__device__ __forceinline__ z_t hp_mul(x_t hp_xa, x_t hp_xb, long long hp_i, long long hp_k) {
    (void)hp_xa; (void)hp_xb; (void)hp_i; (void)hp_k;
    return (z_t)(${MUL});
}
__device__ __forceinline__ z_t hp_add(z_t a, z_t b) { return (z_t)(${ADD}); }
__device__ __forceinline__ bool hp_term(z_t a) { (void)a; return ${TERM}; }
// an operand's value as x_t (C conversion), or 0 when the multiply does not read it
__device__ __forceinline__ x_t hp_av(const av_t* __restrict__ v, long long p) {
    return ${READ_A} ? (x_t)v[p] : (x_t)0;
}
__device__ __forceinline__ x_t hp_bv(const bv_t* __restrict__ v, long long p) {
    return ${READ_B} ? (x_t)v[p] : (x_t)0;
}
typedef z_t y_t;   // the monoid table's name for the combined type (hp_atomic's body)
// *p = hp_add(*p, v) atomically, global or shared memory: the add monoid's atomic form from
// the one monoid table (a trap where it has none: no kernel calls it then)
__device__ __forceinline__ void hp_atomic(y_t* p, y_t v) {
${ATOMIC}
}
"""


COMMON += LOWER_BOUND


def reads_operand(mul, which: str) -> bool:
    """Whether the multiply's C expression mentions operand ``which`` (``"a"`` / ``"b"``)."""
    expr = mul.c_expr("hp_xa", "hp_xb", "hp_i", "hp_k")
    return re.search(r"\bhp_x" + which + r"\b", expr) is not None


def semiring_slots(sr, a_dtype, b_dtype) -> dict:
    """Template slots of :data:`COMMON` for the typed semiring ``sr`` and the stored value
    dtypes of ``A`` and ``B``."""
    add = sr.add
    term = add.c_is_terminal("a")
    atomic = add.c_atomic_body()
    return {
        "ATOMIC": ("    (void)p; (void)v; __trap();" if atomic is None else
                   "\n".join("    " + ln for ln in atomic.splitlines())),
        "PREAMBLE": sr.c_preamble,
        "X": _dt.c_type(sr.in_dtype),
        "Z": _dt.c_type(sr.out_dtype),
        "AV": _dt.c_type(np.dtype(a_dtype)),
        "BV": _dt.c_type(np.dtype(b_dtype)),
        "MUL": sr.mul.c_expr("hp_xa", "hp_xb", "hp_i", "hp_k"),
        "ADD": add.c_add("a", "b"),
        "TERM": "false" if term is None else term,
        "READ_A": "true" if reads_operand(sr.mul, "a") else "false",
        "READ_B": "true" if reads_operand(sr.mul, "b") else "false",
    }


def kernel(src: str, name: str):
    """The compiled kernel ``name`` of ``src`` (cached per source; the one compile path,
    :func:`hpgraph.graphblas._kern._kernel`)."""
    from . import _kern

    return _kern._kernel(src, name)
