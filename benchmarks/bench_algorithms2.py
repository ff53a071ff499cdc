"""Benchmark: the algorithms of issue [algorithms-2] (components, similarity, clustering, k-truss,
centralities, spanning forest, paths, Louvain, the PageRank stopping rule, and the label
propagation / k-core speed-ups), each checked against an independent oracle.

Graphs: R-MAT scale 21 (edge factor 16, Graph500 parameters, seed 1, integer weights 1..64;
undirected, and a directed one for the strong components) and one real graph
(``../shared/data/ca-AstroPh.shuffled.txt.gz`` by default, ``--real``).  ``--quick`` uses R-MAT
12 (a smoke test that runs on the CPU too).

Every row: ``first_ms`` (the first call: compilation, caches), ``hpgraph_ms`` (warm: CUDA events
around the call after a warm-up, median of ``--repeat``; ``perf_counter`` on the CPU),
``oracle_ms`` where the oracle is timed, and ``check`` (``ok`` or ``MISMATCH ...``).  Oracles:
scipy.sparse.csgraph (strong/weak components, spanning-tree weight, BFS distances for closeness
and harmonic, all-pairs lengths), networkx (clustering, k-truss, eigenvector/Katz, Louvain
modularity, k-core: on the real graph; Louvain on R-MAT 18 with ``--nx-louvain``), NumPy (a
tight PageRank reference).  The process exits 1 when any check fails.

Usage::

    python benchmarks/bench_algorithms2.py [--quick] [--cpu] [--repeat 5] [--real PATH]
        [--algos scc,wcc,...] [--nx-louvain] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import hpgraph as hp  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from _harness import metadata, timed_once  # noqa: E402
from _harness import timed as harness_timed  # noqa: E402

ALGOS = ("scc", "wcc", "jaccard", "topk", "clustering", "ktruss", "eigenvector", "katz",
         "closeness", "harmonic", "mst", "apsp", "louvain", "pagerank", "label_propagation",
         "kcore")


def timed(fn, repeat, gpu):
    """(first ms, warm median ms, last result, wall median ms) by the harness; a call of more
    than 10 s is repeated once."""
    probe, out = timed_once(fn, gpu)
    row, out = harness_timed(fn, repeat if probe < 10_000 else 1, gpu=gpu)
    return probe, row["warm_ms"], out, row["wall_ms"]


def host(a):
    return hp.backend.to_host(a)


def canonical(labels):
    """Labels renumbered in the order of each group's smallest vertex."""
    labels = np.asarray(labels)
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    rank = np.empty(order.size, np.int64)
    rank[order] = np.arange(order.size)
    return rank[np.unique(labels, return_inverse=True)[1].reshape(-1)]


def ok(cond, what):
    return "ok" if cond else f"MISMATCH {what}"


def networkx_of(G, loops=False):
    """networkx graph of G's pattern (without self-loops unless ``loops``)."""
    import networkx as nx

    A = G.to_host().to_scipy()
    if not loops:
        A.setdiag(0)
        A.eliminate_zeros()
    A.data[:] = 1
    return nx.from_scipy_sparse_array(A, create_using=nx.DiGraph if G.directed else nx.Graph)


