"""Where each networkx function of the backend gets its answer (imports nothing).

Every dispatched function is in exactly one of three classes (tests/nx_backend/test_inventory.py
checks that they cover the registry and that the README lists the same names):

* :data:`ALGORITHM` -- it calls an hpgraph algorithm (``hpgraph.algorithms``), a
  ``hpgraph.csgraph`` function or a GraphBLAS / SpMV operation for the graph work; the backend
  only converts arguments and results (labels, networkx's order, dicts and generators);
* :data:`CONVERSION` -- it reads the converted graph itself (the CSR in networkx's order, degree
  and weight arrays, adjacency lookups); there is no graph algorithm to call;
* :data:`BACKEND` -- the graph computation is written in the backend (NumPy / SciPy or a
  sequential walk) because hpgraph has no algorithm for it; each entry says why.
"""

from __future__ import annotations

_BFS = "hpgraph.bfs (depths; networkx's order rebuilt from them)"
_SSSP = "hpgraph.sssp"
_PATHS = "hpgraph.sssp, hpgraph.bfs (unweighted calls)"
_CC = "hpgraph.connected_components"
_SCC = "hpgraph.strongly_connected_components, hpgraph.topological_sort (condensation order)"
_TOPO = "hpgraph.topological_generations"
_DFS = ("hpgraph.csgraph.depth_first_order (SciPy's CPU code); with depth_limit, "
        "hpgraph.depth_first_events")
_KCORE = "hpgraph.k_core"
_MST = "hpgraph.minimum_spanning_forest"
_BCC = "hpgraph.biconnected_components (tarjan_blocks)"
_SEQ = "hpgraph.is_graphical"
_ECC = "hpgraph.bfs / hpgraph.sssp, or hpgraph.csgraph.shortest_path (all pairs, small graphs)"


def _same(value, names):
    return dict.fromkeys(names.split(), value)


#: name -> the hpgraph algorithm(s) or operation(s) it calls
ALGORITHM = {
    **_same(_BFS, """bfs_edges bfs_tree bfs_layers bfs_predecessors bfs_successors
        bfs_labeled_edges descendants_at_distance descendants ancestors has_path predecessor
        single_source_shortest_path_length single_target_shortest_path_length
        single_source_shortest_path single_target_shortest_path all_pairs_shortest_path
        all_pairs_shortest_path_length bidirectional_shortest_path global_efficiency"""),
    **_same(_PATHS, "shortest_path shortest_path_length"),
    "average_shortest_path_length": ("hpgraph.sssp, hpgraph.bfs (unweighted calls), "
                                     "hpgraph.connected_components (connectivity check)"),
    **_same(_SSSP, """single_source_dijkstra
        single_source_dijkstra_path single_source_dijkstra_path_length dijkstra_path
        dijkstra_path_length bidirectional_dijkstra multi_source_dijkstra
        multi_source_dijkstra_path multi_source_dijkstra_path_length all_pairs_dijkstra
        all_pairs_dijkstra_path all_pairs_dijkstra_path_length single_source_bellman_ford
        single_source_bellman_ford_path single_source_bellman_ford_path_length
        bellman_ford_path bellman_ford_path_length all_pairs_bellman_ford_path
        all_pairs_bellman_ford_path_length negative_edge_cycle johnson floyd_warshall
        floyd_warshall_numpy astar_path astar_path_length"""),
    **_same(_ECC, "eccentricity diameter radius periphery center"),
    **_same(_CC, """connected_components number_connected_components is_connected
        node_connected_component weakly_connected_components number_weakly_connected_components
        is_weakly_connected is_forest is_tree"""),
    "is_bipartite": "hpgraph.connected_components, hpgraph.bfs (depth parities)",
    "is_eulerian": "hpgraph.connected_components / hpgraph.strongly_connected_components",
    **_same(_SCC, """strongly_connected_components number_strongly_connected_components
        is_strongly_connected"""),
    **_same(_TOPO, "topological_sort topological_generations is_directed_acyclic_graph"),
    **_same(_DFS, """dfs_edges dfs_tree dfs_predecessors dfs_successors dfs_preorder_nodes
        dfs_postorder_nodes"""),
    **_same("hpgraph.depth_first_events (in networkx's neighbour order)",
            "dfs_labeled_edges chain_decomposition"),
    **_same(_BCC, """biconnected_components biconnected_component_edges is_biconnected
        articulation_points bridges has_bridges"""),
    "pagerank": "hpgraph.pagerank",
    "hits": "hpgraph.hits",
    "triangles": "hpgraph.triangles",
    "transitivity": "hpgraph.triangles",
    "clustering": ("hpgraph.clustering (unweighted undirected; weighted and directed: SciPy "
                   "sparse products in the backend, hpgraph has no weighted clustering)"),
    "average_clustering": "hpgraph.clustering (as clustering)",
    "core_number": _KCORE,
    **_same(_KCORE, "k_core k_shell k_crust k_corona"),
    "betweenness_centrality": "hpgraph.betweenness_centrality",
    "edge_betweenness_centrality": "hpgraph.edge_betweenness_centrality",
    "closeness_centrality": "hpgraph.closeness_centrality (hpgraph.sssp with distance)",
    "harmonic_centrality": ("hpgraph.harmonic_centrality (hpgraph.bfs / sssp per source with "
                            "distance or sources)"),
    "eigenvector_centrality": "hpgraph.eigenvector_centrality",
    "katz_centrality": "hpgraph.katz_centrality",
    **_same("hpgraph.degree_centrality",
            "degree_centrality in_degree_centrality out_degree_centrality"),
    "louvain_communities": "hpgraph.louvain",
    "modularity": "hpgraph.modularity",
    "overall_reciprocity": "hpgraph.reciprocity",
    "edge_bfs": ("hpgraph.bfs (the vertex order, rebuilt in networkx's scan order; each "
                 "vertex's edges then listed once)"),
    "square_clustering": "hpgraph.square_counts (the squares and potential squares)",
    **_same("hpgraph.colliders (collider_triples on networkx's predecessor order)",
            "colliders v_structures"),
    **_same("hpgraph.common_neighbors (the scores are sums over its lists)", """
        jaccard_coefficient adamic_adar_index resource_allocation_index
        cn_soundarajan_hopcroft ra_index_soundarajan_hopcroft within_inter_cluster"""),
    **_same("hpgraph.cut_size (with volume, read from the degree array)", """cut_size
        normalized_cut_size conductance edge_expansion mixing_expansion"""),
    **_same("hpgraph.node_boundary", "node_boundary boundary_expansion"),
    "node_expansion": "hpgraph.neighborhood",
    "reciprocity": "hpgraph.reciprocity, hpgraph.vertex_reciprocity",
    "k_truss": "hpgraph.k_truss",
    **_same(_MST, """minimum_spanning_edges maximum_spanning_edges minimum_spanning_tree
        maximum_spanning_tree"""),
    **_same(_SEQ, """is_graphical is_valid_degree_sequence_erdos_gallai
        is_valid_degree_sequence_havel_hakimi is_multigraphical is_pseudographical"""),
}

