"""Where the time of hp.sssp / hp.bfs goes on the GPU: whole call vs engine setup vs loop.

Runs the Bellman-Ford and BFS vertex programs through ``hp.run`` on R-MAT 21 (undirected,
weights 1..64) and the 2048 x 2048 grid (weights 1..64), float32 and float64 distances, and
prints, per case: median wall time of the whole call, ``RunResult.setup_time`` and ``.time``
(the superstep loop), supersteps, push/pull counts and host syncs.

Usage: python benchmarks/bench_sssp_breakdown.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import hpgraph as hp
from hpgraph.algorithms._bfs import _BFSKeys
from hpgraph.algorithms._sssp import _bellman_ford_class


def timed(fn, repeat=5):
    cp = hp.backend.cupy()
    fn()
    cp.cuda.Device().synchronize()
    walls, res = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        res = fn()
        cp.cuda.Device().synchronize()
        walls.append(time.perf_counter() - t)
    return statistics.median(walls) * 1e3, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cp = hp.backend.cupy()
    graphs = {
        "rmat21": hp.generators.rmat(21, seed=1, weights=(1, 64), backend="gpu"),
        "grid2048": hp.generators.grid_2d(2048, 2048, weights=(1, 64), seed=1, backend="gpu"),
    }
    rows = []
    for gname, G in graphs.items():
        n = G.num_vertices
        src = int(cp.argmax(G.out_degree)) if gname.startswith("rmat") else 0
        for dt in (np.float32, np.float64):
            prog = _bellman_ford_class(np.dtype(dt))
            dist0 = cp.full(n, np.inf, dtype=dt)
            dist0[src] = 0

            def call():
                return hp.run(prog, G, backend="gpu", max_iterations=n, dist0=dist0,
                              active=np.array([src]))
            ms, r = timed(call, args.repeat)
            rows.append(dict(graph=gname, program=f"BellmanFord[{np.dtype(dt).name}]", wall_ms=ms,
                             setup_ms=r.setup_time * 1e3, loop_ms=r.time * 1e3,
                             supersteps=r.supersteps, push=r.directions.count("push"),
                             pull=r.directions.count("pull"), syncs=r.syncs,
                             max_active=max(r.active) if r.active else 0))
        ms, res = timed(lambda: hp.sssp(G, src, predecessors=False, backend="gpu"), args.repeat)
        rows.append(dict(graph=gname, program="hp.sssp (no predecessors)", wall_ms=ms))
        ms, res = timed(lambda: hp.sssp(G, src, backend="gpu"), args.repeat)
        rows.append(dict(graph=gname, program="hp.sssp (with predecessors)", wall_ms=ms))
        key = cp.full(n, -1, dtype=np.int64)
        key[src] = src
        par = cp.full(n, -1, dtype=np.int64)
        par[src] = src
        vid = cp.arange(n, dtype=np.int64)
        ms, r = timed(lambda: hp.run(_BFSKeys, G, backend="gpu", key=key, vid=vid, parent=par,
                                     active=np.array([src])), args.repeat)
        rows.append(dict(graph=gname, program="BFS keys program", wall_ms=ms, setup_ms=r.setup_time * 1e3,
                         loop_ms=r.time * 1e3, supersteps=r.supersteps,
                         push=r.directions.count("push"), pull=r.directions.count("pull"),
                         syncs=r.syncs, max_active=max(r.active) if r.active else 0))
        ms, res = timed(lambda: hp.bfs(G, src, backend="gpu"), args.repeat)
        rows.append(dict(graph=gname, program="hp.bfs", wall_ms=ms))
    cols = ["graph", "program", "wall_ms", "setup_ms", "loop_ms", "supersteps", "push", "pull",
            "syncs", "max_active"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{r[c]:.2f}" if isinstance(r.get(c), float) else str(r.get(c, ""))
                                for c in cols) + " |")
    if args.out:
        with open(f"{args.out}/sssp_breakdown.json", "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
