"""Pieces shared by the generated product kernels (:mod:`._mdot_gpu`, :mod:`._mdot_hash`,
:mod:`._spgemm_gpu`).

:func:`semiring_slots` turns a typed semiring from the one operator registry
(:mod:`hpgraph.ops`) into the template slots every generated product kernel uses: the C types,
``hp_mul`` (the multiply's ``c_expr``, reading ``(a, b, i, k)``: ``i`` the output row, ``k``
the contracted index, as the host path's index operators), ``hp_add`` / the terminal test of
the add monoid, its atomic form ``hp_atomic``, and whether the multiply reads each operand's
value at all (``pair``, ``firsti``... do not, so those kernels never load the values); and the
``lower_bound`` search every product kernel uses.
"""

from __future__ import annotations

import re

import numpy as np

from .. import dtypes as _dt

__all__ = ["semiring_slots", "reads_operand", "kernel", "COMMON", "LOWER_BOUND", "SEARCH_RATIO",
           "CHUNK_WALK",
           "chunk_rows", "chunk_ipt", "chunk_grid", "widest_index"]

#: the masked-dot intersection merges two sorted lists when ``len(longer) <= SEARCH_RATIO *
#: len(shorter)``, else binary-searches the shorter in the longer (the triangle kernel's tuned
#: ratio); the hash kernels' rule estimates the intersection's cost the same way
SEARCH_RATIO = 16

#: ``lower_bound``, the binary search of the generated kernels that look columns up in a
#: sorted row (the products, the row-wise element-wise forms)
LOWER_BOUND = r"""// first position in idx[lo, hi) whose key is >= key (hi if none)
template <typename I>
__device__ __forceinline__ long long lower_bound(const I* __restrict__ idx, long long lo,
                                                 long long hi, long long key) {
    while (lo < hi) {
        long long mid = lo + ((hi - lo) >> 1);
        if ((long long)idx[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}
// the same position, searched outward from `hint` (lo <= hint <= hi) in doubling steps: a
// few loads when the answer lies near the hint
template <typename I>
__device__ __forceinline__ long long lower_bound_from(const I* __restrict__ idx, long long lo,
                                                      long long hi, long long hint, long long key) {
    long long step = 1;
    if (hint < hi && (long long)idx[hint] < key) {      // after hint: idx < key before l
        long long l = hint + 1;
        while (l + step - 1 < hi && (long long)idx[l + step - 1] < key) { l += step; step <<= 1; }
        return lower_bound(idx, l, l + step - 1 < hi ? l + step - 1 : hi, key);
    }
    long long h = hint;                                 // at or before h: idx[h] >= key (or h == hi)
    while (h - step >= lo && (long long)idx[h - step] >= key) { h -= step; step <<= 1; }
    return lower_bound(idx, h - step + 1 > lo ? h - step + 1 : lo, h, key);
}
"""

#: C helpers of every product kernel (``hp_mul`` / ``hp_add`` / ``hp_term`` are filled in)
COMMON = r"""
${PREAMBLE}
typedef ${X} x_t;   // the multiply's input type
typedef ${Z} z_t;   // the add monoid's type (the output's)
typedef ${AV} av_t; // A's stored value type
typedef ${BV} bv_t; // B's stored value type

__device__ __forceinline__ z_t hp_mul(x_t hp_xa, x_t hp_xb, long long hp_i, long long hp_k) {
    (void)hp_xa; (void)hp_xb; (void)hp_i; (void)hp_k;
    return (z_t)(${MUL});
}
__device__ __forceinline__ z_t hp_add(z_t a, z_t b) { return (z_t)(${ADD}); }
__device__ __forceinline__ bool hp_term(z_t a) { (void)a; return ${TERM}; }
// an operand's value as x_t (C conversion), or 0 when the multiply does not read it
__device__ __forceinline__ x_t hp_av(const av_t* __restrict__ v, long long p) {
    return ${READ_A} ? (x_t)v[p] : (x_t)0;
}
__device__ __forceinline__ x_t hp_bv(const bv_t* __restrict__ v, long long p) {
    return ${READ_B} ? (x_t)v[p] : (x_t)0;
}
typedef z_t y_t;   // the monoid table's name for the combined type (hp_atomic's body)
// *p = hp_add(*p, v) atomically, global or shared memory: the add monoid's atomic form from
// the one monoid table (a trap where it has none: no kernel calls it then)
__device__ __forceinline__ void hp_atomic(y_t* p, y_t v) {
${ATOMIC}
}
"""


