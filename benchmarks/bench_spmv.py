"""SpMV benchmark: hpgraph's generated kernels against cuSPARSE and plain CuPy.

One process, the same matrices for every variant, CUDA events, medians of >= 20 runs after a
warm-up.  Before each timed run a short spin kernel keeps the GPU busy while Python enqueues the
run, so the events measure device time only (host-side launch overhead is reported
separately as "host us": wall time per call of back-to-back calls, which is what a tight loop
of small products pays).

Graphs: R-MAT (scale 20, 22, 23; edge factor 16; undirected, no duplicates or self-loops;
generated on the GPU) and a 2048 x 2048 4-neighbour grid; float32 weights, int32 indices.

Bytes moved per product (the same for every variant, so GB/s compare work done):
``nnz * (4 index + 4 value + 4 gathered x) + nrows * 4 (y)``, reported also as a fraction of
the device-to-device copy rate measured first (bytes read + written).

Usage::

    python3 benchmarks/bench_spmv.py --out DIR [--scales 20,22,23] [--grid 2048] [--reps 25]
                                   [--tune 'grid,R-MAT 22'] [--tune-set all|relabel]

Column relabeling (``format="<csr kernel>+relabel"``): on the graphs named by ``--tune`` the
relabeled kernels run for every semiring (their time includes the per-product gather of x),
next to cuSPARSE on the relabeled matrix (gather included) and the one-time cost of building
the relabeling (``gpu.column_relabel``: column counts, sort, cols2).

Checks (every variant): plus_times against cuSPARSE (relative 1e-4), min_plus against
``cupy.minimum.at``, the user-defined semiring against ``cupy.minimum.at`` of its own formula
(``values * 0.5 + x[cols]``); ``first_ms`` is the first call (compilation, derived formats).
The run exits 1 when a check fails or a variant raises.

Writes DIR/spmv.json (with the harness metadata), DIR/spmv.md and benchmarks/results/spmv.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cupy as cp  # noqa: E402

import hpgraph as hp  # noqa: E402
from hpgraph import ops  # noqa: E402
from hpgraph.spmv import gpu  # noqa: E402
from _harness import metadata  # noqa: E402


def scaled_plus(a, b):
    """The user-defined multiply of the benchmark's UDF semiring (min, a * 0.5 + b)."""
    return a * 0.5 + b


UDF = ops.Semiring(add="min", multiply=scaled_plus, name="min_scaled")

_SPIN = cp.RawKernel(r'''
extern "C" __global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) { }
}''', "spin")


def spin(us=300):
    _SPIN((1,), (1,), (np.int64(int(us * 1980)),))


def time_device(fn, reps=25, warmup=3):
    """Median device ms of ``fn()`` over ``reps`` runs (events around each run, GPU kept busy)."""
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    t_start = time.perf_counter()
    for i in range(reps):
        spin()
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1))
        if i >= 4 and time.perf_counter() - t_start > 20:  # very slow variant: enough samples
            break
    return float(np.median(ts)), len(ts)


def time_host(fn, n=20):
    """Wall microseconds per call of ``n`` back-to-back calls (includes Python launch cost)."""
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - t) / n * 1e6


def copy_rate():
    n = 1 << 28  # 1 GiB of float32
    a = cp.random.random(n, dtype=cp.float32)
    b = cp.empty_like(a)
    ms, _ = time_device(lambda: cp.copyto(b, a), reps=20)
    rate = 2 * a.nbytes / (ms * 1e-3)
    del a, b
    cp.get_default_memory_pool().free_all_blocks()
    return rate, ms


# ---------------------------------------------------------------------------------------
# graphs


def rmat_csr(scale, seed=1):
    """Undirected R-MAT as an hpgraph CSR (float32 weights in [1, 64)) on the GPU."""
    try:
        G = hp.generators.rmat(scale, 16, seed=seed, weights=(1.0, 64.0), backend="gpu")
        A = G.A
        if A.dtype != np.float32:
            A = A.astype(np.float32)
        return A, "hpgraph.generators.rmat"
    except Exception as exc:  # fall back to a local vectorised generator
        print(f"  (hpgraph.generators.rmat failed: {type(exc).__name__}: {exc}; using the local one)")
        return _rmat_local(scale, seed), "bench-local rmat"


