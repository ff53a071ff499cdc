"""GPU triangle counting with shared-memory hash tables, one warp or block per vertex.

**Kept beside the engine because it is faster by more than the 20% the project allows**
(one NVIDIA H200, 2026-11-28, R-MAT 21 undirected, 949,098,081 triangles, CUDA-event
medians): 8.3 ms here against 26.0-26.9 ms for the same count through the engine's GraphBLAS
operations, the degree-ordered masked product ``mxm(U, U.T, plus_pair, mask=U.S)`` and its
``reduce_scalar`` (its hash kernels share this module's scheme), and 55.0 ms in the ``tril``
form ``mxm(L, L, plus_pair, mask=L.S)`` (``benchmarks/README.md``, session 31); 45.6 ms
for the per-edge merge kernel of :mod:`._kernels`.

The GPU method of :func:`hpgraph.triangle_count` for graphs with many wedges per edge
(``hp.config["triangle_kernel"]`` ``"hash"``, or ``"auto"`` from ``triangle_auto_wedges``;
``"merge"`` selects the per-edge merge of :mod:`._kernels`).  On the
degree-oriented graph (``u -> v`` iff ``(deg u, u) < (deg v, v)``, out-degrees at most
``sqrt(2m)``), with every out-list sorted by that *rank* instead of by id, a triangle
``u < v < w`` (in rank) is exactly one pair ``(v, w)`` of ``N+(u)`` with ``v`` before ``w``
and ``w`` in ``N+(v)``.  So for every vertex ``v``:

1. a group (a warp, or a block for vertices with long out-lists or much work) puts ``N+(v)``
   in a shared-memory hash table (open addressing with Fibonacci hashing, load <= 1/4; lists
   longer than the table are done in pieces);
2. for every in-edge ``u -> v`` (the transpose, from preprocessing) the part of ``N+(u)`` after
   ``v`` is looked up in the table; the group works through the concatenation of these
   segments for 32 or ``TCH_BLOCK`` in-edges at a time, each thread taking ``TCH_ITEMS``
   consecutive elements: a prefix sum of the segment lengths and one binary search of it find
   the segment of a thread's first element, the next ones step along, so short and long
   segments keep every thread busy.

The work is ``sum_u C(|N+(u)|, 2)`` look-ups, about a fifth of the per-edge merge's
``sum_(u,v) |N+(u)| + |N+(v)|`` on R-MAT graphs (R-MAT 18: 204M against 1,071M), each in
shared memory.  The unit of scheduling is a *task*: a vertex and at most
``hp.config["triangle_hash_split"]`` of its in-edges (a hub's 10^5 in-edges become many tasks,
each hashing ``N+(v)`` again, which is short for a hub).  Groups take tasks from lists sorted
by decreasing cost (look-ups plus ``hp.config["triangle_hash_edge_cost"]`` per in-edge) through
an atomic counter, so the long ones start first and the tail is short.  Counts are 64-bit with
one atomic per warp or block; per-vertex counts add one atomic per triangle corner.

Preprocessing (:func:`structure`, cached on the graph): the rank of every vertex, the out-lists
re-sorted by rank, the in-edge lists (edge ids grouped by head) and the two task lists.
Importing this module imports neither cupy nor a compiler.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .. import backend as _backend
from .._config import config
from .. import dtypes as _dt
from ..cuda_source import GROUP_SCAN, render, table_slots as _table_slots
from .._arrayops import bincount

__all__ = [
    "TCH_BLOCK",
    "TCH_BLOCK_CAP",
    "TCH_BATCH",
    "TCH_CHEAP",
    "TCH_ITEMS",
    "TCH_SPREAD",
    "TCH_WARP_CAP",
    "Structure",
    "structure",
    "tc_hash_count",
    "tc_hash_source",
]

# Compile-time constants of the two kernels (the kernels are compiled per value); the task
# split and the routing thresholds are hp.config keys: triangle_hash_split,
# triangle_hash_block_work, triangle_hash_edge_cost.

#: Threads per block of both kernels (the warp kernel runs ``TCH_BLOCK / 32`` warps a block).
TCH_BLOCK = 256
#: Out-lists up to this length fit a warp's table (:func:`table_slots` slots); vertices with
#: longer ones go to the block kernel.
TCH_WARP_CAP = 64
#: Entries of a block's table piece (:func:`table_slots`: 4096 slots, 16 KiB of int32): longer
#: out-lists are looked up in pieces of this many.  A smaller table (more blocks on an SM) or a
#: fuller one (longer probes) measured slower.
TCH_BLOCK_CAP = 1024
#: Consecutive elements of the concatenated segments a thread looks up per binary search.
TCH_ITEMS = 8
#: Warp tasks of at most :data:`TCH_CHEAP` look-ups (plus in-edge cost) are claimed this many
#: at a time.
TCH_BATCH = 16
TCH_CHEAP = 64
#: Table slots per key, at least (a power of two at least this many times the keys): the load
#: is at most ``1 / TCH_SPREAD``.
TCH_SPREAD = 4

_TEMPLATE = r"""
typedef ${IDX} idx_t;
typedef ${PTR} ptr_t;
#define FULL 0xffffffffu
#define BLOCK ${BLOCK}
#define WCAP ${WCAP}
#define BCAP ${BCAP}
#define WSLOTS ${WSLOTS}
#define BSLOTS ${BSLOTS}
#define ITEMS ${ITEMS}
#define BATCH ${BATCH}
#define SPREAD ${SPREAD}u

