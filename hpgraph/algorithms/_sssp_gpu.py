"""Near-far SSSP on the GPU as one cooperative kernel launch, predecessors included.

**Kept beside the engine because it is faster by more than the 20% the project allows**
(``benchmarks/bench_vertex_programs.py``, one NVIDIA H100, CUDA-event medians, ``hp.sssp``
with predecessors against the README's SSSP program with ``priority = "dist"`` and ``witness =
"pred"`` on the engine -- near-far buckets and predecessors, ``examples.sssp.SSSPNearFar``):
R-MAT 21 2.07 ms against 3.28 ms (1.58x, one process, 2026-11-28, the engine's host loop;
3.50 on its device loop); on one H200 (2026-11-28, session 29) 1.98 ms against 2.94 (1.49x;
3.39 on the device loop).  On sparse graphs (mean out-degree at most
``hp.config["sssp_gpu_kernel_degree"]``) ``hp.sssp`` runs an engine program instead
(:func:`._sssp._near_far_class`; the 2048 x 2048 grid 39.2 ms with predecessors, where this
kernel pays about 15 us per step).

**Why a specialised kernel.**  On R-MAT 21 the work is about 2.3 relaxations per stored edge
in about ten large steps; the engine's fused pushes are latency-bound and it spends a few
hundred microseconds of host setup and per-superstep launches, while this kernel does every
step in one launch.  One launch (``cuLaunchCooperativeKernel``)
runs every step, with grid barriers between the phases and every decision taken on the device.

**Algorithm.**  Near-far (Davidson et al., IPDPS 2014) with the far pile kept implicitly in a
per-vertex *pending* flag (one byte):

* *compact* (every thread over 8 flags at a time): a pending vertex whose distance is below
  the threshold ``thr`` is cleared and queued: a light one in the vertex queue (one
  ``atomicAdd`` per warp reserves the warp's slots), one of out-degree above ``HEAVY`` as
  chunks (``CHUNK_PER_THREAD`` edges per thread of a block) in the chunk list.  The others
  stay pending, and their smallest distance and their count go to the step's counters.
* barrier; every thread reads the same counters.  Empty queue: done if nothing is pending,
  else ``thr`` moves to ``smallest pending distance + delta`` and the flags are compacted again.
* *relax*: the queue's vertices push ``dist[u] + w`` to their out-neighbours with
  ``atomicMin`` on the distance's bits (non-negative IEEE floats order like their bits as
  integers); an improved target gets its pending flag (a plain byte store: no queue append,
  no contention) and remembers ``(u, edge)`` as its predecessor candidate (one 64-bit store).
  Light vertices go up to 32 to a warp with their edges dealt evenly over the lanes; the
  chunks of heavy ones a block each (so a hub's edges spread over the whole grid).  Barrier.
* *predecessors* (optional, after the last step): every reached vertex checks its candidate,
  ``dist[u] < dist[v] == dist[u] + w(u, v)``; where a racing, earlier improvement overwrote
  the last one, it scans its in-edges for the first such ``u`` (thread per vertex, warps for
  rows longer than ``LONG``).  A reached non-source vertex without one (zero-weight ties) is
  counted; the caller then runs the tight-edge BFS of :mod:`._sssp`.

Needs non-negative weights.  Counters live in rotating slots, as in :mod:`._bfs_gpu`.

Measured (H200, ``benchmarks/bench_sssp_gpu.py``, integer weights 1..64, with predecessors):
R-MAT 21 1.78 ms (the engine's Bellman-Ford 5.14, the step kernel 7.41), R-MAT 22 3.84 ms
(10.5, 15.0).  The 2048 x 2048 grid's 4,910 steps cost about 15 us each here (72-99 ms),
while the step kernel's CUDA-graph batches run them in 34 ms; ``sssp``'s auto rule keeps that
one for sparse graphs.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as _backend
from .._config import config
from ..exceptions import InvalidValue
from .. import dtypes as _dt
from ._coop import DEVICE_COMMON, CoopKernel, PlanCache, adjacency, fill, null_ptr, source_args
from ._sssp_nearfar import _w_ctype

__all__ = ["sssp_source", "sssp_gpu", "launch_shape", "HEAVY", "CHUNK_PER_THREAD", "LIGHT_UNROLL",
           "LONG"]

# The launch shape and the timeline are hp.config keys (sssp_gpu_shape, sssp_gpu_profile); the
# constants below are compiled into the kernel's source.

#: Out-degree above which a queued vertex's edges go out as chunks, a block each, of
#: ``CHUNK_PER_THREAD`` edges per thread (their loads overlap).
HEAVY = 256
CHUNK_PER_THREAD = 4
#: Rounds of 32 edges a warp relaxes at once for its light vertices (their loads overlap: the
#: relaxations are bound by the latency of the dependent loads, not by bandwidth).
LIGHT_UNROLL = 4
#: In-edges one thread checks for a predecessor before handing the vertex to a warp.
LONG = 32
#: Steps whose start time, queue size, pending count and kind the kernel records with
#: ``hp.config["sssp_gpu_profile"]`` on.
NPROF = 64

S_MISSING, S_SLOT, SLOT_WORDS, NSLOT = 3, 8, 8, 4
S_WORDS = S_SLOT + NSLOT * SLOT_WORDS

_SOURCE = r"""
typedef ${IDX} idx_t;
typedef ${PTR} ptr_t;
typedef ${DIST} dist_t;
typedef ${BITS} bits_t;
typedef ${WT} w_t;
typedef ${PIDX} pidx_t;
#define BLOCK ${BLOCK}
#define HEAVY ${HEAVY}
#define CHUNK ${CHUNK}
#define LIGHT_UNROLL ${LIGHT_UNROLL}
#define LONG ${LONG}
#define WEIGHTED ${WEIGHTED}
#define PACK ${PACK}
#define NPROF ${NPROF}
${COMMON}

