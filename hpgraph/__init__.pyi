"""Type stub for hpgraph: the public names that ``__init__.py`` loads lazily, for editors and type
checkers.  tests/test_package.py checks that it lists exactly ``hpgraph.__all__``."""

from typing import List

from . import algorithms as algorithms
from . import backend as backend
from . import compiler as compiler
from . import csgraph as csgraph
from . import distributed as distributed
from . import dtypes as dtypes
from . import exceptions as exceptions
from . import exchange as exchange
from . import formats as formats
from . import generators as generators
from . import io as io
from . import labels as labels
from . import ops as ops
from . import spmv as spmv
from . import tables as tables
from .algorithms import (
    betweenness_centrality as betweenness_centrality,
    bfs as bfs,
    connected_components as connected_components,
    edge_betweenness_centrality as edge_betweenness_centrality,
    hits as hits,
    k_core as k_core,
    label_propagation as label_propagation,
    pagerank as pagerank,
    sssp as sssp,
    triangle_count as triangle_count,
    triangles as triangles,
    widest_path as widest_path,
)
from .backend import has_gpu as has_gpu
from .exchange import (
    from_dlpack as from_dlpack,
    from_edge_index as from_edge_index,
    to_edge_index as to_edge_index,
)
from .formats import (
    Bitmask as Bitmask,
    COO as COO,
    CSC as CSC,
    CSR as CSR,
    ELL as ELL,
    HYB as HYB,
)
from .generators import (
    erdos_renyi as erdos_renyi,
    grid_2d as grid_2d,
    rmat as rmat,
)
from .graph import Graph as Graph
from .io import (
    read as read,
    write as write,
)
from .algorithms import (
    all_pairs_shortest_path_length as all_pairs_shortest_path_length,
    average_clustering as average_clustering,
    biconnected_components as biconnected_components,
    closeness_centrality as closeness_centrality,
    colliders as colliders,
    common_neighbors as common_neighbors,
    clustering as clustering,
    cosine as cosine,
    cut_size as cut_size,
    degree_centrality as degree_centrality,
    depth_first_events as depth_first_events,
    eigenvector_centrality as eigenvector_centrality,
    harmonic_centrality as harmonic_centrality,
    is_graphical as is_graphical,
    jaccard as jaccard,
    k_truss as k_truss,
    katz_centrality as katz_centrality,
    leiden as leiden,
    louvain as louvain,
    minimum_spanning_forest as minimum_spanning_forest,
    modularity as modularity,
    neighborhood as neighborhood,
    node_boundary as node_boundary,
    overlap as overlap,
    reciprocity as reciprocity,
    shortest_path as shortest_path,
    similarity_topk as similarity_topk,
    square_clustering as square_clustering,
    strongly_connected_components as strongly_connected_components,
    topological_generations as topological_generations,
    topological_sort as topological_sort,
    transitivity as transitivity,
    vertex_reciprocity as vertex_reciprocity,
    weakly_connected_components as weakly_connected_components,
)
from . import graphblas as graphblas
from .graphblas import (
    Matrix as Matrix,
    Vector as Vector,
    apply as apply,
    assign as assign,
    ewise_add as ewise_add,
    ewise_mult as ewise_mult,
    ewise_union as ewise_union,
    extract as extract,
    kronecker as kronecker,
    mxm as mxm,
    reduce_columnwise as reduce_columnwise,
    reduce_rowwise as reduce_rowwise,
    reduce_scalar as reduce_scalar,
    select as select,
    transpose as transpose,
)
from .labels import VertexLabels as VertexLabels
from .ops import (
    BinaryOp as BinaryOp,
    Monoid as Monoid,
    Semiring as Semiring,
    binary as binary,
    monoid as monoid,
    semiring as semiring,
)
from ._config import config as config
from . import engine as engine
from . import program as program
from .engine.program import (
    Seeded as Seeded,
    VertexProgram as VertexProgram,
)
from .engine.run import run as run
from .spmv import (
    mxv as mxv,
    vxm as vxm,
)
from .tables import (
    from_arrow as from_arrow,
    from_pandas as from_pandas,
    read_parquet as read_parquet,
    result_frame as result_frame,
    write_parquet as write_parquet,
)

__version__: str
__all__: List[str]
