"""The GPU engine's host loop, run against Python emulations of its kernels (no GPU needed).

The device state machine -- parity-selected double buffers, the frontier counters, the halt
flag (empty frontier / blind push batch outgrowing the threshold), the history ring, blind
batches and their CUDA-graph replay -- lives half in ``engine/gpu.py`` and half in the
kernels.  Here the kernels are replaced by sequential Python transcriptions of
``templates/engine*.cu`` (same arguments, same state updates), CuPy by NumPy, and a captured
"graph" records launches to replay them later (``_emulator.py``), so CI checks that logic
against the CPU engine.
"""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import program
from hpgraph.engine import codegen, common, gpu, gpu_state

from examples.bfs import BFSDepth
from examples.out_degree import OutDegree
from examples.pagerank import PageRank
from examples.sssp import SSSP, SSSP64
from examples.widest_path import MinLabelBelow, WidestPath
from tests.engine._emulator import LATE, OPS, _Array, _dev
from tests.engine._programs import Mixed



def _kept(state):
    """The property buffers a run state keeps (its own, never handed to a caller)."""
    return state.own


def _path(n):
    """The undirected weighted path 0 - 1 - ... - n-1 (weights 1)."""
    return hp.Graph.from_edges(np.arange(n - 1), np.arange(1, n), np.ones(n - 1, np.float32),
                               num_vertices=n, directed=False)


def _graph(seed=0, n=40, m=120, directed=True, weighted=True):
    rng = np.random.default_rng(seed)
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    s[:40] = 0                      # a hub: its row goes to the HYB COO tail
    w = rng.integers(0, 7, m).astype(np.float32) if weighted else None
    return hp.Graph.from_edges(s, d, w, num_vertices=n + 3, directed=directed)


PROGS = [(SSSP, "dist", {"source": 0}), (BFSDepth, "depth", {"source": 0}),
         (WidestPath, "width", {"source": 0}), (MinLabelBelow, "label", {}),
         (OutDegree, "degree", {})]


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("prog,prop,params", PROGS, ids=[p[0].__name__ for p in PROGS])
def test_emulated_gpu_equals_cpu(emulated, prog, prop, params, direction):
    for directed in (True, False):
        G = _graph(directed=directed)
        assert G.hyb("AT").coo.nnz > 0
        assert np.diff(G.hyb("AT").coo.row).size and max(np.bincount(G.hyb("AT").coo.row)) > 2
        a = hp.run(prog, G, backend="cpu", direction=direction, **params)
        # without the relaxation (SSSP and BFS depths relax): superstep for
        # superstep the CPU engine's run
        with hp.config.set(engine_relax=False):
            b = emulated(prog, G, direction=direction, **params)
        np.testing.assert_array_equal(b.properties[prop], a.properties[prop])
        assert (b.supersteps, b.active, b.directions, b.frontier_edges) == \
            (a.supersteps, a.active, a.directions, a.frontier_edges)
        assert b.converged == a.converged
        # with it: the same properties; its pushes applied as they pushed
        OPS.clear()
        c = emulated(prog, G, direction=direction, **params)
        np.testing.assert_array_equal(c.properties[prop], a.properties[prop])
        assert c.converged == a.converged
        relaxes = prog in (SSSP, BFSDepth)      # WidestPath's monoid is its own function
        assert (program.bind(prog, G, params).relax is not None) == relaxes
        if direction == "push":
            assert (OPS["fused_supersteps"] > 0) == relaxes
        elif direction == "pull" or not relaxes:
            assert OPS["fused_supersteps"] == 0


@pytest.mark.parametrize("track_edges", [0, 5, None])
@pytest.mark.parametrize("prog,prop,params", PROGS[:3], ids=[p[0].__name__ for p in PROGS[:3]])
def test_emulated_untracked_pushes(emulated, prog, prop, params, track_edges):
    """Pushes of frontiers with more push edges than engine_track_edges record no receivers
    and APPLY scans every vertex: the same results and supersteps as the CPU engine."""
    G = _graph(directed=True)
    a = hp.run(prog, G, backend="cpu", direction="push", **params)
    # SSSP and BFS depths relax (their small pushes fused, test_relax.py): off here, so that
    # every push superstep takes the tracked / untracked APPLY under test
    with hp.config.set(engine_track_edges=track_edges, engine_relax=False):
        b = emulated(prog, G, direction="push", **params)
    np.testing.assert_array_equal(b.properties[prop], a.properties[prop])
    assert (b.supersteps, b.active, b.frontier_edges) == (a.supersteps, a.active, a.frontier_edges)


def test_emulated_pagerank(emulated):
    G = _graph(3, weighted=False)
    a = hp.run(PageRank, G, backend="cpu")
    b = emulated(PageRank, G)
    np.testing.assert_allclose(b.rank, a.rank, atol=1e-13)
    assert b.supersteps == a.supersteps


def test_emulated_long_path_batches_graphs_ring(emulated):
    n = 300
    G = _path(n)
    with hp.config.set(engine_small_frontier=0):        # blind batches, not the block loop
        r = emulated(BFSDepth, G, source=0)
        np.testing.assert_array_equal(r.depth, np.arange(n))
        assert r.supersteps == n and r.active == [1] * n and r.converged
        assert r.syncs < 20 and r.extra["graphs"] == [16, 64]
        r = emulated(SSSP, G, source=0, max_iterations=150)
        assert r.supersteps == 150 and not r.converged
        assert r.dist[150] == 150 and np.isinf(r.dist[151])



def test_emulated_mixed_batch_follows_the_last_run(emulated):
    """A blind mixed batch is no longer than what the last complete run on the same state
    still had to go at that superstep (the supersteps after an emptied frontier launch
    kernels that return at once); runs needing more or fewer supersteps still end right."""
    n = 6
    G = _path(n)
    syncs = []
    with hp.config.set(engine_small_frontier=0, engine_graph_min=2):
        for src, want in ((0, 6), (0, 6), (3, 4), (0, 6), (5, 6)):
            r = emulated(BFSDepth, G, source=src)
            np.testing.assert_array_equal(r.depth, np.abs(np.arange(n) - src))
            assert r.supersteps == want and r.converged
            syncs.append(r.syncs)
    # mixed batches of 8 (a fresh state), 6, 6 (4 needed), 4 (6 needed: then the host loop
    # reads and pushes its small frontier in batches of 1 and 2, as after any mixed batch), 6
    assert r.extra["mixed_graphs"] == [4, 6, 8]
    assert syncs == [1, 1, 1, 3, 1]


