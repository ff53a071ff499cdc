"""``networkx.backend_info`` entry point of the hpgraph backend.

networkx calls :func:`get_info` when it is imported, so this module imports nothing heavy
(no NumPy, no hpgraph engine).  The function table also lists, per function, what differs
from networkx (``additional_docs``, appended to networkx's docstrings) and the backend-only
keyword ``device`` (``additional_parameters``).
"""

from __future__ import annotations

_BFS = ("BFS depths come from hpgraph's direction-optimized BFS; the order of the result is "
        "rebuilt on the host in networkx's neighbour order, so it is identical to networkx's. "
        "``sort_neighbors`` is declined (networkx runs).")
_SET = "Computed from hpgraph's BFS depths."
_DIJKSTRA = ("Distances from hpgraph's SSSP (a Bellman-Ford vertex program with active sets). "
             "Where several shortest paths exist, the path returned (and the dict order among "
             "equal distances) may differ from networkx's. Negative weights and weight "
             "functions are declined (networkx runs).")
_BF = ("hpgraph's SSSP (Bellman-Ford with active sets); a reachable negative cycle raises "
       "NetworkXUnbounded. The dict is ordered by distance, source first. Weight functions "
       "are declined.")
_CC = "hpgraph's FastSV connected components (min-label SpMV hooking); networkx's order."

#: name -> additional_docs (what differs from networkx); the implemented functions
FUNCTIONS = {
    "bfs_edges": _BFS,
    "bfs_tree": _BFS,
    "bfs_predecessors": _BFS,
    "bfs_successors": _BFS,
    "bfs_layers": _BFS,
    "descendants_at_distance": _SET,
    "descendants": _SET,
    "ancestors": _SET,
    "has_path": _SET,
    "single_source_shortest_path_length": _BFS,
    "single_target_shortest_path_length": _BFS,
    "shortest_path_length": ("Single-source, single-target and source-target lengths (BFS or "
                             "SSSP); all-pairs is declined (networkx runs)."),
    "single_source_dijkstra": _DIJKSTRA,
    "single_source_dijkstra_path": _DIJKSTRA,
    "single_source_dijkstra_path_length": _DIJKSTRA,
    "dijkstra_path": _DIJKSTRA,
    "dijkstra_path_length": _DIJKSTRA,
    "single_source_bellman_ford_path_length": _BF,
    "bellman_ford_path_length": _BF,
    "pagerank": ("hpgraph's PageRank with networkx's iteration and stopping rule (L1 change "
                 "< N * tol): values agree with networkx to ~1e-12."),
    "hits": ("hpgraph's HITS is a power iteration on A^T A (networkx uses ARPACK's SVD): "
             "values agree to about ``tol``. Graphs without edges are declined."),
    "triangles": "Degree-ordered triangle counting (one thread per edge on the GPU).",
    "transitivity": ("From hpgraph's per-vertex triangle counts; directed graphs are "
                     "declined."),
    "connected_components": _CC,
    "number_connected_components": _CC,
    "is_connected": _CC,
    "node_connected_component": _CC,
    "core_number": "Parallel peeling, one SpMV per round (Gunrock's k-core).",
    "betweenness_centrality": ("Unweighted only (Brandes over semiring SpMV; ``weight`` must "
                               "be None, else networkx runs); with ``k``, the sample is "
                               "networkx's for the same seed."),
}

_DEVICE_PARAM = {
    "device : str, optional": ("Where hpgraph runs: 'gpu', 'cpu' or 'auto' (default: "
                               "``nx.config.backends.hpgraph.device``, else $HPGRAPH_BACKEND, "
                               "else the GPU when one is usable)."),
}

#: defaults of ``nx.config.backends.hpgraph``
DEFAULT_CONFIG = {
    # where hpgraph runs (None: $HPGRAPH_BACKEND or auto)
    "device": None,
    # automatic dispatch (backend priority) converts graphs with at least this many
    # adjacency entries; smaller ones stay in networkx (conversion would cost more than it saves)
    "min_edges": 50_000,
}


def get_info():
    """Backend metadata for networkx (``networkx.backend_info`` entry point)."""
    return {
        "backend_name": "hpgraph",
        "project": "hpgraph",
        "package": "hpgraph",
        "short_summary": "GraphBLAS-style GPU graph engine (HYB SpMV kernels; NumPy on the CPU).",
        "default_config": dict(DEFAULT_CONFIG),
        "functions": {
            name: {"additional_docs": doc, "additional_parameters": dict(_DEVICE_PARAM)}
            for name, doc in FUNCTIONS.items()
        },
    }
