"""The row-wise forms of select / reduce_rowwise / ewise_mult (plain outputs) against SciPy on
awkward matrices (empty rows, a pattern matrix, mixed index dtypes), and the device search
kernel compiled by NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hpgraph import graphblas as hgb
from tests.graphblas._helpers import dev
from tests.graphblas._matrices import (_also_ptxas, _cubin_or_skip, _int64_indexed,
                                       _long_rows_matrix, _mat, _pattern, _runs_matrix,
                                       _scipy, _sparse_rows_matrix)


@pytest.mark.parametrize("shape", [(0, 0), (1, 5), (7, 7), (40, 25), (25, 40)])
def test_select_reduce_mult_match_scipy(shape, backend_name):
    rng = np.random.default_rng(sum(shape))
    A = _mat(rng, *shape, 0.3, empty_rows=range(0, shape[0], 3))
    B = _mat(rng, *shape, 0.4)
    SA, SB = _scipy(A), _scipy(B)
    dA, dB = dev(A, backend_name), dev(B, backend_name)
    for k in (-2, 0, 3):
        got = _scipy(hgb.select(dA, "tril", k))
        assert (got != sp.tril(SA, k)).nnz == 0 and got.nnz == sp.tril(SA, k).nnz
    got = _scipy(hgb.select(dA, ">", 1.0))
    ref = SA.multiply(SA > 1.0)
    assert (got != ref).nnz == 0 and got.nnz == ref.nnz
    w = hgb.reduce_rowwise(dA, "plus").to_host()
    idx, vals = w.to_coo()
    nonempty = np.flatnonzero(np.diff(SA.indptr))
    np.testing.assert_array_equal(idx, nonempty)
    np.testing.assert_array_equal(vals, np.asarray(SA.sum(axis=1)).ravel()[nonempty])
    C = hgb.ewise_mult(dA, dB, "times")
    ref = SA.multiply(SB)
    both = _scipy(hgb.ewise_mult(dA, dB, "pair"))
    assert C.nvals == both.nnz           # explicit zeros of A * B stay entries
    got = _scipy(C)
    assert (got != ref).nnz == 0
    assert C.dtype == np.float64
    before = A.to_host().to_coo()[2].copy()
    for X, Y, SX, SY in ((dA, dB, SA, SB), (dB, dA, SB, SA), (dA, dA, SA, SA)):
        U = hgb.ewise_add(X, Y, "minus")
        r, c, v = U.to_host().to_coo()
        assert np.all(np.diff(r * max(shape[1], 1) + c) > 0)          # sorted, distinct
        pattern = ((SX != 0).astype(int) + (SY != 0).astype(int)).tocoo()
        assert sorted(zip(r.tolist(), c.tolist())) == sorted(zip(pattern.row.tolist(), pattern.col.tolist()))
        dense = np.zeros(shape)
        dense[r, c] = v
        x, y = SX.toarray(), SY.toarray()                  # no explicit zeros in A or B
        want = np.where((x != 0) & (y != 0), x - y, np.where(x != 0, x, y))  # one side: its value
        np.testing.assert_array_equal(dense, want)
    np.testing.assert_array_equal(A.to_host().to_coo()[2], before)     # operands untouched


def test_pattern_matrix_select_keeps_the_pattern(backend_name):
    A = dev(hgb.Matrix.from_coo(np.array([0, 1, 2, 2]), np.array([1, 0, 0, 2]), True,
                                nrows=3, ncols=3), backend_name)
    L = hgb.select(A, "tril")
    r, c, v = L.to_host().to_coo()
    assert r.tolist() == [1, 2, 2] and c.tolist() == [0, 0, 2] and v.tolist() == [True] * 3
    assert L.dtype == np.bool_


@pytest.mark.parametrize("monoid", ["plus", "min", "max", "times", "any"])
def test_reduce_rows_with_hub_rows(monoid, backend_name):
    """Rows longer than the device's one-thread limit (a block each there) beside short and
    empty rows: NumPy's reduction of each row."""
    from hpgraph.graphblas._kern import LONG_SEGMENT

    rng = np.random.default_rng(7)
    lens = np.array([0, 3, LONG_SEGMENT + 1, 1, 0, 5 * LONG_SEGMENT, 2, LONG_SEGMENT, 7])
    ncols = 6 * LONG_SEGMENT
    rows = np.repeat(np.arange(lens.size), lens)
    cols = np.concatenate([np.sort(rng.choice(ncols, k, replace=False)) for k in lens])
    vals = (rng.integers(-8, 16, rows.size) / 4.0) if monoid != "times" else \
        rng.choice([-1.0, 1.0, 0.5, 2.0], rows.size)
    A = dev(hgb.Matrix.from_coo(rows, cols, vals, nrows=lens.size, ncols=ncols), backend_name)
    idx, got = hgb.reduce_rowwise(A, monoid).to_host().to_coo()
    nonempty = np.flatnonzero(lens)
    np.testing.assert_array_equal(idx, nonempty)
    starts = np.concatenate([[0], np.cumsum(lens)])[nonempty]
    if monoid == "any":                       # some value of the row
        for r, g in zip(nonempty, got):
            assert g in vals[rows == r]
        return
    ufunc = {"plus": np.add, "min": np.minimum, "max": np.maximum, "times": np.multiply}[monoid]
    np.testing.assert_array_equal(got, ufunc.reduceat(vals, starts))


