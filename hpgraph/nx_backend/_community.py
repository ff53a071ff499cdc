"""networkx's Louvain communities, k-truss and spanning trees on hpgraph.

* ``louvain_communities``: :func:`hpgraph.louvain` (vectorised local moving, all vertices at
  once).  Louvain's partition depends on the order vertices are visited and on random choices,
  so it is a partition of comparable modularity, not networkx's partition;
* ``k_truss``: :func:`hpgraph.k_truss`, returned as a networkx graph;
* ``minimum_spanning_edges`` / ``maximum_spanning_edges`` / ``minimum_spanning_tree`` /
  ``maximum_spanning_tree``: :func:`hpgraph.minimum_spanning_forest` (the maximum forest on the
  negated weights).  Edges come in Kruskal's order (increasing weight; decreasing for the
  maximum); where equal weights allow several forests, hpgraph's may differ from networkx's.
"""

from __future__ import annotations

import math

import numpy as np

from ._components import _undirected_only
from ._registry import _nx, _weight_is_name, device, hp_algorithm, implements

# ---------------------------------------------------------------------------------------------
# communities


def _louvain_check(b):
    G = b.arguments.get("G")
    if G is not None and G.is_directed():
        return "directed Louvain (networkx's directed modularity) is not implemented by hpgraph"
    return _weight_is_name(b)


def _int_seed(seed):
    """An int seed for hpgraph from networkx's ``py_random_state`` (a random.Random or the
    ``random`` module), drawn from it as networkx's own code would consume it."""
    if seed is None:
        import random

        seed = random
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return int(seed)
    return int(seed.randrange(2**32))


def _groups(hg, labels):
    """Communities (sets of node labels) ordered by their smallest vertex id."""
    from .. import backend as _backend

    labels = np.asarray(_backend.to_host(labels)).astype(np.int64)
    if labels.shape[0] == 0:
        return []
    # each community keyed by its smallest vertex (np.unique's first index), in that order
    _, first, inv, counts = np.unique(labels, return_index=True, return_inverse=True,
                                      return_counts=True)
    order = np.argsort(first[inv.reshape(-1)], kind="stable")
    bounds = np.zeros(first.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts[np.argsort(first)], out=bounds[1:])
    return list(hg.label_sets(order, bounds))


@implements("louvain_communities", needs=("louvain",), check=_louvain_check)
def louvain_communities(G, weight="weight", resolution=1, threshold=0.0000001, max_level=None,
                        seed=None):
    """Louvain communities (list of sets of nodes)."""
    from ..exceptions import InvalidValue

    louvain = hp_algorithm("louvain")
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    if weight is not None and G.min_weight(weight) is not None and G.min_weight(weight) < 0:
        raise NotImplementedError("Louvain with negative edge weights")
    try:
        res = louvain(G.hp(weight), resolution=resolution, threshold=threshold,
                      max_levels=max_level, weighted=weight is not None,
                      seed=_int_seed(seed), backend=device())
    except InvalidValue as exc:
        raise NotImplementedError(f"hpgraph.louvain declined the arguments: {exc}") from None
    return _groups(G, res.labels)


# ---------------------------------------------------------------------------------------------
# k-truss


def _edge_subgraph(hg, keep, *, drop_isolates=True):
    """``G.copy()`` without the adjacency entries where ``keep`` is False (a networkx graph with
    the converted numeric edge attributes, node and graph attributes), in networkx's order;
    nodes left without edges are dropped when ``drop_isolates``."""
    nx = _nx()
    H = nx.DiGraph() if hg.is_directed() else nx.Graph()
    H.graph.update(hg.graph)
    rows = hg.rows()
    has = np.bincount(rows[keep], minlength=hg.n) > 0
    if hg.is_directed():
        has |= np.bincount(hg.indices[keep], minlength=hg.n) > 0
    ids = np.flatnonzero(has) if drop_isolates else np.arange(hg.n)
    order = hg.labels_of(ids)
    if hg.node_data is not None:
        H.add_nodes_from((v, dict(hg.node_data[i])) for v, i in zip(order, ids.tolist()))
    else:
        H.add_nodes_from(order)
    names = list(hg.edge_values)
    cols = [hg.edge_values[k] for k in names]
    pos = np.flatnonzero(keep)
    us = hg.labels_of(rows[pos])
    vs = hg.labels_of(hg.indices[pos])
    H.add_edges_from((u, v, {k: c[p].item() for k, c in zip(names, cols)})
                     for u, v, p in zip(us, vs, pos.tolist()))
    return H