def test_emulated_loop_config_keys(emulated):
    """engine_graph_min, engine_mixed_batch and engine_block_loop_steps change how the host
    loop launches its supersteps, never the result."""
    n = 300
    G = _path(n)
    with hp.config.set(engine_small_frontier=0, engine_graph_min=1 << 20):
        r = emulated(BFSDepth, G, source=0)         # a fresh state: no batch is long enough
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert r.extra["graphs"] == [] and r.extra["mixed_batch"] == 8
    with hp.config.set(engine_mixed_batch=3):
        r = emulated(BFSDepth, G, source=0)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert r.extra["mixed_batch"] == 3 and r.supersteps == n
    OPS.clear()
    with hp.config.set(engine_block_loop_steps=16):
        r = emulated(BFSDepth, G, source=0)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert OPS["block_loop"] >= (n - 8) // 16 and r.converged

def test_emulated_block_loop_compiled_late(emulated, monkeypatch):
    """A block loop still compiling in the background: the first supersteps run as push
    batches, then the block loop takes over once it is ready, with the same results."""
    monkeypatch.setitem(LATE, "looks", 3)
    n = 400
    G = _path(n)
    OPS.clear()
    r = emulated(BFSDepth, G, source=0)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert r.supersteps == n and r.active == [1] * n and r.converged
    assert OPS["late_looks"] == 4              # looked for once per batch until ready
    assert OPS["late_waits"] == 0              # never waited for
    assert OPS["block_loop"] > 0               # and used from then on
    r = emulated(BFSDepth, G, source=0)         # the kept state has the block loop now
    np.testing.assert_array_equal(r.depth, np.arange(n))


def test_emulated_block_loop_that_fails_to_compile(emulated, monkeypatch):
    """A deferred block loop whose compile failed: a warning, and the runs go on without it."""
    monkeypatch.setitem(LATE, "looks", 1)
    monkeypatch.setitem(LATE, "fail", True)
    n = 200
    G = _path(n)
    OPS.clear()
    with pytest.warns(RuntimeWarning, match="did not compile"):
        r = emulated(BFSDepth, G, source=0)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    r = emulated(BFSDepth, G, source=0)             # no second warning, same results
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert OPS["block_loop"] == 0


@pytest.mark.parametrize("max_it", [None, 1, 3])
def test_emulated_fused_program_plain_push_deferred(emulated, monkeypatch, max_it):
    """A fused program's plain push (hp_push, unit 5) compiles in the background: a run
    without max_iterations never waits for it (its pushes are fused); one with max_iterations,
    whose mixed batches push unfused, waits for it once, before its first batch; results as
    the CPU engine's either way.  (A relaxing program does not relax under max_iterations, so
    it has no unit 5 then: the claims program here.)"""
    from hpgraph.engine import codegen
    from tests.engine._programs import BFSAny

    monkeypatch.setitem(LATE, "looks", 1000)   # never ready unless waited for
    G = _graph(5, directed=False, weighted=False)
    want = hp.run(BFSAny, G, backend="cpu", source=0, max_iterations=max_it, push_alpha=4.0)
    bp = program.bind(BFSAny, G, {"source": 0}, max_it, None)
    assert codegen.fused_kind(bp, np.int32) == 1 and codegen.push_unit(bp, np.int32) == 5
    OPS.clear()
    got = emulated(BFSAny, G, source=0, max_iterations=max_it)
    np.testing.assert_array_equal(got.depth, want.depth)
    assert (got.supersteps, got.converged) == (want.supersteps, want.converged)
    assert OPS["late_waits"] == (0 if max_it is None else 1)
    assert ("launch:hp_push" in OPS) == (max_it is not None)


def _record_deferred(monkeypatch):
    """The deferred units of each compile batch, in their order (a list filled as runs go)."""
    seen = []
    be = gpu_state._backend
    real = be.raw_modules

    def recording(src, option_sets, defer=(), cooperative=()):
        seen.append([int(o[1].split("=")[1]) for o in option_sets if o in defer])
        return real(src, option_sets, defer, cooperative)

    monkeypatch.setattr(be, "raw_modules", recording)
    return seen


def test_emulated_deferred_units_order_and_failed_plain_push(emulated, monkeypatch):
    """Deferred units compile one after another in the order given: the block loop (7) before
    a fused program's plain push (5) unless the program has max_iterations (its runs wait for
    the push); a plain push whose compile failed raises its CompileError for the run that
    needs it, and again for the next one."""
    from tests.engine._programs import BFSAny

    seen = _record_deferred(monkeypatch)
    emulated(BFSAny, _graph(6, directed=False, weighted=False), source=0)
    emulated(BFSAny, _graph(7, directed=False, weighted=False), source=0, max_iterations=2)
    assert seen == [[7, 5], [5, 7]]
    monkeypatch.setitem(LATE, "looks", 1000)
    monkeypatch.setitem(LATE, "fail", True)
    G = _graph(8, directed=False, weighted=False)
    for _ in range(2):
        with pytest.raises(hp.exceptions.CompileError):
            emulated(BFSAny, G, source=0, max_iterations=2)


def test_emulated_device_loop_compiling_in_background(emulated, monkeypatch):
    """Without engine_loop_wait, a call asking for the device loop whose module still compiles
    runs on the host loop with the CPU's results and says why (each call until it is ready);
    the loop module is first in the background queue, behind only a plain push that a run
    under max_iterations waits for."""
    from hpgraph.engine import device_loop
    from tests.engine._programs import BFSAny

    seen = _record_deferred(monkeypatch)
    monkeypatch.setitem(LATE, "looks", 1000)
    G = _graph(6, directed=False, weighted=False)
    want = hp.run(BFSAny, G, backend="cpu", source=0)
    with hp.config.set(engine_loop_wait=False):
        for _ in range(2):                      # a new state, then the kept one
            got = emulated(BFSAny, G, source=0, engine_loop="device")
            assert got.extra["loop"] == "host"
            assert got.extra["loop_fallback"] == device_loop.COMPILING
            np.testing.assert_array_equal(got.depth, want.depth)
        G7 = _graph(7, directed=False, weighted=False)
        got = emulated(BFSAny, G7, source=0, max_iterations=2, engine_loop="device")
        want7 = hp.run(BFSAny, G7, backend="cpu", source=0, max_iterations=2)
        np.testing.assert_array_equal(got.depth, want7.depth)
    assert seen == [[8, 7, 5], [5, 8, 7]]


