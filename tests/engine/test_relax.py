"""The relaxation (:mod:`hpgraph.engine.relax`): which programs relax, and what their runs give.

* recognition from the callbacks' source, condition by condition (CPU);
* the emulated kernels (no GPU): SSSP and BFS depths as the CPU engine's, and a witness over
  zero-weight cycles that is a tree of tight edges, also on a kept run state;
* on the device (``gpu`` marker): SSSP, BFS depths and the near-far SSSP with predecessors on
  R-MAT, grids, a long path and a graph of more than 65,536 vertices, on both loops, against
  SciPy; the predecessors a tree of tight edges; the pushes fused.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph import program
from hpgraph.engine import codegen

from examples.bfs import BFSDepth, BFSParents
from examples.sssp import SSSP, SSSP64, SSSPNearFar
from examples.widest_path import WidestPath
from tests.engine.test_ordering import PrioSSSP, PrioSSSPInt, WidestPrio

G0 = hp.Graph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], num_vertices=4)


class SSSPW(SSSP):
    """The README's SSSP with a witness (float32 values, int32 winners: packed)."""

    properties = {"dist": ("float32", np.inf), "pred": ("int32", -1)}
    witness = "pred"

    def init(self, graph, source=0):
        return {"dist": hp.Seeded(np.inf, 0.0)}, [int(source)]

    def update(v, y):
        return {"dist": min(v.dist, y)}


def _variant(**attrs):
    return type("Variant", (SSSP,), attrs)


def _relax(prog, graph=G0, **kw):
    return program.bind(prog, graph, {"source": 0}, **kw).relax


# forms that relax (gather non-decreasing in src.dist, update min(dist, y))
def _upd_swapped(v, y):
    return min(y, v.dist)


def _upd_dict(v, y):
    return {"dist": min(v.dist, y)}


def _g_swapped(src, edge, dst):
    return edge + src.dist


def _g_scaled(src, edge, dst):
    return src.dist + 2 * edge - 1


def _g_floor(src, edge, dst):
    return max(src.dist, edge)


# forms that do not
def _upd_plus(v, y):
    return min(v.dist, y + 1)


def _upd_max(v, y):
    return max(v.dist, y)


def _upd_branch(v, y):
    if y < v.dist:
        return y
    return v.dist


def _g_reversed(src, edge, dst):
    return edge - src.dist


def _g_dst(src, edge, dst):
    return src.dist + dst.dist


def _g_product(src, edge, dst):
    return src.dist * edge


def _g_neg(src, edge, dst):
    return -src.dist


def _g_twice(src, edge, dst):
    return src.dist + src.dist


def _mask(v):
    return v.dist > 0


@pytest.mark.parametrize("prog,prop", [
    (SSSP, "dist"), (BFSDepth, "depth"), (SSSPNearFar, "dist"), (WidestPrio, "width"),
    (PrioSSSPInt, "dist"), (PrioSSSP, "dist"),
    (_variant(update=_upd_swapped), "dist"), (_variant(update=_upd_dict), "dist"),
    (_variant(gather=_g_swapped), "dist"), (_variant(gather=_g_scaled), "dist"),
    (_variant(gather=_g_floor), "dist")])
def test_relaxing_programs(prog, prop):
    assert _relax(prog) == prop


@pytest.mark.parametrize("prog", [
    _variant(update=_upd_plus), _variant(update=_upd_max), _variant(update=_upd_branch),
    _variant(gather=_g_reversed), _variant(gather=_g_dst), _variant(gather=_g_product),
    _variant(gather=_g_neg), _variant(gather=_g_twice), _variant(mask=_mask),
    _variant(tolerance=1e-3),                       # an inexact change test
    _variant(edge_dtype="float64"),                 # y float64, dist float32
    _variant(reduce="max"),                         # update min under a max reduce
    _variant(apply_to="all"),
    _variant(properties={"dist": ("float32", np.inf), "hops": ("int32", 0)}, priority="hops",
             update=_upd_dict),
    _variant(priority="dist", priority_order="max"),
    WidestPath,                                     # a user-defined monoid
    BFSParents])                                    # `any` (claims, not relaxation)
