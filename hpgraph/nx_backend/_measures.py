"""networkx's degree-based measures, clustering, reciprocity, link prediction and modularity.

Degree centrality is :func:`hpgraph.degree_centrality`, unweighted undirected clustering
:func:`hpgraph.clustering`, reciprocity :func:`hpgraph.reciprocity` /
:func:`hpgraph.vertex_reciprocity`, modularity :func:`hpgraph.modularity`, and the
link-prediction scores are sums over :func:`hpgraph.common_neighbors`; weighted and directed
clustering are SciPy sparse products over the converted adjacency.  Floating-point sums that
networkx accumulates node by node are accumulated here in the same order where the order is
cheap to keep; elsewhere results agree to rounding.
"""

from __future__ import annotations

import numpy as np

from ._components import _require_directed, _undirected_only
from ._registry import _nx, _weight_is_name, device, hp_algorithm, implements


def _degree(hg):
    """networkx's ``G.degree`` per vertex (undirected self-loops count twice; in + out;
    parallel edges of a multigraph each count)."""
    def make():
        out = _out_degree(hg)
        if hg.is_directed():
            return out + _in_degree(hg)
        mult = hg.multiplicity
        if mult is None:
            return out + hg.self_loops()
        loops = hg.rows() == hg.indices
        return out + np.bincount(hg.rows()[loops], weights=mult[loops],
                                 minlength=hg.n).astype(np.int64)
    return hg.cached("degree", make)


def _out_degree(hg):
    """Out-degree (the degree without self-loop doubling if undirected), parallel edges
    counted."""
    if hg.multiplicity is None:
        return np.diff(hg.indptr)
    return hg.cached("out_degree", lambda: np.bincount(
        hg.rows(), weights=hg.multiplicity, minlength=hg.n).astype(np.int64))


def _in_degree(hg):
    return hg.cached("in_degree", lambda: np.bincount(
        hg.indices, weights=hg.multiplicity, minlength=hg.n).astype(np.int64))


def _centrality_of(hg, mode):
    """:func:`hpgraph.degree_centrality` (``mode`` "all", "in" or "out") as a dict."""
    from .. import backend as _backend

    if hg.n <= 1:
        return dict.fromkeys(hg.nodes, 1)
    vals = hp_algorithm("degree_centrality")(hg.hp(), mode, backend=device())
    return dict(zip(hg.nodes, np.asarray(_backend.to_host(vals), dtype=np.float64).tolist()))


@implements("degree_centrality", needs=("degree_centrality",))
def degree_centrality(G):
    """Degree / (n - 1) per node."""
    return _centrality_of(G, "all")


@implements("in_degree_centrality", needs=("degree_centrality",))
def in_degree_centrality(G):
    """In-degree / (n - 1) per node of a directed graph."""
    _require_directed(G)
    return _centrality_of(G, "in")


@implements("out_degree_centrality", needs=("degree_centrality",))
def out_degree_centrality(G):
    """Out-degree / (n - 1) per node of a directed graph."""
    _require_directed(G)
    return _centrality_of(G, "out")


# ---------------------------------------------------------------------------------------------
# isolates


def _isolated(hg):
    return _degree(hg) == 0


@implements("isolates")
def isolates(G):
    """Nodes without neighbours (a generator)."""
    return iter(G.labels_of(np.flatnonzero(_isolated(G))))


@implements("number_of_isolates")
def number_of_isolates(G):
    """Number of nodes without neighbours."""
    return int(_isolated(G).sum())


@implements("is_isolate")
def is_isolate(G, n):
    """True when ``n`` has no neighbours (KeyError for a missing node, as networkx)."""
    return bool(_isolated(G)[G.index[n]])


# ---------------------------------------------------------------------------------------------
# clustering


def _cluster_check(b):
    G = b.arguments.get("G")
    if G is not None and G.is_multigraph():
        return "clustering of multigraphs is not implemented"
    return _weight_is_name(b)


def _clustering_array(hg):
    """:func:`hpgraph.clustering` (undirected, unweighted) as NumPy."""
    from .. import backend as _backend

    c = hp_algorithm("clustering")(hg.hp(), backend=device())
    return np.asarray(_backend.to_host(c), dtype=np.float64)


def _weighted_cube_roots(hg, weight):
    """``(W, P)``: ``cbrt(w / max w)`` as a SciPy CSR without the diagonal (networkx's
    normalised weights, whose cube roots multiply to the cube root of a triangle's product)
    and the pattern of the same entries (ones)."""
    import scipy.sparse as sp

    rows, cols = hg.rows(), hg.indices.astype(np.int64)
    if weight is None or hg.indices.shape[0] == 0:
        w = np.ones(rows.shape[0])
    else:
        w = hg.edge_values[weight].astype(np.float64)
        w = w / w.max()
    keep = rows != cols
    shape = (hg.n, hg.n)
    W = sp.csr_array((np.cbrt(w[keep]), (rows[keep], cols[keep])), shape=shape)
    P = sp.csr_array((np.ones(int(keep.sum()), dtype=np.int64), (rows[keep], cols[keep])),
                     shape=shape)
    return W, P


