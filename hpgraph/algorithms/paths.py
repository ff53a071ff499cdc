"""Shortest paths as vertex sequences, and all-pairs shortest path lengths of small graphs.

* :func:`shortest_path` runs :func:`hpgraph.sssp` (weighted) or :func:`hpgraph.bfs` and walks
  the predecessors back from the targets -- all targets in step, one gather per hop
  (:func:`paths_from_predecessors`).
* :func:`all_pairs_shortest_path_length` returns the dense ``n x n`` distance matrix: batched
  BFS (unweighted) or batched Bellman-Ford (weighted, negative weights allowed) on the GPU,
  SciPy's ``csgraph.shortest_path`` on the CPU (the same distances, faster there).
"""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .._config import config
from ..exceptions import InvalidValue, NegativeCycleError
from ._common import check_sources, finish, prepare

__all__ = ["shortest_path", "paths_from_predecessors", "all_pairs_shortest_path_length"]



def paths_from_predecessors(predecessor, targets, *, root_marker=-1):
    """The paths ending at ``targets`` of a shortest-path tree given by ``predecessor``.

    Parameters
    ----------
    predecessor : array of int (numpy or cupy)
        ``predecessor[v]``: the vertex before ``v`` on its path; ``root_marker`` (default -1)
        at the sources.  A BFS parent array (``parent[s] == s``) works too.
    targets : int or sequence of int

    Returns
    -------
    list of numpy int64 arrays
        One path per target, from its source to the target.  A target without predecessor
        (a source, or a vertex not reached) gives ``[t]``: check reachability (distance or
        depth) first.
    """
    pred = np.asarray(_backend.to_host(predecessor)).astype(np.int64)
    n = pred.shape[0]
    t = np.atleast_1d(np.asarray(_backend.to_host(targets))).astype(np.int64)
    bad = t[(t < 0) | (t >= n)]
    if bad.size:
        from ..exceptions import IndexOutOfBound

        raise IndexOutOfBound(f"target {int(bad[0])} is out of range for a graph of {n} vertices")
    pred = np.where(pred == np.arange(n), root_marker, pred)   # BFS roots point to themselves
    steps = [t]
    cur = t
    for _ in range(n):
        nxt = np.where(cur >= 0, pred[np.maximum(cur, 0)], root_marker)
        nxt = np.where(nxt == root_marker, -1, nxt)
        if not (nxt >= 0).any():
            break
        steps.append(nxt)
        cur = nxt
    S = np.stack(steps)                   # hop k back from each target, -1 past the source
    return [S[:, j][S[:, j] >= 0][::-1].copy() for j in range(t.shape[0])]


def shortest_path(G, source, target=None, *, weighted=True, backend=None):
    """A shortest path from ``source`` to ``target`` (or to every vertex).

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
    source : int
    target : int, optional
        Default: paths to every vertex.
    weighted : bool, default True
        Use edge weights (:func:`hpgraph.sssp`; negative weights allowed); False counts hops
        (:func:`hpgraph.bfs`).  An unweighted graph counts hops either way.
    backend : {None, "auto", "cpu", "gpu"}

    Returns
    -------
    numpy int64 array, or dict {vertex: array}
        The vertices of the path, ``source`` first.  With ``target``: that path (raises when
        unreachable).  Without: one path per reachable vertex (networkx's
        ``shortest_path(G, source)``).

    Raises
    ------
    IndexOutOfBound
        ``source`` or ``target`` out of range.
    InvalidValue
        ``target`` is not reachable from ``source``.
    NegativeCycleError
        A negative cycle is reachable (weighted).
    """
    G, side, _ = prepare(G, backend)
    s = int(check_sources(G, source, argname="source", allow_many=False)[0])
    if target is not None:
        t = int(check_sources(G, target, argname="target", allow_many=False)[0])
    if weighted and G.weighted:
        from ._sssp import sssp

        res = sssp(G, s, backend=side, to="numpy")
        pred, reached = res.predecessor, np.isfinite(res.distance)
    else:
        from ._bfs import bfs

        res = bfs(G, s, backend=side, to="numpy")
        pred, reached = res.parent, res.depth >= 0
    if target is not None:
        if not reached[t]:
            raise InvalidValue(f"target {t} is not reachable from source {s}")
        return paths_from_predecessors(pred, t)[0]
    ids = np.flatnonzero(reached)
    return dict(zip(ids.tolist(), paths_from_predecessors(pred, ids)))


def all_pairs_shortest_path_length(G, *, weighted=True, batch=None, backend=None, to=None):
    """Dense matrix ``D[u, v]`` of shortest path lengths from ``u`` to ``v`` (small graphs).

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        At most 20,000 vertices (the result is dense: ``8 n^2`` bytes).
    weighted : bool, default True
        Use edge weights (negative allowed; repeated edges keep the graph's merged weight);
        False (or an unweighted graph) counts hops.
    batch : int, optional
        Sources per batch on the GPU.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64, shape (n, n)
        ``inf`` where ``v`` is unreachable from ``u``; 0 on the diagonal.

    Raises
    ------
    InvalidValue
        More than 20,000 vertices.
    NegativeCycleError
        The graph has a negative cycle.
    """
    from ._batched import batches, bellman_ford_block, bfs_block

    G, side, on_dev = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    limit = config["apsp_max_vertices"]
    if n > limit:
        raise InvalidValue(f"all_pairs_shortest_path_length builds a dense n x n matrix; G has {n:,} "
                           f"vertices (at most hp.config['apsp_max_vertices'] = {limit:,}); use "
                           "hp.sssp or hp.bfs per source instead")
    use_w = bool(weighted and G.weighted)
    if n == 0:
        return finish(xp.zeros((0, 0), dtype=np.float64), on_dev, to)
    if side == "cpu":
        import scipy.sparse.csgraph as csg

        import scipy.sparse as sp

        from ._vec import min_edges

        r, c, w = min_edges(G)
        A = sp.csr_array((w if use_w else np.ones(r.shape[0]), (r, c)), shape=(n, n))
        try:
            D = csg.shortest_path(A, directed=True, unweighted=not use_w)
        except csg.NegativeCycleError:
            raise NegativeCycleError("the graph has a negative cycle: shortest path lengths are "
                                     "undefined; remove the cycle") from None
        return finish(D, on_dev, to)
    out = []
    for chunk in batches(np.arange(n, dtype=np.int64), n, batch):
        if use_w:
            out.append(bellman_ford_block(G, chunk).T)
        else:
            B = bfs_block(G, chunk).T.astype(np.float64)
            out.append(xp.where(B >= 0, B, np.inf))
    return finish(xp.concatenate(out, axis=0), on_dev, to)
