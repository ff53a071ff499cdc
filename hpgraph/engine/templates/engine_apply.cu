// hpgraph vertex-program engine, part 4 of 5: APPLY (update, change test, next frontier,
// superstep close) and the priority split of the far set.

// ---------------------------------------------------------------------------------------
// APPLY, fused: update, change test, property writes, y reset to the identity, active
// bitmask (atomicOr), frontier queue (warp-aggregated append), frontier size and push-edge
// count; then clears the consumed frontier's bits and (last block) closes the superstep.
// The end of a superstep, by one thread once every block is done with APPLY or the push
// (the caller knows the current parity `cur`, and its view of the state is coherent: the last
// block's after hp_last_block, the device loop's barrier after its acquiring arrival, the
// block loop's): history record, counter resets, parity flip; an empty next frontier halts the
// run (or, with vertices waiting for a priority threshold, asks for a split).  Every word it
// reads is loaded at once: one round trip, where reading the parity first took three.
__device__ __forceinline__ void hp_close_at(u64* st, int cur, u64* hist, long long hist_cap, int dir)
{
    const int nxt = cur ^ 1;
    volatile u64* vs = st;
    const u64 exec = vs[S_EXEC], step = vs[S_STEP], cnt = vs[S_CNT + cur], edg = vs[S_EDG + cur];
    const u64 cnt_nxt = vs[S_CNT + nxt];
    const u64 nfar = HP_PRIORITY ? vs[S_FARCNT] : 0ull;
    u64* h = hist + (long long)(step % (u64)hist_cap) * 3;
    h[0] = cnt;
    h[1] = edg;
    h[2] = (u64)dir;
    st[S_STEP] = step + 1ull;
    st[S_CNT + cur] = 0ull;
    st[S_EDG + cur] = 0ull;
    st[S_HCNT + cur] = 0ull;
    st[S_TCNT] = 0ull;
    st[S_DONE] = 0ull;
    st[S_EXEC] = exec + 1ull;
    if (cnt_nxt == 0ull) {
        if (HP_PRIORITY && nfar != 0ull) st[S_FARPEND] = 1ull;
        else st[S_HALT] = 1ull;
    }
}

// One copy (not inlined): the APPLY kernel, the block loop and the device loop call it, so
// the program's update is compiled once -- NVRTC's time grows with every inlined copy.
// Vertex counts from which APPLY counts the next frontier by block, not by warp (below).
#define HP_BLOCK_COUNT_MIN 65536