#: name -> what of the converted graph it reads
CONVERSION = {
    **_same("the converted CSR itself (entries renumbered in networkx's triple order)",
            "to_scipy_sparse_array adjacency_matrix to_numpy_array biadjacency_matrix"),
    **_same("the degree array", """isolates number_of_isolates is_isolate is_regular is_k_regular
        preferential_attachment volume"""),
    "number_of_selfloops": "the diagonal entries",
    "is_empty": "the number of stored entries",
    "is_negatively_weighted": "the weight array",
    **_same("adjacency lookups of the argument's edges, in networkx's order",
            "is_matching is_maximal_matching is_perfect_matching is_simple_path"),
    "is_partition": "the node index (no edges involved)",
    **_same("the edge list with the degree array or the node attributes (one pair per edge)",
            "node_degree_xy node_attribute_xy"),
}

_WALK = ("a sequential search that reports edges in networkx's event order (each edge as the "
         "walk meets it); hpgraph has no edge-by-edge search")
_EDGE_LIST = ("the edges of a node set listed in networkx's G.edges(nbunch) order with their data and "
        "keys; hpgraph has no edge listing by node set")
_HOLES = "SciPy sparse products of the mutual weights; hpgraph has no structural-hole measures"
_MIX = ("a degree-weighted neighbour sum (one SpMV, A @ degree) added in networkx's neighbour "
        "order so that float sums round as networkx's do (hpgraph.mxv adds in sorted order); "
        "hpgraph has no neighbour-degree measure")

#: name -> why the computation is in the backend
BACKEND = {
    **_same(_WALK, "edge_dfs all_simple_paths all_simple_edge_paths"),
    "densest_subgraph": ("FISTA's whole-array updates, then a one-vertex-at-a-time peeling "
                         "with networkx's heap rules; hpgraph has no densest-subgraph "
                         "algorithm"),
    **_same("Brandes' accumulation restricted to the source / target pairs (the distances come "
            "from hpgraph.bfs / sssp); hpgraph's betweenness has no source / target subsets",
            "betweenness_centrality_subset edge_betweenness_centrality_subset"),
    **_same(_MIX, "average_degree_connectivity average_neighbor_degree"),
    **_same(_HOLES, "constraint local_constraint effective_size mutual_weight "
            "normalized_mutual_weight"),
    "edge_boundary": _EDGE_LIST,
}
