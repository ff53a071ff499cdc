"""Benchmark: BFS on the GPU -- the cooperative single-launch kernel (``_bfs_gpu``) against the
engine's vertex program (``GPU_PATH="engine"``) and the plain-CuPy level-synchronous BFS.

Graphs: those of ``bench_algorithms.py`` (R-MAT 21/22 undirected, source = highest degree;
the 2048 x 2048 grid, source 0).  Timing: CUDA events around the whole ``hp.bfs`` call (graph on
the device), one warm-up call, median of ``--repeat``.  Also: the host time of one call (the
kernel path returns before the traversal ends), a sweep of launch shapes (threads per block x
blocks per SM), a per-level timeline of the kernel, and the
depths of every variant checked against the engine's.

Usage::

    python benchmarks/bench_bfs.py [--out DIR] [--repeat 9] [--graphs rmat21,rmat22,grid]
        [--shapes 256x1,256x2,1024x1] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import hpgraph as hp  # noqa: E402
from bench_algorithms import CupyBaselines, gpu_samples, make_graphs  # noqa: E402
from hpgraph.algorithms import _bfs, _bfs_gpu  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--graphs", default="rmat21,rmat22,grid")
    ap.add_argument("--shapes", default="256x1,256x2,256x4,512x1,512x2,1024x1",
                    help="threads per block x blocks per SM of the cooperative launch to sweep")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    import cupy as cp

    shapes = [tuple(int(x) for x in sh.split("x")) for sh in args.shapes.split(",") if sh]
    rows = []
    for name, label, G, src in make_graphs(args, True):
        m = int(G.num_edges)

        def run(path, direction="auto"):
            _bfs.GPU_PATH = path
            return hp.bfs(G, src, direction=direction)

        ref = cp.asnumpy(run("engine").depth)
        cases = [("engine", "auto", None)] + [("kernel", d, None) for d in ("auto", "push", "pull")]
        cases += [("kernel", "auto", sh) for sh in shapes]
        for path, direction, shape in cases:
            _bfs_gpu.SHAPE = shape
            if name == "grid" and direction == "pull":
                continue       # 4,095 bottom-up levels over 4M vertices: seconds, not informative
            times, res = gpu_samples(lambda: run(path, direction), args.repeat)
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            run(path, direction)
            host_us = (time.perf_counter() - t0) * 1e6
            cp.cuda.Device().synchronize()
            ok = bool(np.array_equal(cp.asnumpy(res.depth), ref))
            ms = statistics.median(times)
            sh = _bfs_gpu.launch_shape(G.num_vertices, G.A.nnz) if path == "kernel" else None
            row = dict(graph=label, path=path, direction=direction,
                       shape=f"{sh[0]}x{sh[1]}" if sh else None,
                       ms=ms, min_ms=min(times), gteps=m / ms / 1e6, host_us=host_us, ok=ok)
            rows.append(row)
            print(f"  {label:14s} {path:6s} {direction:5s} shape={row['shape']} "
                  f"{ms:8.3f} ms (min {min(times):.3f})  {row['gteps']:6.1f} GTEPS  "
                  f"host {host_us:7.1f} us  {'ok' if ok else 'MISMATCH'}", flush=True)
        _bfs_gpu.SHAPE = None
        _bfs_gpu.PROFILE = True
        run("kernel")
        prof = _bfs_gpu._plan(G, np.int32).profile()
        _bfs_gpu.PROFILE = False
        rows.append(dict(graph=label, path="kernel profile", **prof))
        lv = prof["level_us"]
        print(f"  {label:14s} profile: setup {prof['setup_us']:.1f} us, sources {prof['sources_us']:.1f} us, "
              f"kernel {prof['total_us']:.1f} us, {prof['levels']} levels; first levels (us, frontier, pull): "
              + ", ".join(f"{t}/{f}/{'L' if p else 'P'}" for t, f, p in
                          list(zip(lv, prof["frontier"], prof["pull"]))[:10]), flush=True)
        _bfs.GPU_PATH = "kernel"
        cb = CupyBaselines(G)
        times, _ = gpu_samples(lambda: cb.bfs(src), max(3, args.repeat // 3))
        rows.append(dict(graph=label, path="plain cupy", direction="push", ms=statistics.median(times),
                         gteps=m / statistics.median(times) / 1e6, ok=True))
        print(f"  {label:14s} plain CuPy BFS {statistics.median(times):8.3f} ms", flush=True)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "bfs.json").write_text(json.dumps(rows, indent=1))
        lines = ["| graph | path | direction | block x per SM | ms | GTEPS | host us | check |",
                 "|---|---|---|---:|---:|---:|---:|---|"]
        for r in rows:
            if "ms" not in r:
                continue
            lines.append(f"| {r['graph']} | {r['path']} | {r['direction']} | {r.get('shape') or ''} "
                         f"| {r['ms']:.3f} | {r['gteps']:.1f} | {r.get('host_us', 0):.0f} | "
                         f"{'ok' if r['ok'] else 'MISMATCH'} |")
        (out / "bfs.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
