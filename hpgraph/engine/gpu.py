"""The superstep loop on the GPU.

Per run: one generated CUDA module (:mod:`.codegen`), every buffer allocated once (properties
as structure of arrays, ``y``, two bitmasks and two frontier queues -- the paper's x_bitmask
and active_bitmask, swapped by parity --, the touched queue, a 16-word device state and a
history ring), and a fixed launch sequence per superstep:

* pull: ``hp_pull_ell`` (+ ``hp_pull_coo`` for the HYB tail) per gather side, ``hp_apply_all``;
* push: ``hp_push`` per gather side, ``hp_apply_touched`` (or ``hp_apply_all``).

Kernels find the current parity and frontier size in the device state, and the last block of
APPLY closes the superstep, so the host never has to look between supersteps.  It looks only
to choose the direction: after a pull superstep (large frontier: the superstep itself is
expensive), or after a *blind batch* of push supersteps -- 1, 2, 4, 8 launched directly, then
16 and 64 replayed as CUDA graphs -- which ends early on the device when the frontier empties
or outgrows the push threshold.  One small counter read per batch is the only host sync.
"""

from __future__ import annotations

import math
import time
import weakref

import numpy as np

from .. import backend as _backend
from ..formats import Bitmask
from ..program import RunResult, SuperstepStats
from . import codegen, common

#: Blind batch sizes (push supersteps between two host syncs); the last one repeats.
BATCHES = (1, 2, 4, 8, 16, 64)
#: Batches at least this long are replayed as CUDA graphs (captured once per run).
GRAPH_MIN = 16
HIST_CAP = 1 << 14
BLOCK = 256
#: HYB COO-tail segments longer than this are split into chunks (one warp each) when the
#: monoid has an atomic form, so a hub row is not one warp's critical path.
CHUNK = 1024

S_HALT, S_EXEC, S_STEP, S_CNT, S_EDG, S_TCNT, S_DONE, S_HCNT = 0, 1, 2, 3, 5, 7, 8, 9

_matrix_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cached(owner, key, make):
    """Per-matrix device arrays derived once (ELL flattening, COO segments, casts)."""
    try:
        slot = _matrix_cache.setdefault(owner, {})
    except TypeError:  # not weak-referenceable: no cache
        return make()
    if key not in slot:
        slot[key] = make()
    return slot[key]


class _Part:
    """One gather side on the device: the pull matrix in HYB, the push matrix in CSR."""

    def __init__(self, cp, graph, pull_name, push_name, wdt, weighted, idt, split):
        hyb = graph.hyb(pull_name)
        push = graph.A if push_name == "A" else graph.AT
        n = graph.num_vertices
        self.K = int(hyb.K)
        self.nnz = int(hyb.nnz) if hasattr(hyb, "nnz") else int(push.nnz)

        def ell():
            idx = hyb.ell.indices.reshape(-1).astype(idt, copy=False)
            val = None
            if weighted:
                val = hyb.ell.values.reshape(-1).astype(wdt, copy=False)
            return cp.ascontiguousarray(idx), (None if val is None else cp.ascontiguousarray(val))

        def tail():
            coo = hyb.coo
            if coo.nnz == 0:
                return None
            row = coo.row.astype(idt, copy=False)
            starts = cp.flatnonzero(cp.concatenate([cp.ones(1, bool), row[1:] != row[:-1]]))
            seg_row = _backend.to_host(row[starts]).astype(np.int64)
            seg_ptr = np.append(_backend.to_host(starts).astype(np.int64), coo.nnz)
            if split:
                seg_row, seg_ptr = split_segments(seg_row, seg_ptr, CHUNK)
            col = cp.ascontiguousarray(coo.col.astype(idt, copy=False))
            val = cp.ascontiguousarray(coo.values.astype(wdt, copy=False)) if weighted else None
            return (cp.asarray(seg_row.astype(idt)), cp.asarray(seg_ptr), int(seg_row.size), col,
                    val)

        def csr():
            ip = cp.ascontiguousarray(push.indptr.astype(idt, copy=False))
            ix = cp.ascontiguousarray(push.indices.astype(idt, copy=False))
            val = cp.ascontiguousarray(push.values.astype(wdt, copy=False)) if weighted else None
            return ip, ix, val

        wkey = (np.dtype(wdt).str if weighted else None, np.dtype(idt).str)
        self.ell_idx, self.ell_val = _cached(hyb, ("ell",) + wkey, ell)
        self.tail = _cached(hyb, ("tail", bool(split)) + wkey, tail)
        self.indptr, self.indices, self.vals = _cached(push, ("csr",) + wkey, csr)
        self.degree = push.row_lengths() if hasattr(push, "row_lengths") else \
            cp.diff(push.indptr)
        self.n = n


