"""Column relabeling on the GPU (``format="<csr kernel>+relabel"``, ``hp.config["spmv_auto_relabel"]``).

Every relabeled product is checked twice: against the CPU reference
(``hpgraph.spmv.cpu.spmv`` on the original matrix) and bit for bit against the same kernel
without relabeling (rows keep their entry order, so every reduction runs in the same order).
``gpu.TRACE`` says which kernel ran and whether the columns were relabeled, so the fallbacks
(x_active, multiplies reading ``j``, small matrices under auto) are asserted,
not assumed.  The device-side ``column_relabel`` is compared with an independent NumPy form.
All tests carry the ``gpu`` marker.
"""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp

from hpgraph import dtypes
from hpgraph.spmv import relabel
from tests.spmv._helpers import _cp, assert_any_ok, natural_semiring, small_ints, to_dev, to_host

pytestmark = pytest.mark.gpu

ops = pytest.importorskip("hpgraph.ops")
_builtins = pytest.importorskip("hpgraph.ops._builtins")

RELABEL = ["csr_lb+relabel", "csr_mp+relabel", "csr_lb:2+relabel", "csr_mp:1+relabel", "csr_vector+relabel",
           "csr_scalar+relabel", "csr+relabel"]


@pytest.fixture
def trace(monkeypatch):
    from hpgraph.spmv import gpu

    seen = []
    monkeypatch.setattr(gpu, "TRACE", seen.append)
    return seen


# ---------------------------------------------------------------------------------------
# matrices: power-law columns (hubs scattered over the ids), rows of every kind


def _csr(lens, ncols, rng, index_dtype=np.int32, values="int", col_p=None):
    from hpgraph.formats import CSR

    lens = np.minimum(np.asarray(lens, np.int64), ncols)
    cols = [np.sort(rng.choice(ncols, int(ln), replace=False, p=col_p)) for ln in lens]
    indptr = np.zeros(len(lens) + 1, np.int64)
    np.cumsum([len(c) for c in cols], out=indptr[1:])
    idx = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    if values == "int":
        vals = rng.integers(1, 9, idx.size).astype(np.float32)
    elif values == "float":
        vals = rng.standard_normal(idx.size).astype(np.float32)
    else:
        vals = None
    return CSR(indptr.astype(index_dtype), idx.astype(index_dtype), vals, (len(lens), ncols),
               index_dtype=index_dtype)


def _powerlaw(rng, n=3000, ncols=None, index_dtype=np.int32, values="int"):
    ncols = ncols or n
    lens = np.minimum(rng.zipf(1.6, n), 600) * (rng.random(n) < 0.6)
    lens[rng.integers(0, n, 3)] = [2500, 900, 300]          # rows over many chunks / tiles
    w = 1.0 / np.arange(1, ncols + 1) ** 1.1
    p = (w / w.sum())[rng.permutation(ncols)]               # hub columns scattered over the ids
    return _csr(lens, ncols, rng, index_dtype, values, col_p=p)


def make_mats():
    rng = np.random.default_rng(42)
    return {"plaw": _powerlaw(rng), "rect": _powerlaw(rng, n=700, ncols=1300),
            "pattern": _powerlaw(rng, n=1200, values=None), "i64": _powerlaw(rng, n=1500, index_dtype=np.int64),
            "float": _powerlaw(rng, n=2000, values="float")}


@pytest.fixture(scope="module")
def mats():
    return make_mats()


