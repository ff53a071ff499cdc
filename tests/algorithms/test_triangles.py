"""Triangle counting against networkx.triangles and a SciPy trace, both backends; the GPU
kernel's source is NVRTC-compiled here (no GPU needed)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph.algorithms import _kernels
from hpgraph.exceptions import InvalidValue


def host(a):
    return hp.backend.to_host(a)


@pytest.mark.cases(directed=False)
def test_triangles_match_networkx(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    t = host(hp.triangles(G, backend=backend_name))
    assert t.dtype == np.int64 and t.shape == (case.n,)
    H = cases.to_networkx(case)          # self-loops are in H; networkx ignores them too
    ref = np.array([nx.triangles(H)[i] for i in range(case.n)], dtype=np.int64)
    np.testing.assert_array_equal(t, ref)
    total = hp.triangle_count(G, backend=backend_name)
    assert type(total) is int and total == int(ref.sum()) // 3


@pytest.mark.cases(directed=False)
def test_triangles_keep_duplicates(graph_case, backend_name, cases):
    """Repeated entries (a graph built with duplicates='keep') do not change the counts."""
    case = graph_case
    G = cases.to_graph(case, "cpu", duplicates="keep")
    G = G.to_device() if backend_name == "gpu" else G
    H = cases.to_networkx(case)
    assert hp.triangle_count(G, backend=backend_name) == sum(nx.triangles(H).values()) // 3


@pytest.mark.cases(directed=True)
def test_triangles_reject_directed(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    with pytest.raises(InvalidValue, match="symmetrize"):
        hp.triangle_count(G, backend=backend_name)
    with pytest.raises(InvalidValue):
        hp.triangles(G, backend=backend_name)


@pytest.mark.parametrize("scale,ef", [(9, 16), (11, 8)])
def test_triangle_count_rmat_trace(scale, ef, backend_name):
    G = hp.generators.rmat(scale, edge_factor=ef, seed=scale, backend="cpu")
    A = G.to_scipy().astype(np.int64)
    A.setdiag(0)
    A.eliminate_zeros()
    A.data[:] = 1
    ref = int((A @ A).multiply(A).sum()) // 6
    assert hp.triangle_count(G, backend=backend_name) == ref
    t = host(hp.triangles(G, backend=backend_name))
    np.testing.assert_array_equal(t, np.asarray((A @ A).multiply(A).sum(axis=1)).ravel() // 2)


def test_triangles_small_graphs(backend_name):
    K = hp.generators.complete(6, backend="cpu")
    assert hp.triangle_count(K, backend=backend_name) == 20
    np.testing.assert_array_equal(host(hp.triangles(K, backend=backend_name)), [10] * 6)
    for n in (0, 1, 2):
        G = hp.Graph.from_edges([], [], num_vertices=n, directed=False, backend="cpu")
        assert hp.triangle_count(G, backend=backend_name) == 0
        assert host(hp.triangles(G, backend=backend_name)).shape == (n,)
    # a hub with a long list against short ones (the binary-search path on the GPU)
    s = [0] * 200 + list(range(1, 200))
    d = list(range(1, 201)) + list(range(2, 201))
    G = hp.Graph.from_edges(s, d, num_vertices=201, directed=False, backend="cpu")
    H = nx.Graph(list(zip(s, d)))
    assert hp.triangle_count(G, backend=backend_name) == sum(nx.triangles(H).values()) // 3
    ref = nx.triangles(H)
    np.testing.assert_array_equal(host(hp.triangles(G, backend=backend_name)),
                                  [ref[i] for i in range(201)])


def test_triangles_inputs(backend_name):
    H = nx.gnp_random_graph(40, 0.3, seed=2)
    ref = sum(nx.triangles(H).values()) // 3
    assert hp.triangle_count(H, backend=backend_name) == ref
    assert hp.triangle_count(nx.to_scipy_sparse_array(H), backend=backend_name) == ref
    t = hp.triangles(H, backend=backend_name, to="numpy")
    assert isinstance(t, np.ndarray) and t.sum() == 3 * ref


@pytest.mark.parametrize("idx,ptr", [(np.int32, np.int64), (np.int64, np.int64),
                                     (np.int32, np.int32)])
def test_tc_kernel_compiles(idx, ptr):
    try:
        from hpgraph.backend import compile_ptx

        src, name = _kernels.tc_source(idx, ptr)
        ptx = compile_ptx(src, name + ".cu")
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert name in ptx


def test_oriented_structure_is_a_dag_with_each_edge_once():
    from hpgraph.algorithms.triangles import _oriented

    G = hp.generators.rmat(8, seed=1, backend="cpu")
    indptr, indices, erow = _oriented(G)
    A = G.to_scipy()
    assert indices.shape[0] * 2 == A.nnz - (A.diagonal() != 0).sum()
    deg = np.diff(A.indptr)
    r, c = erow.astype(np.int64), indices.astype(np.int64)
    assert np.all((deg[r] < deg[c]) | ((deg[r] == deg[c]) & (r < c)))
    for v in range(0, G.num_vertices, 17):  # rows sorted, distinct
        row = indices[indptr[v]:indptr[v + 1]]
        assert np.all(np.diff(row) > 0)
