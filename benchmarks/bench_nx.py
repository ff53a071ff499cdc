"""Benchmark: the NetworkX backend and the ``hpgraph.csgraph`` drop-ins against NetworkX / SciPy.

**NetworkX backend** (``--part nx``).  Graphs: R-MAT scale 18 (Graph500 parameters, edge factor
16, seed 1, undirected) and a real graph (``ca-AstroPh.shuffled.txt.gz``, looked up in
``--real``, ``benchmarks/data/``, ``.whl/`` and ``../shared/data/``; undirected), both built as
plain ``networkx.Graph`` objects.  Functions: ``pagerank``, ``betweenness_centrality(k=64,
seed=1)``, ``connected_components``, ``single_source_shortest_path_length`` (from the node of
largest degree), ``louvain_communities(seed=1)``, ``triangles``.  Per row:

* ``networkx_ms``: networkx itself (the baseline; one call: it is the slow side);
* ``first_ms``: the first ``backend="hpgraph"`` call with networkx's cache of converted graphs
  emptied, so it includes the conversion (and, for the first call of each algorithm in the
  process, kernel compilation), and building the networkx result (dicts / sets);
* ``warm_ms`` / ``wall_ms``: the same call with the converted graph cached (medians of
  ``--repeat`` calls after the first); the results hpgraph derives and caches on the converted
  graph (components, triangle counts, BFS / SSSP per source) are cleared before every call, so
  each call runs the algorithm;
* ``convert_ms``: converting the networkx graph alone (``convert_from_nx``), reported
  separately;
* ``check``: the backend's result against networkx's (exact for components, BFS lengths,
  triangles; 1e-9 for PageRank and betweenness with the same sample; for Louvain, whose
  partitions legitimately differ, a valid partition whose modularity is at least 0.95 of
  networkx's).

**csgraph** (``--part csgraph``): R-MAT scale 20 (directed, integer weights 1..64) as a CuPy
``csr_matrix`` (hpgraph on the GPU) and as a SciPy ``csr_array`` (SciPy, and hpgraph's NumPy
path): ``shortest_path`` (one source, Dijkstra), ``breadth_first_order``, weak
``connected_components`` and ``minimum_spanning_tree`` (of the symmetrized graph).  Checks
against SciPy: distances and BFS order equal, the same component partition, the same spanning
tree weight and edge count.

Every row goes through :mod:`benchmarks._harness` (``first_ms``, ``warm_ms`` by CUDA events,
``wall_ms``); one JSON with the run's metadata.  The process exits 1 on any mismatch.

Device commands (from the repo root, after ``source benchmarks/device_setup.sh``)::

    python benchmarks/bench_nx.py --part nx --graph rmat \
        --functions pagerank,connected_components,single_source_shortest_path_length,triangles \
        --json $OUT/nx_csgraph_rmat18_a.json
    python benchmarks/bench_nx.py --part nx --graph rmat --functions betweenness_centrality \
        --repeat 3 --json $OUT/nx_csgraph_rmat18_bc.json
    python benchmarks/bench_nx.py --part nx --graph rmat --functions louvain_communities \
        --repeat 3 --json $OUT/nx_csgraph_rmat18_louvain.json
    python benchmarks/bench_nx.py --part nx --graph real --json $OUT/nx_csgraph_real.json
    python benchmarks/bench_nx.py --part csgraph --json $OUT/nx_csgraph_rmat20.json

(networkx's betweenness with k=64 and Louvain on R-MAT 18 take minutes each, hence one
command per slow function: each command stays under the device's 10-minute limit.)

``--quick`` (R-MAT 10 / 12, ``--repeat 2``, no real graph unless ``--graph real``) is the CPU
smoke test.
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
from _harness import metadata, timed, write  # noqa: E402

BE = "hpgraph"
NX_FUNCS = ("pagerank", "betweenness_centrality", "connected_components",
            "single_source_shortest_path_length", "louvain_communities", "triangles")
CS_FUNCS = ("shortest_path", "breadth_first_order", "connected_components",
            "minimum_spanning_tree")
REAL = "ca-AstroPh.shuffled.txt.gz"


def find_real(path):
    """The real graph's file: ``path``, else the usual places (None if absent)."""
    cands = [Path(path)] if path else []
    cands += [ROOT / "benchmarks" / "data" / REAL, ROOT / ".whl" / REAL,
              ROOT.parent / "shared" / "data" / REAL]
    return next((p for p in cands if p.exists()), None)


# ---------------------------------------------------------------------------------------------
# networkx backend


