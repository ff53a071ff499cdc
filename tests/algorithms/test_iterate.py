"""Iterative algorithms with an enormous ``max_iter`` (and ``tol=0``): bounded time, bounded
memory, exact results against independent oracles (NumPy power iteration, dense solves,
networkx), typed errors naming ``max_iter``; and the GPU PageRank loop's ring of
per-iteration scalars, run on a NumPy stand-in for the device."""

import time
import types

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph.algorithms import _iterate, _pagerank
from hpgraph.exceptions import ConvergenceError, InvalidValue

HUGE = [2**63, 2**64 + 7, 10**400, np.uint64(2**64 - 1), np.int64(2**63 - 1)]


def _digraph(n=300, p=0.02, seed=1):
    g = nx.gnp_random_graph(n, p, seed=seed, directed=True)
    return g, hp.Graph.from_scipy(nx.to_scipy_sparse_array(g, nodelist=range(n), format="csr"))


def _numpy_pagerank_fixed_point(A, damping, dtype=np.float64):
    """networkx's power step in plain NumPy/SciPy, iterated until the vector repeats exactly
    (SciPy's SpMV adds in another order than hpgraph's: equal to within rounding, and the
    fixed point may be reached a few iterations apart)."""
    dtype = np.dtype(dtype)
    A = sp.csr_array(A, dtype=np.float64)
    A.data[:] = 1.0
    n = A.shape[0]
    out = np.asarray(A.sum(axis=1)).ravel()
    S = np.where(out != 0, 1.0 / np.where(out != 0, out, 1), 0).astype(dtype)
    AT = sp.csr_array(A.T)
    x = np.full(n, 1.0 / n, dtype=dtype)
    for k in range(100_000):
        y = (AT @ (x * S)).astype(dtype)
        pv = dtype.type(1.0 / n)  # networkx's uniform personalization and dangling weights
        xn = (damping * (y + x[S == 0].sum(dtype=np.float64) * pv) + (1 - damping) * pv
              ).astype(dtype)
        if np.array_equal(xn, x):
            return x, k + 1
        x = xn
    raise AssertionError("the NumPy reference did not reach a fixed point")


# ---------------------------------------------------------------------------------------------
# max_iter's type and range


@pytest.mark.parametrize("fn", [hp.pagerank, hp.hits, hp.eigenvector_centrality,
                                hp.katz_centrality, hp.label_propagation])
@pytest.mark.parametrize("bad", [-1, -2**63, 2.5, 1.0, float("inf"), float("nan"), "5", None,
                                 True, [3]])
def test_bad_max_iter_is_invalid_value_naming_it(fn, bad):
    G = hp.generators.path(4, directed=True, backend="cpu")
    with pytest.raises(InvalidValue, match="max_iter"):
        fn(G, max_iter=bad, backend="cpu")


# ---------------------------------------------------------------------------------------------
# PageRank


@pytest.mark.parametrize("variant", ["power", "networkx"])
@pytest.mark.parametrize("huge", HUGE)
def test_pagerank_tol0_huge_max_iter_is_the_fixed_point(variant, huge):
    g, G = _digraph()
    ref, iters = _numpy_pagerank_fixed_point(nx.to_scipy_sparse_array(g, nodelist=range(300)), 0.85)
    t0 = time.perf_counter()
    x, info = hp.pagerank(G, tol=0, max_iter=huge, variant=variant, return_info=True,
                          backend="cpu")
    assert time.perf_counter() - t0 < 10
    assert info.residual == 0.0 and abs(info.iterations - iters) <= 5
    np.testing.assert_allclose(x, ref, rtol=1e-13, atol=1e-18)
    nxr = nx.pagerank(g, tol=1e-15, max_iter=10_000)
    np.testing.assert_allclose(x, [nxr[i] for i in range(300)], rtol=1e-12, atol=1e-15)


def test_pagerank_fixed_point_float32_and_path():
    G = hp.generators.path(50, directed=True, backend="cpu")
    A = G.to_scipy()
    for dtype in (np.float32, np.float64):
        ref, iters = _numpy_pagerank_fixed_point(A, 0.85, dtype)
        x, info = hp.pagerank(G, tol=0, max_iter=2**63, dtype=dtype, return_info=True,
                              backend="cpu")
        assert info.residual == 0.0 and abs(info.iterations - iters) <= 5
        assert info.iterations > _pagerank._RING     # longer than the GPU loop's ring
        tight = dict(rtol=1e-6, atol=1e-9) if dtype == np.float32 else dict(rtol=1e-13)
        np.testing.assert_allclose(x, ref, **tight)


