"""Closeness and harmonic centrality (hop distances) against networkx, both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import IndexOutOfBound


@pytest.mark.parametrize("batch", [None, 7])
def test_closeness_and_harmonic_match_networkx(graph_case, backend_name, cases, batch):
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    n = graph_case.n
    for wf in (True, False):
        got = cases.host(hp.closeness_centrality(G, wf_improved=wf, batch=batch,
                                                 backend=backend_name))
        ref = nx.closeness_centrality(H, wf_improved=wf)
        assert got.tolist() == [ref[v] for v in range(n)]  # networkx's operations, bit for bit
    got = cases.host(hp.harmonic_centrality(G, batch=batch, backend=backend_name))
    ref = nx.harmonic_centrality(H)
    np.testing.assert_allclose(got, [ref[v] for v in range(n)], rtol=1e-13)


def test_subset_of_vertices(cases):
    case = cases.graph_cases(min_n=50)[0]
    G = cases.to_graph(case, "cpu")
    H = cases.to_networkx(case)
    vs = [3, 0, 17, 3]
    ref = nx.closeness_centrality(H)
    np.testing.assert_allclose(hp.closeness_centrality(G, vs, backend="cpu"), [ref[v] for v in vs])
    ref = nx.harmonic_centrality(H)
    np.testing.assert_allclose(hp.harmonic_centrality(G, 17, backend="cpu"), [ref[17]])


def test_out_of_range():
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    with pytest.raises(IndexOutOfBound, match="vertices 3"):
        hp.closeness_centrality(G, [0, 3], backend="cpu")
    with pytest.raises(IndexOutOfBound, match="vertices -1"):
        hp.harmonic_centrality(G, -1, backend="cpu")


@pytest.mark.gpu
def test_gpu_equals_cpu(cases):
    for case in cases.graph_cases(max_n=300):
        G = cases.to_graph(case, "cpu")
        D = G.to_device()
        # the GPU sums each vertex's terms in another order: equal to the last bits
        np.testing.assert_allclose(cases.host(hp.closeness_centrality(D, backend="gpu")),
                                   hp.closeness_centrality(G, backend="cpu"), rtol=1e-13)
        np.testing.assert_allclose(cases.host(hp.harmonic_centrality(D, backend="gpu")),
                                   hp.harmonic_centrality(G, backend="cpu"), rtol=1e-13)