def bench_graph(name, G, Gd, args, side, rows):
    import scipy.sparse.csgraph as csg

    gpu = side == "gpu"
    Gh = G.to_host()
    A = Gh.to_scipy()
    n = G.num_vertices
    small = n <= 50_000 or name != "rmat"     # networkx oracles only where they finish
    want = set(args.algos.split(","))

    def row(algo, fn, check=None, oracle_ms=None):
        if algo not in want:
            return
        try:
            first, warm, out, wall = timed(fn, args.repeat, gpu)
            res = {"graph": name, "algo": algo, "n": n, "edges": G.num_edges,
                   "first_ms": round(first, 3), "hpgraph_ms": round(warm, 3),
                   "wall_ms": round(wall, 3), "check": "unchecked (no oracle at this size)"}
            if check is not None:
                t0 = time.perf_counter()
                res["check"] = check(out)
                res["oracle_ms"] = round((time.perf_counter() - t0) * 1e3, 1)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
            res = {"graph": name, "algo": algo, "check": f"MISMATCH error {type(exc).__name__}: {exc}"}
        rows.append(res)
        print(f"  {name:8s} {algo:18s} first={res.get('first_ms')} warm={res.get('hpgraph_ms')} "
              f"oracle={res.get('oracle_ms')} {res.get('check', '')}", flush=True)

    if Gd is not None:
        Ad = Gd.to_host().to_scipy()
        row("scc", lambda: hp.strongly_connected_components(Gd, backend=side),
            lambda out: ok(np.array_equal(host(out[1]), canonical(csg.connected_components(
                Ad, directed=True, connection="strong")[1])), "labels"))
        row("wcc", lambda: hp.weakly_connected_components(Gd, backend=side),
            lambda out: ok(np.array_equal(host(out[1]), canonical(csg.connected_components(
                Ad, directed=True, connection="weak")[1])), "labels"))
    rng = np.random.default_rng(1)
    P = rng.integers(0, n, (1 << 16, 2))

    def check_jaccard(out):
        sc = host(out.score)
        idx = rng.integers(0, P.shape[0], 2000)
        ind, ptr = A.indices, A.indptr
        want_ = []
        for u, v in P[idx]:
            a = set(ind[ptr[u]:ptr[u + 1]].tolist()) - {u}
            b = set(ind[ptr[v]:ptr[v + 1]].tolist()) - {v}
            want_.append(len(a & b) / len(a | b) if a | b else 0.0)
        return ok(np.allclose(sc[idx], want_, rtol=1e-12), "jaccard")

    row("jaccard", lambda: hp.jaccard(G, P, backend=side), check_jaccard)
    if name != "rmat":   # S @ S of a power-law graph is nearly dense (R-MAT 21: ~10^12)
        row("topk", lambda: hp.similarity_topk(G, 8, backend=side), None)
    if small:
        import networkx as nx

        H = networkx_of(G)
        def vec(d):
            return np.array([d[i] for i in range(n)])

        row("clustering", lambda: hp.clustering(G, backend=side),
            lambda out: ok(np.allclose(host(out), vec(nx.clustering(H)), rtol=1e-12),
                           "clustering"))
        row("ktruss", lambda: hp.k_truss(G, 5, backend=side),
            lambda out: ok(out.num_edges // 2 == nx.k_truss(H, 5).number_of_edges(), "edges"))
        row("eigenvector", lambda: hp.eigenvector_centrality(G, max_iter=1000, backend=side),
            lambda out: ok(np.allclose(host(out), vec(nx.eigenvector_centrality(
                networkx_of(G, loops=True), max_iter=1000)), rtol=1e-6, atol=1e-9), "values"))
        row("katz", lambda: hp.katz_centrality(G, alpha=0.5 / max(1, int(A.sum(1).max())),
                                               backend=side), None)
        row("kcore", lambda: hp.k_core(G, backend=side),
            lambda out: ok(np.array_equal(host(out), vec(nx.core_number(H))), "core"))
    else:
        row("clustering", lambda: hp.clustering(G, backend=side),
            lambda out: ok(np.allclose(host(out), hp.clustering(Gh, backend="cpu"), rtol=1e-12),
                           "vs cpu"))
        row("ktruss", lambda: hp.k_truss(G, 5, backend=side), None)
        row("eigenvector", lambda: hp.eigenvector_centrality(G, max_iter=1000, backend=side), None)
        row("kcore", lambda: hp.k_core(G, backend=side),
            lambda out: ok(np.array_equal(host(out), hp.k_core(Gh, backend="cpu")), "vs cpu"))
    src = np.argsort(-np.diff(A.indptr))[:256]

    def bfs_ref():
        D = csg.shortest_path(A, directed=True, unweighted=True, indices=src).T  # to src
        return D

    def check_closeness(out):
        D = bfs_ref()
        fin = np.isfinite(D)
        r = fin.sum(0)
        tot = np.where(fin, D, 0).sum(0)
        c = np.where(tot > 0, (r - 1) / np.where(tot > 0, tot, 1), 0) * (r - 1) / (n - 1)
        return ok(np.allclose(host(out), c, rtol=1e-12), "closeness")

    row("closeness", lambda: hp.closeness_centrality(G, src, backend=side), check_closeness)
    row("harmonic", lambda: hp.harmonic_centrality(G, src, backend=side),
        lambda out: ok(np.allclose(host(out), np.where(bfs_ref() > 0, 1 / bfs_ref(), 0).sum(0),
                                   rtol=1e-12), "harmonic"))

    def check_mst(out):
        T = csg.minimum_spanning_tree(A)
        return ok(np.isclose(out.to_host().to_scipy().sum() / 2, T.sum(), rtol=1e-12), "weight")

    row("mst", lambda: hp.minimum_spanning_forest(G, backend=side), check_mst)
    if n <= 5_000:
        row("apsp", lambda: hp.all_pairs_shortest_path_length(G, backend=side),
            lambda out: ok(np.allclose(host(out), csg.shortest_path(A, directed=True)), "dist"))

    def check_louvain(out):
        q = hp.modularity(Gh, host(out.labels), weighted=True, backend="cpu")
        msg = ok(abs(q - out.modularity) < 1e-9, "reported modularity")
        if small and msg == "ok":
            import networkx as nx

            Hw = nx.from_scipy_sparse_array(A)
            ref = nx.community.modularity(Hw, nx.community.louvain_communities(Hw, seed=1))
            msg = ok(out.modularity >= 0.99 * ref, f"modularity {out.modularity:.4f} < 0.99 * {ref:.4f}")
        return msg

    row("louvain", lambda: hp.louvain(G, backend=side), check_louvain)

    def check_pr(out):
        x, info = out
        B = A.copy()
        B.data[:] = 1.0
        deg = np.asarray(B.sum(1)).ravel()
        S = np.where(deg > 0, 1 / np.maximum(deg, 1), 0)
        BT = B.T.tocsr()
        r = np.full(n, 1 / n)
        for _ in range(1000):
            nxt = 0.85 * (BT @ (r * S) + r[deg == 0].sum() / n) + 0.15 / n
            done = np.abs(nxt - r).sum() < 1e-14
            r = nxt
            if done:
                break
        err = np.abs(host(x) - r).sum()
        return ok(err <= info.error_bound + 1e-12, f"L1 {err:.2e} > bound {info.error_bound:.2e}") + \
            f" (iterations {info.iterations}, L1 error {err:.1e})"

    row("pagerank", lambda: hp.pagerank(G, return_info=True, backend=side), check_pr)
    row("label_propagation", lambda: hp.label_propagation(G, backend=side),
        (lambda out: ok(np.array_equal(host(out), hp.label_propagation(Gh, backend="cpu")),
                        "vs cpu")) if small or args.cpu_checks else None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cpu", action="store_true", help="run hpgraph on the CPU backend")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--real", default=str(ROOT.parent / "shared" / "data" / "ca-AstroPh.shuffled.txt.gz"))
    ap.add_argument("--algos", default=",".join(ALGOS))
    ap.add_argument("--nx-louvain", action="store_true",
                    help="time networkx's louvain_communities on R-MAT 18 against hp.louvain")
    ap.add_argument("--cpu-checks", action="store_true",
                    help="also compare label propagation with the CPU path on R-MAT 21 (slow)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    side = "gpu" if hp.has_gpu() and not args.cpu else "cpu"
    scale = 12 if args.quick else 21
    rows = []
    G = hp.generators.rmat(scale, edge_factor=16, seed=1, directed=False, weights=(1, 64),
                           backend=side)
    Gd = hp.generators.rmat(scale, edge_factor=16, seed=1, directed=True, backend=side)
    print(f"[graph] R-MAT {scale}: n={G.num_vertices:,} edges={G.num_edges:,} ({side})", flush=True)
    bench_graph("rmat", G, Gd, args, side, rows)
    if Path(args.real).exists():
        R = hp.io.read(args.real)
        R = hp.Graph(R.to_scipy() + R.to_scipy().T, directed=False) if R.directed else R
        R = R.to_device() if side == "gpu" else R
        print(f"[graph] {Path(args.real).name}: n={R.num_vertices:,} edges={R.num_edges:,}", flush=True)
        bench_graph("real", R, None, args, side, rows)
    else:
        print(f"[skip] real graph {args.real} not found")
    if args.nx_louvain:
        import networkx as nx

        s = 10 if args.quick else 18
        L = hp.generators.rmat(s, edge_factor=16, seed=1, directed=False, backend=side)
        first, warm, out, _ = timed(lambda: hp.louvain(L, weighted=False, backend=side), 1,
                                    side == "gpu")
        H = networkx_of(L)
        t0 = time.perf_counter()
        ref = nx.community.modularity(H, nx.community.louvain_communities(H, weight=None, seed=1))
        nx_ms = (time.perf_counter() - t0) * 1e3
        rows.append({"graph": f"rmat{s}", "algo": "louvain_vs_networkx", "hpgraph_ms": warm,
                     "first_ms": first, "oracle_ms": nx_ms, "speedup": nx_ms / warm,
                     "check": ok(out.modularity >= 0.99 * ref, f"{out.modularity:.4f} vs {ref:.4f}")})
        print(f"  louvain R-MAT {s}: hpgraph {warm:.0f} ms (Q={out.modularity:.4f}), networkx "
              f"{nx_ms:.0f} ms (Q={ref:.4f}), {nx_ms / warm:.1f}x", flush=True)
    bad = [r for r in rows if str(r.get("check", "")).startswith("MISMATCH")]
    unchecked = [r for r in rows if str(r.get("check", "")).startswith("unchecked")]
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "algorithms2.json").write_text(json.dumps(
            {"meta": metadata(benchmark="bench_algorithms2", argv=sys.argv[1:]), "rows": rows},
            indent=1, default=str))
    for r in unchecked:
        print(f"UNCHECKED: {r['graph']} {r['algo']}")
    print(f"\n{len(rows)} rows, {len(bad)} mismatches, {len(unchecked)} unchecked")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