class _Run:
    def __init__(self, bp, graph, direction, push_alpha):
        cp = _backend.cupy()
        self.cp = cp
        self.bp = bp
        n = self.n = int(graph.num_vertices)
        idt = np.dtype(graph.A.index_dtype)
        self.idt = idt
        wdt = np.dtype(bp.edge_dtype)
        self.stream = cp.cuda.Stream(non_blocking=True)
        dev = cp.cuda.Device()
        self.n_sm = int(dev.attributes["MultiProcessorCount"])
        src = codegen.program_source(bp, idt)
        self.source = src
        with _backend.out_of_memory_guard(f"preparing vertex program {bp.name}"):
            mod = _backend.raw_module(src, ("-std=c++17",))
            self.k = {name: mod.get_function(name) for name in codegen.KERNELS}
            self._setup(cp, graph, idt, wdt)
        self.direction = direction
        self.alpha = push_alpha
        self.can_push = bp.monoid.atomic is not None and bp.gather_from == "active"
        thr = (self.nnz_pull + n) / push_alpha
        self.limit = np.uint64(max(1, math.ceil(thr) - 1)) if direction == "auto" else np.uint64(0)
        self.graphs = {}
        self.graphs_ok = True

    # ---- buffers ---------------------------------------------------------------------------
    def _setup(self, cp, graph, idt, wdt):
        bp = self.bp
        n = self.n
        with self.stream:
            split = bp.monoid.atomic is not None
            self.parts = [_Part(cp, graph, a, b, wdt, bp.weighted, idt, split)
                          for a, b in _part_names(bp.edges)]
            self.nnz_pull = sum(p.nnz for p in self.parts)
            deg = cp.zeros(n, dtype=cp.int64)
            for p in self.parts:
                deg += p.degree.astype(cp.int64)
            self.deg = deg
            self.props = {}
            for p in bp.props:
                self.props[p.name] = cp.array(bp.init_props[p.name], dtype=p.dtype, copy=True)
            self.y = cp.full(n, bp.monoid.identity, dtype=bp.y_dtype)
            nw = max(1, (n + 31) // 32)
            self.bm = [cp.zeros(nw, cp.uint32), cp.zeros(nw, cp.uint32)]
            self.q = [cp.zeros(max(n, 1), idt), cp.zeros(max(n, 1), idt)]
            self.qh = [cp.zeros(max(n, 1), idt), cp.zeros(max(n, 1), idt)]
            self.tbm = cp.zeros(nw, cp.uint32)
            self.tq = cp.zeros(max(n, 1), idt)
            self.hist = cp.zeros(HIST_CAP * 3, cp.uint64)
            self.dummy_w = cp.zeros(1, wdt)
            # initial frontier: bitmask, queue, count and push-edge count (parity 0)
            act = np.asarray(bp.init_active, dtype=bool)
            ids = np.flatnonzero(act)
            # packed bits (not ufunc.at over the ids: 9 ms for an all-active start at n = 2M)
            self.bm[0][...] = cp.asarray(Bitmask.from_bool(act).words)
            if ids.size:
                self.q[0][: ids.size] = cp.asarray(ids.astype(idt))
            st = np.zeros(16, np.uint64)
            st[S_CNT] = ids.size
            if ids.size:
                d0 = np.asarray(_backend.to_host(deg[cp.asarray(ids)]), dtype=np.int64)
                st[S_EDG] = int(d0.sum())
                heavy = ids[d0 > codegen.HEAVY]
                st[S_HCNT] = heavy.size
                if heavy.size:
                    self.qh[0][: heavy.size] = cp.asarray(heavy.astype(idt))
            st[S_HALT] = 0 if ids.size else 1
            self.st = cp.asarray(st)
            self.prop_args = tuple(self.props[p.name] for p in bp.props)

    # ---- launches ---------------------------------------------------------------------------
    def _grid(self, items, per_block, cap):
        return (max(1, min(cap, -(-items // per_block))),)

    def _pull_step(self):
        n, k = self.n, self.k
        for p in self.parts:
            if p.K > 0:
                k["hp_pull_ell"](self._grid(n, BLOCK, self.n_sm * 32), (BLOCK,),
                                 (p.ell_idx, self.dummy_w if p.ell_val is None else p.ell_val,
                                  np.int64(n), np.int32(p.K), self.bm[0], self.bm[1], self.y,
                                  self.st) + self.prop_args)
            if p.tail is not None:
                seg_row, seg_ptr, nseg, col, val = p.tail
                k["hp_pull_coo"](self._grid(nseg, BLOCK // 32, self.n_sm * 32), (BLOCK,),
                                 (seg_row, seg_ptr, np.int64(nseg), col,
                                  self.dummy_w if val is None else val, self.bm[0], self.bm[1],
                                  self.y, self.st) + self.prop_args)
        self._apply(touched=False, dir_code=1)

    def _push_step(self, limit, count_hint=None, heavy=0):
        track = self.bp.apply_to == "received"
        if count_hint is None:
            grid = (2 * self.n_sm,)
        else:
            # heavy rows are split over the whole grid: make it wide enough for them
            grid = self._grid(count_hint, BLOCK // 32, self.n_sm * 16)
            if heavy:
                grid = (max(grid[0], 2 * self.n_sm),)
        for i, p in enumerate(self.parts):
            self.k["hp_push"](grid, (BLOCK,),
                              (p.indptr, p.indices, self.dummy_w if p.vals is None else p.vals,
                               self.q[0], self.q[1], self.qh[0], self.qh[1], self.deg, self.y,
                               self.tbm, self.tq, self.st, np.uint64(limit), np.int32(i == 0),
                               np.int32(track)) + self.prop_args)
        self._apply(touched=track, dir_code=0)

    def _apply(self, touched, dir_code):
        name = "hp_apply_touched" if touched else "hp_apply_all"
        grid = (self.n_sm,) if touched else self._grid(self.n, BLOCK, self.n_sm * 8)
        self.k[name](grid, (BLOCK,),
                     (np.int64(self.n), self.y, self.bm[0], self.bm[1], self.q[0], self.q[1],
                      self.qh[0], self.qh[1], self.tbm, self.tq, self.deg, self.st, self.hist, np.int64(HIST_CAP),
                      np.int32(dir_code)) + self.prop_args)

    def _batch(self, k, limit):
        """``k`` blind push supersteps (a CUDA graph when long enough)."""
        if k >= GRAPH_MIN and self.graphs_ok:
            g = self.graphs.get(k)
            if g is None:
                g = self._capture(k, limit)
            if g is not None:
                g.launch(stream=self.stream)
                return
        for _ in range(k):
            self._push_step(limit)

    def _capture(self, k, limit):
        s = self.stream
        try:
            s.begin_capture()
            try:
                for _ in range(k):
                    self._push_step(limit)
            finally:
                g = s.end_capture()
            g.upload(s)
        except Exception:  # capture unsupported here: plain launches keep working
            self.graphs_ok = False
            return None
        self.graphs[k] = g
        return g

    def read_state(self):
        return self.cp.asnumpy(self.st, stream=self.stream).astype(np.int64)

    # ---- the loop ------------------------------------------------------------------------
    def loop(self):
        bp = self.bp
        max_it = bp.max_iterations
        hook = bp.converged_hook
        blind_ok = hook is None
        syncs = 0
        hist_read = 0
        records = []
        converged = True
        bi = 0
        with self.stream:
            st = self.read_state()
            syncs += 1
            t0 = time.perf_counter()
            while True:
                cur = int(st[S_EXEC]) & 1
                cnt, edg, step = int(st[S_CNT + cur]), int(st[S_EDG + cur]), int(st[S_STEP])
                if cnt == 0:
                    break
                if max_it is not None and step >= max_it:
                    converged = False
                    break
                if step + BATCHES[-1] - hist_read > HIST_CAP:
                    records.extend(self._history(hist_read, step))
                    hist_read = step
                if st[S_HALT] != 0:
                    self.st[S_HALT:S_HALT + 1] = 0
                if self.direction == "auto":
                    push = self.can_push and common.choose_push(edg, self.nnz_pull, self.n,
                                                                self.alpha)
                else:
                    push = self.direction == "push"
                if push and blind_ok:
                    k = BATCHES[min(bi, len(BATCHES) - 1)]
                    if max_it is not None:
                        k = min(k, max_it - step)
                    if k == 1:
                        self._push_step(self.limit, count_hint=cnt,
                                        heavy=int(st[S_HCNT + cur]))
                    else:
                        self._batch(k, self.limit)
                    bi += 1
                else:
                    bi = 0
                    prev = {kk: v.copy() for kk, v in self.props.items()} if hook else None
                    if push:
                        self._push_step(0, count_hint=cnt, heavy=int(st[S_HCNT + cur]))
                    else:
                        self._pull_step()
                    if hook is not None:
                        st = self.read_state()
                        syncs += 1
                        nxt = int(st[S_EXEC]) & 1
                        stats = SuperstepStats(step, cnt, int(st[S_CNT + nxt]),
                                               "push" if push else "pull", dict(self.props), prev)
                        if hook(stats):
                            break
                        continue
                st = self.read_state()
                syncs += 1
            elapsed = time.perf_counter() - t0
            step = int(st[S_STEP])
            records.extend(self._history(hist_read, step))
        return records, converged, elapsed, syncs

    def _history(self, start, stop):
        if stop <= start:
            return []
        h = self.cp.asnumpy(self.hist, stream=self.stream).reshape(HIST_CAP, 3).astype(np.int64)
        idx = np.arange(start, stop) % HIST_CAP
        return [tuple(h[i]) for i in idx]


def split_segments(seg_row, seg_ptr, chunk):
    """Split COO-tail segments longer than ``chunk`` into chunks (host arrays).

    Returns ``(rows, ptr)``: a chunk of a split segment has row ``-(row + 1)`` (the kernel then
    combines it into ``y`` with the monoid's atomic); unsplit segments keep their row.
    """
    lens = np.diff(seg_ptr)
    nch = np.maximum(1, -(-lens // chunk))
    if (nch == 1).all():
        return seg_row, seg_ptr
    seg = np.repeat(np.arange(lens.size), nch)
    first = np.cumsum(nch) - nch
    k = np.arange(seg.size) - np.repeat(first, nch)
    starts = seg_ptr[seg] + k * chunk
    rows = seg_row[seg].copy()
    split = nch[seg] > 1
    rows[split] = -(rows[split] + 1)
    return rows, np.append(starts, seg_ptr[-1])


def _part_names(edges):
    if edges == "in":
        return [("AT", "A")]
    if edges == "out":
        return [("A", "AT")]
    return [("AT", "A"), ("A", "AT")]


def execute(bp, graph, *, direction, push_alpha, t_start):
    """Run bound program ``bp`` on device graph ``graph``; returns a :class:`RunResult`."""
    cp = _backend.cupy()
    n = int(graph.num_vertices)
    if n == 0:
        props = {p.name: cp.zeros(0, p.dtype) for p in bp.props}
        return RunResult(props, 0, [], [], [], True, 0.0, time.perf_counter() - t_start, "gpu", 0)
    run = _Run(bp, graph, direction, push_alpha)
    run.stream.synchronize()
    setup = time.perf_counter() - t_start
    with _backend.out_of_memory_guard(f"running vertex program {bp.name}"):
        records, converged, elapsed, syncs = run.loop()
    run.stream.synchronize()
    return RunResult(
        properties=run.props, supersteps=len(records), active=[int(r[0]) for r in records],
        directions=["pull" if r[2] else "push" for r in records],
        frontier_edges=[int(r[1]) for r in records], converged=converged, time=elapsed,
        setup_time=setup, backend="gpu", syncs=syncs,
        extra={"graphs": sorted(run.graphs), "blind_batches": BATCHES})