def test_programs_that_do_not_relax(prog):
    assert _relax(prog) is None


def test_superstep_limits_and_the_switch_turn_it_off():
    assert _relax(SSSP, max_iterations=5) is None   # a result after k supersteps is the CPU's
    with hp.config.set(engine_relax=False):
        assert _relax(SSSP) is None
    assert _relax(SSSP) == "dist"


def test_fused_kind_and_kernels():
    """Relaxation (kind 2) where the winners pack (32-bit values and ids), else APPLY."""
    i32, i64 = np.dtype(np.int32), np.dtype(np.int64)
    sssp = program.bind(SSSP, G0, {"source": 0})
    near = program.bind(SSSPNearFar, G0, {"source": 0})
    wide = program.bind(PrioSSSP, G0, {"source": 0})          # float64: no packing
    assert codegen.fused_kind(sssp, i32) == codegen.fused_kind(sssp, i64) == 2
    assert (codegen.fused_kind(near, i32), codegen.fused_kind(near, i64)) == (2, 0)
    assert codegen.fused_kind(wide, i32) == 0
    assert codegen.fused_kind(program.bind(BFSParents, G0, {"source": 0}), i32) == 1
    names = codegen.kernel_names(near, i32)
    assert "hp_push_fused" in names and "hp_relax_witness" in names
    assert "hp_witness" not in names
    assert "hp_relax_witness" not in codegen.kernel_names(sssp, i32)


def test_relaxation_modules_compile_with_nvrtc():
    pytest.importorskip("cupy")
    from hpgraph.backend import compile_ptx

    for prog in (SSSP, SSSP64, SSSPNearFar, SSSPW, BFSDepth, PrioSSSPInt):
        bp = program.bind(prog, G0, {"source": 0})
        src = codegen.program_source(bp, np.dtype(np.int32))
        for unit in (2, 6):
            ptx = compile_ptx(src, f"relax{unit}.cu", options=codegen.unit_options(unit)[1:])
            want = unit == 6 and bp.witness is not None and \
                codegen.fused_kind(bp, np.dtype(np.int32)) == 2
            assert (".entry hp_relax_witness" in ptx) == want
        ptx = compile_ptx("#define HP_PERSISTENT 1\n" + src, "loop.cu", options=("-DHP_UNIT=8",))
        assert ".entry hp_loop" in ptx


def _min_weights(G):
    from tests.engine.conftest import edge_list

    best = {}
    for u, v, w in edge_list(G):
        best[(u, v)] = min(w, best.get((u, v), np.inf))
    return best


def _check_winners(G, dist, pred, src):
    """Every reached vertex but the source has a winner on a tight edge (float32 sums); the
    winners lead every vertex back to the source (a tree)."""
    dist = np.asarray(dist, np.float32)
    pred = np.asarray(pred, np.int64)
    w = _min_weights(G)
    reached = np.isfinite(dist)
    assert pred[src] == -1 and (pred[~reached] == -1).all()
    for v in np.flatnonzero(reached):
        if v == src:
            continue
        u = int(pred[v])
        assert (u, int(v)) in w, (u, v)
        assert np.float32(dist[u]) + np.float32(w[(u, int(v))]) == dist[v], (u, v)
    depth = np.full(len(dist), -1)
    depth[src] = 0
    for v in np.flatnonzero(reached):          # follow the winners: no cycle, ends at src
        path, x = [], int(v)
        while depth[x] < 0:
            path.append(x)
            x = int(pred[x])
            assert len(path) <= len(dist), "the winners form a cycle"
        for k, y in enumerate(reversed(path)):
            depth[y] = depth[x] + k + 1


