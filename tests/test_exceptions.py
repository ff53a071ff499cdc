"""The exception tree: built-in bases so that ``except ValueError`` keeps working."""

import pytest

from hpgraph import exceptions as ex


@pytest.mark.parametrize("cls, base", [
    (ex.InvalidGraph, ValueError), (ex.InvalidValue, ValueError), (ex.IndexOutOfBound, IndexError),
    (ex.DimensionMismatch, ValueError), (ex.DomainMismatch, TypeError),
    (ex.FileFormatError, ValueError), (ex.DeviceUnavailable, RuntimeError),
    (ex.DeviceOutOfMemory, MemoryError), (ex.CompileError, RuntimeError),
    (ex.UnsupportedSyntax, SyntaxError), (ex.NegativeCycleError, ValueError),
    (ex.ConvergenceError, RuntimeError),
])
def test_bases(cls, base):
    assert issubclass(cls, ex.HpgraphError) and issubclass(cls, base)


def test_file_format_error_names_file_and_line():
    e = ex.FileFormatError("bad token 'x'", path="g.mtx", line=7)
    assert str(e) == "g.mtx:7: bad token 'x'" and e.path == "g.mtx" and e.line == 7
    assert str(ex.FileFormatError("empty", path="g.txt")) == "g.txt: empty"
