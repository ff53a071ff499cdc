"""The backend's functions beyond BFS / SSSP / link analysis, each against plain networkx.

Random graphs with string and tuple labels, shuffled insertion, self-loops (where networkx
allows them), isolated nodes, int and float weights, directed and undirected.  Exact equality
(values and, where networkx defines one, order) unless a comment says why not.
"""

import math

import networkx as nx
import numpy as np
import pytest

from hpgraph.nx_backend.interface import XFAILS, can_run
from tests.nx_backend.test_backend import BE, no_numpy_scalars, random_graph


GRAPHS = [(s, d) for s in range(3) for d in (False, True)]


def approx_dict(a, b, rel=1e-9, abs_=1e-12):
    assert set(a) == set(b)
    for k in a:
        assert a[k] == pytest.approx(b[k], rel=rel, abs=abs_), k


def path_length(G, path, weight):
    if weight is None:
        return len(path) - 1
    return sum(G[u][v][weight] for u, v in zip(path, path[1:]))


# ---------------------------------------------------------------------------------------------
# paths


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_unweighted_paths_exact(seed, directed):
    G = random_graph(seed, directed=directed, labels="tuple" if seed == 2 else "str")
    nodes = list(G)
    for s in nodes[::7]:
        for cutoff in (None, 1, 2):
            a = nx.single_source_shortest_path(G, s, cutoff, backend=BE)
            assert list(a.items()) == list(nx.single_source_shortest_path(G, s, cutoff).items())
            a = nx.single_target_shortest_path(G, s, cutoff, backend=BE)
            assert a == nx.single_target_shortest_path(G, s, cutoff)
        assert nx.shortest_path(G, s, backend=BE) == nx.shortest_path(G, s)
        for t in nodes[:6]:
            if nx.has_path(G, s, t):
                p = nx.shortest_path(G, s, t, backend=BE)
                assert p[0] == s and p[-1] == t
                assert len(p) == len(nx.shortest_path(G, s, t))  # ties may differ
                assert all(G.has_edge(u, v) for u, v in zip(p, p[1:]))
            else:
                with pytest.raises(nx.NetworkXNoPath):
                    nx.shortest_path(G, s, t, backend=BE)
    a = dict(nx.all_pairs_shortest_path_length(G, backend=BE))
    assert a == dict(nx.all_pairs_shortest_path_length(G))
    assert dict(nx.shortest_path_length(G, backend=BE)) == dict(nx.shortest_path_length(G))
    assert dict(nx.all_pairs_shortest_path(G, cutoff=2, backend=BE)) == \
        dict(nx.all_pairs_shortest_path(G, cutoff=2))
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path(G, "missing", backend=BE)


@pytest.mark.parametrize("seed,directed", GRAPHS)
@pytest.mark.parametrize("weights", ["int", "float"])
def test_weighted_all_pairs_and_multi_source(seed, directed, weights):
    G = random_graph(seed, directed=directed, weights=weights)
    nodes = list(G)
    want = dict(nx.all_pairs_dijkstra_path_length(G))
    got = dict(nx.all_pairs_dijkstra_path_length(G, backend=BE))
    assert got == want and no_numpy_scalars(got)
    assert dict(nx.all_pairs_bellman_ford_path_length(G, backend=BE)) == \
        dict(nx.all_pairs_bellman_ford_path_length(G))
    for s, (dist, paths) in nx.all_pairs_dijkstra(G, backend=BE):
        assert dist == want[s]
        for t, p in paths.items():
            assert p[0] == s and p[-1] == t
            assert path_length(G, p, "weight") == pytest.approx(want[s][t])
    srcs = nodes[:3]
    d1, p1 = nx.multi_source_dijkstra(G, srcs, backend=BE)
    d2, _ = nx.multi_source_dijkstra(G, srcs)
    assert d1 == d2
    for t, p in p1.items():
        assert p[0] in srcs and p[-1] == t
        assert path_length(G, p, "weight") == pytest.approx(d2[t])
    assert nx.multi_source_dijkstra_path_length(G, set(srcs), cutoff=5, backend=BE) == \
        nx.multi_source_dijkstra_path_length(G, set(srcs), cutoff=5)
    D1 = nx.floyd_warshall_numpy(G, nodelist=nodes[::-1], backend=BE)
    D2 = nx.floyd_warshall_numpy(G, nodelist=nodes[::-1])
    np.testing.assert_allclose(D1, D2)
    fw1, fw2 = nx.floyd_warshall(G, backend=BE), nx.floyd_warshall(G)
    for u in G:
        for v in G:
            assert fw1[u][v] == pytest.approx(fw2[u][v])
    s, t = nodes[0], nodes[5]
    if nx.has_path(G, s, t):
        L1, P1 = nx.bidirectional_dijkstra(G, s, t, backend=BE)
        assert L1 == pytest.approx(nx.bidirectional_dijkstra(G, s, t)[0])
        assert path_length(G, P1, "weight") == pytest.approx(L1)
        d, p = nx.single_source_bellman_ford(G, s, t, backend=BE)
        assert d == pytest.approx(nx.single_source_bellman_ford(G, s, t)[0])
        assert nx.bellman_ford_path(G, s, t, backend=BE)[-1] == t


