"""Device form of ``select`` with a built-in selector (index or value comparison) and a plain
output: two generated kernels walk ``A``'s entries in fixed chunks and write the result's CSR.

The general path builds a bool per entry from the cached int64 coordinates (CuPy
expressions), lists the kept entries (a scan over every entry), searches the list for the
row pointers and gathers the kept columns and values.  A form that walked rows instead
(count per row, write per row, long rows a block each) measured no faster on R-MAT 21's skew
(1.58 against 1.54 ms on an H100), so these kernels split the entries, not the rows:

* ``hp_gb_self_count``: a block takes a chunk of ``CH`` consecutive entries (``IPT`` per
  thread, strided so a warp reads consecutive entries), finds the rows of its first and last
  entry by binary searches in the row pointers, each entry's row by a search between those
  (only when the predicate reads the row), and counts the entries the predicate keeps.  One
  prefix sum of the chunk counts gives each chunk's first output slot; the host reads the
  total (the result's size, which sets its index dtype).
* ``hp_gb_self_write``: the same walk in slices of one entry per thread; the kept entries of
  a slice are placed by warp ballots and the warps' counts summed in shared memory, so the
  result keeps ``A``'s order.  The thread holding the first entry of a row writes that row's
  pointer (the kept entries before it), and those of the empty rows just before it.

The predicate is C: ``j <= i + t`` and the like for the index selectors, the registry's
comparison (``c_expr``) against the thunk for the value selectors.
"""

from __future__ import annotations

import numpy as np

from .. import cuda_source
from .. import dtypes as _dt
from ..formats import CSR
from ..formats._base import counts_to_indptr
from ._gpu_common import kernel
from ._objects import Matrix

__all__ = ["INDEX_PRED", "select_source", "select_rows", "IPT", "TPB"]

_I64 = np.dtype(np.int64)

#: threads per block and entries per thread of a chunk
TPB = 256
IPT = 8

#: C predicates of the built-in index selectors over (i: row, j: column, t: thunk), the
#: same tests as :data:`._ewise.SELECT`
INDEX_PRED = {"tril": "j <= i + t", "triu": "j >= i + t", "diag": "j == i + t",
              "offdiag": "j != i + t", "rowle": "i <= t", "rowgt": "i > t",
              "colle": "j <= t", "colgt": "j > t"}

_SEL = r"""$PREAMBLE
#define TPB $TPB
#define IPT $IPT
#define CH (TPB * IPT)
#define HP_NEEDS_ROW $NEEDS_ROW
typedef $P ptr_t;
typedef $I idx_t;
typedef $T val_t;
typedef $TT thunk_t;
typedef $TIN in_t;
typedef $O o_idx_t;

__device__ __forceinline__ bool hp_keep(val_t x, long long i, long long j, thunk_t t)
{
    const in_t xv = (in_t)x;
    const in_t yv = (in_t)t;
    (void)xv; (void)yv; (void)i; (void)j;
    return (bool)($PRED);
}

// the last row r in [lo, hi] with P[r] <= k (the row holding entry k)
__device__ __forceinline__ long long hp_row_of(const ptr_t* __restrict__ P, long long lo,
                                               long long hi, long long k)
{
    while (lo < hi) {
        const long long mid = (lo + hi + 1) >> 1;
        if ((long long)P[mid] <= k) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// the rows of the chunk's first and last entry (shared), found by two threads
__device__ __forceinline__ void hp_chunk_rows(const ptr_t* __restrict__ P, long long n,
                                              long long b0, long long b1, long long* s_r)
{
    if (threadIdx.x < 2) s_r[threadIdx.x] = hp_row_of(P, 0, n - 1, threadIdx.x ? b1 - 1 : b0);
    __syncthreads();
}

// cnt[c]: the entries of chunk c that the predicate keeps
extern "C" __global__ void hp_gb_self_count(const ptr_t* __restrict__ P,
        const idx_t* __restrict__ J, const val_t* __restrict__ V, thunk_t t, long long n,
        long long nnz, long long* __restrict__ cnt)
{
    __shared__ long long s_r[2];
    __shared__ int s_w[TPB / 32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    for (long long c = blockIdx.x; c * CH < nnz; c += gridDim.x) {
        const long long b0 = c * CH, b1 = min(b0 + (long long)CH, nnz);
        long long row = 0, r1 = 0;
        if (HP_NEEDS_ROW) {
            hp_chunk_rows(P, n, b0, b1, s_r);
            row = s_r[0];
            r1 = s_r[1];
        }
        int kept = 0;
        for (int u = 0; u < IPT; ++u) {
            const long long k = b0 + (long long)u * TPB + threadIdx.x;
            if (k >= b1) break;
            if (HP_NEEDS_ROW) row = hp_row_of(P, row, r1, k);      // rows only grow with u
            kept += hp_keep(V[k], row, (long long)J[k], t);
        }
        for (int off = 16; off > 0; off >>= 1) kept += __shfl_down_sync(0xffffffffu, kept, off);
        if (lane == 0) s_w[w] = kept;
        __syncthreads();
        if (threadIdx.x == 0) {
            long long sum = 0;
            for (int i = 0; i < TPB / 32; ++i) sum += s_w[i];
            cnt[c] = sum;
        }
        __syncthreads();
    }
}

// the kept entries of every chunk to their places (coff[c]: the kept entries before chunk
// c); the row pointers of the rows that start inside the chunk
extern "C" __global__ void hp_gb_self_write(const ptr_t* __restrict__ P,
        const idx_t* __restrict__ J, const val_t* __restrict__ V, thunk_t t, long long n,
        long long nnz, const long long* __restrict__ coff, o_idx_t* __restrict__ optr,
        o_idx_t* __restrict__ ocol, val_t* __restrict__ oval)
{
    __shared__ long long s_r[2];
    __shared__ int s_w[TPB / 32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1u;
    for (long long c = blockIdx.x; c * CH < nnz; c += gridDim.x) {
        const long long b0 = c * CH, b1 = min(b0 + (long long)CH, nnz);
        hp_chunk_rows(P, n, b0, b1, s_r);
        long long row = s_r[0];
        const long long r1 = s_r[1];
        long long done = coff[c];                   // kept entries before this slice
        for (int u = 0; u < IPT; ++u) {
            const long long k = b0 + (long long)u * TPB + threadIdx.x;
            const bool valid = k < b1;
            if (valid) row = hp_row_of(P, row, r1, k);
            const bool keep = valid && hp_keep(V[k], row, (long long)J[k], t);
            const unsigned bal = __ballot_sync(0xffffffffu, keep);
            if (lane == 0) s_w[w] = __popc(bal);
            __syncthreads();
            long long before = 0, total = 0;
            for (int i = 0; i < TPB / 32; ++i) {
                before += i < w ? s_w[i] : 0;
                total += s_w[i];
            }
            const long long p = done + before + __popc(bal & below);
            if (keep) {
                ocol[p] = (o_idx_t)J[k];
                oval[p] = V[k];
            }
            if (valid && (long long)P[row] == k) {
                // the first entry of `row`: its pointer, and those of the empty rows before
                // it (the rows from the first r with P[r] == k)
                long long lo = 0, hi = row;
                while (lo < hi) {
                    const long long mid = (lo + hi) >> 1;
                    if ((long long)P[mid] < k) lo = mid + 1; else hi = mid;
                }
                for (long long r = lo; r <= row; ++r) optr[r] = (o_idx_t)p;
            }
            done += total;
            __syncthreads();
        }
    }
}
"""


