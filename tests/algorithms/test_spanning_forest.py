"""Minimum spanning forest (Boruvka) against networkx and scipy, both backends."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


def _forest_edges(F):
    A = F.to_host().A
    r, c = np.asarray(A.row_ids()), np.asarray(A.indices)
    w = np.ones(r.size) if A.values is None else np.asarray(A.values, dtype=np.float64)
    keep = r < c
    return r[keep], c[keep], w[keep]


@pytest.mark.cases(directed=False)
def test_forest_is_minimum_and_spanning(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    F = hp.minimum_spanning_forest(G, backend=backend_name)
    assert not F.directed and F.num_vertices == graph_case.n
    r, c, w = _forest_edges(F)
    H = cases.to_networkx(graph_case)
    T = nx.minimum_spanning_tree(H, weight="weight")
    n = graph_case.n
    ncomp = nx.number_connected_components(H) if n else 0
    assert r.size == n - ncomp == T.number_of_edges()
    assert w.sum() == pytest.approx(T.size(weight="weight"), rel=1e-12, abs=1e-12)
    # a forest with the graph's components (acyclic since it has n - ncomp edges)
    if n:
        import scipy.sparse as sp

        FA = sp.coo_array((np.ones(r.size), (r, c)), shape=(n, n))
        assert csg.connected_components(FA, directed=False)[0] == ncomp
    # every forest edge is an edge of G, with G's (smallest) weight
    ref = cases.to_scipy(graph_case).toarray() if n else np.zeros((0, 0))
    if graph_case.weighted:
        np.testing.assert_array_equal(w, ref[r, c])
    else:
        assert F.to_host().A.values is None


def test_ties_are_broken_by_smaller_pair():
    # a 4-cycle of equal weights: the forest drops the largest pair (2, 3)
    G = hp.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [1.0] * 4, directed=False, backend="cpu")
    r, c, _ = _forest_edges(hp.minimum_spanning_forest(G, backend="cpu"))
    assert set(zip(r.tolist(), c.tolist())) == {(0, 1), (0, 3), (1, 2)}


def test_negative_weights_and_bad_input():
    G = hp.Graph.from_edges([0, 1, 0], [1, 2, 2], [-1.0, -2.0, 5.0], directed=False,
                            backend="cpu")
    r, c, w = _forest_edges(hp.minimum_spanning_forest(G, backend="cpu"))
    assert w.sum() == -3.0
    D = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    with pytest.raises(InvalidValue, match="undirected"):
        hp.minimum_spanning_forest(D, backend="cpu")


@pytest.mark.gpu
@pytest.mark.cases(directed=False)
def test_gpu_equals_cpu(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    a = _forest_edges(hp.minimum_spanning_forest(G, backend="cpu"))
    b = _forest_edges(hp.minimum_spanning_forest(G.to_device(), backend="gpu"))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
