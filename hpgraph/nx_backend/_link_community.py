"""networkx's community-aware link prediction (Soundarajan-Hopcroft, within/inter-cluster).

The common neighbours of all pairs come from :func:`hpgraph.common_neighbors` (as for
``jaccard_coefficient``); each common neighbour is then compared with the
pair's community by integer codes of the ``community`` node attribute.  As in networkx the
scores are a generator, and a node without community information raises
``NetworkXAlgorithmError`` when its pair is reached.
"""

from __future__ import annotations

import numpy as np

from ._components import _undirected_only
from ._measures import _common_entries, _degree, _pair_ids, _pairs
from ._registry import _nx, implements

_MISSING = -1


def _codes(hg, community):
    """Integer code of each node's community (``_MISSING`` where the node has none)."""
    def make():
        data = hg.node_data
        codes = np.full(hg.n, _MISSING, dtype=np.int64)
        if data is None:
            return codes
        table: dict = {}
        for i, d in enumerate(data):
            if community in d:
                codes[i] = table.setdefault(d[community], len(table))
        return codes
    return hg.cached(("community_codes", community), make)


def _prepare(G, ebunch, community):
    """Pairs, their ids, each common neighbour ``(k, w)`` and the community codes."""
    nx = _nx()
    _undirected_only(G)
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")
    pairs = _pairs(G, ebunch)
    codes = _codes(G, community)
    us, vs = _pair_ids(G, pairs)
    if us.shape[0]:
        k, w, _ = _common_entries(G, us, vs)
    else:
        k = w = np.zeros(0, dtype=np.int64)
    return pairs, us, vs, k, w, codes


def _scores(G, ebunch, community, score):
    """``(u, v, score(...))`` per pair, raising for a missing community where networkx does."""
    nx = _nx()
    pairs, us, vs, k, w, codes = _prepare(G, ebunch, community)
    cu, cv = codes[us], codes[vs]
    same = (cu == cv) & (cu != _MISSING)
    within = codes[w] == cu[k]
    bad_w = np.bincount(k, weights=codes[w] == _MISSING, minlength=us.shape[0]) > 0
    values = score(us.shape[0], k, w, within, same)

    def gen():
        for i, (u, v) in enumerate(pairs):
            for x, c in ((u, cu[i]), (v, cv[i])):
                if c == _MISSING:
                    raise nx.NetworkXAlgorithmError(
                        f"No community information available for Node {x}")
            if same[i] and bad_w[i]:
                x = G.nodes[int(w[(k == i) & (codes[w] == _MISSING)][0])]
                raise nx.NetworkXAlgorithmError(
                    f"No community information available for Node {x}")
            yield (u, v, values[i])
    return gen()


@implements("cn_soundarajan_hopcroft", needs=("common_neighbors",))
def cn_soundarajan_hopcroft(G, ebunch=None, community="community"):
    """Common neighbours, plus those in the pair's community when both share it."""
    def score(p, k, w, within, same):
        n_common = np.bincount(k, minlength=p)
        n_within = np.bincount(k, weights=within, minlength=p).astype(np.int64)
        return (n_common + np.where(same, n_within, 0)).tolist()
    return _scores(G, ebunch, community, score)


@implements("ra_index_soundarajan_hopcroft", needs=("common_neighbors",))
def ra_index_soundarajan_hopcroft(G, ebunch=None, community="community"):
    """Sum of ``1 / degree(w)`` over the common neighbours in the pair's shared community."""
    deg = _degree(G).astype(np.float64)

    def score(p, k, w, within, same):
        s = np.bincount(k, weights=np.where(within, 1.0 / deg[w], 0.0), minlength=p)
        return [x if ok else 0 for x, ok in zip(s.tolist(), same.tolist())]
    return _scores(G, ebunch, community, score)


@implements("within_inter_cluster", needs=("common_neighbors",))
def within_inter_cluster(G, ebunch=None, delta=0.001, community="community"):
    """Common neighbours within the pair's community over those outside it (plus ``delta``)."""
    if delta <= 0:
        raise _nx().NetworkXAlgorithmError("Delta must be greater than zero")

    def score(p, k, w, within, same):
        n_within = np.bincount(k, weights=within, minlength=p).astype(np.int64)
        n_inter = np.bincount(k, minlength=p) - n_within
        return [int(a) / (int(b) + delta) if ok else 0
                for a, b, ok in zip(n_within.tolist(), n_inter.tolist(), same.tolist())]
    return _scores(G, ebunch, community, score)
