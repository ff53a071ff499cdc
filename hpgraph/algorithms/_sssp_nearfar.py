"""Near-far SSSP (Davidson, Baxter, Garland and Owens, IPDPS 2014) and one-pass predecessors.

**Why a specialised kernel.**  Near-far is a bucketed label-correcting algorithm: vertices are
relaxed only while their distance is below a moving threshold (the *near* queue); improvements
beyond it wait in a *far pile* that is split by the next threshold when the near queue runs
dry.  The engine runs the same ordering for any vertex program that declares ``priority``
(``examples.sssp.SSSPNearFar``: the README's SSSP plus ``priority = "dist"`` and a witness),
and since that program relaxes (``hpgraph.engine.relax``) each small push superstep is one
kernel there too, this kernel's far pile is a queue where the engine scans a far bitmap of
all n vertices, and it records no winners during the run: on the 2048 x 2048 weighted grid
(thousands of steps, where the cost per step is everything) 38.87 ms here against 44.79 ms for
the engine program with predecessors on its device loop (1.15x; one NVIDIA H100,
``benchmarks/bench_vertex_programs.py``, one process, 2026-11-27, session 25's final run).
That is under the 20% the project allows a kept kernel: ``hp.sssp`` on sparse graphs is to
move onto the engine program (this module then goes) once a device run has checked
``hp.sssp``'s results and its speed there (see ``benchmarks/README.md``, "Left after session
25").  The whole step -- relax
the near queue *or* split the far pile, then close the step -- is one kernel launch whose last
block decides on the device what the next launch does.  Batches of launches are replayed as CUDA graphs, with one small host
read per batch (the engine's blind-batch pattern).

**Algorithm (one launch = one step).**  Device state ``st`` holds the queue parities, counts,
the threshold ``thr`` and ``delta``:

* *relax* (near queue non-empty): every queued vertex ``u`` pushes ``dist[u] + w`` to its
  out-neighbours with ``atomicMin`` on the distance's bit pattern (non-negative IEEE floats
  order like their bits as integers).  An improved ``v`` goes to the next near queue when its
  new distance is ``< thr``, else to the far pile.  Per-vertex stamps (iteration number for the
  near queue, phase number for the far pile) keep every vertex at most once in each queue, so
  capacity ``n`` is enough.  Queue appends are warp-aggregated (one ``atomicAdd`` per warp).
  Light vertices are relaxed by ``GROUP`` lanes each (``GROUP`` from the average degree);
  vertices of degree above ``HEAVY`` go to a separate queue relaxed by a whole block.
* *split* (near queue empty): ``nb = thr + delta``; far entries with ``dist < thr`` were
  already relaxed in an earlier phase (every improvement below ``thr`` was queued as near) and
  are dropped, those below ``nb`` become the near queue, the rest stay in the pile.  If nothing
  became near, ``thr`` jumps to the smallest remaining far distance, so an empty band costs
  one launch, not one per ``delta``.
* the last block to finish (``__threadfence`` + ticket) closes the step: swaps parities,
  resets the consumed counts, advances ``thr``, and raises ``halt`` when both queues are empty.

``delta`` defaults to ``hp.config["sssp_delta_factor"] * mean weight / mean degree`` (Davidson's
rule, with 128 instead of the warp width 32: measured faster); ``delta = inf`` turns near-far into a
queue-driven Bellman-Ford (every improvement is near).  Near-far needs non-negative weights; :func:`hpgraph.sssp` keeps
Bellman-Ford for negative ones.

**Predecessors** (:func:`tight_parents`): one pass over the stored edges keeps, for every
vertex ``v``, the largest ``u`` with ``dist[u] < dist[v]`` and ``dist[u] + w(u, v) ==
dist[v]`` (``atomicMax``; on the CPU ``np.maximum.at`` over the tight edges, the same result).
The pass is edge-balanced (each warp takes a fixed run of stored entries and finds its rows by
binary search), so a hub row does not serialise one warp.

The CUDA sources are templates in ``templates/`` (:func:`nearfar_source`, :func:`pred_source`), compiled by
:func:`hpgraph.backend.raw_module` on the GPU and by :func:`hpgraph.backend.compile_ptx` in the
CPU test suite.  Importing this module imports neither cupy nor a compiler.
"""

from __future__ import annotations

import math
import threading
import weakref
from pathlib import Path

import numpy as np

from .. import backend as _backend
from .._config import config
from ..exceptions import InvalidValue
from .. import dtypes as _dt
from ..cuda_source import load, render
from ._coop import PlanCache
from .._arrayops import any_true

