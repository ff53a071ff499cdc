"""Device kernels of the chunked CSR build: the id range, the degree count and an unordered
scatter.

Both read one chunk of edges ``(u, v[, w])`` as it is (no interleaved copy for undirected
graphs) and use 64-bit atomics on the per-row counters, so they work past 2**31 entries.  The
scatter places entries in an arbitrary order within each row; the build uses it only when the
order of equal entries cannot change the result (no values; ``min``/``max``; integer ``sum``;
``keep`` without values).  Otherwise the stable chunk scatter of :mod:`._build` runs.
"""

from __future__ import annotations

import numpy as np

from .. import backend, cuda_source, dtypes

#: The kernels' sources (:func:`hpgraph.cuda_source.render` fills the ``$`` holes).  The
#: count and the scatter walk the chunk's edges alike (``$LOOP``).
_LOOP = """
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x) {
        const long long a = (long long)u[i], b = (long long)v[i];
        if (drop && a == b) continue;
"""

_COUNT = """extern "C" __global__ void $NAME(const $ID* __restrict__ u, const $ID* __restrict__ v,
    unsigned long long* counts, long long k, int undirected, int drop)
{${LOOP}        atomicAdd(&counts[a], 1ULL);
        if (undirected && a != b) atomicAdd(&counts[b], 1ULL);
    }
}
"""

_SCATTER = """extern "C" __global__ void $NAME(const $ID* __restrict__ u, const $ID* __restrict__ v,
    ${WPARAMS}unsigned long long* cursor, $OUT* cols, long long k, int undirected, int drop)
{${LOOP}        unsigned long long p = atomicAdd(&cursor[a], 1ULL); cols[p] = ($OUT)b;$PUT_W
        if (undirected && a != b) {
            p = atomicAdd(&cursor[b], 1ULL); cols[p] = ($OUT)a;$PUT_W
        }
    }
}
"""

_ID_RANGE = """extern "C" __global__ void $NAME(const $SRC* __restrict__ u, const $DST* __restrict__ v,
    long long su, long long sv, long long k, long long* out)
{
    long long lo = 0x7fffffffffffffffLL, hi = -0x7fffffffffffffffLL - 1;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x) {
        const long long a = (long long)u[i * su], b = (long long)v[i * sv];
        lo = min(lo, min(a, b));
        hi = max(hi, max(a, b));
    }
    for (int off = 16; off > 0; off >>= 1) {
        lo = min(lo, __shfl_down_sync(0xffffffffu, lo, off));
        hi = max(hi, __shfl_down_sync(0xffffffffu, hi, off));
    }
    if ((threadIdx.x & 31) == 0) { atomicMin(out, lo); atomicMax(out + 1, hi); }
}
"""


def count_source(id_ctype: str) -> tuple:
    """``(source, name)`` of the degree-count kernel for ids of C type ``id_ctype``."""
    name = "hpg_build_count_" + id_ctype.replace(" ", "_")
    return cuda_source.render(_COUNT, NAME=name, ID=id_ctype, LOOP=_LOOP), name


def scatter_source(id_ctype: str, out_ctype: str, val_ctype: str | None) -> tuple:
    """``(source, name)`` of the unordered scatter: each entry goes to ``atomicAdd(cursor[row])``."""
    tag = "_".join(t.replace(" ", "_") for t in (id_ctype, out_ctype, val_ctype or "none"))
    name = "hpg_build_scatter_" + tag
    wparams = "" if val_ctype is None else f"const {val_ctype}* __restrict__ w, {val_ctype}* vals, "
    put_w = "" if val_ctype is None else " vals[p] = w[i];"
    return cuda_source.render(_SCATTER, NAME=name, ID=id_ctype, OUT=out_ctype, WPARAMS=wparams,
                              PUT_W=put_w, LOOP=_LOOP), name


def id_range_source(src_ctype: str, dst_ctype: str) -> tuple:
    """``(source, name)`` of the id-range kernel: min and max over both id arrays in one pass.

    One kernel of hpgraph's instead of CuPy's ``min``/``max``: past 2**31 elements CuPy compiles
    a 64-bit-index variant of each reduction on first use (about 6.5 s of NVRTC for the four
    reductions of an R-MAT 27 edge list on an H200, against 1.8 s for the whole build), and one
    pass reads the edges once instead of four times.
    """
    name = "hpg_build_id_range_" + "_".join(t.replace(" ", "_") for t in (src_ctype, dst_ctype))
    return cuda_source.render(_ID_RANGE, NAME=name, SRC=src_ctype, DST=dst_ctype), name


def id_range(cp, u, v) -> tuple:
    """``(min, max)`` over the ids of ``u`` and ``v`` (1-D device arrays of one length, any
    strides -- columns of an ``(m, 2)`` array --, signed or unsigned integers of at most 32 bits
    or int64), as Python ints; ``(0, -1)`` when empty."""
    k = int(u.shape[0])
    if k == 0:
        return 0, -1
    src, name = id_range_source(dtypes.c_type(u.dtype), dtypes.c_type(v.dtype))
    kern = backend.raw_module(src).get_function(name)
    out = cp.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], dtype=np.int64)
    grid, block = _grid(k)
    # element strides (a view's data pointer is its first element; negative strides work too)
    su, sv = (np.int64(a.strides[0] // a.dtype.itemsize) for a in (u, v))
    kern(grid, block, (u, v, su, sv, np.int64(k), out))
    lo, hi = (int(x) for x in out.get())
    return lo, hi


def _grid(k: int):
    threads = 256
    return (max(1, min((k + threads - 1) // threads, backend.num_sms() * 32)),), (threads,)


def count(cp, counts, u, v, directed: bool, drop: bool):
    """Add the chunk's entries per row to ``counts`` (int64, one per vertex) on the device."""
    k = int(u.shape[0])
    if k == 0:
        return
    src, name = count_source(dtypes.c_type(u.dtype))
    kern = backend.raw_module(src).get_function(name)
    grid, block = _grid(k)
    kern(grid, block, (u, v, counts, np.int64(k), np.int32(not directed), np.int32(drop)))


def scatter(cp, cursor, u, v, w, cols, vals, directed: bool, drop: bool):
    """Place the chunk's entries at their rows' cursors (any order within a row)."""
    k = int(u.shape[0])
    if k == 0:
        return
    vct = None if vals is None else dtypes.c_type(vals.dtype)
    src, name = scatter_source(dtypes.c_type(u.dtype), dtypes.c_type(cols.dtype), vct)
    kern = backend.raw_module(src).get_function(name)
    grid, block = _grid(k)
    flags = (np.int64(k), np.int32(not directed), np.int32(drop))
    if vals is None:
        kern(grid, block, (u, v, cursor, cols, *flags))
    else:
        kern(grid, block, (u, v, cp.ascontiguousarray(w.astype(vals.dtype, copy=False)), vals, cursor, cols,
                           *flags))


def order_free(duplicates: str, vdt) -> bool:
    """True when the order of a row's entries before the row sort cannot change the result."""
    if vdt is None:
        return True
    return duplicates in ("min", "max") or (duplicates == "sum" and np.dtype(vdt).kind in "iub")
