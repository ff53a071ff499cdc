"""Priority ordering (near-far buckets), winner witnesses, the superstep cap and the GPU's
device loop, for user-written vertex programs, against independent references (Dijkstra,
a BFS queue, a widest-path fixed point) on the awkward graph cases, on both backends."""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp
from examples.bfs import BFSParents  # BFS depths, parents as the witness of an `any` reduce
from hpgraph.exceptions import InvalidProgram, SuperstepLimitExceeded


class PrioSSSP(hp.VertexProgram):
    """The README's SSSP with a priority and a witness: near-far delta-stepping."""

    edges = "in"
    properties = {"dist": ("float64", np.inf), "pred": ("int64", -1)}
    edge_dtype = "float64"
    reduce = "min"
    apply_to = "received"
    priority = "dist"
    witness = "pred"

    def init(self, graph, source=0):
        return {"dist": hp.Seeded(np.inf, 0.0)}, [source]

    def gather(src, edge, dst):
        return src.dist + edge

    def update(v, y):
        return {"dist": min(v.dist, y)}


class PrioSSSPInt(PrioSSSP):
    """Integer distances: an integer priority (saturating thresholds) and an int32 witness."""

    properties = {"dist": ("int64", 2**62), "pred": ("int32", -1)}
    edge_dtype = "int64"

    def init(self, graph, source=0):
        return {"dist": hp.Seeded(2**62, 0)}, [source]


class PrioSSSP32(PrioSSSP):
    """float32 distances and int32 predecessors: winners packed with their values (exact, no
    witness pass), also from the chunks of split hub rows."""

    properties = {"dist": ("float32", np.inf), "pred": ("int32", -1)}
    edge_dtype = "float32"


class WidestPrio(hp.VertexProgram):
    """Widest (bottleneck) paths, larger widths first."""

    edges = "in"
    properties = {"width": ("float64", 0.0), "pred": ("int64", -1)}
    edge_dtype = "float64"
    reduce = "max"
    apply_to = "received"
    priority = "width"
    priority_order = "max"
    witness = "pred"

    def init(self, graph, source=0):
        return {"width": hp.Seeded(0.0, np.inf)}, [source]

    def gather(src, edge, dst):
        return min(src.width, edge)

    def update(v, y):
        return {"width": max(v.width, y)}


class Toggle(hp.VertexProgram):
    """Never settles: every vertex flips every superstep."""

    properties = {"x": "int32"}
    reduce = "max"

    def gather(src, edge, dst):
        return src.x

    def update(v, y):
        return 1 - v.x


LOOPS = ["cpu", pytest.param("device", marks=pytest.mark.gpu),
         pytest.param("host", marks=pytest.mark.gpu)]


def _run(prog, G, loop, **kw):
    backend = "cpu" if loop == "cpu" else "gpu"
    with hp.config.set(engine_loop="auto" if loop == "cpu" else loop):
        res = hp.run(prog, G, backend=backend, **kw)
    if loop != "cpu":
        assert res.extra["loop"] == loop
    return res


def _min_edges(refs, G):
    """{(u, v): smallest stored weight} (the graph's duplicate policy keeps the minimum)."""
    best = {}
    for u, v, w in refs.edge_list(G):
        best[(u, v)] = min(w, best.get((u, v), np.inf))
    return best


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("delta", [None, 1, 3.5, 1e9])
def test_priority_sssp_and_predecessors(case, refs, loop, delta):
    G = refs.build(case, "cpu" if loop == "cpu" else "gpu")
    n = G.num_vertices
    prog = type("P", (PrioSSSP,), {"priority_delta": delta})
    edges = _min_edges(refs, G)
    for source in sorted({0, n - 1}):
        res = _run(prog, G, loop, source=source)
        dist, pred = refs.host(res.dist), refs.host(res.pred)
        ref = refs.sssp(n, refs.edge_list(G), source)
        np.testing.assert_array_equal(dist, ref)
        assert pred[source] == -1
        for v in range(n):
            if v == source or not np.isfinite(ref[v]):
                assert pred[v] == -1 or v == source
                continue
            u = int(pred[v])
            assert (u, v) in edges and dist[u] + edges[(u, v)] == dist[v], (v, u)


