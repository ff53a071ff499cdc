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

from .._config import config

# bodies smaller than hp.config["io_arrow_min_bytes"] are parsed by loadtxt alone (pyarrow's
# set-up costs more there)


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
    if len(body) < config["io_arrow_min_bytes"]:
        return None
    try:
        import pyarrow as pa
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
    return read_columns(pa.py_buffer(body), names, kinds, skip_rows=skip_rows, delimiter=delim)


#: pyarrow column type per kind: int64, int32 (ids below 2**31), float64
_TYPES = {"i": "int64", "i4": "int32", "f": "float64"}


def read_columns(source, names, kinds, *, skip_rows: int, delimiter: str):
    """``{name: array}`` of the rows of ``source`` parsed by ``pyarrow.csv``, or None.

    Parameters
    ----------
    source : pyarrow.Buffer or pyarrow file object
        The text (a buffer, or a file pyarrow reads itself, block by block on its threads).
    names, kinds : sequence of str
        Column names and kinds (``"i"`` int64, ``"i4"`` int32, ``"f"`` float64); a token
        that does not fit its column's type (an id above ``2**31 - 1`` in an ``"i4"`` column)
        fails the parse.
    skip_rows : int
        Leading lines to skip.
    delimiter : str
        The one character between tokens.

    Returns
    -------
    dict or None
        Contiguous NumPy arrays, or None (never a partial result) when any row is not exactly
        ``len(names)`` tokens of the columns' types, or pyarrow raised.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    types = {n: getattr(pa, _TYPES[k])() for n, k in zip(names, kinds)}
    try:
        table = pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(column_names=list(names), skip_rows=skip_rows),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                 strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False))
    except (pa.ArrowException, OSError):  # malformed rows, a failed allocation or read
        return None
    if table.num_columns != len(names) or any(table.column(n).null_count for n in names):
        return None
    return {n: np.ascontiguousarray(table.column(n).to_numpy()) for n in names}


def int_rows_table(cols):
    """A pyarrow table of the integer columns ``cols`` (zero-copy), or None where pyarrow is
    missing, the columns are small or any column is not integer (floats keep the writers'
    shortest round-trip repr, which always shows a decimal point, so a float column reads
    back as float)."""
    if not cols or int(cols[0].shape[0]) * len(cols) < config["io_arrow_min_bytes"] // 4:
        return None
    if any(np.asarray(c).dtype.kind not in "iu" for c in cols):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    arrays = {}
    for k, c in enumerate(cols):  # every integer width prints the same; uint64 as int64, as ever
        c = np.asarray(c)
        arrays[f"c{k}"] = c if c.dtype.kind == "i" or c.dtype.itemsize < 8 else c.astype(np.int64)
    return pa.table(arrays)


def write_int_rows(cols, sep: str):
    """The text rows of integer columns ``cols`` joined by ``sep`` (``%d`` each, ``\\n`` after
    each row) written by ``pyarrow.csv``, or None (see :func:`int_rows_table`)."""
    table = int_rows_table(cols)
    if table is None:
        return None
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    write_rows(table, sep, sink)
    return sink.getvalue().to_pybytes()


def write_rows(table, sep: str, out, head: bytes = b"") -> None:
    """``head``, then the rows of ``table`` (from :func:`int_rows_table`), to ``out`` (a path
    or a pyarrow output stream)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    opts = pacsv.WriteOptions(include_header=False, delimiter=sep)
    if isinstance(out, str):
        with pa.OSFile(out, "w") as f:
            f.write(head)
            pacsv.write_csv(table, f, write_options=opts)
        return
    out.write(head)
    pacsv.write_csv(table, out, write_options=opts)
