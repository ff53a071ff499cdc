"""The GPU engine's host loop, run against Python emulations of its kernels (no GPU needed).

The device state machine -- parity-selected double buffers, the frontier counters, the halt
flag (empty frontier / blind push batch outgrowing the threshold), the history ring, blind
batches and their CUDA-graph replay -- lives half in ``engine/gpu.py`` and half in the
kernels.  Here the kernels are replaced by sequential Python transcriptions of
``templates/engine.cu`` (same arguments, same state updates), CuPy by NumPy, and a captured
"graph" records launches to replay them later, so CI checks that logic against the CPU engine.
"""

from __future__ import annotations

import time
import types

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import program
from hpgraph.engine import codegen, common, gpu

from examples.bfs import BFSDepth
from examples.out_degree import OutDegree
from examples.pagerank import PageRank
from examples.sssp import SSSP
from examples.widest_path import MinLabelBelow, WidestPath

HALT, EXEC, STEP, CNT, EDG, TCNT, DONE, HCNT = 0, 1, 2, 3, 5, 7, 8, 9


class _Capture:
    active = None


class _Graph:
    def __init__(self, calls):
        self.calls = calls

    def upload(self, stream=None):
        pass

    def launch(self, stream=None):
        for fn, args in self.calls:
            fn(args)


class _Stream:
    def __init__(self, non_blocking=False):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass

    def begin_capture(self):
        _Capture.active = []

    def end_capture(self):
        calls, _Capture.active = _Capture.active, None
        return _Graph(calls)


class _FakeCupy:
    """NumPy standing in for CuPy (only what engine/gpu.py uses)."""

    cuda = types.SimpleNamespace(
        Stream=_Stream,
        Device=lambda *a: types.SimpleNamespace(attributes={"MultiProcessorCount": 4}))

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def asnumpy(a, stream=None):
        return np.array(a, copy=True)


class _Kernels:
    """Sequential transcriptions of the kernels of templates/engine.cu."""

    def __init__(self, bp):
        self.bp = bp
        self.k = bp.kernels
        self.m = bp.monoid

    # helpers
    def add(self, a, b):
        return self.m.np_add(np.array([a], self.m.dtype), np.array([b], self.m.dtype))[0]

    def same(self, a, b):
        return np.array(a, self.m.dtype).tobytes() == np.array(b, self.m.dtype).tobytes()

    def term(self, a):
        if self.m.terminal_any:
            return True
        return self.m.terminal is not None and a == self.m.terminal

    def props(self, arrays):
        return {p.name: a for p, a in zip(self.bp.props, arrays)}

    def gather(self, props, u, w, v):
        w = np.array([1 if not self.bp.weighted else w], self.bp.edge_dtype)
        return self.k.gather_np(props, np.array([u]), w, np.array([v]))[0]

    def w(self, vals, pos):
        return vals[pos] if self.bp.weighted else 1   # unweighted: a 1-element dummy array

    @staticmethod
    def bit(bm, u):
        return (int(bm[u >> 5]) >> (u & 31)) & 1

    def launch(self, name):
        fn = getattr(self, name)

        def call(grid, block, args):
            if _Capture.active is not None:
                _Capture.active.append((fn, args))
            else:
                fn(args)
        return call

    # kernels
    def hp_pull_ell(self, a):
        ell_idx, ell_val, n, K, bm0, bm1, y, st, *pa = a
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        if st[CNT + cur] == 0:
            return
        bm, props = (bm1 if cur else bm0), self.props(pa)
        for v in range(int(n)):
            acc = y[v]
            if self.term(acc):
                continue
            for k in range(int(K)):
                pos = k * int(n) + v
                u = int(ell_idx[pos])
                if u < 0:
                    break
                if self.bp.gather_from != "all" and not self.bit(bm, u):
                    continue
                acc = self.add(acc, self.gather(props, u, self.w(ell_val, pos), v))
                if self.term(acc):
                    break
            y[v] = acc

    def hp_pull_coo(self, a):
        seg_row, seg_ptr, nseg, col, val, bm0, bm1, y, st, *pa = a
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        if st[CNT + cur] == 0:
            return
        bm, props = (bm1 if cur else bm0), self.props(pa)
        for s in range(int(nseg)):
            row = int(seg_row[s])
            split = row < 0
            row = -row - 1 if split else row
            acc0 = y[row]
            if self.term(acc0):
                continue
            acc = self.m.identity
            for e in range(int(seg_ptr[s]), int(seg_ptr[s + 1])):
                u = int(col[e])
                if self.bp.gather_from == "all" or self.bit(bm, u):
                    acc = self.add(acc, self.gather(props, u, self.w(val, e), row))
            y[row] = self.add(y[row] if split else acc0, acc)   # split: the monoid's atomic

    def hp_push(self, a):
        indptr, indices, vals, q0, q1, qh0, qh1, deg, y, tbm, tq, st, limit, first, track, *pa = a
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        cnt = int(st[CNT + cur])
        if cnt == 0:
            return
        if int(limit) != 0 and int(st[EDG + cur]) > int(limit):
            if first:
                st[HALT] = 2
            return
        q, props = (q1 if cur else q0), self.props(pa)
        qh, hcnt = (qh1 if cur else qh0), int(st[HCNT + cur])
        heavy = [int(qh[h]) for h in range(hcnt)]
        assert sorted(heavy) == sorted(int(q[i]) for i in range(cnt)
                                       if deg[int(q[i])] > codegen.HEAVY)
        light = [int(q[i]) for i in range(cnt) if not (hcnt and deg[int(q[i])] > codegen.HEAVY)]
        for u in light + heavy:
            for e in range(int(indptr[u]), int(indptr[u + 1])):
                v = int(indices[e])
                val = self.gather(props, u, self.w(vals, e), v)
                if self.m.idempotent and self.same(self.add(y[v], val), y[v]):
                    continue
                y[v] = self.add(y[v], val)
                if track and not self.bit(tbm, v):
                    tbm[v >> 5] |= np.uint32(1 << (v & 31))
                    tq[int(st[TCNT])] = v
                    st[TCNT] += 1

    def _apply(self, a, touched):
        n, y, bm0, bm1, q0, q1, qh0, qh1, tbm, tq, deg, st, hist, cap, d, *pa = a
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        nxt = cur ^ 1
        cnt = int(st[CNT + cur])
        if cnt == 0:
            return
        bm_cur, bm_nxt = (bm1, bm0) if cur else (bm0, bm1)
        q_cur, q_nxt = (q1, q0) if cur else (q0, q1)
        qh_nxt = qh0 if cur else qh1
        props = self.props(pa)
        N = int(st[TCNT]) if touched else int(n)
        ident = self.m.identity
        for i in range(N):
            v = int(tq[i]) if touched else i
            yv = y[v]
            none = self.same(yv, ident)
            if touched:
                tbm[v >> 5] = 0
            if not none:
                y[v] = ident
            if self.bp.apply_to == "received" and none:
                continue
            new = self.k.update_np(props, np.array([v]), np.array([yv], self.bp.y_dtype))
            changed = False
            for name, val in new.items():
                changed |= bool(common.np_changed(val, props[name][[v]],
                                                  self.bp.tolerances.get(name))[0])
                props[name][v] = val[0]
            if changed:
                bm_nxt[v >> 5] |= np.uint32(1 << (v & 31))
                q_nxt[int(st[CNT + nxt])] = v
                st[CNT + nxt] += 1
                st[EDG + nxt] += np.uint64(deg[v])
                if deg[v] > codegen.HEAVY:
                    qh_nxt[int(st[HCNT + nxt])] = v
                    st[HCNT + nxt] += 1
        for i in range(cnt):
            bm_cur[int(q_cur[i]) >> 5] = 0
        step = int(st[STEP])
        h = (step % int(cap)) * 3
        hist[h:h + 3] = [cnt, st[EDG + cur], d]
        st[STEP] = step + 1
        st[CNT + cur] = 0
        st[EDG + cur] = 0
        st[HCNT + cur] = 0
        st[TCNT] = 0
        st[DONE] = 0
        st[EXEC] += 1
        if st[CNT + nxt] == 0:
            st[HALT] = 1

    def hp_apply_all(self, a):
        self._apply(a, False)

    def hp_apply_touched(self, a):
        self._apply(a, True)