__all__ = ["nearfar_source", "pred_source", "default_delta", "weight_stats", "near_far_cpu",
           "near_far_gpu", "tight_parents", "group_size", "heavy_threshold",
           "BLOCK", "BATCHES", "PRED_ITEMS"]

# Tuning knobs are hp.config keys: sssp_steps_blocks_per_sm (blocks per SM of the step
# kernel's fixed grid; H200, default delta, 1 / 2 / 4 blocks per SM: grid 2048^2 weights 1..64
# 33.8 / 35.2 / 37.7 ms, Erdos-Renyi 2M degree 8 8.9 / 8.5 / 8.3 ms, R-MAT 21 10.1 / 6.7 /
# 5.8 ms), sssp_steps_graph_min (batches replayed as CUDA graphs) and sssp_delta_factor
# (the bucket width; factor inf: 111 ms on that grid, a queue Bellman-Ford with 246k-vertex
# frontiers; R-MAT 21 and Erdos-Renyi graphs hardly care, within 0.5 ms from 64 up).

#: Threads per block of every kernel here (compile-time: the generated source's block size).
BLOCK = 256
#: Steps between two host reads of the device state; the last size repeats (the fixed batch
#: schedule of the host loop).
BATCHES = (4, 8, 16, 32, 64, 128, 256)
#: Stored entries per lane of the predecessor pass (a warp takes ``32 * PRED_ITEMS``;
#: compile-time: baked into the generated source).
PRED_ITEMS = 8

# state slots (uint64 each); keep in sync with the enum in templates/nearfar.cu
S_HALT, S_PAR, S_FP, S_IT, S_PHASE, S_DONE = 0, 1, 2, 3, 4, 5
S_NEAR, S_HEAVYQ, S_FAR = 6, 8, 10
S_FMIN, S_THR, S_DELTA, S_NRELAX, S_NSPLIT, S_MAXQ = 12, 13, 14, 15, 16, 17
S_WORDS = 32

_TEMPLATES = Path(__file__).with_name("templates")


def _template(name):
    """A CUDA template of this module (``templates/nearfar.cu``: the step kernel, state slots
    in sync with the ``S_*`` constants above; ``templates/tight_pred.cu``: predecessors)."""
    return load(str(_TEMPLATES / name))


def group_size(avg_degree: float) -> int:
    """Lanes per light vertex: the power of two >= the mean degree, clamped to 4..32."""
    g = 4
    while g < 32 and g < avg_degree:
        g *= 2
    return g


def heavy_threshold(group: int) -> int:
    """Degree above which a vertex is relaxed by a whole block (at most 64 trips per group)."""
    return min(1024, 64 * group)


def _kernel_tag(*dts):
    return "_".join(_dt.short_name(d) if d is not None else "pat" for d in dts)


def _w_ctype(w_dtype, dist_dtype):
    """C type the kernels read weights as (bool as its byte: ``__ldg`` has no bool overload)."""
    if w_dtype is None:
        return _dt.c_type(dist_dtype)
    if np.dtype(w_dtype) == np.dtype(np.bool_):
        return "unsigned char"
    return _dt.c_type(w_dtype)


def nearfar_source(dist_dtype, idx_dtype=np.int32, ptr_dtype=np.int64, w_dtype=None, group=4,
                   heavy=None, has_heavy=True):
    """``(source, kernel name)`` of the near-far step kernel.

    ``w_dtype`` None means unweighted (every weight 1).  ``heavy`` defaults to
    :func:`heavy_threshold` of ``group``; ``has_heavy=False`` compiles the block-per-vertex
    queue out (no vertex has more than ``heavy`` out-edges).
    """
    dist_dtype = np.dtype(dist_dtype)
    if dist_dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InvalidValue(f"near-far distances are float32 or float64, not {dist_dtype}")
    if group not in (1, 2, 4, 8, 16, 32):
        raise InvalidValue(f"group must be a power of two <= 32, got {group}")
    heavy = heavy_threshold(group) if heavy is None else int(heavy)
    name = (f"hpg_nearfar_{_kernel_tag(dist_dtype, idx_dtype, ptr_dtype, w_dtype)}"
            f"_g{group}{'_h' + str(heavy) if has_heavy else ''}")
    src = render(_template("nearfar.cu"), DIST=_dt.c_type(dist_dtype),
                BITS="int" if dist_dtype.itemsize == 4 else "long long",
                IDX=_dt.c_type(idx_dtype), PTR=_dt.c_type(ptr_dtype),
                WT=_w_ctype(w_dtype, dist_dtype), GROUP=group, HEAVY=heavy, HAS_HEAVY=int(bool(has_heavy)),
                WEIGHTED=int(w_dtype is not None), BLOCK=BLOCK, NAME=name)
    return src, name


