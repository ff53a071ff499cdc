"""Reading a networkx graph's adjacency and edge attributes into NumPy arrays.

The helpers of :func:`hpgraph.nx_backend.graph.convert_from_nx`.  Reading edge attributes is
the costly part of a conversion: every adjacency entry's data dict is a separate heap object
and every value a separate Python number, so the reads are bound by memory latency.  An
undirected :class:`networkx.Graph` stores one data dict per edge, shared by its two adjacency
entries ``adj[u][v]`` and ``adj[v][u]``; :func:`twin_edge_values` reads it once, from the entry
that comes first, and copies the values to the other entry with NumPy (R-MAT 18, 3.8M edges:
about 0.9 s instead of 2.1 s for one float attribute).
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

#: Graph methods that write adjacency entries; networkx's own give an undirected edge's two
#: entries one shared data dict.
_EDGE_WRITERS = ("add_edge", "add_edges_from")


def _networkx_defines(G, name) -> bool:
    """True when ``type(G).name`` resolves to networkx's own class attribute."""
    for cls in type(G).__mro__:
        if name in cls.__dict__:
            return cls.__module__.startswith("networkx.classes.")
    return False


def public_view(G, name, private):
    """``G._adj`` / ``G._pred`` when ``G.adj`` / ``G.pred`` is networkx's own property (the
    fast path: plain dicts, or networkx's filter views), else the public ``G.adj`` / ``G.pred``
    (a graph class that overrides its adjacency view, like networkx's ``_AntiGraph``, reports
    its edges only through it)."""
    for cls in type(G).__mro__:
        if name in cls.__dict__:
            if cls.__module__.startswith("networkx.classes."):
                return getattr(G, private)
            break
    return getattr(G, name)


def edge_dicts(adj):
    """The edge data dicts of all adjacency entries, in networkx order (a list)."""
    try:
        return list(itertools.chain.from_iterable(map(dict.values, adj.values())))
    except TypeError:  # graph views: FilterAtlas objects instead of dicts
        return list(itertools.chain.from_iterable(nbrs.values() for nbrs in adj.values()))


def numeric_array(vals, attr, default):
    """``vals`` (a list of the values of ``attr``) as one numeric array: int64 when they are all
    ints or bools, float64 when some are floats.

    Raises
    ------
    NotImplementedError
        A value is not a number (or is None: missing, with no default).
    """
    if not vals:
        return np.zeros(0, dtype=np.int64 if isinstance(default, (int, np.integer)) else np.float64)
    try:
        arr = np.asarray(vals)
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None or arr.ndim != 1 or arr.dtype.kind not in "biuf":
        if None in vals:
            raise NotImplementedError(f"edge attribute {attr!r} is missing on some edges and has "
                                      "no default")
        raise NotImplementedError(f"hpgraph needs numeric values of the edge attribute {attr!r}")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    return arr


def edge_values(dicts, attr, default):
    """One numeric array of ``attr`` over the edge data dicts (missing: ``default``)."""
    try:  # fast path: every edge has the attribute
        vals = list(map(operator.itemgetter(attr), dicts))
    except (KeyError, TypeError):
        vals = list(map(operator.methodcaller("get", attr, default), dicts))
    return numeric_array(vals, attr, default)


def all_numeric_attrs(adj, multigraph=False):
    """Names of edge attributes holding numbers on the edges that have them."""
    names = {}
    for nbrs in adj.values():
        datas = (itertools.chain.from_iterable(kd.values() for kd in nbrs.values())
                 if multigraph else nbrs.values())
        for d in datas:
            for k, v in d.items():
                if names.get(k, True):
                    names[k] = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, str)
    return [k for k, ok in names.items() if ok]


def shares_edge_dicts(G, adj) -> bool:
    """True when ``G`` is an undirected simple graph whose two adjacency entries of an edge hold
    one data dict: ``adj`` is networkx's own plain-dict ``G._adj`` and the class writes edges
    with networkx's own methods (a subclass that overrides them may store two dicts).  Writing
    ``G._adj`` directly, bypassing networkx, can break this; networkx itself never does."""
    return (not G.is_directed() and not G.is_multigraph() and adj is getattr(G, "_adj", None)
            and all(_networkx_defines(G, name) for name in _EDGE_WRITERS))


def _stable_order(keys, bound):
    """Stable argsort of the non-negative integers ``keys`` (all below ``bound``).

    Least-significant-digit radix passes over 16-bit digits (8-bit for a last digit that fits):
    NumPy's stable argsort is a radix sort on 8- and 16-bit keys but a timsort on wider ones
    (several times slower on millions of keys).
    """
    bits = max(1, (int(bound) - 1).bit_length())
    order = None
    shift = 0
    while shift < bits:
        width, dtype = (8, np.uint8) if bits - shift <= 8 else (16, np.uint16)
        digit = keys >> shift if shift else keys
        if order is not None:
            digit = digit[order]
        step = np.argsort((digit & ((1 << width) - 1)).astype(dtype), kind="stable")
        order = step if order is None else order[step]
        shift += width
    return order


