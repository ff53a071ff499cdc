"""Conversion of networkx graphs (``convert_from_nx``), checked against plain Python readings
of ``G.adj``: adjacency order, values and dtypes per entry, errors."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from hpgraph.nx_backend import graph as nx_graph
from hpgraph.nx_backend._convert import _stable_order, edge_twins
from hpgraph.nx_backend.graph import convert_from_nx

_MISSING = "edge attribute 'w' is missing on some edges and has no default"
_NOT_NUMERIC = "hpgraph needs numeric values of the edge attribute 'w'"


@pytest.fixture
def twin_reads(monkeypatch):
    """What each conversion's one-read-per-edge path returned (None: it fell back)."""
    results = []
    real = nx_graph.twin_edge_values

    def spy(*args):
        results.append(real(*args))
        return results[-1]

    monkeypatch.setattr(nx_graph, "twin_edge_values", spy)
    return results


def _reference(G, attr=None, default=1):
    """``(indptr, indices, values)`` of ``G`` read entry by entry from ``G.adj``; a multigraph's
    values are ``(minima, sums)`` over its parallel edges."""
    pos = {v: i for i, v in enumerate(G.adj)}
    indptr, cols, vals, sums = [0], [], [], []
    for u, nbrs in G.adj.items():
        for v, d in nbrs.items():
            cols.append(pos[v])
            if G.is_multigraph():
                got = [e.get(attr, default) for e in d.values()]
                vals.append(min(got))
                sums.append(sum(got))
            else:
                vals.append(d.get(attr, default))
        indptr.append(len(cols))
    return indptr, cols, (vals, sums) if G.is_multigraph() else vals


def _expected(vals, dtype=None):
    """``vals`` as the array conversion must give: int64 when all are ints (bools count as
    ints), else float64 (or ``dtype``: NumPy scalars keep theirs)."""
    ints = all(isinstance(x, (int, np.integer)) for x in vals)
    return np.array([int(x) if ints else float(x) for x in vals],
                    dtype=dtype or (np.int64 if ints else np.float64))


def _check(G, attrs, dtype=None):
    """Convert ``G`` keeping ``attrs`` ({name: default}) and compare with :func:`_reference`."""
    H = convert_from_nx(G, edge_attrs=attrs)
    assert list(H.nodes) == list(G.adj)
    for attr, default in attrs.items():
        indptr, cols, vals = _reference(G, attr, default)
        np.testing.assert_array_equal(H.indptr, indptr)
        np.testing.assert_array_equal(H.indices, cols)
        if G.is_multigraph():
            vals, sums = vals
            got = H.edge_sums[attr]
            assert got.dtype == _expected(sums).dtype
            np.testing.assert_array_equal(got, _expected(sums))
        got = H.edge_values[attr]
        assert got.dtype == _expected(vals, dtype).dtype, attr
        np.testing.assert_array_equal(got, _expected(vals, dtype))
    return H


def _random_graph(n, m, seed, *, directed=False, loops=0, labels=None, weight=None):
    """A graph with edges added in random order (neighbour lists unsorted), ``loops`` self-loops
    and a few isolated nodes; ``weight(rng)`` gives each edge's ``w`` (None: no attribute)."""
    rng = random.Random(seed)
    G = nx.DiGraph() if directed else nx.Graph()
    nodes = list(range(n)) if labels is None else [labels(i) for i in range(n)]
    G.add_nodes_from(nodes)
    edges = set()
    while len(edges) < m:
        u, v = rng.sample(nodes[: n - 3], 2)
        edges.add((u, v))
    edges = list(edges) + [(u, u) for u in rng.sample(nodes, loops)]
    rng.shuffle(edges)
    for u, v in edges:
        if weight is None:
            G.add_edge(u, v)
        else:
            G.add_edge(u, v, w=weight(rng))
    return G


WEIGHTS = {
    "float": lambda rng: rng.random(),
    "int": lambda rng: rng.randrange(-5, 100),
    "bool": lambda rng: rng.random() < 0.5,
    "int-float": lambda rng: rng.randrange(10) if rng.random() < 0.7 else rng.random(),
    "bool-int": lambda rng: rng.random() < 0.5 if rng.random() < 0.5 else rng.randrange(9),
    "numpy": lambda rng: np.float32(rng.random()),  # float32 values give a float32 array
}


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("kind", sorted(WEIGHTS))
def test_weighted_graphs_match_the_adjacency(kind, directed, twin_reads):
    G = _random_graph(60, 200, 3, directed=directed, loops=5, weight=WEIGHTS[kind])
    _check(G, {"w": 1}, np.float32 if kind == "numpy" else None)
    assert [r is not None for r in twin_reads] == ([] if directed else [True])


