"""What the single-launch traversal kernels share (:mod:`._bfs_gpu`, :mod:`._sssp_gpu`): device
code and the per-graph plan cache.

A *cooperative* launch (``cuLaunchCooperativeKernel``) guarantees that every block of the grid
is resident at once, or fails; so blocks may wait for each other in a grid-wide barrier, and a
whole traversal -- all its levels or relaxation steps, and the decisions between them -- runs
in one launch with no host round trip.  This module holds the device code both kernels use
(:data:`DEVICE_COMMON`: the barrier, a nanosecond clock, warp helpers, the warp-balanced
frontier expansion) and the host side (:class:`CoopKernel`: compile, size the grid from the
occupancy, launch on the caller's stream, turn a refused launch into
:class:`CooperativeLaunchRefused` so that the caller can fall back).

Importing this module imports neither cupy nor a compiler.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from .. import backend as _backend
from ..cuda_source import render
from ..engine.codegen import BALANCED

__all__ = ["DEVICE_COMMON", "CoopKernel", "CooperativeLaunchRefused", "fill", "null_ptr",
           "adjacency", "source_args", "PlanCache"]

#: Device code shared by the cooperative kernels (and the distributed BFS level kernels, which
#: use its warp helpers, never the barrier).  Needs ``BLOCK`` defined and, for the barrier,
#: the state words ``st[0]`` (arrivals) and ``st[1]`` (generation), which the kernels never
#: clear: the barrier resets itself.
DEVICE_COMMON = r"""
#define FULL 0xffffffffu
typedef unsigned long long u64;

__device__ __forceinline__ u64 now_ns()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Grid barrier: every block of the (cooperative, all-resident) grid arrives; the last one
// resets the counter and bumps the generation the others spin on.  Self-resetting, so the
// state words need no clearing between launches.
__device__ __forceinline__ void grid_sync(u64* st)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile u64* vs = st;
        const u64 gen = vs[1];
        __threadfence();
        if (atomicAdd(st, 1ull) == (u64)gridDim.x - 1ull) {
            atomicExch(st, 0ull);
            __threadfence();
            atomicAdd(st + 1, 1ull);
        } else {
            while (vs[1] == gen) __nanosleep(32);
        }
        __threadfence();
    }
    __syncthreads();
}

__device__ __forceinline__ u64 warp_sum(u64 x)
{
    for (int off = 16; off > 0; off >>= 1) x += __shfl_xor_sync(FULL, x, off);
    return x;
}

// Warp-collective: set bit v of bm for the lanes with `want`; lanes hitting the same word
// combine their bits first (a bottom-up warp owns one word: one atomic instead of 32).
__device__ __forceinline__ void set_bits(unsigned* bm, bool want, long long v)
{
    const long long w = want ? (v >> 5) : -1ll;
    const unsigned grp = __match_any_sync(FULL, w);
    const unsigned all = __reduce_or_sync(grp, want ? (1u << (v & 31)) : 0u);
    if (want && (int)(threadIdx.x & 31) == __ffs(grp) - 1) atomicOr(bm + w, all);
}

""" + BALANCED


class CooperativeLaunchRefused(RuntimeError):
    """The device refused a cooperative launch (not every block can be resident at once, e.g.
    under MPS limits); the caller runs its fallback instead."""


def fill(template: str, **kw) -> str:
    """``template`` with every ``${KEY}`` hole filled (:func:`hpgraph.cuda_source.render`)."""
    return render(template, **kw)


class CoopKernel:
    """One compiled cooperative kernel and its grid: ``shape = (threads per block, blocks per
    SM)``, blocks per SM capped by the occupancy.  :meth:`launch` runs it on the caller's
    stream; buffers shared between calls stay consistent because a call on another stream
    first waits for the work queued on the last one."""

    def __init__(self, source: str, name: str, shape):
        self.source = source
        self.block, per_sm = shape
        self.kernel = _backend.raw_module(source, ("-std=c++17",), cooperative=True) \
            .get_function(name)
        occ = _backend.occupancy(self.kernel, self.block)
        self.blocks = max(1, _backend.num_sms() * max(1, min(per_sm, occ)))
        self.lock = threading.Lock()
        self.stream = None
        self.refused = False

    def launch(self, args):
        cp = _backend.cupy()
        cur = cp.cuda.get_current_stream()
        if self.refused:
            raise CooperativeLaunchRefused("cooperative launch refused earlier for this graph")
        with self.lock:
            if self.stream is not None and self.stream.ptr != cur.ptr:
                cur.wait_event(self.stream.record())
            self.stream = cur
            try:
                self._launch(args)
            except Exception as exc:  # noqa: BLE001 -- only the refusals below are ours
                from cupy_backends.cuda.api.driver import CUDADriverError

                if isinstance(exc, CUDADriverError) and (
                        "COOPERATIVE_LAUNCH_TOO_LARGE" in str(exc) or "NOT_SUPPORTED" in str(exc)):
                    self.refused = True
                    raise CooperativeLaunchRefused(str(exc)) from None
                raise

    def _launch(self, args):
        self.kernel((self.blocks,), (self.block,), args)


def null_ptr():
    """A null pointer kernel argument."""
    return np.uint64(0)


def adjacency(G):
    """``(indptr, indices, values, in_indptr, in_indices, in_values)`` of a device graph: the
    out-edges (CSR of A) and in-edges (CSR of A^T, in A's index dtypes).  For a symmetric graph
    the in-edge arrays *are* the out-edge ones, which the kernels test (``ipi == ipo``).
    ``values`` are None for an unweighted graph."""
    A, AT = G.A, G.AT
    vals = A.values if G.weighted else None
    if AT is A:
        return A.indptr, A.indices, vals, A.indptr, A.indices, vals
    return (A.indptr, A.indices, vals, AT.indptr.astype(A.indptr.dtype, copy=False),
            AT.indices.astype(A.indices.dtype, copy=False),
            None if vals is None else AT.values.astype(vals.dtype, copy=False))


def source_args(cp, sources, idx_dtype):
    """Kernel arguments ``(srcs, nsrc, src0)`` for host ids ``sources``: one source goes by
    value (no upload), several as a device array."""
    if sources.shape[0] == 1:
        return null_ptr(), np.int64(1), np.int64(int(sources[0]))
    srcs = cp.asarray(sources.astype(idx_dtype))
    return srcs, np.int64(srcs.shape[0]), np.int64(0)


class PlanCache:
    """Plans (compiled kernel + buffers) kept per device graph: keyed weakly by the graph's
    matrix ``A`` (so a dead graph frees them), then by ``key``; a matrix that cannot be
    weakly referenced gets a fresh plan per call."""

    def __init__(self):
        self._plans = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, A, key, make):
        with self._lock:
            try:
                slot = self._plans.setdefault(A, {})
            except TypeError:
                return make()
            p = slot.get(key)
            if p is None:
                p = slot[key] = make()
        return p

    def clear(self):
        with self._lock:
            self._plans.clear()
