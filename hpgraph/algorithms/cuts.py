"""Cut size, neighbourhood and node boundary of vertex sets (``networkx.cut_size``,
``node_boundary``).

Each is one masked reduction over the stored entries: a boolean mask per vertex set, the
entries whose endpoints fall in the right sets selected, their weights summed (or their heads
marked), the same code on NumPy and CuPy.
"""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from ..exceptions import InvalidValue
from ._common import finish, prepare

__all__ = ["cut_size", "neighborhood", "node_boundary"]


def _mask(xp, n, nodes, name):
    """Bool mask of a vertex set given as ids or as a bool mask of length n."""
    a = np.asarray(_backend.to_host(nodes))
    if a.dtype == bool:
        if a.shape != (n,):
            raise InvalidValue(f"{name} as a mask must have length {n}, got shape {a.shape}")
        return xp.asarray(a)
    a = a.reshape(-1)
    if a.size and (a.dtype.kind not in "iu" or a.min() < 0 or a.max() >= n):
        raise InvalidValue(f"{name} must hold vertex ids in 0..{n - 1} (or be a bool mask)")
    m = np.zeros(n, dtype=bool)
    m[a.astype(np.int64)] = True
    return xp.asarray(m)


def _entries(G):
    xp = G.xp
    A = G.A
    if A.nnz == 0:
        z = xp.zeros(0, dtype=np.int64)
        return z, z
    return A.row_ids().astype(np.int64, copy=False), A.indices.astype(np.int64, copy=False)


def cut_size(G, S, T=None, weighted=True, *, backend=None):
    """Total weight of the edges between the vertex sets ``S`` and ``T`` (``networkx.cut_size``).

    An undirected edge counts once when one end is in ``S`` and the other in ``T`` (the sets
    may overlap).  A directed graph counts, as networkx does, the out-edges of ``S`` with one
    end in each set, plus the out-edges of ``T`` with one end in each set (an edge whose ends
    are both in ``S`` and ``T`` counts twice).

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
    S, T : array of vertex ids or bool mask of length n
        ``T`` defaults to the vertices outside ``S``.
    weighted : bool, default True
        Sum the edge weights (each edge counts 1 when False or the graph is unweighted).
    backend : {None, "auto", "cpu", "gpu"}

    Returns
    -------
    int or float
        An int when every edge counts 1, the weights are integers or no edge is cut.

    Raises
    ------
    InvalidValue
        A set holds ids out of range.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 2], [1, 2, 3], directed=False, backend="cpu")
    >>> hp.cut_size(G, [0, 1], backend="cpu"), hp.cut_size(G, [1], [0, 2], backend="cpu")
    (1, 2)
    """
    G, _, _ = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    s = _mask(xp, n, S, "S")
    t = ~s if T is None else _mask(xp, n, T, "T")
    r, c = _entries(G)
    rs, cs, rt, ct = s[r], s[c], t[r], t[c]
    if G.directed:
        # networkx's edge_boundary(S, T) and edge_boundary(T, S), added
        sels = [rs & (ct | (cs & rt)), rt & (cs | (ct & rs))]
    else:
        # both directions are stored: an edge selected from both of its entries counts once
        sels = [rs & ct & ~(cs & rt & (r > c))]
    w = G.A.values if (weighted and G.weighted) else None
    if w is None:
        return sum(int(sel.sum()) for sel in sels)
    if w.dtype.kind == "f":
        w = w.astype(np.float64)   # Python floats, as networkx adds them
    # networkx's sum over no edge is the int 0
    return sum(w[sel].sum().item() if bool(sel.any()) else 0 for sel in sels)


def neighborhood(G, S, *, backend=None, to=None):
    """The vertices with an edge from ``S``, members of ``S`` included (the neighbourhood that
    ``networkx.node_expansion`` counts).

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Directed graphs follow out-edges.
    S : array of vertex ids or bool mask of length n
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of bool, length n

    Raises
    ------
    InvalidValue
        ``S`` holds ids out of range.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 2], [1, 2, 3], directed=False, backend="cpu")
    >>> hp.neighborhood(G, [1, 2], backend="cpu").nonzero()[0].tolist()
    [0, 1, 2, 3]
    """
    G, _, on_dev = prepare(G, backend)
    return finish(_neighbours(G, _mask(G.xp, G.num_vertices, S, "S")), on_dev, to)


def _neighbours(G, s):
    r, c = _entries(G)
    out = G.xp.zeros(G.num_vertices, dtype=bool)
    out[c[s[r]]] = True
    return out


def node_boundary(G, S, *, backend=None, to=None):
    """The vertices outside ``S`` with an edge from ``S`` (``networkx.node_boundary``).

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Directed graphs follow out-edges.
    S : array of vertex ids or bool mask of length n
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of bool, length n

    Raises
    ------
    InvalidValue
        ``S`` holds ids out of range.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.Graph.from_edges([0, 1, 2], [1, 2, 3], directed=False, backend="cpu")
    >>> hp.node_boundary(G, [1], backend="cpu").nonzero()[0].tolist()
    [0, 2]
    """
    G, _, on_dev = prepare(G, backend)
    s = _mask(G.xp, G.num_vertices, S, "S")
    return finish(_neighbours(G, s) & ~s, on_dev, to)