def _clustering_values(hg, weight):
    """Per vertex: networkx's clustering (float64) and whether its triangle sum is zero."""
    def make():
        if not hg.is_directed() and weight is None:
            c = _clustering_array(hg)
            return c, c == 0   # a coefficient is 0 exactly when the vertex has no triangle
        W, P = _weighted_cube_roots(hg, weight)
        if hg.is_directed():
            S = (W + W.T).tocsr()
            t = np.asarray((S @ S).multiply(S.T).sum(axis=1)).ravel()
            dt = np.diff(P.indptr) + np.diff(P.tocsc().indptr)
            db = np.asarray(P.multiply(P.T).sum(axis=1)).ravel()
            denom = (dt * (dt - 1) - 2 * db) * 2.0
        else:
            t = np.asarray((W @ W).multiply(W.T).sum(axis=1)).ravel()
            d = np.diff(P.indptr)
            denom = d * (d - 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(t != 0, t / np.where(denom != 0, denom, 1), 0.0)
        return c, t == 0
    return hg.cached(("clustering", weight), make)


@implements("clustering", needs=("clustering",), check=_cluster_check)
def clustering(G, nodes=None, weight=None):
    """Local clustering coefficient (dict, or a number for one node); weighted ones use the
    geometric mean of the normalised weights, directed ones Fagiolo's triangles."""
    from ._registry import _nbunch

    if weight is not None:
        G._require(weight)
    c, zero = _clustering_values(G, weight)
    vals = [0 if z else x for z, x in zip(zero.tolist(), c.tolist())]
    if nodes is not None and nodes in G:
        return vals[G.index[nodes]]
    if nodes is None:
        return dict(zip(G.nodes, vals))
    return {v: vals[G.index[v]] for v in _nbunch(G, nodes)}


@implements("average_clustering", needs=("clustering",), check=_cluster_check)
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """Mean clustering coefficient over ``nodes`` (ZeroDivisionError when there are none)."""
    c = clustering(G, nodes, weight=weight)
    c = list(c.values()) if isinstance(c, dict) else [c]
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


# ---------------------------------------------------------------------------------------------
# reciprocity


def _recip_check(b):
    G = b.arguments.get("G")
    if G is not None and not G.is_directed():
        return "reciprocity of undirected graphs is not implemented"
    return True


@implements("overall_reciprocity", needs=("reciprocity",), check=_recip_check)
def overall_reciprocity(G):
    """Fraction of edges whose reverse edge exists (:func:`hpgraph.reciprocity`)."""
    if G.indices.shape[0] == 0:
        raise _nx().NetworkXError("Not defined for empty graphs")
    return hp_algorithm("reciprocity")(G.hp(), backend=device())


@implements("reciprocity", needs=("reciprocity", "vertex_reciprocity"), check=_recip_check)
def reciprocity(G, nodes=None):
    """Reciprocity of the graph, of one node, or of each node of ``nodes`` (dict; None for a
    node without edges), from :func:`hpgraph.vertex_reciprocity`."""
    from .. import backend as _backend
    from ._registry import _nbunch

    if nodes is None:
        return overall_reciprocity(G)
    vals = np.asarray(_backend.to_host(
        hp_algorithm("vertex_reciprocity")(G.hp(), backend=device())), dtype=np.float64)

    def value(i):
        x = vals[i]
        return None if np.isnan(x) else float(x)
    if nodes in G:
        r = value(G.index[nodes])
        if r is None:
            raise _nx().NetworkXError("Not defined for isolated nodes.")
        return r
    return {v: value(G.index[v]) for v in _nbunch(G, nodes)}


# ---------------------------------------------------------------------------------------------
# link prediction (undirected)


def _non_edges(hg):
    """networkx's ``non_edges`` order for an undirected graph (same set construction)."""
    nodes = set(hg.nodes)
    labels = hg.nodes
    indptr, indices = hg.indptr, hg.indices
    while nodes:
        u = nodes.pop()
        i = hg.index[u]
        nbrs = set(labels[j] for j in indices[indptr[i]:indptr[i + 1]].tolist())
        for v in nodes - nbrs:
            yield (u, v)


def _pairs(hg, ebunch):
    nx = _nx()
    if ebunch is None:
        return list(_non_edges(hg))
    pairs = []
    for u, v in ebunch:
        if u not in hg:
            raise nx.NodeNotFound(f"Node {u} not in G.")
        if v not in hg:
            raise nx.NodeNotFound(f"Node {v} not in G.")
        pairs.append((u, v))
    return pairs


def _common_entries(hg, us, vs):
    """Common neighbours of the pairs ``(us[k], vs[k])`` (vertex ids; the pair's own nodes
    excluded): ``(k, w)`` arrays, one entry per common neighbour, plus ``|N(u) & N(v)|``
    counted with the pair's own nodes (for unions); :func:`hpgraph.common_neighbors`."""
    from .. import backend as _backend

    cn = hp_algorithm("common_neighbors")(hg.hp(), np.stack([us, vs], axis=1),
                                          backend=device())
    return tuple(np.asarray(_backend.to_host(a)) for a in cn)


def _pair_ids(hg, pairs):
    us = np.array([hg.index[u] for u, _ in pairs], dtype=np.int64)
    vs = np.array([hg.index[v] for _, v in pairs], dtype=np.int64)
    return us, vs


def _common(hg, pairs, wvec):
    """Per pair: ``(sum of wvec over common neighbours (u, v excluded), |N(u) | N(v)|)``."""
    us, vs = _pair_ids(hg, pairs)
    if us.shape[0] == 0:
        z = np.zeros(0)
        return z, z
    rows, ws, inter = _common_entries(hg, us, vs)
    common = np.bincount(rows, weights=wvec[ws], minlength=us.shape[0])
    deg = np.diff(hg.indptr)
    union = deg[us] + deg[vs] - inter
    return common, union


@implements("jaccard_coefficient", needs=("common_neighbors",))
def jaccard_coefficient(G, ebunch=None):
    """``(u, v, |common| / |union|)`` per pair (a generator)."""
    _undirected_only(G)
    pairs = _pairs(G, ebunch)
    common, union = _common(G, pairs, np.ones(G.n))
    vals = [0 if un == 0 else int(c) / int(un) for c, un in zip(common.tolist(), union.tolist())]
    return ((u, v, p) for (u, v), p in zip(pairs, vals))


@implements("adamic_adar_index", needs=("common_neighbors",))
def adamic_adar_index(G, ebunch=None):
    """``(u, v, sum of 1 / log(degree(w)))`` over common neighbours ``w`` (a generator)."""
    _undirected_only(G)
    pairs = _pairs(G, ebunch)
    deg = _degree(G).astype(float)
    with np.errstate(divide="ignore"):
        w = np.where(deg > 1, 1.0 / np.log(np.maximum(deg, 2)), np.inf)
    common, _ = _common(G, pairs, w)
    return ((u, v, p) for (u, v), p in zip(pairs, common.tolist()))


@implements("resource_allocation_index", needs=("common_neighbors",))
def resource_allocation_index(G, ebunch=None):
    """``(u, v, sum of 1 / degree(w))`` over common neighbours ``w`` (a generator)."""
    _undirected_only(G)
    pairs = _pairs(G, ebunch)
    deg = _degree(G).astype(float)
    with np.errstate(divide="ignore"):
        w = 1.0 / deg
    common, _ = _common(G, pairs, w)
    return ((u, v, p) for (u, v), p in zip(pairs, common.tolist()))


@implements("preferential_attachment")
def preferential_attachment(G, ebunch=None):
    """``(u, v, degree(u) * degree(v))`` per pair (a generator)."""
    _undirected_only(G)
    pairs = _pairs(G, ebunch)
    deg = _degree(G).tolist()
    return ((u, v, deg[G.index[u]] * deg[G.index[v]]) for u, v in pairs)


# ---------------------------------------------------------------------------------------------
# modularity


@implements("modularity", needs=("modularity",), check=_weight_is_name)
def modularity(G, communities, weight="weight", resolution=1):
    """Newman's modularity of a partition (:func:`hpgraph.modularity`; networkx's
    ``NotAPartition`` otherwise, and its ZeroDivisionError for a graph without edges)."""
    if not isinstance(communities, list):
        communities = list(communities)
    covered = {v for c in communities for v in c if v in G}
    if not len(G) == len(covered) == sum(len(c) for c in communities):
        from networkx.algorithms.community.quality import NotAPartition

        raise NotAPartition(G, communities)
    label = np.empty(G.n, dtype=np.int64)
    for k, c in enumerate(communities):
        for v in c:
            label[G.index[v]] = k
    weighted = weight is not None and weight in G.edge_values
    G_hp = G.hp(weight if weighted else None)
    w = G.edge_values[weight] if weighted else np.ones(G.indices.shape[0])
    total = w.sum() + (0 if G.is_directed() else w[G.rows() == G.indices].sum())
    if total == 0:
        raise ZeroDivisionError("float division by zero")  # networkx's 1 / m**2 with m = 0
    from ..exceptions import InvalidValue

    try:
        return hp_algorithm("modularity")(G_hp, label, resolution, weighted, backend=device())
    except InvalidValue as exc:  # a resolution hpgraph does not take (not a finite number)
        raise NotImplementedError(f"modularity: {exc}") from None
