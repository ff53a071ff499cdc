"""Device form of ``reduce_rowwise`` of a CSR matrix: two generated kernels read the row
pointers directly and write the result vector in place.

The general path (:func:`._kern.reduce_segments`) first lists the non-empty rows and gathers
their starts, then lists the long rows, each list a scan and a host round trip.  Here the
output position of every non-empty row comes from one prefix sum of "row not empty", and:

* ``hp_gb_rows_short`` gives each row a group of ``G`` lanes of a warp (coalesced strides
  from the monoid's start value, then a shuffle tree: the order of
  :func:`._kern.group_segment_source`) and writes ``(row, value)`` at the row's position; a
  row longer than ``skip`` is appended to a list instead (one atomic per long row);
* ``hp_gb_rows_long`` reduces the listed rows a block each (four strided partial values per
  thread, then a shared-memory tree), reading the list's length on the device, so its grid
  is fixed and nothing waits for the host.

The host reads one number, the count of non-empty rows, after both launches.  Not for the
``any`` monoid (its identity is not neutral under "keep the second operand"): the general
path serves it.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import cuda_source
from .. import dtypes as _dt
from ..formats._base import counts_to_indptr
from ._gpu_common import kernel
from ._kern import LONG_SEGMENT, cast, neutral

__all__ = ["rows_source", "reduce_rows"]

_I64 = np.dtype(np.int64)

#: blocks of ``hp_gb_rows_long``: enough for every multiprocessor of a large GPU; each loops
#: over the listed rows
LONG_BLOCKS = 1024
#: threads of a ``hp_gb_rows_long`` block (one H100, R-MAT 21's 7,547 rows over 1,024
#: entries, 24.2M entries: 256 threads 0.241 ms, 512 0.141, 512 with four partial values
#: per thread 0.093)
LONG_THREADS = 512


def lanes(nnz: int, n: int) -> int:
    """Lanes of a warp per row in ``hp_gb_rows_short``: the power of two (2..32) nearest
    above a quarter of the mean row length, so a lane reads about four values (R-MAT 21,
    mean 30: 8 lanes 0.219 ms, 16 0.276, 32 0.410 on an H200)."""
    g = 2
    while g < 32 and 4 * g < nnz / max(n, 1):
        g <<= 1
    return g


_ROWS = r"""$PREAMBLE
#define G $G
typedef $P ptr_t;
typedef $T val_t;

// rows of at most `skip` entries: G lanes each; a non-empty row s is written at pos[s];
// longer rows are appended to `longs` for hp_gb_rows_long
extern "C" __global__ void hp_gb_rows_short(const ptr_t* __restrict__ P,
        const val_t* __restrict__ V, const long long* __restrict__ pos, long long n,
        long long skip, long long* __restrict__ oidx, val_t* __restrict__ oval,
        long long* __restrict__ longs, unsigned long long* __restrict__ nlong)
{
    const int lane = threadIdx.x & 31, sub = lane & (G - 1);
    const long long per_warp = 32 / G;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long base = warp * per_warp; base < n; base += nwarps * per_warp) {
        const long long s = base + (lane / G);
        long long b = 0, e = 0;
        if (s < n) {
            b = (long long)P[s];
            e = (long long)P[s + 1];
            if (e - b > skip) {                 // a block reduces it
                if (sub == 0) longs[atomicAdd(nlong, 1ull)] = s;
                e = b;
            }
        }
        val_t acc = $NEUTRAL;
        for (long long k = b + sub; k < e; k += G) {
            val_t v = V[k];
            acc = (val_t)($ADD);
        }
        for (int off = G / 2; off > 0; off >>= 1) {     // every lane of the warp gets here
            val_t o = $SHFL;
            acc = (val_t)($ADD_O);
        }
        if (sub == 0 && e > b) {
            const long long p = pos[s];
            oidx[p] = s;
            oval[p] = acc;
        }
    }
}

