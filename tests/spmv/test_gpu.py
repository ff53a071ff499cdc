"""GPU SpMV == CPU SpMV (``hpgraph.spmv.cpu.spmv``) for every kernel family and option.

All tests carry the ``gpu`` marker (skipped without a device).  Matrices are small but shaped
to reach every code path: empty rows, rows longer than K (HYB's COO part), rows spanning many
warp chunks (256 entries) of the segmented kernels, K = 0, rectangular shapes, int64 indices.
Values are small integers so float sums are exact in any order and results compare exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp

from hpgraph import dtypes
from hpgraph.exceptions import CompileError, DomainMismatch
from tests.spmv._helpers import _cp, assert_any_ok, natural_semiring, to_dev, to_host

pytestmark = pytest.mark.gpu

ops = pytest.importorskip("hpgraph.ops")
_builtins = pytest.importorskip("hpgraph.ops._builtins")

FORMATS = ["auto", "hyb", "ell", "csr_vector", "csr_scalar", "csr_lb", "csr_lb:1", "csr_lb:32", "coo",
           "csr_mp", "csr_mp:1", "csr_mp:3"]
SEG_FORMATS = ["hyb", "csr_lb", "csr_mp"]


# ---------------------------------------------------------------------------------------
# helpers (device access goes through these three, so the harness can be dry-run on the CPU)


def gpu_spmv(A, x, sr, **kw):
    from hpgraph.spmv import gpu

    return gpu.spmv(A, x, sr, **kw)


def cpu_spmv(A, x, sr, **kw):
    from hpgraph.spmv import cpu

    return cpu.spmv(A, x, sr, **kw)


# ---------------------------------------------------------------------------------------
# matrices


def _csr(lens, ncols, rng, index_dtype=np.int32, values=True, hubs=()):
    from hpgraph.formats import CSR

    lens = np.asarray(lens, dtype=np.int64)
    nrows = len(lens)
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(lens, out=indptr[1:])
    cols = []
    for r, ln in enumerate(lens):
        ln = int(min(ln, ncols))
        cols.append(np.sort(rng.choice(ncols, ln, replace=False)) if ln else np.zeros(0, np.int64))
    lens = np.array([len(c) for c in cols])
    np.cumsum(lens, out=indptr[1:])
    idx = np.concatenate(cols).astype(np.int64) if cols else np.zeros(0, np.int64)
    vals = rng.integers(1, 9, len(idx)).astype(np.float32) if values else None
    return CSR(indptr.astype(index_dtype), idx.astype(index_dtype), vals, (nrows, ncols),
               index_dtype=index_dtype)


def _skewed(rng, n=3000, ncols=None, index_dtype=np.int32, values=True):
    ncols = ncols or n
    lens = np.minimum(rng.zipf(1.6, n), 600) * (rng.random(n) < 0.6)
    lens[rng.integers(0, n, 3)] = [2500, 900, 300]   # rows spanning many warp chunks
    return _csr(lens, ncols, rng, index_dtype, values)


def make_mats():
    rng = np.random.default_rng(42)
    m = {}
    m["skew"] = _skewed(rng)
    m["rect"] = _skewed(rng, n=700, ncols=1300)
    m["grid"] = _csr(np.full(1600, 4), 1600, rng)            # regular: HYB = pure ELL
    lens = np.zeros(900, np.int64)
    lens[rng.choice(900, 200, replace=False)] = rng.integers(1, 40, 200)
    m["k0"] = _csr(lens, 900, rng)                           # > 2/3 rows empty: K = 0
    m["pattern"] = _skewed(rng, n=1200, values=False)
    m["i64"] = _skewed(rng, n=1500, index_dtype=np.int64)
    return m


@pytest.fixture(scope="module")
def mats():
    return make_mats()


def _x(rng, n, dtype):
    return rng.integers(0, 9, n).astype(dtype)


def _assert_same(got, ref, sr, A=None, x=None, **kw):
    got = np.asarray(got)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    if sr.add.terminal_any:  # "any": any value of the row is right
        assert_any_ok(got, ref, sr, A, x, **kw)
        return
    np.testing.assert_array_equal(got, ref)


def _check(A, x, sr, fmt="auto", **kw):
    ref = cpu_spmv(A, x, sr, **kw)
    dkw = {k: to_dev(v) for k, v in kw.items() if k in ("row_mask", "x_active", "out")}
    dkw.update({k: v for k, v in kw.items() if k not in dkw})
    got = to_host(gpu_spmv(to_dev(A), to_dev(x), sr, format=None if fmt == "auto" else fmt, **dkw))
    _assert_same(got, ref, sr, A, x, **kw)
    return got


# ---------------------------------------------------------------------------------------
# semirings x formats


@pytest.mark.parametrize("name", _builtins.SEMIRINGS)
@pytest.mark.parametrize("fmt", SEG_FORMATS)
def test_builtin_semirings_segmented(mats, name, fmt):
    sr = natural_semiring(name)
    rng = np.random.default_rng(1)
    A = mats["skew"]
    _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt)


@pytest.mark.parametrize("name", ["min_plus", "plus_times", "lor_land", "any_secondi", "max_min"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mat", ["skew", "rect", "grid", "k0", "pattern"])
def test_every_format(mats, name, fmt, mat):
    A = mats[mat]
    if fmt == "ell" and mat in ("skew", "rect", "pattern"):
        pytest.skip("ELL of a power-law matrix is wider than useful")
    sr = natural_semiring(name)
    rng = np.random.default_rng(2)
    _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt)


@pytest.mark.parametrize("dtype", [d.name for d in dtypes.ALL_DTYPES])
@pytest.mark.parametrize("name", ["min_plus", "plus_times", "max_second"])
def test_every_dtype(mats, name, dtype):
    sr = ops.lookup_semiring(name, dtype)
    rng = np.random.default_rng(3)
    A = mats["skew"]
    fmt = SEG_FORMATS[dtypes.ALL_DTYPES.index(np.dtype(dtype)) % 2]
    _check(A, _x(rng, A.ncols, np.dtype(dtype)), sr, fmt)
    _check(A, _x(rng, A.ncols, np.dtype(dtype)), sr, "csr_vector")
    _check(A, _x(rng, A.ncols, np.dtype(dtype)), sr, "csr_mp")   # 8-byte types: smaller tiles


@pytest.mark.parametrize("knobs", [dict(STREAM=0), dict(STREAM=1), dict(STREAM=2), dict(STREAM=3), dict(MP_BLOCK=64),
                                   dict(MP_BLOCK=128, STREAM=2), dict(MP_BLOCK=512)])
def test_segmented_knobs(mats, knobs, monkeypatch):
    """Load hints (csr_lb and csr_mp) and csr_mp block sizes give the same results."""
    from hpgraph.spmv import gpu

    for k, v in knobs.items():
        monkeypatch.setattr(gpu, k, v)
    rng = np.random.default_rng(13)
    for name in ("min_plus", "any_secondi", "plus_times"):
        sr = natural_semiring(name)
        for mat in ("skew", "k0", "i64", "pattern"):
            A = mats[mat]
            for fmt in ("csr_lb", "csr_mp", "csr_mp:2"):
                _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt)
        A = mats["skew"]
        kw = _materialise(A, sr, dict(out=True, row_mask="bits", x_active="bits"), rng)
        _check(A, _x(rng, A.ncols, sr.in_dtype), sr, "csr_mp", **kw)


def test_auto_csr_mp_falls_back_for_row_dependent_products(hp_config, mats):
    """With csr_mp as the automatic CSR kernel, masked products and edge expressions that read
    the row run csr_lb (documented rule in gpu._run); all give the CPU's results."""
    from hpgraph.spmv import gpu

    hp_config(spmv_auto_csr="csr_mp")
    gpu.clear_caches()
    rng = np.random.default_rng(15)
    A = mats["skew"]
    assert gpu.choose_format(to_dev(A)) == "csr_mp"
    for name, dt in (("min_plus", np.float32), ("min_firsti", np.int32), ("any_secondi", np.int32)):
        sr = ops.lookup_semiring(name, dt)
        for case in (dict(), dict(row_mask="bits"), dict(complement=True), dict(out=True, x_active="bits")):
            kw = _materialise(A, sr, case, rng)
            _check(A, _x(rng, A.ncols, sr.in_dtype), sr, "auto", **kw)
            _check(A, _x(rng, A.ncols, sr.in_dtype), sr, "csr", **kw)
    fams = {spec.family for spec, _ in gpu._FAST.values()}
    assert fams == {"csr_mp", "csr_lb"}, fams
    gpu.clear_caches()


