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

_ALL = " One engine call per source, yielded lazily."
_PAIR = ("Paths follow one engine search from the source: where several shortest paths "
         "exist, the path may differ from networkx's bidirectional search.")
_TOPO = ("hpgraph.topological_generations (Kahn's peeling, one vectorised step per "
         "generation); the order within a generation is rebuilt on the host in networkx's "
         "exact order.")
_DFS = ("hpgraph.csgraph.depth_first_order (SciPy's CPU code) on the adjacency in networkx's "
        "neighbour order (networkx's exact order); with ``depth_limit``, "
        "hpgraph.depth_first_events. ``sort_neighbors`` is declined.")
_VEC = "Vectorised NumPy over the converted adjacency."
_CUTS = ("hpgraph.cut_size (volumes from the degree array); float weights are added in "
         "another order than networkx's, so sums agree to rounding.")
_POWER = ("hpgraph.eigenvector_centrality / katz_centrality: networkx's power iteration (same "
          "start, update and stopping rule) with A^T x on hpgraph.mxv (float64); values agree "
          "to rounding. Negative weights are declined.")
_KCORE = ("hpgraph's core numbers; the subgraph is a new networkx graph with the numeric edge "
          "attributes, node and graph attributes (non-numeric edge attributes are not kept).")
_LINK = ("Sums over hpgraph.common_neighbors (the common neighbours of every pair); pairs in "
         "networkx's order (``non_edges`` rebuilt with the same set construction).")

_MST = ("hpgraph's minimum spanning forest (Boruvka on the engine) for every ``algorithm``; "
        "edges in Kruskal's order. Where equal weights allow several forests, hpgraph's may "
        "differ from networkx's. Multigraphs, and edge data that is not all numeric, are "
        "declined.")

_MATRIX = ("Read from the converted CSR: entries renumbered and scattered with NumPy, in the "
           "order networkx builds its triples. Multigraphs are served: parallel edges' weights "
           "are summed, as networkx does (``to_numpy_array`` also with ``multigraph_weight=min``"
           "); structured dtypes are declined.")

_SPARSE = ("SciPy sparse products over the converted CSR (mutual weights P + P^T, normalised "
           "by row sums or maxima). Multigraphs are declined.")

_WALK = ("A sequential search over the converted CSR (networkx's neighbour order, visited "
         "marks in NumPy arrays): networkx's exact order, as a generator.")

_CLUSTER = ("Undirected unweighted: hpgraph.clustering. Weighted and directed: SciPy "
            "sparse products of the cube roots of the normalised weights (diag(W^3), Fagiolo's "
            "(W + W^T)^3 for directed graphs), equal to networkx's up to rounding. Multigraphs "
            "are declined.")

_SUBSET = ("Brandes restricted to the source/target pairs, level-synchronous per source over "
           "hpgraph's BFS depths or SSSP distances (one bincount per level); values agree with "
           "networkx's to rounding. Zero or negative weights are declined.")

_BCC = ("hpgraph.biconnected_components' Tarjan search (sequential, on the host) over the "
        "adjacency in networkx's neighbour order: networkx's order.")

_ECC = ("From the eccentricities (hpgraph.csgraph.shortest_path, all pairs, up to 2048 nodes, "
        "else one engine BFS / SSSP per node); with ``usebounds`` the same extrema come from "
        "all eccentricities (no bounding).")

