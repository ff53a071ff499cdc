"""GPU-only engine tests: GPU == CPU on larger graphs, blind batches, CUDA graphs, syncs.

These exercise what the small cases cannot: many supersteps (blind batches of push
supersteps, replayed as CUDA graphs), frontiers that grow past the push threshold inside a
blind batch (device-side abort, then pull), HYB COO tails (hubs), and both gather sides.
"""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import kernel_cache

from examples.bfs import BFSDepth, BFSParents
from examples.out_degree import OutDegree
from examples.pagerank import PageRank
from examples.sssp import SSSP
from examples.widest_path import MinLabelBelow, WidestPath
from tests.engine._programs import Mixed

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _supersteps_as_cpu():
    """These tests compare the GPU engine with the CPU engine superstep for superstep; the
    relaxation of SSSP and BFS depths changes supersteps, not results (its GPU tests:
    ``test_relax.py``)."""
    with hp.config.set(engine_relax=False):
        yield


def _host(a):
    return np.asarray(hp.backend.to_host(a))


def _skewed(n=4000, m=40000, seed=1, directed=True):
    rng = np.random.default_rng(seed)
    # power-law-ish: a few hubs with long rows (HYB COO tail) and many short rows
    s = (rng.pareto(1.2, m) * 10).astype(np.int64) % n
    d = rng.integers(0, n, m)
    w = rng.integers(1, 65, m).astype(np.float32)
    return hp.Graph.from_edges(s, d, w, num_vertices=n, directed=directed)


def _both(prog, G, **kw):
    # one direction rule on both backends (their defaults differ: common.default_push_alpha)
    kw.setdefault("push_alpha", 4.0)
    a = hp.run(prog, G, backend="cpu", **kw)
    b = hp.run(prog, G.to_device(), backend="gpu", **kw)
    return a, b


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_sssp_skewed_gpu_equals_cpu(direction):
    G = _skewed()
    assert G.hyb("AT").coo.nnz > 0          # the COO tail kernel runs
    a, b = _both(SSSP, G, source=3, direction=direction)
    np.testing.assert_array_equal(_host(b.dist), a.dist)
    assert b.supersteps == a.supersteps
    assert b.active == a.active


def test_auto_mixes_directions_and_blind_batches_abort():
    G = _skewed(20000, 200000, seed=5, directed=False)
    a, b = _both(SSSP, G, source=0)
    np.testing.assert_array_equal(_host(b.dist), a.dist)
    assert "push" in b.directions and "pull" in b.directions
    assert b.active == a.active
    assert b.directions == a.directions       # same rule, same inputs


@pytest.mark.parametrize("small", [0, 4096], ids=["blind-batches", "block-loop"])
def test_long_path_blind_batches_and_graphs(host_loop, small):
    n = 3000
    G = hp.Graph.from_edges(np.arange(n - 1), np.arange(1, n), np.ones(n - 1, np.float32),
                            num_vertices=n, directed=False)
    with hp.config.set(engine_small_frontier=small):
        for prog, _ in ((SSSP, "dist"), (BFSDepth, "depth")):
            # the block-loop unit compiles in the background on a cold kernel cache; until it
            # is ready the host loop runs graphs, so let a first run start it and wait
            hp.run(prog, G.to_device(), source=0, backend="gpu", max_iterations=2)
        kernel_cache.wait()
        for prog, prop in ((SSSP, "dist"), (BFSDepth, "depth")):
            r = hp.run(prog, G.to_device(), source=0, backend="gpu")
            assert r.supersteps == n and r.converged and r.active == [1] * n
            np.testing.assert_array_equal(_host(getattr(r, prop)), np.arange(n))
            assert set(r.directions) == {"push"}
            assert r.syncs < n // 20           # one counter read per blind batch / block loop
            if small:
                assert r.extra["graphs"] == []  # every small superstep ran in the block loop
            else:
                assert 16 in r.extra["graphs"] or 64 in r.extra["graphs"]
        # max_iterations inside a blind batch (or a block-loop launch) stops exactly there
        r = hp.run(BFSDepth, G.to_device(), source=0, backend="gpu", max_iterations=1000)
        d = _host(r.depth)
        assert r.supersteps == 1000 and not r.converged
        assert d[1000] == 1000 and d[1001] > n


