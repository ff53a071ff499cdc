"""Benchmark: GPU PageRank per iteration (the semiring SpMV + one vector-update kernel) against
plain CuPy and one cuSPARSE SpMV.

Rows per graph (R-MAT 21 undirected, edge factor 16, seed 1; the 2048 x 2048 grid) and dtype
(float64, float32):

* ``prep_ms``: the per-graph preprocessing (1 / out-degree), timed once on an empty cache;
* ``hp.pagerank`` to each ``tol`` (power variant: L1 change below ``tol``; 1e-4, 1e-6, 1e-9 in
  float64, 1e-3, 1e-5 in float32) with ``warm_ms`` / ``wall_ms`` / ``first_ms`` (:mod:`_harness`), ``iterations``, and
  ``per_iter_ms`` = warm / iterations (the setup spread over the iterations);
* ``marginal_iter_ms`` (on the tightest tol's row): (warm at the tightest tol - warm at the
  loosest) / (iteration difference), one iteration without the per-call setup -- the number
  issue #16's goal is about.

Every result is checked against a plain-CuPy power iteration written here (cuSPARSE SpMV,
float64, run to an L1 change below 1e-13): the L1 distance must be within the run's own bound
(``PageRankInfo.error_bound``) plus rounding (1e-9 float64, 1e-4 float32).  Also timed: the
same plain-CuPy iteration (``cupy`` rows, per iteration) and one cuSPARSE SpMV.  Exits 1 on a
mismatch.

Usage (on a GPU)::

    python benchmarks/bench_pagerank.py [--graphs rmat21,grid] [--repeat 7] [--quick]
        [--json results/pagerank.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _harness import Report, timed, timed_once  # noqa: E402
from bench_algorithms import make_graphs  # noqa: E402

import hpgraph as hp  # noqa: E402

DAMPING = 0.85
TOLS = {np.dtype(np.float64): (1e-4, 1e-6, 1e-9), np.dtype(np.float32): (1e-3, 1e-5)}
SLACK = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4}


class Plain:
    """networkx's power iteration in plain CuPy with cuSPARSE (the oracle and a baseline)."""

    def __init__(self, G):
        import cupy as cp

        self.n = G.num_vertices
        AT = G.AT.to_cupyx().astype(cp.float64)
        AT.data[:] = 1
        self.A = {np.dtype(np.float64): AT, np.dtype(np.float32): AT.astype(cp.float32)}
        outdeg = G.out_degree.astype(cp.float64)
        S = cp.where(outdeg > 0, 1.0 / cp.maximum(outdeg, 1), 0.0)
        self.S = {np.dtype(np.float64): S, np.dtype(np.float32): S.astype(cp.float32)}

    def run(self, dtype, tol, max_iter=100000):
        import cupy as cp

        dtype = np.dtype(dtype)
        n, A, S = self.n, self.A[dtype], self.S[dtype]
        dang = S == 0
        x = cp.full(n, 1.0 / n, dtype)
        for it in range(max_iter):
            y = A @ (x * S)
            dsum = cp.sum(cp.where(dang, x, 0))
            xn = (DAMPING * (y + dsum / n) + (1 - DAMPING) / n).astype(dtype)
            err = float(cp.abs(xn - x).sum())
            x = xn
            if err < tol:
                return x, it + 1
        raise RuntimeError("plain PageRank did not converge")


def _forget(G):
    cache = getattr(G, "_cache", None)
    if cache is not None:
        for key in [k for k in cache if str(k[0]).startswith(("hpg.pagerank", "hpg.AT_pattern"))]:
            del cache[key]


def bench(report, label, G, repeat):
    import cupy as cp

    plain = Plain(G)
    t_ms, (ref, ref_it) = timed_once(lambda: plain.run(np.float64, 1e-13))
    ref = ref.astype(cp.float64)
    print(f"[{label}] oracle: {ref_it} iterations ({t_ms:.0f} ms)", flush=True)
    for dt in (np.dtype(np.float64), np.dtype(np.float32)):
        tag = dt.name
        kernel = "spmv"
        _forget(G)
        prep, _ = timed_once(lambda: _prepare(G, dt))
        _forget(G)
        timings = {}
        for tol in TOLS[dt]:
            row, (x, info) = timed(lambda: hp.pagerank(
                G, tol=tol, max_iter=1000, dtype=dt, return_info=True), repeat)
            l1 = float(cp.abs(x.astype(cp.float64) - ref).sum())
            bound = info.error_bound + SLACK[dt] + 5.7e-12
            check = "ok" if l1 <= bound else f"MISMATCH L1 {l1:.3e} > bound {bound:.3e}"
            timings[tol] = (row["warm_ms"], info.iterations)
            report.row(label, f"pagerank {kernel} {tag} tol={tol:g}", row, prep_ms=prep,
                       check=check, kernel=kernel, dtype=tag, tol=tol,
                       iterations=info.iterations, l1_vs_oracle=l1,
                       per_iter_ms=row["warm_ms"] / max(info.iterations, 1))
        (t_lo, i_lo), (t_hi, i_hi) = timings[TOLS[dt][0]], timings[TOLS[dt][-1]]
        if i_hi > i_lo:
            marg = (t_hi - t_lo) / (i_hi - i_lo)
            report.rows[-1]["marginal_iter_ms"] = marg
            print(f"  {label:14s} pagerank {kernel} {tag}: one iteration {marg:.4f} ms "
                  f"(marginal, {i_lo} -> {i_hi} iterations)", flush=True)
        # plain CuPy per iteration, and one cuSPARSE SpMV
        row, (xp_, it) = timed(lambda: plain.run(dt, TOLS[dt][1]), max(3, repeat // 2))
        l1 = float(cp.abs(xp_.astype(cp.float64) - ref).sum())
        ok = l1 <= DAMPING / (1 - DAMPING) * TOLS[dt][1] + SLACK[dt]
        report.row(label, f"plain cupy pagerank {tag} tol={TOLS[dt][1]:g}", row,
                   check="ok" if ok else f"MISMATCH L1 {l1:.3e}", iterations=it,
                   per_iter_ms=row["warm_ms"] / it, dtype=tag)
        x1 = cp.ones(G.num_vertices, dt)
        row, y = timed(lambda: plain.A[dt] @ x1, max(repeat, 10))
        ok = bool(cp.array_equal(y.astype(cp.float64), G.in_degree.astype(cp.float64)))
        report.row(label, f"cuSPARSE SpMV {tag} (A^T ones)", row,
                   check="ok" if ok else "MISMATCH SpMV != in-degree", dtype=tag)
    cp.get_default_memory_pool().free_all_blocks()


def _prepare(G, dtype):
    """The per-graph preprocessing (what a first call builds and caches)."""
    from hpgraph.algorithms import _pagerank

    S, AT, _ = _pagerank._operands(G, False, dtype)
    return S


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="rmat21,grid")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not hp.has_gpu():
        print("bench_pagerank needs a GPU")
        return 2
    report = Report("bench_pagerank", graphs=args.graphs, repeat=args.repeat, quick=args.quick)
    for _, label, G, _ in make_graphs(args, True):
        bench(report, label, G, args.repeat)
    return report.finish(args.json)


if __name__ == "__main__":
    sys.exit(main())
