"""hpgraph.io: every format both ways, the shared real graphs, and every kind of bad input."""

import gzip
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph import io as hio
from hpgraph.exceptions import FileFormatError, GraphFileNotFound, HpgraphError, InvalidValue

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def data_file(name):
    p = DATA / name
    if not p.is_file():
        pytest.skip(f"shared data file {p} is not available")
    return p


def graph(src, dst, w=None, n=None, directed=True):
    return hp.Graph.from_edges(np.asarray(src), np.asarray(dst), weights=None if w is None else np.asarray(w),
                               num_vertices=n, directed=directed, backend="cpu")


def same_graph(G, H, values=True):
    assert G.num_vertices == H.num_vertices
    assert G.directed == H.directed
    A, B = G.to_scipy(), H.to_scipy()
    assert A.shape == B.shape
    assert A.nnz == B.nnz
    A.sort_indices()
    B.sort_indices()
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    if values:
        assert G.weighted == H.weighted
        if G.weighted:
            np.testing.assert_array_equal(A.data.astype(np.float64), B.data.astype(np.float64))


def random_graph(directed, weights, seed=0, n=40, m=120):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n - 3, m)  # the last vertices are isolated: num_vertices must survive
    dst = rng.integers(0, n - 3, m)
    src[0], dst[0] = 5, 5  # a self-loop
    if weights == "int":
        w = rng.integers(1, 100, m)
    elif weights == "float":
        w = rng.random(m) * 10 + 0.1
    else:
        w = None
    return graph(src, dst, w, n=n, directed=directed)


# ------------------------------------------------------------------------------------------
# round trips


@pytest.mark.parametrize("ext", [".mtx", ".mtx.gz", ".el", ".txt.gz", ".csv", ".tsv", ".npz", ".gr", ".lg",
                                 ".lg.gz"])
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weights", [None, "int", "float"])
def test_roundtrip(tmp_path, ext, directed, weights):
    G = random_graph(directed, weights)
    path = tmp_path / f"g{ext}"
    if ext.startswith(".lg") and weights is not None:
        with pytest.raises(InvalidValue, match="weights"):
            hio.write(G, path)
        return
    hio.write(G, path)
    if ext.startswith(".gr"):
        # DIMACS has only arcs (both directions written) and always carries lengths
        H = hio.read(path, directed=directed)
        assert H.weighted
        same_graph(G, H, values=weights is not None)
        if weights is None:
            assert (H.to_scipy().data == 1).all()
        return
    H = hio.read(path)
    same_graph(G, H)
    if weights == "int" and ext != ".npz":
        assert np.dtype(H.dtype).kind == "i"


def test_npz_keeps_dtypes(tmp_path):
    G = graph([0, 1, 2], [1, 2, 0], np.array([1.5, 2.5, 3.5], dtype=np.float32), n=5)
    hio.write(G, tmp_path / "g.npz")
    H = hio.read(tmp_path / "g.npz")
    assert H.dtype == np.float32
    assert H.num_vertices == 5
    same_graph(G, H)


def test_empty_graph_roundtrip(tmp_path):
    G = graph(np.zeros(0, np.int64), np.zeros(0, np.int64), n=4)
    for ext in (".el", ".npz", ".mtx"):
        hio.write(G, tmp_path / f"e{ext}")
        H = hio.read(tmp_path / f"e{ext}")
        assert H.num_vertices == 4 and H.num_edges == 0


def test_write_edgelist_is_snap_like(tmp_path):
    G = graph([0, 1], [1, 2], [3, 4], directed=False)
    hio.write(G, tmp_path / "g.txt")
    text = (tmp_path / "g.txt").read_text()
    assert text.startswith("# Undirected graph")
    assert "0\t1\t3\n1\t2\t4\n" in text
    # np.loadtxt, as the data README suggests, reads it too
    E = np.loadtxt(tmp_path / "g.txt", dtype=np.int64, comments="#")
    assert E.tolist() == [[0, 1, 3], [1, 2, 4]]