_SEQ = ("A degree sequence, not a graph: hpgraph.is_graphical (the Erdős–Gallai inequalities "
        "for every k at once from prefix sums) after networkx's integer validation.")

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
    "astar_path": _DIJKSTRA + " Only ``heuristic=None`` (A* is then Dijkstra's search).",
    "astar_path_length": _DIJKSTRA + " Only ``heuristic=None``.",
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
    "betweenness_centrality": ("Brandes over semiring SpMV (unweighted) or over the engine's "
                               "shortest-path DAG (positive weights; zero or negative weights "
                               "are declined); with ``k``, the sample is networkx's for the "
                               "same seed."),
    "edge_betweenness_centrality": ("hpgraph's edge betweenness (Brandes over the engine; "
                                    "positive weights); keys in ``G.edges()`` order. "
                                    "Multigraphs and non-positive weights are declined."),
    "betweenness_centrality_subset": _SUBSET,
    "edge_betweenness_centrality_subset": _SUBSET + " Multigraphs are declined.",
    # unweighted paths, all pairs
    "single_source_shortest_path": _BFS,
    "single_target_shortest_path": _BFS,
    "all_pairs_shortest_path_length": _BFS + _ALL,
    "all_pairs_shortest_path": _BFS + _ALL,
    "bidirectional_shortest_path": _PAIR,
    "shortest_path": ("Single-source, single-target and all-pairs paths are networkx's (BFS) "
                      "or the engine SSSP's tree; " + _PAIR),
    # weighted paths
    "bidirectional_dijkstra": _PAIR,
    "all_pairs_dijkstra": _DIJKSTRA + _ALL,
    "all_pairs_dijkstra_path": _DIJKSTRA + _ALL,
    "all_pairs_dijkstra_path_length": _DIJKSTRA + _ALL,
    "all_pairs_bellman_ford_path": _BF + _ALL,
    "all_pairs_bellman_ford_path_length": _BF + _ALL,
    "single_source_bellman_ford": _BF,
    "single_source_bellman_ford_path": _BF,
    "bellman_ford_path": _BF,
    "negative_edge_cycle": "One multi-source SSSP from every node (hpgraph's cycle detection).",
    "multi_source_dijkstra": _DIJKSTRA + " One multi-source SSSP.",
    "multi_source_dijkstra_path": _DIJKSTRA + " One multi-source SSSP.",
    "multi_source_dijkstra_path_length": _DIJKSTRA + " One multi-source SSSP.",
    "floyd_warshall": ("One engine SSSP per node (not Floyd-Warshall); a negative cycle is "
                       "declined (networkx returns unspecified values there)."),
    "floyd_warshall_numpy": "One engine SSSP per node; a negative cycle is declined.",
    "johnson": "One engine SSSP (negative weights allowed) per node; " + _PAIR,
    "average_shortest_path_length": "One engine BFS / SSSP per node.",
    "eccentricity": ("hpgraph.csgraph.shortest_path (all pairs) up to 2048 nodes, else one engine "
                     "BFS / SSSP per node; negative weights are declined."),
    "diameter": _ECC,
    "radius": _ECC,
    "periphery": _ECC,
    "center": _ECC,
    # components, DAG, DFS
    "weakly_connected_components": _CC,
    "number_weakly_connected_components": _CC,
    "is_weakly_connected": _CC,
    "strongly_connected_components": ("hpgraph.strongly_connected_components, yielded sinks "
                                      "first (the condensation ordered by "
                                      "hpgraph.topological_sort); the order among independent "
                                      "components may differ from networkx's."),
    "number_strongly_connected_components": "hpgraph.strongly_connected_components.",
    "is_strongly_connected": "hpgraph.strongly_connected_components.",
    "topological_generations": _TOPO,
    "topological_sort": _TOPO,
    "is_directed_acyclic_graph": _TOPO,
    "dfs_edges": _DFS,
    "dfs_tree": _DFS,
    "dfs_predecessors": _DFS,
    "dfs_successors": _DFS,
    "dfs_preorder_nodes": _DFS,
    "dfs_postorder_nodes": _DFS,
    # centrality and measures
    "degree_centrality": "hpgraph.degree_centrality (networkx's values bit for bit).",
    "in_degree_centrality": "hpgraph.degree_centrality (mode 'in').",
    "out_degree_centrality": "hpgraph.degree_centrality (mode 'out').",
    "closeness_centrality": ("hpgraph.closeness_centrality (batched BFS, networkx's formula "
                             "bit for bit); with ``distance``, one engine SSSP per node."),
    "harmonic_centrality": ("hpgraph.harmonic_centrality (batched BFS; sums agree to "
                            "rounding); with ``distance`` or ``sources``, one engine BFS / "
                            "SSSP per source in networkx's accumulation order."),
    "eigenvector_centrality": _POWER,
    "katz_centrality": _POWER,
    "clustering": _CLUSTER,
    "average_clustering": _CLUSTER,
    "k_core": _KCORE,
    "k_shell": _KCORE,
    "k_crust": _KCORE,
    "k_corona": _KCORE,
    "isolates": _VEC,
    "number_of_isolates": _VEC,
    "is_isolate": _VEC,
    "reciprocity": "hpgraph.vertex_reciprocity (hpgraph.reciprocity for the graph). Directed graphs only.",
    "overall_reciprocity": "hpgraph.reciprocity. Directed graphs only.",
    "jaccard_coefficient": _LINK,
    "adamic_adar_index": _LINK,
    "resource_allocation_index": _LINK,
    "preferential_attachment": ("Degree products from the converted graph's degree array; pairs "
                                "in networkx's order."),
    "modularity": ("hpgraph.modularity (directed graphs too); values agree with networkx's to "
                   "rounding."),
    "cut_size": _CUTS + " Directed graphs with T=None are declined.",
    "volume": "The degree array of the converted graph, summed in networkx's order.",
    "normalized_cut_size": _CUTS,
    "conductance": _CUTS,
    "edge_expansion": _CUTS,
    "mixing_expansion": _CUTS + " Directed graphs with T=None are declined.",
    "node_boundary": "hpgraph.node_boundary.",
    "node_expansion": "hpgraph.neighborhood.",
    "boundary_expansion": "hpgraph.node_boundary.",
    "is_forest": _CC,
    "is_tree": _CC,
    "is_bipartite": ("Depth parities of one multi-source hpgraph BFS (a root per component); "
                     "undirected graphs only."),
    "global_efficiency": "One engine BFS per node; networkx's summation order.",
    "number_of_selfloops": _VEC,
    "predecessor": ("From hpgraph's BFS levels, rebuilt in networkx's order: nodes in "
                    "discovery order, each predecessor list in its level's order."),
    # communities, k-truss, spanning trees
    "louvain_communities": ("hpgraph's Louvain (all vertices move at once, alternating "
                            "directions, then a refinement V-cycle): a valid partition of "
                            "comparable modularity, not networkx's partition (which depends on "
                            "its visiting order and random choices); ``seed`` is drawn from "
                            "networkx's random state. Directed graphs, multigraphs and "
                            "negative weights are declined."),
    "k_truss": ("hpgraph's k-truss (support counted per edge, peeled in parallel); the "
                "subgraph is a new networkx graph with the numeric edge attributes, node and "
                "graph attributes."),
    "minimum_spanning_edges": _MST,
    "maximum_spanning_edges": _MST + " The maximum forest is the minimum of the negated weights.",
    "minimum_spanning_tree": _MST,
    "maximum_spanning_tree": _MST + " The maximum forest is the minimum of the negated weights.",
    # matrices
    "to_scipy_sparse_array": _MATRIX,
    "adjacency_matrix": _MATRIX,
    "to_numpy_array": _MATRIX,
    "biadjacency_matrix": _MATRIX,
    # community-aware link prediction
    "cn_soundarajan_hopcroft": _LINK,
    "ra_index_soundarajan_hopcroft": _LINK,
    "within_inter_cluster": _LINK,
    # edge-by-edge traversals
    "edge_dfs": _WALK + " Multigraph edges come with their keys, as in networkx.",
    "edge_bfs": ("The vertex order from hpgraph's BFS (rebuilt in networkx's scan order for "
                 "each orientation), each vertex's edges then listed once: networkx's order. "
                 "Multigraph edges come with their keys, as in networkx."),
    "dfs_labeled_edges": ("hpgraph.depth_first_events over the adjacency in networkx's "
                          "neighbour order: networkx's exact events. ``sort_neighbors`` is "
                          "declined."),
    "bfs_labeled_edges": ("hpgraph's BFS gives the depths, networkx's visiting order and parents; "
                          "every edge is labelled at once from them (networkx's exact order)."),
    "all_simple_paths": _WALK + " Parallel edges of a multigraph repeat a path, as in networkx.",
    "all_simple_edge_paths": _WALK + " Multigraph edges come with their keys.",
    "square_clustering": ("hpgraph.square_counts (squares and potential squares from one "
                          "sparse product), divided as networkx divides them: exact. Directed "
                          "graphs are declined."),
    "edge_boundary": _VEC + " ``data`` other than False is declined.",
    "densest_subgraph": ("FISTA's iterations as whole-array float32 updates over the edge "
                         "list (networkx's operations, the same numbers), then the sequential "
                         "peeling (and Greedy++) over the CSR with networkx's heap rules."),
    "biconnected_components": _BCC,
    "biconnected_component_edges": _BCC,
    "is_biconnected": _BCC,
    "articulation_points": _BCC,
    "chain_decomposition": ("hpgraph.depth_first_events in networkx's neighbour order "
                            "(networkx's depth-first forest), then one chain per non-tree "
                            "edge."),
    "bridges": _BCC + " The edges that are a block by themselves, in ``G.edges()`` order.",
    "has_bridges": _BCC,
    "is_graphical": _SEQ,
    "is_valid_degree_sequence_erdos_gallai": _SEQ,
    "is_valid_degree_sequence_havel_hakimi": _SEQ + (" Answered by the Erdős–Gallai check "
                                                     "(the two tests are equivalent)."),
    "is_multigraphical": _SEQ,
    "is_pseudographical": _SEQ,
    "colliders": ("hpgraph.colliders on the predecessor lists in networkx's order, lazily by "
                  "blocks of vertices: networkx's order."),
    "v_structures": ("hpgraph.colliders(unshielded=True) on the predecessor lists in "
                     "networkx's order: networkx's order."),
    # structural holes
    "mutual_weight": _SPARSE,
    "normalized_mutual_weight": _SPARSE + " ``norm`` must be sum or max.",
    "local_constraint": _SPARSE,
    "constraint": _SPARSE,
    "effective_size": _SPARSE,
    # degree pairs
    "node_degree_xy": _VEC + " Multigraph parallel edges repeat the pair, as in networkx.",
    "node_attribute_xy": _VEC + " Multigraph parallel edges repeat the pair, as in networkx.",
    "average_degree_connectivity": _VEC + " Multigraphs are declined.",
    "average_neighbor_degree": _VEC + " Multigraphs and a single node are declined.",
    # predicates
    "is_partition": _VEC,
    "is_matching": _VEC + " The edges are checked in networkx's order (same first failure).",
    "is_maximal_matching": _VEC + " The edges are checked in networkx's order.",
    "is_perfect_matching": _VEC + " The edges are checked in networkx's order.",
    "is_regular": _VEC,
    "is_k_regular": _VEC,
    "is_simple_path": _VEC,
    "is_empty": _VEC,
    "is_negatively_weighted": _VEC + " Weight functions are declined.",
    "is_eulerian": "Degree parity on the CSR; connectivity from hpgraph's FastSV (strong "
                   "components for directed graphs).",
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


