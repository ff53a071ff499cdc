"""Matrix / Vector construction and conversion; the device kernels compile with NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph import graphblas as hgb
from hpgraph.exceptions import DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidValue
from hpgraph.graphblas import _kern
from tests.graphblas._helpers import DTYPES, gb, rand_matrix, rand_values, rand_vector


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trips(dtype):
    rng = np.random.default_rng(1)
    for shape in ((0, 0), (0, 3), (3, 0), (1, 1), (9, 7)):
        A = rand_matrix(rng, *shape, dtype)
        r, c, v = A.to_coo()
        assert A.dtype == np.dtype(dtype) and A.shape == shape and A.nvals == len(v)
        S = A.to_scipy()
        ref = sp.coo_array((v, (r, c)), shape=shape).tocsr()
        assert (S != ref).nnz == 0 and S.nnz == A.nvals and S.dtype == np.dtype(dtype)
        for B in (hgb.Matrix.from_scipy(S), hgb.Matrix.from_scipy(S.tocoo()),
                  hgb.Matrix.from_graphblas(A.to_graphblas()),
                  hgb.Matrix.from_csr_format(hp.CSR(S.indptr, S.indices, S.data, shape))):
            assert B.isequal(A, check_dtype=True)
        G = A.to_graphblas()
        assert G.nvals == A.nvals and G.dtype.np_type == np.dtype(dtype)
        dense = A.to_dense(fill_value=0)
        np.testing.assert_array_equal(dense, S.toarray())
        assert hgb.Matrix.from_dense(dense, missing_value=0).nvals == int(np.count_nonzero(dense))
        v = rand_vector(rng, shape[0], dtype)
        idx, vals = v.to_coo()
        gv = v.to_graphblas()
        gi, gvals = gv.to_coo()
        assert np.array_equal(gi, idx) and np.array_equal(gvals, vals)
        assert hgb.Vector.from_graphblas(gv).isequal(v, check_dtype=True)
        assert hgb.Vector.from_dense(v.to_dense(fill_value=0)).nvals == shape[0]


def test_from_coo_unsorted_duplicates_and_scalars():
    r = np.array([2, 0, 2, 1, 0])
    c = np.array([1, 3, 1, 0, 3])
    v = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    with pytest.raises(InvalidValue, match="duplicates; pass dup_op"):
        hgb.Matrix.from_coo(r, c, v)
    A = hgb.Matrix.from_coo(r, c, v, dup_op="plus", nrows=4, ncols=5)
    ref = gb.Matrix.from_coo(r, c, v, nrows=4, ncols=5, dup_op=gb.binary.plus)
    assert A.isequal(hgb.Matrix.from_graphblas(ref), check_dtype=True)
    F = hgb.Matrix.from_coo(r, c, v, dup_op="first")
    assert F.to_dense(fill_value=0)[2, 1] == 1.0 and F.to_dense(fill_value=0)[0, 3] == 2.0
    S = hgb.Matrix.from_coo(r[:2], c[:2], 7, dtype="int32")
    assert S.dtype == np.int32 and S.to_coo()[2].tolist() == [7, 7]
    w = hgb.Vector.from_coo(np.array([4, 1, 4]), np.array([1, 2, 3]), size=6, dup_op="max")
    assert w.to_coo()[0].tolist() == [1, 4] and w.to_coo()[1].tolist() == [2, 3]
    assert r.tolist() == [2, 0, 2, 1, 0] and v.tolist() == [1.0, 2.0, 4.0, 8.0, 16.0]


def test_graph_adjacency_is_a_view():
    G = hp.Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), np.array([1.5, 2.5, 3.5]),
                            num_vertices=4)
    A = hgb.Matrix.from_graph(G)
    assert A.csr is G.A  # the graph's CSR itself: nothing copied
    assert A.shape == (4, 4) and A.nvals == 3 and A.dtype == np.float64
    U = hgb.Matrix.from_graph(hp.Graph.from_edges(np.array([0, 1]), np.array([1, 0]), num_vertices=3))
    assert U.dtype == np.bool_ and U.to_coo()[2].tolist() == [True, True]
    # a Graph works where a Matrix is expected
    C = hgb.mxm(G, G, "min_plus")
    assert C.to_coo()[2].tolist() == [4.0, 6.0, 5.0]


def test_bad_input():
    with pytest.raises(IndexOutOfBound, match="rows holds 3"):
        hgb.Matrix.from_coo(np.array([3]), np.array([0]), 1.0, nrows=3, ncols=3)
    with pytest.raises(DimensionMismatch, match="same length"):
        hgb.Matrix.from_coo(np.array([0, 1]), np.array([0]), 1.0)
    with pytest.raises(DimensionMismatch, match="one per index"):
        hgb.Vector.from_coo(np.array([0, 1]), np.array([1.0, 2.0, 3.0]), size=3)
    with pytest.raises(DomainMismatch, match="complex"):
        hgb.Vector.from_coo(np.array([0]), np.array([1j]), size=3)
    with pytest.raises(InvalidValue, match="must hold integers"):
        hgb.Vector.from_coo(np.array([0.5]), 1.0, size=3)
    with pytest.raises(InvalidValue, match="fill_value"):
        hgb.Vector.from_coo(np.array([0]), 1.0, size=3).to_dense()
    with pytest.raises(InvalidValue, match="nrows must be a non-negative integer"):
        hgb.Matrix("float64", -1, 2)
    with pytest.raises(NotImplementedError, match="2\\*\\*62"):
        hgb.Matrix.from_coo(np.array([0]), np.array([0]), 1.0, nrows=2**40, ncols=2**40)


def test_empty_constructors_and_exports():
    A = hp.Matrix("int32", 3, 4)
    assert A.nvals == 0 and A.shape == (3, 4) and A.dtype == np.int32
    v = hp.Vector(bool, 5)
    assert v.nvals == 0 and v.size == 5
    for name in ("mxm", "ewise_add", "ewise_mult", "ewise_union", "apply", "select",
                 "reduce_rowwise", "reduce_columnwise", "reduce_scalar", "extract", "assign",
                 "transpose", "kronecker"):
        assert getattr(hp, name) is getattr(hgb, name)
    assert repr(A).startswith("hpgraph.Matrix(nrows=3")


def _nvrtc_ok():
    try:
        hp.backend.compile_ptx('extern "C" __global__ void k(int* p) { p[0] = 1; }', "probe.cu")
        return True
    except Exception:
        return False


@pytest.mark.skipif(not _nvrtc_ok(), reason="NVRTC not available")
@pytest.mark.parametrize("dtype", DTYPES)
def test_device_kernels_compile(dtype):
    from tests.graphblas._helpers import semirings

    for name in ("plus", "min", "max", "minus", "div", "first", "pair", "gt", "lor"):
        op = hp.ops.lookup_binary(name, dtype)
        hp.backend.compile_ptx(_kern.binary_source(op, False)[0], f"b_{name}.cu")
    for name in ("firsti", "secondi"):
        hp.backend.compile_ptx(_kern.binary_source(hp.ops.lookup_binary(name, dtype), True)[0], "i.cu")
    for name in ("plus", "times", "min", "max", "any", "lor", "land"):
        m = hp.ops.lookup_monoid(name, dtype)
        hp.backend.compile_ptx(_kern.segment_source(m)[0], f"m_{name}.cu")
        if name != "any":
            hp.backend.compile_ptx(_kern.block_segment_source(m)[0], f"bm_{name}.cu")
            hp.backend.compile_ptx(_kern.group_segment_source(m, 8)[0], f"gm_{name}.cu")
    if dtype != "bool":
        user = semirings("user")[0][dtype]
        hp.backend.compile_ptx(_kern.binary_source(user.mul, False)[0], "user.cu")


@pytest.mark.gpu
def test_gpu_round_trip_and_cupyx():
    import cupy as cp
    import cupyx.scipy.sparse as csp

    rng = np.random.default_rng(2)
    A = rand_matrix(rng, 20, 15, "float32")
    D = A.to_device()
    assert D.on_device and D.isequal(A)
    X = D.to_cupyx()
    assert isinstance(X, csp.csr_matrix) and int(X.nnz) == A.nvals
    B = hgb.Matrix.from_cupyx(X)
    assert B.on_device and B.to_host().isequal(A, check_dtype=True)
    v = hgb.Vector.from_coo(cp.asarray([3, 1]), cp.asarray(rand_values(rng, 2, "int64")), size=5)
    assert v.on_device and v.to_host().nvals == 2
