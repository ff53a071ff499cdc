"""The GPU engine's host loop, run against Python emulations of its kernels (no GPU needed).

The device state machine -- parity-selected double buffers, the frontier counters, the halt
flag (empty frontier / blind push batch outgrowing the threshold), the history ring, blind
batches and their CUDA-graph replay -- lives half in ``engine/gpu.py`` and half in the
kernels.  Here the kernels are replaced by sequential Python transcriptions of
``templates/engine.cu`` (same arguments, same state updates), CuPy by NumPy, and a captured
"graph" records launches to replay them later, so CI checks that logic against the CPU engine.
"""

from __future__ import annotations

import collections
import time
import types
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
from tests.engine._programs import Mixed

HALT, EXEC, STEP, CNT, EDG, TCNT, DONE, HCNT = 0, 1, 2, 3, 5, 7, 8, 9
TRACK = 19

#: What the host asked of the "device" (outside kernels): launch:<kernel>, fill, setitem,
#: astype, copyto, d2d, h2d, d2h, alloc, graph.  Reset by the tests that read it.
OPS = collections.Counter()
#: deferred units (the block loop) of the emulated backend report ready after this many looks
LATE = {"looks": 0}


class _Late:
    """A deferred module (``kernel_cache.Deferred``) whose compile ends after ``looks`` calls
    of :meth:`ready`."""

    def __init__(self, mod, looks):
        self.mod, self.left = mod, looks

    def ready(self):
        OPS["late_looks"] += 1
        self.left -= 1
        return self.left < 0

    def module(self):
        assert self.left < 0, "a deferred module was used before it was ready"
        if LATE.get("fail"):
            raise hp.exceptions.CompileError("NVRTC failed (emulated)", source="", log="")
        return self.mod
_IN_KERNEL = [0]


def _count(what):
    if not _IN_KERNEL[0]:
        OPS[what] += 1


def _run_kernel(fn, args):
    _IN_KERNEL[0] += 1
    try:
        fn(args)
    finally:
        _IN_KERNEL[0] -= 1


class _Capture:
    active = None


class _Graph:
    def __init__(self, calls):
        self.calls = calls

    def upload(self, stream=None):
        pass

    def launch(self, stream=None):
        _count("graph")
        for fn, args in self.calls:
            _run_kernel(fn, args)


class _Stream:
    def __init__(self, non_blocking=False):
        pass

    def record(self):
        return object()

    def wait_event(self, event):
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


class _Mem:
    """A device pointer of :class:`_Array` (``.ptr``, device-to-device copies)."""

    def __init__(self, arr):
        self.arr = arr
        self.ptr = arr.__array_interface__["data"][0]

    def copy_from_device_async(self, src, nbytes, stream=None):
        _count("d2d")
        np.asarray(self.arr).reshape(-1).view(np.uint8)[:nbytes] = \
            np.asarray(src.arr).reshape(-1).view(np.uint8)[:nbytes]


class _Array(np.ndarray):
    """A "device" array: NumPy plus what the engine uses of CuPy's (``set``, ``data.ptr``),
    every host request counted in :data:`OPS` (kernels' own accesses are not)."""

    def set(self, arr, stream=None):
        _count("h2d")
        self[...] = arr

    @property
    def data(self):
        return _Mem(self)

    def fill(self, value):
        _count("fill")
        np.ndarray.fill(self, value)

    def copy(self, order="C"):
        _count("d2d")
        _count("alloc")
        return np.ndarray.copy(self, order)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        if copy or np.dtype(dtype) != self.dtype:
            _count("astype")
            _count("alloc")
        return np.ndarray.astype(self, dtype, order, casting, subok, copy)

    def __setitem__(self, key, value):
        _count("setitem")
        np.ndarray.__setitem__(self, key, value)


def _dev(a):
    return np.asarray(a).view(_Array)


