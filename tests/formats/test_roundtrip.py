"""Every format converts to every other without losing or inventing entries."""

import numpy as np
import pytest

from hpgraph import dtypes
from hpgraph.formats import COO, CSC, CSR, ELL, HYB, SparseMatrix, from_any

FORMATS = ("coo", "csr", "csc", "ell", "hyb")


def triples(m):
    """Sorted (row, col, value) of every stored entry, duplicates included, on the host."""
    coo = m.to_host().to_coo()
    r, c = np.asarray(coo.row, dtype=np.int64), np.asarray(coo.col, dtype=np.int64)
    v = np.ones(r.shape[0]) if coo.values is None else np.asarray(coo.values)
    order = np.lexsort((v, c, r))
    return r[order], c[order], v[order]


def assert_same_entries(a, b):
    assert a.shape == b.shape
    assert a.nnz == b.nnz
    ta, tb = triples(a), triples(b)
    for x, y in zip(ta, tb):
        np.testing.assert_array_equal(x, y)


def make_coo(shape, lengths, seed=0, dtype=np.float64, pattern=False, index_dtype=None):
    """COO whose row r holds lengths[r] distinct random columns, shuffled."""
    rng = np.random.default_rng(seed)
    rows, cols = [], []
    for r, k in enumerate(lengths):
        rows.append(np.full(k, r))
        cols.append(rng.choice(shape[1], size=k, replace=False))
    row = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    col = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    perm = rng.permutation(row.shape[0])
    row, col = row[perm], col[perm]
    vals = None
    if not pattern:
        dt = np.dtype(dtype)
        if dt.kind == "b":
            vals = rng.random(row.shape[0]) < 0.5
        elif dt.kind == "f":
            vals = rng.standard_normal(row.shape[0]).astype(dt)
        else:
            vals = rng.integers(0, 100, row.shape[0]).astype(dt)
    return COO(row, col, vals, shape, index_dtype=index_dtype)


