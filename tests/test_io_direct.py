"""The direct pyarrow parse of large files (hpgraph/io/_direct.py), the host counting sort of the
CSR build, and the streamed, atomic writers.

Every file is read twice, with the direct parse forced (``hp.config["io_direct_min_bytes"] = 0``) and with it
off: both must give the same edges (ids, values, dtypes, size, direction) or the same typed
error, and the edges must equal an independent oracle (``scipy.io.mmread``, pandas).
"""

from __future__ import annotations

import gzip
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import hpgraph as hp
from hpgraph.exceptions import FileFormatError, HpgraphError
from hpgraph.formats import _build
from hpgraph.io import _arrow, _direct, _writers
from hpgraph.io import read_edges as hp_read_edges

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")


def _both(path, monkeypatch, **kw):
    """(direct result, reference result): EdgeLists or the typed errors; also checks that the
    direct path really parsed the file when it gave an EdgeList."""
    out = []
    for threshold in (0, 1 << 62):
        try:
            with hp.config.set(io_direct_min_bytes=threshold):
                out.append(hp_read_edges(path, **kw))
        except HpgraphError as exc:
            out.append(exc)
    return out


def _same_edges(a, b):
    assert a.num_vertices == b.num_vertices and a.directed == b.directed
    assert a.src.dtype == b.src.dtype == np.int64 and a.dst.dtype == np.int64
    np.testing.assert_array_equal(a.src, b.src)
    np.testing.assert_array_equal(a.dst, b.dst)
    if a.weights is None:
        assert b.weights is None
    else:
        assert a.weights.dtype == b.weights.dtype
        np.testing.assert_array_equal(a.weights, b.weights)


def _direct_used(path, **kw):
    from hpgraph.io._files import _Progress

    with hp.config.set(io_direct_min_bytes=0):
        return _direct.read_direct("mtx" if str(path).endswith(".mtx") else "edgelist", path,
                                   weighted=kw.get("weighted"), report=_Progress(False, "x"),
                                   sniff=True) is not None


def _mtx_text(field, symmetry, r, c, vals, n, newline="\n", sep=" ", header_comments=1):
    lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}"]
    lines += [f"% comment {k}" for k in range(header_comments)]
    lines.append(f"{n} {n} {len(r)}")
    for k in range(len(r)):
        row = [str(r[k] + 1), str(c[k] + 1)]
        if vals is not None:
            row.append(repr(float(vals[k])) if field == "real" else str(int(vals[k])))
        lines.append(sep.join(row))
    return newline.join(lines) + newline