class _FakeCupy:
    """NumPy standing in for CuPy (only what engine/gpu.py and the BFS wrapper use); arrays
    it makes are :class:`_Array` ("device" arrays), requests counted in :data:`OPS`."""

    cuda = types.SimpleNamespace(
        Stream=_Stream, get_current_stream=lambda: _Stream(),
        Device=lambda *a: types.SimpleNamespace(attributes={"MultiProcessorCount": 4}))

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def empty(n, dtype):
        _count("alloc")
        return _dev(np.empty(n, dtype))

    @staticmethod
    def zeros(n, dtype=float):
        _count("alloc")
        _count("fill")
        return _dev(np.zeros(n, dtype))

    @staticmethod
    def full(n, value, dtype=None):
        _count("alloc")
        _count("fill")
        return _dev(np.full(n, value, dtype))

    @staticmethod
    def arange(*a, **kw):
        _count("alloc")
        _count("fill")
        return _dev(np.arange(*a, **kw))

    @staticmethod
    def asarray(a, dtype=None):
        if isinstance(a, _Array) and (dtype is None or np.dtype(dtype) == a.dtype):
            return a
        _count("alloc")
        _count("d2d" if isinstance(a, _Array) else "h2d")
        return _dev(np.array(a, dtype=dtype))

    @staticmethod
    def ascontiguousarray(a):
        return _dev(np.ascontiguousarray(a))

    @staticmethod
    def copyto(dst, src, casting="same_kind"):
        _count("copyto")
        np.copyto(np.asarray(dst), src, casting=casting)

    @staticmethod
    def asnumpy(a, stream=None):
        _count("d2h")
        return np.array(a, copy=True)


