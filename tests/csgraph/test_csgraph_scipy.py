"""hpgraph.csgraph's remaining SciPy functions: every name of scipy.sparse.csgraph exists with
SciPy's signature; floyd_warshall and breadth_first_tree (engine) equal SciPy's results on
random graphs; the SciPy-backed wrappers return SciPy's results and never modify the input;
CuPy in -> CuPy out (GPU test)."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as cg

import hpgraph.csgraph as hc
from hpgraph.csgraph._scipy import scipy_function

from tests.csgraph.test_csgraph_engine import FORMATS, random_graph


def test_every_scipy_function_present_with_scipy_signature():
    assert set(cg.__all__) <= set(hc.__all__)
    for name in cg.__all__:
        if name == "NegativeCycleError":
            assert hc.NegativeCycleError is cg.NegativeCycleError
            continue
        ours = inspect.signature(getattr(hc, name))
        theirs = inspect.signature(scipy_function(name))
        # engine functions add the keyword-only ``backend``; everything else is SciPy's
        params = [p for p in ours.parameters.values() if p.name != "backend"]
        assert [(p.name, p.default, p.kind) for p in params] == \
               [(p.name, p.default, p.kind) for p in theirs.parameters.values()], name


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("directed", [True, False])
def test_breadth_first_tree_identical(fmt, directed):
    rng = np.random.default_rng(7)
    for _ in range(15):
        A = random_graph(rng, fmt)
        n = A.shape[0]
        s = int(rng.integers(0, n))
        want = cg.breadth_first_tree(A, s, directed)
        got = hc.breadth_first_tree(A, s, directed, backend="cpu")
        assert type(got) is type(want)
        np.testing.assert_array_equal(got.toarray(), want.toarray())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("directed", [True, False])
def test_floyd_warshall_distances(fmt, directed):
    rng = np.random.default_rng(11)
    for _ in range(10):
        A = random_graph(rng, fmt)
        if fmt == "coo":  # SciPy's floyd_warshall takes csr / csc / lil / dense only
            with pytest.raises(ValueError, match="lil, csr, or csc"):
                cg.floyd_warshall(A, directed)
            with pytest.raises(ValueError, match="lil, csr, or csc"):
                hc.floyd_warshall(A, directed)
            continue
        for unweighted in (False, True):
            want = cg.floyd_warshall(A, directed, unweighted=unweighted)
            got, pred = hc.floyd_warshall(A, directed, True, unweighted, backend="cpu")
            np.testing.assert_array_equal(got, want)
            assert pred.dtype == np.int32 and pred.shape == want.shape
            # every predecessor lies on a shortest path
            n = A.shape[0]
            for i in range(n):
                for j in range(n):
                    p = pred[i, j]
                    if i == j or not np.isfinite(want[i, j]):
                        assert p == hc.NULL_IDX
                    else:
                        assert np.isfinite(want[i, p])


def test_floyd_warshall_negative_cycle():
    A = sp.csr_array(np.array([[0, 1.0], [-2.0, 0]]))
    with pytest.raises(cg.NegativeCycleError):
        hc.floyd_warshall(A, backend="cpu")


def _random_matrix(seed, n=25, density=0.15, symmetric=False):
    A = sp.random_array((n, n), density=density, random_state=seed, format="csr")
    A.data = np.round(A.data * 9) + 1
    if symmetric:
        A = (A + A.T).tocsr()
    return A


CASES = [
    ("depth_first_order", lambda A: (A, 0)),
    ("depth_first_tree", lambda A: (A, 0, False)),
    ("minimum_spanning_tree", lambda A: (A,)),
    ("laplacian", lambda A: (A,)),
    ("reverse_cuthill_mckee", lambda A: (A.tocsr(),)),
    ("structural_rank", lambda A: (A,)),
    ("maximum_bipartite_matching", lambda A: (A,)),
    ("csgraph_to_dense", lambda A: (A,)),
    ("csgraph_to_masked", lambda A: (A,)),
    ("csgraph_from_dense", lambda A: (A.toarray(),)),
    ("csgraph_masked_from_dense", lambda A: (A.toarray(),)),
]


def _equal(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _equal(x, y)
    elif sp.issparse(a):
        assert type(a) is type(b)
        np.testing.assert_array_equal(a.toarray(), b.toarray())
    elif isinstance(a, np.ma.MaskedArray):
        np.testing.assert_array_equal(a.mask, b.mask)
        np.testing.assert_array_equal(a.filled(0), b.filled(0))
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("seed", range(4))
def test_scipy_backed_functions(name, args, seed):
    A = _random_matrix(seed, symmetric=name == "reverse_cuthill_mckee")
    before = A.copy()
    want = getattr(cg, name)(*args(A))
    got = getattr(hc, name)(*args(A))
    _equal(got, want)
    assert (A != before).nnz == 0  # input untouched


def test_flow_matching_yen_paths():
    A = _random_matrix(3).astype(np.int32)
    f1 = cg.maximum_flow(A, 0, 5)
    f2 = hc.maximum_flow(A, 0, 5)
    assert f1.flow_value == f2.flow_value
    B = _random_matrix(4, density=0.4)
    B.data += 1
    try:
        want = cg.min_weight_full_bipartite_matching(B)
    except ValueError:
        with pytest.raises(ValueError):
            hc.min_weight_full_bipartite_matching(B)
    else:
        _equal(hc.min_weight_full_bipartite_matching(B), want)
    D, P = cg.shortest_path(A, return_predecessors=True)
    _equal(hc.construct_dist_matrix(A, P), cg.construct_dist_matrix(A, P))
    _equal(hc.reconstruct_path(A, P[0]), cg.reconstruct_path(A, P[0]))
    _equal(hc.yen(A, 0, 5, 3), cg.yen(A, 0, 5, 3))


def test_errors_are_scipy_errors():
    with pytest.raises(ValueError):
        hc.depth_first_order(sp.csr_array((3, 4)), 0)
    with pytest.raises(ValueError):
        hc.minimum_spanning_tree(np.ones((2, 3)))


@pytest.mark.gpu
def test_scipy_backed_cupy_in_cupy_out():
    import cupy as cp
    import cupyx.scipy.sparse as csp

    A = _random_matrix(1, symmetric=True)
    dA = csp.csr_matrix(sp.csr_matrix(A))
    T = hc.minimum_spanning_tree(dA)
    assert isinstance(T, csp.csr_matrix)
    np.testing.assert_array_equal(T.get().toarray(), cg.minimum_spanning_tree(A).toarray())
    order, pred = hc.depth_first_order(dA, 0)
    assert isinstance(order, cp.ndarray)
    np.testing.assert_array_equal(order.get(), cg.depth_first_order(A, 0)[0])
    t = hc.breadth_first_tree(dA, 0)
    assert isinstance(t, csp.csr_matrix)
    d = hc.floyd_warshall(dA)
    assert isinstance(d, cp.ndarray)
    np.testing.assert_array_equal(d.get(), cg.floyd_warshall(A))
