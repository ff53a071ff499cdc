"""Strongly and weakly connected components of a directed graph.

Weak components are :func:`hpgraph.connected_components` (FastSV over ``A`` and ``A^T``).

Strong components, on the GPU, by the coloring method (Orzan 2004; Slota, Rajamanickam and
Madduri's "Multistep"), every step a vectorised operation over the edges of the remaining
vertices:

1. *trim*: a remaining vertex with no remaining in-neighbour or no remaining out-neighbour is a
   component by itself (repeated while it removes vertices);
2. *color*: every remaining vertex takes the smallest remaining id that reaches it (min-label
   propagation along the edges to a fixed point: one scatter-min per sweep);
3. *backward closure*: a vertex ``r`` whose color is its own id is the smallest vertex of its
   component, and that component is the set of vertices of color ``r`` that reach ``r``:
   backward propagation from every such root at once, inside its color;
4. those components are removed; repeat until no vertex remains.

On the CPU the same labels come from ``scipy.sparse.csgraph.connected_components(
connection="strong")`` (Pearce's algorithm, linear time), renumbered.  Either way the labels
number the components 0, 1, ... in the order of their smallest vertex id (as
:func:`hpgraph.connected_components` and scipy's weak components do).
"""

from __future__ import annotations

import numpy as np

from ._common import finish, prepare, vertex_id_dtype
from ._vec import check_directed, scatter_max, scatter_min, stored_edges

__all__ = ["strongly_connected_components", "weakly_connected_components"]


def weakly_connected_components(G, *, backend=None, to=None):
    """Weakly connected components of a directed graph (edge directions ignored).

    Parameters
    ----------
    G : Graph (directed), scipy/cupyx sparse matrix or networkx DiGraph
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    (int, array of int32)
        Number of components and the component of each vertex, numbered in the order of each
        component's smallest vertex id.

    Raises
    ------
    InvalidValue
        ``G`` is undirected (use :func:`hpgraph.connected_components`).
    """
    from .components import connected_components

    G, side, _ = prepare(G, backend)
    check_directed(G, "weakly_connected_components", "hp.connected_components")
    return connected_components(G, backend=side, to=to)


def strongly_connected_components(G, *, backend=None, to=None):
    """Strongly connected components of a directed graph.

    Parameters
    ----------
    G : Graph (directed), scipy/cupyx sparse matrix or networkx DiGraph
        Self-loops and repeated edges change nothing.
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    (int, array of int32)
        Number of components and the component of each vertex, numbered 0, 1, ... in the order
        of each component's smallest vertex id.

    Raises
    ------
    InvalidValue
        ``G`` is undirected (its strong components are its connected components: use
        :func:`hpgraph.connected_components`).

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 2, 3], [1, 0, 3, 2], num_vertices=5, backend="cpu")
    >>> hp.strongly_connected_components(G, backend="cpu")
    (3, array([0, 0, 1, 1, 2], dtype=int32))
    """
    G, side, on_dev = prepare(G, backend)
    check_directed(G, "strongly_connected_components", "hp.connected_components")
    n = G.num_vertices
    if side == "cpu":
        import scipy.sparse.csgraph as csg

        if n == 0:
            return 0, finish(np.zeros(0, dtype=np.int32), on_dev, to)
        _, lab = csg.connected_components(G.to_scipy(copy=False), directed=True,
                                          connection="strong")
        root = np.full(n, n, dtype=np.int64)
        np.minimum.at(root, lab, np.arange(n, dtype=np.int64))
        count, labels = _number(np, root[lab])
        return count, finish(labels, on_dev, to)
    r, c, _ = stored_edges(G, loops=False)
    count, labels = _number(G.xp, scc_roots(G.xp, r, c, n))
    return count, finish(labels, on_dev, to)


def scc_roots(xp, r, c, n):
    """Smallest vertex id of the strong component of every vertex (the coloring method of the
    module docstring) for the edges ``r -> c`` of a graph on ``n`` vertices (int64 arrays)."""
    idt = vertex_id_dtype(n + 1)      # int32 where it fits: cupyx's scatter ops take it
    root = xp.full(n, -1, dtype=idt)
    alive = xp.ones(n, dtype=bool)
    ids = xp.arange(n, dtype=idt)
    big = idt.type(n)
    while True:
        # trim vertices with no remaining in- or out-edge (each its own component)
        while True:
            keep = alive[r] & alive[c]
            r, c = r[keep], c[keep]
            has_out = xp.zeros(n, dtype=bool)
            has_in = xp.zeros(n, dtype=bool)
            has_out[r] = True
            has_in[c] = True
            trim = alive & ~(has_out & has_in)
            if not bool(trim.any()):
                break
            root[trim] = ids[trim]
            alive &= ~trim
        if not bool(alive.any()):
            return root
        # color: smallest remaining id reaching each vertex
        color = xp.where(alive, ids, big)
        while True:
            new = color.copy()
            scatter_min(xp, new, c, color[r])
            if bool((new == color).all()):
                break
            color = new
        # backward closure from every root, inside its color
        reach = (alive & (color == ids)).astype(np.int32)
        same = color[r] == color[c]
        rs, cs = r[same], c[same]
        while True:
            step = reach.copy()
            scatter_max(xp, step, rs, reach[cs])
            if bool((step == reach).all()):
                break
            reach = step
        reach = reach.astype(bool)
        root[reach] = color[reach]
        alive &= ~reach


def _number(xp, root):
    """(count, int32 labels) numbering the component roots in increasing order."""
    n = int(root.shape[0])
    if n == 0:
        return 0, xp.zeros(0, dtype=np.int32)
    is_root = root == xp.arange(n, dtype=root.dtype)
    rank = xp.cumsum(is_root, dtype=np.int64) - 1
    return int(rank[-1]) + 1, rank[root].astype(np.int32)
