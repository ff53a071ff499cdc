typedef ${DIST} dist_t;
typedef ${IDX} idx_t;
typedef ${PIDX} pidx_t;
typedef ${PTR} ptr_t;
typedef ${WT} w_t;
#define WEIGHTED ${WEIGHTED}
#define ITEMS ${ITEMS}

// largest r in [lo, hi) with indptr[r] <= e (indptr[lo] <= e < indptr[hi] on entry)
__device__ __forceinline__ long long row_of(const ptr_t* __restrict__ indptr, long long e,
                                            long long lo, long long hi)
{
    while (hi - lo > 1) {
        const long long mid = lo + ((hi - lo) >> 1);
        if ((long long)__ldg(indptr + mid) <= e) lo = mid; else hi = mid;
    }
    return lo;
}

// pred[v] = max over stored entries u -> v with dist[u] < dist[v] == dist[u] + w (dist finite).
// Each warp takes 32 * ITEMS consecutive entries, lane l the entries l, l + 32, ...; a lane
// finds its row by binary search once, then walks forward (a few steps, else search again).
extern "C" __global__ void ${NAME}(const ptr_t* __restrict__ indptr,
        const idx_t* __restrict__ indices, const w_t* __restrict__ w,
        const dist_t* __restrict__ dist, pidx_t* pred, long long n, long long nnz)
{
    const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const long long c0 = (gtid >> 5) * (32ll * ITEMS);
    const long long c1 = min(c0 + 32ll * ITEMS, nnz);
    long long e = c0 + lane;
    if (e >= c1) return;
    long long r = row_of(indptr, e, 0, n);
    long long rend = (long long)__ldg(indptr + r + 1);
    dist_t du = dist[r];
    for (; e < c1; e += 32) {
        if (e >= rend) {
            int k = 0;
            do { ++r; rend = (long long)__ldg(indptr + r + 1); } while (e >= rend && ++k < 4);
            if (e >= rend) {
                r = row_of(indptr, e, r, n);
                rend = (long long)__ldg(indptr + r + 1);
            }
            du = dist[r];
        }
        const idx_t v = __ldg(indices + e);
        const dist_t dv = dist[v];
#if WEIGHTED
        const dist_t nd = du + (dist_t)__ldg(w + e);
#else
        const dist_t nd = du + (dist_t)1;
#endif
        if (du < dv && nd == dv && !isinf(dv))
            atomicMax(pred + v, (pidx_t)r);
    }
}
