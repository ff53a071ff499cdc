"""Shared random-graph cases for the algorithm tests.

Every case is a :class:`GraphCase` ``(name, src, dst, weights, n, directed)`` of NumPy arrays:
an undirected case lists each edge once (either orientation); ``weights`` is None for an
unweighted graph.  The cases cover R-MAT, Erdos-Renyi, grids, stars, paths and complete
graphs, with self-loops, duplicate edges (of different weights), isolated vertices, several
components, zero weights, directed and undirected, the empty graph and 1-vertex graphs.
They are generated with NumPy only (deterministic seeds), so they do not depend on
``hpgraph.generators``.

How tests use them (``--import-mode=importlib`` keeps test modules from importing each
other, so everything is reached through fixtures):

* a test taking an argument named ``graph_case`` is parametrized over the cases; the marker
  ``@pytest.mark.cases(weighted=..., directed=..., max_n=..., min_n=..., negative=...)``
  filters them (see :func:`graph_cases`);
* the fixture ``cases`` is this module's helper namespace: ``cases.graph_cases(...)``,
  ``cases.to_graph(case, backend)``, ``cases.to_scipy(case)``, ``cases.to_networkx(case)``,
  ``cases.negative_weight_cases()``, ``cases.GraphCase``, ``cases.backend_kw(name)``.
"""

from __future__ import annotations

import types
from typing import NamedTuple

import numpy as np
import pytest


class GraphCase(NamedTuple):
    name: str
    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    n: int
    directed: bool

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    @property
    def m(self) -> int:
        return int(self.src.size)


# ---------------------------------------------------------------------------------------------
# building blocks (NumPy only)


def _ids(a):
    return np.asarray(a, dtype=np.int64).reshape(-1)


def _weights(rng, m, kind):
    """Random weights: kind in None, "float64", "float32", "int32", "zeros" (some 0s)."""
    if kind is None:
        return None
    if kind == "float64":
        return rng.uniform(0.5, 10.0, m)
    if kind == "float32":
        return rng.uniform(0.5, 10.0, m).astype(np.float32)
    if kind == "int32":
        return rng.integers(1, 64, m).astype(np.int32)
    if kind == "zeros":  # float64 with about a third of the weights exactly 0
        w = rng.integers(0, 4, m).astype(np.float64)
        w[rng.random(m) < 0.3] = 0.0
        return w
    raise ValueError(kind)


def _rmat(rng, scale, edge_factor, a=0.57, b=0.19, c=0.19):
    n = 1 << scale
    m = n * edge_factor
    src = np.zeros(m, np.int64)
    dst = np.zeros(m, np.int64)
    for bit in range(scale):
        r = rng.random(m)
        right = (r >= a) & (r < a + b) | (r >= a + b + c)
        down = r >= a + b
        src |= down.astype(np.int64) << bit
        dst |= right.astype(np.int64) << bit
    perm = rng.permutation(n)
    return perm[src], perm[dst], n  # keeps self-loops and duplicates on purpose


def _er(rng, n, m):
    return rng.integers(0, n, m), rng.integers(0, n, m)


def _grid(rows, cols):
    idx = np.arange(rows * cols).reshape(rows, cols)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    d = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return s, d, rows * cols


def _path(n):
    return np.arange(n - 1), np.arange(1, n), n


def _star(n):
    return np.zeros(n - 1, np.int64), np.arange(1, n), n


def _complete(n, directed):
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    keep = (i != j) if directed else (i < j)
    return i[keep], j[keep], n


def _union(parts, n_isolated, rng):
    """Disjoint union of (src, dst, n) parts plus isolated vertices, ids randomly permuted."""
    srcs, dsts, off = [], [], 0
    for s, d, k in parts:
        srcs.append(_ids(s) + off)
        dsts.append(_ids(d) + off)
        off += k
    n = off + n_isolated
    perm = rng.permutation(n)
    return perm[np.concatenate(srcs)], perm[np.concatenate(dsts)], n


def _case(name, s, d, n, directed, rng, wkind):
    s, d = _ids(s), _ids(d)
    return GraphCase(name, s, d, _weights(rng, s.size, wkind), int(n), bool(directed))


def _with_loops_and_dups(rng, s, d, n, loops=3, dups=5):
    s, d = _ids(s), _ids(d)
    if n == 0:
        return s, d
    lv = rng.integers(0, n, loops)
    if s.size:
        pick = rng.integers(0, s.size, dups)
        s = np.concatenate([s, lv, s[pick]])
        d = np.concatenate([d, lv, d[pick]])
    else:
        s, d = np.concatenate([s, lv]), np.concatenate([d, lv])
    return s, d


