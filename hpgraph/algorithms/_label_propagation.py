"""Community detection by label propagation (deterministic rules, vectorised on both sides).

Every vertex starts with its own id as label; a vertex's *neighbour labels* are the labels of
its neighbours (undirected: the simple graph, self-loops and repeats ignored; directed: its
predecessors and successors, a mutual pair counting twice, as in LDBC Graphalytics' CDLP).
An *update* gives the vertex the most frequent neighbour label; a vertex without neighbours
keeps its label.  Two schedules:

``mode="semi-synchronous"`` (default; Cordasco and Gargano, 2010, the schedule of
``networkx.label_propagation_communities``)
    The vertices are coloured so that neighbours differ in colour; an iteration updates the
    colour classes one after the other, each class all at once (its vertices are not
    adjacent, so this equals updating them one by one).  Tie rule "Prec-Min": a vertex keeps
    its label when that label is among the most frequent, else takes the smallest of them.
    The run stops when an iteration changes no label -- then every vertex's label is among
    its most frequent neighbour labels (networkx's stopping rule) -- or after ``max_iter``
    iterations.  The colouring is greedy, largest first (Welsh-Powell; networkx's default
    ``largest_first`` strategy up to ties): vertices in order of decreasing degree, ties by a
    bijective 64-bit hash of the vertex id and ``seed``, each takes the smallest colour none
    of its neighbours earlier in the order has, so the run is deterministic.  networkx breaks
    ties by node order and updates ties to the largest label, so communities may differ from
    networkx's on ambiguous graphs.
``mode="synchronous"``
    LDBC Graphalytics CDLP: every vertex updates at once from the previous labels, ties to the
    smallest label; stops when no label changes or after ``max_iter`` iterations.
    Synchronous updates can oscillate (on bipartite parts: a star swaps its centre's and
    leaves' labels forever), which is why the default is semi-synchronous; a run that enters
    a two-state cycle stops there with the labels that ``max_iter`` iterations would reach.

Labels are vertex ids, so the label of a vertex is the id of a vertex in its (weakly)
connected component.  The mode of a multiset is not a monoid, so the update is not an SpMV:
it sorts ``(vertex, neighbour label)`` keys and counts runs (the sort-based CDLP of LAGraph),
vectorised with NumPy or CuPy; the colouring runs in Kahn's rounds of the order's DAG, each
edge read once (see ``_colouring``).
"""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from ..exceptions import InvalidValue
from ._common import finish, prepare, vertex_id_dtype
from ._triangles import simple_matrix
from ._vec import scatter_max, scatter_min
from .._arrayops import bincount

__all__ = ["label_propagation", "MODES", "priorities", "colouring_rank"]

MODES = ("semi-synchronous", "synchronous")

_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_MASK = (1 << 64) - 1


def priorities(n: int, seed, xp=np):
    """Distinct int64 priorities of vertices ``0..n-1`` (splitmix64 of ``v + golden*(seed+1)``).

    Every step is a bijection of 64-bit words, so the priorities are distinct.
    """
    s = 0 if seed is None else int(seed)
    off = np.uint64((_GOLDEN * (s + 1)) & _MASK)
    z = xp.arange(n, dtype=np.uint64) + off
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    z = z ^ (z >> np.uint64(31))
    return z.view(np.int64)


def _update(xp, n, rows, cols, labels, prec):
    """New labels of the vertices in ``rows`` (edge list ``rows[e] -> cols[e]``).

    Returns ``(vertices, labels)`` for the vertices with at least one neighbour.
    """
    if rows.shape[0] == 0:
        e = xp.zeros(0, dtype=np.int64)
        return e, labels[:0]
    key = rows * n + labels[cols].astype(np.int64)
    uk, cnt = xp.unique(key, return_counts=True)           # sorted by (vertex, label)
    vk = uk // n
    lk = (uk % n).astype(labels.dtype)
    maxc = xp.zeros(n, dtype=cnt.dtype)
    scatter_max(xp, maxc, vk, cnt)
    is_max = cnt == maxc[vk]
    big = np.iinfo(labels.dtype).max
    best = xp.full(n, big, dtype=labels.dtype)
    scatter_min(xp, best, vk[is_max], lk[is_max])
    if prec:
        own = is_max & (lk == labels[vk])
        keep = vk[own]
        best[keep] = labels[keep]
    verts = vk[xp.concatenate([xp.ones(1, dtype=bool), vk[1:] != vk[:-1]])]
    return verts, best[verts]