def _rmat_local(scale, seed):
    from hpgraph.formats import CSR

    rs = cp.random.RandomState(seed)
    n = 1 << scale
    m = 16 * n
    u = cp.zeros(m, cp.int64)
    v = cp.zeros(m, cp.int64)
    a, b, c = 0.57, 0.19, 0.19
    for lvl in range(scale):
        r = rs.random_sample(m, dtype=cp.float32)
        row = r >= a + b
        col = (r >= a) ^ (r >= a + b + c) ^ row
        u |= row.astype(cp.int64) << lvl
        v |= col.astype(cp.int64) << lvl
    perm = rs.permutation(n)
    u, v = perm[u], perm[v]
    keep = u != v
    u, v = u[keep], v[keep]
    lo, hi = cp.minimum(u, v), cp.maximum(u, v)
    key = cp.unique(lo * n + hi)
    lo, hi = key // n, key % n
    r = cp.concatenate([lo, hi])
    cc = cp.concatenate([hi, lo])
    key = cp.sort(r * n + cc)
    r, cc = key // n, key % n
    indptr = cp.zeros(n + 1, cp.int64)
    indptr[1:] = cp.cumsum(cp.bincount(r, minlength=n))
    w = (rs.random_sample(r.size, dtype=cp.float32) * 63 + 1).astype(cp.float32)
    return CSR(indptr.astype(cp.int32), cc.astype(cp.int32), w, (n, n))


def grid_csr(side):
    try:
        G = hp.generators.grid_2d(side, side, weights=(1.0, 64.0), seed=1, backend="gpu")
        A = G.A
        return (A if A.dtype == np.float32 else A.astype(np.float32)), "hpgraph.generators.grid_2d"
    except Exception as exc:
        print(f"  (hpgraph.generators.grid_2d failed: {exc}; using the local one)")
        from hpgraph.formats import COO

        n = side * side
        ids = cp.arange(n, dtype=cp.int64)
        r, c = ids // side, ids % side
        h = ids[c < side - 1]
        vt = ids[r < side - 1]
        u = cp.concatenate([h, vt, h + 1, vt + side])
        v = cp.concatenate([h + 1, vt + side, h, vt])
        w = cp.random.RandomState(1).random_sample(u.size, dtype=cp.float32) * 63 + 1
        return COO(u.astype(cp.int32), v.astype(cp.int32), w.astype(cp.float32), (n, n)).asformat("csr"), "local"


# ---------------------------------------------------------------------------------------

#: run for every semiring (suffixes: "/s<n>" load hint gpu.STREAM, "/b<n>" gpu.MP_BLOCK,
#: "/mb<n>" gpu.LB_MIN_BLOCKS)
VARIANTS = ["auto", "hyb", "csr_lb", "csr_mp", "csr_vector", "csr_scalar"]
#: run for min_plus and the UDF semiring (graphs named by --tune): load hints and tile shapes
TUNING = ["csr_lb/s1", "csr_lb/s2", "csr_lb/s3", "csr_lb:4",
          "csr_mp/s1", "csr_mp/s2", "csr_mp/s3", "csr_mp:4", "csr_mp:6",
          "csr_mp/b128", "csr_mp:16/b128", "csr_mp:12/b128", "csr_mp/b512", "csr_mp:16/b128/s2"]
#: run for every semiring on the --tune graphs: column relabeling (hub columns first in x), with
#: the plain kernels under the same load hint next to them
RELABEL = ["csr_lb+relabel", "csr_mp+relabel", "csr_lb/s1", "csr_lb+relabel/s1", "csr_mp/s1",
           "csr_mp+relabel/s1", "csr_mp+relabel/s3"]


