"""The fast_matrix_market parse of integer and pattern Matrix Market bodies (hpgraph/io/_fmm.py).

Each file is read with the direct paths forced (``io_direct_min_bytes = 0``: fast_matrix_market
first, then pyarrow) and with them off (the reference reader): both must give the same edges
or the same typed error, and accepted files must equal ``scipy.io.mmread`` (the oracle).  The
files fast_matrix_market would read differently from the strict reader (text after the last
token, a carriage return as a separator, a glued ``-0``) must not be taken by the fast path.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import hpgraph as hp
from hpgraph.exceptions import HpgraphError
from hpgraph.io import _fmm, _mtx
from hpgraph.io import read_edges as hp_read_edges

pytest.importorskip("scipy.io._fast_matrix_market._fmm_core")

HEAD = "%%MatrixMarket matrix coordinate {field} {symmetry}\n% comment\n{n} {n} {m}\n"


def _both(path):
    out = []
    for threshold in (0, 1 << 62):
        with hp.config.set(io_direct_min_bytes=threshold):
            try:
                out.append(hp_read_edges(path))
            except HpgraphError as exc:
                out.append(exc)
    return out


def _same(a, b):
    if isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b)
        return
    assert not isinstance(a, Exception), a
    assert (a.num_vertices, a.directed) == (b.num_vertices, b.directed)
    np.testing.assert_array_equal(a.src, b.src)
    np.testing.assert_array_equal(a.dst, b.dst)
    if b.weights is None:
        assert a.weights is None
    else:
        assert a.weights.dtype == b.weights.dtype
        np.testing.assert_array_equal(a.weights, b.weights)


def _fast(path):
    """What the fast path returns for ``path`` (None where it steps aside)."""
    data = path.read_bytes()
    head = data[:1 << 16]
    head = head[:head.rfind(b"\n") + 1]
    fmt, fld, sym = _mtx.banner(head, path)
    start, lineno, n, nnz = _mtx.size_line(head, path, fmt)
    got = _fmm.read_coordinate(path, head, start, lineno, n, nnz, fld, sym, np.int32)
    if got is None:
        return None
    r, c, w, exact = got
    return (r, c, w) if exact() else None


def _outcome(fn):
    try:
        G = fn()
    except HpgraphError as exc:
        return type(exc), str(exc)
    A = G.to_scipy()
    return G.num_vertices, G.directed, A.indptr.tolist(), A.indices.tolist(), A.data.tolist()


def _same_read(path, **kw):
    """hp.read with the fast parse (its check overlapping the build) and without it agree."""
    out = []
    for threshold in (0, 1 << 62):
        with hp.config.set(io_direct_min_bytes=threshold):
            out.append(_outcome(lambda: hp.read(path, backend="cpu", **kw)))
    assert out[0] == out[1]


def _text(field, symmetry, r, c, w, n):
    body = "".join(f"{r[k] + 1} {c[k] + 1}" + ("" if w is None else f" {w[k]}") + "\n"
                   for k in range(len(r)))
    return HEAD.format(field=field, symmetry=symmetry, n=n, m=len(r)) + body


@pytest.mark.parametrize("field", ["integer", "pattern"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric", "skew-symmetric", "hermitian"])
def test_fast_path_reads_what_scipy_reads(tmp_path, field, symmetry):
    if field == "pattern" and symmetry == "skew-symmetric":
        pytest.skip("not a Matrix Market combination")
    rng = np.random.default_rng(3)
    n, m = 1200, 3000  # ids and weights of one to five digits
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if symmetry != "general":
        r, c = np.maximum(r, c), np.minimum(r, c)
        keep = r != c if symmetry == "skew-symmetric" else slice(None)
        r, c = r[keep], c[keep]
    r[:2], c[:2] = n - 1, 0  # a duplicate, at the largest id
    w = None if field == "pattern" else rng.integers(1, 100_000, len(r))
    path = tmp_path / "g.mtx"
    path.write_text(_text(field, symmetry, r, c, w, n))
    got = _fast(path)
    assert got is not None
    np.testing.assert_array_equal(got[0], r)
    np.testing.assert_array_equal(got[1], c)
    if w is not None:
        np.testing.assert_array_equal(got[2], w)
    a, b = _both(path)
    _same(a, b)
    ref = sp.coo_array(scipy.io.mmread(path)).tocsr()  # duplicates summed, symmetry expanded
    G = hp.read(path, backend="cpu", duplicates="sum").to_scipy()
    if field == "pattern":
        ref.data[:] = 1  # SciPy counts repeated pattern entries; the graph stores one edge
    assert G.shape == ref.shape and (G != ref).nnz == 0


def test_large_file_goes_through_the_fast_path(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    n, m = 5000, 120_000  # over io_direct_min_bytes
    r, c, w = rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 65, m)
    path = tmp_path / "big.mtx"
    path.write_text(_text("integer", "general", r, c, w, n))
    assert path.stat().st_size > hp.config["io_direct_min_bytes"]
    calls = []
    real = _fmm.read_coordinate
    monkeypatch.setattr(_fmm, "read_coordinate", lambda *a: calls.append(real(*a)) or calls[-1])
    G = hp.read(path, backend="cpu", duplicates="sum")
    assert len(calls) == 1 and calls[0] is not None
    assert (G.to_scipy() != scipy.io.mmread(path).tocsr()).nnz == 0


P = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n"
I = "%%MatrixMarket matrix coordinate integer general\n3 3 2\n"


@pytest.mark.parametrize("name,text,fast", [
    ("plain", I + "1 2 5\n2 3 7\n", True),
    ("tabs", I + "1\t2\t5\n2 3 7\n", True),  # a tab is a separator to both readers
    ("glued-minus-and-junk", I + "1 2-5\n2 3 7x\n", False),
    ("junk-after-value", I + "1 2 5 6\n2 3 7\n", False),
    ("decimal-in-integer", I + "1 2 1.5\n2 3 7\n", False),
    ("cr-separator", I + "1 2\r5\n2 3 7\n", False),
    ("crlf", I + "1 2 5\r\n2 3 7\r\n", False),
    ("glued-minus-zero", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2-0\n2 3 77\n", False),
    ("zero-weight", I + "1 2 0\n2 3 7\n", False),
    ("negative-weight", I + "1 2 -5\n2 3 7\n", False),
    ("leading-zero", I + "01 2 5\n2 3 7\n", False),
    ("blank-line", I + "1 2 5\n\n2 3 7\n", False),
    ("no-final-newline", I + "1 2 5\n2 3 7", False),
    ("trailing-letter", P + "1 2\n3 3O", False),
    ("nul", I + "1 2 5\x00\n2 3 7\n", False),
    ("nul-in-comment", "%%MatrixMarket matrix coordinate integer general\n%\x00\n3 3 2\n1 2 5\n2 3 7\n", False),
    ("blank-header-line", "%%MatrixMarket matrix coordinate integer general\n\n3 3 2\n1 2 5\n2 3 7\n", False),
    ("too-few-entries", "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 5\n2 3 7\n", False),
    ("too-many-entries", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 5\n2 3 7\n", False),
    ("lying-size", "%%MatrixMarket matrix coordinate integer general\n3 3 999999999999\n1 2 5\n", False),
    ("out-of-range", I + "1 2 5\n4 3 7\n", False),
    ("zero-index", I + "1 2 5\n0 3 7\n", False),
    ("int64-overflow", I + "1 2 5\n2 3 99999999999999999999\n", False),
    ("real-field", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 5\n2 3 7\n", False),
    ("pattern-extra-column", P + "1 2\n2 3 4\n", False),
    ("pattern-plain", P + "1 2\n2 3\n", True),
])
def test_fast_path_steps_aside_where_the_strict_reader_differs(tmp_path, name, text, fast):
    path = tmp_path / f"{name}.mtx"
    path.write_bytes(text.encode())
    try:
        got = _fast(path)
    except HpgraphError:  # the head itself is bad: the readers raise before any parse
        got = None
    assert (got is not None) == fast
    a, b = _both(path)
    _same(a, b)
    if isinstance(b, Exception):
        assert str(path) in str(b)
    for kw in ({}, {"weighted": True}, {"duplicates": "bogus"}, {"directed": True}):
        _same_read(path, **kw)


def test_without_scipys_module_the_fast_path_steps_aside(tmp_path, monkeypatch):
    path = tmp_path / "g.mtx"
    path.write_bytes((I + "1 2 5\n2 3 7\n").encode())
    import scipy.io._fast_matrix_market as fmm_package

    monkeypatch.delattr(fmm_package, "_fmm_core")  # an older SciPy: the import fails
    monkeypatch.setitem(sys.modules, "scipy.io._fast_matrix_market._fmm_core", None)
    assert _fast(path) is None
    a, b = _both(path)
    _same(a, b)


def test_canonical_length_counts_digits_at_every_boundary():
    ids = np.array([0, 8, 9, 98, 99, 999, 1000, 99_999], dtype=np.int32)  # 1-based: 1 .. 100000
    w = np.array([1, 9, 10, 99, 100, 10**12, 10**18, 9], dtype=np.int64)
    text = "".join(f"{i + 1} {j + 1} {v}\n" for i, j, v in zip(ids, ids[::-1], w))
    assert _fmm._canonical_bytes(ids, ids[::-1].copy(), w, 100_000) == len(text)
    text = "".join(f"{i + 1} {j + 1}\n" for i, j in zip(ids, ids[::-1]))
    assert _fmm._canonical_bytes(ids, ids[::-1].copy(), None, 100_000) == len(text)
