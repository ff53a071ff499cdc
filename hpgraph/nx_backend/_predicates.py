"""networkx's yes/no questions about a graph or a node set, on the converted adjacency.

Partitions, matchings, regularity, simple paths, empty graphs, negative weights and Eulerian
graphs are answered from degree vectors and adjacency lookups over the CSR (and hpgraph's
components for Eulerian connectivity).  Where networkx checks the items of an argument one by
one and stops at the first bad one (matchings, paths), the same order is kept so that the
same exception or answer comes out first.
"""

from __future__ import annotations

import numpy as np

from ._components import _undirected_only
from ._registry import _nx, implements


def _has_edge(hg, u, v):
    """``G.has_edge(u, v)`` for vertex ids."""
    lo, hi = hg.indptr[u], hg.indptr[u + 1]
    return bool(np.any(hg.indices[lo:hi] == v))


@implements("is_partition")
def is_partition(G, communities):
    """True when ``communities`` are disjoint sets covering every node exactly once."""
    if not isinstance(communities, list):
        communities = list(communities)
    seen = np.zeros(G.n, dtype=np.int64)
    total = 0
    for c in communities:
        total += len(c)
        ids = [G.index[v] for v in c if v in G]
        if ids:
            seen[np.asarray(ids, dtype=np.int64)] = 1
    return G.n == int(seen.sum()) == total


def _matched(G, matching):
    """Vertex ids covered by ``matching`` (a bool array), or False when it is not a matching;
    networkx's checks, in its order."""
    nx = _nx()
    if isinstance(matching, dict):
        from networkx.algorithms.matching import matching_dict_to_set

        matching = matching_dict_to_set(matching)
    covered = np.zeros(G.n, dtype=bool)
    for edge in matching:
        if len(edge) != 2:
            raise nx.NetworkXError(f"matching has non-2-tuple edge {edge}")
        u, v = edge
        if u not in G or v not in G:
            raise nx.NetworkXError(f"matching contains edge {edge} with node not in G")
        if u == v:
            return False
        iu, iv = G.index[u], G.index[v]
        if not _has_edge(G, iu, iv):
            return False
        if covered[iu] or covered[iv]:
            return False
        covered[iu] = covered[iv] = True
    return covered


@implements("is_matching")
def is_matching(G, matching):
    """True when ``matching`` is a set of edges of ``G`` without a shared node."""
    return _matched(G, matching) is not False


@implements("is_maximal_matching")
def is_maximal_matching(G, matching):
    """True when ``matching`` is a matching no edge of ``G`` can be added to."""
    covered = _matched(G, matching)
    if covered is False:
        return False
    rows, cols = G.rows(), G.indices
    free = ~covered[rows] & ~covered[cols] & (rows != cols)
    return not bool(free.any())


@implements("is_perfect_matching")
def is_perfect_matching(G, matching):
    """True when ``matching`` is a matching that covers every node."""
    covered = _matched(G, matching)
    return covered is not False and int(covered.sum()) == G.n


@implements("is_regular")
def is_regular(G):
    """True when every node has the same degree (same in- and out-degrees if directed)."""
    from ._measures import _degree, _in_degree, _out_degree

    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept("Graph has no nodes.")
    if not G.is_directed():
        d = _degree(G)
        return bool(np.all(d == d[0]))
    out = _out_degree(G)
    inn = _in_degree(G)
    return bool(np.all(inn == inn[0]) and np.all(out == out[0]))


@implements("is_k_regular")
def is_k_regular(G, k):
    """True when every node of the undirected graph has degree ``k``."""
    from ._measures import _degree

    _undirected_only(G)
    return bool(np.all(_degree(G) == k))


@implements("is_simple_path")
def is_simple_path(G, nodes):
    """True when ``nodes`` are distinct nodes, each adjacent to the next."""
    if len(nodes) == 0:
        return False
    if len(nodes) == 1:
        return nodes[0] in G
    if not all(v in G for v in nodes):
        return False
    if len(set(nodes)) != len(nodes):
        return False
    ids = np.fromiter((G.index[v] for v in nodes), dtype=np.int64, count=len(nodes))
    key = G.cached("edge_keys", lambda: np.sort(G.rows() * G.n + G.indices))
    want = ids[:-1] * G.n + ids[1:]
    pos = np.searchsorted(key, want)
    pos = np.minimum(pos, max(key.shape[0] - 1, 0))
    return bool(key.shape[0] and np.all(key[pos] == want))


@implements("is_empty")
def is_empty(G):
    """True when the graph has no edges."""
    return G.indices.shape[0] == 0


def _neg_check(b):
    w = b.arguments.get("weight", "weight")
    if callable(w):
        return "weight functions are not supported"
    G = b.arguments.get("G")
    if G is not None and G.is_multigraph() and b.arguments.get("edge") is not None:
        return "an edge of a multigraph (networkx reads the edge-key dict) is not supported"
    return True


@implements("is_negatively_weighted", check=_neg_check)
def is_negatively_weighted(G, edge=None, weight="weight"):
    """True when some edge (or ``edge``) has a negative ``weight``."""
    nx = _nx()
    has = weight is not None and weight in G.edge_values
    if edge is not None:
        u, v = edge
        if u not in G or v not in G or not _has_edge(G, G.index[u], G.index[v]):
            raise nx.NetworkXError(f"Edge {edge!r} does not exist.")
        if not has:
            return False
        iu, iv = G.index[u], G.index[v]
        lo, hi = G.indptr[iu], G.indptr[iu + 1]
        at = lo + int(np.flatnonzero(G.indices[lo:hi] == iv)[0])
        return bool(G.edge_values[weight][at] < 0)
    if not has:
        return False
    return bool(np.any(G.edge_values[weight] < 0))


@implements("is_eulerian", needs=("connected_components", "strongly_connected_components",
                                   "topological_sort"))
def is_eulerian(G):
    """True when every node has even degree (in = out if directed) and the graph is connected
    (strongly if directed); the null graph raises NetworkXPointlessConcept."""
    from ._measures import _degree, _in_degree, _out_degree

    if G.n == 0:
        raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    if G.is_directed():
        if not np.array_equal(_out_degree(G), _in_degree(G)):
            return False
        from ._components import _strong

        return _strong(G)[0] == 1
    if np.any(_degree(G) % 2):
        return False
    from ._analysis import _components

    return _components(G)[0] == 1
