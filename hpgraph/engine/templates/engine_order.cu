// hpgraph vertex-program engine, part 3 of 5: the priority (near-far) key helpers and the
// WITNESS kernel (winner verification between SPMV and APPLY).

// ---------------------------------------------------------------------------------------
// PRIORITY (near-far) helpers.  Waiting values are compared through an order-preserving
// 64-bit key (smaller key: taken first; NaN last), so one atomicMax on ~key finds the best.
typedef $PRIO_T prio_t;
#define HP_PRIO_FLOAT $PRIO_FLOAT
#define HP_PRIO_SIGNED $PRIO_SIGNED
__device__ __forceinline__ u64 hp_prio_bits(prio_t x) {
    u64 b = 0ull; memcpy(&b, &x, sizeof(prio_t)); return b;
}
__device__ __forceinline__ prio_t hp_prio_from_bits(u64 b) {
    prio_t x; memcpy(&x, &b, sizeof(prio_t)); return x;
}
__device__ __forceinline__ u64 hp_prio_key(prio_t x) {
    if (HP_PRIO_FLOAT && x != x) return ~0ull;
    u64 k;
    if (HP_PRIO_FLOAT && sizeof(prio_t) == 4) {
        unsigned u = (unsigned)hp_prio_bits(x);
        k = (u64)((u & 0x80000000u) ? ~u : (u | 0x80000000u));
    } else if (HP_PRIO_FLOAT) {
        const u64 u = hp_prio_bits(x);
        k = (u >> 63) ? ~u : (u | (1ull << 63));
    } else if (HP_PRIO_SIGNED) {
        k = (u64)(long long)x ^ (1ull << 63);
    } else {
        k = (u64)x;
    }
    return HP_PRIO_MAX ? ~k : k;
}
__device__ __forceinline__ prio_t hp_prio_unkey(u64 k) {
    if (HP_PRIO_MAX) k = ~k;
    if (HP_PRIO_FLOAT && sizeof(prio_t) == 4) {
        unsigned u = (unsigned)k;
        u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
        return hp_prio_from_bits((u64)u);
    } else if (HP_PRIO_FLOAT) {
        const u64 u = (k >> 63) ? (k & ~(1ull << 63)) : ~k;
        return hp_prio_from_bits(u);
    } else if (HP_PRIO_SIGNED) {
        return (prio_t)(long long)(k ^ (1ull << 63));
    }
    return (prio_t)k;
}
// best + delta (best - delta for "max" order), saturating at the dtype's bounds for integers:
// engine.common.priority_threshold on the host computes exactly this
__device__ __forceinline__ prio_t hp_prio_threshold(prio_t best, prio_t delta) {
    if (HP_PRIO_FLOAT) return HP_PRIO_MAX ? (prio_t)(best - delta) : (prio_t)(best + delta);
    const prio_t lo = $PRIO_LOWEST, hi = $PRIO_HIGHEST;
    if (HP_PRIO_MAX) return (best < (prio_t)(lo + delta)) ? lo : (prio_t)(best - delta);
    return (best > (prio_t)(hi - delta)) ? hi : (prio_t)(best + delta);
}
// may a changed vertex with priority value x run next?  (not before the first split: tset)
__device__ __forceinline__ bool hp_near_at(prio_t x, bool tset, prio_t t) {
    return tset && (HP_PRIO_MAX ? (x >= t) : (x <= t));
}
__device__ __forceinline__ bool hp_near(prio_t x, const u64* HP_MUT st) {
    return hp_near_at(x, st[S_TSET] != 0ull, hp_prio_from_bits(st[S_THR]));
}

#if HP_WITNESS && !HP_PACK
// ---------------------------------------------------------------------------------------
// WITNESS, between SPMV and APPLY (properties still as at the superstep's start), for
// witnesses whose winners are not packed (HP_PACK).  Pull supersteps leave the exact winner
// in win[v] (wedge[v] -1), or, where chunks of a split hub row raced, a candidate entry of the
// HYB tail in wedge[v]; push supersteps leave a candidate (sender u = win[v], push-matrix entry e = wedge[v]) that a
// later, better value may have raced past.  Here one warp per receiver checks the candidate
// in O(1) -- e is u's entry into v, u was active, gather(u, e, v) equals y[v] -- and only
// where that fails scans v's pull rows for the first active sender whose value equals y[v].
// `pushed` / `touched` as SPMV and APPLY see them (mode 1: the kernel applies the rule).
__device__ __forceinline__ bool hp_match(y_t a, y_t b) { return a == b || hp_same(a, b); }

