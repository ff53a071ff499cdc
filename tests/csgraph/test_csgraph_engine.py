"""hpgraph.csgraph against scipy.sparse.csgraph on many random graphs.

Graphs include explicit zeros, self-loops, duplicate entries (CSR: parallel edges; COO: summed
by ``tocsr``), unsorted CSR rows, disconnected parts, negative weights, dense inputs, directed
and undirected use, and single / multiple sources.  Distances, BFS orders, BFS predecessors
and weak-component labels must be identical to SciPy's; shortest-path predecessors must form a
valid shortest-path tree (SciPy's choice among equal paths is not part of its contract); strong
components must give SciPy's partition.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as cg

import hpgraph.csgraph as hc

FORMATS = ("csr", "coo", "csc", "csr_unsorted", "dense")


def random_graph(rng, fmt, *, n=None, negative=False, density=None):
    n = int(rng.integers(1, 40)) if n is None else n
    m = int(rng.integers(0, 4 * n + 1)) if density is None else int(density * n * n)
    r = rng.integers(0, n, m)
    c = rng.integers(0, n, m)
    lo = -2 if negative else 0
    w = rng.integers(lo, 6, m).astype(float)  # zeros are explicit edges in sparse input
    if fmt == "coo":
        return sp.coo_array((w, (r, c)), shape=(n, n))
    if fmt == "csc":
        return sp.csc_array((w, (r, c)), shape=(n, n))
    if fmt == "csr":
        return sp.csr_array((w, (r, c)), shape=(n, n))
    if fmt == "csr_unsorted":  # rows in input order, duplicates kept as parallel edges
        o = np.argsort(r, kind="stable")
        indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=n))]
        return sp.csr_array((w[o], c[o], indptr), shape=(n, n))
    d = np.zeros((n, n))
    d[r, c] = np.where(w == 0, 3.0, w)
    d[rng.random((n, n)) < 0.05] = np.inf  # inf / NaN mean "no edge" in dense input
    d[rng.random((n, n)) < 0.05] = np.nan
    return d


def canonical(labels):
    """Component labels renumbered by smallest vertex (to compare partitions)."""
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[order] = np.arange(first.shape[0])
    return rank[labels]


def edge_weights(A, directed):
    """dict (i, j) -> smallest weight of an edge usable from i to j, as scipy reads the input."""
    if sp.issparse(A):
        if not directed and A.format == "csc":
            A = A.T
        A = A.tocsr()
        r = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
        c, w = A.indices, A.data
    else:
        keep = (A != 0) & np.isfinite(A)
        r, c = np.nonzero(keep)
        w = A[r, c]
    best = {}
    pairs = list(zip(r.tolist(), c.tolist(), w.tolist()))
    if not directed:
        pairs += [(j, i, x) for i, j, x in pairs]
    for i, j, x in pairs:
        if (i, j) not in best or x < best[(i, j)]:
            best[(i, j)] = x
    return best


def check_tree(A, directed, dist, pred, sources, unweighted=False):
    """pred is a shortest-path tree for dist (one row per source)."""
    w = edge_weights(A, directed)
    for row, s in enumerate(sources):
        d, p = dist[row], pred[row]
        assert p[s] == -9999
        for v in range(d.shape[0]):
            if v == s or not np.isfinite(d[v]):
                assert p[v] == -9999 or v == s
                continue
            u = int(p[v])
            assert (u, v) in w
            step = 1.0 if unweighted else w[(u, v)]
            assert d[u] + step == d[v]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("directed", [True, False])
def test_breadth_first_order_identical(fmt, directed):
    rng = np.random.default_rng(2 * FORMATS.index(fmt) + int(directed))
    for _ in range(12):
        A = random_graph(rng, fmt)
        s = int(rng.integers(0, A.shape[0]))
        o1, p1 = cg.breadth_first_order(A, s, directed=directed)
        o2, p2 = hc.breadth_first_order(A, s, directed=directed)
        assert o2.dtype == np.int32 and p2.dtype == np.int32
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(p1, p2)
        np.testing.assert_array_equal(hc.breadth_first_order(A, s, directed, False), o1)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False])
def test_breadth_first_order_gpu_rmat(directed):
    """CuPy in, the level order on the device: SciPy's order and predecessors on R-MAT 12."""
    import cupyx.scipy.sparse as csp

    import hpgraph as hp

    G = hp.generators.rmat(12, edge_factor=8, seed=3, directed=True, backend="cpu")
    A = sp.csr_matrix(G.to_scipy())
    for s in (0, 17, 4095):
        o1, p1 = cg.breadth_first_order(A, s, directed=directed)
        o2, p2 = hc.breadth_first_order(csp.csr_matrix(A), s, directed=directed)
        np.testing.assert_array_equal(o2.get(), o1)
        np.testing.assert_array_equal(p2.get(), p1)
        o3 = hc.breadth_first_order(A, s, directed=directed, return_predecessors=False,
                                    backend="gpu")
        assert isinstance(o3, np.ndarray)
        np.testing.assert_array_equal(o3, o1)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("directed", [True, False])