@implements("k_truss", needs=("k_truss",))
def k_truss(G, k):
    """The k-truss (edges in at least k - 2 triangles of it) as a networkx graph."""
    nx = _nx()
    if G.self_loops().any():
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; Consider using "
            "G.remove_edges_from(nx.selfloop_edges(G)).")
    truss = hp_algorithm("k_truss")
    # an edge stays when its support reaches k - 2: every k <= 2 keeps every edge
    T = truss(G.hp(), max(2, math.ceil(k)), backend=device())
    A = T.to_scipy().tocsr() if hasattr(T, "to_scipy") else T
    from .. import backend as _backend

    indptr = np.asarray(_backend.to_host(A.indptr)).astype(np.int64)
    indices = np.asarray(_backend.to_host(A.indices)).astype(np.int64)
    kept_keys = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(indptr)) * G.n + indices
    keys = G.rows().astype(np.int64) * G.n + G.indices.astype(np.int64)
    return _edge_subgraph(G, np.isin(keys, kept_keys))


# ---------------------------------------------------------------------------------------------
# spanning trees


_ALGORITHMS = ("kruskal", "prim", "boruvka", "borůvka")


def _check_algorithm(algorithm):
    """networkx's ValueError for an unknown ``algorithm`` (every valid one gives a minimum
    forest; hpgraph computes it one way)."""
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"{algorithm} is not a valid choice for an algorithm.")


def _mst_check(b):
    if b.arguments.get("data", True) and b.arguments.get("G") is not None:
        return _no_other_attrs(b)
    return _weight_is_name(b)


def _no_other_attrs(b):
    """Edge data dicts come from the conversion: only numeric attributes can be given back."""
    ok = _weight_is_name(b)
    if ok is not True:
        return ok
    G = b.arguments["G"]
    if type(G).__name__ == "HpGraph":
        return True
    keys = None
    for _, _, d in G.edges(data=True):
        if keys is None:
            keys = set(d)
        elif keys != d.keys():
            return ("edges with different sets of attributes (the conversion gives every edge "
                    "each numeric attribute, and the edge data is returned)")
        for v in d.values():
            if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
                return "edge attributes that are not numbers (the edge data is returned)"
    return True


def _forest(hg, weight, maximum, ignore_nan):
    """``(rows, cols, positions)`` of the spanning forest's edges (one adjacency entry each),
    in Kruskal's order; raises networkx's ValueError on a NaN weight unless ``ignore_nan``."""
    from .. import backend as _backend
    from ..graph import Graph

    msf = hp_algorithm("minimum_spanning_forest")
    rows = hg.rows().astype(np.int64)
    cols = hg.indices.astype(np.int64)
    w = (hg.edge_values[weight].astype(np.float64) if weight is not None
         and weight in hg.edge_values else np.ones(cols.shape[0]))
    sel = rows < cols           # each undirected edge once (self-loops never span)
    nan = np.isnan(w) & sel
    if nan.any():
        if not ignore_nan:
            p = int(np.flatnonzero(nan)[0])
            u, v = hg.labels_of([rows[p], cols[p]])
            raise ValueError(f"NaN found as an edge weight. Edge {(u, v, _data(hg, p))}")
        sel &= ~nan
    pos = np.flatnonzero(sel)
    wsel = -w[pos] if maximum else w[pos]
    import scipy.sparse as sp

    A = sp.coo_array((wsel, (rows[pos], cols[pos])), shape=(hg.n, hg.n)).tocsr()
    # a zero weight must stay an edge: shift every weight to be positive (same forest order)
    if A.nnz:
        A.data = A.data - A.data.min() + 1.0
    A = A + A.T
    F = msf(Graph(A, directed=False), backend=device())
    B = sp.triu(F.to_scipy() if hasattr(F, "to_scipy") else F, format="coo")
    fr = np.asarray(_backend.to_host(B.row)).astype(np.int64)
    fc = np.asarray(_backend.to_host(B.col)).astype(np.int64)
    key = rows[pos] * hg.n + cols[pos]         # unique: one entry per undirected edge
    srt = np.argsort(key, kind="stable")
    chosen = pos[srt[np.searchsorted(key[srt], fr * hg.n + fc)]]
    order = np.lexsort((chosen, -w[chosen] if maximum else w[chosen]))
    chosen = chosen[order]
    return rows[chosen], cols[chosen], chosen