def test_write_mtx_symmetric_lower_triangle(tmp_path):
    G = graph([0, 0], [1, 2], directed=False)
    hio.write(G, tmp_path / "g.mtx")
    lines = (tmp_path / "g.mtx").read_text().splitlines()
    assert lines[0] == "%%MatrixMarket matrix coordinate pattern symmetric"
    body = [ln for ln in lines if not ln.startswith("%")]
    assert body[0] == "3 3 2"
    assert sorted(body[1:]) == ["2 1", "3 1"]


def test_write_missing_directory(tmp_path):
    with pytest.raises(GraphFileNotFound, match="does not exist"):
        hio.write(graph([0], [1]), tmp_path / "nodir" / "g.mtx")


def test_write_unknown_extension(tmp_path):
    G = graph([0], [1])
    with pytest.raises(FileFormatError, match="known extensions"):
        hio.write(G, tmp_path / "g.xyz")
    hio.write(G, tmp_path / "g.xyz", format="edgelist")
    assert hio.read(tmp_path / "g.xyz", format="edgelist").num_edges == 1


def test_top_level_names():
    assert hp.read is hio.read and hp.write is hio.write


# ------------------------------------------------------------------------------------------
# real files from ../shared/data


def test_chesapeake_mtx():
    G = hio.read(data_file("chesapeake.mtx.gz"))
    assert G.num_vertices == 39
    assert not G.directed and not G.weighted
    assert G.num_edges == 2 * 170
    A = G.to_scipy()
    assert (A != A.T).nnz == 0
    # same matrix as scipy's own reader
    import scipy.io

    M = sp.csr_array(scipy.io.mmread(data_file("chesapeake.mtx.gz"), spmatrix=False))
    assert (M.astype(bool) != A.astype(bool)).nnz == 0


def test_wiki_vote_crlf_edgelist():
    el = hio.read_edges(data_file("Wiki-Vote.txt.gz"))
    assert el.num_edges == 103_689
    assert el.directed and el.weights is None
    assert el.num_vertices == 8298  # ids 3..8297 used as given
    G = el.to_graph(backend="cpu")
    assert G.num_edges == 103_689
    # relabel compacts to the 7,115 ids that occur
    r = hio.read_edges(data_file("Wiki-Vote.txt.gz"), relabel=True)
    assert r.num_vertices == 7115
    assert r.ids[r.src[0]] == el.src[0] and r.ids[r.dst[-1]] == el.dst[-1]


def test_usa_road_ny_dimacs():
    t0 = time.perf_counter()
    el = hio.read_edges(data_file("USA-road-d.NY.gr.gz"))
    elapsed = time.perf_counter() - t0
    assert el.num_vertices == 264_346
    assert el.num_edges == 733_846
    assert el.directed and el.weights.dtype.kind == "i"
    assert el.weights.min() == 1 and el.weights.max() == 36_946
    assert elapsed < 10, f"reading 734K arcs took {elapsed:.1f} s"
    G = el.to_graph(backend="cpu")  # parallel arcs keep their minimum
    assert G.num_edges == 730_100


def test_facebook_lg():
    G = hio.read(data_file("facebook_combined.lg.gz"))
    assert G.num_vertices == 4039
    assert not G.directed
    assert G.num_edges == 2 * 88_234


# ------------------------------------------------------------------------------------------
# edge-list parsing details


def write_bytes(tmp_path, name, data, compress=False):
    p = tmp_path / name
    p.write_bytes(gzip.compress(data) if compress else data)
    return p


