"""Reading and writing graph files.

:func:`read` turns a file into a :class:`~hpgraph.graph.Graph`; :func:`write` does the reverse.
:func:`read_edges` stops one step earlier and returns an :class:`EdgeList` (plain arrays), which is
what the command line uses to time parsing and graph construction separately.

Formats (chosen from the file name, or with ``format=``; ``.gz``, ``.bz2`` and ``.xz`` compression
is recognised from the file's first bytes, so ``g.mtx.gz`` and ``g.mtx`` both work):

========== ======================================= ===================================================
format     extensions                              content
========== ======================================= ===================================================
``mtx``    ``.mtx``, ``.mm``                       Matrix Market ``coordinate`` or ``array``;
                                                   ``real``, ``integer`` or ``pattern``;
                                                   ``general`` (directed), ``symmetric`` (undirected),
                                                   ``skew-symmetric`` (directed). 1-based.
``edgelist`` ``.txt``, ``.el``, ``.edges``,       SNAP-style text: one ``u v [w]`` line per edge,
           ``.edgelist``, ``.tsv``, ``.csv``        whitespace or comma separated; ``#`` and ``%``
                                                   start comments; CRLF accepted. 0-based ids used
                                                   as given (``relabel=True`` compacts them).
``dimacs`` ``.gr``                                 DIMACS shortest-path: ``c`` comments,
                                                   ``p sp n m``, ``a u v w`` arcs. 1-based. Directed.
``lg``     ``.lg``, ``.jlg``                       Graphs.jl LG: header ``n,m,u|d,name``, then
                                                   ``u,v`` lines. 1-based. First graph of the file.
``npz``    ``.npz``                                hpgraph's own: arrays ``src``, ``dst``,
                                                   ``weights`` (optional), ``num_vertices``,
                                                   ``directed``. Exact round trip, dtypes kept.
========== ======================================= ===================================================

Errors are typed: a missing file raises :class:`~hpgraph.exceptions.GraphFileNotFound` (a
``FileNotFoundError``); everything else wrong with a file raises
:class:`~hpgraph.exceptions.FileFormatError` (a ``ValueError``) whose message starts with
``path:line:`` and says what was expected.
"""

from __future__ import annotations

import bz2
import gzip
import io as _io
import lzma
import os
import re
import sys
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .exceptions import FileFormatError, GraphFileNotFound, InvalidValue

__all__ = [
    "read",
    "write",
    "read_edges",
    "to_edgelist",
    "EdgeList",
    "detect_format",
    "FORMATS",
    "EXTENSIONS",
]

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
        from .graph import Graph

        return Graph.from_edges(self.src, self.dst, weights=self.weights,
                                num_vertices=self.num_vertices, directed=self.directed,
                                duplicates=duplicates, backend=backend)


# ---------------------------------------------------------------------------------------------
# public API


def read(path, *, directed=None, weighted=None, format=None, backend=None, progress=False,
         relabel=False, duplicates="min"):
    """Read a graph file into a :class:`~hpgraph.graph.Graph`.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Compressed files (gzip, bzip2, xz) are decompressed transparently.
    directed : bool, optional
        Override the file's direction. By default: Matrix Market ``symmetric`` files and LG
        files marked ``u`` are undirected; edge lists are directed unless their header says
        ``# Undirected graph`` (the SNAP convention, also written by :func:`write`); DIMACS files
        are directed; ``.npz`` files store the flag. ``directed=False`` on a directed file
        symmetrizes it.
    weighted : bool, optional
        ``None`` keeps the weights the file has (a third edge-list column, Matrix Market
        ``real``/``integer`` values, DIMACS arc lengths); ``False`` drops them; ``True``
        requires them (a :class:`FileFormatError` if the file has none).
    format : str, optional
        One of :data:`FORMATS` (``"mtx"``, ``"edgelist"``, ``"dimacs"``, ``"lg"``, ``"npz"``);
        by default chosen from the extension.
    backend : {"auto", "cpu", "gpu", None}
        Where the graph is built (parsing always happens on the host); None keeps it on the
        host, as ``Graph.from_edges`` does.
    progress : bool or callable, default False
        True shows a tqdm bar (or a plain percentage) on stderr while the file is read;
        a callable is called as ``progress(stage, fraction)``.
    relabel : bool, default False
        Compact the vertex ids to ``0..k-1`` in increasing order of the original ids
        (use :func:`read_edges` to get the mapping). Without it, ids are used as given and
        ``num_vertices = max id + 1``.
    duplicates : str, default "min"
        Policy for repeated edges, passed to ``Graph.from_edges``.

    Returns
    -------
    Graph

    Raises
    ------
    GraphFileNotFound
        The file does not exist (also a ``FileNotFoundError``).
    FileFormatError
        Anything wrong with the file: a directory, an unknown extension, a bad header, a
        truncated body, a non-numeric token, a negative or out-of-range vertex id. The message
        names the file and, where it applies, the line.

    Examples
    --------
    >>> import hpgraph as hp
    >>> G = hp.read("chesapeake.mtx.gz")            # doctest: +SKIP
    >>> G = hp.read("Wiki-Vote.txt.gz", directed=False)   # doctest: +SKIP
    """
    el = read_edges(path, directed=directed, weighted=weighted, format=format, progress=progress,
                    relabel=relabel)
    return el.to_graph(backend=backend, duplicates=duplicates)