template <bool SELF_CLOSE = true>
__device__ __noinline__ void hp_apply(bool touched, long long n, y_t* HP_MUT y,
        unsigned* bm0, unsigned* bm1, idx_t* q0, idx_t* q1, idx_t* qh0, idx_t* qh1, unsigned* HP_MUT tbm,
        const idx_t* HP_MUT tq, const long long* __restrict__ deg,
        u64* HP_MUT st, u64* HP_MUT hist, long long hist_cap, int dir$APPLY_PARAMS$PROPS_MUT_PARAMS)
{
    __shared__ unsigned s_wcnt[32];     // per warp: active count, then its queue offset
    __shared__ u64 s_wedg[32];          // per warp: push edges of its active vertices
    __shared__ u64 s_base;              // the block's first queue slot in this pass
#if HP_PRIORITY
    __shared__ int s_wfar[32];          // per warp: far-set size change
#endif
    if (st[S_HALT]) return;
    const int cur = (int)(st[S_EXEC] & 1ull), nxt = cur ^ 1;
    const u64 cnt = st[S_CNT + cur];
    if (cnt == 0ull) return;
    touched = touched && hp_tracks(st, cur);
    unsigned* bm_cur = cur ? bm1 : bm0;
    unsigned* bm_nxt = cur ? bm0 : bm1;
    const idx_t* q_cur = cur ? q1 : q0;
    idx_t* q_nxt = cur ? q0 : q1;
    idx_t* qh_nxt = cur ? qh0 : qh1;
    const long long N = touched ? (long long)st[S_TCNT] : n;
    const int lane = threadIdx.x & 31;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < N; base += stride) {
        const long long i = base + threadIdx.x;
        bool act = false, to_far = false, from_far = false;
        (void)to_far; (void)from_far;
        long long d = 0;
        idx_t v = 0;
        if (i < N) {
            v = touched ? tq[i] : (idx_t)i;
            y_t yv = y[v];
            if (touched) tbm[v >> 5] = 0u;          // every bit of the word is being cleared
            if (!hp_is_identity(yv)) y[v] = hp_identity();   // y == identity between supersteps
#if HP_PACK
            // packed exact winners (pushes, split pull rows): the better of them and y's
            const u64 pk = yk[v];
            if (pk != ~0ull) {
                yk[v] = ~0ull;                      // ~0 between supersteps
                if (hp_is_identity(yv) || pk < hp_pack(yv, win[v])) {
                    yv = hp_vunkey((unsigned)(pk >> 32));
                    win[v] = (idx_t)(unsigned)(pk & 0xffffffffull);
                }
            }
#endif
            const bool none = hp_is_identity(yv);
            if (!(HP_RECEIVED_ONLY && none)) {
                bool changed = false;
$UPDATE_BODY
#if HP_WITNESS
                if (changed && !none) P_$WITNESS_PROP[v] = ($WITNESS_T)win[v];
#endif
#if HP_PRIORITY
                if (changed && !hp_near(P_$PRIORITY_PROP[v], st)) {
                    // waits in the far set until the threshold reaches it
                    const unsigned bit = 1u << (v & 31);
                    to_far = !(atomicOr(far + (v >> 5), bit) & bit);
                    changed = false;
                } else if (changed) {
                    const unsigned bit = 1u << (v & 31);
                    if (far[v >> 5] & bit) from_far = (atomicAnd(far + (v >> 5), ~bit) & bit) != 0u;
                }
#endif
                if (changed) {
                    atomicOr(bm_nxt + (v >> 5), 1u << (v & 31));
                    act = true;
                    d = deg[v];
                    if (d > HP_HEAVY) hp_heavy_add(qh_nxt, st + S_HCNT + nxt, v, d);
                }
            }
        }
        // The next frontier's size, push-edge count (and far-set size) and queue slots.  Many
        // vertices: one atomic per block and pass on each shared word, not one per warp --
        // every warp's atomics on the same two words serialised in L2 (APPLY over 2.1 M
        // vertices took ~110 us, 86% of it waiting on them).  Few (touched lists of long thin
        // graphs): one per warp, without the block's barriers (they cost ~2% there).  `N` is
        // grid-uniform and the loop block-uniform, so __syncthreads is safe.
        const unsigned m = __ballot_sync(HP_FULL, act);
        for (int off = 16; off > 0; off >>= 1) d += __shfl_down_sync(HP_FULL, d, off);
        const int warp = threadIdx.x >> 5;
#if HP_PRIORITY
        const int nfw = __popc(__ballot_sync(HP_FULL, to_far)) - __popc(__ballot_sync(HP_FULL, from_far));
#endif
        if (N < HP_BLOCK_COUNT_MIN) {
#if HP_PRIORITY
            if (lane == 0 && nfw != 0) atomicAdd(st + S_FARCNT, (u64)(long long)nfw);
#endif
            if (m) {
                const int leader = __ffs(m) - 1;
                u64 pos = 0;
                if (lane == leader) pos = atomicAdd(st + S_CNT + nxt, (u64)__popc(m));
                if (lane == 0) atomicAdd(st + S_EDG + nxt, (u64)d);
                pos = __shfl_sync(HP_FULL, pos, leader);
                if (act) q_nxt[pos + __popc(m & ((1u << lane) - 1u))] = v;
            }
            continue;
        }
        if (lane == 0) {
            s_wcnt[warp] = (unsigned)__popc(m);
            s_wedg[warp] = (u64)d;
#if HP_PRIORITY
            s_wfar[warp] = nfw;
#endif
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned tot = 0u;
            u64 edg = 0ull;
            long long nf = 0;
            (void)nf;
            for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
                const unsigned c = s_wcnt[w];
                s_wcnt[w] = tot;                    // exclusive prefix: the warp's offset
                tot += c;
                edg += s_wedg[w];
#if HP_PRIORITY
                nf += s_wfar[w];
#endif
            }
            s_base = tot ? atomicAdd(st + S_CNT + nxt, (u64)tot) : 0ull;
            if (edg) atomicAdd(st + S_EDG + nxt, edg);
#if HP_PRIORITY
            if (nf) atomicAdd(st + S_FARCNT, (u64)nf);
#endif
        }
        __syncthreads();
        if (act) q_nxt[s_base + s_wcnt[warp] + __popc(m & ((1u << lane) - 1u))] = v;
        __syncthreads();                            // before the next pass writes s_wcnt
    }
    // x_bitmask <- 0: only the consumed frontier's words can be non-zero
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)cnt; i += stride)
        bm_cur[q_cur[i] >> 5] = 0u;
    if (!SELF_CLOSE) return;            // the device loop closes the superstep in its barrier
    if (hp_last_block(st + S_DONE)) {
        hp_close_at(st, cur, hist, hist_cap, dir);
        __threadfence();
    }
}

