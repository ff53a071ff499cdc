"""hpgraph: GraphBLAS-style graph analytics for Python on NVIDIA GPUs.

Importing hpgraph is cheap: it does not import cupy and compiles nothing.  Public names are
loaded on first use (module ``__getattr__``).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> (module, attribute or None for the module itself)
_LAZY = {
    "backend": ("hpgraph.backend", None),
    "dtypes": ("hpgraph.dtypes", None),
    "exceptions": ("hpgraph.exceptions", None),
    "formats": ("hpgraph.formats", None),
    "io": ("hpgraph.io", None),
    "generators": ("hpgraph.generators", None),
    "ops": ("hpgraph.ops", None),
    "compiler": ("hpgraph.compiler", None),
    "spmv": ("hpgraph.spmv", None),
    "algorithms": ("hpgraph.algorithms", None),
    "csgraph": ("hpgraph.csgraph", None),
    "Graph": ("hpgraph.graph", "Graph"),
    "Bitmask": ("hpgraph.formats", "Bitmask"),
    "COO": ("hpgraph.formats", "COO"),
    "CSR": ("hpgraph.formats", "CSR"),
    "CSC": ("hpgraph.formats", "CSC"),
    "ELL": ("hpgraph.formats", "ELL"),
    "HYB": ("hpgraph.formats", "HYB"),
    "binary": ("hpgraph.ops.binary", None),
    "monoid": ("hpgraph.ops.monoid", None),
    "semiring": ("hpgraph.ops.semiring", None),
    "BinaryOp": ("hpgraph.ops", "BinaryOp"),
    "Monoid": ("hpgraph.ops", "Monoid"),
    "Semiring": ("hpgraph.ops", "Semiring"),
    "mxv": ("hpgraph.spmv", "mxv"),
    "vxm": ("hpgraph.spmv", "vxm"),
    "VertexProgram": ("hpgraph.engine.program", "VertexProgram"),
    "run": ("hpgraph.engine.run", "run"),
    "read": ("hpgraph.io", "read"),
    "write": ("hpgraph.io", "write"),
    "rmat": ("hpgraph.generators", "rmat"),
    "grid_2d": ("hpgraph.generators", "grid_2d"),
    "erdos_renyi": ("hpgraph.generators", "erdos_renyi"),
    "has_gpu": ("hpgraph.backend", "has_gpu"),
    "config": ("hpgraph._config", "config"),
    "Seeded": ("hpgraph.engine.program", "Seeded"),
    "program": ("hpgraph.program", None),
    "engine": ("hpgraph.engine", None),
    # tables with vertex labels (pandas / pyarrow imported on first use) and DLPack exchange
    "labels": ("hpgraph.labels", None),
    "tables": ("hpgraph.tables", None),
    "exchange": ("hpgraph.exchange", None),
    # several GPUs / CPU processes on Dask (dask imported on first use)
    "distributed": ("hpgraph.distributed", None),
    "VertexLabels": ("hpgraph.labels", "VertexLabels"),
    "from_pandas": ("hpgraph.tables", "from_pandas"),
    "from_arrow": ("hpgraph.tables", "from_arrow"),
    "read_parquet": ("hpgraph.tables", "read_parquet"),
    "write_parquet": ("hpgraph.tables", "write_parquet"),
    "result_frame": ("hpgraph.tables", "result_frame"),
    "from_dlpack": ("hpgraph.exchange", "from_dlpack"),
    "from_edge_index": ("hpgraph.exchange", "from_edge_index"),
    "to_edge_index": ("hpgraph.exchange", "to_edge_index"),
}

# GraphBLAS objects and operations (hpgraph.graphblas)
_LAZY["graphblas"] = ("hpgraph.graphblas", None)
for _name in ("Matrix", "Vector", "mxm", "ewise_add", "ewise_mult", "ewise_union", "apply", "select",
              "reduce_rowwise", "reduce_columnwise", "reduce_scalar", "extract", "assign",
              "transpose", "kronecker"):
    _LAZY[_name] = ("hpgraph.graphblas", _name)

# algorithms exported as hp.<name>
for _name in ("bfs", "sssp", "pagerank", "triangle_count", "triangles", "connected_components",
              "widest_path", "k_core", "label_propagation", "hits", "betweenness_centrality",
              "edge_betweenness_centrality"):
    _LAZY[_name] = ("hpgraph.algorithms", _name)
for _name in ("strongly_connected_components", "weakly_connected_components", "jaccard", "overlap",
              "cosine", "similarity_topk", "clustering", "average_clustering", "transitivity",
              "k_truss", "degree_centrality", "eigenvector_centrality", "katz_centrality",
              "closeness_centrality", "harmonic_centrality", "minimum_spanning_forest",
              "shortest_path", "all_pairs_shortest_path_length", "louvain", "modularity", "leiden",
              "topological_generations", "topological_sort", "is_graphical",
              "biconnected_components", "depth_first_events", "reciprocity",
              "vertex_reciprocity", "cut_size", "node_boundary", "neighborhood",
              "common_neighbors", "colliders", "square_clustering"):
    _LAZY[_name] = ("hpgraph.algorithms", _name)

__all__ = sorted(_LAZY)


def __getattr__(name):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'hpgraph' has no attribute {name!r}") from None
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
