"""The ``hpgraph`` command line (also ``python -m hpgraph``).

Subcommands live in :data:`SUBCOMMANDS` (name -> :class:`Subcommand`); each has an
``add_arguments(parser)`` and a ``handler(args) -> int``. To add one (``run``, ``bench``...),
call :func:`register_subcommand` from a module and list that module in :data:`PLUGIN_MODULES`,
or register it here. Handlers can reuse :func:`add_graph_arguments` / :func:`load_graph`
(a file or a generator spec, timed) and :func:`add_backend_argument`.

Error policy: expected problems (bad arguments, missing or malformed files, a GPU asked for where
none is usable) print one line ``hpgraph: error: ...`` on stderr and exit with status 2; other
hpgraph errors exit with 1, also without a traceback unless ``--traceback`` is given.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from dataclasses import dataclass, field

from . import __version__

PROG = "hpgraph"

#: modules imported when the parser is built; each may call :func:`register_subcommand`
PLUGIN_MODULES: list = []

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CLIError(Exception):
    """A usage problem found by a handler; printed as ``hpgraph: error: ...``, exit status 2."""


@dataclass
class Subcommand:
    """One ``hpgraph <name>`` subcommand."""

    name: str
    help: str
    add_arguments: object  # callable(argparse.ArgumentParser) -> None
    handler: object        # callable(argparse.Namespace) -> int | None
    description: str | None = None
    epilog: str | None = None


#: name -> Subcommand, in the order they appear in ``hpgraph --help``
SUBCOMMANDS: dict = {}


def register_subcommand(name, *, help, add_arguments, handler, description=None, epilog=None):
    """Register ``hpgraph <name>``; a later registration under the same name replaces it."""
    SUBCOMMANDS[name] = Subcommand(name, help, add_arguments, handler, description, epilog)
    return SUBCOMMANDS[name]


class _Parser(argparse.ArgumentParser):
    """argparse with errors always reported as ``hpgraph: error: ...`` (exit status 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{PROG}: error: {message}\n")


# ---------------------------------------------------------------------------------------------
# shared argument groups and helpers (for every subcommand)


def add_backend_argument(parser):
    """``--backend auto|cpu|gpu`` (default: $HPGRAPH_BACKEND or auto)."""
    parser.add_argument("--backend", choices=("auto", "cpu", "gpu"), default=None,
                        help="where to build and run: auto (the GPU when one is usable, else the CPU; "
                             "default, or $HPGRAPH_BACKEND), cpu or gpu")


def add_graph_arguments(parser, *, positional=True):
    """``GRAPH`` (a file or a generator spec) and the options of :func:`load_graph`."""
    from .generators import SPEC_HELP
    from .io import FORMATS

    if positional:
        parser.add_argument("graph", metavar="GRAPH",
                            help=f"a graph file ({', '.join(FORMATS)}; .gz accepted) or a generator "
                                 f"spec: {SPEC_HELP}")
    d = parser.add_mutually_exclusive_group()
    d.add_argument("--directed", dest="directed", action="store_true", default=None,
                   help="treat the graph as directed (a symmetric file gives both arcs)")
    d.add_argument("--undirected", dest="directed", action="store_false",
                   help="treat the graph as undirected (symmetrize)")
    parser.add_argument("--format", default=None, help=f"file format, when the extension does not "
                                                       f"tell ({', '.join(FORMATS)})")
    parser.add_argument("--unweighted", action="store_true", help="ignore edge weights in the file")
    parser.add_argument("--relabel", action="store_true",
                        help="compact the vertex ids of an edge list to 0..k-1")
    parser.add_argument("--seed", type=int, default=42,
                        help="seed for generator specs (default 42)")
    p = parser.add_mutually_exclusive_group()
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="show a progress bar while reading (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="never show one")


@dataclass
class LoadedGraph:
    """A graph plus how it was obtained and how long each step took (seconds)."""

    graph: object
    source: str
    kind: str                 # "file" or "generator"
    timings: dict = field(default_factory=dict)
    edges: object = None      # the EdgeList it was built from


def _sync(be):
    if be == "gpu":
        from . import backend

        backend.synchronize()


def load_graph(spec_or_path, *, backend=None, directed=None, format=None, weighted=None,
               relabel=False, seed=42, progress=None) -> LoadedGraph:
    """Load a graph from a file or a generator spec, timing the steps.

    Timings: ``generate`` or ``read`` (edges), ``csr`` (``Graph.from_edges``). A missing
    file that is not a spec raises ``GraphFileNotFound``; an unknown spec-like name raises
    ``InvalidValue``.
    """
    from . import backend as _backend
    from .exceptions import GraphFileNotFound
    from .generators import SPEC_HELP, edges_from_spec, is_spec
    from .io import read_edges

    be = _backend.resolve(backend)
    text = str(spec_or_path)
    if is_spec(text) and not os.path.exists(text):
        t0 = time.perf_counter()
        el = edges_from_spec(text, seed=seed, directed=directed, backend=be)
        _sync(be)
        t1 = time.perf_counter()
        G = el.to_graph(backend=be)
        _sync(be)
        t2 = time.perf_counter()
        return LoadedGraph(G, f"{text} (seed {seed})", "generator",
                           {"generate": t1 - t0, "csr": t2 - t1}, el)
    if progress is None:
        progress = sys.stderr.isatty()
    t0 = time.perf_counter()
    try:
        el = read_edges(text, directed=directed, weighted=weighted, format=format, progress=progress,
                        relabel=relabel)
    except GraphFileNotFound as exc:
        if ":" in text and not os.path.dirname(text):
            raise GraphFileNotFound(f"{exc}, and it is not a generator spec either ({SPEC_HELP})",
                                    text) from None
        raise
    t1 = time.perf_counter()
    G = el.to_graph(backend=be)
    _sync(be)
    t2 = time.perf_counter()
    return LoadedGraph(G, text, "file", {"read": t1 - t0, "csr": t2 - t1}, el)


def load_graph_from_args(args) -> LoadedGraph:
    """:func:`load_graph` with the options of :func:`add_graph_arguments`."""
    return load_graph(args.graph, backend=args.backend, directed=args.directed, format=args.format,
                      weighted=False if args.unweighted else None, relabel=args.relabel,
                      seed=args.seed, progress=args.progress)


def device_description(be: str) -> str:
    """``"cpu (NumPy 2.4, 16 cores)"`` or ``"gpu (NVIDIA H100 ..., 79.1 GiB, CuPy 14.2)"``."""
    import numpy as np

    if be != "gpu":
        return f"cpu (NumPy {np.__version__}, {os.cpu_count()} cores)"
    from . import backend

    cp = backend.cupy()
    try:
        dev = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        total = dev.mem_info[1] / 2**30
        return f"gpu {dev.id} ({name}, {total:.1f} GiB, CuPy {cp.__version__})"
    except Exception as exc:  # pragma: no cover - depends on the driver
        return f"gpu (CuPy {cp.__version__}; device query failed: {exc})"


def graph_summary(G, *, timings=None, source=None, hyb=True) -> dict:
    """Overview statistics of a graph as a JSON-friendly dict.

    Keys: ``source``, ``backend``, ``device``, ``vertices``, ``edges`` (stored directed entries),
    ``undirected_edges`` (undirected graphs), ``directed``, ``weighted``, ``dtype``,
    ``self_loops``, ``out_degree`` (min/mean/median/max), ``isolated``, ``hyb`` (K, ell_fill,
    coo_share), ``timings`` (seconds; ``hyb`` added here when computed).
    """
    import numpy as np

    from . import backend as _backend

    timings = dict(timings or {})
    A = G.A
    be = "gpu" if getattr(A, "on_device", False) else "cpu"
    n = int(G.num_vertices)
    m = int(G.num_edges)
    out_deg = np.asarray(_backend.to_host(G.out_degree)).astype(np.int64, copy=False)
    if G.directed:
        in_deg = np.asarray(_backend.to_host(G.in_degree)).astype(np.int64, copy=False)
        isolated = int(np.count_nonzero((out_deg == 0) & (in_deg == 0)))
    else:
        isolated = int(np.count_nonzero(out_deg == 0))
    coo = A.to_coo()  # row ids expanded on the graph's own side (numpy or cupy)
    loops = int(A.xp.count_nonzero(coo.row == coo.col)) if A.nnz else 0
    info = {
        "source": source,
        "backend": be,
        "device": device_description(be),
        "vertices": n,
        "edges": m,
        "directed": bool(G.directed),
        "weighted": bool(G.weighted),
        "dtype": None if not G.weighted or G.dtype is None else str(np.dtype(G.dtype)),
        "self_loops": loops,
    }
    if not G.directed:
        info["undirected_edges"] = (m - loops) // 2 + loops
    if n:
        info["out_degree"] = {"min": int(out_deg.min()), "mean": float(out_deg.mean()),
                              "median": float(np.median(out_deg)), "max": int(out_deg.max())}
    else:
        info["out_degree"] = {"min": 0, "mean": 0.0, "median": 0.0, "max": 0}
    info["isolated"] = isolated
    if hyb:
        t0 = time.perf_counter()
        H = G.hyb("A")
        _sync(be)
        timings["hyb"] = time.perf_counter() - t0
        info["hyb"] = {"K": int(H.K), "ell_fill": float(H.ell_fill), "coo_share": float(H.coo_share),
                       "ell_entries": int(H.ell.nnz), "coo_entries": int(H.coo.nnz)}
    info["timings"] = timings
    return info


def _num(x) -> str:
    return f"{x:,}"


def format_summary(info: dict) -> str:
    """The text block ``hpgraph info`` / ``hpgraph demo`` print."""
    lines = []
    add = lines.append
    if info.get("source"):
        add(f"graph        {info['source']}")
    add(f"backend      {info['device']}")
    add(f"vertices     {_num(info['vertices'])}")
    e = f"edges        {_num(info['edges'])} stored"
    if "undirected_edges" in info:
        e += f" ({_num(info['undirected_edges'])} undirected)"
    add(e)
    w = f"weighted ({info['dtype']})" if info["weighted"] else "unweighted"
    add(f"kind         {'directed' if info['directed'] else 'undirected'}, {w}, "
        f"{_num(info['self_loops'])} self-loops")
    d = info["out_degree"]
    add(f"out-degree   min {_num(d['min'])}  mean {d['mean']:.2f}  median {d['median']:g}  "
        f"max {_num(d['max'])}")
    n = info["vertices"]
    pct = 100.0 * info["isolated"] / n if n else 0.0
    add(f"isolated     {_num(info['isolated'])} vertices ({pct:.1f}%)")
    if "hyb" in info:
        h = info["hyb"]
        add(f"HYB          K = {h['K']}  ELL fill {h['ell_fill']:.3f}  COO share {h['coo_share']:.3f}  "
            f"({_num(h['ell_entries'])} ELL + {_num(h['coo_entries'])} COO entries)")
    t = info.get("timings") or {}
    if t:
        names = {"generate": "generate", "read": "read", "csr": "CSR", "hyb": "HYB"}
        parts = [f"{names.get(k, k)} {v * 1e3:.1f} ms" if v < 1 else f"{names.get(k, k)} {v:.2f} s"
                 for k, v in t.items()]
        add("build time   " + "   ".join(parts))
    return "\n".join(lines)


def plot_degree_distribution(G, path, *, title=None) -> None:
    """Save a log-log plot of the out-degree distribution (vertices per degree) to ``path``.

    Raises :class:`CLIError` when matplotlib is not installed.
    """
    import numpy as np

    from . import backend as _backend

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CLIError("--plot needs matplotlib, which is not installed: "
                       "python3 -m pip install matplotlib") from None
    deg = np.asarray(_backend.to_host(G.out_degree)).astype(np.int64, copy=False)
    counts = np.bincount(deg) if deg.size else np.zeros(1, np.int64)
    k = np.nonzero(counts)[0]
    k = k[k > 0]
    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=100)
    if k.size:
        ax.loglog(k, counts[k], marker="o", linestyle="none", markersize=3)
    ax.set_xlabel("out-degree")
    ax.set_ylabel("number of vertices")
    ax.set_title(title or "degree distribution")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise CLIError(f"cannot write the plot to {path}: {exc}") from None
    finally:
        plt.close(fig)


