"""Degree, eigenvector and Katz centrality against networkx, both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import ConvergenceError, InvalidValue


def _vec(d, n):
    return np.array([d[v] for v in range(n)], dtype=np.float64)


def test_degree_centrality_matches_networkx(backend_name, cases):
    for case in cases.graph_cases():
        G = cases.to_graph(case, backend_name)
        H = cases.to_networkx(case)
        got = cases.host(hp.degree_centrality(G, backend=backend_name))
        # networkx's operations (degree times 1 / (n - 1)): equal bit for bit
        np.testing.assert_array_equal(got, _vec(nx.degree_centrality(H), case.n),
                                      err_msg=case.name)
        if case.directed:
            for mode, f in (("in", nx.in_degree_centrality), ("out", nx.out_degree_centrality)):
                got = cases.host(hp.degree_centrality(G, mode, backend=backend_name))
                np.testing.assert_array_equal(got, _vec(f(H), case.n), err_msg=case.name)


def test_degree_centrality_duplicates_kept(cases):
    for case in cases.graph_cases(max_n=100):
        G = cases.to_graph(case, "cpu", duplicates="keep")
        np.testing.assert_allclose(hp.degree_centrality(G, backend="cpu"),
                                   _vec(nx.degree_centrality(cases.to_networkx(case)), case.n))


@pytest.mark.cases(min_n=1)
@pytest.mark.parametrize("weighted", [False, True])
def test_eigenvector_matches_networkx(graph_case, backend_name, cases, weighted):
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    kw = dict(max_iter=300, tol=1e-6)
    try:
        ref = nx.eigenvector_centrality(H, weight="weight" if weighted else None, **kw)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(ConvergenceError):
            hp.eigenvector_centrality(G, weighted=weighted, backend=backend_name, **kw)
        return
    got = cases.host(hp.eigenvector_centrality(G, weighted=weighted, backend=backend_name, **kw))
    np.testing.assert_allclose(got, _vec(ref, graph_case.n), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_katz_matches_networkx(backend_name, cases, weighted):
    for case in cases.graph_cases():
        G = cases.to_graph(case, backend_name)
        H = cases.to_networkx(case)
        A = abs(cases.to_scipy(case, unweighted=not weighted))
        bound = max(1.0, A.sum(axis=0).max(initial=0), A.sum(axis=1).max(initial=0))
        for alpha, normalized in ((0.5 / bound, True), (0.2 / bound, False)):
            try:
                ref = nx.katz_centrality(H, alpha=alpha, normalized=normalized,
                                         weight="weight" if weighted else None)
            except nx.PowerIterationFailedConvergence:
                with pytest.raises(ConvergenceError):
                    hp.katz_centrality(G, alpha, normalized=normalized, weighted=weighted,
                                       backend=backend_name)
                continue
            got = cases.host(hp.katz_centrality(G, alpha, normalized=normalized,
                                                weighted=weighted, backend=backend_name))
            np.testing.assert_allclose(got, _vec(ref, case.n), rtol=1e-10, err_msg=case.name)


def test_katz_beta_array_and_nstart():
    H = nx.path_graph(5)
    G = hp.Graph.from_networkx(H, backend="cpu")
    beta = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    ref = nx.katz_centrality(H, alpha=0.1, beta=dict(enumerate(beta)))
    np.testing.assert_allclose(hp.katz_centrality(G, 0.1, beta, backend="cpu"), _vec(ref, 5),
                               rtol=1e-10)
    ref = nx.eigenvector_centrality(H, nstart={0: 1, 1: 2, 2: 3, 3: 1, 4: 1})
    np.testing.assert_allclose(hp.eigenvector_centrality(G, nstart=[1, 2, 3, 1, 1], backend="cpu"),
                               _vec(ref, 5), rtol=1e-9)


def test_bad_input():
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, directed=False, backend="cpu")
    E = hp.Graph.from_edges([], [], num_vertices=0, backend="cpu")
    with pytest.raises(InvalidValue, match="empty graph"):
        hp.eigenvector_centrality(E, backend="cpu")
    assert hp.katz_centrality(E, backend="cpu").shape == (0,)
    with pytest.raises(InvalidValue, match="mode"):
        hp.degree_centrality(G, "both", backend="cpu")
    with pytest.raises(InvalidValue, match="directed"):
        hp.degree_centrality(G, "in", backend="cpu")
    with pytest.raises(InvalidValue, match="max_iter"):
        hp.eigenvector_centrality(G, max_iter=-1, backend="cpu")
    with pytest.raises(InvalidValue, match="beta"):
        hp.katz_centrality(G, beta=[1.0, 2.0], backend="cpu")
    N = hp.Graph.from_edges([0, 1], [1, 2], [-1.0, 2.0], num_vertices=3, directed=False,
                            backend="cpu")
    with pytest.raises(InvalidValue, match="negative"):
        hp.katz_centrality(N, weighted=True, backend="cpu")
    with pytest.raises(ConvergenceError, match="alpha"):
        hp.katz_centrality(hp.generators.complete(6, backend="cpu"), alpha=0.5, backend="cpu")


@pytest.mark.gpu
def test_gpu_equals_cpu(cases):
    for case in cases.graph_cases(min_n=1):
        G = cases.to_graph(case, "cpu")
        D = G.to_device()
        np.testing.assert_array_equal(cases.host(hp.degree_centrality(D, backend="gpu")),
                                      hp.degree_centrality(G, backend="cpu"))
        A = abs(cases.to_scipy(case, unweighted=True))
        alpha = 0.5 / max(1.0, A.sum(axis=0).max(initial=0), A.sum(axis=1).max(initial=0))
        np.testing.assert_allclose(cases.host(hp.katz_centrality(D, alpha, backend="gpu")),
                                   hp.katz_centrality(G, alpha, backend="cpu"), rtol=1e-12)
