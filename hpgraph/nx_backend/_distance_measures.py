"""networkx's eccentricity, diameter, radius, periphery and center.

The eccentricity of a node is the largest distance of one hpgraph BFS (unweighted) or SSSP
(weighted) from it; all of them at once on a graph of at most ``_ALL_PAIRS_MAX_N`` nodes come
from one all-pairs :func:`hpgraph.csgraph.shortest_path` over the converted CSR.  The other
four are the max / min of the eccentricities and the nodes attaining them, in node order as
networkx lists them.
"""

from __future__ import annotations

import numpy as np

from ._registry import _depth, _nbunch, _nx, _weight_is_name, device, implements


def _unconnected(G):
    nx = _nx()
    if G.is_directed():
        return nx.NetworkXError(
            "Found infinite path length because the digraph is not strongly connected")
    return nx.NetworkXError("Found infinite path length because the graph is not connected")


def _ecc_of(G, i, weight):
    """Eccentricity of vertex id ``i`` (int for integer weights), or raise."""
    if weight is None:
        d = _depth(G, i)
        if np.any(d < 0):
            raise _unconnected(G)
        return int(d.max())
    from ._paths import _dist_values, _no_negative, _sssp

    _no_negative(G, weight, "eccentricity")
    dist, _ = _sssp(G, i, weight)
    if not np.all(np.isfinite(dist)):
        raise _unconnected(G)
    far = int(np.argmax(dist))
    return _dist_values(G, weight, dist, np.array([far]))[0]


#: graphs up to this many nodes get all eccentricities from one all-pairs search (an
#: ``n x n`` float64 matrix); larger ones run one engine search per node
_ALL_PAIRS_MAX_N = 2048


def _all_ecc(G, weight):
    """Every eccentricity at once (one all-pairs :func:`hpgraph.csgraph.shortest_path`), or
    raise."""
    def make():
        import scipy.sparse as sp

        from ..csgraph import shortest_path

        if weight is not None:
            from ._paths import _no_negative

            _no_negative(G, weight, "eccentricity")
            vals = G.edge_values[weight].astype(np.float64)
        else:
            vals = np.ones(G.indices.shape[0])
        A = sp.csr_array((vals, G.indices, G.indptr), shape=(G.n, G.n))
        D = shortest_path(A, directed=G.is_directed(), unweighted=weight is None,
                          backend=device())
        return D.max(axis=1) if D.shape[0] else np.zeros(0)
    ecc = G.cached(("all_eccentricities", weight), make)
    if not np.all(np.isfinite(ecc)):
        raise _unconnected(G)
    if weight is None or G.weights_integral(weight):
        return np.rint(ecc).astype(np.int64).tolist()
    return ecc.tolist()


@implements("eccentricity", needs=("bfs", "sssp"), check=_weight_is_name)
def eccentricity(G, v=None, sp=None, weight=None):
    """Largest distance from each node (dict), or from ``v``."""
    nx = _nx()
    order = len(G)
    if v is None and sp is None and order <= _ALL_PAIRS_MAX_N:
        return dict(zip(G.nodes, _all_ecc(G, weight)))
    e = {}
    nodes = G.nodes if v is None else ([v] if v in G else _nbunch(G, v))
    for n in nodes:
        if sp is None:
            e[n] = _ecc_of(G, G.index[n], weight)
            continue
        try:
            length = sp[n]
            L = len(length)
        except TypeError as err:
            raise nx.NetworkXError('Format of "sp" is invalid.') from err
        if L != order:
            raise _unconnected(G)
        e[n] = max(length.values())
    if v in G:
        return e[v]
    return e


def _ecc(G, e, weight, usebounds):
    """The eccentricities; ``usebounds`` (networkx's extrema bounding on an undirected graph)
    gives the same extrema, computed here from all eccentricities, with its error text."""
    if e is not None:
        return e
    if usebounds is True and not G.is_directed():
        try:
            return eccentricity(G, weight=weight)
        except _nx().NetworkXError:
            raise _nx().NetworkXError(
                "Cannot compute metric because graph is not connected.") from None
    return eccentricity(G, weight=weight)


@implements("diameter", needs=("bfs", "sssp"), check=_weight_is_name)
def diameter(G, e=None, usebounds=False, weight=None):
    """Largest eccentricity."""
    return max(_ecc(G, e, weight, usebounds).values())


@implements("radius", needs=("bfs", "sssp"), check=_weight_is_name)
def radius(G, e=None, usebounds=False, weight=None):
    """Smallest eccentricity."""
    return min(_ecc(G, e, weight, usebounds).values())


@implements("periphery", needs=("bfs", "sssp"), check=_weight_is_name)
def periphery(G, e=None, usebounds=False, weight=None):
    """Nodes whose eccentricity is the diameter (list, node order)."""
    e = _ecc(G, e, weight, usebounds)
    d = max(e.values())
    return [v for v in e if e[v] == d]


@implements("center", needs=("bfs", "sssp"), check=_weight_is_name)
def center(G, e=None, usebounds=False, weight=None):
    """Nodes whose eccentricity is the radius (list, node order)."""
    # (networkx's leaf peeling for a tree keeps the remaining nodes in node order: the same)
    e = _ecc(G, e, weight, usebounds)
    r = min(e.values())
    return [v for v in e if e[v] == r]
