"""Direction-optimized BFS on the GPU as one cooperative kernel launch.

**Kept beside the engine, for dense graphs, because it is faster there by more than the 20%
the project allows** (``benchmarks/bench_vertex_programs.py``, one NVIDIA H100, CUDA-event
medians, one process, 2026-11-28, session 26's final run; this kernel against the same BFS
written as a user vertex program on the engine -- ``examples.bfs.BFSParents``: an ``any``
reduction, a mask and a witness for the parents): R-MAT 21 0.336 ms against 0.802 ms (2.4x;
the engine's host loop; 0.872 on its device loop); on one H200 (2026-11-28, session 29) 0.328
ms against 0.794 (2.4x; 0.814 on the device loop).  On the 2048 x 2048 grid the engine is the
faster (31.1 ms here against 28.3 for ``BFSParents`` and 29.4 for ``hp.bfs``'s own program on
the device loop), so ``hp.bfs`` takes the engine on sparse graphs
(:func:`._bfs.gpu_bfs_impl`).  Every technique here that the engine now also has
(frontier queues and bitmaps, device-side direction choice, a device-side loop, winner
witnesses, the warp-balanced frontier expansion, pushes that update the vertex directly) is
available to user programs through ``hp.run``; what keeps R-MAT 21 apart is the bottom-up
steps' cost and the engine's per-superstep fixed cost on few, large supersteps.

**Why a specialised kernel.**  On the engine (:func:`hpgraph.run` with the ``BFSAny`` program
of :mod:`._bfs`) a BFS superstep is a fixed sequence of generated launches (push, pull over
the HYB ELL part, pull over its COO tail, APPLY over all ``n`` vertices) and the host looks at
the device state between blind batches.  On R-MAT 21 that costs 1.03 ms (H200), while the work
itself is tiny: from the highest-degree vertex, the whole traversal checks about 1.7M edges
(push 103k from the hub, then two bottom-up steps of 1.47M and 87k checked in-edges, then a few
small pushes).  Launch latency, APPLY passes over every vertex and the ELL slots of rows that
already found a parent dominate.  What the engine cannot express is a traversal whose every
step works only on its frontier (a queue for top-down, a bitmap for bottom-up), with the
direction and the end decided on the device between steps, without a launch boundary.

**How.**  One launch (``cuLaunchCooperativeKernel``: every block resident at once) runs the
whole BFS; steps are separated by a grid barrier (an arrival counter and a generation word in
device memory).  Per level ``L`` (the frontier: vertices at depth ``L``):

* *top-down* (push): the frontier queue's vertices expand their out-edges.  Light vertices go
  up to 32 to a warp and their edges are dealt evenly over its lanes (a scan of the degrees and
  a binary search over the lanes); vertices of out-degree above ``HEAVY`` take a block each,
  above ``HUGE`` the whole grid (one at a time).  A target is claimed with
  ``atomicCAS(depth, -1, L + 1)`` after a look at the visited bitmap.
* *bottom-up* (pull): every unvisited vertex (visited bitmap, one word per warp, ``UNROLL``
  words at a time so that their loads overlap) scans its in-edges and stops at the first one
  whose source is in the frontier bitmap; after ``LONG`` entries without a hit the vertex goes
  to a list that warps finish after one more barrier.  Vertices that no edge enters start
  each run marked visited (a bitmap computed once per graph), so no step looks at them.  Two
  frontier bitmaps alternate by level parity and are never cleared within a run: a stale bit
  belongs to a vertex at depth ``L - 2`` or less, and an unvisited vertex has no in-edge from
  such a vertex (it would have been reached by level ``L - 1``).
* every discovery sets the vertex's visited and next-frontier bits, appends it to the next
  queue (warp-aggregated) and adds its degrees to the block's sums, flushed to the next
  level's counters once per level.  After the barrier every thread reads the same counters
  and takes the same decision: Beamer's rule (go bottom-up when the frontier's out-edges
  exceed ``unvisited in-edges / alpha``, back top-down when the frontier is under ``n / beta``
  vertices and shrinking), or the end.

The host launches once and never reads: ``hp.bfs`` on a device graph returns while the kernel
runs, as any CuPy call does.  Counters live in three rotating slots (level ``L`` reads slot
``L % 3``, writes ``(L + 1) % 3`` and clears ``(L + 2) % 3``), so no extra barrier resets them.

Measured (H200, ``benchmarks/bench_bfs.py``): R-MAT 21 0.30 ms (the engine: 0.92), R-MAT 22
0.49 ms (1.46), the 2048 x 2048 grid 30.6 ms (49.3; 4,095 levels at about 7.5 us each, the
grid barrier and the level's counter reads).
"""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .._config import config
from ..exceptions import InvalidValue
from .. import dtypes as _dt
from ._coop import DEVICE_COMMON, CoopKernel, PlanCache, adjacency, fill, null_ptr, source_args

