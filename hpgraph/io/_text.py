"""Text readers: SNAP-style edge lists, DIMACS shortest-path (.gr) and Graphs.jl LG."""

from __future__ import annotations

import functools
import io as _io

import re
from pathlib import Path

import numpy as np

from ..exceptions import FileFormatError
from . import _arrow
from ._common import (EdgeList, _check_ids, _count_lines, _find_bad_edge_line, _is_float_token,
                      _is_int_token, _iter_lines, _loadtxt, _strip_comment)

# ---------------------------------------------------------------------------------------------
# edge lists


def edgelist_header(data: bytes):
    """The leading comment lines and the first edge line of an edge list.

    Returns ``(directed hint, num_vertices hint, (line number, tokens) of the first edge line
    or None, that line, its delimiter (``","`` or None for blanks), its byte offset)``.  The
    comments carry the direction (SNAP's ``# Directed graph`` / ``# Undirected graph``) and
    hpgraph's ``# hpgraph: num_vertices=N`` record.
    """
    hint_directed = None
    hint_n = None
    offset = 0
    for lineno, line in _iter_lines(data):
        start = offset
        offset += len(line) + 1
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
        return hint_directed, hint_n, (lineno, [t.strip() for t in toks]), line, delim, start
    return hint_directed, hint_n, None, None, None, len(data)


def edgelist_columns(toks, weighted):
    """``(columns, weighted?, weight kind)`` of a first edge line's tokens: ``"i"`` integer
    weights when its third token is an integer (a later decimal makes the parse retry as
    ``"f"``), ``None`` without weights."""
    ncols = len(toks)
    use_w = ncols >= 3 and weighted is not False
    wkind = None
    if use_w:
        wkind = "i" if _is_int_token(toks[2]) else "f"
    return ncols, use_w, wkind


def _parse_edgelist(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    if not data or data.isspace():
        raise FileFormatError("the file is empty; expected lines 'u v' or 'u v weight'", p)
    hint_directed, hint_n, first, line, delim, _ = edgelist_header(data)
    if first is None:
        if hint_n is not None:  # a written empty graph
            e = np.zeros(0, np.int64)
            return EdgeList(e, e.copy(), None, hint_n, True if hint_directed is None else hint_directed,
                            source=str(p))
        raise FileFormatError("no edge lines found (only comments or blank lines); expected "
                              "lines 'u v' or 'u v weight'", p)
    lineno, toks = first
    ncols, use_w, wkind = edgelist_columns(toks, weighted)
    if ncols < 2:
        raise FileFormatError(f"expected at least 2 columns 'u v [weight]', found {ncols} "
                              f"({b' '.join(toks).decode(errors='replace')!r})", p, lineno)
    arr = None
    if ncols == (3 if use_w else 2):  # plain rows of exactly the used tokens: pyarrow's parse
        for kind in ([wkind, "f"] if wkind == "i" else [wkind] if use_w else [None]):
            arr = _arrow.parse_columns(data, ("u", "v", "w")[:ncols], ("i", "i", kind),
                                       skip_rows=lineno - 1, first_line=line)
            if arr is not None:
                break
    if arr is None:
        arr = _parse_columns(data, p, ncols=ncols, delim=delim, use_w=use_w, wkind=wkind)
    if use_w:
        src, dst, w = arr["u"], arr["v"], arr["w"]
    elif isinstance(arr, dict):
        src, dst, w = arr["u"], arr["v"], None
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
            arr = _loadtxt(data, **kw, **a)
        except ValueError as exc:
            last = exc
            continue
        if _truncated_a_decimal(data, arr, kw, a, use_w):
            last = ValueError("a decimal number in an integer column")
            continue
        return arr
    bad = _find_bad_edge_line(data, ncols=ncols, delim=delim, use_w=use_w, check_cols=ncols <= 3 or not use_w)
    if bad is not None:
        raise FileFormatError(bad[1], p, bad[0]) from None
    raise FileFormatError(f"could not parse the edge list ({last})", p) from None



@functools.lru_cache(maxsize=None)
def _loadtxt_truncates() -> bool:
    """Older NumPy (2.2 and before: Python 3.10's) reads ``0.25`` into an integer column as 0
    where newer NumPy raises; then integer parses are checked against a float parse."""
    try:
        np.loadtxt(_io.BytesIO(b"0.5\n"), dtype=np.int64)
    except ValueError:
        return False
    return True


def _truncated_a_decimal(data, arr, kw, attempt, use_w) -> bool:
    """Did an integer-typed loadtxt parse silently truncate a decimal token?"""
    if not _loadtxt_truncates() or not any(c in data for c in (b".", b"e", b"E")):
        return False
    dt = attempt["dtype"]
    names = dt.names or ()
    cols = [(k, i) for i, k in enumerate(names) if dt[k].kind in "iu"] if names else \
        [(None, 0), (None, 1)]
    usecols = attempt.get("usecols")
    for name, i in cols:
        col = usecols[i] if usecols is not None else i
        f = _loadtxt(data, comments=kw["comments"], delimiter=kw["delimiter"], dtype=np.float64,
                     usecols=(col,)).reshape(-1)
        got = arr[name] if name is not None else arr[:, i]
        if not np.array_equal(f, got.astype(np.float64)):
            return True
    return False


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


