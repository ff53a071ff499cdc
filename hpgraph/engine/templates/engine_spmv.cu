// hpgraph vertex-program engine, part 2 of 5 (after engine.cu): the SPMV kernels, pull
// (ELL and the HYB COO tail) and push.  See engine.cu for the superstep and its state words.

// ---------------------------------------------------------------------------------------
// SPMV, pull: one thread per row of the ELL part (column-major, coalesced).
#if HP_IN_UNIT(1)
HP_KERNEL
hp_pull_ell(const idx_t* __restrict__ ell_idx, const w_t* __restrict__ ell_val, long long n, int K,
            const unsigned* HP_MUT bm0, const unsigned* HP_MUT bm1,
            y_t* HP_MUT y, const u64* HP_MUT st, u64 limit, int mode$PULL_PARAMS$PROPS_CONST_PARAMS)
{
    if (st[S_HALT]) return;
    const int cur = (int)(st[S_EXEC] & 1ull);
    if (st[S_CNT + cur] == 0ull) return;
    if (mode == 1 && hp_pushes(st, cur, limit)) return;   // mixed: this superstep pushes
    const unsigned* HP_MUT bm = cur ? bm1 : bm0;
    (void)bm;
    const bool reached = HP_PULL_REACHED && st[S_REACHED] != 0ull;
    (void)reached;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        if (HP_HAS_MASK && !hp_mask((idx_t)v$PROPS_ARGS)) continue;   // y[v] stays the identity
        y_t acc = y[v];
        if (HP_HAS_TERMINAL && hp_is_terminal(acc)) continue;
        // the winner so far (an earlier gather side's, when there are two)
        idx_t wu = 0;
#if HP_WITNESS
        wu = win[v];
#endif
        for (int k = 0; k < K; ++k) {
            const long long pos = (long long)k * n + v;
            const idx_t u = __ldg(ell_idx + pos);
            if (u < 0) break;                       // padding only follows the row's entries
#if HP_GATHER_ALL
            hp_take(acc, hp_gather(u, HP_EDGE(ell_val, pos), (idx_t)v$PROPS_ARGS), wu, u);
#elif HP_ANY
            // `any` stops at the first active sender: most entries are only a bit test
            if (hp_bit(bm, u)) hp_take(acc, hp_gather(u, HP_EDGE(ell_val, pos), (idx_t)v$PROPS_ARGS), wu, u);
#else
            // inactive senders contribute the identity; the bit and the sender's properties
            // are loaded side by side instead of one after the other (latency-bound loop)
            const y_t g = hp_gather(u, HP_EDGE(ell_val, pos), (idx_t)v$PROPS_ARGS);
            hp_take(acc, hp_sends(bm, u, reached, P_$RELAX_PROP) ? g : hp_identity(), wu, u);
#endif
            if (HP_HAS_TERMINAL && hp_is_terminal(acc)) break;   // early exit
        }
        y[v] = acc;
#if HP_WITNESS
        win[v] = wu;
        wedge[v] = -1;                          // an exact winner, not a candidate
#endif
    }
}
#endif