def read_edges(path, *, directed=None, weighted=None, format=None, progress=False,
               relabel=False) -> EdgeList:
    """Parse a graph file into an :class:`EdgeList` (host NumPy arrays).

    Same parameters and errors as :func:`read`, without building the graph. With
    ``relabel=True`` the result's ``ids`` maps new ids to the original ones.
    """
    if weighted not in (None, True, False):
        raise InvalidValue(f"weighted must be None, True or False, got {weighted!r}")
    if directed not in (None, True, False):
        raise InvalidValue(f"directed must be None, True or False, got {directed!r}")
    p = _check_path(path)
    fmt = _format_for(p, format)
    report = _make_progress(progress, p.name)
    try:
        data = _read_bytes(p, report)
    finally:
        report.close()
    if format is None and fmt != "mtx" and fmt != "npz" and data[:14].lower() == b"%%matrixmarket":
        fmt = "mtx"  # a Matrix Market file under another extension
    parser = _PARSERS[fmt]
    el = parser(data, p, weighted=weighted, directed=directed)
    if weighted is True and el.weights is None:
        raise FileFormatError(f"the {FORMATS[fmt]} file has no edge weights but weighted=True "
                              "was given; pass weighted=None to accept unweighted files", p)
    if weighted is False and el.weights is not None:
        el = _replace(el, weights=None)
    if directed is not None and bool(directed) != el.directed:
        if directed and not el.directed:  # each undirected edge becomes two arcs
            loop = el.src == el.dst
            src = np.concatenate([el.src, el.dst[~loop]])
            dst = np.concatenate([el.dst, el.src[~loop]])
            w = None if el.weights is None else np.concatenate([el.weights, el.weights[~loop]])
            el = _replace(el, src=src, dst=dst, weights=w, directed=True)
        else:
            el = _replace(el, directed=False)
    if relabel:
        el = _relabel(el)
    return el


def write(G, path, *, format=None, comment=None) -> None:
    """Write a graph to a file; the format follows the extension (or ``format=``).

    Parameters
    ----------
    G : Graph or EdgeList
        The graph. Undirected graphs are written with each edge once where the format can say
        "undirected" (Matrix Market ``symmetric``, edge list ``# Undirected graph`` header, LG
        ``u``, npz flag) and with both arcs in DIMACS, which has no undirected form.
    path : str or os.PathLike
        Destination; a ``.gz`` / ``.bz2`` / ``.xz`` suffix compresses.
    format : str, optional
        One of :data:`FORMATS`; by default from the extension.
    comment : str, optional
        A comment line written into text formats.

    Raises
    ------
    FileFormatError
        Unknown extension.
    InvalidValue
        A weighted graph to LG, which cannot hold weights.

    Notes
    -----
    ``read(write(G))`` gives back the same matrix for every format: text formats keep the
    values (floats as shortest round-trip repr) but not the dtype width (integers read back as
    int64, floats as float64); ``.npz`` keeps everything. Edge lists and npz also record
    ``num_vertices``, so isolated vertices with the highest ids survive the round trip.
    """
    p = Path(os.fspath(path))
    fmt = _format_for(p, format, for_write=True)
    el = G if isinstance(G, EdgeList) else to_edgelist(G)
    writer = _WRITERS[fmt]
    data = writer(el, p, comment)
    comp = _COMPRESSION_SUFFIXES.get(p.suffix.lower())
    if comp == "gzip":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    elif comp == "bz2":
        data = bz2.compress(data)
    elif comp == "xz":
        data = lzma.compress(data)
    if p.is_dir():
        raise FileFormatError("is a directory; give a file name to write to", p)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise GraphFileNotFound(f"{p}: cannot write, the directory {str(parent)!r} does not exist", p)
    with open(p, "wb") as f:
        f.write(data)


