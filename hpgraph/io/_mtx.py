"""Matrix Market reader that validates every byte itself (the strict reference reading).

SciPy's ``mmread`` (fast_matrix_market, C++) can take the process down on a malformed file and
skips text it does not expect, so this reader never hands it bytes: it checks the banner and
the size line, counts the data lines against the size line before allocating, parses the body
with ``pyarrow.csv`` where pyarrow is installed and the rows are plain (:mod:`._arrow`), else
with ``numpy.loadtxt`` (both memory-safe on any input: they raise), and checks every index.
(Large files may be parsed by fast_matrix_market after all, under the checks of :mod:`._fmm`
that make its result this reader's.)  What the file
means follows ``mmread``: ``symmetric`` / ``hermitian`` files give undirected graphs (each
edge once), ``skew-symmetric`` files give both arcs (the upper one negated), ``array`` files
give one edge per nonzero.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from .._memory import check_host_bytes
from ..exceptions import FileFormatError
from . import _arrow
from ._common import (EdgeList, _count_lines, _find_bad_edge_line, _is_float_token, _is_int_token,
                      _iter_lines, _loadtxt, _strip_comment)

_MM_OBJECTS = (b"matrix",)
_MM_FORMATS = (b"coordinate", b"array")
_MM_FIELDS = (b"real", b"double", b"integer", b"pattern", b"complex")
_MM_SYMMETRY = (b"general", b"symmetric", b"skew-symmetric", b"hermitian")
_EXPECTED = ("expected '%%MatrixMarket matrix coordinate real|integer|pattern "
             "general|symmetric|skew-symmetric'")
_MAX_INDEX = 2 ** 62  # larger sizes cannot be allocated anywhere; keeps the arithmetic in int64


def _parse_mtx(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    if not data or data.isspace():
        raise FileFormatError("the file is empty; expected a '%%MatrixMarket matrix coordinate ...' "
                              "header", p, 1)
    fmt, fld, sym = banner(data, p)
    body_start, lineno, nrows, nnz = size_line(data, p, fmt)
    body = data[body_start:]
    info = dict(fld=fld.decode(), sym=sym.decode(), n=nrows, first_line=lineno + 1)
    if fmt == b"coordinate":
        r, c, vals = _coordinate(body, p, fld, nnz, lineno, info)
        r, c = np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64)
    else:
        r, c, vals = _array(body, p, fld, sym, nrows, lineno, info)
    return finish(r, c, vals, fld, sym, nrows, p, info)


def finish(r, c, vals, fld, sym, nrows, p, info) -> EdgeList:
    """The :class:`EdgeList` of parsed 0-based entries: what the symmetry means for a graph
    (``symmetric`` / ``hermitian``: undirected, each edge once as its lower-triangle entry;
    ``skew-symmetric``: both arcs, the mirror negated) and the field's value dtype (``integer``
    int64, ``real`` float64, ``pattern`` none).  Ids keep their integer dtype."""
    if sym in (b"symmetric", b"hermitian"):
        r, c = np.maximum(r, c), np.minimum(r, c)
        undirected = True
    elif sym == b"skew-symmetric":
        r, c, vals = _skew(r, c, vals, p, info)
        undirected = False
    else:
        undirected = False
    if fld == b"pattern":
        w = None
    elif fld == b"integer":
        w = np.ascontiguousarray(vals, dtype=np.int64)
    else:
        w = np.ascontiguousarray(vals, dtype=np.float64)
    return EdgeList(np.ascontiguousarray(r), np.ascontiguousarray(c), w,
                    nrows, not undirected, source=str(p),
                    meta={"field": fld.decode(), "symmetry": sym.decode()})


def banner(data, p):
    """``(format, field, symmetry)`` of the first line (lower case; ``double`` read as ``real``)."""
    nl = data.find(b"\n")
    banner = data[: nl if nl >= 0 else len(data)]
    toks = banner.strip().lower().split()
    shown = banner.strip().decode(errors="replace")[:120]
    if not toks or toks[0] != b"%%matrixmarket":
        raise FileFormatError(f"not a Matrix Market file: the first line is {shown!r}; {_EXPECTED}", p, 1)
    if (len(toks) != 5 or toks[1] not in _MM_OBJECTS or toks[2] not in _MM_FORMATS
            or toks[3] not in _MM_FIELDS or toks[4] not in _MM_SYMMETRY):
        raise FileFormatError(f"bad Matrix Market header {shown!r}; {_EXPECTED}", p, 1)
    fmt, fld, sym = toks[2], toks[3], toks[4]
    if fld == b"complex":
        raise FileFormatError("complex Matrix Market values are not supported for graphs; "
                              "use real, integer or pattern", p, 1)
    if fld == b"double":
        fld = b"real"
    if fld == b"pattern" and (fmt == b"array" or sym == b"skew-symmetric"):
        raise FileFormatError(f"a pattern matrix cannot be {'dense (array)' if fmt == b'array' else sym.decode()} "
                              f"in Matrix Market; {_EXPECTED}", p, 1)
    return fmt, fld, sym


def size_line(data, p, fmt):
    """(offset of the first body byte, size line number, rows, entries or None)."""
    size_line = None
    offset = 0
    for lineno, line in _iter_lines(data):
        offset += len(line) + 1
        if lineno == 1:
            continue
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
    spec = "'rows cols entries'" if want == 3 else "'rows cols'"
    if len(parts) != want or not all(_is_int_token(t) for t in parts) or any(int(t) < 0 for t in parts):
        raise FileFormatError(f"bad size line {s.decode(errors='replace')!r}: expected {spec} "
                              "as non-negative integers", p, lineno)
    if any(int(t) >= _MAX_INDEX for t in parts):
        raise FileFormatError(f"size line {s.decode(errors='replace')!r}: sizes must be below 2^62", p, lineno)
    nrows, ncols = int(parts[0]), int(parts[1])
    nnz = int(parts[2]) if want == 3 else None
    if nrows != ncols:
        raise FileFormatError(f"the matrix is {nrows} x {ncols}; a graph's adjacency matrix must be "
                              "square", p, lineno)
    return min(offset, len(data)), lineno, nrows, nnz


def _data_lines(body):
    """Physical line numbers (relative to ``body``, 1-based) of the non-comment, non-blank lines."""
    return [k for k, line in _iter_lines(body) if _strip_comment(line, b"%")]


def _count_data_lines(body) -> int:
    """Number of data lines; a line count when no blank or comment line needs skipping."""
    trimmed = body.rstrip(b" \t\r\n\x0b\x0c")
    if not trimmed:
        return 0
    if b"%" not in trimmed:
        # no comment: a line is skipped only if it is blank, so only if it starts with a blank
        # byte; look at the first byte of every line at once (a multi-line regular expression
        # over the whole body is ~20x slower)
        raw = np.frombuffer(trimmed, dtype=np.uint8)
        starts = np.flatnonzero(raw == 10) + 1  # trimmed ends with a non-blank: all in range
        if trimmed[:1] not in _BLANKS and not np.isin(raw[starts], _BLANK_CODES).any():
            return int(starts.shape[0]) + 1
    if _SKIPPED_LINE.search(trimmed) is None:
        return _count_lines(trimmed)
    return len(_data_lines(body))


_BLANKS = (b"\n", b"\r", b" ", b"\t", b"\x0b", b"\x0c")
_BLANK_CODES = np.array([10, 13, 32, 9, 11, 12], dtype=np.uint8)
_SKIPPED_LINE = re.compile(rb"(?m)^[ \t\r\x0b\x0c]*(%|$)")


def _coordinate(body, p, fld, nnz, size_lineno, info):
    ncols = 2 if fld == b"pattern" else 3
    found = _count_data_lines(body)
    if found < nnz:
        raise FileFormatError(f"truncated: the size line (line {size_lineno}) promises {nnz} entries but "
                              f"the file ends after {found}", p, size_lineno + _count_lines(body))
    if found > nnz:
        extra = _data_lines(body)[nnz]
        raise FileFormatError(f"the size line (line {size_lineno}) promises {nnz} entries but the file "
                              f"has {found}", p, size_lineno + extra)
    if nnz == 0:
        e = np.zeros(0, np.int64)
        return e, e.copy(), np.zeros(0, np.int64 if fld == b"integer" else np.float64)
    check_host_bytes(nnz * 24, f"reading {nnz:,} Matrix Market entries")
    fast = _arrow.parse_columns(body, ("u", "v", "w")[:ncols], ("i", "i", "i" if fld == b"integer" else "f"))
    if fast is not None and fast["u"].shape[0] == nnz:  # plain rows: pyarrow's parse
        r, c, vals = fast["u"], fast["v"], fast.get("w")
    else:
        r, c, vals = _coordinate_loadtxt(body, p, fld, ncols, size_lineno)
    if r.shape[0] != nnz:  # the line count and loadtxt disagree: find the line that explains it
        _raise_bad_line(body, p, ncols, fld, size_lineno, None)
    r = r - 1
    c = c - 1
    _check_range(body, p, r, c, info, size_lineno)
    return r, c, vals


def _coordinate_loadtxt(body, p, fld, ncols, size_lineno):
    """The entries parsed by numpy.loadtxt (any layout the format allows; names a bad line)."""
    if ncols == 2:
        dt = np.dtype(np.int64)
    else:
        dt = np.dtype([("u", np.int64), ("v", np.int64),
                       ("w", np.int64 if fld == b"integer" else np.float64)])
    try:
        arr = _loadtxt(body, dtype=dt, comments="%")
    except ValueError as exc:
        _raise_bad_line(body, p, ncols, fld, size_lineno, exc)
    if ncols == 2:
        if arr.ndim != 2 or arr.shape[1] != 2:
            _raise_bad_line(body, p, ncols, fld, size_lineno, None)
        return arr[:, 0], arr[:, 1], None
    return arr["u"], arr["v"], arr["w"]


def _raise_bad_line(body, p, ncols, fld, size_lineno, exc):
    bad = _find_bad_edge_line(body, ncols=ncols, delim=None, use_w=ncols == 3, comment_chars=b"%",
                              what="index")
    if bad is None and fld == b"integer":
        for k, line in _iter_lines(body):
            toks = _strip_comment(line, b"%").split()
            if len(toks) == 3 and not _is_int_token(toks[2]):
                bad = (k, f"value {toks[2].decode(errors='replace')!r} is not an integer, as the "
                          f"'integer' field requires (line {b' '.join(toks).decode(errors='replace')!r})")
                break
            if len(toks) == 3 and abs(int(toks[2])) >= 2 ** 63:
                bad = (k, f"value {toks[2].decode(errors='replace')!r} does not fit in int64")
                break
    if bad is not None:
        raise FileFormatError(bad[1], p, size_lineno + bad[0]) from None
    raise FileFormatError(f"could not parse the entries ({exc or 'unexpected layout'})", p) from None


def _check_range(body, p, r, c, info, size_lineno, line_of=None):
    n = info["n"]
    bad = (r < 0) | (c < 0) | (r >= n) | (c >= n)
    if not bad.any():
        return
    k = int(np.argmax(bad))
    line = line_of(k) if line_of is not None else size_lineno + _data_lines(body)[k]
    raise FileFormatError(f"entry ({int(r[k]) + 1}, {int(c[k]) + 1}) is out of bounds: indices must be in "
                          f"[1, {n}] (Matrix Market {info['fld']} {info['sym']}, {n} x {n}, 1-based "
                          "indices)", p, line)


def _array(body, p, fld, sym, n, size_lineno, info):
    """Dense column-major values; symmetric files list the lower triangle, skew the strict one."""
    if sym == b"general":
        expected = n * n
    elif sym == b"skew-symmetric":
        expected = n * (n - 1) // 2
    else:
        expected = n * (n + 1) // 2
    found = _count_data_lines(body)
    if found != expected:
        what = "truncated: " if found < expected else ""
        raise FileFormatError(f"{what}a dense {n} x {n} {sym.decode()} matrix has {expected} values "
                              f"but the file has {found}", p, size_lineno + _count_lines(body))
    if expected == 0:
        e = np.zeros(0, np.int64)
        return e, e.copy(), np.zeros(0, np.float64)
    check_host_bytes(expected * 32, f"reading a dense {n} x {n} Matrix Market array")
    dt = np.int64 if fld == b"integer" else np.float64
    try:
        vals = _loadtxt(body, dtype=np.dtype(dt), comments="%")
    except ValueError as exc:
        for k, line in _iter_lines(body):
            toks = _strip_comment(line, b"%").split()
            if toks and (len(toks) != 1 or not (_is_int_token(toks[0]) if dt is np.int64
                                               else _is_float_token(toks[0]))):
                raise FileFormatError(f"expected one {'integer' if dt is np.int64 else 'number'} per "
                                      f"line in a dense Matrix Market array, found "
                                      f"{b' '.join(toks).decode(errors='replace')[:80]!r}", p,
                                      size_lineno + k) from None
        raise FileFormatError(f"could not parse the values ({exc})", p) from None
    vals = vals.reshape(-1)
    if vals.shape[0] != expected:
        raise FileFormatError(f"expected one value per line in a dense Matrix Market array ({expected} "
                              f"values), found {vals.shape[0]}", p, size_lineno + 1)
    if sym == b"general":
        k = np.arange(expected, dtype=np.int64)
        r, c = k % n, k // n
    else:  # column-major lower triangle = row-major upper triangle, transposed
        iu = np.triu_indices(n, 1 if sym == b"skew-symmetric" else 0)
        r, c = iu[1].astype(np.int64), iu[0].astype(np.int64)
    keep = vals != 0
    return r[keep], c[keep], vals[keep]


def _skew(r, c, vals, p, info):
    """Skew-symmetric: the listed (strictly lower) entry and its negated mirror."""
    diag = r == c
    if diag.any():
        k = int(np.argmax(diag))
        raise FileFormatError(f"a skew-symmetric matrix has a zero diagonal, but entry ({int(r[k]) + 1}, "
                              f"{int(c[k]) + 1}) is listed", p)
    return (np.concatenate([r, c]), np.concatenate([c, r]),
            np.concatenate([vals, -vals]))
