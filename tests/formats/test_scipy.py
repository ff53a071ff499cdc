"""scipy.sparse in and out: every kind (array/matrix, coo/csr/csc), unsorted, duplicates."""

import numpy as np
import pytest
import scipy.sparse as sp

from hpgraph import dtypes
from hpgraph.formats import COO, CSC, CSR, from_any, from_scipy

KINDS = {
    "coo_array": sp.coo_array, "coo_matrix": sp.coo_matrix,
    "csr_array": sp.csr_array, "csr_matrix": sp.csr_matrix,
    "csc_array": sp.csc_array, "csc_matrix": sp.csc_matrix,
}


def _random(n=7, m=5, density=0.4, seed=0, dtype=np.float64):
    return sp.random_array((n, m), density=density, format="csr", dtype=dtype, rng=seed)


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_scipy_kind_round_trips(kind):
    A = KINDS[kind](_random())
    m = from_scipy(A)
    assert m.format == A.format
    assert m.shape == A.shape and m.nnz == A.nnz
    for f in ("coo", "csr", "csc", "ell", "hyb"):
        back = m.asformat(f).to_scipy()
        assert isinstance(back, sp.sparray)  # *_array, never *_matrix
        np.testing.assert_array_equal(back.toarray(), A.toarray())
    assert type(m.to_scipy()).__name__ == {"coo": "coo_array", "csr": "csr_array", "csc": "csc_array"}[m.format]


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_compressed_input_shares_arrays(fmt):
    A = _random().asformat(fmt)
    A.has_sorted_indices  # noqa: B018 - scipy computes the flag
    m = from_scipy(A)
    assert np.shares_memory(m.indptr, A.indptr)
    assert np.shares_memory(m.indices, A.indices)
    assert np.shares_memory(m.values, A.data)
    coo = sp.coo_array(A)
    c = from_scipy(coo)
    assert np.shares_memory(c.row, coo.row) and np.shares_memory(c.values, coo.data)


def test_unsorted_indices_are_sorted_without_touching_the_input():
    indptr = np.array([0, 3, 3, 5], dtype=np.int32)
    indices = np.array([4, 0, 2, 3, 1], dtype=np.int32)
    data = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    A = sp.csr_array((data, indices, indptr), shape=(3, 5))
    assert not A.has_sorted_indices
    before = (A.indices.copy(), A.data.copy())
    m = from_scipy(A)
    np.testing.assert_array_equal(m.indices, [0, 2, 4, 1, 3])
    np.testing.assert_array_equal(m.values, [2.0, 3.0, 1.0, 5.0, 4.0])
    m.check(full=True)
    np.testing.assert_array_equal(A.indices, before[0])
    np.testing.assert_array_equal(A.data, before[1])
    np.testing.assert_array_equal(m.to_scipy().toarray(), A.toarray())
    csc = from_scipy(sp.csc_matrix((data, indices, indptr), shape=(5, 3)))
    csc.check(full=True)
    np.testing.assert_array_equal(csc.to_scipy().toarray(), sp.csc_matrix((data, indices, indptr), shape=(5, 3)).toarray())


def test_duplicates_are_kept_and_sum_like_scipy():
    A = sp.coo_array(([1.0, 2.0, 3.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    m = from_scipy(A)
    assert m.nnz == 3
    csr = m.to_csr()
    assert csr.nnz == 3
    np.testing.assert_array_equal(csr.to_scipy().toarray(), A.toarray())  # scipy sums them
    dup_csr = sp.csr_array((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2, 2])), shape=(2, 2))
    assert from_scipy(dup_csr).nnz == 2


def test_other_scipy_formats_go_through_csr():
    A = sp.dia_array(_random(5, 5).toarray())
    m = from_scipy(A)
    assert m.format == "csr"
    np.testing.assert_array_equal(m.to_scipy().toarray(), A.toarray())
    L = sp.lil_matrix((3, 3))
    L[0, 2] = 1.0
    assert from_scipy(L).nnz == 1


@pytest.mark.parametrize("dtype", dtypes.ALL_DTYPES, ids=lambda d: d.name)
def test_value_dtypes(dtype):
    A = sp.csr_array((np.arange(1, 4).astype(dtype), np.array([0, 1, 2]), np.array([0, 2, 3])), shape=(2, 3))
    m = from_scipy(A)
    assert m.dtype == dtype
    back = m.to_hyb().to_scipy()
    assert back.dtype == dtype
    np.testing.assert_array_equal(back.toarray(), A.toarray())


def test_unsupported_value_dtype():
    A = sp.csr_array(np.array([[1 + 1j, 0]]))
    with pytest.raises(TypeError, match="unsupported dtype"):
        from_scipy(A)


def test_options():
    A = _random()
    assert from_scipy(A, format="hyb").format == "hyb"
    p = from_scipy(A, pattern=True)
    assert p.is_pattern and p.nnz == A.nnz
    assert from_scipy(A, index_dtype="int64").index_dtype == np.int64
    assert from_scipy(A, format="ell", index_dtype="int64").index_dtype == np.int64
    pat = p.to_scipy()
    assert pat.dtype == np.float64 and set(pat.data.tolist()) == {1.0}


def test_int64_scipy_indices():
    A = _random()
    B = sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)), shape=A.shape)
    assert B.indices.dtype == np.int64
    m = from_scipy(B)
    assert m.index_dtype == np.int32  # small sizes: the int32 rule wins (one copy)
    np.testing.assert_array_equal(m.to_scipy().toarray(), A.toarray())
    m = from_scipy(B, index_dtype="int64")
    assert m.index_dtype == np.int64
    assert np.shares_memory(m.indices, B.indices)  # already int64: no copy
    np.testing.assert_array_equal(m.to_scipy().toarray(), A.toarray())


def test_to_scipy_copy_flag():
    m = from_scipy(_random())
    shared = m.to_scipy(copy=False)
    assert np.shares_memory(shared.data, m.values)
    private = m.to_scipy()
    assert not np.shares_memory(private.data, m.values)
    x = np.ones(5)
    np.testing.assert_allclose(shared @ x, private @ x)  # read-only arrays are fine for scipy ops


def test_from_any():
    A = _random()
    m = from_any(A)
    assert m.format == "csr"
    assert from_any(m) is m

    class HasA:
        def __init__(self, a):
            self.A = a

    assert from_any(HasA(m)) is m
    assert from_scipy(HasA(m)) is m
    assert from_scipy(m, format="coo").format == "coo"
    with pytest.raises(ValueError, match="expected a scipy.sparse"):
        from_any(np.eye(3))
    with pytest.raises(ValueError, match="expected a scipy.sparse"):
        from_scipy([[1, 0]])


def test_formats_from_scipy_classes():
    A = _random()
    assert isinstance(from_scipy(sp.coo_matrix(A)), COO)
    assert isinstance(from_scipy(sp.csc_matrix(A)), CSC)
    assert isinstance(from_scipy(sp.csr_matrix(A)), CSR)
