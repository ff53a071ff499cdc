"""Breadth-first search, direction-optimized (Beamer), on hpgraph's semiring SpMV.

One BFS level is one of two steps:

* **bottom-up (pull)** -- ``parent = spmv(A^T, _, any_secondi, row_mask=visited,
  complement=True, x_active=frontier, out=parent)``: every *unvisited* vertex scans its
  in-edges and takes the first in-neighbour that is in the frontier.  ``any`` is a terminal
  monoid, so the GPU kernels stop a row at its first hit (the paper's bottom-up traversal,
  section 3.2); visited rows are skipped by the complemented mask and inactive sources by the
  x_bitmask.
* **top-down (push)** -- the frontier's out-edges are expanded and every unvisited target takes
  one frontier vertex as its parent.  On the GPU this is the SpMV push kernel
  (:func:`hpgraph.spmv.gpu.push`, an edge-balanced scatter over the frontier with the monoid's
  atomic); on the CPU (and on a GPU build without that kernel) it is a vectorised expansion of
  the frontier's CSR rows -- the one place where the semiring product "over the frontier only"
  is not expressible through :func:`hpgraph.spmv.spmv`, whose cost is proportional to the rows
  it computes, not to the frontier.

``direction="auto"`` follows Beamer, Asanovic and Patterson (SC'12), as in GAP: start top-down;
go bottom-up when the frontier's out-edges ``m_f`` exceed ``m_u / alpha`` (``m_u``: in-edges of
the unvisited vertices, what a bottom-up step scans at most); go back top-down when the
frontier has shrunk below ``n / beta`` vertices (``alpha``, ``beta``: ``hp.config``'s
``bfs_alpha``, ``bfs_beta``).  Each level costs one small host read (frontier size and edge
counts together).
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np

from .._config import config
from ..exceptions import InvalidValue
from ..program import VertexProgram
from . import _scipy_cpu
from ._common import check_sources, finish, kernel_or_engine, prepare, vertex_id_dtype

__all__ = ["bfs", "BFSResult"]

DIRECTIONS = ("auto", "push", "pull")

class BFSResult(NamedTuple):
    """Result of :func:`bfs`.

    Attributes
    ----------
    depth : array of int32
        Hops from the nearest source; -1 where unreachable; 0 at the sources.
    parent : array of int32 (int64 when vertex ids need it)
        The vertex through which ``v`` was reached (an in-neighbour at depth ``depth[v] - 1``);
        ``parent[s] == s`` for each source, -1 where unreachable.  Any valid BFS parent may be
        returned (ties are broken by whichever frontier vertex the kernel meets first).
    """

    depth: Any
    parent: Any


def bfs(G, source, *, direction="auto", backend=None, to=None):
    """Breadth-first search from ``source`` (a vertex or a list of vertices, all at depth 0).

    Parameters
    ----------
    G : hpgraph.Graph (or scipy/cupyx sparse matrix, networkx graph)
        Edges are followed from row to column (``A[u, v]``: ``u -> v``); weights are ignored.
    source : int or sequence of int
        Source vertex, or several (multi-source BFS).
    direction : {"auto", "push", "pull"}
        ``"auto"``: Beamer's direction-optimizing switch; ``"push"``: top-down only;
        ``"pull"``: bottom-up only.  All give the same depths.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}
        Where the arrays of the result live (default: the side of the input graph).

    Returns
    -------
    BFSResult
        ``(depth, parent)``.

    Raises
    ------
    IndexOutOfBound
        A source outside ``[0, n)``.
    InvalidValue
        Bad ``direction``, ``backend`` or ``to``.
    """
    if direction not in DIRECTIONS:
        raise InvalidValue(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    G, side, on_dev = prepare(G, backend)
    sources = check_sources(G, source)
    if side == "gpu" and gpu_bfs_impl(G) == "kernel":
        depth, parent = _bfs_kernel(G, sources, direction)
    elif side == "gpu" and G.num_vertices < 2**32:
        depth, parent = bfs_engine(G, sources, direction=direction, side=side, loop="device")
    elif side == "cpu" and direction == "auto" and _scipy_cpu.usable(G):
        depth, parent = _scipy_cpu.bfs_scipy(G, sources, vertex_id_dtype(G.num_vertices))
    else:
        depth, parent, _ = bfs_arrays(G, sources, direction=direction, side=side)
    return BFSResult(finish(depth, on_dev, to), finish(parent, on_dev, to))


# ---------------------------------------------------------------------------------------------
# BFS as a vertex program (the GPU path)
#
# Why: a Python-driven level loop costs a few host round trips per level, which dominates on
# high-diameter graphs (4,095 levels on a 2048 x 2048 grid: seconds).  hp.bfs runs this
# program on the engine's device loop (every superstep in one cooperative launch, push or pull
# chosen on the device) on sparse graphs (:func:`gpu_bfs_impl`): on the grid faster than the
# single-launch kernel of :mod:`._bfs_gpu`, which dense graphs keep.
#
# The program reduces with ``any``: the engine stops a pulled row at its first active
# in-neighbour, and every active sender of a superstep sits on the same BFS level (a vertex
# changes once, when reached), so any of them is a valid parent.  ``mask`` keeps visited
# vertices out of every superstep: a pull skips their rows entirely (bottom-up BFS scans only
# unvisited vertices, and each only until its first frontier neighbour), a push skips the
# atomic into them.  The gathered value packs the sender's level and id into one int64,
# ``(depth[u] + 1) * 2**32 + u`` (never 0, ``any``'s identity), so one word carries both.

_KEY_SHIFT = 4294967296  # 2**32: vertex ids below it fit in the low half of the key
_KEY_NONE = np.iinfo(np.int64).max

def _bfs_any_class(idt):
    class BFSAny(VertexProgram):
        """depth[v] (-1 until reached), parent[v] (a frontier in-neighbour), vid[v] = v."""

        edges = "in"
        properties = {"depth": ("int32", -1), "parent": (idt, -1), "vid": (idt, 0)}
        reduce = "any"
        y_dtype = "int64"
        apply_to = "received"  # update(v, 0) leaves v unchanged
        # the mask rejects every reached vertex, so every frontier vertex: the GPU runs each
        # push superstep as one launch (the first sender to reach v updates it)
        mask_excludes_active = True

        def init(self, graph, depth=None, parent=None, vid=None, active=None):
            return {"depth": depth, "parent": parent, "vid": vid}, active

        def mask(v):
            return v.depth < 0

        def gather(src, edge, dst):
            return np.int64(src.depth + 1) * 4294967296 + src.vid

        def update(v, y):
            fresh = v.depth < 0 and y != 0
            return {"depth": y // 4294967296 if fresh else v.depth,
                    "parent": y % 4294967296 if fresh else v.parent}

    BFSAny.__name__ = BFSAny.__qualname__ = f"BFSAny_{np.dtype(idt).name}"
    return BFSAny


_BFS_ANY = {np.dtype(t): _bfs_any_class(np.dtype(t)) for t in (np.int32, np.int64)}


class _BFSKeys(VertexProgram):
    """The previous GPU BFS program (kept for benchmarks/bench_sssp_breakdown.py): ``min`` over
    ``key = depth * 2**32 + id`` (smallest-id parents, deterministic), no mask: pull supersteps
    scan whole rows, visited ones included.

    key[v] = depth[v] * 2**32 + v once reached (-1 before); parent[v] = the in-neighbour."""

    edges = "in"
    properties = {"key": ("int64", -1), "vid": ("int64", 0), "parent": ("int64", -1)}
    reduce = "min"
    y_dtype = "int64"
    apply_to = "received"  # update(v, identity) leaves v unchanged

    def init(self, graph, key=None, vid=None, parent=None, active=None):
        return {"key": key, "vid": vid, "parent": parent}, active

    def gather(src, edge, dst):
        return src.key + 4294967296

    def update(v, y):
        fresh = v.key < 0 and y < 9223372036854775807
        return {"key": (y // 4294967296) * 4294967296 + v.vid if fresh else v.key,
                "parent": y % 4294967296 if fresh else v.parent}


_VIDS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _vertex_ids(G, idt):
    """``arange(n)`` of dtype ``idt`` on G's side, kept per graph (the engine only reads it)."""
    xp = G.xp
    try:
        slot = _VIDS.setdefault(G, {})
    except TypeError:
        return xp.arange(G.num_vertices, dtype=idt)
    key = np.dtype(idt).str
    if key not in slot:
        slot[key] = xp.arange(G.num_vertices, dtype=idt)
    return slot[key]


