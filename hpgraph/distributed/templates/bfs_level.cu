// One BFS level on one rank of a distributed graph (hpgraph/distributed/_bfs_gpu.py).
// The rank holds rows [lo, hi) of A^T (in-edges; the neighbours on an undirected graph) and
// the whole visited and frontier bitmaps (one bit per vertex, all n, the same on every rank).
// A level writes this rank's discoveries into `nxt` (all n bits, zero before the level); the
// host allgathers every rank's `nxt` and dbfs_merge ORs them into the next frontier.
typedef ${IDX_T} idx_t;
typedef ${PTR_T} ptr_t;
typedef ${DEG_T} deg_t;
#define BLOCK ${BLOCK}
#define LONG ${LONG}
#define HEAVY ${HEAVY}
#define HUGE ${HUGE}
${COMMON}

// state words, zeroed before each level: queue counts (light, heavy, huge), long rows
enum { S_LIGHT = 0, S_HEAVY = 1, S_HUGE = 2, S_LONG = 3, S_WORDS = 4 };

__device__ __forceinline__ bool bit(const unsigned* bm, long long v)
{
    return (__ldg(bm + (v >> 5)) >> (v & 31)) & 1u;
}

// Warp-collective append of the lanes with `want` to list + counter.
__device__ __forceinline__ void append(bool want, idx_t v, u64* counter, idx_t* list, bool back,
                                       long long cap)
{
    const unsigned m = __ballot_sync(FULL, want);
    if (m == 0u) return;
    const int lane = threadIdx.x & 31;
    u64 b = 0ull;
    if (lane == __ffs(m) - 1) b = atomicAdd(counter, (u64)__popc(m));
    b = __shfl_sync(FULL, b, __ffs(m) - 1);
    const long long k = (long long)b + __popc(m & ((1u << lane) - 1u));
    if (want) list[back ? cap - 1 - k : k] = v;
}