def test_emulated_device_loop_that_fails_to_compile(emulated, monkeypatch):
    """A loop module whose background compile failed: a warning, then this program's calls
    take the host loop for good (the reason in extra["loop_fallback"]), with the CPU's results."""
    from hpgraph.engine import device_loop
    from tests.engine._programs import BFSAny

    monkeypatch.setitem(LATE, "looks", 1)       # ready at the second look, then it fails
    monkeypatch.setitem(LATE, "fail", True)
    G = _graph(6, directed=False, weighted=False)
    want = hp.run(BFSAny, G, backend="cpu", source=0)
    with hp.config.set(engine_loop_wait=False):
        got = emulated(BFSAny, G, source=0, engine_loop="device")
        assert got.extra["loop_fallback"] == device_loop.COMPILING
        with pytest.warns(RuntimeWarning, match="did not compile"):
            got = emulated(BFSAny, G, source=0, engine_loop="device")
        assert got.extra["loop"] == "host" and "did not compile" in got.extra["loop_fallback"]
        np.testing.assert_array_equal(got.depth, want.depth)
        (st,) = gpu_state._states[G].values()
        assert st.loop_refused and "hp_loop" in st.failed
        got = emulated(BFSAny, G, source=0, engine_loop="device")
        assert got.extra["loop"] == "host" and "did not compile" in got.extra["loop_fallback"]
        np.testing.assert_array_equal(got.depth, want.depth)


def test_emulated_block_loop_small_frontiers(emulated):
    """A path: every superstep runs in the block loop, in launches bounded by the (64-record)
    history ring, and the records, counts and max_iterations stay exact."""
    n = 300
    G = _path(n)
    OPS.clear()
    r = emulated(BFSDepth, G, source=0)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert r.supersteps == n and r.active == [1] * n and r.converged
    assert r.directions == ["push"] * n
    assert OPS["block_loop"] >= (n - hp.config["engine_mixed_batch"]) // 64 and r.extra["graphs"] == []
    r = emulated(SSSP, G, source=0, max_iterations=150)
    assert r.supersteps == 150 and not r.converged
    assert r.dist[150] == 150 and np.isinf(r.dist[151])
    # a star after a path: the frontier outgrows the limit inside the block loop, which stops
    # before that superstep; the host goes on with the whole device and the result is exact
    k, leaves = 40, 400
    s = np.r_[np.arange(k - 1), np.full(leaves, k - 1)]
    d = np.r_[np.arange(1, k), np.arange(k, k + leaves)]
    G = hp.Graph.from_edges(s, d, np.ones(s.size, np.float32), num_vertices=k + leaves,
                            directed=False)
    with hp.config.set(engine_small_frontier=100):
        r = emulated(BFSDepth, G, source=0)
    want = np.r_[np.arange(k), np.full(leaves, k)]
    np.testing.assert_array_equal(r.depth, want)
    assert r.active == [1] * k + [leaves]


def test_emulated_blind_batch_abort(emulated):
    # a star reached after a long path: the frontier explodes inside a blind batch, the
    # batch aborts on the device and the host switches to pull
    k, leaves = 40, 400
    s = np.r_[np.arange(k - 1), np.full(leaves, k - 1), np.arange(k, k + leaves - 1)]
    d = np.r_[np.arange(1, k), np.arange(k, k + leaves), np.arange(k + 1, k + leaves)]
    G = hp.Graph.from_edges(s, d, np.ones(s.size, np.float32), num_vertices=k + leaves,
                            directed=False)
    a = hp.run(SSSP, G, backend="cpu", source=0, push_alpha=4.0)
    b = emulated(SSSP, G, source=0, push_alpha=4.0)
    np.testing.assert_array_equal(b.dist, a.dist)
    assert b.directions == a.directions and "pull" in b.directions
    assert b.active == a.active


def test_emulated_hook_and_empty(emulated):
    calls = []

    class Hooked(SSSP):
        def converged(self, stats):
            calls.append((stats.superstep, stats.active, stats.changed, stats.direction))
            return stats.superstep == 2

    G = _graph(5)
    r = emulated(Hooked, G, source=0)
    assert r.supersteps == 3 and len(calls) == 3 and calls[0][:2] == (0, 1)
    c = hp.run(Hooked, G, backend="cpu", source=0)
    np.testing.assert_array_equal(r.dist, c.dist)
    E = hp.Graph.from_edges([], [], num_vertices=5)
    r = emulated(BFSDepth, E, source=2)
    assert r.supersteps == 1 and r.depth[2] == 0


def test_split_segments():
    rows, ptr = gpu.split_segments(np.array([3, 5, 9]), np.array([0, 2, 9, 10]), 3)
    assert rows.tolist() == [3, -6, -6, -6, 9]
    assert ptr.tolist() == [0, 2, 5, 8, 9, 10]


# ---- mask(v), run-state reuse, initial frontier forms -----------------------------------


class _MaskedCount(hp.VertexProgram):
    properties = {"x": "int64", "c": "int64"}
    reduce = "plus"
    edge_dtype = "int64"
    max_iterations = 5

    def init(self, graph, x0=None):
        return {"x": x0}, np.arange(0, graph.num_vertices, 3)

    def mask(v):
        return v.x % 3 != 1

    def gather(src, edge, dst):
        return src.x + edge + 1

    def update(v, y):
        return {"x": (v.x + y) % 7, "c": v.c + y}


class _MaskedSSSP(SSSP):
    def mask(v):
        return v.dist > 2


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_emulated_mask(emulated, direction):
    for directed in (True, False):
        G = _graph(11, directed=directed)
        x0 = np.random.default_rng(1).integers(0, 7, G.num_vertices)
        for prog, prop, params in ((_MaskedCount, "c", {"x0": x0}),
                                   (_MaskedSSSP, "dist", {"source": 0})):
            a = hp.run(prog, G, backend="cpu", direction=direction, **params)
            b = emulated(prog, G, direction=direction, **params)
            np.testing.assert_array_equal(b.properties[prop], a.properties[prop])
            assert (b.active, b.directions) == (a.active, a.directions)


