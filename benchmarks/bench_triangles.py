"""Tuning sweep for GPU triangle counting (``hpgraph/algorithms/_kernels.py``).

Times ``hp.triangle_count`` on R-MAT graphs (undirected, edge factor 16, the graphs of
``bench_algorithms.py``) for every combination of the kernel's tuning constants:

* ``TC_HEAVY``: edges whose two out-lists hold more entries than this go to the warp-per-edge
  kernel;
* ``TC_SEARCH_RATIO``: binary search instead of a merge when the longer list is more than this
  many times the shorter one;
* ``TC_BLOCK``: threads per block.

CUDA events after one warm-up call, medians of ``--repeat``; every configuration must return
the same count.  Usage (on a GPU)::

    python3 benchmarks/bench_triangles.py --scales 21 --out results/
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import hpgraph as hp  # noqa: E402
from hpgraph.algorithms import _kernels  # noqa: E402
from bench_algorithms import time_gpu  # noqa: E402  (CUDA events, median after warm-up)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="21")
    ap.add_argument("--heavy", default="64,128,256,512,1024")
    ap.add_argument("--ratio", default="4,8,16,32")
    ap.add_argument("--block", default="128,256")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rows = []
    for scale in (int(s) for s in args.scales.split(",")):
        G = hp.generators.rmat(scale, edge_factor=16, seed=1, directed=False, weights=(1, 64),
                               backend="gpu")
        ref = None
        for heavy, ratio, block in itertools.product(
                (int(x) for x in args.heavy.split(",")), (int(x) for x in args.ratio.split(",")),
                (int(x) for x in args.block.split(","))):
            _kernels.TC_HEAVY, _kernels.TC_SEARCH_RATIO, _kernels.TC_BLOCK = heavy, ratio, block
            ms, t = time_gpu(lambda: hp.triangle_count(G), args.repeat)
            if ref is None:
                ref = t
            ok = t == ref
            rows.append({"scale": scale, "heavy": heavy, "ratio": ratio, "block": block,
                         "ms": ms, "triangles": t, "ok": ok})
            print(f"R-MAT {scale} heavy={heavy:5d} ratio={ratio:3d} block={block:4d} "
                  f"{ms:9.3f} ms  {t:,}{'' if ok else '  MISMATCH'}", flush=True)
        best = min((r for r in rows if r["scale"] == scale), key=lambda r: r["ms"])
        print(f"best on R-MAT {scale}: {best}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "triangles_sweep.json"), "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
