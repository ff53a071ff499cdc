"""Benchmark: hpgraph's CPU backend against scipy.sparse.csgraph (BFS, SSSP, connected
components) and networkx (betweenness, label propagation, k-core) on the real graphs.

Goal ([algorithms-2]): the CPU path within 1.2x of SciPy for BFS, SSSP and connected
components, and no algorithm slower than networkx.  Every row is checked against its oracle
(depths / distances / labels equal; networkx's betweenness and core numbers equal; label
propagation: a valid partition, timed only); the process exits 1 on a mismatch.  Timings:
after one first call of each, ``--repeat`` rounds calling hpgraph and the oracle alternately
(medians, and the ratio of the minima, which moves least when cores are shared), CPU only.

Usage::

    python benchmarks/bench_cpu_vs_scipy.py [--data ../shared/data] [--graphs a,b] \
        [--repeat 5] [--no-networkx] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hpgraph as hp  # noqa: E402
from _harness import metadata, write  # noqa: E402

GRAPHS = ("USA-road-d.NY.gr.gz", "ca-AstroPh.shuffled.txt.gz", "soc-Slashdot0902.txt.gz",
          "delaunay_n16.mtx.gz", "Email-Enron.txt.gz")


def _interleaved(fn, ref_fn, repeat):
    """``(row, out, ref_ms, ref_min_ms, ref)``: one first call of each, then ``repeat`` rounds
    that call ``fn`` and ``ref_fn`` alternately, so a change in the load of shared cores
    falls on both alike (timing all of one, then all of the other, moved the ratio by 2x
    between runs on a loaded host)."""
    t0 = time.perf_counter()
    out = fn()
    first = (time.perf_counter() - t0) * 1e3
    ref = ref_fn()
    ts, rs = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        ts.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        ref = ref_fn()
        rs.append((time.perf_counter() - t0) * 1e3)
    row = {"first_ms": first, "warm_ms": float(np.median(ts)), "wall_ms": float(np.median(ts)),
           "min_ms": min(ts)}
    return row, out, float(np.median(rs)), min(rs), ref


def bench_graph(path, args, rows):
    import scipy.sparse.csgraph as csg

    G = hp.io.read(path, backend="cpu")
    A = G.to_scipy().tocsr()
    name = Path(path).name
    n = G.num_vertices
    src = int(np.argmax(np.diff(A.indptr)))
    print(f"[graph] {name}: n={n:,} entries={A.nnz:,} directed={G.directed} "
          f"weighted={G.weighted}", flush=True)

    def add(algo, fn, ref_fn, check):
        row, out, ref_ms, ref_min, ref = _interleaved(fn, ref_fn, args.repeat)
        ok = check(out, ref)
        row.update(graph=name, algo=algo, oracle_ms=ref_ms, oracle_min_ms=ref_min,
                   ratio=row["warm_ms"] / ref_ms if ref_ms > 0 else None,
                   ratio_min=row["min_ms"] / ref_min if ref_min > 0 else None,
                   check="ok" if ok else "MISMATCH")
        rows.append(row)
        print(f"  {algo:14s} hpgraph {row['warm_ms']:9.2f} ms  oracle {ref_ms:9.2f} ms  "
              f"ratio {row['ratio']:.2f} (of the minima {row['ratio_min']:.2f})  "
              f"{row['check']}", flush=True)

    B = A.copy()
    B.data[:] = 1.0
    add("bfs", lambda: hp.bfs(G, src, backend="cpu"),
        lambda: csg.breadth_first_order(B, src, directed=G.directed, return_predecessors=True),
        lambda out, ref: np.array_equal(
            np.sort(np.flatnonzero(out.depth >= 0)), np.sort(ref[0]))
        and np.array_equal(np.where(out.depth >= 0, out.depth, np.inf),
                           csg.shortest_path(B, indices=src, unweighted=True,
                                             directed=G.directed)))
    W = A if G.weighted else B
    add("sssp", lambda: hp.sssp(G, src, backend="cpu"),
        lambda: csg.dijkstra(W, directed=G.directed, indices=src, return_predecessors=True),
        lambda out, ref: np.array_equal(out.distance.astype(np.float64), ref[0]))
    add("cc", lambda: hp.connected_components(G, backend="cpu"),
        lambda: csg.connected_components(B, directed=G.directed, connection="weak"),
        lambda out, ref: out[0] == ref[0] and np.array_equal(out[1], ref[1]))
    if args.no_networkx or n > 300_000:
        return
    import networkx as nx

    S = B.copy()
    if G.directed:
        S = ((S + S.T) > 0).astype(np.float64).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    H = nx.from_scipy_sparse_array(S)
    U = hp.Graph(S, directed=False)
    add("kcore", lambda: hp.k_core(U, backend="cpu"), lambda: nx.core_number(H),
        lambda out, ref: np.array_equal(out, [ref[i] for i in range(n)]))
    add("label_prop", lambda: hp.label_propagation(U, backend="cpu"),
        lambda: list(nx.community.label_propagation_communities(H)),
        lambda out, ref: np.asarray(out).shape == (n,))
    k = 16
    add("betweenness16", lambda: hp.betweenness_centrality(U, k=k, seed=1, backend="cpu"),
        lambda: nx.betweenness_centrality(H, k=k, seed=1),
        lambda out, ref: np.allclose(out, [ref[i] for i in range(n)], rtol=1e-9, atol=1e-12))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-networkx", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = []
    for g in args.graphs.split(","):
        p = Path(args.data) / g
        if not p.exists():
            print(f"[skip] {p} not found")
            continue
        bench_graph(str(p), args, rows)
    bad = [r for r in rows if r["check"] != "ok"]
    if args.json:
        write(args.json, {"meta": metadata(backend="cpu"), "rows": rows})
    print(f"\n{len(rows)} rows, {len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
