"""``hpgraph run --validate``: each result compared with an independent SciPy / networkx
reference."""

from __future__ import annotations

from ._algorithms import ALGORITHMS


def validate_result(name, G, source, out, *, samples=None, seed=42, params=None):
    """Compare with a SciPy / networkx reference: ``(ok, message)``; ok None = not checked."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse import csgraph as cg

    alg = ALGORITHMS[name]
    if not alg.reference:
        return None, "skipped: no reference implementation to compare with"
    A = G.to_scipy()
    if name == "bfs":
        ref = cg.shortest_path(A, method="D", unweighted=True, indices=source,
                               directed=G.directed)
        depth = out["depth"].astype(np.float64)
        got = np.where(depth < 0, np.inf, depth)
        if not np.array_equal(ref, got):
            bad = int(np.flatnonzero(ref != got)[0])
            return False, f"depth of vertex {bad}: {got[bad]:g}, {alg.reference} says {ref[bad]:g}"
        reached = np.flatnonzero(depth > 0)
        p = out["parent"][reached].astype(np.int64)
        if reached.size and (np.any(depth[p] != depth[reached] - 1)
                             or not _has_entries(A, p, reached).all()):
            return False, "a BFS parent is not an in-neighbour one level up"
        return True, f"depths equal to {alg.reference}; parents valid"
    if name == "sssp":
        W = A if G.weighted else sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        neg = W.nnz and W.data.min() < 0
        f = cg.bellman_ford if neg else cg.dijkstra
        ref = f(W, directed=G.directed, indices=source)
        got = out["distance"].astype(np.float64)
        rtol = 1e-5 if out["distance"].dtype == np.float32 else 1e-9
        same = (np.isinf(ref) == np.isinf(got)) & \
            np.isclose(np.where(np.isinf(ref), 0, ref), np.where(np.isinf(got), 0, got), rtol=rtol)
        if not same.all():
            bad = int(np.flatnonzero(~same)[0])
            return False, f"distance of vertex {bad}: {got[bad]:g}, scipy says {ref[bad]:g}"
        return True, f"distances equal to scipy.sparse.csgraph.{f.__name__} (rtol {rtol:g})"
    if name == "cc":
        k, labels = cg.connected_components(A, directed=G.directed, connection="weak")
        if k != out["components"] or not np.array_equal(labels, out["labels"]):
            return False, f"{out['components']} components, scipy says {k}"
        return True, f"labels equal to {alg.reference}"
    if name == "tc":
        S = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        S = ((S + S.T) > 0).astype(np.int64)
        S.setdiag(0)
        S.eliminate_zeros()
        ref = int((S @ S).multiply(S).sum()) // 6
        if ref != out["triangles"]:
            return False, f"{out['triangles']:,} triangles, SciPy says {ref:,}"
        return True, f"count equal to {alg.reference}"
    if name == "pagerank":
        # hp.pagerank stops at an L1 change below tol, so it lies within damping / (1 -
        # damping) * tol (L1) of the fixed point; the reference iterates to 1e-13
        tol = float((params or {}).get("tol", 1e-6))
        ref = _pagerank_reference(A, tol=1e-13, max_iter=10_000)
        err = float(np.abs(ref - out["rank"]).sum()) if ref.size else 0.0
        bound = 0.85 / 0.15 * tol * 1.001 + 1e-12
        return err <= bound, (f"L1 difference {err:.2e} (bound {bound:.2e}) vs "
                              f"{alg.reference}")
    import networkx as nx

    H = G.to_networkx()
    if name == "hits":
        hubs, auth = nx.hits(H)
        ref = np.array([auth[v] for v in H])
        err = float(np.abs(ref - out["authorities"]).max()) if ref.size else 0.0
        return err < 1e-6, f"max |difference| {err:.2e} vs networkx.hits"
    if name == "kcore":
        H.remove_edges_from(list(nx.selfloop_edges(H)))
        core = nx.core_number(H)
        ref = np.array([core[v] for v in H])
        ok = np.array_equal(ref, out["core"])
        return ok, "core numbers equal to networkx.core_number" if ok else \
            f"core numbers differ from networkx at {int(np.flatnonzero(ref != out['core'])[0])}"
    bc = nx.betweenness_centrality(H, k=samples, seed=seed)
    ref = np.array([bc[v] for v in H])
    err = float(np.abs(ref - out["centrality"]).max()) if ref.size else 0.0
    return err < 1e-9, f"max |difference| {err:.2e} vs networkx.betweenness_centrality"


def _has_entries(A, rows, cols):
    """Bool per (row, col): ``A`` stores an entry there (explicit zeros included)."""
    import numpy as np

    A = A.tocsr()
    A.sort_indices()
    n = A.shape[1]
    keys = np.repeat(np.arange(A.shape[0], dtype=np.int64), np.diff(A.indptr)) * n + A.indices
    want = rows.astype(np.int64) * n + cols
    pos = np.searchsorted(keys, want)
    pos = np.minimum(pos, max(keys.shape[0] - 1, 0))
    return (keys.shape[0] > 0) & (keys[pos] == want)


def _pagerank_reference(A, alpha=0.85, tol=1e-6, max_iter=100):
    """networkx's ``_pagerank_scipy`` iteration on a SciPy matrix (edge values as weights
    are ignored: hpgraph's default is unweighted), stopping at an L1 change below ``tol``."""
    import numpy as np
    import scipy.sparse as sp

    n = A.shape[0]
    if n == 0:
        return np.zeros(0)
    M = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    S = np.asarray(M.sum(axis=1)).ravel()
    inv = np.zeros(n)
    inv[S != 0] = 1.0 / S[S != 0]
    M = sp.diags_array(inv) @ M
    x = np.full(n, 1.0 / n)
    p = np.full(n, 1.0 / n)
    dangling = np.flatnonzero(S == 0)
    for _ in range(max_iter):
        xlast = x
        x = alpha * (x @ M + x[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - xlast).sum() < tol:
            return x
    return x
