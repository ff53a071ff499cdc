"""The ``hpgraph`` command line (also ``python -m hpgraph``).

Subcommands live in :data:`SUBCOMMANDS` (name -> :class:`Subcommand`); each has an
``add_arguments(parser)`` and a ``handler(args) -> int``. To add one (``run``, ``bench``...),
call :func:`register_subcommand` from a module and list that module in :data:`PLUGIN_MODULES`,
or register it here. Handlers can reuse :func:`add_graph_arguments` / :func:`load_graph`
(a file or a generator spec, timed) and :func:`add_backend_argument`.

Exit status (the same with or without ``--traceback``, which only adds the traceback):

* 0 -- success;
* 2 -- bad input or usage: bad arguments, a missing, unreadable or malformed file, an
  unwritable output path (checked before the run), a graph the algorithm does not accept,
  a graph too large for this machine, a GPU asked for where none is usable; one line
  ``hpgraph: error: ...`` on stderr;
* 1 -- the run failed: an algorithm did not converge, validation failed, or an internal error
  (a bug: ``hpgraph: internal error: ...``, please report it with ``--traceback``);
* 130 -- interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import traceback
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
    from .formats.coo import DUPLICATE_POLICIES

    parser.add_argument("--duplicates", choices=[d for d in DUPLICATE_POLICIES], default="min",
                        help="how repeated edges combine (default min: the shortest of parallel "
                             "edges; keep stores them all)")
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
    duplicates: str = "min"   # the duplicate-edge policy used to build it


def _sync(be):
    if be == "gpu":
        from . import backend

        backend.synchronize()


def load_graph(spec_or_path, *, backend=None, directed=None, format=None, weighted=None,
               relabel=False, seed=42, progress=None, duplicates="min") -> LoadedGraph:
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
        G = el.to_graph(backend=be, duplicates=duplicates)
        _sync(be)
        t2 = time.perf_counter()
        return LoadedGraph(G, f"{text} (seed {seed})", "generator",
                           {"generate": t1 - t0, "csr": t2 - t1}, el, duplicates)
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
    G = el.to_graph(backend=be, duplicates=duplicates)
    _sync(be)
    t2 = time.perf_counter()
    return LoadedGraph(G, text, "file", {"read": t1 - t0, "csr": t2 - t1}, el, duplicates)


def load_graph_from_args(args) -> LoadedGraph:
    """:func:`load_graph` with the options of :func:`add_graph_arguments`."""
    return load_graph(args.graph, backend=args.backend, directed=args.directed, format=args.format,
                      weighted=False if args.unweighted else None, relabel=args.relabel,
                      seed=args.seed, progress=args.progress,
                      duplicates=getattr(args, "duplicates", "min"))


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


def graph_summary(G, *, timings=None, source=None, hyb=True, listed_edges=None, duplicates=None) -> dict:
    """Overview statistics of a graph as a JSON-friendly dict.

    Keys: ``source``, ``backend``, ``device``, ``vertices``, ``edges`` (stored directed entries),
    ``undirected_edges`` (undirected graphs), ``directed``, ``weighted``, ``dtype``,
    ``self_loops``, ``out_degree`` (min/mean/median/max), ``isolated``, ``hyb`` (K, ell_fill,
    coo_share), ``timings`` (seconds; ``hyb`` added here when computed); with ``listed_edges``
    (edges in the file or generator output) also ``listed_edges``, ``duplicates_merged`` (listed
    edges that combined with another: ``listed_edges`` minus the distinct edges stored) and
    ``duplicate_policy``.
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
    if listed_edges is not None:
        distinct = m if G.directed else info["undirected_edges"]
        info["listed_edges"] = int(listed_edges)
        info["duplicates_merged"] = max(int(listed_edges) - distinct, 0)
        info["duplicate_policy"] = duplicates
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
    if "duplicates_merged" in info:
        add(f"duplicates   {_num(info['duplicates_merged'])} of {_num(info['listed_edges'])} listed edges "
            f"merged (policy {info['duplicate_policy']})")
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
    p.add_argument("--no-algorithms", action="store_true",
                   help="only build and summarize the graph (skip BFS, SSSP, PageRank, TC)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


#: what ``hpgraph demo`` runs on its graph
DEMO_ALGORITHMS = ("bfs", "sssp", "pagerank", "tc")


def demo_algorithms(G, be) -> dict:
    """Run :data:`DEMO_ALGORITHMS` on ``G``: ``{name: {...}}`` with time, GTEPS and a summary line
    (or ``{"skipped": reason}`` for an algorithm this build lacks).  On the GPU each algorithm
    runs once untimed first (kernel compilation)."""
    out = {}
    for name in DEMO_ALGORITHMS:
        alg = ALGORITHMS[name]
        if algorithm_function(name) is None:
            out[name] = {"skipped": f"hpgraph.algorithms.{alg.function} is not available in this "
                                    "build"}
            continue
        source = default_source(G) if alg.source else None
        if be == "gpu":
            run_algorithm(name, G, source, be)
        t0 = time.perf_counter()
        res, edges = run_algorithm(name, G, source, be)
        t = time.perf_counter() - t0
        out[name] = {"title": alg.title, "source": source, "time": t, "traversed_edges": edges,
                     "gteps": edges / t / 1e9 if t > 0 else None,
                     "result": describe_result(name, res)}
    return out


def _format_demo_algorithms(algs) -> str:
    lines = []
    for name, r in algs.items():
        if "skipped" in r:
            lines.append(f"  {name:<9} skipped: {r['skipped']}")
            continue
        src = f" from vertex {r['source']}" if r["source"] is not None else ""
        g = f"{r['gteps']:.3f} GTEPS" if r["gteps"] is not None else ""
        lines.append(f"  {name:<9} {_ms(r['time']):>11}  {g:>12}   {r['result']}{src}")
    return "\n".join(lines)


def _demo(args) -> int:
    from . import backend as _backend

    be = _backend.resolve(args.backend)
    loaded = load_graph(f"rmat:{args.scale}:{args.edge_factor}", backend=be, seed=args.seed)
    info = graph_summary(loaded.graph, timings=loaded.timings,
                         source=f"R-MAT scale {args.scale}, edge factor {args.edge_factor} "
                                f"(Graph500 a=0.57 b=0.19 c=0.19), undirected, seed {args.seed}")
    if not args.no_algorithms:
        info["algorithms"] = demo_algorithms(loaded.graph, be)
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    print(f"hpgraph {__version__} demo")
    print(format_summary(info))
    if not args.no_algorithms:
        print("algorithms   time, GTEPS (traversed edges per second) and result of each run:")
        print(_format_demo_algorithms(info["algorithms"]))
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
    if args.plot:
        check_output_path(args.plot, "--plot", (".png", ".pdf", ".svg"))
    loaded = load_graph_from_args(args)
    listed = loaded.edges.num_edges if loaded.edges is not None else None
    info = graph_summary(loaded.graph, timings=loaded.timings, source=loaded.source,
                         listed_edges=listed, duplicates=loaded.duplicates)
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
    "demo", help="build an R-MAT graph, summarize it and run BFS, SSSP, PageRank and TC on it",
    description="Build a Graph500 R-MAT graph (scale 16 by default) on the best backend, print "
                "vertices, edges, degree statistics, the HYB layout and build times, then run "
                "BFS, SSSP, PageRank and triangle counting on it and print their results, times "
                "and GTEPS.",
    add_arguments=_demo_arguments, handler=_demo)