def gpu_bfs_impl(G) -> str:
    """Which GPU BFS runs on ``G``: ``"kernel"`` (:mod:`._bfs_gpu`, one cooperative launch) or
    ``"engine"`` (the ``BFSAny`` program on the engine's device loop);
    ``hp.config["bfs_gpu_path"]`` decides, ``"auto"`` by the mean out-degree
    (``hp.config["bfs_gpu_kernel_degree"]``): long thin graphs, where a level is a few
    vertices, run as fast or faster on the engine; dense ones keep the kernel."""
    impl = config["bfs_gpu_path"]
    n = int(G.num_vertices)
    if n == 0:                  # nothing for the kernel to launch
        return "engine"
    if impl == "auto" and n >= 2**32:       # BFSAny packs a vertex id into 32 bits
        return "kernel"
    return kernel_or_engine(G, impl, config["bfs_gpu_kernel_degree"])


def _bfs_kernel(G, sources, direction):
    """The cooperative-kernel BFS (:mod:`._bfs_gpu`), or the engine's where the device refuses
    the cooperative launch (remembered per graph)."""
    from . import _bfs_gpu
    from ._coop import CooperativeLaunchRefused

    n = int(G.num_vertices)
    idt = vertex_id_dtype(n)
    try:
        return _bfs_gpu.bfs_gpu(G, sources, direction=direction, alpha=config["bfs_alpha"],
                                beta=config["bfs_beta"], par_dtype=idt)
    except CooperativeLaunchRefused:
        return bfs_engine(G, sources, direction=direction, side="gpu")


