"""Value kernels of the GraphBLAS operations, one per backend.

Every operation in :mod:`hpgraph.graphblas` moves indices with array functions that NumPy and
CuPy share (sort, searchsorted, cumsum, gather); only the places where an operator meets the
values come here:

* :func:`binary` -- ``z = op(x, y[, i, j])`` elementwise;
* :func:`reduce_segments` -- a monoid over consecutive segments;
* :func:`cast` -- a conversion with C rules (integers wrap, anything to bool is ``!= 0``).

On the host they call the operator's NumPy form (``TypedBinaryOp.np_call``,
``TypedMonoid.np_reduce_segments``).  On the device they compile the operator's CUDA C
expression (``c_expr``/``c_add``, the same text the mxv kernels use) into a small CUDA kernel
(:func:`binary_source`, :func:`segment_source`; cached per operator), so built-in and
user-defined operators run there without a host round trip.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import cuda_source
from .. import dtypes as _dt
from ..compiler import _numerics as _n

__all__ = ["binary", "reduce_segments", "cast", "binary_source", "segment_source",
           "block_segment_source", "group_segment_source", "group_size", "neutral",
           "LONG_SEGMENT"]

#: Segments longer than this are reduced by a block each on the device, shorter ones by a
#: group of a warp's lanes; either way their operands are combined in a tree rather than
#: left to right (``any``: a thread per segment takes its first value).
LONG_SEGMENT = 1024
#: values per block when a few long segments are cut into pieces (:func:`_pieces`)
PIECE = 1 << 16


def _is_host(xp) -> bool:
    return xp is np


# ---------------------------------------------------------------------------------------
# casts


def cast(a, dtype, xp):
    """``a`` as ``dtype`` with C conversion rules (no copy when it already is)."""
    dtype = np.dtype(dtype)
    if a.dtype == dtype:
        return a
    if _is_host(xp):
        return _n.np_wrap_cast(a, dtype)
    if dtype.kind == "b":
        return a != 0
    return a.astype(dtype)


# ---------------------------------------------------------------------------------------
# CUDA sources (compiled on the device; CI compiles them with NVRTC alone)


_BINARY = """$PREAMBLE
extern "C" __global__ void $NAME(const $TIN* __restrict__ X, const $TIN* __restrict__ Y, $IDX
                                  $TOUT* __restrict__ Z, long long n) {
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (; k < n; k += stride) {
        $TIN xv = X[k]; $TIN yv = Y[k]; $IJ
        (void)iv; (void)jv; (void)xv; (void)yv;
        Z[k] = ($TOUT)($EXPR);
    }
}
"""


def binary_source(op, index: bool) -> tuple[str, str]:
    """(source, kernel name) of ``z[k] = op(x[k], y[k], i[k], j[k])`` over ``n`` entries."""
    name = "hp_gb_binary"
    idx = "const long long* __restrict__ I, const long long* __restrict__ J, " if index else ""
    ij = "long long iv = I[k]; long long jv = J[k];" if index else "long long iv = 0, jv = 0;"
    src = cuda_source.render(_BINARY, PREAMBLE=op.c_preamble, NAME=name, IDX=idx, IJ=ij,
                             TIN=_dt.c_type(op.in_dtype), TOUT=_dt.c_type(op.out_dtype),
                             EXPR=op.c_expr("xv", "yv", "iv", "jv"))
    return src, name


_SEGMENT = """$PREAMBLE
extern "C" __global__ void $NAME(const $T* __restrict__ V, const long long* __restrict__ S,
                                  $T* __restrict__ out, long long nseg, long long skip) {
    long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (; s < nseg; s += stride) {
        long long b = S[s], e = S[s + 1];
        if (e - b > skip) continue;
        $T acc = V[b];
        for (long long k = b + 1; k < e; ++k) {
            $BRK
            $T v = V[k];
            acc = ($T)($ADD);
        }
        out[s] = acc;
    }
}
"""


def segment_source(monoid) -> tuple[str, str]:
    """(source, kernel name) reducing ``vals[starts[s] : starts[s + 1]]`` into ``out[s]``.

    One thread per segment, operands combined left to right (the order of the host path);
    segments longer than ``skip`` are left alone (a block each reduces them).
    """
    name = "hp_gb_segment_reduce"
    term = monoid.c_is_terminal("acc")
    if term == "true":  # the any monoid: the first value of the segment (as on the host)
        brk = "break;"
    else:
        brk = f"if ({term}) break;" if term is not None else ""
    src = cuda_source.render(_SEGMENT, PREAMBLE=monoid.c_preamble, NAME=name,
                             T=_dt.c_type(monoid.dtype), BRK=brk, ADD=monoid.c_add("acc", "v"))
    return src, name


def neutral(monoid) -> str:
    """C literal of a start value the combine of ``monoid`` leaves unchanged: its identity,
    except a NaN for float ``min`` / ``max`` (``fmin`` / ``fmax`` ignore a NaN operand, so a
    reduction of only NaNs stays NaN, as on the host; the identity +-inf would replace it).
    The NaN is positive for ``min`` and negative for ``max``: the bit-pattern atomics of those
    monoids (integer min / max on the sign-split bits) then treat it as the worst value."""
    dt = np.dtype(monoid.dtype)
    builtin = getattr(getattr(monoid, "parent", None), "is_builtin", False)
    if dt.kind != "f" or monoid.name not in ("min", "max") or not builtin:
        return monoid.c_identity
    neg = monoid.name == "max"
    if dt.itemsize == 4:
        return f"__int_as_float((int){0xffc00000 if neg else 0x7fc00000:#x}u)"
    if dt.itemsize == 8:
        bits = 0xfff8000000000000 if neg else 0x7ff8000000000000
        return f"__longlong_as_double((long long){bits:#x}ull)"
    return monoid.c_identity


_GROUP = """$PREAMBLE
#define G $G
extern "C" __global__ void $NAME(const $T* __restrict__ V, const long long* __restrict__ S,
                                  $T* __restrict__ out, long long nseg, long long skip) {
    const int lane = threadIdx.x & 31, sub = lane & (G - 1);
    const long long per_warp = 32 / G;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long base = warp * per_warp; base < nseg; base += nwarps * per_warp) {
        const long long s = base + (lane / G);
        long long b = 0, e = 0;
        bool mine = false;                      // s is this group's to write
        if (s < nseg) {
            b = S[s];
            e = S[s + 1];
            mine = e - b <= skip;
            if (!mine) e = b;                   // a block reduces it
        }
        $T acc = $NEUTRAL;
        for (long long k = b + sub; k < e; k += G) {
            $T v = V[k];
            acc = ($T)($ADD);
        }
        for (int off = G / 2; off > 0; off >>= 1) {
            $T o = $SHFL;
            acc = ($T)($ADD_O);
        }
        if (sub == 0 && mine) out[s] = acc;
    }
}
"""

_BLOCK = """$PREAMBLE
extern "C" __global__ void $NAME(const $T* __restrict__ V, const long long* __restrict__ S,
                                  $T* __restrict__ out, long long nseg,
                                  const long long* __restrict__ ids) {
    __shared__ $T sh[256];
    for (long long i = blockIdx.x; i < nseg; i += gridDim.x) {
        const long long s = ids ? ids[i] : i;
        long long b = S[s], e = S[s + 1];
        $T acc = $NEUTRAL;
        for (long long k = b + threadIdx.x; k < e; k += blockDim.x) {
            $T v = V[k];
            acc = ($T)($ADD);
        }
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (threadIdx.x < w) {
                $T l = sh[threadIdx.x];
                $T r = sh[threadIdx.x + w];
                sh[threadIdx.x] = ($T)($ADD_LR);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) out[s] = sh[0];
        __syncthreads();
    }
}
"""


def group_segment_source(monoid, group: int) -> tuple[str, str]:
    """(source, kernel name) reducing segment ``s`` with a group of ``group`` lanes of a warp
    (a power of two, 2..32): the lanes read the segment in coalesced strides from the monoid's
    start value (:func:`neutral`), then a shuffle tree; segments longer than ``skip`` are left
    alone (a block each reduces them).  The trip counts are warp-uniform (every lane reaches
    every shuffle).  Not for ``any`` (its identity is not neutral under "keep the second
    operand")."""
    t = _dt.c_type(monoid.dtype)
    name = "hp_gb_group_reduce"
    narrow = np.dtype(monoid.dtype).itemsize < 4
    shfl = (f"({t})__shfl_down_sync(0xffffffffu, (int)acc, off)" if narrow else
            "__shfl_down_sync(0xffffffffu, acc, off)")
    src = cuda_source.render(_GROUP, PREAMBLE=monoid.c_preamble, G=int(group), NAME=name, T=t,
                             NEUTRAL=neutral(monoid), SHFL=shfl, ADD=monoid.c_add("acc", "v"),
                             ADD_O=monoid.c_add("acc", "o"))
    return src, name


def group_size(nvals: int, nseg: int) -> int:
    """Lanes per segment for :func:`group_segment_source`: about half the mean segment length,
    a power of two from 2 to 32."""
    mean = nvals / max(nseg, 1)
    g = 2
    while g < 32 and 2 * g < mean:
        g <<= 1
    return g


def block_segment_source(monoid) -> tuple[str, str]:
    """(source, kernel name) reducing segment ``ids[s]`` (``ids`` null: ``s``) with one block
    of 256 threads (long segments: a scalar reduction, hub rows of a skewed matrix): strided
    partial reductions from the monoid's identity, then a shared-memory tree.  Not for ``any``
    (its identity is not neutral under "keep the second operand")."""
    t = _dt.c_type(monoid.dtype)
    name = "hp_gb_block_reduce"
    src = cuda_source.render(_BLOCK, PREAMBLE=monoid.c_preamble, NAME=name, T=t,
                             NEUTRAL=neutral(monoid), ADD=monoid.c_add("acc", "v"),
                             ADD_LR=monoid.c_add("l", "r"))
    return src, name


@functools.lru_cache(maxsize=256)
def _kernel(src: str, name: str):
    from ..backend import raw_module

    return raw_module(src).get_function(name)


def _launch(kernel, n: int, args):
    """``kernel`` over ``n`` items: blocks of 256 threads, a grid-stride loop past 262,140."""
    block = 256
    grid = max(1, min((int(n) + block - 1) // block, 65535 * 4))
    kernel((grid,), (block,), args)


# ---------------------------------------------------------------------------------------
# public entry points


def binary(op, x, y, xp, i=None, j=None):
    """``op(x, y)`` elementwise (``x``/``y`` arrays of one length, or a 0-d scalar for one of
    them); index operators also read ``i`` (row) and ``j`` (column / contracted index)."""
    if _is_host(xp):
        if op.is_index_op:
            return op.np_call(x, y, i, j)
        return op.np_call(x, y)
    # the length of the array operand(s): a 0-d scalar broadcasts to it, also to length 0
    sizes = [int(a.size) for a in (x, y) if getattr(a, "ndim", 0) != 0]
    n = sizes[0] if sizes else 1
    xd = xp.broadcast_to(cast(xp.asarray(x), op.in_dtype, xp), (n,))
    yd = xp.broadcast_to(cast(xp.asarray(y), op.in_dtype, xp), (n,))
    xd, yd = xp.ascontiguousarray(xd), xp.ascontiguousarray(yd)
    z = xp.empty(n, dtype=op.out_dtype)
    if n == 0:
        return z
    src, name = binary_source(op, op.is_index_op)
    k = _kernel(src, name)
    if op.is_index_op:
        ii = xp.ascontiguousarray(xp.broadcast_to(xp.asarray(i, dtype=np.int64), (n,)))
        jj = xp.ascontiguousarray(xp.broadcast_to(xp.asarray(j, dtype=np.int64), (n,)))
        _launch(k, n, (xd, yd, ii, jj, z, np.int64(n)))
    else:
        _launch(k, n, (xd, yd, z, np.int64(n)))
    return z


def _pieces(monoid, vals, bounds, nseg, src, name, xp):
    """:func:`reduce_segments` of segments longer than :data:`PIECE` on average: a block per
    piece of at most PIECE values, then each segment's pieces (a block per whole segment
    leaves all but a few SMs idle when the segments are few: one block read 31.7M int64
    values in 30-40 ms on an H200, a block per piece and a second pass took ~1 ms)."""
    from ._keys import repeat_index

    n = int(vals.shape[0])
    npiece = (bounds[1:] - bounds[:-1] + PIECE - 1) // PIECE
    owner = repeat_index(xp, npiece)                # each piece's segment
    first = xp.cumsum(npiece) - npiece              # each segment's first piece
    p = int(owner.shape[0])
    pbounds = xp.empty(p + 1, dtype=np.int64)
    pbounds[:-1] = bounds[owner] + (xp.arange(p, dtype=np.int64) - first[owner]) * PIECE
    pbounds[-1] = n
    part = xp.empty(p, dtype=monoid.dtype)
    _kernel(src, name)((min(p, 65535),), (256,), (vals, pbounds, part, np.int64(p),
                                                  np.uint64(0)))
    return reduce_segments(monoid, part, first, xp)


def reduce_segments(monoid, vals, starts, xp):
    """Monoid reduction of consecutive segments of ``vals`` starting at ``starts`` (strictly
    increasing, ``starts[0] == 0``; every segment non-empty)."""
    if _is_host(xp):
        return monoid.np_reduce_segments(vals, starts)
    vals = xp.ascontiguousarray(cast(vals, monoid.dtype, xp))
    nseg = int(starts.shape[0])
    out = xp.empty(nseg, dtype=monoid.dtype)
    if nseg == 0:
        return out
    bounds = xp.empty(nseg + 1, dtype=np.int64)
    bounds[:-1] = starts
    bounds[-1] = vals.shape[0]
    none = np.uint64(0)
    if not monoid.terminal_any and vals.shape[0] >= 64 * nseg:
        # long segments: one block each (a thread per segment would walk them serially)
        src, name = block_segment_source(monoid)
        n = int(vals.shape[0])
        if nseg < n // PIECE:
            return _pieces(monoid, vals, bounds, nseg, src, name, xp)
        _kernel(src, name)((min(nseg, 65535),), (256,), (vals, bounds, out, np.int64(nseg), none))
        return out
    skip = np.int64(-1 if monoid.terminal_any else LONG_SEGMENT)
    if skip < 0:
        # any: a thread per segment takes its first value
        src, name = segment_source(monoid)
        _launch(_kernel(src, name), nseg, (vals, bounds, out, np.int64(nseg),
                                           np.int64(np.iinfo(np.int64).max)))
    else:
        # lanes of a warp per segment, reading it coalesced (a thread walking its own segment
        # reads one scattered word per step)
        g = group_size(int(vals.shape[0]), nseg)
        src, name = group_segment_source(monoid, g)
        per_block = 256 // g
        grid = max(1, min(-(-nseg // per_block), 65535 * 4))
        _kernel(src, name)((grid,), (256,), (vals, bounds, out, np.int64(nseg), skip))
    if skip >= 0:
        # the few long segments (hub rows), which the kernel above skipped: a block each
        long_ids = xp.flatnonzero((bounds[1:] - bounds[:-1]) > skip)
        if long_ids.shape[0]:
            src, name = block_segment_source(monoid)
            _kernel(src, name)((min(int(long_ids.shape[0]), 65535),), (256,),
                               (vals, bounds, out, np.int64(long_ids.shape[0]), long_ids))
    return out
