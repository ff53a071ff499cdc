"""Nothing a user writes in a vertex program can inject text into the generated CUDA source.

User text reaches the generator through property names, string constants and dict keys in
the callbacks, captured globals, tolerances, the callbacks' function names and the program's
class name.  Each is either refused with a typed error or turned into a plain C identifier or
number; the test looks for the payload in the generated source (no GPU needed).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import program
from hpgraph.compiler import compile_function
from hpgraph.engine import codegen
from hpgraph.exceptions import HpgraphError, InvalidProgram

from examples.sssp import SSSP

PAYLOAD = "\n#error injected\n"
EVIL_NAMES = ["a;b", "a b", "d)\n#error injected\n//", "P_x[0]", "_hidden", "x/*", "1x", "", "a-b", "return"]


def _graph():
    return hp.Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], backend="cpu")


def _source(prog):
    bp = program.bind(prog, _graph(), {})
    return codegen.program_source(bp, np.dtype(np.int32))


@pytest.mark.parametrize("name", EVIL_NAMES)
def test_property_name_must_be_an_identifier(name):
    with pytest.raises(InvalidProgram, match="property name"):
        P = type("P", (SSSP,), {"properties": {name: ("float32", np.inf)}})
        hp.run(P, _graph(), source=0, backend="cpu")


def test_string_constant_in_gather_is_refused():
    class S(hp.VertexProgram):
        properties = {"d": "float32"}
        reduce = "min"

        def gather(src, edge, dst):
            return '"); asm("trap"); //'

        def update(v, y):
            return y

    with pytest.raises(HpgraphError) as info:
        _source(S)
    assert "trap" not in str(getattr(info.value, "source", ""))


def test_dict_key_that_is_not_a_property_is_refused():
    class K(hp.VertexProgram):
        properties = {"d": "float32"}
        reduce = "min"

        def gather(src, edge, dst):
            return src.d + edge

        def update(v, y):
            return {"d\n#error injected\n": y}

    with pytest.raises(HpgraphError):
        _source(K)


EVIL_CAPTURE = '0); asm("trap"); //'


def test_captured_string_is_refused():
    class C(hp.VertexProgram):
        properties = {"d": "float32"}
        reduce = "min"

        def gather(src, edge, dst):
            return src.d + EVIL_CAPTURE

        def update(v, y):
            return y

    with pytest.raises(HpgraphError):
        _source(C)


@pytest.mark.parametrize("tol", ["1e-3); asm(\"trap\"); //", [1e-3], None])
def test_tolerance_is_a_number(tol):
    if tol is None:  # a numeric tolerance is printed as a C number
        P = type("P", (SSSP,), {"tolerance": 1e-3})
        assert "trap" not in _source(P)
        return
    with pytest.raises(InvalidProgram):
        _source(type("P", (SSSP,), {"tolerance": tol}))


def test_function_name_is_sanitised():
    def f(a, b):
        return a + b

    f.__name__ = 'f */ asm("trap"); /*\n#error injected\n'
    cf = compile_function(f, {"a": "float32", "b": "float32"})
    code = re.sub(r"/\*.*?\*/", " ", cf.c_preamble, flags=re.S)  # what the compiler reads
    code = re.sub(r"//[^\n]*", " ", code)
    assert 'asm("trap")' not in code  # (the sanitised C name may spell "asm__trap", an identifier)
    assert not any(line.lstrip().startswith("#error") for line in cf.c_preamble.splitlines())


def test_captured_special_floats_are_c_numbers():
    big = float("inf")

    def g(a):
        return a + big

    cf = compile_function(g, {"a": "float64"})
    assert "inf" not in cf.c_preamble.replace("INFINITY", "").replace("__int_as_float", "").lower() or \
        "INFINITY" in cf.c_preamble or "0x7ff0" in cf.c_preamble.lower()


def test_class_name_cannot_inject_a_line():
    """The class name goes into a comment of the generated module only with characters outside
    [A-Za-z0-9_] replaced (hpgraph/engine/codegen.py)."""
    P = type("X" + PAYLOAD + "//", (SSSP,), {})
    src = _source(P)
    assert not any(line.strip() == "#error injected" for line in src.splitlines())
