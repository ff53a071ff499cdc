"""Specialised CUDA kernels of the algorithms, for what the SpMV engine cannot express well.

* **Triangle counting** (:func:`tc_source`, :func:`tc_count`): for every edge ``(u, v)`` of the
  degree-oriented graph, ``|N+(u) & N+(v)|`` by sorted-list intersection (a merge when the two
  lists have similar lengths, a binary search of the shorter list in the longer one when they
  differ a lot), one thread per edge, 64-bit counts.  The engine's SpMV reduces *values* per
  row; an intersection of two neighbour lists per edge is a different access pattern (one
  edge reads two whole rows), which a semiring product can only emulate as a masked SpGEMM.
  One NVIDIA H100, R-MAT 21 (``benchmarks/bench_triangles.py``, 2026-11-24): 46.1 ms against
  73.6 ms for the engine's degree-ordered masked ``mxm`` (1.6x).  The hash kernels of
  :mod:`._tc_hash` count graphs with many wedges per edge (R-MAT 21: 8.3 ms); this one counts
  the sparse, low-degree ones, where it is 1.1-9.8x faster than them (one H200, 2026-11-28:
  road networks, grids, meshes, Slashdot; ``hp.config["triangle_kernel"]`` ``"auto"``).
* **PageRank's fused vector update** (:func:`pagerank_update_source`): after the SpMV of an
  iteration, one pass over the vertices computes the new ranks, the next SpMV's input
  ``x * S`` and the two scalars of the next step (the L1 change and the dangling mass), with
  a block reduction and one double atomic per block.  It is an elementwise step, which the
  engine's APPLY covers only for vertex programs; PageRank's networkx variant needs the
  dangling sum, a global reduction, between its SpMVs.  One NVIDIA H100, R-MAT 21 float32
  (``benchmarks/bench_pagerank.py``, 2026-11-24): an iteration (the engine's SpMV plus this
  update) 0.420 ms; the same variant as a vertex program on the engine was not measured, so
  this kernel's gain over the engine is not established.

Every source is plain CUDA C with ``extern "C"`` entry points, NVRTC-compiled through
:func:`hpgraph.backend.raw_module` on the GPU and through :func:`hpgraph.backend.compile_ptx`
in CI (no GPU needed).  Importing this module imports neither cupy nor a compiler.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import backend as _backend
from .._config import config
from .. import dtypes as _dt
from ..cuda_source import render

__all__ = ["tc_source", "tc_count", "heavy_edges", "pagerank_update_source", "pagerank_update",
           "TC_BLOCK", "TC_SEARCH_RATIO"]

#: Tuned with ``benchmarks/bench_triangles.py`` on an H200 (R-MAT 21 and 22, undirected; see
#: ``benchmarks/README.md``): 128 threads per block beat 256 by 1-3 % at the best settings.
TC_BLOCK = 128
#: Binary search (shorter list into the longer) instead of a merge when
#: ``len(longer) > TC_SEARCH_RATIO * len(shorter)``: a merge costs ``ls + ll`` steps, the
#: searches ``ls * log2(ll)``.  Measured: 8 -> 16 saves 3 % on R-MAT 21/22, 32 is within 1 %.
TC_SEARCH_RATIO = 16
# Which edges the warp kernel takes is hp.config["triangle_merge_heavy"] (2048: degree
# ordering keeps out-lists short, so sending mid-size lists to the warp kernel costs more than
# the imbalance it removes); TC_BLOCK and TC_SEARCH_RATIO are compiled into the source.

_TC_TEMPLATE = r"""
typedef ${IDX} idx_t;
typedef ${PTR} ptr_t;

