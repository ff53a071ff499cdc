"""Matrix exports, predicates, degree pairs, structural holes, edge walks, simple paths and the
weighted / directed measures of the backend, each against plain networkx.

Random graphs with string and tuple labels, shuffled insertion, self-loops, isolated nodes,
several components, int and float weights, directed and undirected (and multigraphs where the
backend serves them).  Exact equality (values and order) unless a comment says why not.
"""

import random

import networkx as nx
import numpy as np
import pytest

from tests.nx_backend.test_backend import BE, no_numpy_scalars, random_graph


GRAPHS = [(s, d) for s in range(3) for d in (False, True)]


def approx_dict(a, b, rel=1e-9, abs_=1e-12):
    assert list(a) == list(b)
    for k in a:
        if isinstance(b[k], float) and np.isnan(b[k]):
            assert np.isnan(a[k]), k
        else:
            assert a[k] == pytest.approx(b[k], rel=rel, abs=abs_), k


def random_multigraph(seed, directed):
    rng = random.Random(seed)
    G = nx.MultiDiGraph() if directed else nx.MultiGraph()
    G.add_nodes_from(range(25))
    for _ in range(60):
        u, v = rng.randrange(25), rng.randrange(25)
        G.add_edge(u, v, weight=rng.randint(1, 5))
    return G


# ---------------------------------------------------------------------------------------------
# matrices


