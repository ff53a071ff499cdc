"""networkx's link analysis, triangles, components, cores and betweenness on hpgraph."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._components import _undirected_only
from ._registry import _nbunch, _nx, _weight_is_name, device, hp_algorithm, implements

# ---------------------------------------------------------------------------------------------
# link analysis


def _node_vector(hg, d, what):
    """networkx's ``np.array([d.get(n, 0) for n in nodelist], dtype=float)``."""
    if not isinstance(d, Mapping):
        raise NotImplementedError(f"{what} must be a dict")
    return np.array([d.get(v, 0) for v in hg.nodes], dtype=float)


def _link_check(b):
    for name in ("personalization", "nstart", "dangling"):
        v = b.arguments.get(name)
        if v is not None and not isinstance(v, Mapping):
            return f"{name} must be a dict"
    return _weight_is_name(b)


@implements("pagerank", needs=("pagerank",), check=_link_check)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None,
             weight="weight", dangling=None):
    """PageRank (dict of floats)."""
    from .. import backend as _backend
    hp_pagerank = hp_algorithm("pagerank")
    from ..exceptions import ConvergenceError, InvalidValue

    nx = _nx()
    N = len(G)
    if N == 0:
        return {}
    x0 = p = dw = None
    if nstart is not None:
        x0 = _node_vector(G, nstart, "nstart")
        if x0.sum() == 0:
            raise NotImplementedError("nstart sums to zero")
        x0 /= x0.sum()
    if personalization is not None:
        p = _node_vector(G, personalization, "personalization")
        if p.sum() == 0:
            raise ZeroDivisionError
        p /= p.sum()
    if dangling is not None:
        dw = _node_vector(G, dangling, "dangling")
        if dw.sum() == 0:
            raise NotImplementedError("dangling sums to zero")
        dw /= dw.sum()
    try:
        x = hp_pagerank(G.hp(weight), damping=alpha, tol=tol, max_iter=max_iter, variant="networkx",
                        personalization=p, nstart=x0, dangling=dw, weighted=weight is not None,
                        backend=device())
    except ConvergenceError:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    except InvalidValue as exc:  # negative weights or values networkx accepts and we do not
        raise NotImplementedError(f"pagerank: {exc}") from None
    return dict(zip(G.nodes, np.asarray(_backend.to_host(x), dtype=float).tolist()))


@implements("hits", needs=("hits",), check=_link_check)
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """Hub and authority scores (two dicts of floats)."""
    from .. import backend as _backend
    hp_hits = hp_algorithm("hits")
    from ..exceptions import ConvergenceError, InvalidValue

    nx = _nx()
    if len(G) == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    weight = "weight" if "weight" in G.edge_values else None
    x0 = None
    if nstart is not None:
        x0 = _node_vector(G, nstart, "nstart")
        if x0.sum() <= 0 or (x0 < 0).any():
            raise NotImplementedError("hits: nstart must be non-negative with a positive sum")
        x0 = x0 / x0.sum()
    Ghp = G.hp(weight)
    if Ghp.num_edges == 0:
        raise NotImplementedError("hits of a graph without edges (networkx's SVD decides)")
    try:
        h, a = hp_hits(Ghp, max_iter=max_iter, tol=tol, nstart=x0, normalized=True,
                       weighted=weight is not None, backend=device())
    except ConvergenceError:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    except InvalidValue as exc:
        raise NotImplementedError(f"hits: {exc}") from None
    h = np.asarray(_backend.to_host(h), dtype=float)
    a = np.asarray(_backend.to_host(a), dtype=float)
    if not normalized:
        # networkx: the unit-norm principal right singular vector, and hubs = A @ a
        a = a / np.linalg.norm(a)
        h = Ghp.to_scipy().astype(float) @ a
    return dict(zip(G.nodes, h.tolist())), dict(zip(G.nodes, a.tolist()))


# ---------------------------------------------------------------------------------------------
# triangles


def _triangle_counts(hg):
    """Triangles through each vertex (hpgraph's triangle counting; int64 host array, cached)."""
    from .. import backend as _backend
    hp_triangles = hp_algorithm("triangles")

    def counts():
        t = hp_triangles(hg.hp(), backend=device())
        return np.asarray(_backend.to_host(t)).astype(np.int64, copy=False)
    return hg.cached("triangles", counts)


@implements("triangles", needs=("triangles",))
def triangles(G, nodes=None):
    """Triangles through each node (dict), or through one node (int)."""
    _undirected_only(G)
    t = _triangle_counts(G)
    if nodes is not None:
        if nodes in G:
            return int(t[G.index[nodes]])
        return {v: int(t[G.index[v]]) for v in _nbunch(G, nodes)}
    return dict(zip(G.nodes, t.tolist()))


def _undirected(b):
    G = b.arguments.get("G")
    if G is not None and G.is_directed():
        return "directed graphs (networkx counts successors only) are not implemented"
    return True


