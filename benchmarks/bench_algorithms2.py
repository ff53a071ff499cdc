"""Benchmark: the algorithms of issue [algorithms-2] (components, similarity, clustering, k-truss,
centralities, spanning forest, paths, Louvain, Leiden, betweenness with 64 sources -- vertex
and edge, unweighted and weighted --, the PageRank stopping rule, and the label propagation /
k-core speed-ups), each checked against an independent oracle.

Graphs: R-MAT scale 21 (edge factor 16, Graph500 parameters, seed 1, integer weights 1..64;
undirected, and a directed one for the strong components) and one real graph
(``../shared/data/ca-AstroPh.shuffled.txt.gz`` by default, ``--real``).  ``--quick`` uses R-MAT
12 (a smoke test that runs on the CPU too).

Every row: ``first_ms`` (the first call: compilation, caches), ``hpgraph_ms`` (warm: CUDA events
around the call after a warm-up, median of ``--repeat``; ``perf_counter`` on the CPU),
``oracle_ms`` where the oracle is timed, and ``check`` (``ok`` or ``MISMATCH ...``).  Oracles
(``_alg2_oracles.py`` holds the NumPy / SciPy ones, each tested against networkx):
scipy.sparse.csgraph (strong/weak components, spanning-tree weight, BFS distances for closeness
and harmonic -- 32 sampled sources on R-MAT --, all-pairs lengths); networkx on the real graph
(clustering, k-truss, eigenvector, k-core, Louvain modularity; Louvain on R-MAT 18 with
``--nx-louvain``); on R-MAT, where networkx takes hours: clustering of 2,000 sampled vertices by
SciPy products, networkx's eigenvector iteration on SciPy, k-core by NumPy peeling, k-truss by
SuiteSparse:GraphBLAS (up to scale 17; unchecked above), Louvain / Leiden modularity by SciPy;
NumPy (a tight PageRank reference, Katz's fixed point); label propagation: every label among its
vertex's most frequent neighbour labels; Leiden: every community connected (SciPy components of
the edges inside communities) and, on the real graph, modularity within 1% of leidenalg
(networkx's Louvain where leidenalg is not installed); betweenness: Brandes' sums of
dependencies against SciPy BFS distances (unweighted), Brandes' accumulation over SciPy's
Dijkstra from the timed call's sources (weighted, every vertex and edge).  The process
exits 1 when any check fails.

Usage::

    python benchmarks/bench_algorithms2.py [--quick] [--cpu] [--repeat 5] [--real PATH]
        [--graphs rmat,real] [--scale 21] [--algos scc,wcc,...] [--budget SECONDS]
        [--nx-louvain] [--out DIR] [--append]

Running in pieces: ``--graphs`` and ``--algos`` pick the rows, ``--scale`` the R-MAT scale;
``--budget S`` starts no row once ``S`` seconds have passed since the start (a row already
running finishes; the rows not started are printed with the ``--algos`` that runs them);
with ``--out DIR`` every row is written to ``DIR/algorithms2.json`` as soon as it completes
(and ``--append`` keeps the rows of earlier commands there, replacing a row of the same graph
and algorithm), so a command cut off by its time limit keeps what it finished.

Device plan (session 13, one H100: a device command may run 600 s; R-MAT 21 is built in each,
a few seconds; the SciPy / networkx checks run on the host and dominate some groups; times
are the whole command), each with ``--out DIR --append`` and a ``--budget`` below the limit::

    --graphs rmat --algos scc,wcc,jaccard,mst,eigenvector,kcore,louvain        (~420 s)
    --graphs rmat --algos pagerank,label_propagation,clustering,ktruss,closeness,harmonic,
                          betweenness,edge_betweenness,betweenness_weighted,
                          edge_betweenness_weighted                            (~340 s)
    --graphs rmat --algos leiden                                               (~100 s)
    --graphs real                    (every algorithm, networkx oracles)        (~190 s)
    --graphs none --nx-louvain       (R-MAT 18 against networkx)                (~270 s)
    --graphs rmat --scale 16 --algos ktruss   (SuiteSparse's oracle, a separate --out)

then rerun whatever a command printed as not started.
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
from _alg2_oracles import (binary_simple, core_numbers_reference,  # noqa: E402
                           eigenvector_reference,
                           ktruss_reference, lp_fixed_point, modularity_reference, random_sample,
                           simple_weighted, weighted_brandes_reference)
from _harness import metadata, timed_once  # noqa: E402
from _harness import timed as harness_timed  # noqa: E402

ALGOS = ("scc", "wcc", "jaccard", "jaccard_edges", "topk", "clustering", "ktruss", "eigenvector", "katz",
         "closeness", "harmonic", "mst", "apsp", "louvain", "leiden", "pagerank",
         "label_propagation", "kcore", "betweenness", "betweenness_weighted",
         "edge_betweenness", "edge_betweenness_weighted")


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
    if loops:
        A = A.tocsr(copy=True)
        A.sum_duplicates()
        A.data[:] = 1                  # a stored zero weight is an edge
    else:
        A = binary_simple(A)
    return nx.from_scipy_sparse_array(A, create_using=nx.DiGraph if G.directed else nx.Graph)


class Budget:
    """Stops starting rows once ``seconds`` have passed (None: never); remembers the skipped."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.t0 = time.perf_counter()
        self.skipped = []

    def allows(self, graph, algo):
        if self.seconds is None or time.perf_counter() - self.t0 < self.seconds:
            return True
        self.skipped.append((graph, algo))
        return False


