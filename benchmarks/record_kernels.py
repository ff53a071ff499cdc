"""Record the CuPy kernels of hpgraph's fixed set and compile them into the manifest that
:mod:`hpgraph.precompile` ships (``hpgraph/data/kernels-cupy<version>.json.gz``).  Run on a GPU
machine:

    python benchmarks/record_kernels.py [--scales 16,20] [--archs 80,90] [--out DIR]

The process starts with empty CuPy and hpgraph kernel caches (temporary directories) and
``hp.config["precompile"]`` off, runs the ``hpgraph warmup`` workload (the demo's R-MAT graph,
its summary, BFS, SSSP, PageRank, triangle counting, connected components) at each scale (some
CuPy kernels depend on the graph's size), then the same algorithms on a weighted grid and on
the command line's unweighted ``grid:RxC`` (sparse graphs take the engine's vertex programs,
whose modules include the device loop's), compiles
every kernel CuPy compiled or loaded and every module hpgraph compiled for each GPU
architecture of ``--archs`` and writes them, in first-use order.  Record again after a
CuPy upgrade (the manifest is tied to the CuPy version) or when the workload's kernels change.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", default="16,20", help="R-MAT scales to run (default 16,20)")
    ap.add_argument("--grid", type=int, default=256,
                    help="side of the grid the algorithms also run on (default 256; 0: none)")
    ap.add_argument("--archs", default="80,90",
                    help="compute capabilities to ship cubins for (default 80,90)")
    ap.add_argument("--out", default=None,
                    help="directory of the manifest (default: the package's hpgraph/data)")
    args = ap.parse_args(argv)
    # empty caches for this process, set before CuPy is imported (it picks its directory then)
    tmp = tempfile.mkdtemp(prefix="hpgraph-record-")
    os.environ["CUPY_CACHE_DIR"] = os.path.join(tmp, "cupy")
    os.environ["HPGRAPH_KERNEL_CACHE"] = os.path.join(tmp, "hpgraph")  # its own modules too
    os.environ["HPGRAPH_PRECOMPILE"] = "0"
    from cupy.cuda import compiler

    import hpgraph as hp
    from hpgraph import kernel_cache, precompile
    from hpgraph.cli import _algorithms, _graphs
    from hpgraph.cli.warmup import WARMUP_ALGORITHMS, warmup

    arch = compiler._get_arch()
    t0 = time.perf_counter()
    try:
        with precompile.record(arch) as entries:
            for scale in (int(s) for s in args.scales.split(",")):
                report = warmup(scale=scale)
                print(f"scale {scale}: " + ", ".join(f"{k} {v:.2f} s"
                                                     for k, v in report["steps"].items()))
            if args.grid:
                side = args.grid
                # weighted, and as the command line builds `grid:RxC` (unweighted)
                grids = {"weighted": hp.grid_2d(side, side, weights=(1, 64), seed=1,
                                                backend="gpu"),
                         "unweighted": _graphs.load_graph(f"grid:{side}x{side}",
                                                          backend="gpu").graph}
                for what, G in grids.items():
                    for name in WARMUP_ALGORITHMS:
                        t1 = time.perf_counter()
                        alg = _algorithms.ALGORITHMS[name]
                        source = _algorithms.default_source(G) if alg.source else None
                        _algorithms.run_algorithm(name, G, source, "gpu")
                        kernel_cache.wait()   # modules compiled in the background: the loop's
                        print(f"{what} grid {side}: {name} {time.perf_counter() - t1:.2f} s")
        cubins = {}
        for a in (s.strip() for s in args.archs.split(",")):
            t1 = time.perf_counter()
            cubins[a] = precompile.build_cubins(entries, a)
            print(f"sm_{a}: {sum(c is not None for c in cubins[a])} of {len(entries)} cubins, "
                  f"{sum(len(c) for c in cubins[a] if c) / 1024:.0f} KiB, "
                  f"{time.perf_counter() - t1:.1f} s")
        out = precompile.manifest_path()
        if args.out is not None:
            out = os.path.join(args.out, out.name)
        path = precompile.write_manifest(entries, cubins, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    kinds = {k: sum(e["kind"] == k for e in entries) for k in ("cupy", "hpgraph")}
    print(f"{kinds['cupy']} CuPy kernels and {kinds['hpgraph']} hpgraph modules recorded and "
          f"compiled in "
          f"{time.perf_counter() - t0:.1f} s on sm_{arch}: {path} "
          f"({os.path.getsize(path) / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
