"""k-core (core numbers) against networkx.core_number, both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp


def host(a):
    return hp.backend.to_host(a)


def nx_core(H, n):
    H = H.copy()
    H.remove_edges_from(list(nx.selfloop_edges(H)))   # networkx refuses self-loops
    c = nx.core_number(H)
    return np.array([c[i] for i in range(n)], dtype=np.int32)


def test_k_core_matches_networkx(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    c = host(hp.k_core(G, backend=backend_name))
    assert c.dtype == np.int32 and c.shape == (case.n,)
    np.testing.assert_array_equal(c, nx_core(cases.to_networkx(case), case.n))


def test_k_core_ignores_duplicates(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, "cpu", duplicates="keep")
    G = G.to_device() if backend_name == "gpu" else G
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)),
                                  nx_core(cases.to_networkx(case), case.n))


@pytest.mark.parametrize("directed", [False, True])
def test_k_core_rmat(directed, backend_name):
    G = hp.generators.rmat(11, edge_factor=8, seed=4, directed=directed, backend="cpu")
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(G.num_vertices))
    A = G.to_scipy().tocoo()
    H.add_edges_from(zip(A.row.tolist(), A.col.tolist()))
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)),
                                  nx_core(H, G.num_vertices))


def test_k_core_small(backend_name):
    K = hp.generators.complete(5, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(K, backend=backend_name)), [4] * 5)
    P = hp.generators.path(6, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(P, backend=backend_name)), [1] * 6)
    for n in (0, 1, 3):
        G = hp.Graph.from_edges([], [], num_vertices=n, directed=False, backend="cpu")
        np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)), [0] * n)
    # a self-loop alone does not raise a vertex's core
    G = hp.Graph.from_edges([0, 0], [0, 1], num_vertices=2, directed=False, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)), [1, 1])
    # mutual directed pair: degree 2 each (networkx's in + out), core 2
    G = hp.Graph.from_edges([0, 1], [1, 0], num_vertices=2, directed=True, backend="cpu")
    np.testing.assert_array_equal(host(hp.k_core(G, backend=backend_name)), [2, 2])


def test_k_core_inputs(backend_name):
    H = nx.gnp_random_graph(50, 0.15, seed=6)
    ref = nx_core(H, 50)
    np.testing.assert_array_equal(hp.k_core(H, backend=backend_name, to="numpy"), ref)
    np.testing.assert_array_equal(host(hp.k_core(nx.to_scipy_sparse_array(H),
                                                 backend=backend_name)), ref)


@pytest.mark.parametrize("idx", [np.int32, np.int64])
@pytest.mark.parametrize("w", [None, np.int32])
def test_k_core_device_kernels_compile(idx, w):
    from hpgraph.algorithms._kcore_gpu import kcore_source
    from hpgraph.exceptions import DeviceUnavailable

    try:
        ptx = hp.backend.compile_ptx(kcore_source(np.dtype(idx), None if w is None else np.dtype(w)),
                                     "kcore.cu", options=("-std=c++17",))
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
    for name in ("kc_select", "kc_push"):
        assert f".entry {name}" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_k_core_gpu_heavy_rows_and_many_rounds(directed):
    """Hubs past the heavy-row threshold (pushed in chunks), a long path (hundreds of rounds:
    several replayed batches) and isolated vertices; the plan is reused by a second call."""
    from hpgraph.algorithms import _kcore_gpu

    rng = np.random.default_rng(7)
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(9000))
    H.add_edges_from((0, int(v)) for v in rng.choice(np.arange(1, 6000), 3 * _kcore_gpu.HEAVY, replace=False))
    H.add_edges_from((1, int(v)) for v in rng.choice(np.arange(2, 6000), _kcore_gpu.HEAVY + 5, replace=False))
    H.add_edges_from((a, b) for a in range(6000, 6030) for b in range(a + 1, 6030))   # a 29-core
    H.add_edges_from((v, v + 1) for v in range(6100, 7100))      # a path: 500 peeling rounds
    H.add_edges_from((int(a), int(b)) for a, b in rng.integers(0, 6000, (20000, 2)) if a != b)
    src, dst = (np.array(x, dtype=np.int64) for x in zip(*H.edges()))
    G = hp.Graph.from_edges(src, dst, num_vertices=9000, directed=directed, backend="gpu")
    want = nx_core(H, 9000)
    np.testing.assert_array_equal(host(hp.k_core(G, backend="gpu")), want)
    np.testing.assert_array_equal(host(hp.k_core(G, backend="gpu")), want)
    for per_sm in (1, 8):          # other grids: one closing block among more or fewer
        with hp.config.set(kcore_blocks_per_sm=per_sm):
            np.testing.assert_array_equal(host(hp.k_core(G, backend="gpu")), want)


@pytest.mark.gpu
def test_k_core_gpu_large_clique_in_one_round():
    """Every vertex of a clique past the heavy-row threshold leaves in the same round (all
    their rows split into chunks at once), beside a star and isolated vertices."""
    from hpgraph.algorithms import _kcore_gpu

    k = _kcore_gpu.HEAVY + 76
    a, b = np.triu_indices(k, 1)
    src = np.concatenate([a, np.full(50, k), [k + 60]]).astype(np.int64)
    dst = np.concatenate([b, np.arange(k + 1, k + 51), [k + 61]]).astype(np.int64)
    G = hp.Graph.from_edges(src, dst, num_vertices=k + 70, directed=False, backend="gpu")
    want = np.zeros(k + 70, np.int32)
    want[:k] = k - 1
    want[k:k + 51] = 1
    want[[k + 60, k + 61]] = 1
    np.testing.assert_array_equal(host(hp.k_core(G, backend="gpu")), want)
