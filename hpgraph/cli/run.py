"""``hpgraph run``: one algorithm on one graph, timed over trials, optionally validated and
saved (``--output`` as .npy or .csv, ``--json`` / ``--json-out`` reports)."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from . import _algorithms, _graphs, _validate
from ._algorithms import ALGORITHMS, SAMPLED
from ._common import (EXIT_FAILURE, EXIT_OK, PROG, CLIError, add_backend_argument,
                      add_graph_arguments, check_output_path, format_ms, positive,
                      register_subcommand)


def write_result(path, out) -> None:
    """Save a result: ``.npy`` (one array, or a structured array of several) or ``.csv``."""
    import numpy as np

    path = str(path)
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".npy", ".csv"):
        raise CLIError(f"--output must end in .npy or .csv, got {path!r}")
    arrays = {k: v for k, v in out.items() if not isinstance(v, int)}
    scalars = {k: v for k, v in out.items() if isinstance(v, int)}
    try:
        if ext == ".npy":
            if not arrays:
                np.save(path, np.array(next(iter(scalars.values()))))
            elif len(arrays) == 1:
                np.save(path, next(iter(arrays.values())))
            else:
                n = len(next(iter(arrays.values())))
                rec = np.empty(n, dtype=[(k, v.dtype) for k, v in arrays.items()])
                for k, v in arrays.items():
                    rec[k] = v
                np.save(path, rec)
            return
        with open(path, "w") as fh:
            if not arrays:
                fh.write(",".join(scalars) + "\n" + ",".join(str(v) for v in scalars.values()) + "\n")
                return
            names = list(arrays)
            fh.write("vertex," + ",".join(names) + "\n")
            cols = [arrays[k].tolist() for k in names]
            for i, row in enumerate(zip(*cols)):
                fh.write(f"{i}," + ",".join(_fmt_cell(x) for x in row) + "\n")
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror or exc}") from None


def _fmt_cell(x):
    if isinstance(x, float):
        return repr(x) if x == x and abs(x) != float("inf") else ("inf" if x > 0 else "-inf" if x < 0 else "nan")
    return str(x)


def _run_arguments(p):
    p.add_argument("algorithm", metavar="ALGO",
                   help=f"algorithm: {', '.join(f'{a.name} ({a.title})' for a in ALGORITHMS.values())}")
    add_graph_arguments(p)
    add_backend_argument(p)
    p.add_argument("--source", type=int, default=None,
                   help="source vertex for bfs/sssp/widest (default: the first vertex with an "
                        "out-edge)")
    p.add_argument("--trials", type=int, default=3, help="timed runs (default 3)")
    p.add_argument("--samples", type=int, default=None,
                   help="bc, bcw, ebc, ebcw: sample this many source vertices (default: all); "
                        "topk, ktruss: k")
    p.add_argument("--validate", action="store_true",
                   help="check the result against SciPy / networkx")
    p.add_argument("--output", metavar="FILE", default=None,
                   help="save the result of the last trial (.npy or .csv)")
    p.add_argument("--json", action="store_true", help="print a JSON report")
    p.add_argument("--json-out", metavar="FILE.json", default=None, help="also write the JSON report here")
    p.add_argument("--max-iter", type=int, default=None,
                   help="pagerank, hits, lp: iteration limit (defaults: 100)")
    p.add_argument("--tol", type=float, default=None,
                   help="pagerank, hits: convergence tolerance (defaults: 1e-6 and 1e-8, as networkx)")


def _iteration_params(alg, args) -> dict:
    """``max_iter`` / ``tol`` for the algorithms that take them; a usage error for the others."""
    takes = {"pagerank": ("max_iter", "tol"), "hits": ("max_iter", "tol"), "lp": ("max_iter",)}
    params = {}
    for flag, key in (("--max-iter", "max_iter"), ("--tol", "tol")):
        value = getattr(args, key)
        if value is None:
            continue
        if key not in takes.get(alg.name, ()):
            users = ", ".join(a for a, ks in takes.items() if key in ks)
            raise CLIError(f"{flag} does not apply to {alg.name} (it applies to {users})")
        if key == "max_iter" and value < 0:
            raise CLIError(f"--max-iter must be >= 0, got {value}")
        if key == "tol" and not value > 0:
            raise CLIError(f"--tol must be a positive number, got {value}")
        params[key] = value
    return params


def _run(args) -> int:
    import statistics

    from .. import backend as _backend

    alg = _algorithms.lookup_algorithm(args.algorithm)
    positive(args.trials, "--trials")
    if args.samples is not None:
        positive(args.samples, "--samples")
    if args.output:
        check_output_path(args.output, "--output", (".npy", ".csv"))
    if args.json_out:
        check_output_path(args.json_out, "--json-out", (".json",))
    params = _iteration_params(alg, args)
    if _algorithms.algorithm_function(alg.name) is None:
        raise CLIError(f"algorithm '{alg.name}' ({alg.function}) is not available in this build "
                       "of hpgraph")
    be = _backend.resolve(args.backend)
    loaded = _graphs.load_graph_from_args(args)
    G = loaded.graph
    source = None
    if alg.source:
        first = _algorithms.default_source(G) if args.source is None else args.source
        source = _algorithms.check_source(G, first)
    elif args.source is not None:
        raise CLIError(f"--source does not apply to {alg.name}")
    if alg.name == "tc" and G.directed:
        raise CLIError(f"tc counts triangles of undirected graphs and {loaded.source} is directed; "
                       "add --undirected to treat each arc as an undirected edge")
    samples = args.samples
    if samples is not None:
        if alg.name not in SAMPLED:
            raise CLIError(f"--samples applies to {', '.join(SAMPLED)} only")
        samples = min(samples, G.num_vertices) or None
    times, out, edges = [], None, 0
    for _ in range(args.trials):
        t0 = time.perf_counter()
        out, edges = _algorithms.run_algorithm(alg.name, G, source, be, samples=samples,
                                               seed=args.seed, **params)
        times.append(time.perf_counter() - t0)
    report: dict[str, Any] = {
        "algorithm": alg.name, "graph": loaded.source, "backend": be,
        "device": _graphs.device_description(be), "vertices": int(G.num_vertices),
        "edges": int(G.num_edges), "directed": bool(G.directed), "source": source,
        "load_times": loaded.timings, "trials": times,
        "traversed_edges": edges,
        "mteps": [edges / t / 1e6 if t > 0 else None for t in times],
        "min": min(times), "median": statistics.median(times), "mean": statistics.fmean(times),
        "result": _algorithms.describe_result(alg.name, out),
    }
    if args.validate:
        ok, msg = _validate.validate_result(alg.name, G, source, out, samples=samples,
                                            seed=args.seed, params=params)
        report["validation"] = {"ok": ok, "message": msg}
    if args.output:
        write_result(args.output, out)
        report["output"] = args.output
    if params:
        report["parameters"] = params
    if args.json_out:
        try:
            with open(args.json_out, "w") as fh:
                json.dump(report, fh, indent=2)
        except OSError as exc:
            raise CLIError(f"cannot write {args.json_out}: {exc.strerror or exc}") from None
        report["json_out"] = args.json_out
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"algorithm    {alg.name} ({alg.title})" +
              (f" from vertex {source}" if source is not None else ""))
        print(f"graph        {loaded.source}: {G.num_vertices:,} vertices, {G.num_edges:,} stored "
              f"edges, {'directed' if G.directed else 'undirected'}")
        print(f"backend      {report['device']}")
        for i, (t, m) in enumerate(zip(times, report["mteps"]), 1):
            print(f"trial {i:<6} {format_ms(t):>12}   {m:12,.1f} MTEPS" if m is not None else
                  f"trial {i:<6} {format_ms(t):>12}")
        best = edges / report["min"] / 1e6 if report["min"] > 0 else float("inf")
        print(f"time         min {format_ms(report['min'])}  median {format_ms(report['median'])}  "
              f"mean {format_ms(report['mean'])}   ({edges:,} edges traversed; best {best:,.1f} MTEPS)")
        print(f"result       {report['result']}")
        if args.validate:
            v = report["validation"]
            tag = "skipped" if v["ok"] is None else "OK" if v["ok"] else "FAILED"
            print(f"validate     {tag}: {v['message']}" if tag != "skipped" else
                  f"validate     {v['message']}")
        if args.output:
            print(f"output       {args.output}")
    if args.validate and report["validation"]["ok"] is False:
        print(f"{PROG}: validation failed: {report['validation']['message']}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


register_subcommand(
    "run", help="run one algorithm on a graph file or generated graph, timed",
    description="Run an algorithm (" + ", ".join(ALGORITHMS) + ") on a graph file or a generator "
                "spec; print the time of every trial and MTEPS (traversed edges per second: the "
                "out-edges of the reached vertices for bfs/sssp/widest, every stored edge for the "
                "others, per run), optionally check the result against SciPy/networkx and save "
                "it.",
    epilog="examples:\n  hpgraph run bfs graph.mtx --validate\n"
           "  hpgraph run sssp USA-road-d.NY.gr.gz --source 0 --trials 5\n"
           "  hpgraph run pagerank rmat:20 --backend gpu --json\n"
           "  hpgraph run cc grid:1024x1024 --output labels.npy",
    add_arguments=_run_arguments, handler=_run)
