"""Device form of ``select`` with a built-in selector (index or value comparison) and a plain
output: two generated kernels walk ``A``'s entries in fixed chunks and write the result's CSR.

The general path builds a bool per entry from the cached int64 coordinates (CuPy
expressions), lists the kept entries (a scan over every entry), searches the list for the
row pointers and gathers the kept columns and values.  A form that walked rows instead
(count per row, write per row, long rows a block each) measured no faster on R-MAT 21's skew
(1.58 against 1.54 ms on an H100), so these kernels split the entries, not the rows.  Both
walk the entries in chunks of ``TPB * IPT`` (:data:`._gpu_common.CHUNK_WALK`:
a block per chunk, each entry's row found in the chunk's row pointers held in shared
memory):

* ``hp_gb_self_count`` counts the entries of each chunk that the predicate keeps, ``IPT``
  consecutive entries per thread (0.23 ms on R-MAT 21 on an H100, strided 0.31; the rows
  only when the predicate reads them).  One prefix sum over the chunks gives each chunk's
  first output slot; the host reads the total (the result's size, which sets its index
  dtype).
* ``hp_gb_self_write`` takes the same entries, places the kept ones by a prefix sum over the
  block's threads (warp shuffles, the warps' totals in shared memory), so the result keeps
  ``A``'s order, stages them in shared memory and stores them from there side by side (as a
  thread's consecutive entries, stored directly, they measured 0.85 ms on R-MAT 21 on an
  H100; strided entries placed by warp ballots 0.67), and writes the pointers of the rows
  that start in its chunk; ``hp_gb_self_tail`` writes those after the last entry's row
  with the whole grid.  A chunk
  holds ``TPB * IPT`` entries, ``IPT`` lowered where the staged columns and values would not
  fit the static shared memory (:func:`._gpu_common.chunk_ipt`).

The selectors that keep one run of each row's sorted columns (``tril``, ``triu``, ``diag``,
the row and column comparisons: :data:`RANGE_BOUNDS`) take :func:`range_rows` instead: a
thread per row finds the run by a binary search or two, a prefix sum over the rows gives
the result's row pointers, and a copy walks the result's entries in chunks, so only the
kept entries are read (R-MAT 21 on an H100: ``tril`` 0.51-0.52 ms against 0.92-0.93 by the
two kernels above, ``diag`` 0.24 against 0.79).

The predicate is C: ``j <= i + t`` and the like for the index selectors, the registry's
comparison (``c_expr``) against the thunk for the value selectors.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import cuda_source
from .. import dtypes as _dt
from ..formats import CSR
from ..formats._base import counts_to_indptr
from ._gpu_common import (CHUNK_WALK, LOWER_BOUND, chunk_grid, chunk_ipt, chunk_rows, kernel,
                          widest_index)
from ._kern import _launch
from ._objects import Matrix

__all__ = ["INDEX_PRED", "RANGE_BOUNDS", "select_source", "select_rows", "range_source",
           "range_rows", "IPT", "TPB"]

_I64 = np.dtype(np.int64)

#: threads per block and entries per thread (at most 32) of a chunk
TPB = 256
IPT = 8

#: C predicates of the built-in index selectors over (i: row, j: column, t: thunk), the
#: same tests as :data:`._ewise.SELECT`
INDEX_PRED = {"tril": "j <= i + t", "triu": "j >= i + t", "diag": "j == i + t",
              "offdiag": "j != i + t", "rowle": "i <= t", "rowgt": "i > t",
              "colle": "j <= t", "colgt": "j > t"}

_SEL = r"""$PREAMBLE
#define HP_TPB $TPB
#define HP_IPT $IPT
#define HP_NEEDS_ROW $NEEDS_ROW
typedef $P ptr_t;
typedef $I idx_t;
typedef $T val_t;
typedef $TT thunk_t;
typedef $TIN in_t;
typedef $O o_idx_t;
$CHUNK_WALK

// F: a flag per entry (null unless the predicate reads F[k])
__device__ __forceinline__ bool hp_keep(val_t x, long long i, long long j, thunk_t t,
                                        const unsigned char* __restrict__ F, long long k)
{
    const in_t xv = (in_t)x;
    const in_t yv = (in_t)t;
    (void)xv; (void)yv; (void)i; (void)j; (void)F; (void)k;
    return (bool)($PRED);
}

extern "C" __global__ void hp_gb_chunk_rows(const ptr_t* __restrict__ P, long long n,
                                            long long nnz, long long* __restrict__ rows)
{
    hp_chunk_rows(P, n, nnz, rows);
}