__all__ = ["bfs_source", "bfs_gpu", "launch_shape", "BLOCK", "LONG", "HEAVY", "HUGE",
           "DIRECTION_CODES"]

# The launch shape and the timeline are hp.config keys (bfs_gpu_shape, bfs_gpu_sparse_degree,
# bfs_gpu_profile); the constants below are compiled into the kernel's source.

#: Threads per block on sparse graphs (:func:`launch_shape` picks the launch shape; blocks per
#: SM are capped by the occupancy).  More threads hide more memory latency in the big steps;
#: every thread pays each level's fixed cost (counter reads, the grid barrier).
BLOCK = 256
#: In-edges one thread checks for a bottom-up vertex before handing it to a warp.
LONG = 32
#: Bitmap words a warp takes at once in a bottom-up step (their loads overlap).
UNROLL = 4
#: Top-down: frontier vertices of out-degree above HUGE are expanded by the whole grid, one at
#: a time; above HEAVY, by one block each; the others 32 to a warp, their edges dealt evenly
#: over its lanes.
HEAVY = 256
HUGE = 8192
#: Levels whose start time, frontier size, out-edges and direction the kernel records with
#: ``hp.config["bfs_gpu_profile"]`` on (``_Plan.profile()``; one store per level by one thread).
NPROF = 64
#: ``direction`` -> the kernel's mode code.
DIRECTION_CODES = {"auto": 0, "push": 1, "pull": 2}

# state words (uint64; 0 and 1 are the grid barrier's); keep in sync with the enum in _SOURCE
S_SLOT, SLOT_WORDS = 8, 8           # slot k: light, heavy, huge counts, out-edges, long count,
                                    # in-edges of the level's vertices
S_WORDS = S_SLOT + 3 * SLOT_WORDS

