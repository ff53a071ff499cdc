"""Triangle counting: total (:func:`triangle_count`) and per vertex (:func:`triangles`).

The method of the HPGraph paper (section 4.4) and Gunrock (section 6.6):

1. Make the graph simple (self-loops and repeated entries dropped) and orient every edge from
   the lower to the higher ``(degree, id)`` endpoint.  The result is a DAG whose out-degrees
   are at most ``sqrt(2m)``, and every triangle ``{u, v, w}`` appears exactly once as
   ``u -> v``, ``u -> w``, ``v -> w``.
2. For every oriented edge ``(u, v)``, ``|N+(u) & N+(v)|`` is the number of triangles it
   closes; the total is their sum.

GPU, two methods (``hp.config["triangle_kernel"]``; "auto", the default, takes "hash" for graphs
with many wedges per edge and "merge" for the others: :func:`method`): "hash"
(:mod:`hpgraph.algorithms._tc_hash`) re-sorts every out-list by rank and, a warp or a block per
vertex ``v``, puts ``N+(v)`` in a shared-memory hash table and looks up the part of ``N+(u)``
ranked above ``v`` for every in-edge ``u -> v``; "merge" (:mod:`hpgraph.algorithms._kernels`)
intersects the two sorted out-lists of every oriented edge, one thread per edge (merge, or
binary search of the shorter list in the longer when their lengths differ a lot), edges whose
lists are long together going to a warp-per-edge kernel.  Both count in 64 bits with one atomic
per block or warp (a per-edge intersection of two rows is not a semiring SpMV).
CPU: the masked sparse product ``(L @ L) * L`` with SciPy on the
oriented matrix ``L`` (no Python loop over vertices); per-vertex counts from its row sums (the
triangle's lowest vertex), column sums (highest) and the row sums of ``(L^T @ L) * L``
(middle).

The oriented structure and each method's preprocessing (:func:`preprocess`) are cached on the
graph, so a second call only counts.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue
from ._common import finish, prepare, vertex_id_dtype
from .._arrayops import bincount

__all__ = ["triangle_count", "triangles"]


# ---------------------------------------------------------------------------------------------
# simple structure (shared by k_core and label_propagation)


def _cached(G, name, make):
    """``G``'s named cache when it has one (per side), else compute."""
    cache = getattr(G, "_cached", None)
    return cache(name, make) if cache is not None else make()


def _row_ids(A, xp):
    if A.nnz == 0:
        return xp.zeros(0, dtype=np.int64)
    return A.row_ids().astype(np.int64, copy=False)


def simple_pairs(G, *, symmetrize: bool):
    """Sorted ``(rows, cols, counts)`` of the graph's distinct non-loop entries (internal).

    ``symmetrize=False`` (undirected graphs): the stored entries of ``A`` (both directions of
    every edge), self-loops and repeated entries dropped, ``counts`` None.  ``symmetrize=True``
    (directed graphs): the pairs of ``A + A^T`` with the multiplicity of each (1, or 2 for a
    mutual pair ``u -> v``, ``v -> u``) in ``counts`` (int32): the neighbourhood networkx uses for
    directed ``core_number`` (predecessors and successors).  Arrays are int64, on ``G``'s side.
    """
    A = G.A
    xp = G.xp
    n = G.num_vertices
    r = _row_ids(A, xp)
    c = A.indices.astype(np.int64, copy=False)
    keep = r != c
    if r.shape[0] > 1:
        # CSR rows are sorted by column with duplicates kept: repeats are adjacent
        dup = (r[1:] == r[:-1]) & (c[1:] == c[:-1])
        keep[1:] &= ~dup
    r, c = r[keep], c[keep]
    if not symmetrize:
        return r, c, None
    key = xp.concatenate([r * n + c, c * n + r])
    if key.shape[0] == 0:
        e = xp.zeros(0, dtype=np.int64)
        return e, e, xp.zeros(0, dtype=np.int32)
    key, counts = xp.unique(key, return_counts=True)
    return key // n, key % n, counts.astype(np.int32)