// Bottom-up: every unvisited vertex v of [lo, hi) scans its in-edges (row v - lo) and stops at
// the first source in the frontier; after LONG entries without a hit it goes to the long list
// (dbfs_pull_long finishes it).  A warp takes one 32-vertex bitmap word.
extern "C" __global__ void __launch_bounds__(BLOCK) dbfs_pull(
        const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix, long long lo, long long hi,
        const unsigned* __restrict__ fr, const unsigned* __restrict__ vis, unsigned* nxt,
        idx_t* lq, u64* st)
{
    const int lane = threadIdx.x & 31;
    const long long w0 = lo >> 5, w1 = (hi + 31) >> 5;
    const long long nwarps = ((long long)gridDim.x * BLOCK) >> 5;
    for (long long w = w0 + (((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5); w < w1;
         w += nwarps) {
        const unsigned word = __ldg(vis + w);
        if (word == FULL) continue;                              // warp-uniform
        const long long v = w * 32 + lane;
        const bool open = v >= lo && v < hi && !((word >> lane) & 1u);
        bool got = false, more = false;
        if (open) {
            const long long s = (long long)__ldg(ip + (v - lo)), t = (long long)__ldg(ip + (v - lo) + 1);
            const long long stop = min(t, s + (long long)LONG);
            for (long long e = s; e < stop; ++e)
                if (bit(fr, __ldg(ix + e))) { got = true; break; }
            more = !got && t > stop;
        }
        set_bits(nxt, got, v);
        append(more, (idx_t)v, st + S_LONG, lq, false, 0);
    }
}

// The long rows of dbfs_pull: a warp each, from entry LONG on, stopping at the first hit.
extern "C" __global__ void __launch_bounds__(BLOCK) dbfs_pull_long(
        const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix, long long lo,
        const unsigned* __restrict__ fr, unsigned* nxt, const idx_t* __restrict__ lq,
        const u64* __restrict__ st)
{
    const int lane = threadIdx.x & 31;
    const long long count = (long long)st[S_LONG];
    const long long nwarps = ((long long)gridDim.x * BLOCK) >> 5;
    for (long long i = ((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5; i < count; i += nwarps) {
        const long long v = (long long)lq[i];
        const long long s = (long long)__ldg(ip + (v - lo)) + LONG, t = (long long)__ldg(ip + (v - lo) + 1);
        for (long long e0 = s; e0 < t; e0 += 32) {
            const long long e = e0 + lane;
            const bool hit = e < t && bit(fr, __ldg(ix + e));
            if (__ballot_sync(FULL, hit)) {
                if (lane == 0) atomicOr(nxt + (v >> 5), 1u << (v & 31));
                break;
            }
        }
    }
}

// Top-down, first part: this rank's frontier vertices (bits of [lo, hi) in fr) go to the
// queue, light ones (out-degree <= HEAVY) at the front, heavy ones at the back, huge ones
// (out-degree > HUGE) to their own list.
extern "C" __global__ void __launch_bounds__(BLOCK) dbfs_queue(
        const ptr_t* __restrict__ ip, long long lo, long long hi, const unsigned* __restrict__ fr,
        idx_t* q, idx_t* hq, u64* st)
{
    const int lane = threadIdx.x & 31;
    const long long w0 = lo >> 5, w1 = (hi + 31) >> 5;
    const long long nwarps = ((long long)gridDim.x * BLOCK) >> 5;
    const long long cap = hi - lo;
    for (long long w = w0 + (((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5); w < w1;
         w += nwarps) {
        const unsigned word = __ldg(fr + w);
        if (word == 0u) continue;                                // warp-uniform
        const long long v = w * 32 + lane;
        const bool in = v >= lo && v < hi && ((word >> lane) & 1u);
        long long d = 0;
        if (in) d = (long long)(__ldg(ip + (v - lo) + 1) - __ldg(ip + (v - lo)));
        const bool huge = in && d > (long long)HUGE;
        const bool heavy = in && !huge && d > (long long)HEAVY;
        append(in && !huge && !heavy, (idx_t)v, st + S_LIGHT, q, false, cap);
        append(heavy, (idx_t)v, st + S_HEAVY, q, true, cap);
        append(huge, (idx_t)v, st + S_HUGE, hq, false, 0);
    }
}

// Top-down, second part: the queued vertices' edges; an unvisited target's bit is set in nxt.
// Huge vertices: the whole grid on each one's edges in turn; heavy: a block each; light: up
// to 32 a warp, their edges dealt evenly over the lanes.
extern "C" __global__ void __launch_bounds__(BLOCK) dbfs_push(
        const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix, long long lo, long long hi,
        const unsigned* __restrict__ vis, unsigned* nxt, const idx_t* __restrict__ q,
        const idx_t* __restrict__ hq, const u64* __restrict__ st)
{
    const int lane = threadIdx.x & 31;
    const long long gtid = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * BLOCK;
    const long long nwarps = nthreads >> 5;
    const long long cap = hi - lo;
    const long long nl = (long long)st[S_LIGHT], nh = (long long)st[S_HEAVY];
    const long long nu = (long long)st[S_HUGE];
    auto visit = [&](bool valid, long long e) {
        bool want = false;
        long long v = 0;
        if (valid) { v = (long long)__ldg(ix + e); want = !bit(vis, v); }
        set_bits(nxt, want, v);
    };
    for (long long h = 0; h < nu; ++h) {
        const long long u = (long long)hq[h] - lo;
        const long long s = (long long)__ldg(ip + u), t = (long long)__ldg(ip + u + 1);
        for (long long e0 = s + (gtid & ~31ll); e0 < t; e0 += nthreads) visit(e0 + lane < t, e0 + lane);
    }
    for (long long h = blockIdx.x; h < nh; h += gridDim.x) {
        const long long u = (long long)q[cap - 1 - h] - lo;
        const long long s = (long long)__ldg(ip + u), t = (long long)__ldg(ip + u + 1);
        for (long long e0 = s; e0 < t; e0 += BLOCK) visit(e0 + threadIdx.x < t, e0 + threadIdx.x);
    }
    const int per = per_warp(nl, nwarps);
    for (long long base = (gtid >> 5) * per; base < nl; base += nwarps * per) {
        const long long i = base + lane;
        long long s = 0, d = 0;
        if (lane < per && i < nl) {
            const long long u = (long long)q[i] - lo;
            s = (long long)__ldg(ip + u);
            d = (long long)__ldg(ip + u + 1) - s;
        }
        expand_balanced(per, s, d, [&](bool valid, long long e, int) { visit(valid, e); });
    }
}

// After the allgather: word w of the next frontier is the OR of the ranks' words that cover
// it (rank r sent `width` words from word wlo[r]: all n bits after a top-down level, its own
// rows' span after a bottom-up one), less the visited bits; it becomes the frontier, joins
// the visited bitmap, and this rank's new vertices get depth level + 1.  cnt[0] += new
// vertices, cnt[1] += their degrees (every rank computes the same sums from the same bits).
extern "C" __global__ void __launch_bounds__(BLOCK) dbfs_merge(
        const unsigned* __restrict__ gathered, int ranks, long long width,
        const long long* __restrict__ wlo, long long nw, unsigned* vis, unsigned* fr,
        int* depth, long long lo, long long hi, int level, const deg_t* __restrict__ deg,
        u64* cnt)
{
    const long long gtid = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * BLOCK;
    u64 nf = 0ull, mf = 0ull;
    for (long long w = gtid; w < nw; w += nthreads) {
        unsigned x = 0u;
        for (int r = 0; r < ranks; ++r) {
            const long long off = w - __ldg(wlo + r);
            if (off >= 0 && off < width) x |= __ldg(gathered + (long long)r * width + off);
        }
        const unsigned old = vis[w];
        x &= ~old;
        fr[w] = x;
        if (x) {
            vis[w] = old | x;
            nf += (u64)__popc(x);
            for (unsigned m = x; m; m &= m - 1u) {
                const long long v = w * 32 + (__ffs(m) - 1);
                mf += (u64)__ldg(deg + v);
                if (v >= lo && v < hi) depth[v - lo] = level + 1;
            }
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        nf += __shfl_xor_sync(FULL, nf, off);
        mf += __shfl_xor_sync(FULL, mf, off);
    }
    if ((threadIdx.x & 31) == 0 && nf) { atomicAdd(cnt, nf); atomicAdd(cnt + 1, mf); }
}
