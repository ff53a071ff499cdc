"""The GPU path of ``hp.label_propagation`` (``_gpu_labels`` and the kernels of
``templates/labelprop.cu`` driven by ``_label_propagation_gpu``) run on the host: the kernels
through the CUDA emulator of the graphblas tests (g++, one thread per CUDA thread, warp
intrinsics emulated), CuPy replaced by NumPy arrays with the few device-array methods the
driver calls (``FakeCupy`` of the emulator).  CI has no GPU, so this is where the device path's host code is checked.

The results are checked against plain-Python references of the documented rules (written
here from the edge lists, not from hpgraph): greedy largest-first colouring, ties by the
splitmix64 priorities, semi-synchronous Prec-Min updates, synchronous smallest-label updates.
"""

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import _label_propagation as lp
from hpgraph.algorithms import _label_propagation_gpu as lpg

from ._device_input import OnDevice, declare_device_input
# the plain-Python references (colouring, semi-synchronous and synchronous updates)
from .test_label_propagation import py_semi_sync, py_sync


# ------------------------------------------------------------------------------------------
# references


def neighbour_lists(src, dst, n, directed):
    """Undirected: distinct non-loop neighbours.  Directed: predecessors and successors of the
    distinct non-loop arcs, a mutual pair counting twice."""
    arcs = set()
    for u, v in zip(src, dst):
        if u != v:
            arcs.add((u, v) if directed else (min(u, v), max(u, v)))
    nb = [[] for _ in range(n)]
    for u, v in sorted(arcs):
        nb[u].append(v)
        nb[v].append(u)
    return nb


@pytest.fixture
def device(monkeypatch):
    """``hp.label_propagation`` takes its GPU path (``prepare`` reports the device side) with
    the kernels emulated; small table and chunk sizes so that a small graph has light, mid
    and hub vertices and hub rows of several chunks."""
    emu = pytest.importorskip("tests.graphblas._cuda_emu")
    if not emu.available():
        pytest.skip("g++ is needed to emulate the kernels")
    emu.emulate_device_driver(monkeypatch)
    monkeypatch.setattr(lpg, "LIGHT", 4)
    monkeypatch.setattr(lpg, "SMEM_CAP", 16)     # degree 5..8: lp_heavy's shared table
    monkeypatch.setattr(lpg, "CHUNK", 8)         # degree > 8: hubs, rows of several chunks
    real_prepare = lp.prepare
    sides = []

    def prepare(G, backend=None):
        G, side, on_dev = real_prepare(G, "cpu")
        sides.append(side)
        return G, "gpu", on_dev

    monkeypatch.setattr(lp, "prepare", prepare)
    return sides


def _graph(directed, seed=4):
    """64 vertices: a hub (12 neighbours: rows of two chunks), a mid vertex (6), light ones, a
    self-loop, a repeated edge, a mutual pair, isolated vertices 30..63 (64 > 2 * 31 - 1)."""
    rng = np.random.default_rng(seed)
    s = [0] * 12 + [1] * 6 + rng.integers(2, 30, 22).tolist() + [5, 5, 0]
    d = list(range(2, 14)) + [9, 10, 11, 12, 20, 21] + rng.integers(2, 30, 22).tolist() + [5, 6, 2]
    s, d = s + [3], d + [0]                  # with 0 -> 3: a mutual pair
    n = 64
    G = hp.Graph.from_edges(np.array(s), np.array(d), num_vertices=n, directed=directed,
                            backend="cpu")
    return G, neighbour_lists(s, d, n, directed), n


@pytest.mark.parametrize("directed, split", [(False, 2), (True, 0)])
def test_gpu_path_matches_reference(device, directed, split):
    """Both schedules; hubs spread over blocks (split 2: at most two hubs a class) or a block
    each (split 0); two seeds on one graph (one plan, a schedule per seed); runs stopped early;
    the synchronous two-state cycle of a long run."""
    G, nb, n = _graph(directed)
    assert len(nb[0]) > 8 and 4 < len(nb[1]) <= 8
    with hp.config.set(labelprop_hub_split_per_sm=split):
        for seed, max_iter in ((5, 100), (None, 100), (None, 1)):
            got = hp.label_propagation(G, seed=seed, max_iter=max_iter)
            assert isinstance(got, np.ndarray) and got.dtype == np.int32 and got.shape == (n,)
            np.testing.assert_array_equal(got, py_semi_sync(nb, n, max_iter, seed))
        for max_iter in (1, 2, 1001):
            got = hp.label_propagation(G, max_iter=max_iter, mode="synchronous")
            np.testing.assert_array_equal(got, py_sync(nb, n, max_iter))
    assert device == ["cpu"] * 6
    # the spread hubs' tables, their best / own words and the block counter are clear at rest
    from hpgraph.algorithms._triangles import simple_matrix

    plan = simple_matrix(G).derived("hpg.labelprop_plan", None)
    assert int(np.asarray(plan.done)[0]) == 0
    for sch in plan.schedules.values():
        assert sch.tables is not None
        assert all((np.asarray(k) == -1).all() and not np.asarray(c).any() for k, c in sch.tables)
        assert not np.asarray(sch.best).any() and not np.asarray(sch.own).any()


