// hpgraph vertex-program engine, part 5 of 5: the persistent loops (device loop, block loop)
// and the per-call setup kernels (initial frontier, property fill).

#if HP_PERSISTENT
// ---------------------------------------------------------------------------------------
// THE DEVICE LOOP: up to max_steps supersteps in one cooperative launch (every block
// resident), the phases of a superstep separated by grid barriers; the direction is chosen
// per superstep from the device state (dirmode 0: the rule, 1: push, 2: pull).  The barrier
// words (S_BAR) are zeroed with the other state words before every run; each launch of a run
// starts from the generation the previous one left.
__device__ __forceinline__ u64 hp_ld_acquire(const u64* p) {
    u64 v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void hp_st_release(u64* p, u64 v) {
    asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ u64 hp_arrive(u64* p) {
    u64 o;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(o) : "l"(p) : "memory");
    return o;
}

// Grid barrier (S_BAR: arrivals, generation).  Thread 0 of each block arrives with a
// release-acquire atomic (its block's writes, ordered before it by __syncthreads, become
// visible) and spins on the generation with acquire loads; the last to arrive resets the
// count, optionally closes the superstep (CLOSE: hp_close_at for parity `cur`, so APPLY needs
// no last-block detection of its own) and releases the others.  `gen` is the generation this
// barrier waits to end: each block counts its barriers (every block passes every barrier), so
// no load of the generation precedes the arrival.
template <bool CLOSE>
__device__ __forceinline__ void hp_grid_sync(u64* st, u64& gen, int cur = 0, u64* hist = nullptr,
                                             long long hist_cap = 1, int dir = 0)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        if (hp_arrive(st + S_BAR) == (u64)gridDim.x - 1ull) {
            st[S_BAR] = 0ull;
            if (CLOSE) hp_close_at(st, cur, hist, hist_cap, dir);
            hp_st_release(st + S_BAR + 1, gen + 1ull);
        } else {
            while (hp_ld_acquire(st + S_BAR + 1) == gen) { }
        }
    }
    ++gen;
    __syncthreads();
}

__device__ __forceinline__ u64 hp_word(const u64* st, int i) { return ((volatile const u64*)st)[i]; }

// The parameters of both device loops (the host passes the same arguments to either).
#define HP_LOOP_PARAMS long long n, int nparts, long long max_steps, u64 limit, int dirmode, int track, \
    const idx_t* __restrict__ ell_idx0, const w_t* __restrict__ ell_val0, int K0, \
    const idx_t* __restrict__ seg_row0, const long long* __restrict__ seg_ptr0, long long nseg0, \
    const idx_t* __restrict__ col0, const w_t* __restrict__ cval0, \
    const idx_t* __restrict__ indptr0, const idx_t* __restrict__ indices0, const w_t* __restrict__ vals0, \
    const idx_t* __restrict__ ell_idx1, const w_t* __restrict__ ell_val1, int K1, \
    const idx_t* __restrict__ seg_row1, const long long* __restrict__ seg_ptr1, long long nseg1, \
    const idx_t* __restrict__ col1, const w_t* __restrict__ cval1, \
    const idx_t* __restrict__ indptr1, const idx_t* __restrict__ indices1, const w_t* __restrict__ vals1, \
    y_t* y, unsigned* bm0, unsigned* bm1, idx_t* q0, idx_t* q1, idx_t* qh0, idx_t* qh1, \
    unsigned* tbm, idx_t* tq, const long long* __restrict__ deg, u64* st, u64* hist, \
    long long hist_cap$LOOP_PARAMS$PROPS_MUT_PARAMS

