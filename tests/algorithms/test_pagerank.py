"""PageRank against networkx.pagerank (and a dense solve of the paper's Eq. 2), both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import ConvergenceError, IndexOutOfBound, InvalidValue


def nx_ranks(H, n, **kw):
    r = nx.pagerank(H, **kw)
    return np.array([r[i] for i in range(n)])


def unweighted_nx(cases, case):
    return cases.to_networkx(case._replace(weights=None))


@pytest.mark.parametrize("weighted", [False, True])
def test_pagerank_matches_networkx(graph_case, backend_name, cases, weighted):
    case = graph_case
    if weighted and not case.weighted:
        pytest.skip("unweighted case")
    G = cases.to_graph(case, backend_name)
    x = cases.host(hp.pagerank(G, weighted=weighted, backend=backend_name, variant="networkx"))
    assert x.dtype == np.float64 and x.shape == (case.n,)
    if case.n == 0:
        return
    H = cases.to_networkx(case) if weighted else unweighted_nx(cases, case)
    ref = nx_ranks(H, case.n, weight="weight" if weighted else None)
    np.testing.assert_allclose(x, ref, rtol=1e-7, atol=1e-10)
    assert abs(x.sum() - 1.0) < 1e-9


@pytest.mark.cases(min_n=3, max_n=100)
def test_pagerank_personalization_nstart_dangling(graph_case, backend_name, cases):
    case = graph_case
    n = case.n
    G = cases.to_graph(case, backend_name)
    H = unweighted_nx(cases, case)
    rng = np.random.default_rng(n)
    pers = {int(v): float(w) for v, w in zip(rng.choice(n, 3, replace=False), [1.0, 2.0, 0.5])}
    dang = {int(rng.integers(n)): 1.0, int(rng.integers(n)): 3.0}
    nst = {0: 1.0, n - 1: 4.0}
    for kw in ({"personalization": pers}, {"dangling": dang}, {"nstart": nst},
               {"personalization": pers, "dangling": dang, "nstart": nst}):
        ref = nx_ranks(H, n, weight=None, **kw)
        x = cases.host(hp.pagerank(G, backend=backend_name, **kw, variant="networkx"))
        np.testing.assert_allclose(x, ref, rtol=1e-7, atol=1e-10)
    # the same as arrays
    parr = np.zeros(n)
    for k, v in pers.items():
        parr[k] = v
    x = cases.host(hp.pagerank(G, personalization=parr, backend=backend_name, variant="networkx"))
    np.testing.assert_allclose(x, nx_ranks(H, n, weight=None, personalization=pers),
                               rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("damping", [0.0, 0.5, 0.99])
def test_pagerank_damping_values(damping, backend_name):
    rng = np.random.default_rng(3)
    s, d = rng.integers(0, 40, 150), rng.integers(0, 40, 150)
    G = hp.Graph.from_edges(s, d, num_vertices=40, directed=True, backend="cpu")
    H = nx.DiGraph()
    H.add_nodes_from(range(40))
    H.add_edges_from(zip(s.tolist(), d.tolist()))
    x = cases_host(hp.pagerank(G, damping=damping, max_iter=1000, backend=backend_name, variant="networkx"))
    np.testing.assert_allclose(x, nx_ranks(H, 40, alpha=damping, weight=None, max_iter=1000),
                               rtol=1e-7, atol=1e-10)


def cases_host(a):
    return hp.backend.to_host(a)


def test_pagerank_float32(backend_name):
    G = hp.generators.rmat(8, seed=2, backend="cpu")
    x64 = cases_host(hp.pagerank(G, backend=backend_name))
    x32 = cases_host(hp.pagerank(G, dtype=np.float32, backend=backend_name))
    assert x32.dtype == np.float32
    np.testing.assert_allclose(x32, x64, rtol=1e-4, atol=1e-7)


def test_pagerank_not_converged(backend_name):
    G = hp.generators.rmat(7, seed=1, directed=True, backend="cpu")
    with pytest.raises(ConvergenceError):
        hp.pagerank(G, max_iter=2, backend=backend_name)
    with pytest.raises(ConvergenceError):
        hp.pagerank(G, max_iter=0, backend=backend_name)
    with pytest.raises(ConvergenceError):
        hp.pagerank(G, max_iter=2, tol=1e-12, variant="hpgraph", backend=backend_name)


def test_pagerank_bad_arguments():
    G = hp.generators.path(4, directed=True, backend="cpu")
    for kw in ({"damping": 1.5}, {"damping": -0.1}, {"tol": -1.0}, {"max_iter": -1},
               {"max_iter": 2.5}, {"variant": "gunrock"}, {"dtype": np.int32},
               {"personalization": [1.0, 2.0]}, {"personalization": {0: -1.0}},
               {"personalization": {0: 0.0}}, {"nstart": np.full(4, np.nan)},
               {"variant": "hpgraph", "personalization": {0: 1.0}},
               {"variant": "hpgraph", "dangling": {0: 1.0}}):
        with pytest.raises(InvalidValue):
            hp.pagerank(G, backend="cpu", **kw)
    with pytest.raises(IndexOutOfBound):
        hp.pagerank(G, personalization={7: 1.0}, backend="cpu")
    neg = hp.Graph.from_edges([0, 1], [1, 2], weights=[1.0, -2.0], num_vertices=3, backend="cpu")
    with pytest.raises(InvalidValue):
        hp.pagerank(neg, weighted=True, backend="cpu")
    hp.pagerank(neg, backend="cpu")  # weights ignored: fine


def test_pagerank_inputs_and_sides(backend_name):
    H = nx.gnp_random_graph(30, 0.2, seed=4, directed=True)
    ref = nx_ranks(H, 30, weight=None)
    x = hp.pagerank(H, backend=backend_name, to="numpy", variant="networkx")          # a networkx graph
    assert isinstance(x, np.ndarray)
    np.testing.assert_allclose(x, ref, rtol=1e-7, atol=1e-10)
    A = nx.to_scipy_sparse_array(H, nodelist=range(30))
    np.testing.assert_allclose(cases_host(hp.pagerank(A, backend=backend_name, variant="networkx")), ref,
                               rtol=1e-7, atol=1e-10)
    if backend_name == "gpu":
        G = hp.Graph.from_networkx(H).to_device()
        x = hp.pagerank(G)
        assert hp.backend.is_device_array(x)
        assert isinstance(hp.pagerank(G, to="numpy"), np.ndarray)


# -- the paper's Eq. (2) -----------------------------------------------------------------------


def eq2_reference(cases, case, damping, weighted):
    """Dense solve of PR = (1 - damping) + damping * M PR (no dangling redistribution)."""
    A = cases.to_scipy(case, unweighted=not weighted).toarray()
    W = A.sum(axis=1)
    M = np.where(W[:, None] > 0, A / np.where(W > 0, W, 1)[:, None], 0.0).T
    n = case.n
    return np.linalg.solve(np.eye(n) - damping * M, np.full(n, 1.0 - damping))


@pytest.mark.cases(max_n=300, min_n=1)
def test_pagerank_eq2_fixed_point(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    for weighted in ((False, True) if case.weighted else (False,)):
        x = cases.host(hp.pagerank(G, variant="hpgraph", tol=1e-11, max_iter=3000,
                                   weighted=weighted, backend=backend_name))
        ref = eq2_reference(cases, case, 0.85, weighted)
        np.testing.assert_allclose(x, ref, rtol=1e-7, atol=1e-8)


def test_pagerank_eq2_tol_below_rounding_ends(backend_name):
    """tol=0 with damping 0.999 and a self-loop: the pending mass decays by 0.999 a superstep
    (about 7e5 supersteps to reach an exact 0); the run ends once no fold can change a rank,
    with the exact solution of Eq. (2) (found by the long fuzz run, where it took > 30 s)."""
    G = hp.Graph.from_edges([0, 1], [0, 0], num_vertices=3, duplicates="keep", backend="cpu")
    x = cases_host(hp.pagerank(G, damping=0.999, tol=0.0, max_iter=2**63 - 1,
                               variant="hpgraph", backend=backend_name))
    M = np.zeros((3, 3))
    M[0, 0] = M[0, 1] = 1.0                   # 0 and 1 (out-degree 1 each) feed vertex 0
    ref = np.linalg.solve(np.eye(3) - 0.999 * M, np.full(3, 1 - 0.999))
    np.testing.assert_allclose(x, ref, rtol=1e-12, atol=0)


def test_pagerank_eq2_definition(backend_name):
    # a directed 3-cycle: every rank is 1 (d + (1 - d) * 1 with d = 1 - damping)
    G = hp.Graph.from_edges([0, 1, 2], [1, 2, 0], num_vertices=3, backend="cpu")
    x = cases_host(hp.pagerank(G, variant="hpgraph", backend=backend_name))
    np.testing.assert_allclose(x, 1.0, atol=1e-6)
    # path 0 -> 1 -> 2 with damping 0.8 (paper's d = 0.2): PR = 0.2, 0.2 + 0.8*0.2, ...
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    x = cases_host(hp.pagerank(G, damping=0.8, variant="hpgraph", tol=1e-12, backend=backend_name))
    np.testing.assert_allclose(x, [0.2, 0.36, 0.488], atol=1e-10)
    # nstart changes the path, not the fixed point
    x2 = cases_host(hp.pagerank(G, damping=0.8, variant="hpgraph", tol=1e-12,
                                nstart=[5.0, 0.0, 1.0], backend=backend_name))
    np.testing.assert_allclose(x2, x, atol=1e-10)


def test_pagerank_eq2_converged_vertices_leave_active_set():
    """The residual program's active sets shrink while the answer stays exact."""
    from hpgraph.algorithms._pagerank import _program

    G = hp.generators.rmat(9, seed=5, directed=True, backend="cpu")
    n = G.num_vertices
    x = hp.pagerank(G, variant="hpgraph", tol=1e-9, max_iter=500, backend="cpu")
    case_A = G.to_scipy().toarray() != 0
    W = case_A.sum(axis=1)
    M = np.where(W[:, None] > 0, case_A / np.where(W > 0, W, 1)[:, None], 0.0).T
    ref = np.linalg.solve(np.eye(n) - 0.85 * M, np.full(n, 0.15))
    np.testing.assert_allclose(x, ref, atol=1e-6)
    # run the program directly to see its active counts
    from hpgraph import spmv as _spmv

    S = np.where(W > 0, 1.0 / np.where(W > 0, W, 1), 0.0)
    y0 = _spmv.spmv(G.AT, S, "plus_second[float64]", backend="cpu")
    res = hp.run(_program(False, np.float64)(theta=1e-6), G, backend="cpu", rank=np.ones(n),
                 pend=0.85 * (y0 - 1.0), scale=0.85 * S)
    assert res.converged
    assert res.active[0] == n and min(res.active[1:]) < n // 2