// One APPLY kernel, the pass chosen by a launch argument rather than by three entry points:
// NVRTC specialised hp_apply for each entry point's constant, so three kernels took 1.8x one
// kernel's compile time, or three compile units.  mode 0: every vertex (after a pull, or a
// push of a program applying to all); 1: the receivers a push recorded (hp_tracks; else
// every vertex); 2: a mixed batch's superstep, after whichever SPMV the direction rule ran
// (same predicate, hp_pushes; `dir` is then ignored); 3: as 2 after a pull only (a fused
// program's mixed step pushes after APPLY, hp_push_fused).
#define HP_APPLY_ALL 0
#define HP_APPLY_TOUCHED 1
#define HP_APPLY_AUTO 2
#define HP_APPLY_PULLED 3

#if HP_IN_UNIT(4)
HP_KERNEL
hp_apply_step(int mode, u64 limit, long long n, y_t* HP_MUT y, unsigned* bm0, unsigned* bm1, idx_t* q0, idx_t* q1,
              idx_t* qh0, idx_t* qh1, unsigned* HP_MUT tbm, const idx_t* HP_MUT tq, const long long* __restrict__ deg,
              u64* HP_MUT st, u64* HP_MUT hist, long long hist_cap, int dir$APPLY_PARAMS$PROPS_MUT_PARAMS)
{
    bool touched = mode == HP_APPLY_TOUCHED;
    if (mode >= HP_APPLY_AUTO) {
        if (st[S_HALT]) return;
        const int cur = (int)(st[S_EXEC] & 1ull);
        if (st[S_CNT + cur] == 0ull) return;
        // read before any block's APPLY closes the superstep: every block decides alike
        const bool pushed = hp_pushes(st, cur, limit);
        if (pushed && mode == HP_APPLY_PULLED) return;
        touched = pushed && HP_RECEIVED_ONLY;
        dir = pushed ? 0 : 1;
    }
    hp_apply(touched, n, y, bm0, bm1, q0, q1, qh0, qh1, tbm, tq, deg, st, hist, hist_cap, dir$APPLY_ARGS$PROPS_ARGS);
}
#endif

#if HP_PRIORITY
// ---------------------------------------------------------------------------------------
// PRIORITY, the split: only when APPLY found the next frontier empty with vertices waiting
// (S_FARPEND).  hp_far_min finds the best waiting value; hp_far_take moves the threshold past
// it (best + delta) and makes the waiting vertices within it the frontier of the parity APPLY
// just made current.  Only NaN values waiting (float keys, S_FARBEST == 0): all are taken and
// the threshold stays.  One thread per far-bitmap word, which it alone writes in this phase.
#if HP_IN_UNIT(6)
HP_KERNEL
hp_far_min(long long n, const unsigned* HP_MUT far, u64* HP_MUT st$PROPS_CONST_PARAMS)
{
    if (st[S_HALT] || !st[S_FARPEND]) return;
    const long long nw = (n + 31) >> 5;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < nw; base += stride) {
        const long long w = base + threadIdx.x;
        u64 best = 0ull;                                       // max of ~key
        if (w < nw) {
            for (unsigned b = far[w]; b; b &= b - 1u) {
                const idx_t v = (idx_t)(w * 32 + (__ffs(b) - 1));
                const u64 nk = ~hp_prio_key(P_$PRIORITY_PROP[v]);
                best = nk > best ? nk : best;
            }
        }
        for (int off = 16; off > 0; off >>= 1) {
            const u64 o = __shfl_down_sync(HP_FULL, best, off);
            best = o > best ? o : best;
        }
        if ((threadIdx.x & 31) == 0 && best) atomicMax(st + S_FARBEST, best);
    }
}
#endif

