"""The benchmark harness's oracle checks (benchmarks/_harness.py) and the plain triangle oracle
of benchmarks/bench_triangles.py: they must accept right answers and catch wrong ones."""

import json
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _harness  # noqa: E402


@pytest.fixture(scope="module")
def weighted_graph():
    G = hp.generators.rmat(9, edge_factor=8, seed=3, directed=False, weights=(1, 64),
                           backend="cpu")
    A = G.to_scipy().tocsr()
    A.sort_indices()
    src = int(np.argmax(np.diff(A.indptr)))
    return G, A, src


def test_check_bfs_accepts_bfs_and_catches_bad_depths_and_parents(weighted_graph):
    G, A, src = weighted_graph
    r = hp.bfs(G, src, backend="cpu")
    assert _harness.check_bfs(A, src, r.depth, r.parent) == "ok"
    depth = r.depth.copy()
    v = int(np.flatnonzero(depth > 1)[0])
    depth[v] += 1
    assert _harness.check_bfs(A, src, depth, r.parent).startswith("MISMATCH depth")
    parent = r.parent.copy()
    parent[v] = src                       # a vertex two or more levels down: not adjacent
    assert _harness.check_bfs(A, src, r.depth, parent).startswith("MISMATCH tree")
    w = int(np.flatnonzero(r.depth == 2)[0])
    grand = r.parent[r.parent[w]]
    parent = r.parent.copy()
    parent[w] = parent[parent[w]]         # the grandparent: wrong level (or not an edge)
    assert grand == src and _harness.check_bfs(A, src, r.depth, parent) != "ok"


def test_check_sssp_accepts_dijkstra_and_catches_loose_predecessors(weighted_graph):
    G, A, src = weighted_graph
    r = hp.sssp(G, src, backend="cpu")
    assert _harness.check_sssp(A, src, r.distance, r.predecessor) == "ok"
    assert _harness.check_sssp(A, src, r.distance) == "ok"
    d = r.distance.copy()
    v = int(np.flatnonzero(np.isfinite(d) & (d > 0))[0])
    d[v] += 1
    assert _harness.check_sssp(A, src, d).startswith("MISMATCH dist")
    # a predecessor that is a neighbour but not on a tight edge
    pred = r.predecessor.copy()
    for u in range(A.shape[0]):
        if not np.isfinite(r.distance[u]) or u == src:
            continue
        nb = A.indices[A.indptr[u]:A.indptr[u + 1]]
        wts = A.data[A.indptr[u]:A.indptr[u + 1]]
        loose = [x for x, w in zip(nb, wts) if r.distance[x] + w != r.distance[u]]
        if loose:
            pred[u] = loose[0]
            break
    assert _harness.check_sssp(A, src, r.distance, pred).startswith("MISMATCH tree")


def test_check_equal():
    assert _harness.check_equal(np.arange(4), np.arange(4), "x") == "ok"
    assert _harness.check_equal(np.arange(4), np.arange(1, 5), "x").startswith("MISMATCH x")
    assert _harness.check_equal(np.arange(4), np.arange(5), "x").startswith("MISMATCH x: shape")


def test_report_json_and_exit_status(tmp_path):
    rep = _harness.Report("test", note="n")
    t, out = _harness.timed(lambda: 3, 2, gpu=False)
    assert out == 3 and {"warm_ms", "wall_ms", "first_ms"} <= set(t)
    rep.row("g", "good", t, check="ok", prep_ms=1.5)
    assert rep.finish(tmp_path / "a.json") == 0
    data = json.loads((tmp_path / "a.json").read_text())
    assert data["meta"]["benchmark"] == "test" and "commit" in data["meta"]
    row = data["rows"][0]
    assert row["total_ms"] == pytest.approx(row["warm_ms"] + 1.5)
    rep.row("g", "bad", t, check="MISMATCH something")
    assert rep.finish() == 1


@pytest.mark.parametrize("seed", [1, 2])
def test_triangle_oracle_matches_networkx(seed):
    from bench_triangles import oracle_count

    H = nx.gnp_random_graph(70, 0.25, seed=seed)
    A = nx.to_scipy_sparse_array(H, format="csr")
    A = A + sp.eye(70, format="csr")          # self-loops are ignored
    G = hp.Graph(A, directed=False)
    ref = sum(nx.triangles(H).values()) // 3
    assert oracle_count(G) == ref
    assert oracle_count(G, chunk=7) == ref     # many chunks
    E = hp.Graph.from_edges([], [], num_vertices=5, directed=False, backend="cpu")
    assert oracle_count(E) == 0
