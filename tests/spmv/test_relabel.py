"""Column relabeling (format ``"<csr kernel>+relabel"``) without a GPU.

Three layers, each against an independent oracle:

* a NumPy emulation of the relabeling (``perm`` by descending column count, ties by id;
  ``cols2 = rank[cols]``; ``x2 = x[perm]``): the product over ``(indptr, cols2, values, x2)``
  equals the plain product for every built-in semiring whose multiply does not read ``j``
  (and differs for some that do, so the fallback rule is not vacuous);
* the host side of ``gpu.spmv`` -- format parsing, the relabel decision and its fallbacks,
  ``column_relabel`` (run on NumPy standing in for CuPy), the gather and the argument swap --
  with the CSR kernels replaced by the CPU reference applied to exactly the arrays the kernel
  would get; the result must equal the CPU product on the original matrix;
* NVRTC compiles of the gather kernel for every value width and index type.

The same products on the device are in ``test_relabel_gpu.py``.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

import hpgraph as hp

from hpgraph import backend, dtypes
from hpgraph.exceptions import DomainMismatch, HpgraphError, InvalidValue
from hpgraph.formats import CSR, Bitmask
from hpgraph.spmv import api, codegen, cpu, launch, relabel
from tests.spmv._helpers import natural_semiring, nvrtc_ok, small_ints

ops = pytest.importorskip("hpgraph.ops")
_builtins = pytest.importorskip("hpgraph.ops._builtins")


@pytest.fixture
def gpu():
    """hpgraph.spmv.gpu, imported by the tests that use it, not at collection (an import at
    module level makes ``hpgraph.spmv.gpu`` an attribute of the package, which defeats
    test_api_backends' "GPU module missing" case)."""
    from hpgraph.spmv import gpu as g

    return g


# ---------------------------------------------------------------------------------------
# matrices (power-law columns: a few hub columns take most entries)


def _powerlaw(rng, nrows=400, ncols=500, index_dtype=np.int32, values=True, empty_share=0.3):
    """Rows of Zipf lengths (some empty, one long), columns drawn from a Zipf law over a
    shuffled id space (hubs scattered, as in R-MAT), each row's columns sorted and distinct."""
    lens = np.minimum(rng.zipf(1.7, nrows), ncols // 2) * (rng.random(nrows) >= empty_share)
    lens[rng.integers(0, nrows)] = ncols // 2
    ids = rng.permutation(ncols)
    w = 1.0 / np.arange(1, ncols + 1) ** 1.1
    w /= w.sum()
    cols = [np.sort(ids[rng.choice(ncols, int(ln), replace=False, p=w)]) for ln in lens]
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum([len(c) for c in cols], out=indptr[1:])
    idx = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    vals = rng.integers(1, 9, idx.size).astype(np.float32) if values else None
    return CSR(indptr.astype(index_dtype), idx.astype(index_dtype), vals, (nrows, ncols),
               index_dtype=index_dtype)


def emulate_relabel(indptr, cols, ncols):
    """Independent NumPy/Python form of the relabeling: (perm, rank, cols2)."""
    counts = np.bincount(np.asarray(cols, np.int64), minlength=ncols)
    perm = np.array(sorted(range(ncols), key=lambda c: (-int(counts[c]), c)), dtype=np.int64)
    rank = np.empty(ncols, np.int64)
    rank[perm] = np.arange(ncols)
    return perm, rank, rank[np.asarray(cols, np.int64)]


def _relabeled_csr(A):
    perm, rank, cols2 = emulate_relabel(A.indptr, A.indices, A.ncols)
    # rows keep their entry order, so cols2 is not sorted within rows: no check=True here
    return perm, CSR(A.indptr, cols2.astype(A.index_dtype), A.values, A.shape, index_dtype=A.index_dtype)


# ---------------------------------------------------------------------------------------
# 1. the NumPy emulation against the plain product


def test_emulated_perm_orders_hubs_first():
    rng = np.random.default_rng(0)
    A = _powerlaw(rng)
    perm, rank, cols2 = emulate_relabel(A.indptr, A.indices, A.ncols)
    counts = np.bincount(np.asarray(A.indices), minlength=A.ncols)
    assert np.all(np.diff(counts[perm]) <= 0)                     # descending counts
    ties = np.diff(counts[perm]) == 0
    assert np.all(np.diff(perm)[ties] > 0)                          # ties by id
    assert sorted(perm.tolist()) == list(range(A.ncols))            # a permutation
    np.testing.assert_array_equal(perm[cols2], np.asarray(A.indices))
    # the point of it: the hottest 10% of the ids now take most gathers
    top = max(1, A.ncols // 10)
    hot, before = (cols2 < top).mean(), (np.asarray(A.indices) < top).mean()
    assert hot > 0.35 and hot > 2.5 * before, (hot, before)


@pytest.mark.parametrize("name", _builtins.SEMIRINGS)
def test_emulated_relabel_equals_plain_product(name):
    sr = natural_semiring(name)
    rng = np.random.default_rng(1)
    A = _powerlaw(rng)
    x = small_ints(rng, A.ncols, sr.in_dtype)
    perm, A2 = _relabeled_csr(A)
    ref = cpu.spmv(A, x, sr)
    got = cpu.spmv(A2, x[perm], sr)
    if codegen.reads_column(sr.mul):   # the rule's fallback case: the product would change
        assert name.endswith("secondi")
    else:
        np.testing.assert_array_equal(got, ref)


def test_relabel_changes_products_that_read_the_column():
    """Why ``*_secondi`` must fall back: on a relabeled matrix ``j`` is the new id."""
    rng = np.random.default_rng(2)
    A = _powerlaw(rng)
    perm, A2 = _relabeled_csr(A)
    for name in ("min_secondi", "max_secondi"):
        sr = ops.lookup_semiring(name, np.int64)
        x = small_ints(rng, A.ncols, sr.in_dtype)
        assert not np.array_equal(cpu.spmv(A2, x[perm], sr), cpu.spmv(A, x, sr))


def test_reads_column_rule():
    for name in _builtins.SEMIRINGS:
        sr = natural_semiring(name)
        assert codegen.reads_column(sr.mul) == name.endswith("secondi"), name

    def affine(a, b):
        return a * 2 + b

    def by_col(a, b, i, j):
        return a + j

    def by_row(a, b, i, j):
        return b + i

    assert not codegen.reads_column(ops.BinaryOp(affine, name="affine")[np.float32])
    assert codegen.reads_column(ops.BinaryOp(by_col, name="by_col")[np.int64])
    # a user index op is called with (a, b, i, j) whatever it reads: conservatively "reads j"
    assert codegen.reads_column(ops.BinaryOp(by_row, name="by_row")[np.int64])
    # vxm flips the multiply (its j is the contracted index): still detected
    flip = api.flip_semiring(ops.lookup_semiring("min_secondi", np.int64))
    assert codegen.reads_column(flip.mul)
    assert not codegen.reads_column(api.flip_semiring(ops.lookup_semiring("min_plus", np.float32)).mul)


# ---------------------------------------------------------------------------------------
# format names


@pytest.mark.parametrize("fmt", ["csr_mp+relabel", "csr_lb+relabel", "csr_lb:4+relabel", "csr_mp:2+relabel",
                                 "csr+relabel", "csc+relabel", "csr_vector+relabel", "csr_vector:8+relabel",
                                 "csr_scalar+relabel", " CSR_MP+Relabel "])
def test_relabel_formats_accepted(fmt, gpu):
    assert api._check_format(fmt) == fmt.strip().lower()
    base, asked = gpu._split_relabel(fmt)
    assert asked and base == fmt.strip().lower().split("+")[0]


@pytest.mark.parametrize("fmt", ["hyb+relabel", "ell+relabel", "coo+relabel", "auto+relabel", "csr_mp+foo",
                                 "csr_mp+", "+relabel", "csr_mp:x+relabel", "csr_mp+relabel+relabel"])
def test_bad_relabel_formats_rejected(fmt, gpu):
    with pytest.raises(InvalidValue, match="format"):
        api._check_format(fmt)
    with pytest.raises(InvalidValue):
        base, _ = gpu._split_relabel(fmt)
        gpu._resolve_format(_powerlaw(np.random.default_rng(0), 20, 20), base)


def test_cpu_backend_accepts_relabel_formats():
    rng = np.random.default_rng(3)
    A = _powerlaw(rng, 50, 60)
    x = small_ints(rng, 60, np.float32)
    ref = cpu.spmv(A, x, ops.lookup_semiring("min_plus", np.float32))

    for fmt in ("csr_mp+relabel", "csr_lb:16+relabel", "csr+relabel"):
        np.testing.assert_array_equal(hp.mxv(A, x, "min_plus", format=fmt, backend="cpu"), ref)
    with pytest.raises(InvalidValue, match="format"):
        hp.mxv(A, x, "min_plus", format="hyb+relabel", backend="cpu")


# ---------------------------------------------------------------------------------------
# 2. the host side of gpu.spmv on NumPy, kernels replaced by the CPU reference


class _NumpyAsCupy:
    """NumPy standing in for CuPy (what gpu.py's host code calls)."""

    cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDevice=lambda: 0))

    def __getattr__(self, name):
        return getattr(np, name)


class _Emulator:
    """Replaces compilation and the launches; each launch runs the CPU reference on the very
    arrays (matrix, x) the kernel would read, with the product's other options."""

    def __init__(self, monkeypatch):
        from hpgraph.spmv import gpu

        self.gpu = gpu
        self.call = None         # (sr, kwargs) of the product in flight
        self.launched = []       # (family, matrix type) per launch
        self.traces = []
        self.gathers = 0
        monkeypatch.setattr(backend, "cupy", lambda: _NumpyAsCupy())
        monkeypatch.setattr(backend, "num_sms", lambda: 4)
        monkeypatch.setattr(gpu, "get_kernels", lambda spec: dict.fromkeys(codegen.kernel_names(spec)))
        monkeypatch.setattr(relabel, "_gather_kernel", self._gather_kernel)
        self.available = 1 << 40          # device bytes the relabeling's memory rule sees
        monkeypatch.setattr(relabel, "_available_bytes", lambda: self.available)
        monkeypatch.setattr(gpu, "TRACE", self.traces.append)
        for fam in ("_launch_lb", "_launch_mp", "_launch_vector", "_launch_hyb", "_launch_ell"):
            monkeypatch.setattr(launch, fam, self._launcher(fam))
        gpu.clear_caches()

    def _gather_kernel(self, itemsize, idx_dt):
        def k(grid, block, args):
            n, perm, x, x2 = args
            assert x.dtype.itemsize == itemsize and perm.dtype == np.dtype(idx_dt) and int(n) == perm.size
            x2[:] = x[perm]
            self.gathers += 1
        return k

    def _launcher(self, fam):
        def launch(kern, M, *args):
            if fam == "_launch_vector":
                args = args[1:]           # G
            if fam == "_launch_hyb":
                raise AssertionError("the emulated tests run CSR kernels only")
            y, extra = args[0], args[4]
            self.launched.append(({"_launch_lb": "csr_lb", "_launch_mp": "csr_mp"}.get(fam, "csr_vector"),
                                  type(M).__name__))
            sr, kw = self.call
            Mh = CSR(M.indptr, M.indices, M.values, M.shape, index_dtype=M.index_dtype)
            y[:] = cpu.spmv(Mh, extra[0], sr, **kw)
        return launch

    def spmv(self, A, x, sr, fmt, **kw):
        self.call = (sr, kw)
        return self.gpu.spmv(A, x, sr, format=fmt, **kw)


@pytest.fixture
def emu(monkeypatch):
    e = _Emulator(monkeypatch)
    yield e
    e.gpu.clear_caches()


def _mats():
    rng = np.random.default_rng(42)
    return {"plaw": _powerlaw(rng), "rect": _powerlaw(rng, 300, 700), "pattern": _powerlaw(rng, values=False),
            "i64": _powerlaw(rng, index_dtype=np.int64),
            "empty": CSR(np.zeros(6, np.int32), np.zeros(0, np.int32), np.zeros(0, np.float32), (5, 9)),
            "norows": CSR(np.zeros(1, np.int32), np.zeros(0, np.int32), np.zeros(0, np.float32), (0, 4)),
            "nocols": CSR(np.zeros(4, np.int32), np.zeros(0, np.int32), np.zeros(0, np.float32), (3, 0))}


RELABEL_FORMATS = ["csr_lb+relabel", "csr_mp+relabel", "csr_mp:2+relabel", "csr_vector+relabel",
                   "csr_scalar+relabel", "csr+relabel"]


@pytest.mark.parametrize("name", _builtins.SEMIRINGS)
def test_emulated_dispatch_every_builtin(emu, name):
    sr = natural_semiring(name)
    rng = np.random.default_rng(5)
    A = _mats()["plaw"]
    for fmt in ("csr_lb+relabel", "csr_mp+relabel"):
        x = small_ints(rng, A.ncols, sr.in_dtype)
        got = emu.spmv(A, x, sr, fmt)
        np.testing.assert_array_equal(got, cpu.spmv(A, x, sr))
        tr = emu.traces[-1]
        if name.endswith("secondi"):
            assert not tr["relabel"] and tr["reason"] == "edge value reads the column"
            assert emu.launched[-1][1] == "CSR"
        else:
            assert tr["relabel"] and tr["reason"] == "asked"
            assert emu.launched[-1] == (fmt.split("+")[0], "ColumnRelabel")


@pytest.mark.parametrize("dtype", [d.name for d in dtypes.ALL_DTYPES])
@pytest.mark.parametrize("mat", ["plaw", "rect", "pattern", "i64"])
def test_emulated_dispatch_dtypes_and_shapes(emu, dtype, mat):
    rng = np.random.default_rng(6)
    A = _mats()[mat]
    for name in ("min_plus", "plus_times", "max_second", "any_pair"):
        try:
            sr = ops.lookup_semiring(name, dtype)
        except HpgraphError:
            continue
        for fmt in RELABEL_FORMATS:
            x = small_ints(rng, A.ncols, np.dtype(dtype))
            np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt), cpu.spmv(A, x, sr))
            assert emu.traces[-1]["relabel"]