def test_pagerank_empty_and_single(backend_name):
    for directed in (False, True):
        G = hp.Graph.from_edges([], [], num_vertices=0, directed=directed, backend="cpu")
        assert cases_host(hp.pagerank(G, backend=backend_name)).shape == (0,)
        assert cases_host(hp.pagerank(G, variant="hpgraph", backend=backend_name)).shape == (0,)
        G = hp.Graph.from_edges([], [], num_vertices=1, directed=directed, backend="cpu")
        np.testing.assert_allclose(cases_host(hp.pagerank(G, backend=backend_name)), [1.0])
        np.testing.assert_allclose(cases_host(hp.pagerank(G, variant="hpgraph",
                                                          backend=backend_name)), [0.15])


def test_eq2_float32(backend_name):
    G = hp.generators.rmat(8, seed=6, directed=True, backend="cpu")
    x64 = cases_host(hp.pagerank(G, variant="hpgraph", tol=1e-7, max_iter=500, backend=backend_name))
    x32 = cases_host(hp.pagerank(G, variant="hpgraph", tol=1e-5, max_iter=500, dtype=np.float32,
                                 backend=backend_name))
    assert x32.dtype == np.float32
    np.testing.assert_allclose(x32, x64, rtol=1e-3, atol=1e-4)


# -- GPU sources compile with NVRTC (no GPU needed) --------------------------------------------


