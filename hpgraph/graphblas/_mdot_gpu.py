"""Masked SpGEMM on the device as generated CUDA kernels: ``C<M> = A (+).(x) B`` by one
sorted-list intersection per mask entry (entries the hash kernels of :mod:`._mdot_hash` take
are skipped here).

For a mask entry ``(i, j)`` the terms are ``MUL(A[i, k], B[k, j])`` over the ``k`` in both
row ``i`` of ``A`` and row ``j`` of ``B^T`` (``B``'s transpose as CSR, built once per
Matrix), combined with the add monoid in ascending ``k`` within a thread (the chunks of a
heavy entry are then combined in a tree).  Each list is first clipped to the
other's key range (two binary searches: for triangle counting's ``L .* (L @ L)`` the column
``j`` of ``L`` shrinks to the ``k < i``), then:

* **thread per entry** (:data:`MDOT_SOURCE`, kernel ``..._entry``): a merge of the two lists
  when their lengths are alike, a binary search of each element of the shorter list in the
  longer one (lower bound moving forward) when the longer one is more than
  :data:`SEARCH_RATIO` times longer -- the triangle kernel's intersection
  (:mod:`hpgraph.algorithms._kernels`), over any semiring; it stops at the add monoid's
  terminal value (``lor``, ``any``...).  Entries whose intersection would cost more than
  ``hp.config["mxm_dot_heavy_cost"]`` steps are left to
* **chunks of the shorter list** (kernel ``..._chunk``): one thread per :data:`CHUNK`
  consecutive elements of a heavy entry's shorter list, each binary-searched in the longer
  one; a partial result per chunk, then the chunks of an entry are reduced
  (:func:`hpgraph.graphblas._kern.reduce_segments`, a tree), so a hub's long lists are spread over
  many threads and the warps of short entries are not held up.

Value masks are read in the kernel (an entry whose mask value is zero is skipped); the
result never holds more entries than the mask.  Without ``out`` the result is assembled as
CSR straight from the mask's row pointers (no int64 keys, no search).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._config import config
from ..cuda_source import render
from ..formats import CSR
from ..formats._base import expand_indptr
from . import _kern, _mdot_hash
from ._gpu_common import COMMON, SEARCH_RATIO, kernel, semiring_slots
from ._objects import Matrix
from ._select_gpu import select_rows

__all__ = ["MDOT_SOURCE", "mdot_source", "masked_dot_gpu", "SEARCH_RATIO", "CHUNK", "BLOCK"]

# Compile-time constants of the generated kernels; the run-time split between the entry and
# the chunk kernel is hp.config["mxm_dot_heavy_cost"] (2048: the triangle kernel sends lists of
# more than 2048 entries together to its warp kernel).

#: elements of the shorter list per thread in the chunk kernel
CHUNK = 32
#: threads per block
BLOCK = 128

MDOT_SOURCE = COMMON + r"""
typedef ${AI} ai_t;   // A's indptr / indices
typedef ${BI} bi_t;   // B^T's indptr / indices
typedef ${MI} mi_t;   // the mask's column indices
typedef ${MR} mr_t;   // the mask's row of each entry
typedef ${MV} mv_t;   // the mask's values (value masks)

// Clip row i of A (a0..a1) and row j of B^T (b0..b1) to the overlap of their key ranges;
// false when they cannot intersect.  ahint >= 0: a position of row i of A near which A's
// clipped start lies (the mask entry's own, when A's rows are the mask's)
__device__ __forceinline__ bool clip(const ai_t* __restrict__ aidx, long long& a0, long long& a1,
                                     const bi_t* __restrict__ bidx, long long& b0, long long& b1,
                                     long long ahint = -1) {
    if (a0 >= a1 || b0 >= b1) return false;
    long long alo = aidx[a0], ahi = aidx[a1 - 1], blo = bidx[b0], bhi = bidx[b1 - 1];
    if (ahi < blo || bhi < alo) return false;
    if (alo < blo) a0 = ahint >= 0 ? lower_bound_from(aidx, a0, a1, ahint, blo)
                                   : lower_bound(aidx, a0, a1, blo);
    else if (blo < alo) b0 = lower_bound(bidx, b0, b1, alo);
    if (ahi > bhi) a1 = lower_bound(aidx, a0, a1, bhi + 1);
    else if (bhi > ahi) b1 = lower_bound(bidx, b0, b1, ahi + 1);
    return a0 < a1 && b0 < b1;
}

__device__ __forceinline__ long long search_cost(long long ls, long long ll) {
    if (ll > ${RATIO} * ls) return ls * (64 - __clzll((unsigned long long)ll));
    return ls + ll;
}

