"""Backend dispatch of hp.mxv / hp.vxm / spmv.spmv: CPU vs GPU agreement and side handling.

The GPU tests carry the ``gpu`` marker (skipped without a device); the dispatch tests run
everywhere by faking the GPU module.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import backend
from hpgraph.formats import COO, Bitmask
from hpgraph.spmv import api

SEMIRINGS = ["min_plus", "plus_times", "max_min", "lor_land", "any_secondi", "min_secondi",
             "max_firsti", "plus_pair", "min_first", "max_second", "plus_minus"]


def _problem(seed=0, n=300, m=2500, dtype=np.float32):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n, m)
    cols = rng.integers(0, n, m)
    rows[: n // 5] = 0  # a heavy row
    vals = (rng.integers(-8, 16, m) / 4).astype(dtype)
    A = COO(rows, cols, vals, shape=(n, n)).asformat("csr")
    x = (rng.integers(-8, 16, n) / 4).astype(dtype)
    return rng, A, x


# ---------------------------------------------------------------------------------------
# dispatch, without a GPU


def test_gpu_module_missing_raises_not_implemented(monkeypatch):
    _, A, x = _problem()
    monkeypatch.setattr(backend, "resolve", lambda b=None, *a: "gpu")
    monkeypatch.setitem(sys.modules, "hpgraph.spmv.gpu", None)  # import fails
    # ... also when an earlier test imported it ("from . import gpu" reads the package attribute)
    monkeypatch.delattr(sys.modules["hpgraph.spmv"], "gpu", raising=False)
    with pytest.raises(NotImplementedError, match="GPU mxv"):
        hp.mxv(A, x, "min_plus")


def test_dispatch_passes_typed_arguments_to_gpu(monkeypatch):
    """The GPU entry gets a typed semiring, typed accum, the format and the flags unchanged."""
    _, A, x = _problem()
    seen = {}

    def fake_spmv(A_, x_, sr, **kw):
        seen.update(kw, sr=sr, A=A_, x=x_)
        from hpgraph.spmv import cpu

        kw.pop("format")
        return cpu.spmv(A_, x_, sr, **kw)

    fake = types.ModuleType("hpgraph.spmv.gpu")
    fake.spmv = fake_spmv
    monkeypatch.setitem(sys.modules, "hpgraph.spmv.gpu", fake)
    monkeypatch.setattr(hp.spmv, "gpu", fake, raising=False)
    monkeypatch.setattr(backend, "resolve", lambda b=None, *a: "gpu")
    # arrays "move" to the device: identity on this CPU-only machine
    monkeypatch.setattr(api, "_to_side", lambda a, side: a)
    monkeypatch.setattr(api, "_matrix_to_side", lambda M, side: M)
    monkeypatch.setattr(backend, "to_host", lambda a: a)
    out = np.zeros(A.nrows, np.float32)
    mask = np.ones(A.nrows, bool)
    y = hp.mxv(A, x, "min_plus", mask=mask, complement=True, replace=True, accum="plus", out=out,
               format="HYB")
    from hpgraph.ops import TypedBinaryOp, TypedSemiring

    assert isinstance(seen["sr"], TypedSemiring) and seen["sr"].in_dtype == np.float32
    assert isinstance(seen["accum"], TypedBinaryOp)
    assert seen["format"] == "hyb" and seen["complement"] and seen["replace"]
    assert seen["x_active"] is None
    # complement of an all-True mask computes nothing; replace clears every row to the identity
    np.testing.assert_array_equal(y, np.full(A.nrows, np.inf, np.float32))
    # vxm sends A^T and the flipped semiring
    seen.clear()
    hp.vxm(x, A, "plus_minus")
    assert seen["A"].shape == (A.ncols, A.nrows)
    assert seen["sr"].mul.name == "rminus"
    seen.clear()
    udf = hp.Semiring(add=hp.monoid.min, multiply=lambda a, b: a - 2 * b, name="min_a_2b")
    hp.vxm(x, A, udf)
    assert seen["sr"].mul.key[0] == "flip"


def test_flip_semiring_builtin_mapping():
    from hpgraph import ops
    from hpgraph.spmv import flip_semiring

    s = ops.lookup_semiring("min_plus[float32]")
    assert flip_semiring(s) is s
    f = flip_semiring(ops.lookup_semiring("min_first[float32]"))
    assert f.mul.name == "second" and f.in_dtype == np.float32
    f = flip_semiring(ops.lookup_semiring("plus_minus[int32]"))
    assert f.mul.name == "rminus"
    f = flip_semiring(ops.lookup_semiring("any_firsti[int64]"))
    assert f.mul.c_expr("a", "x") in ("(0LL)", "0LL") or "0" in f.mul.c_expr("a", "x")
    np.testing.assert_array_equal(f.mul.np_call(np.ones(3), np.ones(3), np.arange(3), np.arange(3)), 0)


# ---------------------------------------------------------------------------------------
# GPU agreement (skipped without a device)


@pytest.mark.gpu
@pytest.mark.parametrize("name", SEMIRINGS)
def test_gpu_matches_cpu(name):
    cp = backend.cupy()
    rng, A, x = _problem(seed=len(name))
    sr = f"{name}[float32]" if "secondi" not in name and "firsti" not in name else name
    n = A.nrows
    mask = rng.random(n) < 0.5
    out = (rng.integers(-8, 16, n) / 4).astype(np.float32)
    for kw in ({}, {"mask": mask}, {"mask": Bitmask.from_bool(mask), "complement": True},
               {"mask": mask, "out": out, "replace": True}, {"out": out, "accum": "max"}):
        if "secondi" in name or "firsti" in name or name == "lor_land":
            kw = {k: (v.astype(np.int64 if name != "lor_land" else bool) if k == "out" else v)
                  for k, v in kw.items()}
        for op in ("mxv", "vxm"):
            f = hp.mxv if op == "mxv" else (lambda A_, x_, s_, **k: hp.vxm(x_, A_, s_, **k))
            want = f(A, x, sr, backend="cpu", **kw)
            got = f(A, x, sr, backend="gpu", **kw)
            assert isinstance(got, np.ndarray)  # numpy in -> numpy out
            if name.startswith("any"):
                assert got.dtype == want.dtype
                continue
            if name.startswith("plus"):
                np.testing.assert_allclose(got, want, rtol=1e-5)
            else:
                np.testing.assert_array_equal(got, want)
            # cupy in -> cupy out
            got_d = f(A.to_device(), cp.asarray(x), sr, backend="gpu",
                      **{k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()})
            assert isinstance(got_d, cp.ndarray)


@pytest.mark.gpu
def test_gpu_x_active_and_device_input_on_cpu_backend():
    cp = backend.cupy()
    rng, A, x = _problem(seed=3)
    act = rng.random(A.ncols) < 0.3
    want = hp.spmv.spmv(A, x, "min_plus", x_active=Bitmask.from_bool(act), backend="cpu")
    got = hp.spmv.spmv(A.to_device(), cp.asarray(x), "min_plus",
                       x_active=Bitmask.from_bool(cp.asarray(act)), backend="gpu")
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    # device input, CPU backend: result back on the device
    y = hp.mxv(A.to_device(), cp.asarray(x), "min_plus", backend="cpu")
    assert isinstance(y, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(y), hp.mxv(A, x, "min_plus", backend="cpu"))