class Sink:
    """The rows so far, rewritten to ``DIR/algorithms2.json`` after each one (with
    ``append``, the file's earlier rows are kept, a row of the same graph and algorithm
    replaced)."""

    def __init__(self, out, append, argv):
        self.path = None if out is None else Path(out) / "algorithms2.json"
        self.old = []
        self.argv = argv
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if append and self.path.exists():
                self.old = json.loads(self.path.read_text()).get("rows", [])

    def write(self, rows):
        if self.path is None:
            return
        new = {(r.get("graph"), r.get("algo")) for r in rows}
        kept = [r for r in self.old if (r.get("graph"), r.get("algo")) not in new]
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(
            {"meta": metadata(benchmark="bench_algorithms2", argv=self.argv),
             "rows": kept + rows}, indent=1, default=str))
        tmp.replace(self.path)     # a reader never sees a half-written file


def bench_graph(name, G, Gd, args, side, rows, budget=None, sink=None):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csg

    gpu = side == "gpu"
    Gh = G.to_host()
    A = Gh.to_scipy()
    n = G.num_vertices
    small = n <= 50_000 or name != "rmat"     # networkx oracles only where they finish
    want = set(args.algos.split(","))

    def row(algo, fn, check=None, oracle_ms=None):
        if algo not in want or (budget is not None and not budget.allows(name, algo)):
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
        if sink is not None:
            sink.write(rows)
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

    def check_jaccard_edges(out):
        """2,000 sampled pairs of the result: each an edge, its score from Python sets."""
        u, v, sc = host(out.first), host(out.second), host(out.score)
        idx = rng.integers(0, u.shape[0], 2000) if u.shape[0] else np.zeros(0, np.int64)
        ind, ptr = A.indices, A.indptr
        want_, edge = [], True
        for a_, b_ in zip(u[idx], v[idx]):
            a = set(ind[ptr[a_]:ptr[a_ + 1]].tolist()) - {a_}
            b = set(ind[ptr[b_]:ptr[b_ + 1]].tolist()) - {b_}
            edge &= b_ in a
            want_.append(len(a & b) / len(a | b) if a | b else 0.0)
        nedges = int(binary_simple(A).nnz)
        return ok(edge and u.shape[0] == nedges and np.allclose(sc[idx], want_, rtol=1e-12),
                  "jaccard of every edge (2,000 sampled against sets)")

    row("jaccard_edges", lambda: hp.jaccard(G, backend=side), check_jaccard_edges)
    def check_topk(out):
        """300 sampled vertices: Jaccard with every other vertex sharing a neighbour (Python
        sets), the 8 best by decreasing score, then smaller id."""
        first, second, score = (host(a) for a in out)
        ind, ptr = A.indices, A.indptr
        nbrs = lambda u: set(ind[ptr[u]:ptr[u + 1]].tolist()) - {u}  # noqa: E731
        for v in rng.integers(0, n, 300).tolist():
            a = nbrs(v)
            cand = {w for u in a for w in nbrs(u)} - {v}
            best = sorted(((-len(a & nbrs(w)) / len(a | nbrs(w)), w) for w in cand))[:8]
            mine = first == v
            if second[mine].tolist() != [w for _, w in best] or not np.array_equal(
                    score[mine], [-x for x, _ in best]):
                return f"MISMATCH top-8 of vertex {v}"
        return "ok"

    if name != "rmat":   # S @ S of a power-law graph is nearly dense (R-MAT 21: ~10^12)
        row("topk", lambda: hp.similarity_topk(G, 8, backend=side), check_topk)
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
        katz_alpha = 0.5 / max(1, int(A.sum(1).max()))

        def check_katz(out):
            """x = alpha A^T x + 1 by SciPy products to a change below 1e-15 (the factor
            alpha * lambda_max <= 0.5 makes that about 50 products), then unit L2 norm as
            networkx's normalisation; hpgraph stops at networkx's tol 1e-6 rule."""
            B = A.copy().astype(np.float64)
            B.data[:] = 1.0
            BT = B.T.tocsr()
            x = np.ones(n)
            for _ in range(200):
                nxt = katz_alpha * (BT @ x) + 1.0
                done = np.abs(nxt - x).max() < 1e-15
                x = nxt
                if done:
                    break
            x /= np.linalg.norm(x)
            return ok(np.allclose(host(out), x, rtol=1e-5, atol=1e-12), "values")

        row("katz", lambda: hp.katz_centrality(G, alpha=katz_alpha, backend=side), check_katz)
        row("kcore", lambda: hp.k_core(G, backend=side),
            lambda out: ok(np.array_equal(host(out), vec(nx.core_number(H))), "core"))
    else:
        def check_clustering(out):
            """2,000 sampled vertices: triangles through each as ``(B_S B) .* B_S`` row sums
            with SciPy (``B`` the 0/1 adjacency without loops or repeats, ``B_S`` its sampled
            rows), over ``d (d - 1) / 2``."""
            got = host(out)
            B = binary_simple(A)
            picked = rng.integers(0, n, 2000)
            BS = B[picked]
            tri = np.asarray((BS @ B).multiply(BS).sum(1)).ravel() / 2
            d = np.asarray(BS.sum(1)).ravel()
            want_ = np.divide(2 * tri, d * (d - 1), out=np.zeros(d.size), where=d > 1)
            return ok(np.allclose(got[picked], want_, rtol=1e-12), "clustering (2,000 sampled)")

        row("clustering", lambda: hp.clustering(G, backend=side), check_clustering)
        def check_ktruss(out):
            C = sp.triu(out.to_host().to_scipy(), k=1).tocoo()
            got = np.unique(C.row.astype(np.int64) * n + C.col)
            return ok(np.array_equal(got, ktruss_reference(A, 5)), "vs SuiteSparse:GraphBLAS")

        # SuiteSparse's k-truss needs hours at scale 21 (202 s at 18 on 2 cores, x3.4 a scale)
        row("ktruss", lambda: hp.k_truss(G, 5, backend=side),
            check_ktruss if n <= 2**17 else None)
        row("eigenvector", lambda: hp.eigenvector_centrality(G, max_iter=1000, backend=side),
            lambda out: ok(np.allclose(host(out), eigenvector_reference(A, 1000), rtol=1e-6,
                                       atol=1e-9), "vs networkx's iteration in SciPy"))
        row("kcore", lambda: hp.k_core(G, backend=side),
            lambda out: ok(np.array_equal(host(out), core_numbers_reference(A)),
                           "vs NumPy peeling"))
    src = np.argsort(-np.diff(A.indptr))[:256]

    bfs_cache = []

    # the oracle checks every source on small graphs, 32 sampled ones on R-MAT (SciPy's
    # unit-weight Dijkstra: about 1 s a source at scale 21)
    pick = np.arange(src.size) if small else np.sort(rng.choice(src.size, 32, replace=False))

    def bfs_ref():
        """SciPy BFS distances from the picked sources (n x picks), computed once per graph."""
        if not bfs_cache:
            bfs_cache.append(csg.shortest_path(A, directed=True, unweighted=True,
                                               indices=src[pick]).T)
        return bfs_cache[0]

    def check_closeness(out):
        D = bfs_ref()
        fin = np.isfinite(D)
        r = fin.sum(0)
        tot = np.where(fin, D, 0).sum(0)
        c = np.where(tot > 0, (r - 1) / np.where(tot > 0, tot, 1), 0) * (r - 1) / (n - 1)
        return ok(np.allclose(host(out)[pick], c, rtol=1e-12), f"closeness ({pick.size} sources)")

    row("closeness", lambda: hp.closeness_centrality(G, src, backend=side), check_closeness)
    row("harmonic", lambda: hp.harmonic_centrality(G, src, backend=side),
        lambda out: ok(np.allclose(host(out)[pick], np.divide(
            1.0, bfs_ref(), out=np.zeros_like(bfs_ref()), where=bfs_ref() > 0).sum(0),
            rtol=1e-12), f"harmonic ({pick.size} sources)"))

    def check_mst(out):
        T = csg.minimum_spanning_tree(A)
        return ok(np.isclose(out.to_host().to_scipy().sum() / 2, T.sum(), rtol=1e-12), "weight")

    row("mst", lambda: hp.minimum_spanning_forest(G, backend=side), check_mst)
    if n <= 5_000:
        row("apsp", lambda: hp.all_pairs_shortest_path_length(G, backend=side),
            lambda out: ok(np.allclose(host(out), csg.shortest_path(A, directed=True)), "dist"))

    louvain_q = []

    def nx_louvain_q():
        """networkx's Louvain modularity (seed 1), computed once per graph."""
        if not louvain_q:
            import networkx as nx

            Hw = nx.from_scipy_sparse_array(A)
            louvain_q.append(nx.community.modularity(Hw, nx.community.louvain_communities(
                Hw, seed=1)))
        return louvain_q[0]

    def check_louvain(out):
        q = modularity_reference(A, host(out.labels))
        msg = ok(abs(q - out.modularity) < 1e-9, "reported modularity")
        if small and msg == "ok":
            ref = nx_louvain_q()
            msg = ok(out.modularity >= 0.99 * ref, f"modularity {out.modularity:.4f} < 0.99 * {ref:.4f}")
        return msg

    row("louvain", lambda: hp.louvain(G, backend=side), check_louvain)

    def check_leiden(out):
        lab = host(out.labels).astype(np.int64)
        q = modularity_reference(A, lab)
        msg = ok(abs(q - out.modularity) < 1e-9, "reported modularity")
        # every community connected: the edges inside communities have as many components
        # as there are communities (scipy)
        C = A.tocoo()
        keep = lab[C.row] == lab[C.col]
        inner = sp.csr_matrix((np.ones(int(keep.sum())), (C.row[keep], C.col[keep])),
                              shape=A.shape)
        ncomp = csg.connected_components(inner, directed=False)[0]
        if msg == "ok":
            msg = ok(ncomp == np.unique(lab).size, f"{ncomp} components in "
                     f"{np.unique(lab).size} communities")
        if msg == "ok" and small:
            ref, what = _leiden_reference(A, nx_louvain_q)
            msg = ok(out.modularity >= 0.99 * ref, f"modularity {out.modularity:.4f} < 0.99 * "
                     f"{what} {ref:.4f}")
        return msg

    row("leiden", lambda: hp.leiden(G, backend=side), check_leiden)

    # betweenness: 64 sampled sources (networkx's draw for seed 1).  Unweighted rows check
    # Brandes' identity sum_v delta_s(v) = sum_t (d(s, t) - 1) and, for edges,
    # sum_e delta_s(e) = sum_t d(s, t) with SciPy's BFS distances; weighted rows (and every row
    # on the real graph) check networkx with 16 sources
    ks = 64
    srcs = np.asarray(random_sample(n, ks, 1))
    sums = {}

    def bfs_sums():
        """(sum of d - 1, sum of d) over the sources' reachable targets (SciPy BFS, once)."""
        if not sums:
            Dh = csg.shortest_path(A, directed=True, unweighted=True, indices=srcs)
            fin = np.isfinite(Dh) & (Dh > 0)
            sums.update(v=float((Dh[fin] - 1).sum()), e=float(Dh[fin].sum()))
        return sums

    def vertex_scales():
        N = n - 1
        corr = 2 if not G.directed else 1
        sc = np.full(n, N / (ks * corr))
        sc[srcs] = N / ((ks - 1) * corr)
        return sc

    row("betweenness", lambda: hp.betweenness_centrality(G, k=ks, seed=1, normalized=False,
                                                         backend=side),
        lambda out: ok(np.isclose((host(out) / vertex_scales()).sum(), bfs_sums()["v"],
                                  rtol=1e-9), "sum of dependencies"))
    row("edge_betweenness", lambda: hp.edge_betweenness_centrality(
            G, k=ks, seed=1, normalized=False, backend=side),
        lambda out: ok(np.isclose(host(out.centrality).sum() / (n / (ks * (1 if G.directed
                       else 2))), bfs_sums()["e"], rtol=1e-9), "sum of dependencies"))
    Gw = G if name == "rmat" else _with_weights(G, side)
    # weighted rows: the timed call's own result, every vertex / edge against Brandes'
    # accumulation over SciPy's Dijkstra from the same sources (weighted_brandes_reference,
    # tested against networkx); 16 sources on R-MAT (about 3 s of oracle a source at scale 21)
    kw = 16 if name == "rmat" else ks
    srcs_w = np.asarray(random_sample(n, kw, 1))
    corr = 1 if G.directed else 2
    wref = {}

    def weighted_ref():
        if not wref:
            W = simple_weighted(Gw)
            wref["W"] = W
            wref["vertex"], wref["edge"] = weighted_brandes_reference(W, srcs_w)
        return wref

    def check_weighted_vertex(out):
        sc = np.full(n, (n - 1) / (kw * corr))
        sc[srcs_w] = (n - 1) / ((kw - 1) * corr)
        return ok(np.allclose(host(out) / sc, weighted_ref()["vertex"], rtol=1e-9, atol=1e-9),
                  f"vs Brandes over SciPy Dijkstra ({kw} sources)")

    def check_weighted_edge(out):
        s, t, c = (host(a) for a in out)
        loop = s == t                  # self-loops are listed with 0, as networkx does
        if np.any(c[loop] != 0):
            return "MISMATCH a self-loop with a non-zero edge betweenness"
        s, t, c = s[~loop], t[~loop], c[~loop]
        C = weighted_ref()["W"].tocoo()
        if G.directed:
            key = C.row.astype(np.int64) * n + C.col
        else:
            key = (np.minimum(C.row, C.col).astype(np.int64) * n + np.maximum(C.row, C.col))
        ukey, inv = np.unique(key, return_inverse=True)
        ref = np.bincount(inv.ravel(), weights=weighted_ref()["edge"], minlength=ukey.size)
        gkey = s.astype(np.int64) * n + t.astype(np.int64)
        o = np.argsort(gkey)
        return ok(np.array_equal(gkey[o], ukey) and
                  np.allclose(c[o] / (n / (kw * corr)), ref, rtol=1e-9, atol=1e-9),
                  f"vs Brandes over SciPy Dijkstra ({kw} sources)")

    row("betweenness_weighted", lambda: hp.betweenness_centrality(
            Gw, k=kw, seed=1, weight="weight", normalized=False, backend=side),
        check_weighted_vertex)
    row("edge_betweenness_weighted", lambda: hp.edge_betweenness_centrality(
            Gw, k=kw, seed=1, weight="weight", normalized=False, backend=side),
        check_weighted_edge)

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
        lambda out: ok(lp_fixed_point(Gh, host(out)), "a label not among its vertex's most "
                       "frequent"))