// |list(a0..a1) & list(b0..b1)| of two sorted, duplicate-free lists of `indices`.
// With `pv` (per-vertex counts), every common element w gets one count.
__device__ __forceinline__ unsigned long long intersect(
        const idx_t* __restrict__ indices, ptr_t a0, ptr_t a1, ptr_t b0, ptr_t b1,
        unsigned long long* __restrict__ pv)
{
    ptr_t la = a1 - a0, lb = b1 - b0;
    if (la <= 0 || lb <= 0) return 0ull;
    // s = the shorter list, l = the longer one
    ptr_t s0 = a0, s1 = a1, l0 = b0, l1 = b1;
    if (la > lb) { s0 = b0; s1 = b1; l0 = a0; l1 = a1; ptr_t t = la; la = lb; lb = t; }
    // disjoint ranges: nothing to do
    if (__ldg(indices + s1 - 1) < __ldg(indices + l0) || __ldg(indices + l1 - 1) < __ldg(indices + s0))
        return 0ull;
    unsigned long long c = 0ull;
    if (lb > ${RATIO} * la) {
        // binary search of each element of the short list in the long one; the lower bound
        // only moves forward because both lists are sorted
        ptr_t lo = l0;
        for (ptr_t i = s0; i < s1; ++i) {
            idx_t key = __ldg(indices + i);
            ptr_t hi = l1;
            while (lo < hi) {
                ptr_t mid = lo + ((hi - lo) >> 1);
                if (__ldg(indices + mid) < key) lo = mid + 1; else hi = mid;
            }
            if (lo >= l1) break;
            if (__ldg(indices + lo) == key) {
                ++c;
                if (pv) atomicAdd(pv + key, 1ull);
                ++lo;
            }
        }
    } else {
        ptr_t i = s0, j = l0;
        idx_t x = __ldg(indices + i), y = __ldg(indices + j);
        while (true) {
            if (x == y) {
                ++c;
                if (pv) atomicAdd(pv + x, 1ull);
                if (++i >= s1 || ++j >= l1) break;
                x = __ldg(indices + i); y = __ldg(indices + j);
            } else if (x < y) {
                if (++i >= s1) break;
                x = __ldg(indices + i);
            } else {
                if (++j >= l1) break;
                y = __ldg(indices + j);
            }
        }
    }
    return c;
}

// One thread per *light* edge e = (erow[e], indices[e]) of the oriented graph (CSR
// indptr/indices, rows sorted): edges with |N+(u)| + |N+(v)| > heavy are skipped here (the
// warp kernel below takes them).  total[0] += triangles closed by the edge; with pv, pv[u],
// pv[v] and pv[w] get one count per triangle {u, v, w} found at this edge.
extern "C" __global__ void ${NAME}(
        const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const idx_t* __restrict__ erow, long long nedges, long long heavy,
        unsigned long long* __restrict__ total, unsigned long long* __restrict__ pv)
{
    __shared__ unsigned long long warp_sums[${BLOCK} / 32];
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long c = 0ull;
    if (e < nedges) {
        idx_t u = __ldg(erow + e);
        idx_t v = __ldg(indices + e);
        ptr_t a0 = __ldg(indptr + u), a1 = __ldg(indptr + u + 1);
        ptr_t b0 = __ldg(indptr + v), b1 = __ldg(indptr + v + 1);
        if ((long long)(a1 - a0) + (long long)(b1 - b0) <= heavy) {
            c = intersect(indices, a0, a1, b0, b1, pv);
            if (pv && c) {
                atomicAdd(pv + u, c);
                atomicAdd(pv + v, c);
            }
        }
    }
    // block reduction, one atomic per block
    for (int off = 16; off > 0; off >>= 1)
        c += __shfl_down_sync(0xffffffffu, c, off);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = c;
    __syncthreads();
    if (warp == 0) {
        c = (lane < (int)(blockDim.x >> 5)) ? warp_sums[lane] : 0ull;
        for (int off = 16; off > 0; off >>= 1)
            c += __shfl_down_sync(0xffffffffu, c, off);
        if (lane == 0 && c) atomicAdd(total, c);
    }
}