register_subcommand(
    "info", help="summarize a graph file or a generated graph",
    description="Print vertices, edges, degree statistics, the HYB layout (K, ELL fill, COO share) "
                "and load/build times for a graph file or a generator spec.",
    epilog="examples:\n  hpgraph info USA-road-d.NY.gr.gz\n  hpgraph info rmat:20 --plot degrees.png\n"
           "  hpgraph info grid:1024x1024 --backend cpu --json",
    add_arguments=_info_arguments, handler=_info)


# ---------------------------------------------------------------------------------------------
# algorithms for run / bench / demo


@dataclass
class Algorithm:
    """One algorithm the command line can run (``hpgraph run NAME``)."""

    name: str
    title: str
    function: str             # name in hpgraph.algorithms
    source: bool              # takes --source
    traversal: bool           # TEPS counts the out-edges of reached vertices (else all edges)
    reference: str            # what --validate compares with ("" = nothing to compare with)


ALGORITHMS = {a.name: a for a in (
    Algorithm("bfs", "breadth-first search", "bfs", True, True,
              "scipy.sparse.csgraph.shortest_path(unweighted=True)"),
    Algorithm("sssp", "single-source shortest paths", "sssp", True, True,
              "scipy.sparse.csgraph.dijkstra / bellman_ford"),
    Algorithm("widest", "widest (maximum-bottleneck) paths", "widest_path", True, True, ""),
    Algorithm("pagerank", "PageRank", "pagerank", False, False,
              "networkx's PageRank iteration (SciPy sparse)"),
    Algorithm("hits", "HITS hubs and authorities", "hits", False, False, "networkx.hits"),
    Algorithm("tc", "triangle counting", "triangle_count", False, False,
              "SciPy sparse (A @ A) * A on the simple graph"),
    Algorithm("cc", "connected components", "connected_components", False, False,
              "scipy.sparse.csgraph.connected_components"),
    Algorithm("kcore", "k-core decomposition", "k_core", False, False, "networkx.core_number"),
    Algorithm("bc", "betweenness centrality", "betweenness_centrality", False, False,
              "networkx.betweenness_centrality"),
    Algorithm("lp", "label propagation", "label_propagation", False, False, ""),
    Algorithm("bcw", "weighted betweenness centrality (positive weights)",
              "betweenness_centrality", False, False, ""),
    Algorithm("ebc", "edge betweenness centrality", "edge_betweenness_centrality", False, False,
              ""),
    Algorithm("ebcw", "weighted edge betweenness centrality (positive weights)",
              "edge_betweenness_centrality", False, False, ""),
    Algorithm("scc", "strongly connected components", "strongly_connected_components", False,
              False, ""),
    Algorithm("wcc", "weakly connected components", "weakly_connected_components", False, False,
              ""),
    Algorithm("jaccard", "Jaccard similarity of the vertex pairs two hops apart", "jaccard",
              False, False, ""),
    Algorithm("overlap", "overlap similarity of the vertex pairs two hops apart", "overlap",
              False, False, ""),
    Algorithm("cosine", "cosine similarity of the vertex pairs two hops apart", "cosine", False,
              False, ""),
    Algorithm("topk", "top-k Jaccard similarity per vertex (k = --samples, default 10)",
              "similarity_topk", False, False, ""),
    Algorithm("clustering", "local clustering coefficient", "clustering", False, False, ""),
    Algorithm("avgclustering", "average clustering coefficient", "average_clustering", False,
              False, ""),
    Algorithm("transitivity", "transitivity", "transitivity", False, False, ""),
    Algorithm("ktruss", "k-truss (k = --samples, default 3)", "k_truss", False, False, ""),
    Algorithm("mst", "minimum spanning forest", "minimum_spanning_forest", False, False, ""),
    Algorithm("degree", "degree centrality", "degree_centrality", False, False, ""),
    Algorithm("eigenvector", "eigenvector centrality", "eigenvector_centrality", False, False,
              ""),
    Algorithm("katz", "Katz centrality (alpha = 0.5 / max degree)", "katz_centrality", False,
              False, ""),
    Algorithm("closeness", "closeness centrality", "closeness_centrality", False, False, ""),
    Algorithm("harmonic", "harmonic centrality", "harmonic_centrality", False, False, ""),
    Algorithm("apsp", "all-pairs shortest path lengths (small graphs)",
              "all_pairs_shortest_path_length", False, False, ""),
    Algorithm("louvain", "Louvain communities", "louvain", False, False, ""),
    Algorithm("leiden", "Leiden communities", "leiden", False, False, ""),
)}

