"""networkx's cut measures, node boundary, forests, bipartiteness, efficiency and self-loops.

Vectorised NumPy over the converted adjacency (one boolean mask per node set); bipartiteness
uses one multi-source hpgraph BFS (one root per component) and compares depth parities, and
global efficiency one hpgraph BFS per node.
"""

from __future__ import annotations

import numpy as np

from ._components import _undirected_only
from ._registry import _nx, _weight_is_name, device, hp_algorithm, implements


def _weights(hg, weight):
    if weight is None:
        return np.ones(hg.indices.shape[0], dtype=np.int64)
    hg._require(weight)
    return hg.edge_values[weight]


def _ids(hg, nodes):
    """Vertex ids of the nodes of ``nodes`` that are in the graph (networkx's filtering)."""
    index = hg.index
    return np.asarray([index[v] for v in nodes if v in index], dtype=np.int64)


def _cut_check(b):
    G = b.arguments.get("G")
    if G is not None and G.is_directed() and b.arguments.get("T") is None:
        return "directed cut_size with T=None: networkx's edge_boundary(G, None, S) decides"
    return _weight_is_name(b)


@implements("cut_size", needs=("cut_size",), check=_cut_check)
def cut_size(G, S, T=None, weight=None):
    """Total weight of the edges between ``S`` and ``T`` (both directions when directed):
    :func:`hpgraph.cut_size`."""
    if weight is not None:
        G._require(weight)
    return hp_algorithm("cut_size")(G.hp(weight), _ids(G, S), None if T is None else _ids(G, T),
                                    weight is not None, backend=device())


@implements("volume", check=_weight_is_name)
def volume(G, S, weight=None):
    """Sum of the (out-)degrees of ``S`` (weighted by ``weight``)."""
    from ._registry import _nbunch

    w = _weights(G, weight)
    rows = G.rows()
    deg = np.bincount(rows, weights=w, minlength=G.n)
    if not G.is_directed():
        loops = rows == G.indices
        deg = deg + np.bincount(rows[loops], weights=w[loops], minlength=G.n)
    integral = w.dtype.kind in "iub"
    ids = [G.index[v] for v in _nbunch(G, S)]
    vals = deg[ids].astype(np.int64) if integral else deg[ids]
    return sum(vals.tolist())


def _complement(hg, S):
    return set(hg.nodes) - set(S)


@implements("normalized_cut_size", needs=("cut_size",), check=_weight_is_name)
def normalized_cut_size(G, S, T=None, weight=None):
    """Cut size times ``1 / volume(S) + 1 / volume(T)``."""
    if T is None:
        T = _complement(G, S)
    cut = cut_size(G, S, T=T, weight=weight)
    return cut * (1 / volume(G, S, weight=weight) + 1 / volume(G, T, weight=weight))


@implements("conductance", needs=("cut_size",), check=_weight_is_name)
def conductance(G, S, T=None, weight=None):
    """Cut size over ``min(volume(S), volume(T))``."""
    if T is None:
        T = _complement(G, S)
    cut = cut_size(G, S, T, weight=weight)
    return cut / min(volume(G, S, weight=weight), volume(G, T, weight=weight))


@implements("edge_expansion", needs=("cut_size",), check=_weight_is_name)
def edge_expansion(G, S, T=None, weight=None):
    """Cut size over ``min(|S|, |T|)``."""
    if T is None:
        T = _complement(G, S)
    return cut_size(G, S, T=T, weight=weight) / min(len(S), len(T))


@implements("mixing_expansion", needs=("cut_size",), check=_cut_check)
def mixing_expansion(G, S, T=None, weight=None):
    """Cut size over twice the number of edges."""
    return cut_size(G, S, T=T, weight=weight) / (2 * G.number_of_edges())


