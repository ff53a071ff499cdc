"""User text cannot inject source through the operator side either: user-defined binary ops,
monoids and semirings (names, string constants, captured strings, identities) and the
declarations of a vertex program that name properties (priority, witness, dtypes).

Complements tests/compiler/test_injection.py (the vertex-program callbacks).  The generated SpMV
module is inspected as text (no GPU needed): a payload is either refused with a typed error or
reaches the source only as an identifier fragment or inside a comment.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import HpgraphError, InvalidProgram, InvalidValue
from hpgraph.spmv import codegen

from examples.sssp import SSSP

PAYLOAD = '*/ ") asm("trap"); \n#error injected\n//'


def _code(src: str) -> str:
    """What a C compiler reads: the source without its comments."""
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def _assert_clean(src: str):
    assert not any(line.lstrip().startswith("#error") for line in src.splitlines()), src
    assert 'asm("trap")' not in _code(src)


def _spmv_source(sr, family="csr_lb"):
    spec = codegen.semiring_spec(family, sr, a_dtype=np.dtype(np.float32), x_dtype=np.float32,
                                 index_dtype=np.dtype(np.int32))
    src, names = codegen.generate(spec)
    return src, names


def test_builtin_semiring_source_is_clean():
    src, names = _spmv_source(hp.semiring.min_plus[np.float32])
    _assert_clean(src)
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in names.values())


@pytest.mark.parametrize("family", ["csr_lb", "ell", "push"])
def test_semiring_name_becomes_an_identifier(family):
    sr = hp.Semiring(add=hp.monoid.min, multiply=lambda a, b: a + b, name=PAYLOAD)
    src, names = _spmv_source(sr[np.float32], family)
    _assert_clean(src)
    for name in names.values():  # kernel names are looked up by name: plain C identifiers only
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name), name


def test_binary_op_name_becomes_an_identifier():
    op = hp.BinaryOp(lambda a, b: a * b, name=PAYLOAD)
    sr = hp.Semiring(add=hp.monoid.plus, multiply=op)
    src, _ = _spmv_source(sr[np.float32])
    _assert_clean(src)


def test_string_constant_in_a_multiply_is_refused():
    with pytest.raises(HpgraphError):
        sr = hp.Semiring(add=hp.monoid.min, multiply=lambda a, b: '"); asm("trap"); //')
        _spmv_source(sr[np.float32])


EVIL = '0); asm("trap"); //'


def test_captured_string_in_a_multiply_is_refused():
    def mul(a, b):
        return a + EVIL

    with pytest.raises(HpgraphError):
        sr = hp.Semiring(add=hp.monoid.min, multiply=mul)
        _spmv_source(sr[np.float32])


def test_function_name_of_a_multiply_cannot_close_its_comment():
    def mul(a, b):
        return a + b

    mul.__name__ = PAYLOAD
    src, _ = _spmv_source(hp.Semiring(add=hp.monoid.min, multiply=mul)[np.float32])
    _assert_clean(src)


@pytest.mark.parametrize("identity", ['0); asm("trap"); //', "inf\n#error injected", [0.0], object()])
def test_monoid_identity_must_be_a_number(identity):
    with pytest.raises(InvalidValue, match="identity"):
        m = hp.Monoid(lambda a, b: min(a, b), identity=identity)
        _spmv_source(hp.Semiring(add=m, multiply=lambda a, b: a + b)[np.float32])


def _graph():
    return hp.Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], backend="cpu")


@pytest.mark.parametrize("attr", ["priority", "witness"])
@pytest.mark.parametrize("name", ["dist\n#error injected\n", "dist); asm(\"trap\"); //", "nope"])
def test_priority_and_witness_name_a_declared_property(attr, name):
    props = {"dist": ("float32", np.inf), "pred": ("int64", -1)}
    with pytest.raises(InvalidProgram, match=attr):  # refused when the class is defined
        P = type("P", (SSSP,), {"properties": props, attr: name})
        hp.run(P, _graph(), source=0, backend="cpu")


@pytest.mark.parametrize("dtype", ["float32\n#error injected\n", "float32); asm(\"trap\"); //", "object"])
def test_property_dtype_must_be_a_known_type(dtype):
    with pytest.raises(InvalidProgram, match="dtype"):  # refused when the class is defined
        P = type("P", (SSSP,), {"properties": {"dist": (dtype, np.inf)}})
        hp.run(P, _graph(), source=0, backend="cpu")
