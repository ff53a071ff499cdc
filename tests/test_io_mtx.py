"""hpgraph's own Matrix Market reader against SciPy's ``mmread`` on valid files.

SciPy writes the files (every field, symmetry and both layouts, with explicit zeros, comments
and CRLF line ends) and reads them back as the oracle; hpgraph must give the same matrix.
SciPy's reader only ever sees files SciPy wrote: hpgraph never hands it user bytes.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import scipy.io
import scipy.sparse as sp

import hpgraph as hp
from hpgraph import io as hio

DATA = os.environ.get("HPGRAPH_DATA", "/work/shared/data")


def _random(rng, n, field, symmetry):
    m = int(rng.integers(0, 3 * n + 1))
    r = rng.integers(0, n, m)
    c = rng.integers(0, n, m)
    if symmetry != "general":
        r, c = np.maximum(r, c), np.minimum(r, c)
        if symmetry == "skew-symmetric":
            keep = r != c
            r, c = r[keep], c[keep]
    if field == "integer":
        v = rng.integers(-5, 6, r.size).astype(np.int64)
    else:
        v = np.round(rng.normal(size=r.size), 3)
    A = sp.coo_array((v, (r, c)), shape=(n, n)).tocsr()
    A.sum_duplicates()
    if symmetry == "symmetric":
        A = sp.tril(A, format="csr")
    return A


def _as_matrix(el, n):
    """The full matrix an EdgeList stands for (both triangles of an undirected one)."""
    r, c = el.src, el.dst
    v = np.ones(r.size) if el.weights is None else el.weights.astype(np.float64)
    if not el.directed:
        off = r != c
        r, c, v = np.concatenate([r, c[off]]), np.concatenate([c, r[off]]), np.concatenate([v, v[off]])
    return sp.coo_array((v, (r, c)), shape=(n, n)).toarray()


@pytest.mark.parametrize("layout", ["coordinate", "array"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric", "skew-symmetric"])
@pytest.mark.parametrize("field", ["real", "integer", "pattern"])
@pytest.mark.parametrize("crlf", [False, True])
def test_matches_scipy_mmread(tmp_path, layout, symmetry, field, crlf):
    if field == "pattern" and (layout == "array" or symmetry == "skew-symmetric"):
        pytest.skip("not a valid Matrix Market combination")
    rng = np.random.default_rng(hash((layout, symmetry, field)) % 2**32)
    for n in (1, 2, 7, 30):
        A = _random(rng, n, "integer" if field == "integer" else "real", symmetry)
        buf = io.BytesIO()
        target = A.toarray() if layout == "array" else A
        if symmetry == "skew-symmetric":
            target = target - target.T if layout == "array" else (A - A.T).tocoo()
        elif symmetry == "symmetric":
            target = target + target.T - np.diag(np.diag(target)) if layout == "array" else \
                (A + A.T - sp.diags(A.diagonal())).tocoo()
        scipy.io.mmwrite(buf, target, comment="a comment\nsecond line", field=field, symmetry=symmetry)
        data = buf.getvalue()
        if crlf:
            data = data.replace(b"\n", b"\r\n")
        p = tmp_path / f"m{n}.mtx"
        p.write_bytes(data)
        want = scipy.io.mmread(io.BytesIO(data))
        want = want.toarray() if sp.issparse(want) else np.asarray(want)
        if field == "pattern":
            want = (want != 0).astype(np.float64) if not sp.issparse(want) else want
        el = hio.read_edges(p)
        got = _as_matrix(el, n)
        if layout == "coordinate":
            # stored zeros are edges for hpgraph and entries for scipy: compare patterns too
            S = scipy.io.mmread(io.BytesIO(data), spmatrix=False).tocoo()
            assert el.num_edges == (S.nnz if el.directed else int((S.row >= S.col).sum()))
        np.testing.assert_array_equal(got, want)
        assert el.directed == (symmetry != "symmetric")
        assert (el.weights is None) == (el.meta["field"] == "pattern")
        if el.meta["field"] == "integer":  # (scipy writes an empty integer matrix as real)
            assert el.weights.dtype == np.int64


def test_delaunay_file_matches_scipy():
    path = os.path.join(DATA, "delaunay_n16.mtx.gz")
    if not os.path.exists(path):
        pytest.skip("shared data not present")
    G = hp.read(path, backend="cpu")
    M = sp.csr_array(scipy.io.mmread(path, spmatrix=False))
    want = (M + M.T - sp.diags(M.diagonal())).astype(bool).astype(np.int8)
    got = G.to_scipy().astype(bool).astype(np.int8)
    assert (got != want).nnz == 0
    assert not G.directed and G.num_vertices == M.shape[0]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from([b"1 2 3", b"", b" ", b"\t", b"%c", b" %c", b"\r", b"4 5 6 ", b"\x0b7 8 9",
                                 b"1 2 % trailing"]), max_size=12),
       st.sampled_from([b"\n", b"\r\n"]))
def test_data_line_count_shortcut_equals_the_line_scan(lines, newline):
    """The vectorised count of data lines (no '%', no line starting with a blank) agrees with the
    line-by-line scan on bodies with blank, blank-led, comment and CR lines."""
    from hpgraph.io._mtx import _count_data_lines, _data_lines

    body = newline.join(lines) + newline
    assert _count_data_lines(body) == len(_data_lines(body))
