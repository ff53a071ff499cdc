"""``floyd_warshall`` and ``breadth_first_tree`` built on the engine routines of :mod:`._engine`."""

from __future__ import annotations

from ._engine import breadth_first_order, shortest_path
from ._scipy import _is_cupy, _to_device, _to_host, scipy_function

__all__ = ["floyd_warshall", "breadth_first_tree"]


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
