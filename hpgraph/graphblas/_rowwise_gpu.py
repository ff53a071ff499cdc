"""Device forms of ``ewise_add`` and ``ewise_mult`` of two CSR matrices with a plain output
(:func:`._rowwise.plain`): two generated kernels and one prefix sum each.

Every entry finds its column in the other operand's row by a binary search (rows are sorted)
and learns from it where it lands in the result, so no sort or gather of the operands runs
(the CuPy forms of :mod:`._rowwise` moved eight int64 arrays of the operands' length).  The
kernels read each entry's row from the operands' cached coordinates (``Matrix._coords``,
built once per Matrix and shared with the key-based forms: 24 bytes per entry while the
Matrix lives).

* union (``ewise_add``): a flag pass marks the entries only ``B`` has; with ``only`` its
  exclusive prefix sum, an entry ``k`` of ``A`` lands at ``k + only[lower bound in B]`` and
  a ``B``-only entry ``j`` at ``lower bound in A + only[j]`` (the entries of ``A`` and the
  ``B``-only entries before it in row-major order); the result's row pointers are
  ``A.indptr + only[B.indptr]``.
* intersection (``ewise_mult``): a flag pass marks the entries of ``A`` that ``B`` also has;
  their prefix sum places them, and read at ``A.indptr`` gives the row pointers.

The intersection's flag pass keeps the position it found for its write pass (on an H200,
searching again in the write pass made ``ewise_mult`` of R-MAT 21 no faster than the CuPy
form: 2.8-3.0 ms); the union's write pass searches for the entries of ``A`` once, and again
for the ``B``-only ones.  Positions and prefix counts are int32 while the operands hold
fewer than :data:`POS32_LIMIT` (2^31 - 1) entries.  The operator is the registry's CUDA C
expression (``c_expr``), the same text every other device kernel of the operations uses, so
user-defined operators run here too.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import cuda_source
from .. import dtypes as _dt
from ..formats import CSR
from ..formats._base import counts_to_indptr
from ._gpu_common import LOWER_BOUND, kernel
from ._kern import _launch
from ._objects import Matrix

__all__ = ["add_rows", "mult_rows", "union_source", "inter_source"]

_I32 = np.dtype(np.int32)
_I64 = np.dtype(np.int64)

_COMMON = r"""
$PREAMBLE
typedef $TAI a_idx_t;
typedef $TAP a_ptr_t;
typedef $TBI b_idx_t;
typedef $TBP b_ptr_t;
typedef $TA a_val_t;
typedef $TB b_val_t;
typedef $TIN in_t;
typedef $TOUT out_t;
typedef $TO o_idx_t;
typedef $TPOS pos_t;   // positions and counts: int32 below 2^31 entries
$LOWER_BOUND
// lower_bound in row `row` of (ptr, ind); *end: the row's end
template <class P, class I>
__device__ __forceinline__ long long hp_lower(const P* __restrict__ ptr, const I* __restrict__ ind,
                                              long long row, long long want, long long* end)
{
    *end = (long long)ptr[row + 1];
    return lower_bound(ind, (long long)ptr[row], *end, want);
}

__device__ __forceinline__ out_t hp_op(a_val_t a, b_val_t b, long long iv, long long jv)
{
    const in_t xv = (in_t)a;
    const in_t yv = (in_t)b;
    (void)xv; (void)yv; (void)iv; (void)jv;
    return (out_t)($EXPR);
}
"""

_UNION = _COMMON + r"""
// flag[j] = 1 when entry j of B has no entry of A beside it
extern "C" __global__ void hp_gb_union_flag(const long long* __restrict__ brow,
        const b_idx_t* __restrict__ bcol, const a_ptr_t* __restrict__ aptr,
        const a_idx_t* __restrict__ acol, unsigned char* __restrict__ flag, long long nb)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < nb; j += stride) {
        long long end;
        const long long c = (long long)bcol[j];
        const long long lo = hp_lower(aptr, acol, brow[j], c, &end);
        flag[j] = !(lo < end && (long long)acol[lo] == c);
    }
}

