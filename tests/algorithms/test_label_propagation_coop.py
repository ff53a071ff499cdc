"""Label propagation's cooperative semi-synchronous loop (``lp_semi``): compiled in CI, its
per-class items checked on the host, and on the GPU both loops (cooperative and CUDA-graph)
and the fallback after a refused launch against the plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp

from .test_label_propagation import host, py_semi_sync


@pytest.mark.parametrize("w", [None, np.int32])
def test_cooperative_kernel_compiles(w):
    from hpgraph.algorithms._label_propagation_gpu import labelprop_source
    from hpgraph.exceptions import DeviceUnavailable

    try:
        ptx = hp.backend.compile_ptx(labelprop_source(np.dtype(np.int32), None if w is None else np.dtype(w),
                                                      coop=True), "labelprop.cu",
                                     options=("-std=c++17",))
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert ".entry lp_semi" in ptx and ".entry lp_light" in ptx


def test_device_items_per_split():
    """10 words per class: classes with more hubs than split_max send them to the
    block-per-vertex list with the mid vertices (no spread-hub work), the others spread them."""
    from hpgraph.algorithms import _label_propagation_gpu as lpg

    rng = np.random.default_rng(4)
    deg = rng.integers(0, 40, 300).astype(np.int64)
    deg[[3, 4, 5, 150]] = [lpg.SMEM_CAP, lpg.SMEM_CAP + 9, 3 * lpg.CHUNK, lpg.SMEM_CAP // 2 + 1]
    deg[[10, 11]] = [lpg.SMEM_CAP // 2, 100]                     # mid vertices
    classes = [np.arange(0, 100), np.arange(100, 200), np.arange(200, 300)]
    sch = lpg._Schedule(np, deg, classes, np.int32)
    for split in (0, 1, 2, 3):
        items = np.asarray(sch.device_items(np, split)).reshape(-1, 10)
        assert items.shape == (3, 10)
        for row, (l0, lc, h0, mc, hc, i0, ic, s0, sc) in zip(items, sch.items):
            assert row[0] == l0 and row[1] == lc and row[4] == h0
            if hc > split:
                assert row.tolist() == [l0, lc, h0, hc + mc, h0, 0, i0, 0, s0, 0]
            else:
                assert row.tolist() == [l0, lc, h0 + hc, mc, h0, hc, i0, ic if hc else 0, s0,
                                        sc if hc else 0]
    assert [it[4] for it in sch.items] == [3, 1, 0]
    assert sch.device_items(np, 2) is sch.device_items(np, 2)          # cached per split


def _graph(directed):
    from hpgraph.algorithms._label_propagation_gpu import SMEM_CAP

    rng = np.random.default_rng(9)
    n = 3000
    big = SMEM_CAP // 2 + 500
    s = np.concatenate([np.zeros(400, np.int64), np.ones(big, np.int64), np.full(big, 2, np.int64),
                        rng.integers(3, 60, 300), rng.integers(0, n, 4000)])
    d = np.concatenate([rng.permutation(np.arange(3, n))[:400], rng.permutation(np.arange(3, n))[:big],
                        rng.permutation(np.arange(3, n))[:big], rng.integers(3, 60, 300),
                        rng.integers(0, n, 4000)])
    if directed:
        s, d = np.concatenate([s, d[:300]]), np.concatenate([d, s[:300]])
    nb = [[] for _ in range(n)]
    pairs = set()
    for u, v in zip(s.tolist(), d.tolist()):
        if u == v or (u, v) in pairs or (not directed and (v, u) in pairs):
            continue
        pairs.add((u, v))
        nb[u].append(v)
        nb[v].append(u)
    return hp.Graph.from_edges(s, d, num_vertices=n, directed=directed, backend="gpu"), nb, n


def _plan(G):
    from hpgraph.algorithms._triangles import simple_matrix

    return simple_matrix(G).derived("hpg.labelprop_plan", None)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_both_loops_equal_the_reference(directed):
    G, nb, n = _graph(directed)
    for loop in ("device", "graph"):
        for split in (2, 0):
            with hp.config.set(labelprop_loop=loop, labelprop_hub_split_per_sm=split):
                for seed in (None, 3, 3):                  # the same plan launched again
                    for it in (1, 2, 100):
                        lab = host(hp.label_propagation(G, seed=seed, max_iter=it, backend="gpu"))
                        np.testing.assert_array_equal(lab, py_semi_sync(nb, n, it, seed))
                        assert _plan(G).last_loop == loop


@pytest.mark.gpu
def test_refused_cooperative_launch_falls_back(monkeypatch):
    from hpgraph.algorithms import _coop

    G, nb, n = _graph(False)
    lab = host(hp.label_propagation(G, backend="gpu"))          # the device loop, compiled
    assert _plan(G).last_loop == "device"

    def refuse(self, args):
        raise _coop.CooperativeLaunchRefused("refused for the test")

    monkeypatch.setattr(_coop.CoopKernel, "launch", refuse)
    again = host(hp.label_propagation(G, backend="gpu"))
    assert _plan(G).last_loop == "graph"
    np.testing.assert_array_equal(again, lab)
    np.testing.assert_array_equal(lab, py_semi_sync(nb, n, 100, None))