// One warp per *heavy* edge (ids in heavy_edges): the 32 lanes binary-search the elements
// of the shorter list in the longer one, 32 at a time.  The loop over edges is warp-uniform,
// so the shuffles inside it see all 32 lanes.
extern "C" __global__ void ${NAME}_warp(
        const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const idx_t* __restrict__ erow, const long long* __restrict__ heavy_edges,
        long long nheavy, unsigned long long* __restrict__ total,
        unsigned long long* __restrict__ pv)
{
    const int lane = threadIdx.x & 31;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    unsigned long long c = 0ull;
    for (long long h = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; h < nheavy;
         h += nwarps) {
        long long e = __ldg(heavy_edges + h);
        idx_t u = __ldg(erow + e);
        idx_t v = __ldg(indices + e);
        ptr_t s0 = __ldg(indptr + u), s1 = __ldg(indptr + u + 1);
        ptr_t l0 = __ldg(indptr + v), l1 = __ldg(indptr + v + 1);
        if (s1 - s0 > l1 - l0) { ptr_t t = s0; s0 = l0; l0 = t; t = s1; s1 = l1; l1 = t; }
        unsigned long long ce = 0ull;
        if (s1 > s0 && l1 > l0) {
            for (ptr_t i = s0 + lane; i < s1; i += 32) {
                idx_t key = __ldg(indices + i);
                ptr_t lo = l0, hi = l1;
                while (lo < hi) {
                    ptr_t mid = lo + ((hi - lo) >> 1);
                    if (__ldg(indices + mid) < key) lo = mid + 1; else hi = mid;
                }
                if (lo < l1 && __ldg(indices + lo) == key) {
                    ++ce;
                    if (pv) atomicAdd(pv + key, 1ull);
                }
            }
        }
        c += ce;
        if (pv) {
            for (int off = 16; off > 0; off >>= 1)
                ce += __shfl_down_sync(0xffffffffu, ce, off);
            if (lane == 0 && ce) {
                atomicAdd(pv + u, ce);
                atomicAdd(pv + v, ce);
            }
        }
    }
    for (int off = 16; off > 0; off >>= 1)
        c += __shfl_down_sync(0xffffffffu, c, off);
    if (lane == 0 && c) atomicAdd(total, c);
}
"""




def _tc_name(idx_dtype, ptr_dtype) -> str:
    return f"hpg_tc_{np.dtype(idx_dtype).name}_{np.dtype(ptr_dtype).name}"


def tc_source(idx_dtype=np.int32, ptr_dtype=np.int64):
    """``(source, kernel name)`` of the triangle-counting kernel for these index dtypes."""
    idx_dtype, ptr_dtype = np.dtype(idx_dtype), np.dtype(ptr_dtype)
    name = _tc_name(idx_dtype, ptr_dtype)
    src = render(_TC_TEMPLATE, IDX=_dt.c_type(idx_dtype), PTR=_dt.c_type(ptr_dtype), NAME=name,
                              BLOCK=TC_BLOCK, RATIO=TC_SEARCH_RATIO)
    return src, name


def heavy_edges(indptr, indices, erow, threshold: int):
    """Ids (int64) of the edges with ``|N+(u)| + |N+(v)| > threshold`` (NumPy or CuPy)."""
    from .. import backend as be

    xp = be.get_array_module(indices)
    if indices.shape[0] == 0:
        return xp.zeros(0, dtype=np.int64)
    rl = xp.diff(indptr)
    work = rl[erow] + rl[indices]
    return xp.flatnonzero(work > threshold).astype(np.int64)


def tc_count(indptr, indices, erow, n: int, per_vertex: bool, heavy=None,
             threshold: int | None = None):
    """Run the triangle kernels on the device.

    Parameters
    ----------
    indptr, indices : cupy arrays
        CSR of the oriented graph (each undirected edge once, rows sorted, no duplicates).
    erow : cupy array
        Row of each stored entry (same dtype as ``indices``).
    n : int
        Number of vertices.
    per_vertex : bool
        Also return per-vertex counts.
    heavy : cupy int64 array, optional
        :func:`heavy_edges` for ``threshold`` (computed when not given).
    threshold : int, optional
        Edges whose two lists hold more than this many entries together go to the
        warp-per-edge kernel; the others to the thread-per-edge kernel.  Default:
        ``hp.config["triangle_merge_heavy"]``.

    Returns
    -------
    (int, cupy.ndarray of int64 or None)
        The total (a Python int) and the per-vertex counts.
    """
    if threshold is None:
        threshold = config["triangle_merge_heavy"]
    cp = _backend.cupy()
    src, name = tc_source(indices.dtype, indptr.dtype)
    mod = _backend.raw_module(src, ("-std=c++17",))
    nedges = int(indices.shape[0])
    total = cp.zeros(1, dtype=cp.uint64)
    pv = cp.zeros(max(n, 1), dtype=cp.uint64) if per_vertex else None
    pv_arg = pv if pv is not None else np.uint64(0)
    if nedges:
        if heavy is None:
            heavy = heavy_edges(indptr, indices, erow, threshold)
        grid = (nedges + TC_BLOCK - 1) // TC_BLOCK
        mod.get_function(name)((grid,), (TC_BLOCK,), (indptr, indices, erow, np.int64(nedges),
                                                     np.int64(threshold), total, pv_arg))
        nheavy = int(heavy.shape[0])
        if nheavy:
            wgrid = max(1, min((nheavy * 32 + TC_BLOCK - 1) // TC_BLOCK, _backend.num_sms() * 32))
            mod.get_function(name + "_warp")((wgrid,), (TC_BLOCK,),
                                             (indptr, indices, erow, heavy, np.int64(nheavy),
                                              total, pv_arg))
    t = int(total.get()[0])
    if pv is not None:
        pv = pv[:n].astype(cp.int64)
    return t, pv


# ---------------------------------------------------------------------------------------------
# PageRank (networkx variant): fused update after each SpMV

PR_BLOCK = 256

_PR_TEMPLATE = r"""
typedef ${T} val_t;