// the listed rows, a block of LT threads each; every thread keeps four partial values, so
// four loads are in flight per thread (with one accumulator, 512 threads took 1.5x as long
// on R-MAT 21's hub rows)
extern "C" __global__ void hp_gb_rows_long(const ptr_t* __restrict__ P,
        const val_t* __restrict__ V, const long long* __restrict__ pos,
        const long long* __restrict__ longs, const unsigned long long* __restrict__ nlong,
        long long* __restrict__ oidx, val_t* __restrict__ oval)
{
    __shared__ val_t sh[$LT];
    const long long nl = (long long)*nlong;
    const long long step = blockDim.x;
    for (long long i = blockIdx.x; i < nl; i += gridDim.x) {
        const long long s = longs[i];
        const long long b = (long long)P[s], e = (long long)P[s + 1];
        val_t acc = $NEUTRAL, acc1 = $NEUTRAL, acc2 = $NEUTRAL, acc3 = $NEUTRAL;
        for (long long k = b + threadIdx.x; k < e; k += 4 * step) {
            val_t v = V[k];
            acc = (val_t)($ADD);
            if (k + step < e) { val_t v1 = V[k + step]; acc1 = (val_t)($ADD1); }
            if (k + 2 * step < e) { val_t v2 = V[k + 2 * step]; acc2 = (val_t)($ADD2); }
            if (k + 3 * step < e) { val_t v3 = V[k + 3 * step]; acc3 = (val_t)($ADD3); }
        }
        {
            val_t l = acc, r = acc1;
            acc = (val_t)($ADD_LR);
            l = acc2;
            r = acc3;
            acc2 = (val_t)($ADD_LR);
            l = acc;
            r = acc2;
            acc = (val_t)($ADD_LR);
        }
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (threadIdx.x < w) {
                val_t l = sh[threadIdx.x];
                val_t r = sh[threadIdx.x + w];
                sh[threadIdx.x] = (val_t)($ADD_LR);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            const long long p = pos[s];
            oidx[p] = s;
            oval[p] = sh[0];
        }
        __syncthreads();
    }
}
"""


@functools.lru_cache(maxsize=256)
def rows_source(monoid, ptr_dtype, group: int, threads: int = LONG_THREADS) -> str:
    """Source of ``hp_gb_rows_short`` (``group`` lanes per row, a power of two 2..32) and
    ``hp_gb_rows_long`` (launched with ``threads``, a power of two: its shared array's size)
    for ``monoid`` (not ``any``) and row pointers of ``ptr_dtype`` (cached: rendering took
    ~0.03-0.12 ms of host time per call, during which the device idled; typed operators hash
    and compare by their key, which covers everything the source depends on)."""
    t = _dt.c_type(monoid.dtype)
    narrow = np.dtype(monoid.dtype).itemsize < 4
    shfl = (f"({t})__shfl_down_sync(0xffffffffu, (int)acc, off)" if narrow else
            "__shfl_down_sync(0xffffffffu, acc, off)")
    return cuda_source.render(_ROWS, PREAMBLE=monoid.c_preamble, G=int(group),
                              P=_dt.c_type(np.dtype(ptr_dtype)), T=t, NEUTRAL=neutral(monoid),
                              SHFL=shfl, ADD=monoid.c_add("acc", "v"),
                              ADD_O=monoid.c_add("acc", "o"), ADD_LR=monoid.c_add("l", "r"),
                              ADD1=monoid.c_add("acc1", "v1"), ADD2=monoid.c_add("acc2", "v2"),
                              ADD3=monoid.c_add("acc3", "v3"), LT=int(threads))


def reduce_rows(xp, indptr, values, monoid, skip: int = LONG_SEGMENT):
    """``(rows, vals)``: the non-empty rows (int64) of the CSR row pointers ``indptr`` (int32
    or int64) and ``monoid`` over each row's ``values`` (device arrays; ``monoid`` typed, not
    ``any``).  Rows longer than ``skip`` (>= 0) are reduced a block each."""
    if skip < 0:
        raise ValueError(f"skip must be >= 0, got {skip}")
    n = int(indptr.shape[0]) - 1
    nnz = int(values.shape[0])
    vals = xp.ascontiguousarray(cast(values, monoid.dtype, xp))
    pos = counts_to_indptr(xp, indptr[1:] != indptr[:-1], _I64)
    oidx = xp.empty(n, dtype=_I64)
    oval = xp.empty(n, dtype=monoid.dtype)
    if n and nnz:
        g = lanes(nnz, n)
        threads = LONG_THREADS
        src = rows_source(monoid, np.dtype(indptr.dtype), g, threads)
        longs = xp.empty(nnz // (skip + 1) + 1, dtype=_I64)
        nlong = xp.zeros(1, dtype=np.uint64)
        grid = max(1, min(-(-n // (256 // g)), 65535 * 4))
        kernel(src, "hp_gb_rows_short")((grid,), (256,), (indptr, vals, pos, np.int64(n),
                                                            np.int64(skip), oidx, oval, longs, nlong))
        kernel(src, "hp_gb_rows_long")((min(LONG_BLOCKS, longs.shape[0]),), (threads,),
                                        (indptr, vals, pos, longs, nlong, oidx, oval))
    m = int(pos[-1])
    if m < n // 2:              # few non-empty rows: do not keep n-long buffers alive
        return oidx[:m].copy(), oval[:m].copy()
    return oidx[:m], oval[:m]
