"""Widest (bottleneck) paths against a plain-Python modified Dijkstra."""

import heapq

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import IndexOutOfBound


def reference_widths(cases, case, sources):
    """Modified Dijkstra: pop the vertex of largest width; width = max(min(width[u], w))."""
    n = case.n
    s, d, w = cases.directed_edges(case, combine="max")  # parallel edges: the widest one counts
    adj = [[] for _ in range(n)]
    for u, v, c in zip(s.tolist(), d.tolist(), w.tolist()):
        adj[u].append((v, c))
    width = [-np.inf] * n
    heap = []
    for x in set(sources):
        width[x] = np.inf
        heap.append((-np.inf, x))
    heapq.heapify(heap)
    done = [False] * n
    while heap:
        negw, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, c in adj[u]:
            cand = min(width[u], c)
            if cand > width[v]:
                width[v] = cand
                heapq.heappush(heap, (-cand, v))
    return np.array(width, dtype=np.float64)


def check_widest(cases, case, res, sources):
    width, pred = cases.host(res.width), cases.host(res.predecessor)
    n = case.n
    ref = reference_widths(cases, case, sources)
    np.testing.assert_allclose(width, ref, rtol=1e-6)
    src = np.unique(sources)
    assert np.all(width[src] == np.inf) and np.all(pred[src] == -1)
    reach = np.isfinite(ref) | (ref == np.inf)
    reach &= ref > -np.inf
    assert np.all(pred[~reach] == -1)
    others = np.flatnonzero(reach)
    others = others[~np.isin(others, src)]
    p = pred[others].astype(np.int64)
    assert np.all(p >= 0)
    s, d, w = cases.directed_edges(case, combine="max")
    key = s * n + d
    order = np.argsort(key)
    pos = order[np.searchsorted(key[order], p * n + others)]
    assert np.array_equal(key[pos], p * n + others)
    np.testing.assert_allclose(np.minimum(width[p], w[pos]), width[others], rtol=1e-6)
    cur = pred.astype(np.int64).copy()
    for _ in range(n):
        nxt = np.where(cur >= 0, pred[np.maximum(cur, 0)], -1)
        cur = np.where((cur < 0) | np.isin(cur, src), cur, nxt)
    assert np.all(np.isin(cur[others], src)), "predecessors form a cycle"


def test_widest_path_matches_dijkstra(graph_case, backend_name, cases):
    case = graph_case
    # the Graph keeps the widest of repeated edges for this test
    from hpgraph.graph import Graph

    G = Graph.from_edges(case.src, case.dst, weights=case.weights, num_vertices=case.n,
                         directed=case.directed, duplicates="max")
    if backend_name == "gpu":
        G = G.to_device()
    if case.n == 0:
        with pytest.raises(IndexOutOfBound):
            hp.widest_path(G, 0, backend=backend_name)
        return
    rng = np.random.default_rng(case.n + 7)
    for s in {0, int(rng.integers(0, case.n))}:
        check_widest(cases, case, hp.widest_path(G, s, backend=backend_name), [s])
    if case.n >= 3:
        srcs = [0, case.n - 1]
        check_widest(cases, case, hp.widest_path(G, srcs, backend=backend_name), srcs)


def test_widest_path_small(backend_name):
    #   0 -5-> 1 -2-> 3
    #   0 -3-> 2 -4-> 3        best to 3: via 2 (bottleneck 3)
    G = hp.Graph.from_edges([0, 1, 0, 2, 4], [1, 3, 2, 3, 0], weights=[5.0, 2.0, 3.0, 4.0, 1.0],
                            num_vertices=5, directed=True)
    res = hp.widest_path(G, 0, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.width, [np.inf, 5, 3, 3, -np.inf])
    np.testing.assert_array_equal(res.predecessor, [-1, 0, 0, 2, -1])


def test_widest_path_unweighted_and_zero_capacity(backend_name):
    G = hp.generators.path(4, backend="cpu")
    res = hp.widest_path(G, 1, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.width, [1, np.inf, 1, 1])
    # a zero-capacity edge still makes the vertex reachable (width 0, not -inf)
    G0 = hp.Graph.from_edges([0], [1], weights=[0.0], num_vertices=3)
    r0 = hp.widest_path(G0, 0, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(r0.width, [np.inf, 0.0, -np.inf])
    np.testing.assert_array_equal(r0.predecessor, [-1, 0, -1])


def test_widest_path_without_predecessors(backend_name):
    G = hp.Graph.from_edges([0, 1], [1, 2], weights=[4.0, 2.0], num_vertices=3)
    res = hp.widest_path(G, 0, predecessors=False, backend=backend_name, to="numpy")
    assert res.predecessor is None
    np.testing.assert_array_equal(res.width, [np.inf, 4, 2])