def bfs_engine(G, sources, *, direction="auto", side="gpu", push_alpha=None, loop=None):
    """BFS through :func:`hpgraph.run` (the ``BFSAny`` program above); returns
    ``(depth, parent)`` (int32, and int32 or int64 by the number of vertices).  ``push_alpha``
    None: ``hp.config["bfs_engine_push_alpha"]``; ``loop``: the GPU engine's loop
    (``hp.run(engine_loop=)``; None: ``hp.config["engine_loop"]``)."""
    from ..program import run

    n = int(G.num_vertices)
    idt = vertex_id_dtype(n)
    kw = bfs_run_args(n, sources, lambda: _vertex_ids(G, idt))
    res = run(_BFS_ANY[idt], G, backend=side, direction=direction, engine_loop=loop,
              push_alpha=config["bfs_engine_push_alpha"] if push_alpha is None else push_alpha,
              **kw)
    return res.depth, res.parent


def bfs_run_args(n, sources, vertex_ids):
    """The ``hp.run`` keywords of a BFS from ``sources`` (host int64 ids, maybe repeated): no
    array is built here -- the initial depth and parent are :class:`~hpgraph.program.Seeded`
    rules (the GPU engine writes them in its one setup launch), a single source skips
    ``np.unique``, and only ``depth`` and ``parent`` are asked back (``vid`` is read in place
    and never copied out)."""
    from ..program import Seeded

    src = sources if sources.shape[0] == 1 else np.unique(sources)
    return dict(depth=Seeded(-1, 0), parent=Seeded(-1, "id"), vid=vertex_ids(),
                active=src, outputs=("depth", "parent"))


# ---------------------------------------------------------------------------------------------
# the level loop (shared with sssp/widest_path, which run it over "tight" edges)


def bfs_arrays(G, sources, *, direction="auto", side="cpu", A=None, alpha=None, beta=None):
    """Direction-optimized BFS on a Graph already on ``side``.

    ``A`` (a CSR on the same side, optional) replaces the graph's adjacency matrix; it is then
    traversed top-down only (used for BFS over a filtered edge set).  ``alpha`` / ``beta``
    None: ``hp.config["bfs_alpha"]`` / ``["bfs_beta"]`` (the direction switch).

    Returns ``(depth, parent, directions)``: device or host arrays, and the list of
    ``"push"``/``"pull"`` taken per level.
    """
    from .. import ops

    alpha = config["bfs_alpha"] if alpha is None else alpha
    beta = config["bfs_beta"] if beta is None else beta
    xp = G.xp
    n = int(G.num_vertices)
    idt = vertex_id_dtype(n)
    depth = xp.full(n, -1, dtype=np.int32)
    parent = xp.full(n, -1, dtype=idt)
    src = xp.asarray(np.unique(sources).astype(idt))
    depth[src] = 0
    parent[src] = src
    if A is not None:
        direction = "push"
        out_deg = xp.diff(A.indptr)
        in_deg = None
        AT = None
    else:
        A = G.A
        out_deg, in_deg = G.out_degree, G.in_degree
        AT = G.AT
    visited = xp.zeros(n, dtype=bool)
    visited[src] = True
    frontier = visited.copy()
    nf = int(src.shape[0])
    m_f = int(out_deg[src].sum()) if n else 0
    m_u = (int(AT.nnz) - int(in_deg[src].sum())) if in_deg is not None else 0
    sr = ops.lookup_semiring("any_secondi", idt)
    push_kernel = _gpu_push() if side == "gpu" else None

    mode = "pull" if direction == "pull" else "push"
    prev_nf = nf
    directions = []
    level = 0
    while nf > 0:
        if direction == "auto":
            if mode == "push":
                if m_f > m_u / alpha:
                    mode = "pull"
            elif nf < n / beta and nf < prev_nf:
                mode = "push"
        directions.append(mode)
        if mode == "pull":
            new, parent = _pull_step(AT, parent, visited, frontier, sr, side)
        else:
            new, parent = _push_step(xp, A, parent, visited, frontier, m_f, push_kernel, sr)
        level += 1
        xp.copyto(depth, np.int32(level), where=new)  # no host sync (a masked store would)
        visited |= new
        frontier = new
        prev_nf = nf
        if in_deg is not None:
            counts = xp.stack([new.sum(dtype=np.int64), _masked_sum(xp, out_deg, new),
                               _masked_sum(xp, in_deg, new)])
            nf, m_f, in_new = (int(c) for c in _host(counts))
            m_u -= in_new
        else:
            counts = xp.stack([new.sum(dtype=np.int64), _masked_sum(xp, out_deg, new)])
            nf, m_f = (int(c) for c in _host(counts))
    return depth, parent, directions