@pytest.mark.parametrize("split", [2, 0])
def test_hub_keeps_its_label_on_a_tie(device, split):
    """Two hubs (12 and 11 neighbours: rows of two chunks) on 40 vertices, found by a search
    with the reference: in some iteration a hub's own label ties for the most frequent with a
    smaller one and Prec-Min keeps it (a hub decision that ignored its own label's count
    would take the smaller label and end elsewhere)."""
    s = [0] * 12 + [1] * 11 + [5, 33, 28, 13, 31, 38, 32, 28, 14, 25, 32, 29, 10, 17, 15, 28,
                               17, 17, 22, 24, 6, 37, 17, 8, 2, 18, 30, 13, 34, 9, 7, 16, 28,
                               13, 33, 2, 39, 3, 34, 2]
    d = [18, 13, 39, 26, 39, 17, 21, 21, 30, 21, 36, 9, 20, 11, 34, 7, 28, 36, 13, 12, 31, 24,
         23, 35, 5, 12, 16, 36, 4, 19, 20, 2, 18, 26, 18, 13, 24, 39, 6, 12, 37, 13, 27, 15, 33,
         24, 36, 26, 24, 20, 3, 6, 29, 26, 23, 6, 33, 32, 22, 11, 32, 21, 39]
    nb = neighbour_lists(s, d, 40, False)
    G = hp.Graph.from_edges(np.array(s), np.array(d), num_vertices=40, directed=False,
                            backend="cpu")
    with hp.config.set(labelprop_hub_split_per_sm=split):
        np.testing.assert_array_equal(hp.label_propagation(G), py_semi_sync(nb, 40, 100, None))


@pytest.mark.parametrize("directed, seed", [(False, None), (True, 3)])
def test_device_colouring_is_the_greedy_order(device, directed, seed):
    """``LabelPropPlan.colouring`` (the rounds of ``lp_colour_round``) against the sequential
    greedy colouring of the reference, on a random graph with repeats, self-loops, mutual
    pairs and isolated vertices."""
    from hpgraph.algorithms._triangles import simple_matrix

    from .test_label_propagation import py_colouring

    rng = np.random.default_rng(11)
    s, d = rng.integers(0, 50, 160).tolist(), rng.integers(0, 50, 160).tolist()
    s, d = s + [7, 7, 9], d + [7, 8, 8]
    n = 60
    G = hp.Graph.from_edges(np.array(s), np.array(d), num_vertices=n, directed=directed,
                            backend="cpu")
    nb = neighbour_lists(s, d, n, directed)
    S = simple_matrix(G)
    plan = lpg.LabelPropPlan(S)
    deg = np.array([len(x) for x in nb])
    got = plan.colouring(lp.colouring_rank(np, deg, seed))
    want, _ = py_colouring(nb, n, seed)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_device_path_degrees_and_seeds(device):
    """A directed graph with many mutual pairs (a mutual pair counts twice in a vertex's degree,
    which orders the colouring) under four seeds, one of which must change the result: the
    device path's colouring order against the reference's."""
    rng = np.random.default_rng(21)
    s, d = rng.integers(0, 40, 110), rng.integers(0, 40, 110)
    s, d = np.r_[s, d[:45]].tolist(), np.r_[d, s[:45]].tolist()     # 45 arcs made mutual
    n = 44                                                           # 40..43 isolated
    G = hp.Graph.from_edges(np.array(s), np.array(d), num_vertices=n, directed=True,
                            backend="cpu")
    nb = neighbour_lists(s, d, n, True)
    wants = []
    for seed in (None, 1, 2, 3):
        want = py_semi_sync(nb, n, 100, seed)
        wants.append(want.tolist())
        np.testing.assert_array_equal(hp.label_propagation(G, seed=seed), want)
    assert len({tuple(w) for w in wants}) > 1


def test_gpu_path_result_side(device, monkeypatch):
    """The device side runs the device driver (``_label_propagation_gpu.run``, not the
    vectorised path) on 64 vertices too (below 2**31 - 1 vertices), and its result goes to the
    input's side: an input on the device gets it on the device (``to=None``,
    ``backend.to_device`` replaced by a recorder), ``to="numpy"`` on the host."""
    runs = []
    real_run = lpg.run

    def run(S, key, *args):
        runs.append(key[0])
        return real_run(S, key, *args)

    monkeypatch.setattr(lpg, "run", run)
    declare_device_input(monkeypatch, lp)                # over the emulated device side
    G, nb, n = _graph(False)
    want = py_semi_sync(nb, n, 100, 5)
    got = hp.label_propagation(G, seed=5)
    assert isinstance(got, OnDevice) and got.a.dtype == np.int32
    np.testing.assert_array_equal(got.a, want)
    got = hp.label_propagation(G, seed=5, to="numpy")
    assert isinstance(got, np.ndarray) and got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    assert runs == ["semi", "semi"]
