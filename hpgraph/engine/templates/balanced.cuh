// Warp-balanced expansion of frontier rows (shared by the engine's push kernel and the
// BFS / SSSP kernels): a warp takes up to 32 frontier vertices, and their edges are dealt
// evenly over its lanes, so a warp's work does not depend on how the degrees are spread.
// Frontier vertices per warp in a balanced expansion: 32, or fewer when the frontier has
// fewer than 32 per warp (the same value in every thread: it depends on the count only).
__device__ __forceinline__ int per_warp(long long count, long long nwarps)
{
    int per = 1;
    while (per < 32 && (long long)per * nwarps < count) per <<= 1;
    return per;
}

// Balanced expansion, warp-collective (all 32 lanes, converged): lanes < per hold a frontier
// vertex of degree d (0 for none).  balanced_scan gives each lane the exclusive prefix of the
// degrees (excl) and returns the warp's total; the warp then walks k = 0..total-1, 32 at a
// time, and balanced_owner finds the lane owning edge k by a binary search over the lanes.
__device__ __forceinline__ long long balanced_scan(int per, long long d, long long& excl)
{
    const int lane = threadIdx.x & 31;
    long long incl = d;
    for (int off = 1; off < per; off <<= 1) {
        const long long y = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off) incl += y;
    }
    excl = incl - d;
    return __shfl_sync(0xffffffffu, incl, per - 1);
}

__device__ __forceinline__ int balanced_owner(int per, long long excl, long long k)
{
    int lo = 0;
    for (int step = per >> 1; step > 0; step >>= 1)
        if (__shfl_sync(0xffffffffu, excl, lo + step) <= k) lo += step;
    return lo;
}

// For every edge of the warp's vertices (first edge s per lane), dealt evenly over the lanes:
// visit(valid, edge index, owning lane), with all 32 lanes (visit may use warp collectives).
template <typename F>
__device__ __forceinline__ void expand_balanced(int per, long long s, long long d, F visit)
{
    const int lane = threadIdx.x & 31;
    long long excl;
    const long long total = balanced_scan(per, d, excl);
    for (long long k0 = 0; k0 < total; k0 += 32) {
        const long long k = k0 + lane;
        const int lo = balanced_owner(per, excl, k);
        const long long e = __shfl_sync(0xffffffffu, s, lo) + (k - __shfl_sync(0xffffffffu, excl, lo));
        visit(k < total, e, lo);
    }
}
