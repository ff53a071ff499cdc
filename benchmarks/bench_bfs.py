"""Benchmark: BFS on the GPU -- the cooperative single-launch kernel (``_bfs_gpu``) against the
engine's vertex program (``hp.config["bfs_gpu_path"] = "engine"``) and the plain-CuPy level-synchronous BFS.

Graphs: those of ``bench_algorithms.py`` (R-MAT 21/22 undirected, source = highest degree;
the 2048 x 2048 grid, source 0).  Timing (:mod:`_harness`): ``warm_ms`` (CUDA events around the
whole ``hp.bfs`` call, graph on the device, median of ``--repeat`` after the first call),
``wall_ms`` (host time of the same calls, synchronized) and ``first_ms``.  Also: a sweep of
launch shapes (threads per block x blocks per SM) and a per-level timeline of the kernel.

Every row is checked against SciPy (``csgraph.shortest_path``, unweighted): the depths exactly,
and every reached vertex's parent must be an in-neighbour one level up (``_harness.check_bfs``);
the plain-CuPy baseline's depths likewise.  Exits 1 on a mismatch.

Usage::

    python benchmarks/bench_bfs.py [--out DIR] [--repeat 9] [--graphs rmat21,rmat22,grid]
        [--shapes 256x1,256x2,1024x1] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import hpgraph as hp  # noqa: E402
from _harness import Report, check_bfs, timed  # noqa: E402
from bench_algorithms import CupyBaselines, make_graphs  # noqa: E402
from hpgraph.algorithms import _bfs_gpu  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--graphs", default="rmat21,rmat22,grid")
    ap.add_argument("--shapes", default="256x1,256x2,256x4,512x1,512x2,1024x1",
                    help="threads per block x blocks per SM of the cooperative launch to sweep")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    import cupy as cp
    import scipy.sparse.csgraph as csg

    report = Report("bench_bfs", graphs=args.graphs, repeat=args.repeat, quick=args.quick)
    shapes = [tuple(int(x) for x in sh.split("x")) for sh in args.shapes.split(",") if sh]
    for name, label, G, src in make_graphs(args, True):
        m = int(G.num_edges)
        A = G.to_host().to_scipy().tocsr()
        A.sort_indices()
        hops = csg.shortest_path(A, indices=src, unweighted=True)

        cases = [("engine", "auto", None)] + [("kernel", d, None) for d in ("auto", "push", "pull")]
        cases += [("kernel", "auto", sh) for sh in shapes]
        for path, direction, shape in cases:
            if name == "grid" and direction == "pull":
                continue       # 4,095 bottom-up levels over 4M vertices: seconds, not informative
            with hp.config.set(bfs_gpu_shape=shape, bfs_gpu_path=path):
                row, res = timed(lambda: hp.bfs(G, src, direction=direction), args.repeat)
                sh = _bfs_gpu.launch_shape(G.num_vertices, G.A.nnz) if path == "kernel" else None
            report.row(label, f"hp.bfs {path} {direction}" + (f" {sh[0]}x{sh[1]}" if sh else ""),
                       row, check=check_bfs(A, src, res.depth, res.parent, hops=hops),
                       path=path, direction=direction, shape=f"{sh[0]}x{sh[1]}" if sh else None,
                       gteps=m / row["warm_ms"] / 1e6)
        with hp.config.set(bfs_gpu_profile=True):
            hp.bfs(G, src)
        prof = _bfs_gpu._plan(G, np.int32).profile()
        report.meta.setdefault("kernel_profiles", {})[label] = prof
        lv = prof["level_us"]
        print(f"  {label:14s} profile: setup {prof['setup_us']:.1f} us, sources {prof['sources_us']:.1f} us, "
              f"kernel {prof['total_us']:.1f} us, {prof['levels']} levels; first levels (us, frontier, pull): "
              + ", ".join(f"{t}/{f}/{'L' if p else 'P'}" for t, f, p in
                          list(zip(lv, prof["frontier"], prof["pull"]))[:10]), flush=True)
        cb = CupyBaselines(G)
        row, depth = timed(lambda: cb.bfs(src), max(3, args.repeat // 3))
        report.row(label, "plain CuPy BFS (push, depths)", row,
                   check=check_bfs(A, src, depth, hops=hops), gteps=m / row["warm_ms"] / 1e6)

        cp.get_default_memory_pool().free_all_blocks()
    return report.finish(args.json)


if __name__ == "__main__":
    sys.exit(main())
