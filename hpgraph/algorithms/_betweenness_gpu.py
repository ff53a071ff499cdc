"""Unweighted betweenness on the GPU, 64 sources per sweep, one bit of a word per source.

A specialised kernel beside the sparse-dense products of :mod:`.betweenness`, kept because it
measures far faster: for ``k=64`` sources on R-MAT 21 (2.1M vertices, 63.5M entries; H200,
same sources, same process, CUDA-event medians) the products through cuSPARSE took 1,008.6 ms
(every level multiplies the whole ``n x 64`` float64 block, which cupyx also copies to column
order), these sweeps 29.7 ms (``benchmarks/results/betweenness_ab_h200_s10.json``).

What they do differently: a level's work is only the (edge, source) pairs on the
shortest-path DAG.  Each vertex keeps one 64-bit word per BFS level (bit ``s``: at that distance
from source ``s``) and a row of 64 doubles; a warp scans a chunk of a CSR row reading one word
per neighbour and moves doubles only for the neighbours that share a source with it
(``templates/brandes.cu``).

The forward sweep counts shortest paths level by level (rows of ``A^T``); the backward sweep
walks the levels back (rows of ``A``), turning each row into the coefficients ``(1 + delta) /
sigma`` its parents read, and adds the dependencies to ``bc`` -- networkx's
``_accumulate_basic`` / ``_accumulate_endpoints`` summed over the batch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import backend as _backend
from .. import cuda_source
from .. import dtypes as _dt
from .._arrayops import bincount

__all__ = ["WIDTH", "brandes_source", "accumulate"]

#: Sources per sweep (bits of a word).
WIDTH = 64
#: Entries of a row one warp takes; longer rows are split over several warps.
CHUNK = 512
#: Device bytes the per-level words may take; deeper searches return None (the caller's
#: sparse-dense products run instead: the grid-like graphs of thousands of levels).
LEVEL_BYTES = 1 << 31
_BLOCK = 256
_TEMPLATE = Path(__file__).with_name("templates") / "brandes.cu"
_KERNELS = ("bc_forward", "bc_backward", "bc_finish")


def brandes_source(idx_dtype, ptr_dtype, chunk=CHUNK) -> str:
    """CUDA source of the sweeps for column indices ``idx_dtype`` and row pointers ``ptr_dtype``."""
    return cuda_source.render(cuda_source.load(str(_TEMPLATE)), IDX_T=_dt.c_type(idx_dtype),
                              PTR_T=_dt.c_type(ptr_dtype), CHUNK=int(chunk))


class _Rows:
    """A CSR's rows as warp chunks: row, first entry, and the split row's index (or -1)."""

    def __init__(self, M, chunk, idx_dtype, ptr_dtype):
        cp = _backend.cupy()
        n = int(M.shape[0])
        ptr = M.indptr.astype(ptr_dtype, copy=False)
        deg = (ptr[1:] - ptr[:-1]).astype(np.int64)
        per = cp.maximum((deg + (chunk - 1)) // chunk, 1)    # every row one chunk at least
        ends = cp.cumsum(per)
        total = int(ends[-1]) if n else 0
        pos = cp.arange(total, dtype=np.int64)
        self.crow = cp.searchsorted(ends, pos, side="right").astype(np.int64)
        first = ends[self.crow] - per[self.crow]
        self.cbeg = (ptr[self.crow].astype(np.int64) + (pos - first) * chunk).astype(ptr.dtype)
        self.hrow = cp.nonzero(per > 1)[0].astype(np.int64)
        hid = cp.full(n, -1, dtype=np.int32)
        hid[self.hrow] = cp.arange(self.hrow.shape[0], dtype=np.int32)
        self.cheavy = hid[self.crow]
        self.n, self.nchunks, self.nheavy = n, total, int(self.hrow.shape[0])
        self.indptr, self.indices = ptr, M.indices.astype(idx_dtype, copy=False)


class _Plan:
    """Kernels and row chunks of one (A, A^T) pair, kept in A's derived cache."""

    def __init__(self, A, AT, chunk):
        idx, ptr = A.indices.dtype, A.indptr.dtype
        if AT is not A:      # one kernel for both sweeps: the wider of the two index dtypes
            idx, ptr = np.promote_types(idx, AT.indices.dtype), np.promote_types(ptr, AT.indptr.dtype)
        mod = _backend.raw_module(brandes_source(idx, ptr, chunk), ("-std=c++17",))
        self.forward, self.backward, self.finish = (mod.get_function(k) for k in _KERNELS)
        self.out = _Rows(A, chunk, idx, ptr)
        self.inn = self.out if AT is A else _Rows(AT, chunk, idx, ptr)