@pytest.mark.parametrize("lens", [[0, 0, 0, 0, 0], [5000], [0], [0, 7000, 0, 0, 1, 0], [1] * 3000,
                                  [2047, 1, 0, 2048, 4095, 0, 0]])
@pytest.mark.parametrize("fmt", ["csr_lb", "csr_mp", "csr_mp:1"])
def test_segmented_edge_shapes(lens, fmt):
    """No entries, one huge row, rows ending on tile boundaries (csr_mp's tile is 2048 items)."""
    rng = np.random.default_rng(14)
    A = _csr(lens, max(max(lens), 1) + 3, rng)
    for name in ("min_plus", "any_secondi", "lor_land"):
        sr = natural_semiring(name)
        _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt)
        kw = _materialise(A, sr, dict(out=True, x_active="bool"), rng)
        _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt, **kw)


def test_hyb_parts_are_exercised(mats):
    from hpgraph.spmv import gpu

    _, skew_h, _ = gpu._resolve_format(to_dev(mats["skew"]), "hyb")
    assert skew_h.K >= 1 and skew_h.coo.nnz > 10 * 256
    _, k0_h, _ = gpu._resolve_format(to_dev(mats["k0"]), "hyb")
    assert k0_h.K == 0
    _, grid_h, _ = gpu._resolve_format(to_dev(mats["grid"]), "hyb")
    assert grid_h.coo.nnz == 0


