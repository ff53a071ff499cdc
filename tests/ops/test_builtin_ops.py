"""Built-in binary ops, monoids and semirings: NumPy path vs a plain-Python reference, the
generated C vs the NumPy path (host compiler, bit for bit), and NVRTC compilation."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import dtypes as hdt
from hpgraph.ops import _builtins as B
from hpgraph.ops import lookup_binary, lookup_monoid, lookup_semiring

ALL = hdt.ALL_DTYPES
RNG_SEED = 20240601
N = 300


def sample(dt, n=N, seed=0):
    """Random values of ``dt`` with the edge cases first (0, +-1, extremes, NaN, infinities)."""
    rng = np.random.default_rng(RNG_SEED + seed)
    dt = np.dtype(dt)
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
        v[:4] = [False, True, True, False]
        return v
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        small = rng.integers(-5 if dt.kind == "i" else 0, 6, n // 3)
        v[n // 3: 2 * (n // 3)] = small.astype(dt)
        edges = [0, 1, info.max, info.min, info.max - 1]
        if dt.kind == "i":
            edges += [-1, info.min + 1]
        v[: len(edges)] = np.array(edges, dtype=object).astype(dt)
        return v
    v = (rng.standard_normal(n) * 100).astype(dt)
    v[n // 3: 2 * (n // 3)] = rng.integers(-4, 5, n // 3).astype(dt)
    edges = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5, np.finfo(dt).max, np.finfo(dt).tiny]
    v[: len(edges)] = edges
    return v


def pairs(dt):
    """(x, y) covering every edge value against every edge value plus random pairs."""
    x = sample(dt, seed=1)
    y = sample(dt, seed=2)
    e = x[:10]
    ex, ey = np.meshgrid(e, e)
    return np.concatenate([ex.ravel(), x]), np.concatenate([ey.ravel(), y[::-1]])


# ---------------------------------------------------------------------------------------
# plain-Python reference (scalar, independent of the implementation)


def _wrap(v, dt):
    info = np.iinfo(dt)
    span = 1 << (8 * dt.itemsize)
    return (int(v) - int(info.min)) % span + int(info.min)


def _ref_scalar(name, x, y, i, j, dt):
    k = dt.kind
    if name == "first":
        return x
    if name in ("second", "any"):
        return y
    if name == "pair":
        return 1
    if name == "firsti":
        return i
    if name == "secondi":
        return j
    if name in ("eq", "ne", "lt", "le", "gt", "ge"):
        return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[name]
    if name in ("land", "lor", "lxor"):
        a, b = bool(x != 0), bool(y != 0)   # NaN is true
        r = {"land": a and b, "lor": a or b, "lxor": a != b}[name]
        return r
    if k == "b":
        x, y = bool(x), bool(y)
        return {"plus": x or y, "minus": x != y, "rminus": x != y, "times": x and y,
                "div": x, "rdiv": y, "min": x and y, "max": x or y}[name]
    if k in "iu":
        x, y = int(x), int(y)
        if name == "plus":
            return _wrap(x + y, dt)
        if name == "minus":
            return _wrap(x - y, dt)
        if name == "rminus":
            return _wrap(y - x, dt)
        if name == "times":
            return _wrap(x * y, dt)
        if name in ("div", "rdiv"):
            if name == "rdiv":
                x, y = y, x
            info = np.iinfo(dt)
            if y == 0:
                return 0 if x == 0 else (info.min if x < 0 else info.max)
            q = abs(x) // abs(y)                 # C truncates toward zero
            q = q if (x < 0) == (y < 0) else -q
            return _wrap(q, dt)
        if name == "min":
            return min(x, y)
        if name == "max":
            return max(x, y)
    # floats, computed in the dtype (numpy scalars; IEEE operations are exact per dtype)
    f = dt.type
    x, y = f(x), f(y)
    with np.errstate(all="ignore"):
        if name == "plus":
            return x + y
        if name == "minus":
            return x - y
        if name == "rminus":
            return y - x
        if name == "times":
            return x * y
        if name == "div":
            return x / y
        if name == "rdiv":
            return y / x
        if name in ("min", "max"):           # fmin / fmax: a NaN operand is ignored
            if math.isnan(x):
                return y
            if math.isnan(y):
                return x
            return min(x, y) if name == "min" else max(x, y)
    raise AssertionError(name)


def _same(a, b, dt):
    a = np.asarray(a)
    b = np.asarray(b)
    if dt.kind == "f":
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


@pytest.mark.parametrize("name", sorted(B.BINARY))
def test_binary_numpy_matches_python_reference(name):
    for dt in ALL:
        op = lookup_binary(name, dt)
        x, y = pairs(dt)
        i = np.arange(x.size, dtype=np.int64)
        j = i * 7 + 3
        got = op.np_call(x, y, i, j)
        assert got.dtype == op.out_dtype, (op, got.dtype)
        assert got.shape == x.shape
        ref = np.array([_ref_scalar(name, a, b, ii, jj, dt) for a, b, ii, jj in zip(x, y, i, j)],
                       dtype=object)
        want = np.array([np.asarray(r).astype(op.out_dtype) if not isinstance(r, int) or
                         op.out_dtype.kind != "b" else bool(r) for r in ref]).astype(op.out_dtype)
        if not _same(got, want, op.out_dtype):
            bad = np.flatnonzero(~((got == want) | ((got != got) & (want != want))))[:5]
            pytest.fail(f"{op}: x={x[bad]} y={y[bad]} got={got[bad]} want={want[bad]}")


def test_binary_output_types():
    f32, i32, i64, b = (np.dtype(t) for t in ("float32", "int32", "int64", "bool"))
    assert hp.binary.plus[f32].out_dtype == f32
    assert hp.binary.lt[f32].out_dtype == b
    assert hp.binary.lor[f32].out_dtype == f32           # GraphBLAS: LOR_FP32 is FP32
    assert hp.binary.firsti[i32].out_dtype == i32
    assert hp.binary.secondi[f32].out_dtype == i64
    assert hp.binary.firsti[f32].is_index_op and not hp.binary.plus[f32].is_index_op
    assert hp.binary.oneb is hp.binary.pair


def test_binary_special_values():
    div = hp.binary.div
    assert div[np.int32].np_call([5, -5, 0, -(2 ** 31)], [0, 0, 0, -1]).tolist() == \
        [2 ** 31 - 1, -(2 ** 31), 0, -(2 ** 31)]
    assert div[np.int32].np_call([-7, 7], [2, -2]).tolist() == [-3, -3]       # truncation
    assert div[np.uint8].np_call([5, 0], [0, 0]).tolist() == [255, 0]
    assert hp.binary.plus[np.int8].np_call([127], [1]).tolist() == [-128]      # wraps
    m = hp.binary.min[np.float64].np_call([np.nan, 1.0, np.nan], [2.0, np.nan, np.nan])
    assert m[0] == 2.0 and m[1] == 1.0 and np.isnan(m[2])
    assert hp.binary.minus[bool].np_call([True, True], [True, False]).tolist() == [False, True]
    with pytest.raises(hp.exceptions.InvalidValue):
        hp.binary.firsti[np.int64].np_call([1], [2])


def test_np_call_does_not_modify_or_warn():
    x = np.array([1, 2, 3], np.int16)
    y = np.array([0, 0, 0], np.int16)
    xc, yc = x.copy(), y.copy()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in B.BINARY:
            op = lookup_binary(name, np.int16)
            op.np_call(x, y, np.arange(3), np.arange(3))
            lookup_binary(name, np.float32).np_call(np.float32(1), np.float32(0), 0, 0)
    assert np.array_equal(x, xc) and np.array_equal(y, yc)


# ---------------------------------------------------------------------------------------
# monoids


@pytest.mark.parametrize("name", sorted(B.MONOIDS))
def test_monoid_identity_terminal(name):
    for dt in ALL:
        m = lookup_monoid(name, dt)
        if B.MONOIDS[name][4]:
            assert m.dtype == np.bool_   # logical monoids reduce bools (python-graphblas rule)
        else:
            assert m.dtype == dt
        x = sample(m.dtype)
        if m.dtype.kind == "f":
            x = x[~np.isnan(x)]          # fmin/fmax ignore NaN: the identity law holds without them
        ident = np.full(x.shape, m.identity, m.dtype)
        if name != "any":
            assert _same(m.np_add(ident, x), x, m.dtype), (m, "identity")
            assert _same(m.np_add(x, ident), x, m.dtype), (m, "identity")
        if m.terminal is not None:
            term = np.full(x.shape, m.terminal, m.dtype)
            assert _same(m.np_add(term, x), term, m.dtype), (m, "terminal")
            assert m.c_is_terminal("v") == f"((v) == {m.c_terminal})"
        assert m.terminal_any == (name == "any")
        assert m.idempotent == (name in ("min", "max", "land", "lor", "any"))


def test_monoid_identities_and_terminals_values():
    assert hp.monoid.min[np.float32].identity == np.inf
    assert hp.monoid.min[np.float32].terminal == -np.inf
    assert hp.monoid.min[np.int8].identity == 127 and hp.monoid.min[np.int8].terminal == -128
    assert hp.monoid.max[np.uint16].identity == 0 and hp.monoid.max[np.uint16].terminal == 65535
    assert hp.monoid.plus[np.float64].terminal is None
    assert hp.monoid.times[np.int32].terminal == 0 and hp.monoid.times[np.float32].terminal is None
    assert hp.monoid.lor[bool].terminal == True and hp.monoid.land[bool].terminal == False  # noqa: E712
    assert hp.monoid.any[np.int64].terminal_any and hp.monoid.any[np.int64].c_is_terminal("v") == "true"
    assert hp.monoid.min[np.float32].c_identity == "__int_as_float(0x7f800000)"
    assert isinstance(hp.monoid.plus[np.int32].identity, np.int32)


def test_monoid_atomics():
    a = {(n, d.name): lookup_monoid(n, d).atomic for n in B.MONOIDS for d in ALL}
    for d in ("int32", "uint32", "int64", "uint64", "float32", "float64"):
        assert a[("plus", d)] == "add"
    for d in ("int32", "uint32", "int64", "uint64"):
        assert a[("min", d)] == "min" and a[("max", d)] == "max"
    for d in ("float32", "float64"):
        assert a[("min", d)] == "cas" and a[("max", d)] == "cas"
        assert a[("times", d)] == "cas" and a[("any", d)] == "cas"
    for n in B.MONOIDS:
        for d in ("bool", "int8", "uint8", "int16", "uint16"):
            assert a[(n, d)] is None, (n, d)
    assert set(a.values()) <= {"add", "min", "max", "or", "and", "cas", None}


def _segments(n, rng):
    cuts = np.sort(rng.choice(np.arange(1, n), size=max(n // 4, 1), replace=False))
    return np.concatenate([[0], cuts]).astype(np.int64)


@pytest.mark.parametrize("name", sorted(B.MONOIDS))
def test_monoid_reduce_segments(name):
    rng = np.random.default_rng(5)
    for dt in ALL:
        m = lookup_monoid(name, dt)
        vals = sample(m.dtype, n=97, seed=3)
        if m.dtype.kind in "iu" and name in ("plus", "times"):
            vals = vals  # wrap-around is part of the semantics
        starts = _segments(vals.size, rng)
        got = m.np_reduce_segments(vals, starts, starts.size)
        bounds = np.append(starts, vals.size)
        want = [functools.reduce(lambda p, q: m.np_add(p, q), vals[s:e]) for s, e in
                zip(bounds[:-1], bounds[1:])]
        want = np.array(want, dtype=m.dtype)
        if name == "plus" and m.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-5)
        elif name == "any":   # any value of the segment will do
            assert all(g in vals[s:e] for g, s, e in zip(got, bounds[:-1], bounds[1:]))
        else:
            assert _same(got, want, m.dtype), m
        assert got.dtype == m.dtype
        assert m.np_reduce_segments(vals[:0], np.zeros(0, np.int64), 0).shape == (0,)


def test_np_reduce_and_any():
    assert hp.monoid.plus[np.int32].np_reduce([]) == 0
    assert hp.monoid.max[np.float64].np_reduce([1.0, 7.0, np.nan]) == 7.0
    vals = np.array([3, 4, 5, 6], np.int32)
    assert hp.monoid.any[np.int32].np_reduce_segments(vals, [0, 2]).tolist() == [3, 5]


def test_monoid_ufuncs():
    assert hp.monoid.plus[np.float32].ufunc is np.add
    assert hp.monoid.min[np.float32].ufunc is np.fmin
    assert hp.monoid.min[np.int32].ufunc is np.minimum
    assert hp.monoid.plus[bool].ufunc is np.logical_or
    assert hp.monoid.any[np.int32].ufunc is None


# ---------------------------------------------------------------------------------------
# semirings

LISTED = B.SEMIRINGS


@pytest.mark.parametrize("name", LISTED)
def test_semiring_types(name):
    s = lookup_semiring(name)
    for dt in ALL:
        t = s[dt]
        assert t.mul.out_dtype == t.add.dtype == t.out_dtype
        assert t.in_dtype == dt
        if s.is_logical:
            assert t.out_dtype == np.bool_
        elif s.is_index:
            assert t.out_dtype == (dt if dt in (np.int32, np.int64) else np.int64)
        elif name.split("_")[1] in ("eq", "ne", "lt", "le", "gt", "ge"):
            assert t.out_dtype == np.bool_
        else:
            assert t.out_dtype == dt
        # the semiring's ops agree with the stand-alone ops
        x, y = pairs(dt)
        i = np.arange(x.size)
        m = t.mul.np_call(x, y, i, i + 1)
        assert m.dtype == t.add.dtype
        assert t.add.np_reduce_segments(m, np.array([0, 5]), 2).dtype == t.out_dtype


def test_semiring_examples():
    s = hp.semiring.min_plus[np.float32]
    assert s.in_dtype == np.float32 and s.out_dtype == np.float32
    assert s.add is hp.monoid.min[np.float32] and s.mul is hp.binary.plus[np.float32]
    assert s.mul.c_expr("a", "x") == "((float)((a) + (x)))"
    assert s.add.c_add("p", "q") == "((float)(fminf(p, q)))"
    ll = hp.semiring.lor_land[np.float32]
    assert ll.out_dtype == np.bool_ and ll.mul.np_call([2.0, 0.0], [np.nan, 1.0]).tolist() == [True, False]
    sec = hp.semiring.min_secondi[np.float32]
    assert sec.out_dtype == np.int64 and sec.is_index_op
    assert sec.mul.c_expr("a", "x", "r", "c") == "((long long)(c))"
    assert sec.mul.np_call([1.0, 2.0], [3.0, 4.0], [0, 0], [5, 6]).tolist() == [5, 6]
    assert hp.semiring.any_firsti[np.int32].out_dtype == np.int32
    assert hp.semiring.plus_pair[np.float32].mul.np_call([5.0], [np.nan]).tolist() == [1.0]
    assert hash(hp.semiring.min_plus[np.float32]) == hash(lookup_semiring("min_plus[float32]"))
    assert s.key == lookup_semiring("min_plus", "f32").key


def test_default_dtype():
    dd = hp.ops.default_dtype
    assert dd("min_plus", np.float32, np.float64) == np.float64
    assert dd("plus_times", np.int32, None) == np.int32
    assert dd("plus_times", None, None) == np.bool_
    assert dd("lor_land", np.float32, np.int64) == np.bool_
    assert dd("any_secondi", np.float32, np.float32) == np.int64
    assert dd(hp.semiring.min_plus[np.int16], np.float32, None) == np.int16
    assert dd("plus_times", np.int64, np.uint64) == np.float64


# ---------------------------------------------------------------------------------------
# C: host compiler bit-for-bit against NumPy, and NVRTC


def _host():
    from hpgraph.compiler import hostc

    if hostc.compiler() is None:
        pytest.skip("no host C++ compiler")
    return hostc


def test_binary_c_matches_numpy_on_host():
    hostc = _host()
    ops = [lookup_binary(n, dt) for n in sorted(B.BINARY) for dt in ALL]
    pre = "".join(dict.fromkeys(op.c_preamble for op in ops))
    fs = hostc.build(pre, [(op.out_dtype, [op.in_dtype, op.in_dtype, np.int64, np.int64],
                            (lambda x, y, i, j, op=op: op.c_expr(x, y, i, j))) for op in ops])
    for op, f in zip(ops, fs):
        x, y = pairs(op.in_dtype)
        i = np.arange(x.size, dtype=np.int64)
        j = i * 5 - 3
        got_c = f(x, y, i, j)
        got_np = op.np_call(x, y, i, j)
        assert _same(got_c, got_np, op.out_dtype), op
        if op.out_dtype.kind == "f":   # also the sign of zero
            assert np.array_equal(np.signbit(got_c), np.signbit(got_np)) or op.name in ("min", "max")


def _monoid_kernels(monoids):
    out = []
    for k, m in enumerate(monoids):
        ct = "bool" if m.dtype.kind == "b" else hdt.c_type(m.dtype)
        term = m.c_is_terminal("acc") or "false"
        out.append(f"""