def test_edgelist_variants(tmp_path):
    want = [(0, 1), (1, 2), (3, 0)]
    variants = {
        "ws.txt": b"# c\n% c2\n0 1\n\n1\t2\n3   0\n",
        "crlf.txt": b"# c\r\n0 1\r\n1 2\r\n3 0\r\n",
        "comma.csv": b"0,1\n1, 2\n3 ,0\n",
        "trailing.el": b"0 1 # first\n1 2\n3 0\n",
        "nofinalnewline.edges": b"0 1\n1 2\n3 0",
    }
    for name, data in variants.items():
        for compress in (False, True):
            p = write_bytes(tmp_path, name + (".gz" if compress else ""), data, compress)
            el = hio.read_edges(p)
            assert list(zip(el.src.tolist(), el.dst.tolist())) == want, name
            assert el.num_vertices == 4 and el.weights is None


def test_edgelist_weights(tmp_path):
    p = write_bytes(tmp_path, "w.txt", b"0 1 5\n1 2 7\n")
    el = hio.read_edges(p)
    assert el.weights.tolist() == [5, 7] and el.weights.dtype == np.int64
    p = write_bytes(tmp_path, "f.txt", b"0 1 5\n1 2 0.25\n")  # the first weight looks integral
    el = hio.read_edges(p)
    assert el.weights.tolist() == [5.0, 0.25] and el.weights.dtype == np.float64
    assert hio.read_edges(p, weighted=False).weights is None
    p = write_bytes(tmp_path, "four.txt", b"0 1 5 1234\n1 2 6 999\n")  # extra columns ignored
    assert hio.read_edges(p).weights.tolist() == [5, 6]
    G = hio.read(p, backend="cpu")
    assert G.weighted


def test_edgelist_direction_hints(tmp_path):
    p = write_bytes(tmp_path, "u.txt", b"# Undirected graph: x\n0 1\n1 2\n")
    assert not hio.read(p, backend="cpu").directed
    assert hio.read(p, directed=True, backend="cpu").num_edges == 4
    p = write_bytes(tmp_path, "d.txt", b"0 1\n1 2\n")
    G = hio.read(p, directed=False, backend="cpu")
    assert not G.directed and G.num_edges == 4


def test_weighted_true_requires_weights(tmp_path):
    p = write_bytes(tmp_path, "a.txt", b"0 1\n")
    with pytest.raises(FileFormatError, match="no edge weights"):
        hio.read_edges(p, weighted=True)
    with pytest.raises(FileFormatError, match="no edge weights"):
        hio.read_edges(data_file("chesapeake.mtx.gz"), weighted=True)