def _check(A, x, sr, fmt, trace=None, relabel=True, reason=None, **kw):
    """Relabeled product == CPU reference, and == the plain kernel bit for bit; with ``trace``
    the product's relabel decision (and ``reason``) is asserted."""
    from hpgraph.spmv import cpu, gpu

    ref = cpu.spmv(A, x, sr, **kw)
    dkw = {k: to_dev(v) for k, v in kw.items()}
    Ad, xd = to_dev(A), to_dev(x)
    got = to_host(gpu.spmv(Ad, xd, sr, format=fmt, **dkw))
    if trace is not None:
        assert trace[-1]["relabel"] is relabel, (fmt, trace[-1])
        assert reason is None or trace[-1]["reason"] == reason, (fmt, trace[-1])
    assert got.dtype == ref.dtype
    if sr.add.terminal_any:
        assert_any_ok(got, ref, sr, A, x, **kw)
    elif ref.dtype.kind in "fc" and sr.add.name.startswith("plus"):
        # a float sum's rounding depends on the order of the terms: the GPU kernels and
        # the CPU add a row in different orders (bit identity is checked against the plain
        # kernel below, which adds in the same order)
        # (atol: cancellation leaves small sums of large terms with a larger relative error)
        eps = 1e-5 if ref.dtype.itemsize <= 4 else 1e-12
        np.testing.assert_allclose(got, ref, rtol=eps, atol=eps * float(np.abs(ref).max(initial=1)))
    else:
        np.testing.assert_array_equal(got, ref)
    plain = to_host(gpu.spmv(Ad, xd, sr, format=fmt.split("+")[0], **dkw))
    assert got.tobytes() == plain.tobytes()       # bit-identical (also for "any")
    return got


# ---------------------------------------------------------------------------------------
# semirings, dtypes, formats


@pytest.mark.parametrize("name", _builtins.SEMIRINGS)
@pytest.mark.parametrize("fmt", ["csr_lb+relabel", "csr_mp+relabel"])
def test_every_builtin_semiring(mats, name, fmt, trace):
    sr = natural_semiring(name)
    rng = np.random.default_rng(1)
    A = mats["plaw"]
    col = name.endswith("secondi")
    _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace, relabel=not col,
           reason="edge value reads the column" if col else "asked")


@pytest.mark.parametrize("fmt", RELABEL)
@pytest.mark.parametrize("mat", ["plaw", "rect", "pattern", "i64", "float"])
def test_every_format_and_matrix(mats, fmt, mat, trace):
    A = mats[mat]
    rng = np.random.default_rng(2)
    for name in ("min_plus", "plus_times", "lor_land", "any_pair", "max_min", "min_firsti"):
        sr = natural_semiring(name)
        _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace)
    if mat == "float":   # non-integer floats: sums depend on order, still bit-identical
        sr = ops.lookup_semiring("plus_times", np.float32)
        _check(A, rng.standard_normal(A.ncols).astype(np.float32), sr, fmt, trace)


@pytest.mark.parametrize("dtype", [d.name for d in dtypes.ALL_DTYPES])
@pytest.mark.parametrize("name", ["min_plus", "plus_times", "max_second"])
def test_every_dtype(mats, name, dtype, trace):
    sr = ops.lookup_semiring(name, dtype)
    rng = np.random.default_rng(3)
    A = mats["plaw"]
    for fmt in ("csr_lb+relabel", "csr_mp+relabel", "csr_vector+relabel"):
        _check(A, small_ints(rng, A.ncols, np.dtype(dtype)), sr, fmt, trace)


def test_x_of_another_dtype(mats, trace):
    """x is gathered in its own dtype (1-, 2-, 4- and 8-byte words), converted in the kernel."""
    rng = np.random.default_rng(4)
    A = mats["plaw"]
    sr = ops.lookup_semiring("min_plus", np.float64)
    for xdt in (np.bool_, np.uint8, np.int16, np.float32, np.int64):
        _check(A, small_ints(rng, A.ncols, xdt).astype(xdt), sr, "csr_mp+relabel", trace)


# ---------------------------------------------------------------------------------------
# masks, complement, replace, accum, out; x_active falls back


def _cases():
    return [dict(row_mask="bool"), dict(row_mask="bits"), dict(row_mask="bits", complement=True),
            dict(complement=True), dict(out=True), dict(out=True, row_mask="bool", replace=True),
            dict(out=True, row_mask="bits", complement=True), dict(out=True, accum="plus"),
            dict(out=True, accum="min", row_mask="bool", complement=True, replace=True), dict(out="f64")]