#if HP_IN_LOOP_UNIT(8)
extern "C" __global__ void __launch_bounds__(256)
hp_loop(HP_LOOP_PARAMS)
{
    // the barrier generation, read once: no block can end the first barrier before this block
    // arrives at it (the words are not reset between the launches of one run)
    u64 gen = hp_word(st, S_BAR + 1);
    for (long long it = 0; it < max_steps; ++it) {
        const u64 w = hp_state_lane(st);                       // grid-uniform words
        const int cur = (int)(hp_sw(w, S_EXEC) & 1ull);
        if (hp_sw(w, S_HALT) != 0ull || hp_sw(w, S_CNT + cur) == 0ull) break;
        const bool push = dirmode == 1 || (dirmode == 0 && hp_sw(w, S_EDG + cur) <= limit);
#if HP_FUSED
        // the push applies as it pushes (codegen.fused_kind: claims or relaxation, one gather
        // side): one grid barrier a superstep, closing it
        if (push) {
            hp_push_fused_w(w, indptr0, indices0, vals0, bm0, bm1, q0, q1, qh0, qh1, deg, $FUSE_ARGS, st, hist,
                            hist_cap, limit, 0$PROPS_ARGS);
            hp_grid_sync<true>(st, gen, cur, hist, hist_cap, 0);
        } else
#endif
        {
            if (push) {
                hp_push(indptr0, indices0, vals0, q0, q1, qh0, qh1, deg, y, tbm, tq, st, limit, 0, 0, track$PUSH_ARGS$PROPS_ARGS);
                if (nparts > 1)
                    hp_push(indptr1, indices1, vals1, q0, q1, qh0, qh1, deg, y, tbm, tq, st, limit, 0, 0, track$PUSH_ARGS$PROPS_ARGS);
            } else {
                if (K0 > 0) hp_pull_ell(ell_idx0, ell_val0, n, K0, bm0, bm1, y, st, limit, 0$PULL_ARGS$PROPS_ARGS);
                if (nseg0 > 0) {
                    hp_grid_sync<false>(st, gen);
                    hp_pull_coo(seg_row0, seg_ptr0, nseg0, col0, cval0, bm0, bm1, y, st, limit, 0$PULL_ARGS$PROPS_ARGS);
                }
                if (nparts > 1) {
                    hp_grid_sync<false>(st, gen);
                    if (K1 > 0) hp_pull_ell(ell_idx1, ell_val1, n, K1, bm0, bm1, y, st, limit, 0$PULL_ARGS$PROPS_ARGS);
                    if (nseg1 > 0) {
                        hp_grid_sync<false>(st, gen);
                        hp_pull_coo(seg_row1, seg_ptr1, nseg1, col1, cval1, bm0, bm1, y, st, limit, 0$PULL_ARGS$PROPS_ARGS);
                    }
                }
            }
            hp_grid_sync<false>(st, gen);
            const bool touched = push && HP_RECEIVED_ONLY;
#if HP_WITNESS && !HP_PACK
            hp_witness(pip0, pix0, pval0, pip1, pix1, pval1, indptr0, indices0, vals0, indptr1, indices1,
                       vals1, seg_row0, seg_ptr0, nseg0, col0, cval0, nparts, n, y, bm0, bm1, win, wedge, yk, tq, st, limit, 0, (int)push,
                       (int)touched$PROPS_ARGS);
            hp_grid_sync<false>(st, gen);
#endif
            hp_apply<false>(touched, n, y, bm0, bm1, q0, q1, qh0, qh1, tbm, tq, deg, st, hist, hist_cap, push ? 0 : 1$APPLY_ARGS$PROPS_ARGS);
            hp_grid_sync<true>(st, gen, cur, hist, hist_cap, push ? 0 : 1);
        }
#if HP_PRIORITY
        if (hp_word(st, S_FARPEND)) {                        // grid-uniform
            hp_far_min(n, far, st$PROPS_ARGS);
            hp_grid_sync<false>(st, gen);
            hp_far_take(n, far, bm0, bm1, q0, q1, qh0, qh1, deg, st, delta$PROPS_ARGS);
            hp_grid_sync<false>(st, gen);
        }
#endif
    }
}
#endif

// THE BLOCK LOOP: supersteps of a small frontier in ONE block, __syncthreads between the
// phases (no grid barrier, no cooperative launch), up to max_steps of them or until the
// frontier's push edges exceed `big` (the host then takes over with the whole device).  Only
// for programs that push and apply to the receivers (every phase then touches the frontier
// and the touched queue, never all n vertices) and have no priority (a far-set split scans
// every vertex).  Long thin graphs (grids, roads, paths) spend most supersteps here.  A fused
// program (codegen.fused_kind) pushes with its updates (hp_push_fused) and thread 0 closes.
#if HP_IN_LOOP_UNIT(7)
extern "C" __global__ void __launch_bounds__(256)
hp_block_loop(u64 big, HP_LOOP_PARAMS)
{
    for (long long it = 0; it < max_steps; ++it) {
        const u64 w = hp_state_lane(st);
        const int cur = (int)(hp_sw(w, S_EXEC) & 1ull);
        if (hp_sw(w, S_HALT) != 0ull || hp_sw(w, S_CNT + cur) == 0ull) break;
        if (hp_sw(w, S_EDG + cur) > big) break;
#if HP_FUSED
        hp_push_fused_w(w, indptr0, indices0, vals0, bm0, bm1, q0, q1, qh0, qh1, deg, $FUSE_ARGS, st, hist,
                        hist_cap, limit, 0$PROPS_ARGS);
        __syncthreads();
        if (threadIdx.x == 0) hp_close_at(st, cur, hist, hist_cap, 0);
        __syncthreads();
        continue;
#endif
        hp_push(indptr0, indices0, vals0, q0, q1, qh0, qh1, deg, y, tbm, tq, st, limit, 0, 0, track$PUSH_ARGS$PROPS_ARGS);
        if (nparts > 1)
            hp_push(indptr1, indices1, vals1, q0, q1, qh0, qh1, deg, y, tbm, tq, st, limit, 0, 0, track$PUSH_ARGS$PROPS_ARGS);
        __syncthreads();
#if HP_WITNESS && !HP_PACK
        hp_witness(pip0, pix0, pval0, pip1, pix1, pval1, indptr0, indices0, vals0, indptr1, indices1,
                   vals1, seg_row0, seg_ptr0, nseg0, col0, cval0, nparts, n, y, bm0, bm1, win, wedge, yk, tq, st, limit, 0, 1,
                   1$PROPS_ARGS);
        __syncthreads();
#endif
        // one block: hp_apply's last-block ticket is this block's, so it closes the superstep
        hp_apply<true>(true, n, y, bm0, bm1, q0, q1, qh0, qh1, tbm, tq, deg, st, hist, hist_cap, 0$APPLY_ARGS$PROPS_ARGS);
        __syncthreads();
    }
}
#endif
#endif

