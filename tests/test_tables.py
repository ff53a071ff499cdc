"""hpgraph.tables: pandas / Arrow / Parquet / CSV edge tables with vertex labels.

Oracles: pandas (groupby for duplicate edges, read_csv / to_csv), pyarrow (parquet and csv
readers and writers), networkx for an algorithm result keyed by labels.
"""

import gzip
import os

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import hpgraph as hp  # noqa: E402
from hpgraph import tables  # noqa: E402
from hpgraph.exceptions import DomainMismatch, FileFormatError, GraphFileNotFound, InvalidGraph, \
    InvalidValue  # noqa: E402
from hpgraph.labels import VertexLabels  # noqa: E402


def _random_table(seed, m=120, kind="str", weights=True):
    """Edges with self-loops, duplicates and (through ``vertices``) isolated vertices."""
    rng = np.random.default_rng(seed)
    if kind == "str":
        pool = np.array([f"user-{i:03d}" for i in rng.choice(1000, 25, replace=False)], dtype=object)
    else:
        pool = rng.choice(np.arange(-10**15, 10**15, 10**11), 25, replace=False).astype(np.int64)
    src = pool[rng.integers(0, 25, m)]
    dst = pool[rng.integers(0, 25, m)]
    dst[:5] = src[:5]  # self-loops
    src[m // 2:m // 2 + 10] = src[:10]  # repeated edges
    dst[m // 2:m // 2 + 10] = dst[:10]
    data = {"source": src, "destination": dst}
    if weights:
        w = rng.integers(0, 9, m).astype(np.float64)
        w[::7] = 0.0  # zero weights are edges
        data["w"] = w
    return pd.DataFrame(data)


def _expected(df, s="source", d="destination", w="w", directed=True, extra=()):
    """Oracle: labels sorted, {(label_u, label_v): min weight} from pandas."""
    labels = sorted(set(df[s]) | set(df[d]) | set(extra))
    e = df[[s, d]].copy()
    e["w"] = df[w] if w is not None else 1.0
    if not directed:
        lo = np.where(e[s] <= e[d], e[s], e[d])
        hi = np.where(e[s] <= e[d], e[d], e[s])
        e = pd.DataFrame({s: lo, d: hi, "w": e["w"]})
    best = e.groupby([s, d], sort=False)["w"].min()
    edges = {(u, v): x for (u, v), x in best.items()}
    if not directed:
        edges.update({(v, u): x for (u, v), x in list(edges.items())})
    return labels, edges


def _actual(G):
    labels = list(G.node_labels) if G.node_labels is not None else list(range(G.num_vertices))
    A = G.to_scipy().tocoo()
    vals = np.ones(A.nnz) if not G.weighted else A.data
    return labels, {(labels[i], labels[j]): float(x) for i, j, x in zip(A.row, A.col, vals)}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["str", "int"])
@pytest.mark.parametrize("directed", [True, False])
def test_from_pandas_matches_pandas_groupby(seed, kind, directed):
    df = _random_table(seed, kind=kind)
    before = df.copy()
    G = hp.from_pandas(df, weight="w", directed=directed)
    pd.testing.assert_frame_equal(df, before)  # the caller's table is untouched
    exp_labels, exp_edges = _expected(df, directed=directed)
    labels, edges = _actual(G)
    assert labels == exp_labels
    assert edges == exp_edges
    assert isinstance(G.node_labels, VertexLabels) and G.directed is directed


@pytest.mark.parametrize("seed", range(3))
def test_from_arrow_matches_pandas_groupby(seed):
    df = _random_table(seed)
    # chunked columns, one of them dictionary-encoded: the Arrow path must see through both
    t = pa.Table.from_pandas(df, preserve_index=False)
    half = t.num_rows // 2
    t = pa.concat_tables([t.slice(0, half), t.slice(half)])
    t = t.set_column(0, "source", pa.chunked_array([c.dictionary_encode() for c in t.column("source").chunks]))
    G = hp.from_arrow(t, weight="w")
    exp_labels, exp_edges = _expected(df)
    labels, edges = _actual(G)
    assert labels == exp_labels and edges == exp_edges


def test_from_arrow_integer_columns_of_two_widths_and_record_batch():
    t = pa.table({"a": pa.array([5, 10**12, 5], pa.int64()), "b": pa.array([7, 7, 3], pa.int32())})
    G = hp.Graph.from_arrow(t.to_batches()[0], "a", "b")
    assert list(G.node_labels) == [3, 5, 7, 10**12]
    assert _actual(G)[1] == {(5, 7): 1.0, (10**12, 7): 1.0, (5, 3): 1.0}
    assert not G.weighted


def test_isolated_vertices_and_empty_tables():
    df = pd.DataFrame({"source": ["a"], "destination": ["b"]})
    G = hp.from_pandas(df, vertices=["c", "a"])
    assert list(G.node_labels) == ["a", "b", "c"] and G.num_edges == 1
    assert hp.bfs(G, G.node_labels.to_ids("a"))[0].tolist() == [0, 1, -1]
    empty = pd.DataFrame({"source": pd.Series([], dtype=object), "destination": pd.Series([], dtype=object)})
    G0 = hp.from_pandas(empty)
    assert G0.num_vertices == 0 and G0.num_edges == 0
    G0 = hp.from_arrow(pa.table({"source": pa.array([], pa.string()), "destination": pa.array([], pa.string())}))
    assert G0.num_vertices == 0


def test_renumber_false_uses_ids_as_given():
    df = pd.DataFrame({"s": [0, 3, 3], "d": [3, 1, 1], "w": [1.5, 2.0, 0.5]})
    G = hp.from_pandas(df, "s", "d", "w", renumber=False, vertices=[5])
    assert G.node_labels is None and G.num_vertices == 6
    np.testing.assert_array_equal(G.to_scipy().toarray()[3], [0, 0.5, 0, 0, 0, 0])
    with pytest.raises(DomainMismatch, match="renumber=True"):
        hp.from_pandas(pd.DataFrame({"s": ["a"], "d": ["b"]}), "s", "d", renumber=False)


def test_pagerank_keyed_by_labels_matches_networkx():
    nx = pytest.importorskip("networkx")
    df = _random_table(5, weights=False)
    df = df[df.source != df.destination]
    G = hp.from_pandas(df, directed=True)
    H = nx.from_pandas_edgelist(df, "source", "destination", create_using=nx.DiGraph)
    expected = nx.pagerank(H, tol=1e-12)
    res = hp.result_frame(G, rank=hp.pagerank(G, tol=1e-12, backend="cpu"))
    got = dict(zip(res["vertex"], res["rank"]))
    assert set(got) == set(expected)
    for v, r in expected.items():
        assert got[v] == pytest.approx(r, abs=1e-9)


def test_result_frame_without_labels_and_with_networkx_labels():
    G = hp.Graph.from_edges([0, 1], [1, 2])
    f = hp.result_frame(G, depth=hp.bfs(G, 0, backend="cpu")[0])
    assert f["vertex"].tolist() == [0, 1, 2] and f["depth"].tolist() == [0, 1, 2]
    nx = pytest.importorskip("networkx")
    H = hp.Graph.from_networkx(nx.path_graph(["x", "z", "y"]))
    assert hp.result_frame(H, one=np.ones(3))["vertex"].tolist() == ["x", "z", "y"]
    assert tables.to_pandas(H)["source"].tolist() == ["x", "z"]


@pytest.mark.parametrize("directed", [True, False])
def test_to_pandas_and_to_arrow_round_trip(directed):
    df = _random_table(11)
    G = hp.from_pandas(df, weight="w", directed=directed)
    out = tables.to_pandas(G)
    back = hp.from_pandas(out, weight="weight", directed=directed)
    assert _actual(back) == _actual(G)
    _, exp_edges = _expected(df, directed=directed)
    n_once = len(exp_edges) if directed else len({(min(u, v), max(u, v)) for u, v in exp_edges})
    assert len(out) == n_once
    t = tables.to_arrow(G, "u", "v", None)
    assert t.column_names == ["u", "v"] and t.num_rows == n_once
    assert tables.to_pandas(G, labels=False)["source"].dtype.kind == "i"


def test_parquet_round_trip_string_labels(tmp_path):
    df = _random_table(3)
    G = hp.from_pandas(df, weight="w")
    path = tmp_path / "edges.parquet"
    hp.write_parquet(G, path)
    written = pq.read_table(path).to_pandas()  # oracle: pyarrow's reader
    _, exp_edges = _expected(df)
    assert {(u, v): w for u, v, w in zip(written.source, written.destination, written.weight)} == exp_edges
    G2 = hp.read_parquet(path, weight="weight")
    assert _actual(G2) == _actual(G)
    # a file written by pyarrow itself, columns chosen by name
    pq.write_table(pa.Table.from_pandas(df.rename(columns={"source": "from", "destination": "to"})), path)
    G3 = hp.read_parquet(path, "from", "to", "w")
    assert _actual(G3) == _expected(df)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".hpgraph-")]  # no temporary left