def _operands(rng, shape, variant):
    """Random ``A`` and ``B`` of ``shape`` (empty rows in both) in one of the variants: int64
    indices on one side, pattern matrices, integer values in ``A``."""
    if all(shape):
        A = _mat(rng, *shape, 0.4, empty_rows=range(0, shape[0], 4))
        B = _mat(rng, *shape, 0.5, empty_rows=range(1, shape[0], 5))
    else:
        A = B = hgb.Matrix.from_coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0),
                                    nrows=shape[0], ncols=shape[1])
    if variant == "int64 A":
        A = _int64_indexed(A)
    elif variant == "int64 B":
        B = _int64_indexed(B)
    elif variant == "pattern":
        A, B = _pattern(A), _pattern(B)
    elif variant == "int64 ptr":                 # a large graph's CSR: int64 pointers only
        from hpgraph.formats import CSR

        c = A.csr
        A = hgb.Matrix._new(CSR._new(c.indptr.astype(np.int64), c.indices, c.values,
                                     tuple(A.shape)), A.dtype)
    elif variant == "int32 values":
        r, c, v = A.to_coo()
        A = hgb.Matrix.from_coo(r, c, v.astype(np.int32), nrows=A.nrows, ncols=A.ncols)
    return A, B


CALLS = {
    "add_plus": lambda A, B: hgb.ewise_add(A, B, "plus"),
    "add_firsti": lambda A, B: hgb.ewise_add(A, B, "firsti"),
    "add_secondi": lambda A, B: hgb.ewise_add(A, B, "secondi"),
    "mult_times": lambda A, B: hgb.ewise_mult(A, B, "times"),
    "mult_lt": lambda A, B: hgb.ewise_mult(A, B, "lt"),
    "mult_secondi": lambda A, B: hgb.ewise_mult(A, B, "secondi"),
    "select_triu": lambda A, B: hgb.select(A, "triu", 1),
    "select_pred": lambda A, B: hgb.select(A, lambda x, i, j, t: (i + j) % 3 == 0),
    "reduce_max": lambda A, B: hgb.reduce_rowwise(A, "max"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (1, 1), (9, 4), (12, 12)])
@pytest.mark.parametrize("variant", ["int32", "int64 A", "int64 B", "pattern"])
def test_rowwise_forms_equal_the_general_forms(call, shape, variant, backend_name, monkeypatch):
    """Every row-wise form against the key-based form it replaces (forced by patching
    ``plain``): pattern, values, value dtype, index dtype and stored-values presence."""
    from hpgraph.graphblas import _rowwise

    rng = np.random.default_rng(hash((call, shape, variant)) % 2**32)
    A, B = _operands(rng, shape, variant)
    dA, dB = dev(A, backend_name), dev(B, backend_name)
    before = [a.copy() for a in A.to_coo()]
    got = CALLS[call](dA, dB).to_host()
    monkeypatch.setattr(_rowwise, "plain", lambda *a: False)
    want = CALLS[call](dev(A, backend_name), dev(B, backend_name)).to_host()
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got._keys(), want._keys())
    np.testing.assert_array_equal(got._values(), want._values())
    if isinstance(got, hgb.Matrix):
        assert got.csr.index_dtype == want.csr.index_dtype
        assert (got.csr.values is None) == (want.csr.values is None)
    for a, b in zip(before, A.to_coo()):
        np.testing.assert_array_equal(a, b)                       # operands untouched