def _materialise(A, sr, case, rng):
    from hpgraph.formats import Bitmask

    kw = {}
    for k, v in case.items():
        if k in ("row_mask", "x_active"):
            b = rng.random(A.nrows if k == "row_mask" else A.ncols) < 0.5
            kw[k] = Bitmask.from_bool(b) if v == "bits" else b
        elif k == "out":
            kw[k] = rng.integers(0, 20, A.nrows).astype(np.float64 if v == "f64" else sr.out_dtype)
        elif k == "accum":
            kw[k] = ops.lookup_binary(v, sr.out_dtype)
        else:
            kw[k] = v
    return kw


@pytest.mark.parametrize("case", range(len(_cases())))
@pytest.mark.parametrize("fmt", ["csr_lb+relabel", "csr_mp+relabel", "csr_mp:2+relabel", "csr_vector+relabel"])
def test_masks_out_accum_replace(mats, case, fmt, trace):
    rng = np.random.default_rng(10 + case)
    A = mats["plaw"]
    for name in ("min_plus", "plus_times", "any_pair"):
        sr = natural_semiring(name)
        _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace, **_materialise(A, sr, _cases()[case], rng))


@pytest.mark.parametrize("xa", ["bits", "bool"])
@pytest.mark.parametrize("fmt", ["csr_lb+relabel", "csr_mp+relabel"])
def test_x_active_falls_back(mats, xa, fmt, trace):
    rng = np.random.default_rng(20)
    A = mats["plaw"]
    for name in ("min_plus", "any_pair"):
        sr = natural_semiring(name)
        kw = _materialise(A, sr, dict(x_active=xa, out=True, row_mask="bits"), rng)
        _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace, relabel=False, reason="x_active", **kw)


def test_int64_indices(mats, trace):
    from hpgraph.spmv import gpu

    A = mats["i64"]
    rng = np.random.default_rng(5)
    for fmt in ("csr_lb+relabel", "csr_mp+relabel", "csr_vector+relabel"):
        for name in ("min_plus", "plus_times", "any_pair"):
            sr = natural_semiring(name)
            kw = _materialise(A, sr, dict(out=True, row_mask="bits", accum="plus"), rng)
            _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace, **kw)
    R = gpu.column_relabel(to_dev(A))
    assert R.perm.dtype == R.indices.dtype == np.int64


@pytest.mark.parametrize("lens", [[0, 0, 0, 0, 0], [5000], [0], [0, 7000, 0, 0, 1, 0], [1] * 3000,
                                  [2047, 1, 0, 2048, 4095, 0, 0]])
def test_edge_shapes(lens, trace):
    rng = np.random.default_rng(14)
    A = _csr(lens, max(max(lens), 1) + 3, rng)
    for fmt in ("csr_lb+relabel", "csr_mp+relabel", "csr_mp:1+relabel"):
        for name in ("min_plus", "any_pair", "lor_land"):
            sr = natural_semiring(name)
            _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace)
            kw = _materialise(A, sr, dict(out=True, row_mask="bool"), rng)
            _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace, **kw)


def test_empty_matrices(trace):
    from hpgraph.formats import CSR
    from hpgraph.spmv import gpu

    cp = _cp()
    sr = ops.lookup_semiring("min_plus", np.float32)
    for shape in ((5, 9), (0, 4), (3, 0), (0, 0)):
        A = CSR(np.zeros(shape[0] + 1, np.int32), np.zeros(0, np.int32), np.zeros(0, np.float32), shape)
        for fmt in ("csr_lb+relabel", "csr_mp+relabel"):
            y = gpu.spmv(to_dev(A), cp.ones(shape[1], cp.float32), sr, format=fmt)
            assert y.shape == (shape[0],) and bool((y == cp.inf).all())


# ---------------------------------------------------------------------------------------
# user-defined semirings; the engine's expression form never relabels


