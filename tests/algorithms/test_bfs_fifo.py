"""The queue-order BFS levels (``algorithms._bfs_fifo.fifo_levels``) against networkx's own
breadth-first search on random graphs: self-loops, isolated vertices, several components,
several sources, depth limits; NumPy on the host, CuPy on the device."""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
import pytest

from hpgraph.algorithms._bfs_fifo import fifo_levels

XPS = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


def _graph(seed, directed):
    rng = random.Random(seed)
    n = 60
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(rng.sample(range(n), n))            # networkx order: shuffled ids
    for _ in range(rng.randint(0, 150)):
        u, v = rng.randrange(n - 5), rng.randrange(n - 5)   # the last five stay isolated
        G.add_edge(u, v)
    return G


def _csr(G):
    """Successor lists in networkx's order, vertex ids = node labels."""
    n = G.number_of_nodes()
    indptr = np.zeros(n + 1, dtype=np.int64)
    rows = [list(G._adj[v]) for v in range(n)]
    indptr[1:] = np.cumsum([len(r) for r in rows])
    indices = np.array([w for r in rows for w in r], dtype=np.int64)
    return indptr, indices


def _ref_levels(G, sources, deepest):
    """networkx's generic BFS (queue order) from ``sources``: levels and parents."""
    seen = set(sources)
    levels = [(list(sources), list(sources))]
    while len(levels) - 1 < deepest:
        verts, pars = [], []
        for u in levels[-1][0]:
            for w in G._adj[u]:
                if w not in seen:
                    seen.add(w)
                    verts.append(w)
                    pars.append(u)
        if not verts:
            break
        levels.append((verts, pars))
    return levels


@pytest.mark.parametrize("xp_name", XPS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_fifo_levels_are_networkx_bfs_order(seed, directed, xp_name):
    xp = pytest.importorskip(xp_name)
    G = _graph(seed, directed)
    indptr, indices = _csr(G)
    rng = random.Random(seed + 100)
    for sources in ([0], [rng.randrange(60)], rng.sample(range(60), 3), [59]):
        for deepest in (math.inf, 0, 1, 2):
            got = fifo_levels(xp, xp.asarray(indptr), xp.asarray(indices),
                              xp.asarray(sources, dtype=np.int64), 60, deepest)
            got = [([int(x) for x in xp.asnumpy(v)] if xp_name == "cupy" else v.tolist(),
                    [int(x) for x in xp.asnumpy(p)] if xp_name == "cupy" else p.tolist())
                   for v, p in got]
            assert got == _ref_levels(G, sources, deepest)
    # the reference itself is networkx's: its layers are nx.bfs_layers
    assert [v for v, _ in _ref_levels(G, [0], math.inf)] == list(nx.bfs_layers(G, [0]))
