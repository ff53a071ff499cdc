"""Shortest paths as vertex sequences and all-pairs lengths against scipy / networkx, both
backends; the GPU's batched BFS and Bellman-Ford (NumPy arrays) against scipy on the CPU."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.algorithms._batched import bellman_ford_block, bfs_block
from hpgraph.exceptions import IndexOutOfBound, InvalidValue, NegativeCycleError


def _ref_apsp(case, cases, weighted):
    if case.n == 0:
        return np.zeros((0, 0))
    A = cases.to_scipy(case, unweighted=not weighted)
    return csg.shortest_path(A, directed=True, unweighted=not weighted)


@pytest.mark.cases(max_n=300)
@pytest.mark.parametrize("weighted", [True, False])
def test_apsp_matches_scipy(graph_case, backend_name, cases, weighted):
    G = cases.to_graph(graph_case, backend_name)
    D = cases.host(hp.all_pairs_shortest_path_length(G, weighted=weighted, batch=16,
                                                     backend=backend_name))
    ref = _ref_apsp(graph_case, cases, weighted and graph_case.weighted)
    assert D.dtype == np.float64 and D.shape == ref.shape
    np.testing.assert_allclose(D, ref, rtol=1e-12)


@pytest.mark.cases(max_n=300, min_n=1)
def test_batched_blocks_on_numpy(graph_case, cases):
    """The GPU path's blocks, on NumPy arrays, give scipy's distances."""
    G = cases.to_graph(graph_case, "cpu")
    src = np.arange(0, graph_case.n, 3)
    B = bfs_block(G, src).T.astype(np.float64)
    ref = _ref_apsp(graph_case, cases, False)[src]
    np.testing.assert_array_equal(np.where(B >= 0, B, np.inf), ref)
    R = bfs_block(G, src, reverse=True).T.astype(np.float64)
    np.testing.assert_array_equal(np.where(R >= 0, R, np.inf), _ref_apsp(graph_case, cases, False)[:, src].T)
    if graph_case.weighted:
        np.testing.assert_allclose(bellman_ford_block(G, src).T,
                                   _ref_apsp(graph_case, cases, True)[src], rtol=1e-12)


def test_negative_weights(cases):
    for case in cases.negative_weight_cases():
        G = cases.to_graph(case, "cpu")
        D = hp.all_pairs_shortest_path_length(G, backend="cpu")
        ref = csg.shortest_path(cases.to_scipy(case), directed=True)
        np.testing.assert_allclose(D, ref, rtol=1e-12)
        np.testing.assert_allclose(bellman_ford_block(G, np.arange(case.n)).T, ref, rtol=1e-12)
    G = cases.to_graph(cases.negative_cycle_case(), "cpu")
    with pytest.raises(NegativeCycleError):
        hp.all_pairs_shortest_path_length(G, backend="cpu")
    with pytest.raises(NegativeCycleError):
        bellman_ford_block(G, np.array([0]))


@pytest.mark.cases(min_n=2)
@pytest.mark.parametrize("weighted", [True, False])
def test_shortest_path_is_a_shortest_path(graph_case, backend_name, cases, weighted):
    G = cases.to_graph(graph_case, backend_name)
    use_w = weighted and graph_case.weighted
    A = cases.to_scipy(graph_case, unweighted=not use_w).toarray()
    Apat = cases.to_scipy(graph_case)
    H = cases.to_networkx(graph_case)
    dist = csg.shortest_path(cases.to_scipy(graph_case, unweighted=not use_w), directed=True,
                             indices=[0], unweighted=not use_w)[0]
    paths = hp.shortest_path(G, 0, weighted=weighted, backend=backend_name)
    assert set(paths) == set(np.flatnonzero(np.isfinite(dist)).tolist())
    for t, p in paths.items():
        assert p[0] == 0 and p[-1] == t
        u, v = p[:-1], p[1:]
        assert all(Apat[a, b] != 0 or (a, b) in H.edges for a, b in zip(u, v))
        assert A[u, v].sum() == pytest.approx(dist[t], rel=1e-12, abs=1e-12)
    # one target: a shortest path too (ties may pick another one than the call above on the
    # GPU, where predecessors come from racing relaxations)
    far = int(np.argmax(np.where(np.isfinite(dist), dist, -1)))
    p = hp.shortest_path(G, 0, far, weighted=weighted, backend=backend_name)
    assert p[0] == 0 and p[-1] == far
    u, v = p[:-1], p[1:]
    assert all(Apat[a, b] != 0 or (a, b) in H.edges for a, b in zip(u, v))
    assert A[u, v].sum() == pytest.approx(dist[far], rel=1e-12, abs=1e-12)
    if not np.isfinite(dist).all():
        with pytest.raises(InvalidValue, match="not reachable"):
            hp.shortest_path(G, 0, int(np.flatnonzero(~np.isfinite(dist))[0]), backend=backend_name)


def test_paths_from_predecessors_and_bad_input():
    pred = np.array([-1, 0, 1, -1, 3])
    got = hp.algorithms.paths_from_predecessors(pred, [2, 4, 0])
    assert [p.tolist() for p in got] == [[0, 1, 2], [3, 4], [0]]
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    with pytest.raises(IndexOutOfBound, match="source 3"):
        hp.shortest_path(G, 3)
    with pytest.raises(IndexOutOfBound, match="target 7"):
        hp.shortest_path(G, 0, 7)
    with pytest.raises(IndexOutOfBound):
        hp.algorithms.paths_from_predecessors(pred, [5])
    big = hp.Graph.from_edges([0], [1], num_vertices=20_001, backend="cpu")
    with pytest.raises(InvalidValue, match="dense"):
        hp.all_pairs_shortest_path_length(big, backend="cpu")
    assert nx.shortest_path(nx.path_graph(3), 0, 2) == hp.shortest_path(G, 0, 2).tolist()


@pytest.mark.gpu
@pytest.mark.cases(max_n=300)
def test_gpu_equals_cpu(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    for weighted in (True, False):
        a = hp.all_pairs_shortest_path_length(G, weighted=weighted, backend="cpu")
        b = cases.host(hp.all_pairs_shortest_path_length(G.to_device(), weighted=weighted,
                                                         backend="gpu"))
        np.testing.assert_allclose(b, a, rtol=1e-12)
