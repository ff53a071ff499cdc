"""Unmasked SpGEMM on the device as generated CUDA kernels: ``C = A (+).(x) B`` over any
semiring whose add monoid has an atomic form (:meth:`hpgraph.ops.TypedMonoid.c_atomic_body`).

Gustavson's row-wise product with a per-row *bitmap* accumulator in shared memory, one
block of :data:`BLOCK` threads per row of ``A`` (warps over the row's entries ``A[i, k]``,
lanes over row ``k`` of ``B``):

1. **count** (``<name>_count``): set the bit of every product's column, then count the bits:
   the exact number of entries of output row ``i``;
2. **scan** (CuPy ``cumsum``): the output's row pointers; the output is allocated once, exactly;
3. **fill** (``<name>_fill``): set the bits again, prefix-count them (per group of 8 words,
   a block scan), write the row's column indices in ascending order with the add monoid's
   identity, then combine every product into its slot (the rank of its column's bit) with the
   monoid's atomic.

Columns are taken in tiles of ``32 * WORDS`` (``WORDS`` <= :data:`MAX_WORDS` 32-bit words,
32 KiB of bitmap: 262,144 columns per tile), so the temporaries are a few KiB of shared
memory per block whatever the product's size: memory is the output plus one count per row.
Rows come out sorted and duplicate-free (bit order), so the result is a canonical CSR without a
sort.  Floating-point sums combine in the order the atomics land (not the host's ascending
``k``); exact for integers and for sums that are exact in the dtype.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..cuda_source import render
from ._gpu_common import COMMON, kernel, reads_operand, semiring_slots

__all__ = ["SPGEMM_SOURCE", "spgemm_source", "spgemm_gpu", "applies", "BLOCK", "MAX_WORDS"]

#: threads per block (one block per output row)
BLOCK = 256
#: bitmap words per column tile (32 KiB of shared memory: 262,144 columns)
MAX_WORDS = 8192
#: words per prefix group (the rank of a column adds at most GROUP - 1 word popcounts)
GROUP = 8

SPGEMM_SOURCE = COMMON + r"""
typedef ${AI} ai_t;   // A's indptr / indices
typedef ${BI} bi_t;   // B's indptr / indices
typedef ${OI} oi_t;   // the output's column indices
#define WORDS ${WORDS}
#define GROUP ${GROUP}
#define NGROUPS (WORDS / GROUP)
#define BLOCK ${BLOCK}
#define TILE (32LL * WORDS)

// inclusive block scan of v over the BLOCK threads (red: BLOCK slots); *total = the sum
__device__ long long block_scan(long long v, long long* red, long long* total) {
    red[threadIdx.x] = v;
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        long long t = (int)threadIdx.x >= off ? red[threadIdx.x - off] : 0;
        __syncthreads();
        red[threadIdx.x] += t;
        __syncthreads();
    }
    long long inc = red[threadIdx.x];
    *total = red[BLOCK - 1];
    __syncthreads();
    return inc;
}

// the range of row k of B whose columns fall in the tile [c0, c0 + TILE)
__device__ __forceinline__ void tile_range(const bi_t* __restrict__ bptr,
                                           const bi_t* __restrict__ bidx, long long k,
                                           long long c0, bool tiled, long long& q0,
                                           long long& q1) {
    q0 = bptr[k];
    q1 = bptr[k + 1];
    if (tiled) {
        q0 = lower_bound(bidx, q0, q1, c0);
        q1 = lower_bound(bidx, q0, q1, c0 + TILE);
    }
}

// bits of the columns (in the tile) of row r's products
__device__ void mark(const ai_t* __restrict__ aidx, long long a0, long long a1,
                     const bi_t* __restrict__ bptr, const bi_t* __restrict__ bidx,
                     long long c0, bool tiled, unsigned int* bits) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long p = a0 + warp; p < a1; p += BLOCK / 32) {
        long long q0, q1;
        tile_range(bptr, bidx, (long long)aidx[p], c0, tiled, q0, q1);
        for (long long q = q0 + lane; q < q1; q += 32) {
            long long c = (long long)bidx[q] - c0;
            atomicOr(&bits[c >> 5], 1u << (c & 31));
        }
    }
}

__device__ __forceinline__ void clear(unsigned int* bits) {
    for (int w = threadIdx.x; w < WORDS; w += BLOCK) bits[w] = 0u;
}

