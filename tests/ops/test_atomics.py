"""The monoids' atomic forms (:meth:`hpgraph.ops.TypedMonoid.c_atomic_body`), run on the host
through the g++ emulation of CUDA (``tests/graphblas/_cuda_emu``): every value combined into
one cell in turn equals NumPy's reduction, and the returning form gives the value before each
combine."""

from __future__ import annotations

import numpy as np
import pytest

from hpgraph import dtypes as _dt
from hpgraph.ops import lookup_monoid

CASES = [(name, dt) for name in ("min", "max")
         for dt in ("int32", "uint32", "int64", "uint64", "float32", "float64")] + \
    [("plus", "float32"), ("plus", "int64"), ("times", "float64")]


def _values(dt, rng):
    dt = np.dtype(dt)
    if dt.kind == "f":
        v = rng.normal(0, 10, 40).astype(dt)
        v[[3, 17]] = np.nan                     # ignored by fmin / fmax
        v[[5, 6]] = [0.0, -0.0]
        v[9] = np.inf
        return v
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), 40).astype(dt)


@pytest.mark.parametrize("name,dt", CASES)
def test_atomic_forms_combine_and_return_the_value_before(name, dt):
    emu = pytest.importorskip("tests.graphblas._cuda_emu")
    if not emu.available():
        pytest.skip("g++ is not installed (the CUDA host emulation needs it)")
    mon = lookup_monoid(name, np.dtype(dt))
    ct = _dt.c_type(np.dtype(dt))
    src = (f"typedef {ct} y_t;\n"
           f"__device__ y_t hp_add(y_t a, y_t b) {{ return {mon.c_add('a', 'b')}; }}\n"
           f"__device__ void hp_atomic(y_t* p, y_t v) {{\n{mon.c_atomic_body()}\n}}\n"
           f"__device__ y_t hp_atomic_old(y_t* p, y_t v) {{\n{mon.c_atomic_body(True)}\n}}\n"
           'extern "C" __global__ void k(y_t* cell, const y_t* v, y_t* before, y_t* cell2, '
           "long long n) {\n"
           "    for (long long i = 0; i < n; ++i) { before[i] = hp_atomic_old(cell, v[i]); "
           "hp_atomic(cell2, v[i]); }\n}\n")
    rng = np.random.default_rng(7)
    v = _values(dt, rng)
    cell = np.array([mon.identity], dt)
    cell2 = cell.copy()
    before = np.zeros(len(v), dt)
    emu.kernel(src, "k", max_blocks=1)((1,), (1,), (cell, v, before, cell2, np.int64(len(v))))
    want = [mon.identity]
    for x in v[:-1]:
        want.append(mon.np_add(np.array([want[-1]], dt), np.array([x], dt))[0])
    np.testing.assert_array_equal(before, np.array(want, dt))
    final = mon.np_add(np.array([want[-1]], dt), np.array([v[-1]], dt))
    np.testing.assert_array_equal(cell, final)
    np.testing.assert_array_equal(cell2, final)