#if HP_IN_UNIT(6)
HP_KERNEL
hp_far_take(long long n, unsigned* HP_MUT far, unsigned* bm0, unsigned* bm1, idx_t* q0, idx_t* q1,
            idx_t* qh0, idx_t* qh1, const long long* __restrict__ deg, u64* HP_MUT st,
            prio_t delta$PROPS_CONST_PARAMS)
{
    if (st[S_HALT] || !st[S_FARPEND]) return;
    const int cur = (int)(st[S_EXEC] & 1ull);
    unsigned* bm = cur ? bm1 : bm0;
    idx_t* q = cur ? q1 : q0;
    idx_t* qh = cur ? qh1 : qh0;
    const u64 fb = st[S_FARBEST];
    const bool all = HP_PRIO_FLOAT && fb == 0ull;
    const prio_t thr = hp_prio_threshold(hp_prio_unkey(~fb), delta);
    const int lane = threadIdx.x & 31;
    const long long nw = (n + 31) >> 5;
    const long long stride = (long long)gridDim.x * blockDim.x;
    u64 taken = 0ull;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < nw; base += stride) {
        const long long w = base + threadIdx.x;
        unsigned take = 0u;
        long long d = 0;
        if (w < nw) {
            const unsigned bits = far[w];
            for (unsigned b = bits; b; b &= b - 1u) {
                const int i = __ffs(b) - 1;
                const prio_t x = P_$PRIORITY_PROP[(idx_t)(w * 32 + i)];
                if (all || (HP_PRIO_MAX ? x >= thr : x <= thr)) take |= 1u << i;
            }
            if (take) {
                far[w] = bits & ~take;
                bm[w] = take;            // the frontier is empty: its bitmap words are zero
            }
        }
        // queue positions: warp-wide exclusive scan of the per-thread counts
        const int c = __popc(take);
        int incl = c;
        for (int off = 1; off < 32; off <<= 1) {
            const int o = __shfl_up_sync(HP_FULL, incl, off);
            if (lane >= off) incl += o;
        }
        const int total = __shfl_sync(HP_FULL, incl, 31);
        u64 pos = 0ull;
        if (lane == 31 && total) pos = atomicAdd(st + S_CNT + cur, (u64)total);
        pos = __shfl_sync(HP_FULL, pos, 31) + (u64)(incl - c);
        for (unsigned b = take; b; b &= b - 1u) {
            const idx_t v = (idx_t)(w * 32 + (__ffs(b) - 1));
            q[pos++] = v;
            const long long dv = deg[v];
            d += dv;
            if (dv > HP_HEAVY) hp_heavy_add(qh, st + S_HCNT + cur, v, dv);
        }
        for (int off = 16; off > 0; off >>= 1) d += __shfl_down_sync(HP_FULL, d, off);
        if (lane == 0 && d) atomicAdd(st + S_EDG + cur, (u64)d);
        if (lane == 31 && total) taken += (u64)total;
    }
    if (taken) atomicAdd(st + S_FARCNT, (u64)0 - taken);
    if (hp_last_block(st + S_FDONE)) {
        if (!all) {
            st[S_THR] = hp_prio_bits(thr);
            st[S_TSET] = 1ull;
        }
        st[S_FARBEST] = 0ull;
        st[S_FDONE] = 0ull;
        st[S_FARPEND] = 0ull;
        if (atomicAdd(st + S_CNT + cur, 0ull) == 0ull) st[S_HALT] = 1ull;
        __threadfence();
    }
}
#endif
#endif

