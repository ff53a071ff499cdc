"""depth_first_events against networkx.dfs_labeled_edges (exact events and order), both
backends: the oracle graph has every vertex's neighbours inserted in increasing id, the order
hpgraph's CSR rows scan them."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms.dfs import KINDS, dfs_events
from hpgraph.exceptions import IndexOutOfBound


def _sorted_networkx(G):
    A = G.to_scipy()
    H = nx.DiGraph() if G.directed else nx.Graph()
    H.add_nodes_from(range(A.shape[0]))
    r = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))   # stored entries, zeros too
    c = A.indices
    order = np.lexsort((c, r))
    H.add_edges_from((int(u), int(v)) for u, v in zip(r[order], c[order]))
    return H


def _events(ev, host):
    return [(u, v, KINDS[k]) for u, v, k in zip(*(host(a).tolist() for a in ev))]


@pytest.mark.parametrize("depth_limit", [None, 0, 1, 3])
def test_matches_networkx(graph_case, backend_name, cases, depth_limit):
    G = cases.to_graph(graph_case, backend_name)
    H = _sorted_networkx(G.to_host())
    sources = [None] + ([graph_case.n // 2] if graph_case.n else [])
    for s in sources:
        ev = hp.depth_first_events(G, s, depth_limit, backend=backend_name)
        assert [str(cases.host(a).dtype) for a in ev] == ["int64", "int64", "int8"]
        assert _events(ev, cases.host) == list(nx.dfs_labeled_edges(H, s, depth_limit))


def test_rows_in_any_order():
    """dfs_events scans each row in its stored order (networkx's insertion order)."""
    H = nx.Graph()
    H.add_edges_from([(0, 3), (0, 1), (3, 2), (1, 2), (2, 4), (4, 4)])
    ptr, ind = [0], []
    for v in range(len(H)):
        ind.extend(H[v])
        ptr.append(len(ind))
    ev = dfs_events(np.asarray(ptr), np.asarray(ind), list(H), None)
    assert _events(ev, np.asarray) == list(nx.dfs_labeled_edges(H))
    ev = dfs_events(np.asarray(ptr), np.asarray(ind), [2], 2)
    assert _events(ev, np.asarray) == list(nx.dfs_labeled_edges(H, 2, 2))


def test_bad_source():
    G = hp.Graph.from_edges([0], [1], num_vertices=2, backend="cpu")
    with pytest.raises(IndexOutOfBound):
        hp.depth_first_events(G, 5, backend="cpu")