def test_emulated_state_reuse_and_results_never_alias(emulated):
    G = _graph(4)
    runs = [(SSSP, "dist", {"source": 0}), (SSSP, "dist", {"source": 5}),
            (BFSDepth, "depth", {"source": 3}), (SSSP64, "dist", {"source": 1}),
            (SSSP, "dist", {"source": 0})]
    kept = []
    for prog, prop, params in runs:
        b = emulated(prog, G, **params)
        a = hp.run(prog, G, backend="cpu", **params)
        np.testing.assert_array_equal(b.properties[prop], a.properties[prop])
        kept.append((b.properties[prop].copy(), b.properties[prop]))
    # a different program, dtype or graph never reuses a state; the same one does
    assert len(gpu_state._states[G]) == 3
    b = emulated(SSSP, G, source=2)
    assert b.extra["reused_state"]
    # earlier results were not overwritten by later calls, nor are they kept buffers
    for snapshot, arr in kept:
        np.testing.assert_array_equal(arr, snapshot)
    for st in gpu_state._states[G].values():
        for buf in _kept(st).values():
            assert all(buf is not arr for _, arr in kept)


def test_emulated_loop_argument_overrides_config(emulated):
    """hp.run(engine_loop=) decides for its call: a program with a converged() hook is refused
    on the device loop when the config asks for it, and runs when the call asks for the host
    loop under that same config."""
    class Hooked(SSSP):
        def converged(self, stats):
            return False

    G = _graph(3, directed=False)
    want = hp.run(SSSP, G, backend="cpu", source=0)
    with hp.config.set(engine_loop="device"):
        with pytest.raises(hp.exceptions.InvalidProgram, match="converged.*device loop"):
            emulated(Hooked, G, source=0)
        got = emulated(Hooked, G, source=0, engine_loop="host")
    np.testing.assert_array_equal(got.dist, want.dist)
    assert got.extra["loop"] == "host"
    with pytest.raises(hp.exceptions.InvalidProgram, match="converged.*device loop"):
        emulated(Hooked, G, source=0, engine_loop="device")     # the fixture's config: host


def test_emulated_hp_run_forwards_engine_loop(emulated, monkeypatch):
    """hp.run hands its engine_loop argument to the GPU engine (here emulated: hp.run resolves
    to the GPU side and keeps the host graph, whose arrays the emulated kernels read)."""
    import types

    from hpgraph.engine import run as run_mod

    class Hooked(SSSP):
        def converged(self, stats):
            return False

    monkeypatch.setattr(run_mod, "_backend", types.SimpleNamespace(resolve=lambda *a: "gpu"))
    monkeypatch.setattr(hp.Graph, "to_device", lambda self: self)
    G = _graph(4, directed=False)
    want = hp.run(SSSP, G.to_host(), backend="cpu", source=0)
    with pytest.raises(hp.exceptions.InvalidProgram, match="converged.*device loop"):
        hp.run(Hooked, G, backend="gpu", source=0, engine_loop="device")
    got = hp.run(Hooked, G, backend="gpu", source=0, engine_loop="host")
    assert got.backend == "gpu" and got.extra["loop"] == "host"
    np.testing.assert_array_equal(got.dist, want.dist)


def test_emulated_reuse_after_partial_runs(emulated):
    G = _graph(6, directed=False)
    for max_it in (1, 2, 0, None, 3, None):
        a = hp.run(SSSP, G, backend="cpu", source=0, max_iterations=max_it)
        b = emulated(SSSP, G, source=0, max_iterations=max_it)
        np.testing.assert_array_equal(b.dist, a.dist)
        assert (b.supersteps, b.converged, b.active) == (a.supersteps, a.converged, a.active)


@pytest.fixture
def no_block_loop():
    with hp.config.set(engine_small_frontier=0):   # long paths replay blind batches
        yield


