"""networkx's degree-pair family: ``node_degree_xy``, ``average_degree_connectivity`` and
``average_neighbor_degree``.

Each is a sparse product of the adjacency with a degree vector (``A @ deg`` with or without
edge weights), done by ``numpy.bincount`` over the converted CSR.  ``bincount`` adds in entry
order, which is networkx's neighbour order, so float sums round as networkx's Python sums do;
integer results are given back as ints.
"""

from __future__ import annotations

import numpy as np

from ._registry import _nx, _weight_is_name, implements


def _entry_weights(hg, weight):
    """Per adjacency entry: the edge weight (``None``: 1), summed over parallel edges."""
    from ._matrix import _weights

    return _weights(hg, weight)


def _as_numbers(arr, integral):
    """Plain Python numbers, ints where networkx's sums of ints would be ints."""
    if integral:
        return np.rint(arr).astype(np.int64).tolist()
    return arr.tolist()


def _integral(hg, weight):
    return weight is None or hg.weights_integral(weight)


def _wdegree(hg, kind, weight):
    """networkx's ``G.degree`` / ``in_degree`` / ``out_degree`` with ``weight`` (float64)."""
    w = _entry_weights(hg, weight).astype(np.float64)
    rows, cols = hg.rows(), hg.indices
    if hg.is_directed():
        out = np.bincount(rows, weights=w, minlength=hg.n)
        if kind == "out":
            return out
        # in-degrees summed in networkx's predecessor order (same float rounding)
        from ._edge_traversal import _in_entries

        iptr, _, ient = _in_entries(hg)
        heads = np.repeat(np.arange(hg.n), np.diff(np.asarray(iptr)))
        inn = np.bincount(heads, weights=w[np.asarray(ient, dtype=np.int64)], minlength=hg.n)
        return inn if kind == "in" else out + inn
    loops = rows == cols
    return (np.bincount(rows, weights=w, minlength=hg.n)
            + np.bincount(rows[loops], weights=w[loops], minlength=hg.n))


def _xy_check(b):
    r = _weight_is_name(b)
    if r is not True:
        return r
    G = b.arguments.get("G")
    if G is not None and G.is_directed():
        for name in ("x", "y"):
            if b.arguments.get(name, "out" if name == "x" else "in") not in ("in", "out"):
                return f"{name} must be 'in' or 'out'"
    return True


@implements("node_degree_xy", check=_xy_check)
def node_degree_xy(G, x="out", y="in", weight=None, nodes=None):
    """``(degree(u), degree(v))`` for each edge ``(u, v)`` between ``nodes`` (a generator)."""
    nodes = set(G) if nodes is None else set(nodes)
    integral = _integral(G, weight)
    if G.is_directed():
        xd = _as_numbers(_wdegree(G, x, weight), integral)
        yd = _as_numbers(_wdegree(G, y, weight), integral)
    else:
        xd = yd = _as_numbers(_wdegree(G, "all", weight), integral)
    inside = np.zeros(G.n, dtype=bool)
    order = [G.index[v] for v in nodes if v in G]
    inside[order] = True
    indptr, indices = G.indptr, G.indices
    mult = G.multiplicity

    def gen():
        for u in order:
            lo, hi = int(indptr[u]), int(indptr[u + 1])
            nbrs = indices[lo:hi]
            ok = inside[nbrs]
            vs = nbrs[ok] if mult is None else np.repeat(nbrs[ok], mult[lo:hi][ok])
            du = xd[u]
            for v in vs.tolist():
                yield du, yd[v]
    return gen()


def _source_ids(G, nodes):
    from ._registry import _nbunch

    if nodes is None:
        return np.arange(G.n, dtype=np.int64)
    if nodes in G:
        return np.array([G.index[nodes]], dtype=np.int64)
    return np.array([G.index[v] for v in _nbunch(G, nodes)], dtype=np.int64)


