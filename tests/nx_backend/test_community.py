"""Louvain communities, k-truss and spanning trees through the backend, against plain networkx.

Random graphs with string / tuple labels, self-loops, isolated nodes, zero weights and several
components (the helpers of ``test_backend``); every result is compared with networkx's on the
same graph.  Louvain's partition legitimately differs from networkx's (visiting order, random
choices), so it is checked as a partition of the nodes whose modularity (computed by networkx)
is close to networkx's own.
"""

import math
import random

import networkx as nx
import pytest

from hpgraph.nx_backend.interface import can_run
from tests.nx_backend.test_backend import BE, no_numpy_scalars, random_graph

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def weighted_graph(seed, *, distinct=True, zeros=False, labels="str"):
    """Undirected, no self-loops (spanning trees ignore them; k-truss refuses them)."""
    G = random_graph(seed, labels=labels, loops=False, weights=None, n=50, p=0.1)
    rng = random.Random(seed)
    values = rng.sample(range(1, 10 * G.number_of_edges() + 10), G.number_of_edges())
    for (u, v), w in zip(G.edges, values):
        G[u][v]["weight"] = (w if distinct else w % 3) - (0 if not zeros else min(values))
    return G


# ---------------------------------------------------------------------------------------------
# spanning trees


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("seed", range(3))
def test_spanning_edges_and_trees_exact(seed, device):
    G = weighted_graph(seed, zeros=seed == 1, labels="tuple" if seed == 2 else "str")
    G.add_node("lonely")
    kw = {"backend": BE, "device": device}
    for f in (nx.minimum_spanning_edges, nx.maximum_spanning_edges):
        got = list(f(G, **kw))
        assert got == list(f(G))          # distinct weights: Kruskal's edges in its order
        assert no_numpy_scalars(got)
        assert list(f(G, data=False, **kw)) == list(f(G, data=False))
    for f in (nx.minimum_spanning_tree, nx.maximum_spanning_tree):
        T, R = f(G, **kw), f(G)
        assert list(T.nodes) == list(R.nodes) and T._adj == R._adj and T.graph == R.graph


def test_spanning_tree_ties_give_a_minimum_forest():
    G = weighted_graph(4, distinct=False)
    T, R = nx.minimum_spanning_tree(G, backend=BE), nx.minimum_spanning_tree(G)
    assert T.number_of_edges() == R.number_of_edges() == len(G) - nx.number_connected_components(G)
    assert T.size(weight="weight") == R.size(weight="weight")
    assert nx.is_forest(T) and all(G.has_edge(u, v) for u, v in T.edges)


def test_spanning_nan_weights():
    G = weighted_graph(5)
    u, v = next(iter(G.edges))
    G[u][v]["weight"] = math.nan
    got = sorted(map(sorted, nx.minimum_spanning_edges(G, data=False, ignore_nan=True,
                                                       backend=BE)))
    assert got == sorted(map(sorted, nx.minimum_spanning_edges(G, data=False, ignore_nan=True)))
    edges = nx.minimum_spanning_edges(G, backend=BE)   # networkx raises when consumed
    with pytest.raises(ValueError, match="NaN found as an edge weight"):
        list(edges)


def test_spanning_declines():
    G = weighted_graph(6)
    u, v = next(iter(G.edges))
    G[u][v]["color"] = "red"
    reason = can_run("minimum_spanning_tree", (G,), {})
    assert isinstance(reason, str) and "not numbers" in reason
    assert can_run("minimum_spanning_edges", (G,), {"data": False}) is True
    H = weighted_graph(6)
    H[u][v]["other"] = 1
    assert "different sets of attributes" in can_run("minimum_spanning_edges", (H,), {})
    M = nx.MultiGraph([(0, 1), (0, 1)])
    assert "multigraph" in can_run("minimum_spanning_tree", (M,), {})
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.minimum_spanning_tree(nx.DiGraph([(0, 1)]), backend=BE)
    with pytest.raises(ValueError, match="random is not a valid choice for an algorithm"):
        nx.minimum_spanning_tree(weighted_graph(6), algorithm="random", backend=BE)
    with pytest.raises(ValueError, match="random is not a valid choice for an algorithm"):
        nx.maximum_spanning_edges(nx.Graph(), algorithm="random", backend=BE)


# ---------------------------------------------------------------------------------------------
# k-truss


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("seed", range(3))
def test_k_truss_exact(seed, device):
    G = weighted_graph(seed, labels="tuple" if seed == 2 else "str")
    G.add_edges_from(nx.complete_graph(["c0", "c1", "c2", "c3", "c4"]).edges, weight=0)
    G.add_node("lonely", colour="blue")
    G.graph["name"] = "g"
    for k in (-1, 0, 2, 3, 4, 5, 6):
        T, R = nx.k_truss(G, k, backend=BE, device=device), nx.k_truss(G, k)
        assert list(T.nodes(data=True)) == list(R.nodes(data=True)), k
        assert T._adj == R._adj and T.graph == R.graph, k


def test_k_truss_self_loops_raise_like_networkx():
    G = nx.cycle_graph(3)
    G.add_edge(0, 0)
    with pytest.raises(nx.NetworkXNotImplemented, match="Input graph has self loops"):
        nx.k_truss(G, 3, backend=BE)


# ---------------------------------------------------------------------------------------------
# Louvain


def _check_partition(G, parts, ref, ratio=0.95):
    assert isinstance(parts, list) and all(isinstance(c, set) for c in parts)
    assert sorted(map(repr, (v for c in parts for v in c))) == sorted(map(repr, G))
    q, q_ref = nx.community.modularity(G, parts), nx.community.modularity(G, ref)
    assert q >= ratio * q_ref - 1e-12, (q, q_ref)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("seed", range(4))
def test_louvain_partition_and_modularity(seed, device):
    G = random_graph(seed, n=120, p=0.04, labels="tuple" if seed == 3 else "str")
    for weight in ("weight", None):
        parts = nx.community.louvain_communities(G, weight=weight, seed=seed, backend=BE,
                                                 device=device)
        ref = nx.community.louvain_communities(G, weight=weight, seed=seed)
        _check_partition(G, parts, ref)


def test_louvain_karate_club_and_cliques():
    G = nx.karate_club_graph()
    parts = nx.community.louvain_communities(G, seed=1, backend=BE)
    # weighted karate club: hpgraph's partition reaches 0.414 where networkx's reaches 0.444
    _check_partition(G, parts, nx.community.louvain_communities(G, seed=1), ratio=0.9)
    # two 6-cliques joined by one edge: the only sensible answer
    B = nx.barbell_graph(6, 0)
    parts = nx.community.louvain_communities(B, backend=BE)
    assert sorted(map(sorted, parts)) == [list(range(6)), list(range(6, 12))]


def test_louvain_edge_cases():
    E = nx.empty_graph(4)
    assert nx.community.louvain_communities(E, backend=BE) == [{0}, {1}, {2}, {3}]
    assert nx.community.louvain_communities(nx.Graph(), backend=BE) == []
    with pytest.raises(ValueError, match="max_level"):
        nx.community.louvain_communities(nx.path_graph(4), max_level=0, backend=BE)
    D = nx.DiGraph([(0, 1)])
    assert "directed Louvain" in can_run("louvain_communities", (D,), {})
    N = nx.path_graph(4)
    nx.set_edge_attributes(N, -1, "weight")
    with pytest.raises(NotImplementedError):
        nx.community.louvain_communities(N, backend=BE)
