"""Running one distributed job: one long-running task per partition, pinned to its worker.

Each task opens the job's collective (:mod:`._collective`), runs the algorithm's superstep
loop on its partition and returns its slice of the result with a few statistics.  The client
waits for all of them; the first failure (or a partition's worker leaving the cluster, or
the ``timeout``) cancels the others and raises a typed error.  A task already running cannot be
interrupted by Dask: it ends when its collective sees the failed peer's socket closed (CPU) --
on the GPU an NCCL call waiting for a dead peer does not return, and the worker must be
restarted (``cluster.client.restart()``).
"""

from __future__ import annotations

import time
import uuid
import zlib
from typing import NamedTuple

import numpy as np

from .._config import config
from ..exceptions import ClusterError, HpgraphError, WorkerLost

__all__ = ["JobInfo", "run_job"]

#: seconds the other ranks get to end after one failed
_SETTLE = 1.0


class JobInfo(NamedTuple):
    """How a distributed job ran (``return_info=True``).

    Attributes
    ----------
    iterations : int
        Supersteps (SpMVs per partition).
    seconds : float
        The slowest rank's superstep loop, timed from a barrier that starts every rank's
        loop together.
    setup_seconds : float
        The slowest rank's collective set-up (connections / NCCL communicator) and its wait
        at that barrier for the ranks that Dask started later.
    wall_seconds : float
        The whole job as the client saw it (submission, set-up, loop, gathering).
    bytes_sent : tuple of int
        Bytes each rank sent through the collective.
    partition_bytes : tuple of int
        Bytes of each rank's partition (CSR arrays).
    vector_bytes : int
        Bytes of the global vectors each rank holds during the loop.
    exchange_seconds : tuple of float
        Seconds each rank spent in collectives during the loop (NCCL: CUDA events around the
        calls; waiting for slower peers included).
    profiles : tuple
        What each rank's loop reported of its steps, or None (the GPU BFS: per level, the first
        64, the direction, the vertices found and the milliseconds of its step, exchange and merge;
        the GPU PageRank: mean milliseconds per iteration of its allgather, SpMV, update and
        allreduce; CUDA events).
    """

    iterations: int
    seconds: float
    setup_seconds: float
    wall_seconds: float
    bytes_sent: tuple
    partition_bytes: tuple
    vector_bytes: int
    exchange_seconds: tuple = ()
    profiles: tuple = ()


def _collective(part, session, comm_timeout, epoch):
    """``(collective, owned)`` for one rank of a job.  GPU: the partition's NCCL communicator,
    made by the first job of ``epoch`` and kept (creating one and connecting its peers costs
    tens of ms, more than a whole superstep loop on R-MAT 25); CPU: a new TCP star per job,
    closed after it (``owned``)."""
    from . import _collective as C

    if part.side != "gpu":
        return C.make_collective(part.side, part.rank, part.size, session, comm_timeout), True
    if part.comm is not None and part.comm[0] == epoch:
        coll = part.comm[1]
        coll.start_job()
        return coll, False
    if part.comm is not None:   # a job failed since: every rank makes a new communicator
        old, part.comm = part.comm[1], None
        old.close()
        part.cache.clear()      # the failed job may have left this rank's cache half made
    coll = C.make_collective("gpu", part.rank, part.size, session, comm_timeout)
    part.comm = (epoch, coll)
    return coll, False


def _job_main(part, kernel, kwargs, session, comm_timeout, single=None, epoch=0):
    """Run on a worker: one rank of a job.  Returns ``(values, iterations, stats)``.

    With one partition and a ``single`` function, ``single(graph, **kwargs)`` runs instead of
    the superstep loop: the single-GPU (or single-process) algorithm on the whole graph
    (:meth:`Partition.graph`), with no collective, so one worker costs what one GPU does.
    """
    side = part.side
    if side == "gpu":
        import cupy

        cupy.cuda.Device(0).use()  # the worker's own device comes first in its list
    t0 = time.perf_counter()
    owned = False
    if part.size == 1 and single is not None:
        G = part.graph()
        coll = None
    else:
        coll, owned = _collective(part, session, comm_timeout, epoch)
    try:
        if coll is not None and coll.size > 1:
            # the ranks start their loops together: Dask starts the tasks up to a few ms
            # apart, and that wait belongs to the set-up, not to the loop timed below.  The
            # same exchange checks that every rank holds the same cached entries (a cache
            # entry is made with collectives: a rank that lacks one would call a collective
            # its peers skip); if not, every rank clears its cache and the job rebuilds it.
            mine = _cache_digest(part.cache)
            seen = coll.allreduce(np.array(mine + [-v for v in mine], dtype=np.int64), "max")
            seen = [int(v) for v in (seen.get() if hasattr(seen, "get") else seen)]
            if seen[:2] != [-v for v in seen[2:]]:
                part.cache.clear()
            coll.start_job()
        t1 = time.perf_counter()
        if coll is None:
            values, iterations, vector_bytes = single(G, **kwargs)
        else:
            values, iterations, vector_bytes = kernel(part, coll, **kwargs)
        if side == "gpu":
            import cupy

            cupy.cuda.get_current_stream().synchronize()
        t2 = time.perf_counter()
        iterations = int(iterations)
        if isinstance(values, dict):
            values = {k: v.get() if hasattr(v, "get") else v for k, v in values.items()}
        elif hasattr(values, "get"):
            values = values.get()
        stats = {"seconds": t2 - t1, "setup": t1 - t0,
                 "bytes_sent": 0 if coll is None else int(coll.bytes_sent),
                 "exchange": 0.0 if coll is None else float(coll.exchange_seconds),
                 "vector_bytes": int(vector_bytes),
                 "profile": None if coll is None else getattr(coll, "profile", None)}
        return values, iterations, stats
    finally:
        if owned:
            coll.close()