#: algorithms whose --samples is a parameter: sampled sources (betweenness) or k
SAMPLED = ("bc", "bcw", "ebc", "ebcw", "topk", "ktruss")


def _scalar(x):
    import numpy as np

    return np.array([float(x)])


def _pairs(r):
    return {"first": r[0], "second": r[1], "score": r[2]}


def _katz(f, G, be):
    """Katz with ``alpha = 0.5 / max degree``, below ``1 / lambda_max`` on any graph (the
    library's default 0.1 diverges on graphs of large degree)."""
    import numpy as np

    from . import backend as _backend

    deg = np.asarray(_backend.to_host(G.out_degree))
    return {"centrality": f(G, alpha=0.5 / max(1, int(deg.max()) if deg.size else 1),
                            backend=be)}


#: how ``run_algorithm`` calls the algorithms added after the first ten:
#: ``(function, G, backend, samples, seed) -> result dict``
_CALLS = {
    "bcw": lambda f, G, be, k, seed: {"centrality": f(G, k=k, seed=seed, weight="weight",
                                                      backend=be)},
    "ebc": lambda f, G, be, k, seed: dict(zip(("source", "target", "centrality"),
                                              f(G, k=k, seed=seed, backend=be))),
    "ebcw": lambda f, G, be, k, seed: dict(zip(("source", "target", "centrality"),
                                               f(G, k=k, seed=seed, weight="weight",
                                                 backend=be))),
    "scc": lambda f, G, be, k, seed: dict(zip(("components", "labels"), f(G, backend=be))),
    "wcc": lambda f, G, be, k, seed: dict(zip(("components", "labels"), f(G, backend=be))),
    "jaccard": lambda f, G, be, k, seed: _pairs(f(G, backend=be)),
    "overlap": lambda f, G, be, k, seed: _pairs(f(G, backend=be)),
    "cosine": lambda f, G, be, k, seed: _pairs(f(G, backend=be)),
    "topk": lambda f, G, be, k, seed: _pairs(f(G, k or 10, backend=be)),
    "clustering": lambda f, G, be, k, seed: {"clustering": f(G, backend=be)},
    "avgclustering": lambda f, G, be, k, seed: {"value": _scalar(f(G, backend=be))},
    "transitivity": lambda f, G, be, k, seed: {"value": _scalar(f(G, backend=be))},
    "ktruss": lambda f, G, be, k, seed: {"edges": int(f(G, k or 3, backend=be).num_edges)},
    "mst": lambda f, G, be, k, seed: {"edges": int(f(G, backend=be).num_edges)},
    "degree": lambda f, G, be, k, seed: {"centrality": f(G, backend=be)},
    "eigenvector": lambda f, G, be, k, seed: {"centrality": f(G, backend=be)},
    "katz": lambda f, G, be, k, seed: _katz(f, G, be),
    "closeness": lambda f, G, be, k, seed: {"centrality": f(G, backend=be)},
    "harmonic": lambda f, G, be, k, seed: {"centrality": f(G, backend=be)},
    "apsp": lambda f, G, be, k, seed: {"distance": f(G, backend=be)},
    "louvain": lambda f, G, be, k, seed: {"labels": f(G, seed=seed, backend=be).labels},
    "leiden": lambda f, G, be, k, seed: {"labels": f(G, seed=seed, backend=be).labels},
}