@pytest.mark.parametrize("seed,directed", GRAPHS)
@pytest.mark.parametrize("weights", ["int", "float", None])
def test_matrices(seed, directed, weights):
    G = random_graph(seed, directed=directed, weights=weights, labels="tuple" if seed else "str")
    nodes = list(G)
    sub = nodes[::3]
    rng = random.Random(seed)
    shuffled = nodes[:]
    rng.shuffle(shuffled)
    for kw in ({}, {"nodelist": shuffled}, {"nodelist": sub}, {"weight": None},
               {"dtype": float}):
        for fmt in ("csr", "coo"):
            a = nx.to_scipy_sparse_array(G, format=fmt, backend=BE, **kw)
            b = nx.to_scipy_sparse_array(G, format=fmt, **kw)
            assert a.format == b.format and a.dtype == b.dtype
            assert (a != b).nnz == 0
        a = nx.to_numpy_array(G, backend=BE, **kw)
        b = nx.to_numpy_array(G, **kw)
        assert a.dtype == b.dtype and np.array_equal(a, b)
    a = nx.adjacency_matrix(G, backend=BE)
    assert (a != nx.adjacency_matrix(G)).nnz == 0
    a = nx.to_numpy_array(G, nonedge=np.nan, backend=BE)
    assert np.array_equal(a, nx.to_numpy_array(G, nonedge=np.nan), equal_nan=True)
    rows, cols = nodes[: len(nodes) // 2], nodes[len(nodes) // 2:]
    for col in (cols, None):
        a = nx.bipartite.biadjacency_matrix(G, rows, col, backend=BE)
        b = nx.bipartite.biadjacency_matrix(G, rows, col)
        assert a.shape == b.shape and (a != b).nnz == 0
    with pytest.raises(nx.NetworkXError):
        nx.to_scipy_sparse_array(G, nodelist=[nodes[0], nodes[0]], backend=BE)
    with pytest.raises(nx.NetworkXError):
        nx.to_scipy_sparse_array(G, nodelist=["missing"], backend=BE)
    with pytest.raises(nx.NetworkXError):
        nx.to_numpy_array(G, nodelist=["missing"], backend=BE)


@pytest.mark.parametrize("directed", [False, True])
def test_matrices_multigraph(directed):
    G = random_multigraph(3, directed)
    a = nx.to_scipy_sparse_array(G, backend=BE)
    assert (a != nx.to_scipy_sparse_array(G)).nnz == 0
    for mw in (sum, min):
        assert np.array_equal(nx.to_numpy_array(G, multigraph_weight=mw, backend=BE),
                              nx.to_numpy_array(G, multigraph_weight=mw))


# ---------------------------------------------------------------------------------------------
# predicates


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_predicates(seed, directed):
    G = random_graph(seed, directed=directed)
    nodes = list(G)
    parts = [set(nodes[i::3]) for i in range(3)]
    assert nx.community.is_partition(G, parts, backend=BE) is True
    assert nx.community.is_partition(G, parts[:2], backend=BE) is False
    assert nx.is_regular(G, backend=BE) == nx.is_regular(G)
    assert nx.is_empty(G, backend=BE) == nx.is_empty(G)
    assert nx.is_eulerian(G, backend=BE) == nx.is_eulerian(G)
    assert nx.is_negatively_weighted(G, backend=BE) == nx.is_negatively_weighted(G)
    u, v = next(iter(G.edges))
    assert nx.is_negatively_weighted(G, (u, v), backend=BE) == \
        nx.is_negatively_weighted(G, (u, v))
    path = nx.shortest_path(G, u, v)
    for p in (path, path[::-1], [u], [], [u, u], nodes[:3]):
        assert nx.is_simple_path(G, p, backend=BE) == nx.is_simple_path(G, p)
    if not directed:
        assert nx.is_k_regular(G, 2, backend=BE) == nx.is_k_regular(G, 2)
        M = nx.maximal_matching(G)
        for m in (M, set(list(M)[:-1]), {(u, v)}):
            assert nx.is_matching(G, m, backend=BE) == nx.is_matching(G, m)
            assert nx.is_maximal_matching(G, m, backend=BE) == nx.is_maximal_matching(G, m)
            assert nx.is_perfect_matching(G, m, backend=BE) == nx.is_perfect_matching(G, m)
        with pytest.raises(nx.NetworkXError):
            nx.is_matching(G, {(u, "missing")}, backend=BE)
    C = nx.cycle_graph(6, create_using=nx.DiGraph if directed else nx.Graph)
    assert nx.is_eulerian(C, backend=BE) and nx.is_regular(C, backend=BE)


# ---------------------------------------------------------------------------------------------
# degree pairs, link prediction with communities, structural holes


@pytest.mark.parametrize("seed,directed", GRAPHS)
@pytest.mark.parametrize("weight", [None, "weight"])
def test_degree_pairs(seed, directed, weight):
    G = random_graph(seed, directed=directed, weights="float" if seed == 2 else "int")
    nodes = list(G)[::2]
    for kw in ({}, {"nodes": nodes}):
        a = list(nx.node_degree_xy(G, weight=weight, backend=BE, **kw))
        assert a == list(nx.node_degree_xy(G, weight=weight, **kw)) and no_numpy_scalars(a)
    approx_dict(nx.average_degree_connectivity(G, weight=weight, backend=BE),
                nx.average_degree_connectivity(G, weight=weight))
    approx_dict(nx.average_neighbor_degree(G, weight=weight, backend=BE),
                nx.average_neighbor_degree(G, weight=weight))
    if directed:
        for s, t in (("in", "out"), ("out", "in"), ("in+out", "in+out")):
            approx_dict(nx.average_neighbor_degree(G, source=s, target=t, backend=BE),
                        nx.average_neighbor_degree(G, source=s, target=t))
            approx_dict(nx.average_degree_connectivity(G, source=s, target=t, backend=BE),
                        nx.average_degree_connectivity(G, source=s, target=t))
    for i, v in enumerate(G):
        G.nodes[v]["color"] = i % 3
    assert list(nx.node_attribute_xy(G, "color", backend=BE)) == \
        list(nx.node_attribute_xy(G, "color"))
    approx_dict(nx.constraint(G, weight=weight, backend=BE), nx.constraint(G, weight=weight))
    approx_dict(nx.constraint(G, nodes, weight=weight, backend=BE),
                nx.constraint(G, nodes, weight=weight))
    approx_dict(nx.effective_size(G, weight=weight, backend=BE),
                nx.effective_size(G, weight=weight))
    approx_dict(nx.effective_size(G, nodes, weight=weight, backend=BE),
                nx.effective_size(G, nodes, weight=weight))


@pytest.mark.parametrize("seed", range(3))
def test_community_link_prediction(seed):
    G = random_graph(seed, weights=None)
    for i, v in enumerate(G):
        G.nodes[v]["community"] = i % 2
    pairs = list(nx.non_edges(G))[:40]
    for f in (nx.cn_soundarajan_hopcroft, nx.ra_index_soundarajan_hopcroft,
              nx.within_inter_cluster):
        for ebunch in (pairs, None):
            a = list(f(G, ebunch, backend=BE))
            b = list(f(G, ebunch))
            assert [x[:2] for x in a] == [x[:2] for x in b]
            assert [x[2] for x in a] == pytest.approx([x[2] for x in b])
    del G.nodes[pairs[0][0]]["community"]
    G.__networkx_cache__.clear()  # networkx does not see node-attribute changes
    with pytest.raises(nx.NetworkXAlgorithmError):
        list(nx.cn_soundarajan_hopcroft(G, pairs[:1], backend=BE))


# ---------------------------------------------------------------------------------------------
# edge walks and simple paths


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_edge_walks(seed, directed):
    G = random_graph(seed, directed=directed, weights=None, n=25, p=0.1)
    nodes = list(G)
    orientations = (None, "original", "reverse", "ignore") if directed else (None, "original")
    for src in (None, nodes[0], nodes[:4]):
        for o in orientations:
            assert list(nx.edge_dfs(G, src, o, backend=BE)) == list(nx.edge_dfs(G, src, o))
            assert list(nx.edge_bfs(G, src, o, backend=BE)) == list(nx.edge_bfs(G, src, o))
    for src in (None, nodes[1]):
        for lim in (None, 1, 3):
            assert list(nx.dfs_labeled_edges(G, src, lim, backend=BE)) == \
                list(nx.dfs_labeled_edges(G, src, lim))
            assert list(nx.dfs_edges(G, src, lim, backend=BE)) == list(nx.dfs_edges(G, src, lim))
            assert list(nx.dfs_postorder_nodes(G, src, lim, backend=BE)) == \
                list(nx.dfs_postorder_nodes(G, src, lim))
    for srcs in (nodes[0], nodes[:3]):
        assert list(nx.bfs_labeled_edges(G, srcs, backend=BE)) == \
            list(nx.bfs_labeled_edges(G, srcs))
    with pytest.raises(nx.NetworkXError):
        list(nx.edge_dfs(G, nodes[0], "sideways", backend=BE))


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_simple_paths(seed, directed):
    G = random_graph(seed, directed=directed, weights=None, n=12, p=0.25)
    nodes = list(G)
    for s, t in ((nodes[0], nodes[5]), (nodes[1], nodes[2:6]), (nodes[3], nodes[3])):
        for cutoff in (None, 2):
            assert list(nx.all_simple_paths(G, s, t, cutoff, backend=BE)) == \
                list(nx.all_simple_paths(G, s, t, cutoff))
            assert list(nx.all_simple_edge_paths(G, s, t, cutoff, backend=BE)) == \
                list(nx.all_simple_edge_paths(G, s, t, cutoff))
    with pytest.raises(nx.NodeNotFound):
        list(nx.all_simple_paths(G, "missing", nodes[0], backend=BE))
    M = nx.MultiDiGraph(G) if directed else nx.MultiGraph(G)
    M.add_edges_from(list(G.edges)[:5])
    assert list(nx.all_simple_paths(M, nodes[0], nodes[5], backend=BE)) == \
        list(nx.all_simple_paths(M, nodes[0], nodes[5]))


# ---------------------------------------------------------------------------------------------
# weighted / directed measures


@pytest.mark.parametrize("seed,directed", GRAPHS)
@pytest.mark.parametrize("weight", [None, "weight"])
def test_clustering_betweenness(seed, directed, weight):
    G = random_graph(seed, directed=directed, weights="float" if seed == 1 else "int")
    approx_dict(nx.clustering(G, weight=weight, backend=BE), nx.clustering(G, weight=weight))
    assert nx.average_clustering(G, weight=weight, backend=BE) == \
        pytest.approx(nx.average_clustering(G, weight=weight))
    approx_dict(nx.betweenness_centrality(G, weight=weight, backend=BE),
                nx.betweenness_centrality(G, weight=weight))
    approx_dict(nx.edge_betweenness_centrality(G, weight=weight, backend=BE),
                nx.edge_betweenness_centrality(G, weight=weight))
    if not directed:
        assert nx.square_clustering(G, backend=BE) == nx.square_clustering(G)
    nodes = list(G)
    s1 = set(nodes[::4])
    assert list(nx.edge_boundary(G, s1, backend=BE)) == list(nx.edge_boundary(G, s1))
    assert list(nx.edge_boundary(G, s1, nodes[1::4], backend=BE)) == \
        list(nx.edge_boundary(G, s1, nodes[1::4]))
    for t in nodes[:5]:
        if nx.has_path(G, nodes[0], t):
            assert nx.astar_path_length(G, nodes[0], t, weight=weight, backend=BE) == \
                nx.astar_path_length(G, nodes[0], t, weight=weight)
        else:
            with pytest.raises(nx.NetworkXNoPath):
                nx.astar_path(G, nodes[0], t, weight=weight, backend=BE)


@pytest.mark.parametrize("seed,directed", GRAPHS)
@pytest.mark.parametrize("weight", [None, "weight"])
def test_betweenness_subset(seed, directed, weight):
    G = random_graph(seed, directed=directed, weights="float" if seed == 1 else "int")
    nodes = list(G)
    for sources, targets in ((nodes[:5], nodes[5:12]), (nodes, nodes[:3])):
        for normalized in (False, True):
            approx_dict(nx.betweenness_centrality_subset(G, sources, targets, normalized,
                                                         weight, backend=BE),
                        nx.betweenness_centrality_subset(G, sources, targets, normalized,
                                                         weight))
            approx_dict(nx.edge_betweenness_centrality_subset(G, sources, targets,
                                                              normalized, weight, backend=BE),
                        nx.edge_betweenness_centrality_subset(G, sources, targets,
                                                              normalized, weight))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["fista", "greedy++"])