// ---------------------------------------------------------------------------------------
// The initial frontier (parity 0), on the device: queue, bitmask, size, push-edge count and
// heavy list from `nids` distinct vertex ids (`all`: every vertex, in order; `ids` unused).
// The host zeroes `st` and both bitmasks are zero; nothing is read back.
#if HP_IN_UNIT(6)
HP_KERNEL
hp_init_frontier(const idx_t* __restrict__ ids, long long nids, int all, const long long* __restrict__ deg,
                 unsigned* bm0, idx_t* q0, idx_t* qh0, u64* HP_MUT st, u64 track_edges)
{
    const int lane = threadIdx.x & 31;
    const long long stride = (long long)gridDim.x * blockDim.x;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        st[S_CNT] = (u64)nids;
        st[S_HALT] = nids == 0 ? 1ull : 0ull;
        st[S_TRACK] = track_edges;
    }
    for (long long base = (long long)blockIdx.x * blockDim.x; base < nids; base += stride) {
        const long long i = base + threadIdx.x;
        long long d = 0;
        if (i < nids) {
            const idx_t v = all ? (idx_t)i : ids[i];
            q0[i] = v;
            atomicOr(bm0 + (v >> 5), 1u << (v & 31));
            d = deg[v];
            if (d > HP_HEAVY) hp_heavy_add(qh0, st + S_HCNT, v, d);
        }
        for (int off = 16; off > 0; off >>= 1) d += __shfl_down_sync(HP_FULL, d, off);
        if (lane == 0 && d) atomicAdd(st + S_EDG, (u64)d);
    }
}
#endif

// ---------------------------------------------------------------------------------------
// One launch for a whole per-call setup (engine.gpu._Run.start): the state words and a small
// initial frontier (`frontier`: up to 8 ids passed by value -- no upload, no separate zeroing
// of `st`), and the properties given as scalars or seeded rules, all in one grid-stride pass.
// Per property i, 2 bits of `fmode`: 0 leave (copied by the host), 1 fill with D_<p>, 2 fill
// with the vertex id; 2 bits of `smode` for the initial frontier's vertices: 0 as the fill,
// 1 the value S_<p>, 2 the vertex id.  Values travel as raw bits (one 64-bit word each), so
// every property dtype passes the same way.  Block 0 zeroes `st` before its own atomics
// (ordered by __syncthreads) and sets S_REACHED when `reached`; no other block touches `st`.
// The bitmasks are zero here.
template <class T>
__device__ __forceinline__ T hp_unbits(u64 b) { T x; memcpy(&x, &b, sizeof(T)); return x; }

#if HP_IN_UNIT(6)
HP_KERNEL
hp_init_fused(long long n, int frontier, long long nids, long long i0, long long i1, long long i2,
              long long i3, long long i4, long long i5, long long i6, long long i7,
              const long long* __restrict__ deg, unsigned* bm0, idx_t* q0, idx_t* qh0,
              u64* HP_MUT st, u64 track_edges, u64 reached, long long fmode,
              long long smode$FILL_PARAMS$PROPS_MUT_PARAMS)
{
    const long long ids[8] = {i0, i1, i2, i3, i4, i5, i6, i7};
    if (frontier && blockIdx.x == 0) {       // block-uniform: __syncthreads is safe
        if (threadIdx.x < HP_ST_WORDS) st[threadIdx.x] = 0ull;
        __syncthreads();
        if (threadIdx.x == 0) {
            st[S_CNT] = (u64)nids;
            st[S_HALT] = nids == 0 ? 1ull : 0ull;
            st[S_TRACK] = track_edges;
        }
        if ((long long)threadIdx.x < nids) {
            const idx_t v = (idx_t)ids[threadIdx.x];
            q0[threadIdx.x] = v;
            atomicOr(bm0 + (v >> 5), 1u << (v & 31));
            const long long d = deg[v];
            if (d > HP_HEAVY) hp_heavy_add(qh0, st + S_HCNT, v, d);
            if (d) atomicAdd(st + S_EDG, (u64)d);
        }
    }
    // pulls take senders by their relaxed property (hp_sends); after the zeroing above
    if (reached && blockIdx.x == 0 && threadIdx.x == 0) st[S_REACHED] = 1ull;
    if (fmode == 0) return;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        // the modes look loop-variant to the compiler (an empty asm): otherwise it unswitches
        // the loop on every mode bit, and NVRTC's time grows with each copy of the body
        long long fmode_v = fmode, smode_v = smode;
        asm volatile("" : "+l"(fmode_v), "+l"(smode_v));
        bool hit = false;                    // v is one of the (inline) initial frontier's
        if (smode_v != 0) {
#pragma unroll
            for (int j = 0; j < 8; ++j) hit = hit || (j < nids && v == ids[j]);
        }
        (void)hit;
$FILL_BODY
    }
}
#endif
