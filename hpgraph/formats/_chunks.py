"""Edge chunks: what :meth:`hpgraph.Graph.from_edges` accepts instead of whole edge arrays,
turned into one re-iterable source of ``(src, dst, weights)`` tuples, and checked one chunk at
a time."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..exceptions import DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidGraph, InvalidValue
from ._base import check_weight_values, first_bad
from .._arrayops import any_true


def _side(xp, a):
    """``a`` as an ``xp`` array (host arrays are copied to the device, and back)."""
    return np.asarray(backend.to_host(a)) if xp is np else xp.asarray(a)


class Spec:
    """What the first chunk fixed (weighted or not, weight dtype), so later chunks can be
    checked against it."""

    def __init__(self):
        self.seen = False
        self.weighted = None
        self.wdtype = None


def check_chunk(xp, src, dst, w, k: int, spec: Spec, num_vertices, owner: str):
    """``(src, dst, w)`` of chunk ``k`` as validated ``xp`` arrays (no copies of xp arrays).

    Raises the typed errors of :meth:`hpgraph.Graph.from_edges`, naming ``chunks[k]``.
    """
    where = f"{owner}: chunks[{k}]"
    out = []
    for name, a in (("src", src), ("dst", dst)):
        a = _side(xp, a)
        if a.ndim != 1:
            raise InvalidGraph(f"{where}.{name} must be a 1-D array of vertex ids, got shape {tuple(a.shape)}")
        if a.size == 0 and a.dtype.kind not in "iu":
            a = a.astype(np.int64)
        if a.dtype.kind not in "iu":
            raise InvalidGraph(f"{where}.{name} must hold integer vertex ids, got dtype {a.dtype}")
        out.append(a)
    src, dst = out
    m = int(src.shape[0])
    if dst.shape[0] != m:
        raise DimensionMismatch(f"{where}: src and dst must have the same length, got {m} and {dst.shape[0]}")
    if w is not None:
        w = _side(xp, w)
        if w.ndim != 1 or w.shape[0] != m:
            raise DimensionMismatch(f"{where}.weights must be 1-D with one value per edge ({m}), got shape "
                               f"{tuple(w.shape)}")
        w = check_weight_values(xp, w, f"{where}.weights")
    if not spec.seen:
        spec.seen, spec.weighted = True, w is not None
        spec.wdtype = None if w is None else np.dtype(w.dtype)
    elif spec.weighted != (w is not None):
        raise InvalidGraph(f"{where}: {'has no' if w is None else 'has'} weights but chunks[0] "
                           f"{'has' if spec.weighted else 'has none'}; every chunk must agree")
    elif w is not None and np.dtype(w.dtype) != spec.wdtype:
        raise DomainMismatch(f"{where}.weights has dtype {w.dtype} but chunks[0] has {spec.wdtype}; "
                             "every chunk's weights must have one dtype")
    for name, a in (("src", src), ("dst", dst)):
        if m and a.dtype.kind == "i":
            neg = a < 0
            if any_true(xp, neg):
                pos = first_bad(xp, neg)
                raise IndexOutOfBound(f"{where}.{name}[{pos}] = {int(a[pos])} is negative; vertex ids must "
                                      "lie in [0, num_vertices)")
        if m and num_vertices is not None:
            over = a >= num_vertices
            if any_true(xp, over):
                pos = first_bad(xp, over)
                raise IndexOutOfBound(f"{where}.{name}[{pos}] = {int(a[pos])} is out of range for "
                                      f"num_vertices={num_vertices} (ids must lie in [0, {num_vertices}))")
    return src, dst, w


def array_chunks(src, dst, w, chunk_size: int):
    """A re-iterable source of ``(src, dst, w)`` slices (views) of whole edge arrays."""
    m = int(src.shape[0])

    def gen():
        if m == 0:
            yield src, dst, w
        for s in range(0, m, chunk_size):
            e = min(m, s + chunk_size)
            yield src[s:e], dst[s:e], (None if w is None else w[s:e])

    # one slice of arrays in memory: the host build may read it an extra time for free
    gen.one_array = m <= chunk_size   # type: ignore[attr-defined]
    return gen




_SRC_NAMES = ("src", "source", "u", "row")
_DST_NAMES = ("dst", "destination", "target", "v", "col")
_W_NAMES = ("weights", "weight", "w", "value", "values")


def _column(batch, names, k, owner, required=True):
    """One column of an Arrow record batch / table or a mapping, by the first name present."""
    keys = list(batch.schema.names) if hasattr(batch, "schema") else list(batch.keys())
    for name in names:
        if name in keys:
            col = batch[name] if not hasattr(batch, "column") else batch.column(name)
            if hasattr(col, "to_numpy"):  # pyarrow Array / ChunkedArray
                if getattr(col, "null_count", 0):
                    raise InvalidGraph(f"{owner}: chunks[{k}] column {name!r} has {col.null_count} null "
                                       "values; edges need every id (and weight)")
                col = col.to_numpy()
            return col
    if required:
        raise InvalidValue(f"{owner}: chunks[{k}] has no column named one of {names}; got columns {keys}")
    return None


def unpack_chunk(chunk, k: int, owner: str):
    """``(src, dst, weights or None)`` of one chunk: a tuple/list of 2 or 3 arrays, an Arrow
    record batch or table, a mapping of columns, or an object with ``src``/``dst``/``weights``
    attributes (an :class:`hpgraph.io.EdgeList`)."""
    if isinstance(chunk, (tuple, list)):
        if len(chunk) not in (2, 3):
            raise InvalidValue(f"{owner}: chunks[{k}] must be (src, dst) or (src, dst, weights), got a "
                               f"{type(chunk).__name__} of {len(chunk)} items")
        return chunk[0], chunk[1], (chunk[2] if len(chunk) == 3 else None)
    if hasattr(chunk, "schema") or isinstance(chunk, dict):
        return (_column(chunk, _SRC_NAMES, k, owner), _column(chunk, _DST_NAMES, k, owner),
                _column(chunk, _W_NAMES, k, owner, required=False))
    if hasattr(chunk, "src") and hasattr(chunk, "dst"):
        return chunk.src, chunk.dst, getattr(chunk, "weights", None)
    raise InvalidValue(f"{owner}: chunks[{k}] must be a (src, dst[, weights]) tuple, an Arrow record "
                       f"batch, a mapping of columns or an EdgeList; got {type(chunk).__name__}")


def is_chunk_source(obj) -> bool:
    """True for what ``from_edges`` treats as chunks: a callable, an iterator, or a list/tuple
    whose items are chunks (not numbers)."""
    if callable(obj) and not hasattr(obj, "__array__"):
        return True
    if isinstance(obj, (list, tuple)):
        return len(obj) > 0 and all(isinstance(c, (tuple, list, dict)) or hasattr(c, "schema")
                                    or hasattr(c, "src") for c in obj)
    return hasattr(obj, "__next__") or hasattr(obj, "to_batches")


def chunk_source(chunks, owner: str):
    """A zero-argument callable returning an iterator of ``(src, dst, weights)`` tuples.

    A callable is called once per pass (it must give the same chunks each time: the build
    reads them twice); a list or tuple is re-read; an Arrow table is read batch by batch; a
    one-shot iterator is read once and its chunks kept (as they are: host chunks stay on
    the host).
    """
    if hasattr(chunks, "to_batches") and not callable(chunks):
        table = chunks
        items = lambda: table.to_batches()  # noqa: E731
    elif callable(chunks) and not hasattr(chunks, "__array__"):
        items = chunks
    elif isinstance(chunks, (list, tuple)):
        seq = chunks
        items = lambda: iter(seq)  # noqa: E731
    elif hasattr(chunks, "__next__"):
        kept = list(chunks)
        items = lambda: iter(kept)  # noqa: E731
    else:
        raise InvalidValue(f"{owner}: chunks must be a callable returning an iterable of chunks, a list of "
                           f"chunks, an iterator or an Arrow table; got {type(chunks).__name__}")

    def gen():
        for k, chunk in enumerate(items()):
            yield unpack_chunk(chunk, k, owner)

    return gen
