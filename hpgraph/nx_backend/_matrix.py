"""networkx's adjacency-matrix exports, read straight from the converted CSR.

The converted graph already *is* a sparse adjacency matrix in networkx's node and neighbour
order, so ``to_scipy_sparse_array``, ``adjacency_matrix``, ``to_numpy_array`` and bipartite
``biadjacency_matrix`` select, renumber and scatter its entries with vectorised NumPy instead
of walking networkx's edge views.  The entries are built in the order networkx builds its
COO triples (``G.edges`` order, undirected edges mirrored, self-loops corrected), so even the
unsummed ``format="coo"`` result holds the same triples.
"""

from __future__ import annotations

import numpy as np

from ._registry import _nx, implements


def _weights(hg, weight):
    """Edge values per adjacency entry (networkx's default 1 where ``weight`` is None); for a
    multigraph the sum over the parallel edges (the entry networkx's matrices add up)."""
    mult = hg.multiplicity
    if weight is None:
        return np.ones(hg.indices.shape[0], dtype=np.int64) if mult is None else mult
    hg._require(weight)
    if mult is not None:
        return hg.edge_sums[weight]
    return hg.edge_values[weight]


def _positions(hg, order):
    """``pos[id]``: position of each vertex in ``order`` (-1: not listed)."""
    pos = np.full(hg.n, -1, dtype=np.int64)
    ids = np.fromiter((hg.index[v] for v in order), dtype=np.int64, count=len(order))
    pos[ids] = np.arange(ids.shape[0])
    return pos


def _edge_entries(hg):
    """Adjacency entries in ``G.edges`` order: each undirected edge once (``u <= v`` in node
    order, which is networkx's "first endpoint seen" rule)."""
    rows = hg.rows()
    cols = hg.indices.astype(np.int64)
    if hg.is_directed():
        return np.arange(rows.shape[0]), rows, cols
    keep = np.flatnonzero(cols >= rows)
    return keep, rows[keep], cols[keep]


def _nodelist_check(hg, nodelist):
    nx = _nx()
    nlen = len(nodelist)
    if nlen == 0:
        raise nx.NetworkXError("nodelist has no nodes")
    listed = [v for v in nodelist if v in hg]
    if nlen != len(set(listed)):
        for v in nodelist:
            if v not in hg:
                raise nx.NetworkXError(f"Node {v} in nodelist is not in G")
        raise nx.NetworkXError("nodelist contains duplicates.")


def _coo_triples(hg, nodelist, weight):
    """networkx's ``(data, row, col)`` lists for ``to_scipy_sparse_array`` as arrays."""
    if nodelist is None:
        pos = np.arange(hg.n, dtype=np.int64)
    else:
        pos = _positions(hg, nodelist)
    keep, r, c = _edge_entries(hg)
    vals = _weights(hg, weight)[keep]
    inside = (pos[r] >= 0) & (pos[c] >= 0)
    r, c, vals = pos[r[inside]], pos[c[inside]], vals[inside]
    if r.shape[0] == 0:
        return [], [], []
    if hg.is_directed():
        return vals, r, c
    loops = r == c
    # networkx subtracts the self-loops once, in node order: the order of ``r`` already
    lr = r[loops]
    lv = vals[loops]
    return (np.concatenate([vals, vals, -lv]), np.concatenate([r, c, lr]),
            np.concatenate([c, r, lr]))


@implements("to_scipy_sparse_array")
def to_scipy_sparse_array(G, nodelist=None, dtype=None, weight="weight", format="csr"):
    """The adjacency matrix as a SciPy sparse array (networkx's triples, then ``format``)."""
    import scipy.sparse as sp

    nx = _nx()
    if len(G) == 0:
        raise nx.NetworkXError("Graph has no nodes or edges")
    if nodelist is None:
        nlen = G.n
    else:
        _nodelist_check(G, nodelist)
        nlen = len(nodelist)
    d, r, c = _coo_triples(G, nodelist, weight)
    A = sp.coo_array((d, (r, c)), shape=(nlen, nlen), dtype=dtype)
    try:
        return A.asformat(format)
    except ValueError as err:
        raise nx.NetworkXError(f"Unknown sparse matrix format: {format}") from err


@implements("adjacency_matrix")
def adjacency_matrix(G, nodelist=None, dtype=None, weight="weight"):
    """The adjacency matrix as a SciPy CSR array."""
    return to_scipy_sparse_array(G, nodelist=nodelist, dtype=dtype, weight=weight)