// SPMV, pull: the HYB COO tail (rows longer than K), one warp per row segment: a segmented
// reduction, so any monoid works without atomics.  Segments longer than a chunk are split at
// setup when the monoid has an atomic form (seg_row = -(row + 1)); their chunks combine into
// y with it, so one hub row is not a single warp's critical path.
#if HP_IN_UNIT(1)
HP_KERNEL
hp_pull_coo(const idx_t* __restrict__ seg_row, const long long* __restrict__ seg_ptr, long long nseg,
            const idx_t* __restrict__ col, const w_t* __restrict__ val,
            const unsigned* HP_MUT bm0, const unsigned* HP_MUT bm1,
            y_t* HP_MUT y, const u64* HP_MUT st, u64 limit, int mode$PULL_PARAMS$PROPS_CONST_PARAMS)
{
    if (st[S_HALT]) return;
    const int cur = (int)(st[S_EXEC] & 1ull);
    if (st[S_CNT + cur] == 0ull) return;
    if (mode == 1 && hp_pushes(st, cur, limit)) return;   // mixed: this superstep pushes
    const unsigned* HP_MUT bm = cur ? bm1 : bm0;
    (void)bm;
    const bool reached = HP_PULL_REACHED && st[S_REACHED] != 0ull;
    (void)reached;
    const int lane = threadIdx.x & 31;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long s = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; s < nseg; s += nwarps) {
        const idx_t r = seg_row[s];
        const bool split = r < 0;
        const idx_t row = split ? -r - 1 : r;
        if (HP_HAS_MASK && !hp_mask(row$PROPS_ARGS)) continue;       // warp-uniform
        const y_t acc0 = y[row];
        if (HP_HAS_TERMINAL && hp_is_terminal(acc0)) continue;   // warp-uniform
        y_t acc = hp_identity();
        long long we = -1;                      // the winning entry of the tail
        const long long beg = seg_ptr[s], end = seg_ptr[s + 1];
        for (long long base = beg; base < end; base += 32) {
            const long long e = base + lane;
            if (e < end) {
                const idx_t u = __ldg(col + e);
#if HP_GATHER_ALL
                hp_take(acc, hp_gather(u, HP_EDGE(val, e), row$PROPS_ARGS), we, e);
#elif HP_ANY
                if (hp_bit(bm, u)) hp_take(acc, hp_gather(u, HP_EDGE(val, e), row$PROPS_ARGS), we, e);
#else
                const y_t g = hp_gather(u, HP_EDGE(val, e), row$PROPS_ARGS);
                hp_take(acc, hp_sends(bm, u, reached, P_$RELAX_PROP) ? g : hp_identity(), we, e);
#endif
            }
#if HP_HAS_TERMINAL
            if (__any_sync(HP_FULL, hp_is_terminal(acc))) break;
#endif
        }
        for (int off = 16; off > 0; off >>= 1) {
            const y_t o = hp_shfl_down(acc, off);
            const long long oe = __shfl_down_sync(HP_FULL, we, off);
            hp_take(acc, o, we, oe);
        }
        if (lane == 0) {
            if (split) {
#if HP_PACK
                // chunks race: each offers (value, sender) in one word, the best wins exactly
                // (ties to the smallest sender); APPLY merges it with the ELL part's y[row]
                const y_t old = *((volatile y_t*)(y + row));
                if (!hp_is_identity(acc) && acc == acc && !hp_same(hp_add(old, acc), old))
                    atomicMin(yk + row, hp_pack(acc, __ldg(col + we)));
#elif HP_WITNESS
                // chunks race: a chunk that improves y leaves a candidate (sender, entry)
                // that WITNESS verifies (a later, better chunk may race past it)
                const y_t old = *((volatile y_t*)(y + row));
                if (!hp_is_identity(acc) && !hp_same(hp_add(old, acc), old)) {
                    hp_atomic(y + row, acc);
                    if (hp_same(*((volatile y_t*)(y + row)), acc)) {
                        win[row] = __ldg(col + we);
                        wedge[row] = we;
                    }
                }
#else
                hp_atomic(y + row, acc);
#endif
            } else {
                const y_t r = hp_add(acc0, acc);
                y[row] = r;
#if HP_WITNESS
                if (!hp_same(r, acc0)) {
                    win[row] = __ldg(col + we);
                    wedge[row] = -1;
                }
#endif
            }
        }
    }
}
#endif

// ---------------------------------------------------------------------------------------
// SPMV, push: one warp per frontier vertex scatters along its push-matrix row with the
// monoid's atomic; rows of heavy vertices (push degree > HP_HEAVY, listed by APPLY) are split
// over every thread of the grid instead.  `mode` 0: always run; 1 (mixed batches): run only
// if the frontier has at most `limit` push edges (else the pull kernels run); 2 (blind push
// batches): a frontier with more push edges than `limit` aborts the batch so the host can
// switch to pull.  `track`: record receivers in the touched queue (apply_to="received": APPLY
// then visits only them).  Receivers that mask(v) rejects are skipped before any load.
#if HP_IN_UNIT(2) || HP_IN_UNIT(5)
// Every edge of the frontier (cnt vertices of q; those of more than HP_HEAVY edges are in the
// heavy list qh, hcnt chunks): light rows by warps, a warp taking `per` frontier vertices
// (lanes < per hold one each) and dealing their edges evenly over its 32 lanes
// (expand_balanced), whatever the degrees; heavy rows' HP_HEAVY-edge chunks (hp_heavy_add)
// in pieces of blockDim edges, a block each.  visit(valid, u, e) per edge e of sender u;
// every lane of a warp calls it together (valid false on the lanes without an edge), so it
// may use warp intrinsics over the whole warp.
template <class F>
__device__ __forceinline__ void hp_frontier_edges(const idx_t* __restrict__ indptr, const idx_t* HP_MUT q,
        const idx_t* HP_MUT qh, u64 cnt, u64 hcnt, const long long* __restrict__ deg, F visit)
{
    const int lane = threadIdx.x & 31;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const int per = per_warp((long long)cnt, nwarps);
    for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per;
         base < (long long)cnt; base += nwarps * per) {
        idx_t u = 0;
        long long s = 0, d = 0;
        if (lane < per && base + lane < (long long)cnt) {
            u = q[base + lane];
            // the row's ends and degree loaded together (one round trip after u's)
            const long long s0 = indptr[u], s1 = indptr[u + 1];
            if (hcnt == 0ull || deg[u] <= HP_HEAVY) {       // else: in the heavy list
                s = s0;
                d = s1 - s0;
            }
        }
        expand_balanced(per, s, d, [&](bool valid, long long e, int owner) {
            visit(valid, __shfl_sync(HP_FULL, u, owner), e);
        });
    }
    // a chunk in pieces of a block's width, a block each: a lone hub's chunks then spread
    // over the whole device (a block walking its chunk left most SMs idle)
    const long long per_chunk = (HP_HEAVY + blockDim.x - 1) / blockDim.x;
    for (long long h = blockIdx.x; h < (long long)hcnt * per_chunk; h += gridDim.x) {
        const long long hc = h / per_chunk;
        const idx_t x = qh[hc];
        const long long c = x < 0 ? -(long long)x : 0;
        const idx_t u = x < 0 ? qh[hc - c] : x;
        const long long s = indptr[u] + c * HP_HEAVY + (h - hc * per_chunk) * blockDim.x;
        const long long end = min(min(s + (long long)blockDim.x, indptr[u] + (c + 1) * HP_HEAVY),
                                  (long long)indptr[u + 1]);
        const long long e = s + threadIdx.x;
        visit(e < end, u, e);
    }
}
#endif