def _wide(dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.dtype(np.float64)
    return np.dtype(np.uint64 if dt == np.uint64 else np.int64)


def select_source(A, pred: str, in_dtype, thunk_dtype, preamble: str, out_idx,
                  needs_row: bool = True) -> str:
    """Source of the two select kernels for ``A``'s CSR (``pred``: a C predicate over ``xv``
    and ``yv`` (the value and the thunk as ``in_dtype``), ``i``, ``j`` and ``t``; the thunk
    passed as ``thunk_dtype``, widened to 64 bits; ``needs_row``: ``pred`` reads ``i``)."""
    csr, c = A.csr, _dt.c_type
    return cuda_source.render(_SEL, PREAMBLE=preamble, TPB=TPB, IPT=IPT,
                              NEEDS_ROW=int(bool(needs_row)), P=c(csr.indptr.dtype),
                              I=c(csr.indices.dtype), T=c(A.dtype), TT=c(_wide(thunk_dtype)),
                              TIN=c(np.dtype(in_dtype)), O=c(np.dtype(out_idx)), PRED=pred)


def select_rows(A, pred: str, thunk, thunk_dtype, in_dtype=None, preamble: str = "",
                needs_row: bool = True):
    """The Matrix of the entries of device Matrix ``A`` that the C predicate ``pred`` keeps
    (see :func:`select_source`; ``thunk`` a number of ``thunk_dtype``), with their values
    (explicit ones for a pattern matrix, as the general form stores)."""
    xp, csr = A.xp, A.csr
    n, nnz = int(A.nrows), int(csr.nnz)
    in_dtype = A.dtype if in_dtype is None else in_dtype
    vals = A._values()
    t = _wide(thunk_dtype).type(thunk)       # a 64-bit number: exact for every type
    nch = -(-nnz // (TPB * IPT))
    grid = (max(1, min(nch, 65535)),)
    cnt = xp.empty(nch, dtype=_I64)
    if nnz:
        src = select_source(A, pred, in_dtype, thunk_dtype, preamble, _I64, needs_row)
        kernel(src, "hp_gb_self_count")(grid, (TPB,), (csr.indptr, csr.indices, vals, t,
                                                        np.int64(n), np.int64(nnz), cnt))
    coff = counts_to_indptr(xp, cnt, _I64)
    m = int(coff[-1])
    idt = _dt.index_dtype(A.nrows, A.ncols, m)       # as the general form
    optr = xp.empty(n + 1, dtype=idt)
    cols = xp.empty(m, dtype=idt)
    out = xp.empty(m, dtype=A.dtype)
    if nnz:
        src = select_source(A, pred, in_dtype, thunk_dtype, preamble, idt, True)
        kernel(src, "hp_gb_self_write")(grid, (TPB,), (csr.indptr, csr.indices, vals, t,
                                                        np.int64(n), np.int64(nnz), coff, optr,
                                                        cols, out))
        # the rows that start at the end (trailing empty rows, and n)
        tail = int(xp.searchsorted(csr.indptr, xp.asarray([nnz], dtype=csr.indptr.dtype))[0])
        optr[tail:] = m
    else:
        optr.fill(0)
    return Matrix._new(CSR._new(optr, cols, out, tuple(A.shape)), A.dtype)