@pytest.mark.parametrize("loop", LOOPS)
def test_priority_integer_property(case, refs, loop):
    G = refs.build(case, "cpu" if loop == "cpu" else "gpu")
    n = G.num_vertices
    res = _run(type("P", (PrioSSSPInt,), {"priority_delta": 2}), G, loop, source=0)
    ref = refs.sssp(n, refs.edge_list(G), 0)
    want = np.where(np.isfinite(ref), ref, 2**62).astype(np.int64)
    np.testing.assert_array_equal(refs.host(res.dist), want)
    assert refs.host(res.pred).dtype == np.int32


@pytest.mark.parametrize("loop", LOOPS)
def test_priority_max_order_widest(case, refs, loop):
    G = refs.build(case, "cpu" if loop == "cpu" else "gpu")
    n = G.num_vertices
    res = _run(WidestPrio, G, loop, source=0)
    width, pred = refs.host(res.width), refs.host(res.pred)
    ref = refs.widest(n, refs.edge_list(G), 0)
    np.testing.assert_array_equal(width, ref)
    edges = _min_edges(refs, G)
    for v in range(1, n):
        if ref[v] > 0:
            u = int(pred[v])
            assert (u, v) in edges and min(width[u], edges[(u, v)]) == width[v]


@pytest.mark.parametrize("loop", LOOPS)
def test_witness_bfs_parents(case, refs, loop):
    G = refs.build(case, "cpu" if loop == "cpu" else "gpu")
    n = G.num_vertices
    res = _run(BFSParents, G, loop, source=0)
    depth, parent = refs.host(res.depth), refs.host(res.parent)
    ref = refs.bfs(n, refs.edge_list(G), 0)
    np.testing.assert_array_equal(depth, ref)
    edges = _min_edges(refs, G)
    assert parent[0] == 0
    for v in range(1, n):
        if ref[v] < 0:
            assert parent[v] == -1
        else:
            u = int(parent[v])
            assert (u, v) in edges and depth[u] == depth[v] - 1


@pytest.mark.gpu
@pytest.mark.parametrize("prog,prop", [(PrioSSSP, "dist"), (WidestPrio, "width"),
                                       (BFSParents, "depth")])
def test_gpu_loops_equal_cpu_on_rmat(prog, prop):
    G = hp.rmat(10, seed=3, weights=(1, 20), backend="cpu")
    want = hp.run(prog, G, backend="cpu", source=1)
    for loop in ("device", "host"):
        for _ in range(3):      # reused run states: barrier words and far sets reset
            got = _run(prog, G.to_device(), loop, source=1)
            np.testing.assert_array_equal(hp.backend.to_host(got[prop]), want[prop])
    # the priority splits the same way on both backends: identical supersteps
    if prog.priority is not None:
        assert got.supersteps == want.supersteps and got.active == want.active