def test_densest_subgraph(seed, method):
    G = random_graph(seed, weights=None, n=30, p=0.15)
    for it in (1, 5):
        a = nx.approximation.densest_subgraph(G, it, method=method, backend=BE)
        assert a == nx.approximation.densest_subgraph(G, it, method=method)


@pytest.mark.parametrize("seed", range(4))
def test_biconnected(seed):
    G = random_graph(seed, weights=None, n=30, p=0.07)
    assert list(nx.biconnected_components(G, backend=BE)) == list(nx.biconnected_components(G))
    assert list(nx.biconnected_component_edges(G, backend=BE)) == \
        list(nx.biconnected_component_edges(G))
    assert list(nx.articulation_points(G, backend=BE)) == list(nx.articulation_points(G))
    assert nx.is_biconnected(G, backend=BE) == nx.is_biconnected(G)
    C = nx.cycle_graph(5)
    assert nx.is_biconnected(C, backend=BE)
    M = nx.MultiGraph(G)
    M.add_edges_from(list(G.edges)[:4])
    assert list(nx.articulation_points(M, backend=BE)) == list(nx.articulation_points(M))


@pytest.mark.parametrize("seed", range(4))
def test_chains_and_bridges(seed):
    G = random_graph(seed, weights=None, n=30, p=0.07)
    root = next(iter(G))
    for r in (None, root):
        assert list(nx.chain_decomposition(G, r, backend=BE)) == \
            list(nx.chain_decomposition(G, r))
        assert list(nx.bridges(G, r, backend=BE)) == list(nx.bridges(G, r))
        assert nx.has_bridges(G, r, backend=BE) == nx.has_bridges(G, r)
    M = nx.MultiGraph(G)
    M.add_edges_from(list(G.edges)[:6])
    assert list(nx.bridges(M, backend=BE)) == list(nx.bridges(M))
    with pytest.raises(nx.NodeNotFound):
        list(nx.chain_decomposition(G, "missing", backend=BE))


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weight", [None, "weight"])
def test_distance_measures(directed, weight):
    G = nx.cycle_graph(9, create_using=nx.DiGraph if directed else nx.Graph)
    G.add_edges_from([(0, 4), (4, 0), (2, 2)])
    for u, v in G.edges:
        G.edges[u, v]["weight"] = (u + 2 * v) % 5 + 1
    for f in (nx.eccentricity, nx.diameter, nx.radius, nx.periphery, nx.center):
        assert f(G, weight=weight, backend=BE) == f(G, weight=weight), f.__name__
    assert nx.eccentricity(G, 3, weight=weight, backend=BE) == nx.eccentricity(G, 3, weight=weight)
    assert nx.diameter(G, usebounds=True, backend=BE) == nx.diameter(G, usebounds=True)
    T = nx.balanced_tree(2, 3)
    assert nx.center(T, backend=BE) == nx.center(T)
    G.add_node("alone")
    with pytest.raises(nx.NetworkXError):
        nx.eccentricity(G, weight=weight, backend=BE)