__device__ __forceinline__ int cas(int* a, int c, int v) { return atomicCAS(a, c, v); }
__device__ __forceinline__ long long cas(long long* a, long long c, long long v)
{
    return (long long)atomicCAS((unsigned long long*)a, (unsigned long long)c,
                                (unsigned long long)v);
}

// Fibonacci hashing: the top bits of a 32-bit product (64-bit ids folded first).
__device__ __forceinline__ unsigned slot_of(idx_t w, int shift)
{
    unsigned h = (unsigned)w;
    if (sizeof(idx_t) == 8) h ^= (unsigned)((unsigned long long)w >> 32);
    return (h * 0x9E3779B1u) >> shift;
}

// Keys are distinct vertex ids and the table is at most 1 / SPREAD full: probing ends.
__device__ __forceinline__ void h_insert(idx_t* table, int shift, unsigned mask, idx_t w)
{
    unsigned s = slot_of(w, shift);
    while (cas(table + s, (idx_t)-1, w) != (idx_t)-1) s = (s + 1) & mask;
}

__device__ __forceinline__ bool h_find(const idx_t* table, int shift, unsigned mask, idx_t w)
{
    unsigned s = slot_of(w, shift);
    while (true) {
        idx_t t = table[s];
        if (t == w) return true;
        if (t == (idx_t)-1) return false;
        s = (s + 1) & mask;
    }
}

${GROUP_SCAN}