# ---------------------------------------------------------------------------------------
# masks, complement, replace, accum, out, x_active


def _flag_cases():
    return [
        dict(row_mask="bool"),
        dict(row_mask="bits"),
        dict(row_mask="bits", complement=True),
        dict(complement=True),
        dict(out=True),
        dict(out=True, row_mask="bool", replace=True),
        dict(out=True, row_mask="bits", complement=True, replace=False),
        dict(out=True, accum="plus"),
        dict(out=True, accum="min", row_mask="bool", complement=True, replace=True),
        dict(x_active="bits"),
        dict(x_active="bool", row_mask="bits"),
        dict(x_active="bits", out=True, accum="plus"),
        dict(out="f64"),
    ]


def _materialise(A, sr, case, rng):
    from hpgraph.formats import Bitmask

    kw = {}
    for k, v in case.items():
        if k in ("row_mask", "x_active"):
            n = A.nrows if k == "row_mask" else A.ncols
            b = rng.random(n) < 0.5
            kw[k] = Bitmask.from_bool(b) if v == "bits" else b
        elif k == "out":
            dt = np.float64 if v == "f64" else sr.out_dtype
            kw[k] = rng.integers(0, 20, A.nrows).astype(dt)
        elif k == "accum":
            kw[k] = ops.lookup_binary(v, sr.out_dtype)
        else:
            kw[k] = v
    return kw


@pytest.mark.parametrize("case", range(len(_flag_cases())))
@pytest.mark.parametrize("fmt", ["ell", "hyb", "csr_vector", "csr_lb", "csr_mp", "csr_mp:2"])
def test_mask_out_accum_replace_xactive(mats, case, fmt):
    rng = np.random.default_rng(10 + case)
    A = mats["grid" if fmt == "ell" else "skew"]
    for name in ("min_plus", "plus_times"):
        sr = ops.lookup_semiring(name, np.float32)
        kw = _materialise(A, sr, _flag_cases()[case], rng)
        _check(A, _x(rng, A.ncols, np.float32), sr, fmt, **kw)


