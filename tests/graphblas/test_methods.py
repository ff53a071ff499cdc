"""python-graphblas-style methods give python-graphblas' results; user callbacks that do not
compile raise typed errors and change nothing."""

from __future__ import annotations

import numpy as np
import pytest

from hpgraph.exceptions import HpgraphError, InvalidValue
from tests.graphblas._helpers import compare, gb, rand_matrix, rand_vector


def test_methods_match_graphblas():
    rng = np.random.default_rng(11)
    A, B = rand_matrix(rng, 8, 8, "int64"), rand_matrix(rng, 8, 8, "int64")
    v = rand_vector(rng, 8, "int64")
    GA, GB, Gv = A.to_graphblas(), B.to_graphblas(), v.to_graphblas()
    M = rand_matrix(rng, 8, 8, "bool")
    cases = [
        (A.mxm(B, "min_plus", mask=M.S), GA.mxm(GB, gb.semiring.min_plus).new(mask=M.to_graphblas().S)),
        (A.mxv(v, "plus_times"), GA.mxv(Gv, gb.semiring.plus_times).new()),
        (v.vxm(A, "max_plus"), Gv.vxm(GA, gb.semiring.max_plus).new()),
        (A.ewise_add(B, "max"), GA.ewise_add(GB, gb.binary.max).new()),
        (A.ewise_mult(B, "minus"), GA.ewise_mult(GB, gb.binary.minus).new()),
        (A.ewise_union(B, "minus", 0, 0), GA.ewise_union(GB, gb.binary.minus, 0, 0).new()),
        (A.apply("ainv"), GA.apply(gb.unary.ainv).new()),
        (A.select("triu", 1), gb.select.triu(GA, 1).new()),
        (A.reduce_rowwise("max"), GA.reduce_rowwise(gb.monoid.max).new()),
        (A.reduce_columnwise("min"), GA.reduce_columnwise(gb.monoid.min).new()),
        (A.T, GA.T.new()),
        (A.kronecker(B, "plus"), GA.kronecker(GB, gb.binary.plus).new()),
        (A.diag(1), GA.diag(1)),
        (v.diag(-1), Gv.diag(-1)),
        (A[np.array([3, 1]), 2:6], GA[[3, 1], 2:6].new()),
        (A[4, :], GA[4, :].new()),
        (v[::2], Gv[::2].new()),
    ]
    bad = [e for e in (compare(got, ref, f"method {k}") for k, (got, ref) in enumerate(cases)) if e]
    assert bad == []
    assert A.reduce_scalar("plus") == GA.reduce_scalar(gb.monoid.plus).new().value
    assert v.reduce("max") == Gv.reduce(gb.monoid.max).new().value


def test_user_callback_that_does_not_compile():
    from tests.graphblas._udf_bad import bad_op

    A = rand_matrix(np.random.default_rng(0), 4, 4, "float64")
    before = [x.copy() for x in A.to_coo()]
    with pytest.raises(HpgraphError, match="op"):
        A.ewise_add(A, bad_op)
    with pytest.raises(HpgraphError):
        A.mxm(A, bad_op)
    assert all(np.array_equal(x, y) for x, y in zip(before, A.to_coo()))
    with pytest.raises(InvalidValue, match="two indices"):
        A[1]
