"""Shared pieces of the readers: the format tables, :class:`EdgeList`, line helpers and id checks."""

from __future__ import annotations

import re
import warnings
import io as _io
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import FileFormatError

#: canonical format name -> short description
FORMATS = {
    "mtx": "Matrix Market",
    "edgelist": "SNAP-style edge list (text)",
    "dimacs": "DIMACS shortest-path (.gr)",
    "lg": "Graphs.jl LG",
    "npz": "hpgraph NumPy archive",
}

#: file extension (after removing a compression suffix) -> format
EXTENSIONS = {
    ".mtx": "mtx",
    ".mm": "mtx",
    ".txt": "edgelist",
    ".el": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".tsv": "edgelist",
    ".csv": "edgelist",
    ".gr": "dimacs",
    ".lg": "lg",
    ".jlg": "lg",
    ".npz": "npz",
}

_FORMAT_ALIASES = {
    "mtx": "mtx", "mm": "mtx", "matrixmarket": "mtx", "matrix-market": "mtx", "market": "mtx",
    "edgelist": "edgelist", "edge-list": "edgelist", "el": "edgelist", "snap": "edgelist",
    "txt": "edgelist", "tsv": "edgelist", "csv": "edgelist", "edges": "edgelist",
    "dimacs": "dimacs", "gr": "dimacs",
    "lg": "lg", "jlg": "lg",
    "npz": "npz",
}

_COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}

_NPZ_TAG = "hpgraph.edges"
_NPZ_VERSION = 1


# ---------------------------------------------------------------------------------------------
# EdgeList: the array-level result of parsing (and of the generators)


@dataclass(frozen=True)
class EdgeList:
    """Edges as plain arrays, before a :class:`~hpgraph.graph.Graph` is built from them.

    Parameters
    ----------
    src, dst : array of int
        Edge endpoints, 0-based (NumPy or CuPy arrays, both on the same side).
    weights : array or None
        One value per edge, or None for an unweighted (pattern) graph.
    num_vertices : int
        Number of vertices; every id is in ``[0, num_vertices)``.
    directed : bool
        False means each listed edge stands for both directions (it is listed once).
    ids : numpy.ndarray or None
        When the ids were compacted (``relabel=True``), ``ids[new_id]`` is the original id.
    source : str or None
        Where the edges came from (a path or a generator spec), for messages.
    """

    src: object
    dst: object
    weights: object
    num_vertices: int
    directed: bool
    ids: object = None
    source: str | None = None
    meta: dict = field(default_factory=dict)

    @property
    def num_edges(self) -> int:
        """Number of listed edges (an undirected edge listed once counts once)."""
        return int(self.src.shape[0])

    def to_graph(self, *, backend=None, duplicates: str = "min"):
        """Build a :class:`~hpgraph.graph.Graph` with :meth:`Graph.from_edges`.

        Parameters
        ----------
        backend : {"auto", "cpu", "gpu", None}
            Where the graph lives.
        duplicates : str
            What to do with repeated edges (passed to ``Graph.from_edges``; default keeps the
            minimum weight, which is right for shortest paths on road graphs).
        """
        from ..graph import Graph

        return Graph.from_edges(self.src, self.dst, weights=self.weights,
                                num_vertices=self.num_vertices, directed=self.directed,
                                duplicates=duplicates, backend=backend)



def _replace(el: EdgeList, **kw) -> EdgeList:
    d = dict(src=el.src, dst=el.dst, weights=el.weights, num_vertices=el.num_vertices,
             directed=el.directed, ids=el.ids, source=el.source, meta=el.meta)
    d.update(kw)
    return EdgeList(**d)


def _relabel(el: EdgeList) -> EdgeList:
    m = el.num_edges
    both = np.concatenate([el.src, el.dst])
    s = np.sort(both)
    keep = np.empty(s.shape[0], dtype=bool)
    keep[:1] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    ids = s[keep]
    inv = np.searchsorted(ids, both)
    if el.ids is not None:
        ids = np.asarray(el.ids)[ids]
    return _replace(el, src=inv[:m].astype(np.int64), dst=inv[m:].astype(np.int64),
                    num_vertices=int(ids.shape[0]), ids=ids)