@implements("transitivity", needs=("triangles",), check=_undirected)
def transitivity(G):
    """3 x triangles / connected triples (0 when there are none)."""
    if len(G) == 0:
        return 0
    t = _triangle_counts(G)
    tri = 2 * int(t.sum())
    deg = np.diff(G.indptr) - G.self_loops()
    contri = int((deg * (deg - 1)).sum())
    return 0 if tri == 0 else tri / contri


# ---------------------------------------------------------------------------------------------
# components


def _components(hg):
    from .. import backend as _backend
    hp_cc = hp_algorithm("connected_components")

    def make():
        k, labels = hp_cc(hg.hp(), backend=device())
        return int(k), np.asarray(_backend.to_host(labels)).astype(np.int64, copy=False)
    return hg.cached("components", make)


@implements("connected_components", needs=("connected_components",))
def connected_components(G):
    """Sets of nodes, one per component, in networkx's order (a generator)."""
    _undirected_only(G)
    return _cc_gen(G, _components(G))


def _cc_gen(hg, comp):
    k, labels = comp
    if k == 0:
        return
    order = np.argsort(labels, kind="stable")
    bounds = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(labels, minlength=k), out=bounds[1:])
    yield from hg.label_sets(order, bounds)   # labels number components by their first node


@implements("number_connected_components", needs=("connected_components",))
def number_connected_components(G):
    """Number of connected components."""
    _undirected_only(G)
    return _components(G)[0]


@implements("is_connected", needs=("connected_components",))
def is_connected(G):
    """True when the graph has one component (NetworkXPointlessConcept for the null graph)."""
    _undirected_only(G)
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _components(G)[0] == 1


@implements("node_connected_component", needs=("connected_components",))
def node_connected_component(G, n):
    """The set of nodes in ``n``'s component."""
    _undirected_only(G)
    i = G.index[n]  # KeyError, as networkx
    _, labels = _components(G)
    return set(G.labels_of(np.flatnonzero(labels == labels[i])))


# ---------------------------------------------------------------------------------------------
# cores and centrality


@implements("core_number", needs=("k_core",))
def core_number(G):
    """Core number of each node (dict of ints)."""
    from .. import backend as _backend
    k_core = hp_algorithm("k_core")

    if G.self_loops().any():
        raise _nx().NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; Consider using "
            "G.remove_edges_from(nx.selfloop_edges(G)).")
    core = k_core(G.hp(), backend=device())
    return dict(zip(G.nodes, np.asarray(_backend.to_host(core)).astype(np.int64).tolist()))


def _bc_check(b):
    r = _weight_is_name(b)
    if r is not True:
        return r
    k = b.arguments.get("k")
    G = b.arguments.get("G")
    if k is not None and G is not None and not (isinstance(k, int) and 1 <= k <= len(G)):
        return "k outside [1, len(G)]: networkx raises its own error"
    return True


@implements("betweenness_centrality", needs=("betweenness_centrality",), check=_bc_check)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """Betweenness centrality (dict of floats)."""
    from .. import backend as _backend
    hp_bc = hp_algorithm("betweenness_centrality")

    from ..exceptions import InvalidValue

    if len(G) == 0:
        return {}
    if weight is not None and G.indices.shape[0] and G.min_weight(weight) <= 0:
        raise NotImplementedError("weighted betweenness with zero or negative weights")
    try:
        bc = hp_bc(G.hp(weight), k=k, seed=seed, normalized=normalized, endpoints=endpoints,
                   weight=None if weight is None else True, backend=device())
    except InvalidValue as exc:
        raise NotImplementedError(f"betweenness_centrality: {exc}") from None
    return dict(zip(G.nodes, np.asarray(_backend.to_host(bc), dtype=float).tolist()))


@implements("edge_betweenness_centrality", needs=("edge_betweenness_centrality",),
            check=_bc_check)
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """Betweenness of every edge (dict keyed by ``G.edges()``, in that order)."""
    from .. import backend as _backend
    from ..exceptions import InvalidValue
    from ._matrix import _edge_entries

    hp_ebc = hp_algorithm("edge_betweenness_centrality")
    _, rows, cols = _edge_entries(G)
    if rows.shape[0] == 0:
        return {}
    if weight is not None and G.min_weight(weight) <= 0:
        raise NotImplementedError("edge betweenness with zero or negative weights")
    try:
        res = hp_ebc(G.hp(weight), k=k, normalized=normalized,
                     weight=None if weight is None else True, seed=seed, backend=device())
    except InvalidValue as exc:
        raise NotImplementedError(f"edge_betweenness_centrality: {exc}") from None
    src = np.asarray(_backend.to_host(res.source), dtype=np.int64)
    dst = np.asarray(_backend.to_host(res.target), dtype=np.int64)
    val = np.asarray(_backend.to_host(res.centrality), dtype=np.float64)
    n = G.n
    keys = src * n + dst
    order = np.argsort(keys, kind="stable")
    a, b = rows, cols
    if not G.is_directed():
        a, b = np.minimum(rows, cols), np.maximum(rows, cols)
    pos = order[np.searchsorted(keys[order], a * n + b)]
    return dict(zip(zip(G.labels_of(rows), G.labels_of(cols)), val[pos].tolist()))
