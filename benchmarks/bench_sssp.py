"""Benchmark: SSSP methods on the GPU -- near-far (several bucket widths) vs the engine's
Bellman-Ford, with and without predecessors, and the plain-CuPy Bellman-Ford baseline.

Graphs: the ones of ``bench_algorithms.py`` (imported, not copied): R-MAT 21 undirected and
the 2048 x 2048 grid, integer weights 1..64 (float64 distances), seed 1; R-MAT source = the
vertex of highest degree, grid source = 0 (a corner).  Also the unweighted grid (``--unweighted``)
and an Erdos-Renyi graph of a given mean degree (``--er DEG,...``, source 0).

Timing (:mod:`_harness`): ``warm_ms`` (CUDA events around the whole ``hp.sssp`` call, graph
already on the device, median of ``--repeat`` after the first call), ``wall_ms`` and
``first_ms`` (compilation, per-graph plan and CUDA-graph capture).  Every row is checked
against SciPy's Dijkstra (exact: integer weights) and, where predecessors were computed, every
predecessor must lie on a tight edge (``_harness.check_sssp``).  Exits 1 on a mismatch.

Usage::

    python benchmarks/bench_sssp.py [--json FILE] [--repeat 5] [--quick]
        [--graphs rmat21,grid] [--deltas 0.25,0.5,1,2,4,inf]
        [--baseline-repeat 1] [--no-baseline] [--unweighted] [--er DEG,...]
"""

from __future__ import annotations

import argparse
import math
import sys
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import hpgraph as hp  # noqa: E402
from _harness import Report, check_sssp, timed  # noqa: E402
from bench_algorithms import CupyBaselines, make_graphs  # noqa: E402
from hpgraph.algorithms import _sssp_nearfar as nf  # noqa: E402
from hpgraph.algorithms._sssp import _sssp_arrays, distance_dtype, tight_predecessors  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="R-MAT 10 / 64 x 64 grid smoke test")
    ap.add_argument("--graphs", default="rmat21,grid")
    ap.add_argument("--deltas", default="0.25,0.5,1,2,4,inf",
                    help="near-far bucket widths as multiples of the default (inf: no far pile)")
    ap.add_argument("--baseline-repeat", type=int, default=1)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--unweighted", action="store_true", help="also the unweighted grid")
    ap.add_argument("--er", default="", metavar="DEG[,DEG...]",
                    help="also Erdos-Renyi graphs, 2^21 vertices (2^10 --quick), these mean degrees")
    ap.add_argument("--alpha", default="", metavar="A[,A...]",
                    help="also time Bellman-Ford with these push_alpha values (direction heuristic)")
    args = ap.parse_args(argv)
    import scipy.sparse.csgraph as csg

    cp = hp.backend.cupy()
    report = Report("bench_sssp", graphs=args.graphs, repeat=args.repeat, quick=args.quick)
    gargs = types.SimpleNamespace(graphs=args.graphs, quick=args.quick)
    specs = make_graphs(gargs, True)
    if args.unweighted and "grid" in args.graphs:
        side = 64 if args.quick else 2048
        specs.append(("grid_unweighted", f"grid {side}x{side} unweighted",
                      hp.generators.grid_2d(side, side, backend="gpu"), 0))
    for deg in [float(x) for x in args.er.split(",") if x]:
        n_er = 1 << (10 if args.quick else 21)
        specs.append((f"er{deg:g}", f"Erdos-Renyi n={n_er:,} mean degree {deg:g}",
                      hp.generators.erdos_renyi(n_er, m=int(n_er * deg / 2), seed=1,
                                                weights=(1, 64), backend="gpu"), 0))

    for gname, label, G, src in specs:
        n = G.num_vertices
        dt = distance_dtype(G)
        d0 = nf.default_delta(G)
        A = G.to_host().to_scipy().tocsr()
        A.sort_indices()
        dref = csg.dijkstra(A, indices=src)
        print(f"[graph] {label}: n={n:,} edges={G.num_edges:,} source={src} "
              f"default delta={d0:.2f} dist={dt}", flush=True)

        def row(what, fn, **kw):
            r, res = timed(fn, args.repeat)
            pred = res.predecessor
            report.row(label, what, r, check=check_sssp(A, src, res.distance, pred, ref=dref),
                       predecessors=pred is not None, **kw)
            return res

        row("bellman-ford, no predecessors", lambda: hp.sssp(
            G, src, method="bellman-ford", predecessors=False, backend="gpu"))
        row("bellman-ford, with predecessors", lambda: hp.sssp(
            G, src, method="bellman-ford", backend="gpu"))
        for a in [float(x) for x in args.alpha.split(",") if x]:
            with hp.config.set(sssp_bf_push_alpha=a):
                row(f"bellman-ford, push_alpha={a:g}, no predecessors", lambda: hp.sssp(
                    G, src, method="bellman-ford", predecessors=False, backend="gpu"))
        # near-far, bucket widths
        for f in [x for x in args.deltas.split(",") if x]:
            delta = math.inf if f == "inf" else float(f) * d0
            info = {}
            _sssp_arrays(G, np.array([src]), "gpu", predecessors=False, method="near-far",
                         delta=delta, info=info)
            row(f"near-far delta={f} x default ({delta:.1f}), no predecessors",
                lambda: hp.sssp(G, src, method="near-far", delta=delta, predecessors=False,
                                backend="gpu"),
                impl=info.get("impl"), supersteps=info.get("supersteps"))
        row("near-far, with predecessors", lambda: hp.sssp(G, src, method="near-far",
                                                           backend="gpu"))
        row("auto, with predecessors", lambda: hp.sssp(G, src, backend="gpu"))
        # the predecessor pass alone (one kernel + the fallback check), from exact distances
        ref_d = cp.asarray(dref, dtype=dt)
        srcs = np.array([src])
        idt = np.dtype(np.int32)
        r, pred = timed(lambda: tight_predecessors(G, ref_d, srcs, "gpu", dt, idt), args.repeat)
        report.row(label, "predecessors pass alone (from exact distances)", r,
                   check=check_sssp(A, src, ref_d, pred, ref=dref))
        # plain CuPy warp-per-row Bellman-Ford (float32 distances)
        if not args.no_baseline and not gname.endswith("unweighted"):
            cb = CupyBaselines(G)
            r, bd = timed(lambda: cb.sssp(src), args.baseline_repeat)
            report.row(label, "plain CuPy Bellman-Ford (float32), no predecessors", r,
                       check=check_sssp(A, src, bd, ref=dref, rtol=1e-6))
        cp.get_default_memory_pool().free_all_blocks()
    return report.finish(args.json)


if __name__ == "__main__":
    sys.exit(main())
