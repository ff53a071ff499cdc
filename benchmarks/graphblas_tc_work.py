"""Work model of triangle counting as a masked product, on the CPU (no timing).

Counts the intersection steps of the masked-dot kernels (``graphblas/_mdot_gpu.py``: a merge
costs ``ls + ll`` steps, a binary search of the shorter list in the longer one
``ls * log2(ll)`` when ``ll > 16 * ls``) for ``L .* (L @ L)`` with ``L = tril(A, -1)`` on the
generator's scrambled ids (each list clipped to ``j < k < i`` first, and unclipped), against
the same cost for the triangle kernel's degree-oriented lists (``hp.triangle_count``).

Usage::

    python benchmarks/graphblas_tc_work.py 16 18 20
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hpgraph as hp  # noqa: E402


def cost(a, b):
    ls, ll = np.minimum(a, b), np.maximum(a, b)
    lg = np.floor(np.log2(np.maximum(ll, 1))) + 1
    return np.where(ls > 0, np.where(ll > 16 * ls, ls * lg, ls + ll), 0)


def main(scales):
    for s in scales:
        G = hp.generators.rmat(s, edge_factor=16, seed=1, directed=False, backend="cpu")
        A = G.to_scipy().tocsr()
        A.setdiag(0)
        A.eliminate_zeros()
        A.sum_duplicates()
        n = A.shape[0]
        r = np.repeat(np.arange(n), np.diff(A.indptr))
        c = A.indices.astype(np.int64)

        def csr(keep):
            i, j = r[keep], c[keep]
            ptr = np.zeros(n + 1, np.int64)
            np.cumsum(np.bincount(i, minlength=n), out=ptr[1:])
            return i, j, i * n + j, ptr

        Li, Lj, keysL, Lptr = csr(c < r)          # L = tril(A, -1)
        _, _, keysU, Uptr = csr(c > r)            # L^T as CSR (= triu)
        la = Lptr[Li + 1] - np.searchsorted(keysL, Li * n + Lj + 1)   # row i of L, k > j
        lb = np.searchsorted(keysU, Lj * n + Li) - Uptr[Lj]           # column j of L, k < i
        clipped = cost(la, lb).sum()
        unclipped = cost(Lptr[Li + 1] - Lptr[Li], Uptr[Lj + 1] - Uptr[Lj]).sum()
        deg = np.diff(A.indptr)
        keep = (deg[r] < deg[c]) | ((deg[r] == deg[c]) & (r < c))
        out = np.bincount(r[keep], minlength=n)
        tc = cost(out[r[keep]], out[c[keep]]).sum()
        print(f"R-MAT {s}: mask entries {len(Li):,}; L .* (L @ L) steps {clipped:.3e} "
              f"(unclipped {unclipped:.3e}); degree-oriented (triangle kernel) {tc:.3e}; "
              f"ratio {clipped / tc:.2f}", flush=True)


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [16])
