"""Jaccard / overlap / cosine similarity against networkx and Python sets, both backends."""

import itertools

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import IndexOutOfBound, InvalidValue


def _neighbour_sets(case, cases):
    H = cases.to_networkx(case)
    return {v: set(H[v]) - {v} for v in range(case.n)}


def _ref(metric, N, u, v):
    a, b = N[u], N[v]
    i = len(a & b)
    den = {"jaccard": len(a | b), "overlap": min(len(a), len(b)),
           "cosine": (len(a) * len(b)) ** 0.5}[metric]
    return i / den if den else 0.0


def _random_pairs(n, rng, k=60):
    if n == 0:
        return np.zeros((0, 2), np.int64)
    return rng.integers(0, n, (k, 2))


@pytest.mark.cases(directed=False)
@pytest.mark.parametrize("metric", ["jaccard", "overlap", "cosine"])
def test_pairs_match_sets(graph_case, backend_name, cases, metric):
    rng = np.random.default_rng(graph_case.n)
    G = cases.to_graph(graph_case, backend_name)
    N = _neighbour_sets(graph_case, cases)
    P = _random_pairs(graph_case.n, rng)
    res = getattr(hp, metric)(G, P, backend=backend_name)
    score = cases.host(res.score)
    np.testing.assert_array_equal(cases.host(res.first), P[:, 0])
    np.testing.assert_array_equal(cases.host(res.second), P[:, 1])
    want = np.array([_ref(metric, N, int(u), int(v)) for u, v in P])
    np.testing.assert_allclose(score, want, rtol=1e-14, atol=0)


@pytest.mark.cases(directed=False, max_n=300)
def test_pairs_in_small_chunks_match_sets(graph_case, backend_name, cases, monkeypatch):
    # one or a few pairs per row gather (every chunk boundary case)
    from hpgraph.algorithms import similarity

    monkeypatch.setattr(similarity, "GATHER_CHUNK", 3)
    rng = np.random.default_rng(graph_case.n + 1)
    G = cases.to_graph(graph_case, backend_name)
    N = _neighbour_sets(graph_case, cases)
    P = _random_pairs(graph_case.n, rng, k=25)
    res = hp.jaccard(G, P, backend=backend_name)
    want = np.array([_ref("jaccard", N, int(u), int(v)) for u, v in P])
    np.testing.assert_allclose(cases.host(res.score), want, rtol=1e-14, atol=0)


@pytest.mark.cases(directed=False)
def test_edge_intersections_match_sets(graph_case, backend_name, cases):
    # the masked-product form (the GPU's for every edge), on both backends
    from hpgraph.algorithms import similarity
    from hpgraph.algorithms._triangles import simple_pairs

    G = cases.to_graph(graph_case, backend_name)
    N = _neighbour_sets(graph_case, cases)
    u, v, _ = simple_pairs(G, symmetrize=False)
    got = cases.host(similarity._edge_intersections(G))
    want = [len(N[a] & N[b]) for a, b in zip(cases.host(u).tolist(), cases.host(v).tolist())]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.float64))


@pytest.mark.cases(directed=False)
def test_jaccard_default_pairs_are_edges_and_match_networkx(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    res = hp.jaccard(G, backend=backend_name)
    u, v = cases.host(res.first), cases.host(res.second)
    H = cases.to_networkx(graph_case)
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    edges = {(a, b) for a, b in H.edges()} | {(b, a) for a, b in H.edges()}
    assert set(zip(u.tolist(), v.tolist())) == edges and len(u) == len(edges)
    want = {(a, b): p for a, b, p in nx.jaccard_coefficient(H, list(zip(u.tolist(), v.tolist())))}
    np.testing.assert_allclose(cases.host(res.score), [want[p] for p in zip(u.tolist(), v.tolist())],
                               rtol=1e-14)


@pytest.mark.cases(directed=False, max_n=300)
@pytest.mark.parametrize("metric", ["jaccard", "cosine"])
@pytest.mark.parametrize("k", [1, 3])
def test_topk_matches_brute_force(graph_case, backend_name, cases, metric, k):
    G = cases.to_graph(graph_case, backend_name)
    N = _neighbour_sets(graph_case, cases)
    res = hp.similarity_topk(G, k, metric, backend=backend_name)
    got = list(zip(cases.host(res.first).tolist(), cases.host(res.second).tolist()))
    want = []
    for u in range(graph_case.n):
        cand = [(-_ref(metric, N, u, v), v) for v in range(graph_case.n) if v != u]
        cand = sorted(c for c in cand if c[0] < 0)[:k]
        want += [(u, v) for _, v in cand]
    assert got == want
    np.testing.assert_allclose(cases.host(res.score),
                               [_ref(metric, N, u, v) for u, v in want], rtol=1e-14)


def test_bad_input():
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, directed=False, backend="cpu")
    with pytest.raises(IndexOutOfBound, match="pairs"):
        hp.jaccard(G, [[0, 3]], backend="cpu")
    with pytest.raises(InvalidValue, match=r"\(k, 2\)"):
        hp.jaccard(G, [0, 1, 2], backend="cpu")
    with pytest.raises(InvalidValue, match="k must be >= 1"):
        hp.similarity_topk(G, 0, backend="cpu")
    with pytest.raises(InvalidValue, match="metric"):
        hp.similarity_topk(G, 2, "dice", backend="cpu")
    D = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    for f in (hp.jaccard, hp.overlap, hp.cosine):
        with pytest.raises(InvalidValue, match="undirected"):
            f(D, backend="cpu")
    P = np.array([[0, 1]])
    hp.jaccard(G, P, backend="cpu")
    assert P.tolist() == [[0, 1]]


