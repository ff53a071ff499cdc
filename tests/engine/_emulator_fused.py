"""The emulated engine's fused push (``hp_push_fused`` of ``templates/engine_apply.cu``: claims
and relaxation) and ``hp_relax_witness``, with the state words and counters the other emulated
kernels (:mod:`._emulator`) share."""

from __future__ import annotations

import collections

import numpy as np

from hpgraph.engine import codegen

HALT, EXEC, STEP, CNT, EDG, HCNT = 0, 1, 2, 3, 5, 9

#: What the host asked of the "device" (outside kernels): launch:<kernel>, fill, setitem,
#: astype, copyto, d2d, h2d, d2h, alloc, graph.  Reset by the tests that read it.
OPS = collections.Counter()


def _heavy_add(qh, st, word, v, d):
    """hp_heavy_add: a heavy row's chunk entries v, -1, -2, ... at the end of the list."""
    b = int(st[word])
    nch = -(-d // codegen.HEAVY)
    qh[b] = v
    for x in range(1, nch):
        qh[b + x] = -x
    st[word] += nch


def _key(x, dt, largest_first):
    """hp_vkey: a 32-bit value as an unsigned word ordered best-first."""
    u = int(np.array([x], dt).view(np.uint32)[0])
    if dt.kind == "f":
        u = (~u & 0xFFFFFFFF) if u & 0x80000000 else (u | 0x80000000)
    elif dt.kind == "i":
        u ^= 0x80000000
    return (~u & 0xFFFFFFFF) if largest_first else u


def _unkey(u, dt, largest_first):
    """hp_vunkey."""
    if largest_first:
        u = ~u & 0xFFFFFFFF
    if dt.kind == "f":
        u = (u & 0x7FFFFFFF) if u & 0x80000000 else (~u & 0xFFFFFFFF)
    elif dt.kind == "i":
        u ^= 0x80000000
    return np.array([u], np.uint32).view(dt)[0]


class FusedKernels:
    """The fused push of :class:`._emulator._Kernels` (it supplies the helpers: ``_pushes``,
    ``props``, ``gather``, ``_update``, ``_close``)."""

    def hp_push_fused(self, a):
        """hp_push_fused: claims -- the first sender to reach a receiver (in the kernel's
        visiting order, here sequential) claims it and runs the update with its own value -- or
        the relaxation (:meth:`_relax_all`); then the close."""
        kind = codegen.fused_kind(self.bp, a[1].dtype)
        (indptr, indices, vals, bm0, bm1, q0, q1, qh0, qh1, deg), a = a[:10], a[10:]
        if kind == 1:
            (stamp,), a = a[:1], a[1:]
        else:
            (_far, rk), a = a[:2], a[2:]
        st, hist, cap, limit, mode, *pa = a
        cur = self._pushes(st, limit, mode)
        if cur is None:
            return
        nxt = cur ^ 1
        cnt = int(st[CNT + cur])
        q = q1 if cur else q0
        bm_cur, bm_nxt = (bm1, bm0) if cur else (bm0, bm1)
        q_nxt, qh_nxt = (q0, qh0) if cur else (q1, qh1)
        props = self.props(pa)
        if kind == 2:
            self._relax_all(indptr, indices, vals, q, cnt, props, st, nxt, bm_nxt, q_nxt,
                            qh_nxt, deg, rk)
            OPS["fused_supersteps"] += 1
            self._close(st, hist, cap, 0, cur, nxt, cnt, bm_cur, q)
            return
        tag = int(st[STEP]) + 1
        ident = self.m.identity
        for u in [int(q[i]) for i in range(cnt)]:
            for e in range(int(indptr[u]), int(indptr[u + 1])):
                v = int(indices[e])
                # the mask on the properties as they are now (earlier claims changed some)
                if not self.k.mask_np(props)[v] or int(stamp[v]) >= tag:
                    continue
                yv = self.gather(props, u, self.w(vals, e), v)
                if self.same(yv, ident):
                    continue
                stamp[v] = tag
                if self._update(props, v, yv, st, nxt, bm_nxt, q_nxt, qh_nxt, deg) \
                        and self.bp.witness is not None:
                    props[self.bp.witness][v] = u
        OPS["fused_supersteps"] += 1
        self._close(st, hist, cap, 0, cur, nxt, cnt, bm_cur, q)

    def _relax_all(self, indptr, indices, vals, q, cnt, props, st, nxt, bm_nxt, q_nxt, qh_nxt,
                   deg, rk):
        """The relaxation: each sender's value combined into P[v] at once (a sender lowered
        earlier in the superstep sends its new value); a vertex whose value dropped joins the
        next frontier once; a witness is the sender of its best value.  Sequential, whole
        rows (the heavy list is not dealt out), and the new value is the monoid's combine
        where the kernel's float atomic works on bit patterns (they differ for -0.0 against
        0.0 only)."""
        bp = self.bp
        P = props[bp.relax]
        ident = self.m.identity
        dt = np.dtype(bp.y_dtype)
        assert bp.priority is None          # the far set is not emulated
        for u in [int(q[i]) for i in range(cnt)]:
            for e in range(int(indptr[u]), int(indptr[u + 1])):
                v = int(indices[e])
                yv = self.gather(props, u, self.w(vals, e), v)
                if self.same(yv, ident):
                    continue
                old = P[v]
                nv = self.add(old, yv)
                if nv == old or (nv != nv and old != old):
                    continue
                P[v] = nv
                if bp.witness is not None:            # a strict improver: the smaller word
                    key = _key(yv, dt, self.m.name == "max")
                    rk[v] = min(int(rk[v]), (key << 32) | (u & 0xFFFFFFFF))
                if not self.bit(bm_nxt, v):
                    self._enqueue(v, st, nxt, bm_nxt, q_nxt, qh_nxt, deg)

    def hp_relax_witness(self, a):
        """hp_relax_witness: the senders of the final values into the witness property."""
        n, rk, *pa = a
        props = self.props(pa)
        dt = np.dtype(self.bp.y_dtype)
        P, W = props[self.bp.relax], props[self.bp.witness]
        for v in range(int(n)):
            pk = int(rk[v])
            if pk != 0xFFFFFFFFFFFFFFFF and \
                    _unkey(pk >> 32, dt, self.m.name == "max") == P[v]:
                W[v] = pk & 0xFFFFFFFF