@pytest.fixture
def emulated(monkeypatch):
    fake = _FakeCupy()
    state = {}

    def program_source(bp, idt):
        state["bp"] = bp
        return "// emulated"

    def raw_module(src, options=()):
        kern = _Kernels(state["bp"])
        return types.SimpleNamespace(get_function=kern.launch)

    be = types.SimpleNamespace(cupy=lambda: fake, raw_module=raw_module,
                               out_of_memory_guard=hp.backend.out_of_memory_guard,
                               to_host=lambda a: a)
    monkeypatch.setattr(gpu, "_backend", be)
    monkeypatch.setattr(gpu.codegen, "program_source", program_source)
    monkeypatch.setattr(gpu, "HIST_CAP", 64)      # small ring: exercises the wrap-around
    monkeypatch.setattr(gpu, "CHUNK", 2)          # split COO-tail rows into chunks
    monkeypatch.setattr(codegen, "HEAVY", 6)      # heavy push rows

    def run(prog, G, direction="auto", push_alpha=program.PUSH_ALPHA, max_iterations=None,
            **params):
        bp = program.bind(prog, G, params, max_iterations)
        return gpu.execute(bp, G, direction=direction, push_alpha=push_alpha,
                           t_start=time.perf_counter())
    return run


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
        b = emulated(prog, G, direction=direction, **params)
        np.testing.assert_array_equal(b.properties[prop], a.properties[prop])
        assert (b.supersteps, b.active, b.directions, b.frontier_edges) == \
            (a.supersteps, a.active, a.directions, a.frontier_edges)
        assert b.converged == a.converged


def test_emulated_pagerank(emulated):
    G = _graph(3, weighted=False)
    a = hp.run(PageRank, G, backend="cpu")
    b = emulated(PageRank, G)
    np.testing.assert_allclose(b.rank, a.rank, atol=1e-13)
    assert b.supersteps == a.supersteps


def test_emulated_long_path_batches_graphs_ring(emulated):
    n = 300
    G = hp.Graph.from_edges(np.arange(n - 1), np.arange(1, n), np.ones(n - 1, np.float32),
                            num_vertices=n, directed=False)
    r = emulated(BFSDepth, G, source=0)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    assert r.supersteps == n and r.active == [1] * n and r.converged
    assert r.syncs < 20 and r.extra["graphs"] == [16, 64]
    r = emulated(SSSP, G, source=0, max_iterations=150)
    assert r.supersteps == 150 and not r.converged
    assert r.dist[150] == 150 and np.isinf(r.dist[151])


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
