"""The algorithms that ``hpgraph run`` / ``bench`` / ``demo`` can run: their table, how each is
called, how many edges it traverses (for MTEPS) and a one-line description of its result."""

from __future__ import annotations

from dataclasses import dataclass

from ._common import CLIError, sync


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

    from .. import backend as _backend

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
        from .. import algorithms

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

    from .. import backend as _backend

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

    from .. import backend as _backend

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
    sync(be)
    out = {k: (np.asarray(h(v)) if not isinstance(v, int) else v) for k, v in out.items()}
    return out, _traversed_edges(name, G, out)


def _traversed_edges(name, G, out) -> int:
    import numpy as np

    from .. import backend as _backend

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
