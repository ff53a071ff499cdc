"""Masked SpGEMM on the device by shared-memory hash tables, one warp or block per hashed list.

For a mask entry ``(i, j)`` the terms are over the ``k`` in both row ``i`` of ``A`` and column
``j`` of ``B`` (row ``j`` of ``B^T``).  The list with more entries in the other's key range
is hashed: for the mask entries of one column ``j`` whose column of ``B`` it is, a group of
threads puts it in a shared-memory hash table, piece by piece, then looks up every ``k`` of
each entry's row of ``A`` (clipped to the piece's key range: binary searches, or a galloping
one from the entry's own position when A is the mask, as in the triangle products); the
entries whose row of ``A`` it is are grouped by row ``i`` the same way, with the roles swapped (the
``_row`` kernels: the multiply's operands stay in order).  A group works through the
concatenation of the probed lists of 32 or :data:`BLOCK` entries at a time, each thread
taking :data:`ITEMS` consecutive elements (a prefix sum of the lengths, and a galloping search
of it from the thread's last entry, find the first one's entry), so long and short lists keep
every thread busy -- the scheme of the triangle kernel (:mod:`hpgraph.algorithms._tc_hash`).

A thread adds its terms of one entry in a register and combines them into the entry's
shared-memory accumulator with the add monoid's atomic form when its elements move on to
another entry (a segmented warp reduction measured 10% slower on the ``L`` form), so the
order of combination is not that of ``k``: only add monoids whose result does not depend
on the order run here (:func:`applies`: ``plus`` and ``times`` on integers, ``min`` / ``max``
on any 4- or 8-byte type); the others stay on the sorted-list intersection of
:mod:`._mdot_gpu`, which also takes the entries it serves better (:func:`hashed_entries`:
short lists, or lists of alike, modest lengths).  The kernel ``_classify`` sorts the entries
out on the device in one pass.

A thread's :data:`ITEMS` loads are issued before its first probe, and the tables are at most
``1 / SPREAD`` full, hashed by the top bits of a 32-bit Fibonacci product.  Measured (one
NVIDIA H200, 2026-11-28, R-MAT 21, ``plus_pair``, 949,098,081 triangles, CUDA-event medians):
the degree-ordered ``U .* (U @ U^T)`` and its ``reduce_scalar`` 26.0-26.9 ms, ``L .* (L @
L)`` 55.0-55.3 ms; with a load and a probe per element 25.3 and 60.5 ms, and with one search
per element and tables half full (before) 29.2 and 66.1 ms.  What each part of this design
gained is in ``benchmarks/README.md`` (sessions 21, 22 and 31).

Work: the tasks are a hashed list and at most ``hp.config["mxm_hash_split"]`` of its entries,
taken through an atomic counter in order of decreasing cost (look-ups), lists of at most
:data:`WARP_CAP` keys by a warp, longer ones (pieces of :data:`BLOCK_CAP` keys, fewer where
the table would not fit: :func:`_block_cap`) by a block
(grids of ``2048 / BLOCK`` blocks per SM: all resident with 4-byte keys and no positions
table; with 8-byte keys or values read, the shared memory lets fewer run at once).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import backend as _backend
from .._config import config
from ..cuda_source import GROUP_SCAN, render, table_slots
from . import _kern
from ._gpu_common import COMMON, SEARCH_RATIO, kernel, semiring_slots
from ._keys import repeat_index

__all__ = ["HASH_SOURCE", "hash_source", "applies", "hashed_entries", "masked_hash_gpu",
           "BLOCK", "WARP_CAP", "BLOCK_CAP", "MIN_HASHED", "RATIO", "BY_COLUMN", "BY_ROW"]

#: threads per block of both kernels (the warp kernel runs BLOCK / 32 warps a block)
BLOCK = 256
#: hashed keys per piece: a warp's table (columns up to this long go to the warp kernel)
WARP_CAP = 64
#: hashed keys per piece of the block kernel's table (SPREAD * BLOCK_CAP slots of key and
#: position; fewer where they would not fit: :func:`_block_cap`)
BLOCK_CAP = 1024
#: an entry is hashed only when the list hashed has at least this many entries within the
#: other list's key range (estimated: :func:`hashed_entries`); the sweep is under RATIO
MIN_HASHED = 32
#: ... and when the intersection kernel would take at least RATIO steps per element of the
#: shorter (estimated, clipped) list (its binary searches on skewed lists), or more than
#: ``hp.config["mxm_dot_heavy_cost"]`` steps in all (lists it would share out in chunks):
#: lists of alike, modest lengths merge faster than they hash.  The estimates are clipped to
#: the other's key range, which serves the ``U`` form (its rows hold only higher-ranked keys,
#: so most of a row lies outside the other's range).  One H200, R-MAT 21 triangles, product
#: and ``reduce_scalar``, ms (``L`` / degree-ordered ``U``; 2026-11-28, ``ITEMS`` 8, load
#: 1/4): MIN_HASHED 32 with RATIO 1 / 2 / 3: 60.7 / 60.5 / 69.7 and 25.5 / 25.8 / 24.1; 128
#: with RATIO 2 / 3: 62.3 / 69.6 and 26.3 / 24.0; 256 with RATIO 2: 65.3 / 28.8; every entry
#: hashed: 61.6 / 25.8; none: 210.5 / 29.0 (``mxm_dot_heavy_cost`` 2048; 512 measured no
#: better).  The kernels before (one search per element, load 1/2) with 128 / 3: 66.1 / 29.2
RATIO = 2
#: :func:`hashed_entries`' codes: the column of B hashed, rows of A probed (the mask's entries
#: grouped by column) / the row of A hashed, columns of B probed (grouped by row)
BY_COLUMN, BY_ROW = 1, 2


#: consecutive elements of the probed lists a thread looks up per search
ITEMS = 8
#: table slots per hashed key, at least (a power of two): the load is at most 1 / SPREAD
SPREAD = 4


#: static shared memory of a block (CUDA's limit without opting in to more)
SHARED_LIMIT = 48 * 1024


def _block_cap(key_dtype, reads_values: bool, z_dtype) -> int:
    """:data:`BLOCK_CAP`, halved while the block kernel's shared memory (``Shared``: a table of
    ``key_dtype`` keys, with 4-byte positions when the multiply reads values, and ``BLOCK``
    entries' bookkeeping of ``z_dtype`` accumulators) would pass :data:`SHARED_LIMIT` (8-byte
    keys with positions: longer lists are hashed in more pieces)."""
    per_slot = np.dtype(key_dtype).itemsize + (4 if reads_values else 0)
    fixed = BLOCK * (3 * 8 + np.dtype(z_dtype).itemsize + 4) + 8 * (BLOCK // 32) + 64
    cap = BLOCK_CAP
    while cap > 1 and table_slots(cap, SPREAD) * per_slot + fixed > SHARED_LIMIT:
        cap //= 2
    return cap


HASH_SOURCE = COMMON + r"""
typedef ${PI} pi_t;   // the probed rows' indptr / indices (A's; B^T's when swapped)
typedef ${HI} hi_t;   // the hashed rows' indptr / indices (B^T's; A's when swapped)
typedef ${PV} pv_t;   // the probed rows' value type
typedef ${HV} hv_t;   // the hashed rows' value type
typedef ${MR} mr_t;   // each entry's probed row (the mask's row; its column when swapped)
typedef ${MV} mv_t;   // the mask's values (value masks)
typedef ${MC} mc_t;   // the mask's column of each entry
typedef hi_t hkey_t;  // hashed keys: the contracted index k (-1: an empty slot)
#define FULL 0xffffffffu
#define BLOCK ${BLOCK}
#define WCAP ${WCAP}
#define BCAP ${BCAP}
#define WSLOTS ${WSLOTS}
#define BSLOTS ${BSLOTS}
#define ITEMS ${ITEMS}
#define SPREAD ${SPREAD}u

