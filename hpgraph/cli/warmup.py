"""``hpgraph warmup``: compile ahead of time the GPU kernels that a first session needs.

A new process finds compiled kernels in two on-disk caches: CuPy's (its array kernels;
``$CUPY_CACHE_DIR``, default ``~/.cupy/kernel_cache``) and hpgraph's
(:mod:`hpgraph.kernel_cache`; ``hp.config["kernel_cache"]``).  With both empty, a first
``hpgraph demo`` would spend most of its time compiling about 90 small CuPy kernels one after
another; on GPU architectures the package ships them for (:mod:`hpgraph.precompile`) the
command line files them in CuPy's cache instead.  This command builds the demo's R-MAT graph on
the GPU, summarises it as ``demo`` and ``info`` do and runs the chosen algorithms on it once,
which compiles and stores those kernels; later processes load them instead.  Some kernels
depend on the graph's size or dtypes (a scale-20 demo after a scale-16 warm-up compiled 3 CuPy
kernels more), and a user's vertex program compiles its own units (0.2-0.5 s) when it first
runs.
"""

from __future__ import annotations

import json
import os
import time

from ._common import CLIError, EXIT_OK, format_ms, register_subcommand

#: what ``hpgraph warmup`` runs by default: the demo's algorithms and connected components
WARMUP_ALGORITHMS = ("bfs", "sssp", "pagerank", "tc", "cc")


def _warmup_arguments(p):
    p.add_argument("--scale", type=int, default=16,
                   help="R-MAT scale of the graph the kernels are run on (default 16, the demo's)")
    p.add_argument("--edge-factor", type=int, default=16, help="edges per vertex (default 16)")
    p.add_argument("--algorithms", default=",".join(WARMUP_ALGORITHMS),
                   help="comma-separated algorithms to run once (names as in `hpgraph run`; "
                        f"default {','.join(WARMUP_ALGORITHMS)})")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _count_files(path) -> int:
    n = 0
    for _, _, files in os.walk(path):
        n += sum(1 for f in files if not f.endswith(".tmp"))
    return n


def _algorithm_names(text):
    from ._algorithms import lookup_algorithm

    names = [s.strip() for s in str(text).split(",") if s.strip()]
    if not names:
        raise CLIError("--algorithms: expected at least one algorithm name, got an empty list")
    return [lookup_algorithm(name).name for name in names]


def warmup(scale=16, edge_factor=16, algorithms=WARMUP_ALGORITHMS) -> dict:
    """Build an R-MAT graph on the GPU and run ``algorithms`` once on it; returns a report:
    seconds per step and the files each kernel cache gained (``{"backend": "cpu", ...}``
    without a usable GPU: nothing is compiled then)."""
    from .. import backend as _backend
    from .. import kernel_cache, precompile
    from . import _algorithms, _graphs

    if not 1 <= int(scale) <= 30:
        raise CLIError(f"--scale: expected 1 to 30, got {scale}")
    if int(edge_factor) < 1:
        raise CLIError(f"--edge-factor: expected a positive number, got {edge_factor}")
    names = list(algorithms)
    if _backend.resolve(None) != "gpu":
        return {"backend": "cpu", "reason": _backend.gpu_unavailable_reason() or "CPU backend",
                "steps": {}}
    dirs = {"cupy": str(precompile.cupy_cache_dir()), "hpgraph": str(kernel_cache.cache_dir())}
    before = {k: _count_files(d) for k, d in dirs.items()}
    steps = {}
    t0 = time.perf_counter()
    loaded = _graphs.load_graph(f"rmat:{int(scale)}:{int(edge_factor)}", backend="gpu")
    G = loaded.graph
    steps["graph"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    _graphs.graph_summary(G, timings=loaded.timings)    # what `demo` and `info` print
    steps["summary"] = time.perf_counter() - t0
    for name in names:
        alg = _algorithms.ALGORITHMS[name]
        source = _algorithms.default_source(G) if alg.source else None
        t0 = time.perf_counter()
        _algorithms.run_algorithm(name, G, source, "gpu")
        steps[name] = time.perf_counter() - t0
    kernel_cache.wait()               # background compiles (deferred units) reach the disk
    return {"backend": "gpu", "steps": steps, "cache_dirs": dirs,
            "new_files": {k: _count_files(d) - before[k] for k, d in dirs.items()}}


def _warmup(args) -> int:
    report = warmup(args.scale, args.edge_factor, _algorithm_names(args.algorithms))
    if args.json:
        print(json.dumps(report, indent=2))
        return EXIT_OK
    if report["backend"] == "cpu":
        print(f"hpgraph warmup: nothing to compile on the CPU backend ({report['reason']})")
        return EXIT_OK
    for step, t in report["steps"].items():
        print(f"  {step:<9} {format_ms(t):>11}")
    for k, d in report["cache_dirs"].items():
        print(f"{k} kernel cache: {report['new_files'][k]} new files in {d}")
    return EXIT_OK


register_subcommand(
    "warmup", help="compile the GPU kernels of the common algorithms ahead of time",
    description="Build an R-MAT graph on the GPU and run BFS, SSSP, PageRank, triangle "
                "counting and connected components on it once (or the --algorithms given), so "
                "that CuPy's and hpgraph's on-disk kernel caches hold their kernels and later "
                "processes start without compiling them.  Nothing to do on the CPU backend.",
    add_arguments=_warmup_arguments, handler=_warmup)
