"""networkx's weak / strong components, DAG order and depth-first search on the converted graph.

* Weak components: hpgraph's FastSV connected components (directed graphs are followed both
  ways), numbered by each component's first node, i.e. networkx's order.
* Strong components: :func:`hpgraph.strongly_connected_components`; the components are yielded
  sinks first, like networkx, by ordering the condensation with
  :func:`hpgraph.topological_generations` (on its reversed edges).
* Topological generations: :func:`hpgraph.topological_generations` gives every node's
  generation; the order within a generation is networkx's (a child joins the generation after
  its last parent, in the order of the decrement that freed it), rebuilt on the host from the
  adjacency in networkx's neighbour order, one vectorised step per generation.
* Depth-first search: :func:`hpgraph.csgraph.depth_first_order` on the adjacency stored in
  networkx's neighbour order, which visits exactly networkx's recursive preorder.
"""

from __future__ import annotations

import numpy as np

from ._order import _expand
from ._registry import _neighbors_source, _no_sort_neighbors, _nx, device, hp_algorithm, implements

NOT_UNDIRECTED = "not implemented for undirected type"
NOT_DIRECTED = "not implemented for directed type"


def _require_directed(hg):
    if not hg.is_directed():
        raise _nx().NetworkXNotImplemented(NOT_UNDIRECTED)


def _undirected_only(hg):
    if hg.is_directed():
        raise _nx().NetworkXNotImplemented(NOT_DIRECTED)


def _scipy_adj(hg):
    """The adjacency as a SciPy CSR in networkx's neighbour order (cached)."""
    def make():
        import scipy.sparse as sp

        # float64 data: SciPy converts other dtypes with a copy that sorts the column indices,
        # which would lose networkx's neighbour order
        return sp.csr_array((np.ones(hg.indices.shape[0]), hg.indices,
                             hg.indptr), shape=(hg.n, hg.n))
    return hg.cached("scipy_adj", make)


# ---------------------------------------------------------------------------------------------
# weak components


def _weak(hg):
    from ._analysis import _components

    return _components(hg)


@implements("weakly_connected_components", needs=("connected_components",))
def weakly_connected_components(G):
    """Weak components of a directed graph (sets, networkx's order; a generator)."""
    from ._analysis import _cc_gen

    _require_directed(G)
    return _cc_gen(G, _weak(G))


@implements("number_weakly_connected_components", needs=("connected_components",))
def number_weakly_connected_components(G):
    """Number of weak components of a directed graph."""
    _require_directed(G)
    return _weak(G)[0]


@implements("is_weakly_connected", needs=("connected_components",))
def is_weakly_connected(G):
    """True when the directed graph has one weak component."""
    _require_directed(G)
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept(
            "Connectivity is undefined for the null graph.")
    return _weak(G)[0] == 1


# ---------------------------------------------------------------------------------------------
# strong components


def _strong(hg):
    """(number, labels) with components numbered sinks first (a reverse topological order)."""
    def make():
        from .. import backend as _backend

        k, labels = hp_algorithm("strongly_connected_components")(hg.hp(), backend=device())
        labels = np.asarray(_backend.to_host(labels), dtype=np.int64)
        if k > 1:  # order the condensation: a component after every component it reaches
            rows = hg.rows()
            cu, cv = labels[rows], labels[hg.indices]
            cross = cu != cv
            order = _topo_ids(k, cv[cross], cu[cross])  # reversed edges: sinks first
            rank = np.empty(k, dtype=np.int64)
            rank[order] = np.arange(k)
            labels = rank[labels]
        return int(k), labels
    return hg.cached("strong", make)


def _topo_ids(k, src, dst):
    """A topological order of the DAG on ``k`` vertices with edges ``src -> dst`` (by
    generation, then by id)."""
    from ..graph import Graph

    dag = Graph.from_edges(src, dst, num_vertices=k, directed=True, backend="cpu")
    return hp_algorithm("topological_sort")(dag, backend=device(), to="numpy")


@implements("strongly_connected_components", needs=("strongly_connected_components",
                                                  "topological_sort"))
