"""Benchmark: the single-launch near-far SSSP kernel (``_sssp_gpu``) against near-far as an
engine program (``sssp_gpu_nearfar="engine"``) and the engine's Bellman-Ford, on the GPU.

Graphs: those of ``bench_algorithms.py`` (R-MAT 21 undirected, source = highest degree; the
2048 x 2048 grid, source 0; integer weights 1..64, float64 distances).  Timing (:mod:`_harness`):
``warm_ms`` (CUDA events around the whole ``hp.sssp`` call, median of ``--repeat`` after the
first call), ``wall_ms`` and ``first_ms``.  Every row is checked against SciPy's Dijkstra
(exact: integer weights), and where predecessors were asked for, every reached vertex's
predecessor must give a tight edge ``dist[p] + w(p, v) == dist[v]`` (``_harness.check_sssp``);
the row label says whether predecessors were computed.  Also: bucket widths (multiples of the
default delta), launch shapes and the kernel's per-step timeline.  Exits 1 on a mismatch.

Usage::

    python benchmarks/bench_sssp_gpu.py [--out DIR] [--repeat 7] [--graphs rmat21,grid]
        [--deltas 0.125,0.25,0.5,1,2,inf] [--shapes 256x1,512x1,1024x1,512x2] [--json FILE]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import hpgraph as hp  # noqa: E402
from _harness import Report, check_sssp, timed  # noqa: E402
from bench_algorithms import make_graphs  # noqa: E402
from hpgraph.algorithms import _sssp, _sssp_gpu  # noqa: E402
from hpgraph.algorithms import _sssp_nearfar as nf  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--graphs", default="rmat21,grid")
    ap.add_argument("--deltas", default="0.125,0.25,0.5,1,2,inf")
    ap.add_argument("--shapes", default="256x1,512x1,1024x1,512x2")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    import cupy as cp
    import scipy.sparse.csgraph as csg

    report = Report("bench_sssp_gpu", graphs=args.graphs, repeat=args.repeat, quick=args.quick)
    for name, label, G, src in make_graphs(args, True):
        m = int(G.num_edges)
        d0 = nf.default_delta(G)
        A = G.to_host().to_scipy().tocsr()
        A.sort_indices()
        ref = csg.dijkstra(A, indices=src)

        def row(what, fn, **kw):
            r, res = timed(fn, args.repeat)
            pred = res.predecessor
            check = check_sssp(A, src, res.distance, pred, ref=ref)
            report.row(label, what + (", with predecessors" if pred is not None else
                                      ", no predecessors"), r, check=check,
                       predecessors=pred is not None, gteps=m / r["warm_ms"] / 1e6, **kw)

        row("engine bellman-ford",
            lambda: hp.sssp(G, src, method="bellman-ford", predecessors=False))
        row("engine bellman-ford", lambda: hp.sssp(G, src, method="bellman-ford"))
        for impl in ("engine", "kernel"):
            with hp.config.set(sssp_gpu_nearfar=impl):
                deltas = args.deltas.split(",") if impl == "kernel" else ["1"]
                for f in deltas:
                    delta = math.inf if f == "inf" else float(f) * d0
                    row(f"near-far {impl}, delta {f} x default",
                        lambda: hp.sssp(G, src, method="near-far", delta=delta, predecessors=False),
                        impl=impl, delta=delta)
                row(f"near-far {impl}, default delta", lambda: hp.sssp(G, src, method="near-far"),
                    impl=impl)
        for sh in [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",") if s]:
            with hp.config.set(sssp_gpu_nearfar="kernel", sssp_gpu_shape=sh):
                row(f"near-far kernel {sh[0]}x{sh[1]}", lambda: hp.sssp(G, src, method="near-far"),
                    shape=f"{sh[0]}x{sh[1]}")
        row("auto (default)", lambda: hp.sssp(G, src))
        row("auto (default)", lambda: hp.sssp(G, src, predecessors=False))
        with hp.config.set(sssp_gpu_nearfar="kernel", sssp_gpu_profile=True):
            hp.sssp(G, src, method="near-far")
        prof = _sssp_gpu._plan(G, _sssp.distance_dtype(G), np.int32).profile()
        report.meta.setdefault("kernel_profiles", {})[label] = prof
        print(f"  {label:14s} profile: setup {prof['setup_us']:.1f} us, steps {prof['steps_us']:.1f} us, "
              f"pred {prof['pred_us']:.1f} us, {prof['compactions']} compactions; first (us/queue/pending): "
              + ", ".join(f"{t}/{q}/{p}" for t, q, p in
                          list(zip(prof["step_us"], prof["queue"], prof["pending"]))[:14]), flush=True)
        cp.get_default_memory_pool().free_all_blocks()
    return report.finish(args.json)


if __name__ == "__main__":
    sys.exit(main())
