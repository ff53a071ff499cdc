"""``floyd_warshall``, ``breadth_first_tree`` and ``minimum_spanning_tree`` built on the engine
routines of :mod:`._engine` and hpgraph's Boruvka rounds."""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from ._engine import _parse, _rows, _side, breadth_first_order, shortest_path
from ._scipy import _is_cupy, _to_device, _to_host, scipy_function, wrap

__all__ = ["floyd_warshall", "breadth_first_tree", "minimum_spanning_tree"]


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False,
                   overwrite=False, *, backend=None):
    """All-pairs shortest paths (SciPy's ``floyd_warshall``), on hpgraph's engine.

    The distances are SciPy's; they come from ``shortest_path(method="FW")`` (one engine SSSP
    per vertex after a negative-cycle check), so where several shortest paths exist the
    predecessors may differ from SciPy's.

    Parameters
    ----------
    csgraph : sparse matrix/array (SciPy or CuPy), or dense array
    directed, return_predecessors, unweighted : bool
        As SciPy.
    overwrite : bool
        Accepted for compatibility; the input is never modified.
    backend : {None, "auto", "cpu", "gpu"}, keyword only

    Returns
    -------
    dist_matrix : ndarray of float64, shape (N, N)
    predecessors : ndarray of int32 (if ``return_predecessors``)

    Raises
    ------
    scipy.sparse.csgraph.NegativeCycleError
        The graph has a negative cycle.
    """
    fmt = getattr(csgraph, "format", None)
    if fmt is not None and fmt not in ("csr", "csc", "lil"):  # SciPy's FW densifies first
        raise ValueError("csgraph must be lil, csr, or csc format")
    return shortest_path(csgraph, method="FW", directed=directed,
                         return_predecessors=return_predecessors, unweighted=unweighted,
                         backend=backend)


def breadth_first_tree(csgraph, i_start, directed=True, *, backend=None):
    """The breadth-first tree from ``i_start`` as a sparse matrix (SciPy's ``breadth_first_tree``).

    The predecessors come from the engine's :func:`breadth_first_order` (SciPy's exact tree);
    the matrix is assembled by SciPy's ``reconstruct_path`` on the host.

    Parameters
    ----------
    csgraph : sparse matrix/array (SciPy or CuPy), or dense array
    i_start : int
    directed : bool, default True
    backend : {None, "auto", "cpu", "gpu"}, keyword only

    Returns
    -------
    scipy.sparse.csr_matrix (cupyx.scipy.sparse.csr_matrix for CuPy input)
    """
    from scipy.sparse.csgraph._validation import validate_graph

    _, pred = breadth_first_order(csgraph, i_start, directed, True, backend=backend)
    host = validate_graph(_to_host(csgraph), directed, dense_output=False)  # as SciPy does
    tree = scipy_function("reconstruct_path")(host, _to_host(pred), directed)
    return _to_device(tree) if _is_cupy(csgraph) else tree


def minimum_spanning_tree(csgraph, overwrite=False, *, backend=None):
    """Minimum spanning tree (forest) of the undirected graph ``csgraph``, SciPy's exact result.

    SciPy runs Kruskal over the stored entries ordered by weight, ties by stored position (a
    stable sort), and keeps the entries it takes at their own ``(row, column)``.  Host input
    runs that (SciPy's compiled code is the fastest honest choice there); CuPy input (or
    ``backend="gpu"``) ranks the entries the same way on the device and runs hpgraph's Boruvka
    rounds (:func:`hpgraph.algorithms.spanning_forest.boruvka`): with every rank distinct the
    forest is unique, so the two pick the same entries.

    Parameters
    ----------
    csgraph : sparse matrix/array (SciPy or CuPy), or dense array
        Read as SciPy reads it (``0`` / ``inf`` / ``NaN`` are no edge in dense input; stored
        zeros are edges of weight 0, left out of the result as SciPy leaves them).
    overwrite : bool
        Accepted for compatibility; the input is never modified.
    backend : {None, "auto", "cpu", "gpu"}, keyword only
        None: SciPy for host input, the device for CuPy input.

    Returns
    -------
    scipy.sparse.csr_array / csr_matrix (as SciPy returns for the input), or
    cupyx.scipy.sparse.csr_matrix for CuPy input
        The tree's entries with their weights.
    """
    inp = _parse(csgraph, True)
    on_gpu = _side(inp, backend) == "gpu" and not (backend is None and not inp.on_device)
    if not on_gpu or bool(_backend.to_host(inp.xp.isnan(inp.data).any())):
        return wrap("minimum_spanning_tree")(csgraph, overwrite=overwrite)
    cp = _backend.cupy()
    n = inp.n
    indptr, indices = cp.asarray(inp.indptr), cp.asarray(inp.indices)
    out = tree_values(cp, indptr, indices, cp.asarray(inp.data), n)
    import cupyx.scipy.sparse as csp

    # copies: eliminate_zeros compacts the index arrays in place, and they may be the caller's
    tree = csp.csr_matrix((out, indices.copy(), indptr.copy()), shape=(n, n))
    tree.eliminate_zeros()
    if inp.on_device:
        return tree
    import scipy.sparse as sp

    host = tree.get()
    return sp.csr_matrix(host) if isinstance(csgraph, sp.spmatrix) else sp.csr_array(host)


def tree_values(xp, indptr, indices, data, n):
    """Per stored entry of a CSR (NumPy or CuPy arrays): its weight if SciPy's Kruskal takes it
    into the minimum spanning forest, else 0.  Entries ranked by ``(weight, position)`` -- the
    order of SciPy's stable sort --, self-loops never taken."""
    from ..algorithms.spanning_forest import boruvka

    nnz = int(indices.shape[0])
    rows = _rows(xp, indptr, nnz)
    order = xp.lexsort(xp.stack([xp.arange(nnz, dtype=np.float64), data]))   # a stable sort
    u, v = rows[order], indices[order].astype(np.int64)
    loop = u == v
    take = order[~loop][boruvka(xp, n, u[~loop], v[~loop])]
    out = xp.zeros(nnz, dtype=np.float64)
    out[take] = data[take]
    return out