def _leiden_reference(A, nx_louvain_q):
    """(modularity, name) of a reference partition: leidenalg where installed (mean over 3
    seeds), else networkx's Louvain (``nx_louvain_q()``)."""
    import scipy.sparse as sp

    try:
        import igraph as ig
        import leidenalg as la
    except ImportError:
        return float(nx_louvain_q()), "networkx louvain"
    U = sp.triu(A).tocoo()
    I = ig.Graph(n=A.shape[0], edges=np.c_[U.row, U.col].tolist())
    I.es["weight"] = U.data.tolist()
    qs = [I.modularity(la.find_partition(I, la.ModularityVertexPartition, weights="weight",
                                         seed=s).membership, weights="weight")
          for s in range(3)]
    return float(np.mean(qs)), "leidenalg"


def _with_weights(G, side):
    """G with integer weights 1..64 (seeded) on its edges, symmetric."""
    import scipy.sparse as sp

    A = sp.triu(G.to_host().to_scipy(), k=0).tocoo()
    w = np.random.default_rng(2).integers(1, 65, A.nnz).astype(np.float64)
    W = sp.csr_matrix((w, (A.row, A.col)), shape=A.shape)
    W = (W + sp.triu(W, k=1).T).tocsr()
    H = hp.Graph(W, directed=False)
    return H.to_device() if side == "gpu" else H


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="R-MAT 12 (a smoke test; CPU too)")
    ap.add_argument("--cpu", action="store_true", help="run hpgraph on the CPU backend")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--real", default=str(ROOT.parent / "shared" / "data" / "ca-AstroPh.shuffled.txt.gz"))
    ap.add_argument("--graphs", default="rmat,real",
                    help="comma list of rmat, real (or none: only --nx-louvain)")
    ap.add_argument("--scale", type=int, default=None,
                    help="R-MAT scale (default 21; 12 with --quick)")
    ap.add_argument("--algos", default=",".join(ALGOS), help="comma list of " + ",".join(ALGOS))
    ap.add_argument("--budget", type=float, default=None,
                    help="start no row after this many seconds (rows running finish)")
    ap.add_argument("--nx-louvain", action="store_true",
                    help="time networkx's louvain_communities on R-MAT 18 against hp.louvain")
    ap.add_argument("--out", default=None, help="write DIR/algorithms2.json after every row")
    ap.add_argument("--append", action="store_true",
                    help="keep the rows already in DIR/algorithms2.json (same graph+algo replaced)")
    args = ap.parse_args(argv)
    unknown = set(args.algos.split(",")) - set(ALGOS) - {""}
    graphs = set(args.graphs.split(",")) - {""}
    if unknown or graphs - {"rmat", "real", "none"}:
        ap.error(f"unknown --algos {sorted(unknown)} or --graphs "
                 f"{sorted(graphs - {'rmat', 'real', 'none'})}")
    side = "gpu" if hp.has_gpu() and not args.cpu else "cpu"
    scale = args.scale if args.scale is not None else (12 if args.quick else 21)
    budget = Budget(args.budget)
    sink = Sink(args.out, args.append, sys.argv[1:] if argv is None else list(argv))
    rows = []
    if "rmat" in graphs:
        G = hp.generators.rmat(scale, edge_factor=16, seed=1, directed=False, weights=(1, 64),
                               backend=side)
        Gd = None
        if {"scc", "wcc"} & set(args.algos.split(",")):
            Gd = hp.generators.rmat(scale, edge_factor=16, seed=1, directed=True, backend=side)
        print(f"[graph] R-MAT {scale}: n={G.num_vertices:,} edges={G.num_edges:,} ({side})",
              flush=True)
        bench_graph("rmat", G, Gd, args, side, rows, budget, sink)
        del G, Gd
    if "real" in graphs and Path(args.real).exists():
        R = hp.io.read(args.real)
        R = hp.Graph(R.to_scipy() + R.to_scipy().T, directed=False) if R.directed else R
        R = R.to_device() if side == "gpu" else R
        print(f"[graph] {Path(args.real).name}: n={R.num_vertices:,} edges={R.num_edges:,}", flush=True)
        bench_graph("real", R, None, args, side, rows, budget, sink)
    elif "real" in graphs:
        print(f"[skip] real graph {args.real} not found")
    if args.nx_louvain and budget.allows("rmat18", "louvain_vs_networkx"):
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
        sink.write(rows)
        print(f"  louvain R-MAT {s}: hpgraph {warm:.0f} ms (Q={out.modularity:.4f}), networkx "
              f"{nx_ms:.0f} ms (Q={ref:.4f}), {nx_ms / warm:.1f}x", flush=True)
    bad = [r for r in rows if str(r.get("check", "")).startswith("MISMATCH")]
    unchecked = [r for r in rows if str(r.get("check", "")).startswith("unchecked")]
    for r in unchecked:
        print(f"UNCHECKED: {r['graph']} {r['algo']}")
    for g in ("rmat", "real"):
        left = [a for gg, a in budget.skipped if gg == g]
        if left:
            print(f"NOT STARTED (budget {args.budget:g} s): --graphs {g} --algos {','.join(left)}")
    if ("rmat18", "louvain_vs_networkx") in budget.skipped:
        print(f"NOT STARTED (budget {args.budget:g} s): --graphs none --nx-louvain")
    print(f"\n{len(rows)} rows, {len(bad)} mismatches, {len(unchecked)} unchecked, "
          f"{len(budget.skipped)} not started")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
