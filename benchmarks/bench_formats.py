"""Build times of hpgraph's formats on the GPU next to cupyx's COO -> CSR on the same edges.

R-MAT scale 22, edge factor 16, undirected (duplicates and self-loops removed), int32 indices,
float32 values.  Times: median of 5 after one warm-up, with a device synchronize.

Usage: python benchmarks/bench_formats.py [--scale 22] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import hpgraph as hp
from hpgraph.formats import COO, CSR, HYB


def timed(fn, repeat=5):
    cp = hp.backend.cupy()
    fn()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    cp = hp.backend.cupy()
    import cupyx.scipy.sparse as cps

    G = hp.generators.rmat(args.scale, seed=1, backend="gpu")
    A = G.A
    n, nnz = A.nrows, A.nnz
    row = A.to_coo().row
    col, val = A.indices, cp.random.default_rng(1).random(nnz, dtype=cp.float32)
    perm = cp.random.RandomState(2).permutation(nnz)        # unsorted edges, as read from a file
    r, c, v = row[perm], col[perm], val[perm]
    coo = COO(r, c, v, shape=(n, n))
    rows = {}
    rows["cupyx coo_matrix -> tocsr()"] = timed(lambda: cps.coo_matrix((v, (r, c)), shape=(n, n)).tocsr())
    rows["hpgraph COO -> CSR"] = timed(lambda: CSR.from_coo(coo))
    csr = CSR.from_coo(coo)
    rows["hpgraph CSR -> HYB (K by the 1/3 rule)"] = timed(lambda: HYB.from_csr(csr))
    rows["hpgraph COO -> HYB"] = timed(lambda: HYB.from_coo(coo))
    h = HYB.from_csr(csr)
    print(f"R-MAT {args.scale}: {n:,} vertices, {nnz:,} entries; HYB K={h.K}, ELL fill {h.ell_fill:.2f}, "
          f"COO share {h.coo_share:.2f}")
    print("| step | ms |\n|---|---:|")
    for k, ms in rows.items():
        print(f"| {k} | {ms:.2f} |")
    if args.out:
        with open(f"{args.out}/formats.json", "w") as f:
            json.dump(dict(scale=args.scale, n=n, nnz=nnz, K=h.K, ell_fill=h.ell_fill,
                           coo_share=h.coo_share, ms=rows), f, indent=1)


if __name__ == "__main__":
    main()