#if HP_FUSED && HP_IN_UNIT(2)
// ---------------------------------------------------------------------------------------
// PUSH and APPLY in one launch, in one of two forms (codegen.fused_kind):
//
// HP_FUSED 1, claims (codegen.fuse_ok: an `any` reduce applied to the receivers, one gather
// side, no priority, and a program that declares mask_excludes_active -- its mask rejects
// every vertex of the frontier, so no sender is also a receiver).  The first sender to claim
// a receiver v runs the update with its own gathered value (any received value is a valid
// `any`), so no y, no touched list and no APPLY pass are needed: claims are superstep stamps
// (stamp[v] = S_STEP + 1 by atomicMax; the host zeroes them per run).  Other senders read v's
// properties only through the mask and the gather before their claim fails (a stale value is
// harmless there: the stamp decides), and their values are then dropped; the senders' own
// properties do not change during the superstep (none is a receiver).
//
// HP_FUSED 2, relaxation (codegen.relax_ok, hpgraph/engine/relax.py: update P = min(P, y)
// under min -- max alike --, a gather non-decreasing in the sender's P that reads nothing of
// the receiver).  Every sender combines its value into P[v] with the monoid's atomic, as
// SSSP kernels relax edges; v joins the next frontier once (its bit, set by atomicOr, decides
// who appends it), or with a priority the far set when the value is beyond the threshold.  A
// sender whose own P dropped during the superstep sends the lower value (coherent loads):
// the fixed point is the same.  A witness is the sender that brought v to its final value:
// every sender that lowers v strictly (the atomic's previous value tells) packs value and id
// into rk[v] by a 64-bit atomicMin -- no two of them send the same value, so the winners form
// a tree even over zero-weight cycles --, and hp_relax_witness copies the senders of the
// final values into the witness property after the run.
//
// Then the last block closes the superstep.  `mode` 0: always run; 1 (a fused program's mixed
// step): run only if the frontier has at most `limit` push edges; 2: a frontier with more
// push edges than `limit` aborts the batch.  In the device loop (HP_PERSISTENT) this is a
// device function and the loop's grid barrier closes the superstep instead of the last block.
//
// The fused push's mask and gather: the same bodies with L2 (coherent) loads, since the
// kernel writes properties while it runs (a non-coherent load must see data that is
// read-only for the kernel's lifetime).
__device__ __forceinline__ bool hp_mask_cg(idx_t v$PROPS_CONST_PARAMS) {
$MASK_BODY_CG
}
__device__ __forceinline__ y_t hp_gather_cg(idx_t u, w_t w, idx_t v$PROPS_CONST_PARAMS) {
$GATHER_BODY_CG
}

#if HP_FUSED == 1
// Claim v for sender u (value yv) and, if this sender won, run the update: the program's
// update compiled once for the kernel's two loops (NVRTC's time grows with every inlined
// copy), called only for senders that passed the mask and the stamp.  Returns v's push
// degree when v changed, else -1.
__device__ __noinline__ long long hp_fused_apply(idx_t u, idx_t v, y_t yv, unsigned tag, unsigned* stamp,
        unsigned* bm_nxt, idx_t* qh_nxt, u64* hcnt, const long long* __restrict__ deg$PROPS_PLAIN_PARAMS)
{
    (void)u;
    if (atomicMax(stamp + v, tag) >= tag) return -1;                      // another sender won
    bool changed = false;
$UPDATE_BODY
#if HP_WITNESS
    if (changed) P_$WITNESS_PROP[v] = ($WITNESS_T)u;
#endif
    if (!changed) return -1;
    atomicOr(bm_nxt + (v >> 5), 1u << (v & 31));
    const long long d = deg[v];
    if (d > HP_HEAVY) hp_heavy_add(qh_nxt, hcnt, v, d);
    return d;
}
#else
// Combine sender u's value yv into P[v] (P: the relaxed property).  Returns v's push degree
// when this call queued v for the next frontier, else -1; `nfar` counts far-set entries
// added (+1) and removed (-1).
__device__ __forceinline__ long long hp_relax(idx_t u, idx_t v, y_t yv, y_t* P, unsigned* bm_nxt,
        idx_t* qh_nxt, u64* hcnt, const long long* __restrict__ deg, unsigned* far, u64* rk,
        bool tset, prio_t thr, bool filter, int& nfar)
{
    (void)u; (void)far; (void)rk; (void)tset; (void)thr; (void)nfar;
    if (filter) {   // large frontiers: most messages improve nothing (hubs settle early), and
                    // a load skips their atomics (an older value only lets more through)
        const y_t old = *((volatile y_t*)(P + v));
        const y_t nv = hp_add(old, yv);
        if ($RELAX_SAME) return -1;
    }
    // loads issued before the atomics they would otherwise wait for (small frontiers: the
    // superstep is a chain of memory round trips)
    const long long d = deg[v];
#if HP_PRIORITY
    const unsigned fw = far[v >> 5];   // a plain load: an older word that misses the bit leaves
                                       // v waiting too (taken again by the next split)
#endif
    {   // the value before the atomic decides whether this sender improved v (small
        // frontiers filter nothing first: that round trip cost more than the atomics it saved
        // -- grid SSSP 46.9 against 44.7 ms on an H100)
        const y_t old = hp_atomic_old(P + v, yv);
        const y_t nv = hp_add(old, yv);
        if ($RELAX_SAME) return -1;
    }
#if HP_WITNESS
    // this sender brought v strictly lower, so no other improver of v sent the same value:
    // the smallest packed word (a reduction nothing waits for) holds the sender of v's best
    atomicMin(rk + v, hp_pack(yv, u));
#endif
    const unsigned bit = 1u << (v & 31);
#if HP_PRIORITY
    if (!hp_near_at(yv, tset, thr)) {                           // waits in the far set
        if (!(atomicOr(far + (v >> 5), bit) & bit)) ++nfar;
        return -1;
    }
    if ((fw & bit) && (atomicAnd(far + (v >> 5), ~bit) & bit)) --nfar;   // the atomic counts
#endif
    if (atomicOr(bm_nxt + (v >> 5), bit) & bit) return -1;                 // queued already
    if (d > HP_HEAVY) hp_heavy_add(qh_nxt, hcnt, v, d);
    return d;
}
#endif

