"""hpgraph._arrayops: bool reductions and bincount without CuPy's CUB block reductions, checked
against NumPy on both sides."""

from __future__ import annotations

import numpy as np
import pytest

from hpgraph import _arrayops as _xp

BOOLS = [np.zeros(0, bool), np.zeros(7, bool), np.ones(5, bool),
         np.array([False, False, True, False]), np.array([True, True, False]),
         np.arange(3000) % 997 == 5, np.ones((4, 6), bool)]


SIDES = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


def _xp_of(side):
    return np if side == "numpy" else pytest.importorskip("cupy")


@pytest.mark.parametrize("b", BOOLS, ids=range(len(BOOLS)))
def test_bool_reductions_match_numpy_on_the_host(b):
    assert _xp.any_true(np, b) is bool(b.any())
    assert _xp.all_true(np, b) is bool(b.all())
    assert _xp.count_true(np, b) == int(np.count_nonzero(b))


@pytest.mark.gpu
@pytest.mark.parametrize("b", BOOLS, ids=range(len(BOOLS)))
def test_bool_reductions_match_numpy_on_the_device(b):
    cp = pytest.importorskip("cupy")
    d = cp.asarray(b)
    assert _xp.any_true(cp, d) is bool(b.any())
    assert _xp.all_true(cp, d) is bool(b.all())
    assert _xp.count_true(cp, d) == int(np.count_nonzero(b))
    sl = d[::2] if d.ndim == 1 else d[:, ::2]           # not contiguous: copied first
    ref = b[::2] if b.ndim == 1 else b[:, ::2]
    assert _xp.any_true(cp, sl) is bool(ref.any()) and _xp.count_true(cp, sl) == int(ref.sum())


@pytest.mark.gpu
@pytest.mark.parametrize("a", [np.array([0, 0, 1 << 63, 0], dtype=np.uint64),
                               np.array([256, 0, 512], dtype=np.int32), np.array([-0.0, 0.0, 2.5]),
                               np.array([1, 2, 3], dtype=np.int8), np.zeros(4, np.float32)],
                         ids=range(5))
def test_non_bool_arrays_count_their_nonzero_elements(a):
    cp = pytest.importorskip("cupy")
    d = cp.asarray(a)
    assert _xp.any_true(cp, d) is bool(a.any()) and _xp.all_true(cp, d) is bool(a.all())
    assert _xp.count_true(cp, d) == int(np.count_nonzero(a))


@pytest.mark.gpu
def test_count_in_chunks(monkeypatch):
    cp = pytest.importorskip("cupy")
    monkeypatch.setattr(_xp, "_COUNT_CHUNK", 7)
    b = np.arange(100) % 3 == 0
    assert _xp.count_true(cp, cp.asarray(b)) == int(b.sum())


CASES = [
    (np.zeros(0, np.int32), None, 0),
    (np.zeros(0, np.int64), None, 5),
    (np.array([3, 1, 3, 0, 3], np.int32), None, 0),
    (np.array([3, 1, 3, 0, 3], np.int64), None, 9),
    (np.array([2, 2, 7], np.uint32), None, 3),
    (np.array([4, 0, 4, 1], np.int32), np.array([0.5, 2.0, -1.25, 0.0]), 0),
    (np.array([4, 0, 4, 1], np.int64), np.array([1, 2, 3, 4], np.int32), 8),
    (np.array([1, 0, 1], np.int16), np.array([0.1, 0.2, 0.3], np.float32), 0),
    (np.array([True, False, True]), None, 0),
]


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("x,w,minlength", CASES, ids=range(len(CASES)))
def test_bincount_matches_numpy(side, x, w, minlength):
    xp = _xp_of(side)
    ref = np.bincount(x, weights=w, minlength=minlength)
    got = _xp.bincount(xp, xp.asarray(x), None if w is None else xp.asarray(w), minlength)
    got = got.get() if hasattr(got, "get") else got
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-6 if w is not None and w.dtype == np.float32
                               else 0)


@pytest.mark.parametrize("side", SIDES)
def test_bincount_refuses_what_numpy_refuses(side):
    xp = _xp_of(side)
    x = xp.asarray(np.array([1, -2, 3]))
    with pytest.raises(ValueError):
        _xp.bincount(xp, x)
    with pytest.raises(ValueError):
        _xp.bincount(xp, xp.asarray(np.zeros((2, 2), np.int64)))
    with pytest.raises(TypeError):
        _xp.bincount(xp, xp.asarray(np.array([1.0, 2.0])))
    with pytest.raises(ValueError):
        _xp.bincount(xp, xp.asarray(np.array([1, 2])), xp.asarray(np.array([1.0])))
    before = x.copy()
    with pytest.raises(ValueError):
        _xp.bincount(xp, x, minlength=-1)
    assert bool((x == before).all())


def test_host_arrays_need_nothing_of_the_module():
    """Host arrays under a stand-in for CuPy (as the host-side tests of device code pass) are
    reduced by NumPy: the stand-in needs none of these functions."""
    import types

    fake = types.SimpleNamespace()
    b = np.array([True, False, True])
    assert _xp.any_true(fake, b) and not _xp.all_true(fake, b) and _xp.count_true(fake, b) == 2
    np.testing.assert_array_equal(_xp.bincount(fake, np.array([2, 0, 2]), None, 4), [1, 0, 2, 0])