def _build_cases():
    rng = np.random.default_rng(20261121)
    out = []

    def add(name, s, d, n, directed, wkind=None):
        out.append(_case(name, s, d, n, directed, rng, wkind))

    e = np.zeros(0, np.int64)
    # trivial graphs
    add("empty-undirected", e, e, 0, False)
    add("empty-directed", e, e, 0, True, "float64")
    add("one-vertex", e, e, 1, False)
    add("one-vertex-loop", [0], [0], 1, True, "float64")
    add("two-isolated", e, e, 2, False, "float64")
    add("one-edge-directed", [1], [0], 2, True)
    # structured
    for directed in (False, True):
        tag = "directed" if directed else "undirected"
        add(f"path-{tag}", *_path(9), directed, "float64")
        add(f"path-{tag}-unweighted", *_path(6), directed)
        add(f"star-{tag}", *_star(10), directed, "int32")
        add(f"complete-{tag}", *_complete(6, directed), directed, "float64")
    s, d, n = _star(8)
    add("star-directed-inward", d, s, n, True)
    add("grid-5x6", *_grid(5, 6), False, "float64")
    add("grid-7x3-unweighted", *_grid(7, 3), False)
    add("grid-4x4-float32", *_grid(4, 4), False, "float32")
    add("grid-6x5-zero-weights", *_grid(6, 5), False, "zeros")
    # Erdos-Renyi, sparse to dense
    for i, (n, m, directed, wkind) in enumerate([
            (30, 45, False, "float64"), (40, 120, True, "float64"), (50, 30, True, None),
            (25, 150, False, "int32"), (60, 90, False, None), (45, 200, True, "float32"),
            (35, 60, True, "zeros"), (80, 160, False, "float64"), (20, 10, False, None),
            (64, 320, True, None)]):
        s, d = _er(rng, n, m)
        add(f"er-{i}-n{n}-m{m}-{'d' if directed else 'u'}", s, d, n, directed, wkind)
    # R-MAT, keeping self-loops and duplicates
    for i, (scale, ef, directed, wkind) in enumerate([
            (5, 4, False, "float64"), (6, 4, True, "float64"), (6, 8, False, None),
            (5, 8, True, "int32"), (7, 2, False, "zeros"), (7, 4, True, None)]):
        s, d, n = _rmat(rng, scale, ef)
        add(f"rmat-{i}-s{scale}-e{ef}-{'d' if directed else 'u'}", s, d, n, directed, wkind)
    # several components + isolated vertices, self-loops and duplicate edges of other weights
    for i, directed in enumerate((False, True, False, True)):
        parts = [_path(5), _star(6), _grid(3, 3), (*_er(rng, 12, 20), 12)]
        if i >= 2:
            parts.append(_complete(4, directed))
        s, d, n = _union(parts, 4 + i, rng)
        s, d = _with_loops_and_dups(rng, s, d, n)
        add(f"components-{i}-{'d' if directed else 'u'}", s, d, n, directed,
            ["float64", None, "zeros", "float64"][i])
    for i, directed in enumerate((False, True)):
        s, d = _er(rng, 40, 70)
        s, d = _with_loops_and_dups(rng, s, d, 40, loops=6, dups=15)
        add(f"loops-dups-{'d' if directed else 'u'}", s, d, 40, directed, "float64")
    # a few medium graphs (direction switching in BFS, many supersteps in SSSP)
    s, d, n = _rmat(rng, 9, 8)
    add("rmat-medium-s9-u", s, d, n, False, "float64")
    s, d, n = _rmat(rng, 8, 6)
    add("rmat-medium-s8-d", s, d, n, True, "int32")
    add("grid-medium-20x25", *_grid(20, 25), False, "float64")
    s, d = _er(rng, 300, 900)
    add("er-medium-n300-d", s, d, 300, True, None)
    return out


_CASES = None


def graph_cases(*, weighted=None, directed=None, max_n=None, min_n=None, max_m=None):
    """The shared cases, filtered.

    Parameters
    ----------
    weighted, directed : bool or None
        Keep only (un)weighted / (un)directed cases (None: both).
    max_n, min_n : int or None
        Bounds on the number of vertices.
    max_m : int or None
        Bound on the number of listed edges.
    """
    global _CASES
    if _CASES is None:
        _CASES = _build_cases()
    out = []
    for c in _CASES:
        if weighted is not None and c.weighted != weighted:
            continue
        if directed is not None and c.directed != directed:
            continue
        if max_n is not None and c.n > max_n:
            continue
        if min_n is not None and c.n < min_n:
            continue
        if max_m is not None and c.m > max_m:
            continue
        out.append(c)
    return out


