"""Large uncompressed Matrix Market and edge-list files parsed by ``pyarrow.csv`` straight from
the file, without first holding their bytes in Python.

:func:`read_direct` reads the file's head itself (the Matrix Market banner and size line, or
the edge list's leading comments and first edge line), checks it with the readers' own code,
then lets pyarrow read and parse the body from that line on, block by block on its threads:
ids as ``int32`` where they fit, the same strict options as :mod:`._arrow` (exactly the
expected tokens per row, one delimiter, no quotes, no nulls).  pyarrow checks every byte
itself, so a malformed body costs a failed parse, not a crash.  Large ``integer`` and
``pattern`` Matrix Market bodies are first offered to SciPy's fast_matrix_market under the
checks of :mod:`._fmm` (its strictness check can be left pending for :func:`hpgraph.io.read`
to wait for after the build).

It returns ``None`` -- never a partial result -- whenever this path does not apply or
anything is unexpected: a small or compressed file, pyarrow missing, a head longer than
:data:`HEAD_BYTES`, a bad banner or size line, a ``%`` or ``#`` line in the body, a row
count that differs from the size line, an id out of range, a carriage return that ends no CRLF
line break (pyarrow would take it for one).  The caller then reads the whole
file and parses it with the readers of :mod:`._mtx` / :mod:`._text`, which raise the typed
error naming the file and the line.  So both paths accept the same files and give the same
edges; this one only skips the copies.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

from .._config import config
from .._memory import check_host_bytes
from ..exceptions import FileFormatError
from . import _arrow, _fmm, _mtx
from ._common import EdgeList
from ._text import edgelist_columns, edgelist_header

# files smaller than hp.config["io_direct_min_bytes"] are read by the readers' own path

#: bytes read to find the header; a longer header takes the readers' own path
HEAD_BYTES = 1 << 16
#: first bytes of the compressed streams :func:`._files._read_bytes` decompresses
_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")
_INT32_IDS = 2 ** 31 - 1


def read_direct(fmt: str, p: Path, *, weighted, report, sniff: bool, pending: list | None = None,
                fast: bool = True) -> EdgeList | None:
    """The edges of ``p`` parsed by pyarrow (or :mod:`._fmm`) from the file, or None (see the
    module docstring).

    Parameters
    ----------
    fmt : str
        ``"mtx"`` or ``"edgelist"`` (any other format: None).
    p : Path
        An existing file.
    weighted : bool or None
        As :func:`hpgraph.io.read_edges` (``False`` drops a weight column before parsing it).
    report : callable
        Progress, called as ``report("read", fraction)`` while pyarrow reads.
    sniff : bool
        An edge-list file that starts with a Matrix Market banner is read as Matrix Market
        (no ``format=`` was given).
    pending : list, optional
        Where the fast_matrix_market parse of :mod:`._fmm` leaves its strictness check
        (a callable returning False when the edges must be read again with ``fast=False``),
        so that it overlaps with the caller's build.  Without a list it is waited for here.
    fast : bool
        Try :mod:`._fmm` first (large integer and pattern Matrix Market bodies).
    """
    if fmt not in ("mtx", "edgelist"):
        return None
    try:
        size = os.stat(p).st_size
        if size < config["io_direct_min_bytes"]:
            return None
        with open(p, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    if head.startswith(_MAGIC):
        return None
    if sniff and fmt == "edgelist" and head[:14].lower() == b"%%matrixmarket":
        fmt = "mtx"
    head = head[:head.rfind(b"\n") + 1]  # whole lines only
    try:
        if fmt == "mtx":
            return _mtx_direct(head, p, size, report, pending, fast)
        return _edgelist_direct(head, p, weighted, report) if _has_pyarrow() else None
    except FileFormatError:  # a bad head: the readers' own path raises it with its context
        return None


@contextlib.contextmanager
def _source(p: Path, offset: int, report):
    """The file from byte ``offset`` as pyarrow reads it (through a reporting reader when
    progress is wanted), closed when the ``with`` block ends."""
    import pyarrow as pa

    if not getattr(report, "enabled", False):
        with pa.OSFile(str(p)) as f:
            f.seek(offset)
            yield f
        return
    with open(p, "rb") as raw:
        raw.seek(offset)
        yield pa.PythonFile(_Reporting(raw, os.fstat(raw.fileno()).st_size, report), mode="r")


class _Reporting:
    """A binary file that reports the fraction read after each read."""

    def __init__(self, f, size, report):
        self._f, self._size, self._report = f, max(size, 1), report

    def read(self, n=-1):
        chunk = self._f.read(n)
        self._report("read", min(1.0, self._f.tell() / self._size))
        return chunk

    def __getattr__(self, name):
        return getattr(self._f, name)


def _lone_cr(p: Path, offset: int) -> bool:
    """True when the file holds, from byte ``offset`` on, a carriage return that does not end a
    CRLF line break: pyarrow takes a lone ``\r`` for a line break, the readers' own path
    refuses it, so such a file takes that path (and gets its error).  One ``memchr`` pass when
    the file has no ``\r``; a CRLF file is checked by a vectorised look at every ``\r``."""
    import mmap

    with open(p, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size <= offset:
            return False
        with mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) as m:
            first = m.find(b"\r", offset)
            if first < 0:
                return False
            buf = np.frombuffer(m, dtype=np.uint8)
            try:
                at = np.flatnonzero(buf[first:] == 13) + first
                nxt = at + 1
                lone = bool((nxt >= size).any()) or bool((buf[nxt[nxt < size]] != 10).any())
            finally:
                del buf
            return lone


def _first_line(head: bytes, offset: int) -> bytes:
    end = head.find(b"\n", offset)
    return head[offset:end if end >= 0 else len(head)]


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _mtx_direct(head, p, size, report, pending, fast):
    fmt, fld, sym = _mtx.banner(head, p)
    if fmt != b"coordinate":
        return None
    body_start, lineno, nrows, nnz = _mtx.size_line(head, p, fmt)
    # a data line has at least 4 bytes ("1 1\n"): a larger count is a truncated file
    if body_start >= len(head) or not nnz or nnz > (size - body_start) // 4 + 1:
        return None
    first = _first_line(head, body_start)
    delim = _arrow._delimiter(first)
    if delim is None or first[:1] in (b"%", b" ", b"\t", b"\r"):
        return None
    check_host_bytes(nnz * 24, f"reading {nnz:,} Matrix Market entries")
    info = dict(fld=fld.decode(), sym=sym.decode(), n=nrows, first_line=lineno + 1)
    if fast and not getattr(report, "enabled", False):  # it reports no progress: not with a bar
        parsed = _fmm.read_coordinate(p, head, body_start, lineno, nrows, nnz, fld, sym,
                                      np.int32 if nrows <= _INT32_IDS else np.int64)
        if parsed is not None:
            r, c, w, exact = parsed
            el = _mtx.finish(r, c, w, fld, sym, nrows, p, info)
            if pending is not None:
                pending.append(exact)
                report("read", 1.0)
                return el
            if exact():
                report("read", 1.0)
                return el
            del el, r, c, w
    if not _has_pyarrow() or _lone_cr(p, body_start):
        return None
    ncols = 2 if fld == b"pattern" else 3
    ids = "i4" if nrows <= _INT32_IDS else "i"
    kinds = (ids, ids, "i" if fld == b"integer" else "f")[:ncols]
    with _source(p, body_start, report) as src:
        cols = _arrow.read_columns(src, ("u", "v", "w")[:ncols], kinds, skip_rows=0,
                                   delimiter=delim)
    if cols is None or cols["u"].shape[0] != nnz:
        return None
    r, c = _minus_one(cols["u"]), _minus_one(cols["v"])
    if not (_within(r, nrows) and _within(c, nrows)):
        return None
    report("read", 1.0)
    return _mtx.finish(r, c, cols.get("w"), fld, sym, nrows, p, info)


def _edgelist_direct(head, p, weighted, report):
    hint_directed, hint_n, first, line, _, offset = edgelist_header(head)
    if first is None:
        return None
    ncols, use_w, wkind = edgelist_columns(first[1], weighted)
    if ncols != (3 if use_w else 2):  # other layouts: loadtxt picks the used columns
        return None
    delim = _arrow._delimiter(line)
    if delim is None or line[:1] in (b" ", b"\t", b"\r") or _lone_cr(p, offset):
        return None
    cols = None
    for kind in ([wkind, "f"] if wkind == "i" else [wkind] if use_w else [None]):
        with _source(p, offset, report) as src:
            cols = _arrow.read_columns(src, ("u", "v", "w")[:ncols], ("i4", "i4", kind)[:ncols],
                                       skip_rows=0, delimiter=delim)
        if cols is not None:
            break
    if cols is None or cols["u"].shape[0] == 0:
        return None
    src, dst = cols["u"], cols["v"]
    top = max(int(src.max()), int(dst.max()))
    if min(int(src.min()), int(dst.min())) < 0 or (hint_n is not None and top >= hint_n):
        return None
    n = top + 1 if hint_n is None else max(top + 1, hint_n)
    report("read", 1.0)
    return EdgeList(src, dst, cols.get("w"), n, True if hint_directed is None else hint_directed,
                    source=str(p))


def _minus_one(a):
    """``a - 1`` (1-based to 0-based), in place where pyarrow's buffer is ours to change."""
    if a.flags.writeable:
        np.subtract(a, 1, out=a)
        return a
    return a - 1


def _within(a, n: int) -> bool:
    return a.shape[0] == 0 or (int(a.min()) >= 0 and int(a.max()) < n)