@pytest.mark.gpu
def test_device_loop_unit_compiled_with_the_program_or_on_first_use(tmp_path):
    """A state made for a device-loop run compiles hp_loop with the program's units; one made
    for a host-loop run gets it on its first device-loop run; both launch it cooperatively
    from hpgraph's cubin cache, with the CPU's results.  Without engine_loop_wait, a module new
    to the cache compiles in the background: that call takes the host loop and says why, and
    once it is compiled (kernel_cache.wait) the calls take the device loop."""
    from hpgraph import kernel_cache
    from hpgraph.engine import device_loop, gpu_state

    G = hp.rmat(9, seed=6, weights=(1, 20), backend="cpu")
    want = hp.run(PrioSSSP, G, backend="cpu", source=1)
    Gd = G.to_device()
    _gpu_engine().clear_cache()
    first = hp.run(PrioSSSP, Gd, backend="gpu", source=1, engine_loop="device")
    (st,) = gpu_state._states[Gd].values()
    assert first.extra["loop"] == "device" and "hp_loop" in st.k
    assert st.k["hp_loop"].enable_cooperative_groups      # cuLaunchCooperativeKernel
    np.testing.assert_array_equal(hp.backend.to_host(first.dist), want.dist)
    _gpu_engine().clear_cache()
    host = hp.run(PrioSSSP, Gd, backend="gpu", source=1, engine_loop="host")
    (st,) = gpu_state._states[Gd].values()
    assert host.extra["loop"] == "host" and "hp_loop" not in st.k
    later = hp.run(PrioSSSP, Gd, backend="gpu", source=1, engine_loop="device")
    assert later.extra["loop"] == "device" and st.k["hp_loop"].enable_cooperative_groups
    np.testing.assert_array_equal(hp.backend.to_host(later.dist), want.dist)
    # an empty kernel cache, not waiting: both ways of getting the loop compile in the
    # background, the call meanwhile on the host loop with the CPU's results
    for made_for_device in (True, False):
        _gpu_engine().clear_cache()
        with hp.config.set(engine_loop_wait=False, kernel_cache=str(tmp_path / str(made_for_device))):
            if not made_for_device:
                hp.run(PrioSSSP, Gd, backend="gpu", source=1, engine_loop="host")
            got = hp.run(PrioSSSP, Gd, backend="gpu", source=1, engine_loop="device")
            (st,) = gpu_state._states[Gd].values()
            assert got.extra["loop"] == "host" and got.extra["loop_fallback"] == device_loop.COMPILING
            assert st.compiling("hp_loop") and st.loop_refused is None and st.loop_kernel is None
            np.testing.assert_array_equal(hp.backend.to_host(got.dist), want.dist)
            kernel_cache.wait()
            got = hp.run(PrioSSSP, Gd, backend="gpu", source=1, engine_loop="device")
            assert got.extra["loop"] == "device" and "loop_fallback" not in got.extra
            assert st.k["hp_loop"].enable_cooperative_groups
            np.testing.assert_array_equal(hp.backend.to_host(got.dist), want.dist)
    _gpu_engine().clear_cache()


@pytest.mark.gpu
@pytest.mark.parametrize("prog,prop", [(PrioSSSP, "dist"), (PrioSSSP32, "dist"),
                                       (BFSParents, "depth")])
def test_gpu_loops_equal_cpu_on_large_frontiers(prog, prop):
    """More than 65,536 vertices (APPLY's scans of every vertex count the next frontier by
    block, and the far set with a priority); pushes of large frontiers record no receivers."""
    G = hp.rmat(17, edge_factor=8, seed=4, weights=(1, 20), backend="cpu")
    src = int(np.argmax(np.asarray(G.out_degree)))
    want = hp.run(prog, G, backend="cpu", source=src)
    A = G.to_scipy().tocsr()
    for loop in ("device", "host"):
        for direction, track in (("auto", None), ("push", None), ("push", G.A.nnz)):
            # track = every push edge: touched lists over 65,536 receivers, counted by block
            # superstep for superstep the CPU's (the relaxation's runs: test_relax.py)
            with hp.config.set(engine_track_edges=track, engine_relax=False):
                got = _run(prog, G.to_device(), loop, source=src, direction=direction)
            np.testing.assert_array_equal(hp.backend.to_host(got[prop]), want[prop])
            assert got.active == want.active
            # winners on tight edges (witness pass or packed words)
            val = hp.backend.to_host(got[prop]).astype(np.float64)
            win = hp.backend.to_host(got["pred" if "pred" in got.properties else "parent"])
            v = np.flatnonzero((val >= 0) & np.isfinite(val) & (np.arange(G.num_vertices) != src))
            w = np.asarray(A[win[v], v]).ravel() if prog is not BFSParents else 1.0
            np.testing.assert_array_equal(val[win[v]] + w, val[v])
    assert G.num_vertices > 65536 and max(want.frontier_edges) > G.num_vertices // 2