def _cache_digest(cache) -> list:
    """``[entries, checksum of their keys]`` of a partition's cache, the same on every rank
    that holds the same keys."""
    return [len(cache), sum(zlib.crc32(repr(k).encode()) for k in cache) % (1 << 40)]


def _is_killed_worker(exc) -> bool:
    return type(exc).__name__ == "KilledWorker"


def run_job(dg, kernel, kwargs, *, timeout=None, name="job", single=None):
    """Run ``kernel(part, coll, **kwargs)`` on every partition of ``dg``.

    ``single(graph, **kwargs)``, when given, runs instead on a graph of one partition (see
    :func:`_job_main`); it returns what ``kernel`` returns.

    Returns
    -------
    (list of per-rank values, JobInfo)

    Raises
    ------
    WorkerLost
        A partition's worker left the cluster, or a rank lost its peers.
    ClusterError
        The job did not finish within ``timeout`` seconds.
    HpgraphError
        What a rank raised (for example ``ConvergenceError``), as it was raised.
    """
    from distributed import Variable, wait

    futures = dg.futures  # checks that every partition's worker is still there
    client = dg.cluster.client
    session = uuid.uuid4().hex
    t0 = time.perf_counter()
    epoch = dg.comm_epoch
    tasks = [client.submit(_job_main, fut, kernel, kwargs, session,
                           config["distributed_comm_timeout"], single, epoch,
                           key=f"hpgraph-{name}-{session}-{r}", workers=[w],
                           allow_other_workers=False, pure=False)
             for r, (fut, w) in enumerate(zip(futures, dg.workers))]
    try:
        while True:
            try:
                pending = [t for t in tasks if t.status == "pending"]
                if pending:
                    wait(pending, timeout=0.5, return_when="FIRST_COMPLETED")
            except Exception:  # noqa: BLE001 - a timeout, or a task cancelled (dead worker):
                pass           # the statuses below say which
            if any(t.status in ("error", "cancelled", "lost") for t in tasks):
                dg.comm_epoch = epoch + 1   # the next job makes new communicators
                _raise_failure(dg, tasks)
            if all(t.status == "finished" for t in tasks):
                break
            gone = set(dg.workers) - set(dg.cluster.workers)
            if gone:
                dg.release()
                raise WorkerLost(f"{name}: workers {sorted(gone)} left the cluster during the "
                                 "job; its partial state is discarded (rebuild the "
                                 "DistributedGraph)")
            if timeout is not None and time.perf_counter() - t0 > timeout:
                dg.comm_epoch = epoch + 1
                raise ClusterError(f"{name} did not finish within timeout={timeout} s")
        results = client.gather(tasks)
    finally:
        client.cancel(tasks, force=True)
        for var in (f"hpgraph-{session}", f"hpgraph-nccl-{session}"):
            try:
                Variable(var, client=client).delete()
            except Exception:  # noqa: BLE001 - never set (one rank) or already gone
                pass
    wall = time.perf_counter() - t0
    stats = [r[2] for r in results]
    info = JobInfo(iterations=int(results[0][1]),
                   seconds=max(s["seconds"] for s in stats),
                   setup_seconds=max(s["setup"] for s in stats),
                   wall_seconds=wall,
                   bytes_sent=tuple(s["bytes_sent"] for s in stats),
                   partition_bytes=tuple(int(b) for b in dg.partition_bytes),
                   vector_bytes=max(s["vector_bytes"] for s in stats),
                   exchange_seconds=tuple(s["exchange"] for s in stats),
                   profiles=tuple(s.get("profile") for s in stats))
    return [r[0] for r in results], info


def _raise_failure(dg, tasks):
    """Raise the most telling error of the failed tasks: a lost worker, else the error a rank
    raised itself (its peers then fail with WorkerLost when its socket closes: they are given
    a moment to end, and that secondary error is not the one reported)."""
    from distributed import wait

    try:
        wait([t for t in tasks if t.status == "pending"], timeout=2 * _SETTLE)
    except Exception:  # noqa: BLE001 - a timeout or a cancelled task: the statuses tell
        pass
    failed = [t for t in tasks if t.status in ("error", "cancelled", "lost")]
    excs = []
    for t in failed:
        try:
            excs.append(t.exception(timeout=5))
        except Exception as exc:  # noqa: BLE001 - a cancelled / lost task has no exception
            excs.append(exc)
    gone = set(dg.workers) - set(dg.cluster.workers)
    if gone or any(_is_killed_worker(e) for e in excs):
        dg.release()
        raise WorkerLost(f"workers {sorted(gone)} died during the job; its partial state is "
                         "discarded (rebuild the DistributedGraph)") from (excs[0] if excs else None)
    typed = [e for e in excs if isinstance(e, HpgraphError) and not isinstance(e, WorkerLost)]
    if typed:
        raise typed[0]
    lost = [e for e in excs if isinstance(e, WorkerLost)]
    if lost:
        dg.release()
        raise lost[0]
    exc = excs[0] if excs else None
    if isinstance(exc, BaseException):
        raise exc
    raise ClusterError(f"a task of the job failed: {exc!r}")