_SOURCE = r"""
typedef ${IDX} idx_t;
typedef ${PTR} ptr_t;
typedef ${PAR} par_t;
#define BLOCK ${BLOCK}
#define HEAVY ${HEAVY}
#define HUGE ${HUGE}
#define LONG ${LONG}
#define UNROLL ${UNROLL}
#define NPROF ${NPROF}
${COMMON}

enum { S_SLOT = 8, SLOT_WORDS = 8 };
enum { C_LIGHT = 0, C_HEAVY = 1, C_HUGE = 2, C_EDGES = 3, C_LONG = 4, C_IN = 5 };

__device__ __forceinline__ bool bit(const unsigned* bm, long long v)
{
    return (__ldcg(bm + (v >> 5)) >> (v & 31)) & 1u;
}

struct Ctx {
    const ptr_t* ipo; const idx_t* ixo;      // out-edges (CSR of A)
    const ptr_t* ipi; const idx_t* ixi;      // in-edges (CSR of A^T; the same arrays if symmetric)
    int* depth; par_t* parent;
    unsigned* vis; unsigned* fr[2];
    idx_t* q[2]; idx_t* hq[2]; idx_t* lq;
    u64* st;
    u64* blk;                                // this block's shared sums: out-edges, in-edges
    long long n;
};

__device__ __forceinline__ u64* slot(const Ctx& c, int level) { return c.st + S_SLOT + SLOT_WORDS * (level % 3); }

// Warp-collective (all 32 lanes call, converged): lanes with `want` have just reached v at
// depth `level + 1` (depth and parent already written).  Marks v visited and in the next
// frontier, appends it to the next queue (light at the front, heavy at the back, huge in
// their own list) and adds its degrees to the block's sums (flushed once per level).
__device__ __forceinline__ void discovered(const Ctx& c, bool want, idx_t v, int level)
{
    const unsigned m = __ballot_sync(FULL, want);
    if (m == 0u) return;
    const int lane = threadIdx.x & 31;
    const int nxt = (level + 1) & 1;
    u64* sl = slot(c, level + 1);
    set_bits(c.vis, want, (long long)v);
    set_bits(c.fr[nxt], want, (long long)v);
    long long dout = 0, din = 0;
    if (want) {
        dout = (long long)(__ldg(c.ipo + v + 1) - __ldg(c.ipo + v));
        din = c.ipi == c.ipo ? dout : (long long)(__ldg(c.ipi + v + 1) - __ldg(c.ipi + v));
    }
    const bool huge = want && dout > (long long)HUGE;
    const bool heavy = want && !huge && dout > (long long)HEAVY;
    const unsigned mu = __ballot_sync(FULL, huge);
    const unsigned mh = __ballot_sync(FULL, heavy);
    const unsigned ml = m & ~(mu | mh);
    const int leader = __ffs(m) - 1;
    u64 bl = 0ull, bh = 0ull, bu = 0ull;
    const u64 se = warp_sum((u64)dout), si = warp_sum((u64)din);
    if (lane == leader) {
        if (ml) bl = atomicAdd(sl + C_LIGHT, (u64)__popc(ml));
        if (mh) bh = atomicAdd(sl + C_HEAVY, (u64)__popc(mh));
        if (mu) bu = atomicAdd(sl + C_HUGE, (u64)__popc(mu));
        atomicAdd(c.blk, se);
        atomicAdd(c.blk + 1, si);
    }
    bl = __shfl_sync(FULL, bl, leader);
    bh = __shfl_sync(FULL, bh, leader);
    bu = __shfl_sync(FULL, bu, leader);
    const unsigned below = (1u << lane) - 1u;
    if (want && !huge && !heavy) c.q[nxt][bl + __popc(ml & below)] = v;
    if (heavy) c.q[nxt][c.n - 1 - (long long)(bh + __popc(mh & below))] = v;
    if (huge) c.hq[nxt][bu + __popc(mu & below)] = v;
}

// End of a level's work: the block's degree sums go to the next level's slot, then the
// grid barrier.
__device__ __forceinline__ void level_end(const Ctx& c, int level)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        u64* sl = slot(c, level + 1);
        if (c.blk[0]) atomicAdd(sl + C_EDGES, c.blk[0]);
        if (c.blk[1]) atomicAdd(sl + C_IN, c.blk[1]);
        c.blk[0] = 0ull;
        c.blk[1] = 0ull;
    }
    grid_sync(c.st);
}

// Top-down: try to claim target v (edge index e valid) from frontier vertex u.
__device__ __forceinline__ void push_edge(const Ctx& c, bool valid, long long e, idx_t u,
                                          int level)
{
    bool got = false;
    idx_t v = 0;
    if (valid) {
        v = __ldg(c.ixo + e);
        if (!bit(c.vis, v) && atomicCAS(c.depth + v, -1, level + 1) == -1) {
            c.parent[v] = (par_t)u;
            got = true;
        }
    }
    discovered(c, got, v, level);
}

extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}(
        const ptr_t* __restrict__ ipo, const idx_t* __restrict__ ixo,
        const ptr_t* __restrict__ ipi, const idx_t* __restrict__ ixi,
        int* depth, par_t* parent, unsigned* bitmaps, const unsigned* __restrict__ dead,
        idx_t* q0, idx_t* q1, idx_t* hq0, idx_t* hq1, idx_t* lq,
        u64* st, long long n, const idx_t* __restrict__ srcs, long long nsrc, long long src0,
        int mode, double alpha, double beta, long long nnz_in, u64* prof)
{
    __shared__ u64 blk[2];
    const long long nw = (n + 31) >> 5;
    Ctx c;
    c.ipo = ipo; c.ixo = ixo; c.ipi = ipi; c.ixi = ixi; c.depth = depth; c.parent = parent;
    c.vis = bitmaps; c.fr[0] = bitmaps + nw; c.fr[1] = bitmaps + 2 * nw;
    c.q[0] = q0; c.q[1] = q1; c.hq[0] = hq0; c.hq[1] = hq1; c.lq = lq; c.st = st; c.n = n;
    c.blk = blk;
    const int lane = threadIdx.x & 31;
    const long long gtid = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * BLOCK;
    const long long nwarps = nthreads >> 5;
    volatile u64* vs = st;
    if (prof && gtid == 0) prof[0] = now_ns();

    // ---- setup: depth/parent unreached; visited = the vertices no edge enters (a bottom-up
    // step skips them); frontier bitmaps and counters zero; then the sources
    if (threadIdx.x < 2) blk[threadIdx.x] = 0ull;
    for (long long i = gtid; i < n; i += nthreads) { depth[i] = -1; parent[i] = (par_t)-1; }
    for (long long i = gtid; i < nw; i += nthreads) {
        bitmaps[i] = __ldg(dead + i);
        bitmaps[nw + i] = 0u;
        bitmaps[2 * nw + i] = 0u;
    }
    if (gtid >= 2 && gtid < S_SLOT + 3 * SLOT_WORDS) st[gtid] = 0ull;   // not the barrier words
    grid_sync(st);
    if (prof && gtid == 0) prof[1] = now_ns();
    for (long long b = (gtid & ~31ll); b < nsrc; b += nthreads) {
        const long long i = b + lane;
        bool got = false;
        idx_t s = 0;
        if (i < nsrc) {
            s = srcs ? srcs[i] : (idx_t)src0;
            if (atomicCAS(depth + s, -1, 0) == -1) { parent[s] = (par_t)s; got = true; }
        }
        discovered(c, got, s, -1);
    }
    level_end(c, -1);
    if (prof && gtid == 0) prof[2] = now_ns();

    // ---- levels
    bool pull = (mode == 2);
    u64 prev_nf = 0ull;
    long long vis_in = 0;       // in-edges of the visited vertices (the same in every thread)
    int level = 0;
    for (;; ++level) {
        const u64* sl = slot(c, level);
        const int so = S_SLOT + SLOT_WORDS * (level % 3);
        const u64 nl = vs[so + C_LIGHT], nh = vs[so + C_HEAVY], nu = vs[so + C_HUGE];
        const u64 mf = vs[so + C_EDGES];
        const u64 nf = nl + nh + nu;
        if (nf == 0ull) break;
        // Every thread must take the same decision (a block that went the other way would
        // meet a different barrier), so it reads only this level's slot, which no one writes
        // during the level: not a running total that discoveries keep adding to.
        vis_in += (long long)vs[so + C_IN];
        if (mode == 0) {
            const double mu = (double)(nnz_in - vis_in);
            if (!pull) { if ((double)mf > mu / alpha) pull = true; }
            else if ((double)nf < (double)n / beta && nf < prev_nf) pull = false;
        }
        prev_nf = nf;
        if (gtid == 0) {                      // the slot two levels ahead: nobody reads it now
            u64* z = slot(c, level + 2);
            for (int k = 0; k < SLOT_WORDS; ++k) z[k] = 0ull;
            if (prof && level < NPROF) {
                u64* r = prof + 8 + 4 * level;
                r[0] = now_ns(); r[1] = nf; r[2] = mf; r[3] = pull ? 1ull : 0ull;
            }
        }
        const int cur = level & 1;
        if (!pull) {
            // huge frontier vertices (out-degree > HUGE; few): every thread of the grid on
            // one vertex's edges at a time
            for (u64 h = 0; h < nu; ++h) {
                const idx_t u = __ldcg(c.hq[cur] + h);
                const long long s = (long long)__ldg(ipo + u), t = (long long)__ldg(ipo + u + 1);
                const long long trips = (t - s + nthreads - 1) / nthreads;
                for (long long k = 0; k < trips; ++k) {
                    const long long e = s + gtid + k * nthreads;
                    push_edge(c, e < t, e, u, level);
                }
            }
            // heavy ones (HEAVY < out-degree <= HUGE): a block each, block-uniform loops
            for (long long h = blockIdx.x; h < (long long)nh; h += gridDim.x) {
                const idx_t u = __ldcg(c.q[cur] + (n - 1 - h));
                const long long s = (long long)__ldg(ipo + u), t = (long long)__ldg(ipo + u + 1);
                for (long long e0 = s; e0 < t; e0 += BLOCK)
                    push_edge(c, e0 + threadIdx.x < t, e0 + threadIdx.x, u, level);
            }
            // light ones: up to 32 to a warp, their out-edges dealt evenly over the lanes
            const int per = per_warp((long long)nl, nwarps);
            for (long long base = (gtid >> 5) * per; base < (long long)nl; base += nwarps * per) {
                const long long i = base + lane;
                idx_t u = 0;
                long long s = 0, d = 0;
                if (lane < per && i < (long long)nl) {
                    u = __ldcg(c.q[cur] + i);
                    s = (long long)__ldg(ipo + u);
                    d = (long long)__ldg(ipo + u + 1) - s;
                }
                expand_balanced(per, s, d, [&](bool valid, long long e, int owner) {
                    push_edge(c, valid, e, __shfl_sync(FULL, u, owner), level);
                });
            }
        } else {
            // bottom-up: one thread per unvisited vertex, a warp per 32-vertex bitmap word,
            // UNROLL words per warp at a time so that their loads overlap (the step is bound
            // by the latency of the dependent loads: visited word and row bounds, first
            // in-edge, frontier bit)
            const unsigned* fin = c.fr[cur];
            u64* lcnt = (u64*)sl + C_LONG;
            for (long long w0 = (gtid >> 5) * UNROLL; w0 < nw; w0 += nwarps * UNROLL) {
                unsigned word[UNROLL];
                long long s[UNROLL], t[UNROLL];
                bool open[UNROLL], got[UNROLL], more[UNROLL];
                idx_t found[UNROLL];
#pragma unroll
                for (int j = 0; j < UNROLL; ++j) {
                    const long long v = (w0 + j) * 32 + lane;
                    word[j] = (w0 + j < nw) ? __ldcg(c.vis + w0 + j) : FULL;
                    open[j] = !((word[j] >> lane) & 1u) && v < n;
                    s[j] = t[j] = 0;
                    if (open[j]) { s[j] = (long long)__ldg(ipi + v); t[j] = (long long)__ldg(ipi + v + 1); }
                    got[j] = false;
                    found[j] = 0;
                }
#pragma unroll
                for (int j = 0; j < UNROLL; ++j)       // the first in-edge of every open lane
                    if (open[j] && s[j] < t[j]) found[j] = __ldg(ixi + s[j]);
#pragma unroll
                for (int j = 0; j < UNROLL; ++j)
                    if (open[j] && s[j] < t[j]) got[j] = bit(fin, found[j]);
#pragma unroll
                for (int j = 0; j < UNROLL; ++j) {
                    if (open[j] && !got[j]) {          // the rest of the first LONG entries
                        const long long stop = min(t[j], s[j] + (long long)LONG);
                        for (long long e = s[j] + 1; e < stop; ++e) {
                            const idx_t u = __ldg(ixi + e);
                            if (bit(fin, u)) { found[j] = u; got[j] = true; break; }
                        }
                    }
                    more[j] = open[j] && !got[j] && t[j] > s[j] + (long long)LONG;
                }
#pragma unroll
                for (int j = 0; j < UNROLL; ++j) {
                    if (word[j] == FULL) continue;                 // warp-uniform
                    const long long v = (w0 + j) * 32 + lane;
                    if (got[j]) { depth[v] = level + 1; parent[v] = (par_t)found[j]; }
                    discovered(c, got[j], (idx_t)v, level);
                    const unsigned mm = __ballot_sync(FULL, more[j]);
                    if (mm) {
                        u64 b = 0ull;
                        if (lane == 0) b = atomicAdd(lcnt, (u64)__popc(mm));
                        b = __shfl_sync(FULL, b, 0);
                        if (more[j]) c.lq[b + __popc(mm & ((1u << lane) - 1u))] = (idx_t)v;
                    }
                }
            }
            grid_sync(st);
            // the long rows: a warp each, from entry LONG on, stopping at the first hit
            const u64 nlong = vs[so + C_LONG];
            for (long long i = gtid >> 5; i < (long long)nlong; i += nwarps) {
                const idx_t v = __ldcg(c.lq + i);
                const long long s = (long long)__ldg(ipi + v) + LONG, t = (long long)__ldg(ipi + v + 1);
                idx_t found = 0;
                bool got = false;
                for (long long e0 = s; e0 < t; e0 += 32) {
                    const long long e = e0 + lane;
                    idx_t u = 0;
                    const bool hit = e < t && bit(fin, (u = __ldg(ixi + e)));
                    const unsigned hm = __ballot_sync(FULL, hit);
                    if (hm) { found = __shfl_sync(FULL, u, __ffs(hm) - 1); got = true; break; }
                }
                if (got && lane == 0) { depth[v] = level + 1; parent[v] = (par_t)found; }
                discovered(c, got && lane == 0, v, level);
            }
        }
        level_end(c, level);
    }
    if (prof && gtid == 0) { prof[3] = (u64)level; prof[4] = now_ns(); }
}
"""


