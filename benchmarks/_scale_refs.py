"""Reference implementations for bench_scale.py (not project code): what a user would write in
plain CuPy (warp-per-vertex pull kernels with 64-bit offsets, so they work past 2**31 edges),
and SciPy equivalents for the CPU smoke test."""

from __future__ import annotations

import numpy as np

_COMMON = r"""
#define WARP_LOOP \
    const int lane = threadIdx.x & 31; \
    const long long nw = ((long long)gridDim.x * blockDim.x) >> 5; \
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; v < n; v += nw)
"""

#: Level-synchronous BFS, one level per launch: an unvisited vertex with a neighbour at
#: ``level - 1`` gets ``level``.  The loop over a row runs in whole warps (uniform trip count)
#: so ``__any_sync`` sees every lane.
BFS_SOURCE = _COMMON + r"""
extern "C" __global__ void ref_bfs(const long long* __restrict__ indptr, const IDX* __restrict__ indices,
                                   int* depth, long long n, int level, int* changed)
{
    WARP_LOOP {
        if (depth[v] >= 0) continue;
        const long long s = indptr[v], t = indptr[v + 1];
        bool hit = false;
        for (long long b = s; b < t; b += 32) {
            const long long e = b + lane;
            const bool h = e < t && depth[indices[e]] == level - 1;
            if (__any_sync(0xffffffffu, h)) { hit = true; break; }
        }
        if (hit && lane == 0) { depth[v] = level; *changed = 1; }
    }
}
"""

#: y[v] = sum of xs over the row of v (float64).
SPMV_SOURCE = _COMMON + r"""
extern "C" __global__ void ref_spmv(const long long* __restrict__ indptr, const IDX* __restrict__ indices,
                                    const double* __restrict__ xs, double* y, long long n)
{
    WARP_LOOP {
        double acc = 0.0;
        for (long long e = indptr[v] + lane; e < indptr[v + 1]; e += 32) acc += xs[indices[e]];
        for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
        if (lane == 0) y[v] = acc;
    }
}
"""

#: Min-label propagation, in place: label[v] = min(label[v], labels of its neighbours).
CC_SOURCE = _COMMON + r"""
extern "C" __global__ void ref_cc(const long long* __restrict__ indptr, const IDX* __restrict__ indices,
                                  long long* label, long long n, int* changed)
{
    WARP_LOOP {
        long long best = label[v];
        for (long long e = indptr[v] + lane; e < indptr[v + 1]; e += 32) {
            const long long l = label[indices[e]];
            best = l < best ? l : best;
        }
        for (int off = 16; off > 0; off >>= 1) {
            const long long o = __shfl_down_sync(0xffffffffu, best, off);
            best = o < best ? o : best;
        }
        if (lane == 0 && best < label[v]) { label[v] = best; *changed = 1; }
    }
}
"""

#: Bellman-Ford, pull, in place (float64 distances).
SSSP_SOURCE = _COMMON + r"""
extern "C" __global__ void ref_bf(const long long* __restrict__ indptr, const IDX* __restrict__ indices,
                                  const W* __restrict__ w, double* dist, long long n, int* changed)
{
    WARP_LOOP {
        double best = dist[v];
        for (long long e = indptr[v] + lane; e < indptr[v + 1]; e += 32) {
            const double d = dist[indices[e]] + (double)w[e];
            best = d < best ? d : best;
        }
        for (int off = 16; off > 0; off >>= 1) {
            const double o = __shfl_down_sync(0xffffffffu, best, off);
            best = o < best ? o : best;
        }
        if (lane == 0 && best < dist[v]) { dist[v] = best; *changed = 1; }
    }
}
"""

_C = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long", np.dtype(np.float32): "float",
      np.dtype(np.float64): "double", np.dtype(np.uint8): "unsigned char", np.dtype(np.int8): "signed char",
      np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short", np.dtype(np.uint32): "unsigned int"}


def sources(idx_dtype=np.int32, w_dtype=np.int32):
    """All reference kernels' sources for one index / weight dtype (compiled by the tests)."""
    idx = _C[np.dtype(idx_dtype)]
    return {name: src.replace("IDX", idx).replace("W*", _C[np.dtype(w_dtype)] + "*")
            for name, src in (("ref_bfs", BFS_SOURCE), ("ref_spmv", SPMV_SOURCE), ("ref_cc", CC_SOURCE),
                              ("ref_bf", SSSP_SOURCE))}


def pagerank_host_tol(n):
    """The tolerance both sides use: an L1 change below 1e-4 (networkx's test is err < n * tol)."""
    return 1e-4 / max(n, 1)