def test_pagerank_huge_max_iter_with_a_tolerance_changes_nothing():
    _, G = _digraph(seed=4)
    a, ia = hp.pagerank(G, return_info=True, backend="cpu")
    b, ib = hp.pagerank(G, max_iter=2**63, return_info=True, backend="cpu")
    np.testing.assert_array_equal(a, b)
    assert ia == ib


@pytest.mark.parametrize("variant", ["power", "networkx"])
def test_pagerank_periodic_at_damping_1_stalls_with_a_typed_error(variant):
    G = hp.Graph.from_edges([0, 1], [1, 0], num_vertices=2, backend="cpu")
    t0 = time.perf_counter()
    with pytest.raises(ConvergenceError, match=r"stopped converging.*tol"):
        hp.pagerank(G, damping=1.0, tol=0, max_iter=2**63, nstart=np.array([1.0, 0.0]),
                    variant=variant, backend="cpu")
    assert time.perf_counter() - t0 < 10
    # the same graph from the uniform start is a fixed point at once (x M = x)
    x, info = hp.pagerank(G, damping=1.0, tol=0, max_iter=2**63, variant=variant,
                          return_info=True, backend="cpu")
    np.testing.assert_array_equal(x, [0.5, 0.5])
    assert info.iterations == 1


def test_pagerank_eq2_huge_max_iter_matches_the_dense_solve():
    g, G = _digraph(n=120, p=0.05, seed=7)
    A = nx.to_numpy_array(g, nodelist=range(120))
    out = A.sum(axis=1)
    M = np.where(out[:, None] > 0, A / np.where(out > 0, out, 1)[:, None], 0.0)
    ref = np.linalg.solve(np.eye(120) - 0.85 * M.T, np.full(120, 0.15))   # Eq. (2)
    x, info = hp.pagerank(G, tol=0, max_iter=2**63, variant="hpgraph", return_info=True,
                          backend="cpu")
    np.testing.assert_allclose(x, ref, rtol=1e-12)
    # it ends when the pending mass cannot change a rank any more (below eps * min rank / 4)
    assert info.residual < np.finfo(np.float64).eps * x.min() / 4


def test_pagerank_eq2_periodic_at_damping_1_stalls_with_a_typed_error():
    G = hp.Graph.from_edges([0, 1], [1, 0], num_vertices=2, backend="cpu")
    t0 = time.perf_counter()
    with pytest.raises(ConvergenceError, match="stopped converging"):
        hp.pagerank(G, damping=1.0, tol=0, max_iter=2**63, nstart=np.array([2.0, 0.0]),
                    variant="hpgraph", backend="cpu")
    assert time.perf_counter() - t0 < 10


# ---------------------------------------------------------------------------------------------
# eigenvector, Katz, HITS


def test_katz_tol0_huge_max_iter_matches_the_dense_solve():
    g, G = _digraph(n=150, p=0.04, seed=2)
    A = nx.to_numpy_array(g, nodelist=range(150))
    ref = np.linalg.solve(np.eye(150) - 0.05 * A.T, np.ones(150))
    ref /= np.linalg.norm(ref)
    x = hp.katz_centrality(G, alpha=0.05, tol=0, max_iter=2**63, backend="cpu")
    np.testing.assert_allclose(x, ref, rtol=1e-13)


def test_eigenvector_huge_max_iter_matches_networkx_and_tol0_stalls_typed():
    g = nx.gnp_random_graph(200, 0.05, seed=3, directed=True)
    G = hp.Graph.from_scipy(nx.to_scipy_sparse_array(g, nodelist=range(200), format="csr"))
    x = hp.eigenvector_centrality(G, tol=1e-10, max_iter=2**63, backend="cpu")
    ref = nx.eigenvector_centrality(g, tol=1e-10, max_iter=10_000)
    np.testing.assert_allclose(x, [ref[i] for i in range(200)], rtol=1e-8)
    # the L2 normalisation leaves rounding-level changes for ever: tol=0 is a stall
    with pytest.raises(ConvergenceError, match=r"stopped converging.*n\*tol = 0"):
        hp.eigenvector_centrality(G, tol=0, max_iter=2**63, backend="cpu")


def test_eigenvector_polynomial_convergence_stops_typed():
    # I + A^T of a directed edge is a Jordan block: the change falls like 1/k^2, for ever
    G = hp.Graph.from_edges([0], [1], num_vertices=2, backend="cpu")
    t0 = time.perf_counter()
    with pytest.raises(ConvergenceError, match="stopped converging"):
        hp.eigenvector_centrality(G, tol=0, max_iter=2**63, backend="cpu")
    assert time.perf_counter() - t0 < 10
    # networkx fails on it too, within its max_iter
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.eigenvector_centrality(nx.DiGraph([(0, 1)]), tol=0, max_iter=5000)