def to_edgelist(G, *, half=None) -> EdgeList:
    """The edges of a Graph as a host :class:`EdgeList`.

    For an undirected graph each edge is listed once (``src <= dst``) unless ``half=False``.
    """
    from . import backend as _backend

    A = G.to_scipy() if hasattr(G, "to_scipy") else G
    coo = A.tocoo()
    row = np.asarray(_backend.to_host(coo.row if hasattr(coo, "row") else coo.coords[0]))
    col = np.asarray(_backend.to_host(coo.col if hasattr(coo, "col") else coo.coords[1]))
    directed = bool(getattr(G, "directed", True))
    weighted = bool(getattr(G, "weighted", True))
    vals = np.asarray(_backend.to_host(coo.data)) if weighted else None
    if half is None:
        half = not directed
    if half:
        keep = row <= col
        row, col = row[keep], col[keep]
        vals = None if vals is None else vals[keep]
    order = np.lexsort((col, row))
    row, col = row[order], col[order]
    vals = None if vals is None else vals[order]
    n = int(getattr(G, "num_vertices", A.shape[0]))
    return EdgeList(row, col, vals, n, directed)


def detect_format(path, format=None) -> str:
    """The canonical format name for ``path`` (or for an explicit ``format``), see :data:`FORMATS`."""
    return _format_for(Path(os.fspath(path)), format)


# ---------------------------------------------------------------------------------------------
# paths, formats, bytes


def _known_extensions() -> str:
    exts = sorted(EXTENSIONS)
    return ", ".join(exts) + " (each optionally followed by .gz, .bz2 or .xz)"


def _format_for(p: Path, format, for_write=False) -> str:
    if format is not None:
        key = str(format).lower().lstrip(".")
        if key not in _FORMAT_ALIASES:
            raise InvalidValue(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
        return _FORMAT_ALIASES[key]
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION_SUFFIXES:
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    if ext not in EXTENSIONS:
        what = f"extension {ext!r}" if ext else "no extension"
        verb = "write" if for_write else "read"
        raise FileFormatError(f"cannot tell the graph format from the file name ({what}); known "
                              f"extensions: {_known_extensions()}. Pass format= "
                              f"({', '.join(FORMATS)}; --format on the command line) to {verb} it "
                              "anyway", p)
    return EXTENSIONS[ext]


def _check_path(path) -> Path:
    try:
        p = Path(os.fspath(path))
    except TypeError:
        raise InvalidValue(f"path must be a str or os.PathLike, got {type(path).__name__}") from None
    if not p.exists():
        parent = p.parent if str(p.parent) else Path(".")
        hint = "" if parent.is_dir() else f" (the directory {str(parent)!r} does not exist either)"
        raise GraphFileNotFound(f"{p}: no such file{hint}", p)
    if p.is_dir():
        raise FileFormatError("is a directory, not a graph file", p)
    return p


def _read_bytes(p: Path, report) -> bytes:
    """The file's content, decompressed when it starts with a gzip/bzip2/xz magic number."""
    try:
        f = open(p, "rb")
    except PermissionError:
        raise FileFormatError("cannot be read (permission denied)", p) from None
    except OSError as exc:
        raise FileFormatError(f"cannot be opened ({exc.strerror or exc})", p) from None
    with f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(6)
        f.seek(0)
        if head[:2] == b"\x1f\x8b":
            kind, stream = "gzip", gzip.GzipFile(fileobj=f, mode="rb")
        elif head[:3] == b"BZh":
            kind, stream = "bzip2", bz2.BZ2File(f, mode="rb")
        elif head[:6] == b"\xfd7zXZ\x00":
            kind, stream = "xz", lzma.LZMAFile(f, mode="rb")
        else:
            kind, stream = None, f
        chunks = []
        try:
            while True:
                chunk = stream.read(1 << 22)
                if not chunk:
                    break
                chunks.append(chunk)
                if size:
                    report("read", min(1.0, f.tell() / size))
        except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
            raise FileFormatError(f"corrupt or truncated {kind or ''} data ({exc})".replace("  ", " "),
                                  p) from None
        report("read", 1.0)
    return b"".join(chunks)


class _Progress:
    """Progress reporting: nothing, a callable ``(stage, fraction)``, or a bar on stderr."""

    def __init__(self, progress, name):
        self._cb = None
        self._bar = None
        self._last = -1
        self._name = name
        if callable(progress):
            self._cb = progress
        elif progress:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=1000, desc=f"reading {name}", unit="‰", leave=False,
                                 file=sys.stderr, bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}")
            except Exception:  # tqdm missing: a plain percentage
                self._bar = None
                self._plain = True
            else:
                self._plain = False
        self._enabled = bool(progress)

    def __call__(self, stage, fraction):
        if self._cb is not None:
            self._cb(stage, float(fraction))
        elif self._bar is not None:
            k = int(fraction * 1000)
            if k > self._last:
                self._bar.update(k - max(self._last, 0))
                self._last = k
        elif self._enabled and getattr(self, "_plain", False):
            k = int(fraction * 100)
            if k // 10 > self._last // 10 or k == 100 and self._last != 100:
                print(f"\rreading {self._name}: {k:3d}%", end="", file=sys.stderr, flush=True)
                self._last = k

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._enabled and getattr(self, "_plain", False) and self._last >= 0:
            print(file=sys.stderr, flush=True)
            self._last = -1