def nx_graph(G):
    """``G`` (an undirected hpgraph Graph) as a plain networkx Graph (edge attribute weight)."""
    import networkx as nx

    A = G.to_scipy().tocoo()
    H = nx.Graph()
    H.add_nodes_from(range(G.num_vertices))
    keep = A.row <= A.col
    H.add_weighted_edges_from(zip(A.row[keep].tolist(), A.col[keep].tolist(),
                                  A.data[keep].tolist()) if A.data is not None
                              else zip(A.row[keep].tolist(), A.col[keep].tolist(),
                                       [1] * int(keep.sum())))
    return H


def load_nx_graph(which, scale, real):
    if which == "rmat":
        G = hp.generators.rmat(scale, edge_factor=16, seed=1, directed=False, backend="cpu")
        return f"rmat{scale}", nx_graph(G)
    path = find_real(real)
    if path is None:
        raise SystemExit(f"real graph {REAL} not found (give --real PATH)")
    G = hp.io.read(str(path), backend="cpu", relabel=True)   # compact ids: no phantom vertices
    if G.directed:
        A = G.to_scipy()
        G = hp.Graph(A + A.T, directed=False)
    return path.name.split(".")[0], nx_graph(G)


def _clear_derived(G):
    """Drop what hpgraph cached on the converted graph besides the graph itself."""
    cache = getattr(G, "__networkx_cache__", None) or {}
    for H in cache.get("backends", {}).get(BE, {}).values():
        for key in list(H._cache):
            if key in ("lru", "components", "triangles") or (isinstance(key, tuple)
                                                            and key[0] == "result"):
                H._cache.pop(key, None)


def _nx_calls(G, k):
    import networkx as nx

    s = max(G.degree, key=lambda d: d[1])[0]
    return {
        "pagerank": lambda **b: nx.pagerank(G, **b),
        "betweenness_centrality": lambda **b: nx.betweenness_centrality(G, k=min(k, len(G)),
                                                                        seed=1, **b),
        "connected_components": lambda **b: list(nx.connected_components(G, **b)),
        "single_source_shortest_path_length":
            lambda **b: nx.single_source_shortest_path_length(G, s, **b),
        "louvain_communities": lambda **b: nx.community.louvain_communities(G, seed=1, **b),
        "triangles": lambda **b: nx.triangles(G, **b),
    }


def _nx_check(name, G, got, ref):
    import networkx as nx

    if name in ("pagerank", "betweenness_centrality"):
        err = max((abs(got[v] - ref[v]) for v in ref), default=0.0)
        return "ok" if err < 1e-9 and set(got) == set(ref) else f"MISMATCH max error {err:.3g}"
    if name == "connected_components":
        return "ok" if sorted(map(frozenset, got), key=min) == sorted(
            map(frozenset, ref), key=min) else "MISMATCH components"
    if name == "louvain_communities":
        nodes = [v for c in got for v in c]
        if len(nodes) != len(G) or set(nodes) != set(G):
            return "MISMATCH not a partition of the nodes"
        q, q_ref = (nx.community.modularity(G, got), nx.community.modularity(G, ref))
        return "ok" if q >= 0.95 * q_ref else f"MISMATCH modularity {q:.4f} vs {q_ref:.4f}"
    return "ok" if got == ref else "MISMATCH"


def bench_nx(which, args, rows):
    import networkx as nx

    from hpgraph.nx_backend.graph import convert_from_nx

    nx.config.warnings_to_ignore.add("cache")
    t0 = time.perf_counter()
    name, G = load_nx_graph(which, args.nx_scale, args.real)
    print(f"[graph] {name}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
          f"(networkx graph built in {time.perf_counter() - t0:.1f} s)", flush=True)
    t0 = time.perf_counter()
    convert_from_nx(G, edge_attrs={"weight": 1})
    convert_ms = (time.perf_counter() - t0) * 1e3
    gpu = hp.has_gpu() and not args.cpu
    nx.config.backends.hpgraph.device = "gpu" if gpu else "cpu"
    calls = _nx_calls(G, args.k)
    for fname in args.functions.split(","):
        if fname not in calls:
            continue
        call = calls[fname]
        t0 = time.perf_counter()
        ref = call()
        nx_ms = (time.perf_counter() - t0) * 1e3
        G.__networkx_cache__.clear()      # the first timed call converts

        def run():
            _clear_derived(G)
            return call(backend=BE)

        row, got = timed(run, args.repeat, gpu=gpu)
        row.update(graph=name, function=fname, networkx_ms=nx_ms, convert_ms=convert_ms,
                   speedup_first=nx_ms / row["first_ms"], speedup_warm=nx_ms / row["warm_ms"],
                   check=_nx_check(fname, G, got, ref))
        rows.append(row)
        print(f"  {fname:36s} networkx {nx_ms:10.1f} ms | first {row['first_ms']:9.1f} ms "
              f"({row['speedup_first']:6.1f}x) | warm {row['warm_ms']:8.2f} ms "
              f"({row['speedup_warm']:7.1f}x) | {row['check']}", flush=True)


# ---------------------------------------------------------------------------------------------
# csgraph