def test_emulated_reuse_with_cuda_graphs_copies_out(emulated, no_block_loop):
    n = 200
    G = _path(n)
    r1 = emulated(BFSDepth, G, source=0)
    assert r1.extra["graphs"]                     # blind batches were captured
    r2 = emulated(BFSDepth, G, source=n - 1)
    assert r2.extra["reused_state"]
    np.testing.assert_array_equal(r1.depth, np.arange(n))
    np.testing.assert_array_equal(r2.depth, np.arange(n)[::-1])
    (st,) = gpu_state._states[G].values()
    assert _kept(st).get("depth") is not None and _kept(st)["depth"] is not r2.depth
    r3 = emulated(BFSDepth, G, source=n // 2)
    np.testing.assert_array_equal(r3.depth, np.abs(np.arange(n) - n // 2))
    np.testing.assert_array_equal(r2.depth, np.arange(n)[::-1])


def test_emulated_states_do_not_keep_graphs_alive(emulated):
    import gc

    G = _graph(8)
    emulated(SSSP, G, source=0)
    assert len(gpu_state._states) == 1
    ref = weakref.ref(G)
    del G
    gc.collect()
    assert ref() is None and len(gpu_state._states) == 0


def test_emulated_initial_frontier_forms(emulated):
    class Label(MinLabelBelow):
        def init(self, graph, ranks=None, active=None):
            return {"label": ranks, "rank": ranks}, active

    G = _graph(9)
    n = G.num_vertices
    ranks = np.random.default_rng(3).permutation(n).astype(np.int64)
    pick = np.zeros(n, bool)
    pick[::4] = True
    for active in (None, "all", [5, 5, 1, 2], np.array([7]), pick,
                   hp.formats.Bitmask.from_bool(pick), []):
        a = hp.run(Label, G, backend="cpu", ranks=ranks, active=active)
        b = emulated(Label, G, ranks=ranks, active=active)
        np.testing.assert_array_equal(b.label, a.label)
        assert b.active == a.active
    # a scalar property value and a host array of another dtype are both cast like NumPy
    a = hp.run(Label, G, backend="cpu", ranks=7)
    b = emulated(Label, G, ranks=7)
    np.testing.assert_array_equal(b.label, a.label)
    b = emulated(Label, G, ranks=ranks.astype(np.float64))
    np.testing.assert_array_equal(b.label, hp.run(Label, G, backend="cpu", ranks=ranks).label)


def test_push_limit_is_the_host_rule():
    for nnz, n, alpha in [(100, 10, 4.0), (0, 1, 4.0), (7, 3, 1e9), (10**9, 10**6, 3.3),
                          (5, 5, 0.7)]:
        c = gpu.push_limit(nnz, n, alpha)
        assert common.choose_push(c, nnz, n, alpha)
        assert not common.choose_push(c + 1, nnz, n, alpha)


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_emulated_bfs_any_program(emulated, direction):
    """hp.bfs's GPU program (``any`` + mask) through the emulated kernels: depths as the CPU
    engine's, parents valid (any frontier in-neighbour may be picked)."""
    from hpgraph.algorithms._bfs import _BFS_ANY

    prog = _BFS_ANY[np.dtype(np.int32)]
    for seed, directed in ((0, True), (1, False), (2, True)):
        G = _graph(seed, directed=directed, weighted=False)
        n = G.num_vertices
        src = np.array([0, 7])
        depth = np.full(n, -1, np.int32)
        parent = np.full(n, -1, np.int32)
        depth[src], parent[src] = 0, src
        kw = dict(depth=depth, parent=parent, vid=np.arange(n, dtype=np.int32), active=src)
        a = hp.run(prog, G, backend="cpu", direction=direction, **kw)
        b = emulated(prog, G, direction=direction, **kw)
        np.testing.assert_array_equal(b.depth, a.depth)
        assert b.active == a.active
        v = np.flatnonzero(b.depth > 0)
        p = b.parent[v].astype(np.int64)
        np.testing.assert_array_equal(b.depth[p], b.depth[v] - 1)
        A = G.A
        ip, ix = np.asarray(A.indptr), np.asarray(A.indices)
        for pu, vv in zip(p, v):
            assert vv in ix[ip[pu]:ip[pu + 1]]



# ---- the setup: fused setup launch, Seeded properties, outputs, in-place reads ----------




def _mixed_inits(n, dev):
    S = program.Seeded
    ro = np.random.default_rng(2).integers(0, 9, n).astype(np.int64)
    return [
        dict(d=S(np.inf, 0.0), lab=S(-1, "id"), b=S(False, True), ro=dev(ro)),
        dict(d=S(np.inf, 1.5), i8=S(-3, 9), u64=S(2**63 + 5, 1), f64=S(-0.0, 2.25),
             ro=ro),
        dict(d=S(np.inf, 0.0), ro=dev(ro).astype(np.int32)),      # dtype differs: copied
        dict(d=dev(np.where(ro > 6, 0.0, np.inf).astype(np.float32)), lab=7, ro=dev(ro)),
    ]


@pytest.mark.parametrize("active", [[3], [0, 5, 9], list(range(0, 40, 4)), None, []],
                         ids=["one", "three", "ten", "all", "none"])
def test_emulated_seeded_scalars_and_inplace_props(emulated, active):
    """Seeded/scalar/array/in-place properties of every dtype, frontiers inline (<= 8 ids),
    not inline (> 8, every vertex) and empty: equal to the CPU engine, which builds the
    arrays with NumPy (an independent path: np.full and a scatter)."""
    for directed in (True, False):
        G = _graph(21, directed=directed)
        n = G.num_vertices
        for kw in _mixed_inits(n, _dev):
            ro_in = kw["ro"].copy() if isinstance(kw["ro"], _Array) else None
            a = hp.run(Mixed, G, backend="cpu", active=active,
                       **{k: (np.asarray(v) if isinstance(v, _Array) else v)
                          for k, v in kw.items()})
            for _ in range(3):          # a fresh state, then reused ones (CUDA graphs)
                b = emulated(Mixed, G, active=active, **kw)
                for p in Mixed.properties:
                    np.testing.assert_array_equal(np.asarray(b.properties[p]),
                                                  np.asarray(a.properties[p]), err_msg=p)
                    assert b.properties[p].dtype == a.properties[p].dtype
                assert (b.supersteps, b.active) == (a.supersteps, a.active)
                if ro_in is not None:   # read in place, never written, returned as a copy
                    np.testing.assert_array_equal(kw["ro"], ro_in)
                    assert b.ro is not kw["ro"]


def test_emulated_outputs(emulated):
    G = _graph(22)
    kw = dict(d=program.Seeded(np.inf, 0.0), active=[2])
    a = hp.run(Mixed, G, backend="cpu", **kw)
    for _ in range(3):
        b = emulated(Mixed, G, outputs=("lab", "d"), **kw)
        assert list(b.properties) == ["d", "lab"]        # declaration order
        np.testing.assert_array_equal(b.d, a.d)
        np.testing.assert_array_equal(b.lab, a.lab)
    c = hp.run(Mixed, G, backend="cpu", outputs="d", **kw)
    assert list(c.properties) == ["d"]
    with pytest.raises(hp.exceptions.InvalidValue, match="unknown property 'nope'"):
        emulated(Mixed, G, outputs=("d", "nope"), **kw)


def test_emulated_inplace_prop_new_address_with_graphs(emulated):
    """A read-only property given at a new address while the state holds CUDA graphs is
    copied (no recapture); at the captured address it is read in place."""
    n = 70
    G = _path(n)
    ro1 = _dev(np.zeros(n, np.int64))
    S = program.Seeded
    for ro in (ro1, ro1, _dev(np.ones(n, np.int64)), ro1):
        a = hp.run(Mixed, G, backend="cpu", d=S(np.inf, 0.0), ro=np.asarray(ro), active=[0])
        b = emulated(Mixed, G, d=S(np.inf, 0.0), ro=ro, active=[0])
        np.testing.assert_array_equal(b.d, a.d)
        assert b.extra["graphs"]
    (st,) = gpu_state._states[G].values()
    assert st.alias["ro"] == ro1.data.ptr and "ro" in st.own   # the third call copied


def test_seeded_errors():
    G = _graph(23)

    class F(Mixed):
        pass

    S = program.Seeded
    with pytest.raises(hp.exceptions.InvalidProgram, match="integer dtype"):
        hp.run(F, G, backend="cpu", d=S(np.inf, "id"), active=[0])
    with pytest.raises(hp.exceptions.InvalidProgram, match="scalar or 'id'"):
        hp.run(F, G, backend="cpu", lab=S(-1, "ids"), active=[0])
    big = hp.Graph.from_edges([0], [1], num_vertices=200)
    with pytest.raises(hp.exceptions.InvalidProgram, match="holding vertex ids up to 199"):
        hp.run(F, big, backend="cpu", i8=S(0, "id"), active=[0])
    with pytest.raises(hp.exceptions.InvalidProgram, match="not a scalar"):
        hp.run(F, G, backend="cpu", lab=S("x", 0), active=[0])


def test_emulated_many_properties_fall_back(emulated):
    """Only the first 31 properties fit the fused launch's mode words; the rest are filled
    the old way."""
    props = {f"p{i}": ("int32", i) for i in range(34)}
    props["p0"] = ("float32", np.inf)

    class Many(hp.VertexProgram):
        properties = props
        reduce = "min"

        def init(self, graph, **kw):
            return kw, [1]

        def gather(src, edge, dst):
            return src.p0 + edge

        def update(v, y):
            return {"p0": min(v.p0, y), "p33": v.p33 + 1 if y < v.p0 else v.p33}

    G = _graph(24)
    kw = dict(p0=program.Seeded(np.inf, 0.0), p32=program.Seeded(5, "id"), p33=-4)
    a = hp.run(Many, G, backend="cpu", **kw)
    b = emulated(Many, G, **kw)
    for k in props:
        np.testing.assert_array_equal(b.properties[k], a.properties[k], err_msg=k)


def _bfs_call_ops(emulated, G, srcs):
    """(OPS of one warm hp.bfs-equivalent call, its result)."""
    from hpgraph.algorithms._bfs import _BFS_ANY, bfs_run_args

    n = G.num_vertices
    idt = np.dtype(np.int32)
    vid = _dev(np.arange(n, dtype=idt))

    def call():
        kw = bfs_run_args(n, np.array(srcs, np.int64), lambda: vid)
        return emulated(_BFS_ANY[idt], G, push_alpha=4.0, **kw)

    call()
    call()                      # state kept, CUDA graphs captured
    OPS.clear()
    r = call()
    return dict(OPS), r


@pytest.mark.parametrize("srcs", [[0], [0, 9, 17]], ids=["one", "three"])
def test_emulated_bfs_setup_op_counts(emulated, srcs):
    """One warm BFS call: one fused setup launch, no host-to-device copy, no scatter; the
    CPU engine's depths and valid parents."""
    G = _graph(0, directed=False, weighted=False)
    ops, r = _bfs_call_ops(emulated, G, srcs)
    ref = hp.bfs(G, srcs, backend="cpu")
    np.testing.assert_array_equal(r.depth, ref.depth)
    v = np.flatnonzero(r.depth > 0)
    np.testing.assert_array_equal(r.depth[r.parent[v]], r.depth[v] - 1)
    np.testing.assert_array_equal(r.parent[srcs], srcs)
    assert list(r.properties) == ["depth", "parent"]
    assert ops.get("h2d", 0) == 0 and ops.get("setitem", 0) == 0
    assert ops["launch:hp_init_fused"] == 1
    assert "launch:hp_init_frontier" not in ops


# ---------------------------------------------------------------------------------------
# the fused push (codegen.fuse_ok): one launch per push superstep


def _bfs_oracle(G, source):
    """Hop counts from ``source`` along out-edges (SciPy; -1 unreached)."""
    import scipy.sparse.csgraph as csg

    d = csg.shortest_path(G.to_scipy(), unweighted=True, indices=source, directed=True)
    return np.where(np.isinf(d), -1, d).astype(np.int32)


def _messy(seed, n=50, m=160):
    """Self-loops, duplicate edges, isolated vertices and a second component."""
    rng = np.random.default_rng(seed)
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    s = np.r_[s, [3, 3, 7], n + 1]
    d = np.r_[d, [3, 4, 4], n + 2]
    return hp.Graph.from_edges(s, d, num_vertices=n + 4, directed=True)


@pytest.mark.parametrize("direction", ["auto", "push"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_emulated_fused_push_equals_scipy(emulated, direction, seed):
    """A program whose push supersteps are fused: the depths of SciPy's BFS, the CPU engine's
    supersteps and frontiers, and every push superstep one fused launch."""
    from tests.engine._programs import BFSAny

    G = _messy(seed)
    ref = hp.run(BFSAny, G, backend="cpu", source=0, direction=direction, push_alpha=4.0)
    with hp.config.set(engine_small_frontier=0):       # no block loop: every push fused
        OPS.clear()
        r = emulated(BFSAny, G, source=0, direction=direction)
    np.testing.assert_array_equal(r.depth, _bfs_oracle(G, 0))
    assert (r.supersteps, r.active, r.directions) == (ref.supersteps, ref.active, ref.directions)
    # every superstep closes once: a push fused, a pull by APPLY (in a mixed batch too, where
    # the direction is chosen on the device)
    assert OPS["fused_supersteps"] == r.directions.count("push")
    assert OPS["apply_supersteps"] == r.directions.count("pull")


@pytest.mark.parametrize("n", [40, 400])
@pytest.mark.parametrize("mixed", [1, 4, 64])
def test_emulated_fused_push_in_mixed_batches(emulated, n, mixed):
    """Under direction="auto" every push superstep is fused, those of the mixed batches too
    (a path only pushes; a mixed step running a pull and then a push is in
    test_emulated_fused_push_equals_scipy)."""
    from tests.engine._programs import BFSAny

    with hp.config.set(engine_small_frontier=0, engine_mixed_batch=mixed):
        OPS.clear()
        r = emulated(BFSAny, _path(n), source=0)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert r.directions == ["push"] * n
    assert OPS["apply_supersteps"] == 0 and OPS["fused_supersteps"] == n


def test_emulated_fused_push_with_witness(emulated):
    """Fused supersteps write the witness: every parent is an in-neighbour one level up."""
    from examples.bfs import BFSParents

    G = _messy(4, n=80, m=300)
    want = _bfs_oracle(G, 0)
    with hp.config.set(engine_small_frontier=0):
        OPS.clear()
        r = emulated(BFSParents, G, source=0, direction="push")
    np.testing.assert_array_equal(r.depth, want)
    assert OPS["fused_supersteps"] == r.supersteps
    A = G.to_scipy().tocsr()
    for v in np.flatnonzero(want > 0):
        p = int(r.parent[v])
        assert want[p] == want[v] - 1 and A[p, v] != 0, v
    assert r.parent[0] == 0 and np.all(r.parent[want < 0] == -1)


def test_emulated_witness_never_written_into_the_callers_array(emulated):
    """A device array given for the witness property is copied, not read in place: the engine
    writes the witness (here by the fused push's claims), and the caller's data stays."""
    from examples.bfs import BFSParents

    class FromArray(BFSParents):
        def init(self, graph, source=0, parent=None):
            return {"depth": hp.Seeded(-1, 0), "parent": parent}, [int(source)]

    G = _messy(4, n=80, m=300)
    mine = _dev(np.full(G.num_vertices, -1, np.int64))
    r = emulated(FromArray, G, source=0, parent=mine, direction="push")
    assert (np.asarray(mine) == -1).all()
    want = _bfs_oracle(G, 0)
    np.testing.assert_array_equal(r.depth, want)
    assert (r.parent[want > 0] >= 0).all()


def test_emulated_fused_push_with_block_loop_and_reruns(emulated):
    """Small frontiers in the block loop, larger ones in fused launches, both fused (every
    superstep closes in the fused push, none in APPLY); a second run on the kept state (stamps
    zeroed) gives the same depths."""
    from tests.engine._programs import BFSAny

    G = _path(300)
    for _ in range(2):
        OPS.clear()
        r = emulated(BFSAny, G, source=0, direction="push")
        np.testing.assert_array_equal(r.depth, np.arange(300))
        assert r.supersteps == 300
        assert OPS["block_loop"] >= 1
        assert OPS["fused_supersteps"] == 300 and OPS["apply_supersteps"] == 0


def test_fuse_ok_needs_every_condition():
    from examples.bfs import BFSParents
    from tests.engine._programs import BFSAny

    G = _path(10)
    assert codegen.fuse_ok(program.bind(BFSAny, G, {}))
    assert codegen.fuse_ok(program.bind(BFSParents, G, {}))
    assert not codegen.fuse_ok(program.bind(BFSDepth, G, {}))          # no declaration

    class TwoSides(BFSAny):
        edges = "all"

    class MinReduce(BFSAny):
        reduce = "min"

    class ApplyAll(BFSAny):
        apply_to = "all"

    for cls in (TwoSides, MinReduce, ApplyAll):
        assert not codegen.fuse_ok(program.bind(cls, G, {})), cls.__name__


def test_cpu_engine_checks_mask_excludes_active():
    from tests.engine._programs import FalselyExcluded

    with pytest.raises(hp.exceptions.InvalidProgram, match="mask_excludes_active"):
        hp.run(FalselyExcluded, _path(8), backend="cpu", source=0)


def test_mask_excludes_active_needs_a_mask_and_a_bool():
    with pytest.raises(hp.exceptions.InvalidProgram, match="True or False"):
        class Bad(hp.VertexProgram):
            mask_excludes_active = "yes"
    class NoMask(hp.VertexProgram):
        properties = {"d": "int32"}
        reduce = "any"
        mask_excludes_active = True

        def gather(src, edge, dst):
            return src.d

        def update(v, y):
            return y
    with pytest.raises(hp.exceptions.InvalidProgram, match="defines no mask"):
        hp.run(NoMask, _path(4), backend="cpu")


def test_a_new_mask_does_not_inherit_the_declaration():
    from tests.engine._programs import BFSAny

    with pytest.raises(hp.exceptions.InvalidProgram, match="inherits mask_excludes_active"):
        class Wider(BFSAny):
            def mask(v):
                return v.depth < 3

    class Restated(BFSAny):                     # stated again: accepted
        mask_excludes_active = True

        def mask(v):
            return v.depth < 0

    class Undeclared(BFSAny):                   # or taken back
        mask_excludes_active = False

        def mask(v):
            return v.depth < 3

    assert Restated.mask_excludes_active and not Undeclared.mask_excludes_active


@pytest.mark.parametrize("max_it", [1, 3, 4, 5])
def test_emulated_fused_mixed_batches_keep_max_iterations(emulated, max_it):
    """A fused program with max_iterations: its mixed steps run one superstep each (a fused
    mixed step may run two), so the run stops exactly where the CPU engine's does."""
    from tests.engine._programs import BFSAny

    G = _messy(1)        # directions push, push, push, pull, push, push
    want = hp.run(BFSAny, G, backend="cpu", source=0, max_iterations=max_it, push_alpha=4.0)
    with hp.config.set(engine_small_frontier=0, engine_mixed_batch=4):
        got = emulated(BFSAny, G, source=0, max_iterations=max_it)
    np.testing.assert_array_equal(got.depth, want.depth)
    assert (got.supersteps, got.active) == (want.supersteps, want.active)


def test_emulated_kept_state_replays_no_fused_mixed_batch_under_max_iterations(emulated):
    """Runs without max_iterations capture fused mixed batches (two supersteps a step); a later
    run on the same kept state with max_iterations must not replay them."""
    from tests.engine._programs import BFSAny

    G = _messy(1)        # directions push, push, push, pull, push, push
    want = hp.run(BFSAny, G, backend="cpu", source=0, max_iterations=4, push_alpha=4.0)
    with hp.config.set(engine_small_frontier=0, engine_mixed_batch=4):
        for _ in range(2):
            emulated(BFSAny, G, source=0)
        got = emulated(BFSAny, G, source=0, max_iterations=4)
    np.testing.assert_array_equal(got.depth, want.depth)
    assert (got.supersteps, got.active) == (want.supersteps, want.active)


class _SeededSSSP(SSSP):
    """The README SSSP with its distances given as a rule: inf outside the initial frontier."""

    def init(self, graph, source=0):
        return {"dist": hp.Seeded(np.inf, 0.0)}, [int(source)]


class _HeadStartSSSP(SSSP):
    """Every vertex starts at 5.0 (not the identity), the source at 0: a pull taking senders
    by their distance would let vertices never active send their 5.0."""

    def init(self, graph, source=0):
        return {"dist": hp.Seeded(5.0, 0.0)}, [int(source)]


class _ArrayHeadStartSSSP(SSSP):
    """Every vertex starts at its id, the source at 0, given as an array (never inspected by
    the engine): a vertex never active keeps its start, which a pull taking senders by their
    distance would send on."""

    def init(self, graph, source=0):
        dist = np.arange(graph.num_vertices, dtype=np.float32)
        dist[source] = 0.0
        return {"dist": dist}, [int(source)]


@pytest.mark.parametrize("direction", ["pull", "auto"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_emulated_relaxation_pulls_take_reached_senders(emulated, direction, seed):
    """A relaxation whose every vertex outside the initial frontier starts at the identity pulls
    from the senders its distance reached (hp_sends: no frontier bit); one whose vertices start
    elsewhere, or whose start is an array, pulls from the frontier.  The CPU engine's
    distances either way (the relaxation's fixed point)."""
    from hpgraph.engine import codegen

    G = _graph(seed, weighted=True)
    # (the priority's far-set split has no transcription: SSSPNearFar is tested on the GPU)
    for prog, by_value in ((_SeededSSSP, True), (SSSP, False), (_HeadStartSSSP, False),
                           (_ArrayHeadStartSSSP, False)):
        want = hp.run(prog, G, backend="cpu", source=0)
        assert codegen.pull_reached_ok(program.bind(prog, G, {"source": 0}, None, None),
                                       np.int32)
        OPS.clear()
        got = emulated(prog, G, source=0, direction=direction)
        np.testing.assert_array_equal(got.dist, want.dist, err_msg=prog.__name__)
        pulled = any(d == "pull" for d in got.directions)
        assert (OPS["pull_reached"] > 0) == (by_value and pulled), prog.__name__


class _EitherStartSSSP(SSSP):
    """The README SSSP started as a rule (``rule=True``: pulls by value allowed) or from an
    array whose vertices start at their ids (never inspected: pulls read frontier bits); one
    program, so every run reuses one kept run state."""

    def init(self, graph, source=0, rule=True, many=False):
        ids = list(range(12)) if many else [int(source)]
        if rule:
            return {"dist": hp.Seeded(np.inf, 0.0)}, ids
        dist = np.arange(graph.num_vertices, dtype=np.float32)
        dist[ids] = 0.0
        return {"dist": dist}, ids


class _ManySourceHopsSSSP(_EitherStartSSSP):
    """With a second property given as a scalar: the fused launch fills it."""

    properties = {"dist": ("float32", np.inf), "hops": ("int32", 7)}

    def update(v, y):
        return {"dist": min(v.dist, y)}


@pytest.mark.parametrize("prog, fused", [(_EitherStartSSSP, False), (_ManySourceHopsSSSP, True)])
def test_emulated_reached_pulls_with_a_large_initial_frontier(emulated, prog, fused):
    """Twelve initial vertices as a rule, more than travel by value (gpu.INLINE_IDS): the
    frontier is written apart from the setup's fused launch, which runs only to fill a second
    property.  S_REACHED is set either way: pulls take senders by distance; the CPU engine's
    distances."""
    G = _graph(5, n=60, m=300, weighted=True)
    want = hp.run(prog, G, backend="cpu", many=True)
    OPS.clear()
    got = emulated(prog, G, many=True, direction="pull")
    np.testing.assert_array_equal(got.dist, want.dist)
    if fused:
        np.testing.assert_array_equal(got.hops, np.full(G.num_vertices, 7, np.int32))
    assert OPS["pull_reached"] > 0
    assert (OPS["launch:hp_init_fused"] == 1) == fused


@pytest.mark.parametrize("start", ["scalar", "rule", "all"])
@pytest.mark.parametrize("direction", ["pull", "auto"])
def test_emulated_frontier_at_the_identity_still_sends(emulated, start, direction):
    """The bottleneck program (test_relax): initial vertices at the identity send
    gather(identity) in the first superstep (here the edge's weight), so such a start never
    pulls by value: the CPU engine's result."""
    from tests.engine.test_relax import _Bottleneck

    G = _graph(2, weighted=True)
    want = hp.run(_Bottleneck, G, backend="cpu", start=start)
    assert np.isfinite(want.m).any()
    OPS.clear()
    got = emulated(_Bottleneck, G, start=start, direction=direction)
    np.testing.assert_array_equal(got.m, want.m)
    assert OPS["pull_reached"] == 0


def test_pulls_by_value_need_packed_winners():
    """A witness pass looks among the frontier's senders only: a program whose winners do not
    pack (a float64 value, or 64-bit vertex ids) keeps pulling by frontier bits."""
    from hpgraph.engine import codegen

    from tests.engine.test_relax import SSSPW, _NearFar64

    G = _graph(1, weighted=True)
    bind = program.bind
    assert not codegen.pull_reached_ok(bind(_NearFar64, G, {}, None, None), np.int32)
    assert codegen.pull_reached_ok(bind(SSSPW, G, {}, None, None), np.int32)
    assert not codegen.pull_reached_ok(bind(SSSPW, G, {}, None, None), np.int64)
    assert codegen.pull_reached_ok(bind(_SeededSSSP, G, {}, None, None), np.int64)


def test_emulated_reached_word_follows_each_run_on_a_kept_state(emulated):
    """S_REACHED is set or cleared by every run's setup: runs alternating between a rule start
    and an array start (with 1 and 12 initial vertices) on one kept state each pull as their
    own start allows, and each gives the CPU engine's distances."""
    G = _graph(6, n=60, m=300, weighted=True)
    for rule, many in ((True, False), (False, False), (True, True), (False, True),
                       (True, False), (False, True)):
        want = hp.run(_EitherStartSSSP, G, backend="cpu", rule=rule, many=many)
        OPS.clear()
        got = emulated(_EitherStartSSSP, G, rule=rule, many=many, direction="pull")
        np.testing.assert_array_equal(got.dist, want.dist, err_msg=f"rule={rule} many={many}")
        assert (OPS["pull_reached"] > 0) == rule, (rule, many)


def test_emulated_reached_pulls_only_where_the_start_allows(emulated, monkeypatch):
    """What the rule of the start guards against: forced on for a program whose vertices start
    at their ids, pulls would send the starts of vertices never active (other distances than
    the CPU engine's)."""
    G = _graph(4, n=60, m=300, weighted=True)
    want = hp.run(_ArrayHeadStartSSSP, G, backend="cpu", source=0)
    monkeypatch.setattr(gpu, "_starts_at_identity", lambda bp, idt: True)
    got = emulated(_ArrayHeadStartSSSP, G, source=0, direction="pull")
    assert not np.array_equal(got.dist, want.dist)


def test_emulated_reached_pulls_need_the_relaxation(emulated):
    """Without the relaxation (hp.config["engine_relax"] off) pulls read the frontier bits."""
    G = _graph(3, weighted=True)
    want = hp.run(_SeededSSSP, G, backend="cpu", source=0)
    with hp.config.set(engine_relax=False):
        OPS.clear()
        got = emulated(_SeededSSSP, G, source=0, direction="pull")
    np.testing.assert_array_equal(got.dist, want.dist)
    assert OPS["pull_reached"] == 0
