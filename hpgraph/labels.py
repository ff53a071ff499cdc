"""Vertex labels: the original ids of a graph whose vertices were renumbered to ``0..n-1``.

Tables hold vertices as strings or sparse integers (user names, 64-bit hashes); the engine
wants dense ids.  :func:`renumber` maps any such ids to ``0..n-1`` in one vectorised pass
(``pandas.factorize`` when pandas is there, ``numpy.unique`` otherwise) and returns a
:class:`VertexLabels`, which maps results back: vertex ``i`` has label ``labels[i]``.

Labels are kept **sorted ascending** (numbers by value, strings by code point), so that
``to_ids`` is a binary search and integer ids that are already ``0..n-1`` keep their numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .exceptions import DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidGraph, InvalidValue, \
    VertexNotFound

__all__ = ["VertexLabels", "renumber", "frame"]

class _NoFill:
    """Default of ``to_labels(missing=)``: negative ids are errors."""

    def __repr__(self):
        return "<error>"


_NO_FILL = _NoFill()
# pandas.api.types.infer_dtype results accepted as vertex labels (one kind of value each)
_LABEL_KINDS = {"string": "string", "bytes": "bytes", "integer": "integer", "floating": "floating",
                "mixed-integer-float": "floating"}


class VertexLabels(Sequence):
    """Original vertex ids of a renumbered graph; vertex ``i`` has label ``values[i]``.

    A read-only sequence (``len``, indexing, iteration give Python scalars), kept on the graph
    as ``Graph.node_labels`` by :func:`hpgraph.tables.from_pandas` and friends.

    Parameters
    ----------
    values : array_like
        The labels, 1-D, strictly increasing (so unique), of one kind: integers, floats,
        strings or bytes.  Copied.

    Raises
    ------
    InvalidValue
        ``values`` is not 1-D, not sorted, or has repeats.
    DomainMismatch
        ``values`` mixes kinds (for example integers and strings).
    """

    __slots__ = ("_values",)

    def __init__(self, values):
        v = _label_array(values, "VertexLabels: values")
        if v.ndim != 1:
            raise InvalidValue(f"VertexLabels: values must be 1-D, got shape {v.shape}")
        if v.shape[0] > 1:
            try:
                bad = ~(v[1:] > v[:-1])
            except TypeError as exc:
                raise DomainMismatch(f"VertexLabels: values must be of one kind, got {exc}") from None
            if bool(np.any(bad)):
                i = int(np.flatnonzero(bad)[0])
                raise InvalidValue(f"VertexLabels: values must be strictly increasing (sorted, no repeats), "
                                   f"got values[{i}:{i + 2}] = {v[i:i + 2].tolist()!r}")
        self._values = _frozen(v.copy())

    @classmethod
    def _trusted(cls, values):
        """Wrap an array already known to be 1-D, sorted and unique (no copy, no check)."""
        obj = cls.__new__(cls)
        obj._values = _frozen(values)
        return obj

    @property
    def values(self) -> np.ndarray:
        """The labels as a read-only NumPy array (object dtype for strings)."""
        return self._values

    @property
    def dtype(self) -> np.dtype:
        return self._values.dtype

    def __len__(self) -> int:
        return int(self._values.shape[0])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self._values[i].tolist()
        return self._values[i].item() if self._values.dtype != object else self._values[i]

    def __iter__(self):
        return iter(self._values.tolist())

    def __contains__(self, label) -> bool:
        try:
            self.to_ids([label])
        except (VertexNotFound, DomainMismatch):
            return False
        return True

    def __repr__(self) -> str:
        n = len(self)
        head = ", ".join(repr(x) for x in self[:min(n, 5)])
        more = ", ..." if n > 5 else ""
        return f"VertexLabels([{head}{more}], n={n}, dtype={self.dtype})"

    def to_ids(self, labels):
        """Vertex ids ``0..n-1`` of original labels (vectorised binary search).

        Parameters
        ----------
        labels : scalar or array_like
            One label or many (list, NumPy array, pandas Series).

        Returns
        -------
        int or numpy.ndarray of int64
            An int for a scalar label, else an array of the input's shape.

        Raises
        ------
        VertexNotFound
            A label is not a vertex of the graph (the message names the first one).
        DomainMismatch
            The labels are of another kind than the graph's (strings for an integer graph...).
        """
        scalar = np.ndim(labels) == 0 and not isinstance(labels, (list, tuple))
        q = _label_array([labels] if scalar else labels, "VertexLabels.to_ids: labels")
        v = self._values
        if q.size == 0:
            return np.zeros(q.shape, np.int64)
        try:
            pos = np.searchsorted(v, q.ravel()).astype(np.int64)
            hit = np.zeros(pos.shape, bool)
            inside = pos < v.shape[0]
            hit[inside] = v[pos[inside]] == q.ravel()[inside]
        except (TypeError, ValueError):
            raise DomainMismatch(f"VertexLabels.to_ids: the graph's labels are {_kind_name(v)} and the labels "
                                 f"asked for are {_kind_name(q)}") from None
        if not bool(hit.all()):
            i = int(np.flatnonzero(~hit)[0])
            raise VertexNotFound(f"VertexLabels.to_ids: label {q.ravel()[i]!r} is not a vertex of this graph "
                                 f"({len(self)} vertices)")
        pos = pos.reshape(q.shape)
        return int(pos[0]) if scalar else pos

    def to_labels(self, ids, missing=_NO_FILL):
        """Original labels of vertex ids (host or device arrays; the result is on the host).

        Parameters
        ----------
        ids : int or array_like of int
            Vertex ids in ``[0, n)``; negative ids are allowed only with ``missing``.
        missing : optional
            Label given to negative ids, such as the ``-1`` of "no parent" in BFS results
            (for example ``None``; the result then has object dtype where the labels' dtype
            cannot hold it).

        Returns
        -------
        label or numpy.ndarray
            A Python scalar for a scalar id, else an array of the input's shape.

        Raises
        ------
        IndexOutOfBound
            An id ``>= n``, or a negative id without ``missing``.
        DomainMismatch
            ``ids`` are not integers.
        """
        from . import backend

        scalar = np.ndim(ids) == 0
        a = np.asarray(backend.to_host(ids))
        if a.dtype.kind not in "iu":
            if a.size == 0:
                a = a.astype(np.int64)
            else:
                raise DomainMismatch(f"VertexLabels.to_labels: ids must be integers, got dtype {a.dtype}")
        n = len(self)
        neg = a < 0
        over = a >= n
        if bool(over.any()) or (missing is _NO_FILL and bool(neg.any())):
            bad = over | neg if missing is _NO_FILL else over
            i = int(np.flatnonzero(bad.ravel())[0])
            hint = "; pass missing= to map negative ids" if missing is _NO_FILL else ""
            raise IndexOutOfBound(f"VertexLabels.to_labels: id {int(a.ravel()[i])} is out of range for "
                                  f"{n} vertices (ids must lie in [0, {n})){hint}")
        if missing is not _NO_FILL and bool(neg.any()):
            out = self._values[np.where(neg, 0, a)]
            try:
                fill = np.asarray(missing, dtype=out.dtype)
                ok = fill.item() == missing if out.dtype != object else True
            except (TypeError, ValueError, OverflowError):
                ok = False
            if not ok:
                out = out.astype(object)
            out[neg] = missing
        else:
            out = self._values[a]
        if scalar:
            if isinstance(out, np.ndarray):
                out = out[()]
            return out.item() if isinstance(out, np.generic) else out
        return out

    def frame(self, **columns):
        """A pandas DataFrame with a ``vertex`` column of labels and one column per keyword.

        ``labels.frame(rank=hp.pagerank(G))`` gives cuGraph's result layout.  Each column is a
        per-vertex array of length n (host or device; copied to the host).

        Raises
        ------
        DimensionMismatch
            A column's length is not the number of vertices.
        InvalidValue
            A column is named ``vertex``.
        """
        return frame(self._values, columns, "VertexLabels.frame")


def renumber(src, dst, vertices=None, *, names=("src", "dst")):
    """Map vertex ids of any kind to ``0..n-1``: ``(src_ids, dst_ids, VertexLabels)``.

    Parameters
    ----------
    src, dst : array_like
        Edge endpoints, the same length: integers (any size), strings or bytes, all of one kind.
    vertices : array_like, optional
        More labels to include (isolated vertices); repeats are fine.
    names : (str, str)
        How error messages name ``src`` and ``dst`` (for example the table's column names).

    Returns
    -------
    src_ids, dst_ids : numpy.ndarray of int64
    labels : VertexLabels
        The distinct labels, sorted; ``labels[src_ids[k]] == src[k]``.

    Raises
    ------
    InvalidGraph
        A missing id (None / NaN).
    DomainMismatch
        Ids of mixed kinds (integers and strings), or of a kind that cannot label vertices.
    DimensionMismatch
        ``src`` and ``dst`` differ in length.
    """
    parts = [_label_array(src, names[0]), _label_array(dst, names[1])]
    if vertices is not None:
        parts.append(_label_array(vertices, "vertices"))
    for name, p in zip((*names, "vertices"), parts):
        if p.ndim != 1:
            raise InvalidValue(f"renumber: {name} must be 1-D, got shape {p.shape}")
    if parts[0].shape[0] != parts[1].shape[0]:
        raise DimensionMismatch(f"renumber: {names[0]} and {names[1]} must have the same length, got "
                                f"{parts[0].shape[0]} and {parts[1].shape[0]}")
    kinds = [_kind(p, name) for name, p in zip((*names, "vertices"), parts)]
    known = {k for k in kinds if k is not None}
    if len(known) > 1:
        desc = ", ".join(f"{name} holds {k} ids" for name, k in zip((*names, "vertices"), kinds) if k)
        raise DomainMismatch(f"renumber: vertex ids must all be of one kind, but {desc}; convert them first "
                             "(for example .astype(str))")
    m = parts[0].shape[0]
    allv = _concat(parts)
    codes, uniques = _factorize(allv)
    if uniques.dtype == object and known <= {"integer"} and len(uniques):
        uniques = _narrow_ints(uniques)
    return codes[:m], codes[m:2 * m], VertexLabels._trusted(uniques)


def frame(vertex, columns, who="frame"):
    """DataFrame with the ``vertex`` column first, then each per-vertex column (copied to the host)."""
    import pandas as pd

    from . import backend

    data = {"vertex": vertex}
    n = len(vertex)
    for name, col in columns.items():
        if name == "vertex":
            raise InvalidValue(f"{who}: 'vertex' is the label column; name the result column otherwise")
        a = np.asarray(backend.to_host(col))
        if a.ndim != 1 or a.shape[0] != n:
            raise DimensionMismatch(f"{who}: column {name!r} has shape {a.shape}, expected ({n},) (one value "
                                    "per vertex)")
        data[name] = a
    return pd.DataFrame(data)


# ---------------------------------------------------------------------------------------
# helpers


def _frozen(a):
    a = a.view()
    a.flags.writeable = False
    return a


def _label_array(values, what):
    """A NumPy array of labels; missing values are reported by the caller's kind check."""
    from . import backend

    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        try:  # pandas Series / Index, pyarrow Array
            values = values.to_numpy(zero_copy_only=False) if _is_arrow(values) else values.to_numpy()
        except TypeError:
            values = values.to_numpy()
    a = np.asarray(backend.to_host(values))
    if a.dtype.kind == "U":  # fixed-width strings compare like Python strings; keep them as objects
        a = a.astype(object)
    if a.dtype.kind in "cmMV":
        raise DomainMismatch(f"{what}: vertex labels must be integers, floats, strings or bytes, got dtype "
                             f"{a.dtype}")
    return a


def _is_arrow(x):
    return type(x).__module__.startswith("pyarrow")


def _kind(a, name):
    """'integer', 'floating', 'string' or 'bytes' for a label array (None when empty)."""
    if a.size == 0:
        return None
    k = a.dtype.kind
    if k in "iu":
        return "integer"
    if k == "b":
        raise DomainMismatch(f"renumber: {name} holds booleans; vertex ids must be integers or strings")
    if k == "f":
        bad = np.isnan(a)
        if bool(bad.any()):
            raise InvalidGraph(f"renumber: {name}[{int(np.flatnonzero(bad)[0])}] is NaN (a missing vertex id)")
        return "floating"
    if k == "S":
        return "bytes"
    try:
        import pandas as pd
        missing = np.asarray(pd.isna(a), bool)
    except ImportError:
        missing = np.frompyfunc(_is_missing, 1, 1)(a).astype(bool)
    if bool(missing.any()):
        raise InvalidGraph(f"renumber: {name}[{int(np.flatnonzero(missing)[0])}] is missing (None / NaN); "
                           "every edge needs both endpoints")
    try:
        from pandas.api.types import infer_dtype
        inferred = infer_dtype(a, skipna=False)
    except ImportError:
        inferred = _infer_kind_slow(a)
    kind = _LABEL_KINDS.get(inferred)
    if kind is None:
        raise DomainMismatch(f"renumber: {name} holds ids of mixed or unsupported kinds ({inferred}); vertex "
                             "ids must all be integers or all strings")
    return kind


def _is_missing(x):
    return x is None or (isinstance(x, float) and x != x) or type(x).__name__ in ("NAType", "NaTType")


def _infer_kind_slow(a):
    """Fallback for infer_dtype without pandas (a Python pass over the values)."""
    kinds = set()
    for x in a.tolist():
        if isinstance(x, bool):
            return "boolean"
        kinds.add("integer" if isinstance(x, int) else "floating" if isinstance(x, float) else
                  "string" if isinstance(x, str) else "bytes" if isinstance(x, bytes) else "mixed")
    if kinds == {"integer", "floating"}:
        return "mixed-integer-float"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _concat(parts):
    """One array of all labels, in a common NumPy dtype where one holds them all exactly."""
    dts = {p.dtype for p in parts if p.size}
    if len(dts) <= 1:
        return np.concatenate([p for p in parts if p.size] or parts[:1])
    common = np.result_type(*dts)
    kinds = {d.kind for d in dts}
    if common.kind != "O" and (kinds <= set("iu") and common.kind in "iu" or kinds == {"f"}):
        return np.concatenate([p.astype(common) for p in parts])
    return np.concatenate([p.astype(object) for p in parts])


def _factorize(allv):
    """(codes int64, sorted uniques) of a 1-D label array."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    try:
        if pd is not None:
            codes, uniques = pd.factorize(allv, sort=True)
            return np.asarray(codes, np.int64), np.asarray(uniques)
        uniques, codes = np.unique(allv, return_inverse=True)
        return codes.astype(np.int64).ravel(), uniques
    except TypeError as exc:  # values that do not order against each other
        raise DomainMismatch(f"renumber: vertex ids cannot be sorted ({exc}); they must all be integers or "
                             "all strings") from None


def _narrow_ints(uniques):
    """Python ints in an object array -> int64 / uint64 when they fit (object otherwise)."""
    lo, hi = uniques[0], uniques[-1]
    if -2**63 <= lo and hi < 2**63:
        return uniques.astype(np.int64)
    if lo >= 0 and hi < 2**64:
        return uniques.astype(np.uint64)
    return uniques


def _kind_name(a):
    k = a.dtype.kind
    return {"i": "integers", "u": "integers", "f": "floats", "S": "bytes", "O": "objects"}.get(k, str(a.dtype))
