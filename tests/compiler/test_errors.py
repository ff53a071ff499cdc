"""Unsupported syntax and typing errors quote the user's line with a ``^`` marker."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.compiler import analyze_function, compile_function
from hpgraph.exceptions import UdfTypeError, UnsupportedSyntax

A_LIST = [1, 2, 3]


def _quoted(exc_info, snippet, marked=None):
    """Check the message quotes the line holding ``snippet`` and marks ``marked`` (default:
    the snippet) with carets exactly under it; return the message."""
    msg = str(exc_info.value)
    lines = msg.splitlines()
    assert re.search(r'File ".*test_errors\.py", line \d+, in \S+', msg), msg
    code = [ln for ln in lines if snippet in ln]
    assert code, msg
    code_line = code[0]
    marker = lines[lines.index(code_line) + 1]
    marked = snippet if marked is None else marked
    start = code_line.index(marked)
    assert marker.rstrip() == " " * start + "^" * len(marked), f"\n{code_line}\n{marker}"
    return msg


def test_for_loop():
    def gather(x, y):
        t = 0
        for k in range(3):
            t = t + x
        return t

    with pytest.raises(UnsupportedSyntax) as ei:
        hp.BinaryOp(gather)
    msg = _quoted(ei, "for k in range(3):")
    assert msg.startswith("'for' loops are not supported in hpgraph callbacks\n")
    assert "in gather" in msg


def test_while_and_other_statements():
    def w(x, y):
        while x > 0:
            x = x - 1
        return x

    with pytest.raises(UnsupportedSyntax, match="'while' loops"):
        analyze_function(w)

    def imp(x, y):
        import os  # noqa: F401
        return x

    with pytest.raises(UnsupportedSyntax, match="imports"):
        analyze_function(imp)

    def nested(x, y):
        def g(z):
            return z
        return x

    with pytest.raises(UnsupportedSyntax, match="nested functions"):
        analyze_function(nested)


def test_subscript_marker_column():
    with pytest.raises(UnsupportedSyntax) as ei:
        hp.BinaryOp(lambda x, y: x[0] + y)
    _quoted(ei, "hp.BinaryOp(lambda x, y: x[0] + y)", "x[0]")
    assert "indexing" in str(ei.value)


def test_other_expressions():
    cases = {
        "list comprehensions": lambda x, y: [x for _ in y],
        "nested lambdas": lambda x, y: (lambda z: z)(x),
        "string constants": lambda x, y: "a",
        "the '<<' operator": lambda x, y: x << y,
        "'in' tests": lambda x, y: x in y,
        "'is' comparisons": lambda x, y: x is y,
        "keyword arguments": lambda x, y: round(x, ndigits=2),
        "assignment expressions": lambda x, y: (z := x),
        "f-strings": lambda x, y: f"{x}",
        "None": lambda x, y: None,
        "tuples": lambda x, y: (x, y),
    }
    for what, f in cases.items():
        with pytest.raises(UnsupportedSyntax, match=re.escape(what)):
            analyze_function(f)


def test_attribute_assignment_and_no_return():
    def upd(v, y):
        v.dist = y
        return v

    with pytest.raises(UnsupportedSyntax, match="assigning to attributes") as ei:
        analyze_function(upd)
    _quoted(ei, "v.dist = y", "v.dist")

    def noret(x, y):
        if x > 0:
            return x

    with pytest.raises(UdfTypeError, match="without returning"):
        compile_function(noret, ["int32", "int32"])

    def bare(x, y):
        return

    with pytest.raises(UnsupportedSyntax, match="must return a value"):
        analyze_function(bare)


def test_captured_non_number_names_it():
    with pytest.raises(UdfTypeError) as ei:
        hp.BinaryOp(lambda x, y: x + A_LIST)
    msg = str(ei.value)
    assert "'A_LIST' (a list)" in msg and "by value" in msg
    _quoted(ei, "hp.BinaryOp(lambda x, y: x + A_LIST)", "A_LIST")

    with pytest.raises(UdfTypeError, match="'print'"):
        analyze_function(lambda x, y: print(x))
    with pytest.raises(UdfTypeError, match="not defined"):
        analyze_function(lambda x, y: x + undefined_name)  # noqa: F821

    def helper(z):
        return z

    with pytest.raises(UdfTypeError, match="inline"):
        analyze_function(lambda x, y: helper(x))


def test_typing_errors_are_quoted():
    def f(x, y):
        t = x + 1
        return t * 1000

    with pytest.raises(UdfTypeError) as ei:
        compile_function(f, {"x": "int8", "y": "int8"})
    _quoted(ei, "return t * 1000", "t * 1000")

    def g(x, y):
        if x > 0:
            t = x
        return t

    with pytest.raises(UdfTypeError, match="may be undefined"):
        compile_function(g, ["float32", "float32"])

    def h(x, y):
        return ~x

    with pytest.raises(UdfTypeError, match="use 'not' for bools"):
        compile_function(h, ["bool", "bool"])
    with pytest.raises(UdfTypeError, match="at least two"):
        compile_function(lambda x, y: min(x), ["int32", "int32"])
    with pytest.raises(UdfTypeError, match="math.sqrt\\(\\) takes 1 argument"):
        compile_function(lambda x, y: math.sqrt(x, y), ["float32", "float32"])
    with pytest.raises(UdfTypeError, match="constant expression fails"):
        compile_function(lambda x, y: x + 1 // 0, ["int32", "int32"])
    with pytest.raises(UdfTypeError, match="math.gamma is not supported"):
        compile_function(lambda x, y: math.gamma(x), ["float32", "float32"])


def test_argument_type_errors():
    with pytest.raises(UdfTypeError, match="no dtype given for parameter 'y'"):
        compile_function(lambda x, y: x + y, {"x": np.float32})
    with pytest.raises(UdfTypeError, match="not scalar parameters"):
        compile_function(lambda x, y: x + y, {"x": np.float32, "y": np.float32, "z": np.int8})
    with pytest.raises(UdfTypeError, match="not a parameter"):
        compile_function(lambda x, y: x + y, ["int8", "int8"], views={"q": {"a": "int8"}})
    with pytest.raises(UnsupportedSyntax, match=r"\*args"):
        analyze_function(lambda *a: a)
    with pytest.raises(hp.exceptions.DomainMismatch):
        compile_function(lambda x, y: x + y, ["complex64", "complex64"])


def test_error_is_a_syntax_error_subclass():
    # `except SyntaxError` keeps working, and the message has no "(file, line)" suffix added
    with pytest.raises(SyntaxError) as ei:
        analyze_function(lambda x, y: [x])
    assert not str(ei.value).rstrip().endswith(")")
    assert ei.value.hp_lineno > 0
