"""SSSP against scipy.sparse.csgraph (Dijkstra / Bellman-Ford) on the shared random graphs."""

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.exceptions import IndexOutOfBound, InvalidGraph, NegativeCycleError


METHODS = ["auto", "bellman-ford", "near-far"]


@pytest.mark.parametrize("method", METHODS)
def test_sssp_matches_scipy(graph_case, backend_name, cases, method):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    if case.n == 0:
        with pytest.raises(IndexOutOfBound):
            hp.sssp(G, 0, method=method, backend=backend_name)
        return
    rng = np.random.default_rng(case.n + 1)
    for s in {0, int(rng.integers(0, case.n))}:
        cases.check_sssp(case, hp.sssp(G, s, method=method, backend=backend_name), [s])


@pytest.mark.cases(min_n=3)
@pytest.mark.parametrize("method", METHODS)
def test_sssp_multi_source(graph_case, backend_name, cases, method):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    srcs = [0, case.n // 2, case.n - 1]
    cases.check_sssp(case, hp.sssp(G, srcs, method=method, backend=backend_name), srcs)


@pytest.mark.parametrize("method", ["auto", "bellman-ford"])
def test_sssp_negative_weights(backend_name, cases, method):
    for case in cases.negative_weight_cases():
        G = cases.to_graph(case, backend_name)
        for s in (0, case.n - 1):
            cases.check_sssp(case, hp.sssp(G, s, method=method, backend=backend_name), [s],
                       method="BF")


def test_sssp_negative_cycle(backend_name, cases):
    case = cases.negative_cycle_case()
    G = cases.to_graph(case, backend_name)
    with pytest.raises(NegativeCycleError):
        hp.sssp(G, 0, backend=backend_name)
    with pytest.raises(csg.NegativeCycleError):  # scipy agrees
        csg.bellman_ford(cases.to_scipy(case), indices=0)
    # from vertex 4 the cycle is unreachable: fine
    res = hp.sssp(G, 4, backend=backend_name, to="numpy")
    np.testing.assert_allclose(res.distance, [np.inf] * 4 + [0, 1])
    # a negative self-loop is a negative cycle
    G1 = hp.Graph.from_edges([0, 1], [1, 1], weights=[1.0, -0.5], num_vertices=2)
    with pytest.raises(NegativeCycleError):
        hp.sssp(G1, 0, backend=backend_name)


def test_sssp_nan_weights_rejected(backend_name):
    import scipy.sparse as sp

    A = sp.csr_array((np.array([1.0, np.nan]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    G = hp.Graph.from_scipy(A, directed=True)
    with pytest.raises(InvalidGraph):
        hp.sssp(G if backend_name == "cpu" else G.to_device(), 0, backend=backend_name)
    with pytest.raises(InvalidGraph):
        hp.widest_path(G, 0, backend=backend_name)


def test_sssp_bad_source():
    G = hp.Graph.from_edges([0], [1], weights=[2.0], num_vertices=2)
    with pytest.raises(IndexOutOfBound):
        hp.sssp(G, 2, backend="cpu")
    with pytest.raises(IndexOutOfBound):
        hp.sssp(G, -3, backend="cpu")


@pytest.mark.parametrize("method", METHODS)
def test_sssp_zero_weight_cycle_gives_tree(backend_name, method):
    # u <-> v with weight 0, both at distance 1 from 0: predecessors must not point at each other
    G = hp.Graph.from_edges([0, 0, 1, 2, 2], [1, 2, 2, 1, 3], weights=[1.0, 1.0, 0.0, 0.0, 0.0],
                            num_vertices=4, directed=True)
    res = hp.sssp(G, 0, method=method, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.distance, [0, 1, 1, 1])
    assert res.predecessor[0] == -1
    assert res.predecessor[1] == 0 and res.predecessor[2] == 0
    assert res.predecessor[3] == 2


@pytest.mark.parametrize("method", METHODS)
def test_sssp_unweighted_is_hops(backend_name, method):
    G = hp.generators.grid_2d(6, 7, backend="cpu")
    res = hp.sssp(G, 0, method=method, backend=backend_name, to="numpy")
    assert res.distance.dtype == np.float32
    i, j = np.divmod(np.arange(42), 7)
    np.testing.assert_array_equal(res.distance, i + j)


def test_sssp_float32_and_int_weights():
    G32 = hp.Graph.from_edges([0, 1], [1, 2], weights=np.array([0.5, 0.25], np.float32))
    assert hp.sssp(G32, 0, backend="cpu").distance.dtype == np.float32
    Gi = hp.Graph.from_edges([0, 1], [1, 2], weights=np.array([3, 4], np.int32))
    r = hp.sssp(Gi, 0, backend="cpu")
    assert r.distance.dtype == np.float64
    np.testing.assert_array_equal(r.distance, [0, 3, 7])
    np.testing.assert_array_equal(r.predecessor, [-1, 0, 1])


def test_sssp_without_predecessors(backend_name, cases):
    case = [c for c in cases.graph_cases() if c.name == "grid-medium-20x25"][0]
    G = cases.to_graph(case, backend_name)
    res = hp.sssp(G, 0, predecessors=False, backend=backend_name)
    assert res.predecessor is None
    np.testing.assert_allclose(cases.host(res.distance), cases.sssp_reference(case, [0]), rtol=1e-12)
