"""k-truss: the largest subgraph in which every edge closes at least ``k - 2`` triangles
(``networkx.k_truss``, ``cugraph.ktruss_subgraph``).

Peeling by rounds, all edges at once: the support of every remaining edge (the triangles
through it) is counted, every edge with support ``< k - 2`` is removed, and this repeats until
none is.  Removing edges only lowers supports, so the fixed point is the k-truss whatever the
order of removal.  Two ways of counting the supports (``hp.config["ktruss_method"]``):

* ``"mxm"`` (Davis' k-truss in GraphBLAS): with ``C`` the symmetric pattern of the remaining
  edges, ``S = mxm(C, C, plus_pair, mask=C.S)`` holds the common neighbours of every edge's
  ends, and ``C = select(S, ">=", k - 2)`` is the next round's graph (an edge in no triangle
  has no entry in ``S``).  The default on the GPU.
* ``"wedges"`` (:func:`_supports`): every triangle found once, at its apex in the
  degree-oriented graph, by gathers, sorted searches and bincounts over the wedges, in chunks.
  The default on the host, where it is ~5x faster than the NumPy masked product.
"""

from __future__ import annotations

import numpy as np

from .._config import config
from ._common import prepare
from ._vec import check_number, check_undirected, expand_rows
from .._arrayops import bincount

#: Wedges (oriented 2-paths) examined per chunk when counting edge supports.
WEDGE_CHUNK = 1 << 24

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
    need = int(k) - 2
    method = config["ktruss_method"]
    if method == "auto":
        method = "wedges" if xp is np else "mxm"
    if need > 0 and method == "mxm":
        kept = _peel_mxm(G, need)
    else:
        r, c, _ = simple_pairs(G, symmetrize=False)
        if need > 0:
            r, c = _peel(xp, r, c, n, need)
        kept = xp.sort(r * n + c)
    # the kept pairs, with the stored entries (weights, repeats) of G
    A = G.A
    ar = A.row_ids().astype(np.int64, copy=False) if A.nnz else xp.zeros(0, dtype=np.int64)
    ac = A.indices.astype(np.int64, copy=False)
    akey = ar * n + ac
    if kept.shape[0]:
        pos = xp.minimum(xp.searchsorted(kept, akey), kept.shape[0] - 1)
        sel = kept[pos] == akey
    else:
        sel = xp.zeros(akey.shape[0], dtype=bool)
    counts = bincount(xp, ar[sel], minlength=n) if n else xp.zeros(0, dtype=np.int64)
    indptr = xp.zeros(n + 1, dtype=A.indptr.dtype)
    if n:
        indptr[1:] = xp.cumsum(counts)
    vals = None if A.values is None else A.values[sel]
    return Graph._new(CSR(indptr, A.indices[sel], vals, shape=(n, n)), False)


def _peel_mxm(G, need):
    """Sorted keys ``row * n + col`` (both directions) of the edges left when every edge in
    fewer than ``need`` triangles is removed, round after round (GraphBLAS operations)."""
    from .. import graphblas as gb
    from ._triangles import simple_matrix

    C = gb.Matrix.from_csr_format(simple_matrix(G))._symmetric()
    while C.nvals:
        S = gb.mxm(C, C, "plus_pair[int64]", mask=C.S)
        kept = gb.select(S, ">=", need)._symmetric()
        if kept.nvals == C.nvals:          # kept's pattern is within C's: nothing removed
            break
        C = kept
    return C._keys()


def _supports(xp, u, v, n):
    """Triangles through each oriented edge ``u[e] -> v[e]`` (edges sorted by ``(u, v)``, each
    undirected edge once, oriented from the lower to the higher ``(degree, id)``).

    A triangle ``a -> b, a -> c, b -> c`` is found once, at its apex ``a``: for every edge
    ``a -> b`` and every other out-neighbour ``c`` of ``a``, look ``b -> c`` up in the sorted
    edge keys.  The wedges ``(a -> b, a -> c)`` number ``sum outdeg^2 = O(m sqrt m)`` (the
    orientation bounds out-degrees by ``sqrt(2m)``) and are taken in chunks of the edges.
    """
    m = int(u.shape[0])
    sup = xp.zeros(m, dtype=np.int64)
    if m == 0:
        return sup
    key = u * n + v
    counts = bincount(xp, u, minlength=n)
    indptr = xp.zeros(n + 1, dtype=np.int64)
    indptr[1:] = xp.cumsum(counts)
    wedges = counts[u]                                  # per edge a -> b: out-degree of a
    ends = np.asarray(_to_host(xp, xp.cumsum(wedges)))
    lo = 0
    while lo < m:
        base = ends[lo - 1] if lo else 0
        hi = int(np.searchsorted(ends, base + WEDGE_CHUNK, side="right"))
        hi = max(hi, lo + 1)
        e = xp.arange(lo, hi, dtype=np.int64)
        pos = expand_rows(xp, indptr, u[e])             # the out-edges a -> c of each apex
        owner = xp.searchsorted(xp.cumsum(wedges[e]), xp.arange(pos.shape[0]), side="right")
        ab = e[owner]
        b, cc = v[ab], v[pos]
        probe = b * n + cc
        at = xp.minimum(xp.searchsorted(key, probe), m - 1)
        hit = (key[at] == probe) & (b != cc)
        for idx in (ab[hit], pos[hit], at[hit]):         # edges a->b, a->c, b->c
            sup += bincount(xp, idx, minlength=m)
        lo = hi
    return sup


def _to_host(xp, a):
    return a if xp is np else a.get()


def _peel(xp, r, c, n, need):
    """The pairs ``r -> c`` (both directions) of the edges left when every edge in fewer than
    ``need`` triangles is removed, round after round, until none is."""
    deg = bincount(xp, r, minlength=n) if r.shape[0] else xp.zeros(n, dtype=np.int64)
    # orient each undirected edge once, from the lower to the higher (degree, id)
    dr, dc = deg[r], deg[c]
    fwd = (dr < dc) | ((dr == dc) & (r < c))
    u, v = r[fwd], c[fwd]
    order = xp.argsort(u * n + v)
    u, v = u[order], v[order]
    while u.shape[0]:
        keep = _supports(xp, u, v, n) >= need
        if bool(keep.all()):
            break
        u, v = u[keep], v[keep]
    return xp.concatenate([u, v]), xp.concatenate([v, u])
