"""A fixed corpus of malformed graph files, each read in a worker process.

The first entries took the process down with a segmentation fault when hpgraph handed
Matrix Market bytes to SciPy's native reader (found by ``test_fuzz_files.py`` at 5e1b082: a
NUL byte inside a number, a stray byte after the last entry); a crash of the worker fails
the test instead of killing the test run.  Every file must give a typed error naming it
(``expect="typed"``) or, where the file is valid after all, a graph (``expect="ok"``).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile

import numpy as np
import pytest

from tests.fuzz._harness import FileWorker, check_file

MM = b"%%MatrixMarket matrix coordinate real symmetric\n%written by hpgraph\n6 6 9\n"
MM_BODY = (b"1 1 4.394200796138337E-2\n6 1 1.6021203385784455E-1\n3 2 3.568027877359614E-2\n"
           b"5 2 6.125396042730308E-1\n6 2 5.534973520744925E-1\n4 3 9.889601476818849E-1\n"
           b"6 4 9.955002834343927E-1\n5 5 2.1530869823559895E-1\n6 5 7.926619192137531E-1")
PATTERN = b"%%MatrixMarket matrix coordinate pattern symmetric\n% comment\n\n4 4 3\n2 1\n3 1\n"


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _npz_lying_header():
    """An npz whose src.npy header declares 10^12 entries but holds 16 bytes."""
    hdr = b"{'descr': '<i8', 'fortran_order': False, 'shape': (1000000000000,), }"
    hdr = hdr + b" " * (118 - len(hdr)) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr + np.arange(2).tobytes()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("src.npy", npy)
        z.writestr("dst.npy", npy)
        for name, a in (("num_vertices", np.int64(3)), ("directed", np.bool_(True))):
            b = io.BytesIO()
            np.save(b, a)
            z.writestr(name + ".npy", b.getvalue())
    return buf.getvalue()


CORPUS = [
    # (name, bytes, expect)
    ("nul_in_value.mtx", MM + MM_BODY.replace(b"2.153086982355", b"2.153086982355\x00"), "typed"),
    ("nul_in_value2.mtx", MM + MM_BODY.replace(b"3.568", b"3.568\x00"), "typed"),
    ("trailing_byte.mtx", PATTERN + b"4 4\xa1", "typed"),
    ("trailing_letter.mtx", PATTERN + b"4 4O", "typed"),
    ("trailing_ctrl.mtx", PATTERN + b"4 4\x01", "typed"),
    ("pattern_ok.mtx", PATTERN + b"4 4\n", "ok"),
    ("extra_columns.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 1 5 6 7\n", "typed"),
    ("huge_nnz.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 99999999999\n1 2 1\n", "typed"),
    ("huge_n.mtx", b"%%MatrixMarket matrix coordinate real general\n1000000000000 1000000000000 1\n1 2 1\n",
     "typed"),
    ("huge_array.mtx", b"%%MatrixMarket matrix array real general\n3000000 3000000\n1\n", "typed"),
    ("index_overflow.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 1\n99999999999999999999 3 1\n",
     "typed"),
    ("negative_index.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 1\n-5 3 1\n", "typed"),
    ("array_too_long.mtx", b"%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n7\n8\n", "typed"),
    ("nan_weight.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan\n", "typed"),
    ("int_field_float.mtx", b"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", "typed"),
    ("pattern_skew.mtx", b"%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 1\n1 2\n", "typed"),
    ("huge_id.el", b"0\t1000000000000\n", "typed"),
    ("huge_hint.el", b"# hpgraph: num_vertices=1000000000000\n0 1\n", "typed"),
    ("int64_overflow.el", b"0 9223372036854775808\n", "typed"),
    ("binary.el", bytes(range(256)), "typed"),
    ("huge_n.gr", b"p sp 1000000000000 1\na 1 2 1\n", "typed"),
    ("huge_n.lg", b"1000000000000,1,d,g\n1,2\n", "typed"),
    ("truncated.mtx.gz", gzip.compress(PATTERN + b"4 4\n", mtime=0)[:-9], "typed"),
    ("truncated.el.bz2", bz2.compress(b"0 1\n1 2\n" * 100)[:-12], "typed"),
    ("truncated.el.xz", lzma.compress(b"0 1\n1 2\n" * 100)[:-12], "typed"),
    ("garbage.mtx.gz", b"\x1f\x8b" + b"\x00" * 40, "typed"),
    ("pickle.npz", _npz(src=np.array([0], dtype=object), dst=np.array([1]), num_vertices=2, directed=True),
     "typed"),
    ("lying_header.npz", _npz_lying_header(), "typed"),
    ("not_zip.npz", b"PK\x03\x04" + b"\x00" * 60, "typed"),
    ("npy_not_npz.npz", b"\x93NUMPY\x01\x00\x10\x00{'descr': '<i8'}\n", "typed"),
    ("string_weights.npz", _npz(src=np.array([0]), dst=np.array([1]), weights=np.array(["x"]),
                                num_vertices=2, directed=True), "typed"),
    ("huge_n.npz", _npz(src=np.array([0]), dst=np.array([1]), num_vertices=np.int64(10**12), directed=True),
     "typed"),
    ("array_n.npz", _npz(src=np.array([0]), dst=np.array([1]), num_vertices=np.arange(3), directed=True),
     "typed"),
]


@pytest.fixture(scope="module")
def worker():
    w = FileWorker()
    yield w
    w.close()


@pytest.mark.parametrize("name,content,expect", CORPUS, ids=[c[0] for c in CORPUS])
def test_malformed_file(tmp_path, worker, name, content, expect):
    p = tmp_path / name
    p.write_bytes(content)
    res = check_file(worker, name, p, content)
    assert res["kind"] == expect, res