// Triangles u -> v, u -> w, v -> w with v as the middle vertex (in rank): N+(v) goes in the
// table (piece by piece), then every element w after v in N+(u), for every in-edge u -> v
// among tedge[t0:t1] (a task's share of v's in-edges), is looked up.  Out-lists are sorted by
// rank, so "after v" is "ranked above v".  Called by all G threads of the group with the
// same v.
//
// The in-edges go G at a time; their segments (the rest of N+(u) after v) are concatenated
// and each thread takes ITEMS consecutive elements of the concatenation at a time: one binary
// search of the segment starts finds its first element's segment, the next ones step along
// (a step over a segment start reads the next start).  Offsets within the concatenation are
// 32-bit: it holds at most G segments of at most max out-degree elements (the host checks).
template <int G, int CAP>
__device__ unsigned long long count_vertex(
        idx_t v, ptr_t t0, ptr_t t1, const ptr_t* __restrict__ indptr,
        const idx_t* __restrict__ indices, const idx_t* __restrict__ erow,
        const ptr_t* __restrict__ tedge, idx_t* table, ptr_t* sh_base, int* sh_excl,
        idx_t* sh_u, long long* wsum, int tid, unsigned long long* __restrict__ pv)
{
    const ptr_t b0 = __ldg(indptr + v), b1 = __ldg(indptr + v + 1);
    unsigned long long c = 0ull;
    for (ptr_t p0 = b0; p0 < b1; p0 += CAP) {
        const ptr_t p1 = p0 + CAP < b1 ? p0 + CAP : b1;
        const unsigned len = (unsigned)(p1 - p0);
        int bits = 5;
        while ((1u << bits) < SPREAD * len) ++bits;
        const unsigned slots = 1u << bits, mask = slots - 1;
        const int shift = 32 - bits;
        for (unsigned i = tid; i < slots; i += G) table[i] = (idx_t)-1;
        gsync<G>();
        for (ptr_t i = p0 + tid; i < p1; i += G) h_insert(table, shift, mask, __ldg(indices + i));
        gsync<G>();
        for (ptr_t c0 = t0; c0 < t1; c0 += G) {
            const ptr_t j = c0 + tid;
            long long seg = 0;
            ptr_t start = 0;
            idx_t u = 0;
            if (j < t1) {
                ptr_t e = __ldg(tedge + j);
                u = __ldg(erow + e);
                start = e + 1;
                seg = (long long)(__ldg(indptr + u + 1) - start);
            }
            long long total;
            const long long incl = gscan<G>(seg, wsum, tid, &total);
            sh_excl[tid] = (int)(incl - seg);
            sh_base[tid] = start - (ptr_t)(incl - seg);   // element k of segment s: sh_base[s] + k
            sh_u[tid] = u;
            gsync<G>();
            const int cn = (int)(t1 - c0 < (ptr_t)G ? t1 - c0 : (ptr_t)G);
            const int tot = (int)total;
            for (int k0 = tid * ITEMS; k0 < tot; k0 += G * ITEMS) {
                // the last segment starting at or before k0 holds element k0 (empty segments
                // before it share its start)
                int lo = 0, hi = cn - 1;
                while (lo < hi) {
                    const int mid = (lo + hi + 1) >> 1;
                    if (sh_excl[mid] <= k0) lo = mid; else hi = mid - 1;
                }
                int next = lo + 1 < cn ? sh_excl[lo + 1] : tot;
                ptr_t base = sh_base[lo];
                const int k1 = k0 + ITEMS < tot ? k0 + ITEMS : tot;
                // all ITEMS loads issued before the first probe waits on one (8-10% faster
                // than a load and a probe per element)
                idx_t w[ITEMS];
                int own[ITEMS];
#pragma unroll
                for (int q = 0; q < ITEMS; ++q) {
                    const int k = k0 + q;
                    if (k < k1) {
                        while (k >= next) {
                            ++lo;
                            next = lo + 1 < cn ? sh_excl[lo + 1] : tot;
                            base = sh_base[lo];
                        }
                        w[q] = __ldg(indices + base + k);
                        own[q] = lo;
                    }
                }
#pragma unroll
                for (int q = 0; q < ITEMS; ++q) {
                    if (k0 + q < k1 && h_find(table, shift, mask, w[q])) {
                        ++c;
                        if (pv) {
                            atomicAdd(pv + sh_u[own[q]], 1ull);
                            atomicAdd(pv + v, 1ull);
                            atomicAdd(pv + w[q], 1ull);
                        }
                    }
                }
            }
            gsync<G>();
        }
    }
    return c;
}

