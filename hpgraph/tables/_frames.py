"""Edge tables in and out of memory: pandas and Arrow, with vertex labels (see hpgraph.tables)."""

from __future__ import annotations

import numpy as np

from ..exceptions import DomainMismatch, InvalidGraph, InvalidValue
from ..labels import VertexLabels, frame, renumber

_ARROW_KINDS = (("integer", "is_integer"), ("floating", "is_floating"), ("string", "is_string"),
                ("string", "is_large_string"), ("bytes", "is_binary"), ("bytes", "is_large_binary"))


def _pa():
    try:
        import pyarrow
    except ImportError:
        raise ImportError("this needs pyarrow: pip install 'hpgraph[tables]' (or pip install pyarrow)") from None
    return pyarrow


def from_pandas(df, source="source", destination="destination", weight=None, *, directed=True,
                renumber=True, vertices=None, duplicates="min", backend=None):
    """Graph of a pandas DataFrame edge list (one row per edge), like cuGraph's ``from_pandas_edgelist``.

    Parameters
    ----------
    df : pandas.DataFrame
        The edge table (never modified).  A cuDF DataFrame is read through ``df.to_arrow()``.
    source, destination : str
        Columns of the edge endpoints: integers of any size, or strings (one kind for both).
    weight : str, optional
        Column of edge weights (numbers, no missing values); None gives an unweighted graph.
    directed : bool, default True
        False stores both directions of each row.
    renumber : bool, default True
        True maps the ids to ``0..n-1`` (sorted labels, kept as ``G.node_labels``); False
        uses integer ids as vertex numbers (``0..max``), with no labels.
    vertices : array_like, optional
        More vertex ids to include (isolated vertices; with ``renumber=False``, only their
        maximum matters).
    duplicates, backend
        As in :meth:`hpgraph.Graph.from_edges` (how repeated rows combine; where the graph lives).

    Returns
    -------
    Graph

    Raises
    ------
    InvalidValue
        A named column is not in the table (the message lists those that are).
    InvalidGraph
        A missing endpoint or weight (the message names the column and the row), or a weight
        that is not finite.
    DomainMismatch
        Ids of mixed kinds, or a weight column that is not numeric.
    """
    if type(df).__module__.split(".")[0] == "cudf":
        return from_arrow(df.to_arrow(), source, destination, weight, directed=directed, renumber=renumber,
                          vertices=vertices, duplicates=duplicates, backend=backend)
    who = "from_pandas"
    if not hasattr(df, "columns") or not hasattr(df, "iloc"):
        raise InvalidValue(f"{who}: expected a pandas DataFrame, got {type(df).__module__}.{type(df).__name__}")
    cols = [c for c in (source, destination, weight) if c is not None]
    _check_columns(who, list(df.columns), cols)
    src = _pandas_ids(df, source, who)
    dst = _pandas_ids(df, destination, who)
    w = None if weight is None else _weights(df[weight].to_numpy(), weight, who, df[weight].isna().to_numpy())
    if renumber:
        ids = _pandas_strings_as_arrow(df, source, destination)
        if ids is not None:  # strings: Arrow's dictionary encoding hashes them without Python objects
            s, d, labels = _arrow_renumber(ids, source, destination, vertices, who)
            return _build(who, s, d, w, (source, destination), directed, False, None, duplicates, backend,
                          labels=labels)
    return _build(who, src, dst, w, (source, destination), directed, renumber, vertices, duplicates, backend)


