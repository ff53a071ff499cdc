// Brandes' betweenness for a batch of up to 64 sources at once (hpgraph.algorithms._betweenness_gpu).
//
// Source s of the batch is bit s of a 64-bit word per vertex: `vis` (reached), one word array
// per BFS level (the vertices at that distance from each source).  Per-(vertex, source)
// numbers are rows of 64 doubles, `val[v * 64 + s]`: path counts sigma in the forward sweep,
// overwritten by the coefficients (1 + delta) / sigma in the backward sweep.
//
// A warp takes one chunk of at most CHUNK entries of a CSR row v (rows longer than that are
// split over several warps and meet through atomics).  The lanes read the level word of 32
// neighbours at a time; for every neighbour whose word shares a bit with what v still needs,
// the whole warp reads that neighbour's row of 64 numbers (lane l sums sources l and l + 32),
// so only the (edge, source) pairs on a shortest-path DAG move doubles.
typedef $IDX_T idx_t;
typedef $PTR_T ptr_t;
typedef unsigned long long u64;

#define CHUNK $CHUNK
#define FULL 0xffffffffu

__device__ __forceinline__ u64 warp_or(u64 x) {
    for (int o = 16; o; o >>= 1) x |= __shfl_xor_sync(FULL, x, o);
    return x;
}

__device__ __forceinline__ double warp_sum(double x) {
    for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
    return x;
}

// Entries [b, e) of a row: for each neighbour u with (word[u] & want) != 0, add val[u][s] for
// every source s of that intersection.  Returns the OR of the intersections (the same in all
// lanes).  With `edge` (the backward sweep of edge betweenness), entry p also gains
// sum over those s of own[s] * val[u][s]: the dependency the edge carries (own: lane l's
// sigma of the row's vertex for sources l and l + 32).
__device__ __forceinline__ u64 gather(ptr_t b, ptr_t e, const idx_t* __restrict__ ind,
                                      const u64* __restrict__ word, u64 want,
                                      const double* val, int lane, double& a0, double& a1,
                                      double* edge = nullptr, double own0 = 0.0,
                                      double own1 = 0.0) {
    u64 any = 0;
    for (ptr_t base = b; base < e; base += 32) {
        ptr_t p = base + lane;
        long long u = 0;
        u64 m = 0;
        if (p < e) {
            u = (long long)ind[p];
            m = word[u] & want;
        }
        any |= m;
        unsigned act = __ballot_sync(FULL, m != 0);
        while (act) {
            int j = __ffs(act) - 1;
            act &= act - 1;
            long long uj = __shfl_sync(FULL, u, j);
            u64 mj = __shfl_sync(FULL, m, j);
            const double* row = val + (size_t)uj * 64;
            double r0 = 0.0, r1 = 0.0;
            if ((mj >> lane) & 1ull) r0 = row[lane];
            if ((mj >> (lane + 32)) & 1ull) r1 = row[lane + 32];
            a0 += r0;
            a1 += r1;
            if (edge != nullptr) {
                double t = warp_sum(own0 * r0 + own1 * r1);
                if (lane == 0) edge[base + j] += t;
            }
        }
    }
    return warp_or(any);
}

// The chunk of warp `c`: its row and entry range.
__device__ __forceinline__ void chunk(const ptr_t* indptr, const long long* crow, const ptr_t* cbeg,
                                      long long c, long long& v, ptr_t& b, ptr_t& e) {
    v = crow[c];
    b = cbeg[c];
    e = indptr[v + 1];
    if (e - b > CHUNK) e = b + CHUNK;
}