def test_negative_weights_and_cycles():
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 2), ("b", "c", -1), ("a", "c", 4), ("c", "d", 1)])
    assert nx.negative_edge_cycle(G, backend=BE) is False
    J1, J2 = nx.johnson(G, backend=BE), nx.johnson(G)
    assert J1 == J2
    assert dict(nx.all_pairs_bellman_ford_path(G, backend=BE)) == \
        dict(nx.all_pairs_bellman_ford_path(G))
    G.add_edge("d", "a", weight=-5)
    assert nx.negative_edge_cycle(G, backend=BE) is True
    with pytest.raises(nx.NetworkXUnbounded):
        nx.johnson(G, backend=BE)
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford(G, "a", backend=BE)
    # Dijkstra with negative weights is declined (NotImplementedError without fallback)
    H = nx.DiGraph([(0, 1, {"weight": -1})])
    with pytest.raises(NotImplementedError):
        dict(nx.all_pairs_dijkstra_path_length(H, backend=BE))
    assert nx.negative_edge_cycle(nx.DiGraph(), backend=BE) is False


@pytest.mark.parametrize("directed", [False, True])
def test_average_shortest_path_length(directed):
    G = nx.gnp_random_graph(30, 0.2, seed=3, directed=directed)
    for u, v in G.edges:
        G[u][v]["weight"] = (u * 7 + v) % 5 + 1
    if directed:
        G = G.subgraph(max(nx.strongly_connected_components(G), key=len)).copy()
    else:
        G = G.subgraph(max(nx.connected_components(G), key=len)).copy()
    for kw in ({}, {"weight": "weight"}, {"weight": "weight", "method": "bellman-ford"},
               {"weight": "weight", "method": "floyd-warshall-numpy"}):
        assert nx.average_shortest_path_length(G, backend=BE, **kw) == pytest.approx(
            nx.average_shortest_path_length(G, **kw))
    H = G.copy()
    H.add_node("lonely")
    with pytest.raises(nx.NetworkXError):
        nx.average_shortest_path_length(H, backend=BE)
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.average_shortest_path_length(nx.Graph(), backend=BE)


# ---------------------------------------------------------------------------------------------
# traversal, components, DAG


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_dfs_exact(seed, directed):
    G = random_graph(seed, directed=directed)
    nodes = list(G)
    for source in (None, nodes[0], nodes[9]):
        for f in (nx.dfs_edges, nx.dfs_preorder_nodes, nx.dfs_postorder_nodes):
            assert list(f(G, source, backend=BE)) == list(f(G, source)), f.__name__
        assert nx.dfs_predecessors(G, source, backend=BE) == nx.dfs_predecessors(G, source)
        assert list(nx.dfs_successors(G, source, backend=BE).items()) == \
            list(nx.dfs_successors(G, source).items())
        T1, T2 = nx.dfs_tree(G, source, backend=BE), nx.dfs_tree(G, source)
        assert list(T1) == list(T2) and list(T1.edges) == list(T2.edges)
    assert can_run("dfs_edges", (G, nodes[0]), {"depth_limit": 2}) is True
    for limit in (0, 1, 2):
        for f in (nx.dfs_edges, nx.dfs_preorder_nodes, nx.dfs_postorder_nodes):
            assert list(f(G, nodes[0], limit, backend=BE)) == list(f(G, nodes[0], limit))
        assert nx.dfs_successors(G, nodes[0], limit, backend=BE) == \
            nx.dfs_successors(G, nodes[0], limit)