// x_new = alpha * (y + dsum * dw) + (1 - alpha) * p      (networkx's power step)
// w_next = x_new * S;  acc_next[0] += |x_new - x|;  acc_next[1] += x_new over dangling (S == 0)
// p == nullptr: uniform p_uniform; dw == nullptr: dw = p.  dsum = acc_prev[1].
extern "C" __global__ void ${NAME}(
        const val_t* __restrict__ y, const val_t* __restrict__ x, const val_t* __restrict__ S,
        const val_t* __restrict__ p, const val_t* __restrict__ dw,
        const double* __restrict__ acc_prev, double* __restrict__ acc_next,
        val_t* __restrict__ x_new, val_t* __restrict__ w_next,
        double alpha, double p_uniform, long long n)
{
    __shared__ double sh_err[${BLOCK} / 32];
    __shared__ double sh_dan[${BLOCK} / 32];
    const double dsum = acc_prev[1];
    double err = 0.0, dan = 0.0;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n;
         v += (long long)gridDim.x * blockDim.x) {
        double pv = p ? (double)p[v] : p_uniform;
        double dv = dw ? (double)dw[v] : pv;
        val_t xn = (val_t)(alpha * ((double)y[v] + dsum * dv) + (1.0 - alpha) * pv);
        x_new[v] = xn;
        err += fabs((double)xn - (double)x[v]);
        val_t s = S[v];
        w_next[v] = xn * s;
        if (s == (val_t)0) dan += (double)xn;
    }
    for (int off = 16; off > 0; off >>= 1) {
        err += __shfl_down_sync(0xffffffffu, err, off);
        dan += __shfl_down_sync(0xffffffffu, dan, off);
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sh_err[warp] = err; sh_dan[warp] = dan; }
    __syncthreads();
    if (warp == 0) {
        int nw = (int)(blockDim.x >> 5);
        err = lane < nw ? sh_err[lane] : 0.0;
        dan = lane < nw ? sh_dan[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) {
            err += __shfl_down_sync(0xffffffffu, err, off);
            dan += __shfl_down_sync(0xffffffffu, dan, off);
        }
        if (lane == 0) {
            atomicAdd(acc_next, err);
            atomicAdd(acc_next + 1, dan);
        }
    }
}
"""


def pagerank_update_source(dtype=np.float64):
    """``(source, kernel name)`` of PageRank's fused update for ``float32`` or ``float64``."""
    dtype = np.dtype(dtype)
    name = f"hpg_pagerank_update_{dtype.name}"
    return render(_PR_TEMPLATE, T=_dt.c_type(dtype), NAME=name, BLOCK=PR_BLOCK), name


def _pr_grid(n: int) -> int:
    """Blocks for the grid-stride update: enough to fill the device, few atomics."""
    return max(1, min((n + PR_BLOCK - 1) // PR_BLOCK, _backend.num_sms() * 8))


@functools.lru_cache(maxsize=None)
def _pagerank_update_kernel(dtype_str):
    """The compiled update for one dtype (looked up once, not per iteration: generating and
    hashing the source costs ~10 us, about a tenth of a grid iteration)."""
    src, name = pagerank_update_source(dtype_str)
    return _backend.raw_module(src, ("-std=c++17",)).get_function(name)


def pagerank_update(y, x, S, p, dw, acc_prev, acc_next, x_new, w_next, alpha, p_uniform):
    """Launch the fused update on the device (arrays are cupy; ``p``/``dw`` may be None)."""
    kern = _pagerank_update_kernel(np.dtype(x.dtype).str)
    n = int(x.shape[0])
    null = np.uint64(0)
    kern((_pr_grid(n),), (PR_BLOCK,),
         (y, x, S, null if p is None else p, null if dw is None else dw, acc_prev, acc_next,
          x_new, w_next, np.float64(alpha), np.float64(p_uniform), np.int64(n)))
