"""Checks of ``label_propagation``'s arguments (exact messages, accepted boundaries), of ``to``
and ``backend`` on every return path, and a directed graph on which every vertex changes its
label in the first iteration without being done: a plain-Python reference of the documented
rules (greedy largest-first colouring, splitmix64 tie priorities, Prec-Min) is the oracle."""

import re
from collections import Counter

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue

MASK = (1 << 64) - 1
MODES = ("semi-synchronous", "synchronous")
TO_MSG = "to must be None, 'numpy' or 'cupy', got 'bogus'"


def py_priority(v, seed):
    z = (v + 0x9E3779B97F4A7C15 * ((0 if seed is None else seed) + 1)) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return z - (1 << 64) if z >= 1 << 63 else z


def most_frequent(labels, nbs):
    cnt = Counter(labels[u] for u in nbs)
    top = max(cnt.values())
    return [lab for lab, k in cnt.items() if k == top]


def py_semi_sync(nb, n, max_iter, seed):
    """Greedy colour classes (decreasing degree, ties by decreasing priority; each vertex the
    smallest colour its coloured neighbours lack), updated one vertex at a time (Prec-Min)."""
    prio = [py_priority(v, seed) for v in range(n)]
    colour = [-1] * n
    for v in sorted(range(n), key=lambda v: (len(nb[v]), prio[v]), reverse=True):
        used = {colour[u] for u in nb[v]}
        colour[v] = next(k for k in range(n + 1) if k not in used)
    ncol = max(colour, default=-1) + 1
    labels = list(range(n))
    for _ in range(max_iter):
        changed = False
        for c in range(ncol):
            for v in range(n):
                if colour[v] == c and nb[v]:
                    best = most_frequent(labels, nb[v])
                    new = labels[v] if labels[v] in best else min(best)
                    changed |= new != labels[v]
                    labels[v] = new
        if not changed:
            break
    return labels


def neighbours(src, dst, n):
    """Directed neighbour multisets: predecessors and successors (a mutual pair twice)."""
    nb = [[] for _ in range(n)]
    for u, v in set(zip(src, dst)):
        if u != v:
            nb[u].append(v)
            nb[v].append(u)
    return nb


def path(n=4):
    return hp.generators.path(n, backend="cpu")


def no_edges(n):
    return hp.Graph.from_edges([], [], num_vertices=n, directed=False, backend="cpu")


@pytest.mark.parametrize("kw, msg", [
    ({"mode": "async"}, "mode must be one of ('semi-synchronous', 'synchronous'), got 'async'"),
    ({"mode": None}, "mode must be one of ('semi-synchronous', 'synchronous'), got None"),
    ({"max_iter": -1}, "max_iter must be a non-negative int, got -1"),
    ({"max_iter": 1.5}, "max_iter must be a non-negative int, got 1.5"),
    ({"max_iter": 2.0}, "max_iter must be a non-negative int, got 2.0"),
    ({"max_iter": True}, "max_iter must be a non-negative int, got True"),
    ({"max_iter": "3"}, "max_iter must be a non-negative int, got '3'"),
    ({"seed": -1}, "seed must be a non-negative int or None, got -1"),
    ({"seed": 1.5}, "seed must be a non-negative int or None, got 1.5"),
    ({"seed": False}, "seed must be a non-negative int or None, got False"),
    ({"seed": "7"}, "seed must be a non-negative int or None, got '7'"),
])
def test_argument_messages(kw, msg):
    with pytest.raises(InvalidValue, match="^" + re.escape(msg) + "$"):
        hp.label_propagation(path(), backend="cpu", **kw)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kw", [{"seed": 0}, {"seed": np.int64(0)}, {"max_iter": np.int32(5)},
                                {"seed": 2**62}, {"max_iter": 0, "seed": 0}])
def test_boundary_arguments_accepted(kw, mode):
    lab = hp.label_propagation(no_edges(5), backend="cpu", mode=mode, **kw)
    assert lab.dtype == np.int32
    np.testing.assert_array_equal(lab, np.arange(5))