def test_block_loop_grid_and_skewed_equal_cpu(host_loop):
    """Grids (the frontier grows past the block loop's limit and shrinks back) and a skewed
    graph: the block loop and the whole-device supersteps together give the CPU's result,
    superstep by superstep."""
    for G in (hp.grid_2d(60, 60, weights=(1, 9), seed=2), _skewed(3000, 30000, seed=9,
                                                                   directed=False)):
        for small in (64, 4096):
            with hp.config.set(engine_small_frontier=small):
                a, b = _both(SSSP, G, source=0)
                np.testing.assert_array_equal(_host(b.dist), a.dist)
                assert b.active == a.active and b.directions == a.directions
                a, b = _both(BFSParents, G, source=0)
                depth, parent = _host(b.depth), _host(b.parent)
                np.testing.assert_array_equal(depth, a.depth)
                # parents may differ from the CPU's (any winner is right): each is an
                # in-neighbour one level up
                A = G.to_scipy().tocsr()
                v = np.flatnonzero(depth > 0)
                assert parent[0] == 0 and (parent[depth < 0] == -1).all()
                assert (np.asarray(A[parent[v], v]).ravel() != 0).all()
                np.testing.assert_array_equal(depth[parent[v]], depth[v] - 1)


def test_grid_bfs_and_sssp():
    G = hp.generators.grid_2d(64, 64, backend="cpu")
    for prog in (BFSDepth, SSSP):
        a, b = _both(prog, G, source=0)
        name = "depth" if prog is BFSDepth else "dist"
        np.testing.assert_array_equal(_host(getattr(b, name)), getattr(a, name))
        assert b.supersteps == a.supersteps == 127


def test_all_edges_and_user_monoid_gpu():
    G = _skewed(3000, 20000, seed=9)
    rank = np.random.default_rng(2).permutation(3000)
    for direction in ("push", "pull", "auto"):
        a, b = _both(MinLabelBelow, G, ranks=rank, direction=direction)
        np.testing.assert_array_equal(_host(b.label), a.label)
        a, b = _both(WidestPath, G, source=1, direction=direction)
        np.testing.assert_array_equal(_host(b.width), a.width)


def test_pagerank_and_out_degree_gpu():
    G = _skewed(3000, 20000, seed=4)
    a, b = _both(PageRank(), G)
    np.testing.assert_allclose(_host(b.rank), a.rank, atol=1e-12)
    assert abs(b.supersteps - a.supersteps) <= 1
    a, b = _both(OutDegree, G)
    np.testing.assert_array_equal(_host(b.degree), a.degree)
    np.testing.assert_array_equal(_host(b.degree), _host(G.out_degree))


def test_apply_all_push_gpu():
    # apply_to="all" with forced push: APPLY visits every vertex after a push superstep
    class Count(hp.VertexProgram):
        properties = {"c": "int32", "hits": "int32"}
        reduce = "plus"
        max_iterations = 6

        def init(self, graph):
            return {"c": np.arange(graph.num_vertices, dtype=np.int32) % 3}

        def gather(src, edge, dst):
            return 1 if src.c == 0 else 0

        def update(v, y):
            return {"c": (v.c + 1) % 3, "hits": v.hits + y}

    G = _skewed(2000, 10000, seed=3)
    for direction in ("push", "pull"):
        a, b = _both(Count, G, direction=direction)
        np.testing.assert_array_equal(_host(b.hits), a.hits)
        np.testing.assert_array_equal(_host(b.c), a.c)
        assert b.supersteps == 6


def test_int64_indices_gpu():
    rng = np.random.default_rng(0)
    s, d = rng.integers(0, 500, 3000), rng.integers(0, 500, 3000)
    G = hp.Graph.from_edges(s, d, rng.integers(1, 9, 3000).astype(np.float32), num_vertices=500,
                            index_dtype="int64")
    a, b = _both(SSSP, G, source=0)
    np.testing.assert_array_equal(_host(b.dist), a.dist)


def test_state_reuse_gpu_equals_cpu_and_results_never_alias():
    from hpgraph.engine import gpu_state

    G = _skewed(5000, 60000, seed=11, directed=False)
    Gd = G.to_device()
    kept = []
    for i, src in enumerate((0, 17, 0, 99, 17, 3)):
        b = hp.run(SSSP, Gd, source=src, backend="gpu")
        a = hp.run(SSSP, G, source=src, backend="cpu")
        np.testing.assert_array_equal(_host(b.dist), a.dist)
        assert b.extra["reused_state"] == (i > 0)
        kept.append((_host(b.dist).copy(), b.dist))
    for snap, arr in kept:                     # later calls never wrote earlier results
        np.testing.assert_array_equal(_host(arr), snap)
    # stopped early (bitmasks left dirty), then complete runs on the same state
    for max_it in (1, 3, None):
        b = hp.run(SSSP, Gd, source=5, backend="gpu", max_iterations=max_it)
        a = hp.run(SSSP, G, source=5, backend="cpu", max_iterations=max_it)
        np.testing.assert_array_equal(_host(b.dist), a.dist)
        assert (b.supersteps, b.active, b.converged) == (a.supersteps, a.active, a.converged)
    assert len(gpu_state._states[Gd]) == 1


