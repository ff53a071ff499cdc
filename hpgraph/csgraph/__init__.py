"""Drop-in replacement for ``scipy.sparse.csgraph``: every SciPy function, same signatures.

``breadth_first_order``, ``shortest_path``, ``dijkstra``, ``bellman_ford``, ``johnson`` and
``connected_components`` take SciPy's arguments and return SciPy's results:

* input: a SciPy sparse array/matrix (any format), a dense NumPy array (``0``, ``inf`` and
  ``NaN`` mean "no edge"; masked arrays: masked = no edge), a CuPy sparse matrix
  (``cupyx.scipy.sparse``) or a dense CuPy array.  It is read exactly as SciPy reads it: the
  matrix goes through ``.tocsr()`` (so COO duplicates are summed, while duplicates stored in a
  CSR are separate parallel edges -- the cheapest one counts) and **stored explicit zeros are
  edges** of weight 0.  The input is never modified (``overwrite`` is accepted and ignored).
* output: NumPy in -> NumPy out; CuPy in -> CuPy out.  Distances are float64 with ``inf`` for
  unreachable vertices; predecessors, BFS orders and labels are int32 with **-9999** where
  SciPy puts it.  A scalar ``indices`` gives 1-D results, a list 2-D (``indices.shape + (N,)``).
* ``directed=False`` lets a path use ``A[i, j]`` or ``A[j, i]`` (the smaller weight counts).
* ``backend=`` (keyword only): ``"cpu"``, ``"gpu"`` or ``"auto"``/None (hpgraph's default:
  the GPU when one is usable, or the input's side for CuPy input).
* A negative cycle raises SciPy's own :class:`scipy.sparse.csgraph.NegativeCycleError`, so
  ``except NegativeCycleError`` clauses keep working.

Differences from SciPy, all deliberate:

* Where several shortest paths exist, the predecessor chosen may differ (the distances never
  do); ``breadth_first_order`` returns exactly SciPy's order and predecessors.
* ``dijkstra`` with negative weights warns as SciPy does but returns the exact shortest paths
  (SciPy's are "inaccurate"), and raises ``NegativeCycleError`` for a negative cycle reachable
  from a source (SciPy returns arbitrary numbers).
* ``connected_components(..., connection="strong")`` returns SciPy's partition, with the
  components numbered in the order of their smallest vertex (SciPy numbers them in the order
  its depth-first search completes them); ``weak`` labels are identical to SciPy's.
* Out-of-range ``i_start`` raises ``IndexError`` (SciPy reads out of bounds).

``breadth_first_order`` runs SciPy's own traversal for host input (the fastest honest
choice there) and, for CuPy input or ``backend="gpu"``, a level-synchronous order on the
device that reproduces SciPy's queue exactly.  ``minimum_spanning_tree`` likewise runs SciPy
for host input and, for CuPy input, ranks the entries as SciPy's Kruskal does and runs
hpgraph's Boruvka rounds on the device (the same tree).  ``floyd_warshall``
(``shortest_path(method="FW")``) and ``breadth_first_tree`` (SciPy's ``reconstruct_path`` over
the engine's ``breadth_first_order`` predecessors) also use the engine.

The other SciPy functions (``depth_first_order``, ``depth_first_tree``, ``laplacian``,
``yen``, ``reverse_cuthill_mckee``, ``structural_rank``, ``maximum_flow``,
``maximum_bipartite_matching``, ``min_weight_full_bipartite_matching``,
``construct_dist_matrix``, ``reconstruct_path`` and the dense / masked conversions) run SciPy's
CPU code (:mod:`hpgraph.csgraph._scipy`); CuPy input is copied to the host and the result back
to the device.
"""

from __future__ import annotations

from ._engine import (NULL_IDX, bellman_ford, breadth_first_order, connected_components,
                      dijkstra, johnson, shortest_path)
from ._more import breadth_first_tree, floyd_warshall, minimum_spanning_tree
from ._scipy import wrap as _wrap

laplacian = _wrap("laplacian")
yen = _wrap("yen")
depth_first_order = _wrap("depth_first_order")
depth_first_tree = _wrap("depth_first_tree")
reverse_cuthill_mckee = _wrap("reverse_cuthill_mckee")
structural_rank = _wrap("structural_rank")
maximum_flow = _wrap("maximum_flow")
maximum_bipartite_matching = _wrap("maximum_bipartite_matching")
min_weight_full_bipartite_matching = _wrap("min_weight_full_bipartite_matching")
construct_dist_matrix = _wrap("construct_dist_matrix")
reconstruct_path = _wrap("reconstruct_path")
csgraph_from_dense = _wrap("csgraph_from_dense")
csgraph_from_masked = _wrap("csgraph_from_masked")
csgraph_masked_from_dense = _wrap("csgraph_masked_from_dense")
csgraph_to_dense = _wrap("csgraph_to_dense")
csgraph_to_masked = _wrap("csgraph_to_masked")

#: the functions on hpgraph's engine (the others run SciPy's CPU code)
ENGINE = ("breadth_first_order", "breadth_first_tree", "shortest_path", "dijkstra",
          "bellman_ford", "johnson", "floyd_warshall", "connected_components",
          "minimum_spanning_tree")

__all__ = ["NegativeCycleError", "NULL_IDX", "bellman_ford", "breadth_first_order",
           "breadth_first_tree", "connected_components", "construct_dist_matrix",
           "csgraph_from_dense", "csgraph_from_masked", "csgraph_masked_from_dense",
           "csgraph_to_dense", "csgraph_to_masked", "depth_first_order", "depth_first_tree",
           "dijkstra", "floyd_warshall", "johnson", "laplacian", "maximum_bipartite_matching",
           "maximum_flow", "min_weight_full_bipartite_matching", "minimum_spanning_tree",
           "reconstruct_path", "reverse_cuthill_mckee", "shortest_path", "structural_rank",
           "yen"]


def __getattr__(name):
    if name == "NegativeCycleError":  # SciPy's own class (imported lazily)
        from scipy.sparse.csgraph._shortest_path import NegativeCycleError

        return NegativeCycleError
    raise AttributeError(f"module 'hpgraph.csgraph' has no attribute {name!r}")
