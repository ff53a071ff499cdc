"""cut_size, node_boundary and neighborhood against networkx (exact values), both backends, with random
vertex sets that overlap, that are complements, and given as ids or as masks."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


def _sets(n, seed):
    rng = np.random.default_rng(seed)
    S = np.flatnonzero(rng.random(n) < 0.4)
    T = np.flatnonzero(rng.random(n) < 0.5)     # overlaps S
    return S, T


@pytest.mark.cases(min_n=1)
def test_cut_size_matches_networkx(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    S, T = _sets(graph_case.n, graph_case.n)
    for weighted in (True, False):
        weight = "weight" if weighted and graph_case.weighted else None
        got = hp.cut_size(G, S, T, weighted, backend=backend_name)
        want = nx.cut_size(H, S.tolist(), T.tolist(), weight=weight)
        if weight is None:   # the oracle's weights are floats even for int32 cases
            assert type(got) is int
        # float sums are added in another order than networkx's (its set iteration order)
        assert got == (want if isinstance(want, int) else pytest.approx(want, rel=1e-13))
        comp = [v for v in range(graph_case.n) if v not in set(S.tolist())]
        mask = np.zeros(graph_case.n, dtype=bool)
        mask[S] = True
        got = hp.cut_size(G, mask, None, weighted, backend=backend_name)
        assert got == pytest.approx(nx.cut_size(H, S.tolist(), comp, weight=weight), rel=1e-13)


@pytest.mark.cases(min_n=1)
def test_node_boundary_matches_networkx(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    S, _ = _sets(graph_case.n, graph_case.n + 1)
    got = cases.host(hp.node_boundary(G, S, backend=backend_name))
    assert got.dtype == bool and got.shape == (graph_case.n,)
    assert set(np.flatnonzero(got).tolist()) == nx.node_boundary(H, S.tolist())
    got = cases.host(hp.neighborhood(G, S, backend=backend_name))
    assert set(np.flatnonzero(got).tolist()) == {w for v in S.tolist() for w in H[v]}


def test_small_exact_and_bad_sets():
    D = hp.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], [1, 2, 3, 4], num_vertices=4,
                            backend="cpu")
    # networkx: edge_boundary(S, T) = 0->1 (1), 1->2 (2), 2->0 (3) and edge_boundary(T, S) =
    # 1->2 (2), 2->0 (3): the edges with both ends in S and T count twice
    assert hp.cut_size(D, [0, 1, 2], [1, 2], backend="cpu") == 1 + 2 + 3 + 2 + 3
    assert hp.cut_size(D, [0], [1], weighted=False, backend="cpu") == 1
    with pytest.raises(InvalidValue, match="vertex ids"):
        hp.cut_size(D, [0, 9], backend="cpu")
    with pytest.raises(InvalidValue, match="mask"):
        hp.node_boundary(D, np.ones(3, dtype=bool), backend="cpu")