@pytest.mark.parametrize("seed", range(4))
def test_directed_components(seed):
    G = random_graph(seed, directed=True, p=0.04)
    assert list(nx.weakly_connected_components(G, backend=BE)) == \
        list(nx.weakly_connected_components(G))
    assert nx.number_weakly_connected_components(G, backend=BE) == \
        nx.number_weakly_connected_components(G)
    assert nx.is_weakly_connected(G, backend=BE) == nx.is_weakly_connected(G)
    s1 = list(nx.strongly_connected_components(G, backend=BE))
    s2 = list(nx.strongly_connected_components(G))
    assert sorted(map(sorted, s1)) == sorted(map(sorted, s2))
    # sinks first: no component reaches a component yielded before it... reversed
    pos = {v: i for i, c in enumerate(s1) for v in c}
    assert all(pos[u] >= pos[v] for u, v in G.edges)
    assert nx.number_strongly_connected_components(G, backend=BE) == len(s2)
    assert nx.is_strongly_connected(G, backend=BE) == nx.is_strongly_connected(G)
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.strongly_connected_components(G.to_undirected(), backend=BE)
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.connected_components(G, backend=BE))
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_strongly_connected(nx.DiGraph(), backend=BE)


@pytest.mark.parametrize("seed", range(4))
def test_topological_order_exact(seed):
    rng = np.random.default_rng(seed)
    names = [f"n{i}" for i in rng.permutation(40)]
    G = nx.DiGraph()
    G.add_nodes_from(names)
    for _ in range(80):
        i, j = sorted(rng.integers(0, 40, 2))
        if i != j:
            G.add_edge(names[i], names[j])
    assert list(nx.topological_generations(G, backend=BE)) == \
        list(nx.topological_generations(G))
    assert list(nx.topological_sort(G, backend=BE)) == list(nx.topological_sort(G))
    assert nx.is_directed_acyclic_graph(G, backend=BE) is True
    G.add_edge(names[-1], names[0])
    G.add_edge(names[0], names[-1])
    assert nx.is_directed_acyclic_graph(G, backend=BE) is False
    with pytest.raises(nx.NetworkXUnfeasible):
        list(nx.topological_sort(G, backend=BE))
    with pytest.raises(nx.NetworkXError):
        list(nx.topological_sort(nx.Graph([(1, 2)]), backend=BE))
    assert ("test_dag.py", "test_topological_sort6") in XFAILS


# ---------------------------------------------------------------------------------------------
# centrality and measures


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_centralities(seed, directed):
    G = random_graph(seed, directed=directed, weights="float")
    assert nx.degree_centrality(G, backend=BE) == nx.degree_centrality(G)
    if directed:
        assert nx.in_degree_centrality(G, backend=BE) == nx.in_degree_centrality(G)
        assert nx.out_degree_centrality(G, backend=BE) == nx.out_degree_centrality(G)
    else:
        with pytest.raises(nx.NetworkXNotImplemented):
            nx.in_degree_centrality(G, backend=BE)
    for kw in ({}, {"distance": "weight"}, {"wf_improved": False}):
        approx_dict(nx.closeness_centrality(G, backend=BE, **kw), nx.closeness_centrality(G, **kw))
        approx_dict(nx.harmonic_centrality(G, backend=BE, **{k: v for k, v in kw.items()
                                                              if k == "distance"}),
                    nx.harmonic_centrality(G, **{k: v for k, v in kw.items() if k == "distance"}))
    nodes = list(G)
    approx_dict(nx.harmonic_centrality(G, nbunch=nodes[:5], sources=nodes[3:20], backend=BE),
                nx.harmonic_centrality(G, nbunch=nodes[:5], sources=nodes[3:20]))
    approx_dict(nx.harmonic_centrality(G, nbunch=nodes[:15], sources=nodes[3:6], backend=BE),
                nx.harmonic_centrality(G, nbunch=nodes[:15], sources=nodes[3:6]))
    for kw in ({}, {"weight": "weight"}):
        approx_dict(nx.katz_centrality(G, 0.05, backend=BE, **kw),
                    nx.katz_centrality(G, 0.05, **kw))
    if not directed:
        for kw in ({}, {"weight": "weight"}):
            approx_dict(nx.eigenvector_centrality(G, max_iter=1000, backend=BE, **kw),
                        nx.eigenvector_centrality(G, max_iter=1000, **kw))
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.katz_centrality(G, 0.9, max_iter=3, backend=BE)


