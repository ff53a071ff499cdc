"""The independent oracles of benchmarks/bench_algorithms2.py (benchmarks/_alg2_oracles.py)
against networkx on small random graphs with self-loops, repeated entries, zero weights, isolated
vertices and several components."""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _alg2_oracles as oracles  # noqa: E402


def awkward(seed, n=200, m=900, directed=False, lo=0):
    """Random weighted graph: loops, repeats (summed by the CSR), weights ``lo..5`` (stored
    zeros are edges), vertices past ``n - 20`` isolated, two components."""
    rng = np.random.default_rng(seed)
    half = (n - 20) // 2
    r = rng.integers(0, half, m)
    c = rng.integers(0, half, m)
    r = np.r_[r, rng.integers(half, n - 20, m // 3)]
    c = np.r_[c, rng.integers(half, n - 20, m // 3)]
    w = rng.integers(lo, 6, r.size).astype(np.float64)
    if not directed:                   # symmetric storage, built as COO so zeros stay stored
        r, c, w = np.r_[r, c], np.r_[c, r], np.r_[w, w]
    return sp.coo_matrix((w, (r, c)), shape=(n, n)).tocsr()   # repeats summed, zeros kept


def nodes(H, n):
    H.add_nodes_from(range(n))
    return H


@pytest.mark.parametrize("seed", range(4))
def test_core_numbers_equal_networkx(seed):
    M = awkward(seed)
    H = nodes(nx.Graph(), M.shape[0])
    C = M.tocoo()
    H.add_edges_from((u, v) for u, v in zip(C.row.tolist(), C.col.tolist()) if u != v)
    ref = nx.core_number(H)
    got = oracles.core_numbers_reference(M)
    assert got.tolist() == [ref[i] for i in range(M.shape[0])]


@pytest.mark.parametrize("seed", range(4))
def test_modularity_equals_networkx(seed):
    M = awkward(seed)
    H = nodes(nx.from_scipy_sparse_array(M), M.shape[0])
    lab = np.random.default_rng(seed).integers(0, 6, M.shape[0])
    comms = [set(np.flatnonzero(lab == c).tolist()) for c in np.unique(lab)]
    assert oracles.modularity_reference(M, lab) == pytest.approx(
        nx.community.modularity(H, comms), rel=1e-12, abs=1e-14)
    assert oracles.modularity_reference(sp.csr_matrix(M.shape), lab) == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_eigenvector_equals_networkx(seed):
    M = awkward(seed, n=150, m=2000)
    M = M[:110, :110]                       # one component, loops kept
    H = nx.from_scipy_sparse_array(M)
    ref = nx.eigenvector_centrality(H, max_iter=1000, weight=None)
    np.testing.assert_allclose(oracles.eigenvector_reference(M, 1000),
                               [ref[i] for i in range(M.shape[0])], rtol=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_weighted_brandes_equals_networkx(directed):
    M = awkward(5, directed=directed, lo=1)
    G = hp.Graph(M, directed=directed)
    W = oracles.simple_weighted(G)
    assert W.diagonal().sum() == 0
    srcs = oracles.random_sample(M.shape[0], 6, 7)
    vertex, edge = oracles.weighted_brandes_reference(W, srcs)
    H = nodes((nx.DiGraph if directed else nx.Graph)(), M.shape[0])
    C = W.tocoo()
    H.add_weighted_edges_from(zip(C.row.tolist(), C.col.tolist(), C.data.tolist()))
    scale = 1.0 if directed else 2.0
    ref = nx.betweenness_centrality_subset(H, sources=srcs, targets=list(H), normalized=False,
                                           weight="weight")
    np.testing.assert_allclose(vertex / scale, [ref[i] for i in range(M.shape[0])], rtol=1e-12,
                               atol=1e-12)
    eref = nx.edge_betweenness_centrality_subset(H, sources=srcs, targets=list(H),
                                                 normalized=False, weight="weight")
    got = {}
    for u, v, x in zip(C.row.tolist(), C.col.tolist(), edge.tolist()):
        e = (u, v) if directed else (min(u, v), max(u, v))
        got[e] = got.get(e, 0.0) + x
    for e, x in eref.items():
        e = e if directed else (min(e), max(e))
        assert got[e] / scale == pytest.approx(x, rel=1e-12, abs=1e-12)


def test_simple_weighted_keeps_smallest_repeat():
    G = hp.Graph.from_edges([0, 0, 1, 2], [1, 1, 1, 0], weights=[5.0, 2.0, 7.0, 3.0],
                            num_vertices=3, directed=True)
    W = oracles.simple_weighted(G)
    assert W.toarray().tolist() == [[0, 2, 0], [0, 0, 0], [3, 0, 0]]


def test_lp_fixed_point_catches_a_wrong_label():
    G = hp.Graph(sp.csr_matrix(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1],
                                         [0, 0, 1, 0]])), directed=False)
    assert oracles.lp_fixed_point(G, [0, 0, 0, 0])
    assert not oracles.lp_fixed_point(G, [0, 0, 0, 3])


@pytest.mark.parametrize("seed", range(3))
def test_ktruss_equals_networkx(seed):
    pytest.importorskip("graphblas")
    M = awkward(seed, m=2500)
    H = nodes(nx.Graph(), M.shape[0])
    C = M.tocoo()
    H.add_edges_from((u, v) for u, v in zip(C.row.tolist(), C.col.tolist()) if u != v)
    for k in (2, 3, 4, 5):
        T = nx.k_truss(H, k)
        want = sorted(min(u, v) * M.shape[0] + max(u, v) for u, v in T.edges)
        assert oracles.ktruss_reference(M, k).tolist() == want


def test_binary_simple_keeps_zero_weight_edges_and_drops_loops():
    M = sp.csr_matrix((np.array([0.0, 2.0, 3.0, 0.0]), (np.array([0, 1, 2, 2]),
                                                        np.array([1, 1, 0, 0]))), shape=(3, 3))
    assert oracles.binary_simple(M).toarray().tolist() == [[0, 1, 0], [0, 0, 0], [1, 0, 0]]


def test_simple_weighted_without_edges():
    G = hp.Graph.from_edges([0, 1], [0, 1], num_vertices=3, directed=True)
    assert oracles.simple_weighted(G).nnz == 0
    vertex, edge = oracles.weighted_brandes_reference(oracles.simple_weighted(G), [0, 2])
    assert vertex.tolist() == [0.0, 0.0, 0.0] and edge.size == 0