def _boundary(hg, S, name="node_boundary"):
    """:func:`hpgraph.node_boundary` (or ``name``, :func:`hpgraph.neighborhood`) of ``S`` (a
    bool array)."""
    from .. import backend as _backend

    return np.asarray(_backend.to_host(
        hp_algorithm(name)(hg.hp(), _ids(hg, S), backend=device())))


@implements("node_boundary", needs=("node_boundary",))
def node_boundary(G, nbunch1, nbunch2=None):
    """Nodes outside ``nbunch1`` adjacent to it (intersected with ``nbunch2``): a set."""
    bdy = set(G.labels_of(np.flatnonzero(_boundary(G, nbunch1))))
    if nbunch2 is not None:
        bdy &= set(nbunch2)
    return bdy


@implements("node_expansion", needs=("neighborhood",))
def node_expansion(G, S):
    """Number of neighbours of ``S`` (those in ``S`` too) over ``|S|``."""
    return int(_boundary(G, S, "neighborhood").sum()) / len(S)


@implements("boundary_expansion", needs=("node_boundary",))
def boundary_expansion(G, S):
    """Size of the node boundary of ``S`` over ``|S|``."""
    return len(node_boundary(G, S)) / len(S)


# ---------------------------------------------------------------------------------------------
# forests, bipartiteness, efficiency, self-loops


def _component_edge_counts(hg):
    from ._analysis import _components

    k, labels = _components(hg)
    rows = hg.rows()
    nodes = np.bincount(labels, minlength=k)
    entries = np.bincount(labels[rows], minlength=k)
    if hg.is_directed():
        return nodes, entries
    loops = np.bincount(labels[rows[rows == hg.indices]], minlength=k)
    return nodes, (entries - loops) // 2 + loops


@implements("is_forest", needs=("connected_components",))
def is_forest(G):
    """True when every (weak) component is a tree."""
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept("G has no nodes.")
    if _has_parallel_edges(G):
        return False  # two parallel edges close a cycle
    nodes, edges = _component_edge_counts(G)
    return bool(np.all(nodes - 1 == edges))


@implements("is_tree", needs=("connected_components",))
def is_tree(G):
    """True when the graph is (weakly) connected with ``n - 1`` edges."""
    from ._analysis import _components

    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept("G has no nodes.")
    if _has_parallel_edges(G):
        return False  # two parallel edges close a cycle
    return len(G) - 1 == G.number_of_edges() and _components(G)[0] == 1


def _has_parallel_edges(G):
    """A converted multigraph with parallel edges (collapsed by the conversion)."""
    return G.multi_edges is not None and G.multi_edges != G.number_of_edges()


def _bip_check(b):
    G = b.arguments.get("G")
    if G is not None and G.is_directed():
        return "is_bipartite of directed graphs is not implemented"
    return True


@implements("is_bipartite", needs=("bfs", "connected_components"), check=_bip_check)
def is_bipartite(G):
    """True when the graph is 2-colourable (depth parities of one BFS per component)."""
    from .. import backend as _backend
    from ._analysis import _components
    from ._registry import hp_algorithm

    if G.n == 0:
        return True
    _, labels = _components(G)
    roots = np.unique(labels, return_index=True)[1]
    depth = np.asarray(_backend.to_host(
        hp_algorithm("bfs")(G.hp(), roots.tolist(), backend=device()).depth))
    parity = depth % 2
    return bool(np.all(parity[G.rows()] != parity[G.indices]))


@implements("global_efficiency", needs=("bfs",))
def global_efficiency(G):
    """Mean inverse distance over ordered pairs (networkx's summation order)."""
    from ._traversal import _sssp_length_dict

    _undirected_only(G)
    n = len(G)
    denom = n * (n - 1)
    if denom == 0:
        return 0
    g = 0
    for s in range(n):
        for d in _sssp_length_dict(G, s, None).values():
            if d > 0:
                g += 1 / d
    return g / denom


@implements("number_of_selfloops")
def number_of_selfloops(G):
    """Number of self-loop edges."""
    return int(G.self_loops().sum())

