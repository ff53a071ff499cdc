"""Bitmask against plain bool arrays."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpgraph.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue
from hpgraph.formats import Bitmask

bools = st.lists(st.booleans(), max_size=200).map(lambda x: np.array(x, dtype=bool))


@st.composite
def two_masks(draw):
    n = draw(st.integers(0, 200))
    a = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    b = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(a, dtype=bool), np.array(b, dtype=bool)


@settings(max_examples=80, deadline=None)
@given(bools)
def test_bool_round_trip_and_queries(b):
    m = Bitmask.from_bool(b)
    assert m.n == len(b) == len(m)
    assert m.words.dtype == np.uint32 and m.words.shape == ((len(b) + 31) // 32,)
    np.testing.assert_array_equal(m.to_bool(), b)
    np.testing.assert_array_equal(m.to_indices(), np.flatnonzero(b))
    assert m.count() == int(b.sum())
    assert m.any() == bool(b.any())
    for i in range(len(b)):
        assert m.test(i) == bool(b[i])
    if len(b):
        np.testing.assert_array_equal(m.test(np.arange(len(b))), b)
    np.testing.assert_array_equal((~m).to_bool(), ~b)
    assert (~m).count() == len(b) - int(b.sum())  # bits past n stay clear
    assert Bitmask.from_indices(np.flatnonzero(b), len(b)) == m


@settings(max_examples=80, deadline=None)
@given(two_masks())
def test_binary_ops(ab):
    a, b = ab
    ma, mb = Bitmask.from_bool(a), Bitmask.from_bool(b)
    np.testing.assert_array_equal((ma & mb).to_bool(), a & b)
    np.testing.assert_array_equal((ma | mb).to_bool(), a | b)
    np.testing.assert_array_equal((ma ^ mb).to_bool(), a ^ b)
    np.testing.assert_array_equal(ma.andnot(mb).to_bool(), a & ~b)
    assert (ma == mb) == bool(np.array_equal(a, b))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 150).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(0, n - 1), max_size=40),
                        st.lists(st.integers(0, n - 1), max_size=40))))
def test_set_clear_from_indices(args):
    n, on, off = args
    ref = np.zeros(n, dtype=bool)
    ref[on] = True
    m = Bitmask.from_indices(on, n)
    np.testing.assert_array_equal(m.to_bool(), ref)
    ref2 = ref.copy()
    ref2[off] = False
    np.testing.assert_array_equal(m.clear(off).to_bool(), ref2)
    ref3 = ref.copy()
    ref3[off] = True
    np.testing.assert_array_equal(m.set(off).to_bool(), ref3)
    np.testing.assert_array_equal(m.to_bool(), ref)  # m itself unchanged


def test_layout_and_constructors():
    m = Bitmask.from_indices([0, 3, 33], 40)
    np.testing.assert_array_equal(m.words, [0b1001, 0b10])  # bit i % 32 of word i // 32
    assert Bitmask(np.array([0b1001, 0b10], dtype=np.uint32), 40) == m
    z = Bitmask.zeros(70)
    assert z.count() == 0 and z.nwords == 3 and not z.any()
    o = Bitmask.ones(70)
    assert o.count() == 70 and int(o.words[-1]) == 0b111111
    assert Bitmask.ones(64).count() == 64
    assert (~z) == o and (~o) == z
    assert Bitmask.zeros(0).count() == 0 and Bitmask.zeros(0).to_bool().shape == (0,)
    assert Bitmask.zeros(5, like=np).xp is np
    assert Bitmask.zeros(5, like=np.zeros(3)).xp is np
    assert Bitmask.zeros(5, like=m).xp is np
    assert m.set(5).test(5) and not m.clear(3).test(3)
    assert Bitmask.from_bool(np.array([0, 2, 0])).to_indices().tolist() == [1]
    assert "count=3" in repr(m)
    assert m.to_host() is m and not m.on_device
    w = np.array([1], dtype=np.uint32)
    Bitmask(w, 3)
    assert w.flags.writeable  # caller's array untouched
    with pytest.raises(ValueError):
        m.words[0] = 0  # read-only


def test_errors():
    with pytest.raises(InvalidValue, match="uint32"):
        Bitmask(np.zeros(1, dtype=np.int32), 3)
    with pytest.raises(InvalidValue, match="length ceil"):
        Bitmask(np.zeros(2, dtype=np.uint32), 3)
    with pytest.raises(InvalidValue, match="bits past n=3"):
        Bitmask(np.array([0b1000], dtype=np.uint32), 3)
    with pytest.raises(InvalidValue, match="non-negative integer"):
        Bitmask.zeros(-1)
    with pytest.raises(IndexOutOfBound, match="vertex 5 is out of range"):
        Bitmask.from_indices([5], 5)
    with pytest.raises(IndexOutOfBound):
        Bitmask.from_indices([-1], 5)
    with pytest.raises(IndexOutOfBound):
        Bitmask.zeros(5).test(5)
    with pytest.raises(IndexOutOfBound):
        Bitmask.zeros(5).test(np.array([0, 9]))
    with pytest.raises(DimensionMismatch, match="n=5 and n=6"):
        Bitmask.zeros(5) | Bitmask.zeros(6)
    with pytest.raises(InvalidValue):
        Bitmask.zeros(5).andnot(np.zeros(5, bool))
    with pytest.raises(TypeError):
        Bitmask.zeros(5) & 3
    with pytest.raises(InvalidValue, match="1-D"):
        Bitmask.from_bool(np.zeros((2, 2), bool))
    with pytest.raises(InvalidValue, match="integers"):
        Bitmask.from_indices([0.5], 3)
