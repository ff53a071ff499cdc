"""Graph: construction from edges / scipy / networkx, derived matrices, errors."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from hpgraph import backend
from hpgraph.exceptions import DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidGraph, InvalidValue
from hpgraph.formats import COO, CSR, HYB
from hpgraph.graph import Graph


def dense(G):
    return G.to_scipy().toarray()


def host(a):
    return backend.to_host(a)


# -- from_edges ------------------------------------------------------------------------


def test_from_edges_directed(backend_name):
    G = Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], [1.0, 2.0, 3.0, 4.0], backend=backend_name)
    assert G.on_device == (backend_name == "gpu")
    assert G.num_vertices == 4 and G.num_edges == 4 and G.directed and G.weighted
    assert G.dtype == np.float64
    expect = np.zeros((4, 4))
    expect[0, 1], expect[1, 2], expect[2, 0], expect[2, 3] = 1, 2, 3, 4
    np.testing.assert_array_equal(dense(G), expect)
    np.testing.assert_array_equal(G.AT.to_scipy().toarray(), expect.T)
    np.testing.assert_array_equal(host(G.out_degree), [1, 1, 2, 0])
    np.testing.assert_array_equal(host(G.in_degree), [1, 1, 1, 1])
    G.A.check(full=True)
    G.AT.check(full=True)


def test_from_edges_undirected_stores_both_directions_and_loops_once():
    G = Graph.from_edges([0, 1, 2], [1, 1, 0], [5.0, 7.0, 9.0], directed=False)
    assert not G.directed
    assert G.num_edges == 5  # (0,1),(1,0),(1,1),(2,0),(0,2)
    np.testing.assert_array_equal(dense(G), [[0, 5, 9], [5, 7, 0], [9, 0, 0]])
    assert G.AT is G.A
    assert G.in_degree is G.out_degree
    np.testing.assert_array_equal(G.out_degree, [2, 2, 1])
    assert G.hyb("AT") is G.hyb("A")


@pytest.mark.parametrize("how, expect01, expect10", [
    ("min", 1.0, 4.0), ("max", 3.0, 4.0), ("sum", 6.0, 4.0), ("first", 3.0, 4.0), ("last", 2.0, 4.0)])
def test_duplicates_directed(how, expect01, expect10):
    G = Graph.from_edges([0, 0, 1, 0], [1, 1, 0, 1], [3.0, 1.0, 4.0, 2.0], duplicates=how)
    assert G.num_edges == 2
    d = dense(G)
    assert d[0, 1] == expect01 and d[1, 0] == expect10


def test_duplicates_default_is_min_and_keep_keeps():
    G = Graph.from_edges([0, 0], [1, 1], [3.0, 1.0])
    assert G.num_edges == 1 and dense(G)[0, 1] == 1.0
    K = Graph.from_edges([0, 0], [1, 1], [3.0, 1.0], duplicates="keep")
    assert K.num_edges == 2
    np.testing.assert_array_equal(K.A.values, [3.0, 1.0])


@pytest.mark.parametrize("how, expect", [
    ("min", 1.0), ("max", 5.0), ("sum", 9.0), ("first", 3.0), ("last", 5.0)])
def test_duplicates_undirected_treat_both_orientations_as_one_edge(how, expect):
    # (0,1) then (1,0) then (0,1): one undirected edge
    G = Graph.from_edges([0, 1, 0], [1, 0, 1], [3.0, 1.0, 5.0], directed=False, duplicates=how)
    assert G.num_edges == 2
    d = dense(G)
    assert d[0, 1] == expect and d[1, 0] == expect


def test_unweighted_and_num_vertices():
    G = Graph.from_edges(np.array([0, 2]), np.array([2, 0]), num_vertices=5)
    assert not G.weighted and G.dtype is None and G.A.is_pattern
    assert G.num_vertices == 5
    np.testing.assert_array_equal(G.out_degree, [1, 0, 1, 0, 0])
    E = Graph.from_edges([], [])
    assert E.num_vertices == 0 and E.num_edges == 0
    assert E.hyb().K == 0
    I = Graph.from_edges([], [], [], num_vertices=3, directed=False)
    assert I.num_vertices == 3 and I.num_edges == 0 and I.weighted


def test_from_edges_dtypes_and_index_dtype():
    G = Graph.from_edges(np.array([0, 1], np.uint8), np.array([1, 0], np.int64), np.array([2, 3], np.int16))
    assert G.dtype == np.int16 and G.A.index_dtype == np.int32
    W = Graph.from_edges([0, 1], [1, 0], index_dtype="int64")
    assert W.A.index_dtype == np.int64 and W.AT.index_dtype == np.int64
    assert W.hyb().index_dtype == np.int64


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(src=[0, -1], dst=[1, 0]), IndexOutOfBound, r"src\[1\] = -1 is negative"),
    (dict(src=[0, 1], dst=[1, -3]), IndexOutOfBound, r"dst\[1\] = -3 is negative"),
    (dict(src=[0, 5], dst=[1, 0], num_vertices=3), IndexOutOfBound, r"src\[1\] = 5 is out of range for num_vertices=3"),
    (dict(src=[0, 1], dst=[1, 3], num_vertices=3), IndexOutOfBound, r"dst\[1\] = 3 is out of range"),
    (dict(src=[0, 1, 2], dst=[1, 0]), DimensionMismatch, "src and dst must have the same length, got 3 and 2"),
    (dict(src=[0, 1], dst=[1, 0], weights=[1.0]), DimensionMismatch, "weights has 1 values but there are 2 edges"),
    (dict(src=[0, 1], dst=[1, 0], weights=[1.0, np.nan]), InvalidGraph, r"weights\[1\] = nan is not finite"),
    (dict(src=[0, 1], dst=[1, 0], weights=[np.inf, 1.0]), InvalidGraph, r"weights\[0\] = inf is not finite"),
    (dict(src=[0, 1], dst=[1, 0], weights=[[1.0, 2.0]]), InvalidGraph, "weights must be a 1-D array"),
    (dict(src=[0, 1], dst=[1, 0], weights=[1j, 2j]), DomainMismatch, "weights"),
    (dict(src=[0.0, 1.0], dst=[1, 0]), InvalidGraph, "src must hold integer vertex ids, got dtype float64"),
    (dict(src=[0, 1], dst=[[1, 0]]), InvalidGraph, "dst must be a 1-D array"),
    (dict(src=[0, 1], dst=[True, False]), InvalidGraph, "dst must hold integer"),
    (dict(src=[0], dst=[1], duplicates="mean"), InvalidValue, "duplicates must be one of"),
    (dict(src=[0], dst=[1], directed="yes"), InvalidValue, "directed must be True or False"),
    (dict(src=[0], dst=[1], num_vertices=-1), InvalidValue, "num_vertices must be a non-negative integer"),
    (dict(src=[0], dst=[1], num_vertices=2.5), InvalidValue, "num_vertices"),
    (dict(src=[0], dst=[1], backend="tpu"), InvalidValue, "backend must be one of"),
])
def test_from_edges_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Graph.from_edges(**kwargs)


def test_errors_are_builtin_compatible():
    with pytest.raises(IndexError):
        Graph.from_edges([-1], [0])
    with pytest.raises(ValueError):
        Graph.from_edges([0], [0], [np.nan])


def test_caller_arrays_unchanged_and_not_shared():
    src = np.array([2, 0, 1, 0], dtype=np.int64)
    dst = np.array([0, 1, 2, 1], dtype=np.int64)
    w = np.array([1.5, 2.5, 3.5, 0.5])
    saved = [a.copy() for a in (src, dst, w)]
    for directed in (True, False):
        for how in ("min", "keep", "first"):
            G = Graph.from_edges(src, dst, w, directed=directed, duplicates=how)
            for arr in (G.A.indptr, G.A.indices, G.A.values):
                for a in (src, dst, w):
                    assert not np.shares_memory(arr, a)
    for a, b in zip((src, dst, w), saved):
        np.testing.assert_array_equal(a, b)
        assert a.flags.writeable
    # a caller writing to its arrays afterwards does not change the graph
    G = Graph.from_edges(src, dst, w)
    before = dense(G)
    w[:] = 100.0
    np.testing.assert_array_equal(dense(G), before)


# -- from_scipy / Graph(A) -------------------------------------------------------------


@pytest.mark.parametrize("kind", [sp.csr_array, sp.csr_matrix, sp.coo_array, sp.coo_matrix, sp.csc_array,
                                  sp.csc_matrix])
def test_from_scipy_infers_direction(kind):
    sym = np.array([[0, 2.0, 0], [2.0, 0, 1.0], [0, 1.0, 5.0]])
    G = Graph.from_scipy(kind(sym))
    assert not G.directed and G.num_edges == 5
    np.testing.assert_array_equal(dense(G), sym)
    asym = sym.copy()
    asym[0, 1] = 3.0  # same pattern, different values: directed
    D = Graph.from_scipy(kind(asym))
    assert D.directed
    np.testing.assert_array_equal(D.AT.to_scipy().toarray(), asym.T)
    with pytest.raises(InvalidGraph, match="directed=False needs a symmetric adjacency matrix"):
        Graph.from_scipy(kind(asym), directed=False)
    F = Graph.from_scipy(kind(sym), directed=True)
    assert F.directed


def test_from_scipy_sums_duplicates_and_keeps_zeros():
    A = sp.coo_array(([1.0, 2.0, 0.0], ([0, 0, 1], [1, 1, 2])), shape=(3, 3))
    G = Graph.from_scipy(A)
    assert G.directed and G.num_edges == 2  # the two (0,1) entries sum; the stored zero stays an edge
    assert dense(G)[0, 1] == 3.0
    np.testing.assert_array_equal(host(G.out_degree), [1, 1, 0])
    unsorted = sp.csr_array((np.array([1.0, 2.0]), np.array([2, 0]), np.array([0, 2, 2, 2])), shape=(3, 3))
    U = Graph.from_scipy(unsorted)
    U.A.check(full=True)
    np.testing.assert_array_equal(dense(U), unsorted.toarray())


def test_graph_constructor_forms():
    csr = COO([0, 1], [1, 2], [1.0, 2.0], (3, 3)).to_csr()
    G = Graph(csr, directed=True)
    assert G.A is csr and G.directed
    assert Graph(csr).directed  # inferred
    assert Graph(csr.to_hyb()).num_edges == 2
    assert Graph.from_matrix(csr.to_coo()).num_edges == 2
    assert Graph(G).A is csr and Graph(G).directed
    with pytest.raises(DimensionMismatch, match="must be square, got 2x3"):
        Graph(COO([0], [2], None, (2, 3)))
    with pytest.raises(InvalidValue, match="expected a scipy.sparse"):
        Graph.from_scipy(csr)
    with pytest.raises(InvalidValue, match="node_labels has 1 labels for 3 vertices"):
        Graph(csr, node_labels=["a"])
    with pytest.raises(InvalidValue, match="directed must be"):
        Graph(csr, directed="no")
    sym = Graph(COO([0, 1], [1, 0], None, (2, 2)))
    assert not sym.directed and not sym.weighted
    assert Graph(sym, directed=True).directed


def test_to_scipy_is_a_private_csr_array():
    G = Graph.from_edges([0, 1], [1, 0], [1.0, 2.0])
    S = G.to_scipy()
    assert isinstance(S, sp.csr_array)
    S.data[:] = 0
    assert dense(G).sum() == 3.0


# -- networkx --------------------------------------------------------------------------


def _edge_dict(H, weight="weight"):
    return {(u, v) if H.is_directed() else frozenset((u, v)): d.get(weight) for u, v, d in H.edges(data=True)}


def test_networkx_round_trip_directed_with_labels():
    H = nx.DiGraph()
    H.add_nodes_from(["x", "isolated"])
    H.add_edge("a", "b", weight=2.5)
    H.add_edge("b", "x", weight=-1.0)
    H.add_edge("x", "x", weight=4.0)
    G = Graph.from_networkx(H)
    assert G.node_labels == list(H) == ["x", "isolated", "a", "b"]
    assert G.directed and G.num_vertices == 4 and G.num_edges == 3
    assert dense(G)[2, 3] == 2.5  # a -> b
    back = G.to_networkx()
    assert isinstance(back, nx.DiGraph)
    assert list(back) == list(H)
    assert _edge_dict(back) == _edge_dict(H)


def test_networkx_round_trip_undirected():
    H = nx.karate_club_graph()
    G = Graph.from_networkx(H)
    assert not G.directed and G.num_edges == 2 * H.number_of_edges()
    np.testing.assert_array_equal(dense(G), nx.to_scipy_sparse_array(H, nodelist=list(H)).toarray())
    back = G.to_networkx()
    assert type(back) is nx.Graph
    assert _edge_dict(back) == _edge_dict(H)


def test_networkx_unweighted_missing_weights_and_multigraph():
    H = nx.path_graph(4)
    G = Graph.from_networkx(H)
    assert not G.weighted
    assert _edge_dict(G.to_networkx()) == _edge_dict(H)
    H.add_edge(0, 1, weight=3)
    W = Graph.from_networkx(H)
    assert W.weighted and dense(W)[0, 1] == 3 and dense(W)[1, 2] == 1  # missing -> 1
    assert not Graph.from_networkx(H, weight=None).weighted
    M = nx.MultiDiGraph()
    M.add_edge(0, 1, weight=5.0)
    M.add_edge(0, 1, weight=2.0)
    assert dense(Graph.from_networkx(M))[0, 1] == 2.0
    assert dense(Graph.from_networkx(M, duplicates="sum"))[0, 1] == 7.0
    bad = nx.Graph()
    bad.add_edge(0, 1, weight="heavy")
    with pytest.raises(DomainMismatch, match="numeric"):
        Graph.from_networkx(bad)


# -- derived matrices and caching ------------------------------------------------------


def test_hyb_cache_and_degrees():
    rng = np.random.default_rng(0)
    n = 50
    src = rng.integers(0, n, 400)
    dst = (src + rng.zipf(1.5, 400)) % n
    G = Graph.from_edges(src, dst, rng.random(400))
    h = G.hyb()
    assert isinstance(h, HYB) and G.hyb() is h and G.hyb("A") is h
    assert (h.to_scipy() != G.to_scipy()).nnz == 0
    ht = G.hyb("AT")
    assert (ht.to_scipy() != G.to_scipy().T).nnz == 0
    assert G.hyb(K=2).K == 2 and G.hyb(K=2) is G.hyb(K=2)
    with pytest.raises(InvalidValue, match="which must be 'A' or 'AT'"):
        G.hyb("B")
    assert G.AT is G.AT
    np.testing.assert_array_equal(G.in_degree, G.AT.row_lengths())
    np.testing.assert_array_equal(G.in_degree, np.bincount(G.A.indices, minlength=n))
    np.testing.assert_array_equal(G.out_degree, np.diff(G.A.indptr))
    assert G.out_degree is G.out_degree
    with pytest.raises(ValueError):
        G.out_degree[0] = 3  # cached arrays are read-only
    # in_degree computed before AT was ever built
    G2 = Graph.from_edges(src, dst)
    np.testing.assert_array_equal(G2.in_degree, np.bincount(dst[np.unique(src * n + dst, return_index=True)[1]],
                                                            minlength=n))


def test_attributes_and_repr():
    G = Graph.from_edges([0], [1], [2.0])
    assert G.xp is np and not G.on_device and G.side == "cpu"
    assert G.to_host() is G
    r = repr(G)
    assert "num_vertices=2" in r and "num_edges=1" in r and "directed=True" in r and "float64" in r
    assert "unweighted" in repr(Graph.from_edges([0], [1]))
    assert isinstance(G.A, CSR)


# -- device ----------------------------------------------------------------------------


@pytest.mark.gpu
def test_device_graph_matches_host():
    cp = backend.cupy()
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 30, 200), rng.integers(0, 30, 200)
    w = rng.random(200)
    for directed in (True, False):
        for how in ("min", "max", "sum", "first", "last", "keep"):
            H = Graph.from_edges(src, dst, w, directed=directed, duplicates=how)
            D = Graph.from_edges(cp.asarray(src), cp.asarray(dst), cp.asarray(w), directed=directed,
                                 duplicates=how)
            assert D.on_device and isinstance(D.A.indices, cp.ndarray)
            np.testing.assert_allclose(dense(D), dense(H))
            np.testing.assert_array_equal(D.out_degree.get(), H.out_degree)
            np.testing.assert_array_equal(D.in_degree.get(), H.in_degree)
            assert D.hyb().K == H.hyb().K
            np.testing.assert_array_equal(D.hyb("AT").ell.indices.get(), H.hyb("AT").ell.indices)
    with pytest.raises(IndexOutOfBound, match="src"):
        Graph.from_edges(cp.asarray([0, -1]), cp.asarray([1, 0]))
    with pytest.raises(InvalidGraph, match="weights"):
        Graph.from_edges(cp.asarray([0]), cp.asarray([1]), cp.asarray([np.nan]))


@pytest.mark.gpu
def test_to_device_is_cached_both_ways():
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], backend="cpu")
    D = G.to_device()
    assert D.on_device and G.to_device() is D and D.to_host() is G
    assert D.directed == G.directed
    np.testing.assert_array_equal(dense(D), dense(G))
    import cupyx.scipy.sparse as cxs

    C = Graph.from_scipy(cxs.csr_matrix(G.to_scipy()))
    assert C.on_device and C.directed


def test_matrix_cache_counted_and_not_pickled():
    """What a matrix derives (here the transpose vxm builds) lives in the matrix's one cache,
    is counted by Graph.memory_usage(deep=True) and is not pickled."""
    import pickle

    from hpgraph.spmv.api import _transpose_csr

    G = Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], num_vertices=5, backend="cpu")
    A = G.A
    assert A.derived_items() == {} and "A/transpose_csr" not in G.memory_usage(deep=True)
    T = _transpose_csr(A)
    assert _transpose_csr(A) is T and A.derived_items() == {"transpose_csr": T}
    want = T.indptr.nbytes + T.indices.nbytes + (0 if T.values is None else T.values.nbytes)
    assert G.memory_usage(deep=True)["A/transpose_csr"] == want
    np.testing.assert_array_equal(T.to_scipy().toarray(), A.to_scipy().toarray().T)
    B = pickle.loads(pickle.dumps(A))
    assert B.derived_items() == {}
    np.testing.assert_array_equal(np.asarray(B.indices), np.asarray(A.indices))
    calls = []
    assert A.derived("x", lambda: calls.append(1) or 7) == 7 and A.derived("x", lambda: 8) == 7
    assert calls == [1]