def _data(hg, p):
    return {k: c[p].item() for k, c in hg.edge_values.items()}


def _spanning_edges(G, maximum, weight, keys, data, ignore_nan):
    rows, cols, pos = _forest(G, weight, maximum, ignore_nan)
    us, vs = G.labels_of(rows), G.labels_of(cols)
    for u, v, p in zip(us, vs, pos.tolist()):
        yield (u, v, _data(G, p)) if data else (u, v)


def _spanning_generator(G, maximum, weight, keys, data, ignore_nan):
    _undirected_only(G)
    if G.is_multigraph():  # declined by can_run; kept for direct calls
        raise NotImplementedError("spanning edges of a multigraph (edge keys)")
    # the forest is computed when the generator starts (networkx raises NaN errors lazily too)
    return _spanning_edges(G, maximum, weight, keys, data, ignore_nan)


@implements("minimum_spanning_edges", needs=("minimum_spanning_forest",), check=_mst_check)
def minimum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True,
                           ignore_nan=False):
    """Edges of a minimum spanning forest (a generator, Kruskal's order)."""
    _check_algorithm(algorithm)
    return _spanning_generator(G, False, weight, keys, data, ignore_nan)


@implements("maximum_spanning_edges", needs=("minimum_spanning_forest",), check=_mst_check)
def maximum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True,
                           ignore_nan=False):
    """Edges of a maximum spanning forest (a generator, decreasing weight)."""
    _check_algorithm(algorithm)
    return _spanning_generator(G, True, weight, keys, data, ignore_nan)


def _spanning_tree(G, maximum, weight, ignore_nan):
    nx = _nx()
    _undirected_only(G)
    rows, cols, pos = _forest(G, weight, maximum, ignore_nan)
    T = nx.Graph()
    T.graph.update(G.graph)
    if G.node_data is not None:
        T.add_nodes_from(zip(G.nodes, (dict(d) for d in G.node_data)))
    else:
        T.add_nodes_from(G.nodes)
    T.add_edges_from((u, v, _data(G, p)) for u, v, p in
                     zip(G.labels_of(rows), G.labels_of(cols), pos.tolist()))
    return T


def _tree_check(b):
    return _no_other_attrs(b) if b.arguments.get("G") is not None else True


@implements("minimum_spanning_tree", needs=("minimum_spanning_forest",), check=_tree_check)
def minimum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """A minimum spanning forest as a networkx Graph (all nodes, edge data)."""
    _check_algorithm(algorithm)
    return _spanning_tree(G, False, weight, ignore_nan)


@implements("maximum_spanning_tree", needs=("minimum_spanning_forest",), check=_tree_check)
def maximum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """A maximum spanning forest as a networkx Graph (all nodes, edge data)."""
    _check_algorithm(algorithm)
    return _spanning_tree(G, True, weight, ignore_nan)