def pred_source(dist_dtype, idx_dtype=np.int32, ptr_dtype=np.int64, w_dtype=None,
                pred_dtype=None):
    """``(source, kernel name)`` of the one-pass tight-edge predecessor kernel (``idx_dtype``:
    the matrix's column indices; ``pred_dtype``: the output's, default ``idx_dtype``).  Its
    time is inside ``hp.sssp``'s 2.08 ms against the engine program's 8.89 ms (R-MAT 21, one
    H100, 2026-11-24, predecessors included); it was not timed alone against the engine's
    witness pass."""
    pred_dtype = idx_dtype if pred_dtype is None else pred_dtype
    name = f"hpg_tight_pred_{_kernel_tag(dist_dtype, idx_dtype, ptr_dtype, w_dtype, pred_dtype)}"
    src = render(_template("tight_pred.cu"), DIST=_dt.c_type(dist_dtype), IDX=_dt.c_type(idx_dtype),
                PIDX=_dt.c_type(pred_dtype), PTR=_dt.c_type(ptr_dtype),
                WT=_w_ctype(w_dtype, dist_dtype),
                WEIGHTED=int(w_dtype is not None), ITEMS=PRED_ITEMS, NAME=name)
    return src, name


# ---------------------------------------------------------------------------------------------
# per-graph facts (cached while the matrix lives)

_stats_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _weights_of(G):
    A = G.A
    vals = getattr(A, "values", None)
    if vals is None or not G.weighted:
        return None
    return vals


def weight_stats(G):
    """``(has_negative, mean weight)`` of the stored entries (cached per matrix; unweighted:
    ``(False, 1.0)``; empty: ``(False, 0.0)``)."""
    A = G.A
    try:
        hit = _stats_cache.get(A)
    except TypeError:
        hit = None
    if hit is not None:
        return hit
    vals = _weights_of(G)
    if A.nnz == 0:
        out = (False, 0.0)
    elif vals is None:
        out = (False, 1.0)
    else:
        xp = G.xp
        k = np.dtype(vals.dtype).kind
        neg = any_true(xp, vals < 0) if k in "if" else False
        out = (neg, float(xp.mean(vals, dtype=np.float64)))
    try:
        _stats_cache[A] = out
    except TypeError:
        pass
    return out


def default_delta(G) -> float:
    """Bucket width ``hp.config["sssp_delta_factor"] * mean weight / mean out-degree`` (Davidson's
    rule with a wider factor); ``inf`` when that is not a positive finite number (e.g. all weights 0:
    near-far is then a queue Bellman-Ford)."""
    n = int(G.num_vertices)
    nnz = int(G.A.nnz)
    if n == 0 or nnz == 0:
        return math.inf
    _, mean_w = weight_stats(G)
    d = config["sssp_delta_factor"] * mean_w / (nnz / n)
    return d if (math.isfinite(d) and d > 0) else math.inf


# ---------------------------------------------------------------------------------------------
# CPU near-far (NumPy, vectorised per step): same buckets, Jacobi-style relaxations


def near_far_cpu(G, sources, dist_dtype, delta):
    """Near-far on the host.  Returns ``(dist, info)`` with ``info`` counting the steps."""
    A = G.A
    n = int(G.num_vertices)
    indptr = np.asarray(A.indptr, dtype=np.int64)
    indices = np.asarray(A.indices)
    vals = _weights_of(G)
    w = None if vals is None else np.asarray(vals).astype(dist_dtype, copy=False)
    dist = np.full(n, np.inf, dtype=dist_dtype)
    near = np.unique(np.asarray(sources, dtype=np.int64))
    dist[near] = 0
    far = np.zeros(0, np.int64)
    thr = float(delta)
    relax_steps = splits = 0
    while True:
        while near.size:
            relax_steps += 1
            starts = indptr[near]
            lens = indptr[near + 1] - starts
            tot = int(lens.sum())
            if tot == 0:
                break
            offs = np.cumsum(lens) - lens
            eid = np.repeat(starts - offs, lens) + np.arange(tot)
            u = np.repeat(near, lens)
            v = indices[eid].astype(np.int64, copy=False)
            nd = dist[u] + (w[eid] if w is not None else dist_dtype.type(1))
            better = nd < dist[v]
            v, nd = v[better], nd[better]
            if v.size == 0:
                break
            np.minimum.at(dist, v, nd)
            v = np.unique(v)
            dv = dist[v].astype(np.float64)
            near = v[dv < thr]
            far = np.concatenate([far, v[dv >= thr]])
        near = np.zeros(0, np.int64)
        if far.size == 0:
            break
        splits += 1
        far = np.unique(far)
        df = dist[far].astype(np.float64)
        keep = df >= thr                      # below thr: relaxed in an earlier phase
        far, df = far[keep], df[keep]
        nb = thr + delta
        if not nb > thr:
            nb = math.inf
        sel = df < nb
        near, far = far[sel], far[~sel]
        thr = nb
        if near.size == 0 and far.size:
            thr = max(nb, float(df[~sel].min()))
    return dist, {"relax_steps": relax_steps, "splits": splits, "delta": float(delta)}


