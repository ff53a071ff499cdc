"""Biconnected components and articulation points against networkx, both backends.

networkx's search visits neighbours in insertion order; the oracle graph is built with each
vertex's neighbours inserted in increasing order (the order of hpgraph's CSR rows), so the
blocks, the edges within them and the articulation points must come in networkx's exact order.
"""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms.biconnected import tarjan_blocks
from hpgraph.exceptions import InvalidValue


def _sorted_networkx(G):
    """networkx Graph with the vertices 0..n-1 and every vertex's neighbours in increasing
    order (the edges of the CSR added in (row, column) order)."""
    A = G.to_scipy()
    H = nx.Graph()
    H.add_nodes_from(range(A.shape[0]))
    r = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))   # stored entries, zeros too
    c = A.indices
    order = np.lexsort((c, r))
    H.add_edges_from((int(u), int(v)) for u, v in zip(r[order], c[order]) if u <= v)
    return H


def _blocks(res, host):
    src, dst, ptr = host(res.source), host(res.target), host(res.block_ptr)
    return [list(zip(src[a:b].tolist(), dst[a:b].tolist())) for a, b in zip(ptr[:-1], ptr[1:])]


@pytest.mark.cases(directed=False)
def test_matches_networkx_order(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    res = hp.biconnected_components(G, backend=backend_name)
    H = _sorted_networkx(G.to_host())
    assert [str(a.dtype) for a in map(cases.host, res)] == ["int64"] * 4
    assert _blocks(res, cases.host) == list(nx.biconnected_component_edges(H))
    assert cases.host(res.articulation_points).tolist() == list(nx.articulation_points(H))


@pytest.mark.cases(directed=False, max_n=200)
def test_neighbour_order_is_followed(graph_case, cases):
    """tarjan_blocks on rows in a shuffled order gives networkx's order for that insertion."""
    rng = np.random.default_rng(graph_case.n)
    A = cases.to_graph(graph_case, "cpu").to_scipy()
    indptr, indices = A.indptr.astype(np.int64), A.indices.astype(np.int64).copy()
    H = nx.Graph()
    H.add_nodes_from(range(A.shape[0]))
    for v in range(A.shape[0]):
        row = indices[indptr[v]:indptr[v + 1]]
        rng.shuffle(row)
    # networkx's adjacency after inserting each vertex's edges in the shuffled order (an edge
    # already added from its other end keeps its place), read back from H
    for v in range(A.shape[0]):
        H.add_edges_from((v, int(w)) for w in indices[indptr[v]:indptr[v + 1]])
    ptr = np.zeros(A.shape[0] + 1, dtype=np.int64)
    ind = []
    for v in H:
        ind.extend(H[v])
        ptr[v + 1] = len(ind)
    res = tarjan_blocks(ptr, np.asarray(ind, dtype=np.int64))
    assert _blocks(res, np.asarray) == list(nx.biconnected_component_edges(H))
    assert res.articulation_points.tolist() == list(nx.articulation_points(H))


def test_small_graph_exact():
    # two triangles sharing vertex 2, a pendant 5 on 4, an isolated vertex 6
    G = hp.Graph.from_edges([0, 1, 2, 2, 3, 4, 4], [1, 2, 0, 3, 4, 2, 5], num_vertices=7,
                            directed=False, backend="cpu")
    res = hp.biconnected_components(G, backend="cpu")
    assert _blocks(res, np.asarray) == [[(4, 5)], [(2, 3), (3, 4), (4, 2)],
                                        [(0, 1), (1, 2), (2, 0)]]
    assert res.articulation_points.tolist() == [4, 2]


def test_empty_and_directed():
    res = hp.biconnected_components(hp.Graph.from_edges([], [], num_vertices=0, directed=False,
                                                        backend="cpu"), backend="cpu")
    assert res.block_ptr.tolist() == [0] and res.source.shape == (0,)
    with pytest.raises(InvalidValue, match="undirected"):
        hp.biconnected_components(hp.Graph.from_edges([0], [1], num_vertices=2, backend="cpu"),
                                  backend="cpu")