// every entry of A (k < na) and every B-only entry (k - na) to its place in the result;
// only[j]: the B-only entries before entry j of B
extern "C" __global__ void hp_gb_union_write(const long long* __restrict__ arow,
        const a_ptr_t* __restrict__ aptr, const a_idx_t* __restrict__ acol,
        const a_val_t* __restrict__ aval, long long na,
        const long long* __restrict__ brow, const b_ptr_t* __restrict__ bptr,
        const b_idx_t* __restrict__ bcol, const b_val_t* __restrict__ bval, long long nb,
        const unsigned char* __restrict__ flag, const pos_t* __restrict__ only,
        o_idx_t* __restrict__ ocol, out_t* __restrict__ oval)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < na + nb; k += stride) {
        long long end;
        if (k < na) {
            const long long r = arow[k], c = (long long)acol[k];
            const long long lo = hp_lower(bptr, bcol, r, c, &end);
            const long long p = k + (long long)only[lo];
            ocol[p] = (o_idx_t)c;
            oval[p] = (lo < end && (long long)bcol[lo] == c) ? hp_op(aval[k], bval[lo], r, c)
                                                              : (out_t)aval[k];
        } else {
            const long long j = k - na;
            if (!flag[j]) continue;
            const long long c = (long long)bcol[j];
            const long long p = hp_lower(aptr, acol, brow[j], c, &end) + (long long)only[j];
            ocol[p] = (o_idx_t)c;
            oval[p] = (out_t)bval[j];
        }
    }
}
"""

_INTER = _COMMON + r"""
// flag[k] = 1 when entry k of A has an entry of B beside it, at bpos[k] (set only then)
extern "C" __global__ void hp_gb_inter_flag(const long long* __restrict__ arow,
        const a_idx_t* __restrict__ acol, const b_ptr_t* __restrict__ bptr,
        const b_idx_t* __restrict__ bcol, unsigned char* __restrict__ flag,
        pos_t* __restrict__ bpos, long long na)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < na; k += stride) {
        long long end;
        const long long c = (long long)acol[k];
        const long long lo = hp_lower(bptr, bcol, arow[k], c, &end);
        const bool hit = lo < end && (long long)bcol[lo] == c;
        flag[k] = hit;
        if (hit) bpos[k] = (pos_t)lo;
    }
}

