"""Benchmark: hpgraph.graphblas operations against python-graphblas (SuiteSparse) and cupyx,
in one process, on R-MAT graphs; every result is checked against python-graphblas.

Workloads (R-MAT, edge factor 16, Graph500 parameters, undirected, seed 1, integer weights
1..8 as float64 so every sum is exact):

======================== ============================================ ===========================
workload                 hpgraph                                      baselines
======================== ============================================ ===========================
triangles                ``mxm(L, L, plus_pair[int64], mask=L.S)``    python-graphblas (same
                         with ``L = select(A, "tril", -1)`` built      expression); ``hp.triangle_count``
                         beforehand (``prep_ms``), then                (orientation cached)
                         ``reduce_scalar`` (scale ``--scale``)
triangles_degree_ordered ``mxm(U, U.T, plus_pair[int64], mask=U.S)``  python-graphblas (same
                         with ``U = triu(P A P^T, 1)``, vertices        expression); ``hp.triangle_count``
                         relabelled by ascending degree (``prep_ms``):
                         the triangle kernel's orientation
mxm_plus_times           ``mxm(A, A, "plus_times")`` (scales            python-graphblas (or SciPy on
                         ``--mxm-scale``): cuSPARSE, checked, with      sampled rows above
                         the bitmap SpGEMM where cuSPARSE fails          ``--oracle-max-scale``); cupyx
                                                                        ``A @ A`` (cuSPARSE SpGEMM)
mxm_plus_times_bitmap    ``mxm(A, A, "plus_times", method="bitmap")``   as above
                         (device: the generated SpGEMM)
mxm_plus_times_expand    ``method="expand"`` (device, scales <= 16:     as above
                         the CuPy row expansion)
mxm_min_plus             ``mxm(A, A, "min_plus")`` (bitmap SpGEMM)      as above
ewise_add                ``ewise_add(A, B, "plus")``, B = the entries   python-graphblas
                         of A with weight > 4
ewise_mult               ``ewise_mult(A, B, "times")``                  python-graphblas
select_tril              ``select(A, "tril")``                          python-graphblas
reduce_rows              ``reduce_rowwise(A, "plus")``                  python-graphblas
transpose                ``transpose(A)``                               python-graphblas
======================== ============================================ ===========================

Times (``benchmarks/_harness.timed``): ``hp_ms`` the CUDA-event median of ``--repeat`` calls
after the first (``hp_first_ms``: the first call, compilation included; ``hp_wall_ms``: host
wall time with a synchronize); ``perf_counter`` on the CPU.  Preprocessing (building ``L``,
``U``) is timed apart (``prep_ms``).  python-graphblas runs on all host cores.
``bytes`` is the size of the operands and the result as CSR (int32/int64 indices + values),
read and written once; ``GB/s`` = bytes / hpgraph time.  ``peak_MiB``: the most bytes the call held
from the CuPy pool at once, counted by a ``cupy.cuda.MemoryHook`` over the pool's mallocs and
frees (device), or tracemalloc's peak (host); the operands are not counted.  (The pool's
growth read 0 when its partly used arenas held every allocation.)

Every hpgraph result is compared with python-graphblas' (same pattern, same values); products
above ``--oracle-max-scale`` (R-MAT 18: 3.1 G output entries) are compared on
``--sample-rows`` random rows with a NumPy reference over SciPy's CSR arrays instead.  The
script exits with status 1 on any mismatch.  One JSON (``--out``, default
``benchmarks/results/graphblas.json``) holds the commit, device, library versions and rows.

Usage::

    python benchmarks/bench_graphblas.py [--scale 21] [--mxm-scale 15[,16,18]] [--repeat 5]
        [--oracle-max-scale 16] [--sample-rows 64] [--quick] [--cpu] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hpgraph as hp  # noqa: E402
from hpgraph import graphblas as hgb  # noqa: E402
from _harness import metadata  # noqa: E402
from _harness import timed as harness_timed  # noqa: E402


def _versions():
    """The CPU reference's versions (the harness's metadata has the rest)."""
    v = {}
    try:
        import graphblas as gb

        v["python-graphblas"] = gb.__version__
        v["SuiteSparse:GraphBLAS"] = ".".join(map(str, gb.ss.about["library_version"]))
    except Exception:
        pass
    return v


def make_matrix(scale, on_gpu):
    G = hp.generators.rmat(scale, edge_factor=16, seed=1, directed=False, weights=(1, 8),
                           backend="cpu")
    A = hgb.Matrix.from_graph(G, dtype=np.float64)
    return (A.to_device() if on_gpu else A), G


def csr_bytes(M):
    idx = 4 if max(M.nrows, M.ncols, M.nvals) < 2**31 - 1 else 8
    return (M.nrows + 1) * idx + M.nvals * (idx + M.dtype.itemsize)


def peak_mib(fn, on_gpu):
    if on_gpu:
        import cupy as cp

        class Peak(cp.cuda.MemoryHook):
            """Bytes taken from the pool and not yet returned, and their maximum."""

            name = "bench_graphblas_peak"

            def __init__(self):
                self.now = self.peak = 0

            def malloc_postprocess(self, **kw):
                self.now += kw["mem_size"]
                self.peak = max(self.peak, self.now)

            def free_postprocess(self, **kw):
                self.now -= kw["mem_size"]

        cp.cuda.Device().synchronize()
        with Peak() as hook:
            fn()
            cp.cuda.Device().synchronize()
        return hook.peak / 2**20
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def timed(fn, on_gpu, repeat, keep=True):
    """(first-call ms, median ms, result, harness row).  On the host a first call over a
    second is the only one (python-graphblas on the large products)."""
    if not on_gpu:
        t0 = time.perf_counter()
        out = fn()
        first = (time.perf_counter() - t0) * 1e3
        if first > 1000 or repeat < 1:
            return first, first, out, {"first_ms": first, "warm_ms": first, "wall_ms": first}
    row, out = harness_timed(fn, repeat, gpu=on_gpu, keep=keep)
    return row["first_ms"], row["warm_ms"], out, row


def same(got, ref):
    """hpgraph result vs python-graphblas result (object or scalar)."""
    if isinstance(got, (hgb.Matrix, hgb.Vector)):
        cls = hgb.Matrix if isinstance(got, hgb.Matrix) else hgb.Vector
        return got.to_host().isequal(cls.from_graphblas(ref))
    return got == ref


#: (add, multiply) of the semirings the sampled-row oracle knows, as NumPy ufuncs
_ORACLE_SEMIRINGS = {"plus_times": (np.add, np.multiply), "min_plus": (np.minimum, np.add)}


def sampled_rows_equal(got, S, semiring, nrows, seed=0):
    """``got`` (a Matrix, either side) equals ``S (+).(x) S`` on ``nrows`` random rows
    (pattern and values), computed from SciPy's CSR arrays with NumPy (a row's products
    gathered, sorted by column, reduced with ``add.reduceat``): the check for products too
    large for python-graphblas."""
    add, mul = _ORACLE_SEMIRINGS[semiring]
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(S.shape[0], min(nrows, S.shape[0]), replace=False))
    ptr = got.csr.indptr
    ptr = np.asarray(ptr.get() if hasattr(ptr, "get") else ptr).astype(np.int64)
    for r in rows:
        ks = S.indices[S.indptr[r]:S.indptr[r + 1]]
        aks = S.data[S.indptr[r]:S.indptr[r + 1]]
        parts = [(S.indices[S.indptr[k]:S.indptr[k + 1]],
                  mul(a, S.data[S.indptr[k]:S.indptr[k + 1]])) for k, a in zip(ks, aks)]
        cols = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        vals = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
        order = np.argsort(cols, kind="stable")
        cols, vals = cols[order], vals[order]
        starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]]) if cols.size else cols
        ref_cols = cols[starts]
        ref_vals = add.reduceat(vals, starts) if cols.size else vals
        lo, hi = int(ptr[r]), int(ptr[r + 1])
        idx, val = got.csr.indices[lo:hi], got._values()[lo:hi]
        idx = np.asarray(idx.get() if hasattr(idx, "get") else idx)
        val = np.asarray(val.get() if hasattr(val, "get") else val)
        if not (np.array_equal(idx, ref_cols) and np.array_equal(val, ref_vals)):
            return False
    return True


def degree_relabel(A):
    """(P A P^T with vertices in ascending (degree, id) order): its strict upper triangle holds
    every edge once, oriented from the lower- to the higher-degree end, as the triangle kernel's."""
    xp = A.xp
    deg = xp.diff(A.csr.indptr.astype(np.int64))
    perm = xp.lexsort(xp.stack([xp.arange(A.nrows, dtype=np.int64), deg]))
    return hgb.extract(A, perm, perm)