def colouring_rank(xp, deg, seed):
    """Every vertex's position in the colouring's order (int64, a permutation of ``0..n-1``;
    higher first): by degree ``deg`` (its number of neighbour pairs), ties by
    :func:`priorities`."""
    n = deg.shape[0]
    rank = xp.empty(n, dtype=np.int64)
    rank[xp.lexsort(xp.stack([priorities(n, seed, xp), deg.astype(np.int64)]))] = \
        xp.arange(n, dtype=np.int64)
    return rank


def _colouring(G, seed, r, c):
    """Colour of every vertex (int64) and the number of colours: greedy, largest first.

    ``r -> c`` lists every neighbour pair in both directions (a vertex's degree is its number
    of pairs).  Vertices are ranked by degree, ties by :func:`priorities`; in rank order
    (highest first) each takes the smallest colour that none of its higher-ranked neighbours
    has -- Welsh and Powell's sequential greedy colouring.  It is computed in Kahn's rounds of
    the DAG that orients every pair from the higher to the lower rank (:func:`._vec.kahn_levels`):
    a vertex is coloured in the round after its last higher neighbour, so a round colours
    non-adjacent vertices from colours fixed earlier, exactly as the sequential order would.
    On R-MAT 21 that is 229 colours where Jones-Plassmann's (the round number as the colour)
    gives 2,163, and a semi-synchronous iteration costs per colour class.
    """
    from ._vec import csr_of_pairs, expand_rows, kahn_levels

    xp = G.xp
    n = G.num_vertices
    deg = bincount(xp, r, minlength=n) if r.shape[0] else xp.zeros(n, dtype=np.int64)
    rank = colouring_rank(xp, deg, seed)
    down = rank[r] > rank[c]
    hi, lo = r[down], c[down]
    indptr, succ = csr_of_pairs(xp, hi, lo, n)
    up_ptr, up = csr_of_pairs(xp, lo, hi, n)        # every vertex's higher-ranked neighbours
    waiting = bincount(xp, lo, minlength=n)
    colour = xp.full(n, -1, dtype=np.int64)
    width = n + 1                                  # colours are < n

    def visit(front):
        # the smallest colour missing from the (coloured) higher neighbours': the sorted
        # distinct colours of a vertex start 0, 1, 2, ... up to its first gap, so it is the
        # number of them equal to their position in the vertex's run
        pos, owner = expand_rows(xp, up_ptr, front, owners=True)
        free = xp.zeros(front.shape[0], dtype=np.int64)
        if pos.shape[0]:
            key = xp.unique(owner * width + colour[up[pos]])
            who, col = key // width, key % width
            first = xp.concatenate([xp.ones(1, dtype=bool), who[1:] != who[:-1]])
            starts = xp.flatnonzero(first)
            at = xp.arange(key.shape[0], dtype=np.int64) - starts[xp.cumsum(first) - 1]
            free = bincount(xp, who[col == at], minlength=front.shape[0])
        colour[front] = free

    kahn_levels(xp, indptr, succ, waiting, None, visit)
    return colour, (int(colour.max()) + 1 if n else 0)