def simple_matrix(G):
    """CSR (formats.CSR, on ``G``'s side) of the simple symmetric neighbourhood (internal).

    Undirected: pattern-only, no self-loops or repeats.  Directed: ``A + A^T`` without
    self-loops, values = multiplicity (int32, 1 or 2).  Cached on the graph.
    """
    def make():
        from ..formats import CSR

        xp = G.xp
        n = G.num_vertices
        r, c, cnt = simple_pairs(G, symmetrize=G.directed)
        idt = vertex_id_dtype(max(n, r.shape[0]))
        counts = bincount(xp, r, minlength=n) if r.shape[0] else xp.zeros(n, dtype=np.int64)
        indptr = xp.zeros(n + 1, dtype=idt)
        if n:
            indptr[1:] = xp.cumsum(counts)
        return CSR(indptr, c.astype(idt), cnt, shape=(n, n))

    return _cached(G, "hpg.simple_matrix", make)


def _oriented(G):
    """``(indptr int64, indices, erow)`` of the degree-oriented DAG, on ``G``'s side (cached)."""
    def make():
        xp = G.xp
        n = G.num_vertices
        r, c, _ = simple_pairs(G, symmetrize=False)
        deg = bincount(xp, r, minlength=n) if r.shape[0] else xp.zeros(n, dtype=np.int64)
        dr, dc = deg[r], deg[c]
        keep = (dr < dc) | ((dr == dc) & (r < c))
        r, c = r[keep], c[keep]
        idt = vertex_id_dtype(n)
        counts = bincount(xp, r, minlength=n) if r.shape[0] else xp.zeros(n, dtype=np.int64)
        indptr = xp.zeros(n + 1, dtype=np.int64)
        if n:
            indptr[1:] = xp.cumsum(counts)
        return indptr, c.astype(idt), r.astype(idt)

    return _cached(G, "hpg.tc_oriented", make)


def _config():
    from .._config import config

    return config