def _grid(items):
    return (max(1, -(-items * 32 // _BLOCK)),), (_BLOCK,)


def accumulate(A, AT, sources, bc, endpoints, *, edge=None, chunk=CHUNK, level_bytes=None):
    """Add the dependencies of ``sources`` (host int64, distinct, at most :data:`WIDTH`) to
    ``bc`` (device float64, in place) and return it; None (``bc`` untouched) when the levels
    would take more than ``level_bytes`` (default :data:`LEVEL_BYTES`).  ``edge`` (float64,
    one per stored entry of ``A``): each entry also gains the dependencies it carries (edge
    betweenness; networkx's ``_accumulate_edges``)."""
    cp = _backend.cupy()
    level_bytes = LEVEL_BYTES if level_bytes is None else level_bytes
    plan = A.derived(f"hpg.brandes_plan.{chunk}.{id(AT)}", lambda: _Plan(A, AT, chunk))
    n, b = int(A.shape[0]), int(len(sources))
    fwd, bwd = plan.inn, plan.out
    src = cp.asarray(np.asarray(sources, dtype=np.int64))
    bits = cp.left_shift(cp.uint64(1), cp.arange(b, dtype=np.uint64))
    all_bits = np.uint64((1 << b) - 1)
    with _backend.out_of_memory_guard("betweenness sweeps of 64 sources"):
        val = cp.zeros(n * WIDTH, dtype=np.float64)
        val[src * WIDTH + cp.arange(b)] = 1.0
        first = cp.zeros(n, dtype=np.uint64)
        first[src] = bits
        vis = first.copy()
        levels = [first]
        flag = cp.zeros(1, dtype=np.int32)
        g, blk = _grid(fwd.nchunks)
        while True:                           # forward: path counts, level by level
            nxt = cp.zeros(n, dtype=np.uint64)
            flag.fill(0)
            plan.forward(g, blk, (fwd.indptr, fwd.indices, fwd.crow, fwd.cbeg, fwd.cheavy,
                                  np.int64(fwd.nchunks), vis, levels[-1], nxt, val, all_bits, flag))
            if not int(flag[0]):
                break
            vis |= nxt
            levels.append(nxt)
            if len(levels) * n * 8 > level_bytes:
                return None
        hacc = cp.zeros(max(bwd.nheavy, 1) * WIDTH, dtype=np.float64)
        extra = np.float64(1.0 if endpoints else 0.0)
        g, blk = _grid(bwd.nchunks)
        gh, _ = _grid(bwd.nheavy)
        depth = len(levels) - 1
        last = 0 if edge is None else -1      # the sources' own level: only their edges need it
        for lvl in range(depth, last, -1):    # backward: dependencies, deepest level first
            has_next = lvl < depth
            nxt = levels[lvl + 1] if has_next else levels[lvl]
            plan.backward(g, blk, (bwd.indptr, bwd.indices, bwd.crow, bwd.cbeg, bwd.cheavy,
                                   np.int64(bwd.nchunks), levels[lvl], nxt, np.int32(has_next),
                                   val, hacc, bc, extra, bc if edge is None else edge,
                                   np.int32(edge is not None)))
            if bwd.nheavy:
                plan.finish(gh, blk, (bwd.hrow, np.int64(bwd.nheavy), levels[lvl], hacc, val, bc,
                                      extra))
        if endpoints:                         # each source: the vertices it reached
            counts = _bit_counts(cp, vis, b) - 1.0
            bc += bincount(cp, src, weights=counts, minlength=n)
    return bc


def _bit_counts(cp, words, b, step=1 << 20):
    """For each bit ``s < b``: how many of ``words`` (uint64) have it set (float64)."""
    out = cp.zeros(WIDTH, dtype=np.float64)
    for i in range(0, words.shape[0], step):
        part = cp.unpackbits(words[i:i + step].view(np.uint8), bitorder="little")
        out += part.reshape(-1, WIDTH).sum(axis=0, dtype=np.float64)
    return out[:b]