def test_hits_tol0_huge_max_iter_matches_networkx():
    g = nx.gnp_random_graph(200, 0.05, seed=3, directed=True)
    G = hp.Graph.from_scipy(nx.to_scipy_sparse_array(g, nodelist=range(200), format="csr"))
    t0 = time.perf_counter()
    h, a = hp.hits(G, tol=0, max_iter=2**63, backend="cpu")
    assert time.perf_counter() - t0 < 10
    rh, ra = nx.hits(g, tol=1e-12, max_iter=10_000)
    np.testing.assert_allclose(h, [rh[i] for i in range(200)], rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(a, [ra[i] for i in range(200)], rtol=1e-8, atol=1e-14)


def test_label_propagation_huge_max_iter_ends():
    g = nx.gnp_random_graph(300, 0.03, seed=5)
    G = hp.Graph.from_scipy(nx.to_scipy_sparse_array(g, nodelist=range(300), format="csr"),
                            directed=False)
    for mode in ("semi-synchronous", "synchronous"):
        t0 = time.perf_counter()
        lab = hp.label_propagation(G, max_iter=2**63, mode=mode, backend="cpu")
        assert time.perf_counter() - t0 < 10
        # a stable labelling: every vertex holds a most frequent label among its neighbours
        # (the synchronous mode may end on a two-state cycle, which is returned as reached)
        if mode == "semi-synchronous":
            for v in range(300):
                nb = [lab[u] for u in g[v]]
                if nb:
                    counts = np.bincount(nb)
                    assert counts[lab[v]] == counts.max()


def test_progress_rules():
    p = _iterate.Progress(1e-9, window=2)
    assert [p.update(e) for e in (1.0, 0.5, 0.6, 0.7)] == [None, None, None, "stalled"]
    assert _iterate.general(0.0).update(0.0) == _iterate.FIXED
    assert _iterate.contracting(1e-3).update(1e-4) == _iterate.CONVERGED
    slow = _iterate.Progress(0.0, window=2, shrink=0.5)
    assert [slow.update(e) for e in (1.0, 0.6, 0.5, 0.29, 0.2, 0.16)] == [None] * 5 + ["stalled"]
    nan = _iterate.Progress(0.0, window=2)
    assert [nan.update(float("nan")) for _ in range(2)] == [None, "stalled"]


def test_stall_windows_come_from_config(hp_config):
    """The stall windows and the shrink factor are hp.config keys, read when a run starts."""
    assert _iterate.contracting(0.0).window == 100
    g = _iterate.general(0.0, min_window=5)
    assert (g.window, g.shrink) == (1000, 0.5)
    hp_config(iterate_stall_contracting=2, iterate_stall_general=3, iterate_stall_shrink=0.25)
    p = _iterate.contracting(1e-9)
    assert [p.update(e) for e in (1.0, 0.5, 0.6, 0.7)] == [None, None, None, "stalled"]
    g = _iterate.general(0.0, min_window=5)
    assert (g.window, g.shrink) == (5, 0.25)
    # PageRank (damping < 1) at its rounding floor stops after the configured window
    G = hp.generators.rmat(8, seed=3, backend="cpu")
    with pytest.raises(ConvergenceError, match="windows of 2"):
        hp.pagerank(G, tol=0.0, max_iter=10**6, variant="networkx", backend="cpu")


# ---------------------------------------------------------------------------------------------
# the GPU PageRank loop on a NumPy stand-in for CuPy: the ring of per-iteration scalars


class _DevArray(np.ndarray):
    def get(self, stream=None, out=None, blocking=True):
        out[...] = self
        return out


def _fake_device(monkeypatch, allocations):
    def alloc(fn):
        def make(shape, dtype=np.float64):
            allocations.append(int(np.prod(shape)))
            return fn(shape, dtype=dtype).view(_DevArray)
        return make

    class _Event:
        def __init__(self, **kw):
            pass

        def record(self, stream=None):
            pass

        def synchronize(self):
            pass

    stream = types.SimpleNamespace(synchronize=lambda: None)
    cp = types.SimpleNamespace(
        empty=alloc(np.empty), zeros=alloc(np.zeros), float64=np.float64,
        asarray=lambda a, dtype=None: np.asarray(a, dtype=dtype).view(_DevArray),
        multiply=np.multiply, where=np.where, sum=np.sum,
        cuda=types.SimpleNamespace(Event=_Event, get_current_stream=lambda: stream))

    def update(y, x, S, p, dw, acc_prev, acc_next, x_new, w_next, alpha, p_uniform):
        # the kernel's arithmetic; it ADDS into acc_next, so an unzeroed ring row shows
        pv = p_uniform if p is None else p
        dv = pv if dw is None else dw
        x_new[...] = alpha * (y + acc_prev[1] * dv) + (1.0 - alpha) * pv
        w_next[...] = x_new * S
        acc_next[0] += np.abs(x_new.astype(np.float64) - x).sum()
        acc_next[1] += x_new[S == 0].sum(dtype=np.float64)

    import cupyx

    from hpgraph import spmv as _spmv
    from hpgraph.algorithms import _kernels

    real_spmv = _spmv.spmv
    monkeypatch.setattr(_pagerank._backend, "cupy", lambda: cp)
    monkeypatch.setattr(cupyx, "zeros_pinned", alloc(np.zeros), raising=False)
    monkeypatch.setattr(_kernels, "pagerank_update", update)
    monkeypatch.setattr(_spmv, "spmv", lambda A, x, sr, backend=None: real_spmv(
        A, np.asarray(x), sr, backend="cpu"))


@pytest.mark.parametrize("max_iter", [2**63, 500])
def test_gpu_loop_ring_matches_the_cpu_loop(monkeypatch, max_iter):
    pytest.importorskip("cupyx")
    G = hp.generators.path(50, directed=True, backend="cpu")
    n = G.num_vertices
    S, AT, sr = _pagerank._operands(G, False, np.dtype(np.float64))
    ref, _ = _numpy_pagerank_fixed_point(G.to_scipy(), 0.85)
    cpu, info = hp.pagerank(G, tol=0, max_iter=max_iter, return_info=True, backend="cpu")
    allocations = []
    _fake_device(monkeypatch, allocations)
    x, k, err = _pagerank._networkx_gpu(
        AT, S, sr, n, 0.85, _iterate.contracting(0.0), max_iter,
        None, None, None, np.dtype(np.float64), "L1 change < tol = 0")
    # the same arithmetic as the CPU loop, through the ring's wrap-arounds
    assert (k, err) == (info.iterations, 0.0) and k > 2 * _pagerank._RING
    np.testing.assert_array_equal(np.asarray(x), cpu)
    np.testing.assert_allclose(np.asarray(x), ref, rtol=1e-13)
    assert max(allocations) <= max(n, 2 * _pagerank._RING)   # nothing sized by max_iter


def test_gpu_loop_stall_and_tolerance(monkeypatch):
    pytest.importorskip("cupyx")
    G = hp.Graph.from_edges([0, 1], [1, 0], num_vertices=2, backend="cpu")
    S, AT, sr = _pagerank._operands(G, False, np.dtype(np.float64))
    _fake_device(monkeypatch, [])
    with pytest.raises(ConvergenceError, match="stopped converging"):
        _pagerank._networkx_gpu(AT, S, sr, 2, 1.0, _iterate.Progress(0.0, 1000), 2**63, None,
                                np.array([1.0, 0.0]), None, np.dtype(np.float64), "tol = 0")
    R = hp.generators.rmat(7, seed=1, directed=True, backend="cpu")
    S, AT, sr = _pagerank._operands(R, False, np.dtype(np.float64))
    cpu, info = hp.pagerank(R, tol=1e-12, max_iter=1000, return_info=True, backend="cpu")
    x, k, err = _pagerank._networkx_gpu(AT, S, sr, R.num_vertices, 0.85,
                                        _iterate.Progress(1e-12, 100), 1000, None, None, None,
                                        np.dtype(np.float64), "tol")
    assert (k, err) == (info.iterations, info.residual)
    np.testing.assert_array_equal(np.asarray(x), cpu)


def test_pagerank_eq2_damping_1_with_an_isolated_vertex_ends():
    """At damping = 1 an isolated vertex's rank is 0 (no rounding step): the stopping floor
    comes from the smallest non-zero rank, so the run ends at the rounding level instead of
    following the pending mass down through the subnormals (a fuzz-found hang).  The result
    is the stationary vector of the random walk on each component: here the ranks of the
    connected part are proportional to the degrees (repeated edges merged), with the total
    mass of its start."""
    src = [5, 2, 5, 4, 6, 3, 5, 5, 0, 3, 3]
    dst = [2, 3, 2, 3, 5, 5, 4, 4, 6, 4, 2]
    G = hp.Graph.from_edges(src, dst, num_vertices=7, directed=False, backend="cpu")
    t0 = time.perf_counter()
    x, info = hp.pagerank(G, damping=1.0, tol=0, max_iter=2**63, variant="hpgraph",
                          return_info=True, backend="cpu")
    assert time.perf_counter() - t0 < 10
    g = nx.Graph()
    g.add_nodes_from(range(7))
    g.add_edges_from(zip(src, dst))
    deg = np.array([g.degree(v) for v in range(7)], dtype=float)
    assert x[1] == 0.0 and deg[1] == 0
    np.testing.assert_allclose(x, deg / deg.sum() * 6, rtol=1e-12)