def _heavy_add(qh, st, word, v, d):
    """hp_heavy_add: a heavy row's chunk entries v, -1, -2, ... at the end of the list."""
    b = int(st[word])
    nch = -(-d // codegen.HEAVY)
    qh[b] = v
    for x in range(1, nch):
        qh[b + x] = -x
    st[word] += nch


class _Kernels:
    """Sequential transcriptions of the kernels of templates/engine.cu."""

    def __init__(self, bp):
        self.bp = bp
        self.k = bp.kernels
        self.m = bp.monoid

    # helpers
    def add(self, a, b):
        if self.m.terminal_any:   # the kernels' ``any``: keep a unless it is the identity
            return b if self.same(a, self.m.identity) else a
        return self.m.np_add(np.array([a], self.m.dtype), np.array([b], self.m.dtype))[0]

    def same(self, a, b):
        return np.array(a, self.m.dtype).tobytes() == np.array(b, self.m.dtype).tobytes()

    def term(self, a):
        if self.m.terminal_any:   # finished once it holds a value
            return not self.same(a, self.m.identity)
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
                _count("launch:" + name)
                _run_kernel(fn, args)
        return call

    # kernels
    def mask(self, props):
        m = self.k.mask_np(props)
        return None if m is None else m.copy()

    @staticmethod
    def pushes(st, cur, limit):
        return int(st[EDG + cur]) <= int(limit)

    @staticmethod
    def tracks(st, cur):
        return int(st[EDG + cur]) <= int(st[TRACK])

    def hp_pull_ell(self, a):
        ell_idx, ell_val, n, K, bm0, bm1, y, st, limit, mode, *pa = a
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        if st[CNT + cur] == 0:
            return
        if mode == 1 and self.pushes(st, cur, limit):
            return
        bm, props = (bm1 if cur else bm0), self.props(pa)
        recv = self.mask(props)
        for v in range(int(n)):
            if recv is not None and not recv[v]:
                continue
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
        seg_row, seg_ptr, nseg, col, val, bm0, bm1, y, st, limit, mode, *pa = a
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        if st[CNT + cur] == 0:
            return
        if mode == 1 and self.pushes(st, cur, limit):
            return
        bm, props = (bm1 if cur else bm0), self.props(pa)
        recv = self.mask(props)
        for s in range(int(nseg)):
            row = int(seg_row[s])
            split = row < 0
            row = -row - 1 if split else row
            if recv is not None and not recv[row]:
                continue
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
        (indptr, indices, vals, q0, q1, qh0, qh1, deg, y, tbm, tq, st, limit, mode, first, track,
         *pa) = a
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        cnt = int(st[CNT + cur])
        if cnt == 0:
            return
        if mode != 0 and not self.pushes(st, cur, limit):
            if mode == 2 and first:
                st[HALT] = 2
            return
        q, props = (q1 if cur else q0), self.props(pa)
        recv = self.mask(props)
        track = track and self.tracks(st, cur)
        qh, hcnt = (qh1 if cur else qh0), int(st[HCNT + cur])
        entries = [int(qh[h]) for h in range(hcnt)]
        heavy = [x for x in entries if x >= 0]   # the first chunk of each heavy row
        assert sorted(heavy) == sorted(int(q[i]) for i in range(cnt)
                                       if deg[int(q[i])] > codegen.HEAVY)
        assert hcnt == sum(-(-int(deg[u]) // codegen.HEAVY) for u in heavy)
        light = [int(q[i]) for i in range(cnt) if not (hcnt and deg[int(q[i])] > codegen.HEAVY)]
        for u in light + heavy:
            for e in range(int(indptr[u]), int(indptr[u + 1])):
                v = int(indices[e])
                if recv is not None and not recv[v]:
                    continue
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
        touched = touched and self.tracks(st, cur)
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
                    _heavy_add(qh_nxt, st, HCNT + nxt, v, int(deg[v]))
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

    def hp_apply_auto(self, a):
        *head, limit = a[:15]
        st = head[11]
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        if st[CNT + cur] == 0:
            return
        if self.pushes(st, cur, limit):
            self._apply(tuple(head) + (0,) + tuple(a[15:]), self.bp.apply_to == "received")
        else:
            self._apply(tuple(head) + (1,) + tuple(a[15:]), False)

    def hp_block_loop(self, a):
        """hp_block_loop: push + APPLY (touched) supersteps while the frontier is small."""
        big, n, nparts, max_steps, limit, dirmode, track, *rest = a
        parts, rest = [rest[0:11], rest[11:22]], rest[22:]
        y, bm0, bm1, q0, q1, qh0, qh1, tbm, tq, deg, st, hist, cap, *pa = rest
        assert self.bp.witness is None and self.bp.priority is None
        for _ in range(int(max_steps)):
            cur = int(st[EXEC]) & 1
            if st[HALT] or st[CNT + cur] == 0 or int(st[EDG + cur]) > int(big):
                break
            for part in parts[:int(nparts)]:
                indptr, indices, vals = part[8:11]
                self.hp_push((indptr, indices, vals, q0, q1, qh0, qh1, deg, y, tbm, tq, st,
                              limit, 0, 0, track, *pa))
            self._apply((n, y, bm0, bm1, q0, q1, qh0, qh1, tbm, tq, deg, st, hist, cap, 0, *pa),
                        True)
        OPS["block_loop"] += 1

    def hp_init_fused(self, a):
        n, frontier, nids, *rest = a
        hid, rest = [int(x) for x in rest[:gpu.INLINE_IDS]], rest[gpu.INLINE_IDS:]
        deg, bm0, q0, qh0, st, track_edges, fmode, smode, *rest = rest
        nprop = len(self.bp.props)
        vals, pa = rest[:2 * nprop], rest[2 * nprop:]
        assert len(pa) == nprop and all(isinstance(x, np.uint64) for x in vals)
        if frontier:
            assert not bm0.any()                  # the bitmasks are zero here
            st[:32] = 0
            st[CNT] = nids
            st[HALT] = 1 if nids == 0 else 0
            st[TRACK] = track_edges
            for i in range(int(nids)):
                v = hid[i]
                q0[i] = v
                bm0[v >> 5] |= np.uint32(1 << (v & 31))
                st[EDG] += np.uint64(deg[v])
                if deg[v] > codegen.HEAVY:
                    _heavy_add(qh0, st, HCNT, v, int(deg[v]))
        seeds = hid[:int(nids)] if smode else []
        for i, (p, arr) in enumerate(zip(self.bp.props, pa)):
            f, sm = (int(fmode) >> (2 * i)) & 3, (int(smode) >> (2 * i)) & 3
            if not f:
                continue
            ids = np.arange(int(n))
            arr[:] = (ids.astype(p.dtype) if f == 2 else
                      np.array([vals[2 * i]], np.uint64).view(np.uint8)[:p.dtype.itemsize]
                      .view(p.dtype)[0])
            if sm:
                for v in seeds:
                    arr[v] = (v if sm == 2 else
                              np.array([vals[2 * i + 1]], np.uint64).view(np.uint8)
                              [:p.dtype.itemsize].view(p.dtype)[0])

    def hp_init_frontier(self, a):
        ids, nids, every, deg, bm0, q0, qh0, st, track_edges = a
        assert not st.any() and not bm0.any()     # the host zeroed both
        st[CNT] = nids
        st[HALT] = 1 if nids == 0 else 0
        st[TRACK] = track_edges
        for i in range(int(nids)):
            v = i if every else int(ids[i])
            q0[i] = v
            bm0[v >> 5] |= np.uint32(1 << (v & 31))
            st[EDG] += np.uint64(deg[v])
            if deg[v] > codegen.HEAVY:
                _heavy_add(qh0, st, HCNT, v, int(deg[v]))


@pytest.fixture
def emulated(monkeypatch, request):
    """``run(prog, G, ...)`` through gpu.execute on emulated kernels."""
    # the emulated kernels are the host loop's; the device loop is tested on the GPU
    restore = hp.config.set(engine_loop="host")
    request.addfinalizer(lambda: restore.__exit__(None, None, None))
    fake = _FakeCupy()
    state = {}

    def program_source(bp, idt):
        # one "source" per program code, as the real generator (the engine caches sources)
        src = f"// emulated {len(state)}"
        state[src] = bp
        return src

    def raw_module(src, options=()):
        kern = _Kernels(state[src])
        return types.SimpleNamespace(get_function=kern.launch)

    def raw_modules(src, option_sets, defer=()):
        # deferred units (the block loop): ready at once unless a test sets LATE["looks"]
        return [_Late(raw_module(src, o), LATE["looks"]) if o in defer and LATE["looks"]
                else raw_module(src, o) for o in option_sets]

    be = types.SimpleNamespace(cupy=lambda: fake, raw_module=raw_module, raw_modules=raw_modules,
                               out_of_memory_guard=hp.backend.out_of_memory_guard,
                               to_host=lambda a: a, num_sms=lambda: 4,
                               is_device_array=lambda a: isinstance(a, _Array),
                               capture_graph=hp.backend.capture_graph)
    monkeypatch.setattr(gpu, "_backend", be)
    monkeypatch.setattr(gpu_state, "_backend", be)
    # run states and sources made here must never meet a real GPU run (and vice versa)
    monkeypatch.setattr(gpu_state, "_states", weakref.WeakKeyDictionary())
    monkeypatch.setattr(gpu_state, "_source_cache", {})
    monkeypatch.setattr(codegen, "program_source", program_source)
    monkeypatch.setattr(gpu_state, "HIST_CAP", 64)      # small ring: exercises the wrap-around
    monkeypatch.setattr(gpu_state, "CHUNK", 2)          # split COO-tail rows into chunks
    monkeypatch.setattr(codegen, "HEAVY", 6)      # heavy push rows

    # push_alpha: the CPU engine's default (common.default_push_alpha), so that the tests can
    # compare directions superstep by superstep
    def run(prog, G, direction="auto", push_alpha=4.0, max_iterations=None,
            outputs=None, **params):
        bp = program.bind(prog, G, params, max_iterations, outputs)
        return gpu.execute(bp, G, direction=direction, push_alpha=push_alpha,
                           t_start=time.perf_counter())
    return run


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
        b = emulated(prog, G, direction=direction, **params)
        np.testing.assert_array_equal(b.properties[prop], a.properties[prop])
        assert (b.supersteps, b.active, b.directions, b.frontier_edges) == \
            (a.supersteps, a.active, a.directions, a.frontier_edges)
        assert b.converged == a.converged


@pytest.mark.parametrize("track_edges", [0, 5, None])
@pytest.mark.parametrize("prog,prop,params", PROGS[:3], ids=[p[0].__name__ for p in PROGS[:3]])
def test_emulated_untracked_pushes(emulated, prog, prop, params, track_edges):
    """Pushes of frontiers with more push edges than engine_track_edges record no receivers
    and APPLY scans every vertex: the same results and supersteps as the CPU engine."""
    G = _graph(directed=True)
    a = hp.run(prog, G, backend="cpu", direction="push", **params)
    with hp.config.set(engine_track_edges=track_edges):
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