def test_parquet_bad_files(tmp_path):
    with pytest.raises(GraphFileNotFound):
        hp.read_parquet(tmp_path / "nope.parquet")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"source,destination\n1,2\n")
    with pytest.raises(FileFormatError, match="bad.parquet: not a readable Parquet file"):
        hp.read_parquet(bad)
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"a": [1], "b": [2]}), good)
    with pytest.raises(FileFormatError, match=r"no column 'source' \(columns: \['a', 'b'\]\)"):
        hp.read_parquet(good)


def test_atomic_write_leaves_no_half_file(tmp_path, monkeypatch):
    G = hp.from_pandas(_random_table(1), weight="w")
    path = tmp_path / "out.parquet"

    def crash(table, where, **kw):
        with open(where, "wb") as f:
            f.write(b"PAR1 half")
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", crash)
    with pytest.raises(KeyboardInterrupt):
        hp.write_parquet(G, path)
    assert os.listdir(tmp_path) == []
    with pytest.raises(GraphFileNotFound, match="does not exist"):
        hp.write_parquet(G, tmp_path / "no-such-dir" / "x.parquet")


# -- CSV through pyarrow.csv --------------------------------------------------------------

@pytest.mark.parametrize("variant", ["header", "no-header", "gz", "tsv-comments", "one-based"])
def test_read_csv_variants_match_pandas(tmp_path, variant):
    df = _random_table(4, kind="int")
    df["source"] = df["source"] % 1000 + 1  # small positive ids for the one-based file
    df["destination"] = df["destination"] % 1000 + 1
    path = tmp_path / ("e.csv.gz" if variant == "gz" else "e.csv")
    sep = "\t" if variant == "tsv-comments" else ","
    text = df.to_csv(index=False, header=variant == "header", sep=sep)
    if variant == "tsv-comments":
        text = "# generated\n# source\tdestination\tw\n" + text
    if variant == "gz":
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    kw = {}
    if variant == "one-based":
        kw = dict(one_based=True, renumber=False)
    G = tables.read_csv(path, 0, 1, 2, delimiter=sep, **kw)
    if variant == "one-based":
        exp = df.assign(source=df.source - 1, destination=df.destination - 1)
        _, edges = _expected(exp)
        assert G.node_labels is None and G.num_vertices == max(exp.source.max(), exp.destination.max()) + 1
        A = G.to_scipy().tocoo()
        assert {(int(i), int(j)): float(x) for i, j, x in zip(A.row, A.col, A.data)} == edges
    else:
        assert _actual(G) == _expected(df)


