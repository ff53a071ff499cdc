"""Graph: one adjacency matrix (CSR) plus a named cache of what algorithms derive from it.

``A[i, j]`` is the edge i -> j, so row i of ``A`` lists the out-edges of i and row v of
``AT`` the in-edges of v (the paper's "out" and "in" edge types).  An undirected graph stores
both directions of every edge (a self-loop once) and its ``AT`` is ``A`` itself.

Derived matrices (``AT``, HYB forms, degrees) and the Graph's copy on the other side
(host/device) are computed on first use and cached, keyed by ``(name, side)``.  A Graph is
immutable, so the cache never goes stale.
"""

from __future__ import annotations

import types

import numpy as np

from . import backend
from ._graph_edges import csr_from_edges
from .exceptions import DimensionMismatch, DomainMismatch, InvalidGraph, InvalidValue
from .formats import CSR, HYB, from_any, from_scipy
from .formats._base import freeze, side_of
from .formats.convert import is_sparse_input
from ._arrayops import any_true, bincount


class Graph:
    """A directed or undirected graph over vertices ``0..n-1``, stored as a CSR adjacency matrix.

    Parameters
    ----------
    A : CSR, any hpgraph format, scipy.sparse / cupyx.scipy.sparse matrix, or Graph
        Square adjacency matrix; ``A[i, j]`` is the weight of edge i -> j.  Stored entries
        are edges (explicit zeros included).  Duplicates of a scipy input are summed, as
        scipy does.  A pattern-only matrix gives an unweighted graph.
    directed : bool or None, default None
        None infers it: a matrix equal to its transpose (pattern and values) is undirected.
        ``False`` requires a symmetric matrix.
    node_labels : sequence, optional
        Original vertex labels, ``node_labels[i]`` for vertex i (kept by from_networkx).

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidGraph
        ``directed=False`` with a matrix that is not symmetric.
    """

    def __init__(self, A, directed=None, *, node_labels=None):
        if isinstance(A, Graph):
            if node_labels is None:
                node_labels = A._node_labels
            if directed is None or bool(directed) == A._directed:
                self._setup(A._A, A._directed, node_labels)
                if A._directed:
                    at = A._cache.get(("AT", A.side))
                    if at is not None:
                        self._cache[("AT", self.side)] = at
                return
            A = A._A
        if is_sparse_input(A):
            csr = _sum_duplicates(from_scipy(A, format="csr"))
        else:
            m = from_any(A)
            # A matrix built with check=False was never validated; the kernels trust a Graph's
            # arrays, so check them once here (O(nnz)).
            m.check(full=True)
            csr = m.asformat("csr")
        if csr.nrows != csr.ncols:
            raise DimensionMismatch(f"Graph: the adjacency matrix must be square, got {csr.nrows}x{csr.ncols}")
        if directed is not None and not isinstance(directed, (bool, np.bool_)):
            raise InvalidValue(f"Graph: directed must be True, False or None, got {directed!r}")
        at = None
        if directed is None or not directed:
            at = csr.transpose()
            symmetric = _same_matrix(csr, at)
            if directed is None:
                directed = not symmetric
            elif not symmetric:
                raise InvalidGraph("Graph: directed=False needs a symmetric adjacency matrix (A[i, j] == A[j, i] "
                                   "for every stored entry), and this one is not; pass directed=True, or build "
                                   "the graph with Graph.from_edges(..., directed=False), which stores both "
                                   "directions")
        self._setup(csr, bool(directed), node_labels)
        if self._directed and at is not None:
            self._cache[("AT", self.side)] = at

    def _setup(self, csr, directed, node_labels):
        self._A = csr
        self._directed = bool(directed)
        if node_labels is not None:
            if not hasattr(node_labels, "to_ids"):  # a VertexLabels (hpgraph.labels) is kept as it is
                node_labels = list(node_labels)
            if len(node_labels) != csr.nrows:
                raise InvalidValue(f"Graph: node_labels has {len(node_labels)} labels for {csr.nrows} vertices")
        self._node_labels = node_labels
        self._cache = {}

    @classmethod
    def _new(cls, csr, directed, node_labels=None, *, at=None) -> Graph:
        """Trusted constructor (matrix already square, sorted and, if undirected, symmetric);
        ``at``: the CSR of ``A^T`` when the caller has it (a directed graph then never
        transposes)."""
        obj = cls.__new__(cls)
        obj._setup(csr, directed, node_labels)
        if at is not None and obj._directed:
            obj._cache[("AT", obj.side)] = at
        return obj

    # -- constructors --------------------------------------------------------------------

    @classmethod
    def from_matrix(cls, M, directed=None, *, node_labels=None) -> Graph:
        """Graph of an hpgraph sparse matrix (any format; converted to CSR)."""
        return cls(M, directed, node_labels=node_labels)

    @classmethod
    def from_scipy(cls, A, directed=None, *, node_labels=None) -> Graph:
        """Graph of a scipy.sparse or cupyx.scipy.sparse matrix (cupyx gives a device graph).

        Duplicate entries are summed (scipy's meaning of duplicates); stored zeros are edges.
        ``directed=None`` infers directedness from symmetry (pattern and values).
        """
        if not is_sparse_input(A):
            raise InvalidValue(f"Graph.from_scipy: expected a scipy.sparse or cupyx.scipy.sparse matrix, got "
                               f"{type(A).__module__}.{type(A).__name__}")
        return cls(A, directed, node_labels=node_labels)

    @classmethod
    def from_edges(cls, src, dst=None, weights=None, num_vertices=None, directed=True, duplicates="min",
                   backend=None, *, index_dtype=None, self_loops="keep", chunk_size=None) -> Graph:
        """Graph of an edge list ``src[i] -> dst[i]`` (weight ``weights[i]``), or of chunks of one.

        The build is a counting sort by row in bounded memory (see
        :mod:`hpgraph.formats._build`): no global sort of the edges.

        Parameters
        ----------
        src, dst : array_like of int
            Vertex ids (numpy, cupy or lists), same length.  Or ``src`` = chunks and no
            ``dst``: a callable returning an iterable of chunks (called twice, it must give
            the same chunks each time), a list of chunks, a one-shot iterator of chunks (kept
            as given while building), or an Arrow table.  A chunk is ``(src, dst)``,
            ``(src, dst, weights)``, an Arrow record batch or a mapping with ``src``/``dst``
            (and optionally ``weights``) columns, or an EdgeList.  Host chunks are copied to
            the device one at a time, so a graph whose edge list does not fit on the device
            can still be built there.
        weights : array_like, optional
            One finite value per edge; None gives an unweighted (pattern-only) graph.
        num_vertices : int, optional
            Default: the largest id + 1 (0 for no edges).
        directed : bool, default True
            False stores both directions of each edge (a self-loop once).
        duplicates : {"min", "max", "sum", "first", "last", "keep"}, default "min"
            How repeated edges combine ("min" suits shortest paths; "first"/"last" follow the
            input order; "keep" stores them all).  For an undirected graph, (u, v) and (v, u)
            are the same edge.
        backend : {None, "cpu", "gpu", "auto"}
            Where the graph lives.  None: on the device if any input is a device array, else
            on the host.  "auto": the GPU when one is usable.
        index_dtype : {None, "int32", "int64"}
            Force the index dtype (default: int32 unless sizes need int64).
        self_loops : {"keep", "drop"}, default "keep"
            ``"drop"`` leaves out every edge ``u -> u``.
        chunk_size : int, optional
            Edges scattered at a time when building from whole arrays (bounds the build's
            temporaries; default 2**25).

        Raises
        ------
        IndexOutOfBound
            A negative id, or an id >= num_vertices (the message names src or dst).
        DimensionMismatch
            src, dst and weights differ in length.
        InvalidGraph
            Non-integer ids, or NaN / infinite weights.
        DeviceOutOfMemory
            The device build does not fit (checked before the large arrays are allocated,
            with the estimate, the free memory and what would help), or an allocation failed
            during it; the memory pool stays usable.
        """
        csr = csr_from_edges(src, dst, weights, num_vertices, directed, duplicates, backend,
                             index_dtype, self_loops, chunk_size)
        return cls._new(csr, bool(directed))

    @classmethod
    def from_networkx(cls, G, weight="weight", *, duplicates="min", backend=None) -> Graph:
        """Graph of a networkx graph; vertex i is ``list(G)[i]`` (kept in ``node_labels``).

        Edges carrying no ``weight`` attribute weigh 1; a graph where no edge has it (or
        ``weight=None``) is unweighted.  Parallel edges of a multigraph combine by
        ``duplicates``.
        """
        nodes = list(G)
        index = {v: i for i, v in enumerate(nodes)}
        if weight is None:
            pairs = list(G.edges())
            ws = None
        else:
            triples = list(G.edges(data=weight, default=None))
            pairs = [(u, v) for u, v, _ in triples]
            raw = [d for _, _, d in triples]
            if all(d is None for d in raw):
                ws = None
            else:
                ws = np.asarray([1 if d is None else d for d in raw])
                if ws.dtype.kind not in "biuf":
                    raise DomainMismatch(f"Graph.from_networkx: edge attribute {weight!r} must be numeric, "
                                         f"got values of dtype {ws.dtype}")
        m = len(pairs)
        src = np.fromiter((index[u] for u, _ in pairs), dtype=np.int64, count=m)
        dst = np.fromiter((index[v] for _, v in pairs), dtype=np.int64, count=m)
        g = cls.from_edges(src, dst, ws, num_vertices=len(nodes), directed=G.is_directed(),
                           duplicates=duplicates, backend=backend)
        g._node_labels = nodes
        return g

    @classmethod
    def from_pandas(cls, df, source="source", destination="destination", weight=None, **kwargs) -> Graph:
        """Graph of a pandas edge table with vertex labels (see :func:`hpgraph.tables.from_pandas`)."""
        from .tables import from_pandas

        return from_pandas(df, source, destination, weight, **kwargs)

    @classmethod
    def from_arrow(cls, table, source="source", destination="destination", weight=None, **kwargs) -> Graph:
        """Graph of an Arrow edge table with vertex labels (see :func:`hpgraph.tables.from_arrow`)."""
        from .tables import from_arrow

        return from_arrow(table, source, destination, weight, **kwargs)

    @classmethod
    def from_edge_index(cls, edge_index, edge_weight=None, num_nodes=None, **kwargs) -> Graph:
        """Graph of a PyTorch Geometric ``2 x E`` edge_index (see :func:`hpgraph.exchange.from_edge_index`)."""
        from .exchange import from_edge_index

        return from_edge_index(edge_index, edge_weight, num_nodes, **kwargs)

    # -- export --------------------------------------------------------------------------

    def to_scipy(self, copy: bool = True):
        """The adjacency matrix as a ``scipy.sparse.csr_array`` (on the host)."""
        return self._A.to_scipy(copy=copy)

    def to_networkx(self, weight="weight"):
        """A ``networkx.DiGraph`` (directed) or ``networkx.Graph``, with the node labels.

        Weighted graphs put each edge's value in the ``weight`` attribute.  Duplicate entries
        collapse to one networkx edge (the last one wins).
        """
        import networkx as nx

        H = nx.DiGraph() if self._directed else nx.Graph()
        n = self.num_vertices
        labels = self._node_labels if self._node_labels is not None else list(range(n))
        H.add_nodes_from(labels)
        coo = self._A.to_host().to_coo()
        r, c, v = coo.row, coo.col, coo.values
        if not self._directed:
            half = r <= c
            r, c = r[half], c[half]
            v = None if v is None else v[half]
        # networkx is pure Python: a loop over edges is unavoidable here.
        lr = [labels[i] for i in r.tolist()]
        lc = [labels[j] for j in c.tolist()]
        if v is None or weight is None:
            H.add_edges_from(zip(lr, lc))
        else:
            H.add_weighted_edges_from(zip(lr, lc, v.tolist()), weight=weight)
        return H

    # -- attributes ----------------------------------------------------------------------

    @property
    def A(self) -> CSR:
        """Adjacency matrix (CSR): row i = out-edges of i."""
        return self._A

    @property
    def AT(self) -> CSR:
        """CSR of A^T: row v = in-edges of v.  ``A`` itself for an undirected graph."""
        if not self._directed:
            return self._A
        return self._cached("AT", self._A.transpose)

    def hyb(self, which: str = "A", K=None) -> HYB:
        """HYB form of ``A`` or ``AT`` (cached per ``which`` and ``K``; K default: the paper's rule)."""
        if which not in ("A", "AT"):
            raise InvalidValue(f"Graph.hyb: which must be 'A' or 'AT', got {which!r}")
        if which == "AT" and not self._directed:
            which = "A"
        mat = self._A if which == "A" else self.AT
        return self._cached(f"hyb[{which},K={K}]", lambda: HYB.from_csr(mat, K=K))

    @property
    def out_degree(self):
        """Stored out-entries per vertex (index-dtype array; a self-loop counts once)."""
        return self._cached("out_degree", lambda: freeze(self._A.row_lengths()))

    @property
    def in_degree(self):
        """Stored in-entries per vertex (the out-degree for an undirected graph)."""
        if not self._directed:
            return self.out_degree
        return self._cached("in_degree", self._compute_in_degree)

    def _compute_in_degree(self):
        at = self._cache.get(("AT", self.side))
        if at is not None:
            return freeze(at.row_lengths())
        xp, A = self.xp, self._A
        if A.nnz == 0:
            return freeze(xp.zeros(A.nrows, dtype=A.index_dtype))
        # a bincount of the column ids avoids building A^T just for degrees
        return freeze(bincount(xp, A.indices, minlength=A.nrows).astype(A.index_dtype))

    @property
    def num_vertices(self) -> int:
        return self._A.nrows

    @property
    def num_edges(self) -> int:
        """Stored directed entries: an undirected edge counts twice, a self-loop once."""
        return self._A.nnz

    @property
    def directed(self) -> bool:
        return self._directed

    @property
    def weighted(self) -> bool:
        """False for a pattern-only (unweighted) graph."""
        return not self._A.is_pattern

    @property
    def dtype(self):
        """Edge value dtype, or None for an unweighted graph."""
        return self._A.dtype

    @property
    def node_labels(self):
        """Original vertex labels, or None when vertices are just 0..n-1.

        A list for graphs from networkx; a :class:`hpgraph.labels.VertexLabels` (a sequence with
        ``to_ids`` / ``to_labels``) for graphs from tables.
        """
        return self._node_labels

    @property
    def xp(self):
        return self._A.xp

    @property
    def on_device(self) -> bool:
        return self._A.on_device

    @property
    def side(self) -> str:
        """``"cpu"`` or ``"gpu"``."""
        return side_of(self._A.xp)

    # -- sides ---------------------------------------------------------------------------

    def to_device(self) -> "Graph":
        """This graph on the GPU (cached; ``self`` if already there)."""
        return self._other_side("gpu")

    def to_host(self) -> "Graph":
        """This graph on the host (cached; ``self`` if already there)."""
        return self._other_side("cpu")

    def _other_side(self, side):
        if side == self.side:
            return self
        key = ("graph", side)
        g = self._cache.get(key)
        if g is None:
            if side == "gpu":
                with backend.out_of_memory_guard(
                        f"copying a graph of {self.num_vertices:,} vertices and "
                        f"{self.num_edges:,} edges to the GPU"):
                    A = self._A.to_device()
            else:
                A = self._A.to_host()
            g = Graph._new(A, self._directed, self._node_labels)
            g._cache[("graph", self.side)] = self  # the way back is free
            self._cache[key] = g
        return g

    # -- memory --------------------------------------------------------------------------

    def memory_usage(self, deep: bool = False) -> dict:
        """Bytes held per component, like pandas' ``memory_usage``.

        Returns a dict ``{"indptr": ..., "indices": ..., "values": ...}`` for the adjacency
        matrix (``values`` is 0 for an unweighted graph): the buffers held, so an array that
        is a view of a longer buffer counts that buffer.  ``deep=True`` adds one entry per
        cached derived object (``"AT"``, HYB forms, degrees; the copy of the graph on the
        other side is left out), and one per object a matrix keeps in its own cache
        (:meth:`~hpgraph.formats.SparseMatrix.derived`: column relabelings, kernel index
        arrays, device copies), named ``"<matrix>/<what>"`` (``"A/relabel"``).
        ``sum(G.memory_usage().values())`` is the graph at rest.
        """
        A = self._A
        out = {"indptr": _held_bytes(A.indptr), "indices": _held_bytes(A.indices),
               "values": 0 if A.values is None else _held_bytes(A.values)}
        if deep:
            _matrix_derived(out, "A", A)
            for (name, side), val in self._cache.items():
                if name == "graph":
                    continue
                key = name if side == self.side else f"{name}[{side}]"
                out[key] = _nbytes(val)
                if hasattr(val, "derived_items"):
                    _matrix_derived(out, key, val)
        return out

    # -- cache ---------------------------------------------------------------------------

    def derived(self, name: str, make):
        """The object ``name`` derived from this graph: ``make()`` on first use, then the cached
        value (the graph is immutable, so it never goes stale).  Algorithms keep what they derive
        per graph here (prefix the name with the module, ``"hpg.weight_min_max"``), so
        :meth:`memory_usage` counts it and it lives exactly as long as the graph."""
        key = (name, self.side)
        val = self._cache.get(key)
        if val is None:
            val = make()
            self._cache[key] = val
        return val

    _cached = derived

    def __repr__(self) -> str:
        dt = "unweighted" if self.dtype is None else self.dtype.name
        return (f"Graph(num_vertices={self.num_vertices}, num_edges={self.num_edges}, "
                f"directed={self._directed}, dtype={dt}, on={'device' if self.on_device else 'host'})")