def test_reused_state_replays_mixed_batches_as_graphs(host_loop):
    G = _skewed(20000, 200000, seed=5, directed=False)
    Gd = G.to_device()
    a = hp.run(BFSDepth, G, source=0, backend="cpu", push_alpha=4.0)
    outs = [hp.run(BFSDepth, Gd, source=0, backend="gpu", push_alpha=4.0) for _ in range(3)]
    for b in outs:
        np.testing.assert_array_equal(_host(b.depth), a.depth)
        assert b.active == a.active and b.directions == a.directions
    assert outs[-1].extra["mixed_graphs"]          # captured on reuse, replayed after
    assert outs[0].depth is not outs[1].depth


def test_caller_stream_sees_results():
    import cupy

    G = _skewed(3000, 30000, seed=2).to_device()
    a = hp.run(SSSP, G.to_host(), source=0, backend="cpu")
    with cupy.cuda.Stream(non_blocking=True):
        b = hp.run(SSSP, G, source=0, backend="gpu")
        got = cupy.asnumpy(b.dist)                 # on the caller's (non-default) stream
    np.testing.assert_array_equal(got, a.dist)


# ---- the setup: fused setup launch, Seeded properties, outputs, in-place reads


@pytest.fixture
def setup_mode():
    return True




@pytest.mark.parametrize("active", [[3], [0, 5, 9, 11], list(range(0, 4000, 97)), None],
                         ids=["one", "four", "many", "all"])
def test_fast_setup_props_gpu_equals_cpu(setup_mode, active):
    import cupy

    from hpgraph.program import Seeded as S

    G = _skewed(4000, 30000, seed=7, directed=False)
    Gd = G.to_device()
    n = G.num_vertices
    ro = np.random.default_rng(2).integers(0, 9, n).astype(np.int64)
    ro_d = cupy.asarray(ro)
    inits = [dict(d=S(np.inf, 0.0), lab=S(-1, "id"), b=S(False, True), ro=ro_d),
             dict(d=S(np.inf, 1.5), i8=S(-3, 9), u64=S(2**63 + 5, 1), f64=S(-0.0, 2.25), ro=ro),
             dict(d=S(np.inf, 0.0), ro=ro_d.astype(np.int32)),
             dict(d=cupy.asarray(np.where(ro > 6, 0.0, np.inf).astype(np.float32)), lab=7,
                  ro=ro_d)]
    for kw in inits:
        host_kw = {k: (cupy.asnumpy(v) if isinstance(v, cupy.ndarray) else v)
                   for k, v in kw.items()}
        a = hp.run(Mixed, G, backend="cpu", active=active, **host_kw)
        for _ in range(3):
            b = hp.run(Mixed, Gd, backend="gpu", active=active, **kw)
            for p in Mixed.properties:
                np.testing.assert_array_equal(_host(b.properties[p]), a.properties[p],
                                              err_msg=p)
            assert b.active == a.active
            np.testing.assert_array_equal(_host(ro_d), ro)          # never written
            assert b.ro.data.ptr != ro_d.data.ptr
        c = hp.run(Mixed, Gd, backend="gpu", active=active, outputs=("lab",), **kw)
        assert list(c.properties) == ["lab"]
        np.testing.assert_array_equal(_host(c.lab), a.lab)


def test_fast_setup_bfs_rmat_and_fresh_results(setup_mode):
    import cupy

    G = hp.generators.rmat(14, seed=2, backend="gpu")
    Gh = G.to_host()
    src = int(cupy.argmax(G.out_degree))
    ref = hp.bfs(Gh, src, backend="cpu")
    outs = [hp.bfs(G, s) for s in (src, 0, src, [src, 1, 2])]
    np.testing.assert_array_equal(_host(outs[0].depth), ref.depth)
    np.testing.assert_array_equal(_host(outs[2].depth), ref.depth)
    np.testing.assert_array_equal(_host(outs[1].depth), hp.bfs(Gh, 0, backend="cpu").depth)
    np.testing.assert_array_equal(_host(outs[3].depth),
                                  hp.bfs(Gh, [src, 1, 2], backend="cpu").depth)
    for r in outs:
        d, p = _host(r.depth), _host(r.parent).astype(np.int64)
        v = np.flatnonzero(d > 0)
        np.testing.assert_array_equal(d[p[v]], d[v] - 1)
    assert outs[0].depth.data.ptr != outs[2].depth.data.ptr


