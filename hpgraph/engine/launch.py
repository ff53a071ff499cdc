"""The launches of one superstep's kernels (a mixin of :class:`.gpu._Run`): grid sizes and
argument lists of SPMV (pull, push), WITNESS, APPLY and the far-set split, as the engine
template (``templates/engine*.cu``) declares them."""

from __future__ import annotations

import numpy as np

from .._config import config
from . import codegen, gpu_state as _st

BLOCK = 256
#: Blocks per SM of a push in a blind batch that starts small (frontier size unknown, far
#: below the tracking threshold): its grid-stride loops cover any size, and on long thin
#: graphs, thousands of such launches, a smaller grid launches faster (2048 x 2048 grid,
#: `SSSPNearFar`: 87 -> 81-82 ms against 8 per SM).
SMALL_BLOCKS_PER_SM = 2
#: Blocks per SM of the far-set split kernels (they return at once unless a split is due);
#: 2 measured no faster than 8 on the grid.
FAR_BLOCKS_PER_SM = 8
#: ``hp_apply_step``'s modes (``HP_APPLY_*`` in ``templates/engine_apply.cu``): every vertex;
#: the receivers a push recorded; after whichever SPMV the device-side direction rule ran.
APPLY_ALL, APPLY_TOUCHED, APPLY_AUTO, APPLY_PULLED = 0, 1, 2, 3