def test_degree_sequences():
    rng = random.Random(5)
    seqs = [[], [0], [1, 1], [3, 3, 3, 3], [2, 2, 2], [4, 1, 1], [1.0, 1], [1.5, 1], [-1, 1],
            [5, 5, 4, 3, 2, 2, 2, 1, 1, 1]]
    seqs += [[rng.randint(0, 8) for _ in range(rng.randint(1, 12))] for _ in range(300)]
    seqs += [[d for _, d in nx.gnp_random_graph(15, 0.3, seed=s).degree] for s in range(30)]
    for seq in seqs:
        if any(int(x) != x for x in seq):
            for f in (nx.is_graphical, nx.is_valid_degree_sequence_erdos_gallai):
                with pytest.raises(nx.NetworkXError):
                    f(seq, backend=BE)
            continue
        for method in ("eg", "hh"):
            assert nx.is_graphical(seq, method, backend=BE) == nx.is_graphical(seq, method), seq
        assert nx.is_valid_degree_sequence_erdos_gallai(list(seq), backend=BE) == \
            nx.is_valid_degree_sequence_erdos_gallai(list(seq))
        assert nx.is_valid_degree_sequence_havel_hakimi(list(seq), backend=BE) == \
            nx.is_valid_degree_sequence_havel_hakimi(list(seq))
        assert nx.is_multigraphical(seq, backend=BE) == nx.is_multigraphical(seq)
        if seq:
            assert nx.is_pseudographical(seq, backend=BE) == nx.is_pseudographical(seq)
    with pytest.raises(nx.NetworkXException):
        nx.is_graphical([1, 1], method="xx", backend=BE)