# ---------------------------------------------------------------------------------------------
# line helpers (used on the error path only; they are Python loops)


def _iter_lines(data: bytes):
    """Yield (1-based line number, line bytes without the newline)."""
    start = 0
    lineno = 0
    n = len(data)
    while start < n:
        end = data.find(b"\n", start)
        if end < 0:
            end = n
        lineno += 1
        yield lineno, data[start:end]
        start = end + 1


def _strip_comment(line: bytes, comment_chars=b"#%") -> bytes:
    for i, ch in enumerate(line):
        if ch in comment_chars:
            return line[:i].strip()
    return line.strip()


def _line_of_data_row(data: bytes, row: int, comment_chars=b"#%", skip_first=0) -> int | None:
    """Physical line number of the ``row``-th (0-based) data line (non-blank, non-comment)."""
    k = -1
    for lineno, line in _iter_lines(data):
        if lineno <= skip_first:
            continue
        if _strip_comment(line, comment_chars):
            k += 1
            if k == row:
                return lineno
    return None


def _count_lines(data: bytes) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _loadtxt(data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "input contained no data"
        return np.loadtxt(_io.BytesIO(data), ndmin=1 if isinstance(kw.get("dtype"), np.dtype)
                          and kw["dtype"].names else 2, **kw)


_INT_RE = re.compile(rb"^[+-]?\d+$")


def _is_int_token(tok: bytes) -> bool:
    return bool(_INT_RE.match(tok.strip()))


def _is_float_token(tok: bytes) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True



def _find_bad_edge_line(data, *, ncols, delim, use_w, check_cols=True, comment_chars=b"#%",
                        first_col=0, skip_first=0, what="vertex id"):
    for lineno, line in _iter_lines(data):
        if lineno <= skip_first:
            continue
        body = _strip_comment(line, comment_chars)
        if not body:
            continue
        toks = [t.strip() for t in body.split(b",")] if delim else body.split()
        shown = body.decode(errors="replace")
        if (check_cols and len(toks) != ncols) or len(toks) < min(ncols, first_col + (3 if use_w else 2)):
            return lineno, (f"expected {ncols} columns like the first edge line, found {len(toks)} "
                            f"({shown!r})")
        for t in toks[first_col:first_col + 2]:
            if not _is_int_token(t):
                return lineno, (f"{what} {t.decode(errors='replace')!r} is not an integer "
                                f"(line {shown!r})")
            if abs(int(t)) >= 2 ** 63:
                return lineno, f"{what} {t.decode(errors='replace')!r} is too large"
        if use_w and not _is_float_token(toks[first_col + 2]):
            return lineno, (f"weight {toks[first_col + 2].decode(errors='replace')!r} is not a number "
                            f"(line {shown!r})")
    return None


def _check_ids(data, p, src, dst, *, low, high, base, comment_chars, skip_first=0, row_offset=0,
               line_of=None):
    """Raise FileFormatError naming the line of the first id outside [low, high)."""
    if src.size == 0:
        return
    bad = (src < low) | (dst < low)
    if high is not None:
        bad |= (src >= high) | (dst >= high)
    if not bad.any():
        return
    k = int(np.argmax(bad))
    u, v = int(src[k]) + base, int(dst[k]) + base
    if line_of is not None:
        line = line_of(k)
    else:
        line = _line_of_data_row(data, k + row_offset, comment_chars, skip_first)
    lo_s = low + base
    if high is None:
        rng = f"vertex ids must be >= {lo_s}"
    else:
        rng = f"vertex ids must be in [{lo_s}, {high + base - 1}]"
    raise FileFormatError(f"edge ({u}, {v}) has an out-of-range id: {rng}", p, line)