def test_priority_wastes_less_work():
    G = hp.grid_2d(24, 24, weights=(1, 10), seed=2, backend="cpu")
    plain = type("Plain", (PrioSSSP,), {"priority": None})
    near_far = type("NF", (PrioSSSP,), {"priority_delta": 4})
    a = hp.run(plain, G, backend="cpu", source=0)
    b = hp.run(near_far, G, backend="cpu", source=0)
    np.testing.assert_array_equal(a.dist, b.dist)
    assert sum(b.active) < sum(a.active)


@pytest.mark.parametrize("loop", LOOPS)
def test_superstep_cap(loop):
    G = hp.generators.path(6, backend="cpu")
    if loop != "cpu":
        G = G.to_device()
    with hp.config.set(max_supersteps=40):
        with pytest.raises(SuperstepLimitExceeded, match="Toggle.*max_supersteps"):
            _run(Toggle, G, loop)
        # an explicit max_iterations stops quietly instead
        res = _run(Toggle, G, loop, max_iterations=7)
    assert res.supersteps == 7 and not res.converged


@pytest.mark.gpu
def test_device_loop_refused_falls_back(monkeypatch):
    from hpgraph.engine import device_loop

    def refuse(run, max_steps):
        raise device_loop.LoopRefused("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (test)")

    monkeypatch.setattr(device_loop, "_launch", refuse)
    G = hp.rmat(8, seed=1, weights=(1, 9), backend="cpu")
    want = hp.run(PrioSSSP, G, backend="cpu", source=0)
    _gpu_engine().clear_cache()
    with hp.config.set(engine_loop="device"):
        got = hp.run(PrioSSSP, G.to_device(), backend="gpu", source=0)
    assert got.extra["loop"] == "host" and "TOO_LARGE" in got.extra["loop_fallback"]
    np.testing.assert_array_equal(hp.backend.to_host(got.dist), want.dist)
    _gpu_engine().clear_cache()
    # the call's own choice (hp.run(engine_loop=)) takes the same path
    got = hp.run(PrioSSSP, G.to_device(), backend="gpu", source=0, engine_loop="device")
    assert got.extra["loop"] == "host" and "TOO_LARGE" in got.extra["loop_fallback"]
    np.testing.assert_array_equal(hp.backend.to_host(got.dist), want.dist)
    _gpu_engine().clear_cache()


@pytest.mark.gpu
def test_device_loop_with_converged_hook_is_refused():
    class Hooked(PrioSSSP):
        def converged(self, stats):
            return False

    G = hp.generators.path(5, backend="gpu")
    with hp.config.set(engine_loop="device"):
        with pytest.raises(InvalidProgram, match="converged.*device loop"):
            hp.run(Hooked, G, backend="gpu", source=0)
        assert hp.run(Hooked, G, backend="gpu", source=0, engine_loop="host").extra["loop"] \
            == "host"
    assert hp.run(Hooked, G, backend="gpu", source=0).extra["loop"] == "host"
    with pytest.raises(InvalidProgram, match="converged.*device loop"):
        hp.run(Hooked, G, backend="gpu", source=0, engine_loop="device")
    # and a program without the hook runs its call on the device loop it asks for
    assert hp.run(PrioSSSP, G, backend="gpu", source=0, engine_loop="device").extra["loop"] \
        == "device"