def _user_semirings():
    def scaled_min(a, b):
        return a + 2 * b if a > 3 else b

    def keep_larger(a, b):
        return max(a, b)

    def col_plus(a, b, i, j):
        return a + b + j

    return [
        (ops.Semiring(add="min", multiply=scaled_min, name="scaled_min")[np.float32], True),
        (ops.Semiring(add=ops.Monoid(keep_larger, identity=0, name="keep_larger"), multiply="times")[np.int32],
         True),
        (ops.Semiring(add="plus", multiply=ops.BinaryOp.from_c("((x) * (y) + 1)", name="affine",
                                                               numpy_func=lambda x, y: x * y + 1))[np.float64],
         True),
        (ops.Semiring(add="min", multiply=ops.BinaryOp(col_plus, name="col_plus"))[np.int64], False),
    ]


@pytest.mark.parametrize("fmt", ["csr_lb+relabel", "csr_mp+relabel", "csr_vector+relabel"])
def test_user_defined_semirings(mats, fmt, trace):
    rng = np.random.default_rng(7)
    A = mats["plaw"]
    for sr, relabels in _user_semirings():
        _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace, relabel=relabels)
        kw = _materialise(A, sr, dict(out=True, row_mask="bits"), rng)
        _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace, relabel=relabels, **kw)


# ---------------------------------------------------------------------------------------
# the relabeling itself, the gather, the automatic choice, caches, public API


def _emulate(A):
    counts = np.bincount(np.asarray(A.indices, np.int64), minlength=A.ncols)
    perm = np.array(sorted(range(A.ncols), key=lambda c: (-int(counts[c]), c)), dtype=np.int64)
    rank = np.empty(A.ncols, np.int64)
    rank[perm] = np.arange(A.ncols)
    return perm, rank, rank[np.asarray(A.indices, np.int64)]


def test_column_relabel_matches_numpy(mats, monkeypatch):
    from hpgraph.spmv import gpu

    for name, A in mats.items():
        Ad = to_dev(A)
        R = gpu.column_relabel(Ad)
        assert gpu.column_relabel(Ad) is R
        perm, rank, cols2 = _emulate(A)
        np.testing.assert_array_equal(to_host(R.perm), perm)
        np.testing.assert_array_equal(to_host(R.rank), rank)
        np.testing.assert_array_equal(to_host(R.indices), cols2)
        assert R.indptr is Ad.indptr and R.values is Ad.values
        # the key-overflow path (distinct counts ranked first) gives the same permutation
        ndist = np.unique(np.bincount(np.asarray(A.indices, np.int64), minlength=A.ncols)).size
        monkeypatch.setattr(relabel, "_KEY_LIMIT", ndist * A.ncols + 1)
        np.testing.assert_array_equal(to_host(gpu.column_relabel(Ad, cached=False).perm), perm)
        monkeypatch.undo()


@pytest.mark.parametrize("dtype", [d.name for d in dtypes.ALL_DTYPES])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_gather(dtype, idx):
    from hpgraph.spmv import gpu

    cp = _cp()
    rng = np.random.default_rng(9)
    for n in (0, 1, 1000, 300_000):
        x = rng.integers(0, 100, n).astype(dtype)
        perm = rng.permutation(n).astype(idx)
        got = gpu.gather(cp.asarray(x), cp.asarray(perm))
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(to_host(got), x[perm])


