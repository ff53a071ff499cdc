"""Betweenness centrality against networkx.betweenness_centrality (same normalization, same
sampling for a given seed)."""

import random

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue

nx = pytest.importorskip("networkx")


def nx_bc(cases, case, **kw):
    H = cases.to_networkx(case)
    ref = nx.betweenness_centrality(H, **kw)
    return np.array([ref[v] for v in range(case.n)], dtype=np.float64)


@pytest.mark.cases(max_n=100)
def test_betweenness_matches_networkx(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    got = cases.host(hp.betweenness_centrality(G, backend=backend_name))
    assert got.dtype == np.float64 and got.shape == (case.n,)
    np.testing.assert_allclose(got, nx_bc(cases, case), rtol=1e-9, atol=1e-12)


@pytest.mark.cases(max_n=40, min_n=3)
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("endpoints", [False, True])
def test_betweenness_options(graph_case, normalized, endpoints, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    got = cases.host(hp.betweenness_centrality(G, normalized=normalized, endpoints=endpoints,
                                               backend=backend_name))
    ref = nx_bc(cases, case, normalized=normalized, endpoints=endpoints)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.cases(min_n=5, max_n=260)
@pytest.mark.parametrize("endpoints", [False, True])
def test_betweenness_sampled_same_seed_as_networkx(graph_case, endpoints, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    k = max(2, case.n // 4)
    for normalized in (True, False):
        got = cases.host(hp.betweenness_centrality(G, k=k, seed=42, normalized=normalized,
                                                   endpoints=endpoints, backend=backend_name))
        ref = nx_bc(cases, case, k=k, seed=42, normalized=normalized, endpoints=endpoints)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12, equal_nan=True)
    # a random.Random instance as seed, consumed the same way
    got = cases.host(hp.betweenness_centrality(G, k=k, seed=random.Random(5), backend=backend_name))
    ref = nx_bc(cases, case, k=k, seed=random.Random(5))
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("n,k", [(10, 3), (300, 64), (2_000_000, 64), (5_000, 5_000 - 1)])
def test_sampled_sources_are_networkx_draws(n, k):
    """networkx samples ``seed.sample(list(G), k)``; hpgraph draws from ``range(n)`` without the
    list (both random.sample branches: small and large populations)."""
    from hpgraph.algorithms.betweenness import sample_sources

    assert sample_sources(n, k, 11) == random.Random(11).sample(list(range(n)), k)


def test_betweenness_k_one_and_k_n(cases):
    case = [c for c in cases.graph_cases() if c.name == "er-0-n30-m45-u"][0]
    G = cases.to_graph(case)
    got = hp.betweenness_centrality(G, k=1, seed=3, backend="cpu")
    ref = nx_bc(cases, case, k=1, seed=3)
    np.testing.assert_allclose(got, ref, equal_nan=True)
    assert np.isnan(got).sum() == 1
    np.testing.assert_allclose(hp.betweenness_centrality(G, k=case.n, seed=1, backend="cpu"),
                               nx_bc(cases, case))


def test_betweenness_path_and_star(backend_name):
    P = hp.generators.path(5, backend="cpu")
    got = cases_host(hp.betweenness_centrality(P, normalized=False, backend=backend_name))
    np.testing.assert_allclose(got, [0, 3, 4, 3, 0])
    S = hp.generators.star(6, backend="cpu")
    got = cases_host(hp.betweenness_centrality(S, backend=backend_name))
    np.testing.assert_allclose(got, [1, 0, 0, 0, 0, 0])


def cases_host(a):
    if hasattr(a, "__cuda_array_interface__"):
        import cupy

        return cupy.asnumpy(a)
    return np.asarray(a)


def test_betweenness_duplicate_edges_kept_in_graph(cases):
    case = [c for c in cases.graph_cases() if c.name == "loops-dups-d"][0]
    G = cases.to_graph(case, duplicates="keep")
    assert G.num_edges > len(cases.directed_edges(case)[0])  # really stores repeats
    np.testing.assert_allclose(hp.betweenness_centrality(G, backend="cpu"), nx_bc(cases, case),
                               rtol=1e-9, atol=1e-12)


def test_betweenness_networkx_input(cases):
    case = [c for c in cases.graph_cases() if c.name == "components-1-d"][0]
    H = cases.to_networkx(case)
    got = hp.betweenness_centrality(H, backend="cpu")
    np.testing.assert_allclose(got, nx_bc(cases, case), rtol=1e-9, atol=1e-12)


def test_betweenness_bad_input():
    G = hp.generators.path(4, backend="cpu")
    with pytest.raises(InvalidValue):
        hp.betweenness_centrality(G, k=5, backend="cpu")
    with pytest.raises(InvalidValue):
        hp.betweenness_centrality(G, k=0, backend="cpu")
    with pytest.raises(InvalidValue):
        hp.betweenness_centrality(G, k=1.5, backend="cpu")


# -- weighted (Dijkstra-based) betweenness --------------------------------------------------


def _positive(case):
    return case.weights is None or bool((np.asarray(case.weights) > 0).all())


@pytest.mark.cases(max_n=100)
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("endpoints", [False, True])
def test_weighted_betweenness_matches_networkx(graph_case, normalized, endpoints, backend_name,
                                               cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    kw = dict(weight="weight", normalized=normalized, endpoints=endpoints)
    if not _positive(case):
        with pytest.raises(InvalidValue, match="positive edge weights"):
            hp.betweenness_centrality(G, backend=backend_name, **kw)
        return
    got = cases.host(hp.betweenness_centrality(G, backend=backend_name, **kw))
    assert got.dtype == np.float64 and got.shape == (case.n,)
    np.testing.assert_allclose(got, nx_bc(cases, case, **kw), rtol=1e-9, atol=1e-12)


@pytest.mark.cases(weighted=True, min_n=5, max_n=260)
def test_weighted_betweenness_sampled(graph_case, backend_name, cases):
    case = graph_case
    if not _positive(case):
        pytest.skip("zero or negative weights: covered by the error test")
    G = cases.to_graph(case, backend_name)
    k = max(2, case.n // 4)
    for endpoints in (False, True):
        got = cases.host(hp.betweenness_centrality(G, k=k, seed=7, weight="weight",
                                                   endpoints=endpoints, backend=backend_name))
        ref = nx_bc(cases, case, k=k, seed=7, weight="weight", endpoints=endpoints)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_weighted_betweenness_ties_and_bad_weights(backend_name):
    # 0 to 3: paths 0-1-3 and 0-2-3 of length 3 (1 + 2, 2 + 1) beat the edge of 3.5; 1 to 2:
    # paths 1-0-2 and 1-3-2 of length 3 -- every vertex carries half a pair
    G = hp.Graph.from_edges([0, 1, 0, 2, 0], [1, 3, 2, 3, 3], [1.0, 2.0, 2.0, 1.0, 3.5],
                            num_vertices=4, directed=False, backend="cpu")
    got = cases_host(hp.betweenness_centrality(G, weight="weight", normalized=False,
                                               backend=backend_name))
    np.testing.assert_allclose(got, [0.5, 0.5, 0.5, 0.5])
    # edge 0-3 lengthened to 2.5 < 3: it takes the pair (0, 3)
    G = hp.Graph.from_edges([0, 1, 0, 2, 0], [1, 3, 2, 3, 3], [1.0, 2.0, 2.0, 1.0, 2.5],
                            num_vertices=4, directed=False, backend="cpu")
    got = cases_host(hp.betweenness_centrality(G, weight="weight", normalized=False,
                                               backend=backend_name))
    np.testing.assert_allclose(got, [0.5, 0.0, 0.0, 0.5])
    w = np.array([1.0, 0.0])
    Z = hp.Graph.from_edges([0, 1], [1, 2], w, num_vertices=3, directed=False, backend="cpu")
    with pytest.raises(InvalidValue, match="weight=None"):
        hp.betweenness_centrality(Z, weight="weight", backend=backend_name)
    np.testing.assert_array_equal(w, [1.0, 0.0])
    # weight=None ignores the weights
    np.testing.assert_allclose(cases_host(hp.betweenness_centrality(
        Z, normalized=False, backend=backend_name)), [0, 1, 0])


@pytest.mark.cases(max_n=60, min_n=3)
@pytest.mark.parametrize("endpoints", [False, True])
def test_cpu_dag_path_matches_networkx(graph_case, endpoints, cases, monkeypatch):
    """The CPU's shortest-path-DAG path for deep searches (forced here for every graph),
    exhaustive and sampled, normalized and not."""
    from hpgraph.algorithms import betweenness as B

    monkeypatch.setattr(B, "CPU_DAG_LEVELS", -1)
    case = graph_case
    G = cases.to_graph(case, "cpu")
    for normalized in (True, False):
        got = hp.betweenness_centrality(G, normalized=normalized, endpoints=endpoints,
                                        backend="cpu")
        ref = nx_bc(cases, case, normalized=normalized, endpoints=endpoints)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)
    k = max(2, case.n // 3)
    got = hp.betweenness_centrality(G, k=k, seed=7, endpoints=endpoints, backend="cpu")
    ref = nx_bc(cases, case, k=k, seed=7, endpoints=endpoints)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("directed", [False, True])
def test_deep_graph_takes_the_dag_path(directed, monkeypatch):
    """A 300-vertex path with chords (over 64 levels from vertex 0) runs on the DAG by default
    and equals networkx."""
    from hpgraph.algorithms import _brandes

    calls = []
    real = _brandes.dag_brandes
    monkeypatch.setattr(_brandes, "dag_brandes",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    rng = np.random.default_rng(3)
    n = 300
    H = (nx.DiGraph if directed else nx.Graph)()
    H.add_nodes_from(range(n + 5))                    # five isolated vertices
    H.add_edges_from((i, i + 1) for i in range(n - 1))
    H.add_edges_from((int(a), int(a) + int(d)) for a, d in
                     zip(rng.integers(0, n - 4, 30), rng.integers(2, 4, 30)))
    G = hp.Graph.from_networkx(H, backend="cpu")
    got = hp.betweenness_centrality(G, k=40, seed=2, backend="cpu")
    ref = nx.betweenness_centrality(H, k=40, seed=2)
    np.testing.assert_allclose(got, [ref[v] for v in range(n + 5)], rtol=1e-9, atol=1e-12)
    assert calls
