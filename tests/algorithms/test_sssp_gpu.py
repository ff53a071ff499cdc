"""The single-launch near-far SSSP (hpgraph.algorithms._sssp_gpu): NVRTC compiles everywhere;
on the GPU it is forced (``hp.config["sssp_gpu_nearfar"] = "kernel"``) on the shared cases and on graphs
built to hit each code path, and checked against scipy.sparse.csgraph."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.algorithms import _coop, _sssp, _sssp_gpu


@pytest.mark.parametrize("dist", [np.float32, np.float64])
@pytest.mark.parametrize("w", [None, np.int32, np.uint8, np.bool_, np.float32, np.float64])
def test_kernel_compiles_with_nvrtc(dist, w):
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="NVRTC (the nvrtc extra) is not installed")
    for idx, ptr, pred, block in ((np.int32, np.int64, np.int32, 1024), (np.int64, np.int64, np.int64, 256),
                                  (np.int32, np.int32, np.int32, 256)):
        src, name = _sssp_gpu.sssp_source(dist, idx, ptr, w, pred, block, pack=block == 1024)
        assert f".entry {name}(" in hp.backend.compile_ptx(src, name + ".cu", ("-std=c++17",))


def test_source_rejects_bad_parameters():
    with pytest.raises(ValueError, match="float32 or float64"):
        _sssp_gpu.sssp_source(np.int32)
    with pytest.raises(ValueError, match="block"):
        _sssp_gpu.sssp_source(np.float32, block=96)


def test_launch_shape(hp_config):
    hp_config(sssp_gpu_shape=(512, 2))
    assert _sssp_gpu.launch_shape(10, 1000) == (512, 2)


# ---------------------------------------------------------------------------------------------
# GPU


@pytest.fixture
def kernel(hp_config):
    hp_config(sssp_gpu_nearfar="kernel")


def _ran_kernel(G, src=0, **kw):
    info = {}
    _sssp._sssp_arrays(G, np.atleast_1d(src), "gpu", predecessors=False, method="near-far",
                       info=info, **kw)
    return info.get("impl") == "kernel"


@pytest.mark.gpu
@pytest.mark.parametrize("delta", [None, 1e-3, 4.0, math.inf])
def test_shared_cases(delta, cases, kernel):
    for case in cases.graph_cases(min_n=1):
        G = cases.to_graph(case, "gpu")
        srcs = [0] if case.n < 3 else [0, case.n // 2, case.n - 1]
        for s in ([0], srcs):
            cases.check_sssp(case, hp.sssp(G, s, method="near-far", delta=delta), s)
        assert _ran_kernel(G, delta=delta)


@pytest.mark.gpu
def test_auto_and_bellman_ford_agree(cases, monkeypatch):
    """Default sssp_gpu_nearfar on dense cases takes the kernel; distances equal Bellman-Ford's."""
    for case in cases.graph_cases(min_n=1):
        if case.weights is not None and case.weights.dtype.kind == "f":
            continue
        G = cases.to_graph(case, "gpu")
        a = hp.sssp(G, 0, to="numpy")
        b = hp.sssp(G, 0, method="bellman-ford", to="numpy")
        np.testing.assert_array_equal(a.distance, b.distance)
        cases.check_sssp_tree(case, a.distance, a.predecessor, [0])


def _path(weights):
    w = np.asarray(weights, dtype=np.float64)
    n = w.size + 1
    return hp.Graph.from_edges(np.arange(n - 1), np.arange(1, n), weights=w, num_vertices=n,
                               directed=True, backend="gpu")


@pytest.mark.gpu
@pytest.mark.parametrize("delta", [None, 1.0, 1e-3, math.inf])
def test_threshold_jumps(delta, kernel):
    G = _path([1.0, 1e9, 1.0, 3e9, 0.0, 2.0])
    res = hp.sssp(G, 0, method="near-far", delta=delta, to="numpy")
    np.testing.assert_array_equal(res.distance, np.cumsum([0, 1.0, 1e9, 1.0, 3e9, 0.0, 2.0]))
    np.testing.assert_array_equal(res.predecessor, [-1, 0, 1, 2, 3, 4, 5])
    assert _ran_kernel(G, delta=delta)


@pytest.mark.gpu
def test_delta_below_float_resolution(kernel):
    G = _path([1e20, 1.0, 1e20])
    res = hp.sssp(G, 0, method="near-far", delta=1e-300, to="numpy")
    np.testing.assert_array_equal(res.distance, [0, 1e20, 1e20 + 1.0, 2e20 + 1.0])


@pytest.mark.gpu
def test_zero_weights_fall_back_to_tight_bfs(kernel):
    G = hp.Graph.from_edges([0, 1, 2, 3, 1], [1, 2, 3, 1, 4], weights=np.zeros(5), num_vertices=6,
                            directed=True, backend="gpu")
    res = hp.sssp(G, 0, method="near-far", to="numpy")
    np.testing.assert_array_equal(res.distance, [0, 0, 0, 0, 0, np.inf])
    assert list(res.predecessor) == [-1, 0, 1, 2, 1, -1]
    G = _path([1e20, 1.0])        # 1e20 + 1 == 1e20: a tight edge, no strictly closer parent
    res = hp.sssp(G, 0, method="near-far", to="numpy")
    np.testing.assert_array_equal(res.predecessor, [-1, 0, 1])


