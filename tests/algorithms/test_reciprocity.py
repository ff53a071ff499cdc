"""Reciprocity against networkx (exact values), both backends."""

import math

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


@pytest.mark.cases(directed=True)
def test_matches_networkx(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    H = cases.to_networkx(graph_case)
    if H.number_of_edges() == 0:
        with pytest.raises(InvalidValue, match="without edges"):
            hp.reciprocity(G, backend=backend_name)
    else:
        assert hp.reciprocity(G, backend=backend_name) == nx.overall_reciprocity(H)
    got = cases.host(hp.vertex_reciprocity(G, backend=backend_name)).tolist()
    want = nx.reciprocity(H, list(H))
    assert [None if math.isnan(x) else x for x in got] == [want[v] for v in range(graph_case.n)]


def test_repeated_edges_and_self_loops():
    G = hp.Graph.from_edges([0, 0, 1, 2, 2], [1, 1, 0, 2, 0], num_vertices=4, duplicates="keep",
                            backend="cpu")
    H = nx.DiGraph([(0, 1), (1, 0), (2, 2), (2, 0)])
    H.add_node(3)
    assert hp.reciprocity(G, backend="cpu") == nx.overall_reciprocity(H) == 0.5
    got = hp.vertex_reciprocity(G, backend="cpu")
    np.testing.assert_array_equal(got, [2 / 3, 1.0, 2 / 3, np.nan])


def test_undirected():
    U = hp.Graph.from_edges([0], [1], num_vertices=2, directed=False, backend="cpu")
    for f in (hp.reciprocity, hp.vertex_reciprocity):
        with pytest.raises(InvalidValue, match="directed"):
            f(U, backend="cpu")