def label_propagation(G, max_iter=100, seed=None, *, mode="semi-synchronous", backend=None,
                      to=None):
    """Community label of every vertex by label propagation.

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Undirected or directed (see the module docstring).  Weights are ignored.
    max_iter : int, default 100
        Iterations at most (one iteration updates every vertex once).  The labels reached are
        returned even when they still change (no error: label propagation is a heuristic).
    seed : int, optional
        Changes the colouring's order among vertices of equal degree
        (``mode="semi-synchronous"``); the result is a deterministic function of the graph
        and ``seed``.  Ignored by the synchronous mode.
    mode : {"semi-synchronous", "synchronous"}
        See the module docstring.
    backend : {"auto", "cpu", "gpu", None}
    to : {None, "numpy", "cupy"}
        Where the result goes (default: the input's side).

    Returns
    -------
    array of int32 (int64 beyond 2**31 - 1 vertices), length n
        ``labels[v]`` is a vertex id; vertices with the same label form a community.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> src, dst = [0, 0, 1, 3, 3, 4], [1, 2, 2, 4, 5, 5]          # two triangles
    >>> G = hp.Graph.from_edges(src, dst, num_vertices=6, directed=False, backend="cpu")
    >>> hp.label_propagation(G, backend="cpu")
    array([1, 1, 1, 3, 3, 3], dtype=int32)
    """
    if mode not in MODES:
        raise InvalidValue(f"mode must be one of {MODES}, got {mode!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise InvalidValue(f"max_iter must be a non-negative int, got {max_iter!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise InvalidValue(f"seed must be a non-negative int or None, got {seed!r}")
    G, side, on_dev = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    ldt = vertex_id_dtype(n)
    labels = xp.arange(n, dtype=ldt)
    if n == 0 or max_iter == 0:
        return finish(labels, on_dev, to)
    if side == "gpu" and n < 2**31 - 1:
        return finish(_gpu_labels(G, max_iter, seed, mode), on_dev, to)
    r, c = _pairs_with_multiplicity(G)     # a mutual pair: its label counts twice
    if mode == "synchronous":
        prev = None
        for it in range(int(max_iter)):
            verts, new = _update(xp, n, r, c, labels, prec=False)
            changed = bool((labels[verts] != new).any())
            if not changed:
                break
            nxt = labels.copy()
            nxt[verts] = new
            if prev is not None and bool((nxt == prev).all()):
                # the update is a function of the labels alone: from here they alternate
                # between two states, so the labels after max_iter iterations are known now
                # (a huge max_iter on an oscillating graph would otherwise run for ever)
                labels = nxt if (int(max_iter) - it - 1) % 2 == 0 else labels
                break
            prev, labels = labels, nxt
        return finish(labels, on_dev, to)

    colour, ncol = _colouring(G, seed, r, c)
    # edges grouped by the colour of their row, once
    order = xp.argsort(colour[r])
    r, c = r[order], c[order]
    offs = np.zeros(ncol + 1, dtype=np.int64)
    if r.shape[0]:
        offs[1:] = np.cumsum(_backend.to_host(bincount(xp, colour[r], minlength=ncol)))
    classes = [(int(offs[k]), int(offs[k + 1])) for k in range(ncol) if offs[k + 1] > offs[k]]
    for _ in range(int(max_iter)):
        changed = xp.zeros((), dtype=bool)
        for lo, hi in classes:
            verts, new = _update(xp, n, r[lo:hi], c[lo:hi], labels, prec=True)
            diff = labels[verts] != new
            changed |= diff.any()
            labels[verts] = new
        if not bool(changed):
            break
    return finish(labels, on_dev, to)


def _pairs_with_multiplicity(G):
    """``(rows, cols)`` (int64) of every neighbour pair, a mutual directed pair listed twice:
    the entries of the graph's cached simple matrix (the pairs of ``simple_pairs``, values
    their multiplicities), so the pairs are not found again."""
    xp = G.xp
    S = simple_matrix(G)
    r = S.row_ids().astype(np.int64, copy=False)
    c = S.indices.astype(np.int64, copy=False)
    if S.values is not None and r.shape[0]:
        two = S.values == 2
        r, c = xp.concatenate([r, r[two]]), xp.concatenate([c, c[two]])
    return r, c


def _gpu_labels(G, max_iter, seed, mode):
    """:func:`label_propagation` on the device kernels (:mod:`._label_propagation_gpu`); the
    same colouring and rules as the vectorised path, so the same labels."""
    from . import _label_propagation_gpu as _lpg

    S = simple_matrix(G)
    n = G.num_vertices
    if mode == "synchronous":
        return _lpg.run(S, ("sync",), lambda plan: [np.arange(n, dtype=np.int64)], max_iter, True)

    def classes(plan):
        # the colouring of _colouring, computed by the device rounds of lp_colour_round
        r = S.row_ids()
        deg = S.indptr[1:] - S.indptr[:-1]
        if S.values is not None and r.shape[0]:
            deg = deg + bincount(G.xp, r[S.values == 2], minlength=n)
        col = _backend.to_host(plan.colouring(colouring_rank(G.xp, deg, seed)))
        ncol = int(col.max()) + 1 if n else 0
        order = np.argsort(col, kind="stable")
        bounds = np.searchsorted(col[order], np.arange(ncol + 1))
        return [order[bounds[k]:bounds[k + 1]] for k in range(ncol)]

    return _lpg.run(S, ("semi", seed), classes, max_iter, False)
