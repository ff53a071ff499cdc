"""A worker killed in the middle of a job: the job raises WorkerLost, the graph with a
partition on it is discarded, and the cluster (its nanny restarts the worker) runs new jobs.

This module starts its own 2-worker cluster (the shared ones must not lose workers)."""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import distributed as hpd
from hpgraph.exceptions import ClusterError, WorkerLost


@pytest.fixture(scope="module")
def own_cluster():
    c = hpd.Cluster(n_workers=2)
    yield c
    c.close()


@pytest.mark.parametrize("victim", [1, 0], ids=["rank1", "rank0"])
def test_lost_worker(own_cluster, victim):
    G = hp.rmat(7, seed=3, backend="cpu")
    dg = hpd.DistributedGraph(own_cluster, G)
    pids = own_cluster.client.run(os.getpid)
    pid = pids[dg.workers[victim]]
    killer = threading.Timer(1.0, os.kill, (pid, signal.SIGKILL))
    killer.start()
    try:
        with pytest.raises(WorkerLost) as info:
            hpd.pagerank(dg, tol=0.0, max_iter=10**8, timeout=60)  # runs until the kill
    finally:
        killer.cancel()
    assert isinstance(info.value, ClusterError)
    with pytest.raises(WorkerLost):  # the partial state is gone
        hpd.bfs(dg, 0)
    # the nanny restarts the worker; a new graph on the cluster gives the right results
    ws = own_cluster.wait_for_workers(2, timeout=60)
    assert len(ws) == 2 and pid not in own_cluster.client.run(os.getpid).values()
    dg2 = hpd.DistributedGraph(own_cluster, G)
    np.testing.assert_array_equal(hpd.bfs(dg2, 0), hp.bfs(G, 0, backend="cpu").depth)


def test_cache_on_one_rank_only_is_rebuilt_everywhere(cluster2):
    """A partition cache entry is made with collectives; when one rank lost its entries (a
    failed job, a spilled partition), the job's opening barrier sees the ranks disagree and
    every rank rebuilds, instead of one rank calling a collective its peers skip."""
    from hpgraph.distributed._job import _cache_digest

    assert _cache_digest({}) == [0, 0]
    assert _cache_digest({("pagerank", False, "float64"): 1}) == \
        _cache_digest({("pagerank", False, "float64"): 2})
    assert _cache_digest({"bfs": 1}) != _cache_digest({"pagerank": 1})
    G = hp.generators.rmat(8, edge_factor=6, seed=3, directed=True)
    want = hp.pagerank(G, backend="cpu")
    dg = hpd.DistributedGraph(cluster2, G)
    np.testing.assert_allclose(hpd.pagerank(dg), want, rtol=0, atol=1e-12)
    client = cluster2.client

    def clear(part):
        n = len(part.cache)
        part.cache.clear()
        return n

    fut, worker = dg.futures[1], dg.workers[1]
    assert client.submit(clear, fut, workers=[worker], pure=False).result() == 1
    np.testing.assert_allclose(hpd.pagerank(dg), want, rtol=0, atol=1e-12)
    dg.release()
