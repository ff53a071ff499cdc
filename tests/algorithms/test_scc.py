"""Strong and weak components of directed graphs against scipy.sparse.csgraph and networkx,
both backends; the GPU's coloring method (NumPy arrays) against scipy on the CPU too."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.algorithms._vec import stored_edges
from hpgraph.algorithms.scc import _number, scc_roots
from hpgraph.exceptions import InvalidValue


def _canonical(labels):
    """Labels renumbered 0, 1, ... in the order of each component's smallest vertex."""
    labels = np.asarray(labels)
    n = labels.size
    first = {}
    out = np.empty(n, dtype=np.int64)
    for v in range(n):
        out[v] = first.setdefault(int(labels[v]), len(first))
    return out


@pytest.mark.cases(directed=True)
def test_scc_matches_scipy_and_networkx(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    k, lab = hp.strongly_connected_components(G, backend=backend_name)
    lab = cases.host(lab)
    assert lab.dtype == np.int32 and lab.shape == (graph_case.n,)
    A = cases.to_scipy(graph_case)
    if graph_case.n:
        ref_k, ref = csg.connected_components(A, directed=True, connection="strong")
    else:
        ref_k, ref = 0, np.zeros(0, np.int64)
    assert k == ref_k
    np.testing.assert_array_equal(lab, _canonical(ref))
    H = cases.to_networkx(graph_case)
    assert k == nx.number_strongly_connected_components(H)
    for comp in nx.strongly_connected_components(H):
        assert len({int(lab[v]) for v in comp}) == 1


@pytest.mark.cases(directed=True)
def test_scc_coloring_method_on_numpy(graph_case, cases):
    """The GPU's algorithm, run on NumPy arrays, gives scipy's components."""
    G = cases.to_graph(graph_case, "cpu")
    r, c, _ = stored_edges(G, loops=False)
    k, lab = _number(np, scc_roots(np, r, c, graph_case.n))
    want_k, want = hp.strongly_connected_components(G, backend="cpu")
    assert k == want_k
    np.testing.assert_array_equal(lab, want)


def test_scc_long_cycle_and_chain():
    n = 500
    s = np.r_[np.arange(n - 1), n - 1, np.arange(n, 2 * n - 1)]
    d = np.r_[np.arange(1, n), 0, np.arange(n + 1, 2 * n)]
    G = hp.Graph.from_edges(s, d, num_vertices=2 * n, backend="cpu")
    k, lab = _number(np, scc_roots(np, *stored_edges(G, loops=False)[:2], 2 * n))
    assert k == 1 + n
    assert np.all(lab[:n] == 0) and np.array_equal(lab[n:], np.arange(1, n + 1))


@pytest.mark.cases(directed=True)
def test_wcc_matches_scipy(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    k, lab = hp.weakly_connected_components(G, backend=backend_name)
    if graph_case.n:
        ref_k, ref = csg.connected_components(cases.to_scipy(graph_case), directed=True,
                                              connection="weak")
    else:
        ref_k, ref = 0, np.zeros(0, np.int64)
    assert k == ref_k
    np.testing.assert_array_equal(cases.host(lab), _canonical(ref))


@pytest.mark.cases(directed=False, max_n=10)
def test_scc_and_wcc_reject_undirected(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    for f in (hp.strongly_connected_components, hp.weakly_connected_components):
        with pytest.raises(InvalidValue, match="connected_components"):
            f(G, backend="cpu")


@pytest.mark.gpu
@pytest.mark.cases(directed=True)
def test_gpu_equals_cpu(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    for f in (hp.strongly_connected_components, hp.weakly_connected_components):
        kc, lc = f(G, backend="cpu")
        kg, lg = f(G.to_device(), backend="gpu")
        assert kc == kg
        np.testing.assert_array_equal(cases.host(lg), lc)
