"""Build times of hpgraph's formats on the GPU next to cupyx's COO -> CSR on the same edges.

R-MAT scale 22, edge factor 16, undirected (duplicates and self-loops removed), int32 indices,
float32 values, the edges shuffled (as read from a file).  Times (:mod:`_harness`): warm (CUDA
events, median after the first call), wall and first call.  Checks: hpgraph's CSR equals
cupyx's (structure and values, duplicates summed), and each HYB converts back to that CSR.
Exits 1 on a mismatch.

Usage: python benchmarks/bench_formats.py [--scale 22] [--repeat 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import hpgraph as hp  # noqa: E402
from _harness import Report, timed  # noqa: E402
from hpgraph.formats import COO, CSR, HYB  # noqa: E402


def same_csr(a, b):
    """``"ok"`` when two CSR matrices (hpgraph or cupyx) hold the same entries."""
    cp = hp.backend.cupy()
    a = a if hasattr(a, "has_canonical_format") else a.to_cupyx()
    b = b if hasattr(b, "has_canonical_format") else b.to_cupyx()
    a, b = a.copy(), b.copy()
    for m in (a, b):
        m.sum_duplicates()
        m.sort_indices()
    ok = (a.shape == b.shape and bool(cp.array_equal(a.indptr, b.indptr))
          and bool(cp.array_equal(a.indices, b.indices))
          and bool(cp.allclose(a.data, b.data, rtol=1e-6)))
    return "ok" if ok else "MISMATCH CSR entries differ"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    cp = hp.backend.cupy()
    import cupyx.scipy.sparse as cps

    report = Report("bench_formats", scale=args.scale, repeat=args.repeat)
    G = hp.generators.rmat(args.scale, seed=1, backend="gpu")
    A = G.A
    n, nnz = A.nrows, A.nnz
    row = A.to_coo().row
    col, val = A.indices, cp.random.default_rng(1).random(nnz, dtype=cp.float32)
    perm = cp.random.RandomState(2).permutation(nnz)        # unsorted edges, as read from a file
    r, c, v = row[perm], col[perm], val[perm]
    coo = COO(r, c, v, shape=(n, n))
    label = f"R-MAT {args.scale}"
    t, ref = timed(lambda: cps.coo_matrix((v, (r, c)), shape=(n, n)).tocsr(), args.repeat)
    report.row(label, "cupyx coo_matrix -> tocsr()", t, check="ok")
    t, csr = timed(lambda: CSR.from_coo(coo), args.repeat)
    report.row(label, "hpgraph COO -> CSR", t, check=same_csr(csr, ref))
    t, h = timed(lambda: HYB.from_csr(csr), args.repeat)
    report.row(label, "hpgraph CSR -> HYB (K by the 1/3 rule)", t,
               check=same_csr(h.to_csr(), ref), K=h.K, ell_fill=h.ell_fill,
               coo_share=h.coo_share)
    t, h2 = timed(lambda: HYB.from_coo(coo), args.repeat)
    report.row(label, "hpgraph COO -> HYB", t, check=same_csr(h2.to_csr(), ref))
    print(f"{label}: {n:,} vertices, {nnz:,} entries; HYB K={h.K}, ELL fill {h.ell_fill:.2f}, "
          f"COO share {h.coo_share:.2f}")
    return report.finish(args.json)


if __name__ == "__main__":
    sys.exit(main())
