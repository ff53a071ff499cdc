"""dtype table: lookups, C names and literals, promotion and the index dtype rule."""

import numpy as np
import pytest

from hpgraph import dtypes
from hpgraph.exceptions import DomainMismatch


@pytest.mark.parametrize("alias, expected", [
    ("float32", np.float32), ("f32", np.float32), ("FP32", np.float32), ("FP64", np.float64),
    ("INT64", np.int64), ("u8", np.uint8), ("bool", np.bool_), (bool, np.bool_), (int, np.int64),
    (float, np.float64), (np.dtype(np.int16), np.int16), (np.uint32, np.uint32),
])
def test_lookup(alias, expected):
    assert dtypes.lookup_dtype(alias) == np.dtype(expected)


@pytest.mark.parametrize("bad", [np.complex64, "complex128", "S4", object, "nonsense"])
def test_lookup_rejects(bad):
    with pytest.raises(DomainMismatch, match="expected one of"):
        dtypes.lookup_dtype(bad)


def test_every_dtype_has_c_name_and_short_name():
    names = {dtypes.short_name(d) for d in dtypes.ALL_DTYPES}
    assert len(names) == len(dtypes.ALL_DTYPES)
    assert dtypes.c_type(np.float32) == "float" and dtypes.c_type(np.uint64) == "unsigned long long"
    assert dtypes.c_type(np.int8) == "signed char"


def test_c_literals():
    assert dtypes.c_literal(np.inf, np.float32) == "__int_as_float(0x7f800000)"
    assert dtypes.c_literal(-np.inf, np.float32) == "__int_as_float(0xff800000U)"
    assert "0x7ff0000000000000" in dtypes.c_literal(np.inf, np.float64)
    assert dtypes.c_literal(1, np.float64) == "(1.0)"
    assert dtypes.c_literal(0.1, np.float32) == f"({float(np.float32(0.1))!r}f)"
    assert dtypes.c_literal(np.iinfo(np.int64).min, np.int64) == "(-9223372036854775807LL - 1LL)"
    assert dtypes.c_literal(np.iinfo(np.int32).min, np.int32) == "(-2147483647 - 1)"
    assert dtypes.c_literal(2**64 - 1, np.uint64) == "18446744073709551615ULL"
    assert dtypes.c_literal(True, np.bool_) == "true"
    with pytest.raises(DomainMismatch, match="does not fit"):
        dtypes.c_literal(300, np.uint8)


def test_result_type_and_index_dtype():
    assert dtypes.result_type(np.int32, np.float32) == np.float64
    assert dtypes.result_type(None, np.float32) == np.float32
    assert dtypes.result_type() == np.bool_
    assert dtypes.index_dtype(10, 2**31 - 2) == np.int32
    assert dtypes.index_dtype(2**31 - 1) == np.int64
    assert dtypes.index_dtype(5, 2**40) == np.int64


def test_literals_compile_with_nvrtc():
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    from hpgraph import backend

    body = []
    for i, d in enumerate(dtypes.ALL_DTYPES):
        vals = [0, 1] if d.kind == "b" else (
            [np.inf, -np.inf, np.nan, 0.5] if d.kind == "f" else [np.iinfo(d).min, np.iinfo(d).max])
        for j, v in enumerate(vals):
            body.append(f"  {dtypes.c_type(d)} v{i}_{j} = {dtypes.c_literal(v, d)}; (void)v{i}_{j};")
    src = 'extern "C" __global__ void hp_literals() {\n' + "\n".join(body) + "\n}\n"
    assert "hp_literals" in backend.compile_ptx(src, "literals.cu")