def test_level_order_is_scipys(fmt, directed):
    """The array-level BFS order the GPU path runs (here on NumPy arrays) against SciPy's queue:
    random graphs with duplicates, self-loops, explicit zeros and unreachable parts."""
    from hpgraph.csgraph._bfs_order import bfs_order, with_transpose
    from hpgraph.csgraph._engine import _parse

    rng = np.random.default_rng(40 + 2 * FORMATS.index(fmt) + int(directed))
    for _ in range(12):
        A = random_graph(rng, fmt)
        n = A.shape[0]
        inp = _parse(A, directed)
        indptr, indices, _ = inp.host()
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
        if not directed:
            indptr, indices = with_transpose(np, indptr, indices, n)
        for s in {0, int(rng.integers(0, n)), n - 1}:
            o1, p1 = cg.breadth_first_order(A, s, directed=directed)
            o2, p2 = bfs_order(np, indptr, indices, s, n)
            np.testing.assert_array_equal(o2, o1)
            np.testing.assert_array_equal(p2, p1)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("directed", [True, False])
def test_dijkstra_matches(fmt, directed):
    rng = np.random.default_rng(70 + 2 * FORMATS.index(fmt) + int(directed))
    for _ in range(8):
        A = random_graph(rng, fmt)
        n = A.shape[0]
        idx = [int(rng.integers(0, n)), 0, -1]
        d1, p1 = cg.dijkstra(A, directed=directed, indices=idx, return_predecessors=True)
        d2, p2 = hc.dijkstra(A, directed=directed, indices=idx, return_predecessors=True)
        assert d2.dtype == np.float64 and p2.dtype == np.int32 and d2.shape == (3, n)
        np.testing.assert_array_equal(d1, d2)
        check_tree(A, directed, d2, p2, [i % n for i in idx])
        # scalar index -> 1-D
        s = int(rng.integers(0, n))
        d = hc.dijkstra(A, directed=directed, indices=s)
        assert d.shape == (n,)
        np.testing.assert_array_equal(d, cg.dijkstra(A, directed=directed, indices=s))


def test_all_pairs_and_methods():
    rng = np.random.default_rng(3)
    for fmt in ("csr", "dense", "csc"):
        A = random_graph(rng, fmt, n=25)
        for method in ("auto", "D", "BF", "J", "FW"):
            d1 = cg.shortest_path(A, method=method)
            d2, p2 = hc.shortest_path(A, method=method, return_predecessors=True)
            np.testing.assert_array_equal(d1, d2)
            assert d2.shape == (25, 25)
            check_tree(A, True, d2, p2, range(25))
        with pytest.raises(ValueError, match="FW"):
            hc.shortest_path(A, method="FW", indices=0)
        with pytest.raises(ValueError, match="unrecognized method"):
            hc.shortest_path(A, method="X")