__device__ __forceinline__ z_t hp_identity() { return (z_t)(${IDENTITY}); }

// Fibonacci hashing: the top bits of a 32-bit product (the key's halves folded first).
__device__ __forceinline__ unsigned slot_of(long long k, int shift) {
    const unsigned h = (unsigned)k ^ (unsigned)((unsigned long long)k >> 32);
    return (h * 0x9E3779B1u) >> shift;
}

__device__ __forceinline__ int key_cas(int* a, int c, int v) { return atomicCAS(a, c, v); }
__device__ __forceinline__ long long key_cas(long long* a, long long c, long long v) {
    return (long long)atomicCAS((unsigned long long*)a, (unsigned long long)c,
                                (unsigned long long)v);
}

// Keys of one hashed row are distinct and the table is at most 1 / SPREAD full: probing ends.
__device__ __forceinline__ void h_insert(hkey_t* keys, int* pos, int shift, unsigned mask,
                                         hkey_t k, int p) {
    unsigned s = slot_of((long long)k, shift);
    while (key_cas(keys + s, (hkey_t)-1, k) != (hkey_t)-1) s = (s + 1) & mask;
    if (${READ_A} || ${READ_B}) pos[s] = p;   // positions only for a multiply that reads values
}

__device__ __forceinline__ int h_find(const hkey_t* keys, const int* pos, int shift,
                                      unsigned mask, long long k) {
    unsigned s = slot_of(k, shift);
    while (true) {
        const hkey_t t = keys[s];
        if ((long long)t == k) return (${READ_A} || ${READ_B}) ? pos[s] : 0;
        if (t == (hkey_t)-1) return -1;
        s = (s + 1) & mask;
    }
}