// cnt[r - r0] = entries of output row r, rows r0 <= r < r1 (one block per row)
extern "C" __global__ void ${NAME}_count(
        const ai_t* __restrict__ aptr, const ai_t* __restrict__ aidx,
        const bi_t* __restrict__ bptr, const bi_t* __restrict__ bidx,
        long long r0, long long r1, long long ncols, long long* __restrict__ cnt) {
    __shared__ unsigned int bits[WORDS];
    __shared__ long long red[BLOCK];
    const bool tiled = ncols > TILE;
    for (long long r = r0 + blockIdx.x; r < r1; r += gridDim.x) {
        long long a0 = aptr[r], a1 = aptr[r + 1];
        long long total = 0;
        if (a0 < a1) {
            for (long long c0 = 0; c0 < ncols; c0 += TILE) {
                clear(bits);
                __syncthreads();
                mark(aidx, a0, a1, bptr, bidx, c0, tiled, bits);
                __syncthreads();
                long long local = 0;
                for (int w = threadIdx.x; w < WORDS; w += BLOCK) local += __popc(bits[w]);
                long long t;
                block_scan(local, red, &t);
                total += t;
            }
        }
        if (threadIdx.x == 0) cnt[r - r0] = total;
    }
}

// Output rows r0 <= r < r1: columns (ascending) and values at optr[r] .. optr[r + 1].
extern "C" __global__ void ${NAME}_fill(
        const ai_t* __restrict__ aptr, const ai_t* __restrict__ aidx, const av_t* __restrict__ aval,
        const bi_t* __restrict__ bptr, const bi_t* __restrict__ bidx, const bv_t* __restrict__ bval,
        long long r0, long long r1, long long ncols, const long long* __restrict__ optr,
        oi_t* __restrict__ oidx, z_t* __restrict__ oval) {
    __shared__ unsigned int bits[WORDS];
    __shared__ unsigned int gpre[NGROUPS];
    __shared__ long long red[BLOCK];
    const bool tiled = ncols > TILE;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int per = (NGROUPS + BLOCK - 1) / BLOCK;   // groups per thread (contiguous)
    for (long long r = r0 + blockIdx.x; r < r1; r += gridDim.x) {
        long long a0 = aptr[r], a1 = aptr[r + 1];
        if (a0 >= a1) continue;
        long long base = optr[r];
        for (long long c0 = 0; c0 < ncols; c0 += TILE) {
            clear(bits);
            __syncthreads();
            mark(aidx, a0, a1, bptr, bidx, c0, tiled, bits);
            __syncthreads();
            // exclusive prefix of the bit counts per group of GROUP words
            const int g0 = threadIdx.x * per;
            long long local = 0;
            for (int g = g0; g < g0 + per && g < NGROUPS; ++g) {
                unsigned int s = 0;
                for (int w = g * GROUP; w < (g + 1) * GROUP; ++w) s += __popc(bits[w]);
                gpre[g] = s;
                local += s;
            }
            long long tile_total;
            long long run = block_scan(local, red, &tile_total) - local;
            for (int g = g0; g < g0 + per && g < NGROUPS; ++g) {
                unsigned int s = gpre[g];
                gpre[g] = (unsigned int)run;
                run += s;
            }
            __syncthreads();
            // column indices in bit order, values set to the monoid's identity
            for (int w = threadIdx.x; w < WORDS; w += BLOCK) {
                unsigned int b = bits[w];
                if (!b) continue;
                long long pos = base + gpre[w / GROUP];
                for (int v = (w / GROUP) * GROUP; v < w; ++v) pos += __popc(bits[v]);
                while (b) {
                    int t = __ffs((int)b) - 1;
                    b &= b - 1;
                    oidx[pos] = (oi_t)(c0 + 32LL * w + t);
                    oval[pos] = (z_t)(${IDENTITY});
                    ++pos;
                }
            }
            __syncthreads();
            // every product into the slot of its column
            for (long long p = a0 + warp; p < a1; p += BLOCK / 32) {
                long long k = aidx[p];
                x_t av = hp_av(aval, p);
                long long q0, q1;
                tile_range(bptr, bidx, k, c0, tiled, q0, q1);
                for (long long q = q0 + lane; q < q1; q += 32) {
                    long long c = (long long)bidx[q] - c0;
                    int w = (int)(c >> 5), t = (int)(c & 31);
                    long long pos = base + gpre[w / GROUP];
                    for (int v = (w / GROUP) * GROUP; v < w; ++v) pos += __popc(bits[v]);
                    pos += __popc(bits[w] & ((1u << t) - 1u));
                    hp_atomic(oval + pos, hp_mul(av, hp_bv(bval, q), r, k));
                }
            }
            __syncthreads();
            base += tile_total;
        }
    }
}
"""


def applies(sr) -> bool:
    """Whether the bitmap kernels can run ``sr``: its add monoid has an atomic form (not
    bool or 8/16-bit outputs)."""
    return sr.add.c_atomic_body() is not None


def _words(ncols: int) -> int:
    w = (max(int(ncols), 1) + 31) // 32
    w = ((w + GROUP - 1) // GROUP) * GROUP
    p = GROUP  # a power of two (a multiple of GROUP)
    while p < w:
        p *= 2
    return min(p, MAX_WORDS)


def spgemm_source(sr, a_dtype, b_dtype, ai, bi, oi, ncols) -> tuple[str, str]:
    """``(source, name prefix)`` of the bitmap SpGEMM kernels (``<name>_count``,
    ``<name>_fill``) for the typed semiring ``sr`` (with an atomic form, see
    :func:`applies`), stored value dtypes of A / B, index dtypes of A, B and the output, and
    the number of output columns (which sets the bitmap's words per tile)."""
    name = "hp_gb_spgemm"
    if sr.add.c_atomic_body() is None:
        raise NotImplementedError(f"bitmap SpGEMM for the {sr.add.name} monoid on "
                                  f"{sr.out_dtype.name}: no atomic form")
    src = render(SPGEMM_SOURCE, semiring_slots(sr, a_dtype, b_dtype), AI=_dt.c_type(ai),
                 BI=_dt.c_type(bi), OI=_dt.c_type(oi), WORDS=_words(ncols), GROUP=GROUP,
                 BLOCK=BLOCK, IDENTITY=sr.add.c_identity, NAME=name)
    return src, name


def _grid(nrows: int) -> int:
    from .. import backend

    try:
        sms = backend.num_sms()
    except Exception:
        sms = 132
    return max(1, min(int(nrows), sms * 8))


def spgemm_gpu(xp, A, B, sr):
    """``(indptr int64, indices, values)`` of ``A (+).(x) B``: a canonical CSR (rows sorted,
    no duplicates), indices of ``index_dtype(nrows, ncols, nnz)``."""
    nrows, ncols = A.nrows, B.ncols
    zdt = sr.out_dtype
    cnt = xp.zeros(nrows, dtype=np.int64)
    ai, bi = A.csr.index_dtype, B.csr.index_dtype
    aval = A._values() if reads_operand(sr.mul, "a") and A.nvals else None
    bval = B._values() if reads_operand(sr.mul, "b") and B.nvals else None
    avt = A.dtype if aval is None else aval.dtype
    bvt = B.dtype if bval is None else bval.dtype
    oi = _dt.index_dtype(nrows, ncols)  # the count kernel's source is the fill's when nnz fits
    if A.nvals and B.nvals and ncols:
        src, name = spgemm_source(sr, avt, bvt, ai, bi, oi, ncols)
        kernel(src, name + "_count")((_grid(nrows),), (BLOCK,),
                                     (A.csr.indptr, A.csr.indices, B.csr.indptr, B.csr.indices,
                                      np.int64(0), np.int64(nrows), np.int64(ncols), cnt))
    indptr = xp.zeros(nrows + 1, dtype=np.int64)
    if nrows:
        indptr[1:] = xp.cumsum(cnt)
    nnz = int(indptr[-1])
    oi = _dt.index_dtype(nrows, ncols, nnz)  # the CSR's one index dtype
    oidx = xp.empty(nnz, dtype=oi)
    oval = xp.empty(nnz, dtype=zdt)
    if nnz:
        src, name = spgemm_source(sr, avt, bvt, ai, bi, oi, ncols)
        kernel(src, name + "_fill")((_grid(nrows),), (BLOCK,),
                                    (A.csr.indptr, A.csr.indices,
                                     np.uint64(0) if aval is None else aval, B.csr.indptr,
                                     B.csr.indices, np.uint64(0) if bval is None else bval,
                                     np.int64(0), np.int64(nrows), np.int64(ncols), indptr, oidx,
                                     oval))
    return indptr, oidx, oval