def test_emulated_x_of_another_dtype(emu):
    """x is gathered in its own dtype (the kernel converts it): width 1, 2 and 8 words."""
    rng = np.random.default_rng(7)
    A = _mats()["plaw"]
    sr = ops.lookup_semiring("min_plus", np.float64)
    for xdt in (np.uint8, np.int16, np.int64, np.float32):
        x = small_ints(rng, A.ncols, xdt)
        np.testing.assert_array_equal(emu.spmv(A, x, sr, "csr_mp+relabel"), cpu.spmv(A, x, sr))


def _options(A, sr, rng):
    out = rng.integers(0, 20, A.nrows).astype(sr.out_dtype)
    bits = Bitmask.from_bool(rng.random(A.nrows) < 0.5)
    boolm = rng.random(A.nrows) < 0.5
    acc = ops.lookup_binary("plus", sr.out_dtype)
    return [dict(row_mask=boolm), dict(row_mask=bits), dict(row_mask=bits, complement=True),
            dict(complement=True), dict(out=out), dict(out=out, row_mask=boolm, replace=True),
            dict(out=out, accum=acc), dict(out=out, accum=acc, row_mask=bits, complement=True, replace=True),
            dict(out=out.astype(np.float64))]


@pytest.mark.parametrize("fmt", RELABEL_FORMATS)
def test_emulated_masks_out_accum_replace(emu, fmt):
    rng = np.random.default_rng(8)
    A = _mats()["plaw"]
    for name in ("min_plus", "plus_times", "min_firsti"):
        sr = natural_semiring(name)
        for kw in _options(A, sr, rng):
            x = small_ints(rng, A.ncols, sr.in_dtype)
            np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt, **kw), cpu.spmv(A, x, sr, **kw))
            assert emu.traces[-1]["relabel"], kw


