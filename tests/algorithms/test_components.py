"""Connected components against scipy.sparse.csgraph.connected_components."""

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp


def test_components_match_scipy(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    ncomp, labels = hp.connected_components(G, backend=backend_name)
    labels = cases.host(labels)
    ref_n, ref_labels = csg.connected_components(cases.to_scipy(case), directed=True, connection="weak")
    assert isinstance(ncomp, int)
    assert ncomp == ref_n
    assert labels.dtype == np.int32 and labels.shape == (case.n,)
    np.testing.assert_array_equal(labels, ref_labels)


def test_components_numbering_and_isolated(backend_name):
    # components {0, 3}, {1}, {2, 4, 5}; vertex 6 isolated
    G = hp.Graph.from_edges([3, 5, 4], [0, 2, 5], num_vertices=7, directed=True)
    n, labels = hp.connected_components(G, backend=backend_name, to="numpy")
    assert n == 4
    np.testing.assert_array_equal(labels, [0, 1, 2, 0, 2, 2, 3])


def test_components_long_path_converges(backend_name):
    # a path with ids in reverse order: min-label propagation alone would need n rounds
    n = 3000
    perm = np.arange(n)[::-1].copy()
    G = hp.Graph.from_edges(perm[:-1], perm[1:], num_vertices=n, directed=False)
    k, labels = hp.connected_components(G, backend=backend_name, to="numpy")
    assert k == 1 and not labels.any()


def test_components_empty_and_single(backend_name):
    G0 = hp.Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), num_vertices=0)
    k, labels = hp.connected_components(G0, backend=backend_name, to="numpy")
    assert k == 0 and labels.shape == (0,) and labels.dtype == np.int32
    G1 = hp.Graph.from_edges([0], [0], num_vertices=1)
    k, labels = hp.connected_components(G1, backend=backend_name, to="numpy")
    assert k == 1 and labels.tolist() == [0]


def test_components_scipy_and_networkx_inputs(cases):
    case = [c for c in cases.graph_cases() if c.name.startswith("components-3")][0]
    ref_n, ref = csg.connected_components(cases.to_scipy(case), directed=True, connection="weak")
    k, labels = hp.connected_components(cases.to_scipy(case), backend="cpu")
    assert k == ref_n and np.array_equal(labels, ref)
    k, labels = hp.connected_components(cases.to_networkx(case), backend="cpu")
    assert k == ref_n and np.array_equal(labels, ref)


@pytest.mark.gpu
def test_components_device_result(cases):
    import cupy

    case = [c for c in cases.graph_cases() if c.name == "rmat-medium-s8-d"][0]
    G = cases.to_graph(case, "gpu")
    k, labels = hp.connected_components(G)
    assert isinstance(labels, cupy.ndarray)
    ref_n, ref = csg.connected_components(cases.to_scipy(case), directed=True, connection="weak")
    assert k == ref_n and np.array_equal(cupy.asnumpy(labels), ref)
