"""Local / average clustering and transitivity against networkx, both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


@pytest.mark.cases(directed=False)
def test_clustering_matches_networkx(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)          # networkx ignores self-loops here too
    c = cases.host(hp.clustering(G, backend=backend_name))
    assert c.dtype == np.float64 and c.shape == (graph_case.n,)
    ref = nx.clustering(H)
    np.testing.assert_allclose(c, [ref[v] for v in range(graph_case.n)], rtol=1e-14, atol=0)
    assert hp.transitivity(G, backend=backend_name) == pytest.approx(nx.transitivity(H), rel=1e-14)
    if graph_case.n:
        assert hp.average_clustering(G, backend=backend_name) == pytest.approx(
            nx.average_clustering(H), rel=1e-13)


@pytest.mark.cases(directed=False, max_n=100)
def test_duplicates_kept_change_nothing(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu", duplicates="keep")
    H = cases.to_networkx(graph_case)
    ref = nx.clustering(H)
    np.testing.assert_allclose(hp.clustering(G, backend="cpu"),
                               [ref[v] for v in range(graph_case.n)], rtol=1e-14)


def test_bad_input():
    D = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    for f in (hp.clustering, hp.average_clustering, hp.transitivity):
        with pytest.raises(InvalidValue, match="undirected"):
            f(D, backend="cpu")
    E = hp.Graph.from_edges([], [], num_vertices=0, directed=False, backend="cpu")
    with pytest.raises(InvalidValue, match="empty graph"):
        hp.average_clustering(E, backend="cpu")
    assert hp.transitivity(E, backend="cpu") == 0.0
    assert hp.clustering(E, backend="cpu").shape == (0,)


@pytest.mark.gpu
@pytest.mark.cases(directed=False)
def test_gpu_equals_cpu(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    np.testing.assert_array_equal(cases.host(hp.clustering(G.to_device(), backend="gpu")),
                                  hp.clustering(G, backend="cpu"))
    assert hp.transitivity(G.to_device(), backend="gpu") == hp.transitivity(G, backend="cpu")


@pytest.mark.cases(directed=False)
def test_square_clustering_matches_networkx(graph_case, backend_name, cases):
    """Exact: squares / potential as networkx divides them (self-loops and repeated edges
    ignored)."""
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    got = cases.host(hp.square_clustering(G, backend=backend_name))
    want = nx.square_clustering(H)
    assert got.dtype == np.float64
    assert got.tolist() == [want[v] for v in range(graph_case.n)]
    squares, potential = (cases.host(a) for a in hp.algorithms.square_counts(
        G, backend=backend_name))
    assert squares.dtype == potential.dtype == np.int64
