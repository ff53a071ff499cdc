"""Benchmark: GPU triangle counting, the hash kernels against the per-edge merge kernel.

Rows per graph (R-MAT 21 undirected, edge factor 16, seed 1; the 2048 x 2048 grid), for each
``hp.config["triangle_kernel"]`` ("hash": a warp or block per vertex with a shared-memory hash
table, :mod:`hpgraph.algorithms._tc_hash`; "merge": a thread or warp per edge,
:mod:`hpgraph.algorithms._kernels`):

* ``prep_ms``: the preprocessing both share (simple graph, degree orientation) plus the
  kernel's own (hash: rank-sorted lists, in-edge lists, vertex lists by work; merge: heavy
  edge ids), timed once on an empty cache;
* ``auto_picks``: the kernel the default ``"auto"`` takes for the graph;
* ``warm_ms`` / ``wall_ms`` / ``first_ms`` of ``hp.triangle_count`` (:mod:`_harness`; the first
  call starts from an empty cache, so it includes preprocessing and compilation).

Every count is checked against a plain-CuPy oracle written here: its own degree orientation,
then every pair ``v < w`` of every out-list looked up among the sorted edge keys
(``cupy.searchsorted``), in chunks -- no hpgraph code.  Exits 1 on a mismatch.  ``--sweep``
adds the merge kernel's tuning sweep (``hp.config["triangle_merge_heavy"]`` x ``TC_SEARCH_RATIO`` x
``TC_BLOCK``).

Usage (on a GPU)::

    python benchmarks/bench_triangles.py [--graphs rmat21,grid] [--repeat 7] [--quick]
        [--sweep] [--json results/triangles.json]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _harness import Report, timed, timed_once  # noqa: E402
from bench_algorithms import make_graphs  # noqa: E402

import hpgraph as hp  # noqa: E402
from hpgraph.algorithms import _kernels, _triangles  # noqa: E402

KERNELS = ("merge", "hash")


def oracle_count(G, chunk=1 << 27):
    """Triangles of ``G`` by wedge enumeration in plain CuPy (NumPy for a host graph)."""
    xp = hp.backend.get_array_module(G.A.indices)
    n = G.num_vertices
    A = G.A
    nnz = int(A.indices.shape[0])
    r = xp.searchsorted(A.indptr[1:], xp.arange(nnz), side="right").astype(xp.int64)
    c = A.indices.astype(xp.int64)
    keep = r != c
    key = xp.unique(xp.minimum(r, c)[keep] * n + xp.maximum(r, c)[keep])   # undirected, simple
    a, b = key // n, key % n
    deg = xp.bincount(a, minlength=n) + xp.bincount(b, minlength=n)
    fwd = (deg[a] < deg[b]) | ((deg[a] == deg[b]) & (a < b))
    okey = xp.sort(xp.where(fwd, a, b) * n + xp.where(fwd, b, a))   # oriented, by (u, v)
    u, v = okey // n, okey % n
    m = int(okey.shape[0])
    if m == 0:
        return 0
    rowend = xp.searchsorted(u, u, side="right")
    cnt = rowend - xp.arange(m, dtype=xp.int64) - 1       # pairs (e, e') with e < e' in a row
    cum = xp.cumsum(cnt)
    total_pairs = int(cum[-1])
    total, e0, done = 0, 0, 0
    while done < total_pairs:
        e1 = max(int(xp.searchsorted(cum, done + chunk, side="right")), e0 + 1)
        top = int(cum[e1 - 1])
        k = xp.arange(done, top, dtype=xp.int64)
        e = xp.searchsorted(cum[e0:e1], k, side="right") + e0   # pair k belongs to edge e
        e2 = e + 1 + (k - (cum[e] - cnt[e]))
        x, y = v[e], v[e2]
        hit = _member(okey, x * n + y) | _member(okey, y * n + x)
        total += int(hit.sum())
        done, e0 = top, e1
    return total


def _member(sorted_keys, q):
    xp = hp.backend.get_array_module(q)
    pos = xp.minimum(xp.searchsorted(sorted_keys, q), sorted_keys.shape[0] - 1)
    return sorted_keys[pos] == q


def bench(report, label, G, repeat):
    import cupy as cp

    t_ms, ref = timed_once(lambda: oracle_count(G))
    print(f"[{label}] oracle {ref:,} triangles ({t_ms:.0f} ms)", flush=True)
    report.meta.setdefault("oracle_ms", {})[label] = t_ms
    for kernel in KERNELS:
        with hp.config.set(triangle_kernel=kernel):
            _triangles.forget_preprocessing(G)
            prep, _ = timed_once(lambda: _triangles.preprocess(G))
            _triangles.forget_preprocessing(G)
            row, count = timed(lambda: hp.triangle_count(G), repeat)
            _, pv = timed_once(lambda: hp.triangles(G))
            pv_sum = int(cp.asnumpy(pv).sum())
        check = "ok" if count == ref and pv_sum == 3 * ref else \
            f"MISMATCH count {count} / per-vertex sum {pv_sum} vs oracle {ref}"
        report.row(label, f"triangle_count, {kernel} kernel", row, prep_ms=prep, check=check,
                   kernel=kernel, triangles=count, edges=int(G.num_edges),
                   auto_picks=_triangles.method(G))
    cp.get_default_memory_pool().free_all_blocks()


def sweep(report, label, G, repeat, ref):
    """The merge kernel's constants (results must not change)."""
    saved = _kernels.TC_SEARCH_RATIO, _kernels.TC_BLOCK     # compile-time constants
    try:
        for heavy, ratio, block in itertools.product((512, 2048, 8192), (8, 16, 32), (128, 256)):
            _kernels.TC_SEARCH_RATIO, _kernels.TC_BLOCK = ratio, block
            with hp.config.set(triangle_kernel="merge", triangle_merge_heavy=heavy):
                row, count = timed(lambda: hp.triangle_count(G), repeat)
            report.row(label, f"merge heavy={heavy} ratio={ratio} block={block}", row,
                       check="ok" if count == ref else f"MISMATCH {count} vs {ref}")
    finally:
        _kernels.TC_SEARCH_RATIO, _kernels.TC_BLOCK = saved


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="rmat21,grid")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not hp.has_gpu():
        print("bench_triangles needs a GPU (the CPU backend has one method)")
        return 2
    report = Report("bench_triangles", graphs=args.graphs, repeat=args.repeat, quick=args.quick)
    for _, label, G, _ in make_graphs(args, True):
        bench(report, label, G, args.repeat)
        if args.sweep:
            ref = next(r["triangles"] for r in report.rows if r["graph"] == label
                       and r.get("kernel") == "hash")
            sweep(report, label, G, args.repeat, ref)
    return report.finish(args.json)


if __name__ == "__main__":
    sys.exit(main())