def test_empty_pairs_and_graph():
    E = hp.Graph.from_edges([], [], num_vertices=0, directed=False, backend="cpu")
    assert hp.jaccard(E, backend="cpu").score.shape == (0,)
    assert hp.similarity_topk(E, 2, backend="cpu").first.shape == (0,)
    G = hp.Graph.from_edges([0], [1], num_vertices=2, directed=False, backend="cpu")
    assert hp.overlap(G, np.zeros((0, 2), np.int64), backend="cpu").score.shape == (0,)


def test_all_pairs_small_complete():
    n = 5
    G = hp.generators.complete(n, backend="cpu")
    P = np.array(list(itertools.permutations(range(n), 2)))
    np.testing.assert_allclose(hp.jaccard(G, P, backend="cpu").score, 3 / 5)
    np.testing.assert_allclose(hp.overlap(G, P, backend="cpu").score, 3 / 4)


@pytest.mark.gpu
@pytest.mark.cases(directed=False, max_n=300)
def test_gpu_equals_cpu(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    D = G.to_device()
    P = _random_pairs(graph_case.n, np.random.default_rng(5))
    for f in (hp.jaccard, hp.overlap, hp.cosine):
        a, b = f(G, P, backend="cpu"), f(D, P, backend="gpu")
        np.testing.assert_array_equal(cases.host(b.score), a.score)
    a, b = hp.similarity_topk(G, 3, backend="cpu"), hp.similarity_topk(D, 3, backend="gpu")
    for x, y in zip(a, b):
        np.testing.assert_array_equal(cases.host(y), x)


@pytest.mark.cases(directed=False, min_n=2)
def test_common_neighbors_match_networkx(graph_case, backend_name, cases):
    """hp.common_neighbors: networkx's common_neighbors per pair (self-loops make a vertex its
    own neighbour), and |N(u) & N(v)| with the pair's own vertices."""
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    rng = np.random.default_rng(graph_case.n)
    P = rng.integers(0, graph_case.n, size=(60, 2))
    P[:5, 1] = P[:5, 0]                       # pairs (u, u) too
    cn = hp.common_neighbors(G, P, backend=backend_name)
    pair, vertex, count = (cases.host(a) for a in cn)
    assert pair.dtype == vertex.dtype == count.dtype == np.int64
    for i, (u, v) in enumerate(P.tolist()):
        want = sorted(set(H[u]) & set(H[v]) - {u, v})
        assert vertex[pair == i].tolist() == want
        assert count[i] == len(set(H[u]) & set(H[v]))
    assert pair.tolist() == sorted(pair.tolist())


def test_common_neighbors_arguments():
    G = hp.Graph.from_edges([0], [1], num_vertices=2, directed=False, backend="cpu")
    assert all(a.shape == (0,) for a in hp.common_neighbors(G, np.zeros((0, 2), np.int64)))
    with pytest.raises(InvalidValue, match="pairs"):
        hp.common_neighbors(G, None, backend="cpu")
    with pytest.raises(InvalidValue, match="directed"):
        hp.common_neighbors(hp.Graph.from_edges([0], [1], num_vertices=2, backend="cpu"),
                            [[0, 1]], backend="cpu")