@pytest.mark.parametrize("directed", [False, True])
def test_multigraph_edge_walks(directed):
    G = random_multigraph(7, directed)
    G.add_edge(3, 4, key="k")
    nodes = list(G)
    orientations = (None, "original", "reverse", "ignore") if directed else (None, "original")
    for src in (None, nodes[0]):
        for o in orientations:
            assert list(nx.edge_dfs(G, src, o, backend=BE)) == list(nx.edge_dfs(G, src, o))
            assert list(nx.edge_bfs(G, src, o, backend=BE)) == list(nx.edge_bfs(G, src, o))
    for t in nodes[3:6]:
        assert list(nx.all_simple_edge_paths(G, nodes[0], t, 3, backend=BE)) == \
            list(nx.all_simple_edge_paths(G, nodes[0], t, 3))
    s1 = set(nodes[::3])
    for keys in (False, True):
        assert list(nx.edge_boundary(G, s1, keys=keys, backend=BE)) == \
            list(nx.edge_boundary(G, s1, keys=keys))


@pytest.mark.parametrize("directed", [False, True])
def test_bfs_labeled_edges_multigraph_and_repeated_sources(directed):
    G = random_multigraph(5, directed)
    G.add_edge(2, 2)
    nodes = list(G)
    for srcs in (nodes[2], [nodes[2], nodes[7], nodes[2]], []):
        assert list(nx.bfs_labeled_edges(G, srcs, backend=BE)) == \
            list(nx.bfs_labeled_edges(G, srcs))


@pytest.mark.parametrize("block", [1 << 20, 3])
def test_colliders_in_networkx_order(block, monkeypatch):
    """Predecessors in networkx's insertion order; small blocks exercise the lazy chunks."""
    from hpgraph.nx_backend import _edge_traversal

    monkeypatch.setattr(_edge_traversal, "_BLOCK", block)
    G = random_graph(2, weights=None, n=30, p=0.15)
    D = nx.DiGraph()
    D.add_nodes_from(G)
    rng = random.Random(3)
    edges = [(u, v) if rng.random() < 0.5 else (v, u) for u, v in G.edges]
    rng.shuffle(edges)
    D.add_edges_from(edges)
    assert list(nx.dag.colliders(D, backend=BE)) == list(nx.dag.colliders(D))
    assert list(nx.dag.v_structures(D, backend=BE)) == list(nx.dag.v_structures(D))


@pytest.mark.parametrize("directed", [False, True])
def test_edge_bfs_from_sources(directed):
    """The vertex order comes from hpgraph's BFS: several sources (one repeated), every
    orientation, a multigraph with keys."""
    G = random_multigraph(11, directed)
    nodes = list(G)
    orientations = (None, "original", "reverse", "ignore") if directed else (None,)
    for src in ([nodes[4], nodes[9], nodes[4]], nodes[2]):
        for o in orientations:
            assert list(nx.edge_bfs(G, src, o, backend=BE)) == list(nx.edge_bfs(G, src, o))
            S = nx.DiGraph(G) if directed else nx.Graph(G)
            assert list(nx.edge_bfs(S, src, o, backend=BE)) == list(nx.edge_bfs(S, src, o))
