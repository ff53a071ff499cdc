"""Colliders and v-structures against networkx (exact triples and order), both backends: the
oracle graph has every vertex's predecessors inserted in increasing id, the order hpgraph pairs
them in."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms._colliders import collider_triples
from hpgraph.exceptions import InvalidValue


def _oracle(G):
    A = G.to_scipy()
    H = nx.DiGraph()
    H.add_nodes_from(range(A.shape[0]))
    r = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    c = A.indices
    order = np.lexsort((c, r))     # by tail: every predecessor list in increasing id
    H.add_edges_from((int(u), int(v)) for u, v in zip(r[order], c[order]))
    return H


def _triples(res, host):
    return list(zip(*(host(a).tolist() for a in res)))


@pytest.mark.cases(directed=True, max_n=400)
def test_match_networkx(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    H = _oracle(G.to_host())
    got = hp.colliders(G, backend=backend_name)
    assert [str(cases.host(a).dtype) for a in got] == ["int64"] * 3
    assert _triples(got, cases.host) == list(nx.dag.colliders(H))
    got = hp.colliders(G, unshielded=True, backend=backend_name)
    assert _triples(got, cases.host) == list(nx.dag.v_structures(H))


def test_vertex_ranges_and_given_order():
    # predecessors in a given (unsorted) order, in two vertex ranges
    indptr = np.array([0, 0, 3, 5], dtype=np.int64)
    preds = np.array([2, 0, 1, 1, 0], dtype=np.int64)
    a = collider_triples(np, indptr, preds, 0, 2)
    b = collider_triples(np, indptr, preds, 2, 3)
    assert _triples(a, np.asarray) == [(2, 1, 0), (2, 1, 1), (0, 1, 1)]
    assert _triples(b, np.asarray) == [(1, 2, 0)]


def test_repeated_edges_and_undirected():
    G = hp.Graph.from_edges([0, 0, 1, 2], [2, 2, 2, 0], num_vertices=3, duplicates="keep",
                            backend="cpu")
    assert _triples(hp.colliders(G, backend="cpu"), np.asarray) == [(0, 2, 1)]
    assert _triples(hp.colliders(G, unshielded=True, backend="cpu"), np.asarray) == [(0, 2, 1)]
    U = hp.Graph.from_edges([0], [1], num_vertices=2, directed=False, backend="cpu")
    with pytest.raises(InvalidValue, match="directed"):
        hp.colliders(U, backend="cpu")
