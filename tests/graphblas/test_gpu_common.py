"""The chunk walk's one-pass placement (``graphblas/_gpu_common.py``: ``hp_ticket`` /
``hp_lookback``), run on the host by the emulator on prepared status words."""

from __future__ import annotations

import numpy as np
import pytest

AGG, INC, VAL = 1 << 62, 2 << 62, (1 << 62) - 1

_SRC = """
#define HP_TPB 32
#define HP_IPT 1
$CHUNK_WALK
extern "C" __global__ void t_lookback(unsigned long long* st, long long c, long long agg,
                                      long long* out)
{
    const long long before = hp_lookback(st, c, agg);
    out[threadIdx.x] = before;
}
"""


def _source():
    from hpgraph import cuda_source
    from hpgraph.graphblas._gpu_common import CHUNK_WALK

    return cuda_source.render(_SRC, CHUNK_WALK=CHUNK_WALK)


# (chunk c, distance back to the nearest inclusive status or None: only chunk 0's)
CASES = [(0, None), (1, 1), (5, 1), (40, 3), (40, 31), (40, 32), (40, 33), (100, 70),
         (100, None), (31, None), (32, None), (33, None)]


@pytest.mark.parametrize("c,back", CASES)
def test_lookback_sums_back_to_the_nearest_inclusive_status(c, back, emulated_gb):
    """Every lane of the warp gets the count of the chunks before ``c``: the nearest
    inclusive status plus the aggregates after it, across windows of 32 statuses; the
    chunk's own status becomes inclusive."""
    from hpgraph.graphblas._gpu_common import kernel

    rng = np.random.default_rng(c * 7 + (back or 0))
    counts = rng.integers(0, 2049, c + 1)
    st = np.zeros(c + 1, dtype=np.uint64)
    for j in range(c):
        st[j] = AGG | int(counts[j])
    first = 0 if back is None else c - back          # the inclusive one
    st[first] = INC | int(counts[:first + 1].sum())
    out = np.zeros(32, dtype=np.int64)
    kernel(_source(), "t_lookback")((1,), (32,), (st, np.int64(c), np.int64(counts[c]), out))
    want = int(counts[:c].sum())
    assert (out == want).all()
    assert int(st[c]) == INC | (want + int(counts[c]))
