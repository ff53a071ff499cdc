"""The pyarrow fast path of the text readers (hpgraph/io/_arrow.py): on plain rows it gives what
the loadtxt parse and SciPy / pandas give; on anything else it steps aside, so a file gets the
same graph or the same typed error with or without pyarrow."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import hpgraph as hp
from hpgraph.exceptions import HpgraphError
from hpgraph.io import _arrow

pa = pytest.importorskip("pyarrow")


@pytest.fixture
def arrow_always(hp_config):
    hp_config(io_arrow_min_bytes=0)


PARSED = []  # what pyarrow's parse returned in the last _read_both (None: it stepped aside)


def _read_both(path, monkeypatch, **kw):
    """(graph or exception) with pyarrow's parse and with loadtxt alone."""
    out = []
    PARSED.clear()
    real = _arrow.parse_columns
    monkeypatch.setattr(_arrow, "parse_columns", lambda *a, **k: PARSED.append(real(*a, **k)) or PARSED[-1])
    for threshold in (0, 1 << 62):
        try:
            with hp.config.set(io_arrow_min_bytes=threshold):
                out.append(hp.read(path, backend="cpu", **kw).to_scipy())
        except HpgraphError as exc:
            out.append(exc)
    return out


def _same(a, b):
    return a.shape == b.shape and (sp.csr_array(a) != sp.csr_array(b)).nnz == 0