# ---------------------------------------------------------------------------------------------
# demo


def _demo_arguments(p):
    p.add_argument("--scale", type=int, default=16, help="R-MAT scale: 2**SCALE vertices (default 16)")
    p.add_argument("--edge-factor", type=int, default=16, help="edges per vertex (default 16)")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    add_backend_argument(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def _demo(args) -> int:
    from . import backend as _backend

    be = _backend.resolve(args.backend)
    loaded = load_graph(f"rmat:{args.scale}:{args.edge_factor}", backend=be, seed=args.seed)
    info = graph_summary(loaded.graph, timings=loaded.timings,
                         source=f"R-MAT scale {args.scale}, edge factor {args.edge_factor} "
                                f"(Graph500 a=0.57 b=0.19 c=0.19), undirected, seed {args.seed}")
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    print(f"hpgraph {__version__} demo")
    print(format_summary(info))
    if be == "cpu" and args.backend in (None, "auto"):
        why = _backend.gpu_unavailable_reason()
        if why:
            print(f"(CPU backend: {why})")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# info


def _info_arguments(p):
    add_graph_arguments(p)
    add_backend_argument(p)
    p.add_argument("--plot", metavar="FILE.png", default=None,
                   help="also save a log-log out-degree distribution plot (needs matplotlib)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def _info(args) -> int:
    loaded = load_graph_from_args(args)
    info = graph_summary(loaded.graph, timings=loaded.timings, source=loaded.source)
    if args.plot:
        plot_degree_distribution(loaded.graph, args.plot,
                                 title=f"out-degree distribution: {os.path.basename(str(args.graph))}")
        info["plot"] = args.plot
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print(format_summary(info))
        if args.plot:
            print(f"plot         {args.plot}")
    return EXIT_OK


register_subcommand(
    "demo", help="build an R-MAT graph and print its summary",
    description="Build a Graph500 R-MAT graph (scale 16 by default) on the best backend and print "
                "vertices, edges, degree statistics, the HYB layout and build times.",
    add_arguments=_demo_arguments, handler=_demo)

register_subcommand(
    "info", help="summarize a graph file or a generated graph",
    description="Print vertices, edges, degree statistics, the HYB layout (K, ELL fill, COO share) "
                "and load/build times for a graph file or a generator spec.",
    epilog="examples:\n  hpgraph info USA-road-d.NY.gr.gz\n  hpgraph info rmat:20 --plot degrees.png\n"
           "  hpgraph info grid:1024x1024 --backend cpu --json",
    add_arguments=_info_arguments, handler=_info)


# ---------------------------------------------------------------------------------------------
# entry point


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per entry of :data:`SUBCOMMANDS`."""
    for mod in PLUGIN_MODULES:
        importlib.import_module(mod)
    parser = _Parser(prog=PROG, description="hpgraph: GraphBLAS-style graph analytics on NVIDIA GPUs "
                                             "(and on the CPU through NumPy/SciPy).")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--traceback", action="store_true",
                        help="show the full Python traceback on errors (for bug reports)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for sc in SUBCOMMANDS.values():
        p = sub.add_parser(sc.name, help=sc.help, description=sc.description or sc.help,
                           epilog=sc.epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
        sc.add_arguments(p)
        p.set_defaults(_handler=sc.handler)
    return parser


def _expected_errors():
    from .exceptions import (DeviceUnavailable, FileFormatError, GraphFileNotFound, InvalidGraph,
                             InvalidValue)

    return (CLIError, InvalidValue, InvalidGraph, FileFormatError, GraphFileNotFound,
            DeviceUnavailable, OSError)


def _error(message) -> None:
    text = " ".join(str(message).split("\n")[0:1]) or type(message).__name__
    print(f"{PROG}: error: {text}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 usage or input error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = getattr(args, "_handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        _error(f"a command is required: {', '.join(SUBCOMMANDS)}")
        return EXIT_USAGE
    from .exceptions import HpgraphError

    try:
        rc = handler(args)
        return EXIT_OK if rc is None else int(rc)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `hpgraph info ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except _expected_errors() as exc:
        if args.traceback:
            raise
        _error(exc)
        return EXIT_USAGE
    except HpgraphError as exc:
        if args.traceback:
            raise
        _error(f"{type(exc).__name__}: {exc}")
        print(f"{PROG}: (run with --traceback for details)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