enum { S_MISSING = 3, S_SLOT = 8, SLOT_WORDS = 8, NSLOT = 4 };
enum { C_LIGHT = 0, C_CHUNKS = 1, C_PENDING = 3, C_FMIN = 4, C_LONG = 5 };

__device__ __forceinline__ int to_bits(float d) { return __float_as_int(d); }
__device__ __forceinline__ long long to_bits(double d) { return __double_as_longlong(d); }
__device__ __forceinline__ float from_bits(int b) { return __int_as_float(b); }
__device__ __forceinline__ double from_bits(long long b) { return __longlong_as_double(b); }

__device__ __forceinline__ dist_t weight(const w_t* w, long long e)
{
#if WEIGHTED
    return (dist_t)__ldg(w + e);
#else
    return (dist_t)1;
#endif
}

// Relax U stored entries e[j] (where ok[j]) from vertices uu[j] at distance dd[j]: push
// dd + w to the target with atomicMin on the distance's bits; an improved target becomes
// pending and (PACK, cand given) remembers (u, e) as its predecessor candidate -- one 64-bit
// store, never torn, though a slower, earlier improvement may overwrite the last one (the
// predecessor phase checks every candidate).  Each stage's loads for all U entries are
// issued together: relaxations are bound by the latency of the dependent loads.
template <int U>
__device__ __forceinline__ void relax_many(const idx_t* __restrict__ ixo, const w_t* __restrict__ wo,
                                           dist_t* dist, unsigned char* flag, u64* cand,
                                           const long long* e, const bool* ok, const idx_t* uu,
                                           const dist_t* dd)
{
    idx_t v[U];
    dist_t nd[U];
#pragma unroll
    for (int j = 0; j < U; ++j) {
        v[j] = -1;
        if (ok[j]) { v[j] = __ldg(ixo + e[j]); nd[j] = dd[j] + weight(wo, e[j]); }
    }
#pragma unroll
    for (int j = 0; j < U; ++j)
        if (v[j] >= 0 && !(nd[j] < __ldcg(dist + v[j]))) v[j] = -1;
#pragma unroll
    for (int j = 0; j < U; ++j) {
        if (v[j] < 0) continue;
        const bits_t nb = to_bits(nd[j]);
        if (nb < atomicMin((bits_t*)(dist + v[j]), nb)) {
            flag[v[j]] = 1;
#if PACK
            if (cand) cand[v[j]] = ((u64)(unsigned)uu[j] << 32) | (u64)(unsigned)e[j];
#endif
        }
    }
}