def test_device_loop_module_compiles_with_nvrtc():
    pytest.importorskip("cupy")
    from hpgraph import program
    from hpgraph.backend import compile_ptx
    from hpgraph.engine import codegen

    G = hp.Graph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], num_vertices=4)
    U = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, directed=False)
    for prog, graph in ((PrioSSSP, G), (PrioSSSPInt, G), (WidestPrio, G), (BFSParents, U),
                        (Toggle, U)):
        bp = program.bind(prog, graph, {} if prog is Toggle else {"source": 0})
        for idt in (np.int32, np.int64):
            src = codegen.program_source(bp, np.dtype(idt))
            try:
                compile_ptx("#define HP_PERSISTENT 1\n" + src)
                compile_ptx(src)
                # the device loop's module: hp_loop alone
                ptx = compile_ptx("#define HP_PERSISTENT 1\n" + src, options=("-DHP_UNIT=8",))
                assert ".entry hp_loop" in ptx and "hp_block_loop" not in ptx
            except hp.exceptions.CompileError as exc:   # pragma: no cover - shows the log
                pytest.fail(f"{prog.__name__}: {exc.log[:2000]}")


@pytest.mark.parametrize("attrs,match", [
    ({"priority": "nope"}, "priority must name one of its properties"),
    ({"priority": "flag"}, "cannot be ordered"),
    ({"priority_order": "up"}, "priority_order must be one of"),
    ({"priority_delta": 0}, "priority_delta must be a finite number > 0"),
    ({"priority_delta": float("inf")}, "priority_delta must be a finite number > 0"),
    ({"priority": "hops", "priority_delta": 1.5}, "whole number"),
    ({"witness": "dist"}, "witness.*expected an integer property"),
    ({"witness": "nope"}, "witness must name one of its properties"),
    ({"reduce": "plus"}, "needs a selecting reduce"),
    ({"gather_from": "all"}, "gather_from='active'"),
])
def test_bad_ordering_declarations(attrs, match):
    base = {"properties": {"dist": "float64", "pred": "int64", "flag": "bool", "hops": "int32"},
            "priority": "dist", "witness": "pred", "reduce": "min",
            "gather": lambda src, edge, dst: src.dist + edge,
            "update": lambda v, y: {"dist": min(v.dist, y)}}
    base.update(attrs)
    G = hp.generators.path(3, backend="cpu")
    with pytest.raises(InvalidProgram, match=match):
        cls = type("Bad", (hp.VertexProgram,), base)
        hp.run(cls, G, backend="cpu")


def test_witness_written_by_update_is_an_error():
    class Writes(PrioSSSP):
        def update(v, y):
            return {"dist": min(v.dist, y), "pred": 0}

    dist = np.zeros(3)
    G = hp.generators.path(3, backend="cpu")
    with pytest.raises(InvalidProgram, match="writes 'pred', its witness"):
        hp.run(Writes, G, backend="cpu", source=0)
    assert (dist == 0).all()


def test_witness_dtype_too_small_for_the_graph():
    class Small(BFSParents):
        properties = {"depth": ("int32", -1), "parent": ("int8", -1)}

        def init(self, graph, source=0):
            return {"depth": hp.Seeded(-1, 0)}, [source]

    G = hp.generators.path(300, backend="cpu")
    with pytest.raises(InvalidProgram, match="cannot hold vertex ids up to 299"):
        hp.run(Small, G, backend="cpu", source=0)


def _gpu_engine():
    from hpgraph.engine import gpu

    return gpu