@implements("average_degree_connectivity", check=_weight_is_name)
def average_degree_connectivity(G, source="in+out", target="in+out", nodes=None,
                                weight=None):
    """Average degree of the neighbours of the nodes of each degree (dict by degree)."""
    nx = _nx()
    directed = G.is_directed()
    if directed:
        if source not in ("in", "out", "in+out"):
            raise nx.NetworkXError('source must be one of "in", "out", or "in+out"')
        if target not in ("in", "out", "in+out"):
            raise nx.NetworkXError('target must be one of "in", "out", or "in+out"')
    elif source != "in+out" or target != "in+out":
        raise nx.NetworkXError(
            "source and target arguments are only supported for directed graphs")
    kind = {"in": "in", "out": "out", "in+out": "all"}
    sdeg = _wdegree(G, kind[source], None).astype(np.int64)
    tdeg = _wdegree(G, kind[target], None)
    wsdeg = _wdegree(G, kind[source], weight)
    w = np.ones(G.indices.shape[0]) if weight is None else \
        _entry_weights(G, weight).astype(np.float64)
    rows, cols = G.rows(), G.indices
    if directed and source == "in":  # predecessors, weighted by the edge into the node
        rows, cols = cols, rows
        order = np.argsort(rows, kind="stable")
        rows, cols, w = rows[order], cols[order], w[order]
    s = np.bincount(rows, weights=w * tdeg[cols], minlength=G.n)
    ids = _source_ids(G, nodes)
    keys = sdeg[ids]
    integral = _integral(G, weight)
    dsum: dict = {}
    dnorm: dict = {}
    for k, sv, nv in zip(keys.tolist(), _as_numbers(s[ids], integral),
                         _as_numbers(wsdeg[ids], integral)):
        dsum[k] = dsum.get(k, 0) + sv
        dnorm[k] = dnorm.get(k, 0) + nv
    return {k: avg if dnorm[k] == 0 else avg / dnorm[k] for k, avg in dsum.items()}


@implements("average_neighbor_degree", check=_weight_is_name)
def average_neighbor_degree(G, source="out", target="out", nodes=None, weight=None):
    """Average (unweighted) degree of each node's neighbours, weighted by the edges if asked."""
    nx = _nx()
    directed = G.is_directed()
    if directed:
        if source not in ("in", "out", "in+out"):
            raise nx.NetworkXError(
                f"source argument {source} must be 'in', 'out' or 'in+out'")
        if target not in ("in", "out", "in+out"):
            raise nx.NetworkXError(
                f"target argument {target} must be 'in', 'out' or 'in+out'")
    elif source != "out" or target != "out":
        raise nx.NetworkXError(
            "source and target arguments are only supported for directed graphs")
    if nodes is not None and nodes in G:
        raise NotImplementedError("a single node (networkx iterates over its degree)")
    kind = {"in": "in", "out": "out", "in+out": "all"}
    tdeg = _wdegree(G, "all" if not directed else kind[target], None)
    sdeg = _wdegree(G, "all" if not directed else kind[source], weight)
    w = np.ones(G.indices.shape[0]) if weight is None else \
        _entry_weights(G, weight).astype(np.float64)
    rows, cols = G.rows(), G.indices
    total = np.zeros(G.n)
    if not directed or "out" in source:
        total += np.bincount(rows, weights=w * tdeg[cols], minlength=G.n)
    if directed and "in" in source:
        total += np.bincount(cols, weights=w * tdeg[rows], minlength=G.n)
    ids = _source_ids(G, nodes)
    integral = _integral(G, weight)
    out = {}
    for v, t, d in zip(G.labels_of(ids), _as_numbers(total[ids], integral),
                       _as_numbers(sdeg[ids], integral)):
        out[v] = 0.0 if d == 0 else t / d
    return out


@implements("node_attribute_xy")
def node_attribute_xy(G, attribute, nodes=None):
    """``(attribute of u, attribute of v)`` for each edge ``(u, v)`` leaving ``nodes``, in
    adjacency order (parallel edges of a multigraph repeat the pair; a generator)."""
    nodes = set(G) if nodes is None else set(nodes)
    data = G.node_data
    values = [None] * G.n if data is None else [d.get(attribute, None) for d in data]
    rows = G.rows()
    keep = np.zeros(G.n, dtype=bool)
    keep[[G.index[v] for v in nodes if v in G]] = True
    sel = np.flatnonzero(keep[rows])
    us, vs = rows[sel], G.indices[sel]
    if G.multiplicity is not None:
        reps = G.multiplicity[sel]
        us, vs = np.repeat(us, reps), np.repeat(vs, reps)
    return ((values[u], values[v]) for u, v in zip(us.tolist(), vs.tolist()))