def edge_twins(indptr, indices):
    """Pair the two adjacency entries of each edge of a symmetric adjacency.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The adjacency (rows in vertex order, each row's entries in any order, no repeats).

    Returns
    -------
    (first, up, down) or None
        ``first``: bool per entry, True for the entries ``(u, v)`` with ``u <= v`` (each edge's
        entry that comes first; a self-loop's only entry).  ``up`` and ``down``: entry positions
        of equal length, ``up[k]`` is an entry ``(u, v)`` with ``u < v`` and ``down[k]`` its twin
        ``(v, u)``.  None when some entry has no twin (the adjacency is not symmetric).
    """
    n = indptr.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(indptr))
    first = rows <= indices
    up = np.flatnonzero(rows < indices)
    down = np.flatnonzero(~first)
    if up.shape[0] != down.shape[0]:
        return None
    # up entries ordered by (row, column): rows are in order; columns are when each row lists
    # its neighbours in increasing order, else sort by column, then stably by row
    ru, cu = rows[up], indices[up]
    if not np.all((ru[1:] > ru[:-1]) | (cu[1:] > cu[:-1])):
        up = up[_stable_order(cu, n)]
        up = up[_stable_order(rows[up], n)]
        ru, cu = rows[up], indices[up]
    # down entries (v, u) ordered by (u, v): they are in row order, so a stable sort by column
    cd = indices[down]
    down = down[_stable_order(cd, n)]
    # the sorted columns of the down entries equal ru (sorted too) when both count each vertex
    # alike; then the rows of the down entries must be cu
    if not (np.array_equal(np.bincount(cd, minlength=n), np.bincount(ru, minlength=n))
            and np.array_equal(rows[down], cu)):
        return None
    return first, up, down


class _FirstEntries:
    """The data dicts of the adjacency entries selected by the bool array ``first``, in networkx
    order; every iteration walks the adjacency again.  Reading values during the walk touches
    each dict once, where building a list of them first touches each twice (a cache miss each
    time on a large graph)."""

    def __init__(self, adj, first):
        self.adj = adj
        # compress() tests the bytes as Python ints 0 / 1, far cheaper than NumPy bools
        self.selectors = first.view(np.uint8).tobytes()

    def __iter__(self):
        entries = itertools.chain.from_iterable(map(dict.values, self.adj.values()))
        return itertools.compress(entries, self.selectors)


def _sample_shares_dicts(adj, indptr, indices, k=64) -> bool:
    """Whether ``k`` entries spread over the adjacency hold the same data dict as their twins
    (a graph whose ``_adj`` was written directly, bypassing networkx, may hold two; checking
    every entry would cost as much as reading them all)."""
    m = int(indices.shape[0])
    if m == 0:
        return True
    nodes = list(adj)
    pos = np.unique(np.linspace(0, m - 1, num=min(k, m)).astype(np.int64))
    rows = np.searchsorted(indptr, pos, side="right") - 1
    for u, v in zip(rows.tolist(), indices[pos].tolist()):
        a, b = nodes[u], nodes[v]
        if adj[a][b] is not adj[b][a]:
            return False
    return True


def twin_edge_values(adj, indptr, indices, edge_attrs):
    """``{attribute: array}`` of an undirected simple graph whose twin adjacency entries share
    their data dict (:func:`shares_edge_dicts`), reading each dict once; None when the
    adjacency is not symmetric or a neighbour mapping is not a dict (the caller then reads
    every entry).

    Each edge's value comes from its first entry, which precedes its twin in networkx's order,
    so the values read are those of all entries with the repeats left out: ``np.asarray`` gives
    them the same dtype, and :func:`numeric_array` raises the same errors, as on all entries.
    """
    if not all(map(isinstance, adj.values(), itertools.repeat(dict))):
        return None
    twins = edge_twins(indptr, indices)
    if twins is None or not _sample_shares_dicts(adj, indptr, indices):
        return None
    first, up, down = twins
    count = int(np.count_nonzero(first))
    dicts = _FirstEntries(adj, first)
    if len(edge_attrs) > 1:  # one walk of the adjacency for all the attributes
        dicts = list(dicts)
    values = {}
    for attr, default in edge_attrs.items():
        read = edge_values(dicts, attr, default)
        if read.shape[0] != count:  # pragma: no cover - the graph changed while it was read
            raise NotImplementedError("the graph changed while hpgraph was converting it")
        vals = np.empty(indices.shape[0], dtype=read.dtype)
        vals[first] = read
        vals[down] = vals[up]
        values[attr] = vals
    return values