def test_user_predicate_cannot_change_the_matrix(backend_name):
    A = dev(hgb.Matrix.from_coo(np.array([0, 1, 2]), np.array([2, 0, 1]), np.array([1.0, 2.0, 3.0]),
                                nrows=3, ncols=3), backend_name)

    def pred(x, i, j, t):
        i += 1
        j *= 0
        return j <= i

    assert hgb.select(A, pred).nvals == 3
    r, c, _ = A.to_host().to_coo()
    assert r.tolist() == [0, 1, 2] and c.tolist() == [2, 0, 1]


def test_group_size_follows_the_mean_segment():
    from hpgraph.graphblas._kern import group_size

    assert [group_size(n, 100) for n in (0, 100, 500, 900, 3000, 10**6)] == [2, 2, 4, 8, 16, 32]
    assert group_size(10, 0) == 8


@pytest.mark.parametrize("monoid", ["plus", "min", "max", "times", "lor"])
@pytest.mark.parametrize("group", [2, 8, 32])
def test_group_reduce_kernel_emulated(monkeypatch, monoid, group):
    """The lanes-per-segment kernel on the host (g++ emulation): segments of every length
    around the group size, empty-free, with the long ones left for the block kernel."""
    from hpgraph.graphblas import _kern
    from tests.graphblas import _cuda_emu

    if not _cuda_emu.available():
        pytest.skip("g++ is not installed (the CUDA host emulation needs it)")
    dt = np.dtype(bool) if monoid == "lor" else np.dtype(np.float64)
    from hpgraph.ops import lookup_monoid

    m = lookup_monoid(monoid, dt)
    rng = np.random.default_rng(group)
    lens = np.array([1, 2, 3, group - 1, group, group + 1, 2 * group + 3, 40, 7, 1])
    starts = np.concatenate([[0], np.cumsum(lens)])
    vals = (rng.random(starts[-1]) < 0.5) if monoid == "lor" else \
        rng.choice([-1.0, 1.0, 0.5, 2.0, 0.25], starts[-1])
    src, name = _kern.group_segment_source(m, group)
    want = m.np_reduce_segments(vals, starts[:-1])
    init = ~want if monoid == "lor" else np.full(lens.size, 99, dtype=dt)   # != every result
    out = init.copy()
    skip = 39                                     # the 40-long segment is left alone
    _cuda_emu.kernel(src, name)((2,), (256,), (vals, starts.astype(np.int64), out,
                                               np.int64(lens.size), np.int64(skip)))
    done = lens <= skip
    np.testing.assert_array_equal(out[done], want[done])
    np.testing.assert_array_equal(out[~done], init[~done])


