"""k-truss against networkx.k_truss, both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


def _edges(G):
    A = G.to_host().A                  # stored entries (explicit zero weights included)
    r, c = np.asarray(A.row_ids()), np.asarray(A.indices)
    return {(int(a), int(b)) for a, b in zip(r, c) if a < b}


@pytest.mark.cases(directed=False)
@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_ktruss_matches_networkx(graph_case, backend_name, cases, k):
    G = cases.to_graph(graph_case, backend_name)
    T = hp.k_truss(G, k, backend=backend_name)
    assert not T.directed and T.num_vertices == graph_case.n
    H = cases.to_networkx(graph_case)
    H.remove_edges_from(list(nx.selfloop_edges(H)))   # networkx refuses self-loops
    want = {tuple(sorted(e)) for e in nx.k_truss(H, k).edges()}
    Th = T.to_host()
    assert _edges(Th) == want
    if graph_case.weighted and want:                  # weights are G's
        r, c = np.asarray(Th.A.row_ids()), np.asarray(Th.A.indices)
        B = cases.to_scipy(graph_case).toarray()
        np.testing.assert_array_equal(np.asarray(Th.A.values), B[r, c])


def test_ktruss_known_graph():
    # two triangles sharing edge (1, 2), plus a K4 on 4..7 and a pendant edge
    s = [0, 0, 1, 1, 2, 4, 4, 4, 5, 5, 6, 7]
    d = [1, 2, 2, 3, 3, 5, 6, 7, 6, 7, 7, 8]
    G = hp.Graph.from_edges(s, d, num_vertices=9, directed=False, backend="cpu")
    assert _edges(hp.k_truss(G, 4, backend="cpu")) == {(4, 5), (4, 6), (4, 7), (5, 6), (5, 7),
                                                       (6, 7)}
    assert len(_edges(hp.k_truss(G, 3, backend="cpu"))) == 5 + 6
    assert _edges(hp.k_truss(G, 5, backend="cpu")) == set()


def test_bad_input():
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, directed=False, backend="cpu")
    for k in (1, 0, -3, 2.5, True):
        with pytest.raises(InvalidValue, match="k must"):
            hp.k_truss(G, k, backend="cpu")
    D = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    with pytest.raises(InvalidValue, match="undirected"):
        hp.k_truss(D, 3, backend="cpu")
    E = hp.Graph.from_edges([], [], num_vertices=0, directed=False, backend="cpu")
    assert hp.k_truss(E, 3, backend="cpu").num_vertices == 0


@pytest.mark.gpu
@pytest.mark.cases(directed=False)
def test_gpu_equals_cpu(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    for k in (3, 4):
        assert _edges(hp.k_truss(G.to_device(), k, backend="gpu")) == _edges(
            hp.k_truss(G, k, backend="cpu"))


@pytest.mark.cases(directed=False)
@pytest.mark.parametrize("method", ["mxm", "wedges"])
def test_ktruss_methods_match_networkx(graph_case, backend_name, cases, method):
    # both ways of counting supports, whichever is the backend's default
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    for k in (3, 4):
        with hp.config.set(ktruss_method=method):
            T = hp.k_truss(G, k, backend=backend_name)
        assert _edges(T.to_host()) == {tuple(sorted(e)) for e in nx.k_truss(H, k).edges()}
