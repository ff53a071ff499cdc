"""The CPU backend's calls into ``scipy.sparse.csgraph`` (internal).

Where SciPy's compiled graph routines compute exactly what hpgraph's CPU path computes, the
CPU backend calls them instead of running its vectorised NumPy supersteps (Python loops over
levels or buckets, 5-20x slower on high-diameter graphs):

* BFS depths (``breadth_first_order`` for one source; a unit-weight ``dijkstra`` with
  ``min_only`` for several) -- any valid BFS parent is allowed, so SciPy's tree is one;
* SSSP with non-negative weights whose distances are float64 (``dijkstra``): the distances
  are the same fixed point ``D[v] = min_u (D[u] + w)`` in float64; float32 graphs keep
  hpgraph's float32 arithmetic (SciPy sums in float64, which can differ in the last bit);
* connected components, weak components of a directed graph (``connected_components``),
  numbered by each component's smallest vertex on both sides.

Explicit zero weights are edges in SciPy's sparse input, as in hpgraph; repeated entries are
parallel edges.
"""

from __future__ import annotations

import importlib

import numpy as np

__all__ = ["usable", "bfs_scipy", "sssp_scipy", "components_scipy", "SCIPY_MODULES",
           "scipy_function"]

_NONE = -9999        # SciPy's "no predecessor"


#: SciPy's own csgraph functions are looked up in the private modules that define them, not
#: through ``scipy.sparse.csgraph``: hpgraph.csgraph's test plugin puts hpgraph's functions there
#: (which would call back here).
#: public name -> SciPy module that defines it
SCIPY_MODULES = {
    "laplacian": "_laplacian",
    "floyd_warshall": "_shortest_path",
    "yen": "_shortest_path",
    "depth_first_order": "_traversal",
    "depth_first_tree": "_traversal",
    "breadth_first_tree": "_traversal",
    "breadth_first_order": "_traversal",
    "connected_components": "_traversal",
    "shortest_path": "_shortest_path",
    "dijkstra": "_shortest_path",
    "bellman_ford": "_shortest_path",
    "johnson": "_shortest_path",
    "minimum_spanning_tree": "_min_spanning_tree",
    "reverse_cuthill_mckee": "_reordering",
    "structural_rank": "_reordering",
    "maximum_flow": "_flow",
    "maximum_bipartite_matching": "_matching",
    "min_weight_full_bipartite_matching": "_matching",
    "construct_dist_matrix": "_tools",
    "reconstruct_path": "_tools",
    "csgraph_from_dense": "_tools",
    "csgraph_from_masked": "_tools",
    "csgraph_masked_from_dense": "_tools",
    "csgraph_to_dense": "_tools",
    "csgraph_to_masked": "_tools",
}


def scipy_function(name):
    """SciPy's own ``name`` (from its defining private module)."""
    mod = importlib.import_module(f"scipy.sparse.csgraph.{SCIPY_MODULES[name]}")
    return getattr(mod, name)


def _csgraph():
    """SciPy's BFS, Dijkstra and connected components (:func:`scipy_function`)."""
    import types

    return types.SimpleNamespace(**{name: scipy_function(name) for name in
                                    ("breadth_first_order", "connected_components", "dijkstra")})

def usable(G) -> bool:
    """SciPy can take ``G``: on the host, fewer than ``2**31 - 1`` vertices and entries."""
    return (not G.on_device) and G.num_vertices < 2**31 - 1 and G.A.nnz < 2**31 - 1


def matrix(G, weighted):
    """scipy CSR view of ``G.A`` (float64 weights, or 1.0 per entry); cached on the graph."""
    import scipy.sparse as sp

    def make():
        A = G.A
        vals = A.values if (weighted and A.values is not None) else None
        data = (np.ones(A.nnz, dtype=np.float64) if vals is None
                else np.asarray(vals, dtype=np.float64))
        M = sp.csr_matrix((data, A.indices.astype(np.int32, copy=False),
                           A.indptr.astype(np.int32, copy=False)), shape=A.shape)
        M.has_sorted_indices = True
        return M

    return G._cached(f"hpg.scipy_csr[{bool(weighted)}]", make)


