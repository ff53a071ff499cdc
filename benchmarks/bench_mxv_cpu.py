"""Benchmark: CPU ``hp.mxv`` (min_plus) against python-graphblas and SciPy on R-MAT.

R-MAT scale 20, edge factor 16 (Graph500 parameters, undirected, loops and duplicates removed,
uniform weights), ``hpgraph.generators.rmat(20, seed=1, weights="uniform")``.  Measured:

* hpgraph ``mxv(A, x, "min_plus[T]", backend="cpu")`` for T = float64 and float32;
* python-graphblas ``A.mxv(v, semiring.min_plus[T]).new()`` (SuiteSparse:GraphBLAS with
  ``gb.ss.config["nthreads"]`` = the number of cores this process may use);
* SciPy ``A @ x`` (plus_times, single-threaded C++), for scale;
* hpgraph and python-graphblas again on one thread (``--no-single`` skips them), a comparison
  that a busy shared machine disturbs less.

Each timing is the median of ``--repeat`` runs after ``--warmup`` runs; the contenders run
round-robin (one call each per round), so a load change on a shared machine hits all alike (a
CPU benchmark: warm and wall time are the same host clock; the harness's ``metadata`` goes into
the JSON).  Every dtype's result is first checked equal to python-graphblas's; a mismatch
exits 1.  The table (ms and ratio to
python-graphblas of the same dtype) is printed and written to ``benchmarks/results/mxv_cpu.md``;
raw numbers go to ``benchmarks/results/mxv_cpu.json``.

Usage::

    python benchmarks/bench_mxv_cpu.py [--scale 20] [--edge-factor 16] [--repeat 15] [--warmup 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hpgraph as hp  # noqa: E402
from _harness import metadata  # noqa: E402
from hpgraph.spmv import cpu as spmv_cpu  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def _code_version() -> str:
    """Short hash of the last commit touching hpgraph/spmv (``-dirty`` with local changes)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        h = subprocess.run(["git", "log", "-1", "--format=%h", "--", "hpgraph/spmv"], cwd=root,
                           capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "hpgraph/spmv"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"
    return (h or "?") + ("-dirty" if dirty else "")


def _time_interleaved(fns, repeat: int, warmup: int) -> list[list[float]]:
    """Times (ms) of each function, run round-robin so that load changes on a shared machine
    hit every contender alike."""
    for _ in range(warmup):
        for fn in fns:
            fn()
    ts = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            ts[k].append((time.perf_counter() - t0) * 1e3)
    return ts


def build_matrix(scale: int, edge_factor: int, seed: int):
    """The R-MAT adjacency matrix (CSR, float32 weights in [0, 1)) on the host."""
    G = hp.generators.rmat(scale, edge_factor, seed=seed, weights="uniform", backend="cpu")
    A = G.A
    if A.is_pattern:  # pragma: no cover - weights were asked for
        A = A.astype(np.float32)
    return A


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument("--no-single", action="store_true", help="skip the single-thread rows")
    args = ap.parse_args(argv)

    import graphblas as gb
    import scipy
    import scipy.sparse as sp

    cores = _cores()
    gb.ss.config["nthreads"] = cores
    load0 = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3

    t0 = time.perf_counter()
    A32 = build_matrix(args.scale, args.edge_factor, args.seed)
    t_gen = time.perf_counter() - t0
    n = A32.nrows
    nnz = A32.nnz
    empty_rows = int((np.diff(A32.indptr) == 0).sum())
    rng = np.random.default_rng(0)
    x64 = rng.random(n)
    rows = []
    raw = {}
    for dt in (np.float64, np.float32):
        dt = np.dtype(dt)
        A = A32.astype(dt)
        x = x64.astype(dt)
        name = f"min_plus[{dt.name}]"
        sr = hp.semiring.min_plus[dt]
        indptr = np.asarray(A.indptr, dtype=np.int64)
        indices = np.asarray(A.indices, dtype=np.int64)
        values = np.array(A.values)
        M = gb.Matrix.ss.import_csr(nrows=n, ncols=n, indptr=indptr, col_indices=indices,
                                    values=values, take_ownership=False)
        v = gb.Vector.from_dense(x)
        gsr = gb.semiring.min_plus[dt]
        S = sp.csr_array((values, indices, indptr), shape=(n, n))

        # correctness first
        y_hp = hp.mxv(A, x, sr, backend="cpu")
        y_gb = M.mxv(v, gsr).new().to_dense(fill_value=np.inf)
        if not np.array_equal(y_hp, y_gb):
            print(f"MISMATCH hpgraph vs graphblas for {name}", file=sys.stderr)
            return 1

        def hp_run(k):
            spmv_cpu.set_num_threads(k)
            try:
                return hp.mxv(A, x, sr, backend="cpu")
            finally:
                spmv_cpu.set_num_threads(None)

        def gb_run(k):
            gb.ss.config["nthreads"] = k
            return M.mxv(v, gsr).new()

        fns = {"hpgraph": lambda: hp_run(cores), "graphblas": lambda: gb_run(cores), "scipy": lambda: S @ x}
        if cores > 1 and not args.no_single:
            fns.update({"hpgraph_1t": lambda: hp_run(1), "graphblas_1t": lambda: gb_run(1)})
        times = dict(zip(fns, _time_interleaved(list(fns.values()), args.repeat, args.warmup)))
        gb.ss.config["nthreads"] = cores
        med = {k: statistics.median(v_) for k, v_ in times.items()}
        raw[dt.name] = {"times_ms": times, "median_ms": med}
        rows.append((f"hpgraph `mxv` {name}", cores, med["hpgraph"], med["hpgraph"] / med["graphblas"]))
        rows.append((f"python-graphblas {name}", cores, med["graphblas"], 1.0))
        rows.append((f"SciPy `A @ x` plus_times[{dt.name}]", 1, med["scipy"], med["scipy"] / med["graphblas"]))
        if "hpgraph_1t" in med:
            rows.append((f"hpgraph `mxv` {name}, 1 thread", 1, med["hpgraph_1t"],
                         med["hpgraph_1t"] / med["graphblas_1t"]))
            rows.append((f"python-graphblas {name}, 1 thread", 1, med["graphblas_1t"], 1.0))

    head = (f"R-MAT scale {args.scale}, edge factor {args.edge_factor} (undirected, seed {args.seed}): "
            f"{n:,} vertices, {nnz:,} stored entries, {empty_rows:,} empty rows; "
            f"{cores} CPU cores ({platform.processor() or platform.machine()}); "
            f"hpgraph threads = {spmv_cpu.num_threads()}, SuiteSparse nthreads = {cores}; "
            f"median of {args.repeat} interleaved runs after {args.warmup} warm-up runs.")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    head += (f" Load average during the run: {load0[0]:.2f} at start, {load[0]:.2f} at end "
             f"(a load above the core count means other processes shared the cores).")
    lines = [
        "| operation | threads | time (ms) | ratio to python-graphblas (same threads) |",
        "|---|---:|---:|---:|",
    ] + [f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.2f}x |" for r in rows]
    versions = (f"numpy {np.__version__}, scipy {scipy.__version__}, python-graphblas {gb.__version__}, "
                f"SuiteSparse:GraphBLAS {'.'.join(map(str, gb.ss.about['library_version'])) if hasattr(gb.ss, 'about') else '?'}, "
                f"Python {platform.python_version()}")
    table = "\n".join(lines)
    print(head)
    print()
    print(table)
    print()
    print(versions)
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        # keep a short history: on a shared machine one run can be disturbed by other processes
        history = []
        old_json = RESULTS / "mxv_cpu.json"
        if old_json.exists():
            try:
                prev = json.loads(old_json.read_text())
                if prev.get("scale") == args.scale and prev.get("edge_factor") == args.edge_factor:
                    history = prev.get("history", [])
            except (ValueError, OSError):
                history = []
        entry = {"when": time.strftime("%Y-%m-%d %H:%M"), "code": _code_version(),
                 "loadavg_start": round(load0[0], 2),
                 "loadavg_end": round(load[0], 2),
                 "ratios": {r[0]: round(r[3], 3) for r in rows if not r[0].startswith("python-graphblas")},
                 "graphblas_ms": {r[0]: round(r[2], 1) for r in rows if r[0].startswith("python-graphblas")}}
        history = (history + [entry])[-12:]
        hist_lines = []
        if len(history) > 1:
            keys = [r[0] for r in rows if not r[0].startswith("python-graphblas")]
            hist_lines = ["## All recorded runs (ratio to python-graphblas, same threads)", "",
                          "`code`: last commit touching `hpgraph/spmv/` when the run was made.", "",
                          "| run | code | load (start/end) | " + " | ".join(keys) + " |",
                          "|---|---|---|" + "---:|" * len(keys)]
            for h in history:
                cells = [f"{h['ratios'][k]:.2f}x" if k in h.get("ratios", {}) else "" for k in keys]
                hist_lines.append(f"| {h['when']} | {h.get('code', '?')} | "
                                  f"{h['loadavg_start']:.2f} / {h['loadavg_end']:.2f} | "
                                  + " | ".join(cells) + " |")
            hist_lines.append("")
        md = ["# CPU mxv: hpgraph vs python-graphblas vs SciPy", "",
              "Produced by `python benchmarks/bench_mxv_cpu.py`.", "", "## Latest run", "", head, "",
              table, "", versions, "", f"Graph generation took {t_gen:.1f} s (not timed above).", "",
              *hist_lines]
        (RESULTS / "mxv_cpu.md").write_text("\n".join(md))
        meta = {**metadata(benchmark="bench_mxv_cpu", argv=sys.argv[1:]), "scale": args.scale, "edge_factor": args.edge_factor, "seed": args.seed, "n": n,
                "nnz": nnz, "empty_rows": empty_rows, "cores": cores,
                "hpgraph_threads": spmv_cpu.num_threads(), "repeat": args.repeat,
                "loadavg_start": load0[0], "loadavg_end": load[0],
                "warmup": args.warmup, "versions": versions, "results": raw, "history": history}
        (RESULTS / "mxv_cpu.json").write_text(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