// Intersect the (clipped) lists; acc/has: the add monoid over the terms in ascending k.
__device__ __forceinline__ void intersect(
        long long i, const ai_t* __restrict__ aidx, const av_t* __restrict__ aval,
        long long a0, long long a1, const bi_t* __restrict__ bidx, const bv_t* __restrict__ bval,
        long long b0, long long b1, z_t& acc, bool& has) {
    long long la = a1 - a0, lb = b1 - b0;
    bool a_short = la <= lb;
    long long ls = a_short ? la : lb, ll = a_short ? lb : la;
    if (ll > ${RATIO} * ls) {
        // binary search of each element of the shorter list in the longer one
        if (a_short) {
            long long lo = b0;
            for (long long p = a0; p < a1; ++p) {
                long long k = aidx[p];
                lo = lower_bound(bidx, lo, b1, k);
                if (lo >= b1) break;
                if ((long long)bidx[lo] == k) {
                    z_t t = hp_mul(hp_av(aval, p), hp_bv(bval, lo), i, k);
                    acc = has ? hp_add(acc, t) : t;
                    has = true;
                    if (hp_term(acc)) return;
                    ++lo;
                }
            }
        } else {
            long long lo = a0;
            for (long long q = b0; q < b1; ++q) {
                long long k = bidx[q];
                lo = lower_bound(aidx, lo, a1, k);
                if (lo >= a1) break;
                if ((long long)aidx[lo] == k) {
                    z_t t = hp_mul(hp_av(aval, lo), hp_bv(bval, q), i, k);
                    acc = has ? hp_add(acc, t) : t;
                    has = true;
                    if (hp_term(acc)) return;
                    ++lo;
                }
            }
        }
        return;
    }
    long long p = a0, q = b0;
    while (p < a1 && q < b1) {
        long long x = aidx[p], y = bidx[q];
        if (x == y) {
            z_t t = hp_mul(hp_av(aval, p), hp_bv(bval, q), i, x);
            acc = has ? hp_add(acc, t) : t;
            has = true;
            if (hp_term(acc)) return;
            ++p; ++q;
        } else if (x < y) {
            ++p;
        } else {
            ++q;
        }
    }
}

// One thread per mask entry e (row mrow[e], column mcol[e]) not flagged in `hashed` (null:
// none is).  state[e]: 0 no term (or the value mask is zero there), 1 out[e] holds the
// result, 2 heavy (left to the chunk kernel).
extern "C" __global__ void ${NAME}_entry(
        const ai_t* __restrict__ aptr, const ai_t* __restrict__ aidx, const av_t* __restrict__ aval,
        const bi_t* __restrict__ bptr, const bi_t* __restrict__ bidx, const bv_t* __restrict__ bval,
        const mr_t* __restrict__ mrow, const mi_t* __restrict__ mcol, const mv_t* __restrict__ mval,
        long long nm, long long heavy, const unsigned char* __restrict__ hashed,
        z_t* __restrict__ out, unsigned char* __restrict__ state,
        unsigned long long* __restrict__ nheavy, long long self_pos) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < nm; e += stride) {
        if (hashed && hashed[e]) continue;      // the hash kernels' entry (_mdot_hash)
        unsigned char st = 0;
        if (${VALUE_MASK} && !(bool)mval[e]) { state[e] = 0; continue; }
        long long i = mrow[e], j = mcol[e];
        long long a0 = aptr[i], a1 = aptr[i + 1], b0 = bptr[j], b1 = bptr[j + 1];
        if (clip(aidx, a0, a1, bidx, b0, b1, self_pos ? e : -1)) {
            long long la = a1 - a0, lb = b1 - b0;
            long long ls = la < lb ? la : lb, ll = la < lb ? lb : la;
            if (ls > ${CHUNK} && search_cost(ls, ll) > heavy) {
                st = 2;
                atomicAdd(nheavy, 1ull);        // few: the host skips their pass when none
            } else {
                z_t acc = (z_t)0;
                bool has = false;
                intersect(i, aidx, aval, a0, a1, bidx, bval, b0, b1, acc, has);
                if (has) { out[e] = acc; st = 1; }
            }
        }
        state[e] = st;
    }
}