#if HP_IN_UNIT(3)
HP_KERNEL
hp_witness(const idx_t* __restrict__ pip0, const idx_t* __restrict__ pix0, const w_t* __restrict__ pval0,
           const idx_t* __restrict__ pip1, const idx_t* __restrict__ pix1, const w_t* __restrict__ pval1,
           const idx_t* __restrict__ qip0, const idx_t* __restrict__ qix0, const w_t* __restrict__ qval0,
           const idx_t* __restrict__ qip1, const idx_t* __restrict__ qix1, const w_t* __restrict__ qval1,
           const idx_t* __restrict__ tseg_row, const long long* __restrict__ tseg_ptr, long long tnseg,
           const idx_t* __restrict__ tcol, const w_t* __restrict__ tval,
           int nparts, long long n, y_t* HP_MUT y, const unsigned* HP_MUT bm0,
           const unsigned* HP_MUT bm1, idx_t* HP_MUT win, const long long* HP_MUT wedge,
           u64* HP_MUT yk, const idx_t* HP_MUT tq, const u64* HP_MUT st, u64 limit, int mode,
           int pushed, int touched$PROPS_CONST_PARAMS)
{
    if (st[S_HALT]) return;
    const int cur = (int)(st[S_EXEC] & 1ull);
    if (st[S_CNT + cur] == 0ull) return;
    if (mode == 1) {
        pushed = hp_pushes(st, cur, limit);
        touched = HP_RECEIVED_ONLY && pushed;
    }
    touched = touched && hp_tracks(st, cur);
    const unsigned* HP_MUT bm = cur ? bm1 : bm0;
    (void)bm;
    const long long N = touched ? (long long)st[S_TCNT] : n;
    const int lane = threadIdx.x & 31;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    (void)yk;
    for (long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < N; i += nwarps) {
        const idx_t v = touched ? tq[i] : (idx_t)i;
        const y_t yv = y[v];
        if (hp_is_identity(yv)) continue;                      // warp-uniform
        idx_t w = win[v];
        bool ok;
        if (!pushed) {
            // exact (wedge -1), or the candidate of a split hub row: entry e of the first gather
            // side's HYB tail, which must lie in v's row, come from w, active, with y's value
            const long long e = wedge[v];
            ok = e < 0;
            if (!ok && lane == 0 && e < (tnseg ? tseg_ptr[tnseg] : 0ll) && __ldg(tcol + e) == w) {
                long long lo = 0, hi = tnseg;
                while (hi - lo > 1) {
                    const long long mid = (lo + hi) >> 1;
                    if (tseg_ptr[mid] <= e) lo = mid; else hi = mid;
                }
                const idx_t r = tseg_row[lo];
                ok = (r == v || r == -v - 1) && (HP_GATHER_ALL || hp_bit(bm, w))
                     && hp_match(hp_gather(w, HP_EDGE(tval, e), v$PROPS_ARGS), yv);
            }
            ok = __shfl_sync(HP_FULL, ok, 0);
        } else {
            ok = false;
            if (lane == 0 && w >= 0 && (long long)w < n) {
                const long long e = wedge[v];
                for (int part = 0; part < nparts; ++part) {
                    const idx_t* __restrict__ ip = part ? qip1 : qip0;
                    const idx_t* __restrict__ ix = part ? qix1 : qix0;
                    const w_t* __restrict__ vals = part ? qval1 : qval0;
                    (void)vals;
                    if ((long long)ip[w] <= e && e < (long long)ip[w + 1] && ix[e] == v) {
                        ok = (HP_GATHER_ALL || hp_bit(bm, w))
                             && hp_match(hp_gather(w, HP_EDGE(vals, e), v$PROPS_ARGS), yv);
                        if (ok) break;
                    }
                }
            }
            ok = __shfl_sync(HP_FULL, ok, 0);
        }
        if (ok) continue;                                      // warp-uniform
        w = -1;
        for (int part = 0; part < nparts && w < 0; ++part) {
            const idx_t* __restrict__ ip = part ? pip1 : pip0;
            const idx_t* __restrict__ ix = part ? pix1 : pix0;
            const w_t* __restrict__ vals = part ? pval1 : pval0;
            (void)vals;
            const long long end = ip[v + 1];
            for (long long base = ip[v]; base < end; base += 32) {
                const long long e = base + lane;
                bool hit = false;
                idx_t u = 0;
                if (e < end) {
                    u = __ldg(ix + e);
                    hit = (HP_GATHER_ALL || hp_bit(bm, u))
                          && hp_match(hp_gather(u, HP_EDGE(vals, e), v$PROPS_ARGS), yv);
                }
                const unsigned m = __ballot_sync(HP_FULL, hit);
                if (m) { w = __shfl_sync(HP_FULL, u, __ffs(m) - 1); break; }
            }
        }
        if (lane == 0) win[v] = w;
    }
}
#endif
#endif