@pytest.mark.parametrize("directed", [True, False])
def test_unweighted(directed):
    rng = np.random.default_rng(11)
    for fmt in FORMATS:
        A = random_graph(rng, fmt)
        d1 = cg.shortest_path(A, method="D", directed=directed, unweighted=True)
        d2, p2 = hc.shortest_path(A, directed=directed, unweighted=True, return_predecessors=True)
        np.testing.assert_array_equal(d1, d2)
        check_tree(A, directed, d2, p2, range(A.shape[0]), unweighted=True)


def test_limit_and_min_only():
    rng = np.random.default_rng(5)
    for fmt in ("csr", "coo", "dense"):
        A = random_graph(rng, fmt, n=30)
        for limit in (0, 2.5, 4, np.inf):
            np.testing.assert_array_equal(cg.dijkstra(A, indices=[0, 3], limit=limit),
                                          hc.dijkstra(A, indices=[0, 3], limit=limit))
        d1, p1, s1 = cg.dijkstra(A, indices=[0, 3, 7], min_only=True, return_predecessors=True)
        d2, p2, s2 = hc.dijkstra(A, indices=[0, 3, 7], min_only=True, return_predecessors=True)
        np.testing.assert_array_equal(d1, d2)
        assert d2.shape == p2.shape == s2.shape == (30,)
        assert (s2[[0, 3, 7]] == [0, 3, 7]).all() and (p2[[0, 3, 7]] == -9999).all()
        reached = np.isfinite(d2)
        assert ((s2 >= 0) == reached).all()
        for v in np.flatnonzero(reached):  # the source found by walking the tree
            u = v
            while p2[u] != -9999:
                u = p2[u]
            assert u == s2[v]
    with pytest.raises(ValueError, match="limit"):
        hc.dijkstra(sp.eye_array(3, format="csr"), limit=-1)


def test_negative_weights_and_cycles():
    NegativeCycleError = cg.NegativeCycleError
    assert hc.NegativeCycleError is NegativeCycleError
    rng = np.random.default_rng(9)
    seen_cycle = seen_ok = 0
    for _ in range(30):
        A = random_graph(rng, "csr", n=12, negative=True, density=0.12)
        try:
            d1 = cg.bellman_ford(A, indices=[0, 5])
        except NegativeCycleError:
            seen_cycle += 1
            with pytest.raises(NegativeCycleError):
                hc.bellman_ford(A, indices=[0, 5])
            with pytest.raises(NegativeCycleError):
                hc.shortest_path(A, method="J", indices=0)
            continue
        seen_ok += 1
        np.testing.assert_array_equal(d1, hc.bellman_ford(A, indices=[0, 5]))
        d2, p2 = hc.bellman_ford(A, indices=[0, 5], return_predecessors=True)
        check_tree(A, True, d2, p2, [0, 5])
        try:
            dj = cg.johnson(A, indices=[0, 5])
        except NegativeCycleError:  # a cycle elsewhere: Johnson checks the whole graph
            with pytest.raises(NegativeCycleError):
                hc.johnson(A, indices=[0, 5])
        else:
            np.testing.assert_array_equal(dj, hc.johnson(A, indices=[0, 5]))
            np.testing.assert_array_equal(dj, hc.shortest_path(A, indices=[0, 5]))
    assert seen_cycle and seen_ok
    # Dijkstra with negative weights: scipy's warning, exact distances
    A = sp.csr_array(np.array([[0, 1, 4], [0, 0, -2], [0, 0, 0.0]]))
    with pytest.warns(UserWarning, match="negative weights"):
        d = hc.dijkstra(A, indices=0)
    np.testing.assert_array_equal(d, [0, 1, -1])
    # an undirected negative edge is a negative cycle
    with pytest.raises(NegativeCycleError):
        hc.bellman_ford(A, directed=False, indices=0)