def test_emulated_fallbacks(hp_config, emu, monkeypatch, gpu):
    """x_active, column-reading multiplies, HYB/ELL and (auto) small matrices or
    hp.config["spmv_auto_relabel"] off run the plain kernel; the results stay the CPU's."""
    rng = np.random.default_rng(9)
    A = _mats()["plaw"]
    sr = ops.lookup_semiring("min_plus", np.float32)
    x = small_ints(rng, A.ncols, np.float32)
    for xa in (rng.random(A.ncols) < 0.5, Bitmask.from_bool(rng.random(A.ncols) < 0.5)):
        got = emu.spmv(A, x, sr, "csr_mp+relabel", x_active=xa)
        np.testing.assert_array_equal(got, cpu.spmv(A, x, sr, x_active=xa))
        assert emu.traces[-1] == dict(family="csr_mp", relabel=False, reason="x_active")
        assert emu.launched[-1] == ("csr_mp", "CSR")
    # not asked
    for fmt in ("csr_lb", "csr_mp:4", "csr_vector"):
        emu.spmv(A, x, sr, fmt)
        assert emu.traces[-1]["reason"] == "not asked" and emu.launched[-1][1] == "CSR"
    # automatic choice: off when spmv_auto_relabel is off, then on with the size threshold
    monkeypatch.setattr(gpu, "choose_format", lambda M: hp.config["spmv_auto_csr"])
    hp_config(spmv_auto_relabel=False)
    for fmt in (None, "auto", "csr", "csc"):
        np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt), cpu.spmv(A, x, sr))
        assert emu.traces[-1]["reason"] == "auto off"
    hp_config(spmv_auto_relabel=True)
    hp_config(spmv_relabel_min_nnz=A.nnz + 1)
    emu.spmv(A, x, sr, None)
    assert emu.traces[-1]["reason"] == "small"
    hp_config(spmv_relabel_min_nnz=A.nnz)
    # not enough device memory for the relabeling's column array: the plain kernel
    need = relabel.relabel_bytes(gpu._as_csr(A))
    assert need == A.nnz * A.index_dtype.itemsize + A.ncols * (2 * A.index_dtype.itemsize + 24)
    emu.available = 2 * need - 1
    np.testing.assert_array_equal(emu.spmv(A, x, sr, None), cpu.spmv(A, x, sr))
    assert emu.traces[-1] == dict(family=hp.config["spmv_auto_csr"], relabel=False, reason="memory")
    assert emu.launched[-1][1] == "CSR"
    np.testing.assert_array_equal(emu.spmv(A, x, sr, "csr_lb+relabel"), cpu.spmv(A, x, sr))
    assert emu.traces[-1]["reason"] == "asked"      # asked for: made whatever the memory
    emu.available = 2 * need
    for fmt in (None, "auto", "csr", "csc"):
        np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt), cpu.spmv(A, x, sr))
        assert emu.traces[-1] == dict(family=hp.config["spmv_auto_csr"], relabel=True, reason="auto")
        assert emu.launched[-1][1] == "ColumnRelabel"
    # auto with a mask under spmv_auto_csr = csr_mp: csr_lb runs, relabeled
    hp_config(spmv_auto_csr="csr_mp")
    mask = rng.random(A.nrows) < 0.5
    np.testing.assert_array_equal(emu.spmv(A, x, sr, None, row_mask=mask), cpu.spmv(A, x, sr, row_mask=mask))
    assert emu.traces[-1] == dict(family="csr_lb", relabel=True, reason="auto")
    np.testing.assert_array_equal(emu.spmv(A, x, sr, None), cpu.spmv(A, x, sr))
    assert emu.traces[-1] == dict(family="csr_mp", relabel=True, reason="auto")
    # the auto rule also respects x_active and column-reading multiplies
    xa = rng.random(A.ncols) < 0.5
    emu.spmv(A, x, sr, None, x_active=xa)
    assert emu.traces[-1]["reason"] == "x_active"
    sri = ops.lookup_semiring("min_secondi", np.int64)
    xi = small_ints(rng, A.ncols, np.int64)
    np.testing.assert_array_equal(emu.spmv(A, xi, sri, None), cpu.spmv(A, xi, sri))
    assert emu.traces[-1]["reason"] == "edge value reads the column"
    # HYB chosen automatically: not a CSR kernel
    for fam in ("hyb", "ell"):
        assert gpu._relabel_decision(False, True, fam, A, 0, 0) == (False, "not a CSR kernel")