// The fused push given the state words `w` (hp_state_lane): the kernel hp_push_fused below
// loads them first; the device loops pass the words they loaded at the superstep's start.
__device__ __forceinline__ void
hp_push_fused_w(u64 w, const idx_t* __restrict__ indptr, const idx_t* __restrict__ indices, const w_t* __restrict__ vals,
              unsigned* bm0, unsigned* bm1, idx_t* q0, idx_t* q1, idx_t* qh0, idx_t* qh1,
              const long long* __restrict__ deg, $FUSE_PARAMS, u64* st, u64* hist, long long hist_cap,
              u64 limit, int mode$PROPS_PLAIN_PARAMS)
{
    if (hp_sw(w, S_HALT)) return;
    const int cur = (int)(hp_sw(w, S_EXEC) & 1ull), nxt = cur ^ 1;
    const u64 cnt = hp_sw(w, S_CNT + cur);
    if (cnt == 0ull) return;
    const u64 edg = hp_sw(w, S_EDG + cur);
    if (mode != 0 && !(edg <= limit)) {                                   // hp_pushes
        if (mode == 2 && blockIdx.x == 0 && threadIdx.x == 0) st[S_HALT] = 2ull;
        return;
    }
    const idx_t* q = cur ? q1 : q0;
    const idx_t* qh = cur ? qh1 : qh0;
    unsigned* bm_cur = cur ? bm1 : bm0;
    unsigned* bm_nxt = cur ? bm0 : bm1;
    idx_t* q_nxt = cur ? q0 : q1;
    idx_t* qh_nxt = cur ? qh0 : qh1;
    const u64 hcnt = hp_sw(w, S_HCNT + cur);
#if HP_FUSED == 1
    const unsigned tag = (unsigned)hp_sw(w, S_STEP) + 1u;
    // relax one edge; true when v changed (d: its push degree, for the next frontier's count)
    auto relax = [&](idx_t u, long long e, idx_t& v, long long& d) -> bool {
        v = __ldg(indices + e);
        if (!hp_mask_cg(v$PROPS_ARGS)) return false;
        if (*((volatile unsigned*)(stamp + v)) >= tag) return false;     // claimed already
        const y_t yv = hp_gather_cg(u, HP_EDGE(vals, e), v$PROPS_ARGS);
        if (hp_is_identity(yv)) return false;              // received nothing (as in APPLY)
        d = hp_fused_apply(u, v, yv, tag, stamp, bm_nxt, qh_nxt, st + S_HCNT + nxt, deg$PROPS_ARGS);
        return d >= 0;
    };
#else
    int nfar = 0;
    // the priority's threshold does not change during a push superstep: read once
    const bool tset = HP_PRIORITY && hp_sw(w, S_TSET) != 0ull;
    const prio_t thr = hp_prio_from_bits(hp_sw(w, S_THR));
    const bool filter = !(edg <= hp_sw(w, S_TRACK));                  // !hp_tracks
    // relax one edge; true when it queued v (d: its push degree)
    auto relax = [&](idx_t u, long long e, idx_t& v, long long& d) -> bool {
        v = __ldg(indices + e);
        const y_t yv = hp_gather_cg(u, HP_EDGE(vals, e), v$PROPS_ARGS);
        if (hp_is_identity(yv)) return false;
        d = hp_relax(u, v, yv, P_$RELAX_PROP, bm_nxt, qh_nxt, st + S_HCNT + nxt, deg, far, rk, tset,
                     thr, filter, nfar);
        return d >= 0;
    };
#endif
    // the next frontier: each warp gathers its new vertices in shared memory and reserves
    // queue slots 32 at a time (a frontier of a million vertices would otherwise take an
    // atomic on the one count word per warp and edge round); push edges (and far-set
    // changes) summed per block in shared memory, added to the state words once at the end
    __shared__ u64 s_edg;
    __shared__ long long s_far;
    __shared__ idx_t s_q[8][64];                      // 256-thread blocks: 8 warps
    idx_t* wq = s_q[threadIdx.x >> 5];
    int wn = 0;                                       // buffered, the same in the whole warp
    const int lane = threadIdx.x & 31;
    if (threadIdx.x == 0) { s_edg = 0ull; s_far = 0; }
    __syncthreads();
    auto flush = [&](int k) {                        // the first k buffered to the queue
        __syncwarp();
        u64 base = 0;
        if (lane == 0) base = atomicAdd(st + S_CNT + nxt, (u64)k);
        base = __shfl_sync(HP_FULL, base, 0);
        if (lane < k) q_nxt[base + lane] = wq[lane];
        __syncwarp();
        if (lane + k < wn) wq[lane] = wq[lane + k];
        wn -= k;
        __syncwarp();
    };
    auto append = [&](bool add, idx_t v, long long d) {   // warp-collective (hp_frontier_edges)
        const unsigned m = __ballot_sync(HP_FULL, add);
        if (m == 0u) return;
        if (add) {
            wq[wn + __popc(m & ((1u << lane) - 1u))] = v;
            if (d) atomicAdd(&s_edg, (u64)d);
        }
        wn += __popc(m);
        if (wn >= 32) flush(32);
    };
    hp_frontier_edges(indptr, q, qh, cnt, hcnt, deg, [&](bool valid, idx_t u, long long e) {
        idx_t v = 0;
        long long dv = 0;
        const bool add = valid && relax(u, e, v, dv);
        append(add, v, dv);
    });
    if (wn) flush(wn);
#if HP_FUSED == 2
    if (nfar) atomicAdd((unsigned long long*)&s_far, (unsigned long long)(long long)nfar);
#endif
    // x_bitmask <- 0 for the consumed frontier (nothing here reads it), then the last block
    // closes the superstep as APPLY's does
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)cnt; i += stride)
        bm_cur[q[i] >> 5] = 0u;
    __syncthreads();
    if (threadIdx.x == 0 && s_edg) atomicAdd(st + S_EDG + nxt, s_edg);
    if (threadIdx.x == 0 && s_far) atomicAdd(st + S_FARCNT, (u64)s_far);