// One thread per heavy entry h (mask entry hv[h]): its clipped ranges, which list is the
// shorter, and the number of chunks of the shorter list.
extern "C" __global__ void ${NAME}_plan(
        const ai_t* __restrict__ aptr, const ai_t* __restrict__ aidx,
        const bi_t* __restrict__ bptr, const bi_t* __restrict__ bidx,
        const mr_t* __restrict__ mrow, const mi_t* __restrict__ mcol,
        const long long* __restrict__ hv, long long nh, long long* __restrict__ ranges,
        long long* __restrict__ nchunks) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x; h < nh; h += stride) {
        long long e = hv[h];
        long long i = mrow[e], j = mcol[e];
        long long a0 = aptr[i], a1 = aptr[i + 1], b0 = bptr[j], b1 = bptr[j + 1];
        clip(aidx, a0, a1, bidx, b0, b1);   // heavy entries intersect (the entry kernel said so)
        ranges[4 * h] = a0; ranges[4 * h + 1] = a1; ranges[4 * h + 2] = b0; ranges[4 * h + 3] = b1;
        long long ls = (a1 - a0) <= (b1 - b0) ? a1 - a0 : b1 - b0;
        nchunks[h] = (ls + ${CHUNK} - 1) / ${CHUNK};
    }
}