def _dense_check(b):
    import numpy as np_

    G = b.arguments.get("G")
    if G is not None and G.is_multigraph() and b.arguments.get("multigraph_weight",
                                                                  sum) not in (sum, min):
        return ("multigraphs are served for multigraph_weight=sum or min only (hpgraph keeps "
                "the sum and the smallest value per neighbour)")
    dtype = b.arguments.get("dtype")
    if dtype is not None and np_.dtype(dtype).names:
        return "structured dtypes are not supported"
    return True


@implements("to_numpy_array", check=_dense_check)
def to_numpy_array(G, nodelist=None, dtype=None, order=None, multigraph_weight=sum,
                   weight="weight", nonedge=0.0):
    """The adjacency matrix as a dense NumPy array (``nonedge`` where there is no edge)."""
    nx = _nx()
    if nodelist is None:
        nodelist = G.nodes
    nlen = len(nodelist)
    nodeset = set(nodelist)
    missing = {v for v in nodeset if v not in G}
    if missing:
        raise nx.NetworkXError(f"Nodes {missing} in nodelist is not in G")
    if len(nodeset) < nlen:
        raise nx.NetworkXError("nodelist contains duplicates.")
    A = np.full((nlen, nlen), fill_value=nonedge, dtype=dtype, order=order)
    if nlen == 0 or G.indices.shape[0] == 0:
        return A
    pos = _positions(G, nodelist)
    keep, r, c = _edge_entries(G)
    if G.multiplicity is not None and multigraph_weight is min:
        vals = (np.ones(keep.shape[0]) if weight is None else G.edge_values[weight][keep])
    else:
        vals = _weights(G, weight)[keep]
    inside = (pos[r] >= 0) & (pos[c] >= 0)
    i, j, w = pos[r[inside]], pos[c[inside]], vals[inside]
    A[i, j] = w
    if not G.is_directed():
        A[j, i] = w
    return A


@implements("biadjacency_matrix")
def biadjacency_matrix(G, row_order, column_order=None, dtype=None, weight="weight",
                       format="csr"):
    """The biadjacency matrix (rows ``row_order``, columns ``column_order``), SciPy sparse."""
    import scipy.sparse as sp

    nx = _nx()
    nlen = len(row_order)
    if nlen == 0:
        raise nx.NetworkXError("row_order is empty list")
    if len(row_order) != len(set(row_order)):
        raise nx.NetworkXError("Ambiguous ordering: `row_order` contained duplicates.")
    if column_order is None:
        column_order = list(set(G) - set(row_order))
    mlen = len(column_order)
    if len(column_order) != len(set(column_order)):
        raise nx.NetworkXError("Ambiguous ordering: `column_order` contained duplicates.")
    rows_in = [v for v in row_order if v in G]
    cols_in = [v for v in column_order if v in G]
    rpos = _positions(G, rows_in)
    cpos = _positions(G, cols_in)
    row_index = {v: i for i, v in enumerate(row_order)}
    rmap = np.array([row_index[v] for v in rows_in], dtype=np.int64)
    col_index = {v: i for i, v in enumerate(column_order)}
    cmap = np.array([col_index[v] for v in cols_in], dtype=np.int64)
    # G.edges(row_order): rows in row_order's order, each row's entries in neighbour order;
    # an undirected edge back to a row already visited is not repeated
    rid = np.fromiter((G.index[v] for v in rows_in), dtype=np.int64, count=len(rows_in))
    starts, ends = G.indptr[rid], G.indptr[rid + 1]
    counts = ends - starts
    total = int(counts.sum())
    if total == 0:
        d, r, c = [], [], []
    else:
        first = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)
        u = np.repeat(rid, counts)
        v = G.indices[first].astype(np.int64)
        ok = (cpos[v] >= 0)
        if not G.is_directed():
            ok &= ~((rpos[v] >= 0) & (rpos[v] < rpos[u]))
        d = _weights(G, weight)[first[ok]]
        r = rmap[rpos[u[ok]]]
        c = cmap[cpos[v[ok]]]
        if r.shape[0] == 0:
            d, r, c = [], [], []
    A = sp.coo_array((d, (r, c)), shape=(nlen, mlen), dtype=dtype)
    try:
        return A.asformat(format)
    except ValueError as err:
        raise nx.NetworkXError(f"Unknown sparse array format: {format}") from err
