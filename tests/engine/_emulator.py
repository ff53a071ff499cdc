"""Python transcriptions of the GPU engine's kernels and a NumPy stand-in for CuPy, for the
emulated engine tests (``test_gpu_emulated.py``): the kernels of ``templates/engine*.cu`` run
sequentially with the same arguments and state updates, and a captured "graph" records
launches to replay them later."""

from __future__ import annotations

import types

import numpy as np

import hpgraph as hp
from hpgraph.engine import codegen, common, gpu

from ._emulator_fused import CNT, EDG, EXEC, HALT, HCNT, OPS, STEP, FusedKernels, _heavy_add

TCNT, DONE = 7, 8
TRACK = 19
REACHED = 20

#: deferred units of the emulated backend (the block loop's) report ready after this many
#: looks ("fail": their compile fails)
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
        if self.left >= 0:              # the caller waits for the compile (Deferred.module)
            OPS["late_waits"] += 1
            self.left = -1
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


class _Kernels(FusedKernels):
    """Sequential transcriptions of the kernels of templates/engine.cu (the fused push:
    :class:`._emulator_fused.FusedKernels`)."""

    def __init__(self, bp, idt=np.int32):
        self.bp = bp
        self.k = bp.kernels
        self.m = bp.monoid
        # HP_PULL_REACHED of the generated source (fixed per program and index dtype)
        self.pull_reached = codegen.pull_reached_ok(bp, idt)

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

    def sends(self, bm, st, props, u):
        """``hp_sends``: the frontier bit, or (a relaxation whose run set S_REACHED) whether the
        sender's relaxed property has left the identity."""
        if self.pull_reached and st[REACHED]:
            OPS["pull_reached"] += 1        # (inside a kernel: _count would skip it)
            return not self.same(props[self.bp.relax][u], self.m.identity)
        return self.bit(bm, u)

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

    def _pushes(self, st, limit, mode, first=True):
        """The push kernels' opening checks: the current parity, or None when they return
        (a mode-2 push whose frontier outgrew ``limit`` aborts the batch)."""
        cur = int(st[EXEC]) & 1
        if st[HALT] or st[CNT + cur] == 0:
            return None
        if mode != 0 and not self.pushes(st, cur, limit):
            if mode == 2 and first:
                st[HALT] = 2
            return None
        return cur

    def _pulls(self, st, limit, mode):
        """The pull kernels' opening checks: the current parity, or None when they return."""
        cur = int(st[EXEC]) & 1
        if st[HALT] or st[CNT + cur] == 0 or (mode == 1 and self.pushes(st, cur, limit)):
            return None
        return cur

    def hp_pull_ell(self, a):
        ell_idx, ell_val, n, K, bm0, bm1, y, st, limit, mode, *pa = a
        cur = self._pulls(st, limit, mode)
        if cur is None:
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
                if self.bp.gather_from != "all" and not self.sends(bm, st, props, u):
                    continue
                acc = self.add(acc, self.gather(props, u, self.w(ell_val, pos), v))
                if self.term(acc):
                    break
            y[v] = acc

    def hp_pull_coo(self, a):
        seg_row, seg_ptr, nseg, col, val, bm0, bm1, y, st, limit, mode, *pa = a
        cur = self._pulls(st, limit, mode)
        if cur is None:
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
                if self.bp.gather_from == "all" or self.sends(bm, st, props, u):
                    acc = self.add(acc, self.gather(props, u, self.w(val, e), row))
            y[row] = self.add(y[row] if split else acc0, acc)   # split: the monoid's atomic

    def hp_push(self, a):
        (indptr, indices, vals, q0, q1, qh0, qh1, deg, y, tbm, tq, st, limit, mode, first, track,
         *pa) = a
        cur = self._pushes(st, limit, mode, first)
        if cur is None:
            return
        cnt = int(st[CNT + cur])
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

    def _update(self, props, v, yv, st, nxt, bm_nxt, q_nxt, qh_nxt, deg) -> bool:
        """``update`` on vertex ``v`` with ``yv``; a vertex that changed joins the next
        frontier (bit, queue, edge count, heavy list).  True when it changed."""
        new = self.k.update_np(props, np.array([v]), np.array([yv], self.bp.y_dtype))
        changed = False
        for name, val in new.items():
            changed |= bool(common.np_changed(val, props[name][[v]],
                                              self.bp.tolerances.get(name))[0])
            props[name][v] = val[0]
        if changed:
            self._enqueue(v, st, nxt, bm_nxt, q_nxt, qh_nxt, deg)
        return changed

    @staticmethod
    def _enqueue(v, st, nxt, bm_nxt, q_nxt, qh_nxt, deg):
        """``v`` joins the next frontier: bit, queue, edge count, heavy list."""
        bm_nxt[v >> 5] |= np.uint32(1 << (v & 31))
        q_nxt[int(st[CNT + nxt])] = v
        st[CNT + nxt] += 1
        st[EDG + nxt] += np.uint64(deg[v])
        if deg[v] > codegen.HEAVY:
            _heavy_add(qh_nxt, st, HCNT + nxt, v, int(deg[v]))

    def _close(self, st, hist, cap, d, cur, nxt, cnt, bm_cur, q_cur):
        """The consumed frontier's bits cleared, then hp_close_at."""
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
            self._update(props, v, yv, st, nxt, bm_nxt, q_nxt, qh_nxt, deg)
        OPS["apply_supersteps"] += 1
        self._close(st, hist, cap, d, cur, nxt, cnt, bm_cur, q_cur)

    def hp_apply_step(self, a):
        """hp_apply_step: mode 0 every vertex, 1 the recorded receivers, 2 after whichever
        SPMV the direction rule ran, 3 as 2 after a pull only (the mode's own arguments
        first)."""
        mode, limit, *rest = a
        if int(mode) < 2:
            self._apply(tuple(rest), int(mode) == 1)
            return
        st = rest[11]
        if st[HALT]:
            return
        cur = int(st[EXEC]) & 1
        if st[CNT + cur] == 0:
            return
        if self.pushes(st, cur, limit):
            if int(mode) == 3:
                return
            self._apply(tuple(rest[:14]) + (0,) + tuple(rest[15:]), self.bp.apply_to == "received")
        else:
            self._apply(tuple(rest[:14]) + (1,) + tuple(rest[15:]), False)

    def hp_block_loop(self, a):
        """hp_block_loop: push + APPLY (touched) supersteps while the frontier is small; a
        fused program's pushes apply as they push (``hp_push_fused``, which closes here too)."""
        big, n, nparts, max_steps, limit, dirmode, track, *rest = a
        parts, rest = [rest[0:11], rest[11:22]], rest[22:]
        y, bm0, bm1, q0, q1, qh0, qh1, tbm, tq, deg, st, hist, cap, *pa = rest
        kind = codegen.fused_kind(self.bp, parts[0][9].dtype)
        fused = kind != 0
        fz = (deg, deg)            # the relaxation's far set and winners: none here
        nprop = len(self.bp.props)
        if kind == 1:              # the loop parameters end with the claims' stamps
            fz, pa = (pa[-nprop - 1],), pa[-nprop:]
        elif kind == 2 and self.bp.witness is not None:     # or the packed winners
            fz, pa = (deg, pa[-nprop - 1]), pa[-nprop:]
        assert self.bp.witness is None or kind != 0
        assert self.bp.priority is None
        for _ in range(int(max_steps)):
            cur = int(st[EXEC]) & 1
            if st[HALT] or st[CNT + cur] == 0 or int(st[EDG + cur]) > int(big):
                break
            if fused:
                indptr, indices, vals = parts[0][8:11]
                self.hp_push_fused((indptr, indices, vals, bm0, bm1, q0, q1, qh0, qh1, deg,
                                    *fz, st, hist, cap, limit, 0, *pa))
                continue
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
        deg, bm0, q0, qh0, st, track_edges, reached, fmode, smode, *rest = rest
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
        if reached:
            st[REACHED] = 1
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