def run(args):
    import graphblas as gb

    on_gpu = hp.has_gpu() and not args.cpu
    scale = 10 if args.quick else args.scale
    mscales = [8] if args.quick else [int(x) for x in str(args.mxm_scale).split(",") if x]
    meta = metadata(benchmark="graphblas", argv=sys.argv[1:], cpus=os.cpu_count(),
                    hpgraph_backend="gpu" if on_gpu else "cpu", repeat=args.repeat, scale=scale,
                    mxm_scales=mscales, oracle_max_scale=args.oracle_max_scale,
                    sample_rows=args.sample_rows, versions=_versions())
    rows, mismatches = [], []

    def record(workload, graph, fn, gb_fn=None, *, nbytes=None, extra=None, check=None,
               repeat=None, keep=True):
        """Time ``fn``; compare with ``gb_fn``'s result (python-graphblas), or with
        ``check(result)`` (True / False) when given instead."""
        first, med, got, hrow = timed(fn, on_gpu, args.repeat if repeat is None else repeat, keep)
        row = {"workload": workload, "graph": graph, "hp_ms": med, "hp_first_ms": first,
               "hp_wall_ms": hrow["wall_ms"]}
        ok = None
        if gb_fn is not None:
            gfirst, gmed, ref, _ = timed(gb_fn, False, max(1, min(args.repeat, 3)))
            ok = same(got, ref)
            row.update(graphblas_ms=gmed, speedup_vs_graphblas=gmed / med if med else None)
        elif check is not None:
            ok = bool(check(got))
        if ok is False:
            mismatches.append(f"{workload} {graph}")
        row["check"] = "ok" if ok else ("MISMATCH" if ok is False else "")
        if nbytes is not None:
            row["bytes"] = nbytes
            row["GB_per_s"] = nbytes / (med * 1e-3) / 1e9 if med else None
        if isinstance(got, hgb.Matrix):
            row["nvals_out"] = got.nvals
        got = None
        row["peak_MiB"] = peak_mib(fn, on_gpu)
        row.update(extra or {})
        rows.append(row)
        print(json.dumps(row), flush=True)
        return row

    # -- triangles on R-MAT scale -----------------------------------------------------
    A, G = make_matrix(scale, on_gpu)
    GA = A.to_host().to_graphblas()
    label = f"rmat{scale}"
    print(f"[graph] {label}: n={A.nrows:,} nvals={A.nvals:,}", flush=True)
    Gd = G.to_device() if on_gpu else G
    tc_first, tc_med, tc, _ = timed(lambda: hp.triangle_count(Gd), on_gpu, args.repeat)
    tc_extra = {"hp_triangle_count_ms": tc_med, "hp_triangle_count_first_ms": tc_first}

    def prep_l():
        L = hgb.select(A, "tril", -1)
        L._transpose_csr()  # B^T of mxm(L, L): built once per Matrix
        return L

    def prep_u():
        U = hgb.select(degree_relabel(A), "triu", 1)
        return U, hgb.transpose(U)

    triangles = (
        ("triangles", prep_l, lambda L: hgb.mxm(L, L, "plus_pair[int64]", mask=L.S),
         lambda GL: GL.mxm(GL, gb.semiring.plus_pair[gb.dtypes.INT64]).new(mask=GL.S)),
        ("triangles_degree_ordered", prep_u,
         lambda U: hgb.mxm(U[0], U[1], "plus_pair[int64]", mask=U[0].S),
         lambda GU: GU.mxm(GU.T, gb.semiring.plus_pair[gb.dtypes.INT64]).new(mask=GU.S)))
    for workload, prep, expr, gb_expr in triangles if "triangles" in args.parts else ():
        pfirst, pmed, X, _ = timed(prep, on_gpu, max(1, min(args.repeat, 3)))
        GX = (X[0] if isinstance(X, tuple) else X).to_host().to_graphblas()

        def hp_fn(X=X, expr=expr):
            return int(hgb.reduce_scalar(expr(X)) or 0)

        def gb_fn(GX=GX, gb_expr=gb_expr):
            return int(gb_expr(GX).reduce_scalar().new().value or 0)

        mask_nvals = (X[0] if isinstance(X, tuple) else X).nvals
        # hp.config["mxm_dot_kernel"] per row; python-graphblas timed with the first only
        for i, kern in enumerate(args.tri_kernels.split(",")):
            with hp.config.set(mxm_dot_kernel=kern):
                row = record(f"{workload} [{kern}]", label, hp_fn, gb_fn if i == 0 else None,
                             check=lambda got: got == tc,
                             extra=dict(tc_extra, prep_ms=pmed, prep_first_ms=pfirst,
                                        mask_nvals=mask_nvals, mxm_dot_kernel=kern))
                row["ratio_vs_triangle_count"] = row["hp_ms"] / tc_med if tc_med else None
                got = hp_fn()
            if got != tc:
                mismatches.append(f"{workload} [{kern}] vs hp.triangle_count ({got} != {tc})")
        X = GX = None

    # -- bandwidth-bound operations on the same graph -----------------------------------
    B = hgb.select(A, "valuegt", 4.0)
    GB_ = B.to_host().to_graphblas()
    ops = [
        ("ewise_add", lambda: hgb.ewise_add(A, B, "plus"), lambda: GA.ewise_add(GB_, gb.binary.plus).new(),
         (A, B)),
        ("ewise_mult", lambda: hgb.ewise_mult(A, B, "times"),
         lambda: GA.ewise_mult(GB_, gb.binary.times).new(), (A, B)),
        ("select_tril", lambda: hgb.select(A, "tril"), lambda: gb.select.tril(GA).new(), (A,)),
        ("reduce_rows", lambda: hgb.reduce_rowwise(A, "plus"),
         lambda: GA.reduce_rowwise(gb.monoid.plus).new(), (A,)),
        ("transpose", lambda: hgb.transpose(A), lambda: GA.T.new(), (A,)),
    ]
    for name, fn, gfn, operands in ops if "ewise" in args.parts else ():
        res = fn()
        out_bytes = csr_bytes(res) if isinstance(res, hgb.Matrix) else res.nvals * (8 + res.dtype.itemsize)
        record(name, label, fn, gfn, nbytes=sum(csr_bytes(o) for o in operands) + out_bytes)
    B = GB_ = G = Gd = ops = res = None  # free the large graph before the SpGEMM one

    # -- SpGEMM on smaller graphs -------------------------------------------------------
    for mscale in mscales if "mxm" in args.parts else ():
        A, _ = make_matrix(mscale, on_gpu)
        label = f"rmat{mscale}"
        Ah = A.to_host()
        S = Ah.to_scipy()
        flops = int(np.diff(np.asarray(Ah.csr.indptr, dtype=np.int64))[Ah.to_coo()[1]].sum())
        print(f"[graph] {label}: n={A.nrows:,} nvals={A.nvals:,} multiply-adds={flops:,}", flush=True)
        big = mscale > args.oracle_max_scale
        GA = None if big else Ah.to_graphblas()
        # big products: one warm call, the previous result dropped first (3 G entries at R-MAT 18)
        rep = 1 if big else None
        extra = {"multiply_adds": flops}

        def kw(name):
            if big:
                return {"check": lambda C: sampled_rows_equal(C, S, name, args.sample_rows),
                        "repeat": rep, "keep": False}
            return {"gb_fn": lambda: GA.mxm(GA, getattr(gb.semiring, name)).new()}

        row = record("mxm_plus_times", label, lambda: hgb.mxm(A, A, "plus_times"),
                     extra=extra, **kw("plus_times"))
        if on_gpu:
            X = A.to_cupyx()
            try:
                cf, cm, C, _ = timed(lambda: X @ X, True, args.repeat, keep=False)
                cnnz = int(C.nnz)
                row.update(cupyx_ms=cm, cupyx_first_ms=cf, cupyx_nnz=cnnz,
                           cupyx_complete=cnnz == row["nvals_out"],
                           ratio_vs_cupyx=row["hp_ms"] / cm if cm else None)
                C = None
            except Exception as exc:  # cuSPARSE gives up on large products
                row["cupyx_error"] = f"{type(exc).__name__}: {exc}"
            X = None
            print(json.dumps({k: row.get(k) for k in ("cupyx_ms", "cupyx_nnz", "cupyx_complete",
                                                       "ratio_vs_cupyx", "cupyx_error")}), flush=True)
            record("mxm_plus_times_bitmap", label,
                   lambda: hgb.mxm(A, A, "plus_times", method="bitmap"), extra=extra,
                   **kw("plus_times"))
            if mscale <= 16 and not args.quick:  # the expansion (CuPy sorts) is slow beyond
                record("mxm_plus_times_expand", label,
                       lambda: hgb.mxm(A, A, "plus_times", method="expand"), extra=extra,
                       **kw("plus_times"))
        record("mxm_min_plus", label, lambda: hgb.mxm(A, A, "min_plus"), extra=extra,
               **kw("min_plus"))
        A = GA = S = Ah = None
    return {"meta": meta, "rows": rows, "mismatches": mismatches}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=21, help="R-MAT scale of the triangle / ewise graph")
    ap.add_argument("--mxm-scale", default="15",
                    help="R-MAT scale(s) of the SpGEMM graphs, comma-separated (cuSPARSE raises on 16 "
                         "and returns an empty product on 18)")
    ap.add_argument("--oracle-max-scale", type=int, default=16,
                    help="larger products are checked against SciPy on sampled rows, not python-graphblas")
    ap.add_argument("--sample-rows", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="R-MAT 10 / 8 (smoke test, CPU ok)")
    ap.add_argument("--cpu", action="store_true", help="run hpgraph on the CPU backend")
    ap.add_argument("--parts", default="triangles,ewise,mxm",
                    help="comma list of: triangles, ewise (and select / reduce / transpose), mxm")
    ap.add_argument("--tri-kernels", default="auto",
                    help="hp.config mxm_dot_kernel values for the triangle rows (auto, hash, merge)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "graphblas.json"))
    args = ap.parse_args(argv)
    res = run(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1, default=str))
    print(f"wrote {out}")
    if res["mismatches"]:
        print(f"MISMATCH against python-graphblas: {', '.join(res['mismatches'])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
