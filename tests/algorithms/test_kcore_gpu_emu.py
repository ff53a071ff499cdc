"""The GPU path of ``hp.k_core`` (``_kcore_gpu``: the kc_select / kc_push rounds of
``templates/kcore.cu``, batches of rounds until the done flag) run on the host: the kernels
through the CUDA emulator of the graphblas tests, CuPy replaced by its NumPy stand-in
(``FakeCupy``).  Checked against ``networkx.core_number`` of the graph without self-loops.
Undirected graphs only: a directed graph's degrees come from a device SpMV first."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import _kcore_gpu as kgpu
from hpgraph.algorithms import kcore as kcore_mod

from ._device_input import OnDevice, declare_device_input


@pytest.fixture
def device(monkeypatch):
    emu = pytest.importorskip("tests.graphblas._cuda_emu")
    if not emu.available():
        pytest.skip("g++ is needed to emulate the kernels")
    emu.emulate_device_driver(monkeypatch)
    monkeypatch.setattr(kgpu, "HEAVY", 8)     # rows of more than 8 entries: pushed in chunks
    monkeypatch.setattr(kgpu, "BATCH", 3)     # runs of several batches
    real_prepare = kcore_mod.prepare

    def prepare(G, backend=None):
        G, _, on_dev = real_prepare(G, "cpu")
        return G, "gpu", on_dev

    monkeypatch.setattr(kcore_mod, "prepare", prepare)


def nx_core(src, dst, n):
    H = nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from((u, v) for u, v in zip(src, dst) if u != v)
    c = nx.core_number(H)
    return np.array([c[v] for v in range(n)], dtype=np.int32)


@pytest.mark.parametrize("seed", [1, 2])
def test_k_core_gpu_path_matches_networkx(device, seed):
    """A K6 (core 5), a hub of degree 25 (a heavy row), a random part, a self-loop, repeated
    edges, isolated vertices: levels that jump, many rounds."""
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(6, 1)
    s = i.tolist() + [6] * 25 + rng.integers(7, 40, 60).tolist() + [8, 9, 9]
    d = j.tolist() + list(range(7, 32)) + rng.integers(7, 40, 60).tolist() + [8, 10, 10]
    n = 45
    G = hp.Graph.from_edges(np.array(s), np.array(d), num_vertices=n, directed=False,
                            backend="cpu")
    got = hp.k_core(G)
    assert isinstance(got, np.ndarray) and got.dtype == np.int32 and got.shape == (n,)
    np.testing.assert_array_equal(got, nx_core(s, d, n))
    assert got[:6].tolist() == [5] * 6 and got[44] == 0


def test_k_core_gpu_path_result_side(device, monkeypatch):
    """The device side runs the device peeling (``core_numbers``, not the host loop), and its
    result goes to the input's side: an input on the device gets it on the device (``to=None``,
    ``backend.to_device`` replaced by a recorder), ``to="numpy"`` on the host."""
    calls = []
    real_core_numbers = kgpu.core_numbers

    def core_numbers(S, deg):
        calls.append(S.shape)
        return real_core_numbers(S, deg)

    monkeypatch.setattr(kgpu, "core_numbers", core_numbers)
    declare_device_input(monkeypatch, kcore_mod)         # over the emulated device side
    s, d, n = [0, 0, 0, 1, 1, 2, 3, 5], [1, 2, 3, 2, 3, 3, 4, 6], 8    # K4, a pendant, an edge
    G = hp.Graph.from_edges(np.array(s), np.array(d), num_vertices=n, directed=False,
                            backend="cpu")
    want = nx_core(s, d, n)
    assert want.tolist() == [3, 3, 3, 3, 1, 1, 1, 0]
    got = hp.k_core(G)
    assert isinstance(got, OnDevice) and got.a.dtype == np.int32
    np.testing.assert_array_equal(got.a, want)
    got = hp.k_core(G, to="numpy")
    assert isinstance(got, np.ndarray) and got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    assert calls == [(n, n), (n, n)]