def strongly_connected_components(G):
    """Strong components of a directed graph (sets, sinks first; a generator)."""
    _require_directed(G)
    return _strong_gen(G, _strong(G))


def _strong_gen(hg, comp):
    from ._analysis import _cc_gen

    yield from _cc_gen(hg, comp)


@implements("number_strongly_connected_components", needs=("strongly_connected_components",
                                                         "topological_sort"))
def number_strongly_connected_components(G):
    """Number of strong components of a directed graph."""
    _require_directed(G)
    return _strong(G)[0]


@implements("is_strongly_connected", needs=("strongly_connected_components",
                                            "topological_sort"))
def is_strongly_connected(G):
    """True when the directed graph has one strong component."""
    _require_directed(G)
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept(
            "Connectivity is undefined for the null graph.")
    return _strong(G)[0] == 1


def is_connected(G):
    """``is_connected`` for internal use (the registered one lives in :mod:`._analysis`)."""
    from ._analysis import is_connected as cc

    return cc(G)


# ---------------------------------------------------------------------------------------------
# DAG


def _generations(hg):
    """networkx's topological generations (lists of ids) and whether every node was reached.

    hpgraph gives each node's generation; networkx appends a child to the next generation when
    the decrement of its last in-edge frees it, i.e. at the child's last entry in the adjacency
    lists of the current generation read in order, so each generation is ordered by that.
    """
    def make():
        from .. import backend as _backend

        _, gen = hp_algorithm("topological_generations")(hg.hp(), backend=device())
        gen = np.asarray(_backend.to_host(gen), dtype=np.int64)
        indptr, indices = hg.indptr, hg.indices.astype(np.int64)
        cur = np.flatnonzero(gen == 0)
        gens = []
        while cur.shape[0]:
            gens.append(cur)
            cols, _ = _expand(indptr, indices, cur)
            cols = cols[gen[cols] == len(gens)]
            # last occurrence of every child: first occurrence in the reversed list
            uniq, first_rev = np.unique(cols[::-1], return_index=True)
            cur = uniq[np.argsort(cols.shape[0] - 1 - first_rev, kind="stable")]
        return gens, bool((gen >= 0).all())
    return hg.cached("generations", make)


@implements("topological_generations", needs=("topological_generations",))
def topological_generations(G):
    """Lists of nodes, each generation after its parents' (a generator)."""
    return _gen_gen(G)


def _gen_gen(hg):
    nx = _nx()
    if not hg.is_directed():
        raise nx.NetworkXError("Topological sort not defined on undirected graphs.")
    gens, complete = _generations(hg)
    for g in gens:
        yield hg.labels_of(g)
    if not complete:
        raise nx.NetworkXUnfeasible("Graph contains a cycle or graph changed during iteration")


@implements("topological_sort", needs=("topological_generations",))
def topological_sort(G):
    """Nodes in networkx's topological order (a generator)."""
    return _sort_gen(G)


def _sort_gen(hg):
    for g in _gen_gen(hg):
        yield from g


@implements("is_directed_acyclic_graph", needs=("topological_generations",))
def is_directed_acyclic_graph(G):
    """True for a directed graph without cycles."""
    return G.is_directed() and _generations(G)[1]


# ---------------------------------------------------------------------------------------------
# depth-first search


def _dfs_check(b):
    return _no_sort_neighbors(b)


def _labeled(hg, source, depth_limit, kind):
    """With a ``depth_limit``: the ``kind`` edges of the depth-limited search
    (:func:`hpgraph.depth_first_events` through :func:`._edge_traversal.dfs_labeled_edges`, as
    networkx derives them)."""
    from ._edge_traversal import dfs_labeled_edges

    return ((u, v) for u, v, d in dfs_labeled_edges(hg, source, depth_limit) if d == kind)