@pytest.mark.parametrize("directed", [False, True])
def test_labels_sorted_rows_and_isolated_nodes(directed):
    G = _random_graph(40, 90, 5, directed=directed, loops=3, labels=lambda i: f"v{i}",
                      weight=WEIGHTS["float"])
    _check(G, {"w": 1})
    # neighbours listed in increasing order (edges added sorted): no sort needed
    P = nx.DiGraph() if directed else nx.Graph()
    P.add_nodes_from(range(30))
    P.add_weighted_edges_from(sorted((u, v, 0.5 * u - v) for u, v in G.edges()
                                     if isinstance(u, int)) +
                              [(i, (i * 7) % 27, float(i)) for i in range(27)], weight="w")
    _check(P, {"w": 1})


def test_more_than_16_bit_vertex_ids():
    """Pairing twin entries sorts 8- and 16-bit digits: ids above 65535 take several passes."""
    rng = random.Random(7)
    n = 70_000
    G = nx.Graph()
    G.add_nodes_from(range(n))
    for _ in range(5_000):
        G.add_edge(rng.randrange(n), rng.randrange(n), w=rng.random())
    G.add_edge(n - 1, 0, w=2.5)
    _check(G, {"w": 1})


@pytest.mark.parametrize("directed", [False, True])
def test_missing_values_and_defaults(directed):
    G = _random_graph(50, 150, 11, directed=directed, loops=4, weight=WEIGHTS["int"])
    for i, (u, v) in enumerate(list(G.edges())):
        if i % 3 == 0:
            del G.edges[u, v]["w"]
    _check(G, {"w": 1})
    _check(G, {"w": 2.5})
    _check(G, {"w": 1, "x": 0.25})  # "x" on no edge: all defaults
    with pytest.raises(NotImplementedError) as err:
        convert_from_nx(G, edge_attrs={"w": None})
    assert str(err.value) == _MISSING


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("bad", ["1", None, [1.0], 2**70, complex(1, 2)])
def test_non_numeric_values_raise(bad, directed):
    G = _random_graph(30, 60, 13, directed=directed, loops=2, weight=WEIGHTS["float"])
    u, v = sorted(G.edges())[len(G.edges()) // 2]
    G.edges[u, v]["w"] = bad
    with pytest.raises(NotImplementedError) as err:
        convert_from_nx(G, edge_attrs={"w": 1})
    assert str(err.value) == (_MISSING if bad is None else _NOT_NUMERIC)


def test_several_attributes_and_preserved_attributes():
    G = _random_graph(40, 120, 17, loops=3, weight=WEIGHTS["float"])
    for i, (u, v, d) in enumerate(G.edges(data=True)):
        d["c"] = i % 4
        d["flag"] = i % 2 == 0
        d["name"] = str(i)
    H = _check(G, {"w": 1, "c": 1, "flag": 0})
    assert set(H.edge_values) == {"w", "c", "flag"}
    P = convert_from_nx(G, preserve_edge_attrs=True)
    assert set(P.edge_values) == {"w", "c", "flag"}
    for attr in P.edge_values:
        np.testing.assert_array_equal(P.edge_values[attr], H.edge_values[attr])
        assert P.edge_values[attr].dtype == H.edge_values[attr].dtype


@pytest.mark.parametrize("directed", [False, True])
def test_no_edges_and_only_self_loops(directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(4))
    H = convert_from_nx(G, edge_attrs={"w": 1})
    assert H.edge_values["w"].dtype == np.int64 and H.edge_values["w"].shape == (0,)
    assert convert_from_nx(G, edge_attrs={"w": 1.5}).edge_values["w"].dtype == np.float64
    G.add_edge(2, 2, w=3)
    G.add_edge(0, 0, w=1.5)
    _check(G, {"w": 1})


@pytest.mark.parametrize("directed", [False, True])
def test_multigraphs(directed):
    rng = random.Random(19)
    M = nx.MultiDiGraph() if directed else nx.MultiGraph()
    M.add_nodes_from(range(25))
    for _ in range(120):
        u, v = rng.randrange(22), rng.randrange(22)
        if rng.random() < 0.2:
            M.add_edge(u, v)
        else:
            M.add_edge(u, v, w=rng.choice([rng.randrange(9), rng.random()]))
    _check(M, {"w": 1})
    _check(M, {"w": 0.5})
    M.add_edge(0, 1, w="x")
    with pytest.raises(NotImplementedError) as err:
        convert_from_nx(M, edge_attrs={"w": 1})
    assert str(err.value) == _NOT_NUMERIC


@pytest.mark.parametrize("directed", [False, True])
def test_graph_views(directed, twin_reads):
    G = _random_graph(50, 160, 23, directed=directed, loops=4, weight=WEIGHTS["int-float"])
    _check(G.subgraph(range(0, 50, 2)), {"w": 1})
    edges = list(G.edges())[::3]
    _check(G.edge_subgraph(edges), {"w": 1})
    _check(nx.subgraph_view(G, filter_edge=lambda u, v: (u + v) % 3 != 0), {"w": 1})
    # an edge filter that is not symmetric: a view of an undirected graph with one-sided entries
    _check(nx.subgraph_view(G, filter_edge=lambda u, v: u < v or u % 2 == 0), {"w": 1})
    assert twin_reads == []  # views are read entry by entry


def test_undirected_entries_without_a_shared_dict(twin_reads):
    """A class writing two dicts per edge, and an adjacency written directly: every entry is
    read on its own."""

    class TwoDicts(nx.Graph):
        def add_edge(self, u, v, **attr):
            self.add_nodes_from([u, v])
            self._adj[u][v] = dict(attr)
            self._adj[v][u] = {k: -x for k, x in attr.items()}

    G = TwoDicts()
    rng = random.Random(29)
    for _ in range(80):
        G.add_edge(rng.randrange(30), rng.randrange(30), w=rng.random())
    _check(G, {"w": 1})
    assert twin_reads == []  # the class overrides add_edge

    # a one-sided entry written into a plain Graph's adjacency: not symmetric
    H = _random_graph(30, 70, 31, loops=2, weight=WEIGHTS["float"])
    assert 29 not in H._adj[0]
    H._adj[0][29] = {"w": 7.0}
    _check(H, {"w": 1})
    assert twin_reads == [None]
    H._adj[29][0] = H._adj[0][29]  # symmetric again, one shared dict
    _check(H, {"w": 1})
    assert twin_reads[1] is not None


def test_plain_graph_with_two_dicts_per_edge_written_directly(twin_reads):
    """A plain Graph whose adjacency was written directly with a dict per entry (symmetric, so
    only the sampled identity check can tell): every entry is read on its own."""
    G = nx.Graph()
    rng = random.Random(41)
    G.add_nodes_from(range(40))
    for _ in range(120):
        u, v = rng.randrange(40), rng.randrange(40)
        x = rng.random()
        G._adj[u][v] = {"w": x}
        G._adj[v][u] = {"w": -x} if u != v else G._adj[u][v]
    _check(G, {"w": 1})
    assert twin_reads == [None]


@pytest.mark.parametrize("bound", [1, 2, 200, 256, 257, 65536, 65537, 2**20, 2**24 + 3])
def test_stable_order_is_a_stable_argsort(bound):
    rng = np.random.default_rng(bound)
    keys = rng.integers(0, bound, 5000).astype(np.int32 if bound < 2**31 else np.int64)
    np.testing.assert_array_equal(_stable_order(keys, bound), np.argsort(keys, kind="stable"))


def test_edge_twins_pairs_entries():
    G = _random_graph(40, 100, 37, loops=3)
    H = convert_from_nx(G)
    first, up, down = edge_twins(H.indptr, H.indices)
    rows = np.repeat(np.arange(H.n), np.diff(H.indptr))
    assert np.array_equal(first, rows <= H.indices)
    assert np.all(rows[up] < H.indices[up])
    assert np.array_equal(rows[up], H.indices[down]) and np.array_equal(H.indices[up], rows[down])
    assert sorted(up.tolist() + down.tolist()) == np.flatnonzero(rows != H.indices).tolist()
    # a one-sided entry has no twin
    indices = H.indices.copy()
    k = int(up[0])
    indices[k] = next(c for c in range(H.n) if c > rows[k] and c not in G.adj[H.nodes[rows[k]]])
    assert edge_twins(H.indptr, indices) is None


def test_gc_paused_freezes_the_callers_objects_and_gives_them_back():
    """While hpgraph builds its objects the caller's objects are frozen (a collection walks only
    hpgraph's), and afterwards everything is as before; an application's own frozen objects
    stay frozen."""
    import gc

    from hpgraph.nx_backend.graph import _gc_paused

    assert gc.get_freeze_count() == 0
    enabled = gc.isenabled()
    with _gc_paused():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0 and gc.isenabled() == enabled
    gc.freeze()                                 # the application froze its objects
    try:
        # frozen objects may still be freed by reference counting meanwhile: the count can
        # only shrink by those, never drop to 0 (that would be an unfreeze)
        frozen = gc.get_freeze_count()
        with _gc_paused():
            assert not gc.isenabled() and 0.9 * frozen < gc.get_freeze_count() <= frozen
        assert 0.9 * frozen < gc.get_freeze_count() <= frozen and gc.isenabled() == enabled
    finally:
        gc.unfreeze()