def bfs_source(idx_dtype=np.int32, ptr_dtype=np.int64, par_dtype=np.int32, block=BLOCK):
    """``(source, kernel name)`` of the cooperative BFS kernel for ``block`` threads per block."""
    if block not in (128, 256, 512, 1024):
        raise InvalidValue(f"block must be 128, 256, 512 or 1024 threads, got {block}")
    tag = "_".join(_dt.short_name(np.dtype(d)) for d in (idx_dtype, ptr_dtype, par_dtype))
    name = f"hpg_bfs_coop_{tag}_b{block}"
    src = fill(_SOURCE, COMMON=DEVICE_COMMON, IDX=_dt.c_type(idx_dtype), PTR=_dt.c_type(ptr_dtype),
                PAR=_dt.c_type(par_dtype), BLOCK=block, HEAVY=HEAVY, HUGE=HUGE, LONG=LONG,
                UNROLL=UNROLL,
                NPROF=NPROF, NAME=name)
    return src, name


def launch_shape(n: int, nnz: int):
    """``(threads per block, blocks per SM)`` for a graph; ``hp.config["bfs_gpu_shape"]``
    overrides it.

    Measured on an H200 (``benchmarks/bench_bfs.py``, ms): on R-MAT 21 / 22 the wide bottom-up
    steps want many threads (256 x 1: 0.460 / 0.856, 256 x 2: 0.321 / 0.539, 1024 x 1:
    0.304 / 0.490), while the 4,095 tiny levels of the 2048 x 2048 grid want few (256 x 1:
    30.6, 256 x 2: 37.4, 1024 x 1: 53.1): every thread pays each level's fixed cost.  Sparse
    graphs (mean degree <= ``hp.config["bfs_gpu_sparse_degree"]``) tend to be the long, thin
    ones.
    """
    shape = config["bfs_gpu_shape"]
    if shape is not None:
        return shape
    if nnz <= config["bfs_gpu_sparse_degree"] * max(n, 1):
        return BLOCK, 1
    return 1024, 1