def method(G) -> str:
    """The GPU kernel that counts ``G``'s triangles: ``hp.config["triangle_kernel"]``, or for
    ``"auto"`` ``"hash"`` when the degree-oriented graph has at least
    ``hp.config["triangle_auto_wedges"]`` wedges (pairs of out-neighbours) per edge and
    ``"merge"`` when it has fewer: the hash kernels pay per vertex (a table and a prefix sum a
    task), which sparse, low-degree graphs (roads, grids, meshes) do not earn back.  ``"auto"``
    also takes ``"merge"`` for out-lists beyond the hash kernels' 32-bit offsets."""
    kernel = _config()["triangle_kernel"]
    if kernel != "auto":
        return kernel
    indptr = _oriented(G)[0]

    def shape():
        d = G.xp.diff(indptr)
        if d.shape[0] == 0:
            return 0, 0, 0
        return int((d * (d - 1) // 2).sum()), int(indptr[-1]), int(d.max())

    wedges, m, longest = _cached(G, "hpg.tc_wedges", shape)
    from . import _tc_hash

    if not m or _tc_hash.TCH_BLOCK * (longest + _tc_hash.TCH_ITEMS) >= 2**31:
        return "merge"
    return "hash" if wedges >= _config()["triangle_auto_wedges"] * m else "merge"


def preprocess(G):
    """Build (or fetch from ``G``'s cache) everything a GPU count of ``G`` reads besides the
    oriented CSR, for the kernel :func:`method` selects: the hash kernels'
    :class:`~._tc_hash.Structure`, or the merge kernel's heavy-edge ids.  Benchmarks time it
    apart from the count (with :func:`forget_preprocessing` before)."""
    return _prepare(G, method(G))


def _prepare(G, kernel):
    """:func:`preprocess` for ``kernel`` (``"hash"`` or ``"merge"``)."""
    indptr, indices, erow = _oriented(G)
    if kernel == "hash":
        from . import _tc_hash

        cfg = _config()
        key = (f"hpg.tc_hash[{_tc_hash.TCH_WARP_CAP},{_tc_hash.TCH_CHEAP},"
               f"{cfg['triangle_hash_block_work']},"
               f"{cfg['triangle_hash_edge_cost']},{cfg['triangle_hash_split']}]")
        return _cached(G, key, lambda: _tc_hash.structure(
            indptr, indices, erow, G.num_vertices))
    from . import _kernels

    thr = _config()["triangle_merge_heavy"]
    return _cached(G, f"hpg.tc_heavy[{thr}]",
                   lambda: _kernels.heavy_edges(indptr, indices, erow, thr))


def forget_preprocessing(G):
    """Drop the triangle counts' cached structures from ``G`` (the next call rebuilds them)."""
    cache = getattr(G, "_cache", None)
    if cache is not None:
        for key in [k for k in cache if str(k[0]).startswith("hpg.tc_")]:
            del cache[key]


def _check_undirected(G, who):
    if G.directed:
        raise InvalidValue(
            f"{who} counts triangles of an undirected graph, and this graph is directed; build it "
            "undirected (Graph.from_edges(..., directed=False), which stores both directions) or "
            "symmetrize it (hp.Graph(A + A.T, directed=False), e.g. from G.to_scipy()); networkx's "
            "triangles() refuses directed graphs too")


# ---------------------------------------------------------------------------------------------
# counting


def _count(G, side, per_vertex):
    n = G.num_vertices
    indptr, indices, erow = _oriented(G)
    if side == "gpu":
        from .. import backend as _backend

        with _backend.out_of_memory_guard(f"counting triangles on {n:,} vertices"):
            kernel = method(G)
            prep = _prepare(G, kernel)
            if kernel == "hash":
                from . import _tc_hash

                return _tc_hash.tc_hash_count(indptr, erow, prep, n, per_vertex)
            from . import _kernels

            return _kernels.tc_count(indptr, indices, erow, n, per_vertex, heavy=prep,
                                     threshold=_config()["triangle_merge_heavy"])
    import scipy.sparse as sp

    L = sp.csr_array((np.ones(indices.shape[0], dtype=np.int64), indices, indptr), shape=(n, n))
    C = (L @ L).multiply(L)
    total = int(C.sum())
    if not per_vertex:
        return total, None
    mid = (L.T @ L).multiply(L)
    t = (np.asarray(C.sum(axis=1)).reshape(-1) + np.asarray(C.sum(axis=0)).reshape(-1)
         + np.asarray(mid.sum(axis=1)).reshape(-1))
    return total, t.astype(np.int64)


def triangle_count(G, *, backend=None) -> int:
    """Number of triangles of an undirected graph.

    Self-loops and repeated entries are ignored (the graph is counted as simple).

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
    backend : {"auto", "cpu", "gpu", None}

    Returns
    -------
    int
        A Python int (64-bit counts; R-MAT scale 21 has 949,661,293 triangles).

    Raises
    ------
    InvalidValue
        ``G`` is directed (symmetrize it first, see the message).

    Examples
    --------
    >>> import hpgraph as hp
    >>> hp.triangle_count(hp.generators.complete(4, backend="cpu"), backend="cpu")
    4
    """
    G, side, _ = prepare(G, backend)
    _check_undirected(G, "triangle_count")
    if G.num_vertices == 0:
        return 0
    total, _ = _count(G, side, per_vertex=False)
    return int(total)


def triangles(G, *, backend=None, to=None):
    """Triangles through each vertex of an undirected graph, like ``networkx.triangles``.

    Self-loops and repeated entries are ignored.  ``triangles(G).sum() == 3 *
    triangle_count(G)``.

    Parameters
    ----------
    G : Graph (undirected), scipy/cupyx sparse matrix or networkx graph
    backend : {"auto", "cpu", "gpu", None}
    to : {None, "numpy", "cupy"}
        Where the result goes (default: the input's side).

    Returns
    -------
    array of int64, length n

    Raises
    ------
    InvalidValue
        ``G`` is directed.
    """
    G, side, on_dev = prepare(G, backend)
    _check_undirected(G, "triangles")
    n = G.num_vertices
    if n == 0:
        return finish(G.xp.zeros(0, dtype=np.int64), on_dev, to)
    _, t = _count(G, side, per_vertex=True)
    return finish(t, on_dev, to)
