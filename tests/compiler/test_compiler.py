"""The callback compiler: NumPy path == plain Python element by element, C == NumPy (host
compiler), NVRTC compiles everything, typing rules, views, dict outputs, captured values."""

from __future__ import annotations

import math
import os
import types
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hpgraph as hp
from hpgraph.compiler import compile_function
from hpgraph.exceptions import UdfTypeError

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---------------------------------------------------------------------------------------
# callbacks under test (module level: captured globals are read from here)

OFFSET = 3


def f_branches(x, y):
    t = x * 2 - y
    if t > 0:
        return t // 3 + x % 5
    elif x == y:
        return abs(y)
    return max(x, y, 1) - min(t, 0) + OFFSET


def f_float(x, y):
    """docstrings are fine"""
    s = math.sqrt(abs(x)) + math.floor(y / 3)
    s += 1
    if math.isnan(x) or math.isinf(y):
        s = -1.0
    return s if x >= 0 else -s * 0.5


def f_logic(x, y):
    return (x > 0 and y > 0) or not (x == y)


def f_pyandor(x, y):
    return x and y or 7


def f_truediv(x, y):
    return x / (y if y != 0 else 1)


def f_floor(x, y):
    a, b = x // 7, x % -3
    return a - b if y < 0 else (-x) // 2


def f_chain(x, y):
    return 0 <= x < y != 3


f_lambda = lambda x, y: (x - y) if x > y else (y - x) * 2   # noqa: E731

UDFS = {
    "branches": (f_branches, ["int8", "uint8", "int32", "int64", "float32", "float64"]),
    "float": (f_float, ["float32", "float64"]),
    "logic": (f_logic, ["bool", "int16", "float32"]),
    "pyandor": (f_pyandor, ["int32", "float64", "bool"]),
    "truediv": (f_truediv, ["int32", "uint16", "float32"]),
    "floor": (f_floor, ["int8", "int64", "float32", "float64"]),
    "chain": (f_chain, ["int32", "float64"]),
    "lambda": (f_lambda, ["int16", "uint32", "float32"]),
}


def elements(dt, finite=False):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return st.one_of(st.integers(int(info.min), int(info.max)),
                         st.integers(max(-8, int(info.min)), 8))
    width = 32 if dt == np.float32 else 64
    return st.one_of(st.floats(width=width, allow_nan=False, allow_infinity=not finite),
                     st.integers(-8, 8).map(float))


class _NumpyMath:
    """``math`` as hpgraph types it: float32 stays float32 (NumPy ufunc typing)."""

    def __getattr__(self, name):
        return getattr(np, name) if hasattr(np, name) else getattr(math, name)


def python_reference(func, x, y, rdt):
    if x.dtype == np.float32 and "math" in func.__code__.co_names:
        func = types.FunctionType(func.__code__, {**func.__globals__, "math": _NumpyMath()})
    out = []
    with np.errstate(all="ignore"):
        for a, b in zip(x, y):
            r = func(a, b)
            out.append(np.asarray(r).astype(rdt) if rdt.kind != "b" else bool(r))
    return np.array(out, dtype=rdt)


def check_equal(got, want, rdt, rtol=0.0):
    assert got.dtype == rdt
    if rdt.kind == "f":
        if rtol:
            np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, want)
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("name", sorted(UDFS))
def test_udf_numpy_equals_python(name):
    func, dts = UDFS[name]

    for dt in dts:
        cf = compile_function(func, {"x": dt, "y": dt})

        @SETTINGS
        @given(data=st.data())
        def run(data):
            n = data.draw(st.integers(1, 30))
            x = data.draw(hnp.arrays(np.dtype(dt), n, elements=elements(dt, name == "float")))
            y = data.draw(hnp.arrays(np.dtype(dt), n, elements=elements(dt, name == "float")))
            got = cf.np_call(x, y)
            want = python_reference(func, x, y, cf.result_dtype)
            check_equal(got, want, cf.result_dtype)

        run()


