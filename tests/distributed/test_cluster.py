"""Cluster start-up and checks: typed errors for bad arguments, a cluster without workers,
workers running another hpgraph version, and a GPU cluster on a machine without a GPU."""

from __future__ import annotations

import pytest

import hpgraph as hp
from hpgraph import distributed as hpd
from hpgraph.exceptions import ClusterError, DeviceUnavailable, InvalidValue, VersionMismatch


def test_workers_and_check(cluster2):
    ws = cluster2.check()
    assert ws == cluster2.workers and len(ws) == 2
    assert "workers=2" in repr(cluster2)


@pytest.mark.parametrize("kw,match", [({"backend": "tpu"}, "backend"),
                                      ({"n_workers": 0}, "n_workers"),
                                      ({"n_workers": 1.5}, "n_workers"),
                                      ({"n_workers": True}, "n_workers")])
def test_bad_arguments(kw, match):
    with pytest.raises(InvalidValue, match=match):
        hpd.Cluster(**kw)


def test_cluster_without_workers():
    import distributed

    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as lc:
        with pytest.raises(ClusterError, match="no worker"):
            hpd.Cluster(address=lc.scheduler_address)
        with distributed.Client(lc) as client:
            with pytest.raises(ClusterError, match="no worker"):
                hpd.Cluster(client=client)
            assert client.status == "running"  # a caller's client is left open


def _set_version(v):
    import hpgraph

    old, hpgraph.__version__ = hpgraph.__version__, v
    return old


def test_version_mismatch(cluster2):
    w = cluster2.workers[1]
    old = cluster2.client.run(_set_version, "0.0.0+other", workers=[w])[w]
    try:
        with pytest.raises(VersionMismatch, match="0.0.0\\+other"):
            cluster2.check()
        with pytest.raises(VersionMismatch):
            hpd.DistributedGraph(cluster2, hp.Graph.from_edges([0], [1]))
    finally:
        cluster2.client.run(_set_version, old, workers=[w])
    cluster2.check()


@pytest.mark.skipif(hp.has_gpu(), reason="checks the error raised without a GPU")
def test_gpu_cluster_without_gpu():
    with pytest.raises(DeviceUnavailable, match="no CUDA device"):
        hpd.Cluster(backend="gpu")


@pytest.mark.skipif(hp.has_gpu(), reason="checks the error raised without a GPU")
def test_gpu_cluster_puts_each_workers_device_first(monkeypatch):
    """Without dask-cuda: one nanny per device, each worker started with its own
    CUDA_VISIBLE_DEVICES; here the workers see no device, so the check refuses them."""
    import importlib.util

    from hpgraph.distributed import cluster as mod

    if importlib.util.find_spec("dask_cuda") is not None:
        pytest.skip("dask-cuda installed: LocalCUDACluster is used instead")
    monkeypatch.setattr(mod, "_local_gpu_count", lambda: 2)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5,7")
    seen = {}
    real = mod._gpu_cluster

    def spy(n, silence):
        c = real(n, silence)
        seen.update({name: spec["options"]["env"] for name, spec in c.worker_spec.items()})
        return c

    monkeypatch.setattr(mod, "_gpu_cluster", spy)
    with pytest.raises(DeviceUnavailable, match="see no CUDA device"):
        hpd.Cluster(backend="gpu")
    # every worker sees both devices, its own first (its device 0): NCCL can use P2P
    assert seen == {"gpu-0": {"CUDA_VISIBLE_DEVICES": "5,7"}, "gpu-1": {"CUDA_VISIBLE_DEVICES": "7,5"}}
    with pytest.raises(InvalidValue, match="n_workers must be in \\[1, 2\\]"):
        hpd.Cluster(n_workers=3, backend="gpu")
