"""Reading and writing graph files.

:func:`read` turns a file into a :class:`~hpgraph.graph.Graph`; :func:`write` does the reverse.
:func:`read_edges` stops one step earlier and returns an :class:`EdgeList` (plain arrays), which is
what the command line uses to time parsing and graph construction separately.

Formats (chosen from the file name, or with ``format=``; ``.gz``, ``.bz2`` and ``.xz`` compression
is recognised from the file's first bytes, so ``g.mtx.gz`` and ``g.mtx`` both work):

============ ======================================= ===================================================
format       extensions                              content
============ ======================================= ===================================================
``mtx``      ``.mtx``, ``.mm``                       Matrix Market ``coordinate`` or ``array``;
                                                     ``real``, ``integer`` or ``pattern``;
                                                     ``general`` (directed), ``symmetric`` (undirected),
                                                     ``skew-symmetric`` (directed). 1-based.
``edgelist`` ``.txt``, ``.el``, ``.edges``,          SNAP-style text: one ``u v [w]`` line per edge,
             ``.edgelist``, ``.tsv``, ``.csv``       whitespace or comma separated; ``#`` and ``%``
                                                     start comments; CRLF accepted. 0-based ids used
                                                     as given (``relabel=True`` compacts them).
``dimacs``   ``.gr``                                 DIMACS shortest-path: ``c`` comments,
                                                     ``p sp n m``, ``a u v w`` arcs. 1-based. Directed.
``lg``       ``.lg``, ``.jlg``                       Graphs.jl LG: header ``n,m,u|d,name``, then
                                                     ``u,v`` lines. 1-based. First graph of the file.
``npz``      ``.npz``                                hpgraph's own: arrays ``src``, ``dst``,
                                                     ``weights`` (optional), ``num_vertices``,
                                                     ``directed``. Exact round trip, dtypes kept.
============ ======================================= ===================================================

Malformed files cannot take the process down: every reader validates the bytes itself and
parses with ``pyarrow.csv`` (plain rows, where pyarrow is installed; large uncompressed Matrix
Market and edge-list files are read by pyarrow straight from the file after their header is
checked, see :mod:`._direct`), ``numpy.loadtxt`` or pure Python (``.npz`` archives are never
unpickled and their array headers are checked against the bytes before anything is
allocated), and sizes a file declares are checked against the machine's memory
(:class:`~hpgraph.exceptions.HostOutOfMemory`).  The one native parser, SciPy's bundled
fast_matrix_market, only sees large ``integer`` / ``pattern`` Matrix Market files whose header
hpgraph has checked and that hold no NUL byte and end with a newline (the conditions under
which it cannot crash), and its result is used only when it is exactly the strict reading
(:mod:`._fmm`).  ``tests/fuzz`` fuzzes every reader with mutated files in a separate process.

Errors are typed: a missing file raises :class:`~hpgraph.exceptions.GraphFileNotFound` (a
``FileNotFoundError``); everything else wrong with a file raises
:class:`~hpgraph.exceptions.FileFormatError` (a ``ValueError``) whose message starts with
``path:line:`` and says what was expected.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from pathlib import Path

import numpy as np

from .._memory import host_memory_guard
from ..exceptions import FileFormatError, HpgraphError, InvalidValue
from ._common import EXTENSIONS, FORMATS, EdgeList, _COMPRESSION_SUFFIXES, _relabel, _replace
from ._direct import read_direct
from ._files import _check_path, _format_for, _make_progress, _read_bytes, atomic_output
from ._mtx import _parse_mtx
from ._npz import _parse_npz
from ._text import _parse_dimacs, _parse_edgelist, _parse_lg
from ._writers import _WRITERS, edgelist_writer

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
    kw = dict(directed=directed, weighted=weighted, format=format, progress=progress, relabel=relabel)
    pending = []  # a fast parse's strictness check, overlapping with the build (see _fmm)
    el = _read_edges(path, pending=pending, **kw)
    try:
        G = el.to_graph(backend=backend, duplicates=duplicates)
    except HpgraphError:
        if _exact(pending):
            raise
        G = None
    if G is None or not _exact(pending):  # the fast parse differs from the strict one
        del el, G
        return _read_edges(path, fast=False, **kw).to_graph(backend=backend, duplicates=duplicates)
    return G


def read_edges(path, *, directed=None, weighted=None, format=None, progress=False,
               relabel=False) -> EdgeList:
    """Parse a graph file into an :class:`EdgeList` (host NumPy arrays).

    Same parameters and errors as :func:`read`, without building the graph. With
    ``relabel=True`` the result's ``ids`` maps new ids to the original ones. Vertex ids are
    ``int64``.
    """
    el = _read_edges(path, directed=directed, weighted=weighted, format=format, progress=progress,
                     relabel=relabel)
    if el.src.dtype != np.int64 or el.dst.dtype != np.int64:
        el = _replace(el, src=el.src.astype(np.int64), dst=el.dst.astype(np.int64))
    return el


def _exact(pending) -> bool:
    """Wait for the strictness checks a fast parse left in ``pending``; True when all passed."""
    ok = all([check() for check in pending])
    pending.clear()
    return ok


def _read_edges(path, *, directed, weighted, format, progress, relabel, pending=None,
                fast=True) -> EdgeList:
    """:func:`read_edges` with the ids in the integer dtype the parse gave (``int32`` from the
    direct parse, which :func:`read` hands to the build without a conversion).

    ``pending`` and ``fast`` as in :func:`._direct.read_direct`: a strictness check left in
    ``pending`` must pass (:func:`_exact`) before the edges or an error about them reach the
    user.
    """
    if weighted not in (None, True, False):
        raise InvalidValue(f"weighted must be None, True or False, got {weighted!r}")
    if directed not in (None, True, False):
        raise InvalidValue(f"directed must be None, True or False, got {directed!r}")
    p = _check_path(path)
    fmt = _format_for(p, format)
    report = _make_progress(progress, p.name)
    try:
        with host_memory_guard(f"parsing {p}"):
            el = read_direct(fmt, p, weighted=weighted, report=report, sniff=format is None,
                             pending=pending, fast=fast)
        if el is None:
            data = _read_bytes(p, report)
    finally:
        report.close()
    if el is None:
        if format is None and fmt != "mtx" and fmt != "npz" and data[:14].lower() == b"%%matrixmarket":
            fmt = "mtx"  # a Matrix Market file under another extension
        el = _parse(fmt, data, p, weighted=weighted, directed=directed)
        del data
    if weighted is True and el.weights is None:
        if pending and not _exact(pending):  # an error only about what the strict parse reads
            return _read_edges(path, directed=directed, weighted=weighted, format=format,
                               progress=progress, relabel=relabel, fast=False)
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

    The file is written atomically: to a temporary file beside ``path``, renamed to ``path``
    once complete, so an interrupted write leaves the old file (or none), never a partial
    one.  Integer edge lists are written by pyarrow's CSV writer straight to that file.
    """
    p = Path(os.fspath(path))
    fmt = _format_for(p, format, for_write=True)
    el = G if isinstance(G, EdgeList) else _edges_of(G)
    comp = _COMPRESSION_SUFFIXES.get(p.suffix.lower())
    stream = edgelist_writer(el, p, comment) if comp is None and fmt == "edgelist" else None
    if stream is not None:  # rows written to the file by pyarrow
        with atomic_output(p) as tmp:
            stream(tmp)
        return
    data = _WRITERS[fmt](el, p, comment)
    if comp == "gzip":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    elif comp == "bz2":
        data = bz2.compress(data)
    elif comp == "xz":
        data = lzma.compress(data)
    with atomic_output(p) as tmp, open(tmp, "wb") as f:
        f.write(data)