@pytest.mark.parametrize("fmt", ["hyb", "csr_vector", "csr_lb", "coo", "csr_mp"])
def test_int64_indices(mats, fmt):
    A = mats["i64"]
    assert np.dtype(A.index_dtype) == np.int64
    rng = np.random.default_rng(5)
    for name in ("min_plus", "any_secondi"):
        sr = natural_semiring(name)
        kw = _materialise(A, sr, dict(out=True, row_mask="bits", x_active="bits"), rng)
        _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt, **kw)


def test_terminal_early_exit_same_result(mats):
    from hpgraph.spmv import gpu

    rng = np.random.default_rng(6)
    A = mats["skew"]
    for name, dt in (("lor_land", np.bool_), ("any_pair", np.int32), ("min_plus", np.float32),
                     ("max_times", np.int32)):
        sr = ops.lookup_semiring(name, dt)
        x = _x(rng, A.ncols, dt)
        if dt == np.float32:
            x[rng.integers(0, A.ncols, 50)] = -np.inf   # min reaches its terminal
        ref = cpu_spmv(A, x, sr)
        for fmt in ("csr_vector", "csr_scalar", "hyb", "ell", "csr_mp"):
            if fmt == "ell":
                continue
            for term in (True, False):
                got = to_host(gpu.spmv(to_dev(A), to_dev(x), sr, format=fmt, terminal=term))
                _assert_same(got, ref, sr, A, x)
        g = mats["grid"]
        xg = _x(rng, g.ncols, dt)
        got = to_host(gpu.spmv(to_dev(g), to_dev(xg), sr, format="ell"))
        _assert_same(got, cpu_spmv(g, xg, sr), sr, g, xg)


# ---------------------------------------------------------------------------------------
# user-defined semirings and the generic edge expression


def _user_semirings():
    def scaled_min(a, b):
        return a + 2 * b if a > 3 else b

    def keep_larger(a, b):
        return max(a, b)

    return [
        ops.Semiring(add="min", multiply=scaled_min, name="scaled_min")[np.float32],
        ops.Semiring(add=ops.Monoid(keep_larger, identity=0, name="keep_larger"), multiply="times")[np.int32],
        ops.Semiring(add="plus", multiply=ops.BinaryOp.from_c("((x) * (y) + 1)", name="affine",
                                                               numpy_func=lambda x, y: x * y + 1))[np.float64],
    ]


@pytest.mark.parametrize("fmt", ["hyb", "csr_lb", "csr_vector", "ell", "csr_mp"])
def test_user_defined_semirings(mats, fmt):
    rng = np.random.default_rng(7)
    A = mats["grid" if fmt == "ell" else "skew"]
    for sr in _user_semirings():
        _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt)
        kw = _materialise(A, sr, dict(out=True, row_mask="bits", x_active="bool"), rng)
        _check(A, _x(rng, A.ncols, sr.in_dtype), sr, fmt, **kw)


def test_compile_error_from_gpu_path():
    from hpgraph.spmv import codegen, gpu

    sr = ops.lookup_semiring("min_plus", np.float32)
    spec = codegen.make_spec("ell", name="broken", edge_value="a + undefined_symbol_q(j)",
                             monoid=sr.add, in_dtype=np.float32, index_dtype=np.int32)
    with pytest.raises(CompileError) as ei:
        gpu.get_kernels(spec)
    assert "undefined_symbol_q" in ei.value.source and "undefined_symbol_q" in ei.value.log
    assert ei.value.name.startswith("hpgraph_ell_broken")


# ---------------------------------------------------------------------------------------
# caches


def test_kernel_and_format_caches(mats):
    from hpgraph.spmv import gpu

    rng = np.random.default_rng(9)
    A = to_dev(mats["skew"])
    x = to_dev(_x(rng, A.ncols, np.float32))
    sr = ops.lookup_semiring("min_plus", np.float32)
    y1 = gpu.spmv(A, x, sr, format="hyb")
    n_kernels = len(gpu._KERNELS)
    hyb = gpu._derived(A)["hyb"]
    y2 = gpu.spmv(A, x, sr, format="hyb")
    assert len(gpu._KERNELS) == n_kernels
    assert gpu._derived(A)["hyb"] is hyb
    np.testing.assert_array_equal(to_host(y1), to_host(y2))
    assert y1 is not y2
    assert gpu.choose_format(A) in ("hyb", "csr_lb", "ell", "csr_vector")


