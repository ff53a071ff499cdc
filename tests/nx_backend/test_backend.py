"""The networkx backend "hpgraph": results, order, types and errors equal networkx's.

Every dispatched function is called with ``backend="hpgraph"`` on random graphs (string and
tuple labels, shuffled insertion order, self-loops, isolated nodes, int and float weights,
directed and undirected) and compared with plain networkx.  Also: the entry points, the
conversion cache, can_run / should_run decisions, and HpGraph round trips.
"""

import math
import random
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest

from hpgraph.nx_backend import from_networkx
from hpgraph.nx_backend._info import FUNCTIONS, get_info
from hpgraph.nx_backend.algorithms import REGISTRY
from hpgraph.nx_backend.graph import HpGraph
from hpgraph.nx_backend.interface import BackendInterface, can_run, should_run

BE = "hpgraph"


def random_graph(seed, *, directed=False, n=40, p=0.08, weights="int", labels="str",
                 loops=True):
    rng = random.Random(seed)
    G = nx.DiGraph() if directed else nx.Graph()
    names = [f"v{i}" if labels == "str" else (i, "x") if labels == "tuple" else i
             for i in range(n)]
    rng.shuffle(names)
    G.add_nodes_from(names[: n // 2])  # some nodes first, the rest appear with their edges
    edges = [(u, v) for u in names for v in names if u != v and rng.random() < p]
    if loops:
        edges += [(u, u) for u in names if rng.random() < 0.05]
    rng.shuffle(edges)
    for u, v in edges:
        if weights == "int":
            G.add_edge(u, v, weight=rng.randint(1, 9))
        elif weights == "float":
            G.add_edge(u, v, weight=rng.uniform(0.5, 3.0))
        else:
            G.add_edge(u, v)
    G.add_nodes_from(names)
    return G


def no_numpy_scalars(obj):
    if isinstance(obj, np.generic):
        return False
    if isinstance(obj, dict):
        return all(no_numpy_scalars(k) and no_numpy_scalars(v) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return all(no_numpy_scalars(x) for x in obj)
    return True


GRAPHS = [(s, d) for s in range(4) for d in (False, True)]


# ---------------------------------------------------------------------------------------------
# registration


def test_entry_points_and_info():
    assert "hpgraph" in nx.utils.backends.backends
    info = nx.utils.backends.backend_info["hpgraph"]
    assert set(info["functions"]) == set(REGISTRY) == set(FUNCTIONS)
    assert dict(get_info()["default_config"]) == {"device": None, "min_edges": 50_000}
    for name in REGISTRY:
        assert hasattr(BackendInterface, name)
        assert "hpgraph" in nx.utils.backends._registered_algorithms[name].backends
    for required in ("bfs_edges", "bfs_tree", "bfs_layers", "bfs_predecessors", "descendants",
                     "has_path", "shortest_path_length", "single_source_shortest_path_length",
                     "single_source_dijkstra", "single_source_dijkstra_path_length",
                     "dijkstra_path_length", "single_source_bellman_ford_path_length",
                     "bellman_ford_path_length", "pagerank", "hits", "triangles",
                     "transitivity", "connected_components", "number_connected_components",
                     "is_connected", "node_connected_component", "core_number",
                     "betweenness_centrality"):
        assert required in REGISTRY


def test_info_module_is_light():
    code = ("import sys, hpgraph.nx_backend._info as m; m.get_info(); "
            "print(any(k in sys.modules for k in ('numpy', 'scipy', 'hpgraph.graph')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------------------------
# BFS family: exact order


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_bfs_family_exact(seed, directed):
    G = random_graph(seed, directed=directed, labels="tuple" if seed == 3 else "str")
    nodes = list(G)
    for s in nodes[:: max(1, len(nodes) // 6)]:
        for kw in ({}, {"depth_limit": 2}, {"depth_limit": 0}, {"reverse": True}):
            assert list(nx.bfs_edges(G, s, backend=BE, **kw)) == list(nx.bfs_edges(G, s, **kw))
        T1, T2 = nx.bfs_tree(G, s, backend=BE), nx.bfs_tree(G, s)
        assert list(T1.edges) == list(T2.edges) and list(T1) == list(T2)
        assert list(nx.bfs_predecessors(G, s, backend=BE)) == list(nx.bfs_predecessors(G, s))
        assert list(nx.bfs_successors(G, s, backend=BE, depth_limit=3)) == \
            list(nx.bfs_successors(G, s, depth_limit=3))
        d1 = nx.single_source_shortest_path_length(G, s, backend=BE)
        d2 = nx.single_source_shortest_path_length(G, s)
        assert list(d1.items()) == list(d2.items())  # same order too
        for cutoff in (0, 1, 2.5):
            assert list(nx.single_source_shortest_path_length(G, s, cutoff, backend=BE).items()) \
                == list(nx.single_source_shortest_path_length(G, s, cutoff).items())
        assert nx.descendants(G, s, backend=BE) == nx.descendants(G, s)
        assert nx.ancestors(G, s, backend=BE) == nx.ancestors(G, s)
        assert nx.descendants_at_distance(G, s, 2, backend=BE) == nx.descendants_at_distance(G, s, 2)
        for t in nodes[:5]:
            assert nx.has_path(G, s, t, backend=BE) == nx.has_path(G, s, t)
    srcs = nodes[:3]
    assert list(nx.bfs_layers(G, srcs, backend=BE)) == list(nx.bfs_layers(G, srcs))
    assert list(nx.bfs_layers(G, nodes[0], backend=BE)) == list(nx.bfs_layers(G, nodes[0]))


@pytest.mark.gpu
@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_bfs_family_exact_on_the_gpu(seed, directed):
    """The same checks with the backend on the GPU, where the levels come from the device's
    queue-order BFS (``algorithms._bfs_fifo``) instead of the host's rebuild from depths."""
    cfg = nx.config.backends.hpgraph
    before = cfg.get("device", None)
    cfg.device = "gpu"
    try:
        test_bfs_family_exact(seed, directed)
        G = random_graph(seed, directed=directed)
        for t in list(G)[:4]:
            assert list(nx.single_target_shortest_path_length(G, t, backend=BE).items()) == \
                list(nx.single_target_shortest_path_length(G, t).items())
    finally:
        cfg.device = before


@pytest.mark.parametrize("seed,directed", GRAPHS[:4])
def test_shortest_path_length_variants(seed, directed):
    G = random_graph(seed, directed=directed)
    nodes = list(G)
    s, t = nodes[1], nodes[7]
    for kw in ({}, {"weight": "weight"}, {"weight": "weight", "method": "bellman-ford"}):
        assert nx.shortest_path_length(G, s, backend=BE, **kw) == nx.shortest_path_length(G, s, **kw)
        assert nx.shortest_path_length(G, target=t, backend=BE, **kw) == \
            nx.shortest_path_length(G, target=t, **kw)
        try:
            expected = nx.shortest_path_length(G, s, t, **kw)
        except nx.NetworkXNoPath:
            with pytest.raises(nx.NetworkXNoPath):
                nx.shortest_path_length(G, s, t, backend=BE, **kw)
        else:
            assert nx.shortest_path_length(G, s, t, backend=BE, **kw) == expected
    assert nx.single_target_shortest_path_length(G, t, backend=BE) == \
        nx.single_target_shortest_path_length(G, t)
    with pytest.raises(ValueError, match="method not supported"):
        nx.shortest_path_length(G, s, backend=BE, method="astar")


# ---------------------------------------------------------------------------------------------
# weighted shortest paths


def valid_path(G, path, s, t, length, weight="weight"):
    assert path[0] == s and path[-1] == t
    total = sum(G[u][v].get(weight, 1) for u, v in zip(path, path[1:]))
    assert math.isclose(total, length, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("seed,directed", GRAPHS)
@pytest.mark.parametrize("weights", ["int", "float"])
def test_dijkstra_and_bellman_ford(seed, directed, weights):
    G = random_graph(seed, directed=directed, weights=weights)
    nodes = list(G)
    s = nodes[2]
    d1, p1 = nx.single_source_dijkstra(G, s, backend=BE)
    d2, _ = nx.single_source_dijkstra(G, s)
    assert d1 == d2 and set(p1) == set(d2)
    assert all(type(d1[v]) is type(d2[v]) for v in d2)  # ints stay ints
    for v, path in p1.items():
        valid_path(G, path, s, v, d2[v])
    assert nx.single_source_dijkstra_path_length(G, s, backend=BE) == \
        nx.single_source_dijkstra_path_length(G, s)
    assert nx.single_source_dijkstra_path_length(G, s, cutoff=5, backend=BE) == \
        nx.single_source_dijkstra_path_length(G, s, cutoff=5)
    assert nx.single_source_bellman_ford_path_length(G, s, backend=BE) == \
        nx.single_source_bellman_ford_path_length(G, s)
    for t in nodes[:8]:
        if t in d2:
            assert nx.dijkstra_path_length(G, s, t, backend=BE) == d2[t]
            assert nx.bellman_ford_path_length(G, s, t, backend=BE) == d2[t]
            valid_path(G, nx.dijkstra_path(G, s, t, backend=BE), s, t, d2[t])
            dist, path = nx.single_source_dijkstra(G, s, t, backend=BE)
            assert dist == d2[t]
            valid_path(G, path, s, t, dist)
        else:
            with pytest.raises(nx.NetworkXNoPath):
                nx.dijkstra_path_length(G, s, t, backend=BE)
            with pytest.raises(nx.NetworkXNoPath):
                nx.bellman_ford_path_length(G, s, t, backend=BE)


def test_negative_weights():
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 4), ("a", "c", 1), ("c", "b", -2), ("b", "d", 1)])
    assert nx.single_source_bellman_ford_path_length(G, "a", backend=BE) == \
        {"a": 0, "c": 1, "b": -1, "d": 0}
    G.add_weighted_edges_from([("d", "c", -1)])  # c -> b -> d -> c weighs -2
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(G, "a", backend=BE)
    with pytest.raises(nx.NetworkXUnbounded):
        nx.bellman_ford_path_length(G, "a", "d", backend=BE)
    # Dijkstra on negative weights is declined: networkx's own error comes through fallback
    H = nx.DiGraph([(8, 9, {"weight": -7}), (9, 8, {"weight": 3})])
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(H, 8, backend=BE)


# ---------------------------------------------------------------------------------------------
# link analysis, triangles, components, cores, centrality


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_pagerank(seed, directed):
    G = random_graph(seed, directed=directed, weights="float")
    nodes = list(G)
    pers = {v: i % 3 for i, v in enumerate(nodes)}
    dang = {nodes[0]: 1, nodes[1]: 3}
    for kw in ({}, {"weight": None}, {"alpha": 0.5, "personalization": pers},
               {"dangling": dang, "nstart": pers, "tol": 1e-10}):
        p1, p2 = nx.pagerank(G, backend=BE, **kw), nx.pagerank(G, **kw)
        assert list(p1) == list(p2)
        assert all(abs(p1[v] - p2[v]) < 1e-10 for v in p2)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=1, backend=BE)
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={"nope": 1}, backend=BE)
    assert nx.pagerank(nx.Graph(), backend=BE) == {}


@pytest.mark.parametrize("seed,directed", GRAPHS[:4])
def test_hits(seed, directed):
    G = random_graph(seed, directed=directed, weights="int", loops=False)
    h1, a1 = nx.hits(G, backend=BE)
    h2, a2 = nx.hits(G)
    assert list(h1) == list(h2)
    assert all(abs(h1[v] - h2[v]) < 1e-6 and abs(a1[v] - a2[v]) < 1e-6 for v in h2)
    h1, a1 = nx.hits(G, normalized=False, backend=BE)
    h2, a2 = nx.hits(G, normalized=False)
    sign = 1 if sum(a2.values()) > 0 else -1  # ARPACK's sign is arbitrary
    assert all(abs(a1[v] - sign * a2[v]) < 1e-6 and abs(h1[v] - sign * h2[v]) < 1e-5 for v in h2)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.hits(G, max_iter=0, backend=BE)
    assert nx.hits(nx.DiGraph(), backend=BE) == ({}, {})


@pytest.mark.parametrize("seed", range(4))
def test_triangles_transitivity(seed):
    G = random_graph(seed, n=50, p=0.15)
    t1, t2 = nx.triangles(G, backend=BE), nx.triangles(G)
    assert list(t1.items()) == list(t2.items())
    v = list(G)[3]
    assert nx.triangles(G, v, backend=BE) == nx.triangles(G, v)
    some = list(G)[:5] + ["missing"]
    assert nx.triangles(G, some, backend=BE) == nx.triangles(G, some)
    assert nx.transitivity(G, backend=BE) == nx.transitivity(G)
    assert nx.transitivity(nx.path_graph(4), backend=BE) == 0
    assert nx.transitivity(nx.Graph(), backend=BE) == 0
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.triangles(nx.DiGraph([(0, 1)]), backend=BE)


@pytest.mark.parametrize("seed", range(4))
def test_components(seed):
    G = random_graph(seed, n=60, p=0.02)
    c1, c2 = list(nx.connected_components(G, backend=BE)), list(nx.connected_components(G))
    assert c1 == c2  # same sets in the same order
    assert nx.number_connected_components(G, backend=BE) == len(c2)
    assert nx.is_connected(G, backend=BE) == nx.is_connected(G)
    for v in list(G)[:5]:
        assert nx.node_connected_component(G, v, backend=BE) == nx.node_connected_component(G, v)
    assert nx.is_connected(nx.complete_graph(5), backend=BE)
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_connected(nx.Graph(), backend=BE)
    with pytest.raises(KeyError):
        nx.node_connected_component(G, "missing", backend=BE)
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.connected_components(nx.DiGraph([(0, 1)]), backend=BE)


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_core_number(seed, directed):
    G = random_graph(seed, directed=directed, n=50, p=0.12, loops=False)
    assert list(nx.core_number(G, backend=BE).items()) == list(nx.core_number(G).items())
    G.add_edge(*[list(G)[0]] * 2)
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.core_number(G, backend=BE)


@pytest.mark.parametrize("seed,directed", GRAPHS[:4])
def test_betweenness(seed, directed):
    G = random_graph(seed, directed=directed, n=30, p=0.1)
    for kw in ({}, {"normalized": False}, {"endpoints": True}, {"k": 7, "seed": 3}):
        b1, b2 = nx.betweenness_centrality(G, backend=BE, **kw), nx.betweenness_centrality(G, **kw)
        assert list(b1) == list(b2)
        assert all(abs(b1[v] - b2[v]) < 1e-9 for v in b2)


def test_results_are_plain_python():
    G = random_graph(1, weights="float")
    D = random_graph(2, directed=True, loops=False)
    s = list(G)[0]
    results = [
        list(nx.bfs_edges(G, s, backend=BE)), list(nx.bfs_layers(G, s, backend=BE)),
        nx.single_source_shortest_path_length(G, s, backend=BE),
        nx.single_source_dijkstra(G, s, backend=BE),
        nx.single_source_bellman_ford_path_length(D, list(D)[0], backend=BE),
        nx.pagerank(G, backend=BE), nx.hits(D, backend=BE), nx.triangles(G, backend=BE),
        nx.transitivity(G, backend=BE), list(nx.connected_components(G, backend=BE)),
        nx.number_connected_components(G, backend=BE), nx.core_number(D, backend=BE),
        nx.betweenness_centrality(G, backend=BE), nx.shortest_path_length(G, s, backend=BE),
    ]
    assert all(no_numpy_scalars(r) for r in results)
    assert type(nx.number_connected_components(G, backend=BE)) is int
    assert type(nx.has_path(G, s, s, backend=BE)) is bool


def test_missing_nodes_raise_networkx_errors():
    G = nx.path_graph(4)
    D = nx.DiGraph([(0, 1)])
    gen = nx.bfs_edges(G, 9, backend=BE)  # lazy, like networkx
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        list(gen)
    with pytest.raises(nx.NetworkXError, match="not in the digraph"):
        list(nx.bfs_edges(D, 9, backend=BE))
    with pytest.raises(nx.NetworkXError):
        list(nx.bfs_layers(G, [0, 9], backend=BE))
    with pytest.raises(nx.NodeNotFound, match="Source 9"):
        nx.single_source_shortest_path_length(G, 9, backend=BE)
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra(G, 9, backend=BE)
    with pytest.raises(nx.NodeNotFound, match="Target 9"):
        nx.has_path(G, 0, 9, backend=BE)
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_bellman_ford_path_length(G, 9, backend=BE)
    G.add_node(7)
    with pytest.raises(nx.NetworkXNoPath):
        nx.shortest_path_length(G, 0, 7, backend=BE)
    assert nx.single_source_dijkstra(G, 0, 0, backend=BE) == (0, [0])
    assert nx.dijkstra_path_length(G, 0, 0, backend=BE) == 0


# ---------------------------------------------------------------------------------------------
# conversion, cache, can_run / should_run


@pytest.fixture
def count_conversions(monkeypatch):
    calls = []
    original = BackendInterface.convert_from_nx

    def counting(*args, **kwargs):
        calls.append(kwargs.get("edge_attrs"))
        return original(*args, **kwargs)

    monkeypatch.setattr(BackendInterface, "convert_from_nx", staticmethod(counting))
    return calls


def test_conversion_is_cached(count_conversions):
    G = random_graph(5)
    s = list(G)[0]
    nx.pagerank(G, backend=BE)
    nx.pagerank(G, backend=BE)
    nx.single_source_dijkstra_path_length(G, s, backend=BE)  # same {"weight": 1} conversion
    nx.bfs_edges(G, s, backend=BE)  # needs no attribute: the weighted one serves
    assert len(count_conversions) == 1
    G.add_edge("new1", "new2")  # networkx clears the cache on mutation
    nx.pagerank(G, backend=BE)
    assert len(count_conversions) == 2
    old = nx.config.cache_converted_graphs
    nx.config.cache_converted_graphs = False
    try:
        nx.pagerank(G, backend=BE)
        nx.pagerank(G, backend=BE)
    finally:
        nx.config.cache_converted_graphs = old
    assert len(count_conversions) == 4


def test_can_run_declines_with_reasons():
    M = nx.MultiGraph([(0, 1), (0, 1)])
    assert "multigraph" in can_run("pagerank", (M,), {})
    G = nx.path_graph(3)
    assert "weight functions" in can_run("single_source_dijkstra", (G, 0),
                                         {"weight": lambda u, v, d: 1})
    assert "sort_neighbors" in can_run("bfs_edges", (G, 0), {"sort_neighbors": sorted})
    assert can_run("shortest_path_length", (G,), {}) is True  # all pairs: dispatched
    assert can_run("betweenness_centrality", (G,), {"weight": "w"}) is True  # weighted: served
    assert "weight functions" in can_run("betweenness_centrality", (G,),
                                         {"weight": lambda u, v, d: 1})
    assert can_run("pagerank", (G,), {"alpha": 0.9}) is True
    assert can_run("pagerank", (G,), {"device": "cpu"}) is True
    assert "multigraph" in can_run("edge_betweenness_centrality", (M,), {})
    # declined calls with backend= explicitly raise networkx's NotImplementedError
    with pytest.raises(NotImplementedError):
        nx.pagerank(M, backend=BE)
    # and with fallback the networkx result comes back
    nx.config.fallback_to_nx, old = True, nx.config.fallback_to_nx
    try:
        nx.config.backend_priority.algos = [BE]
        assert list(nx.bfs_edges(G, 0, sort_neighbors=sorted)) == [(0, 1), (1, 2)]
    finally:
        nx.config.fallback_to_nx = old
        nx.config.backend_priority.algos = []


def test_missing_algorithm_is_declined(monkeypatch):
    from hpgraph.nx_backend import interface

    monkeypatch.setitem(interface._AVAILABLE, "k_core", False)
    reason = can_run("core_number", (nx.path_graph(3),), {})
    assert "hpgraph.algorithms.k_core" in reason
    with pytest.raises(NotImplementedError):
        nx.core_number(nx.path_graph(3), backend=BE)


def test_should_run(monkeypatch):
    monkeypatch.delenv("NETWORKX_TEST_BACKEND", raising=False)
    small = nx.path_graph(10)
    reason = should_run("pagerank", (small,), {})
    assert isinstance(reason, str) and "small graph" in reason
    nx.pagerank(small, backend=BE)  # converted and cached now
    assert should_run("pagerank", (small,), {}) is True
    monkeypatch.setenv("NETWORKX_TEST_BACKEND", "hpgraph")
    assert should_run("pagerank", (nx.path_graph(5),), {}) is True
    monkeypatch.delenv("NETWORKX_TEST_BACKEND")
    old = nx.config.backends.hpgraph.min_edges
    nx.config.backends.hpgraph.min_edges = 4
    try:
        assert should_run("pagerank", (nx.path_graph(5),), {}) is True
    finally:
        nx.config.backends.hpgraph.min_edges = old


def test_automatic_dispatch_skips_small_graphs(monkeypatch):
    monkeypatch.delenv("NETWORKX_TEST_BACKEND", raising=False)
    used = []
    impl = BackendInterface.pagerank
    monkeypatch.setattr(BackendInterface, "pagerank",
                        staticmethod(lambda *a, **k: used.append(1) or impl(*a, **k)))
    nx.config.backend_priority.algos = [BE]
    try:
        nx.pagerank(nx.path_graph(10))           # small: networkx runs
        assert not used
        H = from_networkx(nx.path_graph(10))     # a backend graph: hpgraph runs
        nx.pagerank(H)
        assert used
    finally:
        nx.config.backend_priority.algos = []


def test_hpgraph_round_trip_and_direct_use():
    G = random_graph(4, directed=True, weights="float")
    G.graph["name"] = "g"
    H = from_networkx(G, preserve_all_attrs=True)
    assert isinstance(H, HpGraph) and H.is_directed() and not H.is_multigraph()
    assert len(H) == len(G) and H.number_of_edges() == G.number_of_edges()
    back = BackendInterface.convert_to_nx(H)
    assert set(back.edges) == set(G.edges) and list(back) == list(G)
    assert all(back[u][v]["weight"] == d["weight"] for u, v, d in G.edges(data=True))
    assert back.graph["name"] == "g"
    s = list(G)[0]
    assert nx.single_source_dijkstra_path_length(H, s) == nx.single_source_dijkstra_path_length(G, s)
    assert BackendInterface.convert_to_nx(5) == 5
    U = random_graph(4)
    HU = from_networkx(U, weight=None)
    assert HU.number_of_edges() == U.number_of_edges()
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(HU, list(U)[0], weight="weight")
    # a multigraph converts with its parallel edges collapsed (the smallest weight kept)
    HM = BackendInterface.convert_from_nx(nx.MultiGraph([(0, 1, {"w": 3}), (0, 1, {"w": 2})]),
                                          edge_attrs={"w": 1})
    assert HM.is_multigraph() and HM.edge_values["w"].tolist() == [2, 2]
    with pytest.raises(NotImplementedError):
        BackendInterface.convert_from_nx(nx.Graph([(0, 1, {"w": "heavy"})]), edge_attrs={"w": 1})


def test_device_keyword():
    G = random_graph(6)
    assert nx.pagerank(G, backend=BE, device="cpu") == pytest.approx(nx.pagerank(G), abs=1e-10)


def test_backend_info_url_notes_and_extra_parameters():
    import re

    info = nx.utils.backends.backend_info["hpgraph"]
    assert info["url"] == re.search(r'^Homepage = "([^"]+)"', open(
        f"{__file__.rsplit('/tests/', 1)[0]}/pyproject.toml").read(), re.M).group(1)
    assert info["short_summary"] and info["backend_name"] == "hpgraph"
    for name, entry in info["functions"].items():
        assert len(entry["additional_docs"]) > 20, name       # what differs from networkx
        assert set(entry["additional_parameters"]) == {"device : str, optional"}, name
    # networkx appends them to its own docstrings
    assert "hpgraph :" in nx.pagerank.__doc__ and "device : str, optional" in nx.pagerank.__doc__


def test_logging_reaches_the_hpgraph_logger(caplog):
    import logging

    with caplog.at_level(logging.DEBUG, logger="hpgraph"):
        nx.number_connected_components(nx.path_graph(5), backend=BE)
        with pytest.raises(NotImplementedError):
            nx.pagerank(nx.MultiGraph([(0, 1)]), backend=BE)
    assert caplog.records and all(r.name == "hpgraph.nx_backend" for r in caplog.records)
    assert "number_connected_components ran on hpgraph" in caplog.text
    assert "cannot run networkx's pagerank: pagerank on multigraphs" in caplog.text
