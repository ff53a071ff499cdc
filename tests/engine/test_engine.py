"""Vertex programs on both backends against independent references (plain Python, SciPy).

Each program runs on every graph case of ``conftest.py`` (self-loops, duplicate edges,
isolated vertices, several components, zero weights, empty graphs) through ``backend_name``
(the GPU variant carries the ``gpu`` marker); forced push, forced pull and auto must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue

from examples.bfs import UNREACHED, BFSDepth
from examples.out_degree import OutDegree, WeightedOutDegree
from examples.pagerank import PageRank, pagerank_reference
from examples.sssp import SSSP
from examples.widest_path import MinLabelBelow, WidestPath, min_label_below_reference

DIRECTIONS = ("auto", "push", "pull")


def _source(case):
    return 0 if case[1] > 0 else None


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_sssp(case, backend_name, direction, refs):
    G = refs.build(case, backend_name)
    if G.num_vertices == 0:
        return
    r = hp.run(SSSP, G, source=0, backend=backend_name, direction=direction)
    ref = refs.sssp(G.num_vertices, refs.edge_list(G), 0)
    got = refs.host(r.dist)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, ref.astype(np.float32))
    assert r.backend == backend_name
    assert r.supersteps == len(r.active) == len(r.directions)
    if direction != "auto":
        assert set(r.directions) <= {direction}
    assert r.converged


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_bfs_depth(case, backend_name, direction, refs):
    G = refs.build(case, backend_name)
    r = hp.run(BFSDepth, G, source=0, backend=backend_name, direction=direction)
    got = refs.host(r.depth).astype(np.int64)
    got[got == UNREACHED] = -1
    ref = refs.bfs(G.num_vertices, refs.edge_list(G), 0)
    np.testing.assert_array_equal(got, ref)
    # BFS: superstep t has exactly the vertices of depth t active
    levels = [int(np.sum(ref == t)) for t in range(int(ref.max()) + 1)]
    assert r.active == levels


def test_out_degree(case, backend_name, refs):
    G = refs.build(case, backend_name)
    r = hp.run(OutDegree, G, backend=backend_name)
    deg = np.zeros(G.num_vertices, np.int64)
    for u, _, _ in refs.edge_list(G):
        deg[u] += 1
    np.testing.assert_array_equal(refs.host(r.degree), deg)
    assert r.supersteps == (1 if G.num_vertices else 0)
    assert not r.converged or G.num_vertices == 0 or not deg.any()


def test_weighted_out_degree(case, backend_name, refs):
    G = refs.build(case, backend_name)
    r = hp.run(WeightedOutDegree, G, backend=backend_name, direction="pull")
    deg = np.zeros(G.num_vertices)
    for u, _, w in refs.edge_list(G):
        deg[u] += w
    np.testing.assert_allclose(refs.host(r.degree), deg, rtol=1e-12)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_widest_path_user_monoid(case, backend_name, direction, refs):
    G = refs.build(case, backend_name)
    if G.num_vertices == 0:
        return
    r = hp.run(WidestPath, G, source=0, backend=backend_name, direction=direction)
    ref = refs.widest(G.num_vertices, refs.edge_list(G), 0)
    np.testing.assert_array_equal(refs.host(r.width), ref)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gather_reads_both_endpoints(case, backend_name, direction, refs):
    G = refs.build(case, backend_name)
    n = G.num_vertices
    rank = np.random.default_rng(7).permutation(n)
    r = hp.run(MinLabelBelow, G, ranks=rank, backend=backend_name, direction=direction)
    el = refs.edge_list(G)
    ref = min_label_below_reference(n, [e[0] for e in el], [e[1] for e in el], rank)
    np.testing.assert_array_equal(refs.host(r.label), ref)
    np.testing.assert_array_equal(refs.host(r.rank), rank)


def test_pagerank_tolerance(case, backend_name, refs):
    G = refs.build(case, backend_name)
    r = hp.run(PageRank(damping=0.85), G, backend=backend_name)
    ref = pagerank_reference(G.to_host().to_scipy() if G.num_vertices else
                             np.zeros((0, 0)), 0.85)
    np.testing.assert_allclose(refs.host(r.rank), ref, atol=1e-8, rtol=0)
    assert r.converged
    assert set(r.directions) <= {"pull"}
    with pytest.raises(InvalidValue, match="gather_from"):
        hp.run(PageRank, G, backend=backend_name, direction="push")


def test_pagerank_max_iterations(refs, backend_name):
    G = refs.build(refs.cases[0], backend_name)
    r = hp.run(PageRank, G, backend=backend_name, max_iterations=3)
    assert r.supersteps == 3 and not r.converged


class _Hops(hp.VertexProgram):
    """Out-edges, an int8 property, self constants, apply_to='all' and a converged hook."""

    edges = "out"
    properties = {"hops": ("int16", -1), "seen": ("bool", False)}
    reduce = "max"
    limit = 5

    def init(self, graph, target=0):
        hops = np.full(graph.num_vertices, -1, np.int16)
        seen = np.zeros(graph.num_vertices, bool)
        if graph.num_vertices:
            hops[target] = 0
            seen[target] = True
        self.calls = 0
        return {"hops": hops, "seen": seen}, ([target] if graph.num_vertices else [])

    def gather(self, src, edge, dst):
        return src.hops + 1 if src.seen and src.hops < self.limit else -1

    def update(v, y):
        fresh = (not v.seen) and y >= 0
        return {"hops": y if fresh else v.hops, "seen": v.seen or y >= 0}

    def converged(self, stats):
        self.calls += 1
        return False


def test_out_edges_self_constants_hook(case, backend_name, refs):
    G = refs.build(case, backend_name)
    n = G.num_vertices
    prog = _Hops()
    if n == 0:
        return
    r = hp.run(prog, G, target=0, backend=backend_name)
    # reference: BFS on the reversed graph from vertex 0, capped at limit hops
    el = [(v, u, w) for u, v, w in refs.edge_list(G)]
    ref = refs.bfs(n, el, 0)
    ref[ref > _Hops.limit] = -1
    np.testing.assert_array_equal(refs.host(r.hops).astype(np.int64), ref)
    np.testing.assert_array_equal(refs.host(r.seen), ref >= 0)
    assert prog.calls == r.supersteps
    assert r.properties["hops"].dtype == np.int16


def test_push_pull_identical_on_cpu(refs):
    # on the CPU both directions reduce in the same order: identical floats, sums included
    G = refs.build(refs.cases[0])

    class Sum(hp.VertexProgram):
        properties = {"x": "float64"}
        reduce = "plus"
        max_iterations = 4

        def init(self, graph):
            return {"x": np.linspace(0.1, 1.7, graph.num_vertices)}

        def gather(src, edge, dst):
            return src.x * 0.3 + edge * 0.01

        def update(v, y):
            return y

    a = hp.run(Sum, G, backend="cpu", direction="push")
    b = hp.run(Sum, G, backend="cpu", direction="pull")
    np.testing.assert_array_equal(a.x, b.x)
    assert a.directions == ["push"] * 4 and b.directions == ["pull"] * 4


def test_max_iterations_and_stats(refs, backend_name):
    case = [c for c in refs.cases if c[0] == "zero_path"][0]
    G = refs.build(case, backend_name)
    r = hp.run(BFSDepth, G, source=0, backend=backend_name, max_iterations=5)
    assert r.supersteps == 5 and not r.converged
    d = refs.host(r.depth)
    assert list(d[:6]) == [0, 1, 2, 3, 4, 5] and d[6] == UNREACHED
    assert r.active == [1] * 5
    assert r.frontier_edges == [1] * 5
    r0 = hp.run(BFSDepth, G, source=0, backend=backend_name, max_iterations=0)
    assert r0.supersteps == 0 and not r0.converged


def test_result_side(refs, backend_name):
    G = refs.build(refs.cases[0], "cpu")
    r = hp.run(SSSP, G, backend=backend_name)
    assert hp.backend.is_device_array(r.dist) == (backend_name == "gpu")
    assert isinstance(r.to_host().dist, np.ndarray)
    assert "supersteps" in repr(r)


def test_sssp_matches_scipy_csgraph(backend_name, refs):
    import scipy.sparse.csgraph as csg

    from examples.sssp import SSSP64

    for case in refs.cases:
        G = refs.build(case, backend_name)
        if G.num_vertices == 0 or not G.weighted:
            continue
        for s in (0, G.num_vertices - 1):
            r = hp.run(SSSP64, G, source=s, backend=backend_name)
            ref = csg.dijkstra(G.to_host().to_scipy(), indices=s)
            np.testing.assert_allclose(refs.host(r.dist), ref, rtol=1e-12)
            bfs_order = csg.breadth_first_order(G.to_host().to_scipy(), s,
                                                return_predecessors=False)
            reached = np.isfinite(refs.host(r.dist))
            assert set(np.flatnonzero(reached)) == set(bfs_order.tolist())


class _ReachAny(hp.VertexProgram):
    """Reachability with the ``any`` monoid: every value is terminal, so a pull row may stop at
    its first active sender; a row must not be skipped before anything was found."""

    edges = "in"
    properties = {"reached": ("int32", 0)}
    reduce = "any"
    apply_to = "received"

    def init(self, graph, source=0):
        r = np.zeros(graph.num_vertices, np.int32)
        r[source] = 1
        return {"reached": r}, [source]

    def gather(src, edge, dst):
        return 1

    def update(v, y):
        return max(v.reached, y)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_any_monoid_reachability(case, backend_name, direction, refs):
    G = refs.build(case, backend_name)
    if G.num_vertices == 0:
        return
    r = hp.run(_ReachAny, G, source=0, backend=backend_name, direction=direction)
    ref = refs.bfs(G.num_vertices, refs.edge_list(G), 0) >= 0
    np.testing.assert_array_equal(refs.host(r.reached).astype(bool), ref)


def test_default_push_alpha_by_backend_and_program(monkeypatch):
    """The direction rule's constant when neither the call nor hp.config gives one: 1 on the
    GPU for programs whose pulls read every entry, 4 where `any` or a mask lets pulls skip
    work, and 4 on the CPU; hp.config's value, when set, wins."""
    from examples.bfs import BFSParents
    from hpgraph.engine import bind as _bind, common

    G = hp.generators.path(50, backend="cpu")
    sssp, depth, parents = (_bind.bind(p, G, {"source": 0}) for p in (SSSP, BFSDepth, BFSParents))
    assert [common.default_push_alpha(b, "gpu") for b in (sssp, depth, parents)] == [1.0, 1.0, 4.0]
    assert [common.default_push_alpha(b, "cpu") for b in (sssp, depth, parents)] == [4.0] * 3
    seen = []
    real = common.choose_push

    def spy(fe, pe, n, alpha):
        seen.append(alpha)
        return real(fe, pe, n, alpha)

    monkeypatch.setattr(common, "choose_push", spy)
    hp.run(SSSP, G, backend="cpu", source=0)
    assert set(seen) == {4.0}
    seen.clear()
    with hp.config.set(push_alpha=2.5):
        hp.run(SSSP, G, backend="cpu", source=0)
    assert set(seen) == {2.5}