${GROUP_SCAN}

// The shared memory of one group.
template <int G, int SLOTS> struct Shared {
    hkey_t keys[SLOTS];
    int pos[(${READ_A} || ${READ_B}) ? SLOTS : 1];   // where each key sits (values read)
    long long start[G];     // each entry's first element of its probed row (clipped)
    long long excl[G];      // elements before it in the concatenation
    long long row[G];       // its probed row
    z_t acc[G];             // its terms so far, this piece
    int hit[G];             // it has a term this piece
    long long wsum[G / 32];
};

// Hashed row j (row j of B^T: the mask's column j; row j of A when swapped: the mask's row
// j), entries ent[t0:t1] (mask entry ids, their probed rows in mrow).  Called by all G
// threads of the group.
template <int G, int CAP, int SLOTS>
__device__ void do_column(
        long long j, long long t0, long long t1,
        const pi_t* __restrict__ aptr, const pi_t* __restrict__ aidx, const pv_t* __restrict__ aval,
        const hi_t* __restrict__ bptr, const hi_t* __restrict__ bidx, const hv_t* __restrict__ bval,
        const mr_t* __restrict__ mrow, const mv_t* __restrict__ mval,
        const long long* __restrict__ ent, z_t* __restrict__ out,
        unsigned char* __restrict__ state, long long self_pos, Shared<G, SLOTS>& sh, int tid) {
    const long long b0 = bptr[j], b1 = bptr[j + 1];
    for (long long p0 = b0; p0 < b1; p0 += CAP) {
        const long long p1 = p0 + CAP < b1 ? p0 + CAP : b1;
        const unsigned len = (unsigned)(p1 - p0);
        int bits = 5;
        while ((1u << bits) < SPREAD * len) ++bits;
        const unsigned slots = 1u << bits, hmask = slots - 1;
        const int hshift = 32 - bits;
        for (unsigned s = tid; s < slots; s += G) sh.keys[s] = (hkey_t)-1;
        gsync<G>();
        for (long long p = p0 + tid; p < p1; p += G)
            h_insert(sh.keys, sh.pos, hshift, hmask, (hkey_t)bidx[p], (int)(p - p0));
        gsync<G>();
        const long long klo = bidx[p0], khi = bidx[p1 - 1];
        for (long long c0 = t0; c0 < t1; c0 += G) {
            const long long c = c0 + tid;
            long long seg = 0, a0 = 0, e = -1, i = 0;
            if (c < t1) {
                e = ent[c];
                i = (long long)mrow[e];
                if (!${VALUE_MASK} || (bool)mval[e]) {
                    a0 = aptr[i];
                    long long a1 = aptr[i + 1];
                    if (a0 < a1) {
                        const long long first = (long long)aidx[a0], last = (long long)aidx[a1 - 1];
                        if (last >= klo && first <= khi) {
                            // self_pos: the probed rows are the mask's, entry e sits at e
                            if (first < klo)
                                a0 = self_pos ? lower_bound_from(aidx, a0, a1, e, klo)
                                              : lower_bound(aidx, a0, a1, klo);
                            if (last > khi) a1 = lower_bound(aidx, a0, a1, khi + 1);
                            seg = a1 - a0;
                        }
                    }
                }
            }
            long long total;
            const long long incl = gscan<G>(seg, sh.wsum, tid, &total);
            sh.start[tid] = a0;
            sh.excl[tid] = incl - seg;
            sh.row[tid] = i;
            sh.acc[tid] = hp_identity();
            sh.hit[tid] = 0;
            gsync<G>();
            const int cn = (int)(t1 - c0 < (long long)G ? t1 - c0 : (long long)G);
            int cur = 0;   // this thread's last entry: its elements only move forward
            // the thread's terms of entry `run` so far, combined into the shared accumulator
            // when its elements move to another entry (long entries: once per piece)
            int run = -1;
            z_t racc = hp_identity();
            // each thread takes ITEMS consecutive elements of the concatenation at a time: a
            // search finds the first one's entry, the next ones step along
            for (long long k0 = (long long)tid * ITEMS; k0 < total; k0 += (long long)G * ITEMS) {
                // the last entry starting at or before k0 holds element k0 (empty entries
                // before it share its start): a galloping search forward from `cur`
                // (sh.excl[cur] <= k0), mostly one step when the entries are long
                int l = cur, h = cn - 1, step = 1;
                while (l + step <= h) {
                    if (sh.excl[l + step] <= k0) { l += step; step <<= 1; }
                    else { h = l + step - 1; break; }
                }
                while (l < h) {
                    int mid = (l + h + 1) >> 1;
                    if (sh.excl[mid] <= k0) l = mid; else h = mid - 1;
                }
                long long nxt = l + 1 < cn ? sh.excl[l + 1] : total;
                long long first = sh.start[l] - sh.excl[l];   // element k of entry l: first + k
                const long long k1 = k0 + ITEMS < total ? k0 + ITEMS : total;
                // all ITEMS loads issued before the first probe waits on one
                long long pas[ITEMS], keyv[ITEMS];
                int ls[ITEMS];
#pragma unroll
                for (int it = 0; it < ITEMS; ++it) {
                    const long long k = k0 + it;
                    if (k < k1) {
                        while (k >= nxt) {
                            ++l;
                            nxt = l + 1 < cn ? sh.excl[l + 1] : total;
                            first = sh.start[l] - sh.excl[l];
                        }
                        pas[it] = first + k;
                        ls[it] = l;
                        keyv[it] = (long long)aidx[pas[it]];
                    }
                }
#pragma unroll
                for (int it = 0; it < ITEMS; ++it) {
                    if (k0 + it >= k1) continue;
                    const int l = ls[it];
                    const long long pa = pas[it], key = keyv[it];
                    const int q = h_find(sh.keys, sh.pos, hshift, hmask, key);
                    if (q >= 0) {
                        const z_t t = ${TERM_EXPR};
                        if (l != run) {
                            if (run >= 0) {
                                hp_atomic(&sh.acc[run], racc);
                                sh.hit[run] = 1;
                            }
                            run = l;
                            racc = t;
                        } else {
                            racc = hp_add(racc, t);
                        }
                    }
                }
                cur = l;
            }
            if (run >= 0) {
                hp_atomic(&sh.acc[run], racc);
                sh.hit[run] = 1;
            }
            gsync<G>();
            if (c < t1 && sh.hit[tid]) {
                // only this group writes entry e (pieces of the column come one after another)
                out[e] = state[e] ? hp_add(out[e], sh.acc[tid]) : sh.acc[tid];
                state[e] = 1;
            }
            gsync<G>();
        }
    }
}

