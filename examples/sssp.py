"""Single-source shortest paths: the HPGraph paper's Algorithm 1 as a vertex program.

Every vertex gathers over its in-edges ``u -> v`` from the *active* neighbours ``u`` (those
whose distance changed in the previous superstep) the candidate ``dist[u] + w(u, v)``, keeps
the minimum, and becomes active when its distance drops: Bellman-Ford with a frontier.

Run it::

    python -m examples.sssp            # a small random graph, checked against SciPy
"""

from __future__ import annotations

import numpy as np

import hpgraph as hp


class SSSP(hp.VertexProgram):
    """``dist[v]`` = length of the shortest path ``source -> v`` (``inf`` if unreachable)."""

    edges = "in"
    properties = {"dist": ("float32", np.inf)}
    edge_dtype = "float32"        # weights are read as float32 whatever the graph stores
    reduce = "min"
    # update(v, +inf) = min(v.dist, inf) = v.dist: vertices that received nothing are skipped
    apply_to = "received"

    def init(self, graph, source=0):
        n = graph.num_vertices
        if not 0 <= int(source) < n:
            raise hp.exceptions.IndexOutOfBound(f"source {source} is outside [0, {n})")
        dist = np.full(n, np.inf, dtype=np.float32)
        dist[source] = 0.0
        return {"dist": dist}, [int(source)]

    def gather(src, edge, dst):
        return src.dist + edge

    def update(v, y):
        return min(v.dist, y)


class SSSP64(SSSP):
    """The same in float64 (for comparisons with SciPy at full precision)."""

    properties = {"dist": ("float64", np.inf)}
    edge_dtype = "float64"

    def init(self, graph, source=0):
        props, active = super().init(graph, source)
        return {"dist": props["dist"].astype(np.float64)}, active


class SSSPNearFar(SSSP):
    """The same program with two declarations: the engine orders the work by ``dist``
    (near-far buckets, as delta-stepping does) and records each vertex's winning in-neighbour
    in ``pred`` (a shortest-path tree)."""

    properties = {"dist": ("float32", np.inf), "pred": ("int64", -1)}
    priority = "dist"
    witness = "pred"

    def init(self, graph, source=0):
        n = graph.num_vertices
        if not 0 <= int(source) < n:
            raise hp.exceptions.IndexOutOfBound(f"source {source} is outside [0, {n})")
        return {"dist": hp.Seeded(np.inf, 0.0)}, [int(source)]

    def update(v, y):
        return {"dist": min(v.dist, y)}


def sssp(graph, source=0, **run_kw):
    """Distances from ``source`` (float32; NumPy or CuPy like the run)."""
    return hp.run(SSSP, graph, source=source, **run_kw).dist


if __name__ == "__main__":  # pragma: no cover
    import scipy.sparse.csgraph as csg

    G = hp.generators.erdos_renyi(1000, p=0.005, seed=1, weights=(1, 10), backend="cpu")
    r = hp.run(SSSP, G, source=0)
    ref = csg.dijkstra(G.to_scipy(), indices=0)
    got = hp.backend.to_host(r.dist)
    print(r)
    print("same as scipy.sparse.csgraph.dijkstra:", bool(np.array_equal(got, ref.astype(np.float32))))
