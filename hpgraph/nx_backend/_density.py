"""networkx's ``approximation.densest_subgraph`` (FISTA and Greedy++) on the converted CSR.

FISTA's iterations are whole-array float32 updates over the edge list (the same operations in
the same order as networkx, so the same numbers); the peeling that follows, and Greedy++, remove
one vertex at a time, which is sequential: they run over the CSR with a binary heap that keeps
networkx's ``BinaryHeap`` rules (a key's value only decreases; ties pop in insertion order),
so the subgraph found is networkx's.
"""

from __future__ import annotations

import math
from heapq import heappop, heappush
from itertools import count

import numpy as np

from ._components import _undirected_only
from ._registry import _nx, implements


class _Heap:
    """networkx's ``utils.BinaryHeap`` (insert without ``allow_increase``, pop)."""

    def __init__(self):
        self._dict = {}
        self._heap = []
        self._count = count()

    def insert(self, key, value):
        old = self._dict.get(key)
        if old is None or value < old:
            self._dict[key] = value
            heappush(self._heap, (value, next(self._count), key))

    def pop(self):
        d = self._dict
        while True:
            value, _, key = heappop(self._heap)
            if key in d and value == d[key]:
                break
        del d[key]
        return key


def _adjacency_lists(hg):
    return hg.indptr.tolist(), hg.indices.tolist()


def _greedy_plus_plus(G, iterations):
    from ._measures import _degree

    if G.number_of_edges() == 0:
        return 0.0, set()
    if iterations < 1:
        raise ValueError(
            f"The number of iterations must be an integer >= 1. Provided: {iterations}")
    indptr, indices = _adjacency_lists(G)
    degree = _degree(G).tolist()
    loads = [0] * G.n
    best_density, best = 0.0, None
    for _ in range(iterations):
        heap = _Heap()
        for v in range(G.n):
            heap.insert(v, loads[v] + degree[v])
        remaining = np.ones(G.n, dtype=bool)
        left = G.n
        num_edges = G.number_of_edges()
        current = list(degree)
        while left:
            density = num_edges / left
            if density > best_density:
                best_density, best = density, remaining.copy()
            v = heap.pop()
            if not remaining[v]:
                continue
            loads[v] += current[v]
            for u in indices[indptr[v]:indptr[v + 1]]:
                if remaining[u]:
                    current[u] -= 1
                    num_edges -= 1
                    heap.insert(u, loads[u] + current[u])
            remaining[v] = False
            left -= 1
    return best_density, set(G.labels_of(np.flatnonzero(best))) if best is not None else set()


def _fista(G, iterations):
    from ._matrix import _edge_entries
    from ._measures import _degree

    if G.number_of_edges() == 0:
        return 0.0, set()
    if iterations < 1:
        raise ValueError(
            f"The number of iterations must be an integer >= 1. Provided: {iterations}")
    _, r, c = _edge_entries(G)
    half = r.shape[0]
    src = np.concatenate([r, c]).astype(np.int32)
    dst = np.concatenate([c, r])
    reverse = np.concatenate([np.arange(half, 2 * half), np.arange(half)]).astype(np.int32)
    m = 2 * half
    x = np.full(m, 0.5, dtype=np.float32)
    y = x.copy()
    b = np.zeros(G.n, dtype=np.float32)
    tk = 1.0
    learning_rate = 0.9 / int(_degree(G).max())
    for _ in range(iterations):
        b[:] = 0.0
        np.add.at(b, src, y)
        z = y - 2.0 * learning_rate * b[src]
        tknew = (1.0 + math.sqrt(1 + 4.0 * tk**2)) / 2.0
        clamped = np.clip((z - z[reverse] + 1.0) / 2.0, 0.0, 1.0)
        y = clamped + ((tk - 1.0) / tknew) * (clamped - x) + (tk / tknew) * (clamped - y)
        x = clamped
        tk = tknew
    b[:] = 0.0
    np.add.at(b, src, x)
    # networkx's edge_to_idx: the last index of each (tail, head) pair (a self-loop's second)
    slot = dict(zip(zip(src.tolist(), dst.tolist()), range(m)))
    return _peel(G, b, x, slot)


def _peel(G, b, x, slot):
    indptr, indices = _adjacency_lists(G)
    heap = _Heap()
    for v in range(G.n):
        heap.insert(v, b[v])
    remaining = np.ones(G.n, dtype=bool)
    left = G.n
    num_edges = G.number_of_edges()
    best_density, best = 0.0, None
    while left:
        density = num_edges / left
        if density > best_density:
            best_density, best = density, remaining.copy()
        v = heap.pop()
        while not remaining[v]:
            v = heap.pop()
        for u in indices[indptr[v]:indptr[v + 1]]:
            if remaining[u]:
                b[u] -= x[slot[(u, v)]]
                num_edges -= 1
                heap.insert(u, b[u])
        remaining[v] = False
        left -= 1
    return best_density, set(G.labels_of(np.flatnonzero(best))) if best is not None else set()


@implements("densest_subgraph")
def densest_subgraph(G, iterations=1, *, method="fista"):
    """``(density, nodes)`` of an approximately densest subgraph (networkx's algorithms)."""
    _undirected_only(G)
    if G.is_multigraph():
        raise _nx().NetworkXNotImplemented("not implemented for multigraph type")
    algo = {"greedy++": _greedy_plus_plus, "fista": _fista}.get(method)
    if algo is None:
        raise ValueError(f"{method} is not a valid choice for an algorithm.")
    return algo(G, iterations)