def test_public_mxv_on_gpu(mats):

    rng = np.random.default_rng(11)
    A = mats["skew"]
    x = _x(rng, A.ncols, np.float32)
    got = hp.mxv(to_dev(A), to_dev(x), "min_plus", backend="gpu")
    ref = hp.mxv(A, x, "min_plus", backend="cpu")
    np.testing.assert_array_equal(to_host(got), ref)


# ---------------------------------------------------------------------------------------
# push


@pytest.mark.parametrize("name,dtype", [("min_plus", np.float32), ("plus_times", np.float64),
                                        ("min_plus", np.int32), ("max_times", np.int64),
                                        ("plus_times", np.int64), ("any_secondi", np.int32)])
def test_push_matches_pull(mats, name, dtype):
    from hpgraph.formats import Bitmask
    from hpgraph.spmv import gpu

    cp = _cp()
    rng = np.random.default_rng(12)
    A = mats["skew"]                   # row = out-edges of the source
    AT = A.transpose()
    sr = ops.lookup_semiring(name, dtype)
    x = _x(rng, A.nrows, sr.in_dtype)
    active = rng.random(A.nrows) < 0.3
    frontier = np.flatnonzero(active)
    for start in ("identity", "values"):
        if start == "identity":
            y0 = np.full(A.ncols, sr.add.identity, dtype=sr.out_dtype)
        else:
            y0 = rng.integers(0, 30, A.ncols).astype(sr.out_dtype)
        ref_t = cpu_spmv(AT, x, sr, x_active=active, out=y0, accum=sr.add.op)
        y = cp.asarray(y0)
        touched = Bitmask.zeros(A.ncols, like=cp)
        gpu.push(to_dev(A), cp.asarray(frontier), cp.asarray(x), sr, y, touched)
        got = to_host(y)
        if sr.add.terminal_any:
            nb = to_host(touched.words)
            assert nb.size > 0
        else:
            np.testing.assert_array_equal(got, ref_t)
        # touched = destinations with an edge from the frontier
        lens = np.diff(np.asarray(A.indptr))
        src_rows = np.repeat(np.arange(A.nrows), lens)
        dst = np.asarray(A.indices)[active[src_rows]]
        want = np.zeros(A.ncols, bool)
        want[dst] = True
        np.testing.assert_array_equal(to_host(touched.to_bool()), want)


def test_push_with_dst_mask(mats):
    from hpgraph.spmv import gpu

    cp = _cp()
    rng = np.random.default_rng(13)
    A = mats["skew"]
    sr = ops.lookup_semiring("min_plus", np.float32)
    x = _x(rng, A.nrows, np.float32)
    active = rng.random(A.nrows) < 0.5
    allowed = rng.random(A.ncols) < 0.5
    y0 = np.full(A.ncols, np.inf, np.float32)
    ref = cpu_spmv(A.transpose(), x, sr, x_active=active, row_mask=allowed, out=y0, accum=sr.add.op)
    y = cp.asarray(y0)
    gpu.push(to_dev(A), cp.asarray(np.flatnonzero(active)), cp.asarray(x), sr, y,
             mask=cp.asarray(allowed))
    np.testing.assert_array_equal(to_host(y), ref)


def test_push_refuses_small_dtypes(mats):
    from hpgraph.spmv import gpu

    cp = _cp()
    sr = ops.lookup_semiring("lor_land", np.bool_)
    A = to_dev(mats["skew"])
    with pytest.raises(DomainMismatch, match="atomic"):
        gpu.push(A, cp.arange(3), cp.zeros(A.nrows, bool), sr, cp.zeros(A.ncols, bool))
