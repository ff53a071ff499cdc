"""PageRank's power iteration as one kernel launch per iteration (GPU).

The default GPU step of :func:`hpgraph.pagerank` ("power" and "networkx" variants;
``hp.config["pagerank_kernel"] == "fused"``; ``"spmv"`` runs the semiring SpMV and then the
vector update of :mod:`._kernels`).  One pass over the in-edges computes, for every vertex ``v``::

    y      = sum over in-edges u -> v of w[u] (* A[u, v] when weighted)   (w = x * S)
    x_new  = damping * (y + dsum * dw[v]) + (1 - damping) * p[v]
    w_next = x_new * S[v]          (S = 1 / out-weight: the scaling folded into one factor)
    err   += |x_new - x[v]|,  dangling += x_new where S[v] == 0

with the two sums reduced per block (double) and added with one atomic each; ``dsum`` is the
previous iteration's dangling sum, read from device memory.  Nothing is allocated per
iteration: the caller rotates three preallocated buffers.

Preprocessing (:func:`structure`, cached on the graph): the vertices are renumbered by
decreasing in-degree (rows *and* columns, a symmetric permutation), which

* puts the hub columns' entries of ``w`` together at the front (they share cache lines and stay
  in L1/L2 instead of costing one 32-byte sector per gather), and
* makes the rows of similar length contiguous, so three tiers are index ranges: a block per row
  above :data:`PRF_BLOCK_ROW` entries, a warp per row above :data:`PRF_WARP_ROW`, and
  :data:`PRF_SUB` lanes per row below.

The iteration runs entirely in the new numbering; the caller maps its vectors in once and the
result out once.  Importing this module imports neither cupy nor a compiler.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .. import backend as _backend
from .. import dtypes as _dt
from ..cuda_source import render

__all__ = [
    "PRF_BLOCK",
    "PRF_BLOCK_ROW",
    "PRF_SEG",
    "PRF_SUB",
    "PRF_WARP_ROW",
    "FusedStructure",
    "fused_source",
    "fused_step",
    "scratch",
    "structure",
]

#: Threads per block of every tier.
PRF_BLOCK = 256
#: Rows with more entries than this get whole blocks ...
PRF_BLOCK_ROW = 2048
#: ... one per segment of at most this many entries: R-MAT 21's longest row (~10^5 entries)
#: would keep a single block busy for ~0.1 ms, the whole iteration's budget.  The blocks of a
#: split row add their sums atomically; the last one to finish applies the update.
PRF_SEG = 4096
#: Rows with more entries than this (and at most PRF_BLOCK_ROW) get a warp; shorter ones
#: PRF_SUB lanes.
PRF_WARP_ROW = 32
#: Lanes per short row (a power of two dividing 32).
PRF_SUB = 4

_TEMPLATE = r"""
typedef ${T} val_t;
typedef ${IDX} idx_t;
typedef ${PTR} ptr_t;
#define FULL 0xffffffffu
#define BLOCK ${BLOCK}
#define SUB ${SUB}
#define HAS_VAL ${HAS_VAL}

struct Args {
    const ptr_t* indptr; const idx_t* cols; const val_t* vals;
    const val_t* w; const val_t* x; const val_t* S; const val_t* p; const val_t* dw;
    const double* acc_prev; double* acc_next; val_t* x_new; val_t* w_next;
    double alpha, p_uniform;
};

__device__ __forceinline__ float take_zero(float* p) { return atomicExch(p, 0.0f); }
__device__ __forceinline__ double take_zero(double* p)
{
    return __longlong_as_double((long long)atomicExch((unsigned long long*)p, 0ull));
}

__device__ __forceinline__ val_t edge(const Args& a, ptr_t j)
{
    idx_t u = __ldcs(a.cols + j);           // streamed once per iteration: keep L2 for w
#if HAS_VAL
    return __ldcs(a.vals + j) * __ldg(a.w + u);
#else
    return __ldg(a.w + u);
#endif
}