COMMON += LOWER_BOUND

#: Walking a CSR's entries in chunks of ``CH`` without a row array: a block per chunk of
#: ``TPB`` threads, each entry's row found in the chunk's slice of row pointers, held in
#: shared memory.  Most kernels take ``IPT`` consecutive entries per thread (a thread's
#: entries share rows, and its searches in the other operand's row resume where the last one
#: stopped); the compacting kernels stage a chunk's kept entries in shared memory and store
#: them from there side by side; the union's write pass strides its entries (entry
#: ``u * TPB + thread``) so a warp's stores land side by side.
#: ``hp_gb_chunk_rows`` lists, per chunk, the first row of that slice, the row of its first
#: entry and the row of its last.  The including source defines ``TPB`` and ``IPT``.
CHUNK_WALK = r"""
#define HP_CH (HP_TPB * HP_IPT)
#define HP_PS (HP_CH + 2)   // shared row-pointer slots; a chunk with more rows reads them globally
// a thread's entries are bits of one word, a warp is whole, so a chunk holds whole 32-bit words
static_assert(HP_IPT >= 1 && HP_IPT <= 32 && HP_TPB % 32 == 0, "chunk walk: IPT in 1..32, TPB a multiple of 32");
// the last r in [lo, hi] with P[r] <= k (P[lo] <= k)
template <class P>
__device__ __forceinline__ long long hp_last_le(const P* __restrict__ ptr, long long lo,
                                                long long hi, long long k)
{
    while (lo < hi) {
        const long long mid = (lo + hi + 1) >> 1;
        if ((long long)ptr[mid] <= k) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// rows[3c]: the slice's first row (empty rows that start at the chunk's first entry
// included), rows[3c + 1]: the row of the chunk's first entry, rows[3c + 2]: of its last
template <class P>
__device__ __forceinline__ void hp_chunk_rows(const P* __restrict__ ptr, long long n,
                                              long long nnz, long long* __restrict__ rows)
{
    const long long nch = (nnz + HP_CH - 1) / HP_CH;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < nch; c += stride) {
        const long long b0 = c * HP_CH, b1 = min(b0 + (long long)HP_CH, nnz);
        const long long r0 = hp_last_le(ptr, 0, n - 1, b0);
        long long lo = 0, hi = r0;                      // the first r with P[r] == b0, if any
        while (lo < hi) {
            const long long mid = (lo + hi) >> 1;
            if ((long long)ptr[mid] < b0) lo = mid + 1; else hi = mid;
        }
        rows[3 * c] = min(lo, r0);
        rows[3 * c + 1] = r0;
        rows[3 * c + 2] = hp_last_le(ptr, r0, n - 1, b1 - 1);
    }
}

// one chunk's walk: the slice P[q0 .. q0 + nr) of row pointers (rows q0 to the row after the
// last entry's), shared when it fits; x: the slice index of the row of the entry looked at
struct hp_walk_t { long long q0, nr, x, xr1; };

template <class P>
__device__ __forceinline__ hp_walk_t hp_walk_open(const P* __restrict__ ptr,
        const long long* __restrict__ rows, long long c, long long* s_p)
{
    hp_walk_t w;
    w.q0 = rows[3 * c];
    w.x = rows[3 * c + 1] - w.q0;
    w.xr1 = rows[3 * c + 2] - w.q0;
    w.nr = w.xr1 + 2;
    __syncthreads();                                   // the previous chunk is done with s_p
    if (w.nr <= HP_PS)
        for (long long i = threadIdx.x; i < w.nr; i += blockDim.x) s_p[i] = (long long)ptr[w.q0 + i];
    __syncthreads();
    return w;
}

template <class P>
__device__ __forceinline__ long long hp_walk_ptr(const P* __restrict__ ptr, const long long* s_p,
                                                 const hp_walk_t& w, long long i)
{
    return w.nr <= HP_PS ? s_p[i] : (long long)ptr[w.q0 + i];
}

// the row of entry k, for entries looked at in increasing order per thread (consecutive or
// strided): one test while the row holds, a search over the chunk's later rows when not
template <class P>
__device__ __forceinline__ long long hp_walk_row(const P* __restrict__ ptr, const long long* s_p,
                                                 hp_walk_t& w, long long k)
{
    if (w.x < w.xr1 && hp_walk_ptr(ptr, s_p, w, w.x + 1) <= k) {
        long long lo = w.x + 1, hi = w.xr1;
        while (lo < hi) {
            const long long mid = (lo + hi + 1) >> 1;
            if (hp_walk_ptr(ptr, s_p, w, mid) <= k) lo = mid; else hi = mid - 1;
        }
        w.x = lo;
    }
    return w.q0 + w.x;
}

// the first position in ind[lo, end) holding a key >= key (end if none), searched from lo
// outwards (steps of 1, 2, 4, ...) then by halving: a thread's successive keys of one row
// are close to each other in the other operand's row
template <class I>
__device__ __forceinline__ long long hp_gallop(const I* __restrict__ ind, long long lo,
                                               long long end, long long key)
{
    long long hi = lo, step = 1;
    while (hi < end && (long long)ind[hi] < key) {
        lo = hi + 1;
        hi += step;
        step <<= 1;
    }
    hi = min(hi, end);
    while (lo < hi) {
        const long long mid = lo + ((hi - lo) >> 1);
        if ((long long)ind[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// a thread's search cursor in another CSR (ptr, ind): the position found for its last key,
// and that key's row
struct hp_cursor_t { long long row, pos, end; };

__device__ __forceinline__ hp_cursor_t hp_cursor() { hp_cursor_t c; c.row = -1; c.pos = c.end = 0; return c; }

// the first position of row `row` of (ptr, ind) with a key >= key (the row's end if none);
// keys of one row come in increasing order
template <class P, class I>
__device__ __forceinline__ long long hp_seek(const P* __restrict__ ptr, const I* __restrict__ ind,
                                             hp_cursor_t& cur, long long row, long long key)
{
    if (row != cur.row) {
        cur.row = row;
        cur.pos = (long long)ptr[row];
        cur.end = (long long)ptr[row + 1];
    }
    cur.pos = hp_gallop(ind, cur.pos, cur.end, key);
    return cur.pos;
}

// whether row `row` of (ptr, ind) holds key (its position, or where it would be, in cur.pos)
template <class P, class I>
__device__ __forceinline__ bool hp_has(const P* __restrict__ ptr, const I* __restrict__ ind,
                                       hp_cursor_t& cur, long long row, long long key)
{
    const long long pos = hp_seek(ptr, ind, cur, row, key);
    return pos < cur.end && (long long)ind[pos] == key;
}

// the block's sum of v (thread 0's result)
__device__ __forceinline__ long long hp_block_sum(int v, int* s_w)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) s_w[threadIdx.x >> 5] = v;
    __syncthreads();
    long long sum = 0;
    if (threadIdx.x == 0)
        for (int i = 0; i < HP_TPB / 32; ++i) sum += s_w[i];
    __syncthreads();
    return sum;
}

// the sum of v over the block's threads before this one
__device__ __forceinline__ int hp_block_before(int v, int* s_w)
{
    const int lane = threadIdx.x & 31, wp = threadIdx.x >> 5;
    int x = v;
    for (int off = 1; off < 32; off <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x += y;
    }
    if (lane == 31) s_w[wp] = x;
    __syncthreads();
    int before = x - v;
    for (int i = 0; i < wp; ++i) before += s_w[i];
    __syncthreads();
    return before;
}

// the row pointers of the rows that start inside the chunk [b0, b1): optr[r] = base + the
// kept entries of the chunk before P[r] (thread t's entries are b0 + t * HP_IPT + u, u < HP_IPT;
// s_keep[t]: bit u set when kept, s_before[t]: the kept entries of the threads before t)
// A slice of more than HP_RUN_ROWS rows holds long runs of empty rows (their number is not
// bounded by the chunk's size): the chunk then writes only its non-empty rows, found from its
// entries, and sets *runs; the tail kernel (hp_tail_fill) fills the empty rows with the whole
// grid (one block looping over a run of ~10^6 empty rows took ~1.3 ms on an H200)
#define HP_RUN_ROWS (8 * HP_CH)
template <class P, class O>
__device__ __forceinline__ void hp_walk_ptrs(const P* __restrict__ ptr, const long long* s_p,
        const hp_walk_t& w, long long b0, long long b1, const unsigned* s_keep,
        const int* s_before, long long base, O* __restrict__ optr, unsigned* __restrict__ runs)
{
    if (w.nr <= HP_RUN_ROWS) {
        for (long long i = threadIdx.x; i < w.nr; i += blockDim.x) {
            const long long v = hp_walk_ptr(ptr, s_p, w, i);
            if (v >= b0 && v < b1) {
                const int t = (int)((v - b0) / HP_IPT), u = (int)((v - b0) % HP_IPT);
                optr[w.q0 + i] = (O)(base + s_before[t] + __popc(s_keep[t] & ((1u << u) - 1u)));
            }
        }
        return;
    }
    // the thread's entries in order, their rows by a walk from the slice's first row
    hp_walk_t v = w;
    v.x = 0;
    const long long k0 = b0 + (long long)threadIdx.x * HP_IPT;
    for (int u = 0; u < HP_IPT && k0 + u < b1; ++u) {
        const long long r = hp_walk_row(ptr, s_p, v, k0 + u);
        if ((long long)ptr[r] == k0 + u) {                    // the first entry of row r
            const int t = (int)threadIdx.x;
            optr[r] = (O)(base + s_before[t] + __popc(s_keep[t] & ((1u << u) - 1u)));
        }
    }
    if (threadIdx.x == 0) *runs = 1u;
}

// a compacting kernel's chunk, once its kept entries are staged (s_col / s_val, in order) and
// every thread's bits and prefix are in s_keep / s_before: the staged entries to
// [coff[c], coff[c + 1]) side by side and the row pointers of the rows that start in the chunk
template <class P, class O, class V>
__device__ __forceinline__ void hp_stage_store(const P* __restrict__ ptr, const long long* s_p,
        const hp_walk_t& w, long long c, long long b0, long long b1, const unsigned* s_keep,
        const int* s_before, const O* s_col, const V* s_val, const long long* __restrict__ coff,
        O* __restrict__ optr, O* __restrict__ ocol, V* __restrict__ oval,
        unsigned* __restrict__ runs)
{
    __syncthreads();
    const long long base = coff[c], total = coff[c + 1] - base;
    for (long long i = threadIdx.x; i < total; i += HP_TPB) {
        ocol[base + i] = s_col[i];
        oval[base + i] = s_val[i];
    }
    hp_walk_ptrs(ptr, s_p, w, b0, b1, s_keep, s_before, base, optr, runs);
}

// the row pointers of the rows after the last entry's row (rows[3 * (nch - 1) + 2]) up to n:
// the result's size coff[nch], by the whole grid (one block writing them took 0.33 ms for
// the 2.1M trailing rows of a few-entry operand on an H100); and when a chunk left runs of
// empty rows (*runs, hp_walk_ptrs), every empty row r: the pointer of the non-empty row
// that ends its run (the last row whose P equals P[r]), written by the chunk holding P[r]
template <class P, class O>
__device__ __forceinline__ void hp_tail_fill(const P* __restrict__ ptr,
        const long long* __restrict__ rows, long long nch, const long long* __restrict__ coff,
        long long n, O* __restrict__ optr, const unsigned* __restrict__ runs)
{
    const long long r0 = rows[3 * (nch - 1) + 2] + 1;
    const O v = (O)coff[nch];
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = r0 + (long long)blockIdx.x * blockDim.x + threadIdx.x; r <= n; r += stride)
        optr[r] = v;
    if (!*runs) return;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < r0; r += stride) {
        const long long p = (long long)ptr[r];
        if ((long long)ptr[r + 1] != p) continue;               // non-empty: written already
        optr[r] = optr[hp_last_le(ptr, r, r0, p)];
    }
}
"""