def test_auto_relabel_knob(hp_config, mats, monkeypatch, trace):
    from hpgraph.spmv import cpu, gpu

    A = mats["plaw"]
    rng = np.random.default_rng(16)
    sr = ops.lookup_semiring("min_plus", np.float32)
    monkeypatch.setattr(gpu, "choose_format", lambda M: hp.config["spmv_auto_csr"])   # a skewed graph's choice
    hp_config(spmv_auto_relabel=False)
    for fmt in ("auto", "csr", "csc"):
        _check(A, small_ints(rng, A.ncols, np.float32), sr, fmt, trace, relabel=False, reason="auto off")
    hp_config(spmv_auto_relabel=True)
    hp_config(spmv_relabel_min_nnz=A.nnz + 1)
    gpu.spmv(to_dev(A), to_dev(small_ints(rng, A.ncols, np.float32)), sr)
    assert trace[-1]["reason"] == "small"
    hp_config(spmv_relabel_min_nnz=0)
    hp_config(spmv_relabel_memory_share=0.0)    # no room: the plain kernel
    x = small_ints(rng, A.ncols, np.float32)
    got = to_host(gpu.spmv(to_dev(A), to_dev(x), sr))
    np.testing.assert_array_equal(got, cpu.spmv(A, x, sr))
    assert trace[-1] == dict(family=hp.config["spmv_auto_csr"], relabel=False, reason="memory")
    hp_config(spmv_relabel_memory_share=0.5)
    for auto_csr in ("csr_lb", "csr_mp"):
        hp_config(spmv_auto_csr=auto_csr)
        for case in (dict(), dict(row_mask="bits"), dict(out=True, accum="plus"), dict(x_active="bits")):
            kw = _materialise(A, sr, case, rng)
            x = small_ints(rng, A.ncols, np.float32)
            got = to_host(gpu.spmv(to_dev(A), to_dev(x), sr, **{k: to_dev(v) for k, v in kw.items()}))
            np.testing.assert_array_equal(got, cpu.spmv(A, x, sr, **kw))
            assert trace[-1]["relabel"] is ("x_active" not in kw), (auto_csr, case, trace[-1])


@pytest.mark.parametrize("knobs", [dict(STREAM=1), dict(STREAM=2), dict(MP_BLOCK=128), dict(MP_BLOCK=512)])
def test_relabel_with_knobs(mats, knobs, monkeypatch, trace):
    from hpgraph.spmv import gpu

    for k, v in knobs.items():
        monkeypatch.setattr(gpu, k, v)
    rng = np.random.default_rng(17)
    for mat in ("plaw", "i64", "pattern"):
        A = mats[mat]
        for name in ("min_plus", "plus_times", "any_pair"):
            sr = natural_semiring(name)
            for fmt in ("csr_lb+relabel", "csr_mp+relabel"):
                _check(A, small_ints(rng, A.ncols, sr.in_dtype), sr, fmt, trace)


def test_public_mxv_vxm(mats):

    rng = np.random.default_rng(11)
    A = mats["rect"]
    x = small_ints(rng, A.ncols, np.float32)
    for fmt in ("csr_mp+relabel", "csr_lb+relabel", "csr+relabel"):
        np.testing.assert_array_equal(to_host(hp.mxv(to_dev(A), to_dev(x), "min_plus", backend="gpu", format=fmt)),
                                      hp.mxv(A, x, "min_plus", backend="cpu"))
        xr = small_ints(rng, A.nrows, np.float32)
        np.testing.assert_array_equal(to_host(hp.vxm(to_dev(xr), to_dev(A), "min_plus", backend="gpu", format=fmt)),
                                      hp.vxm(xr, A, "min_plus", backend="cpu"))
        xi = small_ints(rng, A.nrows, np.int64)   # vxm + secondi: the contracted index is read, falls back
        np.testing.assert_array_equal(
            to_host(hp.vxm(to_dev(xi), to_dev(A), "min_secondi[int64]", backend="gpu", format=fmt)),
            hp.vxm(xi, A, "min_secondi[int64]", backend="cpu"))


def test_relabel_is_built_once(mats, monkeypatch):
    """The per-call path gathers x only: column_relabel builds once per matrix."""
    from hpgraph.spmv import gpu

    gpu.clear_caches()
    builds = []
    real = relabel._build_relabel
    monkeypatch.setattr(relabel, "_build_relabel", lambda csr: builds.append(1) or real(csr))
    A = to_dev(mats["plaw"])
    x = to_dev(small_ints(np.random.default_rng(18), A.ncols, np.float32))
    sr = ops.lookup_semiring("min_plus", np.float32)
    for fmt in ("csr_lb+relabel", "csr_mp+relabel", "csr_lb+relabel", "csr_vector+relabel"):
        gpu.spmv(A, x, sr, format=fmt)
    assert len(builds) == 1
    gpu.clear_caches()
