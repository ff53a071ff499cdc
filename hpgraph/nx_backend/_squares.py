"""networkx's ``square_clustering`` and ``edge_boundary`` on the converted adjacency.

Square clustering needs, per node ``v``, the number of common neighbours ``C[v, x]`` with
every other node ``x``: one SciPy sparse product ``C = A A`` of the pattern without
self-loops.  Triangles, squares and the potential squares of networkx's formula are then row
sums over ``C`` (all integers, so the result is exactly networkx's).
"""

from __future__ import annotations

import numpy as np

from ._registry import implements


def _sq_check(b):
    G = b.arguments.get("G")
    if G is not None and G.is_directed():
        return "directed square clustering is not implemented"
    return True


def _square_values(hg):
    """``(squares, potential, degree)`` per vertex, int64."""
    def make():
        import scipy.sparse as sp

        rows, cols = hg.rows(), hg.indices.astype(np.int64)
        keep = rows != cols
        n = hg.n
        A = sp.csr_array((np.ones(int(keep.sum()), dtype=np.int64), (rows[keep], cols[keep])),
                         shape=(n, n))
        A.sum_duplicates()
        A.data[:] = 1
        deg = np.diff(A.indptr).astype(np.int64)
        C = (A @ A).tocsr()
        C.setdiag(0)
        C.eliminate_zeros()
        Cr = np.repeat(np.arange(n), np.diff(C.indptr))
        sq2 = np.bincount(Cr, weights=C.data * (C.data - 1), minlength=n).astype(np.int64)
        squares = sq2 // 2
        tri = np.asarray((A.multiply(C)).sum(axis=1)).ravel().astype(np.int64)
        uw = (A @ deg) * (deg - 1)
        potential = uw - deg * (deg - 1) - tri - squares
        return squares, potential, deg
    return hg.cached("square_values", make)


@implements("square_clustering", check=_sq_check)
def square_clustering(G, nodes=None):
    """Squares through each node over the squares that could close (dict, or one value)."""
    from ._registry import _nbunch

    squares, potential, deg = _square_values(G)
    ids = range(G.n) if nodes is None else [G.index[v] for v in _nbunch(G, nodes)] \
        if nodes not in G else [G.index[nodes]]
    out = {}
    labels = G.nodes
    for i in ids:
        if deg[i] - 1 <= 0 or potential[i] <= 0:
            out[labels[i]] = 0
        else:
            out[labels[i]] = int(squares[i]) / int(potential[i])
    if nodes is not None and nodes in G:
        return out[nodes]
    return out


def _eb_check(b):
    if b.arguments.get("data", False) is not False:
        return "edge data is not returned by hpgraph (data must be False)"
    return True


@implements("edge_boundary", check=_eb_check)
def edge_boundary(G, nbunch1, nbunch2=None, data=False, keys=False, default=None):
    """Edges with one end in ``nbunch1`` (and the other in ``nbunch2``, else outside): a
    generator in networkx's ``G.edges(nbunch1)`` order."""
    nset1 = {v for v in nbunch1 if v in G}
    in1 = np.zeros(G.n, dtype=bool)
    order = [G.index[v] for v in nset1]  # the set's iteration order, as networkx's
    in1[order] = True
    if nbunch2 is None:
        in2 = ~in1
    else:
        in2 = np.zeros(G.n, dtype=bool)
        in2[[G.index[v] for v in set(nbunch2) if v in G]] = True
    labels = G.nodes
    indptr, indices = G.indptr, G.indices
    out = []
    seen = np.zeros(G.n, dtype=bool)
    directed = G.is_directed()
    for u in order:
        nb = indices[indptr[u]:indptr[u + 1]]
        if not directed:
            nb = nb[~seen[nb]]  # an undirected edge between two nodes of nbunch1 once
        if nbunch2 is None:
            ok = in1[u] ^ in1[nb]
        else:
            ok = (in1[u] & in2[nb]) | (in1[nb] & in2[u])
        lu = labels[u]
        if G.edge_keys is None:
            out.extend((lu, labels[v]) for v in nb[ok].tolist())
        else:  # a multigraph: each parallel edge (with its key when ``keys``)
            ent = np.arange(indptr[u], indptr[u + 1])
            if not directed:
                ent = ent[~seen[indices[ent]]]
            for e, v in zip(ent[ok].tolist(), nb[ok].tolist()):
                for k in G.edge_keys[e]:
                    out.append((lu, labels[v], k) if keys else (lu, labels[v]))
        seen[u] = True
    return iter(out)