# ---------------------------------------------------------------------------------------
# helpers


def _matrix_derived(out: dict, prefix: str, m) -> None:
    """Add the bytes of what matrix ``m`` keeps derived to ``out`` as ``prefix/<name>``."""
    for name, val in m.derived_items().items():
        label = name if isinstance(name, str) else ".".join(str(p) for p in name)
        out[f"{prefix}/{label}"] = _nbytes(val)


def _held_bytes(a) -> int:
    """Bytes of the buffer an array keeps alive: its own, or its base array's when it is a view
    of a larger array (the build may keep the first nnz entries of a longer buffer)."""
    base = a
    while getattr(base, "base", None) is not None:
        base = base.base
    held = getattr(base, "nbytes", 0)
    return int(max(a.nbytes, held if isinstance(held, (int, np.integer)) else 0))


def _nbytes(obj, depth: int = 0) -> int:
    """Bytes of the arrays an object holds (an array, or the arrays among a matrix's attributes)."""
    if isinstance(obj, np.ndarray) or backend.is_device_array(obj):
        return _held_bytes(obj)
    if isinstance(obj, (tuple, list)) and depth <= 1:
        return sum(_nbytes(v, depth + 1) for v in obj)
    if depth > 1 or isinstance(obj, (type, types.ModuleType)) or not hasattr(obj, "__dict__"):
        return 0
    return sum(_nbytes(v, depth + 1) for v in vars(obj).values())


def _same_matrix(a: CSR, b: CSR) -> bool:
    """Exact equality of two sorted CSR matrices of the same shape (pattern and values)."""
    if a.shape != b.shape or a.nnz != b.nnz or a.is_pattern != b.is_pattern:
        return False
    xp = a.xp
    if not bool(xp.array_equal(a.indptr, b.indptr)) or not bool(xp.array_equal(a.indices, b.indices)):
        return False
    return a.is_pattern or bool(xp.array_equal(a.values, b.values))


def _sum_duplicates(csr: CSR) -> CSR:
    """Sum entries that repeat a (row, col) (scipy semantics); ``csr`` itself when none do."""
    nnz = csr.nnz
    if nnz <= 1:
        return csr
    ind, indptr = csr.indices, csr.indptr
    same = ind[1:] == ind[:-1]
    starts = indptr[1:-1]
    starts = starts[(starts > 0) & (starts < nnz)]
    if starts.shape[0]:
        same[starts - 1] = False  # equal columns in different rows are not duplicates
    if not any_true(csr.xp, same):
        return csr
    return CSR.from_coo(csr.to_coo().deduplicate("sum"))