def test_emulated_user_defined_semirings(emu):
    rng = np.random.default_rng(11)
    A = _mats()["plaw"]

    def scaled_min(a, b):
        return a + 2 * b if a > 3 else b

    def keep_larger(a, b):
        return max(a, b)

    def col_plus(a, b, i, j):
        return a + b + j

    def row_plus(a, b, i, j):
        return a + b + i

    cases = [
        (ops.Semiring(add="min", multiply=scaled_min, name="scaled_min")[np.float32], True),
        (ops.Semiring(add=ops.Monoid(keep_larger, identity=0, name="keep_larger"), multiply="times")[np.int32],
         True),
        (ops.Semiring(add="plus", multiply=ops.BinaryOp.from_c("((x) * (y) + 1)", name="affine",
                                                               numpy_func=lambda x, y: x * y + 1))[np.float64],
         True),
        (ops.Semiring(add="min", multiply=ops.BinaryOp(col_plus, name="col_plus"))[np.int64], False),
        # user index ops get (a, b, i, j) whatever they read: counted as reading j (fallback)
        (ops.Semiring(add="min", multiply=ops.BinaryOp(row_plus, name="row_plus"))[np.int64], False),
    ]
    for sr, relabels in cases:
        for fmt in ("csr_lb+relabel", "csr_mp+relabel"):
            x = small_ints(rng, A.ncols, sr.in_dtype)
            np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt), cpu.spmv(A, x, sr))
            assert emu.traces[-1]["relabel"] is relabels, sr.name
            out = rng.integers(0, 9, A.nrows).astype(sr.out_dtype)
            kw = dict(out=out, row_mask=Bitmask.from_bool(rng.random(A.nrows) < 0.5))
            np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt, **kw), cpu.spmv(A, x, sr, **kw))