CASES = {
    "empty_0x0": ((0, 0), []),
    "5x5_no_entries": ((5, 5), [0] * 5),
    "one_vertex_loop": ((1, 1), [1]),
    "one_vertex_empty": ((1, 1), [0]),
    "rectangular": ((4, 9), [3, 0, 9, 2]),
    "long_rows": ((9, 12), [10, 1, 1, 0, 2, 0, 7, 3, 1]),
    "uniform": ((6, 6), [2] * 6),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("src", FORMATS)
def test_every_pair_of_formats(case, src):
    shape, lengths = CASES[case]
    base = make_coo(shape, lengths)
    a = base.asformat(src)
    assert a.format == src
    assert_same_entries(a, base)
    for dst in FORMATS:
        b = a.asformat(dst)
        assert isinstance(b, SparseMatrix) and b.format == dst
        assert_same_entries(b, base)
        assert b.check(full=True) is b


@pytest.mark.parametrize("dtype", dtypes.ALL_DTYPES, ids=lambda d: d.name)
def test_every_value_dtype_survives_all_formats(dtype):
    base = make_coo((9, 12), CASES["long_rows"][1], dtype=dtype, seed=3)
    assert base.dtype == dtype
    for f in FORMATS:
        m = base.asformat(f)
        assert m.dtype == dtype
        back = m.to_coo()
        assert back.dtype == dtype
        assert_same_entries(back, base)


@pytest.mark.parametrize("src", FORMATS)
def test_pattern_only(src):
    base = make_coo((9, 12), CASES["long_rows"][1], pattern=True)
    m = base.asformat(src)
    assert m.is_pattern and m.dtype is None
    for dst in FORMATS:
        b = m.asformat(dst)
        assert b.is_pattern
        assert_same_entries(b, base)
    ones = m.astype(np.float32)
    assert ones.dtype == np.float32 and not ones.is_pattern
    np.testing.assert_array_equal(ones.to_scipy().toarray(), base.to_scipy().toarray())
    assert set(np.unique(ones.to_coo().values)) <= {1.0}


@pytest.mark.parametrize("src", FORMATS)
def test_forced_int64_indices(src):
    base = make_coo((9, 12), CASES["long_rows"][1], index_dtype="int64")
    assert base.index_dtype == np.int64
    m = base.asformat(src)
    assert m.index_dtype == np.int64
    for dst in FORMATS:
        b = m.asformat(dst)
        assert b.index_dtype == np.int64
        assert_same_entries(b, base)
    # and back down on request
    small = m.asformat("csr", index_dtype="int32")
    assert small.index_dtype == np.int32 and small.indptr.dtype == np.int32
    assert_same_entries(small, base)


def test_index_dtype_is_int32_by_default_and_shared():
    m = COO(np.array([0, 1], dtype=np.int64), np.array([1, 0], dtype=np.int16), [1.0, 2.0])
    assert m.index_dtype == np.int32  # mixed input dtypes -> the smallest that fits
    assert m.row.dtype == m.col.dtype == np.int32
    h = m.to_hyb()
    assert h.ell.indices.dtype == h.coo.row.dtype == h.coo.col.dtype == np.int32
    small = COO(np.array([0, 1], dtype=np.int64), np.array([1, 0], dtype=np.int64))
    assert small.index_dtype == np.int32  # the rule wins over the input dtype
    row64 = np.array([0, 1], dtype=np.int64)
    forced = COO(row64, row64, index_dtype="int64")
    assert forced.index_dtype == np.int64 and np.shares_memory(forced.row, row64)
    with pytest.raises(ValueError, match="index_dtype"):
        COO([0], [0], index_dtype="int16")


def test_duplicates_are_kept_and_sorted_stably():
    coo = COO([2, 0, 2, 0, 2], [1, 3, 1, 3, 0], [1.0, 2.0, 3.0, 4.0, 5.0], (3, 4))
    csr = coo.to_csr()
    assert csr.nnz == 5
    np.testing.assert_array_equal(csr.indptr, [0, 2, 2, 5])
    np.testing.assert_array_equal(csr.indices, [3, 3, 0, 1, 1])
    np.testing.assert_array_equal(csr.values, [2.0, 4.0, 5.0, 1.0, 3.0])  # input order kept
    csc = coo.to_csc()
    np.testing.assert_array_equal(csc.indptr, [0, 1, 3, 3, 5])
    np.testing.assert_array_equal(csc.indices, [2, 2, 2, 0, 0])
    np.testing.assert_array_equal(csc.values, [5.0, 1.0, 3.0, 2.0, 4.0])
    for f in FORMATS:
        assert_same_entries(coo.asformat(f), coo)


@pytest.mark.parametrize("how, expect", [
    ("min", [2.0, 1.0, 5.0]), ("max", [4.0, 3.0, 5.0]), ("sum", [6.0, 4.0, 5.0]),
    ("first", [2.0, 1.0, 5.0]), ("last", [4.0, 3.0, 5.0])])
def test_deduplicate(how, expect):
    coo = COO([2, 0, 2, 0, 2], [1, 3, 1, 3, 0], [1.0, 2.0, 3.0, 4.0, 5.0], (3, 4))
    d = coo.deduplicate(how)
    # sorted order: (0,3), (2,0), (2,1)
    np.testing.assert_array_equal(d.row, [0, 2, 2])
    np.testing.assert_array_equal(d.col, [3, 0, 1])
    got = dict(zip(zip(d.row.tolist(), d.col.tolist()), d.values.tolist()))
    assert got == {(0, 3): expect[0], (2, 1): expect[1], (2, 0): expect[2]}


def test_deduplicate_dtypes():
    b = COO([0, 0, 1], [0, 0, 1], np.array([False, True, False]), (2, 2)).deduplicate("sum")
    np.testing.assert_array_equal(b.values, [True, False])
    bb = COO([0, 0, 1, 1, 2], [0, 0, 1, 1, 2], np.array([True, False, False, False, True]))
    np.testing.assert_array_equal(bb.deduplicate("min").values, [False, False, True])
    np.testing.assert_array_equal(bb.deduplicate("max").values, [True, False, True])
    i8 = COO([0, 0], [0, 0], np.array([100, 100], dtype=np.int8), (1, 1)).deduplicate("sum")
    assert i8.values.dtype == np.int8 and int(i8.values[0]) == np.int8(-56)  # wraps like int8
    p = COO([0, 0, 1], [1, 1, 0], None, (2, 2)).deduplicate("min")
    assert p.is_pattern and p.nnz == 2
    assert COO([0, 0], [1, 1]).deduplicate("keep").nnz == 2
    with pytest.raises(ValueError, match="duplicates"):
        COO([0], [0]).deduplicate("mean")


def test_csr_transpose_and_row_lengths():
    base = make_coo((4, 9), CASES["rectangular"][1], seed=5)
    csr = base.to_csr()
    np.testing.assert_array_equal(csr.row_lengths(), [3, 0, 9, 2])
    t = csr.transpose()
    assert t.format == "csr" and t.shape == (9, 4)
    np.testing.assert_array_equal(t.to_scipy().toarray(), csr.to_scipy().toarray().T)
    assert t.check(full=True) is t
    np.testing.assert_array_equal(csr.T.T.to_scipy().toarray(), csr.to_scipy().toarray())
    assert base.T.shape == (9, 4)


def test_from_coo_accepts_any_format_and_asformat_identity():
    base = make_coo((6, 6), CASES["uniform"][1])
    csr = base.to_csr()
    assert CSR.from_coo(csr.to_csc()).format == "csr"
    assert csr.asformat("csr") is csr
    assert csr.asformat("CSR") is csr
    assert base.asformat("coo") is base
    h = csr.to_hyb()
    assert h.asformat("hyb") is h
    assert h.asformat("hyb", K=h.K) is h
    assert h.asformat("hyb", K=h.K + 1).K == h.K + 1
    e = csr.to_ell()
    assert e.asformat("ell") is e
    with pytest.raises(ValueError, match="unknown sparse format"):
        csr.asformat("dia")
    assert from_any(csr) is csr
    for cls in (COO, CSR, CSC, ELL, HYB):
        m = cls.from_coo(base)
        assert m.format == cls.format
        assert_same_entries(m, base)


def test_astype_and_pattern():
    base = make_coo((6, 6), CASES["uniform"][1], dtype=np.float64)
    for f in FORMATS:
        m = base.asformat(f)
        assert m.astype(np.float64) is m
        i = m.astype("int32")
        assert i.dtype == np.int32
        assert m.pattern().is_pattern
        assert m.pattern().pattern() is m.pattern() or m.pattern().is_pattern
        assert m.astype(np.float32).to_coo().values.dtype == np.float32


def test_arrays_are_read_only_and_inputs_untouched():
    row = np.array([1, 0, 1], dtype=np.int32)
    col = np.array([0, 2, 1], dtype=np.int32)
    val = np.array([1.0, 2.0, 3.0])
    copies = [a.copy() for a in (row, col, val)]
    coo = COO(row, col, val, (2, 3))
    for f in FORMATS:
        coo.asformat(f).to_scipy()
    coo.deduplicate("sum")
    coo.sort()
    for a, b in zip((row, col, val), copies):
        np.testing.assert_array_equal(a, b)
        assert a.flags.writeable  # caller's flags untouched
    with pytest.raises(ValueError):
        coo.row[0] = 5
    csr = coo.to_csr()
    with pytest.raises(ValueError):
        csr.values[0] = 5.0
    # scipy output is a private copy by default
    s = csr.to_scipy()
    s.data[0] = 99.0
    assert float(csr.values[0]) != 99.0


def test_constructor_does_not_copy_fitting_arrays():
    indptr = np.array([0, 1, 2], dtype=np.int32)
    indices = np.array([1, 0], dtype=np.int32)
    vals = np.array([1.0, 2.0])
    m = CSR(indptr, indices, vals, (2, 2))
    assert np.shares_memory(m.indptr, indptr) and np.shares_memory(m.values, vals)


def test_shape_inference_and_repr():
    m = COO([0, 3], [2, 1])
    assert m.shape == (4, 3)
    assert COO([], []).shape == (0, 0)
    assert CSR([0, 1, 1], [4], None).shape == (2, 5)
    assert ELL(np.array([[0, -1, 2]]), None).shape == (3, 3)
    for f in FORMATS:
        r = repr(m.asformat(f))
        assert f.upper() in r and "nnz=2" in r and "host" in r
    assert "K=" in repr(m.to_hyb()) and "coo_share" in repr(m.to_hyb())
    assert "pattern" in repr(m)


def test_xp_and_side_attributes():
    m = COO([0], [0], [1.0]).to_csr()
    assert m.xp is np and not m.on_device and m.side == "cpu"
    assert m.to_host() is m
    assert m.nrows == 1 and m.ncols == 1


@pytest.mark.parametrize("dtype", dtypes.ALL_DTYPES, ids=lambda d: d.name)
def test_device_dedupe_path_matches_host_path(dtype):
    """The sort/bincount path the GPU takes gives what numpy's reduceat gives."""
    from hpgraph.formats.coo import _combine, _combine_generic

    rng = np.random.default_rng(7)
    n = 300
    row, col = rng.integers(0, 6, n), rng.integers(0, 6, n)
    vals = (rng.random(n) < 0.5) if dtype.kind == "b" else (rng.integers(0, 120, n)).astype(dtype)
    s = COO(row, col, vals, (6, 6)).sort()
    r, c, v = s.row, s.col, s.values
    new = np.empty(n, dtype=bool)
    new[0] = True
    new[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:] - 1, n - 1)
    for how in ("sum", "min", "max"):
        fast = _combine(np, how, v, new, starts, ends, starts.shape[0])
        slow = _combine_generic(np, how, v, new, starts, ends, starts.shape[0])
        assert fast.dtype == slow.dtype == dtype
        if dtype.kind == "f":
            np.testing.assert_allclose(fast, slow, rtol=1e-6)
        else:
            np.testing.assert_array_equal(fast, slow)
