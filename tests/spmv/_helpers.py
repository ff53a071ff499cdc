"""Helpers shared by the SpMV tests (imported as ``tests.spmv._helpers``; pytest puts the
repository root on ``sys.path``, see ``pythonpath`` in pyproject.toml).

Device access goes through ``to_dev``/``to_host`` (and ``_cp``), so a harness that replaces
them can dry-run GPU tests on the CPU.
"""

from __future__ import annotations

import numpy as np

from hpgraph import backend, ops
from hpgraph.exceptions import HpgraphError


def _cp():
    import cupy

    return cupy


def to_dev(a):
    """Device copy of an array, hpgraph matrix or Bitmask; None, flags, strings and typed
    operators pass through."""
    if a is None or isinstance(a, (bool, str)) or hasattr(a, "c_expr"):
        return a
    if isinstance(a, np.ndarray) or np.isscalar(a):   # (numpy arrays have an array-API to_device)
        return _cp().asarray(a)
    if hasattr(a, "format") or hasattr(a, "words"):  # hpgraph matrix / Bitmask
        return a.to_device()
    return _cp().asarray(a)


def to_host(a):
    return _cp().asnumpy(a)


def natural_semiring(name):
    """Built-in semiring ``name`` typed by the first dtype it accepts (float32, int32, bool,
    int64, float64)."""
    for dt in (np.float32, np.int32, np.bool_, np.int64, np.float64):
        try:
            return ops.lookup_semiring(name, dt)
        except HpgraphError:
            continue
    raise AssertionError(name)


def small_ints(rng, n, dtype):
    """Values 0..8 as ``dtype``: exact in every dtype, so sums do not depend on their order."""
    return rng.integers(0, 9, n).astype(dtype)


def assert_any_ok(got, ref, sr, A, x, row_mask=None, complement=False, x_active=None, out=None,
                  **kw):
    """``any`` monoids: each row holds some product of that row (any one may win on the GPU);
    rows without a candidate (masked, empty, no active source) equal the CPU exactly."""
    csr = A if A.format == "csr" else A.asformat("csr")
    indptr = np.asarray(csr.indptr).astype(np.int64)
    cols = np.asarray(csr.indices).astype(np.int64)
    rows = np.repeat(np.arange(csr.nrows), np.diff(indptr))
    a = (np.ones(len(cols), sr.in_dtype) if csr.values is None
         else np.asarray(csr.values).astype(sr.in_dtype))
    prod = sr.mul.np_call(a, np.asarray(x).astype(sr.in_dtype)[cols], rows, cols).astype(ref.dtype)
    if x_active is not None:
        act = x_active.to_bool() if hasattr(x_active, "to_bool") else x_active
        keep = np.asarray(act)[cols]
        rows, prod = rows[keep], prod[keep]
    hit = np.zeros(len(got), bool)
    np.logical_or.at(hit, rows, prod == got[rows])
    has = np.zeros(len(got), bool)
    has[rows] = True
    bad = has & ~hit & (got != ref)
    assert not bad.any(), np.flatnonzero(bad)[:10]
    np.testing.assert_array_equal(got[~has], ref[~has])


def nvrtc_ok() -> bool:
    """Whether NVRTC can compile here (CI has it without a GPU)."""
    try:
        backend.compile_ptx('extern "C" __global__ void k(int* p) { p[0] = 1; }', "probe.cu")
        return True
    except Exception:
        return False