# ---------------------------------------------------------------------------------------------
# GPU near-far


class _Plan:
    """Everything one (graph, distance dtype) needs on the device, kept between calls: the
    compiled step kernel, the buffers (distances, two near, two heavy, two far queues, stamps,
    state) and the captured CUDA graphs, whose kernel arguments are these buffers.  Iteration
    and phase counters keep increasing across calls, so the stamps never need clearing."""

    def __init__(self, G, dist_dtype, blocks_per_sm):
        cp = _backend.cupy()
        self.cp = cp
        A = G.A
        n = self.n = int(G.num_vertices)
        self.dt = np.dtype(dist_dtype)
        self.idt = np.dtype(A.indices.dtype)
        vals = _weights_of(G)
        self.wdt = None if vals is None else np.dtype(vals.dtype)
        # the matrix's arrays, not the matrix: the plan cache is keyed weakly by the matrix
        self.indptr, self.indices, self.w = A.indptr, A.indices, vals
        nnz = int(A.nnz)
        self.group = group_size(nnz / max(n, 1))
        self.heavy = heavy_threshold(self.group)
        rl = A.row_lengths() if hasattr(A, "row_lengths") else cp.diff(A.indptr)
        maxdeg = int(rl.max()) if n else 0
        self.has_heavy = maxdeg > self.heavy
        src, name = nearfar_source(self.dt, self.idt, A.indptr.dtype, self.wdt, self.group,
                                   self.heavy, self.has_heavy)
        self.source = src
        self.stream = cp.cuda.Stream(non_blocking=True)
        # non-blocking: no implicit ordering with the legacy stream the graph was built on
        self.stream.wait_event(cp.cuda.get_current_stream().record())
        self.blocks = max(1, _backend.num_sms() * blocks_per_sm)
        with _backend.out_of_memory_guard("preparing near-far SSSP buffers"), self.stream:
            self.kernel = _backend.raw_module(src, ("-std=c++17",)).get_function(name)
            cap = max(n, 1)
            self.dist = cp.empty(cap, self.dt)
            self.q = [cp.empty(cap, self.idt), cp.empty(cap, self.idt)]
            # sources always start in the heavy queue (one block each: a hub source is not
            # left to a single lane group), so it exists even when no vertex is heavy
            self.h = [cp.empty(cap, self.idt), cp.empty(cap, self.idt)]
            self.f = [cp.empty(cap, self.idt), cp.empty(cap, self.idt)]
            self.nstamp = cp.zeros(cap, cp.int32)
            self.fstamp = cp.zeros(cap, cp.int32)
            self.st = cp.zeros(S_WORDS, cp.uint64)
            self.null_w = cp.zeros(1, self.dt)
        self.stream.synchronize()
        self.it = 1
        self.phase = 1
        self.graphs = {}
        self.graphs_ok = True
        self.lock = threading.Lock()

    def _args(self):
        return (self.indptr, self.indices, self.null_w if self.w is None else self.w,
                self.dist, self.q[0], self.q[1], self.h[0], self.h[1], self.f[0], self.f[1],
                self.nstamp, self.fstamp, self.st)

    def _launch(self, k):
        args = self._args()
        for _ in range(k):
            self.kernel((self.blocks,), (BLOCK,), args)

    def _batch(self, k):
        if k >= config["sssp_steps_graph_min"] and self.graphs_ok:
            g = self.graphs.get(k)
            if g is None:
                g = self._capture(k)
            if g is not None:
                g.launch(stream=self.stream)
                return
        self._launch(k)

    def _capture(self, k):
        g = _backend.capture_graph(self.stream, lambda: self._launch(k))
        if g is None:
            self.graphs_ok = False
        else:
            self.graphs[k] = g
        return g

    def run(self, sources, delta):
        cp = self.cp
        srcs = np.unique(np.asarray(sources, dtype=np.int64))
        caller = cp.cuda.get_current_stream()
        with self.lock, self.stream:
            # the caller's stream may still be writing the graph or reading an earlier result
            # (whose memory this stream's pool may hand out again): order after it
            self.stream.wait_event(caller.record())
            if self.it > (1 << 30):  # stamps are int32: start over long before they wrap
                self.nstamp.fill(0)
                self.fstamp.fill(0)
                self.it = self.phase = 1
            self.dist.fill(np.inf)
            dsrc = cp.asarray(srcs.astype(self.idt))
            self.dist[dsrc] = 0
            self.h[0][: srcs.size] = dsrc
            st = np.zeros(S_WORDS, np.uint64)
            st[S_IT] = self.it
            st[S_PHASE] = self.phase
            st[S_HEAVYQ] = srcs.size
            st[S_FMIN] = np.uint64(0xFFFFFFFFFFFFFFFF)
            st[S_THR] = np.array([delta], np.float64).view(np.uint64)[0]
            st[S_DELTA] = st[S_THR]
            self.st.set(st, stream=self.stream)
            bi, syncs, launched = 0, 0, 0
            while True:
                k = BATCHES[min(bi, len(BATCHES) - 1)]
                self._batch(k)
                launched += k
                bi += 1
                host = self.st.get(stream=self.stream)
                syncs += 1
                if host[S_HALT]:
                    break
            # the last step may have stamped with S_IT / S_PHASE themselves: start past them
            self.it = int(host[S_IT]) + 1
            self.phase = int(host[S_PHASE]) + 1
            out = self.dist[: self.n].copy()
            self.stream.synchronize()
        info = {"relax_steps": int(host[S_NRELAX]), "splits": int(host[S_NSPLIT]),
                "max_queue": int(host[S_MAXQ]), "launches": launched, "syncs": syncs,
                "delta": float(delta), "group": self.group,
                "heavy": self.heavy if self.has_heavy else None}
        return out, info