// Forward, one BFS level: row v of A^T (v's in-neighbours u) takes the sources of the current
// level `front[u]` that have not reached v yet; sigma[v][s] = sum of sigma[u][s] over them.
// `next` gets the new bits (the following level); `vis` is updated by the caller afterwards,
// so every chunk of a split row sees the level's starting state.
extern "C" __global__ void bc_forward(const ptr_t* indptr, const idx_t* ind, const long long* crow,
                                      const ptr_t* cbeg, const int* cheavy, long long nchunks,
                                      const u64* vis, const u64* front, u64* next, double* sigma,
                                      u64 all, int* flag) {
    long long c = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (c >= nchunks) return;
    long long v;
    ptr_t b, e;
    chunk(indptr, crow, cbeg, c, v, b, e);
    u64 want = ~vis[v] & all;
    if (!want) return;
    double a0 = 0.0, a1 = 0.0;
    u64 got = gather(b, e, ind, front, want, sigma, lane, a0, a1);
    if (!got) return;
    double* row = sigma + (size_t)v * 64;
    bool b0 = (got >> lane) & 1ull, b1 = (got >> (lane + 32)) & 1ull;
    if (cheavy[c] < 0) {
        if (b0) row[lane] = a0;
        if (b1) row[lane + 32] = a1;
        if (lane == 0) next[v] = got;
    } else {
        if (b0) atomicAdd(row + lane, a0);
        if (b1) atomicAdd(row + lane + 32, a1);
        if (lane == 0) atomicOr(next + v, got);
    }
    if (lane == 0) *flag = 1;
}

// delta[v][s] = sigma[v][s] * sum (over children) of coefficients; the row's sigma becomes the
// coefficient (1 + delta) / sigma its parents read next level; bc[v] gains the deltas (plus
// `extra` per source: 1 when endpoints count).
__device__ __forceinline__ void finish_row(long long v, u64 want, double a0, double a1, double* val,
                                           double* bc, double extra, int lane) {
    double* row = val + (size_t)v * 64;
    double t = 0.0;
    if ((want >> lane) & 1ull) {
        double s = row[lane], d = s * a0;
        row[lane] = (1.0 + d) / s;
        t += d + extra;
    }
    if ((want >> (lane + 32)) & 1ull) {
        double s = row[lane + 32], d = s * a1;
        row[lane + 32] = (1.0 + d) / s;
        t += d + extra;
    }
    t = warp_sum(t);
    if (lane == 0) bc[v] += t;
}

// Backward, one level: the vertices v of level `cur` sum the coefficients of their children
// (row v of A: out-neighbours w with the same source on level `nxt`).  Split rows add their
// partial sums to `hacc` and are finished by bc_finish.
extern "C" __global__ void bc_backward(const ptr_t* indptr, const idx_t* ind, const long long* crow,
                                       const ptr_t* cbeg, const int* cheavy, long long nchunks,
                                       const u64* cur, const u64* nxt, int has_next, double* val,
                                       double* hacc, double* bc, double extra, double* edge,
                                       int want_edges) {
    long long c = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (c >= nchunks) return;
    long long v;
    ptr_t b, e;
    chunk(indptr, crow, cbeg, c, v, b, e);
    u64 want = cur[v];
    if (!want) return;
    double a0 = 0.0, a1 = 0.0;
    if (has_next) {
        if (want_edges) {
            const double* own = val + (size_t)v * 64;   // still sigma: finished after the scan
            double o0 = ((want >> lane) & 1ull) ? own[lane] : 0.0;
            double o1 = ((want >> (lane + 32)) & 1ull) ? own[lane + 32] : 0.0;
            gather(b, e, ind, nxt, want, val, lane, a0, a1, edge, o0, o1);
        } else {
            gather(b, e, ind, nxt, want, val, lane, a0, a1);
        }
    }
    int h = cheavy[c];
    if (h < 0) {
        finish_row(v, want, a0, a1, val, bc, extra, lane);
    } else {
        double* acc = hacc + (size_t)h * 64;
        if (a0 != 0.0) atomicAdd(acc + lane, a0);
        if (a1 != 0.0) atomicAdd(acc + lane + 32, a1);
    }
}

// The split rows of one backward level: their summed coefficients (cleared for the next level).
extern "C" __global__ void bc_finish(const long long* hrow, long long nheavy, const u64* cur,
                                     double* hacc, double* val, double* bc, double extra) {
    long long h = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (h >= nheavy) return;
    double* acc = hacc + (size_t)h * 64;
    double a0 = acc[lane], a1 = acc[lane + 32];
    acc[lane] = 0.0;
    acc[lane + 32] = 0.0;
    long long v = hrow[h];
    u64 want = cur[v];
    if (want) finish_row(v, want, a0, a1, val, bc, extra, lane);
}
