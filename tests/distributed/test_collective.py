"""The CPU collective (TCP star) inside real jobs: allgather of slices of different lengths,
of bitmaps, allreduce of vectors and scalars, every rank seeing the same result."""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import distributed as hpd
from hpgraph.distributed._job import run_job


def _graph(cluster, n):
    return hpd.DistributedGraph(cluster, hp.Graph.from_edges([], [], num_vertices=n))


def test_allgather_allreduce(cluster):
    dg = _graph(cluster, 23)  # uneven slices

    def kernel(part, coll):  # nested: pickled by value to the workers
        from hpgraph.distributed._collective import allgather_bitmap

        xp = part.xp
        ids = xp.arange(part.lo, part.hi)
        whole = coll.allgather((ids * 10).astype(np.int64), part.counts)
        floats = coll.allgather(ids.astype(np.float32) / 4, part.counts)
        bits = allgather_bitmap(coll, xp, ids % 3 == 0, part.counts)
        vec = coll.allreduce(np.full(5, part.rank + 1, np.int64), "sum")
        lo = coll.allreduce(np.float64(part.rank + 0.5), "min")
        hi = coll.allreduce(np.array([part.rank, -part.rank], np.int32), "max")
        empty = coll.allgather(np.zeros(0, np.int64), [0] * part.size)
        return (whole, floats, bits, vec, lo, hi, empty), 1, 0

    values, info = run_job(dg, kernel, {})
    P, n = dg.num_partitions, 23
    for whole, floats, bits, vec, lo, hi, empty in values:  # the same on every rank
        np.testing.assert_array_equal(whole, np.arange(n) * 10)
        assert floats.dtype == np.float32
        np.testing.assert_array_equal(floats, np.arange(n, dtype=np.float32) / 4)
        np.testing.assert_array_equal(bits, np.arange(n) % 3 == 0)
        np.testing.assert_array_equal(vec, np.full(5, P * (P + 1) // 2))
        assert lo == 0.5
        np.testing.assert_array_equal(hi, [P - 1, 0])
        assert empty.shape == (0,)
    assert info.iterations == 1 and len(info.bytes_sent) == P


def test_rank_error_is_raised_typed(cluster2):
    """An hpgraph error raised by one rank reaches the caller as it is; the others end (their
    peer's socket closes) and the graph stays usable."""
    dg = _graph(cluster2, 6)

    def kernel(part, coll):
        from hpgraph.exceptions import InvalidValue

        if part.rank == 1:
            raise InvalidValue("rank 1 refuses")
        coll.allgather(np.zeros(part.hi - part.lo), part.counts)
        return np.zeros(0), 1, 0

    with pytest.raises(hp.exceptions.InvalidValue, match="rank 1 refuses"):
        run_job(dg, kernel, {})
    np.testing.assert_array_equal(hpd.bfs(dg, 0), [0, -1, -1, -1, -1, -1])


def test_job_timeout(cluster2):
    dg = _graph(cluster2, 4)

    def kernel(part, coll):
        import time

        time.sleep(3 if part.rank == 0 else 0)
        return np.zeros(0), 1, 0

    with pytest.raises(hp.exceptions.ClusterError, match="timeout"):
        run_job(dg, kernel, {}, timeout=0.5)
