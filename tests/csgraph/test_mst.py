"""``hpgraph.csgraph.minimum_spanning_tree`` against SciPy's: the same entries with the same
weights (SciPy's Kruskal, ties by stored position), on NumPy arrays through the ranking and
Boruvka rounds the device runs, and with CuPy input on the device."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as cg

import hpgraph.csgraph as hc
from hpgraph.csgraph._engine import _parse
from hpgraph.csgraph._more import tree_values

from .test_csgraph_engine import FORMATS, random_graph


def _same_tree(got, ref):
    got, ref = sp.csr_array(got), sp.csr_array(ref)
    assert got.shape == ref.shape
    assert (got != ref).nnz == 0 and got.nnz == ref.nnz


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("negative", [False, True])
def test_tree_values_are_scipys_tree(fmt, negative):
    """Duplicates (parallel entries), self-loops, explicit zeros, ties (weights in a few
    integers), negative weights, disconnected parts."""
    rng = np.random.default_rng(7 + 2 * FORMATS.index(fmt) + int(negative))
    for _ in range(15):
        A = random_graph(rng, fmt, negative=negative)
        inp = _parse(A, True)
        indptr, indices, data = inp.host()
        out = tree_values(np, indptr, indices, data, inp.n)
        got = sp.csr_array((out, indices.copy(), indptr.copy()), shape=(inp.n, inp.n))
        got.eliminate_zeros()
        _same_tree(got, cg.minimum_spanning_tree(A))


def test_host_input_is_scipys_result_and_type():
    A = sp.csr_matrix(np.array([[0, 2, 1], [2, 0, 1], [1, 1, 0]], dtype=float))
    got = hc.minimum_spanning_tree(A)
    assert isinstance(got, sp.csr_matrix)
    _same_tree(got, cg.minimum_spanning_tree(A))
    D = np.array([[0, 3, np.inf], [0, 0, 4], [5, 0, 0]])
    assert isinstance(hc.minimum_spanning_tree(D), sp.csr_array)
    _same_tree(hc.minimum_spanning_tree(D), cg.minimum_spanning_tree(D))


@pytest.mark.gpu
@pytest.mark.parametrize("weights", [(1, 64), (1, 3)])
def test_cupy_input_on_device(weights):
    import cupyx.scipy.sparse as csp

    import hpgraph as hp

    G = hp.generators.rmat(12, edge_factor=8, seed=5, directed=True, weights=weights,
                           backend="cpu")
    A = sp.csr_matrix(G.to_scipy().astype(np.float64))
    ref = cg.minimum_spanning_tree(A)
    dA = csp.csr_matrix(A)
    before = (dA.data.copy(), dA.indices.copy(), dA.indptr.copy())
    got = hc.minimum_spanning_tree(dA)
    assert isinstance(got, csp.csr_matrix)
    for a, b in zip(before, (dA.data, dA.indices, dA.indptr)):     # the caller's matrix
        np.testing.assert_array_equal(a.get(), b.get())
    _same_tree(got.get(), ref)
    host = hc.minimum_spanning_tree(A, backend="gpu")     # NumPy in, computed on the device
    assert isinstance(host, sp.csr_matrix)
    _same_tree(host, ref)
