"""``hp.sssp``'s near-far program for the GPU engine (``_sssp._near_far_class``): the
Bellman-Ford program ordered by distance, against a Dijkstra reference on every graph case,
for several bucket widths and several sources -- on the CPU engine (which orders by the same
near-far rule), and for ``delta = inf`` (no priority) through the GPU engine's host code on
emulated kernels (the emulator has no far-set split).  (``hp.sssp`` itself on the device:
``tests/algorithms/test_sssp*.py``.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import _sssp
from hpgraph.program import Seeded

SOURCES = ("first", "last", "three")


def _sources(n, which):
    return {"first": [0], "last": [n - 1], "three": sorted({0, n // 2, n - 1})}[which]


def _check(refs, G, sources, got):
    """Distances of ``got`` against Dijkstra from the nearest of ``sources``."""
    edges = refs.edge_list(G)
    want = np.min([refs.sssp(G.num_vertices, edges, s) for s in sources], axis=0)
    np.testing.assert_allclose(np.asarray(got.dist, np.float64), want, rtol=1e-6)


@pytest.mark.parametrize("delta", [1e-3, 1.0, 4.0, 1e9, math.inf])
@pytest.mark.parametrize("which", SOURCES)
def test_near_far_program_equals_dijkstra(case, refs, delta, which):
    G = refs.build(case)
    if G.num_vertices == 0:
        return
    prog = _sssp._near_far_class(np.dtype(np.float32), delta)
    assert (prog.priority == "dist") == (not math.isinf(delta))
    sources = _sources(G.num_vertices, which)
    _check(refs, G, sources, hp.run(prog, G, backend="cpu", dist0=Seeded(np.inf, 0),
                                    active=np.array(sources)))


@pytest.mark.parametrize("which", SOURCES)
def test_emulated_near_far_program_without_buckets(emulated, case, refs, which):
    G = refs.build(case)
    if G.num_vertices == 0:
        return
    prog = _sssp._near_far_class(np.dtype(np.float32), math.inf)
    sources = _sources(G.num_vertices, which)
    _check(refs, G, sources, emulated(prog, G, dist0=Seeded(np.inf, 0), active=np.array(sources)))


def test_near_far_class_keeps_a_positive_width():
    """A width below float32's smallest normal number would round to 0 on the device."""
    prog = _sssp._near_far_class(np.dtype(np.float32), 1e-300)
    assert prog.priority_delta >= np.finfo(np.float32).tiny
    assert _sssp._near_far_class(np.dtype(np.float64), 2.5).priority_delta == 2.5
