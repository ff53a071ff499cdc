"""Results go back to the input's side: an input that lived on the device gets its result
moved to the device (``to=None``), unless ``to="numpy"`` asks for the host.  CI has no GPU,
so the input is declared on the device (``prepare`` reports it) and ``backend.to_device`` is
replaced by a recorder; every return path of ``k_core``, ``connected_components`` and
``label_propagation`` is taken, and the values moved are checked against NetworkX / SciPy /
hand-computed results."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.algorithms import _label_propagation as lp_mod
from hpgraph.algorithms import _scipy_cpu
from hpgraph.algorithms import components as comp_mod
from hpgraph.algorithms import kcore as kcore_mod

from ._device_input import OnDevice, declare_device_input

SRC, DST, N = [0, 1, 2, 2, 5, 6], [1, 2, 0, 3, 6, 7], 9        # triangle + pendant, a path, 4, 8


@pytest.fixture
def device_input(monkeypatch):
    declare_device_input(monkeypatch, kcore_mod, comp_mod, lp_mod)


def graph(n=N, directed=False):
    if n == 0:
        return hp.Graph.from_edges([], [], num_vertices=0, directed=directed, backend="cpu")
    return hp.Graph.from_edges(SRC, DST, num_vertices=n, directed=directed, backend="cpu")


def nx_graph(directed=False):
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(N))
    H.add_edges_from(zip(SRC, DST))
    return H


def moved(x, want, dtype=np.int32):
    assert isinstance(x, OnDevice), type(x)
    assert x.a.dtype == dtype
    np.testing.assert_array_equal(x.a, want)


def on_host(x, want, dtype=np.int32):
    assert type(x) is np.ndarray and x.dtype == dtype
    np.testing.assert_array_equal(x, want)


@pytest.mark.parametrize("directed", [False, True])
def test_k_core(device_input, directed):
    core = nx.core_number(nx_graph(directed))
    want = [core[v] for v in range(N)]
    moved(hp.k_core(graph(directed=directed), backend="cpu"), want)
    on_host(hp.k_core(graph(directed=directed), backend="cpu", to="numpy"), want)
    moved(hp.k_core(graph(0), backend="cpu"), [])
    on_host(hp.k_core(graph(0), backend="cpu", to="numpy"), [])


@pytest.mark.parametrize("fastsv", [False, True])
def test_connected_components(device_input, monkeypatch, fastsv):
    if fastsv:
        monkeypatch.setattr(_scipy_cpu, "usable", lambda G: False)
    G = graph(directed=True)
    k_ref, ref = csg.connected_components(G.to_scipy(), directed=True, connection="weak")
    k, labels = hp.connected_components(G, backend="cpu")
    assert k == k_ref == 4
    moved(labels, ref)
    k, labels = hp.connected_components(G, backend="cpu", to="numpy")
    assert k == 4
    on_host(labels, ref)


def test_label_propagation(device_input):
    G = graph()
    # the triangle's vertices take label 1 (Prec-Min from the own ids); worked by the rules in
    # the module docstring, the synchronous mode's too: every path only hands labels along
    semi = hp.label_propagation(G, backend="cpu")
    assert isinstance(semi, OnDevice)
    sets = {}
    for v, lab in enumerate(semi.a.tolist()):
        sets.setdefault(lab, set()).add(v)
    assert sorted(map(sorted, sets.values())) == [[0, 1, 2, 3], [4], [5, 6, 7], [8]]
    on_host(hp.label_propagation(G, backend="cpu", to="numpy"), semi.a)
    # synchronous, one iteration: the smallest most frequent neighbour label
    want = [1, 0, 0, 2, 4, 6, 5, 6, 8]
    moved(hp.label_propagation(G, mode="synchronous", max_iter=1, backend="cpu"), want)
    on_host(hp.label_propagation(G, mode="synchronous", max_iter=1, backend="cpu", to="numpy"),
            want)
    # no iteration / no vertex: the own ids
    moved(hp.label_propagation(G, max_iter=0, backend="cpu"), np.arange(N))
    on_host(hp.label_propagation(G, max_iter=0, backend="cpu", to="numpy"), np.arange(N))
    moved(hp.label_propagation(graph(0), backend="cpu"), [])
    on_host(hp.label_propagation(graph(0), backend="cpu", to="numpy"), [])
