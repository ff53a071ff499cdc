"""Benchmark: hpgraph.graphblas operations against python-graphblas (SuiteSparse) and cupyx,
in one process, on R-MAT graphs; every result is checked against python-graphblas.

Workloads (R-MAT, edge factor 16, Graph500 parameters, undirected, seed 1, integer weights
1..8 as float64 so every sum is exact):

================ =============================================== ===========================
workload         hpgraph                                         baselines
================ =============================================== ===========================
triangles        ``mxm(L, L, plus_pair[int64], mask=L.S)`` with  python-graphblas (same
                 ``L = select(A, "tril", -1)``, then              expression); ``hp.triangle_count``
                 ``reduce_scalar`` (scale ``--scale``)
mxm_plus_times   ``mxm(A, A, "plus_times")`` (scale              python-graphblas; cupyx
                 ``--mxm-scale``)                                 ``A @ A`` (cuSPARSE SpGEMM)
mxm_plus_times_  ``mxm(A, A, "plus_times", method="expand")``      python-graphblas
expand           (device only: the path of every other semiring)
mxm_min_plus     ``mxm(A, A, "min_plus")``                        python-graphblas
ewise_add        ``ewise_add(A, B, "plus")``, B = the entries     python-graphblas
                 of A with weight > 4
ewise_mult       ``ewise_mult(A, B, "times")``                    python-graphblas
select_tril      ``select(A, "tril")``                            python-graphblas
reduce_rows      ``reduce_rowwise(A, "plus")``                    python-graphblas
transpose        ``transpose(A)``                                 python-graphblas
================ =============================================== ===========================

Times: CUDA-event medians of ``--repeat`` runs after one warm-up (the first call, compile
included, is reported beside) when hpgraph runs on the GPU; ``perf_counter`` medians on the
CPU (``bench_algorithms.time_gpu`` / ``time_cpu``).  python-graphblas runs on all host cores.
``bytes`` is the size of the operands and the result as CSR (int32/int64 indices + values),
read and written once; ``GB/s`` = bytes / hpgraph time.  ``peak MiB``: the CuPy pool's bytes
after the call from an emptied pool (device), or tracemalloc's peak (host).

Every hpgraph result is compared with python-graphblas' (same pattern, same values); the
script exits with status 1 on any mismatch.  One JSON (``--out``, default
``benchmarks/results/graphblas.json``) holds the commit, device, library versions and rows.

Usage::

    python benchmarks/bench_graphblas.py [--scale 21] [--mxm-scale 15[,16]] [--repeat 5]
        [--quick] [--cpu] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
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
from bench_algorithms import time_cpu  # noqa: E402


def _commit():
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return None


def _versions():
    v = {"hpgraph": hp.__version__, "numpy": np.__version__, "python": platform.python_version()}
    import scipy

    v["scipy"] = scipy.__version__
    try:
        import graphblas as gb

        v["python-graphblas"] = gb.__version__
        v["SuiteSparse:GraphBLAS"] = ".".join(map(str, gb.ss.about["library_version"]))
    except Exception:
        pass
    try:
        import cupy

        v["cupy"] = cupy.__version__
        v["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
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

        pool = cp.get_default_memory_pool()
        cp.cuda.Device().synchronize()
        pool.free_all_blocks()
        base = pool.total_bytes()
        fn()
        cp.cuda.Device().synchronize()
        return (pool.total_bytes() - base) / 2**20
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def timed(fn, on_gpu, repeat):
    """(first-call ms, warm ms, result, wall ms): hpgraph through the harness (warm = CUDA
    events on the GPU), python-graphblas by host time (first, median)."""
    if on_gpu:
        row, out = harness_timed(fn, repeat, gpu=True)
        return row["first_ms"], row["warm_ms"], out, row["wall_ms"]
    t0 = time.perf_counter()
    fn()
    first = (time.perf_counter() - t0) * 1e3
    med, out = time_cpu(fn, repeat)
    return first, med, out, med


def same(got, ref):
    """hpgraph result vs python-graphblas result (object or scalar)."""
    if isinstance(got, (hgb.Matrix, hgb.Vector)):
        cls = hgb.Matrix if isinstance(got, hgb.Matrix) else hgb.Vector
        return got.to_host().isequal(cls.from_graphblas(ref))
    return got == ref


def run(args):
    import graphblas as gb

    on_gpu = hp.has_gpu() and not args.cpu
    scale = 10 if args.quick else args.scale
    mscales = [8] if args.quick else [int(x) for x in str(args.mxm_scale).split(",") if x]
    meta = {**metadata(benchmark="bench_graphblas", argv=sys.argv[1:]),
            "commit": _commit(), "device": None, "host": platform.node(), "cpus": os.cpu_count(),
            "hpgraph_backend": "gpu" if on_gpu else "cpu", "repeat": args.repeat,
            "scale": scale, "mxm_scales": mscales, "versions": _versions()}
    if on_gpu:
        import cupy as cp

        meta["device"] = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows, mismatches = [], []

    def record(workload, graph, fn, gb_fn, *, nbytes=None, extra=None, check=True):
        first, med, got, wall = timed(fn, on_gpu, args.repeat)
        gfirst, gmed, ref, _ = timed(gb_fn, False, max(1, min(args.repeat, 3)))
        ok = same(got, ref) if check else None
        if ok is False:
            mismatches.append(workload)
        row = {"workload": workload, "graph": graph, "hp_ms": med, "hp_wall_ms": wall,
               "hp_first_ms": first,
               "graphblas_ms": gmed, "speedup_vs_graphblas": gmed / med if med else None,
               "check": "ok" if ok else ("MISMATCH" if ok is False else "")}
        if nbytes is not None:
            row["bytes"] = nbytes
            row["GB_per_s"] = nbytes / (med * 1e-3) / 1e9 if med else None
        row["peak_MiB"] = peak_mib(fn, on_gpu)
        row.update(extra or {})
        rows.append(row)
        print(json.dumps(row), flush=True)
        return got

    # -- triangles on R-MAT scale -----------------------------------------------------
    A, G = make_matrix(scale, on_gpu)
    GA = A.to_host().to_graphblas()
    label = f"rmat{scale}"
    print(f"[graph] {label}: n={A.nrows:,} nvals={A.nvals:,}", flush=True)

    def hp_tri():
        L = hgb.select(A, "tril", -1)
        return int(hgb.reduce_scalar(hgb.mxm(L, L, "plus_pair[int64]", mask=L.S)) or 0)

    def gb_tri():
        L = gb.select.tril(GA, -1).new()
        C = L.mxm(L, gb.semiring.plus_pair[gb.dtypes.INT64]).new(mask=L.S)
        return int(C.reduce_scalar().new().value or 0)

    Gd = G.to_device() if on_gpu else G
    tc_first, tc_med, tc, _ = timed(lambda: hp.triangle_count(Gd), on_gpu, args.repeat)
    got = record("triangles", label, hp_tri, gb_tri,
                 extra={"hp_triangle_count_ms": tc_med, "hp_triangle_count_first_ms": tc_first})
    if got != tc:
        mismatches.append("triangles vs hp.triangle_count")

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
    for name, fn, gfn, operands in ops:
        res = fn()
        out_bytes = csr_bytes(res) if isinstance(res, hgb.Matrix) else res.nvals * (8 + res.dtype.itemsize)
        record(name, label, fn, gfn, nbytes=sum(csr_bytes(o) for o in operands) + out_bytes)
    B = GB_ = G = Gd = ops = None  # free the large graph before the SpGEMM one

    # -- SpGEMM on smaller graphs -------------------------------------------------------
    for mscale in mscales:
        A, _ = make_matrix(mscale, on_gpu)
        GA = A.to_host().to_graphblas()
        label = f"rmat{mscale}"
        Ah = A.to_host()
        flops = int(np.diff(np.asarray(Ah.csr.indptr, dtype=np.int64))[Ah.to_coo()[1]].sum())
        print(f"[graph] {label}: n={A.nrows:,} nvals={A.nvals:,} multiply-adds={flops:,}", flush=True)
        extra = {"multiply_adds": flops}
        if on_gpu:
            X = A.to_cupyx()
            try:
                cf, cm, C, _ = timed(lambda: X @ X, True, args.repeat)
                extra.update({"cupyx_ms": cm, "cupyx_first_ms": cf, "cupyx_nnz": int(C.nnz)})
                del C
            except Exception as exc:  # cuSPARSE gives up on large products
                extra["cupyx_error"] = f"{type(exc).__name__}: {exc}"
            del X
        got = record("mxm_plus_times", label, lambda: hgb.mxm(A, A, "plus_times"),
                     lambda: GA.mxm(GA, gb.semiring.plus_times).new(), extra=extra)
        rows[-1]["nvals_out"] = got.nvals
        del got
        if on_gpu:  # the expansion path too (what every other semiring runs)
            record("mxm_plus_times_expand", label,
                   lambda: hgb.mxm(A, A, "plus_times", method="expand"),
                   lambda: GA.mxm(GA, gb.semiring.plus_times).new())
        record("mxm_min_plus", label, lambda: hgb.mxm(A, A, "min_plus"),
               lambda: GA.mxm(GA, gb.semiring.min_plus).new())
    return {"meta": meta, "rows": rows, "mismatches": mismatches}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=21, help="R-MAT scale of the triangle / ewise graph")
    ap.add_argument("--mxm-scale", default="15",
                    help="R-MAT scale(s) of the SpGEMM graphs, comma-separated (15,16: cuSPARSE fails on 16)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="R-MAT 10 / 8 (smoke test, CPU ok)")
    ap.add_argument("--cpu", action="store_true", help="run hpgraph on the CPU backend")
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