// One warp per task (column task_j[w], entries ent[task_b[w]:task_e[w]]; tasks taken in
// order through work[0]).
extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}_warp(
        const pi_t* __restrict__ aptr, const pi_t* __restrict__ aidx, const pv_t* __restrict__ aval,
        const hi_t* __restrict__ bptr, const hi_t* __restrict__ bidx, const hv_t* __restrict__ bval,
        const mr_t* __restrict__ mrow, const mv_t* __restrict__ mval,
        const long long* __restrict__ ent, const long long* __restrict__ task_j,
        const long long* __restrict__ task_b, const long long* __restrict__ task_e,
        long long ntask, unsigned long long* __restrict__ work, z_t* __restrict__ out,
        unsigned char* __restrict__ state, long long self_pos) {
    __shared__ Shared<32, WSLOTS> sh[BLOCK / 32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    while (true) {
        long long w = 0;
        if (lane == 0) w = (long long)atomicAdd(work, 1ull);
        w = __shfl_sync(FULL, w, 0);
        if (w >= ntask) break;
        do_column<32, WCAP, WSLOTS>(task_j[w], task_b[w], task_e[w], aptr, aidx, aval, bptr,
                                    bidx, bval, mrow, mval, ent, out, state, self_pos, sh[wid],
                                    lane);
    }
}

// One block per task (as above; taken through work[1]).
extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}_block(
        const pi_t* __restrict__ aptr, const pi_t* __restrict__ aidx, const pv_t* __restrict__ aval,
        const hi_t* __restrict__ bptr, const hi_t* __restrict__ bidx, const hv_t* __restrict__ bval,
        const mr_t* __restrict__ mrow, const mv_t* __restrict__ mval,
        const long long* __restrict__ ent, const long long* __restrict__ task_j,
        const long long* __restrict__ task_b, const long long* __restrict__ task_e,
        long long ntask, unsigned long long* __restrict__ work, z_t* __restrict__ out,
        unsigned char* __restrict__ state, long long self_pos) {
    __shared__ Shared<BLOCK, BSLOTS> sh;
    __shared__ long long next;
    while (true) {
        if (threadIdx.x == 0) next = (long long)atomicAdd(work + 1, 1ull);
        __syncthreads();
        const long long w = next;
        __syncthreads();
        if (w >= ntask) break;
        do_column<BLOCK, BCAP, BSLOTS>(task_j[w], task_b[w], task_e[w], aptr, aidx, aval, bptr,
                                       bidx, bval, mrow, mval, ent, out, state, self_pos, sh,
                                       threadIdx.x);
    }
}
"""


#: the kernel that sorts the entries out (appended to the unswapped :data:`HASH_SOURCE`)
CLASSIFY_SOURCE = r"""
// Which entries the hash kernels take (the codes of hashed_entries: 0 none, 1 (BY_COLUMN) the
// column of B hashed, 2 (BY_ROW) the row of A hashed), the lengths of each entry's row of A
// (la) and column of B (lb), and state 0 for every entry (the hash kernels combine into it;
// the intersection kernel overwrites its own).  aptr: A's row pointers, bptr: B^T's (the
// kernel of the unswapped source); min_len / heavy / ratio: the rule's constants (0 / -1 / 0:
// every entry with both lists non-empty).
extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}_classify(
        const pi_t* __restrict__ aptr, const pi_t* __restrict__ aidx,
        const hi_t* __restrict__ bptr, const hi_t* __restrict__ bidx,
        const mr_t* __restrict__ mrow, const mc_t* __restrict__ mcol, long long nm,
        long long min_len, long long heavy, long long ratio, unsigned char* __restrict__ code,
        long long* __restrict__ la, long long* __restrict__ lb,
        unsigned char* __restrict__ state) {
    const long long stride = (long long)gridDim.x * BLOCK;
    for (long long e = (long long)blockIdx.x * BLOCK + threadIdx.x; e < nm; e += stride) {
        const long long r = (long long)mrow[e], c = (long long)mcol[e];
        const long long a0 = (long long)aptr[r], a1 = (long long)aptr[r + 1];
        const long long b0 = (long long)bptr[c], b1 = (long long)bptr[c + 1];
        const long long a = a1 - a0, b = b1 - b0;
        // each list's entries within the other's key range (the part the kernels look at),
        // estimated as if its keys were spread evenly over its own range
        long long ca = 0, cb = 0;
        if (a > 0 && b > 0) {
            const double alo = (double)aidx[a0], ahi = (double)aidx[a1 - 1];
            const double blo = (double)bidx[b0], bhi = (double)bidx[b1 - 1];
            const double ov = fmin(ahi, bhi) - fmax(alo, blo) + 1.0;
            if (ov > 0.0) {
                ca = (long long)ceil((double)a * fmin(1.0, ov / (ahi - alo + 1.0)));
                cb = (long long)ceil((double)b * fmin(1.0, ov / (bhi - blo + 1.0)));
            }
        }
        const long long lo = ca < cb ? ca : cb, hi = ca < cb ? cb : ca;
        // the intersection kernel's cost of the entry (its search_cost)
        const long long cost = hi > ${SEARCH_RATIO} * lo ? lo * (64 - __clzll((unsigned long long)hi))
                                                        : lo + hi;
        const bool take = lo > 0 && hi >= min_len && (cost > heavy || cost >= ratio * lo);
        code[e] = take ? (ca > cb ? 2 : 1) : 0;
        la[e] = a;
        lb[e] = b;
        state[e] = 0;
    }
}
"""

def applies(sr) -> bool:
    """Whether the add monoid of ``sr`` gives the same result in any order of its terms, on a
    type the kernels combine by compare-and-swap (4 or 8 bytes): ``plus`` / ``times`` on
    integers, ``min`` / ``max`` on any type (``fminf`` / ``fmaxf`` on floats)."""
    add = sr.add
    parent = getattr(add, "parent", None)
    if parent is None or not getattr(parent, "is_builtin", False):
        return False
    dt = np.dtype(sr.out_dtype)
    if dt.itemsize not in (4, 8) or dt.kind not in "iuf":
        return False
    return add.name in ("min", "max") or (add.name in ("plus", "times") and dt.kind in "iu")


def hash_source(sr, a_dtype, b_dtype, ai, bi, mr, mc, mv=None, swap=False) -> tuple[str, str]:
    """``(source, name prefix)`` of the hash kernels (``<name>_warp``, ``<name>_block``; and
    ``<name>_classify`` when not ``swap``) for the typed semiring ``sr`` (:func:`applies`), the
    stored value dtypes of A and B, the index dtypes ``ai`` (A), ``bi`` (B^T), ``mr`` (each
    entry's probed row: the mask's rows, its columns when ``swap``) and ``mc`` (the mask's
    columns); ``mv``: the mask's value dtype for a value mask (None: structural).  ``swap``:
    the kernels hash rows of A and probe rows of B^T (groups are the mask's rows) instead of
    hashing rows of B^T and probing rows of A."""
    name = "hp_gb_mhash" + ("_row" if swap else "")
    slots = semiring_slots(sr, a_dtype, b_dtype)
    if swap:   # the probed element is B's, the hashed one A's; the output row is the group's
        term = "hp_mul(hp_av(bval, p0 + q), hp_bv(aval, pa), j, key)"
        pi, hi, pv, hv = bi, ai, "bv_t", "av_t"
    else:
        term = "hp_mul(hp_av(aval, pa), hp_bv(bval, p0 + q), sh.row[l], key)"
        pi, hi, pv, hv = ai, bi, "av_t", "bv_t"
    bcap = _block_cap(hi, "true" in (slots["READ_A"], slots["READ_B"]), sr.out_dtype)
    src = render(HASH_SOURCE, slots, PI=_dt.c_type(pi), HI=_dt.c_type(hi), PV=pv, HV=hv,
                 TERM_EXPR=term, MR=_dt.c_type(mr), MC=_dt.c_type(mc),
                 MV=_dt.c_type(mv if mv is not None else np.bool_),
                 VALUE_MASK="true" if mv is not None else "false",
                 IDENTITY=_kern.neutral(sr.add), BLOCK=BLOCK, WCAP=WARP_CAP, BCAP=bcap,
                 WSLOTS=table_slots(WARP_CAP, SPREAD), BSLOTS=table_slots(bcap, SPREAD), NAME=name,
                 ITEMS=ITEMS, SPREAD=SPREAD,
                 GROUP_SCAN=GROUP_SCAN)
    if not swap:
        src += render(CLASSIFY_SOURCE, NAME=name, SEARCH_RATIO=SEARCH_RATIO)
    return src, name


def hashed_entries(xp, aptr, aidx, bptr, bidx, mrow, mcol, every=False):
    """Which mask entries the hash kernels take (uint8 per entry: 0 none, :data:`BY_COLUMN`
    or :data:`BY_ROW`), by the rule the device applies (kernel ``_classify``) to each list's
    estimated entries within the other's key range (its length times the share of its own
    key range that the two ranges overlap): both estimates non-zero; the list with more is
    hashed (the column on a tie); unless ``every``, only when it has at least
    :data:`MIN_HASHED` and the intersection kernel would cost more than
    ``hp.config["mxm_dot_heavy_cost"]`` steps or at least :data:`RATIO` per element of the
    other.  ``aptr`` / ``aidx``: A's row pointers and columns; ``bptr`` / ``bidx``: B^T's."""
    aptr, bptr = aptr.astype(np.int64, copy=False), bptr.astype(np.int64, copy=False)
    a0, b0 = aptr[mrow], bptr[mcol]
    a, b = aptr[mrow + 1] - a0, bptr[mcol + 1] - b0
    both = (a > 0) & (b > 0)

    def key(idx, p):      # the key at position p of the entries with both lists non-empty
        return xp.where(both, idx[xp.where(both, p, 0)] if idx.shape[0] else 0, 0) * 1.0

    alo, ahi, blo, bhi = key(aidx, a0), key(aidx, a0 + a - 1), key(bidx, b0), key(bidx, b0 + b - 1)
    ov = xp.minimum(ahi, bhi) - xp.maximum(alo, blo) + 1.0
    hit = both & (ov > 0)
    ca = xp.where(hit, xp.ceil(a * xp.minimum(1.0, ov / (ahi - alo + 1.0))), 0).astype(np.int64)
    cb = xp.where(hit, xp.ceil(b * xp.minimum(1.0, ov / (bhi - blo + 1.0))), 0).astype(np.int64)
    lo, hi = xp.minimum(ca, cb), xp.maximum(ca, cb)
    take = lo > 0
    if not every:
        bits = xp.frexp(hi.astype(np.float64))[1]      # bit length of hi (64 - clz)
        cost = xp.where(hi > SEARCH_RATIO * lo, lo * bits, lo + hi)   # its search_cost
        take &= (hi >= MIN_HASHED) & ((cost > config["mxm_dot_heavy_cost"]) |
                                      (cost >= RATIO * lo))
    return take.astype(np.uint8) * (BY_COLUMN + (ca > cb).astype(np.uint8))


def _tasks(xp, order, key, plen, hlen):
    """Task lists ``(j, begin, end)`` over ``order`` (entry ids grouped by their hashed row
    ``key[order]``, ascending): a task is a hashed row's entries from its start on,
    ``hp.config["mxm_hash_split"]`` at a time; by decreasing cost (look-ups: the probed rows'
    lengths ``plen``, per entry), split into the warp's and the block's (``hlen``: each
    hashed row's length)."""
    split = config["mxm_hash_split"]
    k = key[order].astype(np.int64, copy=False)
    bounds = xp.searchsorted(k, xp.arange(int(hlen.shape[0]) + 1, dtype=np.int64))
    start, cnt = bounds[:-1], xp.diff(bounds)                 # entries per hashed row
    ntask = (cnt + split - 1) // split
    tj = repeat_index(xp, ntask)                                # each task's hashed row
    first = xp.cumsum(ntask) - ntask
    begin = start[tj] + (xp.arange(tj.shape[0], dtype=np.int64) - first[tj]) * split
    end = xp.minimum(begin + split, start[tj] + cnt[tj])
    csum = xp.zeros(int(order.shape[0]) + 1, dtype=np.int64)
    csum[1:] = xp.cumsum(plen[order])
    cost = csum[end] - csum[begin]
    big = (hlen[tj] > WARP_CAP) | (cost > config["mxm_hash_block_work"])

    def pick(s):
        ids = xp.flatnonzero(s)
        ids = ids[xp.argsort(-cost[ids])]
        return tj[ids], begin[ids], end[ids]

    return pick(~big), pick(big)


def masked_hash_gpu(xp, A, BT, aval, bval, a_vdt, b_vdt, sr, mrow, mcol, mval, every, out,
                    state, self_pos, corder):
    """Compute into ``out`` / ``state`` (1: a result, 0: none) the mask entries the hash
    kernels take (:func:`hashed_entries` with ``every``), on the device (or NumPy arrays under
    the emulation), and return their flags (uint8 per entry, nonzero: taken).  ``BT``: B's
    transpose as CSR; ``aval`` / ``bval``: the values the multiply reads (None: not read), of
    value dtypes ``a_vdt`` / ``b_vdt``; ``self_pos``: A's CSR is the mask's (entry ``e`` sits
    at position ``e`` of its row of A: the kernels search A's rows from there); ``corder``:
    the mask's entries in column-major order (``Matrix._column_order``)."""
    n_m = int(mrow.shape[0])
    mv = None if mval is None else mval.dtype
    src, name = hash_source(sr, a_vdt, b_vdt, A.csr.index_dtype, BT.index_dtype, mrow.dtype,
                            mcol.dtype, mv)
    hashed = xp.empty(n_m, dtype=np.uint8)
    la, lb = xp.empty(n_m, dtype=np.int64), xp.empty(n_m, dtype=np.int64)
    sms = _backend.num_sms() if xp is not np else 1
    kernel(src, name + "_classify")(
        (max(1, min(-(-n_m // BLOCK), sms * 16)),), (BLOCK,),
        (A.csr.indptr, A.csr.indices, BT.indptr, BT.indices, mrow, mcol, np.int64(n_m),
         np.int64(0 if every else MIN_HASHED),
         np.int64(-1 if every else config["mxm_dot_heavy_cost"]), np.int64(0 if every else RATIO),
         hashed, la, lb, state))
    by_row = xp.flatnonzero(hashed == BY_ROW)                         # grouped by row already
    by_col = corder[hashed[corder] == BY_COLUMN]                     # grouped by column
    jobs = []
    if by_col.shape[0]:
        order = by_col.astype(np.int64, copy=False)
        bcol = xp.diff(BT.indptr.astype(np.int64, copy=False))          # per column of B
        jobs.append((src, name, (A.csr.indptr, A.csr.indices, aval, BT.indptr, BT.indices,
                                 bval, mrow), order, _tasks(xp, order, mcol, la, bcol),
                     self_pos))
    if by_row.shape[0]:
        order = by_row.astype(np.int64, copy=False)
        arow = xp.diff(A.csr.indptr.astype(np.int64, copy=False))       # per row of A
        rsrc, rname = hash_source(sr, a_vdt, b_vdt, A.csr.index_dtype, BT.index_dtype,
                                  mcol.dtype, mcol.dtype, mv, True)
        jobs.append((rsrc, rname, (BT.indptr, BT.indices, bval, A.csr.indptr, A.csr.indices,
                                   aval, mcol), order, _tasks(xp, order, mrow, lb, arow),
                     False))
    for job in jobs:
        _launch(xp, *job, mval, out, state)
    return hashed


def _launch(xp, src, name, rows, order, tasks, self_pos, mval, out, state):
    """Run the warp and block kernels of ``src`` over ``tasks`` (:func:`_tasks`); ``rows``:
    the probed CSR's ``(indptr, indices, values)``, the hashed CSR's, and each entry's probed
    row."""
    warp_t, block_t = tasks
    null = np.uint64(0)
    work = xp.zeros(2, dtype=np.uint64)     # tasks taken by the warp / the block kernel
    args = tuple(null if a is None else a for a in rows) + (null if mval is None else mval,
                                                            order)
    sms = _backend.num_sms() if xp is not np else 1
    nb, nw = int(block_t[0].shape[0]), int(warp_t[0].shape[0])
    if nb:
        kernel(src, name + "_block")((max(1, min(nb, sms * (2048 // BLOCK))),), (BLOCK,),
                                     args + block_t + (np.int64(nb), work, out, state,
                                                       np.int64(self_pos)))
    if nw:
        wpb = BLOCK // 32
        kernel(src, name + "_warp")((max(1, min(-(-nw // wpb), sms * 8)),), (BLOCK,),
                                    args + warp_t + (np.int64(nw), work, out, state,
                                                     np.int64(self_pos)))
