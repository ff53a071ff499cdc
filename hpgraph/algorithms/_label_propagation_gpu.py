"""Label propagation on the GPU: each class of the schedule is one kernel launch
(``templates/labelprop.cu``), and a whole iteration -- every class in order -- is captured
once as a CUDA graph, so an iteration costs one graph launch and one host read.

A specialised kernel beside the engine, kept because it measures far faster: the mode of the
neighbours' labels is not a monoid, so no SpMV or vertex program computes it; the vectorised
form (a sort of every class's ``(vertex, label)`` keys, :func:`._label_propagation._update`)
took 11,796 ms on R-MAT 21 (H200, 2,163 colour classes at about 1.2 ms of host work each;
with today's 229 classes that is still about 1.4 s for 5 iterations -- an estimate, not
measured); these kernels take 17.2 ms on R-MAT 21 (H100, 229 classes, 5 iterations; the
synchronous mode 22.9 ms; ``benchmarks/README.md``, session 12).  Results equal the CPU path's
exactly (same colouring, same tie rules).
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from .. import backend as _backend
from .. import cuda_source
from .. import dtypes as _dt
from .._arrayops import all_true, bincount
from .._config import config

#: Vertices with at most this many neighbours take the warp kernel, the others a block each.
LIGHT = 32
#: Hash-table slots a block keeps in shared memory (vertices of up to half as many neighbours);
#: vertices with more neighbours (hubs) count in global-memory tables, over several blocks.
SMEM_CAP = 2048
#: Row entries (insert) or table slots (clear) one block handles of a hub (``LP_CHUNK``):
#: a thread's inserts are a chain of dependent global loads and atomics, so short chunks over
#: many blocks (R-MAT 21, H100: 4,096 / 1,024 / 512 / 256 gave 45.3 / 36.7 / 35.7 / 39.5 ms).
CHUNK = 512
_BLOCK = 256
_TEMPLATE = Path(__file__).with_name("templates") / "labelprop.cu"


def labelprop_source(idx_dtype, w_dtype) -> str:
    """CUDA source of the update kernels for index dtype ``idx_dtype`` and multiplicities of
    ``w_dtype`` (None: every neighbour counts once)."""
    return cuda_source.render(
        cuda_source.load(str(_TEMPLATE)),
        IDX_T=_dt.c_type(idx_dtype), W_T=_dt.c_type(w_dtype if w_dtype is not None else np.int32),
        WEIGHTED=int(w_dtype is not None), SMEM_CAP=SMEM_CAP, CHUNK=CHUNK)


def _pow2_at_least(x):
    """The smallest power of two >= x, elementwise (x >= 1, int64)."""
    p = np.ones_like(x)
    while True:
        small = p < x
        if not small.any():
            return p
        p[small] <<= 1


class _Schedule:
    """The launches of one iteration, per class: its light vertices (<= :data:`LIGHT`
    neighbours) and its heavy ones -- the hubs (more than ``SMEM_CAP // 2``, largest first)
    then the mid --, with the hubs' hash-table offsets (aligned with the heavy list) and the
    (hub, offset) work pairs of the hub kernels.  Every class's lists are slices of one device
    array each."""

    def __init__(self, cp, deg, classes, idx_dtype):
        half = SMEM_CAP // 2
        light, heavy, toff, ins, clear = [], [], [], [], []
        self.items = []
        nl = nh = ni = ns = 0
        self.max_hubs, scratch = 1, 1
        for verts in classes:                     # host arrays of vertex ids, in class order
            d = deg[verts]
            lv, mv, hv = verts[(d > 0) & (d <= LIGHT)], verts[(d > LIGHT) & (d <= half)], verts[d > half]
            hv = hv[np.argsort(-deg[hv], kind="stable")]     # the longest work starts first
            hd = deg[hv].astype(np.int64)
            cap = _pow2_at_least(2 * hd) if hv.shape[0] else np.zeros(0, np.int64)
            # the hubs' table offsets (tables of one class at a time); the mid vertices' entries
            # are unused (their tables are in shared memory)
            off = np.zeros(hv.shape[0] + mv.shape[0] + 1, np.int64)
            off[1:hv.shape[0] + 1] = np.cumsum(cap)
            hub_idx = np.arange(hv.shape[0], dtype=np.int64)
            nin = -(-hd // CHUNK)
            nsc = -(-cap // CHUNK)
            w_in = np.stack([np.repeat(hub_idx, nin), _ranges(nin) * CHUNK], axis=1).reshape(-1)
            w_sc = np.stack([np.repeat(hub_idx, nsc), _ranges(nsc) * CHUNK], axis=1).reshape(-1)
            self.items.append((nl, lv.shape[0], nh, mv.shape[0], hv.shape[0],
                               ni, w_in.shape[0] // 2, ns, w_sc.shape[0] // 2))
            light.append(lv)
            heavy.append(np.concatenate([hv, mv]))
            toff.append(off[:-1])
            ins.append(w_in)
            clear.append(w_sc)
            nl, nh = nl + lv.shape[0], nh + mv.shape[0] + hv.shape[0]
            ni, ns = ni + w_in.shape[0] // 2, ns + w_sc.shape[0] // 2     # pairs
            self.max_hubs = max(self.max_hubs, hv.shape[0])
            scratch = max(scratch, int(off[hv.shape[0]]))

        def dev(parts, dt):
            return cp.asarray(np.concatenate(parts).astype(dt) if parts else np.zeros(1, dt))

        self.light, self.heavy = dev(light, idx_dtype), dev(heavy, idx_dtype)
        self.toff, self.ins, self.clear = (dev(x, np.int64) for x in (toff, ins, clear))
        # the spread hubs' tables, two buffers used by alternate classes, are clear at rest (a
        # class's launch clears the tables of the class before); lp_heavy clears its own tables
        # before it counts.  Both are made on first use (:meth:`LabelPropPlan._launch`).
        self.tables = None
        self.scratch = scratch
        self.block_tables = None
        self.best = cp.zeros(self.max_hubs, np.uint64)
        self.own = cp.zeros(self.max_hubs, np.int32)


def _ranges(counts):
    """``[0..c0), [0..c1), ...`` concatenated (int64)."""
    total = int(counts.sum()) if counts.shape[0] else 0
    if total == 0:
        return np.zeros(0, np.int64)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(total, dtype=np.int64) - starts


class LabelPropPlan:
    """Kernels and buffers of one matrix (kept in its derived cache); schedules and captured
    iterations per (mode, seed)."""

    def __init__(self, S):
        cp = _backend.cupy()
        self.cp = cp
        self.S = S
        self.n = int(S.shape[0])
        src = labelprop_source(S.indices.dtype, None if S.values is None else S.values.dtype)
        mod = _backend.raw_module(src, ("-std=c++17",))
        self.k_class = mod.get_function("lp_class")
        self.k_colour = mod.get_function("lp_colour_round")
        self.deg = _backend.to_host(S.indptr[1:] - S.indptr[:-1]).astype(np.int64)
        self.stream = cp.cuda.Stream(non_blocking=True)
        with _backend.out_of_memory_guard("preparing label propagation buffers"), self.stream:
            self.labels = cp.empty(max(self.n, 1), np.int32)
            self.other = cp.empty(max(self.n, 1), np.int32)
            self.changed = cp.zeros(1, np.uint32)
            self.done = cp.zeros(1, np.uint32)     # lp_hub_decide's block counter, 0 at rest
            self.null_w = cp.zeros(1, np.int32)
        self.schedules: dict = {}
        self.graphs: dict = {}
        self.lock = threading.Lock()
        self.blocks = _backend.num_sms() * 8

    def schedule(self, key, classes):
        """The :class:`_Schedule` of ``key`` (made from ``classes(self)`` on first use)."""
        sch = self.schedules.get(key)
        if sch is None:
            with _backend.out_of_memory_guard("preparing label propagation buffers"):
                sch = self.schedules[key] = _Schedule(self.cp, self.deg, classes(self),
                                                      self.S.indices.dtype)
        return sch

    def colouring(self, rank):
        """Greedy colours (device int32) in the order of ``rank`` (device, a permutation;
        higher first): each vertex the smallest colour none of its higher-ranked neighbours
        has, one ``lp_colour_round`` launch per round of vertices whose higher neighbours are
        all coloured (Kahn's rounds of the rank DAG), one host read per round.

        The CPU path's vectorised rounds (:func:`._label_propagation._colouring`, about a dozen
        CuPy calls and a sort per round) gave the same colours on the device; this kernel
        took the first call of ``label_propagation`` on R-MAT 21 from 6.5 s to 2.4 s (H100,
        2,051 rounds; ``benchmarks/README.md``, session 12)."""
        cp, S, n = self.cp, self.S, self.n
        idt = S.indices.dtype
        with _backend.out_of_memory_guard("colouring for label propagation"):
            rank = rank.astype(np.int32)
            r = S.row_ids()
            higher = rank[S.indices] > rank[r]
            waiting = bincount(cp, r[higher], minlength=n).astype(np.int32)
            del r, higher
            colour = cp.full(max(n, 1), -1, np.int32)
            ready = cp.flatnonzero(waiting == 0)
            front, nxt = cp.empty(max(n, 1), idt), cp.empty(max(n, 1), idt)
            front[:ready.shape[0]] = ready
            count = cp.zeros(1, np.uint64)
        nf = int(ready.shape[0])
        warps = _BLOCK // 32
        while nf:
            count.fill(0)
            self.k_colour((max(1, min(self.blocks, -(-nf // warps))),), (_BLOCK,),
                          (front, np.int64(nf), S.indptr, S.indices, rank, colour, waiting, nxt,
                           count))
            front, nxt = nxt, front
            nf = int(count.get()[0])
        return colour[:n]

    def _launch(self, sch, lab_in, lab_out, prec, split_max):
        """One iteration's launches, one per class and one more that clears the last class's
        hub tables; classes with more than ``split_max`` hubs give each hub a block
        (lp_heavy), the others spread every hub over many blocks (lp_hub_insert)."""
        S = self.S
        w = self.null_w if S.values is None else S.values
        b, p = (_BLOCK,), np.int32(prec)
        cp = self.cp
        if sch.block_tables is None and any(it[4] > split_max for it in sch.items):
            sch.block_tables = (cp.empty(sch.scratch, np.int32), cp.empty(sch.scratch, np.int32))
        size = sch.scratch if any(0 < it[4] <= split_max for it in sch.items) else 1
        if sch.tables is None or sch.tables[0][0].shape[0] < size:
            sch.tables = [(cp.full(size, -1, np.int32), cp.zeros(size, np.int32)) for _ in range(2)]
        bk, bc = sch.block_tables if sch.block_tables is not None else sch.tables[0]
        # (table chunks, count, hubs, offsets, keys, counts) of the class before, to clear
        idle = (sch.clear, np.int64(0), sch.heavy, sch.toff) + sch.tables[0]
        clr = idle
        # one launch more after the last class: it clears the last class's tables only
        for k, (l0, lc, h0, mc, hc, i0, ic, s0, sc) in enumerate(sch.items + [(0,) * 9]):
            g_light = min(self.blocks, -(-lc // (_BLOCK // 32)))
            # the mid vertices, and the hubs (first) too when there are enough to fill the device
            first, nb = (h0, hc + mc) if hc > split_max else (h0 + hc, mc)
            g_heavy = min(self.blocks, nb)
            split = 0 < hc <= split_max
            g_ins = min(self.blocks, ic) if split else 0
            g_clr = min(self.blocks, int(clr[1]))
            hubs, toff = sch.heavy[h0:], sch.toff[h0:]
            keys, cnts = sch.tables[k % 2]
            if g_light + g_heavy + g_ins + g_clr:
                self.k_class((g_light + g_heavy + g_ins + g_clr,), b,
                             (sch.light[l0:], np.int64(lc), np.int32(g_light),
                              sch.heavy[first:], np.int64(nb), np.int32(g_heavy),
                              sch.toff[first:], bk, bc,
                              sch.ins[2 * i0:], np.int64(ic if split else 0), np.int32(g_ins),
                              hubs, np.int64(hc), toff, keys, cnts, sch.best, sch.own, self.done)
                             + clr + (S.indptr, S.indices, w, lab_in, lab_out, p, self.changed))
            clr = (sch.clear[2 * s0:], np.int64(sc), hubs, toff, keys, cnts) if split else idle

    def iteration(self, key, sch, lab_in, lab_out, prec):
        """One iteration on the plan's stream (captured as a CUDA graph on first use); True
        when a label changed."""
        split_max = config["labelprop_hub_split_per_sm"] * _backend.num_sms()
        gkey = (key, lab_in.data.ptr, lab_out.data.ptr, prec, split_max)
        if gkey not in self.graphs:             # None kept where capture failed: direct launches
            def body():
                self.changed.fill(0)
                self._launch(sch, lab_in, lab_out, prec, split_max)
            self.graphs[gkey] = _backend.capture_graph(self.stream, body)
        g = self.graphs[gkey]
        if g is not None:
            g.launch(stream=self.stream)
        else:
            self.changed.fill(0)
            self._launch(sch, lab_in, lab_out, prec, split_max)
        return bool(int(self.changed.get(stream=self.stream)[0]))

    def run(self, key, classes, max_iter, synchronous):
        """Labels after at most ``max_iter`` iterations (a new int32 array)."""
        cp = self.cp
        n = self.n
        caller = cp.cuda.get_current_stream()
        with self.lock, self.stream:
            self.stream.wait_event(caller.record())
            sch = self.schedule(key, classes)
            lab = self.labels[:n]
            lab[...] = cp.arange(n, dtype=np.int32)
            if not synchronous:
                for _ in range(int(max_iter)):
                    if not self.iteration(key, sch, self.labels, self.labels, 1):
                        break
                out = lab.copy()
            else:
                out = self._synchronous(key, sch, max_iter)
            caller.wait_event(self.stream.record())
        return out

    def _synchronous(self, key, sch, max_iter):
        """LDBC CDLP: every vertex from the previous labels (ties to the smallest), with the
        CPU path's two-state-cycle rule."""
        n = self.n
        cur, nxt = self.labels, self.other
        prev = None
        for it in range(int(max_iter)):
            nxt[:n] = cur[:n]
            if not self.iteration(key, sch, cur, nxt, 0):
                break
            if prev is not None and all_true(self.cp, nxt[:n] == prev):
                # from here the labels alternate between two states (see the CPU path)
                if (int(max_iter) - it - 1) % 2 == 0:
                    cur = nxt
                break
            prev = cur[:n].copy()
            cur, nxt = nxt, cur
        return cur[:n].copy()


def run(S, classes_key, classes, max_iter, synchronous):
    """Labels of the vertices of device CSR ``S`` (see :class:`LabelPropPlan`)."""
    plan = S.derived("hpg.labelprop_plan", lambda: LabelPropPlan(S))
    return plan.run(classes_key, classes, max_iter, synchronous)
