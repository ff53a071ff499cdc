"""The CPU engine's message combining (:mod:`hpgraph.engine.cpu`): pulls read rows in
ascending sender order (by range for few receivers, by testing every entry otherwise), pushes
restore that order (a stable sort, or an in-place fold for min / max / and / or), so a
witness is the first tied sender in that order, on every direction."""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp
from tests.engine.test_mask import DIRECTIONS, _entries, _random_case


def ref_bfs_smallest_parent(G, source):
    """Plain Python BFS over in-edges: depth, and as parent the smallest in-neighbour one level
    up (the CPU engine takes a row's first winning entry in canonical order: ascending
    sender ids)."""
    n = G.num_vertices
    ins = [set() for _ in range(n)]
    for u, v, _ in _entries(G):
        ins[v].add(u)
    depth = [-1] * n
    parent = [-1] * n
    depth[source], parent[source] = 0, source
    level, d = [source], 0
    while level:
        d += 1
        nxt = []
        for v in range(n):
            if depth[v] < 0:
                ups = [u for u in ins[v] if depth[u] == d - 1]
                if ups:
                    depth[v], parent[v] = d, min(ups)
                    nxt.append(v)
        level = nxt
    return np.array(depth), np.array(parent)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cpu_masked_pull_keeps_canonical_order(direction):
    """BFSParents (mask: unvisited; reduce any; witness parent) on the CPU: late pulls read few
    receivers' rows by range, early ones test every entry; either way a row's entries come in
    ascending sender order, so the parent is the smallest in-neighbour one level up."""
    from examples.bfs import BFSParents

    for seed in range(8):
        G, _ = _random_case(200 + seed, n=60, m=160, directed=seed % 2 == 0)
        want_d, want_p = ref_bfs_smallest_parent(G, 0)
        r = hp.run(BFSParents, G, backend="cpu", direction=direction, source=0)
        np.testing.assert_array_equal(r.depth, want_d)
        np.testing.assert_array_equal(r.parent, want_p)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cpu_witness_ties_go_to_the_smallest_sender(direction):
    """Diamonds 0 -> a, b -> c with a < b at equal distances: c's predecessor is a, the first
    of the tied senders in canonical (ascending sender) order, whichever way the CPU engine
    combines the messages (sorted segments or an in-place fold)."""
    from examples.sssp import SSSPNearFar

    s, d, w = [], [], []
    for i in range(5):
        a, b, c = 1 + 3 * i, 2 + 3 * i, 3 + 3 * i
        # the second diamond's far side is reached through b's cheaper edge: pred b
        wa = 2.0 if i == 1 else 1.0
        s += [0, 0, b, a]
        d += [a, b, c, c]
        w += [1.0, 1.0, 1.0, wa]
    G = hp.Graph.from_edges(np.array(s), np.array(d), np.array(w, np.float32),
                            num_vertices=16, directed=True)
    r = hp.run(SSSPNearFar, G, backend="cpu", direction=direction, source=0)
    want = [-1] + sum(([0, 0, (2 if i == 1 else 1) + 3 * i] for i in range(5)), [])
    np.testing.assert_array_equal(r.pred, np.array(want))
    np.testing.assert_array_equal(r.dist, np.array([0.0] + [1.0, 1.0, 2.0] * 5, np.float32))