extern "C" __global__ void hp_test_monoid_{k}(const {ct}* __restrict__ v, {ct}* out, int n) {{
    {ct} acc = {m.c_identity};
    for (int e = 0; e < n; ++e) {{
        if ({term}) break;
        acc = {m.c_add("acc", "__ldg(&v[e])" if m.dtype.kind != "b" else "v[e]")};
    }}
    *out = acc;
}}""")
    return out


def test_everything_compiles_with_nvrtc():
    """One NVRTC call (batched) for every typed binary op, monoid and listed semiring."""
    from hpgraph.backend import compile_ptx
    from hpgraph.exceptions import DeviceUnavailable

    pre = {}
    kernels = []
    k = 0
    for n in sorted(B.BINARY):
        for dt in ALL:
            op = lookup_binary(n, dt)
            pre[op.c_preamble] = None
            it = "bool" if dt.kind == "b" else hdt.c_type(dt)
            ot = "bool" if op.out_dtype.kind == "b" else hdt.c_type(op.out_dtype)
            kernels.append(f'extern "C" __global__ void hp_test_op_{k}(const {it}* x, const {it}* y, '
                           f"{ot}* z, long long n) {{ long long i = blockIdx.x; long long j = threadIdx.x; "
                           f"if (i < n) z[i] = {op.c_expr('x[i]', 'y[j]', 'i', 'j')}; }}")
            k += 1
    monoids = [lookup_monoid(n, dt) for n in B.MONOIDS for dt in ALL]
    sems = [lookup_semiring(n, dt) for n in LISTED for dt in ALL]
    for s in sems:
        pre[s.c_preamble] = None
        it = "bool" if s.in_dtype.kind == "b" else hdt.c_type(s.in_dtype)
        ot = "bool" if s.out_dtype.kind == "b" else hdt.c_type(s.out_dtype)
        kernels.append(f"""
extern "C" __global__ void hp_test_sr_{k}(const {it}* a, const {it}* x, const int* col, {ot}* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    {ot} acc = {s.add.c_identity};
    for (int e = 0; e < 4; ++e) {{
        int j = col[i * 4 + e];
        acc = {s.add.c_add("acc", s.mul.c_expr("a[i * 4 + e]", "x[j]", "i", "j"))};
        if ({s.add.c_is_terminal("acc") or "false"}) break;
    }}
    y[i] = acc;
}}""")
        k += 1
    for m in monoids:
        pre[m.c_preamble] = None
    src = "".join(pre) + "\n".join(kernels) + "\n".join(_monoid_kernels(monoids))
    try:
        ptx = compile_ptx(src, name="hpgraph_ops_test.cu")
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert ".entry hp_test_op_0" in ptx and "hp_test_monoid_" in ptx
