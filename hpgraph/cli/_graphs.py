"""Graphs for the command line: loading a file or a generator spec (timed), the summary that
``hpgraph info`` / ``hpgraph demo`` print, and the degree-distribution plot."""

from __future__ import annotations

import logging
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._common import CLIError, pyplot, save_figure, sync
from .._arrayops import count_true

if TYPE_CHECKING:
    from ..graph import Graph
    from ..io import EdgeList

log = logging.getLogger("hpgraph.cli")


@dataclass
class LoadedGraph:
    """A graph plus how it was obtained and how long each step took (seconds)."""

    graph: Graph
    source: str
    kind: str                 # "file" or "generator"
    timings: dict = field(default_factory=dict)
    edges: EdgeList | None = None  # the edge list it was built from
    duplicates: str = "min"   # the duplicate-edge policy used to build it


def load_graph(spec_or_path, *, backend=None, directed=None, format=None, weighted=None,
               relabel=False, seed=42, progress=None, duplicates="min") -> LoadedGraph:
    """Load a graph from a file or a generator spec, timing the steps.

    Timings: ``generate`` or ``read`` (edges), ``csr`` (``Graph.from_edges``). A missing
    file that is not a spec raises ``GraphFileNotFound``; an unknown spec-like name raises
    ``InvalidValue``.
    """
    from .. import backend as _backend
    from ..exceptions import GraphFileNotFound
    from ..generators import SPEC_HELP, edges_from_spec, is_spec
    from ..io import read_edges

    be = _backend.resolve(backend)
    ahead = _precompile(be)
    text = str(spec_or_path)
    if is_spec(text) and not os.path.exists(text):
        t0 = time.perf_counter()
        el = edges_from_spec(text, seed=seed, directed=directed, backend=be)
        sync(be)
        t1 = time.perf_counter()
        G = el.to_graph(backend=be, duplicates=duplicates)
        sync(be)
        t2 = time.perf_counter()
        return LoadedGraph(G, f"{text} (seed {seed})", "generator",
                           {**ahead, "generate": t1 - t0, "csr": t2 - t1}, el, duplicates)
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
    sync(be)
    t2 = time.perf_counter()
    return LoadedGraph(G, text, "file", {**ahead, "read": t1 - t0, "csr": t2 - t1}, el,
                       duplicates)


def _precompile(be) -> dict:
    """``{"precompile": seconds}`` when :func:`hpgraph.precompile.ensure` filed the shipped
    kernels in CuPy's cache (a GPU machine's first run), else ``{}``."""
    if be != "gpu":
        return {}
    from .. import precompile

    try:
        report = precompile.ensure()
    except Exception as exc:  # an optional speed-up: never a reason for a command to fail
        log.warning("the shipped kernels were not filed (they compile on first use): %s: %s",
                    type(exc).__name__, exc)
        return {}
    if report is None:
        return {}
    if report["error"]:
        log.warning("the shipped kernels were not used (they compile on first use): %s",
                    report["error"])
    return {"precompile": report["seconds"]}


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
    from .. import backend

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

    from .. import backend as _backend

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
    loops = count_true(A.xp, coo.row == coo.col) if A.nnz else 0
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
        sync(be)
        timings["hyb"] = time.perf_counter() - t0
        info["hyb"] = {"K": int(H.K), "ell_fill": float(H.ell_fill), "coo_share": float(H.coo_share),
                       "ell_entries": int(H.ell.nnz), "coo_entries": int(H.coo.nnz)}
    info["timings"] = timings
    return info


def _num(x) -> str:
    return f"{x:,}"


def format_summary(info: dict) -> str:
    """The text block ``hpgraph info`` / ``hpgraph demo`` print."""
    lines: list[str] = []
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
        names = {"precompile": "shipped kernels", "generate": "generate", "read": "read",
                 "csr": "CSR", "hyb": "HYB"}
        parts = [f"{names.get(k, k)} {v * 1e3:.1f} ms" if v < 1 else f"{names.get(k, k)} {v:.2f} s"
                 for k, v in t.items()]
        add("build time   " + "   ".join(parts))
    return "\n".join(lines)


def plot_degree_distribution(G, path, *, title=None) -> None:
    """Save a log-log plot of the out-degree distribution (vertices per degree) to ``path``.

    Raises :class:`CLIError` when matplotlib is not installed.
    """
    import numpy as np

    from .. import backend as _backend

    plt = pyplot()
    if plt is None:
        raise CLIError("--plot needs matplotlib, which is not installed: "
                       "python3 -m pip install matplotlib")
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
    save_figure(plt, fig, path)