@pytest.mark.parametrize("monoid", ["min", "max"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_group_and_block_reduce_keep_nan_emulated(monoid, dtype):
    """fmin / fmax ignore NaN operands: a segment of only NaNs reduces to NaN (as on the host),
    one with a number to that number, in the lanes-per-segment and the block kernels."""
    from hpgraph.graphblas import _kern
    from hpgraph.ops import lookup_monoid
    from tests.graphblas import _cuda_emu

    if not _cuda_emu.available():
        pytest.skip("g++ is not installed (the CUDA host emulation needs it)")
    m = lookup_monoid(monoid, np.dtype(dtype))
    vals = np.array([np.nan, np.nan, np.nan, 2.0, np.nan, -1.0, 5.0], dtype=dtype)
    starts = np.array([0, 2, 4, 7], dtype=np.int64)
    want = m.np_reduce_segments(vals, starts[:-1])
    assert np.isnan(want[0]) and not np.isnan(want[1:]).any()
    src, name = _kern.group_segment_source(m, 4)
    out = np.zeros(3, dtype=dtype)
    _cuda_emu.kernel(src, name)((1,), (256,), (vals, starts, out, np.int64(3), np.int64(99)))
    np.testing.assert_array_equal(out, want)
    src, name = _kern.block_segment_source(m)
    out = np.zeros(3, dtype=dtype)
    _cuda_emu.kernel(src, name)((3,), (256,), (vals, starts, out, np.int64(3), np.uint64(0)))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("monoid", ["plus", "min", "max", "times"])
def test_reduce_segments_cuts_few_long_segments_emulated(monoid, emulated_gb, monkeypatch):
    """The device path of reduce_segments (its host code on NumPy arrays, the kernels
    emulated) with 8-value pieces: one segment, a few, segments with leading and trailing
    remainders, and many short ones (no pieces), against the host reduction."""
    from hpgraph.graphblas import _kern
    from hpgraph.ops import lookup_monoid

    monkeypatch.setattr(_kern, "_is_host", lambda xp: False)
    monkeypatch.setattr(_kern, "PIECE", 8)
    m = lookup_monoid(monoid, np.dtype(np.int64))
    rng = np.random.default_rng(11)
    vals = rng.choice([-1, 1, 2], 1000).astype(np.int64) if monoid == "times" else \
        rng.integers(-50, 50, 1000).astype(np.int64)
    for starts in ([0], [0, 3, 500, 997], [0, 17, 18, 300], list(range(0, 1000, 9))):
        starts = np.array(starts, dtype=np.int64)
        got = _kern.reduce_segments(m, vals, starts, np)
        np.testing.assert_array_equal(got, m.np_reduce_segments(vals, starts))


# ---------------------------------------------------------------------------------------
# the device forms of ewise_add / ewise_mult (_rowwise_gpu): NVRTC compiles, and the kernels
# run on the host through the g++ emulation of CUDA against SciPy and the key-based forms

DEVICE_OPS = {"add": ["plus", "minus", "firsti", "secondi", "user"],
              "mult": ["times", "lt", "firsti", "user"]}


def _typed_op(name, A, B):
    from hpgraph import dtypes
    from hpgraph.graphblas._args import binary_op

    op = (lambda x, y: x * 2 - y) if name == "user" else name
    return binary_op(op, dtypes.result_type(A.dtype, B.dtype))


@pytest.mark.parametrize("which", ["add", "mult"])
@pytest.mark.parametrize("variant", ["int32", "int64 A", "int64 B", "pattern"])
def test_device_rowwise_kernels_compile(which, variant, monkeypatch):
    """NVRTC and ptxas build both kernels for every operator, with int32 and (as for a matrix
    whose sizes need it, monkeypatched) int64 result indices (static shared memory and
    registers checked by ptxas); the cubin holds every kernel."""
    from hpgraph import dtypes
    from hpgraph.graphblas import _rowwise_gpu

    rng = np.random.default_rng(1)
    A, B = _operands(rng, (6, 6), variant)
    for name in DEVICE_OPS[which]:
        t = _typed_op(name, A, B)
        for idt in (np.dtype(np.int32), np.dtype(np.int64)):
            monkeypatch.setattr(dtypes, "index_dtype", lambda *sizes, idt=idt: idt)
            src = (_rowwise_gpu.union_source if which == "add" else _rowwise_gpu.inter_source)(t, A, B, idt)
            cubin = _cubin_or_skip(src)                 # shared memory, registers checked
            names = (("hp_gb_union_flag", "hp_gb_union_write") if which == "add" else
                     ("hp_gb_inter_count", "hp_gb_inter_write", "hp_gb_inter_tail"))
            for name in names + ("hp_gb_chunk_rows_a",):      # the ELF's symbol names
                assert name.encode() + b"\0" in cubin


@pytest.mark.parametrize("which,name", [(w, n) for w in DEVICE_OPS for n in DEVICE_OPS[w]])
@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (9, 4), (3, 3000)])
@pytest.mark.parametrize("variant", ["int32", "int64 A", "int64 B", "int64 ptr", "pattern",
                                     "int32 values"])