class _Plan:
    """One device graph's compiled kernel and buffers (bitmaps, two queues, the long list,
    the state words), kept between calls."""

    def __init__(self, G, par_dtype, shape):
        cp = _backend.cupy()
        self.cp = cp
        A = G.A
        n = self.n = int(G.num_vertices)
        self.par_dtype = np.dtype(par_dtype)
        # the matrices' arrays (the plan is cached weakly by the matrix, so not the matrix)
        self.ipo, self.ixo, _, self.ipi, self.ixi, _ = adjacency(G)
        self.nnz_in = int(G.AT.nnz)
        self.idt = np.dtype(A.indices.dtype)
        src, name = bfs_source(self.idt, A.indptr.dtype, self.par_dtype, shape[0])
        self.kern = CoopKernel(src, name, shape)
        with _backend.out_of_memory_guard("preparing BFS buffers"):
            cap = max(n, 1)
            nw = (n + 31) // 32
            self.bitmaps = cp.zeros(max(3 * nw, 1), cp.uint32)
            # vertices no edge enters (and the padding bits of the last word): a bottom-up
            # step never needs to look at them, so each run starts with them "visited"
            indeg = cp.diff(self.ipi)
            pad = cp.ones(nw * 32, cp.bool_)
            pad[:n] = indeg == 0
            self.dead = cp.packbits(pad.reshape(-1, 8)[:, ::-1]).view(cp.uint32) if n else \
                cp.zeros(1, cp.uint32)
            self.q = [cp.empty(cap, self.idt), cp.empty(cap, self.idt)]
            # at most nnz / HUGE vertices have more than HUGE out-edges
            hcap = int(A.nnz) // HUGE + 1
            self.hq = [cp.empty(hcap, self.idt), cp.empty(hcap, self.idt)]
            self.lq = cp.empty(cap, self.idt)
            self.st = cp.zeros(S_WORDS, cp.uint64)
            self.prof = cp.zeros(8 + 4 * NPROF, cp.uint64)

    def run(self, sources, mode, alpha, beta):
        cp = self.cp
        depth = cp.empty(self.n, cp.int32)
        parent = cp.empty(self.n, self.par_dtype)
        srcs, nsrc, s0 = source_args(cp, sources, self.idt)
        self.kern.launch((self.ipo, self.ixo, self.ipi, self.ixi, depth, parent, self.bitmaps,
                          self.dead, self.q[0], self.q[1], self.hq[0], self.hq[1], self.lq,
                          self.st, np.int64(self.n), srcs, nsrc, s0,
                          np.int32(mode), np.float64(alpha), np.float64(beta),
                          np.int64(self.nnz_in),
                          self.prof if config["bfs_gpu_profile"] else null_ptr()))
        return depth, parent

    def profile(self):
        """The last run's timeline (``hp.config["bfs_gpu_profile"]`` on): setup and per-level times in
        microseconds from the kernel's start, frontier sizes and directions."""
        p = self.cp.asnumpy(self.prof).astype(np.int64)
        t0, levels = p[0], int(p[3])
        rec = p[8:8 + 4 * min(levels, NPROF)].reshape(-1, 4)
        ends = np.append(rec[1:, 0], p[4])
        return {"setup_us": (p[1] - t0) / 1e3, "sources_us": (p[2] - p[1]) / 1e3,
                "total_us": (p[4] - t0) / 1e3, "levels": levels,
                "level_us": ((ends - rec[:, 0]) / 1e3).round(1).tolist(),
                "frontier": rec[:, 1].tolist(), "frontier_edges": rec[:, 2].tolist(),
                "pull": rec[:, 3].astype(bool).tolist()}


_plans = PlanCache()


def _plan(G, par_dtype):
    shape = launch_shape(int(G.num_vertices), int(G.A.nnz))
    return _plans.get(G.A, (np.dtype(par_dtype).str, shape), lambda: _Plan(G, par_dtype, shape))


def bfs_gpu(G, sources, *, direction="auto", alpha, beta, par_dtype):
    """BFS on device graph ``G`` from host ids ``sources``; returns ``(depth, parent)``."""
    return _plan(G, par_dtype).run(np.asarray(sources, dtype=np.int64), DIRECTION_CODES[direction],
                                   alpha, beta)
