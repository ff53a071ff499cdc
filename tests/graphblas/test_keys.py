"""The sorted-key helpers of :mod:`hpgraph.graphblas._keys`."""

from __future__ import annotations

import numpy as np

from hpgraph.graphblas import _keys


def test_repeat_index_device_form_equals_numpy_repeat():
    """The device form (a scatter of jumps and a prefix sum, run here on NumPy arrays) gives
    ``repeat(arange(n), counts)``: empty segments first, last, in runs, and none at all."""
    rng = np.random.default_rng(7)
    cases = [np.array([3]), np.array([0, 0, 2, 0, 1, 0, 0]), np.array([1, 1, 1]),
             np.where(rng.random(5000) < 0.97, 0, rng.integers(1, 9, 5000))]
    for counts in cases:
        counts = counts.astype(np.int64)
        want = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
        got = _keys._owners(np, counts, int(counts.sum()))
        assert got.dtype == np.int64 and got.tolist() == want.tolist()
        assert _keys.repeat_index(np, counts).tolist() == want.tolist()
