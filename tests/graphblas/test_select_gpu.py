"""The device form of ``select`` with a built-in selector (``graphblas/_select_gpu.py``):
ptxas builds, the kernels emulated on the host against the general form, and on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

from hpgraph import graphblas as hgb
from tests.graphblas._matrices import (_also_ptxas, _cubin_or_skip,
                                       _int64_indexed, _long_rows_matrix, _mat,
                                       _runs_matrix, _sparse_rows_matrix)


SELECTORS = [("tril", None), ("tril", -2), ("triu", 1), ("diag", 0), ("offdiag", 3),
             ("rowle", 4), ("rowgt", 2), ("colle", 700), ("colgt", 10), (">", 1),
             ("==", 0), ("<=", -1), ("!=", 2),
             # thunks far past the shape: every row or none (the range kernels clamp them)
             ("tril", 2**62), ("triu", -(2**62)), ("colle", -1), ("rowgt", 2**62), ("diag", -3)]

# every selector on the plain variant; the index and value kinds on the others
SELECT_CASES = [(op, t, "int32") for op, t in SELECTORS] + [
    (op, t, v) for v in ("int64", "pattern", "int32 values", "bool values")
    for op, t in (("tril", None), ("colgt", 10), (">", 1), ("==", 0))]


@pytest.mark.parametrize("variant", ["int32", "int64"])
@pytest.mark.parametrize("values", ["float64", "bool"])
def test_device_select_kernels_compile(variant, values, monkeypatch):
    """ptxas builds both select kernels for every index selector and a value comparison, and
    the range kernels (selectors with two, one and no searches), as the host renders them: the count pass with
    the widest result index dtype (int64 where the sizes ask for it, monkeypatched), the
    write pass with the result's."""
    from hpgraph import dtypes
    from hpgraph.graphblas import _select_gpu
    from hpgraph.graphblas._args import binary_op
    from hpgraph.graphblas._gpu_common import widest_index

    A = _long_rows_matrix(np.random.default_rng(2), "bool values" if values == "bool" else variant)
    if values == "bool" and variant == "int64":
        A = _int64_indexed(A)
    gt = binary_op("gt", A.dtype)
    preds = [(p, np.int64, A.dtype, "", op not in ("colle", "colgt"))
             for op, p in _select_gpu.INDEX_PRED.items()]
    preds.append((gt.c_expr("xv", "yv", "i", "j"), A.dtype, gt.in_dtype, gt.c_preamble, False))
    for wide in (False, True):
        with monkeypatch.context() as m:
            if wide:                          # the sizes of a matrix past 2^31 entries
                m.setattr(dtypes, "index_dtype", lambda *sizes: np.dtype(np.int64))
            idx = widest_index(A)
            for pred, tdt, idt_in, pre, row in preds[::4] + preds[-1:]:
                for out_idx in {idx, np.dtype(np.int32)}:
                    src = _select_gpu.select_source(A, pred, idt_in, tdt, pre, out_idx, row)
                    cubin = _cubin_or_skip(src)
                    for name in ("hp_gb_self_count", "hp_gb_self_write", "hp_gb_self_tail"):
                        assert name.encode() + b"\0" in cubin
            for op in ("tril", "diag", "rowgt"):        # two searches, one, none
                for out_idx in {idx, np.dtype(np.int32)}:
                    assert len(_cubin_or_skip(_select_gpu.range_source(A, op, out_idx))) > 0


@pytest.mark.parametrize("op,thunk,variant", SELECT_CASES)
@pytest.mark.parametrize("chunk", [(32, 2), (256, 8)])
def test_device_select_emulated(op, thunk, variant, chunk, emulated_gb, monkeypatch):
    """The generated select kernels (run on NumPy arrays by the emulator) give the general
    form's entries, values, dtype, index dtype and row pointers; the operand is untouched.
    Chunks of 64 entries make rows span many chunks; 2,048 hold most of a matrix."""
    from hpgraph.graphblas import _ewise, _select_gpu

    if variant == "bool values" and op in (">", "<="):
        thunk = False
    monkeypatch.setattr(_select_gpu, "TPB", chunk[0])
    monkeypatch.setattr(_select_gpu, "IPT", chunk[1])
    if chunk == (256, 8):
        _also_ptxas(monkeypatch)
    rng = np.random.default_rng(len(op) + chunk[0])
    for A in (_long_rows_matrix(rng, variant),
              hgb.Matrix.from_coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0), nrows=4,
                                  ncols=0),
              _mat(rng, 12, 12, 0.4, empty_rows=(0, 5, 11)), _sparse_rows_matrix(rng),
              _runs_matrix(rng),
              # entries in the first rows only: 2,996 trailing row pointers
              hgb.Matrix.from_coo(np.array([0, 1, 1, 3]), np.array([2, 0, 3, 1]),
                                  np.array([1.0, -2.0, 3.0, 0.5]), nrows=3000, ncols=5)):
        before = [a.copy() for a in A.to_coo()]
        got = _ewise._select_in_place(A, op, thunk)
        want = hgb.select(A, op, thunk)                # the general form on the host
        assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
        assert got.csr.indices.dtype == want.csr.indices.dtype
        assert got.csr.indptr.dtype == want.csr.indptr.dtype
        np.testing.assert_array_equal(got.csr.indptr, want.csr.indptr)
        np.testing.assert_array_equal(got._keys(), want._keys())
        np.testing.assert_array_equal(got._values(), want._values())
        for a, b in zip(before, A.to_coo()):
            np.testing.assert_array_equal(a, b)


@pytest.mark.gpu
def test_device_select_on_the_gpu():
    """``hgb.select`` of a device matrix (the generated kernels) against the general form on
    the host, for every case of the emulated test."""
    rng = np.random.default_rng(5)
    big = _mat(rng, 3000, 2000, 0.01, empty_rows=range(0, 3000, 7))   # ~26 chunks
    for op, thunk, variant in SELECT_CASES:
        if variant == "bool values" and op in (">", "<="):
            thunk = False
        for A in (_long_rows_matrix(rng, variant), _sparse_rows_matrix(rng), big):
            got = hgb.select(A.to_device(), op, thunk).to_host()
            want = hgb.select(A, op, thunk)
            assert got.dtype == want.dtype and got.csr.indices.dtype == want.csr.indices.dtype
            np.testing.assert_array_equal(got.csr.indptr, want.csr.indptr)
            np.testing.assert_array_equal(got._keys(), want._keys())
            np.testing.assert_array_equal(got._values(), want._values())


def test_chunk_ipt_keeps_the_staging_kernels_in_static_shared_memory():
    """Entries per thread of the compacting kernels: 8 for int32 columns and float64 values,
    7 for int64 columns, at most the given maximum; the shared arrays then fit 48 KiB."""
    from hpgraph.graphblas._gpu_common import chunk_ipt

    assert chunk_ipt(256, 8, 4, 8) == 8 and chunk_ipt(256, 8, 8, 8) == 7
    assert chunk_ipt(256, 8, 4, 1) == 8 and chunk_ipt(32, 2, 8, 8) == 2
    for idx, val in ((4, 8), (8, 8), (8, 1), (4, 4)):
        ch = 256 * chunk_ipt(256, 8, idx, val)
        shared = (ch + 2) * 8 + ch * (idx + val) + 256 * 8 + 4 * 8     # as hp_gb_self_write's
        assert shared <= 48 * 1024
