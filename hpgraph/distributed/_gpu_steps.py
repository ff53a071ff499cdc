"""The device supersteps of the distributed BFS and PageRank (one rank, one GPU, NCCL).

A specialised kernel set beside the engine, kept because it measures far faster than the
generic form on the same GPUs (``benchmarks/README.md``, session 9): a level built from
:func:`hpgraph.mxv` (a masked pull over every row of the partition) took 4.1-4.4 ms per level
on half of R-MAT 25 whatever the frontier (one H200), where these level kernels take 0.05-0.38
ms per step on half of R-MAT 26, twice the entries (one of two H200s); whole BFS, R-MAT 26:
3.53 ms on two H200s and 3.86 ms on four, against 7.02 ms for the single-GPU kernel (the
generic form ran at 0.11x of one GPU on two H100s: 36.4 against 4.09 ms on R-MAT 25).  The
kernels (``templates/bfs_level.cu``) work only on the level's frontier (top-down: a queue of
this rank's frontier vertices; bottom-up: the unvisited vertices, stopping at the first
in-edge from the frontier), as the single-GPU BFS kernel (:mod:`hpgraph.algorithms._bfs_gpu`)
does, with its warp helpers (:data:`hpgraph.algorithms._coop.DEVICE_COMMON`).

**BFS level.**  Every rank holds the visited and frontier bitmaps of all ``n`` vertices (the
same on every rank).  A level writes the rank's discoveries into a bitmap of all ``n`` bits
(top-down from its frontier rows, which on an undirected graph are out-edges too; bottom-up
over its unvisited rows), the ranks allgather them (``n / 8`` bytes from each after a
top-down level; after a bottom-up one only the words of the rank's own rows), and
``dbfs_merge`` ORs them into the next frontier, gives this rank's new vertices their depth
and counts the frontier and its edges, from a degree array of all ``n`` vertices that every
rank holds.  So every rank takes the same direction (Beamer's rule with ``alpha``: push while
the frontier's edges times ``alpha`` are fewer than the unvisited vertices' edges) and the
same decision to stop, from the same two counters: one host read per level.  Directed graphs
always pull (a rank holds in-edges only).

**PageRank iteration.**  The SpMV over the partition's rows (:func:`hpgraph.spmv.spmv`), then
the single-GPU PageRank's fused update kernel (:func:`hpgraph.algorithms._kernels.
pagerank_update`: the new slice, the slice times ``1 / out-weight`` that the next allgather
sends, and the L1 change and dangling mass summed on the device), then one allreduce of those
two numbers, read by the host.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from .. import backend as _backend
from .. import cuda_source
from .. import dtypes as _dt
from ..algorithms._coop import DEVICE_COMMON
from ..formats.bitmask import Bitmask

__all__ = ["bfs_level_source", "bfs_levels", "pagerank_loop"]

_TEMPLATE = Path(__file__).with_name("templates") / "bfs_level.cu"
_KERNELS = ("dbfs_pull", "dbfs_pull_long", "dbfs_queue", "dbfs_push", "dbfs_merge")
BLOCK = 256
#: In-edges a thread checks for a bottom-up vertex before a warp takes over the rest.
LONG = 32
#: Top-down: frontier vertices of out-degree above HEAVY get a block each, above HUGE the grid.
HEAVY = 256
HUGE = 8192
#: uint64 state words at the front of the per-level scratch (queue counts, long rows; the
#: merge's two counters): ``S_WORDS`` in the template, then 2.
_HEAD = 8


def bfs_level_source(idx_dtype=np.int32, ptr_dtype=np.int64) -> str:
    """CUDA source of the level kernels for column indices of ``idx_dtype`` and row offsets
    of ``ptr_dtype`` (degrees are int64 on every rank: the ranks' index widths may differ)."""
    return cuda_source.render(
        cuda_source.load(str(_TEMPLATE)), IDX_T=_dt.c_type(idx_dtype),
        PTR_T=_dt.c_type(ptr_dtype), DEG_T=_dt.c_type(np.int64), BLOCK=BLOCK, LONG=LONG,
        HEAVY=HEAVY, HUGE=HUGE, COMMON=DEVICE_COMMON)


@functools.lru_cache(maxsize=None)
def _kernels(idx_str, ptr_str):
    mod = _backend.raw_module(bfs_level_source(np.dtype(idx_str), np.dtype(ptr_str)),
                              ("-std=c++17",))
    return tuple(mod.get_function(k) for k in _KERNELS)


class _BfsPlan:
    """What a partition's BFS jobs share (kept on the partition): the degrees of all ``n``
    vertices (allgathered once), the bitmap of the vertices no edge enters (they start
    visited, so no bottom-up step looks at them) and the level buffers."""

    def __init__(self, part, coll):
        cp = _backend.cupy()
        A = part.matrix
        n, lo, hi = part.n, part.lo, part.hi
        self.nw = nw = (n + 31) // 32
        # int64 on every rank: each partition picks its own index width, and the allgather
        # moves bytes assuming one item size everywhere
        self.deg = coll.allgather(cp.diff(A.indptr).astype(np.int64), part.counts)
        self.total = int(self.deg.sum())
        self.dead = Bitmask.from_bool(self.deg == 0).words
        self.vis = cp.empty(nw, dtype=np.uint32)
        self.fr = cp.empty(nw, dtype=np.uint32)
        # a bottom-up level sends only the words of the rank's own rows: `span` words from
        # word wlo[rank] (the same count from every rank, as NCCL's allgather needs)
        bounds = np.concatenate([[0], np.cumsum(part.counts)])
        wlo = bounds[:-1] // 32
        self.span = int(max((bounds[1:] + 31) // 32 - wlo))
        self.wlo = int(wlo[part.rank])
        self.wlo_spans = cp.asarray(wlo.astype(np.int64))
        self.wlo_all = cp.zeros(len(wlo), dtype=np.int64)
        # scratch zeroed by one memset per level: state words, then this rank's discoveries
        # (padded so that the last rank's span fits)
        self.scratch = cp.empty(_HEAD + (nw + self.span + 1) // 2, dtype=np.uint64)
        self.st = self.scratch[:_HEAD]
        self.cnt = self.scratch[4:6]
        self.nxt = self.scratch[_HEAD:].view(np.uint32)
        rows = max(hi - lo, 1)
        self.q = cp.empty(rows, dtype=A.indices.dtype)     # light from the front, heavy back
        self.hq = cp.empty(rows, dtype=A.indices.dtype)
        self.lq = cp.empty(rows, dtype=A.indices.dtype)
        # what the ranks' allgathers land in (a whole bitmap from every rank at most)
        self.gathered = cp.empty(coll.size * nw, dtype=np.uint32)
        self.kernels = _kernels(A.indices.dtype.str, A.indptr.dtype.str)
        self.grid = _backend.num_sms() * (2048 // BLOCK)
        self.cnt_host = np.frombuffer(cp.cuda.alloc_pinned_memory(16), dtype=np.uint64, count=2)
        # the profile's events, made once: 4 per level for the first PROFILE_LEVELS levels
        self.events = [_events(cp, 4) for _ in range(PROFILE_LEVELS)]

    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in (self.deg, self.dead, self.vis, self.fr, self.scratch,
                                          self.q, self.hq, self.lq, self.gathered)))


def _plan(part, coll):
    plan = part.cache.get("bfs")
    if plan is None:
        plan = part.cache["bfs"] = _BfsPlan(part, coll)
    return plan


def _read_pair(arr, host):
    """Two device words into the pinned ``host`` pair (one synchronisation)."""
    cp = _backend.cupy()
    arr.get(out=host, stream=cp.cuda.get_current_stream(), blocking=True)
    return host[0], host[1]


def bfs_levels(part, coll, sources, push_alpha):
    """Depths of this rank's vertices ``[lo, hi)`` (int32, -1 unreached), the level count
    (the last level finds nothing) and the bytes of the level buffers."""
    cp = _backend.cupy()
    plan = _plan(part, coll)
    lo, hi, nw = part.lo, part.hi, plan.nw
    pull, pull_long, queue, push, merge = plan.kernels
    A = part.matrix
    ip, ix = A.indptr, A.indices
    src = np.unique(np.asarray(sources, dtype=np.int64))
    words, starts = np.unique(src >> 5, return_index=True)
    bits = np.bitwise_or.reduceat((np.uint32(1) << (src & 31).astype(np.uint32)), starts)
    wd, bd = cp.asarray(words), cp.asarray(bits.astype(np.uint32))
    plan.fr.fill(0)
    plan.fr[wd] = bd
    plan.vis[...] = plan.dead
    plan.vis[wd] |= bd
    depth = cp.full(hi - lo, -1, dtype=np.int32)
    own = src[(src >= lo) & (src < hi)]
    if own.size:
        depth[cp.asarray(own - lo)] = 0
    nf, mf = len(src), int(plan.deg[cp.asarray(src)].sum())
    seen = mf                                     # edges of the visited vertices
    g = (plan.grid,)
    b = (BLOCK,)
    lo64, hi64 = np.int64(lo), np.int64(hi)
    level = 0
    marks = []
    while nf:
        ev = plan.events[level] if level < PROFILE_LEVELS else None
        _record(ev, 0)
        plan.scratch.fill(0)
        push_level = not part.directed and mf * push_alpha < plan.total - seen
        if push_level:
            queue(g, b, (ip, lo64, hi64, plan.fr, plan.q, plan.hq, plan.st))
            push(g, b, (ip, ix, lo64, hi64, plan.vis, plan.nxt, plan.q, plan.hq, plan.st))
            send, wlo = plan.nxt[:nw], plan.wlo_all        # discoveries anywhere
        else:
            pull(g, b, (ip, ix, lo64, hi64, plan.fr, plan.vis, plan.nxt, plan.lq, plan.st))
            pull_long(g, b, (ip, ix, lo64, plan.fr, plan.nxt, plan.lq, plan.st))
            send, wlo = plan.nxt[plan.wlo:plan.wlo + plan.span], plan.wlo_spans   # own rows
        width = int(send.shape[0])
        _record(ev, 1)
        gathered = coll.allgather(send, [width] * coll.size,
                                  out=plan.gathered[: coll.size * width])
        _record(ev, 2)
        merge(g, b, (gathered, np.int32(coll.size), np.int64(width), wlo, np.int64(nw),
                     plan.vis, plan.fr, depth, lo64, hi64, np.int32(level), plan.deg, plan.cnt))
        _record(ev, 3)
        nf, mf = (int(v) for v in _read_pair(plan.cnt, plan.cnt_host))
        if ev is not None:
            marks.append((ev, "push" if push_level else "pull", nf))
        seen += mf
        level += 1
    coll.profile = [dict(direction=d, found=f, **_spans(ev, ("step", "exchange", "merge")))
                     for ev, d, f in marks]
    return depth, level, plan.nbytes() + depth.nbytes


#: Levels of a BFS whose step times the profile keeps (JobInfo.profiles), as the single-GPU
#: kernel's timeline does: a road graph has thousands of levels.
PROFILE_LEVELS = 64


def _events(cp, k):
    return [cp.cuda.Event() for _ in range(k)]


def _record(ev, i):
    if ev is not None:
        ev[i].record()


def _spans(ev, names):
    """Milliseconds between consecutive recorded events (all complete), by name."""
    cp = _backend.cupy()
    return {name: round(cp.cuda.get_elapsed_time(ev[i], ev[i + 1]), 4)
            for i, name in enumerate(names)}


def pagerank_loop(part, coll, S, dang_mass, damping, tol, max_iter, sr, dtype):
    """The power iteration over this rank's slice: ``(x slice, iterations)`` once the L1
    change is below ``tol``, ``(None, max_iter)`` if it never is.  ``S``: ``1 / out-weight``
    of the rank's vertices (0 where dangling); ``dang_mass``: the start vector's dangling
    mass (summed over all ranks)."""
    from ..algorithms import _kernels
    from ..spmv import spmv

    cp = _backend.cupy()
    lo, hi, n = part.lo, part.hi, part.n
    x = cp.full(hi - lo, 1.0 / n, dtype=dtype)
    w = x * S
    xn, wn = cp.empty_like(x), cp.empty_like(x)
    glob = cp.asarray([0.0, dang_mass], dtype=np.float64)
    acc = cp.empty(2, dtype=np.float64)
    whole = cp.empty(n, dtype=dtype)        # every rank's x * S, gathered each iteration
    host = np.frombuffer(cp.cuda.alloc_pinned_memory(16), dtype=np.float64, count=2)
    names = ("allgather", "spmv", "update", "allreduce")
    total = dict.fromkeys(names, 0.0)
    ev = _events(cp, 5)                     # reused: each iteration ends synchronised
    for k in range(max_iter):
        ev[0].record()
        coll.allgather(w, part.counts, out=whole)
        ev[1].record()
        y = spmv(part.matrix, whole, sr, backend="gpu")
        ev[2].record()
        acc.fill(0)
        _kernels.pagerank_update(y, x, S, None, None, glob, acc, xn, wn, damping, 1.0 / n)
        ev[3].record()
        glob = coll.allreduce(acc, "sum")
        ev[4].record()
        _read_pair(glob, host)
        for name, ms in _spans(ev, names).items():
            total[name] += ms
        coll.profile = {name: round(ms / (k + 1), 4) for name, ms in total.items()}
        x, xn, w, wn = xn, x, wn, w
        if float(host[0]) < tol:
            return x, k + 1
    return None, max_iter
