"""Near-far SSSP, the method switch and the one-pass predecessors, against scipy.sparse.csgraph.

Every shared graph case runs with ``method="near-far"`` on the CPU and the GPU, with the
default bucket width and with extreme ones (tiny: one phase per distinct distance band; inf:
a queue Bellman-Ford).  The CUDA sources are compiled with NVRTC without a GPU.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.algorithms import _sssp_nearfar as nf
from hpgraph.exceptions import InvalidValue


def delta_values(case):
    """Default, tiny (many phases), moderate and inf."""
    return [None, 1e-3, 4.0, math.inf]


# ---------------------------------------------------------------------------------------------
# the shared random graphs, both backends


def test_near_far_matches_scipy(graph_case, backend_name, cases):
    case = graph_case
    if case.n == 0:
        return
    G = cases.to_graph(case, backend_name)
    rng = np.random.default_rng(case.n + 7)
    for s in sorted({0, int(rng.integers(0, case.n))}):
        for delta in delta_values(case):
            res = hp.sssp(G, s, method="near-far", delta=delta, backend=backend_name)
            cases.check_sssp(case, res, [s])


@pytest.mark.cases(min_n=3)
def test_near_far_multi_source(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    srcs = [0, case.n // 2, case.n - 1, 0]  # a repeated source is one source
    res = hp.sssp(G, srcs, method="near-far", backend=backend_name)
    cases.check_sssp(case, res, srcs)


def test_near_far_without_predecessors_agrees_with_bellman_ford(graph_case, backend_name, cases):
    case = graph_case
    if case.n == 0:
        return
    G = cases.to_graph(case, backend_name)
    a = hp.sssp(G, 0, method="near-far", predecessors=False, backend=backend_name, to="numpy")
    b = hp.sssp(G, 0, method="bellman-ford", predecessors=False, backend=backend_name, to="numpy")
    assert a.predecessor is None and b.predecessor is None
    assert a.distance.dtype == b.distance.dtype
    np.testing.assert_allclose(a.distance, b.distance, rtol=1e-6)


def test_predecessors_of_both_methods_are_shortest_path_trees(hp_config, graph_case, backend_name,
                                                              cases):
    """Near-far (one-pass tight predecessors) and Bellman-Ford (the engine's winner witness)
    may pick different trees where shortest paths tie; each must be a shortest-path tree of the
    SciPy distances.  (The GPU single-launch near-far: see test_sssp_gpu.py.)"""
    hp_config(sssp_gpu_nearfar="engine")
    case = graph_case
    if case.n == 0 or (case.weights is not None and case.weights.dtype.kind == "f"):
        return
    G = cases.to_graph(case, backend_name)
    for method in ("near-far", "bellman-ford"):
        res = hp.sssp(G, 0, method=method, backend=backend_name, to="numpy")
        cases.check_sssp(case, res, [0])
        cases.check_sssp_tree(case, res.distance, res.predecessor, [0])


# ---------------------------------------------------------------------------------------------
# targeted graphs


def _path_graph(weights, backend):
    w = np.asarray(weights, dtype=np.float64)
    n = w.size + 1
    return hp.Graph.from_edges(np.arange(n - 1), np.arange(1, n), weights=w, num_vertices=n,
                               directed=True, backend=backend)


@pytest.mark.parametrize("delta", [None, 1.0, 1e-3, math.inf])
def test_threshold_jumps_over_empty_bands(backend_name, delta):
    # distance gaps of 1e9: with delta 1 the far pile is split ~1e9 times unless thr jumps
    G = _path_graph([1.0, 1e9, 1.0, 3e9, 0.0, 2.0], backend_name)
    res = hp.sssp(G, 0, method="near-far", delta=delta, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.distance, np.cumsum([0, 1.0, 1e9, 1.0, 3e9, 0.0, 2.0]))
    np.testing.assert_array_equal(res.predecessor, [-1, 0, 1, 2, 3, 4, 5])


def test_delta_below_float_resolution(backend_name):
    # thr + delta == thr in floating point: the split takes everything (no endless loop)
    G = _path_graph([1e20, 1.0, 1e20], backend_name)
    res = hp.sssp(G, 0, method="near-far", delta=1e-300, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.distance, [0, 1e20, 1e20 + 1.0, 2e20 + 1.0])


def test_all_zero_weights(backend_name):
    G = hp.Graph.from_edges([0, 1, 2, 3, 1], [1, 2, 3, 1, 4], weights=np.zeros(5), num_vertices=6,
                            directed=True, backend=backend_name)
    res = hp.sssp(G, 0, method="near-far", backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.distance, [0, 0, 0, 0, 0, np.inf])
    # zero-weight cycle 1 -> 2 -> 3 -> 1: the tight-edge BFS fallback gives a tree
    assert res.predecessor[0] == -1 and res.predecessor[5] == -1
    assert res.predecessor[1] == 0 and res.predecessor[2] == 1 and res.predecessor[3] == 2
    assert res.predecessor[4] == 1


def test_absorbed_weight_falls_back_to_tight_bfs(backend_name):
    # 1e20 + 1 == 1e20 in float64: vertex 2 has a tight edge but no strictly smaller predecessor
    G = _path_graph([1e20, 1.0], backend_name)
    res = hp.sssp(G, 0, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.distance, [0, 1e20, 1e20])
    np.testing.assert_array_equal(res.predecessor, [-1, 0, 1])


@pytest.mark.parametrize("wdtype", [np.int32, np.int64, np.uint8, np.float32, np.float64, bool])
def test_weight_dtypes(backend_name, wdtype):
    rng = np.random.default_rng(3)
    n, m = 200, 900
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(0 if wdtype is bool else 1, 2 if wdtype is bool else 50, m).astype(wdtype)
    G = hp.Graph.from_edges(s, d, weights=w, num_vertices=n, directed=True, backend=backend_name)
    # scipy reference on the graph's own (deduplicated, min) weights; csgraph keeps explicit
    # zeros (stored False) as zero-weight edges
    Gh = G.to_host().A
    ref = csg.dijkstra(sp.csr_array((np.asarray(Gh.values, np.float64), Gh.indices, Gh.indptr),
                                    shape=(n, n)), indices=0)
    res = hp.sssp(G, 0, method="near-far", backend=backend_name, to="numpy")
    np.testing.assert_allclose(res.distance, ref, rtol=1e-6)
    fin = np.isfinite(res.distance)
    assert np.all(res.predecessor[~fin] == -1) and res.predecessor[0] == -1


def test_hub_vertices_take_the_block_path(backend_name):
    """A hub above the heavy-degree threshold, as source and in the middle of paths."""
    rng = np.random.default_rng(11)
    leaves = 3000
    hub = 0
    s = np.concatenate([np.full(leaves, hub), np.arange(1, leaves + 1), rng.integers(1, leaves + 1, 4000)])
    d = np.concatenate([np.arange(1, leaves + 1), np.full(leaves, hub), rng.integers(1, leaves + 1, 4000)])
    w = rng.integers(1, 64, s.size).astype(np.float64)
    n = leaves + 1
    G = hp.Graph.from_edges(s, d, weights=w, num_vertices=n, directed=True, backend=backend_name)
    Gh = G.to_host().A
    A = sp.csr_array((np.asarray(Gh.values, np.float64), Gh.indices, Gh.indptr), shape=(n, n))
    for src in (hub, 5):
        res = hp.sssp(G, src, method="near-far", backend=backend_name, to="numpy")
        np.testing.assert_allclose(res.distance, csg.dijkstra(A, indices=src), rtol=1e-12)


def test_repeated_calls_reuse_the_plan(backend_name, cases):
    case = [c for c in cases.graph_cases() if c.name == "grid-medium-20x25"][0]
    G = cases.to_graph(case, backend_name)
    for s in (0, 7, 499, 0, 250):
        cases.check_sssp(case, hp.sssp(G, s, method="near-far", backend=backend_name), [s])


# ---------------------------------------------------------------------------------------------
# the method switch


def test_method_and_delta_validation():
    G = hp.Graph.from_edges([0], [1], weights=[2.0], num_vertices=2)
    for bad in ("dijkstra", "Near-Far", None, 3):
        with pytest.raises(InvalidValue, match="method"):
            hp.sssp(G, 0, method=bad, backend="cpu")
    for bad in (0, -1.0, float("nan"), "1", True):
        with pytest.raises(InvalidValue, match="delta"):
            hp.sssp(G, 0, delta=bad, backend="cpu")


def test_near_far_rejects_negative_weights_auto_falls_back(backend_name, cases):
    case = cases.negative_weight_cases()[1]
    G = cases.to_graph(case, backend_name)
    with pytest.raises(InvalidValue, match="non-negative"):
        hp.sssp(G, 0, method="near-far", backend=backend_name)
    info = {}
    from hpgraph.algorithms._sssp import _sssp_arrays, choose_method

    assert choose_method(G, backend_name) == "bellman-ford"
    cases.check_sssp(case, hp.sssp(G, 0, backend=backend_name), [0], method="BF")
    _sssp_arrays(G if backend_name == "cpu" else G.to_device(), np.array([0]), backend_name,
                 predecessors=False, info=info)
    assert info["method"] == "bellman-ford"


def test_auto_rule(backend_name):
    from hpgraph.algorithms._sssp import choose_method, gpu_nearfar_impl

    degree = hp.config["sssp_gpu_kernel_degree"]

    grid = hp.generators.grid_2d(5, 5, weights=(1, 9), seed=1, backend=backend_name)
    dense = hp.generators.erdos_renyi(40, m=int(40 * (degree + 2) / 2), seed=1,
                                      weights=(1, 9), backend=backend_name)
    assert dense.num_edges / dense.num_vertices > degree
    assert choose_method(grid, backend_name) == "near-far"
    assert choose_method(dense, backend_name) == "near-far"
    # on the GPU: the engine program on sparse graphs, the single-launch kernel on dense ones
    assert gpu_nearfar_impl(grid) == "engine" and gpu_nearfar_impl(dense) == "kernel"
    for G in (grid, dense):
        assert choose_method(G, backend_name, "bellman-ford") == "bellman-ford"
        assert choose_method(G, backend_name, "near-far") == "near-far"


def test_default_delta():
    G = hp.generators.grid_2d(10, 10, weights=(4, 4), seed=1, backend="cpu")
    deg = G.num_edges / G.num_vertices
    assert nf.default_delta(G) == pytest.approx(hp.config["sssp_delta_factor"] * 4 / deg)
    Z = hp.Graph.from_edges([0, 1], [1, 2], weights=[0.0, 0.0], num_vertices=3)
    assert nf.default_delta(Z) == math.inf
    U = hp.generators.grid_2d(4, 4, backend="cpu")
    assert nf.default_delta(U) == pytest.approx(hp.config["sssp_delta_factor"] / (U.num_edges / U.num_vertices))


def test_cpu_near_far_counts_steps():
    G = hp.generators.grid_2d(30, 30, weights=(1, 64), seed=2, backend="cpu")
    dist, info = nf.near_far_cpu(G, np.array([0]), np.dtype(np.float64), 100.0)
    assert info["splits"] > 5 and info["relax_steps"] > 30
    A = G.A.to_scipy()
    np.testing.assert_allclose(dist, csg.dijkstra(A.astype(np.float64), indices=0), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# NVRTC (no GPU needed)


def _nvrtc_or_skip():
    try:
        hp.backend.compile_ptx('extern "C" __global__ void k(int* a) { a[0] = 1; }', "probe.cu")
    except Exception as exc:  # noqa: BLE001 - any failure means "cannot compile here"
        pytest.skip(f"NVRTC unavailable: {exc}")


@pytest.mark.parametrize("dist", [np.float32, np.float64])
@pytest.mark.parametrize("w", [None, np.int32, np.int64, np.uint8, np.bool_, np.float32, np.float64])
def test_kernels_compile(dist, w):
    _nvrtc_or_skip()
    for idx, ptr in ((np.int32, np.int64), (np.int64, np.int64), (np.int32, np.int32)):
        src, name = nf.pred_source(dist, idx, ptr, w, np.int64 if idx == np.int32 else idx)
        assert name in hp.backend.compile_ptx(src, name + ".cu")


