"""hpgraph.distributed's algorithms on CPU Dask clusters of 2 and 4 workers, each checked
against an independent oracle (SciPy csgraph, a NumPy power iteration) and equal to the
single-process hpgraph function on the same graph.

Every shared graph case with at least as many vertices as workers runs on the 2-worker
cluster; every third one also on the 4-worker cluster (CI time).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph import distributed as hpd
from hpgraph.exceptions import IndexOutOfBound, InvalidValue, NegativeCycleError

from .conftest import CASES


def _params():
    out = []
    for i, case in enumerate(CASES.graph_cases(min_n=2)):
        out.append(pytest.param(2, case, id=f"2w-{case.name}"))
        if case.n >= 4 and i % 3 == 0:
            out.append(pytest.param(4, case, id=f"4w-{case.name}"))
    return out


def _pagerank_reference(case, damping=0.85, tol=1e-13):
    """networkx's power iteration in plain NumPy/SciPy (duplicates combined, as the Graph)."""
    A = CASES.to_scipy(case, unweighted=True).astype(np.float64)
    n = case.n
    out = np.asarray(A.sum(axis=1)).ravel()
    dang = out == 0
    M = (A.multiply(np.where(dang, 0, 1 / np.where(dang, 1, out))[:, None])).T.tocsr()
    x = np.full(n, 1 / n)
    for _ in range(1000):
        xn = damping * (M @ x + x[dang].sum() / n) + (1 - damping) / n
        if np.abs(xn - x).sum() < tol:
            return xn
        x = xn
    raise AssertionError("reference did not converge")


@pytest.fixture(scope="module")
def graphs():
    """(cluster size, case name) -> (Graph, DistributedGraph), built once."""
    return {}


def _dist_graph(request, graphs, size, case):
    key = (size, case.name)
    if key not in graphs:
        cluster = request.getfixturevalue(f"cluster{size}")
        G = CASES.to_graph(case, "cpu")
        graphs[key] = (G, hpd.DistributedGraph(cluster, G))
    return graphs[key]