__device__ __forceinline__ u64* slot(u64* st, int k) { return st + S_SLOT + SLOT_WORDS * (k % NSLOT); }

extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}(
        const ptr_t* __restrict__ ipo, const idx_t* __restrict__ ixo, const w_t* __restrict__ wo,
        const ptr_t* __restrict__ ipi, const idx_t* __restrict__ ixi, const w_t* __restrict__ wi,
        dist_t* dist, pidx_t* pred, unsigned char* flag, u64* cand, idx_t* q, idx_t* cu,
        long long* cs, idx_t* lq,
        u64* st, long long n, const idx_t* __restrict__ srcs, long long nsrc, long long src0,
        double delta, u64* prof)
{
    const int lane = threadIdx.x & 31;
    const long long gtid = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * BLOCK;
    const long long nwarps = nthreads >> 5;
    const long long npad = (n + 255) & ~255ll;          // flags are padded to 256 per warp step
    volatile u64* vs = st;
    const dist_t INF = from_bits((bits_t)(sizeof(dist_t) == 8 ? 0x7ff0000000000000ll : 0x7f800000));
    if (prof && gtid == 0) prof[0] = now_ns();

    // ---- setup
    for (long long i = gtid; i < n; i += nthreads) {
        dist[i] = INF;
        if (pred) pred[i] = (pidx_t)-1;
    }
    for (long long i = gtid; i < npad / 8; i += nthreads) ((u64*)flag)[i] = 0ull;
    if (gtid >= 2 && gtid < S_SLOT + NSLOT * SLOT_WORDS)     // not the barrier words
        st[gtid] = (gtid >= S_SLOT && (gtid - S_SLOT) % SLOT_WORDS == C_FMIN) ? ~0ull : 0ull;
    grid_sync(st);
    for (long long i = gtid; i < nsrc; i += nthreads) {
        const idx_t s = srcs ? srcs[i] : (idx_t)src0;
        dist[s] = (dist_t)0;
        flag[s] = 1;
        if (pred) pred[s] = (pidx_t)-2;                // marks a source for the last phase
    }
    grid_sync(st);
    if (prof && gtid == 0) prof[1] = now_ns();

    // ---- steps: compact, (relax)
    double thr = delta;
    int k = 0;                 // compactions so far (the counter slot)
    for (;; ++k) {
        u64* sl = slot(st, k);
        if (gtid == 0) {       // the slot two compactions ahead: nobody reads it now
            u64* z = slot(st, k + 2);
            for (int j = 0; j < SLOT_WORDS; ++j) z[j] = (j == C_FMIN) ? ~0ull : 0ull;
        }
        // compact: a warp takes 256 flags, 8 per lane
        u64 pending = 0ull;
        bits_t fmin = to_bits(INF);
        for (long long base = (gtid >> 5) * 256; base < n; base += nwarps * 256) {
            const long long v0 = base + lane * 8;
            const u64 f8 = __ldcg((const u64*)(flag + v0));
            unsigned take = 0u, heavy = 0u;
            if (f8) {
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    if (!((f8 >> (8 * j)) & 0xffull)) continue;
                    const long long v = v0 + j;
                    const dist_t d = __ldcg(dist + v);
                    if ((double)d < thr) {
                        take |= 1u << j;
                        flag[v] = 0;
                        const long long s = (long long)__ldg(ipo + v);
                        const long long t = (long long)__ldg(ipo + v + 1);
                        if (t - s > (long long)HEAVY) {
                            // a heavy vertex: its edges in chunks of CHUNK, a block each
                            heavy |= 1u << j;
                            const long long nch = (t - s + CHUNK - 1) / CHUNK;
                            const long long b = (long long)atomicAdd(sl + C_CHUNKS, (u64)nch);
                            for (long long x = 0; x < nch; ++x) {
                                cu[b + x] = (idx_t)v;
                                cs[b + x] = s + x * CHUNK;
                            }
                        }
                    } else {
                        ++pending;
                        const bits_t bb = to_bits(d);
                        fmin = bb < fmin ? bb : fmin;
                    }
                }
            }
            const unsigned light = take & ~heavy;
            const long long cnt = __popc(light);
            long long incl = cnt;
            for (int off = 1; off < 32; off <<= 1) {
                const long long y = __shfl_up_sync(FULL, incl, off);
                if (lane >= off) incl += y;
            }
            const long long total = __shfl_sync(FULL, incl, 31);
            u64 wbase = 0ull;
            if (total && lane == 31) wbase = atomicAdd(sl + C_LIGHT, (u64)total);
            wbase = __shfl_sync(FULL, wbase, 31);
            long long pos = (long long)wbase + incl - cnt;
            for (int j = 0; j < 8; ++j)
                if ((light >> j) & 1u) q[pos++] = (idx_t)(v0 + j);
        }
        pending = warp_sum(pending);
        for (int off = 16; off > 0; off >>= 1) {
            const bits_t o = __shfl_xor_sync(FULL, fmin, off);
            fmin = o < fmin ? o : fmin;
        }
        if (lane == 0 && pending) {
            atomicAdd(sl + C_PENDING, pending);
            atomicMin((unsigned long long*)(sl + C_FMIN), (unsigned long long)fmin);
        }
        grid_sync(st);
        const int so = S_SLOT + SLOT_WORDS * (k % NSLOT);
        const u64 nl = vs[so + C_LIGHT], nch = vs[so + C_CHUNKS];
        const u64 np_ = vs[so + C_PENDING];
        if (prof && gtid == 0 && k < NPROF) {
            u64* r = prof + 8 + 4 * k;
            r[0] = now_ns(); r[1] = nl + nch; r[2] = np_; r[3] = (u64)__double_as_longlong(thr);
        }
        if (nl + nch == 0ull) {
            if (np_ == 0ull) break;
            // nothing below the threshold: move it past the nearest pending distance
            const double fm = (double)from_bits((bits_t)vs[so + C_FMIN]);
            double nt = fm + delta;
            if (!(nt > fm)) nt = __longlong_as_double(0x7ff0000000000000ll);
            thr = nt > thr + delta ? nt : thr + delta;
            if (!(thr > fm)) thr = __longlong_as_double(0x7ff0000000000000ll);
            continue;
        }
        // relax: heavy vertices' edge chunks a block each, light vertices up to 32 per warp
        for (long long h = blockIdx.x; h < (long long)nch; h += gridDim.x) {
            const idx_t u = __ldcg(cu + h);
            const long long s = __ldcg(cs + h);
            const long long t = min(s + (long long)CHUNK, (long long)__ldg(ipo + u + 1));
            const dist_t du = __ldcg(dist + u);
            // CHUNK / BLOCK edges per thread
            long long e[CHUNK / BLOCK];
            bool ok[CHUNK / BLOCK];
            idx_t uu[CHUNK / BLOCK];
            dist_t dd[CHUNK / BLOCK];
#pragma unroll
            for (int j = 0; j < CHUNK / BLOCK; ++j) {
                e[j] = s + threadIdx.x + (long long)j * BLOCK;
                ok[j] = e[j] < t;
                uu[j] = u;
                dd[j] = du;
            }
            relax_many<CHUNK / BLOCK>(ixo, wo, dist, flag, cand, e, ok, uu, dd);
        }
        const int per = per_warp((long long)nl, nwarps);
        for (long long base = (gtid >> 5) * per; base < (long long)nl; base += nwarps * per) {
            const long long i = base + lane;
            long long s = 0, d = 0;
            dist_t du = (dist_t)0;
            idx_t u = 0;
            if (lane < per && i < (long long)nl) {
                u = __ldcg(q + i);
                du = __ldcg(dist + u);
                s = (long long)__ldg(ipo + u);
                d = (long long)__ldg(ipo + u + 1) - s;
            }
            // the warp's edges dealt evenly over the lanes (as expand_balanced), LIGHT_UNROLL
            // rounds of 32 at a time, so that relax_many issues their loads together
            long long excl;
            const long long total = balanced_scan(per, d, excl);
            for (long long k0 = 0; k0 < total; k0 += 32 * LIGHT_UNROLL) {
                long long e[LIGHT_UNROLL];
                bool ok[LIGHT_UNROLL];
                idx_t uu[LIGHT_UNROLL];
                dist_t dd[LIGHT_UNROLL];
#pragma unroll
                for (int j = 0; j < LIGHT_UNROLL; ++j) {
                    const long long k = k0 + 32 * j + lane;
                    const int lo = balanced_owner(per, excl, k);
                    e[j] = __shfl_sync(FULL, s, lo) + (k - __shfl_sync(FULL, excl, lo));
                    uu[j] = __shfl_sync(FULL, u, lo);
                    dd[j] = __shfl_sync(FULL, du, lo);
                    ok[j] = k < total;
                }
                relax_many<LIGHT_UNROLL>(ixo, wo, dist, flag, cand, e, ok, uu, dd);
            }
        }
        grid_sync(st);
    }
    if (prof && gtid == 0) { prof[2] = now_ns(); prof[3] = (u64)k; }

    // ---- predecessors: the first tight in-edge from a strictly closer vertex
    if (pred) {
        u64* sl = slot(st, k + 1);            // zeroed two compactions ago, unused since
        u64 missing = 0ull;
        for (long long base = gtid & ~31ll; base < n; base += nthreads) {
            const long long v = base + lane;
            bool more = false;
            if (v < n) {
                const dist_t dv = __ldcg(dist + v);
                if (__ldcg(pred + v) == (pidx_t)-2) {
                    pred[v] = (pidx_t)-1;
                } else if (dv < INF) {
                    bool got = false;
#if PACK
                    if (cand) {   // the candidate the last improvement left, if it is still tight
                        const u64 cv = __ldcg(cand + v);
                        const idx_t u = (idx_t)(cv >> 32);
                        const long long e = (long long)(cv & 0xffffffffull);
                        if (u >= 0 && (long long)u < n) {
                            const dist_t du = __ldcg(dist + u);
                            if (du < dv && du + weight(wo, e) == dv) { pred[v] = (pidx_t)u; got = true; }
                        }
                    }
#endif
                    const long long s = (long long)__ldg(ipi + v), t = got ? 0 : (long long)__ldg(ipi + v + 1);
                    const long long stop = got ? 0 : min(t, s + (long long)LONG);
                    for (long long e = s; e < stop; ++e) {
                        const idx_t u = __ldg(ixi + e);
                        const dist_t du = __ldcg(dist + u);
                        if (du < dv && du + weight(wi, e) == dv) { pred[v] = (pidx_t)u; got = true; break; }
                    }
                    more = !got && t > stop;
                    if (!got && !more) ++missing;
                }
            }
            const unsigned mm = __ballot_sync(FULL, more);
            if (mm) {
                u64 b = 0ull;
                if (lane == 0) b = atomicAdd(sl + C_LONG, (u64)__popc(mm));
                b = __shfl_sync(FULL, b, 0);
                if (more) lq[b + __popc(mm & ((1u << lane) - 1u))] = (idx_t)v;
            }
        }
        grid_sync(st);
        const u64 nlong = vs[S_SLOT + SLOT_WORDS * ((k + 1) % NSLOT) + C_LONG];
        for (long long i = gtid >> 5; i < (long long)nlong; i += nwarps) {
            const idx_t v = __ldcg(lq + i);
            const dist_t dv = __ldcg(dist + v);
            const long long s = (long long)__ldg(ipi + v) + LONG, t = (long long)__ldg(ipi + v + 1);
            bool got = false;
            for (long long e0 = s; e0 < t && !got; e0 += 32) {
                const long long e = e0 + lane;
                idx_t u = 0;
                bool tight = false;
                if (e < t) {
                    u = __ldg(ixi + e);
                    const dist_t du = __ldcg(dist + u);
                    tight = du < dv && du + weight(wi, e) == dv;
                }
                const unsigned tm = __ballot_sync(FULL, tight);
                if (tm) {
                    const idx_t f = __shfl_sync(FULL, u, __ffs(tm) - 1);
                    if (lane == 0) pred[v] = (pidx_t)f;
                    got = true;
                }
            }
            if (!got && lane == 0) ++missing;
        }
        missing = warp_sum(missing);
        if (lane == 0 && missing) atomicAdd(st + S_MISSING, missing);
    }
    if (prof && gtid == 0) prof[4] = now_ns();
}
"""


def sssp_source(dist_dtype, idx_dtype=np.int32, ptr_dtype=np.int64, w_dtype=None,
                pred_dtype=None, block=256, pack=True):
    """``(source, kernel name)`` of the cooperative near-far kernel.  ``pack``: relaxations
    leave ``(u, edge)`` predecessor candidates (needs fewer than 2**32 vertices and edges)."""
    dist_dtype = np.dtype(dist_dtype)
    if dist_dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InvalidValue(f"distances are float32 or float64, not {dist_dtype}")
    if block not in (128, 256, 512, 1024):
        raise InvalidValue(f"block must be 128, 256, 512 or 1024 threads, got {block}")
    pred_dtype = np.dtype(idx_dtype if pred_dtype is None else pred_dtype)
    tag = "_".join(_dt.short_name(np.dtype(d)) if d is not None else "pat"
                   for d in (dist_dtype, idx_dtype, ptr_dtype, w_dtype, pred_dtype))
    name = f"hpg_sssp_coop_{tag}_b{block}{'' if pack else '_nopack'}"
    src = fill(_SOURCE, COMMON=DEVICE_COMMON, IDX=_dt.c_type(idx_dtype),
               PTR=_dt.c_type(ptr_dtype), DIST=_dt.c_type(dist_dtype),
               BITS="int" if dist_dtype.itemsize == 4 else "long long",
               WT=_w_ctype(w_dtype, dist_dtype), PIDX=_dt.c_type(pred_dtype), BLOCK=block,
               HEAVY=HEAVY, CHUNK=CHUNK_PER_THREAD * block, LIGHT_UNROLL=LIGHT_UNROLL, LONG=LONG, WEIGHTED=int(w_dtype is not None),
               PACK=int(bool(pack)),
               NPROF=NPROF, NAME=name)
    return src, name


def launch_shape(n: int, nnz: int):
    """``(threads per block, blocks per SM)``; ``hp.config["sssp_gpu_shape"]`` overrides it.
    H200, with predecessors (``benchmarks/bench_sssp_gpu.py``), R-MAT 21 / 22: 256 x 4
    1.78 / 3.84 ms, 512 x 2 1.92 / 4.06, 1024 x 1 1.90 / 4.99 (run-to-run noise about 5 %).
    Sparse graphs (mean degree <= ``hp.config["bfs_gpu_sparse_degree"]``) take BFS's narrow
    launch (the step kernel usually runs them)."""
    from . import _bfs_gpu

    shape = config["sssp_gpu_shape"]
    if shape is not None:
        return shape
    if nnz <= config["bfs_gpu_sparse_degree"] * max(n, 1):
        return _bfs_gpu.launch_shape(n, nnz)
    return 256, 4


class _Plan:
    """One device graph's compiled kernel and buffers, kept between calls."""

    def __init__(self, G, dist_dtype, pred_dtype, shape):
        cp = _backend.cupy()
        self.cp = cp
        A = G.A
        n = self.n = int(G.num_vertices)
        self.dt, self.pdt = np.dtype(dist_dtype), np.dtype(pred_dtype)
        self.idt = np.dtype(A.indices.dtype)
        # the matrices' arrays (the plan is cached weakly by the matrix, so not the matrix)
        self.ipo, self.ixo, wo, self.ipi, self.ixi, wi = adjacency(G)
        self.wdt = None if wo is None else np.dtype(wo.dtype)
        self.null_w = cp.zeros(1, self.dt)
        self.wo = self.null_w if wo is None else wo
        self.wi = self.null_w if wi is None else wi
        self.pack = n < 2**32 and int(A.nnz) < 2**32
        self.exact = _exact_positive(G, self.dt, self.wdt, n)
        src, name = sssp_source(self.dt, self.idt, A.indptr.dtype, self.wdt, self.pdt, shape[0],
                                self.pack)
        self.kern = CoopKernel(src, name, shape)
        with _backend.out_of_memory_guard("preparing SSSP buffers"):
            cap = max(n, 1)
            self.flag = cp.zeros((n + 255) // 256 * 256 + 8, cp.uint8)
            self.q = cp.empty(cap, self.idt)
            # heavy vertices' chunks: at most nnz / chunk full ones plus one partial per vertex
            ccap = int(A.nnz) // (CHUNK_PER_THREAD * shape[0]) + int(A.nnz) // HEAVY + 1
            self.cu = cp.empty(ccap, self.idt)
            self.cs = cp.empty(ccap, cp.int64)
            # predecessor candidates (u << 32 | edge); all ones = none yet
            self.cand = cp.full(cap, np.iinfo(np.uint64).max, cp.uint64) if self.pack else None
            self.lq = cp.empty(cap, self.idt)
            self.st = cp.zeros(S_WORDS, cp.uint64)
            self.prof = cp.zeros(8 + 4 * NPROF, cp.uint64)

    def run(self, sources, delta, want_pred):
        cp = self.cp
        dist = cp.empty(self.n, self.dt)
        pred = cp.empty(self.n, self.pdt) if want_pred else None
        srcs, nsrc, s0 = source_args(cp, sources, self.idt)
        self.kern.launch((self.ipo, self.ixo, self.wo, self.ipi, self.ixi, self.wi, dist,
                          null_ptr() if pred is None else pred, self.flag,
                          self.cand if (want_pred and self.pack) else null_ptr(), self.q,
                          self.cu, self.cs, self.lq, self.st, np.int64(self.n), srcs, nsrc, s0,
                          np.float64(delta),
                          self.prof if config["sssp_gpu_profile"] else null_ptr()))
        missing = 0
        if want_pred and not self.exact:
            # one small read (it waits for the kernel): does a reached vertex lack a strictly
            # closer tight parent?  Not needed where that cannot happen (_exact_positive).
            missing = int(self.st[S_MISSING:S_MISSING + 1].get()[0])
        return dist, pred, missing

    def profile(self):
        """The last run's timeline (``hp.config["sssp_gpu_profile"]`` on), microseconds from the
        start."""
        p = self.cp.asnumpy(self.prof).astype(np.int64)
        k = int(p[3])
        rec = p[8:8 + 4 * min(k + 1, NPROF)].reshape(-1, 4)
        ends = np.append(rec[1:, 0], p[2])
        return {"setup_us": (p[1] - p[0]) / 1e3, "steps_us": (p[2] - p[1]) / 1e3,
                "pred_us": (p[4] - p[2]) / 1e3 if p[4] else 0.0, "compactions": k + 1,
                "step_us": ((ends - rec[:, 0]) / 1e3).round(1).tolist(),
                "queue": rec[:, 1].tolist(), "pending": rec[:, 2].tolist(),
                "thr": rec[:, 3].view(np.float64).tolist()}


def _exact_positive(G, dist_dtype, w_dtype, n) -> bool:
    """Whether every reached non-source vertex surely gets a predecessor from the kernel: all
    weights are positive integers (or the graph is unweighted) and every path length is exact
    in ``dist_dtype`` (``n * max weight`` below 2**53 for float64, 2**24 for float32).  Then
    the vertex that set a final distance is strictly closer and its edge is tight."""
    limit = 2.0 ** (53 if np.dtype(dist_dtype).itemsize == 8 else 24)
    if w_dtype is None:
        return n < limit
    if np.dtype(w_dtype).kind not in "iu":
        return False
    vals = G.A.values
    if int(G.A.nnz) == 0:
        return True
    lo, hi = (int(x) for x in G.derived("hpg.weight_min_max",
                                         lambda: tuple(_backend.to_host(
                                             G.xp.stack([vals.min(), vals.max()])).tolist())))
    return lo > 0 and float(n) * float(hi) < limit


_plans = PlanCache()


def _plan(G, dist_dtype, pred_dtype):
    shape = launch_shape(int(G.num_vertices), int(G.A.nnz))
    key = (np.dtype(dist_dtype).str, np.dtype(pred_dtype).str, shape)
    return _plans.get(G.A, key, lambda: _Plan(G, dist_dtype, pred_dtype, shape))


def sssp_gpu(G, sources, dist_dtype, pred_dtype, delta, want_pred):
    """Near-far on device graph ``G`` (non-negative weights) from host ids ``sources``.

    Returns ``(dist, pred or None, missing)``: ``missing`` counts reached non-source vertices
    without a strictly closer tight in-neighbour (the caller recomputes ``pred`` then).
    """
    d = float(delta)
    if not (d > 0) or math.isnan(d):
        raise InvalidValue(f"delta must be > 0, got {delta!r}")
    return _plan(G, dist_dtype, pred_dtype).run(np.asarray(sources, dtype=np.int64), d,
                                                want_pred)