@pytest.mark.parametrize("direction", ["push", "auto"])
def test_emulated_relaxation_equals_cpu(emulated, case, refs, direction):
    from tests.engine._emulator import OPS

    G = refs.build(case)
    n = G.num_vertices
    if n == 0:
        return
    for small in (0, None):                # without and with the block loop
        with hp.config.set(engine_small_frontier=small if small is not None else 256,
                           engine_track_edges=10**9):
            for prog, prop in ((SSSP, "dist"), (BFSDepth, "depth")):
                want = hp.run(prog, G, backend="cpu", source=0)
                OPS.clear()
                got = emulated(prog, G, source=0, direction=direction)
                np.testing.assert_array_equal(got.properties[prop], want.properties[prop])
                if direction == "push":
                    assert OPS["apply_supersteps"] == 0     # every push applied as it pushed


def test_emulated_large_pushes_relax_too(emulated):
    """A push superstep whose frontier has more push edges than engine_track_edges relaxes
    too (the GPU kernel then loads P before each atomic: the same values)."""
    from tests.engine._emulator import OPS

    G = hp.grid_2d(12, 12, weights=(1, 5), seed=1)
    want = hp.run(SSSP, G, backend="cpu", source=0)
    with hp.config.set(engine_small_frontier=0, engine_track_edges=12):
        OPS.clear()
        got = emulated(SSSP, G, source=0, direction="push")
    np.testing.assert_array_equal(got.dist, want.dist)
    assert sum(e > 12 for e in got.frontier_edges) > 0
    assert OPS["apply_supersteps"] == 0 and OPS["fused_supersteps"] == got.supersteps