def test_mtx_fields_and_symmetry(tmp_path):
    p = write_bytes(tmp_path, "i.mtx", b"%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n3 1 -2\n")
    el = hio.read_edges(p)
    assert el.directed and el.weights.tolist() == [5, -2] and el.weights.dtype == np.int64
    assert (el.src.tolist(), el.dst.tolist()) == ([0, 2], [1, 0])
    p = write_bytes(tmp_path, "s.mtx", b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 3 2\n")
    G = hio.read(p, backend="cpu")
    assert not G.directed and G.num_edges == 3  # (1,0), (0,1), loop (2,2)
    Gd = hio.read(p, directed=True, backend="cpu")
    assert Gd.directed and Gd.num_edges == 3
    same_graph(hp.Graph.from_scipy(G.to_scipy(), directed=True), Gd)
    p = write_bytes(tmp_path, "a.mtx", b"%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n2\n")
    el = hio.read_edges(p)
    assert sorted(zip(el.src.tolist(), el.dst.tolist())) == [(0, 0), (1, 1)]
    # a Matrix Market file under another extension is recognised by its banner
    p = write_bytes(tmp_path, "mm.txt", b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    el = hio.read_edges(p)
    assert el.num_vertices == 2 and el.src.tolist() == [0]


def test_progress_callback(tmp_path):
    calls = []
    p = write_bytes(tmp_path, "a.txt.gz", b"0 1\n1 2\n", compress=True)
    hio.read_edges(p, progress=lambda stage, f: calls.append((stage, f)))
    assert calls and calls[-1] == ("read", 1.0)
    hio.read_edges(p, progress=True)  # a bar (or plain text) on stderr; must not fail


def test_detect_format():
    assert hio.detect_format("a/b/web.txt.gz") == "edgelist"
    assert hio.detect_format("x.MTX") == "mtx"
    assert hio.detect_format("road.gr.bz2") == "dimacs"
    assert hio.detect_format("whatever", format="LG") == "lg"
    with pytest.raises(InvalidValue, match="unknown format"):
        hio.detect_format("x.txt", format="graphml")


def test_large_edgelist_is_fast(tmp_path):
    m = 1_000_000
    rng = np.random.default_rng(1)
    el = hio.EdgeList(rng.integers(0, 1 << 20, m), rng.integers(0, 1 << 20, m), None, 1 << 20, True)
    p = tmp_path / "big.el"
    hio.write(el, p)
    t0 = time.perf_counter()
    back = hio.read_edges(p)
    elapsed = time.perf_counter() - t0
    np.testing.assert_array_equal(back.src, el.src)
    np.testing.assert_array_equal(back.dst, el.dst)
    assert elapsed < 4.0, f"parsing 1M edges took {elapsed:.2f} s"


# ------------------------------------------------------------------------------------------
# bad input: typed errors naming file and line


BAD = [
    # name, content, expected line, message fragment
    ("nonint.txt", b"# c\n0 1\n1 x\n", 3, "not an integer"),
    ("ragged.txt", b"0 1\n1 2 3\n", 2, "columns"),
    ("short.txt", b"0 1\n3\n", 2, "columns"),
    ("negative.txt", b"0 1\n\n-1 2\n", 3, "out-of-range"),
    ("float_id.txt", b"0 1\n1.5 2\n", 2, "not an integer"),
    ("huge_id.txt", b"0 1\n1 99999999999999999999\n", 2, ""),
    ("badweight.txt", b"0 1 1.5\n1 2 abc\n", 2, "weight"),
    ("onecol.txt", b"# x\n7\n", 2, "at least 2 columns"),
    ("truncated.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 1\n2 3 1\n", 4,
     "promises 4 entries"),
    ("header.mtx", b"%%MatrixMarket matrx coordinate real general\n3 3 1\n1 2 1\n", 1, "header"),
    ("banner.mtx", b"3 3 1\n1 2 1\n", 1, "not a Matrix Market file"),
    ("token.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 z 1\n", 4, "'2 z 1'"),
    ("value.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 abc\n", 4, ""),
    ("range.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n4 3 1\n", 4, "out of bounds"),
    ("zero.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 1\n", 3, "out of bounds"),
    ("size.mtx", b"%%MatrixMarket matrix coordinate real general\n3 x 2\n1 2 1\n", 2, "size line"),
    ("rect.mtx", b"%%MatrixMarket matrix coordinate real general\n3 4 1\n1 2 1\n", 2, "square"),
    ("nosize.mtx", b"%%MatrixMarket matrix coordinate real general\n% only a comment\n", 2, "size line"),
    ("complex.mtx", b"%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 0\n", 1, "complex"),
    ("extra.mtx", b"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n2 3 1\n", 4, ""),
    ("range.gr", b"p sp 3 2\na 1 2 5\na 2 4 1\n", 3, "[1, 3]"),
    ("zero.gr", b"c x\np sp 3 2\na 0 2 5\na 2 3 1\n", 3, "out-of-range"),
    ("truncated.gr", b"p sp 3 3\na 1 2 5\na 2 3 1\n", 3, "promises 3 arcs"),
    ("noproblem.gr", b"c x\na 1 2 5\n", 2, "problem line"),
    ("badproblem.gr", b"p max 3 2\na 1 2 5\n", 1, "p sp"),
    ("badline.gr", b"p sp 3 2\na 1 2 5\nb 2 3 1\n", 3, "arc line"),
    ("badlen.gr", b"p sp 3 2\na 1 2 5\na 2 3 x\n", 3, "length"),
    ("range.lg", b"3,2,u,g\n1,2\n2,5\n", 3, "[1, 3]"),
    ("truncated.lg", b"3,3,u,g\n1,2\n2,3\n", 3, "promises 3 edges"),
    ("header.lg", b"3,2,x,g\n1,2\n2,3\n", 1, "LG header"),
    ("token.lg", b"3,2,u,g\n1,2\n2,q\n", 3, "not an integer"),
]


@pytest.mark.parametrize("name,content,line,fragment", BAD, ids=[b[0] for b in BAD])
def test_bad_input(tmp_path, name, content, line, fragment):
    p = write_bytes(tmp_path, name, content)
    with pytest.raises(FileFormatError) as info:
        hio.read(p, backend="cpu")
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, HpgraphError)
    assert err.path == str(p)
    assert str(p) in str(err)
    assert err.line == line, str(err)
    assert f"{p}:{line}:" in str(err)
    assert fragment in str(err)


@pytest.mark.parametrize("name,content,fragment", [
    ("empty.txt", b"", "empty"),
    ("comments.txt", b"# only\n% comments\n\n", "no edge lines"),
    ("empty.mtx", b"", "empty"),
    ("empty.gr", b"", "empty"),
    ("empty.lg", b"", "empty"),
    ("notnpz.npz", b"hello", "not a NumPy .npz"),
])
def test_empty_or_garbage(tmp_path, name, content, fragment):
    p = write_bytes(tmp_path, name, content)
    with pytest.raises(FileFormatError, match=fragment):
        hio.read_edges(p)


def test_npz_missing_arrays(tmp_path):
    p = tmp_path / "other.npz"
    np.savez(p, a=np.arange(3))
    with pytest.raises(FileFormatError, match="missing array"):
        hio.read_edges(p)
    p = tmp_path / "range.npz"
    np.savez(p, src=np.array([0, 5]), dst=np.array([1, 1]), num_vertices=3, directed=True)
    with pytest.raises(FileFormatError, match="outside"):
        hio.read_edges(p)


def test_missing_file(tmp_path):
    with pytest.raises(GraphFileNotFound) as info:
        hio.read(tmp_path / "nope.mtx")
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, HpgraphError)
    assert "nope.mtx" in str(info.value) and "no such file" in str(info.value)
    with pytest.raises(FileNotFoundError, match="does not exist either"):
        hio.read(tmp_path / "nodir" / "g.txt")


