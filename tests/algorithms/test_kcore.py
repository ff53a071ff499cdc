"""k-core (core numbers) against networkx.core_number, both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp


def host(a):
    return hp.backend.to_host(a)


def nx_core(H, n):
    H = H.copy()
    H.remove_edges_from(list(nx.selfloop_edges(H)))   # networkx refuses self-loops
    c = nx.core_number(H)
    return np.array([c[i] for i in range(n)], dtype=np.int32)


def test_k_core_matches_networkx(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    c = host(hp.k_core(G, backend=backend_name))
    assert c.dtype == np.int32 and c.shape == (case.n,)
    np.testing.assert_array_equal(c, nx_core(cases.to_networkx(case), case.n))


def test_k_core_ignores_duplicates(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, "cpu", duplicates="keep")
    G = G.to_device() if backend_name == "gpu" else G
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)),
                                  nx_core(cases.to_networkx(case), case.n))


@pytest.mark.parametrize("directed", [False, True])
def test_k_core_rmat(directed, backend_name):
    G = hp.generators.rmat(11, edge_factor=8, seed=4, directed=directed, backend="cpu")
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(G.num_vertices))
    A = G.to_scipy().tocoo()
    H.add_edges_from(zip(A.row.tolist(), A.col.tolist()))
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)),
                                  nx_core(H, G.num_vertices))


def test_k_core_small(backend_name):
    K = hp.generators.complete(5, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(K, backend=backend_name)), [4] * 5)
    P = hp.generators.path(6, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(P, backend=backend_name)), [1] * 6)
    for n in (0, 1, 3):
        G = hp.Graph.from_edges([], [], num_vertices=n, directed=False, backend="cpu")
        np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)), [0] * n)
    # a self-loop alone does not raise a vertex's core
    G = hp.Graph.from_edges([0, 0], [0, 1], num_vertices=2, directed=False, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)), [1, 1])
    # mutual directed pair: degree 2 each (networkx's in + out), core 2
    G = hp.Graph.from_edges([0, 1], [1, 0], num_vertices=2, directed=True, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)), [2, 2])


def test_k_core_inputs(backend_name):
    H = nx.gnp_random_graph(50, 0.15, seed=6)
    ref = nx_core(H, 50)
    np.testing.assert_array_equal(hp.k_core(H, backend=backend_name, to="numpy"), ref)
    np.testing.assert_array_equal(host(hp.k_core(nx.to_scipy_sparse_array(H),
                                                 backend=backend_name)), ref)