_plans = PlanCache()


def _plan(G, dist_dtype):
    blocks_per_sm = config["sssp_steps_blocks_per_sm"]
    key = (np.dtype(dist_dtype).str, blocks_per_sm)
    return _plans.get(G.A, key, lambda: _Plan(G, dist_dtype, blocks_per_sm))


def near_far_gpu(G, sources, dist_dtype, delta):
    """Near-far on the device graph ``G``.  Returns ``(dist, info)`` (dist: a new cupy array)."""
    return _plan(G, dist_dtype).run(sources, delta)


# ---------------------------------------------------------------------------------------------
# predecessors: one pass over the stored edges


def tight_parents(G, dist, idt):
    """``pred[v]`` = the largest ``u`` with ``dist[u] < dist[v] == dist[u] + w(u, v)`` (finite),
    else -1; one pass over the stored entries (NumPy or one CUDA kernel)."""
    A = G.A
    n = int(G.num_vertices)
    dt = np.dtype(dist.dtype)
    vals = _weights_of(G)
    nnz = int(A.nnz)
    if not _backend.is_device_array(dist):
        pred = np.full(n, -1, dtype=idt)
        if nnz == 0:
            return pred
        rows = np.asarray(A.row_ids())
        cols = np.asarray(A.indices)
        du, dv = dist[rows], dist[cols]
        w = np.asarray(vals).astype(dt, copy=False) if vals is not None else dt.type(1)
        with np.errstate(invalid="ignore", over="ignore"):
            keep = (du < dv) & (du + w == dv) & np.isfinite(dv)
        np.maximum.at(pred, cols[keep], rows[keep].astype(idt))
        return pred
    cp = _backend.cupy()
    pred = cp.full(n, -1, dtype=idt)
    if nnz == 0:
        return pred
    wdt = None if vals is None else np.dtype(vals.dtype)
    src, name = pred_source(dt, A.indices.dtype, A.indptr.dtype, wdt, idt)
    kern = _backend.raw_module(src, ("-std=c++17",)).get_function(name)
    warps = -(-nnz // (32 * PRED_ITEMS))
    grid = -(-warps * 32 // BLOCK)
    kern((grid,), (BLOCK,), (A.indptr, A.indices, cp.zeros(1, dt) if vals is None else vals,
                             dist, pred, np.int64(n), np.int64(nnz)))
    return pred