@pytest.mark.parametrize("field", ["real", "integer", "pattern"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_mtx_plain_rows_match_scipy(tmp_path, monkeypatch, field, symmetry, newline):
    rng = np.random.default_rng(3)
    n, m = 40, 300
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if symmetry == "symmetric":
        r, c = np.maximum(r, c), np.minimum(r, c)
    key = np.unique(r * n + c)
    r, c = key // n, key % n
    vals = {"real": rng.random(len(r)) * 10 - 5, "integer": rng.integers(-9, 10, len(r)),
            "pattern": None}[field]
    lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}", "% a comment", f"{n} {n} {len(r)}"]
    for k in range(len(r)):
        tail = "" if vals is None else f" {float(vals[k])!r}" if field == "real" else f" {vals[k]}"
        lines.append(f"{r[k] + 1} {c[k] + 1}{tail}")
    path = tmp_path / "g.mtx"
    path.write_bytes(newline.join(lines).encode() + newline.encode())
    fast, slow = _read_both(path, monkeypatch)
    assert PARSED and PARSED[0] is not None  # plain rows: pyarrow parsed them
    assert _same(fast, slow)
    expected = sp.csr_array(scipy.io.mmread(path)).toarray()  # symmetric: both triangles
    if field == "pattern":
        expected = (expected != 0).astype(float)
    dense = fast.toarray()
    if field == "pattern":
        dense = (dense != 0).astype(float)
    np.testing.assert_array_equal(dense, expected)


@pytest.mark.parametrize("sep", ["\t", " ", ","])
@pytest.mark.parametrize("weights", ["int", "float", None])
def test_edgelist_plain_rows_match_pandas(tmp_path, monkeypatch, sep, weights):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    m = 500
    df = pd.DataFrame({"u": rng.integers(0, 60, m), "v": rng.integers(0, 60, m)})
    if weights == "int":
        df["w"] = rng.integers(1, 64, m)
    elif weights == "float":
        df["w"] = rng.random(m)
    path = tmp_path / ("g.csv" if sep == "," else "g.el")
    text = "# Directed graph\n# a header line\n" + df.to_csv(sep=sep, header=False, index=False)
    path.write_text(text)
    fast, slow = _read_both(path, monkeypatch)
    assert PARSED and PARSED[0] is not None  # plain rows: pyarrow parsed them
    assert _same(fast, slow)
    n = int(df[["u", "v"]].to_numpy().max()) + 1
    w = df["w"].to_numpy() if weights else np.ones(m)
    # duplicates merged by min, hp.read's default policy
    order = np.lexsort((w, df["v"].to_numpy(), df["u"].to_numpy()))
    u, v, ww = df["u"].to_numpy()[order], df["v"].to_numpy()[order], w[order]
    first = np.ones(m, bool)
    first[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
    ref = sp.csr_array((ww[first], (u[first], v[first])), shape=(n, n))
    assert _same(fast if weights else (fast != 0).astype(float), ref)


BODIES = {
    "comment in the body": b"1 2 1.0\n% note\n2 3 2.0\n",
    "two blanks": b"1  2 1.0\n2 3 2.0\n",
    "leading blank": b" 1 2 1.0\n2 3 2.0\n",
    "trailing blank": b"1 2 1.0 \n2 3 2.0\n",
    "tabs and blanks": b"1\t2 1.0\n2 3 2.0\n",
    "null token": b"1 2 null\n2 3 2.0\n",
    "NA token": b"1 2 NA\n2 3 2.0\n",
    "quoted": b"\"1\" 2 1.0\n2 3 2.0\n",
    "decimal index": b"1.5 2 1.0\n2 3 2.0\n",
    "text": b"1 2 x\n2 3 2.0\n",
    "missing token": b"1 2\n2 3 2.0\n",
    "extra token": b"1 2 1.0 7\n2 3 2.0\n",
    "out of bounds": b"1 9 1.0\n2 3 2.0\n",
    "zero index": b"0 1 1.0\n2 3 2.0\n",
    "nan weight": b"1 2 nan\n2 3 2.0\n",
    "binary": b"1 2 1.0\n2 3 \x00\xff\n",
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_mtx_odd_bodies_same_outcome_with_and_without_arrow(tmp_path, monkeypatch, name):
    path = tmp_path / "g.mtx"
    path.write_bytes(b"%%MatrixMarket matrix coordinate real general\n3 3 2\n" + BODIES[name])
    fast, slow = _read_both(path, monkeypatch)
    if isinstance(slow, Exception):
        assert type(fast) is type(slow) and str(fast) == str(slow)
    else:
        assert not isinstance(fast, Exception) and _same(fast, slow)


@pytest.mark.parametrize("name", sorted(BODIES))
def test_edgelist_odd_bodies_same_outcome_with_and_without_arrow(tmp_path, monkeypatch, name):
    path = tmp_path / "g.el"
    path.write_bytes(b"# Directed graph\n" + BODIES[name])
    fast, slow = _read_both(path, monkeypatch)
    if isinstance(slow, Exception):
        assert type(fast) is type(slow) and str(fast) == str(slow)
    else:
        assert not isinstance(fast, Exception) and _same(fast, slow)


def test_integer_weights_with_a_decimal_become_float(tmp_path, arrow_always):
    path = tmp_path / "g.el"
    path.write_text("0\t1\t3\n1\t2\t2.5\n")
    A = hp.read(path, backend="cpu").to_scipy()
    assert A.dtype == np.float64 and A[1, 2] == 2.5 and A[0, 1] == 3.0


def test_large_file_takes_the_fast_path_and_matches_scipy(tmp_path, monkeypatch):
    G = hp.rmat(12, seed=2, directed=True, weights=(1, 64), backend="cpu")
    path = tmp_path / "g.mtx"
    hp.write(G, path)
    assert path.stat().st_size > hp.config["io_arrow_min_bytes"]
    results = []
    real = _arrow.parse_columns
    monkeypatch.setattr(_arrow, "parse_columns", lambda *a, **k: results.append(real(*a, **k)) or results[-1])
    H = hp.read(path, backend="cpu")
    assert len(results) == 1 and results[0] is not None  # parsed by pyarrow, no fallback
    assert _same(H.to_scipy(), scipy.io.mmread(path).tocsr())
    el = tmp_path / "g.el"
    hp.write(G, el)
    H = hp.read(el, backend="cpu")
    assert len(results) == 2 and results[1] is not None
    assert _same(H.to_scipy(), scipy.io.mmread(path).tocsr())


@pytest.mark.parametrize("weights", [(1, 64), None])
def test_integer_rows_written_by_pyarrow_are_byte_identical(tmp_path, weights):
    G = hp.rmat(11, seed=4, directed=True, weights=weights, backend="cpu")
    out = []
    for threshold in (0, 1 << 62):
        path = tmp_path / f"g{threshold}.el"
        with hp.config.set(io_arrow_min_bytes=threshold):
            hp.write(G, path)
        out.append(path.read_bytes())
    assert out[0] == out[1]
    assert _same(hp.read(tmp_path / "g0.el", backend="cpu").to_scipy(), G.to_scipy())


def test_float_weights_keep_a_decimal_point(tmp_path, arrow_always):
    G = hp.Graph.from_edges([0, 1], [1, 2], weights=[1.0, 2.5], backend="cpu")
    hp.write(G, tmp_path / "g.el")
    H = hp.read(tmp_path / "g.el", backend="cpu")
    assert H.to_scipy().dtype == np.float64 and _same(H.to_scipy(), G.to_scipy())
