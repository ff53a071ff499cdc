"""Numeric columns of a text body parsed by ``pyarrow.csv`` (multi-threaded), when pyarrow is
installed and the body is plain delimited rows; integer rows written by it.

The readers' own parse (``numpy.loadtxt``, one thread) stays the reference and the fallback:
:func:`parse_columns` returns ``None`` -- never a partial result -- whenever pyarrow is
missing or the body is anything but rows of exactly the expected tokens separated by one
delimiter character (comment lines inside the body, several blanks between tokens, leading
blanks, quotes, empty or null tokens, a token that is not a number of the column's type), and
the caller then parses with ``loadtxt``, which also names the offending line. pyarrow's CSV
parser checks every byte itself (it is fuzzed upstream), so malformed input costs a fallback,
not a crash.
"""

from __future__ import annotations

import numpy as np

#: bodies smaller than this are parsed by loadtxt alone (pyarrow's set-up costs more there)
MIN_BYTES = 1 << 16


def _delimiter(line: bytes):
    """The one delimiter of a data line (tab, space or comma), or None when it is ambiguous."""
    found = [d for d in (b"\t", b",", b" ") if d in line.rstrip(b"\r")]
    return found[0].decode() if len(found) == 1 else None


def parse_columns(body: bytes, names, kinds, *, skip_rows: int = 0, first_line: bytes | None = None):
    """``{name: int64 / float64 array}`` of the rows of ``body`` (after ``skip_rows`` lines), or
    None when the fast path does not apply.

    Parameters
    ----------
    body : bytes
        The text; every row must hold exactly ``len(names)`` tokens.
    names : sequence of str
        Column names.
    kinds : sequence of {"i", "f"}
        int64 or float64 per column.
    skip_rows : int
        Leading lines to skip (header comments, already validated by the caller).
    first_line : bytes, optional
        The first data line, to choose the delimiter (found in ``body`` otherwise).
    """
    if len(body) < MIN_BYTES:
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    if first_line is None:
        start = 0
        for _ in range(skip_rows):
            start = body.find(b"\n", start) + 1
            if start == 0:
                return None
        end = body.find(b"\n", start)
        first_line = body[start:end if end >= 0 else len(body)]
    delim = _delimiter(first_line)
    if delim is None:
        return None
    types = {n: (pa.int64() if k == "i" else pa.float64()) for n, k in zip(names, kinds)}
    try:
        table = pacsv.read_csv(
            pa.py_buffer(body),
            read_options=pacsv.ReadOptions(column_names=list(names), skip_rows=skip_rows),
            parse_options=pacsv.ParseOptions(delimiter=delim, quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                 strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False))
    except pa.ArrowException:  # malformed rows, a failed allocation: the reference parse decides
        return None
    if table.num_columns != len(names) or any(table.column(n).null_count for n in names):
        return None
    return {n: np.ascontiguousarray(table.column(n).to_numpy()) for n in names}


def write_int_rows(cols, sep: str):
    """The text rows of integer columns ``cols`` joined by ``sep`` (``%d`` each, ``\\n`` after
    each row) written by ``pyarrow.csv``, or None where pyarrow is missing, the columns are
    small or any column is not integer (floats keep the writers' shortest round-trip repr,
    which always shows a decimal point, so a float column reads back as float)."""
    if not cols or int(cols[0].shape[0]) * len(cols) < MIN_BYTES // 4:
        return None
    if any(np.asarray(c).dtype.kind not in "iu" for c in cols):
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    table = pa.table({f"c{k}": np.asarray(c, dtype=np.int64) for k, c in enumerate(cols)})
    sink = pa.BufferOutputStream()
    pacsv.write_csv(table, sink, write_options=pacsv.WriteOptions(include_header=False, delimiter=sep))
    return sink.getvalue().to_pybytes()