// One warp per task (vertex task_v[i], in-edges tedge[task_b[i]:task_e[i]]); tasks taken in
// order through work[1], one at a time below nheavy and BATCH at a time after it (the cheap
// tail: a grid's millions of one-look-up tasks would otherwise queue on the counter's
// atomics); work[0] += triangles.
extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}_warp(
        const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const idx_t* __restrict__ erow, const ptr_t* __restrict__ tedge,
        const idx_t* __restrict__ task_v, const ptr_t* __restrict__ task_b,
        const ptr_t* __restrict__ task_e, long long nlist, long long nheavy,
        unsigned long long* __restrict__ work, unsigned long long* __restrict__ pv)
{
    __shared__ idx_t table[BLOCK / 32][WSLOTS];
    __shared__ ptr_t sh_base[BLOCK / 32][32];
    __shared__ int sh_excl[BLOCK / 32][32];
    __shared__ idx_t sh_u[BLOCK / 32][32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    unsigned long long c = 0ull;
    while (true) {
        long long i = 0;
        if (lane == 0) i = (long long)atomicAdd(work + 1, 1ull);
        i = __shfl_sync(FULL, i, 0);
        long long i1 = i + 1;
        if (i >= nheavy) {
            i = nheavy + (i - nheavy) * BATCH;
            i1 = i + BATCH < nlist ? i + BATCH : nlist;
        }
        if (i >= nlist) break;
        for (; i < i1; ++i)
            c += count_vertex<32, WCAP>(__ldg(task_v + i), __ldg(task_b + i), __ldg(task_e + i),
                                        indptr, indices, erow, tedge, table[wid], sh_base[wid],
                                        sh_excl[wid], sh_u[wid], (long long*)0, lane, pv);
    }
    for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(FULL, c, off);
    if (lane == 0 && c) atomicAdd(work, c);
}

// One block per task (as above; taken through work[2]); work[0] += triangles.
extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}_block(
        const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const idx_t* __restrict__ erow, const ptr_t* __restrict__ tedge,
        const idx_t* __restrict__ task_v, const ptr_t* __restrict__ task_b,
        const ptr_t* __restrict__ task_e, long long nlist,
        unsigned long long* __restrict__ work, unsigned long long* __restrict__ pv)
{
    __shared__ idx_t table[BSLOTS];
    __shared__ ptr_t sh_base[BLOCK];
    __shared__ int sh_excl[BLOCK];
    __shared__ idx_t sh_u[BLOCK];
    __shared__ long long wsum[BLOCK / 32];
    __shared__ unsigned long long sums[BLOCK / 32];
    __shared__ long long next;
    unsigned long long c = 0ull;
    while (true) {
        if (threadIdx.x == 0) next = (long long)atomicAdd(work + 2, 1ull);
        __syncthreads();
        const long long i = next;
        __syncthreads();
        if (i >= nlist) break;
        c += count_vertex<BLOCK, BCAP>(__ldg(task_v + i), __ldg(task_b + i), __ldg(task_e + i),
                                       indptr, indices, erow, tedge, table, sh_base, sh_excl,
                                       sh_u, wsum, threadIdx.x, pv);
    }
    for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(FULL, c, off);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) sums[wid] = c;
    __syncthreads();
    if (wid == 0) {
        c = lane < BLOCK / 32 ? sums[lane] : 0ull;
        for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(FULL, c, off);
        if (lane == 0 && c) atomicAdd(work, c);
    }
}
"""


def tc_hash_source(idx_dtype=np.int32, ptr_dtype=np.int64):
    """``(source, name prefix)`` of the hash kernels (``<prefix>_warp``, ``<prefix>_block``)."""
    idx_dtype, ptr_dtype = np.dtype(idx_dtype), np.dtype(ptr_dtype)
    name = f"hpg_tch_{idx_dtype.name}_{ptr_dtype.name}"
    src = render(_TEMPLATE, IDX=_dt.c_type(idx_dtype), PTR=_dt.c_type(ptr_dtype), NAME=name,
                 BLOCK=TCH_BLOCK, WCAP=TCH_WARP_CAP, BCAP=TCH_BLOCK_CAP, ITEMS=TCH_ITEMS,
                 BATCH=TCH_BATCH, SPREAD=TCH_SPREAD,
                 WSLOTS=table_slots(TCH_WARP_CAP), BSLOTS=table_slots(TCH_BLOCK_CAP),
                 GROUP_SCAN=GROUP_SCAN)
    return src, name


def table_slots(cap: int) -> int:
    """Slots of a table for pieces of up to ``cap`` keys (:func:`hpgraph.cuda_source.table_slots`
    at ``TCH_SPREAD``)."""
    return _table_slots(cap, TCH_SPREAD)


class Structure(NamedTuple):
    """What the hash kernels read besides ``indptr`` and ``erow`` (NumPy or CuPy arrays).

    Attributes
    ----------
    indices : array of the vertex-id dtype
        The oriented out-lists, each sorted by rank (``(degree, id)``) instead of by id.
    tptr, tedge : arrays of ``indptr``'s dtype
        In-edges: ``tedge[tptr[v]:tptr[v + 1]]`` are the positions ``e`` (in ``indices``) of
        the edges ``u -> v``.
    warp_tasks, block_tasks : (task_v, task_b, task_e)
        The tasks of each kernel, by decreasing cost: vertex ``task_v[i]`` with the in-edges
        ``tedge[task_b[i]:task_e[i]]`` (at most ``hp.config["triangle_hash_split"]`` of them; every vertex with
        work has tasks covering all its in-edges).
    work : int
        Hash look-ups of one count (``sum_u C(|N+(u)|, 2)`` over the wedges whose middle
        vertex has an out-list).
    warp_heavy : int
        The warp tasks costing more than :data:`TCH_CHEAP` (they come first); the warp kernel
        claims the rest :data:`TCH_BATCH` at a time.
    max_out : int
        The longest out-list (at most ``sqrt(2 m)`` in the degree orientation); the kernels'
        32-bit offsets hold ``TCH_BLOCK`` segments of this length.
    """

    indices: object
    tptr: object
    tedge: object
    warp_tasks: tuple
    block_tasks: tuple
    work: int
    warp_heavy: int
    max_out: int


def structure(indptr, indices, erow, n: int) -> Structure:
    """Preprocessing of the hash kernels from the id-sorted oriented CSR (NumPy or CuPy)."""
    xp = _backend.get_array_module(indices)
    m = int(indices.shape[0])
    idt, pdt = indices.dtype, indptr.dtype
    r = erow.astype(np.int64, copy=False)
    c = indices.astype(np.int64, copy=False)
    deg = bincount(xp, r, minlength=n) + bincount(xp, c, minlength=n)   # simple-graph degree
    rank = xp.empty(n, dtype=np.int64)
    rank[xp.argsort(deg.astype(np.int64) * n + xp.arange(n, dtype=np.int64))] = xp.arange(
        n, dtype=np.int64)
    # rows stay where they are (r is sorted); within a row, by the rank of the head
    perm = xp.argsort(r * n + rank[c])
    ind = indices[perm]
    cs = ind.astype(np.int64, copy=False)
    tedge = xp.argsort(cs).astype(np.int64, copy=False)
    tptr = xp.zeros(n + 1, dtype=np.int64)
    tptr[1:] = xp.cumsum(bincount(xp, cs, minlength=n))
    # look-ups per in-edge e = (u -> v): the rest of N+(u) after v; summed along tedge
    seg = indptr[1:][r].astype(np.int64) - xp.arange(1, m + 1, dtype=np.int64)
    csum = xp.zeros(m + 1, dtype=np.int64)
    if m:
        csum[1:] = xp.cumsum(seg[tedge])
    outdeg = xp.diff(indptr).astype(np.int64)
    indeg = xp.diff(tptr)
    # tasks: every vertex with an out-list, its in-edges in pieces of `split`; a hub's
    # thousands of in-edges would otherwise keep one warp busy long after the others finish
    split = config["triangle_hash_split"]
    ntask = xp.where(outdeg > 0, (indeg + split - 1) // split, 0)
    incl = xp.cumsum(ntask)
    total_tasks = int(incl[-1]) if n else 0
    k = xp.arange(total_tasks, dtype=np.int64)
    tv = xp.searchsorted(incl, k, side="right")
    tb = tptr[tv] + (k - (incl[tv] - ntask[tv])) * split
    te = xp.minimum(tb + split, tptr[tv + 1])
    items = csum[te] - csum[tb]
    cost = items + config["triangle_hash_edge_cost"] * (te - tb)
    keep = items > 0
    big = (outdeg[tv] > TCH_WARP_CAP) | (cost > config["triangle_hash_block_work"])

    def tasks(sel):
        ids = xp.flatnonzero(sel)
        ids = ids[xp.argsort(-cost[ids])]
        return tv[ids].astype(idt), tb[ids].astype(pdt), te[ids].astype(pdt)

    total = int(items[keep].sum()) if total_tasks else 0
    warp_heavy = int((keep & ~big & (cost > TCH_CHEAP)).sum()) if total_tasks else 0
    max_out = int(outdeg.max()) if n else 0
    return Structure(ind, tptr.astype(pdt), tedge.astype(pdt), tasks(keep & ~big),
                     tasks(keep & big), total, warp_heavy, max_out)


@functools.cache
def _kernels(idx_str, ptr_str, consts):
    """The two compiled kernels for these dtypes and tuning constants (``consts`` is the cache
    key: a test or a sweep that changes a constant gets its own module)."""
    src, name = tc_hash_source(idx_str, ptr_str)
    mod = _backend.raw_module(src, ("-std=c++17",))
    return mod.get_function(name + "_warp"), mod.get_function(name + "_block")


def tc_hash_count(indptr, erow, st: Structure, n: int, per_vertex: bool):
    """Run the hash kernels on the device: ``(total as a Python int, per-vertex int64 counts
    or None)``; ``indptr``/``erow`` are the oriented CSR's (cupy), ``st`` its :func:`structure`."""
    if TCH_BLOCK * (st.max_out + TCH_ITEMS) >= 2**31:
        raise NotImplementedError(
            f"the hash triangle kernels with an out-list of {st.max_out:,} vertices (their "
            f"32-bit offsets hold {TCH_BLOCK} lists of up to {2**31 // TCH_BLOCK - TCH_ITEMS - 1:,}); "
            "use hp.config['triangle_kernel'] = 'merge'")
    cp = _backend.cupy()
    warp_k, block_k = _kernels(np.dtype(st.indices.dtype).str, np.dtype(indptr.dtype).str,
                               (TCH_BLOCK, TCH_WARP_CAP, TCH_BLOCK_CAP, TCH_ITEMS, TCH_BATCH,
                                TCH_SPREAD))
    work = cp.zeros(3, dtype=cp.uint64)
    pv = cp.zeros(max(n, 1), dtype=cp.uint64) if per_vertex else None
    pv_arg = pv if pv is not None else np.uint64(0)
    sms = _backend.num_sms()
    nb, nw = int(st.block_tasks[0].shape[0]), int(st.warp_tasks[0].shape[0])
    args = (indptr, st.indices, erow, st.tedge)
    if nb:
        block_k((max(1, min(nb, sms * (2048 // TCH_BLOCK))),), (TCH_BLOCK,),
                args + st.block_tasks + (np.int64(nb), work, pv_arg))
    if nw:
        wpb = TCH_BLOCK // 32
        warp_k((max(1, min((nw + wpb - 1) // wpb, sms * (2048 // TCH_BLOCK))),), (TCH_BLOCK,),
               args + st.warp_tasks + (np.int64(nw), np.int64(st.warp_heavy), work, pv_arg))
    total = int(work[0:1].get()[0])
    if pv is not None:
        pv = pv[:n].astype(cp.int64)
    return total, pv