def negative_weight_cases():
    """Directed graphs with some negative weights and no negative cycle (name, ..., directed).

    Built as a random DAG (edges from lower to higher rank, any weight in [-5, 10]) plus
    back edges whose weight is large enough that no cycle is negative.
    """
    rng = np.random.default_rng(7)
    out = []
    for i, (n, m) in enumerate([(10, 20), (30, 80), (60, 150), (25, 40)]):
        rank = rng.permutation(n)
        a, b = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = a != b
        a, b = a[keep], b[keep]
        fwd = rank[a] < rank[b]
        s = np.where(fwd, a, b)
        d = np.where(fwd, b, a)
        w = rng.uniform(-5.0, 10.0, s.size)
        # back edges: weight >= 5 * n makes every cycle positive (a forward path is >= -5 (n-1))
        nb = max(1, s.size // 5)
        bs, bd = d[:nb], s[:nb]
        bw = rng.uniform(5.0 * n, 6.0 * n, nb)
        out.append(GraphCase(f"negative-{i}-n{n}", np.concatenate([s, bs]), np.concatenate([d, bd]),
                             np.concatenate([w, bw]), n, True))
    return out


def negative_cycle_case():
    """A directed graph whose cycle 1 -> 2 -> 3 -> 1 (weight -1) is reachable from 0."""
    s = np.array([0, 1, 2, 3, 3, 4])
    d = np.array([1, 2, 3, 1, 4, 5])
    w = np.array([1.0, 2.0, -4.0, 1.0, 1.0, 1.0])
    return GraphCase("negative-cycle", s, d, w, 6, True)


# ---------------------------------------------------------------------------------------------
# conversions


def directed_edges(case: GraphCase, combine="min"):
    """(src, dst, weights) of the directed edges (both directions of an undirected edge, a
    self-loop once) with repeated edges combined by ``combine`` (``"min"``, ``"max"``,
    ``"first"`` or ``None`` = keep them all).  Weights are float64 (1.0 when unweighted)."""
    s, d = case.src, case.dst
    w = np.ones(s.size) if case.weights is None else case.weights.astype(np.float64)
    if not case.directed:
        off = s != d
        s, d, w = np.concatenate([s, d[off]]), np.concatenate([d, s[off]]), np.concatenate([w, w[off]])
    if combine is None or s.size == 0:
        return s, d, w
    key = s * max(case.n, 1) + d
    order = np.lexsort((w if combine == "min" else (-w if combine == "max" else np.arange(s.size)), key))
    key, s, d, w = key[order], s[order], d[order], w[order]
    first = np.r_[True, key[1:] != key[:-1]]
    return s[first], d[first], w[first]


def to_scipy(case: GraphCase, combine="min", unweighted=False):
    """``scipy.sparse.csr_array`` of the case (explicit zero weights stay stored entries)."""
    import scipy.sparse as sp

    s, d, w = directed_edges(case, combine)
    if unweighted:
        w = np.ones(s.size)
    A = sp.csr_array((w, (s, d)), shape=(case.n, case.n))
    A.sort_indices()
    return A


def to_networkx(case: GraphCase, combine="min"):
    """A networkx ``Graph``/``DiGraph`` of the case (weights in ``"weight"`` when weighted)."""
    import networkx as nx

    H = nx.DiGraph() if case.directed else nx.Graph()
    H.add_nodes_from(range(case.n))
    s, d, w = directed_edges(case, combine)
    if case.weighted:
        H.add_weighted_edges_from(zip(s.tolist(), d.tolist(), w.tolist()))
    else:
        H.add_edges_from(zip(s.tolist(), d.tolist()))
    return H


def to_graph(case: GraphCase, backend="cpu", duplicates="min"):
    """An ``hpgraph.Graph`` of the case, on the host (``backend="cpu"``) or the device."""
    from hpgraph.graph import Graph

    g = Graph.from_edges(case.src, case.dst, weights=case.weights, num_vertices=case.n,
                         directed=case.directed, duplicates=duplicates, backend="cpu")
    return g.to_device() if backend == "gpu" else g


def backend_kw(backend_name):
    """``{"backend": backend_name}``: the argument the algorithms take."""
    return {"backend": backend_name}


def host(a):
    """A NumPy copy of a NumPy or CuPy array (or pass-through for None / scalars)."""
    if a is None:
        return None
    if hasattr(a, "__cuda_array_interface__"):
        import cupy

        return cupy.asnumpy(a)
    return np.asarray(a)


def case_id(case: GraphCase) -> str:
    return case.name


# ---------------------------------------------------------------------------------------------
# pytest plumbing


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "cases(weighted=None, directed=None, max_n=None, min_n=None, max_m=None): "
                   "filter the shared graph cases a `graph_case` argument is parametrized over")


def pytest_generate_tests(metafunc):
    if "graph_case" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("cases")
        kw = dict(marker.kwargs) if marker is not None else {}
        cs = graph_cases(**kw)
        metafunc.parametrize("graph_case", cs, ids=[c.name for c in cs])