// One thread per chunk c of heavy entry owner[c] (its chunk number: c - first[owner[c]]):
// the chunk's elements of the shorter list are binary-searched in the longer one.
extern "C" __global__ void ${NAME}_chunk(
        const ai_t* __restrict__ aidx, const av_t* __restrict__ aval,
        const bi_t* __restrict__ bidx, const bv_t* __restrict__ bval,
        const mr_t* __restrict__ mrow, const long long* __restrict__ hv,
        const long long* __restrict__ ranges, const long long* __restrict__ owner,
        const long long* __restrict__ first, long long nc, z_t* __restrict__ part,
        unsigned char* __restrict__ found) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < nc; c += stride) {
        long long h = owner[c];
        long long i = mrow[hv[h]];
        long long a0 = ranges[4 * h], a1 = ranges[4 * h + 1];
        long long b0 = ranges[4 * h + 2], b1 = ranges[4 * h + 3];
        long long s = (c - first[h]) * ${CHUNK};
        z_t acc = (z_t)0;
        bool has = false;
        if (a1 - a0 <= b1 - b0) {
            long long e1 = a0 + s + ${CHUNK} < a1 ? a0 + s + ${CHUNK} : a1;
            intersect(i, aidx, aval, a0 + s, e1, bidx, bval, b0, b1, acc, has);
        } else {
            long long e1 = b0 + s + ${CHUNK} < b1 ? b0 + s + ${CHUNK} : b1;
            intersect(i, aidx, aval, a0, a1, bidx, bval, b0 + s, e1, acc, has);
        }
        part[c] = acc;
        found[c] = has ? 1 : 0;
    }
}
"""


def mdot_source(sr, a_dtype, b_dtype, ai, bi, mi, mr, mv=None) -> tuple[str, str]:
    """``(source, name prefix)`` of the masked-dot kernels for the typed semiring ``sr``, the
    stored value dtypes of A and B, and the index dtypes ``ai`` (A), ``bi`` (B^T), ``mi``
    (mask columns), ``mr`` (mask rows); ``mv``: the mask's value dtype for a value mask
    (None: structural).  The kernels are ``<name>_entry``, ``<name>_plan``, ``<name>_chunk``."""
    name = "hp_gb_mdot"
    slots = semiring_slots(sr, a_dtype, b_dtype)
    src = render(MDOT_SOURCE, slots, AI=_dt.c_type(ai), BI=_dt.c_type(bi), MI=_dt.c_type(mi),
                 MR=_dt.c_type(mr), MV=_dt.c_type(mv if mv is not None else np.bool_),
                 VALUE_MASK="true" if mv is not None else "false", RATIO=SEARCH_RATIO,
                 CHUNK=CHUNK, NAME=name)
    return src, name


def _grid(n: int) -> int:
    return max(1, min((int(n) + BLOCK - 1) // BLOCK, 65535 * 8))


def _null():
    return np.uint64(0)


def masked_dot_gpu(xp, A, B, sr, mask):
    """``(indptr, cols, vals, rows)`` of ``A (+).(x) B`` at the mask's True entries that have
    at least one term, in the mask's CSR order (sorted by row, then column): ``indptr`` the
    result's row pointers, ``rows()`` computes each entry's row (int64) when asked.

    ``mask`` is a :class:`~hpgraph.graphblas.Mask` that is not complemented, on the device.
    """
    M = mask.parent
    csr = M.csr
    n_m = int(csr.nnz)
    zdt = sr.out_dtype
    empty = (xp.zeros(M.nrows + 1, dtype=np.int64), xp.zeros(0, dtype=csr.index_dtype),
             xp.zeros(0, dtype=zdt), lambda: xp.zeros(0, dtype=np.int64))
    if n_m == 0 or A.nvals == 0 or B.nvals == 0:
        return empty
    mrow = M._kcache[1] if M._kcache is not None else _row_ids(xp, csr)
    mcol = csr.indices
    mval = None if mask.structure else csr.values
    BT = B._transpose_csr()
    aval = A._values() if _reads(sr, "a") else None
    bval = BT.values if _reads(sr, "b") else None
    src, name = mdot_source(sr, _vdtype(aval, A), _vdtype(bval, B), A.csr.index_dtype, BT.index_dtype,
                            csr.index_dtype, mrow.dtype, None if mval is None else mval.dtype)
    out = xp.empty(n_m, dtype=zdt)
    state = xp.empty(n_m, dtype=np.uint8)
    hashed = None
    # A's rows are the mask's (the triangle products): entry e is at position e of A's row
    self_pos = A.csr.indptr is csr.indptr and A.csr.indices is csr.indices
    if config["mxm_dot_kernel"] != "merge" and _mdot_hash.applies(sr):
        every = config["mxm_dot_kernel"] == "hash"
        hashed = _mdot_hash.masked_hash_gpu(xp, A, BT, aval, bval, _vdtype(aval, A),
                                            _vdtype(bval, B), sr, mrow, mcol, mval, every, out,
                                            state, self_pos, M._column_order())
    nheavy = xp.zeros(1, dtype=np.uint64)
    kernel(src, name + "_entry")(
        (_grid(n_m),), (BLOCK,),
        (A.csr.indptr, A.csr.indices, _ptr(aval), BT.indptr, BT.indices, _ptr(bval), mrow, mcol,
         _ptr(mval), np.int64(n_m), np.int64(config["mxm_dot_heavy_cost"]), _ptr(hashed), out,
         state, nheavy, np.int64(self_pos)))
    if int(nheavy[0]):
        hv = xp.flatnonzero(state == 2)
        _heavy(xp, src, name, A, BT, aval, bval, mrow, mcol, hv, out, state, sr)
    # the entries with a result (state 1), in the mask's order: a select over the mask's
    # structure with the results as values
    R = select_rows(Matrix._new(CSR._new(csr.indptr, mcol, out, tuple(M.shape)), zdt),
                    "F[k] == 1", 0, np.int64, needs_row=False, flags=state).csr
    return (R.indptr, R.indices, R.values,
            lambda: expand_indptr(xp, R.indptr, int(R.nnz), np.dtype(np.int64)))


def _vdtype(vals, M):
    """The C type's dtype of an operand's values (its dtype when they are not read)."""
    return M.dtype if vals is None else vals.dtype


def _heavy(xp, src, name, A, BT, aval, bval, mrow, mcol, hv, out, state, sr):
    """Finish the heavy entries ``hv``: chunks of the shorter list, then their reduction."""
    from ._keys import repeat_index, segment_starts

    nh = int(hv.shape[0])
    ranges = xp.empty(4 * nh, dtype=np.int64)
    nchunks = xp.empty(nh, dtype=np.int64)
    kernel(src, name + "_plan")(
        (_grid(nh),), (BLOCK,),
        (A.csr.indptr, A.csr.indices, BT.indptr, BT.indices, mrow, mcol, hv, np.int64(nh),
         ranges, nchunks))
    first = xp.cumsum(nchunks) - nchunks
    nc = int(nchunks.sum())
    owner = repeat_index(xp, nchunks, nc)
    part = xp.empty(nc, dtype=sr.out_dtype)
    found = xp.empty(nc, dtype=np.uint8)
    kernel(src, name + "_chunk")(
        (_grid(nc),), (BLOCK,),
        (A.csr.indices, _ptr(aval), BT.indices, _ptr(bval), mrow, hv, ranges, owner, first,
         np.int64(nc), part, found))
    hit = xp.flatnonzero(found)
    state[hv] = 0
    if hit.shape[0] == 0:
        return
    own = owner[hit]
    starts = segment_starts(xp, own)
    red = _kern.reduce_segments(sr.add, part[hit], starts, xp)
    ent = hv[own[starts]]
    out[ent] = _kern.cast(red, sr.out_dtype, xp)
    state[ent] = 1


def _reads(sr, which):
    from ._gpu_common import reads_operand

    return reads_operand(sr.mul, which)


def _ptr(a):
    """A kernel argument for an optional array (a null pointer for None)."""
    return _null() if a is None else a


def _row_ids(xp, csr):
    return expand_indptr(xp, csr.indptr, int(csr.nnz), csr.index_dtype)
