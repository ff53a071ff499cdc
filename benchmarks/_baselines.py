"""Baseline kernels shared by the benchmarks (not project code): what a user would write in
plain CuPy without hpgraph."""

#: Plain warp-per-row CSR Bellman-Ford: every row, every iteration, relax in place.
BF_SOURCE = r"""
extern "C" __global__ void bf_pull(const int* __restrict__ indptr, const int* __restrict__ indices,
                                   const float* __restrict__ w, float* dist, int n, int* changed)
{
    // plain warp-per-row CSR Bellman-Ford: every row, every iteration, relax in place
    const int lane = threadIdx.x & 31;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; v < n; v += nwarps) {
        float best = __int_as_float(0x7f800000);
        for (int e = indptr[v] + lane; e < indptr[v + 1]; e += 32)
            best = fminf(best, dist[indices[e]] + w[e]);
        for (int off = 16; off > 0; off >>= 1)
            best = fminf(best, __shfl_down_sync(0xffffffffu, best, off));
        if (lane == 0 && best < dist[v]) { dist[v] = best; *changed = 1; }
    }
}
"""


def cupy_bfs(AT, source):
    """Plain CuPy level-synchronous BFS: one cuSPARSE SpMV (``AT @ frontier``, AT a float32
    cupyx CSR of A^T) and one host check per level.  Returns int32 depths, -1 where unreachable."""
    import cupy as cp

    n = AT.shape[0]
    depth = cp.full(n, -1, cp.int32)
    front = cp.zeros(n, cp.float32)
    front[source] = 1
    depth[source] = 0
    level = 0
    while True:
        new = (AT @ front > 0) & (depth < 0)
        if not bool(new.any()):
            break
        level += 1
        depth[new] = level
        front = new.astype(cp.float32)
    return depth