def test_device_rowwise_forms_emulated(which, name, shape, variant, emulated_gb, monkeypatch):
    """The generated kernels (run on NumPy arrays by the emulator) give the key-based general
    form's entries, values, dtypes and index dtype; plus / times also SciPy's."""
    from hpgraph.graphblas import _rowwise, _rowwise_gpu

    if shape == (3, 3000):
        _also_ptxas(monkeypatch)
    rng = np.random.default_rng(hash((which, name, shape, variant)) % 2**32)
    A, B = _operands(rng, shape, variant)
    before = [a.copy() for a in A.to_coo()] + [b.copy() for b in B.to_coo()]
    t = _typed_op(name, A, B)
    got = (_rowwise_gpu.add_rows if which == "add" else _rowwise_gpu.mult_rows)(A, B, t)
    op = (lambda x, y: x * 2 - y) if name == "user" else name
    monkeypatch.setattr(_rowwise, "plain", lambda *a: False)
    want = (hgb.ewise_add if which == "add" else hgb.ewise_mult)(A, B, op)
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    assert got.csr.index_dtype == want.csr.index_dtype
    np.testing.assert_array_equal(np.diff(got.csr.indptr), np.diff(want.csr.indptr))
    np.testing.assert_array_equal(got._keys(), want._keys())
    np.testing.assert_array_equal(got._values(), want._values())
    if name in ("plus", "times") and variant != "pattern":
        SA, SB = _scipy(A), _scipy(B)
        ref = (SA + SB) if which == "add" else SA.multiply(SB)
        dense = np.zeros(shape)
        r, c, v = got.to_coo()
        dense[r, c] = v
        np.testing.assert_array_equal(dense, ref.toarray())
    for a, b in zip(before, A.to_coo() + B.to_coo()):
        np.testing.assert_array_equal(a, b)                       # operands untouched


@pytest.mark.parametrize("name", ["minus", "second", "user"])
@pytest.mark.parametrize("variant", ["int32", "int64 B", "pattern"])
def test_device_mult_walks_the_smaller_operand_emulated(name, variant, emulated_gb,
                                                         monkeypatch):
    """``ewise_mult`` walks the operand with fewer entries and searches the other: with the
    operands either way round (the walked one ``A`` or ``B``), order-sensitive operators
    give the key-based general form's values, pattern and dtypes."""
    from hpgraph.graphblas import _rowwise, _rowwise_gpu

    walked = []
    real = _rowwise_gpu.inter_source
    monkeypatch.setattr(_rowwise_gpu, "inter_source",
                        lambda op, A, B, idt, swap=False: walked.append(swap) or
                        real(op, A, B, idt, swap))
    rng = np.random.default_rng(len(name) + len(variant))
    A, B = _operands(rng, (11, 9), variant)
    for X, Y in ((A, B), (B, A)):
        t = _typed_op(name, X, Y)
        walked.clear()
        got = _rowwise_gpu.mult_rows(X, Y, t)
        assert set(walked) == {Y.nvals < X.nvals}
        with monkeypatch.context() as m:
            m.setattr(_rowwise, "plain", lambda *a: False)
            want = hgb.ewise_mult(X, Y, (lambda x, y: x * 2 - y) if name == "user" else name)
        assert got.dtype == want.dtype and got.csr.index_dtype == want.csr.index_dtype
        np.testing.assert_array_equal(got.csr.indptr, want.csr.indptr)
        np.testing.assert_array_equal(got._keys(), want._keys())
        np.testing.assert_array_equal(got._values(), want._values())


