"""Record the CuPy kernels of hpgraph's fixed set and compile them into the manifest that
:mod:`hpgraph.precompile` ships (``hpgraph/data/kernels-cupy<version>.json.gz``).  Run on a GPU
machine:

    python benchmarks/record_kernels.py [--scales 16,20] [--archs 80,90] [--out DIR]

The process starts with empty CuPy and hpgraph kernel caches (temporary directories) and
``hp.config["precompile"]`` off, runs the ``hpgraph warmup`` workload (the demo's R-MAT graph,
its summary, BFS, SSSP, PageRank, triangle counting, connected components) at each scale (some
CuPy kernels depend on the graph's size), compiles every kernel CuPy compiled or loaded for
each GPU architecture of ``--archs`` and writes them, in first-use order.  Record again after a
CuPy upgrade (the manifest is tied to the CuPy version) or when the workload's kernels change.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

# empty caches for this process, set before CuPy is imported (it picks its directory then)
_TMP = tempfile.mkdtemp(prefix="hpgraph-record-")
os.environ["CUPY_CACHE_DIR"] = os.path.join(_TMP, "cupy")
os.environ["HPGRAPH_KERNEL_CACHE"] = os.path.join(_TMP, "hpgraph")  # its own modules too
os.environ["HPGRAPH_PRECOMPILE"] = "0"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", default="16,20", help="R-MAT scales to run (default 16,20)")
    ap.add_argument("--archs", default="80,90",
                    help="compute capabilities to ship cubins for (default 80,90)")
    ap.add_argument("--out", default=None,
                    help="directory of the manifest (default: the package's hpgraph/data)")
    args = ap.parse_args(argv)
    from cupy.cuda import compiler

    from hpgraph import precompile
    from hpgraph.cli.warmup import warmup

    arch = compiler._get_arch()
    t0 = time.perf_counter()
    try:
        with precompile.record(arch) as entries:
            for scale in (int(s) for s in args.scales.split(",")):
                report = warmup(scale=scale)
                print(f"scale {scale}: " + ", ".join(f"{k} {v:.2f} s"
                                                     for k, v in report["steps"].items()))
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
        shutil.rmtree(_TMP, ignore_errors=True)
    print(f"{len(entries)} CuPy kernels recorded and compiled in "
          f"{time.perf_counter() - t0:.1f} s on sm_{arch}: {path} "
          f"({os.path.getsize(path) / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
