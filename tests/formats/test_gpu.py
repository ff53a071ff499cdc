"""Device formats: same code on cupy arrays, same results as on the host."""

import numpy as np
import pytest
import scipy.sparse as sp

from hpgraph import backend, dtypes
from hpgraph.formats import COO, CSR, Bitmask, from_any, from_scipy

pytestmark = pytest.mark.gpu

FORMATS = ("coo", "csr", "csc", "ell", "hyb")


def _cp():
    return backend.cupy()


def _host_coo(seed=0, n=40, pattern=False, dtype=np.float64):
    rng = np.random.default_rng(seed)
    lengths = np.minimum(rng.zipf(1.7, size=n), n)
    row = np.repeat(np.arange(n), lengths)
    col = rng.integers(0, n, size=row.shape[0])
    perm = rng.permutation(row.shape[0])
    vals = None if pattern else (rng.standard_normal(row.shape[0]) * 10).astype(dtype)
    return COO(row[perm], col[perm], None if vals is None else vals[perm], (n, n))


def _all_device(m):
    cp = _cp()
    arrays = []
    if m.format == "hyb":
        return _all_device(m.ell) and _all_device(m.coo)
    for name in ("row", "col", "indptr", "indices", "values"):
        a = getattr(m, name, None)
        if a is not None:
            arrays.append(a)
    return all(isinstance(a, cp.ndarray) for a in arrays)


def _dense(m):
    return m.to_scipy().toarray()


@pytest.mark.parametrize("src", FORMATS)
def test_device_round_trips_stay_on_device(src):
    cp = _cp()
    host = _host_coo()
    dev = COO(cp.asarray(host.row), cp.asarray(host.col), cp.asarray(host.values), host.shape)
    assert dev.on_device and dev.xp is cp
    a = dev.asformat(src)
    assert a.on_device and _all_device(a)
    for dst in FORMATS:
        b = a.asformat(dst)
        assert b.on_device and _all_device(b)
        b.check(full=True)
        np.testing.assert_array_equal(_dense(b), _dense(host))


@pytest.mark.parametrize("dtype", dtypes.ALL_DTYPES, ids=lambda d: d.name)
def test_device_value_dtypes(dtype):
    host = _host_coo(seed=2).astype(dtype)
    dev = host.to_device()
    for f in FORMATS:
        d = dev.asformat(f)
        assert d.dtype == dtype
        np.testing.assert_array_equal(_dense(d.to_host()), _dense(host))


def test_device_hyb_equals_host_hyb():
    for seed in range(4):
        host = _host_coo(seed=seed, n=100).to_csr()
        hh = host.to_hyb()
        dh = host.to_device().to_hyb()
        assert dh.K == hh.K and dh.nnz == hh.nnz
        np.testing.assert_array_equal(dh.ell.indices.get(), hh.ell.indices)
        np.testing.assert_array_equal(dh.ell.values.get(), hh.ell.values)
        np.testing.assert_array_equal(dh.coo.row.get(), hh.coo.row)
        np.testing.assert_array_equal(dh.coo.col.get(), hh.coo.col)
        np.testing.assert_array_equal(dh.coo.values.get(), hh.coo.values)
        back = dh.to_csr()
        np.testing.assert_array_equal(back.indptr.get(), host.indptr)
        np.testing.assert_array_equal(back.indices.get(), host.indices)


def test_device_pattern_and_int64():
    host = _host_coo(pattern=True)
    dev = host.to_device().asformat("hyb", index_dtype="int64")
    assert dev.is_pattern and dev.index_dtype == np.int64 and dev.on_device
    np.testing.assert_array_equal(_dense(dev.to_host()), _dense(host))
    empty = COO(_cp().zeros(0, np.int32), _cp().zeros(0, np.int32), None, (0, 0))
    for f in FORMATS:
        assert empty.asformat(f).nnz == 0
    none = COO(_cp().zeros(0, np.int32), _cp().zeros(0, np.int32), None, (5, 5))
    for f in FORMATS:
        assert none.asformat(f).nnz == 0 and none.asformat(f).on_device


def test_device_deduplicate_matches_host():
    host = COO([2, 0, 2, 0, 2], [1, 3, 1, 3, 0], [1.0, 2.0, 3.0, 4.0, 5.0], (3, 4))
    dev = host.to_device()
    for how in ("min", "max", "sum", "first", "last", "keep"):
        h, d = host.deduplicate(how), dev.deduplicate(how)
        np.testing.assert_array_equal(d.row.get(), h.row)
        np.testing.assert_array_equal(d.col.get(), h.col)
        np.testing.assert_allclose(d.values.get(), h.values)


def test_cupyx_in_and_out():
    cp = _cp()
    import cupyx.scipy.sparse as cxs

    A = sp.random_array((30, 20), density=0.2, format="csr", rng=1)
    for kind in (cxs.csr_matrix, cxs.csc_matrix, cxs.coo_matrix):
        X = kind(A.asformat(kind.format))
        m = from_scipy(X)
        assert m.on_device and m.format == X.format
        np.testing.assert_allclose(_dense(m), A.toarray())
        out = m.to_cupyx()
        assert type(out).__module__.startswith("cupyx")
        np.testing.assert_allclose(out.toarray().get(), A.toarray())
    h = from_any(cxs.csr_matrix(A)).to_hyb()
    assert h.on_device
    assert isinstance(h.to_cupyx(), cxs.csr_matrix)
    A10 = A.copy()
    A10.data = A10.data * 10 + 1
    A10 = A10.astype(np.int32)  # stored entries become integers 1..10
    ints = from_scipy(A10).to_device().to_cupyx()
    assert ints.dtype == np.float64  # cuSPARSE takes no integers
    np.testing.assert_array_equal(cp.asnumpy(ints.toarray()), A10.toarray())


def test_device_bitmask_matches_host():
    cp = _cp()
    rng = np.random.default_rng(0)
    for n in (0, 1, 31, 32, 33, 1000):
        b = rng.random(n) < 0.3
        hm = Bitmask.from_bool(b)
        dm = Bitmask.from_bool(cp.asarray(b))
        assert dm.on_device
        np.testing.assert_array_equal(dm.words.get(), hm.words)
        assert dm.count() == hm.count()
        np.testing.assert_array_equal((~dm).to_bool().get(), ~b)
        idx = np.flatnonzero(b)
        assert Bitmask.from_indices(cp.asarray(idx), n) == dm
        np.testing.assert_array_equal(dm.to_indices().get(), idx)
        other = Bitmask.from_bool(cp.asarray(rng.random(n) < 0.5))
        np.testing.assert_array_equal((dm & other).to_bool().get(), b & other.to_bool().get())
        assert dm.to_host() == hm and hm.to_device() == dm


def test_host_device_round_trip_and_mixing():
    cp = _cp()
    host = _host_coo().to_csr()
    dev = host.to_device()
    assert dev.to_device() is dev
    back = dev.to_host()
    np.testing.assert_array_equal(back.indices, host.indices)
    with pytest.raises(ValueError, match="same side"):
        CSR(host.indptr, cp.asarray(host.indices), None, host.shape)