def bench_relabel_costs(A, x, reps, rec, cus_ms, y_cusparse, check):
    """One-time cost of the relabeling, the per-product gather alone, and cuSPARSE on the
    relabeled matrix (gather included: what cuSPARSE would gain from the same renumbering)."""
    import cupyx.scipy.sparse as cps

    # wall time (the build synchronises once, to size the sort keys), after one warm-up build
    ts = []
    for _ in range(6):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        gpu.column_relabel(A, cached=False)
        cp.cuda.Device().synchronize()
        ts.append((time.perf_counter() - t) * 1e3)
    ms = float(np.median(ts[1:]))
    rec("-", "relabel build (one-time)", ms, len(ts) - 1, note="wall ms: column counts + sort + cols2")
    print(f"  relabel build (one-time, gpu.column_relabel) {ms:8.3f} ms wall (first build {ts[0]:.1f} ms)")
    R = gpu.column_relabel(A)
    ms, k = time_device(lambda: gpu.gather(x, R.perm), reps)
    rec("-", "relabel gather x2 = x[perm]", ms, k)
    print(f"  per-product gather x2 = x[perm]              {ms:8.3f} ms")
    try:
        Ar = cps.csr_matrix((R.values, R.indices, R.indptr), shape=A.shape)
        fn = lambda: Ar @ gpu.gather(x, R.perm)  # noqa: E731
        y = fn()
        ok = ""
        if check:
            err = float(cp.abs(y - y_cusparse).max() / (cp.abs(y_cusparse).max() + 1e-30))
            ok = "ok" if err < 1e-4 else f"MISMATCH rel {err:.2e}"
        ms, k = time_device(fn, reps)
        r = rec("plus_times", "cuSPARSE relabeled (+gather)", ms, k, time_host(fn, 10), ok)
        print(f"  {'plus_times':16s} {'cuSPARSE relabeled':16s} {ms:8.3f} ms  x{ms / cus_ms:5.2f} of cuSPARSE  "
              f"{r['gbps']:7.0f} GB/s  {ok}")
        del Ar
    except Exception as exc:
        print(f"  cuSPARSE relabeled FAILED: {type(exc).__name__}: {str(exc)[:300]}")


