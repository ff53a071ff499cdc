"""Vectorised building blocks shared by the algorithms of this package (internal).

Every helper takes the array module ``xp`` (NumPy or CuPy) of the graph's side and uses only
operations both modules have, so one code path serves the CPU and the GPU with the same
results.  Nothing here imports cupy at module level.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue
from .._arrayops import bincount


_ATOMIC = ("int32", "uint32", "uint64", "float32")   # dtypes cupyx's scatter ops document


def _scatter(xp, out, index, values, op):
    """``out[index[k]] = op(out[index[k]], values[k])`` in place; ``index`` indexes the first
    axis (``values`` has ``out``'s trailing shape)."""
    if index.shape[0] == 0:
        return out
    if xp is np:
        (np.minimum if op == "min" else np.maximum).at(out, index, values)
        return out
    values = values.astype(out.dtype, copy=False)
    if out.dtype.name in _ATOMIC:
        (xp.minimum if op == "min" else xp.maximum).at(out, index, values)
        return out
    return scatter_sorted(xp, out, index, values, op)


def scatter_sorted(xp, out, index, values, op):
    """:func:`_scatter` without atomics, for any dtype: sort by (target, value) and keep each
    target's best.  ``out`` must be contiguous (it is written through a flat view)."""
    flat = out.reshape(-1)
    inner = int(np.prod(out.shape[1:], dtype=np.int64))
    tgt = (index.astype(np.int64)[:, None] * inner
           + xp.arange(inner, dtype=np.int64)[None, :]).reshape(-1)
    val = values.reshape(-1)
    key = val if op == "min" else -val
    order = xp.lexsort(xp.stack([key, tgt]))
    tgt, val = tgt[order], val[order]
    first = xp.ones(tgt.shape[0], dtype=bool)
    first[1:] = tgt[1:] != tgt[:-1]
    tgt, val = tgt[first], val[first]
    flat[tgt] = (xp.minimum if op == "min" else xp.maximum)(flat[tgt], val)
    return out


def scatter_min(xp, out, index, values):
    """``out[index[k]] = min(out[index[k]], values[k])`` in place (repeats allowed)."""
    return _scatter(xp, out, index, values, "min")


def scatter_max(xp, out, index, values):
    """``out[index[k]] = max(out[index[k]], values[k])`` in place (repeats allowed)."""
    return _scatter(xp, out, index, values, "max")


def segment_sum(xp, index, values, n):
    """Sums of ``values`` grouped by ``index`` into an array of length ``n`` (float64, one
    weighted ``bincount``)."""
    out = xp.zeros(n, dtype=np.float64)
    if index.shape[0] == 0:
        return out
    return out + bincount(xp, index, weights=values.astype(np.float64), minlength=n)[:n]


def stored_edges(G, *, loops=True):
    """``(rows, cols, weights)`` of the stored entries of ``G.A`` (int64, int64, float64; weights
    1.0 on an unweighted graph), optionally without self-loops."""
    xp = G.xp
    A = G.A
    r = A.row_ids().astype(np.int64, copy=False) if A.nnz else xp.zeros(0, dtype=np.int64)
    c = A.indices.astype(np.int64, copy=False)
    w = xp.ones(A.nnz, dtype=np.float64) if A.values is None else A.values.astype(np.float64)
    if not loops:
        keep = r != c
        r, c, w = r[keep], c[keep], w[keep]
    return r, c, w


def min_edges(G, *, loops=True):
    """:func:`stored_edges` with repeated entries merged to their smallest weight (sorted by
    ``(row, col)``)."""
    xp = G.xp
    r, c, w = stored_edges(G, loops=loops)
    if r.shape[0] < 2:
        return r, c, w
    order = xp.lexsort(xp.stack([w, c, r]))
    r, c, w = r[order], c[order], w[order]
    first = xp.ones(r.shape[0], dtype=bool)
    first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    return r[first], c[first], w[first]


def simple_sparse(G, dtype=np.float64):
    """scipy (host) or cupyx (device) CSR pattern of the simple neighbourhood: 1.0 per distinct
    non-loop pair (both directions of an undirected graph).  Cached on the graph."""
    from ._triangles import _cached, simple_pairs

    def make():
        r, c, _ = simple_pairs(G, symmetrize=False)
        return csr_from(G.xp, r, c, G.xp.ones(r.shape[0], dtype=dtype), G.num_vertices)

    return _cached(G, f"hpg.simple_sparse[{np.dtype(dtype).name}]", make)


def csr_from(xp, r, c, v, n, ncols=None):
    """scipy or cupyx CSR matrix ``(v, (r, c))`` of shape ``(n, ncols or n)``; duplicates summed."""
    shape = (n, n if ncols is None else ncols)
    if xp is np:
        import scipy.sparse as sp

        M = sp.csr_matrix((v, (r, c)), shape=shape)
    else:
        import cupyx.scipy.sparse as cs

        M = cs.coo_matrix((v, (r.astype(np.int32), c.astype(np.int32))), shape=shape).tocsr()
    M.sum_duplicates()
    return M


def check_undirected(G, who, hint="symmetrize it: hp.Graph(A + A.T, directed=False), or "
                                  "Graph.from_edges(..., directed=False) (--undirected on the "
                                  "command line)"):
    if G.directed:
        raise InvalidValue(f"{who} needs an undirected graph and G is directed; {hint}")


def check_directed(G, who, alternative):
    if not G.directed:
        raise InvalidValue(f"{who} is defined for directed graphs and G is undirected; use "
                           f"{alternative} (or build G with directed=True)")


def check_nonempty(G, who):
    if G.num_vertices == 0:
        raise InvalidValue(f"{who} is undefined on an empty graph (0 vertices); give a graph with "
                           "at least one vertex")


def check_number(name, value, *, lo=None, hi=None, lo_open=False, integer=False):
    """A finite number (int when ``integer``) within bounds, else InvalidValue naming it."""
    ok = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    # ints are finite at any size (np.isfinite cannot take one beyond 64 bits)
    if isinstance(value, bool) or not isinstance(value, ok) or (
            isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        raise InvalidValue(f"{name} must be {'an int' if integer else 'a finite number'}, got "
                           f"{value!r}")
    if lo is not None and (value <= lo if lo_open else value < lo):
        raise InvalidValue(f"{name} must be {'>' if lo_open else '>='} {lo}, got {value!r}")
    if hi is not None and value > hi:
        raise InvalidValue(f"{name} must be <= {hi}, got {value!r}")
    return value


def expand_rows(xp, indptr, rows, owners=False):
    """Positions ``indptr[v] .. indptr[v+1]-1`` of every ``v`` in ``rows``, concatenated (the
    edges of a frontier in a CSR; int64).  A cumulative sum and a sorted search, no Python loop
    and no ``repeat`` by a device array.  With ``owners=True`` returns ``(positions, owner)``,
    ``owner[e]`` the index in ``rows`` of the row that position ``e`` belongs to."""
    empty = xp.zeros(0, dtype=np.int64)
    if rows.shape[0] == 0:
        return (empty, empty) if owners else empty
    start = indptr[rows].astype(np.int64)
    length = indptr[rows + 1].astype(np.int64) - start
    ends = xp.cumsum(length)
    total = int(ends[-1])
    if total == 0:
        return (empty, empty) if owners else empty
    pos = xp.arange(total, dtype=np.int64)
    owner = xp.searchsorted(ends, pos, side="right")
    pos = start[owner] + pos - (ends[owner] - length[owner])
    return (pos, owner) if owners else pos


def kahn_levels(xp, indptr, succ, waiting, out, visit=None) -> int:
    """Kahn's levels of a DAG given by CSR successor lists ``(indptr, succ)``: ``out[v] = k``
    for the vertices of level ``k`` (level 0: ``waiting[v] == 0``; a vertex joins level
    ``k + 1`` when its last predecessor is on level ``k``); a vertex on or behind a cycle keeps
    its value in ``out``.  ``waiting`` holds each vertex's predecessor count (repeated edges
    counted) and is used up.  Each level gathers its vertices' rows (:func:`expand_rows`) and
    counts their successors with one ``unique``, so every edge is read once, on NumPy or CuPy.
    ``visit(front)``, when given, is called with each level's vertices (after every vertex of
    the earlier levels was visited) instead of writing ``out``.  Returns the number of levels."""
    front = xp.flatnonzero(waiting == 0)
    level = 0
    while front.shape[0]:
        if visit is None:
            out[front] = level
        else:
            visit(front)
        level += 1
        t = succ[expand_rows(xp, indptr, front)]
        if t.shape[0] == 0:
            break
        hit, count = xp.unique(t, return_counts=True)
        waiting[hit] -= count
        front = hit[waiting[hit] == 0]
    return level


def csr_of_pairs(xp, r, c, n):
    """``(indptr int64, cols)`` of the pairs ``r -> c`` grouped by ``r`` (stable)."""
    order = xp.argsort(r, kind="stable") if xp is np else xp.argsort(r)
    counts = bincount(xp, r, minlength=n) if r.shape[0] else xp.zeros(n, dtype=np.int64)
    indptr = xp.zeros(n + 1, dtype=np.int64)
    if n:
        indptr[1:] = xp.cumsum(counts)
    return indptr, c[order]


def pointer_jump(xp, parent):
    """Follow ``parent`` pointers to their roots (pointer doubling; the pointers form a forest
    whose roots point to themselves)."""
    while True:
        gp = parent[parent]
        if bool((gp == parent).all()):
            return parent
        parent = gp
