"""Checks of ``k_core``'s ``backend``/``to`` arguments and of peeling edge cases (degrees that
jump, isolated vertices, self-loops, repeated entries, mutual directed pairs), against
``networkx.core_number`` or hand-computed core numbers."""

import re

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue

TO_MSG = "to must be None, 'numpy' or 'cupy', got 'bogus'"


def nx_core(H):
    H = H.copy()
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    c = nx.core_number(H)
    return np.array([c[i] for i in range(H.number_of_nodes())], dtype=np.int32)


def graph(src, dst, n, directed):
    return hp.Graph.from_edges(src, dst, num_vertices=n, directed=directed, backend="cpu")


@pytest.mark.parametrize("n", [0, 5])
def test_to_is_checked(n):
    G = graph([0, 1, 2], [1, 2, 0], n, False) if n else graph([], [], 0, False)
    with pytest.raises(InvalidValue, match=re.escape(TO_MSG)):
        hp.k_core(G, backend="cpu", to="bogus")
    got = hp.k_core(G, backend="cpu", to="numpy")
    assert type(got) is np.ndarray and got.dtype == np.int32
    np.testing.assert_array_equal(got, [2, 2, 2, 0, 0][:n])


def test_backend_is_checked():
    with pytest.raises(InvalidValue, match="backend must be one of .*got 'bogus'"):
        hp.k_core(graph([0], [1], 2, False), backend="bogus")


# (src, dst, n, directed, expected core numbers), worked out by hand
HAND = [
    # triangle with a pendant vertex and an isolated one
    ([0, 1, 2, 2], [1, 2, 0, 3], 5, False, [2, 2, 2, 1, 0]),
    # self-loops and repeated entries ignored
    ([0, 0, 1, 1, 1, 2, 3], [0, 1, 0, 2, 2, 2, 3], 4, False, [1, 1, 1, 0]),
    # mutual pair counts twice; one-way edge once
    ([0, 1, 1], [1, 0, 2], 3, True, [2, 2, 1]),
    # directed triangle both ways: degree 4 each
    ([0, 1, 2, 1, 2, 0], [1, 2, 0, 0, 1, 2], 3, True, [4, 4, 4]),
    # K4 plus a path hanging off it: the level jumps from 1 to 3
    ([0, 0, 0, 1, 1, 2, 3, 4], [1, 2, 3, 2, 3, 3, 4, 5], 6, False, [3, 3, 3, 3, 1, 1]),
]


@pytest.mark.parametrize("src, dst, n, directed, want", HAND)
def test_hand_computed(src, dst, n, directed, want):
    got = hp.k_core(graph(src, dst, n, directed), backend="cpu")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from(zip(src, dst))
    np.testing.assert_array_equal(nx_core(H), want)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("directed", [False, True])
def test_random_with_duplicates_and_loops(seed, directed):
    rng = np.random.default_rng(seed)
    n = 40
    s, d = rng.integers(0, n, 160), rng.integers(0, n, 160)
    s, d = np.concatenate([s, s[:30], np.arange(5)]), np.concatenate([d, d[:30], np.arange(5)])
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(n + 3))
    H.add_edges_from(zip(s.tolist(), d.tolist()))
    np.testing.assert_array_equal(hp.k_core(graph(s, d, n + 3, directed), backend="cpu"), nx_core(H))
