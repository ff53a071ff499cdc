"""Baselines shared by the benchmarks (not project code): what a user would write in plain
CuPy, python-graphblas or NumPy without hpgraph."""

import time

import numpy as np

from hpgraph.exceptions import ConvergenceError

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


class Capped(Exception):
    """A CPU baseline ran past --cap seconds."""


# ---------------------------------------------------------------------------------------------
# plain CuPy / cuSPARSE baselines (bench_algorithms.py and the others)


def _cp():
    import cupy

    return cupy


class CupyBaselines:
    """The plain CuPy implementations on one device graph (matrices converted once)."""

    def __init__(self, Gd):
        cp = _cp()
        self.n = Gd.num_vertices
        AT = Gd.AT
        self.AT32 = AT.to_cupyx().astype(cp.float32)          # cuSPARSE, pattern as 1.0
        self.AT32.data[:] = 1
        self.AT64 = self.AT32.astype(cp.float64)
        self.ip = AT.indptr.astype(cp.int32)
        self.ix = AT.indices.astype(cp.int32)
        self.w = (AT.values.astype(cp.float32) if AT.values is not None
                  else cp.ones(AT.nnz, cp.float32))
        outdeg = Gd.out_degree.astype(cp.float64)
        self.S64 = cp.where(outdeg > 0, 1.0 / cp.maximum(outdeg, 1), 0.0)
        self.S32 = self.S64.astype(cp.float32)
        self.bf = cp.RawKernel(BF_SOURCE, "bf_pull")
        sm = cp.cuda.Device().attributes["MultiProcessorCount"]
        self.bf_grid = (max(1, min(sm * 32, (self.n * 32 + 255) // 256)),)

    def bfs(self, source):
        return cupy_bfs(self.AT32, source)

    def sssp(self, source):
        cp = _cp()
        dist = cp.full(self.n, cp.inf, cp.float32)
        dist[source] = 0
        changed = cp.zeros(1, cp.int32)
        while True:
            changed.fill(0)
            self.bf(self.bf_grid, (256,), (self.ip, self.ix, self.w, dist, np.int32(self.n), changed))
            if int(changed.get()[0]) == 0:
                break
        return dist

    def pagerank(self, dtype, tol=1e-6, max_iter=100, fixed=None, damping=0.85):
        """networkx's iteration; ``fixed``: run exactly that many iterations (no check)."""
        cp = _cp()
        n = self.n
        A = self.AT64 if dtype == np.float64 else self.AT32
        S = self.S64 if dtype == np.float64 else self.S32
        dang = S == 0
        x = cp.full(n, 1.0 / n, dtype)
        iters = fixed if fixed is not None else max_iter
        for it in range(iters):
            y = A @ (x * S)
            dsum = cp.sum(cp.where(dang, x, 0))
            xn = damping * (y + dsum / n) + (1 - damping) / n
            if fixed is None:
                err = float(cp.abs(xn - x).sum())
                x = xn
                if err < n * tol:
                    return x, it + 1
            else:
                x = xn
        if fixed is None:
            raise ConvergenceError("cuSPARSE PageRank did not converge")
        return x, iters

    def spmv(self, dtype):
        cp = _cp()
        A = self.AT64 if dtype == np.float64 else self.AT32
        x = cp.ones(self.n, dtype)
        return lambda: A @ x


# ---------------------------------------------------------------------------------------------
# python-graphblas baselines


def gb_matrix(G):
    import graphblas as gb

    A = G.to_host().to_scipy()
    if A.dtype.kind != "f":
        A = A.astype(np.float64)
    return gb.io.from_scipy_sparse(A)


def gb_bfs(A, source, cap):
    import graphblas as gb
    from graphblas import semiring

    n = A.nrows
    t0 = time.perf_counter()
    depth = gb.Vector(gb.dtypes.INT32, n)
    q = gb.Vector(gb.dtypes.BOOL, n)
    q[source] << True
    level = 0
    while q.nvals:
        depth(q.S) << level
        q(~depth.S, replace=True) << q.vxm(A, semiring.any_pair[gb.dtypes.BOOL])
        level += 1
        if time.perf_counter() - t0 > cap:
            raise Capped
    return depth


def gb_sssp(A, source, cap):
    import graphblas as gb
    from graphblas import binary, semiring

    n = A.nrows
    t0 = time.perf_counter()
    d = gb.Vector(gb.dtypes.FP64, n)
    d[source] << 0.0
    for _ in range(n):
        d2 = d.dup()
        d2(binary.min) << d.vxm(A, semiring.min_plus)
        if d2.isequal(d):
            break
        d = d2
        if time.perf_counter() - t0 > cap:
            raise Capped
    return d


def gb_pagerank(A, S, tol=1e-6, max_iter=100, damping=0.85):
    import graphblas as gb
    from graphblas import semiring

    n = A.nrows
    dang = S == 0
    x = np.full(n, 1.0 / n)
    for it in range(max_iter):
        w = gb.Vector.from_dense(x * S)
        y = w.vxm(A, semiring.plus_times).new().to_dense(fill_value=0.0)
        xn = damping * (y + x[dang].sum() / n) + (1 - damping) / n
        err = np.abs(xn - x).sum()
        x = xn
        if err < n * tol:
            return x, it + 1
    raise ConvergenceError("graphblas PageRank did not converge")


def gb_triangles(A):
    import graphblas as gb
    from graphblas import select, semiring

    L = select.tril(A, -1).new()
    L = L.apply(gb.unary.one[gb.dtypes.INT64]).new()
    C = L.mxm(L, semiring.plus_pair[gb.dtypes.INT64]).new(mask=L.S)
    return int(C.reduce_scalar().new().value or 0)


def gb_cc(A, cap):
    import graphblas as gb
    from graphblas import binary, semiring

    n = A.nrows
    t0 = time.perf_counter()
    f = gb.Vector.from_dense(np.arange(n, dtype=np.int64))
    while True:
        g = f.dup()
        g(binary.min) << A.mxv(f, semiring.min_second[gb.dtypes.INT64])
        if g.isequal(f):
            break
        f = g
        if time.perf_counter() - t0 > cap:
            raise Capped
    return len(np.unique(f.to_dense()))


def gb_one():
    import graphblas as gb

    return gb.unary.one[gb.dtypes.FP64]


_AT_ONES = {}   # the last matrix's pattern transpose (the f64 and f32 rows share it)


def np_pagerank(A, thresh, damping=0.85, max_iter=1000):
    """networkx's iteration in NumPy/SciPy (pattern of ``A``), stopping at L1 change < thresh."""
    n = A.shape[0]
    held = _AT_ONES.get("last")
    if held is not None and held[0] is A:
        AT = held[1]
    else:
        AT = A.T.tocsr().astype(np.float64)
        AT.data[:] = 1
        _AT_ONES["last"] = (A, AT)
    outdeg = np.diff(A.indptr).astype(np.float64)
    S = np.where(outdeg > 0, 1.0 / np.maximum(outdeg, 1), 0.0)
    x = np.full(n, 1.0 / n)
    for it in range(max_iter):
        xn = damping * (AT @ (x * S) + x[S == 0].sum() / n) + (1 - damping) / n
        err = np.abs(xn - x).sum()
        x = xn
        if err < thresh:
            return x, it + 1
    raise ConvergenceError("NumPy PageRank did not converge")