@pytest.mark.parametrize("seed", [0, 1])
def test_seed_zero_on_an_edge(seed):
    """One edge: the vertex of higher priority is updated first and takes the other's id."""
    first = max((0, 1), key=lambda v: py_priority(v, seed))
    lab = hp.label_propagation(path(2), seed=seed, backend="cpu")
    np.testing.assert_array_equal(lab, [1 - first] * 2)


# every return path: no vertices, max_iter=0, synchronous, semi-synchronous
PATHS = [(no_edges(0), {}, []), (path(), {"max_iter": 0}, [0, 1, 2, 3]),
         (path(), {"mode": "synchronous", "max_iter": 1}, [1, 0, 1, 2]),
         (path(3), {}, py_semi_sync([[1], [0, 2], [1]], 3, 100, None))]


@pytest.mark.parametrize("G, kw, want", PATHS, ids=["empty", "max_iter0", "sync", "semi"])
def test_to_is_checked_on_every_path(G, kw, want):
    with pytest.raises(InvalidValue, match=re.escape(TO_MSG)):
        hp.label_propagation(G, backend="cpu", to="bogus", **kw)
    lab = hp.label_propagation(G, backend="cpu", to="numpy", **kw)
    assert type(lab) is np.ndarray and lab.dtype == np.int32
    np.testing.assert_array_equal(lab, want)


@pytest.mark.parametrize("mode", MODES)
def test_backend_is_checked(mode):
    with pytest.raises(InvalidValue, match="backend must be one of .*got 'bogus'"):
        hp.label_propagation(path(), backend="bogus", mode=mode)


def test_every_vertex_changes_in_the_first_iteration():
    """Seed 2: in iteration 1 every vertex takes a new label, yet vertex 0 changes again in
    iteration 2, so the run must go on until an iteration changes nothing."""
    src = [2, 1, 5, 3, 4, 4, 0, 1, 6, 1, 1, 5, 3, 5, 2, 3, 4, 2]
    dst = [0, 3, 1, 3, 1, 0, 2, 0, 2, 6, 2, 5, 2, 0, 2, 3, 5, 0]
    G = hp.Graph.from_edges(src, dst, num_vertices=7, directed=True, backend="cpu")
    nb = neighbours(src, dst, 7)
    first = py_semi_sync(nb, 7, 1, 2)
    assert all(first[v] != v for v in range(7)) and first != py_semi_sync(nb, 7, 2, 2)
    for max_iter in (1, 2, 3, 100):
        np.testing.assert_array_equal(hp.label_propagation(G, max_iter=max_iter, seed=2, backend="cpu"),
                                      py_semi_sync(nb, 7, max_iter, 2))
    np.testing.assert_array_equal(hp.label_propagation(G, seed=2, backend="cpu"), [0] * 7)


def test_default_max_iter_is_100():
    """A synchronous star swaps centre and leaves every iteration: after an even number of
    iterations (the default 100) the centre holds 0 and the leaves 1 (worked out by hand)."""
    S = hp.generators.star(5, backend="cpu")
    np.testing.assert_array_equal(hp.label_propagation(S, mode="synchronous", backend="cpu"),
                                  [0, 1, 1, 1, 1])
    np.testing.assert_array_equal(hp.label_propagation(S, 101, mode="synchronous", backend="cpu"),
                                  [1, 0, 0, 0, 0])


def test_last_vertices_isolated():
    """Isolated vertices at the end of the id range (every degree array must still have n
    entries): the reference on both schedules."""
    src, dst = [0, 0, 1, 2, 3], [1, 2, 2, 3, 4]
    G = hp.Graph.from_edges(src, dst, num_vertices=8, directed=False, backend="cpu")
    nb = [[1, 2], [0, 2], [0, 1, 3], [2, 4], [3], [], [], []]
    for seed in (None, 4):
        np.testing.assert_array_equal(hp.label_propagation(G, seed=seed, backend="cpu"),
                                      py_semi_sync(nb, 8, 100, seed))