// cnt[c]: the entries of chunk c that the predicate keeps
extern "C" __global__ void hp_gb_self_count(const ptr_t* __restrict__ P,
        const idx_t* __restrict__ J, const val_t* __restrict__ V, thunk_t t,
        const unsigned char* __restrict__ F, const long long* __restrict__ rows, long long nnz,
        long long* __restrict__ cnt)
{
    __shared__ long long s_p[HP_NEEDS_ROW ? HP_PS : 1];
    __shared__ int s_w[HP_TPB / 32];
    for (long long c = blockIdx.x; c * HP_CH < nnz; c += gridDim.x) {
        const long long b0 = c * HP_CH, b1 = min(b0 + (long long)HP_CH, nnz);
        const long long k0 = b0 + (long long)threadIdx.x * HP_IPT;
        hp_walk_t w;
        if (HP_NEEDS_ROW) w = hp_walk_open(P, rows, c, s_p);
        int kept = 0;
        for (int u = 0; u < HP_IPT && k0 + u < b1; ++u) {
            const long long k = k0 + u;
            const long long row = HP_NEEDS_ROW ? hp_walk_row(P, s_p, w, k) : 0;
            kept += hp_keep(V[k], row, (long long)J[k], t, F, k);
        }
        const long long sum = hp_block_sum(kept, s_w);
        if (threadIdx.x == 0) cnt[c] = sum;
    }
}

// the kept entries of every chunk to their places (coff[c]: the kept entries before chunk
// c), staged in shared memory so the stores land side by side, and the row pointers of the
// rows that start inside the chunk
extern "C" __global__ void hp_gb_self_write(const ptr_t* __restrict__ P,
        const idx_t* __restrict__ J, const val_t* __restrict__ V, thunk_t t,
        const unsigned char* __restrict__ F, const long long* __restrict__ rows, long long nnz,
        const long long* __restrict__ coff, o_idx_t* __restrict__ optr,
        o_idx_t* __restrict__ ocol, val_t* __restrict__ oval, unsigned* __restrict__ runs)
{
    __shared__ long long s_p[HP_PS];
    __shared__ o_idx_t s_col[HP_CH];
    __shared__ val_t s_val[HP_CH];
    __shared__ unsigned s_keep[HP_TPB];
    __shared__ int s_before[HP_TPB];
    __shared__ int s_w[HP_TPB / 32];
    for (long long c = blockIdx.x; c * HP_CH < nnz; c += gridDim.x) {
        const long long b0 = c * HP_CH, b1 = min(b0 + (long long)HP_CH, nnz);
        const long long k0 = b0 + (long long)threadIdx.x * HP_IPT;
        hp_walk_t w = hp_walk_open(P, rows, c, s_p);
        unsigned keep = 0;                              // bit u: entry k0 + u is kept
        for (int u = 0; u < HP_IPT && k0 + u < b1; ++u)
            if (hp_keep(V[k0 + u], hp_walk_row(P, s_p, w, k0 + u), (long long)J[k0 + u], t, F,
                        k0 + u))
                keep |= 1u << u;
        const int before = hp_block_before(__popc(keep), s_w);
        s_keep[threadIdx.x] = keep;
        s_before[threadIdx.x] = before;
        for (int u = 0; u < HP_IPT; ++u)
            if (keep >> u & 1u) {
                const int q = before + __popc(keep & ((1u << u) - 1u));
                s_col[q] = (o_idx_t)J[k0 + u];
                s_val[q] = V[k0 + u];
            }
        hp_stage_store(P, s_p, w, c, b0, b1, s_keep, s_before, s_col, s_val, coff, optr, ocol,
                       oval, runs);
    }
}

// the rows after the last entry's row, optr[n], and the runs of empty rows left by the write
extern "C" __global__ void hp_gb_self_tail(const ptr_t* __restrict__ P,
        const long long* __restrict__ rows, long long nch, const long long* __restrict__ coff,
        long long n, o_idx_t* __restrict__ optr, const unsigned* __restrict__ runs)
{
    hp_tail_fill(P, rows, nch, coff, n, optr, runs);
}
"""

#: The selectors that keep one run of each row's sorted columns, as C: ``lo`` / ``hi`` (the
#: run's first and past-the-end positions) of row ``i`` holding positions ``[b, e)`` of
#: ``J``, for a thunk ``t`` clamped so ``i + t + 1`` cannot overflow
RANGE_BOUNDS = {
    "tril": "lo = b; hi = lower_bound(J, b, e, i + t + 1);",
    "triu": "lo = lower_bound(J, b, e, i + t); hi = e;",
    "diag": "lo = lower_bound(J, b, e, i + t); hi = lo < e && (long long)J[lo] == i + t ? lo + 1 : lo;",
    "colle": "lo = b; hi = lower_bound(J, b, e, t + 1);",
    "colgt": "lo = lower_bound(J, b, e, t + 1); hi = e;",
    "rowle": "lo = b; hi = i <= t ? e : b;",
    "rowgt": "lo = b; hi = i > t ? e : b;",
}

_RANGE = r"""
#define HP_TPB $TPB
#define HP_IPT $IPT
typedef $P ptr_t;
typedef $I idx_t;
typedef $T val_t;
typedef $O o_idx_t;
$LOWER_BOUND
$CHUNK_WALK