@pytest.mark.parametrize("seed", range(4))
def test_clustering_cores_isolates(seed):
    G = random_graph(seed, directed=False, loops=True)
    G.add_node("alone")
    c1, c2 = nx.clustering(G, backend=BE), nx.clustering(G)
    assert c1 == c2 and all(type(c1[v]) is type(c2[v]) for v in G)
    assert nx.average_clustering(G, backend=BE) == nx.average_clustering(G)
    assert nx.average_clustering(G, count_zeros=False, backend=BE) == \
        nx.average_clustering(G, count_zeros=False)
    assert list(nx.isolates(G, backend=BE)) == list(nx.isolates(G))
    assert nx.number_of_isolates(G, backend=BE) == nx.number_of_isolates(G)
    assert nx.number_of_selfloops(G, backend=BE) == nx.number_of_selfloops(G)
    H = G.copy()
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    for f in (nx.k_core, nx.k_shell, nx.k_crust):
        for k in (None, 1, 2):
            A, B = f(H, k, backend=BE), f(H, k)
            assert list(A) == list(B) and sorted(A.edges) == sorted(B.edges), f.__name__
            assert nx.utils.graphs_equal(A, B)
    for k in (1, 2):
        A, B = nx.k_corona(H, k, backend=BE), nx.k_corona(H, k)
        assert list(A) == list(B) and sorted(A.edges) == sorted(B.edges)
    assert nx.is_forest(H, backend=BE) == nx.is_forest(H)
    assert nx.is_tree(H, backend=BE) == nx.is_tree(H)
    assert nx.is_bipartite(H, backend=BE) == nx.is_bipartite(H)
    T = nx.random_labeled_tree(30, seed=seed)
    assert nx.is_tree(T, backend=BE) and nx.is_forest(T, backend=BE) and \
        nx.is_bipartite(T, backend=BE)
    assert nx.global_efficiency(H, backend=BE) == nx.global_efficiency(H)


@pytest.mark.parametrize("seed", range(3))
def test_link_prediction_reciprocity_modularity(seed):
    G = random_graph(seed, directed=False, n=25, p=0.15)
    for f in (nx.jaccard_coefficient, nx.adamic_adar_index, nx.resource_allocation_index,
              nx.preferential_attachment):
        a, b = list(f(G, backend=BE)), list(f(G))
        assert [(u, v) for u, v, _ in a] == [(u, v) for u, v, _ in b], f.__name__
        assert [p for *_, p in a] == pytest.approx([p for *_, p in b]), f.__name__
        pairs = list(G.edges)[:5]
        assert [p for *_, p in f(G, pairs, backend=BE)] == \
            pytest.approx([p for *_, p in f(G, pairs)])
    with pytest.raises(nx.NodeNotFound):
        list(nx.jaccard_coefficient(G, [("nope", list(G)[0])], backend=BE))
    D = random_graph(seed, directed=True, n=25, p=0.15)
    assert nx.overall_reciprocity(D, backend=BE) == nx.overall_reciprocity(D)
    nodes = [v for v in D if D.degree(v)]
    assert nx.reciprocity(D, nodes, backend=BE) == nx.reciprocity(D, nodes)
    assert nx.reciprocity(D, nodes[0], backend=BE) == nx.reciprocity(D, nodes[0])
    for H in (G, D):
        comms = [set(list(H)[i::3]) for i in range(3)]
        for kw in ({}, {"weight": None}, {"resolution": 0.5}):
            assert nx.community.modularity(H, comms, backend=BE, **kw) == pytest.approx(
                nx.community.modularity(H, comms, **kw))
        with pytest.raises(nx.NetworkXError, match="not a valid partition"):
            nx.community.modularity(H, comms[:2], backend=BE)


