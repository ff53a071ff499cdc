"""networkx's ``square_clustering`` and ``edge_boundary`` on the converted adjacency.

Square clustering divides the integer counts of :func:`hpgraph.algorithms.square_counts`
(squares and potential squares per node, from one sparse product of the simple pattern) as
networkx does, so the result is exactly networkx's.  ``edge_boundary`` lists the converted
graph's entries of a node set in networkx's ``G.edges(nbunch)`` order.
"""

from __future__ import annotations

import numpy as np

from ._registry import device, hp_algorithm, implements


def _sq_check(b):
    G = b.arguments.get("G")
    if G is not None and G.is_directed():
        return "directed square clustering is not implemented"
    return True


def _square_values(hg):
    """``(squares, potential)`` per vertex, int64: :func:`hpgraph.algorithms.square_counts`."""
    def make():
        from .. import backend as _backend

        res = hp_algorithm("square_counts")(hg.hp(), backend=device())
        return tuple(np.asarray(_backend.to_host(a)) for a in res)
    return hg.cached("square_values", make)


@implements("square_clustering", needs=("square_counts",), check=_sq_check)
def square_clustering(G, nodes=None):
    """Squares through each node over the squares that could close (dict, or one value); 0
    (an int, as networkx) where no square can close."""
    from ._registry import _nbunch

    squares, potential = _square_values(G)
    ids = range(G.n) if nodes is None else [G.index[v] for v in _nbunch(G, nodes)] \
        if nodes not in G else [G.index[nodes]]
    out = {}
    labels = G.nodes
    for i in ids:
        out[labels[i]] = 0 if potential[i] <= 0 else int(squares[i]) / int(potential[i])
    if nodes is not None and nodes in G:
        return out[nodes]
    return out


def _eb_check(b):
    if b.arguments.get("data", False) is not False:
        return "edge data is not returned by hpgraph (data must be False)"
    return True


@implements("edge_boundary", check=_eb_check)
def edge_boundary(G, nbunch1, nbunch2=None, data=False, keys=False, default=None):
    """Edges with one end in ``nbunch1`` (and the other in ``nbunch2``, else outside): a
    generator in networkx's ``G.edges(nbunch1)`` order."""
    nset1 = {v for v in nbunch1 if v in G}
    in1 = np.zeros(G.n, dtype=bool)
    order = [G.index[v] for v in nset1]  # the set's iteration order, as networkx's
    in1[order] = True
    if nbunch2 is None:
        in2 = ~in1
    else:
        in2 = np.zeros(G.n, dtype=bool)
        in2[[G.index[v] for v in set(nbunch2) if v in G]] = True
    labels = G.nodes
    indptr, indices = G.indptr, G.indices
    out = []
    seen = np.zeros(G.n, dtype=bool)
    directed = G.is_directed()
    for u in order:
        nb = indices[indptr[u]:indptr[u + 1]]
        if not directed:
            nb = nb[~seen[nb]]  # an undirected edge between two nodes of nbunch1 once
        if nbunch2 is None:
            ok = in1[u] ^ in1[nb]
        else:
            ok = (in1[u] & in2[nb]) | (in1[nb] & in2[u])
        lu = labels[u]
        if G.edge_keys is None:
            out.extend((lu, labels[v]) for v in nb[ok].tolist())
        else:  # a multigraph: each parallel edge (with its key when ``keys``)
            ent = np.arange(indptr[u], indptr[u + 1])
            if not directed:
                ent = ent[~seen[indices[ent]]]
            for e, v in zip(ent[ok].tolist(), nb[ok].tolist()):
                for k in G.edge_keys[e]:
                    out.append((lu, labels[v], k) if keys else (lu, labels[v]))
        seen[u] = True
    return iter(out)