@pytest.mark.gpu
@pytest.mark.parametrize("wdtype", [np.int32, np.int64, np.uint8, np.float32, np.float64, bool, None])
def test_weight_dtypes(wdtype, kernel):
    rng = np.random.default_rng(3)
    n, m = 300, 4000
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    w = None if wdtype is None else \
        rng.integers(0 if wdtype is bool else 1, 2 if wdtype is bool else 50, m).astype(wdtype)
    G = hp.Graph.from_edges(s, d, weights=w, num_vertices=n, directed=True, backend="gpu")
    Gh = G.to_host().A
    vals = np.ones(Gh.nnz) if w is None else np.asarray(Gh.values, np.float64)
    ref = csg.dijkstra(sp.csr_array((vals, Gh.indices, Gh.indptr), shape=(n, n)), indices=0)
    res = hp.sssp(G, 0, method="near-far", to="numpy")
    np.testing.assert_allclose(res.distance, ref, rtol=1e-6)
    assert _ran_kernel(G)


def _hub_graph(leaves, extra, seed=11):
    """A hub with ``leaves`` out- and in-edges plus random edges among the leaves."""
    rng = np.random.default_rng(seed)
    s = np.concatenate([np.zeros(leaves, np.int64), np.arange(1, leaves + 1),
                        rng.integers(1, leaves + 1, extra)])
    d = np.concatenate([np.arange(1, leaves + 1), np.zeros(leaves, np.int64),
                        rng.integers(1, leaves + 1, extra)])
    w = rng.integers(1, 64, s.size).astype(np.float64)
    n = leaves + 1
    G = hp.Graph.from_edges(s, d, weights=w, num_vertices=n, directed=True, backend="gpu")
    Gh = G.to_host().A
    return G, sp.csr_array((np.asarray(Gh.values, np.float64), Gh.indices, Gh.indptr), shape=(n, n))


@pytest.mark.gpu
@pytest.mark.parametrize("launch", [(256, 1), (1024, 1), (128, 8)], ids=lambda x: f"{x[0]}x{x[1]}")
@pytest.mark.parametrize("leaves", [3000, 20000])       # heavy (a block) / huge (the grid) hub
def test_hub_paths_and_launch_shapes(hp_config, leaves, launch, kernel):
    hp_config(sssp_gpu_shape=launch)
    G, A = _hub_graph(leaves, 4 * leaves)
    for src in (0, 5, [5, 9, 0]):
        res = hp.sssp(G, src, method="near-far", to="numpy")
        ref = csg.dijkstra(A, indices=np.atleast_1d(src)).min(axis=0)
        np.testing.assert_allclose(res.distance, ref, rtol=1e-12)
        p = res.predecessor
        v = np.flatnonzero(np.isfinite(ref) & ~np.isin(np.arange(A.shape[0]), src))
        np.testing.assert_allclose(res.distance[p[v]] + A[p[v], v], res.distance[v], rtol=1e-12)


@pytest.mark.gpu
def test_streams_and_repeats(kernel):
    import cupy

    G = hp.generators.rmat(13, edge_factor=16, seed=3, weights=(1, 64), backend="gpu")
    Gh = G.to_host().A
    A = sp.csr_array((np.asarray(Gh.values, np.float64), Gh.indices, Gh.indptr), shape=Gh.shape)
    s1, s2 = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    srcs = (0, 1, 2, 0, 7)
    res = []
    for i, s in enumerate(srcs):
        with (s1 if i % 2 else s2):
            res.append(hp.sssp(G, s, predecessors=False))
    cupy.cuda.Device().synchronize()
    for r, s in zip(res, srcs):
        np.testing.assert_allclose(cupy.asnumpy(r.distance), csg.dijkstra(A, indices=s), rtol=1e-12)
    assert _ran_kernel(G)


@pytest.mark.gpu
def test_profile(hp_config, kernel):
    hp_config(sssp_gpu_profile=True)
    G = hp.generators.rmat(11, edge_factor=16, seed=6, weights=(1, 64), backend="gpu")
    hp.sssp(G, 0, method="near-far", predecessors=True)
    prof = _sssp_gpu._plan(G, np.float64, np.int32).profile()
    assert prof["compactions"] >= 2 and prof["queue"][0] == 1 and prof["steps_us"] > 0


@pytest.mark.gpu
def test_refusal_falls_back_to_step_kernel(kernel, monkeypatch, cases):
    from cupy_backends.cuda.api.driver import CUDADriverError

    def refuse(*a, **k):
        raise CUDADriverError(720)   # CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE

    monkeypatch.setattr(_coop.CoopKernel, "_launch", refuse)
    G, A = _hub_graph(500, 2000, seed=4)
    res = hp.sssp(G, 0, method="near-far", to="numpy")
    np.testing.assert_allclose(res.distance, csg.dijkstra(A, indices=0), rtol=1e-12)
    assert not _ran_kernel(G)


def test_exact_positive_rule():
    """When the kernel's predecessors cannot miss, the host skips its read of the count."""
    f64, f32 = np.dtype(np.float64), np.dtype(np.float32)

    def graph(w):
        return hp.Graph.from_edges([0, 1], [1, 2], weights=w, num_vertices=3)

    ex = _sssp_gpu._exact_positive
    assert ex(hp.generators.grid_2d(3, 3, backend="cpu"), f32, None, 9)
    assert not ex(hp.generators.grid_2d(3, 3, backend="cpu"), f32, None, 2**24)
    g = graph(np.array([3, 5], np.int32))
    assert ex(g, f64, np.int32, 3)
    assert not ex(g, f64, np.int32, 2**52)                         # n * max weight >= 2**53
    assert not ex(graph(np.array([0, 5], np.int64)), f64, np.int64, 3)    # a zero weight
    assert not ex(graph(np.array([1.0, 2.0])), f64, np.float64, 3)        # float weights