def track_edges(n):
    """The state word S_TRACK: pushes of frontiers with more push edges than this record no
    receivers (``hp.config["engine_track_edges"]``; None: ``n // 2``)."""
    t = config["engine_track_edges"]
    return np.uint64(n // 2 if t is None else min(t, 2**64 - 1))


class Launches:
    """Kernel launches over a run's state ``self.s`` (the methods :class:`.gpu._Run` and the
    device loop use); ``self.n``, ``self.limit``, ``self.track``, ``self.bp`` and
    ``self.prop_args`` are the run's."""

    def _grid(self, items, per_block, cap):
        return (max(1, min(cap, -(-items // per_block))),)

    def _pull(self, mode):
        s, n, k = self.s, self.n, self.s.k
        for p in s.parts:
            if p.K > 0:
                k["hp_pull_ell"](self._grid(n, BLOCK, s.n_sm * 32), (BLOCK,),
                                 (p.ell_idx, s.dummy_w if p.ell_val is None else p.ell_val,
                                  np.int64(n), np.int32(p.K), s.bm[0], s.bm[1], s.y,
                                  s.st, self.limit, np.int32(mode)) + self._win_args()
                                 + self.prop_args)
            if p.tail is not None:
                seg_row, seg_ptr, nseg, col, val = p.tail
                k["hp_pull_coo"](self._grid(nseg, BLOCK // 32, s.n_sm * 32), (BLOCK,),
                                 (seg_row, seg_ptr, np.int64(nseg), col,
                                  s.dummy_w if val is None else val, s.bm[0], s.bm[1],
                                  s.y, s.st, self.limit, np.int32(mode)) + self._win_args()
                                 + self.prop_args)

    def _push_grid(self, count_hint, heavy, small):
        s = self.s
        if count_hint is None:
            # frontier size unknown (blind or mixed batch): a full device, unless the batch
            # started far below the tracking threshold (``small``)
            return ((SMALL_BLOCKS_PER_SM if small else 8) * s.n_sm,)
        grid = self._grid(count_hint, BLOCK // 32, s.n_sm * 16)
        if heavy:      # heavy-row chunks go a block per BLOCK-edge piece
            grid = (max(grid[0], min(heavy * -(-codegen.HEAVY // BLOCK), 8 * s.n_sm)),)
        return grid

    def _push(self, mode, count_hint=None, heavy=0, small=False):
        s = self.s
        track = self.bp.apply_to == "received"
        grid = self._push_grid(count_hint, heavy, small)
        for i, p in enumerate(s.parts):
            s.k["hp_push"](grid, (BLOCK,),
                           (p.indptr, p.indices, s.dummy_w if p.vals is None else p.vals,
                            s.q[0], s.q[1], s.qh[0], s.qh[1], s.deg, s.y,
                            s.tbm, s.tq, s.st, self.limit, np.int32(mode), np.int32(i == 0),
                            np.int32(track)) + self._win_args() + self.prop_args)

    def _push_fused(self, mode, count_hint=None, heavy=0, small=False):
        """``hp_push_fused`` (:func:`.codegen.fused_kind`): the push superstep, its updates and
        its close in one launch (one gather side)."""
        s = self.s
        p = s.parts[0]
        s.k["hp_push_fused"](self._push_grid(count_hint, heavy, small), (BLOCK,),
                             (p.indptr, p.indices, s.dummy_w if p.vals is None else p.vals,
                              s.bm[0], s.bm[1], s.q[0], s.q[1], s.qh[0], s.qh[1], s.deg)
                             + self._fuse_args() + (s.st, s.hist, np.int64(_st.HIST_CAP),
                                                    self.limit, np.int32(mode)) + self.prop_args)

    def _fuse_args(self):
        """The fused push's own arguments: the claims' stamps, or the relaxation's far set and
        packed winners (a dummy where the program has neither: the kernel never reads it)."""
        s = self.s
        if s.fused == 1:
            return (s.stamp,)
        return (s.far if s.far is not None else s.dummy_ll,
                s.rk if s.rk is not None else s.dummy_ll)

    def _apply_args(self):
        s = self.s
        return (np.int64(self.n), s.y, s.bm[0], s.bm[1], s.q[0], s.q[1], s.qh[0], s.qh[1],
                s.tbm, s.tq, s.deg, s.st, s.hist, np.int64(_st.HIST_CAP))

    def _feature_args(self):
        """APPLY's arguments of the witness and priority features (in the template's order)."""
        s = self.s
        return (() if s.win is None else (s.win, s.yk)) + (() if s.far is None else (s.far,))

    def _apply(self, touched, dir_code, edges=None):
        """APPLY after a push (``touched``: of a program applying to receivers) or a pull;
        ``edges``: the frontier's push edges where the host knows them."""
        s = self.s
        # a touched APPLY scans every vertex when the push recorded no receivers (more push
        # edges than S_TRACK): then, or where the host cannot tell, it takes the whole device
        if touched and edges is not None and edges <= int(self.track):
            # at most `edges` receivers: a block per SM, more for a long touched list (edges 0:
            # a blind batch's small-frontier hint)
            grid = (max(s.n_sm, min(-(-edges // BLOCK), s.n_sm * 8)),)
        else:
            grid = self._grid(self.n, BLOCK, s.n_sm * 8)
        self._apply_step(grid, APPLY_TOUCHED if touched else APPLY_ALL, dir_code)

    def _apply_step(self, grid, mode, dir_code=0):
        """``hp_apply_step`` in ``mode`` (:data:`APPLY_ALL`, :data:`APPLY_TOUCHED`,
        :data:`APPLY_AUTO`: the direction rule's choice, ``dir_code`` then unused, or
        :data:`APPLY_PULLED`: as ``APPLY_AUTO`` where the rule says pull, else nothing)."""
        self.s.k["hp_apply_step"](grid, (BLOCK,), (np.int32(mode), self.limit)
                                  + self._apply_args() + (np.int32(dir_code),)
                                  + self._feature_args() + self.prop_args)

    def _win_args(self):
        """The SPMV kernels' witness arguments (winners, their entries and the packed exact
        winners, :func:`.codegen.pack_ok`)."""
        s = self.s
        if s.win is None:
            return ()
        return (s.win, s.wedge, s.yk)

    def _pull_csr_args(self):
        """The witness kernel's pull-side CSR arrays of both gather sides (the first twice
        when there is one)."""
        s = self.s
        out = ()
        for p in (s.parts + s.parts)[:2]:
            ip, ix, vals = p.pull_csr
            out += (ip, ix, s.dummy_w if vals is None else vals)
        return out

    def _push_csr_args(self):
        """The push-side CSR arrays of both gather sides, then the first side's HYB tail (the
        witness kernel checks candidates against them)."""
        s = self.s
        out = ()
        for p in (s.parts + s.parts)[:2]:
            out += (p.indptr, p.indices, s.dummy_w if p.vals is None else p.vals)
        tail = s.parts[0].tail
        if tail is None:
            return out + (s.dummy_ids, s.dummy_ll, np.int64(0), s.dummy_ids, s.dummy_w)
        seg_row, seg_ptr, nseg, col, val = tail
        return out + (seg_row, seg_ptr, np.int64(nseg), col, s.dummy_w if val is None else val)

    def _witness(self, mode, touched, pushed=0):
        """WITNESS between SPMV and APPLY (``mode`` 1: mixed, the kernel applies the
        direction rule for ``pushed`` and ``touched``)."""
        s = self.s
        if "hp_witness" not in s.k:        # no witness, or packed winners (APPLY unpacks)
            return
        s.k["hp_witness"](self._grid(self.n, BLOCK // 32, s.n_sm * 16), (BLOCK,),
                          self._pull_csr_args() + self._push_csr_args()
                          + (np.int32(len(s.parts)), np.int64(self.n), s.y, s.bm[0], s.bm[1],
                             s.win, s.wedge, s.yk, s.tq, s.st, self.limit, np.int32(mode),
                             np.int32(pushed), np.int32(touched))
                          + self.prop_args)

    def _far(self):
        """PRIORITY: the near-far split (the kernels return at once unless it is due)."""
        s = self.s
        if s.far is None:
            return
        grid = self._grid(s.far.shape[0], BLOCK, s.n_sm * FAR_BLOCKS_PER_SM)
        s.k["hp_far_min"](grid, (BLOCK,), (np.int64(self.n), s.far, s.st) + self.prop_args)
        s.k["hp_far_take"](grid, (BLOCK,), (np.int64(self.n), s.far, s.bm[0], s.bm[1], s.q[0],
                                             s.q[1], s.qh[0], s.qh[1], s.deg, s.st,
                                             self.bp.priority_delta) + self.prop_args)
