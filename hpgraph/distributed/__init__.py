"""hpgraph over several GPUs (or CPU processes), orchestrated by Dask distributed.

A :class:`Cluster` starts (or connects to) a Dask cluster with one worker per GPU; a
:class:`DistributedGraph` splits a graph by destination rows into one CSR partition per worker;
:func:`pagerank`, :func:`bfs`, :func:`sssp`, :func:`connected_components` and a user's
vertex program (:func:`run`) run as BSP
supersteps, one long-running task per worker, exchanging vectors through NCCL (GPU) or a TCP
collective (CPU), never through the Dask scheduler.  Needs the ``dask`` extra
(``pip install 'hpgraph[dask]'``).

Examples
--------
>>> import hpgraph as hp
>>> from hpgraph import distributed as hpd
>>> with hpd.Cluster(n_workers=2, backend="cpu") as cluster:            # doctest: +SKIP
...     dg = hpd.DistributedGraph(cluster, hp.rmat(14, seed=1))
...     rank = hpd.pagerank(dg)
...     depth = hpd.bfs(dg, source=0)
"""

from __future__ import annotations

from ._job import JobInfo
from .algorithms import bfs, connected_components, pagerank, sssp
from .cluster import Cluster
from .graph import DistributedGraph
from .programs import run

__all__ = ["Cluster", "DistributedGraph", "JobInfo", "pagerank", "bfs", "sssp",
           "connected_components", "run"]