@pytest.mark.parametrize("mat", ["empty", "norows", "nocols"])
def test_emulated_empty_shapes(emu, mat):
    A = _mats()[mat]
    rng = np.random.default_rng(12)
    for name in ("min_plus", "plus_times", "any_pair"):
        sr = natural_semiring(name)
        x = small_ints(rng, A.ncols, sr.in_dtype)
        out = np.full(A.nrows, 3, sr.out_dtype)
        for fmt in ("csr_lb+relabel", "csr_mp+relabel"):
            np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt), cpu.spmv(A, x, sr))
            np.testing.assert_array_equal(emu.spmv(A, x, sr, fmt, out=out), cpu.spmv(A, x, sr, out=out))


def test_column_relabel_matches_emulation_and_is_cached(emu, gpu):
    for name, A in _mats().items():
        R = gpu.column_relabel(A)
        assert gpu.column_relabel(A) is R
        assert gpu.column_relabel(A, cached=False) is not R
        perm, rank, cols2 = emulate_relabel(A.indptr, A.indices, A.ncols)
        np.testing.assert_array_equal(R.perm, perm)
        np.testing.assert_array_equal(R.rank, rank)
        np.testing.assert_array_equal(R.indices, cols2)
        assert R.perm.dtype == R.rank.dtype == R.indices.dtype == np.dtype(A.index_dtype), name
        assert R.indptr is A.indptr and R.values is A.values and R.shape == A.shape and R.nnz == A.nnz
        assert R.index_dtype == np.dtype(A.index_dtype) and R.dtype == A.dtype