@pytest.mark.parametrize("directed", [False, True])
def test_cuts(directed):
    G = random_graph(5, directed=directed, n=30, p=0.15, loops=False)
    nodes = list(G)
    S, T = set(nodes[:10]), set(nodes[10:22])
    for kw in ({}, {"weight": "weight"}):
        assert nx.cut_size(G, S, T, backend=BE, **kw) == nx.cut_size(G, S, T, **kw)
        assert nx.volume(G, S, backend=BE, **kw) == nx.volume(G, S, **kw)
        for f in (nx.normalized_cut_size, nx.conductance, nx.edge_expansion):
            assert f(G, S, T, backend=BE, **kw) == pytest.approx(f(G, S, T, **kw))
            if not directed:
                assert f(G, S, backend=BE, **kw) == pytest.approx(f(G, S, **kw))
    assert nx.node_boundary(G, S, backend=BE) == nx.node_boundary(G, S)
    assert nx.node_boundary(G, S, T, backend=BE) == nx.node_boundary(G, S, T)
    assert nx.node_expansion(G, S, backend=BE) == nx.node_expansion(G, S)
    assert nx.boundary_expansion(G, S, backend=BE) == nx.boundary_expansion(G, S)
    assert math.isfinite(nx.mixing_expansion(G, S, T, backend=BE))
    assert nx.mixing_expansion(G, S, T, backend=BE) == nx.mixing_expansion(G, S, T)


def test_config_validation_and_logging(caplog):
    cfg = nx.config.backends.hpgraph
    with pytest.raises(AttributeError, match="devise"):
        cfg.devise = "gpu"
    with pytest.raises(ValueError, match="device"):
        cfg.device = "tpu"
    with pytest.raises(TypeError, match="min_edges"):
        cfg.min_edges = "10"
    with pytest.raises(ValueError, match="min_edges"):
        cfg.min_edges = -1
    assert cfg.device is None and cfg.min_edges == 50_000
    import logging

    with caplog.at_level(logging.DEBUG, logger="hpgraph.nx_backend"):
        nx.pagerank(nx.path_graph(4), backend=BE)
        with pytest.raises(NotImplementedError):
            nx.bfs_edges(nx.path_graph(4), 0, sort_neighbors=sorted, backend=BE)
    text = caplog.text
    assert "converted a networkx Graph (4 nodes, 6 adjacency entries" in text
    assert "networkx's pagerank ran on hpgraph" in text
    assert "cannot run networkx's bfs_edges: sort_neighbors" in text


@pytest.mark.parametrize("directed", [False, True])
def test_multigraphs_collapse_parallel_edges(directed):
    rng = np.random.default_rng(5 + directed)
    M = nx.MultiDiGraph() if directed else nx.MultiGraph()
    names = [f"m{i}" for i in rng.permutation(30)]
    M.add_nodes_from(names)
    for _ in range(90):
        u, v = rng.integers(0, 30, 2)
        M.add_edge(names[u], names[v], weight=int(rng.integers(1, 9)))
    s = names[0]
    assert list(nx.bfs_edges(M, s, backend=BE)) == list(nx.bfs_edges(M, s))
    assert list(nx.dfs_preorder_nodes(M, s, backend=BE)) == list(nx.dfs_preorder_nodes(M, s))
    assert nx.single_source_dijkstra_path_length(M, s, backend=BE) == \
        nx.single_source_dijkstra_path_length(M, s)  # the lightest parallel edge counts
    assert dict(nx.all_pairs_bellman_ford_path_length(M, backend=BE)) == \
        dict(nx.all_pairs_bellman_ford_path_length(M))
    np.testing.assert_array_equal(nx.floyd_warshall_numpy(M, backend=BE),
                                  nx.floyd_warshall_numpy(M))
    if directed:
        assert list(nx.weakly_connected_components(M, backend=BE)) == \
            list(nx.weakly_connected_components(M))
    else:
        assert list(nx.connected_components(M, backend=BE)) == list(nx.connected_components(M))
        assert nx.is_bipartite(M, backend=BE) == nx.is_bipartite(M)
    assert list(nx.isolates(M, backend=BE)) == list(nx.isolates(M))
    # functions whose result counts parallel edges are declined
    assert "multigraphs" in can_run("pagerank", (M,), {})
    assert "multigraphs" in can_run("degree_centrality", (M,), {})