// the run each row keeps: its first position lo[i] and its length cnt[i]
extern "C" __global__ void hp_gb_range_rows(const ptr_t* __restrict__ P,
        const idx_t* __restrict__ J, long long n, long long t, long long* __restrict__ lo_out,
        long long* __restrict__ cnt)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const long long b = (long long)P[i], e = (long long)P[i + 1];
        long long lo, hi;
        $BOUNDS
        lo_out[i] = lo;
        cnt[i] = hi - lo;
    }
}

extern "C" __global__ void hp_gb_chunk_rows_o(const long long* __restrict__ optr, long long n,
                                              long long m, long long* __restrict__ rows)
{
    hp_chunk_rows(optr, n, m, rows);
}

// every entry of the result: entry q of row r (optr[r] <= q < optr[r + 1]) is entry
// lo[r] + q - optr[r] of A; chunks of the result's entries, a thread's entries HP_TPB apart
// so a warp's loads and stores land side by side
extern "C" __global__ void hp_gb_range_copy(const long long* __restrict__ optr,
        const long long* __restrict__ lo, const long long* __restrict__ rows,
        const idx_t* __restrict__ J, const val_t* __restrict__ V, long long m,
        o_idx_t* __restrict__ ocol, val_t* __restrict__ oval)
{
    __shared__ long long s_p[HP_PS];
    for (long long c = blockIdx.x; c * HP_CH < m; c += gridDim.x) {
        const long long b0 = c * HP_CH, b1 = min(b0 + (long long)HP_CH, m);
        hp_walk_t w = hp_walk_open(optr, rows, c, s_p);
        for (int u = 0; u < HP_IPT; ++u) {
            const long long q = b0 + (long long)u * HP_TPB + threadIdx.x;
            if (q >= b1) break;
            const long long r = hp_walk_row(optr, s_p, w, q);
            const long long k = lo[r] + q - hp_walk_ptr(optr, s_p, w, r - w.q0);
            ocol[q] = (o_idx_t)J[k];
            oval[q] = V[k];
        }
    }
}
"""


def _wide(dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.dtype(np.float64)
    return np.dtype(np.uint64 if dt == np.uint64 else np.int64)


def _ipt(A) -> int:
    """Entries per thread: the write kernel stages a chunk's kept columns (at most
    :func:`._gpu_common.widest_index`) and values in shared memory."""
    return chunk_ipt(TPB, IPT, widest_index(A).itemsize, np.dtype(A.dtype).itemsize)


def select_source(A, pred: str, in_dtype, thunk_dtype, preamble: str, out_idx,
                  needs_row: bool = True) -> str:
    """Source of the two select kernels for ``A``'s CSR (``pred``: a C predicate over ``xv``
    and ``yv`` (the value and the thunk as ``in_dtype``), ``i``, ``j`` and ``t``; the thunk
    passed as ``thunk_dtype``, widened to 64 bits; ``needs_row``: ``pred`` reads ``i``)."""
    csr = A.csr
    types = tuple(np.dtype(t) for t in (csr.indptr.dtype, csr.indices.dtype, A.dtype,
                                        _wide(thunk_dtype), in_dtype, out_idx))
    return _render(pred, preamble, types, bool(needs_row), TPB, _ipt(A))


@functools.lru_cache(maxsize=256)
def _render(pred: str, preamble: str, types: tuple, needs_row: bool, tpb: int, ipt: int) -> str:
    # cached: a render costs ~0.03-0.1 ms of host time, twice per call, while the device idles
    c = _dt.c_type
    p, i, t, tt, tin, o = (c(x) for x in types)
    return cuda_source.render(_SEL, PREAMBLE=preamble, CHUNK_WALK=CHUNK_WALK, TPB=tpb, IPT=ipt,
                              NEEDS_ROW=int(needs_row), P=p, I=i, T=t, TT=tt, TIN=tin, O=o,
                              PRED=pred)


def select_rows(A, pred: str, thunk, thunk_dtype, in_dtype=None, preamble: str = "",
                needs_row: bool = True, flags=None):
    """The Matrix of the entries of device Matrix ``A`` that the C predicate ``pred`` keeps
    (see :func:`select_source`; ``thunk`` a number of ``thunk_dtype``), with their values
    (explicit ones for a pattern matrix, as the general form stores).  ``flags``: a uint8
    per stored entry, ``F[k]`` in ``pred`` (entry ``k``'s position)."""
    xp, csr = A.xp, A.csr
    n, nnz = int(A.nrows), int(csr.nnz)
    in_dtype = A.dtype if in_dtype is None else in_dtype
    vals = A._values()
    t = _wide(thunk_dtype).type(thunk)       # a 64-bit number: exact for every type
    ch = TPB * _ipt(A)
    nch = -(-nnz // ch)
    grid = chunk_grid(nch)
    cnt = xp.empty(nch, dtype=_I64)
    F = np.uint64(0) if flags is None else flags
    if nnz:
        src = select_source(A, pred, in_dtype, thunk_dtype, preamble, widest_index(A),
                            needs_row)
        rows = chunk_rows(xp, src, csr.indptr, n, nnz, ch)
        kernel(src, "hp_gb_self_count")(grid, (TPB,), (csr.indptr, csr.indices, vals, t, F,
                                                        rows, np.int64(nnz), cnt))
    coff = counts_to_indptr(xp, cnt, _I64)
    m = int(coff[-1])
    idt = _dt.index_dtype(A.nrows, A.ncols, m)       # as the general form
    optr = xp.empty(n + 1, dtype=idt)
    cols = xp.empty(m, dtype=idt)
    out = xp.empty(m, dtype=A.dtype)
    if nnz:
        src = select_source(A, pred, in_dtype, thunk_dtype, preamble, idt, True)
        runs = xp.zeros(1, dtype=np.uint32)       # set by a chunk that left empty-row runs
        kernel(src, "hp_gb_self_write")(grid, (TPB,), (csr.indptr, csr.indices, vals, t, F,
                                                        rows, np.int64(nnz), coff, optr, cols,
                                                        out, runs))
        _launch(kernel(src, "hp_gb_self_tail"), n + 1, (csr.indptr, rows, np.int64(nch), coff,
                                                        np.int64(n), optr, runs))
    else:
        optr.fill(0)
    return Matrix._new(CSR._new(optr, cols, out, tuple(A.shape)), A.dtype)


@functools.lru_cache(maxsize=256)
def _render_range(op: str, types: tuple, tpb: int, ipt: int) -> str:
    c = _dt.c_type
    p, i, t, o = (c(x) for x in types)
    return cuda_source.render(_RANGE, TPB=tpb, IPT=ipt, P=p, I=i, T=t, O=o,
                              LOWER_BOUND=LOWER_BOUND, CHUNK_WALK=CHUNK_WALK,
                              BOUNDS=RANGE_BOUNDS[op])


def range_source(A, op: str, out_idx) -> str:
    """Source of the range kernels of selector ``op`` (a key of :data:`RANGE_BOUNDS`) for
    ``A``'s CSR and a result with indices of ``out_idx``."""
    csr = A.csr
    types = tuple(np.dtype(x) for x in (csr.indptr.dtype, csr.indices.dtype, A.dtype, out_idx))
    return _render_range(op, types, TPB, IPT)


def range_rows(A, op: str, thunk: int):
    """``select(A, op, thunk)`` for a selector of :data:`RANGE_BOUNDS` on device Matrix
    ``A``: the kept entries of a row are one run of its sorted columns, so one thread per row
    finds the run (a binary search or two), a prefix sum over the rows gives the result's row
    pointers, and a copy walks the result's entries in chunks, each reading its source entry
    at ``lo[row] + q - optr[row]``: only the kept entries are read."""
    xp, csr = A.xp, A.csr
    n, nnz = int(A.nrows), int(csr.nnz)
    lim = int(A.nrows) + int(A.ncols) + 2       # every |i + t| past it keeps all rows or none
    t = np.int64(max(-lim, min(lim, int(thunk))))
    lo = xp.empty(n, dtype=_I64)
    cnt = (xp.empty if nnz else xp.zeros)(n, dtype=_I64)      # the kernel writes every row
    src = range_source(A, op, widest_index(A))
    if nnz:
        _launch(kernel(src, "hp_gb_range_rows"), n, (csr.indptr, csr.indices, np.int64(n), t,
                                                     lo, cnt))
    optr = counts_to_indptr(xp, cnt, _I64)
    m = int(optr[-1])
    idt = _dt.index_dtype(A.nrows, A.ncols, m)       # as the general form
    if idt != widest_index(A):
        src = range_source(A, op, idt)
    cols = xp.empty(m, dtype=idt)
    out = xp.empty(m, dtype=A.dtype)
    if m:
        ch = TPB * IPT
        rows = chunk_rows(xp, src, optr, n, m, ch, "hp_gb_chunk_rows_o")
        kernel(src, "hp_gb_range_copy")(chunk_grid(-(-m // ch)), (TPB,), (
            optr, lo, rows, csr.indices, A._values(), np.int64(m), cols, out))
    return Matrix._new(CSR._new(optr.astype(idt, copy=False), cols, out, tuple(A.shape)),
                       A.dtype)
