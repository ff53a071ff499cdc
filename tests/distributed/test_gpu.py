"""The GPU path: a Dask cluster with one worker per GPU, partitions on the devices, NCCL
collectives.  Checked against SciPy and the single-process CPU results; run on the device
(one GPU: an NCCL communicator of size 1; several GPUs: one worker each)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph import distributed as hpd

from .conftest import CASES

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu_cluster():
    c = hpd.Cluster(backend="gpu")
    yield c
    c.close()


@pytest.mark.parametrize("name", ["components-1-d", "rmat-medium-s9-u", "grid-6x5-zero-weights",
                                  "loops-dups-d"])
def test_algorithms_on_gpus(gpu_cluster, name):
    case = next(c for c in CASES.graph_cases() if c.name == name)
    G = CASES.to_graph(case, "cpu")
    dg = hpd.DistributedGraph(gpu_cluster, G.to_device())  # a device graph is accepted
    parts = gpu_cluster.client.gather(dg.futures)
    assert all(p.side == "gpu" for p in parts)
    rank = hpd.pagerank(dg)
    np.testing.assert_allclose(rank, hp.pagerank(G, backend="cpu"), rtol=0, atol=1e-12)
    A = CASES.to_scipy(case)
    ref = csg.shortest_path(A, directed=True, unweighted=True, indices=[0])[0]
    np.testing.assert_array_equal(hpd.bfs(dg, 0), np.where(np.isinf(ref), -1, ref))
    dist = hpd.sssp(dg, 0, to="cupy")
    assert type(dist).__module__.startswith("cupy")
    np.testing.assert_array_equal(dist.get(), hp.sssp(G, 0, backend="cpu").distance)
    k, labels = hpd.connected_components(dg)
    k_ref, l_ref = csg.connected_components(A, directed=True, connection="weak")
    assert k == k_ref
    np.testing.assert_array_equal(labels, l_ref)


def test_nccl_collective(gpu_cluster):
    from hpgraph.distributed._job import run_job

    dg = hpd.DistributedGraph(gpu_cluster, hp.Graph.from_edges([], [], num_vertices=11))

    def kernel(part, coll):
        from hpgraph.distributed._collective import allgather_bitmap

        xp = part.xp
        ids = xp.arange(part.lo, part.hi)
        whole = coll.allgather(ids.astype(np.float64), part.counts)
        bits = allgather_bitmap(coll, xp, ids % 2 == 1, part.counts)
        total = coll.allreduce(np.int64(part.hi - part.lo), "sum")
        low = coll.allreduce(xp.full(3, part.rank, np.int32), "min")
        return (whole.get(), bits.get(), total, low.get()), 1, 0

    values, _ = run_job(dg, kernel, {})
    for whole, bits, total, low in values:
        np.testing.assert_array_equal(whole, np.arange(11.0))
        np.testing.assert_array_equal(bits, np.arange(11) % 2 == 1)
        assert total == 11
        np.testing.assert_array_equal(low, [0, 0, 0])


def test_vertex_program_on_gpus(gpu_cluster):
    from examples.sssp import SSSP64

    case = next(c for c in CASES.graph_cases() if c.name == "components-0-u")
    G = CASES.to_graph(case, "cpu")
    dg = hpd.DistributedGraph(gpu_cluster, G)
    out = hpd.run(dg, SSSP64, source=0)
    np.testing.assert_array_equal(out["dist"], CASES.sssp_reference(case, [0]))


def _comm_id(part, coll):
    return (part.comm[0], id(coll)), 1, 0


def _comm_fail(part, coll):
    from hpgraph.exceptions import InvalidValue

    raise InvalidValue("a rank failed on purpose")


def test_nccl_communicator_kept_between_jobs(gpu_cluster):
    """One NCCL communicator per partition for the jobs of a graph; a new one after a failed
    job (every rank moves to the next epoch together)."""
    from hpgraph.distributed._job import run_job
    from hpgraph.exceptions import InvalidValue

    dg = hpd.DistributedGraph(gpu_cluster, hp.Graph.from_edges([0, 1, 2], [1, 2, 3], num_vertices=7))
    first, info = run_job(dg, _comm_id, {})
    again, _ = run_job(dg, _comm_id, {})
    assert first == again and dg.comm_epoch == 0
    with pytest.raises(InvalidValue, match="on purpose"):
        run_job(dg, _comm_fail, {})
    assert dg.comm_epoch == 1
    after, _ = run_job(dg, _comm_id, {})
    assert [epoch for epoch, _ in first] == [0] * dg.num_partitions
    assert [epoch for epoch, _ in after] == [1] * dg.num_partitions
    np.testing.assert_array_equal(hpd.bfs(dg, 0, push_alpha=0), [0, 1, 2, 3, -1, -1, -1])