@pytest.mark.gpu
@pytest.mark.parametrize("prog", [PrioSSSP, PrioSSSP32], ids=["witness-pass", "packed"])
@pytest.mark.parametrize("loop", ["device", "host"])
def test_witness_on_split_hub_rows(loop, prog):
    """Rows longer than K + CHUNK are split into chunks combined with atomics: their winner
    comes from the witness pass's scan, or from the packed (value, sender) words.  A star (one
    hub row of 6,000 in-edges) and weighted in-edges into the hub, pulled and pushed."""
    rng = np.random.default_rng(5)
    n = 6001
    leaves = np.arange(1, n)
    # 0 -> leaf, leaf -> 0 (the hub's in-row is long), and a few leaf -> leaf edges
    s = np.r_[np.zeros(n - 1, np.int64), leaves, rng.integers(1, n, 3000)]
    d = np.r_[leaves, np.zeros(n - 1, np.int64), rng.integers(1, n, 3000)]
    w = rng.integers(1, 50, s.size).astype(np.float64)
    G = hp.Graph.from_edges(s, d, w, num_vertices=n, directed=True)
    from tests.engine.conftest import edge_list, ref_sssp

    edges = {}
    for u, v, x in edge_list(G):
        edges[(u, v)] = min(x, edges.get((u, v), np.inf))
    for source in (1, 0):
        ref = ref_sssp(n, edge_list(G), source)
        for direction in ("pull", "push", "auto"):
            res = _run(prog, G.to_device(), loop, source=source, direction=direction)
            dist, pred = hp.backend.to_host(res.dist), hp.backend.to_host(res.pred)
            np.testing.assert_array_equal(dist, ref)
            v = np.flatnonzero(np.isfinite(ref) & (np.arange(n) != source))
            u = pred[v]
            assert (u >= 0).all()
            assert all(dist[a] + edges[(a, b)] == dist[b] for a, b in zip(u.tolist(), v.tolist()))
            if prog is PrioSSSP32:   # BFS parents (`any` on int32: packed too) on the same rows
                hops = ref_sssp(n, [(a, b, 1.0) for a, b, _ in edge_list(G)], source)
                res = _run(BFSParents, G.to_device(), loop, source=source, direction=direction)
                depth, parent = hp.backend.to_host(res.depth), hp.backend.to_host(res.parent)
                np.testing.assert_array_equal(np.where(depth < 0, np.inf, depth), hops)
                assert all((a, b) in edges and depth[a] == depth[b] - 1
                           for a, b in zip(parent[v].tolist(), v.tolist()))


@pytest.mark.gpu
def test_trace_times_every_gpu_superstep(caplog):
    G = hp.generators.path(5, backend="gpu")
    with hp.config.set(trace=True, engine_loop="host"), \
            caplog.at_level("INFO", logger="hpgraph.engine"):
        res = hp.run(PrioSSSP, G, backend="gpu", source=0)
    np.testing.assert_array_equal(hp.backend.to_host(res.dist), np.arange(5))
    assert len(res.extra["step_ms"]) == res.supersteps
    lines = [r.getMessage() for r in caplog.records if r.name == "hpgraph.engine"]
    assert len(lines) == 1 + res.supersteps and lines[-1].endswith("us on the GPU")


def test_default_delta_computed_once_per_graph(monkeypatch):
    """The default bucket width, 128 * mean |w| / mean degree, is kept per graph: binding a
    program again (every hp.run) does not recompute the mean (a reduction and a sync on the
    device)."""
    from hpgraph.engine import bind as _bind

    rng = np.random.default_rng(3)
    s, d = rng.integers(0, 50, 400), rng.integers(0, 50, 400)
    w = rng.integers(0, 9, 400).astype(np.float64) - 2.0         # negative and zero weights
    G = hp.Graph.from_edges(s, d, w, num_vertices=60, directed=True)
    vals = np.asarray(G.A.values, dtype=np.float64)
    want = 128.0 * np.abs(vals).mean() / (G.A.nnz / 60)
    calls = []
    real = _bind._mean_abs_weight
    monkeypatch.setattr(_bind, "_mean_abs_weight", lambda g: calls.append(1) or real(g))
    for _ in range(3):
        assert _bind.default_priority_delta(G) == pytest.approx(want, rel=1e-12)
        bp = _bind.bind(PrioSSSP, G, {"source": 0})
        assert float(bp.priority_delta) == pytest.approx(want, rel=1e-12)
    assert len(calls) == 1