def bench_graph(label, A, reps, copy_bps, results, check=True, tune=True, tune_set="all"):
    n, nnz = A.nrows, A.nnz
    st = gpu.matrix_stats(A)
    print(f"\n== {label}: {n:,} rows, {nnz:,} entries, mean {st['mean']:.1f}, max {st['max']:,}, "
          f"K={st['K']}, COO share {st['coo_share']:.1%}, auto -> {gpu.choose_format(A)}")
    nbytes = nnz * 12 + n * 4
    rng = cp.random.RandomState(7)
    x = rng.random_sample(n, dtype=cp.float32)

    Ac = A.to_cupyx() if hasattr(A, "to_cupyx") else None
    import cupyx.scipy.sparse as cps

    if Ac is None or Ac.dtype != np.float32:
        Ac = cps.csr_matrix((A.values, A.indices, A.indptr), shape=A.shape)
    # row id of every entry (for the minimum.at reference; not timed)
    rows = (cp.searchsorted(A.indptr[1:], cp.arange(nnz, dtype=A.indptr.dtype), side="right")
            .astype(cp.int32))

    # bytes that must come from DRAM at least once: cols + values, indptr, x read once, y
    sbytes = nnz * 8 + n * 12

    def rec(semiring, variant, ms, k, host_us=None, note=""):
        r = dict(graph=label, nrows=n, nnz=nnz, semiring=semiring, variant=variant, ms=ms, runs=k,
                 gbps=nbytes / (ms * 1e-3) / 1e9, copy_frac=nbytes / (ms * 1e-3) / copy_bps,
                 stream_gbps=sbytes / (ms * 1e-3) / 1e9, host_us=host_us, note=note)
        results.append(r)
        return r

    # references
    ms, k = time_device(lambda: Ac @ x, reps)
    y_cusparse = Ac @ x
    base = rec("plus_times", "cuSPARSE (cupyx csr @ x)", ms, k, time_host(lambda: Ac @ x))
    cus_ms = ms

    def minimum_at():
        y = cp.full(n, cp.inf, dtype=cp.float32)
        cp.minimum.at(y, rows, A.values + x[A.indices])
        return y
    y_minat = minimum_at()
    y_udf = cp.full(n, cp.inf, dtype=cp.float32)
    cp.minimum.at(y_udf, rows, A.values * cp.float32(0.5) + x[A.indices])
    ms, k = time_device(minimum_at, max(5, reps // 2))
    rec("min_plus", "cupy minimum.at", ms, k)

    if tune:
        bench_relabel_costs(A, x, reps, rec, cus_ms, y_cusparse, check)

    semirings = [("plus_times", ops.lookup_semiring("plus_times", np.float32)),
                 ("min_plus", ops.lookup_semiring("min_plus", np.float32)),
                 ("udf min_scaled", UDF[np.float32])]
    t0 = time.perf_counter()
    saved = (gpu.LB_MIN_BLOCKS, gpu.STREAM, gpu.MP_BLOCK)
    gpu.matrix_stats(A)
    for sname, sr in semirings:
        # every semiring: the main kernels; min_plus and the UDF also the tuning knobs (load
        # hints, tile shapes) unless --tune leaves this graph out
        variants = list(VARIANTS)
        if tune:
            if tune_set == "all" and sname != "plus_times":
                variants += TUNING
            variants += [v for v in RELABEL if v not in variants]
        for v in variants:
            fmt, *knobs = v.split("/")
            fmt = None if fmt == "auto" else fmt
            gpu.LB_MIN_BLOCKS, gpu.STREAM, gpu.MP_BLOCK = saved
            for kb in knobs:  # "/mb6": launch bounds; "/s2": load hint; "/b128": csr_mp block
                if kb.startswith("mb"):
                    gpu.LB_MIN_BLOCKS = int(kb[2:])
                elif kb.startswith("s"):
                    gpu.STREAM = int(kb[1:])
                elif kb.startswith("b"):
                    gpu.MP_BLOCK = int(kb[1:])
            fn = lambda: gpu.spmv(A, x, sr, format=fmt)  # noqa: E731
            try:
                cp.cuda.Device().synchronize()
                t_first = time.perf_counter()
                y = fn()  # compiles + builds derived formats (first_ms)
                cp.cuda.Device().synchronize()
                first_ms = (time.perf_counter() - t_first) * 1e3
            except Exception as exc:
                print(f"  {sname:16s} {v:14s} FAILED: {type(exc).__name__}: {str(exc)[:300]}")
                rec(sname, v, float("nan"), 0, note=f"failed: {type(exc).__name__}")
                continue
            ok = ""
            if check:
                if sname == "plus_times":
                    err = float(cp.abs(y - y_cusparse).max() / (cp.abs(y_cusparse).max() + 1e-30))
                    ok = "ok" if err < 1e-4 else f"MISMATCH rel {err:.2e}"
                elif sname == "min_plus":
                    ok = "ok" if bool(cp.array_equal(y, y_minat)) else \
                        f"MISMATCH {int((y != y_minat).sum())} rows"
                else:
                    same = cp.isclose(y, y_udf, rtol=1e-6, atol=0) | (y == y_udf)
                    ok = "ok" if bool(same.all()) else f"MISMATCH {int((~same).sum())} rows"
            ms, k = time_device(fn, reps)
            hu = time_host(fn, 10)
            r = rec(sname, v, ms, k, hu, ok)
            r["first_ms"] = first_ms
            print(f"  {sname:16s} {v:18s} {ms:8.3f} ms  x{ms / cus_ms:5.2f} of cuSPARSE  "
                  f"{r['gbps']:7.0f} GB/s ({r['copy_frac']:.0%} of copy; streamed {r['stream_gbps']:5.0f})  "
                  f"host {hu:6.0f} us  {ok}")
    gpu.LB_MIN_BLOCKS, gpu.STREAM, gpu.MP_BLOCK = saved
    print(f"  (variants took {time.perf_counter() - t0:.1f} s)")
    print(f"  cuSPARSE {cus_ms:.3f} ms ({base['gbps']:.0f} GB/s)")
    del Ac, rows
    return st


def markdown(results, meta):
    lines = [
        "# SpMV benchmark (hpgraph generated kernels vs cuSPARSE)",
        "",
        f"Device: {meta['device']}; CuPy {meta['cupy']}; CUDA runtime {meta['cuda']}. "
        f"Device-to-device copy: {meta['copy_gbps']:.0f} GB/s (read + write). "
        f"Median device time of >= {meta['reps']} runs (CUDA events, after warm-up); "
        "ratio = time / cuSPARSE float32 plus_times time on the same matrix; GB/s counts "
        "nnz x (4 index + 4 value + 4 x) + 4 x nrows bytes; streamed GB/s counts only bytes that "
        "must come from DRAM (nnz x 8 + nrows x 12: cols, values, indptr, x once, y); "
        "host us = wall time per call in a "
        "back-to-back loop (Python launch overhead included).",
        "",
    ]
    for g in meta["graphs"]:
        lines.append(f"## {g['label']}: {g['nrows']:,} rows, {g['nnz']:,} entries "
                     f"(mean degree {g['mean']:.1f}, max {g['max']:,}, HYB K={g['K']}, "
                     f"COO share {g['coo_share']:.0%}; auto = {g['auto']})")
        lines.append("")
        lines.append("| semiring | variant | ms | / cuSPARSE | GB/s | % of copy | streamed GB/s | host us | check |")
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
        cus = [r for r in results if r["graph"] == g["label"] and r["variant"].startswith("cuSPARSE")]
        cus_ms = cus[0]["ms"] if cus else float("nan")
        for r in results:
            if r["graph"] != g["label"]:
                continue
            hu = "" if r["host_us"] is None else f"{r['host_us']:.0f}"
            lines.append(f"| {r['semiring']} | {r['variant']} | {r['ms']:.3f} | {r['ms'] / cus_ms:.2f} | "
                         f"{r['gbps']:.0f} | {r['copy_frac']:.0%} | {r['stream_gbps']:.0f} | {hu} | {r['note']} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="folder for spmv.json / spmv.md")
    ap.add_argument("--scales", default="20,22,23")
    ap.add_argument("--grid", type=int, default=2048)
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--tune", default="all",
                    help="graphs that also run the TUNING and RELABEL variants: 'all', 'none' or a comma "
                         "list of label fragments, e.g. 'grid,R-MAT 22'")
    ap.add_argument("--tune-set", default="all", choices=("all", "relabel"),
                    help="on the --tune graphs: 'all' = load hints, tile shapes and column relabeling; "
                         "'relabel' = column relabeling only (with the plain kernels it compares to)")
    args = ap.parse_args()

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    bps, cms = copy_rate()
    print(f"device {name}; copy {bps / 1e9:.0f} GB/s ({cms:.3f} ms per GiB copy)")
    results = []
    graphs = []
    todo = ([(f"grid {args.grid}x{args.grid}", -args.grid)] if args.grid else []) + \
        [("R-MAT " + s, int(s)) for s in args.scales.split(",") if s]
    for label, s in todo:
        t = time.perf_counter()
        if s > 0:
            A, how = rmat_csr(s)
        else:
            A, how = grid_csr(-s)
        cp.cuda.Device().synchronize()
        print(f"\n{label}: built by {how} in {time.perf_counter() - t:.1f} s")
        tune = args.tune == "all" or (args.tune != "none" and
                                      any(f.strip() and f.strip() in label for f in args.tune.split(",")))
        st = bench_graph(label, A, args.reps, bps, results, check=not args.no_check, tune=tune,
                         tune_set=args.tune_set)
        graphs.append(dict(label=label, nrows=A.nrows, nnz=A.nnz, mean=st["mean"], max=st["max"],
                           K=st["K"], coo_share=st["coo_share"], auto=gpu.choose_format(A), built_by=how))
        del A
        if args.out:  # partial results survive a time limit
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "spmv.json"), "w") as fh:
                json.dump(dict(meta=dict(partial=True, graphs=graphs), results=results), fh, indent=1,
                          default=float)
        gpu.clear_caches()
        cp.get_default_memory_pool().free_all_blocks()
    meta = dict(metadata(benchmark="bench_spmv", argv=sys.argv[1:]), device=name,
                cupy=cp.__version__, cuda=cp.cuda.runtime.runtimeGetVersion(),
                copy_gbps=bps / 1e9, reps=args.reps, graphs=graphs)
    md = markdown(results, meta)
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(os.path.join(here, "results"), exist_ok=True)
    with open(os.path.join(here, "results", "spmv.md"), "w") as fh:
        fh.write(md)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "spmv.json"), "w") as fh:
            json.dump(dict(meta=meta, results=results), fh, indent=1, default=float)
        with open(os.path.join(args.out, "spmv.md"), "w") as fh:
            fh.write(md)
    # short summary last (the device tool returns the tail of the output)
    print("\nSUMMARY (ms; ratio to cuSPARSE plus_times)")
    for g in graphs:
        cus = next(r for r in results if r["graph"] == g["label"] and r["variant"].startswith("cuSPARSE"))
        row = [f"{g['label']:>14s} cuSPARSE {cus['ms']:.3f}"]
        for r in results:
            if r["graph"] == g["label"] and (r["variant"] in ("auto", "hyb", "csr_lb", "csr_mp", "csr_scalar")
                                             or r["semiring"] == "min_plus" or "relabel" in r["variant"]) \
                    and r["semiring"] in ("min_plus", "udf min_scaled", "plus_times", "-") \
                    and not r["variant"].startswith("cupy"):
                row.append(f"{r['semiring'][:8]}/{r['variant']} {r['ms']:.3f} ({r['ms'] / cus['ms']:.2f})"
                           + ("" if r["note"] in ("ok", "") else " " + r["note"]))
        print("  " + "; ".join(row))
    bad = [r for r in results if str(r["note"]).startswith(("MISMATCH", "failed"))]
    for r in bad:
        print(f"FAILED: {r['graph']} {r['semiring']} {r['variant']}: {r['note']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