def bfs_scipy(G, sources, idt):
    """``(depth int32, parent)`` of a BFS from ``sources`` (host int64 array)."""
    csgraph = _csgraph()

    M = matrix(G, False)
    src = np.unique(sources)
    if src.size == 1:
        order, pred = csgraph.breadth_first_order(M, int(src[0]), directed=True,
                                                  return_predecessors=True)
        # SciPy's "no predecessor" (-9999, the only negative value) -> -1, in one vector pass
        np.maximum(pred, -1, out=pred)
        depth = _tree_depth(pred, order)
    else:
        dist, pred, _ = csgraph.dijkstra(M, directed=True, indices=src, unweighted=True,
                                         return_predecessors=True, min_only=True)
        depth = np.where(np.isfinite(dist), dist, -1).astype(np.int32)
        np.maximum(pred, -1, out=pred)
    parent = pred.astype(idt, copy=False)
    parent[src] = src
    return depth, parent


def _tree_depth(pred, order):
    """Depths (int32, -1 off the tree) of a BFS tree (``pred``: -1 where none) from its BFS
    order.  Levels are runs of ``order`` and the parents' positions never decrease along it,
    so level ``d + 1`` ends where the vertices whose parent lies before the end of level ``d``
    end: one cumulative count, then one step per level on Python ints.  (The int32 ``order``
    is widened once: NumPy's take and fancy assignment with intp indices are 1.2x / 3x
    faster than with int32 ones or ``np.put``.)"""
    n = pred.shape[0]
    N = order.shape[0]
    depth = np.full(n, -1, dtype=np.int32)
    if N == 0:
        return depth
    pos = order.astype(np.intp)
    # children[v]: how many vertices have parent v -- over the reached ones (a gather) when
    # they are under half of the n, else over all of pred (sequential, -1 counted apart)
    if 2 * N < n:
        children = np.bincount(pred.take(pos[1:]), minlength=n)
    else:
        children = np.bincount(pred + 1, minlength=n + 1)[1:]
    # before[x]: vertices whose parent lies at a position < x = the children of order[:x]
    before = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(children.take(pos), out=before[1:])
    bounds = [0, 1]
    while bounds[-1] < N:
        bounds.append(1 + int(before[bounds[-1]]))
    depth[pos] = np.repeat(np.arange(len(bounds) - 1, dtype=np.int32), np.diff(bounds))
    return depth


def sssp_scipy(G, sources, dt, idt, predecessors):
    """``(dist, pred or None)`` by SciPy's Dijkstra (non-negative weights)."""
    csgraph = _csgraph()

    M = matrix(G, G.weighted)
    src = np.unique(sources)
    out = csgraph.dijkstra(M, directed=True, indices=src, min_only=True,
                           return_predecessors=predecessors)
    dist = out[0] if predecessors else out
    pred = None
    if predecessors:
        pred = np.where(out[1] == _NONE, -1, out[1]).astype(idt)
        pred[src] = -1
    return dist.astype(dt, copy=False), pred


def components_scipy(G):
    """``(count, labels int32)``: SciPy's (weak) connected components.

    An undirected graph stores both directions of every edge, so its components are the
    strong components of that symmetric matrix: SciPy finds those by one depth-first search
    (Pearce), while ``directed=False`` first builds the transpose (R-MAT 18: 97 against 151
    ms).  A search from the smallest unvisited vertex completes that vertex's component
    first, so the labels are numbered by smallest vertex id either way."""
    csgraph = _csgraph()

    k, labels = csgraph.connected_components(matrix(G, False), directed=True,
                                             connection="weak" if G.directed else "strong")
    return int(k), labels.astype(np.int32, copy=False)