def test_column_relabel_key_overflow_path(emu, monkeypatch, gpu):
    """Keys (max count - count) * ncols + id past the limit: counts are ranked first, same perm."""
    A = _mats()["plaw"]
    want = gpu.column_relabel(A, cached=False).perm
    counts = np.bincount(np.asarray(A.indices), minlength=A.ncols)
    distinct = np.unique(counts).size
    monkeypatch.setattr(relabel, "_KEY_LIMIT", distinct * A.ncols + 1)   # forces the ranking, fits after it
    np.testing.assert_array_equal(gpu.column_relabel(A, cached=False).perm, want)
    monkeypatch.setattr(relabel, "_KEY_LIMIT", 2)
    with pytest.raises(NotImplementedError, match="relabel"):
        gpu.column_relabel(A, cached=False)


def test_relabel_cache_follows_the_matrix(emu, gpu):
    import gc

    import weakref

    A = _powerlaw(np.random.default_rng(13))
    R = weakref.ref(gpu.column_relabel(A))
    assert gpu._derived(A)["relabel"] is R() is gpu.column_relabel(A)   # kept on the matrix
    del A
    gc.collect()
    assert R() is None                                              # and gone with it


def test_relabel_bit_identical_float_sums(emu):
    """Non-integer floats: the relabeled product reduces every row in the same order, so even
    plus_times (not associative in floating point) is bit-identical to the plain product."""
    rng = np.random.default_rng(14)
    A0 = _mats()["plaw"]
    A = CSR(A0.indptr, A0.indices, rng.standard_normal(A0.nnz).astype(np.float32), A0.shape)
    x = rng.standard_normal(A.ncols).astype(np.float32)
    sr = ops.lookup_semiring("plus_times", np.float32)
    np.testing.assert_array_equal(emu.spmv(A, x, sr, "csr_lb+relabel").view(np.uint32),
                                  emu.spmv(A, x, sr, "csr_lb").view(np.uint32))


# ---------------------------------------------------------------------------------------
# 3. NVRTC: the gather kernel compiles for every width and index type (CI has no GPU)


@pytest.mark.skipif(not nvrtc_ok(), reason="NVRTC cannot be loaded here")
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
def test_gather_kernel_compiles(itemsize, index_dtype):
    src, name = codegen.gather_source(itemsize, index_dtype)
    assert name == f"hpgraph_gather_w{itemsize}_{dtypes.short_name(index_dtype)}"
    ptx = backend.compile_ptx(src, f"{name}.cu", options=("-std=c++17",))
    assert f".entry {name}(" in ptx or f".entry {name} (" in ptx
    # perm streamed (evict-first), x through the read-only path
    assert "ld.global.cs" in ptx and "ld.global.nc" in ptx


def test_gather_source_rejects_bad_arguments():
    with pytest.raises(DomainMismatch):
        codegen.gather_source(16, "int32")
    with pytest.raises(DomainMismatch):
        codegen.gather_source(4, "int16")
    for dt in dtypes.ALL_DTYPES:   # every value dtype has a gather width
        codegen.gather_source(dt.itemsize, "int32")