@pytest.mark.parametrize("which", ["add", "mult"])
@pytest.mark.parametrize("variant", ["int32", "int64 A", "pattern"])
def test_device_rowwise_int64_positions_emulated(which, variant, emulated_gb, monkeypatch):
    """Operands past the int32 position limit (lowered to 10 entries) keep int64 positions
    and prefix counts: the same result as the key-based general form."""
    from hpgraph.graphblas import _rowwise, _rowwise_gpu

    monkeypatch.setattr(_rowwise_gpu, "POS32_LIMIT", 10)
    rng = np.random.default_rng(11)
    A, B = _operands(rng, (9, 7), variant)
    assert _rowwise_gpu._pos_dtype(A, B) == np.int64
    t = _typed_op("plus" if which == "add" else "times", A, B)
    got = (_rowwise_gpu.add_rows if which == "add" else _rowwise_gpu.mult_rows)(A, B, t)
    monkeypatch.setattr(_rowwise, "plain", lambda *a: False)
    want = (hgb.ewise_add if which == "add" else hgb.ewise_mult)(A, B, "plus" if which == "add" else "times")
    np.testing.assert_array_equal(np.diff(got.csr.indptr), np.diff(want.csr.indptr))
    np.testing.assert_array_equal(got._keys(), want._keys())
    np.testing.assert_array_equal(got._values(), want._values())