@pytest.mark.parametrize("track_edges", [0, 1000])
def test_untracked_pushes_gpu_equals_cpu(track_edges):
    """Pushes of frontiers with more push edges than engine_track_edges record no receivers
    (APPLY scans every vertex): distances as the CPU engine's, predecessors on tight edges."""
    from examples.sssp import SSSPNearFar

    G = _skewed(20000, 200000, seed=7, directed=False)
    a = hp.run(SSSP, G, backend="cpu", source=0, direction="push")
    with hp.config.set(engine_track_edges=track_edges):
        b = hp.run(SSSP, G.to_device(), backend="gpu", source=0, direction="push")
        c = hp.run(SSSPNearFar, G.to_device(), backend="gpu", source=0, direction="push")
    np.testing.assert_array_equal(_host(b.dist), a.dist)
    assert b.supersteps == a.supersteps and b.active == a.active
    np.testing.assert_array_equal(_host(c.dist), a.dist.astype(np.float32))
    A = G.to_scipy().tocsr()
    pred, dist = _host(c.pred), _host(c.dist)
    v = np.flatnonzero(np.isfinite(dist) & (np.arange(G.num_vertices) != 0))
    assert (pred[v] >= 0).all()
    w = np.asarray(A[pred[v], v]).ravel()
    np.testing.assert_array_equal(dist[pred[v]] + w, dist[v])


# ---------------------------------------------------------------------------------------
# the fused push (codegen.fuse_ok): push supersteps that apply as they push


def _levels(G, source):
    import scipy.sparse.csgraph as csg

    d = csg.shortest_path(G.to_scipy(), unweighted=True, indices=source, directed=True)
    return np.where(np.isinf(d), -1, d).astype(np.int32)


@pytest.mark.parametrize("direction", ["auto", "push"])
@pytest.mark.parametrize("loop", ["host", "host, traced", "host, block loop", "device"])
def test_fused_push_gives_bfs_levels_and_parents(direction, loop, monkeypatch):
    """Skewed graphs (hubs: heavy rows), a grid (thousands of small supersteps) and a graph
    with self-loops, duplicates and isolated vertices: SciPy's levels, every parent an
    in-neighbour one level up, and the same on a second call (the claims restart).  "host":
    no block loop, so every host-chosen push superstep is a fused launch; the block loop and
    the device loop run the fused push inside their own kernels."""
    from hpgraph.engine import gpu
    from tests.engine._programs import BFSAny

    fused = []
    real = gpu._Run._push_fused
    monkeypatch.setattr(gpu._Run, "_push_fused", lambda self, *a, **k: (fused.append(1),
                                                                        real(self, *a, **k)))
    cfg = {"engine_loop": "device" if loop == "device" else "host"}
    if loop in ("host", "host, traced"):
        cfg["engine_small_frontier"] = 0
    if loop == "host, traced":                  # one superstep at a time (the non-blind path)
        cfg["trace"] = True
    rng = np.random.default_rng(3)
    graphs = [_skewed(20000, 200000, seed=2), hp.generators.grid_2d(60, 70, backend="cpu"),
              hp.Graph.from_edges(np.r_[rng.integers(0, 500, 3000), 5, 5],
                                  np.r_[rng.integers(0, 500, 3000), 5, 6], num_vertices=520)]
    with hp.config.set(**cfg):
        for G in graphs:
            want = _levels(G, 0)
            A = G.to_scipy().tocsr()
            Gd = G.to_device()
            for _ in range(2):
                d = hp.run(BFSAny, Gd, source=0, direction=direction, backend="gpu")
                np.testing.assert_array_equal(_host(d.depth), want)
                r = hp.run(BFSParents, Gd, source=0, direction=direction, backend="gpu")
                if loop == "device":                  # ran there, no fallback to the host
                    assert r.extra["loop"] == "device" and "loop_fallback" not in r.extra
                depth, parent = _host(r.depth), _host(r.parent)
                np.testing.assert_array_equal(depth, want)
                v = np.flatnonzero(want > 0)
                p = parent[v]
                assert np.all(want[p] == want[v] - 1)
                assert np.all(np.asarray(A[p, v]).ravel() != 0)
                assert parent[0] == 0 and np.all(parent[want < 0] == -1)
    if loop in ("host", "host, traced"):
        assert fused                              # launched (or captured into a CUDA graph)