def test_emulated_relaxation_witness_is_a_tree(emulated, case, refs):
    """Zero weights (cycles of them), self-loops, duplicates: the winners are a tree of tight
    edges; runs from other sources on the kept state (winners reset between runs) too."""
    from tests.engine._emulator import OPS

    G = refs.build(case)
    n = G.num_vertices
    if n == 0:
        return
    for src in (0, n - 1, n // 2, 0):
        want = hp.run(SSSPW, G, backend="cpu", source=src)
        OPS.clear()
        with hp.config.set(engine_track_edges=10**9):
            got = emulated(SSSPW, G, source=src, direction="push")
        np.testing.assert_array_equal(got.dist, want.dist)
        _check_winners(G, got.dist, got.pred, src)
        assert OPS["launch:hp_relax_witness"] == 1


class WidestW(WidestPrio):
    """``WidestPrio`` (built-in ``max``, a witness) in float32 / int32 (packed) and without
    the priority."""

    properties = {"width": ("float32", 0.0), "pred": ("int32", -1)}
    edge_dtype = "float32"
    priority = None


def test_emulated_relaxation_of_a_max_program(emulated, case, refs):
    """The ``max`` form: the widths of the CPU engine; every vertex of positive width but the
    source has a winner ``u`` with ``min(width[u], w(u, v)) == width[v]``, leading back to the
    source."""
    from tests.engine._emulator import OPS

    G = refs.build(case)
    n = G.num_vertices
    if n == 0:
        return
    assert _relax(WidestW, G) == "width"
    want = hp.run(WidestW, G, backend="cpu", source=0)
    OPS.clear()
    with hp.config.set(engine_track_edges=10**9):
        got = emulated(WidestW, G, source=0, direction="push")
    np.testing.assert_array_equal(got.width, want.width)
    assert OPS["fused_supersteps"] > 0 and OPS["apply_supersteps"] == 0
    from tests.engine.conftest import edge_list

    best = {}
    for u, v, x in edge_list(G):      # of stored duplicates the widest carries a width
        best[(u, v)] = max(x, best.get((u, v), -np.inf))
    width, pred = np.asarray(got.width), np.asarray(got.pred, np.int64)
    assert pred[0] == -1
    for v in np.flatnonzero(width > 0):
        if v == 0:
            continue
        u = int(pred[v])
        assert min(width[u], np.float32(best[(u, int(v))])) == width[v], (u, v)
        seen, x = 0, int(v)
        while x != 0:
            x = int(pred[x])
            seen += 1
            assert x >= 0 and seen <= n, "the winners do not lead to the source"


def _min_shadow():
    min = np.fmin      # noqa: A001 -- a name that shadows the builtin inside this closure

    def update(v, y):
        return min(v.dist, y)
    return update


def test_a_shadowed_min_does_not_relax():
    """``min`` captured from an enclosing scope is not the builtin: the form is not trusted."""
    try:
        bp = program.bind(_variant(update=_min_shadow()), G0, {"source": 0})
    except hp.exceptions.HpgraphError:      # the compiler may refuse the capture: fine too
        return
    assert bp.relax is None


def test_gather_reading_the_witness_does_not_relax():
    def gather(src, edge, dst):
        return src.dist + edge + src.pred * 0

    cls = type("ReadsWitness", (SSSPW,), {"gather": gather})
    assert _relax(cls) is None


# ---- on the device ------------------------------------------------------------------------

def _graphs():
    return {"rmat": hp.rmat(14, seed=3, weights=(0, 20), backend="cpu"),
            "grid": hp.grid_2d(96, 96, weights=(1, 9), seed=2),
            "path": hp.Graph.from_edges(np.arange(2999), np.arange(1, 3000),
                                        np.ones(2999, np.float32), num_vertices=3000,
                                        directed=False),
            "rmat17": hp.rmat(17, edge_factor=8, seed=4, weights=(1, 20), backend="cpu")}


def _check_relaxing_runs(G, Gd, A, src, dist, depth, name, loop, direction):
    """SSSP, BFS depths and near-far SSSP with predecessors on device graph Gd, against
    SciPy's distances and hops (and the predecessors as a tree of tight edges)."""
    r = hp.run(SSSP, Gd, backend="gpu", source=src, direction=direction)
    assert r.extra["loop"] == loop
    np.testing.assert_array_equal(hp.backend.to_host(r.dist), dist, err_msg=name)
    r = hp.run(BFSDepth, Gd, backend="gpu", source=src, direction=direction)
    np.testing.assert_array_equal(hp.backend.to_host(r.depth), depth, err_msg=name)
    r = hp.run(SSSPNearFar, Gd, backend="gpu", source=src, direction=direction)
    d = hp.backend.to_host(r.dist)
    np.testing.assert_array_equal(d, dist, err_msg=name)
    if name != "rmat17":                     # the tree walk is slow in Python
        _check_winners(G, d, hp.backend.to_host(r.pred), src)
    else:                                    # tight edges, vectorised
        p = hp.backend.to_host(r.pred)
        v = np.flatnonzero(np.isfinite(d) & (np.arange(len(d)) != src))
        w = np.asarray(A[p[v], v]).ravel().astype(np.float32)
        np.testing.assert_array_equal(d[p[v]] + w, d[v])


@pytest.mark.gpu
@pytest.mark.parametrize("loop", ["device", "host"])
def test_gpu_relaxation_equals_scipy(loop, monkeypatch):
    from hpgraph.engine import gpu

    fused = []
    real = gpu._Run._push_fused
    monkeypatch.setattr(gpu._Run, "_push_fused",
                        lambda self, *a, **k: (fused.append(1), real(self, *a, **k))[1])
    for name, G in _graphs().items():
        A = G.to_scipy().tocsr()
        src = int(np.argmax(hp.backend.to_host(G.out_degree)))
        dist = csg.dijkstra(A, indices=src).astype(np.float32)
        hops = csg.shortest_path(A, unweighted=True, indices=src)
        depth = np.where(np.isinf(hops), np.iinfo(np.int32).max, hops).astype(np.int32)
        Gd = G.to_device()
        # engine_track_edges=0: every push superstep takes the large frontiers' path (a load
        # of P before each atomic)
        for track in (None, 0):
            with hp.config.set(engine_loop=loop, engine_track_edges=track):
                # pull: SSSPNearFar starts as a rule (inf outside the source), so its pulls
                # take senders by their distance (hp_sends), the others by their bits
                for direction in ("auto", "push", "pull"):
                    for _ in range(2):                      # a kept run state the second time
                        _check_relaxing_runs(G, Gd, A, src, dist, depth, name, loop, direction)
    if loop == "host":
        assert fused                               # the host loop launched fused pushes


@pytest.mark.gpu
@pytest.mark.parametrize("loop", ["device", "host"])
def test_gpu_pulls_by_reached_senders_only_where_the_start_allows(loop):
    """The run sets S_REACHED (pulls take senders by their relaxed property) for a relaxation
    starting as a rule at the identity (SSSPNearFar), not for one starting from an array
    (the README SSSP); both give SciPy's distances, pulling every superstep."""
    from hpgraph.engine import common, gpu_state

    G = hp.rmat(12, edge_factor=8, seed=5, weights=(1, 20), backend="cpu")
    A = G.to_scipy().tocsr()
    src = int(np.argmax(hp.backend.to_host(G.out_degree)))
    dist = csg.dijkstra(A, indices=src).astype(np.float32)
    Gd = G.to_device()
    for prog, word in ((SSSPNearFar, 1), (SSSP, 0)):
        _gpu_clear()
        r = hp.run(prog, Gd, backend="gpu", source=src, direction="pull", engine_loop=loop)
        np.testing.assert_array_equal(hp.backend.to_host(r.dist), dist, err_msg=prog.__name__)
        (st,) = gpu_state._states[Gd].values()
        assert int(st.st[common.S_REACHED].get()) == word, prog.__name__
    _gpu_clear()


class _Bottleneck(hp.VertexProgram):
    """The narrowest edge on a walk from the source, ``min(src.m, edge)``: a relaxation whose
    gather of the identity is not the identity.  Its initial vertices start at the identity
    too -- ``start``: a rule (``Seeded(inf, inf)``), a scalar, or every vertex active -- so
    its pulls must read frontier bits: the source sends its edges' weights."""

    properties = {"m": ("float32", np.inf)}
    reduce = "min"
    apply_to = "received"

    def init(self, graph, source=0, start="rule"):
        m = np.inf if start == "scalar" else hp.Seeded(np.inf, np.inf)
        return {"m": m}, ("all" if start == "all" else [int(source)])

    def gather(src, edge, dst):
        return min(src.m, edge)

    def update(v, y):
        return min(v.m, y)


def _bottleneck_ref(A, src):
    """NumPy fixed point of :class:`_Bottleneck`: every vertex ever active (the source, and
    each one that left inf) sends ``min(m, w)`` along its out-edges until nothing changes."""
    coo = A.tocoo()
    u, v, w = coo.row, coo.col, coo.data.astype(np.float32)
    m = np.full(A.shape[0], np.inf, np.float32)
    while True:
        sends = np.isfinite(m[u]) | (u == src)
        new = m.copy()
        np.minimum.at(new, v[sends], np.minimum(m[u][sends], w[sends]))
        if np.array_equal(new, m):
            return m
        m = new


class _NearFar64(SSSP64):
    """Near-far SSSP in float64 with predecessors: its winners do not pack into one word, so a
    witness pass finds them among the frontier's senders and its pulls read frontier bits."""

    properties = {"dist": ("float64", np.inf), "pred": ("int64", -1)}
    priority = "dist"
    witness = "pred"

    def init(self, graph, source=0):
        return {"dist": hp.Seeded(np.inf, 0.0)}, [int(source)]

    def update(v, y):
        return {"dist": min(v.dist, y)}


@pytest.mark.gpu
@pytest.mark.parametrize("loop", ["device", "host"])
@pytest.mark.parametrize("direction", ["pull", "auto"])
def test_gpu_starts_that_must_not_pull_by_value(loop, direction):
    """A source at the identity (the bottleneck program) and unpacked winners (float64 near-far
    SSSP with predecessors) never pull by value (S_REACHED stays 0): NumPy's bottlenecks,
    SciPy's distances, and predecessors on tight float64 edges forming a tree."""
    from hpgraph.engine import common, gpu_state

    G = hp.rmat(12, edge_factor=8, seed=5, weights=(1, 20), backend="cpu")
    A = G.to_scipy().tocsr()
    src = int(np.argmax(hp.backend.to_host(G.out_degree)))
    Gd = G.to_device()
    _gpu_clear()
    r = hp.run(_Bottleneck, Gd, backend="gpu", source=src, direction=direction,
               engine_loop=loop)
    np.testing.assert_array_equal(hp.backend.to_host(r.m), _bottleneck_ref(A, src))
    (st,) = gpu_state._states[Gd].values()
    assert int(st.st[common.S_REACHED].get()) == 0
    _gpu_clear()
    r = hp.run(_NearFar64, Gd, backend="gpu", source=src, direction=direction,
               engine_loop=loop)
    dist = hp.backend.to_host(r.dist)
    pred = hp.backend.to_host(r.pred).astype(np.int64)
    np.testing.assert_array_equal(dist, csg.dijkstra(A, indices=src))
    (st,) = gpu_state._states[Gd].values()
    assert int(st.st[common.S_REACHED].get()) == 0
    w = _min_weights(G)
    reached = np.isfinite(dist)
    assert pred[src] == -1 and (pred[~reached] == -1).all()
    for x in np.flatnonzero(reached):
        if x != src:
            assert dist[pred[x]] + np.float64(w[(int(pred[x]), int(x))]) == dist[x], x
    _gpu_clear()


def _gpu_clear():
    from hpgraph.engine import gpu

    gpu.clear_cache()


@pytest.mark.gpu
def test_gpu_relaxation_off_is_the_cpu_run():
    """engine_relax=False: superstep for superstep the CPU engine's run."""
    G = hp.grid_2d(40, 40, weights=(1, 9), seed=5)
    want = hp.run(SSSP, G, backend="cpu", source=0, push_alpha=4.0)
    with hp.config.set(engine_relax=False):
        got = hp.run(SSSP, G.to_device(), backend="gpu", source=0, push_alpha=4.0)
    np.testing.assert_array_equal(hp.backend.to_host(got.dist), want.dist)
    assert got.active == want.active


class WidestPrio32(WidestW):
    """``WidestW`` ordered by width, larger first: the relaxation's far set under ``max``."""

    priority = "width"
    priority_order = "max"


@pytest.mark.gpu
@pytest.mark.parametrize("loop", ["device", "host"])
def test_gpu_relaxation_of_a_max_program_with_a_priority(loop, refs):
    """The ``max`` form with a priority (the far set written by the push): widths as a plain
    Python reference's, every winner on an edge that carries the width, leading to the
    source."""
    for G in (hp.rmat(10, seed=5, weights=(0, 30), backend="cpu"),
              hp.grid_2d(32, 32, weights=(1, 9), seed=3)):
        edges = refs.edge_list(G)
        want = refs.widest(G.num_vertices, edges, 0).astype(np.float32)
        best = {}
        for u, v, x in edges:
            best[(u, v)] = max(x, best.get((u, v), -np.inf))
        assert codegen.fused_kind(program.bind(WidestPrio32, G, {}), np.dtype(np.int32)) == 2
        # twice (the second run on a kept state), then with every push loading P first
        for track in (None, None, 0):
            with hp.config.set(engine_loop=loop, engine_track_edges=track):
                r = hp.run(WidestPrio32, G.to_device(), backend="gpu", source=0)
                width = hp.backend.to_host(r.width)
                pred = hp.backend.to_host(r.pred).astype(np.int64)
                np.testing.assert_array_equal(width, want)
                for v in np.flatnonzero(width > 0):
                    if v == 0:
                        continue
                    u = int(pred[v])
                    assert min(width[u], np.float32(best[(u, int(v))])) == width[v], (u, v)