def from_arrow(table, source="source", destination="destination", weight=None, *, directed=True,
               renumber=True, vertices=None, duplicates="min", backend=None):
    """Graph of an Arrow edge table (``pyarrow.Table``, ``RecordBatch`` or any Arrow stream).

    Parameters are those of :func:`from_pandas`.  String ids are dictionary-encoded in Arrow
    (C++), so only the distinct labels become Python objects.  Anything with
    ``__arrow_c_stream__`` (polars, pandas >= 2.2, DuckDB results) or ``to_arrow()`` (cuDF) is
    accepted.
    """
    who = "from_arrow"
    table = _as_arrow_table(table, who)
    cols = [c for c in (source, destination, weight) if c is not None]
    _check_columns(who, table.column_names, cols)
    if renumber:
        src, dst, labels = _arrow_renumber(table, source, destination, vertices, who)
        vertices = None
    else:
        src = _arrow_ints(table.column(source), source, who)
        dst = _arrow_ints(table.column(destination), destination, who)
        labels = None
    w = None
    if weight is not None:
        col = table.column(weight)
        w = _weights(_arrow_numpy(col), weight, who, col.is_null().to_numpy(zero_copy_only=False)
                     if col.null_count else None)
    return _build(who, src, dst, w, (source, destination), directed, False if labels is not None else renumber,
                  vertices, duplicates, backend, labels=labels)


def to_arrow(G, source="source", destination="destination", weight="weight", *, labels=True):
    """The edges of ``G`` as a ``pyarrow.Table`` (undirected graphs: each edge once, ``u <= v``).

    ``labels=True`` writes the original vertex labels where the graph has them
    (``G.node_labels``), else the vertex numbers.  ``weight=None`` leaves weights out;
    an unweighted graph has no weight column.
    """
    pa = _pa()
    src, dst, w = _edge_arrays(G)
    names = [source, destination]
    arrays = [_endpoint_column(pa, G, src, labels), _endpoint_column(pa, G, dst, labels)]
    if weight is not None and w is not None:
        names.append(weight)
        arrays.append(pa.array(w))
    if len(set(names)) != len(names):
        raise InvalidValue(f"to_arrow: source, destination and weight need distinct column names, got {names}")
    return pa.table(arrays, names=names)


def to_pandas(G, source="source", destination="destination", weight="weight", *, labels=True):
    """The edges of ``G`` as a pandas DataFrame (see :func:`to_arrow` for the layout)."""
    import pandas as pd

    src, dst, w = _edge_arrays(G)
    data = {source: _endpoint_values(G, src, labels), destination: _endpoint_values(G, dst, labels)}
    if weight is not None and w is not None:
        data[weight] = w
    if len(data) != 2 + (weight is not None and w is not None):
        raise InvalidValue(f"to_pandas: source, destination and weight need distinct column names, got "
                           f"{[source, destination, weight]}")
    return pd.DataFrame(data)


def result_frame(G, **columns):
    """Per-vertex results as a DataFrame with a ``vertex`` column of original labels.

    ``result_frame(G, rank=hp.pagerank(G))``: the ``vertex`` column holds ``G.node_labels``
    (or ``0..n-1`` when the graph has none); each keyword is a per-vertex array.
    """
    values = _label_values(G)
    return frame(np.arange(G.num_vertices, dtype=np.int64) if values is None else values, columns,
                 "result_frame")


def _check_columns(who, have, want):
    for c in want:
        if c not in have:
            raise InvalidValue(f"{who}: column {c!r} is not in the table (columns: {list(have)}); pass source=, "
                               "destination= or weight= with the names it has")
    if len(set(want)) != len(want):
        raise InvalidValue(f"{who}: source, destination and weight must be different columns, got {want}")


def _pandas_ids(df, name, who):
    s = df[name]
    na = s.isna().to_numpy()
    if bool(na.any()):
        i = int(np.flatnonzero(na)[0])
        raise InvalidGraph(f"{who}: column {name!r} has a missing id at row {i} (index {df.index[i]!r}); every "
                           "edge needs both endpoints")
    return s