def _masked_sum(xp, values, mask):
    if xp is np:
        return values.sum(where=mask, dtype=np.int64)
    return xp.where(mask, values, 0).sum(dtype=np.int64)


def _host(a):
    from .. import backend as _backend

    return _backend.to_host(a)


def _pull_step(AT, parent, visited, frontier, sr, side):
    """Bottom-up: unvisited rows of A^T take the first in-neighbour in the frontier."""
    from ..formats import Bitmask
    from ..spmv import spmv

    y = spmv(AT, parent, sr, row_mask=Bitmask.from_bool(visited), complement=True,
             x_active=Bitmask.from_bool(frontier), out=parent, backend=side,
             format=config["bfs_pull_format"])
    new = (y != -1) & ~visited
    return new, y


def _gpu_push():
    """The GPU push kernel entry (``hpgraph.spmv.gpu.push``) or None when this build lacks it."""
    try:
        from ..spmv import gpu as _gpu
    except ImportError:
        return None
    return getattr(_gpu, "push", None)


def _push_step(xp, A, parent, visited, frontier, m_f, push_kernel, sr):
    """Top-down: unvisited out-neighbours of the frontier take a frontier vertex as parent."""
    f = xp.flatnonzero(frontier).astype(A.indptr.dtype, copy=False)
    if push_kernel is not None:
        # GPU: edge-balanced scatter over the frontier's out-edges, any_secondi with the
        # monoid's atomic, destinations restricted to the unvisited ones by the mask.
        y = parent.copy()
        push_kernel(A, f, parent, sr, y, mask=visited, complement=True)
        return (y != -1) & ~visited, y
    targets, sources = expand_rows(xp, A.indptr, A.indices, f, m_f)
    keep = ~visited[targets]
    targets, sources = targets[keep], sources[keep]
    new = xp.zeros(visited.shape[0], dtype=bool)
    new[targets] = True
    parent = parent.copy()
    parent[targets] = sources.astype(parent.dtype, copy=False)  # one of the writers wins
    return new, parent


def expand_rows(xp, indptr, indices, rows, total=None):
    """``(cols, row_of_entry)`` of all stored entries of CSR rows ``rows`` (vectorised).

    ``total`` (the number of those entries) saves a host read when the caller knows it.
    """
    starts = indptr[rows]
    lens = indptr[rows + 1] - starts
    if total is None:
        total = int(lens.sum())
    if total == 0 or rows.shape[0] == 0:
        e = xp.zeros(0, dtype=indices.dtype)
        return e, e
    offs = xp.cumsum(lens) - lens                     # exclusive prefix sum
    pos = xp.arange(total, dtype=np.int64)
    k = xp.searchsorted(offs, pos, side="right") - 1  # owning row slot of each entry
    # rows with no entries have equal offsets; searchsorted(right) picks the last of them,
    # which is the non-empty one owning ``pos`` (empty rows own nothing).
    src_pos = starts[k].astype(np.int64) + (pos - offs[k])
    return indices[src_pos], rows[k]
