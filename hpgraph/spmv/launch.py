"""Launches of the GPU SpMV kernel families (ELL, vector CSR, load-balanced CSR, merge-path
CSR, HYB): grid sizes, scratch workspaces and argument lists (:mod:`hpgraph.spmv.gpu` picks
the family and compiles the kernels)."""

from __future__ import annotations

import numpy as np

from .. import backend
from ._shared import BLOCK, _cached, _dummy, _grid


def _vals(part, d):
    v = part.values
    return d if v is None else v


def _launch_ell(kernel, ell, y, t, found, out_p, mask_p, xa_p, extra_args):
    n = ell.shape[0]
    K = int(ell.K)
    it = np.dtype(ell.index_dtype).type
    d = _dummy()
    idx = ell.indices if K > 0 else d
    vals = d if (ell.values is None or K == 0) else ell.values
    grid = _grid(n, BLOCK)
    kernel((grid,), (BLOCK,), (it(n), it(K), idx, vals, y, t, found, out_p, mask_p, xa_p) + extra_args)


def _launch_vector(kernel, csr, G, y, out_p, mask_p, xa_p, extra_args):
    n = csr.shape[0]
    it = np.dtype(csr.index_dtype).type
    d = _dummy()
    threads = -(-n // (32 // G)) * 32
    grid = _grid(threads, BLOCK, cap=backend.num_sms() * 64)
    kernel((grid,), (BLOCK,), (it(n), csr.indptr, csr.indices, _vals(csr, d), y, out_p, mask_p, xa_p)
           + extra_args)


def _workspace(M, tag, nwarps, y_dt, nrows_t=0):
    """Scratch buffers for the segmented kernels, cached per matrix and monoid dtype."""
    cp = backend.cupy()
    key = ("ws", tag, nwarps, y_dt.str, nrows_t)

    def build():
        idx_dt = np.dtype(M.index_dtype)
        ws = dict(carry_row=cp.empty(max(nwarps, 1), idx_dt), carry_val=cp.empty(max(nwarps, 1), y_dt),
                  carry_has=cp.zeros(max(nwarps, 1), cp.uint8), head_val=cp.empty(max(nwarps, 1), y_dt),
                  head_has=cp.zeros(max(nwarps, 1), cp.uint8))
        if nrows_t:
            ws["t"] = cp.empty(nrows_t, y_dt)
            ws["found"] = cp.empty(nrows_t, cp.uint8)
        return ws
    return _cached(M, key, build)


def _launch_lb(kern, csr, y, out_p, mask_p, xa_p, extra_args, y_dt, items):
    cp = backend.cupy()
    n = csr.shape[0]
    nnz = int(csr.nnz)
    it = np.dtype(csr.index_dtype).type
    d = _dummy()
    chunk = 32 * items
    nwarps = -(-nnz // chunk)
    kern["empty"]((_grid(n, BLOCK, cap=backend.num_sms() * 32),), (BLOCK,), (it(n), csr.indptr, y, out_p, mask_p))
    if nnz == 0:
        return

    def chunk_rows():
        starts = cp.arange(nwarps, dtype=cp.int64) * chunk
        starts = starts.astype(csr.indptr.dtype, copy=False)
        return (cp.searchsorted(csr.indptr, starts, side="right") - 1).astype(csr.index_dtype)
    crow = _cached(csr, ("chunk_row", chunk), chunk_rows)
    ws = _workspace(csr, ("lb", chunk), nwarps, y_dt)
    kern["lb"]((_grid(nwarps * 32, BLOCK),), (BLOCK,),
               (it(n), np.int64(nnz), csr.indptr, csr.indices, _vals(csr, d), crow, y, out_p, mask_p, xa_p,
                ws["carry_row"], ws["carry_val"], ws["carry_has"], ws["head_val"], ws["head_has"])
               + extra_args)
    if nwarps > 1:
        kern["carry"]((_grid(nwarps, BLOCK),), (BLOCK,),
                      (np.int64(nwarps), ws["carry_row"], ws["carry_val"], ws["carry_has"], ws["head_val"],
                       ws["head_has"], y, out_p, mask_p))


def _launch_mp(kern, csr, y, out_p, mask_p, xa_p, extra_args, y_dt, spec):
    """Merge-path CSR: tile starts (cached per matrix and tile size), tiles, carries.

    Two launches per product (tiles, then the carry pass when there is more than one tile);
    empty rows are merge items of the tiles, so no prefill pass is needed.
    """
    cp = backend.cupy()
    n = csr.shape[0]
    nnz = int(csr.nnz)
    it = np.dtype(csr.index_dtype).type
    d = _dummy()
    blk = int(spec.block)
    tile = blk * int(spec.items)
    ntiles = -(-(n + nnz) // tile)

    def tile_rows():
        tr = cp.empty(ntiles + 1, dtype=csr.index_dtype)
        kern["search"]((_grid(ntiles + 1, blk),), (blk,), (it(n), np.int64(nnz), csr.indptr, np.int64(ntiles), tr))
        return tr
    tr = _cached(csr, ("mp_tiles", tile), tile_rows)
    ws = _workspace(csr, ("mp", tile), ntiles, y_dt)
    cols = csr.indices if nnz else d
    kern["mp"]((ntiles,), (blk,),
               (it(n), np.int64(nnz), csr.indptr, cols, d if nnz == 0 else _vals(csr, d), tr, y, out_p, mask_p,
                xa_p, ws["carry_row"], ws["carry_val"], ws["carry_has"], ws["head_val"], ws["head_has"])
               + extra_args)
    if ntiles > 1:
        kern["carry"]((_grid(ntiles, blk),), (blk,),
                      (np.int64(ntiles), ws["carry_row"], ws["carry_val"], ws["carry_has"], ws["head_val"],
                       ws["head_has"], y, out_p, mask_p))


def _launch_hyb(kern, hyb, y, out, out_p, mask_p, xa_p, extra_args, y_dt, spec):
    n = hyb.shape[0]
    coo = hyb.coo
    ncoo = int(coo.nnz)
    d = _dummy()
    if ncoo == 0:
        _launch_ell(kern["ell"], hyb.ell, y, d, d, out_p, mask_p, xa_p, extra_args)
        return
    chunk = 32 * spec.items
    nwarps = -(-ncoo // chunk)
    general = out is not None
    ws = _workspace(hyb, ("hyb", chunk), nwarps, y_dt, nrows_t=n if general else 0)
    t = ws["t"] if general else y
    found = ws["found"] if general else d
    _launch_ell(kern["ell_raw"], hyb.ell, y, t, found, out_p, mask_p, xa_p, extra_args)
    kern["coo"]((_grid(nwarps * 32, BLOCK),), (BLOCK,),
                (np.int64(ncoo), coo.row, coo.col, _vals(coo, d), t, found, mask_p, xa_p,
                 ws["carry_row"], ws["carry_val"], ws["carry_has"], ws["head_val"], ws["head_has"])
                + extra_args)
    if nwarps > 1:
        kern["carry"]((_grid(nwarps, BLOCK),), (BLOCK,),
                      (np.int64(nwarps), ws["carry_row"], ws["carry_val"], ws["carry_has"], ws["head_val"],
                       ws["head_has"], t, found))
    if general:
        it = np.dtype(hyb.index_dtype).type
        kern["epilogue"]((_grid(n, BLOCK, cap=backend.num_sms() * 32),), (BLOCK,), (it(n), t, found, y, out_p, mask_p))


# ---------------------------------------------------------------------------------------
# push