// the flagged entries of A to their places (pos: the flagged entries before each); the row
// is read only by index operators (the compiler drops the load for the others)
extern "C" __global__ void hp_gb_inter_write(const long long* __restrict__ arow,
        const a_idx_t* __restrict__ acol, const a_val_t* __restrict__ aval, long long na,
        const b_val_t* __restrict__ bval, const unsigned char* __restrict__ flag,
        const pos_t* __restrict__ bpos, const pos_t* __restrict__ pos,
        o_idx_t* __restrict__ ocol, out_t* __restrict__ oval)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < na; k += stride) {
        if (!flag[k]) continue;
        const long long c = (long long)acol[k];
        const long long p = (long long)pos[k];
        ocol[p] = (o_idx_t)c;
        oval[p] = hp_op(aval[k], bval[bpos[k]], arow[k], c);
    }
}
"""


#: operands with fewer entries than this keep their positions and prefix counts as int32
POS32_LIMIT = 2**31 - 1


def _pos_dtype(A, B) -> np.dtype:
    """Type of the positions and prefix counts over the operands' entries: int32 below
    :data:`POS32_LIMIT` entries (half the bytes of the arrays the passes write and read)."""
    return _I32 if max(int(A.csr.nnz), int(B.csr.nnz)) < POS32_LIMIT else _I64


def _types(A, B, out_idx) -> tuple:
    """The dtypes a source depends on: A's and B's index, pointer and value types, the
    result's index type and the positions' type."""
    a, b = A.csr, B.csr
    return tuple(np.dtype(t) for t in (a.indices.dtype, a.indptr.dtype, b.indices.dtype,
                                       b.indptr.dtype, A.dtype, B.dtype, out_idx,
                                       _pos_dtype(A, B)))


@functools.lru_cache(maxsize=256)
def _render(template: str, op, types: tuple) -> str:
    # cached: a render costs ~0.03-0.1 ms of host time per call, while the device idles;
    # typed operators hash and compare by their key, which covers what the source reads
    c = _dt.c_type
    tai, tap, tbi, tbp, ta, tb, to, tpos = (c(t) for t in types)
    return cuda_source.render(template, {
        "PREAMBLE": op.c_preamble, "LOWER_BOUND": LOWER_BOUND,
        "EXPR": op.c_expr("xv", "yv", "iv", "jv"), "TAI": tai, "TAP": tap, "TBI": tbi,
        "TBP": tbp, "TA": ta, "TB": tb, "TIN": c(op.in_dtype), "TOUT": c(op.out_dtype),
        "TO": to, "TPOS": tpos})


def union_source(op, A, B, out_idx) -> str:
    """Source of ``hp_gb_union_flag`` and ``hp_gb_union_write`` for these operands."""
    return _render(_UNION, op, _types(A, B, out_idx))


def inter_source(op, A, B, out_idx) -> str:
    """Source of ``hp_gb_inter_flag`` and ``hp_gb_inter_write`` for these operands."""
    return _render(_INTER, op, _types(A, B, out_idx))


def add_rows(A, B, op):
    """``ewise_add(A, B, op)`` (``op`` typed): ``op(a, b)`` where both have an entry, the one
    value cast where one has."""
    xp = A.xp
    a, b = A.csr, B.csr
    na, nb = int(a.nnz), int(b.nnz)
    arow, brow = A._coords()[1], B._coords()[1]
    # the write kernel's column type is the result's index dtype, known once the flag pass
    # has counted; at most na + nb entries: the same source unless the count narrows it
    guess = _dt.index_dtype(A.nrows, A.ncols, na + nb)
    src = union_source(op, A, B, guess)
    flag = xp.empty(nb, dtype=np.uint8)
    if nb:
        _launch(kernel(src, "hp_gb_union_flag"), nb,
                (brow, b.indices, a.indptr, a.indices, flag, np.int64(nb)))
    pdt = _pos_dtype(A, B)
    only = counts_to_indptr(xp, flag, pdt)
    m = na + int(only[-1])
    idt = _dt.index_dtype(A.nrows, A.ncols, m)          # as the host and general forms
    if idt != guess:
        src = union_source(op, A, B, idt)
    cols = xp.empty(m, dtype=idt)
    vals = xp.empty(m, dtype=op.out_dtype)
    if m:
        _launch(kernel(src, "hp_gb_union_write"), na + nb,
                (arow, a.indptr, a.indices, A._values(), np.int64(na),
                 brow, b.indptr, b.indices, B._values(), np.int64(nb), flag, only, cols, vals))
    indptr = (a.indptr.astype(_I64) + only[b.indptr].astype(_I64)).astype(idt)
    return Matrix._new(CSR._new(indptr, cols, vals, tuple(A.shape)), op.out_dtype)


def mult_rows(A, B, op):
    """``ewise_mult(A, B, op)`` (``op`` typed): ``op(a, b)`` where both have an entry."""
    xp = A.xp
    a, b = A.csr, B.csr
    na = int(a.nnz)
    arow = A._coords()[1]
    guess = _dt.index_dtype(A.nrows, A.ncols, na)       # at most na entries (as add_rows)
    src = inter_source(op, A, B, guess)
    flag = xp.empty(na, dtype=np.uint8)                 # the flag pass writes every entry
    pdt = _pos_dtype(A, B)
    bpos = xp.empty(na, dtype=pdt)
    if na:
        _launch(kernel(src, "hp_gb_inter_flag"), na,
                (arow, a.indices, b.indptr, b.indices, flag, bpos, np.int64(na)))
    pos = counts_to_indptr(xp, flag, pdt)
    m = int(pos[-1])
    idt = _dt.index_dtype(A.nrows, A.ncols, m)
    if idt != guess:
        src = inter_source(op, A, B, idt)
    cols = xp.empty(m, dtype=idt)
    vals = xp.empty(m, dtype=op.out_dtype)
    if m:
        _launch(kernel(src, "hp_gb_inter_write"), na,
                (arow, a.indices, A._values(), np.int64(na), B._values(), flag, bpos, pos,
                 cols, vals))
    indptr = pos[a.indptr].astype(idt)
    return Matrix._new(CSR._new(indptr, cols, vals, tuple(A.shape)), op.out_dtype)
