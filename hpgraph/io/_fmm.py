"""Large integer and pattern Matrix Market bodies parsed by SciPy's bundled fast_matrix_market
(``scipy.io._fast_matrix_market._fmm_core``, C++, multi-threaded), only where its result is
provably the one the strict readers would give.

fast_matrix_market is fast (it parses straight into the arrays it is given) but it is neither
memory-safe on arbitrary bytes nor strict, so it only sees files that pass these checks:

*Crash safety.*  Its line scanner looks for the next ``\\n`` with ``strchr``, which stops at a
NUL byte, and walks off the end of its buffer when a line has no newline before one (the
malformed files of ``tests/fuzz/test_malformed_corpus.py``).  So the file must hold no NUL
byte and end with ``\\n`` (then every line of every chunk ends before the chunk's terminator);
the banner and size line must already have passed :mod:`._mtx`'s checks, and its own header
must agree with them (sizes, field, symmetry), so no size it allocates for comes from bytes
hpgraph has not checked.  The check and the parse read the file separately: a file rewritten
by another process between the two is not covered.

*Strictness.*  It ignores anything between the last token of a line and the newline (``1 2 3
junk``, ``1 2 1.5`` in an ``integer`` file reads as 1) and takes a tab or carriage return as a
separator.  The body must therefore hold no ``\\r`` and be exactly as long as the canonical
text of what was parsed: one separator between tokens, one newline per entry, no leading
zeros, no blank line.  Every way of reading a line that fast_matrix_market accepts consumes
at least the canonical bytes of the values it returns (a token glued to the one before it
needs a leading ``-``, which an id in range cannot have and is refused here for values by
requiring weights >= 1), so equal lengths mean nothing was skipped.  ``real`` values have no
canonical length and stay with pyarrow.

The length check (the digits of every parsed number) runs on a second thread while the
caller builds the graph (NumPy's loops and SciPy's COO -> CSR routine release the GIL, so on
two idle cores it costs no wall time); the caller waits for it before anything reaches the
user.  Anything else -- a check that
fails, a parse error, SciPy without the module -- means the caller parses again with pyarrow
or the readers of :mod:`._mtx`, which give the typed error.
"""

from __future__ import annotations

import mmap
import os
import threading
from pathlib import Path

import numpy as np

#: rows per block of the digit count (keeps each block's comparisons in cache)
_DIGIT_BLOCK = 1 << 20
#: bytes per block of the NUL / carriage-return scan
_SCAN_BLOCK = 1 << 20


def read_coordinate(p: Path, head: bytes, body_start: int, size_lineno: int, nrows: int, nnz: int,
                    fld: bytes, sym: bytes, index_dtype):
    """``(rows, cols, values, exact)`` of a checked coordinate body, or None where this parse
    does not apply.

    ``rows`` and ``cols`` are 0-based ids of ``index_dtype``, ``values`` int64 (None for
    ``pattern``).  The length check runs on a second thread, so that it overlaps with what
    the caller does next (the CSR build); ``exact()`` waits for it and says whether the
    arrays are what the strict readers would give.  Until it returned True the arrays must
    not reach the user, nor be changed.

    Parameters
    ----------
    p : Path
        The file (uncompressed).
    head : bytes
        Its first whole lines, holding the banner and the size line.
    body_start : int
        Offset of the first byte after the size line.
    size_lineno : int
        Line number of the size line (the lines between it and the banner must be comments).
    nrows, nnz : int
        The size line's rows (= columns) and entries, as :func:`._mtx.size_line` read them.
    fld, sym : bytes
        Field and symmetry from :func:`._mtx.banner`.
    index_dtype : numpy dtype
        ``int32`` or ``int64`` ids.
    """
    if fld not in (b"integer", b"pattern") or nnz <= 0:
        return None
    try:
        from scipy.io._fast_matrix_market import _fmm_core
    except ImportError:
        return None
    if not _comment_lines_only(head, size_lineno):
        return None
    body_bytes = _plain_body_bytes(p, body_start)
    if body_bytes is None:
        return None
    cursor = None
    try:
        cursor = _fmm_core.open_read_file(str(p), 0)
        h = cursor.header
        if (h.object, h.format, h.field, h.symmetry) != ("matrix", "coordinate", fld.decode(),
                                                        sym.decode()) \
                or (h.nrows, h.ncols, h.nnz) != (nrows, nrows, nnz):
            return None
        r = np.zeros(nnz, dtype=index_dtype)
        c = np.zeros(nnz, dtype=index_dtype)
        # int8 placeholders for a pattern file (a bool array would make the parse sequential)
        w = np.zeros(nnz, dtype=np.int64 if fld == b"integer" else np.int8)
        _fmm_core.read_body_coo(cursor, r, c, w)
    except (ValueError, OverflowError, IndexError, RuntimeError, OSError, MemoryError):
        return None  # any parse error: the strict readers parse it again and name the line
    finally:
        cursor = None  # closes the file
    w = None if fld == b"pattern" else w
    return (r, c, w, _Check(r, c, w, nrows, body_bytes).exact)