@pytest.mark.parametrize("fmt", FORMATS)
def test_connected_components(fmt):
    rng = np.random.default_rng(13 + FORMATS.index(fmt))
    for _ in range(10):
        A = random_graph(rng, fmt)
        for directed in (True, False):
            k1, l1 = cg.connected_components(A, directed=directed)
            k2, l2 = hc.connected_components(A, directed=directed)
            assert type(k2) is int and k1 == k2 and l2.dtype == np.int32
            np.testing.assert_array_equal(l1, l2)
            # scipy 1.17 hangs on strong components of a CSR with duplicates: give it a clean copy
            B = sp.csr_array(A).copy() if sp.issparse(A) else A
            if sp.issparse(B):
                B.sum_duplicates()
            k1, l1 = cg.connected_components(B, directed=directed, connection="strong")
            k2, l2 = hc.connected_components(A, directed=directed, connection="Strong")
            assert k1 == k2
            np.testing.assert_array_equal(canonical(l1), l2)
            assert hc.connected_components(A, directed, "strong", return_labels=False) == k1
    with pytest.raises(ValueError, match="connection"):
        hc.connected_components(A, connection="medium")


def test_strong_components_long_cycle_and_dag():
    n = 200
    ring = sp.csr_array((np.ones(n), (np.arange(n), (np.arange(n) + 1) % n)), shape=(n, n))
    assert hc.connected_components(ring, connection="strong")[0] == 1
    path = sp.csr_array((np.ones(n - 1), (np.arange(n - 1)[::-1], np.arange(1, n)[::-1])),
                        shape=(n, n))
    k, labels = hc.connected_components(path, connection="strong")
    assert k == n and (labels == np.arange(n)).all()


def test_inputs_untouched_and_errors():
    A = sp.csr_array(np.array([[0, 2.0, 0], [0, 0, 1], [1, 0, 0]]))
    before = (A.data.copy(), A.indices.copy(), A.indptr.copy())
    hc.shortest_path(A, overwrite=True)
    hc.breadth_first_order(A, 0, directed=False)
    assert all(np.array_equal(x, y) for x, y in zip(before, (A.data, A.indices, A.indptr)))
    with pytest.raises(ValueError, match="indices out of range"):
        hc.dijkstra(A, indices=3)
    with pytest.raises(IndexError):
        hc.breadth_first_order(A, 7)
    with pytest.raises(ValueError, match=r"\(N, N\)"):
        hc.dijkstra(np.ones((2, 3)))
    with pytest.raises(ValueError, match="2-D"):
        hc.dijkstra(np.ones(3))
    masked = np.ma.masked_array([[0, 1.0], [1, 0]], mask=[[True, True], [False, True]])
    np.testing.assert_array_equal(hc.dijkstra(masked), cg.dijkstra(masked))


def test_backend_keyword_and_shapes():
    A = sp.random_array((20, 20), density=0.2, random_state=1, format="csr")
    d = hc.dijkstra(A, indices=np.array([[0, 1], [2, 3]]), backend="cpu")
    assert d.shape == (2, 2, 20)
    np.testing.assert_array_equal(d, cg.dijkstra(A, indices=np.array([[0, 1], [2, 3]])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no spurious warnings on non-negative input
        hc.shortest_path(A, backend="cpu")


@pytest.mark.gpu
def test_cupy_in_cupy_out():
    import cupy as cp
    import cupyx.scipy.sparse as csp

    A = sp.random_array((50, 50), density=0.1, random_state=2, format="csr")
    dA = csp.csr_matrix(sp.csr_matrix(A))
    d = hc.dijkstra(dA, indices=[0, 1])
    assert isinstance(d, cp.ndarray)
    np.testing.assert_array_equal(d.get(), cg.dijkstra(A, indices=[0, 1]))
    o, p = hc.breadth_first_order(dA, 0)
    assert isinstance(o, cp.ndarray)
    np.testing.assert_array_equal(o.get(), cg.breadth_first_order(A, 0)[0])
    k, labels = hc.connected_components(dA, connection="strong")
    assert isinstance(labels, cp.ndarray)
    # numpy in -> numpy out even when computed on the GPU
    assert isinstance(hc.dijkstra(A, indices=0, backend="gpu"), np.ndarray)
