"""Topological generations and topological order of a directed graph (Kahn's peeling).

Generation 0 is the set of vertices without in-edges; removing a generation's out-edges frees
the next generation, the vertices whose last remaining in-edge came from it.  Every step is
vectorised over the frontier's edges (one CSR gather, one ``unique`` with counts, one
subtraction), with the same code on NumPy and CuPy, so the work is O(n + m) in as many steps as
the longest path has vertices.  A vertex on a cycle, or reachable from one, is never freed: it
has generation -1, and the graph is acyclic exactly when no vertex has.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue
from ._common import finish, prepare
from ._vec import check_directed, kahn_levels
from .._arrayops import bincount

__all__ = ["topological_generations", "topological_sort"]


def _generations(G):
    """(number of generations, int32 generation per vertex, -1 where never freed) on G's side."""
    xp = G.xp
    n = G.num_vertices
    gen = xp.full(n, -1, dtype=np.int32)
    if n == 0:
        return 0, gen
    A = G.A
    indptr = A.indptr.astype(np.int64, copy=False)
    indices = A.indices.astype(np.int64, copy=False)
    # repeated edges each count in the in-degree, as each is one decrement in kahn_levels
    indeg = bincount(xp, indices, minlength=n) if A.nnz else xp.zeros(n, dtype=np.int64)
    return kahn_levels(xp, indptr, indices, indeg, gen), gen


def topological_generations(G, *, backend=None, to=None):
    """Topological generation of every vertex of a directed graph.

    Generation 0 holds the vertices without in-edges, and a vertex's generation is one more than
    the largest generation of its in-neighbours (``networkx.topological_generations`` groups the
    nodes the same way).

    Parameters
    ----------
    G : Graph (directed), scipy/cupyx sparse matrix or networkx DiGraph
        Repeated edges change nothing; a self-loop is a cycle.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    (int, array of int32)
        The number of generations and the generation of each vertex; -1 for a vertex that lies
        on a cycle or is reachable from one (then the graph is not acyclic).

    Raises
    ------
    InvalidValue
        ``G`` is undirected (topological order is defined for directed graphs only).

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 0, 1, 3], [1, 2, 2, 4], num_vertices=5, backend="cpu")
    >>> hp.topological_generations(G, backend="cpu")
    (3, array([0, 1, 2, 0, 1], dtype=int32))
    """
    G, _, on_dev = prepare(G, backend)
    check_directed(G, "topological_generations", "hp.connected_components")
    count, gen = _generations(G)
    return count, finish(gen, on_dev, to)


def topological_sort(G, *, backend=None, to=None):
    """A topological order of a directed acyclic graph: the vertices by generation, each
    generation in increasing vertex id.

    Parameters
    ----------
    G : Graph (directed), scipy/cupyx sparse matrix or networkx DiGraph
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of int64, length n
        Every vertex once; each edge ``u -> v`` has ``u`` before ``v``.

    Raises
    ------
    InvalidValue
        ``G`` is undirected, or has a cycle (no topological order exists).

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 0, 1, 3], [1, 2, 2, 4], num_vertices=5, backend="cpu")
    >>> hp.topological_sort(G, backend="cpu")
    array([0, 3, 1, 4, 2])
    """
    G, _, on_dev = prepare(G, backend)
    check_directed(G, "topological_sort", "hp.connected_components")
    _, gen = _generations(G)
    xp = G.xp
    if bool((gen < 0).any()):
        raise InvalidValue("topological_sort: G has a cycle, so it has no topological order "
                           "(hp.strongly_connected_components finds the cycles)")
    # ids sorted by (generation, id): a stable sort by generation of the ids in order
    order = xp.argsort(gen, kind="stable") if xp is np else xp.lexsort(
        xp.stack([xp.arange(gen.shape[0]), gen]))
    return finish(order.astype(np.int64, copy=False), on_dev, to)
