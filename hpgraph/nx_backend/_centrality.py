"""networkx's closeness / harmonic / eigenvector / Katz centrality and the k-core subgraphs.

* closeness and harmonic: :func:`hpgraph.closeness_centrality` /
  :func:`hpgraph.harmonic_centrality` (batched BFS) for hop distances; one hpgraph SSSP per
  node with ``distance`` (and one BFS per source for harmonic centrality from ``sources``);
* eigenvector and Katz: :func:`hpgraph.eigenvector_centrality` and
  :func:`hpgraph.katz_centrality` (networkx's power iterations: same start vector, update and
  stopping rule);
* ``k_core`` / ``k_shell`` / ``k_crust`` / ``k_corona``: hpgraph's core numbers, then the
  induced subgraph returned as a networkx graph (numeric edge attributes, node and graph
  attributes kept).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._registry import _depth, _nx, _weight_is_name, device, hp_algorithm, implements


def _dist_check(b):
    d = b.arguments.get("distance")
    if callable(d):
        return "distance functions are not supported (only an edge attribute name or None)"
    return True


def _distances(hg, sid, distance, reverse=False):
    """Hop (``distance`` None) or weighted distances from ``sid``; -1 / inf where unreached."""
    if distance is None:
        return _depth(hg, sid, reverse).astype(np.float64), _depth(hg, sid, reverse) >= 0
    from ._paths import _no_negative, _sssp

    _no_negative(hg, distance, "centrality with negative distances")
    dist = _sssp(hg, sid, distance, reverse=reverse)[0]
    return dist, np.isfinite(dist)


def _hop_centrality(hg, name, ids, **kwargs):
    """``hpgraph.<name>`` (closeness or harmonic, hop distances) of the vertex ids ``ids``."""
    from .. import backend as _backend

    vals = hp_algorithm(name)(hg.hp(), vertices=ids, backend=device(), **kwargs)
    return np.asarray(_backend.to_host(vals), dtype=np.float64).tolist()


@implements("closeness_centrality", needs=("bfs", "sssp", "closeness_centrality"),
            check=_dist_check)
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    """Closeness (incoming distances on directed graphs), networkx's formula: hop distances by
    :func:`hpgraph.closeness_centrality`, weighted ones by one SSSP per node."""
    nodes = list(G.nodes) if u is None else [u]
    if distance is None:
        vals = _hop_centrality(G, "closeness_centrality", [G.index[v] for v in nodes],
                               wf_improved=wf_improved)
        return vals[0] if u is not None else dict(zip(nodes, vals))
    n = len(G)
    out = {}
    for v in nodes:
        dist, reached = _distances(G, G.index[v], distance, reverse=G.is_directed())
        d = dist[reached]
        totsp = d.sum() if distance is not None else int(d.sum())
        cnt = int(reached.sum())
        c = 0.0
        if totsp > 0.0 and n > 1:
            c = (cnt - 1.0) / totsp
            if wf_improved:
                c *= (cnt - 1.0) / (n - 1)
        out[v] = float(c)
    if u is not None:
        return out[u]
    return out


@implements("harmonic_centrality", needs=("bfs", "sssp", "harmonic_centrality"),
            check=_dist_check)
def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    """Sum of inverse distances: from every node, :func:`hpgraph.harmonic_centrality`; from
    ``sources`` or with ``distance``, one BFS / SSSP per source in networkx's accumulation
    order."""
    from ._registry import _nbunch

    nb = set(_nbunch(G, nbunch) if nbunch is not None else G.nodes)
    src = set(_nbunch(G, sources) if sources is not None else G.nodes)
    centrality = {v: 0 for v in nb}
    if distance is None and sources is None:
        targets = list(centrality)
        vals = _hop_centrality(G, "harmonic_centrality", [G.index[v] for v in targets])
        return dict(zip(targets, vals))
    transposed = len(nb) < len(src)
    if transposed:
        nb, src = src, nb
    targets = list(nb)
    tid = np.array([G.index[v] for v in targets], dtype=np.int64)
    for v in src:
        dist, reached = _distances(G, G.index[v], distance, reverse=transposed and
                                   G.is_directed())
        d = dist[tid]
        ok = reached[tid] & (d != 0)
        if transposed:
            centrality[v] += sum(1 / x for x in _py(d[ok], distance))
        else:
            for t, x in zip([targets[i] for i in np.flatnonzero(ok)], _py(d[ok], distance)):
                centrality[t] += 1 / x
    return centrality


def _py(arr, distance):
    return arr.astype(np.int64).tolist() if distance is None else arr.tolist()


# ---------------------------------------------------------------------------------------------
# power iterations: hpgraph's eigenvector and Katz centrality


def _vector(hg, d, name):
    if not isinstance(d, Mapping):
        raise NotImplementedError(f"{name} must be a dict")
    return np.array([d[v] for v in hg.nodes], dtype=np.float64)


def _power(hg, name, weight, max_iter, **kwargs):
    """``hpgraph.<name>`` on the converted graph, weighted by ``weight`` where the graph has that
    attribute (networkx's default weight 1 otherwise), as a dict of floats."""
    from .. import backend as _backend
    from ..exceptions import ConvergenceError, InvalidValue

    w = weight if weight is not None and weight in hg.edge_values else None
    try:
        x = hp_algorithm(name)(hg.hp(w), max_iter=max_iter, weighted=w is not None,
                               backend=device(), **kwargs)
    except ConvergenceError:
        raise _nx().PowerIterationFailedConvergence(max_iter) from None
    except InvalidValue as exc:  # negative weights, values networkx accepts and hpgraph not
        raise NotImplementedError(f"{name}: {exc}") from None
    return dict(zip(hg.nodes, np.asarray(_backend.to_host(x), dtype=np.float64).tolist()))


@implements("eigenvector_centrality", needs=("eigenvector_centrality",), check=_weight_is_name)
def eigenvector_centrality(G, max_iter=100, tol=1e-06, nstart=None, weight=None):
    """Eigenvector centrality (hpgraph's, networkx's power iteration ``x <- x + A^T x``)."""
    nx = _nx()
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    x0 = None
    if nstart is not None:
        if all(v == 0 for v in nstart.values()):
            raise nx.NetworkXError("initial vector cannot have all zero values")
        x0 = _vector(G, nstart, "nstart")
    return _power(G, "eigenvector_centrality", weight, max_iter, tol=tol, nstart=x0)


@implements("katz_centrality", needs=("katz_centrality",), check=_weight_is_name)
def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1e-06, nstart=None,
                    normalized=True, weight=None):
    """Katz centrality (hpgraph's, networkx's iteration ``x <- alpha A^T x + beta``)."""
    nx = _nx()
    if len(G) == 0:
        return {}
    x0 = None if nstart is None else _vector(G, nstart, "nstart")
    try:
        b = float(beta)
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node") from err
        b = _vector(G, beta, "beta")
    return _power(G, "katz_centrality", weight, max_iter, alpha=alpha, beta=b, tol=tol,
                  nstart=x0, normalized=normalized)


