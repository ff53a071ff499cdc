"""Edge betweenness centrality (Brandes), unweighted or weighted; matches
``networkx.edge_betweenness_centrality``.

The dependencies come from :func:`._brandes.dag_brandes` (batched BFS or Dijkstra, then
Kahn-ordered sweeps over the shortest-path DAG of every source); the value of an edge is the
sum over sources of the dependency it carries, rescaled as networkx's ``_rescale`` with
``endpoints=True``.  On an undirected graph both directions of an edge add to one value.

Unweighted on the device, the sources go through the 64-source sweeps of
:mod:`._betweenness_gpu` instead, whose backward scan adds each carried dependency to its
entry: ``k=64`` on R-MAT 21 (H200, CUDA-event medians after a warm-up) 61.7 ms against
1,806 ms for the DAG sweeps of :mod:`._brandes` (``benchmarks/results/algorithms2_ebc_s11.json``
and session 10's row in ``benchmarks/README.md``); searches too deep for them fall back to the DAG sweeps.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import config
from ._betweenness_gpu import WIDTH
from ._common import finish, prepare
from .betweenness import _rescale, sample_sources
from .._arrayops import bincount

__all__ = ["edge_betweenness_centrality", "EdgeBetweennessResult"]


class EdgeBetweennessResult(NamedTuple):
    """Result of :func:`edge_betweenness_centrality`: one entry per distinct edge, sorted by
    ``(source, target)``; an undirected edge appears once, with ``source <= target``.

    Attributes
    ----------
    source, target : arrays of int64
    centrality : array of float64
        networkx's ``edge_betweenness_centrality(G)[(source, target)]``; self-loops are listed
        with 0.0, as networkx lists them.
    """

    source: object
    target: object
    centrality: object


def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None, *,
                                backend=None, to=None):
    """Shortest-path betweenness of every edge (as ``networkx.edge_betweenness_centrality``).

    Parameters
    ----------
    G : hpgraph.Graph (or scipy/cupyx sparse matrix, networkx graph)
        Paths follow edge directions on a directed graph.  Repeated edges count once.
    k : int, optional
        Use ``k`` sampled sources (``seed.sample(list(range(n)), k)``, networkx's draw).
    normalized : bool, default True
        Divide by ``k * (n - 1)`` (``n * (n - 1)`` without sampling); otherwise scale by
        ``n / k`` when sampling and halve on an undirected graph, networkx's way.
    weight : None, True or str
        ``None``: hop counts.  Otherwise path lengths are sums of the stored weights, which
        must be positive (an unweighted ``G`` has weights 1).
    seed : None, int, random.Random
        Randomness of the sampling (as :func:`betweenness_centrality`).
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    EdgeBetweennessResult
        ``(source, target, centrality)``.

    Raises
    ------
    InvalidValue
        ``k`` not an integer in ``[1, n]``; a zero or negative weight with ``weight``.
    """
    from ._brandes import dag_brandes

    G, side, on_dev = prepare(G, backend)
    xp = G.xp
    n = int(G.num_vertices)
    sources = sample_sources(n, k, seed)
    src = (np.arange(n, dtype=np.int64) if sources is None
           else np.asarray(sources, dtype=np.int64))
    weighted = weight is not None and G.weighted
    found = None
    if side == "gpu" and not weighted \
            and n * WIDTH <= config["betweenness_gpu_batch_entries"]:
        found = _edge_sweeps(G, src)
    if found is None:
        _, (r, c, _), eb = dag_brandes(G, src, weighted=weighted, side=side, edge_values=True)
    else:
        r, c, eb = found
    loops = _loops(G)
    if not G.directed:                 # both directions of {u, v} add up on (min, max)
        lo, hi = xp.minimum(r, c), xp.maximum(r, c)
        r, c = xp.concatenate([lo, loops]), xp.concatenate([hi, loops])
    else:
        r, c = xp.concatenate([r, loops]), xp.concatenate([c, loops])
    eb = xp.concatenate([eb, xp.zeros(loops.shape[0], dtype=np.float64)])
    key = r * max(n, 1) + c
    uk, inv = xp.unique(key, return_inverse=True)
    vals = bincount(xp, inv.reshape(-1), weights=eb, minlength=uk.shape[0]) if key.shape[0] \
        else xp.zeros(0, dtype=np.float64)
    vals = _rescale(xp, vals, n, normalized=normalized, directed=G.directed, endpoints=True,
                    sampled=sources)
    s, t = uk // max(n, 1), uk % max(n, 1)
    return EdgeBetweennessResult(finish(s, on_dev, to), finish(t, on_dev, to),
                                 finish(vals, on_dev, to))


def _edge_sweeps(G, src):
    """``(r, c, eb)`` over the distinct non-loop pairs sorted by ``(r, c)``, from the 64-source
    sweeps of :mod:`._betweenness_gpu` (unweighted, on the device); None when a search is too
    deep for them (thousands of levels)."""
    from ._betweenness_gpu import accumulate
    from .betweenness import _unique_pattern

    xp = G.xp
    A, AT = _unique_pattern(G)
    edge = xp.zeros(int(A.nnz), dtype=np.float64)
    scratch = xp.zeros(int(G.num_vertices), dtype=np.float64)
    for i in range(0, src.shape[0], WIDTH):
        if accumulate(A, AT, src[i:i + WIDTH], scratch, False, edge=edge) is None:
            return None
    rows = A.row_ids().astype(np.int64)
    cols = A.indices.astype(np.int64)
    keep = rows != cols                      # columns sorted in rows: min_edges' order
    return rows[keep], cols[keep], edge[keep]


def _loops(G):
    """Vertices with a stored self-loop (int64, distinct)."""
    from ._vec import stored_edges

    r, c, _ = stored_edges(G)
    return G.xp.unique(r[r == c])