@pytest.mark.parametrize("field", ["real", "integer", "pattern"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric", "skew-symmetric", "hermitian"])
@pytest.mark.parametrize("layout", ["plain", "crlf", "tabs", "long-header"])
def test_mtx_direct_matches_reference_and_scipy(tmp_path, monkeypatch, field, symmetry, layout):
    if field == "pattern" and symmetry == "skew-symmetric":
        pytest.skip("not a Matrix Market combination")
    rng = np.random.default_rng(7)
    n, m = 50, 400
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if symmetry != "general":
        r, c = np.maximum(r, c), np.minimum(r, c)
        if symmetry == "skew-symmetric":
            keep = r != c
            r, c = r[keep], c[keep]
    # duplicates (summed by SciPy) and self-loops are kept in the text
    vals = {"real": rng.random(len(r)) * 10 - 5, "integer": rng.integers(-9, 10, len(r)),
            "pattern": None}[field]
    text = _mtx_text(field, symmetry, r, c, vals, n, newline="\r\n" if layout == "crlf" else "\n",
                     sep="\t" if layout == "tabs" else " ",
                     header_comments=5000 if layout == "long-header" else 1)
    path = tmp_path / "g.mtx"
    path.write_text(text)
    a, b = _both(path, monkeypatch)
    _same_edges(a, b)
    assert _direct_used(path) == (layout != "long-header")
    ref = sp.coo_array(scipy.io.mmread(path)).tocsr()
    G = hp.read(path, backend="cpu", duplicates="sum").to_scipy()
    if field == "pattern":
        ref.data[:] = 1  # SciPy counts duplicate pattern entries; the graph stores one
        G.data[:] = 1
    assert G.shape == ref.shape and abs(G - ref).max() < 1e-9 if G.nnz else ref.nnz == 0


def _el_text(src, dst, w, *, sep="\t", header="# Directed graph\n", kind="i"):
    rows = []
    for k in range(len(src)):
        row = [str(src[k]), str(dst[k])]
        if w is not None:
            row.append(str(int(w[k])) if kind == "i" else repr(float(w[k])))
        rows.append(sep.join(row))
    return header + "\n".join(rows) + "\n"


@pytest.mark.parametrize("sep", ["\t", " ", ","])
@pytest.mark.parametrize("weights", [None, "i", "f", "late-float"])
@pytest.mark.parametrize("header", ["", "# Undirected graph\n# hpgraph: num_vertices=90\n",
                                    "% comment\n\n# Directed graph\n"])
def test_edgelist_direct_matches_reference_and_pandas(tmp_path, monkeypatch, sep, weights, header):
    rng = np.random.default_rng(11)
    m = 500
    src, dst = rng.integers(0, 80, m), rng.integers(0, 80, m)
    src[:3] = dst[:3]  # self-loops
    src[3:6], dst[3:6] = src[0], dst[0]  # duplicates
    w = None if weights is None else rng.integers(-50, 50, m)
    text = _el_text(src, dst, w, sep=sep, header=header, kind="i")
    if weights == "f":
        text = _el_text(src, dst, w + 0.25, sep=sep, header=header, kind="f")
    elif weights == "late-float":  # integers first, one decimal near the end: float64 weights
        lines = text.splitlines()
        lines[-2] = lines[-2] + ".5"
        text = "\n".join(lines) + "\n"
    path = tmp_path / ("g.csv" if sep == "," else "g.el")
    path.write_text(text)
    a, b = _both(path, monkeypatch)
    _same_edges(a, b)
    assert _direct_used(path)
    df = pd.read_csv(path, sep=sep, comment=None, header=None, skiprows=header.count("\n"),
                     dtype={0: np.int64, 1: np.int64})
    np.testing.assert_array_equal(a.src, df[0].to_numpy())
    np.testing.assert_array_equal(a.dst, df[1].to_numpy())
    if weights is not None:
        np.testing.assert_array_equal(a.weights, df[2].to_numpy())
        assert a.weights.dtype == (np.int64 if weights == "i" else np.float64)
    assert a.num_vertices == max(int(df[[0, 1]].to_numpy().max()) + 1, 90 if "90" in header else 0)
    assert a.directed == ("Undirected" not in header)
    # dropped weights: the direct parse steps aside (3 columns, 2 used), the result agrees
    a, b = _both(path, monkeypatch, weighted=False)
    _same_edges(a, b)
    assert a.weights is None


@pytest.mark.parametrize("name,text", [
    ("comment-in-body.el", "0 1\n1 2\n# late comment\n2 3\n"),
    ("inline-comment.el", "0 1 # first\n1 2\n"),
    ("negative.el", "0 1\n-1 2\n"),
    ("big-id.el", "0 1\n1 4000000000\n"),
    ("over-hint.el", "# hpgraph: num_vertices=3\n0 1\n1 5\n"),
    ("ragged.el", "0 1 2\n1 2\n"),
    ("word.el", "0 1\n1 x\n"),
    ("nul.el", "0 1\n1 2\x00\n"),
    ("leading-blank.el", " 0 1\n1 2\n"),
    ("empty-lines.el", "0 1\n\n\n1 2\n"),
    ("out-of-range.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n4 1\n"),
    ("zero-index.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n0 1\n"),
    ("truncated.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1.0\n2 1 2.0\n"),
    ("too-long.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1.0\n2 1 2.0\n"),
    ("lying-size.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 999999999999\n1 2 1.0\n"),
    ("comment-in-body.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n% c\n2 1 2.0\n"),
    ("decimal-integer.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n2 1 2.5\n"),
    ("bad-banner.mtx", "%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 2 1.0 0.0\n"),
    ("bad-size.mtx", "%%MatrixMarket matrix coordinate real general\n3 x 1\n1 2 1.0\n"),
    ("array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n2\n"),
    ("nul.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n2 1\x00 2.0\n"),
    ("mtx-banner.el", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n"),
    ("lone-cr.el", "0 1\n1 2\r2 3\n"),
    ("lone-cr.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\r2 1 2.0\n"),
    ("lone-cr-pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\r2 1\n"),
    ("crlf-then-lone-cr.el", "0 1\r\n1 2\r\n2 3\r3 0\r\n"),
])
def test_odd_and_malformed_files_agree(tmp_path, monkeypatch, name, text):
    path = tmp_path / name
    path.write_bytes(text.encode())
    a, b = _both(path, monkeypatch)
    if isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b)
        assert str(path) in str(a)
    else:
        _same_edges(a, b)


def test_gzip_and_empty_files_take_the_reference_path(tmp_path, monkeypatch):
    text = _el_text(np.arange(10), np.arange(1, 11), None)
    gz = tmp_path / "g.el.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    assert not _direct_used(gz)
    a, b = _both(gz, monkeypatch)
    _same_edges(a, b)
    empty = tmp_path / "e.el"
    empty.write_bytes(b"")
    a, b = _both(empty, monkeypatch)
    assert isinstance(a, FileFormatError) and str(a) == str(b)


def test_direct_progress_and_int32_ids_for_the_build(tmp_path, hp_config):
    hp_config(io_direct_min_bytes=0)
    path = tmp_path / "g.el"
    path.write_text(_el_text(np.arange(2000) % 97, np.arange(2000) % 89, np.arange(2000)))
    calls = []
    el = hp_read_edges(path, progress=lambda stage, f: calls.append((stage, f)))
    assert calls and calls[-1] == ("read", 1.0) and el.src.dtype == np.int64
    G = hp.read(path, backend="cpu", duplicates="sum")
    ref = sp.coo_array((np.arange(2000), (np.arange(2000) % 97, np.arange(2000) % 89)), shape=(97, 97)).tocsr()
    assert (G.to_scipy() != ref).nnz == 0


# ---------------------------------------------------------------------------------------------
# the CSR build: SciPy's compiled counting sort against the NumPy scatter and pandas


@pytest.mark.parametrize("duplicates", ["min", "max", "sum", "first", "last", "keep"])
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("wdtype", [None, np.int64, np.float64, np.float32, np.int8, np.bool_])
def test_host_counting_sort_matches_numpy_scatter(monkeypatch, duplicates, directed, wdtype):
    rng = np.random.default_rng(5)
    n, m = 60, 3000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = None if wdtype is None else (rng.random(m) * 20 - 10).astype(wdtype)
    calls = []
    real = _build._host_counting_sort
    monkeypatch.setattr(_build, "_host_counting_sort", lambda *a: calls.append(1) or real(*a))
    fast = hp.Graph.from_edges(src, dst, w, num_vertices=n, directed=directed, duplicates=duplicates,
                               backend="cpu").A
    assert calls
    monkeypatch.setattr(_build, "_host_counting_sort", lambda *a: None)
    slow = hp.Graph.from_edges(src, dst, w, num_vertices=n, directed=directed, duplicates=duplicates,
                               backend="cpu").A
    for x, y in ((fast.indptr, slow.indptr), (fast.indices, slow.indices), (fast.values, slow.values)):
        if x is None:
            assert y is None
        else:
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)
    if directed and w is not None and duplicates != "keep":  # pandas' groupby as the oracle
        df = pd.DataFrame({"r": src, "c": dst, "w": w})
        g = getattr(df.groupby(["r", "c"], sort=True)["w"], duplicates)()
        rows = np.repeat(np.arange(n), np.diff(fast.indptr))
        np.testing.assert_array_equal(rows, g.index.get_level_values(0))
        np.testing.assert_array_equal(fast.indices, g.index.get_level_values(1))
        if np.dtype(wdtype).kind == "f" and duplicates == "sum":
            np.testing.assert_allclose(fast.values, g.to_numpy(), rtol=1e-5)
        else:
            np.testing.assert_array_equal(fast.values, g.to_numpy().astype(wdtype))


def test_build_leaves_the_callers_weights_alone():
    w = np.array([3.0, 1.0, 2.0])
    G = hp.Graph.from_edges(np.array([0, 0, 1]), np.array([1, 1, 2]), w, duplicates="min", backend="cpu")
    assert not np.shares_memory(G.A.values, w)
    w[:] = 99
    assert G.A.values.tolist() == [1.0, 2.0] and w.tolist() == [99.0] * 3


# ---------------------------------------------------------------------------------------------
# writers


def _rmat_graph(weighted=True, directed=True):
    return hp.rmat(10, seed=3, directed=directed, weights=(1, 64) if weighted else None, backend="cpu")


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [True, False])
def test_streamed_edgelist_is_the_same_bytes(tmp_path, directed, weighted):
    G = _rmat_graph(weighted, directed)
    path = tmp_path / "g.el"
    hp.write(G, path, comment="two\nlines")
    el = hp.io.to_edgelist(G)
    assert path.read_bytes() == _writers._write_edgelist(el, path, "two\nlines")
    H = hp.read(path, backend="cpu")
    assert H.directed == directed and (H.to_scipy() != G.to_scipy()).nnz == 0
    body = pd.read_csv(path, sep="\t", comment="#", header=None)
    np.testing.assert_array_equal(body[0].to_numpy(), el.src)
    np.testing.assert_array_equal(body[1].to_numpy(), el.dst)
    if weighted:
        np.testing.assert_array_equal(body[2].to_numpy(), el.weights)


