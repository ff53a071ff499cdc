"""The optional ``mask(v)`` callback against plain-Python references, on both backends.

``mask(v)`` false means ``v`` receives nothing in that superstep (``y`` = identity), judged on
the properties at the superstep's start, in push and pull alike.  The programs here make the
mask visible in the results (their ``update`` does not ignore rejected vertices), on random
graphs with self-loops, duplicate edges, isolated vertices and several components, for every
gather side and direction.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidProgram, UnsupportedSyntax

DIRECTIONS = ("auto", "push", "pull")


class MaskedCount(hp.VertexProgram):
    """x moves by the sum of active neighbours' x + edge; vertices with x % 3 == 1 hear
    nothing.  ``plus`` over int64: exact on every backend and direction."""

    properties = {"x": "int64", "c": "int64"}
    reduce = "plus"
    edge_dtype = "int64"
    max_iterations = 5

    def init(self, graph, x0=None, active=None):
        return {"x": x0}, active

    def mask(v):
        return v.x % 3 != 1

    def gather(src, edge, dst):
        return src.x + edge + 1

    def update(v, y):
        return {"x": (v.x + y) % 7, "c": v.c + y}


class MaskedCountOut(MaskedCount):
    edges = "out"


class MaskedCountFew(MaskedCount):
    """Only vertices with x % 7 == 0 hear anything: few receivers, whose rows a pull reads
    by range instead of testing every entry (the CPU engine's two pull paths)."""

    def mask(v):
        return v.x % 7 == 0


class MaskedCountAll(MaskedCount):
    edges = "all"


class BlockedSSSP(hp.VertexProgram):
    """SSSP where vertices with ``blocked`` set never receive (``min``, atomics when pushed)."""

    properties = {"dist": ("float64", np.inf), "blocked": "bool"}
    reduce = "min"
    apply_to = "received"

    def init(self, graph, source=0, blocked=None):
        dist = np.full(graph.num_vertices, np.inf)
        dist[source] = 0
        return {"dist": dist, "blocked": blocked}, [source]

    def mask(self, v):
        return not v.blocked and v.dist > self.floor

    floor = -1.0

    def gather(src, edge, dst):
        return src.dist + edge

    def update(v, y):
        return {"dist": min(v.dist, y)}


def _random_case(seed, n=40, m=150, directed=True):
    rng = np.random.default_rng(seed)
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    s[:4] = d[:4]                                  # self-loops
    s[4:8], d[4:8] = s[8:12], d[8:12]              # duplicate edges
    s[:30] = np.where(rng.random(30) < 0.5, 0, s[:30])   # a hub (HYB COO tail)
    w = rng.integers(0, 5, m).astype(np.float32)   # zero weights included
    G = hp.Graph.from_edges(s, d, w, num_vertices=n + 4, directed=directed)  # 4 isolated
    return G, rng


def _entries(G):
    """(u, v, w) of every stored directed entry of A (duplicates kept)."""
    A = G.to_host().A
    ip, ix = np.asarray(A.indptr), np.asarray(A.indices)
    vals = np.asarray(A.values) if A.values is not None else np.ones(ix.size)
    rows = np.repeat(np.arange(ip.size - 1), np.diff(ip))
    return list(zip(rows.tolist(), ix.tolist(), vals.tolist()))


def ref_masked_count(G, edges, x0, active, max_it=5, hears=lambda xv: xv % 3 != 1):
    """Plain Python: receiver/sender pairs per the gather side, mask (``hears``) at
    superstep start."""
    n = G.num_vertices
    ent = _entries(G)
    pairs = []                                    # (receiver, sender, weight)
    if edges in ("in", "all"):
        pairs += [(v, u, int(w)) for u, v, w in ent]
    if edges in ("out", "all"):
        pairs += [(u, v, int(w)) for u, v, w in ent]
    x = [int(a) for a in x0]
    c = [0] * n
    act = set(int(a) for a in active)
    steps = 0
    while act and steps < max_it:
        ok = [hears(xv) for xv in x]
        y = [0] * n
        for r, snd, w in pairs:
            if snd in act and ok[r]:
                y[r] += x[snd] + w + 1
        nx = [(x[v] + y[v]) % 7 for v in range(n)]
        nc = [c[v] + y[v] for v in range(n)]
        act = {v for v in range(n) if nx[v] != x[v] or nc[v] != c[v]}
        x, c = nx, nc
        steps += 1
    return np.array(x), np.array(c), steps


def ref_blocked_sssp(G, source, blocked):
    n = G.num_vertices
    adj = [[] for _ in range(n)]
    for u, v, w in _entries(G):
        adj[u].append((v, w))
    dist = [np.inf] * n
    dist[source] = 0.0
    pq = [(0.0, source)]
    while pq:
        d, u = heapq.heappop(pq)
        if d > dist[u]:
            continue
        for v, w in adj[u]:
            if blocked[v]:
                continue
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(pq, (dist[v], v))
    return np.array(dist)


def _host(a):
    return np.asarray(hp.backend.to_host(a))


def _graph_on(G, backend_name):
    return G.to_device() if backend_name == "gpu" else G


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("prog,edges", [(MaskedCount, "in"), (MaskedCountOut, "out"),
                                        (MaskedCountAll, "all")], ids=["in", "out", "all"])
def test_masked_count_matches_reference(prog, edges, direction, backend_name):
    for seed in range(6):
        G, rng = _random_case(seed, directed=seed % 2 == 0)
        n = G.num_vertices
        x0 = rng.integers(0, 7, n)
        active = np.flatnonzero(rng.random(n) < 0.4)
        x, c, steps = ref_masked_count(G, edges, x0, active)
        r = hp.run(prog, _graph_on(G, backend_name), backend=backend_name, direction=direction,
                   x0=x0, active=active)
        np.testing.assert_array_equal(_host(r.x), x)
        np.testing.assert_array_equal(_host(r.c), c)
        assert r.supersteps == steps


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_few_receivers_match_reference(direction, backend_name):
    for seed in range(6):
        G, rng = _random_case(50 + seed, directed=seed % 2 == 0)
        n = G.num_vertices
        x0 = rng.integers(0, 7, n)
        active = np.flatnonzero(rng.random(n) < 0.6)
        x, c, steps = ref_masked_count(G, "in", x0, active, hears=lambda xv: xv % 7 == 0)
        r = hp.run(MaskedCountFew, _graph_on(G, backend_name), backend=backend_name,
                   direction=direction, x0=x0, active=active)
        np.testing.assert_array_equal(_host(r.x), x)
        np.testing.assert_array_equal(_host(r.c), c)
        assert r.supersteps == steps


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_blocked_sssp_matches_dijkstra(direction, backend_name):
    for seed in range(6):
        G, rng = _random_case(100 + seed, directed=seed % 2 == 1)
        n = G.num_vertices
        blocked = rng.random(n) < 0.25
        blocked[0] = False
        ref = ref_blocked_sssp(G, 0, blocked)
        r = hp.run(BlockedSSSP, _graph_on(G, backend_name), backend=backend_name,
                   direction=direction, source=0, blocked=blocked)
        np.testing.assert_array_equal(_host(r.dist), ref)


def ref_floor_sssp(G, source, floor):
    """Plain-Python Bellman-Ford supersteps where v receives only while dist[v] > floor (the
    mask reads the distances of the superstep's start)."""
    n = G.num_vertices
    ent = _entries(G)
    dist = [np.inf] * n
    dist[source] = 0.0
    act = {source}
    while act:
        ok = [d > floor for d in dist]
        y = [np.inf] * n
        for u, v, w in ent:
            if u in act and ok[v]:
                y[v] = min(y[v], dist[u] + w)
        new = [min(dist[v], y[v]) for v in range(n)]
        act = {v for v in range(n) if new[v] != dist[v]}
        dist = new
    return np.array(dist)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_mask_reads_self_constants(direction, backend_name):
    class Floor(BlockedSSSP):
        floor = 3.0            # a vertex once at distance <= 3 hears nothing more

    for seed in range(4):
        G, rng = _random_case(200 + seed)
        G2 = _graph_on(G, backend_name)
        blocked = np.zeros(G.num_vertices, bool)
        r = hp.run(Floor, G2, backend=backend_name, direction=direction, source=0,
                   blocked=blocked)
        np.testing.assert_array_equal(_host(r.dist), ref_floor_sssp(G, 0, 3.0))
        # the constant is part of the compiled code: the unmasked program is a plain SSSP
        r = hp.run(BlockedSSSP, G2, backend=backend_name, direction=direction, source=0,
                   blocked=blocked)
        np.testing.assert_array_equal(_host(r.dist), ref_blocked_sssp(G, 0, blocked))


def test_mask_on_empty_and_edgeless_graphs(backend_name):
    G = hp.Graph.from_edges([], [], num_vertices=5)
    r = hp.run(BlockedSSSP, _graph_on(G, backend_name), backend=backend_name, source=2,
               blocked=np.zeros(5, bool))
    d = _host(r.dist)
    assert d[2] == 0 and np.isinf(np.delete(d, 2)).all()


def test_mask_errors():
    with pytest.raises(InvalidProgram):
        class TwoArgs(hp.VertexProgram):  # noqa: F841
            properties = {"x": "int32"}
            reduce = "min"

            def mask(v, w):
                return True

            def gather(src, edge, dst):
                return src.x

            def update(v, y):
                return y

    class DictMask(hp.VertexProgram):
        properties = {"x": "int32"}
        reduce = "min"

        def mask(v):
            return {"x": v.x}

        def gather(src, edge, dst):
            return src.x

        def update(v, y):
            return y

    G = hp.Graph.from_edges([0], [1], num_vertices=2)
    with pytest.raises(InvalidProgram):
        hp.run(DictMask, G, backend="cpu")

    class BadSyntax(hp.VertexProgram):
        properties = {"x": "int32"}
        reduce = "min"

        def mask(v):
            return [v.x]

        def gather(src, edge, dst):
            return src.x

        def update(v, y):
            return y

    with pytest.raises(UnsupportedSyntax):
        hp.run(BadSyntax, G, backend="cpu")


def test_mask_compiles_with_nvrtc():
    from hpgraph import backend, program
    from hpgraph.engine import codegen
    from hpgraph.exceptions import DeviceUnavailable

    try:
        backend.compile_ptx('extern "C" __global__ void k(int* a) { a[0] = 1; }', "probe.cu")
    except DeviceUnavailable as exc:
        pytest.skip(f"NVRTC unavailable: {exc}")
    G, rng = _random_case(1)
    n = G.num_vertices
    for prog, params in ((MaskedCountAll, {}), (BlockedSSSP, {"blocked": np.zeros(n, bool)})):
        bp = program.bind(prog, G, params)
        src = codegen.program_source(bp, np.dtype(np.int32))
        assert "#define HP_HAS_MASK 1" in src
        ptx = backend.compile_ptx(src, "mask.cu")
        for k in codegen.KERNELS:
            assert k in ptx

