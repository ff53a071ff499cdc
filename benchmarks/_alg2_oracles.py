"""Independent oracles of ``bench_algorithms2.py`` that scale to R-MAT 21: NumPy / SciPy
reimplementations of what networkx computes too slowly at that size, each checked against
networkx on small graphs (``tests/benchmarks/test_alg2_oracles.py``)."""

from __future__ import annotations

import numpy as np


def binary_simple(A):
    """0/1 float64 CSR of ``A``'s edges without self-loops or repeats; a stored zero weight is
    an edge (networkx's and hpgraph's reading)."""
    import scipy.sparse as sp

    C = A.tocoo()
    keep = C.row != C.col
    B = sp.csr_matrix((np.ones(int(keep.sum())), (C.row[keep], C.col[keep])), shape=A.shape)
    B.sum_duplicates()
    B.data[:] = 1.0
    return B


def lp_fixed_point(G, labels):
    """True when every vertex with neighbours holds one of its most frequent neighbour labels
    (the stopping rule of semi-synchronous label propagation), counted with SciPy on the
    undirected graph's distinct non-loop neighbours."""
    import scipy.sparse as sp

    A = binary_simple(G.to_host().to_scipy()).tocoo()
    lab = np.asarray(labels, dtype=np.int64)
    C = sp.coo_matrix((np.ones(A.nnz, np.int64), (A.row, lab[A.col])), shape=A.shape).tocsr()
    C.sum_duplicates()
    has = np.diff(C.indptr) > 0
    top = np.asarray(C.max(axis=1).todense()).ravel()
    own = np.asarray(C[np.arange(C.shape[0]), lab]).ravel()
    return bool(np.all(own[has] == top[has]))


def random_sample(n, k, seed):
    """networkx's draw of ``k`` sources for ``seed`` on nodes ``0..n-1``."""
    import random

    return random.Random(seed).sample(list(range(n)), k)


def modularity_reference(A, labels):
    """networkx's modularity (resolution 1, weighted) of an undirected graph's partition from
    its stored entries (SciPy CSR ``A``, symmetric): a self-loop counts twice in its vertex's
    degree and once as an inside edge of weight ``w`` against ``m``."""
    C = A.tocoo()
    w = np.where(C.row == C.col, 2.0, 1.0) * C.data.astype(np.float64)
    two_m = w.sum()
    if two_m == 0:
        return 0.0
    lab = np.asarray(labels, dtype=np.int64)
    inside = w[lab[C.row] == lab[C.col]].sum()
    K = np.bincount(lab[C.row], weights=w)
    return float(inside / two_m - ((K / two_m) ** 2).sum())


def eigenvector_reference(A, max_iter, tol=1e-6):
    """networkx's ``eigenvector_centrality`` iteration on SciPy: ``x <- (B^T + I) x`` with ``B``
    the 0/1 adjacency (repeated entries once, self-loops kept), unit L2 norm, stop when the L1
    change is below ``n * tol``; starting from the uniform vector."""
    B = A.tocsr(copy=True).astype(np.float64)
    B.sum_duplicates()
    B.data[:] = 1.0
    BT = B.T.tocsr()
    n = A.shape[0]
    x = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        last = x
        x = BT @ last + last
        x /= np.linalg.norm(x) or 1.0
        if np.abs(x - last).sum() < n * tol:
            return x
    raise RuntimeError("eigenvector_reference: no convergence")


def core_numbers_reference(A):
    """Core numbers by peeling in NumPy (networkx's ``core_number`` semantics: self-loops and
    repeated entries ignored): remove every vertex of degree <= k, update its neighbours'
    degrees, repeat until none is left at k, then raise k to the smallest degree left."""
    C = binary_simple(A)
    n = C.shape[0]
    ptr, ind = C.indptr.astype(np.int64), C.indices.astype(np.int64)
    deg = np.diff(ptr)
    alive = np.ones(n, dtype=bool)
    core = np.zeros(n, dtype=np.int64)
    k = 0
    while alive.any():
        k = max(k, int(deg[alive].min()))
        front = np.flatnonzero(alive & (deg <= k))
        while front.size:
            core[front] = k
            alive[front] = False
            cnt = ptr[front + 1] - ptr[front]
            start = np.repeat(ptr[front] - np.r_[0, np.cumsum(cnt)[:-1]], cnt)
            nb = ind[start + np.arange(cnt.sum())]
            nb = nb[alive[nb]]
            np.subtract.at(deg, nb, 1)
            cand = np.unique(nb)
            front = cand[deg[cand] <= k]
    return core