def test_result_types_follow_numpy_and_weak_literals():
    def t(f, dt, **kw):
        return compile_function(f, {"x": dt, "y": dt}, **kw).result_dtype

    assert t(lambda x, y: x + 1, "float32") == np.float32          # weak int literal
    assert t(lambda x, y: x + 1.5, "float32") == np.float32        # weak float literal
    assert t(lambda x, y: x + 1.5, "int32") == np.float64
    assert t(lambda x, y: x / y, "int32") == np.float64            # Python true division
    assert t(lambda x, y: x // y, "int16") == np.int16
    assert t(lambda x, y: x + y, "bool") == np.int64               # True + True == 2
    assert t(lambda x, y: x < y, "float32") == np.bool_
    assert t(lambda x, y: math.sqrt(x), "int32") == np.float64
    assert t(lambda x, y: math.sqrt(x), "float32") == np.float32
    assert t(lambda x, y: 1, "float32") == np.int64
    assert t(lambda x, y: x * 2, "uint8") == np.uint8
    assert t(lambda x, y: float(x) * y, "float32") == np.float32     # float() is a Python float
    assert t(lambda x, y: np.float64(x) * y, "float32") == np.float64
    assert t(lambda x, y: x + y, "int8", result_dtype="float32") == np.float32
    mixed = compile_function(lambda a, b: a + b, {"a": np.int64, "b": np.uint64})
    assert mixed.result_dtype == np.float64
    with pytest.raises(UdfTypeError, match="300 does not fit in int8"):
        compile_function(lambda x, y: x + 300, {"x": "int8", "y": "int8"})
    # comparisons with out-of-range literals are fine (as in NumPy)
    assert compile_function(lambda x, y: x < 300, {"x": "int8", "y": "int8"}).np_call([5], [0]).tolist() == [True]


def test_semantics_edge_cases():
    c = compile_function(lambda x, y: x // y, {"x": "int32", "y": "int32"})
    assert c.np_call([-7, 7, 5, -2 ** 31], [2, -2, 0, -1]).tolist() == [-4, -4, 0, -2 ** 31]
    c = compile_function(lambda x, y: x % y, {"x": "int32", "y": "int32"})
    assert c.np_call([-7, 7, 5], [2, -2, 0]).tolist() == [1, -1, 0]
    c = compile_function(lambda x, y: x ** y, {"x": "int32", "y": "int32"})
    assert c.np_call([3, 2, 2, -1, 1, 5], [4, 31, -1, -3, -7, 0]).tolist() == [81, -2 ** 31, 0, -1, 1, 1]
    c = compile_function(lambda x, y: min(x, y), {"x": "float64", "y": "float64"})
    assert c.np_call([np.nan, 1.0], [2.0, np.nan]).tolist() == [2.0, 1.0]   # fmin semantics
    c = compile_function(lambda x, y: -x, {"x": "int8", "y": "int8"})
    assert c.np_call([-128, 5], [0, 0]).tolist() == [-128, -5]                 # wraps
    c = compile_function(lambda x, y: bool(x) and y > 0, {"x": "float32", "y": "float32"})
    assert c.np_call([np.nan, 0.0], [1.0, 1.0]).tolist() == [True, False]
    c = compile_function(lambda x, y: x if x > y else y, {"x": "float32", "y": "float32"})
    assert c.np_call(np.float32(2.0), np.array([1.0, 3.0], np.float32)).tolist() == [2.0, 3.0]


def test_constants_and_math():
    c = compile_function(lambda x, y: x * math.pi + float("inf") * 0 + np.e, {"x": "float64", "y": "float64"})
    assert np.isnan(c.np_call([1.0], [0.0])[0])
    c = compile_function(lambda x, y: x if x < math.inf else -1, {"x": "float32", "y": "float32"})
    assert c.np_call([np.inf, 2.0], [0, 0]).tolist() == [-1.0, 2.0]
    c = compile_function(lambda x, y: math.pow(x, 2) + math.hypot(x, y), {"x": "float64", "y": "float64"})
    assert c.np_call([3.0], [4.0]).tolist() == [14.0]
    c = compile_function(lambda x, y: 2 ** 10 + x, {"x": "int32", "y": "int32"})   # folded
    assert "1024" in c.c_preamble


# ---------------------------------------------------------------------------------------
# views and dict outputs (vertex programs)


def gather(src, edge, dst):
    return src.dist + edge if src.active else math.inf


def update(v, y):
    new = min(v.dist, y)
    return {"dist": new, "changed": new < v.dist}


def test_views_and_c_params():
    g = compile_function(gather, {"edge": np.float32},
                         views={"src": {"dist": np.float32, "active": np.bool_, "unused": np.int32},
                                "dst": {"dist": np.float32}})
    assert g.result_dtype == np.float32
    assert g.views == {"src": ("dist", "active"), "dst": ()}
    assert [p[4] for p in g.c_params] == ["v_src_dist", "v_src_active", "p_edge"]
    call = g.c_expr({"edge": "w[e]"}, {"src": {"dist": "dist[j]", "active": "act[j]"}, "dst": {}})
    assert call == f"{g.c_name}(dist[j], act[j], w[e])"
    src = {"dist": np.array([1.0, 2.0, 3.0], np.float32), "active": np.array([True, False, True])}
    out = g.np_call(src, np.float32(0.5), {"dist": 0})
    assert out.tolist() == [1.5, np.inf, 3.5]

    class V:  # attribute-style views work too
        dist = np.array([1.0, 2.0], np.float32)
        active = np.array([True, True])
    assert g.np_call(src=V(), edge=np.float32(1), dst=None).tolist() == [2.0, 3.0]

    with pytest.raises(UdfTypeError, match="has no property 'dst'"):
        compile_function(lambda src, e: src.dst, {"e": "int32"}, views={"src": {"dist": "int32"}})
    with pytest.raises(UdfTypeError, match="vertex view"):
        compile_function(lambda src, e: src + e, {"e": "int32"}, views={"src": {"dist": "int32"}})


def test_dict_outputs():
    u = compile_function(update, {"y": np.float32}, views={"v": {"dist": np.float32}})
    assert u.outputs == ("dist", "changed")
    assert u.result_dtype == {"dist": np.float32, "changed": np.bool_}
    r = u.np_call({"dist": np.array([1.0, 5.0], np.float32)}, np.array([2.0, 3.0], np.float32))
    assert r["dist"].tolist() == [1.0, 3.0] and r["changed"].tolist() == [False, True]
    assert u.c_expr({"y": "y[v]"}, {"v": {"dist": "d[v]"}}, output="changed") == \
        f"{u.c_name}_changed(d[v], y[v])"
    with pytest.raises(UdfTypeError, match="output="):
        u.c_expr({"y": "y"}, {"v": {"dist": "d"}})

    def branchy(v, y):
        if y < v.dist:
            return {"dist": y, "changed": True}
        return {"dist": v.dist, "changed": False}
    b = compile_function(branchy, {"y": "float64"}, views={"v": {"dist": "float64"}},
                         result_dtype={"changed": "int8"})
    r = b.np_call({"dist": np.array([1.0, 5.0])}, np.array([2.0, 3.0]))
    assert r["dist"].tolist() == [1.0, 3.0] and r["changed"].dtype == np.int8


# ---------------------------------------------------------------------------------------
# captured values, caching


SCALE = 2


def test_captured_global_change_is_noticed():
    global SCALE
    op = hp.BinaryOp(lambda x, y: x * SCALE + y)
    t1 = op[np.int32]
    assert t1.np_call([1, 2], [0, 0]).tolist() == [2, 4]
    old = SCALE
    try:
        SCALE = 5
        t2 = op[np.int32]
        assert t2.np_call([1, 2], [0, 0]).tolist() == [5, 10]
        assert t2.key != t1.key and t2.c_preamble != t1.c_preamble
        SCALE = 2.5   # a float now: the result type changes too
        assert op[np.int32].out_dtype == np.float64
    finally:
        SCALE = old
    assert op[np.int32] is t1    # back to the first value: cached


def test_closure_change_is_noticed():
    k = 1
    f = lambda x, y: x + k   # noqa: E731
    a = compile_function(f, {"x": "int64", "y": "int64"})
    k = 10
    b = compile_function(f, {"x": "int64", "y": "int64"})
    assert a.np_call([1], [0]).tolist() == [2] and b.np_call([1], [0]).tolist() == [11]
    assert a.cache_key != b.cache_key
    assert k == 10


def test_numpy_scalar_capture_is_strong():
    alpha = np.float32(0.5)
    beta = 0.5
    assert compile_function(lambda x, y: x * alpha, {"x": "float32", "y": "float32"}).result_dtype == np.float32
    assert compile_function(lambda x, y: x * alpha, {"x": "int32", "y": "int32"}).result_dtype == np.float64
    assert compile_function(lambda x, y: x * beta, {"x": "float32", "y": "float32"}).result_dtype == np.float32


def test_cache_hits():
    a = compile_function(f_branches, {"x": "int32", "y": "int32"})
    assert compile_function(f_branches, ["int32", "int32"]) is a
    b = compile_function(f_branches, {"x": "int64", "y": "int64"})
    assert b is not a and b.cache_key != a.cache_key and b.c_name != a.c_name


def test_lambda_in_multiline_call_and_same_line():
    s = hp.Semiring(
        add=hp.monoid.max,
        multiply=lambda a, b: min(a, b),
    )
    assert s[np.int32].mul.np_call([1, 7], [3, 4]).tolist() == [1, 4]
    p, m = (lambda x, y: x + y), (lambda x, y: x - y)   # two lambdas, one line
    assert compile_function(p, ["int32", "int32"]).np_call([5], [3]).tolist() == [8]
    assert compile_function(m, ["int32", "int32"]).np_call([5], [3]).tolist() == [2]
    ops = {"a": lambda u, v: u * v, "b": lambda u, v: u * v + 1}
    assert compile_function(ops["b"], ["int32", "int32"]).np_call([2], [3]).tolist() == [7]


# ---------------------------------------------------------------------------------------
# C: NVRTC compiles, and the host compiler computes what NumPy computes


def _all_compiled():
    out = []
    for name, (func, dts) in sorted(UDFS.items()):
        for dt in dts:
            out.append(compile_function(func, {"x": dt, "y": dt}))
    return out


def test_udfs_compile_with_nvrtc():
    from hpgraph.backend import compile_ptx
    from hpgraph.exceptions import DeviceUnavailable

    cfs = _all_compiled()
    g = compile_function(gather, {"edge": np.float32},
                         views={"src": {"dist": np.float32, "active": np.bool_}, "dst": {}})
    u = compile_function(update, {"y": np.float32}, views={"v": {"dist": np.float32}})
    kernels = []
    for k, cf in enumerate(cfs):
        t = hp.dtypes.c_type(cf.arg_types["x"]) if cf.arg_types["x"] != np.bool_ else "bool"
        r = hp.dtypes.c_type(cf.result_dtype) if cf.result_dtype != np.bool_ else "bool"
        kernels.append(f'extern "C" __global__ void k{k}(const {t}* x, const {t}* y, {r}* z) '
                       f"{{ int i = threadIdx.x; z[i] = {cf.c_call('x[i]', 'y[i]')}; }}")
    kernels.append('extern "C" __global__ void kv(const float* d, const bool* a, const float* w, '
                   "float* y, bool* ch, float* nd) { int i = threadIdx.x; float t = "
                   + g.c_expr({"edge": "w[i]"}, {"src": {"dist": "d[i]", "active": "a[i]"}, "dst": {}})
                   + "; nd[i] = " + u.c_expr({"y": "t"}, {"v": {"dist": "d[i]"}}, output="dist")
                   + "; ch[i] = " + u.c_expr({"y": "t"}, {"v": {"dist": "d[i]"}}, output="changed") + "; }")
    src = "".join(cf.c_preamble for cf in cfs) + g.c_preamble + u.c_preamble + u.c_preamble + \
        "\n".join(kernels)
    try:
        ptx = compile_ptx(src, name="hpgraph_udf_test.cu")
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert ".entry kv" in ptx


def _inputs(dt, n=400, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[: n // 2] = rng.integers(max(info.min, -20), 21, n // 2).astype(dt)
        v[:4] = np.array([0, info.max, info.min, 1], dtype=object).astype(dt)
        return v
    v = (rng.standard_normal(n) * 50).astype(dt)
    v[: n // 4] = np.round(v[: n // 4])
    v[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 3.0]
    return v


def test_udf_c_matches_numpy_on_host():
    from hpgraph.compiler import hostc

    if hostc.compiler() is None:
        pytest.skip("no host C++ compiler")
    cfs = _all_compiled()
    pre = "".join(cf.c_preamble for cf in cfs)
    fs = hostc.build(pre, [(cf.result_dtype, [cf.arg_types["x"], cf.arg_types["y"]],
                            (lambda x, y, cf=cf: cf.c_call(x, y))) for cf in cfs])
    for cf, f in zip(cfs, fs):
        dt = cf.arg_types["x"]
        x, y = _inputs(dt, seed=1), _inputs(dt, seed=2)
        got_c, got_np = f(x, y), cf.np_call(x, y)
        if cf.result_dtype.kind == "f":
            np.testing.assert_array_equal(got_c, got_np, err_msg=str(cf))
        else:
            assert got_c.tolist() == got_np.tolist(), cf


_UBSAN_SCRIPT = r"""
import numpy as np, sys
sys.path.insert(0, {root!r})
import hpgraph as hp
from hpgraph.compiler import hostc, compile_function
from hpgraph.ops import _builtins as B
ops = [hp.ops.lookup_binary(n, dt) for n in B.BINARY for dt in hp.dtypes.ALL_DTYPES]
f_int = lambda x, y: (x * 3 - y) // (y - 1) + x % y + abs(x) - (-y) + x ** 3
cfs = [compile_function(f_int, [dt, dt]) for dt in ("int8", "int16", "int32", "int64", "uint32", "uint64")]
exprs = [(op.out_dtype, [op.in_dtype] * 2 + [np.int64] * 2, (lambda x, y, i, j, op=op: op.c_expr(x, y, i, j))) for op in ops]
exprs += [(c.result_dtype, [c.arg_types["x"]] * 2, (lambda x, y, c=c: c.c_call(x, y))) for c in cfs]
pre = "".join(dict.fromkeys([op.c_preamble for op in ops] + [c.c_preamble for c in cfs]))
fs = hostc.build(pre, exprs, extra=("-fsanitize=undefined", "-fno-sanitize-recover=all",
                                    "-fno-sanitize=float-divide-by-zero,float-cast-overflow"))
for (rdt, adts, _), f in zip(exprs, fs):
    dt = adts[0]
    if dt.kind in "iu":
        info = np.iinfo(dt)
        e = np.array([0, 1, 2, info.max, info.min, info.max - 1] + ([-1, info.min + 1] if dt.kind == "i" else []), dtype=object).astype(dt)
    elif dt.kind == "b":
        e = np.array([False, True])
    else:
        e = np.array([0.0, -1.0, 1e30, -np.inf, np.nan], dtype=dt)
    x, y = np.meshgrid(e, e)
    f(*([x.ravel(), y.ravel()] + [np.zeros(x.size, np.int64)] * (len(adts) - 2)))
print("clean")
"""


def test_generated_c_has_no_undefined_behaviour(tmp_path):
    """UBSan (signed overflow, shifts, INT_MIN / -1...) over every built-in op and integer UDFs."""
    from hpgraph.compiler import hostc

    cxx = hostc.compiler()
    if cxx is None:
        pytest.skip("no host C++ compiler")
    lib = subprocess.run([cxx, "-print-file-name=libubsan.so"], capture_output=True, text=True).stdout.strip()
    if not lib or not os.path.isabs(lib) or not os.path.exists(lib):
        pytest.skip("libubsan not available")
    root = os.path.dirname(os.path.dirname(hp.__file__))
    env = dict(os.environ, LD_PRELOAD=lib)
    script = tmp_path / "ubsan_check.py"
    script.write_text(_UBSAN_SCRIPT.format(root=root))
    res = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "clean" in res.stdout, res.stderr[-3000:]
