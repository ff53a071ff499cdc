"""Near-far SSSP (Davidson, Baxter, Garland and Owens, IPDPS 2014) on the host, and one-pass
predecessors.

Near-far is a bucketed label-correcting algorithm: vertices are relaxed only while their
distance is below a moving threshold (the *near* queue); improvements beyond it wait in a *far
pile* that is split by the next threshold (``+ delta``) when the near queue runs dry.  On the
GPU, :func:`hpgraph.sssp` runs it as an engine program (:func:`._sssp._near_far_class`: the
Bellman-Ford program with ``priority = "dist"``; the engine's near-far buckets and relaxation)
or, on dense graphs, :mod:`._sssp_gpu`'s cooperative kernel.  Here: the CPU version
(:func:`near_far_cpu`, NumPy, vectorised per step), the default bucket width and the
predecessors.

``delta`` defaults to ``hp.config["sssp_delta_factor"] * mean weight / mean degree`` (Davidson's
rule, with 128 instead of the warp width 32: measured faster); ``delta = inf`` turns near-far
into a queue-driven Bellman-Ford (every improvement is near).  Near-far needs non-negative
weights; :func:`hpgraph.sssp` keeps Bellman-Ford for negative ones.

**Predecessors** (:func:`tight_parents`): one pass over the stored edges keeps, for every
vertex ``v``, the largest ``u`` with ``dist[u] < dist[v]`` and ``dist[u] + w(u, v) ==
dist[v]`` (``atomicMax``; on the CPU ``np.maximum.at`` over the tight edges, the same result).
The pass is edge-balanced (each warp takes a fixed run of stored entries and finds its rows by
binary search), so a hub row does not serialise one warp.

The CUDA source is a template in ``templates/`` (:func:`pred_source`), compiled by
:func:`hpgraph.backend.raw_module` on the GPU and by :func:`hpgraph.backend.compile_ptx` in the
CPU test suite.  Importing this module imports neither cupy nor a compiler.
"""

from __future__ import annotations

import math
import weakref
from pathlib import Path

import numpy as np

from .. import backend as _backend
from .._config import config
from .. import dtypes as _dt
from ..cuda_source import load, render
from .._arrayops import any_true

__all__ = ["pred_source", "default_delta", "weight_stats", "near_far_cpu", "tight_parents",
           "BLOCK", "PRED_ITEMS"]

# The bucket width is the hp.config key sssp_delta_factor (factor inf: 111 ms on the 2048^2
# grid with the former step kernel, a queue Bellman-Ford with 246k-vertex frontiers; R-MAT 21
# and Erdos-Renyi graphs hardly care, within 0.5 ms from 64 up; H200).

#: Threads per block of the predecessor kernel (compile-time: the generated source's block size).
BLOCK = 256
#: Stored entries per lane of the predecessor pass (a warp takes ``32 * PRED_ITEMS``;
#: compile-time: baked into the generated source).
PRED_ITEMS = 8

_TEMPLATES = Path(__file__).with_name("templates")


def _template(name):
    """A CUDA template of this module (``templates/tight_pred.cu``: predecessors)."""
    return load(str(_TEMPLATES / name))


def _kernel_tag(*dts):
    return "_".join(_dt.short_name(d) if d is not None else "pat" for d in dts)


def _w_ctype(w_dtype, dist_dtype):
    """C type the kernels read weights as (bool as its byte: ``__ldg`` has no bool overload)."""
    if w_dtype is None:
        return _dt.c_type(dist_dtype)
    if np.dtype(w_dtype) == np.dtype(np.bool_):
        return "unsigned char"
    return _dt.c_type(w_dtype)


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