class _Check:
    """The strictness check of one parse, on a daemon thread started at once."""

    def __init__(self, r, c, w, nrows, body_bytes):
        self._args = (r, c, w, nrows, body_bytes)
        self._result = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        self._result.append(_strict(*self._args))
        self._args = None

    def exact(self) -> bool:
        """Wait for the check; True when the parse is exactly the strict reading."""
        self._thread.join()
        return bool(self._result and self._result[0])  # a failed check is a mismatch


def _strict(r, c, w, nrows, body_bytes) -> bool:
    """Values >= 1 ("-0" glued to the id before it would read as 0 at canonical length) and the
    body exactly as long as the canonical text of the entries."""
    if w is not None and int(w.min()) < 1:
        return False
    return _canonical_bytes(r, c, w, nrows) == body_bytes


def _comment_lines_only(head: bytes, size_lineno: int) -> bool:
    """Every line between the banner and the size line starts with ``%`` (so both readers
    take the same line for the size line)."""
    lines = head.split(b"\n", size_lineno)[1:size_lineno - 1]
    return all(line[:1] == b"%" for line in lines)


def _plain_body_bytes(p: Path, body_start: int):
    """The body's length in bytes, or None when the file holds a NUL byte (a crash), the body
    a carriage return (a separator to fast_matrix_market only), or the file does not end with
    a newline (a crash when the last line holds anything after its tokens)."""
    try:
        with open(p, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size <= body_start:
                return None
            with mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) as m:
                if m[size - 1:size] != b"\n":
                    return None
                # both searches (memchr) on one cached block at a time: the second costs
                # about a tenth of the first
                for s in range(0, size, _SCAN_BLOCK):
                    e = min(size, s + _SCAN_BLOCK)
                    if m.find(b"\0", s, e) >= 0 or m.find(b"\r", max(s, body_start), e) >= 0:
                        return None
    except (OSError, ValueError):
        return None
    return size - body_start


def _canonical_bytes(r, c, w, nrows: int) -> int:
    """Bytes of the canonical text of the entries: ``row col[ value]\\n``, 1-based ids,
    values >= 1."""
    nnz = int(r.shape[0])
    total = _digits(r, nrows, 1) + _digits(c, nrows, 1) + 2 * nnz  # separator, newline
    if w is not None:
        total += _digits(w, int(w.max()), 0) + nnz  # and the separator before the value
    return total


def _digits(a, top: int, shift: int) -> int:
    """Total decimal digits of ``a + shift`` over all entries (``0 <= a + shift <= top``)."""
    total = int(a.shape[0])
    limits = []
    t = 10
    while t <= top:
        limits.append(t - shift)  # a + shift >= t
        t *= 10
    if not limits:
        return total
    flags = np.empty(min(_DIGIT_BLOCK, total), dtype=np.bool_)
    for s in range(0, total, _DIGIT_BLOCK):
        block = a[s:s + _DIGIT_BLOCK]
        out = flags[:block.shape[0]]
        for lim in limits:
            np.greater_equal(block, lim, out=out)
            total += int(np.count_nonzero(out))
    return total