def test_read_csv_header_by_name_and_string_ids(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("w,to,from\n1.5,bob,alice\n2,carol,bob\n0,alice,alice\n")
    G = tables.read_csv(path, "from", "to", "w")
    assert list(G.node_labels) == ["alice", "bob", "carol"]
    assert _actual(G)[1] == {("alice", "bob"): 1.5, ("bob", "carol"): 2.0, ("alice", "alice"): 0.0}
    # header detected on positional columns: first line words, second line numbers
    path.write_text("src,dst\n1,2\n2,3\n")
    G = tables.read_csv(path)
    assert list(G.node_labels) == [1, 2, 3] and G.num_edges == 2


def test_write_csv_read_by_pandas(tmp_path):
    df = _random_table(8)
    G = hp.from_pandas(df, weight="w")
    for name in ("out.csv", "out.csv.gz"):
        tables.write_csv(G, tmp_path / name)
        back = pd.read_csv(tmp_path / name)  # oracle: pandas' reader
        assert list(back.columns) == ["source", "destination", "weight"]
        assert {(u, v): w for u, v, w in zip(back.source, back.destination, back.weight)} == _expected(df)[1]


def test_read_csv_bad_inputs(tmp_path):
    path = tmp_path / "e.csv"
    with pytest.raises(GraphFileNotFound):
        tables.read_csv(path)
    path.write_text("a,b\n1,2\n")
    with pytest.raises(FileFormatError, match=r"e.csv: no column 'source' \(columns: \['a', 'b'\]\)"):
        tables.read_csv(path, "source", "b")
    with pytest.raises(FileFormatError, match="weight=2: the file has 2 columns"):
        tables.read_csv(path, 0, 1, 2)
    path.write_text("1,2,0.5\n2,3,\n")
    with pytest.raises(InvalidGraph, match="e.csv: .*missing .*weight at row 1"):
        tables.read_csv(path, 0, 1, 2)
    path.write_text("1,2\n2,3,4\n")
    with pytest.raises(FileFormatError, match="e.csv: cannot parse"):
        tables.read_csv(path)
    path.write_text("1,a\n2,b\n")
    with pytest.raises(DomainMismatch, match="one kind"):
        tables.read_csv(path)
    G = tables.read_csv(path, id_type="string")
    assert list(G.node_labels) == ["1", "2", "a", "b"]
    path.write_text("0,1\n1,2\n")
    with pytest.raises(FileFormatError, match="id 0 at row 0"):
        tables.read_csv(path, one_based=True, renumber=False)
    with pytest.raises(InvalidValue, match="renumber=False"):
        tables.read_csv(path, one_based=True)
    gz = tmp_path / "t.csv.gz"
    rows = np.random.default_rng(0).integers(0, 10**6, (5000, 2))
    full = gzip.compress("".join(f"{a},{b}\n" for a, b in rows).encode())
    gz.write_bytes(full[:len(full) // 2])  # truncated stream: pyarrow's own gzip reader would not notice
    with pytest.raises(FileFormatError, match="t.csv.gz: truncated or corrupt compressed file"):
        tables.read_csv(gz)
    zst = tmp_path / "t.csv.zst"
    with pa.CompressedOutputStream(str(zst), "zstd") as out:
        out.write(b"1,2\n" * 50000)
    assert tables.read_csv(zst).num_edges == 1
    zst.write_bytes(zst.read_bytes()[:-8])
    with pytest.raises(FileFormatError, match="t.csv.zst"):
        tables.read_csv(zst)


@pytest.mark.parametrize("make, err, words", [
    (lambda: pd.DataFrame({"source": [1], "dst": [2]}), InvalidValue, r"column 'destination' is not in the table"),
    (lambda: pd.DataFrame({"source": ["a", None], "destination": ["b", "c"]}), InvalidGraph,
     "column 'source' has a missing id at row 1"),
    (lambda: pd.DataFrame({"source": [1, 2], "destination": ["b", "c"]}), DomainMismatch, "one kind"),
    (lambda: pd.DataFrame({"source": [1, "x"], "destination": [2, 3]}), DomainMismatch, "mixed"),
    (lambda: pd.DataFrame({"source": [1, 2], "destination": [2, 3], "w": [1.0, np.nan]}), InvalidGraph,
     "column 'w' has a missing"),
    (lambda: pd.DataFrame({"source": [1, 2], "destination": [2, 3], "w": [1.0, np.inf]}), InvalidGraph,
     "column 'w' row 1"),
    (lambda: pd.DataFrame({"source": [1, 2], "destination": [2, 3], "w": ["a", "b"]}), DomainMismatch,
     "must be numeric"),
])
def test_from_pandas_bad_tables(make, err, words):
    df = make()
    kw = {"weight": "w"} if "w" in df.columns else {}
    with pytest.raises(err, match=words):
        hp.from_pandas(df, **kw)


def test_from_arrow_bad_tables():
    with pytest.raises(InvalidValue, match="expected a pyarrow Table"):
        hp.from_arrow({"source": [1]})
    t = pa.table({"source": pa.array([1, None]), "destination": pa.array([2, 3])})
    with pytest.raises(InvalidGraph, match="column 'source' has a missing id at row 1"):
        hp.from_arrow(t)
    with pytest.raises(InvalidGraph, match="column 'source' has a missing id at row 1"):
        hp.from_arrow(t, renumber=False)
    t = pa.table({"source": pa.array([1, 2]), "destination": pa.array(["a", "b"])})
    with pytest.raises(DomainMismatch, match="'source' holds integer ids"):
        hp.from_arrow(t)
    t = pa.table({"source": [1, 2], "destination": [2, 3], "w": pa.array([1.0, None])})
    with pytest.raises(InvalidGraph, match="column 'w' has a missing"):
        hp.from_arrow(t, weight="w")
    with pytest.raises(InvalidValue, match="different columns"):
        hp.from_arrow(t, "source", "source")
    t = pa.table({"source": pa.array([1.0, 2.0]), "destination": pa.array([True, False])})
    with pytest.raises(DomainMismatch):
        hp.from_arrow(t)


@pytest.mark.parametrize("dtype", [object, "string[python]", "string[pyarrow]", "category"])
def test_from_pandas_string_column_dtypes(dtype):
    df = _random_table(9)
    typed = df.astype({"source": dtype, "destination": dtype})
    G = hp.from_pandas(typed, weight="w")
    assert _actual(G) == _expected(df)
    assert all(isinstance(x, str) for x in G.node_labels)


def test_from_pandas_object_columns_of_integers_and_mixed_objects():
    df = pd.DataFrame({"source": np.array([10**18, 3], dtype=object), "destination": np.array([3, 7], dtype=object)})
    G = hp.from_pandas(df)
    assert list(G.node_labels) == [3, 7, 10**18] and _actual(G)[1] == {(10**18, 3): 1.0, (3, 7): 1.0}
    bad = pd.DataFrame({"source": np.array([1, "x"], dtype=object), "destination": np.array(["a", "b"], dtype=object)})
    with pytest.raises(DomainMismatch, match="mixed"):
        hp.from_pandas(bad)


@pytest.mark.gpu
def test_device_graph_keeps_labels_and_maps_device_results():
    df = _random_table(12)
    G = hp.from_pandas(df, weight="w", backend="gpu")
    assert G.on_device and isinstance(G.node_labels, VertexLabels)
    assert _actual(G.to_host()) == _expected(df)
    depth, _ = hp.bfs(G, 0)  # a CuPy array: the frame copies it to the host
    f = hp.result_frame(G, depth=depth)
    host_depth, _ = hp.bfs(G.to_host(), 0, backend="cpu")
    assert f["vertex"].tolist() == list(G.node_labels) and f["depth"].tolist() == host_depth.tolist()
    assert G.to_host().node_labels is G.node_labels