def test_directory(tmp_path):
    d = tmp_path / "graph.mtx"
    d.mkdir()
    with pytest.raises(FileFormatError, match="is a directory"):
        hio.read(d)


def test_unknown_extension(tmp_path):
    p = write_bytes(tmp_path, "g.graphml", b"<graphml/>")
    with pytest.raises(FileFormatError) as info:
        hio.read(p)
    msg = str(info.value)
    assert "'.graphml'" in msg
    for ext in (".mtx", ".txt", ".gr", ".lg", ".npz"):
        assert ext in msg
    with pytest.raises(FileFormatError, match="no extension"):
        hio.read(write_bytes(tmp_path, "noext", b"0 1\n"))
    assert hio.read_edges(tmp_path / "noext", format="edgelist").num_edges == 1


def test_corrupt_gzip(tmp_path):
    good = gzip.compress(b"0 1\n" * 1000)
    p = write_bytes(tmp_path, "t.txt.gz", good[: len(good) // 2])
    with pytest.raises(FileFormatError, match="corrupt or truncated gzip"):
        hio.read_edges(p)


def test_bad_arguments(tmp_path):
    p = write_bytes(tmp_path, "a.txt", b"0 1\n")
    with pytest.raises(InvalidValue):
        hio.read_edges(p, weighted="yes")
    with pytest.raises(InvalidValue):
        hio.read_edges(p, directed="no")
    with pytest.raises(InvalidValue):
        hio.read_edges(12345)