def _nvrtc_or_skip():
    try:
        hp.backend.compile_ptx('extern "C" __global__ void k(int* a) { a[0] = 1; }', "probe.cu")
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(f"NVRTC unavailable: {exc}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_update_kernel_compiles(dtype):
    from hpgraph.algorithms import _kernels

    _nvrtc_or_skip()
    src, name = _kernels.pagerank_update_source(dtype)
    assert name in hp.backend.compile_ptx(src, name + ".cu")


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eq2_program_compiles(weighted, dtype, index_dtype):
    from hpgraph import program
    from hpgraph.algorithms._pagerank import _program
    from hpgraph.engine import codegen

    _nvrtc_or_skip()
    rng = np.random.default_rng(1)
    s, d = rng.integers(0, 30, 100), rng.integers(0, 30, 100)
    w = rng.integers(1, 9, 100).astype(np.float32) if weighted else None
    G = hp.Graph.from_edges(s, d, w, num_vertices=30, index_dtype=index_dtype, backend="cpu")
    n = G.num_vertices
    ones = np.ones(n, dtype=dtype)
    bp = program.bind(_program(weighted, dtype)(theta=1e-6), G,
                      {"rank": ones, "pend": ones, "scale": ones})
    src = codegen.program_source(bp, np.dtype(index_dtype))
    ptx = hp.backend.compile_ptx(src, "pagerank_eq2.cu")
    for k in codegen.KERNELS:
        assert k in ptx


# -- the default stopping rule (variant="power": an L1 bound independent of n) -----------------


def exact_pagerank(A, damping):
    """Dense solve of networkx's PageRank equations (dangling rows teleport uniformly)."""
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    W = A.sum(axis=1)
    P = np.where(W[:, None] > 0, A / np.where(W > 0, W, 1)[:, None], 1.0 / n)
    return np.linalg.solve(np.eye(n) - damping * P.T, np.full(n, (1.0 - damping) / n))


@pytest.mark.cases(min_n=1, max_n=300)
@pytest.mark.parametrize("tol", [1e-6, 1e-10])
def test_power_variant_is_within_its_bound(graph_case, backend_name, cases, tol):
    G = cases.to_graph(graph_case, backend_name)
    # the change shrinks at least by 0.85 per iteration from <= 2: 100 iterations reach 1e-6,
    # 1e-10 may take up to 146
    x, info = hp.pagerank(G, tol=tol, max_iter=150, return_info=True, backend=backend_name)
    x = cases.host(x)
    ref = exact_pagerank(cases.to_scipy(graph_case, unweighted=True).toarray(), 0.85)
    assert info.residual < tol and 1 <= info.iterations <= (100 if tol >= 1e-6 else 150)
    assert info.error_bound == pytest.approx(0.85 / 0.15 * info.residual)
    assert np.abs(x - ref).sum() <= info.error_bound + 1e-12
    # networkx's rule on the same graph: stops no later, and reports its own residual
    _, nx_info = hp.pagerank(G, tol=tol, max_iter=150, variant="networkx", return_info=True,
                             backend=backend_name)
    assert nx_info.iterations <= info.iterations
    assert nx_info.residual < graph_case.n * tol


def test_power_variant_on_100k_vertices_against_a_tight_reference():
    """R-MAT scale 17 (131,072 vertices, 1.9M stored entries): the default stops within its
    L1 bound of a reference iterated to a 1e-15 change; networkx's rule (n * tol = 0.13)
    stops after a few iterations, orders of magnitude further away."""
    import scipy.sparse as sp

    G = hp.generators.rmat(17, edge_factor=8, seed=5, backend="cpu")
    n = G.num_vertices
    assert n >= 100_000
    A = G.to_scipy().astype(np.float64)
    A.data[:] = 1.0
    out = np.asarray(A.sum(axis=1)).ravel()
    S = np.where(out > 0, 1.0 / np.maximum(out, 1.0), 0.0)
    AT = sp.csr_array(A.T)
    dang = out == 0
    ref = np.full(n, 1.0 / n)
    for _ in range(1000):
        nxt = 0.85 * (AT @ (ref * S) + ref[dang].sum() / n) + 0.15 / n
        change = np.abs(nxt - ref).sum()
        ref = nxt
        if change < 1e-15:
            break
    assert change < 1e-15
    x, info = hp.pagerank(G, return_info=True, backend="cpu")
    err = np.abs(x - ref).sum()
    assert info.residual < 1e-6 and err <= info.error_bound and err < 6e-6
    x_nx, nx_info = hp.pagerank(G, variant="networkx", return_info=True, backend="cpu")
    assert nx_info.iterations < info.iterations
    assert np.abs(x_nx - ref).sum() > 100 * err


def test_return_info_for_every_variant(backend_name):
    G = hp.generators.path(5, directed=True, backend="cpu")
    for variant in ("power", "networkx", "hpgraph"):
        x, info = hp.pagerank(G, variant=variant, return_info=True, backend=backend_name)
        assert info.iterations >= 1 and info.residual >= 0.0
        np.testing.assert_array_equal(cases_host(x), cases_host(
            hp.pagerank(G, variant=variant, backend=backend_name)))
    E = hp.Graph.from_edges([], [], num_vertices=0, backend="cpu")
    x, info = hp.pagerank(E, return_info=True, backend=backend_name)
    assert x.shape == (0,) and info.iterations == 0
