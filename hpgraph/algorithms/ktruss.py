"""k-truss: the largest subgraph in which every edge closes at least ``k - 2`` triangles
(``networkx.k_truss``, ``cugraph.ktruss_subgraph``).

Peeling by rounds, all edges at once: the support of every remaining edge ``(u, v)`` is
``(S @ S)[u, v]`` over the remaining simple pattern ``S`` (one sparse-sparse product, SciPy or
cupyx, looked up at the edges by a sorted search); every edge with support ``< k - 2`` is
removed; repeat until none is.  Removing edges only lowers supports, so the fixed point is the
k-truss whatever the order of removal.
"""

from __future__ import annotations

import numpy as np

from ._common import prepare
from ._vec import check_number, check_undirected, csr_from

__all__ = ["k_truss"]


def k_truss(G, k, *, backend=None):
    """The k-truss of an undirected graph.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
        Self-loops are dropped (they close no triangle); repeated edges count once for the
        triangles and are kept in the result.
    k : int >= 2
        Every edge of the result lies in at least ``k - 2`` triangles of the result (``k = 2``
        keeps every non-loop edge).
    backend : {None, "auto", "cpu", "gpu"}

    Returns
    -------
    Graph
        Undirected, on the same vertex ids (vertices left without edges stay, isolated;
        networkx's ``k_truss`` drops them), with the weights of ``G``'s kept edges.

    Raises
    ------
    InvalidValue
        ``G`` is directed, or ``k`` is not an integer >= 2.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False, backend="cpu")
    >>> hp.k_truss(G, 3, backend="cpu").num_edges
    6
    """
    check_number("k", k, lo=2, integer=True)
    G, side, _ = prepare(G, backend)
    check_undirected(G, "k_truss")
    from ..formats import CSR
    from ..graph import Graph
    from ._triangles import simple_pairs

    xp = G.xp
    n = G.num_vertices
    r, c, _ = simple_pairs(G, symmetrize=False)
    need = int(k) - 2
    while r.shape[0] and need > 0:
        S = csr_from(xp, r, c, xp.ones(r.shape[0], dtype=np.float64), n)
        P = (S @ S).multiply(S).tocoo()
        pk = P.row.astype(np.int64) * n + P.col.astype(np.int64)
        order = xp.argsort(pk)
        pk, pv = pk[order], xp.rint(P.data[order])
        key = r * n + c
        pos = xp.minimum(xp.searchsorted(pk, key), max(pk.shape[0] - 1, 0))
        sup = xp.where(pk[pos] == key, pv[pos], 0.0) if pk.shape[0] else xp.zeros(key.shape[0])
        keep = sup >= need
        if bool(keep.all()):
            break
        r, c = r[keep], c[keep]
    # the kept pairs, with the stored entries (weights, repeats) of G
    A = G.A
    ar = A.row_ids().astype(np.int64, copy=False) if A.nnz else xp.zeros(0, dtype=np.int64)
    ac = A.indices.astype(np.int64, copy=False)
    kept = xp.sort(r * n + c)
    akey = ar * n + ac
    if kept.shape[0]:
        pos = xp.minimum(xp.searchsorted(kept, akey), kept.shape[0] - 1)
        sel = kept[pos] == akey
    else:
        sel = xp.zeros(akey.shape[0], dtype=bool)
    counts = xp.bincount(ar[sel], minlength=n) if n else xp.zeros(0, dtype=np.int64)
    indptr = xp.zeros(n + 1, dtype=A.indptr.dtype)
    if n:
        indptr[1:] = xp.cumsum(counts)
    vals = None if A.values is None else A.values[sel]
    return Graph._new(CSR(indptr, A.indices[sel], vals, shape=(n, n)), False)
