"""The CPU backend's SciPy calls (hpgraph.algorithms._scipy_cpu): taken where they apply, and
equal to networkx / plain references on deep and awkward graphs."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph

import hpgraph as hp
from hpgraph.algorithms import _scipy_cpu


def _count_calls(monkeypatch):
    calls = []
    for name in ("bfs_scipy", "sssp_scipy", "components_scipy"):
        f = getattr(_scipy_cpu, name)
        monkeypatch.setattr(_scipy_cpu, name,
                            lambda *a, _f=f, _n=name, **k: (calls.append(_n), _f(*a, **k))[1])
    return calls


def test_cpu_calls_scipy_where_it_applies(monkeypatch):
    calls = _count_calls(monkeypatch)
    G = hp.Graph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 0.0], num_vertices=5,
                            backend="cpu")
    hp.bfs(G, 0, backend="cpu")
    hp.sssp(G, 0, backend="cpu")
    hp.connected_components(G, backend="cpu")
    assert calls == ["bfs_scipy", "sssp_scipy", "components_scipy"]
    calls.clear()
    hp.bfs(G, 0, direction="push", backend="cpu")                   # hpgraph's own sweeps
    hp.sssp(G, 0, method="near-far", backend="cpu")
    F = hp.Graph.from_edges([0], [1], np.array([1.5], np.float32), num_vertices=2,
                            backend="cpu")
    hp.sssp(F, 0, backend="cpu")                                     # float32 arithmetic
    N = hp.Graph.from_edges([0, 1], [1, 2], [2.0, -1.0], num_vertices=3, backend="cpu")
    hp.sssp(N, 0, backend="cpu")                                     # negative: Bellman-Ford
    assert calls == []


def test_deep_path_and_tree_depths():
    n = 5000
    H = nx.path_graph(n)
    H.add_edges_from([(i, n + i // 7) for i in range(0, n, 7)])    # side branches
    G = hp.Graph.from_networkx(H, backend="cpu")
    for s in (0, n // 2):
        res = hp.bfs(G, s, backend="cpu")
        want = nx.single_source_shortest_path_length(H, s)
        np.testing.assert_array_equal(res.depth, [want.get(v, -1) for v in range(G.num_vertices)])
        assert res.parent[s] == s
        d, p = res.depth, res.parent.astype(np.int64)
        others = np.flatnonzero(d > 0)
        assert (d[p[others]] == d[others] - 1).all()
    res = hp.bfs(G, [0, n - 1], backend="cpu")                      # several sources
    want = nx.multi_source_dijkstra_path_length(H, {0, n - 1})
    np.testing.assert_array_equal(res.depth, [want[v] for v in range(G.num_vertices)])


@pytest.mark.parametrize("seed", range(6))
def test_bfs_depths_and_parents_with_unreachable_vertices(seed):
    # directed, sparse: many vertices unreachable; self-loops and repeated entries included
    rng = np.random.default_rng(seed)
    n, m = 400, 500
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    G = hp.Graph.from_edges(src, dst, num_vertices=n, directed=True, duplicates="keep",
                            backend="cpu")
    A = G.to_scipy().tocsr()
    A.data[:] = 1.0
    s = int(src[0])
    res = hp.bfs(G, s, backend="cpu")
    want = scipy.sparse.csgraph.shortest_path(A, indices=s, unweighted=True, directed=True)
    np.testing.assert_array_equal(res.depth, np.where(np.isfinite(want), want, -1))
    reached = res.depth >= 0
    assert (res.parent[~reached] == -1).all() and res.parent[s] == s
    others = np.flatnonzero(res.depth > 0)
    p = res.parent[others].astype(np.int64)
    assert (res.depth[p] == res.depth[others] - 1).all()
    assert all(A[int(u), int(v)] for u, v in zip(p, others))        # parent edges exist


def test_sssp_zero_weights_and_unreachable():
    H = nx.DiGraph()
    H.add_nodes_from(range(6))
    H.add_weighted_edges_from([(0, 1, 0.0), (1, 2, 2.5), (0, 2, 3.0), (2, 3, 0.0), (5, 4, 1.0)])
    G = hp.Graph.from_networkx(H, backend="cpu")
    res = hp.sssp(G, 0, backend="cpu")
    want = nx.single_source_dijkstra_path_length(H, 0)
    np.testing.assert_array_equal(res.distance, [want.get(v, np.inf) for v in range(6)])
    assert res.distance.dtype == np.float64
    assert res.predecessor.tolist()[:4] == [-1, 0, 1, 2] and res.predecessor[4] == -1


@pytest.mark.cases()
def test_components_numbered_like_networkx(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    k, labels = hp.connected_components(G, backend="cpu")
    H = cases.to_networkx(graph_case)
    comps = (nx.weakly_connected_components(H) if graph_case.directed
             else nx.connected_components(H))
    comps = sorted((sorted(c) for c in comps), key=lambda c: c[0])
    assert k == len(comps)
    want = np.empty(graph_case.n, np.int32)
    for i, c in enumerate(comps):
        want[c] = i
    np.testing.assert_array_equal(labels, want)
    assert labels.dtype == np.int32


@pytest.mark.parametrize("seed", range(4))
def test_components_numbering_on_many_components(seed):
    """Undirected graphs take SciPy's strong-components search on the symmetric matrix: the
    labels are still numbered by each component's smallest vertex id (networkx's components,
    sorted), with thousands of components, self-loops and repeated edges."""
    rng = np.random.default_rng(seed)
    n, m = 3000, 2200
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    s[:50] = d[:50]                                           # self-loops
    s, d = np.r_[s, s[:100]], np.r_[d, d[:100]]               # repeats
    G = hp.Graph.from_edges(s, d, num_vertices=n, directed=False)
    k, labels = hp.connected_components(G, backend="cpu")
    H = nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from(zip(s.tolist(), d.tolist()))
    comps = sorted((min(c), c) for c in nx.connected_components(H))
    want = np.empty(n, np.int32)
    for i, (_, c) in enumerate(comps):
        want[list(c)] = i
    assert k == len(comps)
    np.testing.assert_array_equal(labels, want)