def to_edgelist(G, *, half=None) -> EdgeList:
    """The edges of a Graph as a host :class:`EdgeList`.

    For an undirected graph each edge is listed once (``src <= dst``) unless ``half=False``.
    The arrays are new (writable, shared with nothing).
    """
    el = _edges_of(G, half=half)
    return _replace(el, src=np.array(el.src), dst=np.array(el.dst),
                    weights=None if el.weights is None else np.array(el.weights))


def _edges_of(G, *, half=None) -> EdgeList:
    """:func:`to_edgelist` without its copies: for a host graph, ``dst`` and ``weights`` are
    (read-only) views of the graph's sorted CSR arrays where every entry is listed."""
    A = getattr(G, "A", None)
    if getattr(A, "format", None) == "csr" and not A.on_device and hasattr(G, "directed"):
        n = int(G.num_vertices)
        indptr, col = np.asarray(A.indptr), np.asarray(A.indices)
        row = np.repeat(np.arange(n, dtype=col.dtype), np.diff(indptr))
        vals = np.asarray(A.values) if (G.weighted and A.values is not None) else None
        if (not G.directed) if half is None else half:
            keep = row <= col
            row, col = row[keep], col[keep]
            vals = None if vals is None else vals[keep]
        return EdgeList(row, col, vals, n, bool(G.directed))  # hpgraph's CSR rows are sorted
    from .. import backend as _backend

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
    if not (getattr(A, "format", None) == "csr" and A.has_sorted_indices):
        # a CSR with sorted indices gives its entries in (row, col) order already
        order = np.lexsort((col, row))
        row, col = row[order], col[order]
        vals = None if vals is None else vals[order]
    n = int(getattr(G, "num_vertices", A.shape[0]))
    return EdgeList(row, col, vals, n, directed)


def detect_format(path, format=None) -> str:
    """The canonical format name for ``path`` (or for an explicit ``format``), see :data:`FORMATS`."""
    return _format_for(Path(os.fspath(path)), format)




_PARSERS = {
    "mtx": _parse_mtx,
    "edgelist": _parse_edgelist,
    "dimacs": _parse_dimacs,
    "lg": _parse_lg,
    "npz": _parse_npz,
}


def _parse(fmt, data, p, **kw) -> EdgeList:
    """Run one parser; whatever escapes it untyped becomes a :class:`FileFormatError`.

    The parsers validate the bytes and raise typed errors themselves; this is the boundary
    that keeps a NumPy ``ValueError`` (or an allocation failure) on a malformed file from
    reaching the caller untyped.
    """
    try:
        with host_memory_guard(f"parsing {p}"):
            return _PARSERS[fmt](data, p, **kw)
    except HpgraphError:
        raise
    except (ValueError, TypeError, IndexError, OverflowError, KeyError, UnicodeError, EOFError,
            OSError) as exc:
        raise FileFormatError(f"malformed {FORMATS[fmt]} file ({type(exc).__name__}: {exc})", p) from None