def test_graph_class_overriding_its_adjacency_view():
    # networkx's complement-graph class reports its edges only through G.adj / G[n]
    from networkx.algorithms.approximation.kcomponents import _AntiGraph

    A = _AntiGraph()
    A.add_nodes_from(range(8))
    A.add_edges_from([(0, 1), (2, 3), (4, 5), (1, 6)])  # edges *absent* from the dense graph
    dense = nx.Graph((u, v) for u in A for v in A[u])
    assert nx.core_number(A, backend=BE) == nx.core_number(dense)
    assert list(nx.connected_components(A, backend=BE)) == list(nx.connected_components(dense))


def test_multigraph_edge_subgraph_view():
    # a filtered multigraph view whose inner len() counts differ from its iteration
    M = nx.MultiGraph()
    M.add_weighted_edges_from([(0, 1, 5), (0, 1, 10), (1, 2, 4), (1, 2, 8), (2, 3, 5)])
    for edges in ([(0, 1, 0), (1, 2, 1), (2, 3, 0)], [(0, 1, 1), (1, 2, 0)]):
        T = M.edge_subgraph(edges)
        assert nx.is_connected(T, backend=BE) == nx.is_connected(T)
        assert nx.single_source_dijkstra_path_length(T, 0, backend=BE) == \
            nx.single_source_dijkstra_path_length(T, 0)


@pytest.mark.parametrize("directed", [False, True])
def test_forest_and_tree_on_multigraphs(directed):
    M = nx.MultiDiGraph() if directed else nx.MultiGraph()
    M.add_edges_from([("a", "b"), ("b", "c"), ("c", "d")])
    cases = [M.copy()]
    M.add_edge("a", "b")                      # a parallel edge: a cycle of length 2
    cases.append(M.copy())
    M.remove_edge("a", "b")
    M.add_node("e")                           # a forest, not a tree
    cases.append(M.copy())
    M.add_edge("e", "e")                      # a self-loop
    cases.append(M)
    for G in cases:
        assert nx.is_forest(G, backend=BE) == nx.is_forest(G)
        assert nx.is_tree(G, backend=BE) == nx.is_tree(G)
    assert [nx.is_tree(G) for G in cases] == [True, False, False, False]
    assert [nx.is_forest(G) for G in cases] == [True, False, True, False]


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_predecessor_exact(seed, directed):
    G = random_graph(seed, directed=directed, labels="tuple" if seed == 2 else "str")
    nodes = list(G)
    for s in nodes[::5]:
        for cutoff in (None, 0, 1, 2, 2.5, -1):
            a = nx.predecessor(G, s, cutoff=cutoff, backend=BE)
            assert list(a.items()) == list(nx.predecessor(G, s, cutoff=cutoff).items())
            p, seen = nx.predecessor(G, s, cutoff=cutoff, return_seen=True, backend=BE)
            q, seen2 = nx.predecessor(G, s, cutoff=cutoff, return_seen=True)
            assert list(seen.items()) == list(seen2.items()) and p == q
        for t in nodes[:8]:
            assert nx.predecessor(G, s, t, backend=BE) == nx.predecessor(G, s, t)
            assert nx.predecessor(G, s, t, return_seen=True, backend=BE) == \
                nx.predecessor(G, s, t, return_seen=True)
    with pytest.raises(nx.NodeNotFound):
        nx.predecessor(G, "missing", backend=BE)
    M = nx.MultiGraph(G.to_undirected())
    M.add_edges_from(list(M.edges)[:5])          # parallel edges: still one predecessor entry
    assert nx.predecessor(M, nodes[0], backend=BE) == nx.predecessor(M, nodes[0])
