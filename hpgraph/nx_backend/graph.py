"""``HpGraph``: what a networkx graph becomes when networkx dispatches to hpgraph.

An :class:`HpGraph` keeps

* the node labels (``nodes[i]`` is vertex ``i``, in networkx's node order) and a label -> id dict;
* the adjacency **in networkx's neighbour order** (``indptr``/``indices``, host NumPy): BFS
  results whose order networkx's tests check (``bfs_edges``, ``bfs_layers``,
  ``single_source_shortest_path_length``...) are rebuilt from it;
* the numeric edge attributes asked for (``edge_values[attr]``, same order);
* on first use, one hpgraph :class:`~hpgraph.graph.Graph` per weight attribute (columns sorted,
  as hpgraph's CSR requires), plus a small cache of derived results.

NetworkX stores the HpGraph it gets from :func:`convert_from_nx` in ``G.__networkx_cache__``
(when ``nx.config.cache_converted_graphs`` is on, the default), so calls on an unchanged graph
do not convert again; networkx clears that cache when the graph is changed through its methods.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import threading
import time
import weakref

import numpy as np

from ._convert import (all_numeric_attrs, edge_dicts, edge_values, numeric_array, public_view,
                       shares_edge_dicts, twin_edge_values)

__all__ = ["HpGraph", "convert_from_nx", "convert_to_nx", "from_networkx"]

_logger = logging.getLogger("hpgraph.nx_backend")

#: Sets built per batch by :meth:`HpGraph.label_sets` (the caller's objects frozen meanwhile).
_SET_BATCH = 16384


_gc_lock = threading.Lock()
_gc_state = {"depth": 0, "frozen": False, "enabled": True}


@contextlib.contextmanager
def _gc_paused():
    """Keep garbage collection off the caller's objects meanwhile: they are frozen (moved out
    of the collector's generations, :func:`gc.freeze`) and given back after, so that a
    collection triggered by hpgraph's allocations walks only those -- a full collection
    walks the whole networkx graph (R-MAT 18: ~1 s on a 2-core host).  Nested and concurrent
    uses share the outermost one.  An application that froze objects itself keeps them
    frozen: then collection is only paused.  (Unfreezing puts every object in the oldest
    generation, so the caller's young garbage waits for the next full collection.)"""
    with _gc_lock:
        if _gc_state["depth"] == 0:
            _gc_state["frozen"] = not gc.get_freeze_count()
            _gc_state["enabled"] = gc.isenabled()
            if _gc_state["frozen"]:
                gc.freeze()
            else:
                gc.disable()
        _gc_state["depth"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_state["depth"] -= 1
            if _gc_state["depth"] == 0:
                if _gc_state["frozen"]:
                    gc.unfreeze()
                elif _gc_state["enabled"]:
                    gc.enable()


class HpGraph:
    """A networkx graph converted for hpgraph (directed or undirected).

    A multigraph is converted with its parallel edges collapsed: one adjacency entry per
    neighbour (networkx's neighbour order) whose edge values are the *smallest* over the
    parallel edges, which is what networkx's shortest-path, traversal and component functions
    see.  Only those functions accept a converted multigraph
    (:data:`hpgraph.nx_backend.interface.MULTIGRAPH_OK`).

    Build one with :func:`from_networkx` (or let networkx do it when it dispatches).  It is
    immutable: a changed networkx graph must be converted again.

    Attributes
    ----------
    nodes : list
        Node labels in networkx's order; vertex ``i`` of hpgraph is ``nodes[i]``.
    indptr, indices : numpy.ndarray of int64 / index dtype
        Out-neighbours (successors) of each vertex in networkx's iteration order.
    edge_values : dict
        ``{attribute: array}``, one value per entry of ``indices``.
    graph : dict
        Graph attributes (when they were preserved).
    """

    __networkx_backend__ = "hpgraph"

    def __init__(self, nodes, index, indptr, indices, edge_values, directed, *, graph=None,
                 node_data=None, source=None, multigraph=False):
        self.nodes = nodes
        self.index = index
        self.indptr = indptr
        self.indices = indices
        self.edge_values = dict(edge_values)
        self._directed = bool(directed)
        self._multigraph = bool(multigraph)
        self.graph = {} if graph is None else graph
        self.node_data = node_data
        self._source = None if source is None else weakref.ref(source)
        self._identity = None
        self._cache = {}
        self.__networkx_cache__ = {}
        #: a converted multigraph: its number of edges with the parallel ones (None otherwise)
        self.multi_edges = None
        #: a converted multigraph: the number of parallel edges per adjacency entry (int64)
        self.multiplicity = None
        #: a converted multigraph: the edge keys of each adjacency entry (lists, networkx's order)
        self.edge_keys = None
        #: a converted multigraph: ``{attribute: array}``, the sum of the values over the
        #: parallel edges of each adjacency entry (what networkx's matrices and degrees add up)
        self.edge_sums = {}

    # -- the parts of the networkx graph API that networkx's dispatcher and decorators use --

    def is_directed(self) -> bool:
        return self._directed

    def is_multigraph(self) -> bool:
        return self._multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        """Edges as networkx counts them (an undirected edge once)."""
        m = int(self.indices.shape[0])
        if self._directed:
            return m
        loops = int(self.self_loops().sum())
        return (m - loops) // 2 + loops

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, label) -> bool:
        try:
            return label in self.index
        except TypeError:
            return False

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        attrs = ", ".join(map(repr, self.edge_values)) or "none"
        return (f"HpGraph({len(self.nodes)} nodes, {self.number_of_edges()} edges, {kind}, "
                f"edge attributes: {attrs})")

    # -- ids and labels ---------------------------------------------------------------------

    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def identity_labels(self) -> bool:
        """True when the labels are exactly the ints ``0..n-1`` in order (no mapping needed)."""
        if self._identity is None:
            nodes = self.nodes
            n = len(nodes)
            self._identity = n == 0 or (type(nodes[0]) is int and type(nodes[-1]) is int
                                        and nodes[0] == 0 and nodes[-1] == n - 1
                                        and all(type(v) is int for v in nodes)
                                        and nodes == list(range(n)))
        return self._identity

    def label_sets(self, order, bounds):
        """The sets of labels of ``order[bounds[c]:bounds[c + 1]]`` for every group ``c``,
        yielded in batches built with the caller's objects kept out of garbage collection
        (:func:`_gc_paused`): otherwise the collections their allocations trigger walk the
        caller's whole networkx graph (R-MAT 18: the 88,370 component sets took 0.95 s with
        such collections, 0.23 s without)."""
        members = self.labels_of(order)
        b = np.asarray(bounds).tolist()
        for lo in range(0, len(b) - 1, _SET_BATCH):
            hi = min(len(b) - 1, lo + _SET_BATCH)
            with _gc_paused():
                batch = [set(members[b[c]:b[c + 1]]) for c in range(lo, hi)]
            yield from batch

    def labels_of(self, ids) -> list:
        """Labels of vertex ids (a 1-D int array or list), as a list."""
        ids = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
        if self.identity_labels:
            return ids
        return list(map(self.nodes.__getitem__, ids))

    def id_of(self, label) -> int:
        """Vertex id of a label (KeyError when it is not a node)."""
        return self.index[label]

    # -- derived structure (cached; the graph never changes) --------------------------------

    def cached(self, key, make):
        """``make()`` once per ``key``."""
        try:
            return self._cache[key]
        except KeyError:
            val = self._cache[key] = make()
            return val

    def rows(self):
        """Source vertex of each adjacency entry (networkx order), int64."""
        return self.cached("rows", lambda: np.repeat(np.arange(self.n, dtype=np.int64),
                                                     np.diff(self.indptr)))

    def self_loops(self):
        """Bool per vertex: has a self-loop."""
        def make():
            loops = np.zeros(self.n, dtype=bool)
            r = self.rows()
            loops[r[r == self.indices]] = True
            return loops
        return self.cached("self_loops", make)

    def nx_adjacency(self, reverse: bool = False):
        """``(indptr, indices)`` of successors (or predecessors) in networkx's neighbour order.

        Predecessor order is read from the original networkx graph (``G._pred``) while it
        exists; otherwise it is the order of the transposed successor lists (stable by source).
        """
        if not reverse or not self._directed:
            return self.indptr, self.indices
        return self.cached("pred_adjacency", self._pred_adjacency)

    def _pred_adjacency(self):
        G = self._source() if self._source is not None else None
        n = self.n
        if G is not None and hasattr(G, "_pred") and len(G) == n:
            pred = public_view(G, "pred", "_pred")
            index = self.index
            try:
                counts = np.fromiter((len(pred[v]) for v in self.nodes), dtype=np.int64, count=n)
                m = int(counts.sum())
                if m == self.indices.shape[0]:
                    ind = np.fromiter(map(index.__getitem__,
                                          itertools.chain.from_iterable(pred[v] for v in self.nodes)),
                                      dtype=self.indices.dtype, count=m)
                    indptr = np.zeros(n + 1, dtype=np.int64)
                    np.cumsum(counts, out=indptr[1:])
                    return indptr, ind
            except KeyError:  # the graph changed after conversion: use the fallback
                pass
        order = np.argsort(self.indices, kind="stable")
        ind = self.rows()[order].astype(self.indices.dtype)
        counts = np.bincount(self.indices, minlength=n)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return indptr, ind

    def _sort_perm(self):
        """Permutation sorting each row by column (None when rows are sorted already)."""
        def make():
            from ..formats._base import rows_sorted, sort_perm

            if rows_sorted(np, self.indptr, self.indices):
                return None
            return sort_perm(np, self.rows(), self.indices, self.n, self.n)
        return self.cached("sort_perm", make)

    def has_weights(self, weight) -> bool:
        return weight is None or weight in self.edge_values

    def _require(self, weight):
        if weight is not None and weight not in self.edge_values:
            raise NotImplementedError(
                f"this HpGraph was converted without the edge attribute {weight!r}; convert the "
                f"networkx graph with hpgraph.nx_backend.from_networkx(G, weight={weight!r})")

    def weights_integral(self, weight) -> bool:
        """True when the values of ``weight`` are integers (networkx then returns int lengths)."""
        if weight is None:
            return True
        self._require(weight)
        return self.edge_values[weight].dtype.kind in "iub"

    def min_weight(self, weight):
        """Smallest value of ``weight`` (None for no edges; 1 for unweighted)."""
        if weight is None:
            return 1 if self.indices.shape[0] else None
        self._require(weight)
        v = self.edge_values[weight]
        return v.min().item() if v.shape[0] else None

    def hp(self, weight=None):
        """The hpgraph :class:`~hpgraph.graph.Graph` with ``weight``'s values (None: unweighted).

        Raises
        ------
        NotImplementedError
            This HpGraph was converted without that edge attribute.
        """
        self._require(weight)
        return self.cached(("hp", weight), lambda: self._build_hp(weight))

    def _build_hp(self, weight):
        from .. import dtypes
        from ..formats import CSR
        from ..graph import Graph

        n = self.n
        m = int(self.indices.shape[0])
        idt = np.dtype(dtypes.index_dtype(n, m))
        perm = self._sort_perm()
        ind = self.indices if perm is None else self.indices[perm]
        vals = None
        if weight is not None:
            vals = self.edge_values[weight]
            if vals.dtype.kind == "b":
                vals = vals.astype(np.int64)
            vals = vals if perm is None else vals[perm]
        csr = CSR._new(self.indptr.astype(idt), np.ascontiguousarray(ind, dtype=idt), vals, (n, n))
        return Graph._new(csr, self._directed)

    def hp_reverse(self, weight=None):
        """The reversed graph (edges ``v -> u``) as an hpgraph Graph; the graph itself if undirected."""
        G = self.hp(weight)
        if not self._directed:
            return G
        from ..graph import Graph

        return self.cached(("hp_reverse", weight), lambda: Graph._new(G.AT, True))

    # -- back to networkx ---------------------------------------------------------------------

    def to_networkx(self):
        """A ``networkx.Graph`` / ``DiGraph`` with the nodes, edges and kept attributes (a
        ``MultiGraph`` / ``MultiDiGraph`` with the parallel edges collapsed for a converted
        multigraph)."""
        import networkx as nx

        if self._multigraph:
            H = nx.MultiDiGraph() if self._directed else nx.MultiGraph()
        else:
            H = nx.DiGraph() if self._directed else nx.Graph()
        H.graph.update(self.graph)
        if self.node_data is not None:
            H.add_nodes_from((v, dict(d)) for v, d in zip(self.nodes, self.node_data))
        else:
            H.add_nodes_from(self.nodes)
        src = self.labels_of(self.rows())
        dst = self.labels_of(self.indices)
        if self.edge_values:
            names = list(self.edge_values)
            cols = [self.edge_values[k].tolist() for k in names]
            H.add_edges_from((u, v, dict(zip(names, vals)))
                             for u, v, vals in zip(src, dst, zip(*cols)))
        else:
            H.add_edges_from(zip(src, dst))
        return H


# ---------------------------------------------------------------------------------------------
# conversion


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None):
    """Convert a networkx graph to an :class:`HpGraph` (networkx's backend API).

    Parameters
    ----------
    G : networkx.Graph or networkx.DiGraph (or an HpGraph, returned as is)
    edge_attrs : dict, optional
        ``{attribute: default}`` of the numeric edge attributes to keep (networkx passes
        ``{"weight": 1}`` for a weighted call).  None: none (unweighted).
    node_attrs : dict, optional
        Node attributes to keep (only for :meth:`HpGraph.to_networkx`; no algorithm reads them).
    preserve_edge_attrs : bool
        Keep every numeric edge attribute (missing values default to 1).
    preserve_node_attrs, preserve_graph_attrs : bool
        Keep node data / ``G.graph``.
    name, graph_name : str, optional
        The function and argument being converted for (unused).

    Returns
    -------
    HpGraph

    Raises
    ------
    NotImplementedError
        Edge attributes that are not numbers.  networkx then falls back to its
        own implementation (with ``nx.config.fallback_to_nx``) or to the next backend.
    """
    if isinstance(G, HpGraph):
        return G
    t0 = time.perf_counter()
    # the caller's objects out of garbage collection meanwhile: otherwise the collections the
    # conversion's allocations trigger walk the whole networkx graph
    with _gc_paused():
        H = _convert(G, edge_attrs, node_attrs, preserve_edge_attrs, preserve_node_attrs,
                     preserve_graph_attrs)
    if _logger.isEnabledFor(logging.INFO):
        _logger.info("hpgraph converted a networkx %s (%d nodes, %d adjacency entries, edge "
                     "attributes %s) for %s in %.3f ms", type(G).__name__, H.n,
                     H.indices.shape[0], list(H.edge_values) or "none", name or "a call",
                     1e3 * (time.perf_counter() - t0))
    return H


