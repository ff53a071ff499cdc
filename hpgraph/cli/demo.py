"""``hpgraph demo``: an R-MAT graph built, summarized and run through BFS, SSSP, PageRank and
triangle counting."""

from __future__ import annotations

import json
import time
from typing import Any

from .. import __version__
from . import _algorithms, _graphs
from ._algorithms import ALGORITHMS
from ._common import EXIT_OK, add_backend_argument, format_ms, register_subcommand


def _demo_arguments(p):
    p.add_argument("--scale", type=int, default=16, help="R-MAT scale: 2**SCALE vertices (default 16)")
    p.add_argument("--edge-factor", type=int, default=16, help="edges per vertex (default 16)")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    add_backend_argument(p)
    p.add_argument("--no-algorithms", action="store_true",
                   help="only build and summarize the graph (skip BFS, SSSP, PageRank, TC)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


#: what ``hpgraph demo`` runs on its graph
DEMO_ALGORITHMS = ("bfs", "sssp", "pagerank", "tc")


def demo_algorithms(G, be) -> dict:
    """Run :data:`DEMO_ALGORITHMS` on ``G``: ``{name: {...}}`` with time, GTEPS and a summary line
    (or ``{"skipped": reason}`` for an algorithm this build lacks).  On the GPU each algorithm
    runs once untimed first (kernel compilation); on the CPU SciPy's graph routines are imported
    first (their package imports ``scipy.linalg``: 0.3-0.5 s that would count as BFS's time)."""
    out: dict[str, dict[str, Any]] = {}
    if be == "cpu":
        import scipy.sparse.csgraph  # noqa: F401
    for name in DEMO_ALGORITHMS:
        alg = ALGORITHMS[name]
        if _algorithms.algorithm_function(name) is None:
            out[name] = {"skipped": f"hpgraph.algorithms.{alg.function} is not available in this "
                                    "build"}
            continue
        source = _algorithms.default_source(G) if alg.source else None
        if be == "gpu":
            _algorithms.run_algorithm(name, G, source, be)
        t0 = time.perf_counter()
        res, edges = _algorithms.run_algorithm(name, G, source, be)
        t = time.perf_counter() - t0
        out[name] = {"title": alg.title, "source": source, "time": t, "traversed_edges": edges,
                     "gteps": edges / t / 1e9 if t > 0 else None,
                     "result": _algorithms.describe_result(name, res)}
    return out


def _format_demo_algorithms(algs) -> str:
    lines = []
    for name, r in algs.items():
        if "skipped" in r:
            lines.append(f"  {name:<9} skipped: {r['skipped']}")
            continue
        src = f" from vertex {r['source']}" if r["source"] is not None else ""
        g = f"{r['gteps']:.3f} GTEPS" if r["gteps"] is not None else ""
        lines.append(f"  {name:<9} {format_ms(r['time']):>11}  {g:>12}   {r['result']}{src}")
    return "\n".join(lines)


def _demo(args) -> int:
    from .. import backend as _backend

    be = _backend.resolve(args.backend)
    loaded = _graphs.load_graph(f"rmat:{args.scale}:{args.edge_factor}", backend=be, seed=args.seed)
    info = _graphs.graph_summary(loaded.graph, timings=loaded.timings,
                                 source=f"R-MAT scale {args.scale}, edge factor {args.edge_factor} "
                                        f"(Graph500 a=0.57 b=0.19 c=0.19), undirected, "
                                        f"seed {args.seed}")
    if not args.no_algorithms:
        info["algorithms"] = demo_algorithms(loaded.graph, be)
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    print(f"hpgraph {__version__} demo")
    print(_graphs.format_summary(info))
    if not args.no_algorithms:
        print("algorithms   time, GTEPS (traversed edges per second) and result of each run:")
        print(_format_demo_algorithms(info["algorithms"]))
    if be == "cpu" and args.backend in (None, "auto"):
        why = _backend.gpu_unavailable_reason()
        if why:
            print(f"(CPU backend: {why})")
    return EXIT_OK


register_subcommand(
    "demo", help="build an R-MAT graph, summarize it and run BFS, SSSP, PageRank and TC on it",
    description="Build a Graph500 R-MAT graph (scale 16 by default) on the best backend, print "
                "vertices, edges, degree statistics, the HYB layout and build times, then run "
                "BFS, SSSP, PageRank and triangle counting on it and print their results, times "
                "and GTEPS.",
    add_arguments=_demo_arguments, handler=_demo)