def _dfs_forest(hg, source):
    """``[(preorder ids, predecessor array)]`` per root, networkx's ``dfs_edges`` roots."""
    from ..csgraph import depth_first_order

    if source is None:
        roots = range(hg.n)
    else:
        roots = [_neighbors_source(hg, source)]
    A = _scipy_adj(hg)
    visited = np.zeros(hg.n, dtype=bool)
    out = []
    for r in roots:
        if visited[r]:
            continue
        order, pred = depth_first_order(A, r, directed=True, return_predecessors=True)
        if hg.is_directed() and visited[order].any():
            # later roots must not enter vertices visited from earlier ones: drop those columns
            import scipy.sparse as sp

            keep = ~visited[hg.indices]
            counts = np.bincount(hg.rows()[keep], minlength=hg.n)
            ptr = np.zeros(hg.n + 1, dtype=np.int64)
            np.cumsum(counts, out=ptr[1:])
            Ar = sp.csr_array((np.ones(int(keep.sum())), hg.indices[keep], ptr),
                              shape=(hg.n, hg.n))
            order, pred = depth_first_order(Ar, r, directed=True, return_predecessors=True)
        visited[order] = True
        out.append((order.astype(np.int64), pred))
    return out


def _dfs_edge_ids(hg, source):
    for order, pred in _dfs_forest(hg, source):
        if order.shape[0] > 1:
            yield order[1:], pred[order[1:]]


@implements("dfs_edges", needs=("depth_first_events",), check=_dfs_check)
def dfs_edges(G, source=None, depth_limit=None, *, sort_neighbors=None):
    """Tree edges of networkx's depth-first search (a generator)."""
    return _dfs_edges_gen(G, source, depth_limit)


def _dfs_edges_gen(hg, source, depth_limit=None):
    if depth_limit is not None:
        yield from ((u, v) for u, v in _labeled(hg, source, depth_limit, "forward") if u != v)
        return
    for child, parent in _dfs_edge_ids(hg, source):
        yield from zip(hg.labels_of(parent), hg.labels_of(child))


@implements("dfs_tree", needs=("depth_first_events",), check=_dfs_check)
def dfs_tree(G, source=None, depth_limit=None, *, sort_neighbors=None):
    """The depth-first tree (or forest) as a ``networkx.DiGraph``."""
    T = _nx().DiGraph()
    if source is None:
        T.add_nodes_from(G.nodes)
    else:
        T.add_node(source)
    T.add_edges_from(_dfs_edges_gen(G, source, depth_limit))
    return T


@implements("dfs_predecessors", needs=("depth_first_events",), check=_dfs_check)
def dfs_predecessors(G, source=None, depth_limit=None, *, sort_neighbors=None):
    """``{node: parent}`` of the depth-first tree."""
    return {t: s for s, t in _dfs_edges_gen(G, source, depth_limit)}


@implements("dfs_successors", needs=("depth_first_events",), check=_dfs_check)
def dfs_successors(G, source=None, depth_limit=None, *, sort_neighbors=None):
    """``{node: [children]}`` of the depth-first tree."""
    d = {}
    for s, t in _dfs_edges_gen(G, source, depth_limit):
        d.setdefault(s, []).append(t)
    return d


@implements("dfs_preorder_nodes", needs=("depth_first_events",), check=_dfs_check)
def dfs_preorder_nodes(G, source=None, depth_limit=None, *, sort_neighbors=None):
    """Nodes in depth-first preorder (a generator)."""
    if depth_limit is not None:
        return (v for _, v in _labeled(G, source, depth_limit, "forward"))
    return _pre_gen(G, source)


def _pre_gen(hg, source):
    for order, _ in _dfs_forest(hg, source):
        yield from hg.labels_of(order)


@implements("dfs_postorder_nodes", needs=("depth_first_events",), check=_dfs_check)
def dfs_postorder_nodes(G, source=None, depth_limit=None, *, sort_neighbors=None):
    """Nodes in depth-first postorder (a generator)."""
    if depth_limit is not None:
        return (v for _, v in _labeled(G, source, depth_limit, "reverse"))
    return _post_gen(G, source)


def _post_gen(hg, source):
    for order, pred in _dfs_forest(hg, source):
        post = []
        stack = []
        for v, p in zip(order.tolist(), pred[order].tolist()):
            while stack and stack[-1] != p:
                post.append(stack.pop())
            stack.append(v)
        post.extend(reversed(stack))
        yield from hg.labels_of(post)
