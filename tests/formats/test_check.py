"""Constructors reject malformed input with typed errors; check(full=True) finds each bad field."""

import numpy as np
import pytest

from hpgraph.exceptions import DomainMismatch, InvalidGraph, InvalidValue
from hpgraph.formats import COO, CSC, CSR, ELL


class FakeDeviceArray:
    """Looks like a device array to hpgraph (it only checks the interface attribute)."""

    __cuda_array_interface__ = {}


# -- COO -------------------------------------------------------------------------------


def test_coo_constructor_errors():
    with pytest.raises(InvalidGraph, match="row and col must have the same length, got 2 and 1"):
        COO([0, 1], [0])
    with pytest.raises(InvalidGraph, match=r"values must have shape \(2,\)"):
        COO([0, 1], [0, 1], [1.0])
    with pytest.raises(InvalidGraph, match="row must hold integers, got dtype float64"):
        COO([0.5], [0])
    with pytest.raises(InvalidGraph, match="col must be 1-D"):
        COO([0], [[0]])
    with pytest.raises(InvalidGraph, match="shape must be a pair of non-negative integers"):
        COO([0], [0], shape=(-1, 2))
    with pytest.raises(InvalidGraph, match="shape must be a pair"):
        COO([0], [0], shape=(2,))
    with pytest.raises(DomainMismatch, match="values"):
        COO([0], [0], np.array([1 + 2j]))
    with pytest.raises(InvalidGraph, match="'row' is a host .* 'col' is a device"):
        COO(np.array([0]), FakeDeviceArray())


def test_coo_range_checked_by_default():
    with pytest.raises(InvalidGraph, match=r"row\[1\] = 3 is out of range"):
        COO([0, 3], [0, 0], shape=(3, 3))
    with pytest.raises(InvalidGraph, match=r"col\[0\] = -1 is out of range"):
        COO([0], [-1], shape=(3, 3))


def test_coo_full_check_finds_fields():
    m = COO([0, 3], [0, 0], shape=(3, 3), check=False)  # cheap checks only
    m.check()
    with pytest.raises(InvalidGraph, match="row"):
        m.check(full=True)
    m = COO([0, 1], [0, 7], shape=(3, 3), check=False)
    with pytest.raises(InvalidGraph, match=r"col\[1\] = 7"):
        m.check(full=True)


def test_cheap_check_finds_dtype_and_length_corruption():
    # the trusted constructor skips validation: check() is what catches such matrices
    bad = COO._new(np.array([0], np.int32), np.array([0], np.int64), None, (1, 1))
    with pytest.raises(InvalidGraph, match="col must have dtype int32"):
        bad.check()
    bad = COO._new(np.array([0, 1], np.int32), np.array([0], np.int32), None, (2, 2))
    with pytest.raises(InvalidGraph, match=r"col must have shape \(2,\)"):
        bad.check()
    bad = CSR._new(np.array([0, 1], np.int32), np.array([0], np.int32), np.ones(2), (1, 1))
    with pytest.raises(InvalidGraph, match="values must have shape"):
        bad.check()


# -- CSR / CSC -------------------------------------------------------------------------


def test_csr_constructor_errors():
    with pytest.raises(InvalidGraph, match=r"indptr must have length nrows \+ 1 = 3"):
        CSR([0, 1], [0], None, (2, 2))
    with pytest.raises(InvalidGraph, match=r"indptr\[0\] must be 0, got 1"):
        CSR([1, 1, 1], [], None, (2, 2))
    with pytest.raises(InvalidGraph, match=r"indptr\[-1\] must equal the number of stored entries"):
        CSR([0, 1, 3], [0, 1], None, (2, 2))
    with pytest.raises(InvalidGraph, match="indices must hold integers"):
        CSR([0, 1], [0.0], None, (1, 1))
    with pytest.raises(InvalidGraph, match=r"values must have shape \(1,\)"):
        CSR([0, 1], [0], [1.0, 2.0], (1, 1))
    with pytest.raises(InvalidGraph, match=r"indptr must have length ncolumns \+ 1"):
        CSC([0, 1], [0], None, (2, 2))
    with pytest.raises(InvalidGraph, match="at least one element"):
        CSR([], [], None)


def test_csr_full_check_finds_fields():
    nonmono = CSR([0, 2, 1, 3], [0, 1, 0], None, (3, 3))
    nonmono.check()  # O(1) checks pass
    with pytest.raises(InvalidGraph, match=r"indptr must be non-decreasing, but indptr\[2\] = 1 < indptr\[1\] = 2"):
        nonmono.check(full=True)
    out = CSR([0, 1, 2], [0, 5], None, (2, 3))
    with pytest.raises(InvalidGraph, match=r"indices\[1\] = 5 is out of range"):
        out.check(full=True)
    unsorted = CSR([0, 2, 2], [2, 0], None, (2, 3))
    with pytest.raises(InvalidGraph, match="indices must be sorted within each row"):
        unsorted.check(full=True)
    with pytest.raises(InvalidGraph, match="sorted within each column"):
        CSC([0, 2, 2], [2, 0], None, (3, 2), check=True)
    # a row that starts lower than the previous one ended is fine
    CSR([0, 2, 3], [1, 2, 0], None, (2, 3), check=True)


# -- ELL -------------------------------------------------------------------------------


def test_ell_constructor_errors():
    with pytest.raises(InvalidGraph, match="indices must be 2-D"):
        ELL([0, 1], None, (2, 2))
    with pytest.raises(InvalidGraph, match=r"indices must have shape \(K, nrows\) = \(K, 3\)"):
        ELL(np.zeros((1, 2), np.int32), None, (3, 3))
    with pytest.raises(InvalidGraph, match=r"values must have shape \(1, 2\)"):
        ELL(np.zeros((1, 2), np.int32), np.zeros(2), (2, 2))
    with pytest.raises(InvalidGraph, match="signed"):
        ELL(np.zeros((1, 2), np.uint32), None, (2, 2))


def test_ell_full_check_finds_fields():
    m = ELL(np.array([[0, -2]]), None, (2, 2))
    with pytest.raises(InvalidGraph, match=r"indices\[1\] = -2 is out of range"):
        m.check(full=True)
    m = ELL(np.array([[0, 2]]), None, (2, 2))
    with pytest.raises(InvalidGraph, match=r"indices\[1\] = 2"):
        m.check(full=True)
    m = ELL(np.array([[0, -1]]), np.array([[1.0, 3.0]]), (2, 2))
    with pytest.raises(InvalidGraph, match=r"values\[0, 1\] is padding .* must be 0"):
        m.check(full=True)
    ok = ELL(np.array([[0, -1]]), np.array([[1.0, 0.0]]), (2, 2), check=True)
    assert ok.nnz == 1


def test_index_dtype_argument_errors():
    with pytest.raises(InvalidValue, match="int32 or int64"):
        CSR([0, 1], [0], None, (1, 1), index_dtype=np.float32)
    m = CSR([0, 1], [0], None, (1, 1))
    with pytest.raises(InvalidValue, match="int32 or int64"):
        m.with_index_dtype("uint32")
    assert m.with_index_dtype(None) is m
    assert m.with_index_dtype("int32") is m
