"""The K rule, the column-major ELL layout, and HYB content."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from hpgraph.formats import COO, CSR, ELL, HYB, hyb_width


@pytest.mark.parametrize("lengths, K", [
    ([], 0),                                   # no rows
    ([0, 0, 0], 0),                            # no entries
    ([5], 5),                                  # one row: it alone is a third
    ([5, 0], 5),                               # 1 of 2 rows >= 5, 1*3 >= 2
    ([3, 3, 3], 3),
    ([1, 2, 3], 3),                            # 1 row of 3 is a third
    ([1, 2, 3, 4], 3),                         # need 2 rows: 3 and 4 are >= 3
    ([1, 1, 1, 1, 1, 100], 1),                 # the long row must not set K
    ([10, 1, 1, 0, 2, 0, 7, 3, 1], 3),         # 10, 7, 3 are >= 3: 3*3 >= 9; only 2 are >= 4
    ([0, 0, 0, 0, 0, 0, 0, 0, 0, 9], 0),       # need 4 rows with >= 1: only 1
    ([2, 2, 2, 0, 0, 0, 0, 0, 0], 2),          # exactly a third have 2
    ([2, 2, 2, 0, 0, 0, 0, 0, 0, 0], 0),       # 3 of 10 is less than a third
    ([100, 50, 1, 1, 1, 0], 50),               # need 2 rows: 100 and 50
    ([4, 4, 4, 4, 4, 4, 4, 4, 4], 4),
])
def test_k_rule_by_hand(lengths, K):
    assert hyb_width(np.array(lengths, dtype=np.int32)) == K
    assert hyb_width(lengths) == K  # lists too


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60))
def test_k_rule_matches_definition(lengths):
    a = np.array(lengths, dtype=np.int64)
    n = a.shape[0]
    # (with no rows every k qualifies vacuously; the contract says K = 0 then)
    expect = max((k for k in range(0, 42) if np.count_nonzero(a >= k) * 3 >= n), default=0) if n else 0
    assert hyb_width(a) == expect


def _example():
    # row 0: cols 1, 3; row 1: empty; row 2: col 0
    return COO([0, 2, 0], [3, 0, 1], [11.0, 20.0, 10.0], (3, 4))


def test_ell_layout_is_column_major_with_padding():
    ell = _example().to_ell()
    assert ell.K == 2 and ell.nnz == 3
    assert ell.indices.shape == (2, 3) and ell.indices.flags.c_contiguous
    np.testing.assert_array_equal(ell.indices, [[1, -1, 0], [3, -1, -1]])
    np.testing.assert_array_equal(ell.values, [[10.0, 0.0, 20.0], [11.0, 0.0, 0.0]])
    flat = ell.indices.ravel()
    nrows = 3
    assert flat[1 * nrows + 0] == 3  # entry k=1 of row 0 at k * nrows + r
    np.testing.assert_array_equal(ell.row_lengths(), [2, 0, 1])
    wide = _example().to_ell(K=4)
    assert wide.K == 4 and wide.nnz == 3
    np.testing.assert_array_equal(wide.indices[2:], -1)
    assert (wide.to_scipy() != _example().to_scipy()).nnz == 0
    assert ell.pattern().astype(np.int8).values.tolist() == [[1, 0, 1], [1, 0, 0]]


def test_ell_too_narrow():
    with pytest.raises(ValueError, match="narrower than the longest row"):
        _example().to_ell(K=1)
    with pytest.raises(ValueError, match="non-negative integer"):
        _example().to_ell(K=-1)


def test_hyb_split_by_hand():
    # row lengths 4, 1, 1, 1, 0, 1 -> K = 1 (need 2 rows; only one has 2)
    row = [0, 0, 0, 0, 1, 2, 3, 5]
    col = [5, 1, 3, 0, 2, 2, 4, 0]
    val = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    coo = COO(row, col, val, (6, 6))
    h = coo.to_hyb()
    assert h.K == 1
    np.testing.assert_array_equal(h.ell.indices, [[0, 2, 2, 4, -1, 0]])
    np.testing.assert_array_equal(h.ell.values, [[4.0, 5.0, 6.0, 7.0, 0.0, 8.0]])
    np.testing.assert_array_equal(h.coo.row, [0, 0, 0])
    np.testing.assert_array_equal(h.coo.col, [1, 3, 5])  # the rest of row 0, column-sorted
    np.testing.assert_array_equal(h.coo.values, [2.0, 3.0, 1.0])
    assert h.nnz == 8
    assert h.ell_fill == pytest.approx(5 / 6)
    assert h.coo_share == pytest.approx(3 / 8)
    np.testing.assert_array_equal(h.row_lengths(), [4, 1, 1, 1, 0, 1])
    assert h.check(full=True) is h
    assert (h.to_scipy() != coo.to_scipy()).nnz == 0


def test_hyb_degenerate_widths():
    coo = COO([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0], (2, 2))
    all_coo = coo.to_hyb(K=0)
    assert all_coo.K == 0 and all_coo.coo.nnz == 3 and all_coo.ell_fill == 1.0 and all_coo.coo_share == 1.0
    all_ell = coo.to_hyb(K=5)
    assert all_ell.K == 5 and all_ell.coo.nnz == 0 and all_ell.coo_share == 0.0
    assert all_ell.ell_fill == pytest.approx(3 / 10)
    for h in (all_coo, all_ell):
        assert (h.to_scipy() != coo.to_scipy()).nnz == 0
    empty = COO([], [], None, (0, 0)).to_hyb()
    assert empty.K == 0 and empty.nnz == 0 and empty.ell_fill == 1.0 and empty.coo_share == 0.0
    none = COO([], [], [], (4, 4)).to_hyb()
    assert none.K == 0 and none.to_scipy().nnz == 0


@pytest.mark.parametrize("seed", range(6))
def test_hyb_equals_original_on_skewed_matrices(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    # heavy-tailed row lengths, so some rows spill into the COO part
    lengths = np.minimum(rng.zipf(1.6, size=n), n)
    row = np.repeat(np.arange(n), lengths)
    col = rng.integers(0, n, size=row.shape[0])
    A = sp.coo_array((rng.standard_normal(row.shape[0]), (row, col)), shape=(n, n)).tocsr()
    A.sum_duplicates()
    h = CSR(A.indptr, A.indices, A.data, A.shape).to_hyb()
    assert h.K == hyb_width(np.diff(A.indptr))
    diff = h.to_scipy() - A
    assert diff.nnz == 0 or abs(diff).max() == 0
    assert h.check(full=True) is h
    back = h.to_csr()
    np.testing.assert_array_equal(back.indptr, A.indptr)
    np.testing.assert_array_equal(back.indices, A.indices)
    np.testing.assert_array_equal(back.values, A.data)


def test_hyb_from_parts_sorts_coo_and_checks():
    ell = ELL(np.array([[1, 0, -1]]), np.array([[1.0, 2.0, 0.0]]), (3, 3))
    coo = COO([0, 0], [2, 0], [4.0, 3.0], (3, 3))  # unsorted within row 0
    h = HYB(ell, coo)
    np.testing.assert_array_equal(h.coo.col, [0, 2])
    np.testing.assert_array_equal(h.to_scipy().toarray(), [[3.0, 1.0, 4.0], [2.0, 0, 0], [0, 0, 0]])
    h.check(full=True)
    # padding in the middle of a user ELL still merges correctly
    ell2 = ELL(np.array([[-1, 0], [2, -1]]), np.array([[0.0, 5.0], [6.0, 0.0]]), (2, 3))
    h2 = HYB(ell2, COO([], [], np.zeros(0), (2, 3)))
    np.testing.assert_array_equal(h2.to_scipy().toarray(), [[0, 0, 6.0], [5.0, 0, 0]])
    bad = HYB(ell, COO([1], [2], [1.0], (3, 3)))  # row 2 has a free ELL slot... row 1 is full
    bad.check(full=True)
    worse = HYB(ell, COO([2], [2], [1.0], (3, 3)))
    with pytest.raises(ValueError, match="coo holds an entry of row 2"):
        worse.check(full=True)


def test_hyb_from_parts_errors():
    ell = ELL(np.array([[1, 0, -1]]), np.array([[1.0, 2.0, 0.0]]), (3, 3))
    with pytest.raises(ValueError, match="shape"):
        HYB(ell, COO([0], [0], [1.0], (4, 4)))
    with pytest.raises(ValueError, match="pattern"):
        HYB(ell, COO([0], [0], None, (3, 3)))
    with pytest.raises(TypeError, match="float32"):
        HYB(ell, COO([0], [0], np.ones(1, np.float32), (3, 3)))
    with pytest.raises(ValueError, match="must be an hpgraph ELL"):
        HYB(ell.to_csr(), COO([0], [0], [1.0], (3, 3)))
    mixed = HYB(ell, COO([0], [2], [1.0], (3, 3), index_dtype="int64"))
    assert mixed.index_dtype == np.int64 and mixed.ell.indices.dtype == np.int64


def test_hyb_rebuild_with_other_width_and_astype():
    coo = COO([0, 0, 0, 1], [0, 1, 2, 0], [1.0, 2.0, 3.0, 4.0], (2, 3))
    h = coo.to_hyb()
    h1 = h.to_hyb(K=1)
    assert h1.K == 1 and h1.coo.nnz == 2
    assert (h1.to_scipy() != coo.to_scipy()).nnz == 0
    assert h.astype(np.float32).dtype == np.float32
    assert h.astype(np.float64) is h
    assert h.pattern().is_pattern and h.pattern().to_coo().nnz == 4
