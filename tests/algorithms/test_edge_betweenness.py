"""Edge betweenness centrality against networkx.edge_betweenness_centrality (unweighted and
weighted, normalized or not, sampled with the same seed), both backends."""

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue

nx = pytest.importorskip("networkx")


def _positive(case):
    return case.weights is None or bool((np.asarray(case.weights) > 0).all())


def _check(cases, case, res, **kw):
    H = cases.to_networkx(case)
    ref = nx.edge_betweenness_centrality(H, **kw)
    if not case.directed:
        ref = {(min(u, v), max(u, v)): x for (u, v), x in ref.items()}
    s, t, c = (cases.host(a) for a in res)
    assert s.dtype == np.int64 and c.dtype == np.float64
    keys = list(zip(s.tolist(), t.tolist()))
    assert keys == sorted(ref), "edges listed: one per distinct edge, sorted"
    np.testing.assert_allclose(c, [ref[e] for e in keys], rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.cases(max_n=100)
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("weight", [None, "weight"])
def test_edge_betweenness_matches_networkx(graph_case, normalized, weight, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    kw = dict(normalized=normalized, weight=weight)
    if weight and case.weighted and not _positive(case):
        with pytest.raises(InvalidValue, match="positive edge weights"):
            hp.edge_betweenness_centrality(G, backend=backend_name, **kw)
        return
    _check(cases, case, hp.edge_betweenness_centrality(G, backend=backend_name, **kw), **kw)


@pytest.mark.cases(min_n=5, max_n=260)
def test_edge_betweenness_sampled(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    k = max(2, case.n // 4)
    weight = "weight" if _positive(case) else None
    for normalized in (True, False):
        kw = dict(k=k, seed=11, normalized=normalized, weight=weight)
        _check(cases, case, hp.edge_betweenness_centrality(G, backend=backend_name, **kw), **kw)


def test_edge_betweenness_path(backend_name):
    P = hp.generators.path(4, backend="cpu")
    s, t, c = hp.edge_betweenness_centrality(P, normalized=False, backend=backend_name)
    h = hp.backend.to_host
    assert h(s).tolist() == [0, 1, 2] and h(t).tolist() == [1, 2, 3]
    np.testing.assert_allclose(h(c), [3.0, 4.0, 3.0])


def test_edge_betweenness_bad_input():
    G = hp.generators.path(4, backend="cpu")
    for k in (0, 5, 1.5, True):
        with pytest.raises(InvalidValue, match="k must"):
            hp.edge_betweenness_centrality(G, k=k, backend="cpu")
    E = hp.Graph.from_edges([], [], num_vertices=0, backend="cpu")
    s, t, c = hp.edge_betweenness_centrality(E, backend="cpu")
    assert s.shape == t.shape == c.shape == (0,)


@pytest.mark.gpu
@pytest.mark.cases(max_n=100)
def test_gpu_equals_networkx_weighted(graph_case, cases):
    case = graph_case
    if not _positive(case):
        pytest.skip("zero or negative weights")
    G = cases.to_graph(case, "gpu")
    _check(cases, case, hp.edge_betweenness_centrality(G, weight="weight", backend="gpu"),
           weight="weight")