# ---------------------------------------------------------------------------------------------
# core subgraphs


def _core_numbers(hg, core_number):
    if core_number is not None:
        return np.array([core_number[v] for v in hg.nodes], dtype=np.int64)
    from ._analysis import core_number as cn

    return np.array(list(cn(hg).values()), dtype=np.int64)


def _induced(hg, keep):
    """``G.subgraph(nodes).copy()`` for the vertices where ``keep`` is True (networkx graph).

    networkx's subgraph views iterate the node set itself (a Python set, in its own order)
    when it is less than half of what they filter, else the graph's order; the copy inherits
    that order for its nodes and each node's neighbours, so the same rule is applied here.
    """
    nx = _nx()
    H = nx.DiGraph() if hg.is_directed() else nx.Graph()
    H.graph.update(hg.graph)
    ids = np.flatnonzero(keep)
    labels = hg.nodes
    chosen = set(hg.labels_of(ids))
    n_sel = len(chosen)
    order = [labels[i] for i in ids.tolist()] if not 2 * n_sel < hg.n else list(chosen)
    if hg.node_data is not None:
        H.add_nodes_from((v, dict(hg.node_data[hg.index[v]])) for v in order)
    else:
        H.add_nodes_from(order)
    indptr, indices = hg.indptr, hg.indices
    names = list(hg.edge_values)
    cols = [hg.edge_values[k] for k in names]
    index = hg.index
    edges = []
    for u in order:
        i = index[u]
        lo, hi = int(indptr[i]), int(indptr[i + 1])
        nbr = indices[lo:hi]
        pos = np.flatnonzero(keep[nbr]) + lo
        if 2 * n_sel < hi - lo:  # networkx iterates the node set here
            at = dict(zip(hg.labels_of(indices[pos]), pos.tolist()))
            pos = [at[v] for v in chosen if v in at]
        else:
            pos = pos.tolist()
        for p in pos:
            v = labels[int(indices[p])]
            edges.append((u, v, {k: c[p].item() for k, c in zip(names, cols)}))
    H.add_edges_from(edges)
    return H


def _max(core):
    return int(core.max()) if core.shape[0] else max([])  # ValueError like networkx's max()


@implements("k_core", needs=("k_core",))
def k_core(G, k=None, core_number=None):
    """The k-core (nodes of core number >= k; default the largest k) as a networkx graph."""
    core = _core_numbers(G, core_number)
    k = _max(core) if k is None else k
    return _induced(G, core >= k)


@implements("k_shell", needs=("k_core",))
def k_shell(G, k=None, core_number=None):
    """The k-shell (nodes of core number exactly k) as a networkx graph."""
    core = _core_numbers(G, core_number)
    k = _max(core) if k is None else k
    return _induced(G, core == k)


@implements("k_crust", needs=("k_core",))
def k_crust(G, k=None, core_number=None):
    """The k-crust (nodes of core number <= k; default the largest - 1) as a networkx graph."""
    core = _core_numbers(G, core_number)
    k = _max(core) - 1 if k is None else k
    return _induced(G, core <= k)


@implements("k_corona", needs=("k_core",))
def k_corona(G, k, core_number=None):
    """The k-corona (k-shell nodes with exactly k neighbours in the k-core)."""
    core = _core_numbers(G, core_number)
    rows = G.rows()
    nbr_in = np.bincount(rows, weights=core[G.indices] >= k, minlength=G.n)
    return _induced(G, (core == k) & (nbr_in == k))