def _make_progress(progress, name) -> _Progress:
    return _Progress(progress, name)


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


# ---------------------------------------------------------------------------------------------
# edge lists


def _parse_edgelist(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    if not data.strip():
        raise FileFormatError("the file is empty; expected lines 'u v' or 'u v weight'", p)
    # Header: leading comment lines carry direction hints (SNAP) and our num_vertices record.
    hint_directed = None
    hint_n = None
    first = None  # (lineno, tokens)
    delim = None
    for lineno, line in _iter_lines(data):
        s = line.strip()
        if not s:
            continue
        if s[:1] in (b"#", b"%"):
            low = s.lower()
            if b"undirected graph" in low:
                hint_directed = False
            elif b"directed graph" in low and hint_directed is None:
                hint_directed = True
            m = re.search(rb"hpgraph:\s*num_vertices\s*=\s*(\d+)", low)
            if m:
                hint_n = int(m.group(1))
            continue
        body = _strip_comment(s)
        delim = "," if b"," in body else None
        toks = body.split(b",") if delim else body.split()
        first = (lineno, [t.strip() for t in toks])
        break
    if first is None:
        if hint_n is not None:  # a written empty graph
            e = np.zeros(0, np.int64)
            return EdgeList(e, e.copy(), None, hint_n, True if hint_directed is None else hint_directed,
                            source=str(p))
        raise FileFormatError("no edge lines found (only comments or blank lines); expected "
                              "lines 'u v' or 'u v weight'", p)
    lineno, toks = first
    ncols = len(toks)
    if ncols < 2:
        raise FileFormatError(f"expected at least 2 columns 'u v [weight]', found {ncols} "
                              f"({b' '.join(toks).decode(errors='replace')!r})", p, lineno)
    use_w = ncols >= 3 and weighted is not False
    wkind = None
    if use_w:
        wkind = "i" if _is_int_token(toks[2]) else "f"
    arr = _parse_columns(data, p, ncols=ncols, delim=delim, use_w=use_w, wkind=wkind)
    if use_w:
        src, dst, w = arr["u"], arr["v"], arr["w"]
    else:
        src, dst, w = arr[:, 0], arr[:, 1], None
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    if w is not None:
        w = np.ascontiguousarray(w)
    _check_ids(data, p, src, dst, low=0, high=hint_n, base=0, comment_chars=b"#%")
    if src.size:
        n = int(max(src.max(), dst.max())) + 1
    else:
        n = 0
    if hint_n is not None:
        n = max(n, hint_n)
    if n == 0:
        raise FileFormatError("no edge lines found; expected lines 'u v' or 'u v weight'", p)
    d = True if hint_directed is None else hint_directed
    return EdgeList(src, dst, w, n, d, source=str(p))


def _parse_columns(data, p, *, ncols, delim, use_w, wkind):
    """Fast parse with np.loadtxt; on failure, find the bad line with a slow pass."""
    kw = dict(comments=["#", "%"], delimiter=delim)
    attempts = []
    if use_w:
        for kind in ([wkind, "f"] if wkind == "i" else ["f"]):
            dt = np.dtype([("u", np.int64), ("v", np.int64), ("w", np.int64 if kind == "i" else np.float64)])
            attempts.append(dict(dtype=dt, usecols=(0, 1, 2) if ncols > 3 else None))
    else:
        attempts.append(dict(dtype=np.dtype(np.int64), usecols=(0, 1) if ncols > 2 else None))
    last = None
    for a in attempts:
        try:
            return _loadtxt(data, **kw, **a)
        except ValueError as exc:
            last = exc
            continue
    bad = _find_bad_edge_line(data, ncols=ncols, delim=delim, use_w=use_w, check_cols=ncols <= 3 or not use_w)
    if bad is not None:
        raise FileFormatError(bad[1], p, bad[0]) from None
    raise FileFormatError(f"could not parse the edge list ({last})", p) from None


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


# ---------------------------------------------------------------------------------------------
# Matrix Market


_MM_OBJECTS = (b"matrix",)
_MM_FORMATS = (b"coordinate", b"array")
_MM_FIELDS = (b"real", b"double", b"integer", b"pattern", b"complex")
_MM_SYMMETRY = (b"general", b"symmetric", b"skew-symmetric", b"hermitian")


def _parse_mtx(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    import scipy.io

    if not data.strip():
        raise FileFormatError("the file is empty; expected a '%%MatrixMarket matrix coordinate ...' "
                              "header", p, 1)
    lines = _iter_lines(data)
    _, banner = next(lines)
    toks = banner.strip().lower().split()
    expected = ("expected '%%MatrixMarket matrix coordinate real|integer|pattern "
                "general|symmetric|skew-symmetric'")
    shown = banner.strip().decode(errors="replace")[:120]
    if not toks or toks[0] != b"%%matrixmarket":
        raise FileFormatError(f"not a Matrix Market file: the first line is {shown!r}; {expected}", p, 1)
    if (len(toks) != 5 or toks[1] not in _MM_OBJECTS or toks[2] not in _MM_FORMATS
            or toks[3] not in _MM_FIELDS or toks[4] not in _MM_SYMMETRY):
        raise FileFormatError(f"bad Matrix Market header {shown!r}; {expected}", p, 1)
    fmt, fld, sym = toks[2], toks[3], toks[4]
    if fld == b"complex":
        raise FileFormatError("complex Matrix Market values are not supported for graphs; "
                              "use real, integer or pattern", p, 1)
    # The size line: the first line after the banner that is not a comment.
    size_line = None
    for lineno, line in lines:
        s = line.strip()
        if not s or s[:1] == b"%":
            continue
        size_line = (lineno, s)
        break
    if size_line is None:
        raise FileFormatError("truncated: no size line 'rows cols entries' after the header", p,
                              _count_lines(data))
    lineno, s = size_line
    parts = s.split()
    want = 3 if fmt == b"coordinate" else 2
    if len(parts) != want or not all(_is_int_token(t) for t in parts) or any(int(t) < 0 for t in parts):
        spec = "'rows cols entries'" if want == 3 else "'rows cols'"
        raise FileFormatError(f"bad size line {s.decode(errors='replace')!r}: expected {spec} "
                              "as non-negative integers", p, lineno)
    nrows, ncols = int(parts[0]), int(parts[1])
    nnz = int(parts[2]) if want == 3 else None
    if nrows != ncols:
        raise FileFormatError(f"the matrix is {nrows} x {ncols}; a graph's adjacency matrix must be "
                              "square", p, lineno)
    try:
        M = scipy.io.mmread(_io.BytesIO(data), spmatrix=False)
    except (ValueError, OverflowError, IndexError) as exc:
        msg = str(exc)
        m = re.match(r"\s*Line (\d+):\s*(.*)", msg)
        if m:
            line, text = int(m.group(1)), m.group(2).rstrip(".")
            content = next((ln for k, ln in _iter_lines(data) if k == line), b"").strip()
            quoted = f" in {content.decode(errors='replace')[:80]!r}" if content else ""
            raise FileFormatError(f"{text}{quoted} (Matrix Market {fld.decode()} {sym.decode()}, "
                                  f"{nrows} x {ncols}, 1-based indices)", p, line) from None
        if "truncated" in msg.lower():
            last = _count_lines(data)
            m2 = re.search(r"another (\d+)", msg)
            if m2 and nnz is not None:
                found = nnz - int(m2.group(1))
                raise FileFormatError(f"truncated: the size line (line {lineno}) promises {nnz} "
                                      f"entries but the file ends after {found}", p, last) from None
            raise FileFormatError(f"truncated: {msg}", p, last) from None
        raise FileFormatError(f"malformed Matrix Market file ({msg})", p) from None
    if isinstance(M, np.ndarray):  # dense 'array' format: nonzeros are edges
        r, c = np.nonzero(M)
        vals = M[r, c]
    else:
        r, c = M.coords
        vals = M.data
    r = np.asarray(r, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    undirected = sym in (b"symmetric", b"hermitian")
    if undirected:  # mmread expanded both triangles; keep each edge once
        keep = r >= c
        r, c, vals = r[keep], c[keep], vals[keep]
    if fld == b"pattern":
        w = None
    elif fld == b"integer":
        w = np.asarray(vals, dtype=np.int64)
    else:
        w = np.asarray(vals, dtype=np.float64)
    return EdgeList(r, c, w, nrows, not undirected, source=str(p),
                    meta={"field": fld.decode(), "symmetry": sym.decode()})


# ---------------------------------------------------------------------------------------------
# DIMACS


def _parse_dimacs(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    if not data.strip():
        raise FileFormatError("the file is empty; expected 'p sp <nodes> <arcs>' and 'a u v w' lines", p)
    pline = None
    first_a = None  # (line number, tokens) of the first arc line
    for lineno, line in _iter_lines(data):
        s = line.strip()
        if not s or s[:1] == b"c":
            continue
        if s[:1] == b"p":
            if pline is not None:
                raise FileFormatError("a second problem line 'p ...'", p, lineno)
            toks = s.split()
            if (len(toks) != 4 or toks[1] != b"sp" or not _is_int_token(toks[2])
                    or not _is_int_token(toks[3]) or int(toks[2]) < 0 or int(toks[3]) < 0):
                raise FileFormatError(f"bad problem line {s.decode(errors='replace')!r}: expected "
                                      "'p sp <nodes> <arcs>'", p, lineno)
            pline = (lineno, int(toks[2]), int(toks[3]))
            continue
        first_a = (lineno, s.split())
        break
    if pline is None:
        raise FileFormatError("no problem line 'p sp <nodes> <arcs>' before the first arc", p,
                              None if first_a is None else first_a[0])
    p_lineno, n, m = pline
    # Each arc line must start with 'a'; 'c' and 'p' lines are comments to loadtxt.
    n_lines_a = data.count(b"\na") + (1 if data[:1] == b"a" else 0)
    arr = None
    wkind = "i"
    if first_a is not None and len(first_a[1]) >= 4 and not _is_int_token(first_a[1][3]):
        wkind = "f"
    errors = []
    for kind in ([wkind, "f"] if wkind == "i" else ["f"]):
        dt = np.dtype([("u", np.int64), ("v", np.int64), ("w", np.int64 if kind == "i" else np.float64)])
        try:
            arr = _loadtxt(data, dtype=dt, comments=["c", "p"], usecols=(1, 2, 3))
            break
        except ValueError as exc:
            errors.append(exc)
    if arr is None or arr.shape[0] != n_lines_a:
        bad = _find_bad_dimacs_line(data)
        if bad is not None:
            raise FileFormatError(bad[1], p, bad[0]) from None
        if arr is None:
            raise FileFormatError(f"could not parse the arcs ({errors[-1]})", p)
    k = arr.shape[0]
    if k != m:
        last = _count_lines(data)
        if k < m:
            raise FileFormatError(f"truncated: the problem line (line {p_lineno}) promises {m} arcs "
                                  f"but the file has {k}", p, last)
        raise FileFormatError(f"the problem line (line {p_lineno}) promises {m} arcs but the file "
                              f"has {k}", p, last)
    src = arr["u"] - 1
    dst = arr["v"] - 1

    def line_of(row):
        j = -1
        for lineno, line in _iter_lines(data):
            if line.lstrip()[:1] == b"a":
                j += 1
                if j == row:
                    return lineno
        return None

    _check_ids(data, p, src, dst, low=0, high=n, base=1, comment_chars=b"cp", line_of=line_of)
    w = np.ascontiguousarray(arr["w"])
    return EdgeList(np.ascontiguousarray(src), np.ascontiguousarray(dst), w, n, True, source=str(p))


def _find_bad_dimacs_line(data):
    for lineno, line in _iter_lines(data):
        s = line.strip()
        if not s or s[:1] in (b"c", b"p"):
            continue
        toks = s.split()
        shown = s.decode(errors="replace")
        if toks[0] != b"a":
            return lineno, f"expected an arc line 'a u v w' or a comment 'c ...', found {shown!r}"
        if len(toks) != 4:
            return lineno, f"expected 'a u v w' (4 fields), found {len(toks)} fields ({shown!r})"
        for t in toks[1:3]:
            if not _is_int_token(t):
                return lineno, f"vertex id {t.decode(errors='replace')!r} is not an integer ({shown!r})"
        if not _is_float_token(toks[3]):
            return lineno, f"arc length {toks[3].decode(errors='replace')!r} is not a number ({shown!r})"
    return None


# ---------------------------------------------------------------------------------------------
# LG (Graphs.jl)


def _parse_lg(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    if not data.strip():
        raise FileFormatError("the file is empty; expected a header 'n,m,u|d,name'", p, 1)
    lines = _iter_lines(data)
    header = None
    for lineno, line in lines:
        s = line.strip()
        if s and not s.startswith(b"#"):
            header = (lineno, s)
            break
    if header is None:
        raise FileFormatError("no header line 'n,m,u|d,name'", p)
    h_lineno, s = header
    toks = [t.strip() for t in s.split(b",")]
    if (len(toks) < 3 or not _is_int_token(toks[0]) or not _is_int_token(toks[1])
            or int(toks[0]) < 0 or int(toks[1]) < 0 or toks[2].lower() not in (b"u", b"d")):
        raise FileFormatError(f"bad LG header {s.decode(errors='replace')[:120]!r}: expected "
                              "'<vertices>,<edges>,u|d,<name>'", p, h_lineno)
    n, m = int(toks[0]), int(toks[1])
    is_directed = toks[2].lower() == b"d"
    if m == 0:
        arr = np.zeros((0, 2), np.int64)
    else:
        try:
            arr = _loadtxt(data, dtype=np.dtype(np.int64), delimiter=",", skiprows=h_lineno,
                           max_rows=m, comments=None)
        except ValueError as exc:
            bad = _find_bad_edge_line(data[:], ncols=2, delim=",", use_w=False, comment_chars=b"",
                                      skip_first=h_lineno)
            if bad is not None:
                raise FileFormatError(bad[1], p, bad[0]) from None
            raise FileFormatError(f"could not parse the edges ({exc})", p) from None
        if arr.shape[1] != 2:
            raise FileFormatError(f"expected 2 columns 'u,v', found {arr.shape[1]}", p, h_lineno + 1)
    if arr.shape[0] < m:
        raise FileFormatError(f"truncated: the header (line {h_lineno}) promises {m} edges but the "
                              f"file has {arr.shape[0]}", p, _count_lines(data))
    src = np.ascontiguousarray(arr[:, 0]) - 1
    dst = np.ascontiguousarray(arr[:, 1]) - 1
    _check_ids(data, p, src, dst, low=0, high=n, base=1, comment_chars=b"",
               line_of=lambda k: h_lineno + 1 + k)
    return EdgeList(src, dst, None, n, is_directed, source=str(p),
                    meta={"name": toks[3].decode(errors="replace") if len(toks) > 3 else ""})


# ---------------------------------------------------------------------------------------------
# npz


def _parse_npz(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    try:
        z = np.load(_io.BytesIO(data), allow_pickle=False)
    except Exception as exc:
        raise FileFormatError(f"not a NumPy .npz archive ({type(exc).__name__}: {exc})", p) from None
    if not hasattr(z, "files"):
        raise FileFormatError("holds a single array (.npy), not an .npz archive of edges", p)
    with z:
        missing = [k for k in ("src", "dst", "num_vertices", "directed") if k not in z.files]
        if missing:
            raise FileFormatError(f"not an hpgraph edge archive: missing array(s) {', '.join(missing)} "
                                  f"(found {', '.join(z.files) or 'none'}); write it with hpgraph.io.write",
                                  p)
        try:
            src = np.asarray(z["src"])
            dst = np.asarray(z["dst"])
            w = np.asarray(z["weights"]) if "weights" in z.files else None
            n = int(z["num_vertices"])
            d = bool(z["directed"])
        except Exception as exc:
            raise FileFormatError(f"corrupt archive ({type(exc).__name__}: {exc})", p) from None
    if src.ndim != 1 or dst.shape != src.shape or (w is not None and w.shape != src.shape):
        raise FileFormatError(f"src, dst and weights must be 1-D of one length; got shapes {src.shape}, "
                              f"{dst.shape}, {None if w is None else w.shape}", p)
    if src.dtype.kind not in "iu" or dst.dtype.kind not in "iu":
        raise FileFormatError(f"src and dst must hold integers, got {src.dtype} and {dst.dtype}", p)
    if n < 0:
        raise FileFormatError(f"num_vertices is negative ({n})", p)
    if src.size:
        bad = (src < 0) | (dst < 0) | (src >= n) | (dst >= n)
        if bad.any():
            k = int(np.argmax(bad))
            raise FileFormatError(f"edge {k} ({int(src[k])}, {int(dst[k])}) has an id outside "
                                  f"[0, {n - 1}]", p)
    return EdgeList(src, dst, w, n, d, source=str(p))


_PARSERS = {
    "mtx": _parse_mtx,
    "edgelist": _parse_edgelist,
    "dimacs": _parse_dimacs,
    "lg": _parse_lg,
    "npz": _parse_npz,
}


# ---------------------------------------------------------------------------------------------
# writers (each returns the uncompressed bytes)


def _fmt_rows(cols, sep, base=0) -> bytes:
    """Fast text rows: ``cols`` are 1-D host arrays joined by ``sep``; ``base`` is added to the
    first two (id) columns. Integers print as ``%d``, floats as their shortest round-trip repr."""
    m = int(cols[0].shape[0])
    if m == 0:
        return b""
    specs = []
    values = []
    for k, a in enumerate(cols):
        a = np.asarray(a)
        if a.dtype.kind in "iub":
            a = a.astype(np.int64)
            if base and k < 2:
                a = a + base
            specs.append("%d")
        else:
            a = a.astype(np.float64)
            specs.append("%r")
        values.append(a.tolist())
    row = sep.join(specs) + "\n"
    out = []
    step = 1 << 18
    for i in range(0, m, step):
        chunk = [v[i:i + step] for v in values]
        flat = [x for tup in zip(*chunk) for x in tup]
        out.append((row * len(chunk[0])) % tuple(flat))
    return "".join(out).encode()


def _write_edgelist(el: EdgeList, p: Path, comment) -> bytes:
    suffixes = [s.lower() for s in p.suffixes if s.lower() not in _COMPRESSION_SUFFIXES]
    sep = "," if suffixes and suffixes[-1] == ".csv" else "\t"
    head = []
    if el.directed:
        head.append("# Directed graph")
    else:
        head.append("# Undirected graph (each unordered pair of nodes is saved once)")
    if comment:
        head += ["# " + c for c in str(comment).splitlines()]
    head.append(f"# Nodes: {el.num_vertices} Edges: {el.num_edges}")
    head.append(f"# hpgraph: num_vertices={el.num_vertices}")
    head.append("# " + sep.join(["FromNodeId", "ToNodeId"] + (["Weight"] if el.weights is not None else [])))
    src, dst, w = _host(el.src), _host(el.dst), _host(el.weights)
    cols = [src, dst] + ([w] if w is not None else [])
    return ("\n".join(head) + "\n").encode() + _fmt_rows(cols, sep)


def _write_mtx(el: EdgeList, p: Path, comment) -> bytes:
    import scipy.io
    import scipy.sparse as sp

    src, dst, w = _host(el.src), _host(el.dst), _host(el.weights)
    n = el.num_vertices
    if el.directed:
        r, c = src, dst
        symmetry = "general"
    else:  # lower triangle, as the format wants
        r, c = np.maximum(src, dst), np.minimum(src, dst)
        symmetry = "symmetric"
    if w is None:
        fld = "pattern"
        vals = np.ones(r.shape[0], dtype=np.float64)
    elif np.asarray(w).dtype.kind in "iub":
        fld = "integer"
        vals = np.asarray(w, dtype=np.int64)
    else:
        fld = "real"
        vals = np.asarray(w, dtype=np.float64)
    A = sp.coo_array((vals, (np.asarray(r, np.int64), np.asarray(c, np.int64))), shape=(n, n))
    buf = _io.BytesIO()
    text = "written by hpgraph" + (f"\n{comment}" if comment else "")
    scipy.io.mmwrite(buf, A, comment=text, field=fld, symmetry=symmetry)
    return buf.getvalue()


def _write_dimacs(el: EdgeList, p: Path, comment) -> bytes:
    src, dst, w = _host(el.src), _host(el.dst), _host(el.weights)
    if not el.directed:  # DIMACS has only arcs: write both directions (a self-loop once)
        loop = src == dst
        src, dst = np.concatenate([src, dst[~loop]]), np.concatenate([dst, src[~loop]])
        if w is not None:
            w = np.concatenate([w, w[~loop]])
    if w is None:
        w = np.ones(src.shape[0], dtype=np.int64)
    head = ["c written by hpgraph"]
    if comment:
        head += ["c " + c for c in str(comment).splitlines()]
    head.append(f"p sp {el.num_vertices} {src.shape[0]}")
    rows = _fmt_rows([src, dst, w], " ", base=1)
    if rows:
        rows = b"a " + rows[:-1].replace(b"\n", b"\na ") + b"\n"
    return ("\n".join(head) + "\n").encode() + rows


def _write_lg(el: EdgeList, p: Path, comment) -> bytes:
    if el.weights is not None:
        raise InvalidValue("the LG format cannot hold edge weights; write .mtx, .el or .npz, or "
                           "drop the weights first")
    src, dst = _host(el.src), _host(el.dst)
    name = re.sub(r"[,\s]+", "_", Path(p.stem).stem or "graph")
    head = f"{el.num_vertices},{src.shape[0]},{'d' if el.directed else 'u'},{name}\n"
    return head.encode() + _fmt_rows([src, dst], ",", base=1)


def _write_npz(el: EdgeList, p: Path, comment) -> bytes:
    arrays = dict(src=_host(el.src), dst=_host(el.dst), num_vertices=np.int64(el.num_vertices),
                  directed=np.bool_(el.directed), format=np.str_(_NPZ_TAG), version=np.int64(_NPZ_VERSION))
    if el.weights is not None:
        arrays["weights"] = _host(el.weights)
    buf = _io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def _host(a):
    if a is None:
        return None
    from . import backend as _backend

    return np.asarray(_backend.to_host(a))


_WRITERS = {
    "mtx": _write_mtx,
    "edgelist": _write_edgelist,
    "dimacs": _write_dimacs,
    "lg": _write_lg,
    "npz": _write_npz,
}