#if HP_IN_UNIT(HP_PUSH_UNIT)
HP_PUSH_KERNEL
hp_push(const idx_t* __restrict__ indptr, const idx_t* __restrict__ indices, const w_t* __restrict__ vals,
        const idx_t* HP_MUT q0, const idx_t* HP_MUT q1,
        const idx_t* HP_MUT qh0, const idx_t* HP_MUT qh1, const long long* __restrict__ deg,
        y_t* HP_MUT y, unsigned* HP_MUT tbm, idx_t* HP_MUT tq,
        u64* HP_MUT st, u64 limit, int mode, int first, int track$PUSH_PARAMS$PROPS_CONST_PARAMS)
{
    if (st[S_HALT]) return;
    const int cur = (int)(st[S_EXEC] & 1ull);
    const u64 cnt = st[S_CNT + cur];
    if (cnt == 0ull) return;
    if (mode != 0 && !hp_pushes(st, cur, limit)) {
        if (mode == 2 && first && blockIdx.x == 0 && threadIdx.x == 0) st[S_HALT] = 2ull;
        return;
    }
    const idx_t* HP_MUT q = cur ? q1 : q0;
    const idx_t* HP_MUT qh = cur ? qh1 : qh0;
    const u64 hcnt = st[S_HCNT + cur];
    track = track && hp_tracks(st, cur);
    // relax one edge; true when v is newly touched (it must join the touched queue)
    auto relax = [&](idx_t u, long long e, idx_t& v) -> bool {
        v = __ldg(indices + e);
        if (HP_HAS_MASK && !hp_mask(v$PROPS_ARGS)) return false;
        const y_t val = hp_gather(u, HP_EDGE(vals, e), v$PROPS_ARGS);
#if HP_PACK
        // the exact winner (value, sender) in one word; APPLY unpacks y and win from it.  A
        // NaN or the identity changes nothing (`any`'s identity would pack below real values)
        if (val != val || hp_is_identity(val)) return false;
        const u64 pk = hp_pack(val, u);
        if (pk >= *((volatile u64*)(yk + v))) return false;
        atomicMin(yk + v, pk);
#else
#if HP_IDEMPOTENT
        // idempotent monoid: a value the current y already absorbs changes nothing
        const y_t old = *((volatile y_t*)(y + v));
        if (hp_same(hp_add(old, val), old)) return false;
#endif
        hp_atomic(y + v, val);
#if HP_WITNESS
        // a candidate winner, written only while y still holds this value (a later, better
        // value may still race past it: WITNESS verifies)
        if (hp_same(*((volatile y_t*)(y + v)), val)) {
            win[v] = u;
            wedge[v] = e;
        }
#endif
#endif
        if (track) {
            const unsigned bit = 1u << (v & 31);
            unsigned* wp = tbm + (v >> 5);
            if (!(*((volatile unsigned*)wp) & bit)) {
                const unsigned o = atomicOr(wp, bit);
                return !(o & bit);
            }
        }
        return false;
    };
    // touched-queue append, aggregated over the lanes executing it together (one atomic on
    // the shared counter per warp instead of one per vertex: a hub's row touches ~10^5)
    auto append = [&](bool add, idx_t v) {
        const unsigned act = __activemask();
        const unsigned m = __ballot_sync(act, add);
        if (m == 0u) return;
        const int lane = threadIdx.x & 31;
        const int leader = __ffs(m) - 1;
        u64 base = 0;
        if (lane == leader) base = atomicAdd(st + S_TCNT, (u64)__popc(m));
        base = __shfl_sync(act, base, leader);
        if (add) tq[base + __popc(m & ((1u << lane) - 1u))] = v;
    };
    hp_frontier_edges(indptr, q, qh, cnt, hcnt, deg, [&](bool valid, idx_t u, long long e) {
        idx_t v = 0;
        const bool add = valid && relax(u, e, v);
        if (track) append(add, v);
    });
}
#endif