def _pandas_strings_as_arrow(df, source, destination):
    """The two id columns as an Arrow table when both hold strings and pyarrow is there, else None."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    cols = (df[source], df[destination])
    if len(df) == 0 or not all(is_string_dtype(c.dtype) or is_object_dtype(c.dtype) for c in cols):
        return None
    try:
        pa = _pa()
        return pa.table({source: pa.array(cols[0], from_pandas=True),
                         destination: pa.array(cols[1], from_pandas=True)})
    except Exception:  # no pyarrow, or mixed objects: the NumPy path names the problem
        return None


def _weights(values, name, who, na=None):
    if na is not None and bool(np.any(na)):
        i = int(np.flatnonzero(na)[0])
        raise InvalidGraph(f"{who}: column {name!r} has a missing (empty) weight at row {i}")
    w = np.asarray(values)
    if w.dtype.kind not in "iuf":
        raise DomainMismatch(f"{who}: weight column {name!r} must be numeric, got dtype {w.dtype}")
    if w.dtype.kind == "f":
        bad = ~np.isfinite(w)
        if bool(bad.any()):
            i = int(np.flatnonzero(bad)[0])
            raise InvalidGraph(f"{who}: column {name!r} row {i} has weight {w[i]}; weights must be finite numbers")
    return w


def _build(who, src, dst, w, names, directed, renumber_ids, vertices, duplicates, backend, labels=None):
    from ..graph import Graph

    if renumber_ids:
        src, dst, labels = renumber(src, dst, vertices, names=tuple(f"column {c!r}" for c in names))
        n = len(labels)
    else:
        src, dst = (_int_ids(a, c, who) for a, c in zip((src, dst), names))
        n = None if labels is None else len(labels)
        if labels is None and vertices is not None:
            extra = _int_ids(np.asarray(vertices), "vertices", who)
            top = max([int(a.max()) for a in (src, dst, extra) if a.size] or [-1])
            n = top + 1
    g = Graph.from_edges(src, dst, w, num_vertices=n, directed=directed, duplicates=duplicates, backend=backend)
    if labels is not None:
        g = Graph(g, node_labels=labels)   # the same arrays, with the labels
    return g


def _int_ids(a, name, who):
    a = np.asarray(a.to_numpy() if hasattr(a, "to_numpy") else a)
    if a.dtype.kind not in "iu":
        raise DomainMismatch(f"{who}: with renumber=False the ids in {name!r} must be integers, got dtype "
                             f"{a.dtype}; use renumber=True for string or sparse ids")
    return a


def _as_arrow_table(obj, who):
    pa = _pa()
    if isinstance(obj, pa.Table):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if hasattr(obj, "__arrow_c_stream__"):
        return pa.table(obj)
    if hasattr(obj, "to_arrow"):  # cuDF
        return _as_arrow_table(obj.to_arrow(), who)
    raise InvalidValue(f"{who}: expected a pyarrow Table or RecordBatch (or an object with __arrow_c_stream__), "
                       f"got {type(obj).__module__}.{type(obj).__name__}")


def _arrow_kind(pa, typ):
    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    for kind, test in _ARROW_KINDS:
        if getattr(pa.types, test)(typ):
            return kind
    if getattr(pa.types, "is_string_view", lambda t: False)(typ):
        return "string"
    return None


def _arrow_renumber(table, source, destination, vertices, who):
    """Dictionary-encode both endpoint columns together; labels sorted (as hpgraph.labels does)."""
    pa = _pa()
    import pyarrow.compute as pc

    cols = {c: table.column(c) for c in (source, destination)}
    cols = {c: a.cast(pa.int64()) if pa.types.is_null(a.type) and len(a) == 0 else a for c, a in cols.items()}
    kinds = {}
    for c, arr in cols.items():
        if arr.null_count:
            i = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
            raise InvalidGraph(f"{who}: column {c!r} has a missing id at row {i}; every edge needs both endpoints")
        kinds[c] = _arrow_kind(pa, arr.type)
        if kinds[c] is None:
            raise DomainMismatch(f"{who}: column {c!r} has type {arr.type}; vertex ids must be integers or strings")
    if kinds[source] != kinds[destination]:
        raise DomainMismatch(f"{who}: column {source!r} holds {kinds[source]} ids ({cols[source].type}) and "
                             f"{destination!r} holds {kinds[destination]} ids ({cols[destination].type}); "
                             "vertex ids must be of one kind (cast one column first)")
    if kinds[source] == "floating":  # floats are numbers to NumPy's factorize, not dictionary keys
        return (*renumber(_arrow_numpy(cols[source]), _arrow_numpy(cols[destination]), vertices,
                          names=(f"column {source!r}", f"column {destination!r}")),)
    parts = [cols[source], cols[destination]]
    if vertices is not None:
        parts.append(pa.chunked_array([pa.array(np.asarray(vertices).tolist())]))
    common = _common_type(pa, [p.type for p in parts], who)
    chunks = [ch.cast(common) if ch.type != common else ch for p in parts for ch in p.chunks]
    both = pa.chunked_array(chunks, type=common).combine_chunks()
    if pa.types.is_dictionary(both.type):
        both = both.dictionary_decode()
    enc = pc.dictionary_encode(both)
    order = pc.array_sort_indices(enc.dictionary).to_numpy()
    rank = np.empty(order.shape[0], np.int64)
    rank[order] = np.arange(order.shape[0], dtype=np.int64)
    codes = rank[enc.indices.to_numpy(zero_copy_only=False)]
    values = np.asarray(enc.dictionary.take(pa.array(order)).to_numpy(zero_copy_only=False))
    m = table.num_rows
    return codes[:m], codes[m:2 * m], VertexLabels._trusted(values)


def _common_type(pa, types, who):
    types = [t.value_type if pa.types.is_dictionary(t) else t for t in types]
    if all(t == types[0] for t in types):
        return types[0]
    if all(pa.types.is_integer(t) for t in types):
        return pa.int64() if all(pa.types.is_signed_integer(t) or t.bit_width < 64 for t in types) else pa.uint64()
    if all(_arrow_kind(pa, t) == "string" for t in types):
        return pa.large_string()
    if all(_arrow_kind(pa, t) == "bytes" for t in types):
        return pa.large_binary()
    raise DomainMismatch(f"{who}: vertex ids must be of one kind, got types {[str(t) for t in types]}")


def _arrow_numpy(col):
    return np.asarray(col.to_numpy() if hasattr(col, "to_numpy") else col)


def _arrow_ints(col, name, who):
    if col.null_count:
        i = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise InvalidGraph(f"{who}: column {name!r} has a missing id at row {i}; every edge needs both endpoints")
    return _arrow_numpy(col)


def _edge_arrays(G):
    """Host (src, dst, weights or None) of G; an undirected graph's edges once (u <= v)."""
    coo = G.A.to_host().to_coo()
    r, c, v = np.asarray(coo.row, np.int64), np.asarray(coo.col, np.int64), coo.values
    if not G.directed:
        keep = r <= c
        r, c = r[keep], c[keep]
        v = None if v is None else v[keep]
    return r, c, None if v is None else np.asarray(v)


def _label_values(G):
    """G's vertex labels as a NumPy array (vertex i -> values[i]), or None when it has none."""
    nl = G.node_labels
    if nl is None:
        return None
    if isinstance(nl, VertexLabels):
        return nl.values
    arr = np.empty(len(nl), dtype=object)  # labels kept as a list (graphs from networkx)
    arr[:] = list(nl)
    return arr


def _endpoint_values(G, ids, labels):
    values = _label_values(G) if labels else None
    return ids if values is None else values[ids]


def _endpoint_column(pa, G, ids, labels):
    vals = _endpoint_values(G, ids, labels)
    try:
        return pa.array(vals)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise DomainMismatch(f"to_arrow: the graph's vertex labels cannot be stored in Arrow ({exc}); pass "
                             "labels=False to write vertex numbers") from None