class GpuRefs:
    def __init__(self):
        import cupy

        self.cp = cupy
        self.xp = cupy
        sm = cupy.cuda.Device().attributes["MultiProcessorCount"]
        self.grid = (sm * 64,)
        self._k = {}

    def _kernel(self, name, idx_dtype, w_dtype=np.int32):
        key = (name, np.dtype(idx_dtype).str, np.dtype(w_dtype).str)
        if key not in self._k:
            self._k[key] = self.cp.RawKernel(sources(idx_dtype, w_dtype)[name], name)
        return self._k[key]

    def _csr(self, G):
        A = G.A
        return A.indptr.astype(self.cp.int64, copy=False), A.indices, np.int64(A.nrows)

    def _loop(self, kern, args):
        changed = self.cp.zeros(1, self.cp.int32)
        rounds = 0
        while True:
            changed.fill(0)
            kern(self.grid, (256,), (*args, changed))
            rounds += 1
            if int(changed.get()[0]) == 0:
                return rounds

    def bfs(self, G, source):
        cp = self.cp
        ip, ix, n = self._csr(G)
        depth = cp.full(int(n), -1, cp.int32)
        depth[source] = 0
        kern = self._kernel("ref_bfs", ix.dtype)
        changed = cp.zeros(1, cp.int32)
        level = 1
        while True:
            changed.fill(0)
            kern(self.grid, (256,), (ip, ix, depth, n, np.int32(level), changed))
            if int(changed.get()[0]) == 0:
                return depth
            level += 1

    def pagerank(self, G, damping=0.85, max_iter=100):
        cp = self.cp
        ip, ix, n = self._csr(G)
        nn = int(n)
        deg = cp.diff(ip).astype(cp.float64)
        S = cp.where(deg > 0, 1.0 / cp.maximum(deg, 1), 0.0)
        dang = deg == 0
        x = cp.full(nn, 1.0 / nn)
        y = cp.empty(nn)
        kern = self._kernel("ref_spmv", ix.dtype)
        tol = pagerank_host_tol(nn)
        for it in range(max_iter):
            kern(self.grid, (256,), (ip, ix, x * S, y, n))
            xn = damping * (y + float(x[dang].sum()) / nn) + (1 - damping) / nn
            err = float(cp.abs(xn - x).sum())
            x = xn
            if err < nn * tol:
                return x, it + 1
        raise RuntimeError("reference PageRank did not converge")

    def cc(self, G):
        cp = self.cp
        ip, ix, n = self._csr(G)
        label = cp.arange(int(n), dtype=cp.int64)
        kern = self._kernel("ref_cc", ix.dtype)
        changed = cp.zeros(1, cp.int32)
        while True:
            changed.fill(0)
            kern(self.grid, (256,), (ip, ix, label, n, changed))
            label = label[label]  # pointer jumping: a label's own label is no larger, same component
            if int(changed.get()[0]) == 0:
                return label

    def sssp(self, G, source):
        cp = self.cp
        ip, ix, n = self._csr(G)
        dist = cp.full(int(n), cp.inf)
        dist[source] = 0
        w = G.A.values
        self._loop(self._kernel("ref_bf", ix.dtype, w.dtype), (ip, ix, w, dist, n))
        return dist

    # comparisons ---------------------------------------------------------------------
    def equal(self, a, b):
        return bool(self.cp.array_equal(self.cp.asarray(a), b))

    def count(self, mask):
        return int(self.cp.count_nonzero(mask))

    def arange(self, n):
        return self.cp.arange(n)

    def sample_rel_err(self, x, ref, k, seed):
        cp = self.cp
        x = cp.asarray(x).astype(cp.float64)
        idx = cp.asarray(np.random.default_rng(seed).integers(0, ref.shape[0], k))
        l1 = float(cp.abs(x - ref).sum())
        rel = float((cp.abs(x[idx] - ref[idx]) / ref[idx]).max())
        return max(rel, l1)

    def same_partition(self, labels, ref, nc):
        cp = self.cp
        n = ref.shape[0]
        key = cp.asarray(labels).astype(cp.int64) * n + ref
        return int(cp.unique(key).shape[0]) == nc


class CpuRefs:
    """SciPy references for the CPU smoke test (no GPU)."""

    xp = np

    def _A(self, G):
        return G.to_host().to_scipy()

    def bfs(self, G, source):
        from scipy.sparse.csgraph import breadth_first_order

        order, pred = breadth_first_order(self._A(G), source, directed=True, return_predecessors=True)
        depth = np.full(G.num_vertices, -1, np.int32)
        depth[source] = 0
        for v in order[1:]:
            depth[v] = depth[pred[v]] + 1
        return depth

    def pagerank(self, G, damping=0.85, max_iter=100):
        A = self._A(G)
        n = A.shape[0]
        A.data[:] = 1.0
        deg = np.asarray(A.sum(axis=1)).ravel()
        S = np.where(deg > 0, 1.0 / np.maximum(deg, 1), 0.0)
        x = np.full(n, 1.0 / n)
        tol = pagerank_host_tol(n)
        for it in range(max_iter):
            xn = damping * (A.T @ (x * S) + x[deg == 0].sum() / n) + (1 - damping) / n
            err = np.abs(xn - x).sum()
            x = xn
            if err < n * tol:
                return x, it + 1
        raise RuntimeError("reference PageRank did not converge")

    def cc(self, G):
        from scipy.sparse.csgraph import connected_components

        nc, lab = connected_components(self._A(G), directed=False)
        low = np.full(nc, G.num_vertices, np.int64)
        np.minimum.at(low, lab, np.arange(G.num_vertices))
        return low[lab]

    def sssp(self, G, source):
        from scipy.sparse.csgraph import dijkstra

        return dijkstra(self._A(G), indices=source)

    def equal(self, a, b):
        from hpgraph import backend

        return bool(np.array_equal(backend.to_host(a), b))

    def count(self, mask):
        return int(np.count_nonzero(mask))

    def arange(self, n):
        return np.arange(n)

    def sample_rel_err(self, x, ref, k, seed):
        from hpgraph import backend

        x = np.asarray(backend.to_host(x), np.float64)
        idx = np.random.default_rng(seed).integers(0, ref.shape[0], k)
        return max(float(np.abs(x - ref).sum()), float((np.abs(x[idx] - ref[idx]) / ref[idx]).max()))

    def same_partition(self, labels, ref, nc):
        from hpgraph import backend

        key = np.asarray(backend.to_host(labels)).astype(np.int64) * ref.shape[0] + ref
        return int(np.unique(key).shape[0]) == nc
