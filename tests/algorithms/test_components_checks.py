"""Checks of ``connected_components``'s arguments and of both host paths: SciPy (taken on the
CPU) and FastSV (forced on the host by declaring SciPy unusable), each against
``scipy.sparse.csgraph.connected_components`` (weak components)."""

import re

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.algorithms import _scipy_cpu
from hpgraph.algorithms import components as comp_mod
from hpgraph.exceptions import InvalidValue

TO_MSG = "to must be None, 'numpy' or 'cupy', got 'bogus'"


def scipy_ref(cases, case):
    return csg.connected_components(cases.to_scipy(case), directed=True, connection="weak")


def small_graph():
    # components {0, 3}, {1}, {2, 4, 5}; vertex 6 isolated
    return hp.Graph.from_edges([3, 5, 4], [0, 2, 5], num_vertices=7, directed=True, backend="cpu")


@pytest.fixture
def fastsv_on_host(monkeypatch):
    """SciPy declared unusable: the CPU runs FastSV on the host (as beyond 2**31 - 1 vertices)."""
    monkeypatch.setattr(_scipy_cpu, "usable", lambda G: False)


def test_cpu_takes_scipy_path(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("FastSV must not run where SciPy can")

    monkeypatch.setattr(comp_mod, "fastsv_parents", fail)
    k, labels = hp.connected_components(small_graph(), backend="cpu")
    assert k == 4
    np.testing.assert_array_equal(labels, [0, 1, 2, 0, 2, 2, 3])


@pytest.mark.cases(max_n=300)
def test_fastsv_host_path_matches_scipy(graph_case, cases, fastsv_on_host):
    ref_n, ref = scipy_ref(cases, graph_case)
    k, labels = hp.connected_components(cases.to_graph(graph_case, "cpu"), backend="cpu")
    assert isinstance(k, int) and k == ref_n
    assert isinstance(labels, np.ndarray) and labels.dtype == np.int32
    np.testing.assert_array_equal(labels, ref)


@pytest.mark.parametrize("directed", [False, True])
def test_fastsv_host_path_reversed_path(directed, fastsv_on_host):
    n = 200
    ids = np.arange(n)[::-1].copy()
    G = hp.Graph.from_edges(ids[:-1], ids[1:], num_vertices=n + 2, directed=directed, backend="cpu")
    k, labels = hp.connected_components(G, backend="cpu", to="numpy")
    assert k == 3
    np.testing.assert_array_equal(labels, [0] * n + [1, 2])


@pytest.mark.parametrize("fastsv", [False, True])
@pytest.mark.parametrize("n", [0, 7])
def test_to_is_checked(n, fastsv, monkeypatch):
    if fastsv:
        monkeypatch.setattr(_scipy_cpu, "usable", lambda G: False)
    G = small_graph() if n else hp.Graph.from_edges([], [], num_vertices=0, directed=False, backend="cpu")
    with pytest.raises(InvalidValue, match=re.escape(TO_MSG)):
        hp.connected_components(G, backend="cpu", to="bogus")
    k, labels = hp.connected_components(G, backend="cpu", to="numpy")
    assert type(labels) is np.ndarray
    assert k == (4 if n else 0)
    np.testing.assert_array_equal(labels, [0, 1, 2, 0, 2, 2, 3][:n])


def test_backend_is_checked():
    with pytest.raises(InvalidValue, match="backend must be one of .*got 'bogus'"):
        hp.connected_components(small_graph(), backend="bogus")


def test_gpu_side_runs_fastsv(monkeypatch):
    """On the device side SciPy's path is never taken (even where it would be usable): FastSV
    runs, on that side.  (CI has no GPU: ``prepare`` reports the device side, and FastSV
    itself runs on the host.)"""
    real_prepare, real_fastsv = comp_mod.prepare, comp_mod.fastsv_parents
    sides = []

    def prepare(G, backend=None):
        G, _, on_dev = real_prepare(G, "cpu")
        return G, "gpu", on_dev

    def fastsv_parents(G, side):
        sides.append(side)
        return real_fastsv(G, "cpu")

    def scipy_path(G):
        raise AssertionError("SciPy's path must not run on the device side")

    monkeypatch.setattr(comp_mod, "prepare", prepare)
    monkeypatch.setattr(comp_mod, "fastsv_parents", fastsv_parents)
    monkeypatch.setattr(_scipy_cpu, "components_scipy", scipy_path)
    assert _scipy_cpu.usable(small_graph())
    k, labels = hp.connected_components(small_graph())
    assert k == 4 and sides == ["gpu"]
    np.testing.assert_array_equal(labels, [0, 1, 2, 0, 2, 2, 3])


def test_scatter_min_host():
    """``target[index[k]] = min(target[index[k]], values[k])`` into a new array, a repeated
    index taking the smallest of its values (hand-computed)."""
    target = np.array([5, 5, 5, 5, 5], dtype=np.int32)
    got = comp_mod._scatter_min(np, target, np.array([0, 0, 2, 3, 0]),
                                np.array([3, 1, 9, 4, 2], dtype=np.int32))
    assert got.dtype == np.int32 and got.tolist() == [1, 5, 5, 4, 5]
    assert target.tolist() == [5] * 5


def test_scatter_min_device_branch(monkeypatch):
    """Off the host it is ``cupyx.scatter_min`` on a copy (CI has no CuPy: a stand-in module
    doing the same on NumPy arrays, ``xp`` anything but NumPy)."""
    import types

    calls = []

    def scatter_min(a, index, values):
        calls.append(a)
        np.minimum.at(a, index, values)

    monkeypatch.setitem(__import__("sys").modules, "cupyx",
                        types.SimpleNamespace(scatter_min=scatter_min))
    target = np.array([5, 5, 5, 5, 5], dtype=np.int32)
    got = comp_mod._scatter_min(object(), target, np.array([0, 0, 2, 3, 0]),
                                np.array([3, 1, 9, 4, 2], dtype=np.int32))
    assert got.tolist() == [1, 5, 5, 4, 5] and calls[0] is got
    assert target.tolist() == [5] * 5
