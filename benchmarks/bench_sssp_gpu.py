"""Benchmark: the single-launch near-far SSSP kernel (``_sssp_gpu``) against the step kernel
(``_sssp_nearfar``, one launch per step) and the engine's Bellman-Ford, on the GPU.

Graphs: those of ``bench_algorithms.py`` (R-MAT 21 undirected, source = highest degree; the
2048 x 2048 grid, source 0; integer weights 1..64, float64 distances).  Timing: CUDA events
around the whole ``hp.sssp`` call, one warm-up call, median of ``--repeat``.  Every result's
distances are compared with Bellman-Ford's (exact: integer weights).  Also: bucket widths
(multiples of the default delta), launch shapes, with and without predecessors, and the
kernel's per-step timeline.

Usage::

    python benchmarks/bench_sssp_gpu.py [--out DIR] [--repeat 7] [--graphs rmat21,grid]
        [--deltas 0.125,0.25,0.5,1,2,inf] [--shapes 256x1,512x1,1024x1,512x2]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import hpgraph as hp  # noqa: E402
from bench_algorithms import gpu_samples, make_graphs  # noqa: E402
from hpgraph.algorithms import _sssp, _sssp_gpu  # noqa: E402
from hpgraph.algorithms import _sssp_nearfar as nf  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--graphs", default="rmat21,grid")
    ap.add_argument("--deltas", default="0.125,0.25,0.5,1,2,inf")
    ap.add_argument("--shapes", default="256x1,512x1,1024x1,512x2")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    import cupy as cp

    rows = []
    for name, label, G, src in make_graphs(args, True):
        m = int(G.num_edges)
        d0 = nf.default_delta(G)
        ref = hp.sssp(G, src, method="bellman-ford", predecessors=False).distance

        def timed(what, fn, **kw):
            times, res = gpu_samples(fn, args.repeat)
            ms = statistics.median(times)
            ok = bool(cp.array_equal(res.distance, ref))
            rows.append(dict(graph=label, what=what, ms=ms, min_ms=min(times), gteps=m / ms / 1e6,
                             ok=ok, **kw))
            print(f"  {label:14s} {what:44s} {ms:8.3f} ms (min {min(times):.3f})  "
                  f"{'ok' if ok else 'MISMATCH'}", flush=True)

        timed("engine bellman-ford, no pred",
              lambda: hp.sssp(G, src, method="bellman-ford", predecessors=False))
        timed("engine bellman-ford, pred", lambda: hp.sssp(G, src, method="bellman-ford"))
        for impl in ("steps", "kernel"):
            _sssp.GPU_NEARFAR = impl
            deltas = args.deltas.split(",") if impl == "kernel" else ["1"]
            for f in deltas:
                delta = math.inf if f == "inf" else float(f) * d0
                timed(f"near-far {impl}, delta {f} x default, no pred",
                      lambda: hp.sssp(G, src, method="near-far", delta=delta, predecessors=False),
                      impl=impl, delta=delta)
            timed(f"near-far {impl}, default delta, pred",
                  lambda: hp.sssp(G, src, method="near-far"), impl=impl)
        _sssp.GPU_NEARFAR = "kernel"
        for sh in [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",") if s]:
            _sssp_gpu.SHAPE = sh
            timed(f"near-far kernel {sh[0]}x{sh[1]}, pred", lambda: hp.sssp(G, src, method="near-far"),
                  shape=f"{sh[0]}x{sh[1]}")
        _sssp_gpu.SHAPE = None
        _sssp.GPU_NEARFAR = "auto"
        timed("auto (default), pred", lambda: hp.sssp(G, src))
        _sssp.GPU_NEARFAR = "kernel"
        _sssp_gpu.PROFILE = True
        hp.sssp(G, src, method="near-far")
        prof = _sssp_gpu._plan(G, _sssp.distance_dtype(G), np.int32).profile()
        _sssp_gpu.PROFILE = False
        _sssp.GPU_NEARFAR = "auto"
        rows.append(dict(graph=label, what="kernel profile", **prof))
        print(f"  {label:14s} profile: setup {prof['setup_us']:.1f} us, steps {prof['steps_us']:.1f} us, "
              f"pred {prof['pred_us']:.1f} us, {prof['compactions']} compactions; first (us/queue/pending): "
              + ", ".join(f"{t}/{q}/{p}" for t, q, p in
                          list(zip(prof["step_us"], prof["queue"], prof["pending"]))[:14]), flush=True)
        cp.get_default_memory_pool().free_all_blocks()
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "sssp_gpu.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