@pytest.mark.parametrize("which", ["add", "mult"])
def test_device_rowwise_index_dtype_follows_the_result_size(which, emulated_gb, monkeypatch):
    """The result's index dtype is the host form's, chosen from the result's size, also where
    the operands' sizes alone would pick a wider one (int32 limit lowered to 40 entries)."""
    from hpgraph import dtypes
    from hpgraph.graphblas import _rowwise, _rowwise_gpu

    real = dtypes.index_dtype
    monkeypatch.setattr(dtypes, "index_dtype", lambda *sizes: real(*(
        s * (2**31 // 40) for s in sizes)))
    rng = np.random.default_rng(9)
    A = _mat(rng, 8, 8, 0.45)                  # ~29 entries
    for B in (A, _mat(rng, 8, 8, 0.3)):        # heavy overlap: the union stays below 40
        t = _typed_op("plus" if which == "add" else "times", A, B)
        got = (_rowwise_gpu.add_rows if which == "add" else _rowwise_gpu.mult_rows)(A, B, t)
        want = (_rowwise.add_rows if which == "add" else _rowwise.mult_rows)(A, B, t)
        assert got.csr.index_dtype == want.csr.index_dtype
        assert got.csr.indices.dtype == want.csr.indices.dtype
        np.testing.assert_array_equal(got._keys(), want._keys())
        np.testing.assert_array_equal(got._values(), want._values())


# ---------------------------------------------------------------------------------------
# the device form of reduce_rowwise (_reduce_gpu): NVRTC compiles, and the two kernels run on
# the host through the g++ emulation against NumPy

REDUCE_CASES = [("plus", "float64"), ("min", "float32"), ("max", "int32"), ("times", "float64"),
                ("plus", "int64"), ("lor", "bool"), ("min", "int8"), ("plus", "uint16")]


@pytest.mark.parametrize("ptr", ["int32", "int64"])
def test_device_reduce_rows_kernels_compile(ptr):
    from hpgraph import backend
    from hpgraph.exceptions import DeviceUnavailable
    from hpgraph.graphblas import _reduce_gpu
    from hpgraph.ops import lookup_monoid

    for name, dt in REDUCE_CASES:
        src = _reduce_gpu.rows_source(lookup_monoid(name, np.dtype(dt)), np.dtype(ptr), 8)
        try:
            ptx = backend.compile_ptx(src, "reduce_rows.cu")
        except DeviceUnavailable as exc:
            pytest.skip(str(exc))
        assert ".entry hp_gb_rows_short" in ptx and ".entry hp_gb_rows_long" in ptx


@pytest.mark.parametrize("name,dt", REDUCE_CASES)
@pytest.mark.parametrize("ptr,group", [("int32", 2), ("int64", 8), ("int32", 32)])
@pytest.mark.parametrize("skip", [3, 40])
def test_device_reduce_rows_emulated(name, dt, ptr, group, skip, emulated_gb, monkeypatch):
    """Empty rows, rows on both sides of ``skip`` (a block each above it), of the group size
    (several rows per warp below 32 lanes) and of a long-row block's four strides: every
    non-empty row once, in order, with NumPy's reduction of its values."""
    from hpgraph.graphblas import _reduce_gpu
    from hpgraph.ops import lookup_monoid

    monkeypatch.setattr(_reduce_gpu, "lanes", lambda nnz, n: group)
    m = lookup_monoid(name, np.dtype(dt))
    rng = np.random.default_rng(skip)
    # 2,567: past four strides of a long-row block (four partial values per thread)
    lens = np.array([0, 1, 2, skip - 1, skip, skip + 1, 0, 0, 3 * skip + 5, 9, 1, 0, 70, 4,
                     5 * _reduce_gpu.LONG_THREADS + 7])
    ptr_a = np.concatenate([[0], np.cumsum(lens)]).astype(ptr)
    if dt == "bool":
        vals = rng.random(ptr_a[-1]) < 0.3
    elif name == "times":
        vals = rng.choice([-1.0, 1.0, 0.5, 2.0], ptr_a[-1])
    else:
        vals = rng.integers(-20 if dt[0] != "u" else 0, 20, ptr_a[-1]).astype(dt)
    before = vals.copy()
    rows, got = _reduce_gpu.reduce_rows(np, ptr_a, vals, m, skip=skip)
    nonempty = np.flatnonzero(lens)
    np.testing.assert_array_equal(rows, nonempty)
    assert rows.dtype == np.int64 and got.dtype == np.dtype(dt)
    np.testing.assert_array_equal(got, m.np_reduce_segments(vals.astype(dt), ptr_a[:-1][nonempty]))
    np.testing.assert_array_equal(vals, before)                    # the operand untouched
    for n_rows in (0, 3):                                          # no rows; rows, no entries
        rows, got = _reduce_gpu.reduce_rows(np, np.zeros(n_rows + 1, dtype=ptr), vals[:0], m)
        assert rows.shape == (0,) and got.shape == (0,)


@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("skip", [1, 1024])
def test_device_reduce_rows_keep_nan_emulated(name, dt, skip, emulated_gb):
    """fmin / fmax ignore NaN operands: a row of only NaNs reduces to NaN (as on the host),
    one with a number to that number, in the short-row and the long-row kernels."""
    from hpgraph.graphblas import _reduce_gpu
    from hpgraph.ops import lookup_monoid

    m = lookup_monoid(name, np.dtype(dt))
    nan = np.nan
    rows = [[nan], [nan, nan], [1.0, nan], [nan, 2.0, nan, -3.0], [nan] * 600,
            [nan] * 300 + [4.0] + [nan] * 299]
    vals = np.concatenate([np.array(r, dtype=dt) for r in rows])
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    want = m.np_reduce_segments(vals, ptr[:-1])
    assert np.isnan(want[:2]).all() and np.isnan(want[4]) and not np.isnan(want[[2, 3, 5]]).any()
    idx, got = _reduce_gpu.reduce_rows(np, ptr, vals, m, skip=skip)
    np.testing.assert_array_equal(idx, np.arange(len(rows)))
    np.testing.assert_array_equal(got, want)


def test_reduce_rows_lanes_follow_a_quarter_of_the_mean_row():
    from hpgraph.graphblas._reduce_gpu import lanes

    assert [lanes(n, 100) for n in (0, 100, 900, 1000, 3000, 10**6)] == [2, 2, 4, 4, 8, 32]
    assert lanes(10, 0) == 4


def _structure(A):
    """A SciPy matrix of ones where ``A`` has an entry (0 included)."""
    r, c, _ = A.to_coo()
    return sp.csr_matrix((np.ones(r.size), (r, c)), shape=A.shape)


def _overlapping(rng, A):
    """A matrix of ``A``'s shape holding about half of ``A``'s entries and as many others."""
    r, c, _ = A.to_coo()
    half = rng.random(r.size) < 0.5
    nr, nc = A.shape
    extra = rng.integers(0, nr * nc, max(1, r.size // 2))
    keys = np.unique(np.concatenate([r[half].astype(np.int64) * nc + c[half], extra]))
    vals = rng.integers(-3, 4, keys.size).astype(np.float64)
    return hgb.Matrix.from_coo(keys // nc, keys % nc, vals, nrows=nr, ncols=nc)


@pytest.mark.parametrize("which", ["add", "mult"])
@pytest.mark.parametrize("chunk", [(32, 2), (64, 3)])
def test_device_rowwise_chunks_emulated(which, chunk, emulated_gb, monkeypatch):
    """Chunks of 64 and 192 entries: rows span many chunks (rows of 600 and 1,100 entries),
    and chunks span more rows than their row-pointer slots (900 rows, 14 of them with
    entries: the pointers are read from global memory) or than their walk loops over (runs
    of ~2,900 empty rows); same result as SciPy."""
    from hpgraph.graphblas import _rowwise_gpu

    monkeypatch.setattr(_rowwise_gpu, "TPB", chunk[0])
    monkeypatch.setattr(_rowwise_gpu, "IPT", chunk[1])
    rng = np.random.default_rng(chunk[0] + len(which))
    few = _mat(rng, 3000, 40, 0.4, empty_rows=range(8, 3000))    # 2,992 trailing rows
    for A in (_long_rows_matrix(rng, "plain"), _sparse_rows_matrix(rng), few, _runs_matrix(rng)):
        B = _overlapping(rng, A)
        t = _typed_op("plus" if which == "add" else "times", A, B)
        got = (_rowwise_gpu.add_rows if which == "add" else _rowwise_gpu.mult_rows)(A, B, t)
        SA, SB = _scipy(A), _scipy(B)
        ref = ((SA + SB) if which == "add" else SA.multiply(SB)).tocsr()
        # SciPy drops the values that are 0; GraphBLAS keeps them as entries
        OA, OB = (S.astype(bool).astype(np.int8) for S in (_structure(A), _structure(B)))
        pattern = ((OA + OB) if which == "add" else OA.multiply(OB)).tocsr()
        pattern.sort_indices()
        np.testing.assert_array_equal(got.csr.indptr, pattern.indptr)
        np.testing.assert_array_equal(got.csr.indices, pattern.indices)
        dense = np.zeros(A.shape)
        r, c, v = got.to_coo()
        dense[r, c] = v
        np.testing.assert_array_equal(dense, ref.toarray())



@pytest.mark.gpu
@pytest.mark.parametrize("which", ["add", "mult"])
def test_device_rowwise_many_chunks_on_the_gpu(which):
    """Operands of ~0.96M and ~0.96M entries (~470 chunks each, many blocks at once, so the one-pass
    intersection's look-back walks over chunks still in flight): SciPy's pattern and values,
    both ways round (non-commutative ``minus``)."""
    rng = np.random.default_rng(21)
    n = 60_000
    S = sp.random(n, n, density=4e-4, random_state=rng, format="csr",
                  data_rvs=lambda k: rng.choice([-3.0, -1.0, 2.0, 5.0], k))
    S = (sp.diags((np.arange(n) % 3 != 0).astype(np.float64)) @ S).tocoo()   # empty rows
    S.eliminate_zeros()
    A = hgb.Matrix.from_coo(S.row, S.col, S.data, nrows=n, ncols=n)
    B = _overlapping(rng, A)
    SA, SB = _scipy(A), _scipy(B)
    OA, OB = (S.astype(bool).astype(np.int8) for S in (_structure(A), _structure(B)))
    for X, Y, SX, SY, OX, OY in ((A, B, SA, SB, OA, OB), (B, A, SB, SA, OB, OA)):
        f = hgb.ewise_add if which == "add" else hgb.ewise_mult
        got = f(X.to_device(), Y.to_device(), "minus").to_host()
        pattern = ((OX + OY) if which == "add" else OX.multiply(OY)).tocsr()
        pattern.sort_indices()
        np.testing.assert_array_equal(got.csr.indptr, pattern.indptr)
        np.testing.assert_array_equal(got.csr.indices, pattern.indices)
        want = SX.multiply(OY) - SY.multiply(OX)           # where both have an entry
        if which == "add":                                  # the lone entries as they are
            want = want + (SX - SX.multiply(OY)) + (SY - SY.multiply(OX))
        r, c, v = got.to_coo()
        np.testing.assert_array_equal(v, np.asarray(want.tocsr()[r, c]).ravel())