def test_to_edgelist_gives_fresh_writable_arrays():
    G = _rmat_graph()
    el = hp.io.to_edgelist(G)
    assert el.dst.flags.writeable and not np.shares_memory(el.dst, G.A.indices)
    coo = G.to_scipy().tocoo()
    np.testing.assert_array_equal(el.src, coo.row)
    np.testing.assert_array_equal(el.dst, coo.col)
    np.testing.assert_array_equal(el.weights, coo.data)


def test_interrupted_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "g.el"
    path.write_text("0 1\n")
    os.chmod(path, 0o644)

    def fail(table, sep, out, head=b""):
        with open(out, "wb") as f:
            f.write(head[:10])
        raise KeyboardInterrupt

    monkeypatch.setattr(_arrow, "write_rows", fail)
    with pytest.raises(KeyboardInterrupt):
        hp.write(_rmat_graph(), path)
    assert path.read_text() == "0 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.el"]  # no temporary left behind
    monkeypatch.undo()
    hp.write(_rmat_graph(), path)
    umask = os.umask(0)
    os.umask(umask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~umask)
    for name in ("g.mtx", "g.el.gz", "g.npz"):
        hp.write(_rmat_graph(), tmp_path / name)
        assert (hp.read(tmp_path / name, backend="cpu").to_scipy() != _rmat_graph().to_scipy()).nnz == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
