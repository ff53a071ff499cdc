"""Registry: lookup by object and string, namespaces, registration, user-defined operators."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import DomainMismatch, InvalidValue, UdfTypeError
from hpgraph.ops import (BinaryOp, Monoid, Semiring, TypedSemiring, lookup_binary, lookup_monoid,
                         lookup_semiring)


def test_import_is_lazy():
    code = ("import sys, hpgraph as hp; import hpgraph.ops; "
            "assert 'cupy' not in sys.modules; "
            "assert not hpgraph.ops._core._REGISTRY['semiring']; "
            "s = hp.semiring.min_plus; assert 'cupy' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("spec", ["min_plus", "semiring.min_plus", " min_plus ", "min_plus[float32]",
                                  "semiring.min_plus[FP32]", "min_plus[f32]"])
def test_lookup_semiring_strings(spec):
    s = lookup_semiring(spec)
    if "[" in spec:
        assert isinstance(s, TypedSemiring) and s.in_dtype == np.float32
    else:
        assert s is hp.semiring.min_plus
        assert lookup_semiring(spec, np.float32) is hp.semiring.min_plus[np.float32]


def test_lookup_by_object_and_typed():
    s = hp.semiring.plus_times
    assert lookup_semiring(s) is s
    t = s[np.int32]
    assert lookup_semiring(t) is t
    assert lookup_semiring(t, np.float64) is s[np.float64]
    assert lookup_monoid(hp.binary.plus) is hp.monoid.plus           # binary op with a monoid
    assert lookup_monoid(hp.binary.min[np.float32]) is hp.monoid.min[np.float32]
    assert lookup_binary("binary.times[int8]") is hp.binary.times[np.int8]
    assert lookup_monoid("monoid.lor") is hp.monoid.lor
    assert lookup_semiring("max_div").name == "max_div"           # any monoid_binary combination
    assert lookup_semiring("plus_oneb") is hp.semiring.plus_pair    # aliases
    assert lookup_binary("truediv") is hp.binary.div


def test_lookup_errors():
    with pytest.raises(InvalidValue, match="unknown semiring 'min_foo'"):
        lookup_semiring("min_foo")
    with pytest.raises(InvalidValue, match="names a monoid"):
        lookup_semiring("monoid.min")
    with pytest.raises(InvalidValue, match="cannot parse"):
        lookup_semiring("min plus")
    with pytest.raises(DomainMismatch):
        lookup_semiring("min_plus[float32]", np.int32)
    with pytest.raises(DomainMismatch):
        lookup_semiring("min_plus[complex64]")
    with pytest.raises(DomainMismatch, match="has no monoid"):
        lookup_monoid(hp.binary.first)
    with pytest.raises(UdfTypeError):
        lookup_semiring(42)
    with pytest.raises(AttributeError):
        hp.semiring.not_a_semiring


def test_namespaces_dir():
    assert "min_plus" in dir(hp.semiring) and "any_secondi" in dir(hp.semiring)
    assert {"plus", "min", "max", "any", "lor", "land", "lxor", "times"} <= set(dir(hp.monoid))
    assert {"firsti", "secondi", "pair", "oneb", "div"} <= set(dir(hp.binary))
    assert hp.ops.semiring is hp.semiring


def test_pickle_by_name():
    assert pickle.loads(pickle.dumps(hp.semiring.min_plus)) is hp.semiring.min_plus
    anon = Semiring(add="plus", multiply=lambda a, b: a * b + 1)
    with pytest.raises(TypeError, match="register"):
        pickle.dumps(anon)


def test_register_new():
    s = Semiring.register_new("test_max_max", hp.monoid.max, hp.binary.max)
    assert hp.semiring.test_max_max is s and lookup_semiring("test_max_max[int8]").out_dtype == np.int8
    assert "test_max_max" in dir(hp.semiring)
    with pytest.raises(InvalidValue, match="already exists"):
        Semiring.register_new("test_max_max", "plus", "times")
    with pytest.raises(InvalidValue, match="already exists"):
        Semiring.register_new("min_plus", "plus", "times")
    b = BinaryOp.register_new("test_absdiff", lambda x, y: abs(x - y))
    assert lookup_binary("test_absdiff[int32]").np_call([1, 5], [4, 2]).tolist() == [3, 3]
    m = Monoid.register_new("test_absmax", lambda x, y: max(abs(x), abs(y)), 0, idempotent=True)
    assert lookup_monoid("monoid.test_absmax[float64]").np_reduce([-3.0, 2.0]) == 3.0
    assert b.name == "test_absdiff" and m.name == "test_absmax"


def test_user_semiring_from_lambda_in_call():
    max_min = hp.Semiring(add=hp.monoid.max, multiply=lambda a, b: min(a, b), name="max_min_udf")
    t = max_min[np.float32]
    assert t.out_dtype == np.float32 and t.add is hp.monoid.max[np.float32]
    x = np.array([1.0, 5.0, np.nan], np.float32)
    y = np.array([3.0, 2.0, 4.0], np.float32)
    assert t.mul.np_call(x, y).tolist() == [1.0, 2.0, 4.0]
    assert t.mul.c_expr("a", "b").startswith("hp_udf_lambda_")
    assert "__device__" in t.c_preamble
    assert t.key != hp.semiring.max_min[np.float32].key


def test_user_monoid_tree_reduction():
    # a user monoid without ufunc: log-step segmented reduction must equal a Python loop
    m = Monoid(lambda a, b: a if a > b else b, identity=-np.inf, name="mymax")
    t = m[np.int16]
    assert t.identity == np.iinfo(np.int16).min and t.ufunc is None and t.atomic is None
    assert m[np.int32].atomic == "cas"
    rng = np.random.default_rng(0)
    vals = rng.integers(-1000, 1000, 1000).astype(np.int16)
    starts = np.unique(np.concatenate([[0], rng.integers(1, 1000, 200)]))
    got = t.np_reduce_segments(vals, starts)
    bounds = np.append(starts, vals.size)
    want = [vals[s:e].max() for s, e in zip(bounds[:-1], bounds[1:])]
    assert got.tolist() == want


def test_user_monoid_noncommutative_keeps_order():
    # only associativity is assumed by the tree reduction: "first" keeps the segment's first
    m = Monoid(lambda a, b: a, identity=0, name="keepfirst")[np.int64]
    vals = np.arange(10, 30, dtype=np.int64)
    assert m.np_reduce_segments(vals, [0, 3, 4, 15]).tolist() == [10, 13, 14, 25]


def test_user_op_index_parameters():
    op = BinaryOp(lambda x, y, i, j: x * 10 + j - i, name="idx")[np.int64]
    assert op.is_index_op
    assert op.np_call([1, 2], [0, 0], [0, 1], [5, 5]).tolist() == [15, 24]
    assert op.c_expr("a", "b", "r", "c").endswith("(a, b, r, c)")


def test_from_c():
    op = BinaryOp.from_c("x + y - 1", numpy_func=lambda x, y: x + y - 1, name="plus_m1")
    t = op[np.int32]
    assert t.c_expr("a", "b") == "((int)(a + b - 1))"
    assert t.np_call([1, 2], [3, 4]).tolist() == [3, 5]
    nonp = BinaryOp.from_c("({x} < {y} ? {i} : {j})", name="idxsel")[np.float32]
    assert nonp.is_index_op
    with pytest.raises(NotImplementedError, match="numpy_func"):
        nonp.np_call([1.0], [2.0], [0], [1])
    s = Semiring(add="min", multiply=op)[np.int32]
    assert s.mul.c_expr("a", "b") == "((int)(a + b - 1))"


def test_bad_constructor_arguments():
    with pytest.raises(UdfTypeError):
        BinaryOp(3)
    with pytest.raises(UdfTypeError, match="2 parameters"):
        BinaryOp(lambda x: x)
    with pytest.raises(InvalidValue, match="identity"):
        Monoid("plus")
    with pytest.raises(InvalidValue):
        Semiring(add="plus")
    with pytest.raises(DomainMismatch, match="does not fit"):
        Monoid(lambda a, b: a + b, identity=300)[np.int8]


def test_identity_per_dtype_dict():
    m = Monoid("plus", identity={np.float32: 0.0, "int32": 0}, name="plus_dict")
    assert m[np.float32].identity == 0 and m[np.int32].identity == 0
    assert m[np.float32].ufunc is np.add and m[np.int32].atomic == "add"
    with pytest.raises(DomainMismatch, match="no identity"):
        m[np.int8]


def test_typed_ops_are_cached_and_frozen():
    a = hp.semiring.min_plus[np.float32]
    assert a is hp.semiring.min_plus["float32"]
    with pytest.raises(Exception):
        a.name = "x"
    op = BinaryOp(lambda x, y: x - y)
    assert op[np.float32] is op[np.float32]


def test_known_callables_map_to_builtins():
    import operator

    assert lookup_binary(np.add) is hp.binary.plus
    assert lookup_binary(operator.mul, np.int32) is hp.binary.times[np.int32]
    assert lookup_binary(min) is hp.binary.min
    assert Semiring(add="max", multiply=np.fmin)[np.float32].mul is hp.binary.min[np.float32]
    s = Semiring(add=hp.monoid.min[np.float64], multiply=hp.binary.plus[np.float64])
    assert s[np.int32].mul is hp.binary.plus[np.int32]   # typed parts are re-typed
