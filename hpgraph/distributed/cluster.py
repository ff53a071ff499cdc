"""Dask clusters for hpgraph: start one (one worker per GPU, or CPU worker processes) or
connect to a running scheduler, and check that every worker can run hpgraph's jobs.

Dask only orchestrates: a distributed job submits one long-running task per worker (pinned to
it) and gathers each task's result at the end; the per-superstep data goes through the
job's collective (:mod:`._collective`), never through the scheduler.
"""

from __future__ import annotations

import logging
import os

from ..exceptions import ClusterError, DeviceUnavailable, InvalidValue, VersionMismatch

__all__ = ["Cluster", "BACKENDS"]

BACKENDS = ("cpu", "gpu")


def _distributed():
    """The ``distributed`` module, or a ClusterError saying how to install it."""
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the [dask] extra is installed in CI
        raise ClusterError("hpgraph.distributed needs Dask distributed: "
                           "pip install 'hpgraph[dask]' (or 'dask[distributed]')") from exc
    return distributed


def _worker_version():
    """Run on a worker: the hpgraph version it imports."""
    import hpgraph

    return hpgraph.__version__


def _worker_gpu_count():
    """Run on a worker: the CUDA devices it sees (0 without CuPy or a usable device)."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - any CUDA failure means "no usable GPU here"
        return 0


def _local_gpu_count() -> int:
    return _worker_gpu_count()


def _gpu_cluster(n_workers, silence):
    """A local cluster with one worker per GPU, each seeing only its device.

    dask-cuda's ``LocalCUDACluster`` when it is installed; otherwise a ``SpecCluster`` of
    nannies, each starting its worker process with ``CUDA_VISIBLE_DEVICES`` listing its own
    device first (the worker's device 0), then the others.
    """
    count = _local_gpu_count()
    if count == 0:
        raise DeviceUnavailable("Cluster(backend='gpu'): no CUDA device is visible on this machine")
    n = count if n_workers is None else int(n_workers)
    if not 1 <= n <= count:
        raise InvalidValue(f"Cluster: n_workers must be in [1, {count}] (the visible GPUs) for "
                           f"backend='gpu', got {n_workers!r}")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    devices = visible.split(",")[:n] if visible else [str(i) for i in range(n)]
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        LocalCUDACluster = None
    if LocalCUDACluster is not None:
        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(devices), n_workers=n,
                                threads_per_worker=1, dashboard_address=":0", silence_logs=silence)
    from distributed import Nanny, Scheduler, SpecCluster

    # each worker sees every device, its own first (device 0 in the worker), as dask-cuda
    # does: NCCL then finds its peers' GPUs and moves data over NVLink (P2P) rather than
    # through host memory
    workers = {f"gpu-{i}": {"cls": Nanny, "options": {
        "nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": ",".join(devices[i:] + devices[:i])},
        "silence_logs": silence}}
        for i in range(len(devices))}
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": None}}
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=silence)


class Cluster:
    """A Dask cluster that runs hpgraph's distributed jobs (a ``distributed.Client`` inside).

    Parameters
    ----------
    n_workers : int, optional
        Workers of a cluster started here.  CPU: that many worker processes with one thread
        each (default: the CPU count); GPU: one worker per visible GPU (default: all of them).
    backend : {"cpu", "gpu"}, default "cpu"
        "gpu": partitions live on each worker's GPU and the collectives are NCCL's; a started
        cluster gives each worker one device as its device 0 (``CUDA_VISIBLE_DEVICES`` listing
        its own device first, as dask-cuda's ``LocalCUDACluster`` does, which is used when
        installed).  "cpu": NumPy partitions and a TCP collective.
    address : str, optional
        Connect to a running scheduler (``"tcp://host:8786"``, several machines: start
        ``dask scheduler`` and one ``dask worker --nthreads 1`` per GPU, each with its
        ``CUDA_VISIBLE_DEVICES``) instead of starting a local cluster.
    client : distributed.Client, optional
        Use this client (and its cluster) as it is.

    Raises
    ------
    ClusterError
        No worker joined within ``timeout`` seconds, or Dask is not installed.
    VersionMismatch
        Workers (or the client) import different hpgraph versions.
    DeviceUnavailable
        ``backend="gpu"`` without a GPU (local), or a worker that sees no GPU.

    Examples
    --------
    >>> import hpgraph as hp
    >>> from hpgraph import distributed as hpd
    >>> with hpd.Cluster(n_workers=2) as cluster:                   # doctest: +SKIP
    ...     dg = hpd.DistributedGraph(cluster, hp.rmat(12, seed=1))
    ...     rank = hpd.pagerank(dg)
    """

    def __init__(self, n_workers=None, *, backend="cpu", address=None, client=None, timeout=60):
        if backend not in BACKENDS:
            raise InvalidValue(f"Cluster: backend must be one of {BACKENDS}, got {backend!r}")
        if n_workers is not None and (isinstance(n_workers, bool) or not isinstance(n_workers, int)
                                      or n_workers < 1):
            raise InvalidValue(f"Cluster: n_workers must be a positive int, got {n_workers!r}")
        distributed = _distributed()
        self.backend = backend
        self._cluster = None
        self._own_client = client is None
        silence = int(os.environ.get("HPGRAPH_DASK_LOG_LEVEL", logging.CRITICAL))
        if client is not None:
            self.client = client
        elif address is not None:
            self.client = distributed.Client(address, timeout=timeout)
        else:
            import dask

            # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_ set, which turns off
            # glibc's adaptive mmap threshold: every large temporary array is then a fresh
            # mmap and page-faults on first touch (CPU SpMVs measured 2.5x slower).  Unset.
            with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_":
                                  None}):
                if backend == "gpu":
                    self._cluster = _gpu_cluster(n_workers, silence)
                else:
                    n = n_workers if n_workers is not None else (os.cpu_count() or 1)
                    # hpgraph's CPU kernels share the cores between the workers
                    threads = max(1, (os.cpu_count() or 1) // n)
                    self._cluster = distributed.LocalCluster(
                        n_workers=n, threads_per_worker=1, processes=True,
                        dashboard_address=":0", silence_logs=silence,
                        env={"HPGRAPH_NUM_THREADS": os.environ.get("HPGRAPH_NUM_THREADS",
                                                                   str(threads))})
            self.client = distributed.Client(self._cluster)
        try:
            if self._cluster is not None:
                self.client.wait_for_workers(len(self._cluster.worker_spec), timeout=timeout)
            self.check()
        except BaseException:
            self.close()
            raise

    # -- state ---------------------------------------------------------------------------

    @property
    def workers(self) -> list:
        """Addresses of the workers now connected, sorted (asked of the scheduler each time:
        ``Client.scheduler_info()`` returns a cache that a periodic refresh may have replaced
        by one without per-worker entries)."""
        info = self.client.sync(self.client.scheduler.identity, n_workers=-1)
        return sorted(info["workers"])

    def check(self):
        """Check the workers: at least one, one hpgraph version, a GPU each for "gpu".

        Returns
        -------
        list of str
            The worker addresses, sorted.

        Raises
        ------
        ClusterError, VersionMismatch, DeviceUnavailable
        """
        import hpgraph

        workers = self.workers
        if not workers:
            raise ClusterError("the Dask cluster has no worker (start workers, or wait for them "
                               "with cluster.client.wait_for_workers(n))")
        versions = self.client.run(_worker_version, workers=workers)
        seen = set(versions.values()) | {hpgraph.__version__}
        if len(seen) > 1:
            listing = ", ".join(f"{w}: {v}" for w, v in sorted(versions.items()))
            raise VersionMismatch(f"workers import different hpgraph versions (client: "
                                  f"{hpgraph.__version__}; {listing}); install one version "
                                  "everywhere")
        if self.backend == "gpu":
            counts = self.client.run(_worker_gpu_count, workers=workers)
            bad = sorted(w for w, c in counts.items() if c < 1)
            if bad:
                raise DeviceUnavailable(f"Cluster(backend='gpu'): workers {bad} see no CUDA "
                                        "device")
        return workers

    def wait_for_workers(self, n, timeout=60):
        """Block until ``n`` workers are connected (after a lost worker was restarted)."""
        self.client.wait_for_workers(n, timeout=timeout)
        return self.workers

    # -- lifetime ------------------------------------------------------------------------

    def close(self):
        """Close the client and, if started here, the cluster."""
        if self._own_client and getattr(self, "client", None) is not None:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"Cluster(backend={self.backend!r}, workers={len(self.workers)})"
