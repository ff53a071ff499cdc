"""DistributedGraph: 1D partitioning by destination rows balanced by edge count, the
partitions held by the workers, other sources (edge arrays, files) and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph import distributed as hpd
from hpgraph.distributed.graph import split_rows
from hpgraph.exceptions import InvalidGraph, InvalidValue


@pytest.mark.parametrize("indptr,parts,want", [
    ([0, 5, 10, 15, 20], 2, [0, 2, 4]),
    ([0, 0, 0, 0, 0], 2, [0, 2, 4]),          # no edges: even vertex split
    ([0, 100, 100, 100, 101], 2, [0, 1, 4]),  # one heavy row
    ([0, 100, 100, 100, 101], 4, [0, 1, 2, 3, 4]),
    ([0, 0, 0, 0, 90], 3, [0, 2, 3, 4]),      # heavy last row: every range keeps one row
    ([0, 3], 1, [0, 1]),
])
def test_split_rows(indptr, parts, want):
    np.testing.assert_array_equal(split_rows(np.array(indptr), parts), want)


def test_split_rows_balances_random_degrees():
    rng = np.random.default_rng(3)
    deg = rng.integers(0, 20, 1000)
    indptr = np.concatenate([[0], np.cumsum(deg)])
    for parts in (2, 3, 4, 7):
        b = split_rows(indptr, parts)
        assert b[0] == 0 and b[-1] == 1000 and (np.diff(b) > 0).all()
        edges = np.diff(indptr[b])
        assert edges.max() - edges.min() <= 2 * deg.max()


def test_partitions_are_in_edge_rows(cluster):
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 50, 400), rng.integers(0, 50, 400)
    w = rng.uniform(0, 5, 400)
    G = hp.Graph.from_edges(src, dst, weights=w, num_vertices=53, directed=True)
    before = G.A.indices.copy(), G.A.values.copy()
    dg = hpd.DistributedGraph(cluster, G)
    P = len(cluster.workers)
    assert dg.num_partitions == P and dg.workers == cluster.workers
    assert (dg.num_vertices, dg.num_edges, dg.directed, dg.weighted) == (53, G.num_edges, True, True)
    AT = sp.csr_array(G.to_scipy().T)
    parts = cluster.client.gather(dg.futures)
    for r, part in enumerate(parts):
        lo, hi = dg.bounds[r], dg.bounds[r + 1]
        assert (part.rank, part.size, part.lo, part.hi, part.n) == (r, P, lo, hi, 53)
        assert part.side == "cpu"
        M = part.matrix.to_scipy()
        assert M.shape == (hi - lo, 53)
        assert (M != AT[lo:hi]).nnz == 0
        assert part.matrix.nnz == dg.partition_edges[r]
    assert dg.partition_edges.sum() == G.num_edges
    assert dg.partition_bytes.sum() > 0
    # the caller's graph is untouched
    np.testing.assert_array_equal(G.A.indices, before[0])
    np.testing.assert_array_equal(G.A.values, before[1])
    assert "partitions=" in repr(dg)


def test_from_scipy_and_edges(cluster2):
    A = sp.random_array((30, 30), density=0.1, format="csr", random_state=2)
    dg = hpd.DistributedGraph(cluster2, A)
    assert dg.num_edges == A.nnz and dg.weighted
    src, dst = np.array([0, 1, 1, 2, 2]), np.array([1, 2, 2, 0, 2])
    dg = hpd.DistributedGraph.from_edges(cluster2, src, dst, directed=False)
    assert not dg.directed and dg.num_vertices == 3
    k, labels = hpd.connected_components(dg)
    assert k == 1 and labels.tolist() == [0, 0, 0]


def test_from_files(cluster2, tmp_path):
    (tmp_path / "a.el").write_text("0 1 1.5\n1 2 2.0\n")
    (tmp_path / "b.el").write_text("2 3 0.5\n5 4 1.0\n0 1 1.0\n")
    dg = hpd.DistributedGraph.from_files(cluster2, [tmp_path / "a.el", tmp_path / "b.el"])
    assert (dg.num_vertices, dg.num_edges, dg.directed, dg.weighted) == (6, 4, True, True)
    # duplicates across files combine by min: 0 -> 1 weighs 1.0
    np.testing.assert_array_equal(hpd.sssp(dg, 0), [0, 1.0, 3.0, 3.5, np.inf, np.inf])
    (tmp_path / "c.el").write_text("0 1\n")
    with pytest.raises(InvalidValue, match="weights"):
        hpd.DistributedGraph.from_files(cluster2, [tmp_path / "a.el", tmp_path / "c.el"])
    with pytest.raises(InvalidValue, match="empty"):
        hpd.DistributedGraph.from_files(cluster2, [])
    with pytest.raises(hp.exceptions.GraphFileNotFound):
        hpd.DistributedGraph.from_files(cluster2, tmp_path / "missing.el")


def test_bad_partition_counts(cluster2):
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3)
    with pytest.raises(InvalidValue, match="larger than the worker count"):
        hpd.DistributedGraph(cluster2, G, num_partitions=3)
    one = hp.Graph.from_edges([], [], num_vertices=1)
    with pytest.raises(InvalidValue, match="larger than the vertex count \\(1\\)"):
        hpd.DistributedGraph(cluster2, one)
    with pytest.raises(InvalidValue, match="vertex count \\(0\\)"):
        hpd.DistributedGraph(cluster2, hp.Graph.from_edges([], []))
    for bad in (0, -1, 1.0, True):
        with pytest.raises(InvalidValue, match="num_partitions"):
            hpd.DistributedGraph(cluster2, G, num_partitions=bad)
    dg = hpd.DistributedGraph(cluster2, one, num_partitions=1)  # fewer partitions than workers
    assert dg.num_partitions == 1
    np.testing.assert_array_equal(hpd.bfs(dg, 0), [0])


def test_release(cluster2):
    dg = hpd.DistributedGraph(cluster2, hp.Graph.from_edges([0], [1]))
    dg.release()
    with pytest.raises(hp.exceptions.WorkerLost, match="released"):
        hpd.pagerank(dg)


@pytest.mark.parametrize("directed,weights,duplicates,self_loops", [
    (False, None, "min", "drop"), (True, None, "min", "keep"),
    (False, (1, 9), "first", "keep"), (True, (1, 9), "last", "drop"), (False, (1, 9), "sum", "keep")])
def test_from_chunks_equals_the_split_graph(cluster, directed, weights, duplicates, self_loops):
    """Partitions built on the workers from chunks equal the row slices of A^T of the graph
    Graph.from_edges builds from the same chunks (duplicates combined in the same order)."""
    import functools

    make = functools.partial(hp.generators.rmat_chunks, 9, edge_factor=8, seed=5, weights=weights,
                             backend="cpu", chunk_size=700)
    chunks = make()
    G = hp.Graph.from_edges(chunks, num_vertices=chunks.num_vertices, directed=directed,
                            duplicates=duplicates, self_loops=self_loops, backend="cpu")
    dg = hpd.DistributedGraph.from_chunks(cluster, make, directed=directed, duplicates=duplicates,
                                          self_loops=self_loops)
    assert (dg.num_vertices, dg.num_edges, dg.directed, dg.weighted) == \
        (G.num_vertices, G.num_edges, directed, weights is not None)
    # the ranges balance the entries counted before duplicates merge
    counted = np.zeros(G.num_vertices, np.int64)
    for u, v, _ in chunks():
        keep = (u != v) if self_loops == "drop" else np.ones(len(u), bool)
        np.add.at(counted, v[keep], 1)
        if not directed:
            np.add.at(counted, u[keep & (u != v)], 1)
    np.testing.assert_array_equal(dg.bounds, split_rows(np.r_[0, np.cumsum(counted)], dg.num_partitions))
    AT = G.AT
    ip = np.asarray(AT.indptr)
    for r, part in enumerate(cluster.client.gather(dg.futures)):
        lo, hi = int(dg.bounds[r]), int(dg.bounds[r + 1])
        s0, e0 = int(ip[lo]), int(ip[hi])
        assert (part.lo, part.hi, part.matrix.shape) == (lo, hi, (hi - lo, G.num_vertices))
        np.testing.assert_array_equal(np.asarray(part.matrix.indptr), ip[lo:hi + 1] - s0)
        np.testing.assert_array_equal(np.asarray(part.matrix.indices), np.asarray(AT.indices)[s0:e0])
        assert dg.partition_edges[r] == e0 - s0
        if weights is None:
            assert part.matrix.values is None
        else:
            np.testing.assert_array_equal(np.asarray(part.matrix.values), np.asarray(AT.values)[s0:e0])
    np.testing.assert_array_equal(hpd.bfs(dg, 0), hp.bfs(G, 0, backend="cpu").depth)


class _BadChunks:
    """A chunk source whose source ids reach past num_vertices."""

    def __init__(self, n, bad, weight=None):
        self.num_vertices, self.bad, self.weight = n, bad, weight

    def __call__(self):
        w = None if self.weight is None else np.array([1.0, self.weight])
        return iter([(np.array([0, self.bad]), np.array([1, 2]), w)])


def test_from_chunks_bad_arguments(cluster2):
    import functools

    with pytest.raises(InvalidValue, match="make_chunks must be a callable"):
        hpd.DistributedGraph.from_chunks(cluster2, 3)
    make = functools.partial(hp.generators.rmat_chunks, 5, backend="cpu")
    with pytest.raises(InvalidValue, match="num_partitions"):
        hpd.DistributedGraph.from_chunks(cluster2, make, num_partitions=3)
    with pytest.raises(InvalidValue, match="self_loops"):
        hpd.DistributedGraph.from_chunks(cluster2, make, self_loops="nope")
    with pytest.raises(InvalidValue, match="duplicates"):
        hpd.DistributedGraph.from_chunks(cluster2, make, duplicates="nope")
    with pytest.raises(InvalidValue, match="a src id is outside"):   # a column id of A^T
        hpd.DistributedGraph.from_chunks(cluster2, functools.partial(_BadChunks, 5, 9))
    with pytest.raises(InvalidGraph, match="from_chunks: weights.* is not finite"):  # as from_edges
        hpd.DistributedGraph.from_chunks(cluster2, functools.partial(_BadChunks, 5, 3, np.nan))


def _split_like(rng, n, m):
    u = rng.integers(0, n, m)
    v = rng.integers(0, n, m)
    u[:5], v[:5] = 3, 3                     # self-loops
    u[5:10], v[5:10] = u[10:15], v[10:15]   # duplicates
    return u, v, rng.integers(1, 9, m).astype(np.float64)


@pytest.mark.parametrize("kind", ["dataframe", "arrays"])
@pytest.mark.parametrize("directed,weighted,duplicates,self_loops", [
    (False, False, "min", "drop"), (True, True, "first", "keep"), (False, True, "sum", "keep"),
    (True, False, "min", "drop")])
def test_from_dask_equals_from_edges(cluster, kind, directed, weighted, duplicates, self_loops):
    """Partitions from a Dask dataframe / Dask arrays equal the A^T row slices of
    Graph.from_edges on the concatenated arrays; isolated vertices past the largest id too."""
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(11)
    n, m = 60, 400
    u, v, w = _split_like(rng, 50, m)
    if kind == "dataframe":
        dd = pytest.importorskip("dask.dataframe")
        pd = pytest.importorskip("pandas")
        df = pd.DataFrame({"a": u, "b": v, "w": w})
        edges = dd.from_pandas(df, npartitions=5)
        kw = dict(source="a", destination="b", weight="w" if weighted else None)
    else:
        edges = (da.from_array(u, chunks=90), da.from_array(v, chunks=70)) + \
            ((da.from_array(w, chunks=90),) if weighted else ())
        kw = {}
    G = hp.Graph.from_edges(u, v, w if weighted else None, num_vertices=n, directed=directed,
                            duplicates=duplicates, self_loops=self_loops, backend="cpu")
    dg = hpd.DistributedGraph.from_dask(cluster, edges, num_vertices=n, directed=directed,
                                        duplicates=duplicates, self_loops=self_loops, **kw)
    assert (dg.num_vertices, dg.num_edges, dg.weighted) == (n, G.num_edges, weighted)
    AT = G.AT
    ip = np.asarray(AT.indptr)
    for r, part in enumerate(cluster.client.gather(dg.futures)):
        lo, hi = int(dg.bounds[r]), int(dg.bounds[r + 1])
        s0, e0 = int(ip[lo]), int(ip[hi])
        np.testing.assert_array_equal(np.asarray(part.matrix.indptr), ip[lo:hi + 1] - s0)
        np.testing.assert_array_equal(np.asarray(part.matrix.indices), np.asarray(AT.indices)[s0:e0])
        if weighted:
            np.testing.assert_array_equal(np.asarray(part.matrix.values), np.asarray(AT.values)[s0:e0])
    np.testing.assert_array_equal(hpd.bfs(dg, 3), hp.bfs(G, 3, backend="cpu").depth)
    default_n = hpd.DistributedGraph.from_dask(cluster, edges, directed=directed, **kw)
    assert default_n.num_vertices == int(max(u.max(), v.max())) + 1


def test_from_dask_bad_input(cluster2):
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    df = dd.from_pandas(pd.DataFrame({"source": [0, 1], "destination": [1, -2]}), npartitions=1)
    with pytest.raises(InvalidValue, match="destination id -2 is negative"):
        hpd.DistributedGraph.from_dask(cluster2, df)
    with pytest.raises(InvalidValue, match="weight='w' is not a column"):
        hpd.DistributedGraph.from_dask(cluster2, df, weight="w")
    with pytest.raises(InvalidValue, match="edges must be a Dask dataframe"):
        hpd.DistributedGraph.from_dask(cluster2, np.zeros(3))
    a = da.from_array(np.array([0, 1, 2]), chunks=2)
    with pytest.raises(InvalidValue, match="of one length"):
        hpd.DistributedGraph.from_dask(cluster2, (a, a[:2]))
    with pytest.raises(InvalidValue, match="num_vertices must be an int of at least 3"):
        hpd.DistributedGraph.from_dask(cluster2, (a, a), num_vertices=2)
    f = da.from_array(np.array([0.5, 1.0, 2.0]), chunks=2)
    with pytest.raises(InvalidValue, match="ids must be integers"):
        hpd.DistributedGraph.from_dask(cluster2, (f, a))
    nan = da.from_array(np.array([1.0, np.nan, 2.0]), chunks=2)
    with pytest.raises(InvalidGraph, match="from_dask: weights.* is not finite"):
        hpd.DistributedGraph.from_dask(cluster2, (a, a, nan))