def simple_weighted(G):
    """SciPy CSR of ``G`` without self-loops, repeated entries merged to their smallest weight
    (the graph weighted betweenness walks)."""
    import scipy.sparse as sp

    A = G.to_host().to_scipy().tocoo()
    keep = A.row != A.col
    r, c, w = A.row[keep].astype(np.int64), A.col[keep].astype(np.int64), A.data[keep]
    key = r * A.shape[0] + c
    o = np.argsort(key, kind="stable") if np.any(np.diff(key) < 0) else None
    if o is not None:
        key, w = key[o], w[o]
    if key.size == 0:
        return sp.csr_matrix(A.shape, dtype=np.float64)
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    wmin = np.minimum.reduceat(w.astype(np.float64), first)
    key = key[first]
    return sp.csr_matrix((wmin, (key // A.shape[0], key % A.shape[0])), shape=A.shape)


def weighted_brandes_reference(W, sources):
    """``(vertex, edge)``: sums over ``sources`` of Brandes' dependencies on the weighted graph
    ``W`` (SciPy CSR, positive weights, no loops or repeats): ``vertex[v]`` and ``edge[i]`` for
    ``W``'s ``i``-th stored entry (u -> v).  Distances are SciPy's Dijkstra; path counts and
    dependencies are accumulated with NumPy over the shortest-path DAG in order of distance
    (every DAG edge goes to a strictly larger distance, weights being positive)."""
    import scipy.sparse.csgraph as csg

    if W.nnz and W.data.min() <= 0:
        raise ValueError("weighted_brandes_reference needs positive weights")
    n = W.shape[0]
    rows = np.repeat(np.arange(n), np.diff(W.indptr))
    cols, w = W.indices.astype(np.int64), W.data
    vertex = np.zeros(n)
    edge = np.zeros(W.nnz)
    for s in sources:
        d = csg.dijkstra(W, directed=True, indices=int(s))
        fin = np.isfinite(d)
        dag = np.flatnonzero(fin[rows] & (d[rows] + w == d[cols]))
        dag = dag[np.argsort(d[cols[dag]], kind="stable")]
        u, v = rows[dag], cols[dag]
        level = d[v]
        cut = np.flatnonzero(np.r_[True, level[1:] != level[:-1], True])
        sigma = np.zeros(n)
        sigma[s] = 1.0
        for a, b in zip(cut[:-1], cut[1:]):       # heads at one distance: tails all final
            np.add.at(sigma, v[a:b], sigma[u[a:b]])
        delta = np.zeros(n)
        for a, b in zip(cut[-2::-1], cut[:0:-1]):  # farthest heads first
            contrib = sigma[u[a:b]] / sigma[v[a:b]] * (1.0 + delta[v[a:b]])
            edge[dag[a:b]] += contrib
            np.add.at(delta, u[a:b], contrib)
        delta[s] = 0.0
        vertex += delta
    return vertex, edge


def ktruss_reference(A, k):
    """Edges (``u < v`` pairs as one int64 key ``u * n + v``, sorted) of the ``k``-truss of the
    undirected graph ``A`` by SuiteSparse:GraphBLAS (python-graphblas): supports as
    ``C<C> = C plus_pair C`` on the 0/1 adjacency without loops or repeats, edges with support
    below ``k - 2`` dropped until none is (Davis' k-truss)."""
    import graphblas as gb
    import scipy.sparse as sp

    B = binary_simple(A)
    if k <= 2:                         # every edge, with or without triangles
        U = sp.triu(B, k=1).tocoo()
        return np.sort(U.row.astype(np.int64) * A.shape[0] + U.col)
    C = gb.io.from_scipy_sparse(B).apply(gb.unary.one).new(dtype=bool)
    while True:
        S = C.mxm(C, gb.semiring.plus_pair[gb.dtypes.INT64]).new(mask=C.S)
        K = S.select(">=", k - 2).new(dtype=bool)
        if K.nvals == C.nvals:
            break
        C = K
    r, c, _ = C.to_coo(values=False)
    keep = r < c
    return np.sort(r[keep].astype(np.int64) * A.shape[0] + c[keep])