def bench_csgraph(args, rows):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as scs

    import hpgraph.csgraph as hcs

    G = hp.generators.rmat(args.cs_scale, edge_factor=16, seed=1, directed=True,
                           weights=(1, 64), backend="cpu")
    A = sp.csr_array(G.to_scipy().astype(np.float64))
    U = sp.csr_array(A + A.T)
    s = int(np.argmax(np.diff(A.indptr)))
    name = f"rmat{args.cs_scale}"
    print(f"[graph] {name}: {A.shape[0]:,} vertices, {A.nnz:,} edges (directed)", flush=True)
    gpu = hp.has_gpu() and not args.cpu
    inputs = [("numpy", A, U)]
    if gpu:
        import cupyx.scipy.sparse as csp

        inputs.insert(0, ("cupy", csp.csr_matrix(sp.csr_matrix(A)),
                          csp.csr_matrix(sp.csr_matrix(U))))
    calls = {
        "shortest_path": lambda m, M, _: m.shortest_path(M, method="D", indices=s),
        "breadth_first_order": lambda m, M, _: m.breadth_first_order(M, s,
                                                                     return_predecessors=False),
        "connected_components": lambda m, M, _: m.connected_components(M, directed=True,
                                                                       connection="weak"),
        "minimum_spanning_tree": lambda m, _, S: m.minimum_spanning_tree(S),
    }
    for fname in args.cs_functions.split(","):
        call = calls[fname]
        ref_row, ref = timed(lambda: call(scs, A, U), args.repeat, gpu=False)
        for side, M, S in inputs:
            row, got = timed(lambda: call(hcs, M, S), args.repeat, gpu=gpu and side == "cupy")
            row.update(graph=name, function=fname, input=side, scipy_ms=ref_row["warm_ms"],
                       scipy_first_ms=ref_row["first_ms"],
                       speedup=ref_row["warm_ms"] / row["warm_ms"],
                       check=_cs_check(fname, got, ref))
            rows.append(row)
            print(f"  {fname:24s} {side:5s} in: scipy {ref_row['warm_ms']:9.2f} ms | hpgraph "
                  f"{row['warm_ms']:9.2f} ms (first {row['first_ms']:8.1f}) | "
                  f"{row['speedup']:6.2f}x | {row['check']}", flush=True)


def _host(x):
    return hp.backend.to_host(x) if not isinstance(x, tuple) else tuple(map(_host, x))


def _cs_check(fname, got, ref):
    if fname == "minimum_spanning_tree":
        got = got.get() if hasattr(got, "get") else got
        same = got.nnz == ref.nnz and abs(float(got.sum()) - float(ref.sum())) < 1e-6
        return "ok" if same else f"MISMATCH weight {float(got.sum())} vs {float(ref.sum())}"
    got = _host(got)
    if fname == "connected_components":
        (n1, l1), (n2, l2) = got, ref
        _, first = np.unique(l2, return_index=True)
        same = n1 == n2 and np.array_equal(l1[first][l2], l1)  # one label per reference part
        return "ok" if same and len(np.unique(l1)) == n2 else "MISMATCH components"
    if fname == "shortest_path":
        return "ok" if np.array_equal(np.asarray(got), np.asarray(ref)) else "MISMATCH distances"
    return "ok" if np.array_equal(np.asarray(got), np.asarray(ref)) else "MISMATCH order"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("nx", "csgraph", "all"), default="all")
    ap.add_argument("--graph", choices=("rmat", "real", "both"), default="both",
                    help="networkx part: which graph")
    ap.add_argument("--nx-scale", type=int, default=18)
    ap.add_argument("--cs-scale", type=int, default=20)
    ap.add_argument("--real", default=None, help=f"path of {REAL} (or another edge list)")
    ap.add_argument("--k", type=int, default=64, help="betweenness sample size")
    ap.add_argument("--functions", default=",".join(NX_FUNCS))
    ap.add_argument("--cs-functions", default=",".join(CS_FUNCS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="run hpgraph on the CPU backend")
    ap.add_argument("--quick", action="store_true", help="R-MAT 10 / 12, repeat 2 (CPU smoke)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if args.quick:
        args.nx_scale, args.cs_scale, args.repeat = 10, 12, 2
        args.graph = "rmat" if args.graph == "both" else args.graph
    rows = []
    if args.part in ("nx", "all"):
        for which in (("rmat", "real") if args.graph == "both" else (args.graph,)):
            bench_nx(which, args, rows)
    if args.part in ("csgraph", "all"):
        bench_csgraph(args, rows)
    bad = [r for r in rows if r["check"] != "ok"]
    if args.json:
        import networkx

        write(args.json, {"meta": metadata(networkx=networkx.__version__, args=vars(args)),
                          "rows": rows})
    print(f"\n{len(rows)} rows, {len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
