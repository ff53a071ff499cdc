"""``hpgraph bench``: several algorithms on generated or given graphs, a table, a JSON report
and a bar chart of MTEPS."""

from __future__ import annotations

import json
import time
from typing import Any

from . import _algorithms, _graphs
from ._algorithms import ALGORITHMS, BENCH_DEFAULT
from ._common import (EXIT_OK, CLIError, add_backend_argument, check_output_path, format_ms,
                      positive, pyplot, register_subcommand, save_figure)


def _bench_arguments(p):
    p.add_argument("graphs", metavar="GRAPH", nargs="*",
                   help="graph files or generator specs (default: rmat:SCALE and "
                        "grid:SIDExSIDE with the same number of vertices)")
    p.add_argument("--scale", type=int, default=14,
                   help="R-MAT scale of the default graphs (default 14)")
    p.add_argument("--algorithms", default=",".join(BENCH_DEFAULT),
                   help=f"comma-separated (default {','.join(BENCH_DEFAULT)}; available: "
                        f"{','.join(ALGORITHMS)})")
    p.add_argument("--trials", type=int, default=3, help="timed runs per algorithm (default 3)")
    p.add_argument("--seed", type=int, default=42, help="seed for generator specs (default 42)")
    add_backend_argument(p)
    p.add_argument("--json-out", metavar="FILE", default="hpgraph-bench.json",
                   help="where to write the JSON results (default hpgraph-bench.json)")
    p.add_argument("--plot", metavar="FILE.png", default="hpgraph-bench.png",
                   help="bar chart of MTEPS per algorithm and graph (default hpgraph-bench.png; "
                        "needs matplotlib)")
    p.add_argument("--no-plot", action="store_true", help="do not draw the chart")


def _bench(args) -> int:
    import statistics

    from .. import backend as _backend

    names = [s.strip() for s in args.algorithms.split(",") if s.strip()]
    if not names:
        raise CLIError("--algorithms is empty")
    algs = [_algorithms.lookup_algorithm(s) for s in names]
    positive(args.trials, "--trials")
    if not 1 <= args.scale <= 30:
        raise CLIError(f"--scale must be in 1..30, got {args.scale}")
    check_output_path(args.json_out, "--json-out")
    if not args.no_plot:
        check_output_path(args.plot, "--plot", (".png", ".pdf", ".svg"))
    be = _backend.resolve(args.backend)
    side = 2 ** ((args.scale + 1) // 2)
    specs = args.graphs or [f"rmat:{args.scale}", f"grid:{side}x{2 ** args.scale // side}"]
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for spec in specs:
        loaded = _graphs.load_graph(spec, backend=be, seed=args.seed, progress=False)
        G = loaded.graph
        for alg in algs:
            if _algorithms.algorithm_function(alg.name) is None:
                skipped.append(f"{alg.name}: not available in this build")
                continue
            if alg.name == "tc" and G.directed:
                skipped.append(f"tc on {spec}: directed graph")
                continue
            source = _algorithms.default_source(G) if alg.source else None
            if alg.source and G.num_vertices == 0:
                continue
            times = []
            out, edges = None, 0
            _algorithms.run_algorithm(alg.name, G, source, be)  # warm-up (kernel compilation, caches)
            for _ in range(args.trials):
                t0 = time.perf_counter()
                out, edges = _algorithms.run_algorithm(alg.name, G, source, be)
                times.append(time.perf_counter() - t0)
            med = statistics.median(times)
            rows.append({"graph": loaded.source, "algorithm": alg.name,
                         "vertices": int(G.num_vertices), "edges": int(G.num_edges),
                         "traversed_edges": edges, "times": times, "median": med,
                         "mteps": edges / med / 1e6 if med > 0 else None,
                         "result": _algorithms.describe_result(alg.name, out)})
    report: dict[str, Any] = {"backend": be, "device": _graphs.device_description(be), "trials": args.trials,
              "results": rows, "skipped": skipped}
    try:
        with open(args.json_out, "w") as fh:
            json.dump(report, fh, indent=2)
    except OSError as exc:
        raise CLIError(f"cannot write {args.json_out}: {exc.strerror or exc}") from None
    print(f"backend      {report['device']}")
    head = f"{'graph':<34} {'algorithm':<9} {'vertices':>10} {'edges':>12} {'median':>12} {'MTEPS':>10}"
    print(head)
    print("-" * len(head))
    for r in rows:
        m = f"{r['mteps']:,.1f}" if r["mteps"] is not None else "-"
        print(f"{r['graph'][:34]:<34} {r['algorithm']:<9} {r['vertices']:>10,} {r['edges']:>12,} "
              f"{format_ms(r['median']):>12} {m:>10}")
    for s in skipped:
        print(f"skipped      {s}")
    print(f"json         {args.json_out}")
    if not args.no_plot:
        if _plot_bench(rows, args.plot, report["device"]):
            print(f"plot         {args.plot}")
    return EXIT_OK


def _plot_bench(rows, path, device) -> bool:
    """Grouped bars: MTEPS per algorithm, one colour per graph (log scale)."""
    plt = pyplot()
    if plt is None:
        print("plot         skipped: matplotlib is not installed "
              "(python3 -m pip install matplotlib)")
        return False
    import numpy as np

    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    algs = list(dict.fromkeys(r["algorithm"] for r in rows))
    width = 0.8 / max(len(graphs), 1)
    fig, ax = plt.subplots(figsize=(max(6, 1.5 * len(algs) + 2), 4.5), dpi=100)
    x = np.arange(len(algs))
    for i, g in enumerate(graphs):
        vals = [next((r["mteps"] or 0 for r in rows if r["graph"] == g and r["algorithm"] == a), 0)
                for a in algs]
        ax.bar(x + (i - (len(graphs) - 1) / 2) * width, vals, width, label=g)
    ax.set_xticks(x, algs)
    ax.set_ylabel("MTEPS (million traversed edges / s)")
    if any((r["mteps"] or 0) > 0 for r in rows):
        ax.set_yscale("log")
    ax.set_title(f"hpgraph bench: {device}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    save_figure(plt, fig, path)
    return True


register_subcommand(
    "bench", help="benchmark several algorithms on generated or given graphs",
    description="Time bfs, sssp, pagerank, tc and cc (or --algorithms) on R-MAT and grid graphs "
                "(or the graphs given), print a table, write JSON and a PNG bar chart.",
    epilog="examples:\n  hpgraph bench\n  hpgraph bench --scale 18 --backend gpu\n"
           "  hpgraph bench graph.mtx rmat:16 --algorithms bfs,pagerank --no-plot",
    add_arguments=_bench_arguments, handler=_bench)