@pytest.mark.parametrize("size,case", _params())
def test_algorithms_equal_single_process(request, graphs, size, case):
    G, dg = _dist_graph(request, graphs, size, case)
    n = case.n
    assert dg.num_partitions == size and dg.bounds[0] == 0 and dg.bounds[-1] == n
    assert int(dg.partition_edges.sum()) == G.num_edges

    # PageRank: within its error bound (damping / (1 - damping) * tol, L1) of an independent
    # power iteration run to convergence, equal to hp.pagerank's
    rank = hpd.pagerank(dg)
    assert rank.dtype == np.float64 and rank.shape == (n,)
    assert np.abs(rank - _pagerank_reference(case)).sum() < 0.85 / 0.15 * 1e-6
    np.testing.assert_allclose(rank, hp.pagerank(G, backend="cpu"), rtol=0, atol=1e-12)

    # BFS depths from one source and from two: scipy's unweighted distances, hp.bfs's depths
    A = CASES.to_scipy(case)
    for src in ([0], [0, n - 1]):
        depth = hpd.bfs(dg, src if len(src) > 1 else src[0])
        ref = csg.shortest_path(A, directed=True, unweighted=True, indices=src).min(axis=0)
        ref = np.where(np.isinf(ref), -1, ref).astype(np.int32)
        np.testing.assert_array_equal(depth, ref)
        np.testing.assert_array_equal(depth, hp.bfs(G, src, backend="cpu").depth)
        assert depth.dtype == np.int32

    # SSSP distances: scipy's (same dtype rule as hp.sssp), and hp.sssp's exactly
    dist = hpd.sssp(dg, 0)
    ref = CASES.sssp_reference(case, [0])
    want = np.float32 if (case.weights is None or case.weights.dtype == np.float32) else np.float64
    assert dist.dtype == want
    np.testing.assert_array_equal(np.isinf(dist), np.isinf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(dist[fin], ref[fin], rtol=1e-6 if want == np.float32 else 1e-12)
    np.testing.assert_array_equal(dist, hp.sssp(G, 0, backend="cpu").distance)

    # connected components (weak for directed): scipy's count and labels, hp's labels
    k, labels = hpd.connected_components(dg)
    k_ref, l_ref = csg.connected_components(A, directed=True, connection="weak")
    assert k == k_ref
    np.testing.assert_array_equal(labels, l_ref)
    np.testing.assert_array_equal(labels, hp.connected_components(G, backend="cpu")[1])


def test_edgeless_graph(cluster):
    """No edges: every rank holds an empty CSR; results are the trivial ones."""
    G = hp.Graph.from_edges([], [], num_vertices=9, directed=True)
    dg = hpd.DistributedGraph(cluster, G)
    np.testing.assert_array_equal(dg.partition_edges, 0)
    np.testing.assert_allclose(hpd.pagerank(dg), np.full(9, 1 / 9), rtol=1e-15)
    np.testing.assert_array_equal(hpd.bfs(dg, 4), np.where(np.arange(9) == 4, 0, -1))
    np.testing.assert_array_equal(hpd.sssp(dg, 4), np.where(np.arange(9) == 4, 0, np.inf))
    k, labels = hpd.connected_components(dg)
    assert k == 9
    np.testing.assert_array_equal(labels, np.arange(9))


@pytest.mark.parametrize("i", range(4))
def test_sssp_negative_weights(cluster2, i):
    case = CASES.negative_weight_cases()[i]
    G = CASES.to_graph(case, "cpu")
    dg = hpd.DistributedGraph(cluster2, G)
    dist = hpd.sssp(dg, 0)
    ref = CASES.sssp_reference(case, [0], method="BF")
    np.testing.assert_array_equal(np.isinf(dist), np.isinf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(dist[fin], ref[fin], rtol=1e-12, atol=1e-9)


def test_sssp_negative_cycle(cluster2):
    G = CASES.to_graph(CASES.negative_cycle_case(), "cpu")
    dg = hpd.DistributedGraph(cluster2, G)
    with pytest.raises(NegativeCycleError):
        hpd.sssp(dg, 0)


def test_weighted_pagerank_and_info(cluster2):
    case = CASES.graph_cases(weighted=True, min_n=40)[0]
    G = CASES.to_graph(case, "cpu")
    dg = hpd.DistributedGraph(cluster2, G)
    if (case.weights < 0).any():
        pytest.skip("the case has negative weights")
    rank, info = hpd.pagerank(dg, weighted=True, return_info=True)
    ref, ref_info = hp.pagerank(G, weighted=True, backend="cpu", return_info=True)
    assert np.abs(rank - ref).sum() < 1e-12
    assert info.iterations == ref_info.iterations
    assert len(info.bytes_sent) == 2 and all(b > 0 for b in info.bytes_sent)
    assert info.partition_bytes == tuple(int(b) for b in dg.partition_bytes)
    assert info.seconds > 0 and info.wall_seconds >= info.seconds
    # time in collectives: positive on every rank, within the rank's loop time
    assert len(info.exchange_seconds) == 2
    assert all(0 < e <= info.seconds for e in info.exchange_seconds)


def test_bad_arguments(cluster2):
    G = hp.Graph.from_edges([0, 1, 2], [1, 2, 3], num_vertices=5)
    dg = hpd.DistributedGraph(cluster2, G)
    with pytest.raises(IndexOutOfBound, match="source 5"):
        hpd.bfs(dg, 5)
    with pytest.raises(IndexOutOfBound, match="source -1"):
        hpd.sssp(dg, [0, -1])
    with pytest.raises(InvalidValue, match="source"):
        hpd.bfs(dg, [])
    with pytest.raises(InvalidValue, match="damping"):
        hpd.pagerank(dg, damping=1.5)
    with pytest.raises(InvalidValue, match="to must be"):
        hpd.connected_components(dg, to="torch")
    with pytest.raises(hp.exceptions.ConvergenceError):
        hpd.pagerank(dg, tol=0.0, max_iter=3)
    Gw = hp.Graph.from_edges([0, 1], [1, 2], weights=[1.0, -2.0])
    with pytest.raises(InvalidValue, match="non-negative"):
        hpd.pagerank(hpd.DistributedGraph(cluster2, Gw), weighted=True)


@pytest.mark.parametrize("directed", [True, False])
def test_one_partition_runs_the_single_process_functions(cluster2, directed):
    """A graph of one partition runs hp.pagerank / hp.bfs on the whole graph (no collective):
    results equal to the single-process calls bit for bit, and the loop's superstep counts."""
    case = next(c for c in CASES.graph_cases(min_n=40) if c.directed == directed)
    G = CASES.to_graph(case, "cpu")
    dg = hpd.DistributedGraph(cluster2, G, num_partitions=1)
    assert dg.num_partitions == 1
    rank, info = hpd.pagerank(dg, return_info=True)
    ref, ref_info = hp.pagerank(G, backend="cpu", return_info=True)
    np.testing.assert_array_equal(rank, ref)
    assert info.iterations == ref_info.iterations and info.bytes_sent == (0,)
    part = cluster2.client.gather(dg.futures)[0]
    assert getattr(part, "_graph", None) is not None     # the worker built the whole graph once
    src = int(np.argmax(np.asarray(G.out_degree)))
    depth, binfo = hpd.bfs(dg, [src, 0], return_info=True)
    A = CASES.to_scipy(case)
    hops = csg.shortest_path(A, directed=True, unweighted=True, indices=[src, 0]).min(axis=0)
    np.testing.assert_array_equal(depth, np.where(np.isinf(hops), -1, hops))
    assert binfo.iterations == int(depth.max()) + 1 and binfo.bytes_sent == (0,)
    # the superstep loop on two partitions gives the same depths and superstep count
    depth2, info2 = hpd.bfs(hpd.DistributedGraph(cluster2, G), [src, 0], return_info=True)
    np.testing.assert_array_equal(depth2, depth)
    assert info2.iterations == binfo.iterations


@pytest.mark.parametrize("push_alpha", [0, 14, float("inf")], ids=["push", "auto", "pull"])
def test_bfs_directions_equal_scipy(cluster, push_alpha):
    """Push levels (the frontier's neighbours, OR-ed over the ranks), pull levels and the
    switch between them give scipy's hop counts on undirected and directed cases."""
    for case in CASES.graph_cases(min_n=4)[:10]:
        G = CASES.to_graph(case, "cpu")
        dg = hpd.DistributedGraph(cluster, G)
        A = CASES.to_scipy(case)
        for srcs in ([0], [0, case.n - 1]):
            got = hpd.bfs(dg, srcs, push_alpha=push_alpha)
            hops = csg.shortest_path(A, directed=True, unweighted=True, indices=srcs).min(axis=0)
            np.testing.assert_array_equal(got, np.where(np.isinf(hops), -1, hops), err_msg=case.name)


def test_bfs_push_alpha_checked(cluster2):
    dg = hpd.DistributedGraph(cluster2, hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3))
    for bad in (-1, "x", True, float("nan")):
        with pytest.raises(InvalidValue, match="push_alpha"):
            hpd.bfs(dg, 0, push_alpha=bad)
