"""networkx's structural holes (Burt's constraint and effective size) as sparse matrix algebra.

With ``P`` the weighted adjacency and ``M = P + P^T`` the mutual weights, the normalised mutual
weights are ``N = M / rowsum(M)`` (and ``M / rowmax(M)`` for the ``max`` norm); local
constraint is ``(N + N @ N)^2`` and redundancy ``1 - N @ Nmax^T``.  Both are SciPy sparse
products over the converted CSR.  As networkx does, the whole-graph call (``nodes=None``) sums
over the positive entries of ``N``, and a call with ``nodes`` sums over each node's
neighbours (``set(nx.all_neighbors(G, v))``) with networkx's ego-graph formula for the
undirected unweighted effective size.
"""

from __future__ import annotations

import numpy as np

from ._registry import _weight_is_name, implements


def _P(hg, weight):
    from ._matrix import to_scipy_sparse_array

    return hg.cached(("structural_P", weight),
                     lambda: to_scipy_sparse_array(hg, weight=weight, dtype=float))


def _M(hg, weight):
    """Mutual weights ``P + P^T`` (CSR, float64)."""
    def make():
        P = _P(hg, weight)
        return (P + P.T).tocsr()
    return hg.cached(("structural_M", weight), make)


def _N(hg, weight, norm="sum"):
    """Mutual weights divided by their row sum (or row max), dense rows of zeros kept."""
    def make():
        M = _M(hg, weight)
        if norm == "sum":
            scale = np.asarray(M.sum(axis=1)).ravel()
        else:
            scale = M.max(axis=1).toarray().ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = np.where(scale != 0, 1.0 / np.where(scale != 0, scale, 1), 0.0)
        N = M.multiply(inv[:, None]).tocsr()
        return N
    return hg.cached(("structural_N", weight, norm), make)


def _neighbours(hg, v):
    """``set(nx.all_neighbors(G, v))`` as vertex ids (successors and predecessors)."""
    M = _M(hg, None)
    lo, hi = M.indptr[v], M.indptr[v + 1]
    return np.unique(M.indices[lo:hi]).astype(np.int64)


def _norm_check(b):
    norm = b.arguments.get("norm", sum)
    if norm is not sum and norm is not max:
        return "norm must be sum or max"
    return _weight_is_name(b)


def _entry(A, u, v):
    return float(A[u, v])


def _mutual(hg, u, v, weight):
    """``mutual_weight`` for vertex ids: ``a_uv + a_vu`` (ints stay ints)."""
    val = _entry(_M(hg, weight), u, v)
    if weight is None or hg.weights_integral(weight):
        return int(round(val))
    return val


@implements("mutual_weight", check=_weight_is_name)
def mutual_weight(G, u, v, weight=None):
    """Weight of ``(u, v)`` plus weight of ``(v, u)`` (0 where an edge is missing)."""
    if u not in G or v not in G:
        return 0
    return _mutual(G, G.index[u], G.index[v], weight)


@implements("normalized_mutual_weight", check=_norm_check)
def normalized_mutual_weight(G, u, v, norm=sum, weight=None):
    """``mutual_weight(u, v)`` over the sum (or max) of ``u``'s mutual weights."""
    iu = G.index[u]
    nbrs = _neighbours(G, iu)
    if nbrs.shape[0] == 0 and norm is max:
        raise ValueError("max() iterable argument is empty")
    M = _M(G, weight)
    vals = [float(M[iu, w]) for w in nbrs.tolist()]
    scale = norm(vals) if vals else 0
    if scale == 0:
        return 0
    mv = _mutual(G, iu, G.index[v], weight) if v in G else 0
    return mv / scale


@implements("local_constraint", check=_weight_is_name)
def local_constraint(G, u, v, weight=None):
    """``(N[u, v] + (N @ N)[u, v]) ** 2`` (Burt's local constraint of ``u`` on ``v``)."""
    iu, iv = G.index[u], G.index[v]
    N = _N(G, weight)
    nbrs = _neighbours(G, iu)
    direct = float(N[iu, iv])
    row = N[[iu]].toarray().ravel()
    col = N[:, [iv]].toarray().ravel()
    indirect = float(np.sum(row[nbrs] * col[nbrs])) if nbrs.shape[0] else 0
    return (direct + indirect) ** 2


def _node_ids(G, nodes):
    return [G.index[v] for v in nodes]


@implements("constraint", check=_weight_is_name)
def constraint(G, nodes=None, weight=None):
    """Burt's constraint of each node (nan for a node without neighbours)."""
    N = _N(G, weight)
    L = (N + N @ N).power(2).tocsr()
    if nodes is None:
        M = _M(G, weight)
        c = np.asarray(L.multiply(N > 0).sum(axis=1)).ravel()
        s = np.asarray(M.sum(axis=1)).ravel()
        isolated = s - 2 * N.diagonal() == 0  # networkx's test, on the normalised diagonal
        c[isolated] = float("nan")
        return dict(zip(G.nodes, c.tolist()))
    out = {}
    for v in nodes:
        i = G.index[v]
        if G.indptr[i + 1] == G.indptr[i]:
            out[v] = float("nan")
            continue
        nbrs = _neighbours(G, i)
        row = L[[i]].toarray().ravel()
        out[v] = sum(row[nbrs].tolist())
    return out


@implements("effective_size", check=_weight_is_name)
def effective_size(G, nodes=None, weight=None):
    """Burt's effective size of each node's ego network (nan for a node without others)."""
    if nodes is None:
        N = _N(G, weight)
        Nmax = _N(G, weight, "max")
        # networkx divides its copy by ``max(axis=1)`` broadcast along the columns, i.e. by
        # the column's row maximum: on the symmetric M that is ``Nmax^T``, hence ``N @ Nmax``
        r = 1 - (N @ Nmax).toarray()
        es = ((N > 0).toarray() * r).sum(axis=1)
        s = np.asarray(N.sum(axis=1)).ravel() - N.diagonal()
        es[s == 0] = float("nan")
        return dict(zip(G.nodes, es.tolist()))
    out = {}
    rows, cols = G.rows(), G.indices
    lonely = np.bincount(rows[rows != cols], minlength=G.n) == 0  # only self-loops, or none
    if not G.is_directed() and weight is None:
        loops = G.self_loops()
        for v in nodes:
            i = G.index[v]
            if lonely[i]:
                out[v] = float("nan")
                continue
            nb = _neighbours(G, i)
            nb = nb[nb != i]
            inside = np.zeros(G.n, dtype=bool)
            inside[nb] = True
            k = int(nb.shape[0])
            # edges of the ego graph without its centre: pairs inside (each twice) + loops
            lo, hi = G.indptr[nb], G.indptr[nb + 1]
            cnt = sum(int(np.count_nonzero(inside[cols[a:b]] & (cols[a:b] != w)))
                      for a, b, w in zip(lo.tolist(), hi.tolist(), nb.tolist()))
            size = cnt // 2 + int(loops[nb].sum())
            out[v] = k - (2 * size) / k
        return out
    N = _N(G, weight)
    Nmax = _N(G, weight, "max")
    for v in nodes:
        i = G.index[v]
        lo, hi = G.indptr[i], G.indptr[i + 1]
        if np.all(cols[lo:hi] == i):
            out[v] = float("nan")
            continue
        nbrs = _neighbours(G, i)
        row = N[[i]].toarray().ravel()[nbrs]
        red = (Nmax[nbrs][:, nbrs].toarray() @ row) if nbrs.shape[0] else np.zeros(0)
        out[v] = sum((1 - red).tolist())
    return out