#: the algorithms ``hpgraph bench`` runs by default
BENCH_DEFAULT = ("bfs", "sssp", "pagerank", "tc", "cc")


def algorithm_function(name):
    """The hpgraph function behind ``ALGORITHMS[name]``, or None when this build lacks it."""
    import importlib

    func = ALGORITHMS[name].function
    try:
        from . import algorithms

        module = importlib.import_module(f"hpgraph.algorithms.{algorithms._WHERE[func]}")
        f = getattr(module, func)
    except Exception:  # missing or broken module: the algorithm is not available
        return None
    return f if callable(f) else None


def lookup_algorithm(name) -> Algorithm:
    """``ALGORITHMS[name]`` or a one-line :class:`CLIError` (with a suggestion)."""
    import difflib

    key = str(name).lower()
    if key in ALGORITHMS:
        return ALGORITHMS[key]
    close = difflib.get_close_matches(key, list(ALGORITHMS), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise CLIError(f"unknown algorithm '{name}'{hint}; choose from: {', '.join(ALGORITHMS)}")


def default_source(G) -> int:
    """The first vertex with an out-edge (0 when there is none)."""
    import numpy as np

    from . import backend as _backend

    deg = np.asarray(_backend.to_host(G.out_degree))
    nz = np.flatnonzero(deg)
    return int(nz[0]) if nz.size else 0


def check_source(G, source) -> int:
    n = G.num_vertices
    if n == 0:
        raise CLIError("the graph has no vertices")
    if not 0 <= source < n:
        raise CLIError(f"--source {source} is out of range for a graph of {n:,} vertices "
                       f"(valid: 0..{n - 1})")
    return source


def run_algorithm(name, G, source, be, *, samples=None, seed=42, **params):
    """Run one algorithm; returns ``(result dict of host arrays / scalars, traversed edges)``.

    ``params`` (``max_iter``, ``tol``) go to pagerank, hits and label propagation."""
    import numpy as np

    from . import backend as _backend

    f = algorithm_function(name)
    if f is None:
        raise CLIError(f"algorithm '{name}' ({ALGORITHMS[name].function}) is not available in "
                       "this build of hpgraph")
    h = _backend.to_host
    if name in _CALLS:
        out = _CALLS[name](f, G, be, samples, seed)
    elif name == "bfs":
        r = f(G, source, backend=be)
        out = {"depth": r.depth, "parent": r.parent}
    elif name == "sssp":
        r = f(G, source, backend=be)
        out = {"distance": r.distance, "predecessor": r.predecessor}
    elif name == "widest":
        r = f(G, source, backend=be)
        out = {"width": r.width, "predecessor": r.predecessor}
    elif name == "pagerank":
        out = {"rank": f(G, backend=be, **params)}
    elif name == "hits":
        hubs, auth = f(G, backend=be, **params)
        out = {"hubs": hubs, "authorities": auth}
    elif name == "tc":
        out = {"triangles": int(f(G, backend=be))}
    elif name == "cc":
        k, labels = f(G, backend=be)
        out = {"labels": labels, "components": int(k)}
    elif name == "kcore":
        out = {"core": f(G, backend=be)}
    elif name == "bc":
        out = {"centrality": f(G, k=samples, seed=seed, backend=be)}
    else:
        out = {"labels": f(G, backend=be, **params)}
    _sync(be)
    out = {k: (np.asarray(h(v)) if not isinstance(v, int) else v) for k, v in out.items()}
    return out, _traversed_edges(name, G, out)


def _traversed_edges(name, G, out) -> int:
    import numpy as np

    from . import backend as _backend

    if not ALGORITHMS[name].traversal:
        return int(G.num_edges)
    first = next(iter(out.values()))
    if name == "bfs":
        reached = first >= 0
    elif name == "widest":
        reached = np.isfinite(first) | (first > 0)
    else:
        reached = np.isfinite(first)
    deg = np.asarray(_backend.to_host(G.out_degree)).astype(np.int64)
    return int(deg[reached].sum())


def describe_result(name, out) -> str:
    """One line about a result (reached vertices, top score, counts...)."""
    import numpy as np

    if name == "bfs":
        d = out["depth"]
        r = d >= 0
        return f"reached {int(r.sum()):,} vertices, depth <= {int(d[r].max()) if r.any() else 0}"
    if name in ("sssp", "widest"):
        key = "distance" if name == "sssp" else "width"
        d = out[key]
        r = np.isfinite(d) if name == "sssp" else (d > -np.inf)
        fin = d[r & np.isfinite(d)]
        top = f", max {key} {float(fin.max()):g}" if fin.size else ""
        return f"reached {int(r.sum()):,} vertices{top}"
    if name in ("pagerank", "kcore", "bc"):
        key = {"pagerank": "rank", "kcore": "core", "bc": "centrality"}[name]
        v = out[key]
        if v.size == 0:
            return "empty graph"
        i = int(np.argmax(v))
        return f"max {key} {v[i].item():.6g} at vertex {i}"
    if name == "hits":
        h, a = out["hubs"], out["authorities"]
        return (f"top hub {int(np.argmax(h))}, top authority {int(np.argmax(a))}"
                if h.size else "empty graph")
    if name == "tc":
        return f"{out['triangles']:,} triangles"
    if name == "cc":
        sizes = np.bincount(out["labels"]) if out["labels"].size else np.zeros(1, np.int64)
        return f"{out['components']:,} components, largest {int(sizes.max()):,} vertices"
    if "labels" in out:
        labels = out["labels"]
        return f"{np.unique(labels).size:,} communities"
    if "score" in out:
        return f"{out['score'].size:,} vertex pairs"
    if "edges" in out:
        return f"{out['edges']:,} edges"
    if "distance" in out:
        d = out["distance"]
        return f"{int(np.isfinite(d).sum()):,} finite distances"
    key = "centrality" if "centrality" in out else next(iter(out))
    v = out[key]
    if v.size == 0:
        return "empty graph"
    i = int(np.argmax(v))
    return f"max {key} {v[i].item():.6g}" + (f" at {i}" if v.size > 1 else "")


# -- validation against SciPy / networkx -------------------------------------------------------


def validate_result(name, G, source, out, *, samples=None, seed=42, params=None):
    """Compare with a SciPy / networkx reference: ``(ok, message)``; ok None = not checked."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse import csgraph as cg

    alg = ALGORITHMS[name]
    if not alg.reference:
        return None, "skipped: no reference implementation to compare with"
    A = G.to_scipy()
    if name == "bfs":
        ref = cg.shortest_path(A, method="D", unweighted=True, indices=source,
                               directed=G.directed)
        depth = out["depth"].astype(np.float64)
        got = np.where(depth < 0, np.inf, depth)
        if not np.array_equal(ref, got):
            bad = int(np.flatnonzero(ref != got)[0])
            return False, f"depth of vertex {bad}: {got[bad]:g}, {alg.reference} says {ref[bad]:g}"
        reached = np.flatnonzero(depth > 0)
        p = out["parent"][reached].astype(np.int64)
        if reached.size and (np.any(depth[p] != depth[reached] - 1)
                             or not _has_entries(A, p, reached).all()):
            return False, "a BFS parent is not an in-neighbour one level up"
        return True, f"depths equal to {alg.reference}; parents valid"
    if name == "sssp":
        W = A if G.weighted else sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        neg = W.nnz and W.data.min() < 0
        f = cg.bellman_ford if neg else cg.dijkstra
        ref = f(W, directed=G.directed, indices=source)
        got = out["distance"].astype(np.float64)
        rtol = 1e-5 if out["distance"].dtype == np.float32 else 1e-9
        same = (np.isinf(ref) == np.isinf(got)) & \
            np.isclose(np.where(np.isinf(ref), 0, ref), np.where(np.isinf(got), 0, got), rtol=rtol)
        if not same.all():
            bad = int(np.flatnonzero(~same)[0])
            return False, f"distance of vertex {bad}: {got[bad]:g}, scipy says {ref[bad]:g}"
        return True, f"distances equal to scipy.sparse.csgraph.{f.__name__} (rtol {rtol:g})"
    if name == "cc":
        k, labels = cg.connected_components(A, directed=G.directed, connection="weak")
        if k != out["components"] or not np.array_equal(labels, out["labels"]):
            return False, f"{out['components']} components, scipy says {k}"
        return True, f"labels equal to {alg.reference}"
    if name == "tc":
        S = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        S = ((S + S.T) > 0).astype(np.int64)
        S.setdiag(0)
        S.eliminate_zeros()
        ref = int((S @ S).multiply(S).sum()) // 6
        if ref != out["triangles"]:
            return False, f"{out['triangles']:,} triangles, SciPy says {ref:,}"
        return True, f"count equal to {alg.reference}"
    if name == "pagerank":
        # hp.pagerank stops at an L1 change below tol, so it lies within damping / (1 -
        # damping) * tol (L1) of the fixed point; the reference iterates to 1e-13
        tol = float((params or {}).get("tol", 1e-6))
        ref = _pagerank_reference(A, tol=1e-13, max_iter=10_000)
        err = float(np.abs(ref - out["rank"]).sum()) if ref.size else 0.0
        bound = 0.85 / 0.15 * tol * 1.001 + 1e-12
        return err <= bound, (f"L1 difference {err:.2e} (bound {bound:.2e}) vs "
                              f"{alg.reference}")
    import networkx as nx

    H = G.to_networkx()
    if name == "hits":
        hubs, auth = nx.hits(H)
        ref = np.array([auth[v] for v in H])
        err = float(np.abs(ref - out["authorities"]).max()) if ref.size else 0.0
        return err < 1e-6, f"max |difference| {err:.2e} vs networkx.hits"
    if name == "kcore":
        H.remove_edges_from(list(nx.selfloop_edges(H)))
        core = nx.core_number(H)
        ref = np.array([core[v] for v in H])
        ok = np.array_equal(ref, out["core"])
        return ok, "core numbers equal to networkx.core_number" if ok else \
            f"core numbers differ from networkx at {int(np.flatnonzero(ref != out['core'])[0])}"
    bc = nx.betweenness_centrality(H, k=samples, seed=seed)
    ref = np.array([bc[v] for v in H])
    err = float(np.abs(ref - out["centrality"]).max()) if ref.size else 0.0
    return err < 1e-9, f"max |difference| {err:.2e} vs networkx.betweenness_centrality"


def _has_entries(A, rows, cols):
    """Bool per (row, col): ``A`` stores an entry there (explicit zeros included)."""
    import numpy as np

    A = A.tocsr()
    A.sort_indices()
    n = A.shape[1]
    keys = np.repeat(np.arange(A.shape[0], dtype=np.int64), np.diff(A.indptr)) * n + A.indices
    want = rows.astype(np.int64) * n + cols
    pos = np.searchsorted(keys, want)
    pos = np.minimum(pos, max(keys.shape[0] - 1, 0))
    return (keys.shape[0] > 0) & (keys[pos] == want)


def _pagerank_reference(A, alpha=0.85, tol=1e-6, max_iter=100):
    """networkx's ``_pagerank_scipy`` iteration on a SciPy matrix (edge values as weights
    are ignored: hpgraph's default is unweighted), stopping at an L1 change below ``tol``."""
    import numpy as np
    import scipy.sparse as sp

    n = A.shape[0]
    if n == 0:
        return np.zeros(0)
    M = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    S = np.asarray(M.sum(axis=1)).ravel()
    inv = np.zeros(n)
    inv[S != 0] = 1.0 / S[S != 0]
    M = sp.diags_array(inv) @ M
    x = np.full(n, 1.0 / n)
    p = np.full(n, 1.0 / n)
    dangling = np.flatnonzero(S == 0)
    for _ in range(max_iter):
        xlast = x
        x = alpha * (x @ M + x[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - xlast).sum() < tol:
            return x
    return x


# -- output files ------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# run


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


def check_output_path(path, flag, extensions=None) -> None:
    """Fail fast (exit 2) when ``path`` cannot be written: wrong extension, missing or
    unwritable directory, an existing directory or read-only file.  Runs before the work."""
    if extensions is not None:
        ext = os.path.splitext(str(path))[1].lower()
        if ext not in extensions:
            raise CLIError(f"{flag} must end in {' or '.join(extensions)}, got {path!r}")
    full = os.path.abspath(str(path))
    d = os.path.dirname(full)
    if os.path.isdir(full):
        raise CLIError(f"cannot write {flag} {path}: it is a directory")
    if not os.path.isdir(d):
        raise CLIError(f"cannot write {flag} {path}: directory {d} does not exist")
    if not os.access(d, os.W_OK | os.X_OK):
        raise CLIError(f"cannot write {flag} {path}: directory {d} is not writable")
    if os.path.exists(full) and not os.access(full, os.W_OK):
        raise CLIError(f"cannot write {flag} {path}: the file exists and is read-only")


def _positive(value, what):
    if value < 1:
        raise CLIError(f"{what} must be at least 1, got {value}")


def _run(args) -> int:
    import statistics

    from . import backend as _backend

    alg = lookup_algorithm(args.algorithm)
    _positive(args.trials, "--trials")
    if args.samples is not None:
        _positive(args.samples, "--samples")
    if args.output:
        check_output_path(args.output, "--output", (".npy", ".csv"))
    if args.json_out:
        check_output_path(args.json_out, "--json-out", (".json",))
    params = _iteration_params(alg, args)
    if algorithm_function(alg.name) is None:
        raise CLIError(f"algorithm '{alg.name}' ({alg.function}) is not available in this build "
                       "of hpgraph")
    be = _backend.resolve(args.backend)
    loaded = load_graph_from_args(args)
    G = loaded.graph
    source = None
    if alg.source:
        source = check_source(G, default_source(G) if args.source is None else args.source)
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
        out, edges = run_algorithm(alg.name, G, source, be, samples=samples, seed=args.seed, **params)
        times.append(time.perf_counter() - t0)
    report = {
        "algorithm": alg.name, "graph": loaded.source, "backend": be,
        "device": device_description(be), "vertices": int(G.num_vertices),
        "edges": int(G.num_edges), "directed": bool(G.directed), "source": source,
        "load_times": loaded.timings, "trials": times,
        "traversed_edges": edges,
        "mteps": [edges / t / 1e6 if t > 0 else None for t in times],
        "min": min(times), "median": statistics.median(times), "mean": statistics.fmean(times),
        "result": describe_result(alg.name, out),
    }
    if args.validate:
        ok, msg = validate_result(alg.name, G, source, out, samples=samples, seed=args.seed,
                                  params=params)
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
            print(f"trial {i:<6} {_ms(t):>12}   {m:12,.1f} MTEPS" if m is not None else
                  f"trial {i:<6} {_ms(t):>12}")
        best = edges / report["min"] / 1e6 if report["min"] > 0 else float("inf")
        print(f"time         min {_ms(report['min'])}  median {_ms(report['median'])}  "
              f"mean {_ms(report['mean'])}   ({edges:,} edges traversed; best {best:,.1f} MTEPS)")
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


def _ms(t) -> str:
    return f"{t * 1e3:.3f} ms" if t < 1 else f"{t:.3f} s"


# ---------------------------------------------------------------------------------------------
# bench


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

    from . import backend as _backend

    names = [s.strip() for s in args.algorithms.split(",") if s.strip()]
    if not names:
        raise CLIError("--algorithms is empty")
    algs = [lookup_algorithm(s) for s in names]
    _positive(args.trials, "--trials")
    if not 1 <= args.scale <= 30:
        raise CLIError(f"--scale must be in 1..30, got {args.scale}")
    check_output_path(args.json_out, "--json-out")
    if not args.no_plot:
        check_output_path(args.plot, "--plot", (".png", ".pdf", ".svg"))
    be = _backend.resolve(args.backend)
    side = 2 ** ((args.scale + 1) // 2)
    specs = args.graphs or [f"rmat:{args.scale}", f"grid:{side}x{2 ** args.scale // side}"]
    rows, skipped = [], []
    for spec in specs:
        loaded = load_graph(spec, backend=be, seed=args.seed, progress=False)
        G = loaded.graph
        for alg in algs:
            if algorithm_function(alg.name) is None:
                skipped.append(f"{alg.name}: not available in this build")
                continue
            if alg.name == "tc" and G.directed:
                skipped.append(f"tc on {spec}: directed graph")
                continue
            source = default_source(G) if alg.source else None
            if alg.source and G.num_vertices == 0:
                continue
            times = []
            out, edges = None, 0
            run_algorithm(alg.name, G, source, be)  # warm-up (kernel compilation, caches)
            for _ in range(args.trials):
                t0 = time.perf_counter()
                out, edges = run_algorithm(alg.name, G, source, be)
                times.append(time.perf_counter() - t0)
            med = statistics.median(times)
            rows.append({"graph": loaded.source, "algorithm": alg.name,
                         "vertices": int(G.num_vertices), "edges": int(G.num_edges),
                         "traversed_edges": edges, "times": times, "median": med,
                         "mteps": edges / med / 1e6 if med > 0 else None,
                         "result": describe_result(alg.name, out)})
    report = {"backend": be, "device": device_description(be), "trials": args.trials,
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
              f"{_ms(r['median']):>12} {m:>10}")
    for s in skipped:
        print(f"skipped      {s}")
    print(f"json         {args.json_out}")
    if not args.no_plot:
        if _plot_bench(rows, args.plot, report["device"]):
            print(f"plot         {args.plot}")
    return EXIT_OK


def _plot_bench(rows, path, device) -> bool:
    """Grouped bars: MTEPS per algorithm, one colour per graph (log scale)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
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
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise CLIError(f"cannot write the plot to {path}: {exc}") from None
    finally:
        plt.close(fig)
    return True


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

register_subcommand(
    "bench", help="benchmark several algorithms on generated or given graphs",
    description="Time bfs, sssp, pagerank, tc and cc (or --algorithms) on R-MAT and grid graphs "
                "(or the graphs given), print a table, write JSON and a PNG bar chart.",
    epilog="examples:\n  hpgraph bench\n  hpgraph bench --scale 18 --backend gpu\n"
           "  hpgraph bench graph.mtx rmat:16 --algorithms bfs,pagerank --no-plot",
    add_arguments=_bench_arguments, handler=_bench)


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
    """Errors that mean bad input or usage (exit status 2)."""
    from .exceptions import (DeviceUnavailable, DimensionMismatch, DomainMismatch, FileFormatError,
                             GraphFileNotFound, HostOutOfMemory, InvalidGraph, InvalidValue,
                             NegativeCycleError)

    return (CLIError, InvalidValue, InvalidGraph, FileFormatError, GraphFileNotFound,
            DeviceUnavailable, DimensionMismatch, DomainMismatch, NegativeCycleError, HostOutOfMemory,
            OSError)


def _error(message) -> None:
    text = " ".join(str(message).split("\n")[0:1]) or type(message).__name__
    print(f"{PROG}: error: {text}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input or usage, 1 failure or
    internal error; ``--traceback`` adds the traceback and keeps the status)."""
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
            traceback.print_exc()
        _error(exc)
        return EXIT_USAGE
    except HpgraphError as exc:
        if args.traceback:
            traceback.print_exc()
        _error(f"{type(exc).__name__}: {exc}")
        from .exceptions import ConvergenceError

        if isinstance(exc, ConvergenceError):
            print(f"{PROG}: (raise --max-iter or --tol)", file=sys.stderr)
        elif not args.traceback:
            print(f"{PROG}: (run with --traceback for details)", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as exc:  # a bug: one line (and the traceback when asked), exit status 1
        if args.traceback:
            traceback.print_exc()
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc}".split("\n")[0], file=sys.stderr)
        if not args.traceback:
            print(f"{PROG}: (this is a bug; run with --traceback and report it)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