#: The project's address (pyproject.toml's Homepage), for a source checkout without metadata.
URL = "https://github.com/hpgraph/hpgraph"


def _url():
    """The project's home page from the installed package metadata, else :data:`URL`."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata

        md = metadata("hpgraph")
    except (ImportError, PackageNotFoundError):  # not installed: a source checkout
        return URL
    for entry in md.get_all("Project-URL") or []:
        label, _, link = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "documentation", "source"):
            return link.strip()
    return md.get("Home-page") or URL


def _default_config():
    """A validated :class:`~._config.HpgraphConfig` (a plain dict where networkx lacks Config)."""
    try:
        from ._config import HpgraphConfig
    except ImportError:  # pragma: no cover - networkx without utils.configs
        return dict(DEFAULT_CONFIG)
    return HpgraphConfig(**DEFAULT_CONFIG)


def get_info():
    """Backend metadata for networkx (``networkx.backend_info`` entry point)."""
    info = {
        "backend_name": "hpgraph",
        "project": "hpgraph",
        "package": "hpgraph",
        "short_summary": "GraphBLAS-style GPU graph engine (HYB SpMV kernels; NumPy on the CPU).",
        "default_config": _default_config(),
        "functions": {
            name: {"additional_docs": doc, "additional_parameters": dict(_DEVICE_PARAM)}
            for name, doc in FUNCTIONS.items()
        },
    }
    info["url"] = _url()
    return info