def _convert(G, edge_attrs, node_attrs, preserve_edge_attrs, preserve_node_attrs,
             preserve_graph_attrs):
    if getattr(G, "__networkx_backend__", "networkx") not in ("networkx", "hpgraph"):
        raise NotImplementedError(f"hpgraph cannot convert a graph of the "
                                  f"{G.__networkx_backend__!r} backend")
    multigraph = G.is_multigraph()
    adj = public_view(G, "adj", "_adj")
    nodes = list(adj)
    n = len(nodes)
    index = dict(zip(nodes, range(n)))
    lists = adj.values()
    first = next(iter(lists), None)
    if first is not None and type(first) is not dict:
        # graph views: a filtered inner view's len() need not match what it iterates
        # (multigraph edge subgraphs), so the neighbour lists are read once by iteration
        lists = [list(nbrs) for nbrs in lists]
    counts = np.fromiter(map(len, lists), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    m = int(indptr[-1])
    idt = np.int32 if max(n, m) < 2**31 - 1 else np.int64
    identity = n == 0 or (type(nodes[0]) is int and nodes[0] == 0 and type(nodes[-1]) is int
                          and nodes[-1] == n - 1 and all(type(v) is int for v in nodes)
                          and nodes == list(range(n)))
    entries = itertools.chain.from_iterable(lists)
    if identity:  # labels are the ids: no dict lookup per entry
        indices = np.fromiter(entries, dtype=idt, count=m)
    else:
        indices = np.fromiter(map(index.__getitem__, entries), dtype=idt, count=m)
    values = {}
    sums = {}
    if preserve_edge_attrs and edge_attrs is None:
        edge_attrs = {k: 1 for k in all_numeric_attrs(adj, multigraph)}
    shared = None
    if edge_attrs and m and type(first) is dict and shares_edge_dicts(G, adj):
        # an undirected edge's two entries hold one data dict: read it once (None: the
        # adjacency is not symmetric, read every entry)
        shared = twin_edge_values(adj, indptr, indices, edge_attrs)
    if shared is not None:
        values = shared
    elif edge_attrs:
        dicts = edge_dicts(adj)
        if len(dicts) != m:  # pragma: no cover - a view whose filters changed while we read it
            raise NotImplementedError("the graph changed while hpgraph was converting it")
        for attr, default in edge_attrs.items():
            if multigraph:  # the smallest value over the parallel edges (networkx's min)
                try:  # each parallel edge's value read once, for the minima and the sums
                    per = [[d.get(attr, default) for d in kd.values()] for kd in dicts]
                    mins = list(map(min, per))
                    sums[attr] = numeric_array(list(map(sum, per)), attr, default)
                except TypeError:
                    raise NotImplementedError(f"hpgraph needs numeric values of the edge "
                                              f"attribute {attr!r}") from None
                values[attr] = numeric_array(mins, attr, default)
            else:
                values[attr] = edge_values(dicts, attr, default)
    node_data = None
    if preserve_node_attrs:
        node_data = [dict(d) for d in G._node.values()]
    elif node_attrs:
        node_data = [{k: d.get(k, dflt) for k, dflt in node_attrs.items()
                      if k in d or dflt is not None} for d in G._node.values()]
    graph = dict(G.graph) if preserve_graph_attrs else None
    H = HpGraph(nodes, index, indptr, indices, values, G.is_directed(), graph=graph,
                node_data=node_data, source=G, multigraph=multigraph)
    H._identity = identity
    if multigraph:  # networkx's count, parallel edges included (is_forest / is_tree read it)
        H.multi_edges = G.number_of_edges()
        H.edge_keys = [list(kd) for kd in itertools.chain.from_iterable(
            nbrs.values() for nbrs in adj.values())]
        H.multiplicity = np.fromiter(map(len, H.edge_keys), dtype=np.int64, count=m)
        H.edge_sums = sums
    return H


def from_networkx(G, weight="weight", *, default=1, preserve_all_attrs=False):
    """Convert a networkx graph once, to pass it to networkx functions (which then run on hpgraph).

    Parameters
    ----------
    G : networkx.Graph or networkx.DiGraph
    weight : str or None, default "weight"
        Numeric edge attribute to keep (edges without it weigh ``default``); None: unweighted.
    default : number, default 1
        Weight of edges without the attribute (networkx's convention is 1).
    preserve_all_attrs : bool
        Keep every numeric edge attribute, node data and graph attributes.

    Returns
    -------
    HpGraph

    Examples
    --------
    >>> import networkx as nx
    >>> from hpgraph.nx_backend import from_networkx
    >>> H = from_networkx(nx.path_graph(4))
    >>> nx.single_source_shortest_path_length(H, 0)
    {0: 0, 1: 1, 2: 2, 3: 3}
    """
    if preserve_all_attrs:
        return convert_from_nx(G, preserve_edge_attrs=True, preserve_node_attrs=True,
                               preserve_graph_attrs=True)
    edge_attrs = None if weight is None else {weight: default}
    return convert_from_nx(G, edge_attrs=edge_attrs, preserve_graph_attrs=True)


def convert_to_nx(obj, *, name=None):
    """networkx's backend API: an :class:`HpGraph` becomes a networkx graph; anything else is
    returned unchanged (results are already plain Python objects)."""
    if isinstance(obj, HpGraph):
        return obj.to_networkx()
    return obj
