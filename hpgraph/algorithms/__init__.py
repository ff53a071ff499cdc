"""Drop-in graph algorithms, each a plain function over hpgraph's public engine.

One module per algorithm; names are loaded on first use so importing hpgraph stays cheap.
"""

from __future__ import annotations

import importlib

# public name -> module.  Modules whose name would equal their function's carry a leading
# underscore (``_bfs`` defines ``bfs``): a submodule import sets the package attribute of the
# same name, which would otherwise replace the function with the module.
_WHERE = {
    "bfs": "_bfs", "BFSResult": "_bfs",
    "sssp": "_sssp", "SSSPResult": "_sssp",
    "widest_path": "_widest_path", "WidestPathResult": "_widest_path",
    "connected_components": "components",
    "betweenness_centrality": "betweenness",
    "edge_betweenness_centrality": "edge_betweenness", "EdgeBetweennessResult": "edge_betweenness",
    "pagerank": "_pagerank",
    "hits": "_hits",
    "triangle_count": "_triangles", "triangles": "_triangles",
    "k_core": "kcore",
    "label_propagation": "_label_propagation",
    "strongly_connected_components": "scc", "weakly_connected_components": "scc",
    "jaccard": "similarity", "overlap": "similarity", "cosine": "similarity",
    "similarity_topk": "similarity", "SimilarityResult": "similarity",
    "common_neighbors": "similarity", "CommonNeighbors": "similarity",
    "clustering": "_clustering", "average_clustering": "_clustering",
    "transitivity": "_clustering", "square_clustering": "_clustering",
    "square_counts": "_clustering",
    "k_truss": "ktruss",
    "degree_centrality": "centrality", "eigenvector_centrality": "centrality",
    "katz_centrality": "centrality",
    "closeness_centrality": "closeness", "harmonic_centrality": "closeness",
    "minimum_spanning_forest": "spanning_forest",
    "shortest_path": "paths", "paths_from_predecessors": "paths",
    "all_pairs_shortest_path_length": "paths",
    "louvain": "_louvain", "modularity": "_louvain", "LouvainResult": "_louvain",
    "leiden": "_leiden",
    "topological_generations": "dag", "topological_sort": "dag",
    "is_graphical": "degree_sequence",
    "biconnected_components": "biconnected", "BiconnectedResult": "biconnected",
    "depth_first_events": "dfs", "DFSEvents": "dfs",
    "reciprocity": "_reciprocity", "vertex_reciprocity": "_reciprocity",
    "cut_size": "cuts", "node_boundary": "cuts", "neighborhood": "cuts",
    "colliders": "_colliders", "Colliders": "_colliders",
}

__all__ = sorted(_WHERE)


def __getattr__(name):
    try:
        module = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module 'hpgraph.algorithms' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