#: static shared memory a block of the compacting kernels may use (the 48 KiB limit, less a
#: margin for the small arrays)
SHARED_BYTES = 46 * 1024


def chunk_ipt(tpb: int, ipt: int, *item_sizes: int) -> int:
    """Entries per thread of a compacting kernel (at most ``ipt``): its row-pointer slots
    (8 bytes) and its staged entries (``item_sizes`` bytes each) fit :data:`SHARED_BYTES`."""
    per_entry = 8 + sum(item_sizes)
    return max(1, min(ipt, (SHARED_BYTES - 8 * tpb) // (tpb * per_entry)))


def widest_index(A) -> np.dtype:
    """The index dtype of a result holding every entry of ``A``, the widest a compacted result
    can need: both passes of a compacting kernel are sized for it (they must chunk alike)."""
    return _dt.index_dtype(A.nrows, A.ncols, int(A.csr.nnz))


def chunk_grid(chunks: int) -> tuple:
    """The grid of a chunk-walking kernel: a block per chunk, grid-stride past 65,535."""
    return (max(1, min(chunks, 65535)),)


def chunk_rows(xp, src: str, ptr, n: int, nnz: int, ch: int, name: str = "hp_gb_chunk_rows"):
    """``rows`` of kernel ``name`` of ``src`` (a wrapper of :data:`CHUNK_WALK`'s
    ``hp_chunk_rows`` for ``ptr``'s type) for the row pointers ``ptr`` of ``n`` rows and ``nnz`` entries in
    chunks of ``ch``: three int64 per chunk."""
    from . import _kern

    nch = -(-nnz // ch)
    rows = xp.empty(3 * nch, dtype=np.int64)
    if nch:
        _kern._launch(kernel(src, name), nch,
                      (ptr, np.int64(n), np.int64(nnz), rows))
    return rows


def reads_operand(mul, which: str) -> bool:
    """Whether the multiply's C expression mentions operand ``which`` (``"a"`` / ``"b"``)."""
    expr = mul.c_expr("hp_xa", "hp_xb", "hp_i", "hp_k")
    return re.search(r"\bhp_x" + which + r"\b", expr) is not None


def semiring_slots(sr, a_dtype, b_dtype) -> dict:
    """Template slots of :data:`COMMON` for the typed semiring ``sr`` and the stored value
    dtypes of ``A`` and ``B``."""
    add = sr.add
    term = add.c_is_terminal("a")
    atomic = add.c_atomic_body()
    return {
        "ATOMIC": ("    (void)p; (void)v; __trap();" if atomic is None else
                   "\n".join("    " + ln for ln in atomic.splitlines())),
        "PREAMBLE": sr.c_preamble,
        "X": _dt.c_type(sr.in_dtype),
        "Z": _dt.c_type(sr.out_dtype),
        "AV": _dt.c_type(np.dtype(a_dtype)),
        "BV": _dt.c_type(np.dtype(b_dtype)),
        "MUL": sr.mul.c_expr("hp_xa", "hp_xb", "hp_i", "hp_k"),
        "ADD": add.c_add("a", "b"),
        "TERM": "false" if term is None else term,
        "READ_A": "true" if reads_operand(sr.mul, "a") else "false",
        "READ_B": "true" if reads_operand(sr.mul, "b") else "false",
    }


def kernel(src: str, name: str):
    """The compiled kernel ``name`` of ``src`` (cached per source; the one compile path,
    :func:`hpgraph.graphblas._kern._kernel`)."""
    from . import _kern

    return _kern._kernel(src, name)