// The vector update of vertex v once its sum y is known; adds to the thread's err / dangling.
__device__ __forceinline__ void finish(const Args& a, long long v, val_t y, double dsum,
                                       double& err, double& dan)
{
    double pv = a.p ? (double)a.p[v] : a.p_uniform;
    double dv = a.dw ? (double)a.dw[v] : pv;
    val_t xn = (val_t)(a.alpha * ((double)y + dsum * dv) + (1.0 - a.alpha) * pv);
    a.x_new[v] = xn;
    err += fabs((double)xn - (double)a.x[v]);
    val_t s = a.S[v];
    a.w_next[v] = xn * s;
    if (s == (val_t)0) dan += (double)xn;
}

// Rows [0, r1): a block per segment (segptr[0..nseg], the segments of row seg_row[j]; a row
// of one segment is finished by its block, a split row by the last of its blocks, through
// ypart / cnt, which that block leaves zero again); [r1, r2): a warp per row; [r2, n): SUB
// lanes per row.  Blocks [0, g1) take tier 1, [g1, g1 + g2) tier 2, the rest tier 3, each
// tier grid-strided.
extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}(
        const ptr_t* __restrict__ indptr, const idx_t* __restrict__ cols,
        const val_t* __restrict__ vals, const val_t* __restrict__ w,
        const val_t* __restrict__ x, const val_t* __restrict__ S, const val_t* __restrict__ p,
        const val_t* __restrict__ dw, const double* __restrict__ acc_prev,
        double* __restrict__ acc_next, val_t* __restrict__ x_new, val_t* __restrict__ w_next,
        double alpha, double p_uniform, long long r1, long long r2, long long n,
        int g1, int g2, const ptr_t* __restrict__ segptr, const idx_t* __restrict__ seg_row,
        const int* __restrict__ row_nseg, long long nseg, val_t* __restrict__ ypart,
        unsigned int* __restrict__ cnt)
{
    __shared__ val_t sh_sum[BLOCK / 32];
    __shared__ double sh_err[BLOCK / 32];
    __shared__ double sh_dan[BLOCK / 32];
    Args a{indptr, cols, vals, w, x, S, p, dw, acc_prev, acc_next, x_new, w_next, alpha,
           p_uniform};
    const double dsum = acc_prev[1];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    double err = 0.0, dan = 0.0;
    const int b = blockIdx.x;
    if (b < g1) {
        for (long long sg = b; sg < nseg; sg += g1) {
            const ptr_t a0 = __ldg(segptr + sg), a1 = __ldg(segptr + sg + 1);
            val_t s = (val_t)0;
            ptr_t j = a0 + threadIdx.x;
            for (; j + 3 * BLOCK < a1; j += 4 * BLOCK)
                s += (edge(a, j) + edge(a, j + BLOCK)) + (edge(a, j + 2 * BLOCK) + edge(a, j + 3 * BLOCK));
            for (; j < a1; j += BLOCK) s += edge(a, j);
            for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(FULL, s, off);
            if (lane == 0) sh_sum[wid] = s;
            __syncthreads();
            if (threadIdx.x == 0) {
                val_t t = (val_t)0;
                for (int i = 0; i < BLOCK / 32; ++i) t += sh_sum[i];
                const long long v = __ldg(seg_row + sg);
                const int parts = __ldg(row_nseg + v);
                if (parts == 1) {
                    finish(a, v, t, dsum, err, dan);
                } else {
                    atomicAdd(ypart + v, t);
                    __threadfence();
                    if (atomicAdd(cnt + v, 1u) == (unsigned)(parts - 1)) {
                        __threadfence();
                        const val_t total = take_zero(ypart + v);
                        cnt[v] = 0u;
                        finish(a, v, total, dsum, err, dan);
                    }
                }
            }
            __syncthreads();
        }
    } else if (b < g1 + g2) {
        const long long nw = (long long)g2 * (BLOCK / 32);
        for (long long v = r1 + (long long)(b - g1) * (BLOCK / 32) + wid; v < r2; v += nw) {
            const ptr_t a0 = __ldg(indptr + v), a1 = __ldg(indptr + v + 1);
            val_t s = (val_t)0;
            ptr_t j = a0 + lane;
            for (; j + 96 < a1; j += 128)
                s += (edge(a, j) + edge(a, j + 32)) + (edge(a, j + 64) + edge(a, j + 96));
            for (; j < a1; j += 32) s += edge(a, j);
            for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(FULL, s, off);
            if (lane == 0) finish(a, v, s, dsum, err, dan);
        }
    } else {
        const int sub = threadIdx.x % SUB;
        const long long g3 = (long long)gridDim.x - g1 - g2;
        const long long per = BLOCK / SUB;
        // every lane runs the same number of rounds (the shuffles need all 32)
        for (long long base = r2 + (long long)(b - g1 - g2) * per; base < n; base += g3 * per) {
            const long long v = base + threadIdx.x / SUB;
            val_t s = (val_t)0;
            if (v < n) {
                const ptr_t a0 = __ldg(indptr + v), a1 = __ldg(indptr + v + 1);
                for (ptr_t j = a0 + sub; j < a1; j += SUB) s += edge(a, j);
            }
            for (int off = SUB / 2; off > 0; off >>= 1) s += __shfl_down_sync(FULL, s, off, SUB);
            if (v < n && sub == 0) finish(a, v, s, dsum, err, dan);
        }
    }
    // block reduction of err and dangling, one atomic each
    for (int off = 16; off > 0; off >>= 1) {
        err += __shfl_down_sync(FULL, err, off);
        dan += __shfl_down_sync(FULL, dan, off);
    }
    if (lane == 0) { sh_err[wid] = err; sh_dan[wid] = dan; }
    __syncthreads();
    if (wid == 0) {
        err = lane < BLOCK / 32 ? sh_err[lane] : 0.0;
        dan = lane < BLOCK / 32 ? sh_dan[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) {
            err += __shfl_down_sync(FULL, err, off);
            dan += __shfl_down_sync(FULL, dan, off);
        }
        if (lane == 0) {
            if (err != 0.0) atomicAdd(acc_next, err);
            if (dan != 0.0) atomicAdd(acc_next + 1, dan);
        }
    }
}
"""


def fused_source(dtype=np.float32, idx_dtype=np.int32, ptr_dtype=np.int32, weighted=False):
    """``(source, kernel name)`` of the fused iteration for these dtypes."""
    dtype, idx_dtype, ptr_dtype = np.dtype(dtype), np.dtype(idx_dtype), np.dtype(ptr_dtype)
    name = (f"hpg_pagerank_fused_{dtype.name}_{idx_dtype.name}_{ptr_dtype.name}"
            f"{'_w' if weighted else ''}")
    src = render(_TEMPLATE, T=_dt.c_type(dtype), IDX=_dt.c_type(idx_dtype),
                 PTR=_dt.c_type(ptr_dtype), NAME=name, BLOCK=PRF_BLOCK, SUB=PRF_SUB,
                 HAS_VAL=int(bool(weighted)))
    return src, name


class FusedStructure(NamedTuple):
    """The renumbered in-edge CSR of the fused iteration (device arrays).

    Attributes
    ----------
    perm, rank : int64 arrays
        ``perm[new] = old`` (vertices by decreasing in-degree, ties by id) and its inverse.
    indptr, cols, vals
        Row ``new`` holds the in-edges of ``perm[new]``, sources renumbered (``vals`` None
        unless weighted).
    r1, r2 : int
        Rows ``[0, r1)`` have more than :data:`PRF_BLOCK_ROW` entries, ``[r1, r2)`` more than
        :data:`PRF_WARP_ROW`.
    segptr, seg_row, row_nseg
        Rows ``[0, r1)`` cut into segments of at most :data:`PRF_SEG` entries: segment ``j`` is
        ``cols[segptr[j]:segptr[j + 1]]`` of row ``seg_row[j]``, which has ``row_nseg[row]``
        segments (int32).
    """

    perm: object
    rank: object
    indptr: object
    cols: object
    vals: object
    r1: int
    r2: int
    segptr: object
    seg_row: object
    row_nseg: object


def structure(AT, dtype) -> FusedStructure:
    """Renumber ``AT`` (CSR of in-edges; NumPy or CuPy arrays) for the fused kernel."""
    xp = _backend.get_array_module(AT.indices)
    n = int(AT.shape[0])
    nnz = int(AT.indices.shape[0])
    indptr = AT.indptr.astype(np.int64, copy=False)
    deg = xp.diff(indptr)
    perm = xp.argsort(-deg, kind="stable").astype(np.int64, copy=False)
    rank = xp.empty(n, dtype=np.int64)
    rank[perm] = xp.arange(n, dtype=np.int64)
    ptr_dt = np.dtype(np.int32) if nnz < 2**31 - 1 else np.dtype(np.int64)
    idx_dt = np.dtype(np.int32) if n < 2**31 - 1 else np.dtype(np.int64)
    ndeg = deg[perm]
    new_ptr = xp.zeros(n + 1, dtype=np.int64)
    if n:
        new_ptr[1:] = xp.cumsum(ndeg)
    # entry k of new row i comes from old position indptr[perm[i]] + (k - new_ptr[i])
    k = xp.arange(nnz, dtype=np.int64)
    row = xp.searchsorted(new_ptr[1:], k, side="right")
    src = indptr[perm[row]] + (k - new_ptr[row])
    cols = rank[AT.indices[src].astype(np.int64, copy=False)].astype(idx_dt)
    vals = None if AT.values is None else AT.values[src].astype(dtype)
    r1 = int((ndeg > PRF_BLOCK_ROW).sum())
    r2 = int((ndeg > PRF_WARP_ROW).sum())
    # segments of the block rows: row i has ceil(deg / PRF_SEG) of them
    nseg_row = (ndeg[:r1] + PRF_SEG - 1) // PRF_SEG
    incl = xp.cumsum(nseg_row)
    nseg = int(incl[-1]) if r1 else 0
    j = xp.arange(nseg, dtype=np.int64)
    seg_row = xp.searchsorted(incl, j, side="right")
    segptr = xp.empty(nseg + 1, dtype=np.int64)
    segptr[:nseg] = new_ptr[seg_row] + (j - (incl[seg_row] - nseg_row[seg_row])) * PRF_SEG
    segptr[nseg] = new_ptr[r1]
    return FusedStructure(perm, rank, new_ptr.astype(ptr_dt), cols, vals, r1, r2,
                          segptr.astype(ptr_dt), seg_row.astype(idx_dt),
                          nseg_row.astype(np.int32))


def _grid(st: FusedStructure, n: int):
    sms = _backend.num_sms()
    g1 = min(int(st.seg_row.shape[0]), sms * 4)
    g2 = min((st.r2 - st.r1 + PRF_BLOCK // 32 - 1) // (PRF_BLOCK // 32), sms * 8)
    g3 = min((n - st.r2 + PRF_BLOCK // PRF_SUB - 1) // (PRF_BLOCK // PRF_SUB), sms * 8)
    return int(g1), int(g2), int(max(g3, 0))


@functools.cache
def _kernel(dtype_str, idx_str, ptr_str, weighted, consts):
    """The compiled kernel (``consts``, the tuning constants, is part of the cache key)."""
    src, name = fused_source(dtype_str, idx_str, ptr_str, weighted)
    return _backend.raw_module(src, ("-std=c++17",)).get_function(name)


def scratch(st: FusedStructure, dtype):
    """The split rows' partial sums and arrival counters (zero; the kernel leaves them zero):
    one pair per call of the iteration, passed to every :func:`fused_step`."""
    cp = _backend.cupy()
    return cp.zeros(max(st.r1, 1), dtype=dtype), cp.zeros(max(st.r1, 1), dtype=cp.uint32)


def fused_step(st: FusedStructure, w, x, S, p, dw, acc_prev, acc_next, x_new, w_next, alpha,
               p_uniform, work):
    """One iteration in the renumbered space (cupy arrays; ``p``/``dw`` may be None; ``work``:
    :func:`scratch`)."""
    n = int(x.shape[0])
    kern = _kernel(np.dtype(x.dtype).str, np.dtype(st.cols.dtype).str,
                   np.dtype(st.indptr.dtype).str, st.vals is not None,
                   (PRF_BLOCK, PRF_SUB))
    g1, g2, g3 = _grid(st, n)
    null = np.uint64(0)
    kern((max(1, g1 + g2 + g3),), (PRF_BLOCK,),
         (st.indptr, st.cols, null if st.vals is None else st.vals, w, x, S,
          null if p is None else p, null if dw is None else dw, acc_prev, acc_next, x_new,
          w_next, np.float64(alpha), np.float64(p_uniform), np.int64(st.r1), np.int64(st.r2),
          np.int64(n), np.int32(g1), np.int32(g2), st.segptr, st.seg_row, st.row_nseg,
          np.int64(st.seg_row.shape[0]), work[0], work[1]))