# ---------------------------------------------------------------------------------------------
# SSSP checks shared by test_sssp.py, test_sssp_nearfar.py and test_sssp_gpu.py


def sssp_reference(case: GraphCase, sources, method="D"):
    """scipy.sparse.csgraph distances from the nearest of ``sources`` (repeated edges keep the
    minimum weight, as the Graph does)."""
    import scipy.sparse.csgraph as csg

    d = csg.shortest_path(to_scipy(case), method=method, directed=True,
                          indices=np.atleast_1d(sources))
    return d.min(axis=0)


def check_sssp(case: GraphCase, res, sources, method="D"):
    """Distances equal scipy's (dtype float32 for float32/unweighted cases, else float64);
    predecessors, when present, are tight edges forming a tree rooted at the sources."""
    dist, pred = host(res.distance), host(res.predecessor)
    n = case.n
    want = np.float32 if (case.weights is None or case.weights.dtype == np.float32) else np.float64
    assert dist.dtype == want and dist.shape == (n,)
    ref = sssp_reference(case, sources, method)
    np.testing.assert_array_equal(np.isinf(dist), np.isinf(ref))
    fin = np.isfinite(ref)
    tol = dict(rtol=1e-5, atol=1e-4) if want == np.float32 else dict(rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(dist[fin], ref[fin], **tol)
    if pred is not None:
        assert pred.shape == (n,) and pred.dtype in (np.int32, np.int64)
        check_sssp_tree(case, dist, pred, sources)


def check_sssp_tree(case: GraphCase, dist, pred, sources):
    """-1 at the sources and where unreachable; elsewhere an existing tight edge, and the
    pointers lead back to a source (no cycle)."""
    n = case.n
    src = np.unique(sources)
    fin = np.isfinite(dist)
    assert np.all(pred[src] == -1) and np.all(pred[~fin] == -1)
    others = np.flatnonzero(fin)
    others = others[~np.isin(others, src)]
    p = pred[others].astype(np.int64)
    assert np.all(p >= 0), "reachable vertex without predecessor"
    s, d, w = directed_edges(case)
    key = s * n + d
    order = np.argsort(key)
    pos = order[np.searchsorted(key[order], p * n + others)]
    assert np.array_equal(key[pos], p * n + others), "predecessor edge does not exist"
    rtol = 1e-5 if dist.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(dist[p] + w[pos], dist[others], rtol=rtol, atol=1e-4)
    jump = pred.astype(np.int64).copy()  # pointer doubling: jump = pred^(2^k)
    for _ in range(int(np.ceil(np.log2(max(n, 2)))) + 1):
        nxt = np.where(jump >= 0, jump[np.maximum(jump, 0)], -1)
        jump = np.where((jump >= 0) & (nxt >= 0), nxt, jump)
    assert np.all(np.isin(jump[others], src)), "predecessors do not lead back to a source"


def check_bfs_matrix(res, A, n, sources):
    """BFS result against scipy on the pattern ``A`` (scipy CSR): depths equal scipy's, every
    parent is one level up along a stored edge, ``parent[s] == s`` at the sources."""
    import scipy.sparse.csgraph as csg

    ref = csg.shortest_path(A, directed=True, unweighted=True, indices=sources)
    ref = np.atleast_2d(ref).min(axis=0)
    ref = np.where(np.isinf(ref), -1, ref).astype(np.int64)
    depth = host(res.depth)
    parent = host(res.parent).astype(np.int64)
    assert depth.dtype == np.int32
    np.testing.assert_array_equal(depth, ref)
    np.testing.assert_array_equal(parent[sources], sources)
    assert np.array_equal(parent == -1, depth == -1)
    v = np.flatnonzero(depth > 0)
    np.testing.assert_array_equal(depth[parent[v]], depth[v] - 1)
    r, c = A.nonzero()
    assert np.isin(parent[v] * n + v, r.astype(np.int64) * n + c).all(), "parent -> v is not an edge"

_NS = types.SimpleNamespace(
    GraphCase=GraphCase, graph_cases=graph_cases, negative_weight_cases=negative_weight_cases,
    negative_cycle_case=negative_cycle_case, directed_edges=directed_edges, to_scipy=to_scipy,
    to_networkx=to_networkx, to_graph=to_graph, backend_kw=backend_kw, host=host, case_id=case_id,
    sssp_reference=sssp_reference, check_sssp=check_sssp, check_sssp_tree=check_sssp_tree,
    check_bfs_matrix=check_bfs_matrix)


@pytest.fixture(scope="session")
def cases():
    """The helper namespace of ``tests/algorithms/conftest.py`` (see its docstring)."""
    return _NS