#if !HP_PERSISTENT
    if (hp_last_block(st + S_DONE)) {
        hp_close_at(st, cur, hist, hist_cap, 0);
        __threadfence();
    }
#endif
}

#if !HP_PERSISTENT
#if HP_FUSED == 2
#define HP_FUSE_NAMES far, rk
#else
#define HP_FUSE_NAMES stamp
#endif
HP_PUSH_KERNEL
hp_push_fused(const idx_t* __restrict__ indptr, const idx_t* __restrict__ indices, const w_t* __restrict__ vals,
              unsigned* bm0, unsigned* bm1, idx_t* q0, idx_t* q1, idx_t* qh0, idx_t* qh1,
              const long long* __restrict__ deg, $FUSE_PARAMS, u64* st, u64* hist, long long hist_cap,
              u64 limit, int mode$PROPS_PLAIN_PARAMS)
{
    hp_push_fused_w(hp_state_lane(st), indptr, indices, vals, bm0, bm1, q0, q1, qh0, qh1, deg, HP_FUSE_NAMES,
                    st, hist, hist_cap, limit, mode$PROPS_ARGS);
}
#endif
#endif

#if HP_FUSED == 2 && HP_WITNESS && HP_IN_UNIT(6)
// After a relaxation run: the witness of every vertex whose final value a push brought (rk
// holds it with its sender) is that sender; vertices a pull superstep lowered last keep the
// winner APPLY wrote.
HP_KERNEL
hp_relax_witness(long long n, const u64* __restrict__ rk$PROPS_PLAIN_PARAMS)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const u64 pk = rk[v];
        if (pk == ~0ull) continue;
        if (hp_vunkey((unsigned)(pk >> 32)) == P_$RELAX_PROP[v])
            P_$WITNESS_PROP[v] = ($WITNESS_T)(unsigned)(pk & 0xffffffffull);
    }
}
#endif
