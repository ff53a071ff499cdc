"""Benchmark: SSSP methods on the GPU -- near-far (several bucket widths) vs the engine's
Bellman-Ford, with and without predecessors, and the plain-CuPy Bellman-Ford baseline.

Graphs: the ones of ``bench_algorithms.py`` (imported, not copied): R-MAT 21 undirected and
the 2048 x 2048 grid, integer weights 1..64 (float64 distances), seed 1; R-MAT source = the
vertex of highest degree, grid source = 0 (a corner).  Also the unweighted grid (``--unweighted``)
and an Erdos-Renyi graph of a given mean degree (``--er DEG,...``, source 0).

Timing: CUDA events around the whole ``hp.sssp`` call (graph already on the device), one
warm-up call (compilation, per-graph plan and CUDA-graph capture), median of ``--repeat``.
Every near-far result is checked against Bellman-Ford's distances (exact: integer weights).

Usage::

    python benchmarks/bench_sssp.py [--out DIR] [--repeat 5] [--quick]
        [--graphs rmat21,grid] [--deltas 0.25,0.5,1,2,4,inf] [--blocks 2,4,8]
        [--baseline-repeat 1] [--no-baseline] [--unweighted] [--er DEG,...]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import hpgraph as hp  # noqa: E402
from bench_algorithms import CupyBaselines, gpu_samples, make_graphs  # noqa: E402
from hpgraph.algorithms import _sssp_nearfar as nf  # noqa: E402
from hpgraph.algorithms._sssp import _sssp_arrays, distance_dtype, tight_predecessors  # noqa: E402


def time_gpu(fn, repeat):
    """(median ms, all ms, last result): CUDA events after one warm-up call."""
    times, out = gpu_samples(fn, repeat)
    return statistics.median(times), times, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="R-MAT 10 / 64 x 64 grid smoke test")
    ap.add_argument("--graphs", default="rmat21,grid")
    ap.add_argument("--deltas", default="0.25,0.5,1,2,4,inf",
                    help="near-far bucket widths as multiples of the default (inf: no far pile)")
    ap.add_argument("--blocks", default="2,4,8", help="STEP_BLOCKS_PER_SM values (default delta)")
    ap.add_argument("--baseline-repeat", type=int, default=1)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--unweighted", action="store_true", help="also the unweighted grid")
    ap.add_argument("--er", default="", metavar="DEG[,DEG...]",
                    help="also Erdos-Renyi graphs, 2^21 vertices (2^10 --quick), these mean degrees")
    ap.add_argument("--alpha", default="", metavar="A[,A...]",
                    help="also time Bellman-Ford with these push_alpha values (direction heuristic)")
    args = ap.parse_args(argv)
    cp = hp.backend.cupy()
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"[device] {dev}", flush=True)
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
    rows = []

    def row(graph, what, ms, times=None, **kw):
        r = {"graph": graph, "what": what, "ms": ms, "times_ms": times, **kw}
        rows.append(r)
        extra = "  ".join(f"{k}={v}" for k, v in kw.items() if v is not None)
        print(f"  {graph:16s} {what:42s} {ms:10.3f} ms  {extra}", flush=True)

    for gname, label, G, src in specs:
        n = G.num_vertices
        dt = distance_dtype(G)
        d0 = nf.default_delta(G)
        print(f"[graph] {label}: n={n:,} edges={G.num_edges:,} source={src} "
              f"default delta={d0:.2f} dist={dt}", flush=True)
        # Bellman-Ford (engine), reference distances
        ms, ts, ref = time_gpu(lambda: hp.sssp(G, src, method="bellman-ford", predecessors=False,
                                               backend="gpu"), args.repeat)
        row(gname, "bellman-ford, no predecessors", ms, ts)
        ref_d = ref.distance
        ms, ts, _ = time_gpu(lambda: hp.sssp(G, src, method="bellman-ford", backend="gpu"),
                             args.repeat)
        row(gname, "bellman-ford, with predecessors", ms, ts)
        from hpgraph.algorithms import _sssp as sssp_mod
        for a in [float(x) for x in args.alpha.split(",") if x]:
            sssp_mod.BF_PUSH_ALPHA = a
            try:
                ms, ts, res = time_gpu(lambda: hp.sssp(G, src, method="bellman-ford",
                                                       predecessors=False, backend="gpu"),
                                       args.repeat)
            finally:
                sssp_mod.BF_PUSH_ALPHA = None
            same = bool(cp.array_equal(res.distance, ref_d))
            row(gname, f"bellman-ford, push_alpha={a:g}", ms, ts, same=same)
        # near-far, bucket widths
        for f in [x for x in args.deltas.split(",") if x]:
            delta = math.inf if f == "inf" else float(f) * d0

            def call(delta=delta):
                return hp.sssp(G, src, method="near-far", delta=delta, predecessors=False,
                               backend="gpu")
            ms, ts, res = time_gpu(call, args.repeat)
            info = {}
            _sssp_arrays(G, np.array([src]), "gpu", predecessors=False, method="near-far",
                         delta=delta, info=info)
            diff = float(cp.max(cp.abs(cp.where(cp.isinf(ref_d), 0, res.distance - ref_d))))
            same_inf = bool((cp.isinf(res.distance) == cp.isinf(ref_d)).all())
            row(gname, f"near-far delta={f} x default ({delta:.1f})", ms, ts,
                relax_steps=info["relax_steps"], splits=info["splits"], launches=info["launches"],
                syncs=info["syncs"], max_queue=info["max_queue"], group=info["group"],
                heavy=info["heavy"], check="ok" if (diff == 0 and same_inf) else f"DIFF {diff}")
        ms, ts, res = time_gpu(lambda: hp.sssp(G, src, method="near-far", backend="gpu"),
                               args.repeat)
        row(gname, "near-far, with predecessors", ms, ts)
        ms, ts, res = time_gpu(lambda: hp.sssp(G, src, backend="gpu"), args.repeat)
        row(gname, "auto, with predecessors", ms, ts)
        # the predecessor pass alone (one kernel + the fallback check)
        srcs = np.array([src])
        idt = np.dtype(np.int32)
        ms, ts, pred = time_gpu(lambda: tight_predecessors(G, ref_d, srcs, "gpu", dt, idt),
                                args.repeat)
        row(gname, "predecessors pass alone", ms, ts)
        # step-kernel grid size
        keep = nf.STEP_BLOCKS_PER_SM
        for b in [int(x) for x in args.blocks.split(",") if x]:
            nf.STEP_BLOCKS_PER_SM = b
            ms, ts, res = time_gpu(lambda: hp.sssp(G, src, method="near-far", predecessors=False,
                                                   backend="gpu"), args.repeat)
            ok = bool((cp.where(cp.isinf(ref_d), cp.isinf(res.distance),
                                res.distance == ref_d)).all())
            row(gname, f"near-far default delta, {b} blocks/SM", ms, ts,
                check="ok" if ok else "DIFF")
        nf.STEP_BLOCKS_PER_SM = keep
        # plain CuPy warp-per-row Bellman-Ford
        if not args.no_baseline and not gname.endswith("unweighted"):
            cb = CupyBaselines(G)
            ms, ts, bd = time_gpu(lambda: cb.sssp(src), args.baseline_repeat)
            diff = float(cp.max(cp.abs(cp.where(cp.isinf(ref_d), 0, bd.astype(cp.float64) - ref_d))))
            row(gname, "plain CuPy Bellman-Ford (float32)", ms, ts, check=f"maxdiff {diff}")
            del cb
        cp.get_default_memory_pool().free_all_blocks()

    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "sssp.json").write_text(json.dumps({
            "device": dev, "repeat": args.repeat, "quick": args.quick,
            "date": time.strftime("%Y-%m-%d %H:%M:%S"), "rows": rows}, indent=1))
        print(f"[out] {out / 'sssp.json'}")


if __name__ == "__main__":
    main()
